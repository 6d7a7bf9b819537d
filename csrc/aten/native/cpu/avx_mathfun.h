#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

namespace at::native::avx_mathfun {

// Lane-by-lane the float32 log and sin/cos that torch's AVX2 normal kernel uses
// (aten/src/ATen/native/cpu/avx_mathfun.h, log256_ps and sincos256_ps: Julien Pommier's
// SSE/AVX ports of the Cephes routines). Upstream's kernel is what runs for
// torch.randn & co. on x86 machines with AVX2: its AVX512 build registers no normal
// kernel (REGISTER_NO_AVX512_DISPATCH(normal_stub) in DistributionKernels.cpp) and so
// falls back to the AVX2 one.
//
// Each step is written out with the rounding torch's binary gives it: upstream's intrinsics
// are plain vector expressions to GCC, which (in GNU mode, with -mfma in the AVX2 build)
// contracts a multiply feeding only an add into one fused multiply-add. The std::fma calls
// below are exactly those contractions (checked against torch 2.13's randn bit for bit);
// every other operation rounds on its own (this file is compiled with -ffp-contract=off).

inline float bits_to_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

inline uint32_t float_to_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// log256_ps: NaN for x <= 0.
inline float log_ps(float x) {
  const bool invalid = x <= 0.0f;
  const float min_norm_pos = bits_to_float(0x00800000u);
  x = x > min_norm_pos ? x : min_norm_pos; // _mm256_max_ps: cuts off denormals
  const uint32_t bits = float_to_bits(x);
  int32_t imm0 = static_cast<int32_t>(bits >> 23);
  x = bits_to_float((bits & ~0x7f800000u) | float_to_bits(0.5f)); // the mantissa, in [0.5, 1)
  imm0 -= 0x7f;
  float e = static_cast<float>(imm0);
  e = e + 1.0f;
  const bool mask = x < 0.707106781186547524f; // cephes_SQRTHF
  const float tmp = mask ? x : 0.0f;
  x = x - 1.0f;
  e = e - (mask ? 1.0f : 0.0f);
  x = x + tmp;
  const float z = x * x;
  float y = 7.0376836292E-2f;
  y = std::fma(y, x, -1.1514610310E-1f);
  y = std::fma(y, x, 1.1676998740E-1f);
  y = std::fma(y, x, -1.2420140846E-1f);
  y = std::fma(y, x, 1.4249322787E-1f);
  y = std::fma(y, x, -1.6668057665E-1f);
  y = std::fma(y, x, 2.0000714765E-1f);
  y = std::fma(y, x, -2.4999993993E-1f);
  y = std::fma(y, x, 3.3333331174E-1f);
  y = y * x;
  y = std::fma(y, z, e * -2.12194440e-4f); // y*z + e*q1: the first product is the one fused
  y = std::fma(-z, 0.5f, y);
  x = x + y;
  x = std::fma(e, 0.693359375f, x);
  if (invalid) {
    return bits_to_float(0xffffffffu); // _mm256_or_ps with the all-ones mask: a NaN
  }
  return x;
}

// sincos256_ps.
inline void sincos_ps(float x, float* s, float* c) {
  uint32_t sign_bit_sin = float_to_bits(x) & 0x80000000u;
  x = bits_to_float(float_to_bits(x) & 0x7fffffffu);
  float y = x * 1.27323954473516f; // cephes_FOPI, 4 / pi
  int32_t imm2 = static_cast<int32_t>(y); // _mm256_cvttps_epi32 (for the finite, moderate angles used here)
  imm2 = (imm2 + 1) & ~1;
  y = static_cast<float>(imm2);
  int32_t imm4 = imm2;
  const uint32_t swap_sign_bit_sin = static_cast<uint32_t>(imm2 & 4) << 29;
  const bool poly_mask = (imm2 & 2) == 0;
  // The extended precision modular arithmetic: x = ((x - y * DP1) - y * DP2) - y * DP3.
  x = std::fma(y, -0.78515625f, x);
  x = std::fma(y, -2.4187564849853515625e-4f, x);
  x = std::fma(y, -3.77489497744594108e-8f, x);
  imm4 = imm4 - 2;
  imm4 = ~imm4 & 4;
  const uint32_t sign_bit_cos = static_cast<uint32_t>(imm4) << 29;
  sign_bit_sin ^= swap_sign_bit_sin;
  const float z = x * x;
  // The cosine polynomial (0 <= x <= pi/4).
  float yc = std::fma(2.443315711809948E-005f, z, -1.388731625493765E-003f);
  yc = std::fma(yc, z, 4.166664568298827E-002f);
  yc = yc * z;
  yc = std::fma(yc, z, -(z * 0.5f));
  yc = yc + 1.0f;
  // The sine polynomial.
  float y2 = std::fma(-1.9515295891E-4f, z, 8.3321608736E-3f);
  y2 = std::fma(y2, z, -1.6666654611E-1f);
  y2 = y2 * z;
  y2 = std::fma(y2, x, x);
  // Select each result from the two polynomials (one of each sum's terms is zero).
  const float ysin2 = poly_mask ? y2 : 0.0f;
  const float ysin1 = poly_mask ? 0.0f : yc;
  y2 = y2 - ysin2;
  yc = yc - ysin1;
  const float xmm1 = ysin1 + ysin2;
  const float xmm2 = yc + y2;
  *s = bits_to_float(float_to_bits(xmm1) ^ sign_bit_sin);
  *c = bits_to_float(float_to_bits(xmm2) ^ sign_bit_cos);
}

} // namespace at::native::avx_mathfun
