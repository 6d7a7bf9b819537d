"""The differentiable ops' forward kernels (PyTorch's native functions).

Each op computes its forward with numpy, wraps the result (`_wrap`, zero-copy)
and calls `_record` with its node's spec from the derivatives table
(tools/autograd/derivatives.yaml, generated into torchlite/_generated/specs.py)
and the values the node keeps, by name (`_record(_S.MulBackward0, (self, other),
out, self=..., other=...)`). When grad mode is on and an input requires grad,
that makes the C++ node, named as PyTorch names it, which keeps the tensors as
SavedVariables (version-checked) and runs the table's formula during backward
(torchlite/_generated/functions.py, over torchlite/_functions_manual.py), then
reduces each gradient to its input's shape and dtype as validate_outputs does.

An op between a tensor and a Python number calls `_record_number` instead,
which wraps the number in C++ as PyTorch does.
"""
import builtins
import functools
import warnings

import numpy as np

from . import _C, _backend
from ._C import (_empty_array, _inplace_node, _rebase_history, _record, _record_multi_view,
                 _record_number, _record_view, _wrap)
from ._dtypes import _c_type_name, _from_numpy_dtype
from ._generated import specs as _S

_TB = _C.TensorBase
_f32 = np.dtype(np.float32)
_f64 = np.dtype(np.float64)

# Note [Floating point warnings]: torch computes inf and nan silently (x / 0,
# log(0), 0 * inf, overflow); numpy warns (RuntimeWarning) unless its error
# state says to ignore. Kernels that can meet them run between _quiet() and
# _loud(token). numpy >= 2 keeps the error state in a context variable, set
# here directly: np.errstate costs about three times as much per op.
try:
    from numpy._core._ufunc_config import _extobj_contextvar, _make_extobj
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
# (TensorIterator casts the operands to it), not in numpy's.
_b1 = np.dtype(np.bool_)
_i64 = np.dtype(np.int64)
_KIND = {_b1: 0, _i64: 1, _f32: 2, _f64: 2}


def _promote_types(da, db):
    """c10::promoteTypes over torchlite's dtypes: the higher category, float64 over float32."""
    if da == db:
        return da
    ka, kb = _KIND[da], _KIND[db]
    if ka == kb:
        return _f64
    return da if ka > kb else db


def _number_dtype(x):
    """The dtype a Python number takes part in type promotion with (a float: the default dtype)."""
    return _b1 if isinstance(x, (bool, np.bool_)) else _i64 if isinstance(x, (int, np.integer)) else _f32


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
        return low if _KIND[low] > _KIND[high] else high
    if da.kind == "f":  # no Python number outranks a float tensor
        return da
    db = _number_dtype(b)
    return db if _KIND[db] > _KIND[da] else da


def _float_dtype(dt):
    """The dtype of a float function (exp, sin, x / y) computed in `dt`: integers and bool go to float32."""
    return dt if dt.kind == "f" else _f32


def _sum_to(g, shape, dtype=None):
    """Sums a broadcast gradient back to `shape` (at::sum_to), differentiably; with `dtype`
    (an operand of another dtype than the result), casts it back, as torch's engine does,
    here so that create_graph=True records the cast."""
    g = _reduce_to(g, shape)
    if dtype is not None and g._array.dtype != dtype:
        g = to(g, dtype=_from_numpy_dtype(dtype))  # after the sum, as the engine's validate_outputs
    return g


# at::ScalarType's order (csrc/aten/ScalarType.h)
_SCALAR_TYPES = (_f32, _f64, _i64, _b1)


def _reduce_output(g, shape, scalar_type):
    """validate_outputs' reduction of a formula's gradient to its input's shape and dtype,
    which the table's nodes run after their formula (PyFormulaNode::reduce_outputs)."""
    return _sum_to(g, shape, _SCALAR_TYPES[scalar_type])


def _reduce_to(g, shape):
    gshape = g._array.shape
    if gshape == shape:
        return g
    if not shape:
        return sum(g)  # at::sum_to to a 0-d shape: one full sum (SumBackward0)
    lead = len(gshape) - len(shape)
    if lead < 0:  # a setitem value whose leading 1s were dropped (x[i] = t with t of shape (1,))
        return reshape(_reduce_to(g, shape[-lead:]), shape)
    dims = tuple(range(lead)) + tuple(
        i + lead for i, s in enumerate(shape) if s == 1 and gshape[i + lead] != 1)
    if dims:
        g = sum(g, dims, True)
    # at::sum_to views the kept-dimension sum as `shape` (ViewBackward0 under create_graph)
    return view(g, shape) if lead else g


def _const(arr, like):
    """A tensor that never requires grad (masks, constants inside formulas)."""
    return _wrap(_backend.asarray(arr, like=like), like)



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
    extent = 0 if 0 in shape else 1 + builtins.sum((n - 1) * st for n, st in zip(shape, strides))
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
    innermost to outermost, sorted by the operands' strides (a broadcast
    dimension's stride is 0 and decides nothing; equal strides put the smaller
    size inside; undecided pairs keep their order)."""
    nd = len(shape)
    strides = []
    for x in arrays:
        lead = nd - x.ndim
        st = [0] * nd
        for i, n in enumerate(x.shape):
            st[lead + i] = 0 if n == 1 and shape[lead + i] != 1 else x.strides[i]
        strides.append(st)

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


def _binary(ufunc, self, a, b, dtype):
    """ufunc(a, b) for a tensor's array `a` and `b`, an array or a Python number,
    into a new array of `dtype`, the op's result type, computed in that dtype
    (Note [Type promotion])."""
    if isinstance(b, _backend.array_types):
        if _backend.cupy is not None:
            a, b = _backend.check_same_device(a, b)
        shape = a.shape if a.shape == b.shape else _broadcast_shapes(a.shape, b.shape)
        same = a.dtype == dtype == b.dtype
    else:
        shape = a.shape
        same = a.dtype == dtype
    out = _out(shape, dtype, self, a, b if isinstance(b, _backend.array_types) else _WRAPPED_NUMBER)
    token = _quiet()
    try:
        return ufunc(a, b, out=out) if same else ufunc(a, b, out=out, dtype=dtype)
    finally:
        _loud(token)


_SUB_BOOL = ("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a "
             "mask, use the `~` or `logical_not()` operator instead.")
_SUB_BOOLS = ("Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
              "`logical_xor()` operator instead.")


def _sub_check(da, db):
    """at::native::sub_check, for the dtypes of both operands (a Python bool counts as a bool tensor)."""
    if da == _b1 or db == _b1:
        raise RuntimeError(_SUB_BOOLS if da == db else _SUB_BOOL)


_F32_MAX = float(np.finfo(np.float32).max)


def _checked_number(x, dtype):
    """c10::checked_convert of a number torch converts to the result dtype (alpha, where's
    numbers): a finite float beyond float32's range is an error, not inf."""
    if dtype == _f32 and isinstance(x, float) and _F32_MAX < builtins.abs(x) < float("inf"):
        raise RuntimeError("value cannot be converted to type float without overflow")


def _alpha_check(dtype, alpha):
    """at::native::alpha_check: alpha must be representable in the result's dtype."""
    if isinstance(alpha, bool):
        if dtype != _b1:
            raise RuntimeError("Boolean alpha only supported for Boolean results.")
    elif dtype.kind != "f" and not isinstance(alpha, int):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    _checked_number(alpha, dtype)


def _times_alpha(b, alpha, dtype):
    """alpha * b in the result's dtype, as add's kernel computes a + alpha * b (bool: b and alpha)."""
    token = _quiet()
    try:
        if isinstance(b, _backend.array_types):
            # laid out as b (empty_like's layout), whose strides add's TensorIterator orders by
            return np.multiply(b, dtype.type(alpha), out=_empty_like(b, dtype, None), dtype=dtype)
        return dtype.type(b) * dtype.type(alpha)
    finally:
        _loud(token)


def _two_product(x, y):
    """x * y as p + e exactly (Dekker's product, float64)."""
    p = x * y
    split = 134217729.0  # 2**27 + 1
    xh = x * split
    xh = xh - (xh - x)
    yh = y * split
    yh = yh - (yh - y)
    xl, yl = x - xh, y - yh
    return p, ((xh * yh - p) + xh * yl + xl * yh) + xl * yl


def _fma(x, y, z, dtype):
    """x * y + z rounded once to float `dtype` (a fused multiply-add, where torch's kernels
    compute one): float32 exactly in float64 (the product fits; the sum is rounded twice
    only on a float32 tie), float64 by Dekker's exact product and Knuth's two-sum."""
    xp = _backend.xp_of(x, y, z)
    x = xp.asarray(x, np.float64)
    y = xp.asarray(y, np.float64)
    z = xp.asarray(z, np.float64)
    token = _quiet()
    try:
        if dtype != _f64:
            return (x * y + z).astype(dtype)
        p, e = _two_product(x, y)
        s = p + z
        bb = s - p
        t = (p - (s - bb)) + (z - bb)
        r = s + (t + e)
        # inf, nan or an overflowing split: the plain sum is the fused one
        return np.where(np.isfinite(r), r, s)
    finally:
        _loud(token)


def _add_alpha(a, b, alpha, dtype, out):
    """out = a + alpha * b for a float result: torch's add kernel computes
    vec::fmadd(b, alpha, a) (sub passes -alpha), and its scalar loop compiles to the
    same fused multiply-add, so one rounding."""
    r = _fma(b, float(dtype.type(alpha)), a, dtype)
    token = _quiet()  # into a float32 out (an in-place op computed in float64), overflow gives inf silently
    try:
        np.copyto(out, r, casting="same_kind")
    finally:
        _loud(token)
    return out


# Binary arithmetic ---------------------------------------------------------------

# Formulas call torch's C++ ops: a tensor times a number there is mul.Scalar, which
# records MulBackward1 (the Python API wraps the number and records MulBackward0).

def _mul_scalar(t, c):
    """t * c as at::mul(Tensor, Scalar) inside a formula (node MulBackward1)."""
    out = _wrap(_binary(np.multiply, t, t._array, c, t._array.dtype), t)
    return _record(_S.MulBackward1, (t,), out, other=c)


def _div_scalar(t, c):
    """t / c as at::div(Tensor, Scalar) inside a formula (node DivBackward1)."""
    out = _wrap(_binary(np.true_divide, t, t._array, c, t._array.dtype), t)
    return _record(_S.DivBackward1, (t,), out, other=c)


def _add_scalar(t, c):
    """t + c as at::add(Tensor, Scalar) inside a formula (node AddBackward1)."""
    out = _wrap(_binary(np.add, t, t._array, c, t._array.dtype), t)
    return _record(_S.AddBackward1, (t,), out)


def _sub_scalar(t, c):
    """t - c as at::sub(Tensor, Scalar) inside a formula (node SubBackward1)."""
    _sub_check(t._array.dtype, _number_dtype(c))  # pow's `exponent - 1` refuses a bool exponent as torch's
    out = _wrap(_binary(np.subtract, t, t._array, c, t._array.dtype), t)
    return _record(_S.SubBackward1, (t,), out)


# Note [Order of a formula's gradients]: upstream's generated backward computes an op's
# input gradients in the order of the inputs' names (load_derivatives sorts the formulas),
# so for mul, div, pow, mm, bmm and where the second input's before the first's. The order
# the formula records its nodes in is the order their gradients reach a shared input under
# create_graph (the first one is the first operand of its AddBackward0), so these formulas
# compute `other` first too; tools/autograd/gen_autograd.py generates them in that order.

def _add_sub(self, other, alpha, ufunc, spec):
    """at::add / at::sub: self + alpha * other (self - alpha * other), in the result dtype."""
    a = self._array
    if isinstance(other, _TB):
        b = other._array
        if ufunc is np.subtract:
            _sub_check(a.dtype, b.dtype)
        dtype = _result_type(a, b)
        if alpha.__class__ is not int or alpha != 1:
            shape = _broadcast_shapes(a.shape, b.shape)  # TensorIterator's shape error comes before alpha's
            _alpha_check(dtype, alpha)
            if dtype.kind == "f":
                r = _add_alpha(a, b, alpha if ufunc is np.add else -alpha, dtype, _out(shape, dtype, self, a, b))
                return _record(spec, (self, other), _wrap(r, self), alpha=alpha)
            b = _times_alpha(b, alpha, dtype)
        out = _wrap(_binary(ufunc, self, a, b, dtype), self)
        return _record(spec, (self, other), out, alpha=alpha)
    if ufunc is np.subtract:
        _sub_check(a.dtype, _number_dtype(other))
    dtype = _result_type(a, other)
    b = other
    if alpha.__class__ is not int or alpha != 1:
        _alpha_check(dtype, alpha)
        if dtype.kind == "f":
            r = _add_alpha(a, other, alpha if ufunc is np.add else -alpha, dtype,
                           _out(a.shape, dtype, self, a, _WRAPPED_NUMBER))
            return _record_number(spec, self, _wrap(r, self), alpha=alpha)
        b = _times_alpha(other, alpha, dtype)
    out = _wrap(_binary(ufunc, self, a, b, dtype), self)
    return _record_number(spec, self, out, alpha=alpha)


def add(self, other, alpha=1):
    return _add_sub(self, other, alpha, np.add, _S.AddBackward0)


def sub(self, other, alpha=1):
    return _add_sub(self, other, alpha, np.subtract, _S.SubBackward0)


def rsub(self, other):
    """other - self for a Python number `other` (Tensor.__rsub__)."""
    a = self._array
    _sub_check(_number_dtype(other), a.dtype)
    if self.requires_grad and _below_autograd(self):
        # rsub's kernel subtracts self from the number wrapped in a (normal) tensor: autograd records that sub
        return sub(_wrap(_backend.asarray(other, a.dtype, like=self)), self)
    dtype = _result_type(a, other)
    r = _out(a.shape, dtype, self, _WRAPPED_NUMBER, a)
    token = _quiet()
    try:
        r = np.subtract(other, a, out=r) if a.dtype == dtype else np.subtract(other, a, out=r, dtype=dtype)
    finally:
        _loud(token)
    return _record(_S.RsubBackward1, (self,), _wrap(r, self))


def mul(self, other):
    a = self._array
    if isinstance(other, _TB):
        b = other._array
        out = _wrap(_binary(np.multiply, self, a, b, _result_type(a, b)), self)
        # PyTorch saves each operand only when the other one needs it.
        return _record(_S.MulBackward0, (self, other), out, self=self if other.requires_grad else None,
                       other=other if self.requires_grad else None)
    out = _wrap(_binary(np.multiply, self, a, other, _result_type(a, other)), self)
    return _record_number(_S.MulBackward0, self, out, other=other)


def div(self, other):
    """True division: integer and bool operands divide in float32 (the default dtype)."""
    a = self._array
    if isinstance(other, _TB):
        b = other._array
        out = _wrap(_binary(np.true_divide, self, a, b, _float_dtype(_result_type(a, b))), self)
        # self is saved only for other's gradient, where that has an edge (should_compute_output)
        return _record(_S.DivBackward0, (self, other), out,
                       self=self if other.requires_grad and _C._has_gradient_edge(other) else None, other=other)
    out = _wrap(_binary(np.true_divide, self, a, other, _float_dtype(_result_type(a, other))), self)
    return _record_number(_S.DivBackward0, self, out, other=other)


def rdiv(self, other):
    return mul(reciprocal(self), other)


# Unary functions --------------------------------------------------------------------





def threshold_backward(grad_output, self, threshold):
    """The gradient of relu (at::threshold_backward): grad_output where self > threshold
    (and where self is nan), else 0; differentiable, so relu's double backward works."""
    g = grad_output._array
    r = np.where(self._array <= threshold, g.dtype.type(0), g)
    out = _wrap(r, grad_output)
    return _record(_S.ThresholdBackwardBackward0, (grad_output, self), out, self=self, threshold=threshold)


def tanh_backward(grad_output, output):
    """tanh's gradient as one op (at::tanh_backward): grad_output * (1 - output ** 2),
    where torch's kernel fuses 1 - output * output into one rounding."""
    o = output._array
    dtype = _result_type(grad_output._array, o)
    one_minus_square = _fma(-o, o, 1.0, dtype)
    token = _quiet()
    try:
        r = _backend.asarray(grad_output._array * one_minus_square).astype(dtype, copy=False)
    finally:
        _loud(token)
    out = _wrap(r, grad_output)
    return _record(_S.TanhBackwardBackward0, (grad_output, output), out, grad_output=grad_output, output=output)


def sigmoid_backward(grad_output, output):
    """sigmoid's gradient as one op (at::sigmoid_backward): grad_output * (1 - output) * output,
    in that order, as torch's kernel rounds it."""
    o = output._array
    token = _quiet()
    try:
        r = _backend.asarray(grad_output._array * (1 - o) * o).astype(_result_type(grad_output._array, o), copy=False)
    finally:
        _loud(token)
    out = _wrap(r, grad_output)
    return _record(_S.SigmoidBackwardBackward0, (grad_output, output), out, grad_output=grad_output,
                   output=output)


def sgn(self):
    """The sign of each element, 0 for 0 and nan (at::sgn): abs's gradient is grad * sgn(x)."""
    a = self._array
    r = np.sign(a)
    if a.dtype.kind == "f":
        r = np.where(np.isnan(a), r.dtype.type(0), r)
    return _record(_S.SgnBackward0, (self,), _wrap(r, self))


_NEG_BOOL = ("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, "
             "use the `~` or `logical_not()` operator instead.")


def neg(self):
    a = self._array
    if a.dtype == _b1:
        raise RuntimeError(_NEG_BOOL)
    out = _wrap(np.negative(a), self)
    return _record(_S.NegBackward0, (self,), out)


def positive(self):
    """torch.positive (unary +): self itself, refused for bool as torch does."""
    if self._array.dtype == _b1:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return self


# numpy's float32 exp, log, sin, cos and tanh round differently from torch's
# kernels in 13-40% of elements; computed in float64 and rounded, they agree
# with torch's in all but 0.1-8% (measured on normal samples), so values that a
# program magnifies later (sin of a large product) stay torch's.
_VIA_FLOAT64 = {np.exp, np.log, np.sin, np.cos, np.tanh}


def _float_unary(np_fn, spec, saves_result):
    """An elementwise op whose result is floating point (integers and bool compute in
    float32); its node saves the result (exp, tanh, sqrt) or the input (log, sin,
    cos), as PyTorch's does."""
    via_float64 = np_fn in _VIA_FLOAT64

    def op(self):
        a = self._array
        dtype = _float_dtype(a.dtype)
        r = _out(a.shape, dtype, self, a)
        token = _quiet()
        try:
            if via_float64 and dtype == _f32:
                np.copyto(r, np_fn(a, dtype=_f64), casting="same_kind")
            elif dtype == a.dtype:
                np_fn(a, out=r)
            else:
                np_fn(a, out=r, dtype=dtype)
        finally:
            _loud(token)
        out = _wrap(r, self)
        if saves_result:
            return _record(spec, (self,), out, result=out)
        return _record(spec, (self,), out, self=self)
    op.__name__ = op.__qualname__ = np_fn.__name__
    return op


exp = _float_unary(np.exp, _S.ExpBackward0, saves_result=True)
log = _float_unary(np.log, _S.LogBackward0, saves_result=False)
sin = _float_unary(np.sin, _S.SinBackward0, saves_result=False)
cos = _float_unary(np.cos, _S.CosBackward0, saves_result=False)
tanh = _float_unary(np.tanh, _S.TanhBackward0, saves_result=True)
sqrt = _float_unary(np.sqrt, _S.SqrtBackward0, saves_result=True)
reciprocal = _float_unary(np.reciprocal, _S.ReciprocalBackward0, saves_result=True)


def sigmoid(self):
    a = self._array
    x = a if a.dtype.kind == "f" else a.astype(_f32)
    r = _out(a.shape, x.dtype, self, a)
    token = _quiet()
    try:
        np.exp(np.negative(x), out=r)
        np.add(r, 1, out=r)
        np.reciprocal(r, out=r)
    finally:
        _loud(token)
    out = _wrap(r, self)
    return _record(_S.SigmoidBackward0, (self,), out, result=out)


def relu(self):
    a = self._array
    if a.dtype == _b1:
        raise RuntimeError("Boolean inputs not supported for relu")
    # clamp_min(x, 0) as torch's kernel computes it: x unless x < 0, so -0.0 and nan pass
    r = _out(a.shape, a.dtype, self, a)
    if r is None:
        r = np.empty_like(a)
    np.copyto(r, a)
    r[a < 0] = 0
    out = _wrap(r, self)
    return _record(_S.ReluBackward0, (self,), out, result=out)


def abs(self):  # noqa: A001 - torch's name
    a = self._array
    if a.dtype == _b1:
        raise NotImplementedError("\"abs_cpu\" not implemented for 'Bool'")
    out = _wrap(np.abs(a), self)
    return _record(_S.AbsBackward0, (self,), out, self=self)


# pow ---------------------------------------------------------------------------------

# The formulas of torch's pow_backward, pow_backward_self and pow_backward_exponent
# (FunctionsManual.cpp): where x ** (y - 1) or log(x) is inf or nan but the
# derivative is 0 (y == 0; x == 0 with y >= 0), `where` picks 0, so the double
# backward stays finite there too.



def _int_pow(base, exponent):
    """Integer pow as torch's powi computes it: where numpy refuses a negative
    exponent, x ** -n is 1 for x == 1, (-1) ** n for x == -1 and 0 otherwise."""
    neg = exponent < 0
    if not neg.any():
        return np.power(base, exponent, dtype=_i64)
    r = _backend.asarray(np.power(base, np.where(neg, 0, exponent), dtype=_i64))
    np.copyto(r, np.where(base == 1, 1, np.where(base == -1, 1 - 2 * (exponent & 1), 0)), where=neg)
    return r


def _pow_kernel(base, exponent, dtype, like, shape, same):
    """base ** exponent (arrays, or a Python number for one of them) into a new
    array of the result dtype and the broadcast `shape`; `same`: both operands
    already have that dtype. Pow has no bool kernel in torch."""
    if dtype == _b1:
        raise NotImplementedError("\"pow\" not implemented for 'Bool'")
    token = _quiet()
    try:
        out = _out(shape, dtype, like, *(x for x in (base, exponent) if isinstance(x, _backend.array_types)))
        if dtype == _i64:
            r = _int_pow(base, _backend.asarray(exponent))
            if out is None:  # every operand contiguous, of the result's shape: so is numpy's result
                return r
            np.copyto(out, r)
            return out
        return np.power(base, exponent, out=out) if same else np.power(base, exponent, out=out, dtype=dtype)
    finally:
        _loud(token)


def _cube(x, r):
    np.multiply(x, x, out=r)
    np.multiply(r, x, out=r)


def _inverse_square(x, r):
    np.multiply(x, x, out=r)
    np.reciprocal(r, out=r)


def _rsqrt(x, r):
    np.sqrt(x, out=r)
    np.reciprocal(r, out=r)


# The exponents torch's floating pow kernel computes without pow()
# (pow_tensor_scalar_kernel): x * x, x * x * x, 1 / (x * x), 1 / x and rsqrt,
# so with their roundings (and x ** -0.5 is -inf at -0.0, where pow gives inf).
_POW_SPECIAL = {2: np.square, 3: _cube, -2: _inverse_square, -1: np.reciprocal, -0.5: _rsqrt}


def pow(self, exponent):  # noqa: A001 - torch's name
    a = self._array
    if isinstance(exponent, _TB):
        b = exponent._array
        dtype = _result_type(a, b)
        shape = a.shape if a.shape == b.shape else _broadcast_shapes(a.shape, b.shape)
        out = _wrap(_pow_kernel(a, b, dtype, self, shape, a.dtype == dtype == b.dtype), self)
        return _record(_S.PowBackward1, (self, exponent), out, self=self, exponent=exponent, result=out)
    if a.dtype.kind in "bi" and isinstance(exponent, int) and exponent < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    dtype = _result_type(a, exponent)
    if exponent == 0 or exponent == 1:
        # torch fills 1 or copies self (in the result dtype), whatever self holds, into
        # the output of pow's unary TensorIterator
        r = _out(a.shape, dtype, self, a)
        if r is None:
            r = _backend.new(a, "empty", a.shape, dtype)
        if exponent == 0:
            r.fill(1)
        else:
            np.copyto(r, a, casting="unsafe")
    elif dtype.kind == "f" and exponent in _POW_SPECIAL:
        r = _out(a.shape, dtype, self, a)
        token = _quiet()
        try:
            _POW_SPECIAL[exponent](a if a.dtype == dtype else a.astype(dtype), r)
        finally:
            _loud(token)
    else:
        r = _pow_kernel(a, exponent, dtype, self, a.shape, a.dtype == dtype)
    out = _wrap(r, self)
    return _record(_S.PowBackward0, (self,), out, self=self, exponent=exponent)


def rpow(self, base):
    """base ** self for a Python number `base` (torch.pow(Scalar, Tensor))."""
    a = self._array
    dtype = _result_type(a, base)
    # torch's pow(Scalar, Tensor) lays its result out contiguous, not as the exponent
    c = _backend.ascontiguousarray(a) if a.ndim else a
    out = _wrap(_pow_kernel(base, c, dtype, self, a.shape, a.dtype == dtype), self)
    return _record(_S.PowBackward2, (self,), out, self=base, exponent=self, result=out)


# matmul --------------------------------------------------------------------------------

def _column_major(x):
    """Whether a saved matrix is column-major (torch's mm backward then computes its
    gradient transposed); unknown (not saved) counts as no."""
    if x is None:
        return False
    a = x._array
    return a.strides[0] == a.itemsize and a.strides[1] == a.shape[0] * a.itemsize


# The name mm, dot, mv and bmm give their second operand (derivatives.yaml).
_SECOND = {_S.MmBackward0: "mat2", _S.DotBackward0: "tensor", _S.MvBackward0: "vec", _S.BmmBackward0: "mat2"}


def _shape_str(shape):
    return "x".join(map(str, shape))


def _matmul_kernel(spec, self, other):
    """One of mm / dot / mv / bmm: a single node, as at::mm etc. record it."""
    a, b = self._array, other._array
    if _backend.cupy is not None:
        _backend.check_same_device(a, b, scalars=False)
    if spec is _S.DotBackward0 and a.dtype != b.dtype:
        raise RuntimeError("dot : expected both vectors to have same dtype, but found "
                           f"{_torch_type_name(a.dtype)} and {_torch_type_name(b.dtype)}")
    if spec is _S.DotBackward0 and a.shape != b.shape:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] to "
                           f"have the same number of elements, but got {a.shape[0]} and {b.shape[0]} "
                           "elements respectively")
    if spec is _S.MvBackward0 and a.shape[1] != b.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({a.shape[0]}), mat ({_shape_str(a.shape)}), "
                           f"vec ({b.shape[0]})")
    if spec is _S.MmBackward0 and a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({_shape_str(a.shape)} and "
                           f"{_shape_str(b.shape)})")
    if spec is _S.BmmBackward0 and (b.shape[0] != a.shape[0] or b.shape[1] != a.shape[2]):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")
    # then each kernel's dtype checks, in torch's order: bmm dispatches on its
    # first operand's dtype before it compares the second's
    if spec is _S.BmmBackward0 and a.dtype == _b1:
        raise NotImplementedError("\"bmm\" not implemented for 'Bool'")
    if a.dtype != b.dtype:
        if spec is _S.MvBackward0:
            raise RuntimeError("addmv input tensors must have the same dtype, but got "
                               f"{_torch_type_name(b.dtype)}, {_torch_type_name(a.dtype)}, and "
                               f"{_torch_type_name(b.dtype)}")
        if spec is _S.BmmBackward0:
            raise RuntimeError(f"expected scalar type {_torch_type_name(a.dtype)} but found "
                               f"{_torch_type_name(b.dtype)}")
        raise RuntimeError("expected m1 and m2 to have the same dtype, but got: "
                           f"{_c_type_name(a.dtype)} != {_c_type_name(b.dtype)}")
    if a.dtype == _b1:
        name = "dot" if spec is _S.DotBackward0 else "addmv_impl_cpu" if spec is _S.MvBackward0 else "addmm_impl_cpu_"
        raise NotImplementedError(f"\"{name}\" not implemented for 'Bool'")
    token = _quiet()
    try:
        r = np.matmul(a, b)
    finally:
        _loud(token)
    out = _wrap(r, self)
    return _record(spec, (self, other), out, self=self if other.requires_grad else None,
                   **{_SECOND[spec]: other if self.requires_grad else None})


def _unsafe_view(self, shape):
    """at::_unsafe_view: a reshape recorded as UnsafeViewBackward0 whose result is not a view."""
    a = self._array
    return _record(_S.UnsafeViewBackward0, (self,), _wrap(a.reshape(shape), self), self_sym_sizes=a.shape)


def _should_fold(self, other):
    """at::native::should_fold: whether matmul folds the larger operand's batch into mm / mv."""
    larger = self._array.ndim >= other._array.ndim
    t1 = self._array if larger else np.swapaxes(other._array, -1, -2)
    dim_t2 = other._array.ndim if larger else self._array.ndim
    if not (t1.ndim >= 3 and dim_t2 <= 2):
        return False
    if (other if larger else self).requires_grad:
        return True
    if self._array.ndim == 2:
        return False
    if t1.size == 0:
        return True
    st, sh = t1.strides, t1.shape
    return all(st[i] == st[i + 1] * sh[i + 1] for i in range(t1.ndim - 2))


def matmul(self, other):
    """at::native::_matmul_impl: the same decomposition, so the same nodes as torch."""
    a, b = self._array, other._array
    da, db = a.ndim, b.ndim
    if da == 0 or db == 0:
        raise RuntimeError("both arguments to matmul need to be at least 1D, but they are "
                           f"{da}D and {db}D")
    if da == 1 and db == 1:
        return _matmul_kernel(_S.DotBackward0, self, other)
    if da == 2 and db == 1:
        return _matmul_kernel(_S.MvBackward0, self, other)
    if da == 1 and db == 2:
        r = _matmul_kernel(_S.MmBackward0, unsqueeze(self, 0), other)
        # torch squeezes the mm result in place (squeeze_(0))
        return _record(_S.SqueezeBackward4, (r,), _wrap(r._array[0], r), self_sym_sizes=r._array.shape, dim=0)
    if da == 2 and db == 2:
        return _matmul_kernel(_S.MmBackward0, self, other)
    if _should_fold(self, other):
        trans = db > da
        t1 = transpose(other, -2, -1) if trans else self
        t2 = (t(self) if da == 2 else self) if trans else other
        sizes_1 = t1._array.shape
        output_shape = sizes_1[:-1]
        folded = int(np.prod(output_shape))
        t1_folded = reshape(t1, (folded, sizes_1[-1]))
        if t2._array.ndim == 2:
            output = _unsafe_view(_matmul_kernel(_S.MmBackward0, t1_folded, t2), output_shape + (t2._array.shape[1],))
            return contiguous(transpose(output, -2, -1)) if trans else output
        return _unsafe_view(_matmul_kernel(_S.MvBackward0, t1_folded, t2), output_shape)
    n = a.shape[-2] if da > 1 else 1
    m1 = a.shape[-1]
    batch1 = a.shape[:da - 2] if da > 2 else ()
    m2 = b.shape[-2] if db > 1 else b.shape[0]
    p = b.shape[-1] if db > 1 else 1
    batch2 = b.shape[:db - 2] if db > 2 else ()
    if da == 3 and db == 3 and batch1[0] != batch2[0]:
        if batch1[0] == 1 and self.requires_grad:
            return matmul(squeeze(self, 0), other)
        if batch2[0] == 1 and other.requires_grad:
            return matmul(self, squeeze(other, 0))
    output_shape = _broadcast_shapes(batch1, batch2)
    count = int(np.prod(output_shape))
    t1e = reshape(expand(self, output_shape + (n, m1)), (count, n, m1))
    if db == 1:
        t2e = unsqueeze(reshape(expand(other, output_shape + (m2,)), (count, m2)), 2)
    else:
        t2e = reshape(expand(other, output_shape + (m2, p)), (count, m2, p))
    output_shape += ((n,) if da > 1 else ()) + ((p,) if db > 1 else ())
    r = _matmul_kernel(_S.BmmBackward0, t1e, t2e)
    return _unsafe_view(squeeze(r, -1) if db == 1 else r, output_shape)


def _broadcast_shapes(sa, sb):
    """at::infer_size, with its message (which names the last dimension that does not match)."""
    n = len(sa) if len(sa) > len(sb) else len(sb)
    out = [0] * n
    for i in range(n - 1, -1, -1):
        x = sa[i - n + len(sa)] if i - n + len(sa) >= 0 else 1
        y = sb[i - n + len(sb)] if i - n + len(sb) >= 0 else 1
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                               f"non-singleton dimension {i}")
        out[i] = y if x == 1 else x
    return tuple(out)


# Reductions ----------------------------------------------------------------------------

_REQUIRED = object()  # the default of a required argument that torch's parser names when it is missing


def _check_given(fn, **args):
    """torch's argument parser's error for required arguments left out (its grammar: "argument"
    for two or more, "arguments" for one)."""
    missing = [name for name, value in args.items() if value is _REQUIRED]
    if missing:
        raise TypeError(f"{fn}() missing {len(missing)} required positional argument{'s' if len(missing) == 1 else ''}: "
                        + ", ".join(f'"{name}"' for name in missing))


def _int_arg(fn, name, position, value):
    """An int argument, refused as torch's argument parser refuses another type."""
    if not isinstance(value, bool):
        try:
            return value.__index__()
        except (AttributeError, TypeError):
            pass
    raise TypeError(f"{fn}(): argument '{name}' (position {position}) must be int, not {type(value).__name__}")


def _wrap_dim(dim, ndim, wrap_scalar=True):
    """c10::maybe_wrap_dim: with wrap_scalar a 0-d tensor takes the dims of a 1-d one,
    without it (size(dim), stride(dim)) it has none."""
    if not ndim and not wrap_scalar:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    bound = ndim if ndim else 1
    if not -bound <= dim < bound:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-bound}, {bound - 1}], but got {dim})")
    return dim % bound


def _norm_dims(dim, ndim):
    """A dim or list of dims wrapped and sorted, each at most once (at::dim_list_to_bitset)."""
    if isinstance(dim, int):
        dim = (dim,)
    out = []
    for d in dim:
        d = _wrap_dim(d, ndim)
        if d in out:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        out.append(d)
    return tuple(sorted(out))


def _reduction_dims(dim, ndim):
    """A reduction's dims: an empty list reduces over all of them, as no dim does."""
    dims = _norm_dims(dim, ndim)
    return dims if dims else tuple(range(ndim))


def _unsqueeze_multiple(g, dims):
    """torch's unsqueeze_multiple: the reduced dims back, one unsqueeze each."""
    for d in sorted(dims):
        g = unsqueeze(g, d)
    return g


def _scatter_zeros(spec, src, shape, dim, idx):
    """zeros(shape).scatter(dim, idx, src) (scatter_add for ScatterAddBackward0): inside a formula, as
    torch's formulas call it. The zeros need no gradient: the node's first edge is empty."""
    a = src._array
    z = _backend.new(a, "zeros", shape, a.dtype)
    if shape:
        np.put_along_axis(z, idx, a, dim)
    else:
        z[()] = a
    zeros = _wrap(_backend.new(a, "zeros", shape, a.dtype), src)
    return _record(spec, (zeros, src), _wrap(z, src), dim=dim, index_array=idx)


def _gather(g, dim, idx):
    """g.gather(dim, idx) inside a formula (node GatherBackward0)."""
    a = g._array
    r = np.take_along_axis(a, idx, dim) if a.ndim else a.copy()
    return _record(_S.GatherBackward0, (g,), _wrap(r, g), dim=dim, self_sym_sizes=a.shape, index_array=idx)


def _masked_fill_zeros(shape, mask, value):
    """zeros(shape).masked_fill_(mask, value) for a 0-d tensor value (node MaskedFillBackward1)."""
    a = value._array
    z = np.where(mask, a, a.dtype.type(0)).astype(a.dtype, copy=False)
    zeros = _wrap(_backend.new(a, "zeros", shape, a.dtype), value)
    return _record(_S.MaskedFillBackward1, (zeros, value), _wrap(z, value), mask_array=mask)




def sum(self, dim=None, keepdim=False, dtype=None):  # noqa: A001 - torch's name
    a = self._array
    np_dtype = None
    if dtype is not None:
        np_dtype = dtype._np
    elif a.dtype.kind in "bu":
        np_dtype = np.int64
    dims = None if dim is None else _reduction_dims(dim, a.ndim)
    token = _quiet()
    try:
        # a 0-d tensor reduces over its dimension 0 or -1 to itself, as in torch; the result
        # is row-major whatever the input's layout (allocate_reduction_result)
        r = _row_major(np.sum(a, axis=dims if a.ndim else None, keepdims=keepdim, dtype=np_dtype))
    finally:
        _loud(token)
    if dim is None:
        return _record(_S.SumBackward0, (self,), _wrap(r, self), self_sym_sizes=a.shape)
    return _record(_S.SumBackward1, (self,), _wrap(r, self), self_sym_sizes=a.shape, dim=dims, keepdim=keepdim)


def mean(self, dim=None, keepdim=False, dtype=None):
    a = self._array
    if dtype is None and a.dtype.kind not in "f":
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or "
            f"complex dtype. Got: {_torch_type_name(a.dtype)}")
    np_dtype = dtype._np if dtype is not None else None
    if dim is None:
        out = _wrap(_mean_kernel(a, None, False, np_dtype, a.size), self)
        return _record(_S.MeanBackward0, (self,), out, self_sym_sizes=a.shape, self_sym_numel=a.size)
    dims = _reduction_dims(dim, a.ndim)
    count = 1
    for d in dims:
        count *= a.shape[d] if a.ndim else 1
    out = _wrap(_mean_kernel(a, dims if a.ndim else None, keepdim, np_dtype, count), self)
    return _record(_S.MeanBackward1, (self,), out, self_sym_sizes=a.shape, dim=dims, keepdim=keepdim,
                   self_sym_numel=a.size, count=count)


def _mean_kernel(a, axis, keepdims, dtype, count):
    token = _quiet()
    try:
        if count:
            return _row_major(np.mean(a, axis=axis, keepdims=keepdims, dtype=dtype))
        # the mean of no elements: nan, as in torch (np.mean would warn "Mean of empty slice")
        return _row_major(np.true_divide(np.sum(a, axis=axis, keepdims=keepdims, dtype=dtype), 0))
    finally:
        _loud(token)


def _row_major(r):
    """A reduction's result as torch allocates it (allocate_reduction_result): row-major
    whatever the input's layout, with a size-1 dimension's stride too (numpy's keepdims
    leaves it where it falls)."""
    r = _backend.asarray(r)
    stride, strides = r.itemsize, []
    for n in reversed(r.shape):
        strides.append(stride)
        stride *= n
    if r.strides == tuple(reversed(strides)):
        return r
    out = _backend.new(r, "empty", r.shape, r.dtype)
    out[...] = r
    return out


def _torch_type_name(np_dtype):
    return {"float32": "Float", "float64": "Double", "int64": "Long", "bool": "Bool"}[np_dtype.name]


class _ReturnTypes(tuple):
    """torch.return_types.max / min: a (values, indices) named pair."""

    def __new__(cls, name, values, indices):
        obj = super().__new__(cls, (values, indices))
        obj._name = name
        return obj

    values = property(lambda self: self[0])
    indices = property(lambda self: self[1])

    def __repr__(self):
        return f"torchlite.return_types.{self._name}(\nvalues={self[0]!r},\nindices={self[1]!r})"


# torch.return_types.max / min are types named after the op
_RETURN_TYPES = {op: type(op, (_ReturnTypes,), {"__module__": "torchlite.return_types"}) for op in ("max", "min")}


def _extremum(name, np_fn, np_arg, full_spec, dim_spec, self, dim, keepdim):
    a = self._array
    if dim is None:
        if a.size == 0:
            raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                               "Specify the reduction dim with the 'dim' argument.")
        out = _wrap(_backend.asarray(np_fn(a)), self)
        return _record(full_spec, (self,), out, self=self, result=out)
    d = _wrap_dim(dim, a.ndim)
    if a.ndim and a.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    idx = np_arg(a, axis=d, keepdims=True) if a.ndim else _backend.new(a, "zeros", (), np.int64)
    values = np.take_along_axis(a, idx, axis=d) if a.ndim else a.copy()
    if not keepdim and a.ndim:
        idx = np.squeeze(idx, d)
        values = np.squeeze(values, d)
    indices = _wrap(idx.astype(np.int64), self)
    # (np.ascontiguousarray would make a 0-d result 1-d)
    out = _wrap(values if values.flags.c_contiguous else _backend.ascontiguousarray(values), self)
    out = _record(dim_spec, (self,), out, indices=indices, self_sym_sizes=a.shape, dim=d, keepdim=keepdim)
    return _RETURN_TYPES[name](name, out, indices)


def max(self, dim=None, keepdim=False):  # noqa: A001 - torch's name
    return _extremum("max", np.max, np.argmax, _S.MaxBackward1, _S.MaxBackward0, self, dim, keepdim)


def min(self, dim=None, keepdim=False):  # noqa: A001 - torch's name
    return _extremum("min", np.min, np.argmin, _S.MinBackward1, _S.MinBackward0, self, dim, keepdim)


# Views and shape functions ----------------------------------------------------------



def _shape_arg(shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        return tuple(shape[0])
    return tuple(shape)


def _view_of(arr, self, spec, **fields):
    """A view op's result: `arr` (a numpy view of self's memory) as a tensor
    sharing self's version counter, recorded as a view of self's base."""
    return _record_view(spec, self, _wrap(arr, self, True), **fields)


def _infer_size(shape, numel):
    shape = list(shape)
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            known *= s
    if -1 in shape:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape[shape.index(-1)] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return tuple(shape)


def _compute_stride(oldshape, oldstride, newshape):
    """at::detail::computeStride: the strides (in elements) that view a tensor of sizes
    `oldshape` and strides `oldstride` as `newshape` without copying, or None. Each run
    of dimensions contiguous with each other (a chunk) must be split or merged by whole
    dimensions of the new shape; a size-1 dimension takes the stride where it falls."""
    if not oldshape:
        return (1,) * len(newshape)
    newstride = [0] * len(newshape)
    if 0 in oldshape:
        # any strides serve an empty tensor: its own for the same sizes, else contiguous ones
        if tuple(oldshape) == tuple(newshape):
            return tuple(oldstride)
        for d in range(len(newshape) - 1, -1, -1):
            newstride[d] = 1 if d == len(newshape) - 1 else builtins.max(newshape[d + 1], 1) * newstride[d + 1]
        return tuple(newstride)
    view_d = len(newshape) - 1
    chunk_base_stride = oldstride[-1]
    tensor_numel = view_numel = 1
    for tensor_d in range(len(oldshape) - 1, -1, -1):
        tensor_numel *= oldshape[tensor_d]
        if tensor_d == 0 or (oldshape[tensor_d - 1] != 1 and
                             oldstride[tensor_d - 1] != tensor_numel * chunk_base_stride):
            while view_d >= 0 and (view_numel < tensor_numel or newshape[view_d] == 1):
                newstride[view_d] = view_numel * chunk_base_stride
                view_numel *= newshape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = oldstride[tensor_d - 1]
                tensor_numel = view_numel = 1
    return tuple(newstride) if view_d == -1 else None


def _viewed(a, shape):
    """a viewed as `shape` with computeStride's strides, or None where no view can."""
    strides = _compute_stride(a.shape, tuple(st // a.itemsize for st in a.strides), shape)
    if strides is None:
        return None
    return _backend.as_strided(a, shape, tuple(st * a.itemsize for st in strides))


def view(self, *shape):
    a = self._array
    if not shape:
        raise TypeError("view() received an invalid combination of arguments - got (), but expected one of:\n"
                        " * (torch.dtype dtype)\n * (tuple of ints size)\n")
    shape = _infer_size(_shape_arg(shape), a.size)
    v = _viewed(a, shape)
    if v is None:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one dimension "
            "spans across two contiguous subspaces). Use .reshape(...) instead.")
    return _view_of(v, self, _S.ViewBackward0, self_sym_sizes=a.shape)


def reshape(self, *shape):
    a = self._array
    if not shape:
        raise TypeError('reshape() missing 1 required positional arguments: "shape"')
    shape = _infer_size(_shape_arg(shape), a.size)
    v = _viewed(a, shape)
    if v is None:
        # Not expressible as a view: torch's reshape copies (clone) and views the copy (_unsafe_view).
        return _unsafe_view(_record(_S.CloneBackward0, (self,), _wrap(_backend.ascontiguousarray(a), self)), shape)
    # torch's reshape is a view of a contiguous tensor, else _reshape_alias with the strides it computed
    return _view_of(v, self, _S.ViewBackward0 if a.flags.c_contiguous else _S.ReshapeAliasBackward0,
                    self_sym_sizes=a.shape)


def transpose(self, dim0=_REQUIRED, dim1=_REQUIRED):
    _check_given("transpose", dim0=dim0, dim1=dim1)
    a = self._array
    n = a.ndim
    dim0, dim1 = _int_arg("transpose", "dim0", 1, dim0), _int_arg("transpose", "dim1", 2, dim1)
    d0, d1 = _wrap_dim(dim0, n), _wrap_dim(dim1, n)
    return _view_of(np.swapaxes(a, d0, d1) if n else a.view(), self, _S.TransposeBackward0, dim0=d0, dim1=d1)


def t(self):
    a = self._array
    if a.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {a.ndim}D")
    return _view_of(a.T, self, _S.TBackward0)


def permute(self, *dims):
    a = self._array
    if not dims:
        raise TypeError('permute() missing 1 required positional arguments: "dims"')
    dims = _shape_arg(dims)
    if len(dims) != a.ndim:
        # torch's words for dense tensors too
        raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does not match "
                           f"the length of the desired ordering of dimensions i.e. input.dim() = {a.ndim} "
                           f"is not equal to len(dims) = {len(dims)}")
    dims = tuple(_wrap_dim(d, a.ndim) for d in dims)
    if len(set(dims)) != len(dims):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return _view_of(np.transpose(a, dims), self, _S.PermuteBackward0, dims=dims)


def unsqueeze(self, dim=_REQUIRED):
    _check_given("unsqueeze", dim=dim)
    a = self._array
    dim = _int_arg("unsqueeze", "dim", 1, dim)
    n = a.ndim + 1
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    d = dim % n
    # at::unsqueeze's stride for the new dimension: 1 at the end, else size * stride of the dimension it precedes
    st = a.itemsize if d == a.ndim else a.shape[d] * a.strides[d]
    v = _backend.as_strided(a, a.shape[:d] + (1,) + a.shape[d:], a.strides[:d] + (st,) + a.strides[d:])
    return _view_of(v, self, _S.UnsqueezeBackward0, dim=d)


def squeeze(self, dim=None):
    a = self._array
    if dim is None:
        return _view_of(np.squeeze(a), self, _S.SqueezeBackward0, self_sym_sizes=a.shape)
    asked = _norm_dims(dim, a.ndim)
    dims = tuple(d for d in asked if a.ndim and a.shape[d] == 1)
    if isinstance(dim, int):
        return _view_of(np.squeeze(a, dims) if dims else a.view(), self, _S.SqueezeBackward1, self_sym_sizes=a.shape,
                        dim=asked[0])
    return _view_of(np.squeeze(a, dims) if dims else a.view(), self, _S.SqueezeBackward2, self_sym_sizes=a.shape,
                    dim=asked)


def _expanded_strides(a, target):
    """at::inferExpandGeometry's strides (in bytes): a broadcast dimension's is
    0; a new leading dimension of size 1 gets the size times the stride of the
    dimension after it, as torch gives it (the overlap checks compare strides)."""
    lead = len(target) - a.ndim
    strides = [0] * len(target)
    for i in range(len(target) - 1, -1, -1):
        if i >= lead:
            size, stride = a.shape[i - lead], a.strides[i - lead]
        else:
            size, stride = 1, target[i + 1] * strides[i + 1] if i + 1 < len(target) else 0
        strides[i] = 0 if size != target[i] else stride
    return tuple(strides)


def expand(self, *sizes):
    a = self._array
    if not sizes:
        raise TypeError('expand() missing 1 required positional arguments: "size"')
    sizes = _shape_arg(sizes)
    if a.ndim:
        err = _expand_error(a.shape, sizes, _expand_type_name(a.dtype))
        if err is not None:
            raise err
    lead = len(sizes) - a.ndim
    target = tuple(a.shape[i - lead] if s == -1 and i >= lead else s for i, s in enumerate(sizes))
    if builtins.any(s < 0 for s in target):
        # at::inferExpandGeometry takes a 0-d tensor's sizes as given; the numel of negative ones overflows
        raise RuntimeError("numel: integer multiplication overflow")
    if target == a.shape:
        return _view_of(a.view(), self, _S.ExpandBackward0, self_sym_sizes=a.shape)
    # a writeable view (np.broadcast_to's is read-only): writing into real
    # broadcast dimensions is refused by the in-place ops' overlap check
    v = _backend.as_strided(a, target, _expanded_strides(a, target))
    return _view_of(v, self, _S.ExpandBackward0, self_sym_sizes=a.shape)


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


def _below_autograd(self):
    """Whether autograd skips an op whose only tensor is self: an inference tensor outside
    inference mode (it has no Autograd dispatch key). Where the op's kernel calls other ops
    on tensors it makes (normal ones), autograd records those instead."""
    return self.is_inference() and not _C._is_inference_mode_enabled()


def _copy_of_inference(self, out):
    """The copy (clone, _to_copy) of an inference tensor outside inference mode, as torch
    makes it: the op's kernel fills a normal tensor with copy_, which autograd records
    (CopyBackwards)."""
    return copy_(_wrap(out, self), self)


def clone(self):
    a = self._array
    out = _empty_like(a, a.dtype, self)
    if self.requires_grad and _below_autograd(self):
        return _copy_of_inference(self, out)
    np.copyto(out, a)
    return _record(_S.CloneBackward0, (self,), _wrap(out, self))


def contiguous(self):
    if self._array.flags.c_contiguous:
        return self
    out = _wrap(_backend.ascontiguousarray(self._array), self)
    return _record(_S.CloneBackward0, (self,), out)


# Indexing ------------------------------------------------------------------------

def _index_key(key):
    if isinstance(key, tuple):
        return tuple(k._array if isinstance(k, _TB) else k for k in key)
    if isinstance(key, _TB):
        return key._array
    return key


def _is_basic(key):
    items = key if isinstance(key, tuple) else (key,)
    return all(k is None or k is Ellipsis or isinstance(k, (int, slice, np.integer)) and
               not isinstance(k, bool) for k in items)


def _index_tensors(key):
    """The index arrays of an advanced-indexing key: IndexBackward0 and
    IndexPutImplBackward0 save them (torch's `indices`), so a freed graph refuses
    a second backward through the node and saved-tensor hooks see them."""
    return tuple(k for k in (key if isinstance(key, tuple) else (key,)) if isinstance(k, (np.ndarray, list)))


def _saved_index_key(key, saved):
    """`key` with its index arrays read back from the node's saved tensors (which
    raises once the graph has been freed)."""
    if not saved:
        return key
    arrays = iter(t._array for t in saved)
    if not isinstance(key, tuple):
        return next(arrays)
    return tuple(next(arrays) if isinstance(k, (np.ndarray, list)) else k for k in key)


_INDEX_BACKWARD = {"SelectBackward": _S.SelectBackwardBackward0, "SliceBackward": _S.SliceBackwardBackward0}


def _index_backward(g, shape, key, basic, name):
    """The gradient of x[key] scattered into zeros of x's shape (differentiable in g)."""
    ga = g._array
    z = _backend.new(ga, "zeros", shape, dtype=ga.dtype)
    if basic:
        z[key] = ga
        return _record(_INDEX_BACKWARD[name], (g,), _wrap(z, g), key=key)
    # torch's index_backward: zeros_like(self).index_put_(indices, grad, accumulate=True)
    if ga.size:  # an empty result read no index, in bounds or not
        np.add.at(z, key, ga)
    zeros = _wrap(_backend.new(ga, "zeros", shape, dtype=ga.dtype), g)
    saved = tuple(_const(k, g) for k in _index_tensors(key))
    return _record(_S.IndexPutImplBackward0, (zeros, g), _wrap(z, g), indices=saved, key=key)


def getitem_raw(self, key):
    a = self._array
    basic = _is_basic(key)
    if basic:
        items = key if isinstance(key, tuple) else (key,)
        # a trailing Ellipsis makes numpy return a 0-d view, not a scalar copy
        r = a[items + (Ellipsis,)] if Ellipsis not in items else a[key]
    else:
        r = _index(a, tuple(np.asarray(k) if isinstance(k, list) else k
                            for k in _index_key(key if isinstance(key, tuple) else (key,))))
    if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
        return _view_of(r, self, _S.SelectBackward0, self_sym_sizes=a.shape, key=key)
    if isinstance(key, slice):
        return _view_of(r, self, _S.SliceBackward0, self_sym_sizes=a.shape, key=key)
    if basic:
        return _view_of(r, self, _S.IndexBackward0, self_sym_sizes=a.shape, key=key, basic=True, name="IndexBackward")
    saved = tuple(_const(k, self) for k in _index_tensors(key))
    return _record(_S.IndexBackward0, (self,), _wrap(_backend.ascontiguousarray(r), self), saved, indices=saved,
                   self_sym_sizes=a.shape, key=key, basic=False, name="IndexBackward")


_SEQUENCE_AS_TUPLE = ("Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed "
                      "in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be interpreted "
                      "as tensor index, x[torch.tensor(seq)], which will result either in an error or a different "
                      "result")


def _key_of(key):
    """python_variable_indexing.cpp's treatSequenceAsTuple (numpy's old heuristic): a
    list of fewer than 32 items holding a tensor, a sequence, a slice, an Ellipsis or a
    None indexes as the tuple of its items (with torch's deprecation warning); then the
    key's tensors as their arrays."""
    if isinstance(key, list) and len(key) < 32 and any(
            isinstance(k, (_TB, list, tuple, slice, np.ndarray)) or k is Ellipsis or k is None for k in key):
        warnings.warn(_SEQUENCE_AS_TUPLE, UserWarning, stacklevel=3)
        key = tuple(key)
    return _index_key(key)


def getitem(self, key):
    """x[key]: basic indexing as torch applies it (python_variable_indexing.cpp), one
    select / slice / unsqueeze node per item, an alias when nothing applies; the index
    tensors of advanced indexing then as one IndexBackward0 node on that result."""
    key = _key_of(key)
    if not _is_basic(key):
        # integers select and Nones unsqueeze first; the index tensors then index the result
        sliced, index = _apply_slicing(self, key if isinstance(key, tuple) else (key,))
        if index is not None:
            return getitem_raw(sliced, index)
        return sliced if sliced is not self else _view_of(self._array.view(), self, _S.AliasBackward0)
    single = not isinstance(key, tuple)
    if single and key is None:
        return unsqueeze(self, 0)
    if single and key is Ellipsis:
        return _view_of(self._array.view(), self, _S.AliasBackward0)
    result, _ = _apply_slicing(self, (key,) if single else key, lone=single, lone_slice=single)
    if result is self:
        result = _view_of(self._array.view(), self, _S.AliasBackward0)
    return result


def _list_index(k):
    """indexing_tensor_from_data: a list indexes as a bool tensor, or else as an int64 one
    (floats truncated)."""
    a = np.asarray(k)
    return a if a.dtype == np.bool_ else a.astype(np.int64)


def _apply_slicing(self, items, lone=False, lone_slice=False):
    """python_variable_indexing.cpp's applySlicing: the key's integers, slices
    and Nones applied as select / slice / unsqueeze views (a slice keeping a
    whole dimension is skipped, except for getitem's lone slice), and the numpy
    key of the index tensors left for index / index_put_ on the result (None
    when there are none). `lone`: the key was one integer or slice, not a tuple
    (torch applies it directly, with its own errors on a 0-dim tensor)."""
    items = tuple(_list_index(k) if isinstance(k, list) else k for k in items)
    ndim = self._array.ndim
    if lone and ndim == 0:
        k = items[0]
        if isinstance(k, slice):
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
        if k != 0:
            raise IndexError(f"index {k} is out of bounds for dimension 0 with size 0")
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` "
                         "in C++ to convert a 0-dim tensor to a number")
    n_real = builtins.sum(k.ndim if isinstance(k, np.ndarray) and k.dtype == np.bool_ else 1
                          for k in items if k is not None and k is not Ellipsis and not isinstance(k, (bool, np.bool_)))
    if n_real > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    # real_dim: the item's position in the key, which torch's errors name as its dimension
    result, dim, index, advanced = self, 0, [], False
    for real_dim, k in enumerate(items):
        if k is None:
            result = unsqueeze(result, dim)
            index.append(slice(None))
            dim += 1
        elif k is Ellipsis:
            index += [slice(None)] * (ndim - n_real)
            dim += ndim - n_real
        elif isinstance(k, slice):
            if k.step is not None and k.step <= 0:
                raise ValueError("step must be greater than zero" if k.step else "slice step cannot be zero")
            size = result._array.shape[dim]
            if lone_slice or k.start not in (None, 0) or k.step not in (None, 1) or \
                    (k.stop is not None and k.stop < size):
                result = _slice(result, dim, k)
            index.append(slice(None))
            dim += 1
        elif isinstance(k, (bool, np.bool_)) or isinstance(k, np.ndarray) and k.ndim == 0 and k.dtype == np.bool_:
            # a bool unsqueezes, then indexes the new dimension with [0] (True) or [] (False)
            result = unsqueeze(result, dim)
            index.append(np.zeros(1 if k else 0, np.int64))
            dim += 1
            advanced = True
        elif isinstance(k, np.ndarray) and (k.ndim or k.dtype.kind == "f"):
            index.append(k)
            dim += k.ndim if k.dtype == np.bool_ else 1
            advanced = True
        elif isinstance(k, (int, np.integer)) or isinstance(k, np.ndarray):  # a 0-d integer tensor too: select
            if not -2 ** 63 <= int(k) < 2 ** 63:
                raise ValueError("Overflow when unpacking long long")
            result = _select(result, dim, int(k), real_dim)
        else:
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
                             f"valid indices (got {_python_type_name(k)})")
    return result, tuple(index) if advanced else None


def _select(self, dim, index, real_dim):
    a = self._array
    size = a.shape[dim]
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of bounds for dimension {real_dim} with size {size}")
    key = (slice(None),) * dim + (index,)
    return _view_of(_selected(a, dim, index), self, _S.SelectBackward0, self_sym_sizes=a.shape, key=key)


def _slice(self, dim, k):
    a = self._array
    key = (slice(None),) * dim + (k,)
    return _view_of(_sliced(a, dim, k), self, _S.SliceBackward0, self_sym_sizes=a.shape, key=key)


# View geometry --------------------------------------------------------------------
# A tensor's place in its storage is kept by its C++ TensorImpl: a view shares
# its base's storage at the offset its array's data pointer gives
# (python_variable.cpp, view_from_array), so storage_offset() and as_strided
# see torch's storage for every view, .data and detach() included. numpy's
# indexing moves the data pointer of an empty result back to the indexed
# array's, where torch's empty view keeps its offset: view ops build an empty
# result with _placed, at torch's offset and strides. AsStridedBackward0 (a
# view's regenerated grad_fn, and as_strided's) and CopySlices compute with
# the two tensors' geometries (sizes, strides, storage offset: torch's
# TensorGeometry) as torch does, in torchlite's own ops, so their graphs under
# create_graph are torch's.

def _data_ptr(a):
    return a.data.ptr if _backend.is_cuda_array(a) else a.__array_interface__["data"][0]


class _Placement:
    """An array interface over `a`'s memory at a byte offset from its first
    element, which numpy views (keeping `a` alive through .base)."""
    __slots__ = ("__array_interface__", "base")

    def __init__(self, a, byte_offset, shape, strides):
        self.__array_interface__ = {"version": 3, "shape": tuple(shape), "typestr": a.dtype.str,
                                    "strides": tuple(strides),
                                    "data": (_data_ptr(a) + byte_offset, not a.flags.writeable)}
        self.base = a


def _placed(a, byte_offset, shape, strides):
    """The numpy view of `a`'s memory with these shape and strides (in bytes),
    starting byte_offset bytes after a's first element: kept even where it is
    empty, unlike numpy's indexing."""
    return np.asarray(_Placement(a, byte_offset, shape, strides))


def _sliced(a, dim, k):
    """a[..., k] along dim (a slice with a positive step), placed as torch's
    slice places an empty one: start clamped into [0, size], stride times step."""
    r = a[(slice(None),) * dim + (k,)]
    if r.size:
        return r
    start, _, step = k.indices(a.shape[dim])
    strides = list(a.strides)
    strides[dim] *= step
    return _placed(a, start * a.strides[dim], r.shape, strides)


def _selected(a, dim, index):
    """a's index along dim (in range), placed as torch's select places an empty one."""
    r = a[(slice(None),) * dim + (index, Ellipsis)]
    if r.size:
        return r
    index %= a.shape[dim]
    return _placed(a, index * a.strides[dim], r.shape, a.strides[:dim] + a.strides[dim + 1:])


def _positions_lookup(b):
    """A table over b's memory giving, at each element's position, its flat index in b."""
    itemsize = b.itemsize
    if b.size == 0:
        return np.zeros(0, np.int64)
    extent = 1 + builtins.sum((n - 1) * st // itemsize for n, st in zip(b.shape, b.strides))
    table = np.full(extent, -1, np.int64)
    _backend.as_strided(table, b.shape, tuple(st // itemsize * 8 for st in b.strides))[...] = \
        np.arange(b.size).reshape(b.shape)
    return table


def _flat_index(v, b):
    """The flat index in `b` of each element of `v`, a numpy view of b's memory."""
    if v.size == 0:
        return np.zeros(v.shape, np.int64)
    table = _positions_lookup(b)
    offset = (_data_ptr(v) - _data_ptr(b)) // b.itemsize
    return _backend.as_strided(table[offset:], v.shape,
                                           tuple(st // v.itemsize * 8 for st in v.strides)).copy()


def _geometry(t):
    """torch's TensorGeometry of t: (sizes, strides, storage offset), in elements."""
    a = t._array
    return (a.shape, tuple(st // a.itemsize for st in a.strides), t.storage_offset())


def _min_storage_size(sizes, strides, offset):
    """The storage a geometry needs, in elements (as_strided_backward's helper)."""
    if 0 in sizes:
        return offset
    return offset + 1 + builtins.sum((n - 1) * st for n, st in zip(sizes, strides))


def _maybe_overlapping_memory(sizes, strides):
    """Whether two indices of a geometry (without its size-0 and size-1
    dimensions) may reach the same element: Note [Detecting Memory Overlap
    Within A Strided Tensor] (seeds, FunctionsManual.cpp), smallest stride
    first, each must exceed the furthest reach of the dimensions before it."""
    reach = 0
    for st, n in sorted(zip(strides, sizes)):
        if st <= reach:
            return True
        reach += st * (n - 1)
    return False


def _view_geometry(view, base):
    """What CopySlices keeps of a view of `base`."""
    return (_geometry(base), _geometry(view))


def _as_strided_fields(view, base):
    """The fields of a view's regenerated AsStridedBackward0: as_strided from base to view."""
    sizes, strides, offset = _geometry(view)
    return {"self_geometry": _geometry(base), "size": sizes, "stride": strides, "storage_offset": offset}


def _storage_index(size, geometry):
    """The storage index of each element of a geometry, over a storage of `size`
    elements (as_strided_backward's arange(size).as_strided(...))."""
    sizes, strides, offset = geometry
    flat = np.arange(size, dtype=np.int64)
    return _placed(flat, offset * 8, sizes, tuple(st * 8 for st in strides))


def _as_strided_backward(g, input_geometry, sizes, strides, offset):
    """as_strided_backward (Note [as_strided Backward and layout-aware/agnostic
    autograd], seeds, FunctionsManual.cpp): the gradient laid into a zero
    storage through the output's geometry, read back through the input's.
    Where output elements share storage they add up; where input elements do,
    each storage element is divided by its count (0/0 gives nan, as torch's
    div_, in storage the input does not see)."""
    inp_sizes, inp_strides, inp_offset = input_geometry
    out_sizes, out_strides = [], []
    for i in range(len(sizes) - 1, -1, -1):
        if sizes[i] == 0:
            return _wrap(_backend.new(g, "zeros", inp_sizes, g._array.dtype), g)
        if sizes[i] == 1:
            g = squeeze(g, i)
        elif strides[i] == 0:
            g = sum(g, i)
        else:
            out_sizes.insert(0, sizes[i])
            out_strides.insert(0, strides[i])
    if 0 in inp_sizes:
        return _wrap(_backend.new(g, "zeros", inp_sizes, g._array.dtype), g)
    kept = [(n_, st) for n_, st in zip(inp_sizes, inp_strides) if n_ != 1]
    inp_sizes_, inp_strides_ = [k[0] for k in kept], [k[1] for k in kept]
    shared = builtins.min(inp_offset, offset)
    inp_geometry = (inp_sizes_, inp_strides_, inp_offset - shared)
    out_geometry = (out_sizes, out_strides, offset - shared)
    size = builtins.max(_min_storage_size(*inp_geometry), _min_storage_size(*out_geometry))
    if _maybe_overlapping_memory(out_sizes, out_strides):
        storage = _index_add(reshape(g, (-1,)), size, _storage_index(size, out_geometry).reshape(-1))
    else:
        storage = _wrap(_backend.new(g, "zeros", size, g._array.dtype), g)
        copy_(as_strided(storage, out_sizes, out_strides, offset - shared), g)
    if _maybe_overlapping_memory(inp_sizes_, inp_strides_):
        count = _backend.new(g, "zeros", size, g._array.dtype)
        np.add.at(count, _storage_index(size, inp_geometry), 1)
        storage = div(storage, _wrap(count, g))
    return as_strided(storage, inp_sizes, inp_strides, inp_offset - shared)


def _index_select(g, idx):
    """g.index_select(0, idx) inside a formula (node IndexSelectBackward0)."""
    return _record(_S.IndexSelectBackward0, (g,), _wrap(g._array[idx], g), self_sym_size=g._array.shape[0],
                   index_array=idx)


def _index_add(src, size, idx):
    """zeros(size).index_add_(0, idx, src) for a 1-D src and idx (repeats add up),
    as as_strided_backward and index_select's backward run it."""
    z = _backend.new(src, "zeros", size, src._array.dtype)
    np.add.at(z, idx, src._array)
    zeros = _wrap(_backend.new(src, "zeros", size, src._array.dtype), src)
    return _record(_S.IndexAddBackward0, (zeros, src), _wrap(z, src), index_array=idx)


def _copy_slices_backward(grad, extra, fn, needs):
    """CopySlices' math (Note [View + Inplace update for base tensor]), as
    upstream writes it: the base's gradient copied into a tensor laid out as
    the base, the view's part of it taken with as_strided (at the view's
    offset from the base's), the wrapped in-place node run on a clone of that
    part, and its result copied back."""
    (b_shape, b_strides, b_offset), (v_shape, v_strides, v_offset) = extra
    extent = _min_storage_size(b_shape, b_strides, 0)
    result = _wrap(_backend.as_strided(
        _backend.new(grad, "empty", builtins.max(extent, 1), grad._array.dtype), b_shape,
        tuple(st * grad._array.itemsize for st in b_strides)), grad)
    copy_(result, grad)
    grad_slice = as_strided(result, v_shape, v_strides, v_offset - b_offset)
    res = _C._call_inplace_fn(fn, clone(grad_slice), needs)
    out = [None] * len(needs)
    for i, r in enumerate(res):
        if i < len(needs) and needs[i] and r is not None:
            if i == 0:
                copy_(grad_slice, r)
                out[0] = result
            else:
                out[i] = r
    return tuple(out)


_C._set_view_formulas(_S.AsStridedBackward0, _as_strided_fields, _view_geometry, _copy_slices_backward)
_C._set_sum_to(_reduce_output)


# More view ops ---------------------------------------------------------------------

def stride(self, dim=None):
    a = self._array
    strides = tuple(st // a.itemsize for st in a.strides)
    if dim is None:
        return strides
    return strides[_wrap_dim(_int_arg("stride", "dim", 1, dim), a.ndim, wrap_scalar=False)]


def as_strided(self, size, stride, storage_offset=None):
    """A view of self's storage (all of it: torch's, see View geometry) with
    these sizes, strides and offset, checked as torch's setStrided."""
    size, stride = tuple(size), tuple(stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(st < 0 for st in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: {list(stride)}")
    if any(n < 0 for n in size):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and strides={list(stride)}")
    own = self.storage_offset()
    offset = own if storage_offset is None else storage_offset
    a = self._array
    itemsize = a.itemsize
    need = 0 if 0 in size else (1 + builtins.sum((n - 1) * st for n, st in zip(size, stride))) * itemsize
    if need and need + offset * itemsize > self._storage_nbytes():
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, and itemsize "
            f"{itemsize} requiring a storage size of {need + offset * itemsize} are out of bounds for storage of "
            f"size {self._storage_nbytes()}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    arr = _placed(a, (offset - own) * itemsize, size, tuple(st * itemsize for st in stride))
    return _record_view(_S.AsStridedBackward0, self, _wrap(arr, self, True), self_geometry=_geometry(self), size=size,
                        stride=stride, storage_offset=offset)


def narrow(self, dim, start, length):
    a = self._array
    if a.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = _norm_dims(dim, a.ndim)[0]
    size = a.shape[d]
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if start < 0:
        start += size  # start == size stays: an empty narrow at the end keeps that offset
    if length < 0 or start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return _slice(self, d, slice(start, start + length))


def diagonal_backward(g, shape, idx, offset, d1, d2):
    """at::diagonal_backward: zeros of the input's shape with g on the diagonal (node
    DiagonalBackwardBackward0, whose own backward takes the diagonal again)."""
    z = _backend.new(g, "zeros", int(np.prod(shape)), g._array.dtype)
    z[idx.reshape(-1)] = g._array.reshape(-1)
    out = _wrap(z.reshape(shape), g)
    return _record(_S.DiagonalBackwardBackward0, (g,), out, offset=offset, dim1=d1, dim2=d2)


def diagonal(self, offset=0, dim1=0, dim2=1):
    a = self._array
    d1, d2 = _norm_dims(dim1, a.ndim)[0], _norm_dims(dim2, a.ndim)[0]
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = builtins.max(0, builtins.min(a.shape[d1] + builtins.min(offset, 0), a.shape[d2] - builtins.max(offset, 0)))
    rest = [i for i in range(a.ndim) if i not in (d1, d2)]
    st = a.strides
    begin = 0 if n == 0 else (offset * st[d2] if offset >= 0 else -offset * st[d1])
    arr = _placed(a, begin, tuple(a.shape[i] for i in rest) + (n,), tuple(st[i] for i in rest) + (st[d1] + st[d2],))
    return _view_of(arr, self, _S.DiagonalBackward0, self_sym_sizes=a.shape, flat_index=_flat_index(arr, a), offset=offset,
                    dim1=d1, dim2=d2)


def _split_views(self, spec, dim, sizes):
    a = self._array
    outs, begin = [], 0
    for size in sizes:
        outs.append(_wrap(_sliced(a, dim, slice(begin, begin + size)), self, True))
        begin += size
    return _record_multi_view(spec, self, tuple(outs), dim=dim, split_sizes=tuple(sizes), self_sym_sizes=a.shape,
                              self_dtype=a.dtype)


def split(self, split_size_or_sections, dim=0):
    a = self._array
    if a.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = _norm_dims(dim, a.ndim)[0]
    size = a.shape[d]
    if isinstance(split_size_or_sections, int):
        step = split_size_or_sections
        if step < 0 or (step == 0 and size != 0):
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}")
        # an empty dimension splits into one empty piece (at::split: at least one split)
        sizes = [builtins.min(step, size - i) for i in range(0, size, step)] if size else [0]
        return _split_views(self, _S.SplitBackward0, d, sizes)
    sizes = [int(x) for x in split_size_or_sections]
    if builtins.sum(sizes) != size or any(x < 0 for x in sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size at "
                           f"dimension {dim}), but got split_sizes={sizes}")
    return _split_views(self, _S.SplitWithSizesBackward0, d, sizes)


def chunk(self, chunks, dim=0):
    a = self._array
    if a.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
    size = a.shape[_norm_dims(dim, a.ndim)[0]]
    return split(self, (size + chunks - 1) // chunks if size else 0, dim) if size else \
        split(self, [0] * chunks, dim)


def unbind(self, dim=0):
    a = self._array
    # torch wraps the dim first: a 0-d tensor's is 0 or out of range
    d = _wrap_dim(_wrap_dim(dim, a.ndim), a.ndim, wrap_scalar=False)
    outs = tuple(_wrap(_selected(a, d, i), self, True) for i in range(a.shape[d]))
    return _record_multi_view(_S.UnbindBackward0, self, outs, dim=d, self_sym_sizes=a.shape, self_dtype=a.dtype)


# In-place ops ---------------------------------------------------------------------
# Each runs as upstream's VariableType does: the overlap checks, then
# _inplace_node (check_inplace; the node with the inputs' current edges and
# the saved tensors at their versions before the write), then the kernel and
# the version bump, then _rebase_history (Note [View + Inplace update for base
# tensor]).

_OVERLAP = ("unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
            "single memory location. Please clone() the tensor before performing the operation.")
_INTERNAL_OVERLAP = ("unsupported operation: more than one element of the written-to tensor refers to a single "
                     "memory location. Please clone() the tensor before performing the operation.")


def _non_overlapping_and_dense(a):
    dims = sorted((st, n) for st, n in zip(a.strides, a.shape) if n != 1)
    expected = a.itemsize
    for st, n in dims:
        if st != expected:
            return False
        expected *= n
    return True


def _check_overlap(a, b=None):
    """at::assert_no_internal_overlap(a) and at::assert_no_partial_overlap(a, b).
    True when b shares memory with a in a way torch does not check (its
    MemOverlapStatus::TooHard): the kernel then runs as torch's does, element by
    element (_sequential)."""
    if a.size > 1 and any(st == 0 and n > 1 for st, n in zip(a.strides, a.shape)):
        raise RuntimeError(_INTERNAL_OVERLAP)
    if b is None or a.size == 0 or b.size == 0 or not np.may_share_memory(a, b):
        return False
    if not (_non_overlapping_and_dense(a) and _non_overlapping_and_dense(b)):
        return np.shares_memory(a, b)
    a0, b0 = _data_ptr(a), _data_ptr(b)
    a1, b1 = a0 + a.nbytes, b0 + b.nbytes
    if a0 == b0 and a1 == b1:
        if a.strides == b.strides:  # the same memory laid out the same way
            return False
        raise RuntimeError(_OVERLAP)
    if a0 < b1 and b0 < a1:
        raise RuntimeError(_OVERLAP)
    return False


def _sequential(fn, a, b):
    """a[i] = fn(a[i], b[i]) one element at a time, in the order TensorIterator
    visits them (reorder_dimensions over the output and inputs): where b
    overlaps a, a later element reads what an earlier one wrote, as in torch
    (numpy would buffer the overlap away)."""
    outer_first = _iteration_order(a.shape, (a, a, b))[::-1]
    bb = np.broadcast_to(b, a.shape)
    index = [0] * a.ndim
    for idx in np.ndindex(*(a.shape[d] for d in outer_first)):
        for d, i in zip(outer_first, idx):
            index[d] = i
        at = tuple(index)
        a[at] = fn(a[at], bb[at])


def _write(ufunc, a, b, alpha=1):
    """The kernel of an in-place binary op: ufunc(a, b) (b scaled by add's and
    sub's alpha) into a, in the result dtype (Note [Type promotion]), after
    TensorIterator's checks (overlap, shape, result type), without numpy's
    floating-point warnings."""
    if ufunc is np.subtract:
        _sub_check(a.dtype, b.dtype if isinstance(b, _backend.array_types) else _number_dtype(b))
    sequential = False
    if isinstance(b, _backend.array_types):
        sequential = _check_overlap(a, b)
        _check_inplace_broadcast(a.shape, b.shape)
    else:
        _check_overlap(a)
    result = _result_type(a, b)
    if ufunc is np.true_divide:
        result = _float_dtype(result)
    if result.kind != a.dtype.kind:
        raise RuntimeError(f"result type {_torch_type_name(result)} can't be cast to the desired output type "
                           f"{_torch_type_name(a.dtype)}")
    operand = b
    if alpha.__class__ is not int or alpha != 1:
        _alpha_check(result, alpha)
        if result.kind == "f" and not sequential:
            _add_alpha(a, b, alpha if ufunc is np.add else -alpha, result, a)
            return
        b = _times_alpha(b, alpha, result)
    token = _quiet()
    try:
        if sequential:
            _sequential(ufunc if b is operand else lambda x, y: ufunc(x, _times_alpha(y, alpha, result)), a, operand)
        elif result == a.dtype and (not isinstance(b, _backend.array_types) or b.dtype == result):
            ufunc(a, b, out=a)
        else:
            ufunc(a, b, out=a, dtype=result)
    finally:
        _loud(token)


def _add_sub_(self, other, alpha, ufunc, spec):
    a = self._array
    if isinstance(other, _TB):
        node = _inplace_node(spec, (self, other), alpha=alpha)
        _write(ufunc, a, other._array, alpha)
    else:
        node = _inplace_node(spec, (self,), True, alpha=alpha)
        _write(ufunc, a, other, alpha)
    self._bump_version()
    return _rebase_history(self, node)


def add_(self, other, alpha=1):
    return _add_sub_(self, other, alpha, np.add, _S.AddBackward0)


def sub_(self, other, alpha=1):
    return _add_sub_(self, other, alpha, np.subtract, _S.SubBackward0)


def _mul_div_(self, other, ufunc, spec):
    a = self._array
    if isinstance(other, _TB):
        b = other._array
        # the original self for other's gradient (PyTorch's original_self), a
        # differentiable clone so double backward reaches self
        # check_inplace first, as upstream: the clone would refresh a stale view's grad_fn
        _C._check_inplace(self, self.requires_grad or other.requires_grad)
        orig = clone(self) if other.requires_grad and _C.is_grad_enabled() else None
        node = _inplace_node(spec, (self, other), self=orig,
                             other=other if self.requires_grad or spec is _S.DivBackward0 else None)
        _write(ufunc, a, b)
    else:
        node = _inplace_node(spec, (self,), True, other=other)
        _write(ufunc, a, other)
    self._bump_version()
    return _rebase_history(self, node)


def mul_(self, other):
    return _mul_div_(self, other, np.multiply, _S.MulBackward0)


def div_(self, other):
    return _mul_div_(self, other, np.true_divide, _S.DivBackward0)


def zero_(self):
    # fill_ and zero_ write without TensorIterator's overlap checks: an expanded tensor may be filled
    node = _inplace_node(_S.ZeroBackward0, (self,))
    self._array[...] = 0
    self._bump_version()
    return _rebase_history(self, node)


def fill_(self, value):
    if isinstance(value, _TB):
        if value._array.ndim:
            raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor with "
                               f"{value._array.ndim} dimensions.")
        node = _inplace_node(_S.FillBackward3, (self, value))
        # fill_ with a tensor copies it (at::fill_), so copy_'s internal-overlap
        # check applies; a value aliasing self is read first
        _check_overlap(self._array)
        token = _quiet()  # the value cast as it is: nan and inf to an integer silently, as in torch
        try:
            self._array[...] = value._array.copy()
        finally:
            _loud(token)
    else:
        node = _inplace_node(_S.FillBackward2, (self,))
        self._array[...] = _scalar_value(value, self._array.dtype)  # a number's conversion is checked
    self._bump_version()
    return _rebase_history(self, node)


def copy_(self, src):
    a = self._array
    if not isinstance(src, _TB):
        raise TypeError(f"copy_(): argument 'src' (position 1) must be Tensor, not {type(src).__name__}")
    b = src._array
    # copy_ into an integer or bool tensor is not differentiable
    node = _inplace_node(_S.CopyBackwards, (self, src), src_dtype=b.dtype) if a.dtype.kind == "f" else None
    # copy_impl returns before its TensorIterator (and its overlap checks) when src is
    # self's very view: the same memory, sizes, strides and dtype
    if not (a.dtype == b.dtype and a.shape == b.shape and a.strides == b.strides and _data_ptr(a) == _data_ptr(b)):
        sequential = _check_overlap(a, b)
        _check_inplace_broadcast(a.shape, b.shape)
        token = _quiet()  # nan and inf cast to an integer silently, as in torch
        try:
            if sequential:
                _sequential(lambda x, y: y, a, b)
            else:
                a[...] = b
        finally:
            _loud(token)
    self._bump_version()
    return _rebase_history(self, node)


def _index_put_zeros(g, key, vshape, vdtype):
    """torch's grad.index_put(indices, zeros_like(values)) (node IndexPutBackward0)."""
    out = _backend.xp(g).array(g._array, copy=True)
    if 0 not in _make_info(out.shape, key)[3]:  # an empty indexing result wrote nothing
        out[key] = 0
    zeros = _wrap(_backend.new(g, "zeros", vshape, vdtype), g)
    saved = tuple(_const(k, g) for k in _index_tensors(key))
    return _record(_S.IndexPutBackward0, (g, zeros), _wrap(out, g), indices=saved, key=key, values_shape=vshape,
                   values_dtype=vdtype)


def _expand_error(src, sizes, type_name):
    """at::expand's error for a tensor of shape `src` expanded to `sizes` (-1: keep the
    size), or None (at::infer_expand_geometry checks from the last dimension)."""
    if len(sizes) < len(src):
        return RuntimeError(f"expand({type_name}{{{list(src)}}}, size={list(sizes)}): the number of sizes "
                            f"provided ({len(sizes)}) must be greater or equal to the number of dimensions in "
                            f"the tensor ({len(src)})")
    for i in range(len(sizes) - 1, -1, -1):
        d = len(src) - len(sizes) + i
        size = src[d] if d >= 0 else 1
        target = sizes[i]
        if target == -1:
            if d < 0:
                return RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a leading, "
                                    f"non-existing dimension {i}")
            target = size
        if size != target and size != 1:
            return RuntimeError(f"The expanded size of the tensor ({target}) must match the existing size "
                                f"({size}) at non-singleton dimension {i}.  Target sizes: {list(sizes)}.  "
                                f"Tensor sizes: {list(src)}")
    return None


def _tensor_type_name(np_dtype):
    return f"torch.{_torch_type_name(np_dtype)}Tensor"


def _expand_type_name(np_dtype):
    """The type at::expand's errors print (Tensor::toString): the legacy tensor type
    name, which bool has not."""
    return "CPUBoolType" if np_dtype == _b1 else _tensor_type_name(np_dtype)


def _make_info(shape, key):
    """at::native::make_info for a key of whole-dimension slices and index arrays (what
    _apply_slicing leaves), with its errors in torch's order: each mask becomes the
    nonzero() indices of its dimensions (expandTensors, its shape checked first), the
    indices broadcast together, and moved with their dimensions to the front when they are
    not adjacent (transposeToFront). Returns (perm, entries, first, result shape): the
    order of the dimensions of `shape` (None: unchanged), one entry per dimension in that
    order (None, or the broadcast index array, the dimension's size and the index as
    given), the first indexed dimension, and the shape of the indexing result."""
    if any(isinstance(k, np.ndarray) and k.dtype not in (_i64, _b1) for k in key):
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    indices = []
    for k in key:
        if isinstance(k, np.ndarray) and k.dtype == np.bool_:
            for j, n in enumerate(k.shape):
                d = len(indices) + j
                if n != shape[d]:
                    raise IndexError(f"The shape of the mask {list(k.shape)} at index {j} does not match the shape "
                                     f"of the indexed tensor {list(shape)} at index {d}")
            indices.extend(np.nonzero(k))
        else:
            indices.append(k if isinstance(k, np.ndarray) else None)
    indices += [None] * (len(shape) - len(indices))
    given = [i for i in indices if i is not None]
    try:
        bshape = np.broadcast_shapes(*(i.shape for i in given))
    except ValueError:
        shapes = ", ".join(str(list(i.shape)) for i in given)
        raise IndexError(f"shape mismatch: indexing tensors could not be broadcast together with shapes {shapes}") \
            from None
    dims = [d for d, i in enumerate(indices) if i is not None]
    perm = None
    if dims[-1] - dims[0] + 1 != len(dims):
        perm = dims + [d for d, i in enumerate(indices) if i is None]
        shape, indices, dims = [shape[d] for d in perm], [indices[d] for d in perm], range(len(dims))
    first = dims[0]
    sizes = [shape[d] for d in dims]
    if 0 in sizes and 0 not in bshape:
        # torch's own check: no index is valid in an empty dimension
        raise IndexError("index is out of bounds for dimension with size 0")
    entries = [None if i is None else (np.broadcast_to(i.astype(np.int64, copy=False), bshape), n, i)
               for i, n in zip(indices, shape)]
    rshape = tuple(shape[:first]) + tuple(bshape) + tuple(shape[first + len(dims):])
    return perm, entries, first, rshape


def _out_of_bounds(index, size, j):
    return IndexError(f"index {index} is out of bounds for dimension {j} with size {size}")


def _first_bad(indexers):
    """The position of the first out-of-bounds index among flat sequences of (indices,
    size), and the error the kernel's Indexer raises there (None, None: all in bounds)."""
    bad = [(i < -n) | (i >= n) for i, n in indexers]
    anybad = np.logical_or.reduce(bad)
    if not anybad.any():
        return None, None
    p = int(np.argmax(anybad))
    j = next(j for j, b in enumerate(bad) if b[p])
    return p, _out_of_bounds(indexers[j][0][p], indexers[j][1], j)


def _index(a, key):
    """index(): a[key] for a key of whole slices and index arrays (_make_info's errors;
    an index out of bounds is an error only where the result has elements to read it).
    A 0-d mask (only in the formulas' keys: _apply_slicing unsqueezes) indexes as numpy's."""
    if any(isinstance(k, np.ndarray) and not k.ndim and k.dtype == np.bool_ for k in key):
        return a[key]
    perm, entries, first, rshape = _make_info(a.shape, key)
    if 0 in rshape:
        return _backend.new(a, "zeros", rshape, a.dtype)
    indexers = [(i.ravel(), n) for i, n, _ in (e for e in entries if e is not None)]
    _, err = _first_bad(indexers)
    if err is not None:
        raise err
    return a[key]


_OVERLAP_NO, _OVERLAP_PARTIAL, _OVERLAP_FULL, _OVERLAP_TOO_HARD = range(4)


def _overlap_status(a, b):
    """at::get_overlap_status of two arrays (the same tensor is `a is b`)."""
    if a is b:
        return _OVERLAP_FULL
    if a.size == 0 or b.size == 0:
        return _OVERLAP_NO
    if not (_non_overlapping_and_dense(a) and _non_overlapping_and_dense(b)):
        return _OVERLAP_TOO_HARD
    a0, b0 = _data_ptr(a), _data_ptr(b)
    a1, b1 = a0 + a.nbytes, b0 + b.nbytes
    if a0 == b0 and a1 == b1:
        return _OVERLAP_FULL if a.strides == b.strides else _OVERLAP_PARTIAL
    return _OVERLAP_PARTIAL if a0 < b1 and b0 < a1 else _OVERLAP_NO


def _has_internal_overlap(a):
    """at::has_internal_overlap(a) == MemOverlap::Yes: a dimension of more than one element with
    stride 0 (numpy gives an empty array strides 0: torchlite's empty tensors are dense)."""
    return a.size > 0 and any(st == 0 and n > 1 for st, n in zip(a.strides, a.shape))


def _index_operand(index, bshape, lead, trail):
    """The index tensor as make_index_put_iterator gives it to TensorIterator: expanded to
    the indices' common shape (inferExpandGeometry's strides, where the shape changes),
    then viewed with size-1 dimensions around it (reshape_indexer: computeStride's
    strides, which can break TensorIterator's ties between dimensions)."""
    elem = index.itemsize
    strides = index.strides if index.shape == bshape else _expanded_strides(index, bshape)
    shape = lead + tuple(bshape) + trail
    strides = _compute_stride(tuple(bshape), tuple(st // elem for st in strides), shape)
    return _Strided(shape, tuple(st * elem for st in strides))


class _Strided:
    """An operand's sizes and strides, as _iteration_order reads them."""

    def __init__(self, shape, strides):
        self.shape, self.strides, self.ndim = tuple(shape), tuple(strides), len(shape)


def _index_put_kernel(a, info, v):
    """index_put_'s CPU kernel (cpu_index_kernel over make_index_put_iterator): the
    elements of the indexing result in TensorIterator's order (the restrided self, the
    value, the index tensors), each checking its indices, then writing. An index out of
    bounds raises there, after the elements before it were written; of two writes to one
    location the later stays; a value sharing memory with self is read as it goes."""
    perm, entries, first, rshape = info
    ap = a.transpose(perm) if perm is not None else a
    if 0 in rshape:
        return
    given = [e for e in entries if e is not None]
    last = first + len(given)
    nb = len(given[0][0].shape)
    lead, trail = (1,) * first, (1,) * (len(rshape) - first - nb)
    src = _Strided(rshape, ap.strides[:first] + (0,) * nb + ap.strides[last:])
    operands = [src, v] + [_index_operand(i, given[0][0].shape, lead, trail) for _, _, i in given]
    outer_first = _iteration_order(rshape, operands)[::-1]
    # coordinates in ap of each element of the result, in iteration order
    grids = np.indices(rshape, sparse=True)
    coords = []
    for d in range(ap.ndim):
        if first <= d < last:
            i = given[d - first][0]
            c = np.broadcast_to(i.reshape(lead + i.shape + trail), rshape)
        else:
            c = np.broadcast_to(grids[d if d < first else d - len(given) + nb], rshape)
        coords.append(c.transpose(outer_first).ravel())
    p, err = _first_bad([(coords[d], ap.shape[d]) for d in range(first, last)])
    count = coords[0].size if p is None else p
    coords = [np.where(c[:count] < 0, c[:count] + n, c[:count]) for c, n in zip(coords, ap.shape)]
    values = np.broadcast_to(v, rshape).transpose(outer_first)
    if np.may_share_memory(a, v):
        for t, at in enumerate(np.ndindex(*values.shape)):
            if t == count:
                break
            ap[tuple(int(c[t]) for c in coords)] = values[at]
    elif count:
        # one write per memory location, the last in iteration order
        offsets = builtins.sum(c * st for c, st in zip(coords, ap.strides))
        _, rev = np.unique(offsets[::-1], return_index=True)
        keep = count - 1 - rev
        ap[tuple(c[keep] for c in coords)] = values.reshape(-1)[keep]
    if err is not None:
        raise err


def _python_type_name(x):
    t = type(x)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"


def _scalar_value(x, dtype):
    """A number as c10's Scalar::to<T> converts it to `dtype` (checked_convert): beyond
    int64's range or float32's (inf and nan pass to a float), or nan to int64, is an
    error; any number converts to bool."""
    if dtype == _b1:
        return np.bool_(bool(x))
    if isinstance(x, complex):
        if x.imag:
            raise RuntimeError(f"value cannot be converted to type {_C_TYPE[dtype]} without overflow")
        x = x.real
    if dtype == _i64 and isinstance(x, int) and not -2 ** 63 <= x < 2 ** 63:
        raise RuntimeError("value cannot be converted to type int64_t without overflow")
    if dtype == _i64 and isinstance(x, float):
        if not -2.0 ** 63 <= x <= 2.0 ** 63:  # nan too
            raise RuntimeError("value cannot be converted to type int64_t without overflow")
        return np.int64(int(x) if x < 2.0 ** 63 else -2 ** 63)  # 2**63 casts to int64's lowest, as in C++
    if dtype == _f32 and isinstance(x, float) and _F32_MAX < builtins.abs(x) < float("inf"):
        raise RuntimeError("value cannot be converted to type float without overflow")
    return dtype.type(x)


_C_TYPE = {_i64: "int64_t", _f32: "float", _f64: "double"}


def _value_to_tensor(value, like):
    """python_variable_indexing.cpp's valueToTensor: a tensor as is; a Python number (or a
    numpy integer) as a 0-d tensor of like's dtype; anything else a TypeError."""
    if isinstance(value, _TB):
        return value
    dtype = like._array.dtype
    if isinstance(value, (bool, int, np.integer)) and not isinstance(value, np.bool_) or \
            isinstance(value, (float, complex)):
        if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and \
                not -2 ** 63 <= int(value) < 2 ** 63:
            raise ValueError("Overflow when unpacking long long")
        return _wrap(_backend.asarray(_scalar_value(value, dtype), like=like), like)
    raise TypeError(f"can't assign a {_python_type_name(value)} to a {_tensor_type_name(dtype)}")


def _strip_leading_ones(value, always):
    """The value of x[key] = value viewed without its leading size-1 dimensions
    (slicePrefix1sSize): copy_to always views it, index_put_ only when that
    changes its shape."""
    shape = value._array.shape
    while shape and shape[0] == 1:
        shape = shape[1:]
    return view(value, shape) if always or shape != value._array.shape else value


def _copy_to(dst, src):
    """python_variable_indexing.cpp's copy_to: copy_ for the same sizes, fill_
    for a 0-dim value, else copy_ of the value viewed and expanded to dst."""
    if dst._array.shape == src._array.shape:
        return copy_(dst, src)
    if src._array.ndim == 0:
        return fill_(dst, src)
    src = _strip_leading_ones(src, True)
    if src._array.shape != dst._array.shape:
        err = _expand_error(src._array.shape, dst._array.shape, _expand_type_name(src._array.dtype))
        if err is not None:
            raise err
        src = expand(src, dst._array.shape)
    return copy_(dst, src)


_EXPANDED_INDEX_PUT = ("Use of index_put_ on expanded tensors is deprecated. Please clone() the tensor before "
                       "performing this operation. This also applies to advanced indexing e.g. tensor[indices] = "
                       "tensor")
_EXPANDED_MASKED_FILL = ("Use of masked_fill_ on expanded tensors is deprecated. Please clone() the tensor before "
                         "performing this operation. This also applies to advanced indexing e.g. tensor[mask] = "
                         "scalar")


def _masked_fill_dispatch(a, key, v):
    """canDispatchToMaskedFill: a one-element value and one mask as the only index. Its
    loop checks each mask's shape as it meets it, so a bad first mask raises even where a
    later index rules the dispatch out."""
    if v.size != 1:
        return False
    mask, d = None, 0
    for k in key:
        if not isinstance(k, np.ndarray):
            d += 1
            continue
        if k.dtype != np.bool_ or mask is not None:
            return False
        for j, n in enumerate(k.shape):
            if n != a.shape[d + j]:
                raise IndexError(f"The shape of the mask {list(k.shape)} at index {j} does not match the shape "
                                 f"of the indexed tensor {list(a.shape)} at index {d + j}")
        mask, d = k, d + k.ndim
    return True


def _index_put_(self, key, value):
    """index_put_ (_index_put_impl_) in torch's order: check_inplace, the expanded-self
    warning, one mask with a one-element value as masked_fill_, the overlap checks of self
    with the value and the indices, make_info, the value's shape, the dtypes, the kernel."""
    a, v = self._array, value._array
    # IndexPutBackward0 saves the index tensors (torch's `indices`), as IndexBackward0 does
    saved = tuple(_const(k, self) for k in _index_tensors(key))
    node = _inplace_node(_S.IndexPutBackward0, (self, value), indices=saved, key=key, values_shape=v.shape,
                         values_dtype=v.dtype)
    expanded = _has_internal_overlap(a)
    if expanded:
        warnings.warn(_EXPANDED_INDEX_PUT, UserWarning, stacklevel=3)
    arrays = [k for k in key if isinstance(k, np.ndarray)]
    if _masked_fill_dispatch(a, key, v):
        # self.masked_fill_(mask, value.item())
        if expanded:
            warnings.warn(_EXPANDED_MASKED_FILL, UserWarning, stacklevel=3)
        if _overlap_status(a, arrays[0]) == _OVERLAP_PARTIAL:
            raise RuntimeError(_OVERLAP)
        a[key] = _scalar_value(v.reshape(()).item(), a.dtype)
    else:
        # at::assert_no_overlap: the value (the same tensor counts) and each index
        if self is value or _overlap_status(a, v) in (_OVERLAP_PARTIAL, _OVERLAP_FULL) or \
                any(_overlap_status(a, k) in (_OVERLAP_PARTIAL, _OVERLAP_FULL) for k in arrays):
            raise RuntimeError(_OVERLAP)
        info = _make_info(a.shape, key)
        target = info[3]
        if len(v.shape) > len(target) or any(s not in (1, t) for s, t in zip(v.shape[::-1], target[::-1])):
            raise RuntimeError(f"shape mismatch: value tensor of shape {list(v.shape)} cannot be broadcast to "
                               f"indexing result of shape {list(target)}")
        if a.dtype != v.dtype:
            raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                               f"{_torch_type_name(a.dtype)} for the destination and {_torch_type_name(v.dtype)} "
                               f"for the source.")
        _index_put_kernel(a, info, v)
    self._bump_version()
    return _rebase_history(self, node)


def setitem(self, key, value):
    """x[key] = value as torch does it (python_variable_indexing.cpp): the value made a
    tensor first; the key's basic part applied as views, then copy_to on the result (so
    CopySlices over CopyBackwards or FillBackward3 where the result is a view), or
    index_put_ with the index tensors."""
    key = _key_of(key)
    value = _value_to_tensor(value, self)
    if key is False:
        return
    if key is True:
        _copy_to(unsqueeze(self, 0), value)
        return
    lone = isinstance(key, (int, np.integer, slice))
    sliced, index = _apply_slicing(self, key if isinstance(key, tuple) else (key,), lone=lone)
    if index is None:
        _copy_to(sliced, value)
    else:
        _index_put_(sliced, index, _strip_leading_ones(value, False))


def delitem(self, key):
    raise TypeError("Tensor does not support deleting items")


# Conversions ----------------------------------------------------------------------

def to(self, *args, dtype=None, device=None, copy=False):
    from ._dtypes import device as _device, dtype as _dtype, _from_numpy_dtype
    for arg in args:
        if isinstance(arg, _dtype):
            dtype = arg
        elif isinstance(arg, (str, _device)):
            device = arg
        elif isinstance(arg, _TB):
            dtype, device = arg.dtype, arg.device
    a = self._array
    src_dtype = _from_numpy_dtype(a.dtype)
    src_device = self.device
    new_dtype = dtype is not None and dtype is not src_dtype
    if device is not None and _device(device).type == "cuda":
        device = _backend.check_device(device)  # "cuda" is cuda:<current device>
    new_device = device is not None and _device(device) != src_device
    if not (new_dtype or new_device or copy):
        return self
    target = dtype._np if new_dtype else a.dtype
    if not new_device and self.requires_grad and target.kind == "f" and _below_autograd(self):
        return _copy_of_inference(self, _empty_like(a, target, self))
    token = _quiet()  # nan and inf cast to an integer silently, as in torch
    try:
        r = _copy_like(a, dtype._np if new_dtype else a.dtype, None if new_device else self)
    finally:
        _loud(token)
    if new_device:
        out = _backend.place(_wrap(r), _backend.check_device(device))  # made on the CPU, then placed
    else:
        out = _wrap(r, self)
    if r.dtype.kind != "f":
        return out  # an integer or bool result never requires grad (torch's isDifferentiableType)
    return _record(_S.ToCopyBackward0, (self,), out, self_dtype=src_dtype, self_device=src_device)


# Combining tensors --------------------------------------------------------------

def _cat_dtype(arrays):
    """The result dtype of cat and stack: promote_types over the inputs (Note [Type promotion])."""
    return functools.reduce(_promote_types, [a.dtype for a in arrays])




def _cat_error(arrays, valid, dim):
    """at::cat's shape error, each tensor not skipped checked against the first one, or None."""
    ref = arrays[valid[0]].shape
    for i in valid[1:]:
        a = arrays[i]
        if a.ndim != len(ref):
            return RuntimeError(f"Tensors must have same number of dimensions: got {len(ref)} and {a.ndim}")
        for d, (n, m) in enumerate(zip(ref, a.shape)):
            if d != dim and n != m:
                return RuntimeError(f"Sizes of tensors must match except in dimension {dim}. Expected size {n} "
                                    f"but got size {m} for tensor number {i} in the list.")
    return None


def stack(tensors, dim=0):
    tensors = tuple(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    arrays = [t._array for t in tensors]
    n = arrays[0].ndim + 1
    d = _norm_dims(dim, n)[0]
    dtype = _cat_dtype(arrays)
    try:
        r = np.stack(arrays, axis=d, dtype=dtype)
    except ValueError:
        i = next(i for i, a in enumerate(arrays) if a.shape != arrays[0].shape)
        raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(arrays[0].shape)} "
                           f"at entry 0 and {list(arrays[i].shape)} at entry {i}") from None
    out = _wrap(_backend.ascontiguousarray(r), tensors[0])  # numpy keeps its inputs' layout; torch's result is contiguous
    return _record(_S.StackBackward0, tensors, out, dim=d, tensors_dtypes=[a.dtype for a in arrays])


def _cat_skipped(a):
    """at::native::cat_should_skip_tensor: a 1-D empty tensor takes no part in cat (legacy
    behaviour, from when it was the only empty shape): not in the shape checks, nor in the
    wrapping of dim; it still counts in the result dtype."""
    return a.ndim == 1 and a.size == 0


def cat(tensors, dim=0):
    if isinstance(tensors, _TB):
        raise TypeError("cat(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor")
    tensors = tuple(tensors)
    for i, t in enumerate(tensors):
        if not isinstance(t, _TB):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool):
        raise TypeError(f"cat(): argument 'dim' (position 2) must be int, not {type(dim).__name__}")
    dim = int(dim)
    arrays = [t._array for t in tensors]
    for i, a in enumerate(arrays):
        if not a.ndim:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    valid = [i for i, a in enumerate(arrays) if not _cat_skipped(a)]
    # legacy_cat_wrap_dim: against the first tensor not skipped, else dim as given
    d = _norm_dims(dim, arrays[valid[0]].ndim)[0] if valid else dim
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    dtype = _cat_dtype(arrays)
    if valid:
        err = _cat_error(arrays, valid, d)
        if err is not None:
            raise err
        r = np.concatenate([arrays[i] for i in valid], axis=d, dtype=dtype)
    else:
        r = _backend.new(tensors[0], "zeros", 0, dtype)
    out = _wrap(_backend.ascontiguousarray(r), tensors[0])
    sizes = tuple(None if _cat_skipped(a) else a.shape[d] for a in arrays)
    return _record(_S.CatBackward0, tensors, out, dim=d, tensors_sizes=sizes, tensors_dtypes=[a.dtype for a in arrays])


def where(condition, input, other):  # noqa: A002 - torch's names
    c = condition._array if isinstance(condition, _TB) else _backend.asarray(condition)
    if c.dtype != np.bool_:
        raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor with dtype "
                           + _torch_type_name(c.dtype))
    like = input if isinstance(input, _TB) else other if isinstance(other, _TB) else condition
    a = input._array if isinstance(input, _TB) else input
    b = other._array if isinstance(other, _TB) else other
    da = a.dtype if isinstance(a, _backend.array_types) else None
    db = b.dtype if isinstance(b, _backend.array_types) else None
    if da is not None:
        dtype = _result_type(a, b)
    elif db is not None:
        dtype = _result_type(b, a)
    else:
        dtype = _promote_types(_number_dtype(a), _number_dtype(b))
    if da is None:
        _checked_number(a, dtype)
    if db is None:
        _checked_number(b, dtype)
    token = _quiet()  # a value cast to float32 overflows to inf silently, as in torch
    try:
        # the operands cast to the result dtype first (laid out as `to` lays a copy out), as torch's where does
        if da is not None and da != dtype:
            a = _copy_like(a, dtype, like)
        if db is not None and db != dtype:
            b = _copy_like(b, dtype, like)
        w = _backend.asarray(np.where(c, a, b))
        # into the output of where's TensorIterator over condition, input and other
        r = _out(w.shape, dtype, like, c, *(x if isinstance(x, _backend.array_types) else _WRAPPED_NUMBER
                                           for x in (a, b)), promote=False)
        if r is None:
            r = w.astype(dtype, copy=False)
        else:
            np.copyto(r, w, casting="unsafe")
        # a Python number is wrapped as a tensor that never requires grad (torch's scalar_to_tensor)
        input = input if da is not None else _const(_backend.asarray(a, dtype), like)  # noqa: A001
        other = other if db is not None else _const(_backend.asarray(b, dtype), like)
    except ValueError:
        _broadcast_shapes(_broadcast_shapes(c.shape, np.shape(a)), np.shape(b))
        raise
    finally:
        _loud(token)
    out = _wrap(r, like)
    a, b = input._array, other._array
    cond = condition if isinstance(condition, _TB) else _const(c, like)
    return _record(_S.WhereBackward0, (input, other), out, (cond,), condition=cond)


# Comparisons (never differentiable) ------------------------------------------------

def _compare(np_fn, self, other):
    """A comparison, in the operands' result dtype as torch compares (Note [Type promotion])."""
    a = self._array
    b = other._array if isinstance(other, _TB) else other
    if not isinstance(b, (*_backend.array_types, bool, int, float, np.number, np.bool_)):
        return NotImplemented  # as torch's operators: `t == None` is False, `t < None` a TypeError
    token = _quiet()  # a number cast to float32 overflows to inf silently, as in torch
    try:
        array = isinstance(b, _backend.array_types)
        dtype = _result_type(a, b)
        # the inputs promoted with `to` (compute_types), then the bool output laid out by
        # the comparison's TensorIterator
        if a.dtype != dtype:
            a = _copy_like(a, dtype, self)
        if array and b.dtype != dtype:
            b = _copy_like(b, dtype, self)
        shape = a.shape if not array or a.shape == b.shape else _broadcast_shapes(a.shape, b.shape)
        out = _out(shape, _b1, self, a, b if array else _WRAPPED_NUMBER, promote=False)
        return _wrap(_backend.asarray(np_fn(a, b, out=out)), self)
    except ValueError:
        _broadcast_shapes(a.shape, b.shape)  # torch's error where the shapes do not broadcast
        raise
    finally:
        _loud(token)


def zeros_like(self, dtype=None):
    a = self._array
    return _wrap(_backend.new(a, "zeros", a.shape, dtype=dtype._np if dtype is not None else a.dtype), self)


def ones_like(self, dtype=None):
    a = self._array
    return _wrap(_backend.new(a, "ones", a.shape, dtype=dtype._np if dtype is not None else a.dtype), self)
