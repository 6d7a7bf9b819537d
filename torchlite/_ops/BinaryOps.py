"""Elementwise arithmetic of two operands (ATen/native/BinaryOps.cpp): add,
sub, mul, div, their Tensor-Scalar forms inside formulas, their in-place
forms, and the fused gradients of tanh and sigmoid."""
import numpy as np

from .. import _C, _backend
from .._C import _inplace_node, _rebase_history, _record, _record_number, _wrap
from .._generated import specs as _S
from .Copy import _below_autograd
from .ExpandUtils import _broadcast_shapes
from .MemoryOverlap import _check_overlap
from .ScalarType import _b1, _check_narrow, _checked_number, _f16, _f32, _f64, _torch_type_name
from .TensorFactories import clone
from .TensorIterator import (_KIND, _TB, _WRAPPED_NUMBER, _check_inplace_broadcast, _empty_like, _float_dtype,
                             _half_compute, _loud, _number_dtype, _number_operand, _out, _quiet, _result_type,
                             _sequential)
from .UnaryOps import reciprocal


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
        if dtype.kind != "f":
            b = _number_operand(b, dtype)
    out = _out(shape, dtype, self, a, b if isinstance(b, _backend.array_types) else _WRAPPED_NUMBER)
    token = _quiet()
    try:
        if dtype.itemsize == 2 and dtype.kind == "f":  # float16: computed in float32, rounded once
            return _half_compute(ufunc, a, b, out, dtype, ufunc is np.multiply or ufunc is np.true_divide)
        # an operand of another dtype is cast to the result's as TensorIterator casts it: a
        # 0-d int32 into uint8 too, which numpy's same_kind rule would refuse
        return ufunc(a, b, out=out) if same else ufunc(a, b, out=out, dtype=dtype, casting="unsafe")
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


def _alpha_check(dtype, alpha):
    """at::native::alpha_check: alpha must be representable in the result's dtype."""
    if isinstance(alpha, bool):
        if dtype != _b1:
            raise RuntimeError("Boolean alpha only supported for Boolean results.")
    elif dtype.kind != "f" and not isinstance(alpha, int):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    _checked_number(alpha, dtype)
    if dtype == _f16:
        _check_narrow(alpha, dtype)


def _times_alpha(b, alpha, dtype):
    """alpha * b in the result's dtype, as add's kernel computes a + alpha * b (bool: b and alpha)."""
    token = _quiet()
    try:
        if isinstance(b, _backend.array_types):
            # laid out as b (empty_like's layout), whose strides add's TensorIterator orders by
            return np.multiply(b, dtype.type(_number_operand(alpha, dtype)), out=_empty_like(b, dtype, None),
                               dtype=dtype)
        return dtype.type(_number_operand(b, dtype)) * dtype.type(_number_operand(alpha, dtype))
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


def atan2(self, other):
    """The angle of (other, self), elementwise (at::atan2): integer and bool operands in float32."""
    if not isinstance(other, _TB):
        raise TypeError(f"atan2(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    a, b = self._array, other._array
    out = _wrap(_binary(np.arctan2, self, a, b, _float_dtype(_result_type(a, b))), self)
    return _record(_S.Atan2Backward0, (self, other), out, self=self, other=other)


def rdiv(self, other):
    return mul(reciprocal(self), other)


def tanh_backward(grad_output, output):
    """tanh's gradient as one op (at::tanh_backward): grad_output * (1 - output ** 2),
    where torch's kernel fuses 1 - output * output into one rounding."""
    o = output._array
    dtype = _result_type(grad_output._array, o)
    g = grad_output._array
    if dtype == _f16:  # in float32, rounded once (torch's Vectorized<Half>)
        dtype, g, o = _f32, g.astype(_f16).astype(_f32), o.astype(_f16).astype(_f32)
    one_minus_square = _fma(-o, o, 1.0, dtype)
    token = _quiet()
    try:
        r = _backend.asarray(g * one_minus_square).astype(_result_type(grad_output._array, output._array),
                                                          copy=False)
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
        # float16 too in its own arithmetic, each product rounded (torch's CPU kernel for Half)
        r = _backend.asarray(grad_output._array * (1 - o) * o).astype(_result_type(grad_output._array, o), copy=False)
    finally:
        _loud(token)
    out = _wrap(r, grad_output)
    return _record(_S.SigmoidBackwardBackward0, (grad_output, output), out, grad_output=grad_output,
                   output=output)


# In-place ops ---------------------------------------------------------------------
# Each runs as upstream's VariableType does: the overlap checks, then
# _inplace_node (check_inplace; the node with the inputs' current edges and
# the saved tensors at their versions before the write), then the kernel and
# the version bump, then _rebase_history (Note [View + Inplace update for base
# tensor]).

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
    if _KIND[result] > _KIND[a.dtype]:  # c10::canCast: no float into an integer, nothing but bool into bool
        raise RuntimeError(f"result type {_torch_type_name(result)} can't be cast to the desired output type "
                           f"{_torch_type_name(a.dtype)}")
    if result.kind != "f" and not isinstance(b, _backend.array_types):
        b = _number_operand(b, result)
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
        elif result.kind == "f" and result.itemsize == 2:  # float16: computed in float32, rounded once
            _half_compute(ufunc, a, b, a, result, ufunc is np.multiply or ufunc is np.true_divide)
        elif result == a.dtype and (not isinstance(b, _backend.array_types) or b.dtype == result):
            ufunc(a, b, out=a)
        else:
            ufunc(a, b, out=a, dtype=result, casting="unsafe")
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
