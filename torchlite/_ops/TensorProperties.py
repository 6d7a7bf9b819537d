"""stride and contiguous (ATen/native/TensorProperties.cpp)."""
from .. import _backend
from .._C import _record, _wrap
from .._generated import specs as _S
from .python_arg_parser import _int_arg, _wrap_dim


def contiguous(self):
    if self._array.flags.c_contiguous:
        return self
    out = _wrap(_backend.ascontiguousarray(self._array), self)
    return _record(_S.CloneBackward0, (self,), out)


def stride(self, dim=None):
    a = self._array
    strides = tuple(st // a.itemsize for st in a.strides)
    if dim is None:
        return strides
    return strides[_wrap_dim(_int_arg("stride", "dim", 1, dim), a.ndim, wrap_scalar=False)]
