"""gradcheck / gradgradcheck themselves, and both run over every op of the
package (every backward node of the derivatives table) and a custom Function."""
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import torchlite as torch
from torchlite.autograd import Function, gradcheck, gradgradcheck
from torchlite.autograd.gradcheck import GradcheckError

from diff_utils import import_torch

rng = np.random.default_rng(1)


def dbl(*shape, low=-2.0, high=2.0, requires_grad=True):
    return torch.tensor(rng.uniform(low, high, size=shape), dtype=torch.float64, requires_grad=requires_grad)


def pos(*shape):
    return dbl(*shape, low=0.5, high=2.0)


def away_from_zero(*shape):
    """Values at least 0.2 from 0, so |x| and relu are smooth within eps."""
    a = rng.uniform(0.2, 2.0, size=shape) * rng.choice([-1.0, 1.0], size=shape)
    return torch.tensor(a, dtype=torch.float64, requires_grad=True)


def distinct(*shape):
    """A permutation of well separated values: max/min have a unique argmax."""
    a = rng.permutation(np.arange(int(np.prod(shape)), dtype=np.float64)).reshape(shape) * 0.5
    return torch.tensor(a, dtype=torch.float64, requires_grad=True)


def _grad_of(f):
    """(a, w) -> the gradient of f at a for grad_output w, differentiable (create_graph)."""
    return lambda a, w: torch.autograd.grad(f(a), a, w, create_graph=True)[0]


def _grad_grad_of(f):
    """(a, w, v) -> the gradient of _grad_of(f)(a, w) with respect to w, for grad_output v."""
    return lambda a, w, v: torch.autograd.grad(_grad_of(f)(a, w), w, v, create_graph=True)[0]


def _setitem_advanced(a, b):
    c = a.clone()
    c[torch.tensor([2, 0])] = b
    return c


def _inplace_on_view(a, b):
    c = a * 1.0
    c[:, 1].mul_(b[:1] * b)
    return c * c


def _inplace_on_base_then_view(a, b):
    c = a * 1.0
    v = c.t()[1]
    c.mul_(b)
    return v * v


def _inplace_on_view_chain(a, b):
    c = a * 1.0
    v = c[1:].t()[2]
    v.add_(b)
    return c.sum(0) * v.sum()


def _setitem(x, y):
    z = x.clone()
    z[1] = y
    return z


def _setitem_scalar(x):
    z = x * 1.0
    z[0, 1:] = 3.0
    return z


# (id, function, input factory). Together they reach every backward node of the table,
# which test_cases_cover_every_op checks.
OPS = [
    ("add", lambda a, b: a + b, lambda: (dbl(2, 3), dbl(3))),
    ("add_alpha", lambda a, b: torch.add(a, b, alpha=2.5), lambda: (dbl(2, 3), dbl(2, 1))),
    ("add_scalar", lambda a: a + 1.5, lambda: (dbl(2, 3),)),
    ("radd", lambda a: 1.5 + a, lambda: (dbl(2, 3),)),
    ("sub", lambda a, b: a - b, lambda: (dbl(2, 3), dbl(1, 3))),
    ("sub_alpha", lambda a, b: torch.sub(a, b, alpha=0.5), lambda: (dbl(2, 3), dbl(2, 3))),
    ("sub_scalar", lambda a: a - 2.0, lambda: (dbl(3),)),
    ("rsub", lambda a: 2.0 - a, lambda: (dbl(3),)),
    ("mul", lambda a, b: a * b, lambda: (dbl(2, 3), dbl(2, 1))),
    ("mul_scalar", lambda a: a * 3.0, lambda: (dbl(2, 3),)),
    ("rmul", lambda a: 3.0 * a, lambda: (dbl(2, 3),)),
    ("div", lambda a, b: a / b, lambda: (dbl(2, 3), pos(3))),
    ("atan2", lambda a, b: torch.atan2(a, b), lambda: (dbl(2, 3), pos(3))),
    # issue 13, the binary family's ops (random operands: no ties, bounds or jumps within eps)
    ("div_floor", lambda a, b: torch.div(a, b, rounding_mode="floor"), lambda: (dbl(2, 3), pos(3))),
    ("div_mode_none", lambda a, b: a.div(b, rounding_mode=None), lambda: (dbl(2, 3), pos(3))),
    ("clamp", lambda a: a.clamp(-0.5, 0.5), lambda: (dbl(2, 3),)),
    ("clamp_tensors", lambda a, b, c: torch.clamp(a, b, c), lambda: (dbl(2, 3), dbl(3), dbl(2, 1))),
    ("clamp_min", lambda a: torch.clamp_min(a, 0.2), lambda: (dbl(2, 3),)),
    ("clamp_min_tensor", lambda a, b: a.clamp_min(b), lambda: (dbl(2, 3), dbl(3))),
    ("clamp_max", lambda a: a.clamp_max(0.2), lambda: (dbl(2, 3),)),
    ("clamp_max_tensor", lambda a, b: torch.clamp_max(a, b), lambda: (dbl(2, 3), dbl(2, 1))),
    ("fmod", lambda a, b: torch.fmod(a, b), lambda: (dbl(2, 3), pos(3))),
    ("fmod_scalar", lambda a: a.fmod(0.7), lambda: (dbl(2, 3),)),
    ("remainder", lambda a, b: a % b, lambda: (dbl(2, 3), pos(3))),
    ("remainder_scalar", lambda a: torch.remainder(a, -0.7), lambda: (dbl(2, 3),)),
    ("hypot", lambda a, b: torch.hypot(a, b), lambda: (dbl(2, 3), dbl(3))),
    ("maximum", lambda a, b: torch.maximum(a, b), lambda: (dbl(2, 3), dbl(3))),
    ("minimum", lambda a, b: torch.min(a, b), lambda: (dbl(2, 3), dbl(3))),
    ("fmax", lambda a, b: torch.fmax(a, b), lambda: (dbl(2, 3), dbl(3))),
    ("fmin", lambda a, b: a.fmin(b), lambda: (dbl(2, 3), dbl(3))),
    ("logaddexp", lambda a, b: torch.logaddexp(a, b), lambda: (dbl(2, 3), dbl(3))),
    ("xlogy", lambda a, b: torch.xlogy(a, b), lambda: (dbl(2, 3), pos(3))),
    ("xlogy_scalar_self", lambda b: torch.xlogy(2.0, b), lambda: (pos(2, 3),)),
    ("xlogy_scalar_other", lambda a: torch.xlogy(a, 2.0), lambda: (dbl(2, 3),)),
    ("lerp", lambda a, b: torch.lerp(a, b, 0.3), lambda: (dbl(2, 3), dbl(3))),
    ("lerp_tensor", lambda a, b, w: a.lerp(b, w), lambda: (dbl(2, 3), dbl(3), dbl(2, 1))),
    ("addcmul", lambda a, b, c: torch.addcmul(a, b, c, value=-1.5), lambda: (dbl(2, 3), dbl(3), dbl(2, 1))),
    ("addcdiv", lambda a, b, c: a.addcdiv(b, c, value=2), lambda: (dbl(2, 3), dbl(3), away_from_zero(2, 1))),
    ("div_scalar", lambda a: a / 4.0, lambda: (dbl(2, 3),)),
    ("rdiv", lambda a: 2.0 / a, lambda: (pos(2, 3),)),
    ("neg", lambda a: -a, lambda: (dbl(2, 3),)),
    ("exp", torch.exp, lambda: (dbl(2, 3),)),
    ("log", torch.log, lambda: (pos(2, 3),)),
    ("sin", torch.sin, lambda: (dbl(2, 3),)),
    ("cos", torch.cos, lambda: (dbl(2, 3),)),
    ("tanh", torch.tanh, lambda: (dbl(2, 3),)),
    ("sigmoid", torch.sigmoid, lambda: (dbl(2, 3),)),
    ("relu", torch.relu, lambda: (away_from_zero(2, 3),)),
    ("abs", torch.abs, lambda: (away_from_zero(2, 3),)),
    ("sqrt", torch.sqrt, lambda: (pos(2, 3),)),
    ("reciprocal", torch.reciprocal, lambda: (pos(2, 3),)),
    ("pow_scalar", lambda a: a ** 3, lambda: (dbl(2, 3),)),
    ("pow_zero", lambda a: a ** 0, lambda: (dbl(2, 3),)),
    ("pow_tensor", lambda a, b: a ** b, lambda: (pos(2, 3), dbl(3))),
    ("rpow", lambda a: 2.0 ** a, lambda: (dbl(2, 3),)),
    ("mm", torch.matmul, lambda: (dbl(2, 3), dbl(3, 2))),
    ("dot", torch.matmul, lambda: (dbl(3), dbl(3))),
    ("mv", torch.matmul, lambda: (dbl(2, 3), dbl(3))),
    ("bmm", torch.matmul, lambda: (dbl(2, 2, 3), dbl(3, 2))),
    ("bmm_batched", torch.matmul, lambda: (dbl(2, 2, 3), dbl(2, 3, 2))),
    ("vec_mat", torch.matmul, lambda: (dbl(3), dbl(3, 2))),
    ("batch_mat_vec", torch.matmul, lambda: (dbl(2, 2, 3), dbl(3))),
    ("sum", lambda a: a.sum(), lambda: (dbl(2, 3),)),
    ("sum_dim", lambda a: a.sum(1), lambda: (dbl(2, 3),)),
    ("sum_keepdim", lambda a: a.sum((0, 2), keepdim=True), lambda: (dbl(2, 3, 2),)),
    ("mean", lambda a: a.mean(), lambda: (dbl(2, 3),)),
    ("mean_dim", lambda a: a.mean(-1), lambda: (dbl(2, 3),)),
    ("mean_keepdim", lambda a: a.mean(0, keepdim=True), lambda: (dbl(2, 3),)),
    ("max", lambda a: a.max(), lambda: (distinct(2, 3),)),
    ("min", lambda a: a.min(), lambda: (distinct(2, 3),)),
    ("max_dim", lambda a: a.max(1).values, lambda: (distinct(2, 3),)),
    ("min_dim_keepdim", lambda a: a.min(0, keepdim=True).values, lambda: (distinct(2, 3),)),
    # the gradient of max(dim) is a scatter (ScatterBackward0), whose gradient is a gather, whose gradient
    # is a scatter_add
    ("max_dim_gradient", lambda a: torch.autograd.grad((a.max(1).values ** 2).sum(), a, create_graph=True)[0],
     lambda: (distinct(2, 3),)),
    ("max_dim_second_gradient", lambda a: torch.autograd.grad(
        (torch.autograd.grad((a.max(1).values ** 3).sum(), a, create_graph=True)[0] ** 2).sum(), a,
        create_graph=True)[0], lambda: (distinct(2, 3),)),
    # the reductions of issue 13 (their first- and second-order graphs)
    ("prod", lambda a: a.prod(), lambda: (dbl(2, 3),)),
    ("prod_dim", lambda a: a.prod(1), lambda: (dbl(2, 3),)),
    ("std", lambda a: a.std(), lambda: (dbl(2, 3),)),
    ("var_dim", lambda a: a.var(1, keepdim=True), lambda: (dbl(2, 3),)),
    ("std_mean", lambda a: (lambda s, m: s * m)(*torch.std_mean(a, 1)), lambda: (dbl(2, 3),)),
    ("var_mean", lambda a: (lambda v, m: v + m)(*torch.var_mean(a, correction=0)), lambda: (dbl(2, 3),)),
    ("logsumexp", lambda a: a.logsumexp(1), lambda: (dbl(2, 3),)),
    ("amax", lambda a: a.amax(1), lambda: (distinct(2, 3),)),
    ("amin", lambda a: a.amin(), lambda: (distinct(2, 3),)),
    ("norm", lambda a: a.norm(3, 1), lambda: (away_from_zero(2, 3),)),
    ("cumsum", lambda a: a.cumsum(1), lambda: (dbl(2, 3),)),
    ("cumprod", lambda a: a.cumprod(1), lambda: (dbl(2, 3),)),
    ("cummax", lambda a: a.cummax(1).values, lambda: (distinct(2, 3),)),
    ("cummin", lambda a: a.cummin(0).values, lambda: (distinct(2, 3),)),
    ("nansum", lambda a: a.nansum(0), lambda: (dbl(2, 3),)),
    ("median", lambda a: a.median(), lambda: (distinct(2, 3),)),
    ("median_dim", lambda a: a.median(1).values, lambda: (distinct(2, 3),)),
    ("nanmedian", lambda a: a.nanmedian(), lambda: (distinct(2, 3),)),
    ("nanmedian_dim", lambda a: a.nanmedian(0).values, lambda: (distinct(2, 3),)),
    ("kthvalue", lambda a: a.kthvalue(2, 1).values, lambda: (distinct(2, 3),)),
    ("mode", lambda a: a.mode(1).values, lambda: (distinct(2, 3),)),
    ("sort", lambda a: a.sort(1).values, lambda: (distinct(2, 3),)),
    ("sort_stable", lambda a: a.sort(stable=True, dim=0).values, lambda: (distinct(2, 3),)),
    ("topk", lambda a: a.topk(2).values, lambda: (distinct(2, 3),)),
    ("view", lambda a: a.view(3, 2), lambda: (dbl(2, 3),)),
    ("view_as", lambda a, b: a.view_as(b), lambda: (dbl(2, 3), dbl(6, requires_grad=False))),
    ("reshape", lambda a: a.reshape(-1), lambda: (dbl(2, 3),)),
    ("reshape_copy", lambda a: a.t().reshape(6), lambda: (dbl(2, 3),)),
    ("reshape_alias", lambda a: a.t().reshape(1, 3, 2), lambda: (dbl(2, 3),)),
    ("transpose", lambda a: a.transpose(0, 2), lambda: (dbl(2, 3, 2),)),
    ("t", lambda a: a.t(), lambda: (dbl(2, 3),)),
    ("T", lambda a: a.T, lambda: (dbl(2, 3, 2),)),
    ("mT", lambda a: a.mT, lambda: (dbl(2, 3, 2),)),
    ("permute", lambda a: a.permute(2, 0, 1), lambda: (dbl(2, 3, 2),)),
    ("unsqueeze", lambda a: a.unsqueeze(1), lambda: (dbl(2, 3),)),
    ("squeeze", lambda a: a.squeeze(), lambda: (dbl(2, 1, 3),)),
    ("squeeze_dim", lambda a: a.squeeze(1), lambda: (dbl(2, 1, 3),)),
    ("squeeze_dims", lambda a: a.squeeze((1, -1)), lambda: (dbl(2, 1, 3),)),
    ("expand", lambda a: a.expand(2, 3, 3), lambda: (dbl(3, 1),)),
    ("expand_as", lambda a, b: a.expand_as(b), lambda: (dbl(3), dbl(2, 3, requires_grad=False))),
    ("clone", torch.clone, lambda: (dbl(2, 3),)),
    ("contiguous", lambda a: a.t().contiguous(), lambda: (dbl(2, 3),)),
    ("select", lambda a: a[1], lambda: (dbl(3, 2),)),
    ("slice", lambda a: a[1:], lambda: (dbl(3, 2),)),
    ("index_basic_tuple", lambda a: a[:, 0, None], lambda: (dbl(3, 2),)),
    ("index_ellipsis", lambda a: a[...] * 1.0, lambda: (dbl(3, 2),)),
    ("index_advanced", lambda a: a[torch.tensor([0, 2, 0])], lambda: (dbl(3, 2),)),
    ("index_mask", lambda a: a[a > 0.0], lambda: (away_from_zero(3, 2),)),
    ("setitem", _setitem, lambda: (dbl(3, 2), dbl(2))),
    ("setitem_scalar", _setitem_scalar, lambda: (dbl(2, 3),)),
    ("add_", lambda a, b: a.clone().add_(b, alpha=2.0), lambda: (dbl(2, 3), dbl(3))),
    ("add_scalar_", lambda a: a.clone().add_(1.0), lambda: (dbl(2, 3),)),
    ("sub_", lambda a, b: a.clone().sub_(b), lambda: (dbl(2, 3), dbl(2, 3))),
    ("mul_", lambda a, b: a.clone().mul_(b), lambda: (dbl(2, 3), dbl(3))),
    ("mul_scalar_", lambda a: a.clone().mul_(2.0), lambda: (dbl(2, 3),)),
    ("div_", lambda a, b: a.clone().div_(b), lambda: (dbl(2, 3), pos(3))),
    ("div_scalar_", lambda a: a.clone().div_(2.0), lambda: (dbl(2, 3),)),
    ("iadd", lambda a, b: _iadd(a.clone(), b), lambda: (dbl(2, 3), dbl(2, 3))),
    ("zero_", lambda a: a.clone().zero_() + a, lambda: (dbl(2, 3),)),
    ("fill_", lambda a: a.clone().fill_(2.0) * a, lambda: (dbl(2, 3),)),
    ("to_copy", lambda a: a.to(torch.float64, copy=True), lambda: (dbl(2, 3),)),
    ("as_strided", lambda a: a.as_strided((2, 2), (1, 2), 1), lambda: (dbl(2, 3),)),
    ("as_strided_overlapping", lambda a: a.as_strided((3, 2), (1, 1)), lambda: (dbl(4),)),
    ("narrow", lambda a: a.narrow(1, 1, 2), lambda: (dbl(2, 3),)),
    ("diagonal", lambda a: a.diagonal(1), lambda: (dbl(3, 4),)),
    ("diagonal_dims", lambda a: a.diagonal(-1, 2, 0), lambda: (dbl(3, 2, 4),)),
    ("split", lambda a: a.split(2, 1)[1] * a.split(2, 1)[0][:, :1], lambda: (dbl(2, 3),)),
    ("split_with_sizes", lambda a: a.split([1, 2])[1], lambda: (dbl(3, 2),)),
    ("unsafe_split", lambda a: a.unsafe_split(2, 1)[1] * a.unsafe_chunk(2, 1)[0][:, :1], lambda: (dbl(2, 3),)),
    ("unsafe_split_with_sizes", lambda a: a.unsafe_split_with_sizes([1, 2])[1], lambda: (dbl(3, 2),)),
    ("chunk", lambda a: a.chunk(2)[0], lambda: (dbl(3, 2),)),
    ("unbind", lambda a: a.unbind(1)[0] * a.unbind(1)[2], lambda: (dbl(2, 3),)),
    # issue 13's shape ops (tests/python/test_ops_shape.py checks them against torch)
    ("flip", lambda a: a.flip(0, 1), lambda: (dbl(2, 3),)),
    ("roll", lambda a: a.roll((1, -1), (0, 1)), lambda: (dbl(2, 3),)),
    ("rot90", lambda a: a.rot90(1, (1, 0)), lambda: (dbl(2, 3),)),
    ("repeat", lambda a: a.repeat(2, 1, 3), lambda: (dbl(2, 3),)),
    ("unfold", lambda a: a.unfold(1, 2, 1), lambda: (dbl(2, 4),)),
    ("scatter_value", lambda a: a.scatter(1, torch.tensor([[0, 2], [1, 0]]), 2.0), lambda: (dbl(2, 3),)),
    ("index_copy", lambda a, s: a.index_copy(0, torch.tensor([1]), s), lambda: (dbl(2, 3), dbl(1, 3))),
    ("index_fill_tensor", lambda a, v: a.index_fill(1, torch.tensor([1, 1, 0]), v), lambda: (dbl(2, 3), dbl())),
    ("index_fill", lambda a: a.index_fill(1, torch.tensor([1]), 2.0), lambda: (dbl(2, 3),)),
    ("masked_select", lambda a: a.masked_select(torch.tensor([True, False, True])), lambda: (dbl(2, 3),)),
    ("masked_scatter", lambda a, s: a.masked_scatter(torch.tensor([True, False, True]), s),
     lambda: (dbl(2, 3), dbl(5))),
    ("take", lambda a: a.take(torch.tensor([[0, 5], [5, 3]])), lambda: (dbl(2, 3),)),
    ("scatter_reduce", lambda a, s: a.scatter_reduce(1, torch.tensor([[0, 0], [1, 2]]), s, "mean"),
     lambda: (dbl(2, 3), dbl(2, 2))),
    ("copy_", lambda a, b: a.clone().copy_(b), lambda: (dbl(2, 3), dbl(3))),
    ("fill_tensor_", lambda a, b: a.clone().fill_(b) * a, lambda: (dbl(2, 3), dbl())),
    ("setitem_advanced", _setitem_advanced, lambda: (dbl(3, 2), dbl(2))),
    ("inplace_on_view", _inplace_on_view, lambda: (dbl(3, 2), dbl(3))),
    ("inplace_on_base_then_view", _inplace_on_base_then_view, lambda: (dbl(3, 2), dbl(3, 2))),
    ("inplace_on_view_chain", lambda a, b: _inplace_on_view_chain(a, b), lambda: (dbl(3, 4), dbl(2))),
    ("stack", lambda a, b: torch.stack([a, b], 1), lambda: (dbl(2, 3), dbl(2, 3))),
    ("cat", lambda a, b: torch.cat([a, b], 0), lambda: (dbl(2, 3), dbl(1, 3))),
    ("where", lambda a, b: torch.where(a > b, a, b), lambda: (dbl(2, 3), dbl(3))),
    ("where_scalar", lambda a: torch.where(a > 0.0, a, 0.0), lambda: (away_from_zero(2, 3),)),
    ("where_scalar_first", lambda a: torch.where(a > 0.0, 1.0, a), lambda: (away_from_zero(2, 3),)),
    # first- and second-order gradients as functions: their graphs hold the nodes that
    # only formulas record (gather, scatter_add, sigmoid_backward's own backward)
    ("max_dim_grad", _grad_of(lambda a: a.max(1).values), lambda: (distinct(2, 3), dbl(2))),
    ("max_dim_grad_grad", _grad_grad_of(lambda a: a.max(1).values), lambda: (distinct(2, 3), dbl(2), dbl(2, 3))),
    ("max_grad", _grad_of(lambda a: a.max()), lambda: (distinct(2, 3), dbl())),
    ("index_advanced_grad", _grad_of(lambda a: a[torch.tensor([0, 2, 0])]), lambda: (dbl(3, 2), dbl(3, 2))),
    ("as_strided_overlapping_grad", _grad_of(lambda a: a.as_strided((3, 2), (1, 1))), lambda: (dbl(4), dbl(3, 2))),
    ("tanh_grad", _grad_of(torch.tanh), lambda: (dbl(2, 3), dbl(2, 3))),
    ("sigmoid_grad", _grad_of(torch.sigmoid), lambda: (dbl(2, 3), dbl(2, 3))),
    ("mlp", lambda x, w, b: ((x @ w + b).tanh() @ w.t()).sigmoid().mean(),
     lambda: (dbl(2, 3), dbl(3, 3), dbl(3))),
    # issue 13, creation: tril, triu, diag, diag_embed; normal's zero gradients (a sample times 0 is
    # deterministic: the numerical Jacobian sees only `+ m`)
    ("tril", lambda a: torch.tril(a, -1) * a.triu(1).t(), lambda: (dbl(3, 3),)),
    ("diag", lambda a, v: torch.diag(a, 1) * torch.diag(v)[0], lambda: (dbl(3, 4), dbl(3))),
    ("diag_embed", lambda a: torch.diag_embed(a, 1, 0, 2), lambda: (dbl(2, 3),)),
    ("normal", lambda m, s: torch.normal(m, s) * 0.0 + torch.normal(m, 2.0) * 0.0 + torch.normal(1.0, s) * 0.0 + m * s,
     lambda: (dbl(2, 3), pos(2, 3))),
]


# issue 13 (utilities). A random fill's node passes a zero gradient (the fill does not depend on
# what self held): the fill times 0, plus the input, is deterministic and checks it.
def _random_fill(name, *args):
    return lambda a: getattr(a * 1, name)(*args) * 0 + a


def _not_implemented_node(make):
    """A graph holding a node whose derivative torch does not implement (unique's), on a leaf of
    its own that gradcheck does not differentiate: the node is in the graph, its backward is
    never run."""
    return lambda a: a + make(torch.tensor([2.0, 1.0, 2.0], dtype=torch.float64, requires_grad=True)).sum() * 0


OPS += [
    ("uniform_", _random_fill("uniform_", -1.0, 2.0), lambda: (dbl(2, 3),)),
    ("normal_", _random_fill("normal_"), lambda: (dbl(2, 3),)),
    ("exponential_", _random_fill("exponential_"), lambda: (dbl(2, 3),)),
    ("geometric_", _random_fill("geometric_", 0.5), lambda: (dbl(2, 3),)),
    ("random_", _random_fill("random_"), lambda: (dbl(2, 3),)),
    ("random_to", _random_fill("random_", 5), lambda: (dbl(2, 3),)),
    ("random_from_to", _random_fill("random_", -3, 5), lambda: (dbl(2, 3),)),
    ("bernoulli_", _random_fill("bernoulli_", 0.3), lambda: (dbl(2, 3),)),
    ("bernoulli_tensor", lambda a, p: (a * 1).bernoulli_(p.detach().sigmoid()) * 0 + a * p,
     lambda: (dbl(2, 3), dbl(3))),
    ("bernoulli", lambda a: torch.bernoulli(a.sigmoid()) * 0 + a, lambda: (dbl(2, 3),)),
    ("fill_diagonal_", lambda a: (a * 2).fill_diagonal_(0.5, wrap=True) * a, lambda: (dbl(5, 2),)),
    ("unique", _not_implemented_node(torch.unique), lambda: (dbl(2),)),
    ("unique_dim", _not_implemented_node(lambda t: torch.unique(t, dim=0)), lambda: (dbl(2),)),
    ("unique_consecutive", _not_implemented_node(torch.unique_consecutive), lambda: (dbl(2),)),
]
# the in-place comparisons: a zero gradient through self (and other), with a number and a tensor
OPS += [(f"{name}_", lambda a, b, _n=name: getattr(a * 1, _n + "_")(b) * a + getattr(a * 1, _n + "_")(0.3) * b,
         lambda: (dbl(2, 3), dbl(3))) for name in ("eq", "ne", "lt", "le", "gt", "ge")]
def _wellcond(n):
    """A well-conditioned (diagonally dominant) matrix, for the factorisations."""
    return torch.tensor(rng.uniform(-1.0, 1.0, size=(n, n)) + 3 * np.eye(n), dtype=torch.float64, requires_grad=True)


# the linalg family's ops (issue 13); tests/python/test_ops_linalg.py compares them with torch
OPS += [
    ("vdot", lambda a, b: torch.vdot(a, b), lambda: (dbl(3), dbl(3))),
    ("addmm", lambda c, a, b: torch.addmm(c, a, b, beta=0.5, alpha=2), lambda: (dbl(2), dbl(2, 3), dbl(3, 2))),
    ("addmv", lambda c, a, v: torch.addmv(c, a, v, beta=2, alpha=0.5), lambda: (dbl(2), dbl(2, 3), dbl(3))),
    ("baddbmm", lambda c, a, b: torch.baddbmm(c, a, b, alpha=2), lambda: (dbl(2, 2), dbl(2, 2, 3), dbl(2, 3, 2))),
    ("addbmm", lambda c, a, b: torch.addbmm(c, a, b, beta=0.5), lambda: (dbl(2, 2), dbl(2, 2, 3), dbl(2, 3, 2))),
    ("trace", lambda a: torch.trace(a), lambda: (dbl(3, 2),)),
    ("linalg_cross", lambda a, b: torch.linalg.cross(a, b), lambda: (dbl(2, 3), dbl(2, 3))),
    ("det", lambda a: torch.linalg.det(a), lambda: (_wellcond(3),)),
    ("slogdet", lambda a: torch.linalg.slogdet(a).logabsdet, lambda: (_wellcond(3),)),
    ("inv", lambda a: torch.linalg.inv(a), lambda: (_wellcond(3),)),
    ("solve", lambda a, b: torch.linalg.solve(a, b), lambda: (_wellcond(3), dbl(3, 2))),
    ("cholesky", lambda a: torch.linalg.cholesky(a @ a.mT + torch.tensor(3 * np.eye(3))),
     lambda: (dbl(3, 3),)),
    ("vector_norm", lambda a: torch.linalg.vector_norm(a, 3, dim=1), lambda: (dbl(2, 3),)),
    # the spectral factorisations through what their vectors' signs do not change
    # (tests/python/test_ops_linalg_decomp.py compares them with torch)
    ("svd", lambda a: (lambda U, S, Vh: (U * U * S) @ (Vh * Vh))(*torch.linalg.svd(a, full_matrices=False)),
     lambda: (dbl(4, 3),)),
    ("eigh", lambda a: (lambda L, V: V * V * L)(*torch.linalg.eigh(a + a.mT)), lambda: (_wellcond(3),)),
    ("qr", lambda a: (lambda Q, R: Q @ (R * R))(*torch.linalg.qr(a)), lambda: (dbl(4, 3),)),
    ("pinv", lambda a: torch.linalg.pinv(a), lambda: (dbl(4, 3),)),
    ("lstsq", lambda a, b: torch.linalg.lstsq(a, b).solution, lambda: (dbl(4, 3), dbl(4, 2))),
]

# issue 13: the unary family's ops
OPS += [(name, getattr(torch, name), make) for name, make in [
    ("exp2", lambda: (dbl(2, 3),)), ("expm1", lambda: (dbl(2, 3),)), ("log2", lambda: (pos(2, 3),)),
    ("log10", lambda: (pos(2, 3),)), ("log1p", lambda: (pos(2, 3),)), ("tan", lambda: (dbl(2, 3, low=-1, high=1),)),
    ("asin", lambda: (dbl(2, 3, low=-0.9, high=0.9),)), ("acos", lambda: (dbl(2, 3, low=-0.9, high=0.9),)),
    ("atan", lambda: (dbl(2, 3),)), ("sinh", lambda: (dbl(2, 3),)), ("cosh", lambda: (dbl(2, 3),)),
    ("asinh", lambda: (dbl(2, 3),)), ("acosh", lambda: (dbl(2, 3, low=1.2, high=3.0),)),
    ("atanh", lambda: (dbl(2, 3, low=-0.9, high=0.9),)), ("erf", lambda: (dbl(2, 3),)), ("erfc", lambda: (dbl(2, 3),)),
    ("erfinv", lambda: (dbl(2, 3, low=-0.9, high=0.9),)), ("rsqrt", lambda: (pos(2, 3),)),
    ("sign", lambda: (away_from_zero(2, 3),)), ("sgn", lambda: (away_from_zero(2, 3),)),
    ("floor", lambda: (dbl(2, 3),)), ("ceil", lambda: (dbl(2, 3),)), ("round", lambda: (dbl(2, 3),)),
    ("trunc", lambda: (dbl(2, 3),)), ("frac", lambda: (dbl(2, 3),)), ("square", lambda: (dbl(2, 3),)),
    ("logit", lambda: (dbl(2, 3, low=0.05, high=0.95),)), ("nan_to_num", lambda: (dbl(2, 3),)),
    ("sinc", lambda: (dbl(2, 3),))]]
OPS += [
    ("round_decimals", lambda a: torch.round(a * 10.0, decimals=-1), lambda: (dbl(2, 3),)),
    ("logit_eps", lambda a: torch.logit(a, eps=0.1), lambda: (dbl(2, 3, low=0.15, high=0.85),)),
]
# issue 15: the functional family's ops (torchlite.nn.functional; tests/python/test_nn_functional.py compares
# them with torch)
_F = torch.nn.functional


def _inplace(name, *args):
    return lambda a: getattr(_F, name)(a * 1, *args) * a


def _idx(*values):
    return torch.tensor(values)


OPS += [
    ("softmax", lambda a: _F.softmax(a, 1), lambda: (dbl(2, 3),)),
    ("log_softmax", lambda a: _F.log_softmax(a, 0), lambda: (dbl(2, 3),)),
    ("_safe_softmax", lambda a: torch._safe_softmax(a, 1), lambda: (dbl(2, 3),)),
    ("linear", lambda a, w, b: _F.linear(a, w, b), lambda: (dbl(2, 3, 4), dbl(2, 4), dbl(2))),
    ("hardtanh", lambda a: _F.hardtanh(a), lambda: (away_from_zero(2, 3) * 0.4,)),
    ("leaky_relu", lambda a: _F.leaky_relu(a, 0.2), lambda: (away_from_zero(2, 3),)),
    ("leaky_relu_", _inplace("leaky_relu_", 0.2), lambda: (away_from_zero(2, 3),)),
    ("elu", lambda a: _F.elu(a, 0.7), lambda: (away_from_zero(2, 3),)),
    ("elu_", _inplace("elu_", 0.7), lambda: (away_from_zero(2, 3),)),
    ("celu", lambda a: _F.celu(a, 1.5), lambda: (away_from_zero(2, 3),)),
    ("celu_", _inplace("celu_", 1.5), lambda: (away_from_zero(2, 3),)),
    ("gelu", lambda a: _F.gelu(a) + _F.gelu(a, approximate="tanh"), lambda: (dbl(2, 3),)),
    ("silu", lambda a: _F.silu(a), lambda: (dbl(2, 3),)),
    ("mish", lambda a: _F.mish(a), lambda: (dbl(2, 3),)),
    ("softplus", lambda a: _F.softplus(a, 2, 3), lambda: (dbl(2, 3),)),
    ("hardswish", lambda a: _F.hardswish(a * 2), lambda: (away_from_zero(2, 3),)),
    ("logsigmoid", lambda a: _F.logsigmoid(a), lambda: (dbl(2, 3),)),
    ("glu", lambda a: _F.glu(a, 0), lambda: (dbl(4, 3),)),
    ("threshold", lambda a: _F.threshold(a, 0.0, 2.0), lambda: (away_from_zero(2, 3),)),
    ("threshold_", _inplace("threshold_", 0.0, 2.0), lambda: (away_from_zero(2, 3),)),
    ("softshrink", lambda a: _F.softshrink(a * 3, 0.3), lambda: (away_from_zero(2, 3),)),
    ("hardshrink", lambda a: _F.hardshrink(a * 3, 0.3), lambda: (away_from_zero(2, 3),)),
    ("embedding", lambda w: _F.embedding(_idx(0, 2, 2, 1), w), lambda: (dbl(3, 2),)),
    ("nll_loss", lambda a: _F.nll_loss(a, _idx(0, 2)), lambda: (dbl(2, 3),)),
    ("nll_loss2d", lambda a: _F.nll_loss(a, _idx(0, 2, 1, 1).reshape(1, 2, 2), reduction="sum"),
     lambda: (dbl(1, 3, 2, 2),)),
    ("mse_loss", lambda a, b: _F.mse_loss(a, b), lambda: (dbl(2, 3), dbl(2, 3))),
    ("smooth_l1_loss", lambda a, b: _F.smooth_l1_loss(a * 3, b, beta=0.5), lambda: (dbl(2, 3), dbl(2, 3))),
    ("huber_loss", lambda a, b: _F.huber_loss(a * 3, b, delta=0.5), lambda: (dbl(2, 3), dbl(2, 3))),
    ("binary_cross_entropy", lambda a, b: _F.binary_cross_entropy(a, b),
     lambda: (dbl(2, 3, low=0.1, high=0.9), dbl(2, 3, low=0.1, high=0.9))),
    ("binary_cross_entropy_with_logits", lambda a, b: _F.binary_cross_entropy_with_logits(a, b),
     lambda: (dbl(2, 3), dbl(2, 3, low=0.1, high=0.9))),
    ("soft_margin_loss", lambda a: _F.soft_margin_loss(a, torch.tensor([1.0, -1.0, 1.0], dtype=torch.float64)),
     lambda: (dbl(2, 3),)),
    ("pairwise_distance", lambda a, b: _F.pairwise_distance(a, b), lambda: (dbl(2, 3), dbl(2, 3))),
]

# nodes whose formula refuses (upstream's not_implemented): their graphs count, they are not checked
NODE_ONLY = [(lambda a: (a * 1.0).asinh_(), lambda: (dbl(3),)), (lambda a: (a * 1.0).acosh_(), lambda: (pos(3) + 1.0,)),
             (lambda a: (a * 1.0).atanh_(), lambda: (dbl(3, low=-0.5, high=0.5),))]
# issue 15: hardsigmoid's backward has no derivative upstream (torch::autograd::NotImplemented)
NODE_ONLY += [(lambda a: _F.hardsigmoid(a), lambda: (dbl(3),)),
              (lambda a: torch.autograd.grad(_F.hardsigmoid(a).sum(), a, create_graph=True)[0], lambda: (dbl(3),))]
# issue 15: the conv family's ops (torch.nn.functional's convolution, pooling, normalization, padding, resampling)
OPS += [
    ("conv2d", lambda x, w, b: _F.conv2d(x, w, b, stride=(2, 1), padding=1, dilation=(1, 2)),
     lambda: (dbl(2, 2, 5, 5), dbl(3, 2, 2, 2), dbl(3))),
    ("conv_transpose2d", lambda x, w: _F.conv_transpose2d(x, w, stride=2, output_padding=1, groups=2),
     lambda: (dbl(1, 2, 3, 3), dbl(2, 1, 2, 2))),
    ("pad_constant", lambda x: _F.pad(x, (1, -1, 2, 0), value=0.5), lambda: (dbl(2, 3, 4),)),
    ("pad_reflect", lambda x: (_F.pad(x, (2, 1), mode="reflect") ** 2).sum() + _F.pad(x, (1, 1, 2, 0), mode="reflect"),
     lambda: (dbl(2, 3, 4),)),
    ("pad_replicate", lambda x: (_F.pad(x, (2, 1), mode="replicate") ** 2).sum() + _F.pad(x, (1, 1, 0, 2),
                                                                                          mode="replicate"),
     lambda: (dbl(2, 3, 5),)),
    ("max_pool2d", lambda x: _F.max_pool2d(x, 3, 2, 1, ceil_mode=True), lambda: (dbl(1, 2, 6, 5),)),
    ("avg_pool2d", lambda x: _F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
     lambda: (dbl(1, 2, 6, 5),)),
    ("adaptive_avg_pool2d", lambda x: _F.adaptive_avg_pool2d(x, (3, 2)), lambda: (dbl(1, 2, 7, 5),)),
    ("batch_norm", lambda x, w, b: _F.batch_norm(x, None, None, w, b, training=True), lambda: (dbl(3, 2, 4), dbl(2),
                                                                                               dbl(2))),
    ("batch_norm_eval", lambda x, w: _F.batch_norm(x, torch.zeros(2, dtype=torch.float64),
                                                    torch.ones(2, dtype=torch.float64), w),
     lambda: (dbl(3, 2), dbl(2))),
    ("layer_norm", lambda x, w, b: _F.layer_norm(x, (3,), w, b), lambda: (dbl(2, 3), dbl(3), dbl(3))),
    ("group_norm", lambda x, w, b: _F.group_norm(x, 2, w, b), lambda: (dbl(2, 4, 3), dbl(4), dbl(4))),
    ("interpolate_nearest", lambda x: (_F.interpolate(x, scale_factor=1.5) ** 2).sum() + _F.interpolate(x[0], size=7),
     lambda: (dbl(1, 2, 3, 4),)),
    ("interpolate_bilinear", lambda x: (_F.interpolate(x, scale_factor=1.5, mode="bilinear") ** 2).sum()
     + _F.interpolate(x[0], size=5, mode="linear"), lambda: (dbl(1, 2, 3, 4),)),
]
_gn_stats = torch.native_group_norm(dbl(2, 4, 3, requires_grad=False), None, None, 2, 4, 3, 2, 1e-5)
# the group norm's backward op itself (under create_graph the formula composes torchlite ops, as upstream's
# infinitely_differentiable_native_group_norm_backward)
NODE_ONLY += [(lambda g, x: torch._ops.native_group_norm_backward(g, x, _gn_stats[1], _gn_stats[2], None, 2, 4, 3, 2,
                                                                  [True, False, False])[0],
               lambda: (dbl(2, 4, 3), dbl(2, 4, 3)))]
# issue 15, the conv family's second part: unfold / fold (im2col / col2im), bicubic upsampling, bilinear's
# _trilinear, circular padding; embedding_bag's nodes (torch gives its backward no derivative: node only)
OPS += [
    ("unfold", lambda x: _F.unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)) ** 2,
     lambda: (dbl(2, 2, 4, 5),)),
    ("fold", lambda c: _F.fold(c, (4, 5), (2, 2), padding=1, stride=2) ** 2, lambda: (dbl(2, 8, 9),)),
    ("interpolate_bicubic", lambda x: (_F.interpolate(x, scale_factor=1.5, mode="bicubic") ** 2).sum()
     + _F.interpolate(x, size=(2, 5), mode="bicubic", align_corners=True), lambda: (dbl(1, 2, 3, 4),)),
    ("bilinear", lambda a, b, w, c: _F.bilinear(a, b, w, c) ** 2, lambda: (dbl(2, 3), dbl(2, 4), dbl(5, 3, 4), dbl(5))),
    ("pad_circular", lambda x: _F.pad(x, (1, 2, 2, 0), mode="circular") ** 2, lambda: (dbl(2, 3, 4),)),
]
_bag_idx, _bag_off = torch.tensor([0, 2, 1, 2, 3]), torch.tensor([0, 2, 2])
NODE_ONLY += [(lambda w, p: _F.embedding_bag(_bag_idx, w, _bag_off, mode="sum", per_sample_weights=p),
               lambda: (dbl(4, 3), dbl(5))),
              (lambda w, p: torch.autograd.grad(_F.embedding_bag(_bag_idx, w, _bag_off, mode="sum",
                                                                 per_sample_weights=p).sum(), w, create_graph=True)[0],
               lambda: (dbl(4, 3), dbl(5)))]

# issue 14 (autograd): the in-place view op, the *_ex linalg ops, diagonal_copy, and the formulas whose saved
# fields changed (mm's strides of a column-major operand, split's split_size with a negative dim)
def _squeezed(a, *dim):
    b = a * 1
    b.squeeze_(*dim)
    return b


OPS += [
    ("squeeze_", lambda a: _squeezed(a), lambda: (dbl(2, 1, 3),)),
    ("squeeze__dim", lambda a: _squeezed(a, -2), lambda: (dbl(2, 1, 3),)),
    ("squeeze__dims", lambda a: _squeezed(a, (0, 1)), lambda: (dbl(1, 1, 3),)),
    ("inv_ex", lambda a: torch.linalg.inv_ex(a).inverse, lambda: (_wellcond(3),)),
    ("cholesky_ex", lambda a: torch.linalg.cholesky_ex(a @ a.mT + torch.tensor(3 * np.eye(3)), upper=True).L,
     lambda: (dbl(3, 3),)),
    ("diagonal_copy", lambda a: torch.diagonal_copy(a, 1, -1, 0), lambda: (dbl(2, 3, 4),)),
    ("mm_column_major", lambda a, b: torch.mm(a.mT, b.mT), lambda: (dbl(3, 2), dbl(2, 3))),
    ("split_neg_dim", lambda a: a.split(2, -1)[1], lambda: (dbl(2, 3),)),
]

# issue 15 (seq, the lstm helper): mkldnn_rnn_layer takes float32 only (oneDNN's), so its node is counted
# here and its float64 gradcheck / gradgradcheck run in tests/python/test_lstm_fused.py
NODE_ONLY += [(lambda x: torch.mkldnn_rnn_layer(x, *(torch.tensor(rng.uniform(-1, 1, s), dtype=torch.float32)
                                                     for s in ((8, 3), (8, 2), (8,), (8,), (1, 2), (1, 2))),
                                                False, [], 2, 2, 1, True, False, False, True)[0],
               lambda: (dbl(2, 1, 3).float().detach().requires_grad_(),))]

def _iadd(a, b):
    a += b
    return a


# issue 15 (attn): scaled_dot_product_attention's fused CPU op (its backward has no derivative upstream, so
# node only here; tests/python/test_sdpa_fused.py gradchecks its first order)
NODE_ONLY += [(lambda q, k, v: _F.scaled_dot_product_attention(q, k, v, is_causal=True),
               lambda: (dbl(1, 2, 3, 4), dbl(1, 2, 3, 4), dbl(1, 2, 3, 4))),
              (lambda q, k, v: torch.autograd.grad(_F.scaled_dot_product_attention(q, k, v).sum(), q,
                                                   create_graph=True)[0],
               lambda: (dbl(1, 2, 3, 4), dbl(1, 2, 3, 4), dbl(1, 2, 3, 4)))]


@pytest.mark.parametrize("fn,make_inputs", [c[1:] for c in OPS], ids=[c[0] for c in OPS])
def test_gradcheck_op(fn, make_inputs):
    assert gradcheck(fn, make_inputs())


@pytest.mark.parametrize("fn,make_inputs", [c[1:] for c in OPS], ids=[c[0] for c in OPS])
def test_gradgradcheck_op(fn, make_inputs):
    assert gradgradcheck(fn, make_inputs())


def _node_names(roots):
    # seen keeps the visited nodes alive: a freed one's id could be reused by the next
    seen, names, stack = {}, set(), [r for r in roots if r is not None]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen[id(node)] = node
        names.add(node.name())
        stack.extend(n for n, _ in node.next_functions if n is not None)
    return names


def test_cases_cover_every_op():
    """Every backward node the table defines (torchlite/_generated/specs.py) appears in the graphs (first and
    second order) that the cases above check."""
    source = (Path(torch.__file__).parent / "_generated" / "specs.py").read_text()
    defined = set(re.findall(r'_op_spec\("(\w+)"', source))
    reached = set()
    for _, fn, make_inputs in OPS:
        inputs = make_inputs()
        out = fn(*inputs)
        reached |= _node_names([out.grad_fn])
        diff = [i for i in inputs if i.requires_grad]
        grad_out = torch.ones_like(out, requires_grad=True)
        grads = torch.autograd.grad(out, diff, grad_out, create_graph=True, allow_unused=True)
        reached |= _node_names([g.grad_fn for g in grads if g is not None])
    for fn, make_inputs in NODE_ONLY:
        reached |= _node_names([fn(*make_inputs()).grad_fn])
    assert defined - reached == set()


class Cube(Function):
    @staticmethod
    def forward(ctx, x, scale):
        ctx.save_for_backward(x)
        ctx.scale = scale
        return x * x * x * scale

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x * x * ctx.scale, None


class WrongCube(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 2 * x * x  # should be 3 x^2


def test_custom_function_passes_gradcheck_and_gradgradcheck():
    x = dbl(2, 3)
    assert gradcheck(Cube.apply, (x, 0.5))
    assert gradgradcheck(Cube.apply, (x, 0.5))


def test_wrong_backward_fails_with_jacobian_mismatch():
    x = dbl(3)
    with pytest.raises(GradcheckError) as info:
        gradcheck(WrongCube.apply, (x,))
    msg = str(info.value)
    assert msg.startswith("Jacobian mismatch for output 0 with respect to input 0,\nnumerical:tensor(")
    assert "\nanalytical:tensor(" in msg
    # the diagonal of the Jacobian: numerical 3x^2, analytical 2x^2
    x0 = x.detach().numpy()
    numerical = np.array(eval(msg.split("numerical:tensor(")[1].split(", dtype")[0]))
    # printed to 4 decimals: within half a unit of the last one (a relative bound fails small values)
    np.testing.assert_allclose(np.diag(numerical), 3 * x0 ** 2, rtol=0, atol=5.1e-5)
    assert isinstance(info.value, RuntimeError)
    assert gradcheck(WrongCube.apply, (x,), raise_exception=False) is False


def test_wrong_second_derivative_fails_gradgradcheck_only():
    class OnceWrong(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sin()

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            # right value, but the cos of a detached x has the wrong derivative in x
            return grad * torch.cos(x.detach())

    x = dbl(3)
    assert gradcheck(OnceWrong.apply, (x,))
    with pytest.raises(GradcheckError, match="Jacobian mismatch for output 0 with respect to input 0"):
        gradgradcheck(OnceWrong.apply, (x,))


def test_backward_not_multiplied_by_grad_output():
    class IgnoresGrad(Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, grad):
            return torch.ones_like(grad)

    x = dbl(1)  # one element: its Jacobian (1) is right, only the zero grad_output exposes it
    with pytest.raises(GradcheckError, match="backward not multiplied by grad_output"):
        gradcheck(IgnoresGrad.apply, (x,))


def test_wrong_gradient_size_is_reported():
    class WrongShape(Function):
        @staticmethod
        def forward(ctx, x):
            return x.sum()

        @staticmethod
        def backward(ctx, grad):
            return grad.expand(2).clone()

    with pytest.raises((GradcheckError, RuntimeError)):
        gradcheck(WrongShape.apply, (dbl(3),))


def test_nondeterministic_backward_is_reported():
    calls = []

    class Drifting(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            calls.append(1)
            return grad * (2 + 1e-9 * len(calls))

    with pytest.raises(GradcheckError, match="Backward is not reentrant"):
        gradcheck(Drifting.apply, (dbl(2),), atol=1e-3)
    assert gradcheck(Drifting.apply, (dbl(2),), atol=1e-3, nondet_tol=1e-6)


def test_float32_input_warns_like_torch():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.warns(UserWarning, match="Input #0 requires gradient and is not a double precision floating point"):
        gradcheck(lambda a: a * 2, (x,), eps=1e-2, atol=1e-2, rtol=1e-2)


def test_float32_input_fails_default_tolerances():
    x = torch.tensor([0.3, 1.7, 2.9], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(GradcheckError, match="Jacobian mismatch"):
            gradcheck(torch.exp, (x,))


def test_no_input_requires_grad_is_an_error():
    with pytest.raises(ValueError, match="gradcheck expects at least one input tensor to require gradient, "
                                         "but none of them have requires_grad=True."):
        gradcheck(torch.exp, (dbl(2, requires_grad=False),))


def test_stride_zero_input_is_an_error():
    x = dbl(1, 3, requires_grad=False).expand(2, 3).requires_grad_()
    with pytest.raises(RuntimeError, match="The 0th input has a dimension with stride 0"):
        gradcheck(torch.exp, (x,))


def test_non_tensor_inputs_and_several_outputs():
    def f(a, k, b):
        return a * k, (a * b).sum(), (a > 0.0)

    assert gradcheck(f, (dbl(2, 2), 3.0, dbl(2, 2)))
    assert gradgradcheck(f, (dbl(2, 2), 3.0, dbl(2, 2)))


def test_output_without_grad_checks_numerical_zero():
    assert gradcheck(lambda a: a.detach().zero_() + 1.0, (dbl(2),))
    with pytest.raises(GradcheckError, match="Numerical gradient for function expected to be zero"):
        gradcheck(lambda a: (a * 2).detach(), (dbl(2),))


def test_undefined_grad_support_is_checked():
    class NonzeroWithoutGrad(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x.clone()

        @staticmethod
        def backward(ctx, grad):
            return torch.zeros(2, dtype=torch.float64) + 1.0 if grad is None else grad

    with pytest.warns(UserWarning, match="Backwards compatibility"):
        with pytest.raises(GradcheckError, match="Expected all input grads to be undefined or zero"):
            gradcheck(NonzeroWithoutGrad.apply, (dbl(2),))
    assert gradcheck(NonzeroWithoutGrad.apply, (dbl(2),), check_undefined_grad=False)


def test_gradgradcheck_with_given_grad_outputs():
    x = dbl(2, 3)
    g = dbl(2, 3)
    assert gradgradcheck(lambda a: a.tanh() * a, (x,), (g,))
    assert gradgradcheck(lambda a: a.exp(), (x,), gen_non_contig_grad_outputs=True)
    # grad_outputs that do not require grad are constants of the checked function
    assert gradgradcheck(lambda a: a.exp(), (x,), (dbl(2, 3, requires_grad=False),))


def test_gradcheck_matches_torch_verdicts_and_message():
    t = import_torch()
    x0 = rng.uniform(0.5, 1.5, size=3)

    class TorchWrongCube(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 2 * x * x

    tx = t.tensor(x0, requires_grad=True)
    lx = torch.tensor(x0, requires_grad=True)
    assert t.autograd.gradcheck(t.sin, (tx,)) and gradcheck(torch.sin, (lx,))
    with pytest.raises(t.autograd.gradcheck.GradcheckError if hasattr(t.autograd.gradcheck, "GradcheckError")
                       else RuntimeError) as tinfo:
        t.autograd.gradcheck(TorchWrongCube.apply, (tx,))
    with pytest.raises(GradcheckError) as linfo:
        gradcheck(WrongCube.apply, (lx,))
    first_line = "Jacobian mismatch for output 0 with respect to input 0,"
    assert str(tinfo.value).splitlines()[0] == first_line == str(linfo.value).splitlines()[0]
    assert str(linfo.value).split("\n")[1].startswith("numerical:tensor([[")
    assert str(tinfo.value).split("\n")[1].startswith("numerical:tensor([[")
