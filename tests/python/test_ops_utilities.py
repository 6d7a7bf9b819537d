"""Differential tests of issue 13's utilities against torch, on "cpu" and "sim:0" (torch runs every
case on its CPU): the comparisons (type promotion over the dtypes, numbers on either side, the
operators, no node), the value tests (isclose, isin, ...), unique, bincount, histc, searchsorted,
the random fills (dtypes, ranges, errors and statistics: torchlite's generator is not torch's),
fill_diagonal_ (gradients, gradcheck), memory formats, conversions (to, type, copy_), pickling and
deepcopy, and printing (repr and str against torch's for many shapes, values, dtypes and print
options)."""
import copy
import pickle
import re

import numpy as np
import pytest

import torchlite

from diff_utils import import_torch, run

torch = import_torch()

DEVICES = ["cpu", "sim:0"]
DTYPES = ["float32", "float64", "int64", "bool"]
NAN, INF = float("nan"), float("inf")


def both(case, dev):
    """case(lib, device) under torchlite on dev and under torch on the CPU."""
    return run(lambda lib: case(lib, dev), torchlite), run(lambda lib: case(lib, "cpu"), torch)


def check(case, dev):
    got, want = both(case, dev)
    assert got == want


def values(lib, dtype, dev, data=None):
    data = [[1.5, -2.0, 0.0], [3.0, 1.5, -0.5]] if data is None else data
    if dtype in ("int64", "bool"):
        data = np.array(data) if dtype == "bool" else np.trunc(np.array(data)).astype(np.int64)
        if dtype == "bool":
            data = data != 0
        data = data.tolist()
    return lib.tensor(data, dtype=getattr(lib, dtype), device=dev)


# Comparisons ---------------------------------------------------------------------------------------
OPS = ["eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal", "less", "less_equal", "not_equal"]
OPERATORS = {"eq": "__eq__", "ne": "__ne__", "lt": "__lt__", "le": "__le__", "gt": "__gt__", "ge": "__ge__"}


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("da", DTYPES)
@pytest.mark.parametrize("db", DTYPES)
def test_comparison_promotion(op, da, db, dev):
    def case(lib, d):
        a = values(lib, da, d)
        b = values(lib, db, d, [[1.5, 2.0, 0.0], [-3.0, 1.5, 0.5]])
        b0 = values(lib, db, d, 1.5)
        f = getattr(lib, op)
        out = [f(a, b), f(a, b[0]), f(a[:, :1], b), f(a, b0), f(b0, a), getattr(a, op)(b.t().contiguous().t()),
               f(a.t(), b.t()), f(a, b, out=lib.empty(0, dtype=lib.bool, device=d))]
        return [(r, str(r.dtype), r.stride(), r.grad_fn) for r in out]
    check(case, dev)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("number", [True, 0, 1, -2, 2.5, -0.0, NAN, INF, 3e38, 1e300, 2 ** 40])
@pytest.mark.parametrize("da", DTYPES)
def test_comparison_numbers(op, number, da, dev):
    def case(lib, d):
        a = values(lib, da, d)
        r = getattr(lib, op)(a, number)
        return r, getattr(a, op)(number), str(r.dtype)
    check(case, dev)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("op", sorted(OPERATORS))
@pytest.mark.parametrize("number", [1, 1.5, True, -INF])
def test_operators(op, number, dev):
    def case(lib, d):
        x = lib.tensor([[1.0, 1.5], [-INF, NAN]], device=d, requires_grad=True)
        y = x * 1
        name = OPERATORS[op]
        r = [getattr(y, name)(number), getattr(y, name)(y.detach()), getattr(y, name)(lib.tensor(1.5, device=d))]
        # a number on the left: Python reflects (2 < t is t > 2)
        r.append({"eq": number == y, "ne": number != y, "lt": number < y, "le": number <= y,
                  "gt": number > y, "ge": number >= y}[op])
        return [(t, t.grad_fn, t.requires_grad) for t in r], y == None, y != None  # noqa: E711 - torch's operator
    check(case, dev)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("da", DTYPES)
@pytest.mark.parametrize("db", DTYPES)
def test_comparison_inplace(op, da, db, dev):
    """self.<op>_(other): the result in self's dtype, the node (Backward0 with a number, Backward1
    with a tensor) and its zero gradient, torch's errors (leaf, broadcast, overlap)."""
    def case(lib, d):
        a = values(lib, da, d)
        b = values(lib, db, d, [[1.5, 2.0, 0.0], [-3.0, 1.5, 0.5]])
        f = op + "_"
        out = [getattr(a.clone(), f)(b), getattr(a.clone(), f)(b[1]), getattr(a.clone(), f)(1.5),
               getattr(a.clone().t(), f)(b.t()), run(lambda lib: getattr(a[:1].clone(), f)(b), lib),
               run(lambda lib: getattr(a[:1].expand(2, 3), f)(b), lib)]
        if da.startswith("float"):
            x = a.clone().requires_grad_()
            y = x * 1
            r = getattr(y, f)(b.double().to(b.dtype) if db == "bool" else b)
            z = x * 2
            getattr(z, f)(0.5)
            out += [r is y, y.grad_fn.name(), z.grad_fn.name(), lib.autograd.grad((y + z).sum(), x),
                    run(lambda lib: getattr(x, f)(1), lib)]
        return out
    check(case, dev)


@pytest.mark.parametrize("dev", DEVICES)
def test_comparison_errors(dev):
    for f in [lambda lib, d: lib.eq(lib.ones(2, device=d), lib.ones(3, device=d)),
              lambda lib, d: lib.lt(lib.ones(2, device=d), "a"),
              lambda lib, d: lib.ge(2, lib.ones(2, device=d)),
              lambda lib, d: lib.ones(2, device=d) < None,
              lambda lib, d: lib.gt(lib.ones(2, device=d), 1, out=lib.ones(2, device=d, dtype=lib.int64))]:
        check(f, dev)


# Value tests -----------------------------------------------------------------------------------------
SPECIAL = [[0.0, -0.0, 1.0, NAN], [INF, -INF, 1e-30, -2.5]]


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("name", ["isnan", "isinf", "isfinite", "isposinf", "isneginf", "isreal"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_value_tests(name, dtype, dev):
    def case(lib, d):
        x = values(lib, dtype, d, SPECIAL) if dtype.startswith("float") else values(lib, dtype, d)
        r = getattr(lib, name)(x)
        return r, getattr(x.t(), name)(), str(r.dtype), r.stride(), getattr(lib, name)(x[0, 0])
    check(case, dev)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_isclose_allclose_equal(dtype, dev):
    def case(lib, d):
        x = values(lib, dtype, d, SPECIAL) if dtype.startswith("float") else values(lib, dtype, d)
        y = x.clone()
        if dtype.startswith("float"):
            y = y + lib.tensor([[1e-9, 1e-5, 0.1, 0.0], [0.0, 0.0, 1e-9, 1e-4]], dtype=x.dtype, device=d)
        out = [lib.isclose(x, y), lib.isclose(x, y, equal_nan=True), lib.isclose(x, y, 0.0, 0.0),
               lib.isclose(x, y, rtol=1e-3, atol=1e-3), lib.allclose(x, y), lib.allclose(x, x, equal_nan=True),
               lib.equal(x, y), lib.equal(x, x), x.equal(x.t().t())]
        return out
    check(case, dev)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("de", ["float32", "float64", "int64"])
@pytest.mark.parametrize("dt", ["float32", "float64", "int64"])
def test_isin(de, dt, dev):
    def case(lib, d):
        e = values(lib, de, d, [[1.0, 2.5, -3.0], [4.0, NAN if de != "int64" else 0.0, 2.0]])
        t = values(lib, dt, d, [2.0, 4.0, 2.5, 0.0])
        return (lib.isin(e, t), lib.isin(e, t, invert=True), lib.isin(e, t, assume_unique=True), lib.isin(e, 2),
                lib.isin(2.5, t), lib.isin(e.t(), t[:0]), lib.isin(e, t, out=lib.empty(0, dtype=lib.bool, device=d)))
    check(case, dev)


# unique ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("seed", range(4))
def test_unique_random(dtype, seed, dev):
    data = np.random.default_rng(seed).integers(-3, 4, size=(5, 4)).astype(float)

    def case(lib, d):
        x = values(lib, dtype, d, data.tolist())
        out = []
        for kw in [{}, {"return_inverse": True}, {"return_counts": True},
                   {"return_inverse": True, "return_counts": True}, {"sorted": False, "return_inverse": True}]:
            out.append(lib.unique(x, **kw))
            out.append(x.t().unique(**kw))
            for dim in (0, 1, -1):
                out.append(lib.unique(x, dim=dim, **kw))
            kw.pop("sorted", None)
            out.append(lib.unique_consecutive(x, **kw))
            out.append(lib.unique_consecutive(x, dim=0, **kw))
            out.append(x.unique_consecutive(dim=1, **kw))
        return out
    check(case, dev)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("n", [4, 12, 40, 150])
def test_unique_dim_nan_rows(n, dev):
    """unique(dim=) sorts the rows with std::sort under a comparator a nan neither precedes nor
    follows: the order of rows with nans is that of the algorithm (fuzzer seed 1289)."""
    data = np.random.default_rng(n).integers(0, 3, size=(n, 3)).astype(float)
    data[np.random.default_rng(n + 1).random((n, 3)) < 0.4] = NAN

    def case(lib, d):
        x = lib.tensor(data, device=d)
        return [lib.unique(x, sorted=False, return_inverse=True, return_counts=True, dim=0),
                lib.unique(x.t(), return_inverse=True, dim=1),
                lib.tensor(data[:4, :1], device=d).logit().unique(dim=0, return_inverse=True)]
    check(case, dev)


# bincount, histc, searchsorted ---------------------------------------------------------------------
@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("seed", range(3))
def test_bincount_histc_searchsorted(seed, dev):
    rng = np.random.default_rng(seed)
    ints = rng.integers(0, 7, 20).tolist()
    floats = (rng.standard_normal(30) * 3).tolist()

    def case(lib, d):
        i = lib.tensor(ints, device=d)
        f = lib.tensor(floats, device=d)
        w = lib.tensor(floats[:20], device=d)
        b = lib.tensor(sorted(floats[:10]), device=d)
        return (lib.bincount(i), lib.bincount(i, w), lib.bincount(i, w.double(), 12), lib.bincount(i[::2]),
                lib.histc(f), lib.histc(f, 7), lib.histc(f, 5, -1, 1), lib.histc(f.double(), 9, -2.5, 4),
                lib.histc(f.reshape(5, 6).t(), 4),
                lib.searchsorted(b, f), lib.searchsorted(b, f, right=True), lib.searchsorted(b.double(), i),
                lib.searchsorted(b, f.reshape(3, 10)), lib.searchsorted(b.reshape(2, 5), f.reshape(2, 15)),
                lib.bucketize(f, b), lib.bucketize(f.reshape(5, 6), b, right=True), lib.bucketize(0.5, b))
    check(case, dev)


# Random fills ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fill", [("uniform_", ()), ("uniform_", (-1, 1)), ("normal_", ()), ("normal_", (2, 0.5)),
                                  ("exponential_", ()), ("geometric_", (0.3,)), ("random_", ()), ("random_", (7,)),
                                  ("random_", (-2, 3)), ("bernoulli_", ()), ("bernoulli_", (0.2,)),
                                  ("random_", (0, 2)), ("bernoulli_", (1.5,)), ("uniform_", (1, 0))])
def test_random_fills(fill, dtype, dev):
    """The in-place fills (the uniform, normal, exponential, geometric, random and bernoulli ops of the
    tables): self returned, its dtype and shape, the range and mean of what they draw, the errors."""
    name, args = fill

    def case(lib, d):
        x = lib.zeros(100, 50, dtype=getattr(lib, dtype), device=d)
        r = getattr(x, name)(*args)
        a = r.cpu().numpy().astype(np.float64)
        stats = (bool(a.min() >= {"random_": args[0] if len(args) == 2 else 0}.get(name, -np.inf)),
                 round(float(a.mean()), 1) if name in ("bernoulli_", "uniform_", "normal_", "exponential_")
                 and dtype.startswith("float") else None)
        return r is x, str(r.dtype), tuple(r.shape), stats, x._version
    check(case, dev)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_bernoulli(dtype, dev):
    def case(lib, d):
        p = lib.tensor([[0.0, 1.0, 0.25, 0.75]] * 500, device=d).to(getattr(lib, dtype))
        r = lib.bernoulli(p)
        q = p.bernoulli(0.5)
        x = lib.tensor([0.0, 1.0], device=d, requires_grad=True)
        b = lib.bernoulli(x)
        return (str(r.dtype), r[:, :2], round(float(r.double().mean()), 1), str(q.dtype),
                round(float(q.double().mean()), 1), b, b.grad_fn.name(), lib.autograd.grad(b.sum(), x))
    check(case, dev)


# fill_diagonal_ --------------------------------------------------------------------------------------
@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("shape", [(3, 3), (5, 2), (2, 5), (7, 2), (3, 3, 3), (1, 1)])
@pytest.mark.parametrize("wrap", [False, True])
def test_fill_diagonal(shape, wrap, dev):
    def case(lib, d):
        x = lib.arange(float(np.prod(shape)), device=d).reshape(shape).requires_grad_()
        y = x * 2
        y.fill_diagonal_(-1.0, wrap=wrap)
        (g,) = lib.autograd.grad((y * y).sum(), x)
        z = lib.zeros(shape, dtype=lib.int64, device=d).fill_diagonal_(7, wrap)
        return y, g, z, y.grad_fn.name(), x._version, y._version
    check(case, dev)


def test_fill_diagonal_gradcheck():
    fn = lambda x: (x * 1).fill_diagonal_(0.5, wrap=True) * x  # noqa: E731
    x = torchlite.rand(5, 2, dtype=torchlite.float64, requires_grad=True)
    assert torchlite.autograd.gradcheck(fn, (x,))
    assert torchlite.autograd.gradgradcheck(fn, (x,))


# Conversions and copies ------------------------------------------------------------------------------
@pytest.mark.parametrize("dev", DEVICES)
def test_to_type_copy(dev):
    def case(lib, d):
        x = lib.tensor([[1.0, 2.5], [-3.0, 4.0]], device=d, requires_grad=True)
        y = x * 1
        out = [x.to(lib.float64, non_blocking=True), x.to(lib.float32, copy=True) is x, x.to(lib.float32) is x,
               x.to(lib.int64, False, True), x.to(x, copy=True).grad_fn.name(), x.to(device=d, dtype=lib.float64),
               x.type(), x.type(lib.int64), y.type(lib.float64).grad_fn.name(), y.copy_(2.0), y.grad_fn.name(),
               lib.zeros(2, dtype=lib.int64, device=d).copy_(2.7), lib.zeros(2, device=d).copy_(True),
               lib.zeros(2, dtype=lib.bool, device=d).copy_(0.5), lib.zeros(2, device=d).copy_(2 ** 40),
               run(lambda lib: x.copy_(1.0), lib), run(lambda lib: y.copy_("a"), lib),
               run(lambda lib: y.copy_(None), lib)]
        z = x.detach() * 1
        out += [z.t().clone(memory_format=lib.contiguous_format).stride(), z.t().clone().stride(),
                run(lambda lib: x.t().detach_(), lib), run(lambda lib: lib.zeros(3, device=d)[1:].detach_(), lib)]
        w = x * 3
        out += [w.detach_() is w, w.requires_grad, w.grad_fn, w.is_leaf]
        return out
    check(case, dev)


@pytest.mark.parametrize("dev", DEVICES)
def test_pickle_and_deepcopy(dev):
    def case(lib, d):
        t = lib.arange(6.0, device=d)
        v = t[1:].view(5)
        m = t.reshape(2, 3).t()
        a, b, c = pickle.loads(pickle.dumps([t, v, m]))
        b.add_(100)  # plain pickling does not share storage (torch's storage reduce copies)
        out = [a, b, c, c.stride(), str(a.device) == d]
        a, b, c = copy.deepcopy([t, v, m])
        b.add_(100)  # deepcopy does: the memo keeps each storage once
        out += [a, b, c, c.stride()]
        leaf = lib.tensor([1.0, 2.0], device=d, requires_grad=True)
        leaf.grad = lib.tensor([3.0, 4.0], device=d)
        cp = copy.deepcopy(leaf)
        out += [cp, cp.requires_grad, cp.is_leaf, cp.grad, cp.grad is leaf.grad]
        nl = pickle.loads(pickle.dumps(leaf * 2))
        out += [nl, nl.requires_grad, nl.is_leaf, run(lambda lib: copy.deepcopy(leaf * 2), lib)]
        sh = copy.copy(t)
        sh.add_(1)  # copy.copy shares memory
        out += [t, sh]
        return out
    check(case, dev)


def test_deepcopy_keeps_each_storage_once():
    # views made by the C++ entries and by the Python kernels share the copy of their base's storage;
    # tensors from_numpy over overlapping parts of one array have storages of their own, as torch's
    def case(lib):
        t = lib.arange(12.0)
        views = [t, t.view(3, 4), t.view(3, 4).t(), t[2:].unsqueeze(0), t.view(2, 6).permute(1, 0), t[5]]
        copies = copy.deepcopy(views)
        copies[3].mul_(-1)
        big = np.arange(6.0)
        a, b = copy.deepcopy([lib.from_numpy(big[0:4]), lib.from_numpy(big[2:6])])
        a.add_(10)
        return copies, [c.stride() for c in copies], a, b, t
    assert run(case, torchlite) == run(case, torch)


@pytest.mark.parametrize("dev", DEVICES)
def test_memory_and_identity(dev):
    def case(lib, d):
        x = lib.zeros(3, 4, device=d)
        return (x.nbytes, x.itemsize, x[1].data_ptr() - x.data_ptr(), x.double().element_size(),
                hash(x) == id(x), {x: 1}[x], x.new_zeros(2, device=d, dtype=lib.int64),
                x.new_ones((1, 2), requires_grad=True), np.asarray(x.cpu()).shape, np.asarray(x.cpu(), np.int64).dtype,
                run(lambda lib: np.asarray(lib.ones(2, requires_grad=True)), lib))
    check(case, dev)


# Printing --------------------------------------------------------------------------------------------
def _normalised(s):
    """A repr with torch's names, and the suffixes' line breaks (which the longer torchlite names
    move) left out: the data part must match character for character."""
    s = s.replace("torchlite", "torch").replace(", device='sim:0'", "").replace("device='sim:0', ", "")
    s = re.sub(r",\s*device='sim:0'", "", s)
    if "]" in s:
        head, tail = s.rsplit("]", 1)
        return head + "]" + re.sub(r",\s+", ", ", tail)
    return re.sub(r",\s+", ", ", s)


def _arrays(seed, n):
    rng = np.random.default_rng(seed)
    for i in range(n):
        shape = tuple(int(s) for s in rng.integers(0, 6 if i % 4 else 30, rng.integers(0, 4)))
        kind = i % 9
        if kind == 0:
            a = rng.standard_normal(shape)
        elif kind == 1:
            a = rng.integers(-1000, 1000, shape).astype(float)
        elif kind == 2:
            a = rng.standard_normal(shape) * 10.0 ** rng.integers(-10, 12)
        elif kind == 3:
            a = rng.integers(-5, 5, shape)
        elif kind == 4:
            a = rng.integers(0, 2, shape).astype(bool)
        elif kind == 5:
            a = rng.standard_normal(shape)
            a[a > 1] = INF
            a[a < -1] = NAN
            a[np.abs(a) < 0.3] = 0
        elif kind == 6:
            a = rng.integers(-10 ** 12, 10 ** 12, shape)
        elif kind == 7:
            a = np.round(rng.standard_normal(shape) * 1e9)
        else:
            a = rng.standard_normal(shape) * 1e-5
        yield a, (i // 9) % 2 == 1


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("seed", range(4))
def test_print_like_torch(seed, dev):
    for a, double in _arrays(seed, 150):
        def make(lib, d, a=a, double=double):
            dtype = (lib.float64 if double else lib.float32) if a.dtype.kind == "f" else None
            return lib.tensor(a, dtype=dtype, device=d)
        t, lt = make(torch, "cpu"), make(torchlite, dev)
        assert _normalised(repr(lt)) == _normalised(repr(t))
        assert _normalised(str(lt)) == _normalised(str(t))
        if a.dtype.kind == "f" and a.size:
            g, lg = make(torch, "cpu").requires_grad_(), make(torchlite, dev).requires_grad_()
            assert _normalised(repr(lg)) == _normalised(repr(g))
            assert _normalised(repr(lg * 2)) == _normalised(repr(g * 2))


@pytest.mark.parametrize("opts", [dict(precision=2), dict(threshold=5), dict(edgeitems=1, threshold=3),
                                  dict(linewidth=30), dict(sci_mode=True), dict(sci_mode=False),
                                  dict(profile="short"), dict(profile="full"), dict(profile="short", precision=6),
                                  dict(profile="full", linewidth=200)])
def test_print_options(opts):
    try:
        torch.set_printoptions(**opts)
        torchlite.set_printoptions(**opts)
        for a, _ in _arrays(7, 60):
            t, lt = torch.tensor(a), torchlite.tensor(a)
            assert _normalised(repr(lt)) == _normalised(repr(t))
        big = np.arange(3000.0).reshape(30, 100)
        assert _normalised(repr(torchlite.tensor(big))) == _normalised(repr(torch.tensor(big)))
        assert torchlite._tensor_str.get_printoptions() == torch._tensor_str.get_printoptions()
    finally:
        torch.set_printoptions(profile="default")
        torchlite.set_printoptions(profile="default")


@pytest.mark.parametrize("dev", DEVICES)
def test_print_exact(dev):
    """Whole strings, suffixes included, where torchlite's names do not move a line break."""
    cases = [lambda lib, d: lib.tensor(3.5, device=d), lambda lib, d: lib.tensor([], device=d),
             lambda lib, d: lib.zeros(0, 3, dtype=lib.int64, device=d),
             lambda lib, d: lib.tensor([True, False], device=d),
             lambda lib, d: lib.tensor([1.0, 2.0], device=d, requires_grad=True),
             lambda lib, d: lib.tensor([1.0, 2.0], device=d, requires_grad=True) * 2,
             lambda lib, d: (lib.zeros(2, 2, device=d, requires_grad=True) * 1).fill_diagonal_(1.0),
             lambda lib, d: lib.tensor(-0.0, device=d), lambda lib, d: lib.tensor([NAN, INF, -INF, 0.0], device=d),
             lambda lib, d: lib.tensor([NAN, 1.5, 100000.0], dtype=lib.float64, device=d),
             lambda lib, d: lib.arange(2000, device=d).reshape(2, 10, 100),
             lambda lib, d: lib.tensor([1e-5, 1.0], device=d), lambda lib, d: lib.tensor([123456789.0], device=d)]
    for make in cases:
        want = repr(make(torch, "cpu"))
        if dev != "cpu":
            want = want[:-1] + (",\n       " if len(want.split("\n")[-1]) + 17 > 80 else ", ") + "device='sim:0')"
        got = repr(make(torchlite, dev)).replace("torchlite.", "torch.")
        assert got == want or _normalised(got) == _normalised(want)
    assert f"{torchlite.tensor(2.5):.2f}" == f"{torch.tensor(2.5):.2f}"
