// torch::autograd::backward / grad for C++ programs, and the node of a custom
// Function<T> (torch/csrc/autograd/autograd.cpp, custom_function.cpp).
#include "torch/autograd.h"

#include "aten/Functions.h"
#include "autograd/engine.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>

namespace torch {
namespace autograd {
namespace {

std::string shape_string(const std::vector<int64_t>& sizes) {
  std::ostringstream s;
  s << "torch.Size([";
  for (size_t i = 0; i < sizes.size(); ++i)
    s << (i ? ", " : "") << sizes[i];
  s << "])";
  return s.str();
}

// The roots' gradients: the given ones (checked against the roots' shapes), or ones for a
// one-element root (upstream _make_grads).
variable_list make_grads(const variable_list& outputs, const variable_list& grad_outputs) {
  if (!grad_outputs.empty() && grad_outputs.size() != outputs.size()) {
    throw std::runtime_error(
        "grad_outputs (" + std::to_string(grad_outputs.size()) + ") must have the same length as outputs (" +
        std::to_string(outputs.size()) + ")");
  }
  variable_list grads;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Variable& out = outputs[i];
    if (!out.defined())
      throw std::runtime_error("element " + std::to_string(i) + " of tensors is undefined");
    if (!out.requires_grad()) {
      throw std::runtime_error(
          "element " + std::to_string(i) + " of tensors does not require grad and does not have a grad_fn");
    }
    const Variable grad = grad_outputs.empty() ? Variable() : grad_outputs[i];
    if (grad.defined()) {
      if (grad.sizes() != out.sizes()) {
        throw std::runtime_error(
            "Mismatch in shape: grad_output[" + std::to_string(i) + "] has a shape of " + shape_string(grad.sizes()) +
            " and output[" + std::to_string(i) + "] has a shape of " + shape_string(out.sizes()) + ".");
      }
      grads.push_back(grad);
    } else {
      if (out.numel() != 1)
        throw std::runtime_error("grad can be implicitly created only for scalar outputs");
      grads.push_back(at::ones_like(out));
    }
  }
  return grads;
}

edge_list roots_of(const variable_list& outputs) {
  edge_list roots;
  for (const auto& out : outputs)
    roots.push_back(impl::gradient_edge(out));
  return roots;
}

} // namespace

void backward(
    const variable_list& tensors,
    const variable_list& grad_tensors,
    std::optional<bool> retain_graph,
    bool create_graph,
    const variable_list& inputs) {
  variable_list grads = make_grads(tensors, grad_tensors);
  edge_list outputs;
  for (const auto& input : inputs) {
    if (!input.requires_grad())
      throw std::runtime_error("One of the differentiated Tensors does not require grad");
    outputs.push_back(impl::gradient_edge(input));
  }
  Engine::get_default_engine().execute(
      roots_of(tensors), grads, retain_graph.value_or(create_graph), create_graph, /*accumulate_grad=*/true, outputs);
}

variable_list grad(
    const variable_list& outputs,
    const variable_list& inputs,
    const variable_list& grad_outputs,
    std::optional<bool> retain_graph,
    bool create_graph,
    bool allow_unused) {
  variable_list grads = make_grads(outputs, grad_outputs);
  edge_list wanted;
  for (const auto& input : inputs) {
    if (!input.defined() || !input.requires_grad())
      throw std::runtime_error("One of the differentiated Tensors does not require grad");
    wanted.push_back(impl::gradient_edge(input));
  }
  variable_list result = Engine::get_default_engine().execute(
      roots_of(outputs), grads, retain_graph.value_or(create_graph), create_graph, /*accumulate_grad=*/false, wanted);
  if (!allow_unused) {
    for (const auto& r : result) {
      if (!r.defined()) {
        throw std::runtime_error(
            "One of the differentiated Tensors appears to not have been used in the graph. Set allow_unused=True if "
            "this is the desired behavior.");
      }
    }
  }
  return result;
}

// ---- IValue ----

double IValue::toDouble() const {
  if (isDouble())
    return std::get<double>(v_);
  throw std::runtime_error("Expected Double but got another type");
}
int64_t IValue::toInt() const {
  if (isInt())
    return std::get<int64_t>(v_);
  throw std::runtime_error("Expected Int but got another type");
}
bool IValue::toBool() const {
  if (isBool())
    return std::get<bool>(v_);
  throw std::runtime_error("Expected Bool but got another type");
}
const std::string& IValue::toStringRef() const {
  if (isString())
    return std::get<std::string>(v_);
  throw std::runtime_error("Expected String but got another type");
}
at::Tensor IValue::toTensor() const {
  if (isTensor())
    return std::get<at::Tensor>(v_);
  throw std::runtime_error("Expected Tensor but got another type");
}

// ---- AutogradContext ----

void AutogradContext::save_for_backward(variable_list to_save) {
  to_save_ = std::move(to_save);
}

variable_list AutogradContext::get_saved_variables() const {
  if (has_freed_buffers_)
    throw std::runtime_error(ERR_BACKWARD_TWICE);
  variable_list saved;
  auto fn = grad_fn_.lock();
  for (const auto& s : saved_variables_)
    saved.push_back(s.unpack(fn));
  return saved;
}

void AutogradContext::mark_non_differentiable(const variable_list& outputs) {
  for (const auto& o : outputs)
    non_differentiable_.push_back(o.unsafeGetTensorImpl());
}

void AutogradContext::set_materialize_grads(bool value) {
  materialize_grads_ = value;
}

bool AutogradContext::needs_input_grad(size_t index) const {
  auto fn = grad_fn_.lock();
  return fn && index < fn->num_outputs() && fn->task_should_compute_output(index);
}

// ---- CppNodeBase ----

void CppNodeBase::release_variables() {
  for (auto& s : ctx_.saved_variables_)
    s.reset_data();
  ctx_.has_freed_buffers_ = true;
}

void CppNodeBase::wrap_outputs(variable_list& outputs, bool is_executable) {
  for (const auto& out : outputs) {
    output_sizes_.push_back(out.defined() ? out.sizes().vec() : std::vector<int64_t>{});
    output_dtypes_.push_back(out.defined() ? out.dtype() : at::kFloat);
  }
  if (!is_executable) {
    ctx_.to_save_.clear();
    return;
  }
  auto self = shared_from_this();
  ctx_.grad_fn_ = self;
  for (auto& out : outputs) {
    const bool non_differentiable = !out.defined() || !at::isDifferentiableType(out.dtype()) ||
        std::find(ctx_.non_differentiable_.begin(), ctx_.non_differentiable_.end(), out.unsafeGetTensorImpl()) !=
            ctx_.non_differentiable_.end();
    if (non_differentiable) {
      add_input_metadata(undefined_input{});
      continue;
    }
    // A tensor that already has autograd metadata (an input returned as is, a
    // leaf) is not given this node's history: its alias is, as upstream makes
    // a view of an input returned unchanged.
    if (out.unsafeGetTensorImpl()->autograd_meta() != nullptr) {
      out = at::alias_with_sizes_and_strides(
          out, out.sizes(), out.strides(), out.unsafeGetTensorImpl()->storage_offset());
    }
    const auto nr = add_input_metadata(out);
    impl::set_gradient_edge(out, Edge(self, nr));
  }
  for (const auto& v : ctx_.to_save_) {
    bool is_output = false;
    for (const auto& out : outputs)
      is_output = is_output || (v.defined() && out.defined() && v.is_same(out));
    ctx_.saved_variables_.emplace_back(v, is_output && v.grad_fn() == self);
  }
  ctx_.to_save_.clear();
}

variable_list CppNodeBase::apply(variable_list&& grads) {
  for (size_t i = 0; i < grads.size(); ++i) {
    if (!grads[i].defined() && ctx_.materialize_grads_ && i < output_sizes_.size())
      grads[i] = at::zeros(output_sizes_[i], output_dtypes_[i]);
  }
  variable_list outputs = call_backward(std::move(grads));
  const size_t num_forward_inputs = is_variable_input_.size();
  if (outputs.size() > num_forward_inputs) {
    bool all_undefined = true;
    for (size_t i = num_forward_inputs; i < outputs.size(); ++i)
      all_undefined = all_undefined && !outputs[i].defined();
    if (all_undefined)
      outputs.resize(num_forward_inputs);
  }
  if (outputs.size() != num_forward_inputs) {
    throw std::runtime_error(
        "function " + name() + " returned an incorrect number of gradients (expected " +
        std::to_string(num_forward_inputs) + ", got " + std::to_string(outputs.size()) + ")");
  }
  variable_list results;
  for (size_t i = 0; i < num_forward_inputs; ++i) {
    if (!is_variable_input_[i]) {
      if (outputs[i].defined()) {
        // upstream's wording (custom_function.h), typo included
        throw std::runtime_error(
            "function " + name() + " returned a gradient different that is defined at position " +
            std::to_string(i + 1) + ", std the corresponding forward input is not a Variable");
      }
      continue;
    }
    results.push_back(std::move(outputs[i]));
  }
  return results;
}

namespace detail {
std::string demangled_name(const char* mangled) {
  int status = 0;
  char* name = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  if (status != 0 || name == nullptr)
    return mangled;
  std::string result(name);
  std::free(name);
  return result;
}
} // namespace detail

} // namespace autograd
} // namespace torch
