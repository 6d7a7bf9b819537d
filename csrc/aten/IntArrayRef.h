#pragma once
// A list of sizes or dimensions as the C++ front end takes it: a braced list
// `{2, 3}`, a std::vector, or one integer `3` (c10::IntArrayRef, which views
// its elements; this one holds a copy, which is all the front end needs).
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace at {

struct IntArrayRef {
  IntArrayRef() = default;
  IntArrayRef(int64_t one) : values_{one} {} // NOLINT(google-explicit-constructor): as c10's
  IntArrayRef(std::initializer_list<int64_t> list) : values_(list) {}
  IntArrayRef(std::vector<int64_t> values) : values_(std::move(values)) {} // NOLINT
  const std::vector<int64_t>& vec() const noexcept {
    return values_;
  }
  size_t size() const noexcept {
    return values_.size();
  }
  int64_t operator[](size_t i) const {
    return values_[i];
  }
  auto begin() const noexcept {
    return values_.begin();
  }
  auto end() const noexcept {
    return values_.end();
  }

 private:
  std::vector<int64_t> values_;
};

} // namespace at
