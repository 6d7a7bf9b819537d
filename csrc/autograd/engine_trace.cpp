#include "autograd/engine_trace.h"
#include "autograd/engine.h"
#include "c10/core/Stream.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <unordered_set>

namespace torch {
namespace autograd {
namespace trace {

namespace detail {
std::atomic<bool> enabled{false};
} // namespace detail

namespace {

std::mutex events_mutex;
std::vector<Event> events;
std::atomic<uint64_t> next_task_id{1};
std::atomic<uint64_t> next_thread_index{1};

thread_local uint64_t tls_thread_index = 0;
thread_local int64_t tls_native_thread = 0;
thread_local std::string tls_role = "user thread";
thread_local uint64_t tls_current_task = 0;
// Set together with tls_current_task; alive as long as its guard.
thread_local const GraphTask* tls_current_graph_task = nullptr;

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// An event stamped with the time and the recording thread.
Event make_event(EventKind kind) {
  Event e;
  e.kind = kind;
  e.time_ns = now_ns();
  e.thread = thread_index();
  if (tls_native_thread == 0)
    tls_native_thread = static_cast<int64_t>(::syscall(SYS_gettid));
  e.native_thread = tls_native_thread;
  e.thread_name = tls_role;
  e.worker_device = get_worker_device();
  return e;
}

void set_graph_task(Event& e, const GraphTask& graph_task) {
  e.graph_task = graph_task.id_;
  e.reentrant_depth = graph_task.reentrant_depth_;
}

void set_node(Event& e, const Node& node) {
  e.node = node.name();
  e.node_id = reinterpret_cast<uintptr_t>(&node);
  e.sequence_nr = node.sequence_nr();
  e.topological_nr = node.topological_nr();
}

void record(Event&& e) {
  std::lock_guard<std::mutex> lock(events_mutex);
  // A thread may still be inside a recording point when stop() ran.
  if (detail::enabled.load(std::memory_order_relaxed))
    events.push_back(std::move(e));
}

std::string queue_name(const ReadyQueue& queue) {
  if (queue.trace_device_ >= 0)
    return "device:" + std::to_string(queue.trace_device_);
  return "cpu:" + std::to_string(queue.trace_owner_thread_);
}

} // namespace

const char* kind_name(EventKind kind) {
  switch (kind) {
    case EventKind::GraphTaskStart:
      return "graph_task_start";
    case EventKind::GraphTaskNode:
      return "graph_task_node";
    case EventKind::GraphTaskEnd:
      return "graph_task_end";
    case EventKind::Enqueue:
      return "enqueue";
    case EventKind::Wakeup:
      return "wakeup";
    case EventKind::TaskStart:
      return "task_start";
    case EventKind::TaskEnd:
      return "task_end";
    case EventKind::Dependency:
      return "dependency";
    case EventKind::NotReadyPark:
      return "not_ready_park";
    case EventKind::NotReadyRelease:
      return "not_ready_release";
    case EventKind::Accumulate:
      return "accumulate";
    case EventKind::Capture:
      return "capture";
    case EventKind::ReentrantHandoff:
      return "reentrant_handoff";
    case EventKind::StreamRecord:
      return "stream_record";
    case EventKind::StreamWait:
      return "stream_wait";
    case EventKind::FinalCallback:
      return "final_callback";
    case EventKind::Exception:
      return "exception";
  }
  return "unknown";
}

void start() {
  std::lock_guard<std::mutex> lock(events_mutex);
  if (detail::enabled.load(std::memory_order_relaxed)) {
    throw std::runtime_error("an engine trace is already being recorded");
  }
  events.clear();
  // Task ids count from 1 in each recording, so a timeline reads "task #1" first.
  next_task_id.store(1);
  detail::enabled.store(true, std::memory_order_relaxed);
}

std::vector<Event> stop() {
  std::lock_guard<std::mutex> lock(events_mutex);
  detail::enabled.store(false, std::memory_order_relaxed);
  std::vector<Event> result = std::move(events);
  events.clear();
  return result;
}

uint64_t thread_index() {
  if (tls_thread_index == 0)
    tls_thread_index = next_thread_index.fetch_add(1);
  return tls_thread_index;
}

void set_thread_role(std::string role) {
  tls_role = std::move(role);
}

uint64_t current_task() {
  return tls_current_task;
}

CurrentTaskGuard::CurrentTaskGuard(uint64_t task, const GraphTask& graph_task)
    : previous_task_(tls_current_task), previous_graph_task_(tls_current_graph_task) {
  tls_current_task = task;
  tls_current_graph_task = &graph_task;
}
CurrentTaskGuard::~CurrentTaskGuard() {
  tls_current_task = previous_task_;
  tls_current_graph_task = previous_graph_task_;
}

void on_enqueue(NodeTask& task, const ReadyQueue& queue) {
  if (task.isShutdownTask_)
    return;
  auto graph_task = task.base_.lock();
  if (!graph_task)
    return;
  Event e = make_event(task.fn_ ? EventKind::Enqueue : EventKind::Wakeup);
  set_graph_task(e, *graph_task);
  if (task.fn_) {
    task.trace_id_ = next_task_id.fetch_add(1);
    e.task = task.trace_id_;
    set_node(e, *task.fn_);
  }
  e.producer = tls_current_task;
  e.queue = queue_name(queue);
  record(std::move(e));
}

void on_task_start(const NodeTask& task, const GraphTask& graph_task, const ReadyQueue& queue) {
  Event e = make_event(EventKind::TaskStart);
  set_graph_task(e, graph_task);
  e.task = task.trace_id_;
  set_node(e, *task.fn_);
  e.queue = queue_name(queue);
  record(std::move(e));
}

void on_task_end(const NodeTask& task, const GraphTask& graph_task, const char* status) {
  Event e = make_event(EventKind::TaskEnd);
  set_graph_task(e, graph_task);
  e.task = task.trace_id_;
  set_node(e, *task.fn_);
  e.detail = status;
  record(std::move(e));
}

void on_node_event(
    EventKind kind,
    uint64_t task,
    const GraphTask& graph_task,
    const Node& node,
    int64_t input_nr,
    int64_t count) {
  Event e = make_event(kind);
  set_graph_task(e, graph_task);
  e.task = task;
  set_node(e, node);
  e.input_nr = input_nr;
  e.count = count;
  record(std::move(e));
}

void on_graph_task_start(const GraphTask& graph_task) {
  std::ostringstream ss;
  ss << "roots:";
  for (const Node* root : graph_task.graph_roots_)
    ss << ' ' << (root ? root->name() : "None");
  ss << "; nodes_in_graph: " << graph_task.nodes_in_graph_.size()
     << "; exec_info: " << (graph_task.exec_info_.empty() ? "all" : "partial");
  on_graph_task(EventKind::GraphTaskStart, graph_task, ss.str());
  // The roots, then the other nodes in the order compute_dependencies' walk
  // first reaches them: nodes_in_graph_ is unordered, and its order (by
  // address) would change from run to run.
  std::vector<const Node*> nodes;
  std::unordered_set<const Node*> seen;
  for (const Node* root : graph_task.graph_roots_) {
    if (root && seen.insert(root).second)
      nodes.push_back(root);
  }
  std::vector<const Node*> stack(nodes);
  while (!stack.empty()) {
    const Node* fn = stack.back();
    stack.pop_back();
    for (const auto& edge : fn->next_edges()) {
      Node* next = edge.function.get();
      if (next && graph_task.nodes_in_graph_.count(next) && seen.insert(next).second) {
        nodes.push_back(next);
        stack.push_back(next);
      }
    }
  }
  for (const Node* n : nodes) {
    Event e = make_event(EventKind::GraphTaskNode);
    set_graph_task(e, graph_task);
    set_node(e, *n);
    auto dep = graph_task.dependencies_.find(const_cast<Node*>(n));
    e.count = dep == graph_task.dependencies_.end() ? 0 : dep->second;
    if (!graph_task.exec_info_.empty()) {
      auto info = graph_task.exec_info_.find(const_cast<Node*>(n));
      const bool needed = info != graph_task.exec_info_.end() && info->second.needed_;
      const bool captured = info != graph_task.exec_info_.end() && info->second.captures_;
      e.detail = needed && captured ? "needed captured" : needed ? "needed" : captured ? "captured" : "not needed";
    }
    record(std::move(e));
  }
}

void on_graph_task(EventKind kind, const GraphTask& graph_task, const std::string& detail) {
  Event e = make_event(kind);
  set_graph_task(e, graph_task);
  e.task = tls_current_task;
  e.detail = detail;
  record(std::move(e));
}

void on_final_callback(const GraphTask& graph_task, size_t index) {
  Event e = make_event(EventKind::FinalCallback);
  set_graph_task(e, graph_task);
  e.count = static_cast<int64_t>(index);
  record(std::move(e));
}

void on_exception(uint64_t task, const GraphTask& graph_task, const Node* node, const std::string& message) {
  Event e = make_event(EventKind::Exception);
  set_graph_task(e, graph_task);
  e.task = task;
  if (node)
    set_node(e, *node);
  e.detail = message;
  record(std::move(e));
}

void on_stream(EventKind kind, const c10::Stream& stream, const char* where) {
  if (tls_current_graph_task)
    on_stream(kind, *tls_current_graph_task, stream, where);
}

void on_stream(EventKind kind, const GraphTask& graph_task, const c10::Stream& stream, const char* where) {
  Event e = make_event(kind);
  set_graph_task(e, graph_task);
  e.task = tls_current_task;
  std::ostringstream ss;
  ss << where << ": " << stream;
  e.detail = ss.str();
  record(std::move(e));
}

} // namespace trace
} // namespace autograd
} // namespace torch
