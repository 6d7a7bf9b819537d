"""Sorting and selection (ATen/native/Sorting.cpp, TensorCompare.cpp's mode): sort, argsort,
topk, kthvalue, median, nanmedian, mode. Their gradients put the gradient of each value back
where its index says (value_selecting_reduction_backward).

Order among equal values: sort is stable (torch's CPU sort is, ascending and descending), nan
sorts above every number. mode picks the smallest of the most frequent values and the last
index of it. topk, kthvalue and median.dim pick among equal values as a stable sort would
(torch's CPU kernels run std::nth_element there, whose pick among equal values can differ)."""
import numpy as np

from .. import _backend
from .._C import _record, _wrap
from .._generated import specs as _S
from .python_arg_parser import _wrap_dim
from .ReduceOps import _RETURN_TYPES, _row_major, _saved_dim


def _stable_argsort(x, descending):
    """Indices that sort x along its last axis, stably; nan above every number."""
    if not descending:
        return np.argsort(x, axis=-1, kind="stable")
    n = x.shape[-1]
    # descending and stable: the ascending stable order of the reversed row, reversed
    rev = np.argsort(x[..., ::-1], axis=-1, kind="stable")[..., ::-1]
    return (n - 1) - rev


def _sort_kernel(a, d, descending):
    """values, indices of a sorted along d (a has at least one dim)."""
    x = np.moveaxis(a, d, -1)
    key = x.astype(np.int8) if x.dtype.kind == "b" else x
    idx = _stable_argsort(key, descending)
    values = np.take_along_axis(x, idx, -1)
    return np.moveaxis(values, -1, d), np.moveaxis(idx.astype(np.int64), -1, d)


def _pair(name, self, values, idx, spec, **fields):
    indices = _wrap(_row_major(idx), self)
    out = _record(spec, (self,), _wrap(_row_major(values), self), indices=indices, **fields)
    return _RETURN_TYPES[name](name, out, indices)


def sort(self, *args, dim=-1, descending=False, stable=None):
    if args and stable is not None:
        # sort.stable takes dim and descending by keyword only
        raise TypeError("sort() received an invalid combination of arguments: with stable=, dim and descending go "
                        "by keyword")
    if len(args) > 2:
        raise TypeError(f"sort() takes from 0 to 2 positional arguments but {len(args)} were given")
    dim = args[0] if args else dim
    descending = args[1] if len(args) > 1 else descending
    a = self._array
    d = _wrap_dim(dim, a.ndim)
    if a.ndim:
        values, idx = _sort_kernel(a, d, descending)
    else:
        values, idx = a.copy(), _backend.new(a, "zeros", (), np.int64)
    # sort(stable=...) is the sort.stable overload (SortBackward1)
    spec = _S.SortBackward0 if stable is None else _S.SortBackward1
    return _pair("sort", self, values, idx, spec, self_sym_sizes=a.shape, dim=_saved_dim(dim))


def argsort(self, dim=-1, descending=False, *, stable=False):
    a = self._array
    d = _wrap_dim(dim, a.ndim)
    if not a.ndim:
        return _wrap(_backend.new(a, "zeros", (), np.int64), self)
    return _wrap(_row_major(_sort_kernel(a, d, descending)[1]), self)


def topk(self, k, dim=-1, largest=True, sorted=True):  # noqa: A002 - torch's name
    a = self._array
    if a.dtype.kind == "b":
        raise RuntimeError("topk does not support bool dtypes on CPU")
    d = _wrap_dim(dim, a.ndim)
    size = a.shape[d] if a.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    if a.ndim:
        values, idx = _sort_kernel(a, d, largest)
        values, idx = np.take(values, range(k), axis=d), np.take(idx, range(k), axis=d)
    else:
        values, idx = a.copy(), _backend.new(a, "zeros", (), np.int64)
    return _pair("topk", self, values, idx, _S.TopkBackward0, self_sym_sizes=a.shape, dim=_saved_dim(dim))


def _select_kth(a, d, pick, keepdim):
    """values, indices of the element of each slice along d that pick(sorted_row_values) names:
    pick returns, per row, the position in the stably sorted row."""
    x = np.moveaxis(a, d, -1)
    key = x.astype(np.int8) if x.dtype.kind == "b" else x
    order = _stable_argsort(key, False)
    srt = np.take_along_axis(x, order, -1)
    pos = pick(srt)[..., None]
    idx = np.take_along_axis(order, pos, -1).astype(np.int64)
    values = np.take_along_axis(srt, pos, -1)
    if keepdim:
        return np.moveaxis(values, -1, d), np.moveaxis(idx, -1, d)
    return values[..., 0], idx[..., 0]


def kthvalue(self, k, dim=-1, keepdim=False):
    a = self._array
    d = _wrap_dim(dim, a.ndim)
    size = a.shape[d] if a.ndim else 1
    if size == 0:
        raise IndexError(f"kthvalue(): Expected reduction dim {d} to have non-zero size.")
    if a.dtype.kind == "b":
        raise NotImplementedError("\"kthvalue_cpu\" not implemented for 'Bool'")
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if a.ndim:
        values, idx = _select_kth(a, d, lambda s: np.full(s.shape[:-1], k - 1, np.int64), keepdim)
    else:
        values, idx = a.copy(), _backend.new(a, "zeros", (), np.int64)
    return _pair("kthvalue", self, values, idx, _S.KthvalueBackward0, self_sym_sizes=a.shape, dim=_saved_dim(dim),
                 keepdim=keepdim)


def _median_pos(ignore_nan):
    """The lower median's position in a sorted row: with nan (sorted last), the first nan's
    (median) or the lower median of the numbers (nanmedian; C++'s (m - 1) / 2 truncates to 0)."""
    def pick(s):
        n = s.shape[-1]
        nans = np.isnan(s).sum(-1) if s.dtype.kind == "f" else np.zeros(s.shape[:-1], np.int64)
        if ignore_nan:
            return np.trunc((n - nans - 1) / 2).astype(np.int64)
        return np.where(nans > 0, n - nans, (n - 1) // 2).astype(np.int64)
    return pick


def _median(name, spec_full, spec_dim, ignore_nan, self, dim, keepdim):
    a = self._array
    if a.dtype.kind == "b":
        raise NotImplementedError(f"\"{'median_cpu' if dim is None else 'median_out'}\" not implemented for 'Bool'")
    if dim is None:
        if a.size == 0:
            out = _wrap(_backend.new(a, "full", (), np.nan, dtype=a.dtype), self)
        else:
            flat = np.reshape(a, (-1,))
            out = _wrap(_row_major(_select_kth(flat, 0, _median_pos(ignore_nan), False)[0]), self)
        return _record(spec_full, (self,), out, self=self, result=out)
    d = _wrap_dim(dim, a.ndim)
    if a.ndim and a.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    if a.ndim:
        values, idx = _select_kth(a, d, _median_pos(ignore_nan), keepdim)
    else:
        values, idx = a.copy(), _backend.new(a, "zeros", (), np.int64)
    return _pair(name, self, values, idx, spec_dim, self_sym_sizes=a.shape, dim=_saved_dim(dim), keepdim=keepdim)


def median(self, dim=None, keepdim=False):
    return _median("median", _S.MedianBackward0, _S.MedianBackward1, False, self, dim, keepdim)


def nanmedian(self, dim=None, keepdim=False):
    return _median("nanmedian", _S.NanmedianBackward0, _S.NanmedianBackward1, True, self, dim, keepdim)


def mode(self, dim=-1, keepdim=False):
    a = self._array
    d = _wrap_dim(dim, a.ndim)
    if a.ndim and a.shape[d] == 0:
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    if not a.ndim:
        values, idx = a.copy(), _backend.new(a, "zeros", (), np.int64)
    else:
        x = np.moveaxis(_backend.to_host(a), d, -1)
        rows = np.reshape(x, (-1, x.shape[-1]))
        vals = np.empty(rows.shape[0], a.dtype)
        inds = np.empty(rows.shape[0], np.int64)
        for r, row in enumerate(rows):
            # torch's mode (TensorCompare.cpp): the longest run of equal values in the sorted row, the first
            # (smallest) among the longest, and the last index of it; nan equals nothing, a run of its own
            order = np.argsort(row, kind="stable")
            srt = row[order]
            starts = np.flatnonzero(np.concatenate(([True], srt[1:] != srt[:-1])))
            lengths = np.diff(np.concatenate((starts, [len(row)])))
            best = int(np.argmax(lengths))
            start = starts[best]
            vals[r], inds[r] = srt[start], order[start:start + lengths[best]].max()
        shape = x.shape[:-1]
        values, idx = np.reshape(vals, shape), np.reshape(inds, shape)
        if keepdim:
            values, idx = np.expand_dims(values, d), np.expand_dims(idx, d)
        values, idx = _backend.asarray(values, like=self), _backend.asarray(idx, like=self)
    return _pair("mode", self, values, idx, _S.ModeBackward0, self_sym_sizes=a.shape, dim=_saved_dim(dim),
                 keepdim=keepdim)
