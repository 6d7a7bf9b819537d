"""The helpers the derivative formulas call (upstream: torch/csrc/autograd/FunctionsManual.cpp),
under upstream's names where upstream has one, written in torchlite's differentiable ops so that
create_graph=True differentiates through them. tools/autograd/derivatives.yaml's formulas call
these; the ones marked `native` there have C++ versions of the same name in
csrc/autograd/FunctionsManual.cpp."""
import builtins
import threading

import numpy as np

from . import _backend
from ._dtypes import _from_numpy_dtype
from ._ops import _add_scalar as add_scalar
from ._C import _wrap
from ._generated import specs as S
from ._ops import _const, _index_add, _index_put_zeros, _loud
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
    "reshape_column", "saved_index_key", "select_backward_symint", "sgn", "sigmoid_backward", "sin",
    "slice_backward_wrapper",
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


def mm_mat1_backward(grad, mat2, sizes, strides, layout, alpha):
    """torch's mm_mat1_backward (FunctionsManual.cpp): computed transposed where mat1 was
    column-major (its saved sizes and strides: strides[0] == 1 and strides[1] == sizes[0]), times alpha."""
    column = strides[0] == 1 and strides[1] == sizes[0]
    return maybe_multiply(t(matmul(mat2, t(grad))) if column else matmul(grad, t(mat2)), alpha)


def mm_mat2_backward(grad, mat1, sizes, strides, layout, alpha):
    """torch's mm_mat2_backward: computed transposed where mat2 was column-major, times alpha."""
    column = strides[0] == 1 and strides[1] == sizes[0]
    return maybe_multiply(t(matmul(t(grad), mat1)) if column else matmul(t(mat1), grad), alpha)


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
    dims = [d % len(sizes) if len(sizes) else d for d in dims]  # squeeze_ saves its dim as given
    for d in range(len(sizes)):
        if sizes[d] == 1 and d in dims:
            grad = unsqueeze(grad, d)
    return grad


def select_backward_symint(grad, input_sizes, dim, index):
    """select's gradient: zeros of the input's sizes, with grad at `index` along `dim` (saved as given)."""
    dim %= len(input_sizes)
    return index_backward(grad, input_sizes, (slice(None),) * dim + (index,), True, "SelectBackward")


def slice_backward_wrapper(grad, input_sizes, dim, start, end, step):
    """slice's gradient: zeros of the input's sizes, with grad in the slice start:end:step along `dim`."""
    # upstream's wrapper: an omitted start is 0, an omitted end INT64_MAX (what slice_backward saves)
    start, end = 0 if start is None else start, 2 ** 63 - 1 if end is None else end
    dim %= len(input_sizes)  # (saved as given)
    return index_backward(grad, input_sizes, (slice(None),) * dim + (slice(start, end, step),), True,
                          "SliceBackward")


def index_put_zeros(grad, key, values_shape, values_dtype):
    return _index_put_zeros(grad, key, values_shape, values_dtype)


def split_backward(grads, split_sizes, dim, sizes, dtype):
    """torch's split_backward: the gradients concatenated, zeros for an unused piece. split.Tensor
    passes its split_size: the pieces of that size, the last one the remainder (at least one piece)."""
    if isinstance(split_sizes, int):
        n = builtins.max((sizes[dim] + split_sizes - 1) // split_sizes, 1) if split_sizes else 1
        split_sizes = [split_sizes] * (n - 1) + [sizes[dim] - split_sizes * (n - 1)]
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
    dim %= len(sizes)  # (saved as given)
    part = sizes[:dim] + sizes[dim + 1:]
    like = next(x for x in grads if x is not None)
    return stack([g if g is not None else _wrap_new(like, part, dtype) for g in grads], dim)


def _wrap_new(like, shape, dtype):
    return _wrap(_backend.new(like, "zeros", shape, dtype), like)  # on like's device


def as_dtype(grad, dtype):
    """A gradient cast back to its input's dtype (of an op that promoted it), recorded under create_graph."""
    return grad if grad._array.dtype == dtype else to(grad, dtype=_from_numpy_dtype(dtype))


def to_copy_backward(grad, self_dtype, self_device):
    """_to_copy's gradient: back to the input's dtype and device."""
    return to(grad, dtype=self_dtype, device=self_device)


def stack_tensors_backward(grad, dim, dtypes, needs):
    """stack's gradient: grad.select(dim, i) per input, cast back to its dtype."""
    dim %= grad.dim()  # (saved as given)
    return tuple(as_dtype(_select(grad, dim, i, dim), dtypes[i]) if needs[i] else None for i in range(len(dtypes)))


def cat_tensors_backward(grad, sizes, dtypes, dim, needs):
    """torch's cat_tensors_backward: a slice per input, cast back to its dtype; a skipped input
    (size None: a 1-D empty tensor) gets an empty gradient."""
    out, start = [], 0
    if grad.dim():
        dim %= grad.dim()  # (saved as given)
    for i, size in enumerate(sizes):
        if size is None:
            out.append(as_dtype(_wrap_new(grad, 0, grad._array.dtype), dtypes[i]) if needs[i] else None)
            continue
        out.append(as_dtype(_slice(grad, dim, slice(start, start + size)), dtypes[i]) if needs[i] else None)
        start += size
    return tuple(out)

# ==== issue 13: creation ====
# (the creation family's entries follow this line)
from ._ops import tril, triu  # noqa: E402

__all__ += ["tril", "triu"]


def zeros_symint(sizes, grad):
    """at::zeros_symint(sizes, grad.options()): zeros of `sizes` in grad's dtype, on its device
    (a constant: nothing to differentiate under create_graph)."""
    return _wrap(_backend.new(grad, "zeros", tuple(sizes), grad._array.dtype), grad)


__all__ += ["zeros_symint"]

# ==== issue 13: unary ====
# (the unary family's entries follow this line)
from . import _C  # noqa: E402 - the unary family's section
from ._ops import cosh, erfinv, exp, rsqrt, sinh  # noqa: E402
from ._ops import _sub_scalar as sub_scalar  # noqa: E402, F401 - acosh's formula
from ._ops import sub  # noqa: E402

__all__ += ["cosh", "erfinv", "exp", "grad_mode_is_enabled", "infinitely_differentiable_logit_backward", "isfinite",
            "log1p_backward", "logit_backward", "not_implemented", "rsqrt", "scalar_sub", "sgn_backward",
            "sinc_backward", "sinh", "sub_scalar"]


def scalar_sub(c, t):
    """upstream's `c - t` in C++ (TensorOperators.h: empty_like(t).fill_(c).sub_(t)): the number as a
    constant tensor, node SubBackward0."""
    return sub(_const(np.full(t._array.shape, c, t._array.dtype), t), t)


def not_implemented(name):
    """upstream's not_implemented: a formula that refuses (asinh_'s node, AsinhBackward1)."""
    raise NotImplementedError(f"the derivative for '{name}' is not implemented.")


def grad_mode_is_enabled():
    """GradMode::is_enabled(): true while a backward with create_graph=True runs its formulas."""
    return _C.is_grad_enabled()


def log1p_backward(grad, self):
    """grad / (self + 1)."""
    return div(grad, add_scalar(self, 1))


def sgn_backward(self, grad, result):
    """sgn's gradient: 0 for a real input (upstream's _efficientzerotensor of the result's shape)."""
    return zeros_like(result)


def isfinite(self):
    """at::isfinite(self): a bool tensor (nan_to_num's gradient is grad * isfinite(self))."""
    a = self._array
    return _const(np.isfinite(a) if a.dtype.kind == "f" else np.ones(a.shape, bool), self)


def _logit_mask(self, eps):
    a = self._array
    lo, hi = (0.0, 1.0) if eps is None else (eps, 1.0 - eps)
    return _const((a >= lo) & (a <= hi), self)


def infinitely_differentiable_logit_backward(grad, self, eps):
    """logit's gradient in differentiable ops (under create_graph): grad / (self * (1 - self)) where
    self lies in [eps, 1 - eps] ([0, 1] without eps), else 0 (nan without eps)."""
    d = div(grad, mul(self, scalar_sub(1.0, self)))
    return where(_logit_mask(self, eps), d, 0.0 if eps is not None else float("nan"))


def logit_backward(grad, self, eps):
    """at::logit_backward's CPU kernel (what a first-order backward runs, grad mode off): outside
    [eps, 1 - eps] 0 ([0, 1] without eps: nan), else grad / (self * (1 - self)); its comparisons
    are false for nan, so a nan input gives nan where the differentiable form gives 0."""
    a = self._array
    lo, hi = (0.0, 1.0) if eps is None else (eps, 1.0 - eps)
    d = div(grad, mul(self, scalar_sub(1.0, self)))
    return where(_const((a < lo) | (a > hi), self), 0.0 if eps is not None else float("nan"), d)


def sinc_backward(grad, self):
    """grad * ((pi x cos(pi x) - sin(pi x)) / (pi x ** 2)), 0 where pi x ** 2 is 0 (the quotient
    first, as upstream's graph records it)."""
    self_pi = mul_scalar(self, np.pi)
    self_squared_pi = mul_scalar(mul(self, self), np.pi)
    # the sine before `self_pi * cos(self_pi)`: upstream's compiled `a - b` evaluates b first, and the
    # order the nodes are made in is the order a double backward sums their gradients in
    sine = sin(self_pi)
    out = mul(grad, div(sub(mul(self_pi, cos(self_pi)), sine), self_squared_pi))
    return where(_const(self_squared_pi._array == 0, grad), 0.0, out)

# ==== issue 13: binary ====
# (the binary family's entries follow this line)
from ._ops import _compare  # noqa: E402 - the binary family's imports, in its section
from ._ops import div_mode as _div_mode  # noqa: E402
from ._ops import rsub, xlogy  # noqa: E402

__all__ += ["clamp_backward", "clamp_backward_max", "clamp_backward_min", "div_rounding",
            "div_tensor_other_backward_mode", "div_tensor_self_backward_mode", "eq_mask", "exp", "fmax_mask",
            "fmin_mask", "ge_mask", "gt_mask", "le_mask", "lt_mask", "not_implemented_node", "rsub", "sub",
            "where_tie_half", "xlogy", "xlogy_mask", "xlogy_scalar_other_backward"]


def div_rounding(self, other, rounding_mode):
    """self.div(other, rounding_mode=...) inside a formula (fmod's and remainder's gradients)."""
    return _div_mode(self, other, rounding_mode=rounding_mode)


def div_tensor_self_backward_mode(grad, other, self_st, rounding_mode):
    """div_tensor_self_backward with a rounding mode: zeros where the quotient is rounded (its
    derivative is 0 almost everywhere), else grad / other."""
    if rounding_mode is not None:
        return zeros_like(grad, dtype=_from_numpy_dtype(self_st))
    return div(grad, other)


def div_tensor_other_backward_mode(grad, self, other, rounding_mode):
    """div_tensor_other_backward with a rounding mode: zeros where rounded, else -grad * ((self / other) / other)."""
    if rounding_mode is not None:
        return zeros_like(grad, dtype=_from_numpy_dtype(other._array.dtype))
    return mul(neg(grad), div(div(self, other), other))


def not_implemented_node(name):
    """The backward of torch::autograd::NotImplemented (an op without a derivative formula)."""
    raise RuntimeError(f"derivative for {name} is not implemented")


def ge_mask(self, other):
    """self >= other: a bool tensor, never differentiable (other a tensor or a number)."""
    return _compare(np.greater_equal, self, other)


def le_mask(self, other):
    return _compare(np.less_equal, self, other)


def gt_mask(self, other):
    return _compare(np.greater, self, other)


def lt_mask(self, other):
    return _compare(np.less, self, other)


def eq_mask(self, other):
    return _compare(np.equal, self, other)


def where_tie_half(grad, self, other):
    """where(self == other, grad / 2, grad): maximum's and minimum's gradient splits evenly at a tie."""
    return where(eq_mask(self, other), div_scalar(grad, 2), grad)


def _bool_const(mask, like):
    return _const(mask, like)


def clamp_backward(grad, self, min, max):  # noqa: A002 - upstream's names
    """torch's clamp_backward: grad where min <= self <= max (a bound None: no limit that side), else 0
    (the subgradient 1 at a bound)."""
    if min is not None and max is not None:
        mask = _bool_const(ge_mask(self, min)._array & le_mask(self, max)._array, grad)
    elif min is not None:
        mask = ge_mask(self, min)
    elif max is not None:
        mask = le_mask(self, max)
    else:
        return grad
    return where(mask, grad, 0.0)


def clamp_backward_min(grad, self, min, max):  # noqa: A002
    """clamp_backward_min_max's gradient for min: grad where self < min (and min < max: where the
    bounds cross, max decides), else 0."""
    if max is not None:
        mask = _bool_const(lt_mask(self, min)._array & lt_mask(min, max)._array, grad)
    else:
        mask = lt_mask(self, min)
    return where(mask, grad, 0.0)


def clamp_backward_max(grad, self, min, max):  # noqa: A002
    """clamp_backward_min_max's gradient for max: grad where self > max or max < min, else 0."""
    if min is not None:
        mask = _bool_const(gt_mask(self, max)._array | lt_mask(max, min)._array, grad)
    else:
        mask = gt_mask(self, max)
    return where(mask, grad, 0.0)


def fmax_mask(self, other, for_self):
    """Where fmax's gradient is 0: for self, unless self >= other or other is nan; for other, there."""
    picked_self = (self._array >= other._array) | np.isnan(other._array)
    return _bool_const(~picked_self if for_self else picked_self, self)


def fmin_mask(self, other, for_self):
    picked_self = (self._array <= other._array) | np.isnan(other._array)
    return _bool_const(~picked_self if for_self else picked_self, self)


def xlogy_mask(self, other):
    """(self == 0) & (other <= 0): where xlogy's gradient for self is 0 (the limit of x * log(y))."""
    return _bool_const((eq_mask(self, 0.0)._array & le_mask(other, 0.0)._array), self)


def xlogy_scalar_other_backward(grad, self, other):
    """xlogy.Scalar_Other's gradient for self: xlogy(grad, other), 0 where self == 0 unless other > 0."""
    g = xlogy(grad, other)
    if float(other) > 0:
        return g
    return masked_fill(g, eq_mask(self, 0.0), 0.0)


# ==== issue 13: reductions ====
# (the reductions family's entries follow this line)
from ._C import is_grad_enabled as _is_grad_enabled  # noqa: E402
from ._ops import (cumprod as _cumprod, cumsum as _cumsum, exp as _exp,  # noqa: E402
                   mean as _mean, narrow as _narrow, prod as _prod, sub as _sub)

__all__ += [
    "cummaxmin_backward", "cumprod_backward", "cumsum_backward",
    "logsumexp_backward", "maybe_wrap_dim", "nansum_backward", "prod_backward",
    "restore_reduced_dims", "reversed_cumsum", "scale_grad_by_count", "std_backward", "std_mean_backward",
    "var_backward", "var_mean_backward"]


def maybe_wrap_dim(dim, sizes):
    """A saved dim (as the op was called) wrapped to `sizes`' dims (a 0-d tensor has dim 0)."""
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
    return scatter_add(zeros_of(grad, input._array.shape), maybe_wrap_dim(dim, input._array.shape), indices, grad)


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


def nansum_backward(grad, self, dim, keepdim):
    """sum_backward(grad, ...) * self.isnan().logical_not()."""
    a = self._array
    g = sum_backward(grad, a.shape, _wrap_dims(dim, a.ndim) if dim else tuple(range(a.ndim)), keepdim)
    return mul(g, _const(~np.isnan(a), self))

# ==== issue 13: shape ====
# (the shape family's entries follow this line)
from ._ops import (flip, gather, index_add, index_fill, index_select, masked_scatter,  # noqa: E402
                   masked_scatter_backward, repeat_backward, roll, rot90, scatter, scatter_add, take, unfold,
                   unfold_backward, _put, masked_select, scatter_reduce)

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
# The spectral factorisations' backwards (svd, eigh, qr, pinv, lstsq; FunctionsManual.cpp's
# svd_backward, linalg_eig_backward, linalg_qr_backward, pinv_backward, linalg_lstsq_backward),
# real inputs; an undefined gradient of an output is None. Names they read are bound below in
# this section (module globals, looked up when called).
__all__ += ["linalg_eig_backward", "linalg_lstsq_backward", "linalg_qr_backward", "pinv_backward", "svd_backward",
            "svd_narrow"]


def svd_narrow(full_matrices, x, dim, k):
    """_linalg_svd's formula's `full_matrices && x.defined() ? x.narrow_symint(dim, 0, k) : x`."""
    return _narrow_linalg(x, dim, 0, k) if full_matrices and x is not None else x


def _skew(x):
    return sub(x, _mH(x))


def _fill_diag_one(E):
    """E (zero on its diagonal) with ones there: E.diagonal().fill_(1), differentiably in E."""
    n = E._array.shape[-1]
    return add(E, _const_linalg(np.eye(n, dtype=E._array.dtype), E))


def svd_backward(gU, gS, gVh, U, S, Vh):
    """torch's svd_backward: gA = U [(skew(U^H gU) S + S skew(V^H gV)) / E + diag(gS)] V^H,
    E_ij = S_j^2 - S_i^2 (1 on the diagonal), with the terms of a tall U or a wide Vh outside
    the span; gS alone: U diag(gS) V^H. Repeated singular values make E zero: the result is then
    inf / nan, as torch's (a loss that depends on the singular vectors is ill-defined there)."""
    if gS is None and gU is None and gVh is None:
        return None
    m, n = U._array.shape[-2], Vh._array.shape[-1]
    if gU is None and gVh is None:
        if m >= n:
            return matmul(U, mul(unsqueeze(gS, -1), Vh))
        return matmul(mul(U, unsqueeze(gS, -2)), Vh)
    UhgU = _skew(matmul(_mH(U), gU)) if gU is not None else None
    VhgV = _skew(matmul(Vh, _mH(gVh))) if gVh is not None else None
    S2 = mul(S, S)
    E = _fill_diag_one(sub(unsqueeze(S2, -2), unsqueeze(S2, -1)))
    if UhgU is not None and VhgV is not None:
        gA = div(add(mul(UhgU, unsqueeze(S, -2)), mul(unsqueeze(S, -1), VhgV)), E)
    elif UhgU is not None:
        gA = mul(div(UhgU, E), unsqueeze(S, -2))
    else:
        gA = mul(unsqueeze(S, -1), div(VhgV, E))
    if gS is not None:
        gA = add(gA, _diag_embed_vec(gS))
    if m > n and gU is not None:
        gA = matmul(U, gA)
        gUSinv = div(gU, unsqueeze(S, -2))
        gA = sub(add(gA, gUSinv), matmul(U, matmul(_mH(U), gUSinv)))
        return matmul(gA, Vh)
    if m < n and gVh is not None:
        gA = matmul(gA, Vh)
        SinvgVh = div(gVh, unsqueeze(S, -1))
        gA = sub(add(gA, SinvgVh), matmul(matmul(SinvgVh, _mH(Vh)), Vh))
        return matmul(U, gA)
    return matmul(U, matmul(gA, Vh)) if m >= n else matmul(matmul(U, gA), Vh)


def _diag_embed_vec(d):
    """diag_embed(d): the matrices with d on their diagonal."""
    n = d._array.shape[-1]
    return mul(unsqueeze(d, -1), _const_linalg(np.eye(n, dtype=d._array.dtype), d))


def linalg_eig_backward(gL, gV, L, V, is_hermitian):
    """torch's linalg_eig_backward, the Hermitian case (eigh): gA = V (diag(gL) + skew'(V^H gV) / E) V^H,
    skew' the projection 0.5 (X - X^H), E_ij = L_j - L_i (1 on the diagonal)."""
    if gL is None and gV is None:
        return None
    if gV is None:
        return matmul(mul(V, unsqueeze(gL, -2)), _mH(V))
    VhgV = matmul(_mH(V), gV)
    VhgV = mul_scalar(sub(VhgV, _mH(VhgV)), 0.5)
    E = _fill_diag_one(sub(unsqueeze(L, -2), unsqueeze(L, -1)))
    gA = div(VhgV, E)
    if gL is not None:
        gA = add(gA, _diag_embed_vec(gL))
    return matmul(V, matmul(gA, _mH(V)))


def _qr_backward_square(gQ, gR, Q, R):
    """A = Q R with R square (m >= n): gA = (gQ + Q copyltu(R gR^H - gQ^H Q)) R^{-H}."""
    if gQ is not None:
        M = sub(matmul(gR, _mH(R)), matmul(_mH(Q), gQ)) if gR is not None else neg(matmul(_mH(Q), gQ))
    else:
        M = matmul(gR, _mH(R))
    X = triu(M)
    sym = sub(add(X, _mH(X)), _diag_embed_vec(diagonal(M, 0, -2, -1)))
    rhs = matmul(Q, sym)
    if gQ is not None:
        rhs = add(rhs, gQ)
    return linalg_solve(_mH(R), rhs, left=False)


def linalg_qr_backward(gQ, gR, Q, R, mode):
    """torch's linalg_qr_backward: refused for mode='r' (no Q) and for a complete factorisation of
    a tall matrix (Q's last columns undetermined); a wide A = Q [X | Y] differentiates X's square
    factorisation with gQ + Y gR_Y^H and Y = Q R_Y as a product."""
    if mode == "r":
        raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please "
                           "use linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.")
    m, n = Q._array.shape[-2], R._array.shape[-1]
    if mode == "complete" and m > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
    if gQ is None and gR is None:
        return None
    if m >= n:
        return _qr_backward_square(gQ, gR, Q, R)
    RX, RY = _narrow_linalg(R, -1, 0, m), _narrow_linalg(R, -1, m, n - m)
    gRX = _narrow_linalg(gR, -1, 0, m) if gR is not None else None
    gRY = _narrow_linalg(gR, -1, m, n - m) if gR is not None else None
    gQ2 = gQ
    if gRY is not None:
        t = matmul(matmul(Q, RY), _mH(gRY))
        gQ2 = t if gQ2 is None else add(gQ2, t)
    gX = _qr_backward_square(gQ2, gRX, Q, RX)
    gY = matmul(Q, gRY) if gRY is not None else mul_scalar(matmul(Q, RY), 0.0)
    return cat([gX, gY], -1)


def pinv_backward(grad, pinvA, A):
    """torch's pinv_backward (Golub & Pereyra), written with the smaller of the two products."""
    m, n = A._array.shape[-2:]
    pinvAh, gradh = _mH(pinvA), _mH(grad)
    if m <= n:
        K = matmul(gradh, pinvA)
        KpinvAh = matmul(K, pinvAh)
        gA = sub(add(neg(_mH(matmul(pinvA, K))), KpinvAh), matmul(matmul(A, pinvA), KpinvAh))
        return add(gA, matmul(matmul(pinvAh, pinvA), sub(gradh, matmul(K, A))))
    K = matmul(pinvA, gradh)
    pinvAhK = matmul(pinvAh, K)
    return sub(add(add(neg(_mH(matmul(K, pinvA))), matmul(matmul(sub(gradh, matmul(A, K)), pinvA), pinvAh)),
                   pinvAhK), matmul(matmul(pinvAhK, pinvA), A))


def linalg_lstsq_backward(gX, gL, A, B, X, needs):
    """torch's linalg_lstsq_backward: the solution's gradient through pinv(A) (gB = pinv(A)^H gX,
    gA = pinv_backward(gX B^H)); the residuals' |A X - B|^2 (X optimal) add 2 R diag(gL) X^H to gA
    and -2 R diag(gL) to gB. Vectors as one-column matrices."""
    has_gL = gL is not None and gL._array.size > 0
    if (gX is None and not has_gL) or not (needs[0] or needs[1]):
        return None, None
    vector = A._array.ndim - B._array.ndim == 1  # (as the forward: a right-hand side one dim short)
    Bm = unsqueeze(B, -1) if vector else B
    Xm = unsqueeze(X, -1) if vector else X
    gA = gB = None
    if gX is not None:
        gXm = unsqueeze(gX, -1) if vector else gX
        pinvA = _linalg_pinv_op(A)
        if needs[0]:
            gA = pinv_backward(matmul(gXm, _mH(Bm)), pinvA, A)
        if needs[1]:
            gB = matmul(_mH(pinvA), gXm)
    if has_gL:
        # (the residuals keep a vector right-hand side's column)
        Rm = mul_scalar(mul(sub(matmul(A, Xm), Bm), unsqueeze(gL, -2)), 2.0)
        if needs[0]:
            t = matmul(Rm, _mH(Xm))
            gA = t if gA is None else add(gA, t)
        if needs[1]:
            gB = neg(Rm) if gB is None else sub(gB, Rm)
    if vector and gB is not None:
        gB = squeeze(gB, -1)
    return gA, gB


def _linalg_pinv_op(A):
    return _pinv_linalg(A)


from ._ops import _const as _const_linalg  # noqa: E402 - the linalg family's imports, in its section
from ._ops import abs as abs_  # noqa: E402
from ._ops import linalg_cross, linalg_solve, mv, outer  # noqa: E402
from ._ops import narrow as _narrow_linalg  # noqa: E402
from ._ops import linalg_pinv as _pinv_linalg  # noqa: E402
from ._ops.BatchLinearAlgebra import _lu_solve  # noqa: E402
from ._C import is_grad_enabled as _grad_mode  # noqa: E402
import math  # noqa: E402

__all__ += ["addbmm_expand", "cholesky_backward", "linalg_cross", "linalg_det_backward", "linalg_solve_backward",
            "linalg_vector_norm_backward", "mv", "outer", "slogdet_backward", "trace_backward_symint"]


def addbmm_expand(grad, batch1):
    """addbmm's gradient expanded over the batch: grad.unsqueeze(0).expand({b, n, p})."""
    return expand(unsqueeze(grad, 0), (batch1._array.shape[0],) + grad._array.shape)


def trace_backward_symint(grad, sizes):
    """torch's trace_backward: zeros(n * m) with grad at the diagonal's flat indices (torch's
    index_fill_, here an index_add of grad expanded), viewed as the input (ViewBackward0)."""
    n = builtins.min(sizes)
    flat = np.arange(n, dtype=np.int64) * (sizes[1] + 1)
    return reshape(_index_add(expand(grad, (n,)), sizes[0] * sizes[1], flat), sizes)


def _mH(x):
    return transpose(x, -2, -1)


def _diag_embed(d, n):
    """diag_embed(d.unsqueeze(-1).expand(..., n)): d times the identity, differentiably in d."""
    eye = _const_linalg(np.eye(n, dtype=d._array.dtype), d)
    return mul(unsqueeze(unsqueeze(d, -1), -1), eye)


def _solve_for_cofactors(A, LU, pivots, d):
    """linalg_det_backward's / slogdet_backward's solve: X with A^H X = d I (d per matrix).
    Under grad mode A's solve is recorded (so that a second derivative sees A); without it,
    with the saved LU (lu_solve), a zero pivot replaced by eps (torch's perturbation of a
    singular A, whose det gradient is then the limit's)."""
    n = A._array.shape[-1]
    if _grad_mode():
        return linalg_solve(_mH(A), _diag_embed(d, n))
    lu = LU._array
    diag = np.diagonal(lu, axis1=-2, axis2=-1)
    if (diag == 0).any():
        eps = np.finfo(lu.dtype).eps
        lu = lu + np.eye(n, dtype=lu.dtype) * np.where(diag == 0, eps, 0)[..., None, :]
    rhs = np.broadcast_to(np.eye(n, dtype=lu.dtype), lu.shape) * d._array[..., None, None]
    # LU is of A^T where A is contiguous (then A^T X = rhs directly), else of A (its adjoint)
    x = _lu_solve(lu, pivots._array, rhs, adjoint=not A._array.flags.c_contiguous)
    return _const_linalg(np.ascontiguousarray(x.astype(lu.dtype, copy=False)), d)


def linalg_det_backward(grad, result, A, LU, pivots):
    """torch's linalg_det_backward: (grad * det) A^{-H}, through a solve with A^H."""
    return _solve_for_cofactors(A, LU, pivots, mul(grad, result))


def slogdet_backward(grad_logabsdet, A, sign, LU, pivots):
    """torch's slogdet_backward (real A: the sign's gradient is zero): grad A^{-H}."""
    return _solve_for_cofactors(A, LU, pivots, grad_logabsdet)


def linalg_solve_backward(gX, X, A, LU, pivots, left, needs):
    """torch's linalg_solve_backward: gB = A^{-H} gX (left; gX A^{-H} right), gA = -gB X^H
    (left; -X^H gB right); vectors as one-column matrices."""
    vector = X._array.ndim == 1 or (A._array.ndim - 1 == X._array.ndim and
                                    X._array.shape == A._array.shape[:-1])
    gXm = unsqueeze(gX, -1) if vector else gX
    Xm = unsqueeze(X, -1) if vector else X
    gB = linalg_solve(_mH(A), gXm, left=left)
    gA = None
    if needs[0]:
        gA = neg(matmul(gB, _mH(Xm)) if left else matmul(_mH(Xm), gB))
    if vector:
        gB = squeeze(gB, -1)
    return gA, gB if needs[1] else None


def _tril(x, k=0):
    """x.tril(k) as a product with a constant mask (differentiable in x)."""
    n, m = x._array.shape[-2:]
    return mul(x, _const_linalg(np.tri(n, m, k, dtype=x._array.dtype), x))


def cholesky_backward(gL, upper, L):
    """torch's cholesky_backward (Iain Murray, arXiv 1602.07527): gA = L^{-H} Phi(L^H gL) L^{-1},
    Phi taking the lower triangle with the diagonal halved, symmetrised."""
    if upper:
        L, gL = _mH(L), _mH(gL)
    gA = _tril(matmul(_mH(L), gL))
    gA = mul_scalar(add(gA, _mH(_tril(gA, -1))), 0.5)
    gA = linalg_solve(_mH(L), gA)
    return linalg_solve(L, gA, left=False)


def linalg_vector_norm_backward(grad, self, ord, result, dim, keepdim):  # noqa: A002 - torch's name
    """torch's linalg_vector_norm_backward (norm_backward): the reduced dims restored, then per ord:
    0 zero, 1 sgn(x) g, 2 g x / norm (0 where the norm is 0), inf the sgn of the elements at the
    max shared evenly, else sgn(x) |x|^(p-1) g / norm^(p-1) (and p < 1's masked zeros)."""
    a = self._array
    nd = a.ndim
    dims = tuple(range(nd)) if dim is None or len(dim) == 0 else tuple(d % nd if nd else 0 for d in dim)
    norm = result
    if not keepdim and nd:
        grad = _unsqueeze_multiple(grad, dims)
        norm = _unsqueeze_multiple(norm, dims)
    p = float(ord)
    if p == 0.0:
        return None  # upstream returns an undefined gradient: self gets none
    if p == 1.0:
        return mul(sgn(self), grad)
    n = norm._array
    if p == 2.0:
        return mul(grad, masked_fill(div(self, norm), _const_linalg(np.broadcast_to(n == 0, a.shape), self), 0))
    if math.isinf(p):
        mask = (np.abs(a) == n) | np.isnan(a)
        count = mask.sum(axis=dims if nd else None, keepdims=True).astype(a.dtype)
        scaled = mul(div(grad, _const_linalg(count, grad)), _const_linalg(mask.astype(a.dtype), grad))
        return mul(sgn(self), scaled)
    if p < 1.0:
        scaled = mul(sgn(self), masked_fill(pow(abs_(self), p - 1), _const_linalg(a == 0, self), 0))
        return mul(mul(scaled, grad), pow(norm, 1 - p))
    if p < 2.0:
        scaled = mul(sgn(self), pow(abs_(self), p - 1))
    else:
        scaled = mul(self, pow(abs_(self), p - 2))
    scale_v = masked_fill(div(grad, pow(norm, p - 1)), _const_linalg(n == 0, norm), 0)
    return mul(scaled, scale_v)

# ==== issue 13: utilities ====
# (the utilities family's entries follow this line)

# ==== issue 14: rng ====
# (the rng family's entries follow this line)

# ==== issue 14: serialization ====
# (the serialization family's entries follow this line)

# ==== issue 14: autograd ====
# (the autograd family's entries follow this line)
__all__ += ["not_implemented_multi", "select_symint", "slice_symint", "unsqueeze"]


def not_implemented_multi(name, grads):
    """The backward of torch::autograd::NotImplemented for an op of several outputs."""
    raise RuntimeError(f"derivative for {name} is not implemented")


def select_symint(grad, dim, index):
    """upstream's grad.select_symint(dim, index) (select_backward's formula)."""
    return _select(grad, dim, index, dim)


def slice_symint(grad, dim, start, end, step):
    """upstream's grad.slice_symint(dim, start, end, step) (slice_backward's formula)."""
    return _slice(grad, dim, slice(start, end, step))


# ==== issue 12: args ====
# (the args family's entries follow this line)

# ==== issue 15: functional ====
# (the functional family's entries follow this line)
from ._ops import _scaled_dot_product_flash_attention_for_cpu_backward as _flash_cpu_backward  # noqa: E402


def flash_attention_for_cpu_backward_masked(grad, query, key, value, output, logsumexp, dropout_p, is_causal,
                                            attn_mask, scale, needs, k):
    """ScaledDotProductFlashAttentionForCpuBackward0: one _scaled_dot_product_flash_attention_for_cpu_backward
    for query, key and value (upstream's single formula for the three), its output k."""
    return _once((grad, query), needs, k, lambda: _flash_cpu_backward(
        grad, query, key, value, output, logsumexp, dropout_p, is_causal, attn_mask=attn_mask, scale=scale))


from ._ops import _log_softmax_backward_data, _softmax_backward_data  # noqa: E402, F401 - softmax's formulas


def softmax_double_backward(grad, grad_output, dim, output):
    """FunctionsManual.cpp's softmax_double_backward: output's gradient through _softmax_backward_data."""
    return sub(sub(mul(grad_output, grad), mul(sum(mul(output, grad_output), dim, True), grad)),
               mul(grad_output, sum(mul(output, grad), dim, True)))


def log_softmax_double_backward_grad_output(grad, output, dim):
    """derivatives.yaml's _log_softmax_backward_data grad_output formula: grad - (grad * output.exp()).sum(dim)."""
    return sub(grad, sum(mul(grad, exp(output)), dim, True))


def log_softmax_double_backward_output(grad, grad_output, dim, output):
    """derivatives.yaml's _log_softmax_backward_data output formula: -grad_output.sum(dim) * output.exp() * grad."""
    return mul(mul(neg(sum(grad_output, dim, True)), exp(output)), grad)


from ._ops import (elu_backward, gelu_backward, glu_backward, hardshrink_backward,  # noqa: E402, F401 - formulas
                   hardsigmoid_backward, hardswish_backward, hardtanh_backward, leaky_relu_backward,
                   log_sigmoid_backward, narrow, sigmoid, softplus, softplus_backward, softshrink_backward, tanh)


from ._ops import embedding_dense_backward  # noqa: E402


def embedding_backward_symint(grad, indices, num_weights, padding_idx, scale_grad_by_freq, sparse):
    """at::embedding_backward: the dense gradient (torchlite has no sparse tensors)."""
    if sparse:
        raise RuntimeError("embedding(sparse=True): torchlite has no sparse tensors, so it cannot make the sparse "
                           "gradient torch makes; use sparse=False")
    return embedding_dense_backward(grad, indices, num_weights, padding_idx, scale_grad_by_freq)


def embedding_dense_double_backward_symint(grad, indices, padding_idx):
    """FunctionsManual.cpp's: grad's rows picked by indices (zero at padding_idx), viewed as indices' shape + [-1]."""
    flat = reshape(indices, (-1,))
    gg = index_select(grad, 0, flat)
    if padding_idx >= 0:
        mask = _const((flat._array == padding_idx).reshape(-1, 1) & np.ones(gg._array.shape, dtype=bool), gg)
        gg = masked_fill(gg, mask, 0)
    return reshape(gg, (*indices._array.shape, -1))


from ._ops import (binary_cross_entropy_backward, huber_loss_backward, log_sigmoid, logit,  # noqa: E402, F401
                   mse_loss_backward, nll_loss, nll_loss2d, nll_loss2d_backward, nll_loss_backward,
                   smooth_l1_loss_backward)

_MEAN = 1  # at::Reduction::Mean


def mse_loss_double_backward(grad, input, reduction):  # noqa: A002 - upstream's names
    """FunctionsManual.cpp's: 2 * grad, divided by input's numel for a mean."""
    r = mul_scalar(grad, 2.0)
    return div_scalar(r, input._array.size) if reduction == _MEAN else r


def smooth_l1_loss_double_backward(grad, input, target, reduction, beta):  # noqa: A002 - upstream's names
    """FunctionsManual.cpp's: grad * (|input - target| < beta) / beta (0 for beta 0), / numel for a mean."""
    if beta == 0:
        return zeros_like(grad)
    d = abs_(sub(input, target))
    r = div_scalar(mul(grad, _mask(d._array < beta, grad)), beta)
    return div_scalar(r, input._array.size) if reduction == _MEAN else r


def huber_loss_double_backward(grad, input, target, reduction, delta):  # noqa: A002 - upstream's names
    """FunctionsManual.cpp's: grad * (|input - target| < delta), / numel for a mean."""
    d = abs_(sub(input, target))
    r = mul(grad, _mask(d._array < delta, grad))
    return div_scalar(r, input._array.size) if reduction == _MEAN else r


from ._ops import soft_margin_loss_backward  # noqa: E402, F401 - its formulas


def soft_margin_loss_double_backward(grad, input, target, reduction):  # noqa: A002 - upstream's names
    """FunctionsManual.cpp's: grad * target^2 * z / (1 + z)^2, z = exp(-target * input), / numel for a mean."""
    z = exp(mul(neg(target), input))
    r = div(mul(mul(grad, mul(target, target)), z), pow(add_scalar(z, 1.0), 2))
    return div_scalar(r, input._array.size) if reduction == _MEAN else r


def _times_weight(t, weight):
    return t if weight is None else mul(t, weight)


def binary_cross_entropy_target_backward(grad, self, target, weight, reduction):
    """FunctionsManual.cpp's: -logit(self) * grad (* weight), / numel for a mean."""
    r = _times_weight(mul(neg(logit(self)), grad), weight)
    return div_scalar(r, target._array.size) if reduction == _MEAN else r


def binary_cross_entropy_double_backward(grad_output, grad, input, target, weight, reduction):  # noqa: A002
    """FunctionsManual.cpp's binary_cross_entropy_double_backward (the input's second derivative)."""
    eps = 1e-12
    inp_pl_eps = add_scalar(input, eps)
    one_m_inp_pl_eps = add_scalar(scalar_sub(1.0, input), eps)
    num = add(sub(mul(input, input), mul_scalar(mul(input, target), 2.0)), target)
    gi = div(num, mul(pow(inp_pl_eps, 2), pow(one_m_inp_pl_eps, 2)))
    gi = _times_weight(mul(gi, mul(grad, grad_output)), weight)
    return div_scalar(gi, input._array.size) if reduction == _MEAN else gi


def binary_cross_entropy_double_backward_grad_output(grad, input, target, weight, reduction):  # noqa: A002
    """FunctionsManual.cpp's: (input - target) / ((input + eps) * (1 - input + eps)) (* weight), contracted
    with grad (summed, / numel for a mean, unless reduction is none)."""
    eps = 1e-12
    ggo = div(sub(input, target), mul(add_scalar(input, eps), add_scalar(scalar_sub(1.0, input), eps)))
    ggo = _times_weight(ggo, weight)
    if reduction == 0:
        return mul(ggo, grad)
    r = sum(mul(ggo, grad))
    return div_scalar(r, input._array.size) if reduction == _MEAN else r


def binary_cross_entropy_double_backward_target(grad, grad_output, self, target, weight, reduction):
    """FunctionsManual.cpp's: -grad * grad_output (* weight) / clamp_min((1 - self) * self, 1e-12)."""
    res = _times_weight(mul(neg(grad), grad_output), weight)
    denom = mul(scalar_sub(1.0, self), self)
    denom_array = np.maximum(denom._array, 1e-12)  # (clamped under no_grad upstream)
    res = div(res, _const(denom_array.astype(denom._array.dtype), denom))
    return div_scalar(res, self._array.size) if reduction == _MEAN else res


def binary_cross_entropy_with_logits_backward(grad, input, target, weight, pos_weight, reduction):  # noqa: A002
    """FunctionsManual.cpp's: (sigmoid(x) - target), or ((pos_weight * target + 1 - target) * sigmoid(x) -
    pos_weight * target) with pos_weight, times grad (* weight), / numel for a mean."""
    if pos_weight is not None:
        t = mul(pos_weight, target)
        gi = sub(mul(sub(add_scalar(t, 1.0), target), sigmoid(input)), t)
    else:
        gi = sub(sigmoid(input), target)
    gi = _times_weight(mul(gi, grad), weight)
    return div_scalar(gi, input._array.size) if reduction == _MEAN else gi


def binary_cross_entropy_with_logits_target_backward(grad_output, self, target, weight, pos_weight, reduction):
    """FunctionsManual.cpp's: (log_sigmoid(-x) - log_sigmoid(x) * pos_weight) * grad, or -x * grad (* weight),
    / numel for a mean."""
    if pos_weight is not None:
        gt = mul(sub(log_sigmoid(neg(self)), mul(log_sigmoid(self), pos_weight)), grad_output)
    else:
        gt = mul(neg(self), grad_output)
    gt = _times_weight(gt, weight)
    return div_scalar(gt, target._array.size) if reduction == _MEAN else gt


def _mask(cond, like):
    """A 0/1 constant of like's dtype (a comparison's `.type_as(grad)` in upstream's formulas)."""
    return _const(cond.astype(like._array.dtype), like)


def elu_double_backward(grad, grad_output, alpha, scale, input_scale, is_result, self_or_result):
    """FunctionsManual.cpp's elu_double_backward."""
    neg_mask = _mask(self_or_result._array < 0, grad)
    if is_result:
        return mul(mul_scalar(mul(grad, grad_output), input_scale), neg_mask)
    return mul(elu_backward(mul_scalar(mul(grad, grad_output), input_scale), alpha, scale, input_scale, is_result,
                            self_or_result), neg_mask)


_GELU_SQRT_HALF_OVER_SQRT_PI = 0.5 * 2.0 / np.sqrt(np.pi) * np.sqrt(0.5)  # M_2_SQRTPI * M_SQRT1_2 * 0.5
_GELU_BETA = np.sqrt(2.0) * 2.0 / np.sqrt(np.pi) * 0.5
_GELU_KAPPA = 0.044715


def gelu_double_backward(ggI, gO, input, approximate):  # noqa: A002 - upstream's names
    """FunctionsManual.cpp's gelu_double_backward: ggI * gO * gelu''(input)."""
    if approximate == "tanh":
        x2 = mul(input, input)
        inner = mul_scalar(add(input, mul_scalar(mul(x2, input), _GELU_KAPPA)), _GELU_BETA)
        t = tanh(inner)
        g = scalar_sub(1.0, mul(t, t))
        h = mul_scalar(add_scalar(mul_scalar(x2, 3 * _GELU_KAPPA), 1.0), _GELU_BETA)
        f = mul_scalar(input, 0.5)
        f_prime_gh = mul(mul_scalar(g, 0.5), h)
        g_prime_fh = mul(mul(f, h), mul_scalar(mul(mul(g, t), h), -2.0))  # d/dx (1 - tanh^2(inner))
        h_prime_fg = mul(mul(f, g), mul_scalar(input, 6 * _GELU_KAPPA * _GELU_BETA))
        return mul(mul(ggI, gO), add(add(add(f_prime_gh, f_prime_gh), g_prime_fh), h_prime_fg))
    x2 = mul(input, input)
    pdf = mul_scalar(exp(mul_scalar(x2, -0.5)), _GELU_SQRT_HALF_OVER_SQRT_PI)
    return mul(mul(ggI, gO), sub(mul_scalar(pdf, 2.0), mul(x2, pdf)))


def infinitely_differentiable_silu_backward(grad_output, input):  # noqa: A002 - upstream's names
    """FunctionsManual.cpp's: grad_output * sigmoid * (1 + input * (1 - sigmoid))."""
    sig = sigmoid(input)
    return mul(mul(grad_output, sig), add_scalar(mul(input, scalar_sub(1.0, sig)), 1.0))


def infinitely_differentiable_mish_backward(grad_output, input):  # noqa: A002 - upstream's names
    """FunctionsManual.cpp's: grad_output * (tanh(softplus(x)) + x * sigmoid(x) * (1 - tanh(softplus(x))^2))."""
    sig = sigmoid(input)
    ts = tanh(softplus(input))
    return mul(grad_output, add(ts, mul(mul(input, sig), scalar_sub(1.0, mul(ts, ts)))))


def softplus_double_backward(grad, input, beta, threshold):  # noqa: A002 - upstream's names
    """FunctionsManual.cpp's: sigmoid_backward(grad, (input * beta).sigmoid()) * (x < threshold) * beta."""
    x = mul_scalar(input, beta)
    return mul_scalar(mul(sigmoid_backward(grad, sigmoid(x)), _mask(x._array < threshold, grad)), beta)


def hardswish_double_backward(grad, grad_output, self):
    """derivatives.yaml's hardswish_backward self formula: where(-3 < self < 3, grad * grad_output / 3, 0)."""
    a = self._array
    return mul(div_scalar(mul(grad, grad_output), 3.0), _mask((a > -3.0) & (a < 3.0), grad))


def log_sigmoid_double_backward(grad, input):  # noqa: A002 - upstream's names
    """FunctionsManual.cpp's: grad * (z - 1) * z, z = sigmoid(input)."""
    z = sigmoid(input)
    return mul(mul(grad, add_scalar(z, -1.0)), z)


def glu_double_backward(grad, grad_output, input, dim):  # noqa: A002 - upstream's names
    """FunctionsManual.cpp's glu_double_backward."""
    gO = grad_output
    n = input._array.shape[dim] // 2
    first, second = narrow(input, dim, 0, n), narrow(input, dim, n, n)
    sig = sigmoid(second)
    one_sub_sig = scalar_sub(1.0, sig)
    sig_one_sub_sig = mul(sig, one_sub_sig)
    gg_first, gg_second = narrow(grad, dim, 0, n), narrow(grad, dim, n, n)
    gi_first = mul(mul(gg_second, gO), sig_one_sub_sig)
    second_order = sub(mul(sig_one_sub_sig, one_sub_sig), mul(sig, sig_one_sub_sig))
    gi_second = add(mul(mul(mul(gg_second, first), gO), second_order), mul(mul(gg_first, gO), sig_one_sub_sig))
    return cat([gi_first, gi_second], dim)


def glu_double_backward_grad_output(grad, input, dim):  # noqa: A002 - upstream's names
    """FunctionsManual.cpp's: grad * glu_backward(ones, input, dim), its two halves added."""
    dim = dim % input._array.ndim
    sizes = list(input._array.shape)
    sizes[dim] //= 2
    ones = _const(np.ones(sizes, dtype=input._array.dtype), input)
    tmp = mul(grad, glu_backward(ones, input, dim))
    return add(narrow(tmp, dim, 0, sizes[dim]), narrow(tmp, dim, sizes[dim], sizes[dim]))


# ==== issue 15: conv ====
# (the conv family's entries follow this line)
from ._ops import _trilinear  # noqa: E402, F401 - bilinear's op and its own gradients
from ._ops import upsample_bicubic2d, upsample_bicubic2d_backward  # noqa: E402, F401
from ._ops import col2im, im2col  # noqa: E402, F401 - F.fold / F.unfold, each the other's derivative
from ._ops import _embedding_bag_backward, _embedding_bag_per_sample_weights_backward  # noqa: E402, F401


def _embedding_bag_backward_symint(grad, indices, offsets, offset2bag, bag_size, maximum_indices, num_weights,
                                   scale_grad_by_freq, mode, sparse, per_sample_weights, padding_idx):
    """at::_embedding_bag_backward_symint (EmbeddingBag.cpp): the dense weight gradient."""
    return _embedding_bag_backward(grad, indices, offsets, offset2bag, bag_size, maximum_indices, num_weights,
                                   scale_grad_by_freq, mode, sparse, per_sample_weights, padding_idx)


from ._ops import constant_pad_nd_backward, convolution, convolution_backward  # noqa: E402
from ._ops import expand as _expand, reshape as _reshape  # noqa: E402


_conv_backward_last = threading.local()


def convolution_backward_masked(grad, input, weight, bias_sizes, stride, padding, dilation,  # noqa: A002
                                transposed, output_padding, groups, needs, k):
    """Output k of convolution_backward(..., output_mask=needs): upstream's ConvolutionBackward0
    calls convolution_backward once for all its inputs' gradients (grad_input_mask), which the
    table's one-formula-per-input form asks for one input at a time; the first asks for all and
    the others take their part of the same call (one node under create_graph, as upstream's)."""
    mask = [bool(n) for n in needs]
    last = getattr(_conv_backward_last, "value", None)
    if last is not None and last[0] is grad and last[1] is input and last[2] is weight and k in last[4]:
        last[4].discard(k)
        if not last[4]:
            _conv_backward_last.value = None
        return last[3][k]
    outs = convolution_backward(grad, input, weight, bias_sizes, stride, padding, dilation, transposed,
                                output_padding, groups, mask)
    rest = {i for i, m in enumerate(mask) if m and i != k}
    _conv_backward_last.value = (grad, input, weight, outs, rest) if rest else None
    return outs[k]


def _convolution_double_backward(ggI, ggW, ggb, gO, weight, input, stride, padding, dilation,  # noqa: A002
                                 transposed, output_padding, groups, output_mask):
    """FunctionsManual's _convolution_double_backward: (ggO, gI, gW), the gradients of
    convolution_backward's (grad_output, input, weight) given those of its outputs (ggI, ggW, ggb;
    None where unused), where output_mask asks. A convolution is bilinear in (input, weight), so
    each is again a convolution or a convolution_backward, differentiable in turn."""
    ggO = gI = gW = None
    args = (stride, padding, dilation, transposed, output_padding, groups)
    if output_mask[0]:
        if ggI is not None:
            ggO = convolution(ggI, weight, None, *args)
        if ggW is not None:
            term = convolution(input, ggW, None, *args)
            ggO = term if ggO is None else add(ggO, term)
        if ggb is not None:
            shape = [1] * len(gO.shape)
            shape[1] = ggb.shape[0]
            term = _expand(_reshape(ggb, shape), list(gO.shape))
            ggO = term if ggO is None else add(ggO, term)
    if output_mask[1] and ggW is not None:
        gI = convolution_backward(gO, input, ggW, None, *args, [True, False, False])[0]
    if output_mask[2] and ggI is not None:
        gW = convolution_backward(gO, ggI, weight, None, *args, [False, True, False])[1]
    return ggO, gI, gW


from ._ops import avg_pool2d, avg_pool2d_backward, max_pool2d_with_indices_backward  # noqa: E402
from ._ops import _adaptive_avg_pool2d, _adaptive_avg_pool2d_backward  # noqa: E402, F401 - formulas
from ._ops import (upsample_bilinear2d, upsample_bilinear2d_backward, upsample_linear1d,  # noqa: E402, F401
                   upsample_linear1d_backward, upsample_nearest1d, upsample_nearest1d_backward, upsample_nearest2d,
                   upsample_nearest2d_backward)
from ._ops import (reflection_pad1d, reflection_pad1d_backward, reflection_pad2d,  # noqa: E402, F401 - formulas
                   reflection_pad2d_backward, replication_pad1d, replication_pad1d_backward, replication_pad2d,
                   replication_pad2d_backward)


def max_pool_double_backward(grad, indices, dim):
    """FunctionsManual's max_pool_double_backward: the gradient's gradient read at each output's
    maximum, a gather over each flattened plane of `dim` dimensions."""
    nd = len(indices.shape)
    flat_grad = _reshape(grad, list(grad.shape[:nd - dim]) + [-1])
    flat_indices = _reshape(indices, list(indices.shape[:nd - dim]) + [-1])
    return _reshape(gather(flat_grad, -1, flat_indices), list(indices.shape))


from ._ops import (native_batch_norm_backward, native_group_norm_backward,  # noqa: E402
                   native_layer_norm_backward)
from ._ops import Normalization as _Normalization  # noqa: E402

_ENGINE = _C._ImperativeEngine()
_norm_last = threading.local()


def _once(key, needs, k, compute):
    """Output k of compute(), which a node's formula asks for once per input: the first call computes
    every gradient `needs` asks for (upstream's grad_input_mask), the others take theirs."""
    last = getattr(_norm_last, "value", None)
    if last is not None and len(last[0]) == len(key) and all(a is b for a, b in zip(last[0], key, strict=True)) \
            and k in last[2]:
        last[2].discard(k)
        if not last[2]:
            _norm_last.value = None
        return last[1][k]
    outs = compute()
    rest = {i for i, m in enumerate(needs) if m and i != k}
    _norm_last.value = (key, outs, rest) if rest else None
    return outs[k]


def native_layer_norm_backward_masked(grad, input, normalized_shape, mean, rstd, weight, bias, eps, needs,  # noqa: A002
                                      k):
    """NativeLayerNormBackward0: one native_layer_norm_backward for every input that needs a gradient
    (bias passed on as upstream's formula does, so the node saves it)."""
    return _once((grad, input), needs, k, lambda: native_layer_norm_backward(
        grad, input, normalized_shape, mean, rstd, weight, bias, [bool(n) for n in needs], eps=eps))


def native_batch_norm_backward_masked(grad, input, weight, running_mean, running_var, save_mean,  # noqa: A002
                                      save_invstd, training, eps, needs, k):
    """NativeBatchNormBackward0: one native_batch_norm_backward for every input that needs a gradient."""
    return _once((grad, input), needs, k, lambda: native_batch_norm_backward(
        grad, input, weight, running_mean, running_var, save_mean, save_invstd, training, eps,
        [bool(n) for n in needs]))


def native_group_norm_backward_masked(grad, input, mean, rstd, weight, N, C, HxW, group, eps, needs, k):  # noqa: A002, N803
    """NativeGroupNormBackward0: one native_group_norm_backward for every input that needs a gradient;
    under create_graph upstream's infinitely_differentiable_native_group_norm_backward instead, the
    composition itself (its parameters' gradients end in a view, as upstream's)."""
    if _is_grad_enabled():
        def composite():
            gi, gw, gb = _Normalization._first_order("group", grad, input, weight, (mean, rstd, N, C, HxW, group, eps),
                                                     [bool(n) for n in needs])
            return (gi, None if gw is None else _reshape(gw, [C]), None if gb is None else _reshape(gb, [C]))
        return _once((grad, input), needs, k, composite)
    return _once((grad, input), needs, k, lambda: native_group_norm_backward(
        grad, input, mean, rstd, weight, N, C, HxW, group, [bool(n) for n in needs], eps=eps))


def norm_double_backward(kind, grads, grad_out, input, weight, args, needs, k):  # noqa: A002
    """The native_*_norm_backward nodes' formula (upstream's layer_norm_double_backward,
    batchnorm_double_backward, group norm's): the first derivative recomposed from torchlite ops
    under grad mode, its statistics recomputed from the input so that their own dependence is
    differentiated, and differentiated by the engine (a reentrant backward) toward (grad_out, input,
    weight) with the gradients `grads` of its outputs. It differentiates through aliases of the three
    (view_as, so create_graph still reaches them): partial derivatives, as upstream's formulas. grad_out
    may itself depend on input (a loss of the output), and differentiating toward input itself would
    also follow grad_out's history, which the outer backward follows too: twice."""
    def compute():
        create = _is_grad_enabled()
        previous = _C.is_grad_enabled()
        _C._set_grad_enabled(True)
        try:
            wrt = tuple(t.view_as(t) if t is not None and t.requires_grad else t for t in (grad_out, input, weight))
            first = _Normalization._first_order(kind, *wrt, args, [True, True, True])
            outs, grad_outs = [], []
            for o, g in zip(first, grads, strict=True):
                if o is not None and g is not None and o.requires_grad:
                    outs.append(o)
                    grad_outs.append(g)
            targets = [(i, t) for i, (t, n) in enumerate(zip(wrt, needs, strict=True))
                       if n and t is not None and t.requires_grad]
            result = [None, None, None]
            if outs and targets:
                got = _ENGINE.run_backward(tuple(outs), tuple(grad_outs), create, create,
                                           tuple(t for _, t in targets), True, accumulate_grad=False)
                for (i, _), g in zip(targets, got, strict=True):
                    result[i] = g
            return tuple(result)
        finally:
            _C._set_grad_enabled(previous)
    return _once((grads, input), needs, k, compute)


__all__ += ["upsample_bilinear2d", "upsample_bilinear2d_backward", "upsample_linear1d", "upsample_linear1d_backward",
            "upsample_nearest1d", "upsample_nearest1d_backward", "upsample_nearest2d", "upsample_nearest2d_backward"]
__all__ += ["_adaptive_avg_pool2d", "_adaptive_avg_pool2d_backward", "reflection_pad1d", "reflection_pad1d_backward",
            "reflection_pad2d", "reflection_pad2d_backward", "replication_pad1d", "replication_pad1d_backward",
            "replication_pad2d", "replication_pad2d_backward"]
__all__ += ["native_batch_norm_backward_masked", "native_group_norm_backward_masked",
            "native_layer_norm_backward_masked", "norm_double_backward"]
__all__ += ["_convolution_double_backward", "avg_pool2d", "avg_pool2d_backward", "constant_pad_nd_backward",
            "convolution", "convolution_backward", "convolution_backward_masked",
            "max_pool2d_with_indices_backward", "max_pool_double_backward"]

# ==== issue 15: modules ====
# (the modules family's entries follow this line)

# ==== issue 15: optim ====
# (the optim family's entries follow this line)

# ==== issue 15: seq ====
# (the seq family's entries follow this line)
from ._ops import mkldnn_rnn_layer_backward as _mkldnn_rnn_layer_backward  # noqa: E402
from ._ops import linear as _linear, select as _select_int, sigmoid as _sigmoid, tanh as _tanh  # noqa: E402

__all__ += ["mkldnn_rnn_layer_backward_part", "mkldnn_rnn_layer_differentiable_backward"]

_rnn_layer_backward_last = threading.local()


def mkldnn_rnn_layer_backward_part(input, weight0, weight1, weight2, weight3, hx_, cx_, output, hy_, cy_,  # noqa: A002
                                   grad_output, grad_hy, grad_cy, reverse, mode, hidden_size, num_layers, has_biases,
                                   train, bidirectional, batch_sizes, batch_first, workspace, needs, k):
    """Output k of upstream's MkldnnRnnLayerBackward0 formula: GradMode::is_enabled() ?
    mkldnn_rnn_layer_differentiable_backward(...) : mkldnn_rnn_layer_backward(...), called once for
    all seven gradients; the table asks for one input at a time, so the first call keeps the tuple for
    the others (as convolution_backward_masked)."""
    last = getattr(_rnn_layer_backward_last, "value", None)
    if last is not None and last[0] is workspace and last[1] is grad_output and last[2] is grad_hy \
            and last[3] is grad_cy and k in last[5]:
        last[5].discard(k)
        if not last[5]:
            _rnn_layer_backward_last.value = None
        return last[4][k]
    fn = mkldnn_rnn_layer_differentiable_backward if grad_mode_is_enabled() else _mkldnn_rnn_layer_backward
    outs = fn(input, weight0, weight1, weight2, weight3, hx_, cx_, output, hy_, cy_, grad_output, grad_hy, grad_cy,
              reverse, mode, hidden_size, num_layers, has_biases, train, bidirectional, batch_sizes, batch_first,
              workspace)
    rest = {i for i, m in enumerate(needs) if m and i != k}
    _rnn_layer_backward_last.value = (workspace, grad_output, grad_hy, grad_cy, outs, rest) if rest else None
    return outs[k]


def mkldnn_rnn_layer_differentiable_backward(input, weight0, weight1, weight2, weight3, hx_, cx_tmp, output,  # noqa: A002
                                             hy_, cy_, grad_output, grad_hy, grad_cy, reverse, mode, hidden_size,
                                             num_layers, has_biases, train, bidirectional, batch_sizes, batch_first,
                                             workspace):
    """mkldnn/RNN.cpp's mkldnn_rnn_layer_differentiable_backward (the formula under create_graph):
    the layer's gates and states recomputed with differentiable ops, then backpropagated step by step
    with them, so the gradients have a graph of their own. Returns (dx, dWx, dWh, db, db, dhx, dcx)."""
    if grad_output is None and grad_hy is None and grad_cy is None:
        return (None,) * 7
    grad_output = zeros_like(output) if grad_output is None else grad_output
    grad_hy = zeros_like(hx_) if grad_hy is None else grad_hy
    grad_cy = (zeros_like(cx_tmp) if grad_cy is None else grad_cy)
    if has_biases:
        bias_ih, bias_hh = weight2, weight3
    else:
        bias_ih = _const(np.zeros(4 * hidden_size, dtype=weight0._array.dtype), weight0)
        bias_hh = bias_ih
    T = input._array.shape[0]
    xs = [_select_int(input, 0, t) for t in range(T)]  # upstream's input_[x_index]
    gates, states = [None] * T, [(hx_, cx_tmp)]
    h, c = hx_, cx_tmp
    for seq in range(1, T + 1):
        t = T - seq if reverse else seq - 1
        gate = add(_linear(xs[t], weight0, bias_ih), _linear(h, weight1, bias_hh))
        i, f, g, o = (gate[:, n * hidden_size:(n + 1) * hidden_size] for n in range(4))
        i, f, g, o = _sigmoid(i), _sigmoid(f), _tanh(g), _sigmoid(o)
        gates[t] = (i, f, g, o)
        c = add(mul(f, c), mul(i, g))
        h = mul(o, _tanh(c))
        states.append((h, c))
    dxs = [None] * T
    dWx = dWh = db = dprev_h = dprev_c = None
    for seq in range(T - 1, -1, -1):
        t = T - seq - 1 if reverse else seq
        i, f, g, o = gates[t]
        hy, cy = states[seq + 1]
        hx, cx = states[seq]
        new_grad_hy = add(grad_output[t], grad_hy)
        tcy = _tanh(cy)
        d1 = add(grad_cy, mul(mul(new_grad_hy, o), scalar_sub(1, mul(tcy, tcy))))
        dgp, dip = mul(d1, i), mul(d1, g)
        dprev_c = mul(d1, f)
        dfp = mul(d1, cx)
        dop = mul(new_grad_hy, tcy)
        do_ = mul(mul(dop, o), scalar_sub(1, o))
        dg = mul(dgp, scalar_sub(1, mul(g, g)))
        df = mul(mul(dfp, f), scalar_sub(1, f))
        di = mul(mul(dip, i), scalar_sub(1, i))
        da = cat([di, df, dg, do_], 1)
        db_ = sum(da, 0)
        dxs[t] = unsqueeze(matmul(da, weight0), 0)
        dprev_h = matmul(da, weight1)
        dWx_ = matmul(transpose(da, 0, 1), xs[t])
        dWh_ = matmul(transpose(da, 0, 1), hx)
        if db is None:
            db, dWx, dWh = db_, dWx_, dWh_
        else:
            db, dWx, dWh = add(db, db_), add(dWx, dWx_), add(dWh, dWh_)
        grad_hy, grad_cy = dprev_h, dprev_c
    dx = cat(dxs, 0)
    return (dx, dWx, dWh, db, db, dprev_h, dprev_c)
