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
  GilForRelease gil;
  if (gil)
    Py_XDECREF(dict_);
}

namespace {

// The directory of the torchlite package, with a trailing separator.
const std::string& package_dir() {
  static const std::string dir = [] {
    py::object os_path = py::module_::import("os.path");
    py::object init = py::module_::import("torchlite").attr("__file__");
    return py::str(os_path.attr("dirname")(init)).cast<std::string>() + "/";
  }();
  return dir;
}

} // namespace

void PyAnomalyMetadata::store_stack() {
  // Nodes are also made on engine threads (create_graph), hence the GIL here.
  py::gil_scoped_acquire gil;
  // The stack without its innermost frames in torchlite's own package (the
  // op that made the node): torch's ops are C++ and leave no frame, so its
  // traceback ends at the user's line.
  py::module_ traceback = py::module_::import("traceback");
  py::list frames = traceback.attr("extract_stack")();
  size_t keep = py::len(frames);
  const std::string& dir = package_dir();
  while (keep > 0 && py::str(frames[keep - 1].attr("filename")).cast<std::string>().rfind(dir, 0) == 0)
    --keep;
  py::list stack = traceback.attr("format_list")(frames[py::slice(0, static_cast<py::ssize_t>(keep), 1)]);
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
  if (PyErr_WarnEx(PyExc_UserWarning, ss.str().c_str(), 1) < 0)
    PyErr_Clear();
}

} // namespace autograd
} // namespace torch
