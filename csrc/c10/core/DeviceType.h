#pragma once
// Device types the engine knows. Mirrors c10/core/DeviceType.h, reduced to the
// types torchlite can run: the CPU, CUDA GPUs, and a simulated accelerator
// backed by host memory (see DESIGN.md "Devices and streams").
#include <cstdint>
#include <ostream>
#include <string>

namespace c10 {

enum class DeviceType : int8_t {
  CPU = 0,
  CUDA = 1,
  // Host-memory accelerator with its own worker thread per device index:
  // gives machines without a GPU the multi-device flow of Note [Allocating
  // GPUs to autograd threads] (torch/csrc/autograd/engine.cpp).
  Sim = 2,
  COMPILE_TIME_MAX_DEVICE_TYPES = 3,
};

constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;
constexpr DeviceType kSim = DeviceType::Sim;

using DeviceIndex = int8_t;
using StreamId = int64_t;

std::string DeviceTypeName(DeviceType d, bool lower_case = true);
DeviceType parse_device_type(const std::string& name);

// Everything but the CPU runs on a device worker thread and has streams.
inline bool isAccelerator(DeviceType t) {
  return t != DeviceType::CPU;
}

std::ostream& operator<<(std::ostream& os, DeviceType t);

} // namespace c10
