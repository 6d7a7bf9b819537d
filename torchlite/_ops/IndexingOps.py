"""Issue 13's indexing ops (ATen/native/TensorAdvancedIndexing.cpp, ScatterGatherChecks.h,
TensorCompare.cpp): gather, scatter, scatter_add, index_select, index_add, index_copy,
index_fill, masked_fill, masked_select, masked_scatter, take, take_along_dim, nonzero,
and their in-place forms, with torch's checks, messages, nodes and saved fields."""
import numpy as np

import warnings

from .. import _C, _backend
from .._C import _inplace_node, _rebase_history, _record, _wrap
from .._generated import specs as _S
from .ExpandUtils import _expand_error
from .MemoryOverlap import _INTERNAL_OVERLAP, _OVERLAP, _OVERLAP_FULL, _OVERLAP_PARTIAL, _overlap_status
from .ScalarType import _b1, _expand_type_name, _scalar_value
from .TensorIterator import _TB, _empty_like
from .python_arg_parser import _wrap_dim
from .TensorCompare import where as _where
from .TensorShape import expand, unbind, view
from . import mutation as _mutation


def _type_name(dtype):
    names = {"float32": "Float", "float64": "Double", "int64": "Long", "bool": "Bool", "int32": "Int",
             "float16": "Half", "int16": "Short", "int8": "Char", "uint8": "Byte"}
    return names.get(dtype.name, dtype.name)


def _first_oob(idx, size, neg_ok=False):
    """The first index out of [0, size) ([-size, size) with neg_ok), or None."""
    flat = idx.reshape(-1)
    bad = (flat >= size) | (flat < (-size if neg_ok else 0))
    if not bad.any():
        return None
    return int(flat[int(np.argmax(bad))])


def _lower_name(dtype):
    """c10's toString of a scalar type, as some messages print it (float, double, long)."""
    return {"float32": "float", "float64": "double", "int64": "long", "int32": "int", "bool": "bool"}.get(
        dtype.name, dtype.name)


def _is_index_dtype(a):
    return a.dtype.kind in "iu" and a.dtype != _b1


# gather / scatter --------------------------------------------------------------------------------------

def _gather_shape_check(a, d, idx):
    if idx.ndim != builtins_max1(a.ndim) and idx.size and not (a.ndim == 0 and idx.ndim <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    for i in range(idx.ndim if a.ndim else 0):
        if i != d and idx.shape[i] > a.shape[i]:
            raise RuntimeError(f"Size does not match at dimension {i} expected index {list(idx.shape)} to be no "
                               f"larger than self {list(a.shape)} apart from dimension {d}")


def builtins_max1(n):
    return n if n else 1


def _coords(idx, d):
    """The full coordinates of a scatter/gather: the index along d, the position elsewhere."""
    grids = list(np.indices(idx.shape, sparse=True))
    grids[d] = idx
    return tuple(grids)


def _gather_kernel(a, d, idx):
    if a.ndim == 0:
        bad = _first_oob(idx, 1)
        if bad is not None:
            raise RuntimeError(f"index {bad} is out of bounds for dimension 0 with size 1")
        return np.broadcast_to(a, idx.shape).copy()
    if idx.size == 0:
        return _backend.new(a, "zeros", idx.shape, a.dtype)
    bad = _first_oob(idx, a.shape[d])
    if bad is not None:
        raise RuntimeError(f"index {bad} is out of bounds for dimension {d} with size {a.shape[d]}")
    return a[_coords(idx, d)]  # a new C-contiguous array


def gather(self, dim, index, *, sparse_grad=False):
    a, idx = self._array, index._array
    if not _is_index_dtype(idx):
        raise RuntimeError("gather(): Expected dtype int32/int64 for index")
    d = _wrap_dim(dim, a.ndim)
    _gather_shape_check(a, d, idx)
    r = _gather_kernel(a, d, idx.astype(np.int64, copy=False))
    return _record(_S.GatherBackward0, (self,), _wrap(r, self), (index,), self=self, dim=dim, index=index,
                   sparse_grad=sparse_grad)


def _nonempty_size(x, d):
    """at::native ensure_nonempty_size: a 0-d tensor has size 1; a missing dim is torch's wrap error."""
    if x.ndim == 0:
        return 1
    if d >= x.ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-x.ndim}, {x.ndim - 1}], but got {d})")
    return x.shape[d]


def _scatter_check(fn, a, d, idx, src):
    """scatter_gather_dtype_check and scatter_shape_check (ScatterGatherChecks.h), in their order."""
    if not _is_index_dtype(idx):
        raise RuntimeError(f"{fn}(): Expected dtype int32/int64 for index")
    if src is not None and src.dtype != a.dtype:
        raise RuntimeError(f"{fn}(): Expected self.dtype to be equal to src.dtype")
    if idx.size == 0:
        return
    dims = builtins_max1(a.ndim)
    if dims != builtins_max1(idx.ndim):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    wrong = any(i != d and _nonempty_size(idx, i) > _nonempty_size(a, i) for i in range(dims))
    if not wrong and src is not None:
        wrong = any(_nonempty_size(idx, i) > _nonempty_size(src, i) for i in range(dims))
    if not wrong and src is not None and dims != builtins_max1(src.ndim):
        # the CPU kernel's own check (cpu_scatter_gather_base_kernel), after the shape check
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    if wrong:
        if src is None:
            raise RuntimeError(f"Expected index {list(idx.shape)} to be no larger than self {list(a.shape)} "
                               f"apart from dimension {d}")
        raise RuntimeError(f"Expected index {list(idx.shape)} to be no larger than self {list(a.shape)} apart "
                           f"from dimension {d} and to be no larger size than src {list(src.shape)}")


def _scatter_kernel(out, d, idx, src, op):
    """out[coords] = src (op None), or op.at(out, coords, src); src an array or a number.
    The index is checked first, as torch's kernel checks each before it writes."""
    if idx.size == 0:
        return
    size = out.shape[d] if out.ndim else 1
    bad = _first_oob(idx, size)
    if bad is not None:
        raise RuntimeError(f"index {bad} is out of bounds for dimension {d} with size {size}")
    if isinstance(src, np.ndarray) and src.ndim:
        # src read where the index is (a 0-d index: one element, at src's first position)
        src = src[tuple(slice(0, n) for n in idx.shape)] if idx.ndim else src[(0,) * src.ndim]
    if out.ndim == 0:
        target = out.reshape(1)
        coords = (idx.reshape(-1),)
        src = np.broadcast_to(src, (idx.size,)) if not isinstance(src, np.ndarray) or src.ndim == 0 else \
            src.reshape(-1)
    else:
        target, coords = out, _coords(idx, d)
    if op is None:
        target[coords] = src
    else:
        op.at(target, coords, src)


def _scatter_value(self, d, index, value, dim):
    """self.scatter(dim, index, value) for a number value (ScatterBackward1)."""
    a = self._array
    out = a.copy()
    _scatter_kernel(out, d, index._array.astype(np.int64, copy=False), _scalar_value(value, a.dtype), None)
    return _record(_S.ScatterBackward1, (self,), _wrap(out, self), (index,), dim=dim, index=index)


_REDUCE_UFUNC = {"add": np.add, "multiply": np.multiply}
_SCATTER_REDUCE_WARNED = False


def scatter(self, dim, index, src=None, value=None, *, reduce=None):
    a, idx = self._array, index._array
    if src is None and value is None:
        raise TypeError("scatter() missing 1 required positional arguments: \"src\"")
    if src is None:
        src = value
    d = _wrap_dim(dim, a.ndim)
    s = src._array if isinstance(src, _TB) else None
    _scatter_check("scatter", a, d, idx, s)
    if reduce is not None:
        if reduce not in _REDUCE_UFUNC:
            raise RuntimeError("reduce argument must be either add or multiply.")
        global _SCATTER_REDUCE_WARNED
        if s is not None and not _SCATTER_REDUCE_WARNED:  # TORCH_WARN_ONCE (TensorAdvancedIndexing.cpp)
            _SCATTER_REDUCE_WARNED = True
            warnings.warn("The reduce argument of torch.scatter with Tensor src is deprecated and will be removed in "
                          "a future PyTorch release. Use torch.scatter_reduce instead for more reduction options.",
                          UserWarning, stacklevel=3)
        out = a.copy()
        _scatter_kernel(out, d, idx.astype(np.int64, copy=False),
                        s if s is not None else _scalar_value(src, a.dtype), _REDUCE_UFUNC[reduce])
        # scatter.reduce / scatter.value_reduce have no derivatives.yaml entry upstream: their node is
        # torch::autograd::NotImplemented, whose backward raises "derivative for aten::scatter is not implemented"
        if s is not None:
            return _record(_S.NotImplemented0, (self, src), _wrap(out, self), name="aten::scatter")
        return _record(_S.NotImplemented1, (self,), _wrap(out, self), name="aten::scatter")
    if s is None:
        return _scatter_value(self, d, index, src, dim)
    out = a.copy()
    _scatter_kernel(out, d, idx.astype(np.int64, copy=False), s, None)
    return _record(_S.ScatterBackward0, (self, src), _wrap(out, self), (index,), dim=dim, index=index)


def scatter_add(self, dim, index, src):
    a, idx, s = self._array, index._array, src._array
    d = _wrap_dim(dim, a.ndim)
    _scatter_check("scatter", a, d, idx, s)
    out = a.copy()
    _scatter_kernel(out, d, idx.astype(np.int64, copy=False), s, np.add)
    return _record(_S.ScatterAddBackward0, (self, src), _wrap(out, self), (index,), dim=dim, index=index)


# "max" and "min" reduce as amax and amin (the legacy names; the backward refuses them, as torch's)
_SCATTER_REDUCE = {"sum": np.add, "prod": np.multiply, "mean": np.add, "amax": np.maximum, "amin": np.minimum,
                   "max": np.maximum, "min": np.minimum}


def _reduce_identity(reduce, dtype):
    if reduce in ("sum", "mean"):
        return dtype.type(0)
    if reduce == "prod":
        return dtype.type(1)
    is_max = reduce in ("amax", "max")
    if dtype.kind == "f":
        return dtype.type(-np.inf if is_max else np.inf)
    if dtype == _b1:
        return not is_max
    info = np.iinfo(dtype)
    return dtype.type(info.min if is_max else info.max)


def scatter_reduce(self, dim, index, src, reduce, *, include_self=True):
    """scatter_reduce.two: src's elements reduced into self's at the index (sum, prod, mean, amax, amin);
    without include_self, self's value at a position written to takes no part."""
    a, idx, s = self._array, index._array, src._array
    d = _wrap_dim(dim, a.ndim)
    if reduce not in _SCATTER_REDUCE:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    _scatter_check("scatter", a, d, idx, s)  # (torch names scatter in its messages)
    if reduce == "mean" and a.dtype == _b1:
        raise NotImplementedError('"scatter_gather_tensor_cpu_reduce_mean" not implemented for \'Bool\'')
    i = idx.astype(np.int64, copy=False)
    out = a.copy()
    if i.size:
        if not include_self:
            _scatter_kernel(out, d, i, _reduce_identity(reduce, a.dtype), None)
        _scatter_kernel(out, d, i, s, _SCATTER_REDUCE[reduce])
        if reduce == "mean":
            count = np.full(a.shape, 1 if include_self else 0, dtype=np.int64)
            _scatter_kernel(count, d, i, np.int64(1), np.add)
            count[count == 0] = 1
            out = (out / count).astype(a.dtype) if a.dtype.kind == "f" else (out // count).astype(a.dtype)
    result = _wrap(out, self)
    return _record(_S.ScatterReduceBackward0, (self, src), result, (index,), dim=dim, index=index, self=self, src=src,
                   reduce=reduce, include_self=include_self, result=result)


# index_* ------------------------------------------------------------------------------------------------

def _vector_index(fn, idx):
    if idx.ndim > 1:
        raise IndexError(f"{fn}(): Index is supposed to be a vector")
    return idx.reshape(-1).astype(np.int64, copy=False)


def index_select(self, dim, index):
    a, idx = self._array, index._array
    if not _is_index_dtype(idx):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    d = _wrap_dim(dim, a.ndim)
    i = _vector_index("index_select", idx)
    if a.ndim == 0 and i.size != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {i.size} value(s)")
    n = a.shape[d] if a.ndim else 1
    if n == 0 and i.size:
        if a.ndim > 1:  # the kernel for several dimensions checks the size first
            raise RuntimeError("index_select(): self indexing axis dim should be positive")
        raise IndexError("index out of range in self")
    bad = _first_oob(i, n)
    if bad is not None:
        # the CPU kernel: a fast path for dim 1 of several dimensions, else a loop checking each index
        if a.ndim > 1 and d == 1:
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={bad} axis_dim={n}")
        raise IndexError("index out of range in self")
    r = np.take(a, i, axis=d) if a.ndim else a.copy()
    return _record(_S.IndexSelectBackward0, (self,), _wrap(r, self), (index,), dim=dim, index=index,
                   self_sym_sizes=a.shape)


def _index_func_meta(fn, a, d, idx, source):
    """index_func_meta_impl (TensorAdvancedIndexing.cpp, index_add's meta function): its checks in
    their order on the wrapped dim d; returns the index as a flat int64 vector."""
    if idx.ndim > 1:
        raise IndexError(f"{fn}(): Index is supposed to be a vector, but got dim: {idx.ndim} with type: "
                         f"{_type_name(idx.dtype)} and size: {list(idx.shape)}")
    if idx.dtype not in (np.int64, np.int32):
        raise RuntimeError(f"{fn}(): Expected dtype int32/int64 for index but got: {_type_name(idx.dtype)}")
    if a.dtype != source.dtype:
        raise RuntimeError(f"{fn}(): self ({_type_name(a.dtype)}) and source ({_type_name(source.dtype)}) must have "
                           "the same scalar type")
    if d != 0 and d >= source.ndim:
        raise RuntimeError(f"{fn}(): Indexing dim {d} is out of bounds of the source tensor with dim {source.ndim}")
    if idx.size != (source.shape[d] if source.ndim else 1):
        if source.ndim == 0:
            # the message itself asks source.size(dim) of a 0-d source
            raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
        raise RuntimeError(f"{fn}(): Number of indices ({idx.size}) should be equal to source.size(dim): "
                           f"({source.shape[d]}), for dim: {d}")
    # the sizes apart from dim must match; where either is 0-d the whole shapes are compared
    ss, rs = list(a.shape), list(source.shape)
    if a.ndim and source.ndim:
        del ss[d], rs[d]
    if ss != rs:
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the specified dimension. "
                           f"Got self.shape = {list(a.shape)} source.shape = {list(source.shape)}")
    return idx.reshape(-1).astype(np.int64, copy=False)


def _index_put_along(out, d, i, source, accumulate, alpha=1):
    """out.index_add_/index_copy_ along d (both checked)."""
    if out.ndim == 0:
        src = source.reshape(-1)
        if accumulate:
            for k in range(i.size):
                # alpha in self's type first, as the n-d path (and torch's kernel) does
                out[()] += src[k] * out.dtype.type(alpha) if alpha != 1 else src[k]
        elif i.size:
            out[()] = src[-1]
        return
    moved = np.moveaxis(out, d, 0)
    src = np.moveaxis(source, d, 0) if source.ndim else source.reshape(1)
    if accumulate:
        np.add.at(moved, i, src * out.dtype.type(alpha) if alpha != 1 else src)
    else:
        moved[i] = src


def index_add(self, dim, index, source, *, alpha=1):
    a, idx, s = self._array, index._array, source._array
    d = _wrap_dim(dim, a.ndim)
    i = _index_func_meta("index_add_", a, d, idx, s)
    n = a.shape[d] if a.ndim else 1
    bad = _first_oob(i, n)
    if bad is not None:
        # the CPU kernel: a scatter_add over the first or last of several dimensions, else a loop of selects
        if a.ndim > 1 and d in (0, a.ndim - 1):
            raise RuntimeError(f"index {bad} is out of bounds for dimension {d} with size {n}")
        raise IndexError("index out of range in self")
    out = a.copy()
    _index_put_along(out, d, i, s, True, alpha)
    # index and source serve source's gradient only: saved where source requires grad, as upstream's
    # generated code saves them under should_compute_output (an inference index is then allowed)
    saves = source.requires_grad
    return _record(_S.IndexAddBackward0, (self, source), _wrap(out, self), (index,), alpha=alpha, dim=dim,
                   index=index if saves else None, source=source if saves else None, source_dim=s.ndim)


def index_copy(self, dim, index, source):
    """index_copy (its meta function's checks in their order: index, dims, dtypes, slice shapes, count)."""
    a, idx, s = self._array, index._array, source._array
    d = _wrap_dim(dim, a.ndim)
    if idx.ndim >= 2:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {idx.ndim})")
    i = idx.reshape(-1)
    if s.ndim == 0 and i.size != 1:
        raise IndexError(f"index_copy_(): When source is scalar, index should have one element (got {i.size})")
    if a.ndim and s.ndim and a.ndim != s.ndim:
        raise IndexError(f"index_copy_(): When source and destination are not scalars, their dimensionality must "
                         f"match. Source dimensionality ({s.ndim}), destination dimensionality ({a.ndim})")
    if idx.dtype != np.int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got {_type_name(idx.dtype)}")
    if a.dtype != s.dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, but got (self) "
                           f"{_type_name(a.dtype)} and (source) {_type_name(s.dtype)}")
    self_sliced = [x for k, x in enumerate(a.shape) if k != d]
    source_sliced = [x for k, x in enumerate(s.shape) if k != d]
    if self_sliced != source_sliced:
        raise RuntimeError(f"index_copy_(): Source/destination tensor must have same slice shapes. Destination "
                           f"slice shape: {' '.join(map(str, self_sliced))} at dimension {d} and source slice shape: "
                           f"{' '.join(map(str, source_sliced))} at dimension 0.")
    if s.ndim and i.size != s.shape[d]:
        raise IndexError(f"index_copy_(): Number of indices ({i.size}) should be equal to source.size(dim) "
                         f"({s.shape[d]})")
    i = i.astype(np.int64, copy=False)
    n = a.shape[d] if a.ndim else 1
    bad = _first_oob(i, n)
    if bad is not None:
        raise IndexError(f"index_copy_(): index {bad} is out of bounds for dimension {d} with size {n}")
    out = a.copy()
    _index_put_along(out, d, i, s, False)
    return _record(_S.IndexCopyBackward0, (self, source), _wrap(out, self), (index,), dim=dim, index=index,
                   source=source, source_dim=s.ndim)


def _index_fill_kernel(a, d, idx, v, like, storage=None):
    """self.clone(Preserve).index_fill_(...); `storage`: (nbytes, offset) of the tensor written in place
    (the fresh clone's otherwise)."""
    if idx.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    i = idx.reshape(-1).astype(np.int64, copy=False)
    n = a.shape[d] if a.ndim else 1
    if n == 0 and i.size:
        # upstream restrides self along dim to the index's length (stride 0) with as_strided, whose storage
        # check fails on an empty tensor
        out = _empty_like(a, a.dtype, like)
        strides = [st // a.itemsize for st in (a.strides if storage is not None else out.strides)]
        strides[d] = 0
        sizes = list(a.shape)
        sizes[d] = i.size
        nbytes, offset = storage if storage is not None else (0, 0)
        reach = sum((k - 1) * st for k, st in zip(sizes, strides, strict=True))
        need = 0 if 0 in sizes else (1 + reach + offset) * a.itemsize
        if need > nbytes:
            raise RuntimeError(f"setStorage: sizes {sizes}, strides {strides}, storage offset {offset}, and itemsize "
                               f"{a.itemsize} requiring a storage size of {need} are out of bounds for storage of "
                               f"size {nbytes}")
    bad = _first_oob(i, n, neg_ok=True)
    if bad is not None:
        raise IndexError(f"index {bad} is out of bounds for dimension {d} with size {n}")
    out = _empty_like(a, a.dtype, like)  # self.clone(at::MemoryFormat::Preserve)
    np.copyto(out, a)
    if out.ndim == 0:
        if i.size:
            out[()] = v
    else:
        np.moveaxis(out, d, 0)[i] = v
    return out


def index_fill(self, dim, index, value, _storage=None):
    a, idx = self._array, index._array
    d = _wrap_dim(dim, a.ndim)
    if isinstance(value, _TB):
        v = value._array
        if v.ndim:
            raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with {v.ndim} "
                               "dimension(s).")
        out = _index_fill_kernel(a, d, idx, v.astype(a.dtype), self, _storage)
        return _record(_S.IndexFillBackward1, (self, value), _wrap(out, self), (index,), dim=dim, index=index)
    out = _index_fill_kernel(a, d, idx, _scalar_value(value, a.dtype), self, _storage)
    return _record(_S.IndexFillBackward0, (self,), _wrap(out, self), (index,), dim=dim, index=index)


# masked_* ----------------------------------------------------------------------------------------------

def _broadcast_error(x, y):
    n = max(len(x), len(y))
    x, y = (1,) * (n - len(x)) + tuple(x), (1,) * (n - len(y)) + tuple(y)
    for i in range(n - 1, -1, -1):
        if x[i] != y[i] and 1 not in (x[i], y[i]):
            return RuntimeError(f"The size of tensor a ({x[i]}) must match the size of tensor b ({y[i]}) at "
                                f"non-singleton dimension {i}")
    return None


def masked_fill(self, mask, value):
    a, m = self._array, mask._array
    if m.dtype != _b1:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype {_lower_name(m.dtype)}")
    err = _broadcast_error(m.shape, a.shape)
    if err is not None:
        raise err
    shape = np.broadcast_shapes(a.shape, m.shape)
    if isinstance(value, _TB):
        v = value._array
        if v.ndim:
            raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{v.ndim} dimension(s).")
        out = np.where(m, v.astype(a.dtype), np.broadcast_to(a, shape)).astype(a.dtype, copy=False)
        return _record(_S.MaskedFillBackward1, (self, value), _wrap(out, self), (mask,), mask=mask)
    fill = _scalar_value(value, a.dtype)
    out = np.where(m, fill, np.broadcast_to(a, shape)).astype(a.dtype, copy=False)
    return _record(_S.MaskedFillBackward0, (self,), _wrap(out, self), (mask,), mask=mask)


def masked_select(self, mask):
    a, m = self._array, mask._array
    if m.dtype != _b1:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    err = _broadcast_error(m.shape, a.shape)
    if err is not None:
        raise err
    shape = np.broadcast_shapes(a.shape, m.shape)
    r = np.broadcast_to(a, shape)[np.broadcast_to(m, shape)]
    return _record(_S.MaskedSelectBackward0, (self,), _wrap(r, self), (mask,), mask=mask, self=self)


def masked_scatter(self, mask, source):
    a, m, s = self._array, mask._array, source._array
    if m.dtype != _b1:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{_lower_name(m.dtype)}")
    if a.dtype != s.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got"
                           f"{_type_name(a.dtype)} and {_type_name(s.dtype)}")
    err = _broadcast_error(m.shape, a.shape)
    if err is not None:
        raise err
    shape = np.broadcast_shapes(a.shape, m.shape)
    mb = np.broadcast_to(m, shape)
    count = int(mb.sum())
    if count > s.size:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    out = np.broadcast_to(a, shape).copy()
    out[mb] = s.reshape(-1)[:count]
    return _record(_S.MaskedScatterBackward0, (self, source), _wrap(out, self), (mask,), mask=mask,
                   source_sym_sizes=s.shape)


# take / take_along_dim / nonzero --------------------------------------------------------------------------

def take(self, index):
    a, idx = self._array, index._array
    if idx.dtype.kind != "i":
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {_type_name(idx.dtype)}")
    i = idx.astype(np.int64, copy=False)
    if i.size and a.size == 0:
        raise IndexError("take(): tried to take from an empty tensor")
    if i.size:
        flat = i.reshape(-1)
        bad = (flat >= a.size) | (flat < -a.size)
        if bad.any():
            raise IndexError(f"out of range: tried to access index {int(flat[int(np.argmax(bad))])} on a tensor of "
                             f"{a.size} elements.")
    r = a.reshape(-1)[i.reshape(-1)].reshape(i.shape) if a.size else _backend.new(a, "zeros", i.shape, a.dtype)
    return _record(_S.TakeBackward0, (self,), _wrap(r, self), (index,), self=self, index=index)


def take_along_dim(self, indices, dim=None):
    """at::take_along_dim (composite): with a dim, gather over the two broadcast apart from
    dim; without, gather of the flattened tensors."""
    a, idx = self._array, indices._array
    if dim is None:
        # no dim: gather's own index checks only (int32 indices pass)
        return gather(view(self, (-1,)), 0, view(indices, (-1,)))
    # _take_along_dim_helper (TensorAdvancedIndexing.cpp) checks the ranks, then the dtype, then
    # wraps the dim; a 0-d input then fails on self.size(dim)
    if a.ndim != idx.ndim:
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same number of dimensions, but "
                           f"got {a.ndim} dimensions for input, and {idx.ndim} dimensions for indices")
    if idx.dtype != np.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got {_type_name(idx.dtype)}")
    d = _wrap_dim(dim, a.ndim)
    if a.ndim == 0:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    ss, si = list(a.shape), list(idx.shape)
    ss[d] = si[d] = 1
    err = _broadcast_error(ss, si)
    if err is not None:
        raise err
    if a.shape[d] == 0 and idx.size:
        # torch's broadcasting helper divides by self.size(dim) (a SymInt division, checked)
        raise RuntimeError("ZeroDivisionError")
    b = list(np.broadcast_shapes(tuple(ss), tuple(si)))
    bs, bi = list(b), list(b)
    bs[d], bi[d] = a.shape[d], idx.shape[d]
    x = self if tuple(bs) == a.shape else expand(self, tuple(bs))
    i = indices if tuple(bi) == idx.shape else expand(indices, tuple(bi))
    return gather(x, d, i)


def nonzero(self, *, as_tuple=False):
    """The indices of the nonzero elements, one row each, laid out column-major as torch's kernel
    writes them; as_tuple: that result's columns (views of it, unbind(1)); a 0-d tensor as a 1-d one."""
    a = self._array
    if as_tuple:
        flat = nonzero(_wrap(a.reshape(1), self) if a.ndim == 0 else self)
        return unbind(flat, 1)
    if a.ndim == 0:
        r = np.zeros((1 if a else 0, 0), np.int64)
    else:
        r = np.stack(np.nonzero(a), axis=1).astype(np.int64)
    n, k = r.shape
    buf = _backend.new(a, "empty", n * k, np.int64)
    out = _backend.as_strided(buf, (n, k), (8, 8 * n))  # strides (1, n), size-1 dimensions included
    out[...] = r
    return _wrap(out, self)


_NOT_GIVEN = object()


def where(condition, input=_NOT_GIVEN, other=_NOT_GIVEN):  # noqa: A002 - torch's names
    """torch.where: where(condition) is nonzero(condition, as_tuple=True); else TensorCompare's where."""
    if input is _NOT_GIVEN and other is _NOT_GIVEN:
        return nonzero(condition, as_tuple=True)
    return _where(condition, input, other)


# In-place forms ------------------------------------------------------------------------------------------

_DEPRECATED_EXPANDED = ("Use of {}_ on expanded tensors is deprecated. Please clone() the tensor before performing "
                        "this operation. This also applies to advanced indexing e.g. tensor[mask] = scalar")


def _inplace(self, fn, inputs, spec_fields, *args, **kwargs):
    """An in-place form over the functional kernel: torch's check_inplace and node (the same
    node as the out-of-place op, with its fields), the result written into self, the version
    bumped and self's history rebased onto the node."""
    _C._check_inplace(self, any(t.requires_grad for t in inputs))
    prev = _C.is_grad_enabled()
    _C._set_grad_enabled(False)
    try:
        r = fn(*args, **kwargs)  # its checks first (the meta function's), then the kernel's overlap checks
    finally:
        _C._set_grad_enabled(prev)
    a = self._array
    if a.size > 1 and any(st == 0 and n > 1 for st, n in zip(a.strides, a.shape, strict=True)):
        if fn not in _WARN_EXPANDED:
            raise RuntimeError(_INTERNAL_OVERLAP)
        warnings.warn(_WARN_EXPANDED[fn], UserWarning, stacklevel=3)
    for t in list(inputs[1:]) + [x for x in args[2:] if isinstance(x, _TB)]:  # at::assert_no_overlap
        if _overlap_status(a, t._array) in (_OVERLAP_PARTIAL, _OVERLAP_FULL):
            raise RuntimeError(_OVERLAP)
    if r._array.shape != self._array.shape:
        raise RuntimeError(f"output with shape {list(self._array.shape)} doesn't match the broadcast shape "
                           f"{list(r._array.shape)}")
    spec, fields = spec_fields
    node = _inplace_node(spec, inputs, **fields)
    if _mutation.hook is not None:
        _mutation.hook(self)
    self._array[...] = r._array
    self._bump_version()
    return _rebase_history(self, node)


def masked_fill_(self, mask, value):
    if isinstance(value, _TB):
        return _inplace(self, masked_fill, (self, value), (_S.MaskedFillBackward1, {"mask": mask}), self, mask, value)
    return _inplace(self, masked_fill, (self,), (_S.MaskedFillBackward0, {"mask": mask}), self, mask, value)


def scatter_(self, dim, index, src=None, value=None, *, reduce=None):
    d = dim
    if src is None:
        src = value
    if reduce is not None:  # scatter_.reduce / .value_reduce: torch::autograd::NotImplemented, as scatter's
        spec, inputs = (_S.NotImplemented0, (self, src)) if isinstance(src, _TB) else (_S.NotImplemented1, (self,))
        return _inplace(self, scatter, inputs, (spec, {"name": "aten::scatter_"}), self, dim, index, src,
                        reduce=reduce)
    if isinstance(src, _TB):
        return _inplace(self, scatter, (self, src), (_S.ScatterBackward0, {"dim": d, "index": index}), self, dim,
                        index, src, reduce=reduce)
    return _inplace(self, scatter, (self,), (_S.ScatterBackward1, {"dim": d, "index": index}), self, dim, index,
                    src, reduce=reduce)


def scatter_add_(self, dim, index, src):
    d = dim
    return _inplace(self, scatter_add, (self, src), (_S.ScatterAddBackward0, {"dim": d, "index": index}), self, dim,
                    index, src)


def index_add_(self, dim, index, source, *, alpha=1):
    d = dim
    saves = source.requires_grad  # as index_add
    fields = {"alpha": alpha, "dim": d, "index": index if saves else None, "source": source if saves else None,
              "source_dim": source._array.ndim}
    return _inplace(self, index_add, (self, source), (_S.IndexAddBackward0, fields), self, dim, index, source,
                    alpha=alpha)


def index_copy_(self, dim, index, source):
    d = dim
    fields = {"dim": d, "index": index, "source": source, "source_dim": source._array.ndim}
    return _inplace(self, index_copy, (self, source), (_S.IndexCopyBackward0, fields), self, dim, index, source)


def index_fill_(self, dim, index, value):
    d = dim
    storage = (self._storage_nbytes(), self.storage_offset())
    if isinstance(value, _TB):
        return _inplace(self, index_fill, (self, value), (_S.IndexFillBackward1, {"dim": d, "index": index}), self,
                        dim, index, value, storage)
    return _inplace(self, index_fill, (self,), (_S.IndexFillBackward0, {"dim": d, "index": index}), self, dim,
                    index, value, storage)


def masked_scatter_(self, mask, source):
    _C._check_inplace(self, self.requires_grad or source.requires_grad)  # before the mask's expand
    err = _expand_error(mask._array.shape, self._array.shape, _expand_type_name(mask._array.dtype))
    if err is not None and mask._array.dtype == _b1:
        raise err
    fields = {"mask": mask, "source_sym_sizes": source._array.shape}
    return _inplace(self, masked_scatter, (self, source), (_S.MaskedScatterBackward0, fields), self, mask, source)


# Inside formulas ------------------------------------------------------------------------------------------

def _put(self, index, source, accumulate):
    """self.put(index, source, accumulate) (node PutBackward0), as take's gradient runs it."""
    a = self._array
    out = a.copy()
    i = index._array.reshape(-1).astype(np.int64, copy=False)
    flat = out.reshape(-1)
    if accumulate:
        np.add.at(flat, i, source._array.reshape(-1))
    else:
        flat[i] = source._array.reshape(-1)
    return _record(_S.PutBackward0, (self, source), _wrap(out, self), (index,), index=index, source=source,
                   accumulate=accumulate)


def masked_scatter_backward(grad_output, mask, sizes):
    """at::masked_scatter_backward: the gradient's elements at the mask, in order, padded
    with zeros to the source's size and viewed as its shape (node
    MaskedScatterBackwardBackward0)."""
    g, m = grad_output._array, mask._array
    selected = np.broadcast_to(g, np.broadcast_shapes(g.shape, m.shape))[
        np.broadcast_to(m, np.broadcast_shapes(g.shape, m.shape))]
    n = int(np.prod(sizes))
    r = _backend.new(g, "zeros", n, g.dtype)
    r[:selected.size] = selected[:n]
    out = _wrap(r.reshape(tuple(sizes)), grad_output)
    return _record(_S.MaskedScatterBackwardBackward0, (grad_output,), out, (mask,), mask=mask,
                   grad_output_sizes=g.shape)


# the in-place ops that write into an expanded tensor with a deprecation warning (the others refuse it)
_WARN_EXPANDED = {index_fill: _DEPRECATED_EXPANDED.format("index_fill"),
                  masked_fill: _DEPRECATED_EXPANDED.format("masked_fill")}
