// Several threads calling Engine::execute at once: on independent graphs,
// and on one shared graph kept with keep_graph, where AccumulateGrad
// serialises the updates of .grad.
#include "test_utils.h"

#include <gtest/gtest.h>

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
        for (int i = 0; i < 20; ++i) y = scaled({y}, 1.0);
        run_backward({y}, {value({1.0, 1.0}, {}, at::kFloat, d)});
        auto grad = at::to(x.grad(), c10::Device());
        run_backward({leaves[t]}, {grad});
      }
    });
  }
  for (auto& th : threads) th.join();
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
      for (int r = 0; r < kRepeats; ++r) run_backward({y}, {value({1.0, 1.0})}, /*keep_graph=*/true);
    });
  }
  for (auto& th : threads) th.join();
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
  for (auto& th : threads) th.join();
  for (int d : devices) EXPECT_EQ(d, CPU_DEVICE);
}
