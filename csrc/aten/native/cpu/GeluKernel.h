#pragma once

// Exact gelu's float32 forward and backward in a few fused passes (upstream's
// GeluKernelImpl / GeluBackwardKernelImpl in aten/src/ATen/native/cpu/Activation.cpp).
// Each operation is rounded to float32 in the order torchlite/_ops/ActivationNN.py
// runs them in numpy, so the bits are numpy's; erf is erf_float_loop (Note [Fast
// float erf with an exact fallback]). The backward's exp stays numpy's (its float32
// exp is not libm's rounded): the caller hands in numpy's own loop.

#include <cstddef>

namespace at {
namespace native {

// out = x * 0.5 * (1 + erf(x * sqrt(0.5))), as _gelu_exact.
void gelu_float_loop(const float* in, float* out, std::ptrdiff_t n);

// numpy's float32 exp over m contiguous values in place (the caller's lookup of numpy's own
// inner loop, with whatever that loop needs in `context`).
using FloatExpInPlace = void (*)(float* values, std::ptrdiff_t m, void* context);

// The whole backward in one blocked pass, into out (which may be g or x):
// out = g * (((exp((-0.5 * x) * x) * (1 / sqrt(2 pi))) * x) + (1 + erf(x * sqrt(0.5))) * 0.5),
// the exp by `exp` over chunks of the block (Note [Gelu backward in one pass]).
void gelu_backward_float_loop(
    const float* g,
    const float* x,
    float* out,
    std::ptrdiff_t n,
    FloatExpInPlace exp,
    void* context);

} // namespace native
} // namespace at
