#pragma once
// The "gradient layout contract" (torch/csrc/autograd/utils/grad_layout_contract.h):
// a leaf's .grad should have the leaf's strides when the leaf is
// non-overlapping and dense (any permutation of a contiguous layout), and be
// row-major contiguous otherwise. AccumulateGrad steals an incoming gradient
// only when it already obeys the contract, and otherwise copies it into one
// that does.
#include "autograd/function_hook.h"

namespace torch {
namespace autograd {
namespace utils {

// Whether `grad` obeys the contract for `variable` (same sizes assumed).
bool obeys_layout_contract(const Variable& grad, const Variable& variable);

// A copy of new_grad that obeys the contract for `variable`. When grad mode is
// on and new_grad requires grad (backward with create_graph) it records
// CopyBackwards, so .grad stays differentiable, as in PyTorch.
Variable clone_obey_contract(const Variable& new_grad, const Variable& variable);

} // namespace utils
} // namespace autograd
} // namespace torch
