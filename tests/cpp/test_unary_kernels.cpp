// csrc/aten/native/cpu/ErfFloat.h: float32 erf through polynomials must give the
// bits of rounding libm's double erf (Note [Fast float erf with an exact fallback]).
// The whole float range was checked once, value by value; these cases take every
// 1021st bit pattern, the places where the polynomials change or end, and values
// that only the fallback gets right.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "aten/native/cpu/ErfFloat.h"

namespace {

uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

float from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// The number of values whose result differs from libm's rounded erf (nan for nan).
int64_t mismatches(const std::vector<float>& in) {
  std::vector<float> out(in.size());
  at::native::erf_float_loop(in.data(), out.data(), static_cast<std::ptrdiff_t>(in.size()));
  int64_t bad = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    const float expected = static_cast<float>(std::erf(static_cast<double>(in[i])));
    if (std::isnan(expected) ? !std::isnan(out[i]) : bits(out[i]) != bits(expected))
      ++bad;
  }
  return bad;
}

} // namespace

TEST(ErfFloat, SampledBitPatternsMatchLibm) {
  std::vector<float> in;
  for (uint64_t u = 0; u <= 0xFFFFFFFFu; u += 1021)
    in.push_back(from_bits(static_cast<uint32_t>(u)));
  EXPECT_EQ(mismatches(in), 0);
}

TEST(ErfFloat, EveryFloatAroundPieceEdgesAndTheLimit) {
  // x^2 = 4, 8, 12 (one polynomial to the next), 16 (erf rounds to 1 beyond)
  std::vector<float> in;
  for (double edge : {2.0, std::sqrt(8.0), std::sqrt(12.0), 4.0, 0.0}) {
    const uint32_t centre = bits(static_cast<float>(edge));
    for (uint32_t u = centre - (centre > 20000 ? 20000 : centre); u <= centre + 20000; ++u) {
      in.push_back(from_bits(u));
      in.push_back(-from_bits(u));
    }
  }
  EXPECT_EQ(mismatches(in), 0);
}

TEST(ErfFloat, SpecialValuesAndShortTails) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> specials = {
      std::numeric_limits<float>::quiet_NaN(),
      inf,
      -inf,
      0.0f,
      -0.0f,
      std::numeric_limits<float>::denorm_min(),
      -std::numeric_limits<float>::min(),
      3.9999998f,
      -4.0f,
      1e30f};
  EXPECT_EQ(mismatches(specials), 0);
  float out[3];
  // lengths that leave 1 to 3 values after the four-wide loop
  for (std::ptrdiff_t n = 1; n <= 3; ++n) {
    at::native::erf_float_loop(specials.data() + 1, out, n);
    for (std::ptrdiff_t i = 0; i < n; ++i)
      EXPECT_EQ(bits(out[i]), bits(static_cast<float>(std::erf(static_cast<double>(specials[1 + i])))));
  }
  EXPECT_EQ(bits(out[0]), bits(1.0f));
  EXPECT_EQ(bits(out[1]), bits(-1.0f));
  EXPECT_EQ(bits(out[2]), bits(0.0f));
}

TEST(ErfFloat, InPlace) {
  std::vector<float> v;
  for (int i = -400; i < 400; ++i)
    v.push_back(static_cast<float>(i) / 97.0f);
  const std::vector<float> original = v;
  at::native::erf_float_loop(v.data(), v.data(), static_cast<std::ptrdiff_t>(v.size()));
  for (size_t i = 0; i < v.size(); ++i)
    EXPECT_EQ(bits(v[i]), bits(static_cast<float>(std::erf(static_cast<double>(original[i])))));
}

TEST(ErfFloat, ValuesThatNeedTheFallback) {
  // Values whose polynomial result, rounded without the bound's check, is one
  // float off libm's (found over the whole range with the bound set to zero).
  const std::vector<float> near_midpoints = {
      0x1.4b808cp-126f,
      0x1.4b808cp-46f,
      0x1.76cf6cp-10f,
      0x1.c6db1p-9f,
      0x1.5fd60ap-6f,
      0x1.9c4dd8p-2f,
      0x1.f5f54ep+0f};
  std::vector<float> both;
  for (float x : near_midpoints) {
    both.push_back(x);
    both.push_back(-x);
  }
  EXPECT_EQ(mismatches(both), 0);
}
