"""dtype, device and Size: the small value types of the torch API."""
import builtins

import numpy as np

__all__ = ["dtype", "device", "Size", "float32", "float64", "int64", "bool",
           "float", "double", "long"]


class dtype:
    """A tensor element type (torch.dtype); wraps the numpy dtype that stores it."""

    __slots__ = ("_name", "_np", "is_floating_point", "itemsize")

    def __init__(self, name, np_dtype):
        self._name = name
        self._np = np.dtype(np_dtype)
        self.is_floating_point = self._np.kind == "f"
        self.itemsize = self._np.itemsize

    def __repr__(self):
        return "torchlite." + self._name

    def __reduce__(self):
        return self._name


float32 = float = dtype("float32", np.float32)  # noqa: A001 - torch's name
float64 = double = dtype("float64", np.float64)
int64 = long = dtype("int64", np.int64)
bool = dtype("bool", np.bool_)  # noqa: A001 - torch's name

_by_numpy = {d._np: d for d in (float32, float64, int64, bool)}


def _from_numpy_dtype(np_dtype):
    return _by_numpy[np_dtype]


def _c_type_name(np_dtype):
    """The C++ name torch prints for a dtype in some messages ("float", "double", ...)."""
    return {"float32": "float", "float64": "double", "int64": "long int", "bool": "bool"}[np.dtype(np_dtype).name]


def _to_numpy_dtype(d):
    """numpy dtype for a torchlite dtype, a numpy dtype or a Python type."""
    if isinstance(d, dtype):
        return d._np
    if d is builtins.float:
        return float32._np
    if d is builtins.int:
        return int64._np
    if d is builtins.bool:
        return bool._np
    return np.dtype(d)




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
            index = int(idx)
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
