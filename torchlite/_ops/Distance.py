"""pairwise_distance, cosine_similarity (ATen/native/Distance.cpp), one_hot (Onehot.cpp), and the
margin losses ATen composes (Loss.cpp: cosine_embedding_loss, margin_ranking_loss,
triplet_margin_loss), over torchlite's ops in upstream's order so the nodes are torch's.
`norm.ScalarOpt_dim` (NormBackward1, what at::norm(x, p, dim) records) is the one kernel here."""
import math

import numpy as np

from .. import _backend
from .._C import _record, _wrap
from .._generated import specs as _S
from .. import _C
from .._dtypes import _from_numpy_dtype
from .BatchLinearAlgebra import linalg_vector_norm
from .BinaryOps import _add_scalar, _mul_scalar, add, add_, clamp_min, clamp_min_, div, minimum, mul, sub
from .IndexingOps import masked_fill
from .TensorCompare import le, ne
from .UnaryOps import exp, log
from .ExpandUtils import _broadcast_shapes
from .ReduceOps import mean, sum  # noqa: A004 - torch's names
from .ScalarType import _f16, _f32, _i64, _torch_type_name
from .TensorCompare import eq, where
from .TensorConversions import to
from .TensorFactories import clone, zeros_like
from .TensorIterator import _loud, _quiet, _result_type
from .TensorShape import expand
from .UnaryOps import neg, sqrt
from .python_arg_parser import _wrap_dim
from .structured_inplace import inplace_variant

NONE, MEAN, SUM = 0, 1, 2


def _norm_scalaropt_dim(self, p, dim, keepdim=False):
    """at::norm(self, p, dim, keepdim) (norm.ScalarOpt_dim), node NormBackward1."""
    a = self._array
    if a.dtype.kind != "f":
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. Got "
                           f"{_torch_type_name(a.dtype)} instead.")
    d = _wrap_dim(dim, a.ndim)
    axis = d if a.ndim else None
    x = a.astype(_f32) if a.dtype == _f16 else a
    q = 2.0 if p is None else float(p)
    token = _quiet()
    try:
        ab = np.abs(x)
        if math.isinf(q):
            r = (np.max if q > 0 else np.min)(ab, axis=axis, keepdims=keepdim)
        elif q == 0:
            r = np.sum(ab != 0, axis=axis, keepdims=keepdim)
        elif q == 1:
            r = np.sum(ab, axis=axis, keepdims=keepdim)
        elif q == 2:
            r = np.sqrt(np.sum(x * x, axis=axis, keepdims=keepdim))
        else:
            r = np.sum(ab ** q, axis=axis, keepdims=keepdim) ** (1.0 / q)
    finally:
        _loud(token)
    out = _wrap(np.array(r, dtype=a.dtype, order="C"), self)
    return _record(_S.NormBackward1, (self,), out, self=self, p=p, dim=(dim,), keepdim=keepdim, result=out)


def pairwise_distance(x1, x2, p=2.0, eps=1e-06, keepdim=False):
    """at::norm(x1 - x2 + eps, p, innermost_dim, keepdim)."""
    output_dim = max(x1._array.ndim, x2._array.ndim)
    return _norm_scalaropt_dim(_add_scalar(sub(x1, x2), eps), p, output_dim - 1, keepdim)


def cosine_similarity(x1, x2, dim=1, eps=1e-08):
    """Distance.cpp's: each operand divided by its clamped norm first, then multiplied and summed."""
    common = _result_type(x1._array, x2._array)
    if common.kind != "f":
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is "
                           f"{_torch_type_name(common)}")
    dt = _from_numpy_dtype(common)
    if x1._array.dtype.kind in "biu":
        x1 = to(x1, dt)
    if x2._array.dtype.kind in "biu":
        x2 = to(x2, dt)
    s1, s2 = x1._array.shape, x2._array.shape
    if s1 != s2:
        shape = _broadcast_shapes(s1, s2)
        x1 = x1 if s1 == shape else expand(x1, shape)
        x2 = x2 if s2 == shape else expand(x2, shape)
    n1 = clone(linalg_vector_norm(x1, 2, (dim,), True))
    n2 = clone(linalg_vector_norm(x2, 2, (dim,), True))
    previous = _C.is_grad_enabled()
    _C._set_grad_enabled(False)  # (upstream's NoGradGuard around the clamps)
    try:
        clamp_min_(n1, eps)
        clamp_min_(n2, eps)
    finally:
        _C._set_grad_enabled(previous)
    return sum(mul(div(x1, n1), div(x2, n2)), dim)


def one_hot(self, num_classes=-1):
    a = self._array
    if a.dtype != _i64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if a.size == 0:
        if num_classes <= 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        return _wrap(np.zeros((*a.shape, num_classes), dtype=_i64), self)
    h = _backend.to_host(a)
    if h.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        num_classes = int(h.max()) + 1
    elif num_classes <= h.max():
        raise RuntimeError("Class values must be smaller than num_classes.")
    r = (np.expand_dims(a, -1) == np.arange(num_classes)).astype(_i64)
    return _wrap(r, self)


def _scalar_sub(c, t):
    """C++'s `c - t` (TensorOperators.h: a tensor of c, minus t): SubBackward0."""
    return sub(_wrap(np.full(t._array.shape, c, dtype=t._array.dtype), t), t)


def _apply_loss_reduction(t, reduction):
    if reduction == MEAN:
        return mean(t)
    if reduction == SUM:
        return sum(t)
    return t


def _sizes(t):
    return "[" + ", ".join(str(n) for n in t._array.shape) + "]"


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=NONE):
    targ_dim = target._array.ndim
    if targ_dim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if targ_dim == 1:
        if input1._array.ndim != 2 or input2._array.ndim != 2:
            raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with sizes "
                               f"{_sizes(input1)} and {_sizes(input2)}.")
    elif input1._array.ndim != 1 or input2._array.ndim != 1:
        raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with sizes "
                           f"{_sizes(input1)} and {_sizes(input2)}.")
    eps = 1e-12
    prod_sum = sum(mul(input1, input2), targ_dim)
    mag_square1 = _add_scalar(sum(mul(input1, input1), targ_dim), eps)
    mag_square2 = _add_scalar(sum(mul(input2, input2), targ_dim), eps)
    denom = inplace_variant(sqrt, mul(mag_square1, mag_square2), (), {})
    cos = div(prod_sum, denom)
    zeros = zeros_like(cos)
    pos = _scalar_sub(1.0, cos)
    negative = clamp_min_(_add_scalar(cos, -margin), 0)
    output_pos = where(eq(target, 1), pos, zeros)
    output_neg = where(eq(target, -1), negative, zeros)
    return _apply_loss_reduction(add(output_pos, output_neg), reduction)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=NONE):
    """(-target * (input1 - input2) + margin).clamp_min_(0), reduced."""
    output = clamp_min_(_add_scalar(mul(neg(target), sub(input1, input2)), margin), 0)
    return _apply_loss_reduction(output, reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False, reduction=NONE):
    a_dim, p_dim, n_dim = anchor._array.ndim, positive._array.ndim, negative._array.ndim
    if not (a_dim == p_dim and p_dim == n_dim):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {a_dim}D, positive {p_dim}D, and negative {n_dim}D inputs")
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = minimum(dist_neg, pairwise_distance(positive, negative, p, eps))  # at::min(a, b)
    output = clamp_min(sub(_add_scalar(dist_pos, margin), dist_neg), 0)
    return _apply_loss_reduction(output, reduction)


def hinge_embedding_loss(self, target, margin=1.0, reduction=NONE):
    """Loss.cpp's: where(target != 1, (margin - self).clamp_min_(0), 0) + where(target != -1, self, 0), reduced."""
    zeros = zeros_like(self)
    margin_clamp = clamp_min_(_scalar_sub(margin, self), 0)
    output_margin = where(ne(target, 1), margin_clamp, zeros)
    output_self = where(ne(target, -1), self, zeros)
    return _apply_loss_reduction(add(output_margin, output_self), reduction)


def poisson_nll_loss(input, target, log_input, full, eps, reduction):  # noqa: A002 - upstream's names
    """Loss.cpp's: exp(input) - target * input (log_input), else input - target * log(input + eps); plus the
    Stirling term where target > 1 (full); reduced."""
    if log_input:
        loss = sub(exp(input), mul(target, input))
    else:
        loss = sub(input, mul(target, log(_add_scalar(input, eps))))
    if full:
        stirling = add(sub(mul(target, log(target)), target), _mul_scalar(log(_mul_scalar(target, 2 * math.pi)), 0.5))
        loss = add_(loss, masked_fill(stirling, le(target, 1), 0))
    return _apply_loss_reduction(loss, reduction)
