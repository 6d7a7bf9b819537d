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
    throw std::runtime_error("Invalid device " + d.str() + " for " + DeviceTypeName(type_) +
                             " with " + std::to_string(count_) + " devices");
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
  if (logging_ && old != s) append({LogEntry::SetStream, 0, s});
  return old;
}

void FakeGuardImpl::record(void** event, const Stream& stream, const DeviceIndex,
                           const EventFlag) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (*event == nullptr) {
    event_streams_.push_back(stream);
    *event = reinterpret_cast<void*>(static_cast<intptr_t>(event_streams_.size()));
  } else {
    event_streams_[reinterpret_cast<intptr_t>(*event) - 1] = stream;
  }
  if (logging_) log_.push_back({LogEntry::Record, reinterpret_cast<intptr_t>(*event), stream});
}

void FakeGuardImpl::block(void* event, const Stream& stream) const {
  if (!event) return;
  if (logging_) append({LogEntry::Block, reinterpret_cast<intptr_t>(event), stream});
}

void FakeGuardImpl::append(LogEntry e) const {
  std::lock_guard<std::mutex> lock(mutex_);
  log_.push_back(e);
}

std::vector<FakeGuardImpl::LogEntry> FakeGuardImpl::log() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return log_;
}

void FakeGuardImpl::clear_log() {
  std::lock_guard<std::mutex> lock(mutex_);
  log_.clear();
}

Stream FakeGuardImpl::event_stream(int64_t event_id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return event_streams_.at(static_cast<size_t>(event_id - 1));
}

} // namespace impl
} // namespace c10
