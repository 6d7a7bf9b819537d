#include "aten/CPUGeneratorImpl.h"

#include <algorithm>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace at {

namespace detail {

// CPUGeneratorImplStateLegacy (aten/src/ATen/CPUGeneratorImpl.cpp): TH's generator as it was
// laid out in memory, kept so that states saved by any torch version load. The state words
// are 64-bit here although the engine keeps 32-bit ones; normal_x/normal_rho are unused.
struct CPUGeneratorImplStateLegacy {
  uint64_t the_initial_seed;
  int left;
  int seeded;
  uint64_t next;
  uint64_t state[MERSENNE_STATE_N];
  double normal_x;
  double normal_y;
  double normal_rho;
  int normal_is_valid;
};

// CPUGeneratorImplState: the legacy part plus the float sample cache.
struct CPUGeneratorImplState {
  CPUGeneratorImplStateLegacy legacy_pod;
  float next_float_normal_sample;
  bool is_next_float_normal_sample_valid;
};

static_assert(std::is_standard_layout_v<CPUGeneratorImplState>, "CPUGeneratorImplState is not a PODType");
static_assert(sizeof(CPUGeneratorImplState) == CPUGeneratorImpl::kStateSize, "torch's rng state is 5056 bytes");

// Upstream's make64BitsFrom32Bits: the first draw is the high word.
inline uint64_t make64BitsFrom32Bits(uint32_t hi, uint32_t lo) {
  return (static_cast<uint64_t>(hi) << 32) | lo;
}

} // namespace detail

uint64_t getNonDeterministicRandom() {
  // c10/core/GeneratorImpl.cpp: two 32-bit words of std::random_device, limited to 53
  // bits so the seed has an exact double representation (as upstream).
  std::random_device rd;
  uint64_t s = (static_cast<uint64_t>(rd()) << 32) | rd();
  return s & ((1ull << 53) - 1);
}

CPUGeneratorImpl::CPUGeneratorImpl(uint64_t seed_in) : engine_{seed_in} {}

void CPUGeneratorImpl::set_current_seed(uint64_t seed) {
  next_float_normal_sample_.reset();
  next_double_normal_sample_.reset();
  engine_ = mt19937(seed);
}

uint64_t CPUGeneratorImpl::current_seed() const {
  return engine_.seed();
}

uint64_t CPUGeneratorImpl::seed() {
  const uint64_t random = getNonDeterministicRandom();
  set_current_seed(random);
  return random;
}

void CPUGeneratorImpl::get_state(uint8_t* out) const {
  detail::CPUGeneratorImplState accum{}; // zero-filled, padding included, as upstream's make_unique
  const auto data = engine_.data();
  accum.legacy_pod.the_initial_seed = data.seed_;
  accum.legacy_pod.left = data.left_;
  accum.legacy_pod.seeded = data.seeded_;
  accum.legacy_pod.next = data.next_;
  std::copy(data.state_.begin(), data.state_.end(), std::begin(accum.legacy_pod.state));
  accum.legacy_pod.normal_x = 0.0;
  accum.legacy_pod.normal_rho = 0.0;
  accum.legacy_pod.normal_is_valid = false;
  accum.legacy_pod.normal_y = 0.0;
  accum.next_float_normal_sample = 0.0f;
  accum.is_next_float_normal_sample_valid = false;
  if (next_double_normal_sample_) {
    accum.legacy_pod.normal_is_valid = true;
    accum.legacy_pod.normal_y = *next_double_normal_sample_;
  }
  if (next_float_normal_sample_) {
    accum.is_next_float_normal_sample_valid = true;
    accum.next_float_normal_sample = *next_float_normal_sample_;
  }
  std::memcpy(out, &accum, kStateSize);
}

void CPUGeneratorImpl::set_state(const uint8_t* data, size_t size) {
  if (size != kStateSize) {
    throw std::invalid_argument(
        "Expected a CPUGeneratorImplState of size " + std::to_string(kStateSize) +
        " but found the input RNG state size to be " + std::to_string(size));
  }
  detail::CPUGeneratorImplState state;
  std::memcpy(&state, data, kStateSize);
  const auto& legacy = state.legacy_pod;
  mt19937_data_pod rng_data{};
  // The legacy words are 64-bit; the engine keeps their low 32 bits (upstream's std::copy).
  std::transform(std::begin(legacy.state), std::end(legacy.state), rng_data.state_.begin(), [](uint64_t w) {
    return static_cast<uint32_t>(w);
  });
  rng_data.seed_ = legacy.the_initial_seed;
  rng_data.left_ = legacy.left;
  rng_data.seeded_ = legacy.seeded != 0;
  rng_data.next_ = static_cast<uint32_t>(legacy.next);
  mt19937 engine;
  engine.set_data(rng_data);
  if (!engine.is_valid()) {
    throw std::invalid_argument("Invalid mt19937 state");
  }
  engine_ = engine;
  next_float_normal_sample_ = state.is_next_float_normal_sample_valid
      ? std::optional<float>(state.next_float_normal_sample)
      : std::optional<float>();
  next_double_normal_sample_ =
      legacy.normal_is_valid ? std::optional<double>(legacy.normal_y) : std::optional<double>();
}

uint32_t CPUGeneratorImpl::random() {
  return engine_();
}

uint64_t CPUGeneratorImpl::random64() {
  const uint32_t random1 = engine_();
  const uint32_t random2 = engine_();
  return detail::make64BitsFrom32Bits(random1, random2);
}

std::optional<float> CPUGeneratorImpl::next_float_normal_sample() const {
  return next_float_normal_sample_;
}

std::optional<double> CPUGeneratorImpl::next_double_normal_sample() const {
  return next_double_normal_sample_;
}

void CPUGeneratorImpl::set_next_float_normal_sample(std::optional<float> randn) {
  next_float_normal_sample_ = randn;
}

void CPUGeneratorImpl::set_next_double_normal_sample(std::optional<double> randn) {
  next_double_normal_sample_ = randn;
}

mt19937 CPUGeneratorImpl::engine() const {
  return engine_;
}

void CPUGeneratorImpl::set_engine(mt19937 engine) {
  engine_ = engine;
}

} // namespace at
