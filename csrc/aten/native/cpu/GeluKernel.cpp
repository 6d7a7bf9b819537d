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

// Note [Gelu backward in one pass]
// gelu_backward's exact_in_place (torchlite/_ops/ActivationNN.py) runs nine numpy
// passes over whole arrays, three of them temporaries as large as x; this loop runs
// the same operations over a block of kChunk values at a time, each rounded to float32
// in the same order (this file is built with -ffp-contract=off), so every
// intermediate stays in L1 and nothing is allocated. Upstream's
// GeluBackwardKernelImpl (aten/src/ATen/native/cpu/Activation.cpp) is also one pass,
// with its own exp; ours must be numpy's float32 exp, which is not libm's expf
// rounded, so the caller hands in numpy's own float32 exp inner loop and it runs
// on each block in place (as np.exp(q, out=q) runs it on the whole array). numpy's
// float32 exp loops (the AVX-512F and AVX2 ones of loops_exponent_log.dispatch.c.src,
// the scalar npy_expf elsewhere) compute each lane from its own input alone, with
// masked loads for a tail and no alignment peeling, so a value's bits do not depend on
// where a call starts or ends: checked on numpy 2.2.6, 2.4.6 and 2.5.5 (the versions
// CI runs) against one call over the whole array, blocks of 16, 64 and 1024 at
// offsets 0, 1, 3 and 8, nan, inf, -0, subnormal results and overflow included; the
// tests compare this loop with the numpy passes bit for bit on every version CI runs.
void gelu_backward_float_loop(
    const float* g,
    const float* x,
    float* out,
    std::ptrdiff_t n,
    FloatExpInPlace exp,
    void* context) {
  alignas(64) float cdf[kChunk];
  alignas(64) float q[kChunk];
  for (std::ptrdiff_t start = 0; start < n; start += kChunk) {
    const std::ptrdiff_t m = n - start < kChunk ? n - start : kChunk;
    const float* xs = x + start;
    for (std::ptrdiff_t i = 0; i < m; ++i) {
      const float v = xs[i];
      cdf[i] = v * kAlpha;
      q[i] = (-0.5f * v) * v;
    }
    erf_float_loop(cdf, cdf, m);
    exp(q, m, context);
    const float* gs = g + start;
    float* os = out + start;
    for (std::ptrdiff_t i = 0; i < m; ++i) {
      const float c = (1.0f + cdf[i]) * 0.5f;
      const float pdf = q[i] * kInvSqrt2Pi;
      const float term = pdf * xs[i];
      const float sum = term + c;
      os[i] = gs[i] * sum;
    }
  }
}

} // namespace native
} // namespace at
