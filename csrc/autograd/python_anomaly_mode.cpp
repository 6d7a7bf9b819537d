#include "autograd/python_anomaly_mode.h"
#include "autograd/function.h"

#include <sstream>

namespace py = pybind11;

namespace torch {
namespace autograd {

PyAnomalyMetadata::PyAnomalyMetadata() {
  py::gil_scoped_acquire gil;
  dict_ = PyDict_New();
}

PyAnomalyMetadata::~PyAnomalyMetadata() {
  if (!python_is_alive()) return;
  py::gil_scoped_acquire gil;
  Py_XDECREF(dict_);
}

void PyAnomalyMetadata::store_stack() {
  // Nodes are also made on engine threads (create_graph), hence the GIL here.
  py::gil_scoped_acquire gil;
  py::list stack = py::module_::import("traceback").attr("format_stack")();
  PyDict_SetItemString(dict_, ANOMALY_TRACE_KEY, stack.ptr());
  context_ = py::str("").attr("join")(stack).cast<std::string>();
}

void PyAnomalyMetadata::print_stack(const std::string& current_node_name) {
  std::ostringstream ss;
  ss << "Error detected in " << current_node_name << ". "
     << "Traceback of forward call that caused the error:\n"
     << context_;
  // Walk up the nodes whose backward created this one.
  auto parent = parent_.lock();
  while (parent) {
    ss << "\n\nPrevious calculation was induced by " << parent->name() << ". "
       << "Traceback of forward call that induced the previous calculation:\n"
       << parent->metadata()->context_;
    parent = parent->metadata()->parent_.lock();
  }
  py::gil_scoped_acquire gil;
  // A warnings filter may turn the warning into an error; the node's own
  // error is the one to report, so that one is dropped.
  if (PyErr_WarnEx(PyExc_UserWarning, ss.str().c_str(), 1) < 0) PyErr_Clear();
}

} // namespace autograd
} // namespace torch
