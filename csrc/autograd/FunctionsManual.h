#pragma once
// C++ versions of the simplest derivative formulas of the Python ops
// (PyTorch keeps its hand-written formulas in FunctionsManual.cpp).
//
// Note [GIL-free formulas]
// A built-in op's backward is a Python function (so create_graph=True can
// differentiate through it), and running it takes the GIL. For a plain
// first-order backward (grad mode off) of an elementwise op on host memory,
// the C++ formula below computes the same gradients without Python, so the
// engine's workers, and several threads calling backward at once, do not
// queue on the GIL. Anything these formulas do not cover (other dtypes or
// devices, saved-tensor hooks, create_graph) runs the Python formula.
#include "autograd/function_hook.h"

#include <cstdint>
#include <string>
#include <vector>

namespace torch {
namespace autograd {
namespace generated {
namespace details {

enum class NativeFormula : uint8_t {
  None,
  AddTensor,  // a + alpha * b: (g, alpha * g); broadcasting is summed by validate_outputs
  SubTensor,  // a - alpha * b: (g, -alpha * g)
  AddScalar,  // a + c, a - c: (g, -)
  MulTensor,  // a * b, saved (a, b): (g * b, g * a)
  MulScalar,  // a * c: (g * c, -)
  DivScalar,  // a / c: (g / c, -)
  Neg,        // -a: (-g)
  Exp,        // saved result y: (g * y)
  Tanh,       // saved result y: (g * (1 - y^2))
  Sigmoid,    // saved result y: (g * (1 - y) * y)
  Relu,       // saved result y: (g * (y > 0))
  Sum,        // full sum of a tensor of `shape`: (g expanded)
  Mean,       // full mean over `scalar` elements: (g / scalar expanded)
};

// The formula for a key used by the Python ops ("mul_scalar", ...); throws
// std::invalid_argument for an unknown key.
NativeFormula native_formula_from_key(const std::string& key);

// The non-tensor arguments a formula needs (read from the op's `extra`).
struct NativeArgs {
  double scalar = 1.0;
  std::vector<int64_t> shape;
};

// Fills `out` (one entry per node output; undefined where `needs` is false)
// and returns true, or returns false when this formula does not cover the
// case (then the caller runs the Python formula).
bool apply_native_formula(NativeFormula formula, const Variable& grad, const variable_list& saved,
                          const NativeArgs& args, const std::vector<bool>& needs, variable_list& out);

} // namespace details
} // namespace generated
} // namespace autograd
} // namespace torch
