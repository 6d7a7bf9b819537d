"""unique and unique_consecutive (ATen/native/Unique.cpp; torch.unique and Tensor.unique are
torch/functional.py's and torch/_tensor.py's wrappers over _unique2 and unique_dim).

The outputs: the unique values (sorted; torch's CPU kernel sorts whatever `sorted` says), the
inverse indices (int64, the input's shape, or the dim's length with dim=) and the counts (int64),
the latter two returned only where asked, in that order. Each nan is a value of its own. The
unique values get torch's node (Unique2Backward0, UniqueDimBackward0, UniqueConsecutiveBackward0),
whose derivative torch has not implemented."""
import functools

import numpy as np

from .. import _backend
from .._C import _record, _wrap
from .._generated import specs as _S
from .python_arg_parser import _wrap_dim
from .ScalarType import _i64
from .TensorIterator import _TB


def _host(t):
    return _backend.to_host(t._array)


def _result(like, output, inverse, counts, return_inverse, return_counts, spec, moved_from=None):
    """The results as tensors; `moved_from`: the dim of a unique over a dim, whose output is laid out as
    _unique_dim_cpu_template's (Unique.cpp): the unique rows contiguous along the dim moved first, then
    moved back (moveaxis(0, dim)), so not contiguous for a dim other than 0."""
    if moved_from is None:
        output = np.array(output, order="C")
    else:
        output = np.moveaxis(np.ascontiguousarray(np.moveaxis(output, moved_from, 0)), 0, moved_from)
    out = _wrap(_backend.asarray(output, like=like), like)
    out = _record(spec, (like,), out)
    results = [out]
    if return_inverse:
        results.append(_wrap(_backend.asarray(np.array(inverse, _i64, order="C"), like=like), like))
    if return_counts:
        results.append(_wrap(_backend.asarray(np.array(counts, _i64, order="C"), like=like), like))
    return out if len(results) == 1 else tuple(results)


def _groups(flat_sorted_rows, equal):
    """Where each group of equal neighbours starts, and the group of each row."""
    n = flat_sorted_rows.shape[0]
    if n == 0:
        return np.zeros(0, np.intp), np.zeros(0, np.intp)
    new = np.ones(n, bool)
    new[1:] = ~equal
    starts = np.flatnonzero(new)
    return starts, np.cumsum(new) - 1


def _rows_equal(rows):
    """Whether each row equals the one before it (nan never equal, as at::equal)."""
    if rows.shape[0] < 2:
        return np.zeros(0, bool)
    return np.all(rows[1:] == rows[:-1], axis=tuple(range(1, rows.ndim)))


def _std_sort_order(flat):
    """The row order _unique_dim_cpu_template's std::sort gives (libstdc++'s introsort: median-of-three
    quicksort down to 16 elements, then one insertion sort) under its comparator: row a before row b
    where, at the first element where neither is less nor greater, a's is less. With a nan that
    comparator is no strict weak ordering, so the order is the algorithm's: emulate it step by step."""
    rows = [list(r) for r in flat.tolist()]

    def less(x, y):
        for u, v in zip(rows[x], rows[y], strict=True):
            if u < v:
                return True
            if u > v:
                return False
        return False

    idx = list(range(len(rows)))

    def median_to_first(result, a, b, c):
        if less(idx[a], idx[b]):
            if less(idx[b], idx[c]):
                m = b
            elif less(idx[a], idx[c]):
                m = c
            else:
                m = a
        elif less(idx[a], idx[c]):
            m = a
        elif less(idx[b], idx[c]):
            m = c
        else:
            m = b
        idx[result], idx[m] = idx[m], idx[result]

    def partition(first, last):
        median_to_first(first, first + 1, first + (last - first) // 2, last - 1)
        pivot, lo, hi = idx[first], first + 1, last
        while True:
            while lo < last - 1 and less(idx[lo], pivot):
                lo += 1
            hi -= 1
            while hi > first and less(pivot, idx[hi]):
                hi -= 1
            if lo >= hi:
                return lo
            idx[lo], idx[hi] = idx[hi], idx[lo]
            lo += 1

    def introsort(first, last, depth):
        while last - first > 16:
            if depth == 0:
                # std::partial_sort's heap sort; rows that deep are ordered stably instead
                idx[first:last] = sorted(idx[first:last], key=functools.cmp_to_key(
                    lambda x, y: -1 if less(x, y) else (1 if less(y, x) else 0)))
                return
            depth -= 1
            cut = partition(first, last)
            introsort(cut, last, depth)
            last = cut

    def linear_insert(i, lower):
        val = idx[i]
        while i > lower and less(val, idx[i - 1]):
            idx[i] = idx[i - 1]
            i -= 1
        idx[i] = val

    def insertion_sort(first, last):
        for i in range(first + 1, last):
            if less(idx[i], idx[first]):
                val = idx[i]
                idx[first + 1:i + 1] = idx[first:i]
                idx[first] = val
            else:
                linear_insert(i, first)

    n = len(idx)
    if n > 1:
        introsort(0, n, 2 * (n.bit_length() - 1))
        insertion_sort(0, min(n, 16))
        for i in range(16, n):  # the unguarded insertion sort of the rest
            linear_insert(i, 0)
    return np.array(idx, np.intp)


def _unique_rows(rows):
    """The unique rows of rows (n, ...), sorted (unique_dim sorts whatever `sorted` says): their
    positions in rows, the inverse and the counts."""
    n = rows.shape[0]
    flat = rows.reshape(n, -1)
    if flat.dtype.kind == "f" and np.isnan(flat).any():
        # a nan compares neither less nor greater, so the order is the one std::sort leaves
        order = _std_sort_order(flat)
    else:
        # lexicographic order, the first element first (np.lexsort's last key is its primary one)
        order = np.lexsort(flat.T[::-1]) if flat.shape[1] else np.arange(n)
    ordered = rows[order]
    starts, group = _groups(ordered, _rows_equal(ordered))
    inverse = np.empty(n, _i64)
    inverse[order] = group
    counts = np.diff(np.append(starts, n))
    return order[starts], inverse, counts


def _check_empty_dim(a, dim):
    """_unique_dim_cpu_template's checks of empty dims (unique and unique_consecutive with a dim)."""
    zero_dims = a.shape.count(0)
    if a.shape[dim] == 0 and zero_dims > 1:
        raise RuntimeError("Number of zero sized dimensions is more than one, so unique cannot be applied ")
    if a.shape[dim] != 0 and zero_dims:
        raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique cannot be applied")


def _unique_dim(self, dim, return_inverse, return_counts, spec):
    a = _host(self)
    dim = _wrap_dim(dim, a.ndim, wrap_scalar=False)
    _check_empty_dim(a, dim)
    rows = np.moveaxis(a, dim, 0)
    if rows.shape[0] == 0:
        keep, inverse, counts = np.zeros(0, np.intp), np.zeros(0, _i64), np.zeros(0, _i64)
    else:
        keep, inverse, counts = _unique_rows(rows)
    output = np.moveaxis(rows[keep], 0, dim)
    return _result(self, output, inverse, counts, return_inverse, return_counts, spec,
                   moved_from=dim if rows.shape[0] else None)


def unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002 - torch's name
    if dim is not None:
        return _unique_dim(self, dim, return_inverse, return_counts, _S.UniqueDimBackward0)
    a = _host(self)
    flat = a.reshape(-1)
    order = np.argsort(flat, kind="stable")
    ordered = flat[order]
    starts, group = _groups(ordered, ordered[1:] == ordered[:-1])
    inverse = np.empty(flat.shape[0], _i64)
    inverse[order] = group
    counts = np.diff(np.append(starts, flat.shape[0]))
    return _result(self, ordered[starts], inverse.reshape(a.shape), counts, return_inverse, return_counts,
                   _S.Unique2Backward0)


def unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
    if dim is not None:
        a = _host(self)
        dim = _wrap_dim(dim, a.ndim, wrap_scalar=False)
        _check_empty_dim(a, dim)
        rows = np.moveaxis(a, dim, 0)
        starts, group = _groups(rows, _rows_equal(rows))
        counts = np.diff(np.append(starts, rows.shape[0]))
        output = np.moveaxis(rows[starts], 0, dim)
        return _result(self, output, group, counts, return_inverse, return_counts, _S.UniqueConsecutiveBackward0,
                       moved_from=dim if rows.shape[0] else None)
    a = _host(self)
    flat = a.reshape(-1)
    starts, group = _groups(flat, flat[1:] == flat[:-1])
    counts = np.diff(np.append(starts, flat.shape[0]))
    return _result(self, flat[starts], group.reshape(a.shape), counts, return_inverse, return_counts,
                   _S.UniqueConsecutiveBackward0)


def _check_tensor(fn, value):
    if not isinstance(value, _TB):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not {type(value).__name__}")
