"""Differential tests: the same program under torch and torchlite gives the
same values, gradients, node names and execution order."""
import numpy as np
import pytest

import torchlite

from diff_utils import import_torch

torch = import_torch()


def program(lib, x0, w0, record):
    x = lib.tensor(x0, requires_grad=True)
    w = lib.tensor(w0, requires_grad=True)
    h = (x @ w).tanh()
    y = (h * h + h.sigmoid() - 2 / (1 + h.exp())).sum(1).mean()
    names = []
    fn = y.grad_fn
    while fn is not None:
        names.append(fn.name())
        nxt = [f for f, _ in fn.next_functions if f is not None and "AccumulateGrad" not in f.name()]
        fn = nxt[0] if nxt else None
    for t in (h, y):
        name = t.grad_fn.name()
        t.grad_fn.register_prehook(lambda g, n=name: record.append(n))
    y.backward()
    return y.item(), x.grad.numpy().copy(), w.grad.numpy().copy(), names


def test_same_values_gradients_names_and_order():
    rng = np.random.default_rng(1)
    x0, w0 = rng.normal(size=(4, 3)), rng.normal(size=(3, 2))
    rec_t, rec_l = [], []
    yt, gxt, gwt, names_t = program(torch, x0, w0, rec_t)
    yl, gxl, gwl, names_l = program(torchlite, x0, w0, rec_l)
    assert yl == pytest.approx(yt, rel=1e-12)
    np.testing.assert_allclose(gxl, gxt, rtol=1e-10)
    np.testing.assert_allclose(gwl, gwt, rtol=1e-10)
    assert names_l == names_t
    assert rec_l == rec_t


@pytest.mark.parametrize("expr", [
    lambda t, m: (t * 2).sum(), lambda t, m: (2 - t).sum(), lambda t, m: t.pow(2).mean(),
    lambda t, m: t.max(), lambda t, m: t.max(0)[0].sum(), lambda t, m: t.relu().sum(),
    lambda t, m: t.abs().sum(), lambda t, m: t.T.reshape(-1)[2:].sum(), lambda t, m: t.unsqueeze(0).squeeze(0).sum(),
    lambda t, m: m.stack([t, t * 2], 1).sum(), lambda t, m: m.cat([t, t], 0).mean(),
    lambda t, m: m.where(t > 0, t, t * t).sum(), lambda t, m: t.transpose(0, 1).exp().sum(),
])
def test_op_gradients_and_root_names(expr):
    x0 = np.random.default_rng(2).normal(size=(3, 4))
    xt = torch.tensor(x0, requires_grad=True)
    xl = torchlite.tensor(x0, requires_grad=True)
    yt, yl = expr(xt, torch), expr(xl, torchlite)
    assert yl.grad_fn.name() == yt.grad_fn.name()
    yt.backward()
    yl.backward()
    np.testing.assert_allclose(xl.grad.numpy(), xt.grad.numpy(), rtol=1e-12)


def test_printing_matches_torch():
    for data in ([1.0, 2.0], [[1.5, -2.25], [3.0, 4.0]], [1e-5, 1.0], 3.0, [1, 2, 3], [True, False]):
        assert repr(torchlite.tensor(data)) == repr(torch.tensor(data))
    a = torchlite.tensor([1.5, 2.0], requires_grad=True)
    b = torch.tensor([1.5, 2.0], requires_grad=True)
    assert repr(a) == repr(b)
    assert repr(a * 2) == repr(b * 2)
