#include "c10/core/impl/DeviceGuardImplInterface.h"
#include "c10/core/impl/FakeGuardImpl.h"

#include <cstdlib>
#include <memory>
#include <stdexcept>

namespace c10 {
namespace cuda {
// Defined in c10/cuda/CUDAGuardImpl.cpp when built with CUDA.
const impl::DeviceGuardImplInterface* cuda_guard_impl();
} // namespace cuda

namespace impl {
namespace {

DeviceIndex sim_device_count_from_env() {
  // TORCHLITE_SIM_DEVICES sets how many simulated devices exist (default 2).
  if (const char* s = std::getenv("TORCHLITE_SIM_DEVICES")) {
    int n = std::atoi(s);
    if (n < 0)
      n = 0;
    if (n > 64)
      n = 64;
    return static_cast<DeviceIndex>(n);
  }
  return 2;
}

} // namespace

// The built-in impls are installed on first use rather than by static
// initialisers, so their order against other translation units cannot matter.
DeviceGuardImplRegistry& device_guard_impl_registry() {
  static DeviceGuardImplRegistry registry;
  static std::once_flag once;
  std::call_once(once, [] {
    for (auto& slot : registry)
      slot.store(nullptr);
    static NoOpDeviceGuardImpl cpu;
    static FakeGuardImpl sim(DeviceType::Sim, sim_device_count_from_env());
    registry[static_cast<size_t>(DeviceType::CPU)].store(&cpu);
    registry[static_cast<size_t>(DeviceType::Sim)].store(&sim);
#ifdef TORCHLITE_WITH_CUDA
    registry[static_cast<size_t>(DeviceType::CUDA)].store(c10::cuda::cuda_guard_impl());
#endif
  });
  return registry;
}

const DeviceGuardImplInterface* setDeviceGuardImpl(DeviceType type, const DeviceGuardImplInterface* impl) {
  return device_guard_impl_registry()[static_cast<size_t>(type)].exchange(impl);
}

const DeviceGuardImplInterface* getDeviceGuardImplOrNull(DeviceType type) {
  const auto idx = static_cast<size_t>(type);
  if (idx >= static_cast<size_t>(DeviceType::COMPILE_TIME_MAX_DEVICE_TYPES))
    return nullptr;
  return device_guard_impl_registry()[idx].load();
}

const DeviceGuardImplInterface* getDeviceGuardImpl(DeviceType type) {
  auto* p = getDeviceGuardImplOrNull(type);
  if (!p) {
    throw std::runtime_error("PyTorch is not linked with support for " + DeviceTypeName(type) + " devices");
  }
  return p;
}

bool hasDeviceGuardImpl(DeviceType type) {
  return getDeviceGuardImplOrNull(type) != nullptr;
}

} // namespace impl
} // namespace c10
