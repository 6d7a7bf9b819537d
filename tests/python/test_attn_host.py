"""The CPU flash attention's host kernels (_C._flash_attention_forward_host and
_C._flash_attention_backward_host; Note [Flash attention on the host with numpy's bits] in
csrc/aten/native/AttentionHost.cpp): bit for bit the numpy reference (attention.py's _flash_forward
and _flash_backward) on many shapes, layouts, scales and nan / inf / -0.0 inputs; the whole op with
the host kernels against the op with the numpy path; the cases the host kernels leave to numpy;
values and gradients against torch; gradcheck in float64."""
import zlib

import numpy as np
import pytest

import torchlite
from torchlite import _C
from torchlite._ops import attention as A

from diff_utils import import_torch

torch = import_torch()

_UINT = {np.dtype(np.float32): np.uint32, np.dtype(np.float64): np.uint64}


def _same_bits(a, b):
    """Equal dtype, shape, strides and bits (a nan's sign and payload aside)."""
    assert a.dtype == b.dtype and a.shape == b.shape and a.strides == b.strides
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    assert np.array_equal(nan_a, nan_b)
    u = _UINT[a.dtype]
    assert np.array_equal(a[~nan_a].view(u), b[~nan_b].view(u))


class _Counting:
    """torchlite._C with its two host kernels counted."""

    def __init__(self):
        self.calls = {}

    def __getattr__(self, name):
        f = getattr(_C, name)

        def call(*args):
            self.calls[name] = self.calls.get(name, 0) + 1
            return f(*args)
        return call


@pytest.fixture
def counting(monkeypatch):
    c = _Counting()
    monkeypatch.setattr(A, "_C", c)
    return c


def _array(rng, shape, dtype, layout, special):
    """(B, H, n, D) values of dtype; layout "bthd": a (B, n, H, D) buffer transposed (nanoGPT's heads),
    "strided": every other element of a wider buffer; special: some nan, inf, -inf, -0.0 and 0.0."""
    x = rng.standard_normal(shape) * 10.0 ** rng.integers(-2, 2, shape)
    if special:
        flat = x.reshape(-1)
        n = flat.size
        for value in (np.nan, np.inf, -np.inf, -0.0, 0.0):
            flat[rng.integers(0, n, max(1, n // 50))] = value
    x = x.astype(dtype)
    if layout == "bthd":
        return np.ascontiguousarray(x.transpose(0, 2, 1, 3)).transpose(0, 2, 1, 3)
    if layout == "strided":
        wide = np.zeros(shape[:3] + (2 * shape[3],), dtype)
        wide[..., ::2] = x
        return wide[..., ::2]
    return x


class _Cpu:
    """A stand-in tensor for _host_applies's device check."""
    class device:  # noqa: N801
        type = "cpu"


def _host_forward(q, k, v, causal, scale):
    assert A._host_applies(_Cpu, q, k, (q, k, v), None)
    out = A._empty_like(q, q.dtype, None)
    lse = np.empty((q.shape[0], q.shape[2], q.shape[1]), q.dtype).transpose(0, 2, 1)
    assert _C._flash_attention_forward_host(q, k, v, causal, scale, out, lse)
    return out, lse


def _host_backward(g, q, k, v, o, lse, causal, scale):
    assert A._host_applies(_Cpu, q, k, (g, q, k, v, o, lse), None)
    dsum = np.einsum("...ld,...ld->...l", g, o)
    grads = [A._blhd_like(a.shape, a.dtype) for a in (q, k, v)]
    assert _C._flash_attention_backward_host(g, q, k, v, lse, dsum, causal, scale, *grads)
    return grads


def _check_case(*args, **kw):
    with np.errstate(all="ignore"):  # (the op runs the numpy path so)
        _check_case_quiet(*args, **kw)


def _check_case_quiet(seed, b, h, groups, l_len, s_len, d, dtype, causal, scale, layout, special):
    rng = np.random.default_rng(seed)
    q = _array(rng, (b, h, l_len, d), dtype, layout, special)
    k = _array(rng, (b, h // groups, s_len, d), dtype, layout, special)
    v = _array(rng, (b, h // groups, s_len, d), dtype, layout, special)
    scale_f = A._scale_of(q, scale)
    ref_out, ref_lse = A._flash_forward(q, k, v, causal, None, scale_f)
    out, lse = _host_forward(q, k, v, causal, scale_f)
    _same_bits(out, ref_out)
    _same_bits(lse, ref_lse)
    g = _array(rng, (b, h, l_len, d), dtype, layout, special)
    ref = A._flash_backward(g, q, k, v, ref_out, ref_lse, causal, None, scale_f)
    got = _host_backward(g, q, k, v, ref_out, ref_lse, causal, scale_f)
    for a, r in zip(got, ref, strict=True):
        _same_bits(a, r)


# (B, H, groups, L, S, D): L != S both ways, D 1..80, B / H 1..5, grouped heads
SHAPES = [
    (1, 1, 1, 2, 1, 1), (1, 1, 1, 2, 2, 1), (2, 3, 1, 5, 7, 4), (1, 2, 1, 7, 3, 8), (3, 1, 1, 16, 16, 16),
    (2, 4, 1, 64, 64, 32), (1, 2, 1, 9, 33, 80), (5, 5, 1, 3, 2, 3), (2, 2, 1, 40, 17, 1), (1, 1, 1, 130, 70, 5),
    (2, 4, 2, 8, 8, 4), (1, 6, 3, 5, 9, 7), (2, 4, 4, 12, 6, 16), (1, 4, 2, 3, 1, 2), (1, 8, 8, 4, 4, 2),
    (1, 2, 2, 6, 2, 1),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("causal", [False, True])
def test_bits_against_numpy(shape, dtype, causal):
    b, h, groups, l_len, s_len, d = shape
    for i, (scale, layout) in enumerate([(None, "c"), (0.37, "bthd"), (-1.5, "strided")]):
        seed = zlib.crc32(repr((shape, dtype, causal, i)).encode())
        _check_case(seed, b, h, groups, l_len, s_len, d, dtype, causal, scale, layout, special=False)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("seed", range(12))
def test_bits_special_values(seed, dtype):
    """nan, inf, -inf, -0.0 among the inputs and the gradient; zero, negative and tiny scales."""
    rng = np.random.default_rng(1000 + seed)
    b, h, groups, l_len, s_len, d = SHAPES[seed % len(SHAPES)]
    scale = [None, 0.0, -0.0, 1e-30, 2.5, -0.7][seed % 6]
    layout = ["c", "bthd", "strided"][seed % 3]
    for causal in (False, True):
        _check_case(int(rng.integers(2**31)), b, h, groups, l_len, s_len, d, dtype, causal, scale, layout,
                    special=True)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("seed", range(40))
def test_bits_random_shapes(seed, dtype):
    rng = np.random.default_rng(seed)
    groups = int(rng.choice([1, 1, 2, 3]))
    b, hk = (int(x) for x in rng.integers(1, 4, 2))
    l_len, s_len = (int(x) for x in rng.integers(2, 70, 2))
    d = int(rng.integers(1, 81))
    scale = [None, float(rng.uniform(-2, 2))][seed % 2]
    _check_case(seed, b, hk * groups, groups, l_len, s_len, d, dtype, bool(seed % 3 == 0), scale,
                ["c", "bthd", "strided"][seed % 3], special=seed % 4 == 0)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_bits_all_masked_columns(dtype):
    """Queries whose every score is -inf: max 0, sum 1, output 0, logsumexp 0; and whole rows of inf."""
    with np.errstate(all="ignore"):
        _all_masked_columns(dtype)


def _all_masked_columns(dtype):
    rng = np.random.default_rng(5)
    q = rng.standard_normal((2, 2, 6, 4)).astype(dtype)
    k = rng.standard_normal((2, 2, 5, 4)).astype(dtype)
    v = rng.standard_normal((2, 2, 5, 4)).astype(dtype)
    k[..., 0] = np.inf
    q[..., 1:] = 0
    q[:, :, ::2, 0] = -1.0
    q[:, :, 1::2, 0] = 2.0
    v[0, 1, 3] = -0.0
    for causal in (False, True):
        scale = A._scale_of(q, None)
        ref_out, ref_lse = A._flash_forward(q, k, v, causal, None, scale)
        assert np.all(ref_out[:, :, ::2] == 0) and np.all(ref_lse[:, :, ::2] == 0)
        out, lse = _host_forward(q, k, v, causal, scale)
        _same_bits(out, ref_out)
        _same_bits(lse, ref_lse)
        g = rng.standard_normal(q.shape).astype(dtype)
        ref = A._flash_backward(g, q, k, v, ref_out, ref_lse, causal, None, scale)
        for a, r in zip(_host_backward(g, q, k, v, ref_out, ref_lse, causal, scale), ref, strict=True):
            _same_bits(a, r)


def _op_results(lib_on, q, k, v, causal, scale, gqa):
    A._HOST_KERNELS = lib_on
    try:
        tq, tk, tv = (torchlite.tensor(a, requires_grad=True) for a in (q, k, v))
        out = torchlite.nn.functional.scaled_dot_product_attention(tq, tk, tv, is_causal=causal, scale=scale,
                                                                   enable_gqa=gqa)
        w = torchlite.tensor(np.random.default_rng(3).standard_normal(out.shape).astype(q.dtype))
        (out * w).sum().backward()
        return [out.detach().numpy(), out.grad_fn.name(), tuple(out.stride())] + [
            (t.grad.numpy(), tuple(t.grad.stride())) for t in (tq, tk, tv)]
    finally:
        A._HOST_KERNELS = True


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("gqa", [False, True])
def test_op_host_against_numpy_path(counting, dtype, causal, gqa):
    """scaled_dot_product_attention with the host kernels (both counted) and with the numpy path: the
    same output, node, strides and gradients, bit for bit."""
    rng = np.random.default_rng(11)
    hk = 2 if gqa else 4
    q = rng.standard_normal((2, 4, 9, 8)).astype(dtype)
    k, v = (rng.standard_normal((2, hk, 7, 8)).astype(dtype) for _ in range(2))
    host = _op_results(True, q, k, v, causal, None, gqa)
    assert counting.calls == {"_flash_attention_forward_host": 1, "_flash_attention_backward_host": 1}
    ref = _op_results(False, q, k, v, causal, None, gqa)
    assert counting.calls == {"_flash_attention_forward_host": 1, "_flash_attention_backward_host": 1}
    assert host[0].dtype == np.dtype(dtype)
    _same_bits(host[0], ref[0])
    assert host[1] == ref[1] == "ScaledDotProductFlashAttentionForCpuBackward0"
    assert host[2] == ref[2]
    for (a, sa), (r, sr) in zip(host[3:], ref[3:], strict=True):
        assert sa == sr
        _same_bits(a, r)


def _op_call(q, k, v, mask=None, dev="cpu"):
    tq, tk, tv = (torchlite.tensor(a, device=dev, requires_grad=True) for a in (q, k, v))
    out = torchlite.nn.functional.scaled_dot_product_attention(tq, tk, tv, attn_mask=mask)
    out.sum().backward()


@pytest.mark.parametrize("what", ["float16", "one_query", "mask", "sim", "one_element_groups"])
def test_numpy_path_where_host_does_not_apply(counting, what):
    """float16, one query (numpy sums its keys pairwise), a mask, the sim device and grouped heads of
    one element each run the numpy path."""
    rng = np.random.default_rng(2)
    q, k, v = (rng.standard_normal((1, 2, 4, 3)).astype("float32") for _ in range(3))
    if what == "float16":
        _op_call(q.astype("float16"), k.astype("float16"), v.astype("float16"))
    elif what == "one_query":
        _op_call(q[:, :, :1].copy(), k, v)
    elif what == "mask":
        _op_call(q, k, v, mask=torchlite.tensor(rng.standard_normal((4, 4)).astype("float32")))
    elif what == "sim":
        _op_call(q, k, v, dev="sim:0")
    else:
        kk, vv = (rng.standard_normal((1, 1, 1, 1)).astype("float32") for _ in range(2))
        tq, tk, tv = (torchlite.tensor(a, requires_grad=True) for a in (q[..., :1].copy(), kk, vv))
        out = torchlite.nn.functional.scaled_dot_product_attention(tq, tk, tv, enable_gqa=True)
        out.sum().backward()
    assert counting.calls == {}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(8, 4, 64, 64, 32, 1), (2, 3, 5, 9, 7, 1), (1, 4, 6, 4, 8, 2)])
@pytest.mark.parametrize("causal", [False, True])
def test_against_torch(shape, dtype, causal):
    """Values and gradients of the host path against torch's, nanoGPT's (B, T, H, D) layout."""
    b, h, l_len, s_len, d, groups = shape
    rng = np.random.default_rng(4)
    arrays = [rng.standard_normal((b, n, hh, d)).astype(dtype)
              for n, hh in ((l_len, h), (s_len, h // groups), (s_len, h // groups))]
    w = rng.standard_normal((b, h, l_len, d)).astype(dtype)
    res = {}
    for lib in (torchlite, torch):
        ts = [lib.tensor(a).transpose(1, 2).requires_grad_() for a in arrays]
        out = lib.nn.functional.scaled_dot_product_attention(*ts, is_causal=causal, enable_gqa=groups > 1)
        (out * lib.tensor(w)).sum().backward()
        res[lib] = [out.grad_fn.name(), out.detach().numpy()] + [t.grad.numpy() for t in ts]
    assert res[torchlite][0] == res[torch][0] == "ScaledDotProductFlashAttentionForCpuBackward0"
    rtol, atol = (1e-5, 1e-5) if dtype == "float32" else (1e-10, 1e-12)
    for a, r in zip(res[torchlite][1:], res[torch][1:], strict=True):
        np.testing.assert_allclose(a, r, rtol=rtol, atol=atol)


@pytest.mark.parametrize("kw", [{}, {"is_causal": True}, {"scale": 0.3}, {"is_causal": True, "enable_gqa": True}])
def test_gradcheck_host(counting, kw):
    rng = np.random.default_rng(9)
    hk = 1 if kw.get("enable_gqa") else 2
    q = torchlite.tensor(rng.standard_normal((1, 2, 4, 3)), requires_grad=True)
    k, v = (torchlite.tensor(rng.standard_normal((1, hk, 5, 3)), requires_grad=True) for _ in range(2))

    def f(q, k, v):
        return torchlite.nn.functional.scaled_dot_product_attention(q, k, v, **kw)
    assert torchlite.autograd.gradcheck(f, (q, k, v))
    assert counting.calls["_flash_attention_forward_host"] > 0
    assert counting.calls["_flash_attention_backward_host"] > 0


def test_bad_arguments_raise():
    """The bound kernels refuse what attention.py never passes with a ValueError, not a crash."""
    q = np.zeros((1, 1, 2, 2), np.float32)
    lse = np.zeros((1, 1, 2), np.float32)
    with pytest.raises(ValueError):
        _C._flash_attention_forward_host(q, q.astype(np.float64), q, False, 1.0, q.copy(), lse)
    with pytest.raises(ValueError):
        _C._flash_attention_forward_host(q, q, q, False, 1.0, q.copy(), np.zeros((1, 1, 3), np.float32))
    with pytest.raises(ValueError):
        _C._flash_attention_forward_host(q.astype(np.int64), q, q, False, 1.0, q.copy(), lse)
    with pytest.raises(ValueError):
        _C._flash_attention_forward_host(q[:, :, :0], q, q, False, 1.0, q.copy(), lse)
    with pytest.raises(ValueError):
        _C._flash_attention_backward_host(q, q, q, q, lse, lse, False, 1.0, q.copy(), q.copy(), q[:, :, :1].copy())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("causal", [False, True])
def test_bits_broadcast_grad(dtype, causal):
    """A gradient with zero strides (out.sum().backward() gives one): numpy's matmul loop reads it as
    np.matmul does."""
    rng = np.random.default_rng(8)
    q = rng.standard_normal((2, 2, 6, 5)).astype(dtype)
    k, v = (rng.standard_normal((2, 2, 9, 5)).astype(dtype) for _ in range(2))
    scale = A._scale_of(q, None)
    o, lse = A._flash_forward(q, k, v, causal, None, scale)
    g = np.broadcast_to(np.array(1.5, dtype), q.shape)
    ref = A._flash_backward(g, q, k, v, o, lse, causal, None, scale)
    for a, r in zip(_host_backward(g, q, k, v, o, lse, causal, scale), ref, strict=True):
        _same_bits(a, r)


def test_op_sum_backward_against_numpy_path(counting):
    rng = np.random.default_rng(12)
    arrays = [rng.standard_normal((1, 3, 7, 4)).astype("float32") for _ in range(3)]
    grads = {}
    for host in (True, False):
        A._HOST_KERNELS = host
        try:
            ts = [torchlite.tensor(a, requires_grad=True) for a in arrays]
            torchlite.nn.functional.scaled_dot_product_attention(*ts, is_causal=True).sum().backward()
            grads[host] = [t.grad.numpy() for t in ts]
        finally:
            A._HOST_KERNELS = True
    assert counting.calls == {"_flash_attention_forward_host": 1, "_flash_attention_backward_host": 1}
    for a, r in zip(grads[True], grads[False], strict=True):
        _same_bits(a, r)
