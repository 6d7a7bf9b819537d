#pragma once
// Node: a function of the backward graph (torch/csrc/autograd/function.h).
// Each Node takes the gradients of its forward outputs (its inputs here) and
// returns the gradients of its forward inputs (its outputs), which flow along
// next_edges_. See NOTE [ Topological Number ] below on topological_nr.
#include "autograd/anomaly_mode.h"
#include "autograd/edge.h"
#include "autograd/function_hook.h"
#include "autograd/input_metadata.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

namespace at {
namespace sequence_number {
// The thread-local counter that orders nodes by creation (see the Note
// [Sequence Numbers] below).
uint64_t peek();
uint64_t get_and_increment();
} // namespace sequence_number
} // namespace at

namespace torch {
namespace autograd {

using edge_list = std::vector<Edge>;

struct undefined_input {};

// Note [Sequence Numbers]
// Every Node takes a number from a thread-local counter when it is made, so a
// node made later in the forward pass has a larger number. The ready queue
// runs the largest first (CompareNodeTaskTime, torch/csrc/autograd/engine.h),
// which walks the graph in reverse creation order. AccumulateGrad uses
// UINT64_MAX so a leaf's gradient is written as soon as it is ready.
struct Node : std::enable_shared_from_this<Node> {
  explicit Node(uint64_t sequence_nr, edge_list&& next_edges = edge_list());
  explicit Node(edge_list&& next_edges = edge_list())
      : Node(at::sequence_number::get_and_increment(), std::move(next_edges)) {}

  Node(const Node&) = delete;
  Node(Node&&) = delete;
  Node& operator=(const Node&) = delete;
  Node& operator=(Node&&) = delete;
  virtual ~Node() = default;

  std::shared_ptr<Node> getptr() {
    return shared_from_this();
  }

  // Evaluates the function on the given inputs and returns its outputs.
  variable_list operator()(variable_list&& inputs);

  // Input metadata -----------------------------------------------------------
  uint32_t add_input_metadata(const InputMetadata& meta) noexcept {
    input_metadata_.push_back(meta);
    return static_cast<uint32_t>(input_metadata_.size() - 1);
  }
  uint32_t add_input_metadata(const Variable& t) {
    input_metadata_.emplace_back(t);
    return static_cast<uint32_t>(input_metadata_.size() - 1);
  }
  // A placeholder for an input whose gradient is always undefined.
  uint32_t add_input_metadata(undefined_input) noexcept {
    input_metadata_.emplace_back();
    return static_cast<uint32_t>(input_metadata_.size() - 1);
  }
  uint32_t num_inputs() const noexcept {
    return static_cast<uint32_t>(input_metadata_.size());
  }
  const InputMetadata& input_metadata(size_t index) const {
    return input_metadata_.at(index);
  }

  // The stream this node's backward runs on: its forward's stream on the
  // first accelerator device among its inputs; nullopt for CPU-only nodes.
  std::optional<c10::Stream> stream() const;

  // Outputs ("Next Edges") ------------------------------------------------------
  void update_topological_nr(const Edge& edge);
  void set_next_edge(size_t index, Edge edge) {
    update_topological_nr(edge);
    next_edges_.at(index) = std::move(edge);
  }
  void add_next_edge(Edge edge) {
    update_topological_nr(edge);
    next_edges_.emplace_back(std::move(edge));
  }
  void set_next_edges(edge_list&& next_edges) {
    next_edges_ = std::move(next_edges);
    for (const auto& e : next_edges_)
      update_topological_nr(e);
  }
  const Edge& next_edge(size_t index) const noexcept {
    return next_edges_[index];
  }
  const edge_list& next_edges() const noexcept {
    return next_edges_;
  }
  edge_list& next_edges() noexcept {
    return next_edges_;
  }
  uint32_t num_outputs() const noexcept {
    return static_cast<uint32_t>(next_edges_.size());
  }

  // Miscellaneous ----------------------------------------------------------------
  uint64_t sequence_nr() const noexcept {
    return sequence_nr_;
  }

  // NOTE [ Topological Number ] (torch/csrc/autograd/function.h)
  // topological_nr is the length of the longest path from this node to any
  // leaf (AccumulateGrad is 0). A path X -> Y implies topo(X) > topo(Y), so
  // topo(X) <= topo(Y) proves there is no path and lets compute_dependencies
  // and init_to_execute prune whole branches. The number must not change once
  // some node points at this one: reading it marks has_parent_, and
  // update_topological_nr refuses to change it afterwards.
  uint64_t topological_nr() const noexcept {
    has_parent_.store(true, std::memory_order_relaxed);
    return topological_nr_;
  }

  // Records the node being evaluated on this thread as this node's parent.
  void assign_parent();
  uint64_t thread_id() const noexcept {
    return thread_id_;
  }

  // The demangled C++ type name unless a subclass says otherwise.
  virtual std::string name() const;

  // Whether the output at `output_edge_index` leads anywhere.
  bool should_compute_output(size_t output_edge_index) const;
  // Same, and the current graph task will execute that edge (grad() with
  // inputs prunes the rest).
  bool task_should_compute_output(size_t output_edge_index) const;

  AnomalyMetadata* metadata() noexcept;

  // Hooks ----------------------------------------------------------------------
  // Note [Hook lists and threads]
  // Hooks are added and removed (under the GIL) while an engine thread may be
  // running this node without the GIL. The lists are therefore one immutable
  // snapshot, replaced under a lock by every change; the engine takes
  // the snapshot once per run of the node (hooks()) and calls the hooks
  // without any lock, so a hook may itself add or remove hooks (they take
  // effect the next time the node runs). has_hooks_ lets the engine skip the
  // lock for the common node without hooks.
  struct Hooks {
    // Hooks on the tensors whose gradient this node receives; they run
    // before ordinary pre-hooks.
    std::vector<std::shared_ptr<FunctionPreHook>> tensor_pre_hooks;
    // At most one retains-grad hook per output; they run after the tensor pre-hooks.
    std::unordered_map<size_t, std::shared_ptr<FunctionPreHook>> retains_grad_hooks;
    std::vector<std::shared_ptr<FunctionPreHook>> pre_hooks;
    std::vector<std::shared_ptr<FunctionPostHook>> post_hooks;
  };
  // The current hooks; null when the node has none.
  std::shared_ptr<const Hooks> hooks() const;

  uintptr_t add_post_hook(std::unique_ptr<FunctionPostHook>&& post_hook);
  bool del_post_hook(const uintptr_t& key);
  void add_pre_hook(std::unique_ptr<FunctionPreHook>&& pre_hook);
  void add_tensor_pre_hook(std::unique_ptr<FunctionPreHook>&& pre_hook);
  void add_retains_grad_hook(std::shared_ptr<FunctionPreHook> pre_hook, size_t output_idx);
  std::shared_ptr<FunctionPreHook> pop_retains_grad_hook(size_t output_idx);

  virtual std::unique_ptr<PostAccumulateGradHook>& tensor_post_acc_grad_hooks() const noexcept;

  // Customization points ---------------------------------------------------------
  // Frees saved variables once the graph will not be run again.
  virtual void release_variables() {}
  // Called before apply() when the saved variables will be released after it,
  // so apply may steal them.
  virtual void will_release_variables() {}

  // Lock for nodes whose apply touches shared state; see Note [Thread Safety
  // on Autograd Node].
  virtual std::mutex& mutex();

  // Opaque slot for a Python object owned by the binding.
  void* pyobj() const noexcept {
    return pyobj_;
  }
  void set_pyobj(void* p) noexcept {
    pyobj_ = p;
  }

 private:
  // Replaces the hooks snapshot by a changed copy (Note [Hook lists and threads]).
  template <typename Change>
  void update_hooks(Change&& change);

 protected:
  virtual variable_list apply(variable_list&& inputs) = 0;

  uint64_t sequence_nr_;
  uint64_t topological_nr_ = 0;
  // Atomic: several threads may run backward over one graph at once.
  mutable std::atomic<bool> has_parent_{false};
  // See Note [Hook lists and threads] (beside has_parent_: one word for both).
  std::atomic<bool> has_hooks_{false};
  uint64_t thread_id_ = 0;

  // Note [Thread Safety on Autograd Node]
  // The engine may run one node from several threads at once (backward on a
  // shared graph with keep_graph). Nodes whose apply mutates state take
  // mutex(); hooks are the user's to make thread-safe. Upstream keeps a mutex
  // in every node; here AccumulateGrad, the node that locks in apply, has its
  // own, and any other node's mutex() is one of a fixed set picked by its
  // address, which saves 40 bytes per node of a graph.

  edge_list next_edges_;
  void* pyobj_ = nullptr;
  std::unique_ptr<AnomalyMetadata> anomaly_metadata_ = nullptr;
  std::shared_ptr<const Hooks> hooks_;
  // One inline: nearly every node has one input (upstream keeps two).
  c10::SmallVector<InputMetadata, 1> input_metadata_;
};

// Note [Deleting a long graph]
// Destroying the last reference to the head of a 1,000,000-node chain would
// destroy each next node from the previous one's destructor and overflow the
// stack. upstream owns nodes with deleteNode as the shared_ptr deleter; here
// make_node allocates node and reference counts in one block
// (std::allocate_shared) and NodeAllocator's destroy, which the shared_ptr
// calls in place of the destructor, does deleteNode's work: it moves
// uniquely-owned next nodes onto an explicit stack and destroys them in a loop.
void deleteNode(Node* function) noexcept;

template <typename T>
struct NodeAllocator {
  using value_type = T;
  NodeAllocator() = default;
  template <typename U>
  NodeAllocator(const NodeAllocator<U>&) noexcept {} // NOLINT(google-explicit-constructor): rebinding
  T* allocate(size_t n) {
    return std::allocator<T>().allocate(n);
  }
  void deallocate(T* p, size_t n) noexcept {
    std::allocator<T>().deallocate(p, n);
  }
  template <typename U>
  void destroy(U* p) noexcept {
    if constexpr (std::is_base_of_v<Node, U>)
      deleteNode(p);
    else
      p->~U();
  }
  template <typename U>
  bool operator==(const NodeAllocator<U>&) const noexcept {
    return true;
  }
  template <typename U>
  bool operator!=(const NodeAllocator<U>&) const noexcept {
    return false;
  }
};

// Makes a node destroyed through deleteNode; use for every node of a graph.
template <typename T, typename... Args>
std::shared_ptr<T> make_node(Args&&... args) {
  return std::allocate_shared<T>(NodeAllocator<T>(), std::forward<Args>(args)...);
}

// The edges a new node should point at: the gradient edge of each variable.
edge_list collect_next_edges(const variable_list& variables);
// Makes `function` the grad_fn of `variable` at a new input slot of it.
void create_gradient_edge(Variable& variable, std::shared_ptr<Node> function);

// The node being evaluated by the engine on this thread (null outside).
std::shared_ptr<Node> get_current_node();

} // namespace autograd
} // namespace torch
