"""Issue 13's shape and indexing ops against torch (the oracle): values and dtypes, strides,
whether the result is a view (and of what), gradients, node names and saved fields, errors
(type and message); gradcheck and gradgradcheck in float64; and a sweep of getitem / setitem
keys with their gradients. Each case runs on torchlite's "cpu" and "sim:0" and on torch's cpu."""

import itertools
import warnings

import numpy as np
import pytest

import torchlite
from diff_utils import import_torch, run
from torchlite.autograd import gradcheck, gradgradcheck

torch = import_torch()

DEVICES = ["cpu", "sim:0"]
CASES = {}


def case(fn):
    # a second case of the same name would silently replace the first
    assert fn.__name__ not in CASES, f"duplicate case name {fn.__name__}"
    CASES[fn.__name__] = fn
    return fn


def _dev(lib, dev):
    return dev if lib is torchlite else "cpu"


A = np.arange(24, dtype=np.float64).reshape(2, 3, 4) * 0.5 - 3.0


def leaf(lib, dev, data=A, dtype=None):
    return lib.tensor(
        data, device=_dev(lib, dev), dtype=dtype if dtype is not None else lib.float32, requires_grad=True
    )


def T(lib, dev, data, dtype=None):
    return lib.tensor(data, device=_dev(lib, dev), dtype=dtype)


def _signed(v):
    """An int field as a signed int64: torch's getters show a negative int64 field (a dim as given,
    -1) as its unsigned value (2 ** 64 - 1), torchlite's as the int."""
    if isinstance(v, int) and not isinstance(v, bool) and v >= 2**63:
        return v - 2**64
    if isinstance(v, tuple):
        return tuple(_signed(x) for x in v)
    return v


def _saved(node):
    """The node's _saved_* fields (tensors as values), by name."""
    out = {}
    for name in sorted(a for a in dir(node) if a.startswith("_saved_")):
        out[name] = _signed(getattr(node, name))
    return out


def _strides(t, size1=True):
    """t's strides; without size1, those of its size-1 dimensions left out (any serves there)."""
    return tuple(st for st, n in zip(t.stride(), t.shape, strict=True) if size1 or n != 1)


def describe(lib, outs, leaves, saved=True, size1_strides=True):
    """What an op shows: each output's values, node, saved fields, strides and view-ness,
    and the leaves' gradients through the outputs (weighted so that a wrong one shows)."""
    outs = outs if isinstance(outs, (tuple, list)) else (outs,)
    shown, loss = [], None
    for o in outs:
        is_view = o._is_view()
        base_is_leaf = is_view and any(o._base is x for x in leaves)
        node = o.grad_fn
        shown.append(
            (
                o,
                node.name() if node is not None else None,
                _saved(node) if node is not None and saved else None,
                _strides(o, size1_strides),
                is_view,
                base_is_leaf,
            )
        )
        if o.requires_grad and o.dtype.is_floating_point:
            w = lib.arange(o.numel(), dtype=o.dtype, device=o.device).reshape(o.shape) + 1
            term = (o * w).sum()
            loss = term if loss is None else loss + term
    grads = lib.autograd.grad(loss, leaves, allow_unused=True) if loss is not None else None
    return shown, grads


def check(fn, dev):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = run(lambda lib: fn(lib, dev), torchlite)
        want = run(lambda lib: fn(lib, dev), torch)
    assert got == want, _first_diff(got, want)


def _first_diff(a, b, path="result"):
    """Where two results first differ (for the assertion's message)."""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if x != y:
                return _first_diff(x, y, f"{path}[{i}]")
    if isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys():
        for k in a:
            if a[k] != b[k]:
                return _first_diff(a[k], b[k], f"{path}[{k!r}]")
    return f"{path}: torchlite {a!r} != torch {b!r}"


# Views ------------------------------------------------------------------------------------------------------


@case
def flatten(lib, dev):
    x = leaf(lib, dev)
    return describe(
        lib,
        (
            x.flatten(),
            lib.flatten(x, 1),
            x.flatten(0, 1),
            x.flatten(-2, -1),
            x.transpose(0, 2).flatten(),
            x.transpose(0, 1).flatten(1),
            x.sum().flatten(),
            x.flatten(start_dim=2),
        ),
        [x],
    )


@case
def flatten_same_dim_is_self(lib, dev):
    x = leaf(lib, dev)
    return x.flatten(1, 1) is x, x.flatten(-1, 2) is x


@case
def flatten_errors(lib, dev):
    return [run(f, lib) for f in (lambda _: leaf(lib, dev).flatten(2, 1), lambda _: leaf(lib, dev).flatten(0, 3))]


@case
def unflatten(lib, dev):
    x = leaf(lib, dev)
    return describe(
        lib,
        (
            x.unflatten(2, (2, 2)),
            lib.unflatten(x, -1, (2, -1)),
            x.unflatten(0, (1, 2, 1)),
            x.transpose(1, 2).unflatten(1, (2, 2)),
        ),
        [x],
    )


@case
def unflatten_errors(lib, dev):
    x = leaf(lib, dev)
    return [
        run(f, lib)
        for f in (
            lambda _: x.unflatten(1, (2, 2)),
            lambda _: x.unflatten(1, ()),
            lambda _: x.unflatten(-1, (3, 3)),
            lambda _: x.unflatten(2, (-1, 3)),
            lambda _: x.unflatten(3, (1, 3)),
        )
    ]


@case
def movedim(lib, dev):
    x = leaf(lib, dev)
    return describe(
        lib,
        (
            x.movedim(0, 2),
            lib.movedim(x, (0, 1), (2, 0)),
            x.moveaxis(-1, 0),
            lib.moveaxis(x, [1], [1]),
            x.movedim((2, 0, 1), (0, 1, 2)),
        ),
        [x],
    )


@case
def movedim_errors(lib, dev):
    x = leaf(lib, dev)
    return [
        run(f, lib)
        for f in (
            lambda _: x.movedim((0, 1), (1,)),
            lambda _: x.movedim((0, 0), (1, 0)),
            lambda _: x.movedim((0, 1), (1, 1)),
            lambda _: x.movedim(3, 0),
        )
    ]


@case
def swapaxes(lib, dev):
    x = leaf(lib, dev)
    # (transpose keeps its dims wrapped, where torch keeps them as given: non-negative dims here)
    return describe(lib, (x.swapaxes(0, 2), lib.swapaxes(x, 1, 2), x.swapdims(0, 1), lib.swapdims(x, 2, 2)), [x])


@case
def select(lib, dev):
    x = leaf(lib, dev)
    # select's fields are kept hidden here (its key): node names and views only
    return describe(lib, (x.select(1, 2), lib.select(x, -1, -4), x.select(0, 0)), [x], saved=False)


@case
def select_errors(lib, dev):
    x = leaf(lib, dev)
    return [
        run(f, lib)
        for f in (
            lambda _: x.select(1, 3),
            lambda _: x.select(2, -5),
            lambda _: x.select(3, 0),
            lambda _: x.sum().select(0, 0),
        )
    ]


@case
def broadcast_to(lib, dev):
    x = leaf(lib, dev, A[:, :1])
    return describe(
        lib, (x.broadcast_to((2, 3, 4)), lib.broadcast_to(x, (5, 2, 1, 4)), x.broadcast_to((-1, 2, -1, 4))), [x]
    )


@case
def broadcast_to_errors(lib, dev):
    x = leaf(lib, dev)
    return [run(f, lib) for f in (lambda _: x.broadcast_to((2, 4)), lambda _: x.broadcast_to((3, 3, 4)))]


@case
def broadcast_tensors(lib, dev):
    x, y, z = leaf(lib, dev), leaf(lib, dev, A[0, :, :1]), leaf(lib, dev, 2.5)
    outs = lib.broadcast_tensors(x, y, z)
    return describe(lib, outs, [x, y, z]), outs[0] is x, len(lib.broadcast_tensors(x))


@case
def broadcast_tensors_error(lib, dev):
    return run(lambda _: lib.broadcast_tensors(leaf(lib, dev), leaf(lib, dev, A[:, :2])), lib)


@case
def atleast(lib, dev):
    s, v, m, c = leaf(lib, dev, 1.5), leaf(lib, dev, A[0, 0]), leaf(lib, dev, A[0]), leaf(lib, dev)
    outs = [f(t) for f in (lib.atleast_1d, lib.atleast_2d, lib.atleast_3d) for t in (s, v, m, c)]
    same = [o is t for o, t in zip(outs, [s, v, m, c] * 3, strict=True)]
    # (unsqueeze keeps its dim wrapped, where torch keeps it as given: no saved fields here)
    return (
        describe(lib, outs, [s, v, m, c], saved=False),
        same,
        [tuple(o.shape) for o in lib.atleast_2d(s, v)],
        [tuple(o.shape) for o in lib.atleast_3d([s, m])],
        lib.atleast_1d(),
    )


@case
def stacks(lib, dev):
    v, w, m, c = leaf(lib, dev, A[0, 0]), leaf(lib, dev, A[1, 1]), leaf(lib, dev, A[0]), leaf(lib, dev)
    s = leaf(lib, dev, 2.0)
    return describe(
        lib,
        (
            lib.hstack([v, w]),
            lib.hstack((m, m)),
            lib.hstack([s, v]),
            lib.vstack([v, w]),
            lib.vstack([m, v]),
            lib.row_stack([v, v]),
            lib.dstack([v, w]),
            lib.dstack([m, m]),
            lib.dstack((c, c)),
            lib.column_stack([v, w]),
            lib.column_stack([m.t(), v[:4:2].reshape(2), s.expand(4)]),
            lib.column_stack([s, s]),
        ),
        [v, w, m, c, s],
    )


@case
def stacks_errors(lib, dev):
    v, m = leaf(lib, dev, A[0, 0]), leaf(lib, dev, A[0])
    return [
        run(f, lib)
        for f in (
            lambda _: lib.hstack([]),
            lambda _: lib.vstack([]),
            lambda _: lib.dstack([]),
            lambda _: lib.column_stack([]),
            lambda _: lib.vstack([v, m[:, :3]]),
            lambda _: lib.hstack([v, m]),
        )
    ]


@case
def unfold(lib, dev):
    x = leaf(lib, dev)
    return describe(
        lib,
        (
            x.unfold(2, 2, 1),
            x.unfold(1, 2, 2),
            x.unfold(-1, 4, 3),
            x.unfold(0, 1, 1),
            x.transpose(0, 2).unfold(2, 2, 1),
            x.sum().unfold(0, 1, 1),
            x.unfold(2, 0, 1),
        ),
        [x],
    )


@case
def unfold_errors(lib, dev):
    x = leaf(lib, dev)
    return [
        run(f, lib)
        for f in (
            lambda _: x.unfold(1, 5, 1),
            lambda _: x.unfold(1, 2, 0),
            lambda _: x.unfold(1, -1, 1),
            lambda _: x.unfold(3, 1, 1),
        )
    ]


@case
def view_like(lib, dev):
    x, y = leaf(lib, dev), leaf(lib, dev, A.reshape(4, 6))
    return describe(lib, (x.view_as(y), x.reshape_as(y), x[:, :1].expand_as(x), x.T, x.mT, x[0].T), [x, y], saved=False)


@case
def existing_shape_ops_errors(lib, dev):
    """The shape ops issue 12 brought, checked again: torch's words in the cases issue 13 found."""
    x = leaf(lib, dev)
    cases = (
        lambda _: x.narrow(1, 0, -1),
        lambda _: x.narrow(1, 5, -1),
        lambda _: x.narrow(1, 2, 2),
        lambda _: x.split(-1, 1),
        lambda _: x.split(0, 1),
        lambda _: x[:, :0].reshape(0, -1),
        lambda _: x.view(-1, -1),
        lambda _: x.view(5, -1),
        lambda _: (lib.flip(x, dims=[0]), x.flip(dims=(1, 2))),
    )
    return [run(f, lib) for f in cases]


@case
def layouts_of_copies(lib, dev):
    """The copies keep torch's layout of a transposed input (flip, index_fill and rot90 preserve it)."""
    x = leaf(lib, dev)
    t = x.transpose(0, 2)
    i = T(lib, dev, [[[0, 1]], [[1, 0]], [[2, 2]], [[0, 0]]])
    return describe(
        lib,
        (
            t.flip(0),
            t.rot90(1, (0, 1)),
            t.rot90(2, (0, 2)),
            t.rot90(3, (1, 2)),
            t.rot90(0),
            t.roll(1, 0),
            t.repeat(1, 1, 1),
            t.index_fill(1, T(lib, dev, [1]), 0.5),
            t.index_copy(2, T(lib, dev, [1]), t[:, :, :1] * 2),
            t.index_add(2, T(lib, dev, [0]), t[:, :, :1]),
            t.scatter(2, i, 1.0),
            t.scatter_add(2, i, t),
            t.masked_fill(t > 0, 1.0),
            t.masked_scatter(t > 0, t * 2),
            t.gather(2, i),
            t.index_select(2, T(lib, dev, [1, 0])),
            t.take(i),
            t.masked_select(t > 0),
            t.unfold(1, 2, 1),
            t.flatten(1),
            t.repeat_interleave(2, 0),
        ),
        [x],
    )


@case
def inplace_on_new_views(lib, dev):
    """In-place ops through the new views reach their base (CopySlices), with torch's grads."""
    x = leaf(lib, dev)
    y = x * 1
    y.flatten().mul_(2)
    y.unflatten(2, (2, 2)).add_(1)
    y.movedim(0, 2)[0].mul_(3)
    y.swapaxes(0, 1).select(0, 1).sub_(1)
    y.unfold(2, 2, 2)[..., 0].mul_(5)
    return describe(lib, (y,), [x])


# Copies with their own nodes ---------------------------------------------------------------------------------


@case
def flip(lib, dev):
    x = leaf(lib, dev)
    return describe(
        lib,
        (
            x.flip(0),
            lib.flip(x, (0, 2)),
            x.flip(-1, 1),
            x.flip(()),
            x.flip([]),
            x.fliplr(),
            lib.flipud(x),
            x.sum().flip(0),
        ),
        [x],
    )


@case
def flip_errors(lib, dev):
    x = leaf(lib, dev)
    return [
        run(f, lib)
        for f in (lambda _: x.flip(0, 0), lambda _: x.flip(3), lambda _: x[0, 0].fliplr(), lambda _: x.sum().flipud())
    ]


@case
def roll(lib, dev):
    x = leaf(lib, dev)
    return describe(
        lib,
        (
            x.roll(1),
            lib.roll(x, -5),
            x.roll(1, 0),
            x.roll((1, -2), (0, 2)),
            x.roll(7, -1),
            x.transpose(0, 2).roll(3),
            lib.roll(x, shifts=2, dims=1),
        ),
        [x],
    )


@case
def roll_errors(lib, dev):
    x = leaf(lib, dev)
    return [run(f, lib) for f in (lambda _: x.roll((1, 2), (0,)), lambda _: x.roll((1, 2)), lambda _: x.roll(1, 3))]


@case
def roll_empty(lib, dev):
    """roll_cpu clones an empty tensor before it wraps a dim: any dim passes (fuzzer seeds 719, 1066)."""
    x = leaf(lib, dev, np.zeros((0, 2)))
    return describe(lib, (x.roll(1, 2), lib.roll(x, (-2, -1), (0, 1)), x.roll((1, 1), (7, -9)), x.roll(3)), [x]) + [
        run(lambda _: x.roll((1, 2), (5,)), lib),
        run(lambda _: x.roll((), ()), lib),
    ]


@case
def rot90(lib, dev):
    x = leaf(lib, dev)
    return describe(
        lib, (x.rot90(), lib.rot90(x, 2), x.rot90(3, (1, 2)), x.rot90(-1, [2, 0]), x.rot90(0), x.rot90(5, (0, -1))), [x]
    )


@case
def rot90_errors(lib, dev):
    x = leaf(lib, dev)
    return [
        run(f, lib)
        for f in (
            lambda _: x.rot90(1, (0,)),
            lambda _: x.rot90(1, (0, -3)),
            lambda _: x[0, 0].rot90(),
            lambda _: x.rot90(1, (0, 1, 2)),
        )
    ]


@case
def repeat(lib, dev):
    x = leaf(lib, dev)
    return describe(
        lib,
        (
            x.repeat(1, 1, 1),
            x.repeat(2, 1, 3),
            x.repeat((2, 1, 1, 2)),
            x.repeat([1, 2, 1, 1, 1]),
            x.repeat(1, 0, 1),
            x.sum().repeat(3),
            x.sum().repeat(()),
        ),
        [x],
    )


@case
def repeat_errors(lib, dev):
    x = leaf(lib, dev)
    return [run(f, lib) for f in (lambda _: x.repeat(2), lambda _: x.repeat(-1, 2, 1))]


@case
def tile(lib, dev):
    x = leaf(lib, dev)
    return describe(lib, (x.tile(2), lib.tile(x, (2, 1)), x.tile((1, 1, 1, 2)), x.tile(()), x[0, 0].tile(3)), [x])


@case
def repeat_interleave(lib, dev):
    x = leaf(lib, dev)
    r = T(lib, dev, [1, 0, 2])
    return describe(
        lib,
        (
            x.repeat_interleave(2),
            lib.repeat_interleave(x, 2, dim=1),
            x.repeat_interleave(r, 1),
            x.repeat_interleave(T(lib, dev, [3]), dim=0),
            x.repeat_interleave(T(lib, dev, 2)),
            lib.repeat_interleave(r),
            x.sum().repeat_interleave(2),
            x.repeat_interleave(0, -1),
        ),
        [x],
    )


@case
def repeat_interleave_errors(lib, dev):
    x = leaf(lib, dev)
    return [
        run(f, lib)
        for f in (
            lambda _: x.repeat_interleave(T(lib, dev, [1, 2]), dim=1),
            lambda _: lib.repeat_interleave(T(lib, dev, [[1, 2]])),
            lambda _: lib.repeat_interleave(T(lib, dev, [1, -2])),
            lambda _: x.repeat_interleave(T(lib, dev, [1, 2]), dim=-1),
        )
    ]


# Indexing ops ---------------------------------------------------------------------------------------------

IDX = [[[0, 2, 1, 1], [2, 0, 0, 1]], [[1, 1, 2, 0], [0, 0, 1, 2]]]  # (2, 2, 4) into dim 1 of A


@case
def gather(lib, dev):
    x = leaf(lib, dev)
    i = T(lib, dev, IDX)
    return describe(
        lib,
        (
            x.gather(1, i),
            lib.gather(x, 2, i[:, :, :2]),
            x.gather(-1, i[:1, :1]),
            lib.gather(x, 0, T(lib, dev, [[[0, 1, 1, 0]]]), sparse_grad=False),
            x.sum().gather(0, T(lib, dev, [0, 0])),
            x.gather(1, i[:, :0]),
        ),
        [x],
    )


@case
def gather_errors(lib, dev):
    x = leaf(lib, dev)
    i = T(lib, dev, IDX)
    return [
        run(f, lib)
        for f in (
            lambda _: x.gather(1, i[0]),
            lambda _: x.gather(1, i.float()),
            lambda _: x.gather(2, i.repeat(2, 1, 1)),
            lambda _: x.gather(1, i + 1),
            lambda _: x.gather(1, i - 1),
            lambda _: x.gather(3, i),
        )
    ]


@case
def take_along_dim_check_order(lib, dev):
    """_take_along_dim_helper's checks in order: ranks, then the dtype, then the dim (seed 1396)."""
    x = leaf(lib, dev)
    return [
        run(f, lib)
        for f in (
            lambda _: lib.take_along_dim(x, T(lib, dev, [], lib.int64), -4),
            lambda _: lib.take_along_dim(x, T(lib, dev, [0], lib.int32), 7),
            lambda _: lib.take_along_dim(x, T(lib, dev, [[[0]]], lib.int32), 7),
            lambda _: lib.take_along_dim(x, T(lib, dev, [[[0]]], lib.int64), 3),
            lambda _: lib.take_along_dim(x[0, 0, 0], T(lib, dev, [0], lib.int64), 0),
            lambda _: lib.take_along_dim(x[0, 0, 0], T(lib, dev, 0, lib.int64), 0),
            lambda _: lib.take_along_dim(x, T(lib, dev, [[[1]]], lib.int32)),
        )
    ]


@case
def scatter(lib, dev):
    x, s = leaf(lib, dev), leaf(lib, dev, A[:, ::-1] * 2)
    i = T(lib, dev, [[[0, 2, 1, 1], [2, 0, 1, 0]], [[1, 0, 2, 2], [0, 1, 2, 1]]])  # distinct along dim 1
    return describe(
        lib,
        (
            x.scatter(1, i, s),
            lib.scatter(x, 1, i, 2.5),
            x.scatter(2, T(lib, dev, [[[3, 0], [1, 2]], [[0, 1], [2, 3]]]), s),
            x.scatter(dim=1, index=i, value=-1),
            x.scatter(1, i[:, :0], s),
        ),
        [x, s],
    )


@case
def scatter_add(lib, dev):
    x, s = leaf(lib, dev), leaf(lib, dev, A[:, ::-1] * 2)
    i = T(lib, dev, IDX)
    return describe(
        lib,
        (
            x.scatter_add(1, i, s),
            lib.scatter_add(x, 2, i[:, :, :3], s),
            x.scatter_add(0, T(lib, dev, [[[0, 1, 1, 0]]]), s),
        ),
        [x, s],
    )


@case
def scatter_reduce(lib, dev):
    x = leaf(lib, dev, [[1.0, 2.0, 0.0, 4.0], [3.0, 0.0, 5.0, 1.0]])
    s = leaf(lib, dev, [[2.0, 0.0, 3.0], [1.0, 1.0, 5.0]])
    i = T(lib, dev, [[0, 0, 3], [1, 2, 2]])
    outs = [
        x.scatter_reduce(1, i, s, r, include_self=inc)
        for r in ("sum", "prod", "mean", "amax", "amin")
        for inc in (True, False)
    ]
    return describe(lib, outs + [lib.scatter_reduce(x, -1, i[:, :0], s, "sum")], [x, s])


@case
def scatter_reduce_int(lib, dev):
    x = T(lib, dev, [[1, 2, 0, 4], [3, 0, 5, 1]])
    i = T(lib, dev, [[0, 0, 3], [1, 2, 2]])
    return [
        x.scatter_reduce(1, i, x[:, :3] * 3, r, include_self=inc)
        for r in ("sum", "prod", "mean", "amax", "amin")
        for inc in (True, False)
    ]


@case
def scatter_reduce_errors(lib, dev):
    x, s = leaf(lib, dev), leaf(lib, dev, A * 2)
    i = T(lib, dev, IDX)
    legacy = x.scatter_reduce(1, i, s, "max")
    return [
        run(f, lib)
        for f in (
            lambda _: x.scatter_reduce(1, i, s, "foo"),
            lambda _: x.scatter_reduce(1, i, s.double(), "sum"),
            lambda _: (legacy, legacy.grad_fn._saved_reduce, x.scatter_reduce(1, i, s, "min")),
            lambda _: legacy.sum().backward(),
            lambda _: x.scatter_reduce(1, i.float(), s, "sum"),
            lambda _: x.scatter_reduce(3, i, s, "sum"),
        )
    ]


@case
def scatter_reduce_arg(lib, dev):
    x = T(lib, dev, A)
    i = T(lib, dev, IDX)
    return x.scatter(1, i, 2.0, reduce="add"), x.scatter(1, i, x[:, :2] + 1, reduce="multiply")


@case
def scatter_errors(lib, dev):
    x, s = leaf(lib, dev), leaf(lib, dev, A * 2)
    i = T(lib, dev, IDX)
    return [
        run(f, lib)
        for f in (
            lambda _: x.scatter(1, i, s.double()),
            lambda _: x.scatter(1, i.float(), s),
            lambda _: x.scatter(1, i.repeat(1, 1, 2), s),
            lambda _: x.scatter(1, i, s[:, :1]),
            lambda _: x.scatter(1, i + 2, s),
            lambda _: x.scatter_add(1, i, s.double()),
            lambda _: x.scatter_add(1, i[0], s),
            lambda _: x.scatter(1, i, 1.0, reduce="max"),
        )
    ]


@case
def scatter_inplace(lib, dev):
    x, s = leaf(lib, dev), leaf(lib, dev, A[:, ::-1] * 2)
    i = T(lib, dev, [[[0, 2, 1, 1], [2, 0, 1, 0]], [[1, 0, 2, 2], [0, 1, 2, 1]]])
    y = x * 1
    r1 = y.scatter_(1, i, s)
    z = x * 1
    z.scatter_(-1, i, 3.0)
    w = x * 1
    w.scatter_add_(1, i, s)
    v = lib.zeros(2, 5, device=_dev(lib, dev)).scatter_(1, T(lib, dev, [[0, 1, 2], [4, 3, 2]]), 1.0)
    return describe(lib, (y, z, w), [x, s]), r1 is y, v, y._version


@case
def scatter_inplace_leaf_error(lib, dev):
    x = leaf(lib, dev)
    return run(lambda _: x.scatter_(1, T(lib, dev, IDX), 1.0), lib)


@case
def index_select(lib, dev):
    x = leaf(lib, dev)
    return describe(
        lib,
        (
            x.index_select(1, T(lib, dev, [2, 0, 2])),
            lib.index_select(x, -1, T(lib, dev, [3])),
            x.index_select(0, T(lib, dev, 1)),
            x.index_select(2, T(lib, dev, [], dtype=lib.int64)),
            x.sum().index_select(0, T(lib, dev, [0, 0])),
        ),
        [x],
    )


@case
def index_select_errors(lib, dev):
    x = leaf(lib, dev)
    return [
        run(f, lib)
        for f in (
            lambda _: x.index_select(1, T(lib, dev, [[0]])),
            lambda _: x.index_select(1, T(lib, dev, [3])),
            lambda _: x.index_select(1, T(lib, dev, [-1])),
            lambda _: x.index_select(1, T(lib, dev, [1.0])),
        )
    ]


@case
def index_add(lib, dev):
    x, s = leaf(lib, dev), leaf(lib, dev, A[:, :2] * 3)
    i = T(lib, dev, [2, 2])
    return describe(
        lib,
        (
            x.index_add(1, i, s),
            lib.index_add(x, 1, T(lib, dev, [0, 1]), s, alpha=-2.0),
            x.index_add(2, T(lib, dev, [3, 0, 3, 1]), s.reshape(2, 4, 2).transpose(1, 2).repeat(1, 1, 2)[:, :3]),
        ),
        [x, s],
    )


@case
def index_add_errors(lib, dev):
    x, s = leaf(lib, dev), leaf(lib, dev, A[:, :2] * 3)
    return [
        run(f, lib)
        for f in (
            lambda _: x.index_add(1, T(lib, dev, [0]), s),
            lambda _: x.index_add(1, T(lib, dev, [3, 0]), s),
            lambda _: x.index_add(1, T(lib, dev, [-1, 0]), s),
            lambda _: x.index_add(1, T(lib, dev, [0, 1]), s.double()),
            # index_func_meta_impl's order: index rank, index dtype, dtypes, dim of source, count, shapes
            lambda _: x.index_add(-1, T(lib, dev, [], lib.int64), s[0, 0]),
            lambda _: x.index_add(2, T(lib, dev, [], lib.int64), s[0]),
            lambda _: x.index_add(2, T(lib, dev, [0], lib.int16), s[0]),
            lambda _: x.index_add(2, T(lib, dev, [[0]]), s[0]),
            lambda _: x[0, 0].index_add(0, T(lib, dev, [0, 1]), s[0, 0, 0]),
            lambda _: x[0, 0].index_add(0, T(lib, dev, [0]), s[0, 0, 0]),
            lambda _: x[0].index_add(1, T(lib, dev, [0]), s[0, 0, 0]),
            lambda _: x[0, 0, 0].index_add(0, T(lib, dev, [0]), s[0, 0, :1]),
            lambda _: x.clone().index_add_(-1, T(lib, dev, [], lib.int64), s[0, 0]),
        )
    ]


@case
def index_add_scalars(lib, dev):
    x, s = leaf(lib, dev), leaf(lib, dev, A[:, :2] * 3)
    return describe(
        lib,
        (x[0, 0, 0].index_add(0, T(lib, dev, [0, 0]), s[0, 0, :2]), x[0, 0, 0].index_add(0, T(lib, dev, 0), s[0, 0, 1]),
         x.index_add(1, T(lib, dev, [2, 0], lib.int32), s)),
        [x, s],
    )


@case
def index_copy(lib, dev):
    x, s = leaf(lib, dev), leaf(lib, dev, A[:, :2] * 3)
    return describe(
        lib, (x.index_copy(1, T(lib, dev, [2, 0]), s), lib.index_copy(x, -2, T(lib, dev, [1, 2]), s)), [x, s]
    )


@case
def index_copy_errors(lib, dev):
    x, s = leaf(lib, dev), leaf(lib, dev, A[:, :2] * 3)
    cases = (
        lambda _: x.index_copy(1, T(lib, dev, [0]), s),
        lambda _: x.index_copy(1, T(lib, dev, [3, 0]), s),
        lambda _: x.index_copy(1, T(lib, dev, [0]), s.double()),  # the dtype before the count
        lambda _: x.sum().index_copy(0, T(lib, dev, [0]), s[0]),  # a 0-d self's slice shape
        lambda _: x.index_copy(1, T(lib, dev, [0.0, 1.0]), s),
        lambda _: x.index_copy(1, T(lib, dev, [[0, 1]]), s),
        lambda _: x.index_copy(1, T(lib, dev, [0, 1]), s.sum()),
        lambda _: x.index_copy(1, T(lib, dev, [0, 1]), s[0]),
        lambda _: x.index_copy(2, T(lib, dev, [0, 1]), s),
        lambda _: x.sum().index_copy(0, T(lib, dev, [0]), s[0, 0]),
        lambda _: x.sum().index_copy(0, T(lib, dev, [0]), T(lib, dev, [1.0])),
    )
    return [run(f, lib) for f in cases]


@case
def index_fill(lib, dev):
    x, v = leaf(lib, dev), leaf(lib, dev, 4.5)
    return describe(
        lib,
        (
            x.index_fill(1, T(lib, dev, [2, 0, 2]), -1.0),
            lib.index_fill(x, 2, T(lib, dev, [-1]), 7),
            x.index_fill(0, T(lib, dev, 1), v),
            x.index_fill(2, T(lib, dev, [1, 1, 2]), v),
        ),
        [x, v],
    )


@case
def index_fill_errors(lib, dev):
    x = leaf(lib, dev)
    return [
        run(f, lib)
        for f in (
            lambda _: x.index_fill(1, T(lib, dev, [3]), 1.0),
            lambda _: x.index_fill(1, T(lib, dev, [[0]]), 1.0),
            lambda _: x.index_fill(1, T(lib, dev, [0]), T(lib, dev, [1.0])),
        )
    ]


@case
def index_inplace(lib, dev):
    x, s, v = leaf(lib, dev), leaf(lib, dev, A[:, :2] * 3), leaf(lib, dev, 4.5)
    a, b, c, d = x * 1, x * 1, x * 1, x * 1
    a.index_add_(1, T(lib, dev, [2, 2]), s, alpha=2)
    b.index_copy_(1, T(lib, dev, [2, 0]), s)
    c.index_fill_(2, T(lib, dev, [0, 3]), v)
    d.index_fill_(1, T(lib, dev, [1]), 2.0)
    return describe(lib, (a, b, c, d), [x, s, v])


MASK = A % 3 > 0.7


@case
def masked_fill(lib, dev):
    x, v = leaf(lib, dev), leaf(lib, dev, 2.5)
    m = T(lib, dev, MASK)
    return describe(
        lib,
        (
            x.masked_fill(m, 0.0),
            lib.masked_fill(x, m[0, 0], -1),
            x.masked_fill(m, v),
            x[:, :1].masked_fill(m, v),
            x.masked_fill(T(lib, dev, True), 3.0),
        ),
        [x, v],
    )


@case
def masked_fill_errors(lib, dev):
    x = leaf(lib, dev)
    m = T(lib, dev, MASK)
    return [
        run(f, lib)
        for f in (
            lambda _: x.masked_fill(m.float(), 1.0),
            lambda _: x.masked_fill(m[:, :2], 1.0),
            lambda _: x.masked_fill(m, T(lib, dev, [1.0])),
        )
    ]


@case
def masked_fill_inplace(lib, dev):
    x, v = leaf(lib, dev), leaf(lib, dev, 2.5)
    m = T(lib, dev, MASK)
    y, z = x * 1, x * 1
    r = y.masked_fill_(m, 0.0)
    z.masked_fill_(m[0], v)
    return describe(lib, (y, z), [x, v]), r is y


@case
def masked_select(lib, dev):
    x = leaf(lib, dev)
    m = T(lib, dev, MASK)
    return describe(
        lib,
        (
            x.masked_select(m),
            lib.masked_select(x, m[0, :1]),
            x[:, :1].masked_select(m),
            x.masked_select(T(lib, dev, np.zeros_like(MASK))),
        ),
        [x],
    )


@case
def masked_select_errors(lib, dev):
    x = leaf(lib, dev)
    return [run(f, lib) for f in (lambda _: x.masked_select(x), lambda _: x.masked_select(T(lib, dev, MASK)[:, :2]))]


@case
def masked_scatter(lib, dev):
    x, s = leaf(lib, dev), leaf(lib, dev, A * -2)
    m = T(lib, dev, MASK)
    return describe(
        lib, (x.masked_scatter(m, s), lib.masked_scatter(x, m[0], s[0]), x[:1].masked_scatter(m, s)), [x, s]
    )


@case
def masked_scatter_errors(lib, dev):
    x, s = leaf(lib, dev), leaf(lib, dev, A * -2)
    m = T(lib, dev, MASK)
    return [
        run(f, lib)
        for f in (
            lambda _: x.masked_scatter(T(lib, dev, np.ones_like(MASK)), s[0]),
            lambda _: x.masked_scatter(m, s.double()),
        )
    ]


@case
def masked_scatter_inplace(lib, dev):
    x, s = leaf(lib, dev), leaf(lib, dev, A * -2)
    y = x * 1
    y.masked_scatter_(T(lib, dev, MASK), s)
    return describe(lib, (y,), [x, s])


@case
def take(lib, dev):
    x = leaf(lib, dev)
    return describe(
        lib,
        (
            x.take(T(lib, dev, [[0, 5], [23, 5]])),
            lib.take(x, T(lib, dev, -1)),
            x.transpose(0, 2).take(T(lib, dev, [1, 2, 3])),
        ),
        [x],
    )


@case
def take_errors(lib, dev):
    x = leaf(lib, dev)
    return [
        run(f, lib)
        for f in (
            lambda _: x.take(T(lib, dev, [24])),
            lambda _: x.take(T(lib, dev, [-25])),
            lambda _: x.take(T(lib, dev, [1.0])),
        )
    ]


@case
def take_along_dim(lib, dev):
    x = leaf(lib, dev)
    i = T(lib, dev, IDX)
    return describe(
        lib,
        (
            x.take_along_dim(i, 1),
            lib.take_along_dim(x, i[:1, :, :1], dim=1),
            lib.take_along_dim(x, T(lib, dev, [3, 0])),
            x.take_along_dim(T(lib, dev, [[[3], [0], [1]]]), -1),
        ),
        [x],
    )


@case
def take_along_dim_errors(lib, dev):
    x = leaf(lib, dev)
    i = T(lib, dev, IDX)
    return [
        run(f, lib)
        for f in (
            lambda _: x.take_along_dim(i[0], 1),
            lambda _: x.take_along_dim(i.float(), 1),
            lambda _: x.take_along_dim(i[:, :, :3], 1),
        )
    ]


@case
def nonzero_where(lib, dev):
    m = T(lib, dev, MASK)
    x = T(lib, dev, A)
    return (
        m.nonzero(),
        lib.nonzero(x),
        x.nonzero(as_tuple=True),
        lib.nonzero(m[0], as_tuple=True),
        lib.where(m),
        lib.where(x[0, 0]),
        T(lib, dev, 1.5).nonzero(),
        T(lib, dev, 0.0).nonzero(),
        T(lib, dev, 2.0).nonzero(as_tuple=True),
        lib.where(T(lib, dev, True)),
    )


@case
def out_variants(lib, dev):
    x = T(lib, dev, A)
    o = lambda: lib.empty(0, dtype=x.dtype, device=_dev(lib, dev))  # noqa: E731
    i = T(lib, dev, IDX)
    outs = [
        lib.gather(x, 1, i, out=o()),
        lib.index_select(x, 1, T(lib, dev, [0]), out=o()),
        lib.masked_select(x, T(lib, dev, MASK), out=o()),
        lib.take(x, T(lib, dev, [3]), out=o()),
        run(lambda _: lib.flip(x, (0,), out=o()), lib),
        lib.hstack([x, x], out=o()),
        lib.vstack([x, x], out=o()),
        lib.dstack([x, x], out=o()),
    ]
    return outs


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_against_torch(name, device):
    check(CASES[name], device)


# Indexing sweep --------------------------------------------------------------------------------------------


def _keys(lib, dev):
    t = lambda v: T(lib, dev, v)  # noqa: E731
    return [
        0,
        -1,
        2,
        5,
        -6,
        slice(None),
        slice(1, None),
        slice(None, None, 2),
        slice(-2, 10),
        None,
        Ellipsis,
        True,
        False,
        [0, 1],
        [1, -2, 1],
        [True, False],
        [[0], [1]],
        [],
        t([0, 1]),
        t([[1, 0], [1, 1]]),
        t(1),
        t([2]),
        t(MASK[0]),
        t(MASK),
        t(MASK[:, :, 0]),
        t(True),
        t(False),
        t([True, False]),
        (0, 1),
        (slice(None), 2),
        (Ellipsis, 1),
        (1, Ellipsis),
        (None, 0, None),
        (Ellipsis, None),
        (0, Ellipsis, 0),
        (slice(None), [0, 2]),
        ([0, 1], [2, 0]),
        ([0, 1], slice(None), [3, 1]),
        (t([1]), t([[0], [2]])),
        (slice(None), t(MASK[0])),
        (t(MASK[0, :, 0]),),
        (Ellipsis, t([3, -4])),
        (None, t([0, 1]), None, 1),
        (t([0]), 0, t([1, 2])),
        (True, 0),
        (0, False, 1),
        (slice(None), None, t([1, 2]), 0),
        (t(1), t(2)),
        (0, [1, 2], None),
        (t([0, 1]), Ellipsis, t([1, 0])),
        (slice(1, 2), t([[0, 1]]), slice(None, None, 3)),
        (t([2]), t([0, 1])),
        (t([5]),),
        (0, t([3])),
        (t([-3]),),
        (Ellipsis, Ellipsis),
        (0, 0, 0, 0),
        (t([0.5]),),
        (t(MASK[0, :2]),),
        ([0, 1], [0, 1, 2]),
        ("a",),
        (1.5,),
    ]


N_KEYS = len(_keys(np, "cpu") if False else _keys(torchlite, "cpu"))


def _key_repr(i):
    return f"key{i}"


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("k", range(N_KEYS), ids=_key_repr)
def test_getitem_sweep(k, device):
    def fn(lib, dev):
        x = leaf(lib, dev)
        key = _keys(lib, dev)[k]
        y = x[key]
        # (advanced indexing's results differ from torch's in the strides of size-1 dimensions only)
        return describe(lib, (y,), [x], saved=False, size1_strides=False)

    check(fn, device)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("k", range(N_KEYS), ids=_key_repr)
@pytest.mark.parametrize("value", ["number", "scalar_tensor", "tensor"])
def test_setitem_sweep(k, value, device):
    def fn(lib, dev):
        x, v = leaf(lib, dev), leaf(lib, dev, 1.5)
        key = _keys(lib, dev)[k]
        y = x * 1
        if value == "number":
            val = -4.0
        elif value == "scalar_tensor":
            val = v * 2
        else:
            # a value of the indexing result's shape, made from v so that its gradient shows
            shape = x.detach()[key].shape
            val = lib.arange(int(np.prod(shape)), dtype=lib.float32, device=x.device).reshape(shape) * v
        y[key] = val
        return describe(lib, (y,), [x, v], saved=False)

    check(fn, device)


# gradcheck / gradgradcheck ----------------------------------------------------------------------------------

rng = np.random.default_rng(13)


def dbl(*shape):
    return torchlite.tensor(rng.uniform(-2, 2, size=shape), dtype=torchlite.float64, requires_grad=True)


def _i(v):
    return torchlite.tensor(v)


GRAD_CASES = [
    ("flatten", lambda a: a.flatten(1), lambda: (dbl(2, 3, 2),)),
    ("flatten_copy", lambda a: a.transpose(0, 2).flatten(), lambda: (dbl(2, 3, 2),)),
    ("unflatten", lambda a: a.unflatten(1, (3, 1)), lambda: (dbl(2, 3),)),
    ("movedim", lambda a: a.movedim((0, 1), (2, 0)), lambda: (dbl(2, 3, 2),)),
    ("swapaxes", lambda a: a.swapaxes(0, 1), lambda: (dbl(2, 3),)),
    ("select", lambda a: a.select(1, -1), lambda: (dbl(2, 3),)),
    ("broadcast_to", lambda a: a.broadcast_to((2, 3, 3)), lambda: (dbl(3, 1),)),
    (
        "broadcast_tensors",
        lambda a, b: torchlite.broadcast_tensors(a, b)[1] * torchlite.broadcast_tensors(a, b)[0],
        lambda: (dbl(2, 3), dbl(3)),
    ),
    ("atleast_3d", lambda a: torchlite.atleast_3d(a), lambda: (dbl(3),)),
    ("hstack", lambda a, b: torchlite.hstack([a, b]), lambda: (dbl(2, 3), dbl(2, 1))),
    ("vstack", lambda a, b: torchlite.vstack([a, b]), lambda: (dbl(3), dbl(2, 3))),
    ("dstack", lambda a, b: torchlite.dstack([a, b]), lambda: (dbl(2, 3), dbl(2, 3))),
    ("column_stack", lambda a, b: torchlite.column_stack([a, b]), lambda: (dbl(3), dbl(3, 2))),
    ("unfold", lambda a: a.unfold(1, 2, 1), lambda: (dbl(2, 4),)),
    ("unfold_step", lambda a: a.unfold(0, 2, 3), lambda: (dbl(7, 2),)),
    ("flip", lambda a: a.flip(0, 1), lambda: (dbl(2, 3),)),
    ("roll", lambda a: a.roll((1, -1), (0, 1)), lambda: (dbl(2, 3),)),
    ("roll_flat", lambda a: a.roll(2), lambda: (dbl(2, 3),)),
    ("rot90", lambda a: a.rot90(1, (1, 0)), lambda: (dbl(2, 3),)),
    ("repeat", lambda a: a.repeat(2, 1, 3), lambda: (dbl(2, 3),)),
    ("tile", lambda a: a.tile(2), lambda: (dbl(2, 3),)),
    ("repeat_interleave", lambda a: a.repeat_interleave(2, 1), lambda: (dbl(2, 3),)),
    ("repeat_interleave_tensor", lambda a: a.repeat_interleave(_i([2, 0, 1]), 1), lambda: (dbl(2, 3),)),
    ("gather", lambda a: a.gather(1, _i([[0, 2, 2], [1, 1, 0]])), lambda: (dbl(2, 3),)),
    ("scatter", lambda a, s: a.scatter(1, _i([[0, 2], [1, 0]]), s), lambda: (dbl(2, 3), dbl(2, 2))),
    ("scatter_value", lambda a: a.scatter(1, _i([[0, 2], [1, 0]]), 2.0), lambda: (dbl(2, 3),)),
    ("scatter_add", lambda a, s: a.scatter_add(1, _i([[0, 0], [1, 0]]), s), lambda: (dbl(2, 3), dbl(2, 2))),
    ("scatter_", lambda a, s: a.clone().scatter_(1, _i([[0, 2], [1, 0]]), s), lambda: (dbl(2, 3), dbl(2, 2))),
    (
        "scatter_reduce_sum",
        lambda a, s: a.scatter_reduce(1, _i([[0, 0], [1, 0]]), s, "sum"),
        lambda: (dbl(2, 3), dbl(2, 2)),
    ),
    (
        "scatter_reduce_prod",
        lambda a, s: a.scatter_reduce(1, _i([[0, 0], [1, 0]]), s, "prod", include_self=False),
        lambda: (dbl(2, 3), dbl(2, 2)),
    ),
    (
        "scatter_reduce_mean",
        lambda a, s: a.scatter_reduce(1, _i([[0, 0], [1, 2]]), s, "mean"),
        lambda: (dbl(2, 3), dbl(2, 2)),
    ),
    (
        "scatter_reduce_amax",
        lambda a, s: a.scatter_reduce(1, _i([[0, 0], [1, 2]]), s, "amax", include_self=False),
        lambda: (dbl(2, 3), dbl(2, 2)),
    ),
    (
        "scatter_reduce_amin",
        lambda a, s: a.scatter_reduce(0, _i([[0, 1, 0]]), s, "amin"),
        lambda: (dbl(2, 3), dbl(1, 3)),
    ),
    ("index_select", lambda a: a.index_select(1, _i([2, 0, 2])), lambda: (dbl(2, 3),)),
    ("index_add", lambda a, s: a.index_add(1, _i([2, 2]), s, alpha=1.5), lambda: (dbl(2, 3), dbl(2, 2))),
    ("index_copy", lambda a, s: a.index_copy(0, _i([1]), s), lambda: (dbl(2, 3), dbl(1, 3))),
    ("index_fill", lambda a: a.index_fill(1, _i([1]), 2.0), lambda: (dbl(2, 3),)),
    ("index_fill_tensor", lambda a, v: a.index_fill(1, _i([1, 1, 0]), v), lambda: (dbl(2, 3), dbl())),
    ("masked_fill", lambda a: a.masked_fill(_i([True, False, True]), 2.0), lambda: (dbl(2, 3),)),
    ("masked_fill_tensor", lambda a, v: a.masked_fill(_i([[True], [False]]), v), lambda: (dbl(2, 3), dbl())),
    ("masked_fill_", lambda a, v: a.clone().masked_fill_(_i([True, False, True]), v), lambda: (dbl(2, 3), dbl())),
    ("masked_select", lambda a: a.masked_select(_i([[True, False, True], [False, True, True]])), lambda: (dbl(2, 3),)),
    ("masked_select_broadcast", lambda a: a.masked_select(_i([[True], [False]])), lambda: (dbl(3),)),
    (
        "masked_scatter",
        lambda a, s: a.masked_scatter(_i([[True, False, True], [False, True, False]]), s),
        lambda: (dbl(2, 3), dbl(5)),
    ),
    ("take", lambda a: a.take(_i([[0, 5], [5, 3]])), lambda: (dbl(2, 3),)),
    ("take_along_dim", lambda a: a.take_along_dim(_i([[0], [2]]), 1), lambda: (dbl(2, 3),)),
]


@pytest.mark.parametrize("fn,make_inputs", [c[1:] for c in GRAD_CASES], ids=[c[0] for c in GRAD_CASES])
def test_gradcheck(fn, make_inputs):
    assert gradcheck(fn, make_inputs())
    assert gradgradcheck(fn, make_inputs())


def _chain(node, depth=0, out=None):
    out = [] if out is None else out
    if node is None or depth > 5:
        return out
    out.append((depth, node.name(), tuple(sorted(a for a in dir(node) if a.startswith("_saved_")))))
    for n, _ in node.next_functions:
        _chain(n, depth + 1, out)
    return out


DOUBLE = {
    "masked_fill_value": (lambda lib, x, v, m: x.masked_fill(m, v), "v"),
    "masked_select": (lambda lib, x, v, m: x.masked_select(m), "x"),
    "masked_scatter": (lambda lib, x, v, m: x.detach().masked_scatter(m, x * 2), "x"),
    "masked_scatter_self": (lambda lib, x, v, m: x.masked_scatter(m, x.detach() * 2), "x"),
    "take": (lambda lib, x, v, m: x.take(T(lib, "cpu", [1, 2, 1])), "x"),
    "index_fill_value": (lambda lib, x, v, m: x.index_fill(1, T(lib, "cpu", [1, 1]), v), "v"),
    "index_add": (lambda lib, x, v, m: x.detach().index_add(0, T(lib, "cpu", [1, 0, 1]), x * 2, alpha=3), "x"),
    "gather": (lambda lib, x, v, m: x.gather(1, T(lib, "cpu", [[1]])), "x"),
    "scatter": (lambda lib, x, v, m: x.detach().scatter(1, T(lib, "cpu", [[1, 0], [3, 2]]), x * 2), "x"),
    "scatter_self": (lambda lib, x, v, m: x.scatter(1, T(lib, "cpu", [[1]]), x[:1, :1].detach()), "x"),
    "index_select": (lambda lib, x, v, m: x.index_select(1, T(lib, "cpu", [1])), "x"),
    "unfold": (lambda lib, x, v, m: x.unfold(1, 2, 1), "x"),
    "repeat": (lambda lib, x, v, m: x.repeat(2, 1, 2), "x"),
    "roll": (lambda lib, x, v, m: x.roll(1), "x"),
    "flip": (lambda lib, x, v, m: x.flip(1), "x"),
    "rot90": (lambda lib, x, v, m: x.rot90(), "x"),
}


@pytest.mark.parametrize("name", sorted(DOUBLE))
def test_double_backward_graph(name):
    """The graph of the gradient (create_graph=True): torch's nodes and saved fields."""
    fn, wrt = DOUBLE[name]

    def run_case(lib):
        x = lib.tensor(A[0], dtype=lib.float64, requires_grad=True)
        v = lib.tensor(2.0, dtype=lib.float64, requires_grad=True)
        y = fn(lib, x, v, x > 0)
        go = lib.ones_like(y, requires_grad=True)
        (g,) = lib.autograd.grad(y, {"x": x, "v": v}[wrt], go, create_graph=True)
        gg = lib.autograd.grad((g * g).sum(), go, allow_unused=True)
        return _chain(g.grad_fn), g, gg

    got, want = run(run_case, torchlite), run(run_case, torch)
    assert got == want, _first_diff(got, want)


def test_view_semantics():
    """The view ops' results share memory with their base and see its writes; the copies do not."""
    x = torchlite.arange(24.0).reshape(2, 3, 4)
    views = [
        x.flatten(),
        x.unflatten(2, (2, 2)),
        x.movedim(0, 2),
        x.swapaxes(0, 1),
        x.select(1, 1),
        x.unfold(2, 2, 1),
        x.broadcast_to((2, 2, 3, 4)),
        x.narrow(1, 0, 2),
        x.diagonal(),
        x[0].T,
    ]
    copies = [x.flip(0), x.roll(1), x.repeat(1, 1, 1), x.rot90(), x.transpose(0, 2).flatten()]
    x.add_(1)
    for v in views:
        assert v._base is x and float(v.reshape(-1)[0]) == float(x.reshape(-1)[0]) or float(v.sum()) > 0
        assert v._is_view()
    for c in copies:
        assert not c._is_view() and c._base is None
    assert float(x.flatten()[0]) == 1.0 and float(copies[1].reshape(-1)[1]) == 0.0


def test_keys_cover_every_kind():
    kinds = set()
    for k in _keys(torchlite, "cpu"):
        for item in k if isinstance(k, tuple) else (k,):
            kinds.add(type(item).__name__ if not isinstance(item, torchlite.Tensor) else f"tensor-{item.dtype}")
    assert {
        "int",
        "slice",
        "NoneType",
        "ellipsis",
        "bool",
        "list",
        "tensor-torchlite.int64",
        "tensor-torchlite.bool",
    } <= kinds, kinds


def test_all_case_names_unique():
    # the case decorator refuses a repeated name; here: every decorated function is in CASES
    import ast

    tree = ast.parse(open(__file__).read())
    decorated = [f.name for f in tree.body if isinstance(f, ast.FunctionDef)
                 and any(isinstance(d, ast.Name) and d.id == "case" for d in f.decorator_list)]
    assert len(decorated) == len(set(decorated)) == len(CASES)
    assert list(itertools.islice(CASES, 1))
