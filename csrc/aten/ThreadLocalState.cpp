#include "aten/ThreadLocalState.h"

namespace at {

ThreadLocalState::ThreadLocalState()
    : autograd_tls_(c10::AutogradState::get_tls_state()),
      saved_tensors_default_hooks_state_(SavedTensorDefaultHooks::get_tls_state()),
      inference_mode_(c10::InferenceMode::is_enabled()) {}

void ThreadLocalState::setThreadLocalState(const ThreadLocalState& state) {
  c10::AutogradState::set_tls_state(state.autograd_tls_);
  SavedTensorDefaultHooks::set_tls_state(state.saved_tensors_default_hooks_state_);
  c10::InferenceMode::set_enabled(state.inference_mode_);
}

} // namespace at
