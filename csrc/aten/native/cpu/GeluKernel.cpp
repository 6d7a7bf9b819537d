#include "aten/native/cpu/GeluKernel.h"

#include "aten/native/cpu/ErfFloat.h"

namespace at {
namespace native {
namespace {

// numpy rounds the Python floats sqrt(0.5) and 1 / sqrt(2 pi) to float32 before multiplying
constexpr float kAlpha = static_cast<float>(0.70710678118654752440);
constexpr float kInvSqrt2Pi = static_cast<float>(0.39894228040143267794);

// erf runs over a chunk at a time, so that its input stays in cache
constexpr std::ptrdiff_t kChunk = 1024;

} // namespace

void gelu_float_loop(const float* in, float* out, std::ptrdiff_t n) {
  float t[kChunk];
  for (std::ptrdiff_t start = 0; start < n; start += kChunk) {
    const std::ptrdiff_t m = n - start < kChunk ? n - start : kChunk;
    for (std::ptrdiff_t i = 0; i < m; ++i)
      t[i] = in[start + i] * kAlpha;
    erf_float_loop(t, t, m);
    for (std::ptrdiff_t i = 0; i < m; ++i) {
      const float half = in[start + i] * 0.5f;
      const float one_plus = 1.0f + t[i];
      out[start + i] = half * one_plus;
    }
  }
}

void gelu_backward_float_parts(const float* x, float* cdf, float* q, std::ptrdiff_t n) {
  for (std::ptrdiff_t start = 0; start < n; start += kChunk) {
    const std::ptrdiff_t m = n - start < kChunk ? n - start : kChunk;
    float* c = cdf + start;
    for (std::ptrdiff_t i = 0; i < m; ++i) {
      const float v = x[start + i];
      c[i] = v * kAlpha;
      q[start + i] = (-0.5f * v) * v;
    }
    erf_float_loop(c, c, m);
    for (std::ptrdiff_t i = 0; i < m; ++i)
      c[i] = (1.0f + c[i]) * 0.5f;
  }
}

void gelu_backward_float_combine(
    const float* g,
    const float* x,
    const float* cdf,
    const float* e,
    float* out,
    std::ptrdiff_t n) {
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    const float pdf = e[i] * kInvSqrt2Pi;
    const float term = pdf * x[i];
    const float sum = term + cdf[i];
    out[i] = g[i] * sum;
  }
}

} // namespace native
} // namespace at
