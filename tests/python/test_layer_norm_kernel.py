"""Layer norm's host kernels (csrc/aten/native/cpu/LayerNormKernel.cpp, bound as
_C._layer_norm_host and _C._layer_norm_backward_host; Note [Layer norm with numpy's bits]):

- against the numpy path they stand in for (Normalization._HOST_KERNELS off, or its helpers called
  directly), bit for bit, on rows of 2..300 values and longer ones up to numpy's buffer, leading
  dims of one and more, float32 and float64, with and without weight and bias, with nan, inf,
  signed zeros and large offsets (a nan's sign and payload aside: numpy does not keep them from one
  version to the next; which values are nan must agree);
- that the inputs they do not take (other dtypes, layouts, one-value rows, rows longer than numpy's
  buffer, grad mode on for the double backward) run the numpy path, and that bad arguments to the
  bindings raise;
- against torch: values, gradients, node names and saved fields, on "cpu" and "sim:0", with
  gradcheck / gradgradcheck in float64.
"""
import warnings
import zlib

import numpy as np
import pytest

import torchlite
import torchlite.nn.functional as TF
from diff_utils import import_torch, same_bits
from torchlite import _C
from torchlite._ops import Normalization

torch = import_torch()
import torch.nn.functional as F  # noqa: E402

DTYPES = [np.float32, np.float64]
SPECIALS = ["normal", "offset", "special", "zeros"]


def _same_bits(a, b, what=""):
    assert a.flags.c_contiguous and b.flags.c_contiguous, what
    same_bits(a, b, what)


def _rng(*key):
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def _inputs(rng, lead, norm, dtype, special, wb):
    shape = tuple(lead) + tuple(norm)
    x = rng.standard_normal(shape).astype(dtype)
    g = rng.standard_normal(shape).astype(dtype)
    if special == "offset":  # a large mean: the centring's cancellation
        x = (x + dtype(1e4 if dtype == np.float32 else 1e9)).astype(dtype)
    elif special == "special":
        flat = x.reshape(-1)
        idx = rng.integers(0, flat.size, size=max(1, flat.size // 40))
        flat[idx] = rng.choice(np.array([np.nan, np.inf, -np.inf, -0.0, 0.0], dtype), size=idx.size)
        g.reshape(-1)[::5] = -0.0
        g.reshape(-1)[rng.integers(0, g.size)] = np.inf
    elif special == "zeros":  # every sum -0.0: numpy's +0 identity makes it +0.0
        x = np.full(shape, -0.0, dtype)
        g = np.full(shape, -0.0, dtype)
    w = rng.standard_normal(norm).astype(dtype) if wb[0] else None
    b = rng.standard_normal(norm).astype(dtype) if wb[1] else None
    if special == "special" and w is not None:
        w.reshape(-1)[0] = -0.0
        if w.size > 2:
            w.reshape(-1)[1] = np.nan
    if special == "zeros" and w is not None:
        w[...] = -0.0
    return x, g, w, b


def _numpy_grads(G, X, mean, rstd, w, mask, k):
    """_norm_grads_kernel's layer-norm gradients: the numpy reference."""
    with np.errstate(all="ignore"):
        return Normalization._norm_grads_kernel(
            None, G, X, mean, rstd, w, mask, tuple(range(X.ndim - k, X.ndim)), tuple(range(X.ndim - k)))


def _unwrap(t):
    return t if t is None or isinstance(t, np.ndarray) else t._array


def _check_kernels(lead, norm, dtype, special, wb, eps=1e-5):
    """The two host kernels against the numpy path on one case."""
    rng = _rng(lead, norm, np.dtype(dtype).name, special, wb)
    x, G, w, b = _inputs(rng, lead, norm, dtype, special, wb)
    k, n = len(norm), int(np.prod(norm))
    stat_shape = tuple(lead) + (1,) * k
    assert Normalization._host_rows(x, norm, w, b) == n
    ref = Normalization._layer_norm_numpy(x, k, w, b, eps, stat_shape)
    got = _C._layer_norm_host(x, w, b, eps, n, stat_shape)
    for name, r, c in zip(("output", "mean", "rstd"), ref, got, strict=True):
        _same_bits(c, r, (name, lead, norm, special, wb))
    mean, rstd = ref[1], ref[2]
    for mask in ((True, True, True), (True, False, False), (False, True, True), (False, False, True)):
        want = _numpy_grads(G, x, mean, rstd, w, mask, k)
        have = _C._layer_norm_backward_host(G, x, mean, rstd, w, n, *mask, tuple(norm))
        for name, r, c in zip(("input", "weight", "bias"), want, have, strict=True):
            r = _unwrap(r)
            assert (r is None) == (c is None), (name, mask)
            if r is not None:
                _same_bits(c, r, ("grad", name, mask, lead, norm, special, wb))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("lead", [(1,), (3,), (2, 3)])
def test_kernels_bitwise_rows_2_to_300(lead, dtype):
    for n in range(2, 301):
        for special in SPECIALS:
            _check_kernels(lead, (n,), dtype, special, (n % 2 == 0, n % 3 != 0))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("wb", [(False, False), (True, False), (False, True), (True, True)])
@pytest.mark.parametrize("special", SPECIALS)
def test_kernels_bitwise_weight_bias(wb, special, dtype):
    for n in (2, 7, 8, 9, 16, 64, 127, 128, 129, 200, 256, 300):
        _check_kernels((4,), (n,), dtype, special, wb)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [511, 1000, 1024, 2049, 4096, 8191, 8192])
def test_kernels_bitwise_long_rows(n, dtype):
    """Rows up to numpy's default buffer (8192 values): the pairwise sum's recursion, one inner loop
    a row on numpy 2.2, 2.4 and 2.5."""
    assert n <= np.getbufsize()
    for special in SPECIALS:
        _check_kernels((3,), (n,), dtype, special, (True, True))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [((4, 3), (3, 4)), ((2,), (2, 3, 5)), ((5, 2), (16, 8)), ((3,), (7, 43)),
                                   ((1, 1), (5,)), ((200,), (300,)), ((64,), (128,)), ((8, 64), (128,))])
def test_kernels_bitwise_shapes(shape, dtype):
    """Several normalized dims (one row of their product), several leading dims, and enough rows
    that numpy's reduction crosses its buffer's boundaries."""
    lead, norm = shape
    for special in SPECIALS:
        _check_kernels(lead, norm, dtype, special, (True, True))


@pytest.mark.parametrize("eps", [1e-5, 0.0, 1e-12, 0.1, 3.0])
def test_kernels_bitwise_eps(eps):
    for dtype in DTYPES:
        _check_kernels((5,), (33,), dtype, "normal", (True, True), eps)
        _check_kernels((5,), (33,), dtype, "zeros", (False, True), eps)


# through the ops: the host path against the numpy path ----------------------------------------------------

def _op_results(monkeypatch, host, x, G, w, b, norm, eps=1e-5, device="cpu"):
    """native_layer_norm's three outputs and the three gradients, with the host kernels on or off."""
    monkeypatch.setattr(Normalization, "_HOST_KERNELS", host)
    xt = torchlite.tensor(x, device=device).requires_grad_()
    wt = torchlite.tensor(w, device=device).requires_grad_() if w is not None else None
    bt = torchlite.tensor(b, device=device).requires_grad_() if b is not None else None
    out, mean, rstd = torchlite.native_layer_norm(xt, list(norm), wt, bt, eps)
    out.backward(torchlite.tensor(G, device=device), retain_graph=True)
    grads = [t.grad for t in (xt, wt, bt) if t is not None]
    arrays = [t.detach().cpu().numpy() for t in (out, mean, rstd, *grads)]
    return arrays, out.grad_fn


def _counting(calls, tag, fn):
    def counted(*args):
        calls.append(tag)
        return fn(*args)
    return counted


@pytest.mark.parametrize("device", ["cpu", "sim:0"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("wb", [(False, False), (True, True), (True, False), (False, True)])
def test_ops_host_path_bitwise(monkeypatch, wb, dtype, device):
    for lead, norm in (((2, 5), (16,)), ((8, 64), (128,)), ((3,), (4, 5)), ((1,), (300,))):
        for special in SPECIALS:
            x, G, w, b = _inputs(_rng("op", lead, norm, special, wb), lead, norm, dtype, special, wb)
            calls = []
            host, host_back = _C._layer_norm_host, _C._layer_norm_backward_host
            monkeypatch.setattr(_C, "_layer_norm_host", _counting(calls, "f", host))
            monkeypatch.setattr(_C, "_layer_norm_backward_host", _counting(calls, "b", host_back))
            got, node = _op_results(monkeypatch, True, x, G, w, b, norm, device=device)
            assert calls == ["f", "b"], calls  # the host kernels ran
            monkeypatch.undo()
            want, ref_node = _op_results(monkeypatch, False, x, G, w, b, norm, device=device)
            for i, (c, r) in enumerate(zip(got, want, strict=True)):
                _same_bits(c, r, (i, lead, norm, special, wb))
            assert node.name() == ref_node.name() == "NativeLayerNormBackward0"
            assert node._saved_normalized_shape == ref_node._saved_normalized_shape
            assert list(node._saved_normalized_shape) == list(norm)
            for field in ("_saved_result1", "_saved_result2", "_saved_input"):
                _same_bits(getattr(node, field).detach().cpu().numpy(), getattr(ref_node, field).detach().cpu().numpy(),
                           field)


def _numpy_path_only(monkeypatch):
    def refuse(*args):
        raise AssertionError("the host kernel ran")
    monkeypatch.setattr(_C, "_layer_norm_host", refuse)
    monkeypatch.setattr(_C, "_layer_norm_backward_host", refuse)


@pytest.mark.parametrize("case", ["float16", "transposed", "one_value_rows", "float64_weight", "empty"])
def test_numpy_path_where_the_kernels_do_not_apply(monkeypatch, case):
    """These inputs never reach the host kernels (and keep working)."""
    rng = _rng(case)
    x = rng.standard_normal((6, 5)).astype(np.float32)
    norm, w = [5], rng.standard_normal(5).astype(np.float32)
    if case == "float16":
        x, w = x.astype(np.float16), w.astype(np.float16)
    elif case == "transposed":
        x = np.ascontiguousarray(x.T).T
        norm, w = [6], rng.standard_normal(6).astype(np.float32)
        x = x.T  # (5, 6) with strides of a transposed array
    elif case == "one_value_rows":
        x, norm, w = x[:, :1].copy(), [1], w[:1].copy()
    elif case == "float64_weight":
        w = w.astype(np.float64)
    elif case == "empty":
        x = x[:0]
    _numpy_path_only(monkeypatch)
    xt = torchlite.tensor(x).requires_grad_()
    wt = torchlite.tensor(w).requires_grad_()
    if case == "transposed":
        xt = torchlite.tensor(np.ascontiguousarray(x.T)).requires_grad_()
        xin = xt.t()
    else:
        xin = xt
    if case == "float64_weight":  # torch refuses mixed dtypes; the kernel itself is not asked
        assert Normalization._host_rows(x, norm, w) == 0
        return
    y = TF.layer_norm(xin, norm, wt)
    y.sum().backward()
    tx = torch.tensor(x if case != "transposed" else np.ascontiguousarray(x.T)).requires_grad_()
    tw = torch.tensor(w).requires_grad_()
    ty = F.layer_norm(tx.t() if case == "transposed" else tx, norm, tw)
    ty.sum().backward()
    # one-value rows: x - mean is 0 here, a rounding error in torch's arithmetic (times rstd ~ 316)
    rtol = 1e-2 if case == "float16" else 1e-4 if case == "one_value_rows" else 1e-5
    np.testing.assert_allclose(y.detach().numpy().astype(np.float64), ty.detach().numpy().astype(np.float64),
                               rtol=rtol, atol=rtol)
    if x.size:
        np.testing.assert_allclose(xt.grad.numpy().astype(np.float64), tx.grad.numpy().astype(np.float64),
                                   rtol=rtol, atol=rtol)
        np.testing.assert_allclose(wt.grad.numpy().astype(np.float64), tw.grad.numpy().astype(np.float64),
                                   rtol=rtol, atol=rtol)


def test_rows_longer_than_numpy_buffer_take_numpy_path(monkeypatch):
    x = _rng("buf").standard_normal((3, 64)).astype(np.float32)
    assert Normalization._host_rows(x, [64]) == 64
    old = np.setbufsize(32)
    try:
        assert Normalization._host_rows(x, [64]) == 0
        _numpy_path_only(monkeypatch)
        out = torchlite.native_layer_norm(torchlite.tensor(x), [64], None, None, 1e-5)[0]
    finally:
        np.setbufsize(old)
    ref = Normalization._layer_norm_numpy(x, 1, None, None, 1e-5, (3, 1))[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_allclose(out.numpy(), ref, rtol=1e-6, atol=1e-6)


def test_grad_mode_takes_composed_path(monkeypatch):
    """_first_order under grad mode composes the gradients from differentiable ops (the host
    backward kernel is not asked); the double backward's values match torch's."""
    _numpy_path_only(monkeypatch)
    x = _rng("dbl").standard_normal((3, 7))
    xt = torchlite.tensor(x).requires_grad_()
    wt = torchlite.ones(7, dtype=torchlite.float64).requires_grad_()
    monkeypatch.setattr(Normalization, "_HOST_KERNELS", False)
    out, mean, rstd = torchlite.native_layer_norm(xt, [7], wt, None, 1e-5)
    monkeypatch.undo()
    _numpy_path_only(monkeypatch)
    g = torchlite.ones_like(out)
    with torchlite.enable_grad():
        gi, gw, gb = Normalization._first_order("layer", g, xt, wt, ([7], mean, rstd, 1e-5), [True, True, True])
    assert gi.grad_fn is not None and gw.grad_fn is not None
    monkeypatch.undo()
    xt = torchlite.tensor(x).requires_grad_()
    wt = torchlite.ones(7, dtype=torchlite.float64).requires_grad_()
    y = TF.layer_norm(xt, [7], wt)
    (gx,) = torchlite.autograd.grad((y * y * y).sum(), xt, create_graph=True)
    gx.sum().backward()
    tx = torch.tensor(x).requires_grad_()
    tw = torch.ones(7, dtype=torch.float64).requires_grad_()
    ty = F.layer_norm(tx, [7], tw)
    (tgx,) = torch.autograd.grad((ty * ty * ty).sum(), tx, create_graph=True)
    tgx.sum().backward()
    np.testing.assert_allclose(gx.detach().numpy(), tgx.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(xt.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(wt.grad.numpy(), tw.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_bindings_refuse_bad_arguments():
    x = np.ones((2, 4), np.float32)
    with pytest.raises(ValueError):
        _C._layer_norm_host(x.astype(np.int32), None, None, 1e-5, 4, (2, 1))
    with pytest.raises(ValueError):
        _C._layer_norm_host(x.T, None, None, 1e-5, 2, (4, 1))  # not C-contiguous
    with pytest.raises(ValueError):
        _C._layer_norm_host(x, None, None, 1e-5, 3, (2, 1))  # no whole rows
    with pytest.raises(ValueError):
        _C._layer_norm_host(x, None, None, 1e-5, 0, (2, 1))
    with pytest.raises(ValueError):
        _C._layer_norm_host(x, np.ones(3, np.float32), None, 1e-5, 4, (2, 1))  # weight of another size
    with pytest.raises(ValueError):
        _C._layer_norm_host(x, np.ones(4, np.float64), None, 1e-5, 4, (2, 1))  # weight of another dtype
    with pytest.raises(ValueError):
        _C._layer_norm_host(x, None, None, 1e-5, 4, (3, 1))  # statistics of another size
    m, r = np.zeros((2, 1), np.float32), np.ones((2, 1), np.float32)
    with pytest.raises(ValueError):
        _C._layer_norm_backward_host(x, x, m[:1], r, None, 4, True, True, True, (4,))
    with pytest.raises(ValueError):
        _C._layer_norm_backward_host(x[:1], x, m, r, None, 4, True, True, True, (4,))
    with pytest.raises(ValueError):
        _C._layer_norm_backward_host(x, x, m, r, np.ones(4, np.float32), 4, True, True, True, (5,))
    with pytest.raises(ValueError):
        _C._layer_norm_backward_host(x, x.astype(np.float64), m, r, None, 4, True, False, True, (4,))
    with pytest.raises(TypeError):
        _C._layer_norm_host([1.0, 2.0], None, None, 1e-5, 2, (1, 1))  # no array: no conversion


def test_inf_and_nan_pass_silently():
    """As torch: no RuntimeWarning from nan or inf (the host kernel, and the numpy path, quiet)."""
    x = np.array([[1.0, np.inf, 2.0], [np.nan, 0.0, 1.0]], np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for host in (True, False):
            Normalization._HOST_KERNELS, old = host, Normalization._HOST_KERNELS
            try:
                t = torchlite.tensor(x).requires_grad_()
                y = TF.layer_norm(t, [3])
                y.backward(torchlite.ones_like(y))
            finally:
                Normalization._HOST_KERNELS = old
            ty = F.layer_norm(torch.tensor(x), [3])
            np.testing.assert_array_equal(np.isnan(y.detach().numpy()), np.isnan(ty.numpy()))


# against torch ----------------------------------------------------------------------------------------------

def _tol(dtype):
    return (1e-10, 1e-12) if dtype == np.float64 else (2e-5, 2e-5)


@pytest.mark.parametrize("device", ["cpu", "sim:0"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("wb", [(False, False), (True, True), (True, False), (False, True)])
@pytest.mark.parametrize("shape", [((8, 64), (128,)), ((1,), (7,)), ((2, 3), (4, 5)), ((5,), (300,)), ((3,), (2,))])
def test_against_torch(shape, wb, dtype, device):
    lead, norm = shape
    x, G, w, b = _inputs(_rng("torch", lead, norm, wb), lead, norm, dtype, "normal", wb)
    rtol, atol = _tol(dtype)
    if norm == (2,) and dtype == np.float32:  # a variance near eps: torch's float32 moments round otherwise
        rtol, atol = 1e-3, 1e-3
    res = {}
    for lib in (torchlite, torch):
        dev = device if lib is torchlite else "cpu"
        xt = lib.tensor(x, device=dev).requires_grad_()
        wt = lib.tensor(w, device=dev).requires_grad_() if w is not None else None
        bt = lib.tensor(b, device=dev).requires_grad_() if b is not None else None
        out, mean, rstd = lib.native_layer_norm(xt, list(norm), wt, bt, 1e-5)
        out.backward(lib.tensor(G, device=dev), retain_graph=True)
        node = out.grad_fn
        res[lib] = dict(
            arrays=[t.detach().cpu().numpy() for t in (out, mean, rstd)] +
            [t.grad.cpu().numpy() for t in (xt, wt, bt) if t is not None],
            name=node.name(), shape=node._saved_normalized_shape,
            saved=[node._saved_result1.detach().cpu().numpy(), node._saved_result2.detach().cpu().numpy()],
            dtypes=[str(t.dtype).split(".")[-1] for t in (out, mean, rstd)])
    a, t = res[torchlite], res[torch]
    assert a["name"] == t["name"] == "NativeLayerNormBackward0"
    assert a["shape"] == t["shape"] and a["dtypes"] == t["dtypes"]
    for got, want in zip(a["arrays"] + a["saved"], t["arrays"] + t["saved"], strict=True):
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol * max(1.0, float(np.abs(want).max())))


@pytest.mark.parametrize("device", ["cpu", "sim:0"])
@pytest.mark.parametrize("wb", [(False, False), (True, True), (True, False)])
def test_gradcheck_gradgradcheck(wb, device):
    rng = _rng("gc", wb)
    x = torchlite.tensor(rng.standard_normal((3, 2, 6)), device=device).requires_grad_()
    w = torchlite.tensor(rng.standard_normal(6), device=device).requires_grad_() if wb[0] else None
    b = torchlite.tensor(rng.standard_normal(6), device=device).requires_grad_() if wb[1] else None
    inputs = tuple(t for t in (x, w, b) if t is not None)

    def fn(*args):
        it = iter(args[1:])
        wt = next(it) if wb[0] else None
        bt = next(it) if wb[1] else None
        return TF.layer_norm(args[0], [6], wt, bt)

    assert torchlite.autograd.gradcheck(fn, inputs)
    assert torchlite.autograd.gradgradcheck(fn, inputs)
