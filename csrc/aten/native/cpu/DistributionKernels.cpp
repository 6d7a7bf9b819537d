// torch's CPU random kernels (aten/src/ATen/native/cpu/DistributionTemplates.h,
// DistributionKernels.cpp, MultinomialKernel.cpp; randperm_cpu of
// aten/src/ATen/native/TensorFactories.cpp) over flat buffers. Compiled with
// -ffp-contract=off (CMakeLists.txt): every fused multiply-add here is an explicit one.
#include "aten/native/cpu/DistributionKernels.h"

#include <cmath>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "aten/core/DistributionsHelper.h"
#include "aten/native/cpu/avx_mathfun.h"

#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

namespace at::native {
namespace {

// c10::pi<double>
constexpr double kPi = 3.14159265358979323846;

template <typename T>
struct Tag {
  using type = T;
};

[[noreturn]] void unsupported(const char* kernel, ScalarType dtype) {
  throw std::invalid_argument(std::string(kernel) + " not implemented for '" + toString(dtype) + "'");
}

// AT_DISPATCH over the dtypes torchlite has; `with_bool` / `with_half` as upstream's macro lists.
template <typename F>
void dispatch(const char* kernel, ScalarType dtype, bool with_bool, bool with_half, F&& f) {
  switch (dtype) {
    case ScalarType::Float:
      return f(Tag<float>{});
    case ScalarType::Double:
      return f(Tag<double>{});
    case ScalarType::Long:
      return f(Tag<int64_t>{});
    case ScalarType::Int:
      return f(Tag<int32_t>{});
    case ScalarType::Short:
      return f(Tag<int16_t>{});
    case ScalarType::Char:
      return f(Tag<int8_t>{});
    case ScalarType::Byte:
      return f(Tag<uint8_t>{});
    case ScalarType::Bool:
      if (with_bool) {
        return f(Tag<bool>{});
      }
      break;
    case ScalarType::Half:
      if (with_half) {
        return f(Tag<c10::Half>{});
      }
      break;
  }
  unsupported(kernel, dtype);
}

template <typename T>
using opmath_t = std::conditional_t<std::is_same_v<T, c10::Half>, float, T>;

bool fused(CPUCapability cap) {
  return cap != CPUCapability::DEFAULT;
}

// The AVX2 specialisation of NormalFill16 (upstream's NormalFill16<float>): avx_mathfun's log
// and sincos, lane by lane.
inline void normal_fill_16_avx2_body(float* data, float mean, float std) {
  const float two_pi = static_cast<float>(2.0f * kPi);
  for (int j = 0; j < 8; j++) {
    const float u1 = 1.0f - data[j];
    const float u2 = data[j + 8];
    const float radius = std::sqrt(-2.0f * avx_mathfun::log_ps(u1));
    const float theta = two_pi * u2;
    float sintheta, costheta;
    avx_mathfun::sincos_ps(theta, &sintheta, &costheta);
    data[j] = std::fma(radius * costheta, std, mean);
    data[j + 8] = std::fma(radius * sintheta, std, mean);
  }
}

#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__))
// The same eight lanes as one AVX2 vector, for speed: avx_mathfun's instruction sequence with
// the fused multiply-adds of avx_mathfun.h as _mm256_fmadd_ps/_mm256_fnmadd_ps and every other
// product and sum rounded on its own (this file is compiled with -ffp-contract=off), so the
// results are normal_fill_16_avx2_body's bit for bit. Chosen at run time, on a CPU with AVX2+FMA.
__attribute__((target("avx2,fma"))) void normal_fill_16_avx2_fma(float* data, float mean_in, float std_in) {
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 half = _mm256_set1_ps(0.5f);
  // log256_ps(1 - u1)
  __m256 x = _mm256_sub_ps(one, _mm256_loadu_ps(data));
  const __m256 invalid_mask = _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LE_OS);
  x = _mm256_max_ps(x, _mm256_castsi256_ps(_mm256_set1_epi32(0x00800000)));
  __m256i imm0 = _mm256_srli_epi32(_mm256_castps_si256(x), 23);
  x = _mm256_and_ps(x, _mm256_castsi256_ps(_mm256_set1_epi32(~0x7f800000)));
  x = _mm256_or_ps(x, half);
  imm0 = _mm256_sub_epi32(imm0, _mm256_set1_epi32(0x7f));
  __m256 e = _mm256_add_ps(_mm256_cvtepi32_ps(imm0), one);
  const __m256 mask = _mm256_cmp_ps(x, _mm256_set1_ps(0.707106781186547524f), _CMP_LT_OS);
  __m256 tmp = _mm256_and_ps(x, mask);
  x = _mm256_sub_ps(x, one);
  e = _mm256_sub_ps(e, _mm256_and_ps(one, mask));
  x = _mm256_add_ps(x, tmp);
  const __m256 z = _mm256_mul_ps(x, x);
  __m256 y = _mm256_set1_ps(7.0376836292E-2f);
  y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(-1.1514610310E-1f));
  y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(1.1676998740E-1f));
  y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(-1.2420140846E-1f));
  y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(1.4249322787E-1f));
  y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(-1.6668057665E-1f));
  y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(2.0000714765E-1f));
  y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(-2.4999993993E-1f));
  y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(3.3333331174E-1f));
  y = _mm256_mul_ps(y, x);
  y = _mm256_fmadd_ps(y, z, _mm256_mul_ps(e, _mm256_set1_ps(-2.12194440e-4f)));
  y = _mm256_fnmadd_ps(z, half, y);
  x = _mm256_add_ps(x, y);
  x = _mm256_fmadd_ps(e, _mm256_set1_ps(0.693359375f), x);
  const __m256 log_u1 = _mm256_or_ps(x, invalid_mask);
  const __m256 radius = _mm256_sqrt_ps(_mm256_mul_ps(_mm256_set1_ps(-2.0f), log_u1));
  // sincos256_ps(2 pi u2)
  __m256 t = _mm256_mul_ps(_mm256_set1_ps(static_cast<float>(2.0f * kPi)), _mm256_loadu_ps(data + 8));
  const __m256 sign_mask = _mm256_castsi256_ps(_mm256_set1_epi32(static_cast<int>(0x80000000u)));
  __m256 sign_bit_sin = _mm256_and_ps(t, sign_mask);
  t = _mm256_andnot_ps(sign_mask, t);
  __m256 yy = _mm256_mul_ps(t, _mm256_set1_ps(1.27323954473516f));
  __m256i imm2 = _mm256_cvttps_epi32(yy);
  imm2 = _mm256_add_epi32(imm2, _mm256_set1_epi32(1));
  imm2 = _mm256_and_si256(imm2, _mm256_set1_epi32(~1));
  yy = _mm256_cvtepi32_ps(imm2);
  __m256i imm4 = imm2;
  const __m256 swap_sign_bit_sin =
      _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_and_si256(imm2, _mm256_set1_epi32(4)), 29));
  const __m256 poly_mask =
      _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_and_si256(imm2, _mm256_set1_epi32(2)), _mm256_setzero_si256()));
  t = _mm256_fmadd_ps(yy, _mm256_set1_ps(-0.78515625f), t);
  t = _mm256_fmadd_ps(yy, _mm256_set1_ps(-2.4187564849853515625e-4f), t);
  t = _mm256_fmadd_ps(yy, _mm256_set1_ps(-3.77489497744594108e-8f), t);
  imm4 = _mm256_sub_epi32(imm4, _mm256_set1_epi32(2));
  imm4 = _mm256_andnot_si256(imm4, _mm256_set1_epi32(4));
  const __m256 sign_bit_cos = _mm256_castsi256_ps(_mm256_slli_epi32(imm4, 29));
  sign_bit_sin = _mm256_xor_ps(sign_bit_sin, swap_sign_bit_sin);
  const __m256 zz = _mm256_mul_ps(t, t);
  __m256 yc = _mm256_fmadd_ps(_mm256_set1_ps(2.443315711809948E-005f), zz, _mm256_set1_ps(-1.388731625493765E-003f));
  yc = _mm256_fmadd_ps(yc, zz, _mm256_set1_ps(4.166664568298827E-002f));
  yc = _mm256_mul_ps(yc, zz);
  yc = _mm256_fmsub_ps(yc, zz, _mm256_mul_ps(zz, half));
  yc = _mm256_add_ps(yc, one);
  __m256 y2 = _mm256_fmadd_ps(_mm256_set1_ps(-1.9515295891E-4f), zz, _mm256_set1_ps(8.3321608736E-3f));
  y2 = _mm256_fmadd_ps(y2, zz, _mm256_set1_ps(-1.6666654611E-1f));
  y2 = _mm256_mul_ps(y2, zz);
  y2 = _mm256_fmadd_ps(y2, t, t);
  const __m256 ysin2 = _mm256_and_ps(poly_mask, y2);
  const __m256 ysin1 = _mm256_andnot_ps(poly_mask, yc);
  y2 = _mm256_sub_ps(y2, ysin2);
  yc = _mm256_sub_ps(yc, ysin1);
  const __m256 sintheta = _mm256_xor_ps(_mm256_add_ps(ysin1, ysin2), sign_bit_sin);
  const __m256 costheta = _mm256_xor_ps(_mm256_add_ps(yc, y2), sign_bit_cos);
  const __m256 mean = _mm256_set1_ps(mean_in);
  const __m256 std = _mm256_set1_ps(std_in);
  _mm256_storeu_ps(data, _mm256_fmadd_ps(_mm256_mul_ps(radius, costheta), std, mean));
  _mm256_storeu_ps(data + 8, _mm256_fmadd_ps(_mm256_mul_ps(radius, sintheta), std, mean));
}

bool cpu_has_avx2_fma() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
}
#else
void normal_fill_16_avx2_fma(float* data, float mean, float std) {
  normal_fill_16_avx2_body(data, mean, std);
}

bool cpu_has_avx2_fma() {
  return false;
}
#endif

// NormalFill16: Box-Muller on 16 values in place, the uniforms u1 in data[0..8) and u2 in
// data[8..16), the cosines written over the first half and the sines over the second.
template <typename T>
void normal_fill_16(T* data, T mean, T std, CPUCapability cap) {
  if constexpr (std::is_same_v<T, float>) {
    if (cap != CPUCapability::DEFAULT) {
      if (cpu_has_avx2_fma()) {
        normal_fill_16_avx2_fma(data, mean, std);
      } else {
        normal_fill_16_avx2_body(data, mean, std);
      }
      return;
    }
  }
  for (int j = 0; j < 8; j++) {
    const T u1 = 1 - data[j]; // [0, 1) -> (0, 1] for log.
    const T u2 = data[j + 8];
    const T radius = std::sqrt(-2 * std::log(u1));
    const T theta = static_cast<T>(2.0f * kPi * u2);
    data[j] = std::fma(radius * std::cos(theta), std, mean);
    data[j + 8] = std::fma(radius * std::sin(theta), std, mean);
  }
}

// normal_fill: all the uniforms first, then the blocks of 16 in place; a size that is not a
// multiple of 16 redraws the last 16 values (overlapping the last full block).
template <typename T>
void normal_fill(CPUGeneratorImpl* gen, T* data, int64_t size, double mean, double std, CPUCapability cap) {
  using acc_t = opmath_t<T>;
  uniform_real_distribution<acc_t> uniform(0, 1);
  const auto m = static_cast<acc_t>(mean);
  const auto s = static_cast<acc_t>(std);
  if constexpr (std::is_same_v<T, acc_t>) {
    for (int64_t i = 0; i < size; i++) {
      data[i] = uniform(gen);
    }
    for (int64_t i = 0; i < size - 15; i += 16) {
      normal_fill_16<acc_t>(data + i, m, s, cap);
    }
    if (size % 16 != 0) {
      data = data + size - 16;
      for (int i = 0; i < 16; i++) {
        data[i] = uniform(gen);
      }
      normal_fill_16<acc_t>(data, m, s, cap);
    }
  } else {
    // Half: each block drawn into a float buffer, transformed, then rounded.
    acc_t buf[16];
    for (int64_t i = 0; i < size - 15; i += 16) {
      for (int j = 0; j < 16; j++) {
        buf[j] = uniform(gen);
      }
      normal_fill_16<acc_t>(buf, m, s, cap);
      for (int j = 0; j < 16; j++) {
        data[i + j] = static_cast<T>(buf[j]);
      }
    }
    if (size % 16 != 0) {
      const int64_t offset = size - 16;
      for (int j = 0; j < 16; j++) {
        buf[j] = uniform(gen);
      }
      normal_fill_16<acc_t>(buf, m, s, cap);
      for (int j = 0; j < 16; j++) {
        data[offset + j] = static_cast<T>(buf[j]);
      }
    }
  }
}

} // namespace

void normal_fill_16_avx2(float* data, float mean, float std, bool vectorised) {
  if (vectorised && cpu_has_avx2_fma()) {
    normal_fill_16_avx2_fma(data, mean, std);
  } else {
    normal_fill_16_avx2_body(data, mean, std);
  }
}

void random_from_to_kernel(
    CPUGeneratorImpl* gen,
    ScalarType dtype,
    void* out,
    int64_t n,
    uint64_t range,
    int64_t base) {
  dispatch("random_from_to_kernel_cpu", dtype, true, true, [&](auto tag) {
    using T = typename decltype(tag)::type;
    std::lock_guard<std::mutex> lock(gen->mutex_);
    T* data = static_cast<T*>(out);
    uniform_int_from_to_distribution<T> random(range, base);
    for (int64_t i = 0; i < n; i++) {
      data[i] = random(gen);
    }
  });
}

void random_full_64_bits_range_kernel(CPUGeneratorImpl* gen, ScalarType dtype, void* out, int64_t n) {
  dispatch("random_full_64_bits_range_kernel_cpu", dtype, false, false, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, double> || std::is_same_v<T, float>) {
      std::lock_guard<std::mutex> lock(gen->mutex_);
      T* data = static_cast<T*>(out);
      uniform_int_full_range_distribution<T> random;
      for (int64_t i = 0; i < n; i++) {
        data[i] = random(gen);
      }
    } else {
      throw std::invalid_argument(
          "random_full_64_bits_range_kernel_cpu handles only int64, double, float and bfloat16");
    }
  });
}

void random_kernel(CPUGeneratorImpl* gen, ScalarType dtype, void* out, int64_t n) {
  dispatch("random_kernel_cpu", dtype, true, true, [&](auto tag) {
    using T = typename decltype(tag)::type;
    std::lock_guard<std::mutex> lock(gen->mutex_);
    T* data = static_cast<T*>(out);
    uniform_int_distribution<T> random;
    for (int64_t i = 0; i < n; i++) {
      data[i] = random(gen);
    }
  });
}

void uniform_kernel(
    CPUGeneratorImpl* gen,
    ScalarType dtype,
    void* out,
    int64_t n,
    double from_,
    double to_,
    CPUCapability cap) {
  if (dtype != ScalarType::Float && dtype != ScalarType::Double && dtype != ScalarType::Half) {
    unsupported("uniform_kernel_cpu", dtype);
  }
  dispatch("uniform_kernel_cpu", dtype, false, true, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, c10::Half>) {
      using acc_t = opmath_t<T>;
      std::lock_guard<std::mutex> lock(gen->mutex_);
      const auto from = static_cast<acc_t>(from_);
      const auto to = static_cast<acc_t>(to_);
      const auto to_scalar = static_cast<T>(to_);
      const auto from_scalar = static_cast<T>(from_);
      uniform_real_distribution<acc_t> uniform(from, to, fused(cap));
      T* data = static_cast<T*>(out);
      for (int64_t i = 0; i < n; i++) {
        const auto value = static_cast<T>(uniform(gen));
        // A value that the cast rounded up to the bound is the lower bound instead.
        data[i] = static_cast<acc_t>(value) == static_cast<acc_t>(to_scalar) ? from_scalar : value;
      }
    }
  });
}

void normal_kernel(
    CPUGeneratorImpl* gen,
    ScalarType dtype,
    void* out,
    int64_t n,
    bool contiguous,
    double mean,
    double std,
    CPUCapability cap) {
  if (dtype != ScalarType::Float && dtype != ScalarType::Double && dtype != ScalarType::Half) {
    unsupported("normal_kernel_cpu", dtype);
  }
  dispatch("normal_kernel_cpu", dtype, false, true, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, c10::Half>) {
      std::lock_guard<std::mutex> lock(gen->mutex_);
      T* data = static_cast<T*>(out);
      if (n >= 16 && contiguous) {
        normal_fill<T>(gen, data, n, mean, std, cap);
      } else {
        normal_distribution<double> normal(mean, std, fused(cap));
        for (int64_t i = 0; i < n; i++) {
          data[i] = static_cast<T>(normal(gen));
        }
      }
    }
  });
}

void exponential_kernel(CPUGeneratorImpl* gen, ScalarType dtype, void* out, int64_t n, double lambda) {
  if (dtype != ScalarType::Float && dtype != ScalarType::Double && dtype != ScalarType::Half) {
    throw std::invalid_argument(
        "Exponential distribution is a continuous probability distribution. dtype must be a floating point but you "
        "specified " +
        std::string(toString(dtype)));
  }
  dispatch("exponential_cpu", dtype, false, true, [&](auto tag) {
    using T = typename decltype(tag)::type;
    std::lock_guard<std::mutex> lock(gen->mutex_);
    exponential_distribution<double> exponential(lambda);
    T* data = static_cast<T*>(out);
    for (int64_t i = 0; i < n; i++) {
      data[i] = static_cast<T>(exponential(gen));
    }
  });
}

void geometric_kernel(CPUGeneratorImpl* gen, ScalarType dtype, void* out, int64_t n, double p) {
  dispatch("geometric_cpu", dtype, false, true, [&](auto tag) {
    using T = typename decltype(tag)::type;
    std::lock_guard<std::mutex> lock(gen->mutex_);
    geometric_distribution<double> geometric(p);
    T* data = static_cast<T*>(out);
    for (int64_t i = 0; i < n; i++) {
      data[i] = static_cast<T>(geometric(gen));
    }
  });
}

// bernoulli_scalar_kernel_default. (Upstream once sampled with MKL's VSL_BRNG_MCG31 stream
// on Intel CPUs; torch 2.13 draws from the generator like every other kernel here.)
void bernoulli_scalar_kernel(CPUGeneratorImpl* gen, ScalarType dtype, void* out, int64_t n, double p) {
  dispatch("bernoulli_scalar_cpu_", dtype, true, true, [&](auto tag) {
    using T = typename decltype(tag)::type;
    std::lock_guard<std::mutex> lock(gen->mutex_);
    T* data = static_cast<T*>(out);
    for (int64_t i = 0; i < n; i++) {
      bernoulli_distribution<double> bernoulli(p);
      data[i] = static_cast<T>(bernoulli(gen));
    }
  });
}

void bernoulli_tensor_kernel(
    CPUGeneratorImpl* gen,
    ScalarType dtype,
    void* out,
    int64_t n,
    ScalarType p_dtype,
    const void* p) {
  dispatch("bernoulli_tensor_cpu_self_", dtype, true, true, [&](auto tag) {
    using self_t = typename decltype(tag)::type;
    std::lock_guard<std::mutex> lock(gen->mutex_);
    self_t* data = static_cast<self_t*>(out);
    if (p_dtype == ScalarType::Double) {
      const auto* probs = static_cast<const double*>(p);
      for (int64_t i = 0; i < n; i++) {
        bernoulli_distribution<double> bernoulli(probs[i]);
        data[i] = static_cast<self_t>(bernoulli(gen));
      }
    } else if (p_dtype == ScalarType::Float || p_dtype == ScalarType::Half) {
      // A float or half p draws a float uniform (24 bits of one random()).
      for (int64_t i = 0; i < n; i++) {
        const float p_val = p_dtype == ScalarType::Float ? static_cast<const float*>(p)[i]
                                                         : static_cast<float>(static_cast<const c10::Half*>(p)[i]);
        bernoulli_distribution<float> bernoulli(p_val);
        data[i] = static_cast<self_t>(bernoulli(gen));
      }
    } else {
      unsupported("bernoulli_tensor_cpu_p_", p_dtype);
    }
  });
}

void randperm_kernel(CPUGeneratorImpl* gen, ScalarType dtype, void* out, int64_t n) {
  dispatch("randperm", dtype, false, true, [&](auto tag) {
    using T = typename decltype(tag)::type;
    std::lock_guard<std::mutex> lock(gen->mutex_);
    T* r = static_cast<T*>(out);
    // For small n, upstream keeps the old Fisher-Yates on 32-bit draws.
    if (n < static_cast<int64_t>(std::numeric_limits<uint32_t>::max() / 20)) {
      for (int64_t i = 0; i < n; i++) {
        r[i] = static_cast<T>(i);
      }
      for (int64_t i = 0; i < n - 1; i++) {
        const int64_t z = gen->random() % (n - i);
        std::swap(r[i], r[z + i]);
      }
      return;
    }
    // Near 2**32 `random() % n` skews, so the "inside-out" variant on 64-bit draws.
    for (int64_t i = 0; i < n; i++) {
      const auto z = static_cast<int64_t>(gen->random64() % static_cast<uint64_t>(i + 1));
      r[i] = r[z];
      r[z] = static_cast<T>(i);
    }
  });
}

void multinomial_with_replacement_kernel(
    CPUGeneratorImpl* gen,
    ScalarType dtype,
    const void* probs,
    int64_t n_dist,
    int64_t n_categories,
    int64_t n_sample,
    int64_t* out) {
  auto run = [&](auto tag) {
    using T = typename decltype(tag)::type;
    std::lock_guard<std::mutex> lock(gen->mutex_);
    const T* self = static_cast<const T*>(probs);
    std::vector<T> cum_dist(static_cast<size_t>(n_categories));
    for (int64_t i = 0; i < n_dist; i++) {
      // The normalised cumulative distribution of row i.
      T sum = 0;
      for (int64_t j = 0; j < n_categories; j++) {
        const T val = self[i * n_categories + j];
        if (!(val >= 0)) {
          throw std::runtime_error("invalid multinomial distribution (encountering probability entry < 0)");
        }
        if (!std::isfinite(val)) {
          throw std::runtime_error(
              "invalid multinomial distribution (encountering probability entry = infinity or NaN)");
        }
        sum += val;
        cum_dist[j] = sum;
      }
      if (!(sum > 0)) {
        throw std::runtime_error("invalid multinomial distribution (sum of probabilities <= 0)");
      }
      for (int64_t j = 0; j < n_categories; j++) {
        cum_dist[j] /= sum;
      }
      for (int64_t j = 0; j < n_sample; j++) {
        uniform_real_distribution<double> uniform(0, 1);
        const double uniform_sample = uniform(gen);
        // Binary search for the slot with cum_dist[slot - 1] < u <= cum_dist[slot].
        int64_t left_pointer = 0;
        int64_t right_pointer = n_categories;
        cum_dist[n_categories - 1] = 1; // the last bucket ends at exactly 1
        while (right_pointer - left_pointer > 0) {
          const int64_t mid_pointer = left_pointer + (right_pointer - left_pointer) / 2;
          const T cum_prob = cum_dist[mid_pointer];
          if (cum_prob < uniform_sample) {
            left_pointer = mid_pointer + 1;
          } else {
            right_pointer = mid_pointer;
          }
        }
        out[i * n_sample + j] = left_pointer;
      }
    }
  };
  if (dtype == ScalarType::Float) {
    run(Tag<float>{});
  } else if (dtype == ScalarType::Double) {
    run(Tag<double>{});
  } else {
    unsupported("multinomial", dtype);
  }
}

} // namespace at::native
