"""The argument checks torch's argument parser and its dimension wrapping
(torch/csrc/utils/python_arg_parser.cpp, c10's WrapDimUtils.h) apply, with their messages."""
import re
import warnings

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
    raise TypeError(f"{fn}(): argument '{name}' (position {position}) must be int, not {_python_type_name(value)}")


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
    elif isinstance(dim, np.integer):  # torch's parser reads an int through __index__
        dim = (int(dim),)
    out = []
    for d in dim:
        if not isinstance(d, int) and isinstance(d, np.integer):
            d = int(d)
        d = _wrap_dim(d, ndim)
        if d in out:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        out.append(d)
    return tuple(sorted(out))


def _shape_arg(shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        return tuple(shape[0])
    return tuple(shape)


# Argument errors worded from the schemas (upstream: FunctionSignature and PythonArgParser in
# python_arg_parser.cpp, format_invalid_args in invalid_arguments.cpp). A generated torchlite.<op>
# or Tensor.<method> calls its kernel directly; only when that fails are the call's arguments bound
# against the op's Python signatures (tools/autograd/python_signature.py: its overloads in the
# order torch's parser tries them, out= merged in, the deprecated ones hidden at the end), as torch's
# parser binds them before the kernel runs. A call that binds to none gets torch's error; one that
# binds to a deprecated signature runs as the op it stands for, with torch's warning; otherwise the
# kernel's own error stands.

_ARG_ERRORS = (TypeError, AttributeError, IndexError, ValueError, RuntimeError)

# The name each schema type has in torch's messages (FunctionParameter::type_name).
_TYPE_NAMES = {"Tensor": "Tensor", "Tensor[]": "tuple of Tensors", "Tensor?[]": "tuple of Tensors",
               "int": "int", "SymInt": "int", "int[]": "tuple of ints", "SymInt[]": "tuple of ints",
               "Scalar": "Number", "float": "float", "bool": "bool", "str": "str",
               "ScalarType": "torch.dtype", "MemoryFormat": "torch.memory_format", "Device": "torch.device",
               "Layout": "torch.layout", "Generator": "torch.Generator"}


class _Param:
    __slots__ = ("name", "schema_name", "type", "optional", "required", "keyword_only")

    def __init__(self, text, keyword_only, function):
        decl, eq, default = text.partition("=")
        typ, self.name = decl.strip().rsplit(" ", 1)
        typ = typ.strip()
        self.schema_name = self.name
        typ = typ.split("(")[0] + ("[]" if typ.endswith("[]") and "(" in typ else "") + (
            "?" if typ.endswith("?") and "(" in typ else "")
        if self.name == "self" and function and typ.startswith("Tensor"):
            self.name = "input"  # the function variant's first argument (python_arg_parser: "input")
        self.optional = typ.endswith("?") or default.strip() == "None"  # FunctionParameter::allow_none
        typ = typ.rstrip("?")
        typ = typ.split("[")[0] + "[]" if "[" in typ else typ  # int[1] -> int[]
        self.type = typ
        self.required = not eq
        self.keyword_only = keyword_only

    def accepts(self, value, numbers_as_tensors=False):
        """Whether torch's parser takes `value` for this parameter (FunctionParameter::check); a
        Tensor takes a Python number only in the ops torch lets it (should_allow_numbers_as_tensors)."""
        if value is None:
            return self.optional
        typ = self.type
        if typ == "Tensor":
            return isinstance(value, _C.TensorBase) or numbers_as_tensors and isinstance(value, (int, float, complex))
        if typ in ("Tensor[]", "Tensor?[]"):
            return isinstance(value, (list, tuple)) and all(isinstance(v, _C.TensorBase) or v is None for v in value)
        if typ in ("int", "SymInt"):
            return _is_int(value) or isinstance(value, _C.TensorBase)
        if typ in ("int[]", "SymInt[]"):
            return _is_int(value) or isinstance(value, (list, tuple, Size)) and all(_is_int(v) for v in value)
        if typ == "Scalar":  # a tensor only of no dims and not requiring grad
            if isinstance(value, _C.TensorBase):
                return value.dim() == 0 and not value.requires_grad
            return isinstance(value, (bool, int, float, complex, np.number, np.bool_))
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
    return "Tensor" if isinstance(value, _C.TensorBase) else _tp_name(value)


def _signature(schema_args, function):
    params, keyword_only = [], False
    for text in re.split(r",(?![^\[]*\])", schema_args):  # not the commas of a default's list, dims=[0,1]
        text = text.strip()
        if text == "*":
            keyword_only = True
        elif text:
            params.append(_Param(text, keyword_only, function))
    return params


_MISSING = object()
# The ops whose Tensor parameters take Python numbers (python_arg_parser.cpp's should_allow_numbers_as_tensors)
_NUMBERS_AS_TENSORS = frozenset(f"{op}{suffix}" for op in ("add", "div", "divide", "mul", "multiply", "sub", "subtract",
                                                          "true_divide", "floor_divide")
                                for suffix in ("", "_", "_out")) | {"to", "_to_copy", "copy_", "_conj"}


def _schema_error(name, params, args, kwargs):
    """torch's message for a call of `name` that does not bind to the signature `params`, or None
    (FunctionSignature::parse with raise_exception: the parameters in order, then the keywords left)."""
    positional = [p for p in params if not p.keyword_only]
    packed = False
    if len(positional) == 1 and positional[0].type == "Tensor[]" and name in _PYTHON_VARARGS and (
            len(args) > 1 or name in _PACKS_ONE):
        args = (tuple(args),)  # torch.functional's function packs its tensors into one tuple
    elif len(args) > 1 and len(positional) == 1 and positional[0].type in ("int[]", "SymInt[]") and _is_int(args[0]):
        args, packed = (tuple(args),), True  # a lone int list takes varargs where they start with an int (view(2, 3))
    if len(args) > len(positional):
        return _extra_args(name, params, len(args))
    remaining = dict(kwargs)
    numbers_as_tensors = name in _NUMBERS_AS_TENSORS
    deferred = None
    for i, p in enumerate(params):
        is_kwd = i >= len(args)
        value = remaining.pop(p.name, _MISSING) if is_kwd else args[i]
        if value is _MISSING:
            if p.required:
                missing = [q.name for q in params[i:] if q.required]  # torch lists those given by keyword too
                suffix = "s" if len(missing) == 1 else ""  # torch's grammar (see _check_given)
                return f"{name}() missing {len(missing)} required positional argument{suffix}: " + ", ".join(
                    f'"{m}"' for m in missing)
            continue
        if p.accepts(value, numbers_as_tensors):
            continue
        if p.type == "SymInt[]" and isinstance(value, (list, tuple)) and not (packed and i == 0):
            # its check finds the element (varargs are taken unchecked and fail as they are unpacked)
            if is_kwd:
                return f"{name}(): argument '{p.name}' must be tuple of ints, not {_python_type_name(value)}"
            bad = next(k for k, v in enumerate(value) if not _is_int(v))
            return (f"{name}(): argument '{p.name}' (position {i + 1}) must be tuple of ints, but found element of "
                    f"type {_python_type_name(value[bad])} at pos {bad}")
        message = p.unpack_error(name, value, i)
        if p.type in ("int[]", "SymInt[]") and message is not None:
            deferred = deferred or _Bound(message)  # its check takes any sequence: the unpacking fails later
            continue
        if p.type in ("Tensor[]", "Tensor?[]") and message is not None:
            return _Bound(message)  # its check raises at once (is_tensor_list_and_append_overloaded)
        if message is None:
            where = f"'{p.name}'" if is_kwd else f"'{p.name}' (position {i + 1})"
            message = (f"{name}(): argument {where} must be {_TYPE_NAMES.get(p.type, p.type)}, "
                       f"not {_python_type_name(value)}")
        return message
    by_name = {p.name: i for i, p in enumerate(params)}
    for key in remaining:
        if key not in by_name:
            return f"{name}() got an unexpected keyword argument '{key}'"
        return f"{name}() got multiple values for argument '{key}'"
    return deferred


# torch.functional's functions that take tensors as varargs and hand the op one tuple
_PYTHON_VARARGS = frozenset({"broadcast_tensors", "atleast_1d", "atleast_2d", "atleast_3d", "block_diag",
                             "cartesian_prod", "meshgrid"})
_PACKS_ONE = frozenset({"broadcast_tensors", "block_diag", "cartesian_prod"})  # the others unpack a lone one

# How a Python number binds to a Tensor parameter of those ops: as c10's wrapped number, a 0-d tensor
# that promotes as the number does. Registered by BinaryOps, which owns type promotion.
_NUMBER_AS_TENSOR: list = []


def _numbers_as_tensors(params, args, kwargs):
    """The call with each Python number given for a Tensor parameter as a wrapped number."""
    like = next((v for v in (*args, *kwargs.values()) if isinstance(v, _C.TensorBase)), None)
    wrap = _NUMBER_AS_TENSOR[0]
    args = [wrap(v, like) if p.type == "Tensor" and not isinstance(v, _C.TensorBase) else v
            for p, v in zip(params, args, strict=False)]
    kwargs = {k: wrap(v, like) if v is not None and not isinstance(v, _C.TensorBase) and k in {
        p.name for p in params if p.type == "Tensor"} else v for k, v in kwargs.items()}
    return args, kwargs


class _Bound(str):
    """The error of a call that binds to a signature and fails as its arguments are unpacked
    (PythonArgs::intlist)."""


def _extra_args(name, params, given):
    """extra_args: too many positional arguments."""
    most = sum(not p.keyword_only for p in params)
    least = sum(p.required for p in params)
    if least != most:
        return f"{name}() takes from {least} to {most} positional arguments but {given} were given"
    return (f"{name}() takes {most} positional argument{'' if most == 1 else 's'} but {given} "
            f"{'was' if given == 1 else 'were'} given")


class _Signature:
    """One Python signature of an op (FunctionSignature): its parameters, how torch prints it,
    and for a deprecated (hidden) one, the op's call it stands for: (positional names, keyword names)."""
    __slots__ = ("params", "display", "call")

    def __init__(self, entry, function):
        self.params = _signature(entry[0], function)
        self.display = entry[1]
        self.call = entry[2] if len(entry) > 2 else None

    def remap(self, args, kwargs):
        """The deprecated call's arguments, rearranged for the op it stands for."""
        values = dict(zip((p.schema_name for p in self.params), args, strict=False))
        values.update((p.schema_name, kwargs[p.name]) for p in self.params if p.name in kwargs)
        positional, keywords = self.call  # a method's call leaves out self, its first argument
        return [values[n] for n in positional if n in values], {n: values[n] for n in keywords if n in values}


_PARSED: dict = {}
_warned_deprecated: list = []


def _signatures(schemas, function):
    key = (schemas, function)  # the generated tuples of strings: hashable, parsed once
    if key not in _PARSED:
        _PARSED[key] = [_Signature(entry, function) for entry in schemas]
    return _PARSED[key]


# python_arg_parser.cpp's numpy_compatibility_arg_names: a parameter named `dim` also takes the
# keyword `axis`, `keepdim` `keepdims`, `input` `x`, `a` or `x1`, and `other` `x2`
_NUMPY_NAMES = {"axis": "dim", "keepdims": "keepdim", "x": "input", "a": "input", "x1": "input", "x2": "other"}


def _numpy_renamed(signatures, kwargs):
    """`kwargs` with numpy's keyword names (axis=, keepdims=, ...) given torch's, where a signature
    has the torch name and none has the numpy one and the torch name is not given as well; None
    when nothing is renamed."""
    if not any(k in _NUMPY_NAMES for k in kwargs):
        return None
    names = {p.name for sig in signatures for p in sig.params}
    renamed, changed = {}, False
    for k, v in kwargs.items():
        torch_name = _NUMPY_NAMES.get(k)
        if torch_name is not None and k not in names and torch_name in names:
            if torch_name in kwargs:
                return None  # both names given: the call fails on the numpy one, as torch's
            renamed[torch_name] = v
            changed = True
        else:
            renamed[k] = v
    return renamed if changed else None


def _rebind(name, schemas, args, kwargs, error, out=None, method=False):
    """Called where a generated function's (or, with `method`, a Tensor method's, `args` without
    self) kernel raised `error`: binds the call to the op's Python signatures (`schemas`) as torch's
    parser would have. Raises torch's TypeError where none binds; returns the arguments to call the
    op with where a deprecated signature binds (with torch's warning, once a process as
    TORCH_WARN_ONCE) or where only the first argument's name differs (torch's `input` for the
    kernel's `self`); else raises `error` itself."""
    if getattr(error, "_parser_error", False):
        raise error  # the parser's own error, raised by the kernel for a Python-level binding (Tensor.split)
    try:
        signatures = _signatures(schemas, function=not method)
    except Exception:  # noqa: BLE001 - a schema this parser does not read keeps the kernel's error
        raise error from None
    renamed = _numpy_renamed(signatures, kwargs)
    if renamed is not None:
        kwargs = renamed
    given = kwargs if out is None else {**kwargs, "out": out}
    if method and len(signatures) == 1 and not signatures[0].params and (args or kwargs):
        raise TypeError(_no_arguments(name, len(args), kwargs)) from None
    messages = []
    for sig in signatures:
        message = _schema_error(name, sig.params, args, given)
        if isinstance(message, _Bound):
            raise TypeError(message) from None
        if message is None:
            if sig.call is not None:
                _warn_deprecated(name, sig, signatures)
                return sig.remap(args, kwargs)
            indexed = _indexed(sig.params, args, kwargs)
            if indexed is not None:
                return indexed
            if method:
                if renamed is not None:
                    return args, kwargs
                raise error
            first = args[0] if args else kwargs.get(sig.params[0].name) if sig.params else None
            if name in _NUMBERS_AS_TENSORS and isinstance(first, (int, float, complex)):
                # (the kernels take a number for `other` themselves; not for `self`)
                return _numbers_as_tensors(sig.params, args, kwargs)
            if sig.params and sig.params[0].name == "input" and "input" in kwargs and not args:
                kwargs = dict(kwargs)
                return (kwargs.pop("input"),), kwargs
            if renamed is not None:
                return args, kwargs
            raise error
        messages.append(message)
    if len(signatures) == 1:
        raise TypeError(messages[0]) from None
    n = len(args) + len(given)
    plausible = [i for i, sig in enumerate(signatures) if sig.call is None
                 and sum(p.required for p in sig.params) <= n <= len(sig.params)]
    if len(plausible) == 1:
        raise TypeError(messages[plausible[0]]) from None
    raise TypeError(_format_invalid_args(f"{name}()", args, given,
                                         [sig.display for sig in signatures if sig.call is None])) from None


# ==== issue 16: fixes ====
# (the fixes family's entries follow this line)
def _indexed(params, args, kwargs):
    """The call with each numpy integer scalar given for an int / int[] parameter as a Python int (and
    each numpy scalar given for a Scalar as its Python number), or None where there is none. torch's
    parser reads an int through __index__ (THPUtils_unpackIndex, is_int_or_symint's
    torch::is_numpy_int), so `x.sum(np.int64(1))` is `x.sum(1)`; the kernels here test for Python ints,
    so a call that binds with a numpy integer is called again with ints."""
    positional = [p for p in params if not p.keyword_only]
    if len(args) > 1 and len(positional) == 1 and positional[0].type in ("int[]", "SymInt[]") and _is_int(args[0]):
        if not any(_numpy_int(v) for v in args):
            return None
        return [int(v) if _numpy_int(v) else v for v in args], kwargs  # varargs: view(np.int64(2), 3)
    types = {p.name: p.type for p in params}
    changed = False

    def convert(typ, value):
        nonlocal changed
        if typ in ("int", "SymInt") and _numpy_int(value):
            changed = True
            return int(value)
        if typ == "Scalar" and isinstance(value, (np.number, np.bool_)) and not isinstance(value, float):
            changed = True  # a numpy scalar as the Python number of its kind (torch's c10::Scalar)
            return value.item()
        if typ in ("int[]", "SymInt[]"):
            if _numpy_int(value):
                changed = True
                return int(value)
            if isinstance(value, (list, tuple)) and any(_numpy_int(v) for v in value):
                changed = True
                return type(value)(int(v) if _numpy_int(v) else v for v in value)
        return value

    new_args = [convert(p.type, v) for p, v in zip(params, args, strict=False)]
    new_kwargs = {k: convert(types.get(k), v) for k, v in kwargs.items()}
    return (new_args, new_kwargs) if changed else None


def _numpy_int(value):
    return isinstance(value, np.integer)


class _Str(str):
    """(Tensor is to TensorBase as _Str is to str, for _no_arguments' probe)"""


def _no_arguments(name, given, kwargs):
    """The error of a method without parameters given some: upstream binds such a method as
    METH_NOARGS, so the message is CPython's own (its wording depends on the Python version: taken
    from str.lower, another METH_NOARGS method, with torch's qualified names in place of its)."""
    try:  # a method of a base class called on a subclass as x.abs(1) calls it (a call through *args
        # or **kwargs words it differently in some versions)
        if kwargs:
            _Str().lower(a=0)
        _Str().lower(0)
    except TypeError as e:
        message = str(e).replace("(1 given)", f"({given} given)")
        return (message.replace("_Str.lower()", f"Tensor.{name}()").replace("str.lower()", f"TensorBase.{name}()")
                .replace("lower()", f"{name}()"))
    raise AssertionError("str.lower() took arguments")


def _rebind_method(name, schemas, args, kwargs, error):
    """_rebind for a Tensor method: `args` without self."""
    return _rebind(name, schemas, args, kwargs, error, method=True)


def _method(name, kernel, schemas):
    """Tensor.<name> (csrc/autograd/python_variable_methods.cpp): calls `kernel(self, ...)` with no
    frame of its own; where the kernel raises one of _ARG_ERRORS, binds the call to the op's method
    signatures (_rebind_method) for torch's argument error."""
    return _C._VariableMethod(kernel, name, schemas, _rebind_method, _ARG_ERRORS)


def _operator(name, kernel):
    """Tensor.<name>, a Python operator (__mul__): calls `kernel(self, other)` with no frame of its
    own, after the op's C++ entry where native_functions.yaml names the operator under its
    `cpp_dispatch:` (Note [C++ dispatch of the hot ops]). A binary one answers NotImplemented where the
    kernel raises TypeError, as torch's TypeError_to_NotImplemented_ does, so Python tries the other
    operand's reflected operator; other errors are the kernel's own."""
    return _C._VariableMethod(kernel, name, (), None, ())


def _entry(name, kernel):
    """Tensor.<name> for a method the op table does not parse (split) or an operator that is no op
    (__getitem__): where it has a C++ entry (Note [C++ dispatch of basic indexing]), a method that
    tries it and otherwise calls `kernel(self, ...)`, whose errors stay its own (no signature
    binding, no NotImplemented); else `kernel` itself."""
    method = _C._VariableMethod(kernel, name, (), _rebind_method, ())
    return method if method._cpp_dispatch else kernel


def _function(name, fn):
    """torchlite.<name> for an op marked `cpp_dispatch:` in native_functions.yaml: a builtin-like
    callable (no binding of self when stored on a class, as torch's functions) that tries the op's
    C++ entry (Note [C++ dispatch of the hot ops]) and otherwise calls `fn`, the generated function."""
    return _C._VariableFunction(fn, name)


def _warn_deprecated(name, sig, signatures):
    """PythonArgParser::check_deprecated (TORCH_WARN_ONCE: the first deprecated call of a process)."""
    if _warned_deprecated:
        return
    _warned_deprecated.append(name)
    message = f"This overload of {name} is deprecated:\n\t{name}{sig.display}"
    others = [s.display for s in signatures if s.call is None]
    if others:
        message += "\nConsider using one of the following signatures instead:" + "".join(
            f"\n\t{name}{d}" for d in others)
    warnings.warn(message, UserWarning, stacklevel=4)


# format_invalid_args (invalid_arguments.cpp): it re-reads the printed signatures, splitting them at
# ", " and each piece at its last space, so a parameter with a default reads as a type that no
# value matches and `*` as a parameter of its own; its listing keeps those quirks.
def _tp_name(value):
    """Py_TYPE(value)->tp_name as torch's types spell it."""
    typ = type(value)
    if isinstance(value, _C.TensorBase):
        return typ.__name__
    if typ.__module__ in ("builtins",):
        return typ.__name__
    if typ.__module__.startswith("numpy"):
        return f"numpy.{typ.__name__}"
    if not typ.__flags__ & _HEAPTYPE:
        # a static C type (collections.OrderedDict): its tp_name is its module and name
        return f"{typ.__module__}.{typ.__name__}"
    return _C_TYPE_NAMES.get(typ.__name__, typ.__name__)


_HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made at run time, whose tp_name is its bare name


# torchlite's Python classes for torch's C types, whose tp_name carries their module
_C_TYPE_NAMES = {"dtype": "torch.dtype", "device": "torch.device", "layout": "torch.layout",
                 "memory_format": "torch.memory_format", "Size": "torch.Size", "finfo": "torch.finfo",
                 "iinfo": "torch.iinfo"}


def _option_args(option):
    """_parseOption: [(type, name)] of a printed signature."""
    inner = option[1:-1]
    out = []
    for arg in inner.split(", "):
        start = 0
        if arg.startswith("#"):
            start = 1
        nullable = arg[start:start + 1] == "["
        if nullable:
            start += 1
            arg = arg[:-len(" or None]")]
        cut = arg.rfind(" ")
        name = arg[cut + 1:]
        end = cut if cut >= 0 else len(arg)
        if "..." in arg:
            end -= 4
        out.append((arg[start:end], name, nullable))
    return out


def _type_matches(typ, value, nullable):
    if nullable and value is None:
        return True
    name = _tp_name(value)
    if typ == "float":
        return name in ("float", "int", "long")
    if typ == "int":
        return name in ("int", "long")
    return name == typ


def _arg_desc(args, kwargs):
    pieces = [_tp_name(a) for a in args] + [f"{k}={_tp_name(v)}" for k, v in _kwarg_order(kwargs)]
    text = ", ".join(pieces) + (", " if kwargs and not args else "")
    return f"({text})"


def _kwarg_order(kwargs):
    """The keywords in the order torch's std::unordered_map hands them out: most recent first."""
    return list(reversed(list(kwargs.items())))


def _sequence_desc(value):
    names = ", ".join(_tp_name(v) for v in value)
    if isinstance(value, tuple):
        return f"tuple of ({names}{',' if len(value) == 1 else ''})"
    return f"list of [{names}]"


def _formatted_arg_desc(option, args, kwargs):
    pieces = []
    for i in range(len(args) + len(kwargs)):
        is_kwarg = i >= len(args)
        name = option[i][1] if i < len(option) else option[-1][1]
        value = kwargs[name] if is_kwarg else args[i]  # every keyword names one of the option's
        typ, _, nullable = option[i] if i < len(option) else option[-1]
        matching = i < len(option) and _type_matches(typ, value, nullable)
        text = _sequence_desc(value) if isinstance(value, (tuple, list)) else _tp_name(value)
        text = (f"{name}=" if is_kwarg else "") + text
        pieces.append(text if matching else f"!{text}!")
    text = ", ".join(pieces) + (", " if kwargs and not args else "")
    return f"({text})"


def _argcount_match(option, args, kwargs):
    return len(args) + len(kwargs) == len(option)


def _unmatched_kwargs(option, kwargs):
    start = max(len(option) - len(kwargs), 0)
    names = {name for _, name, _ in option[start:]}
    return [k for k, _ in _kwarg_order(kwargs) if k not in names]


def _format_invalid_args(function_name, args, kwargs, options):
    message = f"{function_name} received an invalid combination of arguments - "
    if len(options) == 1:
        option = _option_args(options[0])
        unmatched = _unmatched_kwargs(option, kwargs) if kwargs else []
        if unmatched:
            return message + "got unrecognized keyword arguments: " + ", ".join(unmatched)
        got = _formatted_arg_desc(option, args, kwargs) if _argcount_match(option, args, kwargs) else _arg_desc(
            args, kwargs)
        return message + f"got {got}, but expected {options[0]}"
    message += f"got {_arg_desc(args, kwargs)}, but expected one of:\n"
    for text in options:
        option = _option_args(text)
        message += f" * {text}\n"
        if _argcount_match(option, args, kwargs):
            unmatched = _unmatched_kwargs(option, kwargs) if kwargs else []
            if unmatched:
                message += "      didn't match because some of the keywords were incorrect: " + ", ".join(unmatched)
                message += "\n"
            else:
                message += ("      didn't match because some of the arguments have invalid types: "
                            + _formatted_arg_desc(option, args, kwargs) + "\n")
    return message
