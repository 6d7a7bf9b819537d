"""Sorting and selection (ATen/native/Sorting.cpp, TensorCompare.cpp's mode): sort, argsort,
topk, kthvalue, median, nanmedian, mode. Their gradients put the gradient of each value back
where its index says (value_selecting_reduction_backward).

Order among equal values, as torch's CPU kernels pick: sort is stable (ascending and
descending), nan sorts above every number; median.dim's nth_element breaks ties by index (a
stable sort's pick); mode picks the smallest of the most frequent values and its last index.
topk (std::nth_element then std::sort, or std::partial_sort) and kthvalue (ATen's
quick_select_template) pick among equal values as those algorithms do: the rows with equal
values (or topk's unsorted rows) run them step by step below, the others a stable sort."""
import numpy as np

from .. import _backend
from .._C import _record, _wrap
from .._generated import specs as _S
from .python_arg_parser import _wrap_dim
from .ReduceOps import _RETURN_TYPES, _out_pair, _row_major, _saved_dim


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


def _rows(a, d):
    """a's slices along d as the rows of a 2-d host array."""
    x = np.moveaxis(_backend.to_host(a), d, -1)
    return np.reshape(x, (-1, x.shape[-1]))


def _moved_rows(r, d):
    """A result (size k along d) as writable host rows."""
    x = np.moveaxis(_backend.to_host(r), d, -1)
    return np.array(np.reshape(x, (-1, x.shape[-1])))


def _unmoved_rows(rows, a, d, k):
    """Rows back to the result's shape: a's, with k along d."""
    shape = list(np.moveaxis(np.empty(a.shape, np.bool_), d, -1).shape)
    shape[-1] = k
    out = np.moveaxis(np.reshape(rows, shape), -1, d)
    return out if isinstance(a, np.ndarray) else _backend.xp(a).asarray(out)


def _has_ties(rows):
    """Per row: whether two of its values are equal (two nans count as equal)."""
    if rows.shape[-1] < 2:
        return np.zeros(len(rows), bool)
    s = np.sort(rows, axis=-1)
    equal = (s[:, 1:] == s[:, :-1]).any(-1)
    if rows.dtype.kind == "f":
        equal |= np.isnan(rows).sum(-1) > 1
    return equal


def _pair(name, self, values, idx, spec, **fields):
    indices = _wrap(_row_major(idx), self)
    out = _record(spec, (self,), _wrap(_row_major(values), self), indices=indices, **fields)
    return _RETURN_TYPES[name]((out, indices))


def sort(self, *args, dim=-1, descending=False, stable=None, out=None):
    if out is not None:  # sort.values / sort.values_stable
        return _out_pair("sort", self, lambda: sort(self, *args, dim=dim, descending=descending, stable=stable), out)
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


def topk(self, k, dim=-1, largest=True, sorted=True, *, out=None):  # noqa: A002 - torch's name
    if out is not None:  # topk.values
        return _out_pair("topk", self, lambda: topk(self, k, dim, largest, sorted), out)
    a = self._array
    d = _wrap_dim(dim, a.ndim)
    if a.dtype.kind == "b":
        raise RuntimeError("topk does not support bool dtypes on CPU")
    size = a.shape[d] if a.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    if a.ndim:
        values, idx = _sort_kernel(a, d, largest)
        values, idx = np.take(values, range(k), axis=d), np.take(idx, range(k), axis=d)
        if k:
            rows = _rows(a, d)
            redo = _has_ties(rows) if sorted or k * 64 <= size else np.ones(len(rows), bool)
            if redo.any():
                values, idx = _moved_rows(values, d), _moved_rows(idx, d)
                for r in np.flatnonzero(redo):
                    picked = [j for _, j in _topk_row(rows[r], k, largest, sorted)]
                    idx[r], values[r] = picked, rows[r][picked]
                values, idx = _unmoved_rows(values, a, d, k), _unmoved_rows(idx, a, d, k)
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


def kthvalue(self, k, dim=-1, keepdim=False, *, out=None):
    if out is not None:  # kthvalue.values
        return _out_pair("kthvalue", self, lambda: kthvalue(self, k, dim, keepdim), out)
    a = self._array
    d = _wrap_dim(dim, a.ndim)
    size = a.shape[d] if a.ndim else 1
    if size == 0:
        raise IndexError(f"kthvalue(): Expected reduction dim {d} to have non-zero size.")
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if a.dtype.kind == "b" and a.ndim:  # (a 0-d tensor is its own kthvalue, before the dtype dispatch)
        raise NotImplementedError("\"kthvalue_cpu\" not implemented for 'Bool'")
    if a.ndim:
        values, idx = _select_kth(a, d, lambda s: np.full_like(s[..., 0], k - 1, dtype=np.int64), True)
        rows = _rows(a, d)
        redo = _has_ties(rows)
        if redo.any():
            values, idx = _moved_rows(values, d), _moved_rows(idx, d)
            for r in np.flatnonzero(redo):
                _, j = _quick_select(rows[r], k - 1)
                idx[r], values[r] = j, rows[r][j]
            values, idx = _unmoved_rows(values, a, d, 1), _unmoved_rows(idx, a, d, 1)
        if not keepdim:
            values, idx = np.squeeze(values, d), np.squeeze(idx, d)
    else:
        values, idx = a.copy(), _backend.new(a, "zeros", (), np.int64)
    return _pair("kthvalue", self, values, idx, _S.KthvalueBackward0, self_sym_sizes=a.shape, dim=_saved_dim(dim),
                 keepdim=keepdim)


def _median_pos(ignore_nan):
    """The lower median's position in a sorted row: with nan (sorted last), the first nan's
    (median) or the lower median of the numbers (nanmedian; C++'s (m - 1) / 2 truncates to 0)."""
    def pick(s):
        n = s.shape[-1]
        nans = np.isnan(s).sum(-1) if s.dtype.kind == "f" else np.zeros_like(s[..., 0], dtype=np.int64)
        if ignore_nan:
            return np.trunc((n - nans - 1) / 2).astype(np.int64)
        return np.where(nans > 0, n - nans, (n - 1) // 2).astype(np.int64)
    return pick


def _median(name, spec_full, spec_dim, ignore_nan, self, dim, keepdim):
    a = self._array
    if dim is not None:
        _wrap_dim(dim, a.ndim)
    if dim is None and a.size == 0:
        # median_impl's empty input: full({}, NAN) before the dtype dispatch (nan cast as C++ casts it)
        with np.errstate(invalid="ignore"):
            nan = np.array(np.nan).astype(a.dtype)
        out = _wrap(_backend.new(a, "full", (), nan, dtype=a.dtype), self)
        return _record(spec_full, (self,), out, self=self, result=out)
    if a.dtype.kind == "b":
        raise NotImplementedError(f"\"{'median_cpu' if dim is None else 'median_out'}\" not implemented for 'Bool'")
    if dim is None:
        flat = np.reshape(a, (-1,))
        out = _wrap(_row_major(_select_kth(flat, 0, _median_pos(ignore_nan), False)[0]), self)
        return _record(spec_full, (self,), out, self=self, result=out)
    d = _wrap_dim(dim, a.ndim)
    if a.ndim and a.shape[d] == 0:
        raise IndexError(f"median(): Expected reduction dim {d} to have non-zero size.")  # nanmedian's too
    if a.ndim:
        values, idx = _select_kth(a, d, _median_pos(ignore_nan), True)
        if ignore_nan and a.dtype.kind == "f":
            # a row of nans only: nanmedian's nth_element, whose comparator ranks no nan above
            # another, leaves one of them at position 0 its own way
            rows = _rows(a, d)
            redo = np.isnan(rows).all(-1) & (rows.shape[-1] > 1)
            if redo.any():
                values, idx = _moved_rows(values, d), _moved_rows(idx, d)
                for r in np.flatnonzero(redo):
                    q = [(v, j) for j, v in enumerate(rows[r].tolist())]
                    _nth_element(q, 0, _nanmedian_less)
                    idx[r], values[r] = q[0][1], rows[r][q[0][1]]
                values, idx = _unmoved_rows(values, a, d, 1), _unmoved_rows(idx, a, d, 1)
        if not keepdim:
            values, idx = np.squeeze(values, d), np.squeeze(idx, d)
    else:
        values, idx = a.copy(), _backend.new(a, "zeros", (), np.int64)
    return _pair(name, self, values, idx, spec_dim, self_sym_sizes=a.shape, dim=_saved_dim(dim), keepdim=keepdim)


def median(self, dim=None, keepdim=False, *, out=None):
    if out is not None:  # median.dim_values
        return _out_pair("median", self, lambda: median(self, dim, keepdim), out)
    return _median("median", _S.MedianBackward0, _S.MedianBackward1, False, self, dim, keepdim)


def nanmedian(self, dim=None, keepdim=False, *, out=None):
    if out is not None:  # nanmedian.dim_values
        return _out_pair("nanmedian", self, lambda: nanmedian(self, dim, keepdim), out)
    return _median("nanmedian", _S.NanmedianBackward0, _S.NanmedianBackward1, True, self, dim, keepdim)


def mode(self, dim=-1, keepdim=False, *, out=None):
    if out is not None:  # mode.values
        return _out_pair("mode", self, lambda: mode(self, dim, keepdim), out)
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
            vals[r], inds[r] = _mode_row(row)
        shape = x.shape[:-1]
        values, idx = np.reshape(vals, shape), np.reshape(inds, shape)
        if keepdim:
            values, idx = np.expand_dims(values, d), np.expand_dims(idx, d)
        values, idx = _backend.asarray(values, like=self), _backend.asarray(idx, like=self)
    return _pair("mode", self, values, idx, _S.ModeBackward0, self_sym_sizes=a.shape, dim=_saved_dim(dim),
                 keepdim=keepdim)


# The selection algorithms of torch's CPU kernels, step by step, for the rows where equal values
# make their pick differ from a stable sort's: libstdc++'s std::nth_element, std::sort and
# std::partial_sort (topk's TopKImpl.h), and ATen's quick_select_template (kthvalue). Each runs
# on a list of (value, index) pairs with `less`, the kernel's comparator over the values.

def _lg(n):
    return n.bit_length() - 1


def _move_median_to_first(q, result, a, b, c, less):
    if less(q[a], q[b]):
        if less(q[b], q[c]):
            q[result], q[b] = q[b], q[result]
        elif less(q[a], q[c]):
            q[result], q[c] = q[c], q[result]
        else:
            q[result], q[a] = q[a], q[result]
    elif less(q[a], q[c]):
        q[result], q[a] = q[a], q[result]
    elif less(q[b], q[c]):
        q[result], q[c] = q[c], q[result]
    else:
        q[result], q[b] = q[b], q[result]


def _unguarded_partition(q, first, last, pivot, less):
    while True:
        while less(q[first], q[pivot]):
            first += 1
        last -= 1
        while less(q[pivot], q[last]):
            last -= 1
        if not first < last:
            return first
        q[first], q[last] = q[last], q[first]
        first += 1


def _unguarded_partition_pivot(q, first, last, less):
    mid = first + (last - first) // 2
    _move_median_to_first(q, first, first + 1, mid, last - 1, less)
    return _unguarded_partition(q, first + 1, last, first, less)


def _unguarded_linear_insert(q, last, less):
    val = q[last]
    nxt = last - 1
    while less(val, q[nxt]):
        q[last] = q[nxt]
        last = nxt
        nxt -= 1
    q[last] = val


def _insertion_sort(q, first, last, less):
    if first == last:
        return
    for i in range(first + 1, last):
        if less(q[i], q[first]):
            val = q[i]
            q[first + 1:i + 1] = q[first:i]
            q[first] = val
        else:
            _unguarded_linear_insert(q, i, less)


def _push_heap(q, first, hole, top, value, less):
    parent = (hole - 1) // 2
    while hole > top and less(q[first + parent], value):
        q[first + hole] = q[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    q[first + hole] = value


def _adjust_heap(q, first, hole, length, value, less):
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if less(q[first + child], q[first + child - 1]):
            child -= 1
        q[first + hole] = q[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        q[first + hole] = q[first + child - 1]
        hole = child - 1
    _push_heap(q, first, hole, top, value, less)


def _make_heap(q, first, last, less):
    length = last - first
    if length < 2:
        return
    parent = (length - 2) // 2
    while True:
        _adjust_heap(q, first, parent, length, q[first + parent], less)
        if parent == 0:
            return
        parent -= 1


def _pop_heap(q, first, last, result, less):
    value = q[result]
    q[result] = q[first]
    _adjust_heap(q, first, 0, last - first, value, less)


def _heap_select(q, first, middle, last, less):
    _make_heap(q, first, middle, less)
    for i in range(middle, last):
        if less(q[i], q[first]):
            _pop_heap(q, first, middle, i, less)


def _sort_heap(q, first, last, less):
    while last - first > 1:
        last -= 1
        _pop_heap(q, first, last, last, less)


def _partial_sort(q, first, middle, last, less):
    _heap_select(q, first, middle, last, less)
    _sort_heap(q, first, middle, less)


def _nth_element(q, nth, less):
    first, last = 0, len(q)
    if first == last or nth == last:
        return
    depth = _lg(last - first) * 2
    while last - first > 3:
        if depth == 0:
            _heap_select(q, first, nth + 1, last, less)
            q[first], q[nth] = q[nth], q[first]
            return
        depth -= 1
        cut = _unguarded_partition_pivot(q, first, last, less)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(q, first, last, less)


def _introsort_loop(q, first, last, depth, less):
    while last - first > 16:
        if depth == 0:
            _partial_sort(q, first, last, last, less)
            return
        depth -= 1
        cut = _unguarded_partition_pivot(q, first, last, less)
        _introsort_loop(q, cut, last, depth, less)
        last = cut


def _std_sort(q, first, last, less):
    if first == last:
        return
    _introsort_loop(q, first, last, _lg(last - first) * 2, less)
    if last - first > 16:
        _insertion_sort(q, first, first + 16, less)
        for i in range(first + 16, last):
            _unguarded_linear_insert(q, i, less)
    else:
        _insertion_sort(q, first, last, less)


def _nan_first_greater(x, y):
    """topk's comparator for largest: nan above every number."""
    return (x[0] != x[0] and y[0] == y[0]) or x[0] > y[0]


def _nan_last_less(x, y):
    return (x[0] == x[0] and y[0] != y[0]) or x[0] < y[0]


def _topk_row(row, k, largest, sorted_):  # noqa: A002
    """The (values, indices) topk_impl_loop leaves in a row's first k places."""
    q = [(v, j) for j, v in enumerate(row.tolist())]
    less = _nan_first_greater if largest else _nan_last_less
    if k * 64 <= len(q):
        _partial_sort(q, 0, k, len(q), less)
    else:
        _nth_element(q, k - 1, less)
        if sorted_:
            _std_sort(q, 0, k - 1, less)
    return q[:k]


def _quick_select(row, k):
    """ATen's quick_select_template (SortingUtils.h) over a row, as kthvalue runs it: the k-th
    smallest (0-based) lands at k; returns its (value, index)."""
    arr = row.tolist()
    idx = list(range(len(arr)))

    def gt(x, y):  # greater, or nan: nan above every number
        return (x != x and y == y) or x > y

    def swap(i, j):
        arr[i], arr[j] = arr[j], arr[i]
        idx[i], idx[j] = idx[j], idx[i]

    lo, hi = 0, len(arr) - 1
    while True:
        if hi <= lo:
            break
        if hi == lo + 1:
            if gt(arr[lo], arr[hi]):
                swap(lo, hi)
            break
        p = lo + (hi - lo) // 2
        swap(p, lo + 1)
        if gt(arr[lo + 1], arr[hi]):
            swap(lo + 1, hi)
        if gt(arr[lo], arr[hi]):
            swap(lo, hi)
        if gt(arr[lo + 1], arr[lo]):
            swap(lo + 1, lo)
        i, j = lo + 1, hi
        piv = arr[lo]
        while True:
            i += 1
            while gt(piv, arr[i]):
                i += 1
            j -= 1
            while gt(arr[j], piv):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(lo, j)
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1
    return arr[k], idx[k]


def _value_less(x, y):
    return x[0] < y[0]


def _mode_row(row):
    """torch's mode kernel (TensorCompareKernel.cpp) over a row: std::sort of its (value, index)
    pairs by value, then the first longest run of equal values (nan equals nothing), and the
    value and index of the run's last pair."""
    q = [(v, j) for j, v in enumerate(row.tolist())]
    _std_sort(q, 0, len(q), _value_less)
    best, best_at, run = 0, 0, 0
    for i in range(len(q)):
        run += 1
        if i == len(q) - 1 or q[i][0] != q[i + 1][0]:
            if run > best:
                best, best_at = run, i
            run = 0
    return row[q[best_at][1]], q[best_at][1]


def _nanmedian_less(x, y):
    """nanmedian's comparator over (value, index): by value, equal values by index, nan last."""
    return x[0] < y[0] or (x[0] == y[0] and x[1] < y[1]) or (y[0] != y[0] and x[0] == x[0])
