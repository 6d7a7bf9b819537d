"""The CNN training step's fast paths (bench/models.py's cnn: conv2d with a bias, training batch
norm, relu, a 2x2 max pool), each checked two ways:

- against the general path it stands in for, bit for bit (the fast path claims the same numbers):
  the blocked batch-norm gradients (Normalization._batch_norm_grads_blocked) against the unblocked
  kernel, max pooling's unpadded window view against the padded copy (a non-contiguous input takes
  the copy), its nan-free scan against the nan-aware one, and conv2d's bias added in the output copy
  against conv2d without a bias plus the bias;
- against torch: values (float64 to 1e-10 relative, float32 to 1e-5), gradients, node names and
  saved fields, on "cpu" and "sim:0", with gradcheck / gradgradcheck in float64.
"""
import zlib

import numpy as np
import pytest

import torchlite
import torchlite.nn.functional as TF
from diff_utils import import_torch
from torchlite._ops import Normalization, Pooling

torch = import_torch()
import torch.nn.functional as F  # noqa: E402

DEVICES = ["cpu", "sim:0"]
DTYPES = [np.float32, np.float64]


def _tol(dtype):
    return (1e-10, 1e-12) if dtype == np.float64 else (1e-5, 1e-5)


def _close(a, b, dtype):
    rtol, atol = _tol(dtype)
    assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, b.shape, a.dtype, b.dtype)
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol * max(1.0, float(np.abs(b).max(initial=0.0))))


def _bytes(t):
    a = t.detach().cpu().numpy() if not isinstance(t, np.ndarray) else t
    return a.dtype, a.shape, np.ascontiguousarray(a).tobytes()


def _leaf(lib, array, dev, grad=True):
    t = lib.tensor(array, device=dev if lib is torchlite else "cpu")
    return t.requires_grad_() if grad else t


# batch norm: the blocked gradients -----------------------------------------------------------------------

def _bn_inputs(rng, shape, dtype, special):
    x = (rng.standard_normal(shape) * rng.uniform(0.01, 100)).astype(dtype)
    g = rng.standard_normal(shape).astype(dtype)
    if special == "nan":
        x.flat[0] = np.nan
        g.flat[-1] = np.inf
    elif special == "zeros":
        g[...] = -0.0
    elif special == "signed":
        g.flat[::3] = -0.0
        g.flat[1::3] = 0.0
    return x, g


BN_SHAPES = [(32, 32, 32, 32), (32, 64, 16, 16), (2, 3, 5), (7, 2, 1, 3), (3, 5, 4, 1, 2), (2, 4, 2, 2),
             (3, 2, 8192)]  # the last: rows as long as numpy's ufunc buffer (8192 elements)


@pytest.mark.parametrize("shape", BN_SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("special", ["", "nan", "zeros", "signed"])
@pytest.mark.parametrize("block", [1, 64, 1 << 18])
def test_blocked_batch_norm_grads_match_unblocked_kernel(monkeypatch, shape, dtype, special, block):
    """Every output bit for bit, each mask and with and without a weight, at block sizes that split
    the batch into one row, a few rows and the default."""
    rng = np.random.default_rng(zlib.crc32(repr((shape, special)).encode()))  # (hash() of a str varies by run)
    x, g = _bn_inputs(rng, shape, dtype, special)
    c = shape[1]
    axes = (0,) + tuple(range(2, x.ndim))
    with np.errstate(all="ignore"):
        mean = x.mean(axis=axes).astype(dtype)
        r = (1 / np.sqrt(x.var(axis=axes) + 1e-5)).astype(dtype)
    assert Normalization._blocked_stats_apply(x)
    monkeypatch.setattr(Normalization, "_BLOCK_BYTES", block)
    bshape = (1, c) + (1,) * (x.ndim - 2)
    grad = torchlite.tensor(g)
    for w in (rng.standard_normal(c).astype(dtype), None):
        for mask in ([True, True, True], [True, False, False], [False, True, True], [False, False, True]):
            with np.errstate(all="ignore"):
                fast = Normalization._batch_norm_grads_blocked(grad, g, x, mean, r, w, mask)
                slow = Normalization._norm_grads_kernel(grad, g, x, mean.reshape(bshape), r.reshape(bshape),
                                                        None if w is None else w.reshape(bshape), mask, axes, axes)
            for a, b in zip(fast, slow, strict=True):
                assert (a is None) == (b is None)
                if a is not None:
                    assert _bytes(a) == _bytes(b)


def test_blocked_batch_norm_conditions():
    """One channel (numpy sums the whole array pairwise), a 2-d input (the batch alone), a batch of
    one, a spatial size of one, or rows longer than numpy's buffer (where numpy 2.2 and 2.4 split a
    row into inner loops differently): the unblocked kernel runs."""
    for shape in [(4, 1, 8, 8), (4, 6), (1, 3, 4, 4), (4, 3, 1, 1), (5, 3, 1), (3, 2, 8193), (2, 3, 4500, 2)]:
        assert not Normalization._blocked_stats_apply(np.zeros(shape, np.float32))
    assert Normalization._blocked_stats_apply(np.zeros((2, 2, 2), np.float32))
    assert Normalization._blocked_stats_apply(np.zeros((2, 2, 8192), np.float32))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dev", DEVICES)
def test_batch_norm_train_grads_blocked_against_general_and_torch(monkeypatch, dtype, dev):
    """F.batch_norm in training: the gradients through the blocked kernel bit for bit those of the
    unblocked one, and torch's within rounding; the node, its saved fields and the running stats."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((8, 6, 5, 7)).astype(dtype) * 3 + 1
    w, b = rng.standard_normal(6).astype(dtype), rng.standard_normal(6).astype(dtype)
    gy = rng.standard_normal(x.shape).astype(dtype)

    def step(lib):
        X, W, B = (_leaf(lib, a, dev) for a in (x, w, b))
        rm, rv = lib.zeros(6, dtype=X.dtype), lib.ones(6, dtype=X.dtype)
        if lib is torchlite:
            rm, rv = rm.to(dev), rv.to(dev)
        y = lib.nn.functional.batch_norm(X, rm, rv, W, B, training=True, momentum=0.1, eps=1e-5)
        node = y.grad_fn
        saved = (node.name(), node._saved_training, node._saved_eps, node._saved_result1.detach().clone(),
                 node._saved_result2.detach().clone())
        y.backward(lib.tensor(gy).to(X.device))
        return y, (X.grad, W.grad, B.grad), saved, (rm, rv)

    y, grads, node, stats = step(torchlite)
    monkeypatch.setattr(Normalization, "_blocked_stats_apply", lambda x: False)
    y2, grads2, _, _ = step(torchlite)
    monkeypatch.undo()
    assert _bytes(y) == _bytes(y2)
    for fast, general in zip(grads, grads2, strict=True):
        assert _bytes(fast) == _bytes(general)
    ty, tgrads, tnode, tstats = step(torch)
    assert node[0] == tnode[0] == "NativeBatchNormBackward0"
    assert node[1] is tnode[1] is True
    assert node[2] == tnode[2]
    _close(node[3].cpu().numpy(), tnode[3].numpy(), dtype)
    _close(node[4].cpu().numpy(), tnode[4].numpy(), dtype)
    _close(y.detach().cpu().numpy(), ty.detach().numpy(), dtype)
    for mine, theirs in zip(grads + stats, tgrads + tstats, strict=True):
        _close(mine.detach().cpu().numpy(), theirs.detach().numpy(), dtype)


def test_batch_norm_train_gradcheck_and_gradgradcheck():
    """The first derivative runs through the blocked kernel (no grad mode), the second through the
    composed formula: both against finite differences in float64."""
    rng = np.random.default_rng(5)
    x = torchlite.tensor(rng.standard_normal((3, 2, 2, 3)), requires_grad=True)
    w = torchlite.tensor(rng.standard_normal(2) + 1.5, requires_grad=True)
    b = torchlite.tensor(rng.standard_normal(2), requires_grad=True)
    assert Normalization._blocked_stats_apply(x._array)

    def fn(x, w, b):
        return TF.batch_norm(x, None, None, w, b, training=True)

    assert torchlite.autograd.gradcheck(fn, (x, w, b))
    assert torchlite.autograd.gradgradcheck(fn, (x, w, b))


# max pooling: the unpadded window view and the nan-free scan --------------------------------------------

POOL_CASES = [((32, 32, 32, 32), 2, None, 0), ((32, 64, 16, 16), 2, None, 0), ((2, 3, 9, 7), 3, 2, 0),
              ((2, 3, 9, 7), 3, 2, 1), ((3, 8, 8), 2, 1, 0), ((2, 2, 70, 70), 2, 2, 0), ((1, 2, 64, 65), 3, 3, 1)]


def _pool_input(rng, shape, dtype, special):
    x = rng.integers(-3, 3, size=shape).astype(dtype)  # many ties
    zeros = x == 0
    x[zeros] = np.where(rng.random(int(zeros.sum())) < 0.5, 0.0, -0.0)
    if special == "nan":
        x.flat[::37] = np.nan
    elif special == "inf":
        x.flat[::41] = -np.inf
        x.flat[5] = np.inf
    return x


@pytest.mark.parametrize("case", POOL_CASES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("special", ["", "nan", "inf"])
def test_max_pool_fast_paths_match_general(monkeypatch, case, dtype, special):
    """The window view of a contiguous unpadded input against the padded copy (the same values laid
    out in a non-contiguous input, which takes the copy), and the nan-free scan against the
    nan-aware one: values and indices bit for bit."""
    shape, k, s, p = case
    rng = np.random.default_rng(zlib.crc32(repr((case, special)).encode()))
    x = _pool_input(rng, shape, dtype, special)
    fast = Pooling.max_pool2d_with_indices(torchlite.tensor(x), k, s if s else [], p)
    strided = np.swapaxes(np.ascontiguousarray(np.swapaxes(x, -1, -2)), -1, -2)  # the same values, F-order planes
    assert not strided.flags.c_contiguous and np.array_equal(strided, x, equal_nan=True)
    monkeypatch.setattr(Pooling, "_nan_free", lambda a: False)
    slow = Pooling.max_pool2d_with_indices(torchlite.tensor(strided), k, s if s else [], p)
    assert _bytes(fast[0]) == _bytes(slow[0])
    assert _bytes(fast[1]) == _bytes(slow[1])


def test_nan_free():
    assert Pooling._nan_free(np.ones((4, 4), np.float32))
    assert not Pooling._nan_free(np.array([1.0, np.nan], np.float32))
    assert not Pooling._nan_free(np.array([1.0, np.inf], np.float64))
    assert not Pooling._nan_free(np.array([np.inf, -np.inf], np.float64))
    assert not Pooling._nan_free(np.full(4, 3e38, np.float32))  # overflows: answers no (the nan-aware scan)


@pytest.mark.parametrize("dtype", DTYPES)
def test_avg_pool_window_view_matches_padded_copy(dtype):
    """avg_pool2d shares the window view: the same sums as from the padded copy."""
    rng = np.random.default_rng(11)
    x = rng.standard_normal((4, 3, 12, 10)).astype(dtype)
    strided = np.swapaxes(np.ascontiguousarray(np.swapaxes(x, -1, -2)), -1, -2)
    for k, s in ((2, 2), (3, 1), (3, 2)):
        a = TF.avg_pool2d(torchlite.tensor(x), k, s)
        b = TF.avg_pool2d(torchlite.tensor(strided), k, s)
        assert _bytes(a) == _bytes(b)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("special", ["", "nan"])
def test_max_pool_against_torch(dtype, dev, special):
    """The CNN's 2x2 pool (the view and, without a nan, the nan-free scan) against torch: values,
    indices, the gradient, the node and its saved fields."""
    rng = np.random.default_rng(13)
    x = rng.standard_normal((4, 5, 64, 32)).astype(dtype)
    if special:
        x.flat[::101] = np.nan
    gy = rng.standard_normal((4, 5, 32, 16)).astype(dtype)
    out = {}
    for lib in (torchlite, torch):
        X = _leaf(lib, x, dev)
        v, i = lib.nn.functional.max_pool2d(X, 2, return_indices=True)
        node = v.grad_fn
        saved = (node.name(), list(node._saved_kernel_size), list(node._saved_stride), list(node._saved_padding),
                 node._saved_result1.cpu().numpy().copy())
        v.backward(lib.tensor(gy).to(X.device))
        out[lib] = (v, i, X.grad, saved)
    (v, i, g, node), (tv, ti, tg, tnode) = out[torchlite], out[torch]
    assert node[0] == tnode[0] == "MaxPool2DWithIndicesBackward0"
    assert node[1:4] == tnode[1:4]
    np.testing.assert_array_equal(node[4], tnode[4])
    np.testing.assert_array_equal(i.cpu().numpy(), ti.numpy())
    np.testing.assert_array_equal(v.detach().cpu().numpy(), tv.detach().numpy())  # a max is exact
    np.testing.assert_array_equal(g.cpu().numpy(), tg.numpy())


def test_max_pool_gradcheck_and_gradgradcheck(monkeypatch):
    rng = np.random.default_rng(17)
    x = torchlite.tensor(rng.permutation(2 * 2 * 6 * 8).reshape(2, 2, 6, 8) / 7.0, requires_grad=True)
    calls = []
    monkeypatch.setattr(Pooling, "_NAN_CHECK_SIZE", 0)  # the nan-free scan on this small input
    monkeypatch.setattr(Pooling, "_nan_free", lambda a, f=Pooling._nan_free: calls.append(f(a)) or calls[-1])
    monkeypatch.setattr(Pooling, "_host", lambda *a: False)  # the numpy scan (test_cnn_kernels.py tests the C++ one)

    def fn(x):
        return TF.max_pool2d(x, 2)

    assert torchlite.autograd.gradcheck(fn, (x,))
    assert torchlite.autograd.gradgradcheck(fn, (x,))
    assert calls and all(calls)


def test_max_pool_nan_check_size():
    """The nan-free scan is tried from _NAN_CHECK_SIZE elements on (the benchmark's pools are larger)."""
    assert Pooling._NAN_CHECK_SIZE <= 32 * 64 * 16 * 16


# conv2d: the bias added in the output copy -----------------------------------------------------------------

CONV_CASES = [((32, 3, 32, 32), (32, 3, 3, 3), 1, 1, 1), ((32, 32, 16, 16), (64, 32, 3, 3), 1, 1, 1),
              ((2, 4, 7, 5), (6, 2, 3, 2), 2, 0, 2), ((1, 3, 6, 6), (1, 3, 3, 3), 1, 1, 1),
              ((3, 2, 9), (4, 2, 3), 1, 1, 1)]


@pytest.mark.parametrize("case", CONV_CASES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_conv_bias_fold_matches_separate_add(case, dtype):
    """conv with a bias is bit for bit conv without one plus the bias (the add the fold replaces)."""
    xs, ws, stride, padding, groups = case
    rng = np.random.default_rng(19)
    x, w = rng.standard_normal(xs).astype(dtype), rng.standard_normal(ws).astype(dtype)
    b = rng.standard_normal(ws[0]).astype(dtype)
    X, W, B = torchlite.tensor(x), torchlite.tensor(w), torchlite.tensor(b)
    conv = TF.conv2d if len(xs) == 4 else TF.conv1d
    with_bias = conv(X, W, B, stride, padding, 1, groups)
    plain = conv(X, W, None, stride, padding, 1, groups)
    assert _bytes(with_bias) == _bytes(plain + B.reshape((-1,) + (1,) * (len(xs) - 2)))
    assert with_bias._array.flags.c_contiguous


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dev", DEVICES)
def test_cnn_block_against_torch(dtype, dev):
    """A small copy of the benchmark's CNN (conv, batch norm, relu, 2x2 pool, twice, then a linear
    head and cross-entropy): the loss, every parameter's gradient and the node names against torch."""
    rng = np.random.default_rng(23)
    arrays = dict(x=rng.standard_normal((6, 3, 16, 16)), w1=rng.standard_normal((8, 3, 3, 3)) * 0.3,
                  b1=rng.standard_normal(8) * 0.1, g1=1 + 0.1 * rng.standard_normal(8), c1=0.1 * rng.standard_normal(8),
                  w2=rng.standard_normal((16, 8, 3, 3)) * 0.2, b2=rng.standard_normal(16) * 0.1,
                  g2=1 + 0.1 * rng.standard_normal(16), c2=0.1 * rng.standard_normal(16),
                  fw=rng.standard_normal((5, 16 * 4 * 4)) * 0.05, fb=rng.standard_normal(5) * 0.1)
    y = rng.integers(0, 5, 6)
    out = {}
    for lib in (torchlite, torch):
        Fn = TF if lib is torchlite else F
        p = {k: _leaf(lib, v.astype(dtype), dev, grad=k != "x") for k, v in arrays.items()}
        names = []
        h = p["x"]
        for i in ("1", "2"):
            h = Fn.conv2d(h, p["w" + i], p["b" + i], padding=1)
            names.append(h.grad_fn.name())
            h = Fn.batch_norm(h, None, None, p["g" + i], p["c" + i], training=True)
            names.append(h.grad_fn.name())
            h = Fn.relu(h)
            names.append(h.grad_fn.name())
            h = Fn.max_pool2d(h, 2)
            names.append(h.grad_fn.name())
        loss = Fn.cross_entropy(Fn.linear(lib.flatten(h, 1), p["fw"], p["fb"]),
                                lib.tensor(y).to(h.device))
        loss.backward()
        out[lib] = (names, loss, {k: v.grad for k, v in p.items() if k != "x"})
    names, loss, grads = out[torchlite]
    tnames, tloss, tgrads = out[torch]
    assert names == tnames
    assert names[:4] == ["ConvolutionBackward0", "NativeBatchNormBackward0", "ReluBackward0",
                         "MaxPool2DWithIndicesBackward0"]
    _close(loss.detach().cpu().numpy(), tloss.detach().numpy(), dtype)
    for k in grads:
        _close(grads[k].cpu().numpy(), tgrads[k].numpy(), dtype)


def test_conv_gradcheck_and_gradgradcheck():
    rng = np.random.default_rng(29)
    x = torchlite.tensor(rng.standard_normal((2, 3, 5, 5)), requires_grad=True)
    w = torchlite.tensor(rng.standard_normal((4, 3, 3, 3)), requires_grad=True)
    b = torchlite.tensor(rng.standard_normal(4), requires_grad=True)

    def fn(x, w, b):
        return TF.conv2d(x, w, b, padding=1)

    assert torchlite.autograd.gradcheck(fn, (x, w, b))
    assert torchlite.autograd.gradgradcheck(fn, (x, w, b))
