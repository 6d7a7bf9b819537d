#pragma once
// The state of a running GraphTask, copied for the graph pictures and the
// engine trace tools (torchlite's own introspection; PyTorch exposes only
// _current_graph_task_execution_order and _current_graph_task_id).
#include "autograd/engine.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace torch {
namespace autograd {

// A GraphTask's state at one point of its execution, copied under its mutex
// (torchlite's; the graph pictures draw it).
struct GraphTaskState {
  struct NodeState {
    std::shared_ptr<Node> node;
    // Edges still to deliver a gradient (dependencies_; 0 once it was ready).
    int dependencies = 0;
    // "running" (on this thread), "queued", "waiting", "not needed" or
    // "done" (ran, or runs now on another thread).
    std::string status;
    // exec_info_: whether the node is needed / has captures (both false when
    // exec_info_ is empty, exec_info_empty says so).
    bool needed = false;
    bool captured = false;
    // Its not_ready_ buffer: which input slots hold a gradient (empty: none).
    std::vector<bool> not_ready_slots;
  };
  int id = -1;
  int reentrant_depth = 0;
  bool keep_graph = false;
  bool exec_info_empty = true;
  bool has_error = false;
  uint64_t outstanding_tasks = 0;
  std::vector<std::shared_ptr<Node>> roots;
  std::vector<NodeState> nodes; // the roots and every node reached from them
};
// The state of the graph task this thread is running; throws outside a backward.
GraphTaskState get_current_graph_task_state();

} // namespace autograd
} // namespace torch
