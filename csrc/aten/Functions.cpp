#include "aten/Functions.h"
#include "aten/StridedOffset.h"
#include "c10/core/Event.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <vector>

#ifdef TORCHLITE_WITH_CUDA
#include "aten/cuda/CUDAKernels.h"
#endif

namespace at {
namespace {

template <typename F>
void dispatch_dtype(ScalarType t, F&& f) {
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
  throw std::runtime_error("unsupported dtype");
}

#ifndef TORCHLITE_WITH_CUDA
[[noreturn]] void no_cuda() {
  throw std::runtime_error("Torch not compiled with CUDA enabled");
}
#endif

// Host-memory devices (CPU and the simulated accelerator) share the loops.
bool on_host(const Tensor& t) {
  return !t.device().is_cuda();
}

void check_same(const Tensor& a, const Tensor& b, const char* op) {
  if (a.sizes() != b.sizes()) {
    throw std::runtime_error(
        std::string(op) + ": The size of tensor a (" + sizes_to_string(a.sizes()) +
        ") must match the size of tensor b (" + sizes_to_string(b.sizes()) + ")");
  }
  if (a.dtype() != b.dtype()) {
    throw std::runtime_error(
        std::string(op) + ": expected both tensors to have dtype " + toString(a.dtype()) + " but got " +
        toString(b.dtype()));
  }
  if (a.device() != b.device()) {
    std::ostringstream ss;
    ss << "Expected all tensors to be on the same device, but found at least two devices, " << a.device() << " and "
       << b.device() << "!";
    throw std::runtime_error(ss.str());
  }
}

// Offset in elements of the element with row-major linear index `i`.
int64_t strided_offset(int64_t i, IntArrayRef sizes, IntArrayRef strides) {
  return at::strided_offset(i, static_cast<int>(sizes.size()), sizes.data(), strides.data());
}

// a + b, row-major.
Tensor add_row_major(const Tensor& a_in, const Tensor& b_in) {
  Tensor a = contiguous(a_in), b = contiguous(b_in);
  Tensor out = empty(a.sizes(), a.dtype(), a.device());
  if (!on_host(a)) {
#ifdef TORCHLITE_WITH_CUDA
    cuda::add(a, b, out);
    return out;
#endif
  }
  dispatch_dtype(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* x = a.data_ptr<T>();
    const T* y = b.data_ptr<T>();
    T* o = out.data_ptr<T>();
    for (int64_t i = 0; i < a.numel(); ++i)
      o[i] = static_cast<T>(x[i] + y[i]);
  });
  return out;
}

} // namespace

std::ostream& operator<<(std::ostream& os, IntArrayRef sizes) {
  return os << sizes_to_string(sizes);
}

std::string sizes_to_string(IntArrayRef sizes) {
  std::string s = "[";
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i)
      s += ", ";
    s += std::to_string(sizes[i]);
  }
  return s + "]";
}

Tensor empty(IntArrayRef sizes, ScalarType dtype, c10::Device device) {
  int64_t n = 1;
  for (auto s : sizes) {
    if (s < 0)
      throw std::runtime_error("Trying to create tensor with negative dimension " + std::to_string(s));
    n *= s;
  }
  const size_t nbytes = static_cast<size_t>(n) * elementSize(dtype);
  void* data = nullptr;
  std::shared_ptr<StorageImpl> storage;
  if (device.is_cuda()) {
#ifdef TORCHLITE_WITH_CUDA
    if (device.index() < 0)
      device.set_index(0);
    std::shared_ptr<void> owner = cuda::allocate(nbytes, device.index(), &data);
    storage = std::make_shared<StorageImpl>(data, nbytes, device, std::move(owner));
#else
    no_cuda();
#endif
  } else {
    if (device.type() != c10::DeviceType::CPU && device.index() < 0)
      device.set_index(0);
    if (nbytes <= StorageImpl::kInlineBytes) {
      storage = std::make_shared<StorageImpl>(StorageImpl::InlineTag{}, nbytes, device);
    } else {
      data = std::malloc(nbytes);
      if (!data)
        throw std::bad_alloc();
      try {
        storage = std::make_shared<StorageImpl>(StorageImpl::MallocedTag{}, data, nbytes, device);
      } catch (...) {
        std::free(data);
        throw;
      }
    }
  }
  return Tensor(std::make_shared<TensorImpl>(std::move(storage), dtype, sizes));
}

Tensor from_blob(
    void* data,
    IntArrayRef sizes,
    IntArrayRef strides,
    ScalarType dtype,
    c10::Device device,
    std::shared_ptr<void> owner,
    size_t nbytes,
    StorageImpl::ExclusiveFn exclusive_fn) {
  auto storage = std::make_shared<StorageImpl>(data, nbytes, device, std::move(owner), /*external=*/true, exclusive_fn);
  return Tensor(std::make_shared<TensorImpl>(std::move(storage), dtype, sizes, strides));
}

bool storage_is_exclusive(const Tensor& t) {
  const auto& storage = t.unsafeGetTensorImpl()->storage();
  return storage.use_count() == 1 && storage->owner_is_exclusive();
}

Tensor full(IntArrayRef sizes, double value, ScalarType dtype, c10::Device device) {
  Tensor t = empty(sizes, dtype, device);
  if (!on_host(t)) {
#ifdef TORCHLITE_WITH_CUDA
    cuda::fill(t, value);
    return t;
#endif
  }
  dispatch_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    T* p = t.data_ptr<T>();
    for (int64_t i = 0; i < t.numel(); ++i)
      p[i] = static_cast<T>(value);
  });
  return t;
}

Tensor zeros(IntArrayRef sizes, ScalarType dtype, c10::Device device) {
  return full(sizes, 0.0, dtype, device);
}
Tensor ones(IntArrayRef sizes, ScalarType dtype, c10::Device device) {
  return full(sizes, 1.0, dtype, device);
}
Tensor zeros_like(const Tensor& t) {
  return zeros(t.sizes(), t.dtype(), t.device());
}
Tensor ones_like(const Tensor& t) {
  return ones(t.sizes(), t.dtype(), t.device());
}

Tensor tensor(const std::vector<double>& values, IntArrayRef sizes, ScalarType dtype, c10::Device device) {
  Tensor host = empty(sizes, dtype, c10::Device());
  if (static_cast<int64_t>(values.size()) != host.numel()) {
    throw std::runtime_error(
        "tensor(): " + std::to_string(values.size()) + " values for shape " + sizes_to_string(sizes));
  }
  dispatch_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    T* p = host.data_ptr<T>();
    for (size_t i = 0; i < values.size(); ++i)
      p[i] = static_cast<T>(values[i]);
  });
  return device.is_cpu() ? host : to(host, device);
}

Tensor contiguous(const Tensor& t) {
  return t.is_contiguous() ? t : clone(t);
}

Tensor clone(const Tensor& t) {
  Tensor out = empty(t.sizes(), t.dtype(), t.device());
  if (!on_host(t)) {
#ifdef TORCHLITE_WITH_CUDA
    cuda::copy_strided(t, out);
    return out;
#endif
  }
  dispatch_dtype(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = t.data_ptr<T>();
    T* dst = out.data_ptr<T>();
    if (t.is_contiguous()) {
      std::memcpy(dst, src, static_cast<size_t>(t.numel()) * sizeof(T));
    } else {
      for (int64_t i = 0; i < t.numel(); ++i)
        dst[i] = src[strided_offset(i, t.sizes(), t.strides())];
    }
  });
  return out;
}

bool is_non_overlapping_and_dense(const Tensor& t) {
  // Sorted by stride, the dimensions (ignoring those of size 1) must each
  // step over exactly the block of the previous ones.
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.sizes()[d] != 1)
      perm.push_back(d);
  }
  std::sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) { return t.strides()[a] < t.strides()[b]; });
  int64_t expected = 1;
  for (auto d : perm) {
    if (t.strides()[d] != expected)
      return false;
    expected *= t.sizes()[d];
  }
  return true;
}

Tensor clone_strided(const Tensor& t, IntArrayRef strides) {
  if (!on_host(t))
    throw std::runtime_error("clone_strided: host tensors only");
  Tensor block = empty({t.numel()}, t.dtype(), t.device());
  Tensor out(std::make_shared<TensorImpl>(block.getIntrusivePtr()->storage(), t.dtype(), t.sizes(), strides));
  dispatch_dtype(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = t.data_ptr<T>();
    T* dst = out.data_ptr<T>();
    for (int64_t i = 0; i < t.numel(); ++i) {
      dst[strided_offset(i, out.sizes(), strides)] = src[strided_offset(i, t.sizes(), t.strides())];
    }
  });
  return out;
}

std::vector<int64_t> iteration_order(const Tensor& a, const Tensor& b) {
  // TensorIterator's reorder_dimensions, as torchlite._ops.TensorIterator._iteration_order
  const auto n = static_cast<size_t>(a.dim());
  std::vector<int64_t> perm(n); // innermost first
  for (size_t i = 0; i < n; ++i)
    perm[i] = static_cast<int64_t>(n - 1 - i);
  auto should_swap = [&](int64_t d0, int64_t d1) {
    for (const Tensor* t : {&a, &b}) {
      const int64_t s0 = t->strides()[d0], s1 = t->strides()[d1];
      if (s0 == 0 || s1 == 0)
        continue;
      if (s0 != s1)
        return s0 < s1 ? -1 : 1;
      if (a.sizes()[d0] > a.sizes()[d1])
        return 1;
    }
    return 0;
  };
  for (size_t i = 1; i < n; ++i) {
    size_t d1 = i;
    for (size_t j = i; j-- > 0;) {
      const int c = should_swap(perm[j], perm[d1]);
      if (c > 0) {
        std::swap(perm[j], perm[d1]);
        d1 = j;
      } else if (c < 0) {
        break;
      }
    }
  }
  std::reverse(perm.begin(), perm.end());
  return perm;
}

std::vector<int64_t> inverse_permutation(IntArrayRef perm) {
  std::vector<int64_t> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i)
    inverse[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
  return inverse;
}

Tensor permuted(const Tensor& t, IntArrayRef perm) {
  std::vector<int64_t> sizes(perm.size()), strides(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    sizes[i] = t.sizes()[static_cast<size_t>(perm[i])];
    strides[i] = t.strides()[static_cast<size_t>(perm[i])];
  }
  const auto* impl = t.unsafeGetTensorImpl();
  return Tensor(
      std::make_shared<TensorImpl>(
          impl->storage(), t.dtype(), std::move(sizes), std::move(strides), impl->storage_offset()));
}

Tensor alias_with_sizes_and_strides(const Tensor& t, IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset) {
  const auto* impl = t.unsafeGetTensorImpl();
  return Tensor(
      std::make_shared<TensorImpl>(
          impl->storage(), t.dtype(), sizes, strides, storage_offset, impl->version_counter()));
}

// The sum laid out as TensorIterator lays out torch's (a gradient's layout
// shows through as_strided and view): computed row-major over the operands'
// dimensions in iteration_order, then viewed back in their own order.
Tensor add(const Tensor& a, const Tensor& b) {
  check_same(a, b, "add");
  if (!a.is_contiguous() || !b.is_contiguous()) {
    const auto order = iteration_order(a, b);
    if (!std::is_sorted(order.begin(), order.end())) {
      return permuted(add_row_major(permuted(a, order), permuted(b, order)), inverse_permutation(order));
    }
  }
  return add_row_major(a, b);
}

Tensor& Tensor::add_(const Tensor& other_in) {
  check_same(*this, other_in, "add_");
  const bool contiguous_self = is_contiguous();
  if (!contiguous_self) {
    // PyTorch's assert_no_internal_overlap: a broadcast (stride 0) dimension
    // would add several elements into one location.
    for (int64_t d = 0; d < dim(); ++d) {
      if (strides()[d] == 0 && sizes()[d] > 1) {
        throw std::runtime_error(
            "unsupported operation: more than one element of the written-to tensor refers to a single "
            "memory location. Please clone() the tensor before performing the operation.");
      }
    }
    if (!on_host(*this)) {
      throw std::runtime_error("add_: in-place accumulation needs a contiguous destination");
    }
  }
  Tensor other = contiguous(other_in);
  if (!on_host(*this)) {
#ifdef TORCHLITE_WITH_CUDA
    cuda::add_inplace(*this, other);
    impl_->bump_version();
    return *this;
#endif
  }
  dispatch_dtype(dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* x = data_ptr<T>();
    const T* y = other.data_ptr<T>();
    if (contiguous_self) {
      for (int64_t i = 0; i < numel(); ++i)
        x[i] = static_cast<T>(x[i] + y[i]);
    } else {
      for (int64_t i = 0; i < numel(); ++i) {
        T& dst = x[strided_offset(i, sizes(), strides())];
        dst = static_cast<T>(dst + y[i]);
      }
    }
  });
  impl_->bump_version();
  return *this;
}

Tensor& Tensor::zero_() {
  if (!is_contiguous())
    throw std::runtime_error("zero_: needs a contiguous tensor");
  if (!on_host(*this)) {
#ifdef TORCHLITE_WITH_CUDA
    cuda::fill(*this, 0.0);
    impl_->bump_version();
    return *this;
#endif
  }
  std::memset(data_ptr(), 0, static_cast<size_t>(numel()) * elementSize(dtype()));
  impl_->bump_version();
  return *this;
}

Tensor mul(const Tensor& a_in, double scalar) {
  Tensor a = contiguous(a_in);
  Tensor out = empty(a.sizes(), a.dtype(), a.device());
  if (!on_host(a)) {
#ifdef TORCHLITE_WITH_CUDA
    cuda::mul_scalar(a, scalar, out);
    return out;
#endif
  }
  dispatch_dtype(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* x = a.data_ptr<T>();
    T* o = out.data_ptr<T>();
    for (int64_t i = 0; i < a.numel(); ++i)
      o[i] = static_cast<T>(x[i] * scalar);
  });
  return out;
}

bool is_expandable_to(IntArrayRef shape, IntArrayRef desired) {
  const size_t ndim = shape.size(), target = desired.size();
  if (ndim > target)
    return false;
  for (size_t i = 0; i < ndim; ++i) {
    const int64_t size = shape[ndim - i - 1];
    const int64_t want = desired[target - i - 1];
    if (size != want && size != 1)
      return false;
  }
  return true;
}

std::vector<int64_t> sum_to_strides(IntArrayRef in_sizes, IntArrayRef shape) {
  const size_t lead = in_sizes.size() - shape.size();
  const std::vector<int64_t> out_strides = contiguous_strides(shape);
  std::vector<int64_t> map_strides(in_sizes.size(), 0);
  for (size_t d = 0; d < shape.size(); ++d)
    map_strides[lead + d] = shape[d] == 1 ? 0 : out_strides[d];
  return map_strides;
}

Tensor sum_to(const Tensor& t_in, IntArrayRef shape) {
  if (t_in.sizes() == shape)
    return t_in;
  if (!is_expandable_to(shape, t_in.sizes())) {
    throw std::runtime_error(
        "sum_to: size " + sizes_to_string(shape) + " is not expandable to size " + sizes_to_string(t_in.sizes()));
  }
  Tensor t = contiguous(t_in);
  Tensor out = zeros(shape, t.dtype(), t.device());
  if (!on_host(t)) {
#ifdef TORCHLITE_WITH_CUDA
    cuda::sum_to(t, out);
    return out;
#endif
  }
  const auto& in_sizes = t.sizes();
  // Common case: only leading dimensions were broadcast (a bias): the
  // output's elements repeat in blocks, so add the blocks up.
  int64_t inner = 1;
  size_t kept = 0;
  while (kept < shape.size() && shape[shape.size() - 1 - kept] == in_sizes[in_sizes.size() - 1 - kept]) {
    inner *= shape[shape.size() - 1 - kept];
    ++kept;
  }
  bool leading_only = true;
  for (size_t d = kept; d < shape.size(); ++d)
    leading_only = leading_only && shape[shape.size() - 1 - d] == 1;
  if (leading_only && inner > 0) {
    dispatch_dtype(t.dtype(), [&](auto tag) {
      using T = decltype(tag);
      using A = c10::acc_type_t<T>; // Half adds up in float, rounded once (as torch's sum)
      const T* x = t.data_ptr<T>();
      T* o = out.data_ptr<T>();
      std::vector<A> acc(static_cast<size_t>(inner), A(0));
      for (int64_t block = 0; block < t.numel() / inner; ++block) {
        const T* row = x + block * inner;
        for (int64_t j = 0; j < inner; ++j)
          acc[static_cast<size_t>(j)] = static_cast<A>(acc[static_cast<size_t>(j)] + static_cast<A>(row[j]));
      }
      for (int64_t j = 0; j < inner; ++j)
        o[j] = static_cast<T>(acc[static_cast<size_t>(j)]);
    });
    return out;
  }
  // Each input element adds into the output element it was broadcast from.
  const std::vector<int64_t> map_strides = sum_to_strides(in_sizes, shape);
  dispatch_dtype(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using A = c10::acc_type_t<T>;
    const T* x = t.data_ptr<T>();
    T* o = out.data_ptr<T>();
    std::vector<A> acc(static_cast<size_t>(out.numel()), A(0));
    for (int64_t i = 0; i < t.numel(); ++i) {
      const auto off = static_cast<size_t>(strided_offset(i, in_sizes, map_strides));
      acc[off] = static_cast<A>(acc[off] + static_cast<A>(x[i]));
    }
    for (int64_t j = 0; j < out.numel(); ++j)
      o[j] = static_cast<T>(acc[static_cast<size_t>(j)]);
  });
  return out;
}

Tensor to(const Tensor& t_in, ScalarType dtype) {
  if (t_in.dtype() == dtype)
    return t_in;
  Tensor t = contiguous(t_in);
  Tensor out = empty(t.sizes(), dtype, t.device());
  if (!on_host(t)) {
#ifdef TORCHLITE_WITH_CUDA
    cuda::cast(t, out);
    return out;
#endif
  }
  dispatch_dtype(t.dtype(), [&](auto src_tag) {
    using S = decltype(src_tag);
    dispatch_dtype(dtype, [&](auto dst_tag) {
      using D = decltype(dst_tag);
      const S* x = t.data_ptr<S>();
      D* o = out.data_ptr<D>();
      for (int64_t i = 0; i < t.numel(); ++i)
        o[i] = static_cast<D>(x[i]);
    });
  });
  return out;
}

// Note [Cross-device copies]
// A copy between two devices of one accelerator type runs on the
// destination's current stream, but the source's data was written on the
// source device's current stream: without a wait the copy may read it before
// it is written. So the destination stream first waits for an event recorded
// on the source stream (upstream copy_kernel_cuda syncs both streams the same
// way, aten/src/ATen/native/cuda/Copy.cu).
void wait_for_source_stream(const c10::Device& src, const c10::Device& dst) {
  if (src.type() != dst.type() || !c10::isAccelerator(src.type()) || src == dst)
    return;
  const auto* impl = c10::impl::getDeviceGuardImpl(src.type());
  c10::Event ready{src.type()};
  ready.record(impl->getStream(src));
  ready.block(impl->getStream(dst));
}

Tensor to(const Tensor& t_in, c10::Device device) {
  if (t_in.device() == device)
    return t_in;
  Tensor t = contiguous(t_in);
  Tensor out = empty(t.sizes(), t.dtype(), device);
  wait_for_source_stream(t.device(), out.device());
  const size_t nbytes = static_cast<size_t>(t.numel()) * elementSize(t.dtype());
  if (on_host(t) && on_host(out)) {
    std::memcpy(out.data_ptr(), t.data_ptr(), nbytes);
    return out;
  }
#ifdef TORCHLITE_WITH_CUDA
  if (on_host(t)) {
    cuda::copy_host_to_device(out.data_ptr(), t.data_ptr(), nbytes, out.device().index());
  } else if (on_host(out)) {
    cuda::copy_device_to_host(out.data_ptr(), t.data_ptr(), nbytes, t.device().index());
  } else {
    cuda::copy_device_to_device(out.data_ptr(), t.data_ptr(), nbytes, out.device().index());
    // The source's memory goes back to its stream-ordered pool on the source
    // stream: that stream waits for the copy before anything can reuse it.
    wait_for_source_stream(out.device(), t.device());
  }
  return out;
#else
  no_cuda();
#endif
}

bool any_nan(const Tensor& t_in) {
  if (!isFloatingType(t_in.dtype()))
    return false;
  Tensor t = contiguous(t_in);
  if (!on_host(t)) {
#ifdef TORCHLITE_WITH_CUDA
    return cuda::any_nan(t);
#endif
  }
  bool found = false;
  dispatch_dtype(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* x = t.data_ptr<T>();
    for (int64_t i = 0; i < t.numel() && !found; ++i)
      found = std::isnan(static_cast<double>(x[i]));
  });
  return found;
}

double Tensor::item() const {
  if (numel() != 1) {
    throw std::runtime_error("a Tensor with " + std::to_string(numel()) + " elements cannot be converted to Scalar");
  }
  if (device().is_cuda())
    return to_vector()[0];
  // Host memory (cpu, sim): the one element, read where it is.
  double value = 0;
  dispatch_dtype(dtype(), [&](auto tag) {
    using T = decltype(tag);
    value = static_cast<double>(*data_ptr<T>());
  });
  return value;
}

std::vector<double> Tensor::to_vector() const {
  Tensor host = contiguous(to(*this, c10::Device()));
  std::vector<double> v(static_cast<size_t>(host.numel()));
  dispatch_dtype(host.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* x = host.data_ptr<T>();
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = static_cast<double>(x[i]);
  });
  return v;
}

std::string Tensor::toString() const {
  std::string base;
  switch (dtype()) {
    case ScalarType::Float:
      base = "FloatTensor";
      break;
    case ScalarType::Double:
      base = "DoubleTensor";
      break;
    case ScalarType::Long:
      base = "LongTensor";
      break;
    case ScalarType::Bool:
      base = "BoolTensor";
      break;
    case ScalarType::Half:
      base = "HalfTensor";
      break;
    case ScalarType::Int:
      base = "IntTensor";
      break;
    case ScalarType::Short:
      base = "ShortTensor";
      break;
    case ScalarType::Char:
      base = "CharTensor";
      break;
    case ScalarType::Byte:
      base = "ByteTensor";
      break;
  }
  if (device().is_cuda())
    return "torch.cuda." + base;
  if (device().type() == c10::DeviceType::Sim)
    return "torch.sim." + base;
  return "torch." + base;
}

} // namespace at
