"""Every node of the derivatives table (tools/autograd/derivatives.yaml) against torch's: for each
`name:` schema, the op is called on inputs generated from the schema (float64 3x3 leaves that
require grad for tensors, small valid values for the rest; OVERRIDES where the op needs shapes or
arguments the generic rule cannot make), and the node it records is compared with torch's: its
name and every grad_fn._saved_<field> (names, and values: tensors by dtype, shape and value).

An op torch gives no Python binding (the *_backward and *_forward ops) is called as
torch.ops.aten.<name> against torchlite's op (torchlite._ops.<name>), or, where torchlite has none, built
by the double backward that records it. Ops torch cannot build here would be listed in NOT_BUILT
with the reason (none today); the differences from torch known today are listed in KNOWN_DIFFERENCES
with the reason, and the test checks they still differ (fixing one means removing its entry)."""
import re
import warnings

import numpy as np
import pytest
import yaml

import torchlite
from torchlite._generated import nn_functions
from diff_utils import import_torch

torch = import_torch()

TABLE = "tools/autograd/derivatives.yaml"


def _root():
    import os
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _schemas():
    with open(f"{_root()}/{TABLE}") as f:
        return [e["name"] for e in yaml.safe_load(f) if isinstance(e, dict) and "name" in e]


def _parse(schema):
    """(name, [(type, name, default, keyword_only)]) of a native_functions schema."""
    full, args = re.match(r"([\w.]+)\((.*)\) ->", schema).groups()
    parts, depth, cur = [], 0, ""
    for ch in args:
        depth += ch in "([" and 1 or ch in ")]" and -1 or 0
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    params, kw = [], False
    for p in parts:
        if p == "*":
            kw = True
            continue
        p, _, default = p.partition("=")
        typ, pname = p.rsplit(" ", 1)
        params.append((typ.strip(), pname, default or None, kw))
    return full.split(".")[0], params


BASE = np.array([[0.3, 0.5, 0.7], [0.6, 0.2, 0.4], [0.8, 0.35, 0.55]])


def _leaf(lib, k=0, shape=None):
    a = BASE + 0.01 * k
    return lib.tensor((np.resize(a, shape) if shape else a).tolist(), dtype=lib.float64, requires_grad=True)


def _vec(lib, k=0):
    return lib.tensor([0.3 + 0.1 * i + 0.01 * k for i in range(3)], dtype=lib.float64, requires_grad=True)


def _generic_arg(lib, typ, pname, k):
    """A value for one schema argument (LookupError where no generic value fits)."""
    t = re.sub(r"\([a-z!* ->]*\)", "", typ)
    if t in ("Tensor", "Tensor?"):
        if pname == "index":
            return lib.tensor([[0, 1, 2], [2, 0, 1], [1, 1, 0]])
        if pname in ("mask", "condition"):
            return lib.tensor([[True, False, True], [False, True, False], [True, True, False]])
        return _leaf(lib, k)
    if t == "Tensor?[]":
        return [lib.tensor([0, 2])]
    if t == "Tensor[]":
        return [_leaf(lib, k), _leaf(lib, k + 1)]
    if t in ("Scalar", "Scalar?"):
        return {"alpha": 2, "value": 0.25, "min": 0.3, "max": 0.7, "exponent": 2.5, "weight": 0.3,
                "threshold": 0.4, "other": 2.0, "ord": 2, "correction": 1}.get(pname, 2)
    if t in ("float", "float?"):
        return {"p": 0.5, "eps": 1e-3}.get(pname, 0.5)
    if t in ("int", "SymInt", "int?", "SymInt?"):
        return {"dim": 1, "dim0": 0, "dim1": 0, "dim2": 1, "index": 1, "k": 1, "diagonal": 0, "offset": 0,
                "decimals": 1, "start": 0, "end": 2, "step": 1, "split_size": 1, "dimension": 1, "size": 2,
                "to": 3, "from": 0}.get(pname, 1)
    if t.startswith(("int[", "SymInt[")):
        return {"dims": [0], "dim": [1], "size": [9], "stride": [1], "shifts": [1], "repeats": [2, 1],
                "split_sizes": [1, 2], "input_sizes": [3, 3], "sizes": [3, 3]}.get(pname, [1])
    if t in ("bool", "bool?"):
        return False
    if t in ("ScalarType", "ScalarType?"):
        return lib.float64
    if t in ("str", "str?"):
        return {"reduce": "sum", "rounding_mode": "floor"}.get(pname, "sum")
    raise LookupError(f"no generic value for {typ} {pname}")


def _generic_call(lib, schema):
    """The op called with its required arguments (and alpha=2, so a saved alpha shows): a
    trailing-underscore op as a method of a non-leaf self, linalg_<x> as linalg.<x>, others as
    torch.<name>."""
    name, params = _parse(schema)
    args, kwargs = [], {}
    for k, (typ, pname, default, kw) in enumerate(params):
        if default is not None and pname != "alpha":
            continue
        value = _generic_arg(lib, typ, pname, k)
        if kw:
            kwargs[pname] = value
        else:
            args.append(value)
    if name.endswith("_") and not name.startswith("_"):
        self = args[0].clone()
        if hasattr(self, name):
            return getattr(self, name)(*args[1:], **kwargs)
        return _function(lib, name)(self, *args[1:], **kwargs)
    if name.startswith("linalg_"):
        return getattr(lib.linalg, name[len("linalg_"):])(*args, **kwargs)
    return _function(lib, name)(*args, **kwargs)


def _function(lib, name):
    """The op as a function: torch.<name>, else the python_module: nn binding (torch._C._nn /
    torchlite's nn_functions), else the op itself (torch.ops.aten.<name> / torchlite._ops.<name>:
    the backward and *_forward ops torch gives no Python binding, which record the same node)."""
    for space in ((torch, torch._C._nn, torch.ops.aten) if lib is torch
                  else (torchlite, nn_functions, torchlite._ops)):
        if hasattr(space, name):
            return getattr(space, name)
    raise AttributeError(f"no function {name}")


def _idx(lib):
    return lib.tensor([0, 2])


def _batch(lib, k=0):
    return _leaf(lib, k, (2, 3, 3))


def _grad_of(lib, x, out):
    """x's gradient of `out` for a grad_output that requires grad, with create_graph: the node of
    the backward op out's backward calls."""
    g = lib.ones(tuple(out.shape), dtype=lib.float64, requires_grad=True)
    return lib.autograd.grad(out, x, g, create_graph=True)[0]


def _classes(lib, shape=(3,)):
    return lib.tensor(np.resize([0, 2, 1], shape).tolist())


def _weight(lib):
    return lib.tensor([0.2, 0.3, 0.5], dtype=lib.float64)


def _scalar(lib):
    return lib.tensor(0.7, dtype=lib.float64, requires_grad=True)


def _img(lib, k=0, shape=(1, 2, 3, 3)):
    """An N=1, C=2 image batch (the 2d ops' input); _seq the 1d ops' (N, C, W) one."""
    return _leaf(lib, k, shape)


def _seq(lib, k=0, shape=(1, 2, 3)):
    return _leaf(lib, k, shape)


def _chan(lib, k=0):
    """A per-channel weight or bias (C=2)."""
    return _leaf(lib, k, (2,))


def _stats(lib):
    """Running mean and variance (C=2) that do not require grad (torch refuses them otherwise)."""
    return lib.tensor([0.1, 0.2], dtype=lib.float64), lib.tensor([0.9, 1.1], dtype=lib.float64)


def _fwd(lib, name, *args):
    """The outputs of a forward op on detached inputs (indices, mean, rstd for the backward ops)."""
    with lib.no_grad():
        return _function(lib, name)(*args)


_ALL = [True, True, True]


def _lstm_args(lib, k=0):
    """mkldnn_rnn_layer's tensors (input, w_ih, w_hh, b_ih, b_hh, hx, cx), float32 leaves."""
    shapes = [(2, 1, 3), (8, 3), (8, 2), (8,), (8,), (1, 2), (1, 2)]
    return [lib.tensor(np.resize(BASE + 0.01 * (k + i), s).tolist(), dtype=lib.float32, requires_grad=True)
            for i, s in enumerate(shapes)]


def _lstm_ws(lib):
    # the workspace of the forward (made in grad mode, as upstream's)
    return _function(lib, "mkldnn_rnn_layer")(*_lstm_args(lib), False, [], 2, 2, 1, True, False, False, True)[3]


# schema name (with overload) -> fn(lib, x, y) with x, y float64 3x3 leaves
OVERRIDES = {
    "rsub.Scalar": lambda lib, x, y: 2 - x,
    "pow.Scalar": lambda lib, x, y: lib.pow(2.5, x),
    "dot": lambda lib, x, y: lib.dot(_vec(lib), _vec(lib, 1)),
    "vdot": lambda lib, x, y: lib.vdot(_vec(lib), _vec(lib, 1)),
    "mv": lambda lib, x, y: lib.mv(x, _vec(lib)),
    "addmv": lambda lib, x, y: lib.addmv(_vec(lib, 2), x, _vec(lib), beta=0.5, alpha=2),
    "bmm": lambda lib, x, y: lib.bmm(_batch(lib), _batch(lib, 1)),
    "addbmm": lambda lib, x, y: lib.addbmm(x, _batch(lib), _batch(lib, 1), beta=0.5, alpha=2),
    "baddbmm": lambda lib, x, y: lib.baddbmm(_batch(lib, 2), _batch(lib), _batch(lib, 1), beta=0.5, alpha=2),
    "masked_fill.Tensor": lambda lib, x, y: x.masked_fill(x > 0.5, y.sum()),
    "view": lambda lib, x, y: x.view(9),
    "permute": lambda lib, x, y: x.permute(1, 0),
    "expand": lambda lib, x, y: x[:1].expand(4, 3),
    "slice.Tensor": lambda lib, x, y: x[:, 1:3],
    "index.Tensor": lambda lib, x, y: x[_idx(lib)],
    "alias": lambda lib, x, y: x[...],
    "index_add": lambda lib, x, y: x.index_add(0, _idx(lib), y[:2], alpha=2),
    "index_select": lambda lib, x, y: x.index_select(1, _idx(lib)),
    "fill_.Tensor": lambda lib, x, y: x.clone().fill_(y.sum()),
    "index_put": lambda lib, x, y: x.index_put((_idx(lib),), y[:2]),
    "_to_copy": lambda lib, x, y: x.to(lib.float32),
    "clamp.Tensor": lambda lib, x, y: lib.clamp(x, min=y * 0.5, max=y + 0.2),
    "clamp": lambda lib, x, y: lib.clamp(x, 0.3, 0.6),
    "index_copy": lambda lib, x, y: x.index_copy(0, _idx(lib), y[:2]),
    "index_fill.int_Scalar": lambda lib, x, y: x.index_fill(1, _idx(lib), 0.5),
    "index_fill.int_Tensor": lambda lib, x, y: x.index_fill(1, _idx(lib), y.sum()),
    "repeat": lambda lib, x, y: x.repeat(2, 1),
    "unfold": lambda lib, x, y: x.unfold(1, 2, 1),
    "squeeze_.dim": lambda lib, x, y: x.clone().unsqueeze(0).squeeze_(0),
    "split_with_sizes": lambda lib, x, y: x.split([1, 2]),
    "diagonal_copy": lambda lib, x, y: lib.diagonal_copy(x),
    "put": lambda lib, x, y: x.put(_idx(lib), y[0, :2]),
    "linalg_inv_ex": lambda lib, x, y: lib.linalg.inv_ex(x),
    "linalg_cholesky_ex": lambda lib, x, y: lib.linalg.cholesky_ex(x @ x.mT + lib.eye(3, dtype=lib.float64)),
    "_linalg_det": lambda lib, x, y: lib.linalg.det(x),
    "_linalg_slogdet": lambda lib, x, y: lib.linalg.slogdet(x),
    "_linalg_solve_ex": lambda lib, x, y: lib.linalg.solve(x, y),
    "_linalg_svd": lambda lib, x, y: lib.linalg.svd(x),
    "_linalg_eigh": lambda lib, x, y: lib.linalg.eigh(x + x.mT),
    "linalg_qr": lambda lib, x, y: lib.linalg.qr(x),
    "linalg_pinv.atol_rtol_tensor": lambda lib, x, y: lib.linalg.pinv(x),
    "linalg_lstsq": lambda lib, x, y: lib.linalg.lstsq(x, y),
    "_unique2": lambda lib, x, y: lib.unique(x, return_inverse=True),
    "unique_dim": lambda lib, x, y: lib.unique(x, dim=0),
    # backward ops, built as a double backward records them: the gradient of a view/index taken
    # with create_graph (torch and torchlite alike)
    "select_backward": lambda lib, x, y: _grad_of(lib, x, x[:, 1]),
    "slice_backward": lambda lib, x, y: _grad_of(lib, x, x[:, 0:2]),
    "diagonal_backward": lambda lib, x, y: _grad_of(lib, x, x.diagonal()),
    "_index_put_impl_": lambda lib, x, y: _grad_of(lib, x, x[_idx(lib)]),
    # internal ops reached through reshape: _reshape_alias for a viewable non-contiguous input,
    # _unsafe_view (of a contiguous clone) for one it cannot view
    "_reshape_alias": lambda lib, x, y: x.mT.reshape(3, 1, 3),
    "_unsafe_view": lambda lib, x, y: x.mT.reshape(9),
    "unfold_backward": lambda lib, x, y: _function(lib, "unfold_backward")(_leaf(lib, 0, (3, 2, 2)), [3, 3], 1, 2, 1),
    # the nn ops (python_module: nn and their backward ops): indices as int64, class targets, the
    # reduction an int (Mean), shapes the op needs, and no grad on the arguments torch's entries give
    # no formula (its codegen refuses those)
    "embedding": lambda lib, x, y: _function(lib, "embedding")(x, _classes(lib)),
    "embedding_dense_backward": lambda lib, x, y: _function(lib, "embedding_dense_backward")(
        x, _classes(lib), 3, -1, False),
    "nll_loss_forward": lambda lib, x, y: _function(lib, "nll_loss_forward")(
        x, _classes(lib), _weight(lib), 1, -100),
    "nll_loss2d_forward": lambda lib, x, y: _function(lib, "nll_loss2d_forward")(
        _leaf(lib, 0, (1, 3, 2, 2)), _classes(lib, (1, 2, 2)), _weight(lib), 1, -100),
    "nll_loss_backward": lambda lib, x, y: _function(lib, "nll_loss_backward")(
        _scalar(lib), x, _classes(lib), _weight(lib), 1, -100, lib.tensor(0.9, dtype=lib.float64)),
    "nll_loss2d_backward": lambda lib, x, y: _function(lib, "nll_loss2d_backward")(
        _scalar(lib), _leaf(lib, 0, (1, 3, 2, 2)), _classes(lib, (1, 2, 2)), _weight(lib), 1, -100,
        lib.tensor(0.9, dtype=lib.float64)),
    "soft_margin_loss": lambda lib, x, y: _function(lib, "soft_margin_loss")(x, y.detach(), 1),
    "soft_margin_loss_backward": lambda lib, x, y: _function(lib, "soft_margin_loss_backward")(
        _scalar(lib), x, y.detach(), 1),
    "log_sigmoid_backward": lambda lib, x, y: _function(lib, "log_sigmoid_backward")(
        y, x, lib.exp(-x.detach())),
    "glu": lambda lib, x, y: _function(lib, "glu")(_leaf(lib, 0, (3, 4)), 1),
    "glu_backward": lambda lib, x, y: _function(lib, "glu_backward")(
        _leaf(lib, 1, (3, 2)), _leaf(lib, 0, (3, 4)), 1),
    # the conv family (Convolution, Pooling, Normalization, Padding, UpSample): 4-d (N, C, H, W) inputs
    # for the 2d ops, 3-d for the 1d ones, a grad_output of the forward output's shape for the backward
    # ops, the forward's indices / mean / rstd where a backward op takes them, all of output_mask set
    "convolution": lambda lib, x, y: _function(lib, "convolution")(
        _img(lib), _img(lib, 1, (2, 2, 2, 2)), _chan(lib, 2), [1, 1], [0, 0], [1, 1], False, [0, 0], 1),
    "convolution_backward": lambda lib, x, y: _function(lib, "convolution_backward")(
        _img(lib, 3, (1, 2, 2, 2)), _img(lib), _img(lib, 1, (2, 2, 2, 2)), [2], [1, 1], [0, 0], [1, 1], False,
        [0, 0], 1, _ALL),
    "constant_pad_nd": lambda lib, x, y: _function(lib, "constant_pad_nd")(x, [1, 2], 0.5),
    "max_pool2d_with_indices": lambda lib, x, y: _function(lib, "max_pool2d_with_indices")(
        _img(lib), [2, 2], [1, 1]),
    "max_pool2d_with_indices_backward": lambda lib, x, y: _function(lib, "max_pool2d_with_indices_backward")(
        _img(lib, 1, (1, 2, 2, 2)), _img(lib), [2, 2], [1, 1], [0, 0], [1, 1], False,
        _fwd(lib, "max_pool2d_with_indices", _img(lib), [2, 2], [1, 1])[1]),
    "avg_pool2d": lambda lib, x, y: _function(lib, "avg_pool2d")(_img(lib), [2, 2], [1, 1]),
    "avg_pool2d_backward": lambda lib, x, y: _function(lib, "avg_pool2d_backward")(
        _img(lib, 1, (1, 2, 2, 2)), _img(lib), [2, 2], [1, 1], [0, 0], False, True, None),
    "native_batch_norm": lambda lib, x, y: _function(lib, "native_batch_norm")(
        _img(lib), _chan(lib, 1), _chan(lib, 2), *_stats(lib), True, 0.1, 1e-3),
    "native_layer_norm": lambda lib, x, y: _function(lib, "native_layer_norm")(
        _img(lib), [3, 3], _leaf(lib, 1), _leaf(lib, 2), 1e-3),
    "native_group_norm": lambda lib, x, y: _function(lib, "native_group_norm")(
        _img(lib), _chan(lib, 1), _chan(lib, 2), 1, 2, 9, 1, 1e-3),
    "native_layer_norm_backward": lambda lib, x, y: _function(lib, "native_layer_norm_backward")(
        _img(lib, 3), _img(lib), [3, 3], *_fwd(lib, "native_layer_norm", _img(lib), [3, 3], None, None, 1e-3)[1:],
        _leaf(lib, 1), _leaf(lib, 2), _ALL),
    "native_batch_norm_backward": lambda lib, x, y: _function(lib, "native_batch_norm_backward")(
        _img(lib, 3), _img(lib), _chan(lib, 1), *_stats(lib),
        *_fwd(lib, "native_batch_norm", _img(lib), None, None, None, None, True, 0.1, 1e-3)[1:], True, 1e-3, _ALL),
    "native_group_norm_backward": lambda lib, x, y: _function(lib, "native_group_norm_backward")(
        _img(lib, 3), _img(lib), *_fwd(lib, "native_group_norm", _img(lib), None, None, 1, 2, 9, 1, 1e-3)[1:],
        _chan(lib, 1), 1, 2, 9, 1, _ALL),
    "_adaptive_avg_pool2d": lambda lib, x, y: _function(lib, "_adaptive_avg_pool2d")(_img(lib), [2, 2]),
    "_adaptive_avg_pool2d_backward": lambda lib, x, y: _function(lib, "_adaptive_avg_pool2d_backward")(
        _img(lib, 1, (1, 2, 2, 2)), _img(lib)),
    "reflection_pad1d": lambda lib, x, y: _function(lib, "reflection_pad1d")(_seq(lib), [1, 2]),
    "reflection_pad1d_backward": lambda lib, x, y: _function(lib, "reflection_pad1d_backward")(
        _seq(lib, 1, (1, 2, 6)), _seq(lib), [1, 2]),
    "reflection_pad2d": lambda lib, x, y: _function(lib, "reflection_pad2d")(_img(lib), [1, 2, 2, 1]),
    "reflection_pad2d_backward": lambda lib, x, y: _function(lib, "reflection_pad2d_backward")(
        _img(lib, 1, (1, 2, 6, 6)), _img(lib), [1, 2, 2, 1]),
    "replication_pad1d": lambda lib, x, y: _function(lib, "replication_pad1d")(_seq(lib), [1, 2]),
    "replication_pad1d_backward": lambda lib, x, y: _function(lib, "replication_pad1d_backward")(
        _seq(lib, 1, (1, 2, 6)), _seq(lib), [1, 2]),
    "replication_pad2d": lambda lib, x, y: _function(lib, "replication_pad2d")(_img(lib), [1, 2, 2, 1]),
    "replication_pad2d_backward": lambda lib, x, y: _function(lib, "replication_pad2d_backward")(
        _img(lib, 1, (1, 2, 6, 6)), _img(lib), [1, 2, 2, 1]),
    "upsample_nearest1d": lambda lib, x, y: _function(lib, "upsample_nearest1d")(_seq(lib), [6]),
    "upsample_nearest2d": lambda lib, x, y: _function(lib, "upsample_nearest2d")(_img(lib), [6, 5]),
    "upsample_linear1d": lambda lib, x, y: _function(lib, "upsample_linear1d")(_seq(lib), [6], False),
    "upsample_bilinear2d": lambda lib, x, y: _function(lib, "upsample_bilinear2d")(_img(lib), [6, 5], True),
    "upsample_nearest1d_backward": lambda lib, x, y: _function(lib, "upsample_nearest1d_backward")(
        _seq(lib, 1, (1, 2, 6)), [6], [1, 2, 3]),
    "upsample_nearest2d_backward": lambda lib, x, y: _function(lib, "upsample_nearest2d_backward")(
        _img(lib, 1, (1, 2, 6, 5)), [6, 5], [1, 2, 3, 3]),
    "upsample_linear1d_backward": lambda lib, x, y: _function(lib, "upsample_linear1d_backward")(
        _seq(lib, 1, (1, 2, 6)), [6], [1, 2, 3], False),
    "upsample_bilinear2d_backward": lambda lib, x, y: _function(lib, "upsample_bilinear2d_backward")(
        _img(lib, 1, (1, 2, 6, 5)), [6, 5], [1, 2, 3, 3], True),
    # issue 15 (conv, second part): embedding_bag's ops (weight x, three indices in two bags, per-sample
    # weights y[0]), im2col / col2im, bicubic upsampling, bilinear's _trilinear
    "_embedding_bag": lambda lib, x, y: _function(lib, "_embedding_bag")(
        x, _classes(lib), lib.tensor([0, 1]), False, 0, False, y[0]),
    "_embedding_bag_backward": lambda lib, x, y: _function(lib, "_embedding_bag_backward")(
        _leaf(lib, 1, (2, 3)), _classes(lib), lib.tensor([0, 1]),
        *_fwd(lib, "_embedding_bag", x, _classes(lib), lib.tensor([0, 1]), False, 0, False, y[0])[1:], 3, False, 0,
        False, y[0], -1),
    "_embedding_bag_per_sample_weights_backward": lambda lib, x, y: _function(
        lib, "_embedding_bag_per_sample_weights_backward")(
        _leaf(lib, 1, (2, 3)), x, _classes(lib), lib.tensor([0, 1]),
        _fwd(lib, "_embedding_bag", x, _classes(lib), lib.tensor([0, 1]), False, 0, False, y[0])[1], 0, -1),
    "im2col": lambda lib, x, y: _function(lib, "im2col")(_img(lib), [2, 2], [1, 1], [0, 0], [1, 1]),
    "col2im": lambda lib, x, y: _function(lib, "col2im")(_leaf(lib, 0, (1, 8, 4)), [3, 3], [2, 2], [1, 1], [0, 0],
                                                          [1, 1]),
    "upsample_bicubic2d": lambda lib, x, y: _function(lib, "upsample_bicubic2d")(_img(lib), [6, 5], True),
    "upsample_bicubic2d_backward": lambda lib, x, y: _function(lib, "upsample_bicubic2d_backward")(
        _img(lib, 1, (1, 2, 6, 5)), [6, 5], [1, 2, 3, 3], True),
    "_trilinear": lambda lib, x, y: _function(lib, "_trilinear")(
        _leaf(lib, 0, (2, 3)), _leaf(lib, 1, (4, 3, 5)), _leaf(lib, 2, (2, 5)), [1, 3], [0], [1, 2], [2, 3]),
    # (oneDNN's LSTM layer takes float32: T=2, B=1, I=3, H=2)
    "mkldnn_rnn_layer": lambda lib, x, y: _function(lib, "mkldnn_rnn_layer")(*_lstm_args(lib), False, [], 2, 2, 1,
                                                                             True, False, False, True),
    "mkldnn_rnn_layer_backward": lambda lib, x, y: _function(lib, "mkldnn_rnn_layer_backward")(
        *_lstm_args(lib), *_fwd(lib, "mkldnn_rnn_layer", *_lstm_args(lib), False, [], 2, 2, 1, True, False, False,
                                True)[:3], _lstm_args(lib, 5)[0][..., :2], None, None, False, 2, 2, 1, True, True,
        False, [], False, _lstm_ws(lib)),
    # issue 15 (attn): the fused CPU attention (a causal one with a float mask and a scale) and its backward
    # (torch::autograd::NotImplemented) on that forward's output and logsumexp
    "_scaled_dot_product_flash_attention_for_cpu": lambda lib, x, y: _function(
        lib, "_scaled_dot_product_flash_attention_for_cpu")(
        _img(lib, 0, (1, 2, 3, 4)), _img(lib, 1, (1, 2, 3, 4)), _img(lib, 2, (1, 2, 3, 4)), 0.0, True,
        attn_mask=lib.tensor([[0.0, -1.0, 0.5]] * 3, dtype=lib.float64), scale=0.5),
    "_scaled_dot_product_flash_attention_for_cpu_backward": lambda lib, x, y: _function(
        lib, "_scaled_dot_product_flash_attention_for_cpu_backward")(
        _img(lib, 3, (1, 2, 3, 4)), _img(lib, 0, (1, 2, 3, 4)), _img(lib, 1, (1, 2, 3, 4)), _img(lib, 2, (1, 2, 3, 4)),
        *_fwd(lib, "_scaled_dot_product_flash_attention_for_cpu", _img(lib, 0, (1, 2, 3, 4)),
              _img(lib, 1, (1, 2, 3, 4)), _img(lib, 2, (1, 2, 3, 4)), 0.0, True), 0.0, True),
}

# every entry builds in torch today (its backward ops through torch.ops.aten or a double backward)
NOT_BUILT: dict = {}

KNOWN_DIFFERENCES: dict = {
    # _saved_result3 is the workspace, a uint8 buffer in oneDNN's layout (its size is oneDNN's); float32
    # values differ from oneDNN's in the last bits. tests/python/test_lstm_fused.py compares the other
    # fields within float32 rounding, and the workspace's dtype and rank.
    "mkldnn_rnn_layer": "the workspace's size is oneDNN's layout",
}


def _key(schema):
    return schema.split("(")[0]


def _call(lib, schema):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        key = _key(schema)
        if key in OVERRIDES:
            return OVERRIDES[key](lib, _leaf(lib), _leaf(lib, 1))
        return _generic_call(lib, schema)


def _node(out):
    for o in out if isinstance(out, (tuple, list)) else (out,):
        if getattr(o, "grad_fn", None) is not None:
            return o.grad_fn
    return None


def _value(v):
    if isinstance(v, (torch.Tensor, torchlite.Tensor)):
        a = v.detach().numpy()
        values = np.round(a, 8) if a.dtype.kind == "f" else a
        return ("tensor", str(v.dtype).split(".")[-1], tuple(v.shape), values.tolist())
    if isinstance(v, (tuple, list)):
        return tuple(_value(x) for x in v)
    if isinstance(v, float):
        return round(v, 10)
    return v


def _fields(node):
    out = {}
    for name in sorted(n for n in dir(node) if n.startswith("_saved_")):
        try:
            out[name] = _value(getattr(node, name))
        except Exception as e:  # noqa: BLE001 - the error is what is compared
            out[name] = ("raised", type(e).__name__)
    return out


def _observe(lib, schema):
    """The node's name and fields, or the exception building it raised."""
    try:
        node = _node(_call(lib, schema))
    except Exception as e:  # noqa: BLE001
        return ("raised", type(e).__name__, str(e))
    if node is None:
        return ("no node",)
    return (node.name(), _fields(node))


SCHEMAS = _schemas()


def test_not_built_lists_exactly_the_ops_torch_cannot_run_here():
    """NOT_BUILT holds the table's ops whose generated call records no node in torch, and no other."""
    unbuilt = {_key(s) for s in SCHEMAS if _observe(torch, s)[0] in ("raised", "no node")}
    assert unbuilt == set(NOT_BUILT)
    assert set(KNOWN_DIFFERENCES) <= {_key(s) for s in SCHEMAS} and not set(KNOWN_DIFFERENCES) & set(NOT_BUILT)
    assert set(OVERRIDES) <= {_key(s) for s in SCHEMAS}


@pytest.mark.parametrize("schema", [s for s in SCHEMAS if _key(s) not in NOT_BUILT], ids=_key)
def test_saved_fields_as_torch(schema):
    ours, theirs = _observe(torchlite, schema), _observe(torch, schema)
    if _key(schema) in KNOWN_DIFFERENCES:
        assert ours != theirs, f"{_key(schema)} now matches torch: remove its KNOWN_DIFFERENCES entry"
    else:
        assert ours == theirs


# the refusals the walk's overrides step around, compared with torch's (the op called as in the walk)
REFUSALS = {
    "embedding_dense_backward": lambda lib, x, y: _function(lib, "embedding_dense_backward")(x, y, 3, -1, False),
    "soft_margin_loss_backward": lambda lib, x, y: _function(lib, "soft_margin_loss_backward")(_scalar(lib), x, y, 1),
    "log_sigmoid_backward": lambda lib, x, y: _function(lib, "log_sigmoid_backward")(y, x, lib.exp(-x)),
    "nll_loss_forward": lambda lib, x, y: _function(lib, "nll_loss_forward")(x, _classes(lib), y[0], 1, -100),
    "nll_loss2d_forward": lambda lib, x, y: _function(lib, "nll_loss2d_forward")(
        _leaf(lib, 0, (1, 3, 2, 2)), _classes(lib, (1, 2, 2)), y[0], 1, -100),
    "nll_loss_backward.weight": lambda lib, x, y: _function(lib, "nll_loss_backward")(
        _scalar(lib), x, _classes(lib), y[0], 1, -100, lib.tensor(0.9, dtype=lib.float64)),
    "nll_loss_backward.total_weight": lambda lib, x, y: _function(lib, "nll_loss_backward")(
        _scalar(lib), x, _classes(lib), None, 1, -100, _scalar(lib)),
    "nll_loss2d_backward": lambda lib, x, y: _function(lib, "nll_loss2d_backward")(
        _scalar(lib), _leaf(lib, 0, (1, 3, 2, 2)), _classes(lib, (1, 2, 2)), y[0], 1, -100,
        lib.tensor(0.9, dtype=lib.float64)),
    "nll_loss (weight requires grad)": lambda lib, x, y: lib.nn.functional.nll_loss(x, _classes(lib), y[0]),
    "cross_entropy (weight requires grad)": lambda lib, x, y: lib.nn.functional.cross_entropy(
        x, _classes(lib), y[0]),
    "glu": lambda lib, x, y: _function(lib, "glu")(x, 1),
}


@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_refusals_as_torch(name):
    def observe(lib):
        try:
            REFUSALS[name](lib, _leaf(lib), _leaf(lib, 1))
        except Exception as e:  # noqa: BLE001 - the error is what is compared
            return type(e).__name__, str(e)
        return None
    theirs = observe(torch)
    assert theirs is not None and observe(torchlite) == theirs


# the conv family's saved values the walk's overrides do not reach: ConvolutionBackward0's
# bias_sym_sizes_opt without a bias ((0,) from the conv*/conv_transpose* wrappers, None from convolution
# itself), and the zeros a pad/pool backward op's node gives its self from the TypeAndSize it keeps
def _conv_no_bias(lib, dev):
    F = lib.nn.functional
    x = lib.ones(1, 2, 4, 4, dtype=lib.float64, device=dev)
    w = lib.ones(2, 2, 2, 2, dtype=lib.float64, device=dev, requires_grad=True)
    return [F.conv2d(x, w).grad_fn._saved_bias_sym_sizes_opt,
            F.conv1d(x[:, :, 0], w[:, :, 0]).grad_fn._saved_bias_sym_sizes_opt,
            F.conv_transpose2d(x, w).grad_fn._saved_bias_sym_sizes_opt,
            F.conv2d(x, w, padding="same").grad_fn._saved_bias_sym_sizes_opt,
            lib.convolution(x, w, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1).grad_fn._saved_bias_sym_sizes_opt]


def _self_zeros(lib, dev):
    x = _img(lib).to(dev).detach().requires_grad_()
    g = _img(lib, 1, (1, 2, 6, 6)).to(dev).detach().requires_grad_()
    out = _function(lib, "reflection_pad2d_backward")(g, x, [1, 2, 2, 1])
    gx, gg = lib.autograd.grad((out * out).sum(), (x, g), materialize_grads=True)
    return [(str(t.dtype).split(".")[-1], tuple(t.shape), str(t.device).replace("sim:0", "cpu"),
             np.round(t.detach().cpu().numpy(), 8).tolist()) for t in (gx, gg)]


@pytest.mark.parametrize("dev", ["cpu", "sim:0"])
@pytest.mark.parametrize("case", [_conv_no_bias, _self_zeros], ids=lambda c: c.__name__)
def test_conv_saved_values_as_torch(case, dev):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert case(torchlite, dev) == case(torch, "cpu")
