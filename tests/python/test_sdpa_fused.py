"""scaled_dot_product_attention as torch 2.13 computes it on the CPU: the backend sdp_utils_cpp
picks (the fused _scaled_dot_product_flash_attention_for_cpu where its checks pass, one
ScaledDotProductFlashAttentionForCpuBackward0 node; the math composition otherwise), compared with
torch on values, gradients, node names, saved fields, strides and errors; gradcheck in float64; the
op and its backward called directly; the backend switches (torch.backends.cuda.enable_*_sdp)."""
import warnings

import numpy as np
import pytest

import torchlite
from torchlite._ops import _scaled_dot_product_flash_attention_for_cpu_backward as lite_flash_backward

from diff_utils import Values, import_torch, norm, run

torch = import_torch()

DEVICES = ["cpu", "sim:0"]
FLASH = "ScaledDotProductFlashAttentionForCpuBackward0"


def _dev(lib, dev):
    return "cpu" if lib is torch else dev


def _arr(shape, seed, dtype="float64"):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _leaf(lib, a, dev, layout=None):
    """A leaf from array a; layout "bthd" makes it a (B, T, H, D) tensor transposed to (B, H, T, D), as
    nanoGPT's heads are."""
    if layout == "bthd":
        t = lib.tensor(np.ascontiguousarray(a.transpose(0, 2, 1, 3)), device=_dev(lib, dev)).transpose(1, 2)
        return t.detach().requires_grad_()
    return lib.tensor(a, device=_dev(lib, dev), requires_grad=True)


def _mask(lib, m, dev):
    return None if m is None else lib.tensor(m, device=_dev(lib, dev))


def sdpa_case(shapes, dtype="float64", mask=None, layout=None, dev="cpu", grad_seed=7, **kw):
    """The output (values, dtype, strides, node name) and the gradients of query, key and value (and
    their strides) under a weighted sum."""
    arrays = [_arr(s, seed, dtype) for seed, s in enumerate(shapes)]

    def case(lib):
        q, k, v = (_leaf(lib, a, dev, layout) for a in arrays)
        out = lib.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=_mask(lib, mask, dev), **kw)
        w = lib.tensor(_arr(tuple(out.shape), grad_seed, dtype), device=out.device)
        gq, gk, gv = lib.autograd.grad((out * w).sum(), (q, k, v))
        return (out, out.grad_fn.name(), tuple(out.stride()), out.is_contiguous(),
                gq, gk, gv, [tuple(g.stride()) for g in (gq, gk, gv)])
    return case


TOL = {"float64": (1e-10, 1e-12), "float32": (1e-5, 1e-6), "float16": (5e-3, 5e-3)}


def _close(a, b):
    """run()'s results equal, tensors within their dtype's tolerance (float32 sums of products differ
    from torch's in their last bits: another summation order)."""
    if isinstance(a, Values) or isinstance(b, Values):
        if not (isinstance(a, Values) and isinstance(b, Values) and a.dtype == b.dtype
                and a.array.shape == b.array.shape):
            return False
        rtol, atol = TOL.get(a.dtype, (0, 0))
        return bool(np.allclose(b.array, a.array, rtol=rtol, atol=atol, equal_nan=True))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def same(case):
    expected = run(case, torch)
    got = run(case, torchlite)
    assert _close(expected, got), (expected, got)
    return expected


def node_name(case):
    r = same(case)
    return r[1][1] if r[0] == "ok" else r


B4 = ((2, 3, 4, 8), (2, 3, 6, 8), (2, 3, 6, 8))
SQ = ((2, 2, 5, 8), (2, 2, 5, 8), (2, 2, 5, 8))
BOOL_MASK = np.random.default_rng(11).uniform(0, 1, (4, 6)) > 0.35
FULL_ROW = BOOL_MASK.copy()
FULL_ROW[2] = False
FLOAT_MASK = np.random.default_rng(12).uniform(-2, 2, (2, 1, 4, 6))
FLOAT_MASK[0, 0, 1, 3] = -np.inf


# Which backend: torch's routing, node by node ---------------------------------------------------------

ROUTES = [
    # (name, shapes, kwargs, torch's node)
    ("plain", B4, {}, FLASH),
    ("causal", SQ, dict(is_causal=True), FLASH),
    ("causal_q_shorter", ((2, 2, 3, 8), (2, 2, 6, 8), (2, 2, 6, 8)), dict(is_causal=True), FLASH),
    ("causal_q_longer", ((2, 2, 6, 8), (2, 2, 3, 8), (2, 2, 3, 8)), dict(is_causal=True), FLASH),
    ("scale", B4, dict(scale=0.3), FLASH),
    ("negative_scale", B4, dict(scale=-0.7), FLASH),
    # a causal -inf times a negative or zero scale (upstream fills before scaling): +inf / nan rows as torch's;
    # a zero scale is the backward gemm's alpha, which then reads nothing (zero grad_query / grad_key)
    ("causal_negative_scale", SQ, dict(is_causal=True, scale=-0.5), FLASH),
    ("causal_zero_scale", SQ, dict(is_causal=True, scale=0.0), FLASH),
    ("zero_scale_mask", B4, dict(scale=0.0, mask=BOOL_MASK), FLASH),
    ("dropout_zero", SQ, dict(dropout_p=0.0, is_causal=True), FLASH),
    ("bool_mask", B4, dict(mask=BOOL_MASK), FLASH),
    ("bool_mask_full_row", B4, dict(mask=FULL_ROW), FLASH),
    ("float_mask_4d", B4, dict(mask=FLOAT_MASK), FLASH),
    ("mask_row_broadcast", B4, dict(mask=np.random.default_rng(3).standard_normal((1, 6))), FLASH),
    ("mask_col_broadcast", B4, dict(mask=np.random.default_rng(3).standard_normal((4, 1))), FLASH),
    ("mask_and_causal", SQ, dict(mask=np.random.default_rng(4).standard_normal((5, 5)), is_causal=True), FLASH),
    ("gqa", ((2, 6, 4, 8), (2, 2, 6, 8), (2, 2, 6, 8)), dict(enable_gqa=True, is_causal=True), FLASH),
    ("gqa_same_heads", B4, dict(enable_gqa=True), FLASH),
    # keys past upstream's block of 512 (its running max and sum rescaled between blocks; one block here)
    ("long_keys", ((1, 2, 200, 16), (1, 2, 1100, 16), (1, 2, 1100, 16)), dict(is_causal=True), FLASH),
    # the math composition: its nodes stay
    ("three_d", ((3, 4, 8), (3, 6, 8), (3, 6, 8)), {}, "UnsafeViewBackward0"),
    ("five_d", ((1, 2, 2, 4, 8), (1, 2, 2, 6, 8), (1, 2, 2, 6, 8)), {}, "UnsafeViewBackward0"),
    ("value_head_size", ((2, 3, 4, 8), (2, 3, 6, 8), (2, 3, 6, 5)), {}, "UnsafeViewBackward0"),
    ("batch_broadcast", ((2, 3, 4, 8), (1, 3, 6, 8), (1, 3, 6, 8)), {}, "UnsafeViewBackward0"),
    ("gqa_key_value_heads", ((2, 4, 4, 8), (2, 2, 6, 8), (2, 1, 6, 8)), dict(enable_gqa=True), "UnsafeViewBackward0"),
    ("mask_3d", B4, dict(mask=np.random.default_rng(5).standard_normal((3, 4, 6))), "UnsafeViewBackward0"),
    ("mask_4d_heads_mismatch", ((2, 3, 4, 8), (2, 3, 6, 8), (2, 3, 6, 8)),
     dict(mask=np.random.default_rng(5).standard_normal((2, 2, 4, 6))), None),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name,shapes,kw,node", ROUTES, ids=[r[0] for r in ROUTES])
def test_routing_values_grads_nodes(name, shapes, kw, node, dtype):
    kw = dict(kw)
    mask = kw.pop("mask", None)
    if mask is not None and mask.dtype.kind == "f":
        mask = mask.astype(dtype)
    result = node_name(sdpa_case(shapes, dtype, mask=mask, **kw))
    if node is not None:
        assert result == node
    else:
        assert result[0] == "raised"


@pytest.mark.parametrize("dev", DEVICES)
def test_devices(dev):
    assert node_name(sdpa_case(SQ, "float32", dev=dev, is_causal=True)) == FLASH
    assert node_name(sdpa_case(B4, "float64", mask=BOOL_MASK, dev=dev)) == FLASH


def test_nanogpt_layout():
    """Heads as views of (B, T, H, D) rows: the output is laid out as the query (empty_like), so
    y.transpose(1, 2) is contiguous as torch's."""
    r = same(sdpa_case(((2, 4, 6, 8),) * 3, "float32", layout="bthd", is_causal=True))
    assert r[1][1] == FLASH and r[1][3] is False

    def split_heads(lib):
        x = lib.tensor(_arr((2, 6, 3 * 16), 1, "float32"), requires_grad=True)
        q, k, v = x.split(16, dim=2)
        q, k, v = (t.view(2, 6, 2, 8).transpose(1, 2) for t in (q, k, v))
        y = lib.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        z = y.transpose(1, 2)
        (z.contiguous().view(2, 6, 16) * (lib.arange(16.0) / 16)).sum().backward()
        return y, y.stride(), z.is_contiguous(), y.grad_fn.name(), x.grad
    assert same(split_heads)[1][3] == FLASH


def test_float64_tight():
    """float64 against torch to 1e-10 relative, output, logsumexp and gradients."""
    for shapes, kw in [(SQ, dict(is_causal=True)), (B4, dict(scale=0.25)),
                       (((2, 6, 4, 8), (2, 3, 6, 8), (2, 3, 6, 8)), dict(enable_gqa=True))]:
        got = {}
        for lib in (torch, torchlite):
            q, k, v = (_leaf(lib, _arr(s, i), "cpu") for i, s in enumerate(shapes))
            out = lib.nn.functional.scaled_dot_product_attention(q, k, v, **kw)
            lse = out.grad_fn._saved_logsumexp
            gs = lib.autograd.grad((out * lib.tensor(_arr(tuple(out.shape), 9))).sum(), (q, k, v))
            got[lib] = [t.detach().numpy() for t in (out, lse, *gs)]
        for a, b in zip(got[torch], got[torchlite], strict=True):
            np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-12)


def test_float16():
    """float16 computes in float32 (opmath) and rounds once: within half precision of torch; the
    logsumexp is float32."""
    got = {}
    for lib in (torch, torchlite):
        q, k, v = (lib.tensor(_arr(s, i, "float16"), requires_grad=True) for i, s in enumerate(SQ))
        out = lib.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        shown = (out.grad_fn.name(), str(out.dtype).split(".")[-1],
                 str(out.grad_fn._saved_logsumexp.dtype).split(".")[-1])
        gq, = lib.autograd.grad(out.sum(), (q,))
        got[lib] = (*shown, out.detach().numpy().astype(np.float32), gq.numpy().astype(np.float32))
    assert got[torch][:3] == got[torchlite][:3] == (FLASH, "float16", "float32")
    for i in (3, 4):
        np.testing.assert_allclose(got[torchlite][i], got[torch][i], rtol=5e-3, atol=5e-3)


# The node's saved fields -----------------------------------------------------------------------------

@pytest.mark.parametrize("kw", [dict(is_causal=True), dict(scale=0.5), dict(mask=BOOL_MASK),
                                dict(mask=FLOAT_MASK[:, :, :, :6]), dict(enable_gqa=True)])
def test_saved_fields(kw):
    kw = dict(kw)
    mask = kw.pop("mask", None)
    shapes = SQ if kw.get("is_causal") else ((2, 4, 4, 8), (2, 2, 6, 8), (2, 2, 6, 8)) if kw.get("enable_gqa") else B4

    def case(lib):
        q, k, v = (_leaf(lib, _arr(s, i), "cpu") for i, s in enumerate(shapes))
        out = lib.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=_mask(lib, mask, "cpu"), **kw)
        n = out.grad_fn
        fields = sorted(a for a in dir(n) if a.startswith("_saved_"))
        lse, m = n._saved_logsumexp, n._saved_attn_mask
        return (n.name(), fields, n._saved_dropout_p, n._saved_is_causal, n._saved_scale,
                n._saved_query, n._saved_key, n._saved_value, n._saved_output, out.requires_grad,
                lse, tuple(lse.shape), tuple(lse.stride()), lse.requires_grad,
                None if m is None else (m, str(m.dtype)), [f[0].name() for f in n.next_functions])
    r = same(case)
    assert r[0] == "ok" and r[1][0] == FLASH


def test_logsumexp_not_differentiable():
    def case(lib):
        q, k, v = (_leaf(lib, _arr(s, i), "cpu") for i, s in enumerate(SQ))
        out, lse = lib._scaled_dot_product_flash_attention_for_cpu(q, k, v, is_causal=True)
        return out, lse, out.grad_fn.name(), lse.requires_grad, lse.grad_fn, out.is_leaf, lse.is_leaf
    assert same(case)[0] == "ok"


# gradcheck, and the double backward torch refuses -------------------------------------------------------

@pytest.mark.parametrize("kw", [dict(is_causal=True), dict(scale=0.7), dict(mask=BOOL_MASK),
                                dict(mask=FLOAT_MASK[0, 0]), dict(enable_gqa=True, is_causal=True)])
def test_gradcheck(kw):
    kw = dict(kw)
    mask = kw.pop("mask", None)
    shapes = ((1, 4, 4, 3), (1, 2, 6, 3), (1, 2, 6, 3)) if kw.get("enable_gqa") else ((1, 2, 4, 3), (1, 2, 6, 3),
                                                                                      (1, 2, 6, 3))
    m = _mask(torchlite, mask, "cpu")
    leaves = [_leaf(torchlite, _arr(s, i), "cpu") for i, s in enumerate(shapes)]

    def fn(q, k, v):
        return torchlite.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=m, **kw)
    assert fn(*leaves).grad_fn.name() == FLASH
    assert torchlite.autograd.gradcheck(fn, leaves)


def test_double_backward_refused():
    def case(lib):
        q, k, v = (_leaf(lib, _arr(s, i), "cpu") for i, s in enumerate(SQ))
        out = lib.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        go = lib.tensor(_arr(tuple(out.shape), 5), requires_grad=True)
        gq, gk, gv = lib.autograd.grad(out, (q, k, v), go, create_graph=True)
        n = gq.grad_fn
        assert gk.grad_fn is n and gv.grad_fn is n
        shown = (n.name(), gq.output_nr, gk.output_nr, gv.output_nr, gq.requires_grad, gq, gk, gv)
        try:
            (gq.sum() + gv.sum()).backward()
        except RuntimeError as e:
            return shown, str(e)
        return shown, None
    r = same(case)
    assert r[1][0][0] == "torch::autograd::NotImplemented"
    assert r[1][1] == "derivative for aten::_scaled_dot_product_flash_attention_for_cpu_backward is not implemented"


# The ops called directly ---------------------------------------------------------------------------------

DIRECT = [
    (B4, {}), (SQ, dict(is_causal=True, scale=0.2)),
    (B4, dict(attn_mask="float32")), (B4, dict(attn_mask="float64")),
    # upstream's checks, in order
    (((2, 3, 4, 8),) * 3, dict(dtype="int64")),
    (((3, 4, 8),) * 3, {}),
    (B4, dict(dropout_p=0.5)), (B4, dict(dropout_p=-0.5)),
    (((2, 3, 4, 8), (2, 3, 6, 8), (2, 3, 6, 5)), {}),
    (B4, dict(attn_mask="bool")), (B4, dict(attn_mask="3d")),
    (B4, dict(attn_mask="wrong_rows")),
]


@pytest.mark.parametrize("shapes,kw", DIRECT)
def test_direct_op(shapes, kw):
    kw = dict(kw)
    dtype = kw.pop("dtype", "float64")
    mask_kind = kw.pop("attn_mask", None)

    def case(lib):
        if dtype == "int64":
            q, k, v = (lib.ones(s, dtype=lib.int64) for s in shapes)
        else:
            q, k, v = (_leaf(lib, _arr(s, i, dtype), "cpu") for i, s in enumerate(shapes))
        m = None
        if mask_kind in ("float32", "float64"):
            m = lib.tensor(_arr((4, 6), 3, mask_kind))
        elif mask_kind == "bool":
            m = lib.tensor(BOOL_MASK)
        elif mask_kind == "3d":
            m = lib.tensor(_arr((2, 4, 6), 3))
        elif mask_kind == "wrong_rows":
            m = lib.tensor(_arr((5, 6), 3))
        out, lse = lib._scaled_dot_product_flash_attention_for_cpu(q, k, v, attn_mask=m, **kw)
        return out, lse, tuple(lse.stride()), out.grad_fn.name()
    same(case)


@pytest.mark.parametrize("kw", [dict(is_causal=True), dict(scale=0.4), dict(mask=True), dict(gqa=True)])
def test_backward_op_direct(kw):
    """_scaled_dot_product_flash_attention_for_cpu_backward against aten's, on a saved forward."""
    shapes = ((2, 4, 4, 8), (2, 2, 6, 8), (2, 2, 6, 8)) if kw.get("gqa") else SQ
    is_causal, scale = kw.get("is_causal", False), kw.get("scale")
    mask = _arr((shapes[0][2], shapes[1][2]), 4) if kw.get("mask") else None
    got = {}
    for lib in (torch, torchlite):
        q, k, v = (lib.tensor(_arr(s, i)) for i, s in enumerate(shapes))
        m = None if mask is None else lib.tensor(mask)
        out, lse = lib._scaled_dot_product_flash_attention_for_cpu(q, k, v, 0.0, is_causal, attn_mask=m, scale=scale)
        g = lib.tensor(_arr(tuple(out.shape), 8))
        backward = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu_backward if lib is torch \
            else lite_flash_backward
        grads = backward(g, q, k, v, out, lse, 0.0, is_causal, attn_mask=m, scale=scale)
        got[lib] = [(t.numpy(), tuple(t.stride())) for t in grads]
    for (a, sa), (b, sb) in zip(got[torch], got[torchlite], strict=True):
        assert sa == sb
        np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-12)


# Errors on the way to the backends ---------------------------------------------------------------------------

@pytest.mark.parametrize("what", ["mask_1d", "mask_0d", "negative_dropout", "dropout_above_one", "int", "mask_dtype"])
def test_errors(what):
    def case(lib):
        dtype = "float32"
        q, k, v = (_leaf(lib, _arr(s, i, dtype), "cpu") for i, s in enumerate(B4))
        kw = {}
        if what == "mask_1d":
            kw["attn_mask"] = lib.tensor(_arr((6,), 2, dtype))
        elif what == "mask_0d":
            kw["attn_mask"] = lib.tensor(1.0)
        elif what == "negative_dropout":
            kw["dropout_p"] = -0.5
        elif what == "dropout_above_one":
            kw["dropout_p"] = 1.5
        elif what == "int":
            q, k, v = (t.detach().long() for t in (q, k, v))
        elif what == "mask_dtype":
            kw["attn_mask"] = lib.tensor(_arr((4, 6), 2, "float64"))
        return lib.nn.functional.scaled_dot_product_attention(q, k, v, **kw)
    assert same(case)[0] == "raised"


@pytest.mark.parametrize("shapes", [((0, 2, 3, 8), (0, 2, 5, 8), (0, 2, 5, 8)), ((2, 2, 0, 8), (2, 2, 5, 8),
                                    (2, 2, 5, 8)), ((2, 2, 3, 8), (2, 2, 0, 8), (2, 2, 0, 8)),
                                    ((2, 2, 3, 0), (2, 2, 5, 0), (2, 2, 5, 0)), ((2, 0, 8), (2, 5, 8), (2, 5, 8))])
def test_empty_inputs(shapes):
    """torch 2.13 answers an empty query, key or value before choosing a backend: zeros, plus the
    inputs' sums times 0 (AddBackward0 over MulBackward1), so gradients are zeros."""
    def case(lib):
        q, k, v = (_leaf(lib, _arr(s, i), "cpu") for i, s in enumerate(shapes))
        out = lib.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        n = out.grad_fn
        names = [n.name()] + [f[0].name() if f[0] is not None else None for f in n.next_functions]
        return out, tuple(out.stride()), names, lib.autograd.grad(out.sum(), (q, k, v))
    same(case)


# The backend switches ------------------------------------------------------------------------------------------

@pytest.fixture
def restore_switches():
    saved = [(lib, lib.backends.cuda.flash_sdp_enabled(), lib.backends.cuda.math_sdp_enabled())
             for lib in (torch, torchlite)]
    yield
    for lib, flash, math in saved:
        lib.backends.cuda.enable_flash_sdp(flash)
        lib.backends.cuda.enable_math_sdp(math)


@pytest.mark.parametrize("flash,math", [(False, True), (True, False), (False, False)])
@pytest.mark.parametrize("shapes", [SQ, ((2, 5, 8), (2, 5, 8), (2, 5, 8))])
def test_backend_switches(restore_switches, flash, math, shapes):
    def case(lib):
        lib.backends.cuda.enable_flash_sdp(flash)
        lib.backends.cuda.enable_math_sdp(math)
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                out = sdpa_case(shapes, "float32", is_causal=True)(lib)
            return out, [norm(str(w.message)) for w in caught]
        finally:
            lib.backends.cuda.enable_flash_sdp(True)
            lib.backends.cuda.enable_math_sdp(True)
    same(case)


# _safe_softmax: the math path's softmax, an op of its own (SafeSoftmaxBackward0) as torch's ----------

def _node_names(fn):
    seen, kept, order, stack = set(), [], [], [fn]
    while stack:
        f = stack.pop()
        if f is None or id(f) in seen:
            continue
        seen.add(id(f))
        kept.append(f)  # (alive, so that no other node object takes its id)
        order.append(f.name().replace("torch::autograd::", ""))
        stack.extend(n for n, _ in f.next_functions)
    return order


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_safe_softmax_against_torch(dtype):
    def case(lib):
        a = _arr((3, 4, 5), 1, dtype)
        a[1, 2, :] = -np.inf  # a fully masked row: zeros, and zero gradients
        a[0, :, 3] = -np.inf
        x = lib.tensor(a, requires_grad=True)
        out = []
        for dim in (-1, 1, 0):
            y = lib._safe_softmax(x, dim)
            (g,) = lib.autograd.grad((y * lib.tensor(_arr((3, 4, 5), 2, dtype))).sum(), x)
            out += [y, g, y.grad_fn.name(), y.grad_fn._saved_dim, y.grad_fn._saved_result]
        y64 = lib._safe_softmax(x, -1, dtype=lib.float64)  # the cast inside the op: no node of its own
        y64.sum().backward()
        out += [y64, y64.grad_fn.name(), len(y64.grad_fn.next_functions), x.grad]
        return out
    assert run(case, torchlite) == run(case, torch)
    x = torchlite.tensor(_arr((2, 3), 3), requires_grad=True)
    assert torchlite.autograd.gradcheck(lambda t: torchlite._safe_softmax(t, -1), (x,))
    assert torchlite.autograd.gradgradcheck(lambda t: torchlite._safe_softmax(t, 0), (x,))


@pytest.mark.parametrize("kw", [dict(dropout_p=0.5), dict(attn_mask="bool"), dict(is_causal=True, dropout_p=0.3)])
def test_math_path_nodes_against_torch(kw):
    # dropout routes to the math composition: its whole graph's node names as torch's
    def case(lib):
        lib.manual_seed(0)
        q, k, v = (lib.tensor(_arr((1, 2, 4, 3), s, "float32"), requires_grad=True) for s in range(3))
        args = dict(kw)
        if args.get("attn_mask") == "bool":
            args["attn_mask"] = lib.tensor(np.tril(np.ones((4, 4), bool)))
            args["dropout_p"] = 0.25
        out = lib.nn.functional.scaled_dot_product_attention(q, k, v, **args)
        return _node_names(out.grad_fn)
    assert run(case, torchlite) == run(case, torch)
