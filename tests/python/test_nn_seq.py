"""torch.nn's attention, recurrent and Transformer layers (issue 15, the seq family) against torch:
same inputs (weights copied through state_dict) give equal outputs and gradients (float64 to 1e-10
relative / 1e-12 absolute, float32 to 1e-5 / 1e-6), equal parameter names, state_dict keys, reprs
and errors."""
import math

import numpy as np
import pytest

import torchlite
import torchlite.nn.functional as LF

from diff_utils import import_torch, run

torch = import_torch()
TF = torch.nn.functional

TOL = {"float64": (1e-10, 1e-12), "float32": (1e-5, 1e-6)}


def arrays(value):
    """Every tensor in value (nested lists, tuples, dicts), as numpy arrays, in order; None kept."""
    if isinstance(value, (torch.Tensor, torchlite.Tensor)):
        return [(str(value.dtype).split(".")[-1], value.detach().numpy(force=True).copy())]
    if isinstance(value, (list, tuple)):
        return [a for v in value for a in arrays(v)]
    if isinstance(value, dict):
        return [a for k in sorted(value) for a in arrays(value[k])]
    return [value]


def assert_close(got, want):
    got, want = arrays(got), arrays(want)
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        if not isinstance(w, tuple):
            assert str(g).replace("torchlite", "torch") == str(w)
            continue
        assert g[0] == w[0], (g[0], w[0])
        assert g[1].shape == w[1].shape, (g[1].shape, w[1].shape)
        rtol, atol = TOL.get(w[0], (0, 0))
        np.testing.assert_allclose(g[1], w[1], rtol=rtol, atol=atol)


def same(case):
    """case(lib) under both libraries: equal values within TOL (or the same error)."""
    try:
        want = case(torch)
    except Exception as e:  # noqa: BLE001 - the error is compared
        assert run(case, torchlite) == run(case, torch)
        return e
    got = case(torchlite)
    assert_close(got, want)
    return None


def rand(lib, *shape, dtype="float64", seed=0, requires_grad=False, low=-1.0, high=1.0):
    """The same pseudo-random tensor under both libraries (numpy's generator)."""
    data = np.random.default_rng(seed).uniform(low, high, shape)
    return lib.tensor(data, dtype=getattr(lib, dtype), requires_grad=requires_grad)


def grads(lib, out, leaves):
    """The leaves' gradients through a weighted sum of out (so a wrong gradient shows)."""
    outs = out if isinstance(out, (list, tuple)) else [out]
    loss = 0
    for i, o in enumerate(outs):
        if o is None or not o.requires_grad:
            continue
        w = lib.tensor(np.random.default_rng(100 + i).uniform(-1, 1, tuple(o.shape)), dtype=o.dtype)
        loss = loss + (o * w).sum()
    return list(lib.autograd.grad(loss, leaves, allow_unused=True))


# scaled_dot_product_attention -------------------------------------------------------------------

def _sdpa_case(qs, ks, vs, mask=None, dtype="float64", **kw):
    def case(lib):
        q = rand(lib, *qs, dtype=dtype, seed=1, requires_grad=True)
        k = rand(lib, *ks, dtype=dtype, seed=2, requires_grad=True)
        v = rand(lib, *vs, dtype=dtype, seed=3, requires_grad=True)
        m = mask(lib) if mask is not None else None
        out = lib.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=m, **kw)
        return [out] + grads(lib, out, [q, k, v])
    return case


def _bool_mask(shape, seed=4, full_row=False):
    def make(lib):
        m = np.random.default_rng(seed).uniform(0, 1, shape) > 0.3
        if full_row:
            m[..., 1, :] = False
        return lib.tensor(m)
    return make


def _float_mask(shape, dtype="float64", seed=5):
    def make(lib):
        m = np.random.default_rng(seed).uniform(-2, 2, shape)
        m[..., 0, 1] = -np.inf
        return lib.tensor(m, dtype=getattr(lib, dtype))
    return make


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shapes", [((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7)), ((4, 5), (6, 5), (6, 3)),
                                    ((3, 4, 8), (3, 4, 8), (3, 4, 8)), ((2, 1, 4, 5), (2, 3, 6, 5), (3, 6, 2))])
def test_sdpa_values_and_grads(dtype, shapes):
    same(_sdpa_case(*shapes, dtype=dtype))


@pytest.mark.parametrize("kw", [dict(is_causal=True), dict(scale=0.3), dict(scale=-0.7), dict(scale=0.0),
                                dict(is_causal=True, scale=2.0), dict(dropout_p=0.0), dict(dropout_p=-1.0)])
def test_sdpa_options(kw):
    same(_sdpa_case((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7), **kw))
    same(_sdpa_case((2, 3, 5, 5), (2, 3, 5, 5), (2, 3, 5, 7), **kw))


@pytest.mark.parametrize("mask", [_bool_mask((4, 6)), _bool_mask((2, 1, 4, 6)), _bool_mask((4, 6), full_row=True),
                                  _float_mask((4, 6)), _float_mask((3, 4, 6), "float32"), _float_mask((1, 6))])
def test_sdpa_masks(mask):
    same(_sdpa_case((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7), mask=mask))


def test_sdpa_gqa():
    same(_sdpa_case((2, 6, 4, 5), (2, 2, 6, 5), (2, 3, 6, 7), enable_gqa=True))
    same(_sdpa_case((2, 6, 4, 5), (2, 6, 6, 5), (2, 6, 6, 7), enable_gqa=True))
    same(_sdpa_case((6, 4, 5), (1, 6, 5), (2, 6, 7), enable_gqa=True, is_causal=True))


@pytest.mark.parametrize("args", [
    (((2, 3, 4, 5), (2, 2, 6, 5), (2, 2, 6, 7)), dict(enable_gqa=True)),
    (((2, 3, 4, 5), (2, 2, 6, 5), (2, 2, 6, 7)), {}),
    (((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7)), dict(is_causal=True, mask=_bool_mask((4, 6)))),
    (((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7)), dict(dropout_p=2.0)),
    (((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 5, 7)), {}),
    (((2, 3, 4, 5), (2, 3, 6, 4), (2, 3, 6, 7)), {}),
    (((5,), (6, 5), (6, 7)), {}),
    (((4, 5), (6, 5), (6, 7)), dict(enable_gqa=True)),
])
def test_sdpa_errors(args):
    (qs, ks, vs), kw = args
    assert same(_sdpa_case(qs, ks, vs, **kw)) is not None


@pytest.mark.parametrize("what", ["dtype", "mask_dtype", "int"])
def test_sdpa_input_errors(what):
    def case(lib):
        q = rand(lib, 2, 4, 5)
        k = q.float() if what == "dtype" else q
        m = lib.ones(4, 4, dtype=lib.int64) if what == "mask_dtype" else None
        if what == "int":
            q = k = q.long()
        return lib.nn.functional.scaled_dot_product_attention(q, k, k if what != "int" else q, attn_mask=m)
    assert same(case) is not None


def test_sdpa_dropout():
    """Dropout draws from torchlite's generator: repeatable under a seed, the kept weights scaled by
    1/(1-p), p=1 drops everything."""
    q, k, v = (rand(torchlite, 2, 4, 5, seed=s) for s in (1, 2, 3))
    torchlite.manual_seed(0)
    a = LF.scaled_dot_product_attention(q, k, v, dropout_p=0.5)
    torchlite.manual_seed(0)
    out, w = LF._scaled_dot_product_attention_math(q, k, v, dropout_p=0.5)
    np.testing.assert_array_equal(a.numpy(), out.numpy())
    plain = LF._scaled_dot_product_attention_math(q, k, v)[1].numpy()
    kept = w.numpy() != 0
    assert 0 < kept.sum() < kept.size
    np.testing.assert_allclose(w.numpy()[kept], plain[kept] * 2, rtol=1e-12)
    assert_close(LF.scaled_dot_product_attention(q, k, v, dropout_p=1.0), torch.zeros(2, 4, 5, dtype=torch.float64))


# nn.utils.rnn -----------------------------------------------------------------------------------

def _seqs(lib, lens=(3, 5, 2), trailing=(2,), dtype="float64", requires_grad=True):
    return [rand(lib, n, *trailing, dtype=dtype, seed=10 + i, requires_grad=requires_grad) for i, n in enumerate(lens)]


@pytest.mark.parametrize("kw", [{}, dict(batch_first=True), dict(padding_value=-2.5), dict(padding_side="left"),
                                dict(batch_first=True, padding_side="left", padding_value=7)])
@pytest.mark.parametrize("lens,trailing", [((3, 5, 2), (2,)), ((4,), ()), ((1, 3), (2, 3)), ((2, 2), (1,))])
def test_pad_sequence(kw, lens, trailing):
    def case(lib):
        seqs = _seqs(lib, lens, trailing)
        out = lib.nn.utils.rnn.pad_sequence(seqs, **kw)
        return [out] + grads(lib, out, seqs)
    same(case)


@pytest.mark.parametrize("bad", ["empty", "shape", "side", "int", "scalar", "dtype"])
def test_pad_sequence_errors_and_dtypes(bad):
    def case(lib):
        pad = lib.nn.utils.rnn.pad_sequence
        a = lib.ones(3, 2)
        if bad == "empty":
            return pad([])
        if bad == "shape":
            return pad([a, lib.ones(2, 3)])
        if bad == "side":
            return pad([a, a[:1]], padding_side="mid")
        if bad == "int":
            return pad(5)
        if bad == "scalar":
            return pad([lib.tensor(1.0)])
        return [pad([lib.ones(2, 2, dtype=lib.int64), a], padding_value=0.5), pad([a, lib.ones(2, 1)])]
    same(case)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_pack_pad_roundtrip(batch_first, enforce_sorted):
    lens = [5, 3, 3, 1] if enforce_sorted else [3, 5, 1, 3]

    def case(lib):
        rnn = lib.nn.utils.rnn
        x = rand(lib, 4, 5, 3, requires_grad=True) if batch_first else rand(lib, 5, 4, 3, requires_grad=True)
        p = rnn.pack_padded_sequence(x, lib.tensor(lens), batch_first=batch_first, enforce_sorted=enforce_sorted)
        padded, lengths = rnn.pad_packed_sequence(p, batch_first=batch_first, padding_value=-1.0, total_length=6)
        seqs = rnn.unpack_sequence(p)
        return [p.data, p.batch_sizes, p.sorted_indices, p.unsorted_indices, padded, lengths, seqs,
                grads(lib, [p.data, padded], [x])]
    same(case)


def test_pack_sequence_and_repr():
    def case(lib):
        seqs = _seqs(lib, (2, 4, 3))
        p = lib.nn.utils.rnn.pack_sequence(seqs, enforce_sorted=False)
        q = p.to(lib.float32)
        perm = lib.nn.utils.rnn.invert_permutation(lib.tensor([2, 0, 1]))
        return [p, q.data.dtype, type(p).__name__, p._fields, repr(perm)]
    same(case)


@pytest.mark.parametrize("bad", ["unsorted", "zero", "len", "empty", "total"])
def test_pack_errors(bad):
    def case(lib):
        rnn = lib.nn.utils.rnn
        x = lib.ones(3, 2, 4)
        if bad == "unsorted":
            return rnn.pack_padded_sequence(x, [1, 2])
        if bad == "zero":
            return rnn.pack_padded_sequence(x, [2, 0])
        if bad == "len":
            return rnn.pack_padded_sequence(x, [2])
        if bad == "empty":
            return rnn.pack_padded_sequence(lib.ones(0, 2, 4), [2, 1])
        return rnn.pad_packed_sequence(rnn.pack_padded_sequence(x, [3, 1]), total_length=2)
    assert same(case) is not None


# multi_head_attention_forward -------------------------------------------------------------------

def _mha_fn_case(L=4, S=5, N=2, E=6, H=2, kdim=None, vdim=None, bias=True, bias_kv=False, zero_attn=False,
                 need_weights=True, average=True, kpm=None, attn_mask=None, is_causal=False, batched=True,
                 self_attn=False, dtype="float64"):
    def case(lib):
        kd, vd = kdim or E, vdim or E
        shape = (lambda n, e: (n, N, e)) if batched else (lambda n, e: (n, e))
        q = rand(lib, *shape(L, E), dtype=dtype, seed=1, requires_grad=True)
        k = q if self_attn else rand(lib, *shape(S, kd), dtype=dtype, seed=2, requires_grad=True)
        v = q if self_attn else rand(lib, *shape(S, vd), dtype=dtype, seed=3, requires_grad=True)
        separate = kd != E or vd != E
        params = dict(
            in_proj_weight=None if separate else rand(lib, 3 * E, E, dtype=dtype, seed=4, requires_grad=True),
            in_proj_bias=rand(lib, 3 * E, dtype=dtype, seed=5, requires_grad=True) if bias else None,
            bias_k=rand(lib, 1, 1, E, dtype=dtype, seed=6, requires_grad=True) if bias_kv else None,
            bias_v=rand(lib, 1, 1, E, dtype=dtype, seed=7, requires_grad=True) if bias_kv else None,
            out_proj_weight=rand(lib, E, E, dtype=dtype, seed=8, requires_grad=True),
            out_proj_bias=rand(lib, E, dtype=dtype, seed=9, requires_grad=True) if bias else None)
        extra = {}
        if separate:
            extra = dict(use_separate_proj_weight=True,
                         q_proj_weight=rand(lib, E, E, dtype=dtype, seed=10, requires_grad=True),
                         k_proj_weight=rand(lib, E, kd, dtype=dtype, seed=11, requires_grad=True),
                         v_proj_weight=rand(lib, E, vd, dtype=dtype, seed=12, requires_grad=True))
        out = lib.nn.functional.multi_head_attention_forward(
            q, k, v, E, H, params["in_proj_weight"], params["in_proj_bias"], params["bias_k"], params["bias_v"],
            zero_attn, 0.0, params["out_proj_weight"], params["out_proj_bias"], training=True,
            key_padding_mask=kpm(lib) if kpm else None, need_weights=need_weights,
            attn_mask=attn_mask(lib) if attn_mask else None, average_attn_weights=average, is_causal=is_causal,
            **extra)
        leaves = [t for t in [q, k, v] + list(params.values()) + list(extra.values())
                  if isinstance(t, (torch.Tensor, torchlite.Tensor))]
        uniq = []
        for t in leaves:
            if all(t is not u for u in uniq):
                uniq.append(t)
        return list(out) + grads(lib, list(out), uniq)
    return case


def _kpm(N=2, S=5, dtype=None):
    def make(lib):
        m = np.zeros((N, S), dtype=bool)
        m[0, -2:] = True
        m[1, 0] = True
        t = lib.tensor(m)
        return t if dtype is None else lib.zeros(N, S, dtype=getattr(lib, dtype)).masked_fill(t, float("-inf"))
    return make


def _mask2(L=4, S=5, kind="bool"):
    def make(lib):
        m = np.triu(np.ones((L, S), dtype=bool), 1)
        t = lib.tensor(m)
        return t if kind == "bool" else lib.zeros(L, S, dtype=lib.float64).masked_fill(t, float("-inf"))
    return make


@pytest.mark.parametrize("kw", [
    {}, dict(need_weights=False), dict(average=False), dict(bias=False), dict(bias_kv=True), dict(zero_attn=True),
    dict(bias_kv=True, zero_attn=True, kpm=_kpm(), attn_mask=_mask2()), dict(kdim=3, vdim=7),
    dict(kdim=3, vdim=7, need_weights=False), dict(kpm=_kpm()), dict(kpm=_kpm(dtype="float64")),
    dict(attn_mask=_mask2()), dict(attn_mask=_mask2(kind="float")), dict(kpm=_kpm(), attn_mask=_mask2(),
                                                                         need_weights=False),
    dict(self_attn=True, S=4, attn_mask=_mask2(4, 4), is_causal=True, need_weights=False),
    dict(self_attn=True, S=4, attn_mask=_mask2(4, 4), is_causal=True),
    dict(batched=False), dict(batched=False, need_weights=False, kpm=lambda lib: _kpm()(lib)[0]),
    dict(self_attn=True, S=4), dict(dtype="float32"), dict(H=3), dict(H=1, need_weights=False),
])
def test_multi_head_attention_forward(kw):
    same(_mha_fn_case(**kw))


@pytest.mark.parametrize("kw", [dict(E=6, H=4), dict(kpm=_kpm(S=4)), dict(attn_mask=_mask2(3, 5)),
                                dict(attn_mask=lambda lib: lib.ones(2, 2, 4, 5, dtype=lib.bool)),
                                dict(attn_mask=lambda lib: lib.ones(3, 4, 5, dtype=lib.bool)),
                                dict(kpm=lambda lib: lib.ones(2, 5, dtype=lib.int64)), dict(is_causal=True),
                                dict(batched=False, kpm=_kpm())])
def test_multi_head_attention_forward_errors(kw):
    assert same(_mha_fn_case(**kw)) is not None


# the recurrences (nn/modules/_rnn_impl.py) against torch's _VF kernels ---------------------------

_VF_FN = {"LSTM": "lstm", "GRU": "gru", "RNN_TANH": "rnn_tanh", "RNN_RELU": "rnn_relu"}


def _rnn_core_case(mode, layers, bidir, bias, proj, batch_first, packed, dtype="float64"):
    def case(lib):
        from torchlite.nn.modules import _rnn_impl
        T_, B, In, H = 4, 3, 5, 6
        nd = 2 if bidir else 1
        gs = {"LSTM": 4, "GRU": 3}.get(mode, 1) * H
        rh = proj or H
        ws, s = [], 50
        for layer in range(layers):
            for _ in range(nd):
                isz = In if layer == 0 else rh * nd
                ws += [rand(lib, gs, isz, dtype=dtype, seed=s, requires_grad=True),
                       rand(lib, gs, rh, dtype=dtype, seed=s + 1, requires_grad=True)]
                if bias:
                    ws += [rand(lib, gs, dtype=dtype, seed=s + 2, requires_grad=True),
                           rand(lib, gs, dtype=dtype, seed=s + 3, requires_grad=True)]
                if proj:
                    ws += [rand(lib, proj, H, dtype=dtype, seed=s + 4, requires_grad=True)]
                s += 5
        x = rand(lib, *((B, T_, In) if batch_first else (T_, B, In)), dtype=dtype, seed=1, requires_grad=True)
        h0 = rand(lib, layers * nd, B, rh, dtype=dtype, seed=2, requires_grad=True)
        c0 = rand(lib, layers * nd, B, H, dtype=dtype, seed=3, requires_grad=True)
        hx = (h0, c0) if mode == "LSTM" else h0
        leaves = [x, h0] + ([c0] if mode == "LSTM" else []) + ws
        if packed:
            sizes = [3, 3, 2, 1]
            inp = lib.cat([x[t, :bs] for t, bs in enumerate(sizes)])
            if lib is torch:
                vf = getattr(torch._VF, _VF_FN[mode])
                out = vf(inp, torch.tensor(sizes), hx, ws, bias, layers, 0.0, False, bidir)
            else:
                out = _rnn_impl.rnn_forward(mode, inp, hx, ws, bias, layers, 0.0, False, bidir, batch_sizes=sizes,
                                            proj_size=proj)
        elif lib is torch:
            out = getattr(torch._VF, _VF_FN[mode])(x, hx, ws, bias, layers, 0.0, False, bidir, batch_first)
        else:
            out = _rnn_impl.rnn_forward(mode, x, hx, ws, bias, layers, 0.0, False, bidir, batch_first, proj_size=proj)
        out = list(out)
        return out + grads(lib, out, leaves)
    return case


_CORE = [(m, L, bd, b, p, bf, pk) for m in _VF_FN for L in (1, 2) for bd in (False, True) for b in (True, False)
         for p in (0, 4) for bf in (False, True) for pk in (False, True)
         if not (p and m != "LSTM") and not (pk and bf) and not (L == 1 and not b and pk)]


@pytest.mark.parametrize("mode,layers,bidir,bias,proj,batch_first,packed", _CORE)
def test_rnn_recurrences_against_vf(mode, layers, bidir, bias, proj, batch_first, packed):
    same(_rnn_core_case(mode, layers, bidir, bias, proj, batch_first, packed))


@pytest.mark.parametrize("mode", list(_VF_FN))
def test_rnn_recurrences_float32(mode):
    same(_rnn_core_case(mode, 2, True, True, 0, False, False, dtype="float32"))


# modules: weights copied from torch through state_dict -------------------------------------------

def build(lib, cls, *args, dtype="float64", **kwargs):
    """lib.nn.<cls>(*args, **kwargs) in dtype; torchlite's takes torch's weights (same seed)."""
    if lib is torch:
        torch.manual_seed(0)
        return getattr(torch.nn, cls)(*args, **kwargs).to(getattr(torch, dtype))
    ref = build(torch, cls, *args, dtype=dtype, **kwargs)
    mod = getattr(torchlite.nn, cls)(*args, **kwargs).to(getattr(torchlite, dtype))
    mod.load_state_dict({k: torchlite.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()})
    return mod


def module_outputs(lib, mod, inputs, train=True):
    """Outputs of mod(*inputs) and the gradients of the inputs and parameters through them."""
    mod.train(train)
    out = mod(*inputs)
    outs = [o for o in (out if isinstance(out, (tuple, list)) else [out])]
    flat = []
    for o in outs:
        if isinstance(o, tuple):
            flat.extend(o)
        elif hasattr(o, "batch_sizes"):
            flat.append(o.data)
        else:
            flat.append(o)
    leaves = [t for t in inputs if isinstance(t, (torch.Tensor, torchlite.Tensor)) and t.requires_grad]
    for t in inputs:
        if isinstance(t, tuple):
            leaves.extend(x for x in t if x.requires_grad)
    leaves += [p for _, p in mod.named_parameters()]
    return flat + grads(lib, flat, leaves)


def structure(lib, mod):
    return ([(n, tuple(p.shape)) for n, p in mod.named_parameters()], list(mod.state_dict().keys()),
            repr(mod).replace("torchlite", "torch"))


RNN_CONFIGS = [
    ("RNN", (5, 6), {}), ("RNN", (5, 6, 2), dict(nonlinearity="relu", bidirectional=True)),
    ("RNN", (5, 6), dict(bias=False, batch_first=True)), ("RNN", (5, 6, 3, "relu", False), {}),
    ("LSTM", (5, 6), {}), ("LSTM", (5, 6, 2), dict(bidirectional=True)), ("LSTM", (5, 6, 2), dict(proj_size=3)),
    ("LSTM", (5, 6), dict(batch_first=True, bias=False, proj_size=2, bidirectional=True)),
    ("GRU", (5, 6), {}), ("GRU", (5, 6, 2), dict(bidirectional=True, batch_first=True)),
    ("GRU", (5, 6, 3), dict(bias=False)),
]


@pytest.mark.parametrize("cls,args,kw", RNN_CONFIGS)
def test_rnn_structure(cls, args, kw):
    same(lambda lib: structure(lib, build(lib, cls, *args, **kw)))


def _rnn_hidden(lib, cls, args, kw, batch, seed=20, dtype="float64", batched=True):
    layers = args[2] if len(args) > 2 else kw.get("num_layers", 1)
    nd = 2 if kw.get("bidirectional") else 1
    hs = kw.get("proj_size") or args[1]
    shape = (layers * nd, batch, hs) if batched else (layers * nd, hs)
    h = rand(lib, *shape, dtype=dtype, seed=seed, requires_grad=True)
    if cls != "LSTM":
        return h
    cshape = (layers * nd, batch, args[1]) if batched else (layers * nd, args[1])
    return (h, rand(lib, *cshape, dtype=dtype, seed=seed + 1, requires_grad=True))


@pytest.mark.parametrize("with_hidden", [False, True])
@pytest.mark.parametrize("cls,args,kw", RNN_CONFIGS)
def test_rnn_forward_backward(cls, args, kw, with_hidden):
    def case(lib):
        mod = build(lib, cls, *args, **kw)
        T_, B = 4, 3
        x = rand(lib, *((B, T_, 5) if kw.get("batch_first") else (T_, B, 5)), seed=1, requires_grad=True)
        inputs = (x, _rnn_hidden(lib, cls, args, kw, B)) if with_hidden else (x,)
        return module_outputs(lib, mod, inputs)
    same(case)


@pytest.mark.parametrize("cls,args,kw", [c for c in RNN_CONFIGS if not c[2].get("batch_first")])
def test_rnn_unbatched_and_float32(cls, args, kw):
    def case(lib):
        mod = build(lib, cls, *args, **kw)
        x = rand(lib, 4, 5, seed=1, requires_grad=True)
        a = module_outputs(lib, mod, (x, _rnn_hidden(lib, cls, args, kw, None, batched=False)))
        b = module_outputs(lib, mod, (x,))
        m32 = build(lib, cls, *args, dtype="float32", **kw)
        c = module_outputs(lib, m32, (rand(lib, 4, 2, 5, dtype="float32", seed=1, requires_grad=True),))
        return a + b + c
    same(case)


@pytest.mark.parametrize("enforce_sorted", [True, False])
@pytest.mark.parametrize("cls,args,kw", [c for c in RNN_CONFIGS if not c[2].get("batch_first")])
def test_rnn_packed(cls, args, kw, enforce_sorted):
    lens = [4, 3, 1] if enforce_sorted else [3, 4, 1]

    def case(lib):
        mod = build(lib, cls, *args, **kw)
        x = rand(lib, 4, 3, 5, seed=1, requires_grad=True)
        p = lib.nn.utils.rnn.pack_padded_sequence(x, lens, enforce_sorted=enforce_sorted)
        h = _rnn_hidden(lib, cls, args, kw, 3)
        out, hn = mod(p, h)
        padded, lengths = lib.nn.utils.rnn.pad_packed_sequence(out)
        flat = [padded, lengths] + (list(hn) if isinstance(hn, tuple) else [hn])
        leaves = [x] + (list(h) if isinstance(h, tuple) else [h]) + list(mod.parameters())
        return flat + grads(lib, [padded] + flat[2:], leaves)
    same(case)


def test_rnn_dropout_between_layers():
    """Dropout after every layer but the last, in training only: p=1 zeroes the next layer's input."""
    def case(lib):
        mod = build(lib, "LSTM", 3, 4, 2, dropout=1.0)
        x = rand(lib, 2, 2, 3, seed=1)
        train = mod(x)
        mod.eval()
        return [train[0], mod(x)[0]]
    same(case)


@pytest.mark.parametrize("bad", [
    ("RNN", (5, 6), dict(nonlinearity="sigmoid")), ("GRU", (5, 6), dict(proj_size=2)),
    ("RNN", (5, 6), dict(proj_size=2)), ("LSTM", (5, 6), dict(proj_size=6)), ("LSTM", (5, 6), dict(proj_size=-1)),
    ("LSTM", (5, 6), dict(dropout=1.5)), ("LSTM", (5, 6), dict(dropout=True)), ("LSTM", (0, 6), {}),
    ("LSTM", (5, 0), {}), ("LSTM", (5.0, 6), {}), ("LSTM", (5, 6), dict(bias=1)),
    ("LSTM", (5, 6), dict(batch_first=None)), ("LSTM", (5, 6), dict(num_layers=0)), ("GRU", (5, "6"), {}),
])
def test_rnn_constructor_errors(bad):
    cls, args, kw = bad
    assert same(lambda lib: getattr(lib.nn, cls)(*args, **kw)) is not None


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("bad", ["dim4", "size", "hidden", "hidden_dim", "unbatched_hidden", "dtype"])
def test_rnn_forward_errors(cls, bad):
    def case(lib):
        mod = build(lib, cls, 5, 6, 2)
        x = rand(lib, 4, 3, 5)
        if bad == "dim4":
            return mod(x.unsqueeze(0))
        if bad == "size":
            return mod(rand(lib, 4, 3, 2))
        if bad == "dtype":
            return mod(x.float())
        h = rand(lib, 2, 2, 6)
        if bad == "hidden_dim":
            h = rand(lib, 3, 6)
        if bad == "unbatched_hidden":
            x, h = x[0], rand(lib, 2, 1, 6)
        return mod(x, (h, h) if cls == "LSTM" else h)
    assert same(case) is not None


def test_rnn_warns_dropout_one_layer():
    for lib in (torch, torchlite):
        with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1, but got "
                                             "dropout=0.5 and num_layers=1"):
            lib.nn.GRU(2, 3, dropout=0.5)


def test_rnn_init_and_flat_weights():
    """reset_parameters draws every parameter from U(-1/sqrt(hidden), 1/sqrt(hidden)), in order;
    _flat_weights follows a replaced parameter."""
    m = torchlite.nn.LSTM(3, 16, 2, bidirectional=True)
    for p in m.parameters():
        assert float(p.abs().max()) <= 0.25 and float(p.abs().max()) > 0.2
    assert [id(w) for w in m._flat_weights] == [id(getattr(m, n)) for n in m._flat_weights_names]
    m.weight_hh_l1 = torchlite.nn.Parameter(torchlite.zeros(64, 16))
    assert m._flat_weights[m._flat_weights_names.index("weight_hh_l1")] is m.weight_hh_l1
    assert [len(ws) for ws in m.all_weights] == [4, 4, 4, 4]
    torchlite.manual_seed(3)
    a = [p.clone() for p in torchlite.nn.GRU(2, 4).parameters()]
    torchlite.manual_seed(3)
    b = [p.clone() for p in torchlite.nn.GRU(2, 4).parameters()]
    assert all(bool((x == y).all()) for x, y in zip(a, b, strict=True))


CELL_CONFIGS = [("RNNCell", (5, 6), {}), ("RNNCell", (5, 6), dict(nonlinearity="relu", bias=False)),
                ("LSTMCell", (5, 6), {}), ("LSTMCell", (5, 6), dict(bias=False)), ("GRUCell", (5, 6), {}),
                ("GRUCell", (5, 6), dict(bias=False))]


@pytest.mark.parametrize("cls,args,kw", CELL_CONFIGS)
def test_cells(cls, args, kw):
    def case(lib):
        mod = build(lib, cls, *args, **kw)
        x = rand(lib, 3, 5, seed=1, requires_grad=True)
        h = rand(lib, 3, 6, seed=2, requires_grad=True)
        hx = (h, rand(lib, 3, 6, seed=3, requires_grad=True)) if cls == "LSTMCell" else h
        return (structure(lib, mod), module_outputs(lib, mod, (x, hx)), module_outputs(lib, mod, (x,)),
                module_outputs(lib, mod, (x[0], (hx[0][0], hx[1][0]) if cls == "LSTMCell" else hx[0])))
    same(case)


@pytest.mark.parametrize("cls", ["RNNCell", "LSTMCell", "GRUCell"])
@pytest.mark.parametrize("bad", ["dim3", "size", "batch", "hidden_size", "hidden_dim"])
def test_cell_errors(cls, bad):
    def case(lib):
        mod = build(lib, cls, 5, 6)
        x, h = rand(lib, 3, 5), rand(lib, 3, 6)
        if bad == "dim3":
            x = x.unsqueeze(0)
        elif bad == "size":
            x = rand(lib, 3, 4)
        elif bad == "batch":
            h = rand(lib, 2, 6)
        elif bad == "hidden_size":
            h = rand(lib, 3, 4)
        else:
            h = h.unsqueeze(0)
        return mod(x, (h, h) if cls == "LSTMCell" else h)
    assert same(case) is not None


# MultiheadAttention and the Transformer ----------------------------------------------------------

MHA_CONFIGS = [
    ((6, 2), {}), ((6, 3), dict(bias=False)), ((6, 2), dict(add_bias_kv=True, add_zero_attn=True)),
    ((6, 2), dict(kdim=4, vdim=5)), ((6, 2), dict(batch_first=True)), ((6, 1), dict(dropout=0.0, kdim=4)),
]


@pytest.mark.parametrize("args,kw", MHA_CONFIGS)
def test_mha_structure(args, kw):
    same(lambda lib: structure(lib, build(lib, "MultiheadAttention", *args, **kw)) + (
        type(build(lib, "MultiheadAttention", *args, **kw).out_proj).__name__,))


@pytest.mark.parametrize("call", [
    {}, dict(need_weights=False), dict(average_attn_weights=False), dict(kpm=True), dict(mask=True),
    dict(kpm=True, mask=True, need_weights=False), dict(self_attn=True), dict(self_attn=True, causal=True),
    dict(unbatched=True)])
@pytest.mark.parametrize("args,kw", MHA_CONFIGS)
def test_mha_forward_backward(args, kw, call):
    def case(lib):
        mod = build(lib, "MultiheadAttention", *args, **kw)
        L, S, N, E = 4, 5, 2, args[0]
        kd, vd = kw.get("kdim", E), kw.get("vdim", E)
        bf = kw.get("batch_first")
        if call.get("self_attn"):
            if kd != E or vd != E:
                return None
            S = L
        unb = call.get("unbatched")

        def shape(n, e):
            return (n, e) if unb else ((N, n, e) if bf else (n, N, e))
        q = rand(lib, *shape(L, E), seed=1, requires_grad=True)
        k = q if call.get("self_attn") else rand(lib, *shape(S, kd), seed=2, requires_grad=True)
        v = q if call.get("self_attn") else rand(lib, *shape(S, vd), seed=3, requires_grad=True)
        kwargs = {}
        for name in ("need_weights", "average_attn_weights"):
            if name in call:
                kwargs[name] = call[name]
        if call.get("kpm"):
            m = np.zeros((N, S), dtype=bool)
            m[0, -1] = m[1, 0] = True
            kwargs["key_padding_mask"] = lib.tensor(m[0] if unb else m)
        if call.get("mask") or call.get("causal"):
            kwargs["attn_mask"] = lib.nn.Transformer.generate_square_subsequent_mask(L, dtype=lib.float64)[:, :S] \
                if S <= L else lib.tensor(np.triu(np.full((L, S), -np.inf), 1))
        if call.get("causal"):
            kwargs["is_causal"] = True
            kwargs["need_weights"] = False
        out = mod(q, k, v, **kwargs)
        leaves = [q] + ([] if call.get("self_attn") else [k, v]) + list(mod.parameters())
        return list(out) + grads(lib, list(out), leaves)
    same(case)


@pytest.mark.parametrize("bad", ["heads", "zero", "divisible"])
def test_mha_constructor_errors(bad):
    args = {"heads": (6, 0), "zero": (0, 2), "divisible": (6, 4)}[bad]
    assert same(lambda lib: lib.nn.MultiheadAttention(*args)) is not None


def test_mha_eval_no_grad_fast_path():
    """torch's inference fast path (_native_multi_head_attention) gives the composite path's values."""
    def case(lib):
        mod = build(lib, "MultiheadAttention", 8, 2, batch_first=True).eval()
        x = rand(lib, 2, 5, 8, seed=1)
        m = np.zeros((2, 5), dtype=bool)
        m[1, -2:] = True
        with lib.no_grad():
            return [mod(x, x, x), mod(x, x, x, key_padding_mask=lib.tensor(m), need_weights=False)[0]]
    same(case)


def test_mha_init():
    torchlite.manual_seed(0)
    m = torchlite.nn.MultiheadAttention(16, 4, add_bias_kv=True)
    bound = math.sqrt(6.0 / (16 + 48))
    assert float(m.in_proj_weight.abs().max()) <= bound and float(m.in_proj_weight.abs().max()) > 0.8 * bound
    assert float(m.in_proj_bias.abs().max()) == 0 and float(m.out_proj.bias.abs().max()) == 0
    assert float(m.bias_k.abs().max()) > 0


TRANSFORMER_LAYERS = [
    ("TransformerEncoderLayer", (8, 2, 16, 0.0), {}), ("TransformerEncoderLayer", (8, 2, 16, 0.0), dict(
        activation="gelu", norm_first=True, batch_first=True)),
    ("TransformerEncoderLayer", (8, 2, 16, 0.0), dict(bias=False, layer_norm_eps=1e-3)),
    ("TransformerDecoderLayer", (8, 2, 16, 0.0), {}), ("TransformerDecoderLayer", (8, 2, 16, 0.0), dict(
        activation="gelu", norm_first=True, batch_first=True)),
]


@pytest.mark.parametrize("cls,args,kw", TRANSFORMER_LAYERS)
@pytest.mark.parametrize("masks", [False, True])
def test_transformer_layers(cls, args, kw, masks):
    def case(lib):
        mod = build(lib, cls, *args, **kw)
        bf = kw.get("batch_first")
        x = rand(lib, *((2, 5, 8) if bf else (5, 2, 8)), seed=1, requires_grad=True)
        extra = {}
        if masks:
            kpm = np.zeros((2, 5), dtype=bool)
            kpm[1, -2:] = True
            name = "src" if cls == "TransformerEncoderLayer" else "tgt"
            extra = {f"{name}_mask": lib.nn.Transformer.generate_square_subsequent_mask(5, dtype=lib.float64),
                     f"{name}_key_padding_mask": lib.tensor(kpm)}
        if cls == "TransformerDecoderLayer":
            mem = rand(lib, *((2, 3, 8) if bf else (3, 2, 8)), seed=2, requires_grad=True)
            mod.train()
            out = mod(x, mem, **extra)
            return [structure(lib, mod), out] + grads(lib, out, [x, mem] + list(mod.parameters()))
        mod.train()
        out = mod(x, **extra)
        return [structure(lib, mod), out] + grads(lib, out, [x] + list(mod.parameters()))
    same(case)


@pytest.mark.parametrize("batch_first", [False, True])
def test_transformer(batch_first):
    def case(lib):
        mod = build(lib, "Transformer", 8, 2, 2, 1, 16, 0.0, batch_first=batch_first)
        src = rand(lib, *((2, 5, 8) if batch_first else (5, 2, 8)), seed=1, requires_grad=True)
        tgt = rand(lib, *((2, 4, 8) if batch_first else (4, 2, 8)), seed=2, requires_grad=True)
        tgt_mask = lib.nn.Transformer.generate_square_subsequent_mask(4, dtype=lib.float64)
        out = mod(src, tgt, tgt_mask=tgt_mask, tgt_is_causal=True)
        return [structure(lib, mod), out] + grads(lib, out, [src, tgt] + list(mod.parameters()))
    same(case)


def test_transformer_encoder_nested_fast_path():
    """Eval, no grad, batch_first, a key-padding mask: torch runs a nested tensor and leaves zeros at the
    padded positions (before the final norm); so does torchlite."""
    def case(lib):
        layer = build(lib, "TransformerEncoderLayer", 8, 2, 16, 0.0, batch_first=True)
        enc = lib.nn.TransformerEncoder(layer, 2)
        if lib is torchlite:
            ref = test_transformer_encoder_nested_fast_path.ref
            enc.load_state_dict({k: torchlite.tensor(v.numpy()) for k, v in ref.state_dict().items()})
        else:
            test_transformer_encoder_nested_fast_path.ref = enc
        enc.eval()
        x = rand(lib, 2, 5, 8, seed=1)
        kpm = np.zeros((2, 5), dtype=bool)
        kpm[1, -2:] = True
        with lib.no_grad():
            return [enc(x, src_key_padding_mask=lib.tensor(kpm)), enc(x)]
    same(case)


def test_transformer_generate_square_subsequent_mask_and_errors():
    def case(lib):
        T = lib.nn.Transformer
        return [T.generate_square_subsequent_mask(4), T.generate_square_subsequent_mask(3, dtype=lib.float64)]
    same(case)

    def bad(lib):
        mod = build(lib, "Transformer", 8, 2, 1, 1, 16, 0.0)
        return mod(rand(lib, 5, 2, 8), rand(lib, 4, 3, 8))
    assert same(bad) is not None

    def bad_act(lib):
        return lib.nn.TransformerEncoderLayer(8, 2, activation="tanh")
    assert same(bad_act) is not None


def test_transformer_encoder_warns_like_torch():
    for lib in (torch, torchlite):
        layer = lib.nn.TransformerEncoderLayer(8, 2)
        with pytest.warns(UserWarning, match=r"enable_nested_tensor is True, but self.use_nested_tensor is False "
                                             r"because encoder_layer.self_attn.batch_first was not True"):
            enc = lib.nn.TransformerEncoder(layer, 3, norm=lib.nn.modules.normalization.LayerNorm(8),
                                            enable_nested_tensor=True)
        assert len(enc.layers) == 3 and enc.layers[0] is not layer and enc.layers[0] is not enc.layers[1]


def test_rnn_deepcopy_and_pickle():
    """__getstate__ drops the weak references to the flat weights and __setstate__ rebuilds them."""
    import copy
    import pickle
    m = torchlite.nn.LSTM(3, 4, 2, bidirectional=True)
    x = rand(torchlite, 2, 1, 3, seed=1)
    for m2 in (copy.deepcopy(m), pickle.loads(pickle.dumps(m))):  # noqa: S301 - our own object
        assert all(w is getattr(m2, n) for w, n in zip(m2._flat_weights, m2._flat_weights_names, strict=True))
        assert m2.weight_ih_l0 is not m.weight_ih_l0
        np.testing.assert_array_equal(m2(x.float())[0].detach().numpy(), m(x.float())[0].detach().numpy())
