// Host kernel of training batch norm's gradients, bound for torchlite/_ops/Normalization.py
// (Note [Batch norm gradients with numpy's bits]).
#include "aten/native/cpu/BatchNormKernel.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace torch {
namespace {

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
bool run(
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
      pybind11::reinterpret_borrow<pybind11::object>(g), pybind11::reinterpret_borrow<pybind11::object>(x),
      pybind11::reinterpret_borrow<pybind11::object>(mean), pybind11::reinterpret_borrow<pybind11::object>(invstd),
      weight, grad_input, grad_weight, grad_bias};
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
    return run<float>(g, x, mean, invstd, weight, grad_input, grad_weight, grad_bias);
  if (Array<double>::check_(x))
    return run<double>(g, x, mean, invstd, weight, grad_input, grad_weight, grad_bias);
  throw std::invalid_argument("_batch_norm_grads_host: input must be a C-contiguous float32 or float64 array");
}

} // namespace

void initBatchNormHostBindings(pybind11::module_& m) {
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
}

} // namespace torch
