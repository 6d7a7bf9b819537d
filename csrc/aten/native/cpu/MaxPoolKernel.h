#pragma once

// Max pooling over the last two dims of a C-contiguous float or double array (planes, H, W), as
// torchlite/_ops/Pooling.py computes it; upstream's ATen/native/cpu/MaxPoolKernel.cpp
// (cpu_max_pool, cpu_max_pool_backward) is the same loop.
//
// Note [Max pooling in C++ keeps the numpy kernel's answers]
// The forward scans each window in row-major order over the padded plane, as Pooling.py's
// _window_max does over its as_strided windows: a position outside the input (padding, or the
// right and bottom overhang of ceil_mode's last window) holds -inf, and its index is its
// position h * W + w in the plane's coordinates, out of range or not, as Pooling.py computes it
// from the window's corner. The scan starts at the window's first position and takes a later
// one where `value > best || isnan(value)` (upstream's rule: the first of equal maxima, -0.0 and
// 0.0 equal; the last nan), and the value is copied bit for bit. The backward adds each output's
// gradient, in double, into its index's slot in flat order, and rounds each slot once to the
// element type: np.bincount's loop with float64 weights, which the Python kernel runs (its
// other path, for indices that each occur once, gives the same bits: 0.0 + g once). Where a
// result is not finite the caller runs numpy instead (Note [Convolution copies in C++ keep the
// numpy bits] says why: which of two nans a sum keeps, and numpy's overflow warnings).

#include <cstdint>

namespace at {
namespace native {

struct MaxPool2dGeometry {
  int64_t planes, height, width;
  int64_t kernel_h, kernel_w;
  int64_t stride_h, stride_w;
  int64_t pad_h, pad_w;
  int64_t dilation_h, dilation_w;
  int64_t out_h, out_w;
};

// values and indices (planes, oH, oW) of input (planes, H, W).
template <typename scalar_t>
void max_pool2d_forward(const scalar_t* input, scalar_t* values, int64_t* indices, const MaxPool2dGeometry& g);

// Whether every index lies in [0, plane): the backward's precondition.
bool max_pool2d_indices_in_range(const int64_t* indices, int64_t count, int64_t plane);

// grad_input (planes, plane) from grad_output and indices (planes, per_plane); grad_input is
// overwritten. The indices must lie in [0, plane).
template <typename scalar_t>
void max_pool2d_backward(
    const scalar_t* grad_output,
    const int64_t* indices,
    scalar_t* grad_input,
    int64_t planes,
    int64_t per_plane,
    int64_t plane);

} // namespace native
} // namespace at
