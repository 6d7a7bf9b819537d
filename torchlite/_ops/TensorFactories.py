"""The ops that make a tensor from another (ATen/native/TensorFactories.cpp):
clone, zeros_like, ones_like, and the constants formulas use."""
import numpy as np

from .. import _backend, _memory_format as _mf
from .._C import _record, _wrap
from .._generated import specs as _S
from .Copy import _below_autograd, _copy_of_inference
from .TensorIterator import _empty_like
from .TensorProperties import _empty_in_format


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


def zeros_like(self, dtype=None):
    a = self._array
    return _wrap(_backend.new(a, "zeros", a.shape, dtype=dtype._np if dtype is not None else a.dtype), self)


def ones_like(self, dtype=None):
    a = self._array
    return _wrap(_backend.new(a, "ones", a.shape, dtype=dtype._np if dtype is not None else a.dtype), self)
