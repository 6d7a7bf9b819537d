#pragma once
#include "c10/core/Device.h"

#include <functional>
#include <ostream>

namespace c10 {

struct Event;

// A stream is a device plus an id that the device's guard impl interprets
// (for CUDA the cudaStream_t; for host-memory devices a counter). Mirrors
// c10/core/Stream.h.
class Stream final {
 public:
  enum Default { DEFAULT };
  enum Unsafe { UNSAFE };

  Stream(Unsafe, Device device, StreamId id) : device_(device), id_(id) {}
  Stream(Default, Device device) : device_(device), id_(0) {}

  Device device() const noexcept {
    return device_;
  }
  DeviceType device_type() const noexcept {
    return device_.type();
  }
  DeviceIndex device_index() const noexcept {
    return device_.index();
  }
  StreamId id() const noexcept {
    return id_;
  }

  bool operator==(const Stream& o) const noexcept {
    return device_ == o.device_ && id_ == o.id_;
  }
  bool operator!=(const Stream& o) const noexcept {
    return !(*this == o);
  }

  // Makes this stream wait until `event` has completed (recorded work done).
  void wait(const Event& event) const;

 private:
  Device device_;
  StreamId id_;
};

std::ostream& operator<<(std::ostream& os, const Stream& s);

} // namespace c10

namespace std {
template <>
struct hash<c10::Stream> {
  size_t operator()(const c10::Stream& s) const noexcept {
    return std::hash<c10::Device>()(s.device()) ^ (std::hash<int64_t>()(s.id()) << 1);
  }
};
} // namespace std
