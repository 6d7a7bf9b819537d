// The C++ first-order formulas (Note [GIL-free formulas]) through the nodes
// generated from tools/autograd/derivatives.yaml: each gives the gradient its
// Python formula gives, and declines the cases it does not cover.
#include "test_utils.h"

#include "autograd/FunctionsManual.h"
#include "autograd/generated/NativeFormulas.h"

#include <gtest/gtest.h>

using namespace torchlite_test;
namespace generated = torch::autograd::generated;
using generated::details::native_inputs_supported;

namespace {
// Runs a node's formula on a gradient the caller keeps using (so it is not reused).
template <typename F, typename... Saved>
variable_list run(const F& formula, const Variable& g, std::vector<bool> needs, const Saved&... saved) {
  const Variable caller_reference = g;
  variable_list out(needs.size());
  EXPECT_TRUE(formula.apply(g, saved..., needs, out));
  return out;
}

Variable wrapped_number(double v) {
  auto t = at::full({}, v, at::kFloat, c10::Device());
  t.unsafeGetTensorImpl()->set_wrapped_number(true);
  return t;
}
} // namespace

TEST(FunctionsManual, AddAndSubScaleByAlpha) {
  auto g = value({1, 2});
  generated::AddBackward0Native add;
  add.alpha = 3.0;
  auto a = run(add, g, {true, true});
  EXPECT_TRUE(a[0].is_same(g));
  EXPECT_EQ(vals(a[1]), (std::vector<double>{3, 6}));
  generated::SubBackward0Native sub;
  sub.alpha = 3.0;
  EXPECT_EQ(vals(run(sub, g, {true, true})[1]), (std::vector<double>{-3, -6}));
  auto only_second = run(add, g, {false, true});
  EXPECT_FALSE(only_second[0].defined());
}

TEST(FunctionsManual, MulBroadcastsTheOtherOperand) {
  // a: [2, 3], b: [3]; grad has the output's shape [2, 3].
  auto out =
      run(generated::MulBackward0Native{},
          value({1, 1, 1, 2, 2, 2}, {2, 3}),
          {true, true},
          value({1, 2, 3, 4, 5, 6}, {2, 3}),
          value({10, 20, 30}));
  EXPECT_EQ(vals(out[0]), (std::vector<double>{10, 20, 30, 20, 40, 60}));
  EXPECT_EQ(vals(out[1]), (std::vector<double>{1, 2, 3, 8, 10, 12})); // summed by validate_outputs
}

TEST(FunctionsManual, WrappedNumbersAndNeg) {
  auto g = value({1, 2, 4});
  EXPECT_EQ(
      vals(run(generated::MulBackward0Native{}, g, {true, false}, Variable(), wrapped_number(4.0))[0]),
      (std::vector<double>{4, 8, 16}));
  EXPECT_EQ(
      vals(run(generated::DivBackward0Native{}, g, {true, false}, Variable(), wrapped_number(4.0))[0]),
      (std::vector<double>{0.25, 0.5, 1}));
  EXPECT_EQ(vals(run(generated::NegBackward0Native{}, g, {true})[0]), (std::vector<double>{-1, -2, -4}));
}

TEST(FunctionsManual, PointwiseFormulasUseTheSavedResult) {
  auto g = value({1, 2}, {}, at::kDouble);
  auto y = value({0.5, -0.25}, {}, at::kDouble);
  EXPECT_EQ(vals(run(generated::ExpBackward0Native{}, g, {true}, y)[0]), (std::vector<double>{0.5, -0.5}));
  EXPECT_EQ(
      vals(run(generated::TanhBackward0Native{}, g, {true}, y)[0]), (std::vector<double>{0.75, 2 * (1 - 0.0625)}));
  EXPECT_EQ(
      vals(run(generated::SigmoidBackward0Native{}, g, {true}, y)[0]), (std::vector<double>{0.25, 2 * (-0.25 * 1.25)}));
  EXPECT_EQ(vals(run(generated::ReluBackward0Native{}, g, {true}, y)[0]), (std::vector<double>{1, 0}));
}

TEST(FunctionsManual, SumAndMeanExpandTheGradient) {
  generated::SumBackward0Native sum;
  sum.self_sym_sizes = {2, 2};
  EXPECT_EQ(vals(run(sum, value({3}), {true})[0]), (std::vector<double>{3, 3, 3, 3}));
  generated::MeanBackward0Native mean;
  mean.self_sym_sizes = {2, 2};
  mean.self_sym_numel = 4;
  EXPECT_EQ(vals(run(mean, value({2}), {true})[0]), (std::vector<double>{0.5, 0.5, 0.5, 0.5}));
}

TEST(FunctionsManual, DeclinesWhatItDoesNotCover) {
  // Integer gradients, mixed dtypes and a missing saved operand go to Python.
  EXPECT_FALSE(native_inputs_supported(at::to(value({1}), at::kLong), {}));
  EXPECT_FALSE(native_inputs_supported(value({1}), {value({1}, {}, at::kDouble)}));
  variable_list out(2);
  EXPECT_FALSE(generated::MulBackward0Native{}.apply(value({1}), value({1}), Variable(), {true, false}, out));
  // div by a tensor has no C++ formula for either input
  EXPECT_FALSE(generated::DivBackward0Native{}.apply(value({1}), Variable(), value({2}), {true, false}, out));
}

TEST(FunctionsManual, ResultReusesAGradientNoOneElseHolds) {
  generated::AddBackward0Native add;
  add.alpha = 2.0;
  auto g = value({1, 2});
  const Variable also_held = g;
  variable_list out(2);
  ASSERT_TRUE(add.apply(g, {false, true}, out));
  EXPECT_NE(out[1].data_ptr(), g.data_ptr()); // `also_held` still refers to g
  EXPECT_EQ(vals(g), (std::vector<double>{1, 2}));
  Variable unique = value({1, 2});
  void* buffer = unique.data_ptr();
  variable_list last(2);
  ASSERT_TRUE(add.apply(unique, {false, true}, last));
  EXPECT_EQ(last[1].data_ptr(), buffer); // written in place: nothing else holds it
  EXPECT_EQ(vals(last[1]), (std::vector<double>{2, 4}));
}

TEST(FunctionsManual, MulReadsTheGradientForBothOutputsBeforeReusingIt) {
  variable_list out(2);
  ASSERT_TRUE(generated::MulBackward0Native{}.apply(value({1, 2}), value({3, 4}), value({5, 6}), {true, true}, out));
  EXPECT_EQ(vals(out[0]), (std::vector<double>{5, 12}));
  EXPECT_EQ(vals(out[1]), (std::vector<double>{3, 8}));
}

TEST(FunctionsManual, ForeignMemoryIsNeverOverwritten) {
  // A gradient over memory from outside (a numpy array, here a C++ buffer)
  // must not be written even when the tensor handle is unique.
  auto data = std::make_shared<std::vector<float>>(std::vector<float>{1, 2});
  generated::AddBackward0Native add;
  add.alpha = 3.0;
  variable_list out(2);
  ASSERT_TRUE(add.apply(at::from_blob(data->data(), {2}, {1}, at::kFloat, c10::Device(), data, 8), {false, true}, out));
  EXPECT_EQ(vals(out[1]), (std::vector<double>{3, 6}));
  EXPECT_EQ((*data)[0], 1.0f);
}

TEST(FunctionsManual, ToCopyCastsBackToSelfsDtypeAndDevice) {
  generated::ToCopyBackward0Native to_copy;
  to_copy.self_dtype = at::kFloat;
  to_copy.self_device = c10::Device("sim:1");
  const auto out = run(to_copy, value({1.5, -2}, {}, at::kDouble), {true});
  EXPECT_EQ(out[0].scalar_type(), at::kFloat);
  EXPECT_EQ(out[0].device(), c10::Device("sim:1"));
  EXPECT_EQ(vals(out[0]), (std::vector<double>{1.5, -2}));
  // already in self's dtype and on its device: the gradient itself
  to_copy.self_device = c10::Device();
  const Variable g = value({3}, {}, at::kFloat);
  EXPECT_EQ(run(to_copy, g, {true})[0].data_ptr(), g.data_ptr());
}
