#include "autograd/generated/Functions.h"
#include "aten/Functions.h"
#include "autograd/grad_mode.h"
#include "autograd/variable.h"

namespace torch {
namespace autograd {
namespace generated {

variable_list AddBackward0::apply(variable_list&& grads) {
  const auto& grad = grads[0];
  variable_list out(2);
  if (should_compute_output(0))
    out[0] = grad;
  if (should_compute_output(1))
    out[1] = grad;
  return out;
}

variable_list CloneBackward0::apply(variable_list&& grads) {
  variable_list out(1);
  if (should_compute_output(0))
    out[0] = std::move(grads[0]);
  return out;
}

} // namespace generated

Variable clone(const Variable& t) {
  at::Tensor result = at::clone(t);
  if (!GradMode::is_enabled() || !t.requires_grad())
    return result;
  create_gradient_edge(result, make_node<generated::CloneBackward0>(collect_next_edges({t})));
  return result;
}

Variable add(const Variable& a, const Variable& b) {
  at::Tensor result = at::add(a, b);
  if (!GradMode::is_enabled() || !(a.requires_grad() || b.requires_grad()))
    return result;
  auto node = make_node<generated::AddBackward0>(collect_next_edges({a, b}));
  create_gradient_edge(result, std::move(node));
  return result;
}

} // namespace autograd
} // namespace torch
