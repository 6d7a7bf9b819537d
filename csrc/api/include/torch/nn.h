#pragma once
// The two torch::nn pieces the autograd tutorial's gradient-penalty example
// uses: Linear (initialised as torch::nn::Linear is, from the default CPU
// generator) and MSELoss. Modules are handles, as libtorch's ModuleHolder:
// `auto model = torch::nn::Linear(4, 3); model(x); model->weight`.
#include "torch/types.h"

#include <cstdint>
#include <memory>

namespace torch {
namespace nn {

struct LinearImpl {
  LinearImpl(int64_t in_features, int64_t out_features, bool bias = true);
  // Re-draws weight and bias: kaiming_uniform_(weight, a=sqrt(5)) and
  // uniform_(bias, -1/sqrt(in_features), 1/sqrt(in_features)), as torch does.
  void reset_parameters();
  Tensor forward(const Tensor& input);
  Tensor weight;
  Tensor bias;
  int64_t in_features;
  int64_t out_features;
};

struct Linear {
  Linear(int64_t in_features, int64_t out_features) : impl_(std::make_shared<LinearImpl>(in_features, out_features)) {}
  Tensor operator()(const Tensor& input) {
    return impl_->forward(input);
  }
  LinearImpl* operator->() {
    return impl_.get();
  }
  const std::shared_ptr<LinearImpl>& ptr() const {
    return impl_;
  }

 private:
  std::shared_ptr<LinearImpl> impl_;
};

// Mean of squared differences (reduction "mean"): records MseLossBackward0.
struct MSELoss {
  Tensor operator()(const Tensor& input, const Tensor& target) const {
    return mse_loss(input, target);
  }
};

} // namespace nn
} // namespace torch
