#include "c10/core/InferenceMode.h"

namespace c10 {

namespace {
thread_local bool inference_mode_enabled = false;
} // namespace

bool InferenceMode::is_enabled() {
  return inference_mode_enabled;
}

void InferenceMode::set_enabled(bool enabled) {
  inference_mode_enabled = enabled;
}

} // namespace c10
