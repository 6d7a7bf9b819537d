// The C++ entries of mm, matmul (and the @ operator), torch.nn.functional.linear and torch.cat: Note [C++ entries of
// the matrix products]. Reached from call_fast_op (python_fast_ops.cpp) for the table's Mm, Matmul, Linear and Cat
// kernels.
//
// Note [C++ entries of the matrix products]
// The Python kernels (torchlite/_ops/LinearAlgebra.py's mm, matmul, _matmul_kernel and addmm; LinearNN.py's linear
// and _flatten_nd_linear) stay the reference. This file takes the calls each of whose steps those kernels take in
// one known way, and makes the same tensors and records the same nodes, in the same order, with the same fields:
//  - mm(a, b) and matmul(a, b) of two matrices: MmBackward0 (upstream at::mm);
//  - matmul(a, b) of a batch of 3 or more dimensions, laid out contiguously with the standard strides, by a matrix:
//    folded as at::native::_matmul_impl folds it (ATen/native/LinearAlgebra.cpp, should_fold; the batch's layout
//    makes it fold whether or not b requires grad): a reshape of a to 2-d that is its view (ViewBackward0), mm
//    (MmBackward0), and _unsafe_view back (UnsafeViewBackward0, a new tensor, not a view);
//  - linear(input, weight, bias) (ATen/native/Linear.cpp): t(weight) (TBackward0, a view), then with a bias and a
//    2-d input addmm(bias, input, weight.t()) (AddmmBackward0, beta = alpha = 1); with a 1-d bias and a
//    standard-contiguous input of 3 or more dimensions _flatten_nd_linear: the 2-d view of the input (ViewBackward0)
//    made before t(weight), addmm, and the result viewed back (ViewBackward0: the output is a view of addmm's);
//    without a bias, matmul(input, weight.t()) as above.
// Operands: host (cpu) float32 or float64 tensors of one dtype, none empty or an inference tensor, their data aligned,
// any strides (the product reads them as numpy does); outside inference mode and structured in-place capture; only
// positional arguments. Anything else (a 1-d operand, a batch that does not fold, a bias of another shape, a shape
// the kernels refuse, beta=, alpha=, out=) is "not handled" and goes to the Python kernel, whose errors stay the
// reference: every check here runs before the first tensor or node is made.
//
// The product is numpy's own: the Python kernel calls np.matmul(a, b); this calls numpy's matmul inner loop (the
// "ff->f" or "dd->d" entry of np.matmul's loop table: numpy/_core/src/umath/matmul.c.src) with the arguments numpy's
// gufunc machinery passes it (PyUFunc_GeneralizedFunctionInternal, numpy/_core/src/umath/ufunc_object.c): an outer
// count of 1, then each core dimension's stride in bytes, 0 for a dimension of size 1, over a new row-major output
// (the matrix np.matmul allocates). That loop alone chooses BLAS gemm, gemv or dot, or its own loop, from those sizes
// and strides, so the bits are the Python kernel's. numpy 2.2.6, 2.4.6 and 2.5 pass the same arguments (each has the
// zero stride for a size-1 core dimension), and numpy's iterator copies an operand only where it is unaligned, needs
// a cast or overlaps the output, none of which happens here (aligned data, one dtype, a new output). numpy reads the
// floating-point flags after the loop; the Python kernel runs it under _quiet (errors ignored), so nothing here
// reads them. addmm's bias is then added by one IEEE addition per element, as np.add(product, bias, out=product).
//
// torch.cat (TensorShape.py's cat; upstream ATen/native/TensorShape.cpp cat) is pure data movement: for contiguous
// tensors of one dtype it copies each tensor's block per index before dim into a new contiguous result, the bytes
// np.concatenate and ascontiguousarray leave, and records CatBackward0 with the fields the kernel names (dim as given,
// each tensor's size along dim, each one's numpy dtype).
#include "autograd/python_fast_ops.h"

#include "aten/Functions.h"
#include "autograd/grad_mode.h"
#include "autograd/python_function.h"
#include "autograd/python_variable.h"
#include "c10/core/InferenceMode.h"

#include "autograd/numpy_layouts.h"

#include <cstdint>
#include <cstring>
#include <vector>

namespace torch {
namespace autograd {
namespace {

namespace py = pybind11;

struct MatmulLoop {
  PyUFuncGenericFunction fn = nullptr;
  void* data = nullptr;
};

// Made on first use (under the GIL): the nodes' specs, numpy's loops and the keyword names of the fields.
struct LinearState {
  bool ready = false;
  bool failed = false; // numpy's matmul has no such loops: every call is the Python kernel's
  MatmulLoop loops[2]; // float32, float64
  const OpInfo* mm = nullptr;
  const OpInfo* addmm = nullptr;
  const OpInfo* view = nullptr;
  const OpInfo* t = nullptr;
  const OpInfo* unsafe_view = nullptr;
  PyObject* mm_names = nullptr;
  PyObject* addmm_names = nullptr;
  PyObject* sizes_names = nullptr;
  PyObject* one = nullptr;
  const OpInfo* cat = nullptr;
  PyObject* cat_names = nullptr;
  PyObject* numpy_dtypes[3] = {nullptr, nullptr, nullptr}; // float32, float64, int64: cat's tensors_dtypes
};

PyObject* names_tuple(std::initializer_list<const char*> names) {
  PyObject* t = PyTuple_New(static_cast<Py_ssize_t>(names.size()));
  if (t == nullptr)
    throw py::error_already_set();
  Py_ssize_t i = 0;
  for (const char* name : names) {
    PyObject* key = PyUnicode_InternFromString(name);
    if (key == nullptr)
      throw py::error_already_set();
    PyTuple_SET_ITEM(t, i++, key);
  }
  return t;
}

bool resolve_loops(MatmulLoop loops[2]) {
  PyObject* numpy = PyImport_ImportModule("numpy");
  if (numpy == nullptr) {
    PyErr_Clear();
    return false;
  }
  PyObject* obj = PyObject_GetAttrString(numpy, "matmul");
  Py_DECREF(numpy);
  if (obj == nullptr) {
    PyErr_Clear();
    return false;
  }
  auto* uf = reinterpret_cast<PyUFuncObject*>(obj);
  if (std::strcmp(Py_TYPE(obj)->tp_name, "numpy.ufunc") == 0 && uf->nin == 2 && uf->nout == 1 && uf->core_enabled) {
    for (int i = 0; i < uf->ntypes; ++i) {
      const char* types = reinterpret_cast<const char*>(uf->types) + 3 * i;
      for (int k = 0; k < 2; ++k) {
        const int want = k == 0 ? NPY_FLOAT : NPY_DOUBLE;
        if (types[0] == want && types[1] == want && types[2] == want) {
          loops[k].fn = uf->functions[i];
          loops[k].data = uf->data ? uf->data[i] : nullptr;
        }
      }
    }
  }
  Py_DECREF(obj); // numpy's ufuncs live as long as numpy
  return loops[0].fn != nullptr && loops[1].fn != nullptr;
}

const LinearState* linear_state() {
  static LinearState s;
  if (s.ready)
    return &s;
  if (s.failed)
    return nullptr;
  s.mm = op_info_named("MmBackward0");
  s.addmm = op_info_named("AddmmBackward0");
  s.view = op_info_named("ViewBackward0");
  s.t = op_info_named("TBackward0");
  s.unsafe_view = op_info_named("UnsafeViewBackward0");
  s.cat = op_info_named("CatBackward0");
  if (!s.mm || !s.addmm || !s.view || !s.t || !s.unsafe_view || !s.cat) // the specs' module is not imported yet
    return nullptr;
  if (!resolve_loops(s.loops)) {
    s.failed = true;
    return nullptr;
  }
  // the fields in the order the Python kernels pass them
  s.mm_names =
      names_tuple({"self", "mat2", "self_sym_sizes", "self_sym_strides", "mat2_sym_sizes", "mat2_sym_strides"});
  s.addmm_names = names_tuple(
      {"mat1", "mat2", "beta", "alpha", "mat1_sym_sizes", "mat1_sym_strides", "mat2_sym_sizes", "mat2_sym_strides"});
  s.sizes_names = names_tuple({"self_sym_sizes"});
  s.cat_names = names_tuple({"dim", "tensors_sizes", "tensors_dtypes"});
  s.one = PyLong_FromLong(1);
  if (s.one == nullptr)
    throw py::error_already_set();
  py::module_ numpy = py::module_::import("numpy");
  const char* dtype_names[3] = {"float32", "float64", "int64"};
  for (int i = 0; i < 3; ++i)
    s.numpy_dtypes[i] = numpy.attr("dtype")(dtype_names[i]).release().ptr();
  s.ready = true;
  return &s;
}

// An operand the entries take: a cpu float32 / float64 tensor, not empty, not an inference tensor, its data aligned
// (numpy's iterator would copy an unaligned one).
const at::Tensor* operand(PyObject* obj) {
  if (!THPVariable_Check(obj))
    return nullptr;
  const at::Tensor& t = THPVariable_Unpack(obj);
  if (!t.defined())
    return nullptr;
  const at::TensorImpl* impl = t.unsafeGetTensorImpl();
  const at::ScalarType dtype = impl->dtype();
  if ((dtype != at::kFloat && dtype != at::kDouble) || !impl->device().is_cpu() || impl->is_inference() ||
      impl->numel() == 0)
    return nullptr;
  if (reinterpret_cast<uintptr_t>(t.data_ptr()) % at::elementSize(dtype) != 0)
    return nullptr;
  for (int64_t stride : impl->strides()) {
    if (stride < 0)
      return nullptr;
  }
  return &t;
}

bool standard_contiguous(const at::Tensor& t) {
  return t.strides() == c10::IntArrayRef(at::contiguous_strides(t.sizes()));
}

py::object wrap(at::Tensor t) {
  PyObject* obj = THPVariable_Wrap(std::move(t));
  if (obj == nullptr)
    throw py::error_already_set();
  return py::reinterpret_steal<py::object>(obj);
}

py::tuple int_tuple(c10::IntArrayRef values) {
  py::tuple t(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    t[i] = py::int_(values[i]);
  return t;
}

// a @ b (two matrices) into a new row-major matrix, by numpy's matmul loop (Note [C++ entries of the matrix
// products]).
at::Tensor product(const LinearState& s, const at::Tensor& a, const at::Tensor& b) {
  const at::ScalarType dtype = a.scalar_type();
  const int64_t m = a.sizes()[0], n = a.sizes()[1], p = b.sizes()[1];
  at::Tensor out = at::empty({m, p}, dtype, c10::Device());
  const auto item = static_cast<npy_intp>(at::elementSize(dtype));
  const auto step = [item](int64_t size, int64_t stride) {
    return size == 1 ? npy_intp(0) : static_cast<npy_intp>(stride) * item;
  };
  npy_intp dims[4] = {1, static_cast<npy_intp>(m), static_cast<npy_intp>(n), static_cast<npy_intp>(p)};
  npy_intp steps[9] = {
      0,
      0,
      0,
      step(m, a.strides()[0]),
      step(n, a.strides()[1]),
      step(n, b.strides()[0]),
      step(p, b.strides()[1]),
      step(m, p),
      step(p, 1)};
  char* args[3] = {
      static_cast<char*>(a.data_ptr()), static_cast<char*>(b.data_ptr()), static_cast<char*>(out.data_ptr())};
  const MatmulLoop& loop = s.loops[dtype == at::kFloat ? 0 : 1];
  if (m * p > 500) { // numpy's NPY_BEGIN_THREADS_THRESHOLDED over the output's size
    // the operands' memory stays alive whatever another thread does to their tensors meanwhile
    const std::shared_ptr<at::StorageImpl> keep_a = a.unsafeGetTensorImpl()->storage();
    const std::shared_ptr<at::StorageImpl> keep_b = b.unsafeGetTensorImpl()->storage();
    Py_BEGIN_ALLOW_THREADS loop.fn(args, dims, steps, loop.data);
    Py_END_ALLOW_THREADS
  } else {
    loop.fn(args, dims, steps, loop.data);
  }
  if (PyErr_Occurred()) // the loop's MemoryError for a scratch buffer
    throw py::error_already_set();
  return out;
}

// out[i, j] += bias[j]: _add_scaled's np.add(product, bias, out=product) for beta = alpha = 1.
template <typename scalar_t>
void add_bias(at::Tensor& out, const at::Tensor& bias) {
  const int64_t rows = out.sizes()[0], cols = out.sizes()[1], step = bias.strides()[0];
  auto* r = out.data_ptr<scalar_t>();
  const auto* b = bias.data_ptr<scalar_t>();
  for (int64_t i = 0; i < rows; ++i) {
    scalar_t* row = r + i * cols;
    for (int64_t j = 0; j < cols; ++j)
      row[j] = row[j] + b[j * step];
  }
}

// _record_view's work: the view of `base` with these sizes and strides (sharing its storage and version counter), the
// node `info` with `fields` where base requires grad, and the view relation.
py::object record_view(
    PyObject* base_obj,
    c10::IntArrayRef sizes,
    c10::IntArrayRef strides,
    const OpInfo* info,
    PyObject* names,
    PyObject* const* fields) {
  const at::Tensor& base = THPVariable_Unpack(base_obj);
  py::object output =
      wrap(at::alias_with_sizes_and_strides(base, sizes, strides, base.unsafeGetTensorImpl()->storage_offset()));
  Variable out = THPVariable_Unpack(output.ptr());
  if (GradMode::is_enabled() && base.requires_grad()) {
    auto node = make_formula_node(info, edge_list{impl::gradient_edge(base)});
    create_gradient_edge(out, node);
    node->set_fields(fields, names, output.ptr());
  }
  impl::set_view_of(out, base, GradMode::is_enabled() ? CreationMeta::DEFAULT : CreationMeta::NO_GRAD_MODE);
  return output;
}

// t(weight) of a matrix: TBackward0.
py::object t_view(const LinearState& s, PyObject* weight) {
  const at::Tensor& w = THPVariable_Unpack(weight);
  const std::vector<int64_t> sizes{w.sizes()[1], w.sizes()[0]};
  const std::vector<int64_t> strides{w.strides()[1], w.strides()[0]};
  return record_view(weight, sizes, strides, s.t, nullptr, nullptr);
}

// reshape(x, (-1, x.size(-1))) of a standard-contiguous tensor: its view, ViewBackward0.
py::object flatten_view(const LinearState& s, PyObject* x) {
  const at::Tensor& a = THPVariable_Unpack(x);
  const int64_t k = a.sizes().back();
  const std::vector<int64_t> sizes{a.numel() / k, k};
  py::object self_sizes = int_tuple(a.sizes());
  PyObject* fields[1] = {self_sizes.ptr()};
  return record_view(x, sizes, at::contiguous_strides(sizes), s.view, s.sizes_names, fields);
}

// _matmul_kernel's MmBackward0 for output = self @ mat2.
void record_mm(const LinearState& s, PyObject* self, PyObject* mat2, PyObject* output) {
  const at::Tensor& a = THPVariable_Unpack(self);
  const at::Tensor& b = THPVariable_Unpack(mat2);
  const bool ga = a.requires_grad(), gb = b.requires_grad();
  if (!GradMode::is_enabled() || !(ga || gb))
    return;
  edge_list edges(2);
  if (ga)
    edges[0] = impl::gradient_edge(a);
  if (gb)
    edges[1] = impl::gradient_edge(b);
  auto node = make_formula_node(s.mm, std::move(edges));
  Variable out = THPVariable_Unpack(output);
  create_gradient_edge(out, node);
  py::tuple none_strides;
  py::object a_sizes = int_tuple(a.sizes()), b_sizes = int_tuple(b.sizes());
  py::object a_strides = ga ? int_tuple(a.strides()) : none_strides;
  py::object b_strides = gb ? int_tuple(b.strides()) : none_strides;
  PyObject* fields[6] = {
      gb ? self : Py_None, ga ? mat2 : Py_None, a_sizes.ptr(), a_strides.ptr(), b_sizes.ptr(), b_strides.ptr()};
  node->set_fields(fields, s.mm_names, output);
}

// mm of two matrices (checked): the result, its node recorded.
py::object run_mm(const LinearState& s, PyObject* self, PyObject* mat2) {
  py::object output = wrap(product(s, THPVariable_Unpack(self), THPVariable_Unpack(mat2)));
  record_mm(s, self, mat2, output.ptr());
  return output;
}

// addmm(bias, mat1, mat2) (checked; beta = alpha = 1): AddmmBackward0.
py::object run_addmm(const LinearState& s, PyObject* bias, PyObject* mat1, PyObject* mat2) {
  const at::Tensor& c = THPVariable_Unpack(bias);
  const at::Tensor& a = THPVariable_Unpack(mat1);
  const at::Tensor& b = THPVariable_Unpack(mat2);
  at::Tensor r = product(s, a, b);
  if (r.scalar_type() == at::kFloat)
    add_bias<float>(r, c);
  else
    add_bias<double>(r, c);
  py::object output = wrap(std::move(r));
  const bool gc = c.requires_grad(), ga = a.requires_grad(), gb = b.requires_grad();
  if (!GradMode::is_enabled() || !(gc || ga || gb))
    return output;
  edge_list edges(3);
  if (gc)
    edges[0] = impl::gradient_edge(c);
  if (ga)
    edges[1] = impl::gradient_edge(a);
  if (gb)
    edges[2] = impl::gradient_edge(b);
  auto node = make_formula_node(s.addmm, std::move(edges));
  Variable out = THPVariable_Unpack(output.ptr());
  create_gradient_edge(out, node);
  py::tuple none_strides;
  py::object a_sizes = int_tuple(a.sizes()), b_sizes = int_tuple(b.sizes());
  py::object a_strides = ga ? int_tuple(a.strides()) : none_strides;
  py::object b_strides = gb ? int_tuple(b.strides()) : none_strides;
  PyObject* fields[8] = {
      gb ? mat1 : Py_None,
      ga ? mat2 : Py_None,
      s.one,
      s.one,
      a_sizes.ptr(),
      a_strides.ptr(),
      b_sizes.ptr(),
      b_strides.ptr()};
  node->set_fields(fields, s.addmm_names, output.ptr());
  return output;
}

// matmul's cases taken here (checked by matmul_taken): two matrices (mm), or a standard-contiguous batch by a matrix
// (folded: the batch's 2-d view, mm, _unsafe_view back).
py::object run_matmul(const LinearState& s, PyObject* self, PyObject* other) {
  const at::Tensor& a = THPVariable_Unpack(self);
  if (a.dim() == 2)
    return run_mm(s, self, other);
  std::vector<int64_t> out_sizes(a.sizes().begin(), a.sizes().end() - 1);
  out_sizes.push_back(THPVariable_Unpack(other).sizes()[1]);
  py::object folded = flatten_view(s, self);
  py::object r = run_mm(s, folded.ptr(), other);
  // _unsafe_view: a new tensor over the product's memory (its own version counter), not a view
  const at::Tensor& rt = THPVariable_Unpack(r.ptr());
  py::object output = wrap(
      at::Tensor(
          std::make_shared<at::TensorImpl>(
              rt.unsafeGetTensorImpl()->storage(), rt.scalar_type(), out_sizes, at::contiguous_strides(out_sizes), 0)));
  if (GradMode::is_enabled() && rt.requires_grad()) {
    auto node = make_formula_node(s.unsafe_view, edge_list{impl::gradient_edge(rt)});
    Variable out = THPVariable_Unpack(output.ptr());
    create_gradient_edge(out, node);
    py::object r_sizes = int_tuple(rt.sizes());
    PyObject* fields[1] = {r_sizes.ptr()};
    node->set_fields(fields, s.sizes_names, output.ptr());
  }
  return output;
}

// Whether run_matmul takes matmul(a, b): a a matrix or a standard-contiguous batch, b a matrix, one dtype, the
// inner sizes equal (else the Python kernel's error).
bool matmul_taken(const at::Tensor& a, const at::Tensor& b) {
  if (a.scalar_type() != b.scalar_type() || b.dim() != 2 || a.dim() < 2 || a.sizes().back() != b.sizes()[0])
    return false;
  return a.dim() == 2 || standard_contiguous(a);
}

PyObject* run_linear(const LinearState& s, PyObject* const* args, Py_ssize_t nargs) {
  PyObject* input = args[0];
  PyObject* weight = args[1];
  PyObject* bias = nargs == 3 ? args[2] : Py_None;
  const at::Tensor* x = operand(input);
  const at::Tensor* w = operand(weight);
  if (x == nullptr || w == nullptr || w->dim() != 2 || x->dim() < 2 || x->scalar_type() != w->scalar_type() ||
      x->sizes().back() != w->sizes()[1])
    return nullptr;
  if (bias == Py_None) {
    // matmul(input, weight.t()): t(weight) is a view, so matmul_taken(x, weight.t()) reads w's sizes swapped
    if (x->dim() > 2 && !standard_contiguous(*x))
      return nullptr;
    py::object wt = t_view(s, weight);
    return run_matmul(s, input, wt.ptr()).release().ptr();
  }
  const at::Tensor* b = operand(bias);
  if (b == nullptr || b->dim() != 1 || b->sizes()[0] != w->sizes()[0] || b->scalar_type() != x->scalar_type() ||
      (x->dim() > 2 && !standard_contiguous(*x)))
    return nullptr;
  if (x->dim() == 2) {
    py::object wt = t_view(s, weight);
    return run_addmm(s, bias, input, wt.ptr()).release().ptr();
  }
  // _flatten_nd_linear
  py::object flat = flatten_view(s, input);
  py::object wt = t_view(s, weight);
  py::object r = run_addmm(s, bias, flat.ptr(), wt.ptr());
  const at::Tensor& rt = THPVariable_Unpack(r.ptr());
  std::vector<int64_t> out_sizes(x->sizes().begin(), x->sizes().end() - 1);
  out_sizes.push_back(rt.sizes()[1]);
  py::object r_sizes = int_tuple(rt.sizes());
  PyObject* fields[1] = {r_sizes.ptr()};
  return record_view(r.ptr(), out_sizes, at::contiguous_strides(out_sizes), s.view, s.sizes_names, fields)
      .release()
      .ptr();
}

// cat ----------------------------------------------------------------------------------------------------------------

// The numpy dtype cat's node saves for a tensor of `dtype` (its array's dtype), or null outside the ones taken.
PyObject* numpy_dtype(const LinearState& s, at::ScalarType dtype) {
  switch (dtype) {
    case at::kFloat:
      return s.numpy_dtypes[0];
    case at::kDouble:
      return s.numpy_dtypes[1];
    case at::kLong:
      return s.numpy_dtypes[2];
    default:
      return nullptr;
  }
}

// torch.cat(tensors, dim) (TensorShape.py's cat) of a list or tuple of contiguous cpu tensors of one dtype (float32,
// float64 or int64: no promotion), one number of dimensions and the same sizes but along dim, none empty (so none is
// skipped, and dim wraps against the first), dim an int in range: the rows of each tensor copied into a new
// contiguous result, as np.concatenate then ascontiguousarray place them; CatBackward0.
PyObject* run_cat(const LinearState& s, PyObject* list, PyObject* dim_obj) {
  if (!PyList_Check(list) && !PyTuple_Check(list))
    return nullptr;
  const Py_ssize_t count = PySequence_Fast_GET_SIZE(list);
  PyObject** items = PySequence_Fast_ITEMS(list);
  int64_t dim = 0;
  if (count == 0 || !PyLong_CheckExact(dim_obj))
    return nullptr;
  int overflow = 0;
  dim = PyLong_AsLongLongAndOverflow(dim_obj, &overflow);
  if (overflow != 0)
    return nullptr;
  std::vector<const at::Tensor*> tensors(static_cast<size_t>(count));
  for (Py_ssize_t i = 0; i < count; ++i) {
    if (!THPVariable_Check(items[i]))
      return nullptr;
    const at::Tensor& t = THPVariable_Unpack(items[i]);
    if (!t.defined())
      return nullptr;
    const at::TensorImpl* impl = t.unsafeGetTensorImpl();
    if (numpy_dtype(s, impl->dtype()) == nullptr || !impl->device().is_cpu() || impl->is_inference() ||
        impl->numel() == 0 || impl->dim() == 0 || !impl->is_contiguous())
      return nullptr;
    tensors[static_cast<size_t>(i)] = &t;
  }
  const at::Tensor& first = *tensors[0];
  const int64_t ndim = first.dim();
  if (dim < -ndim || dim >= ndim)
    return nullptr;
  const int64_t d = dim < 0 ? dim + ndim : dim;
  std::vector<int64_t> out_sizes(first.sizes().begin(), first.sizes().end());
  out_sizes[static_cast<size_t>(d)] = 0;
  for (const at::Tensor* t : tensors) {
    if (t->scalar_type() != first.scalar_type() || t->dim() != ndim)
      return nullptr;
    for (int64_t k = 0; k < ndim; ++k) {
      if (k != d && t->sizes()[static_cast<size_t>(k)] != first.sizes()[static_cast<size_t>(k)])
        return nullptr;
    }
    out_sizes[static_cast<size_t>(d)] += t->sizes()[static_cast<size_t>(d)];
  }
  at::Tensor out = at::empty(out_sizes, first.scalar_type(), c10::Device());
  // the result's rows: for each index before dim, each tensor's block of size(d) * (the sizes after dim) elements
  const size_t item = at::elementSize(first.scalar_type());
  int64_t outer = 1, inner = 1;
  for (int64_t k = 0; k < d; ++k)
    outer *= out_sizes[static_cast<size_t>(k)];
  for (int64_t k = d + 1; k < ndim; ++k)
    inner *= out_sizes[static_cast<size_t>(k)];
  auto* dst = static_cast<char*>(out.data_ptr());
  for (int64_t o = 0; o < outer; ++o) {
    for (const at::Tensor* t : tensors) {
      const size_t block = static_cast<size_t>(t->sizes()[static_cast<size_t>(d)] * inner) * item;
      std::memcpy(dst, static_cast<const char*>(t->data_ptr()) + static_cast<size_t>(o) * block, block);
      dst += block;
    }
  }
  py::object output = wrap(std::move(out));
  bool any_requires_grad = false;
  for (const at::Tensor* t : tensors)
    any_requires_grad = any_requires_grad || t->requires_grad();
  if (!GradMode::is_enabled() || !any_requires_grad)
    return output.release().ptr();
  edge_list edges(static_cast<size_t>(count));
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i]->requires_grad())
      edges[i] = impl::gradient_edge(*tensors[i]);
  }
  auto node = make_formula_node(s.cat, std::move(edges));
  Variable result = THPVariable_Unpack(output.ptr());
  create_gradient_edge(result, node);
  py::tuple sizes(static_cast<size_t>(count));
  py::list dtypes(static_cast<size_t>(count));
  for (size_t i = 0; i < tensors.size(); ++i) {
    sizes[i] = py::int_(tensors[i]->sizes()[static_cast<size_t>(d)]);
    dtypes[i] = py::reinterpret_borrow<py::object>(numpy_dtype(s, tensors[i]->scalar_type()));
  }
  PyObject* fields[3] = {dim_obj, sizes.ptr(), dtypes.ptr()};
  node->set_fields(fields, s.cat_names, output.ptr());
  return output.release().ptr();
}

} // namespace

PyObject* call_fast_linear(const FastOpEntry& e, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  if (e.kernel == FastKernel::Cat) {
    // cat(tensors), cat(tensors, dim), cat(tensors, dim=dim)
    const bool dim_keyword = kwnames != nullptr && PyTuple_GET_SIZE(kwnames) == 1 &&
        PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0), "dim") == 0;
    if ((kwnames != nullptr && (!dim_keyword || nargs != 1)) || nargs < 1 || nargs > 2 || records_captured() ||
        c10::InferenceMode::is_enabled())
      return nullptr;
    static PyObject* zero = PyLong_FromLong(0);
    HANDLE_TH_ERRORS
    const LinearState* s = linear_state();
    if (s == nullptr)
      return nullptr;
    return run_cat(*s, args[0], nargs == 2 ? args[1] : dim_keyword ? args[1] : zero);
    END_HANDLE_TH_ERRORS
  }
  if (kwnames != nullptr || records_captured() || c10::InferenceMode::is_enabled())
    return nullptr;
  const bool linear = e.kernel == FastKernel::Linear;
  if (linear ? (nargs != 2 && nargs != 3) : nargs != 2)
    return nullptr;
  HANDLE_TH_ERRORS
  const LinearState* s = linear_state();
  if (s == nullptr)
    return nullptr;
  if (linear)
    return run_linear(*s, args, nargs);
  const at::Tensor* a = operand(args[0]);
  const at::Tensor* b = operand(args[1]);
  if (a == nullptr || b == nullptr || !matmul_taken(*a, *b) || (e.kernel == FastKernel::Mm && a->dim() != 2))
    return nullptr;
  return run_matmul(*s, args[0], args[1]).release().ptr();
  END_HANDLE_TH_ERRORS
}

} // namespace autograd
} // namespace torch
