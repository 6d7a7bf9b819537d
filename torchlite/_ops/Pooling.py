"""Pooling (ATen/native/DilatedMaxPool2d.cpp, AveragePool2d.cpp, Pool.h, Pooling.cpp): max_pool2d_with_indices
and avg_pool2d with their backward ops (each an op of its own, as upstream, so double backward works),
the composite max_pool1d / avg_pool1d / max_pool2d / avg_pool2d, with Pool.h's output sizes and checks.
Windows are as_strided views of the padded input; the backward adds back one kernel tap at a time
(a vectorised strided add over every pixel) or, for max pooling, bins the gradient by its index."""
import itertools

import numpy as np

from .. import _C
from .._C import _record, _wrap
from .._generated import specs as _S
from .ReduceOps import mean as _mean
from .ScalarType import _torch_type_name
from .TensorShape import squeeze, unsqueeze
from .TypeAndSize import TypeAndSize

_as_strided = np.lib.stride_tricks.as_strided


def _pair(name, what, value, allow_empty=False):
    """A int[2] argument: an int, or a list of one or two ints (Pool.h's safe_downcast checks)."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return [int(value)] * 2
    values = [int(v) for v in value]
    if allow_empty and not values:
        return []
    if len(values) not in (1, 2):
        if what == "stride":
            raise RuntimeError(f"{name}: stride must either be omitted, a single int, or a tuple of two ints")
        verb = "be either" if what == "dilation" else "either be"
        raise RuntimeError(f"{name}: {what} must {verb} a single int, or a tuple of two ints")
    return values * 2 if len(values) == 1 else values


def _div_rtn(x, y):
    return x // y  # Python's floor division rounds toward negative infinity, as div_rtn


def _pooling_output_shape(size, k, pad, stride, dilation, ceil_mode):
    """pooling_output_shape (Pool.h)."""
    if stride == 0:
        raise RuntimeError("stride should not be zero")
    if pad < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {pad}")
    if pad > ((k - 1) * dilation + 1) // 2:
        raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={pad}, kernel_size={k} "
                           f"and dilation={dilation}")
    out = _div_rtn(size + 2 * pad - dilation * (k - 1) - 1 + (stride - 1 if ceil_mode else 0), stride) + 1
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


def _pool2d_shape_check(a, k, d, p, dil, out):
    """pool2d_shape_check (Pool.h)."""
    if k[0] <= 0 or k[1] <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {k[0]} kW: {k[1]}")
    if d[0] <= 0 or d[1] <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dH: {d[0]} dW: {d[1]}")
    if dil[0] <= 0 or dil[1] <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {dil[0]} dilationW: {dil[1]}")
    ndim = a.ndim
    valid = a.shape[-3] != 0 and a.shape[-2] != 0
    if not ((ndim == 3 and a.shape[0] != 0 and valid) or (ndim == 4 and valid and a.shape[3] != 0)):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:"
                           f"[{', '.join(map(str, a.shape))}]")
    if k[1] // 2 < p[1] or k[0] // 2 < p[0]:
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got padW = {p[1]}, "
                           f"padH = {p[0]}, kW = {k[1]}, kH = {k[0]}")
    if out[0] < 1 or out[1] < 1:
        c, h, w = a.shape[-3:]
        raise RuntimeError(f"Given input size: ({c}x{h}x{w}). Calculated output size: ({c}x{out[0]}x{out[1]}). "
                           "Output size is too small")


def _params2d(name, a, kernel_size, stride, padding, dilation, ceil_mode, divisor_override=None, avg=False):
    k = _pair(name, "kernel_size", kernel_size)
    s = _pair(name, "stride", stride, allow_empty=True)
    s = k if not s else s
    p = _pair(name, "padding", padding)
    dil = [1, 1] if avg else _pair(name, "dilation", dilation)
    if avg and divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    if avg and a.ndim < 3:  # avg_pool2d reads input.size(-3) first
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(a.ndim, 1)}, "
                         f"{max(a.ndim, 1) - 1}], but got -3)")
    if not avg and a.ndim not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    out = [_pooling_output_shape(a.shape[-2 + i], k[i], p[i], s[i], dil[i], ceil_mode) for i in range(2)]
    _pool2d_shape_check(a, k, s, p, dil, out)
    return k, s, p, dil, out


def _windows(a, fill, k, s, p, dil, out):
    """The (..., OH, OW, kH, kW) windows of a (..., H, W) padded with `fill` (and on the right as far as
    ceil_mode's last window reaches)."""
    h, w = a.shape[-2:]
    need = [(out[i] - 1) * s[i] + dil[i] * (k[i] - 1) + 1 for i in range(2)]
    ph, pw = (max(need[0] - h - p[0], p[0]), max(need[1] - w - p[1], p[1]))
    if p[0] == p[1] == ph == pw == 0 and type(a) is np.ndarray and a.flags.c_contiguous:
        # no padding on either side: the padded copy would be a itself, in a's own layout (the CNN's
        # 2x2 pool), so the windows view a, the same numbers at the same strides
        st = a.strides
        return _as_strided(a, a.shape[:-2] + (out[0], out[1], k[0], k[1]),
                           st[:-2] + (st[-2] * s[0], st[-1] * s[1], st[-2] * dil[0], st[-1] * dil[1]), writeable=False)
    padded = np.full(a.shape[:-2] + (p[0] + h + ph, p[1] + w + pw), fill, dtype=a.dtype)
    padded[..., p[0]:p[0] + h, p[1]:p[1] + w] = a
    st = padded.strides
    return _as_strided(padded, padded.shape[:-2] + (out[0], out[1], k[0], k[1]),
                       st[:-2] + (st[-2] * s[0], st[-1] * s[1], st[-2] * dil[0], st[-1] * dil[1]), writeable=False)


# max pooling -------------------------------------------------------------------------------------------

# the unsigned integer of each item size: a dtype's bits, blended without a branch
_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


_NAN_CHECK_SIZE = 4096  # from this size on, the check (one sum) costs less than the nan tests it saves


def _nan_free(a):
    """Whether a (floating) surely holds no nan: its sum is finite (a nan or an inf anywhere makes
    it nan or infinite; a sum that overflows only answers no, and the nan-aware scan runs)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return bool(np.isfinite(np.add.reduce(a, axis=None)))


def _window_max(win, k, nan_free=False):
    """(position in the window, value) of each window's maximum as upstream's scan takes it
    (`val > maxval || isnan(val)`: the first of equal maxima, the last nan). Small windows go position by position over
    whole arrays, and take a later position's value by blending its bits under a mask (numpy's
    masked copies and np.where branch per element and run several times slower); argmax along a
    short last axis runs row by row."""
    n = k[0] * k[1]
    if n > 16:
        flat = win.reshape(win.shape[:-2] + (n,))
        arg = np.argmax(flat, axis=-1)  # the first maximum, or the first nan
        if flat.dtype.kind == "f":
            nan = np.isnan(flat)
            last_nan = n - 1 - np.argmax(nan[..., ::-1], axis=-1)
            arg = np.where(nan.any(axis=-1), last_nan, arg)
        return arg, np.take_along_axis(flat, arg[..., None], axis=-1)[..., 0]
    best = win[..., 0, 0].copy()
    shape = best.shape
    ut = _UINT[best.dtype.itemsize]
    bits = best.view(ut)
    arg = np.zeros(shape, np.uint8)
    take, mask, diff, pos = (np.empty(shape, np.bool_), np.empty(shape, ut), np.empty(shape, ut),
                             np.empty(shape, np.uint8))
    # without a nan in the input, `val > maxval || isnan(val)` is `val > maxval`: the scan skips the test
    floating = best.dtype.kind == "f" and not nan_free
    nan = np.empty(shape, np.bool_) if floating else None
    for j in range(1, n):
        v = win[..., j // k[1], j % k[1]]
        if floating:
            np.greater(v, best, out=take)  # v > best, or v is nan (each later nan is taken)
            np.not_equal(v, v, out=nan)
            take |= nan
        else:
            np.greater(v, best, out=take)
        np.copyto(mask, take)  # 1 or 0, then every bit set or none
        np.negative(mask, out=mask)
        np.bitwise_xor(bits, v.view(ut), out=diff)
        diff &= mask
        bits ^= diff  # best's bits where not taken, v's where taken
        np.multiply(take, np.uint8(j), out=pos)  # positions only grow: the last one taken is the maximum's
        np.maximum(arg, pos, out=arg)
    return arg, best


def max_pool2d_with_indices(self, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """(values, indices): indices are flat positions h * W + w in each input plane."""
    a = self._array
    k, s, p, dil, out = _params2d("max_pool2d", a, kernel_size, stride, padding, dilation, ceil_mode)
    if a.dtype == np.bool_:
        raise RuntimeError('"max_pool2d" not implemented for \'Bool\'')
    if _host(a):
        # the same scan in C++ (MaxPoolKernel.cpp, Note [Max pooling in C++ keeps the numpy kernel's answers])
        planes = int(np.prod(a.shape[:-2], dtype=np.int64))
        v, i = _C._max_pool2d_host(a.reshape((planes,) + a.shape[-2:]), [*k, *s, *p, *dil, *out])
        shape = a.shape[:-2] + tuple(out)
        return _max_pool2d_record(self, v.reshape(shape), i.reshape(shape), kernel_size, stride, padding, dilation,
                                  ceil_mode)
    fill = -np.inf if a.dtype.kind == "f" else np.iinfo(a.dtype).min
    win = _windows(a, fill, k, s, p, dil, out)
    small = k[0] * k[1] <= 16 and type(a) is np.ndarray and a.dtype.kind == "f" and a.size >= _NAN_CHECK_SIZE
    arg, values = _window_max(win, k, small and _nan_free(a))
    # a window position as an input position: its window's corner (oh * s - p) * W + (ow * s - p)
    # plus the position's offset in the plane (ki * dil) * W + kj * dil
    width = a.shape[-1]
    offsets = np.array([(j // k[1]) * dil[0] * width + (j % k[1]) * dil[1] for j in range(k[0] * k[1])],
                       np.int64)
    corner = ((np.arange(out[0], dtype=np.int64) * s[0] - p[0]) * width)[:, None] + \
        (np.arange(out[1], dtype=np.int64) * s[1] - p[1])[None, :]
    indices = offsets.take(arg)
    indices += corner
    return _max_pool2d_record(self, np.ascontiguousarray(values), indices, kernel_size, stride, padding, dilation,
                              ceil_mode)


def _max_pool2d_record(self, values, indices, kernel_size, stride, padding, dilation, ceil_mode):
    vals = _wrap(values, self)
    idx = _wrap(indices, self)
    _record(_S.MaxPool2DWithIndicesBackward0, (self,), vals, self=self, kernel_size=_given(kernel_size),
            stride=_given(stride), padding=_given(padding), dilation=_given(dilation), ceil_mode=bool(ceil_mode),
            result1=idx)
    return vals, idx


_F32, _F64, _I64 = np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.int64)


def _host(a, dtypes=(_F32, _F64)):
    """Whether a is a C-contiguous, aligned host array of one of dtypes: the C++ kernels' input."""
    return a.dtype in dtypes and type(a) is np.ndarray and a.flags.c_contiguous and a.flags.aligned


def _given(value):
    """An int[2] argument as the node saves it: as given, an int expanded to two (the argument
    parser's), a list kept at its length (empty where stride is omitted)."""
    if isinstance(value, (int, np.integer)):
        return [int(value)] * 2
    return [int(v) for v in value]


def _distinct_targets(kernel_size, stride, padding, dilation, iflat, target, plane, planes, gshape):
    """Whether each input position is the maximum of one window at most: tried where the windows
    start at real positions (no padding) and never overlap (each stride at least its window's
    extent), and checked on the indices themselves (given to the op, they may be anything)."""
    if not (target.size and iflat.shape[1] == int(np.prod(gshape[-2:], dtype=np.int64)) and
            _disjoint_windows(kernel_size, stride, padding, dilation)):
        return False
    if iflat.min() < 0 or iflat.max() >= plane:
        return False
    seen = np.zeros(planes * plane, np.bool_)
    seen[target] = True
    return int(np.count_nonzero(seen)) == target.size


def _disjoint_windows(kernel_size, stride, padding, dilation):
    """Whether max pooling's windows start at real positions (no padding) and never overlap (each
    stride at least its window's extent), as the node saved its arguments."""
    try:
        k = _pair("max_pool2d", "kernel_size", kernel_size)
        s = _pair("max_pool2d", "stride", stride, allow_empty=True) or k
        p = _pair("max_pool2d", "padding", padding)
        dil = _pair("max_pool2d", "dilation", dilation)
    except (RuntimeError, TypeError, ValueError):
        return False
    return len(k) == len(s) == len(p) == len(dil) == 2 and p == [0, 0] and \
        all(s[i] >= dil[i] * (k[i] - 1) + 1 for i in range(2))


def max_pool2d_with_indices_backward(grad_output, self, kernel_size, stride, padding, dilation, ceil_mode,
                                     indices):
    """The gradient of each input position: the sum of the output gradients whose maximum it was."""
    g, a, idx = grad_output._array, self._array, indices._array
    plane = a.shape[-2] * a.shape[-1]
    planes = int(np.prod(a.shape[:-2], dtype=np.int64))
    if planes and g.dtype == a.dtype and g.shape == idx.shape and g.ndim == a.ndim and g.shape[:-2] == a.shape[:-2] \
            and type(a) is np.ndarray and _host(g) and _host(idx, (_I64,)):
        # np.bincount's sums below, in C++ (MaxPoolKernel.cpp); None where an index is out of the plane
        # or a result is not finite
        r = _C._max_pool2d_backward_host(g.reshape(planes, -1), idx.reshape(planes, -1), plane)
        if r is not None:
            return _max_pool2d_backward_record(grad_output, self, indices, r.reshape(a.shape))
    gflat = g.reshape(planes, -1) if planes else g.reshape(0, 0)
    iflat = idx.reshape(planes, -1) if planes else idx.reshape(0, 0)
    target = (iflat + (np.arange(planes, dtype=np.int64) * plane)[:, None]).reshape(-1)
    if a.dtype.kind == "f" and g.dtype == a.dtype and \
            _distinct_targets(kernel_size, stride, padding, dilation, iflat, target, plane, planes, g.shape):
        # each target once: its sum is its one gradient (+ 0, as the sum from 0 turns -0.0 into 0.0)
        r = np.zeros(planes * plane, a.dtype)
        r[target] = gflat.reshape(-1).astype(a.dtype, copy=False) + a.dtype.type(0)
        r = r.reshape(a.shape)
    else:
        summed = np.bincount(target, weights=gflat.reshape(-1).astype(np.float64), minlength=planes * plane)
        r = summed.astype(a.dtype).reshape(a.shape)
    return _max_pool2d_backward_record(grad_output, self, indices, r)


def _max_pool2d_backward_record(grad_output, self, indices, r):
    out = _wrap(r, grad_output)
    return _record(_S.MaxPool2DWithIndicesBackwardBackward0, (grad_output, self), out, (indices,),
                   self_info=TypeAndSize(self), indices=indices)


def max_pool2d(self, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return max_pool2d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode)[0]


def _given1(value):
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return [int(value)]
    return [int(v) for v in value]


def _one(name, what, value, allow_empty=False):
    """check1d (Pooling.cpp): an int[1] argument."""
    values = _given1(value)
    if allow_empty and not values:
        return []
    if len(values) != 1:
        raise RuntimeError(f"{name}() argument '{what}' should contain one int (got {len(values)})")
    return values


def max_pool1d_with_indices(self, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """Pooling.cpp's max_pool1d_with_indices: max_pool2d_with_indices of the input with a height of one."""
    a = self._array
    # check_max_pool1d (MaxPooling.h)
    if not ((a.ndim == 2 and 0 not in a.shape) or (a.ndim == 3 and 0 not in a.shape[1:])):
        raise RuntimeError("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
                           f"input, but got:[{', '.join(map(str, a.shape))}]")
    k, s, p, dil = (_given1(v) for v in (kernel_size, stride, padding, dilation))
    for what, v in (("kernel_size", k), ("padding", p), ("dilation", dil)):
        if len(v) != 1:
            sep = "," if what == "padding" else ""
            raise RuntimeError(f"max_pool1d() {what} must be an int, list of ints{sep} or tuple of ints of size 1 but "
                               f"got size {len(v)}")
    if len(s) > 1:
        raise RuntimeError("max_pool1d() stride must be None, an int, list of ints, or tuple of ints of size 1 but got "
                           f"size {len(s)}")
    s = s or k
    if k[0] <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {k[0]}")
    if s[0] <= 0:
        raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {s[0]}")
    if p[0] < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {p[0]}")
    if p[0] > k[0] // 2:
        raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but got padding={p[0]} and "
                           f"kernel_size={k[0]}")
    if dil[0] <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {dil[0]}")
    ow = _pooling_output_shape(a.shape[-1], k[0], p[0], s[0], dil[0], ceil_mode)
    if ow <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {ow}")
    x = unsqueeze(self, -2)
    v, i = max_pool2d_with_indices(x, [1] + k, [1] + (s or k), [0] + p, [1] + dil, ceil_mode)
    return squeeze(v, -2), squeeze(i, -2)


def max_pool1d(self, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return max_pool1d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode)[0]


# average pooling ---------------------------------------------------------------------------------------

def _avg_divisors(size, k, s, p, out, ceil_mode, count_include_pad, divisor_override):
    """The divisor of each output position along one dimension pair (separable: pool size and count)."""
    start = np.arange(out) * s - p
    end = np.minimum(start + k, size + p)
    pool = end - start
    count = np.minimum(end, size) - np.maximum(start, 0)
    return pool, count


def _avg_divide(a_shape, k, s, p, out, ceil_mode, count_include_pad, divisor_override):
    if divisor_override is not None:
        return float(divisor_override)
    ph, ch = _avg_divisors(a_shape[-2], k[0], s[0], p[0], out[0], ceil_mode, count_include_pad, divisor_override)
    pw, cw = _avg_divisors(a_shape[-1], k[1], s[1], p[1], out[1], ceil_mode, count_include_pad, divisor_override)
    return np.outer(ph, pw) if count_include_pad else np.outer(ch, cw)


def avg_pool2d(self, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    a = self._array
    k, s, p, _, out = _params2d("avg_pool2d", a, kernel_size, stride, padding, 1, ceil_mode, divisor_override,
                                avg=True)
    if a.dtype == np.bool_:
        raise RuntimeError('"avg_pool2d" not implemented for \'Bool\'')
    ct = np.float32 if a.dtype == np.float16 else a.dtype
    win = _windows(a.astype(ct, copy=False), 0, k, s, p, [1, 1], out)
    total = win.sum(axis=(-2, -1))
    div = _avg_divide(a.shape, k, s, p, out, ceil_mode, count_include_pad, divisor_override)
    if a.dtype.kind == "f":
        r = (total / np.asarray(div, dtype=ct)).astype(a.dtype)
    else:
        # integer inputs: the sum divided as integers (upstream's kernel divides in the input type)
        r = (total // np.asarray(div, dtype=np.int64)).astype(a.dtype)
    out_t = _wrap(np.ascontiguousarray(r), self)
    return _record(_S.AvgPool2DBackward0, (self,), out_t, self=self, kernel_size=_given(kernel_size),
                   stride=_given(stride), padding=_given(padding), ceil_mode=bool(ceil_mode),
                   count_include_pad=bool(count_include_pad), divisor_override=divisor_override)


def avg_pool2d_backward(grad_output, self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                        divisor_override):
    """Each output's gradient, divided by its divisor, spread over its window."""
    g, a = grad_output._array, self._array
    k = _pair("avg_pool2d", "kernel_size", kernel_size)
    s = _pair("avg_pool2d", "stride", stride, allow_empty=True) or k
    p = _pair("avg_pool2d", "padding", padding)
    out = list(g.shape[-2:])
    h, w = a.shape[-2:]
    ct = np.float32 if a.dtype == np.float16 else a.dtype
    div = _avg_divide(a.shape, k, s, p, out, ceil_mode, count_include_pad, divisor_override)
    share = g.astype(ct, copy=False) / np.asarray(div, dtype=ct)
    need = [(out[i] - 1) * s[i] + k[i] for i in range(2)]
    gp = np.zeros(a.shape[:-2] + (max(need[0], p[0] + h), max(need[1], p[1] + w)), dtype=ct)
    for i, j in itertools.product(range(k[0]), range(k[1])):
        gp[..., i:i + s[0] * (out[0] - 1) + 1:s[0], j:j + s[1] * (out[1] - 1) + 1:s[1]] += share
    r = np.ascontiguousarray(gp[..., p[0]:p[0] + h, p[1]:p[1] + w]).astype(a.dtype, copy=False)
    res = _wrap(r, grad_output)
    return _record(_S.AvgPool2DBackwardBackward0, (grad_output, self), res, self_info=TypeAndSize(self),
                   kernel_size=_given(kernel_size),
                   stride=_given(stride), padding=_given(padding), ceil_mode=bool(ceil_mode),
                   count_include_pad=bool(count_include_pad), divisor_override=divisor_override)


def avg_pool1d(self, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True):
    """Pooling.cpp's avg_pool1d: avg_pool2d of the input with a height of one."""
    a = self._array
    if a.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {a.ndim}-dimensional tensor for argument #1 'self' "
                           "(while checking arguments for avg_pool1d)")
    k = _one("avg_pool1d", "kernel_size", kernel_size)
    s = _one("avg_pool1d", "stride", stride, allow_empty=True)
    p = _one("avg_pool1d", "padding", padding)
    x = unsqueeze(self, -2)
    return squeeze(avg_pool2d(x, [1] + k, [1] + (s or k), [0] + p, ceil_mode, count_include_pad), -2)


# adaptive average pooling (AdaptiveAveragePooling.cpp) ----------------------------------------------------

def _adaptive_matrix(size, out, dtype):
    """(out, size): row i averages input positions [floor(i * size / out), ceil((i + 1) * size / out))."""
    i = np.arange(out)
    start = (i * size) // out
    end = -((-(i + 1) * size) // out)
    pos = np.arange(size)
    inside = (pos >= start[:, None]) & (pos < end[:, None])
    return inside / (end - start)[:, None].astype(dtype) if out else np.zeros((0, size), dtype)


def _adaptive_avg(a, out_size):
    ct = np.float32 if a.dtype == np.float16 else a.dtype
    mh = _adaptive_matrix(a.shape[-2], out_size[0], ct).astype(ct)
    mw = _adaptive_matrix(a.shape[-1], out_size[1], ct).astype(ct)
    return np.matmul(np.matmul(mh, a.astype(ct, copy=False)), mw.T).astype(a.dtype, copy=False)


def _adaptive_avg_pool2d(self, output_size):
    """at::_adaptive_avg_pool2d: each output the mean of its adaptive window (separable: a row and a
    column averaging matrix)."""
    a = self._array
    out = [int(v) for v in ([output_size] * 2 if isinstance(output_size, int) else output_size)]
    if len(out) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    if any(v < 0 for v in out):
        raise RuntimeError("adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but "
                           f"received {{{', '.join(map(str, out))}}}")
    if a.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got [{', '.join(map(str, a.shape))}]")
    for d in range(1, a.ndim):
        if a.shape[d] == 0 and not (a.ndim == 4 and d == 1):
            raise RuntimeError("adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes [{', '.join(map(str, a.shape))}] with dimension "
                               f"{d} being empty")
    if a.dtype.kind != "f":
        raise NotImplementedError(f'"adaptive_avg_pool2d" not implemented for \'{_torch_type_name(a.dtype)}\'')
    r = np.ascontiguousarray(_adaptive_avg(a, out))
    return _record(_S.AdaptiveAvgPool2DBackward0, (self,), _wrap(r, self), self=self)


def _adaptive_avg_pool2d_backward(grad_output, self):
    """Each output's gradient spread evenly over its window: the averaging matrices transposed."""
    g, a = grad_output._array, self._array
    ct = np.float32 if a.dtype == np.float16 else a.dtype
    mh = _adaptive_matrix(a.shape[-2], g.shape[-2], ct).astype(ct)
    mw = _adaptive_matrix(a.shape[-1], g.shape[-1], ct).astype(ct)
    r = np.matmul(np.matmul(mh.T, g.astype(ct, copy=False)), mw).astype(a.dtype, copy=False)
    return _record(_S.AdaptiveAvgPool2DBackwardBackward0, (grad_output, self), _wrap(np.ascontiguousarray(r), self),
                   self_info=TypeAndSize(self), grad_output_sym_argsize_minus_2=g.shape[-2],
                   grad_output_sym_argsize_minus_1=g.shape[-1])


def adaptive_avg_pool2d(self, output_size):
    """at::adaptive_avg_pool2d: a mean over the last two dims for a 1x1 output (MeanBackward1), else
    _adaptive_avg_pool2d."""
    out = [int(v) for v in ([output_size] * 2 if isinstance(output_size, int) else output_size)]
    if len(out) == 2 and out == [1, 1] and self._array.ndim in (3, 4) and self._array.dtype.kind == "f":
        return _mean(self, [-1, -2], True)
    return _adaptive_avg_pool2d(self, output_size)


__all__ = ["_adaptive_avg_pool2d", "_adaptive_avg_pool2d_backward", "adaptive_avg_pool2d", "avg_pool1d", "avg_pool2d",
           "avg_pool2d_backward", "max_pool1d", "max_pool1d_with_indices", "max_pool2d", "max_pool2d_with_indices",
           "max_pool2d_with_indices_backward"]
