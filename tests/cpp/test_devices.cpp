// Multi-device flow (seed 004, 4.5) on the simulated device type with a
// logging FakeGuardImpl of three devices, installed before the engine starts
// its device threads: one worker thread per device, routing by
// InputBuffer::device(), the owner woken at the end, stream synchronisation
// between producer and consumer nodes and into the caller's streams.
#include "test_utils.h"

#include "c10/core/DeviceGuard.h"
#include "c10/core/impl/FakeGuardImpl.h"

#include <gtest/gtest.h>
#include <pthread.h>

#include <mutex>
#include <thread>

using namespace torchlite_test;
using Log = c10::impl::FakeGuardImpl::LogEntry;

namespace {

c10::impl::FakeGuardImpl& fake() {
  static c10::impl::FakeGuardImpl impl(c10::DeviceType::Sim, 3, /*logging=*/true);
  return impl;
}

struct FakeDevices : public ::testing::Environment {
  void SetUp() override { c10::impl::setDeviceGuardImpl(c10::DeviceType::Sim, &fake()); }
};
const auto* const env = ::testing::AddGlobalTestEnvironment(new FakeDevices);

struct Seen {
  std::mutex mutex;
  std::vector<std::pair<std::string, int>> runs;  // (node, worker_device)
  std::vector<std::thread::id> threads;
  std::vector<std::string> thread_names;
};

// The forward "copy `input` to `device`": its output (whose gradient the
// node receives) lives on `device`; its backward records where it ran and
// moves the gradient back to the input's device.
Variable copy_to(const Variable& input, c10::Device device, const std::string& name, Seen* seen) {
  auto source = input.device();
  auto node = make_node<FnNode>(name, [=](variable_list&& g) {
    char buf[16] = {0};
    pthread_getname_np(pthread_self(), buf, sizeof(buf));
    {
      std::lock_guard<std::mutex> lock(seen->mutex);
      seen->runs.emplace_back(name, get_worker_device());
      seen->threads.push_back(std::this_thread::get_id());
      seen->thread_names.emplace_back(buf);
    }
    return variable_list{at::to(g[0], source)};
  }, collect_next_edges({input}));
  Variable out = at::to(input.detach(), device);
  create_gradient_edge(out, node);
  return out;
}

} // namespace

TEST(Devices, OneWorkerThreadPerDevice) {
  auto x = leaf({1.0});
  run_backward({scaled({x}, 1.0)}, {value({1.0})});
  EXPECT_EQ(Engine::get_default_engine().num_device_threads(), 3u);
}

TEST(Devices, NodeRunsOnTheWorkerOfItsInputsDevice) {
  // x lives on the CPU; y = x copied to sim:1. y's node gets a sim:1
  // gradient, so it runs on device thread 1; x's accumulator on the caller.
  Seen seen;
  c10::Device sim1("sim:1");
  auto x = leaf({1.0, 2.0});
  auto y = copy_to(x, sim1, "CopyBackwards", &seen);
  run_backward({y}, {value({1, 1}, {}, at::kFloat, sim1)});
  ASSERT_EQ(seen.runs.size(), 1u);
  EXPECT_EQ(seen.runs[0].second, 1);
  EXPECT_NE(seen.threads[0], std::this_thread::get_id());
  EXPECT_EQ(seen.thread_names[0], "tl_autograd_1");
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{1, 1}));
  EXPECT_TRUE(x.grad().device().is_cpu());
  EXPECT_EQ(get_worker_device(), NO_DEVICE);
}

TEST(Devices, GraphCrossingDevicesVisitsEachWorker) {
  // cpu x -> sim:2 -> sim:0 -> cpu: backward runs the last copy on the
  // caller, then workers 0 and 2, then accumulates on the caller again.
  Seen seen;
  auto x = leaf({3.0});
  auto a = copy_to(x, c10::Device("sim:2"), "ToSim2", &seen);
  auto b = copy_to(a, c10::Device("sim:0"), "ToSim0", &seen);
  auto c = copy_to(b, c10::Device("cpu"), "ToCpu", &seen);
  run_backward({c}, {value({1.0})});
  ASSERT_EQ(seen.runs.size(), 3u);
  EXPECT_EQ(seen.runs[0], std::make_pair(std::string("ToCpu"), CPU_DEVICE));
  EXPECT_EQ(seen.runs[1], std::make_pair(std::string("ToSim0"), 0));
  EXPECT_EQ(seen.runs[2], std::make_pair(std::string("ToSim2"), 2));
  EXPECT_EQ(seen.threads[0], std::this_thread::get_id());
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{1.0}));
  EXPECT_TRUE(x.grad().device().is_cpu());
}

TEST(Devices, TaskEndingOnADeviceWakesTheOwner) {
  // The last node runs on a device worker; the owner (this thread, blocked
  // on its own queue) must be woken to return.
  Seen seen;
  auto x = leaf({1.0}, {}, at::kFloat, c10::Device("sim:2"));
  auto y = copy_to(x, c10::Device("sim:2"), "Last", &seen);
  for (int i = 0; i < 20; ++i) {
    run_backward({y}, {value({1.0}, {}, at::kFloat, c10::Device("sim:2"))}, /*keep_graph=*/true);
  }
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{20.0}));
  EXPECT_EQ(seen.runs.size(), 20u);
}

TEST(Devices, ConsumerWaitsForProducerStreamAcrossNodes) {
  // Forward of the consumer ran on stream S1, the producer's on S2 (both
  // sim:0): before the consumer runs, S1 waits for an event recorded on S2.
  auto* impl = c10::impl::getDeviceGuardImpl(c10::DeviceType::Sim);
  c10::Device sim0("sim:0");
  auto s1 = impl->getNewStream(sim0);
  auto s2 = impl->getNewStream(sim0);
  auto x = leaf({1.0}, {}, at::kFloat, sim0);
  Variable consumer_out, producer_out;
  {
    c10::OptionalStreamGuard g(s1);
    consumer_out = scaled({x}, 2.0, "Consumer");  // its input metadata records s1
  }
  {
    c10::OptionalStreamGuard g(s2);
    producer_out = scaled({consumer_out}, 3.0, "Producer");
  }
  fake().clear_log();
  run_backward({producer_out}, {value({1.0}, {}, at::kFloat, sim0)});
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{6.0}));
  bool s1_waited_for_s2 = false;
  for (const auto& e : fake().log()) {
    if (e.kind == Log::Block && e.stream == s1 && fake().event_stream(e.event_id) == s2) s1_waited_for_s2 = true;
  }
  EXPECT_TRUE(s1_waited_for_s2);
}

TEST(Devices, LeafStreamsAreSyncedIntoTheCallersStream) {
  // The leaf's accumulation runs on the forward stream S (a leaf stream);
  // the caller's current stream (default) waits on it before backward returns.
  auto* impl = c10::impl::getDeviceGuardImpl(c10::DeviceType::Sim);
  c10::Device sim1("sim:1");
  auto s = impl->getNewStream(sim1);
  auto x = leaf({1.0}, {}, at::kFloat, sim1);
  Variable y;
  {
    c10::OptionalStreamGuard g(s);
    y = scaled({x}, 2.0, "OnS");
  }
  const auto caller_stream = impl->getStream(sim1);
  ASSERT_NE(caller_stream, s);
  fake().clear_log();
  run_backward({y}, {value({1.0}, {}, at::kFloat, sim1)});
  bool caller_waited_for_leaf = false;
  for (const auto& e : fake().log()) {
    if (e.kind == Log::Block && e.stream == caller_stream && fake().event_stream(e.event_id) == s) {
      caller_waited_for_leaf = true;
    }
  }
  EXPECT_TRUE(caller_waited_for_leaf);
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{2.0}));
}

TEST(Devices, NodesRunOnTheirForwardStream) {
  auto* impl = c10::impl::getDeviceGuardImpl(c10::DeviceType::Sim);
  c10::Device sim2("sim:2");
  auto s = impl->getNewStream(sim2);
  auto x = leaf({1.0}, {}, at::kFloat, sim2);
  Variable y;
  {
    c10::OptionalStreamGuard g(s);
    y = scaled({x}, 2.0, "OnS");
  }
  c10::Stream seen_stream(c10::Stream::DEFAULT, c10::Device());
  y.grad_fn()->add_pre_hook(std::make_unique<CppFunctionPreHook>([&](const variable_list& g) {
    seen_stream = impl->getStream(sim2);
    return g;
  }));
  run_backward({y}, {value({1.0}, {}, at::kFloat, sim2)});
  EXPECT_EQ(seen_stream, s);
}
