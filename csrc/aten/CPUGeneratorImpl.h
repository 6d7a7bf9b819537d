#pragma once
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>

#include "aten/core/MT19937RNGEngine.h"

namespace at {

// torch's CPU generator (aten/src/ATen/CPUGeneratorImpl.{h,cpp}): a Mersenne Twister plus
// the cached second sample of the Box-Muller pairs (one for float, one for double; see
// normal_distribution in aten/native/cpu/DistributionKernels.h). The default generator
// of "cpu" (and of torchlite's simulated devices, whose memory is host memory) is one
// of these, as is every torchlite.Generator on those devices.
struct CPUGeneratorImpl {
  // c10::detail::default_rng_seed_val
  static constexpr uint64_t default_rng_seed_val = 67280421310721ull;
  // sizeof(CPUGeneratorImplState): the byte layout of torch.get_rng_state() on the CPU.
  static constexpr size_t kStateSize = 5056;

  explicit CPUGeneratorImpl(uint64_t seed_in = default_rng_seed_val);

  void set_current_seed(uint64_t seed);
  uint64_t current_seed() const;
  // Seeds from a non-deterministic source (c10::detail::getNonDeterministicRandom); returns it.
  uint64_t seed();
  // The state in torch's 5,056-byte legacy layout (CPUGeneratorImplState), and back.
  // set_state throws std::invalid_argument with torch's message on a bad size or state.
  void get_state(uint8_t* out) const;
  void set_state(const uint8_t* data, size_t size);

  uint32_t random();
  uint64_t random64();
  std::optional<float> next_float_normal_sample() const;
  std::optional<double> next_double_normal_sample() const;
  void set_next_float_normal_sample(std::optional<float> randn);
  void set_next_double_normal_sample(std::optional<double> randn);
  mt19937 engine() const;
  void set_engine(mt19937 engine);

  // Note [Acquire lock when using random generators]: every kernel that draws holds this
  // for the whole fill, so concurrent draws never interleave inside one tensor.
  std::mutex mutex_;

 private:
  mt19937 engine_;
  std::optional<float> next_float_normal_sample_;
  std::optional<double> next_double_normal_sample_;
};

uint64_t getNonDeterministicRandom();

} // namespace at
