"""torch.result_type, torch.promote_types and torch.can_cast
(ATen/native/TypeProperties.cpp), over torchlite's dtypes (Note [Type promotion])."""
import builtins

import numpy as np

from .. import _dtypes
from .TensorIterator import _KIND, _TB, _number_dtype, _promote_types, _result_type

_NUMBER = (bool, int, float, np.bool_, np.integer, np.floating)


def _arg_dtype(d, fn, name, position):
    """A dtype argument: a torchlite dtype, or a Python type torch reads as one (float: float64)."""
    if isinstance(d, _dtypes.dtype):
        return d._np
    if d is builtins.float:
        return _dtypes.float64._np
    if d is builtins.int:
        return _dtypes.int64._np
    if d is builtins.bool:
        return _dtypes.bool._np
    raise TypeError(f"{fn}(): argument '{name}' (position {position}) must be torch.dtype, not {type(d).__name__}")


def promote_types(type1, type2):
    """The dtype both promote to (c10::promoteTypes)."""
    a = _arg_dtype(type1, "promote_types", "type1", 1)
    b = _arg_dtype(type2, "promote_types", "type2", 2)
    return _dtypes._from_numpy_dtype(_promote_types(a, b))


def can_cast(from_, to):
    """Whether a value of `from_` may be cast to `to` under torch's casting rules (c10::canCast):
    never a float to an integer or bool, nor anything but bool to bool."""
    a = _arg_dtype(from_, "can_cast", "from_", 1)
    b = _arg_dtype(to, "can_cast", "to", 2)
    if _KIND[a] == 2 and _KIND[b] < 2:
        return False
    return not (_KIND[a] != 0 and _KIND[b] == 0)


def _signature_error(tensor, other):
    names = [type(x).__name__ for x in (tensor, other)]
    marks = []
    for kinds in (("Tensor", "Tensor"), ("Number", "Tensor"), ("Tensor", "Number"), ("Number", "Number")):
        shown = []
        for x, kind, n in zip((tensor, other), kinds, names, strict=True):
            ok = isinstance(x, _TB) if kind == "Tensor" else isinstance(x, _NUMBER)
            shown.append(n if ok else f"!{n}!")
        marks.append(", ".join(shown))
    return TypeError(
        f"result_type() received an invalid combination of arguments - got ({', '.join(names)}), but expected "
        "one of:\n"
        " * (Tensor tensor, Tensor other)\n"
        f"      didn't match because some of the arguments have invalid types: ({marks[0]})\n"
        " * (Number scalar, Tensor tensor)\n"
        f"      didn't match because some of the arguments have invalid types: ({marks[1]})\n"
        " * (Tensor tensor, Number other)\n"
        f"      didn't match because some of the arguments have invalid types: ({marks[2]})\n"
        " * (Number scalar1, Number scalar2)\n"
        f"      didn't match because some of the arguments have invalid types: ({marks[3]})\n")


def result_type(tensor, other):
    """The dtype an elementwise op of `tensor` and `other` (tensors or numbers) computes in
    (at::result_type, Note [Type promotion])."""
    ta, tb = isinstance(tensor, _TB), isinstance(other, _TB)
    if not (ta or isinstance(tensor, _NUMBER)) or not (tb or isinstance(other, _NUMBER)):
        raise _signature_error(tensor, other)
    if ta:
        b = other._array if tb else other
        return _dtypes._from_numpy_dtype(_result_type(tensor._array, b))
    if tb:
        return _dtypes._from_numpy_dtype(_result_type(other._array, tensor))
    return _dtypes._from_numpy_dtype(_promote_types(_number_dtype(tensor), _number_dtype(other)))


def _tensor_arg(fn, x):
    if not isinstance(x, _TB):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}")
    return x._array.dtype


def is_floating_point(input):  # noqa: A002 - torch's name
    return _tensor_arg("is_floating_point", input).kind == "f"


def is_complex(input):  # noqa: A002 - torch's name
    _tensor_arg("is_complex", input)
    return False  # torchlite has no complex dtypes


def is_signed(input):  # noqa: A002 - torch's name
    return _tensor_arg("is_signed", input).kind in "fi"
