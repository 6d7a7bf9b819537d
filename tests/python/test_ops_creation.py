"""The creation family (issue 13) against torch: the factories (their keywords, dtype inference,
out=, errors), the *_like factories, the random factories (shapes, dtypes, ranges, errors and
statistics: torch's numbers are not reproduced), tensor() from nested sequences, the legacy
constructors (torchlite.Tensor(...), FloatTensor, ...), autograd.Variable, set_default_device,
torchlite.accelerator, and the differentiable tril / triu / diag / diag_embed (values, gradients,
node names, saved fields, gradcheck and gradgradcheck).

Every case runs under torchlite on "cpu" and on "sim:0" and under torch on "cpu"; the outcomes
(diff_utils.run: values, or the error's type and message) must be equal, and every tensor
torchlite returns must be on the case's device."""
import warnings

import numpy as np
import pytest

import torchlite
from diff_utils import import_torch, norm, run, same_cuda_build

torch = import_torch()

DEVICES = ["cpu", "sim:0"]
CASES = {}


def case(name):
    def register(fn):
        assert name not in CASES, name
        CASES[name] = fn
        return fn
    return register


def _tensors(value):
    if isinstance(value, torchlite.Tensor):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _tensors(v)


def outcome(fn, lib, dev):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = run(lambda lib: fn(lib, dev), lib)
    return result, sorted({norm(str(w.message)) for w in caught if issubclass(w.category, UserWarning)})


def each(lib, *thunks):
    """The outcome of each thunk (so that one case checks many calls, errors included)."""
    return [run(lambda lib, f=f: f(), lib) for f in thunks]


def meta(t):
    return tuple(t.shape), str(t.dtype), t.requires_grad


def saved(node):
    """A node's name and its _saved_ fields; an int field torch shows as the uint64 bits of a
    negative int64 (python_functions.cpp reads int64 fields as unsigned) is read back as the
    int it is, which torchlite shows."""
    fields = {}
    for a in dir(node):
        if a.startswith("_saved_"):
            v = getattr(node, a)
            if isinstance(v, int) and v >= 2 ** 63:
                v -= 2 ** 64
            fields[a] = tuple(v) if isinstance(v, (tuple, list)) else v
    return node.name(), fields


def grads(lib, fn, *leaves):
    out = fn(*leaves)
    w = lib.arange(out.numel(), dtype=out.dtype, device=out.device).reshape(out.shape) + 1
    return out, saved(out.grad_fn), lib.autograd.grad((out * w).sum(), leaves, create_graph=True)


# The differentiable ops: tril, triu, diag_embed, diag ------------------------------------------
M = [[1.0, -2.0, 3.0, 0.5], [4.0, 5.0, -6.0, 1.5], [7.0, 8.0, 9.0, -0.5]]


def _triangle_case(name):
    def run_case(lib, dev):
        x = lib.tensor(M, device=dev, requires_grad=True)
        op = getattr(lib, name)
        out = []
        for k in (0, 1, -1, 2, -5, 7):
            out.append(grads(lib, lambda x, k=k: op(x, k), x))
        out.append(grads(lib, lambda x: getattr(x, name)(diagonal=1), x))
        b = lib.tensor([M, M], device=dev, requires_grad=True)
        out.append(grads(lib, lambda b: op(b.transpose(1, 2), -1), b))  # a batch, transposed
        y = op(b.transpose(1, 2))
        out.append((y.stride(), y.is_contiguous()))
        out.append(op(lib.tensor([[1, 2], [3, 4]], device=dev), 0))
        out.append(op(lib.tensor([[True, True], [True, False]], device=dev)))
        out.append(op(lib.zeros(0, 3, device=dev)).shape)
        out += each(lib, lambda: op(lib.ones(3, device=dev)), lambda: op(lib.tensor(1.0, device=dev)),
                    lambda: op(x, 1.5), lambda: op([[1.0]]))
        o = lib.zeros(3, 4, device=dev)
        out.append((op(x.detach(), 1, out=o) is o, o))
        # the gradient's own backward (create_graph): the double backward's node is the op again
        g, = lib.autograd.grad(op(x, 1).sum(), x, create_graph=True)
        out.append(g.requires_grad)
        return out
    return run_case


case("tril")(_triangle_case("tril"))
case("triu")(_triangle_case("triu"))


@case("diag_embed")
def _diag_embed(lib, dev):
    x = lib.tensor(M, device=dev, requires_grad=True)
    v = lib.tensor([1.0, -2.0, 3.0], device=dev, requires_grad=True)
    out = [grads(lib, lambda v: lib.diag_embed(v), v), grads(lib, lambda v: v.diag_embed(1), v),
           grads(lib, lambda v: lib.diag_embed(v, -2), v)]
    for args in ((0,), (1, 0, 2), (-1, 2, 0), (2, 1, 0), (0, 0, 1), (-2, -1, -3)):
        out.append(grads(lib, lambda x, args=args: lib.diag_embed(x, *args), x))
    out.append(grads(lib, lambda x: lib.diag_embed(x.t(), offset=1, dim1=1, dim2=0), x))
    out.append(lib.diag_embed(lib.tensor([[1, 2]], device=dev), 1))
    out.append(lib.diag_embed(lib.tensor([True, False], device=dev)))
    out.append(lib.diag_embed(lib.tensor(2.0, device=dev)).shape if False else None)
    out += each(lib, lambda: lib.diag_embed(v, 0, 0, 0), lambda: lib.diag_embed(v, 0, -1, 1),
                lambda: lib.diag_embed(v, 0, 0, 3), lambda: lib.diag_embed(lib.tensor(2.0, device=dev)),
                lambda: lib.diag_embed(v, 1.5), lambda: lib.diag_embed(lib.zeros(0, device=dev), 2).shape)
    return out


@case("diag")
def _diag(lib, dev):
    x = lib.tensor(M, device=dev, requires_grad=True)
    v = lib.tensor([1.0, -2.0, 3.0], device=dev, requires_grad=True)
    out = []
    for k in (0, 1, -1, 3, -3, 5):
        out.append(grads(lib, lambda x, k=k: lib.diag(x, k), x))
        out.append(grads(lib, lambda v, k=k: lib.diag(v, k), v))
    out.append(grads(lib, lambda x: x.t().diag(diagonal=1), x))
    out.append((lib.diag(x.t(), 1).stride(), lib.diag(v, -1).stride()))
    out.append(lib.diag(lib.tensor([[1, 2], [3, 4]], device=dev)))
    out.append(lib.diag(lib.tensor([True, False], device=dev)))
    out += each(lib, lambda: lib.diag(lib.ones(2, 2, 2, device=dev)), lambda: lib.diag(lib.tensor(1.0, device=dev)),
                lambda: lib.diag(x, 1.5))
    o = lib.zeros(0, device=dev)
    out.append((lib.diag(x.detach(), 1, out=o) is o, o))
    return out


def _gradcheck_inputs(dev):
    g = np.random.default_rng(0)
    return (torchlite.tensor(g.standard_normal((3, 4)), device=dev, requires_grad=True),
            torchlite.tensor(g.standard_normal((2, 3, 3)), device=dev, requires_grad=True),
            torchlite.tensor(g.standard_normal(3), device=dev, requires_grad=True))


GRADCHECKED = {
    "tril": lambda m, b, v: (torchlite.tril(m, 1), torchlite.tril(b, -1)),
    "triu": lambda m, b, v: (torchlite.triu(m), b.triu(1)),
    "diag_embed": lambda m, b, v: (torchlite.diag_embed(m, 1, 0, 2), torchlite.diag_embed(v, -1)),
    "diag": lambda m, b, v: (torchlite.diag(m, 1), torchlite.diag(v, -2), torchlite.diag(m.t())),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(GRADCHECKED))
def test_gradcheck(name, device):
    inputs = _gradcheck_inputs(device)
    assert torchlite.autograd.gradcheck(GRADCHECKED[name], inputs)
    assert torchlite.autograd.gradgradcheck(GRADCHECKED[name], inputs)


@case("tril_triu_inplace")
def _triangle_inplace(lib, dev):
    out = []
    for name in ("tril_", "triu_"):
        x = lib.tensor(M, device=dev, requires_grad=True)
        y = x * 1
        v = y._version
        z = getattr(y, name)(1)
        w = lib.arange(12.0, device=dev).reshape(3, 4)
        out.append((z is y, y._version - v, y, saved(y.grad_fn), lib.autograd.grad((y * w).sum(), x)))
        b = x * 1
        view = b[:, :2]
        getattr(view, name)(diagonal=-1)  # in-place on a view: the base's history is rewritten (CopySlices)
        out.append((b, b.grad_fn.name(), lib.autograd.grad((b * w).sum(), x)))
        out += each(lib, lambda name=name, x=x: getattr(x, name)(),
                    lambda name=name: getattr(lib.ones(3, device=dev), name)(),
                    lambda name=name: getattr(lib.tensor([[1, 2], [3, 4]], device=dev), name)())
    return out


# Factories ---------------------------------------------------------------------------------------
@case("zeros_ones_empty")
def _filled(lib, dev):
    out = []
    for name in ("zeros", "ones", "empty"):
        f = getattr(lib, name)
        ys = [f(2, 3, device=dev), f((4,), dtype=lib.int64, device=dev), f([2, 1], dtype=lib.bool, device=dev),
              f(lib.Size([2]), device=dev), f((), device=dev), f(np.int64(2), device=dev),
              f(2, dtype=lib.float64, device=dev, requires_grad=True), f(0, 3, device=dev),
              f(2, layout=lib.strided, pin_memory=False, device=dev)]
        out.append([(meta(y), y.stride()) + ((y,) if name != "empty" else ()) for y in ys])
        out += each(lib, lambda f=f: f(2, -1), lambda f=f: f(-1), lambda f=f: f(2.0), lambda f=f: f(2, 3.0),
                    lambda f=f: f([2, "a"]), lambda f=f: f(2, dtype=lib.int64, requires_grad=True),
                    lambda f=f: f(2, dtype="float32"), lambda f=f: f(2, layout=3),
                    lambda f=f: f(2, pin_memory=True), lambda f=f: f((2,), 3), lambda f=f: f(device=dev))
        o = lib.ones(3, dtype=lib.float64, device=dev)
        r = f(2, 2, out=o)
        out.append((r is o, meta(o), o if name != "empty" else None))
        out += each(lib, lambda f=f: f(2, out=lib.zeros(2, device=dev), dtype=lib.float64),
                    lambda f=f: f(2, out=lib.zeros(2, requires_grad=True, device=dev)))
    out.append(lib.empty(2, 3, memory_format=lib.contiguous_format, device=dev).stride())
    out += each(lib, lambda: lib.empty(2, memory_format=lib.preserve_format))
    return out


@case("full")
def _full(lib, dev):
    out = [lib.full((2, 2), 1.5, device=dev), lib.full((2,), 3, device=dev), lib.full((1,), True, device=dev),
           lib.full([2], 2, dtype=lib.float64, device=dev), lib.full((2,), 1.0, device=dev, requires_grad=True),
           lib.full((2,), 1.5, dtype=lib.int64, device=dev), lib.full((2,), lib.tensor(2), device=dev),
           lib.full((2,), lib.tensor(2.5, dtype=lib.float64), device=dev), lib.full((2,), lib.tensor(True), device=dev),
           lib.full((2,), np.float64(2.5), device=dev), lib.full((), 7, device=dev), lib.full((2,), 0.1, device=dev),
           lib.full((2,), 0.1, dtype=lib.float64, device=dev), lib.full((2,), 3.0, dtype=lib.bool, device=dev)]
    out += each(lib, lambda: lib.full(2, 1.0), lambda: lib.full((2,), "a"), lambda: lib.full((2,), None),
                lambda: lib.full([-1], 1), lambda: lib.full((2,), float("inf"), dtype=lib.int64),
                lambda: lib.full((2,), lib.ones(2)), lambda: lib.full((2,), 1e39))
    o = lib.zeros(5, dtype=lib.int64, device=dev)
    out.append((lib.full((2,), 1.5, out=o) is o, o))
    return out


@case("arange")
def _arange(lib, dev):
    calls = [lambda: lib.arange(5, device=dev), lambda: lib.arange(1, 4, device=dev),
             lambda: lib.arange(0, 1, 0.25, device=dev), lambda: lib.arange(3, dtype=lib.float64, device=dev),
             lambda: lib.arange(2.0, device=dev, requires_grad=True), lambda: lib.arange(0, 5, 1.5, dtype=lib.int64,
                                                                                       device=dev),
             lambda: lib.arange(0.5, device=dev), lambda: lib.arange(lib.tensor(3), device=dev),
             lambda: lib.arange(lib.tensor(3.0), device=dev), lambda: lib.arange(1, 2.5, 0.5, dtype=lib.float64,
                                                                                  device=dev),
             lambda: lib.arange(True, device=dev), lambda: lib.arange(0, -5, -2, device=dev),
             lambda: lib.arange(end=4, device=dev), lambda: lib.arange(start=1, end=4, device=dev),
             lambda: lib.arange(np.int64(3), device=dev), lambda: lib.arange(np.float64(3), device=dev),
             lambda: lib.arange(-1.0, 1.0, 0.1, device=dev), lambda: lib.arange(10, 0, -3, dtype=lib.float32,
                                                                                 device=dev),
             lambda: lib.arange(0, 1, 0.1, dtype=lib.float64, device=dev), lambda: lib.arange(0, device=dev),
             lambda: lib.arange(-2.5, 3, 1, dtype=lib.int64, device=dev),
             lambda: lib.arange(1, 10, 2.5, dtype=lib.int64, device=dev),
             lambda: lib.arange(0, 5, 0), lambda: lib.arange(5, 0), lambda: lib.arange(0, float("inf")),
             lambda: lib.arange(0, 5, -1), lambda: lib.arange(5, dtype=lib.bool), lambda: lib.arange(),
             lambda: lib.arange(1, 2, 3, 4), lambda: lib.arange("a"),
             lambda: lib.arange(5, dtype=lib.int64, requires_grad=True)]
    out = each(lib, *calls)
    o = lib.zeros(5, dtype=lib.float64, device=dev)
    out.append((lib.arange(5, out=o) is o, o))
    out += each(lib, lambda: lib.arange(5, out=lib.zeros(5, dtype=lib.int64), dtype=lib.float32))
    return out


@case("linspace_logspace")
def _spaces(lib, dev):
    calls = []
    for f in (lib.linspace, lib.logspace):
        calls += [lambda f=f: f(0, 10, 5, device=dev), lambda f=f: f(0, 10, 5, dtype=lib.int64, device=dev),
                  lambda f=f: f(0, 1, -1), lambda f=f: f(0, 1, 1, device=dev), lambda f=f: f(0, 1, 0, device=dev),
                  lambda f=f: f(0, 1), lambda f=f: f(lib.tensor(0.0), 1, 3, device=dev), lambda f=f: f(0, 1, 2.0),
                  lambda f=f: f(3, -1, 4, dtype=lib.bool), lambda f=f: f(-1.5, 2.25, 7, device=dev),
                  lambda f=f: f(-1.5, 2.25, 7, dtype=lib.float64, device=dev),
                  lambda f=f: f(0.5, 10.5, 6, dtype=lib.int64, device=dev),
                  lambda f=f: f(1, 0, 10, device=dev, requires_grad=True), lambda f=f: f(2, 2, 3, device=dev),
                  lambda f=f: f(0, 1, 101, dtype=lib.float64, device=dev)]
    calls += [lambda: lib.logspace(0, 2, 3, base=2, device=dev), lambda: lib.logspace(0, 3, 4, 2.5, device=dev),
              lambda: lib.logspace(-2, 2, 5, base=0.5, dtype=lib.float64, device=dev)]
    out = each(lib, *calls)
    o = lib.zeros(2, device=dev)
    out.append((lib.linspace(0, 1, 5, out=o) is o, o))
    return out


@case("eye")
def _eye(lib, dev):
    return each(lib, lambda: lib.eye(2, device=dev), lambda: lib.eye(2, 3, dtype=lib.int64, device=dev),
                lambda: lib.eye(3, 1, device=dev), lambda: lib.eye(-1), lambda: lib.eye(2, -1), lambda: lib.eye(2.0),
                lambda: lib.eye(2, dtype=lib.bool, device=dev), lambda: lib.eye(0, device=dev),
                lambda: lib.eye(2, device=dev, requires_grad=True), lambda: lib.eye(n=2, m=1, device=dev),
                lambda: lib.eye(2, out=lib.zeros(5, device=dev)))


def _like_inputs(lib, dev):
    base = lib.tensor(M, device=dev)
    return [base, base.t(), lib.tensor([[1.0], [2.0]], device=dev).expand(2, 3), lib.tensor([1, 2], device=dev),
            lib.tensor([True, False], device=dev)]


@case("like")
def _like(lib, dev):
    out = []
    for x in _like_inputs(lib, dev):
        for kw in ({}, {"dtype": lib.float64}, {"requires_grad": True}, {"device": dev},
                   {"memory_format": lib.contiguous_format}, {"memory_format": lib.preserve_format},
                   {"layout": lib.strided}):
            for name, args in (("zeros_like", ()), ("ones_like", ()), ("empty_like", ()), ("full_like", (2.5,)),
                               ("full_like", (True,)), ("full_like", (lib.tensor(3),))):
                def show(lib, x=x, kw=kw, name=name, args=args):
                    y = getattr(lib, name)(x, *args, **kw)
                    return (y if name != "empty_like" else None), meta(y), y.stride()
                out.append(run(show, lib))
    x = lib.tensor(M, device=dev)
    out += each(lib, lambda: lib.zeros_like([1.0]), lambda: lib.ones_like(x, dtype="x"),
                lambda: lib.full_like(x, "a"), lambda: lib.full_like(lib.tensor([1], device=dev), 1e30),
                lambda: lib.empty_like(x, pin_memory=True))
    return out


@case("tensor_nested")
def _tensor_nested(lib, dev):
    def T(data, **kw):
        return lambda: lib.tensor(data, device=dev, **kw)
    t1, ti = lib.tensor(1.0), lib.tensor(1)
    return each(lib, T([lib.tensor(1.0), lib.tensor(2.0)]), T([lib.ones(2), lib.zeros(2)]), T([ti, 2.5]),
                T([lib.tensor(1, dtype=lib.float64), 2]), T([np.float64(1.0), 2.0]), T([np.float32(1.0), 2]),
                T(np.float64(1.0)), T([np.int64(5)]), T([[1, 2], [3]]), T([1, "a"]), T([True, 2]), T([1, 2.0, True]),
                T([np.array([1.0, 2.0]), np.array([3.0, 4.0])]), T([[t1, 2]]), T([]), T([[]]), T([lib.ones(1)] * 2),
                T([lib.ones(1, 1)]), T([[1.0, 2.0], lib.tensor([3.0, 4.0])]), T([lib.tensor([3.0, 4.0])]), T((1, 2)),
                T([1, None]), T(None), T(range(3)), T([lib.tensor(True), 1.5]), T([[1], [2, 3]]), T([1, [2]]),
                T([1.0, [2]]), T([np.bool_(True)]), T([0.1, 2], dtype=lib.float64), T([1.7, -2.7], dtype=lib.int64),
                T([[True], [False]], dtype=lib.float32), T(3.5), T(2), T(False), T([1e40]),
                T([1e40], dtype=lib.float64),
                T([lib.tensor([1.0, 2.0], dtype=lib.float64), [3, 4]]), T([[lib.tensor(1)], [np.int64(2)]]))


# Random factories: shapes, dtypes, ranges, errors, statistics -------------------------------------
def describe(t):
    return meta(t), t.stride()


@case("randint")
def _randint(lib, dev):
    x = lib.randint(-5, 7, (4000,), device=dev)
    a = x.cpu().numpy()
    stats = (int(a.min()), int(a.max()), bool(abs(a.mean() - 0.5) < 0.3), len(set(a.tolist())))
    out = [stats, describe(lib.randint(5, (3,), device=dev)), describe(lib.randint(2, 5, (3, 2), device=dev)),
           describe(lib.randint(5, (3,), dtype=lib.float32, device=dev)), describe(lib.randint(3, [2, 2], device=dev)),
           describe(lib.randint(3, size=(2,), device=dev)), describe(lib.randint(low=1, high=3, size=(2,), device=dev)),
           describe(lib.randint(high=3, size=(2,), device=dev)),
           describe(lib.randint(0, 5, (2,), dtype=lib.float32, requires_grad=True, device=dev)),
           describe(lib.randint(0, 2, (2,), dtype=lib.bool, device=dev)),
           sorted(set(lib.randint(0, 2, (200,), dtype=lib.bool, device=dev).tolist())),
           sorted(set(lib.randint(3, 5, (200,), dtype=lib.float64, device=dev).tolist()))]
    out += each(lib, lambda: lib.randint(5, 5, (3,)), lambda: lib.randint(5, 3), lambda: lib.randint(5),
                lambda: lib.randint(0, 5, (2,), requires_grad=True), lambda: lib.randint(0, 3, (2,), dtype=lib.bool),
                lambda: lib.randint(1.5, 3, (2,)), lambda: lib.randint(0, 5, (-1,)))
    g = lib.Generator().manual_seed(4)
    a1 = lib.randint(0, 100, (10,), generator=g).tolist()
    g.manual_seed(4)
    out.append(lib.randint(0, 100, (10,), generator=g).tolist() == a1)
    o = lib.zeros(5, device=dev)
    out.append((lib.randint(5, (3,), out=o) is o, describe(o)))
    return out


@case("randint_like")
def _randint_like(lib, dev):
    out = []
    for x in _like_inputs(lib, dev)[:4]:
        out.append(describe(lib.randint_like(x, 10)))
        out.append(describe(lib.randint_like(x, 3, 10, dtype=lib.float64)))
        y = lib.randint_like(x, -4, 4).cpu().numpy()
        out.append(bool((y >= -4).all() and (y < 4).all()))
    out += each(lib, lambda: lib.randint_like(lib.ones(2), 3, 3), lambda: lib.randint_like(lib.ones(2), 1.5))
    return out


@case("randperm")
def _randperm(lib, dev):
    p = lib.randperm(500, device=dev)
    a = p.cpu().numpy()
    out = [describe(p), sorted(a.tolist()) == list(range(500)), bool((a != np.arange(500)).any()),
           describe(lib.randperm(0, device=dev)), sorted(lib.randperm(4, dtype=lib.float32, device=dev).tolist()),
           describe(lib.randperm(3, dtype=lib.float64, requires_grad=True, device=dev))]
    out += each(lib, lambda: lib.randperm(-1), lambda: lib.randperm(3, dtype=lib.bool),
                lambda: lib.randperm(3, requires_grad=True), lambda: lib.randperm(3.0))
    o = lib.zeros(2, dtype=lib.int64, device=dev)
    out.append((lib.randperm(4, out=o) is o, sorted(o.tolist())))
    return out


@case("normal")
def _normal(lib, dev):
    m = lib.zeros(2, 3, device=dev, requires_grad=True)
    s = lib.ones(2, 3, device=dev, requires_grad=True)
    out = []
    for f, leaves in ((lambda: lib.normal(m, s), (m, s)), (lambda: lib.normal(m, 2.0), (m,)),
                      (lambda: lib.normal(0.0, s), (s,)), (lambda: lib.normal(m), (m,)),
                      (lambda: lib.normal(m[:1], s), (m, s))):
        y = f()
        out.append((describe(y), saved(y.grad_fn), lib.autograd.grad(y.sum(), leaves)))
    big = lib.normal(3.0, 2.0, (20000,), device=dev, dtype=lib.float64).cpu().numpy()
    out.append((bool(abs(big.mean() - 3) < 0.1), bool(abs(big.std() - 2) < 0.1)))
    mt = lib.normal(lib.full((20000,), -1.0, device=dev), lib.full((20000,), 0.5, device=dev)).cpu().numpy()
    out.append((bool(abs(mt.mean() + 1) < 0.05), bool(abs(mt.std() - 0.5) < 0.05)))
    out += each(lib, lambda: describe(lib.normal(0.0, 1.0, (2, 3), device=dev)),
                lambda: describe(lib.normal(0.0, 1.0, size=(2, 3), dtype=lib.float64, device=dev)),
                lambda: describe(lib.normal(0, 1, (2,), device=dev)), lambda: lib.normal(0.0, -1.0, (2,)),
                lambda: lib.normal(m, -1.0), lambda: lib.normal(lib.zeros(2), -lib.ones(2)),
                lambda: lib.normal(lib.zeros(2, dtype=lib.int64), 1.0),
                lambda: lib.normal(lib.zeros(2), lib.ones(3)),
                lambda: describe(lib.normal(lib.zeros(2, 1, device=dev), lib.ones(3, device=dev))),
                lambda: lib.normal(0.0, 1.0), lambda: lib.normal(0.0, 1.0, (2,), dtype=lib.int64),
                lambda: describe(lib.normal(0.0, 1.0, (2,), requires_grad=True, device=dev)),
                lambda: describe(lib.normal(lib.zeros(2, device=dev), lib.ones(2, dtype=lib.float64, device=dev))))
    return out


@case("multinomial")
def _multinomial(lib, dev):
    p = lib.tensor([0.1, 0.0, 0.6, 0.3], device=dev)
    draws = lib.multinomial(p, 20000, True).cpu().numpy()
    freq = np.bincount(draws, minlength=4) / 20000
    out = [bool(np.allclose(freq, [0.1, 0.0, 0.6, 0.3], atol=0.02)),
           describe(lib.multinomial(lib.tensor([0.2, 0.8], device=dev), 3, True)),
           describe(lib.multinomial(lib.tensor([[0.2, 0.8], [1.0, 0.0]], device=dev), 2)),
           lib.multinomial(lib.tensor([[0.2, 0.8], [1.0, 0.0]], device=dev), 2)[1],
           sorted(lib.multinomial(lib.ones(5, device=dev), 5).tolist()),
           lib.multinomial(lib.tensor([0.0, 0.0, 3.0], device=dev), 1), p.multinomial(2).shape,
           describe(lib.multinomial(lib.tensor([0.2, 0.8], requires_grad=True, device=dev), 1))]
    # without replacement, a weight's first draw comes first in proportion to the weights
    first = np.array([lib.multinomial(p, 2).tolist()[0] for _ in range(3000)])
    out.append(bool(np.allclose(np.bincount(first, minlength=4) / 3000, [0.1, 0.0, 0.6, 0.3], atol=0.04)))
    out += each(lib, lambda: lib.multinomial(lib.tensor([0.2, 0.8]), 3),
                lambda: lib.multinomial(lib.tensor([1, 2]), 1), lambda: lib.multinomial(lib.tensor([0.0, 0.0]), 1),
                lambda: lib.multinomial(lib.tensor([-1.0, 2.0]), 1),
                lambda: lib.multinomial(lib.tensor([float("nan"), 2.0]), 1),
                lambda: lib.multinomial(lib.tensor(1.0), 1), lambda: lib.multinomial(lib.ones(1, 1, 1), 1),
                lambda: lib.multinomial(lib.tensor([0.2, 0.8]), 0), lambda: lib.multinomial(lib.tensor([0.2, 0.8]), -1),
                lambda: lib.multinomial(lib.tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 0.0]]), 1),
                lambda: lib.multinomial(lib.ones(0), 1))
    o = lib.zeros(1, dtype=lib.int64, device=dev)
    out.append((lib.multinomial(lib.ones(4, device=dev), 4, out=o) is o, sorted(o.tolist())))
    return out


@case("rand_randn_generator")
def _generators(lib, dev):
    g = lib.Generator()
    out = [g.manual_seed(3) is g, g.initial_seed(), str(g.device)]
    for f in (lib.rand, lib.randn):
        g.manual_seed(7)
        a = f(5, generator=g, device=dev).tolist()
        g.manual_seed(7)
        out.append(f(5, generator=g, device=dev).tolist() == a)
        out.append(describe(f(2, 3, generator=g, dtype=lib.float64, device=dev)))
        out += each(lib, lambda f=f: f(2, generator=5))
        o = lib.zeros(1, device=dev)
        out.append((f(2, 2, out=o) is o, describe(o)))
    for f in (lib.rand_like, lib.randn_like):
        out.append(describe(f(lib.ones(2, 3, device=dev).t(), generator=g)))
    u = lib.rand(20000, device=dev).cpu().numpy()
    out.append((bool(u.min() >= 0), bool(u.max() < 1), bool(abs(u.mean() - 0.5) < 0.02)))
    return out


# meshgrid ----------------------------------------------------------------------------------------
@case("meshgrid")
def _meshgrid(lib, dev):
    a = lib.tensor([1.0, 2.0], device=dev, requires_grad=True)
    b = lib.tensor([3.0, 4.0, 5.0], device=dev)
    c = lib.tensor(7.0, device=dev, requires_grad=True)
    out = []
    for args, kw, leaves in (((a, b), {"indexing": "ij"}, (a,)), (([a, b],), {"indexing": "xy"}, (a,)),
                             (((a, b, c),), {"indexing": "xy"}, (a, c)), ((a, c), {"indexing": "xy"}, (a, c)),
                             ((a,), {"indexing": "ij"}, (a,)), ((a, b), {}, (a,))):
        grids = lib.meshgrid(*args, **kw)
        out.append((type(grids).__name__, [(g, g.stride(), g.grad_fn.name() if g.grad_fn else None) for g in grids]))
        loss = sum((g * (i + 1)).sum() for i, g in enumerate(grids) if g.requires_grad)
        out.append(lib.autograd.grad(loss, leaves))
    out += each(lib, lambda: lib.meshgrid(a, b.double(), indexing="ij"), lambda: lib.meshgrid(indexing="ij"),
                lambda: lib.meshgrid(a, indexing="foo"), lambda: lib.meshgrid(a, 3, indexing="xy"))
    return out


# Legacy constructors, Variable ------------------------------------------------------------------
@case("legacy_constructors")
def _legacy(lib, dev):
    a = lib.ones(2)
    leaf = lib.ones(2, requires_grad=True)
    out = each(lib, lambda: lib.Tensor(), lambda: lib.Tensor(2, 3).shape, lambda: lib.Tensor([1, 2]),
               lambda: lib.Tensor(lib.Size([2])).shape, lambda: lib.Tensor((2, 3)), lambda: lib.Tensor(a) is a,
               lambda: lib.Tensor(lib.ones(2, dtype=lib.int64)), lambda: lib.Tensor(2.5),
               lambda: lib.Tensor(2, device="cpu").shape, lambda: lib.Tensor([1, 2], device="cpu"),
               lambda: lib.Tensor(np.array([1.5, 2.5])), lambda: lib.Tensor([[1, 2], [3, 4]]),
               lambda: lib.Tensor(-1), lambda: lib.Tensor(2, "a"),
               lambda: lib.Tensor(np.int64(3)).shape, lambda: str(lib.Tensor([0.1]).dtype),
               lambda: isinstance(lib.Tensor([1]), lib.Tensor), lambda: type(lib.Tensor([1])) is lib.Tensor,
               lambda: (lib.Tensor(leaf).requires_grad, lib.Tensor(leaf).grad_fn.name(),
                        lib.Tensor(leaf)._base is leaf))
    for name in ("FloatTensor", "DoubleTensor", "LongTensor", "BoolTensor"):
        cls = getattr(lib, name)
        out += each(lib, lambda cls=cls: cls([1.5, 0.0, 2]), lambda cls=cls: meta(cls(2, 3)),
                    lambda cls=cls: meta(cls()), lambda cls=cls: cls(lib.ones(2)), lambda cls=cls: cls(2.5),
                    lambda cls=cls: (isinstance(lib.ones(2), cls), isinstance(lib.ones(2, dtype=lib.int64), cls),
                                     isinstance(lib.ones(2, dtype=lib.float64), cls)),
                    lambda cls=cls: (str(cls.dtype), cls.is_cuda, cls.__name__),
                    lambda cls=cls: isinstance(cls, type) and not issubclass(cls, lib.Tensor))
    return out


@case("legacy_constructors_device")
def _legacy_device(lib, dev):
    # torch has no sim device: torchlite's legacy constructors on `dev` give what torch's give on "cpu"
    return [lib.Tensor([1, 2], device=dev), meta(lib.Tensor(2, 3, device=dev)), lib.FloatTensor([3], device=dev),
            lib.LongTensor(2, device=dev).shape, lib.Tensor(device=dev)]


@case("variable")
def _variable(lib, dev):
    V = lib.autograd.Variable
    a = lib.ones(2, device=dev)
    b = a * lib.ones(2, requires_grad=True, device=dev)

    def show(x):
        return x, type(x).__name__, x.requires_grad, x.is_leaf
    return each(lib, lambda: show(V(a)), lambda: show(V(a, requires_grad=True)), lambda: meta(V()),
                lambda: V([1.0]), lambda: show(V(a, volatile=True)), lambda: V(a, True, True), lambda: show(V(b)),
                lambda: V(a) is a, lambda: V(lib.ones(2, dtype=lib.int64), requires_grad=True),
                lambda: show(V(a, requires_grad=1)), lambda: V(a, foo=1) is None, lambda: isinstance(a, V),
                lambda: V(a)._version, lambda: V(a, _grad_fn=3))


# set_default_device, accelerator -----------------------------------------------------------------
@case("default_device")
def _default_device(lib, dev):
    before = lib.get_default_device()
    try:
        lib.set_default_device(dev)
        made = [lib.zeros(2), lib.ones(2, 2), lib.empty(1), lib.full((2,), 3), lib.arange(3), lib.linspace(0, 1, 3),
                lib.logspace(0, 1, 2), lib.eye(2), lib.tensor([1.0]), lib.randn(2), lib.rand(2),
                lib.randint(3, (2,)), lib.randperm(3), lib.normal(0.0, 1.0, (2,))]
        got = [str(t.device) == dev for t in made], str(lib.get_default_device()) == dev
        lib.set_default_device(None)
        after = str(lib.get_default_device()), str(lib.zeros(1).device)
    finally:
        lib.set_default_device(before)
    try:
        lib.set_default_device("cpu:0")
        cpu0 = str(lib.get_default_device()), str(lib.zeros(1).device)
    finally:
        lib.set_default_device(None)
    return got, after, str(before), run(lambda lib: lib.set_default_device("foo"), lib)[:2], cpu0


@case("accelerator")
def _accelerator(lib, dev):
    acc = lib.accelerator
    cuda = lib.cuda.is_available()
    current = acc.current_accelerator()
    out = [acc.is_available() == cuda, (current is None) == (not cuda), acc.device_count() == lib.cuda.device_count()
           if cuda else acc.device_count() == 0, acc.current_accelerator(check_available=True) == current]
    if cuda:
        out.append(str(current) == "cuda")
    else:
        out += each(lib, acc.current_device_index, lambda: acc.set_device_index(0), acc.synchronize)
    return out


# Every case above, on each device ---------------------------------------------------------------
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name, device, monkeypatch):
    same_cuda_build(monkeypatch, torch)  # pin_memory and torch.accelerator answer by build
    fn = CASES[name]
    got = outcome(fn, torchlite, device)
    assert got == outcome(fn, torch, "cpu")
    if got[0][0] == "ok":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = fn(torchlite, device)
        wrong = [str(t.device) for t in _tensors(result) if str(t.device) != device]
        assert not wrong, f"{name} on {device} returned tensors on {wrong}"


def test_default_device_cuda_without_cuda(monkeypatch):
    """set_default_device("cuda") without CUDA is accepted; the factories then fail as torch's do
    (both libraries made to look built without CUDA, as test_public_surface's cuda cases)."""
    for attr in [a for a in dir(torchlite._C) if a.startswith("_cuda_")]:
        monkeypatch.delattr(torchlite._C, attr)
    monkeypatch.setattr(torchlite.cuda, "_initialized", False)
    monkeypatch.delattr(torch._C, "_cuda_getDeviceCount", raising=False)

    def case(lib, dev):
        try:
            return each(lib, lambda: lib.set_default_device("cuda"), lambda: lib.get_default_device(),
                        lambda: lib.zeros(2), lambda: lib.tensor([1.0]))
        finally:
            lib.set_default_device(None)
    assert outcome(case, torchlite, "cpu") == outcome(case, torch, "cpu")
