#pragma once
// A vector that keeps its first N elements inside itself and moves to the
// heap beyond them (c10/util/SmallVector.h, reduced to what the engine uses):
// a node's input metadata and a shape cost no heap block in the common case.
#include "c10/util/ArrayRef.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace c10 {

template <typename T, size_t N>
class SmallVector {
 public:
  SmallVector() noexcept = default;
  SmallVector(ArrayRef<T> values) { // NOLINT(google-explicit-constructor): as a vector from sizes
    append(values.begin(), values.end());
  }
  SmallVector(const SmallVector& other) {
    append(other.begin(), other.end());
  }
  SmallVector(SmallVector&& other) noexcept(std::is_nothrow_move_constructible_v<T>) {
    take(std::move(other));
  }
  SmallVector& operator=(const SmallVector& other) {
    if (this != &other) {
      clear();
      append(other.begin(), other.end());
    }
    return *this;
  }
  SmallVector& operator=(SmallVector&& other) noexcept(std::is_nothrow_move_constructible_v<T>) {
    if (this != &other) {
      clear();
      release_heap();
      take(std::move(other));
    }
    return *this;
  }
  ~SmallVector() {
    clear();
    release_heap();
  }

  size_t size() const noexcept {
    return size_;
  }
  bool empty() const noexcept {
    return size_ == 0;
  }
  T* data() noexcept {
    return data_;
  }
  const T* data() const noexcept {
    return data_;
  }
  T* begin() noexcept {
    return data_;
  }
  T* end() noexcept {
    return data_ + size_;
  }
  const T* begin() const noexcept {
    return data_;
  }
  const T* end() const noexcept {
    return data_ + size_;
  }
  T& operator[](size_t i) noexcept {
    return data_[i];
  }
  const T& operator[](size_t i) const noexcept {
    return data_[i];
  }
  const T& at(size_t i) const {
    if (i >= size_)
      throw std::out_of_range("SmallVector: index out of range");
    return data_[i];
  }
  operator ArrayRef<T>() const noexcept { // NOLINT(google-explicit-constructor): as upstream's
    return ArrayRef<T>(data_, size_);
  }

  template <typename... Args>
  T& emplace_back(Args&&... args) {
    if (size_ == capacity_) {
      // args may refer to an element of this vector: build before moving them.
      T value(std::forward<Args>(args)...);
      grow(2 * static_cast<size_t>(capacity_) + 1);
      return *new (data_ + size_++) T(std::move(value));
    }
    return *new (data_ + size_++) T(std::forward<Args>(args)...);
  }
  void push_back(const T& value) {
    emplace_back(value);
  }
  void push_back(T&& value) {
    emplace_back(std::move(value));
  }
  // New elements are value-initialized.
  void resize(size_t n) {
    if (n < size_) {
      std::destroy(data_ + n, data_ + size_);
    } else {
      if (n > capacity_)
        grow(n);
      std::uninitialized_value_construct(data_ + size_, data_ + n);
    }
    size_ = static_cast<uint32_t>(n);
  }
  void clear() noexcept {
    std::destroy(data_, data_ + size_);
    size_ = 0;
  }

 private:
  T* inline_data() noexcept {
    return reinterpret_cast<T*>(inline_);
  }
  bool is_inline() const noexcept {
    return data_ == reinterpret_cast<const T*>(inline_);
  }
  template <typename It>
  void append(It first, It last) {
    const auto n = static_cast<size_t>(last - first);
    if (size_ + n > capacity_)
      grow(size_ + n);
    std::uninitialized_copy(first, last, data_ + size_);
    size_ += static_cast<uint32_t>(n);
  }
  void grow(size_t capacity) {
    if (capacity > UINT32_MAX)
      throw std::length_error("SmallVector: too many elements");
    T* fresh = static_cast<T*>(::operator new(capacity * sizeof(T)));
    std::uninitialized_move(data_, data_ + size_, fresh);
    std::destroy(data_, data_ + size_);
    release_heap();
    data_ = fresh;
    capacity_ = static_cast<uint32_t>(capacity);
  }
  void release_heap() noexcept {
    if (!is_inline())
      ::operator delete(data_);
    data_ = inline_data();
    capacity_ = N;
  }
  // Leaves other empty and inline.
  void take(SmallVector&& other) {
    if (other.is_inline()) {
      std::uninitialized_move(other.begin(), other.end(), data_);
      size_ = other.size_;
      other.clear();
    } else {
      data_ = other.data_;
      size_ = other.size_;
      capacity_ = other.capacity_;
      other.data_ = other.inline_data();
      other.size_ = 0;
      other.capacity_ = N;
    }
  }

  T* data_ = inline_data();
  // 32-bit counts: a node keeps three of these vectors.
  uint32_t size_ = 0;
  uint32_t capacity_ = N;
  alignas(T) unsigned char inline_[N * sizeof(T)];
};

} // namespace c10
