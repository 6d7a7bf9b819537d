#pragma once
// The per-device-type virtual interface the engine uses for devices, streams
// and events, and the registry it scans for device counts. Mirrors
// c10/core/impl/DeviceGuardImplInterface.h.
#include "c10/core/Device.h"
#include "c10/core/Stream.h"

#include <array>
#include <atomic>

namespace c10 {
namespace impl {

enum class EventFlag { Default, BackendDefault };

struct DeviceGuardImplInterface {
  virtual ~DeviceGuardImplInterface() = default;

  virtual DeviceType type() const = 0;
  // Sets the current device and returns the previous one.
  virtual Device exchangeDevice(Device d) const = 0;
  virtual Device getDevice() const = 0;
  virtual void setDevice(Device d) const = 0;
  virtual void uncheckedSetDevice(Device d) const noexcept = 0;
  // The calling thread's current stream on `d`.
  virtual Stream getStream(Device d) const noexcept = 0;
  virtual Stream getDefaultStream(Device d) const = 0;
  // A fresh stream distinct from the default one (from a pool).
  virtual Stream getNewStream(Device d, int priority = 0) const = 0;
  // Makes `s` current on its device for the calling thread; returns the old one.
  virtual Stream exchangeStream(Stream s) const noexcept = 0;
  // Number of devices of this type; 0, never an error, when none is usable.
  virtual DeviceIndex deviceCount() const noexcept = 0;

  // Creates *event on first use, then records it on `stream`.
  virtual void record(void** event, const Stream& stream, const DeviceIndex device_index, const EventFlag flag)
      const = 0;
  // Makes `stream` wait for `event`.
  virtual void block(void* event, const Stream& stream) const = 0;
  virtual bool queryEvent(void* event) const = 0;
  virtual void destroyEvent(void* event, const DeviceIndex device_index) const noexcept = 0;
  virtual void synchronizeStream(const Stream& stream) const = 0;
};

// One slot per device type. The engine reads it when it starts its device
// threads; tests may install their own impl before that.
using DeviceGuardImplRegistry = std::
    array<std::atomic<const DeviceGuardImplInterface*>, static_cast<size_t>(DeviceType::COMPILE_TIME_MAX_DEVICE_TYPES)>;
DeviceGuardImplRegistry& device_guard_impl_registry();

// Installs `impl` for its type and returns the previous one (not owned).
const DeviceGuardImplInterface* setDeviceGuardImpl(DeviceType type, const DeviceGuardImplInterface* impl);
const DeviceGuardImplInterface* getDeviceGuardImplOrNull(DeviceType type);
// Throws when no impl is registered for `type`.
const DeviceGuardImplInterface* getDeviceGuardImpl(DeviceType type);
bool hasDeviceGuardImpl(DeviceType type);

// The guard impl for the CPU: one device, one stream, events that are
// always complete because host work is synchronous.
struct NoOpDeviceGuardImpl final : public DeviceGuardImplInterface {
  DeviceType type() const override {
    return DeviceType::CPU;
  }
  Device exchangeDevice(Device) const override {
    return Device(DeviceType::CPU, -1);
  }
  Device getDevice() const override {
    return Device(DeviceType::CPU, -1);
  }
  void setDevice(Device) const override {}
  void uncheckedSetDevice(Device) const noexcept override {}
  Stream getStream(Device d) const noexcept override {
    return Stream(Stream::DEFAULT, d);
  }
  Stream getDefaultStream(Device d) const override {
    return Stream(Stream::DEFAULT, d);
  }
  Stream getNewStream(Device d, int) const override {
    return Stream(Stream::DEFAULT, d);
  }
  Stream exchangeStream(Stream s) const noexcept override {
    return s;
  }
  DeviceIndex deviceCount() const noexcept override {
    return 1;
  }
  void record(void**, const Stream&, const DeviceIndex, const EventFlag) const override {}
  void block(void*, const Stream&) const override {}
  bool queryEvent(void*) const override {
    return true;
  }
  void destroyEvent(void*, const DeviceIndex) const noexcept override {}
  void synchronizeStream(const Stream&) const override {}
};

} // namespace impl
} // namespace c10
