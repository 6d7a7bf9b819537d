#include "autograd/input_metadata.h"
#include "aten/Functions.h"
#include "autograd/grad_mode.h"
#include "c10/core/impl/DeviceGuardImplInterface.h"

#include <atomic>

namespace torch {
namespace autograd {

InputMetadata::InputMetadata(at::ScalarType dtype, c10::IntArrayRef shape, c10::Device device, c10::Stream stream)
    : shape_(shape), stream_(stream), dtype_(dtype), device_(device) {}

InputMetadata::InputMetadata(const at::Tensor& t)
    : shape_(t.sizes()),
      stream_(c10::impl::getDeviceGuardImpl(t.device().type())->getStream(t.device())),
      dtype_(t.dtype()),
      device_(t.device()) {}

bool InputMetadata::is_same_shape(const at::Tensor& grad) const {
  return grad.sizes() == shape();
}

bool InputMetadata::is_expandable_to_shape(const at::Tensor& grad) const {
  return at::is_expandable_to(shape_, grad.sizes());
}

namespace {
std::atomic<DifferentiableSumTo> differentiable_sum_to{nullptr};
} // namespace

void set_differentiable_sum_to(DifferentiableSumTo fn) {
  differentiable_sum_to.store(fn);
}

at::Tensor InputMetadata::reduce_grad(at::Tensor& grad) const {
  if (GradMode::is_enabled() && grad.requires_grad()) {
    if (auto fn = differentiable_sum_to.load())
      return fn(grad, shape_);
  }
  return at::sum_to(grad, shape_);
}

std::stringstream InputMetadata::incompatible_shape_error_message(size_t index, const at::Tensor& grad) const {
  std::stringstream ss;
  ss << "invalid gradient at index " << index << " - got " << at::sizes_to_string(grad.sizes())
     << " but expected shape compatible with " << at::sizes_to_string(shape_);
  return ss;
}

at::Tensor InputMetadata::zeros_like() const {
  return at::zeros(shape_, dtype_, device_);
}

} // namespace autograd
} // namespace torch
