#include "autograd/python_cpp_function.h"
#include "aten/Functions.h"
#include "autograd/engine.h"
#include "autograd/functions/accumulate_grad.h"
#include "autograd/python_anomaly_mode.h"
#include "autograd/python_function.h"
#include "autograd/python_hook.h"

#include <pybind11/stl.h>

#include <cstdio>
#include <string>
#include <unordered_map>
#include <vector>

namespace py = pybind11;

namespace torch {
namespace autograd {

namespace {

// grad_fn._raw_saved_<field> (upstream's torch._C._autograd.SavedTensor): the
// tensor saved in one slot of a table node, whose hooks can be set.
struct SavedTensor {
  std::shared_ptr<Node> node;
  size_t slot;
};

// The name of a node's Python class, as torch's: the node's name without a C++
// namespace ("torch::autograd::AccumulateGrad" -> "AccumulateGrad").
std::string class_name(const std::string& node_name) {
  const auto colon = node_name.rfind("::");
  return colon == std::string::npos ? node_name : node_name.substr(colon + 2);
}

// torch registers one Python class per node type (MulBackward0, AccumulateGrad,
// ...); torchlite's op nodes share one C++ class, so the classes are made here,
// by name, as subclasses of torchlite._C.Node with its layout, deallocator and
// free function, so that a new wrapper can be given its node's class. Only
// touched with the GIL held; the classes live as long as the process.
PyTypeObject* node_class(PyTypeObject* base, const std::string& node_name) {
  static auto* classes = new std::unordered_map<std::string, PyObject*>();
  auto it = classes->find(class_name(node_name));
  if (it != classes->end())
    return reinterpret_cast<PyTypeObject*>(it->second);
  it = classes->emplace(class_name(node_name), nullptr).first;
  std::vector<PyType_Slot> slots{
      {Py_tp_dealloc, reinterpret_cast<void*>(base->tp_dealloc)}, {Py_tp_free, reinterpret_cast<void*>(base->tp_free)}};
  if (PyType_HasFeature(base, Py_TPFLAGS_HAVE_GC)) {
    slots.push_back({Py_tp_traverse, reinterpret_cast<void*>(base->tp_traverse)});
    slots.push_back({Py_tp_clear, reinterpret_cast<void*>(base->tp_clear)});
  }
  slots.push_back({0, nullptr});
  // In module builtins, as torch's, named without it (tp_name), so that the class
  // prints as <class 'MulBackward0'>.
  const std::string qualified = "builtins." + it->first;
  PyType_Spec spec{
      qualified.c_str(),
      static_cast<int>(base->tp_basicsize),
      static_cast<int>(base->tp_itemsize),
      static_cast<unsigned int>(Py_TPFLAGS_DEFAULT | (base->tp_flags & Py_TPFLAGS_HAVE_GC)),
      slots.data()};
  PyObject* cls = PyType_FromSpecWithBases(&spec, reinterpret_cast<PyObject*>(base));
  if (!cls || PyObject_SetAttrString(cls, "__name__", py::str(it->first).ptr()) < 0) {
    Py_XDECREF(cls);
    classes->erase(it);
    throw py::error_already_set();
  }
  it->second = cls;
  return reinterpret_cast<PyTypeObject*>(cls);
}

} // namespace

PyObject* functionToPyObject(const std::shared_ptr<Node>& cdata) {
  if (!cdata)
    Py_RETURN_NONE;
  // A custom Function's node answers with its ctx object.
  if (auto* obj = static_cast<PyObject*>(cdata->pyobj()))
    return Py_NewRef(obj);
  // pybind11 keeps one wrapper per live node, so grad_fn is grad_fn; a new
  // wrapper is given its node's class.
  py::object obj = py::cast(cdata);
  static auto* node_base = reinterpret_cast<PyTypeObject*>(py::type::of<Node>().ptr());
  if (Py_TYPE(obj.ptr()) == node_base) {
    auto* cls = reinterpret_cast<PyObject*>(node_class(node_base, cdata->name()));
    if (PyObject_SetAttrString(obj.ptr(), "__class__", cls) < 0)
      throw py::error_already_set();
  }
  return obj.release().ptr();
}

py::tuple node_next_functions(const std::shared_ptr<Node>& node) {
  const auto& edges = node->next_edges();
  py::tuple result(edges.size());
  for (size_t i = 0; i < edges.size(); ++i) {
    result[i] =
        py::make_tuple(py::reinterpret_steal<py::object>(functionToPyObject(edges[i].function)), edges[i].input_nr);
  }
  return result;
}

py::object node_metadata(const std::shared_ptr<Node>& node) {
  // Made by PythonEngine::make_anomaly_metadata, hence a PyAnomalyMetadata.
  auto* meta = static_cast<PyAnomalyMetadata*>(node->metadata());
  return py::reinterpret_borrow<py::object>(meta->dict());
}

py::object node_register_hook(const std::shared_ptr<Node>& node, py::object fn) {
  auto slot = std::make_shared<PyHookSlot>(fn.ptr());
  node->add_post_hook(std::make_unique<PyFunctionPostHook>(slot));
  return py::cast(RemovableHandle{[slot] { slot->removed = true; }});
}

py::object node_register_prehook(const std::shared_ptr<Node>& node, py::object fn) {
  auto slot = std::make_shared<PyHookSlot>(fn.ptr());
  node->add_pre_hook(std::make_unique<PyFunctionPreHook>(slot));
  return py::cast(RemovableHandle{[slot] { slot->removed = true; }});
}

// The Python view of one InputMetadata: shape as a list, dtype and device as
// torchlite's objects (read off a 0-d tensor of the same dtype and device).
struct PyInputMetadata {
  InputMetadata meta;
  py::object attr_of_scalar(const char* name) const {
    auto t = py::reinterpret_steal<py::object>(THPVariable_Wrap(at::full({}, 0, meta.dtype(), meta.device())));
    return t.attr(name);
  }
};

py::list node_input_metadata(const std::shared_ptr<Node>& node) {
  py::list result;
  for (uint32_t i = 0; i < node->num_inputs(); ++i)
    result.append(py::cast(PyInputMetadata{node->input_metadata(i)}));
  return result;
}

std::shared_ptr<Node> node_of(const py::handle& obj) {
  if (py::isinstance<Node>(obj))
    return obj.cast<std::shared_ptr<Node>>();
  if (py::isinstance<THPFunction>(obj))
    return obj.cast<THPFunction&>().cdata.lock();
  throw py::type_error(std::string("expected an autograd Node, but got ") + Py_TYPE(obj.ptr())->tp_name);
}

py::tuple node_do_backward(const std::shared_ptr<Node>& node, const py::sequence& grad_output, bool retain_variables) {
  variable_list inputs;
  inputs.reserve(grad_output.size());
  for (size_t i = 0; i < grad_output.size(); ++i) {
    py::object grad = grad_output[i];
    if (grad.is_none()) {
      inputs.emplace_back();
    } else if (THPVariable_Check(grad.ptr())) {
      inputs.push_back(THPVariable_Unpack(grad.ptr()));
    } else {
      throw py::type_error(
          "_do_backward expects Tensors or None, but got " + std::string(Py_TYPE(grad.ptr())->tp_name));
    }
  }
  if (inputs.size() != node->num_inputs()) {
    throw py::value_error(
        node->name() + " expects " + std::to_string(node->num_inputs()) + " gradients, but got " +
        std::to_string(inputs.size()));
  }
  // Tensors freed below without the GIL are released here, with it.
  struct ReleaseDeferredOnExit {
    ~ReleaseDeferredOnExit() {
      release_deferred_pyobjects();
    }
  } release_deferred;
  variable_list outputs;
  {
    py::gil_scoped_release no_gil;
    // The steps of the engine's call_function and evaluate_function around
    // apply, in their order, on the calling thread and outside any GraphTask.
    const auto hooks = node->hooks();
    if (hooks) {
      for (const auto& hook : hooks->tensor_pre_hooks)
        inputs = (*hook)(inputs);
      for (const auto& pair : hooks->retains_grad_hooks)
        inputs = (*pair.second)(inputs);
      for (const auto& hook : hooks->pre_hooks)
        inputs = (*hook)(inputs);
    }
    if (!retain_variables)
      node->will_release_variables();
    const bool has_post_hooks = hooks && !hooks->post_hooks.empty();
    outputs = has_post_hooks ? (*node)(variable_list(inputs)) : (*node)(std::move(inputs));
    validate_outputs(node->next_edges(), outputs, [&](const std::string& msg) {
      return "Function " + node->name() + " returned an " + msg;
    });
    if (has_post_hooks) {
      for (const auto& hook : hooks->post_hooks)
        outputs = (*hook)(outputs, inputs);
    }
    if (!retain_variables)
      node->release_variables();
  }
  py::tuple result(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    result[i] = py::reinterpret_steal<py::object>(THPVariable_Wrap(outputs[i]));
  }
  return result;
}

void initCppFunctionBindings(py::module_& m) {
  py::class_<SavedTensor>(m, "SavedTensor")
      .def("register_hooks", [](const SavedTensor& self, py::function pack_hook, py::function unpack_hook) {
        static_cast<PyFormulaNode&>(*self.node).register_saved_hooks(self.slot, pack_hook, unpack_hook);
      });
  // upstream's torch._C._autograd._InputMetadata (python_cpp_function.cpp)
  py::class_<PyInputMetadata>(m, "_InputMetadata")
      .def_property_readonly(
          "shape",
          [](const PyInputMetadata& m) {
            py::list shape;
            for (auto d : m.meta.shape())
              shape.append(d);
            return shape;
          })
      .def_property_readonly("dtype", [](const PyInputMetadata& m) { return m.attr_of_scalar("dtype"); })
      .def_property_readonly("device", [](const PyInputMetadata& m) { return m.attr_of_scalar("device"); })
      .def_property_readonly("is_nested_tensor", [](const PyInputMetadata&) { return false; })
      .def_property_readonly("is_cpp_nested_tensor", [](const PyInputMetadata&) { return false; });
  py::class_<Node, std::shared_ptr<Node>>(m, "Node")
      .def("name", &Node::name)
      .def_property_readonly("_input_metadata", &node_input_metadata)
      .def_property_readonly("next_functions", &node_next_functions)
      .def_property_readonly("metadata", &node_metadata)
      .def("register_hook", &node_register_hook)
      .def("register_prehook", &node_register_prehook)
      .def("_sequence_nr", &Node::sequence_nr)
      .def("_num_inputs", &Node::num_inputs)
      // AccumulateGrad's leaf, as torch's AccumulateGrad.variable; other nodes have none.
      .def_property_readonly(
          "variable",
          [](const std::shared_ptr<Node>& node) {
            auto* acc = dynamic_cast<AccumulateGrad*>(node.get());
            if (!acc) {
              throw py::attribute_error("'" + class_name(node->name()) + "' object has no attribute 'variable'");
            }
            return py::reinterpret_steal<py::object>(THPVariable_Wrap(acc->variable));
          })
      .def("_do_backward", &node_do_backward, py::arg("grad_output"), py::arg("retain_variables"))
      // grad_fn._saved_<field>, as upstream's generated python_functions.cpp
      // defines a property per saved member of each node.
      .def(
          "__getattr__",
          [](const std::shared_ptr<Node>& node, const std::string& attr) -> py::object {
            static const std::string prefix = "_saved_";
            static const std::string raw_prefix = "_raw_saved_";
            if (auto* formula = dynamic_cast<PyFormulaNode*>(node.get())) {
              const auto& info = formula->info();
              if (attr.compare(0, prefix.size(), prefix) == 0) {
                const auto field = attr.substr(prefix.size());
                for (size_t i = 0; i < info.fields.size(); ++i) {
                  if (info.fields[i] == field && info.field_exposed[i])
                    return formula->saved_field(i);
                }
              }
              // grad_fn._raw_saved_<field>: the saved tensor itself (upstream's SavedTensor)
              if (attr.compare(0, raw_prefix.size(), raw_prefix) == 0) {
                const auto field = attr.substr(raw_prefix.size());
                for (size_t i = 0; i < info.fields.size(); ++i) {
                  if (info.fields[i] != field || !info.field_exposed[i])
                    continue;
                  if (info.field_is_list[i]) {
                    py::list items;
                    if (i < formula->list_ranges_.size()) {
                      for (size_t k = formula->list_ranges_[i].first; k < formula->list_ranges_[i].second; ++k)
                        items.append(SavedTensor{node, k});
                    }
                    return std::move(items);
                  }
                  if (info.field_is_tensor[i])
                    return py::cast(SavedTensor{node, i});
                }
              }
            }
            throw py::attribute_error("'" + class_name(node->name()) + "' object has no attribute '" + attr + "'");
          })
      .def(
          "__dir__",
          [](const py::object& self) {
            py::list names = py::module_::import("builtins").attr("object").attr("__dir__")(self);
            auto node = self.cast<std::shared_ptr<Node>>();
            if (auto* formula = dynamic_cast<PyFormulaNode*>(node.get())) {
              const auto& info = formula->info();
              for (size_t i = 0; i < info.fields.size(); ++i) {
                if (info.field_exposed[i] && (info.field_is_tensor[i] || info.field_is_list[i]))
                  names.append("_raw_saved_" + info.fields[i]);
                if (info.field_exposed[i])
                  names.append("_saved_" + info.fields[i]);
              }
            }
            return names;
          })
      .def("__repr__", [](const std::shared_ptr<Node>& node) {
        char addr[32];
        std::snprintf(addr, sizeof(addr), "%p", static_cast<void*>(node.get()));
        return "<" + class_name(node->name()) + " object at " + addr + ">";
      });
}

} // namespace autograd
} // namespace torch
