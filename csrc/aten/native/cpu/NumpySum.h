#pragma once

// numpy's floating-point sums, step for step, for C++ kernels whose results
// must be the numpy path's bits (Note [Layer norm with numpy's bits], Note
// [Batch norm gradients with numpy's bits]).
//
// numpy's add reduction of a contiguous row (numpy/_core/src/umath/
// loops_utils.h.src, @TYPE@_pairwise_sum): below 8 values a plain loop from
// -0.0, up to 128 (PW_BLOCKSIZE) eight accumulators combined as
// ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7)) and then the tail, beyond
// that the two halves split at a multiple of 8. The reduction adds that sum to
// its +0 identity. numpy 2.2, 2.4 and 2.5 agree on all of this for a row that
// reaches the inner loop whole (no longer than numpy's ufunc buffer).

#include <cstdint>

namespace at {
namespace native {

constexpr std::int64_t kNumpyPairwiseBlock = 128;

// @TYPE@_pairwise_sum of load(lo), ..., load(lo + n - 1), each load a value
// already rounded to T (a stored element, or a product numpy would have stored
// in a temporary first).
template <typename T, typename Load>
T numpy_pairwise_sum(const Load& load, std::int64_t lo, std::int64_t n) {
  if (n < 8) {
    T res = T(-0.0);
    for (std::int64_t i = 0; i < n; ++i)
      res += load(lo + i);
    return res;
  }
  if (n <= kNumpyPairwiseBlock) {
    T r[8];
    for (int k = 0; k < 8; ++k)
      r[k] = load(lo + k);
    std::int64_t i = 8;
    for (; i < n - (n % 8); i += 8) {
      for (int k = 0; k < 8; ++k)
        r[k] += load(lo + i + k);
    }
    T res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i)
      res += load(lo + i);
    return res;
  }
  std::int64_t n2 = n / 2;
  n2 -= n2 % 8;
  const T left = numpy_pairwise_sum<T>(load, lo, n2);
  const T right = numpy_pairwise_sum<T>(load, lo + n2, n - n2);
  return left + right;
}

// np.add.reduce of a contiguous row: the +0 identity plus the pairwise sum.
template <typename T, typename Load>
T numpy_row_sum(const Load& load, std::int64_t n) {
  return T(0) + numpy_pairwise_sum<T>(load, 0, n);
}

// np.mean's division of a sum by its count: numpy's _mean divides by the
// count as an np.intp, which under NEP 50 runs the float64 loop, then casts
// back (casting='unsafe' into the sum's array).
template <typename T>
T numpy_mean_of_sum(T sum, std::int64_t count) {
  return static_cast<T>(static_cast<double>(sum) / static_cast<double>(count));
}

} // namespace native
} // namespace at
