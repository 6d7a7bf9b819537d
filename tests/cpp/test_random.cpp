// torch's CPU generator and random kernels (csrc/aten/CPUGeneratorImpl.h,
// csrc/aten/native/cpu/DistributionKernels.h): the expected values are torch 2.13's, printed by
// torch on the CPU for the same seeds (tests/python/test_random.py compares everything else).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "aten/CPUGeneratorImpl.h"
#include "aten/native/cpu/DistributionKernels.h"

using at::CPUGeneratorImpl;
using at::ScalarType;
using at::native::CPUCapability;

namespace {

uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

} // namespace

TEST(Random, Random64IsTwoDrawsHighWordFirst) {
  // torch.manual_seed(0); torch.empty(2, dtype=torch.int64).random_(-2**63, None)
  CPUGeneratorImpl gen(0);
  EXPECT_EQ(gen.random64(), 0x8c7f0aac97c4aa2full);
  EXPECT_EQ(gen.random64(), 0xb716a675d821ccc0ull);
  CPUGeneratorImpl again(0);
  EXPECT_EQ(again.random(), 0x8c7f0aacu);
  EXPECT_EQ(again.random(), 0x97c4aa2fu);
}

TEST(Random, SeedKeepsAll64Bits) {
  CPUGeneratorImpl gen(5);
  gen.set_current_seed((1ull << 32) + 5);
  EXPECT_EQ(gen.current_seed(), (1ull << 32) + 5);
  CPUGeneratorImpl low(5);
  EXPECT_EQ(gen.random(), low.random()); // the engine is seeded with the low 32 bits
  EXPECT_EQ(CPUGeneratorImpl().current_seed(), 67280421310721ull);
}

TEST(Random, NormalFillPerCapability) {
  // torch.manual_seed(0); torch.randn(16): AVX2 (this machine's default) and ATEN_CPU_CAPABILITY=default
  const uint32_t avx2[4] = {3213892485u, 3214114954u, 3196079062u, 3202229597u};
  const uint32_t scalar[4] = {3213892485u, 3214114954u, 3196079062u, 3202229598u};
  for (auto cap : {CPUCapability::AVX2, CPUCapability::DEFAULT}) {
    CPUGeneratorImpl gen(0);
    std::vector<float> out(16);
    at::native::normal_kernel(&gen, ScalarType::Float, out.data(), 16, true, 0.0, 1.0, cap);
    const uint32_t* want = cap == CPUCapability::AVX2 ? avx2 : scalar;
    for (int i = 0; i < 4; i++) {
      EXPECT_EQ(bits(out[i]), want[i]) << i;
    }
  }
}

TEST(Random, NormalDistributionCachesTheSecondSample) {
  // torch.manual_seed(0); torch.randn(3, dtype=torch.float64)
  CPUGeneratorImpl gen(0);
  std::vector<double> out(3);
  at::native::normal_kernel(&gen, ScalarType::Double, out.data(), 3, true, 0.0, 1.0, CPUCapability::AVX2);
  EXPECT_EQ(out[0], 1.5409961082440433);
  EXPECT_EQ(out[1], -0.2934289057609464);
  EXPECT_EQ(out[2], -2.1787893820745574);
  EXPECT_TRUE(gen.next_double_normal_sample().has_value()); // the third pair's sine
}

TEST(Random, UniformDouble) {
  // torch.manual_seed(0); torch.rand(3, dtype=torch.float64)
  CPUGeneratorImpl gen(0);
  std::vector<double> out(3);
  at::native::uniform_kernel(&gen, ScalarType::Double, out.data(), 3, 0.0, 1.0, CPUCapability::AVX512);
  EXPECT_EQ(out[0], 0.9700530018065531);
  EXPECT_EQ(out[1], 0.707819864399788);
  EXPECT_EQ(out[2], 0.45938294312745087);
}

TEST(Random, Randperm) {
  // torch.manual_seed(3); torch.randperm(10)
  CPUGeneratorImpl gen(3);
  std::vector<int64_t> out(10);
  at::native::randperm_kernel(&gen, ScalarType::Long, out.data(), 10);
  EXPECT_EQ(out, (std::vector<int64_t>{6, 0, 3, 7, 8, 5, 1, 9, 2, 4}));
}

TEST(Random, StateRoundTripAndErrors) {
  CPUGeneratorImpl gen(42);
  std::vector<double> scratch(3);
  at::native::normal_kernel(&gen, ScalarType::Double, scratch.data(), 3, true, 0.0, 1.0, CPUCapability::AVX2);
  std::vector<uint8_t> state(CPUGeneratorImpl::kStateSize);
  gen.get_state(state.data());
  const uint32_t a = gen.random();
  CPUGeneratorImpl other;
  other.set_state(state.data(), state.size());
  EXPECT_EQ(other.random(), a);
  EXPECT_EQ(other.current_seed(), 42u);
  EXPECT_EQ(other.next_double_normal_sample(), gen.next_double_normal_sample());
  try {
    other.set_state(state.data(), 5);
    FAIL() << "expected a size error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "Expected a CPUGeneratorImplState of size 5056 but found the input RNG state size to be 5");
  }
  std::vector<uint8_t> zeros(CPUGeneratorImpl::kStateSize, 0);
  EXPECT_THROW(other.set_state(zeros.data(), zeros.size()), std::invalid_argument);
}

TEST(Random, UnsupportedDtypeThrows) {
  CPUGeneratorImpl gen(0);
  std::vector<int64_t> out(4);
  EXPECT_THROW(
      at::native::normal_kernel(&gen, ScalarType::Long, out.data(), 4, true, 0.0, 1.0, CPUCapability::AVX2),
      std::invalid_argument);
}

TEST(Random, VectorisedNormalFill16MatchesTheLaneByLaneCode) {
  // Many uniforms, the edges included: u1 = 0 (log of 1) and values just below 1.
  CPUGeneratorImpl gen(123);
  for (int block = 0; block < 20000; block++) {
    float a[16], b[16];
    for (int j = 0; j < 16; j++) {
      a[j] = static_cast<float>(gen.random() & 0xffffff) * (1.0f / 16777216.0f);
    }
    if (block == 0) {
      a[0] = 0.0f;
      a[1] = 1.0f - 1.0f / 16777216.0f;
      a[8] = 0.0f;
      a[9] = 1.0f - 1.0f / 16777216.0f;
    }
    std::memcpy(b, a, sizeof a);
    const float mean = block % 2 ? 1.5f : 0.0f, std = block % 2 ? 0.25f : 1.0f;
    at::native::normal_fill_16_avx2(a, mean, std, true);
    at::native::normal_fill_16_avx2(b, mean, std, false);
    for (int j = 0; j < 16; j++) {
      ASSERT_EQ(bits(a[j]), bits(b[j])) << "block " << block << " lane " << j;
    }
  }
}
