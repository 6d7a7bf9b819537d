"""where and the comparisons (ATen/native/TensorCompare.cpp), never
differentiable."""
import numpy as np

from .. import _C, _backend
from .._C import _inplace_node, _rebase_history, _record, _wrap
from .._generated import specs as _S
from .ExpandUtils import _broadcast_shapes
from .MemoryOverlap import _check_overlap
from .ScalarType import _b1, _checked_number, _torch_type_name
from .TensorFactories import _const
from .TensorShape import view
from .TensorIterator import (_TB, _WRAPPED_NUMBER, _copy_like, _loud, _number_dtype, _number_operand, _out,
                             _promote_types, _quiet, _result_type)
from . import mutation as _mutation


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
        a = _number_operand(a, dtype)  # -1 into uint8 is 255
    if db is None:
        _checked_number(b, dtype)
        b = _number_operand(b, dtype)
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
        elif not array and dtype.kind in "iu":
            b = _number_operand(b, dtype)  # int8 == 259 compares with 3, as the C++ conversion wraps
        shape = a.shape if not array or a.shape == b.shape else _broadcast_shapes(a.shape, b.shape)
        out = _out(shape, _b1, self, a, b if array else _WRAPPED_NUMBER, promote=False)
        return _wrap(_backend.asarray(np_fn(a, b, out=out)), self)
    except ValueError:
        _broadcast_shapes(a.shape, b.shape)  # torch's error where the shapes do not broadcast
        raise
    finally:
        _loud(token)


# issue 13 (utilities): the comparisons as functions and methods, and the value tests of
# TensorCompare.cpp (isclose, allclose, equal, isnan, isinf, isfinite, isposinf, isneginf, isreal,
# isin). None of them is differentiable: torch records no node for a bool result.

_NUMBER_TYPES = (bool, int, float, np.number, np.bool_)


def _invalid_combination(name, args, signatures):
    """torch's argument parser's TypeError for arguments no overload takes (the function form)."""
    got = ", ".join("Tensor" if isinstance(a, _TB) else type(a).__name__ for a in args)
    expected = "".join(f" * ({s})\n" for s in signatures)
    return TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                     + expected)


def _comparison(name, np_fn):
    def op(input, other):  # noqa: A002 - torch's names
        if not isinstance(input, _TB) or not isinstance(other, (_TB, *_NUMBER_TYPES)):
            raise _invalid_combination(name, (input, other), ("Tensor input, Tensor other, *, Tensor out = None",
                                                              "Tensor input, Number other, *, Tensor out = None"))
        if isinstance(other, _TB):
            _backend.check_same_device(input._array, other._array)
        return _compare(np_fn, input, other)
    op.__name__ = op.__qualname__ = name
    op._out_as_data = True  # out= written as data (Resize.out_variant)
    return op


eq = _comparison("eq", np.equal)
ne = _comparison("ne", np.not_equal)
lt = _comparison("lt", np.less)
le = _comparison("le", np.less_equal)
gt = _comparison("gt", np.greater)
ge = _comparison("ge", np.greater_equal)
# torch's alias names (native_functions.yaml's greater, not_equal, ...: the same kernels, their own names
# in the argument parser's errors)
not_equal = _comparison("not_equal", np.not_equal)
less = _comparison("less", np.less)
less_equal = _comparison("less_equal", np.less_equal)
greater = _comparison("greater", np.greater)
greater_equal = _comparison("greater_equal", np.greater_equal)


def _method_invalid(name, other):
    """torch's argument parser's TypeError for a method's argument no overload takes."""
    got = type(other).__name__
    return TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                     f" * (Tensor other)\n      didn't match because some of the arguments have invalid types: "
                     f"(!{got}!)\n * (Number other)\n      didn't match because some of the arguments have invalid "
                     f"types: (!{got}!)\n")


def _inplace_comparison(name, np_fn, node):
    """self.<cmp>_(other): the comparison's bool result written into self in its dtype; a float self
    gets the node (`<Node>Backward0` with a number, `...1` with a tensor), whose gradient is zero."""
    def op_(self, other):
        if not isinstance(other, (_TB, *_NUMBER_TYPES)):
            raise _method_invalid(name, other)
        tensor = isinstance(other, _TB)
        a = self._array
        # check_inplace, then TensorIterator's overlap checks, as a structured in-place op runs them
        _C._check_inplace(self, _C.is_grad_enabled() and (self.requires_grad or tensor and other.requires_grad))
        _check_overlap(a)
        if tensor:
            _check_overlap(a, other._array)
        r = _compare(np_fn, self, other)._array
        if r.shape != a.shape:
            raise RuntimeError(f"output with shape {list(a.shape)} doesn't match the broadcast shape {list(r.shape)}")
        spec = getattr(_S, f"{node}Backward{1 if tensor else 0}")
        # the node whatever self's dtype: an integer self compared with a tensor that requires grad
        # requires grad after, as in torch
        inplace = _inplace_node(spec, (self, other) if tensor else (self,))
        if _mutation.hook is not None:
            _mutation.hook(self)
        a[...] = r
        self._bump_version()
        return _rebase_history(self, inplace)
    op_.__name__ = op_.__qualname__ = name
    return op_


eq_ = _inplace_comparison("eq_", np.equal, "Eq")
ne_ = _inplace_comparison("ne_", np.not_equal, "Ne")
lt_ = _inplace_comparison("lt_", np.less, "Lt")
le_ = _inplace_comparison("le_", np.less_equal, "Le")
gt_ = _inplace_comparison("gt_", np.greater, "Gt")
ge_ = _inplace_comparison("ge_", np.greater_equal, "Ge")
not_equal_ = _inplace_comparison("not_equal_", np.not_equal, "Ne")
less_ = _inplace_comparison("less_", np.less, "Lt")
less_equal_ = _inplace_comparison("less_equal_", np.less_equal, "Le")
greater_ = _inplace_comparison("greater_", np.greater, "Gt")
greater_equal_ = _inplace_comparison("greater_equal_", np.greater_equal, "Ge")


def _tensor_arg(fn, name, position, value):
    if not isinstance(value, _TB):
        raise TypeError(f"{fn}(): argument '{name}' (position {position}) must be Tensor, not {type(value).__name__}")
    return value


def _bool_result(like, array):
    return _wrap(_backend.asarray(array, _b1, like=like), like)


def _float_kind(a):
    return a.dtype.kind == "f"


def isnan(input):  # noqa: A002
    a = _tensor_arg("isnan", "input", 1, input)._array
    return _bool_result(input, np.isnan(a) if _float_kind(a) else np.zeros_like(a, _b1))


def isinf(input):  # noqa: A002
    a = _tensor_arg("isinf", "input", 1, input)._array
    return _bool_result(input, np.isinf(a) if _float_kind(a) else np.zeros_like(a, _b1))


def isfinite(input):  # noqa: A002
    a = _tensor_arg("isfinite", "input", 1, input)._array
    return _bool_result(input, np.isfinite(a) if _float_kind(a) else np.ones_like(a, _b1))


def isposinf(input):  # noqa: A002
    a = _tensor_arg("isposinf", "input", 1, input)._array
    return _bool_result(input, np.isposinf(a) if _float_kind(a) else np.zeros_like(a, _b1))


def isneginf(input):  # noqa: A002
    a = _tensor_arg("isneginf", "input", 1, input)._array
    return _bool_result(input, np.isneginf(a) if _float_kind(a) else np.zeros_like(a, _b1))


def isreal(input):  # noqa: A002
    # every real dtype's elements are real (torch: imag == 0 for complex, else all true)
    a = _tensor_arg("isreal", "input", 1, input)._array
    return _bool_result(input, np.ones_like(a, _b1))


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):  # noqa: A002
    """at::isclose: |input - other| <= atol + rtol * |other|, equal infinities close, nan close to nan
    only with equal_nan; the operands must have one dtype."""
    a = _tensor_arg("isclose", "input", 1, input)._array
    b = _tensor_arg("isclose", "other", 2, other)._array
    if a.dtype != b.dtype:
        raise RuntimeError(f"{_torch_type_name(a.dtype)} did not match {_torch_type_name(b.dtype)}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {_fmt_number(rtol)}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {_fmt_number(atol)}")
    _broadcast_shapes(a.shape, b.shape)
    token = _quiet()
    try:
        if a.dtype == _b1 or a.dtype.kind in "iu":
            if a.dtype == _b1:
                close = a == b
            else:
                # integers compare as doubles in torch's formula (self - other is integral, the
                # tolerance a double)
                diff = np.abs(a.astype(np.float64) - b.astype(np.float64))
                close = (a == b) | (diff <= atol + rtol * np.abs(b.astype(np.float64)))
        else:
            close = a == b
            if equal_nan:
                close = close | (np.isnan(a) & np.isnan(b))
            finite = np.isfinite(a) & np.isfinite(b)
            # the tolerance computed in the operands' dtype, as torch's kernel does
            tol = a.dtype.type(atol) + a.dtype.type(rtol) * np.abs(b)
            close = close | (finite & (np.abs(a - b) <= tol))
    finally:
        _loud(token)
    return _bool_result(input, np.broadcast_to(close, _broadcast_shapes(a.shape, b.shape)).copy())


def _fmt_number(x):
    """A double as c10's str prints it in these messages (`-1`, `-0.5`)."""
    return f"{x:g}"


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):  # noqa: A002
    return bool(isclose(input, other, rtol, atol, equal_nan)._array.all())


def equal(input, other):  # noqa: A002
    """at::equal: the same sizes and the same values (compared in the promoted dtype); nan is never
    equal."""
    a = _tensor_arg("equal", "input", 1, input)._array
    b = _tensor_arg("equal", "other", 2, other)._array
    _backend.check_same_device(a, b, scalars=False)
    if a.shape != b.shape:
        return False
    dtype = _promote_types(a.dtype, b.dtype)
    token = _quiet()
    try:
        return bool(np.array_equal(a.astype(dtype, copy=False), b.astype(dtype, copy=False)))
    finally:
        _loud(token)


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """at::isin: whether each of `elements` is among `test_elements` (either may be a number),
    compared in their promoted dtype; bool is refused as torch refuses it."""
    if not isinstance(elements, _TB) and not isinstance(test_elements, _TB):
        raise _invalid_combination("isin", (elements, test_elements), (
            "Tensor elements, Tensor test_elements, *, bool assume_unique = False, bool invert = False, "
            "Tensor out = None",
            "Number element, Tensor test_elements, *, bool assume_unique = False, bool invert = False, "
            "Tensor out = None",
            "Tensor elements, Number test_element, *, bool assume_unique = False, bool invert = False, "
            "Tensor out = None"))
    like = elements if isinstance(elements, _TB) else test_elements
    a = elements._array if isinstance(elements, _TB) else elements
    b = test_elements._array if isinstance(test_elements, _TB) else test_elements
    da = a.dtype if isinstance(a, _backend.array_types) else None
    db = b.dtype if isinstance(b, _backend.array_types) else None
    for d in (da, db):
        if d == _b1:
            raise RuntimeError("Unsupported input type encountered for isin(): Bool")
    if da is not None and db is not None:
        dtype = _promote_types(da, db)
    elif da is not None:
        dtype = _result_type(a, b)
    else:
        dtype = _result_type(b, a)
    if isinstance(test_elements, _TB):
        n = a.size if da is not None else 1
        if b.size < int(np.float32(10.0) * np.float32(n ** 0.145)):
            # torch's default kernel (few test elements) views them flat: a layout view(-1)
            # refuses is refused here too, with view's error
            view(test_elements, (-1,))
    ah = _backend.to_host(_backend.asarray(a)).astype(dtype)
    bh = _backend.to_host(_backend.asarray(b)).astype(dtype)
    return _bool_result(like, np.isin(ah, bh, invert=invert))


isin._out_as_data = True  # type: ignore[attr-defined]  # out= written as data (Resize.out_variant)


def _isin_out_check(_, out_dtype):
    """isin is structured: its out must be bool exactly (set_output_raw_strided's check)."""
    if out_dtype != _b1:
        raise RuntimeError(f"Expected out tensor to have dtype bool, but got {_C_NAMES[out_dtype.name]} instead")


# c10's C++ type names, as the structured kernels' out dtype check prints them
_C_NAMES = {"float32": "float", "float64": "double", "int64": "long int", "bool": "bool", "int32": "int",
            "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "float16": "c10::Half"}


isin._out_check = _isin_out_check  # type: ignore[attr-defined]
