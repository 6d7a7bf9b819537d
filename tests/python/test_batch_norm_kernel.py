"""Training batch norm's gradients in C++ (csrc/aten/native/cpu/BatchNormKernel.cpp, Note [Batch norm
gradients with numpy's bits]): bit for bit the blocked numpy kernel's (Normalization._batch_norm_grads_blocked,
itself held to the unblocked kernel by test_cnn_fastpaths.py), None (numpy then) where a result is not
finite; the op takes it where the blocked kernel applies."""
import zlib

import numpy as np
import pytest

import torchlite
from torchlite import _C
from torchlite._ops import Normalization

SHAPES = [(32, 32, 32, 32), (32, 64, 16, 16), (2, 3, 5), (7, 2, 1, 3), (3, 5, 4, 1, 2), (2, 4, 2, 2), (3, 2, 8192),
          (4, 3, 7), (2, 2, 128), (2, 2, 129), (3, 2, 257), (5, 3, 1000)]


def _inputs(shape, dtype, special):
    rng = np.random.default_rng(zlib.crc32(repr((shape, dtype, special)).encode()))
    x = (rng.standard_normal(shape) * rng.uniform(0.01, 100) + rng.uniform(-50, 50)).astype(dtype)
    g = rng.standard_normal(shape).astype(dtype)
    if special == "zeros":
        g[...] = -0.0
    elif special == "signed":
        g.flat[::3] = -0.0
        g.flat[1::3] = 0.0
    elif special == "nan":
        x.flat[0] = np.nan
    elif special == "inf":
        g.flat[-1] = np.inf
    axes = (0,) + tuple(range(2, x.ndim))
    with np.errstate(all="ignore"):
        mean = x.mean(axis=axes).astype(dtype)
        r = (1 / np.sqrt(x.var(axis=axes) + 1e-5)).astype(dtype)
    return x, g, mean, r, rng.standard_normal(shape[1]).astype(dtype)


def _bits(a):
    return None if a is None else (a.dtype, a.shape, np.ascontiguousarray(a).tobytes())


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("special", ["", "zeros", "signed", "nan", "inf"])
def test_kernel_is_the_blocked_numpy_kernel(shape, dtype, special):
    x, g, mean, r, w = _inputs(shape, dtype, special)
    assert Normalization._blocked_stats_apply(x)
    grad = torchlite.tensor(g)
    for weight in (w, None):
        for mask in ([True, True, True], [True, False, False], [False, True, True], [False, False, True]):
            host = Normalization._batch_norm_grads_host(grad, g, x, mean, r, weight, mask)
            with np.errstate(all="ignore"):
                numpy = Normalization._batch_norm_grads_blocked(grad, g, x, mean, r, weight, mask)
            finite = all(a is None or np.isfinite(a.numpy()).all() for a in numpy)
            if not finite:
                assert host is None  # not finite: numpy answers (its nans, its warnings)
                continue
            assert host is not None
            assert [_bits(a if a is None else a.numpy()) for a in host] == \
                [_bits(a if a is None else a.numpy()) for a in numpy]


def test_the_op_takes_the_kernel(monkeypatch):
    calls = []
    real = _C._batch_norm_grads_host
    monkeypatch.setattr(_C, "_batch_norm_grads_host", lambda *a: calls.append(real(*a)) or calls[-1])
    x = torchlite.randn(4, 3, 5, 5, requires_grad=True)
    bn = torchlite.nn.BatchNorm2d(3)
    bn(x).pow(2).sum().backward()
    assert calls == [True]
    assert x.grad is not None and bn.weight.grad is not None and bn.bias.grad is not None


def test_binding_refuses_bad_arguments():
    x = np.zeros((2, 3, 4), np.float32)
    c = np.zeros(3, np.float32)
    with pytest.raises(ValueError, match="arrays must be C-contiguous"):
        _C._batch_norm_grads_host(x, x, c, c[:2], None, np.empty_like(x), None, None)
    with pytest.raises(ValueError, match="arrays must be C-contiguous"):
        _C._batch_norm_grads_host(x, x.astype(np.float64), c, c, None, None, None, None)
    with pytest.raises(ValueError, match="C-contiguous float32 or float64"):
        _C._batch_norm_grads_host(x.astype(np.int64), x.astype(np.int64), c, c, None, None, None, None)
    with pytest.raises(ValueError, match="must be \\(N, C, ...\\)"):
        _C._batch_norm_grads_host(c, c, c, c, None, None, None, None)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("special", ["", "zeros", "nan", "inf", "huge"])
def test_training_forward_is_the_numpy_passes(monkeypatch, shape, dtype, special):
    # native_batch_norm's batch statistics and output in C++ against the numpy passes, bit for bit
    # (a value that is not finite: numpy computes it all again)
    x, g, _, _, w = _inputs(shape, dtype, special if special != "huge" else "")
    if special == "zeros":
        x[...] = -0.0
    if special == "huge":
        x.flat[1] = np.finfo(dtype).max / 2  # (x - mean)^2 overflows: numpy's warning, its inf
    b = w[::-1].copy()

    def forward(host):
        if not host:
            monkeypatch.setattr(Normalization, "_batch_norm_host_applies", lambda x, params: False)
        out = []
        for weight, bias in ((w, b), (w, None), (None, b), (None, None)):
            rm, rv = torchlite.tensor(np.zeros(shape[1], dtype)), torchlite.tensor(np.ones(shape[1], dtype))
            with np.errstate(all="ignore"):
                res = torchlite.native_batch_norm(
                    torchlite.tensor(x), None if weight is None else torchlite.tensor(weight),
                    None if bias is None else torchlite.tensor(bias), rm, rv, True, 0.1, 1e-5)
            out.append([_bits(t.numpy()) for t in res + (rm, rv)])
        monkeypatch.undo()
        return out
    assert forward(True) == forward(False)


def test_the_forward_takes_the_kernels(monkeypatch):
    calls = []
    for name in ("_batch_norm_stats_host", "_batch_norm_apply_host"):
        real = getattr(_C, name)
        monkeypatch.setattr(_C, name, lambda *a, real=real, name=name: calls.append((name, real(*a))) or calls[-1][1])
    bn = torchlite.nn.BatchNorm2d(3)
    bn(torchlite.randn(4, 3, 5, 5))
    assert calls == [("_batch_norm_stats_host", True), ("_batch_norm_apply_host", True)]
    bn.eval()
    bn(torchlite.randn(4, 3, 5, 5))  # (evaluation: the running statistics, numpy)
    assert len(calls) == 2
