// torchlite._C's CUDA functions (torch/csrc/cuda/Module.cpp, Stream.cpp,
// Event.cpp), over the CUDA guard impl. Built only with CUDA: torchlite.cuda
// tells "not compiled" from "no device" by whether _cuda_getDeviceCount exists.
#include "c10/core/Event.h"
#include "c10/core/impl/DeviceGuardImplInterface.h"
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
  return py::make_tuple(s.id(), static_cast<int>(s.device_index()),
                        static_cast<int>(c10::DeviceType::CUDA));
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
    throw std::runtime_error("The NVIDIA driver on your system is too old (found version " +
                             std::to_string(version) + ").");
  }
  if (err != cudaSuccess && err != cudaErrorNoDevice) {
    cudaGetLastError();
    throw std::runtime_error(std::string("CUDA error: ") + cudaGetErrorString(err));
  }
  if (err == cudaErrorNoDevice) cudaGetLastError();
  if (err == cudaErrorNoDevice || count == 0) throw std::runtime_error("No CUDA GPUs are available");
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

} // namespace

void initModule(py::module_& m) {
  m.def("_cuda_getDeviceCount", [] { return static_cast<int>(c10::cuda::device_count()); });
  m.def("_cuda_init", &cuda_init);
  m.def("_cuda_getDevice", [] { return static_cast<int>(impl()->getDevice().index()); });
  m.def("_cuda_getCurrentStream", [](DeviceIndex device) { return pack_stream(impl()->getStream(cuda_device(device))); });
  m.def("_cuda_getDefaultStream",
        [](DeviceIndex device) { return pack_stream(impl()->getDefaultStream(cuda_device(device))); });
  m.def("_cuda_getStreamFromPool",
        [](DeviceIndex device, int priority) { return pack_stream(impl()->getNewStream(cuda_device(device), priority)); });
  m.def("_cuda_setStream", [](int64_t stream_id, DeviceIndex device_index, int /*device_type*/) {
    impl()->exchangeStream(unpack_stream(stream_id, device_index));
  });
  m.def("_cuda_synchronize", [](DeviceIndex device) {
    with_device(device, [] { TORCHLITE_CUDA_CHECK(cudaDeviceSynchronize()); });
  });
  m.def("_cuda_streamQuery", [](int64_t stream_id, DeviceIndex device_index) {
    const cudaError_t err = cudaStreamQuery(reinterpret_cast<cudaStream_t>(static_cast<intptr_t>(stream_id)));
    if (err == cudaErrorNotReady) {
      cudaGetLastError();
      return false;
    }
    (void)device_index;
    TORCHLITE_CUDA_CHECK(err);
    return true;
  });
  m.def("_cuda_streamSynchronize", [](int64_t stream_id, DeviceIndex device_index) {
    impl()->synchronizeStream(unpack_stream(stream_id, device_index));
  });

  // THCPEvent over the backend-agnostic c10::Event (created on first record).
  py::class_<c10::Event>(m, "_CudaEventBase")
      .def(py::init([] { return c10::Event(c10::DeviceType::CUDA); }))
      .def("_record", [](c10::Event& e, int64_t stream_id, DeviceIndex device_index) {
        e.record(unpack_stream(stream_id, device_index));
      })
      .def("_wait", [](const c10::Event& e, int64_t stream_id, DeviceIndex device_index) {
        e.block(unpack_stream(stream_id, device_index));
      })
      .def("query", &c10::Event::query)
      .def("synchronize", [](const c10::Event& e) {
        if (e.eventId()) TORCHLITE_CUDA_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(e.eventId())));
      })
      .def_property_readonly("cuda_event", [](const c10::Event& e) { return reinterpret_cast<intptr_t>(e.eventId()); })
      .def_property_readonly("device_index", [](const c10::Event& e) { return static_cast<int>(e.device_index()); });
}

} // namespace cuda
} // namespace torch
