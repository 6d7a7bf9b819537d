#pragma once
// Backward nodes of the few differentiable ops the C++ core performs itself,
// without Python (PyTorch generates these from derivatives.yaml into
// generated/Functions.h). The engine sums gradients with `add`; under
// create_graph that sum must be differentiable, so it records AddBackward0
// like any other op; likewise a retained .grad's `clone`, and the casts
// (`to`) of CopyBackwards and of the engine's validate_outputs, which record
// ToCopyBackward0 as upstream's `grad.to(options)` does through the
// dispatcher. Their formulas are the derivatives table's, as generated into
// NativeFormulas.h; the ops the Python package records make the same nodes
// with a Python formula beside it (generated/python_functions.cpp).
#include "autograd/function.h"
#include "autograd/generated/NativeFormulas.h"

namespace torch {
namespace autograd {
namespace generated {

struct AddBackward0 : public Node {
  using Node::Node;
  std::string name() const override {
    return "AddBackward0";
  }
  variable_list apply(variable_list&& grads) override;
};

struct CloneBackward0 : public Node {
  using Node::Node;
  std::string name() const override {
    return "CloneBackward0";
  }
  variable_list apply(variable_list&& grads) override;
};

// _to_copy's node: the gradient back in self's dtype and on its device
// (to_copy_backward, itself a recorded cast, so every order differentiates).
struct ToCopyBackward0 : public Node {
  using Node::Node;
  std::string name() const override {
    return "ToCopyBackward0";
  }
  variable_list apply(variable_list&& grads) override;
  ToCopyBackward0Native fields; // self_dtype, self_device
};

} // namespace generated

// A contiguous copy of t. Records CloneBackward0 when grad mode is on and t
// requires grad (a retained .grad under create_graph, as PyTorch's retain_grad
// hook clones it).
Variable clone(const Variable& t);

// a + b (same shapes). Records AddBackward0 when grad mode is on and either
// input requires grad; otherwise the plain kernel.
Variable add(const Variable& a, const Variable& b);

// t in `dtype` on `device`: t itself where both are already t's (upstream's
// Tensor::to with copy=false), else a copy, recording ToCopyBackward0 when
// grad mode is on and t requires grad (at::to records nothing).
Variable to(const Variable& t, at::ScalarType dtype, c10::Device device);

} // namespace autograd
} // namespace torch
