#include "autograd/utils/grad_layout_contract.h"
#include "aten/Functions.h"
#include "autograd/functions/tensor.h"
#include "autograd/grad_mode.h"
#include "autograd/variable.h"

namespace torch {
namespace autograd {
namespace utils {

bool obeys_layout_contract(const Variable& grad, const Variable& variable) {
  // (A contiguous variable is dense: skip the general check on the hot path.)
  if (!variable.is_contiguous() && !at::is_non_overlapping_and_dense(variable))
    return grad.is_contiguous();
  const auto& sizes = grad.sizes();
  const auto& grad_strides = grad.strides();
  const auto& variable_strides = variable.strides();
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] != 1) {
      if (grad_strides[d] != variable_strides[d])
        return false;
    } else if (grad_strides[d] == 0) {
      // A size-1 dimension with stride 0 marks a broadcast view: not stolen.
      return false;
    }
  }
  return true;
}

Variable clone_obey_contract(const Variable& new_grad, const Variable& variable) {
  // The variable's own layout when it has a dense one (host devices; CUDA
  // copies are row-major), else row-major contiguous.
  const bool keep_layout =
      !variable.is_contiguous() && !variable.device().is_cuda() && at::is_non_overlapping_and_dense(variable);
  Variable result = keep_layout ? at::clone_strided(new_grad, variable.strides()) : at::clone(new_grad);
  if (GradMode::is_enabled() && new_grad.requires_grad()) {
    // result = empty_strided(...).copy_(new_grad) upstream: copy_'s node, self needing no gradient
    create_gradient_edge(
        result,
        make_node<CopyBackwards>(
            edge_list{Edge(), impl::gradient_edge(new_grad)}, new_grad.scalar_type(), new_grad.device()));
  }
  return result;
}

} // namespace utils
} // namespace autograd
} // namespace torch
