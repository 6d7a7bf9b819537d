// The CUDA hazards of issue 7 that can be checked without a GPU: the CUDA
// guard impl's device-index checks, the deterministic sum_to kernel's index
// arithmetic, the stream wait of a cross-device copy, and a node whose
// inputs mix two accelerator types. A logging FakeGuardImpl stands in for
// the simulated devices and one for CUDA (tensors "on cuda" here are host
// memory no CUDA kernel touches, so this also runs in a CUDA build).
#include "test_utils.h"

#include "aten/cuda/SumToPlan.h"
#include "c10/core/DeviceGuard.h"
#include "c10/core/impl/FakeGuardImpl.h"
#include "c10/cuda/CUDADeviceIndex.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

using namespace torchlite_test;
using Log = c10::impl::FakeGuardImpl::LogEntry;

namespace {

c10::impl::FakeGuardImpl& fake_sim() {
  static c10::impl::FakeGuardImpl impl(c10::DeviceType::Sim, 2, /*logging=*/true);
  return impl;
}
c10::impl::FakeGuardImpl& fake_cuda() {
  static c10::impl::FakeGuardImpl impl(c10::DeviceType::CUDA, 2, /*logging=*/true);
  return impl;
}

struct FakeDevices : public ::testing::Environment {
  void SetUp() override {
    c10::impl::setDeviceGuardImpl(c10::DeviceType::Sim, &fake_sim());
    c10::impl::setDeviceGuardImpl(c10::DeviceType::CUDA, &fake_cuda());
  }
};
const auto* const env = ::testing::AddGlobalTestEnvironment(new FakeDevices);

template <typename Pred>
long find_entry(const std::vector<Log>& log, Pred pred) {
  for (size_t i = 0; i < log.size(); ++i) {
    if (pred(log[i]))
      return static_cast<long>(i);
  }
  return -1;
}

// A float tensor "on cuda:N" over host memory (the fake CUDA impl's devices).
Variable fake_cuda_tensor(float v, c10::DeviceIndex index = 0) {
  auto* data = new float(v);
  std::shared_ptr<void> owner(data, [](void* p) { delete static_cast<float*>(p); });
  return at::from_blob(data, {}, {}, at::kFloat, c10::Device(c10::DeviceType::CUDA, index), owner, sizeof(float));
}

} // namespace

TEST(CudaChecks, DeviceIndexMinusOneIsTheCurrentDevice) {
  EXPECT_EQ(c10::cuda::checked_device_index(-1, 1, 2), 1);
  EXPECT_EQ(c10::cuda::checked_device_index(0, 1, 2), 0);
}

TEST(CudaChecks, DeviceIndexPastTheDevicesThrowsTorchsMessage) {
  try {
    c10::cuda::checked_device_index(100, 0, 1);
    FAIL() << "expected a throw";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "Device index value 100 is out of index range [0, 1)");
  }
  EXPECT_THROW(c10::cuda::checked_device_index(-2, 0, 1), std::runtime_error);
  // -1 with no device at all: the current device (0) names none either.
  EXPECT_THROW(c10::cuda::checked_device_index(-1, 0, 0), std::runtime_error);
}

TEST(CudaChecks, DeviceCountIsCappedAtThePerDeviceTables) {
  EXPECT_EQ(c10::cuda::clamp_device_count(100), c10::cuda::kMaxDevices);
  EXPECT_EQ(c10::cuda::clamp_device_count(-1), 0);
  EXPECT_EQ(c10::cuda::clamp_device_count(3), 3);
}

// The CUDA sum_to kernel's plan, run on the host: each input element is
// summed into exactly one output element, the one at::sum_to (the CPU
// loops) sums it into, and the order per output is fixed.
TEST(CudaChecks, SumToPlanMatchesTheCpuSumTo) {
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> cases = {
      {{4, 3}, {3}},
      {{4, 3}, {4, 1}},
      {{2, 3, 4}, {3, 1}},
      {{2, 3, 4}, {}},
      {{5}, {1}},
      {{2, 1, 4}, {1, 1, 4}},
      {{3, 4}, {1, 4}},
      {{2, 3, 4, 5}, {1, 3, 1, 5}},
      {{1, 3}, {1, 1}},
      {{6, 2, 1}, {2, 1}}};
  for (const auto& [in_sizes, shape] : cases) {
    int64_t n = 1;
    for (auto s : in_sizes)
      n *= s;
    std::vector<double> values(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
      values[static_cast<size_t>(i)] = static_cast<double>((i * 7919) % 101) - 50.0;
    const auto expected = at::sum_to(at::tensor(values, in_sizes, at::kDouble), shape).to_vector();

    const auto plan = at::cuda::SumToPlan::make(in_sizes, shape);
    ASSERT_EQ(plan.out_numel, static_cast<int64_t>(expected.size()));
    ASSERT_EQ(plan.out_numel * plan.reduce_numel, n);
    std::vector<int> visits(static_cast<size_t>(n), 0);
    for (int64_t o = 0; o < plan.out_numel; ++o) {
      double acc = 0;
      for (int64_t r = 0; r < plan.reduce_numel; ++r) {
        const int64_t off = plan.input_offset(o, r);
        ASSERT_GE(off, 0);
        ASSERT_LT(off, n);
        ++visits[static_cast<size_t>(off)];
        acc += values[static_cast<size_t>(off)];
      }
      EXPECT_EQ(acc, expected[static_cast<size_t>(o)]) << "output " << o;
    }
    for (int v : visits)
      EXPECT_EQ(v, 1);
  }
}

TEST(CudaChecks, SumToPlanRejectsMoreThan16Dimensions) {
  EXPECT_THROW(at::cuda::SumToPlan::make(std::vector<int64_t>(17, 1), {}), std::runtime_error);
}

// Note [Cross-device copies]: the destination's current stream waits for an
// event recorded on the source's current stream before the copy.
TEST(CudaChecks, CrossDeviceCopyWaitsForTheSourceStream) {
  c10::Device sim0("sim:0"), sim1("sim:1");
  auto* impl = c10::impl::getDeviceGuardImpl(c10::DeviceType::Sim);
  auto src_stream = impl->getNewStream(sim0);
  auto dst_stream = impl->getNewStream(sim1);
  auto x = value({1.0, 2.0}, {}, at::kFloat, sim0);
  fake_sim().clear_log();
  at::Tensor y;
  {
    c10::OptionalStreamGuard g0(src_stream);
    c10::OptionalStreamGuard g1(dst_stream);
    y = at::to(x, sim1);
  }
  EXPECT_EQ(y.device(), sim1);
  EXPECT_EQ(vals(y), (std::vector<double>{1.0, 2.0}));
  const auto log = fake_sim().log();
  const long record = find_entry(log, [&](const Log& e) { return e.kind == Log::Record && e.stream == src_stream; });
  ASSERT_GE(record, 0);
  const long wait = find_entry(log, [&](const Log& e) {
    return e.kind == Log::Block && e.stream == dst_stream && e.event_id == log[static_cast<size_t>(record)].event_id;
  });
  EXPECT_GT(wait, record);
}

TEST(CudaChecks, CopyWithinOneDeviceNeedsNoStreamWait) {
  auto x = value({1.0}, {}, at::kFloat, c10::Device("sim:0"));
  fake_sim().clear_log();
  auto y = at::to(at::to(x, c10::Device()), c10::Device("sim:0"));
  EXPECT_EQ(vals(y), (std::vector<double>{1.0}));
  const auto log = fake_sim().log();
  EXPECT_EQ(find_entry(log, [](const Log& e) { return e.kind == Log::Block; }), -1);
}

// A consumer whose forward ran on a sim stream receives one gradient on sim
// and one on cuda:1, made by a producer that ran on a cuda:0 side stream, so
// the cuda slot is ready on that stream (input_buffer.cpp case 5). The
// consumer's stream (sim) cannot wait on a cuda event; the cuda slot is read
// on cuda:1's current stream, which waits instead. This threw "Event device
// type cuda does not match blocking stream's device type sim." before.
TEST(CudaChecks, ConsumerWithInputsOnTwoAcceleratorTypesWaitsOnEachType) {
  auto* sim = c10::impl::getDeviceGuardImpl(c10::DeviceType::Sim);
  auto* cuda = c10::impl::getDeviceGuardImpl(c10::DeviceType::CUDA);
  c10::Device sim0("sim:0"), cuda0(c10::DeviceType::CUDA, 0), cuda1(c10::DeviceType::CUDA, 1);
  auto consumer_sim_stream = sim->getNewStream(sim0);
  auto producer_cuda_stream = cuda->getNewStream(cuda0);

  bool consumer_ran = false;
  auto consumer = make_node<FnNode>("Consumer", [&](variable_list&& g) {
    consumer_ran = true;
    EXPECT_EQ(g.size(), 2u);
    fake_cuda().mark("consumer runs");
    return variable_list{};
  });
  Variable a = value({1.0}, {}, at::kFloat, sim0);
  Variable b = fake_cuda_tensor(1.0f, 1);
  {
    c10::OptionalStreamGuard g(consumer_sim_stream);
    create_gradient_edge(a, consumer); // input 0 on sim, stream consumer_sim_stream
    create_gradient_edge(b, consumer); // input 1 on cuda, the cuda current stream
  }
  ASSERT_EQ(consumer->stream(), std::optional<c10::Stream>(consumer_sim_stream));

  // The producer's forward ran on a cuda side stream; it returns one gradient per device.
  auto producer = make_node<FnNode>(
      "Producer",
      [&](variable_list&&) { return variable_list{value({1.0}, {}, at::kFloat, sim0), fake_cuda_tensor(1.0f, 1)}; },
      collect_next_edges({a, b}));
  Variable root = fake_cuda_tensor(0.0f);
  {
    c10::OptionalStreamGuard g(producer_cuda_stream);
    create_gradient_edge(root, producer);
  }
  fake_cuda().clear_log();
  ASSERT_NO_THROW(run_backward({root}, {fake_cuda_tensor(1.0f)}));
  EXPECT_TRUE(consumer_ran);
  const auto log = fake_cuda().log();
  const long wait = find_entry(log, [&](const Log& e) {
    return e.kind == Log::Block && e.event_stream == producer_cuda_stream && e.stream.device() == cuda1;
  });
  const long runs = find_entry(log, [](const Log& e) { return e.kind == Log::Mark && e.label == "consumer runs"; });
  ASSERT_GE(wait, 0);
  ASSERT_GE(runs, 0);
  EXPECT_LT(wait, runs);
}
