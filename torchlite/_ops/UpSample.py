"""Upsampling (ATen/native/UpSample.h, UpSampleNearest1d/2d.cpp, UpSampleLinear1d.cpp,
UpSampleBilinear2d.cpp): nearest and (bi)linear resampling with their backward ops. Both are separable:
along each spatial dim an (out, in) matrix picks (nearest) or weighs (linear) the input positions,
so the forward is those matrices applied dim by dim and the backward their transposes."""
import numpy as np

from .._C import _record, _wrap
from .._generated import specs as _S
from .ScalarType import _torch_type_name
from .quiet_numerics import quiet


def _scale_value(scale, in_size, out_size, dtype):
    """compute_scales_value: 1 / scale where one is given (and positive), else in / out."""
    if scale is not None and scale > 0:
        return dtype.type(1.0 / scale)  # in double, then cast (static_cast<T>(1.0 / scale.value()))
    return dtype.type(in_size) / dtype.type(out_size) if out_size else dtype.type(0)


def _nearest_matrix(in_size, out_size, scale, dtype):
    """nearest_idx: out == in is the identity, out == 2 * in halves, else floor(o * scale) (float)."""
    o = np.arange(out_size)
    if out_size == in_size:
        src = o
    elif out_size == 2 * in_size:
        src = o >> 1
    else:
        s = _scale_value(scale, in_size, out_size, np.dtype(np.float32))
        src = np.minimum(np.floor(o.astype(np.float32) * s).astype(np.int64), in_size - 1)
    return (src[:, None] == np.arange(in_size)[None, :]).astype(dtype)


def _linear_matrix(in_size, out_size, align_corners, scale, dtype):
    """area_pixel_compute_scale and area_pixel_compute_source_index (linear): each output mixes the two
    input positions around its source index, by (1 - lambda, lambda)."""
    acc = np.dtype(np.float64) if dtype == np.float64 else np.dtype(np.float32)
    if align_corners:
        s = acc.type(in_size - 1) / acc.type(out_size - 1) if out_size > 1 else acc.type(0)
    else:
        s = _scale_value(scale, in_size, out_size, acc)
    o = np.arange(out_size).astype(acc)
    src = s * o if align_corners else np.maximum(s * (o + acc.type(0.5)) - acc.type(0.5), acc.type(0))
    i0 = src.astype(np.int64)
    i1 = i0 + (i0 < in_size - 1)
    l1 = src - i0.astype(acc)
    l0 = acc.type(1) - l1
    m = np.zeros((out_size, in_size), dtype=acc)
    rows = np.arange(out_size)
    np.add.at(m, (rows, i0), l0)
    np.add.at(m, (rows, i1), l1)
    return m.astype(dtype)


def _cubic_taps(in_size, out_size, align_corners, scale, acc):
    """upsample_bicubic2d (UpSampleKernel.cpp's HelperInterpCubic, UpSample.h): the source index
    without the clamp at 0 (cubic), its floor and fraction t; the four taps at floor - 1 .. floor + 2
    (clamped into the input: upsample_get_value_bounded) weighed by Keys' cubic convolution, A = -0.75
    (get_cubic_upsample_coefficients), in opmath (float for float32). (indices, weights), each 4 x out."""
    if align_corners:
        s = acc.type(in_size - 1) / acc.type(out_size - 1) if out_size > 1 else acc.type(0)
    else:
        s = _scale_value(scale, in_size, out_size, acc)
    o = np.arange(out_size).astype(acc)
    src = s * o if align_corners else s * (o + acc.type(0.5)) - acc.type(0.5)
    i0 = np.minimum(np.floor(src).astype(np.int64), in_size - 1)
    t = np.clip(src - i0.astype(acc), acc.type(0), acc.type(1))
    a = acc.type(-0.75)

    def conv1(x):  # cubic_convolution1: |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def conv2(x):  # cubic_convolution2: 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    one = acc.type(1)
    weights = [conv2(t + one), conv1(t), conv1(one - t), conv2((one - t) + one)]
    return [np.clip(i0 - 1 + k, 0, in_size - 1) for k in range(4)], [w.astype(acc) for w in weights]


def _cubic_matrix(in_size, out_size, align_corners, scale, dtype):
    """The (out, in) matrix of the cubic taps (the backward's transposes)."""
    acc = np.dtype(np.float64) if dtype == np.float64 else np.dtype(np.float32)
    idx, weights = _cubic_taps(in_size, out_size, align_corners, scale, acc)
    m = np.zeros((out_size, in_size), dtype=acc)
    rows = np.arange(out_size)
    for i, w in zip(idx, weights, strict=True):
        np.add.at(m, (rows, i), w)
    return m.astype(dtype)


@quiet
def _cubic_forward(a, out_sizes, align_corners, scales):
    """The 16 taps summed as upstream's Interpolate<2> (UpSampleKernel.cpp) sums them: for each of the
    four rows, the four columns' products added in order, then the rows' weighted sums in order."""
    acc = np.dtype(np.float64) if a.dtype == np.float64 else np.dtype(np.float32)
    iy, wy = _cubic_taps(a.shape[-2], out_sizes[0], align_corners, scales[0], acc)
    ix, wx = _cubic_taps(a.shape[-1], out_sizes[1], align_corners, scales[1], acc)
    x = a.astype(acc, copy=False)
    out = None
    for rows, w_row in zip(iy, wy, strict=True):
        picked = x[..., rows, :]
        inner = picked[..., ix[0]] * wx[0]
        for k in range(1, 4):
            inner = inner + picked[..., ix[k]] * wx[k]
        term = inner * w_row[:, None]
        out = term if out is None else out + term
    return np.ascontiguousarray(out)


@quiet
def _apply(a, mats, transpose=False):
    """The matrices applied along the last len(mats) dims (each (out, in); transposed: in from out)."""
    nd = len(mats)
    r = a
    # the last dim first: out = sum_h lh * (sum_w lw * x), as upstream's kernels associate it
    for i, m in reversed(list(enumerate(mats))):
        axis = a.ndim - nd + i
        r = np.moveaxis(np.matmul(np.moveaxis(r, axis, -1), m if transpose else m.T), -1, axis)
    return np.ascontiguousarray(r)


def _output_size(name, a, output_size, scales, nd):
    if output_size is None:
        if scales is None:
            raise RuntimeError("Must specify exactly one of output_size and scale_factors")
        output_size = [int(np.floor(a.shape[-nd + i] * float(s))) for i, s in enumerate(scales)]
    output_size = [int(v) for v in output_size]
    if len(output_size) != nd:
        raise RuntimeError(f"It is expected output_size equals to {nd}, but got size {len(output_size)}")
    if a.ndim != nd + 2:
        raise RuntimeError(f"It is expected input_size equals to {nd + 2}, but got size {a.ndim}")
    if any(s <= 0 for s in a.shape[2:]) or any(s <= 0 for s in output_size):
        ins = " ".join(f"{n} = {v}" for n, v in zip(("H", "W") if nd == 2 else ("W",), a.shape[2:], strict=True))
        outs = " ".join(f"{n} = {v}" for n, v in zip(("H", "W") if nd == 2 else ("W",), output_size, strict=True))
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({ins}) and output "
                           f"({outs})")
    return output_size


def _matrices(kind, in_sizes, out_sizes, align_corners, scales, dtype):
    if kind == "nearest":
        return [_nearest_matrix(i, o, s, dtype) for i, o, s in zip(in_sizes, out_sizes, scales, strict=True)]
    if kind == "cubic":
        return [_cubic_matrix(i, o, align_corners, s, dtype)
                for i, o, s in zip(in_sizes, out_sizes, scales, strict=True)]
    return [_linear_matrix(i, o, align_corners, s, dtype) for i, o, s in zip(in_sizes, out_sizes, scales, strict=True)]


def _upsample(name, kind, self, output_size, align_corners, scales, spec, fields):
    a = self._array
    nd = len(scales)
    out = _output_size(name, a, output_size, None, nd)
    if a.dtype.kind != "f":  # the CPU kernels' dispatch names (upstream's, for the 2-d and 1-d kernels)
        kernel = f"{name}_channels_last" if nd == 2 else ("compute_indices_weights_nearest" if kind == "nearest"
                                                            else "compute_indices_weights_linear")
        if kind == "cubic":
            kernel = "compute_indices_weights_cubic"
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_torch_type_name(a.dtype)}\'')
    ct = np.float32 if a.dtype == np.float16 else a.dtype
    if kind == "cubic":
        r = _cubic_forward(a, out, align_corners, scales).astype(a.dtype, copy=False)
    else:
        mats = _matrices(kind, a.shape[2:], out, align_corners, scales, ct)
        r = _apply(a.astype(ct, copy=False), mats).astype(a.dtype, copy=False)
    return _record(spec, (self,), _wrap(r, self), output_size=out, self_sym_sizes=a.shape, **fields)


def _upsample_backward(kind, grad_output, output_size, input_size, align_corners, scales, spec, fields):
    g = grad_output._array
    nd = len(scales)
    input_size = [int(v) for v in input_size]
    ct = np.float32 if g.dtype == np.float16 else g.dtype
    mats = _matrices(kind, input_size[2:], [int(v) for v in output_size], align_corners, scales, ct)
    r = _apply(g.astype(ct, copy=False), mats, transpose=True).astype(g.dtype, copy=False)
    assert r.shape == tuple(input_size[:2]) + tuple(input_size[2:]) and nd
    return _record(spec, (grad_output,), _wrap(r, grad_output), output_size=[int(v) for v in output_size], **fields)


def upsample_nearest1d(self, output_size, scales=None):
    return _upsample("upsample_nearest1d", "nearest", self, output_size, False, [scales],
                     _S.UpsampleNearest1DBackward0, dict(scales=scales))


def upsample_nearest2d(self, output_size, scales_h=None, scales_w=None):
    return _upsample("upsample_nearest2d", "nearest", self, output_size, False, [scales_h, scales_w],
                     _S.UpsampleNearest2DBackward0, dict(scales_h=scales_h, scales_w=scales_w))


def upsample_linear1d(self, output_size, align_corners, scales=None):
    return _upsample("upsample_linear1d", "linear", self, output_size, align_corners, [scales],
                     _S.UpsampleLinear1DBackward0, dict(align_corners=bool(align_corners), scales=scales))


def upsample_bilinear2d(self, output_size, align_corners, scales_h=None, scales_w=None):
    return _upsample("upsample_bilinear2d", "linear", self, output_size, align_corners, [scales_h, scales_w],
                     _S.UpsampleBilinear2DBackward0,
                     dict(align_corners=bool(align_corners), scales_h=scales_h, scales_w=scales_w))


def upsample_nearest1d_backward(grad_output, output_size, input_size, scales=None):
    return _upsample_backward("nearest", grad_output, output_size, input_size, False, [scales],
                              _S.UpsampleNearest1DBackwardBackward0, dict(scales=scales))


def upsample_nearest2d_backward(grad_output, output_size, input_size, scales_h=None, scales_w=None):
    return _upsample_backward("nearest", grad_output, output_size, input_size, False, [scales_h, scales_w],
                              _S.UpsampleNearest2DBackwardBackward0, dict(scales_h=scales_h, scales_w=scales_w))


def upsample_linear1d_backward(grad_output, output_size, input_size, align_corners, scales=None):
    return _upsample_backward("linear", grad_output, output_size, input_size, align_corners, [scales],
                              _S.UpsampleLinear1DBackwardBackward0,
                              dict(align_corners=bool(align_corners), scales=scales))


def upsample_bilinear2d_backward(grad_output, output_size, input_size, align_corners, scales_h=None, scales_w=None):
    return _upsample_backward("linear", grad_output, output_size, input_size, align_corners, [scales_h, scales_w],
                              _S.UpsampleBilinear2DBackwardBackward0,
                              dict(align_corners=bool(align_corners), scales_h=scales_h, scales_w=scales_w))


def upsample_bicubic2d(self, output_size, align_corners, scales_h=None, scales_w=None):
    """at::upsample_bicubic2d (UpsampleBicubic2DBackward0)."""
    return _upsample("upsample_bicubic2d", "cubic", self, output_size, align_corners, [scales_h, scales_w],
                     _S.UpsampleBicubic2DBackward0,
                     dict(align_corners=bool(align_corners), scales_h=scales_h, scales_w=scales_w))


def upsample_bicubic2d_backward(grad_output, output_size, input_size, align_corners, scales_h=None, scales_w=None):
    """at::upsample_bicubic2d_backward: the transposed cubic matrices (its own node under create_graph)."""
    return _upsample_backward("cubic", grad_output, output_size, input_size, align_corners, [scales_h, scales_w],
                              _S.UpsampleBicubic2DBackwardBackward0,
                              dict(align_corners=bool(align_corners), scales_h=scales_h, scales_w=scales_w))
