#pragma once

// Exact gelu's float32 forward and backward in a few fused passes (upstream's
// GeluKernelImpl / GeluBackwardKernelImpl in aten/src/ATen/native/cpu/Activation.cpp).
// Each operation is rounded to float32 in the order torchlite/_ops/ActivationNN.py
// runs them in numpy, so the bits are numpy's; erf is erf_float_loop (Note [Fast
// float erf with an exact fallback]). The backward's exp stays numpy's (its float32
// exp is not libm's rounded): the caller runs it between the two backward passes.

#include <cstddef>

namespace at {
namespace native {

// out = x * 0.5 * (1 + erf(x * sqrt(0.5))), as _gelu_exact.
void gelu_float_loop(const float* in, float* out, std::ptrdiff_t n);

// The backward's parts before the exp (gelu_backward's exact_in_place):
// cdf = (1 + erf(x * sqrt(0.5))) * 0.5 and q = (-0.5 * x) * x.
void gelu_backward_float_parts(const float* x, float* cdf, float* q, std::ptrdiff_t n);

// The rest, with e = exp(q): out = g * (((e * (1 / sqrt(2 pi))) * x) + cdf); out may be e.
void gelu_backward_float_combine(
    const float* g,
    const float* x,
    const float* cdf,
    const float* e,
    float* out,
    std::ptrdiff_t n);

} // namespace native
} // namespace at
