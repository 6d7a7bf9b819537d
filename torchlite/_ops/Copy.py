"""copy_ (ATen/native/Copy.cpp), and the copy an op's kernel makes of an
inference tensor outside inference mode."""
import numpy as np

from .. import _C, _backend
from .._C import _copy_node, _rebase_history, _wrap
from .MemoryOverlap import _check_overlap
from .TensorGeometry import _data_ptr
from .TensorIterator import _TB, _check_inplace_broadcast, _loud, _quiet, _sequential
from . import mutation as _mutation


def _below_autograd(self):
    """Whether autograd skips an op whose only tensor is self: an inference tensor outside
    inference mode (it has no Autograd dispatch key). Where the op's kernel calls other ops
    on tensors it makes (normal ones), autograd records those instead."""
    return self.is_inference() and not _C._is_inference_mode_enabled()


def _copy_of_inference(self, out):
    """The copy (clone, _to_copy) of an inference tensor outside inference mode, as torch
    makes it: the op's kernel fills a normal tensor with copy_, which autograd records
    (CopyBackwards)."""
    return copy_(_wrap(out, self), self)


def copy_(self, src, non_blocking=False):
    a = self._array
    if not isinstance(src, _TB):
        if not isinstance(src, (bool, int, float, np.number, np.bool_)):
            raise TypeError(f"copy_(): argument 'other' (position 1) must be Tensor, not {type(src).__name__}")
        # a number is wrapped as a 0-d tensor (torch's scalar_to_tensor: double, long or bool), then copied
        src = _wrap(_backend.asarray(np.asarray(src, np.float64 if isinstance(src, (float, np.floating)) else
                                                np.bool_ if isinstance(src, (bool, np.bool_)) else np.int64),
                                     like=self), self)
    b = src._array
    # the hand-written CopyBackwards (none for an integer or bool self, which carries no gradient)
    node = _copy_node(self, src)
    # copy_impl returns before its TensorIterator (and its overlap checks) when src is
    # self's very view: the same memory, sizes, strides and dtype
    if _mutation.hook is not None:
        _mutation.hook(self)
    if not (a.dtype == b.dtype and a.shape == b.shape and a.strides == b.strides and _data_ptr(a) == _data_ptr(b)):
        sequential = _check_overlap(a, b)
        _check_inplace_broadcast(a.shape, b.shape)
        token = _quiet()  # nan and inf cast to an integer silently, as in torch
        try:
            if sequential:
                _sequential(lambda x, y: y, a, b)
            else:
                a[...] = b
        finally:
            _loud(token)
    self._bump_version()
    return _rebase_history(self, node)
