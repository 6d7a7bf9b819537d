// Reentrant backward (Note [Reentrant backwards]): a node that runs backward
// itself. Inline on the same thread up to MAX_DEPTH nested levels, then on
// reentrant pool threads that adopt the caller's ready queue.
#include "test_utils.h"

#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <set>
#include <thread>

using namespace torchlite_test;

namespace {

struct Observed {
  std::mutex mutex;
  std::vector<int> current_depths;
  std::vector<int> total_depths;
  std::set<std::thread::id> threads;
  std::vector<int> worker_devices;
};

// Backward of a node that, while running, runs backward on a fresh graph
// built of the same node with one level less; the innermost level returns.
// Each level's gradient is its inner graph's result plus one, so the final
// gradient counts the levels.
struct ReentrantBackward : public Node {
  ReentrantBackward(int levels, Observed* obs, edge_list next) : Node(std::move(next)), levels_(levels), obs_(obs) {}
  std::string name() const override {
    return "ReentrantBackward";
  }
  variable_list apply(variable_list&& grads) override {
    {
      std::lock_guard<std::mutex> lock(obs_->mutex);
      obs_->current_depths.push_back(get_current_depth());
      obs_->total_depths.push_back(get_total_depth());
      obs_->threads.insert(std::this_thread::get_id());
      obs_->worker_devices.push_back(get_worker_device());
    }
    double inner = 0.0;
    if (levels_ > 0) {
      auto x = leaf({0.0}, {}, grads[0].dtype(), grads[0].device());
      auto y = make(levels_ - 1, obs_, x);
      run_backward({y}, {at::ones_like(grads[0])});
      inner = vals(x.grad())[0];
    }
    return {at::full({}, inner + 1.0, grads[0].dtype(), grads[0].device())};
  }
  static Variable make(int levels, Observed* obs, const Variable& input) {
    auto node = make_node<ReentrantBackward>(levels, obs, collect_next_edges({input}));
    return output_of(node, input);
  }
  int levels_;
  Observed* obs_;
};

} // namespace

TEST(Reentrant, FiveLevelsRunInlineOnTheCallingThread) {
  Observed obs;
  auto x = leaf({0.0});
  auto y = ReentrantBackward::make(5, &obs, x);
  run_backward({y}, {value({1.0})});
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{6.0}));
  EXPECT_EQ(obs.threads.size(), 1u);
  EXPECT_EQ(*obs.threads.begin(), std::this_thread::get_id());
  EXPECT_EQ(obs.current_depths, (std::vector<int>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(obs.total_depths, (std::vector<int>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(get_current_depth(), 0);
  EXPECT_EQ(get_total_depth(), 0);
}

TEST(Reentrant, TwoHundredLevelsCrossMaxDepthIntoThePool) {
  auto& engine = Engine::get_default_engine();
  const auto pool_before = engine.num_reentrant_pool_threads();
  Observed obs;
  auto x = leaf({0.0});
  auto y = ReentrantBackward::make(200, &obs, x);
  run_backward({y}, {value({1.0})});
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{201.0}));
  ASSERT_EQ(obs.total_depths.size(), 201u);
  // total_depth counts every level; current_depth restarts on each new
  // thread and never exceeds MAX_DEPTH.
  for (int i = 0; i <= 200; ++i)
    EXPECT_EQ(obs.total_depths[i], i);
  for (int d : obs.current_depths)
    EXPECT_LE(d, MAX_DEPTH);
  EXPECT_GT(obs.threads.size(), 1u);
  EXPECT_GT(engine.num_reentrant_pool_threads(), pool_before);
  // Pool threads act for the owner: the CPU.
  for (int d : obs.worker_devices)
    EXPECT_EQ(d, CPU_DEVICE);
}

TEST(Reentrant, PoolThreadsAreReused) {
  auto& engine = Engine::get_default_engine();
  Observed warm;
  auto x0 = leaf({0.0});
  run_backward({ReentrantBackward::make(70, &warm, x0)}, {value({1.0})});
  // The pool thread goes back to waiting right after it completes the task
  // (the owner may already be running); wait for that, bounded.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (engine.num_idle_reentrant_pool_threads() == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  ASSERT_GE(engine.num_idle_reentrant_pool_threads(), 1u);
  const auto pool_after_first = engine.num_reentrant_pool_threads();
  Observed obs;
  auto x = leaf({0.0});
  run_backward({ReentrantBackward::make(70, &obs, x)}, {value({1.0})});
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{71.0}));
  EXPECT_EQ(engine.num_reentrant_pool_threads(), pool_after_first);
}

TEST(Reentrant, FromADeviceThreadStaysOnThatThread) {
  // The outer node lives on sim:1, so it runs on device thread 1, and its
  // inner backward (also on sim:1) runs reentrantly there.
  Observed obs;
  c10::Device sim1("sim:1");
  auto x = leaf({0.0}, {}, at::kFloat, sim1);
  auto y = ReentrantBackward::make(3, &obs, x);
  run_backward({y}, {value({1.0}, {}, at::kFloat, sim1)});
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{4.0}));
  EXPECT_EQ(obs.threads.size(), 1u);
  EXPECT_NE(*obs.threads.begin(), std::this_thread::get_id());
  for (int d : obs.worker_devices)
    EXPECT_EQ(d, 1);
  EXPECT_EQ(obs.current_depths, (std::vector<int>{0, 1, 2, 3}));
}

TEST(Reentrant, ErrorInsideInnerBackwardReachesTheOuterCaller) {
  struct Thrower : public Node {
    using Node::Node;
    variable_list apply(variable_list&&) override {
      throw std::runtime_error("inner failure");
    }
  };
  auto x = leaf({0.0});
  auto outer = make_node<FnNode>(
      "Outer",
      [](variable_list&& g) {
        auto inner_leaf = leaf({0.0});
        auto node = make_node<Thrower>(collect_next_edges({inner_leaf}));
        Variable out = output_of(node, inner_leaf);
        run_backward({out}, {value({1.0})});
        return std::move(g);
      },
      collect_next_edges({x}));
  Variable y = output_of(outer, x);
  try {
    run_backward({y}, {value({1.0})});
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "inner failure");
  }
  EXPECT_EQ(get_current_depth(), 0);
  EXPECT_EQ(get_total_depth(), 0);
  // The engine still works.
  auto z = leaf({1.0});
  run_backward({scaled({z}, 2.0)}, {value({1.0})});
  EXPECT_EQ(vals(z.grad()), (std::vector<double>{2.0}));
}
