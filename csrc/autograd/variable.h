#pragma once
// A Variable is an at::Tensor with autograd metadata (torch/csrc/autograd/variable.h).
// AutogradMeta holds grad, grad_fn or the weakly-held grad accumulator,
// output_nr, requires_grad and the tensor's hooks; impl:: has the functions
// the engine and the bindings use to reach them (impl::gradient_edge).
#include "autograd/edge.h"
#include "autograd/function_hook.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace torch {
namespace autograd {

struct Node;

// How a view was made, which decides whether it may be modified in place
// (upstream's CreationMeta, variable.h).
enum class CreationMeta : uint8_t { DEFAULT, IN_CUSTOM_FUNCTION, MULTI_OUTPUT_NODE, NO_GRAD_MODE, INFERENCE_MODE };

struct AutogradMeta : public at::AutogradMetaInterface {
  explicit AutogradMeta(at::TensorImpl* self_impl = nullptr, bool requires_grad = false, Edge gradient_edge = Edge());

  void set_requires_grad(bool requires_grad, at::TensorImpl* self_impl) override;
  bool requires_grad() const override {
    return requires_grad_ || grad_fn_ || (is_view_ && base_.requires_grad());
  }
  Variable& mutable_grad() override {
    return grad_;
  }
  const Variable& grad() const override {
    return grad_;
  }

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
  // View tracking (upstream's DifferentiableViewMeta; Note [View + Inplace
  // update for base tensor] and Note [View + Inplace update for view tensor],
  // docs/design.md "Views and in-place operations"). Every view op records its
  // output as a view of the root base, whether or not anything requires grad,
  // so an in-place op on the base or on any view can later rebase the history
  // of all of them. `attr_version_` is the version counter's value when
  // grad_fn_ was last computed: a view whose storage changed since then gets a
  // regenerated grad_fn (AsStridedBackward0 over the base's current history)
  // the next time grad_fn() is read.
  bool is_view_ = false;
  CreationMeta creation_meta_ = CreationMeta::DEFAULT;
  Variable base_;
  uint32_t attr_version_ = 0;
  uint32_t output_nr_ = 0;
  // Guards grad_accumulator_ creation and a view's grad_fn regeneration
  // (.grad updates are serialised by the AccumulateGrad node's mutex).
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
std::unique_ptr<PostAccumulateGradHook>& post_acc_grad_hooks(const Variable& self);

// Makes `view` (already holding the view op's grad_fn, if any) a view of
// `base`'s root base.
void set_view_of(const Variable& view, const Variable& base, CreationMeta creation_meta);
bool is_view(const Variable& self);
// The root base of a view, or an undefined Variable.
const Variable& view_base(const Variable& self);
CreationMeta creation_meta(const Variable& self);
void set_creation_meta(const Variable& self, CreationMeta creation_meta);

// Throws torch's error for an in-place change of a view that may not be
// modified in place (`indirect`: its base or another view of it changed).
void handle_view_on_rebase(const Variable& self, bool indirect = false);
// The checks of an in-place op about to write into `self`, when grad mode is
// on and the op's result will require grad (upstream check_inplace).
void check_inplace(const Variable& self, bool requires_grad);
// After an in-place op recorded its node (`gradient_edge`, whose input
// metadata describes `self`): a non-view takes it as its gradient edge
// (moving its retains_grad hook along); a view's base is rebased onto a
// CopySlices wrapping the node and the view's grad_fn is regenerated.
void rebase_history(const Variable& self, Edge gradient_edge);

// The autograd nodes of view and in-place handling whose math is written in
// the package's differentiable ops (the Python extension installs them).
struct ViewNodeFactory {
  virtual ~ViewNodeFactory() = default;
  // AsStridedBackward0 from `base` (its gradient edge) to the view's geometry.
  virtual std::shared_ptr<Node> as_strided_backward(const Variable& view, const Variable& base) = 0;
  // CopySlices wrapping `fn`, the in-place op recorded on `view` of `base`.
  virtual std::shared_ptr<Node> copy_slices(const Variable& base, const Variable& view, std::shared_ptr<Node> fn) = 0;
};
void set_view_node_factory(ViewNodeFactory* factory);
// Regenerates a view's grad_fn if its storage changed since it was made
// (Tensor::grad_fn calls it for every view).
void update_view_grad_fn(const Variable& self, AutogradMeta* meta);

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
