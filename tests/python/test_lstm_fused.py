"""nn.LSTM through the fused layer op (mkldnn/RNN.cpp's mkldnn_rnn_layer, node MkldnnRnnLayerBackward0),
against torch: outputs, h_n / c_n, every gradient, the nodes and their saved fields; RNN.cpp's routing
(use_mkldnn: which LSTMs keep the decomposed cells); double backward (the differentiable backward);
mkldnn_rnn_layer_backward as an op of its own; and the kernels in float64 against the decomposed path
and gradcheck / gradgradcheck (through a float64 switch torch has not: its oneDNN kernel takes float32)."""
import collections
import warnings

import numpy as np
import pytest

import torchlite
from torchlite._ops import RNN as _RNN

from diff_utils import import_torch, norm, run

torch = import_torch()

RTOL, ATOL = 1e-5, 1e-6  # float32 rounding (torch: oneDNN)


def _arrays(*shapes, seed=0, dtype=np.float32):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(dtype) for s in shapes]


def _graph(root):
    """Reachable nodes, breadth first, each once."""
    out, seen, queue = [], set(), collections.deque([root])
    while queue:
        fn = queue.popleft()
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        out.append(fn)
        queue.extend(f for f, _ in fn.next_functions)
    return out


def _saved(fn):
    """A node's _saved_* fields: tensors as arrays (result3, the workspace, as its dtype and rank: its
    size is oneDNN's layout), the rest as they are."""
    fields = {}
    for name in sorted(a for a in dir(fn) if a.startswith("_saved_")):
        v = getattr(fn, name)
        if name == "_saved_result3":
            fields[name] = (str(v.dtype).split(".")[-1], v.dim())
        elif isinstance(v, (torch.Tensor, torchlite.Tensor)):
            fields[name] = v.detach().numpy().copy()
        else:
            fields[name] = tuple(v) if isinstance(v, (list, tuple)) else v
    return fields


def _close(a, b, rtol=RTOL, atol=ATOL):
    assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, b.shape, a.dtype, b.dtype)
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def _same_saved(ft, fl):
    st, sl = _saved(ft), _saved(fl)
    assert st.keys() == sl.keys()
    for k in st:
        if isinstance(st[k], np.ndarray):
            _close(st[k], sl[k])
        else:
            assert st[k] == sl[k], (k, st[k], sl[k])


def _lstm_case(lib, cfg, x_np, h_np, grads_np, train=True):
    """The LSTM of cfg with torch's weights (seeded in torch, copied), run and backpropagated:
    (output, h_n, c_n, root nodes, {name: gradient})."""
    torch.manual_seed(0)
    ref = torch.nn.LSTM(**cfg)
    m = lib.nn.LSTM(**cfg)
    m.load_state_dict({k: lib.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()})
    m.train(train)
    x = lib.tensor(x_np, requires_grad=True)
    leaves = {"input": x}
    if h_np is None:
        y, (h, c) = m(x)
    else:
        h0, c0 = lib.tensor(h_np[0], requires_grad=True), lib.tensor(h_np[1], requires_grad=True)
        leaves.update(h0=h0, c0=c0)
        y, (h, c) = m(x, (h0, c0))
    params = dict(m.named_parameters())
    leaves.update(params)
    outs = [y, h, c]
    lib.autograd.backward(outs, [lib.tensor(g) for g in grads_np], retain_graph=True)
    return outs, {k: v.grad for k, v in leaves.items()}


CONFIGS = [
    dict(input_size=4, hidden_size=5),
    dict(input_size=4, hidden_size=5, num_layers=2),
    dict(input_size=4, hidden_size=5, batch_first=True),
    dict(input_size=4, hidden_size=5, bidirectional=True),
    dict(input_size=4, hidden_size=3, num_layers=2, bidirectional=True, batch_first=True),
    dict(input_size=4, hidden_size=5, bias=False),
    dict(input_size=4, hidden_size=5, num_layers=2, bias=False, bidirectional=True),
]


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
@pytest.mark.parametrize("init", [False, True])
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("train", [True, False])
def test_lstm_matches_torch(cfg, init, batched, train):
    T, B, In, H = 3, 2, cfg["input_size"], cfg["hidden_size"]
    dirs = 2 if cfg.get("bidirectional") else 1
    L = cfg.get("num_layers", 1)
    if batched:
        xs = (B, T, In) if cfg.get("batch_first") else (T, B, In)
        ys = xs[:2] + (dirs * H,)
        hs = (L * dirs, B, H)
    else:
        xs, ys, hs = (T, In), (T, dirs * H), (L * dirs, H)
    x_np, h0, c0, gy, gh, gc = _arrays(xs, hs, hs, ys, hs, hs, seed=len(CONFIGS) * init + batched)
    h_np = (h0, c0) if init else None
    (yt, ht, ct), gt = _lstm_case(torch, cfg, x_np, h_np, (gy, gh, gc), train)
    (yl, hl, cl), gl = _lstm_case(torchlite, cfg, x_np, h_np, (gy, gh, gc), train)
    for a, b in ((yt, yl), (ht, hl), (ct, cl)):
        _close(a.detach().numpy(), b.detach().numpy())
    assert gt.keys() == gl.keys()
    for k in gt:
        _close(gt[k].numpy(), gl[k].numpy())
    for a, b in ((yt, yl), (ht, hl), (ct, cl)):
        nt, nl = _graph(a.grad_fn), _graph(b.grad_fn)
        assert [f.name() for f in nt] == [f.name() for f in nl]
        fused = [(ft, fl) for ft, fl in zip(nt, nl, strict=True) if ft.name() == "MkldnnRnnLayerBackward0"]
        assert len(fused) == L * dirs
        for ft, fl in fused:
            _same_saved(ft, fl)
            assert [n is None for n, _ in ft.next_functions] == [n is None for n, _ in fl.next_functions]


def _names(lib, make, x_np, packed=False, ctx=None, device="cpu"):
    torch_like = lib
    torch_like.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = make(lib).to(device)
        x = lib.tensor(x_np, device=device)
        if packed:
            lengths = [x_np.shape[0]] * x_np.shape[1] if packed is True else packed
            x = lib.nn.utils.rnn.pack_padded_sequence(x, lengths)
        if ctx is not None:
            with ctx(lib):
                y = m(x)[0]
        else:
            y = m(x)[0]
    y = y.data if packed else y
    return sorted({f.name() for f in _graph(y.grad_fn)}), y


ROUTES = {
    "float32": (lambda L: L.nn.LSTM(4, 5, 2), np.float32, {}, True),
    "float64": (lambda L: L.nn.LSTM(4, 5, 2).double(), np.float64, {}, False),
    "proj_size": (lambda L: L.nn.LSTM(4, 5, proj_size=3), np.float32, {}, False),
    "packed": (lambda L: L.nn.LSTM(4, 5), np.float32, dict(packed=True), True),
    "packed_uneven": (lambda L: L.nn.LSTM(4, 5, bidirectional=True), np.float32, dict(packed=[3, 1]), False),
    "packed_bi": (lambda L: L.nn.LSTM(4, 5, 2, bidirectional=True), np.float32, dict(packed=True), True),
    "packed_float64": (lambda L: L.nn.LSTM(4, 5).double(), np.float64, dict(packed=True), False),
    "mkldnn_off": (lambda L: L.nn.LSTM(4, 5), np.float32,
                   dict(ctx=lambda L: L.backends.mkldnn.flags(enabled=False)), False),
    "dropout": (lambda L: L.nn.LSTM(4, 5, 2, dropout=0.0), np.float32, {}, True),
    "eval": (lambda L: L.nn.LSTM(4, 5, 2, dropout=0.5).eval(), np.float32, {}, True),
    "gru": (lambda L: L.nn.GRU(4, 5), np.float32, {}, False),
}


@pytest.mark.parametrize("route", list(ROUTES))
def test_routing_as_torch(route):
    make, dtype, kw, fused = ROUTES[route]
    (x_np,) = _arrays((3, 2, 4), dtype=dtype)
    nt, yt = _names(torch, make, x_np, **kw)
    nl, yl = _names(torchlite, make, x_np, **kw)
    assert ("MkldnnRnnLayerBackward0" in nt) == ("MkldnnRnnLayerBackward0" in nl) == fused
    if fused or "packed" not in kw:
        # (the decomposed cells chunk their gates with unsafe_chunk, as torch's)
        assert sorted(nt) == nl
    _close(yt.detach().numpy(), yl.detach().numpy(), atol=1e-6 if dtype == np.float32 else 1e-12)


def test_routing_dropout_train():
    # dropout between layers (train): the fused layers with at::dropout's MulBackward0 between them
    (x_np,) = _arrays((3, 2, 4))
    nt, _ = _names(torch, lambda L: L.nn.LSTM(4, 5, 2, dropout=0.5), x_np)
    nl, _ = _names(torchlite, lambda L: L.nn.LSTM(4, 5, 2, dropout=0.5), x_np)
    assert nt == nl == ["MkldnnRnnLayerBackward0", "MulBackward0", "torch::autograd::AccumulateGrad"]


def test_routing_sim_device_keeps_the_cells():
    # use_mkldnn takes CPU tensors only: on another device (torchlite's simulated accelerator) the
    # decomposed cells, with the same values
    (x_np,) = _arrays((3, 2, 4))
    nl, yl = _names(torchlite, lambda L: L.nn.LSTM(4, 5), x_np, device="sim:0")
    assert "MkldnnRnnLayerBackward0" not in nl and "SigmoidBackward0" in nl
    _, yt = _names(torch, lambda L: L.nn.LSTM(4, 5), x_np)
    _close(yt.detach().numpy(), yl.detach().cpu().numpy())


def test_no_grad_and_empty():
    def case(lib):
        lib.manual_seed(0)
        m = lib.nn.LSTM(4, 5)
        with lib.no_grad():
            y, (h, c) = m(lib.ones(3, 2, 4))
        z, (hz, cz) = m(lib.ones(3, 0, 4))  # numel 0: the decomposed cells
        out = [y.grad_fn is None, y.shape, z.shape, hz.shape, z.grad_fn.name()]
        out.append(run(lambda lib: m(lib.ones(0, 2, 4)), lib))
        return out

    ct, cl = case(torch), case(torchlite)
    assert norm(ct[:3] + ct[5:]) == norm(cl[:3] + cl[5:])
    assert ct[3] == tuple(cl[3])
    assert ct[5][:2] == ("raised", "RuntimeError")
    assert ct[4].replace("Unsafe", "") == cl[4] != "MkldnnRnnLayerBackward0"


def test_hidden_state_edges():
    # hx_ / cx_ are selects of h_0 / c_0 (SelectBackward0 edges); without h_0 no edge
    def case(lib):
        lib.manual_seed(0)
        m = lib.nn.LSTM(4, 5, 2)
        h0 = lib.zeros(2, 2, 5, requires_grad=True)
        c0 = lib.zeros(2, 2, 5)
        y, _ = m(lib.ones(3, 2, 4), (h0, c0))
        fn = y.grad_fn
        return [None if n is None else n.name() for n, _ in fn.next_functions]

    assert case(torch) == case(torchlite)


def test_double_backward_as_torch():
    # create_graph: the formula is mkldnn_rnn_layer_differentiable_backward (differentiable ops), so a
    # second derivative works, as torch's
    x_np, gy = _arrays((3, 2, 4), (3, 2, 5))

    def case(lib):
        torch.manual_seed(0)
        ref = torch.nn.LSTM(4, 5, 2)
        m = lib.nn.LSTM(4, 5, 2)
        m.load_state_dict({k: lib.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()})
        x = lib.tensor(x_np, requires_grad=True)
        h0 = lib.zeros(2, 2, 5, requires_grad=True)
        y, (h, c) = m(x, (h0, lib.zeros(2, 2, 5)))
        loss = (y * lib.tensor(gy)).sum() + h.sum() + (c * c).sum()
        params = list(m.parameters())
        g = lib.autograd.grad(loss, [x, h0] + params, create_graph=True)
        gg = lib.autograd.grad(sum((t * t).sum() for t in g), [x, h0] + params, allow_unused=True)
        return [t.detach().numpy() for t in g], [None if t is None else t.numpy() for t in gg], g[0].grad_fn.name()

    gt, ggt, nt = case(torch)
    gl, ggl, nl = case(torchlite)
    assert nt == nl == "CatBackward0"
    for a, b in zip(gt, gl, strict=True):
        _close(a, b)
    for a, b in zip(ggt, ggl, strict=True):
        assert (a is None) == (b is None)
        if a is not None:
            _close(a, b, rtol=1e-4, atol=1e-5)


def _layer_args(lib, dtype=np.float32, requires_grad=True, T=3, B=2, In=4, H=5, seed=1):
    arrs = _arrays((T, B, In), (4 * H, In), (4 * H, H), (4 * H,), (4 * H,), (B, H), (B, H), seed=seed, dtype=dtype)
    return [lib.tensor(a, requires_grad=requires_grad) for a in arrs]


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("has_biases", [True, False])
def test_op_matches_torch(reverse, has_biases):
    gy, gh, gc = _arrays((3, 2, 5), (2, 5), (2, 5), seed=2)

    def case(lib):
        args = _layer_args(lib)
        out = lib.mkldnn_rnn_layer(*args, reverse, [], 2, 5, 1, has_biases, False, False, True)
        grads = lib.autograd.grad(out[:3], args, [lib.tensor(gy), lib.tensor(gh), lib.tensor(gc)],
                                  allow_unused=True, retain_graph=True)
        return out, grads

    (ot, gt), (ol, gl) = case(torch), case(torchlite)
    for a, b in zip(ot[:3], ol[:3], strict=True):
        _close(a.detach().numpy(), b.detach().numpy())
    assert ol[3].dtype == torchlite.uint8 and ol[3].dim() == 1 and not ol[3].requires_grad
    for i, (a, b) in enumerate(zip(gt, gl, strict=True)):
        if i in (3, 4) and not has_biases:
            continue  # (unused: the biases' gradients are the same sums, discarded by the caller)
        _close(a.numpy(), b.numpy())
    assert ot[0].grad_fn.name() == ol[0].grad_fn.name() == "MkldnnRnnLayerBackward0"
    assert ot[1].grad_fn is ot[0].grad_fn and ol[1].grad_fn is ol[0].grad_fn
    _same_saved(ot[0].grad_fn, ol[0].grad_fn)


def test_op_partial_output_grads():
    # gradients of only hy, or only cy, or only the output (the others undefined)
    for which in range(3):
        def case(lib, which=which):
            args = _layer_args(lib, seed=3)
            out = lib.mkldnn_rnn_layer(*args, False, [], 2, 5, 1, True, False, False, True)
            return [t.numpy() for t in lib.autograd.grad(out[which].sum(), args)]

        for a, b in zip(case(torch), case(torchlite), strict=True):
            _close(a, b)


def test_op_errors_and_no_grad():
    def case(lib):
        out = [run(lambda lib: lib.mkldnn_rnn_layer(*_layer_args(lib, np.float64), False, [], 2, 5, 1, True,
                                                    False, False, True), lib)]
        with lib.no_grad():
            r = lib.mkldnn_rnn_layer(*_layer_args(lib), False, [], 2, 5, 1, True, False, False, True)
        out.append((r[3] is None, r[0].grad_fn is None))
        return out

    assert case(torch) == case(torchlite)
    assert case(torch)[0][:2] == ("raised", "RuntimeError")


def test_backward_op_is_not_differentiable():
    # mkldnn_rnn_layer_backward: upstream's entry has no formula (torch::autograd::NotImplemented)
    gy = _arrays((3, 2, 5), seed=4)[0]

    def case(lib):
        args = _layer_args(lib, seed=4)
        out = lib.mkldnn_rnn_layer(*args, False, [], 2, 5, 1, True, False, False, True)
        g = lib.tensor(gy, requires_grad=True)
        fn = torch.ops.aten.mkldnn_rnn_layer_backward if lib is torch else torchlite._ops.mkldnn_rnn_layer_backward
        r = fn(*args, *out[:3], g, None, None, False, 2, 5, 1, True, True, False, [], False, out[3])
        err = run(lambda lib: r[0].sum().backward(), lib)[1:]
        with lib.no_grad():
            none = fn(*args, *out[:3], None, None, None, False, 2, 5, 1, True, True, False, [], False, out[3])
        return [t.detach().numpy() for t in r], r[0].grad_fn.name(), r[6].grad_fn is r[0].grad_fn, err, none

    rt, nt, st, et, zt = case(torch)
    rl, nl, sl, el, zl = case(torchlite)
    for a, b in zip(rt, rl, strict=True):
        _close(a, b)
    assert (nt, st, et) == (nl, sl, el) == ("torch::autograd::NotImplemented", True,
                                            ("RuntimeError", "derivative for mkldnn_rnn_layer_backward is not "
                                             "implemented"))
    assert all(t is None for t in zl) and all(t is None for t in zt)


# float64: torch's oneDNN kernel refuses it, so the kernels are checked in float64 by letting the op
# take it here, against the decomposed cells (to 1e-10) and by gradcheck / gradgradcheck


@pytest.fixture
def float64_op(monkeypatch):
    monkeypatch.setattr(_RNN, "_check_dtype", lambda *tensors: None)


@pytest.mark.parametrize("cfg", CONFIGS[:5], ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
def test_float64_fused_equals_cells(float64_op, monkeypatch, cfg):
    from torchlite.nn.modules import _rnn_impl

    monkeypatch.setattr(_rnn_impl, "_use_mkldnn", lambda *a: torchlite.backends.mkldnn.enabled)
    shape = (2, 3, 4) if cfg.get("batch_first") else (3, 2, 4)
    x_np = _arrays(shape, dtype=np.float64, seed=5)[0]
    results = []
    for enabled in (True, False):
        torchlite.manual_seed(0)
        m = torchlite.nn.LSTM(**cfg).double()
        x = torchlite.tensor(x_np, requires_grad=True)
        with torchlite.backends.mkldnn.flags(enabled=enabled):
            y, (h, c) = m(x)
        assert ("MkldnnRnnLayerBackward0" in {f.name() for f in _graph(y.grad_fn)}) == enabled
        ((y * y).sum() + h.sum() + (c * 3).sum()).backward()
        results.append([y.detach().numpy(), h.detach().numpy(), c.detach().numpy(), x.grad.numpy()]
                       + [p.grad.numpy() for p in m.parameters()])
    for a, b in zip(*results, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("reverse", [False, True])
def test_float64_gradcheck(float64_op, reverse):
    args = _layer_args(torchlite, np.float64, T=3, B=2, In=3, H=2, seed=6)

    def fn(*a):
        return torchlite.mkldnn_rnn_layer(*a, reverse, [], 2, 2, 1, True, False, False, True)[:3]

    assert torchlite.autograd.gradcheck(fn, args)
    assert torchlite.autograd.gradgradcheck(fn, args)
