// torchlite._C's CUDA functions (torch/csrc/cuda/Module.cpp, Stream.cpp,
// Event.cpp), over the CUDA guard impl. Built only with CUDA: torchlite.cuda
// tells "not compiled" from "no device" by whether _cuda_getDeviceCount exists.
#include "c10/core/impl/DeviceGuardImplInterface.h"
#include "c10/cuda/CUDADeviceIndex.h"
#include "c10/cuda/CUDAFunctions.h"

#include <pybind11/pybind11.h>

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace py = pybind11;

namespace torch {
namespace cuda {
namespace {

using c10::DeviceIndex;

const c10::impl::DeviceGuardImplInterface* impl() {
  return c10::impl::getDeviceGuardImpl(c10::DeviceType::CUDA);
}

c10::Device cuda_device(DeviceIndex index) {
  return c10::Device(c10::DeviceType::CUDA, index);
}

c10::Stream unpack_stream(int64_t stream_id, DeviceIndex device_index) {
  return c10::Stream(c10::Stream::UNSAFE, cuda_device(device_index), stream_id);
}

// The (stream_id, device_index, device_type) triple torch passes between C++ and Python.
py::tuple pack_stream(const c10::Stream& s) {
  return py::make_tuple(s.id(), static_cast<int>(s.device_index()), static_cast<int>(c10::DeviceType::CUDA));
}

// c10::cuda::device_count_ensure_non_zero: the messages torch gives when CUDA
// cannot be initialised.
void cuda_init() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err == cudaErrorInsufficientDriver) {
    cudaGetLastError();
    int version = 0;
    if (cudaDriverGetVersion(&version) != cudaSuccess || version <= 0) {
      throw std::runtime_error(
          "Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a "
          "driver from http://www.nvidia.com/Download/index.aspx");
    }
    throw std::runtime_error(
        "The NVIDIA driver on your system is too old (found version " + std::to_string(version) + ").");
  }
  if (err != cudaSuccess && err != cudaErrorNoDevice) {
    cudaGetLastError();
    throw std::runtime_error(std::string("CUDA error: ") + cudaGetErrorString(err));
  }
  if (err == cudaErrorNoDevice)
    cudaGetLastError();
  if (err == cudaErrorNoDevice || count == 0)
    throw std::runtime_error("No CUDA GPUs are available");
}

// Runs `fn` with `device` current, restoring the previous device after.
template <typename F>
void with_device(DeviceIndex device, F fn) {
  const c10::Device prev = impl()->exchangeDevice(cuda_device(device));
  try {
    fn();
  } catch (...) {
    impl()->uncheckedSetDevice(prev);
    throw;
  }
  impl()->setDevice(prev);
}

// A device index from Python, checked as upstream's check_gpu (-1: the current device).
DeviceIndex checked(int index) {
  const DeviceIndex count = c10::cuda::device_count();
  if (index < -1 || index >= count) {
    throw std::runtime_error(
        "Device index value " + std::to_string(index) + " is out of index range [0, " +
        std::to_string(static_cast<int>(count)) + ")");
  }
  return c10::cuda::checked_device_index(
      static_cast<DeviceIndex>(index), impl()->getDevice().index(), c10::cuda::device_count());
}

cudaStream_t raw(int64_t stream_id) {
  return reinterpret_cast<cudaStream_t>(static_cast<intptr_t>(stream_id));
}

// THCPEvent's at::cuda::CUDAEvent: a CUDA event with torch.cuda.Event's
// flags, created on the device of the stream it is first recorded on.
struct CUDAEvent {
  CUDAEvent(bool enable_timing, bool blocking) {
    flags_ = (enable_timing ? cudaEventDefault : cudaEventDisableTiming) | (blocking ? cudaEventBlockingSync : 0);
    timing_ = enable_timing;
  }
  CUDAEvent(const CUDAEvent&) = delete;
  CUDAEvent& operator=(const CUDAEvent&) = delete;
  ~CUDAEvent() {
    if (!event_)
      return;
    int prev = 0;
    if (cudaGetDevice(&prev) != cudaSuccess)
      return;
    (void)cudaSetDevice(device_);
    (void)cudaEventDestroy(event_);
    (void)cudaSetDevice(prev);
  }
  void record(int64_t stream_id, DeviceIndex device) {
    if (event_ && device != device_) {
      throw std::runtime_error(
          "Event device " + std::to_string(int(device_)) + " does not match recording stream's device " +
          std::to_string(int(device)) + ".");
    }
    with_device(device, [&] {
      if (!event_) {
        TORCHLITE_CUDA_CHECK(cudaEventCreateWithFlags(&event_, flags_));
        device_ = device;
      }
      TORCHLITE_CUDA_CHECK(cudaEventRecord(event_, raw(stream_id)));
    });
  }
  void block(int64_t stream_id, DeviceIndex device) const {
    if (!event_)
      return;
    with_device(device, [&] { TORCHLITE_CUDA_CHECK(cudaStreamWaitEvent(raw(stream_id), event_, 0)); });
  }
  bool query() const {
    if (!event_)
      return true;
    const cudaError_t err = cudaEventQuery(event_);
    if (err == cudaErrorNotReady) {
      cudaGetLastError();
      return false;
    }
    TORCHLITE_CUDA_CHECK(err);
    return true;
  }
  void synchronize() const {
    if (!event_)
      return;
    py::gil_scoped_release no_gil;
    TORCHLITE_CUDA_CHECK(cudaEventSynchronize(event_));
  }
  // Milliseconds from this event to `end` (upstream CUDAEvent::elapsed_time).
  double elapsed_time(const CUDAEvent& end) const {
    if (!timing_ || !end.timing_) {
      throw std::runtime_error("Both events must be created with argument 'enable_timing=True'.");
    }
    if (!event_ || !end.event_) {
      throw std::runtime_error("Both events must be recorded before calculating elapsed time.");
    }
    float ms = 0;
    py::gil_scoped_release no_gil;
    TORCHLITE_CUDA_CHECK(cudaEventSynchronize(end.event_));
    TORCHLITE_CUDA_CHECK(cudaEventElapsedTime(&ms, event_, end.event_));
    return ms;
  }

  cudaEvent_t event_ = nullptr;
  DeviceIndex device_ = -1;
  unsigned flags_ = 0;
  bool timing_ = false;
};

} // namespace

void initModule(py::module_& m) {
  m.def("_cuda_getDeviceCount", [] { return static_cast<int>(c10::cuda::device_count()); });
  m.def("_cuda_init", &cuda_init);
  m.def("_cuda_getDevice", [] { return static_cast<int>(impl()->getDevice().index()); });
  // An index naming no device fails in the runtime ("invalid device ordinal"), as torch.cuda.set_device.
  m.def("_cuda_setDevice", [](int device) { impl()->setDevice(cuda_device(static_cast<DeviceIndex>(device))); });
  m.def("_cuda_exchangeDevice", [](int device) {
    if (device < 0)
      return -1;
    return static_cast<int>(impl()->exchangeDevice(cuda_device(static_cast<DeviceIndex>(device))).index());
  });
  m.def("_cuda_getCurrentStream", [](int device) {
    return pack_stream(impl()->getStream(cuda_device(checked(device))));
  });
  m.def("_cuda_getDefaultStream", [](int device) {
    return pack_stream(impl()->getDefaultStream(cuda_device(checked(device))));
  });
  m.def("_cuda_getStreamFromPool", [](int device, int priority) {
    return pack_stream(impl()->getNewStream(cuda_device(checked(device)), priority));
  });
  m.def("_cuda_setStream", [](int64_t stream_id, int device_index, int /*device_type*/) {
    impl()->exchangeStream(unpack_stream(stream_id, checked(device_index)));
  });
  // The blocking calls release the GIL: other Python threads (an engine
  // worker running a Python node, say) go on while this one waits.
  m.def("_cuda_synchronize", [](int device) {
    const DeviceIndex index = checked(device);
    py::gil_scoped_release no_gil;
    with_device(index, [] { TORCHLITE_CUDA_CHECK(cudaDeviceSynchronize()); });
  });
  m.def("_cuda_streamQuery", [](int64_t stream_id, int /*device_index*/) {
    const cudaError_t err = cudaStreamQuery(raw(stream_id));
    if (err == cudaErrorNotReady) {
      cudaGetLastError();
      return false;
    }
    TORCHLITE_CUDA_CHECK(err);
    return true;
  });
  m.def("_cuda_streamSynchronize", [](int64_t stream_id, int device_index) {
    const auto stream = unpack_stream(stream_id, checked(device_index));
    py::gil_scoped_release no_gil;
    impl()->synchronizeStream(stream);
  });

  py::class_<CUDAEvent>(m, "_CudaEventBase")
      .def(py::init<bool, bool>(), py::arg("enable_timing") = false, py::arg("blocking") = false)
      .def(
          "_record",
          [](CUDAEvent& e, int64_t stream_id, int device_index) { e.record(stream_id, checked(device_index)); })
      .def(
          "_wait",
          [](const CUDAEvent& e, int64_t stream_id, int device_index) { e.block(stream_id, checked(device_index)); })
      .def("query", &CUDAEvent::query)
      .def("synchronize", &CUDAEvent::synchronize)
      .def("elapsed_time", &CUDAEvent::elapsed_time)
      .def_property_readonly("cuda_event", [](const CUDAEvent& e) { return reinterpret_cast<intptr_t>(e.event_); })
      .def_property_readonly("device_index", [](const CUDAEvent& e) { return static_cast<int>(e.device_); });
}

} // namespace cuda
} // namespace torch
