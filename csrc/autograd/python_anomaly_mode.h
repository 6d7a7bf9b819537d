#pragma once
// Anomaly metadata of nodes made while Python runs
// (torch/csrc/autograd/python_anomaly_mode.h): the forward traceback is the
// Python stack, kept in the node's metadata dict under "traceback_", and the
// report of a failing node is a Python UserWarning, as PyTorch's TORCH_WARN.
#include "autograd/anomaly_mode.h"
#include "autograd/python_variable.h"

namespace torch {
namespace autograd {

struct PyAnomalyMetadata : public AnomalyMetadata {
  static constexpr const char* ANOMALY_TRACE_KEY = "traceback_";
  PyAnomalyMetadata();
  ~PyAnomalyMetadata() override;
  void store_stack() override;
  void print_stack(const std::string& current_node_name) override;
  // The node's metadata dict (grad_fn.metadata); the caller holds the GIL.
  PyObject* dict() const noexcept {
    return dict_;
  }

 private:
  PyObject* dict_;
};

} // namespace autograd
} // namespace torch
