#include "autograd/variable.h"
#include "aten/Functions.h"
#include "autograd/cpp_hook.h"
#include "autograd/function.h"
#include "autograd/functions/accumulate_grad.h"
#include "autograd/grad_mode.h"

#include <stdexcept>

namespace torch {
namespace autograd {

AutogradMeta::AutogradMeta(at::TensorImpl* self_impl, bool requires_grad, Edge gradient_edge)
    : grad_fn_(std::move(gradient_edge.function)), output_nr_(gradient_edge.input_nr) {
  if (requires_grad) set_requires_grad(requires_grad, self_impl);
}

void AutogradMeta::set_requires_grad(bool requires_grad, at::TensorImpl* self_impl) {
  if (requires_grad && self_impl && !at::isDifferentiableType(self_impl->dtype())) {
    throw std::runtime_error("Only Tensors of floating point and complex dtype can require gradients");
  }
  requires_grad_ = requires_grad;
}

namespace impl {

AutogradMeta* get_autograd_meta(const Variable& self) {
  if (!self.defined()) throw std::runtime_error("cannot call get_autograd_meta() on undefined tensor");
  return static_cast<AutogradMeta*>(self.unsafeGetTensorImpl()->autograd_meta());
}

AutogradMeta* materialize_autograd_meta(const Variable& self) {
  if (!self.defined()) throw std::runtime_error("cannot call materialize_autograd_meta() on undefined tensor");
  auto* p = self.unsafeGetTensorImpl();
  if (!p->autograd_meta()) p->set_autograd_meta(std::make_unique<AutogradMeta>());
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
}

std::shared_ptr<Node> try_get_grad_accumulator(const Variable& self) {
  if (auto* meta = get_autograd_meta(self)) return meta->grad_accumulator_.lock();
  return nullptr;
}

std::shared_ptr<Node> grad_accumulator(const Variable& self) {
  auto* meta = get_autograd_meta(self);
  if (!meta) return nullptr;
  if (meta->grad_fn_) {
    throw std::logic_error("grad_accumulator() should be only called on leaf Variables");
  }
  if (!meta->requires_grad_) return nullptr;

  std::lock_guard<std::mutex> lock(meta->mutex_);
  auto result = meta->grad_accumulator_.lock();
  if (result) return result;
  // The accumulator holds the variable strongly; the variable refers back weakly.
  result = make_node<AccumulateGrad>(Variable(self.unsafeGetTensorImpl()->shared_from_this()));
  for (const auto& hook : meta->hooks_) {
    if (hook) result->add_tensor_pre_hook(std::make_unique<SharedFunctionPreHook>(hook));
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

void set_name(const Variable& self, const std::string& name) {
  materialize_autograd_meta(self)->name_ = name;
}

std::unique_ptr<PostAccumulateGradHook>& post_acc_grad_hooks(const Variable& self) {
  return materialize_autograd_meta(self)->post_acc_grad_hooks_;
}

void set_view_of(const Variable& view, const Variable& base) {
  auto* base_meta = get_autograd_meta(base);
  Variable root = base;
  if (base_meta && base_meta->is_view_) {
    if (auto root_impl = base_meta->view_base_.lock()) root = Variable(root_impl);
  }
  auto* meta = materialize_autograd_meta(view);
  meta->is_view_ = true;
  meta->view_base_ = root.getIntrusivePtr();
  meta->view_base_grad_fn_ = root.grad_fn();
}

void check_view_is_current(const Variable& self) {
  auto* meta = get_autograd_meta(self);
  if (!meta || !meta->is_view_) return;
  auto base_impl = meta->view_base_.lock();
  if (!base_impl) return;  // the base is gone: nothing can have changed it since
  if (Variable(base_impl).grad_fn() != meta->view_base_grad_fn_.lock()) {
    throw std::runtime_error(
        "This view's base was modified by an in-place operation recorded by autograd after the view was "
        "created. PyTorch rebases such a view's history onto its base; torchlite does not, and raises "
        "instead of computing a wrong gradient. Take the view again after the in-place operation, or "
        "clone the view before it.");
  }
}

} // namespace impl

namespace {
Variable shallow_copy(const at::Tensor& data) {
  auto* src = data.unsafeGetTensorImpl();
  auto impl = std::make_shared<at::TensorImpl>(src->storage(), src->dtype(), src->sizes(),
                                               src->strides(), src->storage_offset());
  impl->set_version_counter(src->version_counter());
  return Variable(std::move(impl));
}
} // namespace

Variable make_variable(const at::Tensor& data, bool requires_grad) {
  if (!data.defined()) return Variable();
  Variable v = shallow_copy(data);
  if (requires_grad) {
    v.unsafeGetTensorImpl()->set_autograd_meta(
        std::make_unique<AutogradMeta>(v.unsafeGetTensorImpl(), true));
  }
  return v;
}

Variable make_variable(const at::Tensor& data, Edge gradient_edge) {
  if (!data.defined()) return Variable();
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
  if (!requires_grad && !meta) return *this;
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
  return meta ? meta->grad_fn_ : none;
}

bool Tensor::is_leaf() const {
  return grad_fn() == nullptr;
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
  if (is_leaf()) return;  // a leaf's .grad is always populated
  auto* meta = impl::get_autograd_meta(*this);
  if (meta->retains_grad_) return;
  // The hook refers to the tensor weakly: the graph must not keep it alive.
  std::weak_ptr<TensorImpl> weak_self = impl_;
  auto retain_grad_hook = [weak_self](const Tensor& grad_base) {
    Tensor grad_out = grad_base;
    auto self_impl = weak_self.lock();
    if (!self_impl || !grad_base.defined()) return grad_out;
    Tensor self(self_impl);
    Tensor& grad = self.mutable_grad();
    if (!grad.defined()) {
      grad = at::clone(grad_base);
    } else {
      grad = at::add(grad, grad_base);
    }
    return grad_out;
  };
  const auto& fn = grad_fn();
  fn->add_retains_grad_hook(
      std::make_unique<torch::autograd::CppFunctionSingleTensorPreHook>(std::move(retain_grad_hook),
                                                                        output_nr()),
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
