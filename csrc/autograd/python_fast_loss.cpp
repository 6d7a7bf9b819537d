// Host kernels of cross_entropy's pieces (log_softmax over the last dim, its backward, nll_loss's
// forward and backward over a 2-d input), bound for torchlite/_ops/SoftMax.py and LossNLL.py.
//
// Note [Cross entropy with numpy's bits]
// Upstream computes these in ATen/native/cpu/SoftMaxKernel.cpp (vectorized log_softmax, its
// backward) and ATen/native/LossNLL.cpp (nll_loss_out_frame, nll_loss_backward_out_frame). Here the
// values must be the Python kernels' (SoftMax.py's _log_softmax and _log_softmax_backward_data,
// LossNLL.py's _nll_arrays, _reduce_nll and _nll_backward), which are numpy's. These kernels make no
// new arithmetic: they run the Python kernels' numpy expressions element by element in the same
// order, which gives the same bits because
//  - each IEEE operation (x - m, e * s, g - p, (-x) * w, a / b, a max's comparison) is done once,
//    in the array's dtype (float32 stays float32: SSE, no excess precision) and this file is built
//    with -ffp-contract=off, so no product is fused into a following sum as numpy never does;
//  - exp and log are numpy's own inner loops of the ufunc for the dtype (find_numpy_unary_loop,
//    the loop np.exp / np.log run for an "f->f" or "d->d" call), each run from a contiguous buffer
//    into a separate one, as numpy runs them from one fresh array into another (numpy's SIMD exp
//    and log compute each element alone, so how the elements are split into calls does not change
//    them);
//  - the sums are numpy's add reductions of contiguous rows reproduced step for step
//    (aten/native/cpu/NumpySum.h: numpy/_core/src/umath/loops_utils.h.src's pairwise sum, eight
//    accumulators, blocks of 128, added to the +0 identity). A row reaches that inner loop whole
//    when it is no longer than numpy's ufunc buffer (np.getbufsize(), which the callers check) and,
//    for the softmax row sums, has at least two values (numpy folds one-value rows of an (n, 1)
//    array into one pairwise sum: the callers leave that to the Python kernel). numpy 2.2.6, 2.4.6
//    and 2.5.5 (the versions CI runs) share that sum, the exp / log loop tables and the scalar
//    float32 / float64 division this file reproduces (a numpy float32 scalar divided by another is
//    one float32 division);
//  - log_softmax's row maximum is a comparison only; a row whose maximum is NaN or infinite is left
//    to the Python kernel (which NaN numpy's max returns is numpy's business; a NaN makes the
//    row's sum of exponentials NaN, which is how it is found), and the sign of a
//    zero maximum cannot reach the result (SoftMax.py's note in python_fast_reduce.cpp: a lone
//    maximum gives x - m = +0, two maxima give a sum of at least 2).
// A NaN's sign or payload is the one exception numpy itself does not keep from version to version
// (a commutative addition's operands may be swapped by its compiler); tests compare NaN positions.
// Every kernel returns None where it does not apply (another dtype or layout, a target out of
// range, a non-finite row maximum): the Python kernel then runs and stays the reference and raises
// its errors.
#include "aten/native/cpu/NumpySum.h"
#include "autograd/numpy_layouts.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>

namespace torch {
namespace {

namespace py = pybind11;
using autograd::NumpyUnaryLoop;

struct Loops {
  bool ok = false;
  NumpyUnaryLoop exp_f, exp_d, log_f, log_d;
};

// numpy's exp and log loops, looked up once under the GIL (numpy's ufuncs live as long as numpy).
const Loops* numpy_loops() {
  static const Loops loops = [] {
    Loops l;
    PyObject* numpy = PyImport_ImportModule("numpy");
    if (numpy == nullptr) {
      PyErr_Clear();
      return l;
    }
    for (const char* name : {"exp", "log"}) {
      PyObject* ufunc = PyObject_GetAttrString(numpy, name);
      if (ufunc == nullptr) {
        PyErr_Clear();
        continue;
      }
      NumpyUnaryLoop& f = name[0] == 'e' ? l.exp_f : l.log_f;
      NumpyUnaryLoop& d = name[0] == 'e' ? l.exp_d : l.log_d;
      f = autograd::find_numpy_unary_loop(ufunc, NPY_FLOAT);
      d = autograd::find_numpy_unary_loop(ufunc, NPY_DOUBLE);
      Py_DECREF(ufunc);
    }
    Py_DECREF(numpy);
    l.ok = l.exp_f.fn && l.exp_d.fn && l.log_f.fn && l.log_d.fn;
    return l;
  }();
  return loops.ok ? &loops : nullptr;
}

template <typename T>
const NumpyUnaryLoop& exp_loop(const Loops& l) {
  return std::is_same_v<T, float> ? l.exp_f : l.exp_d;
}

template <typename T>
const NumpyUnaryLoop& log_loop(const Loops& l) {
  return std::is_same_v<T, float> ? l.log_f : l.log_d;
}

// numpy's loop from the contiguous `in` into the separate contiguous `out`, n elements.
template <typename T>
void run_loop(const NumpyUnaryLoop& loop, const T* in, T* out, std::int64_t n) {
  char* args[2] = {reinterpret_cast<char*>(const_cast<T*>(in)), reinterpret_cast<char*>(out)};
  const npy_intp dims[1] = {static_cast<npy_intp>(n)};
  const npy_intp steps[2] = {sizeof(T), sizeof(T)};
  loop.fn(args, dims, steps, loop.data);
}

template <typename T>
T row_sum(const T* row, std::int64_t n) {
  return at::native::numpy_row_sum<T>([row](std::int64_t i) { return row[i]; }, n);
}

template <typename T>
using Array = py::array_t<T, py::array::c_style>;

// An exact-dtype C-contiguous array (no conversion), or none.
template <typename T>
bool is_array(const py::object& obj) {
  return Array<T>::check_(obj);
}

// A row's maximum over its non-NaN values (-inf where none): eight lanes the compiler can vectorize
// (a maximum picks an element, so any order gives the same value up to a zero's sign, which cannot
// reach log_softmax's result; a NaN is caught later by its sum).
template <typename T>
T row_max(const T* x, std::int64_t n) {
  constexpr int kLanes = 8;
  T lanes[kLanes];
  for (T& l : lanes)
    l = -std::numeric_limits<T>::infinity();
  std::int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes) {
    for (int k = 0; k < kLanes; ++k)
      lanes[k] = x[j + k] > lanes[k] ? x[j + k] : lanes[k];
  }
  T m = lanes[0];
  for (int k = 1; k < kLanes; ++k)
    m = lanes[k] > m ? lanes[k] : m;
  for (; j < n; ++j)
    m = x[j] > m ? x[j] : m;
  return m;
}

// SoftMax.py's _log_softmax over the last dim of x (rows of n values):
// shifted = x - max(x); r = shifted - log(sum(exp(shifted))). False where a row's maximum is not
// finite: a row of -inf, an infinite value, or a NaN (numpy's maximum is then NaN; here the NaN
// reaches the row's sum through x - m and exp, where the maximum of the other values is finite).
template <typename T>
bool log_softmax_rows(const Loops& loops, const T* x, T* out, std::int64_t rows, std::int64_t n) {
  std::unique_ptr<T[]> e(new T[static_cast<size_t>(n)]);
  std::unique_ptr<T[]> sums(new T[static_cast<size_t>(rows)]);
  for (std::int64_t r = 0; r < rows; ++r) {
    const T* xr = x + r * n;
    T* o = out + r * n;
    const T m = row_max<T>(xr, n);
    if (std::isinf(m))
      return false;
    for (std::int64_t j = 0; j < n; ++j)
      o[j] = xr[j] - m;
    run_loop<T>(exp_loop<T>(loops), o, e.get(), n);
    const T s = row_sum<T>(e.get(), n);
    if (std::isnan(s))
      return false;
    sums[static_cast<size_t>(r)] = s;
  }
  std::unique_ptr<T[]> logs(new T[static_cast<size_t>(rows)]);
  run_loop<T>(log_loop<T>(loops), sums.get(), logs.get(), rows);
  for (std::int64_t r = 0; r < rows; ++r) {
    T* o = out + r * n;
    const T l = logs[static_cast<size_t>(r)];
    for (std::int64_t j = 0; j < n; ++j)
      o[j] = o[j] - l;
  }
  return true;
}

template <typename T>
py::object log_softmax_typed(const Loops& loops, const Array<T>& x) {
  const auto ndim = x.ndim();
  const std::int64_t n = x.shape(ndim - 1);
  const std::int64_t rows = x.size() / n;
  Array<T> out(std::vector<py::ssize_t>(x.shape(), x.shape() + ndim));
  if (!log_softmax_rows<T>(loops, x.data(), out.mutable_data(), rows, n))
    return py::none();
  return std::move(out);
}

// log_softmax of a C-contiguous float32 / float64 array over its last dim, or None.
py::object log_softmax_host(const py::object& x) {
  const Loops* loops = numpy_loops();
  if (loops == nullptr)
    return py::none();
  const auto check = [](const py::array& a) { return a.ndim() >= 1 && a.size() > 0 && a.shape(a.ndim() - 1) >= 2; };
  if (is_array<float>(x)) {
    auto a = py::reinterpret_borrow<Array<float>>(x);
    return check(a) ? log_softmax_typed<float>(*loops, a) : py::none();
  }
  if (is_array<double>(x)) {
    auto a = py::reinterpret_borrow<Array<double>>(x);
    return check(a) ? log_softmax_typed<double>(*loops, a) : py::none();
  }
  return py::none();
}

// SoftMax.py's _log_softmax_backward_data over the last dim: r = g - exp(o) * sum(g).
template <typename T>
py::object log_softmax_backward_typed(const Loops& loops, const Array<T>& g, const Array<T>& o) {
  const auto ndim = o.ndim();
  const std::int64_t n = o.shape(ndim - 1);
  const std::int64_t rows = o.size() / n;
  Array<T> out(std::vector<py::ssize_t>(o.shape(), o.shape() + ndim));
  std::unique_ptr<T[]> e(new T[static_cast<size_t>(n)]);
  const T* gp = g.data();
  const T* op = o.data();
  T* rp = out.mutable_data();
  for (std::int64_t r = 0; r < rows; ++r) {
    const T* gr = gp + r * n;
    const T s = row_sum<T>(gr, n);
    run_loop<T>(exp_loop<T>(loops), op + r * n, e.get(), n);
    T* rr = rp + r * n;
    for (std::int64_t j = 0; j < n; ++j) {
      const T p = e[static_cast<size_t>(j)] * s;
      rr[j] = gr[j] - p;
    }
  }
  return std::move(out);
}

bool same_shape(const py::array& a, const py::array& b) {
  if (a.ndim() != b.ndim())
    return false;
  for (py::ssize_t d = 0; d < a.ndim(); ++d) {
    if (a.shape(d) != b.shape(d))
      return false;
  }
  return true;
}

py::object log_softmax_backward_host(const py::object& grad, const py::object& output) {
  const Loops* loops = numpy_loops();
  if (loops == nullptr)
    return py::none();
  const auto check = [](const py::array& g, const py::array& o) {
    return o.ndim() >= 1 && o.size() > 0 && o.shape(o.ndim() - 1) >= 2 && same_shape(g, o);
  };
  if (is_array<float>(grad) && is_array<float>(output)) {
    auto g = py::reinterpret_borrow<Array<float>>(grad);
    auto o = py::reinterpret_borrow<Array<float>>(output);
    return check(g, o) ? log_softmax_backward_typed<float>(*loops, g, o) : py::none();
  }
  if (is_array<double>(grad) && is_array<double>(output)) {
    auto g = py::reinterpret_borrow<Array<double>>(grad);
    auto o = py::reinterpret_borrow<Array<double>>(output);
    return check(g, o) ? log_softmax_backward_typed<double>(*loops, g, o) : py::none();
  }
  return py::none();
}

// nll_loss ------------------------------------------------------------------------------------------

constexpr int kNone = 0, kMean = 1;

// LossNLL.py's _nll_arrays for a 2-d (N, C) input: the picked class per row (0 where ignored) and
// its weight w[t] (0 where ignored); false where a target is out of range (the Python kernel's
// IndexError).
template <typename T>
bool pick(
    const std::int64_t* t,
    const T* w,
    std::int64_t rows,
    std::int64_t classes,
    std::int64_t ignore_index,
    std::int64_t* safe,
    T* tw) {
  for (std::int64_t i = 0; i < rows; ++i) {
    const std::int64_t ti = t[i];
    const bool ignored = ti == ignore_index;
    if (!ignored && (ti < 0 || ti >= classes))
      return false;
    safe[i] = ignored ? 0 : ti;
    tw[i] = ignored ? T(0) : (w != nullptr ? w[safe[i]] : T(1));
  }
  return true;
}

// The loss (the losses for reduction none) and the total weight, as _reduce_nll makes them.
template <typename T>
py::object nll_forward_typed(
    const Array<T>& x,
    const Array<std::int64_t>& target,
    const T* w,
    int reduction,
    std::int64_t ignore_index) {
  const std::int64_t rows = x.shape(0), classes = x.shape(1);
  std::unique_ptr<std::int64_t[]> safe(new std::int64_t[static_cast<size_t>(rows)]);
  std::unique_ptr<T[]> tw(new T[static_cast<size_t>(rows)]);
  if (!pick<T>(target.data(), w, rows, classes, ignore_index, safe.get(), tw.get()))
    return py::none();
  Array<T> losses({static_cast<py::ssize_t>(rows)});
  T* l = losses.mutable_data();
  const T* xp = x.data();
  const std::int64_t* tp = target.data();
  for (std::int64_t i = 0; i < rows; ++i) {
    // an ignored row's loss is +0 (np.where(ignored, 0, -picked * tw))
    const T neg = -xp[i * classes + safe[static_cast<size_t>(i)]];
    l[i] = tp[i] == ignore_index ? T(0) : neg * tw[static_cast<size_t>(i)];
  }
  Array<T> total(std::vector<py::ssize_t>{});
  if (reduction == kNone) {
    *total.mutable_data() = T(0);
    return py::make_tuple(losses, total);
  }
  const T weight_sum = row_sum<T>(tw.get(), rows);
  T loss = row_sum<T>(l, rows);
  if (reduction == kMean)
    loss = loss / weight_sum;
  Array<T> out(std::vector<py::ssize_t>{});
  *out.mutable_data() = loss;
  *total.mutable_data() = weight_sum;
  return py::make_tuple(out, total);
}

bool nll_shapes(const py::array& x, const py::array& t, const py::object& weight, std::int64_t rows_limit) {
  if (x.ndim() != 2 || t.ndim() != 1 || t.shape(0) != x.shape(0) || x.shape(0) < 1 || x.shape(0) > rows_limit ||
      x.shape(1) < 1)
    return false;
  if (!weight.is_none()) {
    const auto w = py::reinterpret_borrow<py::array>(weight);
    if (w.ndim() != 1 || w.shape(0) != x.shape(1))
      return false;
  }
  return true;
}

// nll_loss_forward of a C-contiguous (N, C) float32 / float64 input, an int64 (N,) target and a
// weight of the input's dtype (or None): (output, total_weight) arrays, or None. rows_limit: numpy's
// ufunc buffer size (the sums over N are whole rows up to it).
py::object nll_loss_forward_host(
    const py::object& x,
    const py::object& target,
    const py::object& weight,
    int reduction,
    std::int64_t ignore_index,
    std::int64_t rows_limit) {
  if (!is_array<std::int64_t>(target))
    return py::none();
  auto t = py::reinterpret_borrow<Array<std::int64_t>>(target);
  const auto run = [&](auto zero) -> py::object {
    using T = decltype(zero);
    if (!is_array<T>(x) || !(weight.is_none() || is_array<T>(weight)))
      return py::none();
    auto a = py::reinterpret_borrow<Array<T>>(x);
    if (!nll_shapes(a, t, weight, rows_limit))
      return py::none();
    const T* w = weight.is_none() ? nullptr : py::reinterpret_borrow<Array<T>>(weight).data();
    return nll_forward_typed<T>(a, t, w, reduction, ignore_index);
  };
  if (is_array<float>(x))
    return run(0.0f);
  if (is_array<double>(x))
    return run(0.0);
  return py::none();
}

// _nll_backward: zeros of the input's shape with -w[t] * g at each row's target (none where the row
// is ignored), g divided by the total weight for reduction mean.
template <typename T>
py::object nll_backward_typed(
    const Array<T>& grad,
    const Array<T>& x,
    const Array<std::int64_t>& target,
    const T* w,
    int reduction,
    std::int64_t ignore_index,
    const Array<T>& total_weight) {
  const std::int64_t rows = x.shape(0), classes = x.shape(1);
  std::unique_ptr<std::int64_t[]> safe(new std::int64_t[static_cast<size_t>(rows)]);
  std::unique_ptr<T[]> tw(new T[static_cast<size_t>(rows)]);
  if (!pick<T>(target.data(), w, rows, classes, ignore_index, safe.get(), tw.get()))
    return py::none();
  Array<T> out({static_cast<py::ssize_t>(rows), static_cast<py::ssize_t>(classes)});
  T* r = out.mutable_data();
  std::memset(r, 0, sizeof(T) * static_cast<size_t>(rows * classes));
  const T* g = grad.data();
  T scalar = g[0];
  if (reduction == kMean)
    scalar = scalar / *total_weight.data();
  const std::int64_t* tp = target.data();
  for (std::int64_t i = 0; i < rows; ++i) {
    if (tp[i] == ignore_index)
      continue; // (the row's gradient stays 0)
    const T gi = reduction == kNone ? g[i] : scalar;
    const T neg = -tw[static_cast<size_t>(i)];
    r[i * classes + safe[static_cast<size_t>(i)]] = neg * gi;
  }
  return std::move(out);
}

// nll_loss_backward for nll_loss_forward_host's layouts, grad_output of the input's dtype (0-d, or
// (N,) for reduction none), total_weight a 0-d array of that dtype: the gradient array, or None.
py::object nll_loss_backward_host(
    const py::object& grad,
    const py::object& x,
    const py::object& target,
    const py::object& weight,
    int reduction,
    std::int64_t ignore_index,
    const py::object& total_weight) {
  if (!is_array<std::int64_t>(target))
    return py::none();
  auto t = py::reinterpret_borrow<Array<std::int64_t>>(target);
  const auto run = [&](auto zero) -> py::object {
    using T = decltype(zero);
    if (!is_array<T>(x) || !is_array<T>(grad) || !is_array<T>(total_weight) ||
        !(weight.is_none() || is_array<T>(weight)))
      return py::none();
    auto a = py::reinterpret_borrow<Array<T>>(x);
    auto g = py::reinterpret_borrow<Array<T>>(grad);
    auto total = py::reinterpret_borrow<Array<T>>(total_weight);
    if (!nll_shapes(a, t, weight, a.shape(0)) || total.ndim() != 0)
      return py::none();
    if (reduction == kNone ? (g.ndim() != 1 || g.shape(0) != a.shape(0)) : g.ndim() != 0)
      return py::none();
    const T* w = weight.is_none() ? nullptr : py::reinterpret_borrow<Array<T>>(weight).data();
    return nll_backward_typed<T>(g, a, t, w, reduction, ignore_index, total);
  };
  if (is_array<float>(x))
    return run(0.0f);
  if (is_array<double>(x))
    return run(0.0);
  return py::none();
}

} // namespace

void initLossHostBindings(py::module_& m) {
  m.def(
      "_log_softmax_host",
      &log_softmax_host,
      py::arg("x"),
      "log_softmax over the last dim of a C-contiguous float32 / float64 array (rows of 2 or more, no "
      "longer than numpy's buffer: the caller's check) with numpy's bits, or None where a row's maximum is not finite");
  m.def(
      "_log_softmax_backward_host",
      &log_softmax_backward_host,
      py::arg("grad"),
      py::arg("output"),
      "grad - exp(output) * sum(grad, -1) over the last dim, with numpy's bits, or None for another layout");
  m.def(
      "_nll_loss_forward_host",
      &nll_loss_forward_host,
      py::arg("x"),
      py::arg("target"),
      py::arg("weight"),
      py::arg("reduction"),
      py::arg("ignore_index"),
      py::arg("rows_limit"),
      "nll_loss_forward of a 2-d input with numpy's bits: (output, total_weight) arrays, or None");
  m.def(
      "_nll_loss_backward_host",
      &nll_loss_backward_host,
      py::arg("grad"),
      py::arg("x"),
      py::arg("target"),
      py::arg("weight"),
      py::arg("reduction"),
      py::arg("ignore_index"),
      py::arg("total_weight"),
      "nll_loss_backward of a 2-d input with numpy's bits: the gradient array, or None");
}

} // namespace torch
