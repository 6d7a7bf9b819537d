"""The faster paths of the model training steps (bench/models.py): Adam / AdamW's updates without the
dispatcher (torchlite/optim/_fast.py), lerp and add's alpha with a scalar factor in one float64 buffer
(BinaryOps._lerp / _fma), gelu's exact kernels with fewer buffers, the sdpa math path's softmax where
no row is all -inf, and layer_norm's backward in numpy. Each against torch (values, gradients, node
names, versions) and, bit for bit, against the general path it replaces."""
import math

import numpy as np
import pytest

import torchlite
from diff_utils import import_torch, run

torch = import_torch()


def _close(case, rtol=1e-5, atol=1e-6):
    """case(torchlite) and case(torch) agree: the same strings, the tensors to float32 rounding
    (rtol / atol: torch's vectorized kernels round differently from numpy's), the same dtypes."""
    def flat(value):
        if isinstance(value, (list, tuple)):
            return [x for v in value for x in flat(v)]
        if isinstance(value, (torch.Tensor, torchlite.Tensor)):
            return [(str(value.dtype).split(".")[-1], value.detach().numpy().copy())]
        return [value]
    ours, theirs = flat(case(torchlite)), flat(case(torch))
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs, strict=True):
        if isinstance(a, tuple):
            assert a[0] == b[0] and a[1].shape == b[1].shape
            np.testing.assert_allclose(a[1], b[1], rtol=rtol, atol=atol, equal_nan=True)
        else:
            assert a == b


def _bits(a):
    a = np.ascontiguousarray(a)
    return a.dtype.str, a.shape, a.tobytes()


# Adam / AdamW ------------------------------------------------------------------------------------------

_ADAM_CASES = [
    ("AdamW", dict(lr=1e-2, weight_decay=0.1, betas=(0.9, 0.95))),
    ("Adam", dict(lr=1e-2)),
    ("Adam", dict(lr=1e-2, amsgrad=True, maximize=True, weight_decay=0.3)),
    ("AdamW", dict(lr=0.1, betas=(0.6, 0.7), eps=1e-6)),
    ("Adam", dict(lr=0.05, betas=(0.3, 0.999))),  # 1 - beta1 >= 0.5: lerp's other branch
]


def _adam_run(lib, name, kw, dtype="float32", steps=5):
    rng = np.random.default_rng(0)
    dt = getattr(lib, dtype)
    ps = [lib.tensor(rng.standard_normal(s), dtype=dt, requires_grad=True) for s in ((9, 5), (7,), (2, 3, 4))]
    opt = getattr(lib.optim, name)(ps, **kw)
    for _ in range(steps):
        opt.zero_grad()
        loss = sum((p * p * p).sum() + p.sin().sum() for p in ps)
        loss.backward()
        opt.step()
    state = [opt.state[p] for p in ps]
    return ([p.detach() for p in ps], [p._version for p in ps],
            [{k: v for k, v in s.items() if k != "step"} for s in state], [float(s["step"]) for s in state])


@pytest.mark.parametrize("name,kw", _ADAM_CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_adam_matches_torch(name, kw, dtype):
    def case(lib):
        return _adam_run(lib, name, kw, dtype)
    assert run(case, torchlite) == run(case, torch)


@pytest.mark.parametrize("name,kw", _ADAM_CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_adam_fast_path_is_the_dispatcher_path(monkeypatch, name, kw, dtype):
    from torchlite.optim import _fast
    calls = []
    write, step = _fast._write, _fast.adam_step
    monkeypatch.setattr(_fast, "_write", lambda *a: calls.append(1) or write(*a))
    monkeypatch.setattr(_fast, "adam_step", lambda *a: step(*a) and (calls.append(2) or True))
    fast = _adam_run(torchlite, name, kw, dtype)
    assert calls  # a fast path ran (float32: the one C++ pass of test_adam_fused.py)
    monkeypatch.setattr(_fast, "plain", lambda *a: False)
    slow = _adam_run(torchlite, name, kw, dtype)
    assert [_bits(p.numpy()) for p in fast[0]] == [_bits(p.numpy()) for p in slow[0]]
    assert fast[1] == slow[1]
    assert [{k: _bits(v.numpy()) for k, v in s.items()} for s in fast[2]] == \
        [{k: _bits(v.numpy()) for k, v in s.items()} for s in slow[2]]


def test_adam_fast_path_declines():
    from torchlite.optim import _fast
    a = torchlite.zeros(4)
    with torchlite.no_grad():
        assert _fast.plain(a, torchlite.ones(4))
        assert not _fast.plain(a, a)  # shared memory: the dispatcher's sequential path
        assert not _fast.plain(a, torchlite.ones(4, dtype=torchlite.float64))
        assert not _fast.plain(a, torchlite.ones(1))
        assert not _fast.plain(torchlite.zeros(4, 2).t(), torchlite.ones(2, 4))
        assert not _fast.plain(torchlite.zeros(()), torchlite.ones(()))
        assert not _fast.plain(torchlite.zeros(4, dtype=torchlite.float16), torchlite.ones(4, dtype=torchlite.float16))
    assert not _fast.plain(a, torchlite.ones(4))  # grad mode on
    with torchlite.inference_mode():
        b = torchlite.zeros(4)
    with torchlite.no_grad():
        assert not _fast.plain(b, torchlite.ones(4))


def test_adam_differentiable_and_tensor_lr_take_the_dispatcher():
    def case(lib):
        p = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        opt = lib.optim.Adam([p], lr=lib.tensor(0.01))
        for _ in range(3):
            opt.zero_grad()
            (p * p).sum().backward()
            opt.step()
        return p.detach(), p._version
    assert run(case, torchlite) == run(case, torch)


# lerp / add with alpha ---------------------------------------------------------------------------------

def _lerp_general(start, end, w):
    """BinaryOps._lerp's formula over a weight array of the full shape (its general path)."""
    dtype = start.dtype
    with np.errstate(all="ignore"):
        small = np.abs(w) < 0.5
        coeff = np.where(small, w, np.asarray(w - dtype.type(1), dtype)).astype(np.float64)
        base = np.where(small, start, end).astype(np.float64)
        return (coeff * np.asarray(end - start, dtype).astype(np.float64) + base).astype(dtype)


@pytest.mark.parametrize("weight", [0.1, 0.49, 0.5, 0.9, -0.3, 1.7, 0.0, 1.0])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_lerp_scalar_weight(weight, dtype):
    rng = np.random.default_rng(3)
    dt = np.dtype(dtype)
    a = (rng.standard_normal((6, 7)) * 100).astype(dt)
    b = rng.standard_normal((6, 7)).astype(dt)
    a[0, :4] = [np.inf, -np.inf, np.nan, 0]
    b[1, :4] = [np.inf, -np.inf, np.nan, -0.0]
    got = torchlite.lerp(torchlite.tensor(a), torchlite.tensor(b), weight).numpy()
    ref = _lerp_general(a, b, np.full(a.shape, weight, dt))
    assert _bits(got) == _bits(ref)
    inplace = torchlite.tensor(a)
    inplace.lerp_(torchlite.tensor(b), weight)
    assert _bits(inplace.numpy()) == _bits(ref)

    def case(lib):
        x = lib.tensor(a[2:].astype(np.float32), requires_grad=True)
        y = lib.tensor(b[2:, :1].astype(np.float32), requires_grad=True)  # broadcast end
        out = lib.lerp(x, y, weight)
        out.backward(lib.ones_like(out))
        return out, out.grad_fn.name(), x.grad, y.grad
    assert run(case, torchlite) == run(case, torch)


@pytest.mark.parametrize("alpha", [1, -1, 0.3, -2.5, 1e-3])
def test_add_alpha_scalar_factor(alpha):
    rng = np.random.default_rng(4)
    a = rng.standard_normal((5, 9)).astype(np.float32)
    b = rng.standard_normal((5, 9)).astype(np.float32)
    got = torchlite.add(torchlite.tensor(a), torchlite.tensor(b), alpha=alpha).numpy()
    ref = (b.astype(np.float64) * float(np.float32(alpha)) + a.astype(np.float64)).astype(np.float32)
    assert _bits(got) == _bits(ref)
    got = torchlite.add(torchlite.tensor(a[:1]), torchlite.tensor(b), alpha=alpha).numpy()  # broadcast self
    ref = (b.astype(np.float64) * float(np.float32(alpha)) + a[:1].astype(np.float64)).astype(np.float32)
    assert _bits(got) == _bits(ref)

    def case(lib):
        x = lib.tensor(a, requires_grad=True)
        y = lib.tensor(b[:, :1], requires_grad=True)
        out = lib.sub(x, y, alpha=alpha)
        out.sum().backward()
        return out, out.grad_fn.name(), x.grad, y.grad
    assert run(case, torchlite) == run(case, torch)


# gelu -----------------------------------------------------------------------------------------------------

def _gelu_reference(x, g):
    from torchlite._ops.UnaryOps import _erf_on_host

    def _erf(a):  # libm's double erf, rounded once: what the float32 kernel must equal
        a = np.asarray(a)
        return _erf_on_host(a.astype(np.float64)).astype(a.dtype)
    with np.errstate(all="ignore"):
        y = x * 0.5 * (1 + _erf(x * math.sqrt(0.5)))
        cdf = 0.5 * (1 + _erf(x * math.sqrt(0.5)))
        pdf = np.exp(-0.5 * x * x) * (1 / math.sqrt(2 * math.pi))
        return y, g * (cdf + x * pdf)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(8, 64, 32), (3,), (1,), (2, 5)])
def test_gelu_exact_kernels(dtype, shape):
    rng = np.random.default_rng(5)
    x = (rng.standard_normal(shape) * 3).astype(dtype)
    g = rng.standard_normal(shape).astype(dtype)
    t = torchlite.tensor(x, requires_grad=True)
    y = torchlite.nn.functional.gelu(t)
    y.backward(torchlite.tensor(g))
    ry, rg = _gelu_reference(x, g)
    assert _bits(y.detach().numpy()) == _bits(ry)
    assert _bits(t.grad.numpy()) == _bits(rg)

    def case(lib):
        xt = lib.tensor(x, requires_grad=True)
        out = lib.nn.functional.gelu(xt)
        (gx,) = lib.autograd.grad(out, xt, lib.tensor(g), create_graph=True)
        (ggx,) = lib.autograd.grad(gx.sum(), xt)
        return out, out.grad_fn.name(), gx, gx.grad_fn.name(), ggx
    _close(case)


def test_gelu_inf_and_nan():
    def case(lib):
        x = lib.tensor([float("inf"), float("-inf"), float("nan"), 0.0, 1.0, -2.0], requires_grad=True)
        out = lib.nn.functional.gelu(x)
        out.backward(lib.ones_like(out))
        return out, x.grad
    assert run(case, torchlite) == run(case, torch)


# scaled_dot_product_attention --------------------------------------------------------------------------

@pytest.mark.parametrize("mask", ["causal", "bool", "bool_full_row", "float_full_row", "none"])
def test_sdpa_softmax(mask):
    rng = np.random.default_rng(6)
    q, k, v = (rng.standard_normal((2, 3, 5, 4)).astype(np.float32) for _ in range(3))
    m = np.tril(np.ones((5, 5), bool))
    if mask.endswith("full_row"):
        m[2] = False

    def case(lib):
        qt, kt, vt = (lib.tensor(a, requires_grad=True) for a in (q, k, v))
        kw = {}
        if mask == "causal":
            kw["is_causal"] = True
        elif mask.startswith("bool"):
            kw["attn_mask"] = lib.tensor(m)
        elif mask.startswith("float"):
            kw["attn_mask"] = lib.tensor(np.where(m, 0.0, -np.inf).astype(np.float32))
        out = lib.nn.functional.scaled_dot_product_attention(qt, kt, vt, **kw)
        out.backward(lib.ones_like(out))
        return out, qt.grad, kt.grad, vt.grad
    _close(case)


def test_sdpa_infinite_scores_row():
    # scores of -inf in a whole row (from infinite inputs): the safe softmax's zeros
    def case(lib):
        q = lib.ones(1, 1, 2, 2)
        k = lib.tensor([[[[float("-inf"), 0.0], [float("-inf"), 0.0]]]])
        v = lib.ones(1, 1, 2, 2)
        return lib.nn.functional.scaled_dot_product_attention(q, k, v)
    assert run(case, torchlite) == run(case, torch)


# layer_norm backward -----------------------------------------------------------------------------------

@pytest.mark.parametrize("shape,k", [((16, 32), 1), ((4, 8, 32), 1), ((3, 4, 5), 2), ((6, 3), 1)])
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_layer_norm_backward(monkeypatch, shape, k, affine, dtype):
    import torchlite._ops.Normalization as N
    rng = np.random.default_rng(7)
    x = (rng.standard_normal(shape) * 3 + 1).astype(dtype)
    ns = shape[len(shape) - k:]
    w = rng.standard_normal(ns).astype(dtype)
    b = rng.standard_normal(ns).astype(dtype)
    g = rng.standard_normal(shape).astype(dtype)

    def case(lib):
        xt = lib.tensor(x, requires_grad=True)
        wt = lib.tensor(w, requires_grad=True) if affine else None
        bt = lib.tensor(b, requires_grad=True) if affine else None
        out = lib.nn.functional.layer_norm(xt, ns, wt, bt)
        out.backward(lib.tensor(g))
        return out, out.grad_fn.name(), xt.grad, *((wt.grad, bt.grad) if affine else ())
    calls = []
    kernel = N._layer_norm_grads
    monkeypatch.setattr(N, "_layer_norm_grads", lambda *a: calls.append(1) or kernel(*a))
    _close(case)
    assert calls
    bits = [_bits(t.numpy()) for t in case(torchlite)[2:]]
    monkeypatch.setattr(N, "_layer_norm_grads", lambda *a: None)
    assert bits == [_bits(t.numpy()) for t in case(torchlite)[2:]]


def test_layer_norm_backward_create_graph():
    # with create_graph the backward runs in grad mode: the composed, differentiable path
    def case(lib):
        x = lib.tensor(np.random.default_rng(8).standard_normal((3, 6)), requires_grad=True)
        w = lib.tensor(np.random.default_rng(9).standard_normal(6), requires_grad=True)
        out = lib.nn.functional.layer_norm(x, (6,), w)
        gx, gw = lib.autograd.grad((out * out * out).sum(), (x, w), create_graph=True)
        return gx, gx.grad_fn.name(), gw, gw.grad_fn.name()
    _close(case, 1e-10, 1e-12)
