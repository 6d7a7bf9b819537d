"""Where a view lies in its storage (View geometry below; torch's
TensorGeometry): the numpy views the view ops make, and the geometries
as_strided's and CopySlices' formulas compute with."""
import builtins
from typing import NamedTuple

import numpy as np

from .. import _backend


# A tensor's place in its storage is kept by its C++ TensorImpl: a view shares
# its base's storage at the offset its array's data pointer gives
# (python_variable.cpp, view_from_array), so storage_offset() and as_strided
# see torch's storage for every view, .data and detach() included. numpy's
# indexing moves the data pointer of an empty result back to the indexed
# array's, where torch's empty view keeps its offset: view ops build an empty
# result with _placed, at torch's offset and strides. AsStridedBackward0 (a
# view's regenerated grad_fn, and as_strided's) and CopySlices compute with
# the two tensors' geometries (sizes, strides, storage offset: torch's
# TensorGeometry) as torch does, in torchlite's own ops, so their graphs under
# create_graph are torch's.

def _data_ptr(a):
    return a.data.ptr if _backend.is_cuda_array(a) else a.__array_interface__["data"][0]


class _Placement:
    """An array interface over `a`'s memory at a byte offset from its first
    element, which numpy views (keeping `a` alive through .base)."""
    __slots__ = ("__array_interface__", "base")

    def __init__(self, a, byte_offset, shape, strides):
        self.__array_interface__ = {"version": 3, "shape": tuple(shape), "typestr": a.dtype.str,
                                    "strides": tuple(strides),
                                    "data": (_data_ptr(a) + byte_offset, not a.flags.writeable)}
        self.base = a


def _placed(a, byte_offset, shape, strides):
    """The numpy view of `a`'s memory with these shape and strides (in bytes),
    starting byte_offset bytes after a's first element: kept even where it is
    empty, unlike numpy's indexing."""
    return np.asarray(_Placement(a, byte_offset, shape, strides))


def _sliced(a, dim, k):
    """a[..., k] along dim (a slice with a positive step), placed as torch's
    slice places an empty one: start clamped into [0, size], stride times step."""
    r = a[(slice(None),) * dim + (k,)]
    if r.size:
        return r
    start, _, step = k.indices(a.shape[dim])
    strides = list(a.strides)
    strides[dim] *= step
    return _placed(a, start * a.strides[dim], r.shape, strides)


def _selected(a, dim, index):
    """a's index along dim (in range), placed as torch's select places an empty one."""
    r = a[(slice(None),) * dim + (index, Ellipsis)]
    if r.size:
        return r
    index %= a.shape[dim]
    return _placed(a, index * a.strides[dim], r.shape, a.strides[:dim] + a.strides[dim + 1:])


def _positions_lookup(b):
    """A table over b's memory giving, at each element's position, its flat index in b."""
    itemsize = b.itemsize
    if b.size == 0:
        return np.zeros(0, np.int64)
    extent = 1 + builtins.sum((n - 1) * st // itemsize for n, st in zip(b.shape, b.strides, strict=True))
    table = np.full(extent, -1, np.int64)
    _backend.as_strided(table, b.shape, tuple(st // itemsize * 8 for st in b.strides))[...] = \
        np.arange(b.size).reshape(b.shape)
    return table


def _flat_index(v, b):
    """The flat index in `b` of each element of `v`, a numpy view of b's memory."""
    if v.size == 0:
        return np.zeros(v.shape, np.int64)
    table = _positions_lookup(b)
    offset = (_data_ptr(v) - _data_ptr(b)) // b.itemsize
    return _backend.as_strided(table[offset:], v.shape,
                                           tuple(st // v.itemsize * 8 for st in v.strides)).copy()


class TensorGeometry(NamedTuple):
    """torch's TensorGeometry: sizes, strides and storage offset, in elements."""
    sizes: tuple
    strides: tuple
    storage_offset: int


class ViewGeometry(NamedTuple):
    """What CopySlices keeps of a view: its base's geometry and its own."""
    base: TensorGeometry
    view: TensorGeometry


def _geometry(t):
    """The TensorGeometry of t."""
    a = t._array
    return TensorGeometry(a.shape, tuple(st // a.itemsize for st in a.strides), t.storage_offset())


def _min_storage_size(sizes, strides, offset):
    """The storage a geometry needs, in elements (as_strided_backward's helper)."""
    if 0 in sizes:
        return offset
    return offset + 1 + builtins.sum((n - 1) * st for n, st in zip(sizes, strides, strict=True))


def _maybe_overlapping_memory(sizes, strides):
    """Whether two indices of a geometry (without its size-0 and size-1
    dimensions) may reach the same element: Note [Detecting Memory Overlap
    Within A Strided Tensor] (seeds, FunctionsManual.cpp), smallest stride
    first, each must exceed the furthest reach of the dimensions before it."""
    reach = 0
    for st, n in sorted(zip(strides, sizes, strict=True)):
        if st <= reach:
            return True
        reach += st * (n - 1)
    return False


def _view_geometry(view, base):
    """What CopySlices keeps of a view of `base`."""
    return ViewGeometry(_geometry(base), _geometry(view))


def _as_strided_fields(view, base):
    """The fields of a view's regenerated AsStridedBackward0: as_strided from base to view."""
    geometry = _geometry(view)
    return {"self_geometry": _geometry(base), "size": geometry.sizes, "stride": geometry.strides,
            "storage_offset": geometry.storage_offset}


def _storage_index(size, geometry):
    """The storage index of each element of a geometry, over a storage of `size`
    elements (as_strided_backward's arange(size).as_strided(...))."""
    sizes, strides, offset = geometry
    flat = np.arange(size, dtype=np.int64)
    return _placed(flat, offset * 8, sizes, tuple(st * 8 for st in strides))
