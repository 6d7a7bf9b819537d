// Deep graphs: a 1,000,000-node chain runs backward and grad() and is then
// destroyed without recursion (Note [Deleting a long graph]); dependencies
// and init_to_execute are iterative too.
#include "test_utils.h"

#include <gtest/gtest.h>

using namespace torchlite_test;

namespace {

constexpr int kChain = 1000000;

// A pass-through node without a std::function, to keep a million of them small.
struct PassBackward : public Node {
  explicit PassBackward(edge_list next) : Node(std::move(next)) {}
  variable_list apply(variable_list&& grads) override {
    return std::move(grads);
  }
};

Variable chain(const Variable& x, int n) {
  Edge edge = impl::gradient_edge(x);
  std::shared_ptr<Node> last;
  for (int i = 0; i < n; ++i) {
    auto node = make_node<PassBackward>(edge_list{edge});
    node->add_input_metadata(x);
    edge = Edge(node, 0);
    last = std::move(node);
  }
  Variable out = at::zeros_like(x);
  impl::set_gradient_edge(out, edge);
  return out;
}

} // namespace

TEST(DeepGraph, MillionNodeChainBackwardAndTeardown) {
  auto x = leaf({1.0, 2.0});
  std::weak_ptr<Node> head;
  {
    auto y = chain(x, kChain);
    head = y.grad_fn();
    EXPECT_EQ(y.grad_fn()->topological_nr(), static_cast<uint64_t>(kChain));
    run_backward({y}, {value({1.0, 1.0})}, /*keep_graph=*/true);
    EXPECT_EQ(vals(x.grad()), (std::vector<double>{1.0, 1.0}));
    auto grads = run_grad({y}, {value({2.0, 3.0})}, {x});
    EXPECT_EQ(vals(grads[0]), (std::vector<double>{2.0, 3.0}));
  }
  // Dropping y destroyed the whole chain (a recursive destructor would have
  // overflowed the stack long before this).
  EXPECT_TRUE(head.expired());
}

TEST(DeepGraph, DeletingAChainSharedWithAnotherGraphKeepsTheSharedPart) {
  auto x = leaf({1.0});
  auto base = chain(x, 1000);
  std::weak_ptr<Node> shared_node = base.grad_fn();
  {
    auto y = scaled({base}, 2.0);
    auto z = scaled({base}, 3.0);
    y = Variable();
    EXPECT_FALSE(shared_node.expired());
    run_backward({z}, {value({1.0})});
  }
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{3.0}));
  EXPECT_FALSE(shared_node.expired());
  base = Variable();
  EXPECT_TRUE(shared_node.expired());
}
