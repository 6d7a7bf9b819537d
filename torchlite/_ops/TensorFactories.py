"""The ops that make a tensor from another (ATen/native/TensorFactories.cpp):
clone, zeros_like, ones_like, and the constants formulas use."""
import numpy as np

from .. import _C, _backend, _memory_format as _mf
from .._C import _record, _wrap
from .._generated import specs as _S
from .Copy import _below_autograd, _copy_of_inference
from .TensorIterator import _dense_strides, _empty_like, _new_empty, _strided_empty


def _const(arr, like):
    """A tensor that never requires grad (masks, constants inside formulas)."""
    return _wrap(_backend.asarray(arr, like=like), like)


def clone(self, *, memory_format=None):
    a = self._array
    if memory_format is not None and not isinstance(memory_format, _mf.memory_format):
        raise TypeError(f"clone(): argument 'memory_format' must be torch.memory_format, not "
                        f"{type(memory_format).__name__}")
    if memory_format is None or memory_format is _mf.preserve_format:
        out = _empty_like(a, a.dtype, self)
    else:
        out = _empty_in_format(a, memory_format, self)
    if self.requires_grad and _below_autograd(self):
        return _copy_of_inference(self, out)
    np.copyto(out, a)
    return _record(_S.CloneBackward0, (self,), _wrap(out, self))


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


def zeros_like(self, dtype=None):
    a = self._array
    return _wrap(_backend.new(a, "zeros", a.shape, dtype=dtype._np if dtype is not None else a.dtype), self)


def ones_like(self, dtype=None):
    a = self._array
    return _wrap(_backend.new(a, "ones", a.shape, dtype=dtype._np if dtype is not None else a.dtype), self)
