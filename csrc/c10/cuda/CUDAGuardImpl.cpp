// The DeviceGuardImplInterface for CUDA over the CUDA runtime: device
// selection, a per-thread current stream per device, a small stream pool and
// events (cudaEventRecord / cudaStreamWaitEvent). Mirrors c10/cuda/impl/CUDAGuardImpl.h.
#include "c10/core/impl/DeviceGuardImplInterface.h"
#include "c10/cuda/CUDADeviceIndex.h"
#include "c10/cuda/CUDAFunctions.h"

#include <array>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace c10 {
namespace cuda {

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    throw std::runtime_error(std::string("CUDA error: ") + cudaGetErrorString(err) + " (" + what + ")");
  }
}

DeviceIndex device_count() noexcept {
  static DeviceIndex count = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      cudaGetLastError(); // clear the sticky "no device / no driver" error
      return static_cast<DeviceIndex>(0);
    }
    return clamp_device_count(n);
  }();
  return count;
}

namespace {

constexpr int kStreamsPerPool = 8;

// Null means the legacy default stream, which is also id 0.
thread_local std::array<cudaStream_t, kMaxDevices> current_streams{};

struct StreamPool {
  std::mutex mutex;
  std::array<std::vector<cudaStream_t>, kMaxDevices> streams;
  std::array<size_t, kMaxDevices> next{};
};
StreamPool& pool() {
  static StreamPool p;
  return p;
}

Stream to_stream(Device d, cudaStream_t s) {
  return Stream(Stream::UNSAFE, d, static_cast<StreamId>(reinterpret_cast<intptr_t>(s)));
}
cudaStream_t from_stream(const Stream& s) {
  return reinterpret_cast<cudaStream_t>(static_cast<intptr_t>(s.id()));
}

DeviceIndex current_device_index() {
  int dev = 0;
  TORCHLITE_CUDA_CHECK(cudaGetDevice(&dev));
  return static_cast<DeviceIndex>(dev);
}

// `d`'s index, -1 meaning the current device; throws torch's error for an
// index past the devices (which would also run past the per-device tables).
DeviceIndex checked_index(Device d) {
  return checked_device_index(d.index(), d.index() == -1 ? current_device_index() : 0, device_count());
}

// The same without throwing (for the noexcept stream accessors): -1 when the
// index names no device.
DeviceIndex index_or_invalid(Device d) noexcept {
  try {
    return checked_index(d);
  } catch (...) {
    return -1;
  }
}

struct CUDAGuardImpl final : public impl::DeviceGuardImplInterface {
  DeviceType type() const override {
    return DeviceType::CUDA;
  }
  Device exchangeDevice(Device d) const override {
    Device old = getDevice();
    if (old.index() != d.index())
      setDevice(d);
    return old;
  }
  Device getDevice() const override {
    int dev = 0;
    TORCHLITE_CUDA_CHECK(cudaGetDevice(&dev));
    return Device(DeviceType::CUDA, static_cast<DeviceIndex>(dev));
  }
  // An index naming no device fails in the runtime ("invalid device ordinal"), as in torch.
  void setDevice(Device d) const override {
    TORCHLITE_CUDA_CHECK(cudaSetDevice(d.index()));
  }
  void uncheckedSetDevice(Device d) const noexcept override {
    (void)cudaSetDevice(d.index());
  }
  // Noexcept as the interface says: an index naming no device gives its
  // (unusable) default stream instead of reading past the table; the Python
  // entry points check the index first and raise torch's error.
  Stream getStream(Device d) const noexcept override {
    const DeviceIndex index = index_or_invalid(d);
    if (index < 0)
      return to_stream(d, nullptr);
    return to_stream(Device(DeviceType::CUDA, index), current_streams[index]);
  }
  Stream getDefaultStream(Device d) const override {
    return to_stream(Device(DeviceType::CUDA, checked_index(d)), nullptr);
  }
  Stream getNewStream(Device d_in, int) const override {
    const Device d(DeviceType::CUDA, checked_index(d_in));
    auto& p = pool();
    std::lock_guard<std::mutex> lock(p.mutex);
    auto& streams = p.streams[d.index()];
    if (streams.size() < kStreamsPerPool) {
      int prev = 0;
      TORCHLITE_CUDA_CHECK(cudaGetDevice(&prev));
      TORCHLITE_CUDA_CHECK(cudaSetDevice(d.index()));
      cudaStream_t s = nullptr;
      TORCHLITE_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
      TORCHLITE_CUDA_CHECK(cudaSetDevice(prev));
      streams.push_back(s);
      return to_stream(d, s);
    }
    return to_stream(d, streams[p.next[d.index()]++ % streams.size()]);
  }
  Stream exchangeStream(Stream s) const noexcept override {
    Stream old = getStream(s.device());
    const DeviceIndex index = index_or_invalid(s.device());
    if (index >= 0)
      current_streams[index] = from_stream(s);
    return old;
  }
  DeviceIndex deviceCount() const noexcept override {
    return device_count();
  }

  void record(void** event, const Stream& stream, const DeviceIndex device_index, const impl::EventFlag)
      const override {
    int prev = 0;
    TORCHLITE_CUDA_CHECK(cudaGetDevice(&prev));
    TORCHLITE_CUDA_CHECK(cudaSetDevice(stream.device_index()));
    if (*event == nullptr) {
      cudaEvent_t e = nullptr;
      TORCHLITE_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
      *event = e;
    }
    (void)device_index;
    TORCHLITE_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(*event), from_stream(stream)));
    TORCHLITE_CUDA_CHECK(cudaSetDevice(prev));
  }
  void block(void* event, const Stream& stream) const override {
    if (!event)
      return;
    int prev = 0;
    TORCHLITE_CUDA_CHECK(cudaGetDevice(&prev));
    TORCHLITE_CUDA_CHECK(cudaSetDevice(stream.device_index()));
    TORCHLITE_CUDA_CHECK(cudaStreamWaitEvent(from_stream(stream), static_cast<cudaEvent_t>(event), 0));
    TORCHLITE_CUDA_CHECK(cudaSetDevice(prev));
  }
  bool queryEvent(void* event) const override {
    if (!event)
      return true;
    cudaError_t err = cudaEventQuery(static_cast<cudaEvent_t>(event));
    if (err == cudaErrorNotReady) {
      cudaGetLastError();
      return false;
    }
    TORCHLITE_CUDA_CHECK(err);
    return true;
  }
  void destroyEvent(void* event, const DeviceIndex device_index) const noexcept override {
    if (!event)
      return;
    int prev = 0;
    if (cudaGetDevice(&prev) != cudaSuccess)
      return;
    (void)cudaSetDevice(device_index);
    (void)cudaEventDestroy(static_cast<cudaEvent_t>(event));
    (void)cudaSetDevice(prev);
  }
  void synchronizeStream(const Stream& stream) const override {
    TORCHLITE_CUDA_CHECK(cudaStreamSynchronize(from_stream(stream)));
  }
};

} // namespace

cudaStream_t getCurrentCUDAStream(DeviceIndex device) {
  return current_streams[checked_index(Device(DeviceType::CUDA, device))];
}

const impl::DeviceGuardImplInterface* cuda_guard_impl() {
  static CUDAGuardImpl impl;
  return &impl;
}

} // namespace cuda
} // namespace c10
