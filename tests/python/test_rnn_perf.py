"""Issue 15's performance work on the benchmark models' kernels, checked against torch: the RNN layers'
pre-computed input projection (RNN.cpp's FullLayer on CPU: one linear over the whole sequence,
unbound per step), max_pool2d's scan and scatter, and the batch-norm backward in numpy."""
import collections

import numpy as np
import pytest

import torchlite

from diff_utils import import_torch, run

torch = import_torch()


def _graph_names(root):
    """The multiset of node names reachable from `root`; torch's UnsafeSplitBackward0 (the cells'
    unsafe_chunk) read as SplitBackward0, torchlite's chunk."""
    names, seen, alive, stack = collections.Counter(), set(), [], [root]
    while stack:
        fn = stack.pop()
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        alive.append(fn)  # (ids stay unique while the nodes' Python objects live)
        name = fn.name()
        names["SplitBackward0" if name == "UnsafeSplitBackward0" else name] += 1
        stack.extend(f for f, _ in fn.next_functions)
    return names


def _rnn(lib, mode, bidirectional, seq=4, dtype="float64"):
    lib.manual_seed(0)
    cls = {"LSTM": lib.nn.LSTM, "GRU": lib.nn.GRU, "RNN_TANH": lib.nn.RNN, "RNN_RELU": lib.nn.RNN}[mode]
    kwargs = dict(nonlinearity="relu") if mode == "RNN_RELU" else {}
    m = cls(3, 5, 2, bidirectional=bidirectional, **kwargs).to(getattr(lib, dtype))
    x = lib.tensor(np.random.default_rng(1).standard_normal((seq, 2, 3)), dtype=getattr(lib, dtype),
                   requires_grad=True)
    return m, x


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN_TANH", "RNN_RELU"])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_rnn_layers_record_torchs_cpu_graph(mode, bidirectional):
    # float64 (torch's float32 LSTM runs oneDNN's fused layer instead): the input projection is one
    # AddmmBackward0 per layer and direction over the flattened sequence, viewed and unbound
    graphs = {}
    for lib in (torch, torchlite):
        m, x = _rnn(lib, mode, bidirectional)
        out = m(x)[0]
        graphs[lib.__name__] = _graph_names(out.sum().grad_fn)
    assert graphs["torchlite"] == graphs["torch"]
    assert graphs["torch"]["UnbindBackward0"] == 2 * (2 if bidirectional else 1)


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN_TANH"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rnn_values_and_gradients_match_torch(mode, dtype):
    results = {}
    for lib in (torch, torchlite):
        m, x = _rnn(lib, mode, True, seq=6, dtype=dtype)
        out = m(x)
        loss = out[0].pow(2).sum() + sum(h.sum() for h in (out[1] if mode == "LSTM" else (out[1],)))
        loss.backward()
        results[lib.__name__] = [out[0].detach().numpy(), x.grad.numpy()] + [p.grad.numpy() for p in m.parameters()]
    rtol, atol = (1e-10, 1e-12) if dtype == "float64" else (1e-5, 1e-6)
    for a, b in zip(results["torch"], results["torchlite"], strict=True):
        assert a.dtype == b.dtype
        np.testing.assert_allclose(b, a, rtol=rtol, atol=atol)


@pytest.mark.parametrize("cls", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_rnn_empty_sequence_refuses_as_torch(cls, bidirectional):
    def case(lib):
        lib.manual_seed(0)
        return getattr(lib.nn, cls)(3, 4, bidirectional=bidirectional)(lib.zeros(0, 2, 3))[0]
    assert run(case, torchlite) == run(case, torch)
    assert run(case, torch)[0] == "raised"


# max_pool2d ---------------------------------------------------------------------------------------------

def _pool_input(rng, shape, fill):
    a = rng.standard_normal(shape)
    if fill == "special":
        m = rng.random(shape)
        a[m < 0.1] = np.nan
        a[(m > 0.1) & (m < 0.2)] = np.inf
        a[(m > 0.2) & (m < 0.3)] = -np.inf
        a[(m > 0.3) & (m < 0.4)] = -0.0
        a[(m > 0.4) & (m < 0.5)] = 0.0
    elif fill == "ties":
        a = rng.integers(-2, 2, shape).astype(float)
        a[a == 0] = np.where(rng.random(int((a == 0).sum())) < 0.5, -0.0, 0.0)
    return a


POOLS = [(2, None, 0, 1, False), (2, 2, 0, 1, True), (3, 2, 1, 1, False), (3, 3, 0, 1, True),
         ((2, 3), (2, 1), (1, 0), 1, False), (2, 2, 1, 2, True), (2, 1, 0, 1, False), (5, 5, 2, 1, True),
         (5, 3, 0, 1, False)]


@pytest.mark.parametrize("pool", POOLS)
@pytest.mark.parametrize("fill", ["normal", "special", "ties"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("transposed", [False, True])
def test_max_pool2d_values_indices_gradients_bitwise_torch(pool, fill, dtype, transposed):
    k, s, p, d, c = pool
    a = _pool_input(np.random.default_rng(7), (3, 4, 9, 11), fill)
    if p != 0:
        # torch's index of a padded window whose values are all -inf is its corner's (outside the
        # input) or its first real position's, by the input's strides: no -inf next to padding
        a[np.isneginf(a)] = -1e30
    g = np.random.default_rng(8).standard_normal((3, 4, 9, 11))
    results = {}
    for lib in (torch, torchlite):
        x = lib.tensor(a, dtype=getattr(lib, dtype))
        if transposed:  # a non-contiguous input
            x = x.transpose(-1, -2).contiguous().transpose(-1, -2)
        x.requires_grad_(True)
        v, i = lib.nn.functional.max_pool2d(x, k, s, p, d, c, return_indices=True)
        (v * lib.tensor(g[..., :v.shape[-2], :v.shape[-1]], dtype=getattr(lib, dtype))).sum().backward()
        results[lib.__name__] = (v.detach().numpy(), i.numpy(), x.grad.numpy())
    kk, ss = np.broadcast_to(k, 2), np.broadcast_to(k if s is None else s, 2)
    disjoint = all(ss[j] >= d * (kk[j] - 1) + 1 for j in range(2))
    for n, (a_, b_) in enumerate(zip(results["torch"], results["torchlite"], strict=True)):
        assert a_.dtype == b_.dtype and a_.shape == b_.shape
        if n == 2 and not disjoint:
            # overlapping windows add several gradients into a position: torchlite sums them in
            # float64 (np.bincount), torch in the input's dtype, one rounding apart
            np.testing.assert_allclose(b_, a_, rtol=1e-6 if dtype == "float32" else 1e-15, atol=1e-7)
            continue
        np.testing.assert_array_equal(a_, b_)
        assert np.array_equal(np.signbit(a_), np.signbit(b_))


def test_max_pool2d_backward_sums_repeated_indices():
    # indices given to the backward op directly (here all 0): the gradients add up, as torch's
    g = np.random.default_rng(3).standard_normal((2, 3, 4, 4))
    results = {}
    for lib in (torch, torchlite):
        x = lib.zeros(2, 3, 8, 8, dtype=lib.float64)
        idx = lib.zeros(2, 3, 4, 4, dtype=lib.long)
        fn = torch.ops.aten.max_pool2d_with_indices_backward if lib is torch else \
            torchlite._ops.max_pool2d_with_indices_backward
        results[lib.__name__] = fn(lib.tensor(g), x, [2, 2], [2, 2], [0, 0], [1, 1], False, idx).numpy()
    np.testing.assert_allclose(results["torchlite"], results["torch"], rtol=1e-15)
    assert results["torch"][0, 0, 0, 0] != 0


# batch norm's backward --------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(4, 3), (5, 2, 7), (3, 4, 5, 6), (2, 3, 2, 2, 2), (1, 3, 1, 1)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("special", [False, True])
@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm_backward_numpy_equals_composed_bitwise(monkeypatch, shape, dtype, special, affine):
    # the numpy kernel of the training backward against the composed torchlite ops it replaces
    from torchlite import _C
    from torchlite._ops import Normalization
    rng = np.random.default_rng(11)
    x, g = rng.standard_normal(shape) * 3 + 1, rng.standard_normal(shape)
    if special:
        x.reshape(-1)[::7] = np.nan
        g.reshape(-1)[::5] = np.inf
        g.reshape(-1)[1::9] = -0.0
    X, G = torchlite.tensor(x, dtype=getattr(torchlite, dtype)), torchlite.tensor(g, dtype=getattr(torchlite, dtype))
    c = shape[1]
    w = torchlite.tensor(rng.standard_normal(c), dtype=X.dtype) if affine else None
    b = torchlite.tensor(rng.standard_normal(c), dtype=X.dtype) if affine else None
    rm, rv = torchlite.zeros(c, dtype=X.dtype), torchlite.ones(c, dtype=X.dtype)
    _, sm, si = torchlite.native_batch_norm(X, w, b, rm, rv, True, 0.1, 1e-5)
    args = (rm, rv, sm, si, True, 1e-5)
    results = []
    for fast in (True, False):
        if not fast:
            monkeypatch.setattr(Normalization, "_batch_norm_train_grads", lambda *a: None)
        with torchlite.no_grad():
            assert not _C.is_grad_enabled()
            if fast:
                assert Normalization._batch_norm_train_grads(G, X, w, sm, si, [True] * 3) is not None
            results.append(Normalization._first_order("batch", G, X, w, args, [True, True, True]))
    for f, s in zip(*results, strict=True):
        assert (f is None) == (s is None)
        if f is not None:
            a, b_ = f.numpy(), s.numpy()
            assert a.dtype == b_.dtype and a.shape == b_.shape and a.strides == b_.strides
            assert a.tobytes() == b_.tobytes()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_batch_norm_training_gradients_match_torch(dtype):
    rng = np.random.default_rng(12)
    x, g = rng.standard_normal((8, 5, 6, 7)) * 2 + 1, rng.standard_normal((8, 5, 6, 7))
    results = {}
    for lib in (torch, torchlite):
        lib.manual_seed(0)
        m = lib.nn.BatchNorm2d(5).to(getattr(lib, dtype))
        with lib.no_grad():
            m.weight.copy_(lib.tensor(rng.standard_normal(5) if lib is torch else results["w"]))
        if lib is torch:
            results["w"] = m.weight.detach().numpy().copy()
        xt = lib.tensor(x, dtype=getattr(lib, dtype), requires_grad=True)
        (m(xt) * lib.tensor(g, dtype=getattr(lib, dtype))).sum().backward()
        results[lib.__name__] = [xt.grad.numpy(), m.weight.grad.numpy(), m.bias.grad.numpy(), m.running_var.numpy()]
    rtol, atol = (1e-10, 1e-12) if dtype == "float64" else (1e-4, 1e-5)
    for a, b in zip(results["torch"], results["torchlite"], strict=True):
        np.testing.assert_allclose(b, a, rtol=rtol, atol=atol)


# addmm's bias added into the product in place ------------------------------------------------------------

@pytest.mark.parametrize("op", ["addmm", "baddbmm", "addbmm"])
@pytest.mark.parametrize("self_shape", [(5,), (1,), (), (4, 5), (4, 1), (1, 5), (3,), (2, 4, 5), (4, 3)])
@pytest.mark.parametrize("beta, alpha", [(1, 1), (0, 1), (1, 0), (0.5, 2), (-1.5, 1)])
def test_addmm_family_bias_shapes_match_torch(op, self_shape, beta, alpha):
    rng = np.random.default_rng(13)
    s = rng.standard_normal(self_shape)
    m1 = rng.standard_normal((4, 6) if op == "addmm" else (2, 4, 6))
    m2 = rng.standard_normal((6, 5) if op == "addmm" else (2, 6, 5))

    def case(lib):
        a, b, c = (lib.tensor(x, requires_grad=True) for x in (s, m1, m2))
        y = getattr(lib, op)(a, b, c, beta=beta, alpha=alpha)
        y.pow(2).sum().backward()
        return y, a.grad, b.grad, c.grad, y.grad_fn.name()
    assert run(case, torchlite) == run(case, torch)
