#pragma once
// A guard impl over host memory for a non-CPU device type. With logging on it
// records every stream and event call, which is how the C++ tests observe the
// synchronisation InputBuffer::add and the engine perform. Registered by
// default, with logging off, as the simulated device type (DeviceType::Sim).
#include "c10/core/impl/DeviceGuardImplInterface.h"

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

namespace c10 {
namespace impl {

struct FakeGuardImpl final : public DeviceGuardImplInterface {
  // One entry per call, in order.
  struct LogEntry {
    enum Kind { Record, Block, SetStream } kind;
    int64_t event_id;  // the event (Record/Block); 0 for SetStream
    Stream stream;     // the stream recorded on, made to wait, or made current
  };

  FakeGuardImpl(DeviceType type, DeviceIndex count, bool logging = false)
      : type_(type), count_(count), logging_(logging) {}

  DeviceType type() const override { return type_; }
  Device exchangeDevice(Device d) const override;
  Device getDevice() const override;
  void setDevice(Device d) const override;
  void uncheckedSetDevice(Device d) const noexcept override;
  Stream getStream(Device d) const noexcept override;
  Stream getDefaultStream(Device d) const override { return Stream(Stream::DEFAULT, d); }
  Stream getNewStream(Device d, int priority = 0) const override;
  Stream exchangeStream(Stream s) const noexcept override;
  DeviceIndex deviceCount() const noexcept override { return count_; }
  void record(void** event, const Stream& stream, const DeviceIndex device_index,
              const EventFlag flag) const override;
  void block(void* event, const Stream& stream) const override;
  bool queryEvent(void*) const override { return true; }
  void destroyEvent(void*, const DeviceIndex) const noexcept override {}
  void synchronizeStream(const Stream&) const override {}

  void set_logging(bool on) { logging_ = on; }
  std::vector<LogEntry> log() const;
  void clear_log();
  // The stream an event was last recorded on (tests check waits against it).
  Stream event_stream(int64_t event_id) const;

 private:
  void append(LogEntry e) const;

  DeviceType type_;
  DeviceIndex count_;
  std::atomic<bool> logging_;
  mutable std::mutex mutex_;
  mutable std::vector<LogEntry> log_;
  mutable std::vector<Stream> event_streams_;  // index = event id - 1
  mutable StreamId next_stream_id_ = 1;
};

} // namespace impl
} // namespace c10
