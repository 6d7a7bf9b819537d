#pragma once
// Nodes of tensor-level operations (torch/csrc/autograd/functions/tensor.h).
#include "autograd/function.h"

namespace torch {
namespace autograd {

// The backward of copying a tensor into a new one (`dst.copy_(src)`): the
// gradient goes back to the source unchanged.
struct CopyBackwards : public Node {
  using Node::Node;
  variable_list apply(variable_list&& grads) override;
};

} // namespace autograd
} // namespace torch
