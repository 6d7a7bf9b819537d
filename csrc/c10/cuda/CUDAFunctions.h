#pragma once
// Thin helpers over the CUDA runtime shared by the CUDA guard impl and the
// CUDA kernels. Built only when the CUDA toolkit is found.
#include "c10/core/Device.h"

#include <cuda_runtime_api.h>

#include <string>

namespace c10 {
namespace cuda {

// Throws std::runtime_error naming the failed call.
void check(cudaError_t err, const char* what);
// 0 when there is no GPU or no driver; never throws.
DeviceIndex device_count() noexcept;
// The calling thread's current stream on `device` (what kernels launch on).
cudaStream_t getCurrentCUDAStream(DeviceIndex device);

} // namespace cuda
} // namespace c10

#define TORCHLITE_CUDA_CHECK(expr) ::c10::cuda::check((expr), #expr)
