#include "aten/TensorImpl.h"
#include "aten/Tensor.h"

#include <algorithm>

namespace at {

void TensorImpl::shallow_copy_from(const TensorImpl& other) {
  storage_ = other.storage_;
  dtype_ = other.dtype_;
  sizes_and_strides_ = other.sizes_and_strides_;
  storage_offset_ = other.storage_offset_;
  numel_ = other.numel_;
  is_inference_ = other.is_inference_;
}

TensorImpl::TensorImpl(
    std::shared_ptr<StorageImpl> storage,
    ScalarType dtype,
    c10::IntArrayRef sizes,
    c10::IntArrayRef strides,
    int64_t storage_offset,
    std::shared_ptr<VersionCounter> version_counter)
    : storage_(std::move(storage)),
      dtype_(dtype),
      sizes_and_strides_(sizes, strides),
      storage_offset_(storage_offset),
      version_counter_(version_counter ? std::move(version_counter) : std::make_shared<VersionCounter>()) {
  numel_ = 1;
  for (auto s : sizes)
    numel_ *= s;
}

TensorImpl::TensorImpl(std::shared_ptr<StorageImpl> storage, ScalarType dtype, c10::IntArrayRef sizes)
    : storage_(std::move(storage)),
      dtype_(dtype),
      storage_offset_(0),
      version_counter_(std::make_shared<VersionCounter>()) {
  sizes_and_strides_.resize(sizes.size());
  std::copy(sizes.begin(), sizes.end(), sizes_and_strides_.sizes_data());
  fill_contiguous_strides(sizes, sizes_and_strides_.strides_data());
  numel_ = 1;
  for (auto s : sizes)
    numel_ *= s;
}

// Out of line: AutogradMeta (complete only in autograd/) is destroyed here.
TensorImpl::~TensorImpl() = default;

void TensorImpl::set_autograd_meta(std::unique_ptr<AutogradMetaInterface> meta) {
  autograd_meta_ = std::move(meta);
}

bool TensorImpl::is_contiguous() const noexcept {
  const int64_t* sizes = sizes_and_strides_.sizes_data();
  const int64_t* strides = sizes_and_strides_.strides_data();
  int64_t expected = 1;
  for (int64_t i = dim() - 1; i >= 0; --i) {
    if (sizes[i] == 1)
      continue;
    if (strides[i] != expected)
      return false;
    expected *= sizes[i];
  }
  return true;
}

void fill_contiguous_strides(c10::IntArrayRef sizes, int64_t* strides) noexcept {
  int64_t s = 1;
  for (int64_t i = static_cast<int64_t>(sizes.size()) - 1; i >= 0; --i) {
    strides[i] = s;
    s *= sizes[i] > 0 ? sizes[i] : 1;
  }
}

std::vector<int64_t> contiguous_strides(c10::IntArrayRef sizes) {
  std::vector<int64_t> strides(sizes.size());
  fill_contiguous_strides(sizes, strides.data());
  return strides;
}

} // namespace at
