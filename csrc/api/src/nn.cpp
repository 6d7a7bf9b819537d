// torch::nn::Linear and its initialisation (torch/csrc/api/src/nn/modules/linear.cpp,
// torch/nn/init.cpp): the same draws from the default CPU generator as torch.nn.Linear.
#include "torch/nn.h"

#include "api/src/ops_internal.h"
#include "autograd/grad_mode.h"

#include <cmath>

namespace torch {
namespace nn {

LinearImpl::LinearImpl(int64_t in, int64_t out, bool with_bias) : in_features(in), out_features(out) {
  weight = torch::empty({out, in});
  if (with_bias)
    bias = torch::empty({out});
  reset_parameters();
  weight.requires_grad_(true);
  if (with_bias)
    bias.requires_grad_(true);
}

void LinearImpl::reset_parameters() {
  autograd::NoGradGuard no_grad;
  // kaiming_uniform_(weight, a=sqrt(5)): gain = calculate_gain("leaky_relu", a), std = gain / sqrt(fan_in),
  // bound = sqrt(3) * std
  const double a = std::sqrt(5.0);
  const double gain = std::sqrt(2.0 / (1 + std::pow(a, 2)));
  const double fan_in = static_cast<double>(in_features);
  const double bound = std::sqrt(3.0) * (gain / std::sqrt(fan_in));
  frontend::uniform_fill(weight, -bound, bound);
  if (bias.defined()) {
    const double b = fan_in > 0 ? 1 / std::sqrt(fan_in) : 0;
    frontend::uniform_fill(bias, -b, b);
  }
}

Tensor LinearImpl::forward(const Tensor& input) {
  return torch::linear(input, weight, bias);
}

} // namespace nn
} // namespace torch
