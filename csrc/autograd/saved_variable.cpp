#include "autograd/saved_variable.h"
#include "autograd/anomaly_mode.h"
#include "autograd/function.h"

#include <sstream>
#include <stdexcept>

namespace torch {
namespace autograd {

const char* ERR_BACKWARD_TWICE =
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward.";

// The forward op behind a backward node's name, as PyTorch names it in its
// messages: a trailing "Backward0" goes, otherwise only "Backward" does
// ("MulBackward0" -> "Mul", "PowBackward1" -> "Pow1", "FBackward" -> "F").
std::string forward_name(const std::string& node_name) {
  static const std::string suffix0 = "Backward0";
  if (node_name.size() > suffix0.size() &&
      node_name.compare(node_name.size() - suffix0.size(), suffix0.size(), suffix0) == 0) {
    return node_name.substr(0, node_name.size() - suffix0.size());
  }
  const auto pos = node_name.rfind("Backward");
  if (pos == std::string::npos || pos == 0)
    return node_name;
  return node_name.substr(0, pos) + node_name.substr(pos + 8);
}

namespace {
void check_not_inference(const Variable& variable) {
  if (variable.unsafeGetTensorImpl()->is_inference()) {
    throw std::runtime_error(
        "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode in "
        "computation tracked by autograd. To work around this, you can make a clone to get a normal tensor and use "
        "it in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`.");
  }
}
} // namespace

SavedVariable SavedVariable::metadata_of(const Variable& variable, bool is_output) {
  SavedVariable saved;
  if (!variable.defined())
    return saved;
  check_not_inference(variable);
  saved.was_default_constructed_ = false;
  saved.is_leaf_ = variable.is_leaf();
  saved.output_nr_ = variable.output_nr();
  saved.requires_grad_ = variable.requires_grad();
  // An output's grad_fn is the saving node: it is passed back as saved_for.
  if (!is_output && !saved.is_leaf_)
    saved.grad_fn_ = variable.grad_fn();
  if (saved.is_leaf_ && saved.requires_grad_)
    saved.grad_accumulator_ = impl::grad_accumulator(variable);
  return saved;
}

Variable SavedVariable::unpack_packed(const Variable& data, std::shared_ptr<Node> saved_for) const {
  auto grad_fn = grad_fn_;
  if (!is_leaf_ && !grad_fn) {
    if (!saved_for)
      throw std::logic_error("No grad_fn for non-leaf saved tensor");
    grad_fn = std::move(saved_for);
  }
  if (!grad_fn && !requires_grad_ && !data.requires_grad())
    return data; // nothing to attach
  Variable var =
      grad_fn ? make_variable(data, Edge(std::move(grad_fn), output_nr_)) : make_variable(data, requires_grad_);
  if (!grad_fn)
    impl::set_grad_accumulator(var, grad_accumulator_);
  return var;
}

SavedVariable::SavedVariable(const Variable& variable, bool is_output, bool is_inplace_on_view) {
  if (!variable.defined())
    return;
  check_not_inference(variable);
  was_default_constructed_ = false;
  saved_version_ = static_cast<uint32_t>(variable._version());
  is_leaf_ = variable.is_leaf();
  is_inplace_on_view_ = is_inplace_on_view;
  output_nr_ = variable.output_nr();
  if (is_inplace_on_view)
    weak_grad_fn_ = variable.grad_fn();

  // A leaf, or a variable that is not an output of the saving node, can be
  // kept as it is: no reference cycle through grad_fn is possible.
  if (!is_output || is_leaf_) {
    saved_original_ = true;
    data_ = variable;
    return;
  }
  // A non-leaf output's grad_fn is the saving node itself: keep only its data
  // and rebuild the variable on unpack.
  data_ = variable.tensor_data();
}

Variable SavedVariable::unpack(std::shared_ptr<Node> saved_for) const {
  if (was_default_constructed_)
    return Variable();
  if (!data_.defined())
    throw std::runtime_error(ERR_BACKWARD_TWICE);

  // grad_fn gives the most helpful message if the versions do not match.
  auto grad_fn = is_inplace_on_view_ ? weak_grad_fn_.lock() : (saved_original_ ? data_.grad_fn() : nullptr);
  if (!is_leaf_ && !grad_fn) {
    if (!saved_for)
      throw std::logic_error("No grad_fn for non-leaf saved tensor");
    grad_fn = std::move(saved_for);
  }

  const auto current_version = data_._version();
  if (saved_version_ != current_version) {
    std::stringstream message;
    message << "one of the variables needed for gradient computation has been "
               "modified by an inplace operation: ["
            << data_.toString() << " " << at::sizes_to_string(data_.sizes()) << "]";
    if (grad_fn) {
      message << ", which is output " << output_nr_ << " of " << forward_name(grad_fn->name()) << ",";
    }
    message << " is at version " << current_version << "; expected version " << saved_version_ << " instead.";
    if (!AnomalyMode::is_enabled()) {
      message << " Hint: enable anomaly detection to find the operation that failed to compute "
                 "its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).";
    } else {
      message << " Hint: the backtrace further above shows the operation that failed to compute "
                 "its gradient. The variable in question was changed in there or anywhere later. "
                 "Good luck!";
    }
    throw std::runtime_error(message.str());
  }

  if (saved_original_)
    return data_;

  // Rebuild the output variable (never a leaf, so grad_fn is set above): same
  // storage and version counter, with the saving node as grad_fn.
  return make_variable(data_, Edge(std::move(grad_fn), output_nr_));
}

void SavedVariable::reset_data() {
  data_.reset();
  weak_grad_fn_.reset();
  grad_fn_.reset();
}

} // namespace autograd
} // namespace torch
