"""The argument checks torch's argument parser and its dimension wrapping
(torch/csrc/utils/python_arg_parser.cpp, c10's WrapDimUtils.h) apply, with their messages."""
import re

import numpy as np

from .. import _C
from .._dtypes import Size, dtype


_REQUIRED = object()  # the default of a required argument that torch's parser names when it is missing


def _check_given(fn, **args):
    """torch's argument parser's error for required arguments left out (its grammar: "argument"
    for two or more, "arguments" for one)."""
    missing = [name for name, value in args.items() if value is _REQUIRED]
    if missing:
        suffix = "s" if len(missing) == 1 else ""
        raise TypeError(f"{fn}() missing {len(missing)} required positional argument{suffix}: "
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


def _shape_arg(shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        return tuple(shape[0])
    return tuple(shape)


# Argument errors worded from the schemas (upstream: FunctionSignature in python_arg_parser.cpp).
# A generated torchlite.<op> calls its kernel directly; only when that fails with a TypeError
# or AttributeError are the call's arguments bound against the op's schema, as torch's parser
# binds them before the kernel runs, and a mismatch is reported in torch's words. Arguments that
# bind are the kernel's own error, raised as it was.

# The name each schema type has in torch's messages (FunctionParameter::type_name).
_TYPE_NAMES = {"Tensor": "Tensor", "Tensor[]": "tuple of Tensors", "Tensor?[]": "tuple of Tensors",
               "int": "int", "SymInt": "int", "int[]": "tuple of ints", "SymInt[]": "tuple of ints",
               "Scalar": "Number", "float": "float", "bool": "bool", "str": "str",
               "ScalarType": "torch.dtype", "MemoryFormat": "torch.memory_format", "Device": "torch.device",
               "Layout": "torch.layout", "Generator": "torch.Generator"}


class _Param:
    __slots__ = ("name", "type", "optional", "required", "keyword_only")

    def __init__(self, text, keyword_only, function):
        decl, eq, _ = text.partition("=")
        typ, self.name = decl.strip().rsplit(" ", 1)
        typ = typ.strip()
        if self.name == "self" and function:
            self.name = "input"  # the function variant's first argument (python_arg_parser: "input")
        typ = typ.split("(")[0] + ("[]" if typ.endswith("[]") and "(" in typ else "")
        self.optional = typ.endswith("?")
        typ = typ.rstrip("?")
        typ = typ.split("[")[0] + "[]" if "[" in typ else typ  # int[1] -> int[]
        self.type = typ
        self.required = not eq
        self.keyword_only = keyword_only

    def accepts(self, value):
        """Whether torch's parser takes `value` for this parameter (FunctionParameter::check);
        a Python number for a Tensor is left to the kernel, whose own message names it."""
        if value is None:
            return self.optional
        typ = self.type
        if typ == "Tensor":
            return isinstance(value, (_C.TensorBase, bool, int, float))
        if typ in ("Tensor[]", "Tensor?[]"):
            return isinstance(value, (list, tuple)) and all(isinstance(v, _C.TensorBase) or v is None for v in value)
        if typ in ("int", "SymInt"):
            return _is_int(value) or isinstance(value, _C.TensorBase)
        if typ in ("int[]", "SymInt[]"):
            return _is_int(value) or isinstance(value, (list, tuple, Size)) and all(_is_int(v) for v in value)
        if typ == "Scalar":
            return isinstance(value, (bool, int, float, complex, np.number, np.bool_, _C.TensorBase))
        if typ == "float":
            return isinstance(value, (int, float, np.number)) and not isinstance(value, bool)
        if typ == "bool":
            return isinstance(value, (bool, np.bool_))
        if typ == "str":
            return isinstance(value, str)
        if typ == "ScalarType":
            return isinstance(value, dtype)
        if typ == "MemoryFormat":
            return type(value).__name__ == "memory_format"
        return True  # Device, Layout, Generator: the kernel checks them

    def unpack_error(self, name, value, position):
        """torch's message for a sequence argument with an element of the wrong type, or None."""
        if self.type in ("int[]", "SymInt[]") and isinstance(value, (list, tuple)):
            for i, v in enumerate(value):
                if not _is_int(v):
                    return (f"{name}(): argument '{self.name}' failed to unpack the object at pos {i + 1} with error "
                            f'"type must be tuple of ints,but got {_python_type_name(v)}"')
        if self.type in ("Tensor[]", "Tensor?[]") and isinstance(value, (list, tuple)):
            for i, v in enumerate(value):
                if not isinstance(v, _C.TensorBase) and not (v is None and self.type == "Tensor?[]"):
                    return f"expected Tensor as element {i} in argument {position}, but got {_python_type_name(v)}"
        return None


def _is_int(value):
    return not isinstance(value, (bool, np.bool_)) and isinstance(value, (int, np.integer))


def _python_type_name(value):
    return "Tensor" if isinstance(value, _C.TensorBase) else type(value).__name__


def _signature(schema_args, function):
    params, keyword_only = [], False
    for text in re.split(r",(?![^\[]*\])", schema_args):  # not the commas of a default's list, dims=[0,1]
        text = text.strip()
        if text == "*":
            keyword_only = True
        elif text:
            params.append(_Param(text, keyword_only, function))
    return params


def _schema_error(name, params, args, kwargs):
    """torch's message for a call of `name` that does not bind to its one signature, or None."""
    positional = [p for p in params if not p.keyword_only]
    if len(positional) == 1 and positional[0].type in ("Tensor[]", "int[]", "SymInt[]") and len(args) > 1:
        args = (tuple(args),)  # a lone list parameter takes varargs (broadcast_tensors(a, b))
    if len(args) > len(positional):
        n = len(positional)
        return (f"{name}() takes {n} positional argument{'' if n == 1 else 's'} but {len(args)} "
                f"{'was' if len(args) == 1 else 'were'} given")
    by_name = {p.name: p for p in params}
    for key in kwargs:
        if key not in by_name:
            return f"{name}() got an unexpected keyword argument '{key}'"
        if any(p.name == key for p in positional[:len(args)]):
            return f"{name}() got multiple values for argument '{key}'"
    missing = [p.name for p in params[len(args):] if p.required and p.name not in kwargs]
    if missing:
        suffix = "s" if len(missing) == 1 else ""  # torch's grammar (see _check_given)
        return f"{name}() missing {len(missing)} required positional argument{suffix}: " + ", ".join(
            f'"{m}"' for m in missing)
    for i, (p, value) in enumerate(zip(positional, args, strict=False)):
        if not p.accepts(value):
            return p.unpack_error(name, value, i) or (
                f"{name}(): argument '{p.name}' (position {i + 1}) must be {_TYPE_NAMES.get(p.type, p.type)}, "
                f"not {_python_type_name(value)}")
    for key, value in kwargs.items():
        p = by_name[key]
        if not p.accepts(value):
            return p.unpack_error(name, value, params.index(p)) or (
                f"{name}(): argument '{key}' must be {_TYPE_NAMES.get(p.type, p.type)}, not {_python_type_name(value)}")
    return None


def _rebind(name, schemas, args, kwargs, error):
    """Called where a generated function's kernel raised `error`: raises torch's TypeError for
    arguments that do not bind to the op's schema (`schemas`: the argument lists of its
    overloads; with several, the kernel's error stands), returns the arguments to call the
    kernel with again where only the first one's name differs (torch's `input` for the kernel's
    `self`), else raises `error` itself."""
    if len(schemas) == 1:
        try:
            params = _signature(schemas[0], function=True)
            message = _schema_error(name, params, args, kwargs)
        except Exception:  # noqa: BLE001 - a schema this parser does not read keeps the kernel's error
            raise error from None
        if message is not None:
            raise TypeError(message) from None
        if params and params[0].name == "input" and "input" in kwargs and not args:
            kwargs = dict(kwargs)
            return (kwargs.pop("input"),), kwargs
    raise error
