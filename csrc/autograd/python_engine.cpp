#include "autograd/python_engine.h"
#include "autograd/functions/basic_ops.h"
#include "autograd/python_anomaly_mode.h"
#include "autograd/python_cpp_function.h"
#include "autograd/python_function.h"

#include <string>
#include <utility>

namespace py = pybind11;

namespace torch {
namespace autograd {
namespace python {

Engine& PythonEngine::get_python_engine() {
  // Never destroyed: device threads may outlive static destruction at exit.
  static PythonEngine* engine = new PythonEngine();
  return *engine;
}

void PythonEngine::thread_init(int device, const std::shared_ptr<ReadyQueue>& ready_queue, bool should_increment) {
  // Count the thread before waiting for the GIL: the thread that started it
  // waits for the count and may hold the GIL meanwhile.
  if (should_increment)
    increment_non_reentrant_thread_count();
  {
    py::gil_scoped_acquire gil;
    py::gil_scoped_release no_gil;
    Engine::thread_init(device, ready_queue, false);
  }
  if (should_increment)
    decrement_non_reentrant_thread_count();
}

variable_list PythonEngine::execute(
    const edge_list& roots,
    const variable_list& inputs,
    bool keep_graph,
    bool create_graph,
    bool accumulate_grad,
    const edge_list& outputs) {
  if (PyGILState_Check()) {
    throw std::runtime_error(
        "The autograd engine was called while holding the GIL. If you are using the C++ API, "
        "the autograd engine is an expensive operation that does not require the GIL to be held "
        "so you should release it with 'pybind11::gil_scoped_release no_gil;'.");
  }
  return Engine::execute(roots, inputs, keep_graph, create_graph, accumulate_grad, outputs);
}

std::unique_ptr<AnomalyMetadata> PythonEngine::make_anomaly_metadata() {
  return std::make_unique<PyAnomalyMetadata>();
}

} // namespace python

namespace {

// THPUtils_typename: a Python object's type name, without its module.
std::string type_name(const py::handle& obj) {
  return py::str(py::type::handle_of(obj).attr("__name__")).cast<std::string>();
}

// torchlite.autograd.graph.GradientEdge (upstream's THPGradientEdgeClass, which
// THPAutograd_initExtension reads from torch.autograd.graph): looked up at its
// first use, as that module imports torchlite._C.
bool is_gradient_edge(const py::handle& obj) {
  static PyObject* cls = nullptr;
  if (!cls)
    cls = py::object(py::module_::import("torchlite.autograd.graph").attr("GradientEdge")).release().ptr();
  const int r = PyObject_IsInstance(obj.ptr(), cls);
  if (r < 0)
    throw py::error_already_set();
  return r == 1;
}

// upstream parseGradientEdge (python_engine.cpp): the Edge of a GradientEdge
// (node, output_nr). Upstream reads any output_nr; torchlite refuses one the
// node has no input for (upstream's engine crashes on it).
Edge parse_gradient_edge(const py::handle& obj) {
  py::tuple edge = py::reinterpret_borrow<py::tuple>(obj);
  py::handle grad_fn = edge[0];
  if (!py::isinstance<Node>(grad_fn) && !py::isinstance<THPFunction>(grad_fn)) {
    throw std::runtime_error(
        "GradientEdge's first object must be an autograd.graph.Node but got " + type_name(grad_fn));
  }
  PyObject* index = PyNumber_Index(edge[1].ptr());
  if (!index)
    throw py::error_already_set();
  const long long nr = PyLong_AsLongLong(index);
  Py_DECREF(index);
  if (nr == -1 && PyErr_Occurred())
    throw py::error_already_set();
  auto node = node_of(grad_fn);
  if (node && (nr < 0 || static_cast<unsigned long long>(nr) >= node->num_inputs())) {
    throw std::runtime_error(
        "GradientEdge's output_nr " + std::to_string(nr) + " is out of range for " + node->name() + ", which has " +
        std::to_string(node->num_inputs()) + " inputs");
  }
  return Edge(std::move(node), static_cast<uint32_t>(nr));
}

// The roots' gradient edges and gradients, checked with the messages of
// THPEngine_run_backward (torch/csrc/autograd/python_engine.cpp). The one
// place these checks live: run_backward and the 2018 engine
// (torchlite/autograd/legacy_engine.py, through _check_backward_roots) use it.
std::pair<edge_list, variable_list> collect_roots(const py::tuple& tensors, const py::tuple& grad_tensors) {
  const size_t num_tensors = tensors.size();
  if (grad_tensors.size() != num_tensors) {
    throw py::value_error(
        "got " + std::to_string(num_tensors) + " tensors and " + std::to_string(grad_tensors.size()) + " gradients");
  }
  edge_list roots;
  roots.reserve(num_tensors);
  variable_list grads;
  grads.reserve(num_tensors);
  for (size_t i = 0; i < num_tensors; ++i) {
    Edge gradient_edge;
    if (THPVariable_Check(tensors[i].ptr())) {
      gradient_edge = impl::gradient_edge(THPVariable_Unpack(tensors[i].ptr()));
    } else if (is_gradient_edge(tensors[i])) {
      gradient_edge = parse_gradient_edge(tensors[i]);
    } else {
      throw std::runtime_error(
          "element " + std::to_string(i) + " of tensors tuple is neither a Tensor nor a GradientEdge");
    }
    if (!gradient_edge.function) {
      throw std::runtime_error(
          "element " + std::to_string(i) + " of tensors does not require grad and does not have a grad_fn");
    }
    roots.push_back(std::move(gradient_edge));
    py::handle grad = grad_tensors[i];
    if (THPVariable_Check(grad.ptr())) {
      grads.push_back(THPVariable_Unpack(grad.ptr()));
    } else if (grad.is_none()) {
      throw std::runtime_error(
          "element " + std::to_string(i) + " of gradients tuple is None, but the corresponding Tensor requires grad");
    } else {
      throw py::type_error("element " + std::to_string(i) + " of gradients tuple is not a Tensor or None");
    }
  }
  return {std::move(roots), std::move(grads)};
}

// THPEngine_run_backward (torch/csrc/autograd/python_engine.cpp).
py::object run_backward(
    const py::tuple& tensors,
    const py::tuple& grad_tensors,
    bool keep_graph,
    bool create_graph,
    const py::object& inputs_obj,
    bool allow_unreachable,
    bool accumulate_grad) {
  auto [roots, grads] = collect_roots(tensors, grad_tensors);

  edge_list output_edges;
  const bool backward_api_called = accumulate_grad;
  py::tuple inputs = inputs_obj.is_none() ? py::tuple() : py::tuple(inputs_obj);
  const size_t num_inputs = inputs.size();
  output_edges.reserve(num_inputs);
  for (size_t i = 0; i < num_inputs; ++i) {
    if (!THPVariable_Check(inputs[i].ptr())) {
      // A GradientEdge: its gradient is captured where it enters the edge's node.
      if (!is_gradient_edge(inputs[i])) {
        throw std::runtime_error("all inputs have to be Tensors or GradientEdges, but got " + type_name(inputs[i]));
      }
      auto edge = parse_gradient_edge(inputs[i]);
      if (!edge.function)
        throw std::runtime_error("all inputs have to be Tensors or GradientEdges of a live graph");
      output_edges.push_back(std::move(edge));
      continue;
    }
    const Variable& tensor = THPVariable_Unpack(inputs[i].ptr());
    if (!tensor.requires_grad()) {
      throw std::runtime_error("One of the differentiated Tensors does not require grad");
    }
    const auto output_nr = tensor.output_nr();
    auto grad_fn = tensor.grad_fn();
    if (!grad_fn)
      grad_fn = impl::try_get_grad_accumulator(tensor);
    if (accumulate_grad)
      tensor.retain_grad();
    if (!grad_fn) {
      // An input the graph never reached: Identity gives grad() an edge to
      // capture (undefined) from, and keeps the engine's edges valid.
      output_edges.emplace_back(make_node<Identity>(), 0);
    } else {
      output_edges.emplace_back(grad_fn, output_nr);
    }
  }

  // Runs last, with the GIL back, also when execute throws: releases the
  // arrays the workers freed without the GIL (Note [Releasing arrays without the GIL]).
  struct ReleaseDeferredOnExit {
    ~ReleaseDeferredOnExit() {
      release_deferred_pyobjects();
    }
  } release_deferred;
  variable_list outputs;
  {
    py::gil_scoped_release no_gil;
    auto& engine = python::PythonEngine::get_python_engine();
    outputs = engine.execute(roots, grads, keep_graph, create_graph, accumulate_grad, output_edges);
  }

  if (backward_api_called || num_inputs == 0)
    return py::none();
  py::tuple result(num_inputs);
  for (size_t i = 0; i < num_inputs; ++i) {
    if (!allow_unreachable && !outputs[i].defined()) {
      throw std::runtime_error(
          "One of the differentiated Tensors appears to not have been used in the graph. Set "
          "allow_unused=True if this is the desired behavior.");
    }
    result[i] = py::reinterpret_steal<py::object>(THPVariable_Wrap(outputs[i]));
  }
  return std::move(result);
}

void queue_callback(const py::object& callback) {
  auto holder = std::make_shared<SafePyObject>(callback.ptr());
  python::PythonEngine::get_python_engine().queue_callback([holder]() {
    py::gil_scoped_acquire gil;
    PyObject* r = PyObject_CallNoArgs(holder->ptr());
    if (!r)
      throw py::error_already_set();
    Py_DECREF(r);
  });
}

// Variable._execution_engine (THPEngine): a handle on the Python engine.
struct ImperativeEngine {};

} // namespace

void initEngineBindings(py::module_& m) {
  Engine::set_default_engine_stub(&python::PythonEngine::get_python_engine);
  // run_backward's root checks, for the 2018 engine (torchlite/autograd/legacy_engine.py).
  m.def("_check_backward_roots", [](const py::tuple& tensors, const py::tuple& grad_tensors) {
    collect_roots(tensors, grad_tensors);
  });
  py::class_<ImperativeEngine>(m, "_ImperativeEngine")
      .def(py::init<>())
      .def(
          "run_backward",
          [](ImperativeEngine&,
             const py::tuple& tensors,
             const py::tuple& grad_tensors,
             bool keep_graph,
             bool create_graph,
             const py::object& inputs,
             bool allow_unreachable,
             bool accumulate_grad) {
            return run_backward(
                tensors, grad_tensors, keep_graph, create_graph, inputs, allow_unreachable, accumulate_grad);
          },
          py::arg("tensors"),
          py::arg("grad_tensors"),
          py::arg("keep_graph"),
          py::arg("create_graph"),
          py::arg("inputs") = py::none(),
          py::arg("allow_unreachable") = false,
          py::arg("accumulate_grad") = false)
      .def("queue_callback", [](ImperativeEngine&, const py::object& cb) { queue_callback(cb); })
      .def("is_checkpoint_valid", [](ImperativeEngine&) {
        return python::PythonEngine::get_python_engine().is_checkpoint_valid();
      });
}

} // namespace autograd
} // namespace torch
