"""Elementwise functions of one tensor (ATen/native/UnaryOps.cpp)."""
import numpy as np

from .._C import _record, _wrap
from .._generated import specs as _S
from .ScalarType import _b1, _f32, _f64
from .TensorIterator import _float_dtype, _loud, _out, _quiet


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
    x = a if a.dtype.kind == "f" else a.astype(_float_dtype(a.dtype))
    r = _out(a.shape, x.dtype, self, a)
    token = _quiet()
    try:
        if x.dtype.itemsize == 2:  # float16: computed in float32, rounded once (torch's Vectorized<Half>)
            np.copyto(r, 1 / (1 + np.exp(-x.astype(_f32))), casting="unsafe")
        else:
            np.exp(np.negative(x), out=r)
            np.add(r, 1, out=r)
            np.reciprocal(r, out=r)
    finally:
        _loud(token)
    out = _wrap(r, self)
    return _record(_S.SigmoidBackward0, (self,), out, result=out)


def abs(self):  # noqa: A001 - torch's name
    a = self._array
    if a.dtype == _b1:
        raise NotImplementedError("\"abs_cpu\" not implemented for 'Bool'")
    out = _wrap(np.abs(a), self)
    return _record(_S.AbsBackward0, (self,), out, self=self)
