"""Differential tests of the ops against PyTorch: the same program runs under
`torch` and `torchlite` and must give the same values, dtypes, grad_fn names
(including the node chain torch builds for a composite op such as matmul or
basic indexing), first derivatives (with grad_outputs) and second derivatives
(create_graph=True, autograd.grad of a grad), in float32 and float64, with
broadcasting.

Deliberate differences: torchlite prints its own names ("torchlite.float32",
"torchlite.Size"); dtypes are compared by their name without the module prefix.
The grad_fn names of the nodes built *by the derivative formulas* (the graph of
a gradient under create_graph=True) are not compared: torchlite writes its
formulas with its own differentiable ops, torch with dedicated backward ops
(TanhBackwardBackward0, ...); their values are compared.
"""
import numpy as np
import pytest

import torchlite

from diff_utils import import_torch

torch = import_torch()

TOL = {np.float32: dict(rtol=2e-6, atol=1e-6), np.float64: dict(rtol=1e-12, atol=1e-12)}


def dtype_name(t):
    return str(t.dtype).split(".")[-1]


def node_chain(t):
    """grad_fn names from t along the first next_functions edge down to a leaf."""
    names, fn = [], t.grad_fn
    while fn is not None:
        names.append(fn.name().replace("torch::autograd::", ""))
        fn = fn.next_functions[0][0] if fn.next_functions else None
    return names


def outcome(thunk):
    try:
        return ("ok", thunk())
    except Exception as err:  # noqa: BLE001 - compared between libraries
        return ("raise", type(err).__name__, str(err).replace("torchlite", "torch"))


def as_np(t):
    return None if t is None else t.detach().numpy(force=True).copy()


def run_program(lib, fn, arrays, gout, gvec):
    """Forward, first derivatives with grad_outputs (create_graph=True) and second derivatives."""
    xs = [lib.tensor(a, requires_grad=True) for a in arrays]
    out = fn(lib, *xs)
    rec = {"value": as_np(out), "dtype": dtype_name(out), "shape": tuple(out.shape),
           "chain": node_chain(out), "requires_grad": out.requires_grad, "is_leaf": out.is_leaf}
    w = lib.tensor(gout.astype(rec["value"].dtype), requires_grad=True)
    first = outcome(lambda: lib.autograd.grad(out, xs, grad_outputs=w, create_graph=True, allow_unused=True))
    rec["first"] = first[:1] + first[2:] if first[0] == "raise" else None
    if first[0] == "ok":
        grads = first[1]
        rec["grads"] = [as_np(g) for g in grads]
        rec["grad_dtypes"] = [None if g is None else dtype_name(g) for g in grads]
        used = [(g, lib.tensor(v.astype(as_np(g).dtype))) for g, v in zip(grads, gvec, strict=True) if g is not None]

        def second():
            s = sum((g * v).sum() for g, v in used)
            return [as_np(g) for g in lib.autograd.grad(s, xs + [w], materialize_grads=True)]
        rec["second"] = outcome(second)
    return rec


def assert_same(lite, ref, tol):
    if isinstance(ref, dict):
        assert lite.keys() == ref.keys()
        for k in ref:
            try:
                assert_same(lite[k], ref[k], tol)
            except AssertionError as err:
                raise AssertionError(f"{k}: {err}") from None
    elif isinstance(ref, (list, tuple)):
        assert type(lite) is type(ref) and len(lite) == len(ref), (lite, ref)
        for a, b in zip(lite, ref, strict=True):
            assert_same(a, b, tol)
    elif isinstance(ref, np.ndarray):
        assert isinstance(lite, np.ndarray) and lite.dtype == ref.dtype and lite.shape == ref.shape, (lite, ref)
        np.testing.assert_allclose(lite, ref, **tol)
    else:
        assert lite == ref


def check(fn, shapes, dtype=np.float64, domain="normal", seed=0, dtypes=None):
    rng = np.random.default_rng(seed)
    dtypes = dtypes or [dtype] * len(shapes)
    if domain == "pos":
        arrays = [rng.uniform(0.5, 2.0, size=s).astype(d) for s, d in zip(shapes, dtypes, strict=True)]
    else:
        arrays = [rng.normal(size=s).astype(d) for s, d in zip(shapes, dtypes, strict=True)]
    ref_out = fn(torch, *[torch.tensor(a) for a in arrays])
    gout = rng.normal(size=tuple(ref_out.shape))
    gvec = [rng.normal(size=s) for s in shapes]
    ref = run_program(torch, fn, arrays, gout, gvec)
    lite = run_program(torchlite, fn, arrays, gout, gvec)
    tol = TOL[np.float32 if np.float32 in dtypes else np.float64]
    assert_same(lite, ref, tol)


BROADCAST = [((3, 4), (3, 4)), ((3, 4), (4,)), ((4,), (3, 4)), ((2, 1, 3), (4, 1)), ((3, 1), (1, 4)),
             ((), (3,)), ((2, 3), ())]
BINARY = {
    "add": lambda m, a, b: a + b,
    "sub": lambda m, a, b: a - b,
    "mul": lambda m, a, b: a * b,
    "div": lambda m, a, b: a / b,
    "add_fn_alpha": lambda m, a, b: m.add(a, b, alpha=2),
    "sub_fn_alpha": lambda m, a, b: m.sub(a, b, alpha=0.5),
    "mul_fn": lambda m, a, b: m.mul(a, b),
    "div_fn": lambda m, a, b: m.div(a, b),
    "method_add": lambda m, a, b: a.add(b),
    "method_sub": lambda m, a, b: a.sub(b),
    "method_mul": lambda m, a, b: a.mul(b),
    "method_div": lambda m, a, b: a.div(b),
    "where": lambda m, a, b: m.where(a > b, a, b),
    "where_cond_tensor": lambda m, a, b: m.where(a > 0, a * 2, b.exp()),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shapes", BROADCAST, ids=str)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_broadcasting(name, shapes, dtype):
    check(BINARY[name], shapes, dtype, domain="pos" if name.startswith("div") else "normal")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1), (3,))], ids=str)
def test_pow_tensor_exponent(shapes, dtype):
    check(lambda m, a, b: a ** b, shapes, dtype, domain="pos")
    check(lambda m, a, b: m.pow(a, b), shapes, dtype, domain="pos")
    check(lambda m, a, b: a.pow(b), shapes, dtype, domain="pos")


@pytest.mark.parametrize("dtypes", [(np.float32, np.float64), (np.float64, np.float32)], ids=str)
@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "where"])
def test_mixed_dtype_promotion(name, dtypes):
    check(BINARY[name], ((3, 4), (4,)), domain="pos", dtypes=list(dtypes))


UNARY = {
    "neg": (lambda m, a: -a, "normal"),
    "neg_method": (lambda m, a: a.neg(), "normal"),
    "neg_fn": (lambda m, a: m.neg(a), "normal"),
    "exp": (lambda m, a: a.exp(), "normal"),
    "exp_fn": (lambda m, a: m.exp(a), "normal"),
    "log": (lambda m, a: a.log(), "pos"),
    "log_fn": (lambda m, a: m.log(a), "pos"),
    "sin": (lambda m, a: a.sin(), "normal"),
    "cos": (lambda m, a: a.cos(), "normal"),
    "tanh": (lambda m, a: a.tanh(), "normal"),
    "sigmoid": (lambda m, a: a.sigmoid(), "normal"),
    "sigmoid_fn": (lambda m, a: m.sigmoid(a), "normal"),
    "relu": (lambda m, a: a.relu(), "normal"),
    "relu_fn": (lambda m, a: m.relu(a), "normal"),
    "abs": (lambda m, a: a.abs(), "normal"),
    "abs_builtin": (lambda m, a: abs(a), "normal"),
    "sqrt": (lambda m, a: a.sqrt(), "pos"),
    "sqrt_fn": (lambda m, a: m.sqrt(a), "pos"),
    "pow2": (lambda m, a: a ** 2, "normal"),
    "pow3": (lambda m, a: a.pow(3), "normal"),
    "pow_half": (lambda m, a: a ** 0.5, "pos"),
    "pow_neg": (lambda m, a: a ** -1.5, "pos"),
    "pow_one": (lambda m, a: a ** 1, "normal"),
    "pow_fn": (lambda m, a: m.pow(a, 2.5), "pos"),
    "radd": (lambda m, a: 1 + a, "normal"),
    "radd_float": (lambda m, a: 1.5 + a, "normal"),
    "rsub": (lambda m, a: 2 - a, "normal"),
    "rmul": (lambda m, a: 3 * a, "normal"),
    "rmul_float": (lambda m, a: 0.25 * a, "normal"),
    "rdiv": (lambda m, a: 2 / a, "pos"),
    "rpow": (lambda m, a: 2 ** a, "normal"),
    "rpow_float": (lambda m, a: 1.5 ** a, "normal"),
    "add_scalar": (lambda m, a: a + 1, "normal"),
    "sub_scalar": (lambda m, a: a - 1.5, "normal"),
    "mul_scalar": (lambda m, a: a * 2, "normal"),
    "div_scalar": (lambda m, a: a / 4, "normal"),
    "div_int_scalar": (lambda m, a: a / 3, "normal"),
    "pos": (lambda m, a: +a * 1, "normal"),
    "chain": (lambda m, a: ((a * a).sin() + a.exp().tanh()).sigmoid() / (1 + a.abs()), "normal"),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(), (5,), (2, 3)], ids=str)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(name, shape, dtype):
    fn, domain = UNARY[name]
    check(fn, [shape], dtype, domain=domain, seed=3)


MATMUL = [((3, 4), (4, 2)), ((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 2)), ((2, 3, 4), (4, 5)),
          ((2, 3, 4), (2, 4, 5)), ((2, 3, 4), (4,)), ((4,), (2, 4, 5)), ((3, 4), (2, 4, 5)),
          ((2, 1, 3, 4), (3, 4, 2)), ((1, 3, 4), (2, 4, 5))]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shapes", MATMUL, ids=str)
def test_matmul(shapes, dtype):
    check(lambda m, a, b: a @ b, shapes, dtype)
    check(lambda m, a, b: m.matmul(a, b), shapes, dtype)
    check(lambda m, a, b: a.matmul(b), shapes, dtype)


REDUCTIONS = {
    "sum": lambda m, a: a.sum(),
    "sum_fn": lambda m, a: m.sum(a),
    "sum0": lambda m, a: a.sum(0),
    "sum_neg": lambda m, a: a.sum(-1),
    "sum_keep": lambda m, a: a.sum(1, keepdim=True),
    "sum_dims": lambda m, a: a.sum((0, 2)),
    "sum_dims_keep": lambda m, a: a.sum(dim=(0, -1), keepdim=True),
    "mean": lambda m, a: a.mean(),
    "mean_fn": lambda m, a: m.mean(a),
    "mean1": lambda m, a: a.mean(1),
    "mean_keep": lambda m, a: a.mean(-1, keepdim=True),
    "mean_dims": lambda m, a: a.mean((0, 1)),
    "max": lambda m, a: a.max(),
    "max_fn": lambda m, a: m.max(a),
    "max0": lambda m, a: a.max(0)[0],
    "max_values": lambda m, a: a.max(dim=1).values,
    "max_keep": lambda m, a: a.max(2, keepdim=True)[0],
    "max_neg": lambda m, a: m.max(a, -1).values,
    "min": lambda m, a: a.min(),
    "min0": lambda m, a: a.min(0)[0],
    "min_keep": lambda m, a: a.min(1, keepdim=True).values,
    "min_fn": lambda m, a: m.min(a, dim=-2)[0],
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reductions(name, dtype):
    check(REDUCTIONS[name], [(2, 3, 4)], dtype, seed=5)


@pytest.mark.parametrize("lib_fn", [lambda t: t.max(1), lambda t: t.min(0, keepdim=True), lambda t: t.max(-1)])
def test_max_min_dim_indices(lib_fn):
    data = np.random.default_rng(6).normal(size=(3, 4))
    rt, rl = lib_fn(torch.tensor(data)), lib_fn(torchlite.tensor(data))
    np.testing.assert_array_equal(rl.indices.numpy(), rt.indices.numpy())
    np.testing.assert_array_equal(rl[1].numpy(), rt[1].numpy())
    assert dtype_name(rl.indices) == dtype_name(rt.indices) == "int64"
    assert type(rl).__name__ == type(rt).__name__


def test_max_min_with_ties_distribute_evenly():
    data = np.array([[1.0, 3.0, 3.0], [3.0, 0.0, 3.0]])
    for fn in (lambda m, a: a.max(), lambda m, a: a.min(), lambda m, a: (a * 0).max(),
               lambda m, a: a.max(1)[0], lambda m, a: m.max(a, 0).values):
        grads = []
        for lib in (torch, torchlite):
            x = lib.tensor(data, requires_grad=True)
            fn(lib, x).sum().backward()
            grads.append(x.grad.numpy())
        np.testing.assert_array_equal(grads[1], grads[0])


SHAPE_OPS = {
    "reshape": (lambda m, a: a.reshape(6, 4), (2, 3, 4)),
    "reshape_tuple": (lambda m, a: a.reshape((4, -1)), (2, 3, 4)),
    "reshape_fn": (lambda m, a: m.reshape(a, (-1,)), (2, 3, 4)),
    "reshape_copy": (lambda m, a: a.transpose(0, 1).reshape(-1), (2, 3, 4)),
    "view": (lambda m, a: a.view(3, 8), (2, 3, 4)),
    "view_infer": (lambda m, a: a.view(-1, 2), (2, 3, 4)),
    "view_tuple": (lambda m, a: a.view((24,)), (2, 3, 4)),
    "transpose": (lambda m, a: a.transpose(0, 2), (2, 3, 4)),
    "transpose_neg": (lambda m, a: a.transpose(-1, 0), (2, 3, 4)),
    "transpose_fn": (lambda m, a: m.transpose(a, 1, 2), (2, 3, 4)),
    "T_2d": (lambda m, a: a.T, (2, 3)),
    "T_3d": (lambda m, a: a.T, (2, 3, 4)),
    "T_1d": (lambda m, a: a.T * 1, (3,)),
    "t": (lambda m, a: a.t(), (2, 3)),
    "permute": (lambda m, a: a.permute(2, 0, 1), (2, 3, 4)),
    "permute_tuple": (lambda m, a: a.permute((1, 2, 0)), (2, 3, 4)),
    "permute_neg": (lambda m, a: a.permute(-1, 0, 1), (2, 3, 4)),
    "permute_fn": (lambda m, a: m.permute(a, (0, 2, 1)), (2, 3, 4)),
    "unsqueeze0": (lambda m, a: a.unsqueeze(0), (2, 3)),
    "unsqueeze_end": (lambda m, a: a.unsqueeze(-1), (2, 3)),
    "unsqueeze_fn": (lambda m, a: m.unsqueeze(a, 1), (2, 3)),
    "squeeze": (lambda m, a: a.squeeze(), (2, 1, 3, 1)),
    "squeeze_dim": (lambda m, a: a.squeeze(1), (2, 1, 3, 1)),
    "squeeze_dim_noop": (lambda m, a: a.squeeze(0), (2, 1, 3, 1)),
    "squeeze_neg": (lambda m, a: a.squeeze(-1), (2, 1, 3, 1)),
    "squeeze_fn": (lambda m, a: m.squeeze(a), (2, 1, 3, 1)),
    "expand": (lambda m, a: a.expand(2, 3, 4), (3, 1)),
    "expand_tuple": (lambda m, a: a.expand((5, 3)), (3,)),
    "expand_minus1": (lambda m, a: a.expand(2, -1, 4), (3, 1)),
    "expand_same": (lambda m, a: a.expand(3, 1), (3, 1)),
    "expand_as": (lambda m, a: a.expand_as(m.ones(2, 3, 4)), (3, 1)),
    "clone": (lambda m, a: a.clone(), (2, 3)),
    "clone_fn": (lambda m, a: m.clone(a), (2, 3)),
    "contiguous_noop": (lambda m, a: (a * 1).contiguous(), (2, 3)),
    "contiguous_copy": (lambda m, a: a.t().contiguous(), (2, 3)),
    "detach_mix": (lambda m, a: a * a.detach(), (2, 3)),
    "stack0": (lambda m, a: m.stack([a, a * 2, a.exp()]), (2, 3)),
    "stack1": (lambda m, a: m.stack((a, a.sin()), 1), (2, 3)),
    "stack_neg": (lambda m, a: m.stack([a, a], dim=-1), (2, 3)),
    "cat0": (lambda m, a: m.cat([a, a * 2]), (2, 3)),
    "cat1": (lambda m, a: m.cat((a, a[:, :1], a.exp()), 1), (2, 3)),
    "cat_neg": (lambda m, a: m.cat([a, a], dim=-1), (2, 3)),
    "where_scalar_other": (lambda m, a: m.where(a > 0, a, 0.0), (2, 3)),
    "where_scalar_input": (lambda m, a: m.where(a > 0, 1.5, a), (2, 3)),
    "where_bcast_cond": (lambda m, a: m.where(m.tensor([True, False, True]), a, a * a), (2, 3)),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(SHAPE_OPS))
def test_shape_and_combining_ops(name, dtype):
    fn, shape = SHAPE_OPS[name]
    check(fn, [shape], dtype, seed=7)


INDEXING = ["[1]", "[-1]", "[1, 2]", "[0, 1, 1]", "[:]", "[1:]", "[:, 1:]", "[1:, :]", "[::2]", "[:, ::2]",
            "[0:3, 1]", "[None]", "[None, 1]", "[..., 0]", "[..., None]", "[1, ..., 1]", "[...]", "[:, :]",
            "[()]", "[0:4, 1:]", "[:10]", "[-2:]", "[1:3, None, 0]", "[:, None, :, None]", "[0][1]",
            "[1:][0]"]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("key", INDEXING)
def test_basic_indexing(key, dtype):
    check(lambda m, a: eval("a" + key), [(4, 3, 2)], dtype, seed=8)  # noqa: S307 - fixed keys


@pytest.mark.parametrize("key", ["[lib.tensor([0, 2, 2])]", "[a > 0]", "[[0, 1]]", "[:, lib.tensor([1, 0])]"])
def test_advanced_indexing(key):
    check(lambda lib, a: eval("a" + key), [(4, 3)], seed=9)  # noqa: S307 - fixed keys


def test_forward_result_dtypes_match():
    progs = [
        lambda m: m.tensor([1, 2]) + 1.5, lambda m: m.tensor([1, 2]) * 2, lambda m: m.tensor([1, 2]).sum(),
        lambda m: m.tensor([True, False]).sum(), lambda m: m.tensor([1, 2]).exp(), lambda m: m.tensor([1.0]) * 2,
        lambda m: m.tensor([1.0], dtype=m.float64) + 1, lambda m: 1 / m.tensor([2.0]),
        lambda m: m.tensor([1, 2]) / 2, lambda m: m.tensor([1.0]) + m.tensor([1.0], dtype=m.float64),
        lambda m: m.tensor([1, 2]) + m.tensor([1.0]), lambda m: m.tensor(2.0) ** m.tensor([1, 2]),
        lambda m: m.tensor([1, 2]).max(), lambda m: m.arange(3) * 1.0, lambda m: m.where(
            m.tensor([True, False]), m.tensor([1.0, 2.0]), m.tensor([3.0, 4.0], dtype=m.float64)),
    ]
    for prog in progs:
        rt, rl = prog(torch), prog(torchlite)
        assert dtype_name(rl) == dtype_name(rt)
        np.testing.assert_allclose(rl.numpy(), rt.numpy(), rtol=1e-6)


def test_views_share_base_and_version():
    for fn in (lambda a: a.view(6), lambda a: a.T, lambda a: a[0], lambda a: a.unsqueeze(0),
               lambda a: a.expand(2, 2, 3), lambda a: a.reshape(3, 2), lambda a: a.t().reshape(6), lambda a: a.clone(),
               lambda a: a.detach()):
        res = []
        for lib in (torch, torchlite):
            a = lib.ones(2, 3)
            v = fn(a)
            before = v._version
            a.add_(1)
            res.append((v._base is a, before, v._version, float(v.sum())))
        assert res[1] == res[0]


def test_reflected_operators_on_zero_dim_and_python_numbers():
    for expr in ("0 + t", "2 * t", "1 - t", "3 / t", "2 ** t", "t ** 2", "t * 0.5 - 1", "-t + t.sum()"):
        res = []
        for lib in (torch, torchlite):
            t = lib.tensor(1.5, requires_grad=True)
            y = eval(expr, {"t": t})  # noqa: S307 - fixed expressions
            y.backward()
            res.append((y.item(), t.grad.item(), y.grad_fn.name(), dtype_name(y)))
        assert res[1][0] == pytest.approx(res[0][0], rel=1e-6)
        assert res[1][1] == pytest.approx(res[0][1], rel=1e-6)
        assert res[1][2:] == res[0][2:]
