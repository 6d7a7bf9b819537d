#pragma once
// Nodes and tensors the C++ tests build graphs from.
#include "aten/Functions.h"
#include "autograd/cpp_hook.h"
#include "autograd/engine.h"
#include "autograd/function.h"
#include "autograd/functions/accumulate_grad.h"
#include "autograd/functions/basic_ops.h"
#include "autograd/variable.h"

#include <functional>
#include <string>
#include <vector>

namespace torchlite_test {

using namespace torch::autograd;

// A node whose backward is a lambda; `num_inputs` gradient slots shaped like
// `meta`, next edges as given.
struct FnNode : public Node {
  using Fn = std::function<variable_list(variable_list&&)>;
  FnNode(std::string name, Fn fn, edge_list next = {})
      : Node(std::move(next)), name_(std::move(name)), fn_(std::move(fn)) {}
  FnNode(uint64_t seq, std::string name, Fn fn, edge_list next = {})
      : Node(seq, std::move(next)), name_(std::move(name)), fn_(std::move(fn)) {}
  std::string name() const override {
    return name_;
  }
  variable_list apply(variable_list&& inputs) override {
    return fn_(std::move(inputs));
  }
  std::string name_;
  Fn fn_;
};

// The forward output of `node`: a tensor shaped like `like` whose grad_fn is `node`.
inline Variable output_of(std::shared_ptr<Node> node, const Variable& like) {
  Variable out = at::zeros_like(like);
  create_gradient_edge(out, std::move(node));
  return out;
}

inline Variable leaf(
    const std::vector<double>& values,
    std::vector<int64_t> shape = {},
    at::ScalarType dtype = at::kFloat,
    c10::Device device = c10::Device()) {
  if (shape.empty() && values.size() != 1)
    shape = {static_cast<int64_t>(values.size())};
  return make_variable(at::tensor(values, shape, dtype, device), /*requires_grad=*/true);
}

inline Variable value(
    const std::vector<double>& values,
    std::vector<int64_t> shape = {},
    at::ScalarType dtype = at::kFloat,
    c10::Device device = c10::Device()) {
  if (shape.empty() && values.size() != 1)
    shape = {static_cast<int64_t>(values.size())};
  return at::tensor(values, shape, dtype, device);
}

// Makes `out` the output of a node that scales the gradient of each input by
// `factor`: a forward `out = factor * sum(inputs)` for same-shaped inputs.
inline Variable scaled(
    const variable_list& inputs,
    double factor,
    const std::string& name = "ScaleBackward",
    std::vector<std::string>* trace = nullptr) {
  auto node = make_node<FnNode>(
      name,
      [factor, n = inputs.size(), trace, name](variable_list&& g) {
        if (trace)
          trace->push_back(name);
        variable_list out;
        for (size_t i = 0; i < n; ++i)
          out.push_back(at::mul(g[0], factor));
        return out;
      },
      collect_next_edges(inputs));
  return output_of(node, inputs[0]);
}

inline variable_list run_backward(
    const variable_list& roots,
    const variable_list& grads,
    bool keep_graph = false,
    bool create_graph = false) {
  edge_list edges;
  for (const auto& r : roots)
    edges.push_back(impl::gradient_edge(r));
  return Engine::get_default_engine().execute(
      edges,
      grads,
      keep_graph,
      create_graph,
      /*accumulate_grad=*/true);
}

inline variable_list run_grad(
    const variable_list& roots,
    const variable_list& grads,
    const variable_list& inputs,
    bool keep_graph = false) {
  edge_list edges, outs;
  for (const auto& r : roots)
    edges.push_back(impl::gradient_edge(r));
  for (const auto& i : inputs)
    outs.push_back(impl::gradient_edge(i));
  return Engine::get_default_engine().execute(
      edges,
      grads,
      keep_graph,
      false,
      /*accumulate_grad=*/false,
      outs);
}

inline std::vector<double> vals(const Variable& v) {
  return v.to_vector();
}

} // namespace torchlite_test
