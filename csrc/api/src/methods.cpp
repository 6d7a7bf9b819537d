// at::Tensor's front-end methods, the arithmetic operators, and torch::'s
// factories and free functions: thin spellings of the ops in ops.cpp.
#include "api/src/ops_internal.h"
#include "aten/CPUGeneratorImpl.h"
#include "aten/Functions.h"
#include "aten/native/cpu/DistributionKernels.h"
#include "autograd/variable.h"
#include "torch/autograd.h"
#include "torch/types.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>

namespace F = torch::frontend;

namespace at {

Tensor& Tensor::requires_grad_(bool requires_grad) {
  if (!is_leaf() && !requires_grad) {
    throw std::runtime_error(
        "you can only change requires_grad flags of leaf variables. If you want to use a computed variable in a "
        "subgraph that doesn't require differentiation use var_no_grad = var.detach().");
  }
  if (requires_grad && !isDifferentiableType(dtype())) {
    throw std::runtime_error("only Tensors of floating point dtype can require gradients");
  }
  if (is_leaf())
    set_requires_grad(requires_grad);
  return *this;
}

void Tensor::backward(const Tensor& gradient, std::optional<bool> retain_graph, bool create_graph) const {
  torch::autograd::backward(
      {*this},
      gradient.defined() ? torch::autograd::variable_list{gradient} : torch::autograd::variable_list{},
      retain_graph,
      create_graph);
}

bool Tensor::is_floating_point() const {
  return isFloatingType(dtype());
}
Tensor Tensor::sum() const {
  return F::sum(*this);
}
Tensor Tensor::sum(int64_t dim, bool keepdim) const {
  return F::sum_dim(*this, dim, keepdim);
}
Tensor Tensor::mean() const {
  return F::mean(*this);
}
Tensor Tensor::mean(int64_t dim, bool keepdim) const {
  return F::mean_dim(*this, dim, keepdim);
}
Tensor Tensor::mm(const Tensor& other) const {
  return F::mm(*this, other);
}
Tensor Tensor::mv(const Tensor& vec) const {
  return F::mv(*this, vec);
}
Tensor Tensor::dot(const Tensor& other) const {
  return F::dot(*this, other);
}
Tensor Tensor::matmul(const Tensor& other) const {
  return F::matmul(*this, other);
}
Tensor Tensor::t() const {
  return F::t(*this);
}
Tensor Tensor::tanh() const {
  return F::tanh(*this);
}
Tensor Tensor::exp() const {
  return F::exp(*this);
}
Tensor Tensor::pow(double exponent) const {
  return F::pow(*this, exponent);
}
Tensor Tensor::neg() const {
  return F::neg(*this);
}
Tensor Tensor::reciprocal() const {
  return F::reciprocal(*this);
}
Tensor Tensor::norm() const {
  return F::norm(*this);
}
Tensor Tensor::norm(double p, int64_t dim, bool keepdim) const {
  return F::norm_dim(*this, p, dim, keepdim);
}
Tensor Tensor::eq(const Tensor& other) const {
  return F::eq(*this, other);
}
Tensor Tensor::all() const {
  return F::all(*this);
}
Tensor Tensor::unsqueeze(int64_t dim) const {
  return F::unsqueeze(*this, dim);
}
Tensor Tensor::squeeze(int64_t dim) const {
  return F::squeeze(*this, dim);
}
Tensor Tensor::expand(IntArrayRef sizes) const {
  return F::expand(*this, sizes.vec());
}
Tensor Tensor::expand_as(const Tensor& other) const {
  return F::expand(*this, other.sizes());
}
Tensor Tensor::view(IntArrayRef sizes) const {
  return F::view(*this, sizes.vec());
}
Tensor Tensor::reshape(IntArrayRef sizes) const {
  return F::reshape(*this, sizes.vec());
}
Tensor Tensor::operator-() const {
  return F::neg(*this);
}
Tensor& Tensor::operator+=(const Tensor& other) {
  return F::inplace(*this, F::add(*this, other), "add_");
}
Tensor& Tensor::operator+=(double other) {
  return F::inplace(*this, F::add_scalar(*this, other), "add_");
}
Tensor& Tensor::operator-=(const Tensor& other) {
  return F::inplace(*this, F::sub(*this, other), "sub_");
}
Tensor& Tensor::operator-=(double other) {
  return F::inplace(*this, F::sub_scalar(*this, other), "sub_");
}
// mul_ and div_ read self in backward: the op runs on a differentiable copy of
// self (CloneBackward0), which backward reads instead of the overwritten self.
Tensor& Tensor::operator*=(const Tensor& other) {
  return F::inplace(*this, F::mul(requires_grad() || other.requires_grad() ? F::clone(*this) : *this, other), "mul_");
}
Tensor& Tensor::operator*=(double other) {
  return F::inplace(*this, F::mul_scalar(*this, other), "mul_");
}
Tensor& Tensor::operator/=(const Tensor& other) {
  return F::inplace(*this, F::div(requires_grad() || other.requires_grad() ? F::clone(*this) : *this, other), "div_");
}
Tensor& Tensor::operator/=(double other) {
  return F::inplace(*this, F::div_scalar(*this, other), "div_");
}

Tensor operator+(const Tensor& a, const Tensor& b) {
  return F::add(a, b);
}
Tensor operator+(const Tensor& a, double b) {
  return F::add_scalar(a, b);
}
Tensor operator+(double a, const Tensor& b) {
  return F::add_scalar(b, a);
}
Tensor operator-(const Tensor& a, const Tensor& b) {
  return F::sub(a, b);
}
Tensor operator-(const Tensor& a, double b) {
  return F::sub_scalar(a, b);
}
// libtorch's TensorOperators.h: empty_like(b).fill_(a).sub_(b), which records SubBackward0
Tensor operator-(double a, const Tensor& b) {
  return F::sub(at::full(b.sizes(), a, b.dtype()), b);
}
Tensor operator*(const Tensor& a, const Tensor& b) {
  return F::mul(a, b);
}
Tensor operator*(const Tensor& a, double b) {
  return F::mul_scalar(a, b);
}
Tensor operator*(double a, const Tensor& b) {
  return F::mul_scalar(b, a);
}
Tensor operator/(const Tensor& a, const Tensor& b) {
  return F::div(a, b);
}
Tensor operator/(const Tensor& a, double b) {
  return F::div_scalar(a, b);
}
// libtorch's TensorOperators.h: empty_like(b).fill_(a).div_(b), which records DivBackward0
Tensor operator/(double a, const Tensor& b) {
  return F::div(at::full(b.sizes(), a, b.dtype()), b);
}

} // namespace at

namespace torch {
namespace {

// ATen's CPU capability (DispatchStub.cpp), as torchlite/_random.py picks it:
// ATEN_CPU_CAPABILITY when set, capped at what the CPU has.
at::native::CPUCapability capability() {
#if defined(__x86_64__) || defined(_M_X64)
  std::set<std::string> flags;
  std::ifstream info("/proc/cpuinfo");
  std::string line;
  while (std::getline(info, line)) {
    if (line.rfind("flags", 0) == 0) {
      std::istringstream words(line.substr(line.find(':') + 1));
      std::string w;
      while (words >> w)
        flags.insert(w);
      break;
    }
  }
  int best = 0;
  if (flags.count("avx2") && flags.count("fma")) {
    best = 1;
    if (flags.count("avx512f") && flags.count("avx512bw") && flags.count("avx512vl") && flags.count("avx512dq"))
      best = 2;
  }
  int chosen = best;
  if (const char* env = std::getenv("ATEN_CPU_CAPABILITY")) {
    std::string wanted(env);
    for (auto& c : wanted)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (wanted == "default")
      chosen = 0;
    else if (wanted == "avx2")
      chosen = 1;
    else if (wanted == "avx512")
      chosen = 2;
  }
  return static_cast<at::native::CPUCapability>(std::min(chosen, best));
#else
  return at::native::CPUCapability::DEFAULT;
#endif
}

at::CPUGeneratorImpl& default_generator() {
  static at::CPUGeneratorImpl gen;
  return gen;
}

Tensor finish(Tensor t, const TensorOptions& options) {
  if (options.requires_grad())
    t.requires_grad_(true);
  return t;
}

} // namespace

void manual_seed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(default_generator().mutex_);
  default_generator().set_current_seed(seed);
}

Tensor empty(IntArrayRef sizes, TensorOptions options) {
  return finish(at::empty(sizes.vec(), options.dtype()), options);
}
Tensor zeros(IntArrayRef sizes, TensorOptions options) {
  return finish(at::zeros(sizes.vec(), options.dtype()), options);
}
Tensor ones(IntArrayRef sizes, TensorOptions options) {
  return finish(at::ones(sizes.vec(), options.dtype()), options);
}
Tensor full(IntArrayRef sizes, double value, TensorOptions options) {
  return finish(at::full(sizes.vec(), value, options.dtype()), options);
}
Tensor randn(IntArrayRef sizes, TensorOptions options) {
  Tensor t = at::empty(sizes.vec(), options.dtype());
  if (t.numel() > 0) {
    at::native::normal_kernel(
        &default_generator(), t.dtype(), t.data_ptr(), t.numel(), /*contiguous=*/true, 0.0, 1.0, capability());
  }
  return finish(t, options);
}
Tensor rand(IntArrayRef sizes, TensorOptions options) {
  Tensor t = at::empty(sizes.vec(), options.dtype());
  if (t.numel() > 0)
    at::native::uniform_kernel(&default_generator(), t.dtype(), t.data_ptr(), t.numel(), 0.0, 1.0, capability());
  return finish(t, options);
}
namespace frontend {
void uniform_fill(at::Tensor& t, double low, double high) {
  if (t.numel() > 0) {
    at::native::uniform_kernel(&default_generator(), t.dtype(), t.data_ptr(), t.numel(), low, high, capability());
    t.unsafeGetTensorImpl()->bump_version();
  }
}
} // namespace frontend
namespace {
TensorOptions like(const Tensor& t, const TensorOptions& options) {
  return options.has_dtype() ? options : options.dtype(t.dtype());
}
} // namespace
Tensor zeros_like(const Tensor& t, TensorOptions options) {
  return zeros(t.sizes(), like(t, options));
}
Tensor ones_like(const Tensor& t, TensorOptions options) {
  return ones(t.sizes(), like(t, options));
}
Tensor empty_like(const Tensor& t, TensorOptions options) {
  return empty(t.sizes(), like(t, options));
}
Tensor tensor(double value, TensorOptions options) {
  return finish(at::tensor({value}, {}, options.dtype()), options);
}
Tensor tensor(std::initializer_list<double> values, TensorOptions options) {
  return tensor(std::vector<double>(values), options);
}
Tensor tensor(const std::vector<double>& values, TensorOptions options) {
  return finish(at::tensor(values, {static_cast<int64_t>(values.size())}, options.dtype()), options);
}

Tensor add(const Tensor& a, const Tensor& b) {
  return F::add(a, b);
}
Tensor sub(const Tensor& a, const Tensor& b) {
  return F::sub(a, b);
}
Tensor mul(const Tensor& a, const Tensor& b) {
  return F::mul(a, b);
}
Tensor div(const Tensor& a, const Tensor& b) {
  return F::div(a, b);
}
Tensor neg(const Tensor& t) {
  return F::neg(t);
}
Tensor matmul(const Tensor& a, const Tensor& b) {
  return F::matmul(a, b);
}
Tensor mm(const Tensor& a, const Tensor& b) {
  return F::mm(a, b);
}
Tensor tanh(const Tensor& t) {
  return F::tanh(t);
}
Tensor exp(const Tensor& t) {
  return F::exp(t);
}
Tensor pow(const Tensor& t, double exponent) {
  return F::pow(t, exponent);
}
Tensor sum(const Tensor& t) {
  return F::sum(t);
}
Tensor mean(const Tensor& t) {
  return F::mean(t);
}
Tensor norm(const Tensor& t) {
  return F::norm(t);
}
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2) {
  return F::addmm(self, mat1, mat2);
}
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  // at::linear: addmm for a 2-d input with a bias, else matmul (+ bias)
  if (input.dim() == 2 && bias.defined())
    return F::addmm(bias, input, weight.t());
  Tensor out = F::matmul(input, weight.t());
  return bias.defined() ? F::add(out, bias) : out;
}
Tensor mse_loss(const Tensor& input, const Tensor& target) {
  return F::mse_loss(input, target);
}
bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol) {
  if (a.sizes() != b.sizes())
    return false;
  const auto x = a.to_vector(), y = b.to_vector();
  for (size_t i = 0; i < x.size(); ++i) {
    if (!(std::fabs(x[i] - y[i]) <= atol + rtol * std::fabs(y[i])))
      return false;
  }
  return true;
}

} // namespace torch
