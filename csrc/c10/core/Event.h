#pragma once
#include "c10/core/Stream.h"
#include "c10/core/impl/DeviceGuardImplInterface.h"

namespace c10 {

// A backend-agnostic event: created lazily on first record() through the
// device type's guard impl, destroyed through it. Move-only, as in
// c10/core/Event.h.
struct Event final {
  explicit Event(DeviceType type) : device_type_(type) {}
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event(Event&& o) noexcept {
    swap(o);
  }
  Event& operator=(Event&& o) noexcept {
    swap(o);
    return *this;
  }
  ~Event();

  DeviceType device_type() const noexcept {
    return device_type_;
  }
  DeviceIndex device_index() const noexcept {
    return device_index_;
  }
  void* eventId() const noexcept {
    return event_;
  }
  bool was_marked_for_recording() const noexcept {
    return was_marked_for_recording_;
  }

  // Records the event on `stream`; later records move it to the newer point.
  void record(const Stream& stream);
  // Makes `stream` wait for the recorded point. No-op when never recorded.
  void block(const Stream& stream) const;
  // True when the recorded work has completed (or nothing was recorded).
  bool query() const;

 private:
  void swap(Event& o) noexcept {
    std::swap(device_type_, o.device_type_);
    std::swap(device_index_, o.device_index_);
    std::swap(event_, o.event_);
    std::swap(was_marked_for_recording_, o.was_marked_for_recording_);
  }

  DeviceType device_type_ = DeviceType::CPU;
  DeviceIndex device_index_ = -1;
  void* event_ = nullptr;
  bool was_marked_for_recording_ = false;
};

} // namespace c10
