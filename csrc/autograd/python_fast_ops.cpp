// The C++ dispatch of the hot ops: Note [C++ dispatch of the hot ops] (python_fast_ops.h).
#include "autograd/python_fast_ops.h"
#include "autograd/python_fast_index.h"

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
#include <stdexcept>
#include <vector>

namespace torch {
namespace autograd {
namespace {

// A tensor the entries compute on: host memory labelled cpu, float32 or float64, contiguous, not
// an inference tensor (an op on one records nothing and makes one: the Python kernel's case).
const at::Tensor* host_float(PyObject* obj) {
  if (!THPVariable_Check(obj))
    return nullptr;
  const at::Tensor& t = THPVariable_Unpack(obj);
  if (!t.defined())
    return nullptr;
  at::TensorImpl* impl = t.unsafeGetTensorImpl();
  const at::ScalarType dtype = impl->dtype();
  if ((dtype != at::kFloat && dtype != at::kDouble) || !impl->device().is_cpu() || impl->is_inference() ||
      !impl->is_contiguous())
    return nullptr;
  return &t;
}

// Whether TensorIterator lays out a result of these sizes row-major, its operands being contiguous
// of these sizes or broadcast: where no size-1 (or size-0) dimension can carry a stride that
// reorders the dimensions (torchlite/_ops/TensorIterator.py's _out).
bool row_major_result(c10::IntArrayRef sizes) {
  if (sizes.size() < 2)
    return true;
  for (int64_t size : sizes) {
    if (size <= 1)
      return false;
  }
  return true;
}

// The element strides of a contiguous tensor of `sizes` broadcast to `shape` (0 along a dimension it
// lacks or has of size 1); false where it does not broadcast to it.
bool broadcast_strides(c10::IntArrayRef sizes, c10::IntArrayRef shape, std::vector<int64_t>& out) {
  if (sizes.size() > shape.size())
    return false;
  out.assign(shape.size(), 0);
  int64_t stride = 1;
  const size_t lead = shape.size() - sizes.size();
  for (size_t i = sizes.size(); i-- > 0;) {
    if (sizes[i] == shape[lead + i]) {
      out[lead + i] = sizes[i] == 1 ? 0 : stride;
    } else if (sizes[i] != 1) {
      return false;
    }
    stride *= sizes[i];
  }
  return true;
}

// A Python float, or an int that converts to float64 exactly (numpy and torch then round it to
// float32 the same way): the operand as the kernel reads it in `dtype`.
bool number_operand(PyObject* obj, at::ScalarType dtype, double* value) {
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
  // A finite float64 beyond float32's range: numpy's cast and torch's check differ from a C++ cast.
  return dtype == at::kDouble || !std::isfinite(*value) || std::fabs(*value) <= FLT_MAX;
}

template <typename scalar_t>
void binary_kernel(FastKernel k, const scalar_t* a, const scalar_t* b, scalar_t* out, int64_t n, int64_t b_step) {
  switch (k) {
    case FastKernel::Add:
      for (int64_t i = 0; i < n; ++i)
        out[i] = a[i] + b[i * b_step];
      break;
    case FastKernel::Sub:
      for (int64_t i = 0; i < n; ++i)
        out[i] = a[i] - b[i * b_step];
      break;
    case FastKernel::Mul:
      for (int64_t i = 0; i < n; ++i)
        out[i] = a[i] * b[i * b_step];
      break;
    default:
      for (int64_t i = 0; i < n; ++i)
        out[i] = a[i] / b[i * b_step];
      break;
  }
}

// out (contiguous, of `shape`) = a op b, with a and b read at element strides (0: broadcast).
template <typename scalar_t>
void broadcast_binary_kernel(
    FastKernel k,
    const scalar_t* a,
    c10::IntArrayRef a_strides,
    const scalar_t* b,
    c10::IntArrayRef b_strides,
    scalar_t* out,
    c10::IntArrayRef shape) {
  const size_t nd = shape.size();
  const int64_t inner = shape[nd - 1];
  const int64_t as = a_strides[nd - 1], bs = b_strides[nd - 1];
  std::vector<int64_t> index(nd, 0);
  int64_t outer = 1;
  for (size_t d = 0; d + 1 < nd; ++d)
    outer *= shape[d];
  for (int64_t o = 0; o < outer; ++o) {
    int64_t ao = 0, bo = 0;
    for (size_t d = 0; d + 1 < nd; ++d) {
      ao += index[d] * a_strides[d];
      bo += index[d] * b_strides[d];
    }
    scalar_t* r = out + o * inner;
    switch (k) {
      case FastKernel::Add:
        for (int64_t i = 0; i < inner; ++i)
          r[i] = a[ao + i * as] + b[bo + i * bs];
        break;
      case FastKernel::Sub:
        for (int64_t i = 0; i < inner; ++i)
          r[i] = a[ao + i * as] - b[bo + i * bs];
        break;
      case FastKernel::Mul:
        for (int64_t i = 0; i < inner; ++i)
          r[i] = a[ao + i * as] * b[bo + i * bs];
        break;
      default:
        for (int64_t i = 0; i < inner; ++i)
          r[i] = a[ao + i * as] / b[bo + i * bs];
        break;
    }
    for (size_t d = nd - 1; d-- > 0;) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
}

template <typename scalar_t>
void simple_unary_kernel(FastKernel k, const scalar_t* a, scalar_t* out, int64_t n) {
  if (k == FastKernel::Neg) {
    for (int64_t i = 0; i < n; ++i)
      out[i] = -a[i];
  } else {
    // relu as torch's clamp_min(x, 0): x unless x < 0, so nan and -0.0 pass
    for (int64_t i = 0; i < n; ++i)
      out[i] = a[i] < 0 ? scalar_t(0) : a[i];
  }
}

// numpy's float64 inner loop of a ufunc ("d->d"), which the Python kernel runs.
struct NumpyLoop : NumpyUnaryLoop {
  bool resolved = false;
};

NumpyLoop resolve_loop(const char* ufunc) {
  NumpyLoop loop;
  loop.resolved = true;
  PyObject* numpy = PyImport_ImportModule("numpy");
  if (numpy == nullptr) {
    PyErr_Clear();
    return loop;
  }
  PyObject* obj = PyObject_GetAttrString(numpy, ufunc);
  Py_DECREF(numpy);
  if (obj == nullptr) {
    PyErr_Clear();
    return loop;
  }
  static_cast<NumpyUnaryLoop&>(loop) = find_numpy_unary_loop(obj, NPY_DOUBLE);
  Py_DECREF(obj); // numpy's ufuncs live as long as numpy
  return loop;
}

void numpy_unary_kernel(const NumpyLoop& loop, const at::Tensor& in, at::Tensor& out) {
  const int64_t n = in.numel();
  if (in.scalar_type() == at::kDouble) {
    char* args[2] = {static_cast<char*>(in.data_ptr()), static_cast<char*>(out.data_ptr())};
    const npy_intp dims[1] = {static_cast<npy_intp>(n)};
    const npy_intp steps[2] = {sizeof(double), sizeof(double)};
    loop.fn(args, dims, steps, loop.data);
    return;
  }
  // float32 through float64, rounded once (the Python kernel's np_fn(a, dtype=float64) then copyto)
  constexpr int64_t chunk = 256;
  double x[chunk], y[chunk];
  const auto* a = static_cast<const float*>(in.data_ptr());
  auto* r = static_cast<float*>(out.data_ptr());
  for (int64_t start = 0; start < n; start += chunk) {
    const int64_t m = std::min(chunk, n - start);
    for (int64_t i = 0; i < m; ++i)
      x[i] = a[start + i];
    char* args[2] = {reinterpret_cast<char*>(x), reinterpret_cast<char*>(y)};
    const npy_intp dims[1] = {static_cast<npy_intp>(m)};
    const npy_intp steps[2] = {sizeof(double), sizeof(double)};
    loop.fn(args, dims, steps, loop.data);
    for (int64_t i = 0; i < m; ++i)
      r[start + i] = static_cast<float>(y[i]);
  }
}

// Per entry, made on first use (under the GIL): the node's spec, numpy's loop, and the keyword
// names of the fields each form of the call passes (all of them with a tensor `other`; with a
// number, those the number's input does not alone need).
struct EntryState {
  const OpInfo* info = nullptr;
  NumpyLoop loop;
  PyObject* tensor_kwnames = nullptr;
  PyObject* number_kwnames = nullptr;
  bool ready = false;
};

PyObject* kwnames_for(const FastOpEntry& e, bool number) {
  PyObject* names = PyTuple_New(0);
  for (int i = 0; i < e.num_fields; ++i) {
    if (number && e.fields[i].needed_by == 1)
      continue;
    PyObject* key = PyUnicode_InternFromString(e.fields[i].name);
    const Py_ssize_t size = PyTuple_GET_SIZE(names);
    if (_PyTuple_Resize(&names, size + 1) < 0)
      return nullptr;
    PyTuple_SET_ITEM(names, size, key);
  }
  return names;
}

EntryState* state_of(const FastOpEntry& e) {
  static std::vector<EntryState> states(static_cast<size_t>(kNumFastOps));
  EntryState& s = states[static_cast<size_t>(&e - kFastOps)];
  if (s.ready)
    return &s;
  s.info = op_info_named(e.node);
  if (s.info == nullptr) // the specs' module is not imported yet
    return nullptr;
  if (e.kernel == FastKernel::NumpyUnary && !s.loop.resolved)
    s.loop = resolve_loop(e.ufunc);
  if (s.tensor_kwnames == nullptr)
    s.tensor_kwnames = kwnames_for(e, false);
  if (s.number_kwnames == nullptr)
    s.number_kwnames = kwnames_for(e, true);
  if (s.tensor_kwnames == nullptr || s.number_kwnames == nullptr) {
    PyErr_Clear();
    return nullptr;
  }
  s.ready = true;
  return &s;
}

PyObject* alpha_one() {
  static PyObject* one = PyLong_FromLong(1);
  return one;
}

// _record's work for an op whose inputs are self and, where `other` is a tensor, other.
void record(
    const FastOpEntry& e,
    const EntryState& s,
    PyObject* self,
    PyObject* other,
    bool other_is_tensor,
    PyObject* output) {
  const at::Tensor& a = THPVariable_Unpack(self);
  const bool other_requires_grad = other_is_tensor && THPVariable_Unpack(other).requires_grad();
  if (!GradMode::is_enabled() || !(a.requires_grad() || other_requires_grad))
    return;
  const bool binary = e.kernel <= FastKernel::Div;
  edge_list edges(binary ? 2 : 1);
  if (a.requires_grad())
    edges[0] = impl::gradient_edge(a);
  if (other_requires_grad)
    edges[1] = impl::gradient_edge(THPVariable_Unpack(other));
  const bool has_edge[2] = {edges[0].is_valid(), binary && edges[1].is_valid()};
  auto node = make_formula_node(s.info, std::move(edges));
  Variable out = THPVariable_Unpack(output);
  create_gradient_edge(out, node);
  PyObject* values[3];
  int n = 0;
  for (int i = 0; i < e.num_fields; ++i) {
    const FastField& f = e.fields[i];
    if (!other_is_tensor && f.needed_by == 1)
      continue;
    const bool saved = f.needed_by < 0 || has_edge[f.needed_by];
    switch (f.source) {
      case FastSource::Self:
        values[n++] = saved ? self : Py_None;
        break;
      case FastSource::Other:
        values[n++] = saved ? other : Py_None;
        break;
      case FastSource::Result:
        values[n++] = output;
        break;
      case FastSource::Alpha:
        values[n++] = alpha_one();
        break;
      default: // the views' sources (run_view)
        throw std::logic_error("an elementwise kernel's field has a view's source");
    }
  }
  node->set_fields(values, other_is_tensor ? s.tensor_kwnames : s.number_kwnames, output);
}

// Runs a binary entry where both operands are tensors: of one shape, or one of them broadcast to the
// other's (a bias, a 0-d tensor); null where the Python kernel decides.
at::Tensor run_tensors(FastKernel k, const at::Tensor& a, const at::Tensor& b) {
  const at::ScalarType dtype = a.scalar_type();
  if (b.scalar_type() != dtype)
    return at::Tensor();
  const auto& shape = a.sizes().size() >= b.sizes().size() && a.numel() >= b.numel() ? a.sizes() : b.sizes();
  if (!row_major_result(shape))
    return at::Tensor();
  std::vector<int64_t> a_strides, b_strides;
  const bool same = a.sizes() == b.sizes();
  if (!same && (!broadcast_strides(a.sizes(), shape, a_strides) || !broadcast_strides(b.sizes(), shape, b_strides)))
    return at::Tensor();
  at::Tensor out = at::empty(shape, dtype, c10::Device());
  if (out.numel() == 0)
    return out;
  if (dtype == at::kFloat) {
    if (same)
      binary_kernel<float>(k, a.data_ptr<float>(), b.data_ptr<float>(), out.data_ptr<float>(), out.numel(), 1);
    else
      broadcast_binary_kernel<float>(
          k, a.data_ptr<float>(), a_strides, b.data_ptr<float>(), b_strides, out.data_ptr<float>(), shape);
  } else {
    if (same)
      binary_kernel<double>(k, a.data_ptr<double>(), b.data_ptr<double>(), out.data_ptr<double>(), out.numel(), 1);
    else
      broadcast_binary_kernel<double>(
          k, a.data_ptr<double>(), a_strides, b.data_ptr<double>(), b_strides, out.data_ptr<double>(), shape);
  }
  return out;
}

// A tensor and a Python number.
at::Tensor run_number(FastKernel k, const at::Tensor& a, double number) {
  const at::ScalarType dtype = a.scalar_type();
  at::Tensor out = at::empty(a.sizes(), dtype, c10::Device());
  if (dtype == at::kFloat) {
    const float scalar = static_cast<float>(number);
    binary_kernel<float>(k, a.data_ptr<float>(), &scalar, out.data_ptr<float>(), a.numel(), 0);
  } else {
    binary_kernel<double>(k, a.data_ptr<double>(), &number, out.data_ptr<double>(), a.numel(), 0);
  }
  return out;
}

at::Tensor run_unary(const FastOpEntry& e, const EntryState& s, const at::Tensor& a) {
  if (e.kernel == FastKernel::NumpyUnary && s.loop.fn == nullptr)
    return at::Tensor();
  at::Tensor out = at::empty(a.sizes(), a.scalar_type(), c10::Device());
  if (e.kernel == FastKernel::NumpyUnary)
    numpy_unary_kernel(s.loop, a, out);
  else if (a.scalar_type() == at::kFloat)
    simple_unary_kernel<float>(e.kernel, a.data_ptr<float>(), out.data_ptr<float>(), a.numel());
  else
    simple_unary_kernel<double>(e.kernel, a.data_ptr<double>(), out.data_ptr<double>(), a.numel());
  return out;
}

PyObject* run(const FastOpEntry& e, const EntryState& s, PyObject* self, PyObject* other) {
  const at::Tensor* a = host_float(self);
  if (a == nullptr)
    return nullptr;
  const bool binary = e.kernel <= FastKernel::Div;
  const at::Tensor* b = binary ? host_float(other) : nullptr;
  at::Tensor out;
  double number = 0;
  if (b != nullptr) {
    out = run_tensors(e.kernel, *a, *b);
  } else if (!row_major_result(a->sizes())) {
    return nullptr;
  } else if (!binary) {
    out = run_unary(e, s, *a);
  } else if (number_operand(other, a->scalar_type(), &number)) {
    out = run_number(e.kernel, *a, number);
  }
  if (!out.defined())
    return nullptr;
  pybind11::object output = pybind11::reinterpret_steal<pybind11::object>(THPVariable_Wrap(std::move(out)));
  record(e, s, self, other, b != nullptr, output.ptr());
  return output.release().ptr();
}

// add_'s and sub_'s alpha: as the Python kernel reads it (BinaryOps.py's _add_sub_ and _write): the
// int 1 (the default) adds plainly; another int or a float scales `other` by a fused multiply-add
// (_add_alpha), alpha first rounded to self's dtype. False where that kernel decides (a bool, an
// alpha outside float32's range, an int beyond 2**24).
bool read_alpha(PyObject* obj, at::ScalarType dtype, bool* plain, double* alpha) {
  *plain = false;
  if (PyLong_CheckExact(obj)) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (overflow != 0 || v > (1LL << 24) || v < -(1LL << 24))
      return false;
    *plain = v == 1;
    *alpha = static_cast<double>(v);
    return true;
  }
  if (!PyFloat_CheckExact(obj))
    return false;
  *alpha = PyFloat_AS_DOUBLE(obj);
  if (!std::isfinite(*alpha) || (dtype == at::kFloat && std::fabs(*alpha) > FLT_MAX))
    return false;
  if (dtype == at::kFloat)
    *alpha = static_cast<float>(*alpha);
  return true;
}

// x * y + z rounded once, as BinaryOps.py's _fma computes it: float32 through float64 (the product
// of two float32 values is exact there), float64 by Dekker's product and Knuth's sum, where a
// non-finite result (or an overflowing split) takes the plain sum.
inline float fma_as_python(float z, double x, double y) {
  return static_cast<float>(x * y + static_cast<double>(z));
}

inline double fma_as_python(double z, double x, double y) {
  const double p = x * y;
  const double split = 134217729.0;
  double xh = x * split;
  xh = xh - (xh - x);
  double yh = y * split;
  yh = yh - (yh - y);
  const double xl = x - xh, yl = y - yh;
  const double e = ((xh * yh - p) + xh * yl + xl * yh) + xl * yl;
  const double sum = p + z;
  const double bb = sum - p;
  const double t = (p - (sum - bb)) + (z - bb);
  const double r = sum + (t + e);
  return std::isfinite(r) ? r : sum;
}

// self op= other (other read at `strides`, or the number `number` where b is null), in place.
template <typename scalar_t>
void inplace_kernel(
    FastKernel k,
    scalar_t* a,
    const scalar_t* b,
    c10::IntArrayRef strides,
    c10::IntArrayRef shape,
    int64_t n,
    double number,
    bool plain,
    double alpha) {
  if (n == 0)
    return;
  if (!plain) { // add_ / sub_ with alpha: a + (+-alpha) * b
    const double scale = k == FastKernel::Sub ? -alpha : alpha;
    if (b == nullptr) {
      for (int64_t i = 0; i < n; ++i)
        a[i] = fma_as_python(a[i], number, scale);
      return;
    }
    std::vector<int64_t> index(shape.size(), 0);
    for (int64_t i = 0; i < n; ++i) {
      int64_t offset = 0;
      for (size_t d = 0; d < shape.size(); ++d)
        offset += index[d] * strides[d];
      a[i] = fma_as_python(a[i], static_cast<double>(b[offset]), scale);
      for (size_t d = shape.size(); d-- > 0;) {
        if (++index[d] < shape[d])
          break;
        index[d] = 0;
      }
    }
    return;
  }
  if (b == nullptr) {
    const auto scalar = static_cast<scalar_t>(number);
    binary_kernel<scalar_t>(k, a, &scalar, a, n, 0);
  } else if (shape.empty()) {
    binary_kernel<scalar_t>(k, a, b, a, 1, 0);
  } else {
    broadcast_binary_kernel<scalar_t>(k, a, at::contiguous_strides(shape), b, strides, a, shape);
  }
}

PyObject* mutation_hook_module() {
  static PyObject* module = PyImport_ImportModule("torchlite._ops.mutation");
  return module;
}

// An in-place entry (add_, x += y): only where it records no node and writes no saved tensor.
PyObject* run_inplace(const FastOpEntry& e, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  PyObject* self = args[0];
  PyObject* other = args[1];
  const at::Tensor* a = host_float(self);
  // memory that must not be written (Note [Read-only numpy memory]): the Python kernel's error
  if (a == nullptr || a->unsafeGetTensorImpl()->storage()->read_only())
    return nullptr;
  const at::ScalarType dtype = a->scalar_type();
  bool plain = true;
  double alpha = 1;
  if (kwnames != nullptr) {
    if ((e.kernel != FastKernel::Add && e.kernel != FastKernel::Sub) || PyTuple_GET_SIZE(kwnames) != 1 ||
        PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0), "alpha") != 0 ||
        !read_alpha(args[nargs], dtype, &plain, &alpha))
      return nullptr;
  }
  const at::Tensor* b = host_float(other);
  double number = 0;
  std::vector<int64_t> strides;
  if (b != nullptr) {
    if (b->scalar_type() != dtype || !broadcast_strides(b->sizes(), a->sizes(), strides))
      return nullptr;
    // memory shared with self, other than self itself, is the Python kernel's case (overlap checks)
    if (b->unsafeGetTensorImpl()->storage() == a->unsafeGetTensorImpl()->storage() &&
        !(b->data_ptr() == a->data_ptr() && b->sizes() == a->sizes() && b->strides() == a->strides()))
      return nullptr;
  } else if (!number_operand(other, dtype, &number)) {
    return nullptr;
  }
  if (GradMode::is_enabled() && (a->requires_grad() || (b != nullptr && b->requires_grad())))
    return nullptr;
  // Note [Before an in-place write]: allow_mutation_on_saved_tensors' hook runs in Python
  PyObject* module = mutation_hook_module();
  if (module == nullptr) {
    PyErr_Clear();
    return nullptr;
  }
  PyObject* hook = PyObject_GetAttrString(module, "hook");
  if (hook == nullptr) {
    PyErr_Clear();
    return nullptr;
  }
  Py_DECREF(hook);
  if (hook != Py_None)
    return nullptr;
  const auto* bdata = b != nullptr ? b->data_ptr() : nullptr;
  const auto write = [&](auto zero) {
    using scalar_t = decltype(zero);
    inplace_kernel<scalar_t>(
        e.kernel,
        static_cast<scalar_t*>(a->data_ptr()),
        static_cast<const scalar_t*>(bdata),
        strides,
        a->sizes(),
        a->numel(),
        number,
        plain,
        alpha);
  };
  if (dtype == at::kFloat)
    write(0.0f);
  else
    write(0.0);
  a->unsafeGetTensorImpl()->bump_version();
  return Py_NewRef(self);
}

// The views ---------------------------------------------------------------------------------------

// Exact Python ints (a bool, a numpy integer or a tensor is the Python kernel's case) from the
// arguments args[first, nargs): each one an int, or a single tuple (torch.Size) or list of them.
bool int_list(PyObject* const* args, Py_ssize_t first, Py_ssize_t nargs, std::vector<int64_t>& out) {
  PyObject* const* items = args + first;
  Py_ssize_t n = nargs - first;
  if (n == 1 && (PyTuple_Check(args[first]) || PyList_Check(args[first]))) {
    n = PySequence_Fast_GET_SIZE(args[first]);
    items = PySequence_Fast_ITEMS(args[first]);
  }
  out.resize(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (!PyLong_CheckExact(items[i]))
      return false;
    int overflow = 0;
    out[static_cast<size_t>(i)] = PyLong_AsLongLongAndOverflow(items[i], &overflow);
    if (overflow != 0)
      return false;
  }
  return true;
}

bool int_arg(PyObject* obj, int64_t* value) {
  if (!PyLong_CheckExact(obj))
    return false;
  int overflow = 0;
  *value = PyLong_AsLongLongAndOverflow(obj, &overflow);
  return overflow == 0;
}

// dim wrapped into [0, n) where it is in [-n, n); false otherwise (torch's IndexError is Python's).
bool wrap_dim(int64_t dim, int64_t n, int64_t* out) {
  if (dim < -n || dim >= n)
    return false;
  *out = dim < 0 ? dim + n : dim;
  return true;
}

// TensorShape.py's _infer_size: `shape` with its -1 filled in; false where it raises.
bool infer_size(std::vector<int64_t>& shape, int64_t numel) {
  int64_t known = 1;
  int inferred = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (inferred >= 0)
        return false;
      inferred = static_cast<int>(i);
    } else if (shape[i] < 0) {
      return false;
    } else {
      known *= shape[i];
    }
  }
  if (inferred < 0)
    return known == numel;
  if (known == 0 || numel % known != 0)
    return false;
  shape[static_cast<size_t>(inferred)] = numel / known;
  return true;
}

// at::detail::computeStride (TensorShape.py's _compute_stride): the strides that view a tensor of
// `old_sizes` and `old_strides` as `sizes` without copying; false where no view can.
bool compute_stride(
    c10::IntArrayRef old_sizes,
    c10::IntArrayRef old_strides,
    const std::vector<int64_t>& sizes,
    std::vector<int64_t>& strides) {
  strides.assign(sizes.size(), 0);
  if (old_sizes.empty()) {
    std::fill(strides.begin(), strides.end(), 1);
    return true;
  }
  const bool empty = std::find(old_sizes.begin(), old_sizes.end(), 0) != old_sizes.end();
  if (empty) {
    // any strides serve an empty tensor: its own for the same sizes, else contiguous ones
    if (old_sizes == c10::IntArrayRef(sizes)) {
      strides.assign(old_strides.begin(), old_strides.end());
      return true;
    }
    for (size_t d = sizes.size(); d-- > 0;)
      strides[d] = d + 1 == sizes.size() ? 1 : std::max<int64_t>(sizes[d + 1], 1) * strides[d + 1];
    return true;
  }
  int64_t view_d = static_cast<int64_t>(sizes.size()) - 1;
  int64_t chunk_base_stride = old_strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t tensor_d = static_cast<int64_t>(old_sizes.size()) - 1; tensor_d >= 0; --tensor_d) {
    tensor_numel *= old_sizes[static_cast<size_t>(tensor_d)];
    if (tensor_d == 0 ||
        (old_sizes[static_cast<size_t>(tensor_d - 1)] != 1 &&
         old_strides[static_cast<size_t>(tensor_d - 1)] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || sizes[static_cast<size_t>(view_d)] == 1)) {
        strides[static_cast<size_t>(view_d)] = view_numel * chunk_base_stride;
        view_numel *= sizes[static_cast<size_t>(view_d)];
        --view_d;
      }
      if (view_numel != tensor_numel)
        return false;
      if (tensor_d > 0) {
        chunk_base_stride = old_strides[static_cast<size_t>(tensor_d - 1)];
        tensor_numel = view_numel = 1;
      }
    }
  }
  return view_d == -1;
}

PyObject* int_tuple(c10::IntArrayRef values) {
  PyObject* t = PyTuple_New(static_cast<Py_ssize_t>(values.size()));
  if (t == nullptr)
    return nullptr;
  for (size_t i = 0; i < values.size(); ++i) {
    PyObject* v = PyLong_FromLongLong(values[i]);
    if (v == nullptr) {
      Py_DECREF(t);
      return nullptr;
    }
    PyTuple_SET_ITEM(t, static_cast<Py_ssize_t>(i), v);
  }
  return t;
}

// A view kernel's sizes and strides for self and the call's arguments, and the values of the
// fields its node may save (`dims`: permute's wrapped permutation); false where the Python kernel
// decides.
struct ViewGeometry {
  std::vector<int64_t> sizes, strides, dims;
  PyObject* dim0 = nullptr;
  PyObject* dim1 = nullptr;
};

bool view_geometry(FastKernel k, const at::Tensor& self, PyObject* const* args, Py_ssize_t nargs, ViewGeometry& g) {
  const c10::IntArrayRef sizes = self.sizes(), strides = self.strides();
  const auto ndim = static_cast<int64_t>(sizes.size());
  switch (k) {
    case FastKernel::Reshape:
      // a contiguous tensor's reshape is its view (ViewBackward0); another layout's is an alias
      // with its own node (ReshapeAliasBackward0) or a copy: the Python kernel's
      if (!self.unsafeGetTensorImpl()->is_contiguous() || self.numel() == 0)
        return false;
      [[fallthrough]];
    case FastKernel::View:
      if (nargs < 2 || !int_list(args, 1, nargs, g.sizes) || !infer_size(g.sizes, self.numel()))
        return false;
      return compute_stride(sizes, strides, g.sizes, g.strides);
    case FastKernel::Transpose: {
      int64_t a = 0, b = 0, d0 = 0, d1 = 0;
      if (nargs != 3 || ndim == 0 || !int_arg(args[1], &a) || !int_arg(args[2], &b) || !wrap_dim(a, ndim, &d0) ||
          !wrap_dim(b, ndim, &d1))
        return false;
      g.sizes.assign(sizes.begin(), sizes.end());
      g.strides.assign(strides.begin(), strides.end());
      std::swap(g.sizes[static_cast<size_t>(d0)], g.sizes[static_cast<size_t>(d1)]);
      std::swap(g.strides[static_cast<size_t>(d0)], g.strides[static_cast<size_t>(d1)]);
      g.dim0 = args[1];
      g.dim1 = args[2];
      return true;
    }
    case FastKernel::T:
      if (nargs != 1 || ndim > 2)
        return false;
      g.sizes.assign(sizes.rbegin(), sizes.rend());
      g.strides.assign(strides.rbegin(), strides.rend());
      return true;
    case FastKernel::Permute: {
      std::vector<int64_t> given;
      if (nargs < 2 || !int_list(args, 1, nargs, given) || static_cast<int64_t>(given.size()) != ndim)
        return false;
      std::vector<bool> seen(given.size(), false);
      for (int64_t d : given) {
        int64_t w = 0;
        if (!wrap_dim(d, ndim, &w) || seen[static_cast<size_t>(w)])
          return false;
        seen[static_cast<size_t>(w)] = true;
        g.dims.push_back(w);
        g.sizes.push_back(sizes[static_cast<size_t>(w)]);
        g.strides.push_back(strides[static_cast<size_t>(w)]);
      }
      return true;
    }
    case FastKernel::Unsqueeze: {
      int64_t dim = 0, d = 0;
      if (nargs != 2 || !int_arg(args[1], &dim) || !wrap_dim(dim, ndim + 1, &d))
        return false;
      // at::unsqueeze's stride for the new dimension: 1 at the end, else size * stride of the one it precedes
      const int64_t stride = d == ndim ? 1 : sizes[static_cast<size_t>(d)] * strides[static_cast<size_t>(d)];
      g.sizes.assign(sizes.begin(), sizes.end());
      g.strides.assign(strides.begin(), strides.end());
      g.sizes.insert(g.sizes.begin() + d, 1);
      g.strides.insert(g.strides.begin() + d, stride);
      g.dim0 = args[1];
      return true;
    }
    case FastKernel::Expand: {
      std::vector<int64_t> target;
      if (nargs < 2 || !int_list(args, 1, nargs, target) || static_cast<int64_t>(target.size()) < ndim)
        return false;
      const auto lead = static_cast<int64_t>(target.size()) - ndim;
      for (int64_t i = 0; i < static_cast<int64_t>(target.size()); ++i) {
        int64_t& t = target[static_cast<size_t>(i)];
        if (i >= lead) {
          const int64_t size = sizes[static_cast<size_t>(i - lead)];
          if (t == -1)
            t = size;
          if (size != t && size != 1)
            return false; // (ExpandUtils.py's _expand_error)
        }
        if (t < 0)
          return false;
      }
      // at::inferExpandGeometry: 0 along a broadcast dimension; a new leading one takes the size
      // times the stride of the one after it (ExpandUtils.py's _expanded_strides)
      g.strides.assign(target.size(), 0);
      for (int64_t i = static_cast<int64_t>(target.size()) - 1; i >= 0; --i) {
        int64_t size = 1, stride = 0;
        if (i >= lead) {
          size = sizes[static_cast<size_t>(i - lead)];
          stride = strides[static_cast<size_t>(i - lead)];
        } else if (i + 1 < static_cast<int64_t>(target.size())) {
          stride = target[static_cast<size_t>(i + 1)] * g.strides[static_cast<size_t>(i + 1)];
        }
        g.strides[static_cast<size_t>(i)] = size != target[static_cast<size_t>(i)] ? 0 : stride;
      }
      if (c10::IntArrayRef(target) == sizes)
        g.strides.assign(strides.begin(), strides.end());
      g.sizes = std::move(target);
      return true;
    }
    default:
      return false;
  }
}

// A view kernel's call: the view over self's storage, its node and view relation (_record_view's work).
PyObject* run_view(const FastOpEntry& e, const EntryState& s, PyObject* const* args, Py_ssize_t nargs) {
  PyObject* self = args[0];
  if (!THPVariable_Check(self))
    return nullptr;
  const at::Tensor& base = THPVariable_Unpack(self);
  if (!base.defined())
    return nullptr;
  const at::TensorImpl* impl = base.unsafeGetTensorImpl();
  if (!impl->device().is_cpu() || impl->is_inference())
    return nullptr;
  ViewGeometry g;
  if (!view_geometry(e.kernel, base, args, nargs, g))
    return nullptr;
  pybind11::object output = pybind11::reinterpret_steal<pybind11::object>(
      THPVariable_Wrap(at::alias_with_sizes_and_strides(base, g.sizes, g.strides, impl->storage_offset())));
  if (!output)
    return nullptr;
  Variable out = THPVariable_Unpack(output.ptr());
  if (GradMode::is_enabled() && base.requires_grad()) {
    auto node = make_formula_node(s.info, edge_list{impl::gradient_edge(base)});
    create_gradient_edge(out, node);
    pybind11::object owned[3];
    PyObject* values[3];
    for (int i = 0; i < e.num_fields; ++i) {
      switch (e.fields[i].source) {
        case FastSource::SelfSizes:
          owned[i] = pybind11::reinterpret_steal<pybind11::object>(int_tuple(base.sizes()));
          break;
        case FastSource::Dims:
          owned[i] = pybind11::reinterpret_steal<pybind11::object>(int_tuple(g.dims));
          break;
        case FastSource::Dim0:
          owned[i] = pybind11::reinterpret_borrow<pybind11::object>(g.dim0);
          break;
        case FastSource::Dim1:
          owned[i] = pybind11::reinterpret_borrow<pybind11::object>(g.dim1);
          break;
        default:
          throw std::logic_error("a view kernel's field has no source");
      }
      if (!owned[i])
        throw pybind11::error_already_set();
      values[i] = owned[i].ptr();
    }
    node->set_fields(values, s.tensor_kwnames, output.ptr());
  }
  impl::set_view_of(out, base, GradMode::is_enabled() ? CreationMeta::DEFAULT : CreationMeta::NO_GRAD_MODE);
  return output.release().ptr();
}

} // namespace

const FastOpEntry* find_fast_op(const char* name) {
  for (int i = 0; i < kNumFastOps; ++i) {
    if (std::strcmp(kFastOps[i].method, name) == 0)
      return &kFastOps[i];
  }
  return find_index_op(name);
}

PyObject* call_fast_op(const FastOpEntry& e, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  if (is_reduce_kernel(e.kernel))
    return call_reduce_op(e, args, nargs, kwnames);
  if (is_index_kernel(e.kernel))
    return call_index_op(e, args, nargs, kwnames);
  if (is_matrix_product_kernel(e.kernel))
    return call_fast_linear(e, args, nargs, kwnames);
  if (e.inplace) {
    if (nargs != 2 || c10::InferenceMode::is_enabled())
      return nullptr;
    HANDLE_TH_ERRORS
    return run_inplace(e, args, nargs, kwnames);
    END_HANDLE_TH_ERRORS
  }
  if (is_view_kernel(e.kernel)) {
    if (nargs < 1 || kwnames != nullptr || records_captured() || c10::InferenceMode::is_enabled())
      return nullptr;
    EntryState* s = state_of(e);
    if (s == nullptr)
      return nullptr;
    HANDLE_TH_ERRORS
    return run_view(e, *s, args, nargs);
    END_HANDLE_TH_ERRORS
  }
  const bool binary = e.kernel <= FastKernel::Div;
  if (nargs != (binary ? 2 : 1) || kwnames != nullptr || records_captured() || c10::InferenceMode::is_enabled())
    return nullptr;
  EntryState* s = state_of(e);
  if (s == nullptr)
    return nullptr;
  HANDLE_TH_ERRORS
  return run(e, *s, args[0], binary ? args[1] : nullptr);
  END_HANDLE_TH_ERRORS
}

NumpyUnaryLoop find_numpy_unary_loop(PyObject* ufunc, char type) {
  NumpyUnaryLoop loop;
  auto* uf = reinterpret_cast<PyUFuncObject*>(ufunc);
  if (std::strcmp(Py_TYPE(ufunc)->tp_name, "numpy.ufunc") != 0 || uf->nin != 1 || uf->nout != 1)
    return loop;
  for (int i = 0; i < uf->ntypes; ++i) {
    if (uf->types[2 * i] == type && uf->types[2 * i + 1] == type) {
      loop.fn = uf->functions[i];
      loop.data = uf->data ? uf->data[i] : nullptr;
      break;
    }
  }
  return loop;
}

} // namespace autograd
} // namespace torch
