"""The C++ entries of sum, mean, softmax, log_softmax and torch.where (Note [C++ dispatch of the
reductions], csrc/autograd/python_fast_reduce.cpp).

Each entry must give what the Python kernel gives (torchlite/_ops/ReduceOps.py, SoftMax.py), bit for
bit: values, dtype, layout, node, saved fields, gradients (first and second order), on many shapes
and values (0-d, one element, nan, inf, -0.0, overflow); every call it does not take (another dtype,
an empty or non-contiguous tensor, dtype=, a bad dim, ...) runs the Python kernel. Then the same ops
against torch: values, nodes, saved fields, gradients, gradcheck, errors."""
import itertools
import warnings

import numpy as np
import pytest

import torchlite
from torchlite import _ops
from torchlite._ops import ReduceOps, SoftMax, TensorCompare
from diff_utils import import_torch, norm, run

torch = import_torch()

OPS = ("sum", "mean", "softmax", "log_softmax")
class _PythonKernelRan(Exception):
    pass


def taken_by_cpp(monkeypatch, call):
    """Whether `call` is answered by the C++ entry: with the Python kernels' _record made to raise
    (every path of theirs records), it returns (True) or the Python kernel ran (False)."""
    def refuse(*args, **kwargs):
        raise _PythonKernelRan()

    with monkeypatch.context() as m:
        for module in (ReduceOps, SoftMax, TensorCompare):
            m.setattr(module, "_record", refuse)
        try:
            call()
        except _PythonKernelRan:
            return False
        except (RuntimeError, TypeError, IndexError):  # the Python kernel's error (the entries raise none)
            return False
    return True


def _values(dtype, n, seed, special=True):
    rng = np.random.default_rng(seed)
    v = rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)
    if special and n > 2:
        picks = np.array([0.0, -0.0, 1e-40, 3e38, -3e38, 1e-310, 80.0, -90.0, 700.0, 0.5])
        idx = rng.choice(n, size=min(n // 3, len(picks)), replace=False)
        v[idx] = picks[:len(idx)]
    return v.astype(dtype)


def _bits(t):
    a = t.detach().numpy()
    return a.dtype.str, a.shape, t.stride(), a.tobytes()


SAVED = ("_saved_dim", "_saved_keepdim", "_saved_self_sym_sizes", "_saved_self_sym_numel", "_saved_result",
         "_saved_self_scalar_type", "_saved_count")


def _record(out, leaf, gradients=True, second=False):
    rec = [_bits(out), out.requires_grad, out.grad_fn.name() if out.grad_fn else None]
    if out.grad_fn is not None:
        for name in SAVED:
            try:
                v = getattr(out.grad_fn, name)
            except AttributeError as err:
                v = ("AttributeError", str(err))
            rec.append(_bits(v) if isinstance(v, torchlite.Tensor) else v)
        if gradients:
            g = torchlite.from_numpy(_values(out.detach().numpy().dtype, out.numel() + 1, 3, False)[:out.numel()]
                                     .reshape(out.shape))
            (gx,) = torchlite.autograd.grad(out, [leaf], g, create_graph=second)
            rec.append(_bits(gx))
            if second:
                w = torchlite.from_numpy(_values(gx.detach().numpy().dtype, gx.numel(), 4, False).reshape(gx.shape))
                loss = (gx * w).sum()
                ggx = torchlite.autograd.grad(loss, [leaf], allow_unused=True)[0] if loss.requires_grad else None
                rec.append((gx.grad_fn.name() if gx.grad_fn else None, None if ggx is None else _bits(ggx)))
    return rec


def _compare(monkeypatch, op, array, args, kwargs, requires_grad=True, expect_cpp=None, second=False):
    """op(tensor, *args, **kwargs) by the method (its C++ entry) and by the Python kernel: the same."""
    records = []
    for path in ("method", "kernel"):
        x = torchlite.from_numpy(array.copy()).requires_grad_(requires_grad)
        fn = getattr(torchlite.Tensor, op) if path == "method" else getattr(_ops, op)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # neither path may warn (numpy's errors are silenced)
            out = fn(x, *args, **kwargs)
        records.append(_record(out, x, requires_grad, second))
    assert records[0] == records[1]
    if expect_cpp is not None:
        x = torchlite.from_numpy(array.copy()).requires_grad_(requires_grad)
        assert taken_by_cpp(monkeypatch, lambda: getattr(torchlite.Tensor, op)(x, *args, **kwargs)) == expect_cpp


SHAPES = [(), (1,), (5,), (7,), (8,), (9,), (1, 1), (3, 4), (4, 8), (2, 3, 5), (1, 6, 1), (17, 3), (3, 129),
          (2, 2, 2, 3), (300,), (40, 25)]


def test_table_marks_the_entries():
    for op in OPS + ("where",):
        if op != "where":  # (Tensor.where is a Python method)
            assert getattr(torchlite.Tensor, op)._cpp_dispatch
        fn = getattr(torchlite, op)
        assert fn._cpp_dispatch and type(fn).__name__ == "_VariableFunction"


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", ["sum", "mean"])
def test_sum_mean_match_python_kernel(monkeypatch, op, dtype):
    for seed, shape in enumerate(SHAPES):
        a = _values(dtype, int(np.prod(shape)), seed).reshape(shape)
        _compare(monkeypatch, op, a, (), {}, expect_cpp=True)
        nd = len(shape)
        dims = [0, -1] if nd == 0 else list(range(-nd, nd))
        calls = [((d,), {}) for d in dims] + [((), {"dim": d, "keepdim": True}) for d in dims]
        if nd >= 2:
            calls += [(((0, nd - 1),), {}), (([nd - 1, 0],), {"keepdim": True}), ((tuple(range(nd)),), {}),
                      ((-1, True), {}), ((1,), {"keepdim": False})]
        for args, kwargs in calls:
            _compare(monkeypatch, op, a, args, kwargs, expect_cpp=True, second=(seed % 4 == 0))
        # requires_grad off: the same value, no node
        _compare(monkeypatch, op, a, (-1,) if nd else (), {}, requires_grad=False, expect_cpp=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", ["sum", "mean"])
def test_sum_mean_special_values(monkeypatch, op, dtype):
    big = np.finfo(dtype).max
    rows = [[np.nan, 1.0, 2.0], [np.inf, -np.inf, 1.0], [np.inf, 1.0, 1.0], [-0.0, -0.0, -0.0], [big, big, 1.0],
            [-big, -big, -0.0], [1e-45, 1e-45, 0.0], [np.nan, np.inf, -0.0]]
    a = np.array(rows, dtype=dtype)
    for args in [(), (0,), (1,), ((0, 1),), (-1, True)]:
        _compare(monkeypatch, op, a, args, {}, expect_cpp=True)
    for row in rows:
        _compare(monkeypatch, op, np.array(row, dtype=dtype), (), {}, expect_cpp=True)
        _compare(monkeypatch, op, np.array(row[:1], dtype=dtype), (), {}, expect_cpp=True)


def test_sum_int64_and_the_python_cases(monkeypatch):
    ints = np.arange(-20, 40, dtype=np.int64).reshape(6, 10) * 7919
    for args in [(), (0,), (1, True), ((0, 1),)]:
        _compare(monkeypatch, "sum", ints, args, {}, requires_grad=False, expect_cpp=True)
    # what the entries leave to the Python kernel
    f32 = _values(np.float32, 24, 1, special=False).reshape(4, 6)
    python_cases = [
        ("sum", np.array([[True, False], [True, True]]), (), {}, False),  # bool: int64
        ("sum", ints.astype(np.int32), (1,), {}, False),
        ("sum", f32.astype(np.float16), (), {}, True),
        ("mean", f32.astype(np.float16), (1,), {}, True),
        ("softmax", f32.astype(np.float16), (1,), {}, True),
        ("sum", np.zeros((0, 3), np.float32), (), {}, True),  # empty
        ("mean", np.zeros((0, 3), np.float32), (1,), {}, True),
        ("sum", np.zeros((2, 0), np.float64), (1,), {}, True),
        ("softmax", np.zeros((2, 0), np.float32), (0,), {}, True),
        ("sum", f32, (), {"dtype": torchlite.float64}, True),  # dtype=
        ("mean", f32, (1,), {"dtype": torchlite.float64}, True),
        ("sum", f32, (None,), {}, True),  # dim None
        ("sum", f32, ((),), {}, True),  # an empty dim list
        ("mean", f32, ([],), {"keepdim": True}, True),
        ("sum", f32, (), {"keepdim": True}, True),  # keepdim without dim
        ("sum", f32, (1, 1), {}, True),  # keepdim not a bool
        ("softmax", f32, (1,), {"dtype": torchlite.float64}, True),
        ("log_softmax", f32, (np.int32(0),), {}, True),
        ("softmax", np.array(2.5, np.float64), (0,), {}, True),  # 0-d
        ("log_softmax", np.array(1.5, np.float32), (-1,), {}, True),
        ("softmax", np.array([[1.0, np.nan], [0.0, 1.0]], np.float32), (1,), {}, True),  # nan
        ("log_softmax", np.array([[1.0, np.inf], [0.0, 1.0]], np.float32), (1,), {}, True),  # an infinite max
        ("softmax", np.array([[-np.inf, -np.inf], [0.0, 1.0]], np.float64), (1,), {}, True),
    ]
    for op, a, args, kwargs, rg in python_cases:
        _compare(monkeypatch, op, a, args, kwargs, requires_grad=rg, expect_cpp=False)
    # a non-contiguous tensor
    for op, args in [("sum", ()), ("mean", (0,)), ("softmax", (1,)), ("log_softmax", (0,))]:
        base = torchlite.from_numpy(f32.copy())
        assert not taken_by_cpp(monkeypatch, lambda b=base, o=op, a=args: getattr(b.t(), o)(*a))
        assert _bits(getattr(base.t(), op)(*args)) == _bits(getattr(_ops, op)(base.t(), *args))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax_matches_python_kernel(monkeypatch, op, dtype):
    for seed, shape in enumerate(s for s in SHAPES if s):
        a = _values(dtype, int(np.prod(shape)), seed).reshape(shape)
        a = np.where(np.abs(a) > 1e30, np.float32(3.0), a).astype(dtype)  # an infinite max is Python's
        for dim in range(-len(shape), len(shape)):
            _compare(monkeypatch, op, a, (dim,), {}, expect_cpp=True, second=(seed % 3 == 0))
            _compare(monkeypatch, op, a, (), {"dim": dim}, requires_grad=False, expect_cpp=True)
    # large and tiny values, -inf entries (their rows' maximum finite), -0.0
    a = np.array([[1e4, -1e4, 0.0, -0.0], [-np.inf, 1.0, -np.inf, 2.0], [-0.0, -0.0, -0.0, -0.0],
                  [88.0, 89.0, 90.0, -0.0], [1e-40, -1e-40, 0.0, 1e-45]], dtype=dtype)
    for dim in (0, 1, -1):
        _compare(monkeypatch, op, a, (dim,), {}, expect_cpp=True, second=True)


def test_function_forms_and_keywords(monkeypatch):
    a = _values(np.float32, 12, 5).reshape(3, 4)
    x = torchlite.from_numpy(a.copy()).requires_grad_()
    calls = [
        (lambda: torchlite.sum(x), lambda: _ops.sum(x), True),
        (lambda: torchlite.sum(x, 1, True), lambda: _ops.sum(x, 1, True), True),
        (lambda: torchlite.sum(x, dim=(0, 1)), lambda: _ops.sum(x, dim=(0, 1)), True),
        (lambda: torchlite.mean(x, -1, keepdim=True), lambda: _ops.mean(x, -1, keepdim=True), True),
        (lambda: torchlite.softmax(x, 0), lambda: _ops.softmax(x, 0), True),
        (lambda: torchlite.log_softmax(x, dim=1), lambda: _ops.log_softmax(x, dim=1), True),
        (lambda: torchlite.nn.functional.softmax(x, dim=-1), lambda: _ops.softmax(x, -1), True),
        (lambda: torchlite.nn.functional.log_softmax(x, 1), lambda: _ops.log_softmax(x, 1), True),
        (lambda: x.sum(dim=0, keepdim=False, dtype=None), lambda: _ops.sum(x, 0), True),
        (lambda: x.softmax(1, None), lambda: _ops.softmax(x, 1), True),
        # the generated function parses these
        (lambda: torchlite.sum(input=x), lambda: _ops.sum(x), False),
        (lambda: torchlite.sum(x, axis=1), lambda: _ops.sum(x, 1), False),
        (lambda: torchlite.softmax(input=x, dim=1), lambda: _ops.softmax(x, 1), False),
    ]
    for fast, python, cpp in calls:
        assert _record(fast(), x) == _record(python(), x)
        assert taken_by_cpp(monkeypatch, fast) == cpp
    out = torchlite.empty(3)
    assert torchlite.sum(x.detach(), 1, out=out) is out and _bits(out) == _bits(_ops.sum(x.detach(), 1))


def test_modes_and_hooks(monkeypatch):
    a = _values(np.float32, 12, 9).reshape(3, 4)
    for op, args in [("sum", ()), ("sum", (1,)), ("mean", (0, True)), ("softmax", (1,)), ("log_softmax", (0,))]:
        x = torchlite.from_numpy(a.copy()).requires_grad_()
        with torchlite.no_grad():
            out = getattr(x, op)(*args)
            assert out.grad_fn is None and not out.requires_grad
            assert taken_by_cpp(monkeypatch, lambda t=x, o=op, a=args: getattr(t, o)(*a))
        with torchlite.inference_mode():
            out = getattr(x, op)(*args)
            assert out.is_inference() and out.grad_fn is None
            assert _bits(out) == _bits(getattr(_ops, op)(x, *args))
        # the saved result through saved_tensors_hooks, as the Python kernel's
        seen = []

        def pack(t, seen=seen):
            seen.append(t.shape)
            return t * 1

        results = []
        for fn in (getattr(torchlite.Tensor, op), getattr(_ops, op)):
            with torchlite.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
                out = fn(x, *args)
            (g,) = torchlite.autograd.grad(out, [x], torchlite.ones_like(out))
            results.append((_bits(out), _bits(g)))
        assert results[0] == results[1]
        assert len(seen) % 2 == 0
        # an inference tensor is the Python kernel's
        with torchlite.inference_mode():
            inf = torchlite.from_numpy(a.copy())
        assert not taken_by_cpp(monkeypatch, lambda t=inf, o=op, a=args: getattr(t, o)(*a))


def test_result_is_independent_of_self():
    x = torchlite.ones(2, 3)
    for op, args in [("sum", (1, True)), ("softmax", (1,)), ("log_softmax", (1,))]:
        out = getattr(x, op)(*args)
        before = out.clone()
        x.add_(1.0)
        assert torchlite.equal(out, before) and out._version == 0


# Against torch ------------------------------------------------------------------------------------

def _against_torch(fn):
    assert run(fn, torchlite) == run(fn, torch)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_against_torch(dtype):
    def case(lib):
        dt = getattr(lib, dtype)
        g = np.random.default_rng(0).standard_normal((3, 4, 5))
        out = []
        calls = [lambda t: t.sum(), lambda t: t.sum(1), lambda t: t.sum(-1, keepdim=True), lambda t: t.sum((0, 2)),
                 lambda t: t.sum([2, 0], True), lambda t: t.mean(), lambda t: t.mean(0), lambda t: t.mean((1, -1)),
                 lambda t: t.mean(-2, True), lambda t: t.softmax(-1), lambda t: t.softmax(0),
                 lambda t: t.log_softmax(1), lambda t: lib.softmax(t, 2), lambda t: lib.log_softmax(t, -1),
                 lambda t: lib.nn.functional.softmax(t, dim=1), lambda t: lib.sum(t, 0), lambda t: lib.mean(t, 2)]
        for call in calls:
            x = lib.tensor(g, dtype=dt, requires_grad=True)
            y = call(x)
            fn = y.grad_fn
            saved = {n: getattr(fn, n) for n in SAVED if hasattr(fn, n)}
            out.append((y, str(y.dtype), tuple(y.shape), y.stride(), fn.name(), saved))
            if dtype == "float64":  # (float32 gradients differ from torch's in their last bits)
                w = lib.tensor(np.linspace(-1, 1, y.numel()).reshape(tuple(y.shape)), dtype=dt)
                (gx,) = lib.autograd.grad(y, x, w, create_graph=True)
                loss = (gx * gx).sum()
                ggx = lib.autograd.grad(loss, x, allow_unused=True)[0] if loss.requires_grad else None
                out.append((gx, ggx))
        return out

    _against_torch(case)


def test_gradcheck():
    rng = np.random.default_rng(1)
    x = torchlite.tensor(rng.standard_normal((3, 4)), dtype=torchlite.float64, requires_grad=True)
    for fn in (lambda t: t.sum(), lambda t: t.sum(1, True), lambda t: t.mean(), lambda t: t.mean((0, 1)),
               lambda t: t.softmax(1), lambda t: t.softmax(0), lambda t: t.log_softmax(-1),
               lambda t: t.log_softmax(0)):
        assert torchlite.autograd.gradcheck(fn, (x,))
        assert torchlite.autograd.gradgradcheck(fn, (x,))


def test_errors_against_torch():
    def bad(call):
        def case(lib):
            return call(lib, lib.ones(2, 3, requires_grad=True))
        return case

    for call in [lambda lib, x: x.sum(2), lambda lib, x: x.sum(-3), lambda lib, x: x.sum((0, 0)),
                 lambda lib, x: x.sum((1, -1)), lambda lib, x: x.mean(5), lambda lib, x: x.mean((0, 2), True),
                 lambda lib, x: x.softmax(2), lambda lib, x: x.log_softmax(-3), lambda lib, x: x.softmax(),
                 lambda lib, x: x.softmax(1.0), lambda lib, x: x.sum(1.5), lambda lib, x: lib.sum(x, 3),
                 lambda lib, x: lib.softmax(x, 5), lambda lib, x: x.sum(dim=1, foo=2),
                 lambda lib, x: lib.ones(2, 3, dtype=lib.int64).mean(),
                 lambda lib, x: lib.ones(2, 3, dtype=lib.int64).softmax(0),
                 lambda lib, x: lib.ones(2, 3).sum(0, keepdim=True, dim=1)]:
        _against_torch(bad(call))


def test_overflow_does_not_warn_against_torch():
    def case(lib):
        x = lib.full((4, 3), 3e38)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            return x.sum(), x.sum(0), x.mean(1), lib.tensor([float("inf"), -float("inf")]).sum()

    _against_torch(case)


def test_many_random_shapes_match_python_kernel(monkeypatch):
    rng = np.random.default_rng(2024)
    for trial in range(120):
        nd = int(rng.integers(1, 4))
        shape = tuple(int(s) for s in rng.integers(1, 12, nd))
        dtype = (np.float32, np.float64)[trial % 2]
        a = _values(dtype, int(np.prod(shape)), trial, special=False).reshape(shape)
        dim = int(rng.integers(-nd, nd))
        keep = bool(trial % 3 == 0)
        _compare(monkeypatch, "sum", a, (dim, keep), {}, expect_cpp=True)
        _compare(monkeypatch, "mean", a, (dim,), {"keepdim": keep}, expect_cpp=True)
        _compare(monkeypatch, "softmax", a, (dim,), {}, expect_cpp=True)
        _compare(monkeypatch, "log_softmax", a, (dim,), {}, expect_cpp=True)
    assert norm(1) == 1  # (diff_utils' helpers are in use above)


def test_all_combinations_of_keyword_binding(monkeypatch):
    a = _values(np.float64, 24, 11).reshape(2, 3, 4)
    for op in ("sum", "mean"):
        for dim, keep in itertools.product([0, -1, (0, 2), [1]], [None, False, True]):
            kwargs = {} if keep is None else {"keepdim": keep}
            _compare(monkeypatch, op, a, (), dict(kwargs, dim=dim), expect_cpp=True)


# torch.where ---------------------------------------------------------------------------------------

def _where_record(c, x, y):
    rec = []
    for fn in (torchlite.where, _ops.where):  # the C++ entry, the Python kernel
        leaves = [t.detach().clone().requires_grad_(t.requires_grad) if isinstance(t, torchlite.Tensor) else t
                  for t in (x, y)]
        out = fn(c, *leaves)
        r = [_bits(out), out.requires_grad, out.grad_fn.name() if out.grad_fn else None]
        if out.grad_fn is not None:
            r.append(_bits(out.grad_fn._saved_condition))
            r.append(out.grad_fn._saved_condition is c)
            wanted = [t for t in leaves if isinstance(t, torchlite.Tensor) and t.requires_grad]
            g = torchlite.from_numpy(_values(out.detach().numpy().dtype, out.numel() + 1, 6, False)[:out.numel()]
                                     .reshape(out.shape))
            r.append([_bits(v) for v in torchlite.autograd.grad(out, wanted, g)])
            r.append([type(e[0]).__name__ if e[0] is not None else None for e in out.grad_fn.next_functions])
        rec.append(r)
    assert rec[0] == rec[1]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_where_matches_python_kernel(monkeypatch, dtype):
    rng = np.random.default_rng(3)
    for seed, shape in enumerate([(), (1,), (6,), (3, 4), (2, 3, 5), (40, 25)]):
        n = int(np.prod(shape))
        c = torchlite.from_numpy(np.asarray(rng.random(n).reshape(shape) > 0.5))
        a = _values(dtype, n, seed).reshape(shape)
        b = _values(dtype, n, seed + 50).reshape(shape)
        for ra, rb in itertools.product([False, True], repeat=2):
            x = torchlite.from_numpy(a.copy()).requires_grad_(ra)
            y = torchlite.from_numpy(b.copy()).requires_grad_(rb)
            _where_record(c, x, y)
            assert taken_by_cpp(monkeypatch, lambda x=x, y=y, c=c: torchlite.where(c, x, y))
            for number in (0.0, -0.0, 2, -7.25, float("inf"), float("nan"), 1e-50, 3.4e38, 2 ** 53):
                _where_record(c, x, number)
                _where_record(c, number, y)
                assert taken_by_cpp(monkeypatch, lambda x=x, c=c, v=number: torchlite.where(c, x, v))
                assert taken_by_cpp(monkeypatch, lambda y=y, c=c, v=number: torchlite.where(c, v, y))


def test_where_python_cases(monkeypatch):
    a = _values(np.float32, 12, 1, special=False).reshape(3, 4)
    x = torchlite.from_numpy(a.copy()).requires_grad_()
    c = x.detach() > 0
    cases = [
        (c, x, x.detach().double()),  # two dtypes
        (c, x.detach().long(), 1),  # int64
        (c, x, x[:1]),  # broadcast
        (c[:1], x[:1], x[:1]),  # a size-1 dimension
        (c.t(), x.t(), x.t()),  # non-contiguous
        (c, x, 1e39),  # a float32 overflow: torch's error
        (c, x, 2 ** 60),
        (c, x, True),
        (c, 1.0, 0.0),  # two numbers
        (c, x, np.float32(1.0)),
        (torchlite.zeros(3, 4, dtype=torchlite.uint8), x, x),  # not bool: the error
        (torchlite.zeros(0, 4, dtype=torchlite.bool), torchlite.zeros(0, 4), torchlite.zeros(0, 4)),
    ]
    for args in cases:
        assert not taken_by_cpp(monkeypatch, lambda args=args: torchlite.where(*args))
        r = [run(lambda lib, f=f, a=args: f(*a), torchlite) for f in (torchlite.where, _ops.where)]
        assert r[0] == r[1]
    assert not taken_by_cpp(monkeypatch, lambda: torchlite.where(condition=c, input=x, other=x))
    out = torchlite.empty(3, 4)
    assert torchlite.where(c, x.detach(), 0.0, out=out) is out
    assert torchlite.where(c)[0].dtype == torchlite.int64  # where(condition): nonzero


def test_where_against_torch():
    def case(lib):
        g = np.random.default_rng(4).standard_normal((3, 4))
        x = lib.tensor(g, requires_grad=True)
        y = lib.tensor(g[::-1].copy(), requires_grad=True)
        c = x > 0.1
        outs = [lib.where(c, x, y), lib.where(c, x, 0.0), lib.where(c, -1, y), lib.where(c, x.float(), 2.5)]
        res = []
        for o in outs:
            w = lib.tensor(np.linspace(-1, 1, o.numel()).reshape(tuple(o.shape)), dtype=o.dtype)
            grads = lib.autograd.grad(o, [x, y], w, allow_unused=True)
            res.append((o, str(o.dtype), o.grad_fn.name(), o.grad_fn._saved_condition, grads))
        errors = []
        for bad in (lambda: lib.where(x, x, y), lambda: lib.where(c, x.float(), 1e39),
                    lambda: lib.where(c, x, lib.ones(2, 4)), lambda: lib.where(c, x)):
            try:
                bad()
            except Exception as err:  # noqa: BLE001 - the error's type and message are compared
                errors.append((type(err).__name__, norm(str(err))))
        return res, errors

    _against_torch(case)


def test_where_gradcheck():
    rng = np.random.default_rng(5)
    x = torchlite.tensor(rng.standard_normal((3, 4)), dtype=torchlite.float64, requires_grad=True)
    y = torchlite.tensor(rng.standard_normal((3, 4)), dtype=torchlite.float64, requires_grad=True)
    c = x.detach() > 0
    assert torchlite.autograd.gradcheck(lambda a, b: torchlite.where(c, a, b), (x, y))
    assert torchlite.autograd.gradgradcheck(lambda a, b: torchlite.where(c, a, b), (x, y))
    assert torchlite.autograd.gradcheck(lambda a: torchlite.where(c, a, 0.5), (x,))
