#pragma once
// Nodes whose backward is written in Python (torch/csrc/autograd/python_function.h).
//
// PyNode runs a custom torchlite.autograd.Function. Its Python half is the
// ctx object (THPFunction, the grad_fn users see); the node owns it
// strongly and it refers back weakly, so a graph kept alive only from C++
// keeps its Python half, and no reference cycle forms.
//
// PyFormulaNode is the backward node of a built-in op (MulBackward0, ...):
// the op's derivative formula is a Python function written with torchlite's
// own ops, so create_graph=True differentiates through it. The node keeps
// what PyTorch's generated node keeps, as SavedVariables.
//
// Both take the GIL inside apply() only.
#include "autograd/FunctionsManual.h"
#include "autograd/function.h"
#include "autograd/python_variable.h"
#include "autograd/saved_variable.h"

#include <string>
#include <vector>

namespace torch {
namespace autograd {

struct PyNode : public Node {
  PyNode(PyObject* obj, std::string name);
  ~PyNode() override;
  variable_list apply(variable_list&& inputs) override;
  void release_variables() override;
  std::string name() const override { return name_; }
  PyObject* obj() const noexcept { return obj_; }

 private:
  PyObject* obj_;      // the ctx (THPFunction), owned
  std::string name_;   // cached: the engine names nodes without the GIL
};

// The C++ state of a custom Function's ctx object (PyTorch's THPFunction).
struct THPFunction {
  std::weak_ptr<PyNode> cdata;
  std::vector<SavedVariable> saved_variables;
  // (unpack_hook, packed) per saved tensor packed by saved_tensors_hooks, else None.
  std::vector<pybind11::object> packed_saved;
  // One entry per forward argument: was it a tensor (and so has an edge)?
  std::vector<bool> is_variable_input;
  // Per node input (forward output): was it a tensor?
  std::vector<bool> output_is_tensor;
  bool materialize_grads = true;
  bool has_freed_buffers = false;
};

// An op's backward formula, made once per op at import; lives forever.
struct OpInfo {
  std::string name;
  PyObject* backward;  // fn(grad, saved, extra, needs_input_grad) -> grads
  // The same formula in C++, if any (Note [GIL-free formulas]).
  generated::details::NativeFormula native = generated::details::NativeFormula::None;
  // The formula takes a tuple of gradients, one per forward output (split, unbind...).
  bool multi_output = false;
};

struct PyFormulaNode : public Node {
  PyFormulaNode(const OpInfo* info, edge_list&& next_edges) : Node(std::move(next_edges)), info_(info) {}
  ~PyFormulaNode() override;
  variable_list apply(variable_list&& grads) override;
  // Runs the Python formula for the given needs_input_grad; the GIL is held.
  // CopySlices calls it on the in-place node it wraps.
  variable_list apply_with_needs(variable_list&& grads, const std::vector<bool>& needs_input_grad);
  void release_variables() override;
  void will_release_variables() override { release_after_apply_ = true; }
  std::string name() const override { return info_->name; }

  std::vector<SavedVariable> saved_;
  // Saved tensors packed by saved_tensors_hooks: owned (unpack_hook, packed)
  // tuples, null where saved_ holds the tensor. Empty when no hook was active.
  std::vector<PyObject*> packed_;
  PyObject* extra_ = nullptr;  // non-tensor arguments the formula needs, owned
  // extra_ read into C++ for the native formula; native_ok_ is false when
  // extra_ holds something it cannot use (then Python runs the formula).
  generated::details::NativeArgs native_args_;
  bool native_ok_ = false;

 private:
  void release_packed();

  const OpInfo* info_;
  bool release_after_apply_ = false;
  bool packed_released_ = false;
};

// The innermost saved_tensors_hooks' pack hook applied to `tensor`: a new
// reference to (unpack_hook, packed), or null when no hooks are active.
PyObject* pack_saved_tensor(PyObject* tensor);
// unpack_hook(packed), checked to be a tensor.
pybind11::object unpack_saved_tensor(PyObject* unpack_and_packed);

void initFunctionBindings(pybind11::module_& m);

} // namespace autograd
} // namespace torch
