#pragma once
#include "c10/core/DeviceType.h"

#include <functional>
#include <ostream>
#include <string>

namespace c10 {

// A device type plus an index; the CPU has index -1 ("no index").
struct Device {
  Device(DeviceType type = DeviceType::CPU, DeviceIndex index = -1) : type_(type), index_(index) {}
  // Parses "cpu", "cuda", "cuda:1", "sim:0".
  explicit Device(const std::string& spec);

  DeviceType type() const noexcept {
    return type_;
  }
  DeviceIndex index() const noexcept {
    return index_;
  }
  bool has_index() const noexcept {
    return index_ != -1;
  }
  bool is_cpu() const noexcept {
    return type_ == DeviceType::CPU;
  }
  bool is_cuda() const noexcept {
    return type_ == DeviceType::CUDA;
  }
  void set_index(DeviceIndex i) {
    index_ = i;
  }

  bool operator==(const Device& o) const noexcept {
    return type_ == o.type_ && index_ == o.index_;
  }
  bool operator!=(const Device& o) const noexcept {
    return !(*this == o);
  }

  std::string str() const;

 private:
  DeviceType type_;
  DeviceIndex index_;
};

std::ostream& operator<<(std::ostream& os, const Device& d);

} // namespace c10

namespace std {
template <>
struct hash<c10::Device> {
  size_t operator()(const c10::Device& d) const noexcept {
    return (static_cast<size_t>(d.type()) << 16) ^ static_cast<size_t>(static_cast<uint8_t>(d.index()));
  }
};
} // namespace std
