#pragma once
// The node that writes a leaf's .grad (torch/csrc/autograd/functions/accumulate_grad.h).
#include "autograd/function.h"
#include "autograd/variable.h"

#include <cstdint>
#include <limits>

namespace torch {
namespace autograd {

struct AccumulateGrad : public Node {
  // sequence_nr is UINT64_MAX so that, among ready tasks, a leaf's
  // accumulation always runs first (Note [Sequence Numbers]).
  explicit AccumulateGrad(Variable variable_);

  variable_list apply(variable_list&& grads) override;

  std::unique_ptr<PostAccumulateGradHook>& tensor_post_acc_grad_hooks() const noexcept override;

  // Writes new_grad into variable_grad following PyTorch's accumulateGrad:
  // steal new_grad when nothing else refers to it or its memory and grad mode
  // is off (else copy it), add in place when a .grad exists and grad mode is
  // off, otherwise make a new sum (which keeps create_graph results out of the
  // old .grad).
  static void accumulateGrad(
      const Variable& variable,
      Variable& variable_grad,
      const Variable& new_grad,
      size_t num_expected_refs);

  // apply holds it while it writes .grad (Note [Thread Safety on Autograd Node]).
  std::mutex& mutex() override {
    return mutex_;
  }

  Variable variable;

 private:
  std::mutex mutex_;
};

} // namespace autograd
} // namespace torch
