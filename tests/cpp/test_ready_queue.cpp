// ReadyQueue ordering (CompareNodeTaskTime, torch/csrc/autograd/engine.h):
// shutdown tasks, then empty tasks, then deeper reentrant depth, then larger
// sequence_nr; push counts outstanding tasks; pop blocks until a push.
#include "test_utils.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

using namespace torchlite_test;

namespace {

std::shared_ptr<GraphTask> make_task(int depth) {
  return std::make_shared<GraphTask>(false, false, depth, nullptr, std::vector<Node*>{});
}

std::shared_ptr<Node> node_with_seq(uint64_t seq, const std::string& name) {
  return make_node<FnNode>(seq, name, [](variable_list&& g) { return std::move(g); });
}

NodeTask task(const std::shared_ptr<GraphTask>& gt, std::shared_ptr<Node> fn) {
  return NodeTask(gt, std::move(fn), InputBuffer(0));
}

} // namespace

TEST(ReadyQueue, LargerSequenceNrFirstAtSameDepth) {
  auto gt = make_task(0);
  ReadyQueue q;
  q.push(task(gt, node_with_seq(3, "a")));
  q.push(task(gt, node_with_seq(10, "b")));
  q.push(task(gt, node_with_seq(7, "c")));
  EXPECT_EQ(q.pop().fn_->name(), "b");
  EXPECT_EQ(q.pop().fn_->name(), "c");
  EXPECT_EQ(q.pop().fn_->name(), "a");
}

TEST(ReadyQueue, DeeperReentrantDepthFirst) {
  auto shallow = make_task(0);
  auto deep = make_task(2);
  ReadyQueue q;
  q.push(task(shallow, node_with_seq(100, "shallow")));
  q.push(task(deep, node_with_seq(1, "deep")));
  EXPECT_EQ(q.pop().fn_->name(), "deep");
  EXPECT_EQ(q.pop().fn_->name(), "shallow");
}

TEST(ReadyQueue, TaskOfExpiredGraphTaskFirst) {
  // A task whose GraphTask is gone ranks as the deepest reentrant depth, so
  // it leaves the queue before any live task (torch/csrc/autograd/engine.cpp).
  auto expired = make_task(0);
  NodeTask orphan = task(expired, node_with_seq(1, "orphan"));
  expired.reset();
  auto deep = make_task(5);
  ReadyQueue q;
  q.push(task(deep, node_with_seq(100, "deep")));
  q.push(std::move(orphan), /*incrementOutstandingTasks=*/false);
  EXPECT_EQ(q.pop().fn_->name(), "orphan");
  EXPECT_EQ(q.pop().fn_->name(), "deep");
}

TEST(ReadyQueue, EmptyTaskBeforeNodeTasks) {
  auto gt = make_task(5);
  ReadyQueue q;
  q.push(task(gt, node_with_seq(100, "node")));
  q.push(task(gt, nullptr));
  auto first = q.pop();
  EXPECT_EQ(first.fn_, nullptr);
  EXPECT_FALSE(first.isShutdownTask_);
  EXPECT_EQ(q.pop().fn_->name(), "node");
}

TEST(ReadyQueue, ShutdownTaskFirstOfAll) {
  auto gt = make_task(5);
  ReadyQueue q;
  q.push(task(gt, node_with_seq(100, "node")));
  q.push(task(gt, nullptr));
  q.pushShutdownTask();
  EXPECT_TRUE(q.pop().isShutdownTask_);
  EXPECT_EQ(q.pop().fn_, nullptr);
  EXPECT_EQ(q.pop().fn_->name(), "node");
}

TEST(ReadyQueue, AccumulateGradRunsBeforeOtherNodes) {
  auto gt = make_task(0);
  ReadyQueue q;
  auto leaf_var = leaf({1.0});
  auto acc = impl::grad_accumulator(leaf_var);
  ASSERT_EQ(acc->sequence_nr(), UINT64_MAX);
  q.push(task(gt, node_with_seq(1000000, "late")));
  q.push(task(gt, acc));
  EXPECT_EQ(q.pop().fn_.get(), acc.get());
}

TEST(ReadyQueue, PushCountsOutstandingTasks) {
  auto gt = make_task(0);
  ReadyQueue q;
  q.push(task(gt, node_with_seq(1, "a")));
  q.push(task(gt, node_with_seq(2, "b")));
  q.push(task(gt, node_with_seq(3, "c")), /*incrementOutstandingTasks=*/false);
  EXPECT_EQ(gt->outstanding_tasks_.load(), 2u);
  EXPECT_EQ(q.size(), 3u);
}

TEST(ReadyQueue, PopBlocksUntilPush) {
  // The consumer is inside pop() on an empty queue; were pop to return
  // without a task, `popped` would be set within the grace period.
  auto gt = make_task(0);
  ReadyQueue q;
  std::atomic<bool> entered{false};
  std::atomic<bool> popped{false};
  std::string name;
  std::thread consumer([&] {
    entered = true;
    auto t = q.pop();
    name = t.fn_ ? t.fn_->name() : "<empty task>";
    popped = true;
  });
  while (!entered.load())
    std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_FALSE(popped.load());
  q.push(task(gt, node_with_seq(1, "wake")));
  consumer.join();
  EXPECT_TRUE(popped.load());
  EXPECT_EQ(name, "wake");
  EXPECT_TRUE(q.empty());
}

TEST(ReadyQueue, SequenceNumbersIncreasePerThread) {
  auto a = make_node<FnNode>("a", [](variable_list&& g) { return std::move(g); });
  auto b = make_node<FnNode>("b", [](variable_list&& g) { return std::move(g); });
  EXPECT_EQ(b->sequence_nr(), a->sequence_nr() + 1);
}
