"""The differentiable ops: forward kernels and their derivative formulas.

This module plays the part of PyTorch's native functions plus
tools/autograd/derivatives.yaml. Each op computes its forward with numpy,
wraps the result (`_wrap`, zero-copy) and calls `_record`, which, when grad
mode is on and an input requires grad, makes a C++ node named as PyTorch
names it (MulBackward0, ...) that keeps the saved tensors as SavedVariables
(version-checked) and calls the formula below during backward.

A formula is `fn(grad, saved, extra, needs)`: `saved` the unpacked saved
tensors, `extra` the op's non-tensor arguments, `needs[i]` whether input i
needs a gradient. It returns one gradient (or None) per tensor input and is
written with these same ops, so create_graph=True differentiates through it.
Formulas reduce broadcast gradients themselves (`_sum_to`) for the same reason.

An op between a tensor and a Python number calls `_record_number` instead,
which wraps the number in C++ as PyTorch does.

The third argument of `_op_spec`, where given, names the same formula in C++
(csrc/autograd/FunctionsManual.h): a first-order backward then runs it
without taking the GIL (Note [GIL-free formulas]).
"""
import functools

import numpy as np

from . import _C
from ._C import _empty_array, _op_spec, _record, _record_number, _wrap
from ._dtypes import _from_numpy_dtype

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


def _promote(r, da, db):
    """numpy's result dtype corrected to torch's: float64 only from a float64 operand."""
    # (a None dtype is a Python scalar; numpy would read None as float64)
    if r.dtype == _f64 and (da is None or da != _f64) and (db is None or db != _f64):
        return r.astype(_f32)
    return r


def _float_result(r, a):
    """Unary float functions of integer tensors give float32 in torch (float64 in numpy)."""
    if r.dtype == _f64 and a.dtype != _f64:
        return r.astype(_f32)
    return r


def _sum_to(g, shape, dtype=None):
    """Sums a broadcast gradient back to `shape` (at::sum_to), differentiably; with `dtype`
    (an operand of another dtype than the result), casts it back, as torch's engine does,
    here so that create_graph=True records the cast."""
    if dtype is not None and g._array.dtype != dtype:
        g = to(g, dtype=_from_numpy_dtype(dtype))
    gshape = g._array.shape
    if gshape == shape:
        return g
    lead = len(gshape) - len(shape)
    if lead < 0:  # a setitem value whose leading 1s were dropped (x[i] = t with t of shape (1,))
        return reshape(_sum_to(g, shape[-lead:]), shape)
    dims = tuple(range(lead)) + tuple(
        i + lead for i, s in enumerate(shape) if s == 1 and gshape[i + lead] != 1)
    if dims:
        g = sum(g, dims, True)
    if lead or g._array.shape != shape:
        g = reshape(g, shape)
    return g


def _const(arr, like):
    """A tensor that never requires grad (masks, constants inside formulas)."""
    return _wrap(np.asarray(arr), like)



# Output buffers ---------------------------------------------------------------------
# Where the result's dtype is a float operand's own, ops compute into a buffer
# of C++ memory (_C._empty_array) instead of a fresh numpy array: the tensor
# then owns its memory in C++, and the engine frees what a node saved without
# taking the GIL (Note [Releasing arrays without the GIL]).

def _float_out(a, other_dtype=None):
    """Whether a result of `a` with an operand of `other_dtype` (None: a Python
    number) has a's float dtype."""
    return a.dtype.kind == "f" and (other_dtype is None or other_dtype == a.dtype)


def _is_number(x):
    return isinstance(x, (bool, int, float))


def _scaled(b, alpha):
    token = _quiet()
    try:
        return b * alpha
    finally:
        _loud(token)


def _bshape(a, b):
    return a.shape if a.shape == b.shape else np.broadcast_shapes(a.shape, b.shape)


def _check_inplace_broadcast(shape, other_shape):
    """torch's errors for an in-place op (self.add_(other), ...) whose other operand
    does not broadcast to self's shape: the sizes must match, and self is not resized
    (TensorIterator's compute_shape, then its output check)."""
    if other_shape != shape:
        full = _broadcast_shapes(shape, other_shape)
        if full != tuple(shape):
            raise RuntimeError(f"output with shape {list(shape)} doesn't match the broadcast shape {list(full)}")


def _binary(ufunc, self, a, b):
    """ufunc(a, b) for a tensor's array `a` and an array or Python number `b`,
    with torch's result dtype."""
    token = _quiet()
    try:
        if _is_number(b):
            if _float_out(a):
                return ufunc(a, b, out=_empty_array(a.shape, a.dtype, self))
            return _promote(ufunc(a, b), a.dtype, None)
        if _float_out(a, b.dtype):
            return ufunc(a, b, out=_empty_array(_bshape(a, b), a.dtype, self))
        return _promote(ufunc(a, b), a.dtype, b.dtype)
    except ValueError:
        _broadcast_shapes(a.shape, np.shape(b))  # raises torch's error where the shapes do not broadcast
        raise
    finally:
        _loud(token)


# Binary arithmetic ---------------------------------------------------------------

def _add_bw(g, s, e, n):
    sa, sb, alpha, da, db = e
    gb = g if alpha == 1 else mul(g, alpha)
    return (_sum_to(g, sa, da) if n[0] else None, _sum_to(gb, sb, db) if n[1] else None)


def _add_scalar_bw(g, s, e, n):
    return (g, None)


def _sub_bw(g, s, e, n):
    sa, sb, alpha, da, db = e
    return (_sum_to(g, sa, da) if n[0] else None,
            _sum_to(mul(g, -alpha), sb, db) if n[1] else None)


def _rsub_bw(g, s, e, n):
    return (neg(g),)


def _mul_bw(g, s, e, n):
    self, other = s
    sa, sb, da, db = e
    return (_sum_to(mul(g, other), sa, da) if n[0] else None,
            _sum_to(mul(g, self), sb, db) if n[1] else None)


def _mul_scalar_bw(g, s, e, n):
    return (mul(g, e), None)


def _div_bw(g, s, e, n):
    self, other = s
    sa, sb, da, db = e
    ga = _sum_to(div(g, other), sa, da) if n[0] else None
    gb = _sum_to(mul(neg(g), div(div(self, other), other)), sb, db) if n[1] else None
    return (ga, gb)


def _div_scalar_bw(g, s, e, n):
    return (div(g, e), None)


_ADD = _op_spec("AddBackward0", _add_bw, "add_tensor")
_ADD_S = _op_spec("AddBackward0", _add_scalar_bw, "add_scalar")
_SUB = _op_spec("SubBackward0", _sub_bw, "sub_tensor")
_SUB_S = _op_spec("SubBackward0", _add_scalar_bw, "add_scalar")
_RSUB = _op_spec("RsubBackward1", _rsub_bw)
_MUL = _op_spec("MulBackward0", _mul_bw, "mul_tensor")
_MUL_S = _op_spec("MulBackward0", _mul_scalar_bw, "mul_scalar")
_DIV = _op_spec("DivBackward0", _div_bw)
_DIV_S = _op_spec("DivBackward0", _div_scalar_bw, "div_scalar")


def add(self, other, alpha=1):
    a = self._array
    if isinstance(other, _TB):
        b = other._array
        out = _wrap(_binary(np.add, self, a, b if alpha == 1 else _scaled(b, alpha)), self)
        return _record(_ADD, (self, other), out, (), (a.shape, b.shape, alpha, a.dtype, b.dtype))
    out = _wrap(_binary(np.add, self, a, other * alpha), self)
    return _record_number(_ADD_S, self, out, other, False)


def sub(self, other, alpha=1):
    a = self._array
    if isinstance(other, _TB):
        b = other._array
        out = _wrap(_binary(np.subtract, self, a, b if alpha == 1 else _scaled(b, alpha)), self)
        return _record(_SUB, (self, other), out, (), (a.shape, b.shape, alpha, a.dtype, b.dtype))
    out = _wrap(_binary(np.subtract, self, a, other * alpha), self)
    return _record_number(_SUB_S, self, out, other, False)


def rsub(self, other):
    a = self._array
    token = _quiet()
    try:
        r = np.subtract(other, a)
    finally:
        _loud(token)
    out = _wrap(_promote(r, a.dtype, None), self)
    return _record(_RSUB, (self,), out, (), None)


def mul(self, other):
    a = self._array
    if isinstance(other, _TB):
        b = other._array
        out = _wrap(_binary(np.multiply, self, a, b), self)
        # PyTorch saves each operand only when the other one needs it.
        saved = (self if other.requires_grad else None, other if self.requires_grad else None)
        return _record(_MUL, (self, other), out, saved, (a.shape, b.shape, a.dtype, b.dtype))
    out = _wrap(_binary(np.multiply, self, a, other), self)
    return _record_number(_MUL_S, self, out, other, True)


def div(self, other):
    a = self._array
    if isinstance(other, _TB):
        b = other._array
        out = _wrap(_binary(np.true_divide, self, a, b), self)
        saved = (self if other.requires_grad else None, other)
        return _record(_DIV, (self, other), out, saved, (a.shape, b.shape, a.dtype, b.dtype))
    out = _wrap(_binary(np.true_divide, self, a, other), self)
    return _record_number(_DIV_S, self, out, other, True)


def rdiv(self, other):
    return mul(reciprocal(self), other)


# Unary functions --------------------------------------------------------------------

def _neg_bw(g, s, e, n):
    return (neg(g),)


def _exp_bw(g, s, e, n):
    return (mul(g, s[0]),)


def _log_bw(g, s, e, n):
    return (div(g, s[0]),)


def _sin_bw(g, s, e, n):
    return (mul(g, cos(s[0])),)


def _cos_bw(g, s, e, n):
    return (mul(g, neg(sin(s[0]))),)


def _tanh_bw(g, s, e, n):
    r = s[0]
    return (mul(g, rsub(mul(r, r), 1)),)


def _sigmoid_bw(g, s, e, n):
    r = s[0]
    return (mul(g, mul(r, rsub(r, 1))),)


def _relu_bw(g, s, e, n):
    return (threshold_backward(g, s[0], 0),)


def _abs_bw(g, s, e, n):
    return (mul(g, sgn(s[0])),)


def _sqrt_bw(g, s, e, n):
    return (div(g, mul(s[0], 2)),)


def _reciprocal_bw(g, s, e, n):
    r = s[0]
    return (mul(neg(g), mul(r, r)),)


_NEG = _op_spec("NegBackward0", _neg_bw, "neg")
_EXP = _op_spec("ExpBackward0", _exp_bw, "exp")
_LOG = _op_spec("LogBackward0", _log_bw)
_SIN = _op_spec("SinBackward0", _sin_bw)
_COS = _op_spec("CosBackward0", _cos_bw)
_TANH = _op_spec("TanhBackward0", _tanh_bw, "tanh")
_SIGMOID = _op_spec("SigmoidBackward0", _sigmoid_bw, "sigmoid")
_RELU = _op_spec("ReluBackward0", _relu_bw, "relu")
_ABS = _op_spec("AbsBackward0", _abs_bw)
_SQRT = _op_spec("SqrtBackward0", _sqrt_bw)
_RECIPROCAL = _op_spec("ReciprocalBackward0", _reciprocal_bw)


def _threshold_backward_bw(g, s, e, n):
    return (threshold_backward(g, s[0], e) if n[0] else None, zeros_like(g) if n[1] else None)


def _sgn_bw(g, s, e, n):
    return (zeros_like(g),)


_THRESHOLD_BACKWARD = _op_spec("ThresholdBackwardBackward0", _threshold_backward_bw)
_SGN = _op_spec("SgnBackward0", _sgn_bw)


def threshold_backward(grad_output, self, threshold):
    """The gradient of relu (at::threshold_backward): grad_output where self > threshold
    (and where self is nan), else 0; differentiable, so relu's double backward works."""
    g = grad_output._array
    r = np.where(self._array <= threshold, g.dtype.type(0), g)
    out = _wrap(r, grad_output)
    return _record(_THRESHOLD_BACKWARD, (grad_output, self), out, (self,), threshold)


def sgn(self):
    """The sign of each element, 0 for 0 and nan (at::sgn): abs's gradient is grad * sgn(x)."""
    a = self._array
    r = np.sign(a)
    if a.dtype.kind == "f":
        r = np.where(np.isnan(a), r.dtype.type(0), r)
    return _record(_SGN, (self,), _wrap(r, self), (), None)


def neg(self):
    out = _wrap(np.negative(self._array), self)
    return _record(_NEG, (self,), out, (), None)


def _float_unary(np_fn, spec, saves_result):
    """An elementwise op whose result is floating point (ints promote to float32);
    its node saves the result (exp, tanh, sqrt) or the input (log, sin, cos), as PyTorch's does."""
    def op(self):
        a = self._array
        token = _quiet()
        try:
            r = np_fn(a, out=_empty_array(a.shape, a.dtype, self)) if _float_out(a) else _float_result(np_fn(a), a)
        finally:
            _loud(token)
        out = _wrap(r, self)
        return _record(spec, (self,), out, (out,) if saves_result else (self,), None)
    op.__name__ = op.__qualname__ = np_fn.__name__
    return op


exp = _float_unary(np.exp, _EXP, saves_result=True)
log = _float_unary(np.log, _LOG, saves_result=False)
sin = _float_unary(np.sin, _SIN, saves_result=False)
cos = _float_unary(np.cos, _COS, saves_result=False)
tanh = _float_unary(np.tanh, _TANH, saves_result=True)
sqrt = _float_unary(np.sqrt, _SQRT, saves_result=True)


def sigmoid(self):
    a = self._array
    token = _quiet()
    try:
        r = _float_result(1.0 / (1.0 + np.exp(-a)), a)
    finally:
        _loud(token)
    out = _wrap(r.astype(a.dtype, copy=False) if a.dtype.kind == "f" else r, self)
    return _record(_SIGMOID, (self,), out, (out,), None)


def relu(self):
    a = self._array
    r = np.maximum(a, 0, out=_empty_array(a.shape, a.dtype, self)) if _float_out(a) else \
        np.maximum(a, 0).astype(a.dtype, copy=False)
    out = _wrap(r, self)
    return _record(_RELU, (self,), out, (out,), None)


def abs(self):  # noqa: A001 - torch's name
    out = _wrap(np.abs(self._array), self)
    return _record(_ABS, (self,), out, (self,), None)


def reciprocal(self):
    a = self._array
    token = _quiet()
    try:
        r = np.reciprocal(a.astype(_f32) if a.dtype.kind != "f" else a)
    finally:
        _loud(token)
    out = _wrap(_float_result(r, a), self)
    return _record(_RECIPROCAL, (self,), out, (out,), None)


# pow ---------------------------------------------------------------------------------

# The formulas of torch's pow_backward, pow_backward_self and pow_backward_exponent
# (FunctionsManual.cpp): where x ** (y - 1) or log(x) is inf or nan but the
# derivative is 0 (y == 0; x == 0 with y >= 0), `where` picks 0, so the double
# backward stays finite there too.

def _pow_scalar_bw(g, s, e, n):
    self = s[0]
    if e == 0:
        return (zeros_like(self),)
    return (mul(g, mul(pow(self, e - 1), e)),)


def _pow_tensor_bw(g, s, e, n):
    self, exponent, result = s
    sa, sb, da, db = e
    ga = gb = None
    if n[0]:
        d = mul(g, mul(exponent, pow(self, sub(exponent, 1))))
        ga = _sum_to(where(_const(exponent._array == 0, g), 0.0, d), sa, da)
    if n[1]:
        x = self if self._array.dtype == result._array.dtype else to(self, result.dtype)
        zero = _const((self._array == 0) & (exponent._array >= 0), g)
        gb = _sum_to(mul(g, where(zero, 0.0, mul(result, log(x)))), sb, db)
    return (ga, gb)


def _rpow_bw(g, s, e, n):
    result = s[0]
    token = _quiet()
    try:
        log_base = float(np.log(float(e)))
    finally:
        _loud(token)
    d = mul(result, log_base)
    if e == 0:
        # torch's where(y >= 0, 0, ...); 0 ** y is 0 or 1 exactly where y >= 0 (inf or nan elsewhere)
        d = where(_const(result._array <= 1, g), 0.0, d)
    return (mul(g, d),)


_POW_S = _op_spec("PowBackward0", _pow_scalar_bw)
_POW_T = _op_spec("PowBackward1", _pow_tensor_bw)
_RPOW = _op_spec("PowBackward2", _rpow_bw)


def pow(self, exponent):  # noqa: A001 - torch's name
    a = self._array
    if isinstance(exponent, _TB):
        b = exponent._array
        token = _quiet()
        try:
            r = np.power(a, b)
        except ValueError:
            _broadcast_shapes(a.shape, b.shape)
            raise
        finally:
            _loud(token)
        out = _wrap(_promote(r, a.dtype, b.dtype), self)
        return _record(_POW_T, (self, exponent), out, (self, exponent, out), (a.shape, b.shape, a.dtype, b.dtype))
    if a.dtype.kind in "iu" and isinstance(exponent, int) and exponent < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    token = _quiet()
    try:
        # torch computes x ** -0.5 as rsqrt(x): -inf at -0.0, where pow gives inf
        r = np.reciprocal(np.sqrt(a)) if exponent == -0.5 else np.power(a, exponent)
    finally:
        _loud(token)
    out = _wrap(_promote(r, a.dtype, None), self)
    return _record(_POW_S, (self,), out, (self,), exponent)


def rpow(self, base):
    a = self._array
    token = _quiet()
    try:
        r = np.power(base, a)
    finally:
        _loud(token)
    out = _wrap(_promote(r, a.dtype, None), self)
    return _record(_RPOW, (self,), out, (out,), base)


# matmul --------------------------------------------------------------------------------

def _mm_bw(g, s, e, n):
    self, other = s
    return (matmul(g, transpose(other, 0, 1)) if n[0] else None,
            matmul(transpose(self, 0, 1), g) if n[1] else None)


def _dot_bw(g, s, e, n):
    self, other = s
    return (mul(g, other) if n[0] else None, mul(g, self) if n[1] else None)


def _mv_bw(g, s, e, n):
    self, vec = s
    return (mul(unsqueeze(g, 1), unsqueeze(vec, 0)) if n[0] else None,
            matmul(transpose(self, 0, 1), g) if n[1] else None)


def _bmm_bw(g, s, e, n):
    self, other = s
    sa, sb = e
    return (_sum_to(matmul(g, transpose(other, -2, -1)), sa) if n[0] else None,
            _sum_to(matmul(transpose(self, -2, -1), g), sb) if n[1] else None)


_MM = _op_spec("MmBackward0", _mm_bw)
_DOT = _op_spec("DotBackward0", _dot_bw)
_MV = _op_spec("MvBackward0", _mv_bw)
_BMM = _op_spec("BmmBackward0", _bmm_bw)


def _shape_str(shape):
    return "x".join(map(str, shape))


def _matmul_kernel(spec, self, other):
    """One of mm / dot / mv / bmm: a single node, as at::mm etc. record it."""
    a, b = self._array, other._array
    if a.dtype != b.dtype:
        names = {"float32": "float", "float64": "double", "int64": "long int", "bool": "bool"}
        if spec is _DOT:
            raise RuntimeError("dot : expected both vectors to have same dtype, but found "
                               f"{_torch_type_name(a.dtype)} and {_torch_type_name(b.dtype)}")
        raise RuntimeError("expected m1 and m2 to have the same dtype, but got: "
                           f"{names[a.dtype.name]} != {names[b.dtype.name]}")
    if spec is _DOT and a.shape != b.shape:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] to "
                           f"have the same number of elements, but got {a.shape[0]} and {b.shape[0]} "
                           "elements respectively")
    if spec is _MV and a.shape[1] != b.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({a.shape[0]}), mat ({_shape_str(a.shape)}), "
                           f"vec ({b.shape[0]})")
    if spec is _MM and a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({_shape_str(a.shape)} and "
                           f"{_shape_str(b.shape)})")
    if spec is _BMM and (b.shape[0] != a.shape[0] or b.shape[1] != a.shape[2]):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")
    token = _quiet()
    try:
        r = np.matmul(a, b)
    finally:
        _loud(token)
    out = _wrap(r, self)
    saved = (self if other.requires_grad else None, other if self.requires_grad else None)
    return _record(spec, (self, other), out, saved, (a.shape, b.shape))


def _unsafe_view(self, shape):
    """at::_unsafe_view: a reshape recorded as UnsafeViewBackward0 whose result is not a view."""
    a = self._array
    return _record(_UNSAFE_VIEW, (self,), _wrap(a.reshape(shape), self), (), a.shape)


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
        return _matmul_kernel(_DOT, self, other)
    if da == 2 and db == 1:
        return _matmul_kernel(_MV, self, other)
    if da == 1 and db == 2:
        r = _matmul_kernel(_MM, unsqueeze(self, 0), other)
        # torch squeezes the mm result in place (squeeze_(0))
        return _record(_SQUEEZE_INPLACE, (r,), _wrap(r._array[0], r), (), r._array.shape)
    if da == 2 and db == 2:
        return _matmul_kernel(_MM, self, other)
    if _should_fold(self, other):
        trans = db > da
        t1 = transpose(other, -2, -1) if trans else self
        t2 = (t(self) if da == 2 else self) if trans else other
        sizes_1 = t1._array.shape
        output_shape = sizes_1[:-1]
        folded = int(np.prod(output_shape))
        t1_folded = reshape(t1, (folded, sizes_1[-1]))
        if t2._array.ndim == 2:
            output = _unsafe_view(_matmul_kernel(_MM, t1_folded, t2), output_shape + (t2._array.shape[1],))
            return contiguous(transpose(output, -2, -1)) if trans else output
        return _unsafe_view(_matmul_kernel(_MV, t1_folded, t2), output_shape)
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
    r = _matmul_kernel(_BMM, t1e, t2e)
    return _unsafe_view(squeeze(r, -1) if db == 1 else r, output_shape)


def _broadcast_shapes(sa, sb):
    """at::infer_size, with its message."""
    n = len(sa) if len(sa) > len(sb) else len(sb)
    out = []
    for i in range(n):
        x = sa[i - n + len(sa)] if i - n + len(sa) >= 0 else 1
        y = sb[i - n + len(sb)] if i - n + len(sb) >= 0 else 1
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                               f"non-singleton dimension {i}")
        out.append(y if x == 1 else x)
    return tuple(out)


# Reductions ----------------------------------------------------------------------------

def _norm_dims(dim, ndim):
    if isinstance(dim, int):
        dim = (dim,)
    out = []
    bound = ndim if ndim else 1
    for d in dim:
        if not -bound <= d < bound:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-bound}, {bound - 1}], but got {d})")
        out.append(d % ndim if ndim else 0)
    return tuple(sorted(out))


def _keepdim_shape(shape, dims):
    return tuple(1 if i in dims else s for i, s in enumerate(shape))


def _sum_bw(g, s, e, n):
    return (expand(g, e),)


def _sum_dim_bw(g, s, e, n):
    shape, dims, keepdim = e
    if not keepdim:
        g = reshape(g, _keepdim_shape(shape, dims))
    return (expand(g, shape),)


def _mean_bw(g, s, e, n):
    shape, count = e
    return (div(expand(g, shape), count),)


def _mean_dim_bw(g, s, e, n):
    shape, dims, keepdim, count = e
    if not keepdim:
        g = reshape(g, _keepdim_shape(shape, dims))
    return (div(expand(g, shape), count),)


def _evenly_distribute_bw(g, s, e, n):
    self, result = s
    # torch's evenly_distribute_backward: a nan result came from the nan elements
    mask = np.isnan(self._array) if np.isnan(result._array) else self._array == result._array
    count = int(mask.sum())
    return (mul(expand(div(g, count), self._array.shape), _const(mask.astype(self._array.dtype), self)),)


def _value_selecting_bw(g, s, e, n):
    indices = s[0]
    shape, dim, keepdim = e
    if not shape:
        return (g,)  # a 0-d input: its only element was selected
    idx = indices._array
    if not keepdim:
        g = unsqueeze(g, dim)
        idx = np.expand_dims(idx, dim)
    positions = np.arange(shape[dim]).reshape((-1,) + (1,) * (len(shape) - dim - 1))
    onehot = (positions == idx).astype(g._array.dtype)
    return (mul(g, _const(onehot, g)),)


_SUM = _op_spec("SumBackward0", _sum_bw, "sum")
_SUM_DIM = _op_spec("SumBackward1", _sum_dim_bw)
_MEAN = _op_spec("MeanBackward0", _mean_bw, "mean")
_MEAN_DIM = _op_spec("MeanBackward1", _mean_dim_bw)
_MAX = _op_spec("MaxBackward1", _evenly_distribute_bw)
_MAX_DIM = _op_spec("MaxBackward0", _value_selecting_bw)
_MIN = _op_spec("MinBackward1", _evenly_distribute_bw)
_MIN_DIM = _op_spec("MinBackward0", _value_selecting_bw)


def sum(self, dim=None, keepdim=False, dtype=None):  # noqa: A001 - torch's name
    a = self._array
    np_dtype = None
    if dtype is not None:
        np_dtype = dtype._np
    elif a.dtype.kind in "bu":
        np_dtype = np.int64
    dims = None if dim is None else _norm_dims(dim, a.ndim)
    token = _quiet()
    try:
        # a 0-d tensor reduces over its dimension 0 or -1 to itself, as in torch
        r = np.asarray(np.sum(a, axis=dims if a.ndim else None, keepdims=keepdim, dtype=np_dtype))
    finally:
        _loud(token)
    if dim is None:
        return _record(_SUM, (self,), _wrap(r, self), (), a.shape)
    return _record(_SUM_DIM, (self,), _wrap(r, self), (), (a.shape, dims, keepdim))


def mean(self, dim=None, keepdim=False, dtype=None):
    a = self._array
    if dtype is None and a.dtype.kind not in "f":
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or "
            f"complex dtype. Got: {_torch_type_name(a.dtype)}")
    np_dtype = dtype._np if dtype is not None else None
    if dim is None:
        out = _wrap(_mean_kernel(a, None, False, np_dtype, a.size), self)
        return _record(_MEAN, (self,), out, (), (a.shape, a.size))
    dims = _norm_dims(dim, a.ndim)
    count = 1
    for d in dims:
        count *= a.shape[d] if a.ndim else 1
    out = _wrap(_mean_kernel(a, dims if a.ndim else None, keepdim, np_dtype, count), self)
    return _record(_MEAN_DIM, (self,), out, (), (a.shape, dims, keepdim, count))


def _mean_kernel(a, axis, keepdims, dtype, count):
    token = _quiet()
    try:
        if count:
            return np.asarray(np.mean(a, axis=axis, keepdims=keepdims, dtype=dtype))
        # the mean of no elements: nan, as in torch (np.mean would warn "Mean of empty slice")
        return np.asarray(np.true_divide(np.sum(a, axis=axis, keepdims=keepdims, dtype=dtype), 0))
    finally:
        _loud(token)


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
        out = _wrap(np.asarray(np_fn(a)), self)
        return _record(full_spec, (self,), out, (self, out), None)
    (d,) = _norm_dims(dim, a.ndim)
    idx = np_arg(a, axis=d, keepdims=True) if a.ndim else np.zeros((), np.int64)
    values = np.take_along_axis(a, idx, axis=d) if a.ndim else a.copy()
    if not keepdim and a.ndim:
        idx = np.squeeze(idx, d)
        values = np.squeeze(values, d)
    indices = _wrap(idx.astype(np.int64), self)
    # (np.ascontiguousarray would make a 0-d result 1-d)
    out = _wrap(values if values.flags.c_contiguous else np.ascontiguousarray(values), self)
    out = _record(dim_spec, (self,), out, (indices,), (a.shape, d, keepdim))
    return _RETURN_TYPES[name](name, out, indices)


def max(self, dim=None, keepdim=False):  # noqa: A001 - torch's name
    return _extremum("max", np.max, np.argmax, _MAX, _MAX_DIM, self, dim, keepdim)


def min(self, dim=None, keepdim=False):  # noqa: A001 - torch's name
    return _extremum("min", np.min, np.argmin, _MIN, _MIN_DIM, self, dim, keepdim)


# Views and shape functions ----------------------------------------------------------

def _view_bw(g, s, e, n):
    return (reshape(g, e),)


def _transpose_bw(g, s, e, n):
    return (transpose(g, e[0], e[1]),)


def _t_bw(g, s, e, n):
    return (transpose(g, 0, 1) if g._array.ndim == 2 else g,)


def _permute_bw(g, s, e, n):
    return (permute(g, e),)


def _unsqueeze_bw(g, s, e, n):
    return (squeeze(g, e),)


def _expand_bw(g, s, e, n):
    return (_sum_to(g, e),)


def _identity_bw(g, s, e, n):
    return (g,)


_VIEW = _op_spec("ViewBackward0", _view_bw)
_UNSAFE_VIEW = _op_spec("UnsafeViewBackward0", _view_bw)
_SQUEEZE_INPLACE = _op_spec("SqueezeBackward4", _view_bw)
_TRANSPOSE = _op_spec("TransposeBackward0", _transpose_bw)
_T = _op_spec("TBackward0", _t_bw)
_PERMUTE = _op_spec("PermuteBackward0", _permute_bw)
_UNSQUEEZE = _op_spec("UnsqueezeBackward0", _unsqueeze_bw)
_SQUEEZE = _op_spec("SqueezeBackward0", _view_bw)
_SQUEEZE_DIM = _op_spec("SqueezeBackward1", _view_bw)
_EXPAND = _op_spec("ExpandBackward0", _expand_bw)
_CLONE = _op_spec("CloneBackward0", _identity_bw)
_ALIAS = _op_spec("AliasBackward0", _identity_bw)


def _shape_arg(shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        return tuple(shape[0])
    return tuple(shape)


def _view_of(arr, self, spec, extra):
    out = _wrap(arr, self, True)
    out._base = self if self._base is None else self._base
    return _record(spec, (self,), out, (), extra)


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


def view(self, *shape):
    a = self._array
    if not shape:
        raise TypeError("view() received an invalid combination of arguments - got (), but expected one of:\n"
                        " * (torch.dtype dtype)\n * (tuple of ints size)\n")
    shape = _infer_size(_shape_arg(shape), a.size)
    v = a.view()
    try:
        v.shape = shape
    except AttributeError:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one dimension "
            "spans across two contiguous subspaces). Use .reshape(...) instead.") from None
    return _view_of(v, self, _VIEW, a.shape)


def reshape(self, *shape):
    a = self._array
    if not shape:
        raise TypeError('reshape() missing 1 required positional arguments: "shape"')
    shape = _infer_size(_shape_arg(shape), a.size)
    v = a.view()
    try:
        v.shape = shape
    except AttributeError:
        # Not expressible as a view: torch's reshape copies (clone) and views the copy (_unsafe_view).
        return _unsafe_view(_record(_CLONE, (self,), _wrap(np.ascontiguousarray(a), self), (), None), shape)
    return _view_of(v, self, _VIEW, a.shape)


def transpose(self, dim0, dim1):
    a = self._array
    n = a.ndim
    d0, d1 = (_norm_dims(dim0, n)[0], _norm_dims(dim1, n)[0]) if n else (0, 0)
    return _view_of(np.swapaxes(a, d0, d1) if n else a.view(), self, _TRANSPOSE, (d0, d1))


def t(self):
    a = self._array
    if a.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {a.ndim}D")
    return _view_of(a.T, self, _T, None)


def permute(self, *dims):
    a = self._array
    dims = _shape_arg(dims)
    if len(dims) != a.ndim:
        raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does not match "
                           f"the length of the desired ordering of dimensions i.e. input.dim() = {a.ndim} "
                           f"is not equal to len(dims) = {len(dims)}")
    dims = tuple(d % a.ndim for d in dims)
    inverse = tuple(int(i) for i in np.argsort(dims))
    return _view_of(np.transpose(a, dims), self, _PERMUTE, inverse)


def unsqueeze(self, dim):
    a = self._array
    n = a.ndim + 1
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    d = dim % n
    return _view_of(np.expand_dims(a, d), self, _UNSQUEEZE, d)


def squeeze(self, dim=None):
    a = self._array
    if dim is None:
        return _view_of(np.squeeze(a), self, _SQUEEZE, a.shape)
    dims = _norm_dims(dim, a.ndim) if a.ndim else ()
    dims = tuple(d for d in dims if a.shape[d] == 1)
    return _view_of(np.squeeze(a, dims) if dims else a.view(), self, _SQUEEZE_DIM, a.shape)


def expand(self, *sizes):
    a = self._array
    sizes = _shape_arg(sizes)
    lead = len(sizes) - a.ndim
    if lead < 0 or -1 in sizes[:lead]:
        raise _expand_error(a.shape, sizes, _tensor_type_name(a.dtype))
    target = tuple(a.shape[i - lead] if s == -1 else s for i, s in enumerate(sizes))
    if target == a.shape:
        return _view_of(a.view(), self, _EXPAND, a.shape)
    try:
        v = np.broadcast_to(a, target)
    except ValueError:
        raise _expand_error(a.shape, sizes, _tensor_type_name(a.dtype)) from None
    return _view_of(v, self, _EXPAND, a.shape)


def clone(self):
    out = _wrap(np.array(self._array, copy=True), self)
    return _record(_CLONE, (self,), out, (), None)


def contiguous(self):
    if self._array.flags.c_contiguous:
        return self
    out = _wrap(np.ascontiguousarray(self._array), self)
    return _record(_CLONE, (self,), out, (), None)


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


def _index_bw(g, s, e, n):
    shape, key, basic, name = e
    return (_index_backward(g, shape, key, basic, name),)


def _index_backward_bw(g, s, e, n):
    return (getitem_raw(g, e),)


_SELECT = _op_spec("SelectBackward0", _index_bw)
_SLICE = _op_spec("SliceBackward0", _index_bw)
_INDEX = _op_spec("IndexBackward0", _index_bw)
_INDEX_BACKWARD = {name: _op_spec(name + "Backward0", _index_backward_bw)
                   for name in ("SelectBackward", "SliceBackward", "IndexBackward")}


def _index_backward(g, shape, key, basic, name):
    """The gradient of x[key] scattered into zeros of x's shape (differentiable in g)."""
    ga = g._array
    z = np.zeros(shape, dtype=ga.dtype)
    if basic:
        z[key] = ga
    else:
        np.add.at(z, key, ga)
    out = _wrap(z, g)
    return _record(_INDEX_BACKWARD[name], (g,), out, (), key)


def getitem_raw(self, key):
    a = self._array
    basic = _is_basic(key)
    items = key if isinstance(key, tuple) else (key,)
    try:
        # a trailing Ellipsis makes numpy return a 0-d view, not a scalar copy
        r = a[items + (Ellipsis,)] if basic and Ellipsis not in items else a[key]
    except IndexError as err:
        raise _index_error(a, key) or IndexError(str(err)) from None
    if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
        spec, name = _SELECT, "SelectBackward"
    elif isinstance(key, slice):
        spec, name = _SLICE, "SliceBackward"
    else:
        spec, name = _INDEX, "IndexBackward"
    extra = (a.shape, key, basic, name)
    if basic:
        return _view_of(r, self, spec, extra)
    return _record(spec, (self,), _wrap(r, self), (), extra)


def getitem(self, key):
    """x[key]: basic indexing as torch applies it (python_variable_indexing.cpp), one
    select / slice / unsqueeze node per item, an alias when nothing applies; advanced
    indexing as one IndexBackward0 node."""
    key = _index_key(key)
    if not _is_basic(key):
        return getitem_raw(self, key)
    single = not isinstance(key, tuple)
    if single and key is None:
        return unsqueeze(self, 0)
    if single and key is Ellipsis:
        return _view_of(self._array.view(), self, _ALIAS, None)
    items = (key,) if single else key
    ndim = self._array.ndim
    n_real = len([k for k in items if k is not None and k is not Ellipsis])
    if ndim == 0 and n_real:
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` "
                         "in C++ to convert a 0-dim tensor to a number")
    if n_real > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    result, dim, real_dim = self, 0, 0  # real_dim: the dimension of self, which torch's errors name
    for k in items:
        if k is None:
            result = unsqueeze(result, dim)
            dim += 1
        elif k is Ellipsis:
            dim += ndim - n_real
            real_dim += ndim - n_real
        elif isinstance(k, slice):
            if k.step is not None and k.step <= 0:
                raise ValueError("step must be greater than zero" if k.step else "slice step cannot be zero")
            size = result._array.shape[dim]
            # torch skips a slice that keeps the whole dimension, except for a lone slice key
            if single or k.start not in (None, 0) or k.step not in (None, 1) or (k.stop is not None and k.stop < size):
                result = _slice(result, dim, k)
            dim += 1
            real_dim += 1
        else:
            result = _select(result, dim, int(k), real_dim)
            real_dim += 1
    if result is self:
        result = _view_of(self._array.view(), self, _ALIAS, None)
    return result


def _select(self, dim, index, real_dim):
    a = self._array
    size = a.shape[dim]
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of bounds for dimension {real_dim} with size {size}")
    key = (slice(None),) * dim + (index,)
    return _view_of(a[key + (Ellipsis,)], self, _SELECT, (a.shape, key, True, "SelectBackward"))


def _slice(self, dim, k):
    a = self._array
    key = (slice(None),) * dim + (k,)
    return _view_of(a[key], self, _SLICE, (a.shape, key, True, "SliceBackward"))


def _copy_slices_bw(g, s, e, n):
    key, value_shape = e
    grads = (_masked_grad(g, key) if n[0] else None,)
    if len(n) == 2:  # the value assigned was a tensor: it is the node's second input
        grads += (_sum_to(getitem_raw(g, key), value_shape) if n[1] else None,)
    return grads


def _masked_grad(g, key):
    mask = np.ones(g._array.shape, dtype=g._array.dtype)
    mask[key] = 0
    return mul(g, _const(mask, g))


def _index_error(a, key):
    """torch's error for a key numpy refused (python_variable_indexing.cpp, then the
    index kernel), or None: integers select first, named by their dimension of `a`;
    index tensors are numbered in order (a mask counts one per dimension)."""
    items = [np.asarray(k) if isinstance(k, (list, np.ndarray)) else k
             for k in (key if isinstance(key, tuple) else (key,))]
    n_real = 0
    for k in items:
        if isinstance(k, np.ndarray):
            n_real += k.ndim if k.dtype == np.bool_ else 1
        elif k is not None and k is not Ellipsis:
            n_real += 1
    if n_real > a.ndim:
        return IndexError(f"too many indices for tensor of dimension {a.ndim}")
    src = 0  # the dimension of `a` an item applies to
    basic = []
    for k in items:
        if k is Ellipsis:
            src += a.ndim - n_real
        elif isinstance(k, np.ndarray):
            step = k.ndim if k.dtype == np.bool_ else 1
            src += step
            k = (slice(None),) * step
        elif isinstance(k, slice):
            src += 1
        elif k is not None:
            size = a.shape[src]
            if not -size <= k < size:
                return IndexError(f"index {k} is out of bounds for dimension {src} with size {size}")
            src += 1
        basic.extend(k if isinstance(k, tuple) else (k,))
    sliced = a[tuple(basic)].shape
    dim, indexers = 0, []
    for k in items:
        if k is Ellipsis:
            dim += a.ndim - n_real
        elif isinstance(k, np.ndarray) and k.dtype == np.bool_:
            for j, n in enumerate(k.shape):
                if n != sliced[dim + j]:
                    return IndexError(f"The shape of the mask {list(k.shape)} at index {j} does not match the "
                                      f"shape of the indexed tensor {list(sliced)} at index {dim + j}")
            indexers.extend((i, sliced[dim + j]) for j, i in enumerate(np.nonzero(k)))
            dim += k.ndim
        elif isinstance(k, np.ndarray):
            indexers.append((k, sliced[dim]))
            dim += 1
        elif k is None or isinstance(k, slice):
            dim += 1
    if not indexers:
        return None
    try:
        arrays = np.broadcast_arrays(*(i for i, _ in indexers))
    except ValueError:
        return None
    bad = [(i < -n) | (i >= n) for i, (_, n) in zip(arrays, indexers)]
    anybad = np.logical_or.reduce(bad) if len(bad) > 1 else bad[0]
    if not anybad.any():
        return None
    at = np.unravel_index(np.argmax(anybad), anybad.shape)
    j = next(j for j, b in enumerate(bad) if b[at])
    return IndexError(f"index {arrays[j][at]} is out of bounds for dimension {j} with size {indexers[j][1]}")


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


def _assign(a, key, value):
    """a[key] = value with torch's rules: the value's leading dimensions of size 1 are
    dropped (x[i] = t with a one-element t works), and torch's errors."""
    try:
        a[key] = value
        return
    except IndexError:
        err = _index_error(a, key)
        if err is None:
            raise
        raise err from None
    except ValueError:
        if not isinstance(value, np.ndarray):
            raise
    shape = value.shape
    while shape and shape[0] == 1:
        shape = shape[1:]
    target = a[key].shape
    if _is_basic(key):
        err = _expand_error(shape, target, _tensor_type_name(value.dtype))
    elif len(shape) > len(target) or any(s not in (1, t) for s, t in zip(shape[::-1], target[::-1])):
        err = RuntimeError(f"shape mismatch: value tensor of shape {list(shape)} cannot be broadcast to indexing "
                           f"result of shape {list(target)}")
    else:
        err = None
    if err is not None:
        raise err from None
    a[key] = value.reshape(shape)


_COPY_SLICES = _op_spec("torch::autograd::CopySlices", _copy_slices_bw)


def setitem(self, key, value):
    key = _index_key(key)
    _check_inplace(self, value)
    a = self._array
    _assign(a, key, value._array if isinstance(value, _TB) else value)
    self._bump_version()
    if isinstance(value, _TB):
        vshape = value._array.shape
        _record(_COPY_SLICES, (self, value), self, (), (key, vshape))
    else:
        _record(_COPY_SLICES, (self,), self, (), (key, ()))


# In-place ops ---------------------------------------------------------------------

def _check_inplace(self, other=None):
    if not _C.is_grad_enabled():
        return
    if self.requires_grad and self.is_leaf:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    other_rg = isinstance(other, _TB) and other.requires_grad
    if self._base is not None and (self.requires_grad or other_rg):
        # PyTorch rebases the base's history (CopySlices); torchlite does not.
        raise RuntimeError("torchlite does not support in-place operations on views of tensors that "
                           "require grad; apply the operation to the base tensor or clone() the view")


def add_(self, other, alpha=1):
    _check_inplace(self, other)
    a = self._array
    if isinstance(other, _TB):
        b = other._array
        _check_inplace_broadcast(a.shape, b.shape)
        np.add(a, b if alpha == 1 else b * alpha, out=a)
        self._bump_version()
        return _record(_ADD, (self, other), self, (), (a.shape, b.shape, alpha, a.dtype, b.dtype))
    np.add(a, other * alpha, out=a)
    self._bump_version()
    return _record_number(_ADD_S, self, self, other, False)


def sub_(self, other, alpha=1):
    return add_(self, other, -alpha)


def mul_(self, other):
    _check_inplace(self, other)
    a = self._array
    if isinstance(other, _TB):
        b = other._array
        # the original self, for other's gradient, before it is overwritten;
        # a differentiable clone (PyTorch's original_self) so double backward reaches self
        _check_inplace_broadcast(a.shape, b.shape)
        orig = clone(self) if other.requires_grad else None
        np.multiply(a, b, out=a)
        self._bump_version()
        saved = (orig, other if self.requires_grad else None)
        return _record(_MUL, (self, other), self, saved, (a.shape, b.shape, a.dtype, b.dtype))
    np.multiply(a, other, out=a)
    self._bump_version()
    return _record_number(_MUL_S, self, self, other, False)


def div_(self, other):
    if isinstance(other, _TB):
        return mul_(self, reciprocal(other))
    return mul_(self, 1.0 / other)


def _zero_bw(g, s, e, n):
    return (zeros_like(g),)


_ZERO = _op_spec("ZeroBackward0", _zero_bw)
_FILL = _op_spec("FillBackward0", _zero_bw)


def zero_(self):
    _check_inplace(self)
    self._array[...] = 0
    self._bump_version()
    return _record(_ZERO, (self,), self, (), None)


def fill_(self, value):
    _check_inplace(self)
    self._array[...] = value
    self._bump_version()
    return _record(_FILL, (self,), self, (), None)


# Conversions ----------------------------------------------------------------------

def _to_copy_bw(g, s, e, n):
    src_dtype, src_device = e
    return (to(g, dtype=src_dtype, device=src_device),)


_TO_COPY = _op_spec("ToCopyBackward0", _to_copy_bw)


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
    new_device = device is not None and _device(device) != src_device
    if not (new_dtype or new_device or copy):
        return self
    token = _quiet()  # nan and inf cast to an integer silently, as in torch
    try:
        r = a.astype(dtype._np) if new_dtype else a.copy()
    finally:
        _loud(token)
    if new_device:
        from . import _backend
        out = _backend.place(_wrap(r), _backend.check_device(device))  # made on the CPU, then placed
    else:
        out = _wrap(r, self)
    if r.dtype.kind != "f":
        return out  # an integer or bool result never requires grad (torch's isDifferentiableType)
    return _record(_TO_COPY, (self,), out, (), (src_dtype, src_device))


# Combining tensors --------------------------------------------------------------

def _stack_bw(g, s, e, n):
    dim, count = e
    lead = (slice(None),) * dim
    return tuple(getitem_raw(g, lead + (i,)) if n[i] else None for i in range(count))


def _cat_bw(g, s, e, n):
    dim, sizes = e
    lead = (slice(None),) * dim
    out, start = [], 0
    for i, size in enumerate(sizes):
        out.append(getitem_raw(g, lead + (slice(start, start + size),)) if n[i] else None)
        start += size
    return tuple(out)


_STACK = _op_spec("StackBackward0", _stack_bw)
_CAT = _op_spec("CatBackward0", _cat_bw)


def _cat_error(arrays, dim):
    """at::cat's shape error, checked against the first tensor, or None."""
    ref = arrays[0].shape
    for i, a in enumerate(arrays[1:], 1):
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
    try:
        r = np.stack(arrays, axis=d)
    except ValueError:
        i = next(i for i, a in enumerate(arrays) if a.shape != arrays[0].shape)
        raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(arrays[0].shape)} "
                           f"at entry 0 and {list(arrays[i].shape)} at entry {i}") from None
    out = _wrap(r, tensors[0])
    return _record(_STACK, tensors, out, (), (d, len(tensors)))


def cat(tensors, dim=0):
    tensors = tuple(tensors)
    if not tensors:
        raise RuntimeError("torch.cat(): expected a non-empty list of Tensors")
    arrays = [t._array for t in tensors]
    for i, a in enumerate(arrays):
        if not a.ndim:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    d = _norm_dims(dim, arrays[0].ndim)[0]
    try:
        r = np.concatenate(arrays, axis=d)
    except ValueError as err:
        raise _cat_error(arrays, d) or RuntimeError(f"torch.cat(): {err}") from None
    out = _wrap(r, tensors[0])
    return _record(_CAT, tensors, out, (), (d, tuple(a.shape[d] for a in arrays)))


def _where_bw(g, s, e, n):
    cond = s[0]
    c = cond._array
    zero = zeros_like(g)
    grads = []
    for i, (keep, shape, dtype) in enumerate(zip((True, False), e[:2], e[2:])):
        if not n[i]:
            grads.append(None)
            continue
        grads.append(_sum_to(where(_const(c if keep else ~c, g), g, zero), shape, dtype))
    return tuple(grads)


_WHERE = _op_spec("WhereBackward0", _where_bw)


def where(condition, input, other):  # noqa: A002 - torch's names
    c = condition._array if isinstance(condition, _TB) else np.asarray(condition)
    if c.dtype != np.bool_:
        raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor with dtype "
                           + _torch_type_name(c.dtype))
    like = input if isinstance(input, _TB) else other if isinstance(other, _TB) else condition
    a = input._array if isinstance(input, _TB) else input
    b = other._array if isinstance(other, _TB) else other
    da = a.dtype if isinstance(a, np.ndarray) else None
    db = b.dtype if isinstance(b, np.ndarray) else None
    try:
        r = _promote(np.asarray(np.where(c, a, b)), da, db)
    except ValueError:
        _broadcast_shapes(_broadcast_shapes(c.shape, np.shape(a)), np.shape(b))
        raise
    out = _wrap(r, like)
    # a Python number is wrapped as a tensor that never requires grad (torch's scalar_to_tensor)
    input = input if da is not None else _const(np.asarray(a, dtype=r.dtype), like)  # noqa: A001
    other = other if db is not None else _const(np.asarray(b, dtype=r.dtype), like)
    a, b = input._array, other._array
    return _record(_WHERE, (input, other), out, (_const(c, like),),
                   (a.shape, b.shape, a.dtype, b.dtype))


# Comparisons (never differentiable) ------------------------------------------------

def _compare(np_fn, self, other):
    b = other._array if isinstance(other, _TB) else other
    return _wrap(np.asarray(np_fn(self._array, b)), self)


def zeros_like(self, dtype=None):
    a = self._array
    return _wrap(np.zeros(a.shape, dtype=dtype._np if dtype is not None else a.dtype), self)


def ones_like(self, dtype=None):
    a = self._array
    return _wrap(np.ones(a.shape, dtype=dtype._np if dtype is not None else a.dtype), self)
