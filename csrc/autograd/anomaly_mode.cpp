#include "autograd/anomaly_mode.h"
#include "autograd/function.h"

#include <atomic>
#include <iostream>

namespace torch {
namespace autograd {
namespace {
std::atomic<bool> anomaly_enabled{false};
std::atomic<bool> anomaly_check_nan{true};
} // namespace

bool AnomalyMode::is_enabled() {
  return anomaly_enabled.load(std::memory_order_relaxed);
}
bool AnomalyMode::should_check_nan() {
  return anomaly_check_nan.load(std::memory_order_relaxed);
}
void AnomalyMode::set_enabled(bool enabled, bool check_nan) {
  anomaly_enabled = enabled;
  anomaly_check_nan = check_nan;
}

DetectAnomalyGuard::DetectAnomalyGuard(bool check_nan)
    : prev_enabled_(AnomalyMode::is_enabled()), prev_check_nan_(AnomalyMode::should_check_nan()) {
  AnomalyMode::set_enabled(true, check_nan);
}
DetectAnomalyGuard::~DetectAnomalyGuard() {
  AnomalyMode::set_enabled(prev_enabled_, prev_check_nan_);
}

void AnomalyMetadata::store_stack() {
  context_ = "(C++ node; no forward traceback is recorded)";
}

void AnomalyMetadata::print_stack(const std::string& current_node_name) {
  std::cerr << "Error detected in " << current_node_name << ". "
            << "Traceback of forward call that caused the error:\n"
            << context_ << "\n";
  // Walk up the nodes whose backward created this one (reentrant or double backward).
  auto parent = parent_.lock();
  while (parent) {
    std::cerr << "\n\nPrevious calculation was induced by " << parent->name() << ". "
              << "Traceback of forward call that induced the previous calculation:\n"
              << parent->metadata()->context_ << "\n";
    parent = parent->metadata()->parent_.lock();
  }
}

void AnomalyMetadata::assign_parent(const std::shared_ptr<Node>& parent_node) {
  parent_ = parent_node;
}

} // namespace autograd
} // namespace torch
