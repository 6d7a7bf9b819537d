#pragma once
// The C++ front end's tensors, options, factories and free functions
// (libtorch's torch/types.h, ATen/Functions.h and torch/csrc/api/include/torch/
// ... as one header). torch::Tensor is the engine's Variable: an at::Tensor
// with autograd metadata; its ops record the nodes torch records
// (docs/design.md, "The C++ front end").
#include "aten/IntArrayRef.h"
#include "aten/ScalarType.h"
#include "aten/Tensor.h"

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <ostream>
#include <vector>

namespace at {

// c10::TensorOptions, reduced to what a CPU program sets: dtype and requires_grad.
struct TensorOptions {
  TensorOptions() = default;
  TensorOptions(ScalarType dtype) : dtype_(dtype) {} // NOLINT(google-explicit-constructor): as c10's
  TensorOptions dtype(ScalarType dtype) const {
    TensorOptions o = *this;
    o.dtype_ = dtype;
    return o;
  }
  TensorOptions requires_grad(bool requires_grad) const {
    TensorOptions o = *this;
    o.requires_grad_ = requires_grad;
    return o;
  }
  ScalarType dtype() const {
    return dtype_.value_or(kFloat);
  }
  bool requires_grad() const {
    return requires_grad_;
  }
  bool has_dtype() const {
    return dtype_.has_value();
  }

 private:
  std::optional<ScalarType> dtype_;
  bool requires_grad_ = false;
};

// Elementwise arithmetic with broadcasting (binary ops) and Python numbers.
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, double b);
Tensor operator+(double a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, double b);
Tensor operator-(double a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, double b);
Tensor operator*(double a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, double b);
Tensor operator/(double a, const Tensor& b);

// Prints as libtorch does (aten/src/ATen/core/Formatting.cpp): the values, then
// "[ CPUFloatType{2,2} ]".
std::ostream& operator<<(std::ostream& out, const Tensor& t);

} // namespace at

namespace torch {

using at::IntArrayRef;
using at::ScalarType;
using at::Tensor;
using at::TensorOptions;
using Dtype = at::ScalarType;

constexpr auto kFloat = at::kFloat;
constexpr auto kFloat32 = at::kFloat;
constexpr auto kDouble = at::kDouble;
constexpr auto kFloat64 = at::kDouble;
constexpr auto kLong = at::kLong;
constexpr auto kInt64 = at::kLong;
constexpr auto kBool = at::kBool;

inline TensorOptions requires_grad(bool requires_grad = true) {
  return TensorOptions().requires_grad(requires_grad);
}
inline TensorOptions dtype(ScalarType dtype) {
  return TensorOptions().dtype(dtype);
}

// Factories. The random ones draw from the default CPU generator: torch's
// mt19937 and kernels (aten/CPUGeneratorImpl.h, native/cpu/DistributionKernels.h),
// so the same seed gives the numbers torch gives.
Tensor empty(IntArrayRef sizes, TensorOptions options = {});
Tensor zeros(IntArrayRef sizes, TensorOptions options = {});
Tensor ones(IntArrayRef sizes, TensorOptions options = {});
Tensor full(IntArrayRef sizes, double value, TensorOptions options = {});
Tensor randn(IntArrayRef sizes, TensorOptions options = {});
Tensor rand(IntArrayRef sizes, TensorOptions options = {});
Tensor zeros_like(const Tensor& t, TensorOptions options = {});
Tensor ones_like(const Tensor& t, TensorOptions options = {});
Tensor empty_like(const Tensor& t, TensorOptions options = {});
// A 0-dim tensor (torch::tensor(1.)) or a 1-dim one from a braced list.
Tensor tensor(double value, TensorOptions options = {});
Tensor tensor(std::initializer_list<double> values, TensorOptions options = {});
Tensor tensor(const std::vector<double>& values, TensorOptions options = {});
// Seeds the default CPU generator (torch.manual_seed).
void manual_seed(uint64_t seed);

// Free-function spellings of the methods (torch::tanh(x) == x.tanh()).
Tensor add(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);
Tensor neg(const Tensor& t);
Tensor matmul(const Tensor& a, const Tensor& b);
Tensor mm(const Tensor& a, const Tensor& b);
Tensor tanh(const Tensor& t);
Tensor exp(const Tensor& t);
Tensor pow(const Tensor& t, double exponent);
Tensor sum(const Tensor& t);
Tensor mean(const Tensor& t);
Tensor norm(const Tensor& t);
// linear(input, weight, bias): input @ weight.t() + bias, as at::linear (AddmmBackward0 for a
// 2-d input with a bias).
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor());
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2);
Tensor mse_loss(const Tensor& input, const Tensor& target);
// Whether all elements are within rtol/atol of each other (no autograd).
bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-05, double atol = 1e-08);

} // namespace torch
