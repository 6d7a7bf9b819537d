#pragma once
// What a Node knows about each of its inputs before any gradient arrives:
// dtype, device, shape and the stream its forward ran on
// (torch/csrc/autograd/input_metadata.h).
#include "aten/Tensor.h"
#include "c10/core/Stream.h"
#include "c10/util/SmallVector.h"

#include <sstream>
#include <vector>

namespace torch {
namespace autograd {

struct InputMetadata {
  InputMetadata() = default;
  InputMetadata(at::ScalarType dtype, c10::IntArrayRef shape, c10::Device device, c10::Stream stream);
  // Records the tensor's properties and the calling thread's current stream
  // on its device.
  explicit InputMetadata(const at::Tensor& t);

  at::ScalarType dtype() const noexcept {
    return dtype_;
  }
  c10::Device device() const noexcept {
    return device_;
  }
  c10::Stream stream() const noexcept {
    return stream_;
  }
  c10::IntArrayRef shape() const noexcept {
    return shape_;
  }
  bool is_tensor_subclass() const noexcept {
    return is_tensor_subclass_;
  }
  void set_is_tensor_subclass(bool v) noexcept {
    is_tensor_subclass_ = v;
  }

  bool is_same_shape(const at::Tensor& grad) const;
  bool is_expandable_to_shape(const at::Tensor& grad) const;
  // Sums a broadcast gradient down to this input's shape (at::sum_to); under
  // grad mode, a gradient that requires grad through the differentiable sum_to
  // when one is set (see set_differentiable_sum_to).
  at::Tensor reduce_grad(at::Tensor& grad) const;
  std::stringstream incompatible_shape_error_message(size_t index, const at::Tensor& grad) const;
  at::Tensor zeros_like() const;

 private:
  // Inline up to 5 dimensions (upstream's SymDimVector): no heap block per node.
  c10::SmallVector<int64_t, 5> shape_;
  c10::Stream stream_{c10::Stream::DEFAULT, c10::Device()};
  // The small members last, packed together (a graph keeps one of these per node).
  at::ScalarType dtype_ = at::kFloat;
  c10::Device device_;
  bool is_tensor_subclass_ = false;
};

// Note [Differentiable sum_to]
// Upstream's validate_outputs reduces a broadcast gradient with at::sum_to,
// which the dispatcher records (SumBackward1, then ViewBackward0 where leading
// dimensions go) under create_graph. The core's at::sum_to records nothing, so
// the Python package registers its own recorded sum_to here (the one its
// formula nodes reduce with, torch's node names); reduce_grad calls it for a
// gradient that requires grad while grad mode is on. Without one (the C++
// core alone) the reduction stays first-order.
using DifferentiableSumTo = at::Tensor (*)(const at::Tensor& grad, c10::IntArrayRef shape);
void set_differentiable_sum_to(DifferentiableSumTo fn);

} // namespace autograd
} // namespace torch
