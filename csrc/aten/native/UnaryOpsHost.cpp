// Host kernels of the unary ops numpy has no ufunc for (erf, erfc), bound for
// torchlite/_ops/UnaryOps.py: libm's erf and erfc over a float64 array (what
// Python's math.erf and math.erfc call, element by element, without a Python
// call per element).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cmath>

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

} // namespace

void initUnaryOpsHostBindings(pybind11::module_& m) {
  m.def(
      "_erf_host",
      &erf_host,
      pybind11::arg("x"),
      pybind11::arg("complement") = false,
      "erf (or with complement, erfc) of a float64 array, by libm, as a new float64 array");
}

} // namespace torch
