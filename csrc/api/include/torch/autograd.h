#pragma once
// torch::autograd for C++ programs: backward, grad, and custom functions
// (torch/csrc/autograd/autograd.h, custom_function.h).
#include "autograd/function.h"
#include "autograd/grad_mode.h"
#include "autograd/saved_variable.h"
#include "autograd/variable.h"
#include "torch/types.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

namespace torch {

using autograd::NoGradGuard;

namespace autograd {

using tensor_list = std::vector<Variable>;

// Computes the gradients of `tensors` into the leaves' .grad
// (torch.autograd.backward). retain_graph defaults to create_graph.
void backward(
    const variable_list& tensors,
    const variable_list& grad_tensors = {},
    std::optional<bool> retain_graph = std::nullopt,
    bool create_graph = false,
    const variable_list& inputs = {});

// The gradients of `outputs` with respect to `inputs` (torch.autograd.grad).
variable_list grad(
    const variable_list& outputs,
    const variable_list& inputs,
    const variable_list& grad_outputs = {},
    std::optional<bool> retain_graph = std::nullopt,
    bool create_graph = false,
    bool allow_unused = false);

// c10::IValue reduced to what AutogradContext::saved_data holds: a number, a
// bool, a string or a tensor.
struct IValue {
  IValue() = default;
  IValue(double v) : v_(v) {} // NOLINT(google-explicit-constructor): as c10's
  IValue(int64_t v) : v_(v) {} // NOLINT
  IValue(int v) : v_(static_cast<int64_t>(v)) {} // NOLINT
  IValue(bool v) : v_(v) {} // NOLINT
  IValue(std::string v) : v_(std::move(v)) {} // NOLINT
  IValue(const char* v) : v_(std::string(v)) {} // NOLINT
  IValue(at::Tensor v) : v_(std::move(v)) {} // NOLINT
  bool isNone() const {
    return std::holds_alternative<std::monostate>(v_);
  }
  bool isDouble() const {
    return std::holds_alternative<double>(v_);
  }
  bool isInt() const {
    return std::holds_alternative<int64_t>(v_);
  }
  bool isBool() const {
    return std::holds_alternative<bool>(v_);
  }
  bool isString() const {
    return std::holds_alternative<std::string>(v_);
  }
  bool isTensor() const {
    return std::holds_alternative<at::Tensor>(v_);
  }
  double toDouble() const;
  int64_t toInt() const;
  bool toBool() const;
  const std::string& toStringRef() const;
  at::Tensor toTensor() const;

 private:
  std::variant<std::monostate, double, int64_t, bool, std::string, at::Tensor> v_;
};

// What a custom function's forward leaves for its backward.
struct AutogradContext {
  AutogradContext() = default;
  AutogradContext(const AutogradContext&) = delete;
  AutogradContext& operator=(const AutogradContext&) = delete;

  // Any other data to keep for backward.
  std::unordered_map<std::string, IValue> saved_data;

  // Tensors (inputs or outputs of forward) to be read in backward.
  void save_for_backward(variable_list to_save);
  // The saved tensors, unpacked (the version check refuses one modified in place since).
  variable_list get_saved_variables() const;
  // Outputs that are not differentiable: no gradient flows from them.
  void mark_non_differentiable(const variable_list& outputs);
  // Whether undefined incoming gradients reach backward as zeros (the default) or undefined.
  void set_materialize_grads(bool value);
  // Whether backward has to compute the gradient of forward's argument `index`.
  bool needs_input_grad(size_t index) const;

 private:
  friend struct CppNodeBase;
  variable_list to_save_;
  std::vector<SavedVariable> saved_variables_;
  std::vector<const at::TensorImpl*> non_differentiable_;
  bool materialize_grads_ = true;
  bool has_freed_buffers_ = false;
  std::weak_ptr<Node> grad_fn_;
};

// The node a custom function records (upstream CppNode<T>): runs
// T::backward on the context, and routes its gradients to the tensor
// arguments of forward.
struct CppNodeBase : public Node {
  AutogradContext ctx_;
  std::vector<bool> is_variable_input_;
  std::vector<std::vector<int64_t>> output_sizes_;
  std::vector<at::ScalarType> output_dtypes_;

  void release_variables() override;
  // Wraps forward's outputs: each becomes an output of this node when `is_executable`;
  // then saves ctx's tensors.
  void wrap_outputs(variable_list& outputs, bool is_executable);

 protected:
  variable_list apply(variable_list&& grads) override;
  virtual variable_list call_backward(variable_list grads) = 0;
};

template <class T>
struct CppNode : public CppNodeBase {
  std::string name() const override {
    // upstream gives the demangled type name of T; the class name without namespaces is enough here
    return name_;
  }
  std::string name_;

 protected:
  variable_list call_backward(variable_list grads) override {
    return T::backward(&ctx_, std::move(grads));
  }
};

namespace detail {
std::string demangled_name(const char* mangled);

inline void extract(std::vector<bool>& is_var, variable_list& vars, const at::Tensor& t) {
  is_var.push_back(true);
  vars.push_back(t);
}
inline void extract(std::vector<bool>& is_var, variable_list& vars, const variable_list& list) {
  for (const auto& t : list) {
    is_var.push_back(true);
    vars.push_back(t);
  }
}
template <typename X, typename = std::enable_if_t<!std::is_convertible_v<const X&, const at::Tensor&>>>
void extract(std::vector<bool>& is_var, variable_list& /*vars*/, const X& /*other*/) {
  is_var.push_back(false);
}

inline variable_list as_list(const at::Tensor& t) {
  return {t};
}
inline variable_list as_list(const variable_list& list) {
  return list;
}
template <typename Out>
Out from_list(variable_list&& list) {
  if constexpr (std::is_same_v<Out, variable_list>) {
    return std::move(list);
  } else {
    return std::move(list.at(0));
  }
}
} // namespace detail

// A custom autograd function: T has
//   static Variable (or variable_list) forward(AutogradContext* ctx, args...);
//   static variable_list backward(AutogradContext* ctx, variable_list grad_outputs);
// and is called as T::apply(args...) (torch/csrc/autograd/custom_function.h).
template <class T>
struct Function {
  template <typename X = T, typename... Args>
  static auto apply(Args&&... args) {
    using Out = std::decay_t<decltype(X::forward(static_cast<AutogradContext*>(nullptr), std::forward<Args>(args)...))>;
    std::vector<bool> is_var;
    variable_list inputs;
    (detail::extract(is_var, inputs, args), ...);
    bool is_executable = false;
    if (GradMode::is_enabled()) {
      for (const auto& v : inputs)
        is_executable = is_executable || (v.defined() && v.requires_grad());
    }
    auto node = make_node<CppNode<T>>();
    node->name_ = detail::demangled_name(typeid(T).name());
    node->is_variable_input_ = std::move(is_var);
    if (is_executable)
      node->set_next_edges(collect_next_edges(inputs));
    Out result;
    {
      AutoGradMode no_grad(false);
      result = T::forward(&node->ctx_, std::forward<Args>(args)...);
    }
    variable_list outputs = detail::as_list(result);
    node->wrap_outputs(outputs, is_executable);
    return detail::from_list<Out>(std::move(outputs));
  }
};

} // namespace autograd
} // namespace torch
