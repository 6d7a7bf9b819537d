#include "autograd/function.h"
#include "autograd/engine.h"
#include "autograd/graph_task.h"
#include "autograd/variable.h"

#include <cxxabi.h>
#include <cstdlib>
#include <functional>
#include <stdexcept>
#include <thread>

namespace at {
namespace sequence_number {
namespace {
thread_local uint64_t sequence_nr_ = 0;
} // namespace
uint64_t peek() {
  return sequence_nr_;
}
uint64_t get_and_increment() {
  return sequence_nr_++;
}
} // namespace sequence_number
} // namespace at

namespace torch {
namespace autograd {

namespace {
uint64_t current_thread_id() {
  return std::hash<std::thread::id>()(std::this_thread::get_id());
}
} // namespace

Node::Node(uint64_t sequence_nr, edge_list&& next_edges)
    : sequence_nr_(sequence_nr), next_edges_(std::move(next_edges)) {
  for (const Edge& edge : next_edges_)
    update_topological_nr(edge);
  if (AnomalyMode::is_enabled()) {
    metadata()->store_stack();
    // A node created while another is being evaluated (reentrant or double
    // backward) remembers it, so anomaly reports can walk up the chain.
    assign_parent();
  }
  thread_id_ = current_thread_id();
}

variable_list Node::operator()(variable_list&& inputs) {
  return apply(std::move(inputs));
}

std::optional<c10::Stream> Node::stream() const {
  for (const auto& metadata : input_metadata_) {
    if (c10::isAccelerator(metadata.device().type()))
      return metadata.stream();
  }
  return std::nullopt;
}

void Node::update_topological_nr(const Edge& edge) {
  if (has_parent_) {
    throw std::logic_error(
        "Cannot update a node's topological_nr after it already has a parent."
        " If we allow this, we can no longer guarantee that a parent's"
        " topo_nr is always greater than those of all its children");
  }
  Node* node = edge.function.get();
  if (node) {
    auto topo_nr = node->topological_nr();
    if (topological_nr_ <= topo_nr)
      topological_nr_ = topo_nr + 1;
  }
}

void Node::assign_parent() {
  metadata()->assign_parent(get_current_node());
}

std::string Node::name() const {
  const char* mangled = typeid(*this).name();
  int status = 0;
  char* demangled = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string result = (status == 0 && demangled) ? demangled : mangled;
  std::free(demangled);
  return result;
}

bool Node::should_compute_output(size_t output_edge_index) const {
  if (output_edge_index >= num_outputs())
    throw std::out_of_range("Index out of range");
  return next_edges_[output_edge_index].is_valid();
}

bool Node::task_should_compute_output(size_t output_edge_index) const {
  if (output_edge_index >= num_outputs())
    throw std::out_of_range("Index out of range");
  const auto& next = next_edges_[output_edge_index];
  if (!next.is_valid())
    return false;
  const auto* exec_info = get_current_graph_task_exec_info();
  if (exec_info && !exec_info->empty()) {
    auto it = exec_info->find(next.function.get());
    if (it == exec_info->end() || !it->second.should_execute())
      return false;
  }
  return true;
}

AnomalyMetadata* Node::metadata() noexcept {
  if (!anomaly_metadata_)
    anomaly_metadata_ = Engine::get_default_engine().make_anomaly_metadata();
  return anomaly_metadata_.get();
}

namespace {
// One of a fixed set of mutexes, picked by the node's address, rather than a
// mutex in every node. Each use has its own set (Pool), so that a node's
// hooks lock and its apply lock never alias.
enum class Pool { Hooks, Apply };
template <Pool>
std::mutex& striped_mutex(const Node* node) {
  static std::mutex mutexes[32];
  return mutexes[(reinterpret_cast<uintptr_t>(node) >> 6) % 32];
}
} // namespace

std::mutex& Node::mutex() {
  return striped_mutex<Pool::Apply>(this);
}

std::shared_ptr<const Node::Hooks> Node::hooks() const {
  if (!has_hooks_.load(std::memory_order_acquire))
    return nullptr;
  std::lock_guard<std::mutex> lock(striped_mutex<Pool::Hooks>(this));
  return hooks_;
}

template <typename Change>
void Node::update_hooks(Change&& change) {
  // The replaced snapshot is dropped after the lock: the last reference to a
  // removed hook may run Python code that changes other nodes' hooks.
  std::shared_ptr<const Hooks> replaced;
  std::lock_guard<std::mutex> lock(striped_mutex<Pool::Hooks>(this));
  auto updated = hooks_ ? std::make_shared<Hooks>(*hooks_) : std::make_shared<Hooks>();
  change(*updated);
  const bool any = !updated->tensor_pre_hooks.empty() || !updated->retains_grad_hooks.empty() ||
      !updated->pre_hooks.empty() || !updated->post_hooks.empty();
  replaced = std::move(hooks_);
  hooks_ = any ? std::shared_ptr<const Hooks>(std::move(updated)) : nullptr;
  has_hooks_.store(any, std::memory_order_release);
}

uintptr_t Node::add_post_hook(std::unique_ptr<FunctionPostHook>&& post_hook) {
  const auto key = reinterpret_cast<uintptr_t>(post_hook.get());
  std::shared_ptr<FunctionPostHook> hook = std::move(post_hook);
  update_hooks([&](Hooks& h) { h.post_hooks.push_back(std::move(hook)); });
  return key;
}

bool Node::del_post_hook(const uintptr_t& key) {
  bool found = false;
  update_hooks([&](Hooks& h) {
    for (auto it = h.post_hooks.begin(); it != h.post_hooks.end(); ++it) {
      if (key == reinterpret_cast<uintptr_t>(it->get())) {
        h.post_hooks.erase(it);
        found = true;
        return;
      }
    }
  });
  return found;
}

void Node::add_pre_hook(std::unique_ptr<FunctionPreHook>&& pre_hook) {
  std::shared_ptr<FunctionPreHook> hook = std::move(pre_hook);
  update_hooks([&](Hooks& h) { h.pre_hooks.push_back(std::move(hook)); });
}

void Node::add_tensor_pre_hook(std::unique_ptr<FunctionPreHook>&& pre_hook) {
  std::shared_ptr<FunctionPreHook> hook = std::move(pre_hook);
  update_hooks([&](Hooks& h) { h.tensor_pre_hooks.push_back(std::move(hook)); });
}

void Node::add_retains_grad_hook(std::shared_ptr<FunctionPreHook> pre_hook, size_t output_idx) {
  update_hooks([&](Hooks& h) { h.retains_grad_hooks[output_idx] = std::move(pre_hook); });
}

std::shared_ptr<FunctionPreHook> Node::pop_retains_grad_hook(size_t output_idx) {
  std::shared_ptr<FunctionPreHook> ret;
  update_hooks([&](Hooks& h) {
    auto it = h.retains_grad_hooks.find(output_idx);
    if (it == h.retains_grad_hooks.end())
      return;
    ret = std::move(it->second);
    h.retains_grad_hooks.erase(it);
  });
  return ret;
}

std::unique_ptr<PostAccumulateGradHook>& Node::tensor_post_acc_grad_hooks() const noexcept {
  static std::unique_ptr<PostAccumulateGradHook> empty = nullptr;
  return empty;
}

namespace {
// Moves out every next node this node owns alone; shared ones just lose a reference.
void gatherFunctions(Node* func, std::vector<std::shared_ptr<Node>>& stack) {
  func->release_variables();
  for (auto& edge : func->next_edges()) {
    if (edge.function.use_count() == 1) {
      stack.emplace_back(std::move(edge.function));
    } else {
      edge.function.reset();
    }
  }
}
} // namespace

// Destroys the node in place (its memory goes with its control block).
void deleteNode(Node* function) noexcept {
  std::vector<std::shared_ptr<Node>> stack;
  gatherFunctions(function, stack);
  function->~Node();
  while (!stack.empty()) {
    auto func = std::move(stack.back());
    stack.pop_back();
    gatherFunctions(func.get(), stack);
    // func's last reference drops here, after its children were moved out.
  }
}

edge_list collect_next_edges(const variable_list& variables) {
  edge_list edges;
  edges.reserve(variables.size());
  for (const auto& v : variables) {
    edges.push_back(v.defined() ? impl::gradient_edge(v) : Edge());
  }
  return edges;
}

void create_gradient_edge(Variable& variable, std::shared_ptr<Node> function) {
  // upstream set_history: only floating point results can have a history
  if (!at::isDifferentiableType(variable.scalar_type())) {
    throw std::runtime_error(std::string("Autograd not support dtype: ") + at::toString(variable.scalar_type()));
  }
  const auto input_nr = function->add_input_metadata(variable);
  impl::set_gradient_edge(variable, Edge(std::move(function), input_nr));
}

} // namespace autograd
} // namespace torch
