// The C++ front end (torch/torch.h) running the first examples of PyTorch's
// "Autograd in C++ Frontend" tutorial (pytorch/tutorials,
// advanced_source/cpp_autograd.rst), each compiled as the tutorial writes it;
// the test only seeds the generator before and checks the results after.
// The expected numbers are torch 2.13's for the same program in Python; each
// test gives that program in a comment.
#include <torch/torch.h>

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

namespace {

// float32 results: 1e-5 relative, 1e-6 absolute (the kernels accumulate in another order than torch's).
void expect_values(
    const torch::Tensor& t,
    const std::vector<double>& expected,
    double rtol = 1e-5,
    double atol = 1e-6) {
  ASSERT_TRUE(t.defined());
  const auto v = t.to_vector();
  ASSERT_EQ(v.size(), expected.size());
  for (size_t i = 0; i < v.size(); ++i)
    EXPECT_NEAR(v[i], expected[i], atol + rtol * std::fabs(expected[i])) << "element " << i;
}

// Bit for bit: 9 significant digits name one float32, 17 one float64.
void expect_exact(const torch::Tensor& t, const std::vector<double>& expected) {
  const auto v = t.to_vector();
  ASSERT_EQ(v.size(), expected.size());
  for (size_t i = 0; i < v.size(); ++i) {
    if (t.dtype() == torch::kFloat)
      EXPECT_EQ(static_cast<float>(v[i]), static_cast<float>(expected[i])) << "element " << i;
    else
      EXPECT_EQ(v[i], expected[i]) << "element " << i;
  }
}

std::string printed(const torch::Tensor& t) {
  std::ostringstream s;
  s << t;
  return s.str();
}

} // namespace

// The tutorial's "Basic autograd operations", as one program. In Python:
//   torch.manual_seed(0)
//   x = torch.ones(2, 2, requires_grad=True); y = x + 2; z = y * y * 3; out = z.mean()
//   a = torch.randn(2, 2); a = (a * 3) / (a - 1); a.requires_grad_(True); b = (a * a).sum()
//   out.backward()                                   # x.grad: 4.5 everywhere
//   x = torch.randn(3, requires_grad=True); y = x * 2
//   while y.norm().item() < 1000: y = y * 2
//   y.backward(torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float))
TEST(CppFrontendTutorial, BasicAutogradOperations) {
  torch::manual_seed(0);
  testing::internal::CaptureStdout();
  // ---- the tutorial's code, unchanged ----
  auto x = torch::ones({2, 2}, torch::requires_grad());
  std::cout << x << std::endl;

  auto y = x + 2;
  std::cout << y << std::endl;

  std::cout << y.grad_fn()->name() << std::endl;

  auto z = y * y * 3;
  auto out = z.mean();

  std::cout << z << std::endl;
  std::cout << z.grad_fn()->name() << std::endl;
  std::cout << out << std::endl;
  std::cout << out.grad_fn()->name() << std::endl;

  auto a = torch::randn({2, 2});
  a = ((a * 3) / (a - 1));
  std::cout << a.requires_grad() << std::endl;

  a.requires_grad_(true);
  std::cout << a.requires_grad() << std::endl;

  auto b = (a * a).sum();
  std::cout << b.grad_fn()->name() << std::endl;

  out.backward();

  std::cout << x.grad() << std::endl;
  // ---- end ----
  const std::string first = testing::internal::GetCapturedStdout();
  // The tutorial's printed output (libtorch's format), with C++'s 0/1 for bools.
  EXPECT_EQ(
      first,
      " 1  1\n 1  1\n[ CPUFloatType{2,2} ]\n"
      " 3  3\n 3  3\n[ CPUFloatType{2,2} ]\n"
      "AddBackward1\n"
      " 27  27\n 27  27\n[ CPUFloatType{2,2} ]\n"
      "MulBackward1\n"
      "27\n[ CPUFloatType{} ]\n"
      "MeanBackward0\n"
      "0\n1\n"
      "SumBackward0\n"
      " 4.5000  4.5000\n 4.5000  4.5000\n[ CPUFloatType{2,2} ]\n");
  expect_values(a, {8.54532719, 0.680583775, 2.05624461, -3.95138383});
  expect_values(b, {93.3273849});
  expect_values(x.grad(), {4.5, 4.5, 4.5, 4.5});

  testing::internal::CaptureStdout();
  // ---- the tutorial's code, unchanged ----
  x = torch::randn(3, torch::requires_grad());

  y = x * 2;
  while (y.norm().item<double>() < 1000) {
    y = y * 2;
  }

  std::cout << y << std::endl;
  std::cout << y.grad_fn()->name() << std::endl;

  auto v = torch::tensor({0.1, 1.0, 0.0001}, torch::kFloat);
  y.backward(v);

  std::cout << x.grad() << std::endl;

  std::cout << x.requires_grad() << std::endl;
  std::cout << x.pow(2).requires_grad() << std::endl;

  {
    torch::NoGradGuard no_grad;
    std::cout << x.pow(2).requires_grad() << std::endl;
  }

  std::cout << x.requires_grad() << std::endl;
  y = x.detach();
  std::cout << y.requires_grad() << std::endl;
  std::cout << x.eq(y).all().item<bool>() << std::endl;
  // ---- end ----
  const std::string second = testing::internal::GetCapturedStdout();
  expect_values(x.grad(), {102.400002, 1024, 0.102399997});
  EXPECT_EQ(
      second,
      "-1110.5509\n-1432.1617\n  413.0272\n[ CPUFloatType{3} ]\n"
      "MulBackward1\n"
      "  102.4000\n 1024.0000\n    0.1024\n[ CPUFloatType{3} ]\n"
      "1\n1\n0\n1\n0\n1\n");
}

// The tutorial's gradient penalty (higher-order gradients). In Python:
//   torch.manual_seed(0)
//   model = torch.nn.Linear(4, 3); input = torch.randn(3, 4).requires_grad_(True)
//   output = model(input); target = torch.randn(3, 3); loss = torch.nn.MSELoss()(output, target)
//   grad_output = torch.ones_like(output)
//   gradient = torch.autograd.grad([output], [input], grad_outputs=[grad_output], retain_graph=True,
//                                  create_graph=True, allow_unused=True)[0]
//   gradient = gradient.view(-1, 1)
//   gradient_penalty = torch.pow(gradient.norm(2, dim=1) - 1, 2).mean()
//   combined_loss = loss + gradient_penalty; combined_loss.backward()
TEST(CppFrontendTutorial, HigherOrderGradients) {
  torch::manual_seed(0);
  // ---- the tutorial's code, unchanged ----
  auto model = torch::nn::Linear(4, 3);

  auto input = torch::randn({3, 4}).requires_grad_(true);
  auto output = model(input);

  // Calculate loss
  auto target = torch::randn({3, 3});
  auto loss = torch::nn::MSELoss()(output, target);

  // Use norm of gradients as penalty
  auto grad_output = torch::ones_like(output);
  auto gradient = torch::autograd::grad(
      {output},
      {input},
      /*grad_outputs=*/{grad_output},
      /*retain_graph=*/true,
      /*create_graph=*/true,
      /*allow_unused=*/true)[0];
  gradient = gradient.view({-1, 1});
  auto gradient_penalty = torch::pow((gradient.norm(2, /*dim=*/1) - 1), 2).mean();

  // Add gradient penalty to loss
  auto combined_loss = loss + gradient_penalty;
  combined_loss.backward();

  std::cout << input.grad() << std::endl;
  // ---- end ----
  expect_values(
      model->weight,
      {-0.00374341011,
       0.268221796,
       -0.411522567,
       -0.367969513,
       -0.192577183,
       0.134078681,
       -0.00990658998,
       0.396444738,
       -0.0443720222,
       0.132306278,
       -0.151106536,
       -0.0982826948});
  expect_values(model->bias, {-0.477674246, -0.331141055, -0.20611155});
  EXPECT_EQ(output.grad_fn()->name(), "AddmmBackward0");
  EXPECT_EQ(loss.grad_fn()->name(), "MseLossBackward0");
  EXPECT_EQ(gradient_penalty.grad_fn()->name(), "MeanBackward0");
  expect_values(loss, {3.82868028});
  expect_values(gradient_penalty, {0.460280627});
  expect_values(
      input.grad(),
      {-0.0375590771,
       -0.140468761,
       0.25612846,
       0.312774807,
       -0.0500552431,
       -0.223831862,
       0.394260049,
       0.490023345,
       -0.0261521954,
       -0.0791096687,
       0.151283473,
       0.180675447});
  // The penalty reaches the weight only through the double backward of AddmmBackward0.
  expect_values(
      model->weight.grad(),
      {-0.580230117,
       -0.78032136,
       0.831531882,
       -2.86900067,
       0.85190767,
       -0.0678188205,
       -0.0731068254,
       1.83536863,
       -0.228942603,
       -0.171254516,
       0.537936389,
       -0.589657605});
  expect_values(model->bias.grad(), {-1.88409114, 0.677762628, -0.218655258});
}

// ---- the tutorial's custom functions, unchanged ----
using namespace torch::autograd;

// Inherit from Function
class LinearFunction : public Function<LinearFunction> {
 public:
  // Note that both forward and backward are static functions

  // bias is an optional argument
  static Variable forward(AutogradContext* ctx, Variable input, Variable weight, Variable bias = Variable()) {
    ctx->save_for_backward({input, weight, bias});
    auto output = input.mm(weight.t());
    if (bias.defined()) {
      output += bias.unsqueeze(0).expand_as(output);
    }
    return output;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    auto saved = ctx->get_saved_variables();
    auto input = saved[0];
    auto weight = saved[1];
    auto bias = saved[2];

    auto grad_output = grad_outputs[0];
    auto grad_input = grad_output.mm(weight);
    auto grad_weight = grad_output.t().mm(input);
    auto grad_bias = Variable();
    if (bias.defined()) {
      grad_bias = grad_output.sum(0);
    }

    return {grad_input, grad_weight, grad_bias};
  }
};

class MulConstant : public Function<MulConstant> {
 public:
  static Variable forward(AutogradContext* ctx, Variable variable, double constant) {
    // ctx is a context object that can be used to stash information
    // for backward computation
    ctx->saved_data["constant"] = constant;
    return variable * constant;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    // We return as many input gradients as there were arguments.
    // Gradients of non-Tensor arguments to forward must be `Variable()`.
    return {grad_outputs[0] * ctx->saved_data["constant"].toDouble(), Variable()};
  }
};
// ---- end ----

// In Python: torch.manual_seed(0); x = torch.randn(2, 3).requires_grad_();
// weight = torch.randn(4, 3).requires_grad_(); y = x.mm(weight.t()); y.sum().backward()
TEST(CppFrontendTutorial, LinearFunction) {
  torch::manual_seed(0);
  // ---- the tutorial's code, unchanged ----
  auto x = torch::randn({2, 3}).requires_grad_();
  auto weight = torch::randn({4, 3}).requires_grad_();
  auto y = LinearFunction::apply(x, weight);
  y.sum().backward();

  std::cout << x.grad() << std::endl;
  std::cout << weight.grad() << std::endl;
  // ---- end ----
  EXPECT_EQ(y.grad_fn()->name(), "LinearFunction");
  expect_values(
      y, {1.94276547, -0.843099952, 0.690810323, -0.457682133, 0.32636714, 0.163195908, -0.182432771, 0.162094772});
  expect_values(x.grad(), {-0.733970106, 0.775677741, -1.23529387, -0.733970106, 0.775677741, -1.23529387});
  expect_values(
      weight.grad(),
      {2.10942745,
       -1.37795126,
       -3.57738495,
       2.10942745,
       -1.37795126,
       -3.57738495,
       2.10942745,
       -1.37795126,
       -3.57738495,
       2.10942745,
       -1.37795126,
       -3.57738495});
}

// With a bias (the `output +=` branch): the same gradients as x.mm(w.t()) + b under autograd.
TEST(CppFrontendTutorial, LinearFunctionWithBias) {
  torch::manual_seed(5);
  auto x = torch::randn({2, 3}).requires_grad_();
  auto weight = torch::randn({4, 3}).requires_grad_();
  auto bias = torch::randn({4}).requires_grad_();
  auto y = LinearFunction::apply(x, weight, bias);
  (y * y).sum().backward();
  auto x2 = x.detach().requires_grad_();
  auto w2 = weight.detach().requires_grad_();
  auto b2 = bias.detach().requires_grad_();
  auto y2 = x2.mm(w2.t()) + b2;
  (y2 * y2).sum().backward();
  EXPECT_TRUE(torch::allclose(y, y2));
  EXPECT_TRUE(torch::allclose(x.grad(), x2.grad()));
  EXPECT_TRUE(torch::allclose(weight.grad(), w2.grad()));
  EXPECT_TRUE(torch::allclose(bias.grad(), b2.grad()));
}

// In Python: torch.manual_seed(0); x = torch.randn(2).requires_grad_()  -> x.grad is 5.5 everywhere
TEST(CppFrontendTutorial, MulConstant) {
  torch::manual_seed(0);
  // ---- the tutorial's code, unchanged ----
  auto x = torch::randn({2}).requires_grad_();
  auto y = MulConstant::apply(x, 5.5);
  y.sum().backward();

  std::cout << x.grad() << std::endl;
  // ---- end ----
  expect_values(x, {1.54099607, -0.293428898});
  expect_values(y, {1.54099607 * 5.5, -0.293428898 * 5.5});
  EXPECT_EQ(printed(x.grad()), " 5.5000\n 5.5000\n[ CPUFloatType{2} ]");
}

TEST(CppFrontendFunction, ErrorsAndContext) {
  struct WrongCount : public Function<WrongCount> {
    static Variable forward(AutogradContext* ctx, Variable v) {
      ctx->save_for_backward({v});
      return v * 2;
    }
    static variable_list backward(AutogradContext* ctx, variable_list g) {
      return {g[0], g[0]};
    }
  };
  auto x = torch::ones({2}, torch::requires_grad());
  auto y = WrongCount::apply(x);
  try {
    y.sum().backward();
    FAIL() << "expected an error";
  } catch (const std::exception& e) {
    EXPECT_NE(
        std::string(e.what()).find("returned an incorrect number of gradients (expected 1, got 2)"), std::string::npos)
        << e.what();
  }
  // No input requires grad: no history.
  auto plain = WrongCount::apply(torch::ones({2}));
  EXPECT_FALSE(plain.requires_grad());
  EXPECT_EQ(plain.grad_fn(), nullptr);
}

// Python's CPU generator numbers for the same seeds:
//   torch.manual_seed(0); torch.randn(3)   torch.manual_seed(0); torch.randn(20)
//   torch.manual_seed(42); torch.randn(5, dtype=torch.float64)   torch.manual_seed(1); torch.rand(4)
TEST(CppFrontendRandom, SameNumbersAsTorch) {
  torch::manual_seed(0);
  expect_exact(torch::randn(3), {1.54099607, -0.293428898, -2.17878938});
  torch::manual_seed(0);
  expect_exact(
      torch::randn({20}), {-1.12583983, -1.1523602,   -0.250578582, -0.433878809, 0.598839462, -1.55509508, -0.34136039,
                           1.85300612,  0.468096405,  -0.157712445, 1.44366014,   0.266049415, 1.38936615,  1.58633423,
                           0.946298361, -0.843676746, 0.931826591,  1.25900924,   2.00498056,  0.0537369028});
  torch::manual_seed(42);
  auto d = torch::randn({5}, torch::kFloat64);
  EXPECT_EQ(d.dtype(), torch::kDouble);
  expect_exact(
      d, {0.33669035438385886, 0.1288094051365897, 0.23446236336153173, 0.2303330279146119, -1.1228563767381703});
  torch::manual_seed(1);
  expect_exact(torch::rand({4}), {0.7576316, 0.279310882, 0.403069258, 0.734684467});
}

// Double backward through matmul (mv), tanh, exp and pow. In Python:
//   torch.manual_seed(3); x = torch.randn(3, requires_grad=True); w = torch.randn(2, 3, requires_grad=True)
//   y = torch.tanh(w.matmul(x)).exp().pow(3).sum()
//   g, = torch.autograd.grad(y, x, create_graph=True); gg, = torch.autograd.grad(g.sum(), x)
TEST(CppFrontendAutograd, DoubleBackward) {
  torch::manual_seed(3);
  auto x = torch::randn(3, torch::requires_grad());
  auto w = torch::randn({2, 3}, torch::requires_grad());
  auto y = torch::tanh(w.matmul(x)).exp().pow(3).sum();
  expect_values(y, {2.72884321});
  auto g = torch::autograd::grad({y}, {x}, {}, std::nullopt, /*create_graph=*/true)[0];
  expect_values(g, {2.06171393, 6.9631691, -10.4270458});
  EXPECT_EQ(g.grad_fn()->name(), "MvBackward0");
  auto gg = torch::autograd::grad({g.sum()}, {x})[0];
  expect_values(gg, {1.16768003, -1.3776046, 5.32534695}, 1e-4, 1e-5);
}

TEST(CppFrontendAutograd, NodeNames) {
  auto a = torch::ones({2, 3}, torch::requires_grad());
  auto b = torch::ones({3}, torch::dtype(torch::kFloat).requires_grad(true));
  auto m = torch::ones({3, 2}, torch::requires_grad());
  EXPECT_EQ((a + b).grad_fn()->name(), "AddBackward0");
  EXPECT_EQ((a - b).grad_fn()->name(), "SubBackward0");
  EXPECT_EQ((a * b).grad_fn()->name(), "MulBackward0");
  EXPECT_EQ((a / b).grad_fn()->name(), "DivBackward0");
  EXPECT_EQ((a - 1).grad_fn()->name(), "SubBackward1");
  // libtorch's `1 - a` and `2 / a` fill a tensor and subtract / divide in place
  EXPECT_EQ((1 - a).grad_fn()->name(), "SubBackward0");
  EXPECT_EQ((2 / a).grad_fn()->name(), "DivBackward0");
  EXPECT_EQ((a / 2).grad_fn()->name(), "DivBackward1");
  EXPECT_EQ((-a).grad_fn()->name(), "NegBackward0");
  EXPECT_EQ(a.tanh().grad_fn()->name(), "TanhBackward0");
  EXPECT_EQ(a.exp().grad_fn()->name(), "ExpBackward0");
  EXPECT_EQ(a.pow(2).grad_fn()->name(), "PowBackward0");
  EXPECT_EQ(a.sum(1).grad_fn()->name(), "SumBackward1");
  EXPECT_EQ(a.mean(0).grad_fn()->name(), "MeanBackward1");
  EXPECT_EQ(a.mm(m).grad_fn()->name(), "MmBackward0");
  EXPECT_EQ(torch::matmul(a, m).grad_fn()->name(), "MmBackward0");
  EXPECT_EQ(b.matmul(b).grad_fn()->name(), "DotBackward0");
  EXPECT_EQ(a.t().grad_fn()->name(), "TBackward0");
  EXPECT_EQ(a.view({-1}).grad_fn()->name(), "ViewBackward0");
  EXPECT_EQ(b.unsqueeze(0).grad_fn()->name(), "UnsqueezeBackward0");
  EXPECT_EQ(b.expand({2, 3}).grad_fn()->name(), "ExpandBackward0");
  EXPECT_EQ(a.norm().grad_fn()->name(), "NormBackward0");
}

// Broadcasting gradients, mean/sum by dim, and float64. In Python:
//   a = torch.arange(6.).reshape(2, 3).double().requires_grad_(); b = torch.tensor([1., 2., 3.], dtype=torch.float64,
//   requires_grad=True)
//   ((a * b + a / b - b).mean(0) * torch.tensor([1., -1., 2.], dtype=torch.float64)).sum().backward()
TEST(CppFrontendAutograd, BroadcastingFloat64) {
  auto a = torch::tensor({0, 1, 2, 3, 4, 5}, torch::kDouble).view({2, 3}).detach().requires_grad_();
  auto b = torch::tensor({1, 2, 3}, torch::TensorOptions().dtype(torch::kFloat64).requires_grad(true));
  auto c = torch::tensor({1, -1, 2}, torch::kDouble);
  ((a * b + a / b - b).mean(0) * c).sum().backward();
  // d/da = c * (b + 1/b) / 2 per column; d/db = c * (sum_rows(a) - sum_rows(a)/b^2 - 2) / 2
  std::vector<double> ga, gb;
  const double bv[3] = {1, 2, 3}, cv[3] = {1, -1, 2}, colsum[3] = {3, 5, 7};
  for (int r = 0; r < 2; ++r)
    for (int j = 0; j < 3; ++j)
      ga.push_back(cv[j] * (bv[j] + 1 / bv[j]) / 2);
  for (int j = 0; j < 3; ++j)
    gb.push_back(cv[j] * (colsum[j] - colsum[j] / (bv[j] * bv[j]) - 2) / 2);
  expect_values(a.grad(), ga, 1e-12, 1e-12);
  expect_values(b.grad(), gb, 1e-12, 1e-12);
  EXPECT_EQ(a.grad().dtype(), torch::kDouble);
}

TEST(CppFrontendAutograd, Errors) {
  auto x = torch::ones({2}, torch::requires_grad());
  auto expect_error = [](const std::function<void()>& f, const std::string& message) {
    try {
      f();
      ADD_FAILURE() << "expected: " << message;
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  };
  expect_error([&] { (x * 2).backward(); }, "grad can be implicitly created only for scalar outputs");
  expect_error(
      [&] { torch::ones({2}).sum().backward(); },
      "element 0 of tensors does not require grad and does not have a grad_fn");
  expect_error([&] { x += 1; }, "a leaf Variable that requires grad is being used in an in-place operation.");
  auto y = torch::ones({2}, torch::requires_grad());
  expect_error(
      [&] { torch::autograd::grad({(x * 2).sum()}, {y}); },
      "One of the differentiated Tensors appears to not have been used in the graph");
  EXPECT_FALSE(
      torch::autograd::grad({(x * 2).sum()}, {y}, {}, std::nullopt, false, /*allow_unused=*/true)[0].defined());
  auto s = (x * x).sum();
  s.backward();
  expect_error([&] { s.backward(); }, "Trying to backward through the graph a second time");
  expect_error(
      [&] { torch::ones({2, 3}) + torch::ones({4}); },
      "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1");
  expect_error(
      [&] { torch::ones({2, 3}).mm(torch::ones({2, 3})); }, "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)");
  // a saved tensor modified in place: refused at backward, as torch
  auto z = torch::ones({2}, torch::requires_grad()) * 1;
  auto w = (z * z).sum();
  {
    torch::NoGradGuard no_grad;
    z += 1;
  }
  expect_error([&] { w.backward(); }, "modified by an inplace operation");
}

TEST(CppFrontendAutograd, InPlaceAndRetainGraph) {
  auto x = torch::tensor({1.0, 2.0}, torch::requires_grad());
  auto y = x * 3;
  y += x; // AddBackward0 rebased onto y
  EXPECT_EQ(y.grad_fn()->name(), "AddBackward0");
  y *= 2;
  EXPECT_EQ(y.grad_fn()->name(), "MulBackward1");
  auto s = y.sum();
  s.backward({}, /*retain_graph=*/true);
  expect_values(x.grad(), {8, 8});
  s.backward();
  expect_values(x.grad(), {16, 16});
}

// d/dx sum((1 - x) * (2 / x)) = -2 / x^2
TEST(CppFrontendAutograd, NumberMinusAndOverTensor) {
  auto x = torch::tensor({1.0, 2.0}, torch::TensorOptions().dtype(torch::kDouble).requires_grad(true));
  ((1 - x) * (2 / x)).sum().backward();
  expect_values(x.grad(), {-2.0, -0.5}, 1e-12, 1e-12);
}

TEST(CppFrontendPrint, Formats) {
  EXPECT_EQ(printed(torch::tensor(27.0)), "27\n[ CPUFloatType{} ]");
  EXPECT_EQ(printed(torch::tensor({1.5, -2.25}, torch::kDouble)), " 1.5000\n-2.2500\n[ CPUDoubleType{2} ]");
  EXPECT_EQ(printed(torch::zeros({2, 1, 2})), "(1,.,.) = \n  0  0\n\n(2,.,.) = \n  0  0\n[ CPUFloatType{2,1,2} ]");
}
