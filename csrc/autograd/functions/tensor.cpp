#include "autograd/functions/tensor.h"
#include "aten/Functions.h"
#include "autograd/generated/Functions.h"

namespace torch {
namespace autograd {

variable_list CopyBackwards::apply(variable_list&& grads) {
  std::vector<bool> needs(num_outputs());
  for (size_t i = 0; i < needs.size(); ++i)
    needs[i] = task_should_compute_output(i);
  return apply_with_needs(grads[0], needs);
}

variable_list CopyBackwards::apply_with_needs(const Variable& grad, const std::vector<bool>& needs) const {
  variable_list result(2);
  if (!grad.defined())
    return result;
  if (needs[0])
    result[0] = at::zeros_like(grad);
  if (needs.size() > 1 && needs[1])
    result[1] = autograd::to(grad, src_dtype, src_device);
  return result;
}

} // namespace autograd
} // namespace torch
