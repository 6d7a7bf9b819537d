"""Indexing with index tensors (ATen/native/TensorAdvancedIndexing.cpp):
index (getitem_raw) and index_put_ with their errors and kernels, and the
gather, scatter, index_select, index_add and masked_fill the formulas call."""
import builtins
import warnings

import numpy as np

from .. import _backend
from .._C import _inplace_node, _rebase_history, _record, _record_view, _wrap
from .._generated import specs as _S
from .ExpandUtils import _expanded_strides
from .MemoryOverlap import _OVERLAP, _OVERLAP_FULL, _OVERLAP_PARTIAL, _has_internal_overlap, _overlap_status
from .ScalarType import _b1, _i32, _i64, _scalar_value, _torch_type_name
from .TensorFactories import _const
from .TensorIterator import _TB, _dense_strides, _iteration_order, _new_empty, _strided_empty
from .TensorShape import _compute_stride, _slice_fields
from . import mutation as _mutation


def _scatter_zeros(spec, src, shape, dim, idx):
    """zeros(shape).scatter(dim, idx, src) (scatter_add for ScatterAddBackward0): inside a formula, as
    torch's formulas call it. The zeros need no gradient: the node's first edge is empty."""
    a = src._array
    z = _backend.new(a, "zeros", shape, a.dtype)
    if shape and spec is _S.ScatterAddBackward0:
        # scatter_add adds up the values of repeated indices (put_along_axis keeps one of them)
        xp = _backend.xp(z)
        where = list(xp.indices(idx.shape, sparse=True))
        where[dim] = idx
        xp.add.at(z, tuple(where), a)
    elif shape:
        np.put_along_axis(z, idx, a, dim)
    else:
        z[()] = a
    zeros = _wrap(_backend.new(a, "zeros", shape, a.dtype), src)
    index = _const(idx, src)
    return _record(spec, (zeros, src), _wrap(z, src), (index,), dim=dim, index=index)


def _masked_fill_zeros(shape, mask, value):
    """zeros(shape).masked_fill_(mask, value) for a 0-d tensor value (node MaskedFillBackward1)."""
    a = value._array
    z = np.where(mask, a, a.dtype.type(0)).astype(a.dtype, copy=False)
    zeros = _wrap(_backend.new(a, "zeros", shape, a.dtype), value)
    return _record(_S.MaskedFillBackward1, (zeros, value), _wrap(z, value), mask=_const(mask, value))


def _masked_fill(self, mask, value):
    """self.masked_fill(mask, value) for a bool tensor `mask` of self's shape and a number, inside a
    formula (node MaskedFillBackward0)."""
    a = self._array
    out = _wrap(_backend.asarray(np.where(mask._array, a.dtype.type(value), a)), self)
    return _record(_S.MaskedFillBackward0, (self,), out, mask=mask)


# Indexing ------------------------------------------------------------------------

def _index_key(key):
    if isinstance(key, tuple):
        return tuple(k._array if isinstance(k, _TB) else k for k in key)
    if isinstance(key, _TB):
        return key._array
    return key


def _is_basic(key):
    items = key if isinstance(key, tuple) else (key,)
    return all(k is None or k is Ellipsis or isinstance(k, (int, slice, np.integer)) and
               not isinstance(k, bool) for k in items)


def _index_tensors(key):
    """The index arrays of an advanced-indexing key: IndexBackward0 and
    IndexPutImplBackward0 save them (torch's `indices`), so a freed graph refuses
    a second backward through the node and saved-tensor hooks see them."""
    return tuple(k for k in (key if isinstance(key, tuple) else (key,)) if isinstance(k, (np.ndarray, list)))


def _saved_index_key(key, saved):
    """`key` with its index arrays read back from the node's saved tensors (which
    raises once the graph has been freed)."""
    if not saved:
        return key
    arrays = iter(t._array for t in saved)
    if not isinstance(key, tuple):
        return next(arrays)
    return tuple(next(arrays) if isinstance(k, (np.ndarray, list)) else k for k in key)


_INDEX_BACKWARD = {"SelectBackward": _S.SelectBackwardBackward0, "SliceBackward": _S.SliceBackwardBackward0}


def _index_backward(g, shape, key, basic, name):
    """The gradient of x[key] scattered into zeros of x's shape (differentiable in g)."""
    ga = g._array
    z = _backend.new(ga, "zeros", shape, dtype=ga.dtype)
    if basic:
        # select_backward / slice_backward: the key is (slice(None),) * dim + (index or slice,); the
        # node saves dim and index (dim, start, end and step) as upstream's
        z[key] = ga
        dim, last = len(key) - 1, key[-1]
        fields = ({"index": last} if name == "SelectBackward" else
                  {"start": last.start, "end": last.stop, "step": last.step})
        return _record(_INDEX_BACKWARD[name], (g,), _wrap(z, g), dim=dim, **fields)
    # torch's index_backward: zeros_like(self).index_put_(indices, grad, accumulate=True)
    if ga.size:  # an empty result read no index, in bounds or not
        np.add.at(z, key, ga)
    zeros = _wrap(_backend.new(ga, "zeros", shape, dtype=ga.dtype), g)
    saved = tuple(_const(k, g) for k in _index_tensors(key))
    return _record(_S.IndexPutImplBackward0, (zeros, g), _wrap(z, g), indices=saved, key=key, accumulate=True,
                   values_shape=ga.shape, values_dtype=ga.dtype)


def getitem_raw(self, key):
    a = self._array
    basic = _is_basic(key)
    if basic:
        items = key if isinstance(key, tuple) else (key,)
        # a trailing Ellipsis makes numpy return a 0-d view, not a scalar copy
        r = a[items + (Ellipsis,)] if Ellipsis not in items else a[key]
    else:
        nkey = tuple(np.asarray(k) if isinstance(k, list) else k
                     for k in _index_key(key if isinstance(key, tuple) else (key,)))
        r = _index(a, nkey)
    if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
        return _record_view(_S.SelectBackward0, self, r, self_sym_sizes=a.shape, dim=0, index=int(key))
    if isinstance(key, slice):
        return _record_view(_S.SliceBackward0, self, r, self_sym_sizes=a.shape, **_slice_fields(0, key))
    if basic:
        return _record_view(_S.IndexBackward0, self, r, self_sym_sizes=a.shape, key=key, basic=True,
                            name="IndexBackward")
    saved = tuple(_const(k, self) for k in _index_tensors(key))
    return _record(_S.IndexBackward0, (self,), _wrap(_index_layout(a, nkey, r), self), saved, indices=saved,
                   self_sym_sizes=a.shape, key=key, basic=False, name="IndexBackward")


def _index_add(src, size, idx):
    """zeros(size).index_add_(0, idx, src) for a 1-D src and idx (repeats add up),
    as as_strided_backward and index_select's backward run it."""
    z = _backend.new(src, "zeros", size, src._array.dtype)
    np.add.at(z, idx, src._array)
    zeros = _wrap(_backend.new(src, "zeros", size, src._array.dtype), src)
    index = _const(idx, src)
    return _record(_S.IndexAddBackward0, (zeros, src), _wrap(z, src), (index,), alpha=1, dim=0, index=index, source=src,
                   source_dim=src._array.ndim)


def _index_put_zeros(g, key, vshape, vdtype):
    """torch's grad.index_put(indices, zeros_like(values)) (node IndexPutBackward0)."""
    out = _backend.xp(g).array(g._array, copy=True)
    if 0 not in _make_info(out.shape, key)[3]:  # an empty indexing result wrote nothing
        out[key] = 0
    zeros = _wrap(_backend.new(g, "zeros", vshape, vdtype), g)
    saved = tuple(_const(k, g) for k in _index_tensors(key))
    return _record(_S.IndexPutBackward0, (g, zeros), _wrap(out, g), indices=saved, key=key, values_shape=vshape,
                   accumulate=False, values_dtype=vdtype)


def _make_info(shape, key):
    """at::native::make_info for a key of whole-dimension slices and index arrays (what
    _apply_slicing leaves), with its errors in torch's order: each mask becomes the
    nonzero() indices of its dimensions (expandTensors, its shape checked first), the
    indices broadcast together, and moved with their dimensions to the front when they are
    not adjacent (transposeToFront). Returns (perm, entries, first, result shape): the
    order of the dimensions of `shape` (None: unchanged), one entry per dimension in that
    order (None, or the broadcast index array, the dimension's size and the index as
    given), the first indexed dimension, and the shape of the indexing result."""
    if any(isinstance(k, np.ndarray) and k.dtype not in (_i64, _i32, _b1) for k in key):
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    indices = []
    for k in key:
        if isinstance(k, np.ndarray) and k.dtype == np.bool_:
            for j, n in enumerate(k.shape):
                d = len(indices) + j
                if n != shape[d]:
                    raise IndexError(f"The shape of the mask {list(k.shape)} at index {j} does not match the shape "
                                     f"of the indexed tensor {list(shape)} at index {d}")
            indices.extend(np.nonzero(k))
        else:
            indices.append(k if isinstance(k, np.ndarray) else None)
    indices += [None] * (len(shape) - len(indices))
    given = [i for i in indices if i is not None]
    try:
        bshape = np.broadcast_shapes(*(i.shape for i in given))
    except ValueError:
        shapes = ", ".join(str(list(i.shape)) for i in given)
        raise IndexError(f"shape mismatch: indexing tensors could not be broadcast together with shapes {shapes}") \
            from None
    dims = [d for d, i in enumerate(indices) if i is not None]
    perm = None
    if dims[-1] - dims[0] + 1 != len(dims):
        perm = dims + [d for d, i in enumerate(indices) if i is None]
        shape, indices, dims = [shape[d] for d in perm], [indices[d] for d in perm], range(len(dims))
    first = dims[0]
    sizes = [shape[d] for d in dims]
    if 0 in sizes and 0 not in bshape:
        # torch's own check: no index is valid in an empty dimension
        raise IndexError("index is out of bounds for dimension with size 0")
    entries = [None if i is None else (np.broadcast_to(i.astype(np.int64, copy=False), bshape), n, i)
               for i, n in zip(indices, shape, strict=True)]
    rshape = tuple(shape[:first]) + tuple(bshape) + tuple(shape[first + len(dims):])
    return perm, entries, first, rshape


def _out_of_bounds(index, size, j):
    return IndexError(f"index {index} is out of bounds for dimension {j} with size {size}")


def _first_bad(indexers):
    """The position of the first out-of-bounds index among flat sequences of (indices,
    size), and the error the kernel's Indexer raises there (None, None: all in bounds)."""
    bad = [(i < -n) | (i >= n) for i, n in indexers]
    anybad = np.logical_or.reduce(bad)
    if not anybad.any():
        return None, None
    p = int(np.argmax(anybad))
    j = next(j for j, b in enumerate(bad) if b[p])
    return p, _out_of_bounds(indexers[j][0][p], indexers[j][1], j)


def _index(a, key):
    """index(): a[key] for a key of whole slices and index arrays (_make_info's errors;
    an index out of bounds is an error only where the result has elements to read it).
    A 0-d mask (only in the formulas' keys: _apply_slicing unsqueezes) indexes as numpy's."""
    if any(isinstance(k, np.ndarray) and not k.ndim and k.dtype == np.bool_ for k in key):
        return a[key]
    perm, entries, first, rshape = _make_info(a.shape, key)
    if 0 in rshape:
        return _backend.new(a, "zeros", rshape, a.dtype)
    indexers = [(i.ravel(), n) for i, n, _ in (e for e in entries if e is not None)]
    _, err = _first_bad(indexers)
    if err is not None:
        raise err
    return a[key]


def _index_layout(a, key, r):
    """index()'s result laid out as its TensorIterator allocates it (build_index_op: the output
    undefined, the restrided self and the index tensors as inputs): dense in reorder_dimensions' order
    of those operands, as _index_put_kernel orders them (a size-1 dimension's stride is its place in
    that order, not numpy's)."""
    if r.ndim < 2 or any(isinstance(k, np.ndarray) and not k.ndim and k.dtype == np.bool_ for k in key):
        return _backend.ascontiguousarray(r)
    perm, entries, first, rshape = _make_info(a.shape, key)
    if 0 in rshape:  # (an empty result's strides in torch follow other rules: not matched here)
        return _backend.ascontiguousarray(r)
    ap = a.transpose(perm) if perm is not None else a
    given = [e for e in entries if e is not None]
    last = first + len(given)
    nb = len(given[0][0].shape)
    lead, trail = (1,) * first, (1,) * (len(rshape) - first - nb)
    src = _Strided(rshape, ap.strides[:first] + (0,) * nb + ap.strides[last:])
    operands = [src] + [_index_operand(i, given[0][0].shape, lead, trail) for _, _, i in given]
    order = _iteration_order(rshape, operands)
    if order == list(range(len(rshape) - 1, -1, -1)) and 1 not in rshape:
        return _backend.ascontiguousarray(r)
    out = _strided_empty(rshape, _dense_strides(rshape, order), r.dtype, r, _new_empty)
    out[...] = r
    return out


def _index_operand(index, bshape, lead, trail):
    """The index tensor as make_index_put_iterator gives it to TensorIterator: expanded to
    the indices' common shape (inferExpandGeometry's strides, where the shape changes),
    then viewed with size-1 dimensions around it (reshape_indexer: computeStride's
    strides, which can break TensorIterator's ties between dimensions)."""
    elem = index.itemsize
    strides = index.strides if index.shape == bshape else _expanded_strides(index, bshape)
    shape = lead + tuple(bshape) + trail
    strides = _compute_stride(tuple(bshape), tuple(st // elem for st in strides), shape)
    return _Strided(shape, tuple(st * elem for st in strides))


class _Strided:
    """An operand's sizes and strides, as _iteration_order reads them."""

    def __init__(self, shape, strides):
        self.shape, self.strides, self.ndim = tuple(shape), tuple(strides), len(shape)


def _index_put_kernel(a, info, v):
    """index_put_'s CPU kernel (cpu_index_kernel over make_index_put_iterator): the
    elements of the indexing result in TensorIterator's order (the restrided self, the
    value, the index tensors), each checking its indices, then writing. An index out of
    bounds raises there, after the elements before it were written; of two writes to one
    location the later stays; a value sharing memory with self is read as it goes."""
    perm, entries, first, rshape = info
    ap = a.transpose(perm) if perm is not None else a
    if 0 in rshape:
        return
    given = [e for e in entries if e is not None]
    last = first + len(given)
    nb = len(given[0][0].shape)
    lead, trail = (1,) * first, (1,) * (len(rshape) - first - nb)
    src = _Strided(rshape, ap.strides[:first] + (0,) * nb + ap.strides[last:])
    operands = [src, v] + [_index_operand(i, given[0][0].shape, lead, trail) for _, _, i in given]
    outer_first = _iteration_order(rshape, operands)[::-1]
    # coordinates in ap of each element of the result, in iteration order
    grids = np.indices(rshape, sparse=True)
    coords = []
    for d in range(ap.ndim):
        if first <= d < last:
            i = given[d - first][0]
            c = np.broadcast_to(i.reshape(lead + i.shape + trail), rshape)
        else:
            c = np.broadcast_to(grids[d if d < first else d - len(given) + nb], rshape)
        coords.append(c.transpose(outer_first).ravel())
    p, err = _first_bad([(coords[d], ap.shape[d]) for d in range(first, last)])
    count = coords[0].size if p is None else p
    coords = [np.where(c[:count] < 0, c[:count] + n, c[:count]) for c, n in zip(coords, ap.shape, strict=True)]
    values = np.broadcast_to(v, rshape).transpose(outer_first)
    if np.may_share_memory(a, v):
        for t, at in enumerate(np.ndindex(*values.shape)):
            if t == count:
                break
            ap[tuple(int(c[t]) for c in coords)] = values[at]
    elif count:
        # one write per memory location, the last in iteration order
        offsets = builtins.sum(c * st for c, st in zip(coords, ap.strides, strict=True))
        _, rev = np.unique(offsets[::-1], return_index=True)
        keep = count - 1 - rev
        ap[tuple(c[keep] for c in coords)] = values.reshape(-1)[keep]
    if err is not None:
        raise err


_EXPANDED_INDEX_PUT = ("Use of index_put_ on expanded tensors is deprecated. Please clone() the tensor before "
                       "performing this operation. This also applies to advanced indexing e.g. tensor[indices] = "
                       "tensor")
_EXPANDED_MASKED_FILL = ("Use of masked_fill_ on expanded tensors is deprecated. Please clone() the tensor before "
                         "performing this operation. This also applies to advanced indexing e.g. tensor[mask] = "
                         "scalar")


def _masked_fill_dispatch(a, key, v):
    """canDispatchToMaskedFill: a one-element value and one mask as the only index. Its
    loop checks each mask's shape as it meets it, so a bad first mask raises even where a
    later index rules the dispatch out."""
    if v.size != 1:
        return False
    mask, d = None, 0
    for k in key:
        if not isinstance(k, np.ndarray):
            d += 1
            continue
        if k.dtype != np.bool_ or mask is not None:
            return False
        for j, n in enumerate(k.shape):
            if n != a.shape[d + j]:
                raise IndexError(f"The shape of the mask {list(k.shape)} at index {j} does not match the shape "
                                 f"of the indexed tensor {list(a.shape)} at index {d + j}")
        mask, d = k, d + k.ndim
    return True


def _check_index_put_value(a, v, target):
    """index_put_'s checks of the value against the indexing result's shape `target` and self's
    dtype (its plain and accumulating kernels alike)."""
    # broadcasting aligns the trailing dimensions: the value may have fewer than the target
    if len(v.shape) > len(target) or \
            any(s not in (1, t) for s, t in zip(v.shape[::-1], target[::-1], strict=False)):
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(v.shape)} cannot be broadcast to "
                           f"indexing result of shape {list(target)}")
    if a.dtype != v.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{_torch_type_name(a.dtype)} for the destination and {_torch_type_name(v.dtype)} "
                           f"for the source.")


def _index_put_(self, key, value):
    """index_put_ (_index_put_impl_) in torch's order: check_inplace, the expanded-self
    warning, one mask with a one-element value as masked_fill_, the overlap checks of self
    with the value and the indices, make_info, the value's shape, the dtypes, the kernel."""
    a, v = self._array, value._array
    # IndexPutBackward0 saves the index tensors (torch's `indices`), as IndexBackward0 does
    saved = tuple(_const(k, self) for k in _index_tensors(key))
    node = _inplace_node(_S.IndexPutBackward0, (self, value), indices=saved, key=key, values_shape=v.shape,
                         values_dtype=v.dtype, accumulate=False)
    expanded = _has_internal_overlap(a)
    if expanded:
        warnings.warn(_EXPANDED_INDEX_PUT, UserWarning, stacklevel=3)
    arrays = [k for k in key if isinstance(k, np.ndarray)]
    if _mutation.hook is not None:
        _mutation.hook(self)
    if _masked_fill_dispatch(a, key, v):
        # self.masked_fill_(mask, value.item())
        if expanded:
            warnings.warn(_EXPANDED_MASKED_FILL, UserWarning, stacklevel=3)
        if _overlap_status(a, arrays[0]) == _OVERLAP_PARTIAL:
            raise RuntimeError(_OVERLAP)
        a[key] = _scalar_value(v.reshape(()).item(), a.dtype)
    else:
        # at::assert_no_overlap: the value (the same tensor counts) and each index
        if self is value or _overlap_status(a, v) in (_OVERLAP_PARTIAL, _OVERLAP_FULL) or \
                any(_overlap_status(a, k) in (_OVERLAP_PARTIAL, _OVERLAP_FULL) for k in arrays):
            raise RuntimeError(_OVERLAP)
        info = _make_info(a.shape, key)
        _check_index_put_value(a, v, info[3])
        _index_put_kernel(a, info, v)
    self._bump_version()
    return _rebase_history(self, node)
