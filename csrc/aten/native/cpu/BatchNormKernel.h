#pragma once

// Training batch norm's first-order gradients in two passes over the input
// (the role of upstream's batch_norm_cpu_backward_channels_first in
// aten/src/ATen/native/cpu/batch_norm_kernel.cpp).
//
// Note [Batch norm gradients with numpy's bits]
// torchlite/_ops/Normalization.py's _batch_norm_grads_blocked computes these
// gradients in numpy, block by block over the batch, with the operations and
// reductions of the unblocked kernel (so its bits). This kernel runs the same
// IEEE operations per element, in the same order, recomputing the normalized
// input and the weighted gradient where numpy keeps them in buffers:
//   xhat = (x - mean) * invstd,  gw = g * weight (g without a weight)
//   each (n, c) row's sums of gw * xhat, gw, g * xhat and g: numpy's
//   add.reduce over the contiguous row (NumpySum.h; the callers take rows no
//   longer than numpy's ufunc buffer), into an (n, c) partial;
//   the channel's total: row 0's partial, then each next row's added in order
//   (Normalization.py's _rows_total, numpy's outer reduction loop), the means
//   that total over n * s as np.mean divides;
//   grad_input = invstd * ((gw - mean(gw)) - xhat * mean(gw * xhat)).
// Which of two different nans an operation keeps is the compiler's choice
// here and numpy's loops' there, and numpy warns of overflow where this loop
// cannot: so the kernel answers only where every result is finite (then no
// operation met a nan or an infinity), and the caller runs numpy otherwise.
// The file is compiled with -ffp-contract=off: no multiply-add is fused.

#include <cstdint>

namespace at {
namespace native {

// x and g: (n, c, s) C-contiguous; mean, invstd, weight: c values (weight may
// be null). grad_input (n * c * s), grad_weight and grad_bias (c each) are
// written where non-null; partials holds 4 * n * c values of scratch. Returns
// whether every result written is finite (the results are the numpy path's
// then; otherwise the caller computes them again in numpy).
template <typename T>
bool batch_norm_train_grads(
    const T* g,
    const T* x,
    const T* mean,
    const T* invstd,
    const T* weight,
    std::int64_t n,
    std::int64_t c,
    std::int64_t s,
    T* grad_input,
    T* grad_weight,
    T* grad_bias,
    T* partials);

// Training batch norm's forward statistics as Normalization.py's native_batch_norm
// computes them in numpy: mean = x.mean over (n, s), var = the mean of (x - mean)^2,
// each (n, c) row pairwise-summed and the rows added in order (the same reductions
// as the gradients'). x: (n, c, s) C-contiguous; mean and var: c values each.
// Returns whether both are finite (else the caller runs numpy).
template <typename T>
bool batch_norm_train_stats(const T* x, std::int64_t n, std::int64_t c, std::int64_t s, T* mean, T* var);

// y = ((x - mean) * invstd) [* weight] [+ bias] per channel, each operation
// rounded as numpy's passes (weight and bias may be null). Returns whether every
// value is finite (else the caller runs numpy).
template <typename T>
bool batch_norm_apply(
    const T* x,
    const T* mean,
    const T* invstd,
    const T* weight,
    const T* bias,
    std::int64_t n,
    std::int64_t c,
    std::int64_t s,
    T* y);

} // namespace native
} // namespace at
