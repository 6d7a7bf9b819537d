#pragma once
// Backward nodes of the few differentiable ops the C++ core performs itself,
// without Python (PyTorch generates these from derivatives.yaml into
// generated/Functions.h). The engine sums gradients with `add`; under
// create_graph that sum must be differentiable, so it records AddBackward0
// like any other op. Their formulas are the derivatives table's, as generated
// into NativeFormulas.h; the ops the Python package records make the same
// nodes with a Python formula beside it (generated/python_functions.cpp).
#include "autograd/function.h"

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

} // namespace generated

// A contiguous copy of t. Records CloneBackward0 when grad mode is on and t
// requires grad (a retained .grad under create_graph, as PyTorch's retain_grad
// hook clones it).
Variable clone(const Variable& t);

// a + b (same shapes). Records AddBackward0 when grad mode is on and either
// input requires grad; otherwise the plain kernel.
Variable add(const Variable& a, const Variable& b);

} // namespace autograd
} // namespace torch
