"""Each op's gradient against its analytic numpy formula and finite differences,
and second derivatives through create_graph=True."""
import numpy as np
import pytest

import torchlite as torch

rng = np.random.default_rng(0)


def leaf(arr):
    return torch.tensor(np.asarray(arr, dtype=np.float64), requires_grad=True)


def numerical_grad(f, arrays, eps=1e-6):
    """d(sum(f))/d(arrays[i]) by central differences."""
    grads = []
    for i, a in enumerate(arrays):
        g = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            plus = [x.copy() for x in arrays]
            minus = [x.copy() for x in arrays]
            plus[i][idx] += eps
            minus[i][idx] -= eps
            g[idx] = (f(*plus).sum() - f(*minus).sum()) / (2 * eps)
        grads.append(g)
    return grads


UNARY = [
    ("exp", lambda t: t.exp(), np.exp, lambda x: np.exp(x), "ExpBackward0"),
    ("log", lambda t: t.log(), np.log, lambda x: 1 / x, "LogBackward0"),
    ("sin", lambda t: t.sin(), np.sin, np.cos, "SinBackward0"),
    ("cos", lambda t: t.cos(), np.cos, lambda x: -np.sin(x), "CosBackward0"),
    ("tanh", lambda t: t.tanh(), np.tanh, lambda x: 1 - np.tanh(x) ** 2, "TanhBackward0"),
    ("sigmoid", lambda t: t.sigmoid(), lambda x: 1 / (1 + np.exp(-x)),
     lambda x: np.exp(-x) / (1 + np.exp(-x)) ** 2, "SigmoidBackward0"),
    ("relu", lambda t: t.relu(), lambda x: np.maximum(x, 0), lambda x: (x > 0).astype(x.dtype), "ReluBackward0"),
    ("abs", lambda t: t.abs(), np.abs, np.sign, "AbsBackward0"),
    ("sqrt", lambda t: t.sqrt(), np.sqrt, lambda x: 0.5 / np.sqrt(x), "SqrtBackward0"),
    ("neg", lambda t: -t, np.negative, lambda x: -np.ones_like(x), "NegBackward0"),
    ("pow3", lambda t: t ** 3, lambda x: x ** 3, lambda x: 3 * x ** 2, "PowBackward0"),
    ("rpow", lambda t: 2 ** t, lambda x: 2 ** x, lambda x: np.log(2) * 2 ** x, "PowBackward2"),
    ("rdiv", lambda t: 1 / t, lambda x: 1 / x, lambda x: -1 / x ** 2, "MulBackward0"),
]


@pytest.mark.parametrize("name,op,fwd,deriv,node", UNARY, ids=[u[0] for u in UNARY])
def test_unary(name, op, fwd, deriv, node):
    x0 = rng.uniform(0.5, 2.0, size=(3, 4)) * (1 if name in ("log", "sqrt") else rng.choice([-1, 1], (3, 4)))
    x = leaf(x0)
    y = op(x)
    assert y.grad_fn.name() == node
    np.testing.assert_allclose(y.detach().numpy(), fwd(x0), rtol=1e-12)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), deriv(x0), rtol=1e-10)
    np.testing.assert_allclose(x.grad.numpy(), numerical_grad(fwd, [x0])[0], rtol=1e-5, atol=1e-7)


BINARY = [
    ("add", lambda a, b: a + b, lambda a, b: a + b, "AddBackward0"),
    ("sub", lambda a, b: a - b, lambda a, b: a - b, "SubBackward0"),
    ("mul", lambda a, b: a * b, lambda a, b: a * b, "MulBackward0"),
    ("div", lambda a, b: a / b, lambda a, b: a / b, "DivBackward0"),
    ("pow", lambda a, b: a ** b, lambda a, b: a ** b, "PowBackward1"),
]


@pytest.mark.parametrize("name,op,fwd,node", BINARY, ids=[b[0] for b in BINARY])
@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1, 4), (3, 1))])
def test_binary_broadcasting(name, op, fwd, node, shapes):
    a0 = rng.uniform(0.5, 2.0, size=shapes[0])
    b0 = rng.uniform(0.5, 2.0, size=shapes[1])
    a, b = leaf(a0), leaf(b0)
    y = op(a, b)
    assert y.grad_fn.name() == node
    y.sum().backward()
    ga, gb = numerical_grad(fwd, [a0, b0])
    assert a.grad.shape == a.shape and b.grad.shape == b.shape
    np.testing.assert_allclose(a.grad.numpy(), ga, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(b.grad.numpy(), gb, rtol=1e-5, atol=1e-7)


def test_mul_analytic_and_reflected_scalars():
    x0 = rng.normal(size=5)
    x = leaf(x0)
    y = (2 * x + 1 - 3 / (x * x + 4)) * 0.5
    y.sum().backward()
    expected = 0.5 * (2 + 6 * x0 / (x0 ** 2 + 4) ** 2)
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-10)
    assert (5 - x).grad_fn.name() == "RsubBackward1"


@pytest.mark.parametrize("sa,sb,node", [((3, 4), (4, 2), "MmBackward0"), ((4,), (4,), "DotBackward0"),
                                        ((3, 4), (4,), "MvBackward0"), ((2, 3, 4), (4, 5), "UnsafeViewBackward0"),
                                        ((4,), (4, 2), "SqueezeBackward4")])
def test_matmul(sa, sb, node):
    a0, b0 = rng.normal(size=sa), rng.normal(size=sb)
    a, b = leaf(a0), leaf(b0)
    y = a @ b
    assert y.grad_fn.name() == node
    np.testing.assert_allclose(y.detach().numpy(), a0 @ b0, rtol=1e-12)
    y.sum().backward()
    ga, gb = numerical_grad(lambda p, q: np.asarray(p @ q), [a0, b0])
    np.testing.assert_allclose(a.grad.numpy(), ga, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(b.grad.numpy(), gb, rtol=1e-5, atol=1e-7)


def test_matmul_shape_error():
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 2x3\)"):
        torch.ones(2, 3) @ torch.ones(2, 3)


REDUCTIONS = [
    ("sum", lambda t: t.sum(), lambda x: x.sum(), "SumBackward0"),
    ("sum_dim", lambda t: t.sum(1), lambda x: x.sum(1), "SumBackward1"),
    ("sum_keepdim", lambda t: t.sum((0, 2), keepdim=True), lambda x: x.sum((0, 2), keepdims=True), "SumBackward1"),
    ("mean", lambda t: t.mean(), lambda x: x.mean(), "MeanBackward0"),
    ("mean_dim", lambda t: t.mean(-1), lambda x: x.mean(-1), "MeanBackward1"),
    ("max", lambda t: t.max(), lambda x: x.max(), "MaxBackward1"),
    ("min", lambda t: t.min(), lambda x: x.min(), "MinBackward1"),
    ("max_dim", lambda t: t.max(1).values, lambda x: x.max(1), "MaxBackward0"),
    ("min_dim_keep", lambda t: t.min(0, keepdim=True)[0], lambda x: x.min(0, keepdims=True), "MinBackward0"),
]


@pytest.mark.parametrize("name,op,fwd,node", REDUCTIONS, ids=[r[0] for r in REDUCTIONS])
def test_reductions(name, op, fwd, node):
    x0 = rng.normal(size=(2, 3, 4))
    x = leaf(x0)
    y = op(x)
    assert y.grad_fn.name() == node
    np.testing.assert_allclose(y.detach().numpy(), fwd(x0), rtol=1e-12)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), numerical_grad(fwd, [x0])[0], rtol=1e-5, atol=1e-7)


def test_max_dim_returns_indices():
    x = torch.tensor([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]], requires_grad=True)
    values, indices = x.max(1)
    assert indices.tolist() == [1, 0]
    assert indices.dtype is torch.int64 and not indices.requires_grad
    values.sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]


SHAPE_OPS = [
    ("reshape", lambda t: t.reshape(4, 6), lambda x: x.reshape(4, 6), "ViewBackward0"),
    ("view", lambda t: t.view(-1), lambda x: x.reshape(-1), "ViewBackward0"),
    ("transpose", lambda t: t.transpose(0, 2), lambda x: x.swapaxes(0, 2), "TransposeBackward0"),
    ("permute", lambda t: t.permute(2, 0, 1), lambda x: x.transpose(2, 0, 1), "PermuteBackward0"),
    ("T", lambda t: t.T, lambda x: x.transpose(2, 1, 0), "PermuteBackward0"),
    ("unsqueeze", lambda t: t.unsqueeze(1), lambda x: x[:, None], "UnsqueezeBackward0"),
    ("squeeze", lambda t: t.unsqueeze(0).squeeze(), lambda x: x, "SqueezeBackward0"),
    ("squeeze_dim", lambda t: t.unsqueeze(0).squeeze(0), lambda x: x, "SqueezeBackward1"),
    ("expand", lambda t: t[:, :1].expand(2, 3, 4), lambda x: np.broadcast_to(x[:, :1], (2, 3, 4)),
     "ExpandBackward0"),
    ("select", lambda t: t[1], lambda x: x[1], "SelectBackward0"),
    ("slice", lambda t: t[0:1], lambda x: x[0:1], "SliceBackward0"),
    ("index", lambda t: t[:, [0, 2, 2]], lambda x: x[:, [0, 2, 2]], "IndexBackward0"),
    ("clone", lambda t: t.clone(), lambda x: x.copy(), "CloneBackward0"),
    ("contiguous", lambda t: t.transpose(0, 1).contiguous(), lambda x: x.swapaxes(0, 1), "CloneBackward0"),
]


@pytest.mark.parametrize("name,op,fwd,node", SHAPE_OPS, ids=[s[0] for s in SHAPE_OPS])
def test_shape_ops(name, op, fwd, node):
    x0 = rng.normal(size=(2, 3, 4))
    x = leaf(x0)
    y = op(x)
    assert y.grad_fn.name() == node
    np.testing.assert_allclose(y.detach().numpy(), fwd(x0))
    w0 = rng.normal(size=y.shape)
    (y * torch.tensor(w0)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), numerical_grad(lambda x: fwd(x) * w0, [x0])[0], rtol=1e-5,
                               atol=1e-7)


def test_views_share_memory_and_version():
    x = torch.zeros(2, 3)
    v = x.view(6)
    v[0] = 5.0
    assert x[0, 0].item() == 5.0
    assert x._version == v._version == 1


def test_stack_cat_where():
    a0, b0 = rng.normal(size=(2, 3)), rng.normal(size=(2, 3))
    a, b = leaf(a0), leaf(b0)
    s = torch.stack([a, b], dim=1)
    assert s.shape == (2, 2, 3) and s.grad_fn.name() == "StackBackward0"
    (s * torch.tensor(np.arange(12.0).reshape(2, 2, 3))).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), np.arange(12.0).reshape(2, 2, 3)[:, 0])
    a.grad = None
    c = torch.cat([a, b], 0)
    assert c.shape == (4, 3) and c.grad_fn.name() == "CatBackward0"
    (c * c).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), 2 * a0)
    a.grad = b.grad = None
    w = torch.where(a > b, a, b)
    assert w.grad_fn.name() == "WhereBackward0"
    w.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), (a0 > b0).astype(float))
    np.testing.assert_allclose(b.grad.numpy(), (a0 <= b0).astype(float))


def test_inplace_ops_and_version_counter():
    x = leaf([1.0, 2.0])
    y = x * 1
    v0 = y._version
    y.add_(torch.tensor([1.0, 1.0], dtype=torch.float64))
    y.mul_(3)
    assert y._version == v0 + 2
    assert y.grad_fn.name() == "MulBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    z = x * 1
    z.zero_()
    assert z.grad_fn.name() == "ZeroBackward0"
    assert z.tolist() == [0.0, 0.0]


def test_inplace_on_leaf_requiring_grad_errors():
    x = leaf([1.0])
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place "
                                           "operation."):
        x.add_(1)
    with torch.no_grad():
        x.add_(1)
    assert x.tolist() == [2.0]


def test_inplace_modification_of_saved_tensor_detected():
    a = leaf([1.0, 2.0])
    b = a * 1
    c = b.exp()  # saves its output
    c.mul_(2)
    with pytest.raises(RuntimeError, match=r"one of the variables needed for gradient computation has been "
                                           r"modified by an inplace operation: \[torch.DoubleTensor \[2\]\], "
                                           r"which is output 0 of Exp, is at version 1; expected "
                                           r"version 0 instead"):
        c.sum().backward()


@pytest.mark.parametrize("name,op,fwd,deriv,node", UNARY, ids=[u[0] for u in UNARY])
def test_second_derivative_unary(name, op, fwd, deriv, node):
    x0 = rng.uniform(0.5, 2.0, size=4)
    x = leaf(x0)
    (g,) = torch.autograd.grad(op(x).sum(), x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), deriv(x0), rtol=1e-10)
    if name in ("relu", "abs", "neg"):
        return  # piecewise linear: the second derivative is 0 (or undefined)
    (gg,) = torch.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(gg.numpy(), numerical_grad(deriv, [x0])[0], rtol=1e-5, atol=1e-6)


def test_second_derivative_through_broadcast_and_matmul():
    a0, b0 = rng.normal(size=(3, 4)), rng.normal(size=(4,))
    a, b = leaf(a0), leaf(b0)
    y = ((a * b).sum(1) ** 2).sum()
    (ga, gb) = torch.autograd.grad(y, (a, b), create_graph=True)
    (ggb,) = torch.autograd.grad(gb.sum(), b)
    f = lambda b: np.array([(2 * (a0 @ b) @ a0).sum()])  # noqa: E731 - d y / d b summed
    np.testing.assert_allclose(ggb.numpy(), numerical_grad(f, [b0])[0], rtol=1e-5, atol=1e-6)


def test_dtype_rules():
    f32 = torch.ones(2)
    assert (f32 * 2).dtype is torch.float32
    assert (f32 + torch.ones(2, dtype=torch.float64)).dtype is torch.float64
    assert (torch.tensor([1, 2]) / torch.tensor([2, 2])).dtype is torch.float32
    assert (torch.tensor([1, 2]) * 2.5).dtype is torch.float32
    assert torch.tensor([1, 2]).exp().dtype is torch.float32
    assert torch.tensor([True, False]).sum().dtype is torch.int64
