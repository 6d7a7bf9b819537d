"""where and the comparisons (ATen/native/TensorCompare.cpp), never
differentiable."""
import numpy as np

from .. import _backend
from .._C import _record, _wrap
from .._generated import specs as _S
from .ExpandUtils import _broadcast_shapes
from .ScalarType import _b1, _checked_number, _torch_type_name
from .TensorFactories import _const
from .TensorIterator import (_TB, _WRAPPED_NUMBER, _copy_like, _loud, _number_dtype, _out, _promote_types, _quiet,
                             _result_type)


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
