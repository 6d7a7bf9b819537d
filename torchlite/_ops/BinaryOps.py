"""Elementwise arithmetic of two operands (ATen/native/BinaryOps.cpp): add,
sub, mul, div, their Tensor-Scalar forms inside formulas, their in-place
forms, and the fused gradients of tanh and sigmoid."""
import functools

import numpy as np

from .. import _C, _backend
from .._C import _inplace_node, _rebase_history, _record, _record_number, _wrap
from .._generated import specs as _S
from .Copy import _below_autograd
from .ExpandUtils import _broadcast_shapes
from .MemoryOverlap import _check_overlap
from .Resize import _can_cast, out_variant
from .python_arg_parser import _NUMBER_AS_TENSOR
from .LinearAlgebra import matmul
from .ScalarType import _b1, _check_narrow, _checked_number, _f16, _f32, _f64, _scalar_value, _torch_type_name
from .TensorFactories import clone
from .structured_inplace import inplace_variant
from .int_zero_division import zero_division
from .TensorIterator import (_KIND, _TB, _WRAPPED_NUMBER, _check_inplace_broadcast, _empty_like, _float_dtype,
                             _half_compute, _loud, _number_dtype, _number_operand, _out, _promote_types, _quiet,
                             _result_type,
                             _sequential)
from .UnaryOps import reciprocal
from . import mutation as _mutation


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
    if type(x) is np.ndarray and x.ndim and isinstance(y, (float, np.floating)):
        x, y = y, x  # (the exact product commutes)
    if dtype != _f64 and type(y) is np.ndarray and y.ndim and isinstance(x, (float, np.floating)) and (
            type(z) is np.ndarray or isinstance(z, (float, np.floating))):
        # a scalar factor (add's alpha, lerp's coefficient): the same float64 sum, computed in one
        # float64 buffer (numpy casts z's float32 elements exactly inside the add)
        token = _quiet()
        try:
            p = y.astype(np.float64)
            np.multiply(p, float(x), out=p)
            if p.shape == np.broadcast_shapes(p.shape, np.shape(z)):
                np.add(p, z, out=p)
            else:
                p = p + z
            return p.astype(dtype)
        finally:
            _loud(token)
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


def add(self, other, *, alpha=1):
    return _add_sub(self, other, alpha, np.add, _S.AddBackward0)


def sub(self, other, *, alpha=1):
    return _add_sub(self, other, alpha, np.subtract, _S.SubBackward0)


def _wrapped_number(value, like):
    """A Python number given for a Tensor (torch.mul(2, x)) as the 0-d tensor it promotes as: in its
    result dtype with `like`, the call's tensor (upstream wraps it in its own dtype and marks it a
    wrapped number, c10's is_wrapped_number)."""
    if like is None:
        return _wrap(_backend.asarray(value, _number_dtype(value)))
    return _wrap(_backend.asarray(value, _result_type(like._array, value), like=like))


_NUMBER_AS_TENSOR.append(_wrapped_number)


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
    return _record(_S.RsubBackward1, (self,), _wrap(r, self), alpha=1)  # `other - self` is rsub(self, other, alpha=1)


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
    else:
        node = _inplace_node(spec, (self,), True, alpha=alpha)
    if _mutation.hook is not None:
        _mutation.hook(self)
    _write(ufunc, a, other._array if isinstance(other, _TB) else other, alpha)
    self._bump_version()
    return _rebase_history(self, node)


def add_(self, other, *, alpha=1):
    return _add_sub_(self, other, alpha, np.add, _S.AddBackward0)


def sub_(self, other, *, alpha=1):
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
    else:
        b = other
        node = _inplace_node(spec, (self,), True, other=other)
    if _mutation.hook is not None:
        _mutation.hook(self)
    _write(ufunc, a, b)
    self._bump_version()
    return _rebase_history(self, node)


def mul_(self, other):
    return _mul_div_(self, other, np.multiply, _S.MulBackward0)


def div_(self, other):
    return _mul_div_(self, other, np.true_divide, _S.DivBackward0)


# ==== issue 13: the binary family's ops ================================================
# Elementwise ops of two or three operands (upstream: BinaryOps.cpp, PointwiseOps.cpp for
# addcmul/addcdiv, Lerp.cpp, TensorCompare.cpp for clamp, UnaryOps.cpp for bitwise_not and
# logical_not), their kernels as torch's CPU kernels (BinaryOpsKernel.cpp) compute them.

def _combine_categories(higher, lower):
    """c10's combine_categories (ResultTypeState): the higher priority class's dtype, unless the
    lower class's category (bool < integer < floating) is higher."""
    if higher is None:
        return lower
    if lower is None or higher.kind == "f":
        return higher
    if higher == _b1 or lower.kind == "f":
        return _promote_types(higher, lower)
    return higher


def _result_type_n(*xs):
    """at::result_type over any number of operands (arrays, Python numbers, None skipped):
    Note [Type promotion]'s three priority classes."""
    dim = zero = wrapped = None
    for x in xs:
        if x is None:
            continue
        if isinstance(x, _backend.array_types):
            if x.ndim:
                dim = x.dtype if dim is None else _promote_types(dim, x.dtype)
            else:
                zero = x.dtype if zero is None else _promote_types(zero, x.dtype)
        else:
            d = _number_dtype(x)
            wrapped = d if wrapped is None else _promote_types(wrapped, d)
    return _combine_categories(dim, _combine_categories(zero, wrapped))


def _not_implemented(kernel, dtype):
    """AT_DISPATCH's error for a dtype the kernel has no loop for (`dtype` kept for out='s cast check)."""
    err = NotImplementedError(f"\"{kernel}\" not implemented for '{_torch_type_name(dtype)}'")
    err.dtype = dtype
    return err


def _out_of(name, compute, out, operands, differentiable=True):
    """`compute()` written into `out` (Resize.out_variant); a non-differentiable op (no derivatives entry
    upstream) skips autograd's out= check, as upstream generates none for it."""
    if not differentiable:
        operands = ()

    def checked():
        try:
            return compute()
        except NotImplementedError as err:
            # TensorIterator checks the result dtype's cast to out before the kernel's dispatch
            dtype = getattr(err, "dtype", None)
            if dtype is not None and isinstance(out, _TB) and not _can_cast(dtype, out._array.dtype):
                raise RuntimeError(f"result type {_torch_type_name(dtype)} can't be cast to the desired output "
                                   f"type {_torch_type_name(out._array.dtype)}") from None
            raise
    def run(*_):
        return checked()
    run._out_as_data = differentiable == "data"
    return out_variant(name, run, out, tuple(x for x in operands if isinstance(x, _TB)), {})


def _clamp_one(fn, self, bound, spec_scalar, spec_tensor, ufunc):
    if not isinstance(bound, (_TB, bool, int, float)):
        _invalid_clamp(fn, self, (bound,), {})
    a = self._array
    b = _array_or_number(bound)
    _shapes(a, b)
    dtype = _result_type_n(a, b)
    if dtype == _b1 and not isinstance(bound, _TB):
        raise _not_implemented(f"{fn}_scalar_cpu", dtype)
    out = _wrap(_compute(ufunc, self, dtype, a, b), self)
    key = fn.split("_")[1]
    if isinstance(bound, _TB):
        return _record(spec_tensor, (self, bound), out, self=self, **{key: bound})
    return _record(spec_scalar, (self,), out, self=self, **{key: bound})


def _out_arg(name, differentiable=True):
    """An op that takes out= itself (not through a `.out` schema line): an alias, whose out= errors name
    the op it stands for, or an op without a derivative, which autograd's out= check skips
    (differentiable=False: its operands; "data": out too, which is written as data, as for an op whose
    outputs upstream marks not differentiable)."""
    def wrap(fn):
        @functools.wraps(fn)
        def op(*args, out=None, **kwargs):
            if out is None:
                return fn(*args, **kwargs)
            return _out_of(name, lambda: fn(*args, **kwargs), out, args + tuple(kwargs.values()), differentiable)
        return op
    return wrap


def _compute(kernel, like, dtype, *xs):
    """kernel(*operands) with each operand (an array or a Python number) cast to `dtype` (as
    TensorIterator's compute_types casts them), into a new array laid out as TensorIterator
    lays out its output (_out), without numpy's floating-point warnings."""
    shape = ()
    for x in xs:
        if isinstance(x, _backend.array_types):
            shape = x.shape if shape == x.shape else _broadcast_shapes(shape, x.shape)
    out = _out(shape, dtype, like, *(x if isinstance(x, _backend.array_types) else _WRAPPED_NUMBER for x in xs))
    token = _quiet()
    try:
        cast = [(x if x.dtype == dtype else x.astype(dtype)) if isinstance(x, _backend.array_types)
                else np.asarray(x).astype(dtype) for x in xs]
        try:
            r = kernel(*cast)
        except RuntimeError as err:
            if getattr(err, "_zero_division", False) is None:  # Note [Integer division by zero writes a prefix]
                err._zero_division = (kernel, cast)
            raise
        if out is None:  # a new row-major array (a copy: broadcast_to's view is read-only, and 0-d stays 0-d)
            return np.broadcast_to(_backend.asarray(r, dtype), shape).copy()
        np.copyto(out, r, casting="unsafe")
        return out
    finally:
        _loud(token)


def _shapes(*xs):
    """TensorIterator's shape check, which comes before a kernel's dtype error."""
    shape = ()
    for x in xs:
        if isinstance(x, _backend.array_types) and x.shape != shape:
            shape = _broadcast_shapes(shape, x.shape)
    return shape


def _array_or_number(x):
    return x._array if isinstance(x, _TB) else x


def _check_int_zero(b, a):
    """torch's integer division kernels raise on a zero divisor (TORCH_CHECK(b != 0, "ZeroDivisionError")),
    checked per element computed: an empty dividend (an empty broadcast result) divides by nothing."""
    if isinstance(a, _backend.array_types) and a.size == 0:
        return
    if isinstance(b, _backend.array_types):
        if (b == 0).any():
            raise zero_division()
    elif b == 0:
        raise zero_division()


def _trunc_divide(a, b):
    """c10's div_trunc: a / b rounded toward zero (integers: C's division)."""
    if a.dtype.kind == "f":
        return np.trunc(np.true_divide(a, b))
    _check_int_zero(b, a)
    q = np.floor_divide(a, b)
    return q + ((np.remainder(a, b) != 0) & ((a < 0) != (b < 0)))


def _floor_divide(a, b):
    """c10's div_floor_floating / div_floor_integer: Python's floor division (a float divisor of 0
    gives a / b), which numpy's floor_divide computes the same way (npy_divmod)."""
    if a.dtype.kind != "f":
        _check_int_zero(b, a)
    return np.floor_divide(a, b)


def _remainder(a, b):
    """torch's remainder kernel: fmod, then plus b where its sign differs from b's (a zero stays
    as fmod gives it; numpy's remainder would give b's sign to it)."""
    if a.dtype.kind != "f":
        _check_int_zero(b, a)
        return np.remainder(a, b)
    m = np.fmod(a, b)
    return np.where((m != 0) & ((b < 0) != (m < 0)), m + b, m)


def _fmod(a, b):
    if a.dtype.kind != "f":
        _check_int_zero(b, a)
    return np.fmod(a, b)


_ROUNDING_MODES = (None, "trunc", "floor")
_NO_MODE = object()


def _div_mode_check(rounding_mode):
    if not isinstance(rounding_mode, (str, type(None))):
        return
    if rounding_mode not in _ROUNDING_MODES:
        raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                           f"'{rounding_mode}'")


def div_mode(self, other, *, rounding_mode=_NO_MODE):
    """at::div with rounding_mode (div.Tensor_mode; a number divisor is wrapped, as the Python binding
    does, so its node is DivBackward2 too): None divides truly, 'trunc' and 'floor' round the quotient
    and keep the operands' result dtype."""
    if rounding_mode is _NO_MODE:
        return div(self, other)
    if rounding_mode is not None and not isinstance(rounding_mode, str):
        got = "Tensor, Tensor" if isinstance(other, _TB) else f"Tensor, {type(other).__name__}"
        raise TypeError(
            f"div() received an invalid combination of arguments - got ({got}, rounding_mode="
            f"{type(rounding_mode).__name__}), but expected one of:\n"
            " * (Tensor input, Tensor other, *, Tensor out = None)\n"
            " * (Tensor input, Tensor other, *, str rounding_mode, Tensor out = None)\n"
            " * (Tensor input, Number other, *, str rounding_mode)\n")
    _div_mode_check(rounding_mode)
    a, b = self._array, _array_or_number(other)
    _shapes(a, b)
    if rounding_mode is None:
        dtype = _float_dtype(_result_type_n(a, b))
        r = _compute(np.true_divide, self, dtype, a, b)
    else:
        dtype = _result_type_n(a, b)
        if dtype == _b1:
            raise _not_implemented(f"div_{rounding_mode}_cpu", dtype)
        r = _compute(_trunc_divide if rounding_mode == "trunc" else _floor_divide, self, dtype, a, b)
    out = _wrap(r, self)
    if isinstance(other, _TB):
        # self is saved only for other's gradient (should_compute_output)
        return _record(_S.DivBackward2, (self, other), out, self=self if other.requires_grad else None,
                       other=other, rounding_mode=rounding_mode, self_scalar_type=a.dtype)
    return _record_number(_S.DivBackward2, self, out, self=None, other=other, rounding_mode=rounding_mode,
                          self_scalar_type=a.dtype)


@_out_arg("div")
def true_divide(self, other):
    return div(self, other)


@_out_arg("floor_divide", differentiable=False)
def floor_divide(self, other):
    """at::floor_divide: div(..., rounding_mode='floor'); torch has no derivative for it (its node is
    NotImplemented, whose backward raises)."""
    a, b = self._array, _array_or_number(other)
    _shapes(a, b)
    dtype = _result_type_n(a, b)
    if dtype == _b1:
        raise _not_implemented("div_floor_cpu", dtype)
    out = _wrap(_compute(_floor_divide, self, dtype, a, b), self)
    return _record_not_implemented("aten::floor_divide", self, other, out)


def rfloordiv(self, other):
    """other // self for a Python number `other` (Tensor.__rfloordiv__)."""
    a = self._array
    dtype = _result_type_n(a, other)
    if dtype == _b1:
        raise _not_implemented("div_floor_cpu", dtype)
    out = _wrap(_compute(_floor_divide, self, dtype, other, a), self)
    return _record_not_implemented("aten::floor_divide", other, self, out)


def _record_not_implemented(name, self, other, out):
    """torch::autograd::NotImplemented: the node of an op without a derivative formula, whose
    backward raises 'derivative for <name> is not implemented' (one edge per tensor operand)."""
    if isinstance(self, _TB) and isinstance(other, _TB):
        return _record(_S.NotImplemented0, (self, other), out, name=name)
    return _record_ni((self if isinstance(self, _TB) else other,), out, name)


def _record_ni(inputs, out, name):
    return _record(_S.NotImplemented1, inputs, out, name=name)


def remainder(self, other):
    """at::remainder: Python's modulus (the result has the divisor's sign)."""
    if not isinstance(self, _TB):  # remainder(Scalar, Tensor)
        return rremainder(other, self)
    a, b = self._array, _array_or_number(other)
    _shapes(a, b)
    dtype = _result_type_n(a, b)
    if dtype == _b1:
        raise _not_implemented("remainder_cpu", dtype)
    out = _wrap(_compute(_remainder, self, dtype, a, b), self)
    if isinstance(other, _TB):
        saved = other.requires_grad
        return _record(_S.RemainderBackward1, (self, other), out, self=self if saved else None,
                       other=other if saved else None)
    return _record(_S.RemainderBackward0, (self,), out)


def rremainder(self, other):
    """other % self for a Python number `other` (remainder.Scalar_Tensor, Tensor.__rmod__): no derivative."""
    a = self._array
    dtype = _result_type_n(a, other)
    if dtype == _b1:
        raise _not_implemented("remainder_cpu", dtype)
    out = _wrap(_compute(_remainder, self, dtype, other, a), self)
    return _record_ni((self,), out, "aten::remainder")


def fmod(self, other):
    """at::fmod: C's fmod (the result has the dividend's sign)."""
    if not isinstance(self, _TB):
        _invalid_fmod(self, other)
    a, b = self._array, _array_or_number(other)
    if not isinstance(other, (_TB, bool, int, float)):
        _invalid_fmod(self, other)
    _shapes(a, b)
    dtype = _result_type_n(a, b)
    if dtype == _b1:
        raise _not_implemented("fmod_cpu", dtype)
    out = _wrap(_compute(_fmod, self, dtype, a, b), self)
    if isinstance(other, _TB):
        saved = other.requires_grad
        return _record(_S.FmodBackward1, (self, other), out, self=self if saved else None,
                       other=other if saved else None)
    return _record(_S.FmodBackward0, (self,), out)


def _invalid_fmod(self, other):
    raise TypeError(f"fmod() received an invalid combination of arguments - got ({_type_name(self)}, "
                    f"{_type_name(other)}), but expected one of:\n"
                    " * (Tensor input, Tensor other, *, Tensor out = None)\n"
                    " * (Tensor input, Number other, *, Tensor out = None)\n")


def _type_name(x):
    return "Tensor" if isinstance(x, _TB) else type(x).__name__


def _tensor_arg(fn, name, position, x):
    """The Python binding's check of a Tensor argument."""
    if not isinstance(x, _TB):
        raise TypeError(f"{fn}(): argument '{name}' (position {position}) must be Tensor, not {type(x).__name__}")


def _tensor_tensor(fn, ufunc, spec, self, other, floating_only=None):
    """An op of two tensors computed by a numpy ufunc in their result dtype, whose node saves both."""
    _tensor_arg(fn, "other", 2, other)
    a, b = self._array, other._array
    dtype = _result_type_n(a, b)
    if floating_only and dtype.kind != "f":
        raise _not_implemented(floating_only, dtype)
    out = _wrap(_compute(ufunc, self, dtype, a, b), self)
    return _record(spec, (self, other), out, self=self, other=other)


def maximum(self, other):
    """at::maximum: the larger element, nan where either is nan."""
    return _tensor_tensor("maximum", np.maximum, _S.MaximumBackward0, self, other)


def minimum(self, other):
    return _tensor_tensor("minimum", np.minimum, _S.MinimumBackward0, self, other)


def fmax(self, other):
    """at::fmax: the larger element, the other one where one is nan."""
    return _tensor_tensor("fmax", np.fmax, _S.FmaxBackward0, self, other)


def fmin(self, other):
    return _tensor_tensor("fmin", np.fmin, _S.FminBackward0, self, other)


def hypot(self, other):
    _tensor_arg("hypot", "other", 2, other)
    a, b = self._array, other._array
    _shapes(a, b)
    dtype = _result_type_n(a, b)
    if dtype.kind != "f":
        raise _not_implemented("hypot_cpu", dtype)
    out = _wrap(_compute(np.hypot, self, dtype, a, b), self)
    return _record(_S.HypotBackward0, (self, other), out, self=self if self.requires_grad else None,
                   other=other if other.requires_grad else None, result=out)


def _logaddexp(a, b):
    """torch's logaddexp kernel: max(a, b) + log1p(exp(-|a - b|)), a itself where a == b is infinite."""
    m = np.maximum(a, b)
    return np.where((a == b) & (np.abs(a) == np.inf), a, m + np.log1p(np.exp(-np.abs(a - b))))


def logaddexp(self, other):
    _tensor_arg("logaddexp", "other", 2, other)
    a, b = self._array, other._array
    _shapes(a, b)
    dtype = _result_type_n(a, b)
    if dtype.kind != "f":
        raise _not_implemented("logaddexp_cpu", dtype)
    out = _wrap(_compute(_logaddexp, self, dtype, a, b), self)
    return _record(_S.LogaddexpBackward0, (self, other), out, self=self, other=other)


def _xlogy(x, y):
    """torch's xlogy kernel: nan where y is nan, 0 where x is 0, else x * log(y)."""
    return np.where(np.isnan(y), np.nan, np.where(x == 0, 0, x * np.log(y)))


def xlogy(self, other):
    """at::xlogy: x * log(y), 0 where x == 0 (integer and bool operands in float32)."""
    if not isinstance(self, _TB):
        _tensor_arg("xlogy", "other", 2, other)
        b = other._array
        dtype = _float_dtype(_result_type_n(self, b))
        out = _wrap(_compute(_xlogy, other, dtype, self, b), other)
        return _record(_S.XlogyBackward1, (other,), out, self=self, other=other)
    a, b = self._array, _array_or_number(other)
    dtype = _float_dtype(_result_type_n(a, b))
    out = _wrap(_compute(_xlogy, self, dtype, a, b), self)
    if isinstance(other, _TB):
        return _record(_S.XlogyBackward0, (self, other), out, self=self, other=other)
    return _record(_S.XlogyBackward2, (self,), out, self=self, other=other)


# lerp (ATen/native/Lerp.h) -------------------------------------------------------------

def _lerp(start, end, weight, dtype):
    """lerp_vec: fmadd(coeff, end - start, base), with coeff, base = (weight, start) where |weight| < 0.5,
    else (weight - 1, end): one rounding of the product and sum."""
    token = _quiet()
    try:
        if type(weight) is np.ndarray and weight.ndim == 0:
            # a Python number's weight: one coefficient and one base for every element
            w = weight[()]
            if abs(w) < 0.5:
                return _fma(w, np.asarray(end - start, dtype), start, dtype)
            return _fma(dtype.type(w - dtype.type(1)), np.asarray(end - start, dtype), end, dtype)
        small = np.abs(weight) < 0.5
        coeff = np.where(small, weight, np.asarray(weight - dtype.type(1), dtype))
        base = np.where(small, start, end)
        return _fma(coeff, np.asarray(end - start, dtype), base, dtype)
    finally:
        _loud(token)


def lerp(self, end, weight):
    """at::lerp: self + weight * (end - self), of float tensors of one dtype."""
    _tensor_arg("lerp", "end", 2, end) if isinstance(weight, _TB) else None
    if not isinstance(end, _TB) or not isinstance(weight, (_TB, bool, int, float)):
        raise TypeError(f"lerp() received an invalid combination of arguments - got (Tensor, {_type_name(end)}, "
                        f"{_type_name(weight)}), but expected one of:\n"
                        " * (Tensor input, Tensor end, Tensor weight, *, Tensor out = None)\n"
                        " * (Tensor input, Tensor end, Number weight, *, Tensor out = None)\n")
    a, e = self._array, end._array
    dtype = a.dtype
    if e.dtype != dtype:
        raise RuntimeError(f"expected dtype {_c_name(dtype)} for `end` but got dtype {_c_name(e.dtype)}")
    tensor_weight = isinstance(weight, _TB)
    w = weight._array if tensor_weight else weight
    if tensor_weight and w.dtype != dtype and w.ndim:  # a 0-d weight of another dtype is cast
        raise RuntimeError(f"expected dtype {_c_name(dtype)} for `weight` but got dtype {_c_name(w.dtype)}")
    if tensor_weight:
        # lerp.Tensor's TensorIterator computes in the operands' common dtype, where a 0-d weight of
        # a higher category promotes (bool self and end with a 0-d float weight: float)
        dtype = _result_type_n(a, e, w)
    if dtype.kind != "f":
        raise _not_implemented("lerp_kernel_tensor" if tensor_weight else "lerp_kernel_scalar", dtype)
    r = _compute(lambda s, t, u: _lerp(s, t, u, dtype), self, dtype, a, e, w)
    out = _wrap(r, self)
    if tensor_weight:
        return _record(_S.LerpBackward1, (self, end, weight), out, self=self if weight.requires_grad else None,
                       end=end if weight.requires_grad else None, weight=weight)
    return _record(_S.LerpBackward0, (self, end), out, weight=weight)


def _c_name(dtype):
    """c10's name of a dtype in TORCH_CHECK messages (toString of the C++ type)."""
    return {"float32": "float", "float64": "double", "int64": "long int", "bool": "bool"}[dtype.name]


# addcmul / addcdiv (ATen/native/PointwiseOps.cpp) ------------------------------------

_ADDCDIV_INT = ("Integer division with addcdiv is no longer supported, and in a future  release addcdiv will "
                "perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented "
                "as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as "
                "(input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the "
                "latter implementation: (input + value * tensor1 / tensor2), for all dtypes.")


def _addc(name, self, tensor1, tensor2, value, spec):
    _tensor_arg(name, "tensor1", 2, tensor1)
    _tensor_arg(name, "tensor2", 3, tensor2)
    a, t1, t2 = self._array, tensor1._array, tensor2._array
    if name == "addcdiv" and t1.dtype.kind in "iub" and t2.dtype.kind in "iub":
        raise RuntimeError(_ADDCDIV_INT)
    _shapes(a, t1, t2)
    dtype = _result_type_n(a, t1, t2)
    if dtype == _b1:
        raise _not_implemented(f"{name}_cpu_out", dtype)
    v = _scalar_value(value, dtype)
    if name == "addcmul":
        r = _compute(lambda s, x, y: s + v * x * y, self, dtype, a, t1, t2)
    else:
        r = _compute(lambda s, x, y: s + v * x / y, self, dtype, a, t1, t2)
    out = _wrap(r, self)
    # upstream's generated code saves a tensor that one formula reads only where that input needs its
    # gradient (should_compute_output), one that two read always: addcdiv's tensor2 is in both formulas
    return _record(spec, (self, tensor1, tensor2), out, tensor1=tensor1 if tensor2.requires_grad else None,
                   tensor2=tensor2 if tensor1.requires_grad or spec is _S.AddcdivBackward0 else None, value=value)


def addcmul(self, tensor1, tensor2, *, value=1):
    """at::addcmul: self + value * tensor1 * tensor2."""
    return _addc("addcmul", self, tensor1, tensor2, value, _S.AddcmulBackward0)


def addcdiv(self, tensor1, tensor2, *, value=1):
    """at::addcdiv: self + value * tensor1 / tensor2 (not for two integer tensors)."""
    return _addc("addcdiv", self, tensor1, tensor2, value, _S.AddcdivBackward0)


# clamp (ATen/native/TensorCompare.cpp) -------------------------------------------------

def _clamp_kernel(x, lo, hi):
    if lo is not None:
        x = np.maximum(x, lo)
    if hi is not None:
        x = np.minimum(x, hi)
    return x


def _invalid_clamp(fn, self, args, kwargs):
    got = ", ".join([_type_name(self)] + [_type_name(a) for a in args] + [f"{k}={_type_name(v)}"
                                                                          for k, v in sorted(kwargs.items())])
    if fn == "clamp" or fn == "clip":
        lines = (" * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)\n"
                 " * (Tensor input, Number min = None, Number max = None, *, Tensor out = None)\n")
    else:
        bound = fn.split("_")[1]
        lines = (f" * (Tensor input, Tensor {bound}, *, Tensor out = None)\n"
                 f" * (Tensor input, Number {bound}, *, Tensor out = None)\n")
    raise TypeError(f"{fn}() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                    + lines)


def _clamp(fn, self, args, kwargs):
    if len(args) > 2 or set(kwargs) - {"min", "max"}:
        _invalid_clamp(fn, self, args, kwargs)
    bounds = dict(zip(("min", "max"), args, strict=False))
    for k, v in kwargs.items():
        if k in bounds:
            raise TypeError(f"{fn}() got multiple values for argument '{k}'")
        bounds[k] = v
    lo, hi = bounds.get("min"), bounds.get("max")
    given = [v for v in (lo, hi) if v is not None]
    tensors = [isinstance(v, _TB) for v in given]
    if any(tensors) and not all(tensors) or not all(isinstance(v, (_TB, bool, int, float)) for v in given):
        _invalid_clamp(fn, self, args, kwargs)
    if not given:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    a = self._array
    if tensors[0]:
        la = lo._array if lo is not None else None
        ha = hi._array if hi is not None else None
        _shapes(a, la, ha)
        dtype = _result_type_n(a, la, ha)
        if dtype == _b1 and la is not None and ha is not None:
            raise _not_implemented("clamp_cpu", dtype)  # one bound alone runs clamp_min's or clamp_max's kernel
        operands = [x for x in (a, la, ha) if x is not None]
        r = _compute(lambda x, *bs: _clamp_kernel(x, bs[0] if la is not None else None, bs[-1] if ha is not None
                                                  else None), self, dtype, *operands)
        out = _wrap(r, self)
        placeholder = self.detach()
        return _record(_S.ClampBackward0, (self, lo if lo is not None else placeholder,
                                           hi if hi is not None else placeholder), out, self=self, min=lo, max=hi)
    dtype = _result_type_n(a, lo, hi)
    if dtype == _b1:
        raise _not_implemented("clamp_scalar_cpu" if lo is not None and hi is not None else
                               "clamp_min_scalar_cpu" if lo is not None else "clamp_max_scalar_cpu", dtype)
    r = _compute(lambda x: _clamp_kernel(x, None if lo is None else np.asarray(lo).astype(dtype),
                                         None if hi is None else np.asarray(hi).astype(dtype)), self, dtype, a)
    return _record(_S.ClampBackward1, (self,), _wrap(r, self), self=self, min=lo, max=hi)


def clamp(self, *args, out=None, **kwargs):
    """at::clamp: the elements limited to [min, max] (numbers, or tensors that broadcast); nan stays nan."""
    if out is not None:
        return _clamp_out("clamp", lambda: _clamp("clamp", self, args, kwargs), out, (self, *args, *kwargs.values()))
    return _clamp("clamp", self, args, kwargs)


def clip(self, *args, out=None, **kwargs):
    """at::clip, clamp's alias."""
    return clamp(self, *args, out=out, **kwargs)


def _clamp_out(name, compute, out, operands):
    """clamp's out= (clamp.out, clamp_min.out, ...): with number bounds the structured kernel wants out
    in the result dtype exactly ("Found dtype ... but expected ..."); with tensor bounds, a dtype it
    casts to."""
    tensor_bound = any(isinstance(x, _TB) for x in operands[1:])

    def fn():
        r = compute()
        if not tensor_bound and isinstance(out, _TB) and out._array.dtype != r._array.dtype:
            raise RuntimeError(f"Found dtype {_torch_type_name(out._array.dtype)} but expected "
                               f"{_torch_type_name(r._array.dtype)}")
        return r
    return _out_of(name, fn, out, operands)


def clamp_min(self, min, *, out=None):  # noqa: A002 - torch's name
    def compute():
        return _clamp_one("clamp_min", self, min, _S.ClampMinBackward0, _S.ClampMinBackward1, np.maximum)
    return compute() if out is None else _clamp_out("clamp_min", compute, out, (self, min))


def clamp_max(self, max, *, out=None):  # noqa: A002 - torch's name
    def compute():
        return _clamp_one("clamp_max", self, max, _S.ClampMaxBackward0, _S.ClampMaxBackward1, np.minimum)
    return compute() if out is None else _clamp_out("clamp_max", compute, out, (self, max))


# Bitwise and logical ops (never differentiable) ----------------------------------------

def _bitwise(kernel_name, ufunc, self, other):
    if not isinstance(self, _TB) and isinstance(other, _TB) and isinstance(self, (bool, int, float)):
        self, other = other, self  # bitwise_and.Scalar_Tensor: the ops commute
    a, b = self._array, _array_or_number(other)
    if not isinstance(b, (*_backend.array_types, bool, int, float)):
        raise TypeError(f"{kernel_name}(): argument 'other' must be Tensor, not {type(other).__name__}")
    _shapes(a, b)
    dtype = _result_type_n(a, b)
    if dtype.kind == "f":
        raise _not_implemented(kernel_name, dtype)
    return _wrap(_compute(ufunc, self, dtype, a, b), self)


@_out_arg("bitwise_and", differentiable=False)
def bitwise_and(self, other):
    return _bitwise("bitwise_and_cpu", np.bitwise_and, self, other)


@_out_arg("bitwise_or", differentiable=False)
def bitwise_or(self, other):
    return _bitwise("bitwise_or_cpu", np.bitwise_or, self, other)


@_out_arg("bitwise_xor", differentiable=False)
def bitwise_xor(self, other):
    return _bitwise("bitwise_xor_cpu", np.bitwise_xor, self, other)


def _lshift(a, b):
    """torch's lshift kernel: `a` shifted as unsigned, 0 for a shift below 0 or of the width or more."""
    bits = a.dtype.itemsize * 8
    ok = (b >= 0) & (b < bits)
    shifted = np.left_shift(a.astype(np.uint64), np.where(ok, b, 0).astype(np.uint64)).astype(a.dtype)
    return np.where(ok, shifted, 0)


def _rshift(a, b):
    """torch's rshift kernel: an arithmetic shift, by width - 1 for a shift below 0 or of the width or more."""
    bits = a.dtype.itemsize * 8
    ok = (b >= 0) & (b < bits)
    return np.right_shift(a, np.where(ok, b, bits - 1).astype(a.dtype))


def _shift(kernel_name, fn, self, other):
    """A shift of a tensor by a tensor or a number, or of a number by a tensor (the reflected operators)."""
    if not isinstance(other if isinstance(self, _TB) else self, (_TB, bool, int, float)):
        raise TypeError(f"{kernel_name}(): argument 'other' must be Tensor, not {type(other).__name__}")
    x, y = _array_or_number(self), _array_or_number(other)
    like = self if isinstance(self, _TB) else other
    _shapes(x, y)
    dtype = _result_type_n(x, y)
    if dtype.kind not in "iu":
        raise _not_implemented(kernel_name, dtype)
    return _wrap(_compute(fn, like, dtype, x, y), like)


@_out_arg("bitwise_left_shift", differentiable=False)
def bitwise_left_shift(self, other):
    return _shift("lshift_cpu", _lshift, self, other)


@_out_arg("bitwise_right_shift", differentiable=False)
def bitwise_right_shift(self, other):
    return _shift("rshift_cpu", _rshift, self, other)


def rlshift(self, other):
    """other << self for a Python number `other` (Tensor.__rlshift__)."""
    return _shift("lshift_cpu", _lshift, other, self)


def rrshift(self, other):
    return _shift("rshift_cpu", _rshift, other, self)


def bitwise_not(self, *, out=None):
    """at::bitwise_not; its out= (a structured unary op's) must have the input's dtype exactly."""
    _tensor_arg("bitwise_not", "input", 1, self)
    a = self._array
    if out is not None:
        if isinstance(out, _TB) and out._array.dtype != a.dtype:
            raise RuntimeError(f"Found dtype {_torch_type_name(out._array.dtype)} but expected "
                               f"{_torch_type_name(a.dtype)}")
        return _out_of("bitwise_not", lambda: bitwise_not(self), out, (), False)
    if a.dtype.kind == "f":
        raise _not_implemented("bitwise_not_cpu", a.dtype)
    return _wrap(_compute(np.invert, self, a.dtype, a), self)


def invert(self):
    """Tensor.__invert__ (python_variable_methods.cpp's check first)."""
    if self._array.dtype.kind == "f":
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return bitwise_not(self)


def _logical(fn, ufunc, self, other):
    _tensor_arg(fn, "other", 2, other)
    a, b = self._array, other._array
    shape = a.shape if a.shape == b.shape else _broadcast_shapes(a.shape, b.shape)
    out = _out(shape, _b1, self, a, b, promote=False)
    token = _quiet()
    try:
        r = ufunc(a, b) if out is None else ufunc(a, b, out=out)
    finally:
        _loud(token)
    return _wrap(_backend.asarray(r), self)


@_out_arg("logical_and", differentiable="data")
def logical_and(self, other):
    return _logical("logical_and", np.logical_and, self, other)


@_out_arg("logical_or", differentiable="data")
def logical_or(self, other):
    return _logical("logical_or", np.logical_or, self, other)


@_out_arg("logical_xor", differentiable="data")
def logical_xor(self, other):
    return _logical("logical_xor", np.logical_xor, self, other)


@_out_arg("logical_not", differentiable="data")
def logical_not(self):
    _tensor_arg("logical_not", "input", 1, self)
    a = self._array
    return _wrap(_compute(np.logical_not, self, _b1, a), self)


# The reflected operators and aliases --------------------------------------------------

@_out_arg("mul")
def multiply(self, other):
    return mul(self, other)


@_out_arg("sub")
def subtract(self, other, *args, alpha=1):
    if args:  # subtract.Scalar(Tensor self, Scalar other, Scalar alpha=1): alpha may come positionally
        if isinstance(other, _TB) or len(args) > 1:
            raise TypeError(f"subtract() takes 2 positional arguments but {2 + len(args)} were given")
        alpha = args[0]
    return sub(self, other, alpha=alpha)


@_out_arg("div")
def divide(self, other, *, rounding_mode=_NO_MODE):
    return div_mode(self, other, rounding_mode=rounding_mode)


def matmul_operator(self, other):
    """self @ other (Tensor.__matmul__): NotImplemented for a non-tensor, as torch's wrapper returns."""
    if not isinstance(other, _TB):
        return NotImplemented
    return matmul(self, other)


def rmatmul(self, other):
    """other @ self (Tensor.__rmatmul__): NotImplemented for a non-tensor, as torch's wrapper returns."""
    if not isinstance(other, _TB):
        return NotImplemented
    return matmul(other, self)


def operator(fn):
    """A Python operator over fn: NotImplemented where the other operand is not a tensor or a number (torch's
    _handle_torch_function_and_wrap_type_error_to_not_implemented), so Python tries the reflected one."""
    def op(self, other):
        if not isinstance(other, (_TB, bool, int, float)):
            return NotImplemented
        return fn(self, other)
    op.__name__ = op.__qualname__ = fn.__name__
    op.__doc__ = fn.__doc__
    return op


# In-place forms of the ops without a derivative ------------------------------------------
# (the differentiable ones are structured in-place variants: native_functions.yaml's
# structured_delegate lines, Note [Structured in-place variants])

def _check_overlaps(a, operands):
    """TensorIterator's compute_mem_overlaps, which comes before compute_shape and the kernel's
    dtype dispatch (TensorIterator.cpp, TensorIteratorBase::build): the written-to self's internal
    overlap, then its partial overlap with each tensor operand."""
    _check_overlap(a)
    for x in operands:
        if isinstance(x, _TB):
            _check_overlap(a, x._array)


def _inplace_no_derivative(fn, self, *args, check_inplace=True):
    """self.<op>_(...) of an op without a derivative (bitwise_*, logical_*): the result written into
    self after TensorIterator's shape and cast checks, the version bumped, the history left as is.
    bitwise_*_ check first that self may be written (check_inplace: not a leaf that requires grad);
    logical_*_ check nothing of autograd's, as torch's kernels."""
    _tensor_arg(fn.__name__ + "_", "self", 1, self)
    if check_inplace:
        _C._check_inplace(self, _C.is_grad_enabled() and (self.requires_grad or any(
            isinstance(x, _TB) and x.requires_grad for x in args)))
    a = self._array
    _check_overlaps(a, args)
    full = _shapes(a, *(x._array for x in args if isinstance(x, _TB)))
    if full != a.shape:
        raise RuntimeError(f"output with shape {list(a.shape)} doesn't match the broadcast shape {list(full)}")
    try:
        r = fn(self, *args)
    except NotImplementedError as err:
        # TensorIterator checks the cast of the result dtype into self before the kernel's dispatch
        dtype = getattr(err, "dtype", None)
        if dtype is not None and not _can_cast(dtype, a.dtype):
            raise RuntimeError(f"result type {_torch_type_name(dtype)} can't be cast to the desired output type "
                               f"{_torch_type_name(a.dtype)}") from None
        raise
    if r is NotImplemented:
        raise TypeError(f"{fn.__name__}_(): argument 'other' (position 1) must be Tensor, not "
                        f"{type(args[0]).__name__}")
    _check_inplace_broadcast(a.shape, r._array.shape)
    if not _can_cast(r._array.dtype, a.dtype):
        raise RuntimeError(f"result type {_torch_type_name(r._array.dtype)} can't be cast to the desired output "
                           f"type {_torch_type_name(a.dtype)}")
    if _mutation.hook is not None:
        _mutation.hook(self)
    token = _quiet()
    try:
        np.copyto(a, r._array, casting="unsafe")
    finally:
        _loud(token)
    self._bump_version()
    return self


def bitwise_and_(self, other):
    return _inplace_no_derivative(bitwise_and, self, other)


def bitwise_or_(self, other):
    return _inplace_no_derivative(bitwise_or, self, other)


def bitwise_xor_(self, other):
    return _inplace_no_derivative(bitwise_xor, self, other)


def bitwise_left_shift_(self, other):
    return _inplace_no_derivative(bitwise_left_shift, self, other)


def bitwise_right_shift_(self, other):
    return _inplace_no_derivative(bitwise_right_shift, self, other)


def bitwise_not_(self):
    return _inplace_no_derivative(bitwise_not, self)


def logical_and_(self, other):
    return _inplace_no_derivative(logical_and, self, other, check_inplace=False)


def logical_or_(self, other):
    return _inplace_no_derivative(logical_or, self, other, check_inplace=False)


def logical_xor_(self, other):
    return _inplace_no_derivative(logical_xor, self, other, check_inplace=False)


def logical_not_(self):
    return _inplace_no_derivative(logical_not, self, check_inplace=False)


def inplace_operator(name):
    """A Python in-place operator (__iand__, __ifloordiv__, ...) calling the method `name`:
    NotImplemented where the other operand is not a tensor or a number."""
    def op(self, other):
        if not isinstance(other, (_TB, bool, int, float)):
            return NotImplemented
        return getattr(self, name)(other)
    op.__name__ = op.__qualname__ = name
    return op


# In-place forms by hand where the structured one differs: floor_divide_'s NotImplemented node
# names the in-place op; clamp's number bounds check the cast into self first, in C++ type names

def floor_divide_(self, other):
    """Tensor.floor_divide_ (//=): floor_divide's kernel written into self; its NotImplemented node
    names aten::floor_divide_."""
    def floor_divide_kernel(x, y):
        a, b = x._array, _array_or_number(y)
        _shapes(a, b)
        dtype = _result_type_n(a, b)
        if dtype == _b1:
            raise _not_implemented("div_floor_cpu", dtype)
        return _record_not_implemented("aten::floor_divide_", x, y, _wrap(_compute(_floor_divide, x, dtype, a, b), x))
    _inplace_shapes(self, (other,), {})
    return inplace_variant(floor_divide_kernel, self, (other,), {})


def _clamp_inplace(functional, self, args, kwargs):
    _inplace_shapes(self, args, kwargs)
    bounds = [b for b in (*args, *kwargs.values()) if b is not None]
    if bounds and not any(isinstance(b, _TB) for b in bounds) and all(isinstance(b, (bool, int, float))
                                                                        for b in bounds):
        dtype = _result_type_n(self._array, *bounds)
        if not _can_cast(dtype, self._array.dtype):
            raise RuntimeError(f"result type {_torch_type_name(dtype)} can't be cast to the desired output type "
                               f"{_c_name(self._array.dtype)}")
    return inplace_variant(functional, self, args, kwargs)


def clamp_(self, *args, **kwargs):
    return _clamp_inplace(clamp, self, args, kwargs)


def clip_(self, *args, **kwargs):
    return _clamp_inplace(clip, self, args, kwargs)


def clamp_min_(self, min):  # noqa: A002 - torch's name
    return _clamp_inplace(clamp_min, self, (min,), {})


def clamp_max_(self, max):  # noqa: A002 - torch's name
    return _clamp_inplace(clamp_max, self, (max,), {})


def _inplace_shapes(self, args, kwargs):
    """autograd's check_inplace (VariableType's, first), then TensorIterator's overlap and shape checks
    of an in-place op, in that order, which come before its kernel's dtype and value errors (a bool
    kernel, an integer division by zero): self's memory not shared with an operand's, the operands
    broadcast to self's shape."""
    _C._check_inplace(self, _C.is_grad_enabled() and (self.requires_grad or any(
        isinstance(x, _TB) and x.requires_grad for x in (*args, *kwargs.values()))))
    a = self._array
    _check_overlaps(a, (*args, *kwargs.values()))
    full = _shapes(a, *(x._array for x in (*args, *kwargs.values()) if isinstance(x, _TB)))
    if full != a.shape:
        raise RuntimeError(f"output with shape {list(a.shape)} doesn't match the broadcast shape {list(full)}")


def structured_(functional, meta=None):
    """The in-place variant of `functional` (upstream's structured_delegate): the checks of its meta
    function that come before TensorIterator's (`meta`), TensorIterator's shape checks, then the
    structured in-place variant (structured_inplace.inplace_variant)."""
    def op(self, *args, **kwargs):
        _C._check_inplace(self, _C.is_grad_enabled() and (self.requires_grad or any(
            isinstance(x, _TB) and x.requires_grad for x in (*args, *kwargs.values()))))
        if meta is not None:
            meta(self, *args, **kwargs)
        _inplace_shapes(self, args, kwargs)
        return inplace_variant(functional, self, args, kwargs)
    op.__name__ = op.__qualname__ = functional.__name__ + "_"
    op.__doc__ = f"Tensor.{functional.__name__}_: {functional.__name__}'s kernel written into self."
    return op


def _addcdiv_meta(self, tensor1=None, tensor2=None, **kwargs):
    if isinstance(tensor1, _TB) and isinstance(tensor2, _TB) and tensor1._array.dtype.kind in "iub" and \
            tensor2._array.dtype.kind in "iub":
        raise RuntimeError(_ADDCDIV_INT)


def _subtract_meta(self, other=None, alpha=1):
    _sub_check(self._array.dtype, other._array.dtype if isinstance(other, _TB) else _number_dtype(other))


def _lerp_meta(self, end=None, weight=None, **kwargs):
    dtype = self._array.dtype
    if isinstance(end, _TB) and end._array.dtype != dtype:
        raise RuntimeError(f"expected dtype {_c_name(dtype)} for `end` but got dtype {_c_name(end._array.dtype)}")
    if isinstance(weight, _TB) and weight._array.dtype != dtype and weight._array.ndim:
        raise RuntimeError(f"expected dtype {_c_name(dtype)} for `weight` but got dtype "
                           f"{_c_name(weight._array.dtype)}")


addcdiv_ = structured_(addcdiv, _addcdiv_meta)
addcmul_ = structured_(addcmul)
divide_ = structured_(divide)
fmod_ = structured_(fmod)
hypot_ = structured_(hypot)
lerp_ = structured_(lerp, _lerp_meta)
multiply_ = structured_(multiply)
remainder_ = structured_(remainder)
subtract_ = structured_(subtract, _subtract_meta)
true_divide_ = structured_(true_divide)
xlogy_ = structured_(xlogy)
