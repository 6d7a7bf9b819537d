#include "autograd/python_cpp_function.h"
#include "autograd/python_anomaly_mode.h"
#include "autograd/python_hook.h"

#include <pybind11/stl.h>

#include <cstdio>

namespace py = pybind11;

namespace torch {
namespace autograd {

PyObject* functionToPyObject(const std::shared_ptr<Node>& cdata) {
  if (!cdata) Py_RETURN_NONE;
  // A custom Function's node answers with its ctx object.
  if (auto* obj = static_cast<PyObject*>(cdata->pyobj())) return Py_NewRef(obj);
  // pybind11 keeps one wrapper per live node, so grad_fn is grad_fn.
  return py::cast(cdata).release().ptr();
}

py::tuple node_next_functions(const std::shared_ptr<Node>& node) {
  const auto& edges = node->next_edges();
  py::tuple result(edges.size());
  for (size_t i = 0; i < edges.size(); ++i) {
    result[i] = py::make_tuple(py::reinterpret_steal<py::object>(functionToPyObject(edges[i].function)),
                               edges[i].input_nr);
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

void initCppFunctionBindings(py::module_& m) {
  py::class_<Node, std::shared_ptr<Node>>(m, "Node")
      .def("name", &Node::name)
      .def_property_readonly("next_functions", &node_next_functions)
      .def_property_readonly("metadata", &node_metadata)
      .def("register_hook", &node_register_hook)
      .def("register_prehook", &node_register_prehook)
      .def("_sequence_nr", &Node::sequence_nr)
      .def("__repr__", [](const std::shared_ptr<Node>& node) {
        char addr[32];
        std::snprintf(addr, sizeof(addr), "%p", static_cast<void*>(node.get()));
        return "<" + node->name() + " object at " + addr + ">";
      });
}

} // namespace autograd
} // namespace torch
