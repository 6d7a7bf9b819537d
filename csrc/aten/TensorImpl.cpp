#include "aten/TensorImpl.h"
#include "aten/Tensor.h"

namespace at {

void TensorImpl::shallow_copy_from(const TensorImpl& other) {
  storage_ = other.storage_;
  dtype_ = other.dtype_;
  sizes_ = other.sizes_;
  strides_ = other.strides_;
  storage_offset_ = other.storage_offset_;
  numel_ = other.numel_;
  is_inference_ = other.is_inference_;
}

TensorImpl::TensorImpl(
    std::shared_ptr<StorageImpl> storage,
    ScalarType dtype,
    std::vector<int64_t> sizes,
    std::vector<int64_t> strides,
    int64_t storage_offset,
    std::shared_ptr<VersionCounter> version_counter)
    : storage_(std::move(storage)),
      dtype_(dtype),
      sizes_(std::move(sizes)),
      strides_(std::move(strides)),
      storage_offset_(storage_offset),
      version_counter_(version_counter ? std::move(version_counter) : std::make_shared<VersionCounter>()) {
  numel_ = 1;
  for (auto s : sizes_)
    numel_ *= s;
}

// Out of line: AutogradMeta (complete only in autograd/) is destroyed here.
TensorImpl::~TensorImpl() = default;

void TensorImpl::set_autograd_meta(std::unique_ptr<AutogradMetaInterface> meta) {
  autograd_meta_ = std::move(meta);
}

bool TensorImpl::is_contiguous() const noexcept {
  int64_t expected = 1;
  for (int64_t i = dim() - 1; i >= 0; --i) {
    if (sizes_[i] == 1)
      continue;
    if (strides_[i] != expected)
      return false;
    expected *= sizes_[i];
  }
  return true;
}

std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> strides(sizes.size());
  int64_t s = 1;
  for (int64_t i = static_cast<int64_t>(sizes.size()) - 1; i >= 0; --i) {
    strides[i] = s;
    s *= sizes[i] > 0 ? sizes[i] : 1;
  }
  return strides;
}

} // namespace at
