#include "autograd/variable.h"
#include "aten/Functions.h"
#include "autograd/cpp_hook.h"
#include "autograd/function.h"
#include "autograd/functions/accumulate_grad.h"
#include "autograd/generated/Functions.h"
#include "autograd/grad_mode.h"
#include "autograd/saved_variable.h"

#include <stdexcept>

namespace torch {
namespace autograd {

AutogradMeta::AutogradMeta(at::TensorImpl* self_impl, bool requires_grad, Edge gradient_edge)
    : grad_fn_(std::move(gradient_edge.function)), output_nr_(gradient_edge.input_nr) {
  if (requires_grad)
    set_requires_grad(requires_grad, self_impl);
}

void AutogradMeta::set_requires_grad(bool requires_grad, at::TensorImpl* self_impl) {
  if (requires_grad && self_impl && !at::isDifferentiableType(self_impl->dtype())) {
    throw std::runtime_error("Only Tensors of floating point and complex dtype can require gradients");
  }
  requires_grad_ = requires_grad;
}

namespace impl {

AutogradMeta* get_autograd_meta(const Variable& self) {
  if (!self.defined())
    throw std::runtime_error("cannot call get_autograd_meta() on undefined tensor");
  return static_cast<AutogradMeta*>(self.unsafeGetTensorImpl()->autograd_meta());
}

AutogradMeta* materialize_autograd_meta(const Variable& self) {
  if (!self.defined())
    throw std::runtime_error("cannot call materialize_autograd_meta() on undefined tensor");
  auto* p = self.unsafeGetTensorImpl();
  if (!p->autograd_meta())
    p->set_autograd_meta(std::make_unique<AutogradMeta>());
  return static_cast<AutogradMeta*>(p->autograd_meta());
}

Edge gradient_edge(const Variable& self) {
  // If grad_fn is null (as is the case for a leaf node), we instead interpret
  // the gradient function to be a gradient accumulator, which will accumulate
  // its inputs into the grad property of the variable.
  if (const auto& gradient = self.grad_fn()) {
    return Edge(gradient, self.output_nr());
  }
  return Edge(grad_accumulator(self), 0);
}

void set_gradient_edge(const Variable& self, Edge edge) {
  auto* meta = materialize_autograd_meta(self);
  meta->grad_fn_ = std::move(edge.function);
  meta->output_nr_ = edge.input_nr;
  // A view given its grad_fn now needs no regeneration for changes so far.
  if (meta->is_view_)
    meta->attr_version_ = static_cast<uint32_t>(self._version());
}

std::shared_ptr<Node> try_get_grad_accumulator(const Variable& self) {
  if (auto* meta = get_autograd_meta(self))
    return meta->grad_accumulator_.lock();
  return nullptr;
}

std::shared_ptr<Node> grad_accumulator(const Variable& self) {
  auto* meta = get_autograd_meta(self);
  if (!meta)
    return nullptr;
  if (meta->grad_fn_) {
    throw std::logic_error("grad_accumulator() should be only called on leaf Variables");
  }
  if (!meta->requires_grad_)
    return nullptr;

  std::lock_guard<std::mutex> lock(meta->mutex_);
  auto result = meta->grad_accumulator_.lock();
  if (result)
    return result;
  // The accumulator holds the variable strongly; the variable refers back weakly.
  result = make_node<AccumulateGrad>(Variable(self.unsafeGetTensorImpl()->shared_from_this()));
  for (const auto& hook : meta->hooks_) {
    if (hook)
      result->add_tensor_pre_hook(std::make_unique<SharedFunctionPreHook>(hook));
  }
  meta->grad_accumulator_ = result;
  return result;
}

void set_grad_accumulator(const Variable& self, std::weak_ptr<Node> grad_accumulator) {
  materialize_autograd_meta(self)->grad_accumulator_ = std::move(grad_accumulator);
}

void bump_version(const Variable& self) {
  self.unsafeGetTensorImpl()->bump_version();
}

const std::shared_ptr<at::VersionCounter>& version_counter(const Variable& self) {
  return self.unsafeGetTensorImpl()->version_counter();
}

void set_version_counter(const Variable& self, std::shared_ptr<at::VersionCounter> vc) {
  self.unsafeGetTensorImpl()->set_version_counter(std::move(vc));
}

std::unique_ptr<PostAccumulateGradHook>& post_acc_grad_hooks(const Variable& self) {
  return materialize_autograd_meta(self)->post_acc_grad_hooks_;
}

void set_view_of(const Variable& view, const Variable& base, CreationMeta creation_meta) {
  auto* base_meta = get_autograd_meta(base);
  const Variable& root = base_meta && base_meta->is_view_ ? base_meta->base_ : base;
  auto* meta = materialize_autograd_meta(view);
  meta->is_view_ = true;
  meta->base_ = root;
  // A view of a restricted view keeps a restriction (upstream
  // propagate_creation_meta): its own if it has one, unless the first view
  // was made in inference mode.
  if (base_meta && base_meta->is_view_) {
    const auto previous = base_meta->creation_meta_;
    if (creation_meta == CreationMeta::DEFAULT || previous == CreationMeta::INFERENCE_MODE)
      creation_meta = previous;
  }
  meta->creation_meta_ = creation_meta;
  meta->attr_version_ = view._version();
}

bool is_view(const Variable& self) {
  auto* meta = get_autograd_meta(self);
  return meta && meta->is_view_;
}

const Variable& view_base(const Variable& self) {
  static const Variable undefined;
  auto* meta = get_autograd_meta(self);
  return meta && meta->is_view_ ? meta->base_ : undefined;
}

CreationMeta creation_meta(const Variable& self) {
  auto* meta = get_autograd_meta(self);
  return meta && meta->is_view_ ? meta->creation_meta_ : CreationMeta::DEFAULT;
}

void set_creation_meta(const Variable& self, CreationMeta creation_meta) {
  auto* meta = get_autograd_meta(self);
  if (!meta || !meta->is_view_)
    throw std::logic_error("set_creation_meta() on a tensor that is not a view");
  meta->creation_meta_ = creation_meta;
}

void handle_view_on_rebase(const Variable& self, bool indirect) {
  auto* meta = get_autograd_meta(self);
  if (!meta || !meta->is_view_ || meta->creation_meta_ == CreationMeta::DEFAULT)
    return;
  const auto creation_meta = meta->creation_meta_;
  const std::string modified_obj = indirect ? "its base or another view of its base has been" : "is being";
  const auto& grad_fn = meta->grad_fn_;
  std::string msg;
  if (creation_meta == CreationMeta::INFERENCE_MODE || creation_meta == CreationMeta::NO_GRAD_MODE || !grad_fn) {
    const std::string prefix = grad_fn ? "Output " + std::to_string(meta->output_nr_) + " of " +
            forward_name(grad_fn->name()) + " is a view of a view which was created in"
                                       : "A view was created in";
    if (creation_meta == CreationMeta::INFERENCE_MODE) {
      msg = prefix + " inference mode and " + modified_obj + " modified inplace in normal mode.";
    } else {
      // without a grad_fn the view was made in no_grad mode, whatever its CreationMeta
      msg = prefix + " no_grad mode and " + modified_obj + " modified inplace with grad mode enabled.";
    }
  } else {
    msg = "Output " + std::to_string(meta->output_nr_) + " of " + forward_name(grad_fn->name()) + " is a view and " +
        modified_obj + " modified inplace.";
  }
  switch (creation_meta) {
    case CreationMeta::MULTI_OUTPUT_NODE:
      msg +=
          " This view is the output of a function that returns multiple views. Such functions do not allow "
          "the output views to be modified inplace. You should replace the inplace operation by an "
          "out-of-place one.";
      break;
    case CreationMeta::NO_GRAD_MODE:
      msg +=
          " Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code "
          "by moving both the view and the inplace either both inside the no_grad block (if you don't want "
          "the inplace to be tracked) or both outside (if you want the inplace to be tracked).";
      break;
    case CreationMeta::INFERENCE_MODE:
      msg +=
          " Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code "
          "by moving both the view and the inplace either both inside the inference_mode block (if you don't "
          "want the inplace to be tracked) or both outside (if you want the inplace to be tracked).";
      break;
    case CreationMeta::IN_CUSTOM_FUNCTION:
      msg +=
          " This view was created inside a custom Function (or because an input was returned as-is) and the "
          "autograd logic to handle view+inplace would override the custom backward associated with the "
          "custom Function, leading to incorrect gradients. This behavior is forbidden. You can fix this by "
          "cloning the output of the custom Function.";
      break;
    case CreationMeta::DEFAULT:
      break;
  }
  throw std::runtime_error(msg);
}

void check_inplace(const Variable& self, bool requires_grad) {
  if (!requires_grad || !GradMode::is_enabled())
    return;
  auto* meta = get_autograd_meta(self);
  if (meta && meta->is_view_) {
    handle_view_on_rebase(self);
    if (self.requires_grad() && meta->base_.is_leaf()) {
      throw std::runtime_error("a view of a leaf Variable that requires grad is being used in an in-place operation.");
    }
  }
  if (self.is_leaf() && self.requires_grad()) {
    throw std::runtime_error("a leaf Variable that requires grad is being used in an in-place operation.");
  }
}

namespace {
ViewNodeFactory* view_node_factory = nullptr;

ViewNodeFactory& factory() {
  if (!view_node_factory)
    throw std::logic_error("views need the torchlite package's view node factory");
  return *view_node_factory;
}

// A tensor's retains_grad hook follows it to its new grad_fn; hooks
// registered before stay with the old one (upstream
// update_tensor_hooks_on_new_gradfn).
void move_retains_grad_hook(AutogradMeta* meta, const std::shared_ptr<Node>& old_fn, uint32_t old_output_nr) {
  if (!meta->retains_grad_ || !old_fn || !meta->grad_fn_ || old_fn == meta->grad_fn_)
    return;
  if (auto hook = old_fn->pop_retains_grad_hook(old_output_nr)) {
    meta->grad_fn_->add_retains_grad_hook(std::move(hook), meta->output_nr_);
  }
}
} // namespace

void set_view_node_factory(ViewNodeFactory* factory) {
  view_node_factory = factory;
}

// Note [View + Inplace update for view tensor]: a view whose storage changed
// since its grad_fn was made (an in-place op on it, on its base or on another
// view of the base) gets a new grad_fn: AsStridedBackward0 from the base's
// current history to the view's geometry (upstream
// VariableHooks::grad_fn, torch/csrc/autograd/variable.cpp).
void update_view_grad_fn(const Variable& self, AutogradMeta* meta) {
  uint32_t current_version;
  {
    std::lock_guard<std::mutex> lock(meta->mutex_);
    if (!meta->grad_fn_ && !meta->base_.requires_grad())
      return;
    current_version = static_cast<uint32_t>(self._version());
    if (meta->attr_version_ == current_version)
      return;
    handle_view_on_rebase(self, /*indirect=*/true);
  }
  // Made without the lock: the factory may take the GIL.
  auto fn = factory().as_strided_backward(self, meta->base_);
  std::lock_guard<std::mutex> lock(meta->mutex_);
  if (meta->attr_version_ == current_version)
    return; // another thread was first
  auto old_fn = std::move(meta->grad_fn_);
  const auto old_output_nr = meta->output_nr_;
  meta->grad_fn_ = std::move(fn);
  meta->output_nr_ = 0;
  meta->attr_version_ = current_version;
  move_retains_grad_hook(meta, old_fn, old_output_nr);
}

// Note [View + Inplace update for base tensor]: an in-place op on a view
// changes the base too, so the base's history is rebased onto CopySlices,
// which runs the in-place op's node on the view's part of the base's
// gradient; the view's own grad_fn is then regenerated from the base.
void rebase_history(const Variable& self, Edge gradient_edge) {
  auto* meta = materialize_autograd_meta(self);
  if (meta->is_view_) {
    if (gradient_edge.input_nr != 0) {
      throw std::runtime_error("Functions which modify views in-place must return a single Variable");
    }
    Variable base = meta->base_;
    auto* base_meta = materialize_autograd_meta(base);
    auto copy_slices = factory().copy_slices(base, self, std::move(gradient_edge.function));
    auto old_fn = base_meta->grad_fn_;
    const auto old_output_nr = base_meta->output_nr_;
    base_meta->grad_fn_ = std::move(copy_slices);
    base_meta->output_nr_ = 0;
    move_retains_grad_hook(base_meta, old_fn, old_output_nr);
    self.grad_fn();
    return;
  }
  auto old_fn = meta->grad_fn_;
  const auto old_output_nr = meta->output_nr_;
  meta->grad_fn_ = std::move(gradient_edge.function);
  meta->output_nr_ = gradient_edge.input_nr;
  move_retains_grad_hook(meta, old_fn, old_output_nr);
}

} // namespace impl

namespace {
Variable shallow_copy(const at::Tensor& data) {
  auto* src = data.unsafeGetTensorImpl();
  auto impl = std::make_shared<at::TensorImpl>(
      src->storage(), src->dtype(), src->sizes(), src->strides(), src->storage_offset(), src->version_counter());
  return Variable(std::move(impl));
}
} // namespace

Variable make_variable(const at::Tensor& data, bool requires_grad) {
  if (!data.defined())
    return Variable();
  Variable v = shallow_copy(data);
  if (requires_grad) {
    v.unsafeGetTensorImpl()->set_autograd_meta(std::make_unique<AutogradMeta>(v.unsafeGetTensorImpl(), true));
  }
  return v;
}

Variable make_variable(const at::Tensor& data, Edge gradient_edge) {
  if (!data.defined())
    return Variable();
  Variable v = shallow_copy(data);
  v.unsafeGetTensorImpl()->set_autograd_meta(
      std::make_unique<AutogradMeta>(v.unsafeGetTensorImpl(), false, std::move(gradient_edge)));
  return v;
}

unsigned register_hook(const Variable& self, hook_fn hook) {
  if (!self.requires_grad()) {
    throw std::runtime_error("cannot register a hook on a tensor that doesn't require gradient");
  }
  auto* meta = impl::materialize_autograd_meta(self);
  auto shared = std::make_shared<CppFunctionSingleTensorPreHook>(std::move(hook), self.output_nr());
  meta->hooks_.push_back(shared);
  const unsigned handle = static_cast<unsigned>(meta->hooks_.size() - 1);
  // Non-leaf: the hook runs on the grad_fn's incoming gradient at output_nr.
  // Leaf: on the accumulator's, which may not exist yet (then
  // grad_accumulator() attaches it on creation).
  if (const auto& fn = self.grad_fn()) {
    fn->add_tensor_pre_hook(std::make_unique<SharedFunctionPreHook>(shared));
  } else if (auto acc = impl::try_get_grad_accumulator(self)) {
    acc->add_tensor_pre_hook(std::make_unique<SharedFunctionPreHook>(shared));
  }
  return handle;
}

void remove_hook(const Variable& self, unsigned pos) {
  auto* meta = impl::get_autograd_meta(self);
  if (!meta || pos >= meta->hooks_.size() || !meta->hooks_[pos]) {
    throw std::runtime_error("Invalid index, no hook at position " + std::to_string(pos));
  }
  // Disabling keeps positions (handles) stable; the node skips a removed hook.
  static_cast<CppFunctionSingleTensorPreHook*>(meta->hooks_[pos].get())->disable();
  meta->hooks_[pos] = nullptr;
}

} // namespace autograd
} // namespace torch

// at::Tensor's autograd accessors --------------------------------------------
namespace at {

using torch::autograd::AutogradMeta;
namespace impl = torch::autograd::impl;

bool Tensor::requires_grad() const {
  auto* meta = impl_ ? static_cast<AutogradMeta*>(impl_->autograd_meta()) : nullptr;
  return meta && meta->requires_grad();
}

Tensor& Tensor::set_requires_grad(bool requires_grad) {
  auto* meta = impl::get_autograd_meta(*this);
  if (meta && meta->grad_fn_ && !requires_grad) {
    throw std::runtime_error(
        "you can only change requires_grad flags of leaf variables. If you want to use a "
        "computed variable in a subgraph that doesn't require differentiation use "
        "var_no_grad = var.detach().");
  }
  if (!requires_grad && !meta)
    return *this;
  impl::materialize_autograd_meta(*this)->set_requires_grad(requires_grad, impl_.get());
  return *this;
}

const Tensor& Tensor::grad() const {
  static const Tensor undefined;
  auto* meta = impl::get_autograd_meta(*this);
  return meta ? meta->grad_ : undefined;
}

Tensor& Tensor::mutable_grad() const {
  return impl::materialize_autograd_meta(*this)->grad_;
}

const std::shared_ptr<torch::autograd::Node>& Tensor::grad_fn() const {
  static const std::shared_ptr<torch::autograd::Node> none;
  auto* meta = impl_ ? static_cast<AutogradMeta*>(impl_->autograd_meta()) : nullptr;
  if (!meta)
    return none;
  if (meta->is_view_)
    impl::update_view_grad_fn(*this, meta);
  return meta->grad_fn_;
}

// Upstream's C++ is_leaf(): the stored grad_fn, without regenerating a stale
// view's (Python's .is_leaf reads grad_fn, which regenerates it first). So
// retain_grad on a view whose base an in-place op made require grad does
// nothing until something reads the view's grad_fn.
bool Tensor::is_leaf() const {
  auto* meta = impl::get_autograd_meta(*this);
  return !meta || !meta->grad_fn_;
}

uint32_t Tensor::output_nr() const {
  auto* meta = impl::get_autograd_meta(*this);
  return meta ? meta->output_nr_ : 0;
}

int64_t Tensor::_version() const {
  return impl_->version_counter()->current_version();
}

bool Tensor::retains_grad() const {
  auto* meta = impl::get_autograd_meta(*this);
  return meta && meta->retains_grad_;
}

void Tensor::retain_grad() const {
  if (!requires_grad()) {
    throw std::runtime_error("can't retain_grad on Tensor that has requires_grad=False");
  }
  if (is_leaf())
    return; // a leaf's .grad is always populated
  auto* meta = impl::get_autograd_meta(*this);
  if (meta->retains_grad_)
    return;
  // The hook refers to the tensor weakly: the graph must not keep it alive.
  std::weak_ptr<TensorImpl> weak_self = impl_;
  auto retain_grad_hook = [weak_self](const Tensor& grad_base) {
    Tensor grad_out = grad_base;
    auto self_impl = weak_self.lock();
    if (!self_impl || !grad_base.defined())
      return grad_out;
    Tensor self(self_impl);
    Tensor& grad = self.mutable_grad();
    if (!grad.defined()) {
      grad = torch::autograd::clone(grad_base);
    } else {
      grad = torch::autograd::add(grad, grad_base);
    }
    return grad_out;
  };
  const auto& fn = grad_fn();
  fn->add_retains_grad_hook(
      std::make_unique<torch::autograd::CppFunctionSingleTensorPreHook>(std::move(retain_grad_hook), output_nr()),
      output_nr());
  meta->retains_grad_ = true;
}

Tensor Tensor::detach() const {
  return torch::autograd::make_variable(*this, false);
}

Tensor Tensor::tensor_data() const {
  return torch::autograd::make_variable(*this, false);
}

const std::string& Tensor::name() const {
  static const std::string empty;
  auto* meta = impl::get_autograd_meta(*this);
  return meta ? meta->name_ : empty;
}

} // namespace at
