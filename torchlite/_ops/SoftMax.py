"""softmax and log_softmax, their backward ops (ATen/native/SoftMax.cpp).

`softmax(self, dim, dtype)` casts self to dtype (a ToCopyBackward0 under the SoftmaxBackward0) and
calls `_softmax(self, dim, half_to_float=False)`, as upstream's does. `_softmax_backward_data` and
`_log_softmax_backward_data` are ops of their own with derivative entries (derivatives.yaml), so a
double backward through softmax works as torch's does.
"""
import numpy as np

from .. import _C
from .._C import _record, _wrap
from .._generated import specs as _S
from .ScalarType import _f16, _f32, _torch_type_name
from .TensorConversions import to
from .TensorIterator import _loud, _quiet
from .python_arg_parser import _int_arg, _wrap_dim


def _check(name, self, dim, half_to_float):
    a = self._array
    dim = _wrap_dim(_int_arg(name, "dim", 2, dim), a.ndim)  # the node keeps dim as given
    if half_to_float:
        raise RuntimeError("softmax with half to float conversion is not supported on CPU")  # log_softmax's too
    if a.dtype.kind != "f" and a.size:  # (log_)softmax_cpu_out return before the dispatch for no elements
        kernel = "softmax" if name == "softmax" else "log_softmax"
        last = "_lastdim" if dim == max(a.ndim, 1) - 1 else ""
        raise NotImplementedError(f'"{kernel}{last}_kernel_impl" not implemented for '
                                  f"'{_torch_type_name(a.dtype)}'")
    return a, dim


def _compute(a):
    """float16 computes in float32 and rounds once, as torch's Vectorized<Half> kernels do."""
    if a.dtype.kind not in "fc":
        return a.astype(np.float64)  # an empty integer or bool tensor (_check refuses any other)
    return a.astype(_f32) if a.dtype == _f16 else a


def _softmax_values(a, dim):
    """softmax of a along (wrapped) dim, in a's dtype (float16 through float32), C-contiguous."""
    x = _compute(a)
    token = _quiet()
    try:
        if x.ndim == 0:
            r = np.exp(x - x)
        else:
            m = np.max(x, axis=dim, keepdims=True) if x.shape[dim] else x
            e = np.exp(x - m)
            r = e / np.sum(e, axis=dim, keepdims=True)
    finally:
        _loud(token)
    return np.array(r, dtype=a.dtype, order="C")


def _softmax(self, dim, half_to_float=False):
    given = dim
    a, dim = _check("softmax", self, dim, half_to_float)
    out = _wrap(_softmax_values(a, dim), self)
    return _record(_S.SoftmaxBackward0, (self,), out, dim=given, result=out, self_scalar_type=a.dtype)


def _safe_softmax(self, dim, dtype=None):
    """at::_safe_softmax (ATen/native/transformers/attention.cpp): softmax in `dtype` (the cast inside
    the op: no node of its own) where a row that is all -inf gives zeros instead of nan; one node,
    SafeSoftmaxBackward0, with softmax's backward."""
    given = dim
    _int_arg("_safe_softmax", "dim", 2, dim)
    src = self if dtype is None else to(self, dtype).detach()
    a, dim = _check("softmax", src, dim, False)
    r = _softmax_values(a, dim)
    if r.ndim and r.size:
        masked = np.all(a == -np.inf, axis=dim, keepdims=True)
        if masked.any():
            r = np.where(masked, np.zeros((), r.dtype), r)
    out = _wrap(np.ascontiguousarray(r), self)
    return _record(_S.SafeSoftmaxBackward0, (self,), out, dim=given, result=out, self_scalar_type=self._array.dtype)


# _C._log_softmax_host and _C._log_softmax_backward_host give the numpy path's values bit for bit
# (Note [Cross entropy with numpy's bits], csrc/autograd/python_fast_loss.cpp) over the last dim of
# a C-contiguous float32 / float64 array whose rows _host_rows admits; they return None where they
# do not apply and the numpy path runs. Tests set _HOST_KERNELS to False to run the numpy path as
# the reference.
_HOST_KERNELS = True
_HOST_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _host_rows(a, dim):
    """Whether the host kernels take a reduction of the host array a over its dim: the last one,
    rows of 2 or more values no longer than numpy's ufunc buffer (numpy's row sums as the kernels
    reproduce them), a non-empty C-contiguous float32 or float64 array."""
    return (_HOST_KERNELS and type(a) is np.ndarray and a.dtype in _HOST_DTYPES and a.ndim >= 1
            and dim == a.ndim - 1 and 2 <= a.shape[-1] <= np.getbufsize() and a.flags.c_contiguous)


def _log_softmax(self, dim, half_to_float=False):
    given = dim
    a, dim = _check("log_softmax", self, dim, half_to_float)
    if _host_rows(a, dim) and a.size:
        r = _C._log_softmax_host(a)
        if r is not None:
            out = _wrap(r, self)
            return _record(_S.LogSoftmaxBackward0, (self,), out, dim=given, result=out, self_scalar_type=a.dtype)
    x = _compute(a)
    token = _quiet()
    try:
        if x.ndim == 0:
            r = x - x
        else:
            m = np.max(x, axis=dim, keepdims=True) if x.shape[dim] else x
            shifted = x - m
            r = shifted - np.log(np.sum(np.exp(shifted), axis=dim, keepdims=True))
    finally:
        _loud(token)
    out = _wrap(np.array(r, dtype=a.dtype, order="C"), self)
    return _record(_S.LogSoftmaxBackward0, (self,), out, dim=given, result=out, self_scalar_type=a.dtype)


def _cast_for(name, self, dtype):
    if dtype is None:
        return self
    return to(self, dtype)


def softmax(self, dim, dtype=None):
    """softmax.int: self cast to dtype first (ToCopyBackward0), then _softmax."""
    _int_arg("softmax", "dim", 2, dim)
    return _softmax(_cast_for("softmax", self, dtype), dim, False)


def log_softmax(self, dim, dtype=None):
    _int_arg("log_softmax", "dim", 2, dim)
    return _log_softmax(_cast_for("log_softmax", self, dtype), dim, False)


def _backward_arrays(grad_output, output, dim):
    g, o = grad_output._array, output._array
    dim = _wrap_dim(dim, o.ndim)  # (the node keeps dim as given)
    axis = dim if o.ndim else None
    return _compute(g), _compute(o), axis, o.dtype


def _softmax_backward_data(grad_output, output, dim, input_dtype):
    """grad_output's gradient through softmax: output * (grad_output - sum(grad_output * output, dim))."""
    g, o, axis, dtype = _backward_arrays(grad_output, output, dim)
    token = _quiet()
    try:
        r = o * (g - np.sum(g * o, axis=axis, keepdims=True))
    finally:
        _loud(token)
    out = _wrap(np.array(r, dtype=dtype, order="C"), grad_output)
    return _record(_S.SoftmaxBackwardDataBackward0, (grad_output, output), out, grad_output=grad_output,
                   output=output, dim=dim, input_dtype=input_dtype)


def _log_softmax_backward_data(grad_output, output, dim, input_dtype):
    """grad_output's gradient through log_softmax: grad_output - exp(output) * sum(grad_output, dim)."""
    g, o, axis, dtype = _backward_arrays(grad_output, output, dim)
    r = None
    if type(g) is np.ndarray and g.dtype == o.dtype and g.flags.c_contiguous and _host_rows(o, axis) and o.size:
        r = _C._log_softmax_backward_host(g, o)
    if r is not None:
        out = _wrap(r, grad_output)
        return _record(_S.LogSoftmaxBackwardDataBackward0, (grad_output, output), out, grad_output=grad_output,
                       output=output, dim=dim)
    token = _quiet()
    try:
        r = g - np.exp(o) * np.sum(g, axis=axis, keepdims=True)
    finally:
        _loud(token)
    out = _wrap(np.array(r, dtype=dtype, order="C"), grad_output)
    return _record(_S.LogSoftmaxBackwardDataBackward0, (grad_output, output), out, grad_output=grad_output,
                   output=output, dim=dim)
