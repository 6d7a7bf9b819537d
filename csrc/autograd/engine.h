#pragma once
// The autograd engine (torch/csrc/autograd/engine.h): runs the backward graph
// from the root edges, on the calling thread for CPU work and on one worker
// thread per device for device work. The comments below name the upstream
// Notes and functions each part follows.
#include "autograd/function.h"
#include "autograd/graph_task.h"
#include "autograd/input_buffer.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <queue>
#include <string>
#include <thread>
#include <vector>

namespace torch {
namespace autograd {

// Checks the gradients a node returned against its next edges' metadata:
// count, shape (a broadcast gradient is summed down), dtype (converted) and
// device. `format_error` prefixes messages with the node's name.
void validate_outputs(
    const edge_list& edges,
    variable_list& grads,
    const std::function<std::string(const std::string&)>& format_error);

// A unit of work: run `fn_` of GraphTask `base_` on `inputs_`. An empty task
// (no fn_) only wakes the thread that owns base_; a shutdown task stops a
// device thread (NodeTask, torch/csrc/autograd/engine.h).
struct NodeTask {
  std::weak_ptr<GraphTask> base_;
  std::shared_ptr<Node> fn_;
  InputBuffer inputs_;
  bool isShutdownTask_;
  // Non-zero when the task is traced; given by ReadyQueue::push (Note [Engine trace]).
  uint64_t trace_id_ = 0;

  // Ordering keys read by ReadyQueue's comparator, taken once here instead of on every
  // comparison of a heap sift (upstream locks base_ and reads fn_ on each): the GraphTask's
  // reentrant depth (fixed for its life; an expired GraphTask still sorts first, see
  // getReentrantDepth) and fn_'s sequence_nr (fixed for a node's life).
  int depth_ = 0;
  uint64_t sequence_nr_ = 0;

  int getReentrantDepth() const;

  NodeTask(std::weak_ptr<GraphTask> base, std::shared_ptr<Node> fn, InputBuffer inputs, bool isShutdownTask = false)
      : base_(std::move(base)), fn_(std::move(fn)), inputs_(std::move(inputs)), isShutdownTask_(isShutdownTask) {
    if (auto graph_task = base_.lock())
      depth_ = graph_task->reentrant_depth_;
    if (fn_)
      sequence_nr_ = fn_->sequence_nr();
  }
};

// Guards that the thread's checkpoint validity follows the task: a
// reentrant checkpoint inside grad() with inputs= is not valid.
struct CheckpointValidGuard {
  explicit CheckpointValidGuard(const std::shared_ptr<const GraphTask>& graph_task);
  ~CheckpointValidGuard();

 private:
  bool prev_checkpoint_valid_state;
};

// A priority queue of NodeTasks shared by producer threads and the one
// consumer thread that owns it (ReadyQueue, torch/csrc/autograd/engine.h).
struct ReadyQueue {
 private:
  // Returns true when t2 should be (weakly) BEFORE t1 in the queue.
  // Shutdown tasks come first, then empty tasks, then tasks of deeper
  // reentrant backward calls, then larger sequence_nr (as upstream's
  // CompareNodeTaskTime; see Note [Sequence Numbers] in function.h).
  struct CompareNodeTaskTime {
    bool operator()(NodeTask const& t1, NodeTask const& t2) {
      if (t2.isShutdownTask_) {
        return true;
      } else if (!t1.fn_ || t1.isShutdownTask_) {
        return false;
      } else if (!t2.fn_) {
        return true;
      }
      const int d1 = t1.getReentrantDepth(), d2 = t2.getReentrantDepth();
      if (d1 == d2) {
        return t1.sequence_nr_ < t2.sequence_nr_;
      } else {
        return d1 < d2;
      }
    }
  };

  std::condition_variable not_empty_;
  mutable std::mutex mutex_;
  // Upstream's std::priority_queue<NodeTask>, laid out so that a sift moves a slot number
  // instead of a whole NodeTask (two smart pointers and an InputBuffer): the tasks sit in
  // slots_ (a freed slot is reused), and heap_ orders their slot numbers with
  // std::push_heap / std::pop_heap under the same comparison, so tasks come out in the
  // same order as upstream's queue gives them.
  std::vector<NodeTask> slots_;
  std::vector<uint32_t> free_slots_;
  std::vector<uint32_t> heap_;
  struct CompareSlots {
    const std::vector<NodeTask>* slots;
    bool operator()(uint32_t a, uint32_t b) const {
      return CompareNodeTaskTime{}((*slots)[a], (*slots)[b]);
    }
  };
  // push's heap insertion, with mutex_ held.
  void push_locked(NodeTask&& item);

 public:
  // Which queue this is, for the engine trace: a device thread's queue
  // (trace_device_ >= 0) or the CPU queue of trace thread trace_owner_thread_.
  int trace_device_ = CPU_DEVICE;
  uint64_t trace_owner_thread_ = 0;

  // incrementOutstandingTasks: count the task in its GraphTask (always, except
  // for tasks that were already counted).
  void push(NodeTask item, bool incrementOutstandingTasks = true);
  void pushShutdownTask();
  NodeTask pop();
  bool empty() const;
  size_t size() const;
  // The nodes of `graph_task`'s tasks waiting in this queue.
  std::vector<Node*> queued_nodes(const GraphTask* graph_task) const;
};

// Note [Reentrant backwards] (torch/csrc/autograd/engine.cpp)
// A node may itself call backward(). The thread then runs the inner task
// inline ("reentrant") so it never blocks waiting on work that only it could
// do. Each level uses stack; past MAX_DEPTH levels the inner task is handed to
// a pool thread that adopts the caller's ready queue while the caller waits.
// 60 stays below the lock count ThreadSanitizer tolerates per thread.
static constexpr int MAX_DEPTH = 60;

class Engine {
 public:
  Engine();
  virtual ~Engine();

  // The engine backward() uses: the base engine, unless a binding installed
  // its own subclass with set_default_engine_stub (the Python extension does).
  static Engine& get_default_engine();
  static Engine& get_base_engine();
  using EngineStub = Engine& (*)();
  static void set_default_engine_stub(EngineStub stub);

  // Runs backward from `roots` with `inputs` as their gradients. With
  // `outputs`, returns the gradients flowing into those edges (grad()); with
  // accumulate_grad, leaves' .grad are updated (backward()). Every edge in
  // `roots` and `outputs` must be valid: the front end checks that, with the
  // user's messages, as THPEngine_run_backward (torch/csrc/autograd/python_engine.cpp) does.
  virtual variable_list execute(
      const edge_list& roots,
      const variable_list& inputs,
      bool keep_graph,
      bool create_graph,
      bool accumulate_grad,
      const edge_list& outputs = {});

  // Given a pre-populated GraphTask and a root node, drives the task and
  // returns its future.
  std::shared_ptr<Future> execute_with_graph_task(
      const std::shared_ptr<GraphTask>& graph_task,
      std::shared_ptr<Node> graph_root,
      InputBuffer&& input_buffer);

  virtual std::unique_ptr<AnomalyMetadata> make_anomaly_metadata() {
    return std::make_unique<AnomalyMetadata>();
  }

  // Runs `callback` when the current backward finishes (before execute
  // returns). Only valid while a backward is running.
  void queue_callback(std::function<void()> callback);
  bool is_checkpoint_valid();

  // Stops the device threads (also done by the destructor).
  void stop();

  // Number of device threads started (0 before the first backward).
  size_t num_device_threads() const {
    return device_ready_queues_.size();
  }
  // The device threads' queues, once started (empty before); safe from any thread.
  std::vector<std::shared_ptr<ReadyQueue>> started_device_ready_queues() const {
    if (!device_queues_published_.load(std::memory_order_acquire))
      return {};
    return device_ready_queues_;
  }
  // Reentrant pool threads created so far (for tests and traces).
  size_t num_reentrant_pool_threads() const {
    return pool_threads_started_.load();
  }
  // Pool threads waiting for work right now.
  size_t num_idle_reentrant_pool_threads() const;

  void initialize_device_threads_pool();

  // Sets up this thread's ready queue: the given one (device threads), or a
  // fresh one unless the thread already has one (callers, reentrant calls).
  // Returns it: a caller building its own GraphTask passes it as the task's
  // cpu_ready_queue.
  std::shared_ptr<ReadyQueue> init_local_ready_queue(std::shared_ptr<ReadyQueue> ready_queue = nullptr);

 protected:
  void compute_dependencies(Node* root, GraphTask& task, uint64_t min_topo_nr);
  // trace_task: the NodeTask's trace id, 0 when it is not traced (Note [Engine trace]).
  void evaluate_function(
      std::shared_ptr<GraphTask>& graph_task,
      Node* func,
      InputBuffer& inputs,
      const std::shared_ptr<ReadyQueue>& cpu_ready_queue,
      uint64_t trace_task = 0);

  std::shared_ptr<ReadyQueue> ready_queue(std::shared_ptr<ReadyQueue> cpu_ready_queue, c10::Device device);
  std::shared_ptr<ReadyQueue> ready_queue_by_index(std::shared_ptr<ReadyQueue> cpu_ready_queue, int device_index);
  void start_device_threads();
  void increment_non_reentrant_thread_count();
  void decrement_non_reentrant_thread_count();
  virtual void thread_init(int device, const std::shared_ptr<ReadyQueue>& ready_queue, bool should_increment = true);
  // Records a node's error in its task. Takes the exception by pointer, moved
  // all the way into the task's future, so that the thread that ran the node
  // keeps no reference: the error (which may hold Python objects) is destroyed
  // by the caller of execute, not by an engine thread.
  virtual void thread_on_exception(
      const std::shared_ptr<GraphTask>& graph_task,
      const std::shared_ptr<Node>& fn,
      std::exception_ptr error);
  void thread_main(const std::shared_ptr<GraphTask>& task);
  void reentrant_thread_init();
  void add_thread_pool_task(const std::weak_ptr<GraphTask>& graph_task);

  std::once_flag start_device_threads_flag_;
  // Set once device_ready_queues_ is filled, for readers that did not go
  // through start_device_threads_flag_.
  std::atomic<bool> device_queues_published_{false};
  // Shared by all GraphTasks: one queue per device index.
  std::vector<std::shared_ptr<ReadyQueue>> device_ready_queues_;

  int max_recursion_depth_;

  struct ThreadPoolShared {
    // Pool threads waiting for work.
    unsigned int num_workers_ = 0;
    std::condition_variable work_;
    std::mutex mutex_;
    std::queue<std::weak_ptr<GraphTask>> graphtasks_queue_;
  };
  // Held by the pool threads too, so it outlives the engine if needed.
  std::shared_ptr<ThreadPoolShared> thread_pool_shared_;
  std::atomic<size_t> pool_threads_started_{0};

 private:
  std::atomic<uint32_t> non_reentrant_device_thread_count_{0};
  std::condition_variable non_reentrant_device_thread_condvar_;
  std::mutex non_reentrant_device_thread_mutex_;
  bool stopped_{false};
};

// Thread-local state of the engine, readable for tests and tools. NO_DEVICE on
// a thread that is not running a task; CPU_DEVICE on the thread driving a
// task; a device index on a device thread.
int get_worker_device();
// Reentrant nesting depth on this thread / in total across handed-off threads.
int get_current_depth();
int get_total_depth();

// Makes every task of later execute() calls from this thread run on it.
void set_multithreading_enabled(bool enabled);

// The id_ of the GraphTask this thread is running, -1 outside a backward.
int get_current_graph_task_id();
// The GraphTask this thread is running, null outside a backward.
std::shared_ptr<GraphTask> get_current_graph_task();

// Every node of the current graph task that will run, in the order the
// engine would run them on one thread (torch's function of the same name):
// a max-heap on sequence_nr fed as the dependencies of a copy of dependencies_
// reach zero. Empty outside a backward; throws unless multithreading is
// disabled, and when a node's dependencies were already consumed (called
// after the first node finished).
std::vector<Node*> get_current_graph_task_execution_order();

} // namespace autograd
} // namespace torch
