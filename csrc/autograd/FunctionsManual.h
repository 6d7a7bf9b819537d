#pragma once
// C++ versions of the simplest derivative formulas of the Python ops
// (PyTorch keeps its hand-written formulas in FunctionsManual.cpp; the Python
// ones are in torchlite/_functions_manual.py under the same names).
//
// Note [GIL-free formulas]
// A built-in op's backward is a Python function (so create_graph=True can
// differentiate through it), and running it takes the GIL. For a plain
// first-order backward (grad mode off) of an elementwise op on host memory,
// the C++ formula below computes the same gradients without Python, so the
// engine's workers, and several threads calling backward at once, do not
// queue on the GIL. Anything these formulas do not cover (other dtypes or
// devices, saved-tensor hooks, create_graph) runs the Python formula. Which
// formulas have a C++ version is marked in tools/autograd/derivatives.yaml;
// the generated nodes (generated/NativeFormulas.*) call the functions below.
#include "autograd/function_hook.h"

#include <cstdint>
#include <vector>

namespace torch {
namespace autograd {
namespace generated {
namespace details {

// Whether the C++ formulas cover a backward: a floating-point gradient in
// host memory, and saved tensors of its dtype there too.
bool native_inputs_supported(const Variable& grad, const variable_list& saved);

// The formulas of tools/autograd/derivatives.yaml's `native` entries, under
// upstream's names. Each returns the gradient, or an undefined Variable where
// it does not cover the case (the node then runs the Python formula). A
// result may reuse `grad`'s memory when nothing else holds it
// (use_count() == 1): the generated nodes hold another reference while a
// later formula still reads it.
Variable maybe_multiply(const Variable& grad, double alpha);
Variable neg(const Variable& grad);
Variable mul_tensor_backward(const Variable& grad, const Variable& other);
Variable div_tensor_self_backward(const Variable& grad, const Variable& other);
Variable tanh_backward(const Variable& grad, const Variable& result);
Variable sigmoid_backward(const Variable& grad, const Variable& result);
Variable threshold_backward(const Variable& grad, const Variable& self, double threshold);
Variable expand_symint(const Variable& grad, const std::vector<int64_t>& sizes);
Variable mean_backward(const Variable& grad, const std::vector<int64_t>& sizes, int64_t numel);
// The gradient back in self's dtype and on its device: the core's recorded cast
// (generated/Functions.h `to`), so under create_graph it records ToCopyBackward0
// as upstream's `grad.to(self_options)` does, and every order differentiates.
Variable to_copy_backward(const Variable& grad, at::ScalarType self_dtype, c10::Device self_device);

// stack's gradients: grad.select(dim, i) for each input i that needs one, views of grad made
// without grad mode, as the Python formula's; empty where an input's dtype is not grad's (the
// Python formula casts it back) or in inference mode.
variable_list stack_tensors_backward(
    const Variable& grad,
    int64_t dim,
    const std::vector<at::ScalarType>& dtypes,
    const std::vector<bool>& needs);

} // namespace details
} // namespace generated
} // namespace autograd
} // namespace torch
