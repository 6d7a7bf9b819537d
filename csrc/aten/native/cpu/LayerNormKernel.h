#pragma once

// Layer norm's forward and first-order gradients over C-contiguous rows of
// float or double, bit for bit what torchlite/_ops/Normalization.py computes
// for them with numpy (native_layer_norm and _norm_grads_kernel): the role
// of upstream's aten/src/ATen/native/cpu/layer_norm_kernel.cpp
// (LayerNormKernelImplInternal, LayerNormBackwardKernelImplInternal), with
// numpy's arithmetic instead of upstream's (no Welford moments, no fused
// multiply-adds).
//
// Note [Layer norm with numpy's bits]
// Every value is computed by the IEEE operations the numpy path runs, one
// rounding each, in the same order, in the input's own type:
//  * np.mean over a row (the normalized trailing dims of a C-contiguous
//    array are one contiguous row) is the add reduction started from the
//    identity +0 plus numpy's pairwise sum of the row
//    (numpy/_core/src/umath/loops_utils.h.src, @TYPE@_pairwise_sum: below 8
//    values a plain loop, up to 128 eight accumulators combined as
//    ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)) and then the tail, beyond that the
//    halves split at a multiple of 8), then numpy's _mean divides the sum by
//    the count as an np.intp scalar into the float out with
//    casting='unsafe': under NEP 50 a float32 array over an int64 scalar
//    runs the float64 loop, so the quotient is (double)sum / (double)count
//    rounded to the type (for float32 this equals the float32 quotient,
//    a double rounding of a division being innocuous at 53 >= 2*24+2 bits).
//    numpy 2.2, 2.4 and 2.5 agree on all of this (the tests run the kernel
//    against each of them); a row reaches the loop whole only where it is no
//    longer than numpy's ufunc buffer (np.getbufsize(): beyond it the
//    reduction iterator cuts rows into pieces, differently by version), so
//    the callers take longer rows to the numpy path.
//  * The sums over the leading dims (the weight's and bias's gradients) are
//    numpy's add reduction over the outer axis: the result starts at +0 and
//    each row is added to it in order (so -0.0 sums to +0.0). With rows of
//    one value numpy reduces the column by the pairwise sum instead, so the
//    callers take R == 1 to the numpy path.
//  * Where two different nans meet in one operation (only with nan or inf
//    inputs: a nan input is +nan, an invalid operation's nan -nan), which
//    one the result carries is no promise of numpy's: its SIMD loops keep
//    the second operand's in 2.2 and the first's in 2.4, and its compiled
//    pairwise sum one or the other by position. So a nan's sign and payload
//    may differ from the numpy path's; which values are nan does not, and
//    every other bit is the numpy path's.
// The file is compiled with -ffp-contract=off: no multiply-add is fused.

#include <cstdint>

namespace at {
namespace native {

// numpy's mean of a contiguous row of n values: (+0 + pairwise sum) / n.
template <typename T>
T numpy_row_mean(const T* row, std::int64_t n);

// native_layer_norm over m rows of n values x (C-contiguous): y = (x - mean)
// * rstd [* weight] [+ bias], mean and rstd one per row, as
// Normalization.py's native_layer_norm. weight and bias (n values each) may
// be null. y must not alias x.
template <typename T>
void layer_norm_rows(
    const T* x,
    const T* weight,
    const T* bias,
    T eps,
    std::int64_t m,
    std::int64_t n,
    T* y,
    T* mean,
    T* rstd);

// _norm_grads_kernel for layer norm over m rows of n values: grad_input
// (m x n, when non-null), grad_weight (n, when non-null; needs weight) and
// grad_bias (n, when non-null) from the output's gradient g, the input x,
// the saved mean and rstd (m each) and the weight (null for none). scratch
// holds n values.
template <typename T>
void layer_norm_backward_rows(
    const T* g,
    const T* x,
    const T* mean,
    const T* rstd,
    const T* weight,
    std::int64_t m,
    std::int64_t n,
    T* grad_input,
    T* grad_weight,
    T* grad_bias,
    T* scratch);

} // namespace native
} // namespace at
