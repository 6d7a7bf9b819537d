#pragma once
// Hook interfaces on Nodes (torch/csrc/autograd/function_hook.h).
#include "aten/Tensor.h"

#include <vector>

namespace torch {
namespace autograd {

using Variable = at::Tensor;
using variable_list = std::vector<Variable>;

// Runs on a node's incoming gradients before the node; may replace them.
struct FunctionPreHook {
  virtual ~FunctionPreHook() = default;
  virtual variable_list operator()(const variable_list& grads) = 0;
};

// Runs on a node's outputs (the gradients it produced) and inputs.
struct FunctionPostHook {
  virtual ~FunctionPostHook() = default;
  virtual variable_list operator()(const variable_list& outputs, const variable_list& inputs) = 0;
};

// Runs after AccumulateGrad has written a leaf's .grad.
struct PostAccumulateGradHook {
  virtual ~PostAccumulateGradHook() = default;
  virtual void operator()(const Variable& tensor) = 0;
};

} // namespace autograd
} // namespace torch
