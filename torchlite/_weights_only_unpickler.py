"""The unpickler torchlite.load uses with weights_only=True (torch/_weights_only_unpickler.py).

It reads the pickle opcodes itself and resolves a GLOBAL only from an allowlist: the names
torch's checkpoints use for tensors, storages, dtypes, devices and containers (each mapped to
torchlite's object), plus what the user allowed with torchlite.serialization.add_safe_globals /
safe_globals. Any other global is refused with torch's UnpicklingError before anything is
called, so a crafted file cannot run code (os.system, builtins.eval, ...). Only the opcodes of
protocol 2 that torch.save writes are understood (torch's list); any other is refused.
"""
import functools as _functools
import warnings
from _codecs import encode
from collections import Counter, OrderedDict
from pickle import (APPEND, APPENDS, BINFLOAT, BINGET, BININT, BININT1, BININT2, BINPERSID, BINPUT, BINUNICODE,
                    BUILD, EMPTY_DICT, EMPTY_LIST, EMPTY_SET, EMPTY_TUPLE, GLOBAL, LONG1, LONG_BINGET, LONG_BINPUT,
                    MARK, NEWFALSE, NEWOBJ, NEWTRUE, NONE, PROTO, REDUCE, SETITEM, SETITEMS, SHORT_BINSTRING, STOP,
                    TUPLE, TUPLE1, TUPLE2, TUPLE3, UnpicklingError, bytes_types, decode_long)
from struct import unpack
from sys import maxsize
from typing import Any

from . import _dtypes, _tensor, _utils

# Python 2 names a pickle may carry, as the standard unpickler maps them (torch._utils'
# IMPORT_MAPPING / NAME_MAPPING are _compat_pickle's)
from _compat_pickle import IMPORT_MAPPING, NAME_MAPPING

# modules whose globals are refused outright, whatever the allowlist says (torch's list)
_blocklisted_modules = ["sys", "os", "posix", "nt"]

_marked_safe_globals_set: set = set()


def _add_safe_globals(safe_globals):
    global _marked_safe_globals_set
    _marked_safe_globals_set = _marked_safe_globals_set.union(set(safe_globals))


def _get_safe_globals():
    return list(_marked_safe_globals_set)


def _clear_safe_globals():
    global _marked_safe_globals_set
    _marked_safe_globals_set = set()


def _remove_safe_globals(globals_to_remove):
    global _marked_safe_globals_set
    _marked_safe_globals_set = _marked_safe_globals_set - set(globals_to_remove)


class _safe_globals:
    """Allows these globals inside the `with` block only."""

    def __init__(self, safe_globals):
        self.safe_globals = safe_globals

    def __enter__(self):
        _add_safe_globals(self.safe_globals)

    def __exit__(self, type, value, tb):  # noqa: A002 - the context manager protocol's names
        _remove_safe_globals(self.safe_globals)


def _get_user_allowed_globals():
    """"module.qualname" -> object for what the user allowed; a (object, "full.name") pair names
    its object explicitly."""
    rc: dict[str, Any] = {}
    for f in _marked_safe_globals_set:
        if isinstance(f, tuple):
            if len(f) != 2:
                raise ValueError("Expected tuple of length 2 (global, str of callable full path), but got tuple of "
                                 f"length: {len(f)}")
            if type(f[1]) is not str:
                raise TypeError(f"Expected second item in tuple to be str of callable full path, but got: {type(f[1])}")
            f, name = f
            rc[name] = f
        else:
            rc[f"{f.__module__}.{f.__qualname__}"] = f
    return rc


@_functools.lru_cache(maxsize=1)
def _get_allowed_globals():
    """torch's allowlist, each name mapped to what torchlite rebuilds it with."""
    rc: dict[str, Any] = {
        "collections.OrderedDict": OrderedDict,
        "collections.Counter": Counter,
        "torch.Size": _dtypes.Size,
        "torch.Tensor": _tensor.Tensor,
        "torch.device": _dtypes.device,
        "_codecs.encode": encode,  # for bytes
        "builtins.bytearray": bytearray,
        "builtins.set": set,
        "builtins.complex": complex,
    }
    for d in _dtypes._ALL:
        rc[f"torch.{d._name}"] = d
    for name in _utils._STORAGE_DTYPES:
        rc[f"torch.{name}"] = _utils._StorageType(name)
    for fn in (_utils._rebuild_tensor, _utils._rebuild_tensor_v2, _utils._rebuild_parameter,
               _utils._rebuild_parameter_with_state):
        rc[f"torch._utils.{fn.__name__}"] = fn
    rc["torch._tensor._rebuild_from_type_v2"] = _utils._rebuild_from_type_v2
    return rc


_parameter_class = _utils._parameter_class


def _allowed(full_path):
    """The object an allowed global names, or None."""
    if full_path == "torch.nn.parameter.Parameter":
        return _parameter_class()  # allowed once torchlite.nn.Parameter exists
    if full_path in _get_allowed_globals():
        return _get_allowed_globals()[full_path]
    return _get_user_allowed_globals().get(full_path)


def _is_allowed_object(obj):
    if any(obj is v for v in _get_allowed_globals().values()):
        return True
    if any(obj is v for v in _get_user_allowed_globals().values()):
        return True
    cls = _parameter_class()
    return cls is not None and obj is cls


def _read_global_instruction(readline):
    module = readline()[:-1].decode("utf-8")
    name = readline()[:-1].decode("utf-8")
    if (module, name) in NAME_MAPPING:
        module, name = NAME_MAPPING[(module, name)]
    elif module in IMPORT_MAPPING:
        module = IMPORT_MAPPING[module]
    return module, name


_STORAGE_NAMES_WITHOUT_DTYPE = ("BFloat16Storage", "ComplexFloatStorage", "ComplexDoubleStorage", "QInt8Storage",
                                "QUInt8Storage", "QInt32Storage", "QUInt4x2Storage", "QUInt2x4Storage",
                                "UntypedStorage")


def get_globals_in_pkl(file):
    """The "module.name" of every GLOBAL in a pickle, read without running it."""
    globals_in_checkpoint = set()
    read = file.read
    readline = file.readline
    op_to_bytes_to_read = {
        NEWOBJ[0]: 0, REDUCE[0]: 0, BUILD[0]: 0, APPEND[0]: 0, APPENDS[0]: 0, SETITEM[0]: 0, SETITEMS[0]: 0,
        MARK[0]: 0, TUPLE[0]: 0, TUPLE1[0]: 0, TUPLE2[0]: 0, TUPLE3[0]: 0, NONE[0]: 0, NEWFALSE[0]: 0,
        NEWTRUE[0]: 0, EMPTY_TUPLE[0]: 0, EMPTY_LIST[0]: 0, EMPTY_DICT[0]: 0, EMPTY_SET[0]: 0, BINPERSID[0]: 0,
        BININT[0]: 4, BININT1[0]: 1, BININT2[0]: 2, BINFLOAT[0]: 8, BINGET[0]: 1, LONG_BINGET[0]: 4,
        BINPUT[0]: 1, LONG_BINPUT[0]: 4,
    }
    while True:
        key = read(1)
        if not key:
            raise EOFError
        if key[0] == GLOBAL[0]:
            module, name = _read_global_instruction(readline)
            globals_in_checkpoint.add(f"{module}.{name}")
        elif key[0] in op_to_bytes_to_read:
            if op_to_bytes_to_read[key[0]]:
                read(op_to_bytes_to_read[key[0]])
        elif key[0] == BINUNICODE[0]:
            strlen = unpack("<I", read(4))[0]
            if strlen > maxsize:
                raise UnpicklingError("String is too long")
            read(strlen)
        elif key[0] in {SHORT_BINSTRING[0], LONG1[0]}:
            read(read(1)[0])
        elif key[0] == PROTO[0]:
            read(1)
        elif key[0] == STOP[0]:
            return globals_in_checkpoint
        else:
            raise UnpicklingError(f"Unsupported operand {key[0]}")


class Unpickler:
    """The restricted unpickler (torch's _weights_only_unpickler.Unpickler)."""

    def __init__(self, file, *, encoding: str = "bytes"):
        self.encoding = encoding
        self.readline = file.readline
        self.read = file.read
        self.memo: dict[int, Any] = {}
        self.proto: int = -1

    def _read_exact(self, n):
        data = self.read(n)
        if len(data) < n:
            raise EOFError("Ran out of input")
        return data

    def load(self):
        """The object the pickle describes, built from allowed globals only."""
        self.metastack: list = []
        self.stack: list[Any] = []
        self.append = self.stack.append
        read = self._read_exact
        Tensor = _tensor.Tensor
        while True:
            key = self.read(1)
            if not key:
                raise EOFError
            if not isinstance(key, bytes_types):
                raise AssertionError(f"Expected bytes, got {type(key).__name__}")
            op = key[0]
            if op == GLOBAL[0]:
                module, name = _read_global_instruction(self.readline)
                full_path = f"{module}.{name}"
                if module in _blocklisted_modules:
                    raise UnpicklingError(
                        f"Trying to load unsupported GLOBAL {full_path} whose module {module} is blocked.")
                obj = _allowed(full_path)
                if obj is not None:
                    self.append(obj)
                elif module == "torch" and name in _STORAGE_NAMES_WITHOUT_DTYPE:
                    raise RuntimeError(f"torchlite.load: torchlite has no dtype for the storages of "
                                       f"torch.{name} in this checkpoint")
                else:
                    if full_path.startswith("builtins"):
                        rest = full_path[len("builtins"):]
                        full_path = rest[1:] if rest.startswith(".") else "builtins" + rest
                    raise UnpicklingError(
                        f"Unsupported global: GLOBAL {full_path} was not an allowed global by default. "
                        f"Please use `torchlite.serialization.add_safe_globals([{full_path}])` or the "
                        f"`torchlite.serialization.safe_globals([{full_path}])` context manager to allowlist this "
                        "global if you trust this class/function.")
            elif op == NEWOBJ[0]:
                args = self.stack.pop()
                cls = self.stack.pop()
                param_cls = _parameter_class()
                if param_cls is not None and cls is param_cls:
                    self.append(param_cls(*args))
                elif isinstance(cls, type) and _is_allowed_object(cls):
                    self.append(cls.__new__(cls, *args))
                else:
                    raise UnpicklingError("Can only create new object for nn.Parameter or classes allowlisted "
                                          f"via `add_safe_globals` but got {cls}")
            elif op == REDUCE[0]:
                args = self.stack.pop()
                func = self.stack[-1]
                if not _is_allowed_object(func):
                    error_msg = f"Trying to call reduce for unrecognized function {func}"
                    if hasattr(func, "__self__"):
                        error_msg += f" which belongs to {func.__self__}"
                    raise UnpicklingError(error_msg)
                if not callable(func) or type(args) is not tuple:
                    raise UnpicklingError(f"Trying to call reduce for unrecognized function {func}")
                self.stack[-1] = func(*args)
            elif op == BUILD[0]:
                state = self.stack.pop()
                inst = self.stack[-1]
                param_cls = _parameter_class()
                if type(inst) is Tensor or (param_cls is not None and type(inst) is param_cls):
                    if hasattr(inst, "__setstate__") and type(inst) is not Tensor:
                        inst.__setstate__(state)
                    else:
                        _build_from_state(inst, state)
                elif type(inst) is OrderedDict:
                    inst.__dict__.update(state)
                elif _is_allowed_object(type(inst)):
                    if hasattr(inst, "__setstate__"):
                        inst.__setstate__(state)
                    else:
                        _build_from_state(inst, state)
                else:
                    raise UnpicklingError("Can only build Tensor, Parameter, OrderedDict or types allowlisted "
                                          f"via `add_safe_globals`, but got {type(inst)}")
            elif op == APPEND[0]:
                item = self.stack.pop()
                list_obj = self.stack[-1]
                if type(list_obj) is not list:
                    raise UnpicklingError(f"Can only append to lists, but got {type(list_obj)}")
                list_obj.append(item)
            elif op == APPENDS[0]:
                items = self.pop_mark()
                list_obj = self.stack[-1]
                if type(list_obj) is not list:
                    raise UnpicklingError(f"Can only extend lists, but got {type(list_obj)}")
                list_obj.extend(items)
            elif op == SETITEM[0]:
                (v, k) = (self.stack.pop(), self.stack.pop())
                self._check_set_item_target("SETITEM")
                self.stack[-1][k] = v
            elif op == SETITEMS[0]:
                items = self.pop_mark()
                self._check_set_item_target("SETITEMS")
                if len(items) % 2:
                    raise UnpicklingError("SETITEMS with an odd number of items")
                for i in range(0, len(items), 2):
                    self.stack[-1][items[i]] = items[i + 1]
            elif op == MARK[0]:
                self.metastack.append(self.stack)
                self.stack = []
                self.append = self.stack.append
            elif op == TUPLE[0]:
                items = self.pop_mark()  # before self.append is read: pop_mark rebinds it
                self.append(tuple(items))
            elif op == TUPLE1[0]:
                self.stack[-1] = (self.stack[-1],)
            elif op == TUPLE2[0]:
                if len(self.stack) < 2:
                    raise UnpicklingError("TUPLE2 on a stack of fewer than 2 items")
                self.stack[-2:] = [(self.stack[-2], self.stack[-1])]
            elif op == TUPLE3[0]:
                if len(self.stack) < 3:
                    raise UnpicklingError("TUPLE3 on a stack of fewer than 3 items")
                self.stack[-3:] = [(self.stack[-3], self.stack[-2], self.stack[-1])]
            elif op == NONE[0]:
                self.append(None)
            elif op == NEWFALSE[0]:
                self.append(False)
            elif op == NEWTRUE[0]:
                self.append(True)
            elif op == EMPTY_TUPLE[0]:
                self.append(())
            elif op == EMPTY_LIST[0]:
                self.append([])
            elif op == EMPTY_DICT[0]:
                self.append({})
            elif op == EMPTY_SET[0]:
                self.append(set())
            elif op == BININT[0]:
                self.append(unpack("<i", read(4))[0])
            elif op == BININT1[0]:
                self.append(read(1)[0])
            elif op == BININT2[0]:
                self.append(unpack("<H", read(2))[0])
            elif op == BINFLOAT[0]:
                self.append(unpack(">d", read(8))[0])
            elif op == BINUNICODE[0]:
                strlen = unpack("<I", read(4))[0]
                if strlen > maxsize:
                    raise UnpicklingError("String is too long")
                self.append(str(read(strlen), "utf-8", "surrogatepass"))
            elif op == SHORT_BINSTRING[0]:
                strdata = read(read(1)[0])
                if self.encoding != "bytes":
                    strdata = strdata.decode(self.encoding, "strict")
                self.append(strdata)
            elif op == BINPERSID[0]:
                pid = self.stack.pop()
                if type(pid) is not tuple and type(pid) is not int:
                    raise UnpicklingError(f"persistent_load id must be tuple or int, but got {type(pid)}")
                if type(pid) is tuple and len(pid) > 0 and _decode_ascii(pid[0]) != "storage":
                    raise UnpicklingError(f"Only persistent_load of storage is allowed, but got {type(pid[0])}")
                self.append(self.persistent_load(pid))
            elif op in (BINGET[0], LONG_BINGET[0]):
                idx = (read(1) if op == BINGET[0] else unpack("<I", read(4)))[0]
                if idx not in self.memo:
                    raise UnpicklingError(f"Memo value not found at index {idx}")
                self.append(self.memo[idx])
            elif op in (BINPUT[0], LONG_BINPUT[0]):
                i = (read(1) if op == BINPUT[0] else unpack("<I", read(4)))[0]
                self.memo[i] = self.stack[-1]
            elif op == LONG1[0]:
                self.append(decode_long(read(read(1)[0])))
            elif op == PROTO[0]:
                self.proto = read(1)[0]
                if self.proto != 2:
                    warnings.warn(
                        f"Detected pickle protocol {self.proto} in the checkpoint, which was "
                        "not the default pickle protocol used by `torch.load` (2). The weights_only "
                        "Unpickler might not support all instructions implemented by this protocol, "
                        "please file an issue for adding support if you encounter this.", stacklevel=2)
            elif op == STOP[0]:
                return self.stack.pop()
            else:
                raise UnpicklingError(f"Unsupported operand {op}")

    def pop_mark(self):
        if not self.metastack:
            raise UnpicklingError("could not find MARK")
        items = self.stack
        self.stack = self.metastack.pop()
        self.append = self.stack.append
        return items

    def _check_set_item_target(self, opcode: str):
        if type(self.stack[-1]) not in [dict, OrderedDict, Counter]:
            raise UnpicklingError(f"Can only {opcode} for dict, collections.OrderedDict, "
                                  f"collections.Counter, but got {type(self.stack[-1])}")

    def persistent_load(self, pid):
        raise UnpicklingError("unsupported persistent id encountered")


def _build_from_state(inst, state):
    slotstate = None
    if isinstance(state, tuple) and len(state) == 2:
        state, slotstate = state
    if state:
        for k, v in state.items():
            setattr(inst, k, v)
    if slotstate:
        for k, v in slotstate.items():
            setattr(inst, k, v)


def _decode_ascii(value):
    return value.decode("ascii") if isinstance(value, bytes) else value


def load(file, *, encoding: str = "ASCII"):
    return Unpickler(file, encoding=encoding).load()
