"""cross_entropy's host kernels (csrc/autograd/python_fast_loss.cpp, bound as _C._log_softmax_host,
_C._log_softmax_backward_host, _C._nll_loss_forward_host and _C._nll_loss_backward_host; Note
[Cross entropy with numpy's bits]):

- against the numpy path they stand in for (SoftMax._HOST_KERNELS and LossNLL._HOST_KERNELS off),
  bit for bit, on N 1..700 rows of C 1..1000 classes, float32 and float64, ignore_index present and
  absent, weights, reductions none / mean / sum, nan / inf logits and gradients, signed zeros (a
  nan's sign and payload aside: numpy does not keep them from one version to the next; which values
  are nan must agree);
- that the inputs they do not take (other dtypes, layouts, one-value rows, non-finite row maxima,
  targets out of range) run the numpy path and raise its errors, and that odd arguments to the
  bindings give None or a Python exception;
- against torch: values, gradients, node names and saved fields on "cpu" and "sim:0", gradcheck /
  gradgradcheck in float64.
"""
import zlib

import numpy as np
import pytest

import torchlite
import torchlite.nn.functional as TF
from diff_utils import import_torch, same_bits
from torchlite import _C
from torchlite._ops import LossNLL, SoftMax

torch = import_torch()
import torch.nn.functional as F  # noqa: E402

DTYPES = [np.float32, np.float64]
SPECIALS = ["normal", "offset", "special", "zeros"]


def _rng(*key):
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


class _Host:
    """The host kernels on (the default) or off (the numpy path) while inside."""

    def __init__(self, on):
        self.on = on

    def __enter__(self):
        self.saved = SoftMax._HOST_KERNELS, LossNLL._HOST_KERNELS
        SoftMax._HOST_KERNELS = LossNLL._HOST_KERNELS = self.on

    def __exit__(self, *exc):
        SoftMax._HOST_KERNELS, LossNLL._HOST_KERNELS = self.saved


def _logits(rng, shape, dtype, special):
    x = rng.standard_normal(shape).astype(dtype) * dtype(3)
    if special == "offset":
        x = (x + dtype(1e4 if dtype == np.float32 else 1e9)).astype(dtype)
    elif special == "special":  # -inf, signed zeros; nan and +inf rows go to the numpy path
        flat = x.reshape(-1)
        idx = rng.integers(0, flat.size, size=max(1, flat.size // 30))
        flat[idx] = rng.choice(np.array([-np.inf, -0.0, 0.0, np.nan, np.inf], dtype), size=idx.size)
    elif special == "zeros":
        x = np.full(shape, -0.0, dtype)
        if x.size > 1:
            x.reshape(-1)[::3] = 0.0
    return x


SHAPES = [(1, 2), (2, 2), (3, 5), (1, 7), (4, 8), (5, 9), (7, 16), (2, 127), (3, 128), (3, 129), (2, 255),
          (8, 256), (6, 300), (64, 512), (512, 512), (700, 1000), (2, 3, 17), (2, 2, 3, 130)]


# log_softmax --------------------------------------------------------------------------------------------

@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("special", SPECIALS)
@pytest.mark.parametrize("shape", SHAPES)
def test_log_softmax_bits(shape, dtype, special):
    rng = _rng("ls", shape, dtype, special)
    x = _logits(rng, shape, dtype, special)
    t = torchlite.tensor(x, requires_grad=True)
    with _Host(False):
        ref = torchlite.log_softmax(t, -1)
    out = torchlite.log_softmax(t, -1)
    same_bits(out.detach().numpy(), ref.detach().numpy(), ("forward", shape))
    assert out.grad_fn.name() == ref.grad_fn.name() == "LogSoftmaxBackward0"
    tout = torch.log_softmax(torch.tensor(x, requires_grad=True), -1)
    assert out.grad_fn._saved_dim == ref.grad_fn._saved_dim == tout.grad_fn._saved_dim  # (torch's uint64 of -1)
    same_bits(out.grad_fn._saved_result.detach().numpy(), out.detach().numpy())
    # the host kernel ran where every row's maximum is finite, and refused otherwise
    finite = bool(np.all(np.isfinite(np.max(x, axis=-1)))) and not np.isnan(x).any()
    assert (_C._log_softmax_host(x) is not None) == finite
    # the backward on a dense gradient with zeros, infinities and nans
    g = rng.standard_normal(shape).astype(dtype)
    if special == "special":
        g.reshape(-1)[::4] = -0.0
        g.reshape(-1)[rng.integers(0, g.size)] = np.inf
        g.reshape(-1)[rng.integers(0, g.size)] = np.nan
    elif special == "zeros":
        g[...] = -0.0
    o = out.detach().numpy()
    gt, ot = torchlite.tensor(g), torchlite.tensor(o)
    with _Host(False):
        bref = torchlite._log_softmax_backward_data(gt, ot, -1, t.dtype)
    b = torchlite._log_softmax_backward_data(gt, ot, -1, t.dtype)
    same_bits(b.numpy(), bref.numpy(), ("backward", shape))
    assert _C._log_softmax_backward_host(g, o) is not None


@pytest.mark.parametrize("dtype", DTYPES)
def test_log_softmax_backward_bits_on_wide_rows(dtype):
    """rows up to numpy's buffer (8192 values): the pairwise sum's recursion several levels deep."""
    for n in (1000, 1031, 4096, 8191, 8192):
        rng = _rng("wide", n, dtype)
        x = _logits(rng, (3, n), dtype, "normal")
        g = rng.standard_normal((3, n)).astype(dtype)
        with _Host(False):
            ref = torchlite.log_softmax(torchlite.tensor(x), 1).numpy()
            bref = torchlite._log_softmax_backward_data(torchlite.tensor(g), torchlite.tensor(ref), 1,
                                                        torchlite.float32).numpy()
        same_bits(torchlite.log_softmax(torchlite.tensor(x), 1).numpy(), ref, n)
        same_bits(_C._log_softmax_host(x), ref, n)
        same_bits(_C._log_softmax_backward_host(g, ref), bref, n)


def test_log_softmax_layouts_left_to_numpy():
    """What _host_rows refuses runs the numpy path: the values are its own."""
    x = _logits(_rng("layouts"), (6, 10), np.float32, "normal")
    base = torchlite.tensor(x)
    cases = [base.t(), base[:, ::2], base.half(), base.reshape(60, 1), base[:, :1], base.double().t()]
    for t in cases:
        with _Host(False):
            ref = torchlite.log_softmax(t, -1).float().numpy()
        got = torchlite.log_softmax(t, -1).float().numpy()
        assert np.array_equal(got, ref, equal_nan=True), t.shape
    # a dim that is not the last
    t = torchlite.tensor(x)
    with _Host(False):
        ref = torchlite.log_softmax(t, 0).numpy()
    same_bits(torchlite.log_softmax(t, 0).numpy(), ref)
    assert not SoftMax._host_rows(x, 0)
    assert not SoftMax._host_rows(x.reshape(60, 1), 1)
    assert not SoftMax._host_rows(np.zeros((2, 9000), np.float32), 1)
    assert SoftMax._host_rows(x, 1)


def test_bindings_refuse_odd_arguments():
    x = np.ones((3, 4), np.float32)
    assert _C._log_softmax_host(x.astype(np.float16)) is None
    assert _C._log_softmax_host(x.T) is None
    assert _C._log_softmax_host(np.ones((3, 1), np.float32)) is None
    assert _C._log_softmax_host(np.ones((0, 4), np.float32)) is None
    assert _C._log_softmax_host(np.float32(1)) is None
    assert _C._log_softmax_host([1.0, 2.0]) is None
    assert _C._log_softmax_backward_host(x, x.astype(np.float64)) is None
    assert _C._log_softmax_backward_host(x, np.ones((4, 3), np.float32)) is None
    t = np.zeros(3, np.int64)
    assert _C._nll_loss_forward_host(x, t.astype(np.int32), None, 1, -100, 8192) is None
    assert _C._nll_loss_forward_host(x, np.zeros(2, np.int64), None, 1, -100, 8192) is None
    assert _C._nll_loss_forward_host(x, t, np.ones(3, np.float32), 1, -100, 8192) is None
    assert _C._nll_loss_forward_host(x, t, np.ones(4, np.float64), 1, -100, 8192) is None
    assert _C._nll_loss_forward_host(x, t, None, 1, -100, 2) is None  # more rows than the limit
    assert _C._nll_loss_forward_host(x, np.array([0, 4, 1]), None, 1, -100, 8192) is None  # out of range
    assert _C._nll_loss_forward_host(x, np.array([0, -1, 1]), None, 1, -100, 8192) is None
    assert _C._nll_loss_forward_host(x, np.array([0, -1, 1]), None, 1, -1, 8192) is not None
    tw = np.ones((), np.float32)
    assert _C._nll_loss_backward_host(np.ones((), np.float32), x, t, None, 0, -100, tw) is None  # none: (N,) grad
    assert _C._nll_loss_backward_host(np.ones(3, np.float32), x, t, None, 1, -100, tw) is None
    assert _C._nll_loss_backward_host(np.ones((), np.float64), x, t, None, 1, -100, tw) is None
    assert _C._nll_loss_backward_host(np.ones((), np.float32), x, t, None, 1, -100, np.ones(1, np.float32)) is None
    assert _C._nll_loss_backward_host(np.ones((), np.float32), x, t, None, 1, -100, tw) is not None
    with pytest.raises(TypeError):
        _C._nll_loss_forward_host(x, t, None, 1, 1 << 70, 8192)
    with pytest.raises(TypeError):
        _C._log_softmax_host()


# nll_loss -----------------------------------------------------------------------------------------------

NLL_SHAPES = [(1, 1), (1, 3), (2, 1), (3, 5), (7, 4), (8, 10), (9, 2), (64, 33), (127, 16), (129, 7), (300, 50),
              (512, 512), (700, 1000)]


def _nll_case(rng, n, c, dtype, ignore, weighted, special):
    x = _logits(rng, (n, c), dtype, special)
    t = rng.integers(0, c, n)
    ignore_index = -100
    if ignore == "class":  # a valid class is ignored
        ignore_index = int(t[0])
    elif ignore == "rows":
        t[rng.random(n) < 0.3] = -100
    w = None
    if weighted:
        w = rng.random(c).astype(dtype) * dtype(2)
        w[rng.integers(0, c)] = 0.0
        if c > 2:
            w[1] = -0.0
    return x, t, w, ignore_index


@pytest.mark.filterwarnings("error")  # (neither path warns on an infinite or nan logit, as torch)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ignore", ["none", "rows", "class"])
@pytest.mark.parametrize("shape", NLL_SHAPES)
def test_nll_loss_bits(shape, ignore, weighted, dtype):
    n, c = shape
    for special in SPECIALS:
        rng = _rng("nll", shape, ignore, weighted, dtype, special)
        x, t, w, ignore_index = _nll_case(rng, n, c, dtype, ignore, weighted, special)
        xt, tt = torchlite.tensor(x, requires_grad=True), torchlite.tensor(t)
        wt = None if w is None else torchlite.tensor(w)
        for reduction in (0, 1, 2):
            with _Host(False):
                ref, ref_total = LossNLL.nll_loss_forward(xt, tt, wt, reduction, ignore_index)
            out, total = LossNLL.nll_loss_forward(xt, tt, wt, reduction, ignore_index)
            what = (shape, ignore, weighted, special, reduction)
            same_bits(out.detach().numpy(), ref.detach().numpy(), what)
            same_bits(total.numpy(), ref_total.numpy(), what)
            assert out.grad_fn.name() == ref.grad_fn.name() == "NllLossBackward0"
            assert out.grad_fn._saved_reduction == ref.grad_fn._saved_reduction == reduction
            assert out.grad_fn._saved_ignore_index == ref.grad_fn._saved_ignore_index  # (uint64, as torch's)
            same_bits(out.grad_fn._saved_total_weight.numpy(), ref_total.numpy(), what)
            host = _C._nll_loss_forward_host(x, t, w, reduction, ignore_index, 8192)
            assert host is not None
            # the backward, with gradients that are ordinary, signed zeros, infinite and nan
            grads = [rng.standard_normal(n if reduction == 0 else ()).astype(dtype)]
            if reduction == 0:
                g = grads[0].copy()
                g[::3] = -0.0
                g[rng.integers(0, n)] = np.inf
                g[rng.integers(0, n)] = np.nan
                grads.append(g)
            else:
                grads += [np.array(v, dtype) for v in (-0.0, 0.0, np.inf, -np.inf, np.nan, 1e-30)]
            for g in grads:
                gt = torchlite.tensor(g)
                with _Host(False):
                    bref = LossNLL.nll_loss_backward(gt, xt, tt, wt, reduction, ignore_index, ref_total)
                b = LossNLL.nll_loss_backward(gt, xt, tt, wt, reduction, ignore_index, total)
                label = what + ("backward", g.tolist() if g.ndim == 0 else "dense")
                same_bits(b.detach().numpy(), bref.detach().numpy(), label)
                assert _C._nll_loss_backward_host(g, x, t, w, reduction, ignore_index, total.numpy()) is not None


def test_nll_loss_total_weight_zero():
    """every row ignored: 0 / 0 gives nan for mean, as numpy's division does; the gradient too."""
    for dtype in DTYPES:
        x = np.ones((4, 3), dtype)
        t = np.full(4, -100)
        xt, tt = torchlite.tensor(x, requires_grad=True), torchlite.tensor(t)
        for reduction in (0, 1, 2):
            with _Host(False):
                ref = LossNLL.nll_loss_forward(xt, tt, None, reduction, -100)
            out = LossNLL.nll_loss_forward(xt, tt, None, reduction, -100)
            same_bits(out[0].detach().numpy(), ref[0].detach().numpy())
            same_bits(out[1].numpy(), ref[1].numpy())
            out[0].sum().backward()
            g1 = xt.grad.numpy().copy()
            xt.grad = None
            with _Host(False):
                ref[0].sum().backward()
            same_bits(g1, xt.grad.numpy())
            xt.grad = None


def test_nll_loss_left_to_numpy_and_errors():
    x = torchlite.randn(4, 5)
    for target in ([0, 5, 1, 2], [0, -2, 1, 2]):
        with pytest.raises(IndexError) as err:
            TF.nll_loss(x, torchlite.tensor(target))
        with pytest.raises(IndexError) as terr:
            F.nll_loss(torch.tensor(x.numpy()), torch.tensor(target))
        assert str(err.value) == str(terr.value)
    # a Byte target, a 1-d input, float16, a weight of another dtype: numpy's path, torch's values or errors
    ref = F.nll_loss(torch.tensor(x.numpy()), torch.tensor([0, 1, 2, 3]))
    got = TF.nll_loss(x, torchlite.tensor([0, 1, 2, 3], dtype=torchlite.uint8))
    np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=1e-6)
    got = TF.cross_entropy(torchlite.tensor([1.0, 2.0, 0.5]), torchlite.tensor(1))
    ref = F.cross_entropy(torch.tensor([1.0, 2.0, 0.5]), torch.tensor(1))
    np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=1e-6)
    h = torchlite.randn(3, 4).half()
    got = TF.cross_entropy(h, torchlite.tensor([0, 1, 3]))
    ref = F.cross_entropy(torch.tensor(h.float().numpy()).half(), torch.tensor([0, 1, 3]))
    assert got.dtype == torchlite.float16
    np.testing.assert_allclose(got.float().numpy(), ref.float().numpy(), rtol=1e-3)
    with pytest.raises(RuntimeError) as err:
        TF.nll_loss(x, torchlite.tensor([0, 1, 2, 3]), weight=torchlite.ones(5, dtype=torchlite.float64))
    with pytest.raises(RuntimeError) as terr:
        F.nll_loss(torch.tensor(x.numpy()), torch.tensor([0, 1, 2, 3]), weight=torch.ones(5, dtype=torch.float64))
    assert str(err.value) == str(terr.value)
    # an ignore_index beyond int64: numpy's path (nothing ignored)
    got = TF.nll_loss(x, torchlite.tensor([0, 1, 2, 3]), ignore_index=1 << 70)
    with _Host(False):
        ref = TF.nll_loss(x, torchlite.tensor([0, 1, 2, 3]), ignore_index=1 << 70)
    same_bits(got.numpy(), ref.numpy())


# cross_entropy end to end -----------------------------------------------------------------------------

CE_CASES = [((512, 512), {}), ((700, 1000), {}), ((16, 10), {"reduction": "sum"}), ((16, 10), {"reduction": "none"}),
            ((33, 7), {"ignore_index": 2}), ((33, 7), {"weight": True}), ((33, 7), {"weight": True, "ignore_index": 0}),
            ((33, 7), {"weight": True, "reduction": "none"}), ((1, 2), {}), ((5, 1), {}),
            ((4, 6, 3), {}), ((8, 5), {"label_smoothing": 0.1})]


@pytest.mark.parametrize("device", ["cpu", "sim:0"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,kw", CE_CASES)
def test_cross_entropy_against_torch_and_numpy_path(shape, kw, dtype, device):
    rng = _rng("ce", shape, repr(kw), dtype)
    x = rng.standard_normal(shape).astype(dtype)
    t = rng.integers(0, shape[1], (shape[0],) + shape[2:])
    if "ignore_index" in kw:
        t[::4] = kw["ignore_index"]
    w = rng.random(shape[1]).astype(dtype) + dtype(0.5) if kw.get("weight") else None
    args = {k: v for k, v in kw.items() if k != "weight"}

    def run(lib, host=True):
        xt = lib.tensor(x, requires_grad=True, device=device if lib is torchlite else "cpu")
        tt = lib.tensor(t, device=xt.device)
        wt = None if w is None else lib.tensor(w, device=xt.device)
        f = TF if lib is torchlite else F
        with _Host(host):
            loss = f.cross_entropy(xt, tt, weight=wt, **args)
            names = []
            node = loss.grad_fn
            while node is not None:
                names.append(node.name())
                node = node.next_functions[0][0] if node.next_functions else None
            loss.backward(torch.ones_like(loss) if lib is torch else torchlite.ones_like(loss))
        return loss.detach().cpu().numpy(), xt.grad.cpu().numpy(), names

    got, got_grad, got_names = run(torchlite)
    ref, ref_grad, ref_names = run(torchlite, host=False)
    same_bits(got, ref)
    same_bits(got_grad, ref_grad)
    assert got_names == ref_names
    tv, tg, tnames = run(torch)
    assert got_names == tnames
    rtol, atol = (2e-5, 1e-6) if dtype == np.float32 else (1e-10, 1e-12)
    np.testing.assert_allclose(got, tv, rtol=rtol, atol=atol)
    np.testing.assert_allclose(got_grad, tg, rtol=rtol, atol=atol)


def test_cross_entropy_saved_fields_against_torch():
    x = np.random.default_rng(3).standard_normal((6, 5)).astype(np.float32)
    t = np.array([0, 1, 4, 2, 3, 1])
    w = np.linspace(0.5, 1.5, 5).astype(np.float32)
    nodes = []
    for lib, f in ((torchlite, TF), (torch, F)):
        xt = lib.tensor(x, requires_grad=True)
        loss = f.cross_entropy(xt, lib.tensor(t), weight=lib.tensor(w), ignore_index=3)
        nll = loss.grad_fn
        ls = nll.next_functions[0][0]
        nodes.append((nll.name(), nll._saved_reduction, nll._saved_ignore_index,
                      nll._saved_total_weight.detach().numpy().copy(), nll._saved_weight.numpy().copy(),
                      nll._saved_target.numpy().copy(), nll._saved_self.detach().numpy().copy(),
                      ls.name(), ls._saved_dim, ls._saved_result.detach().numpy().copy()))
    a, b = nodes
    assert a[:3] == b[:3] and a[7:9] == b[7:9]
    for u, v in zip(a[3:7] + a[9:], b[3:7] + b[9:], strict=True):
        np.testing.assert_allclose(u, v, rtol=2e-6, atol=1e-7)


@pytest.mark.parametrize("kw", [{}, {"reduction": "sum"}, {"reduction": "none"}, {"ignore_index": 1},
                                {"weight": True}, {"weight": True, "ignore_index": 2}])
def test_cross_entropy_gradcheck_gradgradcheck(kw):
    rng = _rng("gc", repr(kw))
    x = torchlite.tensor(rng.standard_normal((5, 4)), requires_grad=True)
    t = torchlite.tensor([0, 1, 2, 3, 1])
    w = torchlite.tensor(rng.random(4) + 0.5) if kw.get("weight") else None
    args = {k: v for k, v in kw.items() if k != "weight"}

    def fn(x):
        return TF.cross_entropy(x, t, weight=w, **args)
    assert torchlite.autograd.gradcheck(fn, (x,))
    assert torchlite.autograd.gradgradcheck(fn, (x,))


def test_cross_entropy_double_backward_against_torch():
    x = np.random.default_rng(5).standard_normal((6, 4))
    t = np.array([0, 3, 1, 2, 2, 0])
    res = []
    for lib, f in ((torchlite, TF), (torch, F)):
        xt = lib.tensor(x, requires_grad=True)
        loss = f.cross_entropy(xt, lib.tensor(t))
        (g,) = lib.autograd.grad(loss, xt, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), xt)
        res.append((g.detach().numpy(), gg.numpy()))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-10, atol=1e-12)


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("host", [True, False])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("bad", [np.inf, -np.inf, np.nan])
def test_ignored_rows_with_non_finite_logits_against_torch(bad, reduction, host):
    """An ignored row adds nothing, whatever its logits (nll_loss_out_frame skips it): neither a nan
    loss nor a gradient there; reduction none gives it +0."""
    x = np.array([[1.0, 2.0, 0.5], [bad, 1.0, 0.0], [0.3, bad, -1.0], [2.0, 1.0, 0.0]], np.float32)
    t = np.array([0, -100, 1, 2])
    t_ok = np.array([0, -100, -100, 2])  # the row with the bad logit at its target ignored too
    for target in (t, t_ok):
        for fn in ("nll_loss", "cross_entropy"):
            out = []
            for lib, f in ((torchlite, TF), (torch, F)):
                xt = lib.tensor(x, requires_grad=True)
                with _Host(host):
                    loss = getattr(f, fn)(xt, lib.tensor(target), reduction=reduction)
                    loss.sum().backward()
                out.append((loss.detach().numpy().copy(), xt.grad.numpy().copy()))
            (v, g), (tv, tg) = out
            np.testing.assert_allclose(v, tv, rtol=2e-6, atol=1e-7, equal_nan=True)
            np.testing.assert_allclose(g, tg, rtol=2e-6, atol=1e-7, equal_nan=True)
            if reduction == "none":
                assert np.array_equal(np.signbit(v[target == -100]), np.signbit(tv[target == -100]))
