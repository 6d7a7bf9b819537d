// The engine trace from C++ (Note [Engine trace]): what a known graph's
// backward records, that a task pushed while tracing is off carries no trace
// id, the stream event record/wait calls InputBuffer::add makes (attributed to
// the running task's GraphTask), and a node's exception.
#include "test_utils.h"

#include "autograd/engine_trace.h"
#include "autograd/grad_mode.h"
#include "autograd/graph_task_state.h"
#include "autograd/input_buffer.h"
#include "c10/core/DeviceGuard.h"
#include "c10/core/impl/FakeGuardImpl.h"

#include <gtest/gtest.h>

#include <stdexcept>

using namespace torchlite_test;
using torch::autograd::trace::Event;
using torch::autograd::trace::EventKind;

namespace {

std::vector<Event> of(const std::vector<Event>& events, EventKind kind) {
  std::vector<Event> out;
  for (const auto& e : events) {
    if (e.kind == kind)
      out.push_back(e);
  }
  return out;
}

// Simulated devices for the whole executable, installed before the engine
// starts its device threads.
c10::impl::FakeGuardImpl& fake() {
  static c10::impl::FakeGuardImpl impl(c10::DeviceType::Sim, 2, /*logging=*/false);
  return impl;
}
struct FakeDevices : public ::testing::Environment {
  void SetUp() override {
    c10::impl::setDeviceGuardImpl(c10::DeviceType::Sim, &fake());
  }
};
const auto* const env = ::testing::AddGlobalTestEnvironment(new FakeDevices);

// Stops the recording even when an assertion fails mid-test.
struct Recording {
  Recording() {
    trace::start();
  }
  ~Recording() {
    if (trace::is_enabled())
      trace::stop();
  }
};

} // namespace

TEST(EngineTrace, KnownGraphOrderThreadsQueuesAndDependencies) {
  // x -> a = 2x -> (b = 3a, c = 5a) -> d = b + c: "A" has two dependencies.
  auto x = leaf({1, 2});
  auto a = scaled({x}, 2, "A");
  auto b = scaled({a}, 3, "B");
  auto c = scaled({a}, 5, "C");
  auto d = scaled({b, c}, 1, "D");
  std::vector<Event> events;
  {
    Recording rec;
    run_backward({d}, {value({1, 1})});
    events = trace::stop();
  }
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.front().kind, EventKind::GraphTaskStart);
  EXPECT_EQ(events.back().kind, EventKind::GraphTaskEnd);
  EXPECT_EQ(events.back().detail, "ok");

  std::vector<std::string> order;
  for (const auto& e : of(events, EventKind::TaskStart))
    order.push_back(e.node);
  EXPECT_EQ(order, (std::vector<std::string>{"D", "C", "B", "A", "torch::autograd::AccumulateGrad"}));

  const uint64_t me = trace::thread_index();
  for (const auto& e : events) {
    EXPECT_EQ(e.thread, me);
    EXPECT_EQ(e.thread_name, "user thread");
    EXPECT_EQ(e.worker_device, CPU_DEVICE);
    EXPECT_EQ(e.reentrant_depth, 0);
  }
  for (const auto& e : of(events, EventKind::TaskStart))
    EXPECT_EQ(e.queue, "cpu:" + std::to_string(me));

  std::vector<std::pair<EventKind, int64_t>> on_a;
  for (const auto& e : events) {
    if (e.node == "A" && e.kind != EventKind::Enqueue && e.kind != EventKind::TaskStart &&
        e.kind != EventKind::TaskEnd) {
      on_a.emplace_back(e.kind, e.count);
    }
  }
  EXPECT_EQ(
      on_a,
      (std::vector<std::pair<EventKind, int64_t>>{
          {EventKind::GraphTaskNode, 2},
          {EventKind::Dependency, 1},
          {EventKind::NotReadyPark, -1},
          {EventKind::Dependency, 0},
          {EventKind::Accumulate, -1},
          {EventKind::NotReadyRelease, -1}}));
  // Each enqueue names the task that produced it; the root's is execute itself.
  auto enq = of(events, EventKind::Enqueue);
  ASSERT_EQ(enq.size(), 5u);
  EXPECT_EQ(enq[0].producer, 0u);
  for (size_t i = 1; i < enq.size(); ++i)
    EXPECT_NE(enq[i].producer, 0u);
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{16, 16}));
}

TEST(EngineTrace, TasksPushedWhileOffCarryNoTraceId) {
  ASSERT_FALSE(trace::is_enabled());
  auto gt = std::make_shared<GraphTask>(false, false, 0, std::make_shared<ReadyQueue>(), std::vector<Node*>{});
  auto node = make_node<FnNode>("N", [](variable_list&& g) { return g; });
  ReadyQueue queue;
  queue.push(NodeTask(gt, node, InputBuffer(0)));
  EXPECT_EQ(queue.pop().trace_id_, 0u);
  {
    Recording rec;
    queue.push(NodeTask(gt, node, InputBuffer(0)));
    EXPECT_NE(queue.pop().trace_id_, 0u);
    auto events = trace::stop();
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0].kind, EventKind::Enqueue);
    EXPECT_EQ(events[0].graph_task, static_cast<uint64_t>(gt->id_));
  }
  // Nothing is recorded once stopped.
  queue.push(NodeTask(gt, node, InputBuffer(0)));
  queue.pop();
  trace::start();
  EXPECT_TRUE(trace::stop().empty());
  EXPECT_THROW(
      {
        Recording rec;
        trace::start();
      },
      std::runtime_error);
}

TEST(EngineTrace, InputBufferStreamEventsAreRecorded) {
  c10::impl::FakeGuardImpl fake{c10::DeviceType::Sim, 1, /*logging=*/false};
  auto* prev = c10::impl::setDeviceGuardImpl(c10::DeviceType::Sim, &fake);
  c10::Device d0{"sim:0"};
  auto producer = fake.getNewStream(d0);
  auto consumer = fake.getNewStream(d0);
  // InputBuffer::add does not know its GraphTask: it takes the one of the
  // thread's CurrentTaskGuard (the second made here, so its id is not 0).
  auto first = std::make_shared<GraphTask>(false, false, 0, std::make_shared<ReadyQueue>(), std::vector<Node*>{});
  auto gt = std::make_shared<GraphTask>(false, false, 2, std::make_shared<ReadyQueue>(), std::vector<Node*>{});
  ASSERT_GT(gt->id_, first->id_);
  std::vector<Event> events;
  {
    NoGradGuard no_grad;
    Recording rec;
    InputBuffer buf(1);
    {
      trace::CurrentTaskGuard guard(7, *gt);
      buf.add(0, value({1, 1}, {}, at::kFloat, d0), producer, consumer);
      buf.add(0, value({2, 2}, {}, at::kFloat, d0), producer, consumer);
    }
    // Outside any traced task (one pushed before tracing started) nothing is recorded.
    buf.add(0, value({3, 3}, {}, at::kFloat, d0), producer, consumer);
    events = trace::stop();
  }
  c10::impl::setDeviceGuardImpl(c10::DeviceType::Sim, prev);
  std::vector<EventKind> seen;
  for (const auto& e : events)
    seen.push_back(e.kind);
  // First gradient: the producer records the slot's ready event. Second: the
  // accumulation (consumer) stream waits for the producer and the slot, then
  // records the slot ready again.
  EXPECT_EQ(
      seen,
      (std::vector<EventKind>{
          EventKind::StreamRecord,
          EventKind::StreamRecord,
          EventKind::StreamWait,
          EventKind::StreamWait,
          EventKind::StreamRecord}));
  ASSERT_EQ(events.size(), 5u);
  for (const auto& e : events) {
    EXPECT_EQ(e.graph_task, static_cast<uint64_t>(gt->id_));
    EXPECT_EQ(e.reentrant_depth, 2);
    EXPECT_EQ(e.task, 7u);
  }
  EXPECT_NE(events[0].detail.find("first gradient ready"), std::string::npos);
  EXPECT_NE(events[4].detail.find("slot ready after accumulation"), std::string::npos);
}

TEST(EngineTrace, ExceptionInANodeIsRecorded) {
  auto x = leaf({1});
  auto node = make_node<FnNode>(
      "Fails",
      [](variable_list&&) -> variable_list { throw std::runtime_error("node failed"); },
      collect_next_edges({x}));
  auto y = output_of(node, x);
  std::vector<Event> events;
  {
    Recording rec;
    EXPECT_THROW(run_backward({y}, {value({1})}), std::runtime_error);
    events = trace::stop();
  }
  auto exc = of(events, EventKind::Exception);
  ASSERT_EQ(exc.size(), 1u);
  EXPECT_EQ(exc[0].node, "Fails");
  EXPECT_EQ(exc[0].detail, "node failed");
  auto ends = of(events, EventKind::TaskEnd);
  ASSERT_EQ(ends.size(), 1u);
  EXPECT_EQ(ends[0].detail, "error");
  auto gt_end = of(events, EventKind::GraphTaskEnd);
  ASSERT_EQ(gt_end.size(), 1u);
  EXPECT_EQ(gt_end[0].detail, "error");
}

// Introspection ------------------------------------------------------------------------

TEST(EngineIntrospection, ExecutionOrderIdAndStateFromTheRootNode) {
  EXPECT_EQ(get_current_graph_task_id(), -1);
  EXPECT_TRUE(get_current_graph_task_execution_order().empty());
  EXPECT_THROW(get_current_graph_task_state(), std::runtime_error);

  // x -> A -> (B, C) -> D (the root): the root computes the order while it runs.
  auto x = leaf({1, 2});
  auto a = scaled({x}, 2, "A");
  auto b = scaled({a}, 3, "B");
  auto c = scaled({a}, 5, "C");
  std::vector<std::string> order;
  int id = -2;
  GraphTaskState state;
  auto root = make_node<FnNode>(
      "D",
      [&](variable_list&& g) {
        for (Node* n : get_current_graph_task_execution_order())
          order.push_back(n->name());
        id = get_current_graph_task_id();
        state = get_current_graph_task_state();
        return variable_list{g[0], g[0]};
      },
      collect_next_edges({b, c}));
  auto d = output_of(root, b);
  set_multithreading_enabled(false);
  std::vector<std::string> ran;
  {
    Recording rec;
    run_backward({d}, {value({1, 1})});
    for (const auto& e : of(trace::stop(), EventKind::TaskStart))
      ran.push_back(e.node);
  }
  set_multithreading_enabled(true);
  EXPECT_EQ(order, ran);
  EXPECT_EQ(order, (std::vector<std::string>{"D", "C", "B", "A", "torch::autograd::AccumulateGrad"}));
  EXPECT_GE(id, 0);
  EXPECT_EQ(state.id, id);
  ASSERT_EQ(state.nodes.size(), 5u);
  EXPECT_EQ(state.nodes[0].node.get(), root.get());
  EXPECT_EQ(state.nodes[0].status, "running");
  for (size_t i = 1; i < state.nodes.size(); ++i) {
    const auto& ns = state.nodes[i];
    EXPECT_EQ(ns.status, "waiting") << ns.node->name();
    EXPECT_EQ(ns.dependencies, ns.node->name() == "A" ? 2 : 1) << ns.node->name();
  }
  // With multithreading on, the order is refused (as torch does).
  std::string error;
  auto root2 = make_node<FnNode>(
      "E",
      [&](variable_list&& g) {
        try {
          get_current_graph_task_execution_order();
        } catch (const std::runtime_error& e) {
          error = e.what();
        }
        return variable_list{g[0]};
      },
      collect_next_edges({x}));
  run_backward({output_of(root2, x)}, {value({1, 1})});
  EXPECT_EQ(
      error.rfind(
          "get_current_graph_task_execution_order expects the current backward to be executed with "
          "multithreading disabled",
          0),
      0u);
}

TEST(EngineTrace, DeviceNodesOnTwoStreamsRecordTheConsumersWait) {
  // A ran forward on stream s1, B (its consumer in the forward) on s2: in
  // backward B produces A's gradient on s2, A runs on s1 and must wait.
  c10::Device sim0("sim:0");
  auto s1 = fake().getNewStream(sim0);
  auto s2 = fake().getNewStream(sim0);
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
  // A GraphTask made first, so the traced one's id is not 0 (an event's default).
  auto first = std::make_shared<GraphTask>(false, false, 0, std::make_shared<ReadyQueue>(), std::vector<Node*>{});
  std::vector<Event> events;
  {
    Recording rec;
    run_backward({b}, {value({1.0}, {}, at::kFloat, sim0)});
    events = trace::stop();
  }
  // Every event belongs to the one graph task, the stream events too: the
  // root's gradient, made on the default stream, is recorded ready for B's
  // stream s2 by execute (producer 0), the others by the running task.
  auto gts = of(events, EventKind::GraphTaskStart);
  ASSERT_EQ(gts.size(), 1u);
  EXPECT_GT(gts[0].graph_task, static_cast<uint64_t>(first->id_));
  for (const auto& e : events)
    EXPECT_EQ(e.graph_task, gts[0].graph_task) << trace::kind_name(e.kind) << " " << e.detail;
  auto records = of(events, EventKind::StreamRecord);
  ASSERT_FALSE(records.empty());
  EXPECT_EQ(records[0].task, 0u);
  EXPECT_EQ(records[0].detail.find("InputBuffer::add: first gradient ready"), 0u);
  uint64_t task_b = 0, task_a = 0;
  for (const auto& e : of(events, EventKind::TaskStart)) {
    EXPECT_EQ(e.queue, "device:0");
    EXPECT_EQ(e.thread_name, "device thread 0");
    if (e.node == "B")
      task_b = e.task;
    if (e.node == "A")
      task_a = e.task;
  }
  ASSERT_NE(task_b, 0u);
  ASSERT_NE(task_a, 0u);
  bool recorded = false, waited = false;
  for (const auto& e : events) {
    if (e.kind == EventKind::StreamRecord && e.task == task_b &&
        e.detail.find("InputBuffer::add: first gradient ready") == 0) {
      recorded = true;
    }
    if (e.kind == EventKind::StreamWait && e.task == task_a &&
        e.detail.find("evaluate_function: consumer waits") == 0) {
      waited = true;
    }
  }
  EXPECT_TRUE(recorded);
  EXPECT_TRUE(waited);
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{6.0}));
}
