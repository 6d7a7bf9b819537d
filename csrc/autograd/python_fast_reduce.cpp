// The C++ entries of sum, mean, softmax, log_softmax and torch.where (Note [C++ dispatch of the hot
// ops], python_fast_ops.h).
//
// Note [C++ dispatch of the reductions]
// Upstream, Tensor.sum / mean / softmax / log_softmax are parsed by the generated
// python_variable_methods.cpp and run by ATen's ReduceOps.cpp and SoftMax.cpp. Here the values must
// be the Python kernels' bits (torchlite/_ops/ReduceOps.py, SoftMax.py), which are numpy's: a sum's
// value depends on numpy's pairwise summation and on how its reduction iterator splits the rows
// (numpy/_core/src/umath/loops_utils.h.src, reduction.c), and float32 exp/log are numpy's own SIMD
// loops. So these entries do in C++ only what is exact in any order: the argument parsing, the
// result's allocation and layout, IEEE operations one at a time (x - max, e / sum, a row's max,
// sum / count in float64), and the node; the reductions and the transcendental functions are
// numpy's own:
//  - sum: the very call the Python kernel makes, np.add.reduce(self._array, axis, None, None,
//    keepdims) (np.sum is that ufunc reduce: numpy/_core/fromnumeric.py's _wrapreduction), under the
//    same silenced floating-point error state (TensorIterator.py's _quiet: numpy's
//    _extobj_contextvar set to all="ignore"), its result copied into a row-major tensor (_row_major).
//  - mean: np.mean is numpy/_core/_methods.py's _mean, the same text in numpy 2.2.6, 2.4 and 2.5:
//    umr_sum (np.add.reduce) with the same arguments, then a true_divide by the count as an np.intp
//    scalar, which under NEP 50 promotes float32 to float64: each value is (T)((double)sum / count),
//    rounded once to T (for float32 the same as a float32 division: a quotient rounded to 53 bits then
//    to 24 is rounded once, 53 >= 2 * 24 + 2). This file calls np.add.reduce and divides so.
//  - softmax / log_softmax (float32 or float64, dim given): the row max in C++ (exact: a max picks an
//    element; the sign of a zero maximum cannot change exp(x - m) nor, as only one element can be a
//    lone maximum, x - m - log(s)); rows with a NaN or an infinite maximum are left to Python (which
//    NaN numpy's max returns is its own). exp and log are numpy's inner loops of the ufunc for the
//    dtype ("f->f" or "d->d", as python_fast_ops.cpp's NumpyUnary), run over contiguous buffers of
//    their own, as numpy runs them on the fresh arrays x - m and the sums (each element computed
//    alone, so the split into calls does not matter). The sum over dim is np.add.reduce(e, dim, None,
//    None, True) on the exp values, a C-contiguous array of self's shape as in the Python kernel.
//  - torch.where(condition, input, other) (TensorCompare.py's where; upstream TensorCompare.cpp's
//    where_kernel): a contiguous bool condition, operands of its shape and one dtype (or a Python
//    number in the other's dtype), a shape whose row-major layout TensorIterator keeps; each element a
//    copy, exact in any order.
// Any other call (another dtype, a non-contiguous or empty tensor, dtype=, a bad dim, ...) is "not
// handled": the Python kernel runs and raises its errors.
#include "autograd/python_fast_ops.h"

#include "aten/Functions.h"
#include "autograd/grad_mode.h"
#include "autograd/python_function.h"
#include "autograd/python_variable.h"
#include "c10/core/InferenceMode.h"

#include "autograd/numpy_layouts.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <vector>

namespace torch {
namespace autograd {
namespace {

using UnaryLoop = NumpyUnaryLoop;

// numpy's inner loop of the ufunc `name` for `type` -> `type`, or none.
UnaryLoop unary_loop(PyObject* numpy, const char* name, char type) {
  PyObject* obj = PyObject_GetAttrString(numpy, name);
  if (obj == nullptr) {
    PyErr_Clear();
    return UnaryLoop();
  }
  const UnaryLoop loop = find_numpy_unary_loop(obj, type);
  Py_DECREF(obj); // numpy's ufuncs live as long as numpy
  return loop;
}

// What the entries take from numpy, looked up once (under the GIL); numpy lives as long as the
// process once imported, so the references are kept.
struct Numpy {
  bool ok = false;
  PyObject* add_reduce = nullptr; // np.add.reduce
  PyTypeObject* ndarray = nullptr;
  PyTypeObject* float32 = nullptr;
  PyTypeObject* float64 = nullptr;
  PyTypeObject* int64 = nullptr;
  PyObject* errstate = nullptr; // numpy._core._ufunc_config._extobj_contextvar
  PyObject* quiet = nullptr; // _make_extobj(all="ignore")
  UnaryLoop exp_f, exp_d, log_f, log_d;
  PyObject* array_attr = nullptr; // "_array"
};

PyTypeObject* type_attr(PyObject* module, const char* name) {
  PyObject* obj = PyObject_GetAttrString(module, name);
  if (obj == nullptr || !PyType_Check(obj)) {
    Py_XDECREF(obj);
    return nullptr;
  }
  return reinterpret_cast<PyTypeObject*>(obj);
}

const Numpy* numpy_handles() {
  static Numpy np;
  static bool tried = false;
  if (tried)
    return np.ok ? &np : nullptr;
  tried = true;
  PyObject* numpy = PyImport_ImportModule("numpy");
  PyObject* config = PyImport_ImportModule("numpy._core._ufunc_config");
  if (numpy == nullptr || config == nullptr) {
    Py_XDECREF(numpy);
    Py_XDECREF(config);
    PyErr_Clear();
    return nullptr;
  }
  PyObject* add = PyObject_GetAttrString(numpy, "add");
  np.add_reduce = add ? PyObject_GetAttrString(add, "reduce") : nullptr;
  Py_XDECREF(add);
  np.ndarray = type_attr(numpy, "ndarray");
  np.float32 = type_attr(numpy, "float32");
  np.float64 = type_attr(numpy, "float64");
  np.int64 = type_attr(numpy, "int64");
  np.errstate = PyObject_GetAttrString(config, "_extobj_contextvar");
  PyObject* make = PyObject_GetAttrString(config, "_make_extobj");
  if (make != nullptr) {
    PyObject* kwargs = Py_BuildValue("{s:s}", "all", "ignore");
    PyObject* empty = PyTuple_New(0);
    np.quiet = kwargs && empty ? PyObject_Call(make, empty, kwargs) : nullptr;
    Py_XDECREF(kwargs);
    Py_XDECREF(empty);
    Py_DECREF(make);
  }
  np.exp_f = unary_loop(numpy, "exp", NPY_FLOAT);
  np.exp_d = unary_loop(numpy, "exp", NPY_DOUBLE);
  np.log_f = unary_loop(numpy, "log", NPY_FLOAT);
  np.log_d = unary_loop(numpy, "log", NPY_DOUBLE);
  np.array_attr = PyUnicode_InternFromString("_array");
  Py_DECREF(numpy);
  Py_DECREF(config);
  PyErr_Clear();
  np.ok = np.add_reduce && np.ndarray && np.float32 && np.float64 && np.int64 && np.errstate &&
      PyContextVar_CheckExact(np.errstate) && np.quiet && np.exp_f.fn && np.exp_d.fn && np.log_f.fn && np.log_d.fn &&
      np.array_attr;
  return np.ok ? &np : nullptr;
}

// A tensor these entries compute on: host memory labelled cpu, contiguous, not empty, not an
// inference tensor, float32 or float64 (or int64 where `int64`).
const at::Tensor* host_tensor(PyObject* obj, bool int64) {
  if (!THPVariable_Check(obj))
    return nullptr;
  const at::Tensor& t = THPVariable_Unpack(obj);
  if (!t.defined())
    return nullptr;
  at::TensorImpl* impl = t.unsafeGetTensorImpl();
  const at::ScalarType dtype = impl->dtype();
  if (!(dtype == at::kFloat || dtype == at::kDouble || (int64 && dtype == at::kLong)) || !impl->device().is_cpu() ||
      impl->is_inference() || !impl->is_contiguous() || impl->numel() == 0)
    return nullptr;
  return &t;
}

// The call's arguments after self by name: args[1..nargs) positionally, then the keywords; false
// where a keyword is not one of `names` or repeats an argument (the Python kernel's error).
bool bind(PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames, const char* const* names, int n, PyObject** out) {
  std::fill(out, out + n, nullptr);
  if (nargs - 1 > n)
    return false;
  for (Py_ssize_t i = 1; i < nargs; ++i)
    out[i - 1] = args[i];
  const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t k = 0; k < nkw; ++k) {
    PyObject* key = PyTuple_GET_ITEM(kwnames, k);
    int found = -1;
    for (int i = 0; i < n; ++i) {
      if (PyUnicode_CompareWithASCIIString(key, names[i]) == 0) {
        found = i;
        break;
      }
    }
    if (found < 0 || out[found] != nullptr)
      return false;
    out[found] = args[nargs + k];
  }
  return true;
}

bool exact_int(PyObject* obj, int64_t* value) {
  if (!PyLong_CheckExact(obj))
    return false;
  int overflow = 0;
  *value = PyLong_AsLongLongAndOverflow(obj, &overflow);
  return overflow == 0;
}

// c10::maybe_wrap_dim with a 0-d tensor taking a 1-d one's dims; false where it raises.
bool wrap(int64_t dim, int64_t ndim, int64_t* out) {
  const int64_t bound = ndim > 0 ? ndim : 1;
  if (dim < -bound || dim >= bound)
    return false;
  *out = dim < 0 ? dim + bound : dim;
  return true;
}

PyObject* int_tuple(const std::vector<int64_t>& values) {
  PyObject* t = PyTuple_New(static_cast<Py_ssize_t>(values.size()));
  if (t == nullptr)
    throw pybind11::error_already_set();
  for (size_t i = 0; i < values.size(); ++i) {
    PyObject* v = PyLong_FromLongLong(values[i]);
    if (v == nullptr) {
      Py_DECREF(t);
      throw pybind11::error_already_set();
    }
    PyTuple_SET_ITEM(t, static_cast<Py_ssize_t>(i), v);
  }
  return t;
}

pybind11::object own(PyObject* obj) {
  if (obj == nullptr)
    throw pybind11::error_already_set();
  return pybind11::reinterpret_steal<pybind11::object>(obj);
}

// _record's work for a one-input op: where grad mode is on and self requires grad, the node of
// `node_name` with the fields named in `names` (a tuple of interned str) set to `values`.
void record(const char* node_name, PyObject* self, PyObject* output, PyObject* names, PyObject* const* values) {
  const at::Tensor& a = THPVariable_Unpack(self);
  if (!GradMode::is_enabled() || !a.requires_grad())
    return;
  const OpInfo* info = op_info_named(node_name);
  if (info == nullptr)
    throw std::logic_error(std::string("no spec for ") + node_name);
  auto node = make_formula_node(info, edge_list{impl::gradient_edge(a)});
  Variable out = THPVariable_Unpack(output);
  create_gradient_edge(out, node);
  node->set_fields(values, names, output);
}

PyObject* names_tuple(std::initializer_list<const char*> names) {
  PyObject* t = PyTuple_New(static_cast<Py_ssize_t>(names.size()));
  Py_ssize_t i = 0;
  for (const char* name : names)
    PyTuple_SET_ITEM(t, i++, PyUnicode_InternFromString(name));
  return t;
}

// numpy's errors silenced around a call, as the Python kernels' _quiet() / _loud(token).
class Quiet {
 public:
  explicit Quiet(const Numpy& np) : np_(np), token_(PyContextVar_Set(np.errstate, np.quiet)) {
    if (token_ == nullptr)
      throw pybind11::error_already_set();
  }
  ~Quiet() {
    if (PyContextVar_Reset(np_.errstate, token_) < 0)
      PyErr_Clear();
    Py_DECREF(token_);
  }
  Quiet(const Quiet&) = delete;
  Quiet& operator=(const Quiet&) = delete;

 private:
  const Numpy& np_;
  PyObject* token_;
};

// np.add.reduce(array, axis, None, None, keepdims), its errors silenced; null (no error set) where
// it raised: the Python kernel then raises it.
PyObject* add_reduce(const Numpy& np, PyObject* array, PyObject* axis, bool keepdims) {
  Quiet quiet(np);
  PyObject* call[] = {array, axis, Py_None, Py_None, keepdims ? Py_True : Py_False};
  PyObject* result = PyObject_Vectorcall(np.add_reduce, call, 5, nullptr);
  if (result == nullptr)
    PyErr_Clear(); // (before the error state is restored)
  return result;
}

template <typename T>
constexpr int npy_type() {
  return std::is_same_v<T, float> ? NPY_FLOAT : std::is_same_v<T, double> ? NPY_DOUBLE : NPY_INT64;
}

// Copies numpy's result `r` (an array of `shape`, or for a 0-d result a scalar) into `out`,
// row-major (_row_major); false where it is not of that shape and dtype.
template <typename T>
bool copy_result(const Numpy& np, PyObject* r, const std::vector<int64_t>& shape, T* out) {
  if (Py_TYPE(r) != np.ndarray) {
    PyTypeObject* type = npy_type<T>() == NPY_FLOAT ? np.float32 : npy_type<T>() == NPY_DOUBLE ? np.float64 : np.int64;
    if (!shape.empty() || Py_TYPE(r) != type)
      return false;
    if constexpr (std::is_same_v<T, float>)
      *out = PyArrayScalar_VAL(r, Float);
    else if constexpr (std::is_same_v<T, double>)
      *out = PyArrayScalar_VAL(r, Double);
    else
      *out = PyArrayScalar_VAL(r, Int64);
    return true;
  }
  auto* arr = reinterpret_cast<PyArrayObject*>(r);
  const int nd = PyArray_NDIM(arr);
  if (nd != static_cast<int>(shape.size()) || PyArray_DESCR(arr)->type_num != npy_type<T>())
    return false;
  const npy_intp* dims = PyArray_DIMS(arr);
  const npy_intp* strides = PyArray_STRIDES(arr);
  int64_t numel = 1;
  for (int d = 0; d < nd; ++d) {
    if (dims[d] != shape[static_cast<size_t>(d)])
      return false;
    numel *= shape[static_cast<size_t>(d)];
  }
  const char* base = static_cast<const char*>(PyArray_DATA(arr));
  std::vector<int64_t> index(static_cast<size_t>(nd), 0);
  for (int64_t i = 0; i < numel; ++i) {
    npy_intp offset = 0;
    for (int d = 0; d < nd; ++d)
      offset += index[static_cast<size_t>(d)] * strides[d];
    std::memcpy(out + i, base + offset, sizeof(T));
    for (int d = nd - 1; d >= 0; --d) {
      if (++index[static_cast<size_t>(d)] < shape[static_cast<size_t>(d)])
        break;
      index[static_cast<size_t>(d)] = 0;
    }
  }
  return true;
}

// The dims of a sum or mean over `dim_obj` (an int, or a non-empty tuple or list of ints) wrapped
// and sorted (_norm_dims), with the node's `dim` field (the dims as given); false where the Python
// kernel decides (another type, a dim out of range or repeated: its errors).
bool reduction_dims(PyObject* dim_obj, int64_t ndim, std::vector<int64_t>& dims, std::vector<int64_t>& given) {
  int64_t d = 0;
  if (PyLong_CheckExact(dim_obj)) {
    if (!exact_int(dim_obj, &d))
      return false;
    given.push_back(d);
  } else if (PyTuple_CheckExact(dim_obj) || PyList_CheckExact(dim_obj)) {
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(dim_obj);
    if (n == 0)
      return false;
    for (Py_ssize_t i = 0; i < n; ++i) {
      if (!exact_int(PySequence_Fast_GET_ITEM(dim_obj, i), &d))
        return false;
      given.push_back(d);
    }
  } else {
    return false;
  }
  for (int64_t g : given) {
    int64_t w = 0;
    if (!wrap(g, ndim, &w) || std::find(dims.begin(), dims.end(), w) != dims.end())
      return false;
    dims.push_back(w);
  }
  std::sort(dims.begin(), dims.end());
  return true;
}

PyObject* run_sum_mean(bool mean, PyObject* self, PyObject* dim_obj, PyObject* keepdim_obj, PyObject* dtype_obj) {
  const at::Tensor* a = host_tensor(self, !mean);
  if (a == nullptr || (dtype_obj != nullptr && dtype_obj != Py_None))
    return nullptr;
  const Numpy* np = numpy_handles();
  if (np == nullptr)
    return nullptr;
  const bool overload = dim_obj != nullptr; // sum.dim_IntList / mean.dim (dim None: the Python kernel's)
  if (keepdim_obj != nullptr && (!overload || !PyBool_Check(keepdim_obj)))
    return nullptr;
  const bool keepdim = keepdim_obj == Py_True;
  const c10::IntArrayRef sizes = a->sizes();
  const auto ndim = static_cast<int64_t>(sizes.size());
  std::vector<int64_t> dims, given;
  if (overload && !reduction_dims(dim_obj, ndim, dims, given))
    return nullptr;
  // numpy's axis: None without dim and for a 0-d tensor, else the wrapped dims
  pybind11::object axis = pybind11::none();
  std::vector<int64_t> shape;
  int64_t count = 1;
  if (!overload) {
    count = a->numel();
  } else if (ndim == 0) {
    shape = {};
  } else {
    axis = own(int_tuple(dims));
    for (int64_t d = 0; d < ndim; ++d) {
      const bool reduced = std::find(dims.begin(), dims.end(), d) != dims.end();
      if (reduced)
        count *= sizes[static_cast<size_t>(d)];
      if (!reduced || keepdim)
        shape.push_back(reduced ? 1 : sizes[static_cast<size_t>(d)]);
    }
  }
  pybind11::object array = own(PyObject_GetAttr(self, np->array_attr));
  pybind11::object r = pybind11::reinterpret_steal<pybind11::object>(add_reduce(*np, array.ptr(), axis.ptr(), keepdim));
  if (!r)
    return nullptr;
  const at::ScalarType dtype = a->scalar_type();
  at::Tensor out = at::empty(shape, dtype, c10::Device());
  const auto fill = [&](auto zero) {
    using T = decltype(zero);
    T* data = out.data_ptr<T>();
    if (!copy_result<T>(*np, r.ptr(), shape, data))
      return false;
    if constexpr (!std::is_same_v<T, int64_t>) {
      // _methods._mean: true_divide(sum, np.intp(count)), in float64, rounded once to T
      if (mean) {
        const auto n = static_cast<double>(count);
        for (int64_t i = 0; i < out.numel(); ++i)
          data[i] = static_cast<T>(static_cast<double>(data[i]) / n);
      }
    }
    return true;
  };
  const bool ok = dtype == at::kFloat ? fill(0.0f) : dtype == at::kDouble ? fill(0.0) : fill(int64_t(0));
  if (!ok)
    return nullptr;
  pybind11::object output = own(THPVariable_Wrap(std::move(out)));
  if (GradMode::is_enabled() && a->requires_grad()) {
    pybind11::object self_sizes = own(int_tuple(std::vector<int64_t>(sizes.begin(), sizes.end())));
    if (!overload && !mean) {
      static PyObject* names = names_tuple({"self_sym_sizes"});
      PyObject* values[] = {self_sizes.ptr()};
      record("SumBackward0", self, output.ptr(), names, values);
    } else if (!overload) {
      static PyObject* names = names_tuple({"self_sym_sizes", "self_sym_numel"});
      pybind11::object numel = own(PyLong_FromLongLong(a->numel()));
      PyObject* values[] = {self_sizes.ptr(), numel.ptr()};
      record("MeanBackward0", self, output.ptr(), names, values);
    } else {
      // the node keeps dim as given, as a tuple (_saved_dims)
      pybind11::object saved_dim = own(int_tuple(given));
      PyObject* keep = keepdim ? Py_True : Py_False;
      if (!mean) {
        static PyObject* names = names_tuple({"self_sym_sizes", "dim", "keepdim"});
        PyObject* values[] = {self_sizes.ptr(), saved_dim.ptr(), keep};
        record("SumBackward1", self, output.ptr(), names, values);
      } else {
        static PyObject* names = names_tuple({"self_sym_sizes", "dim", "keepdim", "self_sym_numel", "count"});
        pybind11::object numel = own(PyLong_FromLongLong(a->numel()));
        pybind11::object n = own(PyLong_FromLongLong(count));
        PyObject* values[] = {self_sizes.ptr(), saved_dim.ptr(), keep, numel.ptr(), n.ptr()};
        record("MeanBackward1", self, output.ptr(), names, values);
      }
    }
  }
  return output.release().ptr();
}

template <typename T>
void run_loop(const UnaryLoop& loop, const T* in, T* out, int64_t n) {
  char* args[2] = {reinterpret_cast<char*>(const_cast<T*>(in)), reinterpret_cast<char*>(out)};
  const npy_intp dims[1] = {static_cast<npy_intp>(n)};
  const npy_intp steps[2] = {sizeof(T), sizeof(T)};
  loop.fn(args, dims, steps, loop.data);
}

// softmax / log_softmax of the contiguous x (sizes viewed as [outer, n, inner], dim the middle) into
// `out`, as SoftMax.py computes them; false where the Python kernel decides.
template <typename T>
bool softmax_kernel(
    const Numpy& np,
    bool log,
    const T* x,
    int64_t outer,
    int64_t n,
    int64_t inner,
    PyObject* out_array,
    int64_t dim,
    T* out) {
  const int64_t rows = outer * inner;
  const int64_t numel = rows * n;
  // m = np.max(x, axis=dim, keepdims=True)
  std::vector<T> m(static_cast<size_t>(rows));
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const T* p = x + o * n * inner + i;
      T best = p[0];
      for (int64_t j = 0; j < n; ++j) {
        const T v = p[j * inner];
        if (std::isnan(v))
          return false;
        if (v > best)
          best = v;
      }
      if (std::isinf(best))
        return false;
      m[static_cast<size_t>(o * inner + i)] = best;
    }
  }
  // e = np.exp(x - m), into out
  std::vector<T> shifted(static_cast<size_t>(numel));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t k = (o * n + j) * inner + i;
        shifted[static_cast<size_t>(k)] = x[k] - m[static_cast<size_t>(o * inner + i)];
      }
  const bool f32 = std::is_same_v<T, float>;
  run_loop<T>(f32 ? np.exp_f : np.exp_d, shifted.data(), out, numel);
  // s = np.sum(e, axis=dim, keepdims=True)
  pybind11::object axis = own(PyLong_FromLongLong(dim));
  pybind11::object s = pybind11::reinterpret_steal<pybind11::object>(add_reduce(np, out_array, axis.ptr(), true));
  if (!s)
    return false;
  std::vector<int64_t> s_shape;
  {
    auto* arr = reinterpret_cast<PyArrayObject*>(s.ptr());
    if (Py_TYPE(s.ptr()) != np.ndarray)
      return false;
    s_shape.assign(PyArray_DIMS(arr), PyArray_DIMS(arr) + PyArray_NDIM(arr));
  }
  std::vector<T> sums(static_cast<size_t>(rows));
  if (!copy_result<T>(np, s.ptr(), s_shape, sums.data()) || static_cast<int64_t>(sums.size()) != rows)
    return false;
  if (!log) {
    // r = e / s
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < inner; ++i)
          out[(o * n + j) * inner + i] /= sums[static_cast<size_t>(o * inner + i)];
    return true;
  }
  // r = shifted - np.log(s)
  std::vector<T> logs(static_cast<size_t>(rows));
  run_loop<T>(f32 ? np.log_f : np.log_d, sums.data(), logs.data(), rows);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t k = (o * n + j) * inner + i;
        out[k] = shifted[static_cast<size_t>(k)] - logs[static_cast<size_t>(o * inner + i)];
      }
  return true;
}

PyObject* run_softmax(bool log, PyObject* self, PyObject* dim_obj, PyObject* dtype_obj) {
  const at::Tensor* a = host_tensor(self, false);
  int64_t given = 0, dim = 0;
  if (a == nullptr || dim_obj == nullptr || (dtype_obj != nullptr && dtype_obj != Py_None) ||
      !exact_int(dim_obj, &given))
    return nullptr;
  const c10::IntArrayRef sizes = a->sizes();
  const auto ndim = static_cast<int64_t>(sizes.size());
  if (ndim == 0 || !wrap(given, ndim, &dim))
    return nullptr;
  const Numpy* np = numpy_handles();
  if (np == nullptr)
    return nullptr;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d)
    outer *= sizes[static_cast<size_t>(d)];
  for (int64_t d = dim + 1; d < ndim; ++d)
    inner *= sizes[static_cast<size_t>(d)];
  const int64_t n = sizes[static_cast<size_t>(dim)];
  const at::ScalarType dtype = a->scalar_type();
  pybind11::object output = own(THPVariable_Wrap(at::empty(sizes, dtype, c10::Device())));
  const at::Tensor& out = THPVariable_Unpack(output.ptr());
  pybind11::object out_array = own(PyObject_GetAttr(output.ptr(), np->array_attr));
  const bool ok = dtype == at::kFloat
      ? softmax_kernel<float>(
            *np, log, a->data_ptr<float>(), outer, n, inner, out_array.ptr(), dim, out.data_ptr<float>())
      : softmax_kernel<double>(
            *np, log, a->data_ptr<double>(), outer, n, inner, out_array.ptr(), dim, out.data_ptr<double>());
  if (!ok)
    return nullptr;
  if (GradMode::is_enabled() && a->requires_grad()) {
    // self_scalar_type: self's numpy dtype, as the Python kernel passes a.dtype
    pybind11::object self_array = own(PyObject_GetAttr(self, np->array_attr));
    PyObject* scalar_type =
        reinterpret_cast<PyObject*>(PyArray_DESCR(reinterpret_cast<PyArrayObject*>(self_array.ptr())));
    static PyObject* names = names_tuple({"dim", "result", "self_scalar_type"});
    PyObject* values[] = {dim_obj, output.ptr(), scalar_type};
    record(log ? "LogSoftmaxBackward0" : "SoftmaxBackward0", self, output.ptr(), names, values);
  }
  return output.release().ptr();
}

// torch.where(condition, input, other) ---------------------------------------------------------------

// Whether TensorIterator lays out a result of these sizes row-major when its operands are contiguous
// of these sizes or 0-d (TensorIterator.py's _out): no size-1 or size-0 dimension can reorder them.
bool row_major_result(c10::IntArrayRef sizes) {
  if (sizes.size() < 2)
    return true;
  return std::all_of(sizes.begin(), sizes.end(), [](int64_t size) { return size > 1; });
}

// where's number operand in `dtype`: a Python float, or an int float64 holds exactly (numpy's cast
// to float32 then rounds as C++'s); false for another object and for a finite float beyond float32's
// range (c10::checked_convert's error, _checked_number's).
bool where_number(PyObject* obj, at::ScalarType dtype, double* value) {
  if (PyFloat_CheckExact(obj)) {
    *value = PyFloat_AS_DOUBLE(obj);
  } else if (PyLong_CheckExact(obj)) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
    constexpr long long exact = 1LL << 53;
    if (overflow != 0 || v > exact || v < -exact)
      return false;
    *value = static_cast<double>(v);
  } else {
    return false;
  }
  return dtype == at::kDouble || !std::isfinite(*value) || std::fabs(*value) <= FLT_MAX;
}

// TensorCompare.py's where for a contiguous bool condition and float32 or float64 operands of its
// shape, one of them possibly a Python number (of the other's dtype then): a copy of one operand's
// element per element, so any order gives the Python kernel's bits. Its node, WhereBackward0, has
// the two operands as inputs (a number's wrapped tensor has no edge) and saves the condition.
PyObject* run_where(PyObject* cond_obj, PyObject* x_obj, PyObject* y_obj) {
  if (!THPVariable_Check(cond_obj))
    return nullptr;
  const at::Tensor& cond = THPVariable_Unpack(cond_obj);
  if (!cond.defined())
    return nullptr;
  const at::TensorImpl* cimpl = cond.unsafeGetTensorImpl();
  if (cimpl->dtype() != at::kBool || !cimpl->device().is_cpu() || cimpl->is_inference() || !cimpl->is_contiguous() ||
      cimpl->numel() == 0 || !row_major_result(cond.sizes()))
    return nullptr;
  const at::Tensor* x = host_tensor(x_obj, false);
  const at::Tensor* y = host_tensor(y_obj, false);
  if (x == nullptr && y == nullptr)
    return nullptr;
  const at::ScalarType dtype = (x != nullptr ? x : y)->scalar_type();
  double number = 0;
  for (const at::Tensor* t : {x, y}) {
    if (t != nullptr && (t->scalar_type() != dtype || t->sizes() != cond.sizes()))
      return nullptr;
  }
  if ((x == nullptr && !where_number(x_obj, dtype, &number)) || (y == nullptr && !where_number(y_obj, dtype, &number)))
    return nullptr;
  at::Tensor out = at::empty(cond.sizes(), dtype, c10::Device());
  const auto* c = static_cast<const uint8_t*>(cond.data_ptr());
  const int64_t n = out.numel();
  const auto fill = [&](auto zero) {
    using T = decltype(zero);
    const T scalar = static_cast<T>(number);
    const T* a = x != nullptr ? static_cast<const T*>(x->data_ptr()) : nullptr;
    const T* b = y != nullptr ? static_cast<const T*>(y->data_ptr()) : nullptr;
    T* r = static_cast<T*>(out.data_ptr());
    for (int64_t i = 0; i < n; ++i)
      r[i] = c[i] != 0 ? (a != nullptr ? a[i] : scalar) : (b != nullptr ? b[i] : scalar);
  };
  if (dtype == at::kFloat)
    fill(0.0f);
  else
    fill(0.0);
  pybind11::object output = own(THPVariable_Wrap(std::move(out)));
  const bool x_grad = x != nullptr && x->requires_grad();
  const bool y_grad = y != nullptr && y->requires_grad();
  if (GradMode::is_enabled() && (x_grad || y_grad)) {
    const OpInfo* info = op_info_named("WhereBackward0");
    if (info == nullptr)
      throw std::logic_error("no spec for WhereBackward0");
    edge_list edges(2);
    if (x_grad)
      edges[0] = impl::gradient_edge(*x);
    if (y_grad)
      edges[1] = impl::gradient_edge(*y);
    auto node = make_formula_node(info, std::move(edges));
    Variable result = THPVariable_Unpack(output.ptr());
    create_gradient_edge(result, node);
    static PyObject* names = names_tuple({"condition"});
    PyObject* values[] = {cond_obj};
    node->set_fields(values, names, output.ptr());
  }
  return output.release().ptr();
}

} // namespace

PyObject* call_reduce_op(const FastOpEntry& e, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  if (nargs < 1 || records_captured() || c10::InferenceMode::is_enabled())
    return nullptr;
  HANDLE_TH_ERRORS
  switch (e.kernel) {
    case FastKernel::Where:
      // torch.where(condition, input, other), positionally (Tensor.where is a Python method)
      if (nargs != 3 || kwnames != nullptr)
        return nullptr;
      return run_where(args[0], args[1], args[2]);
    case FastKernel::Sum:
    case FastKernel::Mean: {
      static const char* const names[] = {"dim", "keepdim", "dtype"};
      PyObject* bound[3];
      if (!bind(args, nargs, kwnames, names, 3, bound))
        return nullptr;
      return run_sum_mean(e.kernel == FastKernel::Mean, args[0], bound[0], bound[1], bound[2]);
    }
    default: {
      static const char* const names[] = {"dim", "dtype"};
      PyObject* bound[2];
      if (!bind(args, nargs, kwnames, names, 2, bound))
        return nullptr;
      return run_softmax(e.kernel == FastKernel::LogSoftmax, args[0], bound[0], bound[1]);
    }
  }
  END_HANDLE_TH_ERRORS
}

} // namespace autograd
} // namespace torch
