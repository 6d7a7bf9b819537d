"""Adam / AdamW's step of a float32 parameter as one C++ pass (optim/_fast.py's adam_step,
csrc/aten/native/cpu/AdamKernel.cpp, Note [The single-tensor Adam step in one pass]): the same
bits, version counts and states as the eight in-place updates it replaces, against those updates
and against torch; the cases it leaves to them."""
import numpy as np
import pytest

import torchlite
from diff_utils import import_torch
from torchlite import _C
from torchlite.optim import _fast

torch = import_torch()

SHAPES = [(5, 7), (1,), (1000,), (3, 1, 17), (2, 33)]


def _grads(seed, steps, special):
    rng = np.random.default_rng(seed)
    out = []
    for k in range(steps):
        gs = []
        for shape in SHAPES:
            g = (rng.standard_normal(shape) * 10.0 ** rng.integers(-8, 8)).astype(np.float32)
            if special and k == 1:
                g.reshape(-1)[:4] = [np.nan, np.inf, -np.inf, -0.0][:g.size]
            gs.append(g)
        out.append(gs)
    return out


def _train(lib, cls_name, kw, fused=True, steps=4, special=False, dtype=np.float32, monkeypatch=None):
    rng = np.random.default_rng(7)
    inits = [rng.standard_normal(s).astype(dtype) for s in SHAPES]
    params = [lib.tensor(a, requires_grad=True) for a in inits]
    opt = getattr(lib.optim, cls_name)(params, **kw)
    calls = []
    if lib is torchlite:
        real = _fast.adam_step
        monkeypatch.setattr(_fast, "adam_step", lambda *a: calls.append(fused and real(*a)) or calls[-1])
    for gs in _grads(3, steps, special):
        for p, g in zip(params, gs, strict=True):
            p.grad = lib.tensor(g.astype(dtype))
        opt.step()
    arrays = [p.detach().numpy().copy() for p in params]
    arrays += [opt.state[p][k].numpy().copy() for p in params for k in ("exp_avg", "exp_avg_sq")]
    versions = [p._version for p in params] + [opt.state[p][k]._version for p in params
                                                for k in ("exp_avg", "exp_avg_sq")]
    return arrays, versions, calls


def _same_bits(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    nan = np.isnan(a)
    assert np.array_equal(nan, np.isnan(b))
    assert np.array_equal(a[~nan].view(np.uint32), b[~nan].view(np.uint32))


CONFIGS = [
    ("AdamW", {}),
    ("AdamW", dict(lr=0.3, betas=(0.3, 0.5), weight_decay=0.5)),  # lerp's weight >= 0.5: the base is `end`
    ("AdamW", dict(betas=(0.5, 0.99), eps=1e-3)),
    ("Adam", {}),
    ("Adam", dict(betas=(0.6, 0.9999), eps=1e-6, maximize=True)),
    ("AdamW", dict(lr=1, weight_decay=1)),  # an int decay factor (0)
]


@pytest.mark.parametrize("cls_name,kw", CONFIGS)
@pytest.mark.parametrize("special", [False, True])
def test_fused_step_is_the_in_place_updates(monkeypatch, cls_name, kw, special):
    fused, fused_versions, calls = _train(torchlite, cls_name, kw, True, special=special, monkeypatch=monkeypatch)
    assert calls and all(calls)  # the C++ pass ran for every parameter
    plain, plain_versions, calls = _train(torchlite, cls_name, kw, False, special=special, monkeypatch=monkeypatch)
    assert not any(calls)
    for a, b in zip(fused, plain, strict=True):
        _same_bits(a, b)
    assert fused_versions == plain_versions


@pytest.mark.parametrize("cls_name,kw", CONFIGS)
def test_fused_step_matches_torch(monkeypatch, cls_name, kw):
    ours, our_versions, calls = _train(torchlite, cls_name, kw, monkeypatch=monkeypatch)
    assert all(calls)
    theirs, their_versions, _ = _train(torch, cls_name, kw)
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert our_versions == their_versions


@pytest.mark.parametrize("cls_name,kw", [
    ("Adam", dict(weight_decay=0.1)),  # coupled weight decay: grad + wd * param first
    ("AdamW", dict(amsgrad=True)),
    ("AdamW", dict(capturable=True)),
    ("AdamW", dict(betas=(torchlite.tensor(0.9), torchlite.tensor(0.999)))),
    ("AdamW", dict(lr=torchlite.tensor(0.01))),
    ("AdamW", dict(eps=float("inf"))),
    ("AdamW", dict(eps=1e39)),  # beyond float32's range
])
def test_cases_left_to_the_in_place_updates(monkeypatch, cls_name, kw):
    calls = []
    real = _fast.adam_step
    monkeypatch.setattr(_fast, "adam_step", lambda *a: calls.append(real(*a)) or calls[-1])
    p = torchlite.ones(4, requires_grad=True)
    opt = getattr(torchlite.optim, cls_name)([p], **kw)
    p.grad = torchlite.full((4,), 0.5)
    try:
        opt.step()
    except (RuntimeError, OverflowError, AssertionError):
        pass  # (the ordinary path's own error, where it has one)
    assert not any(calls)


def test_float64_and_strided_params_take_the_in_place_updates(monkeypatch):
    calls = []
    real = _fast.adam_step
    monkeypatch.setattr(_fast, "adam_step", lambda *a: calls.append(real(*a)) or calls[-1])
    a = torchlite.ones(4, dtype=torchlite.float64, requires_grad=True)
    b = torchlite.ones(4, 4).t().detach().requires_grad_()
    opt = torchlite.optim.AdamW([a, b])
    a.grad, b.grad = torchlite.ones(4, dtype=torchlite.float64), torchlite.ones(4, 4).t()
    opt.step()
    assert calls == [False, False]


def test_host_kernel_bad_arguments():
    x = np.zeros(4, np.float32)
    args = (None, False, 0.1, 0.999, 0.001, 1.0, 1e-8, -1e-3)
    with pytest.raises(ValueError, match="grad has another size than param"):
        _C._adam_step_float32_host(x, np.zeros(3, np.float32), x.copy(), x.copy(), *args)
    with pytest.raises(TypeError):
        _C._adam_step_float32_host(x.astype(np.float64), x, x.copy(), x.copy(), *args)
