"""The float32 C++ paths of torch.erf and exact gelu (issue 16's gelu family): torch.erf writes the
fast erf (csrc/aten/native/cpu/ErfFloat.cpp) straight into its result, gelu's backward is one
blocked C++ pass with numpy's own float32 exp loop (csrc/aten/native/cpu/GeluKernel.cpp, Note [Gelu
backward in one pass]). Each is checked bit for bit against the numpy path it replaces (the Python
kernel with the C++ path turned off), on shapes, chunk and vector boundaries, nan, inf, -0,
subnormals, huge values and random bit patterns, and against torch."""
import numpy as np
import pytest

import torchlite
from diff_utils import import_torch, run, same_bits
from torchlite import _C
from torchlite._ops import ActivationNN, UnaryOps

torch = import_torch()

SPECIAL = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 1.17e-38, -3e-39, 1e-30, 3e38,
                    -3e38, 5.65, -5.66, 5.7, -5.7, 13.5, -13.5, 3.9999998, 4.0, 5.656854, 1.0, -1.0], np.float32)


def _same_bits(a, b):
    same_bits(np.asarray(a, np.float32), np.asarray(b, np.float32))


def _values(n, seed, scale=3.0):
    """n float32 values: normal ones, the special ones and random bit patterns mixed."""
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(n) * scale).astype(np.float32)
    k = max(1, n // 8)
    x[rng.integers(0, n, k)] = rng.choice(SPECIAL, k)
    x[rng.integers(0, n, k)] = rng.integers(0, 2**32, k, dtype=np.uint64).astype(np.uint32).view(np.float32)
    return x


def _libm_erf(x):
    with np.errstate(all="ignore"):
        return UnaryOps._erf_on_host(np.asarray(x, np.float32).astype(np.float64)).astype(np.float32)


SHAPES = [(), (0,), (1,), (7,), (8,), (9,), (17,), (1023,), (1024,), (1025,), (3, 5, 7), (4, 64, 33), (2, 0, 3)]


@pytest.mark.parametrize("shape", SHAPES)
def test_erf_float32_takes_the_fast_path_into_its_result(monkeypatch, shape):
    n = int(np.prod(shape))
    x = _values(max(n, 1), 10 + n)[:n].reshape(shape)
    expected = _libm_erf(x) if n else x

    def no_float64(*args):
        raise AssertionError("a contiguous float32 erf went through the float64 erf")
    monkeypatch.setattr(_C, "_erf_host", no_float64)
    y = torchlite.erf(torchlite.tensor(x, requires_grad=True))
    assert y.dtype == torchlite.float32 and y.shape == shape and y.grad_fn.name() == "ErfBackward0"
    _same_bits(y.detach().numpy(), expected)
    monkeypatch.undo()
    # the float64 route (the Python path) gives the same bits
    monkeypatch.setattr(UnaryOps, "_is_host_float32", lambda a: False)
    _same_bits(torchlite.erf(torchlite.tensor(x)).numpy(), y.detach().numpy())


@pytest.mark.parametrize("device", ["cpu", "sim:0"])
@pytest.mark.parametrize("form", ["function", "method", "out", "inplace", "strided", "float64"])
def test_erf_forms_against_torch(device, form):
    x = np.concatenate([np.linspace(-5, 5, 62, dtype=np.float32), SPECIAL[2:]]).reshape(7, 12)

    def case(lib):
        dtype = lib.float64 if form == "float64" else lib.float32
        t = lib.tensor(x, dtype=dtype, device="cpu" if lib is torch else device)
        if form == "method":
            return t.erf()
        if form == "out":
            o = lib.empty(7, 12, dtype=dtype, device=t.device)
            r = lib.erf(t, out=o)
            return r, o
        if form == "inplace":
            u = t.clone()
            u.erf_()
            return u
        if form == "strided":
            return lib.erf(t[:, ::2])
        return lib.erf(t)
    assert run(case, torchlite) == run(case, torch)


def test_erf_grad_against_torch_and_gradcheck():
    x = np.linspace(-4, 4, 41, dtype=np.float32)

    def case(lib):
        t = lib.tensor(x, requires_grad=True)
        y = lib.erf(t)
        g, = lib.autograd.grad(y, t, lib.linspace(-1, 1, 41), create_graph=True)
        gg, = lib.autograd.grad(g.sum(), t)
        return y, y.grad_fn.name(), g, gg
    assert run(case, torchlite) == run(case, torch)
    t = torchlite.tensor(np.linspace(-3, 3, 13), dtype=torchlite.float64, requires_grad=True)
    assert torchlite.autograd.gradcheck(torchlite.erf, (t,))
    assert torchlite.autograd.gradgradcheck(torchlite.erf, (t,))


def _gelu_backward(g, x, fast, monkeypatch):
    """gelu's input gradient for float32 arrays g, x through torchlite's gelu_backward, with the C++
    path on (checking that it ran) or off (the numpy passes)."""
    calls = []
    if fast:
        real = _C._gelu_backward_float32

        def counted(*args):
            calls.append(1)
            return real(*args)
        monkeypatch.setattr(_C, "_gelu_backward_float32", counted)
    else:
        monkeypatch.setattr(ActivationNN, "_is_host_float32", lambda a: False)
    try:
        r = ActivationNN.gelu_backward(torchlite.tensor(g), torchlite.tensor(x)).numpy()
    finally:
        monkeypatch.undo()
    assert len(calls) == (1 if fast and x.ndim else 0)
    return r


@pytest.mark.parametrize("n", [1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 33, 63, 65, 1023, 1024, 1025, 2047, 2049, 5000])
def test_gelu_backward_one_pass_is_the_numpy_passes(monkeypatch, n):
    x = _values(n, n)
    g = _values(n, 1000 + n, scale=1.0)
    _same_bits(_gelu_backward(g, x, True, monkeypatch), _gelu_backward(g, x, False, monkeypatch))


@pytest.mark.parametrize("shape", [(4, 64, 33), (8, 64, 512), (1, 1, 1), (2, 0, 5)])
def test_gelu_backward_one_pass_shapes(monkeypatch, shape):
    n = int(np.prod(shape))
    x = _values(max(n, 1), 7)[:n].reshape(shape)
    g = _values(max(n, 1), 8, scale=1.0)[:n].reshape(shape)
    _same_bits(_gelu_backward(g, x, True, monkeypatch), _gelu_backward(g, x, False, monkeypatch))


def test_gelu_backward_into_out_and_in_place():
    x = _values(3000, 3)
    g = _values(3000, 4, scale=1.0)
    expected = _C._gelu_backward_float32(g, x)
    out = np.empty_like(x)
    assert _C._gelu_backward_float32(g, x, out) is out
    _same_bits(out, expected)
    g2, x2 = g.copy(), x.copy()
    _C._gelu_backward_float32(g2, x2, g2)  # into the gradient itself
    _same_bits(g2, expected)
    _C._gelu_backward_float32(g, x2, x2)  # into x itself
    _same_bits(x2, expected)


def test_gelu_backward_without_numpys_loop_runs_the_numpy_passes(monkeypatch):
    x = _values(2000, 5)
    g = _values(2000, 6, scale=1.0)
    expected = _gelu_backward(g, x, False, monkeypatch)
    monkeypatch.setattr(_C, "_gelu_backward_float32", lambda *args: None)
    _same_bits(ActivationNN.gelu_backward(torchlite.tensor(g), torchlite.tensor(x)).numpy(), expected)


@pytest.mark.parametrize("device", ["cpu", "sim:0"])
@pytest.mark.parametrize("shape", [(8, 16, 64), (5,), (3, 1025)])
def test_gelu_forward_backward_against_torch(device, shape):
    rng = np.random.default_rng(11)
    # (|x| <= 2 and away from x = -0.75, where the gradient crosses 0: further out, and there, torch's own
    # erf and exp differ from libm's erf and numpy's exp by more than float32 rounding of the result)
    x = rng.uniform(-2, 2, shape).astype(np.float32)
    x[np.abs(x + 0.75) < 0.15] = 0.5
    gy = rng.standard_normal(shape).astype(np.float32)

    def case(lib):
        dev = "cpu" if lib is torch else device
        t = lib.tensor(x, requires_grad=True, device=dev)
        y = lib.nn.functional.gelu(t)
        g, = lib.autograd.grad(y, t, lib.tensor(gy, device=dev), create_graph=True)
        gg, = lib.autograd.grad(g.sum(), t)
        return y, g, gg, y.grad_fn.name(), g.grad_fn.name(), y.grad_fn._saved_approximate
    assert run(case, torchlite) == run(case, torch)


def test_gelu_float64_gradcheck():
    t = torchlite.tensor(np.linspace(-3, 3, 13), dtype=torchlite.float64, requires_grad=True)
    gelu = torchlite.nn.functional.gelu
    assert torchlite.autograd.gradcheck(gelu, (t,))
    assert torchlite.autograd.gradgradcheck(gelu, (t,))


def test_erf_float32_at_every_piece_edge_of_the_avx512_table():
    # the AVX-512 loop's sixteen pieces end at x^2 = 1, 2, ..., 16 (the last where erf rounds to +-1), the
    # AVX2 loop's four at 4, 8, 12, 16: every float within 2000 of each edge, both signs, in runs whose
    # lengths cross the 8- and 4-wide vector tails
    centres = np.sqrt(np.arange(1, 17, dtype=np.float64)).astype(np.float32).view(np.int32)
    x = (centres[:, None] + np.arange(-2000, 2001)).astype(np.int32).view(np.float32).ravel()
    x = np.concatenate([x, -x])
    expected = _libm_erf(x)
    _same_bits(_C._erf_float32_host(x), expected)
    for n in (1, 3, 4, 5, 7, 9, 12, 15):
        _same_bits(_C._erf_float32_host(x[:n]), expected[:n])
        _same_bits(_C._erf_float32_host(x[5:5 + n].copy()), expected[5:5 + n])
