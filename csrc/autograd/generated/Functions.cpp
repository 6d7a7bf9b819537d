#include "autograd/generated/Functions.h"
#include "aten/Functions.h"
#include "autograd/generated/NativeFormulas.h"
#include "autograd/grad_mode.h"
#include "autograd/variable.h"

namespace torch {
namespace autograd {
namespace generated {

namespace {
// Runs a table formula that covers every case (it never declines).
template <typename Formula>
variable_list run_formula(const Node& node, const Formula& formula, const Variable& grad) {
  std::vector<bool> needs(node.num_outputs());
  for (size_t i = 0; i < needs.size(); ++i)
    needs[i] = node.should_compute_output(i);
  variable_list out(needs.size());
  formula.apply(grad, needs, out);
  return out;
}
} // namespace

variable_list AddBackward0::apply(variable_list&& grads) {
  AddBackward0Native formula;
  formula.alpha = 1.0; // the engine's sum: add(a, b)
  return run_formula(*this, formula, grads[0]);
}

variable_list CloneBackward0::apply(variable_list&& grads) {
  return run_formula(*this, CloneBackward0Native{}, grads[0]);
}

variable_list ToCopyBackward0::apply(variable_list&& grads) {
  if (!grads[0].defined())
    return variable_list(num_outputs());
  return run_formula(*this, fields, grads[0]);
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

Variable to(const Variable& t, at::ScalarType dtype, c10::Device device) {
  if (t.scalar_type() == dtype && t.device() == device)
    return t;
  at::Tensor result = t.scalar_type() == dtype ? t : at::to(t, dtype);
  if (result.device() != device)
    result = at::to(result, device);
  if (!GradMode::is_enabled() || !t.requires_grad() || !at::isDifferentiableType(dtype))
    return result;
  auto node = make_node<generated::ToCopyBackward0>(collect_next_edges({t}));
  node->fields.self_dtype = t.scalar_type();
  node->fields.self_device = t.device();
  create_gradient_edge(result, std::move(node));
  return result;
}

} // namespace autograd
} // namespace torch
