// Errors (GraphTask::set_exception and its future, torch/csrc/autograd/engine.cpp):
// the first exception reaches the caller of execute with its type
// and message, the rest of that task is skipped, and the engine runs the next
// task normally.
#include "test_utils.h"

#include <gtest/gtest.h>

#include <atomic>

using namespace torchlite_test;

namespace {

Variable throwing(const Variable& input, std::function<void()> thrower, const std::string& name = "Thrower") {
  auto node = make_node<FnNode>(
      name,
      [thrower](variable_list&& g) {
        thrower();
        return std::move(g);
      },
      collect_next_edges({input}));
  return output_of(node, input);
}

} // namespace

TEST(Errors, ExceptionOnTheCallerThreadReachesTheCaller) {
  auto x = leaf({1.0});
  auto y = throwing(x, [] { throw std::invalid_argument("bad value in backward"); });
  EXPECT_THROW(
      {
        try {
          run_backward({y}, {value({1.0})});
        } catch (const std::invalid_argument& e) {
          EXPECT_STREQ(e.what(), "bad value in backward");
          throw;
        }
      },
      std::invalid_argument);
  EXPECT_FALSE(x.grad().defined());
}

TEST(Errors, ExceptionOnADeviceThreadReachesTheCaller) {
  c10::Device sim0("sim:0");
  auto x = leaf({1.0}, {}, at::kFloat, sim0);
  auto y = throwing(x, [] { throw std::out_of_range("thrown on a device thread"); });
  try {
    run_backward({y}, {value({1.0}, {}, at::kFloat, sim0)});
    FAIL();
  } catch (const std::out_of_range& e) {
    EXPECT_STREQ(e.what(), "thrown on a device thread");
  }
  EXPECT_EQ(get_worker_device(), NO_DEVICE);
  // The device thread is still serving.
  auto z = leaf({1.0}, {}, at::kFloat, sim0);
  run_backward({scaled({z}, 3.0)}, {value({1.0}, {}, at::kFloat, sim0)});
  EXPECT_EQ(vals(z.grad()), (std::vector<double>{3.0}));
}

TEST(Errors, RestOfTheTaskIsSkippedAfterAnError) {
  // root -> [thrower, other]; other has a lower sequence number, so it would
  // run after the thrower: the error stops it.
  auto x = leaf({1.0});
  std::atomic<int> other_runs{0};
  auto other = make_node<FnNode>(
      "Other",
      [&](variable_list&& g) {
        ++other_runs;
        return std::move(g);
      },
      collect_next_edges({x}));
  Variable o = output_of(other, x);
  auto t = throwing(x, [] { throw std::runtime_error("first"); });
  auto root = scaled({o, t}, 1.0, "Root");
  EXPECT_THROW(run_backward({root}, {value({1.0})}), std::runtime_error);
  EXPECT_EQ(other_runs.load(), 0);
}

TEST(Errors, ErrorInAHookReachesTheCaller) {
  auto x = leaf({1.0});
  register_hook(x, [](const Variable&) -> Variable { throw std::runtime_error("hook failed"); });
  try {
    run_backward({scaled({x}, 1.0)}, {value({1.0})});
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "hook failed");
  }
}

TEST(Errors, ErrorInAFinalCallbackReachesTheCaller) {
  auto x = leaf({1.0});
  auto y = scaled({x}, 1.0);
  y.grad_fn()->add_pre_hook(std::make_unique<CppFunctionPreHook>([](const variable_list& g) {
    Engine::get_default_engine().queue_callback([] { throw std::runtime_error("callback failed"); });
    return g;
  }));
  try {
    run_backward({y}, {value({1.0})});
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "callback failed");
  }
}

TEST(Errors, ManyFailuresInARowLeaveTheEngineUsable) {
  for (int i = 0; i < 50; ++i) {
    c10::Device d(i % 2 ? "sim:1" : "cpu");
    auto x = leaf({1.0}, {}, at::kFloat, d);
    auto y = throwing(x, [i] { throw std::runtime_error("failure " + std::to_string(i)); });
    try {
      run_backward({y}, {value({1.0}, {}, at::kFloat, d)});
      FAIL();
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()), "failure " + std::to_string(i));
    }
  }
  auto z = leaf({2.0});
  run_backward({scaled({z}, 2.0)}, {value({1.0})});
  EXPECT_EQ(vals(z.grad()), (std::vector<double>{2.0}));
}

TEST(Errors, ErrorNodeRaisesItsMessage) {
  auto x = leaf({1.0});
  auto node = make_node<Error>("the derivative for 'op' is not implemented", collect_next_edges({x}));
  node->add_input_metadata(x);
  Variable y = at::zeros_like(x);
  impl::set_gradient_edge(y, Edge(node, 0));
  try {
    run_backward({y}, {value({1.0})});
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "the derivative for 'op' is not implemented");
  }
}
