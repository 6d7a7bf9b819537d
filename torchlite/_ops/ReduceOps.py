"""Reductions (ATen/native/ReduceOps.cpp): sum, mean, max, min; and at::sum_to,
which reduces a gradient to its input's shape and dtype after each formula."""
import numpy as np

from .. import _C, _backend
from .._C import _record, _wrap
from .._dtypes import _from_numpy_dtype
from .._generated import specs as _S
from .ScalarType import _b1, _f16, _f32, _f64, _i8, _i16, _i32, _i64, _torch_type_name, _u8
from .TensorConversions import to
from .TensorIterator import _loud, _quiet
from .TensorShape import reshape, unsqueeze, view
from .python_arg_parser import _norm_dims, _wrap_dim


def _reduction_dims(dim, ndim):
    """A reduction's dims: an empty list reduces over all of them, as no dim does."""
    dims = _norm_dims(dim, ndim)
    return dims if dims else tuple(range(ndim))


def _unsqueeze_multiple(g, dims):
    """torch's unsqueeze_multiple: the reduced dims back, one unsqueeze each."""
    for d in sorted(dims):
        g = unsqueeze(g, d)
    return g


def sum(self, dim=None, keepdim=False, dtype=None):  # noqa: A001 - torch's name
    a = self._array
    np_dtype = None
    if dtype is not None:
        np_dtype = dtype._np
    elif a.dtype.kind in "bu":
        np_dtype = np.int64
    dims = None if dim is None else _reduction_dims(dim, a.ndim)
    token = _quiet()
    try:
        # a 0-d tensor reduces over its dimension 0 or -1 to itself, as in torch; the result
        # is row-major whatever the input's layout (allocate_reduction_result)
        if (np_dtype or a.dtype) == _f16:
            # float16 adds up in float32, rounded once at the end (torch's acc_type)
            r = _row_major(np.sum(a, axis=dims if a.ndim else None, keepdims=keepdim, dtype=_f32).astype(_f16))
        else:
            r = _row_major(np.sum(a, axis=dims if a.ndim else None, keepdims=keepdim, dtype=np_dtype))
    finally:
        _loud(token)
    if dim is None:
        return _record(_S.SumBackward0, (self,), _wrap(r, self), self_sym_sizes=a.shape)
    return _record(_S.SumBackward1, (self,), _wrap(r, self), self_sym_sizes=a.shape, dim=dims, keepdim=keepdim)


def mean(self, dim=None, keepdim=False, dtype=None):
    a = self._array
    if dtype is None and a.dtype.kind not in "f":
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or "
            f"complex dtype. Got: {_torch_type_name(a.dtype)}")
    np_dtype = dtype._np if dtype is not None else None
    if dim is None:
        out = _wrap(_mean_kernel(a, None, False, np_dtype, a.size), self)
        return _record(_S.MeanBackward0, (self,), out, self_sym_sizes=a.shape, self_sym_numel=a.size)
    dims = _reduction_dims(dim, a.ndim)
    count = 1
    for d in dims:
        count *= a.shape[d] if a.ndim else 1
    out = _wrap(_mean_kernel(a, dims if a.ndim else None, keepdim, np_dtype, count), self)
    return _record(_S.MeanBackward1, (self,), out, self_sym_sizes=a.shape, dim=dims, keepdim=keepdim,
                   self_sym_numel=a.size, count=count)


def _mean_kernel(a, axis, keepdims, dtype, count):
    token = _quiet()
    try:
        if count:
            return _row_major(np.mean(a, axis=axis, keepdims=keepdims, dtype=dtype))
        # the mean of no elements: nan, as in torch (np.mean would warn "Mean of empty slice")
        return _row_major(np.true_divide(np.sum(a, axis=axis, keepdims=keepdims, dtype=dtype), 0))
    finally:
        _loud(token)


def _row_major(r):
    """A reduction's result as torch allocates it (allocate_reduction_result): row-major
    whatever the input's layout, with a size-1 dimension's stride too (numpy's keepdims
    leaves it where it falls)."""
    r = _backend.asarray(r)
    stride, strides = r.itemsize, []
    for n in reversed(r.shape):
        strides.append(stride)
        stride *= n
    if r.strides == tuple(reversed(strides)):
        return r
    out = _backend.new(r, "empty", r.shape, r.dtype)
    out[...] = r
    return out


class _ReturnTypes(tuple):
    """torch.return_types.max / min: a (values, indices) named pair."""

    def __new__(cls, name, values, indices):
        obj = super().__new__(cls, (values, indices))
        obj._name = name
        return obj

    values = property(lambda self: self[0])
    indices = property(lambda self: self[1])

    def __repr__(self):
        return f"torchlite.return_types.{self._name}(\nvalues={self[0]!r},\nindices={self[1]!r})"


# torch.return_types.max / min are types named after the op
_RETURN_TYPES = {op: type(op, (_ReturnTypes,), {"__module__": "torchlite.return_types"}) for op in ("max", "min")}


def _extremum(name, np_fn, np_arg, full_spec, dim_spec, self, dim, keepdim):
    a = self._array
    if dim is None:
        if a.size == 0:
            raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                               "Specify the reduction dim with the 'dim' argument.")
        out = _wrap(_backend.asarray(np_fn(a)), self)
        return _record(full_spec, (self,), out, self=self, result=out)
    d = _wrap_dim(dim, a.ndim)
    if a.ndim and a.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    idx = np_arg(a, axis=d, keepdims=True) if a.ndim else _backend.new(a, "zeros", (), np.int64)
    values = np.take_along_axis(a, idx, axis=d) if a.ndim else a.copy()
    if not keepdim and a.ndim:
        idx = np.squeeze(idx, d)
        values = np.squeeze(values, d)
    indices = _wrap(idx.astype(np.int64), self)
    # (np.ascontiguousarray would make a 0-d result 1-d)
    out = _wrap(values if values.flags.c_contiguous else _backend.ascontiguousarray(values), self)
    out = _record(dim_spec, (self,), out, indices=indices, self_sym_sizes=a.shape, dim=d, keepdim=keepdim)
    return _RETURN_TYPES[name](name, out, indices)


def max(self, dim=None, keepdim=False):  # noqa: A001 - torch's name
    return _extremum("max", np.max, np.argmax, _S.MaxBackward1, _S.MaxBackward0, self, dim, keepdim)


def min(self, dim=None, keepdim=False):  # noqa: A001 - torch's name
    return _extremum("min", np.min, np.argmin, _S.MinBackward1, _S.MinBackward0, self, dim, keepdim)


# at::sum_to -------------------------------------------------------------------------

def _sum_to(g, shape, dtype=None):
    """Sums a broadcast gradient back to `shape` (at::sum_to), differentiably; with `dtype`
    (an operand of another dtype than the result), casts it back, as torch's engine does,
    here so that create_graph=True records the cast."""
    g = _reduce_to(g, shape)
    if dtype is not None and g._array.dtype != dtype:
        g = to(g, dtype=_from_numpy_dtype(dtype))  # after the sum, as the engine's validate_outputs
    return g


# at::ScalarType's order (csrc/aten/ScalarType.h)
_SCALAR_TYPES = (_f32, _f64, _i64, _b1, _f16, _i32, _i16, _i8, _u8)


def _reduce_output(g, shape, scalar_type):
    """validate_outputs' reduction of a formula's gradient to its input's shape and dtype,
    which the table's nodes run after their formula (PyFormulaNode::reduce_outputs)."""
    return _sum_to(g, shape, _SCALAR_TYPES[scalar_type])


def _reduce_to(g, shape):
    gshape = g._array.shape
    if gshape == shape:
        return g
    if not shape:
        return sum(g)  # at::sum_to to a 0-d shape: one full sum (SumBackward0)
    lead = len(gshape) - len(shape)
    if lead < 0:  # a setitem value whose leading 1s were dropped (x[i] = t with t of shape (1,))
        return reshape(_reduce_to(g, shape[-lead:]), shape)
    dims = tuple(range(lead)) + tuple(
        i + lead for i, s in enumerate(shape) if s == 1 and gshape[i + lead] != 1)
    if dims:
        g = sum(g, dims, True)
    # at::sum_to views the kept-dimension sum as `shape` (ViewBackward0 under create_graph)
    return view(g, shape) if lead else g


_C._set_sum_to(_reduce_output)
