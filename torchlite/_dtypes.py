"""dtype, device and Size: the small value types of the torch API; finfo, iinfo and
the default dtype (torch/csrc/Dtype.cpp, TypeInfo.cpp, c10's ScalarType.h)."""
import builtins

import numpy as np

__all__ = ["dtype", "device", "Size", "float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8",
           "bool", "float", "double", "half", "long", "int", "short", "finfo", "iinfo", "get_default_dtype",
           "set_default_dtype"]


class dtype:
    """A tensor element type (torch.dtype); wraps the numpy dtype that stores it."""

    __slots__ = ("_name", "_np", "is_floating_point", "itemsize", "is_signed", "is_complex", "abbr")

    def __init__(self, name, np_dtype):
        self._name = name
        self._np = np.dtype(np_dtype)
        self.is_floating_point = self._np.kind == "f"
        self.itemsize = self._np.itemsize
        self.is_signed = self._np.kind in "fi"  # c10::isSignedType: bool and uint8 are not
        self.is_complex = False
        self.abbr = "b8" if self._np.kind == "b" else self._np.kind + builtins.str(self.itemsize * 8)

    def __repr__(self):
        return "torchlite." + self._name

    def __reduce__(self):
        return self._name

    def to_real(self):
        """The real dtype of this one (a real dtype is its own)."""
        return self


float32 = float = dtype("float32", np.float32)  # noqa: A001 - torch's name
float64 = double = dtype("float64", np.float64)
float16 = half = dtype("float16", np.float16)
int64 = long = dtype("int64", np.int64)
int32 = int = dtype("int32", np.int32)  # noqa: A001 - torch's name
int16 = short = dtype("int16", np.int16)
int8 = dtype("int8", np.int8)
uint8 = dtype("uint8", np.uint8)
bool = dtype("bool", np.bool_)  # noqa: A001 - torch's name

_ALL = (float32, float64, float16, int64, int32, int16, int8, uint8, bool)
_by_numpy = {d._np: d for d in _ALL}


def _from_numpy_dtype(np_dtype):
    return _by_numpy[np_dtype]


# The C++ type names torch prints in some messages (c10's CppTypeToScalarType names)
_C_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int", "int32": "int",
                 "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool"}


def _c_type_name(np_dtype):
    """The C++ name torch prints for a dtype in some messages ("float", "double", ...)."""
    return _C_TYPE_NAMES[np.dtype(np_dtype).name]


# The default dtype (torch.get_default_dtype): what Python floats and float
# factories make, and what integer inputs of a float function compute in.
# One-element list, read by the ops (_ops/ScalarType.py's _default_float).
_default = [float32]


def get_default_dtype():
    return _default[0]


def set_default_dtype(d):
    """torch.set_default_dtype: float32, float64 or float16 (torch's bfloat16 torchlite has not)."""
    if not isinstance(d, dtype):
        raise TypeError("invalid dtype object: only floating-point types are supported as the default type")
    if not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _default[0] = d


def _to_numpy_dtype(d):
    """numpy dtype for a torchlite dtype, a numpy dtype or a Python type."""
    if isinstance(d, dtype):
        return d._np
    if d is builtins.float:
        return _default[0]._np
    if d is builtins.int:
        return int64._np
    if d is builtins.bool:
        return bool._np
    return np.dtype(d)


def _dtype_arg(d, name="dtype"):
    """A torchlite dtype for an argument torch reads as a dtype (a dtype, or float/int/bool)."""
    if isinstance(d, dtype):
        return d
    if d is builtins.float:
        return float64
    if d is builtins.int:
        return int64
    if d is builtins.bool:
        return bool
    raise TypeError(f"{name} must be torch.dtype, not {type(d).__name__}")


_TENSOR_TYPE_NAMES = {"FloatTensor": float32, "DoubleTensor": float64, "HalfTensor": float16, "LongTensor": int64,
                      "IntTensor": int32, "ShortTensor": int16, "CharTensor": int8, "ByteTensor": uint8,
                      "BoolTensor": bool}


def _by_tensor_type_name(name):
    """The dtype of a legacy tensor type name ("FloatTensor"), or None."""
    return _TENSOR_TYPE_NAMES.get(name)


class finfo:
    """torch.finfo: the machine limits of a floating point dtype."""

    def __init__(self, type=None):  # noqa: A002 - torch's name
        d = _default[0] if type is None else type
        if not isinstance(d, dtype) or not d.is_floating_point:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                            "'torch.finfo'")
        info = np.finfo(d._np)
        self.dtype = d._name
        self.bits = d.itemsize * 8
        self.eps = builtins.float(info.eps)
        self.max = builtins.float(info.max)
        self.min = builtins.float(info.min)
        self.tiny = self.smallest_normal = builtins.float(info.smallest_normal)
        self.resolution = 10.0 ** -builtins.int(info.precision)

    def __eq__(self, other):
        return isinstance(other, finfo) and self.dtype == other.dtype

    def __hash__(self):
        return hash(("finfo", self.dtype))

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """torch.iinfo: the limits of an integer dtype."""

    def __init__(self, type):  # noqa: A002 - torch's name
        if not isinstance(type, dtype) or type.is_floating_point:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'")
        if type is bool:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        info = np.iinfo(type._np)
        info_min, info_max = builtins.int(info.min), builtins.int(info.max)
        self.dtype = type._name
        self.bits = type.itemsize * 8
        self.min = info_min
        self.max = info_max

    def __eq__(self, other):
        return isinstance(other, iinfo) and self.dtype == other.dtype

    def __hash__(self):
        return hash(("iinfo", self.dtype))

    def __repr__(self):
        return f"iinfo(min={builtins.float(self.min):g}, max={builtins.float(self.max):g}, dtype={self.dtype})"


class device:
    """A device spec: "cpu", "sim:N" (simulated accelerator in host memory), "cuda[:N]"."""

    __slots__ = ("type", "index")

    def __init__(self, type, index=None):  # noqa: A002 - torch's name
        if isinstance(type, device):
            type, index = type.type, type.index  # noqa: A001 - torch's name
        elif ":" in type:
            if index is not None:
                raise RuntimeError("type (string) must not include an index because index was passed explicitly: "
                                   + type)
            type, idx = type.split(":", 1)  # noqa: A001 - torch's name
            index = builtins.int(idx)
        if type not in ("cpu", "cuda", "sim"):
            raise RuntimeError(
                "Expected one of cpu, cuda, sim device type at start of device string: " + type)
        self.type = type
        self.index = index

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))


class Size(tuple):
    """torch.Size: a tuple of dimension sizes."""

    def __repr__(self):
        return f"torchlite.Size({list(self)})"

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n
