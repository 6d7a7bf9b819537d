#pragma once
#include <cstdint>
#include <functional>
#include <memory>

namespace torch {
namespace autograd {

struct Node;

// The identification of one input of a Node: the function the gradient flows
// into and which of its inputs it is (torch/csrc/autograd/edge.h).
struct Edge {
  Edge() noexcept : function(nullptr), input_nr(0) {}
  Edge(std::shared_ptr<Node> function_, uint32_t input_nr_) noexcept
      : function(std::move(function_)), input_nr(input_nr_) {}

  bool is_valid() const noexcept {
    return function != nullptr;
  }
  bool operator==(const Edge& other) const noexcept {
    return function == other.function && input_nr == other.input_nr;
  }
  bool operator!=(const Edge& other) const noexcept {
    return !(*this == other);
  }

  std::shared_ptr<Node> function;
  uint32_t input_nr;
};

} // namespace autograd
} // namespace torch

namespace std {
template <>
struct hash<torch::autograd::Edge> {
  size_t operator()(const torch::autograd::Edge& e) const noexcept {
    return std::hash<void*>()(e.function.get()) ^ (std::hash<uint32_t>()(e.input_nr) << 1);
  }
};
} // namespace std
