#pragma once
// Whether inference mode is on in this thread (c10/core/InferenceMode.h).
// Tensors made while it is on are inference tensors: they never require grad,
// track no version, may not be saved for backward and may be modified in place
// only inside inference mode (see docs/design.md "Inference mode").

namespace c10 {

struct InferenceMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

} // namespace c10
