#pragma once
// A handle to a TensorImpl, shared like at::Tensor. An undefined Tensor holds
// no impl. The autograd accessors (grad_fn, requires_grad, ...) are declared
// here and implemented in autograd/variable.cpp, which is where PyTorch's
// VariableHooks route them.
#include "aten/IntArrayRef.h"
#include "aten/TensorImpl.h"

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace torch {
namespace autograd {
struct Node;
}
} // namespace torch

namespace at {

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  bool defined() const noexcept {
    return impl_ != nullptr;
  }
  void reset() noexcept {
    impl_.reset();
  }
  TensorImpl* unsafeGetTensorImpl() const noexcept {
    return impl_.get();
  }
  const std::shared_ptr<TensorImpl>& getIntrusivePtr() const noexcept {
    return impl_;
  }
  // References to this handle's impl (PyTorch's use_count()).
  long use_count() const noexcept {
    return impl_.use_count();
  }
  bool is_same(const Tensor& o) const noexcept {
    return impl_ == o.impl_;
  }

  ScalarType scalar_type() const noexcept {
    return impl_->dtype();
  }
  ScalarType dtype() const noexcept {
    return impl_->dtype();
  }
  c10::Device device() const noexcept {
    return impl_->device();
  }
  bool is_cuda() const noexcept {
    return device().is_cuda();
  }
  IntArrayRef sizes() const noexcept {
    return impl_->sizes();
  }
  IntArrayRef strides() const noexcept {
    return impl_->strides();
  }
  int64_t size(int64_t d) const {
    return impl_->sizes().at(static_cast<size_t>(d < 0 ? d + dim() : d));
  }
  int64_t dim() const noexcept {
    return impl_->dim();
  }
  int64_t numel() const noexcept {
    return impl_->numel();
  }
  bool is_contiguous() const noexcept {
    return impl_->is_contiguous();
  }
  void* data_ptr() const noexcept {
    return impl_->data();
  }
  template <typename T>
  T* data_ptr() const noexcept {
    return static_cast<T*>(impl_->data());
  }
  // Reads a one-element tensor (copied to the host when needed).
  double item() const;
  std::vector<double> to_vector() const; // every element, row-major, as double
  std::string toString() const; // "torch.FloatTensor", as PyTorch prints it

  // Non-differentiable arithmetic used by the engine (see aten/Functions.h).
  Tensor& add_(const Tensor& other);
  Tensor& zero_();

  // Autograd view of the tensor (implemented in autograd/variable.cpp).
  bool requires_grad() const;
  Tensor& set_requires_grad(bool requires_grad);
  const Tensor& grad() const;
  Tensor& mutable_grad() const;
  const std::shared_ptr<torch::autograd::Node>& grad_fn() const;
  bool is_leaf() const;
  uint32_t output_nr() const;
  int64_t _version() const;
  void retain_grad() const;
  bool retains_grad() const;
  // A tensor sharing storage and version counter, without autograd history.
  Tensor detach() const;
  // Shares storage and version counter; no autograd meta (for SavedVariable).
  Tensor tensor_data() const;
  const std::string& name() const;

  // The C++ front end's methods (libtorch's TensorBody.h), differentiable:
  // each records the node torch records. Defined in csrc/api/src: a program
  // that calls them links the `torchlite` library (torch/torch.h), not
  // torchlite_core alone.
  template <typename T>
  T item() const {
    return static_cast<T>(item());
  }
  Tensor& requires_grad_(bool requires_grad = true);
  void backward(
      const Tensor& gradient = Tensor(),
      std::optional<bool> retain_graph = std::nullopt,
      bool create_graph = false) const;
  bool is_floating_point() const;
  Tensor sum() const;
  Tensor sum(int64_t dim, bool keepdim = false) const;
  Tensor mean() const;
  Tensor mean(int64_t dim, bool keepdim = false) const;
  Tensor mm(const Tensor& other) const;
  Tensor mv(const Tensor& vec) const;
  Tensor dot(const Tensor& other) const;
  Tensor matmul(const Tensor& other) const;
  Tensor t() const;
  Tensor tanh() const;
  Tensor exp() const;
  Tensor pow(double exponent) const;
  Tensor neg() const;
  Tensor reciprocal() const;
  Tensor norm() const;
  Tensor norm(double p, int64_t dim, bool keepdim = false) const;
  Tensor eq(const Tensor& other) const;
  Tensor all() const;
  Tensor unsqueeze(int64_t dim) const;
  Tensor squeeze(int64_t dim) const;
  Tensor expand(IntArrayRef sizes) const;
  Tensor expand_as(const Tensor& other) const;
  Tensor view(IntArrayRef sizes) const;
  Tensor reshape(IntArrayRef sizes) const;
  Tensor operator-() const;
  Tensor& operator+=(const Tensor& other);
  Tensor& operator+=(double other);
  Tensor& operator-=(const Tensor& other);
  Tensor& operator-=(double other);
  Tensor& operator*=(const Tensor& other);
  Tensor& operator*=(double other);
  Tensor& operator/=(const Tensor& other);
  Tensor& operator/=(double other);

 private:
  std::shared_ptr<TensorImpl> impl_;
};

std::ostream& operator<<(std::ostream& os, IntArrayRef sizes);
std::string sizes_to_string(IntArrayRef sizes);

} // namespace at
