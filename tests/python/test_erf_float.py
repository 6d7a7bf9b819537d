"""float32 erf through csrc/aten/native/cpu/ErfFloat.cpp (Note [Fast float erf with an exact
fallback]): bit for bit what rounding libm's double erf gives (the float64 route torchlite took
before, UnaryOps._erf_on_host), in torch.erf and in gelu's exact forward and backward."""
import numpy as np
import pytest

import torchlite
from diff_utils import import_torch, run, same_bits
from torchlite import _C
from torchlite._ops import ActivationNN, UnaryOps

torch = import_torch()


def _libm(x):
    with np.errstate(invalid="ignore"):  # (signalling nan bit patterns)
        return UnaryOps._erf_on_host(np.asarray(x, np.float32).astype(np.float64)).astype(np.float32)


def _same_bits(a, b):
    same_bits(np.asarray(a, np.float32), np.asarray(b, np.float32))


def _patterns(step):
    return np.arange(0, 2**32, step, dtype=np.uint64).astype(np.uint32).view(np.float32)


@pytest.mark.parametrize("values", ["normal", "patterns", "special", "edges"])
def test_erf_float32_matches_libm(values):
    rng = np.random.default_rng(0)
    if values == "normal":
        x = (rng.standard_normal(300_001) * 2).astype(np.float32)
    elif values == "patterns":
        x = _patterns(4099)
    elif values == "special":
        # (the last three: values whose polynomial result needs the exact fallback)
        x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-38, 3.9999998, 4.0, -4.0, 1e30]
                     + [float.fromhex(h) for h in ("0x1.4b808cp-126", "0x1.9c4dd8p-2", "0x1.f5f54ep+0")],
                     np.float32)
    else:  # every float around x*x = 4, 8, 12 and 16, where one polynomial ends
        centres = np.array([2.0, 8 ** 0.5, 12 ** 0.5, 4.0], np.float32).view(np.int32)
        x = (centres[:, None] + np.arange(-3000, 3000)).astype(np.int32).view(np.float32).ravel()
        x = np.concatenate([x, -x])
    _same_bits(_C._erf_float32_host(x), _libm(x))


def test_erf_float32_out_and_bad_arguments():
    x = np.linspace(-5, 5, 1001, dtype=np.float32)
    expected = _libm(x)
    y = x.copy()
    assert _C._erf_float32_host(y, y) is y
    _same_bits(y, expected)
    out = np.empty_like(x)
    _C._erf_float32_host(x, out)
    _same_bits(out, expected)
    with pytest.raises(TypeError):
        _C._erf_float32_host(x.astype(np.float64))
    with pytest.raises(TypeError):
        _C._erf_float32_host(x[::2])
    with pytest.raises(ValueError, match="another size"):
        _C._erf_float32_host(x, np.empty(3, np.float32))
    with pytest.raises(ValueError, match="C-contiguous float32"):
        _C._erf_float32_host(x, np.empty(1001, np.float64))


@pytest.mark.parametrize("device", ["cpu", "sim:0"])
@pytest.mark.parametrize("layout", ["contiguous", "strided", "scalar"])
def test_torch_erf_float32(device, layout):
    rng = np.random.default_rng(1)
    x = (rng.standard_normal((64, 33)) * 2).astype(np.float32)
    t = torchlite.tensor(x, device=device, requires_grad=True)
    if layout == "strided":
        t_in, x_in = t[:, ::3], x[:, ::3]
    elif layout == "scalar":
        t_in, x_in = t[3, 4], x[3, 4]
    else:
        t_in, x_in = t, x
    y = torchlite.erf(t_in)
    assert y.dtype == torchlite.float32 and y.grad_fn.name() == "ErfBackward0"
    _same_bits(y.detach().cpu().numpy(), _libm(x_in))

    def case(lib):
        xt = lib.tensor(x, requires_grad=True)
        out = lib.erf(xt[:, ::3] if layout == "strided" else xt)
        out.sum().backward()
        return out, out.grad_fn.name(), xt.grad
    assert run(case, torchlite) == run(case, torch)


@pytest.mark.parametrize("device", ["cpu", "sim:0"])
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_float32_same_bits_as_the_float64_erf(monkeypatch, device, approximate):
    rng = np.random.default_rng(2)
    x = (rng.standard_normal((16, 257)) * 3).astype(np.float32)
    g = rng.standard_normal((16, 257)).astype(np.float32)

    def gelu_and_grad():
        t = torchlite.tensor(x, device=device, requires_grad=True)
        y = torchlite.nn.functional.gelu(t, approximate=approximate)
        y.backward(torchlite.tensor(g, device=device))
        return y.detach().cpu().numpy(), t.grad.cpu().numpy()
    fast = gelu_and_grad()
    monkeypatch.setattr(ActivationNN, "_is_host_float32", lambda a: False)
    slow = gelu_and_grad()
    for a, b in zip(fast, slow, strict=True):
        _same_bits(a, b)


def test_gelu_float32_host_is_the_numpy_operations_fused():
    rng = np.random.default_rng(4)
    x = np.concatenate([(rng.standard_normal(5000) * 4).astype(np.float32),
                        np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-38, 3e38, -3e38, 5.65, -5.66],
                                 np.float32)])
    with np.errstate(all="ignore"):
        t = _libm(x * np.float32(np.sqrt(0.5)))
        expected = (x * np.float32(0.5)) * (np.float32(1) + t)
    for n in (len(x), 1, 3, 1023, 1024, 1025, 2049):  # the kernel's chunks of 1024 and its four-wide tail
        _same_bits(_C._gelu_float32_host(x[:n]), expected[:n])
    with pytest.raises(TypeError):
        _C._gelu_float32_host(x.astype(np.float64))


def test_gelu_backward_float32_host_is_the_numpy_operations_fused():
    rng = np.random.default_rng(5)
    special = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-38, 3e38, -3e38, 5.65, -5.66, 13.5, -13.5],
                       np.float32)
    x = np.concatenate([(rng.standard_normal(5000) * 4).astype(np.float32), special, special])
    g = rng.standard_normal(x.size).astype(np.float32)
    g[-len(special):] = [1.0, np.nan, -np.inf, np.inf, -0.0, 0.0, 2.0, np.nan, 1e30, -1e-30, 0.0, np.inf, -1.0]
    with np.errstate(all="ignore"):  # gelu_backward's exact_in_place, operation by operation
        cdf = (np.float32(1) + _libm(x * np.float32(np.sqrt(0.5)))) * np.float32(0.5)
        e = np.exp((np.float32(-0.5) * x) * x)
        expected = g * (((e * np.float32(1 / np.sqrt(2 * np.pi))) * x) + cdf)
    for n in (len(x), 1, 3, 7, 1023, 1024, 1025, 2049):  # the erf's chunks of 1024 and its vector tails
        _same_bits(_C._gelu_backward_float32(g[:n], x[:n]), expected[:n])
    with pytest.raises(TypeError):
        _C._gelu_backward_float32(g.astype(np.float64), x.astype(np.float64))
    with pytest.raises(ValueError, match="grad has another size than x"):
        _C._gelu_backward_float32(g[:3], x[:4])


@pytest.mark.parametrize("values", [[np.inf, -np.inf, np.nan, 0.0, -0.0, 1.5], [np.inf], [-1.0, np.inf]])
@pytest.mark.parametrize("layout", ["contiguous", "strided"])
def test_gelu_float32_specials_against_torch(values, layout):
    # torch's vectorized float loop gives nan at +inf (its polynomial erf), its scalar loop inf
    x = np.array(values, np.float32)

    def case(lib):
        t = lib.tensor(np.repeat(x, 2) if layout == "strided" else x, requires_grad=True)
        u = t[::2] if layout == "strided" else t
        y = lib.nn.functional.gelu(u)
        g, = lib.autograd.grad(y, t, lib.ones_like(y))
        return y, g
    assert run(case, torchlite) == run(case, torch)


def test_gelu_float32_host_into_out():
    x = np.linspace(-5, 5, 37, dtype=np.float32)
    out = np.empty_like(x)
    assert _C._gelu_float32_host(x, out) is out
    _same_bits(out, _C._gelu_float32_host(x))
    with pytest.raises(ValueError, match="_gelu_float32_host: out has another size than x"):
        _C._gelu_float32_host(x, np.empty(3, np.float32))
    g = np.ones_like(x)
    into = np.empty_like(x)
    assert _C._gelu_backward_float32(g, x, into) is into
    _same_bits(into, _C._gelu_backward_float32(g, x))
    with pytest.raises(ValueError, match="_gelu_backward_float32: out has another size than x"):
        _C._gelu_backward_float32(g, x, np.empty(3, np.float32))
