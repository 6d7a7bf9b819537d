#pragma once
// Nodes of tensor-level operations (torch/csrc/autograd/functions/tensor.h).
#include "aten/Tensor.h"
#include "autograd/function.h"

#include <vector>

namespace torch {
namespace autograd {

// The backward of `self.copy_(src)`, as upstream's: two inputs, self (which the
// copy overwrites: a zero gradient) and src (the gradient, back in src's dtype
// and on its device). Python's copy_ records it (_C._copy_node, upstream's
// copy_ in VariableTypeManual.cpp), a copy_ onto a view inside CopySlices; the
// grad-layout contract records it for a gradient it copies (AccumulateGrad
// under create_graph), self being a new tensor that needs none. Its cast is
// the core's recorded `to` (generated/Functions.h): under create_graph it
// records ToCopyBackward0, as upstream's `grad.to(src_options)` does, so a
// dtype-changing copy's double backward needs no Python. A src that was
// broadcast is summed back to its shape by the engine (validate_outputs).
struct CopyBackwards : public Node {
  CopyBackwards(edge_list&& next_edges, at::ScalarType src_dtype, c10::Device src_device)
      : Node(std::move(next_edges)), src_dtype(src_dtype), src_device(src_device) {}
  variable_list apply(variable_list&& grads) override;
  // The gradients where needs[i] (CopySlices runs the node with its own needs).
  variable_list apply_with_needs(const Variable& grad, const std::vector<bool>& needs) const;

  // upstream keeps src.options(): torchlite's tensors differ only in these two
  at::ScalarType src_dtype;
  c10::Device src_device;
};

} // namespace autograd
} // namespace torch
