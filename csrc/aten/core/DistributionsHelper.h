#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>

#include "aten/CPUGeneratorImpl.h"
#include "c10/util/Half.h"

namespace at {

// The distributions of aten/src/ATen/core/DistributionsHelper.h and the transforms of
// aten/src/ATen/core/TransformationHelper.h, on torchlite's CPU generator. Where torch's
// binary fuses `a * b + c` into one rounding (its AVX2/AVX512 kernel builds, compiled with
// -mfma) the transform takes `fused` (see CPUCapability in native/cpu/DistributionKernels.h);
// the file that includes this is compiled with -ffp-contract=off, so nothing else fuses.

namespace transformation {

// random_(from, to): `range` is to - from, `base` is from.
template <typename T, typename V>
inline T uniform_int_from_to(V val, uint64_t range, int64_t base) {
  return static_cast<T>(static_cast<int64_t>((val % range) + base));
}

template <typename T, typename V>
inline T uniform_int_full_range(V val) {
  return static_cast<T>(static_cast<int64_t>(val));
}

// random_() without bounds: [0, max] for integers, [0, 2**digits] for floating types.
template <typename T, typename V>
inline T uniform_int(V val) {
  if constexpr (std::is_same_v<T, bool>) {
    return static_cast<bool>(val & 1);
  } else if constexpr (std::is_same_v<T, c10::Half>) {
    return static_cast<T>(static_cast<float>(val % static_cast<uint64_t>((1ULL << 11) + 1)));
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(val % static_cast<uint64_t>((1ULL << std::numeric_limits<T>::digits) + 1));
  } else {
    return static_cast<T>(val % (static_cast<uint64_t>(std::numeric_limits<T>::max()) + 1));
  }
}

// A uniform in [from, to) from the low `digits` bits of val (float: 24 bits of random(),
// double: 53 bits of random64()).
template <typename T, typename V>
inline T uniform_real(V val, T from, T to, bool fused) {
  constexpr auto MASK = static_cast<V>((static_cast<uint64_t>(1) << std::numeric_limits<T>::digits) - 1);
  constexpr auto DIVISOR =
      static_cast<T>(1) / static_cast<T>(static_cast<uint64_t>(1) << std::numeric_limits<T>::digits);
  const T x = static_cast<T>(val & MASK) * DIVISOR;
  return fused ? std::fma(x, to - from, from) : x * (to - from) + from;
}

template <typename T>
inline T normal(T val, T mean, T std, bool fused) {
  return fused ? std::fma(val, std, mean) : val * std + mean;
}

template <typename T>
inline T exponential(T val, T lambda) {
  // The CPU form (upstream keeps a different one for CUDA: pytorch/pytorch#38662).
  return static_cast<T>(-1.0) / lambda * std::log1p(-val);
}

template <typename T>
inline T geometric(T val, T p) {
  return static_cast<T>(std::ceil(std::log(val) / std::log1p(-p)));
}

template <typename T>
inline T bernoulli(T val, T p) {
  return val < p;
}

} // namespace transformation

// uniform_int_from_to_distribution: random64() once the range reaches 2**28 (below it
// random() % range skews by at most about 5%).
template <typename T>
struct uniform_int_from_to_distribution {
  uniform_int_from_to_distribution(uint64_t range, int64_t base) : range_(range), base_(base) {}
  T operator()(CPUGeneratorImpl* generator) const {
    if (range_ >= 1ULL << 28) {
      return transformation::uniform_int_from_to<T>(generator->random64(), range_, base_);
    }
    return transformation::uniform_int_from_to<T>(generator->random(), range_, base_);
  }

 private:
  uint64_t range_;
  int64_t base_;
};

template <typename T>
struct uniform_int_full_range_distribution {
  T operator()(CPUGeneratorImpl* generator) const {
    return transformation::uniform_int_full_range<T>(generator->random64());
  }
};

template <typename T>
struct uniform_int_distribution {
  T operator()(CPUGeneratorImpl* generator) const {
    if constexpr (std::is_same_v<T, double> || std::is_same_v<T, int64_t>) {
      return transformation::uniform_int<T>(generator->random64());
    } else {
      return transformation::uniform_int<T>(generator->random());
    }
  }
};

template <typename T>
struct uniform_real_distribution {
  uniform_real_distribution(T from, T to, bool fused = false) : from_(from), to_(to), fused_(fused) {}
  T operator()(CPUGeneratorImpl* generator) const {
    if constexpr (std::is_same_v<T, double>) {
      return transformation::uniform_real<T>(generator->random64(), from_, to_, fused_);
    } else {
      return transformation::uniform_real<T>(generator->random(), from_, to_, fused_);
    }
  }

 private:
  T from_;
  T to_;
  bool fused_;
};

inline bool maybe_get_next_normal_sample(CPUGeneratorImpl* generator, double* ret) {
  const auto sample = generator->next_double_normal_sample();
  if (!sample.has_value()) {
    return false;
  }
  *ret = *sample;
  generator->set_next_double_normal_sample(std::nullopt);
  return true;
}

inline bool maybe_get_next_normal_sample(CPUGeneratorImpl* generator, float* ret) {
  const auto sample = generator->next_float_normal_sample();
  if (!sample.has_value()) {
    return false;
  }
  *ret = *sample;
  generator->set_next_float_normal_sample(std::nullopt);
  return true;
}

inline void maybe_set_next_normal_sample(CPUGeneratorImpl* generator, const double* cache) {
  generator->set_next_double_normal_sample(*cache);
}

inline void maybe_set_next_normal_sample(CPUGeneratorImpl* generator, const float* cache) {
  generator->set_next_float_normal_sample(*cache);
}

// Box-Muller: each pair of uniforms gives two samples; the second is cached in the
// generator and returned by the next call (get_rng_state carries it).
template <typename T>
struct normal_distribution {
  normal_distribution(T mean_in, T stdv_in, bool fused = false) : mean(mean_in), stdv(stdv_in), fused_(fused) {}
  T operator()(CPUGeneratorImpl* generator) const {
    T ret;
    if (maybe_get_next_normal_sample(generator, &ret)) {
      return transformation::normal(ret, mean, stdv, fused_);
    }
    uniform_real_distribution<T> uniform(0.0, 1.0);
    const T u1 = uniform(generator);
    const T u2 = uniform(generator);
    const T r = std::sqrt(static_cast<T>(-2.0) * std::log1p(-u2));
    const T theta = static_cast<T>(2.0) * static_cast<T>(3.14159265358979323846) * u1;
    const T sample = r * std::sin(theta);
    maybe_set_next_normal_sample(generator, &sample);
    ret = r * std::cos(theta);
    return transformation::normal(ret, mean, stdv, fused_);
  }

 private:
  T mean;
  T stdv;
  bool fused_;
};

template <typename T>
struct bernoulli_distribution {
  explicit bernoulli_distribution(T p_in) : p(p_in) {}
  T operator()(CPUGeneratorImpl* generator) const {
    uniform_real_distribution<T> uniform(0.0, 1.0);
    return transformation::bernoulli<T>(uniform(generator), p);
  }

 private:
  T p;
};

template <typename T>
struct geometric_distribution {
  explicit geometric_distribution(T p_in) : p(p_in) {}
  T operator()(CPUGeneratorImpl* generator) const {
    uniform_real_distribution<T> uniform(0.0, 1.0);
    return transformation::geometric<T>(uniform(generator), p);
  }

 private:
  T p;
};

template <typename T>
struct exponential_distribution {
  explicit exponential_distribution(T lambda_in) : lambda(lambda_in) {}
  T operator()(CPUGeneratorImpl* generator) const {
    uniform_real_distribution<T> uniform(0.0, 1.0);
    return transformation::exponential<T>(uniform(generator), lambda);
  }

 private:
  T lambda;
};

} // namespace at
