// Basic indexing and the per-step views in C++: Note [C++ dispatch of basic indexing]
// (python_fast_index.h). Upstream: torch/csrc/autograd/python_variable_indexing.cpp (getitem,
// applySlicing), aten/src/ATen/TensorIndexing.h (applySelect, applySlice) and
// aten/src/ATen/native/TensorShape.cpp (select, slice, narrow, squeeze, split, chunk, unbind,
// flatten); the Python kernels they mirror are torchlite/_ops/python_variable_indexing.py,
// TensorShape.py and TensorShapeOps.py.
#include "autograd/python_fast_index.h"

#include "aten/Functions.h"
#include "autograd/grad_mode.h"
#include "autograd/python_function.h"
#include "autograd/python_variable.h"
#include "c10/core/InferenceMode.h"

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <stdexcept>
#include <vector>

namespace torch {
namespace autograd {
namespace {

namespace py = pybind11;

const FastOpEntry kIndexOps[] = {
    {"__getitem__", FastKernel::Getitem, nullptr, false, nullptr, 0, {}},
    {"select", FastKernel::Select, nullptr, false, nullptr, 0, {}},
    {"narrow", FastKernel::Narrow, nullptr, false, nullptr, 0, {}},
    {"squeeze", FastKernel::Squeeze, nullptr, false, nullptr, 0, {}},
    {"split", FastKernel::Split, nullptr, false, nullptr, 0, {}},
    {"chunk", FastKernel::Chunk, nullptr, false, nullptr, 0, {}},
    {"unbind", FastKernel::Unbind, nullptr, false, nullptr, 0, {}},
    {"flatten", FastKernel::Flatten, nullptr, false, nullptr, 0, {}},
};

// A node these entries record: its spec from the derivatives table and its fields' names, which
// set_fields checks against the spec's (an unknown name raises: a test then fails, no result
// silently differs).
struct NodeSpec {
  const char* name;
  std::initializer_list<const char*> fields;
  const OpInfo* info = nullptr;
  PyObject* kwnames = nullptr;

  // false until torchlite/_generated/specs.py made the spec (then the Python kernel runs)
  bool ready() {
    if (kwnames != nullptr)
      return true;
    info = op_info_named(name);
    if (info == nullptr)
      return false;
    PyObject* names = PyTuple_New(static_cast<Py_ssize_t>(fields.size()));
    if (names == nullptr)
      throw py::error_already_set();
    Py_ssize_t i = 0;
    for (const char* field : fields) {
      PyObject* key = PyUnicode_InternFromString(field);
      if (key == nullptr) {
        Py_DECREF(names);
        throw py::error_already_set();
      }
      PyTuple_SET_ITEM(names, i++, key);
    }
    kwnames = names;
    return true;
  }
};

NodeSpec kSelect{"SelectBackward0", {"dim", "index", "self_sym_sizes"}};
NodeSpec kSlice{"SliceBackward0", {"dim", "start", "end", "step", "self_sym_sizes"}};
NodeSpec kUnsqueeze{"UnsqueezeBackward0", {"dim"}};
NodeSpec kAlias{"AliasBackward0", {}};
NodeSpec kSqueeze0{"SqueezeBackward0", {"self_sym_sizes"}};
NodeSpec kSqueeze1{"SqueezeBackward1", {"dim", "self_sym_sizes"}};
NodeSpec kSqueeze2{"SqueezeBackward2", {"dim", "self_sym_sizes"}};
NodeSpec kSplit{"SplitBackward0", {"split_size", "dim", "self_sym_sizes", "self_dtype"}};
NodeSpec kSplitWithSizes{"SplitWithSizesBackward0", {"split_sizes", "dim", "self_sym_sizes", "self_dtype"}};
NodeSpec kUnbind{"UnbindBackward0", {"dim", "self_sym_sizes", "self_dtype"}};

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

py::object steal(PyObject* obj) {
  if (obj == nullptr)
    throw py::error_already_set();
  return py::reinterpret_steal<py::object>(obj);
}

py::object borrow(PyObject* obj) {
  return py::reinterpret_borrow<py::object>(obj);
}

py::object int_object(int64_t value) {
  return steal(PyLong_FromLongLong(value));
}

py::object int_tuple(c10::IntArrayRef values) {
  py::object t = steal(PyTuple_New(static_cast<Py_ssize_t>(values.size())));
  for (size_t i = 0; i < values.size(); ++i)
    PyTuple_SET_ITEM(t.ptr(), static_cast<Py_ssize_t>(i), int_object(values[i]).release().ptr());
  return t;
}

// An exact Python int (not a bool, a numpy integer or a tensor: the Python kernel's cases) that
// fits int64.
bool int_arg(PyObject* obj, int64_t* value) {
  if (obj == nullptr || !PyLong_CheckExact(obj))
    return false;
  int overflow = 0;
  *value = PyLong_AsLongLongAndOverflow(obj, &overflow);
  return overflow == 0;
}

// c10::maybe_wrap_dim as the Python kernels' _wrap_dim: a 0-d tensor takes a 1-d one's dims.
bool wrap_dim(int64_t dim, int64_t ndim, int64_t* out) {
  const int64_t bound = ndim > 0 ? ndim : 1;
  if (dim < -bound || dim >= bound)
    return false;
  *out = dim < 0 ? dim + bound : dim;
  return true;
}

// The method's arguments after self bound to its parameters `names` (positional, then by
// keyword); null where not given. False where a keyword is not one of them, is given twice, or
// there are too many positional arguments: the Python kernel's call.
bool bind_args(
    PyObject* const* args,
    Py_ssize_t nargs,
    PyObject* kwnames,
    std::initializer_list<const char*> names,
    PyObject** out) {
  const auto n = static_cast<Py_ssize_t>(names.size());
  if (nargs - 1 > n)
    return false;
  for (Py_ssize_t i = 0; i < n; ++i)
    out[i] = i + 1 < nargs ? args[i + 1] : nullptr;
  if (kwnames == nullptr)
    return true;
  for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(kwnames); ++k) {
    PyObject* key = PyTuple_GET_ITEM(kwnames, k);
    Py_ssize_t i = 0;
    for (const char* name : names) {
      if (PyUnicode_CompareWithASCIIString(key, name) == 0)
        break;
      ++i;
    }
    if (i == n || out[i] != nullptr)
      return false;
    out[i] = args[nargs + k];
  }
  return true;
}

// A view's sizes, strides and storage offset, in elements.
struct Geometry {
  std::vector<int64_t> sizes, strides;
  int64_t offset = 0;

  static Geometry of(const at::Tensor& t) {
    const at::TensorImpl* impl = t.unsafeGetTensorImpl();
    Geometry g;
    g.sizes.assign(impl->sizes().begin(), impl->sizes().end());
    g.strides.assign(impl->strides().begin(), impl->strides().end());
    g.offset = impl->storage_offset();
    return g;
  }

  // at::select: the dimension dropped, the offset moved to the index (in range; wrapped).
  void select(size_t dim, int64_t index) {
    if (index < 0)
      index += sizes[dim];
    offset += index * strides[dim];
    sizes.erase(sizes.begin() + static_cast<std::ptrdiff_t>(dim));
    strides.erase(strides.begin() + static_cast<std::ptrdiff_t>(dim));
  }

  // at::slice with a positive step: start and end wrapped once and clamped into [0, size] (as
  // Python's slice.indices and numpy's basic slicing), the offset at start even for an empty
  // result (TensorGeometry.py's _sliced places it so), the stride times step.
  void slice(size_t dim, bool has_start, int64_t start, bool has_end, int64_t end, int64_t step) {
    const int64_t size = sizes[dim];
    const auto clamp = [size](int64_t v) {
      if (v < 0)
        v += size;
      return v < 0 ? 0 : (v > size ? size : v);
    };
    start = has_start ? clamp(start) : 0;
    end = has_end ? clamp(end) : size;
    offset += start * strides[dim];
    sizes[dim] = end > start ? (end - start + step - 1) / step : 0;
    strides[dim] *= step;
  }

  // at::unsqueeze: a size-1 dimension at `dim` whose stride is 1 at the end, else the size times
  // the stride of the dimension it precedes.
  void unsqueeze(size_t dim) {
    const int64_t stride = dim == sizes.size() ? 1 : sizes[dim] * strides[dim];
    sizes.insert(sizes.begin() + static_cast<std::ptrdiff_t>(dim), 1);
    strides.insert(strides.begin() + static_cast<std::ptrdiff_t>(dim), stride);
  }
};

CreationMeta view_creation_meta(CreationMeta in_grad_mode) {
  return GradMode::is_enabled() ? in_grad_mode : CreationMeta::NO_GRAD_MODE;
}

// _record_view's work for one view of `prev` (a tensor over prev's storage with geometry `g`,
// sharing its version counter): where `record`, the node `spec` with an edge to prev and the
// fields `values` (in spec.fields' order), then the view relation.
py::object make_view(const at::Tensor& prev, const Geometry& g, NodeSpec* spec, PyObject* const* values, bool record) {
  py::object output = steal(THPVariable_Wrap(at::alias_with_sizes_and_strides(prev, g.sizes, g.strides, g.offset)));
  Variable out = THPVariable_Unpack(output.ptr());
  if (record) {
    auto node = make_formula_node(spec->info, edge_list{impl::gradient_edge(prev)});
    create_gradient_edge(out, node);
    node->set_fields(values, spec->kwnames, output.ptr());
  }
  impl::set_view_of(out, prev, view_creation_meta(CreationMeta::DEFAULT));
  return output;
}

bool records_node(const at::Tensor& self) {
  return GradMode::is_enabled() && self.requires_grad();
}

// The numpy dtype of self's array (split's and unbind's self_dtype, as the Python kernel saves it).
py::object numpy_dtype(PyObject* self) {
  static PyObject* array_key = PyUnicode_InternFromString("_array");
  static PyObject* dtype_key = PyUnicode_InternFromString("dtype");
  py::object array = steal(PyObject_GetAttr(self, array_key));
  return steal(PyObject_GetAttr(array.ptr(), dtype_key));
}

// x[key] ------------------------------------------------------------------------------------------

enum class ItemKind : uint8_t { Int, Slice, None, Ellipsis };

struct Item {
  ItemKind kind;
  PyObject* obj; // the int, or the slice
  int64_t value = 0; // the int
  PyObject *start = nullptr, *stop = nullptr, *step = nullptr; // a slice's (None or an int)
  int64_t start_v = 0, stop_v = 0, step_v = 1;
};

// A slice bound: None, or an int that fits int64.
bool slice_bound(PyObject* obj, int64_t* value) {
  return obj == Py_None || int_arg(obj, value);
}

bool parse_item(PyObject* k, Item& item) {
  item.obj = k;
  if (k == Py_None) {
    item.kind = ItemKind::None;
    return true;
  }
  if (k == Py_Ellipsis) {
    item.kind = ItemKind::Ellipsis;
    return true;
  }
  if (PyLong_CheckExact(k)) {
    item.kind = ItemKind::Int;
    return int_arg(k, &item.value);
  }
  if (!PySlice_Check(k))
    return false;
  auto* s = reinterpret_cast<PySliceObject*>(k);
  item.kind = ItemKind::Slice;
  item.start = s->start;
  item.stop = s->stop;
  item.step = s->step;
  // a step that is not positive raises in the Python kernel
  return slice_bound(item.start, &item.start_v) && slice_bound(item.stop, &item.stop_v) &&
      slice_bound(item.step, &item.step_v) && item.step_v > 0;
}

// One view of the chain: its node, the geometry of its result, and its fields' values.
struct Step {
  NodeSpec* spec;
  Geometry geometry;
  py::object values[5];
};

PyObject* run_getitem(PyObject* self, PyObject* key) {
  const at::Tensor& base = THPVariable_Unpack(self);
  const int64_t ndim = base.dim();
  const bool lone = !PyTuple_Check(key);
  if (!lone && !PyTuple_CheckExact(key))
    return nullptr; // a tuple subclass: the Python kernel's
  Item items_inline[4];
  std::vector<Item> items_heap;
  Item* items = items_inline;
  Py_ssize_t n = 1;
  if (lone) {
    if (!parse_item(key, items[0]))
      return nullptr;
    // an int or a slice on a 0-d tensor raises (torch's own messages for the lone key)
    if (ndim == 0 && (items[0].kind == ItemKind::Int || items[0].kind == ItemKind::Slice))
      return nullptr;
  } else {
    n = PyTuple_GET_SIZE(key);
    if (n > 4) {
      items_heap.resize(static_cast<size_t>(n));
      items = items_heap.data();
    }
    for (Py_ssize_t i = 0; i < n; ++i) {
      if (!parse_item(PyTuple_GET_ITEM(key, i), items[i]))
        return nullptr;
    }
  }
  int64_t n_real = 0, ellipses = 0;
  for (Py_ssize_t i = 0; i < n; ++i) {
    n_real += items[i].kind == ItemKind::Int || items[i].kind == ItemKind::Slice;
    ellipses += items[i].kind == ItemKind::Ellipsis;
  }
  if (n_real > ndim || ellipses > 1)
    return nullptr; // too many indices: the Python kernel's IndexError
  // applySlicing: the items' views, each of the previous result
  c10::SmallVector<Step, 4> steps;
  Geometry g = Geometry::of(base);
  size_t dim = 0;
  for (Py_ssize_t i = 0; i < n; ++i) {
    const Item& k = items[i];
    switch (k.kind) {
      case ItemKind::None: {
        Step step{&kUnsqueeze, {}, {}};
        step.values[0] = int_object(static_cast<int64_t>(dim));
        g.unsqueeze(dim);
        step.geometry = g;
        steps.push_back(std::move(step));
        ++dim;
        break;
      }
      case ItemKind::Ellipsis:
        dim += static_cast<size_t>(ndim - n_real);
        break;
      case ItemKind::Slice: {
        const int64_t size = g.sizes[dim];
        const bool has_start = k.start != Py_None, has_stop = k.stop != Py_None;
        // a slice keeping the whole dimension is skipped inside a tuple (upstream's
        // disable_slice_optimization is for the lone slice only)
        if (lone || (has_start && k.start_v != 0) || k.step_v != 1 || (has_stop && k.stop_v < size)) {
          Step step{&kSlice, {}, {}};
          step.values[0] = int_object(static_cast<int64_t>(dim));
          step.values[1] = has_start ? borrow(k.start) : int_object(0);
          step.values[2] = has_stop ? borrow(k.stop) : int_object(kInt64Max);
          step.values[3] = k.step != Py_None ? borrow(k.step) : int_object(1);
          step.values[4] = int_tuple(g.sizes);
          g.slice(dim, has_start, k.start_v, has_stop, k.stop_v, k.step_v);
          step.geometry = g;
          steps.push_back(std::move(step));
        }
        ++dim;
        break;
      }
      case ItemKind::Int: {
        const int64_t size = g.sizes[dim];
        if (k.value < -size || k.value >= size)
          return nullptr; // out of range: the Python kernel's IndexError
        Step step{&kSelect, {}, {}};
        step.values[0] = int_object(static_cast<int64_t>(dim));
        step.values[1] = borrow(k.obj);
        step.values[2] = int_tuple(g.sizes);
        g.select(dim, k.value);
        step.geometry = g;
        steps.push_back(std::move(step));
        break;
      }
    }
  }
  if (steps.empty()) // nothing applied: an alias of self
    steps.push_back(Step{&kAlias, g, {}});
  const bool record = records_node(base);
  if (!record) {
    // no node: only the last view, a view of self (what the chain's base and creation meta are)
    return make_view(base, steps[steps.size() - 1].geometry, nullptr, nullptr, false).release().ptr();
  }
  for (const Step& step : steps) {
    if (!step.spec->ready())
      return nullptr;
  }
  py::object prev = borrow(self);
  for (const Step& step : steps) {
    PyObject* values[5];
    for (size_t i = 0; i < step.spec->fields.size(); ++i)
      values[i] = step.values[i].ptr();
    prev = make_view(THPVariable_Unpack(prev.ptr()), step.geometry, step.spec, values, true);
  }
  return prev.release().ptr();
}

// The views ---------------------------------------------------------------------------------------

// One view of self with its node (where self requires grad in grad mode).
PyObject* single_view(
    const at::Tensor& self,
    const Geometry& g,
    NodeSpec& spec,
    std::initializer_list<PyObject*> values) {
  const bool record = records_node(self);
  if (record && !spec.ready())
    return nullptr;
  return make_view(self, g, &spec, values.begin(), record).release().ptr();
}

// select.int(dim, index): the node saves the dim and the index as given.
PyObject* run_select(const at::Tensor& self, PyObject* const* a) {
  int64_t dim = 0, index = 0, d = 0;
  const int64_t ndim = self.dim();
  if (ndim == 0 || !int_arg(a[0], &dim) || !int_arg(a[1], &index) || !wrap_dim(dim, ndim, &d))
    return nullptr;
  const int64_t size = self.sizes()[static_cast<size_t>(d)];
  if (index < -size || index >= size)
    return nullptr;
  Geometry g = Geometry::of(self);
  py::object sizes = int_tuple(self.sizes());
  g.select(static_cast<size_t>(d), index);
  return single_view(self, g, kSelect, {a[0], a[1], sizes.ptr()});
}

// narrow(dim, start, length): at::slice from start (wrapped once) for length; the node saves
// the dim as given and the wrapped start.
PyObject* run_narrow(const at::Tensor& self, PyObject* const* a) {
  int64_t dim = 0, start = 0, length = 0, d = 0;
  const int64_t ndim = self.dim();
  if (ndim == 0 || !int_arg(a[0], &dim) || !int_arg(a[1], &start) || !int_arg(a[2], &length) ||
      !wrap_dim(dim, ndim, &d) || length < 0)
    return nullptr;
  const int64_t size = self.sizes()[static_cast<size_t>(d)];
  if (start < -size || start > size)
    return nullptr;
  if (start < 0)
    start += size;
  if (start > size - length)
    return nullptr;
  Geometry g = Geometry::of(self);
  py::object sizes = int_tuple(self.sizes());
  g.slice(static_cast<size_t>(d), true, start, true, start + length, 1);
  py::object start_obj = int_object(start);
  py::object end_obj = int_object(start + length);
  static PyObject* one = PyLong_FromLong(1);
  return single_view(self, g, kSlice, {a[0], start_obj.ptr(), end_obj.ptr(), one, sizes.ptr()});
}

// squeeze(), squeeze(dim), squeeze(dims): the size-1 dimensions among those asked removed.
PyObject* run_squeeze(const at::Tensor& self, PyObject* const* a) {
  const int64_t ndim = self.dim();
  const c10::IntArrayRef sizes = self.sizes();
  std::vector<bool> asked(static_cast<size_t>(ndim), false);
  NodeSpec* spec = &kSqueeze0;
  py::object dim_field;
  if (a[0] == nullptr || a[0] == Py_None) {
    std::fill(asked.begin(), asked.end(), true);
  } else if (PyLong_CheckExact(a[0])) {
    int64_t dim = 0, d = 0;
    if (!int_arg(a[0], &dim) || !wrap_dim(dim, ndim, &d))
      return nullptr;
    if (ndim > 0)
      asked[static_cast<size_t>(d)] = true;
    spec = &kSqueeze1;
    dim_field = borrow(a[0]);
  } else if (PyTuple_Check(a[0]) || PyList_Check(a[0])) {
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(a[0]);
    PyObject* const* items = PySequence_Fast_ITEMS(a[0]);
    std::vector<bool> seen(static_cast<size_t>(ndim > 0 ? ndim : 1), false);
    for (Py_ssize_t i = 0; i < n; ++i) {
      int64_t dim = 0, d = 0;
      if (!int_arg(items[i], &dim) || !wrap_dim(dim, ndim, &d) || seen[static_cast<size_t>(d)])
        return nullptr; // a repeated dim raises in the Python kernel
      seen[static_cast<size_t>(d)] = true;
      if (ndim > 0)
        asked[static_cast<size_t>(d)] = true;
    }
    spec = &kSqueeze2;
    // the node saves tuple(dim)
    dim_field = PyTuple_CheckExact(a[0]) ? borrow(a[0]) : steal(PySequence_Tuple(a[0]));
  } else {
    return nullptr;
  }
  Geometry g;
  const c10::IntArrayRef strides = self.strides();
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (!(asked[d] && sizes[d] == 1)) {
      g.sizes.push_back(sizes[d]);
      g.strides.push_back(strides[d]);
    }
  }
  g.offset = self.unsafeGetTensorImpl()->storage_offset();
  py::object self_sizes = int_tuple(sizes);
  if (spec == &kSqueeze0)
    return single_view(self, g, *spec, {self_sizes.ptr()});
  return single_view(self, g, *spec, {dim_field.ptr(), self_sizes.ptr()});
}

// The pieces of self along `dim` (of `sizes`, or each the index along it where `select`), one
// node for all (_record_multi_view's work): none may be modified in place.
PyObject* multi_view(
    const at::Tensor& self,
    size_t dim,
    const std::vector<int64_t>& sizes,
    bool select,
    NodeSpec& spec,
    std::initializer_list<PyObject*> fields) {
  const bool record = records_node(self);
  if (record && !spec.ready())
    return nullptr;
  const Geometry whole = Geometry::of(self);
  py::object outs = steal(PyTuple_New(static_cast<Py_ssize_t>(sizes.size())));
  int64_t begin = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    Geometry g = whole;
    if (select)
      g.select(dim, static_cast<int64_t>(i));
    else
      g.slice(dim, true, begin, true, begin + sizes[i], 1);
    begin += sizes[i];
    PyTuple_SET_ITEM(
        outs.ptr(),
        static_cast<Py_ssize_t>(i),
        THPVariable_Wrap(at::alias_with_sizes_and_strides(self, g.sizes, g.strides, g.offset)));
    if (PyTuple_GET_ITEM(outs.ptr(), static_cast<Py_ssize_t>(i)) == nullptr)
      throw py::error_already_set();
  }
  std::shared_ptr<PyFormulaNode> node;
  if (record) {
    node = make_formula_node(spec.info, edge_list{impl::gradient_edge(self)});
    node->set_fields(fields.begin(), spec.kwnames, nullptr);
  }
  for (size_t i = 0; i < sizes.size(); ++i) {
    Variable out = THPVariable_Unpack(PyTuple_GET_ITEM(outs.ptr(), static_cast<Py_ssize_t>(i)));
    if (node)
      create_gradient_edge(out, node);
    impl::set_view_of(out, self, view_creation_meta(CreationMeta::MULTI_OUTPUT_NODE));
  }
  return outs.release().ptr();
}

// split(split_size or sizes, dim=0): the node saves the dim as given.
PyObject* run_split(PyObject* self_obj, const at::Tensor& self, PyObject* const* a, bool chunk) {
  static PyObject* zero = PyLong_FromLong(0);
  PyObject* dim_obj = a[1] != nullptr ? a[1] : zero;
  int64_t dim = 0, d = 0;
  const int64_t ndim = self.dim();
  if (a[0] == nullptr || ndim == 0 || !int_arg(dim_obj, &dim) || !wrap_dim(dim, ndim, &d))
    return nullptr;
  const int64_t size = self.sizes()[static_cast<size_t>(d)];
  std::vector<int64_t> sizes;
  int64_t step = 0;
  py::object split_size;
  if (chunk) {
    // chunk(chunks, dim): split by ceil(size / chunks); an empty dimension's split_with_sizes is
    // the Python kernel's
    int64_t chunks = 0;
    if (!int_arg(a[0], &chunks) || chunks <= 0 || size == 0)
      return nullptr;
    step = (size + chunks - 1) / chunks;
    split_size = int_object(step);
  } else if (PyLong_CheckExact(a[0])) {
    // an empty dimension, or a split_size that is not positive: the Python kernel's
    if (!int_arg(a[0], &step) || step <= 0 || size == 0)
      return nullptr;
    split_size = borrow(a[0]);
  } else if (PyTuple_Check(a[0]) || PyList_Check(a[0])) {
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(a[0]);
    PyObject* const* items = PySequence_Fast_ITEMS(a[0]);
    int64_t total = 0;
    for (Py_ssize_t i = 0; i < n; ++i) {
      int64_t s = 0;
      if (!int_arg(items[i], &s) || s < 0 || s > size)
        return nullptr;
      sizes.push_back(s);
      total += s;
    }
    if (total != size)
      return nullptr;
    py::object split_sizes = int_tuple(sizes);
    py::object self_sizes = int_tuple(self.sizes());
    py::object dtype = numpy_dtype(self_obj);
    return multi_view(
        self,
        static_cast<size_t>(d),
        sizes,
        false,
        kSplitWithSizes,
        {split_sizes.ptr(), dim_obj, self_sizes.ptr(), dtype.ptr()});
  } else {
    return nullptr;
  }
  for (int64_t begin = 0; begin < size; begin += step)
    sizes.push_back(std::min(step, size - begin));
  py::object self_sizes = int_tuple(self.sizes());
  py::object dtype = numpy_dtype(self_obj);
  return multi_view(
      self, static_cast<size_t>(d), sizes, false, kSplit, {split_size.ptr(), dim_obj, self_sizes.ptr(), dtype.ptr()});
}

// unbind(dim=0): each index along dim.
PyObject* run_unbind(PyObject* self_obj, const at::Tensor& self, PyObject* const* a) {
  static PyObject* zero = PyLong_FromLong(0);
  PyObject* dim_obj = a[0] != nullptr ? a[0] : zero;
  int64_t dim = 0, d = 0;
  const int64_t ndim = self.dim();
  if (ndim == 0 || !int_arg(dim_obj, &dim) || !wrap_dim(dim, ndim, &d))
    return nullptr;
  std::vector<int64_t> sizes(static_cast<size_t>(self.sizes()[static_cast<size_t>(d)]), 1);
  py::object self_sizes = int_tuple(self.sizes());
  py::object dtype = numpy_dtype(self_obj);
  return multi_view(self, static_cast<size_t>(d), sizes, true, kUnbind, {dim_obj, self_sizes.ptr(), dtype.ptr()});
}

// flatten(start_dim=0, end_dim=-1): self where start == end, else reshape's C++ entry (the view
// of a contiguous tensor, ViewBackward0) with dimensions start..end as one, as the composite
// at::flatten calls reshape.
PyObject* run_flatten(PyObject* self_obj, const at::Tensor& self, PyObject* const* a) {
  int64_t start = 0, end = -1, s = 0, e = 0;
  const int64_t ndim = self.dim();
  if ((a[0] != nullptr && !int_arg(a[0], &start)) || (a[1] != nullptr && !int_arg(a[1], &end)) || ndim == 0 ||
      !wrap_dim(start, ndim, &s) || !wrap_dim(end, ndim, &e) || s > e)
    return nullptr;
  if (s == e)
    return Py_NewRef(self_obj);
  static const FastOpEntry* reshape = find_fast_op("reshape");
  if (reshape == nullptr)
    return nullptr;
  const c10::IntArrayRef sizes = self.sizes();
  std::vector<int64_t> shape(sizes.begin(), sizes.begin() + s);
  int64_t n = 1;
  for (int64_t d = s; d <= e; ++d)
    n *= sizes[static_cast<size_t>(d)];
  shape.push_back(n);
  shape.insert(shape.end(), sizes.begin() + e + 1, sizes.end());
  py::object target = int_tuple(shape);
  PyObject* args[2] = {self_obj, target.ptr()};
  return call_fast_op(*reshape, args, 2, nullptr);
}

PyObject* run_index_op(const FastOpEntry& e, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  PyObject* self = args[0];
  const at::Tensor& t = THPVariable_Unpack(self);
  PyObject* a[3] = {nullptr, nullptr, nullptr};
  switch (e.kernel) {
    case FastKernel::Getitem:
      if (nargs != 2 || kwnames != nullptr)
        return nullptr;
      return run_getitem(self, args[1]);
    case FastKernel::Select:
      if (!bind_args(args, nargs, kwnames, {"dim", "index"}, a) || a[0] == nullptr || a[1] == nullptr)
        return nullptr;
      return run_select(t, a);
    case FastKernel::Narrow:
      if (!bind_args(args, nargs, kwnames, {"dim", "start", "length"}, a) || a[0] == nullptr || a[1] == nullptr ||
          a[2] == nullptr)
        return nullptr;
      return run_narrow(t, a);
    case FastKernel::Squeeze:
      if (!bind_args(args, nargs, kwnames, {"dim"}, a))
        return nullptr;
      return run_squeeze(t, a);
    case FastKernel::Split:
      // (the keywords the Python kernel names; torch's `split_size=` is its error)
      if (!bind_args(args, nargs, kwnames, {"split_size_or_sections", "dim"}, a))
        return nullptr;
      return run_split(self, t, a, false);
    case FastKernel::Chunk:
      if (!bind_args(args, nargs, kwnames, {"chunks", "dim"}, a))
        return nullptr;
      return run_split(self, t, a, true);
    case FastKernel::Unbind:
      if (!bind_args(args, nargs, kwnames, {"dim"}, a))
        return nullptr;
      return run_unbind(self, t, a);
    case FastKernel::Flatten:
      if (!bind_args(args, nargs, kwnames, {"start_dim", "end_dim"}, a))
        return nullptr;
      return run_flatten(self, t, a);
    default:
      return nullptr;
  }
}

} // namespace

const FastOpEntry* find_index_op(const char* name) {
  for (const FastOpEntry& e : kIndexOps) {
    if (std::strcmp(e.method, name) == 0)
      return &e;
  }
  return nullptr;
}

PyObject* call_index_op(const FastOpEntry& e, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  if (nargs < 1 || !THPVariable_Check(args[0]) || records_captured() || c10::InferenceMode::is_enabled())
    return nullptr;
  const at::Tensor& self = THPVariable_Unpack(args[0]);
  if (!self.defined())
    return nullptr;
  const at::TensorImpl* impl = self.unsafeGetTensorImpl();
  if (!impl->device().is_cpu() || impl->is_inference())
    return nullptr;
  HANDLE_TH_ERRORS
  return run_index_op(e, args, nargs, kwnames);
  END_HANDLE_TH_ERRORS
}

} // namespace autograd
} // namespace torch
