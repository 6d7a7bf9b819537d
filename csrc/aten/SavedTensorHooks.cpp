#include "aten/SavedTensorHooks.h"

#include <stdexcept>

namespace at {

namespace {
thread_local SavedTensorDefaultHooksTLS tls;
} // namespace

void SavedTensorDefaultHooks::push_hooks(c10::SafePyObject pack_hook, c10::SafePyObject unpack_hook) {
  auto stack = tls.stack ? std::make_shared<std::vector<SavedTensorDefaultHooksTLS::Hooks>>(*tls.stack)
                         : std::make_shared<std::vector<SavedTensorDefaultHooksTLS::Hooks>>();
  stack->emplace_back(std::move(pack_hook), std::move(unpack_hook));
  tls.stack = std::move(stack);
}

void SavedTensorDefaultHooks::pop_hooks() {
  if (!tls.stack || tls.stack->empty())
    throw std::runtime_error("no saved tensors hooks to pop");
  if (tls.stack->size() == 1) {
    tls.stack = nullptr;
    return;
  }
  tls.stack =
      std::make_shared<const std::vector<SavedTensorDefaultHooksTLS::Hooks>>(tls.stack->begin(), tls.stack->end() - 1);
}

std::optional<SavedTensorDefaultHooksTLS::Hooks> SavedTensorDefaultHooks::get_hooks() {
  if (!tls.stack)
    return std::nullopt;
  return tls.stack->back();
}

const SavedTensorDefaultHooksTLS& SavedTensorDefaultHooks::get_tls_state() {
  return tls;
}

void SavedTensorDefaultHooks::set_tls_state(const SavedTensorDefaultHooksTLS& state) {
  tls = state;
}

} // namespace at
