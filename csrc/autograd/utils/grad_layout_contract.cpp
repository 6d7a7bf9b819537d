#include "autograd/utils/grad_layout_contract.h"
#include "aten/Functions.h"
#include "autograd/functions/tensor.h"
#include "autograd/grad_mode.h"
#include "autograd/variable.h"

namespace torch {
namespace autograd {
namespace utils {

Variable clone_obey_contract(const Variable& new_grad, const Variable& variable) {
  (void)variable;
  Variable result = at::clone(new_grad);
  if (GradMode::is_enabled() && new_grad.requires_grad()) {
    create_gradient_edge(result, make_node<CopyBackwards>(collect_next_edges({new_grad})));
  }
  return result;
}

} // namespace utils
} // namespace autograd
} // namespace torch
