#include "autograd/grad_mode.h"
#include "c10/core/AutogradState.h"

namespace torch {
namespace autograd {

bool GradMode::is_enabled() {
  return c10::AutogradState::get_tls_state().get_grad_mode();
}
void GradMode::set_enabled(bool enabled) {
  c10::AutogradState::get_tls_state().set_grad_mode(enabled);
}
bool MultithreadingMode::is_enabled() {
  return c10::AutogradState::get_tls_state().get_multithreading_enabled();
}
void MultithreadingMode::set_enabled(bool enabled) {
  c10::AutogradState::get_tls_state().set_multithreading_enabled(enabled);
}

} // namespace autograd
} // namespace torch
