#include "c10/core/impl/FakeGuardImpl.h"

#include <map>
#include <stdexcept>
#include <utility>

namespace c10 {
namespace impl {
namespace {

// Current device and per-device current stream are thread-local, as CUDA's are.
struct FakeThreadState {
  std::map<DeviceType, DeviceIndex> device;
  std::map<std::pair<DeviceType, DeviceIndex>, StreamId> stream;
};
thread_local FakeThreadState tls_state;

} // namespace

Device FakeGuardImpl::getDevice() const {
  auto it = tls_state.device.find(type_);
  return Device(type_, it == tls_state.device.end() ? 0 : it->second);
}

void FakeGuardImpl::setDevice(Device d) const {
  if (d.type() != type_ || d.index() < 0 || d.index() >= count_) {
    throw std::runtime_error(
        "Invalid device " + d.str() + " for " + DeviceTypeName(type_) + " with " + std::to_string(count_) + " devices");
  }
  tls_state.device[type_] = d.index();
}

void FakeGuardImpl::uncheckedSetDevice(Device d) const noexcept {
  tls_state.device[type_] = d.index();
}

Device FakeGuardImpl::exchangeDevice(Device d) const {
  Device old = getDevice();
  setDevice(d);
  return old;
}

Stream FakeGuardImpl::getStream(Device d) const noexcept {
  auto it = tls_state.stream.find({type_, d.index()});
  return Stream(Stream::UNSAFE, d, it == tls_state.stream.end() ? 0 : it->second);
}

Stream FakeGuardImpl::getNewStream(Device d, int) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return Stream(Stream::UNSAFE, d, next_stream_id_++);
}

Stream FakeGuardImpl::exchangeStream(Stream s) const noexcept {
  Stream old = getStream(s.device());
  tls_state.stream[{type_, s.device_index()}] = s.id();
  if (logging_ && old != s)
    append({LogEntry::SetStream, 0, s, std::nullopt, {}});
  return old;
}

void FakeGuardImpl::record(void** event, const Stream& stream, const DeviceIndex, const EventFlag) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (*event == nullptr) {
    int64_t id;
    if (!free_event_ids_.empty()) {
      id = free_event_ids_.back();
      free_event_ids_.pop_back();
    } else {
      event_streams_.emplace_back();
      id = static_cast<int64_t>(event_streams_.size());
    }
    *event = reinterpret_cast<void*>(static_cast<intptr_t>(id));
  }
  const auto id = static_cast<int64_t>(reinterpret_cast<intptr_t>(*event));
  event_streams_[static_cast<size_t>(id - 1)] = stream;
  if (logging_)
    append_locked({LogEntry::Record, id, stream, std::nullopt, {}});
}

void FakeGuardImpl::block(void* event, const Stream& stream) const {
  if (!event)
    return;
  std::lock_guard<std::mutex> lock(mutex_);
  const auto id = static_cast<int64_t>(reinterpret_cast<intptr_t>(event));
  if (logging_)
    append_locked({LogEntry::Block, id, stream, event_streams_.at(static_cast<size_t>(id - 1)), {}});
}

void FakeGuardImpl::destroyEvent(void* event, const DeviceIndex) const noexcept {
  if (!event)
    return;
  std::lock_guard<std::mutex> lock(mutex_);
  const auto id = static_cast<int64_t>(reinterpret_cast<intptr_t>(event));
  // Ignore ids this impl never handed out (an event made under another impl).
  if (id < 1 || static_cast<size_t>(id) > event_streams_.size() || !event_streams_[static_cast<size_t>(id - 1)]) {
    return;
  }
  event_streams_[static_cast<size_t>(id - 1)].reset();
  free_event_ids_.push_back(id);
}

size_t FakeGuardImpl::live_events() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return event_streams_.size() - free_event_ids_.size();
}

void FakeGuardImpl::mark(std::string label) const {
  if (logging_)
    append({LogEntry::Mark, 0, Stream(Stream::DEFAULT, Device(type_, 0)), std::nullopt, std::move(label)});
}

void FakeGuardImpl::append(LogEntry e) const {
  std::lock_guard<std::mutex> lock(mutex_);
  append_locked(std::move(e));
}

void FakeGuardImpl::append_locked(LogEntry e) const {
  log_.push_back(std::move(e));
}

std::vector<FakeGuardImpl::LogEntry> FakeGuardImpl::log() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return log_;
}

void FakeGuardImpl::clear_log() {
  std::lock_guard<std::mutex> lock(mutex_);
  log_.clear();
}

} // namespace impl
} // namespace c10
