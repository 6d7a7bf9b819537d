#pragma once
// The gradients arriving for one node, one slot per node input, summed when
// several edges feed the same slot (torch/csrc/autograd/input_buffer.h).
// Alongside each slot it keeps the stream chosen for accumulating into it and
// the event/stream the consumer must wait on before reading it.
#include "autograd/function_hook.h"
#include "c10/core/Event.h"
#include "c10/core/Stream.h"

#include <optional>
#include <vector>

namespace torch {
namespace autograd {

struct Node;

struct InputBuffer {
  // The stream vectors stay empty until an accelerator gradient arrives (add sizes them):
  // a host-only buffer costs one allocation, not four.
  explicit InputBuffer(size_t size) : buffer(size) {}
  InputBuffer(const InputBuffer& other) = delete;
  InputBuffer(InputBuffer&& other) = default;
  explicit InputBuffer(variable_list&& inputs) : buffer(std::move(inputs)) {}
  InputBuffer& operator=(InputBuffer&& other) = default;

  // Accumulates `var` into slot `pos`. The producer stream is where `var` was
  // computed, the consumer stream is where the consuming node will run; see Note
  // [Autograd Producer-Consumer Stream Syncs] in input_buffer.cpp.
  void add(
      size_t pos,
      Variable&& var,
      const std::optional<c10::Stream>& opt_producer_stream,
      const std::optional<c10::Stream>& opt_consumer_stream);

  // The device whose worker runs the node: the first non-CPU input, else CPU.
  c10::Device device() const;

  Variable operator[](size_t pos) {
    return buffer[pos];
  }

  // Returns the inputs as a list of variables. Destroys given InputBuffer.
  static std::vector<Variable> variables(InputBuffer&& g);

  std::vector<Variable> buffer;
  // One entry per slot once an accelerator gradient was added, else empty.
  std::vector<std::optional<c10::Stream>> opt_accum_streams;
  std::vector<std::optional<c10::Event>> ready_events;
  std::vector<std::optional<c10::Stream>> ready_streams;
};

} // namespace autograd
} // namespace torch
