#include "autograd/input_buffer.h"
#include "aten/Functions.h"
#include "autograd/engine_trace.h"
#include "autograd/generated/Functions.h"
#include "autograd/grad_mode.h"

#include "c10/core/DeviceGuard.h"

#include <stdexcept>

namespace torch {
namespace autograd {
namespace {

// Sums `var` into buffer[pos]. Adds in place into the old buffer only when
// nothing else can observe it: the buffer holds the last reference to the
// tensor, its memory is reachable through no other storage (a view, a numpy
// array), and grad mode is off (with create_graph the sum must be a new
// tensor, recorded in the graph).
void accumulate(std::vector<Variable>& buffer, const size_t pos, Variable&& var) {
  auto& old_var = buffer[pos];
  if (!GradMode::is_enabled() && old_var.use_count() == 1 && at::storage_is_exclusive(old_var) &&
      old_var.is_contiguous() && !old_var.requires_grad()) {
    old_var.add_(var);
  } else {
    buffer[pos] = torch::autograd::add(old_var, var);
  }
}

} // namespace

// Note [Autograd Producer-Consumer Stream Syncs] (torch/csrc/autograd/input_buffer.cpp)
// A gradient for an accelerator tensor is produced on one stream and consumed
// on another. The five cases of InputBuffer::add are, with var's device D:
//   (1) var is on the CPU: no streams; accumulate on the CPU.
//   (2) producer and consumer both on D: accumulate on the consumer stream,
//       after it waits for the producer stream (if different).
//   (3) consumer on D, producer elsewhere: accumulate on the consumer stream,
//       after it waits for the producer stream var was made on (older
//       PyTorch waited on D's default stream; the producer stream is what
//       actually made var, as newer PyTorch does).
//   (4) producer on D, consumer elsewhere: accumulate on the producer
//       device's stream, which waits for the producer.
//   (5) neither on D: accumulate on D's current stream.
// The first gradient into a slot only picks that accumulation stream and
// records a ready event on the producer stream (when a reader may be on
// another stream); nothing runs. Each later
// gradient makes the accumulation stream wait for its producer and for the
// slot's ready event, accumulates there, and records a new ready event.
// Before the consumer runs, the engine makes the consumer stream wait on every
// slot's ready event (Engine::evaluate_function), so every case is
// synchronised exactly once, at the point the data is read.
void InputBuffer::add(
    size_t pos,
    Variable&& var,
    const std::optional<c10::Stream>& opt_producer_stream_,
    const std::optional<c10::Stream>& opt_consumer_stream_) {
  if (pos >= buffer.size())
    throw std::out_of_range("InputBuffer::add: index out of range");
  if (!var.defined())
    return;
  const auto device = var.device();
  const auto device_type = device.type();

  // (1) Host tensors: no streams involved.
  if (!c10::isAccelerator(device_type)) {
    if (!buffer[pos].defined()) {
      buffer[pos] = std::move(var);
    } else {
      accumulate(buffer, pos, std::move(var));
    }
    return;
  }

  if (ready_streams.size() != buffer.size()) {
    opt_accum_streams.resize(buffer.size());
    ready_events.resize(buffer.size());
    ready_streams.resize(buffer.size());
  }
  const auto* impl = c10::impl::getDeviceGuardImpl(device_type);
  // A producer or consumer without a stream (e.g. a CPU node made this
  // gradient by a device copy) is treated as var's device's current stream.
  const c10::Stream producer_stream = (opt_producer_stream_ && opt_producer_stream_->device_type() == device_type)
      ? *opt_producer_stream_
      : impl->getStream(device);
  const c10::Stream consumer_stream = (opt_consumer_stream_ && opt_consumer_stream_->device_type() == device_type)
      ? *opt_consumer_stream_
      : impl->getStream(device);

  if (!buffer[pos].defined()) {
    // First producer: choose where an accumulation would run.
    if (consumer_stream.device() == device) {
      // Cases (2) and (3): the consumer's stream.
      opt_accum_streams[pos] = consumer_stream;
    } else if (producer_stream.device() == device) {
      // Case (4): the producer's stream.
      opt_accum_streams[pos] = producer_stream;
    } else {
      // Case (5): var's device's current stream.
      opt_accum_streams[pos] = impl->getStream(device);
    }
    buffer[pos] = std::move(var);
    const auto& accum_stream = *opt_accum_streams[pos];
    if (producer_stream != accum_stream || producer_stream != consumer_stream) {
      // Whoever reads the slot next (an accumulation, or else the consumer)
      // on another stream waits for this.
      c10::Event event{device_type};
      event.record(producer_stream);
      ready_events[pos] = std::move(event);
      if (trace::is_enabled()) {
        trace::on_stream(trace::EventKind::StreamRecord, producer_stream, "InputBuffer::add: first gradient ready");
      }
    } else {
      ready_events[pos].reset();
    }
    ready_streams[pos] = producer_stream;
    return;
  }

  // Nth producer: both operands must be ready on the accumulation stream.
  const c10::Stream accum_stream = *opt_accum_streams[pos];
  if (accum_stream != producer_stream) {
    c10::Event event{device_type};
    event.record(producer_stream);
    accum_stream.wait(event);
    if (trace::is_enabled()) {
      trace::on_stream(trace::EventKind::StreamRecord, producer_stream, "InputBuffer::add: producer");
      trace::on_stream(
          trace::EventKind::StreamWait, accum_stream, "InputBuffer::add: accumulation stream waits for the producer");
    }
  }
  if (accum_stream != *ready_streams[pos] && ready_events[pos]) {
    accum_stream.wait(*ready_events[pos]);
    if (trace::is_enabled()) {
      trace::on_stream(
          trace::EventKind::StreamWait,
          accum_stream,
          "InputBuffer::add: accumulation stream waits for the slot's ready event");
    }
  }
  {
    c10::OptionalStreamGuard stream_guard{accum_stream};
    accumulate(buffer, pos, std::move(var));
  }
  // The slot is now ready on the accumulation stream.
  c10::Event event{device_type};
  event.record(accum_stream);
  ready_events[pos] = std::move(event);
  ready_streams[pos] = accum_stream;
  if (trace::is_enabled()) {
    trace::on_stream(trace::EventKind::StreamRecord, accum_stream, "InputBuffer::add: slot ready after accumulation");
  }
}

c10::Device InputBuffer::device() const {
  // Since we pick the first non-CPU tensor, this won't work with mixed
  // device-type operations; that is unlikely enough not to matter.
  for (const auto& var : buffer) {
    if (var.defined()) {
      auto device = var.device();
      if (device.type() != c10::DeviceType::CPU)
        return device;
    }
  }
  // Only report to the CPU thread if there really were no tensors from other devices.
  return c10::Device(c10::DeviceType::CPU);
}

std::vector<Variable> InputBuffer::variables(InputBuffer&& g) {
  std::vector<Variable> result = std::move(g.buffer);
  return result;
}

} // namespace autograd
} // namespace torch
