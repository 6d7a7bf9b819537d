"""stride and contiguous (ATen/native/TensorProperties.cpp)."""
from .. import _backend, _memory_format as _mf
from .._C import _record, _wrap
from .._generated import specs as _S
from .python_arg_parser import _int_arg, _wrap_dim


def contiguous(self, *, memory_format=None):
    if memory_format is not None and memory_format is not _mf.contiguous_format:
        # another layout: self where it has it, else a clone in it (TensorProperties.cpp)
        if memory_format is _mf.preserve_format:
            raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
        from .TensorFactories import clone
        order, rank = _mf._CHANNELS_LAST[memory_format]
        a = self._array
        if a.ndim == rank and _geometry_dense_in(a, order):
            return self
        return clone(self, memory_format=memory_format)
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


def stride(self, dim=None):
    a = self._array
    strides = tuple(st // a.itemsize for st in a.strides)
    if dim is None:
        return strides
    return strides[_wrap_dim(_int_arg("stride", "dim", 1, dim), a.ndim, wrap_scalar=False)]
