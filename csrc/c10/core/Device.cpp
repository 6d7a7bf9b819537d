#include "c10/core/Device.h"

#include <sstream>
#include <stdexcept>

namespace c10 {

std::string DeviceTypeName(DeviceType d, bool lower_case) {
  switch (d) {
    case DeviceType::CPU:
      return lower_case ? "cpu" : "CPU";
    case DeviceType::CUDA:
      return lower_case ? "cuda" : "CUDA";
    case DeviceType::Sim:
      return lower_case ? "sim" : "SIM";
    default:
      break;
  }
  throw std::runtime_error("Unknown device type " + std::to_string(static_cast<int>(d)));
}

DeviceType parse_device_type(const std::string& name) {
  if (name == "cpu")
    return DeviceType::CPU;
  if (name == "cuda")
    return DeviceType::CUDA;
  if (name == "sim")
    return DeviceType::Sim;
  throw std::runtime_error("Expected one of cpu, cuda, sim device type at start of device string: " + name);
}

std::ostream& operator<<(std::ostream& os, DeviceType t) {
  return os << DeviceTypeName(t, true);
}

Device::Device(const std::string& spec) : type_(DeviceType::CPU), index_(-1) {
  auto colon = spec.find(':');
  type_ = parse_device_type(spec.substr(0, colon));
  if (colon != std::string::npos) {
    const std::string idx = spec.substr(colon + 1);
    if (idx.empty() || idx.find_first_not_of("0123456789") != std::string::npos) {
      throw std::runtime_error("Invalid device string: '" + spec + "'");
    }
    index_ = static_cast<DeviceIndex>(std::stoi(idx));
  }
  if (type_ == DeviceType::CPU && index_ > 0) {
    throw std::runtime_error("CPU device index must be -1 or zero, got " + std::to_string(index_));
  }
}

std::string Device::str() const {
  std::string s = DeviceTypeName(type_, true);
  if (has_index())
    s += ":" + std::to_string(static_cast<int>(index_));
  return s;
}

std::ostream& operator<<(std::ostream& os, const Device& d) {
  return os << d.str();
}

} // namespace c10
