#pragma once
// A Variable is an at::Tensor with autograd metadata (torch/csrc/autograd/variable.h).
// AutogradMeta holds grad, grad_fn or the weakly-held grad accumulator,
// output_nr, requires_grad and the tensor's hooks; impl:: has the functions
// the engine and the bindings use to reach them (seed 002, gradient_edge).
#include "autograd/edge.h"
#include "autograd/function_hook.h"

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace torch {
namespace autograd {

struct Node;

struct AutogradMeta : public at::AutogradMetaInterface {
  explicit AutogradMeta(at::TensorImpl* self_impl = nullptr, bool requires_grad = false,
                        Edge gradient_edge = Edge());

  void set_requires_grad(bool requires_grad, at::TensorImpl* self_impl) override;
  bool requires_grad() const override { return requires_grad_ || grad_fn_; }
  Variable& mutable_grad() override { return grad_; }
  const Variable& grad() const override { return grad_; }

  std::string name_;
  Variable grad_;
  std::shared_ptr<Node> grad_fn_;
  // Weak: the AccumulateGrad node holds the variable, and the graph holds the
  // node; a strong reference here would make a cycle.
  std::weak_ptr<Node> grad_accumulator_;
  // Tensor hooks registered on a leaf before its accumulator exists wait here
  // and move to the accumulator when it is created.
  std::vector<std::shared_ptr<FunctionPreHook>> hooks_;
  std::unique_ptr<PostAccumulateGradHook> post_acc_grad_hooks_ = nullptr;
  bool requires_grad_ = false;
  bool retains_grad_ = false;
  // Note [Views and in-place ops on their base]
  // A view's history runs through its base's grad_fn at the time the view
  // was made. PyTorch rebases a view's history when an in-place op records a
  // new grad_fn on the base; torchlite does not, so it remembers the base and
  // that grad_fn and refuses to use a view whose base has moved on
  // (impl::check_view_is_current), instead of computing a wrong gradient.
  bool is_view_ = false;
  std::weak_ptr<at::TensorImpl> view_base_;
  std::weak_ptr<Node> view_base_grad_fn_;
  uint32_t output_nr_ = 0;
  // Guards grad_accumulator_ creation and grad_ updates from several threads.
  mutable std::mutex mutex_;
};

namespace impl {

AutogradMeta* get_autograd_meta(const Variable& self);
AutogradMeta* materialize_autograd_meta(const Variable& self);

// The edge a gradient for `self` must flow into: (grad_fn, output_nr) for a
// non-leaf, (grad accumulator, 0) for a leaf that requires grad, else empty.
Edge gradient_edge(const Variable& self);
void set_gradient_edge(const Variable& self, Edge edge);
// The leaf's AccumulateGrad, created on first use and cached weakly.
std::shared_ptr<Node> grad_accumulator(const Variable& self);
std::shared_ptr<Node> try_get_grad_accumulator(const Variable& self);
void set_grad_accumulator(const Variable& self, std::weak_ptr<Node> grad_accumulator);
void bump_version(const Variable& self);
const std::shared_ptr<at::VersionCounter>& version_counter(const Variable& self);
void set_version_counter(const Variable& self, std::shared_ptr<at::VersionCounter> vc);
void set_name(const Variable& self, const std::string& name);
std::unique_ptr<PostAccumulateGradHook>& post_acc_grad_hooks(const Variable& self);

// Records that `view` (just given its grad_fn) is a view of `base`; see Note
// [Views and in-place ops on their base].
void set_view_of(const Variable& view, const Variable& base);
// Throws std::runtime_error when `self` is a view whose base's grad_fn was
// replaced by an in-place op after the view was made.
void check_view_is_current(const Variable& self);

} // namespace impl

// A new leaf (or, with an edge, a non-leaf) sharing `data`'s storage and
// version counter.
Variable make_variable(const at::Tensor& data, bool requires_grad = false);
Variable make_variable(const at::Tensor& data, Edge gradient_edge);

// Registers a hook on the tensor's gradient (Tensor.register_hook). Returns
// the handle used by remove_hook.
using hook_fn = std::function<Variable(const Variable&)>;
unsigned register_hook(const Variable& self, hook_fn hook);
void remove_hook(const Variable& self, unsigned pos);

} // namespace autograd
} // namespace torch
