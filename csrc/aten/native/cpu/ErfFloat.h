#pragma once

// erf of float32 values rounded to float32, bit for bit what rounding libm's
// double erf gives (what torchlite computes for a float32 erf: the value
// widened to double, std::erf, rounded once), at a fraction of its cost.
//
// Note [Fast float erf with an exact fallback]
// erf(x) = x * g(x^2) with g(s) = erf(sqrt(s)) / sqrt(s), which keeps erf's
// relative accuracy near zero. g is evaluated in double from one polynomial
// per interval of width 4 on s in [0, 16), each the Chebyshev interpolant
// of std::erf on its interval, made once at first use; for |x| >= 4, erf
// rounds to +-1 in float32. The polynomials are within a few units in the
// last place of a double of libm's erf, so kErfRelativeBound is a wide
// margin: unless the double lies within that bound of the midpoint between
// two floats, the rounding to float32 is the one libm's value has. Where it
// is that close (about once in 10^5 values), std::erf itself is called. The
// AVX2 loop (taken where the CPU has AVX2 and FMA, as ATen's CPU_CAPABILITY
// dispatch picks its kernels) computes four values at once, the AVX-512 loop
// eight, with the same operations in each lane and the same fallback lane by lane.

#include <cstddef>

namespace at {
namespace native {

// out[i] = (float)std::erf((double)in[i]) for n contiguous values; in and out
// may be the same array.
void erf_float_loop(const float* in, float* out, std::ptrdiff_t n);

} // namespace native
} // namespace at
