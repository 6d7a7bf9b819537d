#pragma once
// at::ThreadLocalState (aten/src/ATen/ThreadLocalState.h): the thread-locals
// of the caller that a backward can observe, captured when a GraphTask is made
// (GraphTask::thread_locals_) and installed by ThreadLocalStateGuard around
// every node the engine runs, on whichever thread runs it (thread_main,
// torch/csrc/autograd/engine.cpp):
// grad mode (create_graph), the multithreading switch, inference mode and the
// saved_tensors_hooks stack. A hook or formula on a device thread thus sees
// what it would see on the caller's thread.
#include "aten/SavedTensorHooks.h"
#include "c10/core/AutogradState.h"
#include "c10/core/InferenceMode.h"

namespace at {

class ThreadLocalState {
 public:
  // Captures the calling thread's state.
  ThreadLocalState();

  void set_grad_mode(bool enabled) {
    autograd_tls_.set_grad_mode(enabled);
  }
  bool get_grad_mode() const {
    return autograd_tls_.get_grad_mode();
  }

  // Drops the saved-tensor hooks this state holds. The engine calls it on the
  // thread that ran backward once the task is done, so the hooks (Python
  // objects) are not released by an engine thread, possibly while the
  // interpreter shuts down.
  void release_saved_tensors_default_hooks() {
    saved_tensors_default_hooks_state_.stack = nullptr;
  }

  // Makes `state` the calling thread's state.
  static void setThreadLocalState(const ThreadLocalState& state);

 private:
  c10::AutogradState autograd_tls_;
  SavedTensorDefaultHooksTLS saved_tensors_default_hooks_state_;
  bool inference_mode_;
};

// Installs a ThreadLocalState for a scope and restores the previous one.
class ThreadLocalStateGuard {
 public:
  explicit ThreadLocalStateGuard(const ThreadLocalState& state) {
    ThreadLocalState::setThreadLocalState(state);
  }
  ThreadLocalStateGuard(const ThreadLocalStateGuard&) = delete;
  ThreadLocalStateGuard& operator=(const ThreadLocalStateGuard&) = delete;
  ~ThreadLocalStateGuard() {
    ThreadLocalState::setThreadLocalState(prev_state_);
  }

 private:
  const ThreadLocalState prev_state_;
};

} // namespace at
