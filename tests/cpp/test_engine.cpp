// Engine scheduling from C++: single- and multi-root execution, keep_graph,
// validate_outputs, execution order, AccumulateGrad, final callbacks,
// anomaly mode's NaN check and the single-threaded switch.
#include "test_utils.h"

#include "autograd/anomaly_mode.h"
#include "autograd/functions/basic_ops.h"
#include "autograd/functions/tensor.h"
#include "autograd/generated/Functions.h"
#include "autograd/grad_mode.h"
#include "autograd/saved_variable.h"

#include <gtest/gtest.h>

#include <dirent.h>
#include <chrono>
#include <cmath>
#include <fstream>
#include <thread>

using namespace torchlite_test;

namespace {

// y = x * x with x saved, as MulBackward0 saves self and other.
struct SquareBackward : public Node {
  explicit SquareBackward(const Variable& x) : Node(collect_next_edges({x})), saved_x(x, false) {}
  std::string name() const override {
    return "SquareBackward";
  }
  variable_list apply(variable_list&& grads) override {
    auto x = saved_x.unpack();
    auto xv = vals(x);
    auto gv = vals(grads[0]);
    std::vector<double> out(xv.size());
    for (size_t i = 0; i < xv.size(); ++i)
      out[i] = 2 * xv[i] * gv[i];
    return {at::tensor(out, x.sizes(), x.dtype())};
  }
  void release_variables() override {
    saved_x.reset_data();
  }
  SavedVariable saved_x;
};

Variable square(const Variable& x) {
  auto node = make_node<SquareBackward>(x);
  std::vector<double> xv = vals(x);
  for (auto& v : xv)
    v = v * v;
  Variable out = at::tensor(xv, x.sizes(), x.dtype());
  create_gradient_edge(out, node);
  return out;
}

// A node returning a fixed list of gradients.
Variable returning(const Variable& x, variable_list grads, const std::string& name = "Fixed") {
  auto node = make_node<FnNode>(name, [grads](variable_list&&) { return grads; }, collect_next_edges({x}));
  return output_of(node, x);
}

} // namespace

TEST(Engine, SingleRootRunsWithoutGraphRoot) {
  auto x = leaf({1, 2, 3});
  auto y = scaled({x}, 3.0);
  run_backward({y}, {value({1, 1, 1})});
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{3, 3, 3}));
}

TEST(Engine, MultipleRootsGoThroughGraphRoot) {
  auto x = leaf({1.0});
  auto a = scaled({x}, 2.0, "A");
  auto b = scaled({x}, 5.0, "B");
  std::vector<std::string> seen;
  // The GraphRoot is the parent of both roots; their pre-hooks see the root grads.
  a.grad_fn()->add_pre_hook(std::make_unique<CppFunctionPreHook>([&](const variable_list& g) {
    seen.push_back("A");
    return g;
  }));
  run_backward({a, b}, {value({1.0}), value({10.0})});
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{52.0}));
  EXPECT_EQ(seen.size(), 1u);
}

TEST(Engine, LeafRootAccumulatesDirectly) {
  auto x = leaf({1, 2});
  run_backward({x}, {value({5, 6})});
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{5, 6}));
}

TEST(Engine, KeepGraphFalseReleasesSavedVariables) {
  auto x = leaf({3.0});
  auto y = square(x);
  run_backward({y}, {value({1.0})});
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{6.0}));
  auto* node = static_cast<SquareBackward*>(y.grad_fn().get());
  EXPECT_TRUE(node->saved_x.has_been_released());
  try {
    run_backward({y}, {value({1.0})});
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("Trying to backward through the graph a second time"), std::string::npos);
  }
}

TEST(Engine, KeepGraphTrueAllowsASecondBackward) {
  auto x = leaf({3.0});
  auto y = square(x);
  run_backward({y}, {value({1.0})}, /*keep_graph=*/true);
  run_backward({y}, {value({1.0})}, /*keep_graph=*/true);
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{12.0}));
}

TEST(Engine, ExecutionFollowsSequenceNumbersAcrossIndependentBranches) {
  // Two branches from one root; the branch created later runs first.
  auto x = leaf({1.0});
  std::vector<std::string> trace;
  auto a = scaled({x}, 1.0, "first", &trace);
  auto b = scaled({x}, 1.0, "second", &trace);
  auto c = scaled({a, b}, 1.0, "root", &trace);
  run_backward({c}, {value({1.0})});
  EXPECT_EQ(trace, (std::vector<std::string>{"root", "second", "first"}));
}

TEST(Engine, ValidateOutputsRejectsWrongGradientCount) {
  auto x = leaf({1.0});
  auto y = returning(x, {value({1.0}), value({1.0})}, "TwoGrads");
  try {
    run_backward({y}, {value({1.0})});
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "Function TwoGrads returned an invalid number of gradients - expected 1, but got 2");
  }
}

TEST(Engine, ValidateOutputsSumsBroadcastGradients) {
  auto x = leaf({1, 2, 3});
  auto y = returning(x, {value({1, 2, 3, 4, 5, 6}, {2, 3})});
  run_backward({y}, {value({0, 0, 0})});
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{5, 7, 9}));
}

TEST(Engine, ValidateOutputsRejectsIncompatibleShape) {
  auto x = leaf({1, 2, 3, 4, 5, 6}, {2, 3});
  auto y = returning(x, {value({1, 2})}, "MulBackward0");
  try {
    run_backward({y}, {at::zeros({2, 3})});
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(
        e.what(),
        "Function MulBackward0 returned an invalid gradient at index 0 - got [2] but "
        "expected shape compatible with [2, 3]");
  }
}

TEST(Engine, ValidateOutputsConvertsDtype) {
  auto x = leaf({1, 2}, {}, at::kDouble);
  auto y = returning(x, {value({1, 2}, {}, at::kFloat)});
  run_backward({y}, {value({0, 0}, {}, at::kDouble)});
  EXPECT_EQ(x.grad().dtype(), at::kDouble);
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{1, 2}));
}

TEST(Engine, ValidateOutputsRejectsWrongDevice) {
  auto x = leaf({1, 2});
  auto y = returning(x, {value({1, 2}, {}, at::kFloat, c10::Device("sim:0"))}, "Moved");
  try {
    run_backward({y}, {value({0, 0})});
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(
        e.what(), "Function Moved returned an invalid gradient at index 0 - expected device cpu but got sim:0");
  }
}

TEST(Engine, RootGradientShapeIsValidated) {
  auto x = leaf({1, 2});
  auto y = scaled({x}, 1.0);
  EXPECT_THROW(run_backward({y}, {value({1, 2, 3})}), std::runtime_error);
}

TEST(AccumulateGrad, StealsAUniquelyHeldGradient) {
  // The node makes a fresh gradient that nobody else holds: .grad takes it
  // without a copy.
  auto x = leaf({1, 2});
  void* produced = nullptr;
  auto node = make_node<FnNode>(
      "Fresh",
      [&produced](variable_list&&) {
        Variable g = value({7, 8});
        produced = g.data_ptr();
        return variable_list{g};
      },
      collect_next_edges({x}));
  Variable y = output_of(node, x);
  run_backward({y}, {value({1, 1})});
  EXPECT_EQ(x.grad().data_ptr(), produced);
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{7, 8}));
}

namespace {
// A 2x2 leaf stored column-major (strides {1, 2}): dense, not contiguous.
Variable transposed_leaf() {
  return make_variable(at::clone_strided(value({1, 2, 3, 4}, {2, 2}), {1, 2}), /*requires_grad=*/true);
}
// y = node(x), where the node returns what `make` gives, recording its data.
Variable producing(const Variable& x, std::function<Variable()> make, void** produced) {
  auto node = make_node<FnNode>(
      "Fresh",
      [make, produced](variable_list&&) {
        Variable g = make();
        *produced = g.data_ptr();
        return variable_list{g};
      },
      collect_next_edges({x}));
  return output_of(node, x);
}
} // namespace

TEST(AccumulateGrad, StealsAGradientThatObeysTheLayoutContract) {
  // The incoming gradient has the leaf's (column-major) strides: stolen.
  auto x = transposed_leaf();
  void* produced = nullptr;
  auto y = producing(x, [] { return at::clone_strided(value({5, 6, 7, 8}, {2, 2}), {1, 2}); }, &produced);
  run_backward({y}, {value({1, 1, 1, 1}, {2, 2})});
  EXPECT_EQ(x.grad().data_ptr(), produced);
  EXPECT_EQ(x.grad().strides(), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{5, 6, 7, 8}));
}

TEST(AccumulateGrad, CopiesAGradientIntoTheLeafsLayout) {
  // A contiguous gradient for a column-major leaf does not obey the
  // contract: .grad is a copy with the leaf's strides.
  auto x = transposed_leaf();
  void* produced = nullptr;
  auto y = producing(x, [] { return value({5, 6, 7, 8}, {2, 2}); }, &produced);
  run_backward({y}, {value({1, 1, 1, 1}, {2, 2})});
  EXPECT_NE(x.grad().data_ptr(), produced);
  EXPECT_EQ(x.grad().strides(), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{5, 6, 7, 8}));
}

TEST(AccumulateGrad, UpdatesANonContiguousGradInPlace) {
  auto x = leaf({1, 2, 3, 4}, {2, 2});
  x.mutable_grad() = at::clone_strided(value({0, 0, 0, 0}, {2, 2}), {1, 2});
  auto first = x.grad();
  run_backward({x}, {value({1, 2, 3, 4}, {2, 2})});
  EXPECT_TRUE(x.grad().is_same(first));
  EXPECT_EQ(x.grad().strides(), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{1, 2, 3, 4}));
}

TEST(AccumulateGrad, PostAccumulateHookRunsUnderTheNodesMutex) {
  // Upstream runs the hook while holding the node's mutex, so hooks of
  // concurrent backwards never interleave with another thread's update.
  auto x = leaf({1});
  auto acc = impl::grad_accumulator(x);
  bool locked_during_hook = false;
  impl::post_acc_grad_hooks(x) = std::make_unique<CppPostAccumulateGradHook>([&](const Variable&) {
    // Asked from another thread: try_lock by the owner itself is undefined.
    std::thread([&] {
      locked_during_hook = !acc->mutex().try_lock();
      if (!locked_during_hook)
        acc->mutex().unlock();
    }).join();
  });
  run_backward({x}, {value({1})});
  EXPECT_TRUE(locked_during_hook);
}

TEST(AccumulateGrad, CopiesAGradientSomeoneElseHolds) {
  auto x = leaf({1, 2});
  auto g = value({7, 8});
  run_backward({x}, {g});
  EXPECT_NE(x.grad().data_ptr(), g.data_ptr());
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{7, 8}));
}

TEST(AccumulateGrad, AccumulatesInPlaceIntoExistingGrad) {
  auto x = leaf({1, 2});
  run_backward({x}, {value({1, 1})});
  auto first = x.grad();
  run_backward({x}, {value({2, 2})});
  EXPECT_TRUE(x.grad().is_same(first)); // same tensor, updated in place
  EXPECT_EQ(vals(first), (std::vector<double>{3, 3}));
}

TEST(AccumulateGrad, CreateGraphMakesANewDifferentiableSum) {
  auto x = leaf({1, 2});
  run_backward({x}, {value({1, 1})});
  auto first = x.grad();
  // An identity node passes the root gradient (which has history) to x.
  auto node = make_node<FnNode>("Pass", [](variable_list&& g) { return std::move(g); }, collect_next_edges({x}));
  Variable y = output_of(node, x);
  auto w = leaf({5, 5});
  auto g = scaled({w}, 1.0);
  // Under create_graph .grad becomes a new tensor with history; the old one
  // is left as it was.
  run_backward({y}, {g}, false, /*create_graph=*/true);
  EXPECT_FALSE(x.grad().is_same(first));
  EXPECT_EQ(vals(first), (std::vector<double>{1, 1}));
  ASSERT_TRUE(x.grad().grad_fn());
  EXPECT_EQ(x.grad().grad_fn()->name(), "AddBackward0");
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{1, 1}));
}

TEST(AccumulateGrad, PostAccumulateGradHookSeesTheNewGrad) {
  auto x = leaf({1, 2});
  std::vector<double> seen;
  impl::post_acc_grad_hooks(x) =
      std::make_unique<CppPostAccumulateGradHook>([&](const Variable& t) { seen = vals(t.grad()); });
  run_backward({scaled({x}, 2.0)}, {value({1, 1})});
  EXPECT_EQ(seen, (std::vector<double>{2, 2}));
}

TEST(FinalCallbacks, RunAfterTheGraphBeforeExecuteReturns) {
  auto x = leaf({1.0});
  std::vector<std::string> events;
  auto y = returning(x, {value({1.0})}, "Root");
  y.grad_fn()->add_pre_hook(std::make_unique<CppFunctionPreHook>([&](const variable_list& g) {
    Engine::get_default_engine().queue_callback([&] {
      events.push_back("callback");
      // .grad is written before callbacks run.
      EXPECT_TRUE(x.grad().defined());
      // A callback may queue another one.
      Engine::get_default_engine().queue_callback([&] { events.push_back("nested"); });
    });
    events.push_back("node");
    return g;
  }));
  run_backward({y}, {value({1.0})});
  EXPECT_EQ(events, (std::vector<std::string>{"node", "callback", "nested"}));
}

TEST(FinalCallbacks, OnlyDuringBackward) {
  try {
    Engine::get_default_engine().queue_callback([] {});
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "Final callbacks can only be installed during backward pass.");
  }
}

TEST(AnomalyMode, NanGradientNamesFunctionAndIndex) {
  DetectAnomalyGuard anomaly;
  auto x = leaf({1.0});
  auto y = returning(x, {value({std::nan("")})}, "DivBackward0");
  try {
    run_backward({y}, {value({1.0})});
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "Function 'DivBackward0' returned nan values in its 0th output.");
  }
}

TEST(AnomalyMode, NodesRecordTheirParentDuringBackward) {
  DetectAnomalyGuard anomaly;
  auto x = leaf({1.0});
  std::shared_ptr<Node> child;
  auto y = returning(x, {value({1.0})}, "Parent");
  auto* parent = y.grad_fn().get();
  y.grad_fn()->add_pre_hook(std::make_unique<CppFunctionPreHook>([&](const variable_list& g) {
    child = make_node<Identity>();
    return g;
  }));
  run_backward({y}, {value({1.0})});
  ASSERT_TRUE(child);
  EXPECT_EQ(child->metadata()->parent_.lock().get(), parent);
}

TEST(AnomalyMode, OffByDefaultSoNanPasses) {
  auto x = leaf({1.0});
  auto y = returning(x, {value({std::nan("")})});
  run_backward({y}, {value({1.0})});
  EXPECT_TRUE(std::isnan(vals(x.grad())[0]));
}

TEST(Multithreading, DisabledRunsDeviceNodesOnTheCallingThread) {
  auto x = leaf({1, 2}, {}, at::kFloat, c10::Device("sim:1"));
  int seen_device = 123;
  auto y = returning(x, {value({1, 1}, {}, at::kFloat, c10::Device("sim:1"))}, "OnSim");
  y.grad_fn()->add_pre_hook(std::make_unique<CppFunctionPreHook>([&](const variable_list& g) {
    seen_device = get_worker_device();
    return g;
  }));
  {
    MultithreadingEnabledGuard off(false);
    run_backward({y}, {value({1, 1}, {}, at::kFloat, c10::Device("sim:1"))}, true);
  }
  EXPECT_EQ(seen_device, CPU_DEVICE);
  run_backward({y}, {value({1, 1}, {}, at::kFloat, c10::Device("sim:1"))}, true);
  EXPECT_EQ(seen_device, 1);
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{2, 2}));
}

TEST(Engine, WorkerDeviceIsResetAfterBackward) {
  EXPECT_EQ(get_worker_device(), NO_DEVICE);
  auto x = leaf({1.0});
  int inside = 0;
  auto y = returning(x, {value({1.0})});
  y.grad_fn()->add_pre_hook(std::make_unique<CppFunctionPreHook>([&](const variable_list& g) {
    inside = get_worker_device();
    return g;
  }));
  run_backward({y}, {value({1.0})});
  EXPECT_EQ(inside, CPU_DEVICE);
  EXPECT_EQ(get_worker_device(), NO_DEVICE);
}

namespace {
// Threads of this process whose name starts with `prefix` (from /proc).
int threads_named(const std::string& prefix) {
  int n = 0;
  DIR* dir = opendir("/proc/self/task");
  if (!dir)
    return -1;
  while (auto* entry = readdir(dir)) {
    if (entry->d_name[0] == '.')
      continue;
    std::ifstream comm(std::string("/proc/self/task/") + entry->d_name + "/comm");
    std::string name;
    std::getline(comm, name);
    n += name.rfind(prefix, 0) == 0;
  }
  closedir(dir);
  return n;
}
} // namespace

TEST(Engine, DestroyingAnEngineStopsItsDeviceThreads) {
  const int before = threads_named("tl_autograd_");
  {
    Engine engine;
    auto x = leaf({1.0}, {}, at::kFloat, c10::Device("sim:1"));
    auto y = scaled({x}, 2.0);
    engine.execute({impl::gradient_edge(y)}, {value({1.0}, {}, at::kFloat, c10::Device("sim:1"))}, false, false, true);
    EXPECT_EQ(vals(x.grad()), (std::vector<double>{2.0}));
    EXPECT_EQ(engine.num_device_threads(), 2u);
    EXPECT_EQ(threads_named("tl_autograd_"), before + 2);
  }
  // ~Engine pushed shutdown tasks and waited for its threads to leave
  // thread_main; the OS reaps them right after (polled, bounded).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (threads_named("tl_autograd_") != before && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  EXPECT_EQ(threads_named("tl_autograd_"), before);
}

TEST(AccumulateGrad, CreateGraphCopiesIntoADifferentiableGrad) {
  auto x = leaf({1, 2});
  auto node = make_node<FnNode>("Pass", [](variable_list&& g) { return std::move(g); }, collect_next_edges({x}));
  Variable y = output_of(node, x);
  auto w = leaf({5, 5});
  auto g = scaled({w}, 1.0);
  run_backward({y}, {g}, false, /*create_graph=*/true);
  // A copy (other leaves may receive the same gradient), with history.
  EXPECT_NE(x.grad().data_ptr(), g.data_ptr());
  ASSERT_TRUE(x.grad().grad_fn());
  EXPECT_EQ(x.grad().grad_fn()->name(), "torch::autograd::CopyBackwards");
}

TEST(AccumulateGrad, NeverStealsForeignMemory) {
  // A gradient over memory someone else owns (a numpy array, here a vector)
  // is copied even when the tensor handle itself is unique.
  auto x = leaf({1, 2});
  auto data = std::make_shared<std::vector<float>>(std::vector<float>{7, 8});
  auto node = make_node<FnNode>(
      "Foreign",
      [data](variable_list&&) {
        return variable_list{at::from_blob(data->data(), {2}, {1}, at::kFloat, c10::Device(), data, 8)};
      },
      collect_next_edges({x}));
  Variable y = output_of(node, x);
  run_backward({y}, {value({1, 1})}, /*keep_graph=*/true);
  EXPECT_NE(x.grad().data_ptr(), static_cast<void*>(data->data()));
  run_backward({y}, {value({1, 1})});
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{14, 16}));
  EXPECT_EQ((*data)[0], 7.0f);
}

// copy_'s node without Python: CopyBackwards casts the gradient back to src's
// dtype with the core's recorded `to`, so under create_graph src's gradient has
// ToCopyBackward0 as its history and differentiates again, back to the float64
// gradient it came from (upstream's grad.to(src_options) through the dispatcher).
TEST(CopyBackwards, DtypeChangingCopyIsDifferentiableUnderCreateGraph) {
  auto src = leaf({1, 2}, {}, at::kFloat);
  auto node = make_node<CopyBackwards>(edge_list{Edge(), impl::gradient_edge(src)}, at::kFloat, c10::Device());
  Variable y = output_of(node, at::zeros({2}, at::kDouble, c10::Device()));
  auto w = leaf({3, 4}, {}, at::kDouble);
  run_backward({y}, {w}, false, /*create_graph=*/true);
  ASSERT_TRUE(src.grad().defined());
  EXPECT_EQ(src.grad().scalar_type(), at::kFloat);
  EXPECT_EQ(vals(src.grad()), (std::vector<double>{3, 4}));
  // AccumulateGrad copies under create_graph (the grad-layout contract's own CopyBackwards),
  // from the cast's result
  ASSERT_TRUE(src.grad().grad_fn());
  EXPECT_EQ(src.grad().grad_fn()->name(), "torch::autograd::CopyBackwards");
  const auto& cast = src.grad().grad_fn()->next_edge(1).function;
  ASSERT_TRUE(cast);
  EXPECT_EQ(cast->name(), "ToCopyBackward0");
  // d(src.grad)/dw through both copies and the cast back: ones, in w's dtype
  run_backward({src.grad()}, {value({1, 1}, {}, at::kFloat)});
  ASSERT_TRUE(w.grad().defined());
  EXPECT_EQ(w.grad().scalar_type(), at::kDouble);
  EXPECT_EQ(vals(w.grad()), (std::vector<double>{1, 1}));
}

TEST(CopyBackwards, SelfGetsZerosAndFirstOrderRecordsNothing) {
  auto self = leaf({5, 6}, {}, at::kDouble);
  auto src = leaf({1, 2}, {}, at::kFloat);
  auto node = make_node<CopyBackwards>(collect_next_edges({self, src}), at::kFloat, c10::Device());
  Variable y = output_of(node, self);
  run_backward({y}, {value({3, 4}, {}, at::kDouble)});
  EXPECT_EQ(vals(self.grad()), (std::vector<double>{0, 0}));
  EXPECT_EQ(self.grad().scalar_type(), at::kDouble);
  EXPECT_EQ(vals(src.grad()), (std::vector<double>{3, 4}));
  EXPECT_EQ(src.grad().scalar_type(), at::kFloat);
  EXPECT_FALSE(src.grad().grad_fn());
}

// The core's cast: the tensor itself where nothing changes, a copy otherwise,
// with a node only under grad mode for a tensor that requires grad.
TEST(CopyBackwards, CoreCastRecordsOnlyUnderGradMode) {
  auto x = leaf({1, 2}, {}, at::kFloat);
  Variable same = torch::autograd::to(x, at::kFloat, c10::Device());
  EXPECT_EQ(same.data_ptr(), x.data_ptr());
  Variable y = torch::autograd::to(x, at::kDouble, c10::Device());
  ASSERT_TRUE(y.grad_fn());
  EXPECT_EQ(y.grad_fn()->name(), "ToCopyBackward0");
  EXPECT_EQ(y.scalar_type(), at::kDouble);
  Variable moved = torch::autograd::to(x, at::kFloat, c10::Device("sim:1"));
  EXPECT_EQ(moved.device(), c10::Device("sim:1"));
  ASSERT_TRUE(moved.grad_fn());
  run_backward({moved}, {value({2, 3}, {}, at::kFloat, c10::Device("sim:1"))});
  EXPECT_EQ(x.grad().device(), c10::Device());
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{2, 3}));
  {
    NoGradGuard no_grad;
    EXPECT_FALSE(torch::autograd::to(x, at::kDouble, c10::Device()).grad_fn());
  }
}
