#pragma once
// The autograd thread-locals (c10/core/AutogradState.h): grad mode and the
// switch that runs every task of a backward on the calling thread. One struct
// so that at::ThreadLocalState can copy them into a GraphTask and the engine's
// threads run each node under the caller's values (GraphTask::thread_locals_,
// torch/csrc/autograd/graph_task.h).

namespace c10 {

struct AutogradState {
  static AutogradState& get_tls_state();
  static void set_tls_state(AutogradState state);

  AutogradState(bool grad_mode, bool multithreading_enabled)
      : grad_mode_(grad_mode), multithreading_enabled_(multithreading_enabled) {}

  void set_grad_mode(bool enabled) {
    grad_mode_ = enabled;
  }
  void set_multithreading_enabled(bool enabled) {
    multithreading_enabled_ = enabled;
  }
  bool get_grad_mode() const {
    return grad_mode_;
  }
  bool get_multithreading_enabled() const {
    return multithreading_enabled_;
  }

 private:
  bool grad_mode_;
  bool multithreading_enabled_;
};

} // namespace c10
