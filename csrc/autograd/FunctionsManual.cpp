#include "autograd/FunctionsManual.h"
#include "aten/Functions.h"
#include "autograd/generated/Functions.h"
#include "autograd/variable.h"
#include "c10/core/InferenceMode.h"

#include <algorithm>
#include <cmath>

namespace torch {
namespace autograd {
namespace generated {
namespace details {
namespace {

// float and double: a Half gradient takes the Python formula (its float compute, rounded once per op).
bool on_host_float(const Variable& t) {
  return t.defined() && !t.device().is_cuda() && (t.dtype() == at::kFloat || t.dtype() == at::kDouble);
}

template <typename F>
bool dispatch_float(at::ScalarType t, F&& f) {
  if (t == at::kFloat) {
    f(float{});
    return true;
  }
  if (t == at::kDouble) {
    f(double{});
    return true;
  }
  return false;
}

// Whether the result may overwrite the incoming gradient: the node holds
// its only reference, to memory no one else can reach.
bool reusable(const Variable& g) {
  return g.use_count() == 1 && at::storage_is_exclusive(g) && g.is_contiguous() && !g.requires_grad();
}

// The order (at::iteration_order) in which torch lays out an elementwise
// result over same-shaped g and y, or none where that is row-major: a
// formula computes over its operands permuted so, and views the result back.
std::vector<int64_t> layout_order(const Variable& g, const Variable& y) {
  if (g.is_contiguous() && y.is_contiguous())
    return {};
  auto order = at::iteration_order(g, y);
  if (std::is_sorted(order.begin(), order.end()))
    return {};
  return order;
}

// out[i] = op(g[i], y[i]) for same-shaped tensors, row-major, into g when it is reusable.
template <typename Op>
Variable pointwise_row_major(const Variable& g_in, const Variable& y_in, Op op, bool allow_reuse) {
  const bool reuse = allow_reuse && reusable(g_in); // before taking more references to g_in
  Variable g = at::contiguous(g_in), y = at::contiguous(y_in);
  Variable out = reuse ? g_in : at::empty(g.sizes(), g.dtype(), g.device());
  dispatch_float(g.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* gp = g.data_ptr<T>();
    const T* yp = y.data_ptr<T>();
    T* o = out.data_ptr<T>();
    for (int64_t i = 0; i < g.numel(); ++i)
      o[i] = op(gp[i], yp[i]);
  });
  return out;
}

// out[i] = op(g[i], y[i]), laid out as torch's (layout_order).
template <typename Op>
Variable pointwise(const Variable& g, const Variable& y, Op op, bool allow_reuse = true) {
  const auto order = layout_order(g, y);
  if (order.empty())
    return pointwise_row_major(g, y, op, allow_reuse);
  return at::permuted(
      pointwise_row_major(at::permuted(g, order), at::permuted(y, order), op, false), at::inverse_permutation(order));
}

// g * b where b broadcasts to g's shape (the gradient has the output's shape).
// allow_reuse: false while g is still to be read for another output.
Variable mul_broadcast(const Variable& g_in, const Variable& b_in, bool allow_reuse) {
  auto mul = [](auto x, auto y) { return x * y; };
  if (g_in.sizes() == b_in.sizes())
    return pointwise(g_in, b_in, mul, allow_reuse);
  const auto& shape = g_in.sizes();
  const int64_t lead = g_in.dim() - b_in.dim();
  if (!g_in.is_contiguous()) {
    // b broadcast by zero strides decides the layout where g does not
    std::vector<int64_t> b_strides(shape.size(), 0);
    for (int64_t d = 0; d < b_in.dim(); ++d)
      b_strides[lead + d] = b_in.sizes()[d] == 1 ? 0 : b_in.strides()[d];
    const auto* b_impl = b_in.unsafeGetTensorImpl();
    Variable b_expanded(
        std::make_shared<at::TensorImpl>(b_impl->storage(), b_in.dtype(), shape, b_strides, b_impl->storage_offset()));
    const auto order = layout_order(g_in, b_expanded);
    if (!order.empty()) {
      return at::permuted(
          pointwise_row_major(at::permuted(g_in, order), at::permuted(b_expanded, order), mul, false),
          at::inverse_permutation(order));
    }
  }
  Variable g = at::contiguous(g_in), b = at::contiguous(b_in);
  const auto b_strides = at::contiguous_strides(b.sizes());
  std::vector<int64_t> map(shape.size(), 0);
  for (int64_t d = 0; d < b.dim(); ++d)
    map[lead + d] = b.sizes()[d] == 1 ? 0 : b_strides[d];
  Variable out = at::empty(shape, g.dtype(), g.device());
  dispatch_float(g.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* gp = g.data_ptr<T>();
    const T* bp = b.data_ptr<T>();
    T* o = out.data_ptr<T>();
    for (int64_t i = 0; i < g.numel(); ++i) {
      int64_t rest = i, off = 0;
      for (int64_t d = g.dim() - 1; d >= 0; --d) {
        off += (rest % shape[d]) * map[d];
        rest /= shape[d];
      }
      o[i] = gp[i] * bp[off];
    }
  });
  return out;
}

// g * c or g / c with c rounded to g's dtype first, as numpy and PyTorch
// compute a tensor-scalar op; laid out as torch's (layout_order).
template <typename Op>
Variable with_scalar(const Variable& g_in, double c, Op op) {
  const auto order = layout_order(g_in, g_in);
  if (!order.empty()) {
    return at::permuted(with_scalar(at::contiguous(at::permuted(g_in, order)), c, op), at::inverse_permutation(order));
  }
  const bool reuse = reusable(g_in); // before taking more references to g_in
  Variable g = at::contiguous(g_in);
  Variable out = reuse ? g_in : at::empty(g.sizes(), g.dtype(), g.device());
  dispatch_float(g.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* gp = g.data_ptr<T>();
    T* o = out.data_ptr<T>();
    const T cc = static_cast<T>(c);
    for (int64_t i = 0; i < g.numel(); ++i)
      o[i] = op(gp[i], cc);
  });
  return out;
}

Variable mul_scalar(const Variable& g, double c) {
  return with_scalar(g, c, [](auto x, auto y) { return x * y; });
}

Variable div_scalar(const Variable& g, double c) {
  return with_scalar(g, c, [](auto x, auto y) { return x / y; });
}

// grad (one element) broadcast to `shape` by zero strides, as a view of it.
Variable expanded_view(const Variable& grad, const std::vector<int64_t>& shape) {
  Variable view = at::alias_with_sizes_and_strides(
      grad, shape, std::vector<int64_t>(shape.size(), 0), grad.unsafeGetTensorImpl()->storage_offset());
  impl::set_view_of(view, grad, CreationMeta::NO_GRAD_MODE);
  return view;
}

bool is_wrapped_scalar(const Variable& t) {
  return t.dim() == 0 && t.unsafeGetTensorImpl()->is_wrapped_number();
}

} // namespace

bool native_inputs_supported(const Variable& grad, const variable_list& saved) {
  if (!on_host_float(grad))
    return false;
  for (const auto& s : saved) {
    if (s.defined() && !is_wrapped_scalar(s) && (!on_host_float(s) || s.dtype() != grad.dtype()))
      return false;
  }
  return true;
}

Variable maybe_multiply(const Variable& grad, double alpha) {
  return alpha == 1.0 ? grad : mul_scalar(grad, alpha);
}

Variable neg(const Variable& grad) {
  return mul_scalar(grad, -1.0);
}

Variable mul_tensor_backward(const Variable& grad, const Variable& other) {
  if (!other.defined())
    return Variable();
  // x * 2: the wrapped number, rounded to the gradient's dtype as torch's kernel rounds it
  if (is_wrapped_scalar(other))
    return mul_scalar(grad, other.item());
  return mul_broadcast(grad, other, /*allow_reuse=*/true);
}

Variable div_tensor_self_backward(const Variable& grad, const Variable& other) {
  if (!other.defined() || !is_wrapped_scalar(other))
    return Variable();
  return div_scalar(grad, other.item());
}

Variable tanh_backward(const Variable& grad, const Variable& result) {
  if (!result.defined() || result.sizes() != grad.sizes())
    return Variable();
  // at::tanh_backward's kernel fuses 1 - v * v (one rounding)
  return pointwise(grad, result, [](auto g, auto v) { return g * std::fma(-v, v, decltype(v)(1)); });
}

Variable sigmoid_backward(const Variable& grad, const Variable& result) {
  if (!result.defined() || result.sizes() != grad.sizes())
    return Variable();
  // at::sigmoid_backward's order of rounding
  return pointwise(grad, result, [](auto g, auto v) { return g * (1 - v) * v; });
}

Variable threshold_backward(const Variable& grad, const Variable& self, double threshold) {
  if (!self.defined() || self.sizes() != grad.sizes())
    return Variable();
  // 0 where self <= threshold, else the gradient (a nan passes it)
  return pointwise(grad, self, [threshold](auto g, auto v) { return v <= threshold ? decltype(g)(0) : g; });
}

Variable expand_symint(const Variable& grad, const std::vector<int64_t>& sizes) {
  // sum_backward expands the gradient, as the Python formula does: a view of
  // it made without grad mode, so an in-place op on the result of
  // autograd.grad refuses as torch's does.
  if (grad.numel() != 1)
    return Variable();
  return expanded_view(grad, sizes);
}

Variable mean_backward(const Variable& grad, const std::vector<int64_t>& sizes, int64_t numel) {
  if (grad.numel() != 1)
    return Variable();
  // Divide in the gradient's dtype, as the Python formula does.
  double value = grad.item();
  dispatch_float(grad.dtype(), [&](auto tag) {
    using T = decltype(tag);
    value = static_cast<double>(static_cast<T>(value) / static_cast<T>(numel));
  });
  return at::full(sizes, value, grad.dtype(), grad.device());
}

Variable to_copy_backward(const Variable& grad, at::ScalarType self_dtype, c10::Device self_device) {
  return autograd::to(grad, self_dtype, self_device);
}

variable_list stack_tensors_backward(
    const Variable& grad,
    int64_t dim,
    const std::vector<at::ScalarType>& dtypes,
    const std::vector<bool>& needs) {
  const int64_t ndim = grad.dim();
  const size_t n = dtypes.size();
  // The Python formula's views carry no view relation in inference mode (record_view's)
  if (ndim == 0 || needs.size() != n || c10::InferenceMode::is_enabled() || grad.unsafeGetTensorImpl()->is_inference())
    return {};
  const int64_t d = ((dim % ndim) + ndim) % ndim; // Python's dim %= grad.dim() (saved as given)
  if (grad.sizes()[d] != static_cast<int64_t>(n))
    return {};
  for (size_t i = 0; i < n; ++i) {
    if (needs[i] && dtypes[i] != grad.dtype())
      return {}; // as_dtype casts it back: the Python formula
  }
  const int64_t offset = grad.unsafeGetTensorImpl()->storage_offset();
  std::vector<int64_t> sizes = grad.sizes();
  std::vector<int64_t> strides = grad.strides();
  const int64_t step = strides[d];
  sizes.erase(sizes.begin() + d);
  strides.erase(strides.begin() + d);
  variable_list out(n);
  for (size_t i = 0; i < n; ++i) {
    if (!needs[i])
      continue;
    // grad.select(dim, i): the same storage, version counter and view base
    out[i] = at::alias_with_sizes_and_strides(grad, sizes, strides, offset + static_cast<int64_t>(i) * step);
    impl::set_view_of(out[i], grad, CreationMeta::NO_GRAD_MODE);
  }
  return out;
}

} // namespace details
} // namespace generated
} // namespace autograd
} // namespace torch
