#pragma once
#include <array>
#include <cstdint>

namespace at {

// torch's Mersenne Twister (aten/src/ATen/core/MT19937RNGEngine.h).
//
// Note [Mt19937 Engine implementation]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Upstream reimplements MT19937 (Matsumoto and Nishimura's mt19937ar, with Cokus's
// optimisation) rather than use std::mt19937, and keeps the state in 32-bit words.
// torchlite does the same so that a seed gives torch's exact stream: the seeding
// (init_genrand on the low 32 bits of the seed, while the full 64-bit seed is kept
// for initial_seed()), the lazy twist (`left_` counts down to the next refill), and
// the tempering are upstream's, so get_rng_state/set_rng_state move states between
// torch and torchlite unchanged.

constexpr int MERSENNE_STATE_N = 624;
constexpr int MERSENNE_STATE_M = 397;
constexpr uint32_t MATRIX_A = 0x9908b0df;
constexpr uint32_t UMASK = 0x80000000;
constexpr uint32_t LMASK = 0x7fffffff;

// The engine's plain data (upstream's mt19937_data_pod): what get_state/set_state move.
struct mt19937_data_pod {
  uint64_t seed_;
  int left_;
  bool seeded_;
  uint32_t next_;
  std::array<uint32_t, MERSENNE_STATE_N> state_;
};

class mt19937_engine {
 public:
  explicit mt19937_engine(uint64_t seed = 5489) {
    init_with_uint32(seed);
  }

  mt19937_data_pod data() const {
    return data_;
  }

  void set_data(const mt19937_data_pod& data) {
    data_ = data;
  }

  uint64_t seed() const {
    return data_.seed_;
  }

  bool is_valid() const {
    return data_.seeded_ && data_.left_ > 0 && data_.left_ <= MERSENNE_STATE_N &&
        data_.next_ <= static_cast<uint32_t>(MERSENNE_STATE_N);
  }

  uint32_t operator()() {
    if (--data_.left_ == 0) {
      next_state();
    }
    uint32_t y = data_.state_[data_.next_++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= (y >> 18);
    return y;
  }

 private:
  mt19937_data_pod data_{};

  void init_with_uint32(uint64_t seed) {
    data_.seed_ = seed;
    data_.seeded_ = true;
    data_.state_[0] = static_cast<uint32_t>(seed & 0xffffffffu);
    for (int j = 1; j < MERSENNE_STATE_N; j++) {
      const uint32_t prev = data_.state_[j - 1];
      data_.state_[j] = 1812433253u * (prev ^ (prev >> 30)) + static_cast<uint32_t>(j);
    }
    data_.left_ = 1;
    data_.next_ = 0;
  }

  static uint32_t mix_bits(uint32_t u, uint32_t v) {
    return (u & UMASK) | (v & LMASK);
  }

  static uint32_t twist(uint32_t u, uint32_t v) {
    return (mix_bits(u, v) >> 1) ^ ((v & 1u) ? MATRIX_A : 0u);
  }

  // Refills the whole state at once (the words are consumed by operator()).
  void next_state() {
    uint32_t* s = data_.state_.data();
    data_.left_ = MERSENNE_STATE_N;
    data_.next_ = 0;
    int k = 0;
    for (; k < MERSENNE_STATE_N - MERSENNE_STATE_M; k++) {
      s[k] = s[k + MERSENNE_STATE_M] ^ twist(s[k], s[k + 1]);
    }
    for (; k < MERSENNE_STATE_N - 1; k++) {
      s[k] = s[k + MERSENNE_STATE_M - MERSENNE_STATE_N] ^ twist(s[k], s[k + 1]);
    }
    s[k] = s[k + MERSENNE_STATE_M - MERSENNE_STATE_N] ^ twist(s[k], s[0]);
  }
};

using mt19937 = mt19937_engine;

} // namespace at
