#pragma once
// Hooks written as C++ callables (torch/csrc/autograd/cpp_hook.h).
#include "autograd/function_hook.h"

#include <atomic>
#include <functional>
#include <memory>

namespace torch {
namespace autograd {

// A tensor hook: sees the gradient at input `value_idx` of the node and may
// replace it by returning a defined tensor.
struct CppFunctionSingleTensorPreHook : public FunctionPreHook {
  CppFunctionSingleTensorPreHook(std::function<Variable(const Variable&)> hook, size_t value_idx)
      : hook_(std::move(hook)), value_idx_(value_idx) {}
  variable_list operator()(const variable_list& values) override {
    if (!enabled_.load())
      return values;
    auto value = values.at(value_idx_);
    auto res = hook_(value);
    variable_list results(values);
    if (res.defined())
      results[value_idx_] = std::move(res);
    return results;
  }
  void disable() {
    enabled_ = false;
  }

 private:
  std::function<Variable(const Variable&)> hook_;
  size_t value_idx_;
  std::atomic<bool> enabled_{true};
};

// Lets one hook object be attached to a node and also stay listed in the
// tensor's AutogradMeta (so it can be moved to a later-created accumulator).
struct SharedFunctionPreHook : public FunctionPreHook {
  explicit SharedFunctionPreHook(std::shared_ptr<FunctionPreHook> hook) : hook_(std::move(hook)) {}
  variable_list operator()(const variable_list& values) override {
    return (*hook_)(values);
  }

 private:
  std::shared_ptr<FunctionPreHook> hook_;
};

// A node pre-hook over all incoming gradients.
struct CppFunctionPreHook : public FunctionPreHook {
  explicit CppFunctionPreHook(std::function<variable_list(const variable_list&)> fn) : fn_(std::move(fn)) {}
  variable_list operator()(const variable_list& grads) override {
    return fn_(grads);
  }

 private:
  std::function<variable_list(const variable_list&)> fn_;
};

// A node post-hook: sees (outputs, inputs) and may replace the outputs.
struct CppFunctionPostHook : public FunctionPostHook {
  explicit CppFunctionPostHook(std::function<variable_list(const variable_list&, const variable_list&)> fn)
      : fn_(std::move(fn)) {}
  variable_list operator()(const variable_list& outputs, const variable_list& inputs) override {
    return fn_(outputs, inputs);
  }

 private:
  std::function<variable_list(const variable_list&, const variable_list&)> fn_;
};

struct CppPostAccumulateGradHook : public PostAccumulateGradHook {
  explicit CppPostAccumulateGradHook(std::function<void(const Variable&)> fn) : fn_(std::move(fn)) {}
  void operator()(const Variable& tensor) override {
    fn_(tensor);
  }

 private:
  std::function<void(const Variable&)> fn_;
};

} // namespace autograd
} // namespace torch
