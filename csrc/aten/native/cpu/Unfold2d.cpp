// Note [Convolution copies in C++ keep the numpy bits] (Unfold2d.h).
#include "aten/native/cpu/Unfold2d.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

namespace at {
namespace native {
namespace {

// The output positions [lo, hi) whose input coordinate o * stride - pad + offset lies in [0, size).
void valid_range(int64_t out, int64_t stride, int64_t shift, int64_t size, int64_t& lo, int64_t& hi) {
  // o * stride + shift >= 0  and  o * stride + shift < size
  lo = shift >= 0 ? 0 : (-shift + stride - 1) / stride;
  hi = size - shift <= 0 ? 0 : (size - shift + stride - 1) / stride;
  lo = std::min(lo, out);
  hi = std::max(lo, std::min(hi, out));
}

} // namespace

template <typename scalar_t>
void unfold2d_copy(const scalar_t* input, scalar_t* columns, const Unfold2dGeometry& g) {
  const int64_t plane = g.height * g.width, out_plane = g.out_h * g.out_w;
  scalar_t* dst = columns;
  for (int64_t c = 0; c < g.channels; ++c) {
    for (int64_t ki = 0; ki < g.kernel_h; ++ki) {
      const int64_t shift_h = ki * g.dilation_h - g.pad_h;
      int64_t h_lo, h_hi;
      valid_range(g.out_h, g.stride_h, shift_h, g.height, h_lo, h_hi);
      for (int64_t kj = 0; kj < g.kernel_w; ++kj) {
        const int64_t shift_w = kj * g.dilation_w - g.pad_w;
        int64_t w_lo, w_hi;
        valid_range(g.out_w, g.stride_w, shift_w, g.width, w_lo, w_hi);
        for (int64_t n = 0; n < g.batch; ++n, dst += out_plane) {
          const scalar_t* src = input + (n * g.channels + c) * plane;
          std::fill(dst, dst + h_lo * g.out_w, scalar_t(0));
          for (int64_t oh = h_lo; oh < h_hi; ++oh) {
            scalar_t* row = dst + oh * g.out_w;
            const scalar_t* in_row = src + (oh * g.stride_h + shift_h) * g.width + shift_w;
            std::fill(row, row + w_lo, scalar_t(0));
            if (g.stride_w == 1) {
              std::memcpy(row + w_lo, in_row + w_lo, sizeof(scalar_t) * (w_hi - w_lo));
            } else {
              for (int64_t ow = w_lo; ow < w_hi; ++ow)
                row[ow] = in_row[ow * g.stride_w];
            }
            std::fill(row + w_hi, row + g.out_w, scalar_t(0));
          }
          std::fill(dst + h_hi * g.out_w, dst + out_plane, scalar_t(0));
        }
      }
    }
  }
}

template <typename scalar_t>
void unfold2d_acc(const scalar_t* columns, scalar_t* input_grad, const Unfold2dGeometry& g) {
  const int64_t plane = g.height * g.width, out_plane = g.out_h * g.out_w;
  std::fill(input_grad, input_grad + g.batch * g.channels * plane, scalar_t(0));
  for (int64_t c = 0; c < g.channels; ++c) {
    // the taps in row-major order, outermost per channel: each input element receives its
    // additions in tap order (Note [Convolution copies in C++ keep the numpy bits])
    for (int64_t ki = 0; ki < g.kernel_h; ++ki) {
      const int64_t shift_h = ki * g.dilation_h - g.pad_h;
      int64_t h_lo, h_hi;
      valid_range(g.out_h, g.stride_h, shift_h, g.height, h_lo, h_hi);
      for (int64_t kj = 0; kj < g.kernel_w; ++kj) {
        const int64_t shift_w = kj * g.dilation_w - g.pad_w;
        int64_t w_lo, w_hi;
        valid_range(g.out_w, g.stride_w, shift_w, g.width, w_lo, w_hi);
        const scalar_t* src = columns + ((c * g.kernel_h + ki) * g.kernel_w + kj) * g.batch * out_plane;
        for (int64_t n = 0; n < g.batch; ++n, src += out_plane) {
          scalar_t* dst = input_grad + (n * g.channels + c) * plane;
          for (int64_t oh = h_lo; oh < h_hi; ++oh) {
            const scalar_t* col_row = src + oh * g.out_w;
            scalar_t* in_row = dst + (oh * g.stride_h + shift_h) * g.width + shift_w;
            if (g.stride_w == 1) {
              for (int64_t ow = w_lo; ow < w_hi; ++ow)
                in_row[ow] += col_row[ow];
            } else {
              for (int64_t ow = w_lo; ow < w_hi; ++ow)
                in_row[ow * g.stride_w] += col_row[ow];
            }
          }
        }
      }
    }
  }
}

template <typename scalar_t>
bool any_nonfinite(const scalar_t* values, int64_t n) {
  // a nan or an infinity has every exponent bit set: counted over blocks as integers (a loop that
  // vectorises, where a boolean `or` does not), stopping at the first block that has one
  using bits_t = std::conditional_t<sizeof(scalar_t) == 4, uint32_t, uint64_t>;
  constexpr bits_t exponent = sizeof(scalar_t) == 4 ? bits_t(0x7f800000u) : bits_t(0x7ff0000000000000ull);
  constexpr int64_t block = 1 << 16;
  for (int64_t start = 0; start < n; start += block) {
    const int64_t end = std::min(n, start + block);
    bits_t count = 0;
    for (int64_t i = start; i < end; ++i) {
      bits_t b;
      std::memcpy(&b, values + i, sizeof(b));
      count += (b & exponent) == exponent;
    }
    if (count != 0)
      return true;
  }
  return false;
}

template <typename scalar_t>
void swap_leading_axes(const scalar_t* src, scalar_t* dst, int64_t a, int64_t b, int64_t l, const scalar_t* bias) {
  for (int64_t j = 0; j < b; ++j) {
    for (int64_t i = 0; i < a; ++i) {
      const scalar_t* s = src + (i * b + j) * l;
      scalar_t* d = dst + (j * a + i) * l;
      if (bias == nullptr) {
        std::memcpy(d, s, sizeof(scalar_t) * l);
      } else {
        const scalar_t v = bias[i];
        for (int64_t k = 0; k < l; ++k)
          d[k] = s[k] + v;
      }
    }
  }
}

template void unfold2d_copy<float>(const float*, float*, const Unfold2dGeometry&);
template void unfold2d_copy<double>(const double*, double*, const Unfold2dGeometry&);
template void unfold2d_acc<float>(const float*, float*, const Unfold2dGeometry&);
template void unfold2d_acc<double>(const double*, double*, const Unfold2dGeometry&);
template bool any_nonfinite<float>(const float*, int64_t);
template bool any_nonfinite<double>(const double*, int64_t);
template void swap_leading_axes<float>(const float*, float*, int64_t, int64_t, int64_t, const float*);
template void swap_leading_axes<double>(const double*, double*, int64_t, int64_t, int64_t, const double*);

} // namespace native
} // namespace at
