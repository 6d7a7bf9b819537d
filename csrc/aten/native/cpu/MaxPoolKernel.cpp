// Note [Max pooling in C++ keeps the numpy kernel's answers] (MaxPoolKernel.h).
#include "aten/native/cpu/MaxPoolKernel.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

namespace at {
namespace native {

namespace {

// The output columns [lo, hi) whose input column o * stride + shift lies in [0, size).
void valid_range(int64_t out, int64_t stride, int64_t shift, int64_t size, int64_t& lo, int64_t& hi) {
  lo = shift >= 0 ? 0 : (-shift + stride - 1) / stride;
  hi = size - shift <= 0 ? 0 : (size - shift + stride - 1) / stride;
  lo = std::min(lo, out);
  hi = std::max(lo, std::min(hi, out));
}

// One window position over the output columns [lo, hi) of a row: where `value > best ||
// isnan(value)` (upstream's rule), the value and the position t are taken. kStride is the column
// stride where known at compile time (1 and 2, the common ones, whose loops vectorise), else 0.
template <int64_t kStride, typename scalar_t, typename tap_t>
void scan_position(
    const scalar_t* __restrict row,
    int64_t stride,
    int64_t lo,
    int64_t hi,
    tap_t t,
    scalar_t* __restrict best,
    tap_t* __restrict tap) {
  const int64_t sw = kStride > 0 ? kStride : stride;
  for (int64_t ow = lo; ow < hi; ++ow) {
    const scalar_t v = row[ow * sw];
    const bool take = v > best[ow] || v != v;
    best[ow] = take ? v : best[ow];
    tap[ow] = take ? t : tap[ow];
  }
}

} // namespace

// One output row at a time, the window's positions in row-major order, each over the whole row
// (the loop over the row's columns vectorises: a comparison and two blends). A position outside
// the input holds -inf, which is never greater than the best so far nor nan: after the first
// position it is never taken, so only the inside columns are scanned.
template <typename scalar_t>
void max_pool2d_forward(const scalar_t* input, scalar_t* values, int64_t* indices, const MaxPool2dGeometry& g) {
  // the position in the window, as an integer as wide as scalar_t (the same vector lanes)
  using tap_t = std::conditional_t<sizeof(scalar_t) == 4, int32_t, int64_t>;
  const int64_t plane = g.height * g.width, taps = g.kernel_h * g.kernel_w, ow_n = g.out_w;
  const scalar_t fill = -std::numeric_limits<scalar_t>::infinity();
  std::vector<int64_t> tap_offset(static_cast<size_t>(taps)), col_shift(static_cast<size_t>(g.kernel_w)),
      col_lo(static_cast<size_t>(g.kernel_w)), col_hi(static_cast<size_t>(g.kernel_w));
  for (int64_t ki = 0; ki < g.kernel_h; ++ki)
    for (int64_t kj = 0; kj < g.kernel_w; ++kj)
      tap_offset[static_cast<size_t>(ki * g.kernel_w + kj)] = ki * g.dilation_h * g.width + kj * g.dilation_w;
  for (int64_t kj = 0; kj < g.kernel_w; ++kj) {
    const auto j = static_cast<size_t>(kj);
    col_shift[j] = kj * g.dilation_w - g.pad_w;
    valid_range(ow_n, g.stride_w, col_shift[j], g.width, col_lo[j], col_hi[j]);
  }
  std::vector<scalar_t> best_row(static_cast<size_t>(ow_n));
  std::vector<tap_t> tap_row(static_cast<size_t>(ow_n));
  scalar_t* __restrict best = best_row.data();
  tap_t* __restrict tap = tap_row.data();
  const int64_t sw = g.stride_w;
  for (int64_t p = 0; p < g.planes; ++p) {
    const scalar_t* src = input + p * plane;
    for (int64_t oh = 0; oh < g.out_h; ++oh) {
      const int64_t h0 = oh * g.stride_h - g.pad_h;
      for (int64_t ki = 0; ki < g.kernel_h; ++ki) {
        const int64_t h = h0 + ki * g.dilation_h;
        const bool row_inside = h >= 0 && h < g.height;
        for (int64_t kj = 0; kj < g.kernel_w; ++kj) {
          const auto j = static_cast<size_t>(kj);
          const int64_t lo = col_lo[j], hi = col_hi[j];
          const scalar_t* __restrict row = src + h * g.width + col_shift[j];
          if (ki == 0 && kj == 0) { // the first position: taken whatever it holds
            for (int64_t ow = 0; ow < ow_n; ++ow) {
              best[ow] = fill;
              tap[ow] = 0;
            }
            if (row_inside)
              for (int64_t ow = lo; ow < hi; ++ow)
                best[ow] = row[ow * sw];
            continue;
          }
          if (!row_inside)
            continue;
          const auto t = static_cast<tap_t>(ki * g.kernel_w + kj);
          if (sw == 1)
            scan_position<1>(row, sw, lo, hi, t, best, tap);
          else if (sw == 2)
            scan_position<2>(row, sw, lo, hi, t, best, tap);
          else
            scan_position<0>(row, sw, lo, hi, t, best, tap);
        }
      }
      const int64_t corner = h0 * g.width - g.pad_w;
      for (int64_t ow = 0; ow < ow_n; ++ow) {
        values[ow] = best[ow];
        indices[ow] = corner + ow * sw + tap_offset[static_cast<size_t>(tap[ow])];
      }
      values += ow_n;
      indices += ow_n;
    }
  }
}

bool max_pool2d_indices_in_range(const int64_t* indices, int64_t count, int64_t plane) {
  for (int64_t i = 0; i < count; ++i)
    if (indices[i] < 0 || indices[i] >= plane)
      return false;
  return true;
}

template <typename scalar_t>
void max_pool2d_backward(
    const scalar_t* grad_output,
    const int64_t* indices,
    scalar_t* grad_input,
    int64_t planes,
    int64_t per_plane,
    int64_t plane) {
  std::vector<double> sums(static_cast<size_t>(plane));
  for (int64_t p = 0; p < planes; ++p) {
    std::fill(sums.begin(), sums.end(), 0.0);
    const scalar_t* g = grad_output + p * per_plane;
    const int64_t* idx = indices + p * per_plane;
    for (int64_t j = 0; j < per_plane; ++j)
      sums[static_cast<size_t>(idx[j])] += static_cast<double>(g[j]);
    scalar_t* out = grad_input + p * plane;
    for (int64_t i = 0; i < plane; ++i)
      out[i] = static_cast<scalar_t>(sums[static_cast<size_t>(i)]);
  }
}

template void max_pool2d_forward<float>(const float*, float*, int64_t*, const MaxPool2dGeometry&);
template void max_pool2d_forward<double>(const double*, double*, int64_t*, const MaxPool2dGeometry&);
template void max_pool2d_backward<float>(const float*, const int64_t*, float*, int64_t, int64_t, int64_t);
template void max_pool2d_backward<double>(const double*, const int64_t*, double*, int64_t, int64_t, int64_t);

} // namespace native
} // namespace at
