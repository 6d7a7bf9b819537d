#pragma once

// numpy's headers for the C++ entries that read numpy's struct layouts (an array's data and
// strides, a scalar's value, a ufunc's loop table: python_fast_ops.cpp, python_fast_reduce.cpp,
// python_fast_linear.cpp). numpy's C API is never called, so nothing here imports it.
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define NO_IMPORT_ARRAY
#define NO_IMPORT_UFUNC
#define PY_ARRAY_UNIQUE_SYMBOL torchlite_unused_array_api
#define PY_UFUNC_UNIQUE_SYMBOL torchlite_unused_ufunc_api
#include <numpy/arrayobject.h>
#include <numpy/arrayscalars.h>
#include <numpy/ufuncobject.h>

namespace torch {
namespace autograd {

// numpy's inner loop of a one-input ufunc for `type` -> `type` (numpy's type number, NPY_DOUBLE
// ...), with its data: what the ufunc itself runs for such an array (python_fast_ops.cpp).
struct NumpyUnaryLoop {
  PyUFuncGenericFunction fn = nullptr;
  void* data = nullptr;
};

// The loop of `ufunc` (a borrowed numpy.ufunc; anything else finds none).
NumpyUnaryLoop find_numpy_unary_loop(PyObject* ufunc, char type);

} // namespace autograd
} // namespace torch
