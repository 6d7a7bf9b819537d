#pragma once
// RAII guards over the registry's impls: OptionalDeviceGuard,
// OptionalStreamGuard and MultiStreamGuard, as in c10/core/*Guard.h.
#include "c10/core/impl/DeviceGuardImplInterface.h"

#include <optional>
#include <vector>

namespace c10 {

class OptionalDeviceGuard {
 public:
  OptionalDeviceGuard() = default;
  explicit OptionalDeviceGuard(std::optional<Device> d) {
    reset_device(d);
  }
  OptionalDeviceGuard(const OptionalDeviceGuard&) = delete;
  OptionalDeviceGuard& operator=(const OptionalDeviceGuard&) = delete;
  ~OptionalDeviceGuard() {
    if (impl_)
      impl_->uncheckedSetDevice(original_);
  }
  void reset_device(std::optional<Device> d) {
    if (!d || !isAccelerator(d->type()) || impl_)
      return;
    impl_ = impl::getDeviceGuardImpl(d->type());
    original_ = impl_->exchangeDevice(*d);
  }

 private:
  const impl::DeviceGuardImplInterface* impl_ = nullptr;
  Device original_;
};

class OptionalStreamGuard {
 public:
  explicit OptionalStreamGuard(std::optional<Stream> s) {
    if (!s || !isAccelerator(s->device_type()))
      return;
    impl_ = impl::getDeviceGuardImpl(s->device_type());
    original_device_ = impl_->exchangeDevice(s->device());
    original_stream_ = impl_->exchangeStream(*s);
  }
  OptionalStreamGuard(const OptionalStreamGuard&) = delete;
  OptionalStreamGuard& operator=(const OptionalStreamGuard&) = delete;
  ~OptionalStreamGuard() {
    if (!impl_)
      return;
    impl_->exchangeStream(*original_stream_);
    impl_->uncheckedSetDevice(original_device_);
  }

 private:
  const impl::DeviceGuardImplInterface* impl_ = nullptr;
  Device original_device_;
  std::optional<Stream> original_stream_;
};

// Makes each given stream current on its device; restores them on exit.
class MultiStreamGuard {
 public:
  explicit MultiStreamGuard(const std::vector<Stream>& streams) {
    for (const auto& s : streams) {
      if (!isAccelerator(s.device_type()))
        continue;
      originals_.push_back(impl::getDeviceGuardImpl(s.device_type())->exchangeStream(s));
    }
  }
  MultiStreamGuard(const MultiStreamGuard&) = delete;
  MultiStreamGuard& operator=(const MultiStreamGuard&) = delete;
  ~MultiStreamGuard() {
    for (auto it = originals_.rbegin(); it != originals_.rend(); ++it) {
      impl::getDeviceGuardImpl(it->device_type())->exchangeStream(*it);
    }
  }

 private:
  std::vector<Stream> originals_;
};

} // namespace c10
