#pragma once
// Device-index checks of the CUDA guard impl, kept apart from the CUDA
// runtime so that they build and are tested without a toolkit or a GPU.
#include "c10/core/Device.h"

#include <stdexcept>
#include <string>

namespace c10 {
namespace cuda {

// The per-thread current-stream table and the stream pool hold this many devices.
constexpr int kMaxDevices = 64;

// The devices the impl serves: what the runtime reports, at most kMaxDevices.
inline DeviceIndex clamp_device_count(int reported) {
  if (reported < 0)
    return 0;
  return static_cast<DeviceIndex>(reported > kMaxDevices ? kMaxDevices : reported);
}

// Device("cuda") has index -1, which means the current device (as upstream's
// getCurrentCUDAStream(-1)); any other index must name a device, with
// upstream's check_gpu message.
inline DeviceIndex checked_device_index(DeviceIndex index, DeviceIndex current, DeviceIndex count) {
  if (index == -1)
    index = current;
  if (index < 0 || index >= count) {
    throw std::runtime_error(
        "Device index value " + std::to_string(static_cast<int>(index)) + " is out of index range [0, " +
        std::to_string(static_cast<int>(count)) + ")");
  }
  return index;
}

} // namespace cuda
} // namespace c10
