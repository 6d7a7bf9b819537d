#pragma once
// The index arithmetic of the CUDA sum_to kernel, for host and device: the
// kernel runs one thread per output element, and that thread adds up the
// input elements broadcast from it in one fixed order, so the result does not
// depend on scheduling (an atomicAdd per input element would: float addition
// is not associative). Compiled by the host compiler too, so the arithmetic is
// tested without a GPU (tests/cpp/test_cuda_checks.cpp).
#include "aten/StridedOffset.h"

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace at {
namespace cuda {

struct SumToPlan {
  static constexpr int kMaxDims = 16;
  // Input dimensions split in two lists, each innermost last: those kept in
  // the output and those summed away, with their contiguous input strides.
  int kept_ndim = 0;
  int64_t kept_sizes[kMaxDims] = {};
  int64_t kept_strides[kMaxDims] = {};
  int reduced_ndim = 0;
  int64_t reduced_sizes[kMaxDims] = {};
  int64_t reduced_strides[kMaxDims] = {};
  int64_t out_numel = 1;
  int64_t reduce_numel = 1;

  // `shape` must be expandable to `in_sizes` (checked by at::sum_to).
  static SumToPlan make(const std::vector<int64_t>& in_sizes, const std::vector<int64_t>& shape) {
    if (in_sizes.size() > static_cast<size_t>(kMaxDims)) {
      throw std::runtime_error("CUDA kernels support at most 16 dimensions");
    }
    SumToPlan p;
    const size_t lead = in_sizes.size() - shape.size();
    int64_t stride = 1;
    int64_t strides[kMaxDims];
    for (size_t d = in_sizes.size(); d-- > 0;) {
      strides[d] = stride;
      stride *= in_sizes[d];
    }
    for (size_t d = 0; d < in_sizes.size(); ++d) {
      const bool reduced = d < lead || (shape[d - lead] == 1 && in_sizes[d] != 1);
      if (reduced) {
        p.reduced_sizes[p.reduced_ndim] = in_sizes[d];
        p.reduced_strides[p.reduced_ndim++] = strides[d];
        p.reduce_numel *= in_sizes[d];
      } else {
        p.kept_sizes[p.kept_ndim] = in_sizes[d];
        p.kept_strides[p.kept_ndim++] = strides[d];
        p.out_numel *= in_sizes[d];
      }
    }
    return p;
  }

  // Offset in the (contiguous) input of the r-th element summed into output
  // element o, r in [0, reduce_numel).
  TORCHLITE_HOST_DEVICE int64_t input_offset(int64_t o, int64_t r) const {
    return strided_offset(o, kept_ndim, kept_sizes, kept_strides) +
        strided_offset(r, reduced_ndim, reduced_sizes, reduced_strides);
  }
};

} // namespace cuda
} // namespace at
