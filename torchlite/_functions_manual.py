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
from ._ops import _column_major, _const, _gather, _index_add, _index_put_zeros, _index_select, _loud
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
    "evenly_distribute_backward", "expand_symint", "gather_backward", "gather_index", "getitem_raw",
    "index_add_source_backward", "index_backward", "index_put_zeros", "index_select_backward",
    "masked_fill", "masked_fill_value_backward", "matmul", "maybe_multiply", "mean_backward", "mean_dim_backward",
    "mm_mat1_backward", "mm_mat2_backward", "mul", "mul_scalar", "mul_tensor_backward", "neg", "permute_backwards",
    "pow_backward", "pow_backward_exponent", "pow_backward_exponent_scalar", "pow_backward_self", "reshape",
    "reshape_column", "saved_index_key", "select_backward_symint", "select_from_key", "sgn", "sigmoid_backward",
    "sin", "slice_backward_wrapper", "slice_from_key",
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
    """grad unsqueezed at the reduced dims (as saved: negative ones shown unsigned), expanded."""
    if not keepdim and sizes and dims:
        grad = _unsqueeze_multiple(grad, _wrap_dims(dims, len(sizes)))
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
    dim = maybe_wrap_dim(dim, sizes)  # as saved (a negative dim shows unsigned)
    if not keepdim and sizes:
        grad = unsqueeze(grad, dim)
        idx = np.expand_dims(idx, dim)
    return _scatter_zeros(S.ScatterBackward0, grad, sizes, dim, idx)


def gather_index(grad, dim, index):
    """grad.gather(dim, index): scatter's gradient for src."""
    return _gather(grad, dim, index)


def gather_backward(grad, sizes, dim, index):
    """zeros(sizes).scatter_add(dim, index, grad)."""
    return _scatter_zeros(S.ScatterAddBackward0, grad, sizes, dim, index)


def masked_fill_value_backward(grad, mask):
    """masked_fill's gradient for value: grad.masked_select(mask).sum()."""
    return sum(getitem_raw(grad, _const(mask, grad)))


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


def select_backward_symint(grad, input_sizes, dim, index):
    """select's gradient: zeros of the input's sizes, with grad at `index` along `dim`."""
    return index_backward(grad, input_sizes, (slice(None),) * dim + (index,), True, "SelectBackward")


def slice_backward_wrapper(grad, input_sizes, dim, start, end, step):
    """slice's gradient: zeros of the input's sizes, with grad in the slice start:end:step along `dim`."""
    return index_backward(grad, input_sizes, (slice(None),) * dim + (slice(start, end, step),), True,
                          "SliceBackward")


def select_from_key(grad, key):
    """select_backward's gradient: grad.select(dim, index), as the key of the select recorded it."""
    key = key if isinstance(key, tuple) else (key,)
    return _select(grad, len(key) - 1, key[-1], len(key) - 1)


def slice_from_key(grad, key):
    """slice_backward's gradient: grad.slice(dim, start, end, step)."""
    key = key if isinstance(key, tuple) else (key,)
    return _slice(grad, len(key) - 1, key[-1])


def index_add_source_backward(grad, index):
    """index_add's gradient for source: grad.index_select(0, index).expand_as(source)."""
    picked = _index_select(grad, index)
    return expand(picked, picked._array.shape)


def index_select_backward(grad, size, index):
    return _index_add(grad, size, index)


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
from ._C import is_grad_enabled as _is_grad_enabled  # noqa: E402
from ._ops import (abs as _abs, cumprod as _cumprod, cumsum as _cumsum, exp as _exp,  # noqa: E402
                   mean as _mean, narrow as _narrow, prod as _prod, sub as _sub)
from ._ops import _U64  # noqa: E402

__all__ += [
    "cummaxmin_backward", "cumprod_backward", "cumsum_backward", "linalg_vector_norm_backward",
    "logsumexp_backward", "maybe_wrap_dim", "nansum_backward", "norm_backward", "prod_backward",
    "restore_reduced_dims", "reversed_cumsum", "scale_grad_by_count", "std_backward", "std_mean_backward",
    "var_backward", "var_mean_backward"]


def maybe_wrap_dim(dim, sizes):
    """A saved dim (as the op was called; torch shows a negative one as 2**64 + dim) wrapped to
    `sizes`' dims (a 0-d tensor has dim 0)."""
    dim = dim - _U64 if dim >= 1 << 63 else dim
    return dim % builtins.max(len(sizes), 1)


def _wrap_dims(dims, ndim):
    """A saved dim list wrapped and sorted; None (no dims given) is every dim."""
    if dims is None:
        return tuple(range(ndim))
    return tuple(sorted(maybe_wrap_dim(d, (0,) * ndim) for d in dims))


def _ones(shape, like):
    return _const(np.ones(shape, like._array.dtype), like)


def _flip(t, dim):
    """t.flip(dim), differentiably (an index along dim, reversed)."""
    n = t._array.shape[dim]
    return getitem_raw(t, (slice(None),) * dim + (_const(np.arange(n - 1, -1, -1), t),))


def reversed_cumsum(w, dim):
    """w.flip(dim).cumsum(dim).flip(dim)."""
    return _flip(_cumsum(_flip(w, dim), dim), dim)


def cumsum_backward(grad, dim):
    dim = maybe_wrap_dim(dim, grad._array.shape)
    if grad._array.size <= 1 or grad._array.shape[dim] == 1:
        return grad
    return reversed_cumsum(grad, dim)


def cumprod_backward(grad, input, dim, output):  # noqa: A002 - upstream's name
    """torch's cumprod_backward: without zeros, reversed_cumsum(output * grad) / input; with zeros,
    the product of the other inputs, one slice at a time (upstream's O(n^2) path, which it runs
    under grad mode; its O(n) path without gives the same values)."""
    a = input._array
    if a.size <= 1:
        return grad
    dim = maybe_wrap_dim(dim, a.shape)
    n = a.shape[dim]
    if n == 1:
        return grad
    if not (a == 0).any():
        return div(reversed_cumsum(mul(output, grad), dim), input)
    if not _is_grad_enabled():
        return _cumprod_backward_zeros(grad, input, dim, output)
    ones_size = list(a.shape)
    ones_size[dim] = 1
    ones = _ones(tuple(ones_size), grad)
    parts = []
    for k in range(n):
        if k == 0:
            omitted = cat([ones, _cumprod(_slice(input, dim, slice(1, None)), dim)], dim)
        elif k == n - 1:
            omitted = _prod(_slice(input, dim, slice(0, k)), dim, True)
        else:
            until_k = _prod(_slice(input, dim, slice(0, k)), dim, True)
            from_k = _cumprod(_slice(input, dim, slice(k + 1, None)), dim)
            omitted = cat([until_k, mul(expand(until_k, from_k._array.shape), from_k)], dim)
        parts.append(sum(mul(_slice(grad, dim, slice(k, None)), omitted), dim))
    return stack(parts, dim)


def _cumprod_backward_zeros(grad, input, dim, output):  # noqa: A002 - upstream's name
    """cumprod_backward's O(n) path (no grad mode, some input 0): before a slice's first zero,
    reversed_cumsum(output * grad) / input; at the first zero, the product of the inputs before it
    times the sum of grad_k * prod(inputs after it, up to k) up to the second zero; 0 after it."""
    x, g = input._array, grad._array
    token = _quiet()
    try:
        w = output._array * g
        zeros_so_far = np.cumsum(x == 0, axis=dim)
        before = zeros_so_far == 0
        rc = np.flip(np.cumsum(np.flip(np.where(before, w, 0), dim), dim), dim)
        res = np.where(before, rc / np.where(before, x, 1), 0).astype(g.dtype)
        segment = zeros_so_far == 1
        first_zero = segment & (x == 0)
        inner = np.sum(np.where(segment, g * np.cumprod(np.where(segment & ~first_zero, x, 1), dim), 0), dim,
                       keepdims=True)
        prefix = np.prod(np.where(before, x, 1), dim, keepdims=True)
        res = np.where(first_zero, prefix * inner, res).astype(g.dtype)
    finally:
        _loud(token)
    return _const(res, grad)


def cummaxmin_backward(grad, input, indices, dim):  # noqa: A002 - upstream's name
    """zeros(input.sizes()).scatter_add_(dim, indices, grad)."""
    if input._array.size == 0:
        return grad
    return gather_backward(grad, input._array.shape, maybe_wrap_dim(dim, input._array.shape), indices._array)


def _prod_safe_zeros_backward(grad, inp, dim):
    """The product of the other elements of each slice: exclusive cumulative products from both ends."""
    a = inp._array
    if a.size == 0:
        return expand(grad, a.shape)
    n = a.shape[dim]
    if n == 1:
        return grad
    ones_size = list(a.shape)
    ones_size[dim] = 1
    ones = _ones(tuple(ones_size), grad)
    exclusive_normal = _cumprod(cat([ones, _narrow(inp, dim, 0, n - 1)], dim), dim)
    narrow_reverse = _flip(_narrow(inp, dim, 1, n - 1), dim)
    exclusive_reverse = _flip(_cumprod(cat([ones, narrow_reverse], dim), dim), dim)
    return mul(grad, mul(exclusive_normal, exclusive_reverse))


def prod_backward(grad, input, result, dim=None, keepdim=False):  # noqa: A002 - upstream's name
    """torch's prod_backward (the formula's self.to(grad.scalar_type()) here): result / input
    where no input is 0, else the products of the other elements."""
    x = as_dtype(input, grad._array.dtype)
    a = x._array
    if a.ndim == 0:
        return grad
    if dim is None:
        zeros = int((a == 0).sum())
        if zeros == 0:
            return mul(grad, div(result, x))
        if not _is_grad_enabled() and zeros > 1:
            return zeros_like(x)
        return reshape(_prod_safe_zeros_backward(grad, reshape(x, (-1,)), 0), a.shape)
    dim = maybe_wrap_dim(dim, a.shape)
    if not keepdim:
        grad = unsqueeze(grad, dim)
        result = unsqueeze(result, dim)
    if not (a == 0).any():
        return mul(grad, div(result, x))
    return _prod_safe_zeros_backward(grad, x, dim)


def var_backward(grad, self, dim, correction, keepdim):
    """(2 / (n - correction)) * grad * (self - self.mean(dim, keepdim=True))."""
    a = self._array
    c = 1 if correction is None else correction
    if a.ndim == 0 or dim is None:
        dof = a.size - c
        if dof <= 0:
            mask = (a == _mean(self)._array)
            return mul(grad, _const(np.where(mask, np.nan, np.inf).astype(a.dtype), self))
        return mul(mul_scalar(grad, 2.0 / dof), _sub(self, _mean(self)))
    dims = _wrap_dims(dim, a.ndim)
    if not keepdim and a.ndim > 1:
        grad = _unsqueeze_multiple(grad, dims)
    rnumel = 1
    for d in dims:
        rnumel *= a.shape[d]
    token = _quiet()
    try:
        scale = float(np.float64(2.0) / np.float64(rnumel - c))
    finally:
        _loud(token)
    return mul(mul_scalar(grad, scale), _sub(self, _mean(self, dims, True)))


def std_backward(result, grad, self, dim, correction, keepdim):
    """var_backward of grad / (2 * result), 0 where result is 0."""
    grad_var = div(grad, mul_scalar(result, 2))
    grad_var = masked_fill(grad_var, _const(result._array == 0, grad_var), 0)
    return var_backward(grad_var, self, dim, correction, keepdim)


def _mean_backward_dims(grad, self, dim, keepdim):
    """mean_backward(grad, self.sym_sizes(), dim.value_or([]), self.sym_numel(), keepdim): the
    gradient spread evenly over the reduced elements (every element for no dims)."""
    a = self._array
    dims = _wrap_dims(dim, a.ndim) if dim else ()
    n = a.size
    if dims:
        n = 1
        for d in dims:
            n *= a.shape[d]
    return div_scalar(sum_backward(grad, a.shape, dims, keepdim), n)


def var_mean_backward(gvar, gmean, self, dim, correction, keepdim):
    """var_backward of the variance's gradient plus mean_backward of the mean's (either may be None)."""
    gself = None
    if gvar is not None:
        gself = var_backward(gvar, self, dim, correction, keepdim)
    if gmean is not None:
        aux = _mean_backward_dims(gmean, self, dim, keepdim)
        gself = aux if gself is None else add(gself, aux)
    return gself


def std_mean_backward(gstd, gmean, self, std, dim, correction, keepdim):
    """std_backward of the deviation's gradient plus mean_backward of the mean's (either may be None)."""
    gself = None
    if gstd is not None:
        gself = std_backward(std, gstd, self, dim, correction, keepdim)
    if gmean is not None:
        aux = _mean_backward_dims(gmean, self, dim, keepdim)
        gself = aux if gself is None else add(gself, aux)
    return gself


def logsumexp_backward(grad, self, result, dim, keepdim):
    """grad * (self - result).exp(), the reduced dims restored."""
    if not keepdim and self._array.ndim:
        dims = _wrap_dims(dim, self._array.ndim)
        grad = _unsqueeze_multiple(grad, dims)
        result = _unsqueeze_multiple(result, dims)
    return mul(grad, _exp(_sub(self, result)))


def restore_reduced_dims(output, dims, keepdim):
    """output reshaped with a 1 at each reduced dim."""
    if keepdim:
        return output
    shape = output._array.shape
    total = len(shape) + len(dims)
    target = [0] * total
    for d in dims:
        target[maybe_wrap_dim(d, (0,) * total)] = 1
    j = 0
    for s in shape:
        while target[j] > 0:
            j += 1
        target[j] = s
        j += 1
    return reshape(output, tuple(target))


def scale_grad_by_count(grad, mask, dims):
    """(grad / mask.sum(dims, keepdim=True)) * mask: amax / amin's gradient split evenly among the
    elements equal to the result."""
    ndim = mask._array.ndim
    return mul(div(grad, sum(mask, tuple(maybe_wrap_dim(d, (0,) * ndim) for d in dims), True)), mask)


def _broadcast_mask(mask_array, shape):
    return np.broadcast_to(mask_array, shape)


def norm_backward(grad, self, p, norm, dim, keepdim):
    """torch's norm_backward: the gradient of the p-norm over `dim` (every dim where empty)."""
    a = self._array
    p = float(p)
    if not keepdim and a.ndim:
        dims = _wrap_dims(dim, a.ndim) if dim else ()
        grad = _unsqueeze_multiple(grad, dims)
        norm = _unsqueeze_multiple(norm, dims)
    if p == 0.0:
        return None
    if p == 1.0:
        return mul(sgn(self), grad)
    if p == 2.0:
        scaled = div(self, norm)
        return mul(grad, masked_fill(scaled, _const(_broadcast_mask(norm._array == 0, scaled._array.shape), scaled), 0))
    if np.isinf(p):
        self_abs = _abs(self)
        mask = _const((self_abs._array == norm._array) | np.isnan(self_abs._array), self)
        dims = _wrap_dims(dim, a.ndim) if dim else tuple(range(a.ndim))
        return mul(sgn(self), mul(div(grad, sum(mask, dims, True)), mask))
    if p < 1.0:
        powed = pow(_abs(self), p - 1)
        self_scaled = mul(sgn(self), masked_fill(powed, _const(a == 0, powed), 0))
        return mul(mul(self_scaled, grad), pow(norm, 1 - p))
    if p < 2.0:
        self_scaled = mul(sgn(self), pow(_abs(self), p - 1))
    else:
        self_scaled = mul(self, pow(_abs(self), p - 2))
    scale_v = div(grad, pow(norm, p - 1))
    scale_v = masked_fill(scale_v, _const(_broadcast_mask(norm._array == 0, scale_v._array.shape), scale_v), 0)
    return mul(self_scaled, scale_v)


def linalg_vector_norm_backward(grad, self, ord, result, dim, keepdim):  # noqa: A002 - upstream's name
    return norm_backward(grad, self, ord, result, () if dim is None else dim, keepdim)


def nansum_backward(grad, self, dim, keepdim):
    """sum_backward(grad, ...) * self.isnan().logical_not()."""
    a = self._array
    g = sum_backward(grad, a.shape, _wrap_dims(dim, a.ndim) if dim else tuple(range(a.ndim)), keepdim)
    return mul(g, _const(~np.isnan(a), self))

# ==== issue 13: shape ====
# (the shape family's entries follow this line)

# ==== issue 13: linalg ====
# (the linalg family's entries follow this line)

# ==== issue 13: utilities ====
# (the utilities family's entries follow this line)
