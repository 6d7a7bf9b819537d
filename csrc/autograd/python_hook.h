#pragma once
// Hooks written in Python (torch/csrc/autograd/python_hook.h). Each calls its
// Python function with the GIL held, only inside its own call; the engine
// never takes the GIL for them. A hook handle's remove() disables the hook in
// place, so a backward running on another thread never sees a vector change.
#include "autograd/function_hook.h"
#include "autograd/python_variable.h"

#include <atomic>
#include <functional>
#include <memory>
#include <vector>

namespace torch {
namespace autograd {

// The registered Python callable and whether its handle removed it.
struct PyHookSlot {
  explicit PyHookSlot(PyObject* fn) : fn(fn) {}
  SafePyObject fn;
  std::atomic<bool> removed{false};
};

// grad_fn.register_prehook: fn(grad_outputs) -> new grad_outputs or None.
struct PyFunctionPreHook : public FunctionPreHook {
  explicit PyFunctionPreHook(std::shared_ptr<PyHookSlot> slot) : slot_(std::move(slot)) {}
  variable_list operator()(const variable_list& grads) override;
  const std::shared_ptr<PyHookSlot>& slot() const noexcept {
    return slot_;
  }

 private:
  std::shared_ptr<PyHookSlot> slot_;
};

// grad_fn.register_hook: fn(grad_inputs, grad_outputs) -> new grad_inputs or None.
struct PyFunctionPostHook : public FunctionPostHook {
  explicit PyFunctionPostHook(std::shared_ptr<PyHookSlot> slot) : slot_(std::move(slot)) {}
  variable_list operator()(const variable_list& outputs, const variable_list& inputs) override;
  const std::shared_ptr<PyHookSlot>& slot() const noexcept {
    return slot_;
  }

 private:
  std::shared_ptr<PyHookSlot> slot_;
};

// Tensor.register_post_accumulate_grad_hook: every hook of the leaf, in order.
struct PyFunctionTensorPostAccGradHooks : public PostAccumulateGradHook {
  void operator()(const Variable& tensor) override;
  std::vector<std::shared_ptr<PyHookSlot>> hooks;
};

// A handle whose remove() runs `remove_fn` once (torch.utils.hooks.RemovableHandle).
struct RemovableHandle {
  std::function<void()> remove_fn;
  void remove() {
    if (!remove_fn)
      return;
    auto fn = std::move(remove_fn);
    remove_fn = nullptr;
    fn();
  }
};

// Tensor.register_hook: fn(grad) -> new grad or None.
Variable call_tensor_hook(PyObject* fn, const Variable& grad);

void initHookBindings(pybind11::module_& m);

} // namespace autograd
} // namespace torch
