#pragma once
// Nodes of tensor-level operations (torch/csrc/autograd/functions/tensor.h).
#include "aten/Tensor.h"
#include "autograd/function.h"

namespace torch {
namespace autograd {

// The backward of `self.copy_(src)`, as upstream's: two inputs, self (which the
// copy overwrites: a zero gradient) and src (the gradient, back in src's dtype
// and on its device). The grad-layout contract records it for a gradient it
// copies (AccumulateGrad under create_graph), self being a new tensor that
// needs none. Python's copy_ records the derivatives table's node of the same
// name, whose formula stays differentiable under create_graph; this one's cast
// is first-order only (the core's ops record no history).
struct CopyBackwards : public Node {
  CopyBackwards(edge_list&& next_edges, at::ScalarType src_dtype, c10::Device src_device)
      : Node(std::move(next_edges)), src_dtype(src_dtype), src_device(src_device) {}
  variable_list apply(variable_list&& grads) override;

  at::ScalarType src_dtype;
  c10::Device src_device;
};

} // namespace autograd
} // namespace torch
