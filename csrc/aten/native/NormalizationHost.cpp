// Host kernels of torchlite/_ops/Normalization.py's layer norm: the forward
// (native_layer_norm) and the first-order gradients (_layer_norm_grads)
// over C-contiguous float32 or float64 arrays normalized over their trailing
// n values, with the numpy path's bits (Note [Layer norm with numpy's bits]
// in cpu/LayerNormKernel.h). The Python side decides which inputs come here;
// anything else is refused with an exception, never read out of bounds.
#include "aten/native/cpu/BatchNormKernel.h"
#include "aten/native/cpu/LayerNormKernel.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace torch {
namespace {

namespace py = pybind11;

constexpr int kAligned = 0x0100; // NPY_ARRAY_ALIGNED

template <typename T>
using Rows = py::array_t<T, py::array::c_style>;

// obj as a C-contiguous, aligned array of T with `size` values (none where
// obj is None and may be), or an exception naming `what`.
template <typename T>
const T* rows_of(const py::object& obj, py::ssize_t size, const char* what, bool optional = false) {
  if (optional && obj.is_none())
    return nullptr;
  if (!Rows<T>::check_(obj))
    throw std::invalid_argument(
        std::string("layer norm host kernel: ") + what + " is no C-contiguous array of the input's dtype");
  auto a = py::reinterpret_borrow<py::array>(obj);
  if (!(a.flags() & kAligned) || a.size() != size)
    throw std::invalid_argument(std::string("layer norm host kernel: ") + what + " is unaligned or of another size");
  return static_cast<const T*>(a.data());
}

std::vector<py::ssize_t> shape_of(const py::array& a) {
  return std::vector<py::ssize_t>(a.shape(), a.shape() + a.ndim());
}

// A shape given as a Python tuple of ints.
std::vector<py::ssize_t> shape_of(const py::tuple& shape) {
  std::vector<py::ssize_t> dims;
  dims.reserve(shape.size());
  for (const auto& d : shape)
    dims.push_back(d.cast<py::ssize_t>());
  return dims;
}

void check_rows(py::ssize_t size, std::int64_t n) {
  if (n <= 0 || size <= 0 || size % n != 0)
    throw std::invalid_argument("layer norm host kernel: the input is no whole number of rows of n values");
}

template <typename T>
py::tuple layer_norm_typed(
    const py::array& x,
    const py::object& weight,
    const py::object& bias,
    double eps,
    std::int64_t n,
    const py::tuple& stat_shape) {
  check_rows(x.size(), n);
  const std::int64_t m = x.size() / n;
  const T* xp = rows_of<T>(x, x.size(), "input");
  const T* wp = rows_of<T>(weight, n, "weight", true);
  const T* bp = rows_of<T>(bias, n, "bias", true);
  py::array_t<T> y(shape_of(x));
  const auto stats = shape_of(stat_shape);
  py::array_t<T> mean(stats);
  py::array_t<T> rstd(stats);
  if (mean.size() != m)
    throw std::invalid_argument("layer norm host kernel: the statistics' shape does not hold one value a row");
  T* yp = y.mutable_data();
  T* mp = mean.mutable_data();
  T* rp = rstd.mutable_data();
  {
    py::gil_scoped_release release;
    at::native::layer_norm_rows<T>(xp, wp, bp, static_cast<T>(eps), m, n, yp, mp, rp);
  }
  return py::make_tuple(y, mean, rstd);
}

py::tuple layer_norm_host(
    const py::array& x,
    const py::object& weight,
    const py::object& bias,
    double eps,
    std::int64_t n,
    const py::tuple& stat_shape) {
  if (Rows<float>::check_(x))
    return layer_norm_typed<float>(x, weight, bias, eps, n, stat_shape);
  if (Rows<double>::check_(x))
    return layer_norm_typed<double>(x, weight, bias, eps, n, stat_shape);
  throw std::invalid_argument("layer norm host kernel: the input is no C-contiguous float32 or float64 array");
}

template <typename T>
py::tuple layer_norm_backward_typed(
    const py::array& grad,
    const py::array& x,
    const py::object& mean,
    const py::object& rstd,
    const py::object& weight,
    std::int64_t n,
    bool want_input,
    bool want_weight,
    bool want_bias,
    const py::tuple& param_shape) {
  check_rows(x.size(), n);
  const std::int64_t m = x.size() / n;
  const T* xp = rows_of<T>(x, x.size(), "input");
  const T* gp = rows_of<T>(grad, x.size(), "grad");
  const T* mp = rows_of<T>(mean, m, "mean");
  const T* rp = rows_of<T>(rstd, m, "rstd");
  const T* wp = rows_of<T>(weight, n, "weight", true);
  want_weight = want_weight && wp != nullptr;
  py::object gi = py::none(), gw = py::none(), gb = py::none();
  T* gip = nullptr;
  T* gwp = nullptr;
  T* gbp = nullptr;
  if (want_input) {
    py::array_t<T> a(shape_of(x));
    gip = a.mutable_data();
    gi = a;
  }
  const auto params = shape_of(param_shape);
  if (want_weight || want_bias) {
    py::ssize_t count = 1;
    for (auto s : params)
      count *= s;
    if (count != n)
      throw std::invalid_argument("layer norm host kernel: the parameters' shape does not hold n values");
  }
  if (want_weight) {
    py::array_t<T> a(params);
    gwp = a.mutable_data();
    gw = a;
  }
  if (want_bias) {
    py::array_t<T> a(params);
    gbp = a.mutable_data();
    gb = a;
  }
  {
    py::gil_scoped_release release;
    std::vector<T> scratch(static_cast<std::size_t>(n));
    at::native::layer_norm_backward_rows<T>(gp, xp, mp, rp, wp, m, n, gip, gwp, gbp, scratch.data());
  }
  return py::make_tuple(gi, gw, gb);
}

py::tuple layer_norm_backward_host(
    const py::array& grad,
    const py::array& x,
    const py::object& mean,
    const py::object& rstd,
    const py::object& weight,
    std::int64_t n,
    bool want_input,
    bool want_weight,
    bool want_bias,
    const py::tuple& param_shape) {
  if (Rows<float>::check_(x))
    return layer_norm_backward_typed<float>(
        grad, x, mean, rstd, weight, n, want_input, want_weight, want_bias, param_shape);
  if (Rows<double>::check_(x))
    return layer_norm_backward_typed<double>(
        grad, x, mean, rstd, weight, n, want_input, want_weight, want_bias, param_shape);
  throw std::invalid_argument("layer norm host kernel: the input is no C-contiguous float32 or float64 array");
}

// Training batch norm's gradients (Note [Batch norm gradients with numpy's bits]).
template <typename T>
using Array = pybind11::array_t<T, pybind11::array::c_style>;

template <typename T>
const T* optional_data(const pybind11::object& a) {
  return a.is_none() ? nullptr : pybind11::cast<Array<T>>(a).data();
}

template <typename T>
T* optional_mutable(const pybind11::object& a) {
  return a.is_none() ? nullptr : pybind11::cast<Array<T>>(a).mutable_data();
}

template <typename T>
bool run_batch_norm_grads(
    const pybind11::array& g,
    const pybind11::array& x,
    const pybind11::array& mean,
    const pybind11::array& invstd,
    const pybind11::object& weight,
    const pybind11::object& grad_input,
    const pybind11::object& grad_weight,
    const pybind11::object& grad_bias) {
  if (x.ndim() < 2 || g.ndim() != x.ndim())
    throw std::invalid_argument("_batch_norm_grads_host: input and grad must be (N, C, ...) of one shape");
  const std::int64_t n = x.shape(0), c = x.shape(1);
  const std::int64_t s = n * c != 0 ? x.size() / (n * c) : 0;
  const std::vector<pybind11::object> checked = {
      pybind11::reinterpret_borrow<pybind11::object>(g),
      pybind11::reinterpret_borrow<pybind11::object>(x),
      pybind11::reinterpret_borrow<pybind11::object>(mean),
      pybind11::reinterpret_borrow<pybind11::object>(invstd),
      weight,
      grad_input,
      grad_weight,
      grad_bias};
  const std::int64_t sizes[] = {n * c * s, n * c * s, c, c, c, n * c * s, c, c};
  for (std::size_t i = 0; i < checked.size(); ++i) {
    if (checked[i].is_none())
      continue;
    if (!Array<T>::check_(checked[i]) || pybind11::cast<pybind11::array>(checked[i]).size() != sizes[i])
      throw std::invalid_argument("_batch_norm_grads_host: arrays must be C-contiguous, of one dtype and their sizes");
  }
  const T* gd = pybind11::cast<Array<T>>(g).data();
  const T* xd = pybind11::cast<Array<T>>(x).data();
  const T* md = pybind11::cast<Array<T>>(mean).data();
  const T* rd = pybind11::cast<Array<T>>(invstd).data();
  const T* wd = optional_data<T>(weight);
  T* gi = optional_mutable<T>(grad_input);
  T* gw = optional_mutable<T>(grad_weight);
  T* gb = optional_mutable<T>(grad_bias);
  std::vector<T> partials(static_cast<std::size_t>(4 * n * c));
  pybind11::gil_scoped_release release;
  return at::native::batch_norm_train_grads<T>(gd, xd, md, rd, wd, n, c, s, gi, gw, gb, partials.data());
}

// Writes the gradients asked for (the arrays given) and answers whether all are finite (else the
// caller computes them in numpy again).
bool batch_norm_grads_host(
    const pybind11::array& g,
    const pybind11::array& x,
    const pybind11::array& mean,
    const pybind11::array& invstd,
    const pybind11::object& weight,
    const pybind11::object& grad_input,
    const pybind11::object& grad_weight,
    const pybind11::object& grad_bias) {
  if (Array<float>::check_(x))
    return run_batch_norm_grads<float>(g, x, mean, invstd, weight, grad_input, grad_weight, grad_bias);
  if (Array<double>::check_(x))
    return run_batch_norm_grads<double>(g, x, mean, invstd, weight, grad_input, grad_weight, grad_bias);
  throw std::invalid_argument("_batch_norm_grads_host: input must be a C-contiguous float32 or float64 array");
}

template <typename T>
bool run_batch_norm_stats(const pybind11::array& x, const pybind11::array& mean, const pybind11::array& var) {
  const std::int64_t n = x.shape(0), c = x.shape(1);
  const std::int64_t s = n * c != 0 ? x.size() / (n * c) : 0;
  for (const auto* a : {&mean, &var}) {
    if (!Array<T>::check_(*a) || a->size() != c)
      throw std::invalid_argument("_batch_norm_stats_host: mean and var must be C-contiguous, of x's dtype, C values");
  }
  const T* xd = pybind11::cast<Array<T>>(x).data();
  T* md = pybind11::cast<Array<T>>(mean).mutable_data();
  T* vd = pybind11::cast<Array<T>>(var).mutable_data();
  pybind11::gil_scoped_release release;
  return at::native::batch_norm_train_stats<T>(xd, n, c, s, md, vd);
}

// native_batch_norm's batch statistics (mean, biased var) of x (N, C, ...) into mean and var;
// False where one is not finite.
bool batch_norm_stats_host(const pybind11::array& x, const pybind11::array& mean, const pybind11::array& var) {
  if (x.ndim() < 2)
    throw std::invalid_argument("_batch_norm_stats_host: x must be (N, C, ...)");
  if (Array<float>::check_(x))
    return run_batch_norm_stats<float>(x, mean, var);
  if (Array<double>::check_(x))
    return run_batch_norm_stats<double>(x, mean, var);
  throw std::invalid_argument("_batch_norm_stats_host: x must be a C-contiguous float32 or float64 array");
}

template <typename T>
bool run_batch_norm_apply(
    const pybind11::array& x,
    const pybind11::array& mean,
    const pybind11::array& invstd,
    const pybind11::object& weight,
    const pybind11::object& bias,
    const pybind11::array& y) {
  const std::int64_t n = x.shape(0), c = x.shape(1);
  const std::int64_t s = n * c != 0 ? x.size() / (n * c) : 0;
  const std::vector<pybind11::object> per_channel = {
      pybind11::reinterpret_borrow<pybind11::object>(mean),
      pybind11::reinterpret_borrow<pybind11::object>(invstd),
      weight,
      bias};
  for (const auto& a : per_channel) {
    if (!a.is_none() && (!Array<T>::check_(a) || pybind11::cast<pybind11::array>(a).size() != c))
      throw std::invalid_argument(
          "_batch_norm_apply_host: the statistics and parameters must be C values of x's dtype");
  }
  if (!Array<T>::check_(y) || y.size() != x.size())
    throw std::invalid_argument("_batch_norm_apply_host: y must be a C-contiguous array of x's dtype and size");
  const T* xd = pybind11::cast<Array<T>>(x).data();
  const T* md = pybind11::cast<Array<T>>(mean).data();
  const T* rd = pybind11::cast<Array<T>>(invstd).data();
  const T* wd = optional_data<T>(weight);
  const T* bd = optional_data<T>(bias);
  T* yd = pybind11::cast<Array<T>>(y).mutable_data();
  pybind11::gil_scoped_release release;
  return at::native::batch_norm_apply<T>(xd, md, rd, wd, bd, n, c, s, yd);
}

// y = ((x - mean) * invstd) [* weight] [+ bias] per channel; False where a value is not finite.
bool batch_norm_apply_host(
    const pybind11::array& x,
    const pybind11::array& mean,
    const pybind11::array& invstd,
    const pybind11::object& weight,
    const pybind11::object& bias,
    const pybind11::array& y) {
  if (x.ndim() < 2)
    throw std::invalid_argument("_batch_norm_apply_host: x must be (N, C, ...)");
  if (Array<float>::check_(x))
    return run_batch_norm_apply<float>(x, mean, invstd, weight, bias, y);
  if (Array<double>::check_(x))
    return run_batch_norm_apply<double>(x, mean, invstd, weight, bias, y);
  throw std::invalid_argument("_batch_norm_apply_host: x must be a C-contiguous float32 or float64 array");
}

} // namespace

void initNormalizationHostBindings(pybind11::module_& m) {
  m.def(
      "_layer_norm_host",
      &layer_norm_host,
      py::arg("x").noconvert(),
      py::arg("weight"),
      py::arg("bias"),
      py::arg("eps"),
      py::arg("n"),
      py::arg("stat_shape"),
      "native_layer_norm of a C-contiguous float32/float64 array over rows of its trailing n values, with "
      "weight and bias (n values of its dtype, or None): (output, mean, rstd), mean and rstd of stat_shape");
  m.def(
      "_layer_norm_backward_host",
      &layer_norm_backward_host,
      py::arg("grad").noconvert(),
      py::arg("x").noconvert(),
      py::arg("mean"),
      py::arg("rstd"),
      py::arg("weight"),
      py::arg("n"),
      py::arg("want_input"),
      py::arg("want_weight"),
      py::arg("want_bias"),
      py::arg("param_shape"),
      "layer norm's first-order gradients (input, weight, bias; None where not wanted) over rows of n values");
  m.def(
      "_batch_norm_grads_host",
      &batch_norm_grads_host,
      pybind11::arg("grad"),
      pybind11::arg("input"),
      pybind11::arg("mean"),
      pybind11::arg("invstd"),
      pybind11::arg("weight"),
      pybind11::arg("grad_input"),
      pybind11::arg("grad_weight"),
      pybind11::arg("grad_bias"),
      "training batch norm's gradients of C-contiguous float32/float64 arrays, the numpy path's bits, into the "
      "arrays given (None: not wanted); False where a result is not finite");
  m.def(
      "_batch_norm_stats_host",
      &batch_norm_stats_host,
      pybind11::arg("x"),
      pybind11::arg("mean"),
      pybind11::arg("var"),
      "training batch norm's batch mean and biased variance per channel, the numpy path's bits, into mean and var; "
      "False where one is not finite");
  m.def(
      "_batch_norm_apply_host",
      &batch_norm_apply_host,
      pybind11::arg("x"),
      pybind11::arg("mean"),
      pybind11::arg("invstd"),
      pybind11::arg("weight"),
      pybind11::arg("bias"),
      pybind11::arg("y"),
      "((x - mean) * invstd) [* weight] [+ bias] per channel into y, the numpy path's bits; False where a value is "
      "not finite");
}

} // namespace torch
