#include "c10/core/Stream.h"
#include "c10/core/Event.h"

#include <stdexcept>

namespace c10 {

void Stream::wait(const Event& event) const {
  event.block(*this);
}

std::ostream& operator<<(std::ostream& os, const Stream& s) {
  return os << "stream " << s.id() << " on device " << s.device();
}

Event::~Event() {
  if (!event_)
    return;
  try {
    if (auto* impl = impl::getDeviceGuardImplOrNull(device_type_)) {
      impl->destroyEvent(event_, device_index_);
    }
  } catch (...) {
    // Destructors must not throw; a failed destroy leaks one event.
  }
}

void Event::record(const Stream& stream) {
  if (stream.device_type() != device_type_) {
    throw std::runtime_error(
        "Event device type " + DeviceTypeName(device_type_) + " does not match recording stream's device type " +
        DeviceTypeName(stream.device_type()) + ".");
  }
  impl::getDeviceGuardImpl(device_type_)->record(&event_, stream, stream.device_index(), impl::EventFlag::Default);
  was_marked_for_recording_ = true;
  device_index_ = stream.device_index();
}

void Event::block(const Stream& stream) const {
  if (!was_marked_for_recording_)
    return;
  if (stream.device_type() != device_type_) {
    throw std::runtime_error(
        "Event device type " + DeviceTypeName(device_type_) + " does not match blocking stream's device type " +
        DeviceTypeName(stream.device_type()) + ".");
  }
  impl::getDeviceGuardImpl(device_type_)->block(event_, stream);
}

bool Event::query() const {
  if (!was_marked_for_recording_)
    return true;
  return impl::getDeviceGuardImpl(device_type_)->queryEvent(event_);
}

} // namespace c10
