#pragma once
// The Tensor methods' binding (see python_variable_methods.cpp): torchlite._C._VariableMethod.
#include <pybind11/pybind11.h>

namespace torch {
namespace autograd {

void initVariableMethodBindings(pybind11::module_& m);

} // namespace autograd
} // namespace torch
