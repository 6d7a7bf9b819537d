// Views and in-place ops from Python: the bindings torchlite/_ops/ uses to
// record views, check and record in-place ops and rebase history, and the two
// nodes of view + in-place handling whose math is written in torchlite's own
// differentiable ops (so create_graph=True works through them):
// AsStridedBackward0 (a view's regenerated grad_fn) and CopySlices.
// Upstream: torch/csrc/autograd/variable.cpp (as_view, rebase_history,
// VariableHooks::grad_fn), functions/tensor.cpp (CopySlices); see
// docs/design.md "Views and in-place operations".
#include "autograd/python_view.h"
#include "aten/Functions.h"
#include "autograd/functions/tensor.h"
#include "autograd/grad_mode.h"
#include "autograd/python_function.h"
#include "autograd/python_variable.h"
#include "c10/core/InferenceMode.h"

#include <stdexcept>

namespace py = pybind11;

namespace torch {
namespace autograd {

namespace {

py::object wrap(const Variable& var) {
  return py::reinterpret_steal<py::object>(THPVariable_Wrap(var));
}

const OpInfo* as_strided_info = nullptr; // AsStridedBackward0's spec
PyObject* as_strided_fields_fn = nullptr; // _as_strided_fields(view, base) -> its fields (a dict)
PyObject* view_geometry_fn = nullptr; // _view_geometry(view, base) -> CopySlices' extra
PyObject* copy_slices_fn = nullptr; // _copy_slices_backward(grad, extra, fn, needs)

py::object call_view_fn(PyObject* fn, const Variable& view, const Variable& base) {
  if (!fn)
    throw std::logic_error("torchlite._ops has not registered its view formulas");
  PyObject* raw = PyObject_CallFunctionObjArgs(fn, wrap(view).ptr(), wrap(base).ptr(), nullptr);
  if (!raw)
    throw py::error_already_set();
  return py::reinterpret_steal<py::object>(raw);
}

struct PythonViewNodeFactory : impl::ViewNodeFactory {
  std::shared_ptr<Node> as_strided_backward(const Variable& view, const Variable& base) override {
    py::gil_scoped_acquire gil;
    if (!as_strided_info)
      throw std::logic_error("torchlite._ops has not registered its view formulas");
    auto node = make_formula_node(as_strided_info, edge_list{impl::gradient_edge(base)});
    node->add_input_metadata(view);
    node->set_fields(call_view_fn(as_strided_fields_fn, view, base).ptr(), nullptr);
    return node;
  }

  std::shared_ptr<Node> copy_slices(const Variable& base, const Variable& view, std::shared_ptr<Node> fn) override {
    py::gil_scoped_acquire gil;
    auto node = std::make_shared<CopySlices>(base, std::move(fn), call_view_fn(view_geometry_fn, view, base));
    return node;
  }
};

PythonViewNodeFactory factory;

// _set_view_formulas(as_strided_spec, as_strided_fields, view_geometry, copy_slices_backward)
void set_view_formulas(
    py::object as_strided_spec,
    py::object as_strided_fields,
    py::object geometry,
    py::object copy_slices_backward) {
  as_strided_info = op_info(as_strided_spec.ptr());
  as_strided_fields_fn = as_strided_fields.release().ptr();
  view_geometry_fn = geometry.release().ptr();
  copy_slices_fn = copy_slices_backward.release().ptr();
  impl::set_view_node_factory(&factory);
}

CreationMeta mode_creation_meta(CreationMeta in_grad_mode) {
  if (c10::InferenceMode::is_enabled())
    return CreationMeta::INFERENCE_MODE;
  return GradMode::is_enabled() ? in_grad_mode : CreationMeta::NO_GRAD_MODE;
}

// _record_view(spec, self, out, **fields) -> out: a view op's result (a tensor, or the
// numpy view of self's memory it wraps). Records
// the op's node when something requires grad, and the view relation
// (upstream as_view), so a later in-place op on either side can rebase it;
// neither for a view of an inference tensor, which upstream's autograd and
// ADInplaceOrView kernels never see (it has no grad_fn and no _base).
PyObject* record_view(PyObject*, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  HANDLE_TH_ERRORS
  const Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  const OpInfo* info = op_info(args[0]);
  if (nargs != 3)
    throw py::type_error("_record_view(spec, self, out, **fields)");
  const auto& self = THPVariable_Unpack(args[1]);
  // `out` may be the view's array: it becomes a tensor sharing self's version counter (_wrap's view)
  py::object result;
  if (THPVariable_Check(args[2])) {
    result = py::reinterpret_borrow<py::object>(args[2]);
  } else {
    result = py::reinterpret_steal<py::object>(THPVariable_wrap_view(args[2], args[1]));
    if (!result)
      throw py::error_already_set();
  }
  Variable out = THPVariable_Unpack(result.ptr());
  const bool inference = self.unsafeGetTensorImpl()->is_inference();
  if (GradMode::is_enabled() && self.requires_grad() && !inference) {
    auto node = make_formula_node(info, edge_list{impl::gradient_edge(self)});
    create_gradient_edge(out, node);
    node->set_fields(args + nargs, kwnames, result.ptr());
  }
  if (!inference)
    impl::set_view_of(out, self, mode_creation_meta(CreationMeta::DEFAULT));
  return result.release().ptr();
  END_HANDLE_TH_ERRORS
}

// _record_multi_view(spec, self, outs, **fields) -> outs: the views a
// multi-output view op (split, chunk, unbind) returns, outputs of one node;
// none of them may be modified in place (CreationMeta::MULTI_OUTPUT_NODE).
PyObject* record_multi_view(PyObject*, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  HANDLE_TH_ERRORS
  const Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  const OpInfo* info = op_info(args[0]);
  if (nargs != 3 || !PyTuple_Check(args[2])) {
    throw py::type_error("_record_multi_view(spec, self, outs, **fields)");
  }
  const auto& self = THPVariable_Unpack(args[1]);
  const Py_ssize_t n = PyTuple_GET_SIZE(args[2]);
  const bool inference = self.unsafeGetTensorImpl()->is_inference();
  std::shared_ptr<PyFormulaNode> node;
  if (GradMode::is_enabled() && self.requires_grad() && !inference) {
    node = make_formula_node(info, edge_list{impl::gradient_edge(self)});
    node->set_fields(args + nargs, kwnames, nullptr);
  }
  for (Py_ssize_t i = 0; i < n; ++i) {
    Variable out = THPVariable_Unpack(PyTuple_GET_ITEM(args[2], i));
    if (node)
      create_gradient_edge(out, node);
    if (!inference)
      impl::set_view_of(out, self, mode_creation_meta(CreationMeta::MULTI_OUTPUT_NODE));
  }
  return Py_NewRef(args[2]);
  END_HANDLE_TH_ERRORS
}

void node_capsule_free(PyObject* capsule) {
  delete static_cast<std::shared_ptr<Node>*>(PyCapsule_GetPointer(capsule, "torchlite.Node"));
}

std::shared_ptr<Node>& capsule_node(PyObject* capsule) {
  auto* p = static_cast<std::shared_ptr<Node>*>(PyCapsule_GetPointer(capsule, "torchlite.Node"));
  if (!p)
    throw py::error_already_set();
  return *p;
}

// _inplace_node(spec, inputs, saved, extra[, number, saves_number]) -> node or None
// The first half of an in-place op on inputs[0], before its kernel runs
// (upstream VariableType): check_inplace, then the node with the inputs'
// current gradient edges (a view's grad_fn is regenerated here if stale), and
// the saved tensors at their versions before the op writes. With `number`,
// the op is between inputs[0] and a Python number, wrapped as
// _record_number does. None when nothing requires grad.
PyObject* inplace_node(PyObject*, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  HANDLE_TH_ERRORS
  const Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  const OpInfo* info = op_info(args[0]);
  if (nargs != 2 && nargs != 3) {
    throw py::type_error("_inplace_node(spec, inputs[, number], **fields)");
  }
  PyObject* inputs = args[1];
  const Py_ssize_t num_inputs = PyTuple_GET_SIZE(inputs);
  const auto& self = THPVariable_Unpack(PyTuple_GET_ITEM(inputs, 0));
  bool requires_grad = false;
  for (Py_ssize_t i = 0; i < num_inputs; ++i) {
    requires_grad |= THPVariable_Unpack(PyTuple_GET_ITEM(inputs, i)).requires_grad();
  }
  if (!GradMode::is_enabled() || !requires_grad)
    Py_RETURN_NONE;
  impl::check_inplace(self, true);
  edge_list edges;
  for (Py_ssize_t i = 0; i < num_inputs; ++i) {
    const auto& var = THPVariable_Unpack(PyTuple_GET_ITEM(inputs, i));
    edges.push_back(var.requires_grad() ? impl::gradient_edge(var) : Edge());
  }
  const bool with_number = nargs == 3 && PyObject_IsTrue(args[2]);
  if (with_number)
    edges.emplace_back();
  auto node = make_formula_node(info, std::move(edges));
  node->add_input_metadata(self);
  // A wrapped number takes self's device; no field is the op's output.
  node->set_fields(args + nargs, kwnames, PyTuple_GET_ITEM(inputs, 0));
  return PyCapsule_New(new std::shared_ptr<Node>(std::move(node)), "torchlite.Node", node_capsule_free);
  END_HANDLE_TH_ERRORS
}

// _copy_node(self, src) -> node or None: the first half of self.copy_(src),
// as upstream's copy_ autograd kernel (VariableTypeManual.cpp): None where
// grad mode is off, neither tensor requires grad or self's dtype carries no
// gradient; else check_inplace and the hand-written CopyBackwards, its next
// edges self's (a zero gradient: the copy overwrites self) and src's, its src
// options src's dtype and device. _rebase_history connects it after the write.
PyObject* copy_node(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  HANDLE_TH_ERRORS
  if (nargs != 2 || !THPVariable_Check(args[0]) || !THPVariable_Check(args[1]))
    throw py::type_error("_copy_node(self: Tensor, src: Tensor)");
  const auto& self = THPVariable_Unpack(args[0]);
  const auto& src = THPVariable_Unpack(args[1]);
  const bool requires_grad = GradMode::is_enabled() && (self.requires_grad() || src.requires_grad()) &&
      at::isDifferentiableType(self.scalar_type());
  if (!requires_grad)
    Py_RETURN_NONE;
  impl::check_inplace(self, true);
  edge_list edges;
  for (const auto* var : {&self, &src})
    edges.push_back(var->requires_grad() ? impl::gradient_edge(*var) : Edge());
  std::shared_ptr<Node> node = make_node<CopyBackwards>(std::move(edges), src.scalar_type(), src.device());
  node->add_input_metadata(self);
  return PyCapsule_New(new std::shared_ptr<Node>(std::move(node)), "torchlite.Node", node_capsule_free);
  END_HANDLE_TH_ERRORS
}

// _rebase_history(self, node, **fields) -> self: the second half, after the
// kernel wrote and the version was bumped. `fields` are the ones saved after
// the write, such as `result` (self itself, saved as the node's output).
PyObject* rebase_history(PyObject*, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  HANDLE_TH_ERRORS
  const Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  if (nargs != 2)
    throw py::type_error("_rebase_history(self, node, **fields)");
  if (args[1] != Py_None) {
    auto& node = capsule_node(args[1]);
    const auto& self = THPVariable_Unpack(args[0]);
    impl::rebase_history(self, Edge(node, 0));
    if (kwnames)
      static_cast<PyFormulaNode&>(*node).set_fields(args + nargs, kwnames, args[0], impl::is_view(self));
  }
  return Py_NewRef(args[0]);
  END_HANDLE_TH_ERRORS
}

// _call_inplace_fn(fn, grad, needs) -> grads: CopySlices runs the wrapped
// node on the view's part of the gradient, computing what CopySlices needs.
py::tuple call_inplace_fn(py::capsule fn_capsule, py::object grad, py::tuple needs) {
  auto& fn = capsule_node(fn_capsule.ptr());
  if (!fn)
    throw std::runtime_error(ERR_BACKWARD_TWICE);
  variable_list grads{grad.is_none() ? Variable() : THPVariable_Unpack(grad.ptr())};
  variable_list results;
  if (auto* formula = dynamic_cast<PyFormulaNode*>(fn.get())) {
    std::vector<bool> needs_input_grad;
    for (auto n : needs)
      needs_input_grad.push_back(n.cast<bool>());
    results = formula->apply_with_needs(std::move(grads), needs_input_grad);
  } else if (auto* copy = dynamic_cast<CopyBackwards*>(fn.get())) {
    // CopySlices' needs, not the wrapped node's own edges' (upstream adds the view's
    // edge to exec_info for the same reason)
    std::vector<bool> needs_input_grad;
    for (auto n : needs)
      needs_input_grad.push_back(n.cast<bool>());
    py::gil_scoped_release no_gil;
    results = copy->apply_with_needs(grads[0], needs_input_grad);
  } else {
    py::gil_scoped_release no_gil;
    results = (*fn)(std::move(grads));
  }
  py::tuple out(results.size());
  for (size_t i = 0; i < results.size(); ++i)
    out[i] = wrap(results[i]);
  return out;
}

PyMethodDef methods[] = {
    {"_record_view",
     reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(record_view)),
     METH_FASTCALL | METH_KEYWORDS,
     nullptr},
    {"_record_multi_view",
     reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(record_multi_view)),
     METH_FASTCALL | METH_KEYWORDS,
     nullptr},
    {"_inplace_node",
     reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(inplace_node)),
     METH_FASTCALL | METH_KEYWORDS,
     nullptr},
    {"_copy_node", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(copy_node)), METH_FASTCALL, nullptr},
    {"_rebase_history",
     reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(rebase_history)),
     METH_FASTCALL | METH_KEYWORDS,
     nullptr},
    {nullptr, nullptr, 0, nullptr}};

} // namespace

CopySlices::CopySlices(const Variable& base, std::shared_ptr<Node> fn, py::object extra) : fn_(std::move(fn)) {
  // fn's next edges, except that the view's slot now goes to the base.
  add_input_metadata(base);
  add_next_edge(impl::gradient_edge(base));
  for (uint32_t i = 1; i < fn_->num_outputs(); ++i)
    add_next_edge(fn_->next_edge(i));
  extra_ = extra.release().ptr();
}

CopySlices::~CopySlices() {
  if (!extra_)
    return;
  GilForRelease gil;
  if (gil)
    Py_DECREF(extra_);
}

variable_list CopySlices::apply(variable_list&& grads) {
  const size_t n = num_outputs();
  if (!grads[0].defined())
    return variable_list(n);
  py::gil_scoped_acquire gil;
  std::shared_ptr<Node> fn;
  {
    std::lock_guard<std::mutex> lock(fn_mutex_);
    fn = fn_;
  }
  if (!fn)
    throw std::runtime_error(ERR_BACKWARD_TWICE);
  py::tuple needs(n);
  for (size_t i = 0; i < n; ++i)
    needs[i] = py::bool_(task_should_compute_output(i));
  py::object grad = wrap(grads[0]);
  grads.clear();
  py::capsule fn_capsule(new std::shared_ptr<Node>(std::move(fn)), "torchlite.Node", node_capsule_free);
  PyObject* raw =
      PyObject_CallFunctionObjArgs(copy_slices_fn, grad.ptr(), extra_, fn_capsule.ptr(), needs.ptr(), nullptr);
  if (!raw)
    throw py::error_already_set();
  py::tuple r = py::reinterpret_steal<py::tuple>(raw);
  variable_list outputs(n);
  for (size_t i = 0; i < n && i < r.size(); ++i) {
    if (!r[i].is_none())
      outputs[i] = THPVariable_Unpack(r[i].ptr());
  }
  return outputs;
}

void CopySlices::release_variables() {
  std::shared_ptr<Node> fn;
  {
    std::lock_guard<std::mutex> lock(fn_mutex_);
    fn.swap(fn_);
  }
  if (fn)
    fn->release_variables();
}

void initViewBindings(py::module_& m) {
  if (PyModule_AddFunctions(m.ptr(), methods) < 0)
    throw py::error_already_set();
  m.def("_set_view_formulas", &set_view_formulas);
  m.def("_call_inplace_fn", &call_inplace_fn);
  m.def("_check_inplace", [](const Variable& self, bool requires_grad) { impl::check_inplace(self, requires_grad); });
  m.def("_view_base", [](const Variable& self) { return impl::view_base(self); });
  // Whether a gradient for `self` has somewhere to go (upstream's should_compute_output
  // for the edge an op would record): not for a view made in no_grad mode of a base
  // that requires grad, which requires grad but has neither grad_fn nor accumulator.
  m.def("_has_gradient_edge", [](const Variable& self) {
    return self.requires_grad() && impl::gradient_edge(self).function != nullptr;
  });
}

} // namespace autograd
} // namespace torch
