#pragma once
// The engine trace: a record of every step the engine takes while tracing is
// on (torchlite's own study aid; PyTorch has only the profiler's
// RECORD_FUNCTION ranges).
//
// Note [Engine trace]
// Each NodeTask decides once, when it is pushed onto a ReadyQueue, whether it
// is traced: ReadyQueue::push loads the global flag (one relaxed atomic load,
// the whole cost of tracing when it is off) and, when it is on, gives the task
// a non-zero trace id (NodeTask::trace_id_). Everything that task then causes
// (its start and end, the dependency decrements, not_ready_ buffers and
// InputBuffer accumulations of its outputs, the tasks it pushes, an exception)
// is recorded only when its trace id is non-zero, so the running task carries
// the decision and no other per-task load is needed. GraphTask-level events
// (start, completion, reentrant hand-off, final callbacks) and stream event
// record/wait calls (accelerator paths only) load the flag themselves.
// InputBuffer::add does not know its GraphTask: its stream events take the
// task and GraphTask from the thread's CurrentTaskGuard, which thread_main
// installs for a traced task and Engine::execute for the root's buffer.
// Recording goes into one mutex-guarded vector; that is only paid while on.
// Tracing switched on or off in the middle of a backward gives a partial
// record of it.
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace c10 {
struct Stream;
} // namespace c10

namespace torch {
namespace autograd {

struct Node;
struct GraphTask;
struct NodeTask;
struct ReadyQueue;

namespace trace {

enum class EventKind : uint8_t {
  GraphTaskStart, // execute_with_graph_task queued the root
  GraphTaskNode, // after GraphTaskStart, one per node of the task: count its dependencies_,
                 // detail its exec_info_ ("" when empty, else "needed", "captured",
                 // "needed captured" or "not needed")
  GraphTaskEnd, // the task's future completed (detail: "ok" or "error")
  Enqueue, // a NodeTask was pushed (queue, producer)
  Wakeup, // an empty task was pushed to wake the owner thread
  TaskStart, // a worker popped the NodeTask and runs it (queue)
  TaskEnd, // the NodeTask finished (detail: "ok", "error", "skipped")
  Dependency, // a dependency of `node` was decremented (count: what is left)
  NotReadyPark, // a new InputBuffer for `node` was parked in not_ready_
  NotReadyRelease, // `node`'s buffer left not_ready_ for a ready queue
  Accumulate, // a gradient was summed into an occupied InputBuffer slot
  Capture, // grad() captured the gradient flowing into `node` (count: output index)
  ReentrantHandoff, // a reentrant backward went to a pool thread (MAX_DEPTH reached)
  StreamRecord, // an event was recorded on a stream (detail: where, stream)
  StreamWait, // a stream waits for an event (detail: where, stream)
  FinalCallback, // a final callback runs (count: its index)
  Exception, // a node raised (detail: the message)
};

const char* kind_name(EventKind kind);

struct Event {
  EventKind kind = EventKind::Enqueue;
  int64_t time_ns = 0; // steady_clock
  uint64_t thread = 0; // the recording thread's trace index (thread_index())
  int64_t native_thread = 0; // its OS thread id (threading.get_native_id())
  std::string thread_name; // "user thread", "device thread N", "reentrant pool thread"
  int worker_device = -2; // the thread's worker_device (NO_DEVICE -2, CPU_DEVICE -1)
  uint64_t graph_task = 0; // GraphTask::id_
  int reentrant_depth = 0; // GraphTask::reentrant_depth_
  uint64_t task = 0; // the NodeTask's trace id (0: none)
  uint64_t producer = 0; // Enqueue: the task that pushed it (0: execute itself)
  std::string node; // Node::name() of the node concerned ("" if none)
  uint64_t node_id = 0; // its address (the id graph pictures use)
  uint64_t sequence_nr = 0;
  uint64_t topological_nr = 0;
  std::string queue; // "cpu:T" (the CPU queue of trace thread T) or "device:N"
  int64_t input_nr = -1; // the InputBuffer slot, where one is concerned
  int64_t count = -1; // see EventKind
  std::string detail;
};

namespace detail {
extern std::atomic<bool> enabled;
} // namespace detail

// The flag every NodeTask push reads (see Note [Engine trace]).
inline bool is_enabled() noexcept {
  return detail::enabled.load(std::memory_order_relaxed);
}

// Starts recording (clears what a previous session left). Throws
// std::runtime_error when a session is already recording.
void start();
// Stops recording and returns the events in the order they were recorded.
std::vector<Event> stop();

// A small, stable index for the calling thread (1, 2, ...), given on first use.
uint64_t thread_index();
// What this thread is, for the trace (set by the engine when it starts one).
void set_thread_role(std::string role);

// The trace id of the NodeTask this thread is running (0: none traced).
uint64_t current_task();
// Makes `task` (0: execute itself) of `graph_task` the one this thread's
// events are recorded for, until it goes out of scope.
struct CurrentTaskGuard {
  CurrentTaskGuard(uint64_t task, const GraphTask& graph_task);
  ~CurrentTaskGuard();
  CurrentTaskGuard(const CurrentTaskGuard&) = delete;
  CurrentTaskGuard& operator=(const CurrentTaskGuard&) = delete;

 private:
  uint64_t previous_task_;
  const GraphTask* previous_graph_task_;
};

// Recording points. Each is called only when tracing (see the Note), through
// the one-line macros below at the engine's sites.
void on_enqueue(NodeTask& task, const ReadyQueue& queue);
void on_task_start(const NodeTask& task, const GraphTask& graph_task, const ReadyQueue& queue);
void on_task_end(const NodeTask& task, const GraphTask& graph_task, const char* status);
void on_node_event(
    EventKind kind,
    uint64_t task,
    const GraphTask& graph_task,
    const Node& node,
    int64_t input_nr,
    int64_t count);
// GraphTaskStart (detail: the roots, the nodes reached, whether exec_info_
// limits what runs), then a GraphTaskNode per node: the roots, then the
// others in the order compute_dependencies' depth-first walk first reaches
// them. The caller holds the task's mutex.
void on_graph_task_start(const GraphTask& graph_task);
void on_graph_task(EventKind kind, const GraphTask& graph_task, const std::string& detail);
void on_final_callback(const GraphTask& graph_task, size_t index);
void on_exception(uint64_t task, const GraphTask& graph_task, const Node* node, const std::string& message);
void on_stream(EventKind kind, const GraphTask& graph_task, const c10::Stream& stream, const char* where);
// For InputBuffer::add: the GraphTask of the thread's CurrentTaskGuard;
// nothing is recorded without one (a task pushed before tracing started).
void on_stream(EventKind kind, const c10::Stream& stream, const char* where);

} // namespace trace
} // namespace autograd
} // namespace torch

// A GraphTask-level recording point: `call` runs only while tracing is on, at
// the cost of one relaxed load when off (Note [Engine trace]).
#define TORCHLITE_TRACE(...)                      \
  do {                                            \
    if (::torch::autograd::trace::is_enabled()) { \
      __VA_ARGS__;                                \
    }                                             \
  } while (0)

// A recording point of a NodeTask's step: the event `kind` of `node`, recorded
// only when the running task is traced (`trace_task` non-zero), with no load.
#define TORCHLITE_TRACE_NODE(kind, trace_task, graph_task, node, input_nr, count)                    \
  do {                                                                                               \
    if (trace_task) {                                                                                \
      ::torch::autograd::trace::on_node_event(                                                       \
          ::torch::autograd::trace::EventKind::kind, trace_task, graph_task, node, input_nr, count); \
    }                                                                                                \
  } while (0)
