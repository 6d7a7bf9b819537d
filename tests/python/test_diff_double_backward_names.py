"""The graphs that derivative formulas record under create_graph=True, against torch's:
every op's first-order gradients have torch's node names along their grad_fn chains
(formulas call torch's C++ ops: mul.Scalar records MulBackward1, tanh_backward
TanhBackwardBackward0, ...), and the same values, at first and second order."""
import numpy as np
import pytest

import torchlite

from diff_utils import import_torch

torch = import_torch()

DEPTH = 5


def _dbl(*shape):
    return ("dbl", shape)


def _dbl32(*shape):
    return ("dbl32", shape)


def _pos(*shape):
    return ("pos", shape)


def _distinct(*shape):
    return ("distinct", shape)


def _setitem(a, key, value):
    c = a.clone()
    c[key] = value
    return c


CASES = [
    ("add", lambda T, a, b: a + b, (_dbl(2, 3), _dbl(3))),
    ("add_alpha", lambda T, a, b: T.add(a, b, alpha=2.5), (_dbl(2, 3), _dbl(2, 1))),
    ("add_scalar", lambda T, a: a + 1.5, (_dbl(2, 3),)),
    ("sub", lambda T, a, b: a - b, (_dbl(2, 3), _dbl(1, 3))),
    ("sub_alpha", lambda T, a, b: T.sub(a, b, alpha=0.5), (_dbl(2, 3), _dbl(2, 3))),
    ("rsub", lambda T, a: 2.0 - a, (_dbl(3),)),
    ("mul", lambda T, a, b: a * b, (_dbl(2, 3), _dbl(2, 1))),
    ("mul_scalar", lambda T, a: a * 3.0, (_dbl(2, 3),)),
    ("mul_float32_float64", lambda T, a, b: a * b, (_dbl32(2, 3), _dbl(3))),
    ("div_float32_float64", lambda T, a, b: a / b, (_dbl32(2, 3), _dbl(3))),
    ("where_float32_float64", lambda T, a, b: T.where(a > 0.0, a, b), (_dbl32(2, 3), _dbl(3))),
    ("tanh_float32", lambda T, a: T.tanh(a), (_dbl32(2, 3),)),
    ("sigmoid_float32", lambda T, a: T.sigmoid(a), (_dbl32(2, 3),)),
    ("div", lambda T, a, b: a / b, (_dbl(2, 3), _pos(3))),
    ("div_scalar", lambda T, a: a / 4.0, (_dbl(2, 3),)),
    ("rdiv", lambda T, a: 2.0 / a, (_pos(2, 3),)),
    ("neg", lambda T, a: -a, (_dbl(2, 3),)),
    ("exp", lambda T, a: T.exp(a), (_dbl(2, 3),)),
    ("log", lambda T, a: T.log(a), (_pos(2, 3),)),
    ("sin", lambda T, a: T.sin(a), (_dbl(2, 3),)),
    ("cos", lambda T, a: T.cos(a), (_dbl(2, 3),)),
    ("tanh", lambda T, a: T.tanh(a), (_dbl(2, 3),)),
    ("sigmoid", lambda T, a: T.sigmoid(a), (_dbl(2, 3),)),
    ("relu", lambda T, a: T.relu(a), (_dbl(2, 3),)),
    ("abs", lambda T, a: T.abs(a), (_dbl(2, 3),)),
    ("sqrt", lambda T, a: T.sqrt(a), (_pos(2, 3),)),
    ("reciprocal", lambda T, a: T.reciprocal(a), (_pos(2, 3),)),
    ("pow_scalar", lambda T, a: a ** 3, (_dbl(2, 3),)),
    ("pow_half", lambda T, a: a ** 0.5, (_pos(2, 3),)),
    ("pow_zero", lambda T, a: a ** 0, (_dbl(2, 3),)),
    ("pow_tensor", lambda T, a, b: a ** b, (_pos(2, 3), _dbl(3))),
    ("rpow", lambda T, a: 2.0 ** a, (_dbl(2, 3),)),
    ("rpow_zero_base", lambda T, a: 0.0 ** a, (_pos(2, 3),)),
    ("sum_dim_0d", lambda T, a: a.sum(0), (_dbl(),)),
    ("mean_dims", lambda T, a: a.mean((0, 2)), (_dbl(2, 3, 2),)),
    ("mm", lambda T, a, b: a @ b, (_dbl(2, 3), _dbl(3, 2))),
    ("mm_column_major", lambda T, a, b: a.t() @ b.t(), (_dbl(3, 2), _dbl(4, 3))),
    ("dot", lambda T, a, b: a @ b, (_dbl(3), _dbl(3))),
    ("mv", lambda T, a, b: a @ b, (_dbl(2, 3), _dbl(3))),
    ("bmm", lambda T, a, b: a @ b, (_dbl(2, 2, 3), _dbl(2, 3, 2))),
    ("bmm_folded", lambda T, a, b: a @ b, (_dbl(2, 2, 3), _dbl(3, 2))),
    ("vec_mat", lambda T, a, b: a @ b, (_dbl(3), _dbl(3, 2))),
    ("sum", lambda T, a: a.sum(), (_dbl(2, 3),)),
    ("sum_dim", lambda T, a: a.sum(1), (_dbl(2, 3),)),
    ("sum_dims", lambda T, a: a.sum((0, 2)), (_dbl(2, 3, 2),)),
    ("sum_keepdim", lambda T, a: a.sum((0, 2), keepdim=True), (_dbl(2, 3, 2),)),
    ("mean", lambda T, a: a.mean(), (_dbl(2, 3),)),
    ("mean_dim", lambda T, a: a.mean(-1), (_dbl(2, 3),)),
    ("mean_keepdim", lambda T, a: a.mean(0, keepdim=True), (_dbl(2, 3),)),
    ("max", lambda T, a: a.max(), (_distinct(2, 3),)),
    ("min", lambda T, a: a.min(), (_distinct(2, 3),)),
    ("max_dim", lambda T, a: a.max(1).values, (_distinct(2, 3),)),
    ("min_dim_keepdim", lambda T, a: a.min(0, keepdim=True).values, (_distinct(2, 3),)),
    ("max_dim_0d", lambda T, a: a.max(0).values, (_distinct(),)),
    ("view", lambda T, a: a.view(3, 2), (_dbl(2, 3),)),
    ("reshape_copy", lambda T, a: a.t().reshape(6), (_dbl(2, 3),)),
    ("transpose", lambda T, a: a.transpose(0, 2), (_dbl(2, 3, 2),)),
    ("t", lambda T, a: a.t(), (_dbl(2, 3),)),
    ("t_1d", lambda T, a: a.t(), (_dbl(3),)),
    ("permute", lambda T, a: a.permute(2, 0, 1), (_dbl(2, 3, 2),)),
    ("unsqueeze", lambda T, a: a.unsqueeze(1), (_dbl(2, 3),)),
    ("squeeze", lambda T, a: a.squeeze(), (_dbl(1, 2, 1, 3),)),
    ("squeeze_dim", lambda T, a: a.squeeze(2), (_dbl(1, 3, 1),)),
    ("squeeze_dim_noop", lambda T, a: a.squeeze(1), (_dbl(2, 3),)),
    ("expand", lambda T, a: a.expand(2, 3, 3), (_dbl(3, 1),)),
    ("clone", lambda T, a: a.clone(), (_dbl(2, 3),)),
    ("select", lambda T, a: a[1], (_dbl(3, 2),)),
    ("slice", lambda T, a: a[1:], (_dbl(3, 2),)),
    ("index_advanced", lambda T, a: a[T.tensor([0, 2, 0])], (_dbl(3, 2),)),
    ("index_mask", lambda T, a: a[a > 0.0], (_dbl(3, 2),)),
    ("narrow", lambda T, a: a.narrow(1, 1, 2), (_dbl(2, 3),)),
    ("split", lambda T, a: a.split(2, 1)[1], (_dbl(2, 3),)),
    ("unbind", lambda T, a: a.unbind(1)[0], (_dbl(2, 3),)),
    ("stack", lambda T, a, b: T.stack([a, b], 1), (_dbl(2, 3), _dbl(2, 3))),
    ("cat", lambda T, a, b: T.cat([a, b], 0), (_dbl(2, 3), _dbl(1, 3))),
    ("where", lambda T, a, b: T.where(a > b, a, b), (_dbl(2, 3), _dbl(3))),
    ("setitem_advanced", lambda T, a, b: _setitem(a, T.tensor([0, 2]), b), (_dbl(3, 2), _dbl(2))),
    ("setitem_mask", lambda T, a, b: _setitem(a, a > 0.0, b), (_dbl(3, 2), _dbl())),
    ("mul_", lambda T, a, b: a.clone().mul_(b), (_dbl(2, 3), _dbl(3))),
    ("div_", lambda T, a, b: a.clone().div_(b), (_dbl(2, 3), _pos(3))),
    ("div_scalar_", lambda T, a: a.clone().div_(2.0), (_dbl(2, 3),)),
    ("copy_", lambda T, a, b: a.clone().copy_(b), (_dbl(2, 3), _dbl(3))),
    ("copy_float32_broadcast", lambda T, a, b: a.clone().copy_(b), (_dbl(2, 3), _dbl32(3))),
    ("fill_tensor_", lambda T, a, b: a.clone().fill_(b), (_dbl(2, 3), _dbl())),
    ("zero_", lambda T, a: a.clone().zero_() + a, (_dbl(2, 3),)),
]


def _arrays(specs, seed):
    rng = np.random.default_rng(seed)
    out = []
    for kind, shape in specs:
        if kind in ("dbl", "dbl32"):
            a = rng.uniform(-2.0, 2.0, size=shape)
            out.append(a.astype(np.float32) if kind == "dbl32" else a)
        elif kind == "pos":
            out.append(rng.uniform(0.5, 2.0, size=shape))
        else:
            out.append(rng.permutation(np.arange(int(np.prod(shape)), dtype=np.float64)).reshape(shape) * 0.5)
    return out


def _tree(node, depth):
    """A node's name and, `depth` levels down, its next functions' (None for an empty edge)."""
    if node is None:
        return None
    if depth == 0:
        return node.name()
    return (node.name(), [_tree(n, depth - 1) for n, _ in node.next_functions])


def _run(T, fn, arrays, grad_outputs):
    """First-order gradients with create_graph (a grad_output that requires grad, so the
    formulas' whole graph is recorded), then the second-order ones of their weighted sum."""
    xs = [T.tensor(a, requires_grad=True) for a in arrays]
    out = fn(T, *xs)
    go = T.tensor(grad_outputs[0], dtype=out.dtype, requires_grad=True)
    grads = T.autograd.grad(out, xs, go, create_graph=True, allow_unused=True)
    names = [None if g is None else _tree(g.grad_fn, DEPTH) for g in grads]
    values = [None if g is None else g.detach().numpy().copy() for g in grads]
    used = [(g, w) for g, w in zip(grads, grad_outputs[1:], strict=True) if g is not None and g.requires_grad]
    second = []
    if used:
        total = sum((g * T.tensor(w, dtype=g.dtype)).sum() for g, w in used)
        gg = T.autograd.grad(total, xs + [go], allow_unused=True, create_graph=True)
        names.append([None if g is None else _tree(g.grad_fn, 2) for g in gg])
        second = [None if g is None else g.detach().numpy(force=True).copy() for g in gg]
    return names, values, second


def _same(a, b):
    return len(a) == len(b) and all(
        (x is None) == (y is None) and (x is None or (x.shape == y.shape and np.allclose(x, y, equal_nan=True)))
        for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("fn,specs", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_create_graph_gradients_record_torchs_nodes(fn, specs):
    arrays = _arrays(specs, len(specs) + len(specs[0][1]))
    out_shape = tuple(fn(torch, *[torch.tensor(a) for a in arrays]).shape)
    rng = np.random.default_rng(7)
    grad_outputs = [rng.uniform(-2.0, 2.0, size=out_shape)] + [rng.uniform(-2.0, 2.0, size=a.shape) for a in arrays]
    t_names, t_values, t_second = _run(torch, fn, arrays, grad_outputs)
    l_names, l_values, l_second = _run(torchlite, fn, arrays, grad_outputs)
    assert l_names == t_names
    assert _same(l_values, t_values)
    assert _same(l_second, t_second)
