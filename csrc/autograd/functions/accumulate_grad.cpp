#include "autograd/functions/accumulate_grad.h"
#include "aten/Functions.h"
#include "autograd/generated/Functions.h"
#include "autograd/grad_mode.h"
#include "autograd/utils/grad_layout_contract.h"

#include <stdexcept>

namespace torch {
namespace autograd {

AccumulateGrad::AccumulateGrad(Variable variable_)
    : Node(/*sequence_nr=*/std::numeric_limits<uint64_t>::max()), variable(std::move(variable_)) {
  add_input_metadata(variable);
}

std::unique_ptr<PostAccumulateGradHook>& AccumulateGrad::tensor_post_acc_grad_hooks() const noexcept {
  return impl::post_acc_grad_hooks(variable);
}

void AccumulateGrad::accumulateGrad(
    const Variable& variable,
    Variable& variable_grad,
    const Variable& new_grad,
    size_t num_expected_refs) {
  if (!variable_grad.defined()) {
    if (!GradMode::is_enabled() && new_grad.use_count() <= static_cast<long>(num_expected_refs) &&
        at::storage_is_exclusive(new_grad) && utils::obeys_layout_contract(new_grad, variable)) {
      // Nothing else can see new_grad or its memory, and it has the layout
      // .grad should have: take it without a copy (as a fresh handle without
      // autograd history).
      const auto* grad_impl = new_grad.unsafeGetTensorImpl();
      if (new_grad.use_count() == 1 && !impl::get_autograd_meta(new_grad) && !grad_impl->pyobj() &&
          !grad_impl->is_wrapped_number() && !grad_impl->is_inference()) {
        // A bare handle only the caller holds (a formula's fresh result): it already is
        // what detach() would make of it, so it becomes .grad itself.
        variable_grad = new_grad;
      } else {
        variable_grad = new_grad.detach();
      }
    } else {
      // Deep copy: a hook, a retained grad, a numpy view or another leaf
      // (create_graph passes one gradient to several) may still hold it, or
      // its layout is not the leaf's.
      variable_grad = utils::clone_obey_contract(new_grad, variable);
    }
  } else if (!GradMode::is_enabled()) {
    // First-order case: update the existing .grad in place, whatever its
    // layout, so references to it see the sum (PyTorch's
    // `variable_grad += new_grad`). CUDA adds in place only into contiguous memory.
    if (variable_grad.is_contiguous() || !variable_grad.device().is_cuda()) {
      variable_grad.add_(new_grad);
    } else {
      variable_grad = at::add(variable_grad, new_grad);
    }
  } else {
    // create_graph: a new, differentiable sum; the old .grad is untouched.
    variable_grad = torch::autograd::add(variable_grad, new_grad);
  }
}

variable_list AccumulateGrad::apply(variable_list&& grads) {
  if (grads.size() != 1) {
    throw std::runtime_error("AccumulateGrad: expected 1 gradient, got " + std::to_string(grads.size()));
  }
  if (!grads[0].defined())
    return {};
  if (variable.grad_fn()) {
    throw std::logic_error("leaf variable has been moved into the graph interior");
  }
  if (!variable.requires_grad())
    return {};

  // Move to avoid bumping the reference count we test for stealing.
  Variable new_grad = std::move(grads[0]);
  grads.clear();
  // Serialises updates of .grad, and the post-accumulate hooks that read it,
  // across threads (Note [Thread Safety on Autograd Node]).
  std::lock_guard<std::mutex> lock(mutex_);
  Variable& grad = variable.mutable_grad();
  // call_function keeps one more reference to the inputs when post hooks exist.
  const auto hooks = this->hooks();
  accumulateGrad(variable, grad, new_grad, 1 + (hooks && !hooks->post_hooks.empty()));
  auto& hook = tensor_post_acc_grad_hooks();
  if (hook != nullptr)
    (*hook)(variable);
  return variable_list();
}

} // namespace autograd
} // namespace torch
