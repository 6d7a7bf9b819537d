#pragma once
// The native (non-differentiable) kernels the engine needs itself: factories,
// accumulation, the reduction of a broadcast gradient, dtype/device
// conversion and the anomaly-mode NaN check. CPU and host-memory devices run
// C++ loops; CUDA tensors run kernels on the current stream.
#include "aten/Tensor.h"

#include <vector>

namespace at {

Tensor empty(IntArrayRef sizes, ScalarType dtype = kFloat, c10::Device device = c10::Device());
Tensor full(IntArrayRef sizes, double value, ScalarType dtype = kFloat, c10::Device device = c10::Device());
Tensor zeros(IntArrayRef sizes, ScalarType dtype = kFloat, c10::Device device = c10::Device());
Tensor ones(IntArrayRef sizes, ScalarType dtype = kFloat, c10::Device device = c10::Device());
Tensor zeros_like(const Tensor& t);
Tensor ones_like(const Tensor& t);
// A tensor over foreign memory kept alive by `owner` (zero-copy).
// `exclusive_fn`, if given, tells when the owner is the memory's only holder.
Tensor from_blob(
    void* data,
    IntArrayRef sizes,
    IntArrayRef strides,
    ScalarType dtype,
    c10::Device device,
    std::shared_ptr<void> owner,
    size_t nbytes,
    StorageImpl::ExclusiveFn exclusive_fn = nullptr);
// Whether `t`'s memory may be overwritten as far as other holders go: its
// storage is referenced once and owned exclusively (views and numpy arrays
// over the same memory make it false). Callers check the tensor's own
// references themselves.
bool storage_is_exclusive(const Tensor& t);
// Copies host doubles into a new tensor (for tests and small constants).
Tensor tensor(
    const std::vector<double>& values,
    IntArrayRef sizes,
    ScalarType dtype = kFloat,
    c10::Device device = c10::Device());

// Same-shape elementwise ops.
Tensor add(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, double scalar);
Tensor clone(const Tensor& t); // a contiguous copy
// Whether t's elements fill a block of memory once each, in any dimension
// order (c10's is_non_overlapping_and_dense).
bool is_non_overlapping_and_dense(const Tensor& t);
// A copy of `t` laid out with `strides` (which must describe a
// non-overlapping and dense layout of t's sizes). Host devices only.
Tensor clone_strided(const Tensor& t, IntArrayRef strides);
Tensor contiguous(const Tensor& t); // t itself when already contiguous
// The dimensions, outermost first, in which TensorIterator lays out the
// result of an elementwise op over same-shaped a and b (its
// reorder_dimensions): sorted by the operands' strides, the first operand
// that tells two dimensions apart deciding (a zero stride tells nothing;
// equal strides put the smaller size inside), undecided pairs keeping their
// order. A kernel computes row-major over its operands permuted so, and views
// the result back (so a gradient's layout, seen through as_strided and view,
// is torch's).
std::vector<int64_t> iteration_order(const Tensor& a, const Tensor& b);
std::vector<int64_t> inverse_permutation(IntArrayRef perm);
// t's dimensions taken in the order `perm`: a view sharing its storage.
Tensor permuted(const Tensor& t, IntArrayRef perm);
// A view of t's storage with these sizes, strides and offset, sharing t's version counter
// (upstream's alias_with_sizes_and_strides, ATen/native/TensorShape.cpp); it records no view
// relation: callers that need one set it.
Tensor alias_with_sizes_and_strides(const Tensor& t, IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset);
// Sums a gradient down to `shape` it was broadcast from (at::sum_to).
Tensor sum_to(const Tensor& t, IntArrayRef shape);
bool is_expandable_to(IntArrayRef shape, IntArrayRef desired);
// For sum_to: per dimension of `in_sizes`, the stride (in a contiguous tensor
// of `shape`) of the output element an input element adds into; 0 where the
// dimension is reduced. Dimensions align on the right.
std::vector<int64_t> sum_to_strides(IntArrayRef in_sizes, IntArrayRef shape);
Tensor to(const Tensor& t, ScalarType dtype);
Tensor to(const Tensor& t, c10::Device device);
// True when any element is NaN (the anomaly-mode check).
bool any_nan(const Tensor& t);
// Between two devices of one accelerator type: makes dst's current stream
// wait for what src's current stream has queued (Note [Cross-device copies]).
void wait_for_source_stream(const c10::Device& src, const c10::Device& dst);

} // namespace at
