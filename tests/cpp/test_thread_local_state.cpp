// at::ThreadLocalState (GraphTask::thread_locals_): a GraphTask captures the caller's
// thread-locals and every node runs under them, on the caller's thread or on
// a device thread; the engine thread's own state is restored after each node.
// Also: a leaf stream without a stashed caller stream fails the task loudly.
#include "test_utils.h"

#include "aten/SavedTensorHooks.h"
#include "aten/ThreadLocalState.h"
#include "autograd/grad_mode.h"
#include "c10/core/SafePyObject.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <thread>

using namespace torchlite_test;

namespace {

// Stand-ins for Python objects: the address is the identity, release counts.
int pack_obj = 0;
int unpack_obj = 0;
std::atomic<int> releases{0};
void count_release(void*) {
  ++releases;
}

struct Seen {
  std::mutex mutex;
  bool grad_mode = false;
  bool multithreading = false;
  void* pack_hook = nullptr;
  int worker_device = NO_DEVICE;
};

// y = node(x) where node records the thread-locals it runs under.
Variable observed(const Variable& x, Seen* seen) {
  auto node = make_node<FnNode>(
      "Observe",
      [seen](variable_list&& g) {
        std::lock_guard<std::mutex> lock(seen->mutex);
        seen->grad_mode = GradMode::is_enabled();
        seen->multithreading = MultithreadingMode::is_enabled();
        auto hooks = at::SavedTensorDefaultHooks::get_hooks();
        seen->pack_hook = hooks ? hooks->first.ptr() : nullptr;
        seen->worker_device = get_worker_device();
        return variable_list{g[0]};
      },
      collect_next_edges({x}));
  return output_of(node, x);
}

class ThreadLocals : public ::testing::TestWithParam<const char*> {};

} // namespace

TEST_P(ThreadLocals, NodesSeeTheCallersSavedTensorHooksAndGradMode) {
  c10::Device device(GetParam());
  Seen seen;
  auto x = leaf({1.0}, {}, at::kFloat, device);
  auto y = observed(x, &seen);
  {
    NoGradGuard no_grad; // the caller's grad mode is replaced by create_graph
    at::SavedTensorDefaultHooks::push_hooks(
        c10::SafePyObject(&pack_obj, count_release), c10::SafePyObject(&unpack_obj, count_release));
    run_backward({y}, {value({1.0}, {}, at::kFloat, device)}, /*keep_graph=*/true, /*create_graph=*/true);
    at::SavedTensorDefaultHooks::pop_hooks();
  }
  EXPECT_EQ(seen.worker_device, device.is_cpu() ? CPU_DEVICE : 0);
  EXPECT_TRUE(seen.grad_mode);
  EXPECT_TRUE(seen.multithreading);
  EXPECT_EQ(seen.pack_hook, &pack_obj);

  run_backward({y}, {value({1.0}, {}, at::kFloat, device)});
  EXPECT_FALSE(seen.grad_mode);
  EXPECT_EQ(seen.pack_hook, nullptr);
}

TEST_P(ThreadLocals, HooksAreReleasedOnceTheCallerAndTheTaskAreDone) {
  c10::Device device(GetParam());
  Seen seen;
  auto x = leaf({1.0}, {}, at::kFloat, device);
  auto y = observed(x, &seen);
  releases = 0;
  at::SavedTensorDefaultHooks::push_hooks(
      c10::SafePyObject(&pack_obj, count_release), c10::SafePyObject(&unpack_obj, count_release));
  run_backward({y}, {value({1.0}, {}, at::kFloat, device)});
  EXPECT_EQ(releases.load(), 0); // the caller's stack still holds them
  at::SavedTensorDefaultHooks::pop_hooks();
  // Neither the finished task nor an engine thread keeps a copy.
  EXPECT_EQ(releases.load(), 2);
  EXPECT_FALSE(at::SavedTensorDefaultHooks::get_hooks().has_value());
}

TEST_P(ThreadLocals, MultithreadingSwitchRunsEveryNodeOnTheCaller) {
  c10::Device device(GetParam());
  Seen seen;
  auto x = leaf({1.0}, {}, at::kFloat, device);
  auto y = observed(x, &seen);
  {
    MultithreadingEnabledGuard off(false);
    run_backward({y}, {value({1.0}, {}, at::kFloat, device)});
  }
  EXPECT_EQ(seen.worker_device, CPU_DEVICE);
  EXPECT_FALSE(seen.multithreading);
  EXPECT_TRUE(MultithreadingMode::is_enabled());
}

INSTANTIATE_TEST_SUITE_P(CpuAndSim, ThreadLocals, ::testing::Values("cpu", "sim:0"));

TEST(ThreadLocalState, GuardInstallsAndRestores) {
  at::ThreadLocalState captured; // grad mode on, no hooks
  captured.set_grad_mode(false);
  at::SavedTensorDefaultHooks::push_hooks(
      c10::SafePyObject(&pack_obj, count_release), c10::SafePyObject(&unpack_obj, count_release));
  {
    at::ThreadLocalStateGuard guard(captured);
    EXPECT_FALSE(GradMode::is_enabled());
    EXPECT_FALSE(at::SavedTensorDefaultHooks::get_hooks().has_value());
  }
  EXPECT_TRUE(GradMode::is_enabled());
  ASSERT_TRUE(at::SavedTensorDefaultHooks::get_hooks().has_value());
  EXPECT_EQ(at::SavedTensorDefaultHooks::get_hooks()->first.ptr(), &pack_obj);
  at::SavedTensorDefaultHooks::pop_hooks();
  EXPECT_THROW(at::SavedTensorDefaultHooks::pop_hooks(), std::runtime_error);
}

TEST(ThreadLocalState, NewThreadsStartFromTheDefaults) {
  NoGradGuard no_grad;
  MultithreadingEnabledGuard off(false);
  bool grad = false, mt = false;
  std::thread([&] {
    grad = GradMode::is_enabled();
    mt = MultithreadingMode::is_enabled();
  }).join();
  EXPECT_TRUE(grad);
  EXPECT_TRUE(mt);
}

TEST(GraphTaskPostProcessing, LeafStreamWithoutStashedCallerStreamFails) {
  // exec_post_processing syncs each leaf stream into the caller's stream on
  // that device; a leaf stream with none stashed is an engine bug and fails
  // the task instead of being skipped.
  auto task = std::make_shared<GraphTask>(false, false, 0, std::make_shared<ReadyQueue>(), std::vector<Node*>{});
  task->leaf_streams.emplace(c10::Stream(c10::Stream::DEFAULT, c10::Device("sim:1")));
  task->mark_as_completed_and_run_post_processing();
  EXPECT_THROW(task->future_result_->value(), std::logic_error);
}
