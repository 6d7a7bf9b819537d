"""stride and contiguous (ATen/native/TensorProperties.cpp)."""
import numpy as np

from .. import _C, _backend, _memory_format as _mf
from .._C import _record, _wrap
from .._generated import specs as _S
from .python_arg_parser import _int_arg, _wrap_dim
from .TensorIterator import _dense_strides, _new_empty, _strided_empty


def contiguous(self, *, memory_format=None):
    if memory_format is not None and memory_format is not _mf.contiguous_format:
        # another layout: self where it has it, else a clone in it (TensorProperties.cpp)
        if memory_format is _mf.preserve_format:
            raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
        order, rank = _mf._CHANNELS_LAST[memory_format]
        a = self._array
        if a.ndim == rank and _geometry_dense_in(a, order):
            return self
        out = _empty_in_format(a, memory_format, self)  # clone(memory_format=...): CloneBackward0
        np.copyto(out, a)
        return _record(_S.CloneBackward0, (self,), _wrap(out, self))
    if self._array.flags.c_contiguous:
        return self
    out = _wrap(_backend.ascontiguousarray(self._array), self)
    return _record(_S.CloneBackward0, (self,), out)


def _geometry_dense_in(a, order):
    """Whether `a` is dense in this dimension order, innermost first (a size-1 dimension's stride
    is free): c10's is_channels_last_strides_2d / _3d contiguity."""
    expected = a.itemsize
    for d in order:
        if a.shape[d] != 1:
            if a.strides[d] != expected:
                return False
            expected *= a.shape[d]
    return True


def _empty_in_format(a, fmt, like):
    """An uninitialised array of a's shape laid out in memory format `fmt` (contiguous_format,
    channels_last: dense with the channels innermost; c10's get_channels_last_strides_2d)."""
    if fmt in _mf._CHANNELS_LAST:
        order, rank = _mf._CHANNELS_LAST[fmt]
        if a.ndim != rank:
            raise RuntimeError(f"required rank {rank} tensor to use {fmt._name} format")
        empty = _C._empty_array if a.dtype.kind == "f" else _new_empty
        if _backend.is_cuda_array(a):
            empty, like = _backend.empty_on, a
        return _strided_empty(a.shape, _dense_strides(a.shape, order), a.dtype, like, empty)
    if a.dtype.kind == "f" and not _backend.is_cuda_array(a):
        return _C._empty_array(a.shape, a.dtype, like)
    return _backend.new(a, "empty", a.shape, a.dtype)


def stride(self, dim=None):
    a = self._array
    strides = tuple(st // a.itemsize for st in a.strides)
    if dim is None:
        return strides
    return strides[_wrap_dim(_int_arg("stride", "dim", 1, dim), a.ndim, wrap_scalar=False)]
