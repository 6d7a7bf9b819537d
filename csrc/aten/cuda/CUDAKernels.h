#pragma once
// CUDA kernels behind aten/Functions.h. Each launches on the calling thread's
// current stream of the tensor's device. Tensors passed here are contiguous
// unless a parameter says otherwise.
#include "aten/Tensor.h"

#include <memory>

namespace at {
namespace cuda {

std::shared_ptr<void> allocate(size_t nbytes, c10::DeviceIndex device, void** data);
void copy_host_to_device(void* dst, const void* src, size_t nbytes, c10::DeviceIndex device);
void copy_device_to_host(void* dst, const void* src, size_t nbytes, c10::DeviceIndex device);
void copy_device_to_device(void* dst, const void* src, size_t nbytes, c10::DeviceIndex device);

void fill(Tensor& out, double value);
void add(const Tensor& a, const Tensor& b, Tensor& out);
void add_inplace(Tensor& self, const Tensor& other);
void mul_scalar(const Tensor& a, double scalar, Tensor& out);
void copy_strided(const Tensor& src /* any strides */, Tensor& out);
void cast(const Tensor& src, Tensor& out);
void sum_to(const Tensor& src, Tensor& out /* zero-filled */);
bool any_nan(const Tensor& t);

} // namespace cuda
} // namespace at
