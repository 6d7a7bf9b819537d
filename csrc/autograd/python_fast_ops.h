#pragma once
// The C++ dispatch of the hot ops (upstream: the generated python_variable_methods.cpp parses the
// arguments and VariableType_*.cpp records the node, with no Python frame in between).
//
// Note [C++ dispatch of the hot ops]
// A Tensor method or operator whose op the table marks `cpp_dispatch:` (tools/autograd/
// native_functions.yaml) first tries its C++ entry (the table generated/python_fast_functions.cpp,
// run by python_fast_ops.cpp). The entry takes only the calls whose semantics it computes exactly
// as the Python kernel does: host (cpu) tensors in float32 or float64, contiguous, of one dtype and
// one shape, or such a tensor and a Python float or int; outside inference mode and structured
// in-place capture; an in-place form (`inplace:` names) only where it records no node (grad mode
// off, or no operand requiring grad), with add_'s and sub_'s `alpha=`. There it allocates the result, runs the kernel
// (a C++ loop where one IEEE operation gives the value, numpy's own inner loop for the transcendental functions, so
// values are bit for bit the Python kernel's), and records the node with the table's name and fields as _record does,
// saving each field under upstream's condition (a tensor read only by another input's formula is saved when that input
// has an edge: should_compute_output). Any other call is "not handled" and goes to the Python kernel, which stays the
// reference for every case.
//
// The view kernels (view, transpose, t, permute, unsqueeze, expand; reshape of a contiguous tensor, which is its
// view as upstream's reshape, recording ViewBackward0) take a cpu tensor of any dtype and their
// arguments as exact Python ints (varargs, or one tuple, list or torch.Size where the method takes a size list). They
// compute the view's sizes and strides as the Python kernel's (at::detail::computeStride, inferExpandGeometry, ...),
// make it over self's storage with self's version counter (at::alias_with_sizes_and_strides; its numpy array is made
// when Python first asks for it), and record the node and the view relation as _record_view does. A call the Python
// kernel refuses (a bad size or dim) is left to it, so its errors stay the reference too. The function forms
// (torch.transpose, torch.permute, ...) stay Python: torch.permute takes no varargs.
//
// x[key] and the views select, narrow, squeeze, split, chunk, unbind and flatten have entries beside this table,
// found and run through it (find_index_op, call_index_op): Note [C++ dispatch of basic indexing]
// (python_fast_index.h).
#include <Python.h>

#include <cstdint>

namespace torch {
namespace autograd {

enum class FastKernel : uint8_t {
  Add,
  Sub,
  Mul,
  Div,
  Neg,
  Relu,
  NumpyUnary,
  // the reductions, softmaxes and torch.where (python_fast_reduce.cpp: Note [C++ dispatch of the reductions])
  Sum,
  Mean,
  Softmax,
  LogSoftmax,
  Where,
  // the matrix products and cat (python_fast_linear.cpp: Note [C++ entries of the matrix products])
  Mm,
  Matmul,
  Linear,
  Cat,
  View,
  Reshape,
  Transpose,
  T,
  Permute,
  Unsqueeze,
  Expand,
  // basic indexing and the views of python_fast_index.cpp (Note [C++ dispatch of basic indexing])
  Getitem,
  Select,
  Narrow,
  Squeeze,
  Split,
  Chunk,
  Unbind,
  Flatten
};

inline bool is_view_kernel(FastKernel k) {
  return k >= FastKernel::View && k <= FastKernel::Expand;
}

inline bool is_index_kernel(FastKernel k) {
  return k >= FastKernel::Getitem && k <= FastKernel::Flatten;
}

inline bool is_reduce_kernel(FastKernel k) {
  return k >= FastKernel::Sum && k <= FastKernel::Where;
}

inline bool is_matrix_product_kernel(FastKernel k) { // (and cat's)
  return k == FastKernel::Mm || k == FastKernel::Matmul || k == FastKernel::Linear || k == FastKernel::Cat;
}

// Where a node's field takes its value from: an operand, the result, add's alpha (1), or for the views, self's
// sizes, the first or second int argument as given, or the permutation (its dims wrapped).
enum class FastSource : uint8_t { Self, Other, Result, Alpha, SelfSizes, Dim0, Dim1, Dims };

struct FastField {
  const char* name;
  FastSource source;
  // -1: always saved; else saved only where that input (0 self, 1 other) has an edge.
  int8_t needed_by;
};

struct FastOpEntry {
  const char* method; // the Tensor attribute: "mul", "__rmul__"
  FastKernel kernel;
  // NumpyUnary: numpy's ufunc ("tanh"), run by its float64 loop; float32 computes through float64
  // and rounds once, as UnaryOps.py's _float_unary does for its _VIA_FLOAT64 functions
  const char* ufunc;
  bool inplace; // the in-place form (add_, __iadd__): taken only where it records no node
  const char* node; // the node's name in the table (derivatives.yaml)
  int num_fields;
  FastField fields[3];
};

// The table generated from native_functions.yaml's `cpp_dispatch:` entries.
extern const FastOpEntry kFastOps[];
extern const int kNumFastOps;

// The entry of the Tensor method or operator `name`, or null where the table marks none.
const FastOpEntry* find_fast_op(const char* name);

// Runs `entry` for a method call (args[0] is self): a new reference to the result, or null. Null
// with no Python error set means "not handled": the caller runs the Python kernel.
PyObject* call_fast_op(const FastOpEntry& entry, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames);
// The same for a reduction, softmax or where entry (is_reduce_kernel), in python_fast_reduce.cpp.
PyObject* call_reduce_op(const FastOpEntry& entry, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames);

// call_fast_op for the matrix products' entries and cat's (python_fast_linear.cpp).
PyObject* call_fast_linear(const FastOpEntry& entry, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames);

} // namespace autograd
} // namespace torch
