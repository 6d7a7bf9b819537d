"""Every public name of torchlite's API is called on "cpu" and on "sim:0", and compared against torch.

The names are enumerated here, not listed: every callable a public module (MODULES) defines under a
public name, and every public attribute of Tensor. A name without a case in CASES fails
test_every_public_name_has_a_case, so a new public name cannot go untested. A case is
`case(lib, dev)`: it runs under torchlite on `dev` and under torch on "cpu" (torch has no "sim"
device), and both outcomes (values, or the exception's type and message: diff_utils.run) must be
equal. Every tensor a case returns under torchlite must be on `dev`. Names in NOT_COMPARED have no
torch counterpart to compare with; their case runs under torchlite only and checks what it gets.

A name reached twice (torchlite.no_grad is torchlite.autograd.no_grad) is one object: the case of
one of its names covers it. Names a module merely imports from elsewhere (typing.NamedTuple,
collections.Counter) are not torchlite's surface.
"""
import importlib
import re
import warnings

import numpy as np
import pytest

import torchlite

from diff_utils import import_torch, norm, run, same_cuda_build

torch = import_torch()

DEVICES = ["cpu", "sim:0"]
MODULES = ["torchlite", "torchlite.autograd", "torchlite.autograd.functional", "torchlite.autograd.graph",
           "torchlite.autograd.legacy_engine", "torchlite.utils.checkpoint", "torchlite.cuda", "torchlite.accelerator",
           "torchlite.linalg", "torchlite.special", "torchlite.nn", "torchlite.nn.functional", "torchlite.nn.init",
           "torchlite.nn.utils", "torchlite.optim", "torchlite.utils.data"]

# torch's CPU build refuses these through internal stubs (an AttributeError on torch._C, "dummy base
# class"); torchlite without CUDA raises torch's "Torch not compiled with CUDA enabled" for all of them
_CUDA_STUBS = "torch's CPU build refuses it through an internal stub; torchlite raises 'not compiled with CUDA'"
NOT_COMPARED = {
    "torchlite.autograd.trace": "torchlite-only: the engine trace",
    "torchlite.autograd.graph.to_dot": "torchlite-only: graph pictures",
    "torchlite.autograd.graph.Digraph": "torchlite-only: graph pictures",
    "torchlite.autograd.legacy_engine.ExecutionEngine": "torchlite-only: the 2018 Python engine",
    "torchlite.autograd.legacy_engine.backward": "torchlite-only: the 2018 Python engine",
    "torchlite.autograd.legacy_engine.use": "torchlite-only: the 2018 Python engine",
    "torchlite.cuda.set_device": _CUDA_STUBS,
    "torchlite.cuda.device": _CUDA_STUBS,
    "torchlite.cuda.Stream": _CUDA_STUBS,
    "torchlite.cuda.Event": _CUDA_STUBS,
}


# Known bugs: (name, device or None for both) -> reason. Strict: a fix makes the case pass, and
# then the entry must go.
_OPS = "torchlite/_ops: "
XFAIL: dict = {}


def public_names():
    """Qualified name -> object, for every public callable torchlite defines and every public
    attribute of Tensor (its methods and properties)."""
    names = {}
    for mod_name in MODULES:
        mod = importlib.import_module(mod_name)
        for name in dir(mod):
            obj = getattr(mod, name)
            if name.startswith("_") or not callable(obj):
                continue
            if not getattr(obj, "__module__", "").startswith("torchlite"):
                continue  # imported from the standard library
            names[f"{mod_name}.{name}"] = obj
    for name in dir(torchlite.Tensor):
        if not name.startswith("_"):
            names[f"Tensor.{name}"] = name
    return names


CASES = {}


def case(*names):
    def register(fn):
        for name in names:
            assert name not in CASES, name
            CASES[name] = fn
        return fn
    return register


# Inputs -------------------------------------------------------------------------------------------
A = [[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]]
P = [[1.0, 2.0, 3.0], [0.5, 4.0, 1.5]]  # positive, for log, sqrt, pow


def T(lib, dev, data=A, **kw):
    return lib.tensor(data, device=dev, **kw)


def leaf(lib, dev, data=A, dtype=None):
    return lib.tensor(data, device=dev, dtype=dtype, requires_grad=True)


def with_grads(lib, fn, *leaves):
    """fn(*leaves), and the leaves' gradients through it (the sum of its tensor outputs, weighted
    so a wrong gradient shows)."""
    out = fn(*leaves)
    outs = out if isinstance(out, (tuple, list)) else (out,)
    loss = None
    for o in outs:
        if isinstance(o, (torch.Tensor, torchlite.Tensor)) and o.requires_grad:
            w = lib.arange(o.numel(), dtype=o.dtype, device=o.device).reshape(o.shape) + 1
            term = (o * w).sum()
            loss = term if loss is None else loss + term
    grads = lib.autograd.grad(loss, leaves, allow_unused=True) if loss is not None else None
    return out, grads


# torchlite.* functions -----------------------------------------------------------------------------
UNARY = ["abs", "cos", "exp", "log", "neg", "positive", "reciprocal", "relu", "sigmoid", "sin", "sqrt", "tanh"]


def _unary(name, method):
    def run_case(lib, dev):
        x = leaf(lib, dev, P if name in ("log", "sqrt") else A)
        return with_grads(lib, lambda x: getattr(x, name)() if method else getattr(lib, name)(x), x)
    return run_case


for _name in UNARY:
    case(f"torchlite.{_name}")(_unary(_name, False))
    case(f"Tensor.{_name}")(_unary(_name, True))


def inplace_case(name, method, data=A, *args):
    """A structured in-place variant (Note [Structured in-place variants]) on a non-leaf: the
    op's value, its node and the leaf's gradient through it."""
    def run_case(lib, dev):
        def op(x):
            y = x * 1
            out = getattr(y, name)(*args) if method else getattr(lib, name)(y, *args)
            return out, out is y, y.grad_fn.name(), y._version
        return with_grads(lib, op, leaf(lib, dev, data))
    return run_case


for _name in ["abs", "cos", "exp", "log", "neg", "reciprocal", "relu", "sigmoid", "sin", "sqrt", "tanh"]:
    _data = P if _name in ("log", "sqrt") else A
    case(f"torchlite.{_name}_")(inplace_case(f"{_name}_", False, _data))
    case(f"Tensor.{_name}_")(inplace_case(f"{_name}_", True, _data))
case("Tensor.pow_")(inplace_case("pow_", True, P, 1.5))


@case("Tensor.atan2_")
def _atan2_(lib, dev):
    return with_grads(lib, lambda x, y: (x * 1).atan2_(y), leaf(lib, dev), leaf(lib, dev, P))


BINARY = {"add": lambda f, x, y: f(x, y, alpha=2), "sub": lambda f, x, y: f(x, y, alpha=0.5),
          "mul": lambda f, x, y: f(x, y), "div": lambda f, x, y: f(x, y, rounding_mode=None),
          "pow": lambda f, x, y: f(x, y)}


def _binary(name, method):
    def run_case(lib, dev):
        x, y = leaf(lib, dev, P), leaf(lib, dev, [1.5, -0.5, 2.0])
        def op(x, y):
            f = getattr(x, name) if method else (lambda *a, **k: getattr(lib, name)(x, *a, **k))
            return BINARY[name](lambda _x, *a, **k: f(*a, **k), x, y), f(2.0)
        return with_grads(lib, op, x, y)
    return run_case


for _name in BINARY:
    case(f"torchlite.{_name}")(_binary(_name, False))
    case(f"Tensor.{_name}")(_binary(_name, True))


@case("torchlite.atan2", "Tensor.atan2")
def _atan2(lib, dev):
    x, y = leaf(lib, dev, P), leaf(lib, dev, [1.5, -0.5, 2.0])
    return with_grads(lib, lambda x, y: (lib.atan2(x, y), x.atan2(y)), x, y)


@case("torchlite.matmul", "Tensor.matmul")
def _matmul(lib, dev):
    x, y = leaf(lib, dev), leaf(lib, dev, [[1.0, 2.0], [0.0, -1.0], [3.0, 0.5]])
    return with_grads(lib, lambda x, y: (lib.matmul(x, y), x.matmul(y), x @ y[:, 0]), x, y)


@case("torchlite.sum", "Tensor.sum")
def _sum(lib, dev):
    x = leaf(lib, dev)
    return with_grads(lib, lambda x: (lib.sum(x), x.sum(1), x.sum(dim=0, keepdim=True), x.sum((0, 1))), x)


@case("torchlite.mean", "Tensor.mean")
def _mean(lib, dev):
    x = leaf(lib, dev)
    return with_grads(lib, lambda x: (lib.mean(x), x.mean(1), x.mean(dim=0, keepdim=True)), x)


def _reduce_minmax(name):
    def run_case(lib, dev):
        x = leaf(lib, dev, [[1.0, 5.0, 3.0], [7.0, 4.0, 4.0]])
        def op(x):
            r = getattr(x, name)(1)
            return getattr(lib, name)(x), tuple(r), r.values, r.indices, getattr(x, name)(dim=0, keepdim=True)[0], \
                getattr(lib, name)(x, T(lib, dev, [[2.0, 2.0, 2.0]] * 2))
        return with_grads(lib, op, x)
    return run_case


for _name in ("max", "min"):
    case(f"torchlite.{_name}", f"Tensor.{_name}")(_reduce_minmax(_name))


@case("torchlite.cat")
def _cat(lib, dev):
    x, y = leaf(lib, dev), leaf(lib, dev, [[9.0, 8.0, 7.0]])
    return with_grads(lib, lambda x, y: (lib.cat([x, y]), lib.cat((x, x), dim=1)), x, y)


@case("torchlite.stack")
def _stack(lib, dev):
    x, y = leaf(lib, dev), leaf(lib, dev, P)
    return with_grads(lib, lambda x, y: (lib.stack([x, y]), lib.stack((x, y), dim=2)), x, y)


@case("torchlite.where", "Tensor.where")
def _where(lib, dev):
    x, y = leaf(lib, dev), leaf(lib, dev, P)
    return with_grads(lib, lambda x, y: (lib.where(x > 1, x, y), x.where(x < 2, y)), x, y)


@case("torchlite.clone", "Tensor.clone")
def _clone(lib, dev):
    x = leaf(lib, dev)
    return with_grads(lib, lambda x: (lib.clone(x), x.t().clone(), x.t().clone().stride()), x)


def _shape_op(fn):
    def run_case(lib, dev):
        x = leaf(lib, dev, [[[1.0, 2.0, 3.0, 4.0]], [[5.0, 6.0, 7.0, 8.0]]])  # (2, 1, 4)
        return with_grads(lib, lambda x: fn(lib, x), x)
    return run_case


SHAPE_OPS = {
    "permute": lambda lib, x: (lib.permute(x, (2, 0, 1)), x.permute(1, 2, 0)),
    "reshape": lambda lib, x: (lib.reshape(x, (4, 2)), x.reshape(-1), x.reshape(2, 2, 2)),
    "squeeze": lambda lib, x: (lib.squeeze(x), x.squeeze(1), x.squeeze(0)),
    "unsqueeze": lambda lib, x: (lib.unsqueeze(x, 0), x.unsqueeze(-1)),
    "transpose": lambda lib, x: (lib.transpose(x, 0, 2), x.transpose(1, 2)),
    "t": lambda lib, x: (lib.t(x[:, 0]), x[:, 0].t(), lib.t(x[0, 0])),
    "narrow": lambda lib, x: (lib.narrow(x, 2, 1, 2), x.narrow(0, 1, 1)),
    "diagonal": lambda lib, x: (lib.diagonal(x, 0, 0, 2), x.diagonal(offset=1, dim1=2, dim2=0)),
    "as_strided": lambda lib, x: (lib.as_strided(x, (2, 2), (1, 2)), x.as_strided((3,), (2,), 1)),
    "split": lambda lib, x: (lib.split(x, 3, dim=2), x.split([1, 3], 2)),
    "chunk": lambda lib, x: (lib.chunk(x, 2, dim=2), x.chunk(3, 2)),
    "unbind": lambda lib, x: (lib.unbind(x), x.unbind(2)),
}
for _name, _fn in SHAPE_OPS.items():
    case(f"torchlite.{_name}", f"Tensor.{_name}")(_shape_op(_fn))


case("Tensor.expand")(_shape_op(lambda lib, x: (x.expand(2, 3, 4), x.expand(2, 3, -1), x.expand(1, 2, 1, 4))))


# Factories
@case("torchlite.tensor")
def _tensor(lib, dev):
    return (T(lib, dev), T(lib, dev, [1, 2]), T(lib, dev, True), T(lib, dev, 2.5, dtype=lib.float64),
            T(lib, dev, [[1, 2]], dtype=lib.float32), lib.tensor(T(lib, dev)), T(lib, dev, [1.0], requires_grad=True))


@case("torchlite.as_tensor")
def _as_tensor(lib, dev):
    x = T(lib, dev)
    same = lib.as_tensor(x)
    return same is x, lib.as_tensor([1, 2], device=dev), lib.as_tensor(x, dtype=lib.float64), \
        lib.as_tensor(np.arange(3.0)).tolist()


@case("torchlite.from_numpy")
def _from_numpy(lib, dev):
    a = np.arange(4.0)
    t = lib.from_numpy(a)
    a[0] = 7.0  # shares memory
    return t.tolist(), str(t.dtype), str(t.to(dev).device) == dev


@case("torchlite.from_dlpack")
def _from_dlpack(lib, dev):
    a = np.arange(3, dtype=np.int64)
    t = lib.from_dlpack(a)
    a[1] = 9
    return t.tolist(), str(t.dtype)


def _factory(name):
    def run_case(lib, dev):
        f = getattr(lib, name)
        return (f(2, 3, device=dev), f((2,), dtype=lib.float64, device=dev), f([1, 2], dtype=lib.int64, device=dev),
                f(3, device=dev, requires_grad=True), f(2, dtype=lib.bool, device=dev))
    return run_case


for _name in ("zeros", "ones"):
    case(f"torchlite.{_name}")(_factory(_name))


@case("torchlite.empty")
def _empty(lib, dev):
    xs = (lib.empty(2, 3, device=dev), lib.empty((4,), dtype=lib.int64, device=dev), lib.empty(1, requires_grad=True))
    return [(tuple(x.shape), str(x.dtype), x.requires_grad, x.stride()) for x in xs]


@case("torchlite.full")
def _full(lib, dev):
    return (lib.full((2, 2), 1.5, device=dev), lib.full((2,), 3, device=dev), lib.full((1,), True, device=dev),
            lib.full([2], 2, dtype=lib.float64, device=dev), lib.full((2,), 1.0, device=dev, requires_grad=True))


@case("torchlite.arange")
def _arange(lib, dev):
    return (lib.arange(5, device=dev), lib.arange(1, 4, device=dev), lib.arange(0, 1, 0.25, device=dev),
            lib.arange(3, dtype=lib.float64, device=dev), lib.arange(2.0, device=dev, requires_grad=True))


# *_like: an input laid out as a transpose, and an expanded one (empty_like's preserve_format)
def _like_inputs(lib, dev):
    return [T(lib, dev), T(lib, dev).t(), T(lib, dev, [[1.0], [2.0]]).expand(2, 3),
            T(lib, dev, [1, 2], dtype=lib.int64)]


def _like_case(name, *args):
    def run_case(lib, dev):
        f = getattr(lib, name)
        out = []
        for x in _like_inputs(lib, dev):
            for kw in ({}, {"dtype": lib.float64}, {"requires_grad": True}):
                def show(lib, x=x, kw=kw):
                    y = f(x, *args, **kw)
                    values = y if name != "empty_like" else None  # empty_like's are not compared
                    return values, tuple(y.shape), str(y.dtype), y.stride(), y.requires_grad
                out.append(run(show, lib))
        return out
    return run_case


case("torchlite.zeros_like")(_like_case("zeros_like"))
case("torchlite.ones_like")(_like_case("ones_like"))
case("torchlite.empty_like")(_like_case("empty_like"))
case("torchlite.full_like")(_like_case("full_like", 2.5))


def _random_case(name):
    """Random factories: the values (torch's numbers for the seed: torchlite/_random.py), shape,
    dtype, layout, range, requires_grad and the errors for a dtype that is not floating."""
    def describe(y):
        a = y.detach().numpy()
        in_range = bool(((a >= 0) & (a < 1)).all()) if name.startswith("rand_") or name == "rand" else True
        return tuple(y.shape), str(y.dtype), y.stride(), y.requires_grad, in_range, y

    def run_case(lib, dev):
        lib.manual_seed(0)
        f = getattr(lib, name)
        out = []
        if name.endswith("_like"):
            for x in _like_inputs(lib, dev)[:3]:
                for kw in ({}, {"dtype": lib.float64}, {"requires_grad": True}):
                    out.append(run(lambda lib, x=x, kw=kw: describe(f(x, **kw)), lib))
            out.append(str(f(T(lib, dev), device=dev).device) == dev)
            out.append(run(lambda lib: f(T(lib, dev, [1, 2])), lib))  # int64 input
            out.append(run(lambda lib: f(T(lib, dev, [True])), lib))
            out.append(run(lambda lib: f(T(lib, dev, [1, 2]), dtype=lib.int64), lib))
            out.append(describe(f(T(lib, dev, [1, 2]), dtype=lib.float32)))
        else:
            out += [describe(f(2, 3, device=dev)), describe(f((4,), dtype=lib.float64, device=dev)),
                    describe(f(2, device=dev, requires_grad=True)), describe(f(5, 7, device=dev)),
                    run(lambda lib: f(2, dtype=lib.int64, device=dev), lib),
                    run(lambda lib: f(2, dtype=lib.bool, device=dev), lib)]
        return out
    return run_case


for _name in ("randn", "rand", "randn_like", "rand_like"):
    case(f"torchlite.{_name}")(_random_case(_name))


@case("torchlite.manual_seed")
def _manual_seed(lib, dev):
    g = lib.manual_seed(3)
    a = lib.randn(4, device=dev)
    lib.manual_seed(3)
    return (a, lib.randn(4, device=dev), g is lib.default_generator, lib.manual_seed(-1).initial_seed(),
            lib.randn(20, device=dev), run(lambda lib: lib.manual_seed(2 ** 64), lib))


@case("torchlite.get_num_threads", "torchlite.set_num_threads")
def _num_threads(lib, dev):
    before = lib.get_num_threads()
    try:
        lib.set_num_threads(2)
        got = lib.get_num_threads()
    finally:
        lib.set_num_threads(before)
    return got, run(lambda lib: lib.set_num_threads(0), lib)[0]


@case("torchlite.is_tensor")
def _is_tensor(lib, dev):
    return lib.is_tensor(T(lib, dev)), lib.is_tensor([1.0]), lib.is_tensor(np.ones(2))


@case("torchlite.Tensor")
def _tensor_class(lib, dev):
    x = T(lib, dev)
    return isinstance(x, lib.Tensor), isinstance(x.t(), lib.Tensor), issubclass(type(x), lib.Tensor)


@case("torchlite.Size")
def _size_class(lib, dev):
    s = lib.Size([2, 3])
    return s, repr(s), s.numel(), T(lib, dev).shape == s, isinstance(T(lib, dev).size(), lib.Size)


@case("torchlite.dtype")
def _dtype_class(lib, dev):
    return [(isinstance(d, lib.dtype), d.is_floating_point, d.itemsize, repr(d))
            for d in (lib.float32, lib.float64, lib.int64, lib.bool, lib.float, lib.double, lib.long)]


@case("torchlite.device")
def _device_class(lib, dev):
    d = lib.device(dev)
    return (d == T(lib, dev).device, d.type == dev.split(":")[0], repr(lib.device("cpu")), str(lib.device("cpu", 0)),
            run(lambda lib: lib.device("cpu:0", 0), lib))


# Grad modes
@case("torchlite.no_grad", "torchlite.enable_grad", "torchlite.set_grad_enabled", "torchlite.is_grad_enabled")
def _grad_modes(lib, dev):
    x = leaf(lib, dev)
    out = [lib.is_grad_enabled()]
    with lib.no_grad():
        y = x * 2
        out.append(lib.is_grad_enabled())
        with lib.enable_grad():
            z = x * 2
    with lib.set_grad_enabled(False):
        w = x * 2
    lib.set_grad_enabled(False)
    out.append(lib.is_grad_enabled())
    lib.set_grad_enabled(True)

    @lib.no_grad()
    def f(x):
        return x * 3
    return out + [y.requires_grad, z.requires_grad, w.requires_grad, f(x).requires_grad, lib.is_grad_enabled()]


@case("torchlite.inference_mode", "torchlite.is_inference_mode_enabled", "Tensor.is_inference")
def _inference(lib, dev):
    x = leaf(lib, dev)
    with lib.inference_mode():
        y = x * 2
        inside = lib.is_inference_mode_enabled()
        with lib.inference_mode(False):
            inner = lib.is_inference_mode_enabled()
    return (inside, inner, lib.is_inference_mode_enabled(), y.is_inference(), x.is_inference(), y.requires_grad,
            run(lambda lib: y.add_(1), lib))


# torchlite.autograd -------------------------------------------------------------------------------
@case("torchlite.autograd.backward", "Tensor.backward", "Tensor.grad")
def _backward(lib, dev):
    x, y = leaf(lib, dev), leaf(lib, dev, P)
    lib.autograd.backward([(x * y).sum(), (x * x).sum()])
    (x * 3).sum().backward()
    (y * x).backward(T(lib, dev, P))
    lib.autograd.backward(x.sum(), inputs=[x])
    return x.grad, y.grad, run(lambda lib: (x * 2).backward(), lib), (x * 2).grad, \
        run(lambda lib: setattr(x, "grad", T(lib, dev, [1.0])), lib)


@case("torchlite.autograd.grad")
def _grad(lib, dev):
    x, y = leaf(lib, dev), leaf(lib, dev, P)
    z = (x * y * x).sum()
    gx, = lib.autograd.grad(z, x, create_graph=True)
    ggx = lib.autograd.grad(gx.sum(), [x, y])
    return gx, ggx, run(lambda lib: lib.autograd.grad((x * 2).sum(), [x, y]), lib), \
        lib.autograd.grad((x * 2).sum(), [x, y], allow_unused=True, materialize_grads=True)


@case("torchlite.autograd.functional.vjp", "torchlite.autograd.functional.jvp",
      "torchlite.autograd.functional.jacobian", "torchlite.autograd.functional.hessian",
      "torchlite.autograd.functional.vhp", "torchlite.autograd.functional.hvp")
def _functional(lib, dev):
    F = lib.autograd.functional
    x, v = T(lib, dev, [0.5, -1.0, 2.0], dtype=lib.float64), T(lib, dev, [1.0, 0.5, -2.0], dtype=lib.float64)

    def cubes(t):
        return (t ** 3).sum()
    return (F.vjp(lambda t: t.tanh(), x, v), F.jvp(lambda t: t.tanh(), x, v), F.jacobian(lambda t: t.sin(), x),
            F.jacobian(lambda t: t.sin(), x, vectorize=True), F.hessian(cubes, x), F.vhp(cubes, x, v),
            F.hvp(cubes, x, v), lib.autograd.grad(x.requires_grad_() ** 2, x, v.expand(2, 3), is_grads_batched=True))


class _Cube:
    """A custom Function under either library (defined per library: it subclasses lib's Function)."""

    @staticmethod
    def make(lib):
        class Cube(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x ** 3

            @staticmethod
            def backward(ctx, g):
                x, = ctx.saved_tensors
                return g * 3 * x ** 2
        return Cube


@case("torchlite.autograd.Function")
def _function(lib, dev):
    x = leaf(lib, dev)
    y = _Cube.make(lib).apply(x)
    return with_grads(lib, lambda x: _Cube.make(lib).apply(x), x), type(y.grad_fn).__name__


@case("torchlite.autograd.once_differentiable")
def _once_differentiable(lib, dev):
    class Sq(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 2 * x * g
    x = leaf(lib, dev)
    g, = lib.autograd.grad(Sq.apply(x).sum(), x, create_graph=True)
    return g, g.requires_grad, run(lambda lib: g.sum().backward(), lib)


@case("torchlite.autograd.Variable")
def _variable(lib, dev):
    x = T(lib, dev)
    return isinstance(x, lib.autograd.Variable), isinstance(x.t(), lib.autograd.Variable)


@case("torchlite.autograd.gradcheck", "torchlite.autograd.gradgradcheck")
def _gradcheck(lib, dev):
    x = leaf(lib, dev, P, dtype=lib.float64)
    bad = _Cube.make(lib)
    return (lib.autograd.gradcheck(lambda x: (x * x.sin()).sum(), (x,)),
            lib.autograd.gradgradcheck(lambda x: x * x.exp(), (x,)),
            lib.autograd.gradcheck(lambda x: bad.apply(x) * 2 + x, (x,)),
            run(lambda lib: lib.autograd.gradcheck(lambda x: x.relu() * 0 + x.sum().detach() * x, (x,)), lib)[0])


@case("torchlite.autograd.detect_anomaly", "torchlite.autograd.set_detect_anomaly")
def _anomaly(lib, dev):
    x = leaf(lib, dev, [0.0, 1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with lib.autograd.detect_anomaly():
            nan = run(lambda lib: (x.sqrt() * 0).sum().backward(), lib)
        with lib.autograd.set_detect_anomaly(True):
            named = run(lambda lib: (x.sqrt() * 0).sum().backward(), lib)
        off = run(lambda lib: (x.sqrt() * 0).sum().backward(), lib)
    return nan, named, off


@case("torchlite.autograd.set_multithreading_enabled")
def _multithreading(lib, dev):
    x = leaf(lib, dev)
    with lib.autograd.set_multithreading_enabled(False):
        (x * 2).sum().backward()
    return x.grad


@case("torchlite.autograd.trace")
def _trace(lib, dev):
    x = leaf(lib, dev)
    with lib.autograd.trace() as t:
        (x.exp() * 2).sum().backward()
    kinds = {e["kind"] for e in t.events}
    assert {"graph_task_start", "enqueue", "graph_task_end"} <= kinds, kinds
    assert "ExpBackward0" in t.timeline()
    assert t.graph_task_state()["nodes"] if isinstance(t.graph_task_state(), dict) else t.graph_task_state()


# torchlite.autograd.graph
@case("torchlite.autograd.graph.saved_tensors_hooks")
def _saved_tensors_hooks(lib, dev):
    x = leaf(lib, dev)
    packed = []
    with lib.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t.shape) or t * 1, lambda t: t * 2):
        y = (x * x).sum()
    return with_grads(lib, lambda x: x, x)[0], lib.autograd.grad(y, x), len(packed)


@case("torchlite.autograd.graph.Node", "torchlite.autograd.graph.register_multi_grad_hook",
      "torchlite.autograd.graph.increment_version")
def _graph_node_and_multi_hook(lib, dev):
    G = lib.autograd.graph
    a, b = leaf(lib, dev), leaf(lib, dev, P)
    seen = []
    handle = G.register_multi_grad_hook((a, b), lambda grads: seen.append(grads))
    y = a * b
    is_node = isinstance(y.grad_fn, G.Node), isinstance(a, G.Node)
    G.increment_version(y)
    y.sum().backward()
    handle.remove()
    return seen, is_node, y._version


@case("torchlite.autograd.graph.save_on_cpu", "torchlite.autograd.graph.disable_saved_tensors_hooks")
def _save_on_cpu(lib, dev):
    G = lib.autograd.graph
    x = leaf(lib, dev)
    with G.save_on_cpu():
        y = (x * x).sin()
    y.sum().backward()

    def refused():
        with G.disable_saved_tensors_hooks("hooks are off"), G.save_on_cpu():
            pass
    return x.grad, run(lambda lib: refused(), lib)


@case("torchlite.autograd.graph.get_gradient_edge", "torchlite.autograd.graph.GradientEdge")
def _gradient_edge(lib, dev):
    x = leaf(lib, dev)
    y = x.exp()
    edge = lib.autograd.graph.get_gradient_edge(y)
    leaf_edge = lib.autograd.graph.get_gradient_edge(x)
    return (isinstance(edge, lib.autograd.graph.GradientEdge), edge.node.name(), edge.output_nr,
            leaf_edge.node.name(), lib.autograd.grad(y.sum(), edge), run(lambda lib: lib.autograd.graph.
                                                                         get_gradient_edge(T(lib, dev)), lib))


@case("torchlite.autograd.graph.to_dot", "torchlite.autograd.graph.Digraph")
def _to_dot(lib, dev):
    x = leaf(lib, dev)
    dot = lib.autograd.graph.to_dot((x.exp() * 2).sum())
    assert isinstance(dot, lib.autograd.graph.Digraph)
    assert "ExpBackward0" in dot.source and "AccumulateGrad" in str(dot)


# torchlite.autograd.legacy_engine
@case("torchlite.autograd.legacy_engine.backward", "torchlite.autograd.legacy_engine.use",
      "torchlite.autograd.legacy_engine.ExecutionEngine")
def _legacy(lib, dev):
    from torchlite.autograd import legacy_engine
    x = leaf(lib, dev)
    legacy_engine.backward((x * x).sum())
    with legacy_engine.use():
        (x.exp()).sum().backward()
    assert isinstance(legacy_engine._engine, legacy_engine.ExecutionEngine)
    expected = (2 * x + x.exp()).detach()
    assert np.allclose(x.grad.numpy(), expected.numpy()) and x.grad.device == expected.device


# torchlite.utils.checkpoint
@case("torchlite.utils.checkpoint.checkpoint", "torchlite.utils.checkpoint.CheckpointFunction")
def _checkpoint(lib, dev):
    from importlib import import_module
    cp = import_module(lib.__name__ + ".utils.checkpoint")
    x = leaf(lib, dev)
    out = []
    for reentrant in (True, False):
        y = cp.checkpoint(lambda x: x.sin().exp(), x, use_reentrant=reentrant)
        out.append(with_grads(lib, lambda x, reentrant=reentrant: cp.checkpoint(lambda x: x.sin() * x, x,
                                                                                use_reentrant=reentrant), x))
        out.append(y.grad_fn.name() if reentrant else None)
    out.append(cp.CheckpointFunction.apply(lambda x: x * 2, True, x).grad_fn.name())
    return out


@case("torchlite.utils.checkpoint.CheckpointError")
def _checkpoint_error(lib, dev):
    from importlib import import_module
    cp = import_module(lib.__name__ + ".utils.checkpoint")
    x = leaf(lib, dev)
    counter = [0]

    def f(x):
        counter[0] += 1
        return x.exp() if counter[0] == 1 else x.exp()[:1]
    y = cp.checkpoint(f, x, use_reentrant=False)
    err = run(lambda lib: y.sum().backward(), lib)
    return issubclass(cp.CheckpointError, RuntimeError), err[:2]


@case("torchlite.utils.checkpoint.detach_variable", "torchlite.utils.checkpoint.check_backward_validity")
def _checkpoint_helpers(lib, dev):
    from importlib import import_module
    cp = import_module(lib.__name__ + ".utils.checkpoint")
    x = leaf(lib, dev)
    d = cp.detach_variable((x, 1))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cp.check_backward_validity((T(lib, dev),))
        cp.check_backward_validity((x,))
    return d[0], d[0].requires_grad, d[0] is x, d[1], run(lambda lib: cp.detach_variable([x]), lib), \
        [norm(str(w.message)) for w in caught]


# torchlite.cuda (without a GPU: what torch's CPU build does)
@case("torchlite.cuda.is_available", "torchlite.cuda.device_count", "torchlite.cuda.is_initialized",
      "torchlite.cuda.current_device", "torchlite.cuda.synchronize", "torchlite.cuda.current_stream",
      "torchlite.cuda.default_stream", "torchlite.cuda.set_stream", "torchlite.cuda.stream",
      "torchlite.cuda.StreamContext", "torchlite.cuda.device_of")
def _cuda_queries(lib, dev):
    def entered(ctx):
        with ctx:
            return "entered"
    return (lib.cuda.is_available(), lib.cuda.device_count(), lib.cuda.is_initialized(),
            run(lambda lib: lib.cuda.current_device(), lib), run(lambda lib: lib.cuda.synchronize(), lib),
            run(lambda lib: lib.cuda.current_stream(), lib), run(lambda lib: lib.cuda.default_stream(), lib),
            lib.cuda.set_stream(None), entered(lib.cuda.stream(None)), entered(lib.cuda.StreamContext(None)),
            entered(lib.cuda.device_of(T(lib, dev))))


@case("torchlite.cuda.set_device", "torchlite.cuda.device", "torchlite.cuda.Stream", "torchlite.cuda.Event")
def _cuda_stubs(lib, dev):
    for call in (lambda: lib.cuda.set_device(0), lambda: lib.cuda.device(0).__enter__(), lib.cuda.Stream,
                 lib.cuda.Event):
        with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
            call()


# Tensor methods and properties --------------------------------------------------------------------
def _inplace(name, other):
    def run_case(lib, dev):
        x = leaf(lib, dev)

        def op(x):
            y = x * 1
            z = getattr(y, name)(other(lib, dev))
            return y, z is y
        return with_grads(lib, op, x), run(lambda lib: getattr(leaf(lib, dev), name)(1.0), lib)
    return run_case


case("Tensor.add_")(_inplace("add_", lambda lib, dev: T(lib, dev, [1.0, 2.0, 3.0])))
case("Tensor.sub_")(_inplace("sub_", lambda lib, dev: 2.0))
case("Tensor.mul_")(_inplace("mul_", lambda lib, dev: T(lib, dev, P, requires_grad=True)))
case("Tensor.div_")(_inplace("div_", lambda lib, dev: T(lib, dev, [2.0, 4.0, 0.5])))
case("Tensor.fill_")(_inplace("fill_", lambda lib, dev: 1.5))
case("Tensor.copy_")(_inplace("copy_", lambda lib, dev: T(lib, dev, [[7.0], [8.0]], requires_grad=True)))


@case("Tensor.zero_")
def _zero_(lib, dev):
    x = leaf(lib, dev)
    return with_grads(lib, lambda x: (x * 1).zero_() + x, x)


COMPARE = {n: n for n in ("eq", "ne", "lt", "le", "gt", "ge")}
for _name in COMPARE:
    case(f"Tensor.{_name}")(lambda lib, dev, _n=_name: (getattr(T(lib, dev), _n)(T(lib, dev, P)),
                                                        getattr(T(lib, dev), _n)(1.0),
                                                        getattr(T(lib, dev, [1, 2]), _n)(2)))


def _once_warning_ignored(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn()


def _value(fn):
    """A case of a Tensor attribute read on a few tensors (floats, a transpose, int64, 0-d)."""
    def run_case(lib, dev):
        xs = [T(lib, dev), T(lib, dev).t(), T(lib, dev, [3, 4]), T(lib, dev, 2.5), leaf(lib, dev)]
        return [run(lambda lib, x=x: fn(lib, x), lib) for x in xs]
    return run_case


VALUE_CASES = {
    "shape": lambda lib, x: x.shape,
    "size": lambda lib, x: (x.size(), x.size(0), x.size(-1)),
    "dim": lambda lib, x: x.dim(),
    "ndim": lambda lib, x: x.ndim,
    "numel": lambda lib, x: x.numel(),
    "nelement": lambda lib, x: x.nelement(),
    "element_size": lambda lib, x: x.element_size(),
    "dtype": lambda lib, x: str(x.dtype),
    "is_contiguous": lambda lib, x: x.is_contiguous(),
    "is_cuda": lambda lib, x: x.is_cuda,
    "stride": lambda lib, x: (x.stride(), x.stride(0), x.stride(-1)),
    "storage_offset": lambda lib, x: (x.storage_offset(), x[1:].storage_offset()),
    "item": lambda lib, x: x.item(),
    "tolist": lambda lib, x: x.tolist(),
    # (their deprecation warnings warn once a process, whichever test reads them first: test_autograd_api.py
    # checks them)
    "T": lambda lib, x: _once_warning_ignored(lambda: x.T),
    "mT": lambda lib, x: _once_warning_ignored(lambda: x.mT),
    "mH": lambda lib, x: _once_warning_ignored(lambda: x.mH),
    "H": lambda lib, x: x.H,
    "adjoint": lambda lib, x: x.adjoint(),
    "float": lambda lib, x: x.float(),
    "double": lambda lib, x: x.double(),
    "long": lambda lib, x: x.long(),
    "bool": lambda lib, x: x.bool(),
    "contiguous": lambda lib, x: (x.contiguous(), x.contiguous().is_contiguous()),
    "detach": lambda lib, x: (x.detach(), x.detach().requires_grad),
    "is_leaf": lambda lib, x: (x.is_leaf, (x * 1).is_leaf),
    "requires_grad": lambda lib, x: (x.requires_grad, x.float().requires_grad),
    "grad_fn": lambda lib, x: (x.grad_fn, None if x.grad_fn is not None else getattr((x.float() * 1).grad_fn,
                                                                                       "name", lambda: None)()),
    "output_nr": lambda lib, x: (x.output_nr, x.float().unbind(0)[-1].output_nr),
    "retains_grad": lambda lib, x: x.retains_grad,
    "allclose": lambda lib, x: (x.allclose(x), x.allclose(x + 1), x.float().allclose(x.float() + 1e-9)),
    "new_zeros": lambda lib, x: (x.new_zeros(2, 3), x.new_zeros((1,), dtype=lib.float64)),
    "new_ones": lambda lib, x: (x.new_ones([2]), x.new_ones(1, dtype=lib.int64)),
    "expand_as": lambda lib, x: x.expand_as(lib.stack([x, x]).to(x.device)),
    "view_as": lambda lib, x: x.contiguous().view_as(x.reshape(-1)),
    "reshape_as": lambda lib, x: x.reshape_as(x.reshape(-1)),
    "type_as": lambda lib, x: (x.type_as(lib.ones(1, dtype=lib.int64)), x.type_as(lib.ones(1, dtype=lib.float64))),
    "view": lambda lib, x: (x.view(-1), x.view(1, -1)),
    "to": lambda lib, x: (x.to(lib.float64), x.to(dtype=lib.int64), x.to(x), x.to(x.device) is x),
    "numpy": lambda lib, x: x.numpy().tolist(),
}
for _name, _fn in VALUE_CASES.items():
    case(f"Tensor.{_name}")(_value(_fn))


@case("Tensor.data")
def _data(lib, dev):
    x = leaf(lib, dev)
    d = x.data
    d.mul_(2)
    x.data = T(lib, dev, P)
    return d, d.requires_grad, x, x.requires_grad, x.is_leaf


@case("Tensor.requires_grad_")
def _requires_grad_(lib, dev):
    x = T(lib, dev)
    return (x.requires_grad_() is x, x.requires_grad, x.requires_grad_(False).requires_grad,
            run(lambda lib: T(lib, dev, [1]).requires_grad_(), lib),
            run(lambda lib: (leaf(lib, dev) * 2).requires_grad_(False), lib))


@case("Tensor.detach_")
def _detach_(lib, dev):
    x = leaf(lib, dev)
    y = x * 2
    return y.detach_() is y, y.requires_grad, y.grad_fn, run(lambda lib: x.t().detach_(), lib)


@case("Tensor.retain_grad")
def _retain_grad(lib, dev):
    x = leaf(lib, dev)
    y = x * 2
    y.retain_grad()
    (y * y).sum().backward()
    return y.grad, y.retains_grad, x.grad


@case("Tensor.register_hook")
def _register_hook(lib, dev):
    x = leaf(lib, dev)
    seen = []
    handle = x.register_hook(lambda g: seen.append(g.clone()) or g * 10)
    (x * 2).sum().backward()
    handle.remove()
    (x * 2).sum().backward()
    return seen, x.grad


@case("Tensor.register_post_accumulate_grad_hook")
def _post_accumulate_hook(lib, dev):
    x = leaf(lib, dev)
    seen = []
    x.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.clone()))
    (x * 3).sum().backward()
    return seen, run(lambda lib: (x * 1).register_post_accumulate_grad_hook(lambda t: None), lib)


@case("Tensor.cpu")
def _cpu(lib, dev):
    y = T(lib, dev).cpu()
    return y.tolist(), str(y.device), y.requires_grad


@case("Tensor.cuda")
def _cuda(lib, dev):
    return run(lambda lib: T(lib, dev).cuda(), lib)


@case("Tensor.device")
def _device(lib, dev):
    x = T(lib, dev)
    return x.device == lib.device(dev), str(x.device) == dev, (x * 2).t().device == x.device


# The tests ---------------------------------------------------------------------------------------
def test_every_public_name_has_a_case():
    names = public_names()
    covered = {id(names[n]) for n in CASES if n in names and not n.startswith("Tensor.")}
    missing = [n for n, obj in names.items()
               if n not in CASES and (n.startswith("Tensor.") or id(obj) not in covered)]
    assert not missing, f"public names without a case in test_public_surface.CASES: {missing}"
    assert not set(CASES) - set(names), f"cases of names that are not public: {set(CASES) - set(names)}"
    assert set(NOT_COMPARED) <= set(CASES) and {name for name, _ in XFAIL} <= set(CASES)


def _tensors(value):
    if isinstance(value, torchlite.Tensor):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _tensors(v)


def outcome(fn, lib, dev):
    """What fn(lib, dev) shows (diff_utils.run), and the UserWarnings it raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = run(lambda lib: fn(lib, dev), lib)
    return result, [norm(str(w.message)) for w in caught if issubclass(w.category, UserWarning)]


def _params():
    for name in sorted(CASES):
        for device in DEVICES:
            reason = XFAIL.get((name, None)) or XFAIL.get((name, device))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            yield pytest.param(name, device, marks=marks, id=f"{name}-{device}")


@pytest.mark.parametrize("name, device", _params())
def test_public_name(name, device, monkeypatch):
    fn = CASES[name]
    if name.startswith("torchlite.accelerator."):
        same_cuda_build(monkeypatch, torch)  # torch.accelerator answers by build
    elif name.startswith("torchlite.cuda.") or name == "Tensor.cuda":
        # Both built without CUDA, whatever this machine built: torchlite as test_cuda_backend's
        # no_cuda_build (the other states are tested there), and torch, the main CI interpreter's
        # CPU build or PyPI's CUDA build (the other Pythons') made to look like one where
        # torch.cuda._lazy_init looks
        for attr in [a for a in dir(torchlite._C) if a.startswith("_cuda_")]:
            monkeypatch.delattr(torchlite._C, attr)
        monkeypatch.setattr(torchlite.cuda, "_initialized", False)
        monkeypatch.delattr(torch._C, "_cuda_getDeviceCount", raising=False)
    got = outcome(fn, torchlite, device)
    if name in NOT_COMPARED:
        assert got[0][0] == "ok", got
        return
    assert got == outcome(fn, torch, "cpu")
    got = got[0]
    if got[0] == "ok":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = fn(torchlite, device)
        wrong = [str(t.device) for t in _tensors(result) if str(t.device) != device]
        assert not wrong, f"{name} on {device} returned tensors on {wrong}"

# ==== issue 13: dtypes ====
# (the dtypes family's entries follow this line)
_NEW_DTYPES = ("float16", "int32", "int16", "int8", "uint8")


@case("torchlite.finfo")
def _finfo(lib, dev):
    out = [run(lambda lib: lib.finfo(lib.int32), lib), repr(lib.finfo()), lib.finfo() == lib.finfo(lib.float32)]
    for name in ("float16", "float32", "float64"):
        f = lib.finfo(getattr(lib, name))
        out.append((repr(f), f.bits, f.eps, f.max, f.min, f.tiny, f.smallest_normal, f.resolution, f.dtype))
    return out


@case("torchlite.iinfo")
def _iinfo(lib, dev):
    out = [run(lambda lib: lib.iinfo(lib.float16), lib), run(lambda lib: lib.iinfo(lib.bool), lib)]
    for name in ("int64", "int32", "int16", "int8", "uint8"):
        i = lib.iinfo(getattr(lib, name))
        out.append((repr(i), i.bits, i.min, i.max, i.dtype))
    return out


@case("torchlite.get_default_dtype", "torchlite.set_default_dtype")
def _default_dtype(lib, dev):
    out = [str(lib.get_default_dtype())]
    try:
        for d in (lib.float64, lib.float16):
            lib.set_default_dtype(d)
            x = T(lib, dev, [1.5, 2.0])
            out += [str(lib.get_default_dtype()), x, lib.ones(2, device=dev), T(lib, dev, [1, 2]) / 2,
                    T(lib, dev, [1, 2]) * 0.5, lib.arange(1.5, device=dev)]
        out.append(run(lambda lib: lib.set_default_dtype(lib.int32), lib))
    finally:
        lib.set_default_dtype(lib.float32)
    return out + [str(lib.get_default_dtype())]


@case("torchlite.promote_types")
def _promote_types(lib, dev):
    names = _NEW_DTYPES + ("float32", "float64", "int64", "bool")
    out = [str(lib.promote_types(getattr(lib, a), getattr(lib, b))) for a in names for b in names]
    return out + [str(lib.promote_types(float, lib.int8)), run(lambda lib: lib.promote_types(lib.int8, 1), lib)]


@case("torchlite.can_cast")
def _can_cast(lib, dev):
    names = _NEW_DTYPES + ("float32", "float64", "int64", "bool")
    return [lib.can_cast(getattr(lib, a), getattr(lib, b)) for a in names for b in names]


@case("torchlite.result_type")
def _result_type(lib, dev):
    xs = (T(lib, dev, [1, 2], dtype=lib.int8), T(lib, dev, 3, dtype=lib.float64), T(lib, dev, [1.5], dtype=lib.float16),
          T(lib, dev, [True]), T(lib, dev, 7, dtype=lib.uint8), 2, 2.5, True)
    out = [str(lib.result_type(a, b)) for a in xs for b in xs]
    return out + [run(lambda lib: lib.result_type(T(lib, dev), "a"), lib)]


def _conversions(name):
    def run_case(lib, dev):
        xs = (T(lib, dev, [1.5, -2.25, 300.0]), T(lib, dev, [1, -2, 3]), T(lib, dev, [True, False]),
              T(lib, dev, [[0.5, 70000.0]], dtype=lib.float64))
        return [run(lambda lib, x=x: getattr(x, name)(), lib) for x in xs]
    return run_case


for _name in ("half", "int", "short", "char", "byte"):
    case(f"Tensor.{_name}")(_conversions(_name))


@case("Tensor.itemsize", "Tensor.nbytes", "Tensor.is_floating_point", "Tensor.is_complex", "Tensor.is_signed")
def _dtype_queries(lib, dev):
    xs = [T(lib, dev, [1, 2], dtype=getattr(lib, n)) for n in _NEW_DTYPES + ("float32", "float64", "int64", "bool")]
    return [(x.itemsize, x.nbytes, x.is_floating_point(), x.is_complex(), x.is_signed(), x[:1].nbytes) for x in xs] + \
        [_nbytes(lib, dev), _itemsize(lib, dev)]


@case("torchlite.is_floating_point", "torchlite.is_complex", "torchlite.is_signed")
def _dtype_predicates(lib, dev):
    xs = [T(lib, dev, [1, 2], dtype=getattr(lib, n)) for n in _NEW_DTYPES + ("float32", "float64", "int64", "bool")]
    out = [(lib.is_floating_point(x), lib.is_complex(x), lib.is_signed(x)) for x in xs]
    return out + [run(lambda lib, f=f: f(1), lib) for f in (lib.is_floating_point, lib.is_complex, lib.is_signed)]


# ==== issue 13: creation ====
# (the creation family's entries follow this line)

# tril / triu / diag / diag_embed: values, gradients (tests/python/test_ops_creation.py has the rest)
_M = [[1.0, -2.0, 3.0], [0.5, 4.0, -1.5], [2.0, 1.0, 0.0]]
case("torchlite.tril", "Tensor.tril")(lambda lib, dev: with_grads(
    lib, lambda x: (lib.tril(x), x.tril(1), lib.tril(x, diagonal=-1)), leaf(lib, dev, _M)))
case("torchlite.triu", "Tensor.triu")(lambda lib, dev: with_grads(
    lib, lambda x: (lib.triu(x), x.triu(-1), lib.triu(x.t(), diagonal=1)), leaf(lib, dev, _M)))
case("Tensor.tril_")(lambda lib, dev: with_grads(lib, lambda x: (x * 1).tril_(1), leaf(lib, dev, _M)))
case("Tensor.triu_")(lambda lib, dev: with_grads(lib, lambda x: (x * 1).triu_(diagonal=-1), leaf(lib, dev, _M)))
case("torchlite.diag", "Tensor.diag")(lambda lib, dev: with_grads(
    lib, lambda x: (lib.diag(x), x.diag(1), lib.diag(x[0], -1), x[1].diag()), leaf(lib, dev, _M)))
case("torchlite.diag_embed", "Tensor.diag_embed")(lambda lib, dev: with_grads(
    lib, lambda x: (lib.diag_embed(x), x.diag_embed(1, 0, 2), lib.diag_embed(x[0], offset=-1)), leaf(lib, dev, _M)))


@case("torchlite.eye")
def _eye(lib, dev):
    return (lib.eye(2, device=dev), lib.eye(2, 3, dtype=lib.int64, device=dev),
            lib.eye(1, device=dev, requires_grad=True),
            run(lambda lib: lib.eye(-1), lib))


@case("torchlite.linspace")
def _linspace(lib, dev):
    return (lib.linspace(0, 1, 5, device=dev), lib.linspace(-2, 2, 4, dtype=lib.float64, device=dev),
            lib.linspace(0, 10, 4, dtype=lib.int64, device=dev), run(lambda lib: lib.linspace(0, 1, -1), lib))


@case("torchlite.logspace")
def _logspace(lib, dev):
    return (lib.logspace(0, 2, 3, device=dev), lib.logspace(0, 3, 4, base=2, dtype=lib.float64, device=dev),
            run(lambda lib: lib.logspace(0, 1, -1), lib))


def _random_shape(t):
    return tuple(t.shape), str(t.dtype), t.requires_grad


@case("torchlite.randint")
def _randint(lib, dev):
    lib.manual_seed(0)
    x = lib.randint(2, 5, (200,), device=dev)
    return (_random_shape(x), int(x.min()) >= 2 and int(x.max()) < 5, _random_shape(lib.randint(3, (2, 2), device=dev)),
            _random_shape(lib.randint(0, 9, (2,), dtype=lib.float64, device=dev)),
            run(lambda lib: lib.randint(5, 5, (2,)), lib), x,
            lib.randint(0, 9, (5,), dtype=lib.float64, device=dev))


@case("torchlite.randint_like")
def _randint_like(lib, dev):
    lib.manual_seed(0)
    x = lib.randint_like(T(lib, dev), 3, 7)
    v = x.cpu().numpy()
    return (_random_shape(x), bool(((v >= 3) & (v < 7)).all()), _random_shape(lib.randint_like(T(lib, dev), 4)), x,
            lib.randint_like(T(lib, dev), 100))


@case("torchlite.randperm")
def _randperm(lib, dev):
    lib.manual_seed(0)
    p = lib.randperm(10, device=dev)
    return (_random_shape(p), sorted(p.tolist()) == list(range(10)),
            _random_shape(lib.randperm(3, dtype=lib.float64, device=dev)), run(lambda lib: lib.randperm(-1), lib), p,
            lib.randperm(100, device=dev))


@case("torchlite.normal")
def _normal(lib, dev):
    lib.manual_seed(0)
    m, s = leaf(lib, dev), leaf(lib, dev, P)
    y = lib.normal(m, s)
    return (_random_shape(y), y.grad_fn.name(), lib.autograd.grad(y.sum(), (m, s)),
            _random_shape(lib.normal(0.0, 1.0, (2, 3), device=dev)), _random_shape(lib.normal(m, 2.0)),
            run(lambda lib: lib.normal(0.0, -1.0, (2,)), lib), y, lib.normal(m, 2.0), lib.normal(1.5, s),
            lib.normal(0.5, 2.0, (20,), device=dev))


@case("torchlite.multinomial", "Tensor.multinomial")
def _multinomial(lib, dev):
    lib.manual_seed(0)
    w = T(lib, dev, [0.0, 1.0, 0.0, 2.0])
    return (lib.multinomial(w, 1).tolist()[0] in (1, 3), _random_shape(w.multinomial(4, replacement=True)),
            sorted(w.multinomial(2).tolist()), run(lambda lib: lib.multinomial(T(lib, dev, [1, 2]), 1), lib),
            w.multinomial(2), w.multinomial(9, True), lib.multinomial(w, 1))


@case("torchlite.meshgrid")
def _meshgrid(lib, dev):
    a, b = leaf(lib, dev, [1.0, 2.0]), T(lib, dev, [3.0, 4.0, 5.0])
    return with_grads(lib, lambda a: (lib.meshgrid(a, b, indexing="ij"), lib.meshgrid([a, b], indexing="xy")), a)


@case("torchlite.Generator")
def _generator_class(lib, dev):
    g = lib.Generator()
    fresh = g.initial_seed()
    g.manual_seed(5)
    a = lib.randn(3, generator=g, device=dev).tolist()
    return (g.manual_seed(5) is g, lib.randn(3, generator=g, device=dev).tolist() == a, g.initial_seed(), str(g.device),
            fresh, a, lib.rand(20, generator=g, device=dev), g.get_state().numpy().tobytes(),
            run(lambda lib: g.set_state(5), lib), run(lambda lib: g.get_offset(), lib))


@case("torchlite.layout")
def _layout_types(lib, dev):
    return (repr(lib.strided), isinstance(lib.strided, lib.layout), repr(lib.contiguous_format),
            isinstance(lib.preserve_format, lib.memory_format), run(lambda lib: lib.layout(), lib),
            run(lambda lib: lib.memory_format(), lib), lib.zeros(2, layout=lib.strided, device=dev),
            lib.ones_like(T(lib, dev).t(), memory_format=lib.contiguous_format).stride())


@case("torchlite.set_default_device", "torchlite.get_default_device")
def _default_device_fns(lib, dev):
    before = lib.get_default_device()
    try:
        lib.set_default_device(dev)
        made = lib.zeros(2), lib.arange(3), lib.tensor([1.0])
        on_dev = [str(t.device) == dev for t in made]
    finally:
        lib.set_default_device(None)
    return str(before), on_dev, str(lib.get_default_device()), made


def _legacy_case(name):
    def run_case(lib, dev):
        cls = getattr(lib, name)
        return (cls([1, 0, 2], device=dev), tuple(cls(2, 3).shape), isinstance(lib.ones(2, dtype=cls.dtype), cls),
                cls([3], device=dev), run(lambda lib: cls(2.5), lib))
    return run_case


# the legacy types of the dtypes torchlite has (torchlite/_legacy.py makes one per dtype)
for _name in ("FloatTensor", "DoubleTensor", "LongTensor", "BoolTensor", "HalfTensor", "BFloat16Tensor", "ByteTensor",
              "CharTensor", "ShortTensor", "IntTensor"):
    if hasattr(torchlite, _name):
        case(f"torchlite.{_name}")(_legacy_case(_name))


@case("torchlite.accelerator.is_available", "torchlite.accelerator.current_accelerator",
      "torchlite.accelerator.device_count")
def _accelerator(lib, dev):
    acc, cuda = lib.accelerator, lib.cuda.is_available()
    return (acc.is_available() == cuda, (acc.current_accelerator() is None) != cuda,
            acc.device_count() == (lib.cuda.device_count() if cuda else 0))


@case("torchlite.accelerator.current_device_index", "torchlite.accelerator.set_device_index",
      "torchlite.accelerator.synchronize")
def _accelerator_device(lib, dev):
    acc = lib.accelerator
    if lib.cuda.is_available():
        return acc.current_device_index() == lib.cuda.current_device()
    return run(lambda lib: acc.current_device_index(), lib), run(lambda lib: acc.set_device_index(0), lib), \
        run(lambda lib: acc.synchronize(), lib)

# ==== issue 13: unary ====
# (the unary family's entries follow this line)
_U = [[0.1, -0.2, 0.3], [0.5, 0.4, -0.6]]  # inside (-1, 1)
_PROB = [[0.1, 0.2, 0.3], [0.5, 0.45, 0.9]]  # inside (0, 1)
_OVER1 = [[1.5, 2.0, 3.0], [1.25, 4.0, 1.1]]
_UNARY13 = {"exp2": A, "expm1": A, "log2": P, "log10": P, "log1p": P, "tan": _U, "asin": _U, "arcsin": _U,
            "acos": _U, "arccos": _U, "atan": A, "arctan": A, "sinh": A, "cosh": A, "asinh": A, "arcsinh": A,
            "acosh": _OVER1, "arccosh": _OVER1, "atanh": _U, "arctanh": _U, "erf": A, "erfc": A, "erfinv": _U,
            "rsqrt": P, "sign": A, "sgn": A, "floor": A, "ceil": A, "round": A, "trunc": A, "fix": A, "frac": A,
            "logit": _PROB, "square": A, "nan_to_num": A, "sinc": A, "absolute": A, "negative": A}
# in-place forms torch has as methods only
_UNARY13_METHOD_ONLY = {"erfinv_", "sign_", "sgn_", "absolute_"}


def _unary13(name, method, data):
    def run_case(lib, dev):
        x = leaf(lib, dev, data)
        return with_grads(lib, lambda x: getattr(x, name)() if method else getattr(lib, name)(x), x)
    return run_case


def _unary13_forms(name, method):
    """The argument forms: round's decimals, logit's eps, nan_to_num's replacements."""
    def run_case(lib, dev):
        x = leaf(lib, dev, _PROB if name == "logit" else A)
        f = (lambda t, *a, **k: getattr(t, name)(*a, **k)) if method else getattr(lib, name)
        forms = {"round": lambda t: (f(t), f(t, decimals=1), f(t * 3.3, decimals=-1)),
                 "logit": lambda t: (f(t), f(t, 0.2), f(t, eps=0.35)),
                 "nan_to_num": lambda t: (f(t.log()), f(t.log(), 1.0), f(t.log() / 0.0, nan=2.0, posinf=3.0,
                                                                           neginf=-4.0))}
        return with_grads(lib, forms[name], x)
    return run_case


for _name, _data in _UNARY13.items():
    _forms = _name in ("round", "logit", "nan_to_num")
    case(f"torchlite.{_name}")(_unary13_forms(_name, False) if _forms else _unary13(_name, False, _data))
    case(f"Tensor.{_name}")(_unary13_forms(_name, True) if _forms else _unary13(_name, True, _data))
    if f"{_name}_" not in _UNARY13_METHOD_ONLY:
        case(f"torchlite.{_name}_")(inplace_case(f"{_name}_", False, _data))
    case(f"Tensor.{_name}_")(inplace_case(f"{_name}_", True, _data))

_SPECIAL = {"erf": A, "erfc": A, "erfinv": _U, "exp2": A, "expit": A, "expm1": A, "log1p": P, "logit": _PROB,
            "round": A, "sinc": A}


def _special(name):
    def run_case(lib, dev):
        f = getattr(lib.special, name)
        extra = {"round": lambda t: f(t, decimals=1), "logit": lambda t: f(t, eps=0.2)}.get(name, f)
        return with_grads(lib, lambda t: (f(t), extra(t), f(lib.tensor([1, 0, 2], device=dev)) if name != "round"
                                          else f(t * 3.3)), leaf(lib, dev, _SPECIAL[name]))
    return run_case


for _name in _SPECIAL:
    case(f"torchlite.special.{_name}")(_special(_name))

# ==== issue 13: binary ====
# (the binary family's entries follow this line)
I64 = [[5, -7, 0], [3, 6, -2]]
I64B = [[2, 3, -4], [1, -5, 7]]

_BINARY13 = {
    "maximum": lambda f, x, y: f(y), "minimum": lambda f, x, y: f(y), "fmax": lambda f, x, y: f(y),
    "fmin": lambda f, x, y: f(y), "hypot": lambda f, x, y: f(y), "logaddexp": lambda f, x, y: f(y),
    "xlogy": lambda f, x, y: f(y.abs() + 0.5), "fmod": lambda f, x, y: (f(y), f(1.5)),
    "remainder": lambda f, x, y: (f(y), f(-1.5)), "floor_divide": lambda f, x, y: f(y.detach()),
    "multiply": lambda f, x, y: f(y), "subtract": lambda f, x, y: f(y, alpha=2),
    "divide": lambda f, x, y: (f(y), f(y, rounding_mode="trunc")), "true_divide": lambda f, x, y: f(y),
    "clamp": lambda f, x, y: (f(-0.5, 2.0), f(min=y), f(y - 1, y + 1)),
    "clip": lambda f, x, y: (f(max=1.0), f(y, None)), "clamp_min": lambda f, x, y: (f(1.0), f(y)),
    "clamp_max": lambda f, x, y: (f(1.0), f(y)), "lerp": lambda f, x, y: (f(y, 0.25), f(y, y.sigmoid())),
    "addcmul": lambda f, x, y: f(y, y, value=-2), "addcdiv": lambda f, x, y: f(y, y.abs() + 1, value=0.5),
}


def _binary13(name, method):
    def run_case(lib, dev):
        x, y = leaf(lib, dev, P), leaf(lib, dev, [1.5, -0.5, 2.0])

        def op(x, y):
            f = getattr(x, name) if method else (lambda *a, **k: getattr(lib, name)(x, *a, **k))
            return _BINARY13[name](f, x, y)
        return with_grads(lib, op, x, y)
    return run_case


for _name in _BINARY13:
    case(f"torchlite.{_name}")(_binary13(_name, False))
    case(f"Tensor.{_name}")(_binary13(_name, True))


def _bitwise13(name, method):
    def run_case(lib, dev):
        a, b = T(lib, dev, I64, dtype=lib.int64), T(lib, dev, I64B, dtype=lib.int64)
        m, n = a > 0, b > 0
        f = (lambda t, *r: getattr(t, name)(*r)) if method else (lambda t, *r: getattr(lib, name)(t, *r))
        if name in ("bitwise_not", "logical_not"):
            return f(a), f(m), run(lambda lib: f(T(lib, dev)), lib)
        if name.startswith("logical"):
            return f(a, b), f(m, n), f(T(lib, dev), a)
        if "shift" in name:
            return f(a, b.abs()), f(a, 2), run(lambda lib: f(m, n), lib)
        return f(a, b), f(m, n), f(a, 3), run(lambda lib: f(T(lib, dev), T(lib, dev)), lib)
    return run_case


for _name in ("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift",
              "bitwise_not", "logical_and", "logical_or", "logical_xor", "logical_not"):
    case(f"torchlite.{_name}")(_bitwise13(_name, False))
    case(f"Tensor.{_name}")(_bitwise13(_name, True))


_INPLACE13 = {
    "clamp_": lambda f, y: (f(-0.5, 2.0), f(min=y)), "clip_": lambda f, y: f(y - 1, y + 1),
    "clamp_min_": lambda f, y: f(y), "clamp_max_": lambda f, y: f(1.0), "xlogy_": lambda f, y: f(y.abs() + 0.5),
    "addcdiv_": lambda f, y: f(y, y.abs() + 1, value=2), "addcmul_": lambda f, y: f(y, y),
    "divide_": lambda f, y: f(y, rounding_mode="floor"), "floor_divide_": lambda f, y: f(2.0),
    "fmod_": lambda f, y: f(y), "remainder_": lambda f, y: f(-1.5), "hypot_": lambda f, y: f(y),
    "lerp_": lambda f, y: f(y, 0.3), "multiply_": lambda f, y: f(y), "subtract_": lambda f, y: f(y, alpha=3),
    "true_divide_": lambda f, y: f(y),
}


def _inplace13(name, method):
    def run_case(lib, dev):
        x, y = leaf(lib, dev, P), leaf(lib, dev, [1.5, -0.5, 2.0])

        def op(x, y):
            z = x * 1
            f = getattr(z, name) if method else (lambda *a, **k: getattr(lib, name)(z, *a, **k))
            r = _INPLACE13[name](f, y)
            return z, (r[-1] if isinstance(r, tuple) else r) is z
        leaf_error = run(lambda lib: _INPLACE13[name](getattr(leaf(lib, dev, P), name), T(lib, dev, [1.5, -0.5, 2.0])),
                         lib)
        return with_grads(lib, op, x, y), leaf_error
    return run_case


for _name in _INPLACE13:
    case(f"Tensor.{_name}")(_inplace13(_name, True))
    if _name in ("clamp_", "clip_", "clamp_min_", "clamp_max_", "xlogy_"):
        case(f"torchlite.{_name}")(_inplace13(_name, False))


def _bitwise13_(name):
    def run_case(lib, dev):
        a, b = T(lib, dev, I64, dtype=lib.int64), T(lib, dev, I64B, dtype=lib.int64)
        m, n = a > 0, b > 0
        unary = name in ("bitwise_not_", "logical_not_")
        args = () if unary else (b.abs(),)
        r = getattr(a, name)(*args)
        s = getattr(m, name)(*(() if unary else (n,))) if "shift" not in name else None
        return r is a, a, a._version, s, run(lambda lib: getattr(T(lib, dev), name)(*((T(lib, dev),) if not unary
                                                                                      else ())), lib)
    return run_case


for _name in ("bitwise_and_", "bitwise_or_", "bitwise_xor_", "bitwise_left_shift_", "bitwise_right_shift_",
              "bitwise_not_", "logical_and_", "logical_or_", "logical_xor_", "logical_not_"):
    case(f"Tensor.{_name}")(_bitwise13_(_name))


# ==== issue 13: reductions ====
# (the reductions family's entries follow this line)
_REDUCTION_CASES = {
    "all": lambda lib, x: (lib.all(x > 0), x.all(1), (x > 0).all((0, 1), keepdim=True)),
    "any": lambda lib, x: (lib.any(x > 3), x.any(0), (x > 0).any(dim=1, keepdim=True)),
    "amax": lambda lib, x: (lib.amax(x), x.amax(1), x.amax((0, 1), keepdim=True)),
    "amin": lambda lib, x: (lib.amin(x, 0), x.amin(), x.amin(-1, True)),
    "argmax": lambda lib, x: (lib.argmax(x), x.argmax(1), x.argmax(dim=0, keepdim=True)),
    "argmin": lambda lib, x: (lib.argmin(x, 1), x.argmin(), x.argmin(0, True)),
    "argsort": lambda lib, x: (lib.argsort(x), x.argsort(0, descending=True), x.argsort(stable=True, dim=1)),
    "count_nonzero": lambda lib, x: (lib.count_nonzero(x), x.count_nonzero(1), (x > 0).count_nonzero((0, 1))),
    "cummax": lambda lib, x: (lib.cummax(x, 1), tuple(x.cummax(0)), x.cummax(dim=-1).indices),
    "cummin": lambda lib, x: (lib.cummin(x, 0), tuple(x.cummin(1)), x.cummin(dim=0).values),
    "cumprod": lambda lib, x: (lib.cumprod(x, 1), x.cumprod(0), x.cumprod(-1, dtype=lib.float64)),
    "cumsum": lambda lib, x: (lib.cumsum(x, 0), x.cumsum(1), x.cumsum(dim=-1, dtype=lib.float64)),
    "kthvalue": lambda lib, x: (lib.kthvalue(x, 2), tuple(x.kthvalue(1, 0)), x.kthvalue(2, 1, True).values),
    "logsumexp": lambda lib, x: (lib.logsumexp(x, 1), x.logsumexp((0, 1)), x.logsumexp(0, keepdim=True)),
    "median": lambda lib, x: (lib.median(x), tuple(x.median(1)), x.median(0, keepdim=True).values),
    "mode": lambda lib, x: (lib.mode(x), tuple(x.mode(0)), x.mode(1, True).indices),
    "nanmean": lambda lib, x: (lib.nanmean(x), x.nanmean(1), x.nanmean((0, 1), keepdim=True)),
    "nanmedian": lambda lib, x: (lib.nanmedian(x), tuple(x.nanmedian(1)), x.nanmedian(0, True).values),
    "nansum": lambda lib, x: (lib.nansum(x), x.nansum(1), x.nansum((0, 1), keepdim=True, dtype=lib.float64)),
    "prod": lambda lib, x: (lib.prod(x), x.prod(1), x.prod(0, keepdim=True, dtype=lib.float64)),
    "sort": lambda lib, x: (lib.sort(x), tuple(x.sort(0, True)), x.sort(stable=True, dim=1).values),
    "std": lambda lib, x: (lib.std(x), x.std(1), x.std(0, unbiased=False, keepdim=True), x.std(correction=0)),
    "topk": lambda lib, x: (lib.topk(x, 2), tuple(x.topk(1, 0)), x.topk(2, largest=False).values),
    "var": lambda lib, x: (lib.var(x), x.var(1), x.var(0, False, True), x.var((0, 1), correction=2)),
}


def _reduction_case(name):
    def run_case(lib, dev):
        x = leaf(lib, dev, [[1.0, -2.0, 3.5], [0.5, 4.0, -1.5]])
        return with_grads(lib, lambda x: _REDUCTION_CASES[name](lib, x), x)
    return run_case


for _name in _REDUCTION_CASES:
    case(f"torchlite.{_name}", f"Tensor.{_name}")(_reduction_case(_name))


@case("torchlite.std_mean", "torchlite.var_mean")
def _moments(lib, dev):
    x = leaf(lib, dev)
    return with_grads(lib, lambda x: (*lib.std_mean(x), *lib.std_mean(x, 1, keepdim=True), *lib.var_mean(x, 0),
                                      *lib.var_mean(x, correction=0), lib.std_mean(x, True)[0]), x)


@case("Tensor.cumsum_", "Tensor.cumprod_")
def _cumulative_inplace(lib, dev):
    x = leaf(lib, dev)
    return with_grads(lib, lambda x: ((x * 1).cumsum_(1), (x * 1).cumprod_(0, dtype=lib.float32)), x)

# ==== issue 13: shape ====
# (the shape family's entries follow this line)
def _x3(lib, dev):
    return leaf(lib, dev, [[[1.0, -2.0, 3.0, 0.5]], [[4.0, -1.5, 2.5, -3.0]]])  # (2, 1, 4)


def _shape13(fn):
    def run_case(lib, dev):
        x = _x3(lib, dev)
        return with_grads(lib, lambda x: fn(lib, dev, x), x)
    return run_case


def _idx(lib, dev, v):
    return lib.tensor(v, device=dev)


SHAPE13 = {
    ("torchlite.flatten", "Tensor.flatten"): lambda lib, dev, x: (lib.flatten(x, 1), x.flatten(), x.flatten(0, 1)),
    ("torchlite.unflatten", "Tensor.unflatten"): lambda lib, dev, x: (lib.unflatten(x, 2, (2, 2)),
                                                                     x.unflatten(-1, (-1, 1))),
    ("torchlite.movedim", "Tensor.movedim", "torchlite.moveaxis", "Tensor.moveaxis"):
        lambda lib, dev, x: (lib.movedim(x, 0, 2), x.movedim((0, 1), (1, 2)), lib.moveaxis(x, 2, 0), x.moveaxis(1, 0)),
    ("torchlite.swapaxes", "Tensor.swapaxes", "torchlite.swapdims", "Tensor.swapdims"):
        lambda lib, dev, x: (lib.swapaxes(x, 0, 2), x.swapaxes(1, 2), lib.swapdims(x, 0, 1), x.swapdims(2, 0)),
    ("torchlite.select", "Tensor.select"): lambda lib, dev, x: (lib.select(x, 2, 1), x.select(0, -1)),
    ("torchlite.broadcast_to", "Tensor.broadcast_to"): lambda lib, dev, x: (lib.broadcast_to(x, (2, 3, 4)),
                                                                           x.broadcast_to((1, 2, 2, 4))),
    ("torchlite.broadcast_tensors",): lambda lib, dev, x: lib.broadcast_tensors(x, x[0, :, :1], x.sum()),
    ("torchlite.atleast_1d", "torchlite.atleast_2d", "torchlite.atleast_3d"):
        lambda lib, dev, x: (lib.atleast_1d(x.sum()), lib.atleast_2d(x[0, 0]), lib.atleast_3d(x[0]),
                             lib.atleast_1d(x, x.sum())),
    ("torchlite.hstack", "torchlite.vstack", "torchlite.row_stack", "torchlite.dstack", "torchlite.column_stack"):
        lambda lib, dev, x: (lib.hstack([x, x]), lib.vstack([x[0, 0], x[1, 0]]), lib.row_stack([x[0], x[1]]),
                             lib.dstack([x[:, 0], x[:, 0]]), lib.column_stack([x[0, 0], x[1, 0]])),
    ("Tensor.unfold",): lambda lib, dev, x: (x.unfold(2, 2, 1), x.unfold(0, 1, 2)),
    ("torchlite.flip", "Tensor.flip", "torchlite.fliplr", "Tensor.fliplr", "torchlite.flipud", "Tensor.flipud"):
        lambda lib, dev, x: (lib.flip(x, (0, 2)), x.flip(1), lib.fliplr(x), x.fliplr(), lib.flipud(x), x.flipud()),
    ("torchlite.roll", "Tensor.roll"): lambda lib, dev, x: (lib.roll(x, 1), x.roll((1, -1), (0, 2))),
    ("torchlite.rot90", "Tensor.rot90"): lambda lib, dev, x: (lib.rot90(x), x.rot90(2, (2, 0))),
    ("Tensor.repeat", "torchlite.tile", "Tensor.tile"): lambda lib, dev, x: (x.repeat(2, 1, 1, 2), lib.tile(x, (2,)),
                                                                            x.tile((2, 1, 1))),
    ("torchlite.repeat_interleave", "Tensor.repeat_interleave"):
        lambda lib, dev, x: (lib.repeat_interleave(x, 2), x.repeat_interleave(_idx(lib, dev, [1, 0, 2, 1]), dim=2),
                             lib.repeat_interleave(_idx(lib, dev, [2, 1]))),
    ("torchlite.gather", "Tensor.gather"): lambda lib, dev, x: (lib.gather(x, 2, _idx(lib, dev, [[[3, 0]], [[1, 1]]])),
                                                               x.gather(0, _idx(lib, dev, [[[1, 0, 0, 1]]]))),
    ("torchlite.scatter", "Tensor.scatter", "Tensor.scatter_"):
        lambda lib, dev, x: (lib.scatter(x, 2, _idx(lib, dev, [[[3, 0]], [[1, 2]]]), x * 2),
                             x.scatter(2, _idx(lib, dev, [[[3]], [[1]]]), -1.0),
                             (x * 1).scatter_(2, _idx(lib, dev, [[[3, 0]], [[1, 2]]]), x * 3)),
    ("torchlite.scatter_add", "Tensor.scatter_add", "Tensor.scatter_add_"):
        lambda lib, dev, x: (lib.scatter_add(x, 2, _idx(lib, dev, [[[3, 3]], [[1, 2]]]), x * 2),
                             (x * 1).scatter_add_(0, _idx(lib, dev, [[[1, 0, 1, 1]]]), x)),
    ("torchlite.scatter_reduce", "Tensor.scatter_reduce"):
        lambda lib, dev, x: (lib.scatter_reduce(x, 2, _idx(lib, dev, [[[3, 3]], [[1, 2]]]), x * 2, "amax"),
                             x.scatter_reduce(0, _idx(lib, dev, [[[1, 0, 1, 1]]]), x, "mean", include_self=False)),
    ("torchlite.index_select", "Tensor.index_select"):
        lambda lib, dev, x: (lib.index_select(x, 2, _idx(lib, dev, [3, 3, 0])), x.index_select(0, _idx(lib, dev, [1]))),
    ("torchlite.index_add", "Tensor.index_add", "Tensor.index_add_"):
        lambda lib, dev, x: (lib.index_add(x, 2, _idx(lib, dev, [3, 3]), x[:, :, :2], alpha=2),
                             (x * 1).index_add_(0, _idx(lib, dev, [1, 1]), x * 2)),
    ("torchlite.index_copy", "Tensor.index_copy", "Tensor.index_copy_"):
        lambda lib, dev, x: (lib.index_copy(x, 2, _idx(lib, dev, [3, 0]), x[:, :, :2] * 2),
                             (x * 1).index_copy_(0, _idx(lib, dev, [1, 0]), x * 2)),
    ("torchlite.index_fill", "Tensor.index_fill", "Tensor.index_fill_"):
        lambda lib, dev, x: (lib.index_fill(x, 2, _idx(lib, dev, [3, 0]), -1.0), x.index_fill(0, _idx(lib, dev, [1]),
                                                                                          x.sum()),
                             (x * 1).index_fill_(1, _idx(lib, dev, [0]), 2.0)),
    ("torchlite.masked_fill", "Tensor.masked_fill", "Tensor.masked_fill_"):
        lambda lib, dev, x: (lib.masked_fill(x, x > 0, 0.0), x.masked_fill(x < 1, x.sum()),
                             (x * 1).masked_fill_(x > 2, -1.0)),
    ("torchlite.masked_select", "Tensor.masked_select"): lambda lib, dev, x: (lib.masked_select(x, x > 0),
                                                                             x.masked_select(x[0] < 1)),
    ("torchlite.masked_scatter", "Tensor.masked_scatter", "Tensor.masked_scatter_"):
        lambda lib, dev, x: (lib.masked_scatter(x, x > 0, x * 2), (x * 1).masked_scatter_(x < 0, x * 3)),
    ("torchlite.take", "Tensor.take"): lambda lib, dev, x: (lib.take(x, _idx(lib, dev, [[7, 0], [-1, 2]])),
                                                           x.take(_idx(lib, dev, 3))),
    ("torchlite.take_along_dim", "Tensor.take_along_dim"):
        lambda lib, dev, x: (lib.take_along_dim(x, _idx(lib, dev, [[[3, 0]]]), 2),
                             x.take_along_dim(_idx(lib, dev, [5]))),
    ("torchlite.nonzero", "Tensor.nonzero"): lambda lib, dev, x: (lib.nonzero(x > 0), x.nonzero(as_tuple=True),
                                                                 lib.where(x > 1)),
}
for _names, _fn in SHAPE13.items():
    case(*_names)(_shape13(_fn))

# ==== issue 13: linalg ====
# (the linalg family's entries follow this line)
# (the spectral factorisations, in float64 (LAPACK builds round float32 differently): singular / eigen vectors
# compared through what their signs do not change)
_TALL = [[1.0, 2.0, -0.5], [0.5, -1.0, 2.0], [3.0, 0.25, 1.0], [-1.5, 1.0, 0.5]]


@case("torchlite.linalg.svd", "torchlite.linalg.svdvals", "torchlite.svd", "Tensor.svd")
def _svd(lib, dev):
    x = leaf(lib, dev, _TALL, lib.float64)

    def fn(x):
        U, S, Vh = lib.linalg.svd(x, full_matrices=False)
        U2, S2, V2 = lib.svd(x)
        U3, S3, V3 = x.svd(some=False, compute_uv=True)
        return (S, lib.matmul(U * S, Vh), U * U, Vh * Vh, lib.linalg.svdvals(x), lib.matmul(U2 * S2, V2.mT),
                V3 * V3, U3.shape, lib.svd(x, compute_uv=False)[1], lib.linalg.svd(x).Vh.shape)
    return with_grads(lib, fn, x)


@case("torchlite.linalg.eigh", "torchlite.linalg.eigvalsh")
def _eigh(lib, dev):
    x = leaf(lib, dev, _SPD, lib.float64)

    def fn(x):
        L, V = lib.linalg.eigh(x)
        r = lib.linalg.eigh(x, UPLO="U")
        return L, V * V, r.eigenvalues, lib.linalg.eigvalsh(x), lib.linalg.eigvalsh(x, "U")
    return with_grads(lib, fn, x)


@case("torchlite.linalg.qr")
def _qr(lib, dev):
    x = leaf(lib, dev, _TALL, lib.float64)
    return with_grads(lib, lambda x: (*lib.linalg.qr(x), lib.linalg.qr(x.mT).R, lib.linalg.qr(x, "r").R.detach(),
                                      lib.linalg.qr(x, mode="complete").Q.detach()), x)


@case("torchlite.linalg.pinv", "torchlite.pinverse", "Tensor.pinverse")
def _pinv(lib, dev):
    x = leaf(lib, dev, _TALL, lib.float64)
    return with_grads(lib, lambda x: (lib.linalg.pinv(x), lib.pinverse(x), x.pinverse(1e-3),
                                      lib.linalg.pinv(x, atol=0.5), lib.linalg.pinv(x[:3] + x[:3].mT, hermitian=True)),
                      x)


@case("torchlite.linalg.lstsq")
def _lstsq(lib, dev):
    x = leaf(lib, dev, _TALL, lib.float64)
    b = leaf(lib, dev, [[1.0, 0.5], [-1.0, 2.0], [0.5, 0.5], [2.0, -1.0]], lib.float64)
    return with_grads(lib, lambda x, b: (*lib.linalg.lstsq(x, b), *lib.linalg.lstsq(x, b, driver="gelsd"),
                                         lib.linalg.lstsq(x, b[:, 0]).solution), x, b)


@case("torchlite.linalg.matrix_rank", "torchlite.linalg.cond")
def _rank_cond(lib, dev):
    x = leaf(lib, dev, _TALL, lib.float64)
    return with_grads(lib, lambda x: (lib.linalg.matrix_rank(x), lib.linalg.matrix_rank(x, atol=2.0),
                                      lib.linalg.matrix_rank(x, hermitian=False, rtol=0.5), lib.linalg.cond(x),
                                      lib.linalg.cond(x, -2), lib.linalg.cond(x[:3], "nuc").detach()), x)


_SQ = [[3.0, 1.0, -0.5], [0.5, 2.5, 1.0], [-1.0, 0.5, 4.0]]  # well-conditioned
_SPD = [[4.0, 1.0, 0.5], [1.0, 3.0, -0.5], [0.5, -0.5, 2.0]]
_V3 = [1.5, -0.5, 2.0]


@case("torchlite.mm", "Tensor.mm")
def _mm(lib, dev):
    x, y = leaf(lib, dev), leaf(lib, dev, _SQ)
    return with_grads(lib, lambda x, y: (lib.mm(x, y), x.mm(y)), x, y)


@case("torchlite.bmm", "Tensor.bmm")
def _bmm(lib, dev):
    x, y = leaf(lib, dev, [A, P]), leaf(lib, dev, [_SQ, _SPD])
    return with_grads(lib, lambda x, y: (lib.bmm(x, y), x.bmm(y)), x, y)


@case("torchlite.mv", "Tensor.mv")
def _mv(lib, dev):
    x, v = leaf(lib, dev), leaf(lib, dev, _V3)
    return with_grads(lib, lambda x, v: (lib.mv(x, v), x.mv(v)), x, v)


@case("torchlite.dot", "Tensor.dot", "torchlite.vdot", "Tensor.vdot")
def _dot(lib, dev):
    x, y = leaf(lib, dev, A[0]), leaf(lib, dev, _V3)
    return with_grads(lib, lambda x, y: (lib.dot(x, y), x.dot(y), lib.vdot(x, y), x.vdot(y)), x, y)


@case("torchlite.outer", "Tensor.outer", "torchlite.ger", "Tensor.ger")
def _outer(lib, dev):
    x, y = leaf(lib, dev, A[0]), leaf(lib, dev, [1.0, 2.0])
    return with_grads(lib, lambda x, y: (lib.outer(x, y), x.outer(y), lib.ger(x, y), x.ger(y)), x, y)


@case("torchlite.addmm", "Tensor.addmm")
def _addmm(lib, dev):
    c, x, y = leaf(lib, dev, [1.0, 2.0, 3.0]), leaf(lib, dev), leaf(lib, dev, _SQ)
    return with_grads(lib, lambda c, x, y: (lib.addmm(c, x, y, beta=2, alpha=0.5), c.addmm(x, y)), c, x, y)


@case("torchlite.addmv", "Tensor.addmv")
def _addmv(lib, dev):
    c, x, v = leaf(lib, dev, [1.0, 2.0]), leaf(lib, dev), leaf(lib, dev, _V3)
    return with_grads(lib, lambda c, x, v: (lib.addmv(c, x, v, beta=0.5, alpha=2), c.addmv(x, v)), c, x, v)


@case("torchlite.baddbmm", "Tensor.baddbmm", "torchlite.addbmm", "Tensor.addbmm")
def _baddbmm(lib, dev):
    c, x, y = leaf(lib, dev, [[1.0, 2.0, 3.0]] * 2), leaf(lib, dev, [A, P]), leaf(lib, dev, [_SQ, _SPD])
    return with_grads(lib, lambda c, x, y: (lib.baddbmm(c, x, y, beta=2), c.baddbmm(x, y, alpha=3),
                                            lib.addbmm(c, x, y, beta=0.5), c.addbmm(x, y)), c, x, y)


@case("Tensor.addmm_", "Tensor.addmv_", "torchlite.addmv_", "Tensor.baddbmm_", "Tensor.addbmm_")
def _addmm_inplace(lib, dev):
    c, x, y = leaf(lib, dev, [[1.0, 2.0, 3.0]] * 2), leaf(lib, dev, [A, P]), leaf(lib, dev, [_SQ, _SPD])

    def op(c, x, y):
        a, b, d, e = c * 1, c[0] * 1, c * 1, c * 1
        return (a.addmm_(x[0], y[1], beta=2), b.addmv_(y[0], x[1, 0], alpha=0.5), lib.addmv_(b * 1, y[1], x[1, 0]),
                d[None].baddbmm_(x[:1], y[:1]), e.addbmm_(x, y))
    return with_grads(lib, op, c, x, y), run(lambda lib: leaf(lib, dev).addmm_(leaf(lib, dev), leaf(lib, dev, _SQ)),
                                             lib)


@case("torchlite.trace", "Tensor.trace")
def _trace(lib, dev):
    x = leaf(lib, dev)
    return with_grads(lib, lambda x: (lib.trace(x), x.trace()), x)


@case("torchlite.cross", "Tensor.cross", "torchlite.linalg.cross")
def _cross(lib, dev):
    x, y = leaf(lib, dev), leaf(lib, dev, [_V3])
    return with_grads(lib, lambda x, y: (lib.cross(x, y, dim=1), x.cross(y, 1), lib.linalg.cross(x, y),
                                         lib.cross(x, y)), x, y)


@case("torchlite.kron", "Tensor.kron")
def _kron(lib, dev):
    x, y = leaf(lib, dev), leaf(lib, dev, [1.0, -2.0])
    return with_grads(lib, lambda x, y: (lib.kron(x, y), x.kron(y)), x, y)


@case("torchlite.einsum")
def _einsum(lib, dev):
    x, y = leaf(lib, dev), leaf(lib, dev, _SQ)
    return with_grads(lib, lambda x, y: (lib.einsum("ij,jk->ik", x, y), lib.einsum("ij,ij", x, x),
                                         lib.einsum("ii->i", y), lib.einsum("...j->...", x)), x, y)


@case("torchlite.tensordot")
def _tensordot(lib, dev):
    x, y = leaf(lib, dev), leaf(lib, dev, _SQ)
    return with_grads(lib, lambda x, y: (lib.tensordot(x, y, 1), lib.tensordot(x, y, ([1], [0])),
                                         lib.tensordot(x, x, 2)), x, y)


@case("torchlite.det", "Tensor.det", "torchlite.linalg.det")
def _det(lib, dev):
    x = leaf(lib, dev, _SQ)
    return with_grads(lib, lambda x: (lib.det(x), x.det(), lib.linalg.det(x)), x)


@case("torchlite.logdet", "Tensor.logdet", "torchlite.slogdet", "Tensor.slogdet", "torchlite.linalg.slogdet")
def _slogdet(lib, dev):
    x = leaf(lib, dev, _SPD, lib.float64)
    return with_grads(lib, lambda x: (lib.logdet(x), x.logdet(), lib.slogdet(x)[1], x.slogdet().logabsdet,
                                      lib.linalg.slogdet(-x)[1], lib.linalg.slogdet(x).sign.detach()), x)


@case("torchlite.inverse", "Tensor.inverse", "torchlite.linalg.inv")
def _inverse(lib, dev):
    x = leaf(lib, dev, _SQ)
    return with_grads(lib, lambda x: (lib.inverse(x), x.inverse(), lib.linalg.inv(x)), x)


@case("torchlite.linalg.LinAlgError")
def _linalg_error(lib, dev):
    try:
        lib.linalg.inv(lib.zeros(2, 2, device=dev))
    except lib.linalg.LinAlgError as e:
        return type(e).__name__, str(e), isinstance(e, RuntimeError)
    return None


@case("torchlite.matrix_power", "Tensor.matrix_power", "torchlite.linalg.matrix_power")
def _matrix_power(lib, dev):
    x = leaf(lib, dev, _SQ)
    return with_grads(lib, lambda x: (lib.matrix_power(x, 3), x.matrix_power(0), lib.linalg.matrix_power(x, -1)), x)


@case("torchlite.linalg.solve")
def _solve(lib, dev):
    x, b = leaf(lib, dev, _SQ), leaf(lib, dev, _V3)
    return with_grads(lib, lambda x, b: (lib.linalg.solve(x, b), lib.linalg.solve(x, x.t(), left=False)), x, b)


@case("torchlite.linalg.cholesky")
def _cholesky(lib, dev):
    x = leaf(lib, dev, _SPD, lib.float64)
    return with_grads(lib, lambda x: (lib.linalg.cholesky(x), lib.linalg.cholesky(x, upper=True)), x)


@case("torchlite.linalg.vecdot")
def _vecdot(lib, dev):
    x, y = leaf(lib, dev), leaf(lib, dev, _V3)
    return with_grads(lib, lambda x, y: (lib.linalg.vecdot(x, y), lib.linalg.vecdot(x, x, dim=0)), x, y)


@case("torchlite.norm", "Tensor.norm", "torchlite.linalg.norm", "torchlite.linalg.vector_norm",
      "torchlite.linalg.matrix_norm")
def _norms(lib, dev):
    x = leaf(lib, dev)
    return with_grads(lib, lambda x: (lib.norm(x), x.norm(1, 1), lib.linalg.norm(x), lib.linalg.norm(x, dim=0),
                                      lib.linalg.vector_norm(x, 3, dim=1, keepdim=True),
                                      lib.linalg.vector_norm(x, float("inf")), lib.linalg.matrix_norm(x),
                                      lib.linalg.matrix_norm(x, "fro", keepdim=True), 
                                      # (the singular-value norms in float64)
                                      lib.linalg.matrix_norm(x.double(), "nuc"), lib.linalg.matrix_norm(x.double(), 2),
                                      lib.linalg.matrix_norm(x.double(), -2, keepdim=True),
                                      lib.norm(x.double(), p="nuc"), lib.linalg.norm(x.double(), 2)), x)


# ==== issue 13: utilities ====
# (the utilities family's entries follow this line)
NAN, INF = float("nan"), float("inf")
V = [[1.0, NAN, 3.0], [-INF, 4.0, INF]]  # with nan and infinities


def _names(*names):
    return [f"torchlite.{n}" for n in names] + [f"Tensor.{n}" for n in names]


for _name in ("eq", "ne", "lt", "le", "gt", "ge", "not_equal", "less", "less_equal", "greater", "greater_equal"):
    # Tensor.eq...ge have their cases above
    case(*(_names(_name)[:1] if _name in COMPARE else _names(_name)))(
        lambda lib, dev, _n=_name: (getattr(lib, _n)(T(lib, dev), T(lib, dev, P)), getattr(lib, _n)(T(lib, dev), 1.0),
                                    getattr(T(lib, dev, [1, 2]), _n)(T(lib, dev, [2.5])),
                                    getattr(lib, _n)(T(lib, dev, [True, False]), True),
                                    getattr(lib, _n)(leaf(lib, dev), 0.5).grad_fn,
                                    getattr(lib, _n)(T(lib, dev), T(lib, dev, P), out=T(lib, dev, [[True] * 3] * 2)),
                                    run(lambda lib: getattr(lib, _n)(T(lib, dev), None), lib),
                                    run(lambda lib: getattr(lib, _n)(T(lib, dev), T(lib, dev, [1.0, 2.0])), lib)))


for _name in ("isnan", "isinf", "isfinite", "isposinf", "isneginf", "isreal"):
    case(*_names(_name))(lambda lib, dev, _n=_name: (
        getattr(lib, _n)(T(lib, dev, V)), getattr(T(lib, dev, V).t(), _n)(), getattr(lib, _n)(T(lib, dev, [1, 2])),
        getattr(lib, _n)(T(lib, dev, [True])), getattr(lib, _n)(leaf(lib, dev) * 2).grad_fn,
        run(lambda lib: getattr(lib, _n)(1.0), lib)))


for _name in ("eq", "ne", "lt", "le", "gt", "ge", "not_equal", "less", "less_equal", "greater", "greater_equal"):
    @case(f"Tensor.{_name}_")
    def _compare_(lib, dev, _n=_name + "_"):
        x = leaf(lib, dev)
        y = x * 1
        r = getattr(y, _n)(T(lib, dev, P))
        z = x * 1
        getattr(z, _n)(1.5)
        return (r is y, y, y.grad_fn.name(), z, z.grad_fn.name(), lib.autograd.grad((y + z).sum(), x),
                getattr(T(lib, dev, [1, 2, 3]), _n)(2.5),
                getattr(T(lib, dev, [True, False]), _n)(T(lib, dev, [0.5, 0.0])),
                run(lambda lib: getattr(x, _n)(1), lib), run(lambda lib: getattr(x * 1, _n)(None), lib),
                run(lambda lib: getattr(T(lib, dev, [1, 2]), _n)(T(lib, dev, [[1], [2]])), lib))


@case(*_names("isclose"))
def _isclose(lib, dev):
    x, y = T(lib, dev, V), T(lib, dev, [[1.0 + 1e-6, NAN, 3.1], [-INF, 4.0, -INF]])
    return (lib.isclose(x, y), x.isclose(y, equal_nan=True), lib.isclose(x, y, rtol=0.1, atol=0.0),
            lib.isclose(T(lib, dev, [10, 20]), T(lib, dev, [11, 22]), rtol=0.1, atol=0),
            lib.isclose(T(lib, dev, [True, False]), T(lib, dev, [True, True])), lib.isclose(x, y[0]),
            run(lambda lib: lib.isclose(x, x.double()), lib), run(lambda lib: lib.isclose(x, x, rtol=-1), lib),
            run(lambda lib: lib.isclose(x, x, atol=-0.5), lib), run(lambda lib: lib.isclose(x, y[:, :2]), lib))


@case("torchlite.allclose")  # Tensor.allclose has its case above
def _allclose(lib, dev):
    x = T(lib, dev, V)
    return (lib.allclose(x, x), lib.allclose(x, x, equal_nan=True),
            T(lib, dev).allclose(T(lib, dev) + 1e-9), lib.allclose(T(lib, dev), T(lib, dev) + 1),
            lib.allclose(T(lib, dev), T(lib, dev, A[0])), run(lambda lib: lib.allclose(x, x.double()), lib),
            run(lambda lib: lib.allclose(x, T(lib, dev, [1.0, 2.0])), lib))


@case(*_names("equal"))
def _equal(lib, dev):
    x = T(lib, dev)
    return (lib.equal(x, x.clone()), x.equal(x + 1), lib.equal(x, x[0]), lib.equal(x, x.reshape(3, 2)),
            lib.equal(T(lib, dev, [1.0, 2.0]), T(lib, dev, [1, 2])), lib.equal(T(lib, dev, V), T(lib, dev, V)),
            lib.equal(x.t(), x.t().contiguous()), run(lambda lib: lib.equal(x, 1), lib))


@case("torchlite.isin")
def _isin(lib, dev):
    x = T(lib, dev, [[1, 2, 3], [4, 5, 6]])
    return (lib.isin(x, T(lib, dev, [2, 5, 9])), lib.isin(x, 3, invert=True), lib.isin(2, T(lib, dev, [1.0, 2.0])),
            lib.isin(T(lib, dev, [1, 2]), T(lib, dev, [2.5, 1.0])), lib.isin(x.t(), x[0]),
            lib.isin(T(lib, dev, [1.0, NAN]), T(lib, dev, [NAN, 1.0])),
            run(lambda lib: lib.isin(T(lib, dev, [True]), T(lib, dev, [1])), lib),
            run(lambda lib: lib.isin(2, 3), lib))


U = [[3.0, 1.0, 2.0], [3.0, 1.0, 2.0], [0.0, 5.0, 1.0], [3.0, 1.0, 2.0]]


@case(*_names("unique"))
def _unique(lib, dev):
    x = T(lib, dev, U)
    f = lib.unique
    return (f(x), f(x, return_inverse=True), f(x, return_counts=True), f(x, False, True, True),
            f(x, dim=0, return_inverse=True, return_counts=True), f(x, dim=1, return_inverse=True),
            x.unique(dim=-1), f(T(lib, dev, [NAN, 1.0, NAN, 0.0]), return_inverse=True, return_counts=True),
            f(T(lib, dev, [True, False, True]), sorted=False), f(T(lib, dev, 3), return_inverse=True),
            f(lib.zeros(0, 3, device=dev), dim=0, return_inverse=True, return_counts=True),
            f(T(lib, dev, [5, 3, 9, 3]), sorted=False, return_inverse=True),
            f(leaf(lib, dev)).grad_fn.name(), f(leaf(lib, dev), dim=0).grad_fn.name(),
            f(leaf(lib, dev), return_inverse=True)[1].grad_fn,
            run(lambda lib: f(leaf(lib, dev)).sum().backward(), lib),
            run(lambda lib: f(leaf(lib, dev), dim=1).sum().backward(), lib),
            run(lambda lib: f(T(lib, dev, 3), dim=0), lib), run(lambda lib: f(lib.zeros(2, 0), dim=0), lib))


@case(*_names("unique_consecutive"))
def _unique_consecutive(lib, dev):
    x = T(lib, dev, U)
    f = lib.unique_consecutive
    return (f(x), f(x, return_inverse=True, return_counts=True), x.unique_consecutive(dim=0, return_counts=True),
            f(x, True, True, 1), f(T(lib, dev, [NAN, NAN, 1.0, 1.0]), return_counts=True),
            f(T(lib, dev, 3), return_inverse=True, return_counts=True),
            f(leaf(lib, dev)).grad_fn.name(), run(lambda lib: f(leaf(lib, dev)).sum().backward(), lib))


@case(*_names("bincount"))
def _bincount(lib, dev):
    x = T(lib, dev, [0, 1, 1, 3])
    w = T(lib, dev, [1.0, 2.0, 3.0, 4.0])
    return (lib.bincount(x), x.bincount(w), lib.bincount(x, w.double(), minlength=6),
            lib.bincount(x, T(lib, dev, [1, 2, 3, 4])),
            lib.bincount(x, minlength=2), lib.bincount(T(lib, dev, [], dtype=lib.int64)),
            run(lambda lib: lib.bincount(T(lib, dev, [0, -1])), lib),
            run(lambda lib: lib.bincount(T(lib, dev, [[0, 1]])), lib),
            run(lambda lib: lib.bincount(T(lib, dev, [0.0, 1.0])), lib),
            run(lambda lib: lib.bincount(x, minlength=-1), lib),
            run(lambda lib: lib.bincount(x, weights=w[:2]), lib))


@case(*_names("histc"))
def _histc(lib, dev):
    x = T(lib, dev, [[0.5, 1.0, 2.0], [5.0, 1.0, 1.5]])
    return (lib.histc(x, bins=4, min=0, max=3), x.histc(4), lib.histc(x.double(), 3, 1, 2), lib.histc(x, 5, 1, 1),
            lib.histc(T(lib, dev, [1.0, 1.0]), bins=4), lib.histc(T(lib, dev, [], dtype=lib.float32), bins=3),
            lib.histc(x, 3, out=T(lib, dev, [0.0, 0.0, 0.0])),
            run(lambda lib: lib.histc(T(lib, dev, [1, 2]), bins=4), lib),
            run(lambda lib: lib.histc(x, bins=0), lib), run(lambda lib: lib.histc(x, 4, 3, 1), lib),
            run(lambda lib: lib.histc(x, 4, 1, INF), lib))


@case("torchlite.searchsorted")
def _searchsorted(lib, dev):
    b = T(lib, dev, [1, 3, 5, 7])
    v = T(lib, dev, [[3, 6, 9], [0, 1, 7]])
    f = lib.searchsorted
    return (f(b, v), f(b, v, right=True), f(b, v, side="right"), f(b, 3), f(b, 3.5, side="left"),
            f(T(lib, dev, [[1, 3], [2, 4]]), T(lib, dev, [[2], [3]])), f(T(lib, dev, [1.0, 3.0]), T(lib, dev, [2])),
            f(T(lib, dev, [5, 1, 3]), T(lib, dev, [2, 4]), sorter=T(lib, dev, [1, 2, 0])),
            f(b.double(), v.t().contiguous()), f(b, v, out=T(lib, dev, [[0] * 3] * 2)),
            run(lambda lib: f(b, v, side="left", right=True), lib),
            run(lambda lib: f(b, v, side="middle"), lib),
            run(lambda lib: f(T(lib, dev, [[1, 3], [2, 4]]), T(lib, dev, [[2], [3], [4]])), lib),
            run(lambda lib: f(T(lib, dev, 1), T(lib, dev, [1])), lib),
            run(lambda lib: f(b, v, sorter=T(lib, dev, [0])), lib),
            run(lambda lib: f(b, v, sorter=T(lib, dev, [0.0, 1.0, 2.0, 3.0])), lib),
            run(lambda lib: f(b, v, sorter=T(lib, dev, [0, 1, 2, 9])), lib))


@case("torchlite.bucketize")
def _bucketize(lib, dev):
    b = T(lib, dev, [1.0, 3.0, 5.0, 7.0])
    return (lib.bucketize(T(lib, dev, [[3, 6], [9, 1]]), b), lib.bucketize(3, b, right=True),
            lib.bucketize(T(lib, dev, [1.0, 3.0]), b, right=True),
            run(lambda lib: lib.bucketize(T(lib, dev, [3]), b.reshape(1, 4)), lib),
            run(lambda lib: lib.bucketize(T(lib, dev, [3]), T(lib, dev, 1.0)), lib))


def _random_fill(name, *args):
    """A random fill after manual_seed(0): its values (torch's), dtype, shape, node and errors."""
    def run_case(lib, dev):
        lib.manual_seed(0)
        x = leaf(lib, dev, [[0.0] * 50] * 40)
        y = x * 1
        r = getattr(y, name)(*args)
        a = r.detach().cpu().numpy()
        (g,) = lib.autograd.grad((y * 2).sum(), x)
        leaf_error = run(lambda lib: getattr(leaf(lib, dev), name)(*args), lib)
        return r is y, str(r.dtype), tuple(r.shape), r.grad_fn.name(), g, leaf_error, a
    return run_case


@case("Tensor.uniform_")
def _uniform_(lib, dev):
    same, dtype, shape, node, g, leaf_error, a = _random_fill("uniform_", -2.0, 3.0)(lib, dev)
    ok = -2.0 <= a.min() and a.max() < 3.0 and abs(a.mean() - 0.5) < 0.15 and abs(a.std() - 5 / 12 ** 0.5) < 0.1
    return (a.tobytes(), same, dtype, shape, node, g, leaf_error, ok, str(T(lib, dev).double().uniform_().dtype),
            run(lambda lib: T(lib, dev, [1, 2]).uniform_(), lib), run(lambda lib: T(lib, dev).uniform_(2, 1), lib),
            run(lambda lib: T(lib, dev).uniform_(to=1.0, **{"from": 0.5}).ge(0.5).long().sum(), lib))


@case("Tensor.normal_")
def _normal_(lib, dev):
    same, dtype, shape, node, g, leaf_error, a = _random_fill("normal_", 3.0, 2.0)(lib, dev)
    ok = abs(a.mean() - 3.0) < 0.2 and abs(a.std() - 2.0) < 0.2
    return (a.tobytes(), same, dtype, shape, node, g, leaf_error, ok, str(T(lib, dev).double().normal_().dtype),
            run(lambda lib: T(lib, dev, [1, 2]).normal_(), lib), run(lambda lib: T(lib, dev).normal_(0, -1), lib),
            T(lib, dev).normal_(std=0.0, mean=2.5))


@case("Tensor.exponential_")
def _exponential_(lib, dev):
    same, dtype, shape, node, g, leaf_error, a = _random_fill("exponential_", 2.0)(lib, dev)
    ok = a.min() >= 0 and abs(a.mean() - 0.5) < 0.05
    return (a.tobytes(), same, dtype, shape, node, g, leaf_error, ok,
            run(lambda lib: T(lib, dev, [1, 2]).exponential_(), lib),
            run(lambda lib: T(lib, dev).exponential_(0), lib), run(lambda lib: T(lib, dev).exponential_(-1.5), lib))


@case("Tensor.geometric_")
def _geometric_(lib, dev):
    same, dtype, shape, node, g, leaf_error, a = _random_fill("geometric_", 0.25)(lib, dev)
    ok = a.min() >= 1 and (a == a.round()).all() and abs(a.mean() - 4.0) < 0.4
    i = T(lib, dev, [0] * 100).geometric_(0.5)
    return (a.tobytes(), i, same, dtype, shape, node, g, leaf_error, ok, str(i.dtype), bool(i.min() >= 1),
            run(lambda lib: T(lib, dev).geometric_(0), lib), run(lambda lib: T(lib, dev).geometric_(1), lib),
            run(lambda lib: T(lib, dev, [True]).geometric_(0.5), lib))


@case("Tensor.random_")
def _random_(lib, dev):
    out = []
    for args in [(), (5,), (-3, 4), (2, None)]:
        same, dtype, shape, node, g, leaf_error, a = _random_fill("random_", *args)(lib, dev)
        low = args[0] if len(args) == 2 else 0
        high = args[-1] if args and args[-1] is not None else 2 ** 24 + 1
        out.append((a.tobytes(), same, dtype, shape, node, g, leaf_error, bool(low <= a.min() and a.max() < high),
                    bool((a == a.round()).all()), len(set(a.ravel().tolist())) > min(high - low, 100) // 2))
    ints = T(lib, dev, [0] * 200).random_(-5, 5)
    bools = T(lib, dev, [False] * 200).random_()
    return (out, ints, bools, str(ints.dtype), bool(ints.min() >= -5), bool(ints.max() < 5),
            str(bools.dtype), bool(bools.long().sum() > 0),
            run(lambda lib: T(lib, dev).random_(5, 3), lib), run(lambda lib: T(lib, dev).random_(0), lib),
            run(lambda lib: T(lib, dev, [True]).random_(3), lib))


@case("Tensor.bernoulli_")
def _bernoulli_(lib, dev):
    same, dtype, shape, node, g, leaf_error, a = _random_fill("bernoulli_", 0.3)(lib, dev)
    ok = set(a.ravel().tolist()) == {0.0, 1.0} and abs(a.mean() - 0.3) < 0.05
    x = leaf(lib, dev, [[0.0] * 50] * 40)
    y = x * 1
    p = T(lib, dev, [0.0] * 25 + [1.0] * 25)
    r = y.bernoulli_(p)
    return (a.tobytes(), r, same, dtype, shape, node, g, leaf_error, ok, r.grad_fn.name(), r.sum(0), r.sum(),
            T(lib, dev, [0, 0]).bernoulli_(1.0),
            T(lib, dev, [False]).bernoulli_(1.0), run(lambda lib: T(lib, dev).bernoulli_(2), lib),
            run(lambda lib: T(lib, dev).bernoulli_(T(lib, dev, [0.5, 0.5])), lib))


@case(*_names("bernoulli"))
def _bernoulli(lib, dev):
    lib.manual_seed(0)
    x = leaf(lib, dev, [[0.0, 1.0] * 50] * 20)
    r = lib.bernoulli(x)
    q = x.detach().bernoulli(0.5)
    return (r, q, lib.bernoulli(lib.rand(30, device=dev)), r.grad_fn.name(), lib.autograd.grad(r.sum(), x),
            str(q.dtype), bool(abs(q.mean() - 0.5) < 0.1),
            T(lib, dev, [0.0, 1.0]).double().bernoulli(), run(lambda lib: lib.bernoulli(T(lib, dev, [0, 1])), lib),
            run(lambda lib: lib.bernoulli(T(lib, dev, [0.5, 2.0])), lib),
            run(lambda lib: lib.bernoulli(T(lib, dev), p=2.0), lib))


@case("Tensor.fill_diagonal_")
def _fill_diagonal_(lib, dev):
    def op(x):
        y = x * 1
        return y.fill_diagonal_(2.0), y.grad_fn.name()
    shapes = [(3, 3), (7, 3), (2, 3), (3, 7)]
    return ([with_grads(lib, op, lib.zeros(*s, device=dev, requires_grad=True)) for s in shapes],
            lib.zeros(7, 3, device=dev).fill_diagonal_(1, wrap=True),
            lib.zeros(8, 2, device=dev).fill_diagonal_(1, True),
            lib.zeros(2, 2, 2, device=dev).fill_diagonal_(1),
            lib.zeros(2, 2, dtype=lib.int64, device=dev).fill_diagonal_(1.5),
            lib.zeros(3, 4, device=dev).t().fill_diagonal_(5.0, wrap=True),
            run(lambda lib: lib.zeros(2, 3, 2, device=dev).fill_diagonal_(1), lib),
            run(lambda lib: lib.zeros(2, device=dev).fill_diagonal_(1), lib),
            run(lambda lib: leaf(lib, dev).fill_diagonal_(1), lib))


@case("Tensor.type")
def _type(lib, dev):
    x = leaf(lib, dev)
    return (x.type(), T(lib, dev, [1]).type(), T(lib, dev, [True]).type(), x.double().type(), x.type(lib.float64),
            x.type(lib.float32) is x, x.type("torch.LongTensor".replace("torch", lib.__name__)),
            str(x.type(lib.int64).dtype), run(lambda lib: x.type("foo"), lib),
            [(y.type(), str(y.dtype)) for y in (x.type(lib.float16), x.type(lib.int8), x.type(lib.uint8), x.half(),
                                                x.type("torch.HalfTensor".replace("torch", lib.__name__)))])


@case("Tensor.new_tensor")
def _new_tensor(lib, dev):
    x = T(lib, dev)
    return (x.new_tensor([1, 2]), x.new_tensor([1, 2], dtype=lib.float64, requires_grad=True),
            T(lib, dev, [1]).new_tensor([1.5]), x.new_tensor(x), x.new_tensor(3.0))


@case("Tensor.new_full")
def _new_full(lib, dev):
    x = T(lib, dev)
    return (x.new_full((2,), 3), x.new_full((2, 1), 3.5, dtype=lib.int64), x.new_full([1], 2.0, requires_grad=True),
            T(lib, dev, [1]).new_full((2,), 7))


@case("Tensor.new_empty")
def _new_empty(lib, dev):
    x = T(lib, dev)
    e = x.new_empty(2, 3)
    return (tuple(e.shape), str(e.dtype),
    str(x.new_empty((1, 2), dtype=lib.int64).dtype), tuple(x.new_empty([0]).shape),
            x.new_empty(2, requires_grad=True).requires_grad)


@case("Tensor.apply_")
def _apply_(lib, dev):
    x = T(lib, dev)
    y = T(lib, dev, [1, 2, 3])
    return (x.apply_(lambda v: v * 2) is x, x, y.apply_(lambda v: v * 2.7), x.t().apply_(lambda v: -v), x,
            run(lambda lib: leaf(lib, dev).apply_(lambda v: v), lib))


@case("Tensor.data_ptr")
def _data_ptr(lib, dev):
    x = T(lib, dev, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    return (x[1].data_ptr() - x.data_ptr(), x[:, 2].data_ptr() - x.data_ptr(), x.t().data_ptr() == x.data_ptr(),
            x.clone().data_ptr() != x.data_ptr(), isinstance(x.data_ptr(), int))


def _nbytes(lib, dev):  # run by _dtype_queries
    return T(lib, dev).nbytes, T(lib, dev).double().nbytes, T(lib, dev, [1]).nbytes, T(lib, dev)[0].nbytes, \
        T(lib, dev, [True, False]).nbytes, T(lib, dev).t().nbytes


def _itemsize(lib, dev):  # run by _dtype_queries
    return T(lib, dev).itemsize, T(lib, dev).double().itemsize, T(lib, dev, [1]).itemsize, T(lib, dev, [True]).itemsize


@case("torchlite.memory_format")
def _memory_format(lib, dev):
    formats = [lib.contiguous_format, lib.channels_last, lib.channels_last_3d, lib.preserve_format]
    x = lib.zeros(2, 3, 4, 5, device=dev)
    cl = x.contiguous(memory_format=lib.channels_last)
    return ([repr(f) for f in formats], [isinstance(f, lib.memory_format) for f in formats],
            x.is_contiguous(), x.is_contiguous(memory_format=lib.channels_last), cl.stride(),
            cl.is_contiguous(memory_format=lib.channels_last), cl.is_contiguous(),
            cl.contiguous(memory_format=lib.channels_last) is cl,
            x.clone(memory_format=lib.channels_last).stride(), cl.clone().stride(),
            cl.clone(memory_format=lib.contiguous_format).stride(),
            lib.zeros(2, 3, 4, 5, 6, device=dev).contiguous(memory_format=lib.channels_last_3d).stride(),
            T(lib, dev).t().clone(memory_format=lib.contiguous_format).stride(), T(lib, dev).t().clone().stride(),
            T(lib, dev).is_contiguous(memory_format=lib.channels_last),
            run(lambda lib: T(lib, dev).clone(memory_format=lib.channels_last), lib),
            run(lambda lib: T(lib, dev).contiguous(memory_format=lib.channels_last), lib),
            run(lambda lib: T(lib, dev).t().contiguous(memory_format=lib.preserve_format), lib),
            with_grads(lib, lambda x: x.reshape(1, 1, 2, 3).contiguous(memory_format=lib.channels_last) * 1,
                       leaf(lib, dev)))


@case("torchlite.set_printoptions")
def _set_printoptions(lib, dev):
    x = lib.tensor([[1.123456, -2.5, 3e-3], [4.0, 5.5, 600.0]], device=dev)
    big = lib.arange(2000, device=dev).reshape(40, 50)
    seen = []
    try:
        for opts in [dict(precision=2), dict(threshold=5), dict(edgeitems=1, threshold=3), dict(linewidth=30),
                     dict(sci_mode=True), dict(sci_mode=False), dict(profile="short"), dict(profile="full"),
                     dict(profile="short", precision=6)]:
            lib.set_printoptions(**opts)
            seen.append([re.sub(r",\s*device='sim:0'", "", repr(t)) for t in (x, big[:3])])
            lib.set_printoptions(profile="default")
    finally:
        lib.set_printoptions(profile="default")
    return seen

# ==== issue 14: rng ====
# (the rng family's entries follow this line)
MODULES += ["torchlite.random"]


@case("torchlite.get_rng_state", "torchlite.set_rng_state")
def _rng_state(lib, dev):
    lib.manual_seed(7)
    lib.randn(3, device=dev)  # leaves a cached normal sample in the state
    state = lib.get_rng_state()
    a = lib.randn(5, device=dev)
    lib.set_rng_state(state)
    return (state.numpy().tobytes(), str(state.dtype), a, lib.randn(5, device=dev),
            run(lambda lib: lib.set_rng_state(lib.zeros(5056, dtype=lib.uint8)), lib),
            run(lambda lib: lib.set_rng_state(lib.zeros(3, dtype=lib.uint8)), lib),
            run(lambda lib: lib.set_rng_state(lib.zeros(5056)), lib))


@case("torchlite.seed", "torchlite.initial_seed")
def _seed(lib, dev):
    s = lib.seed()
    ok = lib.initial_seed() == s and 0 <= s < 2 ** 64
    lib.manual_seed(11)
    return ok, lib.initial_seed(), lib.rand(4, device=dev)


@case("torchlite.random.fork_rng")
def _fork_rng(lib, dev):
    lib.manual_seed(1)
    with lib.random.fork_rng():
        inside = lib.randn(4, device=dev)
    with lib.random.fork_rng(devices=[], enabled=True):
        lib.rand(3, device=dev)
    return inside, lib.randn(4, device=dev)

# ==== issue 14: serialization ====
# (the serialization family's entries follow this line)
MODULES += ["torchlite.serialization"]


def _saved_by_torch(obj):
    import io
    buf = io.BytesIO()
    torch.save(obj, buf)
    return buf.getvalue()


class _SurfacePoint:
    """A class a checkpoint names, allowed through the safe-globals API."""

    def __init__(self, x):
        self.x = x

    def __eq__(self, other):
        return isinstance(other, _SurfacePoint) and other.x == self.x


def _with_safe_globals_restored(lib, fn):
    """fn(), then the library's safe globals back as they were (torch has its own in the list)."""
    before = lib.serialization.get_safe_globals()
    try:
        return fn()
    finally:
        lib.serialization.clear_safe_globals()
        lib.serialization.add_safe_globals(before)


@case("torchlite.save", "torchlite.load")
def _save_load_case(lib, dev):
    import io
    base = lib.arange(6.0, device=dev).reshape(2, 3)
    buf = io.BytesIO()
    lib.save({"b": base, "t": base.t(), "g": lib.ones(2, device=dev, requires_grad=True), "n": [1, None],
              "i": lib.tensor([1, 2], dtype=lib.int8, device=dev)}, buf)
    out = lib.load(io.BytesIO(buf.getvalue()))
    shared = out["t"].data_ptr() == out["b"].data_ptr()
    return (out["b"], out["t"], out["t"].stride(), out["g"], out["g"].requires_grad, out["g"].is_leaf, out["n"],
            out["i"], shared)


@case("torchlite.serialization.add_safe_globals", "torchlite.serialization.get_safe_globals")
def _add_safe_globals_case(lib, dev):
    import io
    data = _saved_by_torch({"p": _SurfacePoint(2)})

    def fn():
        lib.serialization.add_safe_globals([_SurfacePoint])
        return _SurfacePoint in lib.serialization.get_safe_globals(), lib.load(io.BytesIO(data))["p"].x
    return _with_safe_globals_restored(lib, fn)


@case("torchlite.serialization.clear_safe_globals")
def _clear_safe_globals_case(lib, dev):
    def fn():
        lib.serialization.add_safe_globals([_SurfacePoint])
        lib.serialization.clear_safe_globals()
        return lib.serialization.get_safe_globals()
    return _with_safe_globals_restored(lib, fn)


@case("torchlite.serialization.safe_globals")
def _safe_globals_case(lib, dev):
    import io
    data = _saved_by_torch([_SurfacePoint(3), torch.ones(2)])
    with lib.serialization.safe_globals([_SurfacePoint]):
        point, t = lib.load(io.BytesIO(data))
        inside = _SurfacePoint in lib.serialization.get_safe_globals()
    return point.x, t.tolist(), inside, _SurfacePoint in lib.serialization.get_safe_globals()


@case("torchlite.serialization.get_unsafe_globals_in_checkpoint")
def _unsafe_globals_case(lib, dev):
    import io
    data = _saved_by_torch({"p": _SurfacePoint(1), "t": torch.ones(1)})
    return lib.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(data))


# ==== issue 14: autograd ====
# (the autograd family's entries follow this line)

@case("torchlite.linalg.inv_ex")
def _inv_ex(lib, dev):
    x = leaf(lib, dev, _SQ)
    return with_grads(lib, lambda x: (*lib.linalg.inv_ex(x), lib.linalg.inv_ex(x * 0, check_errors=False).info,
                                      run(lambda lib: lib.linalg.inv_ex(lib.zeros(2, 2), check_errors=True), lib)), x)


@case("torchlite.linalg.cholesky_ex")
def _cholesky_ex(lib, dev):
    x = leaf(lib, dev, _SPD)
    return with_grads(lib, lambda x: (*lib.linalg.cholesky_ex(x), lib.linalg.cholesky_ex(x, upper=True).L,
                                      lib.linalg.cholesky_ex(-x.detach()).info), x)


@case("torchlite.diagonal_copy")
def _diagonal_copy(lib, dev):
    x = leaf(lib, dev, [[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [[7.0, 8.0, 9.0], [1.5, 2.5, 3.5]]])
    return with_grads(lib, lambda x: (lib.diagonal_copy(x), lib.diagonal_copy(x, 1, -1, 0),
                                      lib.diagonal_copy(x, offset=-1, dim1=2, dim2=1)._base is None), x)


@case("Tensor.index_put", "torchlite.index_put", "Tensor.index_put_", "torchlite.index_put_")
def _index_put(lib, dev):
    i = lib.tensor([0, 1], device=dev)

    def fn(x):
        v = x[0, :2] * 2
        a = x.index_put((i,), x[1:] * 3)
        b = lib.index_put(x, (i, i), v, accumulate=True)
        c = (x * 1).index_put_((i, i), v)
        d = lib.index_put_(x * 1, [i], x[0], True)
        return a, b, c, d, a.grad_fn.name(), c.grad_fn.name()
    return with_grads(lib, fn, leaf(lib, dev))


@case("Tensor.put", "torchlite.put", "Tensor.put_")
def _put_public(lib, dev):
    i = lib.tensor([0, 5, 5], device=dev)

    def fn(x):
        v = x[1] * 2
        return (x.put(i[:2], v[:2]), lib.put(x, i, v, accumulate=True), (x * 1).put_(i, v, True),
                x.put(i[:1], v[:1]).grad_fn.name())
    return with_grads(lib, fn, leaf(lib, dev))


@case("torchlite.serialization.set_default_mmap_options", "torchlite.serialization.get_default_mmap_options")
def _mmap_options(lib, dev):
    import mmap
    import os
    import tempfile
    s = lib.serialization
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "t.pt")
        lib.save({"w": lib.arange(4.0)}, p)
        with s.set_default_mmap_options(mmap.MAP_SHARED):
            inside = s.get_default_mmap_options()
            lib.load(p, mmap=True)["w"][0] = 9.0
        private = lib.load(p, mmap=True)
        private["w"][1] = 5.0
        return inside, s.get_default_mmap_options(), lib.load(p, mmap=True)["w"].tolist(), run(
            lambda lib: lib.serialization.set_default_mmap_options(3), lib)


@case("Tensor.squeeze_")
def _squeeze_inplace(lib, dev):
    def fn(x):
        y = (x * 2).unsqueeze(0).unsqueeze(-1)
        y.squeeze_(0)
        z = (x * 3).unsqueeze(1)
        z.squeeze_((1, -1))
        w = (x * 4).unsqueeze(0)
        return y, y.grad_fn.name(), z, z.grad_fn.name(), w.squeeze_(), w.grad_fn.name()
    return with_grads(lib, fn, leaf(lib, dev))


@case("torchlite.autograd.graph.allow_mutation_on_saved_tensors")
def _allow_mutation_on_saved_tensors(lib, dev):
    with lib.autograd.graph.allow_mutation_on_saved_tensors():
        x = leaf(lib, dev)
        y = x.clone()
        out = (y * y.exp()).sum()
        y.mul_(3)
        out.backward()
    return x.grad, run(lambda lib: _nested_allow_mutation(lib), lib)


def _nested_allow_mutation(lib):
    with lib.autograd.graph.allow_mutation_on_saved_tensors():
        with lib.autograd.graph.allow_mutation_on_saved_tensors():
            pass


# ==== issue 12: args ====
# (the args family's entries follow this line)
MODULES += ["torchlite.nn.parallel", "torchlite.backends.cudnn", "torchlite.backends.cuda", "torchlite.backends.mps"]


@case("torchlite.nn.DataParallel", "torchlite.nn.parallel.data_parallel")
def _data_parallel(lib, dev):
    lib.manual_seed(0)
    inner = lib.nn.Linear(3, 2).to(dev)
    m = lib.nn.DataParallel(inner)
    x = T(lib, dev, [[1.0, 2.0, 3.0]])
    y = m(x)
    y.sum().backward()
    return (y, inner.weight.grad, list(m.state_dict()), m.device_ids, m.module is inner, repr(m),
            run(lambda lib: lib.nn.parallel.data_parallel(inner, x), lib))


@case("torchlite.backends.cudnn.version", "torchlite.backends.cudnn.is_available",
      "torchlite.backends.cudnn.is_acceptable", "torchlite.backends.cudnn.flags")
def _cudnn(lib, dev):
    c = lib.backends.cudnn
    # cuDNN exists exactly in a CUDA build of torch (PyPI's 3.10 / 3.13 wheels bundle it, with or without a
    # GPU); torchlite never has it
    bundled = lib.__name__ == "torch" and lib.cuda._is_compiled()
    limit = 10 if bundled else None  # (cudnn.benchmark_limit: cuDNN's default, None without it)
    out = [(c.version() is not None) == bundled, c.is_available() == bundled, c.is_acceptable(T(lib, dev)), c.enabled,
           c.benchmark, c.deterministic, c.allow_tf32, c.benchmark_limit == limit]
    with c.flags(enabled=False, benchmark=True, deterministic=True, allow_tf32=False):
        out.append((c.enabled, c.benchmark, c.deterministic, c.allow_tf32, c.benchmark_limit == limit))
    out.append((c.enabled, c.benchmark, c.deterministic, c.allow_tf32, c.benchmark_limit == limit))
    return out


@case("torchlite.backends.cuda.is_built", "torchlite.backends.cuda.cuBLASModule",
      "torchlite.backends.cuda.flash_sdp_enabled", "torchlite.backends.cuda.mem_efficient_sdp_enabled",
      "torchlite.backends.cuda.math_sdp_enabled", "torchlite.backends.cuda.enable_flash_sdp",
      "torchlite.backends.cuda.enable_mem_efficient_sdp", "torchlite.backends.cuda.enable_math_sdp")
def _backends_cuda(lib, dev):
    cu = lib.backends.cuda
    m = cu.matmul
    # (is_built answers by build, as torch's: compared with the library's own _is_compiled, since CI
    # builds torchlite with CUDA where nvcc is and PyPI's torch for 3.11 is a CPU build)
    out = [cu.is_built() == lib.cuda._is_compiled(), m.allow_tf32, m.allow_fp16_reduced_precision_reduction,
           m.allow_bf16_reduced_precision_reduction, type(m).__name__,
           run(lambda lib: setattr(lib.backends.cuda.matmul, "no_such_switch", 1), lib),
           run(lambda lib: lib.backends.cuda.matmul.no_such_switch, lib)]
    m.allow_tf32 = True
    out.append(m.allow_tf32)
    m.allow_tf32 = False
    flags = (cu.flash_sdp_enabled(), cu.mem_efficient_sdp_enabled(), cu.math_sdp_enabled())
    cu.enable_flash_sdp(False)
    cu.enable_mem_efficient_sdp(False)
    cu.enable_math_sdp(False)
    out.append((cu.flash_sdp_enabled(), cu.mem_efficient_sdp_enabled(), cu.math_sdp_enabled()))
    cu.enable_flash_sdp(flags[0])
    cu.enable_mem_efficient_sdp(flags[1])
    cu.enable_math_sdp(flags[2])
    return out + [flags]


@case("torchlite.backends.mps.is_available", "torchlite.backends.mps.is_built")
def _backends_mps(lib, dev):
    return lib.backends.mps.is_available(), lib.backends.mps.is_built()


@case("torchlite.cuda.manual_seed", "torchlite.cuda.manual_seed_all", "torchlite.cuda.seed",
      "torchlite.cuda.seed_all", "torchlite.cuda.empty_cache", "torchlite.cuda.memory_allocated",
      "torchlite.cuda.memory_reserved", "torchlite.cuda.is_bf16_supported")
def _cuda_seeding_memory(lib, dev):
    # without CUDA: the seeding calls are ignored (the CPU generator untouched), no memory is in use
    lib.manual_seed(5)
    before = lib.rand(2, device=dev)
    lib.manual_seed(5)
    out = [lib.cuda.manual_seed(1), lib.cuda.manual_seed_all(2), lib.cuda.seed(), lib.cuda.seed_all()]
    return out + [lib.rand(2, device=dev), before, lib.cuda.empty_cache(), lib.cuda.memory_allocated(),
                  lib.cuda.memory_reserved(), lib.cuda.is_bf16_supported()]


_DEVICE_KIND_PROPS = ("is_xpu", "is_mps", "is_meta", "is_xla", "is_ipu", "is_vulkan", "is_mtia", "is_maia",
                      "is_sparse", "is_sparse_csr", "is_quantized", "is_mkldnn", "is_nested")


@case("Tensor.is_cpu", "Tensor.get_device", *(f"Tensor.{n}" for n in _DEVICE_KIND_PROPS))
def _device_kind_props(lib, dev):
    x = T(lib, dev)
    on_cpu = x.device.type == "cpu"
    return ([getattr(x, n) for n in _DEVICE_KIND_PROPS], x.is_cpu == on_cpu,
            x.get_device() == (-1 if on_cpu else x.device.index), lib.zeros(2).get_device(), lib.zeros(2).is_cpu)


@case("Tensor.layout", "Tensor.ndimension")
def _layout_ndimension(lib, dev):
    x = T(lib, dev)
    return str(x.layout), x.layout == lib.strided, x.ndimension(), x[0, 0].ndimension(), x.sum(0).ndimension()


# ==== issue 15: functional ====
# (the functional family's entries follow this line)
X3 = [[[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]], [[-1.0, 0.25, 2.0], [3.0, -0.5, 1.0]]]


@case("torchlite.softmax", "Tensor.softmax", "torchlite.nn.functional.softmax")
def _softmax(lib, dev):
    return with_grads(lib, lambda x: (lib.softmax(x, 1), x.softmax(-1), x.softmax(0, dtype=lib.float64),
                                      lib.nn.functional.softmax(x, dim=2), x.softmax(1).grad_fn.name()),
                      leaf(lib, dev, X3))


@case("torchlite.log_softmax", "Tensor.log_softmax", "torchlite.nn.functional.log_softmax")
def _log_softmax(lib, dev):
    return with_grads(lib, lambda x: (lib.log_softmax(x, 1), x.log_softmax(-1), x.log_softmax(0, lib.float64),
                                      lib.nn.functional.log_softmax(x, dim=2), x.log_softmax(1).grad_fn.name()),
                      leaf(lib, dev, X3))


@case("torchlite.nn.functional.softmin")
def _softmin(lib, dev):
    return with_grads(lib, lambda x: (lib.nn.functional.softmin(x, 1), lib.nn.functional.softmin(x, -1)),
                      leaf(lib, dev, X3))


@case("torchlite.nn.functional.linear")
def _linear(lib, dev):
    F = lib.nn.functional
    x, w, b = leaf(lib, dev, X3), leaf(lib, dev, [[1.0, 0.5, -1.0], [2.0, -0.25, 0.0]]), leaf(lib, dev, [0.5, -1.5])
    return with_grads(lib, lambda x, w, b: [(y, y.grad_fn.name()) for y in (F.linear(x, w, b), F.linear(x[0], w, b),
                                                                             F.linear(x, w), F.linear(x[0], w))],
                      x, w, b)


@case("torchlite.bilinear", "torchlite.nn.functional.bilinear")
def _bilinear(lib, dev):
    x1, x2 = leaf(lib, dev, A), leaf(lib, dev, [[1.0, 2.0], [-0.5, 0.25]])
    w, b = leaf(lib, dev, [[[1.0, 0.5], [-1.0, 2.0], [0.0, 1.5]]]), leaf(lib, dev, [0.5])
    return with_grads(lib, lambda x1, x2, w, b: (lib.bilinear(x1, x2, w, b), lib.nn.functional.bilinear(x1, x2, w)),
                      x1, x2, w, b)


def _activation_case(call, inplace=False):
    """An activation's value, node and gradient; an in-place one on a non-leaf (its node, version)."""
    def run_case(lib, dev):
        F = lib.nn.functional
        if not inplace:
            return with_grads(lib, lambda x: (lambda y: (y, y.grad_fn.name()))(call(lib, F, x)), leaf(lib, dev, X3))

        def op(x):
            y = x * 1
            out = call(lib, F, y)
            return out, out is y, y.grad_fn.name(), y._version
        return with_grads(lib, op, leaf(lib, dev, X3))
    return run_case


_ACTIVATION_CASES = {
    "nn.functional.threshold": lambda lib, F, x: F.threshold(x, 0.3, -2.0),
    "nn.functional.relu": lambda lib, F, x: F.relu(x),
    "nn.functional.glu": lambda lib, F, x: F.glu(x, 0),
    "nn.functional.hardtanh": lambda lib, F, x: F.hardtanh(x, -0.5, 2.0),
    "nn.functional.relu6": lambda lib, F, x: F.relu6(x * 2),
    "nn.functional.elu": lambda lib, F, x: F.elu(x, 0.5),
    "nn.functional.selu": lambda lib, F, x: F.selu(x),
    "nn.functional.celu": lambda lib, F, x: F.celu(x, 2.0),
    "nn.functional.leaky_relu": lambda lib, F, x: F.leaky_relu(x, 0.2),
    "nn.functional.gelu": lambda lib, F, x: F.gelu(x, approximate="tanh"),
    "nn.functional.logsigmoid": lambda lib, F, x: F.logsigmoid(x),
    "nn.functional.hardshrink": lambda lib, F, x: F.hardshrink(x, 0.6),
    "nn.functional.softplus": lambda lib, F, x: F.softplus(x, 2, 3),
    "nn.functional.softshrink": lambda lib, F, x: F.softshrink(x, 0.6),
    "nn.functional.tanhshrink": lambda lib, F, x: F.tanhshrink(x),
    "nn.functional.softsign": lambda lib, F, x: F.softsign(x),
    "nn.functional.tanh": lambda lib, F, x: F.tanh(x),
    "nn.functional.sigmoid": lambda lib, F, x: F.sigmoid(x),
    "nn.functional.hardsigmoid": lambda lib, F, x: F.hardsigmoid(x),
    "nn.functional.silu": lambda lib, F, x: F.silu(x),
    "nn.functional.mish": lambda lib, F, x: F.mish(x),
    "nn.functional.hardswish": lambda lib, F, x: F.hardswish(x),
    "selu": lambda lib, F, x: lib.selu(x),
    "celu": lambda lib, F, x: lib.celu(x, 0.5),
    "threshold": lambda lib, F, x: lib.threshold(x, 1.0, 0.5),
    "hardshrink": lambda lib, F, x: lib.hardshrink(x, 1.0),
}
_INPLACE_ACTIVATION_CASES = {
    "nn.functional.threshold_": lambda lib, F, x: F.threshold_(x, 0.3, -2.0),
    "nn.functional.relu_": lambda lib, F, x: F.relu_(x),
    "nn.functional.hardtanh_": lambda lib, F, x: F.hardtanh_(x, -0.5, 2.0),
    "nn.functional.elu_": lambda lib, F, x: F.elu_(x, 0.5),
    "nn.functional.selu_": lambda lib, F, x: F.selu_(x),
    "nn.functional.celu_": lambda lib, F, x: F.celu_(x, 2.0),
    "nn.functional.leaky_relu_": lambda lib, F, x: F.leaky_relu_(x, 0.2),
    "selu_": lambda lib, F, x: lib.selu_(x),
    "celu_": lambda lib, F, x: lib.celu_(x, 0.5),
    "threshold_": lambda lib, F, x: lib.threshold_(x, 1.0, 0.5),
}
for _name, _call in _ACTIVATION_CASES.items():
    case(f"torchlite.{_name}")(_activation_case(_call))
for _name, _call in _INPLACE_ACTIVATION_CASES.items():
    case(f"torchlite.{_name}")(_activation_case(_call, inplace=True))
case("Tensor.hardshrink")(_activation_case(lambda lib, F, x: x.hardshrink(0.25)))


@case("torchlite.nn.functional.dropout", "torchlite.dropout", "torchlite.dropout_")
def _dropout(lib, dev):
    # the random masks are not torch's (its generator is not reproduced): p = 0, 1, eval mode and the errors
    F = lib.nn.functional

    def op(x):
        z = x * 1
        return (F.dropout(x, 0.0) is x, F.dropout(x, 0.5, training=False) is x, F.dropout(x, 1.0),
                lib.dropout(x, 1.0, True), lib.dropout_(z, 1.0, True) is z, z, F.dropout(x, 0.7).grad_fn.name(),
                run(lambda lib: F.dropout(x, 1.5), lib), run(lambda lib: lib.dropout(x, -1.0, True), lib))
    return with_grads(lib, op, leaf(lib, dev, X3))


_LOGITS = [[1.0, -2.0, 0.5], [0.25, 1.5, -1.0]]
_PROBS = [[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]]


def _loss_case(call):
    def run_case(lib, dev):
        x, p = leaf(lib, dev, _LOGITS), T(lib, dev, _PROBS)
        t = lib.tensor([2, 0], device=dev)
        return with_grads(lib, lambda x: [(y, y.grad_fn.name()) for y in call(lib, lib.nn.functional, x, t, p)], x)
    return run_case


_LOSS_CASES = {
    "nn.functional.nll_loss": lambda lib, F, x, t, p: (F.nll_loss(x, t), F.nll_loss(x, t, reduction="none"),
                                                       F.nll_loss(x, t, weight=p[0], ignore_index=0)),
    "nn.functional.cross_entropy": lambda lib, F, x, t, p: (F.cross_entropy(x, t), F.cross_entropy(x, p),
                                                            F.cross_entropy(x, t, label_smoothing=0.1)),
    "nn.functional.mse_loss": lambda lib, F, x, t, p: (F.mse_loss(x, p), F.mse_loss(x, p, reduction="sum")),
    "nn.functional.l1_loss": lambda lib, F, x, t, p: (F.l1_loss(x, p), F.l1_loss(x, p, reduction="none")),
    "nn.functional.smooth_l1_loss": lambda lib, F, x, t, p: (F.smooth_l1_loss(x, p), F.smooth_l1_loss(x, p, beta=0.5)),
    "nn.functional.huber_loss": lambda lib, F, x, t, p: (F.huber_loss(x, p), F.huber_loss(x, p, delta=0.5)),
    "nn.functional.binary_cross_entropy": lambda lib, F, x, t, p: (F.binary_cross_entropy(x.sigmoid(), p),
                                                                   F.binary_cross_entropy(p, x.sigmoid(), p[0])),
    "nn.functional.binary_cross_entropy_with_logits":
        lambda lib, F, x, t, p: (F.binary_cross_entropy_with_logits(x, p),
                                 F.binary_cross_entropy_with_logits(x, p, pos_weight=p[1])),
    "binary_cross_entropy_with_logits": lambda lib, F, x, t, p: (lib.binary_cross_entropy_with_logits(x, p, p, p, 2),),
    "nn.functional.kl_div": lambda lib, F, x, t, p: (F.kl_div(x, p, reduction="batchmean"),
                                                     F.kl_div(x, p, reduction="none", log_target=True)),
    "kl_div": lambda lib, F, x, t, p: (lib.kl_div(x, p), lib.kl_div(x, p, 2, log_target=True)),
}
for _name, _call in _LOSS_CASES.items():
    case(f"torchlite.{_name}")(_loss_case(_call))


_Y = [[0.5, 1.0, -2.0], [1.5, -0.5, 0.25]]
_DISTANCE_CASES = {
    "nn.functional.normalize": lambda lib, F, x, y, s: (F.normalize(x), F.normalize(x, p=1.0, dim=0)),
    "nn.functional.pairwise_distance": lambda lib, F, x, y, s: (F.pairwise_distance(x, y),
                                                                F.pairwise_distance(x, y, 1.0)),
    "pairwise_distance": lambda lib, F, x, y, s: (lib.pairwise_distance(x, y, 3.0, 0.0, True),),
    "nn.functional.cosine_similarity": lambda lib, F, x, y, s: (F.cosine_similarity(x, y),
                                                                F.cosine_similarity(x, y, 0)),
    "cosine_similarity": lambda lib, F, x, y, s: (lib.cosine_similarity(x, y, dim=-1),),
    "nn.functional.cosine_embedding_loss": lambda lib, F, x, y, s: (F.cosine_embedding_loss(x, y, s),),
    "cosine_embedding_loss": lambda lib, F, x, y, s: (lib.cosine_embedding_loss(x, y, s, 0.2, 2),),
    "nn.functional.margin_ranking_loss": lambda lib, F, x, y, s: (F.margin_ranking_loss(x[:, 0], y[:, 0], s, 0.5),),
    "margin_ranking_loss": lambda lib, F, x, y, s: (lib.margin_ranking_loss(x[:, 1], y[:, 1], s),),
    "nn.functional.triplet_margin_loss": lambda lib, F, x, y, s: (F.triplet_margin_loss(x, y, -y, swap=True),),
    "triplet_margin_loss": lambda lib, F, x, y, s: (lib.triplet_margin_loss(x, y, -y, 1.0, 2, 1e-6, False, 2),),
    "nn.functional.hinge_embedding_loss": lambda lib, F, x, y, s: (F.hinge_embedding_loss(x, s[0] * y.sign()),),
    "hinge_embedding_loss": lambda lib, F, x, y, s: (lib.hinge_embedding_loss(x, y.sign(), 0.5, 2),),
    "nn.functional.soft_margin_loss": lambda lib, F, x, y, s: (F.soft_margin_loss(x, y.detach().sign()),),
    "nn.functional.poisson_nll_loss": lambda lib, F, x, y, s: (F.poisson_nll_loss(x, y.abs(), full=True),),
    "poisson_nll_loss": lambda lib, F, x, y, s: (lib.poisson_nll_loss(x.exp(), y.abs(), False, False, 1e-8, 0),),
}


def _distance_case(call):
    def run_case(lib, dev):
        x, y, s = leaf(lib, dev, _LOGITS), leaf(lib, dev, _Y), T(lib, dev, [1.0, -1.0])
        return with_grads(lib, lambda x, y: [(o, o.grad_fn.name()) for o in call(lib, lib.nn.functional, x, y, s)],
                          x, y)
    return run_case


for _name, _call in _DISTANCE_CASES.items():
    case(f"torchlite.{_name}")(_distance_case(_call))


@case("torchlite.nn.functional.one_hot")
def _one_hot(lib, dev):
    t = lib.tensor([[0, 2], [3, 1]], device=dev)
    F = lib.nn.functional
    return F.one_hot(t), F.one_hot(t, 6), run(lambda lib: F.one_hot(t, 2), lib)


@case("torchlite.nn.functional.dropout1d", "torchlite.nn.functional.dropout2d", "torchlite.nn.functional.dropout3d",
      "torchlite.nn.functional.alpha_dropout", "torchlite.nn.functional.feature_alpha_dropout",
      "torchlite.feature_dropout", "torchlite.feature_dropout_", "torchlite.alpha_dropout", "torchlite.alpha_dropout_",
      "torchlite.feature_alpha_dropout", "torchlite.feature_alpha_dropout_")
def _feature_dropout(lib, dev):
    # random masks are not torch's: p = 0 / 1, eval mode, node names, errors
    F = lib.nn.functional

    def op(x):
        x4 = x.unsqueeze(0)
        z = x * 1
        return (F.dropout1d(x, 0.0) is x, F.dropout2d(x4, 1.0), F.dropout3d(x4.unsqueeze(0), 0.5, False),
                F.alpha_dropout(x, 1.0, True), F.feature_alpha_dropout(x, 0.5, False) is x,
                lib.feature_dropout(x, 1.0, True), lib.feature_dropout_(z, 0.0, True) is z,
                lib.alpha_dropout(x, 1.0, True), lib.alpha_dropout_(x * 1, 1.0, True),
                lib.feature_alpha_dropout(x, 0.5, True).grad_fn.name(), lib.feature_alpha_dropout_(x * 1, 1.0, True),
                run(lambda lib: F.dropout1d(x[0, 0], 0.5), lib))
    return with_grads(lib, op, leaf(lib, dev, X3))


@case("torchlite.nn.functional.embedding", "torchlite.embedding")
def _embedding(lib, dev):
    w, i = leaf(lib, dev, [[1.0, 2.0], [-0.5, 3.0], [0.25, -1.0]]), lib.tensor([[0, 2], [2, 1]], device=dev)
    F = lib.nn.functional
    return with_grads(lib, lambda w: (F.embedding(i, w), F.embedding(i, w, padding_idx=2), lib.embedding(w, i, 0, True),
                                      lib.embedding(w, i).grad_fn.name(),
                                      run(lambda lib: F.embedding(i + 3, w), lib)), w)


# ==== issue 15: conv ====
# (the conv family's entries follow this line)
@case("torchlite.nn.functional.adaptive_avg_pool1d")
def _adaptive_avg_pool1d(lib, dev):
    x = leaf(lib, dev, [[[1.0, -2.0, 3.0, 0.5, 4.0], [0.5, 4.0, -1.5, 2.0, 1.0]]])  # (1, 2, 5)
    F = lib.nn.functional
    return with_grads(lib, lambda x: (F.adaptive_avg_pool1d(x, 3) ** 2, F.adaptive_avg_pool1d(x[0], [2]),
                                      F.interpolate(x, size=2, mode="area"),
                                      F.interpolate(x.reshape(1, 1, 2, 5), size=(3, 4), mode="bicubic"),
                                      run(lambda lib: F.adaptive_avg_pool1d(x[0, 0], 2), lib)), x)


_PAD_LAYERS = {"CircularPad1d": ((1, 2), 3), "CircularPad2d": (1, 4), "CircularPad3d": ((1, 0, 0, 1, 1, 1), 5),
               "ConstantPad1d": ((2, 0.5), 3), "ConstantPad2d": (((1, 0, 0, 2), -1.0), 4),
               "ConstantPad3d": ((1, 2.0), 4), "ReflectionPad1d": ((2, 1), 3), "ReflectionPad2d": (1, 4),
               "ReplicationPad1d": (2, 2), "ReplicationPad2d": ((0, 1, 2, 0), 3), "ZeroPad1d": ((1, 2), 3),
               "ZeroPad2d": (1, 4), "ZeroPad3d": ((0, 1, 1, 0, 0, 1), 4)}


def _pad_layer_case(name, arg, ndim):
    def fn(lib, dev):
        args = arg if isinstance(arg, tuple) and name.startswith("Constant") else (arg,)
        m = getattr(lib.nn, name)(*args)
        x = leaf(lib, dev, (np.sin(np.arange(3 ** ndim)) * 2).reshape((3,) * ndim).tolist(), dtype=lib.float64)
        return with_grads(lib, lambda x: (m(x) ** 2, repr(m), m.padding), x)
    return fn


for _name, (_arg, _ndim) in _PAD_LAYERS.items():
    case(f"torchlite.nn.{_name}")(_pad_layer_case(_name, _arg, _ndim))


@case("torchlite.nn.functional.unfold", "torchlite.nn.Unfold")
def _unfold(lib, dev):
    x = leaf(lib, dev, [[[[1.0, -2.0, 3.0], [0.5, 4.0, -1.5], [2.0, 0.25, -0.5]]]])  # (1, 1, 3, 3)
    F = lib.nn.functional
    return with_grads(lib, lambda x: (F.unfold(x, 2), F.unfold(x[0], (2, 1), padding=1, stride=(2, 1)) ** 2,
                                      lib.nn.Unfold(2, dilation=2, padding=1)(x), repr(lib.nn.Unfold((2, 1))),
                                      F.unfold(x, 2).grad_fn.name(), run(lambda lib: F.unfold(x, 4), lib)), x)


@case("torchlite.nn.functional.fold", "torchlite.nn.Fold")
def _fold(lib, dev):
    c = leaf(lib, dev, [[[1.0, -2.0, 3.0, 0.5], [0.5, 4.0, -1.5, 2.0]]])  # (1, 2, 4)
    F = lib.nn.functional
    return with_grads(lib, lambda c: (F.fold(c, (3, 3), (2, 1)), F.fold(c[0], (2, 3), (1, 2), padding=(0, 1)) ** 2,
                                      lib.nn.Fold((2, 5), (1, 2), stride=(1, 1))(c), repr(lib.nn.Fold(3, (2, 1))),
                                      F.fold(c, 3, (2, 1)).grad_fn.name(), run(lambda lib: F.fold(c, 4, 2), lib)), c)


@case("torchlite.nn.functional.embedding_bag", "torchlite.embedding_bag")
def _embedding_bag(lib, dev):
    w = leaf(lib, dev, [[1.0, 2.0], [-0.5, 3.0], [0.25, -1.0]])
    p = leaf(lib, dev, [0.5, -1.0, 2.0, 1.5])
    i, o = lib.tensor([0, 2, 2, 1], device=dev), lib.tensor([0, 1, 1], device=dev)
    F = lib.nn.functional
    return with_grads(lib, lambda w, p: (F.embedding_bag(i, w, o), F.embedding_bag(i, w, o, mode="max"),
                                         F.embedding_bag(i.view(2, 2), w, mode="sum", padding_idx=2),
                                         F.embedding_bag(i, w, o, mode="sum", per_sample_weights=p),
                                         lib.embedding_bag(w, i, o, False, 1, False, None, True),
                                         F.embedding_bag(i, w, o).grad_fn.name(),
                                         run(lambda lib: F.embedding_bag(i + 3, w, o, mode="max"), lib)), w, p)


CONV_X = [[[1.0, -2.0, 3.0, 0.5], [0.5, 4.0, -1.5, 2.0]]]  # (1, 2, 4)
CONV_W = [[[1.0, -1.0], [0.5, 2.0]], [[-0.5, 1.5], [1.0, 0.0]]]  # (2, 2, 2)


@case("torchlite.conv1d")
def _conv1d(lib, dev):
    x, w, b = leaf(lib, dev, CONV_X), leaf(lib, dev, CONV_W), leaf(lib, dev, [0.5, -1.0])
    return with_grads(lib, lambda x, w, b: (lib.conv1d(x, w, b, padding=1), lib.nn.functional.conv1d(x, w, stride=2),
                                            lib.conv1d(x[0], w, padding="same")), x, w, b)


@case("torchlite.conv2d")
def _conv2d(lib, dev):
    x, b = T(lib, dev, CONV_X), leaf(lib, dev, [0.5, -1.0])  # x (1, 2, 4)
    w2 = leaf(lib, dev, [[[[1.0, -1.0]], [[0.5, 2.0]]], [[[-0.5, 1.5]], [[1.0, 0.0]]]])  # (2, 2, 1, 2)
    return with_grads(lib, lambda w2, b: (lib.conv2d(x.reshape(1, 2, 1, 4), w2, b, padding=(0, 1)),
                                          lib.nn.functional.conv2d(x.reshape(2, 1, 4), w2, padding="same")), w2, b)


@case("torchlite.conv_transpose1d")
def _conv_transpose1d(lib, dev):
    x, w = leaf(lib, dev, CONV_X), leaf(lib, dev, CONV_W)
    return with_grads(lib, lambda x, w: (lib.conv_transpose1d(x, w, stride=2, output_padding=1),
                                         lib.nn.functional.conv_transpose1d(x[0], w)), x, w)


@case("torchlite.conv_transpose2d")
def _conv_transpose2d(lib, dev):
    x = leaf(lib, dev, [[[[1.0, -2.0], [3.0, 0.5]]]])  # (1, 1, 2, 2)
    w = leaf(lib, dev, [[[[1.0, -1.0], [0.5, 2.0]], [[-0.5, 1.5], [1.0, 0.0]]]])  # (1, 2, 2, 2)
    return with_grads(lib, lambda x, w: (lib.conv_transpose2d(x, w, stride=2, padding=1, output_padding=1),
                                         lib.nn.functional.conv_transpose2d(x, w)), x, w)


@case("torchlite.convolution")
def _convolution(lib, dev):
    x, w = leaf(lib, dev, CONV_X), leaf(lib, dev, CONV_W)
    return with_grads(lib, lambda x, w: (lib.convolution(x, w, None, [1], [1], [1], False, [0], 1),
                                         lib.convolution(x, w, None, [1], [0], [1], True, [0], 1)), x, w)


POOL_X = [[[1.0, -2.0, 3.0, 0.5, 2.5], [0.25, 4.0, -1.5, 2.0, -3.0], [1.5, 0.0, -0.5, 3.5, 0.75]]]  # (1, 3, 5)


@case("torchlite.max_pool2d", "torchlite.nn.functional.max_pool2d")
def _max_pool2d(lib, dev):
    x = leaf(lib, dev, POOL_X)
    return with_grads(lib, lambda x: (lib.max_pool2d(x, 2), lib.nn.functional.max_pool2d(x, 3, 2, 1, ceil_mode=True),
                                      lib.nn.functional.max_pool2d(x, (2, 3), return_indices=True)), x)


@case("torchlite.nn.functional.max_pool2d_with_indices")
def _max_pool2d_with_indices(lib, dev):
    x = leaf(lib, dev, POOL_X)
    return with_grads(lib, lambda x: lib.nn.functional.max_pool2d_with_indices(x, 2, 1), x)


@case("torchlite.max_pool1d", "torchlite.nn.functional.max_pool1d")
def _max_pool1d(lib, dev):
    x = leaf(lib, dev, POOL_X)
    return with_grads(lib, lambda x: (lib.max_pool1d(x, 2), lib.nn.functional.max_pool1d(x[0], 3, 2, 1, ceil_mode=True),
                                      lib.nn.functional.max_pool1d(x, 2, return_indices=True)), x)


@case("torchlite.max_pool1d_with_indices", "torchlite.nn.functional.max_pool1d_with_indices")
def _max_pool1d_with_indices(lib, dev):
    x = leaf(lib, dev, POOL_X)
    return with_grads(lib, lambda x: (lib.max_pool1d_with_indices(x, 2),
                                      lib.nn.functional.max_pool1d_with_indices(x, 3, 1, 1)), x)


@case("torchlite.avg_pool1d", "torchlite.nn.functional.avg_pool2d")
def _avg_pool(lib, dev):
    x = leaf(lib, dev, POOL_X)
    return with_grads(lib, lambda x: (lib.avg_pool1d(x, 2), lib.nn.functional.avg_pool1d(x, 3, 2, 1, True, False),
                                      lib.nn.functional.avg_pool2d(x, 2, 1, divisor_override=3),
                                      lib.nn.functional.avg_pool2d(x, 3, 2, 1, ceil_mode=True)), x)


NORM_X = [[[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]], [[2.0, 0.0, -1.0], [1.5, -0.5, 2.5]]]  # (2, 2, 3)


@case("torchlite.batch_norm", "torchlite.native_batch_norm", "torchlite.nn.functional.batch_norm")
def _batch_norm(lib, dev):
    x, w = leaf(lib, dev, NORM_X, lib.float64), leaf(lib, dev, [1.5, -0.5], lib.float64)
    b = leaf(lib, dev, [0.25, 1.0], lib.float64)
    rm, rv = T(lib, dev, [0.0, 1.0], dtype=lib.float64), T(lib, dev, [1.0, 2.0], dtype=lib.float64)

    def fn(x, w, b):
        return (lib.nn.functional.batch_norm(x, rm, rv, w, b, training=True, momentum=0.2), rm.clone(), rv.clone(),
                lib.nn.functional.batch_norm(x, rm, rv, w, b), lib.batch_norm(x, w, None, None, None, True, 0.1, 1e-3,
                                                                             False),
                lib.native_batch_norm(x, w, b, None, None, True, 0.1, 1e-5))
    return with_grads(lib, fn, x, w, b)


@case("torchlite.layer_norm", "torchlite.native_layer_norm", "torchlite.nn.functional.layer_norm")
def _layer_norm(lib, dev):
    x, w = leaf(lib, dev, NORM_X, lib.float64), leaf(lib, dev, [1.5, -0.5, 2.0], lib.float64)
    b = leaf(lib, dev, [0.25, 1.0, 0.0], lib.float64)
    return with_grads(lib, lambda x, w, b: (lib.nn.functional.layer_norm(x, (3,), w, b), lib.layer_norm(x, [2, 3]),
                                            lib.native_layer_norm(x, [3], w, None, 1e-3)), x, w, b)


@case("torchlite.group_norm", "torchlite.native_group_norm", "torchlite.nn.functional.group_norm")
def _group_norm(lib, dev):
    x, w = leaf(lib, dev, NORM_X, lib.float64), leaf(lib, dev, [1.5, -0.5], lib.float64)
    b = leaf(lib, dev, [0.25, 1.0], lib.float64)
    return with_grads(lib, lambda x, w, b: (lib.nn.functional.group_norm(x, 2, w, b), lib.group_norm(x, 1),
                                            lib.native_group_norm(x, w, b, 2, 2, 3, 1, 1e-3)), x, w, b)


@case("torchlite.nn.functional.rms_norm")
def _rms_norm(lib, dev):
    x, w = leaf(lib, dev, NORM_X, lib.float64), leaf(lib, dev, [1.5, -0.5, 2.0], lib.float64)
    return with_grads(lib, lambda x, w: (lib.nn.functional.rms_norm(x, (3,), w), lib.nn.functional.rms_norm(x, [2, 3]),
                                         lib.nn.functional.rms_norm(x, (3,), eps=0.1)), x, w)


@case("torchlite.nn.functional.adaptive_avg_pool2d")
def _adaptive_avg_pool2d(lib, dev):
    x = leaf(lib, dev, POOL_X)
    F = lib.nn.functional
    return with_grads(lib, lambda x: (F.adaptive_avg_pool2d(x, (2, 3)), F.adaptive_avg_pool2d(x, 1),
                                      F.adaptive_avg_pool2d(x, (None, 2))), x)


@case("torchlite.nn.functional.interpolate")
def _interpolate(lib, dev):
    x = leaf(lib, dev, POOL_X)
    F = lib.nn.functional
    return with_grads(lib, lambda x: (F.interpolate(x, scale_factor=2), F.interpolate(x, size=7, mode="linear"),
                                      F.interpolate(x[None], size=(4, 3), mode="bilinear", align_corners=True),
                                      F.interpolate(x[None], scale_factor=1.5, mode="bilinear")), x)


@case("torchlite.nn.functional.upsample")
def _upsample(lib, dev):
    x = leaf(lib, dev, POOL_X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return with_grads(lib, lambda x: lib.nn.functional.upsample(x[None], size=(4, 7), mode="bilinear"), x)


@case("torchlite.constant_pad_nd", "torchlite.nn.functional.pad")
def _constant_pad_nd(lib, dev):
    x = leaf(lib, dev)
    return with_grads(lib, lambda x: (lib.constant_pad_nd(x, [1, 2], 0.5), lib.nn.functional.pad(x, (1, -1, 0, 1)),
                                      lib.nn.functional.pad(x, (1, 1), value=2.0),
                                      lib.nn.functional.pad(x, (2, 1), mode="reflect"),
                                      lib.nn.functional.pad(x[None], (1, 1, 1, 0), mode="replicate")), x)


# ==== issue 15: modules ====
# (the modules family's entries follow this line)


def _nn_net(lib, dev):
    """A small custom Module with a parameter, a buffer and a Sequential of two submodules, on dev."""
    nn = lib.nn

    class Scale(nn.Module):
        def __init__(self, k):
            super().__init__()
            self.w = nn.Parameter(lib.tensor([1.0, -2.0, 3.0]) * k)
            self.register_buffer("shift", lib.tensor([0.5, 0.25, -1.0]))

        def forward(self, x):
            return x * self.w + self.shift

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.first = Scale(1.0)
            self.rest = nn.Sequential(Scale(2.0), Scale(-1.0))

        def forward(self, x):
            return self.rest(self.first(x)).tanh()

    return Net().to(dev)


@case("torchlite.nn.Module")
def _nn_module(lib, dev):
    net = _nn_net(lib, dev)
    x = T(lib, dev)
    calls = []
    net.first.register_forward_hook(lambda m, a, o: calls.append(o.shape))
    net.rest.register_full_backward_hook(lambda m, gi, go: calls.append((gi, go)))
    out = net(x)
    out.sum().backward()
    sd = net.state_dict()
    net2 = _nn_net(lib, dev)
    res = net2.load_state_dict({k: v * 2 for k, v in sd.items()})
    return (out, [n for n, _ in net.named_parameters()], list(sd), [p.grad for p in net.parameters()], calls,
            repr(net), repr(res), list(net2.state_dict().values()), str(net.first.w.device) == str(x.device))


@case("torchlite.nn.Sequential")
def _nn_sequential(lib, dev):
    a, b = _nn_net(lib, dev), _nn_net(lib, dev)
    s = lib.nn.Sequential(a, b)
    s.append(lib.nn.Sequential())
    x = leaf(lib, dev)
    out = s(x)
    out.sum().backward()
    return out, x.grad, len(s), type(s[:2]).__name__, s[1] is b, list(s.state_dict())[:3]


@case("torchlite.nn.ModuleList", "torchlite.nn.ModuleDict")
def _nn_module_list_dict(lib, dev):
    ml = lib.nn.ModuleList([_nn_net(lib, dev), _nn_net(lib, dev)])
    md = lib.nn.ModuleDict({"a": _nn_net(lib, dev)})
    x = T(lib, dev)
    return ml[1](md["a"](x)), repr(ml)[:40], list(md), [n for n, _ in ml.named_parameters()][:2]


@case("torchlite.nn.ParameterList", "torchlite.nn.ParameterDict")
def _nn_param_containers(lib, dev):
    pl = lib.nn.ParameterList([T(lib, dev), lib.nn.Parameter(T(lib, dev, P))])
    pd = lib.nn.ParameterDict({"b": T(lib, dev), "a": T(lib, dev, P)})
    out = pl[0] * pl[1] + pd["a"] * pd["b"]
    out.sum().backward()
    return out, pl[0].grad, pd["a"].grad, repr(pl), [n for n, _ in pd.named_parameters()]


@case("torchlite.nn.Parameter")
def _nn_parameter(lib, dev):
    p = lib.nn.Parameter(T(lib, dev))
    q = lib.nn.Parameter(T(lib, dev), requires_grad=False)
    y = p * 2
    y.sum().backward()
    return (repr(lib.nn.Parameter(p.detach().cpu())), p.requires_grad, q.requires_grad, type(y).__name__,
            type(p.data).__name__, p.grad,
            isinstance(p, lib.Tensor), run(lambda lib: lib.nn.Parameter(lib.tensor([1], device=dev)), lib))


@case("torchlite.nn.Buffer")
def _nn_buffer(lib, dev):
    m = lib.nn.Module()
    m.b = lib.nn.Buffer(T(lib, dev))
    m.c = lib.nn.Buffer(T(lib, dev, P), persistent=False)
    return (m.b, isinstance(m.b, lib.nn.Buffer), type(m.b).__name__, list(m.state_dict()),
            [n for n, _ in m.named_buffers()])


@case("torchlite.nn.init.constant_", "torchlite.nn.init.ones_", "torchlite.nn.init.zeros_", "torchlite.nn.init.eye_",
      "torchlite.nn.init.dirac_", "torchlite.nn.init.calculate_gain", "torchlite.nn.init.constant",
      "torchlite.nn.init.eye", "torchlite.nn.init.dirac")
def _nn_init_deterministic(lib, dev):
    init = lib.nn.init
    p = lib.nn.Parameter(lib.empty(2, 3, device=dev))
    out = [init.constant_(p, 1.5).clone(), init.ones_(p).clone(), init.zeros_(p).clone(), init.eye_(p).clone(),
           p.requires_grad, p.is_leaf, init.dirac_(lib.empty(2, 2, 3, device=dev), groups=2),
           init.calculate_gain("leaky_relu", 0.1), init.calculate_gain("tanh")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out += [init.constant(lib.empty(2, device=dev), 3.0), init.eye(lib.empty(2, 2, device=dev)),
                init.dirac(lib.empty(1, 1, 3, device=dev))]
    return out


@case("torchlite.nn.utils.clip_grad_norm_", "torchlite.nn.utils.clip_grad_norm", "torchlite.nn.utils.clip_grad_value_")
def _nn_utils_clip(lib, dev):
    def params():
        a = lib.nn.Parameter(T(lib, dev))
        b = lib.nn.Parameter(T(lib, dev, P))
        (a * 3 + b * b).sum().backward()
        return [a, b]

    ps = params()
    out = [lib.nn.utils.clip_grad_norm_(ps, 1.5), [p.grad for p in ps]]
    ps = params()
    out += [lib.nn.utils.clip_grad_norm_(ps, 2.0, norm_type="inf"), [p.grad for p in ps]]
    ps = params()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out += [lib.nn.utils.clip_grad_norm(ps, 2.0, norm_type=1.0), [p.grad for p in ps]]
    ps = params()
    out += [lib.nn.utils.clip_grad_value_(ps, 2.5), [p.grad for p in ps]]
    return out


@case("torchlite.nn.utils.parameters_to_vector", "torchlite.nn.utils.vector_to_parameters")
def _nn_utils_vector(lib, dev):
    a = lib.nn.Parameter(T(lib, dev))
    b = lib.nn.Parameter(T(lib, dev, [1.0, 2.0]))
    v = lib.nn.utils.parameters_to_vector([a, b])
    (v * v).sum().backward()
    lib.nn.utils.vector_to_parameters(v.detach() * 2, [a, b])
    return v, a.grad, b.grad, a, b, a.requires_grad


def _layer_inputs(lib, dev, specs):
    out = []
    for i, spec in enumerate(specs):
        kind, shape = spec[0], spec[1]
        n = int(np.prod(shape))
        vals = np.sin(np.arange(n) * 1.3 + i).reshape(shape) * 2
        if kind == "f":
            out.append(lib.tensor(vals, dtype=lib.float64, device=dev, requires_grad=True))
        elif kind == "p":  # probabilities
            out.append(lib.tensor(vals / 4.5 + 0.5, dtype=lib.float64, device=dev, requires_grad=True))
        elif kind == "t":  # a target
            out.append(lib.tensor(vals / 4.5 + 0.5, dtype=lib.float64, device=dev))
        elif kind == "s":  # a +-1 target
            out.append(lib.tensor(np.where(vals > 0, 1.0, -1.0), dtype=lib.float64, device=dev))
        else:  # class indices below spec[2]
            out.append(lib.tensor(np.arange(n).reshape(shape) * 7 % spec[2], device=dev))
    return out


def _layer_case(ctor, specs):
    """The module on dev in float64 (test_nn_layers compares float32 too), its parameters set to the
    same values under both libraries: its repr, parameter names, output and the gradients of its
    float inputs and parameters."""
    def fn(lib, dev):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = ctor(lib.nn).to(dev).double()
        with lib.no_grad():
            for p in m.parameters():
                p.copy_(lib.linspace(-0.7, 0.9, p.numel(), dtype=p.dtype).reshape(p.shape))
        ins = _layer_inputs(lib, dev, specs)
        out = m(*ins)
        with_w = out if isinstance(out, lib.Tensor) else out[0]
        if with_w.requires_grad:
            (with_w * (lib.arange(with_w.numel(), device=dev).reshape(with_w.shape) % 3 + 1)).sum().backward()
        return (repr(m), [n for n, _ in m.named_parameters()], out, [t.grad for t in ins if t.requires_grad],
                [p.grad for p in m.parameters()], list(m.state_dict()))
    return fn


_NN_LAYERS = {
    "Linear": (lambda nn: nn.Linear(3, 2), [("f", (2, 3))]),
    "Bilinear": (lambda nn: nn.Bilinear(3, 2, 2), [("f", (2, 3)), ("f", (2, 2))]),
    "Identity": (lambda nn: nn.Identity(), [("f", (2, 3))]),
    "Flatten": (lambda nn: nn.Flatten(), [("f", (2, 3, 2))]),
    "Unflatten": (lambda nn: nn.Unflatten(1, (3, 2)), [("f", (2, 6))]),
    "Embedding": (lambda nn: nn.Embedding(5, 3, padding_idx=1), [("i", (2, 3), 5)]),
    "EmbeddingBag": (lambda nn: nn.EmbeddingBag(5, 3, mode="sum"), [("i", (2, 3), 5)]),
    "LayerNorm": (lambda nn: nn.LayerNorm(3), [("f", (2, 3))]),
    "RMSNorm": (lambda nn: nn.RMSNorm(3), [("f", (2, 3))]),
    "GroupNorm": (lambda nn: nn.GroupNorm(2, 4), [("f", (2, 4, 3))]),
    "LocalResponseNorm": (lambda nn: nn.LocalResponseNorm(2), [("f", (2, 4, 3))]),
    "BatchNorm1d": (lambda nn: nn.BatchNorm1d(3), [("f", (4, 3))]),
    "BatchNorm2d": (lambda nn: nn.BatchNorm2d(2), [("f", (2, 2, 3, 3))]),
    "BatchNorm3d": (lambda nn: nn.BatchNorm3d(2), [("f", (2, 2, 2, 2, 2))]),
    "Dropout": (lambda nn: nn.Dropout(0.3).eval(), [("f", (2, 3))]),
    "Dropout1d": (lambda nn: nn.Dropout1d(0.3).eval(), [("f", (2, 3, 2))]),
    "Dropout2d": (lambda nn: nn.Dropout2d(0.3).eval(), [("f", (2, 3, 2, 2))]),
    "Dropout3d": (lambda nn: nn.Dropout3d(0.3).eval(), [("f", (2, 3, 2, 2, 2))]),
    "AlphaDropout": (lambda nn: nn.AlphaDropout(0.3).eval(), [("f", (2, 3))]),
    "FeatureAlphaDropout": (lambda nn: nn.FeatureAlphaDropout(0.3).eval(), [("f", (2, 3, 2))]),
    "Conv1d": (lambda nn: nn.Conv1d(2, 3, 2, padding=1), [("f", (2, 2, 4))]),
    "Conv2d": (lambda nn: nn.Conv2d(2, 3, 2, padding="same"), [("f", (1, 2, 4, 4))]),
    "Conv3d": (lambda nn: nn.Conv3d(2, 2, 2), [("f", (1, 2, 3, 3, 3))]),
    "ConvTranspose1d": (lambda nn: nn.ConvTranspose1d(2, 3, 2, stride=2), [("f", (2, 2, 3))]),
    "ConvTranspose2d": (lambda nn: nn.ConvTranspose2d(2, 3, 2, stride=2), [("f", (1, 2, 3, 3))]),
    "ConvTranspose3d": (lambda nn: nn.ConvTranspose3d(2, 2, 2), [("f", (1, 2, 2, 2, 2))]),
    "MaxPool1d": (lambda nn: nn.MaxPool1d(2), [("f", (2, 2, 4))]),
    "MaxPool2d": (lambda nn: nn.MaxPool2d(2), [("f", (1, 2, 4, 4))]),
    "MaxPool3d": (lambda nn: nn.MaxPool3d(2), [("f", (1, 2, 2, 2, 4))]),
    "AvgPool1d": (lambda nn: nn.AvgPool1d(2), [("f", (2, 2, 4))]),
    "AvgPool2d": (lambda nn: nn.AvgPool2d(2), [("f", (1, 2, 4, 4))]),
    "AvgPool3d": (lambda nn: nn.AvgPool3d(2), [("f", (1, 2, 2, 2, 4))]),
    "AdaptiveMaxPool1d": (lambda nn: nn.AdaptiveMaxPool1d(2), [("f", (2, 2, 5))]),
    "AdaptiveMaxPool2d": (lambda nn: nn.AdaptiveMaxPool2d((2, 1)), [("f", (1, 2, 5, 3))]),
    "AdaptiveMaxPool3d": (lambda nn: nn.AdaptiveMaxPool3d(1), [("f", (1, 2, 2, 2, 3))]),
    "AdaptiveAvgPool1d": (lambda nn: nn.AdaptiveAvgPool1d(2), [("f", (2, 2, 5))]),
    "AdaptiveAvgPool2d": (lambda nn: nn.AdaptiveAvgPool2d((2, 1)), [("f", (1, 2, 5, 3))]),
    "AdaptiveAvgPool3d": (lambda nn: nn.AdaptiveAvgPool3d(1), [("f", (1, 2, 2, 2, 3))]),
    "Upsample": (lambda nn: nn.Upsample(scale_factor=2), [("f", (1, 2, 2, 2))]),
    "UpsamplingNearest2d": (lambda nn: nn.UpsamplingNearest2d(size=3), [("f", (1, 2, 2, 2))]),
    "UpsamplingBilinear2d": (lambda nn: nn.UpsamplingBilinear2d(scale_factor=2), [("f", (1, 2, 2, 2))]),
    "Threshold": (lambda nn: nn.Threshold(0.1, 5.0), [("f", (2, 3))]),
    "ReLU": (lambda nn: nn.ReLU(), [("f", (2, 3))]),
    "RReLU": (lambda nn: nn.RReLU().eval(), [("f", (2, 3))]),
    "Hardtanh": (lambda nn: nn.Hardtanh(), [("f", (2, 3))]),
    "ReLU6": (lambda nn: nn.ReLU6(), [("f", (2, 3))]),
    "Sigmoid": (lambda nn: nn.Sigmoid(), [("f", (2, 3))]),
    "Hardsigmoid": (lambda nn: nn.Hardsigmoid(), [("f", (2, 3))]),
    "Tanh": (lambda nn: nn.Tanh(), [("f", (2, 3))]),
    "SiLU": (lambda nn: nn.SiLU(), [("f", (2, 3))]),
    "Mish": (lambda nn: nn.Mish(), [("f", (2, 3))]),
    "Hardswish": (lambda nn: nn.Hardswish(), [("f", (2, 3))]),
    "ELU": (lambda nn: nn.ELU(), [("f", (2, 3))]),
    "CELU": (lambda nn: nn.CELU(0.5), [("f", (2, 3))]),
    "SELU": (lambda nn: nn.SELU(), [("f", (2, 3))]),
    "GLU": (lambda nn: nn.GLU(), [("f", (2, 4))]),
    "GELU": (lambda nn: nn.GELU(), [("f", (2, 3))]),
    "Hardshrink": (lambda nn: nn.Hardshrink(), [("f", (2, 3))]),
    "LeakyReLU": (lambda nn: nn.LeakyReLU(), [("f", (2, 3))]),
    "LogSigmoid": (lambda nn: nn.LogSigmoid(), [("f", (2, 3))]),
    "Softplus": (lambda nn: nn.Softplus(), [("f", (2, 3))]),
    "Softshrink": (lambda nn: nn.Softshrink(), [("f", (2, 3))]),
    "PReLU": (lambda nn: nn.PReLU(), [("f", (2, 3))]),
    "Softsign": (lambda nn: nn.Softsign(), [("f", (2, 3))]),
    "Tanhshrink": (lambda nn: nn.Tanhshrink(), [("f", (2, 3))]),
    "Softmin": (lambda nn: nn.Softmin(1), [("f", (2, 3))]),
    "Softmax": (lambda nn: nn.Softmax(1), [("f", (2, 3))]),
    "Softmax2d": (lambda nn: nn.Softmax2d(), [("f", (2, 3, 2, 2))]),
    "LogSoftmax": (lambda nn: nn.LogSoftmax(1), [("f", (2, 3))]),
    "L1Loss": (lambda nn: nn.L1Loss(), [("f", (2, 3)), ("t", (2, 3))]),
    "NLLLoss": (lambda nn: nn.NLLLoss(), [("f", (2, 3)), ("i", (2,), 3)]),
    "PoissonNLLLoss": (lambda nn: nn.PoissonNLLLoss(), [("f", (2, 3)), ("t", (2, 3))]),
    "GaussianNLLLoss": (lambda nn: nn.GaussianNLLLoss(), [("f", (2, 3)), ("t", (2, 3)), ("p", (2, 3))]),
    "KLDivLoss": (lambda nn: nn.KLDivLoss(reduction="batchmean"), [("f", (2, 3)), ("t", (2, 3))]),
    "MSELoss": (lambda nn: nn.MSELoss(), [("f", (2, 3)), ("t", (2, 3))]),
    "BCELoss": (lambda nn: nn.BCELoss(), [("p", (2, 3)), ("t", (2, 3))]),
    "BCEWithLogitsLoss": (lambda nn: nn.BCEWithLogitsLoss(), [("f", (2, 3)), ("t", (2, 3))]),
    "HingeEmbeddingLoss": (lambda nn: nn.HingeEmbeddingLoss(), [("f", (2, 3)), ("s", (2, 3))]),
    "MultiLabelMarginLoss": (lambda nn: nn.MultiLabelMarginLoss(), [("f", (2, 3)), ("i", (2, 3), 3)]),
    "SmoothL1Loss": (lambda nn: nn.SmoothL1Loss(), [("f", (2, 3)), ("t", (2, 3))]),
    "HuberLoss": (lambda nn: nn.HuberLoss(), [("f", (2, 3)), ("t", (2, 3))]),
    "SoftMarginLoss": (lambda nn: nn.SoftMarginLoss(), [("f", (2, 3)), ("s", (2, 3))]),
    "CrossEntropyLoss": (lambda nn: nn.CrossEntropyLoss(), [("f", (2, 3)), ("i", (2,), 3)]),
    "MultiLabelSoftMarginLoss": (lambda nn: nn.MultiLabelSoftMarginLoss(), [("f", (2, 3)), ("t", (2, 3))]),
    "CosineEmbeddingLoss": (lambda nn: nn.CosineEmbeddingLoss(), [("f", (2, 3)), ("f", (2, 3)), ("s", (2,))]),
    "MarginRankingLoss": (lambda nn: nn.MarginRankingLoss(), [("f", (3,)), ("f", (3,)), ("s", (3,))]),
    "MultiMarginLoss": (lambda nn: nn.MultiMarginLoss(), [("f", (2, 3)), ("i", (2,), 3)]),
    "TripletMarginLoss": (lambda nn: nn.TripletMarginLoss(), [("f", (2, 3)), ("f", (2, 3)), ("f", (2, 3))]),
}
for _name, (_ctor, _specs) in _NN_LAYERS.items():
    if hasattr(torchlite.nn, _name):  # a layer is exported once its F function exists (test_nn_layers)
        case(f"torchlite.nn.{_name}")(_layer_case(_ctor, _specs))

# the random initialisers: torch's generator is another branch's work, so the properties that do not
# depend on the draws (tests/python/test_nn_init.py compares the draws themselves)
@case("torchlite.nn.init.uniform_", "torchlite.nn.init.normal_", "torchlite.nn.init.trunc_normal_",
      "torchlite.nn.init.xavier_uniform_", "torchlite.nn.init.xavier_normal_", "torchlite.nn.init.kaiming_uniform_",
      "torchlite.nn.init.kaiming_normal_", "torchlite.nn.init.orthogonal_", "torchlite.nn.init.sparse_",
      "torchlite.nn.init.uniform", "torchlite.nn.init.normal", "torchlite.nn.init.xavier_uniform",
      "torchlite.nn.init.xavier_normal", "torchlite.nn.init.kaiming_uniform", "torchlite.nn.init.kaiming_normal",
      "torchlite.nn.init.orthogonal", "torchlite.nn.init.sparse")
def _nn_init_random(lib, dev):
    init = lib.nn.init
    out = []

    def check(t, bound=None):
        a = t.detach().cpu().numpy()
        ok = bool(np.all(np.abs(a) <= bound)) if bound is not None else bool(np.isfinite(a).all())
        out.append((tuple(t.shape), str(t.dtype), str(t.device) == dev, ok, t.requires_grad))

    p = lib.nn.Parameter(lib.empty(6, 4, device=dev))
    check(init.uniform_(p, -0.5, 0.5), 0.5)
    check(init.normal_(p, 0.0, 0.1))
    check(init.trunc_normal_(p, std=0.5, a=-0.3, b=0.3), 0.3)
    check(init.trunc_normal_(p, a=1.0, b=1.1), 1.1)
    check(init.xavier_uniform_(p, gain=2.0), 2.0 * float(np.sqrt(6.0 / 10)))
    check(init.xavier_normal_(p))
    check(init.kaiming_uniform_(p, a=float(np.sqrt(5))), 0.5)
    check(init.kaiming_normal_(p, mode="fan_out", nonlinearity="relu"))
    q = init.orthogonal_(lib.empty(3, 5, device=dev, dtype=lib.float64))
    out.append(np.allclose(q.cpu().numpy() @ q.cpu().numpy().T, np.eye(3)))
    s = init.sparse_(lib.empty(10, 3, device=dev), 0.5)
    out.append([int((s[:, c] == 0).sum()) for c in range(3)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for f in (init.uniform, init.normal, init.xavier_uniform, init.xavier_normal, init.kaiming_uniform,
                  init.kaiming_normal, init.orthogonal):
            check(f(lib.empty(3, 3, device=dev)))
        out.append(init.sparse(lib.empty(4, 2, device=dev), 0.5).shape)
    return out

# ==== issue 15: optim ====
# (the optim family's entries follow this line)
MODULES += ["torchlite.optim.lr_scheduler"]


def _optim_params(lib, dev):
    return [lib.tensor([[1.0, -2.0], [0.5, 3.0]], device=dev, dtype=lib.float64, requires_grad=True),
            lib.tensor([0.25, -1.5], device=dev, dtype=lib.float64, requires_grad=True)]


def _optim_run(lib, dev, opt, params, steps=3):
    """`steps` steps with fixed gradients; the parameters, the state tensors (dev's) and numbers
    (the `step` counters are CPU tensors: compared as numbers), the repr and state_dict layout."""
    for k in range(steps):
        for i, p in enumerate(params):
            p.grad = lib.full(p.shape, 0.3 * (k + 1) - 0.2 * i, device=dev, dtype=lib.float64) + p.detach() * 0.1
        opt.step()
    state = [[(key, v if isinstance(v, lib.Tensor) and v.dim() else float(v)) for key, v in opt.state[p].items()]
             for p in params]
    sd = opt.state_dict()
    return [p.detach() for p in params], state, repr(opt), sd["param_groups"], sorted(sd["state"])


_OPTIM_CASES = {
    "SGD": dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01),
    "Adam": dict(lr=0.1, amsgrad=True, weight_decay=0.1),
    "AdamW": dict(lr=0.1, betas=(0.8, 0.9)),
    "RMSprop": dict(lr=0.01, momentum=0.5, centered=True),
    "Adagrad": dict(lr=0.1, lr_decay=0.01, initial_accumulator_value=0.1),
    "Adadelta": dict(lr=0.5, weight_decay=0.1),
    "Adamax": dict(lr=0.1, maximize=True),
    "NAdam": dict(lr=0.1, decoupled_weight_decay=True, weight_decay=0.1),
    "RAdam": dict(lr=0.1, weight_decay=0.1),
}


def _optimizer_case(name, kw):
    def run_case(lib, dev):
        params = _optim_params(lib, dev)
        out = _optim_run(lib, dev, getattr(lib.optim, name)(params, **kw), params)
        err = run(lambda lib_: getattr(lib_.optim, name)([], **kw), lib)
        return out, err
    return run_case


for _name, _kw in _OPTIM_CASES.items():
    case(f"torchlite.optim.{_name}")(_optimizer_case(_name, _kw))


@case("torchlite.optim.LBFGS")
def _lbfgs(lib, dev):
    x = lib.tensor([1.5, -0.5], device=dev, dtype=lib.float64, requires_grad=True)
    opt = lib.optim.LBFGS([x], line_search_fn="strong_wolfe", lr=0.5)

    def closure():
        opt.zero_grad()
        loss = ((x - 0.3) ** 4).sum() + (x ** 2).sum()
        loss.backward()
        return loss
    losses = [opt.step(closure).item() for _ in range(3)]
    return losses, x.detach(), opt.state[x]["n_iter"], run(lambda lib_: lib_.optim.LBFGS([x], lr=-1.0), lib)


@case("torchlite.optim.Optimizer")
def _optimizer_base(lib, dev):
    p = lib.tensor([1.0, 2.0], device=dev, requires_grad=True)
    opt = lib.optim.Optimizer([p], {"lr": 0.1})
    seen = []
    opt.register_step_pre_hook(lambda o, a, k: seen.append("pre"))
    p.grad = lib.ones(2, device=dev)
    opt.zero_grad(set_to_none=False)
    return (repr(opt), opt.state_dict(), p.grad, run(lambda lib_: opt.step(), lib), seen,
            run(lambda lib_: lib_.optim.Optimizer([p * 2], {}), lib))


def _sched_run(lib, dev, make, steps=12, opt_name="SGD", metric=None):
    p = lib.tensor([1.0], device=dev, requires_grad=True)
    q = lib.tensor([2.0], device=dev, requires_grad=True)
    opt = getattr(lib.optim, opt_name)([{"params": [p]}, {"params": [q], "lr": 0.2}], lr=0.1,
                                       **({"momentum": 0.9} if opt_name == "SGD" else {}))
    sched = make(opt)
    lrs = [sched.get_last_lr()]
    for i in range(steps):
        opt.step()
        if metric is None:
            sched.step()
        else:
            sched.step(metric(i))
        lrs.append(sched.get_last_lr())
    return lrs, [g.get("momentum", g.get("betas")) for g in opt.param_groups], sorted(sched.state_dict())


_S = "lib.optim.lr_scheduler."
_SCHED_CASES = {
    "LambdaLR": "LambdaLR(o, lambda e: 0.9 ** e)",
    "MultiplicativeLR": "MultiplicativeLR(o, lambda e: 0.8)",
    "StepLR": "StepLR(o, step_size=3, gamma=0.5)",
    "MultiStepLR": "MultiStepLR(o, milestones=[2, 5, 5], gamma=0.5)",
    "ConstantLR": "ConstantLR(o, factor=0.5, total_iters=4)",
    "LinearLR": "LinearLR(o, start_factor=0.25, total_iters=6)",
    "ExponentialLR": "ExponentialLR(o, gamma=0.9)",
    "PolynomialLR": "PolynomialLR(o, total_iters=8, power=2.0)",
    "CosineAnnealingLR": "CosineAnnealingLR(o, T_max=5, eta_min=0.01)",
    "CosineAnnealingWarmRestarts": "CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2)",
    "CyclicLR": "CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=3)",
    "OneCycleLR": "OneCycleLR(o, max_lr=1.0, total_steps=13)",
    "SequentialLR": "SequentialLR(o, [lib.optim.lr_scheduler.ConstantLR(o, factor=0.5, total_iters=2), "
                    "lib.optim.lr_scheduler.ExponentialLR(o, gamma=0.9)], milestones=[3])",
    "ChainedScheduler": "ChainedScheduler([lib.optim.lr_scheduler.ConstantLR(o, factor=0.5, total_iters=2), "
                        "lib.optim.lr_scheduler.ExponentialLR(o, gamma=0.9)])",
}


def _scheduler_case(expr):
    def run_case(lib, dev):
        return _sched_run(lib, dev, lambda o: eval(_S + expr, {"lib": lib, "o": o}))
    return run_case


for _name, _expr in _SCHED_CASES.items():
    case(f"torchlite.optim.lr_scheduler.{_name}")(_scheduler_case(_expr))


@case("torchlite.optim.lr_scheduler.ReduceLROnPlateau")
def _reduce_on_plateau(lib, dev):
    return _sched_run(lib, dev, lambda o: lib.optim.lr_scheduler.ReduceLROnPlateau(o, patience=1, factor=0.5),
                      metric=lambda i: 1.0 if i > 2 else 2.0 - i)


@case("torchlite.optim.lr_scheduler.LRScheduler")
def _lr_scheduler_base(lib, dev):
    class Halving(lib.optim.lr_scheduler.LRScheduler):
        def get_lr(self):
            return [g["lr"] * 0.5 for g in self.optimizer.param_groups]
    out = _sched_run(lib, dev, Halving, steps=3)
    p = lib.tensor([1.0], device=dev, requires_grad=True)
    return out, run(lambda lib_: lib_.optim.lr_scheduler.LRScheduler(lib_.optim.SGD([p])), lib)


def _data_ds(lib, dev, n=5):
    return lib.utils.data.TensorDataset(lib.arange(2 * n, device=dev).reshape(n, 2),
                                        lib.arange(n, device=dev, dtype=lib.float32))


_D = "torchlite.utils.data."


@case(_D + "DataLoader")
def _dataloader(lib, dev):
    dl = lib.utils.data.DataLoader(_data_ds(lib, dev), batch_size=2)
    return [list(b) for b in dl], len(dl), run(lambda lib_: lib_.utils.data.DataLoader([1], num_workers=-1), lib)


@case(_D + "TensorDataset")
def _tensor_dataset(lib, dev):
    ds = _data_ds(lib, dev)
    return len(ds), list(ds[1]), list(ds[-1])


@case(_D + "Dataset")
def _dataset(lib, dev):
    class Sq(lib.utils.data.Dataset):
        def __getitem__(self, i):
            return lib.tensor([i * i], device=dev)

        def __len__(self):
            return 3
    both = Sq() + Sq()
    return type(both).__name__, len(both), both[4], run(lambda lib_: lib_.utils.data.Dataset()[0], lib)


@case(_D + "IterableDataset", _D + "ChainDataset")
def _iterable_dataset(lib, dev):
    class It(lib.utils.data.IterableDataset):
        def __iter__(self):
            return iter([lib.tensor([1.0], device=dev), lib.tensor([2.0], device=dev)])
    chained = It() + It()
    dl = lib.utils.data.DataLoader(lib.utils.data.ChainDataset([It(), It()]), batch_size=3)
    return type(chained).__name__, list(chained), list(dl)


@case(_D + "StackDataset")
def _stack_dataset(lib, dev):
    ds = lib.utils.data.StackDataset(a=_data_ds(lib, dev), b=[5, 6, 7, 8, 9])
    return len(ds), ds[1]["b"], list(ds[1]["a"]), len(ds.__getitems__([0, 2]))


@case(_D + "ConcatDataset")
def _concat_dataset(lib, dev):
    ds = lib.utils.data.ConcatDataset([_data_ds(lib, dev, 2), _data_ds(lib, dev, 3)])
    return len(ds), list(ds[3]), ds.cumulative_sizes, run(lambda lib_: lib_.utils.data.ConcatDataset([]), lib)


@case(_D + "Subset")
def _subset(lib, dev):
    ds = lib.utils.data.Subset(_data_ds(lib, dev), [3, 1])
    return len(ds), list(ds[0]), [list(s) for s in ds.__getitems__([1, 0])]


@case(_D + "random_split")
def _random_split(lib, dev):
    parts = lib.utils.data.random_split(range(10), [0.5, 0.3, 0.2], generator=lib.Generator().manual_seed(0))
    idx = [p.indices for p in parts]
    return [len(p) for p in parts], idx, run(lambda lib_: lib_.utils.data.random_split(range(3), [1, 1]), lib)


@case(_D + "Sampler")
def _sampler(lib, dev):
    class Evens(lib.utils.data.Sampler):
        def __iter__(self):
            return iter([0, 2, 4])
    return list(lib.utils.data.DataLoader(_data_ds(lib, dev), sampler=Evens(), batch_size=2))[1]


@case(_D + "SequentialSampler")
def _sequential_sampler(lib, dev):
    return list(lib.utils.data.SequentialSampler(range(4))), len(lib.utils.data.SequentialSampler([1, 2]))


@case(_D + "RandomSampler")
def _random_sampler(lib, dev):
    s = lib.utils.data.RandomSampler(range(6), generator=lib.Generator().manual_seed(1))
    r = lib.utils.data.RandomSampler(range(6), replacement=True, num_samples=40)
    drawn = list(r)
    lib.manual_seed(0)
    return (list(s), len(s), len(r), list(r), set(drawn) <= set(range(6)),
            run(lambda lib_: lib_.utils.data.RandomSampler(range(3), num_samples=0), lib))


@case(_D + "SubsetRandomSampler")
def _subset_random_sampler(lib, dev):
    s = lib.utils.data.SubsetRandomSampler([7, 8, 9, 10, 11], generator=lib.Generator().manual_seed(2))
    return list(s), len(s)


@case(_D + "WeightedRandomSampler")
def _weighted_random_sampler(lib, dev):
    s = lib.utils.data.WeightedRandomSampler([0.0, 2.0, 0.0, 1.0], 20, generator=lib.Generator().manual_seed(3))
    drawn = list(s)
    return len(s), drawn, set(drawn) <= {1, 3}, \
        run(lambda lib_: lib_.utils.data.WeightedRandomSampler([1.0], 0), lib)


@case(_D + "BatchSampler")
def _batch_sampler(lib, dev):
    return (list(lib.utils.data.BatchSampler(range(7), 3, False)), list(lib.utils.data.BatchSampler(range(7), 3, True)),
            len(lib.utils.data.BatchSampler(range(7), 3, False)),
            run(lambda lib_: lib_.utils.data.BatchSampler(range(3), 0, False), lib))


@case(_D + "default_collate")
def _default_collate(lib, dev):
    a, b = lib.tensor([1.0, 2.0], device=dev), lib.tensor([3.0, 4.0], device=dev)
    out = lib.utils.data.default_collate([{"t": a, "n": 1, "f": 0.5, "s": "x"}, {"t": b, "n": 2, "f": 1.5, "s": "y"}])
    return out["t"], out["n"].tolist(), str(out["n"].dtype), str(out["f"].dtype), out["s"], \
        run(lambda lib_: lib_.utils.data.default_collate([object()]), lib)


@case(_D + "default_convert")
def _default_convert(lib, dev):
    out = lib.utils.data.default_convert({"a": np.array([1.5, 2.5]), "b": (np.int8(3), "s")})
    return out["a"].tolist(), str(out["a"].dtype), str(out["b"][0].dtype), out["b"][1]


@case(_D + "get_worker_info")
def _get_worker_info(lib, dev):
    return lib.utils.data.get_worker_info()


# ==== issue 15: seq ====
# (the seq family's entries follow this line)
MODULES += ["torchlite.backends.mkldnn"]


@case("torchlite.mkldnn_rnn_layer")
def _mkldnn_rnn_layer(lib, dev):
    # one LSTM layer (T=2, B=1, I=2, H=1), forward and reversed; the workspace is oneDNN's layout
    x = leaf(lib, dev, [[[0.5, -1.0]], [[1.5, 0.25]]])
    w0 = leaf(lib, dev, [[0.1, -0.2], [0.3, 0.4], [-0.5, 0.6], [0.7, -0.8]])
    w1 = leaf(lib, dev, [[0.2], [-0.1], [0.4], [0.3]])
    b0, b1 = leaf(lib, dev, [0.1, 0.2, -0.3, 0.4]), leaf(lib, dev, [0.0, -0.1, 0.2, 0.1])
    h, c = leaf(lib, dev, [[0.3]]), leaf(lib, dev, [[-0.6]])
    out = []
    for reverse in (False, True):
        y, hy, cy, ws = lib.mkldnn_rnn_layer(x, w0, w1, b0, b1, h, c, reverse, [], 2, 1, 1, True, False, False, True)
        out.append((with_grads(lib, lambda *a, r=(y, hy, cy): r, x, w0, w1, b0, b1, h, c), y.grad_fn.name(),
                    str(ws.dtype), ws.dim()))
    return out


@case("torchlite.unsafe_split", "torchlite.unsafe_chunk", "torchlite.unsafe_split_with_sizes", "Tensor.unsafe_split",
      "Tensor.unsafe_chunk", "Tensor.unsafe_split_with_sizes")
def _unsafe_split(lib, dev):
    # split's pieces, not views to autograd: each its own version counter, in-place allowed
    out = []
    for f in (lambda x: lib.unsafe_split(x, 2, 1), lambda x: x.unsafe_split(3), lambda x: lib.unsafe_chunk(x, 2, -1),
              lambda x: x.unsafe_chunk(3, 0), lambda x: lib.unsafe_split_with_sizes(x, [1, 2], 1),
              lambda x: x.unsafe_split_with_sizes([2, 0], 0)):
        x = leaf(lib, dev, [[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])
        y = x * 1
        pieces = f(y)
        out.append((with_grads(lib, lambda *a, p=pieces: p, x), [p.grad_fn.name() for p in pieces],
                    [p._base is None for p in pieces]))
        pieces[0].mul_(2)
        out.append(([p._version for p in pieces], y._version))
    return out


@case("torchlite.backends.mkldnn.is_available", "torchlite.backends.mkldnn.flags",
      "torchlite.backends.mkldnn.set_flags", "torchlite.backends.mkldnn.verbose")
def _backends_mkldnn(lib, dev):
    m = lib.backends.mkldnn
    out = [m.is_available(), m.enabled, m.deterministic, m.allow_tf32, m.VERBOSE_OFF, m.VERBOSE_ON,
           m.VERBOSE_ON_CREATION]
    x = T(lib, dev, [[[0.5, -1.0]], [[1.5, 0.25]]])
    lib.manual_seed(0)
    lstm = lib.nn.LSTM(2, 3).to(dev)
    with m.flags(enabled=False, deterministic=True):
        out.append((m.enabled, m.deterministic, lstm(x)[0].grad_fn.name()))
    out.append((m.enabled, m.deterministic))
    orig = m.set_flags(False)
    out.append((orig[:2], m.enabled))
    m.set_flags(*orig)
    out.append((m.enabled, m.allow_tf32))
    with m.verbose(m.VERBOSE_OFF) as v:
        out.append(v)
    return out
MODULES += ["torchlite.nn.utils.rnn"]
Q4 = [[[1.0, -0.5, 0.25], [0.5, 2.0, -1.0]], [[-1.0, 0.75, 0.5], [1.5, -0.25, 1.0]]]


@case("torchlite.nn.functional.scaled_dot_product_attention")
def _sdpa(lib, dev):
    F = lib.nn.functional
    d = lib.float64
    q, k, v = leaf(lib, dev, Q4, d), leaf(lib, dev, Q4[::-1], d), leaf(lib, dev, [[r[::-1] for r in m] for m in Q4], d)
    mask = T(lib, dev, [[True, False], [True, True]])
    return with_grads(lib, lambda q, k, v: (F.scaled_dot_product_attention(q, k, v), F.scaled_dot_product_attention(
        q, k, v, is_causal=True, scale=0.5), F.scaled_dot_product_attention(q, k, v, attn_mask=mask)), q, k, v)


@case("torchlite.nn.functional.multi_head_attention_forward")
def _mha_forward(lib, dev):
    F = lib.nn.functional
    x = leaf(lib, dev, Q4)
    w = leaf(lib, dev, [[0.1 * ((i * 3 + j) % 7 - 3) for j in range(3)] for i in range(9)])
    ow = leaf(lib, dev, [[0.2, -0.1, 0.3], [0.0, 0.5, -0.2], [0.1, 0.1, 0.4]])
    return with_grads(lib, lambda x, w, ow: F.multi_head_attention_forward(x, x, x, 3, 1, w, None, None, None, False,
                                                                          0.0, ow, None), x, w, ow)


@case("torchlite.nn.utils.rnn.pad_sequence", "torchlite.nn.utils.rnn.unpad_sequence")
def _pad_sequence(lib, dev):
    rnn = lib.nn.utils.rnn
    a, b = leaf(lib, dev, [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), leaf(lib, dev, [[-1.0, 0.5]])
    out = with_grads(lib, lambda a, b: (rnn.pad_sequence([a, b]), rnn.pad_sequence([a, b], batch_first=True,
                                                                                     padding_value=-9.0,
                                                                                     padding_side="left")), a, b)
    return out, rnn.unpad_sequence(rnn.pad_sequence([a, b]).detach(), T(lib, dev, [3, 1]))


@case("torchlite.nn.utils.rnn.pack_padded_sequence", "torchlite.nn.utils.rnn.pad_packed_sequence",
      "torchlite.nn.utils.rnn.PackedSequence", "torchlite.nn.utils.rnn.invert_permutation",
      "torchlite.nn.utils.rnn.PackedSequence_", "torchlite.nn.utils.rnn.bind")
def _pack_padded(lib, dev):
    rnn = lib.nn.utils.rnn
    x = leaf(lib, dev, [[[1.0], [2.0], [3.0]], [[4.0], [5.0], [6.0]]])

    def f(x):
        p = rnn.pack_padded_sequence(x, [1, 2, 2], enforce_sorted=False)
        padded, lengths = rnn.pad_packed_sequence(p, total_length=3)  # batch_sizes and lengths stay on the CPU
        return (p.data, p.batch_sizes.tolist(), p.sorted_indices, padded, lengths.tolist(),
                isinstance(p, rnn.PackedSequence_), rnn.bind(None, abs), rnn.invert_permutation(T(lib, dev, [2, 0, 1])))
    return with_grads(lib, f, x)


@case("torchlite.nn.utils.rnn.pack_sequence", "torchlite.nn.utils.rnn.unpack_sequence")
def _pack_sequence(lib, dev):
    rnn = lib.nn.utils.rnn
    a, b = leaf(lib, dev, [1.0, 2.0]), leaf(lib, dev, [3.0, 4.0, 5.0])
    return with_grads(lib, lambda a, b: (rnn.pack_sequence([a, b], enforce_sorted=False).data,
                                         rnn.unpack_sequence(rnn.pack_sequence([b, a]))), a, b)


def _seq_fill(lib, mod, dev):
    """mod on dev with fixed weights (the same under both libraries), in float64."""
    mod = mod.to(dev).double()
    with lib.no_grad():
        for i, p in enumerate(mod.parameters()):
            p.copy_(lib.linspace(-0.6, 0.5, p.numel(), dtype=lib.float64).reshape(p.shape) * (1 + 0.1 * (i % 5)))
    return mod


def _seq_run(lib, dev, mod, *inputs, call=None):
    """The outputs of (call or mod)(*inputs) (PackedSequence data and tuples flattened), the inputs'
    and mod's parameters' gradients, the parameter names and the repr."""
    params = list(mod.parameters())

    def f(*leaves):
        out = (call or mod)(*leaves)
        flat = []
        for o in out if isinstance(out, tuple) else (out,):
            if isinstance(o, tuple):
                flat.extend(o)
            else:
                flat.append(getattr(o, "data", o) if hasattr(o, "batch_sizes") else o)
        return flat
    out, grads = with_grads(lib, f, *inputs)
    wgrads = lib.autograd.grad(sum((o * 1.5).sum() for o in f(*inputs) if o is not None and o.requires_grad), params)
    return out, grads, wgrads, [n for n, _ in mod.named_parameters()], repr(mod)


@case("torchlite.nn.RNN", "torchlite.nn.RNNBase")
def _nn_rnn(lib, dev):
    mod = _seq_fill(lib, lib.nn.RNN(3, 4, 2, nonlinearity="relu", bidirectional=True), dev)
    x = leaf(lib, dev, Q4, lib.float64)
    return _seq_run(lib, dev, mod, x), isinstance(mod, lib.nn.RNNBase), mod.all_weights[0][0].shape


@case("torchlite.nn.LSTM")
def _nn_lstm(lib, dev):
    mod = _seq_fill(lib, lib.nn.LSTM(3, 4, 2, proj_size=2, batch_first=True), dev)
    x = leaf(lib, dev, Q4, lib.float64)
    h = (leaf(lib, dev, [[[0.1, -0.2], [0.3, 0.0]]] * 2, lib.float64),
         leaf(lib, dev, [[[0.5, -0.5, 0.25, 0.0]] * 2] * 2, lib.float64))
    return _seq_run(lib, dev, mod, x), _seq_run(lib, dev, mod, x, *h, call=lambda x, h0, c0: mod(x, (h0, c0)))[:3]


@case("torchlite.nn.GRU")
def _nn_gru(lib, dev):
    mod = _seq_fill(lib, lib.nn.GRU(3, 4, bidirectional=True), dev)
    x = leaf(lib, dev, Q4, lib.float64)
    packed = lib.nn.utils.rnn.pack_padded_sequence(x, [2, 1], enforce_sorted=False)
    return _seq_run(lib, dev, mod, x), mod(packed)[0].data, mod(x[0])[0]


@case("torchlite.nn.RNNCell", "torchlite.nn.RNNCellBase")
def _nn_rnn_cell(lib, dev):
    mod = _seq_fill(lib, lib.nn.RNNCell(3, 4, nonlinearity="relu"), dev)
    return _seq_run(lib, dev, mod, leaf(lib, dev, A, lib.float64)), isinstance(mod, lib.nn.RNNCellBase)


@case("torchlite.nn.LSTMCell")
def _nn_lstm_cell(lib, dev):
    mod = _seq_fill(lib, lib.nn.LSTMCell(3, 4, bias=False), dev)
    return _seq_run(lib, dev, mod, leaf(lib, dev, A, lib.float64))


@case("torchlite.nn.GRUCell")
def _nn_gru_cell(lib, dev):
    mod = _seq_fill(lib, lib.nn.GRUCell(3, 4), dev)
    return _seq_run(lib, dev, mod, leaf(lib, dev, A, lib.float64))


@case("torchlite.nn.MultiheadAttention")
def _nn_mha(lib, dev):
    mod = _seq_fill(lib, lib.nn.MultiheadAttention(4, 2, add_bias_kv=True, kdim=3, vdim=3), dev)
    q = leaf(lib, dev, [[[1.0, -0.5, 0.25, 0.0], [0.5, 2.0, -1.0, 1.0]]], lib.float64)
    kv = leaf(lib, dev, Q4, lib.float64)
    return _seq_run(lib, dev, mod, q, kv, kv), _seq_run(lib, dev, mod, q, kv,
                                                         call=lambda q, k: mod(q, k, k, need_weights=False)[0])[:3]


@case("torchlite.nn.TransformerEncoderLayer", "torchlite.nn.TransformerEncoder")
def _nn_transformer_encoder(lib, dev):
    layer = lib.nn.TransformerEncoderLayer(4, 2, 6, 0.0, activation="gelu", norm_first=True)
    enc = _seq_fill(lib, lib.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False), dev)
    x = leaf(lib, dev, [[[1.0, -0.5, 0.25, 0.0], [0.5, 2.0, -1.0, 1.0]], [[0.0, 1.0, 0.5, -1.0]] * 2], lib.float64)
    mask = lib.nn.Transformer.generate_square_subsequent_mask(2, device=dev, dtype=lib.float64)
    return _seq_run(lib, dev, enc, x), _seq_run(lib, dev, enc, x, call=lambda x: enc(x, mask=mask))[:3]


@case("torchlite.nn.TransformerDecoderLayer", "torchlite.nn.TransformerDecoder", "torchlite.nn.Transformer")
def _nn_transformer(lib, dev):
    mod = _seq_fill(lib, lib.nn.Transformer(4, 2, 1, 1, 6, 0.0, batch_first=True), dev)
    x = leaf(lib, dev, [[[1.0, -0.5, 0.25, 0.0], [0.5, 2.0, -1.0, 1.0]], [[0.0, 1.0, 0.5, -1.0]] * 2], lib.float64)
    y = leaf(lib, dev, [[[0.5, -1.0, 0.0, 0.25]], [[1.0, 0.0, -0.5, 0.5]]], lib.float64)
    return (_seq_run(lib, dev, mod, x, y), isinstance(mod.decoder, lib.nn.TransformerDecoder),
            isinstance(mod.decoder.layers[0], lib.nn.TransformerDecoderLayer))
