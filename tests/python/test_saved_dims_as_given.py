"""The view and join ops save their dims as called (a negative dim shows as torch's getters show
it, modulo 2**64), indexing the dims it computed; their gradients and double backward, with negative
dims, against torch."""
import numpy as np
import pytest

import torchlite
from diff_utils import import_torch

torch = import_torch()

CASES = {
    "select": lambda L, x: x.select(-1, 1),
    "getitem": lambda L, x: x[..., 1],
    "getitem slice": lambda L, x: x[..., 1:3],
    "narrow": lambda L, x: x.narrow(-2, 1, 2),
    "diagonal": lambda L, x: x.diagonal(1, -2, -1),
    "unsqueeze": lambda L, x: x.unsqueeze(-2),
    "transpose": lambda L, x: x.transpose(-1, -3),
    "unbind": lambda L, x: x.unbind(-2)[1],
    "squeeze dim": lambda L, x: x[:, :1].squeeze(-2),
    "squeeze dims": lambda L, x: x[:, :1].squeeze((-2, 0)),
    "cat": lambda L, x: L.cat([x, x * 2], -1),
    "cat with an empty tensor": lambda L, x: L.cat([x, L.zeros(0, dtype=x.dtype)], -2),
    "stack": lambda L, x: L.stack([x, x * 2], -2),
}


def _fields(fn):
    return {k: getattr(fn, k) for k in dir(fn) if k.startswith("_saved_") and isinstance(getattr(fn, k), (int, tuple))}


@pytest.mark.parametrize("name", CASES)
def test_saved_dims_gradients_and_double_backward_as_torch(name):
    def case(L):
        x = L.tensor(np.arange(24.0).reshape(2, 3, 4) / 7, dtype=L.float64, requires_grad=True)
        y = CASES[name](L, x)
        w = L.tensor(np.linspace(-1, 1, y.numel()).reshape(tuple(y.shape)), dtype=L.float64)
        (g,) = L.autograd.grad((y * y * w).sum(), x, create_graph=True)
        (gg,) = L.autograd.grad((g * g).sum(), x)
        return y.grad_fn.name(), _fields(y.grad_fn), g.detach().numpy(), gg.numpy()
    a, b = case(torchlite), case(torch)
    assert a[:2] == b[:2]
    np.testing.assert_allclose(a[2], b[2], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(a[3], b[3], rtol=1e-12, atol=1e-14)
