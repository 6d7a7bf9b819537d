#pragma once
// Thread-local grad mode (c10/core/GradMode.h) and the thread-local switch for
// running every autograd task on the calling thread
// (set_multithreading_enabled). Both live in c10::AutogradState
// (grad_mode.cpp), which at::ThreadLocalState carries to the engine's threads.

namespace torch {
namespace autograd {

struct GradMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

struct AutoGradMode {
  explicit AutoGradMode(bool enabled) : prev_(GradMode::is_enabled()) {
    GradMode::set_enabled(enabled);
  }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;
  ~AutoGradMode() {
    GradMode::set_enabled(prev_);
  }

 private:
  bool prev_;
};

struct NoGradGuard : public AutoGradMode {
  NoGradGuard() : AutoGradMode(false) {}
};

struct MultithreadingMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

struct MultithreadingEnabledGuard {
  explicit MultithreadingEnabledGuard(bool enabled) : prev_(MultithreadingMode::is_enabled()) {
    MultithreadingMode::set_enabled(enabled);
  }
  MultithreadingEnabledGuard(const MultithreadingEnabledGuard&) = delete;
  MultithreadingEnabledGuard& operator=(const MultithreadingEnabledGuard&) = delete;
  ~MultithreadingEnabledGuard() {
    MultithreadingMode::set_enabled(prev_);
  }

 private:
  bool prev_;
};

} // namespace autograd
} // namespace torch
