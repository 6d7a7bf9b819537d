"""Convolution (ATen/native/Convolution.cpp): at::convolution, its backward
(at::convolution_backward, an op of its own as upstream, so double backward works), and the
composite conv1d / conv2d / conv_transpose1d / conv_transpose2d that call it.

The kernels are im2col + one batched BLAS matmul (upstream's slow_conv2d / NaiveConvolutionTranspose
do the same per batch element): the padded input's windows are an as_strided view
(N, C, *out, *kernel), copied once into columns laid out (groups, C/groups * prod(kernel), N * prod(out)),
and the weight of each group multiplies its columns in one np.matmul batched over the groups. The
input gradient is col2im: the columns' gradient added back into the padded input one kernel tap at a
time (a loop over the kernel's taps, each a vectorised strided add over every pixel)."""
import itertools
import math
import warnings

import numpy as np

from .. import _C
from .._C import _record, _wrap
from .._generated import specs as _S
from .ScalarType import _torch_type_name
from .Padding import constant_pad_nd
from .TensorShape import squeeze, unsqueeze
from .quiet_numerics import quiet

_as_strided = np.lib.stride_tricks.as_strided


# Kernels (numpy arrays in, numpy arrays out) ----------------------------------------------------------

def _compute_dtype(dtype):
    """float16 is computed in float32 and rounded once, as PyTorch's CPU kernels compute it."""
    return np.dtype(np.float32) if dtype == np.float16 else dtype


_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)


def _host(a):
    """Whether a is a C-contiguous, aligned host float32/float64 array: the C++ kernels' input
    (Unfold2d.h, Note [Convolution copies in C++ keep the numpy bits]); other arrays take numpy."""
    return (a.dtype == _F32 or a.dtype == _F64) and type(a) is np.ndarray and a.flags.c_contiguous and \
        a.flags.aligned


def _host_params(kernel, stride, padding, dilation, out):
    """The C++ kernels' window parameters (kH, kW, sH, sW, pH, pW, dH, dW, oH, oW) of a 1-d or 2-d
    window; a 1-d one as a 2-d one of height 1."""
    if len(kernel) == 1:
        return [1, kernel[0], 1, stride[0], 0, padding[0], 1, dilation[0], 1, out[0]]
    return [*kernel, *stride, *padding, *dilation, *out]


def _padded(x, padding):
    if not any(padding):
        return x
    nd = len(padding)
    xp = np.zeros(x.shape[:2] + tuple(s + 2 * p for s, p in zip(x.shape[2:], padding, strict=True)), dtype=x.dtype)
    xp[(slice(None), slice(None)) + tuple(slice(p, p + s) for p, s in zip(padding, x.shape[2:], strict=True))] = x
    assert xp.ndim == nd + 2
    return xp


def _out_size(size, k, s, p, d):
    return (size + 2 * p - d * (k - 1) - 1) // s + 1


def _im2col(x, kernel, stride, padding, dilation, groups):
    """The columns (groups, C/groups * prod(kernel), N * prod(out)) of x (N, C, *spatial), and out."""
    nd = len(kernel)
    n, c = x.shape[:2]
    out = tuple(_out_size(x.shape[2 + i], kernel[i], stride[i], padding[i], dilation[i]) for i in range(nd))
    if nd <= 2 and _host(x):
        # the same columns, copied in C++ (Unfold2d.cpp)
        cols = _C._unfold2d_host(x.reshape(x.shape[:2] + (1,) * (2 - nd) + x.shape[2:]),
                                 _host_params(kernel, stride, padding, dilation, out))
        return cols.reshape(groups, (c // groups) * math.prod(kernel), n * math.prod(out)), out
    xp = _padded(x, padding)
    sp = xp.strides[2:]
    windows = _as_strided(xp, xp.shape[:2] + out + tuple(kernel),
                          xp.strides[:2] + tuple(a * s for a, s in zip(sp, stride, strict=True)) +
                          tuple(a * d for a, d in zip(sp, dilation, strict=True)), writeable=False)
    # (C, *kernel, N, *out): channel-major rows, batch-major columns
    perm = (1,) + tuple(range(2 + nd, 2 + 2 * nd)) + (0,) + tuple(range(2, 2 + nd))
    cols = np.ascontiguousarray(windows.transpose(perm))
    return cols.reshape(groups, (c // groups) * math.prod(kernel), n * math.prod(out)), out


@quiet
def _conv_forward(x, w, stride, padding, dilation, groups, bias=None):
    """y (N, O, *out) of x (N, C, *in) and w (O, C/groups, *kernel), plus bias (O,) where given: added
    while the product is copied into y's layout (one pass instead of a copy and an in-place add;
    each element the same sum)."""
    n, o = x.shape[0], w.shape[0]
    cols, out = _im2col(x, w.shape[2:], stride, padding, dilation, groups)
    y = np.matmul(w.reshape(groups, o // groups, math.prod(w.shape[1:])), cols)  # (g, O/g, N * prod(out))
    if _host(y) and (bias is None or bias.dtype == y.dtype):
        # the same copy (and bias addition), in C++ (Unfold2d.cpp's swap_leading_axes)
        b = None if bias is None else np.ascontiguousarray(bias.reshape(-1))
        r = _C._swap_leading_axes_host(y.reshape(o, n, math.prod(out)), b)  # None where not finite
        if r is not None:
            return r.reshape((n, o) + tuple(out))
    y = np.moveaxis(y.reshape(o, n, *out), 0, 1)
    if bias is None:
        return np.ascontiguousarray(y)
    return np.add(y, bias.reshape((-1,) + (1,) * len(out)), out=np.empty_like(y, order="C"))


def _grad_output_rows(gy, groups):
    """gy (N, O, *out) as (groups, O/groups, N * prod(out))."""
    n, o = gy.shape[:2]
    size = math.prod(gy.shape[2:])
    if _host(gy):
        return _C._swap_leading_axes_host(gy.reshape(n, o, size)).reshape(groups, o // groups, n * size)
    return np.ascontiguousarray(np.moveaxis(gy.reshape(n, o, size), 0, 1)).reshape(groups, o // groups, n * size)


@quiet
def _conv_backward_input(gy, w, input_shape, stride, padding, dilation, groups, rows=None):
    """The gradient (N, C, *in) of x for y = conv(x, w): col2im of w^T gy."""
    nd = w.ndim - 2
    n, c = input_shape[:2]
    o, kernel, out = w.shape[0], w.shape[2:], gy.shape[2:]
    wm = w.reshape(groups, o // groups, math.prod(w.shape[1:]))
    gcols = np.matmul(wm.transpose(0, 2, 1), _grad_output_rows(gy, groups) if rows is None else rows)
    if nd <= 2 and _host(gcols):
        # col2im in C++ (Unfold2d.cpp), the taps added in the order of the loop below
        shape2d = (n, c) + (1,) * (2 - nd) + tuple(input_shape[2:])
        gx = _C._unfold2d_acc_host(gcols, shape2d, _host_params(kernel, stride, padding, dilation, out))
        if gx is not None:  # None where not finite: numpy's nans and warnings then
            return gx.reshape(tuple(input_shape))
    gcols = gcols.reshape((c,) + tuple(kernel) + (n,) + tuple(out))
    padded = tuple(s + 2 * p for s, p in zip(input_shape[2:], padding, strict=True))
    gxp = np.zeros((c, n) + padded, dtype=gcols.dtype)
    for tap in itertools.product(*(range(k) for k in kernel)):
        region = tuple(slice(t * d, t * d + s * (m - 1) + 1, s)
                       for t, d, s, m in zip(tap, dilation, stride, out, strict=True))
        gxp[(slice(None), slice(None)) + region] += gcols[(slice(None),) + tap]
    gx = gxp[(slice(None), slice(None)) + tuple(slice(p, p + s) for p, s in zip(padding, input_shape[2:], strict=True))]
    assert gx.ndim == nd + 2
    return np.ascontiguousarray(np.moveaxis(gx, 0, 1))


@quiet
def _conv_backward_weight(gy, x, weight_shape, stride, padding, dilation, groups, rows=None):
    """The gradient (O, C/groups, *kernel) of w for y = conv(x, w): gy times the columns of x."""
    cols, _ = _im2col(x, weight_shape[2:], stride, padding, dilation, groups)
    # cols (K x NL) times gy^T (NL x O), then transposed: OpenBLAS runs this long reduction several
    # times faster with the tall operand on the left
    gw = np.matmul(cols, (_grad_output_rows(gy, groups) if rows is None else rows).transpose(0, 2, 1))
    return np.ascontiguousarray(gw.transpose(0, 2, 1)).reshape(weight_shape)


# Argument checks (Convolution.cpp) --------------------------------------------------------------------

def _int_list(value):
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return [int(value)]
    return [int(v) for v in value]


def _expand_param(values, name, dim):
    """convolution_expand_param_if_needed."""
    values = _int_list(values)
    if len(values) == 1:
        return values * dim
    if len(values) != dim:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {dim} values to match the "
                           f"convolution dimensions, but got {name}={_fmt(values)}")
    return values


def _fmt(values):
    return "[" + ", ".join(str(v) for v in values) + "]"


def _legacy_type(dtype):
    return f"torch.{_torch_type_name(dtype)}Tensor"


def _check_shape_forward(x, w, b, stride, padding, dilation, transposed, output_padding, groups):
    """check_shape_forward (Convolution.cpp), in its order."""
    k, weight_dim = x.ndim, w.ndim
    ws = _fmt(w.shape)
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("non-positive dilation is not supported")
    if weight_dim != k:
        raise RuntimeError(f"Expected {weight_dim}-dimensional input for {weight_dim}-dimensional weight {ws}, but "
                           f"got {k}-dimensional input of size {_fmt(x.shape)} instead")
    if w.shape[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got "
                           f"weight of size {ws} instead")
    if w.shape[0] % groups:
        # upstream prints the sizes inside a one-element list here
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{ws}] instead")
    if not transposed:
        if x.shape[1] != w.shape[1] * groups:
            raise RuntimeError(f"Given groups={groups}, weight of size {ws}, expected input{_fmt(x.shape)} to have "
                               f"{w.shape[1] * groups} channels, but got {x.shape[1]} channels instead")
        if b is not None and (b.ndim != 1 or b.shape[0] != w.shape[0]):
            raise RuntimeError(f"Given weight of size {ws}, expected bias to be 1-dimensional with {w.shape[0]} "
                               f"elements, but got bias of size {_fmt(b.shape)} instead")
        padded = [x.shape[i] + 2 * padding[i - 2] for i in range(2, k)]
        kernel = [dilation[i - 2] * (w.shape[i] - 1) + 1 for i in range(2, k)]
        if any(p < q for p, q in zip(padded, kernel, strict=True)):
            raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). "
                               f"Kernel size: ({' x '.join(map(str, kernel))}). Kernel size can't be greater than "
                               "actual input size")
    else:
        if x.shape[1] != w.shape[0]:
            raise RuntimeError(f"Given transposed=1, weight of size {ws}, expected input{_fmt(x.shape)} to have "
                               f"{w.shape[0]} channels, but got {x.shape[1]} channels instead")
        if b is not None and (b.ndim != 1 or b.shape[0] != w.shape[1] * groups):
            raise RuntimeError(f"Given transposed=1, weight of size {ws}, expected bias to be 1-dimensional with "
                               f"{w.shape[1] * groups} elements, but got bias of size {_fmt(b.shape)} instead")


def _transposed_output_shape(x, w, stride, padding, dilation, output_padding, groups):
    return (x.shape[0], w.shape[1] * groups) + tuple(
        (x.shape[2 + i] - 1) * stride[i] - 2 * padding[i] + dilation[i] * (w.shape[2 + i] - 1) + output_padding[i] + 1
        for i in range(w.ndim - 2))


def _params(weight, stride, padding, dilation, output_padding):
    dim = weight._array.ndim - 2
    if dim <= 0:
        raise RuntimeError("weight should have at least three dimensions")
    return (_expand_param(stride, "stride", dim), _expand_param(padding, "padding", dim),
            _expand_param(dilation, "dilation", dim), _expand_param(output_padding, "output_padding", dim))


# Ops ---------------------------------------------------------------------------------------------------

def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):  # noqa: A002
    """at::convolution (the CPU path of at::_convolution)."""
    return _convolution_node(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)


def _convolution_node(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups,  # noqa: A002
                      absent_bias_sizes=None):
    """convolution, with the bias_sym_sizes_opt its node saves where there is no bias: None from
    at::convolution itself, [0] from conv1d/2d/3d and conv_transpose* (Convolution.cpp's wrappers pass
    their undefined bias on as a present optional, whose sym_sizes() are (0,), an empty tensor's)."""
    x, w = input._array, weight._array
    b = None if bias is None else bias._array
    if b is not None and b.dtype != x.dtype:
        raise RuntimeError(f"Input type ({_torch_type_name(x.dtype).lower()}) and bias type "
                           f"({_torch_type_name(b.dtype).lower()}) should be the same")
    stride, padding, dilation, output_padding = _params(weight, stride, padding, dilation, output_padding)
    groups = int(groups)
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    _check_shape_forward(x, w, b, stride, padding, dilation, transposed, output_padding, groups)
    if x.size == 0 and x.shape[0] != 0 and x.shape[1] != 0:
        # _select_conv_backend sends only a zero batch or zero channels to the Empty backend; it sees
        # a 1-d convolution already viewed as 2-d (view1d_as_2d)
        shape = x.shape[:2] + (1,) + x.shape[2:] if x.ndim == 3 else x.shape
        raise RuntimeError(f"Only zero batch or zero channel inputs are supported, but got input shape: {_fmt(shape)}")
    if x.dtype != w.dtype:
        if x.dtype == np.float32:  # the mkldnn path's check
            raise RuntimeError(f"Input type ({_legacy_type(x.dtype)}) and weight type ({_legacy_type(w.dtype)}) "
                               "should be the same or input should be a MKLDNN tensor and weight is a dense tensor")
        raise RuntimeError(f"expected scalar type {_torch_type_name(x.dtype)} but found {_torch_type_name(w.dtype)}")
    if transposed and any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation, strict=True)):
        nd = len(stride)
        names = ["height", "width"] if nd == 2 else ["depth", "height", "width"][-nd:] if nd == 3 else ["width"]
        parts = [f"output_padding_{n}: {v}" for n, v in zip(names, output_padding, strict=True)]
        parts += [f"stride_{n}: {v}" for n, v in zip(names, stride, strict=True)]
        parts += [f"dilation_{n}: {v}" for n, v in zip(names, dilation, strict=True)]
        raise RuntimeError("output padding must be smaller than either stride or dilation, but got " + " ".join(parts))
    if transposed and x.shape[0] != 0 and x.shape[1] != 0:
        # slow_conv_transpose{2,3}d_shape_check (NaiveConvolutionTranspose{2,3}d.cpp), on the 2-d view of
        # a 1-d convolution
        sizes = _transposed_output_shape(x, w, stride, padding, dilation, output_padding, groups)[2:]
        if any(s < 1 for s in sizes):
            given = (1,) + x.shape[2:] if x.ndim == 3 else x.shape[2:]
            calc = (1,) + sizes if x.ndim == 3 else sizes
            raise RuntimeError(f"Given input size per channel: ({' x '.join(map(str, given))}). Calculated output "
                               f"size per channel: ({' x '.join(map(str, calc))}). Output size is too small")
    if x.dtype == np.bool_ and x.shape[0] != 0 and x.shape[1] != 0:
        # the CPU backends' AT_DISPATCH (ConvolutionMM2d/3d.cpp, NaiveDilatedConvolution.cpp,
        # NaiveConvolutionTranspose2d/3d.cpp) take no bool
        if transposed:
            kernel = "slow_conv_transpose3d_out_cpu" if x.ndim == 5 else "slow_conv_transpose2d_out_cpu"
        elif any(d != 1 for d in dilation):
            kernel = "slow_conv_dilated<>"
        else:
            kernel = "compute_columns3d" if x.ndim == 5 else "slow_conv2d_cpu"
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')
    ct = _compute_dtype(x.dtype)
    xc, wc = x.astype(ct, copy=False), w.astype(ct, copy=False)
    fold = not transposed and b is not None and b.dtype == ct  # the bias added in _conv_forward's copy
    if transposed:
        shape = _transposed_output_shape(x, w, stride, padding, dilation, output_padding, groups)
        y = _conv_backward_input(xc, wc, shape, stride, padding, dilation, groups)
    else:
        y = _conv_forward(xc, wc, stride, padding, dilation, groups, b if fold else None)
    if b is not None and not fold:
        y += b.astype(ct, copy=False).reshape((-1,) + (1,) * (y.ndim - 2))
    out = _wrap(y.astype(x.dtype, copy=False), input)
    # bias's place without a bias: an input that needs no gradient (no edge), as clamp's
    placeholder = bias if bias is not None else input.detach()
    return _record(_S.ConvolutionBackward0, (input, weight, placeholder), out, input=input, weight=weight,
                   stride=stride, padding=padding, dilation=dilation, transposed=bool(transposed),
                   output_padding=output_padding, groups=groups,
                   bias_sym_sizes_opt=absent_bias_sizes if b is None else tuple(b.shape))


def convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed,  # noqa: A002
                         output_padding, groups, output_mask):
    """at::convolution_backward: (grad_input, grad_weight, grad_bias), each computed where output_mask
    asks for it. An output not asked for is upstream's undefined tensor; here a zero of its shape, so
    the node's outputs keep their numbers (ConvolutionBackwardBackward0)."""
    gy, x, w = grad_output._array, input._array, weight._array
    ct = _compute_dtype(x.dtype)
    gyc, xc, wc = gy.astype(ct, copy=False), x.astype(ct, copy=False), w.astype(ct, copy=False)
    stride, padding, dilation, output_padding = _params(weight, stride, padding, dilation, output_padding)
    groups = int(groups)
    nbias = w.shape[1] * groups if transposed else w.shape[0]

    def zeros(shape):
        return np.broadcast_to(np.zeros((), dtype=x.dtype), shape)

    gi = gw = gb = None
    # the grad_output's rows (groups, O/groups, N * out), shared by both gradients of a convolution
    rows = _grad_output_rows(gyc, groups) if not transposed and output_mask[0] and output_mask[1] else None
    if output_mask[0]:
        gi = (_conv_forward(gyc, wc, stride, padding, dilation, groups) if transposed else
              _conv_backward_input(gyc, wc, x.shape, stride, padding, dilation, groups, rows))
    if output_mask[1]:
        gw = (_conv_backward_weight(xc, gyc, w.shape, stride, padding, dilation, groups) if transposed else
              _conv_backward_weight(gyc, xc, w.shape, stride, padding, dilation, groups, rows))
    if output_mask[2]:
        gb = gyc.sum(axis=(0,) + tuple(range(2, gy.ndim)))
    outs = tuple(_wrap(np.ascontiguousarray(a.astype(x.dtype, copy=False)) if a is not None else zeros(shape), like)
                 for a, shape, like in ((gi, x.shape, input), (gw, w.shape, weight), (gb, (nbias,), weight)))
    return _record(_S.ConvolutionBackwardBackward0, (grad_output, input, weight), outs, grad_output=grad_output,
                   input=input, weight=weight, stride=stride, padding=padding, dilation=dilation,
                   transposed=bool(transposed), output_padding=output_padding, groups=groups)


def _batchify(name, input, num_spatial):  # noqa: A002 - torch's names
    """conv*d's batchify: an unbatched input gets a batch dimension of 1."""
    dim = input._array.ndim
    if dim not in (num_spatial + 1, num_spatial + 2):
        raise RuntimeError(f"Expected {num_spatial + 1}D (unbatched) or {num_spatial + 2}D (batched) input to {name}, "
                           f"but got input of size: {_fmt(input._array.shape)}")
    return (unsqueeze(input, 0), False) if dim == num_spatial + 1 else (input, True)


_WARNED_SAME = [False]


def _same_padding(name, input, weight, stride, dilation, groups, num_spatial, bias, pad_fn):  # noqa: A002
    """_convolution_mode's "same": symmetric padding, the odd remainder added on the right with
    at::pad (Convolution.cpp, conv*d_padding_symint)."""
    dilation = _expand_param(dilation, "dilation", num_spatial)
    stride = _expand_param(stride, "stride", num_spatial)
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    kernel = weight._array.shape[2:]
    padding, pad_nd, asymmetric = [0] * num_spatial, [0] * (2 * num_spatial), False
    for i in range(num_spatial):
        total = dilation[i] * (kernel[i] - 1) if i < len(kernel) else 0
        left = total // 2
        padding[i] = left
        pad_nd[2 * (num_spatial - 1 - i) + 1] = total - left - left  # at::pad's order: last dim first
        asymmetric |= total - 2 * left != 0
    if asymmetric:
        if not _WARNED_SAME[0]:
            _WARNED_SAME[0] = True  # TORCH_WARN_ONCE
            warnings.warn("Using padding='same' with even kernel lengths and odd dilation may require a zero-padded "
                          "copy of the input be created", UserWarning, stacklevel=5)
        input = pad_fn(input, pad_nd)  # noqa: A001 - torch's names
    return _convolution_node(input, weight, bias, stride, padding, dilation, False, [0] * num_spatial, groups,
                      absent_bias_sizes=(0,))


def _int_param(value, num_spatial):
    """A SymInt[n] argument: an int is n copies of it (the argument parser's expansion)."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return [int(value)] * num_spatial
    return value


def _conv_nd(name, num_spatial, input, weight, bias, stride, padding, dilation, groups):  # noqa: A002
    x, batched = _batchify(name, input, num_spatial)
    stride, dilation = _int_param(stride, num_spatial), _int_param(dilation, num_spatial)
    padding = _int_param(padding, num_spatial)
    if isinstance(padding, str):
        if padding == "valid":
            padding = [0]
        elif padding == "same":
            y = _same_padding(name, x, weight, stride, dilation, groups, num_spatial, bias,
                              lambda t, pad: constant_pad_nd(t, pad, 0))
            return y if batched else squeeze(y, 0)
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    y = _convolution_node(x, weight, bias, stride, padding, dilation, False, [0] * num_spatial, groups,
                      absent_bias_sizes=(0,))
    return y if batched else squeeze(y, 0)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    return _conv_nd("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    return _conv_nd("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


def _conv_transpose_nd(name, num_spatial, input, weight, bias, stride, padding, output_padding, groups,  # noqa: A002
                       dilation):
    x, batched = _batchify(name, input, num_spatial)
    stride, padding, dilation, output_padding = (_int_param(v, num_spatial) for v in
                                                 (stride, padding, dilation, output_padding))
    y = _convolution_node(x, weight, bias, stride, padding, dilation, True, output_padding, groups,
                      absent_bias_sizes=(0,))
    return y if batched else squeeze(y, 0)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,  # noqa: A002
                     dilation=1):
    return _conv_transpose_nd("conv_transpose1d", 1, input, weight, bias, stride, padding, output_padding, groups,
                              dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,  # noqa: A002
                     dilation=1):
    return _conv_transpose_nd("conv_transpose2d", 2, input, weight, bias, stride, padding, output_padding, groups,
                              dilation)
