#pragma once
// c10::Half: IEEE 754 binary16 storage with arithmetic in float, as upstream's
// c10/util/Half.h: every operation converts its operands to float, computes
// there and rounds the result back once (round to nearest, ties to even) when
// it is stored as a Half. Reductions accumulate in float (acc_type<Half>),
// as torch's CPU and CUDA kernels do (ATen/AccumulateType.h).
#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(__CUDACC__)
#define C10_HOST_DEVICE __host__ __device__
#else
#define C10_HOST_DEVICE
#endif

namespace c10 {
namespace detail {

inline C10_HOST_DEVICE uint32_t float_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  return x;
#endif
}

inline C10_HOST_DEVICE float float_from_bits(uint32_t x) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(x);
#else
  float f;
  std::memcpy(&f, &x, sizeof f);
  return f;
#endif
}

// `value` shifted right by `shift` bits (1..24), rounded to nearest, ties to even.
inline C10_HOST_DEVICE uint32_t shift_round_even(uint32_t value, int shift) {
  const uint32_t kept = value >> shift;
  const uint32_t rest = value & ((1u << shift) - 1u);
  const uint32_t halfway = 1u << (shift - 1);
  return kept + ((rest > halfway || (rest == halfway && (kept & 1u))) ? 1u : 0u);
}

// The binary16 bits nearest a float (ties to even; beyond the largest finite
// half, 65504, values from 65520 on become inf; nan stays a quiet nan).
inline C10_HOST_DEVICE uint16_t half_bits_from_float(float f) {
  const uint32_t x = float_bits(f);
  const auto sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u)
    return static_cast<uint16_t>(sign | 0x7e00u); // nan
  if (ax >= 0x47800000u)
    return static_cast<uint16_t>(sign | 0x7c00u); // 2^16 or more, inf: inf
  if (ax <= 0x33000000u)
    return sign; // 2^-25 or less rounds to (signed) zero
  const int exponent = static_cast<int>(ax >> 23) - 127;
  const uint32_t mantissa = ax & 0x7fffffu;
  if (exponent < -14) {
    // a subnormal half: the 24-bit significand in units of 2^-24
    const uint32_t significand = mantissa | 0x800000u;
    return static_cast<uint16_t>(sign | shift_round_even(significand, -exponent - 1));
  }
  // a normal half: a carry out of the mantissa steps the exponent (to inf past 65504)
  const uint32_t biased = (static_cast<uint32_t>(exponent + 15) << 23) | mantissa;
  return static_cast<uint16_t>(sign | shift_round_even(biased, 13));
}

inline C10_HOST_DEVICE float float_from_half_bits(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  const uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0x1fu)
    return float_from_bits(sign | 0x7f800000u | (mantissa << 13));
  if (exponent == 0) {
    // zero or subnormal: mantissa * 2^-24, exact in float
    const float magnitude = static_cast<float>(mantissa) * 5.9604644775390625e-8f;
    return sign ? -magnitude : magnitude;
  }
  return float_from_bits(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

} // namespace detail

struct alignas(2) Half {
  uint16_t x = 0;

  struct from_bits_t {};
  static constexpr from_bits_t from_bits() {
    return from_bits_t();
  }

  Half() = default;
  constexpr C10_HOST_DEVICE Half(uint16_t bits, from_bits_t) : x(bits) {}
  C10_HOST_DEVICE Half(float value) : x(detail::half_bits_from_float(value)) {}
  // Any other arithmetic value goes through float, as upstream's conversions do.
  template <typename T, typename = std::enable_if_t<std::is_arithmetic<T>::value && !std::is_same<T, float>::value>>
  C10_HOST_DEVICE Half(T value) : Half(static_cast<float>(value)) {}

  C10_HOST_DEVICE operator float() const {
    return detail::float_from_half_bits(x);
  }
};

static_assert(sizeof(Half) == 2, "Half is two bytes");

// The type a kernel accumulates a T in (ATen/AccumulateType.h, CPU and CUDA alike for Half).
template <typename T>
struct acc_type {
  using type = T;
};
template <>
struct acc_type<Half> {
  using type = float;
};
template <typename T>
using acc_type_t = typename acc_type<T>::type;

} // namespace c10

namespace at {
using c10::Half;
} // namespace at
