"""pow (ATen/native/Pow.cpp), with a tensor or a number as base or exponent."""
import numpy as np

from .. import _backend
from .._C import _record, _wrap
from .._generated import specs as _S
from .ExpandUtils import _broadcast_shapes
from .ScalarType import _b1, _f16, _f32, _i64
from .TensorIterator import _TB, _loud, _out, _quiet, _result_type


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
        if dtype.kind in "iu":
            # int64 powers, wrapped into a narrower dtype (modular, as its own multiplications wrap)
            r = _int_pow(base, _backend.asarray(exponent))
            if out is None and dtype == _i64:  # every operand contiguous, of the result's shape: so is numpy's
                return r
            if out is None:
                return r.astype(dtype)
            np.copyto(out, r, casting="unsafe")
            return out
        if dtype == _f16:  # float16 operands, computed in float32, rounded once (torch's Vectorized<Half>)
            base = base.astype(_f16) if isinstance(base, _backend.array_types) else np.float16(base)
            if isinstance(exponent, _backend.array_types):
                exponent = exponent.astype(_f16)
            r = np.power(base, exponent, dtype=_f32)
            if out is None:
                return r.astype(dtype)
            np.copyto(out, r, casting="unsafe")
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
# (pow_tensor_scalar_kernel, PowKernel.cpp): x * x, x * x * x, 1 / (x * x), 1 / x,
# sqrt and rsqrt, so with their roundings (and x ** 0.5 is -0.0 at -0.0 and nan at
# -inf, x ** -0.5 is -inf at -0.0, where pow gives 0.0, inf and inf).
_POW_SPECIAL = {2: np.square, 3: _cube, -2: _inverse_square, -1: np.reciprocal, 0.5: np.sqrt, -0.5: _rsqrt}


def pow(self, exponent):  # noqa: A001 - torch's name
    if not isinstance(self, _TB) and isinstance(exponent, _TB):
        return rpow(exponent, self)  # pow.Scalar(Scalar self, Tensor exponent)
    a = self._array
    if isinstance(exponent, _TB):
        b = exponent._array
        dtype = _result_type(a, b)
        shape = a.shape if a.shape == b.shape else _broadcast_shapes(a.shape, b.shape)
        out = _wrap(_pow_kernel(a, b, dtype, self, shape, a.dtype == dtype == b.dtype), self)
        return _record(_S.PowBackward1, (self, exponent), out, self=self, exponent=exponent, result=out)
    if a.dtype.kind in "biu" and isinstance(exponent, int) and exponent < 0:
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
            if dtype == _f16:  # computed in float32, rounded once, as torch's Vectorized<Half>
                tmp = _backend.new(a, "empty", a.shape, _f32)
                _POW_SPECIAL[exponent](a.astype(_f16).astype(_f32), tmp)
                np.copyto(r, tmp, casting="unsafe")
            else:
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
