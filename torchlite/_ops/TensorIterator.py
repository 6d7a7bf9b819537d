"""What TensorIterator (ATen/TensorIterator.cpp) decides for an elementwise
op: the result dtype (Note [Type promotion]), the result's layout (Output
buffers: _out, _empty_like) and the order it visits elements in; and numpy's
floating point error state around the kernels (Note [Floating point warnings])."""
import builtins
import functools

import numpy as np

from .. import _C, _backend
from .._C import _empty_array
from .ExpandUtils import _broadcast_shapes
from .ScalarType import _SMALL_INTS, _b1, _default_float, _f16, _f32, _f64, _i8, _i16, _i32, _i64, _u8, _wrap_int

_TB = _C.TensorBase

# Note [Floating point warnings]: torch computes inf and nan silently (x / 0,
# log(0), 0 * inf, overflow); numpy warns (RuntimeWarning) unless its error
# state says to ignore. Kernels that can meet them run between _quiet() and
# _loud(token). numpy >= 2 keeps the error state in a context variable, set
# here directly: np.errstate costs about three times as much per op.
try:
    # numpy's private names, absent from its stubs
    from numpy._core._ufunc_config import _extobj_contextvar, _make_extobj  # type: ignore[attr-defined]
except ImportError:  # numpy 1: a global error state
    def _quiet():
        return np.seterr(all="ignore")

    def _loud(token):
        np.seterr(**token)
else:
    _quiet = functools.partial(_extobj_contextvar.set, _make_extobj(all="ignore"))
    _loud = _extobj_contextvar.reset


def _is_tensor(x):
    return isinstance(x, _TB)


# Note [Type promotion]: the result dtype of an elementwise op is
# at::result_type's (c10's ResultTypeState). Its operands fall in three
# priority classes: tensors with at least one dimension, 0-d tensors, and
# Python numbers (wrapped numbers; a float one counts as the default dtype,
# float32). The highest class present decides the dtype, promote_types within
# the class; a lower class changes it only where its category (bool < integer
# < floating) is higher, and then to promote_types of the two. So
# `int64 + 0-d float64` is float64, `float32 + 0-d float64` float32,
# `int64 + 2.5` float32 and `bool + True` bool. The ops compute in that dtype
# (TensorIterator casts the operands to it), not in numpy's. promote_types is
# c10's table over the nine dtypes (_promote_rule: uint8 with int8 is int16,
# int64 with float16 float16), _KIND their category.
_KIND = {_b1: 0, _u8: 1, _i8: 1, _i16: 1, _i32: 1, _i64: 1, _f16: 2, _f32: 2, _f64: 2}


def _promote_rule(da, db):
    """c10::promoteTypes (c10/core/ScalarType.cpp's table): bool gives way to any
    dtype, an integer to any float; two floats or two signed integers give the
    wider; uint8 and a signed integer give the wider signed one, int16 at least."""
    if da == db:
        return da
    ka, kb = _KIND[da], _KIND[db]
    if ka != kb:
        return da if ka > kb else db
    if ka == 1 and _u8 in (da, db):
        other = db if da == _u8 else da
        return _i16 if other == _i8 else other
    return da if da.itemsize > db.itemsize else db


_PROMOTE = {(a, b): _promote_rule(a, b) for a in _KIND for b in _KIND}


def _promote_types(da, db):
    """c10::promoteTypes over torchlite's dtypes (_promote_rule)."""
    return da if da == db else _PROMOTE[da, db]


def _number_dtype(x):
    """The dtype a Python number takes part in type promotion with (a float: the default dtype)."""
    return _b1 if isinstance(x, (bool, np.bool_)) else _i64 if isinstance(x, (int, np.integer)) else _default_float()


def _result_type(a, b):
    """at::result_type(a, b) (Note [Type promotion]) for a tensor's array `a` and
    `b`, another tensor's array or a Python number."""
    da = a.dtype
    if isinstance(b, _backend.array_types):
        db = b.dtype
        if db == da:
            return da
        a0 = a.ndim == 0
        if a0 == (b.ndim == 0):
            return _promote_types(da, db)
        high, low = (db, da) if a0 else (da, db)
        return _PROMOTE[high, low] if _KIND[low] > _KIND[high] else high
    if da.kind == "f":  # no Python number outranks a float tensor
        return da
    db = _number_dtype(b)
    return db if _KIND[db] > _KIND[da] else da


def _number_operand(b, dtype):
    """A Python number as an elementwise kernel of `dtype` reads it: an int wrapped into a
    narrow integer dtype (int8 + 1000 adds -24, as the C++ conversion wraps; numpy would
    refuse it); anything else as is (numpy converts it to the dtype)."""
    if dtype in _SMALL_INTS and isinstance(b, int) and not isinstance(b, bool):
        return _wrap_int(b, dtype)
    return b


def _half_compute(ufunc, a, b, out, dtype, opmath_scalar=False):
    """ufunc(a, b) for a float16 result as torch's CPU kernels compute it: the operands cast
    to float16 first (TensorIterator's compute_types), then computed in float32 and rounded
    to float16 once. With `opmath_scalar` (mul, div), a Python number or 0-d `b` takes part
    in float32, not cast to float16 first (their kernels read iter.original_scalar_value<
    opmath_t>). `out` is None or the float16 array to write."""
    if isinstance(a, _backend.array_types) and a.dtype != dtype:
        a = a.astype(dtype)
    if isinstance(b, _backend.array_types):
        if b.dtype != dtype and not (opmath_scalar and b.ndim == 0):
            b = b.astype(dtype)
    elif not opmath_scalar:
        b = np.float16(b)
    r = ufunc(a, b, dtype=_f32)
    if out is None:
        return r.astype(dtype)
    np.copyto(out, r, casting="unsafe")
    return out


def _float_dtype(dt):
    """The dtype of a float function (exp, sin, x / y) computed in `dt`: integers and bool go to
    the default dtype (float32 unless torch.set_default_dtype changed it)."""
    return dt if dt.kind == "f" else _default_float()


# Output buffers ---------------------------------------------------------------------
# Where the result's dtype is floating point, ops compute into a buffer of C++
# memory (_C._empty_array) instead of a fresh numpy array: the tensor then owns
# its memory in C++, and the engine frees what a node saved without taking the
# GIL (Note [Releasing arrays without the GIL]). Integer and bool results never
# require grad: numpy allocates them, out=None where that is row-major (every
# operand contiguous, of the result's shape), else a numpy array laid out as below (numpy's own 'K'
# order would put a broadcast dimension innermost).

def _out(shape, dtype, like, *arrays, promote=True):
    """The out= array for an op's result of `dtype`, as the note above says,
    laid out as TensorIterator lays out its output (TensorIterator.cpp):
    compute_fast_setup_type first, which applies only where every operand
    `arrays` has the result's shape (a Python number is _WRAPPED_NUMBER, 0-d):
    all contiguous gives a row-major result, all channels-last a channels-last
    one, all non-overlapping and dense with one set of strides those strides;
    otherwise reorder_dimensions (_iteration_order) and
    allocate_or_resize_outputs: dense in the operands' dimension order, so
    `(x.permute(...) * 3).view(-1)` fails as in torch and strides match
    torch's (as_strided reads them). With `promote`, an operand of another dtype
    than the result counts as its copy in that dtype (compute_types, on the CPU,
    promotes inputs to the common dtype with `to`: _empty_like's layout)."""
    floating = dtype.kind == "f"
    empty = _empty_array
    if _backend.cupy is not None and any(_backend.is_cuda_array(x) for x in arrays):
        # a cuda result: from cupy's pool, on the operands' device (docs/design.md, "CUDA")
        empty, like = _backend.empty_on, next(x for x in arrays if _backend.is_cuda_array(x))
    if not floating:
        empty = _new_empty
    if len(shape) < 2 or (1 not in shape and 0 not in shape and
                          all(x.shape == shape and x.flags.c_contiguous for x in arrays if x.ndim)):
        # Every layout TensorIterator picks here is row-major: a result of one dimension or none;
        # or contiguous operands of the result's shape (fast setup) and 0-d ones, which decide
        # nothing, where no size-1 or size-0 dimension can carry a stride that reorders the
        # dimensions (numpy calls any empty array contiguous)
        return empty(shape, dtype, like) if floating else None
    if promote:
        arrays = tuple(x if x.dtype == dtype or _is_non_overlapping_and_dense(x) else _empty_like(x, x.dtype, like)
                       for x in arrays)
    strides = None
    if all(x.shape == shape for x in arrays):
        if all(x.flags.c_contiguous for x in arrays):
            return empty(shape, dtype, like) if floating else None
        if len(shape) == 4 and all(_is_channels_last(x) for x in arrays):
            strides = _dense_strides(shape, (1, 3, 2, 0))
        elif all(_is_non_overlapping_and_dense(x) for x in arrays):
            each = {tuple(st // x.itemsize for st in x.strides) for x in arrays}
            strides = each.pop() if len(each) == 1 else None
    if strides is None:
        order = _iteration_order(shape, arrays)
        if order == list(range(len(shape) - 1, -1, -1)):
            return empty(shape, dtype, like)
        strides = _dense_strides(shape, order)
    return _strided_empty(shape, strides, dtype, like, empty)


# a Python number's operand of a TensorIterator op (wrapped_scalar_tensor): 0-d,
# it broadcasts everywhere and, its shape not the result's, rules out the fast setup
_WRAPPED_NUMBER = np.zeros(())


def _new_empty(shape, dtype, like):
    return _backend.new(like, "empty", shape, dtype)


def _dense_strides(shape, order):
    """The strides of a dense array whose dimensions, innermost first, are `order`,
    as TensorIterator's compatible_stride computes them (a size 0 multiplies)."""
    strides = [0] * len(shape)
    step = 1
    for d in order:
        strides[d] = step
        step *= shape[d]
    return tuple(strides)


def _strided_empty(shape, strides, dtype, like, empty):
    """An uninitialized array with these element strides, over a buffer from `empty`
    (a numpy view of it, so that the result keeps the buffer's C++ storage)."""
    extent = 0 if 0 in shape else 1 + builtins.sum((n - 1) * st for n, st in zip(shape, strides, strict=True))
    buf = empty((extent,), dtype, like)
    byte_strides = tuple(st * buf.itemsize for st in strides)
    if isinstance(buf, np.ndarray):
        return np.ndarray(shape, buf.dtype, buf, 0, byte_strides)
    return _backend.as_strided(buf, shape, byte_strides)


def _is_channels_last(x):
    """c10's is_channels_last_contiguous for a 4-d array: dense in the order C, W, H, N
    (a size-1 dimension's stride is free)."""
    expected = x.itemsize
    for d in (1, 3, 2, 0):
        if x.shape[d] != 1:
            if x.strides[d] != expected:
                return False
            expected *= x.shape[d]
    return True


def _is_non_overlapping_and_dense(x):
    """c10's compute_non_overlapping_and_dense: the dimensions of size 2 or more,
    sorted by stride, are dense (a size-1 dimension's stride is free)."""
    if 0 in x.shape:  # an empty tensor is contiguous, so dense
        return True
    if x.ndim == 1:
        return x.shape[0] < 2 or x.strides[0] == x.itemsize
    expected = x.itemsize
    for d in sorted((d for d in range(x.ndim) if x.shape[d] >= 2), key=lambda d: x.strides[d]):
        if x.strides[d] != expected:
            return False
        expected *= x.shape[d]
    return True


def _copy_like(a, dtype, like):
    """A copy of `a` in `dtype`, laid out as torch's empty_like
    (MemoryFormat::Preserve) lays out a copy (clone, to): _empty_like."""
    out = _empty_like(a, dtype, like)
    np.copyto(out, a, casting="unsafe")
    return out


def _is_number(x):
    return isinstance(x, (bool, int, float))


def _check_inplace_broadcast(shape, other_shape):
    """torch's errors for an in-place op (self.add_(other), ...) whose other operand
    does not broadcast to self's shape: the sizes must match, and self is not resized
    (TensorIterator's compute_shape, then its output check)."""
    if other_shape != shape:
        full = _broadcast_shapes(shape, other_shape)
        if full != tuple(shape):
            raise RuntimeError(f"output with shape {list(shape)} doesn't match the broadcast shape {list(full)}")


def _iteration_order(shape, arrays):
    """TensorIterator's reorder_dimensions: the output's dimensions from
    innermost to outermost, sorted by the operands' strides (_order_by_strides)."""
    nd = len(shape)
    strides = []
    for x in arrays:
        lead = nd - x.ndim
        st = [0] * nd
        for i, n in enumerate(x.shape):
            st[lead + i] = 0 if n == 1 and shape[lead + i] != 1 else x.strides[i]
        strides.append(st)
    return _order_by_strides(shape, strides)


def _order_by_strides(shape, strides):
    """reorder_dimensions's permutation, innermost dimension first, for the operands' strides (each a
    list over `shape`'s dimensions, the output's first): a broadcast dimension's stride is 0 and
    decides nothing; equal strides put the smaller size inside; undecided pairs keep their order."""
    nd = len(shape)

    def should_swap(d0, d1):
        for st in strides:
            s0, s1 = st[d0], st[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return -1 if s0 < s1 else 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    perm = list(range(nd - 1, -1, -1))
    for i in range(1, nd):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    return perm


def _empty_like(a, dtype, like):
    """at::empty_like(a) with memory_format=preserve: a dense, non-overlapping array keeps
    its strides, any other (an expanded or sliced one) gets dense strides in its dimension
    order (at::infer_dense_strides: a 0-stride dimension stays where it is), not numpy's
    'K' order, so what views the copy allows (reshape, view) is torch's."""
    if (not a.flags.c_contiguous or 1 in a.shape or 0 in a.shape) and _is_non_overlapping_and_dense(a):
        # numpy's c_contiguous leaves a size-1 dimension's stride free, torch keeps it
        empty = _empty_array if dtype.kind == "f" else _new_empty
        if _backend.is_cuda_array(a):
            empty, like = _backend.empty_on, a
        return _strided_empty(a.shape, tuple(st // a.itemsize for st in a.strides), dtype, like, empty)
    out = _out(a.shape, dtype, like, a, promote=False)
    return _backend.new(a, "empty", a.shape, dtype) if out is None else out


def _sequential(fn, a, b):
    """a[i] = fn(a[i], b[i]) one element at a time, in the order TensorIterator
    visits them (reorder_dimensions over the output and inputs): where b
    overlaps a, a later element reads what an earlier one wrote, as in torch
    (numpy would buffer the overlap away)."""
    outer_first = _iteration_order(a.shape, (a, a, b))[::-1]
    bb = np.broadcast_to(b, a.shape)
    index = [0] * a.ndim
    for idx in np.ndindex(*(a.shape[d] for d in outer_first)):
        for d, i in zip(outer_first, idx, strict=True):
            index[d] = i
        at = tuple(index)
        a[at] = fn(a[at], bb[at])
