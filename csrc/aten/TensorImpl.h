#pragma once
// The tensor the engine moves around: device, dtype, sizes, strides, a data
// pointer into storage whose owner keeps the memory alive (a C++ allocation, a
// numpy or cupy array), a version counter shared with views, and autograd
// metadata. A reduced c10/core/TensorImpl.h.
#include "aten/ScalarType.h"
#include "c10/core/Device.h"
#include "c10/core/impl/SizesAndStrides.h"
#include "c10/util/ArrayRef.h"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

namespace at {

class Tensor;

struct StorageImpl {
  // Says whether an external owner is the only way to reach the memory.
  using ExclusiveFn = bool (*)(const void* owner);

  StorageImpl(
      void* data,
      size_t nbytes,
      c10::Device device,
      std::shared_ptr<void> owner,
      bool external = false,
      ExclusiveFn exclusive_fn = nullptr)
      : data_(data),
        nbytes_(nbytes),
        device_(device),
        external_(external),
        owner_(std::move(owner)),
        exclusive_fn_(exclusive_fn) {}
  // Host memory from std::malloc that the storage itself frees (at::empty's): no owner object, one
  // heap block fewer per tensor.
  struct MallocedTag {};
  StorageImpl(MallocedTag, void* data, size_t nbytes, c10::Device device)
      : data_(data), nbytes_(nbytes), device_(device), external_(false), frees_data_(true), exclusive_fn_(nullptr) {}
  // Host memory of at most kInlineBytes (a 1-element tensor of any dtype) kept
  // inside the storage object itself: one heap block for storage and data.
  static constexpr size_t kInlineBytes = 16;
  struct InlineTag {};
  StorageImpl(InlineTag, size_t nbytes, c10::Device device)
      : data_(inline_data_), nbytes_(nbytes), device_(device), external_(false), exclusive_fn_(nullptr) {}
  ~StorageImpl() {
    if (frees_data_)
      std::free(data_);
  }
  StorageImpl(const StorageImpl&) = delete;
  StorageImpl& operator=(const StorageImpl&) = delete;
  void* data() const noexcept {
    return data_;
  }
  size_t nbytes() const noexcept {
    return nbytes_;
  }
  c10::Device device() const noexcept {
    return device_;
  }
  // Memory from outside the tensor world (from_blob: a numpy array, a
  // foreign buffer) that something else may still reach.
  bool external() const noexcept {
    return external_;
  }
  // Nothing but this storage reaches the memory: allocated here, or an
  // external owner that says it is the only holder (a numpy array that owns
  // its data and has no other reference).
  bool owner_is_exclusive() const {
    return !external_ || (exclusive_fn_ && exclusive_fn_(owner_.get()));
  }
  // External memory that must not be written (Note [Read-only numpy memory]): the numpy arrays
  // made over it are read-only and the C++ in-place entries leave it to the Python kernels.
  bool read_only() const noexcept {
    return read_only_;
  }
  void set_read_only() noexcept {
    read_only_ = true;
  }

 private:
  // (the small fields packed beside device_: 64 bytes, so a 1-element tensor's storage and its
  // make_shared control block fill a 96-byte heap chunk, not 112)
  void* data_;
  size_t nbytes_;
  c10::Device device_;
  bool external_;
  bool frees_data_ = false;
  bool read_only_ = false;
  // Frees (or releases the foreign array behind) the memory when the last
  // storage reference goes.
  std::shared_ptr<void> owner_;
  ExclusiveFn exclusive_fn_;
  alignas(16) unsigned char inline_data_[kInlineBytes];
};

// Shared by a tensor and its views; bumped by every in-place op so that
// SavedVariable can detect modification. A disabled one (upstream's
// VariableVersion(Disabled)) is an inference tensor's: it counts nothing, and
// the Python bindings refuse to read it or, outside inference mode, to bump it.
struct VersionCounter {
  VersionCounter() = default;
  explicit VersionCounter(bool enabled) : enabled_(enabled) {}
  std::atomic<uint32_t> version_{0};
  bool enabled() const noexcept {
    return enabled_;
  }
  void bump() noexcept {
    ++version_;
  }
  uint32_t current_version() const noexcept {
    return version_.load();
  }

 private:
  bool enabled_ = true;
};

// Implemented by torch::autograd::AutogradMeta; aten sees only this.
struct AutogradMetaInterface {
  virtual ~AutogradMetaInterface() = default;
  virtual void set_requires_grad(bool requires_grad, struct TensorImpl* self_impl) = 0;
  virtual bool requires_grad() const = 0;
  virtual Tensor& mutable_grad() = 0;
  virtual const Tensor& grad() const = 0;
};

struct TensorImpl : public std::enable_shared_from_this<TensorImpl> {
  TensorImpl(
      std::shared_ptr<StorageImpl> storage,
      ScalarType dtype,
      c10::IntArrayRef sizes,
      c10::IntArrayRef strides,
      int64_t storage_offset = 0,
      std::shared_ptr<VersionCounter> version_counter = nullptr); // null: a new one
  // A contiguous tensor of these sizes at the start of the storage.
  TensorImpl(std::shared_ptr<StorageImpl> storage, ScalarType dtype, c10::IntArrayRef sizes);
  ~TensorImpl();

  ScalarType dtype() const noexcept {
    return dtype_;
  }
  c10::Device device() const noexcept {
    return storage_->device();
  }
  c10::IntArrayRef sizes() const noexcept {
    return sizes_and_strides_.sizes_arrayref();
  }
  c10::IntArrayRef strides() const noexcept {
    return sizes_and_strides_.strides_arrayref();
  }
  int64_t storage_offset() const noexcept {
    return storage_offset_;
  }
  int64_t dim() const noexcept {
    return static_cast<int64_t>(sizes_and_strides_.size());
  }
  int64_t numel() const noexcept {
    return numel_;
  }
  bool is_contiguous() const noexcept;
  void* data() const noexcept {
    return static_cast<char*>(storage_->data()) + storage_offset_ * elementSize(dtype_);
  }
  const std::shared_ptr<StorageImpl>& storage() const noexcept {
    return storage_;
  }

  const std::shared_ptr<VersionCounter>& version_counter() const noexcept {
    return version_counter_;
  }
  void set_version_counter(std::shared_ptr<VersionCounter> vc) {
    version_counter_ = std::move(vc);
  }
  void bump_version() noexcept {
    version_counter_->bump();
  }

  // Takes other's storage and metadata (dtype, sizes, strides, offset,
  // inference-ness) and keeps this tensor's version counter and autograd meta:
  // upstream's shallow_copy_from, behind `x.data = t`.
  void shallow_copy_from(const TensorImpl& other);

  AutogradMetaInterface* autograd_meta() const noexcept {
    return autograd_meta_.get();
  }
  void set_autograd_meta(std::unique_ptr<AutogradMetaInterface> meta);

  // A Python number an op wrapped in a 0-dim tensor (`x * 2`): saved like a
  // tensor, but never seen by saved-tensor hooks, as in PyTorch.
  bool is_wrapped_number() const noexcept {
    return is_wrapped_number_;
  }
  void set_wrapped_number(bool v) noexcept {
    is_wrapped_number_ = v;
  }

  // Made in inference mode (c10::InferenceMode), or a view or detach of such a
  // tensor: never requires grad nor is saved for backward. Its version counter
  // is disabled, except a detach made outside inference mode's (upstream:
  // shallow_copy_and_detach gives it a fresh one).
  bool is_inference() const noexcept {
    return is_inference_;
  }
  void set_inference(bool v) noexcept {
    is_inference_ = v;
  }

  // A slot the Python binding uses to keep its wrapper object (opaque here).
  void* pyobj() const noexcept {
    return pyobj_;
  }
  void set_pyobj(void* p) noexcept {
    pyobj_ = p;
  }

 private:
  std::shared_ptr<StorageImpl> storage_;
  ScalarType dtype_;
  c10::impl::SizesAndStrides sizes_and_strides_;
  int64_t storage_offset_;
  int64_t numel_;
  std::shared_ptr<VersionCounter> version_counter_;
  std::unique_ptr<AutogradMetaInterface> autograd_meta_;
  void* pyobj_ = nullptr;
  bool is_wrapped_number_ = false;
  bool is_inference_ = false;
};

std::vector<int64_t> contiguous_strides(c10::IntArrayRef sizes);
// Writes the contiguous strides of `sizes` to `strides` (sizes.size() elements).
void fill_contiguous_strides(c10::IntArrayRef sizes, int64_t* strides) noexcept;

} // namespace at
