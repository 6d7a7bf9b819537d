// Several threads calling Engine::execute at once: on independent graphs,
// and on one shared graph kept with keep_graph, where AccumulateGrad
// serialises the updates of .grad.
#include "test_utils.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

using namespace torchlite_test;

namespace {
constexpr int kThreads = 8;
constexpr int kRepeats = 50;
} // namespace

TEST(Concurrency, IndependentGraphsFromEightThreads) {
  std::vector<Variable> leaves(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &leaves] {
      leaves[t] = leaf({1.0, 1.0});
      for (int r = 0; r < kRepeats; ++r) {
        // Half the graphs pass through device workers.
        c10::Device d(t % 2 ? "sim:1" : "cpu");
        auto x = leaf({1.0, 1.0}, {}, at::kFloat, d);
        Variable y = x;
        for (int i = 0; i < 20; ++i)
          y = scaled({y}, 1.0);
        run_backward({y}, {value({1.0, 1.0}, {}, at::kFloat, d)});
        auto grad = at::to(x.grad(), c10::Device());
        run_backward({leaves[t]}, {grad});
      }
    });
  }
  for (auto& th : threads)
    th.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(vals(leaves[t].grad()), (std::vector<double>{kRepeats, kRepeats}));
  }
}

TEST(Concurrency, SharedGraphWithKeepGraphFromEightThreads) {
  auto x = leaf({1.0, 2.0});
  auto a = scaled({x}, 2.0);
  auto b = scaled({x}, 3.0);
  auto y = scaled({a, b}, 1.0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int r = 0; r < kRepeats; ++r)
        run_backward({y}, {value({1.0, 1.0})}, /*keep_graph=*/true);
    });
  }
  for (auto& th : threads)
    th.join();
  const double expected = 5.0 * kThreads * kRepeats;
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{expected, expected}));
}

TEST(Concurrency, ThreadsGetTheirOwnReadyQueues) {
  // Each user thread drives its own task as CPU_DEVICE, concurrently.
  std::vector<int> devices(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &devices] {
      auto x = leaf({1.0});
      auto y = scaled({x}, 1.0);
      y.grad_fn()->add_pre_hook(std::make_unique<CppFunctionPreHook>([&devices, t](const variable_list& g) {
        devices[t] = get_worker_device();
        return g;
      }));
      run_backward({y}, {value({1.0})});
    });
  }
  for (auto& th : threads)
    th.join();
  for (int d : devices)
    EXPECT_EQ(d, CPU_DEVICE);
}

TEST(Concurrency, HooksAddedWhileTheEngineRunsTheNode) {
  // Note [Hook lists and threads]: one thread keeps adding and removing hooks
  // on a node that backward runs on a device thread meanwhile (a data race
  // on the hook vectors before; ThreadSanitizer checks this test). Every
  // hook added is a pass-through, so the gradients stay exact.
  const c10::Device sim("sim:1");
  auto x = leaf({1.0}, {}, at::kFloat, sim);
  auto y = scaled({x}, 2.0);
  auto fn = y.grad_fn();
  std::atomic<bool> done{false};
  std::atomic<int> calls{0};
  std::thread adder([&] {
    for (int i = 0; i < 200; ++i) {
      fn->add_pre_hook(std::make_unique<CppFunctionPreHook>([&](const variable_list& g) {
        ++calls;
        return g;
      }));
      fn->add_tensor_pre_hook(std::make_unique<CppFunctionPreHook>([&](const variable_list& g) {
        ++calls;
        return g;
      }));
      auto key =
          fn->add_post_hook(std::make_unique<CppFunctionPostHook>([&](const variable_list& out, const variable_list&) {
            ++calls;
            return out;
          }));
      if (i % 2)
        fn->del_post_hook(key);
    }
    done = true;
  });
  int runs = 0;
  while (!done.load() || runs < 20) {
    run_backward({y}, {value({1.0}, {}, at::kFloat, sim)}, /*keep_graph=*/true);
    ++runs;
  }
  adder.join();
  EXPECT_EQ(vals(at::to(x.grad(), c10::Device())), (std::vector<double>{2.0 * runs}));
  const auto hooks = fn->hooks();
  ASSERT_TRUE(hooks);
  EXPECT_EQ(hooks->pre_hooks.size(), 200u);
  EXPECT_EQ(hooks->tensor_pre_hooks.size(), 200u);
  EXPECT_EQ(hooks->post_hooks.size(), 100u);
  EXPECT_GT(calls.load(), 0);
}
