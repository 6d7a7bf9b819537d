#include "autograd/functions/tensor.h"

namespace torch {
namespace autograd {

variable_list CopyBackwards::apply(variable_list&& grads) {
  variable_list result(1);
  if (should_compute_output(0))
    result[0] = std::move(grads[0]);
  return result;
}

} // namespace autograd
} // namespace torch
