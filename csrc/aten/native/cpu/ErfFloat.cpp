// Note [Fast float erf with an exact fallback] (ErfFloat.h).
#include "aten/native/cpu/ErfFloat.h"

#include <cmath>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define TORCHLITE_ERF_AVX2 1
#endif

namespace at {
namespace native {
namespace {

// The exact value where the fast one is undecided, beyond the table, or nan.
float erf_exact(float x) {
  return static_cast<float>(std::erf(static_cast<double>(x)));
}

#ifdef TORCHLITE_ERF_AVX2
constexpr double kLimitSquared = 16.0; // |x| >= 4: erf rounds to +-1
constexpr double kErfRelativeBound = 1e-13;

// The interpolants of g over s = x^2 in [0, 16): Pieces pieces of width 16 / Pieces, each of
// degree Degree in u in [-1, 1]. coefficients[k][p]: the power u^k of piece p (indexed by power
// first, so that a vector loop loads one power of all pieces as one or two registers).
template <int Pieces, int Degree>
struct ErfTable {
  static constexpr int kPieces = Pieces;
  static constexpr int kDegree = Degree;
  static constexpr double kPiecesPerUnit = Pieces / kLimitSquared;
  double coefficients[Degree + 1][Pieces];

  ErfTable() {
    const int n = Degree + 1;
    const double pi = std::acos(-1.0);
    const double width = 1.0 / kPiecesPerUnit;
    for (int p = 0; p < Pieces; ++p) {
      // g at the Chebyshev points of the piece (never s = 0)
      double values[Degree + 1];
      for (int k = 0; k < n; ++k) {
        const double s = (p + 0.5 + 0.5 * std::cos(pi * (k + 0.5) / n)) * width;
        values[k] = std::erf(std::sqrt(s)) / std::sqrt(s);
      }
      // the interpolant's Chebyshev coefficients, each T_j expanded into
      // powers of u by T_{j+1} = 2u T_j - T_{j-1}
      double t_prev[Degree + 1] = {0};
      double t_cur[Degree + 1] = {1};
      double power[Degree + 1] = {0};
      for (int j = 0; j < n; ++j) {
        double c = 0;
        for (int k = 0; k < n; ++k)
          c += values[k] * std::cos(pi * j * (k + 0.5) / n);
        c *= (j == 0 ? 1.0 : 2.0) / n;
        for (int i = 0; i < n; ++i)
          power[i] += c * t_cur[i];
        double t_next[Degree + 1];
        for (int i = 0; i < n; ++i) {
          const double shifted = i > 0 ? t_cur[i - 1] : 0.0;
          t_next[i] = j == 0 ? shifted : 2 * shifted - t_prev[i];
        }
        for (int i = 0; i < n; ++i) {
          t_prev[i] = t_cur[i];
          t_cur[i] = t_next[i];
        }
      }
      for (int i = 0; i < n; ++i)
        coefficients[i][p] = power[i];
    }
  }
};

// The AVX2 loop's table: four pieces of degree 14 (one double each in an AVX2 register), within
// 2e-14 of libm's erf relative to it.
using ErfTable4 = ErfTable<4, 14>;
// The AVX-512 loop's: sixteen pieces of degree 9 (two AVX-512 registers a power), as close: 10
// coefficients a value instead of 15 (Note [Fast float erf with an exact fallback]).
using ErfTable16 = ErfTable<16, 9>;

const ErfTable4& erf_table4() {
  static const ErfTable4 table;
  return table;
}

const ErfTable16& erf_table16() {
  static const ErfTable16 table;
  return table;
}

__attribute__((target("avx2,fma"))) std::ptrdiff_t erf_avx2(
    const float* in,
    float* out,
    std::ptrdiff_t n,
    const ErfTable4& table) {
  constexpr int kPieces = ErfTable4::kPieces;
  constexpr int kDegree = ErfTable4::kDegree;
  constexpr double kPiecesPerUnit = ErfTable4::kPiecesPerUnit;
  const __m256d limit = _mm256_set1_pd(kLimitSquared);
  // the largest double below kPieces: s < kLimitSquared scales below it
  const __m256d top = _mm256_set1_pd(std::nextafter(static_cast<double>(kPieces), 0.0));
  const __m256d per_unit = _mm256_set1_pd(kPiecesPerUnit);
  const __m256d half = _mm256_set1_pd(0.5);
  const __m256d two = _mm256_set1_pd(2.0);
  const __m256d below = _mm256_set1_pd(1 - kErfRelativeBound);
  const __m256d above = _mm256_set1_pd(1 + kErfRelativeBound);
  const __m256i high_one = _mm256_set1_epi64x(static_cast<long long>(1) << 32);
  // one power of the four pieces per register
  __m256i powers[kDegree + 1];
  for (int k = 0; k <= kDegree; ++k)
    powers[k] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(table.coefficients[k]));
  std::ptrdiff_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const __m128 xf = _mm_loadu_ps(in + i);
    const __m256d x = _mm256_cvtps_pd(xf);
    const __m256d s = _mm256_mul_pd(x, x);
    const __m256d inside = _mm256_cmp_pd(s, limit, _CMP_LT_OQ); // false for nan
    // lanes outside get a valid piece; their value is replaced below
    const __m256d scaled = _mm256_min_pd(_mm256_mul_pd(s, per_unit), top);
    const __m128i p = _mm256_cvttpd_epi32(scaled);
    const __m256d u = _mm256_mul_pd(_mm256_sub_pd(scaled, _mm256_add_pd(_mm256_cvtepi32_pd(p), half)), two);
    // each lane's piece as the 32-bit word pair (2p, 2p + 1) that selects
    // its double from a register of the four pieces' coefficients
    const __m256i twice = _mm256_slli_epi64(_mm256_cvtepu32_epi64(p), 1);
    const __m256i pick = _mm256_add_epi64(_mm256_or_si256(twice, _mm256_slli_epi64(twice, 32)), high_one);
    __m256d g = _mm256_castsi256_pd(_mm256_permutevar8x32_epi32(powers[kDegree], pick));
    for (int k = kDegree - 1; k >= 0; --k)
      g = _mm256_fmadd_pd(g, u, _mm256_castsi256_pd(_mm256_permutevar8x32_epi32(powers[k], pick)));
    const __m256d y = _mm256_mul_pd(x, g);
    const __m128 lo = _mm256_cvtpd_ps(_mm256_mul_pd(y, below));
    const __m128 hi = _mm256_cvtpd_ps(_mm256_mul_pd(y, above));
    const int undecided = _mm_movemask_ps(_mm_cmpneq_ps(lo, hi)) | (~_mm256_movemask_pd(inside) & 0xF);
    if (undecided == 0) {
      _mm_storeu_ps(out + i, lo);
    } else {
      alignas(16) float lanes[4];
      _mm_store_ps(lanes, lo);
      for (int l = 0; l < 4; ++l)
        out[i + l] = (undecided >> l) & 1 ? erf_exact(in[i + l]) : lanes[l];
    }
  }
  return i;
}

// GCC 12's AVX-512 intrinsics start from a deliberately undefined register
// (_mm512_undefined_pd) that its flow analysis then reports as uninitialized.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
// erf_avx2's method, eight lanes wide, with ErfTable16: sixteen pieces of width 1 in s, the
// coefficients of one power in two registers (pieces 0-7 and 8-15), from which a lane picks its
// piece by index (one two-table permute). The piece is floor(s), its index read from the low bits
// of floor(s) + 2^52; u = 2 (s - floor(s)) - 1. Lanes with s >= 16 or nan compute garbage from a
// wrapped index and take the exact fallback, as in erf_avx2.
__attribute__((target("avx512f"))) std::ptrdiff_t erf_avx512(
    const float* in,
    float* out,
    std::ptrdiff_t n,
    const ErfTable16& table) {
  constexpr int kDegree = ErfTable16::kDegree;
  static_assert(ErfTable16::kPiecesPerUnit == 1.0, "one piece per unit of s: the piece is floor(s)");
  const __m512d limit = _mm512_set1_pd(kLimitSquared);
  const __m512d index_bias = _mm512_set1_pd(4503599627370496.0); // 2^52: floor(s) in the low bits
  const __m512d two = _mm512_set1_pd(2.0);
  const __m512d one = _mm512_set1_pd(1.0);
  const __m512d below = _mm512_set1_pd(1 - kErfRelativeBound);
  const __m512d above = _mm512_set1_pd(1 + kErfRelativeBound);
  __m512d low[kDegree + 1];
  __m512d high[kDegree + 1];
  for (int k = 0; k <= kDegree; ++k) {
    low[k] = _mm512_loadu_pd(table.coefficients[k]);
    high[k] = _mm512_loadu_pd(table.coefficients[k] + 8);
  }
  std::ptrdiff_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m512d x = _mm512_cvtps_pd(_mm256_loadu_ps(in + i));
    const __m512d s = _mm512_mul_pd(x, x);
    const __mmask8 inside = _mm512_cmp_pd_mask(s, limit, _CMP_LT_OQ); // false for nan
    const __m512d piece = _mm512_roundscale_pd(s, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    const __m512i pick = _mm512_castpd_si512(_mm512_add_pd(piece, index_bias));
    const __m512d u = _mm512_fmsub_pd(_mm512_sub_pd(s, piece), two, one);
    __m512d g = _mm512_permutex2var_pd(low[kDegree], pick, high[kDegree]);
    for (int k = kDegree - 1; k >= 0; --k)
      g = _mm512_fmadd_pd(g, u, _mm512_permutex2var_pd(low[k], pick, high[k]));
    const __m512d y = _mm512_mul_pd(x, g);
    const __m256 lo = _mm512_cvtpd_ps(_mm512_mul_pd(y, below));
    const __m256 hi = _mm512_cvtpd_ps(_mm512_mul_pd(y, above));
    const int undecided = _mm256_movemask_ps(_mm256_cmp_ps(lo, hi, _CMP_NEQ_UQ)) | (~inside & 0xFF);
    if (undecided == 0) {
      _mm256_storeu_ps(out + i, lo);
    } else {
      alignas(32) float lanes[8];
      _mm256_store_ps(lanes, lo);
      for (int l = 0; l < 8; ++l)
        out[i + l] = (undecided >> l) & 1 ? erf_exact(in[i + l]) : lanes[l];
    }
  }
  return i;
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

bool has_avx512() {
  static const bool has = __builtin_cpu_supports("avx512f");
  return has;
}

bool has_avx2_fma() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
}
#endif

} // namespace

void erf_float_loop(const float* in, float* out, std::ptrdiff_t n) {
  std::ptrdiff_t i = 0;
#ifdef TORCHLITE_ERF_AVX2
  if (has_avx512())
    i = erf_avx512(in, out, n, erf_table16());
  if (has_avx2_fma())
    i += erf_avx2(in + i, out + i, n - i, erf_table4());
#endif
  for (; i < n; ++i)
    out[i] = erf_exact(in[i]);
}

} // namespace native
} // namespace at
