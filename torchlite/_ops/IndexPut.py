"""index_put / index_put_ and put / put_ as public ops (ATen/native/TensorAdvancedIndexing.cpp): the
index tensors given as a tuple (index_put, python's x[indices] = values without the key parsing) or one
flat index (put: self's elements in row-major order). Nodes IndexPutBackward0 (saving indices and
accumulate) and PutBackward0 (saving index, source and accumulate); the functional forms record their
node on the result directly (the in-place kernel run on a clone with grad mode off), as upstream's
functional ops do."""
import numpy as np

from .. import _C
from .._C import _inplace_node, _rebase_history, _record
from .._generated import specs as _S
from . import mutation as _mutation
from .IndexingOps import _put
from .MemoryOverlap import _INTERNAL_OVERLAP, _has_internal_overlap
from .ScalarType import _torch_type_name
from .TensorIterator import _TB
from .TensorAdvancedIndexing import _check_index_put_value, _index_put_, _index_tensors, _make_info
from .TensorFactories import _const, clone
from .python_arg_parser import _tp_name

_INDEX_DTYPES = (np.int64, np.int32, np.bool_, np.uint8)


def _indices_key(indices, name):
    """The numpy key of index_put's `indices` (a tuple or list of index tensors)."""
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"{name}(): argument 'indices' (position 1) must be tuple of Tensors, not "
                        f"{type(indices).__name__}")
    key = []
    for i, t in enumerate(indices):
        if not isinstance(t, _TB):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {_tp_name(t)}")
        arr = t._array
        if arr.dtype.type not in _INDEX_DTYPES:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        key.append(arr.astype(np.bool_) if arr.dtype == np.uint8 else arr)
    return tuple(key)


def _accumulate_(self, key, value):
    """index_put_(..., accumulate=True): the values added at the indices, repeats adding up."""
    a, v = self._array, value._array
    saved = tuple(_const(k, self) for k in _index_tensors(key))
    node = _inplace_node(_S.IndexPutBackward0, (self, value), indices=saved, key=key, values_shape=v.shape,
                         values_dtype=v.dtype, accumulate=True)
    if len(key) > a.ndim:
        raise IndexError(f"too many indices for tensor of dimension {a.ndim} (got {len(key)})")
    target = _make_info(a.shape, key)[3]
    _check_index_put_value(a, v, target)
    d = 0
    for k in key:  # the index kernel's bounds check (numpy's add.at words it otherwise)
        if isinstance(k, np.ndarray) and k.dtype != np.bool_:
            bad = (k >= a.shape[d]) | (k < -a.shape[d])
            if bad.any():
                raise IndexError(f"index {int(k.reshape(-1)[int(np.argmax(bad.reshape(-1)))])} is out of bounds for "
                                 f"dimension {d} with size {a.shape[d]}")
        d += k.ndim if isinstance(k, np.ndarray) and k.dtype == np.bool_ else 1
    if _mutation.hook is not None:
        _mutation.hook(self)
    if 0 not in target:
        np.add.at(a, key, np.broadcast_to(v, target))
    self._bump_version()
    return _rebase_history(self, node)


def index_put_(self, indices, values, accumulate=False):
    """torch.index_put_ / Tensor.index_put_: self[indices] = values (+= with accumulate)."""
    if isinstance(indices, (tuple, list)) and all(isinstance(t, _TB) for t in indices):  # (the parser's errors
        _C._check_inplace(self, self.requires_grad or values.requires_grad)            # come first)
    key = _indices_key(indices, "index_put_")
    if len(key) > self._array.ndim:
        raise IndexError(f"too many indices for tensor of dimension {self._array.ndim} (got {len(key)})")
    if accumulate:
        return _accumulate_(self, key, values)
    return _index_put_(self, key, values)


def index_put(self, indices, values, accumulate=False):
    """torch.index_put / Tensor.index_put: a copy of self with values put at indices."""
    key = _indices_key(indices, "index_put")
    previous = _C.is_grad_enabled()
    _C._set_grad_enabled(False)
    try:
        out = index_put_(clone(self.detach()), indices, values.detach(), accumulate)
    finally:
        _C._set_grad_enabled(previous)
    v = values._array
    saved = tuple(_const(k, self) for k in _index_tensors(key))
    return _record(_S.IndexPutBackward0, (self, values), out.detach(), indices=saved, key=key, values_shape=v.shape,
                   values_dtype=v.dtype, accumulate=bool(accumulate))


def _put_checks(self, index, source, in_place=False, accumulate=False):
    """put_'s checks; `in_place`: self must not overlap itself, and an index out of range raises after
    the indices before it are written (put_stub's loop), no node recorded and no version bump."""
    a, i, s = self._array, index._array, source._array
    if i.dtype != np.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {_torch_type_name(i.dtype)}")
    if a.dtype != s.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{_torch_type_name(a.dtype)} and source.dtype = {_torch_type_name(s.dtype)}")
    if i.size != s.size:
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, but got "
                         f"source.numel() = {s.size}, index.numel() = {i.size}")
    if i.size and a.size == 0:
        raise IndexError("put_(): Tried to put elements into an empty tensor")
    if in_place and _has_internal_overlap(a):
        raise RuntimeError(_INTERNAL_OVERLAP)
    flat = i.reshape(-1)
    bad = (flat >= a.size) | (flat < -a.size)
    if bad.any():
        k = int(np.argmax(bad))
        if in_place and k:
            where = np.unravel_index(np.where(flat[:k] < 0, flat[:k] + a.size, flat[:k]), a.shape)
            if accumulate:
                np.add.at(a, where, s.reshape(-1)[:k])
            else:
                a[where] = s.reshape(-1)[:k]
        raise IndexError(f"out of range: tried to access index {int(flat[k])} on a tensor of {a.size} elements.")


def put(self, index, source, accumulate=False):
    """torch.put / Tensor.put: a copy of self with source's elements at the flat indices (added with
    accumulate; of repeated indices without it, the last stays)."""
    _put_checks(self, index, source)
    return _put(self, index, source, bool(accumulate))


def put_(self, index, source, accumulate=False):
    """Tensor.put_: put in place (node PutBackward0); check_inplace before the kernel's checks."""
    _C._check_inplace(self, self.requires_grad or source.requires_grad)
    _put_checks(self, index, source, in_place=True, accumulate=bool(accumulate))
    node = _inplace_node(_S.PutBackward0, (self, source), index=index, source=source, accumulate=bool(accumulate))
    previous = _C.is_grad_enabled()
    _C._set_grad_enabled(False)
    try:
        r = _put(self.detach(), index, source.detach(), bool(accumulate))._array
    finally:
        _C._set_grad_enabled(previous)
    if _mutation.hook is not None:
        _mutation.hook(self)
    self._array[...] = r
    self._bump_version()
    return _rebase_history(self, node)
