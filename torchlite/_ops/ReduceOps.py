"""Reductions (ATen/native/ReduceOps.cpp): sum, mean, max, min, prod, std, var, logsumexp,
amax, amin, argmax, argmin, all, any, count_nonzero, cumsum, cumprod, cummax, cummin, nansum,
nanmean; and at::sum_to, which reduces a gradient to its input's shape
and dtype after each formula."""
import builtins
import warnings

import numpy as np

from .. import _C, _backend
from .._C import _record, _wrap
from .._dtypes import _from_numpy_dtype
from .._generated import specs as _S
from .ScalarType import _b1, _f16, _f32, _f64, _i8, _i16, _i32, _i64, _torch_type_name, _u8
from .Resize import _RESIZED, out_variant
from .Copy import copy_
from .TensorConversions import to
from .TensorIterator import _TB, _loud, _quiet
from .TensorShape import reshape, unsqueeze, view
from .python_arg_parser import _REQUIRED, _check_given, _norm_dims, _wrap_dim
from . import mutation as _mutation


_NO_DIM = object()  # a reduction called without dim (sum, mean, std, var: another overload)


def _saved_dim(d):
    """A dim as a node saves it: as the op was called, unwrapped (its `_saved_dim` shows a negative
    one as torch does, read back unsigned: the generated fields of kind S)."""
    return int(d)


def _saved_dims(dim):
    if dim is None:
        return None
    return tuple(int(d) for d in ((dim,) if isinstance(dim, int) else dim))


def _reduction_dims(dim, ndim):
    """A reduction's dims: an empty list reduces over all of them, as no dim does."""
    dims = _norm_dims(dim, ndim)
    return dims if dims else tuple(range(ndim))


def _unsqueeze_multiple(g, dims):
    """torch's unsqueeze_multiple: the reduced dims back, one unsqueeze each."""
    for d in sorted(dims):
        g = unsqueeze(g, d)
    return g


def sum(self, dim=_NO_DIM, keepdim=False, dtype=None):  # noqa: A001 - torch's name
    # with dim given, even None, it is the sum.dim_IntList overload (SumBackward1)
    overload = dim is not _NO_DIM
    dim = None if dim is _NO_DIM else dim
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
    if not overload:
        return _record(_S.SumBackward0, (self,), _wrap(r, self), self_sym_sizes=a.shape)
    # the node keeps dim as given (torch shows a negative one unsigned; its formula wraps it)
    return _record(_S.SumBackward1, (self,), _wrap(r, self), self_sym_sizes=a.shape, dim=_saved_dims(dim),
                   keepdim=keepdim)


def mean(self, dim=_NO_DIM, keepdim=False, dtype=None):
    overload = dim is not _NO_DIM  # mean.dim (MeanBackward1), dim None too
    dim = None if dim is _NO_DIM else dim
    a = self._array
    if dtype is None and a.dtype.kind not in "f":
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or "
            f"complex dtype. Got: {_torch_type_name(a.dtype)}")
    if dtype is not None and dtype._np.kind not in "f":
        raise RuntimeError(
            "mean(): could not infer output dtype. Optional dtype must be either a floating point or "
            f"complex dtype. Got: {_torch_type_name(dtype._np)}")
    np_dtype = dtype._np if dtype is not None else None
    if not overload:
        out = _wrap(_mean_kernel(a, None, False, np_dtype, a.size), self)
        return _record(_S.MeanBackward0, (self,), out, self_sym_sizes=a.shape, self_sym_numel=a.size)
    dims = _reduction_dims(() if dim is None else dim, a.ndim)
    count = 1
    for d in dims:
        count *= a.shape[d] if a.ndim else 1
    out = _wrap(_mean_kernel(a, dims if a.ndim else None, keepdim, np_dtype, count), self)
    return _record(_S.MeanBackward1, (self,), out, self_sym_sizes=a.shape, dim=_saved_dims(dim), keepdim=keepdim,
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
    """torch.return_types.max / min / sort / ...: a (values, indices) named pair; made, as a
    structseq, from one sequence of the two."""

    def __new__(cls, seq):
        obj = super().__new__(cls, seq)
        if len(obj) != 2:
            raise TypeError(f"torchlite.return_types.{cls.__name__} takes a 2-sequence ({len(obj)}-sequence given)")
        return obj

    values = property(lambda self: self[0])
    indices = property(lambda self: self[1])

    def __repr__(self):
        return f"torchlite.return_types.{type(self).__name__}(\nvalues={self[0]!r},\nindices={self[1]!r})"


# torch.return_types.max / min are types named after the op
_RETURN_TYPES = {op: type(op, (_ReturnTypes,), {"__module__": "torchlite.return_types"})
                 for base in ("max", "min", "cummax", "cummin", "sort", "topk", "kthvalue", "median", "nanmedian",
                              "mode") for op in (base, base + "_out")}


def _out_pair(name, self, compute, out):
    """The (values, indices) out= overloads (sort.values, max.dim_max, cummax.out, ...): checked
    as torch's autograd kernel and structured outputs check them, the results written into out's
    two tensors (resized as resize_output does), returned as torch.return_types.<name>_out."""
    if not (isinstance(out, (tuple, list)) and len(out) == 2 and builtins.all(isinstance(o, _TB) for o in out)):
        raise TypeError(f"{name}(): argument 'out' must be tuple of Tensors, not {type(out).__name__}")
    if _C.is_grad_enabled() and (self.requires_grad or builtins.any(o.requires_grad for o in out)):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic differentiation, "
                           "but one of the arguments requires grad.")
    result = compute()
    for r, o in zip(result, out, strict=True):
        if o._array.dtype != r._array.dtype:
            raise RuntimeError(f"Expected out tensor to have dtype {_C_TYPE_NAMES[r._array.dtype.name]}, but got "
                               f"{_C_TYPE_NAMES[o._array.dtype.name]} instead")
    for r, o in zip(result, out, strict=True):
        if o._array.shape != r._array.shape:
            if o._array.size:
                warnings.warn(_RESIZED.format(list(o._array.shape), list(r._array.shape)), UserWarning, stacklevel=3)
            if _mutation.hook is not None:
                _mutation.hook(o)
            o.data = r
            o._bump_version()
        else:
            copy_(o, r)
    return _RETURN_TYPES[name + "_out"]((out[0], out[1]))


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
    out = _record(dim_spec, (self,), out, indices=indices, self_sym_sizes=a.shape, dim=_saved_dim(dim),
                  keepdim=keepdim)
    return _RETURN_TYPES[name]((out, indices))


def max(self, dim=None, keepdim=False, *, out=None):  # noqa: A001 - torch's name
    if out is not None:
        if dim is None:  # max.unary_out
            return out_variant("max", max, out, (self,), {})
        return _out_pair("max", self, lambda: max(self, dim, keepdim), out)
    return _extremum("max", np.max, np.argmax, _S.MaxBackward1, _S.MaxBackward0, self, dim, keepdim)


def min(self, dim=None, keepdim=False, *, out=None):  # noqa: A001 - torch's name
    if out is not None:
        if dim is None:  # min.unary_out
            return out_variant("min", min, out, (self,), {})
        return _out_pair("min", self, lambda: min(self, dim, keepdim), out)
    return _extremum("min", np.min, np.argmin, _S.MinBackward1, _S.MinBackward0, self, dim, keepdim)


# issue 13: the other reductions ----------------------------------------------------

def _axes(dim, ndim):
    """numpy's axis for a reduction over `dim` (None, an int or a list; an empty list is all dims),
    checked and wrapped as torch does."""
    if dim is None:
        return None
    dims = _norm_dims(dim, ndim)
    return dims if dims and ndim else None


def _reduced_count(shape, axis):
    n = 1
    for d in (range(len(shape)) if axis is None else axis):
        n *= shape[d]
    return n


def _reduce(fn, a, axis, keepdim, **kw):
    token = _quiet()
    try:
        r = fn(a, axis=axis, keepdims=keepdim, **kw)
    finally:
        _loud(token)
    if keepdim and axis is None and a.ndim:
        r = np.reshape(r, (1,) * a.ndim)
    return _row_major(r)


def _int_result_dtype(a, dtype):
    """sum / prod / cumsum's accumulation dtype: `dtype`, else int64 for integers and bool."""
    if dtype is not None:
        return dtype._np
    return np.dtype(np.int64) if a.dtype.kind in "biu" else None


def prod(self, dim=None, keepdim=False, dtype=None):
    a = self._array
    np_dtype = _int_result_dtype(a, dtype)
    if dim is None:
        r = _reduce(np.prod, a, None, False, dtype=np_dtype)
        out = _wrap(r, self)
        return _record(_S.ProdBackward0, (self,), out, self=self, result=out)
    if not isinstance(dim, int) or isinstance(dim, bool):
        raise TypeError("prod() received an invalid combination of arguments - got (" + type(dim).__name__
                        + "), but expected one of:\n * (*, torch.dtype dtype = None)\n"
                        " * (int dim, bool keepdim = False, *, torch.dtype dtype = None)\n")
    d = _wrap_dim(dim, a.ndim)
    out = _wrap(_reduce(np.prod, a, (d,) if a.ndim else None, keepdim, dtype=np_dtype), self)
    return _record(_S.ProdBackward1, (self,), out, self=self, dim=_saved_dim(dim), keepdim=keepdim, result=out)


def _std_var_args(name, dim, unbiased, keepdim, correction):
    """std / var's overloads: (bool unbiased), (dims, bool unbiased, bool keepdim) and
    (dims, *, correction, keepdim); a bool first argument is `unbiased`. The node saves the
    correction the chosen overload passes: None only where neither dim, unbiased nor correction
    is given (the others pass unbiased=True's 1)."""
    if isinstance(dim, bool):
        if unbiased is not None:
            raise TypeError(f"{name}(): argument 'unbiased' given twice")
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        raise TypeError(f"{name}() received an invalid combination of arguments - got unbiased and correction")
    if unbiased is not None:
        correction = 1 if unbiased else 0
    elif dim is not _NO_DIM and correction is None:
        correction = 1
    return (None if dim is _NO_DIM else dim), keepdim, correction


def _var_kernel(name, self, dim, correction, keepdim, root):
    a = self._array
    if a.dtype.kind != "f":
        what = name if name.endswith("_mean") else "std and var"
        raise RuntimeError(f"{what} only support floating point and complex dtypes")
    axis = _axes(dim, a.ndim)
    c = 1 if correction is None else correction
    n = _reduced_count(a.shape, axis)
    out_numel = 1
    for d in range(a.ndim):
        out_numel *= 1 if axis is None or d in axis else a.shape[d]
    # torch's warn_invalid_degrees_of_freedom: the input's numel over the output's (0 without an output)
    if (a.size // out_numel if out_numel else 0) - c <= 0:
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the "
                      "reduction factor (input numel divided by output numel).", UserWarning, stacklevel=3)
    token = _quiet()
    try:
        # torch divides by max(0, n - correction): 0 / 0 is nan, the rest inf
        mean = np.mean(a, axis=axis, keepdims=True) if n else np.sum(a, axis=axis, keepdims=True)
        dev = a - mean
        r = np.sum(dev * dev, axis=axis, keepdims=keepdim) / a.dtype.type(builtins.max(n - c, 0))
        if root:
            r = np.sqrt(r)
    finally:
        _loud(token)
    if keepdim and axis is None and a.ndim:
        r = np.reshape(r, (1,) * a.ndim)
    return _wrap(_row_major(_backend.asarray(r).astype(a.dtype, copy=False)), self)


def std(self, dim=_NO_DIM, unbiased=None, keepdim=False, *, correction=None):
    dim, keepdim, correction = _std_var_args("std", dim, unbiased, keepdim, correction)
    out = _var_kernel("std", self, dim, correction, keepdim, True)
    return _record(_S.StdBackward0, (self,), out, self=self, dim=_saved_dims(dim), correction=correction,
                   keepdim=keepdim, result=out)


def var(self, dim=_NO_DIM, unbiased=None, keepdim=False, *, correction=None):
    dim, keepdim, correction = _std_var_args("var", dim, unbiased, keepdim, correction)
    out = _var_kernel("var", self, dim, correction, keepdim, False)
    return _record(_S.VarBackward0, (self,), out, self=self, dim=_saved_dims(dim), correction=correction,
                   keepdim=keepdim)


def _with_mean(self, dim, keepdim):
    """std_mean / var_mean's mean. torch computes it with Welford's updates (mean += (x - mean) / n),
    which an infinity turns into nan where a sum would not ([inf, inf] -> nan, [inf, 1] -> nan): the
    slices with an infinity or nan take those updates in order, the others numpy's mean."""
    a = self._array
    axis = _axes(dim, a.ndim)
    count = _reduced_count(a.shape, axis)
    r = _mean_kernel(a, axis, True, None, count)
    if count and a.size and not np.isfinite(a).all():
        axes = tuple(range(a.ndim)) if axis is None else axis
        rest = tuple(d for d in range(a.ndim) if d not in axes)
        x = np.reshape(np.transpose(a, rest + axes), tuple(a.shape[d] for d in rest) + (-1,))
        token = _quiet()
        try:
            m = np.zeros_like(x[..., 0])
            for i in range(x.shape[-1]):
                m = m + (x[..., i] - m) / a.dtype.type(i + 1)
        finally:
            _loud(token)
        bad = ~np.isfinite(x).all(-1)
        r = np.where(np.reshape(bad, r.shape), np.reshape(m, r.shape), r).astype(a.dtype, copy=False)
    if not keepdim:
        r = np.reshape(r, tuple(n for d, n in enumerate(a.shape) if d not in (range(a.ndim) if axis is None else axis)))
    return _wrap(_row_major(r), self)


def std_mean(self, dim=_NO_DIM, unbiased=None, keepdim=False, *, correction=None):
    """(std, mean) over dim, one node for both (StdMeanBackward0)."""
    dim, keepdim, correction = _std_var_args("std_mean", dim, unbiased, keepdim, correction)
    std_out = _var_kernel("std_mean", self, dim, correction, keepdim, True)
    mean_out = _with_mean(self, dim, keepdim)
    return _record(_S.StdMeanBackward0, (self,), (std_out, mean_out), self=self, dim=_saved_dims(dim),
                   correction=correction, keepdim=keepdim, result0=std_out)


def var_mean(self, dim=_NO_DIM, unbiased=None, keepdim=False, *, correction=None):
    """(var, mean) over dim, one node for both (VarMeanBackward0)."""
    dim, keepdim, correction = _std_var_args("var_mean", dim, unbiased, keepdim, correction)
    var_out = _var_kernel("var_mean", self, dim, correction, keepdim, False)
    mean_out = _with_mean(self, dim, keepdim)
    return _record(_S.VarMeanBackward0, (self,), (var_out, mean_out), self=self, dim=_saved_dims(dim),
                   correction=correction, keepdim=keepdim)


def logsumexp(self, dim=_REQUIRED, keepdim=False):
    _check_given("logsumexp", dim=dim)
    a = self._array
    if isinstance(dim, (tuple, list)) and not dim and a.ndim:
        # torch's logsumexp over no dims refuses the amax it computes over all of them
        raise RuntimeError(f"output with shape [] doesn't match the broadcast shape {[1] * a.ndim}")
    axis = _axes(dim, a.ndim)
    x = a if a.dtype.kind == "f" else a.astype(_f32)
    token = _quiet()
    try:
        m = np.max(x, axis=axis, keepdims=True, initial=-np.inf) if x.size else np.zeros_like(x, shape=(1,) * x.ndim)
        m = np.where(np.isinf(m), x.dtype.type(0), m).astype(x.dtype)
        r = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
        if not keepdim:
            r = np.squeeze(r, axis=axis) if x.ndim else r
    finally:
        _loud(token)
    out = _wrap(_row_major(np.asarray(r).astype(x.dtype, copy=False)), self)
    return _record(_S.LogsumexpBackward0, (self,), out, self=self, dim=_saved_dims(dim), keepdim=keepdim, result=out)


def _check_nonempty(name, a, axis, error=RuntimeError):
    if axis is None:
        if a.size == 0:
            raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                               "Specify the reduction dim with the 'dim' argument.")
        return
    for d in axis:
        if a.shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


def _amaxmin(name, fn, spec, self, dim, keepdim):
    a = self._array
    if a.size == 0:
        # zero_numel_check_dims: each dim as given (its size checked before the list's repeats)
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        for d in dims:
            if a.ndim and a.shape[_wrap_dim(d, a.ndim)] == 0:
                raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    axis = _axes(dim, a.ndim)
    _check_nonempty(name, a, axis)
    out = _wrap(_reduce(fn, a, axis, keepdim), self)
    return _record(spec, (self,), out, self=self, dim=_saved_dims(dim), keepdim=keepdim, result=out)


def amax(self, dim=(), keepdim=False):
    return _amaxmin("amax", np.max, _S.AmaxBackward0, self, dim, keepdim)


def amin(self, dim=(), keepdim=False):
    return _amaxmin("amin", np.min, _S.AminBackward0, self, dim, keepdim)


def _arg(name, fn, self, dim, keepdim):
    a = self._array
    if a.dtype.kind == "b":
        raise RuntimeError(f"{name}(): does not support bool input")
    if dim is None:
        if a.size == 0:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
        r = fn(np.reshape(a, -1), axis=0, keepdims=True).astype(np.int64)
        return _wrap(np.reshape(r, (1,) * a.ndim if keepdim else ()), self)
    d = _wrap_dim(dim, a.ndim)
    if not a.ndim:
        return _wrap(_backend.new(a, "zeros", (), np.int64), self)
    if a.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    r = fn(a, axis=d, keepdims=keepdim).astype(np.int64)
    return _wrap(_row_major(r), self)


def argmax(self, dim=None, keepdim=False):
    return _arg("argmax", np.argmax, self, dim, keepdim)


def argmin(self, dim=None, keepdim=False):
    return _arg("argmin", np.argmin, self, dim, keepdim)


def _all_any(fn, self, dim, keepdim):
    a = self._array
    axis = _axes(dim, a.ndim)
    r = _reduce(fn, a, axis, keepdim)
    return _wrap(_row_major(r.astype(np.uint8 if a.dtype == np.uint8 else np.bool_)), self)


def all(self, dim=None, keepdim=False):  # noqa: A001 - torch's name
    return _all_any(np.all, self, dim, keepdim)


def any(self, dim=None, keepdim=False):  # noqa: A001 - torch's name
    return _all_any(np.any, self, dim, keepdim)


def count_nonzero(self, dim=None):
    a = self._array
    axis = _axes(dim, a.ndim)
    r = np.sum(a != 0, axis=axis, dtype=np.int64)
    return _wrap(_row_major(r), self)


def _cum(fn, spec, self, dim, dtype, with_result):
    a = self._array
    d = _wrap_dim(dim, a.ndim)
    np_dtype = _int_result_dtype(a, dtype)
    if (np_dtype or a.dtype) == np.bool_ and a.ndim and a.size:  # impl_func_cum_ops: no bool kernel
        raise NotImplementedError(f"\"{fn.__name__}_out_cpu\" not implemented for 'Bool'")
    token = _quiet()
    try:
        r = fn(a, axis=d, dtype=np_dtype) if a.ndim else a.astype(np_dtype or a.dtype)
    finally:
        _loud(token)
    out = _wrap(_row_major(r), self)
    if with_result:
        return _record(spec, (self,), out, self=self, dim=_saved_dim(dim), result=out, self_scalar_type=a.dtype)
    return _record(spec, (self,), out, dim=_saved_dim(dim), self_scalar_type=a.dtype)


def cumsum(self, dim=_REQUIRED, *, dtype=None):
    _check_given("cumsum", dim=dim)
    return _cum(np.cumsum, _S.CumsumBackward0, self, dim, dtype, False)


def cumprod(self, dim=_REQUIRED, *, dtype=None):
    _check_given("cumprod", dim=dim)
    return _cum(np.cumprod, _S.CumprodBackward0, self, dim, dtype, True)


def _cum_inplace_meta(name):
    """meta_func_cum_ops where the output is self: its dtype (dtype= must equal it), which the
    CPU kernel has no bool version of. impl_func_cum_ops fills a 0-d self and zeroes an empty one
    without the kernel; the kernel's dtype dispatch comes before the TensorIterator it builds, so
    before that iterator's overlap check (ReduceOps.cpp, cumsum_cpu_kernel)."""
    def meta(self, dim=_REQUIRED, *, dtype=None):
        _check_given(name + "_", dim=dim)
        a = self._array
        _wrap_dim(dim, a.ndim)
        if dtype is not None and dtype._np != a.dtype:
            raise RuntimeError(f"Bad in-place call: input tensor dtype {_C_TYPE_NAMES[a.dtype.name]} and output "
                               f"tensor dtype {_C_TYPE_NAMES[dtype._np.name]} should match")
        if a.dtype.kind == "b" and a.ndim and a.size:
            raise NotImplementedError(f"\"{name}_out_cpu\" not implemented for 'Bool'")
        # the result's dtype is self's (an integral self is not promoted to int64 as the functional's)
        return {"dtype": self.dtype}
    return meta


# c10's C++ type names, as "Bad in-place call" names the dtypes
_C_TYPE_NAMES = {"float32": "float", "float64": "double", "int64": "long int", "bool": "bool", "int32": "int",
                 "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "float16": "c10::Half"}
cumsum.inplace_meta = _cum_inplace_meta("cumsum")  # type: ignore[attr-defined]
cumprod.inplace_meta = _cum_inplace_meta("cumprod")  # type: ignore[attr-defined]


def _cummaxmin(name, better, spec, self, dim):
    """cummax / cummin: the running extremum and the index it was last taken from (a tie or a
    nan takes the later index; once nan, only a nan moves it), as torch's cummax_cummin_helper."""
    a = self._array
    if not a.ndim and dim not in (0, -1):
        raise IndexError(f"{name}(): Expected reduction dim -1 or 0 for scalar but got {dim}")
    d = _wrap_dim(dim, a.ndim)
    if not a.ndim:
        values, idx = a.copy(), _backend.new(a, "zeros", (), np.int64)
    else:
        x = np.moveaxis(a, d, 0)
        values = np.empty_like(x)
        idx = np.zeros_like(x, dtype=np.int64)
        if x.shape[0]:
            cur, cur_i = x[0].copy(), np.zeros_like(x[0], dtype=np.int64)
            for i in range(x.shape[0]):
                xi = x[i]
                take = better(xi, cur) | (xi == cur) | np.isnan(xi) if a.dtype.kind == "f" else better(xi, cur) | (
                    xi == cur)
                if a.dtype.kind == "f":
                    take = take & ~(np.isnan(cur) & ~np.isnan(xi))
                cur = np.where(take, xi, cur)
                cur_i = np.where(take, i, cur_i)
                values[i], idx[i] = cur, cur_i
        values = _row_major(np.moveaxis(values, 0, d))
        idx = _row_major(np.moveaxis(idx, 0, d))
    indices = _wrap(idx, self)
    out = _record(spec, (self,), _wrap(values, self), self=self, dim=_saved_dim(dim), indices=indices)
    return _RETURN_TYPES[name]((out, indices))


def cummax(self, dim, *, out=None):
    if out is not None:
        return _out_pair("cummax", self, lambda: cummax(self, dim), out)
    return _cummaxmin("cummax", np.greater, _S.CummaxBackward0, self, dim)


def cummin(self, dim, *, out=None):
    if out is not None:
        return _out_pair("cummin", self, lambda: cummin(self, dim), out)
    return _cummaxmin("cummin", np.less, _S.CumminBackward0, self, dim)


def nansum(self, dim=None, keepdim=False, *, dtype=None):
    a = self._array
    axis = _axes(dim, a.ndim)
    r = _reduce(np.nansum if a.dtype.kind == "f" else np.sum, a, axis, keepdim, dtype=_int_result_dtype(a, dtype))
    return _record(_S.NansumBackward0, (self,), _wrap(r, self), self=self, dim=_saved_dims(dim), keepdim=keepdim,
                   self_scalar_type=a.dtype)


def nanmean(self, dim=None, keepdim=False, *, dtype=None):
    """torch's nanmean (ReduceOps.cpp): nansum(...).div(the count of the non-nan elements), a
    DivBackward0 whose other, the int64 count, needs no gradient (self is not saved)."""
    a = self._array
    if a.dtype.kind != "f":
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype but got "
                           f"{_torch_type_name(a.dtype)}")
    count = _reduce(np.sum, ~np.isnan(a), _axes(dim, a.ndim), keepdim, dtype=np.int64)
    total = nansum(self, dim, keepdim, dtype=dtype)
    t = total._array
    token = _quiet()
    try:
        r = np.true_divide(t, count).astype(t.dtype, copy=False)
    finally:
        _loud(token)
    count_t = _wrap(count, self)
    return _record(_S.DivBackward0, (total, count_t), _wrap(_row_major(r), self), self=None, other=count_t)


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
