#include "autograd/graph_task_state.h"

#include <algorithm>
#include <mutex>
#include <stdexcept>
#include <unordered_set>

namespace torch {
namespace autograd {

GraphTaskState get_current_graph_task_state() {
  std::shared_ptr<GraphTask> task = get_current_graph_task();
  if (!task)
    throw std::runtime_error("_current_graph_task_state should only be called during the backward pass");
  GraphTaskState state;
  state.id = task->id_;
  state.reentrant_depth = task->reentrant_depth_;
  state.keep_graph = task->keep_graph_;
  state.exec_info_empty = task->exec_info_.empty();
  state.has_error = task->has_error_.load();
  state.outstanding_tasks = task->outstanding_tasks_.load();
  // The queues this task's nodes can wait in.
  std::vector<std::shared_ptr<ReadyQueue>> queues{task->cpu_ready_queue_};
  for (const auto& q : Engine::get_default_engine().started_device_ready_queues())
    queues.push_back(q);

  std::lock_guard<std::mutex> lock(task->mutex_);
  const std::shared_ptr<Node> running = get_current_node();
  std::unordered_set<Node*> queued;
  for (const auto& q : queues) {
    for (Node* n : q->queued_nodes(task.get()))
      queued.insert(n);
  }
  // Roots first, then the reached nodes in a stable order (by sequence_nr, latest first).
  std::vector<Node*> nodes(task->graph_roots_.begin(), task->graph_roots_.end());
  std::vector<Node*> reached;
  for (Node* n : task->nodes_in_graph_) {
    if (std::find(nodes.begin(), nodes.end(), n) == nodes.end())
      reached.push_back(n);
  }
  std::sort(reached.begin(), reached.end(), [](Node* a, Node* b) {
    return a->sequence_nr() != b->sequence_nr() ? a->sequence_nr() > b->sequence_nr() : a->name() < b->name();
  });
  nodes.insert(nodes.end(), reached.begin(), reached.end());
  for (Node* n : task->graph_roots_)
    state.roots.push_back(n->getptr());
  for (Node* n : nodes) {
    GraphTaskState::NodeState ns;
    ns.node = n->getptr();
    auto dep = task->dependencies_.find(n);
    ns.dependencies = dep == task->dependencies_.end() ? 0 : dep->second;
    auto info = task->exec_info_.find(n);
    const bool will_execute =
        state.exec_info_empty || (info != task->exec_info_.end() && info->second.should_execute());
    if (info != task->exec_info_.end()) {
      ns.needed = info->second.needed_;
      ns.captured = info->second.captures_ != nullptr;
    }
    auto buffer = task->not_ready_.find(n);
    if (buffer != task->not_ready_.end()) {
      for (const auto& var : buffer->second.buffer)
        ns.not_ready_slots.push_back(var.defined());
    }
    if (n == running.get()) {
      ns.status = "running";
    } else if (queued.count(n)) {
      ns.status = "queued";
    } else if (!will_execute) {
      ns.status = "not needed";
    } else if (ns.dependencies > 0) {
      ns.status = "waiting";
    } else {
      ns.status = "done";
    }
    state.nodes.push_back(std::move(ns));
  }
  return state;
}

} // namespace autograd
} // namespace torch
