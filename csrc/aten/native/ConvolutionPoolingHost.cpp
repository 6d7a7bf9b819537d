// Host kernels of the CNN's data movement, bound for torchlite/_ops/Convolution.py (im2col,
// col2im, the batch/channel swaps around the matmuls) and torchlite/_ops/Pooling.py (max pooling
// and its backward): C-contiguous float32 or float64 arrays in, new arrays out, each loop run
// without the GIL. Their bits are the numpy code's (Note [Convolution copies in C++ keep the
// numpy bits], Note [Max pooling in C++ keeps the numpy kernel's answers]).
#include "aten/native/cpu/MaxPoolKernel.h"
#include "aten/native/cpu/Unfold2d.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace torch {
namespace {

namespace py = pybind11;

template <typename scalar_t>
using Array = py::array_t<scalar_t, py::array::c_style>;

void check_ndim(const py::array& a, py::ssize_t ndim, const char* what) {
  if (a.ndim() != ndim)
    throw std::invalid_argument(std::string(what) + " has the wrong number of dimensions");
}

void check_nonnegative(std::initializer_list<int64_t> values, const char* what) {
  for (int64_t v : values)
    if (v < 0)
      throw std::invalid_argument(std::string(what) + ": negative size");
}

void check_positive(std::initializer_list<int64_t> values, const char* what) {
  for (int64_t v : values)
    if (v <= 0)
      throw std::invalid_argument(std::string(what) + ": non-positive kernel, stride or dilation");
}

at::native::Unfold2dGeometry unfold_geometry(
    int64_t n,
    int64_t c,
    int64_t h,
    int64_t w,
    const std::vector<int64_t>& p,
    const char* what) {
  if (p.size() != 10)
    throw std::invalid_argument(std::string(what) + ": expected 10 window parameters");
  at::native::Unfold2dGeometry g{n, c, h, w, p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9]};
  check_positive({g.kernel_h, g.kernel_w, g.stride_h, g.stride_w, g.dilation_h, g.dilation_w}, what);
  check_nonnegative({n, c, h, w, g.pad_h, g.pad_w, g.out_h, g.out_w}, what);
  return g;
}

// columns (C * kH * kW, N * oH * oW) of x (N, C, H, W); params: kH, kW, sH, sW, pH, pW, dH, dW, oH, oW.
template <typename scalar_t>
Array<scalar_t> unfold2d_host(const Array<scalar_t>& x, const std::vector<int64_t>& params) {
  check_ndim(x, 4, "_unfold2d_host: x");
  const auto g = unfold_geometry(x.shape(0), x.shape(1), x.shape(2), x.shape(3), params, "_unfold2d_host");
  Array<scalar_t> cols({g.channels * g.kernel_h * g.kernel_w, g.batch * g.out_h * g.out_w});
  const scalar_t* in = x.data();
  scalar_t* out = cols.mutable_data();
  {
    py::gil_scoped_release release;
    at::native::unfold2d_copy(in, out, g);
  }
  return cols;
}

// the gradient (N, C, H, W) of the input from its columns' gradient (C * kH * kW, N * oH * oW), or
// None where it is not finite (Note [Convolution copies in C++ keep the numpy bits]).
template <typename scalar_t>
py::object unfold2d_acc_host(
    const Array<scalar_t>& cols,
    const std::vector<int64_t>& input_shape,
    const std::vector<int64_t>& params) {
  if (input_shape.size() != 4)
    throw std::invalid_argument("_unfold2d_acc_host: input_shape must have 4 sizes");
  const auto g =
      unfold_geometry(input_shape[0], input_shape[1], input_shape[2], input_shape[3], params, "_unfold2d_acc_host");
  if (cols.size() != g.channels * g.kernel_h * g.kernel_w * g.batch * g.out_h * g.out_w)
    throw std::invalid_argument("_unfold2d_acc_host: columns of the wrong size");
  Array<scalar_t> gx({g.batch, g.channels, g.height, g.width});
  const scalar_t* in = cols.data();
  scalar_t* out = gx.mutable_data();
  bool nonfinite;
  {
    py::gil_scoped_release release;
    at::native::unfold2d_acc(in, out, g);
    nonfinite = at::native::any_nonfinite(out, static_cast<int64_t>(gx.size()));
  }
  if (nonfinite)
    return py::none();
  return std::move(gx);
}

// (B, A, L) of src (A, B, L), plus bias[a] (a C-contiguous (A,) array of src's type) unless None;
// with a bias, None where the result is not finite (Note [Convolution copies in C++ keep the numpy
// bits]).
template <typename scalar_t>
py::object swap_leading_axes_host(const Array<scalar_t>& src, const py::object& bias) {
  check_ndim(src, 3, "_swap_leading_axes_host: src");
  const int64_t a = src.shape(0), b = src.shape(1), l = src.shape(2);
  const scalar_t* bias_data = nullptr;
  Array<scalar_t> bias_array;
  if (!bias.is_none()) {
    if (!Array<scalar_t>::check_(bias))
      throw std::invalid_argument("_swap_leading_axes_host: bias must be a C-contiguous array of src's type");
    bias_array = py::reinterpret_borrow<Array<scalar_t>>(bias);
    if (bias_array.ndim() != 1 || bias_array.shape(0) != a)
      throw std::invalid_argument("_swap_leading_axes_host: bias must have src.shape[0] elements");
    bias_data = bias_array.data();
  }
  Array<scalar_t> dst({b, a, l});
  const scalar_t* in = src.data();
  scalar_t* out = dst.mutable_data();
  bool nonfinite = false;
  {
    py::gil_scoped_release release;
    at::native::swap_leading_axes(in, out, a, b, l, bias_data);
    if (bias_data != nullptr)
      nonfinite = at::native::any_nonfinite(out, a * b * l);
  }
  if (nonfinite)
    return py::none();
  return std::move(dst);
}

// (values, indices) (planes, oH, oW) of x (planes, H, W); params: kH, kW, sH, sW, pH, pW, dH, dW, oH, oW.
template <typename scalar_t>
py::tuple max_pool2d_host(const Array<scalar_t>& x, const std::vector<int64_t>& params) {
  check_ndim(x, 3, "_max_pool2d_host: x");
  if (params.size() != 10)
    throw std::invalid_argument("_max_pool2d_host: expected 10 window parameters");
  const at::native::MaxPool2dGeometry g{
      x.shape(0),
      x.shape(1),
      x.shape(2),
      params[0],
      params[1],
      params[2],
      params[3],
      params[4],
      params[5],
      params[6],
      params[7],
      params[8],
      params[9]};
  check_positive({g.kernel_h, g.kernel_w, g.stride_h, g.stride_w, g.dilation_h, g.dilation_w}, "_max_pool2d_host");
  check_nonnegative({g.pad_h, g.pad_w, g.out_h, g.out_w}, "_max_pool2d_host");
  Array<scalar_t> values({g.planes, g.out_h, g.out_w});
  py::array_t<int64_t> indices({g.planes, g.out_h, g.out_w});
  const scalar_t* in = x.data();
  scalar_t* v = values.mutable_data();
  int64_t* i = indices.mutable_data();
  {
    py::gil_scoped_release release;
    at::native::max_pool2d_forward(in, v, i, g);
  }
  return py::make_tuple(values, indices);
}

// the gradient (planes, plane) of the input from grad and indices (planes, per_plane), or None
// where an index lies outside [0, plane) or a result is not finite (the Python kernel's own path
// then answers: Note [Max pooling in C++ keeps the numpy kernel's answers]).
template <typename scalar_t>
py::object max_pool2d_backward_host(
    const Array<scalar_t>& grad,
    const py::array_t<int64_t, py::array::c_style>& indices,
    int64_t plane) {
  check_ndim(grad, 2, "_max_pool2d_backward_host: grad");
  check_ndim(indices, 2, "_max_pool2d_backward_host: indices");
  if (grad.shape(0) != indices.shape(0) || grad.shape(1) != indices.shape(1))
    throw std::invalid_argument("_max_pool2d_backward_host: grad and indices differ in shape");
  if (plane < 0)
    throw std::invalid_argument("_max_pool2d_backward_host: negative plane");
  const int64_t planes = grad.shape(0), per_plane = grad.shape(1);
  const scalar_t* g = grad.data();
  const int64_t* idx = indices.data();
  bool in_range;
  {
    py::gil_scoped_release release;
    in_range = at::native::max_pool2d_indices_in_range(idx, planes * per_plane, plane);
  }
  if (!in_range)
    return py::none();
  Array<scalar_t> out({planes, plane});
  scalar_t* o = out.mutable_data();
  bool nonfinite;
  {
    py::gil_scoped_release release;
    at::native::max_pool2d_backward(g, idx, o, planes, per_plane, plane);
    nonfinite = at::native::any_nonfinite(o, planes * plane);
  }
  if (nonfinite)
    return py::none();
  return std::move(out);
}

template <typename scalar_t>
void define(py::module_& m) {
  m.def(
      "_unfold2d_host",
      &unfold2d_host<scalar_t>,
      py::arg("x").noconvert(),
      py::arg("params"),
      "im2col: the columns (C*kH*kW, N*oH*oW) of a C-contiguous float32/float64 x (N, C, H, W); params are "
      "kH, kW, sH, sW, pH, pW, dH, dW, oH, oW");
  m.def(
      "_unfold2d_acc_host",
      &unfold2d_acc_host<scalar_t>,
      py::arg("columns").noconvert(),
      py::arg("input_shape"),
      py::arg("params"),
      "col2im: the input's gradient (N, C, H, W) from its columns' gradient, taps added in order; None where "
      "it is not finite");
  m.def(
      "_swap_leading_axes_host",
      &swap_leading_axes_host<scalar_t>,
      py::arg("src").noconvert(),
      py::arg("bias") = py::none(),
      "(B, A, L) of a C-contiguous (A, B, L) array, plus bias[a] where given (then None where "
      "the result is not finite)");
  m.def(
      "_max_pool2d_host",
      &max_pool2d_host<scalar_t>,
      py::arg("x").noconvert(),
      py::arg("params"),
      "(values, int64 indices) of 2-d max pooling over a C-contiguous (planes, H, W) array");
  m.def(
      "_max_pool2d_backward_host",
      &max_pool2d_backward_host<scalar_t>,
      py::arg("grad").noconvert(),
      py::arg("indices").noconvert(),
      py::arg("plane"),
      "max pooling's input gradient (planes, plane), or None where an index lies outside the plane or a "
      "result is not finite");
}

} // namespace

void initConvolutionPoolingHostBindings(py::module_& m) {
  define<float>(m);
  define<double>(m);
}

} // namespace torch
