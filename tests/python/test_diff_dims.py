"""Differential tests of the dim arguments of the shape ops and reductions (issue 6):
every dim-taking op on 0-d, 1-d, empty and n-d tensors, over every dim from out of
range below to out of range above, must give torch's result (values, shape, dtype,
requires_grad, is_leaf, node name and the gradient of a backward through it) or raise
torch's exception with torch's message. Also: matrix transposes (T, mT, mH, H, t(),
adjoint()) by rank, expand's size rules, size()/stride() of a 0-d tensor, and
reductions over empty dimensions.
"""
import warnings

import numpy as np
import pytest
import torch

import torchlite

from diff_utils import norm

SHAPES = [(), (3,), (0,), (1,), (2, 3), (2, 1, 3), (0, 3), (3, 0)]
SHAPE_IDS = ["0d", "1d", "1d_empty", "1d_one", "2d", "3d", "2d_empty0", "2d_empty1"]
DIMS = [-4, -3, -2, -1, 0, 1, 2, 3]

# `{d}` takes each of DIMS in turn
PER_DIM = [
    "y.sum({d})", "y.sum({d}, keepdim=True)", "y.sum(({d}, 0))", "y.sum([{d}])",
    "y.mean({d})", "y.mean({d}, keepdim=True)", "y.mean(dim=({d},))",
    "y.max({d})", "y.min({d})", "y.max({d}, keepdim=True)", "y.min(dim={d}).indices",
    "y.squeeze({d})", "y.squeeze(({d},))", "y.squeeze(({d}, -1))", "y.unsqueeze({d})",
    "y.transpose({d}, 0)", "y.transpose(-1, {d})", "y.permute({d})", "y.permute({d}, 0)", "y.permute(1, 0, {d})",
    "y.narrow({d}, 0, 1)", "y.narrow({d}, 0, 0)", "y.split(1, {d})", "y.split([1, 1], {d})", "y.chunk(2, {d})",
    "y.unbind({d})", "y.diagonal(0, {d}, -1)", "y.diagonal(1, 0, {d})", "y.size({d})", "y.stride({d})",
    "y.expand({d})", "y.expand(2, {d})",
]

WHOLE = [
    "y.sum()", "y.sum(())", "y.sum([], keepdim=True)", "y.mean()", "y.mean(())", "y.max()", "y.min()",
    "y.squeeze()", "y.squeeze(())", "y.permute()", "y.permute(())", "y.permute([])", "y.expand()", "y.expand(-1)",
    "y.expand(1, -1)", "y.expand(-1, -1)", "y.expand(2, 3)", "y.expand(4, 2, 3)", "y.expand(-1, 2, 3)",
    "y.expand(2, -1, -1)", "y.expand_as(lib.ones(1, 2))", "y.expand_as(lib.ones(2, 3))",
    "y.expand_as(lib.ones(4, 2, 1, 3))",
    "y.t()", "x.t()", "y.T", "x.T", "y.mT", "x.mT", "y.mH", "x.mH", "y.H", "x.H", "y.adjoint()",
    "x.mT is x", "x.mH is x", "x.H is x", "y.mT.mT", "y.size()", "y.stride()", "y.dim()", "y.item()",
    "y.size(-1)", "y.size(0.5)", "y.size(True)", "y.stride(0.5)", "y.unsqueeze(0.5)", "y.transpose(0.5, 0)",
    "y.chunk(0)", "y.chunk(3)", "y.split(0)", "y.diagonal()",
    "y.transpose()", "y.transpose(0)", "y.unsqueeze()", "lib.transpose(y)", "lib.unsqueeze(y)", "lib.permute(y)",
    "lib.t(y)", "lib.squeeze(y, 0)", "lib.max(y, -1)", "lib.sum(y, (0,))",
]


def describe(value):
    if isinstance(value, (torch.Tensor, torchlite.Tensor)):
        fn = value.grad_fn
        return ("tensor", norm(value), value.requires_grad, value.is_leaf, None if fn is None else fn.name())
    if isinstance(value, (tuple, list)):
        return tuple(describe(v) for v in value)
    return norm(value)


def run(expr, lib, shape):
    """expr's result on x (a leaf) and y = x * 1, with the gradient a backward through it gives x."""
    data = np.arange(1, int(np.prod(shape)) + 1, dtype=np.float64).reshape(shape) if shape else np.float64(2.5)
    x = lib.tensor(data, requires_grad=True)
    y = x * 1
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # .T on a tensor that is not 2-D: torch warns once a process
            out = eval(expr, {"lib": lib, "x": x, "y": y})
    except Exception as err:  # noqa: BLE001 - compared between libraries
        return ("raise", type(err).__name__, norm(str(err)))
    parts = out if isinstance(out, tuple) else (out,)
    used = [p for p in parts if isinstance(p, (torch.Tensor, torchlite.Tensor)) and p.requires_grad]
    grad = None
    if used:
        sum(((p * (i + 1)).sum() for i, p in enumerate(used)), lib.zeros(())).backward()
        grad = norm(x.grad)
    return ("ok", describe(out), grad)


def check(expr, shape):
    ref = run(expr, torch, shape)
    assert run(expr, torchlite, shape) == ref, (expr, shape)


@pytest.mark.parametrize("shape", SHAPES, ids=SHAPE_IDS)
@pytest.mark.parametrize("template", PER_DIM)
def test_dim_arguments_as_torch(template, shape):
    for d in DIMS:
        check(template.format(d=d), shape)


@pytest.mark.parametrize("shape", SHAPES, ids=SHAPE_IDS)
@pytest.mark.parametrize("expr", WHOLE)
def test_shape_ops_as_torch(expr, shape):
    check(expr, shape)


def test_0d_transposes_are_the_tensor_itself():
    for lib in (torch, torchlite):
        x = lib.tensor(2.0, requires_grad=True)
        assert x.mT is x and x.mH is x and x.H is x and x.adjoint() is x
        assert x.t() is not x and x.t().grad_fn.name() == "TBackward0"


@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (0,), (2, 0, 3)])
@pytest.mark.parametrize("op", ["max", "min"])
def test_extrema_over_an_empty_dimension(op, shape):
    for d in range(-len(shape), len(shape)):
        for keepdim in (False, True):
            check(f"y.{op}({d}, keepdim={keepdim})", shape)
    check(f"y.{op}()", shape)


LAYOUTS = ["y", "y.t()", "y[:, :2]", "lib.as_strided(y, (2, 2), (1, 2))", "y.unsqueeze(1)", "y.expand(2, 4, 4)",
           "y[::2]", "y.t().t()"]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", ["(-1,)", "(1, -1)", "(2, 1, -1)", "v.shape"])
def test_reshape_is_a_view_alias_or_copy_as_in_torch(layout, shape):
    """torch's reshape: view of a contiguous tensor (ViewBackward0), else an alias with computed
    strides where one exists (ReshapeAliasBackward0), else a copy (UnsafeViewBackward0)."""
    for op in ("reshape", "view"):
        check(f"(lambda v: v.{op}({shape}))({layout})", (4, 4))


def gradient_graph(expr, lib, shape):
    """The gradient of sum(f(x)**2) under create_graph (value, requires_grad, node name), then the
    gradient of its sum: the nodes torch's formulas build for squeeze and the reductions."""
    data = np.random.default_rng(0).permutation(max(1, int(np.prod(shape)))).astype(np.float64)[:int(np.prod(shape))]
    x = lib.tensor(data.reshape(shape), requires_grad=True)
    try:
        out = eval(expr, {"x": x})
        g, = lib.autograd.grad((out * out).sum(), x, create_graph=True)
        first = (norm(g), g.requires_grad, None if g.grad_fn is None else g.grad_fn.name())
        g.sum().backward()
    except Exception as err:  # noqa: BLE001 - compared between libraries
        return ("raise", type(err).__name__, norm(str(err)))
    return first, norm(x.grad)


GRAPH_EXPRS = ["x.squeeze()", "x.squeeze(0)", "x.squeeze(-1)", "x.squeeze((0, -1))", "x.max()", "x.min()",
               "x.max(0).values", "x.min(-1, keepdim=True).values", "x.max(dim=-1)[0]", "x.mean()", "x.mean(0)",
               "x.mean((0, -1), keepdim=True)", "x.sum()", "x.sum(-1)", "x.sum(0, keepdim=True)", "x.t()", "x.T",
               "x.mT"]


@pytest.mark.parametrize("shape", [(), (3,), (1,), (4, 3, 1), (1, 3), (2, 1, 3)])
@pytest.mark.parametrize("expr", GRAPH_EXPRS)
def test_gradient_graphs_of_squeeze_and_extrema(expr, shape):
    ref = gradient_graph(expr, torch, shape)
    assert gradient_graph(expr, torchlite, shape) == ref


@pytest.mark.parametrize("values", [[1.0, 3.0, 3.0, 2.0], [3.0, 3.0, 3.0, 3.0], [1.0, float("nan"), 2.0, float("nan")]])
@pytest.mark.parametrize("op", ["max", "min"])
def test_gradient_graph_of_extrema_with_ties(op, values):
    def prog(lib):
        x = lib.tensor(values, requires_grad=True)
        g, = lib.autograd.grad(getattr(x, op)() ** 2, x, create_graph=True)
        first = (norm(g), g.requires_grad, g.grad_fn.name())
        g.sum().backward()
        return first, norm(x.grad)
    assert prog(torchlite) == prog(torch)


@pytest.mark.parametrize("case", ["0d", "leading", "size1", "cast", "cast_0d"])
def test_broadcast_gradient_reduced_then_cast_as_torch(case):
    """The engine's sum_to (a 0-d shape: a plain sum) and then its cast to the input's dtype, so the
    gradient graph's last node is torch's (SumBackward0 / ViewBackward0 / SumBackward1 / ToCopyBackward0)."""
    def prog(lib):
        shape, dtype = {"0d": ((), "float32"), "leading": ((4,), "float32"), "size1": ((3, 1, 4), "float32"),
                        "cast": ((3, 1, 1), "float64"), "cast_0d": ((), "float64")}[case]
        w = lib.tensor(np.linspace(0.5, 1.5, int(np.prod(shape))).reshape(shape), dtype=getattr(lib, dtype),
                       requires_grad=True)
        a = lib.tensor(np.arange(24.0).reshape(3, 2, 4) / 8 + 2, dtype=lib.float32)
        y = a.sub_(w) if dtype == "float64" else a * w
        g, = lib.autograd.grad((y * y).sum(), w, create_graph=True)
        first = (norm(g), g.requires_grad, g.grad_fn.name())
        g.sum().backward()
        return first, norm(w.grad)
    assert prog(torchlite) == prog(torch)
