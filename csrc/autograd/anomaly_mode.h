#pragma once
// Anomaly detection (torch/csrc/autograd/anomaly_mode.h): with it on, every Node created
// records where it was made, and the engine checks every gradient for NaN,
// naming the function and output index that produced it.
#include <memory>
#include <string>

namespace torch {
namespace autograd {

struct Node;

struct AnomalyMode {
  static bool is_enabled();
  static bool should_check_nan();
  static void set_enabled(bool enabled, bool check_nan = true);
};

struct DetectAnomalyGuard {
  explicit DetectAnomalyGuard(bool check_nan = true);
  DetectAnomalyGuard(const DetectAnomalyGuard&) = delete;
  DetectAnomalyGuard& operator=(const DetectAnomalyGuard&) = delete;
  ~DetectAnomalyGuard();

 private:
  bool prev_enabled_;
  bool prev_check_nan_;
};

// Per-node record of its creation. The C++ base keeps a user-readable
// creation context and the parent node; the Python binding overrides it to
// keep the forward traceback.
struct AnomalyMetadata {
  virtual ~AnomalyMetadata() = default;
  virtual void store_stack();
  virtual void print_stack(const std::string& current_node_name);
  virtual void assign_parent(const std::shared_ptr<Node>& parent_node);

  std::string context_; // what store_stack() captured
  std::weak_ptr<Node> parent_;
};

} // namespace autograd
} // namespace torch
