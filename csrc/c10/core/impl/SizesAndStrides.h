#pragma once
// A tensor's sizes and strides in one object (c10/core/impl/SizesAndStrides.h):
// up to kMaxInlineSize dimensions live inside it, so the common tensor costs no
// heap block for its metadata; more dimensions take one block holding the
// sizes followed by the strides.
#include "c10/util/ArrayRef.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <new>

namespace c10 {
namespace impl {

class SizesAndStrides {
 public:
  static constexpr size_t kMaxInlineSize = 5;

  SizesAndStrides() = default;
  SizesAndStrides(IntArrayRef sizes, IntArrayRef strides) {
    resize(sizes.size());
    std::copy(sizes.begin(), sizes.end(), sizes_data());
    std::copy(strides.begin(), strides.end(), strides_data());
  }
  SizesAndStrides(const SizesAndStrides& other) {
    copy_from(other);
  }
  SizesAndStrides& operator=(const SizesAndStrides& other) {
    if (this != &other)
      copy_from(other);
    return *this;
  }
  ~SizesAndStrides() {
    if (!is_inline())
      std::free(out_of_line_);
  }

  size_t size() const noexcept {
    return size_;
  }
  IntArrayRef sizes_arrayref() const noexcept {
    return IntArrayRef(sizes_data(), size_);
  }
  IntArrayRef strides_arrayref() const noexcept {
    return IntArrayRef(strides_data(), size_);
  }
  int64_t* sizes_data() noexcept {
    return is_inline() ? inline_ : out_of_line_;
  }
  const int64_t* sizes_data() const noexcept {
    return is_inline() ? inline_ : out_of_line_;
  }
  int64_t* strides_data() noexcept {
    return is_inline() ? inline_ + kMaxInlineSize : out_of_line_ + size_;
  }
  const int64_t* strides_data() const noexcept {
    return is_inline() ? inline_ + kMaxInlineSize : out_of_line_ + size_;
  }

  // Changes the number of dimensions; the values are then the caller's to set.
  void resize(size_t new_size) {
    if (new_size == size_)
      return;
    if (!is_inline())
      std::free(out_of_line_);
    if (new_size > kMaxInlineSize) {
      out_of_line_ = static_cast<int64_t*>(std::malloc(2 * new_size * sizeof(int64_t)));
      if (!out_of_line_) {
        size_ = 0;
        throw std::bad_alloc();
      }
    }
    size_ = new_size;
  }

 private:
  bool is_inline() const noexcept {
    return size_ <= kMaxInlineSize;
  }
  void copy_from(const SizesAndStrides& other) {
    resize(other.size_);
    std::copy(other.sizes_data(), other.sizes_data() + size_, sizes_data());
    std::copy(other.strides_data(), other.strides_data() + size_, strides_data());
  }

  size_t size_ = 0;
  union {
    int64_t* out_of_line_;
    int64_t inline_[2 * kMaxInlineSize];
  };
};

} // namespace impl
} // namespace c10
