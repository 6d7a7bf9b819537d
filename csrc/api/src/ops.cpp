// The C++ front end's differentiable ops: C++ CPU kernels (contiguous float32
// and float64, broadcasting binary ops, a plain matmul loop) and the nodes
// they record, under upstream's names (tools/autograd/derivatives.yaml:
// AddBackward0, MulBackward1, TanhBackward0, SumBackward0, MmBackward0, ...).
// Each backward formula is written in these same ops, so under create_graph
// the backward records its own history and double backward works (the
// engine's own C++ formulas, autograd/generated/NativeFormulas.cpp, compute
// without history: they serve the first-order GIL-free path only).
#include "api/src/ops_internal.h"

#include "aten/Functions.h"
#include "autograd/function.h"
#include "autograd/grad_mode.h"
#include "autograd/saved_variable.h"
#include "autograd/variable.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace torch {
namespace frontend {

using autograd::Edge;
using autograd::GradMode;
using autograd::Node;
using autograd::SavedVariable;
using autograd::variable_list;

namespace {

// ---- kernels ----

template <typename F>
void dispatch_float(at::ScalarType t, const char* op, F&& f) {
  if (t == at::kFloat) {
    f(float{});
  } else if (t == at::kDouble) {
    f(double{});
  } else {
    throw std::runtime_error(std::string("\"") + op + "\" not implemented for '" + at::toString(t) + "'");
  }
}

std::vector<int64_t> broadcast_shapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  const size_t n = std::max(a.size(), b.size());
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1) {
      throw std::runtime_error(
          "The size of tensor a (" + std::to_string(da) + ") must match the size of tensor b (" + std::to_string(db) +
          ") at non-singleton dimension " + std::to_string(i));
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

// Strides (in elements) that read contiguous `c` broadcast to `shape`.
std::vector<int64_t> broadcast_strides(const at::Tensor& c, const std::vector<int64_t>& shape) {
  const auto cs = at::contiguous_strides(c.sizes());
  const size_t lead = shape.size() - static_cast<size_t>(c.dim());
  std::vector<int64_t> s(shape.size(), 0);
  for (size_t d = 0; d < static_cast<size_t>(c.dim()); ++d)
    s[lead + d] = c.sizes()[d] == 1 ? 0 : cs[d];
  return s;
}

// torch's result type for two floating tensors: a 0-dim operand does not
// promote a dimensioned one of the same category (float32 stays float32).
at::ScalarType result_type(const at::Tensor& a, const at::Tensor& b) {
  if (a.dtype() == b.dtype())
    return a.dtype();
  if (a.dim() == 0 && b.dim() > 0)
    return b.dtype();
  if (b.dim() == 0 && a.dim() > 0)
    return a.dtype();
  return at::kDouble;
}

void check_floating(const at::Tensor& t, const char* op) {
  if (!t.defined())
    throw std::runtime_error(std::string(op) + ": expected a defined tensor");
  if (t.dtype() != at::kFloat && t.dtype() != at::kDouble) {
    throw std::runtime_error(
        std::string("\"") + op + "\" not implemented for '" + at::toString(t.dtype()) +
        "' (the C++ front end computes in float32 and float64)");
  }
}

template <typename Op>
at::Tensor binary_kernel(const at::Tensor& a_in, const at::Tensor& b_in, const char* op_name, Op op) {
  check_floating(a_in, op_name);
  check_floating(b_in, op_name);
  const auto dtype = result_type(a_in, b_in);
  const at::Tensor a = at::contiguous(at::to(a_in, dtype)), b = at::contiguous(at::to(b_in, dtype));
  const auto shape = broadcast_shapes(a.sizes(), b.sizes());
  at::Tensor out = at::empty(shape, dtype);
  const auto sa = broadcast_strides(a, shape), sb = broadcast_strides(b, shape);
  dispatch_float(dtype, op_name, [&](auto tag) {
    using T = decltype(tag);
    const T* x = a.data_ptr<T>();
    const T* y = b.data_ptr<T>();
    T* o = out.data_ptr<T>();
    const int64_t n = out.numel();
    const auto nd = static_cast<int64_t>(shape.size());
    std::vector<int64_t> idx(shape.size(), 0);
    int64_t oa = 0, ob = 0;
    for (int64_t i = 0; i < n; ++i) {
      o[i] = op(x[oa], y[ob]);
      for (int64_t d = nd - 1; d >= 0; --d) {
        ++idx[d];
        oa += sa[d];
        ob += sb[d];
        if (idx[d] < shape[d])
          break;
        oa -= sa[d] * shape[d];
        ob -= sb[d] * shape[d];
        idx[d] = 0;
      }
    }
  });
  return out;
}

template <typename Op>
at::Tensor unary_kernel(const at::Tensor& a_in, const char* op_name, Op op) {
  check_floating(a_in, op_name);
  const at::Tensor a = at::contiguous(a_in);
  at::Tensor out = at::empty(a.sizes(), a.dtype());
  dispatch_float(a.dtype(), op_name, [&](auto tag) {
    using T = decltype(tag);
    const T* x = a.data_ptr<T>();
    T* o = out.data_ptr<T>();
    for (int64_t i = 0; i < a.numel(); ++i)
      o[i] = op(x[i]);
  });
  return out;
}

// A tensor op a Python number: the number is rounded to the tensor's dtype first, as torch's
// kernels take it.
template <typename Op>
at::Tensor scalar_kernel(const at::Tensor& a, double s, const char* op_name, Op op) {
  at::Tensor out;
  dispatch_float(a.defined() ? a.dtype() : at::kFloat, op_name, [&](auto tag) {
    using T = decltype(tag);
    const T c = static_cast<T>(s);
    out = unary_kernel(a, op_name, [&](T x) { return op(x, c); });
  });
  return out;
}

int64_t wrap_dim(int64_t dim, int64_t ndim) {
  const int64_t n = ndim == 0 ? 1 : ndim;
  if (dim < -n || dim >= n) {
    throw std::out_of_range(
        "Dimension out of range (expected to be in range of [" + std::to_string(-n) + ", " + std::to_string(n - 1) +
        "], but got " + std::to_string(dim) + ")");
  }
  return dim < 0 ? dim + n : dim;
}

// Sums over `dim` (row-major, accumulated in double then rounded once).
at::Tensor sum_dim_kernel(const at::Tensor& a_in, int64_t dim, bool keepdim, double scale) {
  check_floating(a_in, "sum");
  const at::Tensor a = at::contiguous(a_in);
  std::vector<int64_t> out_sizes = a.sizes();
  int64_t outer = 1, len = 1, inner = 1;
  if (a.dim() > 0) {
    len = a.sizes()[dim];
    for (int64_t d = 0; d < dim; ++d)
      outer *= a.sizes()[d];
    for (int64_t d = dim + 1; d < a.dim(); ++d)
      inner *= a.sizes()[d];
    if (keepdim)
      out_sizes[dim] = 1;
    else
      out_sizes.erase(out_sizes.begin() + dim);
  }
  at::Tensor out = at::empty(out_sizes, a.dtype());
  dispatch_float(a.dtype(), "sum", [&](auto tag) {
    using T = decltype(tag);
    const T* x = a.data_ptr<T>();
    T* o = out.data_ptr<T>();
    for (int64_t i = 0; i < outer; ++i) {
      for (int64_t k = 0; k < inner; ++k) {
        double acc = 0;
        for (int64_t j = 0; j < len; ++j)
          acc += static_cast<double>(x[(i * len + j) * inner + k]);
        o[i * inner + k] = static_cast<T>(acc * scale);
      }
    }
  });
  return out;
}

at::Tensor sum_all_kernel(const at::Tensor& a_in, double scale) {
  check_floating(a_in, "sum");
  const at::Tensor a = at::contiguous(a_in);
  at::Tensor out = at::empty({}, a.dtype());
  dispatch_float(a.dtype(), "sum", [&](auto tag) {
    using T = decltype(tag);
    const T* x = a.data_ptr<T>();
    double acc = 0;
    for (int64_t i = 0; i < a.numel(); ++i)
      acc += static_cast<double>(x[i]);
    *out.data_ptr<T>() = static_cast<T>(acc * scale);
  });
  return out;
}

// [n, k] @ [k, m], accumulated in double.
at::Tensor mm_kernel(const at::Tensor& a_in, const at::Tensor& b_in) {
  check_floating(a_in, "mm");
  check_floating(b_in, "mm");
  if (a_in.dim() != 2)
    throw std::runtime_error("self must be a matrix");
  if (b_in.dim() != 2)
    throw std::runtime_error("mat2 must be a matrix");
  if (a_in.sizes()[1] != b_in.sizes()[0]) {
    throw std::runtime_error(
        "mat1 and mat2 shapes cannot be multiplied (" + std::to_string(a_in.sizes()[0]) + "x" +
        std::to_string(a_in.sizes()[1]) + " and " + std::to_string(b_in.sizes()[0]) + "x" +
        std::to_string(b_in.sizes()[1]) + ")");
  }
  if (a_in.dtype() != b_in.dtype()) {
    throw std::runtime_error(
        std::string("expected m1 and m2 to have the same dtype, but got: ") + at::toString(a_in.dtype()) +
        " != " + at::toString(b_in.dtype()));
  }
  const at::Tensor a = at::contiguous(a_in), b = at::contiguous(b_in);
  const int64_t n = a.sizes()[0], k = a.sizes()[1], m = b.sizes()[1];
  at::Tensor out = at::empty({n, m}, a.dtype());
  dispatch_float(a.dtype(), "mm", [&](auto tag) {
    using T = decltype(tag);
    const T* x = a.data_ptr<T>();
    const T* y = b.data_ptr<T>();
    T* o = out.data_ptr<T>();
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < m; ++j) {
        double acc = 0;
        for (int64_t p = 0; p < k; ++p)
          acc += static_cast<double>(x[i * k + p]) * static_cast<double>(y[p * m + j]);
        o[i * m + j] = static_cast<T>(acc);
      }
    }
  });
  return out;
}

// ---- recording ----

using Formula = std::function<variable_list(const variable_list& saved, const at::Tensor& grad)>;

// The node of one front-end op: its saved tensors and its formula.
struct OpNode final : public Node {
  OpNode(const char* name, autograd::edge_list&& edges) : Node(std::move(edges)), name_(name) {}
  std::string name() const override {
    return name_;
  }
  void release_variables() override {
    for (auto& s : saved_)
      s.reset_data();
  }
  const char* name_;
  std::vector<SavedVariable> saved_;
  Formula formula_;

 protected:
  variable_list apply(variable_list&& grads) override {
    variable_list saved;
    saved.reserve(saved_.size());
    for (const auto& s : saved_)
      saved.push_back(s.unpack(shared_from_this()));
    variable_list out(num_outputs());
    if (!grads[0].defined())
      return out;
    variable_list computed = formula_(saved, grads[0]);
    for (size_t i = 0; i < out.size() && i < computed.size(); ++i) {
      if (should_compute_output(i))
        out[i] = std::move(computed[i]);
    }
    return out;
  }
};

bool any_requires_grad(const variable_list& inputs) {
  for (const auto& v : inputs) {
    if (v.defined() && v.requires_grad())
      return true;
  }
  return false;
}

// Records `name` for `result` when grad mode is on and an input requires grad:
// the node's next edges are the inputs', it saves `saves` (and `result` itself
// when save_result), and its backward is `formula`.
at::Tensor record(
    const char* name,
    at::Tensor result,
    const variable_list& inputs,
    const variable_list& saves,
    bool save_result,
    Formula formula) {
  if (!GradMode::is_enabled() || !any_requires_grad(inputs) || !at::isDifferentiableType(result.dtype()))
    return result;
  auto node = autograd::make_node<OpNode>(name, autograd::collect_next_edges(inputs));
  autograd::create_gradient_edge(result, node);
  for (const auto& s : saves)
    node->saved_.emplace_back(s, /*is_output=*/false);
  if (save_result)
    node->saved_.emplace_back(result, /*is_output=*/true);
  node->formula_ = std::move(formula);
  return result;
}

// g cast to dtype (differentiable: ToCopyBackward0).
at::Tensor cast(const at::Tensor& g, at::ScalarType dtype) {
  if (!g.defined() || g.dtype() == dtype)
    return g;
  const auto src = g.dtype();
  return record("ToCopyBackward0", at::to(g, dtype), {g}, {}, false, [src](const variable_list&, const at::Tensor& gr) {
    return variable_list{cast(gr, src)};
  });
}

} // namespace

// ---- public ops (declared in ops_internal.h; the methods and operators below call them) ----

at::Tensor sum_to(const at::Tensor& g, const std::vector<int64_t>& shape) {
  if (g.sizes() == shape)
    return g;
  std::vector<int64_t> in_sizes = g.sizes();
  // upstream at::sum_to is sum(dims, keepdim=True) then a view: one SumBackward1 here
  return record(
      "SumBackward1",
      at::sum_to(at::contiguous(g), shape),
      {g},
      {},
      false,
      [in_sizes](const variable_list&, const at::Tensor& gr) { return variable_list{gr.expand(in_sizes)}; });
}

// The gradient of a broadcast input: summed to its shape, in its dtype.
at::Tensor reduce_to(const at::Tensor& g, const std::vector<int64_t>& shape, at::ScalarType dtype) {
  return cast(frontend::sum_to(g, shape), dtype);
}

at::Tensor add(const at::Tensor& a, const at::Tensor& b) {
  std::vector<int64_t> sa = a.sizes(), sb = b.sizes();
  auto da = a.dtype(), db = b.dtype();
  return record(
      "AddBackward0",
      binary_kernel(a, b, "add", [](auto x, auto y) { return x + y; }),
      {a, b},
      {},
      false,
      [=](const variable_list&, const at::Tensor& g) {
        return variable_list{reduce_to(g, sa, da), reduce_to(g, sb, db)};
      });
}

at::Tensor sub(const at::Tensor& a, const at::Tensor& b) {
  std::vector<int64_t> sa = a.sizes(), sb = b.sizes();
  auto da = a.dtype(), db = b.dtype();
  return record(
      "SubBackward0",
      binary_kernel(a, b, "sub", [](auto x, auto y) { return x - y; }),
      {a, b},
      {},
      false,
      [=](const variable_list&, const at::Tensor& g) {
        return variable_list{reduce_to(g, sa, da), reduce_to(-g, sb, db)};
      });
}

at::Tensor mul(const at::Tensor& a, const at::Tensor& b) {
  std::vector<int64_t> sa = a.sizes(), sb = b.sizes();
  auto da = a.dtype(), db = b.dtype();
  return record(
      "MulBackward0",
      binary_kernel(a, b, "mul", [](auto x, auto y) { return x * y; }),
      {a, b},
      {a, b},
      false,
      [=](const variable_list& s, const at::Tensor& g) {
        return variable_list{reduce_to(mul(g, s[1]), sa, da), reduce_to(mul(g, s[0]), sb, db)};
      });
}

at::Tensor div(const at::Tensor& a, const at::Tensor& b) {
  std::vector<int64_t> sa = a.sizes(), sb = b.sizes();
  auto da = a.dtype(), db = b.dtype();
  return record(
      "DivBackward0",
      binary_kernel(a, b, "div", [](auto x, auto y) { return x / y; }),
      {a, b},
      {a, b},
      false,
      [=](const variable_list& s, const at::Tensor& g) {
        // upstream div_tensor_self_backward / div_tensor_other_backward
        return variable_list{reduce_to(div(g, s[1]), sa, da), reduce_to(div(mul(-g, s[0]), mul(s[1], s[1])), sb, db)};
      });
}

at::Tensor add_scalar(const at::Tensor& a, double s) {
  return record(
      "AddBackward1",
      scalar_kernel(a, s, "add", [](auto x, auto c) { return x + c; }),
      {a},
      {},
      false,
      [](const variable_list&, const at::Tensor& g) { return variable_list{g}; });
}

at::Tensor sub_scalar(const at::Tensor& a, double s) {
  return record(
      "SubBackward1",
      scalar_kernel(a, s, "sub", [](auto x, auto c) { return x - c; }),
      {a},
      {},
      false,
      [](const variable_list&, const at::Tensor& g) { return variable_list{g}; });
}

at::Tensor rsub_scalar(const at::Tensor& a, double s) {
  return record(
      "RsubBackward1",
      scalar_kernel(a, s, "rsub", [](auto x, auto c) { return c - x; }),
      {a},
      {},
      false,
      [](const variable_list&, const at::Tensor& g) { return variable_list{-g}; });
}

at::Tensor mul_scalar(const at::Tensor& a, double s) {
  return record(
      "MulBackward1",
      scalar_kernel(a, s, "mul", [](auto x, auto c) { return x * c; }),
      {a},
      {},
      false,
      [s](const variable_list&, const at::Tensor& g) { return variable_list{mul_scalar(g, s)}; });
}

at::Tensor div_scalar(const at::Tensor& a, double s) {
  return record(
      "DivBackward1",
      scalar_kernel(a, s, "div", [](auto x, auto c) { return x / c; }),
      {a},
      {},
      false,
      [s](const variable_list&, const at::Tensor& g) { return variable_list{div_scalar(g, s)}; });
}

at::Tensor neg(const at::Tensor& a) {
  return record(
      "NegBackward0",
      unary_kernel(a, "neg", [](auto x) { return -x; }),
      {a},
      {},
      false,
      [](const variable_list&, const at::Tensor& g) { return variable_list{neg(g)}; });
}

at::Tensor reciprocal(const at::Tensor& a) {
  return record(
      "ReciprocalBackward0",
      unary_kernel(a, "reciprocal", [](auto x) { return decltype(x)(1) / x; }),
      {a},
      {},
      true,
      [](const variable_list& s, const at::Tensor& g) { return variable_list{mul(neg(g), mul(s[0], s[0]))}; });
}

at::Tensor tanh(const at::Tensor& a) {
  return record(
      "TanhBackward0",
      unary_kernel(a, "tanh", [](auto x) { return std::tanh(x); }),
      {a},
      {},
      true,
      [](const variable_list& s, const at::Tensor& g) {
        // tanh_backward: grad * (1 - y * y)
        return variable_list{mul(g, rsub_scalar(mul(s[0], s[0]), 1.0))};
      });
}

at::Tensor exp(const at::Tensor& a) {
  return record(
      "ExpBackward0",
      unary_kernel(a, "exp", [](auto x) { return std::exp(x); }),
      {a},
      {},
      true,
      [](const variable_list& s, const at::Tensor& g) { return variable_list{mul(g, s[0])}; });
}

at::Tensor pow(const at::Tensor& a, double e) {
  at::Tensor out = scalar_kernel(a, e, "pow", [](auto x, auto c) {
    if (c == decltype(c)(2))
      return x * x;
    return std::pow(x, c);
  });
  return record("PowBackward0", std::move(out), {a}, {a}, false, [e](const variable_list& s, const at::Tensor& g) {
    // pow_backward: grad * (exponent * self.pow(exponent - 1)); zero for exponent 0
    if (e == 0.0)
      return variable_list{mul_scalar(g, 0.0)};
    return variable_list{mul(g, mul_scalar(pow(s[0], e - 1.0), e))};
  });
}

at::Tensor sum(const at::Tensor& a) {
  std::vector<int64_t> sizes = a.sizes();
  return record(
      "SumBackward0", sum_all_kernel(a, 1.0), {a}, {}, false, [sizes](const variable_list&, const at::Tensor& g) {
        return variable_list{g.expand(sizes)};
      });
}

at::Tensor sum_dim(const at::Tensor& a, int64_t dim_in, bool keepdim) {
  const int64_t dim = wrap_dim(dim_in, a.dim());
  std::vector<int64_t> sizes = a.sizes();
  return record(
      "SumBackward1",
      sum_dim_kernel(a, dim, keepdim, 1.0),
      {a},
      {},
      false,
      [=](const variable_list&, const at::Tensor& g) {
        return variable_list{(keepdim || sizes.empty() ? g : g.unsqueeze(dim)).expand(sizes)};
      });
}

at::Tensor mean(const at::Tensor& a) {
  std::vector<int64_t> sizes = a.sizes();
  const int64_t n = a.numel();
  return record(
      "MeanBackward0",
      sum_all_kernel(a, 1.0 / static_cast<double>(n)),
      {a},
      {},
      false,
      [sizes, n](const variable_list&, const at::Tensor& g) {
        return variable_list{div_scalar(g.expand(sizes), static_cast<double>(n))};
      });
}

at::Tensor mean_dim(const at::Tensor& a, int64_t dim_in, bool keepdim) {
  const int64_t dim = wrap_dim(dim_in, a.dim());
  std::vector<int64_t> sizes = a.sizes();
  const double len = sizes.empty() ? 1.0 : static_cast<double>(sizes[dim]);
  return record(
      "MeanBackward1",
      sum_dim_kernel(a, dim, keepdim, 1.0 / len),
      {a},
      {},
      false,
      [=](const variable_list&, const at::Tensor& g) {
        return variable_list{div_scalar((keepdim || sizes.empty() ? g : g.unsqueeze(dim)).expand(sizes), len)};
      });
}

at::Tensor mm(const at::Tensor& a, const at::Tensor& b) {
  return record("MmBackward0", mm_kernel(a, b), {a, b}, {a, b}, false, [](const variable_list& s, const at::Tensor& g) {
    // mm_mat1_backward / mm_mat2_backward
    return variable_list{mm(g, s[1].t()), mm(s[0].t(), g)};
  });
}

at::Tensor mv(const at::Tensor& a, const at::Tensor& v) {
  if (a.dim() != 2 || v.dim() != 1) {
    throw std::runtime_error(
        "vector + matrix @ vector expected, got " + std::to_string(a.dim()) + ", " + std::to_string(v.dim()));
  }
  at::Tensor out = mm_kernel(
      a,
      at::alias_with_sizes_and_strides(
          v, {v.sizes()[0], 1}, {v.strides()[0], 1}, v.unsafeGetTensorImpl()->storage_offset()));
  out = at::Tensor(
      std::make_shared<at::TensorImpl>(
          out.unsafeGetTensorImpl()->storage(),
          out.dtype(),
          std::vector<int64_t>{a.sizes()[0]},
          std::vector<int64_t>{1}));
  return record("MvBackward0", std::move(out), {a, v}, {a, v}, false, [](const variable_list& s, const at::Tensor& g) {
    return variable_list{mm(g.unsqueeze(1), s[1].unsqueeze(0)), mv(s[0].t(), g)};
  });
}

at::Tensor dot(const at::Tensor& a, const at::Tensor& b) {
  if (a.dim() != 1 || b.dim() != 1) {
    throw std::runtime_error(
        "1D tensors expected, but got " + std::to_string(a.dim()) + "D and " + std::to_string(b.dim()) + "D tensors");
  }
  if (a.sizes() != b.sizes()) {
    throw std::runtime_error(
        "inconsistent tensor size, expected tensor [" + std::to_string(a.sizes()[0]) + "] and src [" +
        std::to_string(b.sizes()[0]) + "] to have the same number of elements, but got " +
        std::to_string(a.sizes()[0]) + " and " + std::to_string(b.sizes()[0]) + " elements respectively");
  }
  at::Tensor prod = binary_kernel(a, b, "dot", [](auto x, auto y) { return x * y; });
  return record(
      "DotBackward0",
      sum_all_kernel(prod, 1.0),
      {a, b},
      {a, b},
      false,
      [](const variable_list& s, const at::Tensor& g) { return variable_list{mul(g, s[1]), mul(g, s[0])}; });
}

at::Tensor matmul(const at::Tensor& a, const at::Tensor& b) {
  // at::matmul's cases for 1-d and 2-d operands (upstream aten/src/ATen/native/LinearAlgebra.cpp)
  if (a.dim() == 1 && b.dim() == 1)
    return dot(a, b);
  if (a.dim() == 2 && b.dim() == 1)
    return mv(a, b);
  if (a.dim() == 1 && b.dim() == 2)
    return mm(a.unsqueeze(0), b).squeeze(0);
  if (a.dim() == 2 && b.dim() == 2)
    return mm(a, b);
  throw std::runtime_error(
      "matmul: the C++ front end multiplies 1-d and 2-d tensors only, got " + std::to_string(a.dim()) + "-d and " +
      std::to_string(b.dim()) + "-d");
}

at::Tensor addmm(const at::Tensor& self, const at::Tensor& m1, const at::Tensor& m2) {
  at::Tensor prod = mm_kernel(m1, m2);
  at::Tensor out = binary_kernel(prod, self, "addmm", [](auto x, auto y) { return y + x; });
  if (out.sizes() != prod.sizes()) {
    throw std::runtime_error(
        "The expanded size of the tensor (" + std::to_string(prod.sizes().back()) +
        ") must match the existing size of the bias");
  }
  std::vector<int64_t> ss = self.sizes();
  auto sd = self.dtype();
  return record(
      "AddmmBackward0",
      std::move(out),
      {self, m1, m2},
      {m1, m2},
      false,
      [ss, sd](const variable_list& s, const at::Tensor& g) {
        return variable_list{reduce_to(g, ss, sd), mm(g, s[1].t()), mm(s[0].t(), g)};
      });
}

// g / n where n is not 0, else 0 (norm_backward's masked_fill_(norm == 0, 0)).
at::Tensor div_or_zero(const at::Tensor& g, const at::Tensor& n) {
  at::Tensor out = binary_kernel(g, n, "norm_backward", [](auto x, auto y) { return y == 0 ? decltype(x)(0) : x / y; });
  std::vector<int64_t> sg = g.sizes(), sn = n.sizes();
  auto dg = g.dtype(), dn = n.dtype();
  return record(
      "DivBackward0", std::move(out), {g, n}, {g, n}, false, [=](const variable_list& s, const at::Tensor& gr) {
        return variable_list{
            reduce_to(div_or_zero(gr, s[1]), sg, dg),
            reduce_to(neg(mul(div_or_zero(gr, s[1]), div_or_zero(s[0], s[1]))), sn, dn)};
      });
}

at::Tensor norm(const at::Tensor& a) {
  at::Tensor sq = unary_kernel(a, "norm", [](auto x) { return x * x; });
  at::Tensor out = unary_kernel(sum_all_kernel(sq, 1.0), "norm", [](auto x) { return std::sqrt(x); });
  return record("NormBackward0", std::move(out), {a}, {a}, true, [](const variable_list& s, const at::Tensor& g) {
    // norm_backward for p = 2: self * (grad / norm), 0 where the norm is 0
    return variable_list{mul(s[0], div_or_zero(g, s[1]))};
  });
}

at::Tensor norm_dim(const at::Tensor& a, double p, int64_t dim_in, bool keepdim) {
  if (p != 2.0)
    throw std::runtime_error("norm: the C++ front end computes the 2-norm only");
  const int64_t dim = wrap_dim(dim_in, a.dim());
  at::Tensor sq = unary_kernel(a, "norm", [](auto x) { return x * x; });
  at::Tensor out = unary_kernel(sum_dim_kernel(sq, dim, keepdim, 1.0), "norm", [](auto x) { return std::sqrt(x); });
  const bool squeezed = !keepdim && a.dim() > 0;
  return record("NormBackward1", std::move(out), {a}, {a}, true, [=](const variable_list& s, const at::Tensor& g) {
    at::Tensor gk = squeezed ? g.unsqueeze(dim) : g;
    at::Tensor nk = squeezed ? s[1].unsqueeze(dim) : s[1];
    return variable_list{mul(s[0], div_or_zero(gk, nk))};
  });
}

at::Tensor mse_loss(const at::Tensor& input, const at::Tensor& target) {
  at::Tensor diff = binary_kernel(input, target, "mse_loss", [](auto x, auto y) { return (x - y) * (x - y); });
  const double n = static_cast<double>(diff.numel());
  std::vector<int64_t> si = input.sizes(), st = target.sizes();
  auto di = input.dtype(), dt = target.dtype();
  return record(
      "MseLossBackward0",
      sum_all_kernel(diff, 1.0 / n),
      {input, target},
      {input, target},
      false,
      [=](const variable_list& s, const at::Tensor& g) {
        // mse_loss_backward: 2 * (input - target) * grad / numel
        at::Tensor d = mul(mul_scalar(sub(s[0], s[1]), 2.0 / n), g);
        return variable_list{reduce_to(d, si, di), reduce_to(neg(d), st, dt)};
      });
}

at::Tensor clone(const at::Tensor& a) {
  return record("CloneBackward0", at::clone(a), {a}, {}, false, [](const variable_list&, const at::Tensor& g) {
    return variable_list{g};
  });
}

// ---- views: tensors over the input's storage, sharing its version counter ----

at::Tensor t(const at::Tensor& a) {
  if (a.dim() > 2)
    throw std::runtime_error("t() expects a tensor with <= 2 dimensions, but self is " + std::to_string(a.dim()) + "D");
  std::vector<int64_t> sizes(a.sizes().rbegin(), a.sizes().rend());
  std::vector<int64_t> strides(a.strides().rbegin(), a.strides().rend());
  return record(
      "TBackward0",
      at::alias_with_sizes_and_strides(a, sizes, strides, a.unsafeGetTensorImpl()->storage_offset()),
      {a},
      {},
      false,
      [](const variable_list&, const at::Tensor& g) { return variable_list{g.t()}; });
}

at::Tensor unsqueeze(const at::Tensor& a, int64_t dim_in) {
  const int64_t dim = wrap_dim(dim_in, a.dim() + 1);
  std::vector<int64_t> sizes = a.sizes();
  std::vector<int64_t> strides = a.strides();
  const int64_t stride = dim >= a.dim() ? 1 : sizes[dim] * strides[dim];
  sizes.insert(sizes.begin() + dim, 1);
  strides.insert(strides.begin() + dim, stride);
  return record(
      "UnsqueezeBackward0",
      at::alias_with_sizes_and_strides(a, sizes, strides, a.unsafeGetTensorImpl()->storage_offset()),
      {a},
      {},
      false,
      [dim](const variable_list&, const at::Tensor& g) { return variable_list{g.squeeze(dim)}; });
}

at::Tensor squeeze(const at::Tensor& a, int64_t dim_in) {
  const int64_t dim = wrap_dim(dim_in, a.dim());
  std::vector<int64_t> sizes = a.sizes();
  std::vector<int64_t> strides = a.strides();
  const bool drops = a.dim() > 0 && sizes[dim] == 1;
  if (drops) {
    sizes.erase(sizes.begin() + dim);
    strides.erase(strides.begin() + dim);
  }
  return record(
      "SqueezeBackward1",
      at::alias_with_sizes_and_strides(a, sizes, strides, a.unsafeGetTensorImpl()->storage_offset()),
      {a},
      {},
      false,
      [dim, drops](const variable_list&, const at::Tensor& g) { return variable_list{drops ? g.unsqueeze(dim) : g}; });
}

at::Tensor expand(const at::Tensor& a, const std::vector<int64_t>& wanted) {
  if (wanted.size() < static_cast<size_t>(a.dim())) {
    throw std::runtime_error(
        "expand(torch.FloatTensor{" + at::sizes_to_string(a.sizes()) + "}, size=" + at::sizes_to_string(wanted) +
        "): the number of sizes provided (" + std::to_string(wanted.size()) +
        ") must be greater or equal to the number of dimensions in the tensor (" + std::to_string(a.dim()) + ")");
  }
  const size_t lead = wanted.size() - static_cast<size_t>(a.dim());
  std::vector<int64_t> sizes(wanted.size()), strides(wanted.size(), 0);
  for (size_t i = 0; i < wanted.size(); ++i) {
    if (i < lead) {
      if (wanted[i] < 0)
        throw std::runtime_error(
            "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension " +
            std::to_string(i));
      sizes[i] = wanted[i];
      continue;
    }
    const int64_t have = a.sizes()[i - lead];
    const int64_t want = wanted[i] == -1 ? have : wanted[i];
    if (have == want) {
      sizes[i] = have;
      strides[i] = a.strides()[i - lead];
    } else if (have == 1) {
      sizes[i] = want;
    } else {
      throw std::runtime_error(
          "The expanded size of the tensor (" + std::to_string(want) + ") must match the existing size (" +
          std::to_string(have) + ") at non-singleton dimension " + std::to_string(i) +
          ".  Target sizes: " + at::sizes_to_string(wanted) + ".  Tensor sizes: " + at::sizes_to_string(a.sizes()));
    }
  }
  std::vector<int64_t> in_sizes = a.sizes();
  return record(
      "ExpandBackward0",
      at::alias_with_sizes_and_strides(a, sizes, strides, a.unsafeGetTensorImpl()->storage_offset()),
      {a},
      {},
      false,
      [in_sizes](const variable_list&, const at::Tensor& g) { return variable_list{frontend::sum_to(g, in_sizes)}; });
}

std::vector<int64_t> infer_size(const std::vector<int64_t>& shape, int64_t numel) {
  std::vector<int64_t> out = shape;
  int64_t known = 1;
  int64_t infer = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (infer >= 0)
        throw std::runtime_error("only one dimension can be inferred");
      infer = static_cast<int64_t>(i);
    } else if (shape[i] < 0) {
      throw std::runtime_error("invalid shape dimension " + std::to_string(shape[i]));
    } else {
      known *= shape[i];
    }
  }
  if (infer >= 0 && known != 0 && numel % known == 0) {
    out[static_cast<size_t>(infer)] = numel / known;
    return out;
  }
  if (infer < 0 && known == numel)
    return out;
  throw std::runtime_error(
      "shape '" + at::sizes_to_string(shape) + "' is invalid for input of size " + std::to_string(numel));
}

at::Tensor view(const at::Tensor& a, const std::vector<int64_t>& shape) {
  const auto sizes = infer_size(shape, a.numel());
  if (!a.is_contiguous()) {
    throw std::runtime_error(
        "view size is not compatible with input tensor's size and stride (at least one dimension spans across two "
        "contiguous subspaces). Use .reshape(...) instead.");
  }
  std::vector<int64_t> in_sizes = a.sizes();
  return record(
      "ViewBackward0",
      at::alias_with_sizes_and_strides(
          a, sizes, at::contiguous_strides(sizes), a.unsafeGetTensorImpl()->storage_offset()),
      {a},
      {},
      false,
      [in_sizes](const variable_list&, const at::Tensor& g) { return variable_list{g.reshape(in_sizes)}; });
}

at::Tensor reshape(const at::Tensor& a, const std::vector<int64_t>& shape) {
  return a.is_contiguous() ? view(a, shape) : view(frontend::clone(a), shape);
}

// ---- in-place ops ----

// self op= other: computed out of place (recording its node), written into
// self's memory, then self's history rebased onto that node
// (impl::rebase_history) as an in-place op's is.
at::Tensor& inplace(at::Tensor& self, const at::Tensor& result_of_op, const char* op) {
  if (result_of_op.sizes() != self.sizes()) {
    throw std::runtime_error(
        std::string("output with shape ") + at::sizes_to_string(self.sizes()) + " doesn't match the broadcast shape " +
        at::sizes_to_string(result_of_op.sizes()));
  }
  if (!self.is_contiguous())
    throw std::runtime_error(std::string(op) + ": the C++ front end writes in place into contiguous tensors only");
  const bool records = result_of_op.grad_fn() != nullptr;
  if (records) {
    autograd::impl::check_inplace(self, true);
    // A tensor that shares its version counter (a view of it, a view it is
    // of, a detached alias, a saved copy of it) would need its history
    // rebased too (CopySlices), which the front end does not do: refuse
    // rather than leave a stale graph.
    if (autograd::impl::version_counter(self).use_count() > 1) {
      throw std::runtime_error(
          std::string(op) +
          ": an in-place operation that records autograd history on a tensor that shares its storage with another "
          "(a view, a detached alias, or a tensor saved for backward) is not supported by the torchlite C++ front end; "
          "use the out-of-place op");
    }
  }
  at::Tensor converted = at::contiguous(at::to(result_of_op, self.dtype()));
  std::copy_n(
      static_cast<const char*>(converted.data_ptr()),
      static_cast<size_t>(self.numel()) * at::elementSize(self.dtype()),
      static_cast<char*>(self.data_ptr()));
  self.unsafeGetTensorImpl()->bump_version();
  if (records) {
    autograd::impl::rebase_history(self, autograd::impl::gradient_edge(result_of_op));
  }
  return self;
}

// ---- factories and checks ----

at::Tensor eq(const at::Tensor& a, const at::Tensor& b) {
  check_floating(a, "eq");
  check_floating(b, "eq");
  const auto dtype = result_type(a, b);
  at::Tensor x = at::contiguous(at::to(a, dtype)), y = at::contiguous(at::to(b, dtype));
  const auto shape = broadcast_shapes(x.sizes(), y.sizes());
  at::Tensor r = binary_kernel(x, y, "eq", [](auto p, auto q) { return p == q ? decltype(p)(1) : decltype(p)(0); });
  return at::to(r, at::kBool);
}

at::Tensor all(const at::Tensor& a) {
  at::Tensor c = at::contiguous(a);
  bool value = true;
  for (double v : c.to_vector())
    value = value && v != 0;
  return at::full({}, value ? 1.0 : 0.0, at::kBool);
}

} // namespace frontend
} // namespace torch
