#pragma once
// The result of a GraphTask: completed once with the captured gradients or
// with the first error (stands in for at::ivalue::Future, which GraphTask::future_result_
// is in torch/csrc/autograd/graph_task.h).
#include "autograd/function_hook.h"

#include <condition_variable>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <utility>

namespace torch {
namespace autograd {

class Future {
 public:
  void markCompleted(variable_list value) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (completed_)
        throw std::logic_error("Future::markCompleted on a completed future");
      value_ = std::move(value);
      completed_ = true;
    }
    cv_.notify_all();
  }
  void setError(std::exception_ptr eptr) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (completed_)
        throw std::logic_error("Future::setError on a completed future");
      error_ = std::move(eptr);
      completed_ = true;
    }
    cv_.notify_all();
  }
  void setErrorIfNeeded(std::exception_ptr eptr) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (completed_)
        return;
      error_ = std::move(eptr);
      completed_ = true;
    }
    cv_.notify_all();
  }
  // Blocks until completed; does not throw.
  void wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [this] { return completed_; });
  }
  bool completed() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return completed_;
  }
  // The value, or rethrows the stored error. Call after wait(), once: the
  // error moves out, so it dies on the caller's thread (a Python error must
  // not be destroyed on an engine thread after the interpreter is gone).
  variable_list value() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (error_) {
      std::exception_ptr error = std::exchange(error_, nullptr);
      lock.unlock();
      std::rethrow_exception(error);
    }
    return std::move(value_);
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  bool completed_ = false;
  variable_list value_;
  std::exception_ptr error_;
};

} // namespace autograd
} // namespace torch
