#include "c10/core/AutogradState.h"

namespace c10 {

namespace {
// A new thread starts with grad mode on and multithreading enabled.
thread_local AutogradState autograd_state_tls(/*grad_mode=*/true, /*multithreading_enabled=*/true);
} // namespace

AutogradState& AutogradState::get_tls_state() {
  return autograd_state_tls;
}

void AutogradState::set_tls_state(AutogradState state) {
  autograd_state_tls = state;
}

} // namespace c10
