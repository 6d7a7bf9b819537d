#pragma once
// Nodes the engine and bindings use directly (torch/csrc/autograd/functions/basic_ops.h).
#include "autograd/function.h"

#include <string>

namespace torch {
namespace autograd {

// Always raises: stands in where a gradient must not be computed.
struct Error : public Node {
  Error(std::string msg, edge_list&& next_edges) : Node(std::move(next_edges)), msg(std::move(msg)) {}
  explicit Error(std::string msg) : msg(std::move(msg)) {}
  variable_list apply(variable_list&& inputs) override;
  std::string msg;
};

// Passes its gradients through unchanged; gives grad() an edge to capture
// for an input that has neither grad_fn nor accumulator.
struct Identity : public Node {
  variable_list apply(variable_list&& inputs) override;
};

// The root of a backward with several roots: its "gradient inputs" are the
// root gradients, its next edges the roots
// (torch/csrc/autograd/functions/basic_ops.h).
struct GraphRoot : public Node {
  GraphRoot(edge_list functions, variable_list inputs) : Node(std::move(functions)), outputs(std::move(inputs)) {
    // stream() on a GraphRoot reflects the current streams of the root
    // gradients' devices at construction.
    for (const auto& t : outputs) {
      if (t.defined())
        add_input_metadata(t);
    }
  }
  variable_list apply(variable_list&& inputs) override {
    (void)inputs;
    return outputs;
  }
  variable_list outputs;
};

} // namespace autograd
} // namespace torch
