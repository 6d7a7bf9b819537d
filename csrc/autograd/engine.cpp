#include "autograd/engine.h"
#include "aten/Functions.h"
#include "autograd/anomaly_mode.h"
#include "autograd/engine_trace.h"
#include "autograd/functions/basic_ops.h"
#include "autograd/generated/Functions.h"
#include "autograd/grad_mode.h"

#include "c10/core/DeviceGuard.h"
#include "c10/core/impl/DeviceGuardImplInterface.h"

#include <pthread.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>

namespace torch {
namespace autograd {

namespace {

// Note [Allocating GPUs to autograd threads] (torch/csrc/autograd/engine.cpp)
// Each thread the engine runs on has a worker_device: NO_DEVICE for a thread
// not running any task; CPU_DEVICE for a user thread driving its own task;
// the device index for a device thread. Device threads are shared by all
// devices types with that index (CUDA 0 and sim 0 share thread 0).
thread_local int worker_device = NO_DEVICE;

// Whether reentrant checkpointing is allowed on this thread (it is not inside
// grad() with inputs=, where nodes off the path do not run).
thread_local bool checkpoint_valid = true;

// Reentrant backward nesting on this thread, and across the threads a task
// was handed to (see Note [Reentrant backwards]).
thread_local int current_depth = 0;
thread_local int total_depth = 0;

// The GraphTask this thread is executing (for queue_callback and exec_info).
thread_local std::shared_ptr<GraphTask> current_graph_task = nullptr;

// Every thread that runs tasks pops from its own ready queue: a device thread
// from its device's queue, a user thread from the queue it created for its
// first task (and reuses for reentrant calls), as upstream's
// local_ready_queue and init_local_ready_queue.
thread_local std::shared_ptr<ReadyQueue> local_ready_queue = nullptr;

// The node being evaluated on this thread (anomaly mode's parent tracking).
thread_local std::shared_ptr<Node> current_evaluating_node = nullptr;

struct NodeGuard {
  explicit NodeGuard(std::shared_ptr<Node> node) : last_evaluating_node_(std::move(current_evaluating_node)) {
    current_evaluating_node = std::move(node);
  }
  ~NodeGuard() {
    current_evaluating_node = std::move(last_evaluating_node_);
  }
  std::shared_ptr<Node> last_evaluating_node_;
};

// The CPU runs on the caller's queue; every other device type on a device thread.
bool should_run_in_cpu_ready_queue(c10::DeviceType device) {
  return device == c10::DeviceType::CPU;
}

void set_thread_name(const std::string& name) {
  // Linux keeps 15 characters of a thread name.
  pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
}

// Makes the thread's current device of every type with that index `device`.
void set_device(int device) {
  // The CPU needs no guard; constructing one could touch a CUDA context.
  if (device != CPU_DEVICE) {
    for (size_t i = 0; i < static_cast<size_t>(c10::DeviceType::COMPILE_TIME_MAX_DEVICE_TYPES); i++) {
      auto* impl = c10::impl::device_guard_impl_registry()[i].load();
      if (impl && c10::isAccelerator(impl->type()) && device < impl->deviceCount()) {
        impl->setDevice(c10::Device(impl->type(), static_cast<c10::DeviceIndex>(device)));
      }
    }
  }
  worker_device = device;
}

// Note [Autograd and fork] (torch/csrc/autograd/engine.cpp)
// A forked child has only the thread that called fork: the parent's device
// threads (and reentrant pool threads) do not exist in it, although the
// engine's state says they do, so work pushed to them would wait forever. A
// pthread_atfork child handler, registered when the first such thread starts,
// marks the child; there a backward that needs a device queue or the pool
// raises instead of hanging. A backward on the CPU alone runs on the calling
// thread and keeps working, because device threads start only when a task
// needs a device queue.
std::atomic<bool> device_threads_started{false};
std::atomic<bool> pool_threads_started{false};
bool in_bad_autograd_fork = false;
bool pool_lost_in_fork = false;

void forked_autograd_child() {
  in_bad_autograd_fork = device_threads_started.load();
  pool_lost_in_fork = pool_threads_started.load();
}

void track_bad_autograd_forks() {
  static std::once_flag flag;
  std::call_once(flag, [] { pthread_atfork(nullptr, nullptr, forked_autograd_child); });
}

constexpr const char* kBadForkMessage =
    "Unable to handle autograd's threading in combination with fork-based multiprocessing. "
    "See https://github.com/pytorch/pytorch/wiki/Autograd-and-Fork";

uint64_t compute_min_topological_nr(const edge_list& outputs) {
  // Computes the minimum topological number among all the outputs
  if (outputs.empty())
    return 0;
  auto min_topo_nr = std::numeric_limits<uint64_t>::max();
  for (auto& output_edge : outputs) {
    auto topo_nr = output_edge.function->topological_nr();
    min_topo_nr = (min_topo_nr < topo_nr) ? min_topo_nr : topo_nr;
  }
  return min_topo_nr;
}

variable_list call_tensor_pre_hooks(const Node::Hooks* hooks, variable_list inputs) {
  if (!hooks)
    return inputs;
  for (const auto& hook : hooks->tensor_pre_hooks)
    inputs = (*hook)(inputs);
  for (const auto& pair : hooks->retains_grad_hooks)
    inputs = (*pair.second)(inputs);
  return inputs;
}

variable_list call_pre_hooks(const Node::Hooks* hooks, variable_list inputs) {
  if (!hooks)
    return inputs;
  for (const auto& hook : hooks->pre_hooks)
    inputs = (*hook)(inputs);
  return inputs;
}

variable_list call_post_hooks(const Node::Hooks& hooks, variable_list outputs, const variable_list& inputs) {
  for (const auto& hook : hooks.post_hooks)
    outputs = (*hook)(outputs, inputs);
  return outputs;
}

// `hooks`: the node's hooks, one snapshot for this run (Note [Hook lists and
// threads]); null when it has none.
variable_list call_function(
    std::shared_ptr<GraphTask>& graph_task,
    Node* func,
    InputBuffer& inputBuffer,
    const Node::Hooks* hooks) {
  CheckpointValidGuard cpvguard(graph_task);
  auto& fn = *func;
  auto inputs = call_tensor_pre_hooks(hooks, InputBuffer::variables(std::move(inputBuffer)));
  inputs = call_pre_hooks(hooks, std::move(inputs));
  if (!graph_task->keep_graph_)
    fn.will_release_variables();

  const bool has_post_hooks = hooks && !hooks->post_hooks.empty();
  variable_list outputs;
  if (has_post_hooks) {
    // Post hooks see the inputs, so keep a copy; AccumulateGrad knows to
    // expect the extra reference when deciding whether it may steal.
    auto inputs_copy = inputs;
    outputs = fn(std::move(inputs_copy));
  } else {
    outputs = fn(std::move(inputs));
  }

  validate_outputs(fn.next_edges(), outputs, [&](const std::string& msg) {
    std::ostringstream ss;
    ss << "Function " << fn.name() << " returned an " << msg;
    return ss.str();
  });
  if (!has_post_hooks)
    return outputs;
  return call_post_hooks(*hooks, std::move(outputs), inputs);
}

// The message of a node's error, for the trace.
std::string exception_message(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown exception";
  }
}

} // namespace

int get_worker_device() {
  return worker_device;
}
int get_current_depth() {
  return current_depth;
}
int get_total_depth() {
  return total_depth;
}

std::shared_ptr<Node> get_current_node() {
  return current_evaluating_node;
}

void set_multithreading_enabled(bool enabled) {
  MultithreadingMode::set_enabled(enabled);
}

// GraphTask ------------------------------------------------------------------------

namespace {
std::atomic<int> next_graph_task_id{0};
} // namespace

GraphTask::GraphTask(
    bool keep_graph,
    bool grad_mode,
    int reentrant_depth,
    std::shared_ptr<ReadyQueue> cpu_ready_queue,
    std::vector<Node*> graph_roots)
    : keep_graph_(keep_graph),
      graph_roots_(std::move(graph_roots)),
      reentrant_depth_(reentrant_depth),
      id_(next_graph_task_id.fetch_add(1, std::memory_order_relaxed)),
      cpu_ready_queue_(std::move(cpu_ready_queue)),
      future_result_(std::make_shared<Future>()) {
  thread_locals_.set_grad_mode(grad_mode);
}

bool GraphTask::completed() {
  return outstanding_tasks_.load() == 0;
}

void GraphTask::stash_current_streams() {
  caller_current_streams_.clear();
  for (size_t i = 0; i < static_cast<size_t>(c10::DeviceType::COMPILE_TIME_MAX_DEVICE_TYPES); i++) {
    auto* impl = c10::impl::device_guard_impl_registry()[i].load();
    if (!impl || !c10::isAccelerator(impl->type()))
      continue;
    for (c10::DeviceIndex idx = 0; idx < impl->deviceCount(); idx++) {
      c10::Device d(impl->type(), idx);
      caller_current_streams_.emplace(d, impl->getStream(d));
    }
  }
}

void GraphTask::mark_as_completed_and_run_post_processing() {
  // Allow only one thread one attempt to process this logic.
  if (future_completed_.exchange(true)) {
    // Another thread is completing the future: wait so that it is complete
    // when this returns.
    future_result_->wait();
    return;
  }
  try {
    // Run post processing before completing the future, and drop the lock
    // first so that no lock is held while the waiter resumes.
    std::unique_lock<std::mutex> lock(mutex_);
    exec_post_processing();
    std::vector<Variable> vars = std::move(captured_vars_);
    lock.unlock();
    // Before completing: the caller may stop the trace as soon as it resumes.
    TORCHLITE_TRACE(trace::on_graph_task(trace::EventKind::GraphTaskEnd, *this, "ok"));
    future_result_->markCompleted(std::move(vars));
  } catch (std::exception& e) {
    TORCHLITE_TRACE(trace::on_exception(trace::current_task(), *this, nullptr, e.what()));
    TORCHLITE_TRACE(trace::on_graph_task(trace::EventKind::GraphTaskEnd, *this, "error"));
    future_result_->setErrorIfNeeded(std::current_exception());
  }
}

void GraphTask::exec_post_processing() {
  if (!not_ready_.empty()) {
    throw std::runtime_error("could not compute gradients for some functions");
  }
  // More callbacks can be installed by running callbacks, so the task stays current.
  GraphTaskGuard guard(shared_from_this());

  // Note [Streaming backwards] (GraphTask::exec_post_processing in
  // torch/csrc/autograd/engine.cpp)
  // Leaf nodes ran on their forward streams; make the caller's current
  // streams wait for them, so the caller (and the final callbacks, which run
  // on the caller's streams) may use every gradient without syncing itself.
  std::vector<c10::Stream> caller_streams;
  for (const auto& leaf_stream : leaf_streams) {
    auto it = caller_current_streams_.find(leaf_stream.device());
    // compute_dependencies stashed every accelerator device's stream when
    // any node has a stream, so a leaf stream without one is an engine bug.
    if (it == caller_current_streams_.end()) {
      std::ostringstream ss;
      ss << "exec_post_processing: no stashed caller stream for leaf stream on " << leaf_stream.device();
      throw std::logic_error(ss.str());
    }
    const auto& caller_current_stream = it->second;
    if (caller_current_stream != leaf_stream) {
      c10::Event event{leaf_stream.device_type()};
      event.record(leaf_stream);
      caller_current_stream.wait(event);
      TORCHLITE_TRACE(
          trace::on_stream(trace::EventKind::StreamRecord, *this, leaf_stream, "exec_post_processing: leaf stream"));
      TORCHLITE_TRACE(
          trace::on_stream(
              trace::EventKind::StreamWait,
              *this,
              caller_current_stream,
              "exec_post_processing: caller stream waits for leaf stream"));
    }
  }
  for (const auto& kv : caller_current_streams_)
    caller_streams.push_back(kv.second);

  std::unique_lock<std::mutex> cb_lock(final_callbacks_lock_);
  c10::MultiStreamGuard g(caller_streams);
  // Final callbacks see the caller's thread-locals too, whichever thread
  // completes the task.
  at::ThreadLocalStateGuard tls_guard(thread_locals_);
  // Index loop: callbacks may append callbacks while the lock is released.
  for (size_t i = 0; i < final_callbacks_.size(); ++i) {
    auto callback = final_callbacks_[i];
    cb_lock.unlock();
    TORCHLITE_TRACE(trace::on_final_callback(*this, i));
    callback();
    cb_lock.lock();
  }
}

void GraphTask::set_exception_without_signal(const std::shared_ptr<Node>& fn) {
  if (!has_error_.exchange(true)) {
    if (AnomalyMode::is_enabled() && fn)
      fn->metadata()->print_stack(fn->name());
  }
}

void GraphTask::set_exception(std::exception_ptr eptr, const std::shared_ptr<Node>& fn) {
  set_exception_without_signal(fn);
  if (!future_completed_.exchange(true)) {
    TORCHLITE_TRACE(trace::on_graph_task(trace::EventKind::GraphTaskEnd, *this, "error"));
    future_result_->setError(std::move(eptr));
  }
}

void GraphTask::init_to_execute(
    Node& graph_root,
    const edge_list& outputs,
    bool accumulate_grad,
    uint64_t min_topo_nr) {
  // Populates exec_info so nodes that should be executed have
  // `exec_info[node].needed_ = true`: only nodes with a path to an edge in
  // `outputs`. The recursive formulation (as upstream's comment on
  // GraphTask::init_to_execute) is
  //
  //   is_needed = {fn: True for fn in outputs}             # (0)
  //   seen = {}
  //   def compute_is_needed(fn):
  //     for next_edge in fn.next_edges:
  //       child_fn = next_edge.fn
  //       if child_fn in seen and is_needed[child_fn]:     # (1)
  //         is_needed[fn] = true
  //       else:
  //         seen.add(child_fn)
  //         if compute_is_needed(child_fn):
  //           is_needed[fn] = true                         # (2)
  //                                                        # (3) exit for-loop
  //     return is_needed[fn]
  //   compute_is_needed(graph_root)
  //
  // and the code below is its iterative version: a frame, once all its
  // children are done, updates its parent. `seen` is not seeded with the
  // outputs because when two outputs lie on one path, the walk must go past
  // the first to reach the nodes the second needs.
  int output_idx = 0;
  for (auto& output_edge : outputs) {
    // (0) `is_needed` above corresponds to `exec_info_[fn].needed_`
    Node* output = output_edge.function.get();
    auto& info = exec_info_[output];
    if (accumulate_grad) {
      // backward(inputs=...): the outputs accumulate into .grad themselves.
      info.needed_ = true;
    } else {
      // grad(): capture the gradient flowing into this edge instead.
      if (!info.captures_)
        info.captures_ = std::make_unique<std::vector<ExecInfo::Capture>>();
      info.captures_->emplace_back(output_edge.input_nr, output_idx++);
    }
  }
  captured_vars_.resize(output_idx);

  struct Frame {
    explicit Frame(Node* fn) : fn_(fn) {}
    Node* fn_;
    size_t next_next_fn_ = 0;

    Node* get_next_fn() {
      const auto& next = fn_->next_edges();
      auto num_next = next.size();
      while (next_next_fn_ < num_next) {
        auto fn = next[next_next_fn_++].function.get();
        if (fn)
          return fn;
      }
      return nullptr;
    }
  };

  auto nodeShouldExecute = [this](Node* fn) {
    auto it = exec_info_.find(fn);
    return it != exec_info_.end() && it->second.should_execute();
  };

  std::vector<Frame> stack;
  std::unordered_set<Node*> seen;
  stack.emplace_back(&graph_root);
  exec_info_.emplace(stack.back().fn_, ExecInfo());

  while (!stack.empty()) {
    auto& frame = stack.back();
    const auto fn = frame.fn_;

    Node* child_fn = nullptr;
    while ((child_fn = frame.get_next_fn()) && !seen.emplace(child_fn).second) {
      // (1) next child exists AND has already been seen
      if (nodeShouldExecute(child_fn))
        exec_info_[fn].needed_ = true;
    }

    if (child_fn) {
      // (2) next child exists but has not been seen
      if (child_fn->topological_nr() < min_topo_nr) {
        // A child older than every output cannot lead to one.
        continue;
      }
      stack.emplace_back(child_fn);
    } else {
      // (3) no next child exists for `fn` means its `needed` has already been
      // finalized. pop stack and update parent
      stack.pop_back();
      if (nodeShouldExecute(fn) && !stack.empty())
        exec_info_[stack.back().fn_].needed_ = true;
    }
  }
}

GraphTaskGuard::GraphTaskGuard(std::shared_ptr<GraphTask> graph_task)
    : last_graph_task_(std::move(current_graph_task)) {
  current_graph_task = std::move(graph_task);
}
GraphTaskGuard::~GraphTaskGuard() {
  restore_current_graph_task();
}
void GraphTaskGuard::restore_current_graph_task() {
  current_graph_task = std::move(last_graph_task_);
}

const std::unordered_map<Node*, GraphTask::ExecInfo>* get_current_graph_task_exec_info() {
  return current_graph_task ? &current_graph_task->exec_info_ : nullptr;
}

int get_current_graph_task_id() {
  return current_graph_task ? current_graph_task->id_ : -1;
}

std::shared_ptr<GraphTask> get_current_graph_task() {
  return current_graph_task;
}

std::vector<Node*> get_current_graph_task_execution_order() {
  std::shared_ptr<GraphTask> task = current_graph_task;
  if (!task)
    return {};
  // Only one thread runs the task then, so this order is the one it follows.
  if (MultithreadingMode::is_enabled()) {
    throw std::runtime_error(
        "get_current_graph_task_execution_order expects the current backward to be executed with "
        "multithreading disabled, e.g. by running:\n\n"
        ">>> with torch.autograd.set_multithreading_enabled(False):\n"
        "...     torch.autograd.grad(...)\n");
  }
  const bool check_exec_info = !task->exec_info_.empty();
  std::unordered_map<Node*, int> dependencies;
  {
    std::lock_guard<std::mutex> lock(task->mutex_);
    dependencies = task->dependencies_;
  }
  // Dependencies must be counted even with sequence_nr at hand: an
  // AccumulateGrad's sequence_nr (UINT64_MAX) is not below its parents'.
  auto later_first = [](Node* a, Node* b) { return a->sequence_nr() < b->sequence_nr(); };
  std::priority_queue<Node*, std::vector<Node*>, decltype(later_first)> heap(later_first);
  for (Node* root : task->graph_roots_)
    heap.push(root);
  std::vector<Node*> order;
  while (!heap.empty()) {
    Node* fn = heap.top();
    heap.pop();
    order.push_back(fn);
    for (const auto& edge : fn->next_edges()) {
      Node* next = edge.function.get();
      if (!next)
        continue;
      if (check_exec_info) {
        auto info = task->exec_info_.find(next);
        if (info == task->exec_info_.end() || !info->second.should_execute())
          continue;
      }
      auto it = dependencies.find(next);
      if (it == dependencies.end()) {
        throw std::runtime_error(
            "it != dependencies.end() INTERNAL ASSERT FAILED: the graph task has already consumed the "
            "dependencies of " +
            next->name() +
            " (call _current_graph_task_execution_order before the "
            "first node finishes)");
      }
      if (--it->second == 0) {
        dependencies.erase(it);
        heap.push(next);
      }
    }
  }
  return order;
}

// NodeTask / ReadyQueue ---------------------------------------------------------------

int NodeTask::getReentrantDepth() const {
  // The depth taken at construction while the GraphTask lives (it never changes): an atomic
  // load instead of a lock of base_ on each comparison.
  if (!base_.expired())
    return depth_;
  // An expired GraphTask means its backward failed: sort the task first so a
  // worker pops (and drops) it soon, as torch/csrc/autograd/engine.cpp does.
  return std::numeric_limits<int>::max();
}

CheckpointValidGuard::CheckpointValidGuard(const std::shared_ptr<const GraphTask>& graph_task)
    : prev_checkpoint_valid_state(checkpoint_valid) {
  checkpoint_valid = graph_task->exec_info_.empty() && prev_checkpoint_valid_state;
}
CheckpointValidGuard::~CheckpointValidGuard() {
  checkpoint_valid = prev_checkpoint_valid_state;
}

void ReadyQueue::push(NodeTask item, bool incrementOutstandingTasks) {
  // The one load tracing costs a NodeTask when off (Note [Engine trace]).
  TORCHLITE_TRACE(trace::on_enqueue(item, *this));
  {
    // Lock mutex for writing to heap_
    std::lock_guard<std::mutex> lock(mutex_);
    if (incrementOutstandingTasks) {
      std::shared_ptr<GraphTask> graph_task = item.base_.lock();
      if (!graph_task)
        throw std::logic_error("GraphTask is no longer valid!");
      ++graph_task->outstanding_tasks_;
    }
    push_locked(std::move(item));
  }
  not_empty_.notify_one();
}

void ReadyQueue::push_locked(NodeTask&& item) {
  uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
    slots_[slot] = std::move(item);
  } else {
    slot = static_cast<uint32_t>(slots_.size());
    slots_.push_back(std::move(item));
  }
  heap_.push_back(slot);
  std::push_heap(heap_.begin(), heap_.end(), CompareSlots{&slots_});
}

void ReadyQueue::pushShutdownTask() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    push_locked(NodeTask({}, nullptr, InputBuffer(0), true));
  }
  not_empty_.notify_one();
}

size_t ReadyQueue::size() const {
  std::unique_lock<std::mutex> lock(mutex_);
  return heap_.size();
}

NodeTask ReadyQueue::pop() {
  // Lock mutex for accesses to heap_
  std::unique_lock<std::mutex> lock(mutex_);
  not_empty_.wait(lock, [this] { return !heap_.empty(); });
  std::pop_heap(heap_.begin(), heap_.end(), CompareSlots{&slots_});
  const uint32_t slot = heap_.back();
  heap_.pop_back();
  NodeTask task = std::move(slots_[slot]);
  // the moved-from slot holds no references; it is reused by a later push
  free_slots_.push_back(slot);
  return task;
}

std::vector<Node*> ReadyQueue::queued_nodes(const GraphTask* graph_task) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<Node*> result;
  for (const uint32_t slot : heap_) {
    const auto& task = slots_[slot];
    if (task.fn_ && task.base_.lock().get() == graph_task)
      result.push_back(task.fn_.get());
  }
  return result;
}

bool ReadyQueue::empty() const {
  std::unique_lock<std::mutex> lock(mutex_);
  return heap_.empty();
}

// Engine ------------------------------------------------------------------------------

Engine::Engine() : max_recursion_depth_(MAX_DEPTH), thread_pool_shared_(std::make_shared<ThreadPoolShared>()) {}

Engine::~Engine() {
  stop();
}

namespace {
std::atomic<Engine::EngineStub> engine_stub_{&Engine::get_base_engine};
} // namespace

void Engine::set_default_engine_stub(EngineStub stub) {
  engine_stub_.store(stub);
}

Engine& Engine::get_default_engine() {
  return engine_stub_.load()();
}

Engine& Engine::get_base_engine() {
  static Engine engine;
  return engine;
}

void Engine::stop() {
  if (stopped_)
    return;
  stopped_ = true;
  // Threads may hang in user code at shutdown: wait a bounded time
  // (TORCHLITE_AUTOGRAD_SHUTDOWN_WAIT_LIMIT seconds, default 10).
  const char* wait_str = std::getenv("TORCHLITE_AUTOGRAD_SHUTDOWN_WAIT_LIMIT");
  const double wait_duration = wait_str ? std::atof(wait_str) : 10.0;
  bool noBackward = true;
  for (auto& queue : device_ready_queues_)
    noBackward = noBackward && queue->empty();
  if (noBackward && wait_duration > 0.0) {
    for (auto& queue : device_ready_queues_)
      queue->pushShutdownTask();
    auto deadline = std::chrono::steady_clock::now() +
        std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(wait_duration));
    std::unique_lock<std::mutex> lk(non_reentrant_device_thread_mutex_);
    while (non_reentrant_device_thread_count_.load() != 0) {
      if (non_reentrant_device_thread_condvar_.wait_until(lk, deadline) == std::cv_status::timeout)
        break;
    }
  }
}

void Engine::increment_non_reentrant_thread_count() {
  std::lock_guard<std::mutex> lock(non_reentrant_device_thread_mutex_);
  ++non_reentrant_device_thread_count_;
  non_reentrant_device_thread_condvar_.notify_all();
}

void Engine::decrement_non_reentrant_thread_count() {
  std::lock_guard<std::mutex> lock(non_reentrant_device_thread_mutex_);
  --non_reentrant_device_thread_count_;
  non_reentrant_device_thread_condvar_.notify_all();
}

void Engine::thread_init(int device, const std::shared_ptr<ReadyQueue>& ready_queue, bool should_increment) {
  if (should_increment)
    increment_non_reentrant_thread_count();
  set_thread_name("tl_autograd_" + std::to_string(device));
  trace::set_thread_role("device thread " + std::to_string(device));
  // The thread's device and its queue stay fixed for its life (Engine::thread_init).
  set_device(device);
  init_local_ready_queue(ready_queue);
  std::shared_ptr<GraphTask> graph_task = nullptr;
  thread_main(graph_task);
  if (should_increment)
    decrement_non_reentrant_thread_count();
}

void Engine::thread_on_exception(
    const std::shared_ptr<GraphTask>& graph_task,
    const std::shared_ptr<Node>& fn,
    std::exception_ptr error) {
  graph_task->set_exception(std::move(error), fn);
}

// thread_main serves two kinds of callers (see Note [Reentrant backwards]):
// with graph_task null it is a device thread's loop and runs until shut down;
// with a graph_task it is a user thread (or a reentrant call) driving that
// task, and returns once the task completes, having also run whatever other
// tasks reached its queue meanwhile.
void Engine::thread_main(const std::shared_ptr<GraphTask>& graph_task) {
  if (!local_ready_queue)
    throw std::logic_error("thread_main: no local ready queue");
  while (graph_task == nullptr || !graph_task->future_result_->completed()) {
    std::shared_ptr<GraphTask> local_graph_task;
    {
      // The scope makes sure the task (and its inputs) is freed before the
      // outstanding count drops, so a completed task owns no buffers.
      NodeTask task = local_ready_queue->pop();
      if (task.isShutdownTask_)
        break;

      local_graph_task = task.base_.lock();
      if (!local_graph_task) {
        // GraphTask for function is no longer valid, skipping further execution.
        continue;
      }

      set_device(worker_device);

      // See Note [Engine trace]: the task carries whether it is traced.
      std::optional<trace::CurrentTaskGuard> trace_guard;
      if (task.trace_id_ && task.fn_) {
        trace_guard.emplace(task.trace_id_, *local_graph_task);
        trace::on_task_start(task, *local_graph_task, *local_ready_queue);
      }
      if (task.fn_ && !local_graph_task->has_error_.load()) {
        GraphTaskGuard guard(local_graph_task);
        NodeGuard ndguard(task.fn_);
        std::exception_ptr error;
        try {
          // The caller's thread-locals, with grad mode = create_graph.
          at::ThreadLocalStateGuard tls_guard(local_graph_task->thread_locals_);
          evaluate_function(
              local_graph_task, task.fn_.get(), task.inputs_, local_graph_task->cpu_ready_queue_, task.trace_id_);
        } catch (...) {
          error = std::current_exception();
        }
        if (trace_guard) {
          if (error) {
            trace::on_exception(task.trace_id_, *local_graph_task, task.fn_.get(), exception_message(error));
          }
          trace::on_task_end(task, *local_graph_task, error ? "error" : "ok");
        }
        // Outside the catch block, so the future ends up holding the only
        // reference (see thread_on_exception).
        if (error)
          thread_on_exception(local_graph_task, task.fn_, std::move(error));
      } else if (trace_guard) {
        // Another node of the task failed: this one is not run.
        trace::on_task_end(task, *local_graph_task, "skipped");
      }
    }

    // Decrement the outstanding tasks.
    --local_graph_task->outstanding_tasks_;

    // Check if we've completed execution.
    if (local_graph_task->completed()) {
      local_graph_task->mark_as_completed_and_run_post_processing();

      auto base_owner = local_graph_task->owner_;
      // The owner may be blocked on its own queue: wake it with an empty task
      // (as upstream's thread_main). No need when this thread is the owner.
      if (worker_device != base_owner) {
        std::atomic_thread_fence(std::memory_order_release);
        ready_queue_by_index(local_graph_task->cpu_ready_queue_, base_owner)
            ->push(NodeTask(local_graph_task, nullptr, InputBuffer(0)));
      }
    }
  }
}

void Engine::reentrant_thread_init() {
  set_thread_name("tl_autograd_rp");
  trace::set_thread_role("reentrant pool thread");
  auto tp_shared = thread_pool_shared_;
  while (true) {
    std::unique_lock<std::mutex> lk(tp_shared->mutex_);
    ++tp_shared->num_workers_;
    tp_shared->work_.wait(lk, [&tp_shared] { return !tp_shared->graphtasks_queue_.empty(); });
    --tp_shared->num_workers_;
    auto task = tp_shared->graphtasks_queue_.front();
    tp_shared->graphtasks_queue_.pop();
    lk.unlock();
    std::shared_ptr<GraphTask> graph_task = task.lock();
    if (!graph_task)
      continue; // the GraphTask has expired
    set_device(graph_task->owner_);
    // Adopt the owner's ready queue: the owner is blocked in execute(), so
    // this thread does its work.
    local_ready_queue = ready_queue_by_index(graph_task->cpu_ready_queue_, graph_task->owner_);
    total_depth = graph_task->reentrant_depth_;
    thread_main(graph_task);
  }
}

void Engine::add_thread_pool_task(const std::weak_ptr<GraphTask>& graph_task) {
  std::unique_lock<std::mutex> lck(thread_pool_shared_->mutex_);
  // Start a thread only if the idle ones cannot take every queued task.
  bool create_thread = (thread_pool_shared_->num_workers_ <= thread_pool_shared_->graphtasks_queue_.size());
  thread_pool_shared_->graphtasks_queue_.push(graph_task);
  lck.unlock();
  if (create_thread) {
    track_bad_autograd_forks();
    pool_threads_started = true;
    ++pool_threads_started_;
    std::thread t(&Engine::reentrant_thread_init, this);
    t.detach();
  }
  // Works even for the new thread: wait() tests the predicate before blocking.
  thread_pool_shared_->work_.notify_one();
}

size_t Engine::num_idle_reentrant_pool_threads() const {
  if (!thread_pool_shared_)
    return 0;
  std::lock_guard<std::mutex> lock(thread_pool_shared_->mutex_);
  return thread_pool_shared_->num_workers_;
}

std::shared_ptr<ReadyQueue> Engine::init_local_ready_queue(std::shared_ptr<ReadyQueue> ready_queue) {
  if (ready_queue) {
    // A device thread: use the queue made for it.
    local_ready_queue = std::move(ready_queue);
  } else if (!local_ready_queue) {
    // A user thread's first backward: its own CPU queue, kept for later calls.
    local_ready_queue = std::make_shared<ReadyQueue>();
    local_ready_queue->trace_owner_thread_ = trace::thread_index();
  }
  return local_ready_queue;
}

std::shared_ptr<ReadyQueue> Engine::ready_queue(std::shared_ptr<ReadyQueue> cpu_ready_queue, c10::Device device) {
  bool multithreading_disabled = !MultithreadingMode::is_enabled();
  if (multithreading_disabled || should_run_in_cpu_ready_queue(device.type())) {
    return cpu_ready_queue;
  }
  // CPU ready queue is per GraphTask, but device ready queues are shared
  // across all graph tasks (Engine::ready_queue).
  initialize_device_threads_pool();
  if (device.index() < 0 || static_cast<size_t>(device.index()) >= device_ready_queues_.size()) {
    std::ostringstream ss;
    ss << "no autograd worker thread for device " << device << " (" << device_ready_queues_.size()
       << " device threads)";
    throw std::runtime_error(ss.str());
  }
  return device_ready_queues_.at(device.index());
}

std::shared_ptr<ReadyQueue> Engine::ready_queue_by_index(
    std::shared_ptr<ReadyQueue> cpu_ready_queue,
    int device_index) {
  if (device_index == CPU_DEVICE)
    return cpu_ready_queue;
  return device_ready_queues_.at(device_index);
}

void Engine::start_device_threads() {
  // One thread per device index, over all device types that do not run on
  // the CPU queue (Note [Allocating GPUs to autograd threads]).
  c10::DeviceIndex num_devices = 0;
  for (const auto& impl_atomic : c10::impl::device_guard_impl_registry()) {
    auto* impl = impl_atomic.load();
    if (impl && !should_run_in_cpu_ready_queue(impl->type())) {
      num_devices = std::max(num_devices, impl->deviceCount());
    }
  }
  if (num_devices == 0)
    return;

  // From now on a forked child cannot use this engine's device threads.
  track_bad_autograd_forks();
  device_threads_started = true;

  // Pre-allocate every queue before any thread reads the vector.
  device_ready_queues_ = std::vector<std::shared_ptr<ReadyQueue>>(num_devices);
  for (int i = 0; i < num_devices; ++i) {
    device_ready_queues_[i] = std::make_shared<ReadyQueue>();
    device_ready_queues_[i]->trace_device_ = i;
  }
  device_queues_published_.store(true, std::memory_order_release);
  for (int i = 0; i < num_devices; ++i) {
    std::thread t(&Engine::thread_init, this, i, device_ready_queues_[i], true);
    t.detach();
  }
  // Wait for the threads to start.
  std::unique_lock<std::mutex> lk(non_reentrant_device_thread_mutex_);
  while (non_reentrant_device_thread_count_.load() != static_cast<uint32_t>(num_devices)) {
    non_reentrant_device_thread_condvar_.wait(lk);
  }
}

void Engine::initialize_device_threads_pool() {
  if (in_bad_autograd_fork)
    throw std::runtime_error(kBadForkMessage);
  std::call_once(start_device_threads_flag_, &Engine::start_device_threads, this);
}

void validate_outputs(
    const edge_list& edges,
    variable_list& grads,
    const std::function<std::string(const std::string&)>& format_error) {
  if (grads.size() != edges.size()) {
    std::stringstream ss;
    ss << "invalid number of gradients - expected " << edges.size() << ", but got " << grads.size();
    throw std::runtime_error(format_error(ss.str()));
  }
  for (size_t i = 0; i < grads.size(); i++) {
    const auto& edge = edges[i];
    if (!edge.is_valid())
      continue;
    const auto& metadata = edge.function->input_metadata(edge.input_nr);
    auto& grad = grads[i];
    if (!grad.defined())
      continue;

    if (!metadata.is_same_shape(grad)) {
      if (metadata.is_expandable_to_shape(grad)) {
        grad = metadata.reduce_grad(grad);
      } else {
        const auto message = metadata.incompatible_shape_error_message(i, grad);
        throw std::runtime_error(format_error(message.str()));
      }
    }
    if (!at::isFloatingType(grad.scalar_type())) {
      std::stringstream ss;
      ss << "invalid gradient at index " << i << " - expected a floating point gradient but got " << grad.scalar_type();
      throw std::runtime_error(format_error(ss.str()));
    }
    // grad.to(...) upstream, recorded under create_graph (ToCopyBackward0)
    if (metadata.dtype() != grad.scalar_type())
      grad = autograd::to(grad, metadata.dtype(), grad.device());
    if (grad.device() != metadata.device()) {
      // A 0-dim gradient may move; anything else on the wrong device is a bug.
      if (grad.dim() == 0) {
        grad = autograd::to(grad, grad.scalar_type(), metadata.device());
      } else {
        std::stringstream ss;
        ss << "invalid gradient at index " << i << " - expected device " << metadata.device() << " but got "
           << grad.device();
        throw std::runtime_error(format_error(ss.str()));
      }
    }
  }
}

void Engine::compute_dependencies(Node* root, GraphTask& task, uint64_t min_topo_nr) {
  // Counts, for every node reachable from root, how many edges point at it
  // (Engine::compute_dependencies). Nodes older than every output (topological_nr below
  // min_topo_nr) cannot lead to one and are not expanded.
  std::vector<Node*> queue{root};
  bool will_use_accelerator = false;
  auto& dependencies = task.dependencies_;
  while (!queue.empty()) {
    auto fn = queue.back();
    queue.pop_back();
    if (fn->topological_nr() < min_topo_nr)
      continue;
    if (!will_use_accelerator && fn->stream().has_value())
      will_use_accelerator = true;
    for (const auto& edge : fn->next_edges()) {
      if (auto next_ptr = edge.function.get()) {
        dependencies[next_ptr] += 1;
        const bool was_inserted = task.nodes_in_graph_.insert(next_ptr).second;
        if (was_inserted)
          queue.push_back(next_ptr);
      }
    }
  }
  if (will_use_accelerator) {
    // Stashes the caller's current stream on every device of every
    // registered accelerator type, so that GraphTask::exec_post_processing
    // can sync them with leaf_streams.
    task.stash_current_streams();
  }
}

variable_list Engine::execute(
    const edge_list& root_edges,
    const variable_list& inputs,
    bool keep_graph,
    bool create_graph,
    bool accumulate_grad,
    const edge_list& outputs) {
  // The callers checked that every root and output edge is valid (see
  // collect_roots in python_engine.cpp); the gradients are checked here.
  variable_list root_grads = inputs;
  validate_outputs(root_edges, root_grads, [](const std::string& msg) { return msg; });

  // A fresh call (not reentrant) starts its own queue on this thread.
  init_local_ready_queue();
  bool not_reentrant_backward_call = worker_device == NO_DEVICE;

  std::vector<Node*> temp_roots(root_edges.size());
  for (size_t i = 0; i < root_edges.size(); ++i)
    temp_roots[i] = root_edges[i].function.get();

  auto graph_task = std::make_shared<GraphTask>(
      keep_graph,
      create_graph,
      not_reentrant_backward_call ? 0 : total_depth + 1,
      local_ready_queue,
      std::move(temp_roots));

  // If we receive a single root, skip creating extra root node.
  bool skip_dummy_node = root_edges.size() == 1;
  auto graph_root =
      skip_dummy_node ? root_edges.at(0).function : std::shared_ptr<Node>(make_node<GraphRoot>(root_edges, root_grads));

  auto min_topo_nr = compute_min_topological_nr(outputs);
  // Now compute the dependencies for all executable functions.
  compute_dependencies(graph_root.get(), *graph_task, min_topo_nr);

  if (!outputs.empty()) {
    graph_task->init_to_execute(*graph_root, outputs, accumulate_grad, min_topo_nr);
  }

  // Queue the root.
  if (skip_dummy_node) {
    InputBuffer input_buffer(root_edges.at(0).function->num_inputs());
    auto input = root_grads.at(0);
    const auto input_stream = InputMetadata(input).stream();
    auto opt_next_stream = root_edges.at(0).function->stream();
    {
      // The root's stream events belong to the new task (see Note [Engine trace]).
      std::optional<trace::CurrentTaskGuard> trace_guard;
      TORCHLITE_TRACE(trace_guard.emplace(trace::current_task(), *graph_task));
      input_buffer.add(root_edges.at(0).input_nr, std::move(input), input_stream, opt_next_stream);
    }
    execute_with_graph_task(graph_task, std::move(graph_root), std::move(input_buffer));
  } else {
    execute_with_graph_task(graph_task, std::move(graph_root), InputBuffer(variable_list()));
  }
  // Avoid a refcount bump for the Future.
  auto& fut = graph_task->future_result_;
  fut->wait();
  // Without an error the future completes after the last node ran, so no
  // thread reads thread_locals_ any more (after an error, threads may still
  // be finishing nodes of the task): see release_saved_tensors_default_hooks.
  if (!graph_task->has_error_.load())
    graph_task->thread_locals_.release_saved_tensors_default_hooks();
  return fut->value();
}

std::shared_ptr<Future> Engine::execute_with_graph_task(
    const std::shared_ptr<GraphTask>& graph_task,
    std::shared_ptr<Node> graph_root,
    InputBuffer&& input_buffer) {
  // Lock mutex for GraphTask.
  std::unique_lock<std::mutex> lock(graph_task->mutex_);

  auto queue = ready_queue(graph_task->cpu_ready_queue_, input_buffer.device());

  // worker_device == NO_DEVICE: a user thread starting a non-reentrant task.
  if (worker_device == NO_DEVICE) {
    // Setting CPU_DEVICE lets a nested call see it is reentrant.
    set_device(CPU_DEVICE);
    graph_task->owner_ = worker_device;
    TORCHLITE_TRACE(trace::on_graph_task_start(*graph_task));

    // Now that all the non-thread safe fields of the graph_task have been
    // populated, we can enqueue it.
    queue->push(NodeTask(graph_task, std::move(graph_root), std::move(input_buffer)));

    // The owning thread drives the engine for every CPU task of this graph
    // task, including those pushed later by device threads.
    lock.unlock();
    try {
      thread_main(graph_task);
    } catch (...) {
      worker_device = NO_DEVICE;
      throw;
    }
    // Reset so that every backward() starts from the same engine state; the
    // queue is kept for reuse.
    worker_device = NO_DEVICE;
  } else {
    // A reentrant backward from a node running on worker_device.
    graph_task->owner_ = worker_device;
    const bool use_pool = current_depth >= max_recursion_depth_;
    // See Note [Autograd and fork]: the parent's pool threads are gone.
    // Checked before queueing anything, so no task is left behind.
    if (use_pool && pool_lost_in_fork)
      throw std::runtime_error(kBadForkMessage);
    TORCHLITE_TRACE(trace::on_graph_task_start(*graph_task));
    queue->push(NodeTask(graph_task, std::move(graph_root), std::move(input_buffer)));

    if (use_pool) {
      // See Note [Reentrant backwards]: switch to a pool thread.
      TORCHLITE_TRACE(
          trace::on_graph_task(
              trace::EventKind::ReentrantHandoff,
              *graph_task,
              "current_depth " + std::to_string(current_depth) + " reached MAX_DEPTH"));
      add_thread_pool_task(graph_task);
    } else {
      // total_depth is only maintained on this path; a pool thread starts
      // from graph_task->reentrant_depth_ instead.
      ++total_depth;
      ++current_depth;
      lock.unlock();
      try {
        thread_main(graph_task);
      } catch (...) {
        --current_depth;
        --total_depth;
        throw;
      }
      --current_depth;
      --total_depth;
    }
  }
  return graph_task->future_result_;
}

void Engine::evaluate_function(
    std::shared_ptr<GraphTask>& graph_task,
    Node* func,
    InputBuffer& inputs,
    const std::shared_ptr<ReadyQueue>& cpu_ready_queue,
    uint64_t trace_task) {
  // The consumer runs on its forward's stream (see Note [Streaming backwards]).
  const auto opt_parent_stream = (*func).stream();
  c10::OptionalStreamGuard parent_stream_guard{opt_parent_stream};

  // Note [Autograd Producer-Consumer Stream Syncs]: the consumer waits for
  // each input slot that became ready on another stream. A slot on another
  // accelerator type than the consumer's stream (inputs mixing, say, cuda and
  // sim) is read by the consumer's kernels on that slot device's current
  // stream, so that stream waits: an event cannot block a stream of another type.
  if (opt_parent_stream && !inputs.ready_streams.empty()) {
    for (size_t pos = 0; pos < inputs.buffer.size(); ++pos) {
      const auto& var = inputs.buffer[pos];
      if (!var.defined() || !c10::isAccelerator(var.device().type()))
        continue;
      const auto& ready_stream = inputs.ready_streams[pos];
      const auto& ready_event = inputs.ready_events[pos];
      if (!ready_stream || !ready_event)
        continue;
      const c10::Stream consumer_stream = ready_event->device_type() == opt_parent_stream->device_type()
          ? *opt_parent_stream
          : c10::impl::getDeviceGuardImpl(var.device().type())->getStream(var.device());
      if (*ready_stream != consumer_stream) {
        consumer_stream.wait(*ready_event);
        TORCHLITE_TRACE(
            trace::on_stream(
                trace::EventKind::StreamWait,
                *graph_task,
                consumer_stream,
                "evaluate_function: consumer waits for an input slot"));
      }
    }
  }

  const auto hooks = func->hooks();

  // If exec_info_ is not empty, we have to instrument the execution.
  auto& exec_info_ = graph_task->exec_info_;
  if (!exec_info_.empty()) {
    auto& fn_info = exec_info_.at(func);
    variable_list new_inputs = inputs.buffer;
    if (!fn_info.needed_) {
      // Tensor pre-hooks always run, once: call_function runs them for needed nodes.
      new_inputs = call_tensor_pre_hooks(hooks.get(), InputBuffer::variables(std::move(inputs)));
    }
    if (auto* capture_vec = fn_info.captures_.get()) {
      std::lock_guard<std::mutex> lock(graph_task->mutex_);
      for (const auto& capture : *capture_vec) {
        auto& captured_grad = graph_task->captured_vars_[capture.output_idx_];
        captured_grad = new_inputs[capture.input_idx_];
        for (const auto& hook : capture.hooks_)
          captured_grad = (*hook)(captured_grad);
        TORCHLITE_TRACE_NODE(Capture, trace_task, *graph_task, *func, capture.input_idx_, capture.output_idx_);
        if (opt_parent_stream) {
          // The captured grad's stream becomes a leaf stream to sync at the end.
          graph_task->leaf_streams.emplace(*opt_parent_stream);
        }
      }
    }
    if (!fn_info.needed_) {
      // Skip execution if we don't need to execute the function.
      return;
    }
  }

  auto outputs = call_function(graph_task, func, inputs, hooks.get());

  auto& fn = *func;
  if (!graph_task->keep_graph_)
    fn.release_variables();

  const auto num_outputs = outputs.size();
  if (num_outputs == 0) {
    // Records leaf stream (if applicable).
    if (opt_parent_stream) {
      std::lock_guard<std::mutex> lock(graph_task->mutex_);
      graph_task->leaf_streams.emplace(*opt_parent_stream);
    }
    return;
  }

  if (AnomalyMode::is_enabled() && AnomalyMode::should_check_nan()) {
    AutoGradMode grad_mode(false);
    for (size_t i = 0; i < num_outputs; ++i) {
      auto& output = outputs[i];
      if (output.defined() && at::any_nan(output)) {
        std::stringstream ss;
        ss << "Function '" << fn.name() << "' returned nan values in its " << i << "th output.";
        throw std::runtime_error(ss.str());
      }
    }
  }

  // Lock mutex for the accesses to GraphTask dependencies_, not_ready_ and
  // cpu_ready_queue_ below.
  std::lock_guard<std::mutex> lock(graph_task->mutex_);
  for (size_t i = 0; i < num_outputs; ++i) {
    auto& output = outputs[i];
    const auto& next = fn.next_edge(i);
    if (!next.is_valid())
      continue;

    // Check if the next function is ready to be computed.
    bool is_ready = false;
    auto& dependencies = graph_task->dependencies_;
    auto it = dependencies.find(next.function.get());
    if (it == dependencies.end()) {
      auto name = next.function->name();
      throw std::runtime_error(std::string("dependency not found for ") + name);
    } else if (--it->second == 0) {
      dependencies.erase(it);
      is_ready = true;
    }
    TORCHLITE_TRACE_NODE(Dependency, trace_task, *graph_task, *next.function, next.input_nr, is_ready ? 0 : it->second);

    auto& not_ready = graph_task->not_ready_;
    auto not_ready_it = not_ready.find(next.function.get());
    if (not_ready_it == not_ready.end()) {
      // Skip functions that aren't supposed to be executed.
      if (!exec_info_.empty()) {
        auto exec_it = exec_info_.find(next.function.get());
        if (exec_it == exec_info_.end() || !exec_it->second.should_execute())
          continue;
      }
      // No buffers have been allocated for the function.
      InputBuffer input_buffer(next.function->num_inputs());
      auto opt_next_stream = next.function->stream();
      input_buffer.add(next.input_nr, std::move(output), opt_parent_stream, opt_next_stream);
      if (is_ready) {
        auto queue = ready_queue(cpu_ready_queue, input_buffer.device());
        queue->push(NodeTask(graph_task, next.function, std::move(input_buffer)));
      } else {
        not_ready.emplace(next.function.get(), std::move(input_buffer));
        TORCHLITE_TRACE_NODE(NotReadyPark, trace_task, *graph_task, *next.function, next.input_nr, -1);
      }
    } else {
      // The function already has a buffer.
      auto& input_buffer = not_ready_it->second;
      auto opt_next_stream = next.function->stream();
      // For the trace: whether the add sums into an occupied slot.
      const bool accumulates = trace_task && output.defined() && input_buffer.buffer[next.input_nr].defined();
      input_buffer.add(next.input_nr, std::move(output), opt_parent_stream, opt_next_stream);
      if (accumulates)
        TORCHLITE_TRACE_NODE(Accumulate, trace_task, *graph_task, *next.function, next.input_nr, -1);
      if (is_ready) {
        TORCHLITE_TRACE_NODE(NotReadyRelease, trace_task, *graph_task, *next.function, next.input_nr, -1);
        auto queue = ready_queue(cpu_ready_queue, input_buffer.device());
        queue->push(NodeTask(graph_task, next.function, std::move(input_buffer)));
        not_ready.erase(not_ready_it);
      }
    }
  }
}

void Engine::queue_callback(std::function<void()> callback) {
  if (!current_graph_task) {
    throw std::runtime_error("Final callbacks can only be installed during backward pass.");
  }
  std::lock_guard<std::mutex> lock(current_graph_task->final_callbacks_lock_);
  current_graph_task->final_callbacks_.emplace_back(std::move(callback));
}

bool Engine::is_checkpoint_valid() {
  return checkpoint_valid;
}

} // namespace autograd
} // namespace torch
