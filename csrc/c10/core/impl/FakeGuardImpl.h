#pragma once
// A guard impl over host memory for a non-CPU device type. With logging on it
// records every stream and event call in order, which is how the C++ tests
// observe the synchronisation InputBuffer::add and the engine perform; tests
// add their own Mark entries (e.g. from a node) to check what happened before
// what. Registered by default, with logging off, as the simulated device type
// (DeviceType::Sim). Event ids are freed by destroyEvent and reused, as CUDA
// events are.
#include "c10/core/impl/DeviceGuardImplInterface.h"

#include <atomic>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace c10 {
namespace impl {

struct FakeGuardImpl final : public DeviceGuardImplInterface {
  // One entry per call, in order.
  struct LogEntry {
    enum Kind { Record, Block, SetStream, Mark } kind;
    int64_t event_id; // the event (Record/Block); 0 otherwise
    Stream stream; // the stream recorded on, made to wait, or made current
    // Block: the stream the event was last recorded on when waited for.
    std::optional<Stream> event_stream;
    std::string label; // Mark: the test's label
  };

  FakeGuardImpl(DeviceType type, DeviceIndex count, bool logging = false)
      : type_(type), count_(count), logging_(logging) {}

  DeviceType type() const override {
    return type_;
  }
  Device exchangeDevice(Device d) const override;
  Device getDevice() const override;
  void setDevice(Device d) const override;
  void uncheckedSetDevice(Device d) const noexcept override;
  Stream getStream(Device d) const noexcept override;
  Stream getDefaultStream(Device d) const override {
    return Stream(Stream::DEFAULT, d);
  }
  Stream getNewStream(Device d, int priority = 0) const override;
  Stream exchangeStream(Stream s) const noexcept override;
  DeviceIndex deviceCount() const noexcept override {
    return count_;
  }
  void record(void** event, const Stream& stream, const DeviceIndex device_index, const EventFlag flag) const override;
  void block(void* event, const Stream& stream) const override;
  bool queryEvent(void*) const override {
    return true;
  }
  void destroyEvent(void* event, const DeviceIndex device_index) const noexcept override;
  void synchronizeStream(const Stream&) const override {}

  void set_logging(bool on) {
    logging_ = on;
  }
  std::vector<LogEntry> log() const;
  void clear_log();
  // Appends a Mark entry (when logging), so a test can order its own events
  // among the stream and event calls.
  void mark(std::string label) const;
  // Events recorded and not yet destroyed.
  size_t live_events() const;

 private:
  void append(LogEntry e) const;
  void append_locked(LogEntry e) const;

  DeviceType type_;
  DeviceIndex count_;
  std::atomic<bool> logging_;
  mutable std::mutex mutex_;
  mutable std::vector<LogEntry> log_;
  // Index = event id - 1: the stream the event was last recorded on, or
  // nullopt once destroyed (the id then waits in free_event_ids_).
  mutable std::vector<std::optional<Stream>> event_streams_;
  mutable std::vector<int64_t> free_event_ids_;
  mutable StreamId next_stream_id_ = 1;
};

} // namespace impl
} // namespace c10
