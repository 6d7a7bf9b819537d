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
  std::string name() const override {
    return name_;
  }
  PyObject* obj() const noexcept {
    return obj_;
  }

 private:
  PyObject* obj_; // the ctx (THPFunction), owned
  std::string name_; // cached: the engine names nodes without the GIL
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

// An op's backward formula, made once per op at import; lives forever. The
// spec comes from the derivatives table (tools/autograd/derivatives.yaml,
// generated into torchlite/_generated/functions.py): the node's name, its
// Python formula and its named fields, the values it saves (upstream's
// generated node members: `self_`, `other_`, `alpha`, `self_sym_sizes`...).
struct OpInfo {
  std::string name;
  // fn(grad, needs_input_grad, *fields) -> grads; set by _set_formula once
  // the formulas' module is imported (it imports the ops that record the node).
  PyObject* backward = nullptr;
  // The node's fields in the formula's argument order; `field_keys` are the
  // same names interned, so keyword arguments match by pointer first.
  std::vector<std::string> fields;
  std::vector<PyObject*> field_keys;
  // Whether the formula reads the field as a tensor (a Python number given
  // for it is also saved as a wrapped number), and whether
  // grad_fn._saved_<field> shows it (torch hides ScalarType members).
  std::vector<bool> field_is_tensor;
  std::vector<bool> field_is_list; // a list of tensors (Tensor?[] indices)
  std::vector<bool> field_exposed;
  // An int or list-of-ints value (select's index, a dim): grad_fn._saved_<name> shows a negative
  // one as upstream's getters show it, modulo 2**64.
  std::vector<bool> field_is_symint;
  // The formula takes a tuple of gradients, one per forward output (split, unbind...).
  bool multi_output = false;
  // The generated C++ node class with a GIL-free formula (Note [GIL-free formulas]), or 0.
  int native = 0;
  size_t field_index(PyObject* key) const; // fields.size() when unknown
};

struct PyFormulaNode : public Node {
  PyFormulaNode(const OpInfo* info, edge_list&& next_edges);
  ~PyFormulaNode() override;
  variable_list apply(variable_list&& grads) override;
  // Runs the Python formula for the given needs_input_grad; the GIL is held.
  // CopySlices calls it on the in-place node it wraps.
  variable_list apply_with_needs(variable_list&& grads, const std::vector<bool>& needs_input_grad);
  void release_variables() override;
  void will_release_variables() override {
    release_after_apply_ = true;
  }
  std::string name() const override {
    return info_->name;
  }
  const OpInfo& info() const {
    return *info_;
  }

  // Stores the op's named fields (keyword arguments `kwnames` with values
  // `kwvalues`): a tensor as a SavedVariable (packed by saved_tensors_hooks
  // when some are active; `output` is the op's result, saved without a
  // reference cycle), anything else as a Python object. A Python number
  // given for a field the formula reads as a tensor (x * 2's `other`) is also
  // saved as torch's wrapped-number tensor of `output`'s dtype. Then reads
  // the native formula's fields, if the node has one.
  // `inplace_on_view`: the output is a view an in-place op wrote (upstream's
  // SavedVariable(self, true, self.is_view())).
  void set_fields(PyObject* const* kwvalues, PyObject* kwnames, PyObject* output, bool inplace_on_view = false);
  // The same from a dict {field: value} (a view's regenerated AsStridedBackward0).
  void set_fields(PyObject* dict, PyObject* output);
  // grad_fn._saved_<name> (or, for_formula, the formula's argument): the
  // field's value, or the saved tensor unpacked.
  pybind11::object saved_field(size_t index, bool for_formula = false);
  // grad_fn._raw_saved_<name>.register_hooks(pack_hook, unpack_hook) for the tensor in
  // `slot` (upstream SavedVariable::register_hooks): packs it now; unpacking calls unpack_hook.
  void register_saved_hooks(size_t slot, const pybind11::object& pack_hook, const pybind11::object& unpack_hook);

  // One slot per field, then one per tensor of a list field: the saved tensor
  // (undefined when the field holds no tensor), the tensor packed by saved_tensors_hooks as an owned
  // (unpack_hook, packed) tuple (null when unpacked; empty when no hook was
  // active), and the field's Python value (owned; null when none).
  c10::SmallVector<SavedVariable, 1> saved_; // the common node saves one tensor: inline
  std::vector<PyObject*> packed_;
  std::vector<PyObject*> values_;
  // The value of field i (borrowed), or null.
  PyObject* value(size_t i) const {
    return i < values_.size() ? values_[i] : nullptr;
  }
  // Where each list-of-tensors field's tensors are in saved_ [first, second).
  std::vector<std::pair<size_t, size_t>> list_ranges_;

 protected:
  // Note [GIL-free formulas]: the generated native nodes
  // (generated/python_functions.cpp) read their typed fields from values_
  // and run their C++ formula; false where it does not cover the case.
  virtual bool read_native_fields() {
    return false;
  }
  virtual bool apply_native(
      const variable_list& grads,
      const variable_list& saved,
      const std::vector<bool>& needs,
      variable_list& out) {
    return false;
  }

 private:
  variable_list formula_outputs(const pybind11::object& r);
  void set_field(PyObject* key, PyObject* value, PyObject* output, bool inplace_on_view = false);
  void save_tensor(size_t slot, PyObject* value, PyObject* output, bool inplace_on_view = false);
  void ensure_tensor_slots();
  pybind11::object saved_slot(size_t index);
  void release_packed();
  // validate_outputs' reduction of each gradient to its input's shape and
  // dtype, in torchlite's differentiable ops (so create_graph records it).
  void reduce_outputs(variable_list& outputs);

  const OpInfo* info_;
  bool native_ok_ = false;
  bool release_after_apply_ = false;
  bool packed_released_ = false;
};

// A node for `info`: its generated native class where it has one
// (generated/python_functions.cpp).
std::shared_ptr<PyFormulaNode> make_formula_node(const OpInfo* info, edge_list&& next_edges);

// The OpInfo in a capsule made by _op_spec.
const OpInfo* op_info(PyObject* capsule);
// The spec of the node named `name` once torchlite/_generated/specs.py made it, else null.
const OpInfo* op_info_named(const std::string& name);
// Whether this thread's _record calls are captured (Note [Structured in-place variants]).
bool records_captured();

// _sum_to(grad, shape, dtype) of torchlite's ops, set by _set_sum_to: the
// reduction PyFormulaNode::reduce_outputs calls.
extern PyObject* THPSumToHook;

// The innermost saved_tensors_hooks' pack hook applied to `tensor`: a new
// reference to (unpack_hook, packed), or null when no hooks are active.
PyObject* pack_saved_tensor(PyObject* tensor);
// unpack_hook(packed), checked to be a tensor.
pybind11::object unpack_saved_tensor(PyObject* unpack_and_packed);

void initFunctionBindings(pybind11::module_& m);

} // namespace autograd
} // namespace torch
