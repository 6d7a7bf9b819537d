#include "autograd/python_function.h"
#include "aten/Functions.h"
#include "aten/SavedTensorHooks.h"
#include "autograd/grad_mode.h"
#include "autograd/python_cpp_function.h"

#include <algorithm>
#include <deque>
#include <mutex>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace py = pybind11;

namespace torch {
namespace autograd {

namespace {

py::object wrap(const Variable& var) {
  return py::reinterpret_steal<py::object>(THPVariable_Wrap(var));
}

// Drops a Python reference held by a node; the node may die on any thread.
void release_pyobject(PyObject* obj) {
  if (!obj)
    return;
  GilForRelease gil;
  if (gil)
    Py_DECREF(obj);
}

// Note [Python nodes on CUDA streams]
// The engine runs a node with its forward's stream current (seed 000, 10.1),
// but a Python formula computes with cupy, whose current stream is its own.
// While a node on a cuda device runs Python, cupy's current stream is the
// node's, so its kernels are ordered with the engine's stream waits. Held
// with the GIL; nothing happens for other devices or before cupy is loaded.
class CupyStreamScope {
 public:
  explicit CupyStreamScope(const Node& node) {
    if (!THPCudaStreamHook)
      return;
    const auto stream = node.stream();
    if (!stream || stream->device_type() != c10::DeviceType::CUDA)
      return;
    restore_ =
        py::reinterpret_borrow<py::object>(THPCudaStreamHook)(stream->id(), static_cast<int>(stream->device_index()));
  }
  CupyStreamScope(const CupyStreamScope&) = delete;
  CupyStreamScope& operator=(const CupyStreamScope&) = delete;
  ~CupyStreamScope() {
    if (!restore_)
      return;
    try {
      restore_();
    } catch (py::error_already_set& e) {
      e.discard_as_unraisable(__func__);
    }
  }

 private:
  py::object restore_;
};

std::string type_name(PyObject* obj) {
  return Py_TYPE(obj)->tp_name;
}

// torch.autograd.graph.saved_tensors_hooks keeps (pack_hook, unpack_hook) on
// at::SavedTensorDefaultHooks' thread-local stack, which the engine carries to
// the thread running each node (at::ThreadLocalState). torchlite's
// SavedVariable has no hook slot, so the Python nodes, which create every
// saved tensor from Python, apply the hooks themselves.
void release_safe_pyobject(void* obj) {
  release_pyobject(static_cast<PyObject*>(obj));
}

c10::SafePyObject to_safe_pyobject(py::object obj) {
  return c10::SafePyObject(obj.release().ptr(), &release_safe_pyobject);
}

} // namespace

PyObject* pack_saved_tensor(PyObject* tensor) {
  const auto hooks = at::SavedTensorDefaultHooks::get_hooks();
  if (!hooks)
    return nullptr;
  PyObject* packed = PyObject_CallOneArg(static_cast<PyObject*>(hooks->first.ptr()), tensor);
  if (!packed)
    throw py::error_already_set();
  PyObject* pair = PyTuple_Pack(2, static_cast<PyObject*>(hooks->second.ptr()), packed);
  Py_DECREF(packed);
  if (!pair)
    throw py::error_already_set();
  return pair;
}

py::object unpack_saved_tensor(PyObject* unpack_and_packed) {
  PyObject* raw = PyObject_CallOneArg(PyTuple_GET_ITEM(unpack_and_packed, 0), PyTuple_GET_ITEM(unpack_and_packed, 1));
  if (!raw)
    throw py::error_already_set();
  py::object r = py::reinterpret_steal<py::object>(raw);
  if (!THPVariable_Check(r.ptr())) {
    throw py::type_error(
        "Output of saved tensor unpack_hook expected to be a Tensor but got result of type " + type_name(r.ptr()));
  }
  return r;
}

// PyNode ---------------------------------------------------------------------------

PyNode::PyNode(PyObject* obj, std::string name) : obj_(obj), name_(std::move(name)) {
  Py_INCREF(obj_);
  set_pyobj(obj_);
}

PyNode::~PyNode() {
  release_pyobject(obj_);
}

variable_list PyNode::apply(variable_list&& inputs) {
  py::gil_scoped_acquire gil;
  CupyStreamScope cupy_stream(*this);
  THPFunction& f = py::handle(obj_).cast<THPFunction&>();
  const size_t num_inputs = inputs.size();
  py::tuple args(num_inputs);
  for (size_t i = 0; i < num_inputs; ++i) {
    const bool is_tensor = i < f.output_is_tensor.size() && f.output_is_tensor[i];
    if (inputs[i].defined()) {
      args[i] = wrap(inputs[i]);
    } else if (f.materialize_grads && is_tensor) {
      args[i] = wrap(input_metadata(i).zeros_like());
    } else {
      args[i] = py::none();
    }
  }
  inputs.clear(); // drop the gradients while the GIL is held

  py::object apply_fn = py::handle(obj_).attr("apply");
  PyObject* raw = PyObject_Call(apply_fn.ptr(), args.ptr(), nullptr);
  if (!raw)
    throw py::error_already_set();
  py::object r = py::reinterpret_steal<py::object>(raw);
  if (!PyTuple_Check(r.ptr()))
    r = py::make_tuple(r);

  const size_t num_forward_inputs = f.is_variable_input.size();
  size_t num_outputs = PyTuple_GET_SIZE(r.ptr());
  // Trailing Nones beyond the forward's inputs are allowed.
  if (num_outputs > num_forward_inputs) {
    bool all_none = true;
    for (size_t i = num_forward_inputs; i < num_outputs; ++i) {
      all_none &= PyTuple_GET_ITEM(r.ptr(), i) == Py_None;
    }
    if (all_none)
      num_outputs = num_forward_inputs;
  }
  if (num_outputs != num_forward_inputs) {
    throw std::runtime_error(
        "function " + name() + " returned an incorrect number of gradients (expected " +
        std::to_string(num_forward_inputs) + ", got " + std::to_string(num_outputs) + ")");
  }

  variable_list results;
  results.reserve(num_outputs);
  for (size_t i = 0; i < num_outputs; ++i) {
    PyObject* output = PyTuple_GET_ITEM(r.ptr(), i);
    if (!f.is_variable_input[i]) {
      if (output != Py_None) {
        throw std::runtime_error(
            "function " + name() + " returned a gradient different than None at position " + std::to_string(i + 1) +
            ", but the corresponding forward input was not a Variable");
      }
      continue;
    }
    if (output == Py_None) {
      results.emplace_back();
    } else if (THPVariable_Check(output)) {
      results.push_back(THPVariable_Unpack(output));
    } else {
      throw py::type_error("expected Variable or None (got " + type_name(output) + ")");
    }
  }
  return results;
}

void PyNode::release_variables() {
  GilForRelease gil;
  if (!gil)
    return;
  THPFunction& f = py::handle(obj_).cast<THPFunction&>();
  f.saved_variables.clear();
  f.packed_saved.clear();
  f.has_freed_buffers = true;
}

// PyFormulaNode ------------------------------------------------------------------

size_t OpInfo::field_index(PyObject* key) const {
  for (size_t i = 0; i < field_keys.size(); ++i) {
    if (field_keys[i] == key)
      return i;
  }
  for (size_t i = 0; i < field_keys.size(); ++i) {
    if (PyUnicode_Compare(field_keys[i], key) == 0)
      return i;
  }
  return fields.size();
}

PyFormulaNode::PyFormulaNode(const OpInfo* info, edge_list&& next_edges) : Node(std::move(next_edges)), info_(info) {}

PyFormulaNode::~PyFormulaNode() {
  if (values_.empty() && packed_.empty())
    return;
  // One GIL acquisition for every Python object the node owns (a node may die on any thread).
  GilForRelease gil;
  if (!gil)
    return;
  for (PyObject* v : values_)
    Py_XDECREF(v);
  for (PyObject* p : packed_)
    Py_XDECREF(p);
}

void PyFormulaNode::release_packed() {
  for (PyObject*& p : packed_) {
    Py_XDECREF(p);
    p = nullptr;
  }
  packed_released_ = true;
}

namespace {

// An int field as upstream's saved-variable getters show it: a negative int64 read back as
// uint64 (dim=-1 shows as 2**64 - 1), element by element in a tuple or list.
py::object shown_unsigned(const py::object& value) {
  if (PyLong_Check(value.ptr())) {
    const long long v = PyLong_AsLongLong(value.ptr());
    if (v == -1 && PyErr_Occurred()) {
      PyErr_Clear(); // beyond int64: shown as it is
      return value;
    }
    if (v < 0)
      return py::reinterpret_steal<py::object>(PyLong_FromUnsignedLongLong(static_cast<unsigned long long>(v)));
    return value;
  }
  if (PyTuple_Check(value.ptr()) || PyList_Check(value.ptr())) {
    py::sequence items = py::reinterpret_borrow<py::sequence>(value);
    py::tuple shown(items.size());
    for (size_t i = 0; i < items.size(); ++i)
      shown[i] = shown_unsigned(items[i]);
    return std::move(shown);
  }
  return value;
}

// Note [numpy integers in saved fields]
// torch's argument parser (torch/csrc/utils/python_arg_parser.cpp: PythonArgs::toInt64, intlist and
// scalar_slow read numpy integers through __index__ / as c10::Scalar ints) hands the kernels Python
// ints, so a node's fields hold ints even where the call gave numpy integers (x.permute(np.int64(1),
// 0), x.softmax(np.int64(1)), x * np.int64(2)), and floats for numpy floating scalars (x.pow(np.float32(2))).
// The kernels here take numpy scalars as they come, so a field is stored with each numpy integer or
// floating scalar, alone or in a tuple or list, as the Python number it stands for:
// grad_fn._saved_<field> shows torch's values and the formulas read Python numbers. Ints, floats, strings
// and tuples of ints (nearly every field) pass after a type check or two.
bool maybe_numpy_number(PyObject* v) {
  const PyNumberMethods* number = Py_TYPE(v)->tp_as_number;
  return number != nullptr && (number->nb_index != nullptr || number->nb_float != nullptr) && !PyLong_Check(v) &&
      !PyFloat_CheckExact(v);
}

// A numpy integer or floating scalar (not a numpy bool, which stays as given).
bool is_numpy_number(PyObject* v) {
  if (!maybe_numpy_number(v))
    return false;
  static PyObject* numpy_number = [] {
    PyObject* numpy = PyImport_ImportModule("numpy");
    PyObject* cls = numpy != nullptr ? PyObject_GetAttrString(numpy, "number") : nullptr;
    Py_XDECREF(numpy);
    if (cls == nullptr)
      PyErr_Clear();
    return cls;
  }();
  if (numpy_number == nullptr)
    return false;
  const int is_number = PyObject_IsInstance(v, numpy_number);
  if (is_number < 0)
    throw py::error_already_set();
  return is_number == 1;
}

// The Python number a numpy scalar stands for (a new reference): an integer through __index__, a
// floating one as a float.
PyObject* python_number(PyObject* v) {
  PyObject* out = Py_TYPE(v)->tp_as_number->nb_index != nullptr ? PyNumber_Index(v) : PyNumber_Float(v);
  if (out == nullptr)
    throw py::error_already_set();
  return out;
}

// A new reference to what set_field stores for `value`.
PyObject* stored_value(PyObject* value) {
  if (PyLong_CheckExact(value) || PyFloat_CheckExact(value) || PyUnicode_CheckExact(value))
    return Py_NewRef(value);
  if (PyTuple_Check(value) || PyList_Check(value)) {
    const bool tuple = PyTuple_Check(value);
    const Py_ssize_t n = tuple ? PyTuple_GET_SIZE(value) : PyList_GET_SIZE(value);
    bool numpy = false;
    for (Py_ssize_t k = 0; k < n && !numpy; ++k) {
      PyObject* item = tuple ? PyTuple_GET_ITEM(value, k) : PyList_GET_ITEM(value, k);
      numpy = !PyLong_CheckExact(item) && is_numpy_number(item);
    }
    if (!numpy)
      return Py_NewRef(value);
    PyObject* out = tuple ? PyTuple_New(n) : PyList_New(n);
    if (out == nullptr)
      throw py::error_already_set();
    for (Py_ssize_t k = 0; k < n; ++k) {
      PyObject* item = tuple ? PyTuple_GET_ITEM(value, k) : PyList_GET_ITEM(value, k);
      PyObject* stored = nullptr;
      try {
        stored = is_numpy_number(item) ? python_number(item) : Py_NewRef(item);
      } catch (...) {
        Py_DECREF(out);
        throw;
      }
      if (tuple)
        PyTuple_SET_ITEM(out, k, stored);
      else
        PyList_SET_ITEM(out, k, stored);
    }
    return out;
  }
  if (is_numpy_number(value))
    return python_number(value);
  return Py_NewRef(value);
}

} // namespace

void PyFormulaNode::set_field(PyObject* key, PyObject* value, PyObject* output, bool inplace_on_view) {
  const size_t n = info_->fields.size();
  const size_t i = info_->field_index(key);
  if (i == n)
    throw py::type_error(info_->name + " has no field '" + py::str(key).cast<std::string>() + "'");
  if (value == Py_None)
    return;
  if (info_->field_is_list[i]) {
    // A list of tensors (upstream's std::vector<SavedVariable> members, `indices`):
    // slots after the fields'.
    py::sequence items = py::reinterpret_borrow<py::sequence>(value);
    ensure_tensor_slots();
    list_ranges_.resize(n);
    list_ranges_[i].first = saved_.size();
    for (auto item : items) {
      saved_.emplace_back();
      save_tensor(saved_.size() - 1, item.ptr(), output);
    }
    list_ranges_[i].second = saved_.size();
    return;
  }
  if (!THPVariable_Check(value)) {
    if (values_.empty())
      values_.assign(n, nullptr);
    values_[i] = stored_value(value); // Note [numpy integers in saved fields]
    value = values_[i];
    if (info_->field_is_tensor[i] && (PyFloat_Check(value) || PyLong_Check(value))) {
      // A wrapped number (upstream wraps the Python number of `x * 2` in a
      // 0-d tensor), saved so that a freed graph refuses a second backward;
      // saved-tensor hooks never see it. In the number's own type, as
      // upstream's scalar_to_tensor makes it.
      const double number = PyFloat_AsDouble(value);
      if (PyErr_Occurred())
        throw py::error_already_set();
      const auto dtype = PyBool_Check(value) ? at::kBool : PyLong_Check(value) ? at::kLong : at::kDouble;
      PyObject* like = PyTuple_Check(output) ? PyTuple_GET_ITEM(output, 0) : output;
      at::Tensor wrapped = at::full({}, number, dtype, THPVariable_Unpack(like).device());
      wrapped.unsafeGetTensorImpl()->set_wrapped_number(true);
      ensure_tensor_slots();
      saved_[i] = SavedVariable(wrapped, /*is_output=*/false);
    }
    return;
  }
  ensure_tensor_slots();
  save_tensor(i, value, output, inplace_on_view);
}

void PyFormulaNode::ensure_tensor_slots() {
  if (saved_.size() < info_->fields.size())
    saved_.resize(info_->fields.size());
}

void PyFormulaNode::save_tensor(size_t slot, PyObject* value, PyObject* output, bool inplace_on_view) {
  if (!THPVariable_Check(value))
    throw py::type_error(info_->name + ": expected a tensor to save");
  bool is_output = value == output;
  if (output && PyTuple_Check(output)) {
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(output); ++i)
      is_output = is_output || value == PyTuple_GET_ITEM(output, i);
  }
  if (PyObject* packed = pack_saved_tensor(value)) {
    packed_.resize(saved_.size(), nullptr);
    packed_[slot] = packed;
    saved_[slot] = SavedVariable::metadata_of(THPVariable_Unpack(value), is_output);
  } else {
    saved_[slot] = SavedVariable(THPVariable_Unpack(value), is_output, is_output && inplace_on_view);
  }
}

// saved_ and values_ are allocated by the first field that needs them: a node
// without tensors (AddBackward0's alpha) or without values (ExpBackward0's
// result) allocates one vector fewer per op.
void PyFormulaNode::set_fields(PyObject* const* kwvalues, PyObject* kwnames, PyObject* output, bool inplace_on_view) {
  const Py_ssize_t num_kw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t k = 0; k < num_kw; ++k)
    set_field(PyTuple_GET_ITEM(kwnames, k), kwvalues[k], output, inplace_on_view);
  native_ok_ = info_->native != 0 && packed_.empty() && read_native_fields();
}

void PyFormulaNode::set_fields(PyObject* dict, PyObject* output) {
  PyObject *key, *value;
  Py_ssize_t pos = 0;
  while (PyDict_Next(dict, &pos, &key, &value))
    set_field(key, value, output);
  native_ok_ = info_->native != 0 && packed_.empty() && read_native_fields();
}

py::object PyFormulaNode::saved_field(size_t index, bool for_formula) {
  // The formula reads a number as the number; grad_fn shows it as the wrapped tensor.
  if (value(index) && (for_formula || !info_->field_is_tensor[index])) {
    // A wrapped number's tensor is freed with the graph: a second backward refuses as upstream's.
    const bool packed = index < packed_.size() && packed_[index];
    if (packed ? packed_released_ : index < saved_.size() && saved_[index].has_been_released())
      throw std::runtime_error(ERR_BACKWARD_TWICE);
    if (!for_formula && info_->field_is_symint[index])
      return shown_unsigned(py::reinterpret_borrow<py::object>(values_[index]));
    return py::reinterpret_borrow<py::object>(values_[index]);
  }
  if (packed_released_)
    throw std::runtime_error(ERR_BACKWARD_TWICE);
  if (info_->field_is_list[index]) {
    if (index >= list_ranges_.size())
      return py::none();
    const auto range = list_ranges_[index];
    py::tuple items(range.second - range.first);
    for (size_t k = range.first; k < range.second; ++k)
      items[k - range.first] = saved_slot(k);
    return std::move(items);
  }
  return saved_slot(index);
}

void PyFormulaNode::register_saved_hooks(size_t slot, const py::object& pack_hook, const py::object& unpack_hook) {
  if (packed_released_ ||
      (slot < saved_.size() && saved_[slot].has_been_released() && !(slot < packed_.size() && packed_[slot]))) {
    throw std::runtime_error(
        "Calling register_hooks on a saved tensor after it has been freed. Saved intermediate values of the graph "
        "are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
        "through the graph a second time or if you need to access saved variables after calling backward.");
  }
  if (slot < packed_.size() && packed_[slot]) {
    throw std::runtime_error(
        "Calling register_hooks on a saved tensor whose hooks have already been set. Hint: only one pair of hooks "
        "is allowed at a time.");
  }
  const auto self = getptr();
  Variable var = slot < saved_.size() ? saved_[slot].unpack(self) : Variable();
  if (!var.defined())
    throw std::runtime_error("Calling register_hooks on a saved tensor with value None is forbidden");
  const bool is_output = var.grad_fn().get() == this;
  py::object packed = pack_hook(py::reinterpret_steal<py::object>(THPVariable_Wrap(var.detach())));
  PyObject* pair = PyTuple_Pack(2, unpack_hook.ptr(), packed.ptr());
  if (!pair)
    throw py::error_already_set();
  packed_.resize(saved_.size(), nullptr);
  packed_[slot] = pair;
  saved_[slot] = SavedVariable::metadata_of(var, is_output);
  native_ok_ = false; // the formula reads what unpack_hook returns
}

py::object PyFormulaNode::saved_slot(size_t index) {
  if (index >= saved_.size())
    return py::none();
  auto self = getptr();
  if (index < packed_.size() && packed_[index]) {
    return wrap(saved_[index].unpack_packed(THPVariable_Unpack(unpack_saved_tensor(packed_[index]).ptr()), self));
  }
  Variable var = saved_[index].unpack(self);
  if (!var.defined())
    return py::none();
  return wrap(var);
}

variable_list PyFormulaNode::apply(variable_list&& grads) {
  const size_t n = num_outputs();
  // Every formula is linear in the incoming gradients: none in, none out,
  // without taking the GIL.
  bool any_defined = false;
  for (const auto& g : grads)
    any_defined |= g.defined();
  if (!any_defined)
    return variable_list(n);

  std::vector<bool> needs(n);
  for (size_t i = 0; i < n; ++i)
    needs[i] = task_should_compute_output(i);
  // Note [GIL-free formulas]: first-order backward of the simple ops runs in C++.
  if (native_ok_ && !GradMode::is_enabled()) {
    variable_list saved(std::max(info_->fields.size(), saved_.size()));
    const auto self = getptr();
    for (size_t i = 0; i < saved_.size(); ++i)
      saved[i] = saved_[i].unpack(self);
    variable_list outputs(n);
    if (apply_native(grads, saved, needs, outputs))
      return outputs;
  }
  py::gil_scoped_acquire gil;
  CupyStreamScope cupy_stream(*this);
  return apply_with_needs(std::move(grads), needs);
}

variable_list PyFormulaNode::formula_outputs(const py::object& r) {
  const size_t n = num_outputs();
  if (!PyTuple_Check(r.ptr()) || static_cast<size_t>(PyTuple_GET_SIZE(r.ptr())) != n) {
    throw std::runtime_error(
        "function " + name() + " returned an incorrect number of gradients (expected " + std::to_string(n) + ", got " +
        std::to_string(PyTuple_Check(r.ptr()) ? PyTuple_GET_SIZE(r.ptr()) : 1) + ")");
  }
  variable_list outputs(n);
  for (size_t i = 0; i < n; ++i) {
    PyObject* out = PyTuple_GET_ITEM(r.ptr(), i);
    if (out == Py_None)
      continue;
    if (!THPVariable_Check(out))
      throw py::type_error("expected Variable or None (got " + type_name(out) + ")");
    outputs[i] = THPVariable_Unpack(out);
  }
  return outputs;
}

variable_list PyFormulaNode::apply_with_needs(variable_list&& grads, const std::vector<bool>& needs_input_grad) {
  if (!info_->backward)
    throw std::logic_error(name() + " has no formula: torchlite._generated is not imported");
  const size_t n = num_outputs();
  const size_t num_fields = info_->fields.size();
  if (packed_released_)
    throw std::runtime_error(ERR_BACKWARD_TWICE);
  // fn(grad, needs, *fields)
  std::vector<py::object> argv_owned(2 + num_fields);
  py::tuple needs(n);
  for (size_t i = 0; i < n; ++i)
    needs[i] = py::bool_(needs_input_grad[i]);
  if (info_->multi_output) {
    // A multi-output op's formula takes one gradient per output (None where undefined).
    py::tuple all(grads.size());
    for (size_t i = 0; i < grads.size(); ++i)
      all[i] = wrap(grads[i]);
    argv_owned[0] = std::move(all);
  } else {
    argv_owned[0] = wrap(grads[0]);
  }
  argv_owned[1] = std::move(needs);
  for (size_t i = 0; i < num_fields; ++i)
    argv_owned[2 + i] = saved_field(i, /*for_formula=*/true);
  grads.clear();
  if (release_after_apply_) {
    // The engine frees the graph after this call: drop the saved tensors now,
    // while the GIL is held, instead of taking it again in release_variables.
    for (auto& s : saved_)
      s.reset_data();
    if (!packed_.empty())
      release_packed();
  }
  std::vector<PyObject*> argv(argv_owned.size());
  for (size_t i = 0; i < argv.size(); ++i)
    argv[i] = argv_owned[i].ptr();
  PyObject* raw = PyObject_Vectorcall(info_->backward, argv.data(), argv.size(), nullptr);
  if (!raw)
    throw py::error_already_set();
  auto outputs = formula_outputs(py::reinterpret_steal<py::object>(raw));
  reduce_outputs(outputs);
  return outputs;
}

namespace {
// THPSumToHook(grad, shape, dtype), with the GIL held.
Variable call_sum_to_hook(const Variable& grad, c10::IntArrayRef shape, at::ScalarType dtype) {
  if (!THPSumToHook)
    throw std::logic_error("torchlite has not registered its sum_to");
  py::tuple sizes(shape.size());
  for (size_t d = 0; d < shape.size(); ++d)
    sizes[d] = py::int_(shape[d]);
  PyObject* raw = PyObject_CallFunctionObjArgs(
      THPSumToHook, wrap(grad).ptr(), sizes.ptr(), py::int_(static_cast<int>(dtype)).ptr(), nullptr);
  if (!raw)
    throw py::error_already_set();
  Variable result = THPVariable_Unpack(raw);
  Py_DECREF(raw);
  return result;
}

bool same_numel(c10::IntArrayRef shape, const Variable& grad) {
  int64_t n = 1;
  for (auto d : shape)
    n *= d;
  return n == grad.numel();
}
} // namespace

void PyFormulaNode::reduce_outputs(variable_list& outputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    auto& grad = outputs[i];
    const auto& edge = next_edge(i);
    if (!grad.defined() || !edge.is_valid())
      continue;
    const auto& metadata = edge.function->input_metadata(edge.input_nr);
    const bool reshape = !metadata.is_same_shape(grad);
    // validate_outputs' error, except for a setitem value whose leading 1s the index dropped
    if (reshape && !metadata.is_expandable_to_shape(grad) && !same_numel(metadata.shape(), grad))
      continue;
    if (!reshape && metadata.dtype() == grad.scalar_type())
      continue;
    grad = call_sum_to_hook(grad, metadata.shape(), metadata.dtype());
  }
}

void PyFormulaNode::release_variables() {
  for (auto& s : saved_)
    s.reset_data();
  if (!packed_.empty()) {
    GilForRelease gil;
    if (gil)
      release_packed();
  }
}

PyObject* THPSumToHook = nullptr;

const OpInfo* op_info(PyObject* capsule) {
  auto* info = static_cast<const OpInfo*>(PyCapsule_GetPointer(capsule, "torchlite.OpInfo"));
  if (!info)
    throw py::error_already_set();
  return info;
}

namespace {

// Every spec by its node's name (the first one made where a name repeats).
std::unordered_map<std::string, const OpInfo*>& op_infos_by_name() {
  static std::unordered_map<std::string, const OpInfo*> infos;
  return infos;
}

// _op_spec(name, fields, kinds, native, multi_output): the OpInfo of one
// node, as a capsule the recording functions take; `kinds` has a letter per
// field: T a tensor, L a list of tensors, V a value grad_fn shows, H a value
// it hides. Made by the generated torchlite/_generated/specs.py at import;
// _set_formula gives it its formula.
PyObject* op_spec(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  HANDLE_TH_ERRORS
  if (nargs != 5 || !PyUnicode_Check(args[0]) || !PyTuple_Check(args[1]) || !PyUnicode_Check(args[2]) ||
      PyUnicode_GetLength(args[2]) != PyTuple_GET_SIZE(args[1]) || !PyLong_Check(args[3])) {
    throw py::type_error("_op_spec(name: str, fields: tuple[str, ...], kinds: str, native: int, multi_output: bool)");
  }
  OpInfo info;
  info.name = PyUnicode_AsUTF8(args[0]);
  const char* kinds = PyUnicode_AsUTF8(args[2]);
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(args[1]); ++i) {
    PyObject* key = PyTuple_GET_ITEM(args[1], i);
    info.fields.emplace_back(PyUnicode_AsUTF8(key));
    Py_INCREF(key);
    PyUnicode_InternInPlace(&key);
    info.field_keys.push_back(key);
    info.field_is_tensor.push_back(kinds[i] == 'T');
    info.field_is_list.push_back(kinds[i] == 'L');
    info.field_exposed.push_back(kinds[i] != 'H');
    info.field_is_symint.push_back(kinds[i] == 'S');
  }
  info.native = static_cast<int>(PyLong_AsLong(args[3]));
  info.multi_output = PyObject_IsTrue(args[4]) == 1;
  static std::deque<OpInfo> infos; // stable addresses; specs are made once, at import
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  infos.push_back(std::move(info));
  op_infos_by_name().emplace(infos.back().name, &infos.back());
  return PyCapsule_New(&infos.back(), "torchlite.OpInfo", nullptr);
  END_HANDLE_TH_ERRORS
}

// _set_formula(spec, fn): the Python formula of a spec made by the table.
void set_formula(py::capsule spec, py::object fn) {
  auto* info = const_cast<OpInfo*>(op_info(spec.ptr()));
  Py_XDECREF(info->backward);
  info->backward = fn.release().ptr();
}

// Whether some tensor of `tensors` (a tuple) is not an inference tensor.
// Upstream runs an op's autograd kernel only when one of its tensor arguments
// carries the Autograd dispatch key, which inference tensors lack: an op on
// inference tensors alone records nothing, even where one requires grad (made
// with requires_grad=True in inference mode).
bool any_normal_tensor(PyObject* tensors) {
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(tensors); ++i) {
    if (!THPVariable_Unpack(PyTuple_GET_ITEM(tensors, i)).unsafeGetTensorImpl()->is_inference())
      return true;
  }
  return false;
}

// Note [Structured in-place variants]: an in-place op generated from its
// functional entry (torchlite/_ops/structured_inplace.py) runs the functional
// kernel with the recording captured instead of made: _record and
// _record_number then append (spec, inputs, with_number, fields, output) to
// this thread's capture list, and the in-place op makes the node itself
// (_inplace_node), with the fields the functional kernel named.
thread_local PyObject* capture_list = nullptr;

} // namespace

bool records_captured() {
  return capture_list != nullptr;
}

const OpInfo* op_info_named(const std::string& name) {
  const auto& infos = op_infos_by_name();
  auto it = infos.find(name);
  return it == infos.end() ? nullptr : it->second;
}

namespace {

PyObject* capture(
    PyObject* spec,
    PyObject* inputs,
    bool with_number,
    PyObject* const* kwvalues,
    PyObject* kwnames,
    PyObject* output) {
  py::dict fields;
  const Py_ssize_t num_kw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t k = 0; k < num_kw; ++k)
    fields[PyTuple_GET_ITEM(kwnames, k)] = py::reinterpret_borrow<py::object>(kwvalues[k]);
  py::tuple record = py::make_tuple(
      py::reinterpret_borrow<py::object>(spec),
      py::reinterpret_borrow<py::object>(inputs),
      with_number,
      fields,
      py::reinterpret_borrow<py::object>(output));
  if (PyList_Append(capture_list, record.ptr()) < 0)
    throw py::error_already_set();
  return Py_NewRef(output);
}

// _capture_records(list or None) -> the previous one: where this thread's
// _record and _record_number calls go (None: they record).
PyObject* capture_records(PyObject*, PyObject* arg) {
  HANDLE_TH_ERRORS
  if (arg != Py_None && !PyList_Check(arg))
    throw py::type_error("_capture_records(list or None)");
  PyObject* previous = capture_list ? capture_list : Py_None;
  capture_list = arg == Py_None ? nullptr : Py_NewRef(arg);
  return previous == Py_None ? Py_NewRef(Py_None) : previous; // the reference this slot held
  END_HANDLE_TH_ERRORS
}

// _record(spec, inputs, output[, others], **fields) -> output
// (output: a tensor, or the tuple of an op's differentiable outputs)
// Records the backward node of an op whose forward already ran: when grad
// mode is on, some input requires grad and some input or other tensor
// argument of the op (`others`: index tensors, a condition) is not an
// inference tensor, a node with the inputs' gradient edges becomes output's
// grad_fn and keeps `fields`, the values its formula reads, by name
// (PyFormulaNode::set_fields). Otherwise it does nothing; ops call it
// unconditionally.
PyObject* record(PyObject*, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  HANDLE_TH_ERRORS
  const Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  const OpInfo* info = op_info(args[0]);
  if (nargs != 3 && nargs != 4)
    throw py::type_error("_record(spec, inputs, output[, others], **fields)");
  PyObject* output = args[2];
  if (capture_list)
    return capture(args[0], args[1], false, args + nargs, kwnames, output);
  if (!GradMode::is_enabled())
    return Py_NewRef(output);
  PyObject* inputs = args[1];
  const Py_ssize_t num_inputs = PyTuple_GET_SIZE(inputs);
  bool any_requires_grad = false;
  for (Py_ssize_t i = 0; i < num_inputs; ++i) {
    if (THPVariable_Unpack(PyTuple_GET_ITEM(inputs, i)).requires_grad()) {
      any_requires_grad = true;
      break;
    }
  }
  if (!any_requires_grad)
    return Py_NewRef(output);
  if (!any_normal_tensor(inputs) && !(nargs == 4 && any_normal_tensor(args[3])))
    return Py_NewRef(output);

  edge_list edges(static_cast<size_t>(num_inputs));
  for (Py_ssize_t i = 0; i < num_inputs; ++i) {
    const auto& var = THPVariable_Unpack(PyTuple_GET_ITEM(inputs, i));
    if (var.requires_grad())
      edges[i] = impl::gradient_edge(var);
  }
  auto node = make_formula_node(info, std::move(edges));
  // The output's edge first: saving an output must see it as non-leaf, or
  // the saved variable would hold the node that holds it. A tuple of outputs
  // (std_mean's (std, mean)) gets one edge each, output_nr in order.
  if (PyTuple_Check(output)) {
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(output); ++i) {
      Variable out = THPVariable_Unpack(PyTuple_GET_ITEM(output, i));
      create_gradient_edge(out, node);
    }
  } else {
    Variable out = THPVariable_Unpack(output);
    create_gradient_edge(out, node);
  }
  node->set_fields(args + nargs, kwnames, output);
  return Py_NewRef(output);
  END_HANDLE_TH_ERRORS
}

// _record_number(spec, self, output, **fields) -> output
// _record for an op between a tensor and a Python number (x * 2). PyTorch
// wraps the number in a 0-dim tensor, an input without an edge; the op passes
// the number as the field it is (`other`), which the node keeps as the number
// for its formula and, where the formula reads it, as the wrapped tensor.
PyObject* record_number(PyObject*, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  HANDLE_TH_ERRORS
  const Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  const OpInfo* info = op_info(args[0]);
  if (nargs != 3)
    throw py::type_error("_record_number(spec, self, output, **fields)");
  PyObject* output = args[2];
  if (capture_list) {
    py::tuple inputs = py::make_tuple(py::reinterpret_borrow<py::object>(args[1]));
    return capture(args[0], inputs.ptr(), true, args + nargs, kwnames, output);
  }
  if (!GradMode::is_enabled() || !THPVariable_Unpack(args[1]).requires_grad())
    return Py_NewRef(output);
  auto node = make_formula_node(info, edge_list{impl::gradient_edge(THPVariable_Unpack(args[1])), Edge()});
  Variable out = THPVariable_Unpack(output);
  create_gradient_edge(out, node);
  node->set_fields(args + nargs, kwnames, output);
  return Py_NewRef(output);
  END_HANDLE_TH_ERRORS
}

PyMethodDef methods[] = {
    {"_op_spec", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(op_spec)), METH_FASTCALL, nullptr},
    {"_record",
     reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(record)),
     METH_FASTCALL | METH_KEYWORDS,
     nullptr},
    {"_record_number",
     reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(record_number)),
     METH_FASTCALL | METH_KEYWORDS,
     nullptr},
    {"_capture_records", capture_records, METH_O, nullptr},
    {nullptr, nullptr, 0, nullptr}};

std::unordered_set<PyObject*> object_set(const py::object& ctx, const char* attr) {
  std::unordered_set<PyObject*> result;
  if (!py::hasattr(ctx, attr))
    return result;
  for (auto item : py::iterable(ctx.attr(attr)))
    result.insert(item.ptr());
  return result;
}

void del_attr(const py::object& obj, const char* attr) {
  if (PyObject_HasAttrString(obj.ptr(), attr) && PyObject_DelAttrString(obj.ptr(), attr) < 0) {
    PyErr_Clear();
  }
}

// set_history's branch for an output that is not differentiable (upstream
// _process_backward_mode_ad, custom_function.cpp): one that does not require grad is
// returned as is, except an unmodified input, which becomes a view of itself made
// without grad; one that requires grad is detached: an input as a detached alias (its own
// requires_grad untouched), any other tensor in place unless it is a view.
py::object non_differentiable_output(const py::object& obj, bool is_input, bool is_modified) {
  const Variable& var = THPVariable_Unpack(obj.ptr());
  if (!var.requires_grad()) {
    if (is_input && !is_modified) {
      AutoGradMode no_grad(false);
      return obj.attr("view_as")(obj);
    }
    return obj;
  }
  if (is_input)
    return obj.attr("detach")();
  if (!impl::is_view(var))
    obj.attr("detach_")();
  return obj;
}

// upstream _mark_dirty and the dirty-tensor checks of _wrap_outputs (python_function.cpp,
// custom_function.cpp), with or without a graph: each tensor ctx.mark_dirty named has its
// version bumped (once per mention); one that is not an input warns; one that forward does
// not return is refused.
void mark_dirty(const py::object& ctx_obj, const py::object& raw_output, const std::unordered_set<PyObject*>& inputs) {
  if (!py::hasattr(ctx_obj, "dirty_tensors"))
    return;
  py::tuple dirty = py::tuple(ctx_obj.attr("dirty_tensors"));
  for (auto item : dirty) {
    if (!THPVariable_Check(item.ptr()))
      throw std::runtime_error("mark_dirty can only accept variables, but argument ");
    impl::bump_version(THPVariable_Unpack(item.ptr()));
  }
  std::unordered_set<PyObject*> returned;
  if (PyTuple_Check(raw_output.ptr())) {
    for (auto item : py::reinterpret_borrow<py::tuple>(raw_output))
      returned.insert(item.ptr());
  } else {
    returned.insert(raw_output.ptr());
  }
  for (auto item : dirty) {
    if (!inputs.count(item.ptr()) &&
        PyErr_WarnEx(
            PyExc_UserWarning,
            "ctx.mark_dirty() received a tensor that was not an input. Only input Tensors that have been mutated "
            "should be passed to ctx.mark_dirty().",
            1) < 0) {
      throw py::error_already_set();
    }
  }
  for (auto item : dirty) {
    if (!returned.count(item.ptr())) {
      throw std::runtime_error(
          "Some elements marked as dirty during the forward method were not returned as output. The inputs that are "
          "modified inplace must all be outputs of the Function.");
    }
  }
}

// Function.apply (THPFunction_apply): runs forward under no-grad with ctx
// (or, where the Function defines setup_context, forward without ctx and then
// setup_context(ctx, inputs, output)), then connects the outputs to a new
// PyNode. `kwargs` go to forward; only the positional tensors are inputs.
py::object function_apply(const py::object& cls, const py::tuple& args, const py::dict& kwargs, bool setup_context) {
  py::object backward_cls = cls.attr("_backward_cls");
  py::object ctx_obj = backward_cls();
  THPFunction& ctx = ctx_obj.cast<THPFunction&>();

  const size_t num_args = args.size();
  const bool grad_mode = GradMode::is_enabled();
  variable_list tensor_inputs;
  std::unordered_set<PyObject*> input_objs;
  ctx.is_variable_input.assign(num_args, false);
  py::tuple needs_input_grad(num_args);
  bool is_executable = false;
  for (size_t i = 0; i < num_args; ++i) {
    PyObject* arg = PyTuple_GET_ITEM(args.ptr(), i);
    bool needs = false;
    if (THPVariable_Check(arg)) {
      ctx.is_variable_input[i] = true;
      tensor_inputs.push_back(THPVariable_Unpack(arg));
      input_objs.insert(arg);
      needs = grad_mode && tensor_inputs.back().requires_grad();
      is_executable |= needs;
    }
    needs_input_grad[i] = py::bool_(needs);
  }
  ctx_obj.attr("needs_input_grad") = needs_input_grad;

  std::shared_ptr<PyNode> node;
  if (is_executable) {
    // Made before forward, so nodes forward creates get larger sequence numbers.
    node = make_node<PyNode>(ctx_obj.ptr(), py::str(backward_cls.attr("__name__")).cast<std::string>());
    node->set_next_edges(collect_next_edges(tensor_inputs));
    ctx.cdata = node;
  }

  py::object raw_output;
  {
    AutoGradMode no_grad(false);
    const size_t skip = setup_context ? 0 : 1;
    py::tuple forward_args(num_args + skip);
    if (!setup_context)
      forward_args[0] = ctx_obj;
    for (size_t i = 0; i < num_args; ++i)
      forward_args[i + skip] = args[i];
    PyObject* raw = PyObject_Call(cls.attr("forward").ptr(), forward_args.ptr(), kwargs.ptr());
    if (!raw)
      throw py::error_already_set();
    raw_output = py::reinterpret_steal<py::object>(raw);
    if (setup_context)
      cls.attr("setup_context")(ctx_obj, args, raw_output);
  }
  mark_dirty(ctx_obj, raw_output, input_objs);
  if (!is_executable) {
    // No node: every output goes through set_history's non-differentiable branch
    // (upstream _process_backward_mode_ad with cdata null).
    const auto dirty = object_set(ctx_obj, "dirty_tensors");
    del_attr(ctx_obj, "to_save");
    del_attr(ctx_obj, "non_differentiable");
    del_attr(ctx_obj, "dirty_tensors");
    del_attr(ctx_obj, "saved_for_forward"); // no forward-mode AD reads them: freed as upstream frees them
    if (!PyTuple_Check(raw_output.ptr())) {
      return THPVariable_Check(raw_output.ptr())
          ? non_differentiable_output(
                raw_output, input_objs.count(raw_output.ptr()) > 0, dirty.count(raw_output.ptr()) > 0)
          : raw_output;
    }
    py::tuple outputs(raw_output);
    py::tuple results(outputs.size());
    for (size_t i = 0; i < outputs.size(); ++i) {
      py::object obj = outputs[i];
      results[i] = THPVariable_Check(obj.ptr())
          ? non_differentiable_output(obj, input_objs.count(obj.ptr()) > 0, dirty.count(obj.ptr()) > 0)
          : obj;
    }
    return std::move(results);
  }

  const bool unpack_output = !PyTuple_Check(raw_output.ptr());
  py::tuple outputs = unpack_output ? py::make_tuple(raw_output) : py::tuple(raw_output);
  const auto non_differentiable = object_set(ctx_obj, "non_differentiable");
  const auto dirty = object_set(ctx_obj, "dirty_tensors");

  const size_t num_outputs = outputs.size();
  py::tuple results(num_outputs);
  ctx.output_is_tensor.assign(num_outputs, false);
  for (size_t i = 0; i < num_outputs; ++i) {
    PyObject* obj = PyTuple_GET_ITEM(outputs.ptr(), i);
    if (!THPVariable_Check(obj)) {
      node->add_input_metadata(undefined_input{});
      results[i] = py::reinterpret_borrow<py::object>(obj);
      continue;
    }
    ctx.output_is_tensor[i] = true;
    Variable var = THPVariable_Unpack(obj);
    const bool is_input = input_objs.count(obj) > 0;
    const bool is_modified = dirty.count(obj) > 0;
    const bool is_differentiable = !non_differentiable.count(obj) && at::isDifferentiableType(var.scalar_type());
    if (is_modified && var.is_leaf() && var.requires_grad()) {
      throw std::runtime_error("a leaf Variable that requires grad has been used in an in-place operation.");
    }
    if (!is_differentiable) {
      node->add_input_metadata(var);
      results[i] = non_differentiable_output(py::reinterpret_borrow<py::object>(obj), is_input, is_modified);
    } else if (is_modified) {
      // Modified in place (mark_dirty): rebased like a built-in in-place op.
      impl::check_inplace(var, true);
      const auto nr = node->add_input_metadata(var);
      impl::rebase_history(var, Edge(node, nr));
      results[i] = py::reinterpret_borrow<py::object>(obj);
    } else if (is_input) {
      // An input returned as is becomes a view of it, so the input's own
      // history is untouched (PyTorch's view_as(self)); like every view made
      // inside a custom Function it may not be modified in place.
      const auto nr = node->add_input_metadata(var);
      Variable view = make_variable(var, Edge(node, nr));
      impl::set_view_of(view, var, CreationMeta::IN_CUSTOM_FUNCTION);
      results[i] = wrap(std::move(view));
    } else {
      create_gradient_edge(var, node);
      if (impl::is_view(var))
        impl::set_creation_meta(var, CreationMeta::IN_CUSTOM_FUNCTION);
      results[i] = py::reinterpret_borrow<py::object>(obj);
    }
  }

  if (py::hasattr(ctx_obj, "to_save")) {
    py::tuple to_save = py::tuple(ctx_obj.attr("to_save"));
    ctx.saved_variables.clear();
    ctx.saved_variables.reserve(to_save.size());
    ctx.packed_saved.assign(to_save.size(), py::none());
    for (size_t j = 0; j < to_save.size(); ++j) {
      PyObject* item = PyTuple_GET_ITEM(to_save.ptr(), j);
      if (item == Py_None) {
        ctx.saved_variables.emplace_back();
        continue;
      }
      if (!THPVariable_Check(item)) {
        throw py::type_error(
            "save_for_backward can only save variables, but argument " + std::to_string(j) + " is of type " +
            type_name(item));
      }
      bool is_output = false;
      for (size_t i = 0; i < num_outputs; ++i) {
        if (PyTuple_GET_ITEM(outputs.ptr(), i) == item && results[i].ptr() == item)
          is_output = true;
      }
      if (PyObject* packed = pack_saved_tensor(item)) {
        ctx.packed_saved[j] = py::reinterpret_steal<py::object>(packed);
        ctx.saved_variables.push_back(SavedVariable::metadata_of(THPVariable_Unpack(item), is_output));
      } else {
        ctx.saved_variables.emplace_back(THPVariable_Unpack(item), is_output);
      }
    }
  }
  del_attr(ctx_obj, "to_save");
  del_attr(ctx_obj, "non_differentiable");
  del_attr(ctx_obj, "dirty_tensors");
  del_attr(ctx_obj, "saved_for_forward");
  return unpack_output ? py::object(results[0]) : py::object(results);
}

// The ctx's C++ state, or null while pybind11 has not constructed it yet (the
// collector may visit an object between allocation and __init__). Read from
// the instance alone: pybind11's type lookup may be half-way through caching
// a new ctx class when the collector runs (it allocates a weakref there).
THPFunction* function_of(PyObject* self) {
  auto* inst = reinterpret_cast<py::detail::instance*>(self);
  if (!inst->simple_layout || !inst->simple_holder_constructed)
    return nullptr;
  return static_cast<THPFunction*>(inst->simple_value_holder[0]);
}

// See Note [PyObject traversal]: the ctx reports its attributes (pybind11's
// own traverse) and the objects saved_tensors_hooks packed for it; not its
// node's, which it holds weakly.
int THPFunction_traverse(PyObject* self, visitproc visit, void* arg) {
  PyTypeObject* type = Py_TYPE(self);
#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030C0000
  const bool dict_visited =
      type->tp_traverse != THPFunction_traverse && PyType_HasFeature(type, Py_TPFLAGS_MANAGED_DICT);
#else
  // Only 3.11's subtype_traverse visits a managed dict its base already has:
  // before (no managed dicts) and from 3.12 on, a subclass of a type with a
  // __dict__ leaves visiting it to the base's traverse (pybind11's).
  const bool dict_visited = false;
#endif
  if (dict_visited) {
    // A Python subclass's traverse (every ctx is one) has visited the
    // managed __dict__; pybind11's would visit it twice, and the collector
    // would then take the dict for one referenced from outside.
    Py_VISIT(type);
  } else if (int err = py::detail::pybind11_traverse(self, visit, arg)) {
    return err;
  }
  if (THPFunction* f = function_of(self)) {
    for (const auto& packed : f->packed_saved)
      Py_VISIT(packed.ptr());
  }
  return 0;
}

int THPFunction_clear(PyObject* self) {
  if (THPFunction* f = function_of(self))
    f->packed_saved.clear();
  return py::detail::pybind11_clear(self);
}

std::shared_ptr<Node> ctx_node(THPFunction& f) {
  auto node = f.cdata.lock();
  if (!node)
    throw std::runtime_error("this Function's backward node is not part of a graph");
  return node;
}

// Note [Differentiable sum_to] (input_metadata.h): the engine's reduction of
// a broadcast gradient under create_graph, through the same Python sum_to the
// formula nodes reduce with (recorded in torchlite's ops, torch's node names).
at::Tensor python_sum_to(const at::Tensor& grad, c10::IntArrayRef shape) {
  py::gil_scoped_acquire gil;
  return call_sum_to_hook(grad, shape, grad.scalar_type());
}

} // namespace

void initFunctionBindings(py::module_& m) {
  if (PyModule_AddFunctions(m.ptr(), methods) < 0)
    throw py::error_already_set();
  m.def(
      "_function_apply", &function_apply, py::arg("cls"), py::arg("args"), py::arg("kwargs"), py::arg("setup_context"));
  m.def("_set_formula", &set_formula);
  m.def("_set_sum_to", [](py::object fn) {
    Py_XDECREF(THPSumToHook);
    THPSumToHook = fn.release().ptr();
    set_differentiable_sum_to(&python_sum_to);
  });
  m.def("_push_saved_tensors_default_hooks", [](py::object pack_hook, py::object unpack_hook) {
    at::SavedTensorDefaultHooks::push_hooks(
        to_safe_pyobject(std::move(pack_hook)), to_safe_pyobject(std::move(unpack_hook)));
  });
  m.def("_pop_saved_tensors_default_hooks", [] { at::SavedTensorDefaultHooks::pop_hooks(); });

  py::class_<THPFunction>(
      m, "_FunctionBase", py::dynamic_attr(), py::custom_type_setup([](PyHeapTypeObject* heap_type) {
        heap_type->ht_type.tp_traverse = THPFunction_traverse;
        heap_type->ht_type.tp_clear = THPFunction_clear;
      }))
      .def(py::init<>())
      .def_readwrite("materialize_grads", &THPFunction::materialize_grads)
      .def_property_readonly(
          "saved_tensors",
          [](THPFunction& f) {
            if (f.has_freed_buffers)
              throw std::runtime_error(ERR_BACKWARD_TWICE);
            auto node = f.cdata.lock();
            py::tuple result(f.saved_variables.size());
            for (size_t i = 0; i < f.saved_variables.size(); ++i) {
              const bool packed = i < f.packed_saved.size() && !f.packed_saved[i].is_none();
              result[i] = packed ? wrap(f.saved_variables[i].unpack_packed(
                                       THPVariable_Unpack(unpack_saved_tensor(f.packed_saved[i].ptr()).ptr()), node))
                                 : wrap(f.saved_variables[i].unpack(node));
            }
            return result;
          })
      .def("name", [](THPFunction& f) { return ctx_node(f)->name(); })
      .def_property_readonly("next_functions", [](THPFunction& f) { return node_next_functions(ctx_node(f)); })
      .def_property_readonly("metadata", [](THPFunction& f) { return node_metadata(ctx_node(f)); })
      .def(
          "register_hook", [](THPFunction& f, py::object fn) { return node_register_hook(ctx_node(f), std::move(fn)); })
      .def(
          "register_prehook",
          [](THPFunction& f, py::object fn) { return node_register_prehook(ctx_node(f), std::move(fn)); })
      .def("_sequence_nr", [](THPFunction& f) { return ctx_node(f)->sequence_nr(); })
      .def("_num_inputs", [](THPFunction& f) { return ctx_node(f)->num_inputs(); })
      .def_property_readonly("_input_metadata", [](THPFunction& f) { return node_input_metadata(ctx_node(f)); })
      .def(
          "_do_backward",
          [](THPFunction& f, const py::sequence& grad_output, bool retain_variables) {
            return node_do_backward(ctx_node(f), grad_output, retain_variables);
          },
          py::arg("grad_output"),
          py::arg("retain_variables"));
}

} // namespace autograd
} // namespace torch
