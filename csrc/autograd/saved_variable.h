#pragma once
// A variable saved in the forward pass for use in backward
// (torch/csrc/autograd/saved_variable.h). It records the version it was saved
// at; unpack() refuses a variable modified in place since, and refuses after
// release() (the graph was freed by a backward without keep_graph).
#include "autograd/variable.h"

#include <memory>
#include <string>

namespace torch {
namespace autograd {

extern const char* ERR_BACKWARD_TWICE;

// The forward op's name in PyTorch's messages: "MulBackward0" -> "Mul".
std::string forward_name(const std::string& node_name);

struct SavedVariable {
  SavedVariable() = default;
  SavedVariable(const Variable& variable, bool is_output, bool is_inplace_on_view = false);
  SavedVariable(SavedVariable&&) = default;
  SavedVariable& operator=(SavedVariable&&) = default;

  // `saved_for` is the node this variable was saved for; it stands in as the
  // grad_fn of an output variable (which is not stored, to avoid a cycle).
  Variable unpack(std::shared_ptr<Node> saved_for = nullptr) const;

  // A variable packed by saved_tensors_hooks keeps no data here, only its
  // place in the graph; unpack_packed gives that place to the tensor the
  // unpack hook returns (upstream save_metadata and unpack with hooks_), so a
  // hook that detaches (checkpoint) still lets create_graph differentiate
  // through the original history.
  static SavedVariable metadata_of(const Variable& variable, bool is_output);
  Variable unpack_packed(const Variable& data, std::shared_ptr<Node> saved_for) const;
  void reset_data();
  bool has_been_released() const {
    return !was_default_constructed_ && !data_.defined();
  }

 private:
  // The original variable when it cannot form a cycle (leaf, or not an
  // output of the saving node); otherwise its data without autograd meta.
  Variable data_;
  std::weak_ptr<Node> weak_grad_fn_;
  // Metadata of a packed variable (metadata_of).
  std::shared_ptr<Node> grad_fn_;
  std::weak_ptr<Node> grad_accumulator_;
  bool requires_grad_ = false;
  uint32_t saved_version_ = 0;
  uint32_t output_nr_ = 0;
  bool was_default_constructed_ = true;
  bool is_inplace_on_view_ = false;
  bool saved_original_ = false;
  bool is_leaf_ = false;
};

} // namespace autograd
} // namespace torch
