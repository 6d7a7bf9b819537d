#pragma once
// Python access to autograd Nodes (torch/csrc/autograd/python_cpp_function.h):
// grad_fn.name(), next_functions, metadata, register_hook, register_prehook,
// _num_inputs, _do_backward.
// A custom Function's node is represented by its ctx object (python_function.h);
// every other node by a torchlite._C.Node wrapper that shares ownership.
#include "autograd/function.h"
#include "autograd/python_variable.h"

namespace torch {
namespace autograd {

// The Python object for a node (new reference; None for null).
PyObject* functionToPyObject(const std::shared_ptr<Node>& cdata);

// The shared Python API of both node representations.
pybind11::tuple node_next_functions(const std::shared_ptr<Node>& node);
pybind11::object node_metadata(const std::shared_ptr<Node>& node);
pybind11::object node_register_hook(const std::shared_ptr<Node>& node, pybind11::object fn);
pybind11::object node_register_prehook(const std::shared_ptr<Node>& node, pybind11::object fn);
// grad_fn._input_metadata (upstream THPCppFunction_input_metadata / THPFunction_input_metadata):
// one torchlite._C._InputMetadata (shape, dtype, device) per input of the node.
pybind11::list node_input_metadata(const std::shared_ptr<Node>& node);

// The C++ node behind a grad_fn object: a built-in node, or a custom Function's
// ctx (null when its node is gone); TypeError for anything else.
std::shared_ptr<Node> node_of(const pybind11::handle& obj);

// Node._do_backward(grad_output, retain_variables): one node's step as the 2018
// engine took it (Function._do_backward, torch/autograd/function.py of 2018), for
// torchlite.autograd.legacy_engine: the node's tensor pre-hooks, pre-hooks,
// apply, output checks and post-hooks, as the engine's call_function runs them;
// the saved variables are freed unless retain_variables. Returns the gradients
// for next_functions (None where undefined).
pybind11::tuple node_do_backward(
    const std::shared_ptr<Node>& node,
    const pybind11::sequence& grad_output,
    bool retain_variables);

void initCppFunctionBindings(pybind11::module_& m);

} // namespace autograd
} // namespace torch
