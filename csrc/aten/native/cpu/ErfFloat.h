#pragma once

// erf of float32 values rounded to float32, bit for bit what rounding libm's
// double erf gives (what torchlite computes for a float32 erf: the value
// widened to double, std::erf, rounded once), at a fraction of its cost.
//
// Note [Fast float erf with an exact fallback]
// erf(x) = x * g(x^2) with g(s) = erf(sqrt(s)) / sqrt(s), which keeps erf's
// relative accuracy near zero. g is evaluated in double from one polynomial
// per piece of [0, 16) in s, each the Chebyshev interpolant of std::erf on its
// piece, made once at first use; for |x| >= 4, erf rounds to +-1 in float32.
// The AVX2 loop (taken where the CPU has AVX2 and FMA, as ATen's CPU_CAPABILITY
// dispatch picks its kernels) computes four values at once from four pieces of
// width 4 and degree 14; the AVX-512 loop eight at once from sixteen pieces of
// width 1 and degree 9 (10 coefficients a value instead of 15, the same ~2e-14
// largest relative error against libm's erf). Either way the polynomials are
// within a few units in the last place of a double of libm's erf, so
// kErfRelativeBound (1e-13) is a wide margin: unless the double lies within
// that bound of the midpoint between two floats, the rounding to float32 is
// the one libm's value has. Where it is that close (a few values in 10^6), and
// for |x| >= 4 and nan, std::erf itself is called, lane by lane. The result is
// thus libm's rounded erf whichever loop runs; each loop was checked over all
// 2^32 float32 bit patterns against it (0 mismatches), and must be again after
// any change to it (tests/cpp/test_unary_kernels.cpp samples them).

#include <cstddef>

namespace at {
namespace native {

// out[i] = (float)std::erf((double)in[i]) for n contiguous values; in and out
// may be the same array.
void erf_float_loop(const float* in, float* out, std::ptrdiff_t n);

} // namespace native
} // namespace at
