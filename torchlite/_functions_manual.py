"""The helpers the derivative formulas call (upstream: torch/csrc/autograd/FunctionsManual.cpp),
under upstream's names where upstream has one, written in torchlite's differentiable ops so that
create_graph=True differentiates through them. tools/autograd/derivatives.yaml's formulas call
these; the ones marked `native` there have C++ versions of the same name in
csrc/autograd/FunctionsManual.cpp."""
import builtins

import numpy as np

from . import _backend
from ._dtypes import _from_numpy_dtype
from ._ops import _add_scalar as add_scalar
from ._C import _wrap
from ._generated import specs as S
from ._ops import _column_major, _const, _index_put_zeros, _loud
from ._ops import _masked_fill as masked_fill
from ._ops import _masked_fill_zeros, _matmul_kernel, _quiet, _scatter_zeros, _select, _slice, _sub_scalar
from ._ops import _sum_to, _unsqueeze_multiple
from ._ops import _div_scalar as div_scalar
from ._ops import _mul_scalar as mul_scalar
from ._ops import _as_strided_backward as as_strided_backward
from ._ops import _index_backward as index_backward
from ._ops import _saved_index_key as saved_index_key
from ._ops import (add, cat, cos, diagonal, diagonal_backward, div, expand, getitem_raw, log, matmul, mul, neg,
                   permute, reciprocal, reshape, sgn, sigmoid_backward, sin, squeeze, stack, t, tanh_backward,
                   threshold_backward, to, transpose, unsqueeze, where, zeros_like)
from ._ops import pow, sum  # noqa: A004 - torch's names

__all__ = [
    "add_scalar", "as_dtype", "as_strided_backward", "atan2_backward_other", "atan2_backward_self", "bmm",
    "cat_tensors_backward", "cos", "diagonal",
    "diagonal_backward", "div", "div_scalar", "div_tensor_other_backward", "div_tensor_self_backward",
    "evenly_distribute_backward", "expand_symint", "getitem_raw",
    "index_backward", "index_put_zeros",
    "masked_fill", "matmul", "maybe_multiply", "mean_backward", "mean_dim_backward",
    "mm_mat1_backward", "mm_mat2_backward", "mul", "mul_scalar", "mul_tensor_backward", "neg", "permute_backwards",
    "pow_backward", "pow_backward_exponent", "pow_backward_exponent_scalar", "pow_backward_self", "reshape",
    "reshape_column", "saved_index_key", "select_from_key", "sgn", "sigmoid_backward", "sin", "slice_from_key",
    "split_backward", "squeeze", "stack_tensors_backward", "sum", "sum_backward", "sum_to", "t", "tanh_backward",
    "threshold_backward", "to_copy_backward", "transpose", "unbind_backward", "unsqueeze_to",
    "value_selecting_reduction_backward", "where", "zeros_like"]


def maybe_multiply(grad, alpha):
    """grad * alpha, or grad itself where alpha is 1 (no node recorded)."""
    return grad if alpha == 1 else mul_scalar(grad, alpha)


def mul_tensor_backward(grad, other):
    """grad * other (other a tensor, or the Python number of `x * 2`)."""
    return mul(grad, other)


def div_tensor_self_backward(grad, other):
    return div(grad, other)


def div_tensor_other_backward(grad, self, other):
    """-grad * self / other ** 2, rounded as torch computes it: -grad * ((self / other) / other)."""
    return mul(neg(grad), div(div(self, other), other))


def _atan2_reciprocal(self, other):
    """1 / (self ** 2 + other ** 2), 0 where that is 1 / 0 (atan2's gradient at the origin is 0)."""
    denominator = add(mul(self, self), mul(other, other))
    return masked_fill(reciprocal(denominator), _const(denominator._array == 0, denominator), 0)


def atan2_backward_self(grad, self, other):
    """atan2_backward's gradient for self: grad * other / (self ** 2 + other ** 2)."""
    return mul(mul(grad, other), _atan2_reciprocal(self, other))


def atan2_backward_other(grad, self, other):
    """atan2_backward's gradient for other: grad * -self / (self ** 2 + other ** 2)."""
    return mul(mul(grad, neg(self)), _atan2_reciprocal(self, other))


def expand_symint(grad, sizes):
    return expand(grad, sizes)


def mean_backward(grad, sizes, numel):
    """The full mean's gradient: grad expanded to the input's sizes, divided by its element count."""
    return div_scalar(expand(grad, sizes), numel)


def sum_to(grad, sizes):
    """at::sum_to (expand's formula): to a 0-d shape it sums even a 0-d gradient (SumBackward0)."""
    return sum(grad) if sizes == () else _sum_to(grad, sizes)


def sum_backward(grad, sizes, dims, keepdim):
    if not keepdim and sizes:
        grad = _unsqueeze_multiple(grad, dims)
    return expand(grad, sizes)


def mean_dim_backward(grad, sizes, dims, keepdim, numel, count):
    """The mean over `dims`: sum_backward's expansion divided by the reduced element count."""
    return div_scalar(sum_backward(grad, sizes, dims, keepdim), count)


def evenly_distribute_backward(grad, self, result):
    """torch's evenly_distribute_backward (CPU): zeros masked_fill_'ed with grad / count where the
    input equals the result (a nan result came from the nan elements)."""
    mask = np.isnan(self._array) if np.isnan(result._array) else self._array == result._array
    count = _const(np.int64(mask.sum()), grad)
    return _masked_fill_zeros(self._array.shape, mask, div(grad, count))


def value_selecting_reduction_backward(grad, dim, indices, sizes, keepdim):
    """zeros(sizes).scatter(dim, indices, grad)."""
    idx = indices._array
    if not keepdim and sizes:
        grad = unsqueeze(grad, dim)
        idx = np.expand_dims(idx, dim)
    return _scatter_zeros(S.ScatterBackward0, grad, sizes, dim, idx)


def pow_backward(grad, self, exponent):
    """torch's pow_backward: where x ** (y - 1) is inf or nan but the derivative is 0 (y == 0),
    the gradient is 0, so the double backward stays finite there too."""
    if exponent == 0:
        return zeros_like(self)
    return mul(grad, mul_scalar(pow(self, exponent - 1), exponent))


def pow_backward_self(grad, self, exponent):
    d = mul(grad, mul(exponent, pow(self, _sub_scalar(exponent, 1))))
    return where(_const(exponent._array == 0, grad), 0.0, d)


def pow_backward_exponent(grad, self, exponent, result):
    """torch's pow_backward_exponent: 0 where self == 0 and exponent >= 0 (log(0) is -inf there)."""
    x = self if self._array.dtype == result._array.dtype else to(self, result.dtype)
    zero = _const((self._array == 0) & (exponent._array >= 0), grad)
    return mul(grad, where(zero, 0.0, mul(result, log(x))))


def pow_backward_exponent_scalar(grad, self, exponent, result):
    """pow(Scalar self, Tensor exponent)'s gradient: grad * result * log(self); with self == 0,
    torch's where(exponent >= 0, 0, ...) (0 ** y is 0 or 1 exactly where y >= 0)."""
    token = _quiet()
    try:
        log_base = float(np.log(float(self)))
    finally:
        _loud(token)
    d = mul_scalar(result, log_base)
    if self == 0:
        d = where(_const(result._array <= 1, grad), 0.0, d)
    return mul(grad, d)


def mm_mat1_backward(grad, mat2, self):
    """torch's mm_mat1_backward: computed transposed where self is column-major."""
    return t(matmul(mat2, t(grad))) if _column_major(self) else matmul(grad, t(mat2))


def mm_mat2_backward(grad, self, mat2):
    """torch's mm_mat2_backward: computed transposed where mat2 is column-major."""
    return t(matmul(t(grad), self)) if _column_major(mat2) else matmul(t(self), grad)


def reshape_column(grad):
    """grad.reshape({n, 1}): mv's gradient for self is grad.ger(vec), that times vec."""
    return reshape(grad, (grad._array.shape[0], 1))


def bmm(self, mat2):
    return _matmul_kernel(S.BmmBackward0, self, mat2)


def permute_backwards(grad, dims):
    """grad permuted back by the inverse of permute's `dims`."""
    return permute(grad, tuple(int(i) for i in np.argsort(dims)))


def unsqueeze_to(grad, sizes, dim):
    """torch's unsqueeze_to: the gradient unsqueezed at each squeezed dimension (size 1 in the
    input, among the dims asked for: all of them for dim None), so a squeeze that removed
    nothing passes it through."""
    dims = range(len(sizes)) if dim is None else (dim,) if isinstance(dim, int) else dim
    for d in range(len(sizes)):
        if sizes[d] == 1 and d in dims:
            grad = unsqueeze(grad, d)
    return grad


def select_from_key(grad, key):
    """select_backward's gradient: grad.select(dim, index), as the key of the select recorded it."""
    key = key if isinstance(key, tuple) else (key,)
    return _select(grad, len(key) - 1, key[-1], len(key) - 1)


def slice_from_key(grad, key):
    """slice_backward's gradient: grad.slice(dim, start, end, step)."""
    key = key if isinstance(key, tuple) else (key,)
    return _slice(grad, len(key) - 1, key[-1])


def index_put_zeros(grad, key, values_shape, values_dtype):
    return _index_put_zeros(grad, key, values_shape, values_dtype)


def split_backward(grads, split_sizes, dim, sizes, dtype):
    """torch's split_backward: the gradients concatenated, zeros for an unused piece."""
    parts = []
    like = next(x for x in grads if x is not None)
    for g, size in builtins.zip(grads, split_sizes, strict=True):
        if g is None:
            part = list(sizes)
            part[dim] = size
            g = _wrap_new(like, tuple(part), dtype)
        parts.append(g)
    return cat(parts, dim)


def unbind_backward(grads, dim, sizes, dtype):
    """torch's unbind_backward: the gradients stacked, zeros for an unused piece."""
    part = sizes[:dim] + sizes[dim + 1:]
    like = next(x for x in grads if x is not None)
    return stack([g if g is not None else _wrap_new(like, part, dtype) for g in grads], dim)


def _wrap_new(like, shape, dtype):
    return _wrap(_backend.new(like, "zeros", shape, dtype), None)


def as_dtype(grad, dtype):
    """A gradient cast back to its input's dtype (of an op that promoted it), recorded under create_graph."""
    return grad if grad._array.dtype == dtype else to(grad, dtype=_from_numpy_dtype(dtype))


def to_copy_backward(grad, self_dtype, self_device):
    """_to_copy's gradient: back to the input's dtype and device."""
    return to(grad, dtype=self_dtype, device=self_device)


def stack_tensors_backward(grad, dim, dtypes, needs):
    """stack's gradient: grad.select(dim, i) per input, cast back to its dtype."""
    return tuple(as_dtype(_select(grad, dim, i, dim), dtypes[i]) if needs[i] else None for i in range(len(dtypes)))


def cat_tensors_backward(grad, sizes, dtypes, dim, needs):
    """torch's cat_tensors_backward: a slice per input, cast back to its dtype; a skipped input
    (size None: a 1-D empty tensor) gets an empty gradient."""
    out, start = [], 0
    for i, size in enumerate(sizes):
        if size is None:
            out.append(as_dtype(_wrap_new(grad, 0, grad._array.dtype), dtypes[i]) if needs[i] else None)
            continue
        out.append(as_dtype(_slice(grad, dim, slice(start, start + size)), dtypes[i]) if needs[i] else None)
        start += size
    return tuple(out)

# ==== issue 13: creation ====
# (the creation family's entries follow this line)

# ==== issue 13: unary ====
# (the unary family's entries follow this line)

# ==== issue 13: binary ====
# (the binary family's entries follow this line)

# ==== issue 13: reductions ====
# (the reductions family's entries follow this line)

# ==== issue 13: shape ====
# (the shape family's entries follow this line)
from ._ops import (flip, gather, index_add, index_fill, index_select, masked_scatter,  # noqa: E402
                   masked_scatter_backward, repeat_backward, roll, rot90, scatter, scatter_add, take, unfold,
                   unfold_backward, _put, masked_select, scatter_reduce, _compare)

__all__ += ["flip", "gather", "gather_backward", "index_add_source_backward", "index_copy_source_backward",
            "index_fill_value_backward", "index_fill_zero", "index_select_backward", "masked_fill_value_backward",
            "masked_scatter", "masked_scatter_backward", "masked_select_backward", "put_self_backward",
            "repeat_backward", "roll_backward", "rot90_backward", "scatter_reduce_backward_self",
            "scatter_reduce_backward_src", "scatter_zero", "take_backward", "take_reshape",
            "unfold", "unfold_backward", "zeros_of"]


def zeros_of(like, sizes):
    """A zero tensor (no gradient) of these sizes, like's dtype and device."""
    return _wrap(_backend.new(like._array, "zeros", tuple(sizes), like._array.dtype), like)


def scatter_zero(grad, dim, index):
    """grad.scatter(dim, index, 0): scatter's gradient for self (ScatterBackward1)."""
    return scatter(grad, dim, index, 0)


def gather_backward(grad, self, dim, index, sparse_grad):
    """upstream gather_backward: zeros of self's shape, scatter_add(dim, index, grad)."""
    return scatter_add(zeros_of(grad, self._array.shape), dim, index, grad)


def masked_fill_value_backward(grad, mask):
    """masked_fill's gradient for value: grad.masked_select(mask).sum()."""
    return sum(masked_select(grad, mask))


def index_select_backward(grad, sizes, dim, index):
    """upstream index_select_backward_symint: zeros(sizes).index_add(dim, index, grad)."""
    return index_add(zeros_of(grad, sizes), dim, index, grad)


def _picked(grad, dim, index, source, source_dim):
    """grad.index_select(dim, index).expand_as(source), or for a 0-d source
    grad.index_select(dim, index.squeeze(0)) (index_add's and index_copy's source formula)."""
    if source_dim > 0:
        return expand(index_select(grad, dim, index), source._array.shape)
    return index_select(grad, dim, squeeze(index, 0) if index._array.ndim else index)


def index_add_source_backward(grad, dim, index, source, source_dim, alpha):
    return maybe_multiply(_picked(grad, dim, index, source, source_dim), alpha)


def index_copy_source_backward(grad, dim, index, source, source_dim):
    return _picked(grad, dim, index, source, source_dim)


def index_fill_zero(grad, dim, index):
    """grad.index_fill(dim, index, 0): the filled positions get no gradient."""
    return index_fill(grad, dim, index, 0)


def index_fill_value_backward(grad, dim, index):
    """grad.index_select(dim, unique(index)).sum(): each filled position once."""
    unique = _const(np.unique(index._array.reshape(-1)), index)
    return sum(index_select(grad, dim, unique))


def masked_select_backward(grad, self, mask):
    """upstream masked_select_backward: zeros of the broadcast shape, masked_scatter'ed with grad
    (reduced to self's shape afterwards, as validate_outputs does)."""
    shape = np.broadcast_shapes(self._array.shape, mask._array.shape)
    return masked_scatter(zeros_of(grad, shape), mask, grad)


def take_backward(grad, self, index):
    """upstream take_backward: zeros_like(self).put_(index, grad, accumulate=True)."""
    return _put(zeros_of(grad, self._array.shape), index, grad, True)


def put_self_backward(grad, index, source, accumulate):
    return grad if accumulate else _put(grad, index, zeros_of(grad, source._array.shape), False)


def take_reshape(grad, index, source):
    """put's gradient for source: grad.take(index).reshape_as(source)."""
    return reshape(take(grad, index), source._array.shape)


def roll_backward(grad, shifts, dims):
    return roll(grad, tuple(-s for s in shifts), dims)


def rot90_backward(grad, k, dims):
    return rot90(grad, -k, dims)

def _eq(a, b):
    return _compare(np.equal, a, b)


def _as(t, like):
    """A bool mask as like's dtype (no gradient)."""
    return _const(t._array.astype(like._array.dtype), like)


def _scatter_reduce_backward(grad, self, dim, index, src, reduce, include_self, result, which):
    """upstream scatter_reduce_backward (FunctionsManual.cpp): the gradient of self (which 0) or src
    (which 1), in torchlite's differentiable ops."""
    if reduce == "sum":
        grad_self, grad_src = (grad, None) if which == 0 else (None, gather(grad, dim, index))
    elif reduce == "prod":
        if which == 0:
            masked_self = masked_fill(self, _eq(self, 0), 1)
            masked_self_result = scatter_reduce(masked_self, dim, index, src, reduce, include_self=include_self)
            grad_self = div(mul(grad, masked_self_result), masked_self)
        else:
            src_zero = _eq(src, 0)
            src_num_zeros = gather(scatter_add(zeros_of(grad, self._array.shape), dim, index, _as(src_zero, self)),
                                   dim, index)
            single = _const(src_zero._array & (src_num_zeros._array == 1), src)
            masked_src = masked_fill(src, single, 1)
            masked_src_result = scatter_reduce(self, dim, index, masked_src, reduce, include_self=include_self)
            grad_src = where(single, gather(mul(grad, masked_src_result), dim, index),
                             div(gather(mul(grad, result), dim, index), masked_fill(src, src_zero, 1)))
    elif reduce == "mean":
        n = _wrap_new(grad, grad._array.shape, grad._array.dtype)
        if include_self:
            n = _const(np.ones_like(grad._array), grad)
        n = scatter_add(n, dim, index, _const(np.ones_like(src._array), src))
        n = _const(np.where(n._array == 0, n._array.dtype.type(1), n._array), grad)
        if which == 0:
            grad_self = div(grad, n)
        else:
            grad_src = div(gather(grad, dim, index), gather(n, dim, index))
    elif reduce not in ("amax", "amin"):
        raise RuntimeError(f"Expected 'reduce' to be one of 'sum', 'prod', 'mean', 'amax', 'amin' but got {reduce}.")
    else:  # amax, amin: the gradient shared evenly among the elements equal to the result
        value = gather(result, dim, index)
        self_is_result = _as(_eq(self, result), self)
        src_is_result = _as(_eq(src, value), self)
        n_to_distribute = scatter_add(self_is_result, dim, index, src_is_result)
        grad_distributed = div(grad, n_to_distribute)
        if which == 0:
            grad_self = mul(self_is_result, grad_distributed)
        else:
            grad_src = mul(src_is_result, gather(grad_distributed, dim, index))
    if which == 0:
        return grad_self if include_self else scatter(grad_self, dim, index, 0)
    return grad_src


def scatter_reduce_backward_self(grad, self, dim, index, src, reduce, include_self, result):
    return _scatter_reduce_backward(grad, self, dim, index, src, reduce, include_self, result, 0)


def scatter_reduce_backward_src(grad, self, dim, index, src, reduce, include_self, result):
    return _scatter_reduce_backward(grad, self, dim, index, src, reduce, include_self, result, 1)


# ==== issue 13: linalg ====
# (the linalg family's entries follow this line)

# ==== issue 13: utilities ====
# (the utilities family's entries follow this line)

