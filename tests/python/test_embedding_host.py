"""embedding's dense backward host kernel (csrc/aten/native/EmbeddingHost.cpp, bound as
_C._embedding_dense_backward_host; Note [Embedding backward with numpy's bits]):

- against the numpy path it stands in for (Embedding._HOST_KERNELS off: np.add.at), bit for bit, on
  indices with many repeats, padding_idx, rows of 1..300 values, float32 and float64, with nan, inf
  and signed zeros in the gradient;
- the calls it does not take (int32 indices, scale_grad_by_freq, float16, indices out of range, a
  non-contiguous gradient) run the numpy path and raise its errors;
- against torch: the weight's gradient through F.embedding and nn.Embedding on "cpu" and "sim:0",
  node names, gradcheck / gradgradcheck in float64.
"""
import zlib

import numpy as np
import pytest

import torchlite
import torchlite.nn.functional as TF
from diff_utils import import_torch, same_bits
from torchlite import _C
from torchlite._ops import Embedding

torch = import_torch()
import torch.nn.functional as F  # noqa: E402


def _rng(*key):
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


class _Host:
    def __init__(self, on):
        self.on = on

    def __enter__(self):
        self.saved = Embedding._HOST_KERNELS
        Embedding._HOST_KERNELS = self.on

    def __exit__(self, *exc):
        Embedding._HOST_KERNELS = self.saved


def _backward(g, idx, num_weights, padding_idx, host):
    with _Host(host):
        return Embedding.embedding_dense_backward(torchlite.tensor(g), torchlite.tensor(idx), num_weights,
                                                  padding_idx, False)


@pytest.mark.filterwarnings("error")  # (neither path warns on inf + -inf, as torch)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("special", ["normal", "special", "zeros"])
@pytest.mark.parametrize("shape,num_weights", [((1,), 1), ((5,), 3), ((35, 20), 1000), ((35, 20), 7), ((4, 3, 2), 5),
                                               ((64,), 64), ((300,), 2)])
@pytest.mark.parametrize("dim", [1, 2, 7, 8, 33, 256, 300])
def test_dense_backward_bits(shape, num_weights, dim, special, dtype):
    rng = _rng(shape, num_weights, dim, special, dtype)
    idx = rng.integers(0, num_weights, shape)
    g = rng.standard_normal(shape + (dim,)).astype(dtype) * dtype(10) ** rng.integers(-3, 4, shape + (dim,))
    if special == "special":
        flat = g.reshape(-1)
        pos = rng.integers(0, flat.size, max(1, flat.size // 20))
        flat[pos] = rng.choice(np.array([np.nan, np.inf, -np.inf, -0.0, 0.0], dtype), size=pos.size)
    elif special == "zeros":
        g[...] = -0.0
    for padding_idx in (-1, int(idx.reshape(-1)[0])):
        ref = _backward(g, idx, num_weights, padding_idx, False)
        got = _backward(g, idx, num_weights, padding_idx, True)
        same_bits(got.numpy(), ref.numpy(), padding_idx)
        assert _C._embedding_dense_backward_host(g, idx, num_weights, padding_idx) is not None


def test_left_to_numpy_and_errors():
    g = np.ones((4, 3), np.float32)
    idx = np.array([0, 1, 1, 2])
    assert _C._embedding_dense_backward_host(g, idx.astype(np.int32), 3, -1) is None
    assert _C._embedding_dense_backward_host(g.astype(np.float16), idx, 3, -1) is None
    assert _C._embedding_dense_backward_host(g, idx, 2, -1) is None  # out of range
    assert _C._embedding_dense_backward_host(g, np.array([0, -1, 1, 2]), 3, -1) is None
    assert _C._embedding_dense_backward_host(np.ones((6, 4), np.float32)[:, :3], idx, 3, -1) is None
    assert _C._embedding_dense_backward_host(np.ones((5, 3), np.float32), idx, 3, -1) is None
    assert _C._embedding_dense_backward_host(np.float32(1), idx, 3, -1) is None
    with pytest.raises(TypeError):
        _C._embedding_dense_backward_host(g, idx, 3, 1 << 70)
    # the numpy path's values for what the kernel refuses
    for case in (dict(idx=idx.astype(np.int32)), dict(scale=True), dict(g=g.astype(np.float16)),
                 dict(g=np.ones((4, 6), np.float32)[:, ::2])):
        gi = case.get("g", g)
        args = (torchlite.tensor(gi) if gi.flags.c_contiguous else torchlite.ones(4, 6)[:, ::2],
                torchlite.tensor(case.get("idx", idx)), 3, -1, case.get("scale", False))
        with _Host(False):
            ref = Embedding.embedding_dense_backward(*args).numpy()
        got = Embedding.embedding_dense_backward(*args).numpy()
        assert np.array_equal(got, ref)
    # an index out of range: numpy's error, as today
    with _Host(False), pytest.raises(IndexError) as ref_err:
        Embedding.embedding_dense_backward(torchlite.tensor(g), torchlite.tensor([0, 1, 5, 2]), 3, -1, False)
    with pytest.raises(IndexError) as err:
        Embedding.embedding_dense_backward(torchlite.tensor(g), torchlite.tensor([0, 1, 5, 2]), 3, -1, False)
    assert str(err.value) == str(ref_err.value)


@pytest.mark.parametrize("device", ["cpu", "sim:0"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("padding_idx", [None, 3])
def test_embedding_grad_against_torch(padding_idx, dtype, device):
    rng = _rng("torch", padding_idx, dtype)
    w = rng.standard_normal((10, 6)).astype(dtype)
    idx = rng.integers(0, 10, (7, 5))
    g = rng.standard_normal((7, 5, 6)).astype(dtype)
    res = []
    for lib, f in ((torchlite, TF), (torch, F)):
        dev = device if lib is torchlite else "cpu"
        wt = lib.tensor(w, requires_grad=True, device=dev)
        out = f.embedding(lib.tensor(idx, device=dev), wt, padding_idx=padding_idx)
        out.backward(lib.tensor(g, device=dev))
        res.append((out.grad_fn.name(), wt.grad.cpu().numpy()))
    assert res[0][0] == res[1][0]
    rtol, atol = (2e-6, 1e-6) if dtype == np.float32 else (1e-10, 1e-12)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=rtol, atol=atol)


def test_embedding_gradcheck_gradgradcheck():
    w = torchlite.tensor(_rng("gc").standard_normal((6, 3)), requires_grad=True)
    idx = torchlite.tensor([[0, 2, 2], [5, 0, 1]])
    assert torchlite.autograd.gradcheck(lambda w: TF.embedding(idx, w), (w,))
    assert torchlite.autograd.gradgradcheck(lambda w: TF.embedding(idx, w) * TF.embedding(idx, w), (w,))
