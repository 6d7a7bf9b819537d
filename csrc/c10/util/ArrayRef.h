#pragma once
// A read-only view of a contiguous run of elements it does not own: a
// std::vector, a braced list, one element, or a tensor's inline sizes
// (c10/util/ArrayRef.h, reduced). The viewed elements must outlive the view;
// a view made from a temporary (`f({2, 3})`) lives for the call.
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <stdexcept>
#include <vector>

namespace c10 {

template <typename T>
class ArrayRef {
 public:
  using value_type = T;
  using iterator = const T*;
  using const_iterator = const T*;

  constexpr ArrayRef() = default;
  // NOLINTBEGIN(google-explicit-constructor): implicit as upstream's, so that
  // a vector, a list or one number is taken wherever sizes are.
  constexpr ArrayRef(const T& one) : data_(&one), length_(1) {}
  constexpr ArrayRef(const T* data, size_t length) : data_(data), length_(length) {}
  ArrayRef(const std::vector<T>& vec) : data_(vec.data()), length_(vec.size()) {}
  constexpr ArrayRef(const std::initializer_list<T>& list)
      : data_(std::begin(list) == std::end(list) ? nullptr : std::begin(list)), length_(list.size()) {}
  // NOLINTEND(google-explicit-constructor)

  constexpr const T* data() const noexcept {
    return data_;
  }
  constexpr size_t size() const noexcept {
    return length_;
  }
  constexpr bool empty() const noexcept {
    return length_ == 0;
  }
  constexpr const T* begin() const noexcept {
    return data_;
  }
  constexpr const T* end() const noexcept {
    return data_ + length_;
  }
  std::reverse_iterator<const T*> rbegin() const noexcept {
    return std::reverse_iterator<const T*>(end());
  }
  std::reverse_iterator<const T*> rend() const noexcept {
    return std::reverse_iterator<const T*>(begin());
  }
  constexpr const T& operator[](size_t i) const noexcept {
    return data_[i];
  }
  const T& at(size_t i) const {
    if (i >= length_)
      throw std::out_of_range("ArrayRef: index out of range");
    return data_[i];
  }
  constexpr const T& front() const noexcept {
    return data_[0];
  }
  constexpr const T& back() const noexcept {
    return data_[length_ - 1];
  }
  bool equals(ArrayRef other) const noexcept {
    if (length_ != other.length_)
      return false;
    for (size_t i = 0; i < length_; ++i)
      if (!(data_[i] == other.data_[i]))
        return false;
    return true;
  }
  // The elements as a new vector (upstream's "expensive operations").
  std::vector<T> vec() const {
    return std::vector<T>(data_, data_ + length_);
  }
  operator std::vector<T>() const { // NOLINT(google-explicit-constructor): as upstream's
    return vec();
  }

 private:
  const T* data_ = nullptr;
  size_t length_ = 0;
};

template <typename T>
bool operator==(ArrayRef<T> a, ArrayRef<T> b) {
  return a.equals(b);
}
template <typename T>
bool operator!=(ArrayRef<T> a, ArrayRef<T> b) {
  return !a.equals(b);
}
template <typename T>
bool operator==(ArrayRef<T> a, const std::vector<T>& b) {
  return a.equals(b);
}
template <typename T>
bool operator!=(ArrayRef<T> a, const std::vector<T>& b) {
  return !a.equals(b);
}
template <typename T>
bool operator==(const std::vector<T>& a, ArrayRef<T> b) {
  return b.equals(a);
}
template <typename T>
bool operator!=(const std::vector<T>& a, ArrayRef<T> b) {
  return !b.equals(a);
}

using IntArrayRef = ArrayRef<int64_t>;

} // namespace c10
