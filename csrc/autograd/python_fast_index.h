#pragma once
// The C++ entries of basic indexing and the view ops training code calls per step.
//
// Note [C++ dispatch of basic indexing]
// x[key] and the views select, narrow, squeeze, split, chunk, unbind and flatten have C++ entries
// beside the generated table (Note [C++ dispatch of the hot ops], python_fast_ops.h): unlike those
// ops, one of these calls records one of several nodes, or a chain of them, as the call decides
// (x[0, 1:3, None] records SelectBackward0, SliceBackward0 and UnsqueezeBackward0, one per item;
// squeeze's overloads record SqueezeBackward0, 1 or 2; split records SplitBackward0 or
// SplitWithSizesBackward0), so python_fast_index.cpp keeps its own small table of methods, and
// each kernel names its nodes and their fields (checked against the derivatives table's specs).
//
// x[key] is upstream's THPVariable_getitem (torch/csrc/autograd/python_variable_indexing.cpp):
// a key that is an int, a slice, None or Ellipsis, or a tuple of these, is applied item by item
// as applySlicing does (at::indexing's applySelect / applySlice, and unsqueeze for None), each
// item a view of the previous one with its own node; a full slice inside a tuple records nothing
// (a lone slice does), and a key that applies nothing gives an alias (AliasBackward0). That is
// what torchlite/_ops/python_variable_indexing.py's getitem records; this entry makes the same
// views: the same sizes, strides and storage offset over self's storage (for an empty result
// too: select and slice place it as at::select / at::slice do), sharing self's version counter,
// each one a view of the previous (_record_view's work: its node, then the view relation). Where
// no node is recorded (grad mode off, or self not requiring grad) only the last view is made, a
// view of self: its base and creation meta are what the chain would give (a view of a view
// takes the root as base and keeps a restricted creation meta, variable.cpp's set_view_of).
//
// The entries take a host (cpu) tensor of any dtype that is not an inference tensor, outside
// inference mode and structured in-place capture, with their arguments as exact Python ints
// (select's index, narrow's start, the dims; a slice's start, stop and step each an int or None;
// split's sizes a list or tuple of ints) and only the keywords the Python kernel names ("dim";
// narrow's "start" and "length"; flatten's "start_dim" and "end_dim"...). Anything else (a tensor,
// a bool, a list or a numpy integer in the key, a step that is not positive, an index out of
// range, a 0-d tensor indexed by an int or a slice, an empty dimension split, a flatten of a
// layout reshape cannot view) is "not handled": the Python kernel runs and stays the reference
// for every result and every error message.
#include "autograd/python_fast_ops.h"

namespace torch {
namespace autograd {

// The entry of the Tensor method or operator `name` among this file's, or null.
const FastOpEntry* find_index_op(const char* name);

// Runs an entry of find_index_op for a method call (args[0] is self): as call_fast_op.
PyObject* call_index_op(const FastOpEntry& entry, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames);

} // namespace autograd
} // namespace torch
