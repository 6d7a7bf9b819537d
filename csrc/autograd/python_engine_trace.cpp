// torchlite._C's view into the engine at work: the engine trace (see Note
// [Engine trace] in engine_trace.h), the introspection functions torch has
// (_current_graph_task_id, _current_graph_task_execution_order,
// _current_autograd_node, torch/csrc/Module.cpp) and what the graph
// pictures need (a node's numbers and saved tensors, a GraphTask's state).
#include "autograd/engine.h"
#include "autograd/engine_trace.h"
#include "autograd/functions/accumulate_grad.h"
#include "autograd/graph_task_state.h"
#include "autograd/python_cpp_function.h"
#include "autograd/python_function.h"
#include "autograd/python_variable.h"

#include <algorithm>
#include <cstdint>

namespace py = pybind11;

namespace torch {
namespace autograd {

namespace {

py::object node_object(const std::shared_ptr<Node>& node) {
  return py::reinterpret_steal<py::object>(functionToPyObject(node));
}

// The C++ node behind a grad_fn (python_cpp_function.h's node_of), which must be alive.
std::shared_ptr<Node> live_node_of(const py::handle& obj) {
  auto node = node_of(obj);
  if (!node)
    throw std::runtime_error("this Function's backward node is not part of a graph");
  return node;
}

py::object shape_of(const Variable& var) {
  py::tuple shape(var.dim());
  for (int64_t d = 0; d < var.dim(); ++d)
    shape[d] = var.sizes()[d];
  return std::move(shape);
}

// Each saved tensor's shape; None where it was freed (or its version moved
// on), "packed" where saved_tensors_hooks hold it.
py::list saved_shapes(
    const std::shared_ptr<Node>& node,
    c10::ArrayRef<SavedVariable> saved,
    const std::vector<PyObject*>* packed) {
  py::list result;
  for (size_t i = 0; i < saved.size(); ++i) {
    if (packed && i < packed->size() && (*packed)[i]) {
      result.append("packed");
      continue;
    }
    try {
      Variable var = saved[i].unpack(node);
      if (var.defined())
        result.append(shape_of(var));
    } catch (const std::exception&) {
      result.append(py::none());
    }
  }
  return result;
}

py::dict node_info(const py::handle& obj) {
  auto node = live_node_of(obj);
  py::dict info;
  info["id"] = reinterpret_cast<std::uintptr_t>(node.get());
  info["name"] = node->name();
  info["sequence_nr"] = node->sequence_nr();
  info["topological_nr"] = node->topological_nr();
  py::list saved;
  if (auto* formula = dynamic_cast<PyFormulaNode*>(node.get())) {
    saved = saved_shapes(node, formula->saved_, &formula->packed_);
  } else if (py::isinstance<THPFunction>(obj)) {
    auto& f = obj.cast<THPFunction&>();
    std::vector<PyObject*> packed;
    for (const auto& p : f.packed_saved)
      packed.push_back(p.is_none() ? nullptr : p.ptr());
    if (!f.has_freed_buffers)
      saved = saved_shapes(node, f.saved_variables, &packed);
  }
  info["saved"] = saved;
  info["variable_shape"] = py::none();
  if (auto* acc = dynamic_cast<AccumulateGrad*>(node.get())) {
    if (acc->variable.defined())
      info["variable_shape"] = shape_of(acc->variable);
  }
  py::list next;
  for (const auto& edge : node->next_edges()) {
    next.append(
        py::make_tuple(
            edge.function ? node_object(edge.function) : py::none(),
            edge.function ? py::int_(reinterpret_cast<std::uintptr_t>(edge.function.get())) : py::object(py::none()),
            edge.input_nr));
  }
  info["next"] = next;
  return info;
}

py::dict event_dict(const trace::Event& e) {
  py::dict d;
  d["kind"] = trace::kind_name(e.kind);
  d["time_ns"] = e.time_ns;
  d["thread"] = e.thread;
  d["native_thread_id"] = e.native_thread;
  d["thread_name"] = e.thread_name;
  d["worker_device"] = e.worker_device;
  d["graph_task"] = e.graph_task;
  d["reentrant_depth"] = e.reentrant_depth;
  d["task"] = e.task ? py::object(py::int_(e.task)) : py::object(py::none());
  d["producer"] = e.producer ? py::object(py::int_(e.producer)) : py::object(py::none());
  const bool has_node = !e.node.empty();
  d["node"] = has_node ? py::object(py::str(e.node)) : py::object(py::none());
  d["node_id"] = has_node ? py::object(py::int_(e.node_id)) : py::object(py::none());
  d["sequence_nr"] = has_node ? py::object(py::int_(e.sequence_nr)) : py::object(py::none());
  d["topological_nr"] = has_node ? py::object(py::int_(e.topological_nr)) : py::object(py::none());
  d["queue"] = e.queue.empty() ? py::object(py::none()) : py::object(py::str(e.queue));
  d["input_nr"] = e.input_nr >= 0 ? py::object(py::int_(e.input_nr)) : py::object(py::none());
  d["count"] = e.count >= 0 ? py::object(py::int_(e.count)) : py::object(py::none());
  d["detail"] = e.detail.empty() ? py::object(py::none()) : py::object(py::str(e.detail));
  return d;
}

py::dict graph_task_state() {
  GraphTaskState state;
  {
    // Taking the task's mutex without the GIL: a thread holding the mutex
    // may be waiting for the GIL (a capture hook written in Python).
    py::gil_scoped_release no_gil;
    state = get_current_graph_task_state();
  }
  py::dict d;
  d["graph_task"] = state.id;
  d["reentrant_depth"] = state.reentrant_depth;
  d["keep_graph"] = state.keep_graph;
  d["exec_info_empty"] = state.exec_info_empty;
  d["has_error"] = state.has_error;
  d["outstanding_tasks"] = state.outstanding_tasks;
  py::list roots;
  for (const auto& r : state.roots)
    roots.append(reinterpret_cast<std::uintptr_t>(r.get()));
  d["roots"] = roots;
  py::list nodes;
  for (const auto& ns : state.nodes) {
    py::dict n;
    n["id"] = reinterpret_cast<std::uintptr_t>(ns.node.get());
    n["node"] = node_object(ns.node);
    n["name"] = ns.node->name();
    n["dependencies"] = ns.dependencies;
    n["status"] = ns.status;
    n["needed"] = ns.needed;
    n["captured"] = ns.captured;
    py::list slots;
    for (bool filled : ns.not_ready_slots)
      slots.append(filled);
    n["not_ready_slots"] = ns.not_ready_slots.empty() ? py::object(py::none()) : py::object(slots);
    nodes.append(n);
  }
  d["nodes"] = nodes;
  return d;
}

} // namespace

void initEngineTraceBindings(py::module_& m) {
  m.def("_trace_start", &trace::start);
  m.def("_trace_stop", [] {
    std::vector<trace::Event> events = trace::stop();
    py::list result;
    for (const auto& e : events)
      result.append(event_dict(e));
    return result;
  });
  m.def("_trace_is_enabled", &trace::is_enabled);
  m.def("_current_graph_task_id", &get_current_graph_task_id);
  m.def("_current_autograd_node", [] { return node_object(get_current_node()); });
  m.def("_current_graph_task_execution_order", [] {
    std::vector<Node*> nodes;
    {
      py::gil_scoped_release no_gil;
      nodes = get_current_graph_task_execution_order();
    }
    if (nodes.empty()) {
      throw std::runtime_error("_current_graph_task_execution_order should only be called during the backward pass");
    }
    py::list result;
    for (Node* n : nodes)
      result.append(node_object(n->getptr()));
    return result;
  });
  m.def("_current_graph_task_state", &graph_task_state);
  // Whether the running backward will execute `node` (upstream's _will_engine_execute_node):
  // it is in the graph the task reaches and, for autograd.grad, on a path to an input.
  m.def("_will_engine_execute_node", [](const py::object& obj) {
    std::shared_ptr<GraphTask> task = get_current_graph_task();
    if (!task)
      throw std::runtime_error("_will_engine_execute_node should only be called during the backward pass");
    Node* node = live_node_of(obj).get();
    const auto& roots = task->graph_roots_;
    bool will_execute =
        task->nodes_in_graph_.count(node) != 0 || std::find(roots.begin(), roots.end(), node) != roots.end();
    if (will_execute && !task->exec_info_.empty()) {
      auto it = task->exec_info_.find(node);
      if (it == task->exec_info_.end() || !it->second.should_execute()) {
        will_execute = false;
      } else if (node->topological_nr() == 0 && it->second.captures_) {
        throw std::runtime_error(
            "A leaf node was passed to _will_engine_execute_node but we are currently running autograd.grad(). "
            "This is currently not supported.");
      }
    }
    return will_execute;
  });
  m.def("_graph_node_info", [](const py::object& node) { return node_info(node); });
}

} // namespace autograd
} // namespace torch
