// Multi-device flow (Note [Allocating GPUs to autograd threads]) on the
// simulated device type with a logging FakeGuardImpl of three devices,
// installed before the engine starts its device threads: one worker thread per
// device, routing by InputBuffer::device(), the owner woken at the end, stream
// synchronisation between producer and consumer nodes and into the caller's
// streams.
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
  void SetUp() override {
    c10::impl::setDeviceGuardImpl(c10::DeviceType::Sim, &fake());
  }
};
const auto* const env = ::testing::AddGlobalTestEnvironment(new FakeDevices);

struct Seen {
  std::mutex mutex;
  std::vector<std::pair<std::string, int>> runs; // (node, worker_device)
  std::vector<std::thread::id> threads;
  std::vector<std::string> thread_names;
};

// The forward "copy `input` to `device`": its output (whose gradient the
// node receives) lives on `device`; its backward records where it ran and
// moves the gradient back to the input's device.
Variable copy_to(const Variable& input, c10::Device device, const std::string& name, Seen* seen) {
  auto source = input.device();
  auto node = make_node<FnNode>(
      name,
      [=](variable_list&& g) {
        char buf[16] = {0};
        pthread_getname_np(pthread_self(), buf, sizeof(buf));
        {
          std::lock_guard<std::mutex> lock(seen->mutex);
          seen->runs.emplace_back(name, get_worker_device());
          seen->threads.push_back(std::this_thread::get_id());
          seen->thread_names.emplace_back(buf);
        }
        return variable_list{at::to(g[0], source)};
      },
      collect_next_edges({input}));
  Variable out = at::to(input.detach(), device);
  create_gradient_edge(out, node);
  return out;
}

} // namespace

TEST(Devices, CpuBackwardStartsNoDeviceThreads) {
  // Device threads start when a task first needs a device queue (so a forked
  // child can still run CPU backwards: Note [Autograd and fork]). Runs first
  // in this executable, before any test has started them.
  auto x = leaf({1.0});
  run_backward({scaled({x}, 1.0)}, {value({1.0})});
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{1.0}));
  EXPECT_EQ(Engine::get_default_engine().num_device_threads(), 0u);
}

TEST(Devices, OneWorkerThreadPerDevice) {
  auto x = leaf({1.0}, {}, at::kFloat, c10::Device("sim:0"));
  run_backward({scaled({x}, 1.0)}, {value({1.0}, {}, at::kFloat, c10::Device("sim:0"))});
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

namespace {
// Index in `log` of the first entry matching `pred`, or -1.
template <typename Pred>
long find_entry(const std::vector<Log>& log, Pred pred) {
  for (size_t i = 0; i < log.size(); ++i) {
    if (pred(log[i]))
      return static_cast<long>(i);
  }
  return -1;
}
long find_mark(const std::vector<Log>& log, const std::string& label) {
  return find_entry(log, [&](const Log& e) { return e.kind == Log::Mark && e.label == label; });
}
} // namespace

TEST(Devices, ConsumerWaitsForProducerStreamAcrossNodes) {
  // Forward of the consumer ran on stream S1, the producer's on S2 (both
  // sim:0): after the producer ran, an event is recorded on S2, and S1 waits
  // for it before the consumer runs.
  auto* impl = c10::impl::getDeviceGuardImpl(c10::DeviceType::Sim);
  c10::Device sim0("sim:0");
  auto s1 = impl->getNewStream(sim0);
  auto s2 = impl->getNewStream(sim0);
  auto x = leaf({1.0}, {}, at::kFloat, sim0);
  Variable consumer_out, producer_out;
  {
    c10::OptionalStreamGuard g(s1);
    consumer_out = scaled({x}, 2.0, "Consumer"); // its input metadata records s1
  }
  {
    c10::OptionalStreamGuard g(s2);
    producer_out = scaled({consumer_out}, 3.0, "Producer");
  }
  producer_out.grad_fn()->add_post_hook(
      std::make_unique<CppFunctionPostHook>([](const variable_list& out, const variable_list&) {
        fake().mark("producer ran");
        return out;
      }));
  consumer_out.grad_fn()->add_pre_hook(std::make_unique<CppFunctionPreHook>([](const variable_list& g) {
    fake().mark("consumer runs");
    return g;
  }));
  fake().clear_log();
  run_backward({producer_out}, {value({1.0}, {}, at::kFloat, sim0)});
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{6.0}));
  const auto log = fake().log();
  const long produced = find_mark(log, "producer ran");
  const long consumed = find_mark(log, "consumer runs");
  const long wait =
      find_entry(log, [&](const Log& e) { return e.kind == Log::Block && e.stream == s1 && e.event_stream == s2; });
  ASSERT_GE(produced, 0);
  ASSERT_GE(wait, 0);
  ASSERT_GE(consumed, 0);
  const long record = find_entry(log, [&](const Log& e) {
    return e.kind == Log::Record && e.stream == s2 && e.event_id == log[static_cast<size_t>(wait)].event_id;
  });
  ASSERT_GE(record, 0);
  EXPECT_LT(produced, record);
  EXPECT_LT(record, wait);
  EXPECT_LT(wait, consumed);
}

TEST(Devices, LeafStreamsAreSyncedIntoTheCallersStream) {
  // The leaf's accumulation runs on the forward stream S (a leaf stream);
  // after it, the caller's current stream (default) waits on S before
  // backward returns.
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
  torch::autograd::impl::grad_accumulator(x)->add_post_hook(
      std::make_unique<CppFunctionPostHook>([](const variable_list& out, const variable_list&) {
        fake().mark("leaf accumulated");
        return out;
      }));
  fake().clear_log();
  run_backward({y}, {value({1.0}, {}, at::kFloat, sim1)});
  fake().mark("backward returned");
  const auto log = fake().log();
  const long accumulated = find_mark(log, "leaf accumulated");
  const long returned = find_mark(log, "backward returned");
  const long wait = find_entry(
      log, [&](const Log& e) { return e.kind == Log::Block && e.stream == caller_stream && e.event_stream == s; });
  ASSERT_GE(accumulated, 0);
  ASSERT_GE(wait, 0);
  EXPECT_LT(accumulated, wait);
  EXPECT_LT(wait, returned);
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{2.0}));
}

TEST(Devices, EventsAreDestroyed) {
  // Every event the engine and InputBuffer record is destroyed again, so the
  // guard's event ids are reused rather than growing with each backward.
  auto* impl = c10::impl::getDeviceGuardImpl(c10::DeviceType::Sim);
  c10::Device sim0("sim:0");
  auto s1 = impl->getNewStream(sim0);
  auto s2 = impl->getNewStream(sim0);
  auto x = leaf({1.0}, {}, at::kFloat, sim0);
  Variable a, b;
  {
    c10::OptionalStreamGuard g(s1);
    a = scaled({x}, 2.0, "A");
  }
  {
    c10::OptionalStreamGuard g(s2);
    b = scaled({a}, 3.0, "B");
  }
  const size_t before = fake().live_events();
  fake().clear_log();
  for (int i = 0; i < 10; ++i) {
    run_backward({b}, {value({1.0}, {}, at::kFloat, sim0)}, /*keep_graph=*/true);
  }
  size_t records = 0;
  for (const auto& e : fake().log())
    records += e.kind == Log::Record;
  EXPECT_GE(records, 10u);
  EXPECT_EQ(fake().live_events(), before);
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
