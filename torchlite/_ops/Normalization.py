"""Normalization (ATen/native/Normalization.cpp, layer_norm.cpp, group_norm.cpp): native_batch_norm,
native_layer_norm and native_group_norm, their composite callers (batch_norm, layer_norm, group_norm),
with upstream's checks, saved statistics (mean and inverse standard deviation) and the running
statistics' in-place update. Their gradients are composed in _functions_manual.py from torchlite ops,
so double backward works."""
import math

import numpy as np

from .. import _C
from .._C import _record, _wrap
from .._generated import specs as _S
from .BinaryOps import _add_scalar, mul, sub
from .ReduceOps import mean as _mean, sum as _sum  # noqa: A004
from .ScalarType import _torch_type_name
from .TensorIterator import _loud, _quiet
from .TensorShape import reshape
from .UnaryOps import rsqrt
from .quiet_numerics import quiet


def _fmt(shape):
    return "[" + ", ".join(str(int(s)) for s in shape) + "]"


def _stat_dtype(dtype):
    return np.dtype(np.float32) if dtype == np.float16 else dtype


def _not_implemented(name, dtype):
    return NotImplementedError(f'"{name}" not implemented for \'{_torch_type_name(dtype)}\'')


def _placeholder(input, t):  # noqa: A002 - torch's names
    """An optional input's place in the node's inputs: the tensor, or one that needs no gradient."""
    return t if t is not None else input.detach()


# layer_norm ---------------------------------------------------------------------------------------------

def _check_layer_norm_inputs(a, normalized_shape, weight, bias):
    normalized_shape = [int(s) for s in normalized_shape]
    if len(normalized_shape) < 1:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                           f"element, but got normalized_shape = {_fmt(normalized_shape)}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and list(t._array.shape) != normalized_shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                               f"{_fmt(t._array.shape)} and normalized_shape = {_fmt(normalized_shape)}")
    k = len(normalized_shape)
    if a.ndim < k or list(a.shape[a.ndim - k:]) != normalized_shape:
        raise RuntimeError(f"Given normalized_shape={_fmt(normalized_shape)}, expected input with shape "
                           f"[*{''.join(', ' + str(s) for s in normalized_shape)}], but got input of size"
                           f"{_fmt(a.shape)}")
    return normalized_shape


def native_layer_norm(input, normalized_shape, weight, bias, eps):  # noqa: A002 - torch's names
    """(output, mean, rstd); mean and rstd have the input's leading shape and a 1 for each normalised dim."""
    a = input._array
    normalized_shape = _check_layer_norm_inputs(a, normalized_shape, weight, bias)
    if a.dtype.kind != "f":
        raise _not_implemented("LayerNormKernelImpl", a.dtype)
    w = weight._array if weight is not None else None
    b = bias._array if bias is not None else None
    k = len(normalized_shape)
    stat_shape = a.shape[:a.ndim - k] + (1,) * k
    n = _host_rows(a, normalized_shape, w, b)
    if n:
        y, mean, rstd = _C._layer_norm_host(a, w, b, float(eps), n, stat_shape)
    else:
        y, mean, rstd = _layer_norm_numpy(a, k, w, b, eps, stat_shape)
    out, mean_t, rstd_t = _wrap(y, input), _wrap(mean, input), _wrap(rstd, input)
    _record(_S.NativeLayerNormBackward0, (input, _placeholder(input, weight), _placeholder(input, bias)), out,
            input=input, normalized_shape=normalized_shape, result1=mean_t, result2=rstd_t, weight=weight,
            bias=bias, layer_norm_eps=float(eps))
    return out, mean_t, rstd_t


@quiet
def _layer_norm_numpy(a, k, w, b, eps, stat_shape):
    """native_layer_norm's (output, mean, rstd) arrays in numpy: the reference the host kernel reproduces."""
    ct = _stat_dtype(a.dtype)
    x = a.astype(ct, copy=False)
    axes = tuple(range(a.ndim - k, a.ndim))
    token = _quiet()  # nan and inf pass silently, as in torch
    try:
        if x.size:
            mean = x.mean(axis=axes, keepdims=True)
            xc = x - mean
            var = np.mean(xc * xc, axis=axes, keepdims=True)
        else:
            mean, xc, var = np.zeros(stat_shape, ct), x, np.zeros(stat_shape, ct)
        rstd = 1 / np.sqrt(var + ct.type(eps))
        y = xc * rstd
        if w is not None:
            y = y * w.astype(ct, copy=False)
        if b is not None:
            y = y + b.astype(ct, copy=False)
    finally:
        _loud(token)
    return (np.ascontiguousarray(y.astype(a.dtype, copy=False)), np.ascontiguousarray(mean.astype(a.dtype, copy=False)),
            np.ascontiguousarray(rstd.astype(a.dtype, copy=False)))


# Note [Layer norm with numpy's bits] (csrc/aten/native/cpu/LayerNormKernel.h): the host kernels
# _C._layer_norm_host and _C._layer_norm_backward_host give the numpy path's values bit for bit
# (a nan's sign and payload aside, which numpy itself does not keep from one version to the next)
# for the layouts _host_rows admits; everything else runs the numpy path. Tests set _HOST_KERNELS
# to False to run the numpy path as the reference.
_HOST_KERNELS = True
_HOST_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _host_rows(a, normalized_shape, *params):
    """The row length n for the host kernels where they apply to the host array a normalized over
    normalized_shape (params: the other arrays, of a's dtype, C-contiguous, or None), else 0:
    rows of more than one value (numpy reduces the leading dims of one-value rows as one pairwise
    sum) and no longer than numpy's ufunc buffer (beyond it numpy cuts a row's sum into pieces,
    differently by version), a non-empty C-contiguous float32 or float64 array."""
    if not _HOST_KERNELS or type(a) is not np.ndarray or a.dtype not in _HOST_DTYPES or not a.flags.c_contiguous \
            or a.size == 0:
        return 0
    n = math.prod(normalized_shape)
    if n < 2 or n > np.getbufsize():
        return 0
    for p in params:
        if p is not None and (type(p) is not np.ndarray or p.dtype != a.dtype or not p.flags.c_contiguous):
            return 0
    return n


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True):  # noqa: A002
    return native_layer_norm(input, normalized_shape, weight, bias, eps)[0]


# batch_norm ---------------------------------------------------------------------------------------------

def _in_place(op, y, other):
    """op(y, other) into y (a temporary of the caller's, of the result's dtype) where the result
    has y's shape; a new array otherwise."""
    if np.broadcast_shapes(y.shape, other.shape) == y.shape:
        return op(y, other, out=y)
    return op(y, other)


@quiet
def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):  # noqa: A002
    """(output, save_mean, save_invstd): the batch statistics per channel (dim 1) in training, where
    the running statistics (when given) move toward them in place by momentum (the variance
    unbiased); in evaluation the running statistics normalise and the saved ones are empty."""
    a = input._array
    if a.dtype.kind != "f":
        raise _not_implemented("batch_norm", a.dtype)
    ct = _stat_dtype(a.dtype)
    x = a.astype(ct, copy=False)
    c = a.shape[1] if a.ndim > 1 else 1
    axes = (0,) + tuple(range(2, a.ndim))
    bshape = (1, c) + (1,) * (a.ndim - 2)
    params = tuple(None if t is None else t._array.astype(ct, copy=False) for t in (weight, bias))
    host = training and _batch_norm_host_applies(x, params)
    if training:
        n = a.size // c if c else 0
        stats = _batch_norm_stats_host(x) if host else None
        if stats is not None:
            mean, var = stats
            xc = None  # (the C++ pass below makes y from x)
        else:
            mean = x.mean(axis=axes) if n else np.zeros(c, ct)
            xc = x - mean.reshape(bshape)
            var = np.mean(np.multiply(xc, xc, out=np.empty_like(xc)), axis=axes) if n else np.zeros(c, ct)
        invstd = 1 / np.sqrt(var + ct.type(eps))
        if running_mean is not None:
            rm = running_mean._array
            rm[...] = ((1 - momentum) * rm + momentum * mean).astype(rm.dtype)
        if running_var is not None:
            rv = running_var._array
            unbiased = var * (n / (n - 1)) if n > 1 else np.full(c, np.inf if n == 1 else np.nan, ct)
            rv[...] = ((1 - momentum) * rv + momentum * unbiased).astype(rv.dtype)
        y = _batch_norm_apply_host(x, mean, invstd, params) if host else None
        if y is None:
            y = _in_place(np.multiply, x - mean.reshape(bshape) if xc is None else xc, invstd.reshape(bshape))
        else:
            params = (None, None)  # (applied)
        save_mean, save_invstd = mean.astype(a.dtype), invstd.astype(a.dtype)
    else:
        rm = running_mean._array.astype(ct, copy=False)
        rinv = 1 / np.sqrt(running_var._array.astype(ct, copy=False) + ct.type(eps))
        y = (x - rm.reshape(bshape)) * rinv.reshape(bshape)
        save_mean, save_invstd = np.zeros(0, a.dtype), np.zeros(0, a.dtype)
    # y is a new array of y's own here (x - mean, times the statistics): scaled and shifted in place
    if params[0] is not None:
        y = _in_place(np.multiply, y, params[0].reshape(bshape))
    if params[1] is not None:
        y = _in_place(np.add, y, params[1].reshape(bshape))
    out = _wrap(np.ascontiguousarray(y.astype(a.dtype, copy=False)), input)
    mean_t, invstd_t = _wrap(save_mean, input), _wrap(save_invstd, input)
    _record(_S.NativeBatchNormBackward0, (input, _placeholder(input, weight), _placeholder(input, bias)), out,
            tuple(x for x in (running_mean, running_var) if x is not None),
            input=input, weight=weight, running_mean=running_mean, running_var=running_var, training=bool(training),
            eps=float(eps), result1=mean_t, result2=invstd_t)
    return out, mean_t, invstd_t


def _batch_norm_host_applies(x, params):
    """Whether the training forward's C++ passes (csrc/aten/native/cpu/BatchNormKernel.cpp) take x and
    the weight and bias: host float32/float64 arrays, C-contiguous, laid out where the numpy
    reductions are the kernel's (_blocked_stats_apply)."""
    arrays = (x,) + tuple(p for p in params if p is not None)
    return x.dtype in (np.float32, np.float64) and _blocked_stats_apply(x) and all(
        type(p) is np.ndarray and p.dtype == x.dtype and p.flags.c_contiguous and p.flags.aligned for p in arrays)


def _batch_norm_stats_host(x):
    """(mean, var) of the batch per channel as the numpy passes compute them (Note [Batch norm
    gradients with numpy's bits]), or None where one is not finite (numpy then)."""
    c = x.shape[1]
    mean, var = np.empty(c, x.dtype), np.empty(c, x.dtype)
    return (mean, var) if _C._batch_norm_stats_host(x, mean, var) else None


def _batch_norm_apply_host(x, mean, invstd, params):
    """((x - mean) * invstd) [* weight] [+ bias] in one C++ pass with the numpy passes' bits, or None
    where a value is not finite (numpy then)."""
    y = np.empty_like(x)
    ok = _C._batch_norm_apply_host(x, np.ascontiguousarray(mean), np.ascontiguousarray(invstd), *params, y)
    return y if ok else None


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled):  # noqa: A002
    """at::batch_norm (Normalization.cpp): its checks, then native_batch_norm."""
    a = input._array
    c = a.shape[1] if a.ndim > 1 else 0
    if running_mean is None and not training:
        raise RuntimeError("running_mean must be defined in evaluation mode")
    if running_var is None and not training:
        raise RuntimeError("running_var must be defined in evaluation mode")
    for name, t in (("weight", weight), ("bias", bias), ("running_mean", running_mean), ("running_var", running_var)):
        if t is not None and t._array.size != c:
            raise RuntimeError(f"{name} should contain {c} elements not {t._array.size}")
    return native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)[0]


# group_norm ---------------------------------------------------------------------------------------------

@quiet
def native_group_norm(input, weight, bias, N, C, HxW, group, eps):  # noqa: A002, N803 - torch's names
    """(output, mean, rstd); mean and rstd are (N, group)."""
    a = input._array
    if a.dtype.kind != "f":
        raise _not_implemented("GroupNormKernelImpl", a.dtype)
    ct = _stat_dtype(a.dtype)
    x = a.astype(ct, copy=False).reshape(N, group, -1) if a.size else a.astype(ct).reshape(N, group, 0)
    if x.shape[-1]:
        mean = x.mean(axis=-1)
        xc = x - mean[..., None]
        var = np.mean(xc * xc, axis=-1)
    else:
        mean, xc, var = np.zeros((N, group), ct), x, np.zeros((N, group), ct)
    rstd = 1 / np.sqrt(var + ct.type(eps))
    y = (xc * rstd[..., None]).reshape(a.shape)
    bshape = (1, C) + (1,) * (a.ndim - 2)
    if weight is not None:
        y = y * weight._array.astype(ct, copy=False).reshape(bshape)
    if bias is not None:
        y = y + bias._array.astype(ct, copy=False).reshape(bshape)
    out = _wrap(np.ascontiguousarray(y.astype(a.dtype, copy=False)), input)
    mean_t = _wrap(np.ascontiguousarray(mean.astype(a.dtype)), input)
    rstd_t = _wrap(np.ascontiguousarray(rstd.astype(a.dtype)), input)
    _record(_S.NativeGroupNormBackward0, (input, _placeholder(input, weight), _placeholder(input, bias)), out,
            input=input, weight=weight, N=int(N), C=int(C), HxW=int(HxW), group=int(group), eps=float(eps),
            result1=mean_t, result2=rstd_t)
    return out, mean_t, rstd_t


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):  # noqa: A002
    """at::group_norm (group_norm.cpp): its checks, then native_group_norm."""
    a = input._array
    if a.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {a.ndim}")
    n, c = a.shape[:2]
    if c % num_groups:
        raise RuntimeError("Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {_fmt(a.shape)} and num_groups={num_groups}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t._array.ndim != 1 or t._array.size != c):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, "
                               f"but got {name} of shape {_fmt(t._array.shape)} and input of shape {_fmt(a.shape)}")
    hxw = math.prod(a.shape[2:])
    return native_group_norm(input, weight, bias, n, c, hxw, num_groups, eps)[0]


def _layer_norm_grads(grad, input, weight, normalized_shape, mean, rstd, mask):  # noqa: A002
    """_first_order's layer-norm gradients without grad mode, in numpy over a few buffers: the same
    operations in the same order on the same row-major arrays as the composed path (so the same
    values bit for bit, as _batch_norm_train_grads). None where it does not apply (another dtype or
    layout): the composed path runs then."""
    G, X = grad._array, input._array
    if mean is None or rstd is None or type(G) is not np.ndarray or type(X) is not np.ndarray:
        return None
    dt = X.dtype
    k = len(normalized_shape)
    lead_shape = X.shape[:X.ndim - k]
    stat_shape = lead_shape + (1,) * k
    arrays = [G, X, mean._array, rstd._array] + ([weight._array] if weight is not None else [])
    if dt not in (np.float32, np.float64) or k < 1 or X.ndim <= k or G.shape != X.shape or \
            any(type(a) is not np.ndarray or a.dtype != dt for a in arrays) or \
            not (G.flags.c_contiguous and X.flags.c_contiguous) or X.size == 0 or \
            arrays[2].shape != stat_shape or arrays[3].shape != stat_shape or \
            (weight is not None and arrays[4].shape != X.shape[X.ndim - k:]):
        return None
    W = arrays[4] if weight is not None else None
    n = _host_rows(X, X.shape[X.ndim - k:], G, arrays[2], arrays[3], W)
    if n:
        gi, gw, gb = _C._layer_norm_backward_host(G, X, arrays[2], arrays[3], W, n, bool(mask[0]), bool(mask[1]),
                                                  bool(mask[2]), X.shape[X.ndim - k:])
        return tuple(_wrap(g, grad) if g is not None else None for g in (gi, gw, gb))
    token = _quiet()  # nan and inf pass silently, as in the ops
    try:
        return _norm_grads_kernel(grad, G, X, arrays[2], arrays[3], W, mask,
                                  tuple(range(X.ndim - k, X.ndim)), tuple(range(X.ndim - k)))
    finally:
        _loud(token)


# backward (composed from torchlite ops, so that the double backward can differentiate it) ------------------

def _normalized(x, mean, rstd, eps, axes):
    """(x - mean) and rstd: under grad mode recomputed from x in differentiable ops (so the
    statistics' own dependence on x is differentiated), else from the saved statistics."""
    if _C.is_grad_enabled():
        xc = sub(x, _mean(x, axes, True))
        return xc, rsqrt(_add_scalar(_mean(mul(xc, xc), axes, True), eps))
    return sub(x, mean), rstd


def _norm_input_grad(g, xhat, r, axes):
    """The input's gradient of xhat = (x - mean(x)) * rstd(x) over `axes`, given xhat's gradient g."""
    return mul(r, sub(sub(g, _mean(g, axes, True)), mul(xhat, _mean(mul(g, xhat), axes, True))))


def _batch_norm_train_grads(grad, input, weight, save_mean, save_invstd, mask):  # noqa: A002
    """_first_order's training batch-norm gradients without grad mode, computed in numpy over three
    buffers: the same operations in the same order on the same row-major arrays as the composed
    path (so the same values bit for bit), without its ten temporaries. None where it does not
    apply (another dtype or layout, a tensor missing): the composed path runs then."""
    G, X = grad._array, input._array
    if save_mean is None or save_invstd is None or type(G) is not np.ndarray or type(X) is not np.ndarray:
        return None
    dt = X.dtype
    arrays = [G, X, save_mean._array, save_invstd._array] + ([weight._array] if weight is not None else [])
    if dt not in (np.float32, np.float64) or X.ndim < 2 or G.shape != X.shape or \
            any(type(a) is not np.ndarray or a.dtype != dt for a in arrays) or \
            not (G.flags.c_contiguous and X.flags.c_contiguous) or X.size == 0:
        return None
    c = X.shape[1]
    if any(a.shape != (c,) for a in arrays[2:]):
        return None
    token = _quiet()  # nan and inf pass silently, as in the ops
    try:
        if _blocked_stats_apply(X):
            stats = (save_mean._array, save_invstd._array, weight._array if weight is not None else None)
            grads = _batch_norm_grads_host(grad, G, X, *stats, mask)
            return grads if grads is not None else _batch_norm_grads_blocked(grad, G, X, *stats, mask)
        bshape = (1, c) + (1,) * (X.ndim - 2)
        axes = (0,) + tuple(range(2, X.ndim))
        return _norm_grads_kernel(grad, G, X, save_mean._array.reshape(bshape), save_invstd._array.reshape(bshape),
                                  weight._array.reshape(bshape) if weight is not None else None, mask, axes, axes)
    finally:
        _loud(token)


def _norm_grads_kernel(grad, G, X, mean, r, w, mask, stat_axes, param_axes):
    """The numpy gradients of a normalization (layer's and training batch norm's): mean, r (rstd) and
    w (the weight, or None) broadcast against X; the statistics reduce over stat_axes, the
    parameters' gradients over param_axes."""
    xhat = np.subtract(X, mean)  # xc, then xc * r
    np.multiply(xhat, r, out=xhat)
    gi = gw = gb = None
    if mask[0]:
        g = np.multiply(G, w) if w is not None else G
        work = np.multiply(g, xhat)
        mean_gx = np.mean(work, axis=stat_axes, keepdims=True)
        mean_g = np.mean(g, axis=stat_axes, keepdims=True)
        gi = np.subtract(g, mean_g, out=g if g is not G else None)  # g - mean(g)
        np.multiply(xhat, mean_gx, out=work)  # xhat * mean(g * xhat)
        gi -= work
        np.multiply(r, gi, out=gi)  # r * (...): r first, as a nan keeps its first operand's sign and payload
        gi = _wrap(gi, grad)
    if mask[1] and w is not None:
        gw = _wrap(np.sum(np.multiply(G, xhat, out=xhat), axis=param_axes), grad)
    if mask[2]:
        gb = _wrap(np.sum(G, axis=param_axes), grad)
    return gi, gw, gb


# The training batch-norm gradients, blocked over the batch --------------------------------------------
#
# _norm_grads_kernel's passes each stream the whole (N, C, *spatial) arrays through memory (a dozen of
# them). Here the same operations run on a few batch rows at a time, so a block's temporaries stay in
# cache; the per-channel sums are reduced the way numpy reduces a C-contiguous (N, C, S) array over
# the axes (0, 2) when C > 1: each (n, c) row pairwise-summed along S (the inner loop), then the rows
# added into the channel's sum in increasing n (the outer loop), the first row copied. So each
# statistic and each element is the same number, bit for bit, as the unblocked kernel's (the tests
# compare the two on many shapes, with nan, inf and signed zeros).

_BLOCK_BYTES = 1 << 18  # one block's row of one array: a few of them fit in L2 together


def _blocked_stats_apply(X):
    """Whether _batch_norm_grads_blocked reproduces the numpy reductions bit for bit: at least
    two channels (with one, numpy coalesces the whole array into one pairwise sum), a spatial size
    (a 2-d input reduces over the batch alone) and rows no longer than numpy's ufunc buffer (beyond
    it, how a row is split into inner loops depends on numpy's version: 2.2 and 2.4 differ)."""
    if not (X.ndim >= 3 and X.shape[1] > 1 and X.shape[0] > 1):
        return False
    s = X.size // (X.shape[0] * X.shape[1])
    return 1 < s <= np.getbufsize()


def _rows_total(partial):
    """The channels' sums of the (N, C) row sums: row 0 copied, then each row added in order."""
    total = partial[0].copy()
    for row in partial[1:]:
        total += row
    return total


def _rows_mean(partial, count):
    """np.mean's division: the sum by the count as an intp (numpy's _mean), in place."""
    total = _rows_total(partial)
    return np.true_divide(total, np.intp(count), out=total, casting="unsafe")


def _batch_norm_grads_host(grad, G, X, mean, r, w, mask):
    """_batch_norm_grads_blocked's results from one C++ kernel (csrc/aten/native/cpu/BatchNormKernel.cpp,
    Note [Batch norm gradients with numpy's bits]); None where it does not apply (a layout it does not
    take, a result that is not finite: numpy's nans and warnings are numpy's own)."""
    if not all(a.flags.c_contiguous and a.flags.aligned for a in (G, X, mean, r) + ((w,) if w is not None else ())):
        return None
    c = X.shape[1]
    gi = np.empty_like(X) if mask[0] else None
    gw = np.empty(c, X.dtype) if mask[1] and w is not None else None
    gb = np.empty(c, X.dtype) if mask[2] else None
    if not _C._batch_norm_grads_host(G, X, mean, r, w, gi, gw, gb):
        return None
    return tuple(None if a is None else _wrap(a, grad) for a in (gi, gw, gb))


def _batch_norm_grads_blocked(grad, G, X, mean, r, w, mask):
    """_norm_grads_kernel's training batch-norm gradients, block by block over the batch (see above)."""
    n, c = X.shape[:2]
    s = X.size // (n * c)
    G3, X3 = G.reshape(n, c, s), X.reshape(n, c, s)
    m3, r3 = mean.reshape(1, c, 1), r.reshape(1, c, 1)
    w3 = w.reshape(1, c, 1) if w is not None else None
    step = max(1, _BLOCK_BYTES // (c * s * X.itemsize))
    xhat = np.empty_like(X3)
    want_gi, want_gw, want_gb = bool(mask[0]), bool(mask[1]) and w is not None, bool(mask[2])
    g = np.empty_like(G3) if want_gi and w is not None else G3  # g = G * w
    work = np.empty((min(step, n), c, s), X.dtype)
    p_gx, p_g, p_gw, p_gb = (np.empty((n, c), X.dtype) if want else None
                             for want in (want_gi, want_gi, want_gw, want_gb))
    for lo in range(0, n, step):
        rows = slice(lo, lo + step)
        xh, gr = xhat[rows], G3[rows]
        wk = work[:xh.shape[0]]
        np.subtract(X3[rows], m3, out=xh)
        np.multiply(xh, r3, out=xh)
        if want_gi:
            gg = np.multiply(gr, w3, out=g[rows]) if w3 is not None else gr
            np.multiply(gg, xh, out=wk)
            np.add.reduce(wk, axis=2, out=p_gx[rows])
            np.add.reduce(gg, axis=2, out=p_g[rows])
        if want_gw:
            np.multiply(gr, xh, out=wk)
            np.add.reduce(wk, axis=2, out=p_gw[rows])
        if want_gb:
            np.add.reduce(gr, axis=2, out=p_gb[rows])
    gi = gw = gb = None
    if want_gi:
        count = n * s
        mean_gx = _rows_mean(p_gx, count).reshape(1, c, 1)
        mean_g = _rows_mean(p_g, count).reshape(1, c, 1)
        out = g if g is not G3 else np.empty_like(G3)
        for lo in range(0, n, step):
            rows = slice(lo, lo + step)
            o = out[rows]
            wk = work[:o.shape[0]]
            np.subtract(g[rows], mean_g, out=o)  # g - mean(g)
            np.multiply(xhat[rows], mean_gx, out=wk)  # xhat * mean(g * xhat)
            o -= wk
            np.multiply(r3, o, out=o)  # r first, as the unblocked kernel
        gi = _wrap(out.reshape(X.shape), grad)
    if want_gw:
        gw = _wrap(_rows_total(p_gw), grad)
    if want_gb:
        gb = _wrap(_rows_total(p_gb), grad)
    return gi, gw, gb


@quiet
def _first_order(kind, grad, input, weight, args, mask):  # noqa: A002 - torch's names
    """(grad_input, grad_weight, grad_bias) of native_{kind}_norm where mask asks, in torchlite ops."""
    if kind == "batch" and args[4] and not _C.is_grad_enabled():
        grads = _batch_norm_train_grads(grad, input, weight, args[2], args[3], mask)
        if grads is not None:
            return grads
    if kind == "layer" and not _C.is_grad_enabled():
        grads = _layer_norm_grads(grad, input, weight, args[0], args[1], args[2], mask)
        if grads is not None:
            return grads
    nd = len(input.shape)
    gi = gw = gb = None
    if kind == "layer":
        normalized_shape, mean, rstd, eps = args
        axes = list(range(nd - len(normalized_shape), nd))
        lead = list(range(nd - len(normalized_shape)))
        xc, r = _normalized(input, mean, rstd, eps, axes)
        xhat = mul(xc, r)
        if mask[0]:
            gi = _norm_input_grad(mul(grad, weight) if weight is not None else grad, xhat, r, axes)
        if mask[1] and weight is not None:
            gw = _sum(mul(grad, xhat), lead) if lead else mul(grad, xhat)
        if mask[2]:
            gb = _sum(grad, lead) if lead else grad
        return gi, gw, gb
    c = input.shape[1]
    axes = [0] + list(range(2, nd))
    bshape = [1, c] + [1] * (nd - 2)
    g = mul(grad, reshape(weight, bshape)) if weight is not None else grad
    if kind == "batch":
        running_mean, running_var, save_mean, save_invstd, training, eps = args
        if training:
            xc, r = _normalized(input, reshape(save_mean, bshape), reshape(save_invstd, bshape), eps, axes)
        else:
            xc = sub(input, reshape(running_mean, bshape))
            r = reshape(rsqrt(_add_scalar(running_var, eps)), bshape)
        xhat = mul(xc, r)
        if mask[0]:
            gi = _norm_input_grad(g, xhat, r, axes) if training else mul(g, r)
    else:
        mean, rstd, n, c, hxw, group, eps = args
        shape = list(input.shape)
        grouped = [n, group, (c // group) * hxw]
        xc, r = _normalized(reshape(input, grouped), reshape(mean, [n, group, 1]), reshape(rstd, [n, group, 1]),
                            eps, [2])
        xhat_g = mul(xc, r)
        xhat = reshape(xhat_g, shape)
        if mask[0]:
            gi = reshape(_norm_input_grad(reshape(g, grouped), xhat_g, r, [2]), shape)
    if mask[1] and weight is not None:
        gw = _sum(mul(grad, xhat), axes)
    if mask[2]:
        gb = _sum(grad, axes)
    return gi, gw, gb


def _backward_op(spec, kind, grad_out, input, weight, args, mask, fields):  # noqa: A002
    """Runs _first_order without grad mode and records the backward op's node (its formula:
    _functions_manual.norm_double_backward), whose outputs are the three gradients; one not asked
    for is upstream's undefined tensor, here a zero of its shape."""
    previous = _C.is_grad_enabled()
    _C._set_grad_enabled(False)
    try:
        grads = _first_order(kind, grad_out, input, weight, args, mask)
    finally:
        _C._set_grad_enabled(previous)
    a = input._array
    nparams = weight._array.shape if weight is not None else (a.shape[1] if kind != "layer" else a.shape[-1],)
    shapes = (a.shape, nparams, nparams if kind != "layer" else (weight._array.shape if weight is not None else
                                                                  nparams))
    outs = tuple(g if g is not None else _wrap(np.broadcast_to(np.zeros((), a.dtype), shape), input)
                 for g, shape in zip(grads, shapes, strict=True))
    return _record(spec, (grad_out, input, _placeholder(input, weight)), outs, **fields)


def native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask, *,  # noqa: A002
                               eps=1e-5):
    """at::native_layer_norm_backward (eps: torchlite's, for its double backward's recomputed statistics)."""
    return _backward_op(_S.NativeLayerNormBackwardBackward0, "layer", grad_out, input, weight,
                        (normalized_shape, mean, rstd, eps), output_mask,
                        dict(grad_out=grad_out, input=input, normalized_shape=list(normalized_shape), mean=mean,
                             rstd=rstd, weight=weight, norm_eps=eps))


def native_batch_norm_backward(grad_out, input, weight, running_mean, running_var, save_mean, save_invstd,  # noqa: A002
                               train, eps, output_mask):
    return _backward_op(_S.NativeBatchNormBackwardBackward0, "batch", grad_out, input, weight,
                        (running_mean, running_var, save_mean, save_invstd, train, eps), output_mask,
                        dict(grad_out=grad_out, input=input, weight=weight, running_mean=running_mean,
                             running_var=running_var, save_mean=save_mean, save_invstd=save_invstd, train=bool(train),
                             eps=float(eps)))


def native_group_norm_backward(grad_out, input, mean, rstd, weight, N, C, HxW, group, output_mask, *,  # noqa: A002, N803
                               eps=1e-5):
    """at::native_group_norm_backward (eps: torchlite's, for the statistics it recomputes). Upstream's
    derivatives.yaml has no entry for it: its node is torch::autograd::NotImplemented, over all five
    tensor inputs, whose backward raises (the double backward of group_norm goes through
    infinitely_differentiable_native_group_norm_backward instead: NativeGroupNormBackward0's formula)."""
    previous = _C.is_grad_enabled()
    _C._set_grad_enabled(False)
    try:
        outs = _backward_op(_S.NotImplementedNativeGroupNormBackward, "group", grad_out, input, weight,
                            (mean, rstd, N, C, HxW, group, eps), output_mask, {})
    finally:
        _C._set_grad_enabled(previous)
    outs = tuple(o.detach() for o in outs)
    return _record(_S.NotImplementedNativeGroupNormBackward, (grad_out, input, mean, rstd, _placeholder(input, weight)),
                   outs, name="aten::native_group_norm_backward")
