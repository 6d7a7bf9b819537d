"""torchlite.nn.functional (issue 15, the functional family) against torch: values and dtypes,
first and second derivatives, node names and errors, on "cpu" and "sim:0" (torch runs on "cpu").

A case is `fn(lib, F, *tensors)` with its inputs as numpy arrays: a float array becomes a leaf that
requires grad, an integer or bool one a plain tensor (targets, indices); `Fixed(array)` a float
tensor that does not require grad. Values compare in float64 to 1e-10 relative / 1e-12 absolute,
in float32 to 1e-5 / 1e-6."""
import warnings

import numpy as np
import pytest

import torchlite
from torchlite.nn import functional as TF

from diff_utils import import_torch, run

torch = import_torch()
import torch.nn.functional as F  # noqa: E402

DEVICES = ["cpu", "sim:0"]
TOL = {"float64": (1e-10, 1e-12), "float32": (1e-5, 1e-6)}
RNG = np.random.default_rng(0)


class Fixed:
    """A float input that does not require grad."""

    def __init__(self, array):
        self.array = array


def rand(*shape, low=-2.0, high=2.0):
    return RNG.uniform(low, high, shape)


def functional(lib):
    return F if lib is torch else TF


def make(lib, spec, dtype, dev):
    if isinstance(spec, Fixed):
        return lib.tensor(spec.array, dtype=getattr(lib, dtype), device=dev)
    a = np.asarray(spec)
    if a.dtype.kind == "f":
        return lib.tensor(a, dtype=getattr(lib, dtype), device=dev, requires_grad=True)
    return lib.tensor(a, device=dev)


def outputs(result):
    return list(result) if isinstance(result, (tuple, list)) else [result]


def evaluate(lib, fn, specs, dtype, dev, double=True):
    """fn's outputs (arrays, dtypes, node names), the leaves' gradients of a weighted sum of them,
    and (double) the gradients of a weighted sum of those gradients."""
    xs = [make(lib, s, dtype, dev) for s in specs]
    leaves = [x for x in xs if x.requires_grad]
    outs = [o for o in outputs(fn(lib, functional(lib), *xs)) if isinstance(o, (torch.Tensor, torchlite.Tensor))]
    seen = {"values": [o.detach().cpu().numpy() if lib is torch else np.asarray(o.detach()) for o in outs],
            "dtypes": [str(o.dtype).split(".")[-1] for o in outs],
            "nodes": [o.grad_fn.name() if o.grad_fn is not None else None for o in outs]}
    diff = [o for o in outs if o.requires_grad]
    if not diff or not leaves:
        return seen
    loss = sum(((o * (lib.arange(o.numel(), dtype=o.dtype, device=o.device).reshape(o.shape) % 7 + 1)).sum())
               for o in diff)
    grads = lib.autograd.grad(loss, leaves, create_graph=double, allow_unused=True)
    seen["grads"] = [None if g is None else g.detach().numpy(force=True).copy() for g in grads]
    seen["grad_nodes"] = [None if g is None or g.grad_fn is None else g.grad_fn.name() for g in grads]
    if double:
        used = [g for g in grads if g is not None and g.requires_grad]
        if used:
            loss2 = sum((g * g.detach().cos()).sum() for g in used)
            grads2 = lib.autograd.grad(loss2, leaves, allow_unused=True)
            seen["grads2"] = [None if g is None else g.detach().numpy(force=True).copy() for g in grads2]
    return seen


def assert_close(mine, theirs, dtype, what):
    rtol, atol = TOL[dtype]
    assert len(mine) == len(theirs), what
    for m, t in zip(mine, theirs, strict=True):
        if m is None or t is None:
            assert m is None and t is None, what
            continue
        assert m.shape == t.shape and m.dtype == t.dtype, (what, m.shape, t.shape, m.dtype, t.dtype)
        # an absolute tolerance on the array's scale: a sum of terms of that size cancels to noise
        finite = np.abs(t[np.isfinite(t)]) if t.dtype.kind == "f" else np.abs(t)
        scale = float(finite.max()) if finite.size else 0.0
        np.testing.assert_allclose(m, t, rtol=rtol, atol=atol + rtol * max(scale, 1.0), equal_nan=True, err_msg=what)


def check(fn, specs, dtypes=("float64", "float32"), double=True, gradgrad=True, nodes=True):
    for dtype in dtypes:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = evaluate(torch, fn, specs, dtype, "cpu", double)
            for dev in DEVICES:
                mine = evaluate(torchlite, fn, specs, dtype, dev, double)
                assert mine.keys() == theirs.keys(), (dtype, dev, mine.keys(), theirs.keys())
                assert mine["dtypes"] == theirs["dtypes"], (dtype, dev)
                if nodes:
                    assert mine["nodes"] == theirs["nodes"], (dtype, dev)
                for key in ("values", "grads", "grads2"):
                    if key in theirs:
                        assert_close(mine[key], theirs[key], dtype, f"{key} {dtype} {dev}")
                if "grad_nodes" in theirs and nodes:
                    assert mine["grad_nodes"] == theirs["grad_nodes"], (dtype, dev)
    if gradgrad:
        xs = [make(torchlite, s, "float64", "cpu") for s in specs]
        leaves = [x for x in xs if x.requires_grad]
        if leaves:
            def f(*ls):
                it = iter(ls)
                args = [next(it) if x.requires_grad else x for x in xs]
                return tuple(o for o in outputs(fn(torchlite, TF, *args))
                             if isinstance(o, torchlite.Tensor) and o.requires_grad)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # (the implicit-dim cases' warning, compared on its own)
                assert torchlite.autograd.gradcheck(f, tuple(leaves))
                assert torchlite.autograd.gradgradcheck(f, tuple(leaves))


def same_error(fn):
    """fn(lib, F) raises (or returns) the same under torch and torchlite."""
    mine = run(lambda lib: fn(lib, functional(lib)), torchlite)
    theirs = run(lambda lib: fn(lib, functional(lib)), torch)
    assert mine == theirs
    return theirs


# ==== softmax, log_softmax, linear, bilinear ===================================================

X234 = rand(2, 3, 4)


@pytest.mark.parametrize("name", ["softmax", "log_softmax", "softmin"])
@pytest.mark.parametrize("dim", [0, 1, -1, 2])
def test_softmax_family(name, dim):
    check(lambda lib, F, x: getattr(F, name)(x, dim), [X234])


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_torch_and_method(name):
    check(lambda lib, F, x: (getattr(lib, name)(x, 1), getattr(x, name)(-1), getattr(x, name)(dim=0),
                             getattr(lib, name)(x[0, 0, 0], 0)), [X234])


@pytest.mark.parametrize("name", ["softmax", "log_softmax", "softmin"])
def test_softmax_dtype(name):
    check(lambda lib, F, x: getattr(F, name)(x, 1, dtype=lib.float64), [X234], dtypes=("float32",), gradgrad=False)
    check(lambda lib, F, x: getattr(F, name)(x.float(), 1, dtype=lib.float64), [X234], dtypes=("float64",),
          gradgrad=False)


@pytest.mark.parametrize("name", ["softmax", "log_softmax", "softmin"])
@pytest.mark.parametrize("ndim", [0, 1, 2, 3, 4])
def test_softmax_implicit_dim(name, ndim):
    shape = (2, 3, 2, 3)[:ndim]
    x = rand(*shape)
    for lib in (torch, torchlite):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            getattr(functional(lib), name)(lib.tensor(x))
        assert [str(m.message) for m in w] == [f"Implicit dimension choice for {name} has been deprecated. "
                                               "Change the call to include dim=X as an argument."]
        assert w[0].filename == __file__
    check(lambda lib, F, x: getattr(F, name)(x), [x])


def test_softmax_special_values():
    x = np.array([[0.0, -np.inf, 1.0], [np.inf, 1.0, 2.0], [-np.inf, -np.inf, -np.inf], [1e30, 0.0, -1e30]])
    check(lambda lib, F, x: (F.softmax(x, 1), F.log_softmax(x, 1)), [Fixed(x)], gradgrad=False)
    check(lambda lib, F, x: (F.softmax(x, 1), F.log_softmax(x, 0)), [np.zeros((0, 3))], gradgrad=False)


def test_softmax_double_backward_nodes():
    check(lambda lib, F, x: lib._softmax_backward_data(x * 2, F.softmax(x, 1), 1, x.dtype), [X234])
    check(lambda lib, F, x: lib._log_softmax_backward_data(x * 2, F.log_softmax(x, 1), 1, x.dtype), [X234])


def test_softmax_saved_fields():
    def saved(lib, F, x):
        y, z = F.softmax(x, -1), F.log_softmax(x, 0)
        return y.grad_fn._saved_dim, y.grad_fn._saved_result, z.grad_fn._saved_dim, z.grad_fn._saved_result
    same_error(lambda lib, F: saved(lib, F, lib.tensor(X234, requires_grad=True)))
    assert same_error(lambda lib, F: saved(lib, F, lib.tensor(X234, requires_grad=True)))[1][0] == 2**64 - 1


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_errors(name):
    for dim in (0, 1, -1, 2, -3):
        for x in ("lib.arange(6).reshape(2, 3)", "lib.ones(2, 3, dtype=lib.bool)", "lib.ones(2, 3, dtype=lib.int32)",
                  "lib.ones(2, 3)"):
            same_error(lambda lib, F, x=x, dim=dim: getattr(F, name)(eval(x), dim))
            same_error(lambda lib, F, x=x, dim=dim: getattr(lib, name)(eval(x), dim))
    same_error(lambda lib, F: getattr(lib, name)(lib.ones(3), "a"))
    same_error(lambda lib, F: getattr(lib, name)(lib.ones(3)))
    same_error(lambda lib, F: getattr(lib, name)(lib.ones(3), 0, lib.int64))
    same_error(lambda lib, F: getattr(lib, "_" + name)(lib.ones(3), 0, True))
    same_error(lambda lib, F: getattr(lib, name)(lib.ones(3, dtype=lib.float16), 0))


LINEAR = [
    ("2d bias", (3, 4), (5, 4), (5,)),
    ("2d", (3, 4), (5, 4), None),
    ("3d bias", (2, 3, 4), (5, 4), (5,)),
    ("3d", (2, 3, 4), (5, 4), None),
    ("4d bias", (2, 2, 3, 4), (5, 4), (5,)),
    ("1d bias", (4,), (5, 4), (5,)),
    ("1d", (4,), (5, 4), None),
    ("1d weight", (3, 4), (4,), None),
    ("1d weight 3d", (2, 3, 4), (4,), ()),
    ("1d 1d weight", (4,), (4,), ()),
    ("2d bias0", (3, 4), (5, 4), ()),
    ("2d bias2", (3, 4), (5, 4), (3, 5)),
    ("3d bias2", (2, 3, 4), (5, 4), (3, 5)),
    ("4d bias2", (2, 2, 3, 4), (5, 4), (3, 5)),
]


@pytest.mark.parametrize("case", LINEAR, ids=[c[0] for c in LINEAR])
def test_linear(case):
    _, xs, ws, bs = case
    specs = [rand(*xs), rand(*ws)] + ([] if bs is None else [rand(*bs)])
    check(lambda lib, F, *t: F.linear(*t), specs)
    check(lambda lib, F, *t: F.linear(t[0], t[1], bias=t[2] if len(t) > 2 else None), specs, gradgrad=False)


def test_linear_noncontiguous():
    check(lambda lib, F, x, w, b: F.linear(x.transpose(0, 1), w, b), [rand(3, 2, 4), rand(5, 4), rand(5)])
    check(lambda lib, F, x, w, b: F.linear(x.transpose(0, 2), w, b), [rand(4, 3, 2, 4), rand(5, 4), rand(5)])
    check(lambda lib, F, x, w: F.linear(x, w.t()), [rand(2, 3, 4), rand(4, 5)])


def test_linear_errors():
    same_error(lambda lib, F: F.linear(lib.ones(3, 4), lib.ones(5, 3)))
    same_error(lambda lib, F: F.linear(lib.ones(2, 3, 4), lib.ones(5, 3), lib.ones(5)))
    same_error(lambda lib, F: F.linear(lib.ones(2, 2, 3, 4), lib.ones(5, 3), lib.ones(5)))
    same_error(lambda lib, F: F.linear(lib.ones(3, 4), lib.ones(5, 4), lib.ones(4)))
    same_error(lambda lib, F: F.linear(lib.tensor(1.0), lib.ones(5, 4)))
    same_error(lambda lib, F: F.linear(lib.ones(4), lib.tensor(1.0)))
    same_error(lambda lib, F: F.linear(lib.ones(4), lib.ones(2, 3, 4)))
    same_error(lambda lib, F: F.linear(1, lib.ones(2, 4)))
    same_error(lambda lib, F: F.linear(lib.ones(4), lib.ones(2, 4), 3))
    same_error(lambda lib, F: F.linear(lib.ones(4)))
    same_error(lambda lib, F: F.linear(lib.ones(3, 4), lib.ones(5, 4, dtype=lib.float64)))
    same_error(lambda lib, F: F.linear(lib.ones(3, 4), lib.ones(4), lib.ones(())))
    same_error(lambda lib, F: F.linear(lib.ones(4), lib.ones(4), lib.ones(1)))
    same_error(lambda lib, F: F.linear(lib.ones(3, 4), lib.ones(5, 4), lib.ones(4)))


def test_bilinear():
    # torch records _trilinear's TrilinearBackward0, which torchlite does not have: values and gradients only
    check(lambda lib, F, a, b, w, c: F.bilinear(a, b, w, c), [rand(3, 4), rand(3, 2), rand(5, 4, 2), rand(5)],
          nodes=False)
    check(lambda lib, F, a, b, w: lib.bilinear(a, b, w), [rand(2, 3, 4), rand(2, 3, 2), rand(5, 4, 2)], nodes=False)
    same_error(lambda lib, F: F.bilinear(lib.ones(3, 4), lib.ones(2, 2), lib.ones(5, 4, 2)))
    same_error(lambda lib, F: F.bilinear(lib.ones(3, 4), lib.ones(3, 3), lib.ones(5, 4, 2)))
    same_error(lambda lib, F: F.bilinear(lib.ones(3, 3), lib.ones(3, 2), lib.ones(5, 4, 2)))
    same_error(lambda lib, F: F.bilinear(lib.ones(3, 4), lib.ones(3, 2), lib.ones(5, 4, 2), lib.ones(4)))


# ==== activations ==============================================================================

# values away from each activation's kinks (finite differences in gradcheck), plus the kinks
# themselves in the float comparisons
XA = np.array([[-3.7, -2.2, -1.3, -0.6, -0.2], [0.15, 0.45, 1.1, 2.4, 3.6]])
KINKS = np.array([-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0, 6.0, 20.0, -20.0, 30.0])

ACTIVATIONS = {
    "relu": lambda F, x: F.relu(x),
    "relu6": lambda F, x: F.relu6(x * 3),
    "leaky_relu": lambda F, x: F.leaky_relu(x),
    "leaky_relu_slope": lambda F, x: F.leaky_relu(x, 0.2),
    "elu": lambda F, x: F.elu(x),
    "elu_alpha": lambda F, x: F.elu(x, alpha=0.7),
    "selu": lambda F, x: F.selu(x),
    "celu": lambda F, x: F.celu(x, 1.5),
    "gelu": lambda F, x: F.gelu(x),
    "gelu_tanh": lambda F, x: F.gelu(x, approximate="tanh"),
    "silu": lambda F, x: F.silu(x),
    "mish": lambda F, x: F.mish(x),
    "tanh": lambda F, x: F.tanh(x),
    "sigmoid": lambda F, x: F.sigmoid(x),
    "softplus": lambda F, x: F.softplus(x),
    "softplus_beta": lambda F, x: F.softplus(x, beta=2, threshold=3),
    "hardtanh": lambda F, x: F.hardtanh(x),
    "hardtanh_range": lambda F, x: F.hardtanh(x, -2.0, 0.7),
    "hardswish": lambda F, x: F.hardswish(x),
    "hardsigmoid": lambda F, x: F.hardsigmoid(x),
    "logsigmoid": lambda F, x: F.logsigmoid(x),
    "softsign": lambda F, x: F.softsign(x),
    "threshold": lambda F, x: F.threshold(x, 0.3, -2.0),
    "glu": lambda F, x: F.glu(x, 0),
    "glu_last": lambda F, x: F.glu(x[:, 1:]),
    "softshrink": lambda F, x: F.softshrink(x, 0.4),
    "hardshrink": lambda F, x: F.hardshrink(x, 0.4),
    "tanhshrink": lambda F, x: F.tanhshrink(x),
}
# hardsigmoid's backward has no derivative upstream (torch::autograd::NotImplemented)
NO_DOUBLE = {"hardsigmoid"}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation(name):
    fn = ACTIVATIONS[name]
    double = name not in NO_DOUBLE
    check(lambda lib, F, x: fn(F, x), [XA], double=double, gradgrad=double)
    if name != "glu_last":
        check(lambda lib, F, x: fn(F, x), [KINKS[:10]], double=double, gradgrad=False)
    check(lambda lib, F, x: fn(F, x.t()), [XA.T.copy()], double=double, gradgrad=False)


def test_hardsigmoid_double_backward_refused():
    def case(lib, F):
        x = lib.tensor(XA, requires_grad=True)
        g, = lib.autograd.grad(F.hardsigmoid(x).sum(), x, create_graph=True)
        g.sum().backward()
    assert same_error(case)[0] == "raised"


INPLACE = {
    "relu": lambda F, x: F.relu(x, inplace=True),
    "relu_": lambda F, x: F.relu_(x),
    "relu6": lambda F, x: F.relu6(x, inplace=True),
    "leaky_relu": lambda F, x: F.leaky_relu(x, 0.1, inplace=True),
    "leaky_relu_": lambda F, x: F.leaky_relu_(x, 0.1),
    "elu": lambda F, x: F.elu(x, 0.5, inplace=True),
    "elu_": lambda F, x: F.elu_(x),
    "selu": lambda F, x: F.selu(x, inplace=True),
    "selu_": lambda F, x: F.selu_(x),
    "celu": lambda F, x: F.celu(x, 2.0, inplace=True),
    "celu_": lambda F, x: F.celu_(x),
    "hardtanh": lambda F, x: F.hardtanh(x, -0.5, 0.5, inplace=True),
    "hardtanh_": lambda F, x: F.hardtanh_(x),
    "threshold": lambda F, x: F.threshold(x, 0.2, 5.0, inplace=True),
    "threshold_": lambda F, x: F.threshold_(x, 0.2, 5.0),
    "silu": lambda F, x: F.silu(x, inplace=True),
    "mish": lambda F, x: F.mish(x, inplace=True),
    "hardswish": lambda F, x: F.hardswish(x, inplace=True),
    "hardsigmoid": lambda F, x: F.hardsigmoid(x, inplace=True),
}


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_activation_inplace(name):
    fn = INPLACE[name]

    def case(lib, F, x):
        y = x * 1
        out = fn(F, y)
        assert out is y
        return y, y._version
    double = name != "hardsigmoid"
    check(case, [XA], double=double, gradgrad=double)

    def saved(lib, F):
        x = lib.tensor(XA, requires_grad=True)
        y = x * 1
        fn(F, y)
        node = y.grad_fn
        return node.name(), {k: getattr(node, k) for k in dir(node) if k.startswith("_saved_")}
    same_error(saved)
    # a leaf that requires grad is refused, as torch refuses it
    same_error(lambda lib, F: fn(F, lib.tensor(XA, requires_grad=True)))
    # no grad: written in place
    check(lambda lib, F, x: fn(F, x.clone()), [Fixed(XA)], gradgrad=False)


def test_activation_saved_fields():
    def saved(lib, F):
        x = lib.tensor(XA, requires_grad=True)
        out = []
        for y in (F.elu(x, 0.5), F.selu(x), F.celu(x, 2.0), F.leaky_relu(x, 0.2), F.gelu(x, approximate="tanh"),
                  F.softplus(x, 2, 10), F.hardtanh(x, -0.5, 0.5), F.threshold(x, 0.5, 2), F.softshrink(x, 0.3),
                  F.hardshrink(x), F.glu(x, 0), F.glu(x, -2), F.logsigmoid(x), F.relu6(x), F.silu(x), F.mish(x),
                  F.hardswish(x), F.hardsigmoid(x)):
            node = y.grad_fn
            out.append((node.name(), {k: getattr(node, k) for k in dir(node) if k.startswith("_saved_")}))
            g, = lib.autograd.grad(y.sum(), x, create_graph=True)
            node = g.grad_fn
            out.append((node.name(), {k: getattr(node, k) for k in dir(node) if k.startswith("_saved_")}))
        return out
    same_error(saved)


def test_activation_errors():
    for name in ["relu6", "leaky_relu", "elu", "selu", "celu", "gelu", "silu", "mish", "softplus", "hardtanh",
                 "hardswish", "hardsigmoid", "logsigmoid", "softsign", "glu", "softshrink", "hardshrink",
                 "tanhshrink"]:
        for x in ("lib.arange(4)", "lib.ones(4, dtype=lib.bool)", "lib.ones(4, dtype=lib.int32)"):
            same_error(lambda lib, F, x=x, name=name: getattr(F, name)(eval(x)))
    same_error(lambda lib, F: F.threshold(lib.arange(4), 1, 2))
    same_error(lambda lib, F: F.gelu(lib.ones(2), approximate="x"))
    same_error(lambda lib, F: F.softshrink(lib.ones(2), -1))
    same_error(lambda lib, F: F.softshrink(lib.ones(2, dtype=lib.float64), -1.5))
    same_error(lambda lib, F: F.hardtanh(lib.ones(2), 1.0, -1.0))
    same_error(lambda lib, F: F.glu(lib.ones(3, 2), 0))
    same_error(lambda lib, F: F.glu(lib.tensor(1.0)))
    same_error(lambda lib, F: F.glu(lib.ones(2, 2), 2))
    same_error(lambda lib, F: F.glu(lib.ones(2, 2), "a"))
    same_error(lambda lib, F: F.elu(lib.ones(2), "a"))
    same_error(lambda lib, F: F.leaky_relu(lib.ones(2), negative_slope=None))

    def negative_slope(lib, F, name):
        x = lib.tensor(XA, requires_grad=True)
        y = x * 1
        getattr(F, name)(y, -0.5, inplace=True)
        y.sum().backward()
    same_error(lambda lib, F: negative_slope(lib, F, "leaky_relu"))
    same_error(lambda lib, F: negative_slope(lib, F, "elu"))


def test_activation_float16():
    x = XA.astype(np.float16)
    for name in ["relu6", "leaky_relu", "elu", "gelu", "silu", "softplus", "hardswish", "logsigmoid", "glu"]:
        fn = ACTIVATIONS[name]
        mine = np.asarray(fn(TF, torchlite.tensor(x)))
        theirs = fn(F, torch.tensor(x)).numpy()
        assert mine.dtype == theirs.dtype == np.float16
        np.testing.assert_allclose(mine.astype(np.float64), theirs.astype(np.float64), rtol=1e-3, atol=1e-3)


def test_activation_zero_dim():
    for name in sorted(ACTIVATIONS):
        if not name.startswith("glu"):
            check(lambda lib, F, x, name=name: ACTIVATIONS[name](F, x), [np.array(0.7)], gradgrad=False,
                  double=name not in NO_DOUBLE)


# ==== dropout ==================================================================================

def test_dropout_statistics_and_graph():
    """torch's generator is not reproduced: each element is 0 or x / (1 - p), about a fraction p of
    them 0, the gradient the same mask / (1 - p), node MulBackward0 (input * noise) as torch's."""
    torchlite.manual_seed(0)
    x = torchlite.rand(200, 50, dtype=torchlite.float64) + 0.5
    x.requires_grad_(True)
    for p in (0.2, 0.5, 0.9):
        for dev in DEVICES:
            xd = x.detach().to(dev).requires_grad_(True)
            y = TF.dropout(xd, p)
            assert y.grad_fn.name() == "MulBackward0" and y.device == xd.device
            ya, xa = np.asarray(y.detach().cpu()), np.asarray(x.detach())
            kept = ya != 0
            np.testing.assert_allclose(ya[kept], xa[kept] / (1 - p), rtol=1e-12)
            assert abs((~kept).mean() - p) < 0.03
            g, = torchlite.autograd.grad(y.sum(), xd)
            np.testing.assert_allclose(np.asarray(g.cpu()), kept / (1 - p), rtol=1e-12)
    y = TF.dropout(x, 0.5)
    noise = y.grad_fn._saved_other[:2, :3]
    assert torchlite.autograd.gradgradcheck(lambda t: t * noise, (x[:2, :3].detach().requires_grad_(),))


def test_dropout_same_as_torch():
    """Where no randomness is involved: p = 0, p = 1, eval mode, empty inputs, in place, errors."""
    def case(lib, F, x):
        y0, y1 = F.dropout(x, 0.0), F.dropout(x, 0.3, training=False)
        z = x * 1
        w = F.dropout(z, 1.0, inplace=True)
        return y0 is x, y1 is x, F.dropout(x, 1.0), w is z, z, z._version, F.dropout(x[:0], 0.5).shape
    check(case, [XA], gradgrad=False)
    check(lambda lib, F, x: lib.dropout(x, 1.0, True), [XA])
    for p in (-0.1, 1.5, -1.0, 2):
        same_error(lambda lib, F, p=p: F.dropout(lib.ones(3), p))
        same_error(lambda lib, F, p=p: lib.dropout(lib.ones(3), p, True))
        same_error(lambda lib, F, p=p: lib.dropout_(lib.ones(3), p, True))
    same_error(lambda lib, F: F.dropout(lib.arange(3), 0.5))
    same_error(lambda lib, F: F.dropout(lib.ones(3, requires_grad=True), 0.5, inplace=True))
    same_error(lambda lib, F: lib.dropout(lib.ones(3), "a", True))
    same_error(lambda lib, F: lib.dropout(lib.ones(3), 0.5))
    same_error(lambda lib, F: F.dropout(lib.ones(3), 0.5, training=False, inplace=True).shape)


# ==== embedding ================================================================================

IDX = np.array([[0, 2, 2], [4, 1, 0]])
W53 = rand(5, 3)


@pytest.mark.parametrize("kwargs", [{}, {"padding_idx": 2}, {"padding_idx": -1}, {"padding_idx": 0},
                                    {"scale_grad_by_freq": True}, {"padding_idx": 1, "scale_grad_by_freq": True}],
                         ids=str)
def test_embedding(kwargs):
    """EmbeddingBackward0, and embedding_dense_backward (its node under a double backward)."""
    # (a padding row's gradient is zero by design, which gradcheck's finite differences do not see)
    check(lambda lib, F, i, w: F.embedding(i, w, **kwargs), [IDX, W53], gradgrad=not kwargs)
    check(lambda lib, F, i, w: F.embedding(i[0, 1], w, **kwargs), [IDX, W53], gradgrad=False)
    check(lambda lib, F, i, w: F.embedding(i.int().t(), w.t().t(), **kwargs), [IDX, W53], gradgrad=False)


def test_embedding_saved_fields_and_torch_embedding():
    def case(lib, F):
        w = lib.tensor(W53, requires_grad=True)
        y = lib.embedding(w, lib.tensor(IDX), 3)
        g, = lib.autograd.grad((y * y).sum(), w, create_graph=True)
        return [(n.name(), {k: getattr(n, k) for k in dir(n) if k.startswith("_saved_")})
                for n in (y.grad_fn, g.grad_fn)]
    same_error(case)


def test_embedding_max_norm():
    def case(lib, F, norm_type):
        w = lib.tensor(W53 * 3)
        v = w._version
        y = F.embedding(lib.tensor(IDX), w, max_norm=1.0, norm_type=norm_type)
        return y, w, w._version - v
    for norm_type in (2.0, 1.0):
        assert run(lambda lib, n=norm_type: case(lib, functional(lib), n), torchlite) == \
            run(lambda lib, n=norm_type: case(lib, functional(lib), n), torch)


def test_embedding_errors():
    same_error(lambda lib, F: F.embedding(lib.tensor([5]), lib.ones(5, 3)))
    same_error(lambda lib, F: F.embedding(lib.tensor([-1]), lib.ones(5, 3)))
    same_error(lambda lib, F: F.embedding(lib.tensor([1.0]), lib.ones(5, 3)))
    same_error(lambda lib, F: F.embedding(lib.tensor([1]), lib.ones(5, 3), padding_idx=7))
    same_error(lambda lib, F: F.embedding(lib.tensor([1]), lib.ones(5, 3), padding_idx=-7))
    same_error(lambda lib, F: F.embedding(lib.tensor([1]), lib.ones(5)))
    same_error(lambda lib, F: F.embedding(lib.tensor([1]), lib.ones(5, 3, 2)))
    same_error(lambda lib, F: lib.embedding(lib.ones(5, 3), lib.tensor([5])))
    same_error(lambda lib, F: lib.embedding(lib.ones(5, 3)))


def test_embedding_sparse_refused():
    """(issue 15, conv: refused at the forward, where torch would record a sparse gradient)"""
    w = torchlite.tensor(W53, requires_grad=True)
    with pytest.raises(NotImplementedError, match="torchlite has no sparse layout"):
        TF.embedding(torchlite.tensor(IDX), w, sparse=True)


# ==== losses =====================================================================================

X43 = rand(4, 3)
T4 = np.array([0, 2, 1, 2])
P43 = np.abs(rand(4, 3)) + 0.1
P43 = P43 / P43.sum(1, keepdims=True)
U43 = RNG.uniform(0.1, 0.9, (4, 3))
REDUCTIONS = ["mean", "sum", "none"]


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_nll_loss(reduction):
    """nll_loss_nd: nll_loss (nll_loss_forward, nll_loss_backward) for 1-2 dims, nll_loss2d (nll_loss2d_forward,
    nll_loss2d_backward) for 4, the others viewed as 4-d; cross_entropy_loss below."""
    check(lambda lib, F, x, t: F.nll_loss(F.log_softmax(x, 1), t, reduction=reduction), [X43, T4])
    check(lambda lib, F, x, t: F.nll_loss(x, t, reduction=reduction, ignore_index=2), [X43, T4])
    check(lambda lib, F, x, t, w: F.nll_loss(x, t, weight=w, reduction=reduction), [X43, T4, Fixed(U43[0])])
    check(lambda lib, F, x, t, w: F.nll_loss(x, t, w, ignore_index=0, reduction=reduction),
          [X43, T4, Fixed(U43[0])])
    check(lambda lib, F, x, t: F.nll_loss(x[0], t[1], reduction=reduction), [X43, T4])
    x4, t4 = rand(2, 3, 2, 2), RNG.integers(0, 3, (2, 2, 2))
    check(lambda lib, F, x, t: F.nll_loss(x, t, reduction=reduction), [x4, t4])
    check(lambda lib, F, x, t: F.nll_loss(x[:, :, 0], t[:, 0], reduction=reduction), [x4, t4])
    check(lambda lib, F, x, t: F.nll_loss(x.reshape(2, 3, 2, 1, 2), t.reshape(2, 2, 1, 2), reduction=reduction),
          [x4, t4])


def test_nll_loss_saved_fields():
    def case(lib, F):
        x = lib.tensor(X43, requires_grad=True)
        w = lib.tensor(U43[0])
        out = []
        for y in (F.nll_loss(x, lib.tensor(T4)), F.nll_loss(x, lib.tensor(T4), w, reduction="sum", ignore_index=1),
                  F.nll_loss(x.reshape(2, 3, 1, 2), lib.tensor(T4).reshape(2, 1, 2) % 3, reduction="none")):
            n = y.grad_fn
            out.append((n.name(), n._saved_ignore_index, n._saved_reduction, n._saved_self, n._saved_target,
                        n._saved_weight, n._saved_total_weight if y.dim() == 0 else None))
            g, = lib.autograd.grad(y.sum(), x, create_graph=True)
            out.append(g.grad_fn.name())
        return out
    same_error(case)


def test_nll_loss_errors():
    x, t = "lib.ones(4, 3)", "lib.tensor([0, 2, 1, 2])"
    for call in [
            f"F.nll_loss({x}, {t}.int())",
            f"F.nll_loss({x}, {t}.float())",
            f"F.nll_loss({x}, lib.tensor([0, 3, 1, 2]))",
            f"F.nll_loss({x}, lib.tensor([0, -1, 1, 2]))",
            f"F.nll_loss({x}, {t}[:3])",
            f"F.nll_loss({x}, {t}, weight=lib.ones(2))",
            f"F.nll_loss({x}[0, 0], {t}[0])",
            f"F.nll_loss({x}, {t}.reshape(2, 2))",
            "F.nll_loss(lib.ones(2, 3, 4), lib.zeros(2, 5).long())",
            "F.nll_loss(lib.ones(2, 3, 4, 4), lib.zeros(2, 4, 5).long())",
            f"F.nll_loss({x}, {t}, reduction='foo')",
            f"F.nll_loss({x}, {t}, weight=lib.ones(3, dtype=lib.float64))",
            f"F.nll_loss({x}[:0], {t}[:0])",
            f"F.nll_loss({x}[:0], {t}[:0], reduction='sum')",
            f"F.nll_loss({x}, lib.tensor([2, 2, 2, 2]), ignore_index=2)",
            f"F.nll_loss({x}[0], {t}[:2])",
            f"F.nll_loss({x}[0], {t}[:0])",
            f"F.cross_entropy({x}, {t}.float())",
            f"F.cross_entropy({x}, lib.rand(4, 2))",
            f"F.cross_entropy({x}, {t}, label_smoothing=1.5)",
            f"F.cross_entropy({x}, lib.ones(4, 3), label_smoothing=1.5)",
            f"F.cross_entropy({x}, lib.ones(4, 3), ignore_index=1)",
            f"F.cross_entropy({x}, lib.ones(4, 3, dtype=lib.int64))",
            f"F.cross_entropy({x}, lib.ones(4, 3), weight=lib.ones(2))",
            f"F.mse_loss({x}, lib.ones(5, 3))",
            f"F.binary_cross_entropy({x} * 2, {x})",
            f"F.binary_cross_entropy({x}, {x}[0])",
            f"F.binary_cross_entropy_with_logits({x}, {x}[0])",
            f"F.kl_div({x}, {t})",
            f"F.huber_loss({x}, {x}, delta=0.0)",
            f"F.smooth_l1_loss({x}, {x}, beta=-1.0)",
    ]:
        same_error(lambda lib, F, call=call: eval(call))


def test_nll_loss_legacy_reduction():
    for kw in [dict(size_average=False), dict(reduce=False), dict(size_average=True, reduce=True)]:
        check(lambda lib, F, x, t, kw=kw: F.nll_loss(x, t, **kw), [X43, T4], gradgrad=False)
        check(lambda lib, F, x, t, kw=kw: F.cross_entropy(x, t, **kw), [X43, T4], gradgrad=False)
        check(lambda lib, F, x, t, kw=kw: F.mse_loss(x, t, **kw), [X43, U43], gradgrad=False)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy(reduction):
    check(lambda lib, F, x, t: F.cross_entropy(x, t, reduction=reduction), [X43, T4])
    check(lambda lib, F, x, t, w: F.cross_entropy(x, t, w, reduction=reduction, ignore_index=1),
          [X43, T4, Fixed(U43[0])])
    check(lambda lib, F, x, t: F.cross_entropy(x, t, reduction=reduction, label_smoothing=0.2), [X43, T4])
    check(lambda lib, F, x, t, w: F.cross_entropy(x, t, w, reduction=reduction, label_smoothing=0.3, ignore_index=2),
          [X43, T4, Fixed(U43[0])])
    check(lambda lib, F, x, t: F.cross_entropy(x, t, reduction=reduction), [X43, P43])
    check(lambda lib, F, x, t, w: F.cross_entropy(x, t, w, reduction=reduction, label_smoothing=0.1),
          [X43, P43, Fixed(U43[0])])
    check(lambda lib, F, x, t: F.cross_entropy(x[0], t[2], reduction=reduction), [X43, T4])
    x4, t4 = rand(2, 3, 2, 2), RNG.integers(0, 3, (2, 2, 2))
    check(lambda lib, F, x, t: F.cross_entropy(x, t, reduction=reduction, label_smoothing=0.1), [x4, t4])
    check(lambda lib, F, x: F.cross_entropy(x, x.detach().softmax(1), reduction=reduction), [x4], gradgrad=False)
    # a 1-d input with a target of size 1: torch's forward takes it, its backward refuses it
    check(lambda lib, F, x, t: F.nll_loss(x[0], t[:1], reduction=reduction).detach(), [X43, T4], gradgrad=False)
    same_error(lambda lib, F: F.nll_loss(lib.tensor(X43[0], requires_grad=True), lib.tensor(T4[:1])).backward())


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_pointwise_losses(reduction):
    """mse_loss (mse_loss_backward), l1_loss, smooth_l1_loss (smooth_l1_loss_backward), huber_loss
    (huber_loss_backward), binary_cross_entropy (binary_cross_entropy_backward),
    binary_cross_entropy_with_logits, kl_div."""
    check(lambda lib, F, x, t: F.mse_loss(x, t, reduction=reduction), [X43, U43])
    check(lambda lib, F, x, t: F.mse_loss(x, t[0], reduction=reduction), [X43, U43])
    check(lambda lib, F, x, t: F.l1_loss(x, t, reduction=reduction), [X43, U43])
    check(lambda lib, F, x, t: F.smooth_l1_loss(x, t, reduction=reduction), [X43 * 2, U43])
    check(lambda lib, F, x, t: F.smooth_l1_loss(x, t, reduction=reduction, beta=0.5), [X43, U43])
    check(lambda lib, F, x, t: F.smooth_l1_loss(x, t, reduction=reduction, beta=0.0), [X43, U43])
    check(lambda lib, F, x, t: F.huber_loss(x, t, reduction=reduction), [X43 * 2, U43])
    check(lambda lib, F, x, t: F.huber_loss(x, t, reduction=reduction, delta=0.5), [X43, U43])
    check(lambda lib, F, x, t: F.binary_cross_entropy(x, t, reduction=reduction), [U43, U43[::-1].copy()])
    check(lambda lib, F, x, t, w: F.binary_cross_entropy(x, t, w, reduction=reduction),
          [U43, U43[::-1].copy(), Fixed(U43[0] * 2)])
    check(lambda lib, F, x, t: F.binary_cross_entropy_with_logits(x, t, reduction=reduction), [X43, U43])
    check(lambda lib, F, x, t, w, p: F.binary_cross_entropy_with_logits(x, t, w, reduction=reduction, pos_weight=p),
          [X43, U43, Fixed(U43[1] * 2), Fixed(U43[2] * 3)])
    check(lambda lib, F, x, t: F.kl_div(x, t, reduction=reduction), [X43, P43])
    check(lambda lib, F, x, t: F.kl_div(x, t, reduction=reduction, log_target=True), [X43, X43[::-1].copy()])
    check(lambda lib, F, x, t, w: F.mse_loss(x, t, reduction=reduction, weight=w), [X43, U43, Fixed(U43 + 1)])
    check(lambda lib, F, x, t, w: F.l1_loss(x, t, reduction=reduction, weight=w), [X43, U43, Fixed(U43 + 1)])
    check(lambda lib, F, x, t, w: F.huber_loss(x, t, reduction=reduction, weight=w), [X43, U43, Fixed(U43 + 1)])


def test_kl_div_batchmean_and_warnings():
    check(lambda lib, F, x, t: F.kl_div(x, t, reduction="batchmean"), [X43, P43])
    for lib in (torch, torchlite):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            functional(lib).kl_div(lib.tensor(X43), lib.tensor(P43))
            functional(lib).mse_loss(lib.tensor(X43), lib.tensor(P43[0]))
            functional(lib).nll_loss(lib.tensor(X43), lib.tensor(T4), size_average=False)
        assert [str(m.message).replace("torchlite", "torch") for m in w] == [
            "reduction: 'mean' divides the total loss by both the batch size and the support size.'batchmean' "
            "divides only by the batch size, and aligns with the KL div math definition.'mean' will be changed to "
            "behave the same as 'batchmean' in the next major release.",
            "Using a target size (torch.Size([3])) that is different to the input size (torch.Size([4, 3])). This "
            "will likely lead to incorrect results due to broadcasting. Please ensure they have the same size.",
            "size_average and reduce args will be deprecated, please use reduction='sum' instead."]
        where = [m.filename == __file__ for m in w]
        assert where == ([True, True, False] if lib is torch else where)
        if lib is torchlite:
            assert where == [True, True, False]


def test_loss_saved_fields():
    def case(lib, F):
        x, t = lib.tensor(U43, requires_grad=True), lib.tensor(U43[::-1].copy(), requires_grad=True)
        out = []
        for y in (F.mse_loss(x, t), F.smooth_l1_loss(x, t, beta=0.5), F.huber_loss(x, t, delta=0.5),
                  F.binary_cross_entropy(x, t.detach(), reduction="sum"),
                  F.binary_cross_entropy_with_logits(x, t, pos_weight=lib.ones(3)), F.l1_loss(x, t),
                  F.kl_div(x, t, reduction="sum")):
            n = y.grad_fn
            out.append((n.name(), {k: getattr(n, k) for k in dir(n) if k.startswith("_saved_")}))
            g = lib.autograd.grad(y, x, create_graph=True)[0]
            out.append(g.grad_fn.name())
        return out
    same_error(case)


# ==== distances, one_hot, normalize, margin losses =================================================

def test_normalize():
    for kw in [{}, {"p": 1.0}, {"dim": 0}, {"p": 3.0, "dim": -1}, {"eps": 10.0}]:
        check(lambda lib, F, x, kw=kw: F.normalize(x, **kw), [X43], gradgrad="eps" not in kw)
    check(lambda lib, F, x: F.normalize(x, out=lib.empty(4, 3, dtype=x.dtype)), [Fixed(X43)], gradgrad=False)


def test_cosine_similarity_and_pairwise_distance():
    y43 = rand(4, 3)
    for kw in [{}, {"dim": 0}, {"eps": 1.0}]:
        check(lambda lib, F, x, y, kw=kw: F.cosine_similarity(x, y, **kw), [X43, y43], gradgrad="eps" not in kw)
    check(lambda lib, F, x, y: F.cosine_similarity(x, y[0]), [X43, y43])
    check(lambda lib, F, x, y: lib.cosine_similarity(x, y.int()), [Fixed(X43), (y43 * 3).astype(np.int64)],
          gradgrad=False)
    for kw in [{}, {"p": 1.0}, {"p": 3.0}, {"keepdim": True}, {"eps": 0.5}, {"p": float("inf")}]:
        check(lambda lib, F, x, y, kw=kw: F.pairwise_distance(x, y, **kw), [X43, y43],
              gradgrad="inf" not in str(kw))
    check(lambda lib, F, x, y: F.pairwise_distance(x, y[1]), [X43, y43])
    check(lambda lib, F, x, y: (lambda d: (d.grad_fn._saved_p, d.grad_fn._saved_dim, d.grad_fn._saved_keepdim))(
        F.pairwise_distance(x, y, 3.0, keepdim=True)), [X43, y43], gradgrad=False)
    same_error(lambda lib, F: F.cosine_similarity(lib.arange(3), lib.arange(3), 0))
    same_error(lambda lib, F: F.cosine_similarity(lib.ones(3, 2), lib.ones(2, 3)))


def test_one_hot():
    check(lambda lib, F, t: (F.one_hot(t), F.one_hot(t, 5), F.one_hot(t.reshape(2, 2)), F.one_hot(t[:0], 2)),
          [T4])
    for call in ["F.one_hot(lib.tensor([0, 2.0]))", "F.one_hot(lib.tensor([0, 3]), 3)", "F.one_hot(lib.tensor([-1]))",
                 "F.one_hot(lib.tensor([], dtype=lib.int64))", "F.one_hot(lib.tensor([0, 1], dtype=lib.int32))"]:
        same_error(lambda lib, F, call=call: eval(call))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_margin_losses(reduction):
    y43, s4 = rand(4, 3), np.array([1.0, -1.0, -1.0, 1.0])
    check(lambda lib, F, x, y, t: F.cosine_embedding_loss(x, y, t, reduction=reduction), [X43, y43, Fixed(s4)])
    check(lambda lib, F, x, y, t: F.cosine_embedding_loss(x, y, t, margin=-0.5, reduction=reduction),
          [X43, y43, Fixed(s4)])
    check(lambda lib, F, x, y, t: F.cosine_embedding_loss(x[0], y[0], t[1], reduction=reduction),
          [X43, y43, Fixed(s4)])
    check(lambda lib, F, x, y, t: F.margin_ranking_loss(x[:, 0], y[:, 0], t, margin=0.3, reduction=reduction),
          [X43, y43, Fixed(s4)])
    check(lambda lib, F, a, p, n: F.triplet_margin_loss(a, p, n, reduction=reduction), [X43, y43, rand(4, 3)])
    check(lambda lib, F, a, p, n: F.triplet_margin_loss(a, p, n, margin=2.0, p=1, swap=True, reduction=reduction),
          [X43, y43, rand(4, 3)])


def test_margin_loss_errors():
    for call in ["F.cosine_embedding_loss(lib.ones(2, 3), lib.ones(2, 3), lib.ones(2, 1))",
                 "F.cosine_embedding_loss(lib.ones(3), lib.ones(3), lib.ones(2))",
                 "F.cosine_embedding_loss(lib.ones(2, 3), lib.ones(2, 3), lib.tensor(1.0))",
                 "F.margin_ranking_loss(lib.ones(3), lib.ones(3, 1), lib.ones(3))",
                 "F.triplet_margin_loss(lib.ones(3), lib.ones(3), lib.ones(3), margin=0)",
                 "F.triplet_margin_loss(lib.ones(2, 3), lib.ones(3), lib.ones(3))",
                 "F.cosine_embedding_loss(lib.ones(2, 3), lib.ones(2, 3), lib.ones(2), reduction='x')"]:
        same_error(lambda lib, F, call=call: eval(call))


def test_feature_and_alpha_dropout():
    """Channel-wise masks (one draw per batch and channel), alpha dropout's affine noise; the graph
    (MulBackward0, AddBackward0 for alpha) and the deterministic cases against torch."""
    torchlite.manual_seed(1)
    x = torchlite.rand(40, 30, 5, dtype=torchlite.float64) + 0.5
    for name, p in [("dropout1d", 0.3), ("dropout2d", 0.6), ("dropout3d", 0.5)]:
        xd = x if name != "dropout3d" else x.unsqueeze(-1).unsqueeze(-1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y = getattr(TF, name)(xd.detach().requires_grad_(True), p)
        assert y.grad_fn.name() == "MulBackward0"
        ya, xa = np.asarray(y.detach()), np.asarray(xd)
        kept = (ya != 0).reshape(40, 30, -1)
        assert (kept.all(-1) | ~kept.any(-1)).all()  # whole channels
        assert abs((~kept[..., 0]).mean() - p) < 0.05
        np.testing.assert_allclose(ya[ya != 0], xa[ya != 0] / (1 - p), rtol=1e-12)
    y = TF.alpha_dropout(x.requires_grad_(True), 0.2, training=True)
    assert y.grad_fn.name() == "AddBackward0"
    a = 1.0 / np.sqrt((1.7580993408473766 ** 2 * 0.2 + 1) * 0.8)
    ya, xa = np.asarray(y.detach()), np.asarray(x.detach())
    dropped = np.isclose(ya, 1.7580993408473766 * a * (0.2 - 1) + 0 * xa)
    np.testing.assert_allclose(ya[~dropped], a * xa[~dropped] + 1.7580993408473766 * a * 0.2, rtol=1e-12)
    assert abs(dropped.mean() - 0.2) < 0.03
    assert TF.feature_alpha_dropout(x, 0.4, True).grad_fn.name() == "AddBackward0"

    def same(lib, F, x):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            out = (F.dropout1d(x, 0.0), F.dropout2d(x[0], 1.0), F.dropout3d(x, 0.5, training=False) is x,
                   F.alpha_dropout(x, 0.5) is x, F.alpha_dropout(x, 1.0, True), F.feature_alpha_dropout(x, 1.0, True),
                   lib.feature_dropout(x, 1.0, True), lib.alpha_dropout(x, 0.0, True) is x)
        return out, [str(m.message) for m in w]
    check(same, [rand(2, 3, 4)], gradgrad=False)
    for call in ["F.dropout1d(lib.ones(3), 0.5)", "F.dropout2d(lib.ones(3), 1.5)", "F.alpha_dropout(lib.ones(3), -1.0)",
                 "lib.feature_dropout(lib.ones(3), 0.5, True)", "lib.alpha_dropout(lib.ones(3), 2.0, True)"]:
        same_error(lambda lib, F, call=call: eval(call))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_more_losses(reduction):
    """soft_margin_loss (soft_margin_loss_backward), hinge_embedding_loss, poisson_nll_loss."""
    s43 = np.sign(rand(4, 3))
    check(lambda lib, F, x, t: F.soft_margin_loss(x, t, reduction=reduction), [X43, Fixed(s43)])
    check(lambda lib, F, x, t: F.hinge_embedding_loss(x, t, reduction=reduction), [X43, Fixed(s43)])
    check(lambda lib, F, x, t: F.hinge_embedding_loss(x, t, margin=0.5, reduction=reduction), [X43, Fixed(s43)])
    check(lambda lib, F, x, t: F.poisson_nll_loss(x, t, reduction=reduction), [X43, U43 * 3])
    check(lambda lib, F, x, t: F.poisson_nll_loss(x.exp(), t, log_input=False, full=True, reduction=reduction),
          [X43, U43 * 3])
    check(lambda lib, F, x, t: F.poisson_nll_loss(x, t, full=True, eps=0.1, reduction=reduction), [X43, U43 * 3])


def test_more_loss_errors():
    for call in ["F.poisson_nll_loss(lib.ones(3), lib.ones(3), reduction='x')",
                 "F.soft_margin_loss(lib.ones(3), lib.ones(3), reduction='x')",
                 "F.soft_margin_loss(lib.ones(3), lib.ones(2))",
                 "F.hinge_embedding_loss(lib.ones(3), lib.ones(2))",
                 "F.soft_margin_loss(lib.ones(3, requires_grad=True), lib.ones(3, requires_grad=True)).backward()"]:
        same_error(lambda lib, F, call=call: eval(call))
