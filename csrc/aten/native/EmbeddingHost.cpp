// Host kernel of embedding's dense backward (torchlite/_ops/Embedding.py's embedding_dense_backward):
// the rows of grad_output added into the rows of the weight's gradient the indices name.
//
// Note [Embedding backward with numpy's bits]
// Upstream's embedding_dense_backward_cpu (ATen/native/Embedding.cpp) sorts the indices and adds
// per index with index_add_. The Python kernel, the reference here, is np.add.at(total, idx, rows):
// numpy documents ufunc.at as unbuffered, each (index, row) pair applied in the order the indices
// are given, so each element of the result is +0 followed by one IEEE addition per occurrence of
// its row's index, in index order (numpy 2.2, 2.4 and 2.5 alike: ufunc_at's loop over the indices).
// This kernel makes exactly those additions in that order, in the result's dtype (float32 or
// float64; no product, so no contraction can change them). It returns None where it does not apply
// (another dtype or layout, an index out of [0, num_weights): numpy would wrap a negative one or
// raise) and the Python kernel runs.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <cstring>

namespace torch {
namespace {

namespace py = pybind11;

template <typename T>
using Array = py::array_t<T, py::array::c_style>;

template <typename T>
py::object dense_backward(
    const Array<T>& grad,
    const Array<std::int64_t>& indices,
    std::int64_t num_weights,
    std::int64_t padding_idx) {
  const std::int64_t n = indices.size();
  if (grad.ndim() < 1)
    return py::none();
  const std::int64_t dim = grad.shape(grad.ndim() - 1);
  if (dim < 1 || grad.size() != n * dim || num_weights < 0)
    return py::none();
  const std::int64_t* idx = indices.data();
  for (std::int64_t i = 0; i < n; ++i) {
    if (idx[i] < 0 || idx[i] >= num_weights)
      return py::none();
  }
  Array<T> out({static_cast<py::ssize_t>(num_weights), static_cast<py::ssize_t>(dim)});
  T* total = out.mutable_data();
  std::memset(total, 0, sizeof(T) * static_cast<size_t>(num_weights * dim));
  const T* rows = grad.data();
  for (std::int64_t i = 0; i < n; ++i) {
    if (idx[i] == padding_idx)
      continue;
    T* dst = total + idx[i] * dim;
    const T* src = rows + i * dim;
    for (std::int64_t j = 0; j < dim; ++j)
      dst[j] += src[j];
  }
  return std::move(out);
}

// embedding_dense_backward of a C-contiguous float32 / float64 grad_output (its last dim the
// embedding's) and C-contiguous int64 indices, without scale_grad_by_freq: the (num_weights, dim)
// gradient, or None.
py::object embedding_dense_backward_host(
    const py::object& grad,
    const py::object& indices,
    std::int64_t num_weights,
    std::int64_t padding_idx) {
  if (!Array<std::int64_t>::check_(indices))
    return py::none();
  auto idx = py::reinterpret_borrow<Array<std::int64_t>>(indices);
  if (Array<float>::check_(grad))
    return dense_backward<float>(py::reinterpret_borrow<Array<float>>(grad), idx, num_weights, padding_idx);
  if (Array<double>::check_(grad))
    return dense_backward<double>(py::reinterpret_borrow<Array<double>>(grad), idx, num_weights, padding_idx);
  return py::none();
}

} // namespace

void initEmbeddingHostBindings(py::module_& m) {
  m.def(
      "_embedding_dense_backward_host",
      &embedding_dense_backward_host,
      py::arg("grad"),
      py::arg("indices"),
      py::arg("num_weights"),
      py::arg("padding_idx"),
      "embedding_dense_backward (no scale_grad_by_freq) with np.add.at's bits: the weight's gradient, or None");
}

} // namespace torch
