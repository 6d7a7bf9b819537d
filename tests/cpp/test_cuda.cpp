// The CUDA kernels and guard impl on a real GPU (built only with
// TORCHLITE_CUDA; each case skips, saying why, where no GPU is usable and
// the two-GPU case where there is one).
#include "test_utils.h"

#include "aten/cuda/CUDAKernels.h"
#include "c10/core/DeviceGuard.h"
#include "c10/cuda/CUDAFunctions.h"

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cmath>
#include <string>

using namespace torchlite_test;

namespace {

#define REQUIRE_GPUS(n)                                                                          \
  if (c10::cuda::device_count() < (n)) {                                                         \
    GTEST_SKIP() << "needs " << (n) << " CUDA GPU(s), found " << int(c10::cuda::device_count()); \
  }

const c10::impl::DeviceGuardImplInterface* cuda_impl() {
  return c10::impl::getDeviceGuardImpl(c10::DeviceType::CUDA);
}

size_t pool_used_bytes(int device) {
  cudaMemPool_t pool;
  EXPECT_EQ(cudaDeviceGetDefaultMemPool(&pool, device), cudaSuccess);
  uint64_t used = 0;
  EXPECT_EQ(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used), cudaSuccess);
  return static_cast<size_t>(used);
}

std::vector<double> ramp(int64_t n) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    v[static_cast<size_t>(i)] = std::sin(static_cast<double>(i)) * 1e3;
  return v;
}

} // namespace

TEST(Cuda, StreamOfDeviceMinusOneIsTheCurrentDevice) {
  REQUIRE_GPUS(1);
  const auto s = cuda_impl()->getStream(c10::Device(c10::DeviceType::CUDA, -1));
  EXPECT_EQ(s.device_index(), cuda_impl()->getDevice().index());
}

TEST(Cuda, StreamIndexPastTheDevicesThrows) {
  REQUIRE_GPUS(1);
  const std::string expected =
      "Device index value 100 is out of index range [0, " + std::to_string(int(c10::cuda::device_count())) + ")";
  try {
    cuda_impl()->getNewStream(c10::Device(c10::DeviceType::CUDA, 100));
    FAIL() << "expected a throw";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), expected);
  }
  // Noexcept accessors do not read past the per-device table.
  const auto s = cuda_impl()->getStream(c10::Device(c10::DeviceType::CUDA, 100));
  EXPECT_EQ(s.id(), 0);
}

TEST(Cuda, SumToIsDeterministicAndMatchesTheCpu) {
  REQUIRE_GPUS(1);
  const c10::Device gpu(c10::DeviceType::CUDA, 0);
  const auto values = ramp(1 << 20);
  auto host = at::tensor(values, {1024, 1024}, at::kFloat);
  auto dev = at::to(host, gpu);
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{}, {1024}, {1024, 1}}) {
    const auto cpu = at::sum_to(host, shape).to_vector();
    const auto first = at::sum_to(dev, shape).to_vector();
    for (int i = 0; i < 20; ++i)
      EXPECT_EQ(at::sum_to(dev, shape).to_vector(), first); // bitwise
    ASSERT_EQ(first.size(), cpu.size());
    for (size_t i = 0; i < cpu.size(); ++i)
      EXPECT_NEAR(first[i], cpu[i], 1e-3 * (1 + std::fabs(cpu[i])));
  }
}

TEST(Cuda, AnyNanFindsNanAndFreesItsFlag) {
  REQUIRE_GPUS(1);
  const c10::Device gpu(c10::DeviceType::CUDA, 0);
  auto clean = at::to(at::tensor({1.0, 2.0, 3.0}, {3}, at::kFloat), gpu);
  auto dirty = at::to(at::tensor({1.0, NAN, 3.0}, {3}, at::kFloat), gpu);
  TORCHLITE_CUDA_CHECK(cudaDeviceSynchronize());
  const size_t before = pool_used_bytes(0);
  for (int i = 0; i < 100; ++i) {
    EXPECT_FALSE(at::any_nan(clean));
    EXPECT_TRUE(at::any_nan(dirty));
  }
  TORCHLITE_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(pool_used_bytes(0), before);
}

TEST(Cuda, TensorMemoryGoesBackToTheStreamOrderedPool) {
  REQUIRE_GPUS(1);
  const c10::Device gpu(c10::DeviceType::CUDA, 0);
  TORCHLITE_CUDA_CHECK(cudaDeviceSynchronize());
  const size_t before = pool_used_bytes(0);
  for (int i = 0; i < 1000; ++i) {
    auto t = at::zeros({256, 256}, at::kFloat, gpu);
    t.add_(at::ones({256, 256}, at::kFloat, gpu));
  }
  TORCHLITE_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(pool_used_bytes(0), before);
}

TEST(Cuda, CopyFromASideStreamSeesTheSideStreamsWrites) {
  REQUIRE_GPUS(1);
  const c10::Device gpu(c10::DeviceType::CUDA, 0);
  auto side = cuda_impl()->getNewStream(gpu);
  at::Tensor big;
  {
    c10::OptionalStreamGuard g(side);
    big = at::full({1 << 24}, 3.0, at::kFloat, gpu);
  }
  const auto host = at::to(big, c10::Device()).to_vector();
  for (size_t i = 0; i < host.size(); i += 4099)
    ASSERT_EQ(host[i], 3.0);
}

TEST(Cuda, CrossDeviceCopyWaitsForTheSourceStream) {
  REQUIRE_GPUS(2);
  const c10::Device gpu0(c10::DeviceType::CUDA, 0), gpu1(c10::DeviceType::CUDA, 1);
  auto side0 = cuda_impl()->getNewStream(gpu0);
  auto side1 = cuda_impl()->getNewStream(gpu1);
  c10::OptionalStreamGuard g0(side0);
  c10::OptionalStreamGuard g1(side1);
  for (int round = 0; round < 10; ++round) {
    // A large fill queued on gpu0's side stream, then at once copied to gpu1.
    auto src = at::full({1 << 24}, static_cast<double>(round), at::kFloat, gpu0);
    auto dst = at::to(src, gpu1);
    const auto host = at::to(dst, c10::Device()).to_vector();
    for (size_t i = 0; i < host.size(); i += 4099)
      ASSERT_EQ(host[i], round) << "round " << round;
  }
}

TEST(Cuda, BackwardRunsOnTheDeviceWorker) {
  REQUIRE_GPUS(1);
  const c10::Device gpu(c10::DeviceType::CUDA, 0);
  auto x = leaf({1.0, 2.0}, {2}, at::kFloat, gpu);
  int worker = -2;
  auto node = make_node<FnNode>(
      "Double",
      [&](variable_list&& g) {
        worker = get_worker_device();
        return variable_list{at::mul(g[0], 2.0)};
      },
      collect_next_edges({x}));
  auto y = output_of(node, x);
  run_backward({y}, {at::ones({2}, at::kFloat, gpu)});
  EXPECT_EQ(worker, 0);
  EXPECT_EQ(x.grad().device(), gpu);
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{2.0, 2.0}));
}
