// The C++ first-order formulas (Note [GIL-free formulas]): each gives the
// gradient its Python formula gives, and declines the cases it does not cover.
#include "test_utils.h"

#include "autograd/FunctionsManual.h"

#include <gtest/gtest.h>

using namespace torchlite_test;
using torch::autograd::generated::details::NativeArgs;
using torch::autograd::generated::details::NativeFormula;
using torch::autograd::generated::details::apply_native_formula;
using torch::autograd::generated::details::native_formula_from_key;

namespace {
// Runs a formula on a gradient the caller keeps using (so it is not reused).
variable_list run(NativeFormula f, const Variable& g, variable_list saved = {}, NativeArgs args = {},
                  std::vector<bool> needs = {true, true}) {
  const Variable caller_reference = g;
  variable_list out;
  EXPECT_TRUE(apply_native_formula(f, g, saved, args, needs, out));
  return out;
}
} // namespace

TEST(FunctionsManual, KeysNameFormulas) {
  EXPECT_EQ(native_formula_from_key("mul_scalar"), NativeFormula::MulScalar);
  EXPECT_THROW(native_formula_from_key("matmul"), std::invalid_argument);
}

TEST(FunctionsManual, AddAndSubScaleByAlpha) {
  auto g = value({1, 2});
  NativeArgs alpha;
  alpha.scalar = 3.0;
  auto add = run(NativeFormula::AddTensor, g, {}, alpha);
  EXPECT_TRUE(add[0].is_same(g));
  EXPECT_EQ(vals(add[1]), (std::vector<double>{3, 6}));
  auto sub = run(NativeFormula::SubTensor, g, {}, alpha);
  EXPECT_EQ(vals(sub[1]), (std::vector<double>{-3, -6}));
  auto only_second = run(NativeFormula::AddTensor, g, {}, alpha, {false, true});
  EXPECT_FALSE(only_second[0].defined());
}

TEST(FunctionsManual, MulBroadcastsTheOtherOperand) {
  // a: [2, 3], b: [3]; grad has the output's shape [2, 3].
  auto g = value({1, 1, 1, 2, 2, 2}, {2, 3});
  auto a = value({1, 2, 3, 4, 5, 6}, {2, 3});
  auto b = value({10, 20, 30});
  auto out = run(NativeFormula::MulTensor, g, {a, b});
  EXPECT_EQ(vals(out[0]), (std::vector<double>{10, 20, 30, 20, 40, 60}));
  EXPECT_EQ(vals(out[1]), (std::vector<double>{1, 2, 3, 8, 10, 12}));  // summed by validate_outputs
}

TEST(FunctionsManual, ScalarOpsAndNeg) {
  auto g = value({1, 2, 4});
  NativeArgs c;
  c.scalar = 4.0;
  EXPECT_EQ(vals(run(NativeFormula::MulScalar, g, {}, c)[0]), (std::vector<double>{4, 8, 16}));
  EXPECT_EQ(vals(run(NativeFormula::DivScalar, g, {}, c)[0]), (std::vector<double>{0.25, 0.5, 1}));
  EXPECT_EQ(vals(run(NativeFormula::Neg, g)[0]), (std::vector<double>{-1, -2, -4}));
  EXPECT_FALSE(run(NativeFormula::AddScalar, g)[1].defined());
}

TEST(FunctionsManual, PointwiseFormulasUseTheSavedResult) {
  auto g = value({1, 2}, {}, at::kDouble);
  auto y = value({0.5, -0.25}, {}, at::kDouble);
  EXPECT_EQ(vals(run(NativeFormula::Exp, g, {y})[0]), (std::vector<double>{0.5, -0.5}));
  EXPECT_EQ(vals(run(NativeFormula::Tanh, g, {y})[0]), (std::vector<double>{0.75, 2 * (1 - 0.0625)}));
  EXPECT_EQ(vals(run(NativeFormula::Sigmoid, g, {y})[0]), (std::vector<double>{0.25, 2 * (-0.25 * 1.25)}));
  EXPECT_EQ(vals(run(NativeFormula::Relu, g, {y})[0]), (std::vector<double>{1, 0}));
}

TEST(FunctionsManual, SumAndMeanExpandTheGradient) {
  NativeArgs args;
  args.shape = {2, 2};
  EXPECT_EQ(vals(run(NativeFormula::Sum, value({3}), {}, args)[0]), (std::vector<double>{3, 3, 3, 3}));
  args.scalar = 4;
  EXPECT_EQ(vals(run(NativeFormula::Mean, value({2}), {}, args)[0]), (std::vector<double>{0.5, 0.5, 0.5, 0.5}));
}

TEST(FunctionsManual, DeclinesWhatItDoesNotCover) {
  variable_list out;
  // Integer gradients, mixed dtypes and a missing saved operand go to Python.
  EXPECT_FALSE(apply_native_formula(NativeFormula::Neg, at::to(value({1}), at::kLong), {}, {}, {true}, out));
  EXPECT_FALSE(apply_native_formula(NativeFormula::Exp, value({1}), {value({1}, {}, at::kDouble)}, {}, {true}, out));
  EXPECT_FALSE(apply_native_formula(NativeFormula::MulTensor, value({1}), {value({1}), Variable()}, {}, {true, false}, out));
  EXPECT_FALSE(apply_native_formula(NativeFormula::None, value({1}), {}, {}, {true}, out));
}

TEST(FunctionsManual, ResultReusesAGradientNoOneElseHolds) {
  auto g = value({1, 2});
  void* buffer = g.data_ptr();
  NativeArgs c;
  c.scalar = 2.0;
  variable_list out;
  ASSERT_TRUE(apply_native_formula(NativeFormula::MulScalar, g, {}, c, {true}, out));
  EXPECT_EQ(out[0].data_ptr(), buffer);  // written in place: g was held only here
  EXPECT_EQ(vals(out[0]), (std::vector<double>{2, 4}));
  auto held = out[0];
  variable_list again;
  ASSERT_TRUE(apply_native_formula(NativeFormula::MulScalar, out[0], {}, c, {true}, again));
  EXPECT_NE(again[0].data_ptr(), buffer);  // `held` still refers to it
  EXPECT_EQ(vals(held), (std::vector<double>{2, 4}));
}

TEST(FunctionsManual, MulReadsTheGradientForBothOutputsBeforeReusingIt) {
  variable_list out;
  ASSERT_TRUE(apply_native_formula(NativeFormula::MulTensor, value({1, 2}), {value({3, 4}), value({5, 6})}, {},
                                   {true, true}, out));
  EXPECT_EQ(vals(out[0]), (std::vector<double>{5, 12}));
  EXPECT_EQ(vals(out[1]), (std::vector<double>{3, 8}));
}

TEST(FunctionsManual, ForeignMemoryIsNeverOverwritten) {
  // A gradient over memory from outside (a numpy array, here a C++ buffer)
  // must not be written even when the tensor handle is unique.
  auto data = std::make_shared<std::vector<float>>(std::vector<float>{1, 2});
  auto g = at::from_blob(data->data(), {2}, {1}, at::kFloat, c10::Device(), data, 8);
  NativeArgs c;
  c.scalar = 3.0;
  auto out = run(NativeFormula::MulScalar, g, {}, c, {true});
  EXPECT_EQ(vals(out[0]), (std::vector<double>{3, 6}));
  EXPECT_EQ((*data)[0], 1.0f);
}
