#pragma once
// An owned reference to a Python object that the core library (which has no
// Python) can copy and drop on any thread (c10/core/SafePyObject.h). The
// binding that makes one supplies the release function, which takes the GIL;
// upstream reaches the interpreter through a PyInterpreter table instead.
#include <memory>

namespace c10 {

class SafePyObject {
 public:
  // Takes over one reference to `obj`; `release(obj)` drops it when the last
  // copy of this handle goes away, on whichever thread that happens.
  SafePyObject(void* obj, void (*release)(void*)) : data_(obj, release) {}

  // The object, borrowed: valid while this handle lives.
  void* ptr() const noexcept {
    return data_.get();
  }

 private:
  std::shared_ptr<void> data_;
};

} // namespace c10
