// Hooks: tensor hooks, node pre-hooks, post-hooks, retains-grad hooks and
// post-accumulate-grad hooks; their order and their power to replace gradients.
#include "test_utils.h"

#include <gtest/gtest.h>

using namespace torchlite_test;

TEST(Hooks, OrderAroundANode) {
  auto x = leaf({1.0});
  std::vector<std::string> order;
  auto y = scaled({x}, 2.0, "Node", nullptr);
  auto z = scaled({y}, 1.0, "Root");
  auto* fn = y.grad_fn().get();
  fn->add_pre_hook(std::make_unique<CppFunctionPreHook>([&](const variable_list& g) {
    order.push_back("pre");
    return g;
  }));
  fn->add_post_hook(std::make_unique<CppFunctionPostHook>([&](const variable_list& out, const variable_list& in) {
    order.push_back("post");
    return out;
  }));
  y.retain_grad();
  register_hook(y, [&](const Variable& g) {
    order.push_back("tensor");
    return Variable();
  });
  run_backward({z}, {value({1.0})});
  // Tensor hooks, then the retains-grad hook (it stores .grad), then the node.
  EXPECT_EQ(order, (std::vector<std::string>{"tensor", "pre", "post"}));
  EXPECT_EQ(vals(y.grad()), (std::vector<double>{1.0}));
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{2.0}));
}

TEST(Hooks, TensorHookReplacesGradientAndRetainedGradSeesIt) {
  auto x = leaf({1.0});
  auto y = scaled({x}, 2.0);
  auto z = scaled({y}, 1.0);
  y.retain_grad();
  register_hook(y, [](const Variable& g) { return at::mul(g, 10.0); });
  run_backward({z}, {value({1.0})});
  // retain_grad runs after tensor hooks, so it records the replaced value.
  EXPECT_EQ(vals(y.grad()), (std::vector<double>{10.0}));
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{20.0}));
}

TEST(Hooks, HooksRunInRegistrationOrder) {
  auto x = leaf({1.0});
  auto y = scaled({x}, 1.0);
  register_hook(x, [](const Variable& g) { return at::add(g, value({1.0})); });
  register_hook(x, [](const Variable& g) { return at::mul(g, 3.0); });
  run_backward({y}, {value({1.0})});
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{6.0})); // (1 + 1) * 3
}

TEST(Hooks, LeafHookRegisteredBeforeAccumulatorExists) {
  auto x = leaf({1.0});
  ASSERT_EQ(impl::try_get_grad_accumulator(x), nullptr);
  register_hook(x, [](const Variable& g) { return at::mul(g, 4.0); });
  run_backward({scaled({x}, 1.0)}, {value({1.0})});
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{4.0}));
}

TEST(Hooks, RemovedHookNoLongerRuns) {
  auto x = leaf({1.0});
  auto h = register_hook(x, [](const Variable& g) { return at::mul(g, 4.0); });
  remove_hook(x, h);
  run_backward({scaled({x}, 1.0)}, {value({1.0})});
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{1.0}));
  EXPECT_THROW(remove_hook(x, h), std::runtime_error);
}

TEST(Hooks, HookOnTensorWithoutGradIsAnError) {
  auto t = value({1.0});
  try {
    register_hook(t, [](const Variable& g) { return g; });
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "cannot register a hook on a tensor that doesn't require gradient");
  }
}

TEST(Hooks, PreHookReplacesNodeInputs) {
  auto x = leaf({1.0});
  auto y = scaled({x}, 2.0);
  y.grad_fn()->add_pre_hook(
      std::make_unique<CppFunctionPreHook>([](const variable_list&) { return variable_list{value({100.0})}; }));
  run_backward({y}, {value({1.0})});
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{200.0}));
}

TEST(Hooks, PostHookSeesInputsAndReplacesOutputs) {
  auto x = leaf({1.0});
  auto y = scaled({x}, 2.0);
  std::vector<double> seen_in, seen_out;
  auto key = y.grad_fn()->add_post_hook(
      std::make_unique<CppFunctionPostHook>([&](const variable_list& out, const variable_list& in) {
        seen_in = vals(in[0]);
        seen_out = vals(out[0]);
        return variable_list{value({-1.0})};
      }));
  run_backward({y}, {value({3.0})}, /*keep_graph=*/true);
  EXPECT_EQ(seen_in, (std::vector<double>{3.0}));
  EXPECT_EQ(seen_out, (std::vector<double>{6.0}));
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{-1.0}));
  EXPECT_TRUE(y.grad_fn()->del_post_hook(key));
  run_backward({y}, {value({3.0})});
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{5.0}));
}

TEST(Hooks, RetainGradAccumulatesAcrossBackwards) {
  auto x = leaf({1.0});
  auto y = scaled({x}, 2.0);
  auto z = scaled({y}, 3.0);
  y.retain_grad();
  y.retain_grad(); // idempotent
  EXPECT_TRUE(y.retains_grad());
  run_backward({z}, {value({1.0})}, true);
  run_backward({z}, {value({1.0})});
  EXPECT_EQ(vals(y.grad()), (std::vector<double>{6.0}));
  EXPECT_EQ(y.grad_fn()->hooks()->retains_grad_hooks.size(), 1u);
}

TEST(Hooks, RetainGradOnTensorWithoutGradIsAnError) {
  EXPECT_THROW(value({1.0}).retain_grad(), std::runtime_error);
}

TEST(Hooks, GradCaptureHookReplacesCapturedGradient) {
  // grad() captures go through the capture's hooks (GradCaptureHook).
  struct Double : GraphTask::ExecInfo::Capture::GradCaptureHook {
    at::Tensor operator()(const at::Tensor& g) override {
      return at::mul(g, 2.0);
    }
  };
  auto x = leaf({1.0});
  auto y = scaled({x}, 3.0);
  struct ExposedEngine : Engine {
    using Engine::compute_dependencies;
  } engine;
  auto task = std::make_shared<GraphTask>(
      false, false, 0, engine.init_local_ready_queue(), std::vector<Node*>{y.grad_fn().get()});
  edge_list outputs{impl::gradient_edge(x)};
  engine.compute_dependencies(y.grad_fn().get(), *task, 0);
  task->init_to_execute(*y.grad_fn(), outputs, false, 0);
  auto& capture = task->exec_info_.at(impl::grad_accumulator(x).get()).captures_->at(0);
  capture.hooks_.push_back(std::make_unique<Double>());
  InputBuffer buf(1);
  buf.add(0, value({1.0}), std::nullopt, std::nullopt);
  auto fut = engine.execute_with_graph_task(task, y.grad_fn(), std::move(buf));
  fut->wait();
  auto result = fut->value();
  EXPECT_EQ(vals(result[0]), (std::vector<double>{6.0}));
}
