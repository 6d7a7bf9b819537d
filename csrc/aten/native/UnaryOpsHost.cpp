// Host kernels of the unary ops numpy has no ufunc for (erf, erfc), bound for
// torchlite/_ops/UnaryOps.py: libm's erf and erfc over a float64 array (what
// Python's math.erf and math.erfc call, element by element, without a Python
// call per element), and float32 erf with the same bits as rounding libm's
// (Note [Fast float erf with an exact fallback]), alone and in exact gelu's
// forward and backward (cpu/GeluKernel.h; the backward with numpy's own float32 exp loop).
#include "aten/native/cpu/ErfFloat.h"
#include "aten/native/cpu/GeluKernel.h"
#include "autograd/numpy_layouts.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

namespace torch {
namespace {

pybind11::array_t<double> erf_host(
    const pybind11::array_t<double, pybind11::array::c_style | pybind11::array::forcecast>& x,
    bool complement) {
  pybind11::array_t<double> out(x.request().shape);
  const double* in = x.data();
  double* o = out.mutable_data();
  const auto n = x.size();
  {
    pybind11::gil_scoped_release release;
    if (complement) {
      for (pybind11::ssize_t i = 0; i < n; ++i)
        o[i] = std::erfc(in[i]);
    } else {
      for (pybind11::ssize_t i = 0; i < n; ++i)
        o[i] = std::erf(in[i]);
    }
  }
  return out;
}

using FloatArray = pybind11::array_t<float, pybind11::array::c_style>;

// erf of a C-contiguous float32 array into `out` (a new array, or x itself
// or another array of x's shape).
// Runs `loop` (in, out, n) over x into result without the GIL.
FloatArray run_float_loop(const FloatArray& x, FloatArray result, void (*loop)(const float*, float*, std::ptrdiff_t)) {
  const float* in = x.data();
  float* o = result.mutable_data();
  const auto n = x.size();
  {
    pybind11::gil_scoped_release release;
    loop(in, o, n);
  }
  return result;
}

// `out` as the result array: a new one of x's shape where it is None, else a C-contiguous
// float32 array of x's size (x itself allowed).
FloatArray result_array(const char* name, const FloatArray& x, const pybind11::object& out) {
  if (!out.is_none() && !FloatArray::check_(out))
    throw std::invalid_argument(std::string(name) + ": out must be a C-contiguous float32 array");
  FloatArray result = out.is_none() ? FloatArray(x.request().shape) : pybind11::reinterpret_borrow<FloatArray>(out);
  if (result.size() != x.size())
    throw std::invalid_argument(std::string(name) + ": out has another size than x");
  return result;
}

FloatArray erf_float32_host(const FloatArray& x, const pybind11::object& out) {
  return run_float_loop(x, result_array("_erf_float32_host", x, out), at::native::erf_float_loop);
}

// Exact gelu of a C-contiguous float32 array (ActivationNN.py's _gelu_exact, fused) into `out`.
FloatArray gelu_float32_host(const FloatArray& x, const pybind11::object& out) {
  return run_float_loop(x, result_array("_gelu_float32_host", x, out), at::native::gelu_float_loop);
}

void check_same_size(const FloatArray& x, const FloatArray& other, const char* name) {
  if (other.size() != x.size())
    throw std::invalid_argument(std::string("_gelu_backward_float32: ") + name + " has another size than x");
}

// numpy's float32 exp inner loop (what np.exp runs on a contiguous float32 array), looked up
// once under the GIL; none where numpy's exp has no float32 loop.
const torch::autograd::NumpyUnaryLoop& numpy_exp_float() {
  static const torch::autograd::NumpyUnaryLoop loop = [] {
    torch::autograd::NumpyUnaryLoop found;
    pybind11::object exp = pybind11::module_::import("numpy").attr("exp");
    found = torch::autograd::find_numpy_unary_loop(exp.ptr(), NPY_FLOAT);
    return found;
  }();
  return loop;
}

void numpy_exp_in_place(float* values, std::ptrdiff_t m, void* context) {
  const auto* loop = static_cast<const torch::autograd::NumpyUnaryLoop*>(context);
  char* args[2] = {reinterpret_cast<char*>(values), reinterpret_cast<char*>(values)};
  const npy_intp dims[1] = {static_cast<npy_intp>(m)};
  const npy_intp steps[2] = {sizeof(float), sizeof(float)};
  loop->fn(args, dims, steps, loop->data);
}

// Exact gelu's whole float32 backward in one blocked pass (Note [Gelu backward in one pass]) into
// `out` (a new array where it is None); None where numpy's float32 exp loop is not found (the
// caller then runs the numpy passes).
pybind11::object gelu_backward_float32(const FloatArray& g, const FloatArray& x, const pybind11::object& out) {
  check_same_size(x, g, "grad");
  const torch::autograd::NumpyUnaryLoop& exp = numpy_exp_float();
  if (exp.fn == nullptr)
    return pybind11::none();
  FloatArray result = result_array("_gelu_backward_float32", x, out);
  const float* gs = g.data();
  const float* xs = x.data();
  float* r = result.mutable_data();
  const auto n = x.size();
  {
    pybind11::gil_scoped_release release;
    at::native::gelu_backward_float_loop(
        gs, xs, r, n, numpy_exp_in_place, const_cast<torch::autograd::NumpyUnaryLoop*>(&exp));
  }
  return std::move(result);
}

} // namespace

void initUnaryOpsHostBindings(pybind11::module_& m) {
  m.def(
      "_erf_host",
      &erf_host,
      pybind11::arg("x"),
      pybind11::arg("complement") = false,
      "erf (or with complement, erfc) of a float64 array, by libm, as a new float64 array");
  m.def(
      "_erf_float32_host",
      &erf_float32_host,
      pybind11::arg("x").noconvert(),
      pybind11::arg("out") = pybind11::none(),
      "erf of a C-contiguous float32 array, equal to rounding libm's double erf, into out (a new array by default)");
  m.def(
      "_gelu_float32_host",
      &gelu_float32_host,
      pybind11::arg("x").noconvert(),
      pybind11::arg("out") = pybind11::none(),
      "exact gelu of a C-contiguous float32 array (x * 0.5 * (1 + erf(x * sqrt(0.5))) in float32), into out (a "
      "new array by default)");
  m.def(
      "_gelu_backward_float32",
      &gelu_backward_float32,
      pybind11::arg("grad").noconvert(),
      pybind11::arg("x").noconvert(),
      pybind11::arg("out") = pybind11::none(),
      "exact gelu backward of C-contiguous float32 arrays in one blocked pass with numpy's float32 exp: grad * "
      "(exp(-0.5 * x * x) / sqrt(2 pi) * x + (1 + erf(x * sqrt(0.5))) * 0.5), into out (a new array by default); "
      "None where numpy's float32 exp loop is not found");
}

} // namespace torch
