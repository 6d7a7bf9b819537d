// GraphTask bookkeeping: compute_dependencies (with topological pruning),
// not_ready_ accumulation, and init_to_execute's exec_info_ (needed_ and
// captures) for grad() / backward(inputs=).
#include "test_utils.h"

#include <gtest/gtest.h>

using namespace torchlite_test;

namespace {

struct ExposedEngine : public Engine {
  using Engine::compute_dependencies;
};

std::shared_ptr<GraphTask> new_task() {
  return std::make_shared<GraphTask>(false, false, 0, std::make_shared<ReadyQueue>(), std::vector<Node*>{});
}

// Diamond: x -> a, b -> c (c = a + b, a = 2x, b = 3x).
struct Diamond {
  Variable x = leaf({1.0});
  Variable a = scaled({x}, 2.0, "A");
  Variable b = scaled({x}, 3.0, "B");
  Variable c = scaled({a, b}, 1.0, "C");
};

} // namespace

TEST(GraphTask, DependenciesOfADiamond) {
  Diamond g;
  ExposedEngine engine;
  auto task = new_task();
  engine.compute_dependencies(g.c.grad_fn().get(), *task, 0);
  auto acc = impl::grad_accumulator(g.x);
  EXPECT_EQ(task->dependencies_.at(g.a.grad_fn().get()), 1);
  EXPECT_EQ(task->dependencies_.at(g.b.grad_fn().get()), 1);
  EXPECT_EQ(task->dependencies_.at(acc.get()), 2);
  EXPECT_EQ(task->dependencies_.count(g.c.grad_fn().get()), 0u);
  EXPECT_EQ(task->nodes_in_graph_.size(), 3u);
}

TEST(GraphTask, RepeatedEdgesCountEachTime) {
  // y = x * x: MulBackward has two edges to the same accumulator.
  auto x = leaf({3.0});
  auto y = scaled({x, x}, 1.0, "Square");
  ExposedEngine engine;
  auto task = new_task();
  engine.compute_dependencies(y.grad_fn().get(), *task, 0);
  EXPECT_EQ(task->dependencies_.at(impl::grad_accumulator(x).get()), 2);
  // And the engine sums both contributions.
  run_backward({y}, {value({1.0})});
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{2.0}));
}

TEST(GraphTask, TopologicalNumbersFollowLongestPath) {
  Diamond g;
  auto acc = impl::grad_accumulator(g.x);
  EXPECT_EQ(acc->topological_nr(), 0u);
  EXPECT_EQ(g.a.grad_fn()->topological_nr(), 1u);
  EXPECT_EQ(g.c.grad_fn()->topological_nr(), 2u);
  // A node that already has a parent may not change its number.
  auto y = leaf({1.0});
  EXPECT_THROW(g.a.grad_fn()->add_next_edge(impl::gradient_edge(scaled({y}, 1.0))), std::logic_error);
}

TEST(GraphTask, DependenciesPruneBranchesBelowMinTopoNr) {
  // c = C(A(x), D5(D4(D3(D2(D1(y)))))): topological numbers D_i = i, C = 6.
  // With min_topo_nr 3 (an output at D3), nodes numbered below 3 are counted
  // as reached but never expanded: no path from them can lead to the output.
  auto x = leaf({1.0});
  auto y = leaf({1.0});
  std::vector<Variable> d{y};
  for (int i = 0; i < 5; ++i)
    d.push_back(scaled({d.back()}, 1.0, "D"));
  auto a = scaled({x}, 1.0, "A");
  auto c = scaled({a, d.back()}, 1.0, "C");
  ASSERT_EQ(d[3].grad_fn()->topological_nr(), 3u);
  ExposedEngine engine;
  auto pruned = new_task();
  engine.compute_dependencies(c.grad_fn().get(), *pruned, 3);
  EXPECT_EQ(pruned->dependencies_.count(d[2].grad_fn().get()), 1u); // reached from D3
  EXPECT_EQ(pruned->dependencies_.count(d[1].grad_fn().get()), 0u); // below D2: not walked
  EXPECT_EQ(pruned->dependencies_.count(a.grad_fn().get()), 1u);
  EXPECT_EQ(pruned->dependencies_.count(impl::grad_accumulator(x).get()), 0u);
  auto full = new_task();
  engine.compute_dependencies(c.grad_fn().get(), *full, 0);
  EXPECT_EQ(full->dependencies_.count(impl::grad_accumulator(y).get()), 1u);
  EXPECT_EQ(full->dependencies_.size(), 8u); // D1..D5, A, two accumulators
}

TEST(GraphTask, NotReadyBuffersAccumulateUntilLastDependency) {
  // c = A(x) + B(x): the accumulator of x becomes ready only after both.
  Diamond g;
  std::vector<std::string> order;
  auto acc = impl::grad_accumulator(g.x);
  acc->add_pre_hook(std::make_unique<CppFunctionPreHook>([&](const variable_list& grads) {
    order.push_back("acc");
    return grads;
  }));
  g.a.grad_fn()->add_pre_hook(std::make_unique<CppFunctionPreHook>([&](const variable_list& grads) {
    order.push_back("A");
    return grads;
  }));
  g.b.grad_fn()->add_pre_hook(std::make_unique<CppFunctionPreHook>([&](const variable_list& grads) {
    order.push_back("B");
    return grads;
  }));
  run_backward({g.c}, {value({1.0})});
  ASSERT_EQ(order.size(), 3u);
  EXPECT_EQ(order.back(), "acc");
  EXPECT_EQ(vals(g.x.grad()), (std::vector<double>{5.0}));
}

TEST(GraphTask, InitToExecuteMarksOnlyNodesOnAPathToOutputs) {
  // z = C(A(x), B(y)); grad(z, [x]) needs C and A; B and y's accumulator not.
  auto x = leaf({1.0});
  auto y = leaf({1.0});
  auto a = scaled({x}, 2.0, "A");
  auto b = scaled({y}, 3.0, "B");
  auto z = scaled({a, b}, 1.0, "C");
  auto task = new_task();
  edge_list outputs{impl::gradient_edge(x)};
  task->init_to_execute(*z.grad_fn(), outputs, /*accumulate_grad=*/false, 0);
  auto& info = task->exec_info_;
  EXPECT_TRUE(info.at(z.grad_fn().get()).needed_);
  EXPECT_TRUE(info.at(a.grad_fn().get()).needed_);
  EXPECT_FALSE(info.count(b.grad_fn().get()) && info.at(b.grad_fn().get()).should_execute());
  auto acc_x = impl::grad_accumulator(x).get();
  ASSERT_TRUE(info.at(acc_x).captures_);
  EXPECT_FALSE(info.at(acc_x).needed_);
  EXPECT_EQ(info.at(acc_x).captures_->at(0).output_idx_, 0);
  EXPECT_EQ(task->captured_vars_.size(), 1u);
}

TEST(GraphTask, OutputsOnTheSamePathAreBothCaptured) {
  // x -> a -> b: grad(b, [a, x]) must walk past a's node to reach x.
  auto x = leaf({1.0});
  auto a = scaled({x}, 2.0, "A");
  auto b = scaled({a}, 3.0, "B");
  auto grads = run_grad({b}, {value({1.0})}, {a, x});
  ASSERT_EQ(grads.size(), 2u);
  EXPECT_EQ(vals(grads[0]), (std::vector<double>{3.0}));
  EXPECT_EQ(vals(grads[1]), (std::vector<double>{6.0}));
  // grad() does not accumulate into .grad.
  EXPECT_FALSE(x.grad().defined());
}

TEST(GraphTask, GradSkipsNodesOffThePath) {
  auto x = leaf({1.0});
  auto y = leaf({1.0});
  std::vector<std::string> trace;
  auto a = scaled({x}, 2.0, "A", &trace);
  auto b = scaled({y}, 3.0, "B", &trace);
  auto z = scaled({a, b}, 1.0, "C", &trace);
  auto grads = run_grad({z}, {value({1.0})}, {x});
  EXPECT_EQ(vals(grads[0]), (std::vector<double>{2.0}));
  EXPECT_EQ(trace, (std::vector<std::string>{"C", "A"}));
}

TEST(GraphTask, BackwardWithInputsAccumulatesOnlyThose) {
  // backward(inputs=[x]): needed_ set on x's accumulator, y untouched.
  auto x = leaf({1.0});
  auto y = leaf({1.0});
  auto z = scaled({x, y}, 4.0, "Z");
  edge_list roots{impl::gradient_edge(z)}, outputs{impl::gradient_edge(x)};
  Engine::get_default_engine().execute(roots, {value({1.0})}, false, false, true, outputs);
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{4.0}));
  EXPECT_FALSE(y.grad().defined());
}

TEST(GraphTask, ReachableButUnusedOutputIsUndefined) {
  // x feeds nothing on the path from z: its captured gradient stays undefined.
  auto x = leaf({1.0});
  auto y = leaf({1.0});
  auto z = scaled({y}, 2.0, "Z");
  auto grads = run_grad({z}, {value({1.0})}, {y, x});
  EXPECT_EQ(vals(grads[0]), (std::vector<double>{2.0}));
  EXPECT_FALSE(grads[1].defined());
}
