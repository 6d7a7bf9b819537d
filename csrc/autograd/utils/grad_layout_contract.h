#pragma once
// The copy AccumulateGrad makes of a gradient it cannot steal
// (torch/csrc/autograd/utils/grad_layout_contract.h). torchlite's tensors are
// dense and row-major, so the "layout contract" reduces to: a contiguous copy
// of the variable's shape.
#include "autograd/function_hook.h"

namespace torch {
namespace autograd {
namespace utils {

// A new contiguous tensor holding new_grad's values. When grad mode is on and
// new_grad requires grad (backward with create_graph) it is made by a copy
// that records CopyBackwards, so .grad stays differentiable, as in PyTorch.
Variable clone_obey_contract(const Variable& new_grad, const Variable& variable);

} // namespace utils
} // namespace autograd
} // namespace torch
