#include "autograd/functions/tensor.h"
#include "aten/Functions.h"

namespace torch {
namespace autograd {

variable_list CopyBackwards::apply(variable_list&& grads) {
  variable_list result(2);
  const auto& grad = grads[0];
  if (!grad.defined())
    return result;
  if (should_compute_output(0))
    result[0] = at::zeros_like(grad);
  if (should_compute_output(1)) {
    Variable g = grad.scalar_type() == src_dtype ? grad : at::to(grad, src_dtype);
    result[1] = g.device() == src_device ? g : at::to(g, src_device);
  }
  return result;
}

} // namespace autograd
} // namespace torch
