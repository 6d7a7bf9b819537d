"""fill_ and zero_ (ATen/native/Fill.cpp)."""
from .._C import _inplace_node, _rebase_history
from .._generated import specs as _S
from .MemoryOverlap import _check_overlap
from .ScalarType import _scalar_value
from .TensorIterator import _TB, _loud, _quiet
from . import mutation as _mutation


def zero_(self):
    # fill_ and zero_ write without TensorIterator's overlap checks: an expanded tensor may be filled
    node = _inplace_node(_S.ZeroBackward0, (self,))
    if _mutation.hook is not None:
        _mutation.hook(self)
    self._array[...] = 0
    self._bump_version()
    return _rebase_history(self, node)


def fill_(self, value):
    if isinstance(value, _TB):
        if value._array.ndim:
            raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor with "
                               f"{value._array.ndim} dimensions.")
        node = _inplace_node(_S.FillBackward3, (self, value))
        # fill_ with a tensor copies it (at::fill_), so copy_'s internal-overlap
        # check applies; a value aliasing self is read first
        if _mutation.hook is not None:
            _mutation.hook(self)
        _check_overlap(self._array)
        token = _quiet()  # the value cast as it is: nan and inf to an integer silently, as in torch
        try:
            self._array[...] = value._array.copy()
        finally:
            _loud(token)
    else:
        node = _inplace_node(_S.FillBackward2, (self,))
        if _mutation.hook is not None:
            _mutation.hook(self)
        self._array[...] = _scalar_value(value, self._array.dtype)  # a number's conversion is checked
    self._bump_version()
    return _rebase_history(self, node)
