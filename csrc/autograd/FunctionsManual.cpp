#include "autograd/FunctionsManual.h"
#include "aten/Functions.h"
#include "autograd/variable.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <unordered_map>

namespace torch {
namespace autograd {
namespace generated {
namespace details {
namespace {

bool on_host_float(const Variable& t) {
  return t.defined() && !t.device().is_cuda() && at::isFloatingType(t.dtype());
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
  if (g.is_contiguous() && y.is_contiguous()) return {};
  auto order = at::iteration_order(g, y);
  if (std::is_sorted(order.begin(), order.end())) return {};
  return order;
}

// out[i] = op(g[i], y[i]) for same-shaped tensors, row-major, into g when it is reusable.
template <typename Op>
Variable pointwise_row_major(const Variable& g_in, const Variable& y_in, Op op, bool allow_reuse) {
  const bool reuse = allow_reuse && reusable(g_in);  // before taking more references to g_in
  Variable g = at::contiguous(g_in), y = at::contiguous(y_in);
  Variable out = reuse ? g_in : at::empty(g.sizes(), g.dtype(), g.device());
  dispatch_float(g.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* gp = g.data_ptr<T>();
    const T* yp = y.data_ptr<T>();
    T* o = out.data_ptr<T>();
    for (int64_t i = 0; i < g.numel(); ++i) o[i] = op(gp[i], yp[i]);
  });
  return out;
}

// out[i] = op(g[i], y[i]), laid out as torch's (layout_order).
template <typename Op>
Variable pointwise(const Variable& g, const Variable& y, Op op, bool allow_reuse = true) {
  const auto order = layout_order(g, y);
  if (order.empty()) return pointwise_row_major(g, y, op, allow_reuse);
  return at::permuted(pointwise_row_major(at::permuted(g, order), at::permuted(y, order), op, false),
                      at::inverse_permutation(order));
}

// g * b where b broadcasts to g's shape (the gradient has the output's shape).
// allow_reuse: false while g is still to be read for another output.
Variable mul_broadcast(const Variable& g_in, const Variable& b_in, bool allow_reuse) {
  auto mul = [](auto x, auto y) { return x * y; };
  if (g_in.sizes() == b_in.sizes()) return pointwise(g_in, b_in, mul, allow_reuse);
  const auto& shape = g_in.sizes();
  const int64_t lead = g_in.dim() - b_in.dim();
  if (!g_in.is_contiguous()) {
    // b broadcast by zero strides decides the layout where g does not
    std::vector<int64_t> b_strides(shape.size(), 0);
    for (int64_t d = 0; d < b_in.dim(); ++d) b_strides[lead + d] = b_in.sizes()[d] == 1 ? 0 : b_in.strides()[d];
    const auto* b_impl = b_in.unsafeGetTensorImpl();
    Variable b_expanded(std::make_shared<at::TensorImpl>(b_impl->storage(), b_in.dtype(), shape, b_strides,
                                                         b_impl->storage_offset()));
    const auto order = layout_order(g_in, b_expanded);
    if (!order.empty()) {
      return at::permuted(pointwise_row_major(at::permuted(g_in, order), at::permuted(b_expanded, order), mul, false),
                          at::inverse_permutation(order));
    }
  }
  Variable g = at::contiguous(g_in), b = at::contiguous(b_in);
  const auto b_strides = at::contiguous_strides(b.sizes());
  std::vector<int64_t> map(shape.size(), 0);
  for (int64_t d = 0; d < b.dim(); ++d) map[lead + d] = b.sizes()[d] == 1 ? 0 : b_strides[d];
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
  const bool reuse = reusable(g_in);  // before taking more references to g_in
  Variable g = at::contiguous(g_in);
  Variable out = reuse ? g_in : at::empty(g.sizes(), g.dtype(), g.device());
  dispatch_float(g.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* gp = g.data_ptr<T>();
    T* o = out.data_ptr<T>();
    const T cc = static_cast<T>(c);
    for (int64_t i = 0; i < g.numel(); ++i) o[i] = op(gp[i], cc);
  });
  return out;
}

Variable mul_scalar(const Variable& g, double c) {
  return with_scalar(g, c, [](auto x, auto y) { return x * y; });
}

Variable div_scalar(const Variable& g, double c) {
  return with_scalar(g, c, [](auto x, auto y) { return x / y; });
}

} // namespace

NativeFormula native_formula_from_key(const std::string& key) {
  static const std::unordered_map<std::string, NativeFormula> table = {
      {"add_tensor", NativeFormula::AddTensor}, {"sub_tensor", NativeFormula::SubTensor},
      {"add_scalar", NativeFormula::AddScalar}, {"mul_tensor", NativeFormula::MulTensor},
      {"mul_scalar", NativeFormula::MulScalar}, {"div_scalar", NativeFormula::DivScalar},
      {"neg", NativeFormula::Neg},               {"exp", NativeFormula::Exp},
      {"tanh", NativeFormula::Tanh},             {"sigmoid", NativeFormula::Sigmoid},
      {"relu", NativeFormula::Relu},             {"sum", NativeFormula::Sum},
      {"mean", NativeFormula::Mean},
  };
  auto it = table.find(key);
  if (it == table.end()) throw std::invalid_argument("unknown native formula '" + key + "'");
  return it->second;
}

namespace {
// grad (one element) broadcast to `shape` by zero strides, as a view of it.
Variable expanded_view(const Variable& grad, const std::vector<int64_t>& shape) {
  const auto* src = grad.unsafeGetTensorImpl();
  auto result = std::make_shared<at::TensorImpl>(src->storage(), src->dtype(), shape,
                                                 std::vector<int64_t>(shape.size(), 0), src->storage_offset());
  result->set_version_counter(src->version_counter());
  Variable view(std::move(result));
  impl::set_view_of(view, grad, CreationMeta::NO_GRAD_MODE);
  return view;
}
} // namespace

bool apply_native_formula(NativeFormula formula, const Variable& grad, const variable_list& saved,
                          const NativeArgs& args, const std::vector<bool>& needs, variable_list& out) {
  if (!on_host_float(grad)) return false;
  for (const auto& s : saved) {
    if (s.defined() && (!on_host_float(s) || s.dtype() != grad.dtype())) return false;
  }
  out.assign(needs.size(), Variable());
  auto need = [&](size_t i) { return i < needs.size() && needs[i]; };
  switch (formula) {
    case NativeFormula::AddTensor:
    case NativeFormula::SubTensor: {
      const double factor = formula == NativeFormula::AddTensor ? args.scalar : -args.scalar;
      if (need(0)) out[0] = grad;
      if (need(1)) out[1] = factor == 1.0 ? grad : mul_scalar(grad, factor);
      return true;
    }
    case NativeFormula::AddScalar:
      if (need(0)) out[0] = grad;
      return true;
    case NativeFormula::MulTensor:
      if (saved.size() != 2) return false;
      if (need(0)) {
        if (!saved[1].defined()) return false;
        out[0] = mul_broadcast(grad, saved[1], /*allow_reuse=*/!need(1));
      }
      if (need(1)) {
        if (!saved[0].defined()) return false;
        out[1] = mul_broadcast(grad, saved[0], /*allow_reuse=*/true);
      }
      return true;
    case NativeFormula::MulScalar:
      if (need(0)) out[0] = mul_scalar(grad, args.scalar);
      return true;
    case NativeFormula::DivScalar:
      if (need(0)) out[0] = div_scalar(grad, args.scalar);
      return true;
    case NativeFormula::Neg:
      if (need(0)) out[0] = mul_scalar(grad, -1.0);
      return true;
    case NativeFormula::Exp:
    case NativeFormula::Tanh:
    case NativeFormula::Sigmoid:
    case NativeFormula::Relu: {
      if (saved.size() != 1 || !saved[0].defined() || saved[0].sizes() != grad.sizes()) return false;
      if (!need(0)) return true;
      const auto& y = saved[0];
      if (formula == NativeFormula::Exp) {
        out[0] = pointwise(grad, y, [](auto g, auto v) { return g * v; });
      } else if (formula == NativeFormula::Tanh) {
        // at::tanh_backward's kernel fuses 1 - v * v (one rounding)
        out[0] = pointwise(grad, y, [](auto g, auto v) { return g * std::fma(-v, v, decltype(v)(1)); });
      } else if (formula == NativeFormula::Sigmoid) {
        // at::sigmoid_backward's order of rounding
        out[0] = pointwise(grad, y, [](auto g, auto v) { return g * (1 - v) * v; });
      } else {
        // threshold_backward: 0 where the result is <= 0, else the gradient (a nan result passes it)
        out[0] = pointwise(grad, y, [](auto g, auto v) { return v <= 0 ? decltype(g)(0) : g; });
      }
      return true;
    }
    case NativeFormula::Sum:
    case NativeFormula::Mean: {
      if (grad.numel() != 1) return false;
      if (!need(0)) return true;
      if (formula == NativeFormula::Sum) {
        // sum_backward expands the gradient, as the Python formula does: a
        // view of it made without grad mode, so an in-place op on the
        // result of autograd.grad refuses as torch's does.
        out[0] = expanded_view(grad, args.shape);
        return true;
      }
      double value = grad.item();
      if (formula == NativeFormula::Mean) {
        // Divide in the gradient's dtype, as the Python formula does.
        dispatch_float(grad.dtype(), [&](auto tag) {
          using T = decltype(tag);
          value = static_cast<double>(static_cast<T>(value) / static_cast<T>(args.scalar));
        });
      }
      out[0] = at::full(args.shape, value, grad.dtype(), grad.device());
      return true;
    }
    case NativeFormula::None:
      break;
  }
  return false;
}

} // namespace details
} // namespace generated
} // namespace autograd
} // namespace torch
