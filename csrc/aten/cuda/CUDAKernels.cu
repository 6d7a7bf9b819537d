#include "aten/Functions.h"
#include "aten/StridedOffset.h"
#include "aten/cuda/CUDAKernels.h"
#include "aten/cuda/SumToPlan.h"
#include "c10/cuda/CUDAFunctions.h"

#include <cstdint>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace at {
namespace cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kMaxDims = 16;

struct Geometry {
  int ndim;
  int64_t sizes[kMaxDims];
  int64_t strides[kMaxDims];
};

Geometry make_geometry(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
  if (sizes.size() > static_cast<size_t>(kMaxDims)) {
    throw std::runtime_error("CUDA kernels support at most 16 dimensions");
  }
  Geometry g{};
  g.ndim = static_cast<int>(sizes.size());
  for (int i = 0; i < g.ndim; ++i) {
    g.sizes[i] = sizes[i];
    g.strides[i] = strides[i];
  }
  return g;
}

unsigned blocks_for(int64_t n) {
  return static_cast<unsigned>((n + kThreads - 1) / kThreads);
}

// A device-side guard: kernels launch on the device that owns the tensor.
struct DeviceScope {
  explicit DeviceScope(c10::DeviceIndex d) {
    TORCHLITE_CUDA_CHECK(cudaGetDevice(&prev_));
    TORCHLITE_CUDA_CHECK(cudaSetDevice(d));
  }
  ~DeviceScope() {
    (void)cudaSetDevice(prev_);
  }
  int prev_ = 0;
};

template <typename F>
void dispatch(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::Float:
      f(float{});
      return;
    case ScalarType::Double:
      f(double{});
      return;
    case ScalarType::Long:
      f(int64_t{});
      return;
    case ScalarType::Bool:
      f(bool{});
      return;
    case ScalarType::Half:
      f(Half{});
      return;
    case ScalarType::Int:
      f(int32_t{});
      return;
    case ScalarType::Short:
      f(int16_t{});
      return;
    case ScalarType::Char:
      f(int8_t{});
      return;
    case ScalarType::Byte:
      f(uint8_t{});
      return;
  }
}

template <typename T>
__global__ void fill_kernel(T* out, T v, int64_t n) {
  int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n)
    out[i] = v;
}

template <typename T>
__global__ void add_kernel(const T* a, const T* b, T* out, int64_t n) {
  int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n)
    out[i] = static_cast<T>(a[i] + b[i]);
}

template <typename T>
__global__ void mul_kernel(const T* a, double s, T* out, int64_t n) {
  int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n)
    out[i] = static_cast<T>(a[i] * s);
}

template <typename T>
__global__ void copy_strided_kernel(const T* src, Geometry g, T* out, int64_t n) {
  int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n)
    out[i] = src[strided_offset(i, g.ndim, g.sizes, g.strides)];
}

template <typename S, typename D>
__global__ void cast_kernel(const S* src, D* out, int64_t n) {
  int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n)
    out[i] = static_cast<D>(src[i]);
}

// One thread per output element sums its input elements in a fixed order
// (SumToPlan), so the result is deterministic, as torch's reductions are.
template <typename T>
__global__ void sum_to_kernel(const T* src, SumToPlan plan, T* out) {
  int64_t o = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (o >= plan.out_numel)
    return;
  using A = c10::acc_type_t<T>; // Half adds up in float, rounded once
  A acc = A(0);
  for (int64_t r = 0; r < plan.reduce_numel; ++r)
    acc = static_cast<A>(acc + static_cast<A>(src[plan.input_offset(o, r)]));
  out[o] = static_cast<T>(acc);
}

template <typename T>
__global__ void any_nan_kernel(const T* x, int64_t n, int* flag) {
  int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n && x[i] != x[i])
    *flag = 1;
}

void free_on_current_stream(void* p, c10::DeviceIndex device) noexcept {
  int prev = 0;
  if (cudaGetDevice(&prev) != cudaSuccess)
    return;
  (void)cudaSetDevice(device);
  try {
    (void)cudaFreeAsync(p, c10::cuda::getCurrentCUDAStream(device));
  } catch (...) {
    (void)cudaFree(p);
  }
  (void)cudaSetDevice(prev);
}

// A device buffer freed when the scope ends, also when a CUDA call throws.
struct DeviceBuffer {
  DeviceBuffer(size_t nbytes, c10::DeviceIndex device) : device_(device) {
    TORCHLITE_CUDA_CHECK(cudaMallocAsync(&ptr_, nbytes, c10::cuda::getCurrentCUDAStream(device)));
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    free_on_current_stream(ptr_, device_);
  }
  void* get() const noexcept {
    return ptr_;
  }

 private:
  void* ptr_ = nullptr;
  c10::DeviceIndex device_;
};

cudaStream_t stream_of(const Tensor& t) {
  return c10::cuda::getCurrentCUDAStream(t.device().index());
}

void check_launch() {
  TORCHLITE_CUDA_CHECK(cudaGetLastError());
}

} // namespace

// Note [Stream-ordered allocation]
// Tensor memory made in C++ (gradients the engine sums, sum_to results) comes
// from the device's stream-ordered pool (cudaMallocAsync on the current
// stream) and goes back to it with cudaFreeAsync on the device's current
// stream of the freeing thread (the stream its last reader ran on), so neither
// synchronises the device as cudaFree does. Python-made tensors use cupy's pool.
std::shared_ptr<void> allocate(size_t nbytes, c10::DeviceIndex device, void** data) {
  DeviceScope scope(device);
  TORCHLITE_CUDA_CHECK(cudaMallocAsync(data, nbytes ? nbytes : 1, c10::cuda::getCurrentCUDAStream(device)));
  return std::shared_ptr<void>(*data, [device](void* p) { free_on_current_stream(p, device); });
}

void copy_host_to_device(void* dst, const void* src, size_t nbytes, c10::DeviceIndex device) {
  DeviceScope scope(device);
  cudaStream_t s = c10::cuda::getCurrentCUDAStream(device);
  TORCHLITE_CUDA_CHECK(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyHostToDevice, s));
  TORCHLITE_CUDA_CHECK(cudaStreamSynchronize(s));
}

void copy_device_to_host(void* dst, const void* src, size_t nbytes, c10::DeviceIndex device) {
  DeviceScope scope(device);
  cudaStream_t s = c10::cuda::getCurrentCUDAStream(device);
  TORCHLITE_CUDA_CHECK(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDeviceToHost, s));
  TORCHLITE_CUDA_CHECK(cudaStreamSynchronize(s));
}

void copy_device_to_device(void* dst, const void* src, size_t nbytes, c10::DeviceIndex device) {
  DeviceScope scope(device);
  TORCHLITE_CUDA_CHECK(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDefault, c10::cuda::getCurrentCUDAStream(device)));
}

void fill(Tensor& out, double value) {
  const int64_t n = out.numel();
  if (n == 0)
    return;
  DeviceScope scope(out.device().index());
  dispatch(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    fill_kernel<T><<<blocks_for(n), kThreads, 0, stream_of(out)>>>(out.data_ptr<T>(), static_cast<T>(value), n);
  });
  check_launch();
}

void add(const Tensor& a, const Tensor& b, Tensor& out) {
  const int64_t n = out.numel();
  if (n == 0)
    return;
  DeviceScope scope(out.device().index());
  dispatch(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    add_kernel<T>
        <<<blocks_for(n), kThreads, 0, stream_of(out)>>>(a.data_ptr<T>(), b.data_ptr<T>(), out.data_ptr<T>(), n);
  });
  check_launch();
}

void add_inplace(Tensor& self, const Tensor& other) {
  add(self, other, self);
}

void mul_scalar(const Tensor& a, double scalar, Tensor& out) {
  const int64_t n = out.numel();
  if (n == 0)
    return;
  DeviceScope scope(out.device().index());
  dispatch(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    mul_kernel<T><<<blocks_for(n), kThreads, 0, stream_of(out)>>>(a.data_ptr<T>(), scalar, out.data_ptr<T>(), n);
  });
  check_launch();
}

void copy_strided(const Tensor& src, Tensor& out) {
  const int64_t n = out.numel();
  if (n == 0)
    return;
  DeviceScope scope(out.device().index());
  Geometry g = make_geometry(src.sizes(), src.strides());
  dispatch(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    copy_strided_kernel<T><<<blocks_for(n), kThreads, 0, stream_of(out)>>>(src.data_ptr<T>(), g, out.data_ptr<T>(), n);
  });
  check_launch();
}

void cast(const Tensor& src, Tensor& out) {
  const int64_t n = out.numel();
  if (n == 0)
    return;
  DeviceScope scope(out.device().index());
  dispatch(src.dtype(), [&](auto s_tag) {
    using S = decltype(s_tag);
    dispatch(out.dtype(), [&](auto d_tag) {
      using D = decltype(d_tag);
      cast_kernel<S, D><<<blocks_for(n), kThreads, 0, stream_of(out)>>>(src.data_ptr<S>(), out.data_ptr<D>(), n);
    });
  });
  check_launch();
}

void sum_to(const Tensor& src, Tensor& out) {
  const int64_t n = src.numel();
  if (n == 0)
    return;
  DeviceScope scope(out.device().index());
  const SumToPlan plan = SumToPlan::make(src.sizes(), out.sizes());
  const unsigned blocks = blocks_for(plan.out_numel);
  if (src.dtype() == ScalarType::Bool)
    throw std::runtime_error("sum_to: bool tensors are not supported on CUDA");
  dispatch(src.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same<T, bool>::value) {
      sum_to_kernel<T><<<blocks, kThreads, 0, stream_of(out)>>>(src.data_ptr<T>(), plan, out.data_ptr<T>());
    }
  });
  check_launch();
}

bool any_nan(const Tensor& t) {
  const int64_t n = t.numel();
  if (n == 0)
    return false;
  DeviceScope scope(t.device().index());
  cudaStream_t s = stream_of(t);
  DeviceBuffer buffer(sizeof(int), t.device().index());
  int* flag = static_cast<int*>(buffer.get());
  TORCHLITE_CUDA_CHECK(cudaMemsetAsync(flag, 0, sizeof(int), s));
  if (t.dtype() == ScalarType::Float) {
    any_nan_kernel<float><<<blocks_for(n), kThreads, 0, s>>>(t.data_ptr<float>(), n, flag);
  } else if (t.dtype() == ScalarType::Half) {
    any_nan_kernel<Half><<<blocks_for(n), kThreads, 0, s>>>(t.data_ptr<Half>(), n, flag);
  } else {
    any_nan_kernel<double><<<blocks_for(n), kThreads, 0, s>>>(t.data_ptr<double>(), n, flag);
  }
  int host = 0;
  TORCHLITE_CUDA_CHECK(cudaMemcpyAsync(&host, flag, sizeof(int), cudaMemcpyDeviceToHost, s));
  TORCHLITE_CUDA_CHECK(cudaStreamSynchronize(s));
  return host != 0;
}

} // namespace cuda
} // namespace at
