#pragma once

// The data movement around the convolution's matmuls (torchlite/_ops/Convolution.py), in the
// layouts that module uses: im2col's columns, col2im's accumulation of their gradient, and the
// swap of the batch and channel axes between the matmul's (channel, batch, pixel) layout and a
// tensor's (batch, channel, pixel). Upstream's ATen/native/cpu/Unfold2d.cpp (unfolded2d_copy,
// unfolded2d_acc) does the same for slow_conv2d, one batch element at a time.
//
// Note [Convolution copies in C++ keep the numpy bits]
// Each kernel only copies values, or adds them one IEEE operation at a time in the element type
// (float or double), in the order the numpy code they replace adds them: im2col and the swap are
// copies (padding writes +0.0, as np.zeros); the swap with a bias adds one bias value to each
// element, as np.add does; col2im starts each input element at +0.0 and adds the columns'
// gradients of the kernel taps in row-major tap order, as the numpy loop over taps does (within
// one tap, one column element reaches each input element at most once). No reductions, no
// transcendentals: the bits are those of numpy on every version, where the result is finite. The
// bindings answer None where it is not (col2im's result, the biased copy) and the Python code runs
// numpy then, for two reasons: an addition of two nans gives one of the two, and which one depends
// on the order of the operands in the machine instruction, which the compiler picks (for numpy's
// loops as for these); and numpy warns (RuntimeWarning) where an addition overflows or makes a
// nan, which these loops do not. A finite sum met neither.

#include <cstdint>

namespace at {
namespace native {

// The geometry of a 2-d convolution window (a 1-d one is a 2-d one of height 1).
struct Unfold2dGeometry {
  int64_t batch, channels, height, width; // the input (N, C, H, W)
  int64_t kernel_h, kernel_w;
  int64_t stride_h, stride_w;
  int64_t pad_h, pad_w;
  int64_t dilation_h, dilation_w;
  int64_t out_h, out_w;
};

// columns (C, kH, kW, N, oH, oW) of input (N, C, H, W), both C-contiguous.
template <typename scalar_t>
void unfold2d_copy(const scalar_t* input, scalar_t* columns, const Unfold2dGeometry& g);

// input_grad (N, C, H, W) from columns (C, kH, kW, N, oH, oW): each element +0.0 plus the
// column values that fall on it, added in row-major tap order; input_grad is overwritten.
template <typename scalar_t>
void unfold2d_acc(const scalar_t* columns, scalar_t* input_grad, const Unfold2dGeometry& g);

// Whether any of the n values is a nan or an infinity.
template <typename scalar_t>
bool any_nonfinite(const scalar_t* values, int64_t n);

// dst (B, A, L) = src (A, B, L) with the first two axes swapped, plus bias[a] where bias is
// not null (one addition per element).
template <typename scalar_t>
void swap_leading_axes(const scalar_t* src, scalar_t* dst, int64_t a, int64_t b, int64_t l, const scalar_t* bias);

} // namespace native
} // namespace at
