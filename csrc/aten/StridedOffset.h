#pragma once
// The element offset of a row-major linear index in a strided layout: one
// definition for the host copies (aten/Functions.cpp) and the CUDA kernels
// (aten/cuda/CUDAKernels.cu, aten/cuda/SumToPlan.h).
#include <cstdint>

#ifdef __CUDACC__
#define TORCHLITE_HOST_DEVICE __host__ __device__
#else
#define TORCHLITE_HOST_DEVICE
#endif

namespace at {

// Offset in elements of the element with row-major linear index `i` of a
// tensor with `ndim` dimensions `sizes` and `strides`.
TORCHLITE_HOST_DEVICE inline int64_t strided_offset(int64_t i, int ndim, const int64_t* sizes, const int64_t* strides) {
  int64_t off = 0;
  for (int d = ndim - 1; d >= 0; --d) {
    off += (i % sizes[d]) * strides[d];
    i /= sizes[d];
  }
  return off;
}

} // namespace at
