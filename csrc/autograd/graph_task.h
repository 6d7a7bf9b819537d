#pragma once
// GraphTask: the whole state of one backward()/grad() call
// (torch/csrc/autograd/graph_task.h).
#include "aten/ThreadLocalState.h"
#include "autograd/function.h"
#include "autograd/future.h"
#include "autograd/input_buffer.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace torch {
namespace autograd {

struct ReadyQueue;

static constexpr int NO_DEVICE = -2;
static constexpr int CPU_DEVICE = -1;

struct GraphTask : std::enable_shared_from_this<GraphTask> {
  // Tasks pushed and not yet finished; the task is done at zero.
  std::atomic<uint64_t> outstanding_tasks_{0};
  // Set by the first error; other threads then skip this task's nodes.
  std::atomic_bool has_error_{false};
  // Set once, by whoever completes the future.
  std::atomic_bool future_completed_{false};
  // Keep saved variables after running (retain_graph).
  bool keep_graph_;
  // The caller's thread-locals, grad mode set to create_graph; installed
  // around every node of the task (see aten/ThreadLocalState.h).
  at::ThreadLocalState thread_locals_;

  // Guards not_ready_, dependencies_, captured_vars_, leaf_streams.
  std::mutex mutex_;
  // Nodes that got some but not all of their inputs, with those inputs.
  std::unordered_map<Node*, InputBuffer> not_ready_;
  // Nodes mapped to how many edges still have to deliver to them.
  std::unordered_map<Node*, int> dependencies_;
  // Every node reachable from the root (not pruned by topological_nr).
  std::unordered_set<Node*> nodes_in_graph_;
  // The root's edges, for walking the graph later.
  std::vector<Node*> graph_roots_;

  // Note [Exec info]
  // Empty for a plain backward(): every reached node runs. For grad() or
  // backward(inputs=...), init_to_execute() fills it: a node runs only when
  // needed_ (it has a path to an output edge) or it has captures (it receives
  // a gradient grad() returns). See GraphTask::init_to_execute in
  // torch/csrc/autograd/engine.cpp.
  struct ExecInfo {
    struct Capture {
      Capture(const Capture&) = delete;
      Capture(Capture&&) = default;
      Capture(int input_idx, int output_idx) : input_idx_(input_idx), output_idx_(output_idx) {}
      int input_idx_; // within the node's inputs
      int output_idx_; // within captured_vars_
      // Hooks that see (and may replace) the captured gradient.
      struct GradCaptureHook {
        virtual ~GradCaptureHook() = default;
        virtual at::Tensor operator()(const at::Tensor& grad) = 0;
      };
      std::vector<std::unique_ptr<GradCaptureHook>> hooks_;
    };
    bool should_execute() const {
      return needed_ || captures_;
    }
    bool needed_ = false;
    std::unique_ptr<std::vector<Capture>> captures_;
  };
  std::unordered_map<Node*, ExecInfo> exec_info_;
  // Gradients grad() returns, by output index.
  std::vector<Variable> captured_vars_;

  // Streams leaf nodes ran on; synced into the caller's streams at the end.
  std::unordered_set<c10::Stream> leaf_streams;
  // The caller's current stream on each accelerator device, stashed when the
  // graph uses accelerators (PyTorch keeps one list per index of its single
  // accelerator type; torchlite has two accelerator types, so it keys by device).
  std::unordered_map<c10::Device, c10::Stream> caller_current_streams_;

  // Called at the end of the task, before execute() returns (queue_callback).
  std::vector<std::function<void()>> final_callbacks_;
  std::mutex final_callbacks_lock_;

  // Nesting depth of reentrant backward that created this task.
  const int reentrant_depth_;
  // A process-wide number, from 0 in creation order
  // (torch._C._current_graph_task_id()).
  const int id_;
  // The device of the thread that drives this task (CPU_DEVICE for a user
  // thread; a device index for a reentrant call from a device thread).
  int owner_{NO_DEVICE};
  // The ready queue of the thread that called execute().
  std::shared_ptr<ReadyQueue> cpu_ready_queue_;
  std::shared_ptr<Future> future_result_;

  GraphTask(
      bool keep_graph,
      bool grad_mode,
      int reentrant_depth,
      std::shared_ptr<ReadyQueue> cpu_ready_queue,
      std::vector<Node*> graph_roots);

  // Fills exec_info_ so that only nodes on a path to `outputs` run.
  void init_to_execute(Node& graph_root, const edge_list& outputs, bool accumulate_grad, uint64_t min_topo_nr);
  // Records the caller's current streams (when accelerators are in use).
  void stash_current_streams();

  bool completed();
  void mark_as_completed_and_run_post_processing();
  void set_exception(std::exception_ptr eptr, const std::shared_ptr<Node>& fn);
  void set_exception_without_signal(const std::shared_ptr<Node>& fn);

 private:
  // Syncs leaf streams into the caller's streams, then runs final callbacks.
  void exec_post_processing();
};

// The exec_info_ of the task this thread is running (null outside a task).
const std::unordered_map<Node*, GraphTask::ExecInfo>* get_current_graph_task_exec_info();

// Sets the thread's current graph task for the scope (restores on exit).
class GraphTaskGuard {
 public:
  explicit GraphTaskGuard(std::shared_ptr<GraphTask> graph_task);
  ~GraphTaskGuard();
  GraphTaskGuard(const GraphTaskGuard&) = delete;
  GraphTaskGuard& operator=(const GraphTaskGuard&) = delete;
  void restore_current_graph_task();

 private:
  std::shared_ptr<GraphTask> last_graph_task_;
};

} // namespace autograd
} // namespace torch
