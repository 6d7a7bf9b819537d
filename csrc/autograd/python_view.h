#pragma once
// Views and in-place ops from Python (see python_view.cpp): CopySlices and
// the bindings of view recording, check_inplace and rebase_history.
#include "autograd/function.h"
#include "autograd/python_variable.h"

#include <pybind11/pybind11.h>

#include <memory>
#include <mutex>

namespace torch {
namespace autograd {

// Note [View + Inplace update for base tensor] (upstream
// functions/tensor.h CopySlices): the base's grad_fn after an in-place op on
// one of its views. It owns the in-place op's node `fn` and runs it on the
// view's part of the base's gradient; the rest of the gradient passes through
// unchanged. Its next edges are fn's, except the first, which goes to the
// base's previous history instead of the view's. Its math is the Python
// formula torchlite._ops.view_formulas._copy_slices_backward (differentiable, so double
// backward works); `extra_` holds the view's place in the base.
struct CopySlices : public Node {
  CopySlices(const Variable& base, std::shared_ptr<Node> fn, pybind11::object extra);
  ~CopySlices() override;
  variable_list apply(variable_list&& grads) override;
  void release_variables() override;
  std::string name() const override {
    return "torch::autograd::CopySlices";
  }

 private:
  std::mutex fn_mutex_; // guards fn_ against release_variables on another thread
  std::shared_ptr<Node> fn_;
  PyObject* extra_ = nullptr;
};

void initViewBindings(pybind11::module_& m);

} // namespace autograd
} // namespace torch
