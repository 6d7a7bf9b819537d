#pragma once
// The thread-local stack of default saved-tensor hooks
// (aten/src/ATen/SavedTensorHooks.h) that
// torch.autograd.graph.saved_tensors_hooks pushes and pops. The core only
// stores the hooks: the Python binding calls them. The stack is an immutable
// snapshot replaced on push and pop, so at::ThreadLocalState copies it into a
// GraphTask, and the engine installs it per node, with one pointer copy.
#include "c10/core/SafePyObject.h"

#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace at {

struct SavedTensorDefaultHooksTLS {
  using Hooks = std::pair<c10::SafePyObject, c10::SafePyObject>; // (pack, unpack)
  // Innermost last; null when empty.
  std::shared_ptr<const std::vector<Hooks>> stack;
};

struct SavedTensorDefaultHooks {
  static void push_hooks(c10::SafePyObject pack_hook, c10::SafePyObject unpack_hook);
  // Throws std::runtime_error when the stack is empty.
  static void pop_hooks();
  // The innermost (pack, unpack) pair, or nullopt.
  static std::optional<SavedTensorDefaultHooksTLS::Hooks> get_hooks();
  static const SavedTensorDefaultHooksTLS& get_tls_state();
  static void set_tls_state(const SavedTensorDefaultHooksTLS& tls);
};

} // namespace at
