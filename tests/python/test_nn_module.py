"""torchlite.nn.Module, Parameter, Buffer and the containers against torch: registration,
traversal (names and order), state_dict / load_state_dict and their messages, conversion, hooks
(forward, pre, full backward), repr, and the containers' list/dict behaviour."""
import copy
import pickle
import warnings
from collections import OrderedDict

import numpy as np
import pytest

import torchlite

from diff_utils import import_torch, run

torch = import_torch()

CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def lite_copy(lib, module, ref_state):
    """Loads a state dict (numpy arrays) into `module` (the same values under both libs)."""
    module.load_state_dict({k: lib.tensor(v) for k, v in ref_state.items()})
    return module


def arr(seed, *shape, dtype=np.float64):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def mlp(lib):
    nn = lib.nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(lib.tensor(arr(0, 3, 3)))
            self.register_buffer("scale", lib.tensor(arr(1, 3)))
            self.register_buffer("tmp", lib.zeros(2), persistent=False)

        def forward(self, x):
            return (x @ self.w) * self.scale

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = Block()
            self.bias = nn.Parameter(lib.tensor(arr(2, 3)))
            self.b = nn.Sequential(Block(), Block())
            self.none_param = None

        def forward(self, x):
            return self.b(self.a(x)) + self.bias

    return Net()


# Parameter and Buffer --------------------------------------------------------------------------
@case
def parameter_repr(lib):
    p = lib.nn.Parameter(lib.tensor([[1.0, 2.0], [3.0, 4.0]]))
    q = lib.nn.Parameter(lib.tensor([1.0, 2.0]), requires_grad=False)
    return repr(p), str(p), repr(q), p.requires_grad, q.requires_grad, p.is_leaf


@case
def parameter_types(lib):
    p = lib.nn.Parameter(lib.tensor([1.0, 2.0]))
    t = lib.tensor([3.0])
    return (isinstance(p, lib.Tensor), type(p).__name__, type(p * 2).__name__, type(p.data).__name__,
            type(p.detach()).__name__, type(p + t).__name__, isinstance(p.data, lib.nn.Parameter),
            isinstance(t, lib.nn.Parameter), type(p.add_(1)).__name__)


@case
def parameter_shares_memory(lib):
    t = lib.tensor([1.0, 2.0])
    p = lib.nn.Parameter(t)
    t.add_(1)
    return p.detach().clone(), p.is_leaf, p.grad_fn is None, p._version == t._version


@case
def parameter_from_nonleaf(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    p = lib.nn.Parameter(x * 2)
    (p * p).sum().backward()
    return p.is_leaf, p.grad, x.grad


@case
def parameter_empty(lib):
    p = lib.nn.Parameter()
    return p.shape, p.dtype, p.requires_grad


@case
def parameter_int_refused(lib):
    return lib.nn.Parameter(lib.tensor([1, 2]))


@case
def parameter_int_no_grad(lib):
    p = lib.nn.Parameter(lib.tensor([1, 2]), requires_grad=False)
    return repr(p), p.dtype


@case
def parameter_deepcopy(lib):
    p = lib.nn.Parameter(lib.tensor([1.0, 2.0]))
    (p * 3).sum().backward()
    q = copy.deepcopy(p)
    q.data.add_(10)
    r = copy.deepcopy([p, p])
    return type(q).__name__, q.requires_grad, p, q, q.grad is None, r[0] is r[1]


@case
def parameter_pickle(lib):
    p = lib.nn.Parameter(lib.tensor([1.0, 2.0]), requires_grad=False)
    q = pickle.loads(pickle.dumps(p))
    return type(q).__name__, q.requires_grad, q


@case
def buffer_(lib):
    b = lib.nn.Buffer(lib.tensor([1.0, 2.0]))
    c = lib.nn.Buffer(lib.tensor([1.0]), persistent=False)
    m = lib.nn.Module()
    m.b = b
    m.c = c
    return (isinstance(b, lib.nn.Buffer), type(b).__name__, isinstance(lib.tensor(1.0), lib.nn.Buffer),
            b.persistent, c.persistent, list(m.state_dict()), [n for n, _ in m.named_buffers()])


# Registration ----------------------------------------------------------------------------------
@case
def names_and_order(lib):
    m = mlp(lib)
    return ([n for n, _ in m.named_parameters()], [n for n, _ in m.named_buffers()],
            [n for n, _ in m.named_modules()], [n for n, _ in m.named_children()],
            [type(c).__name__ for c in m.children()], len(list(m.parameters())),
            [n for n, _ in m.named_parameters(recurse=False)], [n for n, _ in m.named_parameters(prefix="net")],
            [n for n, _ in m.named_buffers(recurse=False)], list(m.state_dict()))


@case
def tied_weights(lib):
    nn = lib.nn
    m = nn.Module()
    m.a = nn.Module()
    m.b = nn.Module()
    w = nn.Parameter(lib.ones(2))
    m.a.w = w
    m.b.w = w
    m.c = m.a  # the same module twice
    return ([n for n, _ in m.named_parameters()], [n for n, _ in m.named_parameters(remove_duplicate=False)],
            [n for n, _ in m.named_modules()], [n for n, _ in m.named_modules(remove_duplicate=False)],
            len(list(m.parameters())), list(m.state_dict()), [n for n, _ in m.named_children()])


@case
def setattr_moves_between_kinds(lib):
    nn = lib.nn
    m = nn.Module()
    m.x = nn.Parameter(lib.ones(1))
    m.register_buffer("y", lib.ones(1))
    m.x = nn.Module()      # a parameter name becomes a submodule
    m.y = nn.Parameter(lib.zeros(1))  # a buffer name becomes a parameter
    m.z = lib.ones(1)      # a plain tensor attribute is neither
    m.y = None
    return list(m._parameters), list(m._buffers), list(m._modules), "z" in m.__dict__, m.y


@case
def setattr_tensor_to_parameter(lib):
    m = lib.nn.Module()
    m.w = lib.nn.Parameter(lib.ones(1))
    m.w = lib.ones(1)


@case
def setattr_int_to_module(lib):
    m = lib.nn.Module()
    m.sub = lib.nn.Module()
    m.sub = 3


@case
def setattr_int_to_buffer(lib):
    m = lib.nn.Module()
    m.register_buffer("b", lib.ones(1))
    m.b = 3


@case
def setattr_buffer_keeps_tensor(lib):
    m = lib.nn.Module()
    m.register_buffer("b", lib.ones(1), persistent=False)
    m.b = lib.zeros(2)
    return m.b, list(m.state_dict()), list(m._buffers)


@case
def register_buffer_errors(lib):
    m = lib.nn.Module()
    m.x = 1
    out = []
    for name, value in [(1, None), ("a.b", None), ("", None), ("x", None), ("ok", 3)]:
        try:
            m.register_buffer(name, value)
        except Exception as e:  # noqa: BLE001
            out.append((type(e).__name__, str(e)))
    return out


@case
def register_parameter_errors(lib):
    m = lib.nn.Module()
    m.x = 1
    out = []
    nonleaf = lib.nn.Parameter(lib.ones(1)) * 2
    for name, value in [(1, None), ("a.b", None), ("", None), ("x", None), ("t", lib.ones(1)), ("n", nonleaf)]:
        try:
            m.register_parameter(name, value)
        except Exception as e:  # noqa: BLE001
            out.append((type(e).__name__, str(e)))
    m.register_parameter("p", None)
    return out, list(m._parameters), list(m.parameters())


@case
def add_module_errors(lib):
    m = lib.nn.Module()
    m.x = 1
    out = []
    for name, value in [("a", 3), (1, None), ("x", None), ("a.b", None), ("", None)]:
        try:
            m.add_module(name, value)
        except Exception as e:  # noqa: BLE001
            out.append((type(e).__name__, str(e)))
    m.register_module("n", None)
    m.register_module("k", lib.nn.Module())
    return out, list(m._modules), [n for n, _ in m.named_children()]


@case
def before_init(lib):
    class Bad(lib.nn.Module):
        def __init__(self):
            self.w = lib.nn.Parameter(lib.ones(1))
    Bad()


@case
def before_init_module(lib):
    class Bad(lib.nn.Module):
        def __init__(self):
            self.m = lib.nn.Module()
    Bad()


@case
def init_arguments(lib):
    out = []
    for args, kwargs in [((1,), {}), ((), {"a": 1})]:
        try:
            lib.nn.Module(*args, **kwargs)
        except TypeError as e:
            out.append(str(e))
    return out


@case
def getattr_missing(lib):
    return mlp(lib).nope


@case
def delattr_(lib):
    m = mlp(lib)
    del m.bias
    del m.a.scale
    del m.b
    m.plain = 1
    del m.plain
    return list(m.state_dict()), hasattr(m, "plain")


@case
def get_submodule_parameter_buffer(lib):
    m = mlp(lib)
    out = [type(m.get_submodule("b.1")).__name__, m.get_submodule("") is m, m.get_parameter("b.0.w").shape,
           m.get_buffer("a.scale").shape]
    for fn, target in [(m.get_submodule, "b.7"), (m.get_submodule, "bias"), (m.get_parameter, "a.scale"),
                       (m.get_parameter, "a.nope"), (m.get_buffer, "a.w"), (m.get_buffer, "x.y")]:
        try:
            fn(target)
        except AttributeError as e:
            out.append(str(e))
    return out


@case
def set_submodule(lib):
    m = mlp(lib)
    m.set_submodule("b.0", lib.nn.Module())
    out = [list(m.state_dict())]
    for target, mod, strict in [("", lib.nn.Module(), False), ("b.0", 3, False), ("b.9", lib.nn.Module(), True),
                                ("bias", lib.nn.Module(), False)]:
        try:
            m.set_submodule(target, mod, strict)
        except Exception as e:  # noqa: BLE001
            out.append((type(e).__name__, str(e)))
    return out


@case
def dir_(lib):
    m = mlp(lib)
    d = dir(m)
    return [k for k in ["a", "b", "bias", "forward", "training", "state_dict"] if k in d], d == sorted(d)


# Modes, grads, apply --------------------------------------------------------------------------
@case
def train_eval(lib):
    m = mlp(lib)
    m.eval()
    out = [m.training, m.a.training, m.b[1].training]
    m.b.train()
    out += [m.training, m.b[0].training]
    try:
        m.train("yes")
    except ValueError as e:
        out.append(str(e))
    return out, m.train() is m


@case
def zero_grad_(lib):
    m = mlp(lib)
    x = lib.tensor(arr(5, 2, 3))
    m(x).sum().backward()
    grads = [p.grad.clone() for p in m.parameters()]
    m.zero_grad(set_to_none=False)
    zeros = [p.grad.clone() for p in m.parameters()]
    m.zero_grad()
    return grads, zeros, [p.grad for p in m.parameters()]


@case
def requires_grad__(lib):
    m = mlp(lib)
    m.requires_grad_(False)
    out = [p.requires_grad for p in m.parameters()]
    m.a.requires_grad_()
    return out, [p.requires_grad for p in m.parameters()]


@case
def apply_(lib):
    m = mlp(lib)
    seen = []
    r = m.apply(lambda mod: seen.append(type(mod).__name__))
    return seen, r is m


# Conversion ------------------------------------------------------------------------------------
@case
def to_dtype(lib):
    m = mlp(lib)
    m.register_buffer("steps", lib.tensor(3))
    x = lib.tensor(arr(5, 2, 3))
    m(x).sum().backward()
    w = m.a.w
    m.float()
    out = [m.a.w is w, m.a.w.dtype, type(m.a.w).__name__, m.a.w.grad.dtype, m.a.scale.dtype, m.steps.dtype,
           m.a.w.requires_grad, m.a.w.is_leaf]
    m.to(lib.float64)
    out += [m.a.w.dtype, m.bias.dtype]
    m.to("cpu", lib.float32)
    out += [m.a.w.dtype, m.a.w.device]
    m.to(dtype=lib.float64)
    out += [m.a.w.dtype]
    m.half()
    out += [m.a.w.dtype]
    m.double()
    m.to(lib.zeros(1, dtype=lib.float32))
    out += [m.a.w.dtype, m.steps.dtype]
    m.type(lib.float64)
    out += [m.a.w.dtype, m.cpu() is m]
    return out


@case
def to_int_refused(lib):
    mlp(lib).to(lib.int64)


# state_dict ------------------------------------------------------------------------------------
@case
def state_dict_values(lib):
    m = mlp(lib)
    sd = m.state_dict()
    kv = m.state_dict(keep_vars=True)
    meta = dict(sd._metadata)
    return (list(sd.items()), type(sd).__name__, [v.requires_grad for v in sd.values()],
            [type(v).__name__ for v in kv.values()], kv["a.w"] is m.a.w, meta,
            list(m.state_dict(prefix="p.")), sd["a.w"].data_ptr() == m.a.w.data_ptr())


@case
def load_state_dict_roundtrip(lib):
    src = mlp(lib)
    dst = mlp(lib)
    with lib.no_grad():
        for p in src.parameters():
            p.mul_(2)
    w = dst.a.w
    res = dst.load_state_dict(src.state_dict())
    return repr(res), str(res), res.missing_keys, dst.a.w is w, dst.a.w, dst.state_dict()


@case
def load_state_dict_strict_errors(lib):
    m = mlp(lib)
    sd = m.state_dict()
    del sd["a.w"]
    del sd["b.1.scale"]
    sd["extra"] = lib.ones(1)
    sd["b.5.w"] = lib.ones(1)
    sd["a.nope"] = lib.ones(1)
    m.load_state_dict(sd)


@case
def load_state_dict_not_strict(lib):
    m = mlp(lib)
    sd = m.state_dict()
    del sd["a.w"]
    sd["extra"] = lib.ones(1)
    res = m.load_state_dict(sd, strict=False)
    return repr(res), res.missing_keys, res.unexpected_keys


@case
def load_state_dict_size_mismatch(lib):
    m = mlp(lib)
    sd = m.state_dict()
    sd["a.w"] = lib.ones(2, 2)
    sd["bias"] = lib.ones(4)
    m.load_state_dict(sd)


@case
def load_state_dict_size_mismatch_and_missing(lib):
    m = mlp(lib)
    sd = m.state_dict()
    sd["a.w"] = lib.ones(2, 2)
    del sd["bias"]
    m.load_state_dict(sd, strict=False)


@case
def load_state_dict_not_tensor(lib):
    m = mlp(lib)
    sd = m.state_dict()
    sd["bias"] = [1.0, 2.0, 3.0]
    m.load_state_dict(sd)


@case
def load_state_dict_not_mapping(lib):
    mlp(lib).load_state_dict([1, 2])


@case
def load_state_dict_0d(lib):
    m = lib.nn.Module()
    m.s = lib.nn.Parameter(lib.tensor(1.0))
    m.load_state_dict({"s": lib.tensor([5.0])})
    return m.s


@case
def load_state_dict_assign(lib):
    m = mlp(lib)
    sd = {k: v * 3 for k, v in m.state_dict().items()}
    w = m.a.w
    m.load_state_dict(sd, assign=True)
    return (m.a.w is w, type(m.a.w).__name__, m.a.w.requires_grad, m.a.w,
            m.a.scale.data_ptr() == sd["a.scale"].data_ptr())


@case
def load_state_dict_dtype_cast(lib):
    m = mlp(lib)
    m.load_state_dict({k: v.float() for k, v in m.state_dict().items()})
    return m.a.w.dtype, m.a.w


@case
def state_dict_hooks(lib):
    m = mlp(lib)
    calls = []
    m.register_state_dict_pre_hook(lambda mod, prefix, keep_vars: calls.append(("pre", prefix, keep_vars)))
    m.a.register_state_dict_post_hook(lambda mod, sd, prefix, meta: calls.append(("post", prefix, sorted(sd))))
    m.register_load_state_dict_pre_hook(lambda mod, sd, prefix, *a: calls.append(("lpre", prefix, sorted(sd))))
    m.b.register_load_state_dict_post_hook(lambda mod, keys: calls.append(("lpost", list(keys.missing_keys))))
    sd = m.state_dict()
    m.load_state_dict(sd)
    return calls


@case
def extra_state(lib):
    class WithState(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.v = 1

        def get_extra_state(self):
            return {"v": self.v}

        def set_extra_state(self, state):
            self.v = state["v"]

    m = lib.nn.Sequential(WithState())
    sd = m.state_dict()
    m2 = lib.nn.Sequential(WithState())
    sd["0._extra_state"] = {"v": 7}
    m2.load_state_dict(sd)
    out = [list(sd), m2[0].v]
    try:
        m2.load_state_dict({})
    except RuntimeError as e:
        out.append(str(e))
    return out


@case
def version_metadata(lib):
    class V(lib.nn.Module):
        _version = 3

    m = lib.nn.Sequential(V())
    seen = []

    class W(lib.nn.Module):
        def _load_from_state_dict(self, state_dict, prefix, local_metadata, *args):
            seen.append(dict(local_metadata))
            super()._load_from_state_dict(state_dict, prefix, local_metadata, *args)

    m2 = lib.nn.Sequential(W())
    m2.load_state_dict(m.state_dict())
    return dict(m.state_dict()._metadata), seen


# Forward hooks -------------------------------------------------------------------------------
@case
def forward_hooks(lib):
    m = mlp(lib)
    calls = []

    def pre(mod, args):
        calls.append(("pre", type(mod).__name__, len(args)))
        return (args[0] * 2,)

    def pre_kw(mod, args, kwargs):
        calls.append(("pre_kw", sorted(kwargs)))
        return None

    def post(mod, args, out):
        calls.append(("post", len(args)))
        return out + 1

    def post_kw(mod, args, kwargs, out):
        calls.append(("post_kw", sorted(kwargs)))

    h1 = m.register_forward_pre_hook(pre)
    m.register_forward_pre_hook(pre_kw, with_kwargs=True)
    m.register_forward_pre_hook(lambda mod, args: calls.append("first"), prepend=True)
    m.register_forward_hook(post)
    m.register_forward_hook(post_kw, with_kwargs=True)
    m.register_forward_hook(lambda mod, a, o: calls.append("post_first"), prepend=True)
    x = lib.tensor(arr(5, 2, 3))
    y1 = m(x)
    h1.remove()
    y2 = m(x)
    return calls, y1, y2


@case
def forward_pre_hook_returns_single(lib):
    m = lib.nn.Sequential()
    m.register_forward_pre_hook(lambda mod, args: args[0] + 1)  # a non-tuple is wrapped
    return m(lib.tensor([1.0]))


@case
def forward_pre_hook_kwargs_bad(lib):
    m = lib.nn.Sequential()
    m.register_forward_pre_hook(lambda mod, args, kwargs: 5, with_kwargs=True)
    m(lib.tensor([1.0]))


@case
def forward_hook_always_call(lib):
    class Boom(lib.nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    m = Boom()
    calls = []
    m.register_forward_hook(lambda mod, a, o: calls.append(("always", o)), always_call=True)
    m.register_forward_hook(lambda mod, a, o: calls.append("normal"))
    try:
        m(lib.ones(1))
    except ValueError as e:
        calls.append(str(e))
    return calls


@case
def forward_unimplemented(lib):
    lib.nn.Module()(1)


@case
def global_forward_hooks(lib):
    from importlib import import_module
    mm = import_module(lib.__name__ + ".nn.modules.module")
    calls = []
    h1 = mm.register_module_forward_pre_hook(lambda mod, args: calls.append(("gpre", type(mod).__name__)))
    h2 = mm.register_module_forward_hook(lambda mod, args, out: calls.append(("gpost", type(mod).__name__)))
    try:
        lib.nn.Sequential(lib.nn.Sequential())(lib.ones(1))
    finally:
        h1.remove()
        h2.remove()
    lib.nn.Sequential()(lib.ones(1))
    return calls


# Backward hooks ------------------------------------------------------------------------------
class _Two:
    """A module of two inputs and two outputs (built per lib)."""

    @staticmethod
    def make(lib):
        class Two(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.w = lib.nn.Parameter(lib.tensor(arr(0, 3)))

            def forward(self, x, y, scale=1.0):
                return x * self.w * scale, (y * x).exp()

        return Two()


@case
def full_backward_hook(lib):
    m = _Two.make(lib)
    calls = []

    def hook(mod, grad_input, grad_output):
        calls.append(("hook", grad_input, grad_output))

    def pre(mod, grad_output):
        calls.append(("pre", grad_output))

    m.register_full_backward_hook(hook)
    m.register_full_backward_pre_hook(pre)
    x = lib.tensor(arr(1, 3), requires_grad=True)
    y = lib.tensor(arr(2, 3), requires_grad=True)
    a, b = m(x, y, scale=2.0)
    names = (a.grad_fn.name(), b.grad_fn.name(), a.grad_fn.next_functions[0][0].name())
    (a.sum() + (b * 3).sum()).backward()
    return names, calls, x.grad, y.grad, m.w.grad


@case
def full_backward_hook_changes_grads(lib):
    m = _Two.make(lib)
    m.register_full_backward_pre_hook(lambda mod, go: (go[0] * 10, go[1]))
    m.register_full_backward_hook(lambda mod, gi, go: (gi[0] + 1, None))
    x = lib.tensor(arr(1, 3), requires_grad=True)
    y = lib.tensor(arr(2, 3), requires_grad=True)
    a, b = m(x, y)
    (a.sum() + b.sum()).backward()
    return x.grad, y.grad, m.w.grad


@case
def full_backward_hook_partial_inputs(lib):
    m = _Two.make(lib)
    calls = []
    m.register_full_backward_hook(lambda mod, gi, go: calls.append((gi, go)))
    x = lib.tensor(arr(1, 3), requires_grad=True)
    y = lib.tensor(arr(2, 3))
    a, b = m(x, y)
    a.sum().backward()  # b unused: its grad_output is None
    return calls, x.grad


@case
def full_backward_hook_no_input_grad(lib):
    m = _Two.make(lib)
    calls = []
    m.register_full_backward_hook(lambda mod, gi, go: calls.append((gi, go)))
    x = lib.tensor(arr(1, 3))
    y = lib.tensor(arr(2, 3))
    a, b = m(x, y)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        a.sum().backward()
    return calls, m.w.grad, [str(x.message) for x in w]


@case
def full_backward_hook_wrong_count(lib):
    m = _Two.make(lib)
    m.register_full_backward_hook(lambda mod, gi, go: (gi[0],))
    x = lib.tensor(arr(1, 3), requires_grad=True)
    y = lib.tensor(arr(2, 3), requires_grad=True)
    a, b = m(x, y)
    a.sum().backward()


@case
def full_backward_pre_hook_wrong_count(lib):
    m = _Two.make(lib)
    m.register_full_backward_pre_hook(lambda mod, go: (go[0],))
    x = lib.tensor(arr(1, 3), requires_grad=True)
    a, b = m(x, x)
    a.sum().backward()


@case
def mixing_backward_hooks(lib):
    m = lib.nn.Module()
    m.register_full_backward_hook(lambda *a: None)
    m.register_backward_hook(lambda *a: None)


@case
def full_backward_hook_sequential(lib):
    net = mlp(lib)
    calls = []
    for name, mod in net.named_modules():
        mod.register_full_backward_hook(lambda mod, gi, go, name=name: calls.append((name, gi, go)))
    x = lib.tensor(arr(1, 2, 3), requires_grad=True)
    net(x).pow(2).sum().backward()
    return calls, x.grad


@case
def full_backward_hook_remove(lib):
    m = _Two.make(lib)
    calls = []
    h = m.register_full_backward_hook(lambda mod, gi, go: calls.append(1))
    h.remove()
    x = lib.tensor(arr(1, 3), requires_grad=True)
    a, b = m(x, x)
    a.sum().backward()
    return calls, a.grad_fn.name()


@case
def full_backward_hook_under_no_grad(lib):
    m = _Two.make(lib)
    m.register_full_backward_hook(lambda mod, gi, go: None)
    x = lib.tensor(arr(1, 3), requires_grad=True)
    with lib.no_grad():
        a, b = m(x, x)
    return a.requires_grad, a.grad_fn


@case
def full_backward_hook_inplace_output(lib):
    """An in-place op on the hook's BackwardHookFunction output: torch's custom-Function view error."""
    m = lib.nn.Sequential(lib.nn.Linear(3, 3), lib.nn.ReLU(inplace=True))
    m[1].register_full_backward_hook(lambda mod, gi, go: None)
    m(lib.ones(2, 3, requires_grad=True))


@case
def full_backward_hook_on_layers(lib):
    m = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh(), lib.nn.Linear(4, 2))
    lite_copy(lib, m, {"0.weight": arr(1, 4, 3), "0.bias": arr(2, 4), "2.weight": arr(3, 2, 4), "2.bias": arr(4, 2)})
    calls = []
    for name, mod in m.named_modules():
        mod.register_full_backward_pre_hook(lambda mod, go, name=name: calls.append(("pre", name, go)))
        mod.register_full_backward_hook(lambda mod, gi, go, name=name: calls.append(("hook", name, gi, go)))
    x = lib.tensor(arr(5, 2, 3), requires_grad=True)
    m(x).pow(2).sum().backward()
    return calls, x.grad, [p.grad for p in m.parameters()]


# repr ------------------------------------------------------------------------------------------
@case
def repr_nested(lib):
    nn = lib.nn

    class Leaf(nn.Module):
        def __init__(self, k):
            super().__init__()
            self.k = k

        def extra_repr(self):
            return f"k={self.k}"

    class Multi(nn.Module):
        def extra_repr(self):
            return "line1\nline2"

    m = nn.Sequential(OrderedDict([("first", Leaf(1)), ("inner", nn.Sequential(Leaf(2), Multi())),
                                   ("lst", nn.ModuleList([Leaf(3), Leaf(3), Leaf(3), Leaf(4)])),
                                   ("d", nn.ModuleDict({"x": Leaf(5)})), ("empty", nn.ModuleList())]))
    withleaf = Leaf(6)
    withleaf.child = Multi()
    return repr(m), repr(withleaf), repr(Multi()), repr(nn.Module()), str(m)


# Containers ------------------------------------------------------------------------------------
def _leaves(lib, n):
    class L(lib.nn.Module):
        def __init__(self, i):
            super().__init__()
            self.i = i

        def forward(self, x):
            return x * 2 + self.i

        def extra_repr(self):
            return str(self.i)

    return [L(i) for i in range(n)]


@case
def sequential_(lib):
    nn = lib.nn
    a, b, c, d = _leaves(lib, 4)
    s = nn.Sequential(a, b, c)
    out = [len(s), s[0] is a, s[-1] is c, type(s[1:]).__name__, [m.i for m in s[::-1]], list(s[1:]._modules)]
    s.append(d)
    s.insert(1, nn.Sequential())
    s.extend([nn.Sequential()])
    out += [len(s), list(s._modules), repr(s)]
    del s[1]
    out += [list(s._modules), [type(m).__name__ for m in s]]
    s[0] = nn.Sequential()
    out += [type(s[0]).__name__, s(lib.tensor([1.0]))]
    popped = s.pop(0)
    out += [type(popped).__name__, len(s), len(s + s), len(s * 2), list((2 * s)._modules)]
    od = nn.Sequential(OrderedDict([("x", a), ("y", b)]))
    out += [list(od._modules), od[1] is b, repr(od), od(lib.tensor([1.0]))]
    for bad in (lambda: s[10], lambda: s + 1, lambda: s * 0, lambda: s.insert(99, a), lambda: s.insert(0, 1)):
        try:
            bad()
        except Exception as e:  # noqa: BLE001
            out.append((type(e).__name__, str(e).replace(type(s).__module__, "M")))
    return out


@case
def module_list(lib):
    nn = lib.nn
    ls = _leaves(lib, 5)
    ml = nn.ModuleList(ls[:3])
    out = [len(ml), ml[-1] is ls[2], type(ml[:2]).__name__, [m.i for m in ml]]
    ml.append(ls[3])
    ml.extend([ls[4]])
    ml.insert(0, nn.Sequential())
    ml += [nn.Sequential()]
    out += [list(ml._modules), repr(ml)]
    del ml[0]
    out += [[getattr(m, "i", None) for m in ml]]
    ml[0] = nn.Sequential()
    out += [type(ml.pop(0)).__name__, len(ml), len(ml + ml), [n for n, _ in ml.named_modules()]]
    for bad in (lambda: ml[9], lambda: ml.extend(3)):
        try:
            bad()
        except Exception as e:  # noqa: BLE001
            out.append((type(e).__name__, str(e)))
    return out


@case
def module_dict(lib):
    nn = lib.nn
    ls = _leaves(lib, 3)
    md = nn.ModuleDict({"b": ls[0], "a": ls[1]})
    md["c"] = ls[2]
    md.update([("d", nn.Sequential())])
    out = [list(md), list(md.keys()), [type(v).__name__ for v in md.values()], "a" in md, len(md), repr(md)]
    del md["b"]
    out += [list(md), type(md.pop("d")).__name__, list(md.items())[0][0]]
    for bad in (lambda: md.update(3), lambda: md.update([1]), lambda: md.update([(1, 2, 3)]), lambda: md["zz"]):
        try:
            bad()
        except Exception as e:  # noqa: BLE001
            out.append((type(e).__name__, str(e)))
    md.clear()
    return out, len(md)


@case
def parameter_list(lib):
    nn = lib.nn
    pl = nn.ParameterList([nn.Parameter(lib.ones(2, 3)), lib.zeros(4)])
    pl.append(lib.ones(1, dtype=lib.float64))
    pl.append("text")
    pl.extend([nn.Parameter(lib.ones(1), requires_grad=False)])
    out = [len(pl), [type(p).__name__ for p in pl], repr(pl), [n for n, _ in pl.named_parameters()],
           type(pl[1:3]).__name__, len(pl[1:3]), pl[-2].requires_grad, list(pl.state_dict())]
    pl[0] = lib.ones(5)
    out.append(type(pl[0]).__name__)
    for bad in (lambda: pl[10], lambda: pl.extend(lib.ones(2)), lambda: pl(1)):
        try:
            bad()
        except Exception as e:  # noqa: BLE001
            out.append((type(e).__name__, str(e)))
    return out


@case
def parameter_dict(lib):
    nn = lib.nn
    pd = nn.ParameterDict({"b": lib.ones(2), "a": nn.Parameter(lib.zeros(3, 1))})
    pd["c"] = lib.ones(1, dtype=lib.float64)
    pd.update([("d", "text")])
    out = [list(pd), list(pd.keys()), [type(v).__name__ for v in pd.values()], "a" in pd, len(pd), repr(pd),
           [n for n, _ in pd.named_parameters()], pd.get("zz", 5), list(reversed(pd))]
    out += [type(pd.pop("d")).__name__, list(pd), pd.popitem()[0], list(pd), list(pd.copy()),
            list(pd.fromkeys(["x", "y"], lib.ones(1))), pd.setdefault("q", lib.zeros(1)).shape]
    out += [list(pd | nn.ParameterDict({"z": lib.ones(1)}))]
    pd |= {"w": lib.ones(1)}
    out += [list(pd)]
    for bad in (lambda: pd[1], lambda: pd.update(3), lambda: pd.update([(1, 2, 3)]), lambda: pd(1)):
        try:
            bad()
        except Exception as e:  # noqa: BLE001
            out.append((type(e).__name__, str(e)))
    pd.clear()
    return out, len(pd)


@case
def deepcopy_module(lib):
    m = mlp(lib)
    m2 = copy.deepcopy(m)
    with lib.no_grad():
        m2.a.w.add_(1)
    return m.a.w, m2.a.w, type(m2.a.w).__name__, list(m2.state_dict()), m2.b[0].w is not m.b[0].w


@case
def pickle_module(lib):
    m = lib.nn.Sequential(lib.nn.ModuleList([lib.nn.ParameterList([lib.ones(2)])]))
    m2 = pickle.loads(pickle.dumps(m))
    return repr(m2), list(m2.state_dict().items())


@case
def training_loop(lib):
    """A few SGD steps on the custom module: the losses equal torch's."""
    m = mlp(lib)
    x = lib.tensor(arr(7, 4, 3))
    target = lib.tensor(arr(8, 4, 3))
    losses = []
    for _ in range(3):
        m.zero_grad()
        loss = ((m(x) - target) ** 2).mean()
        loss.backward()
        with lib.no_grad():
            for p in m.parameters():
                p -= 0.01 * p.grad
        losses.append(loss.item())
    return losses, list(m.state_dict().values())


# nn.utils --------------------------------------------------------------------------------------
def _with_grads(lib, *grads, dtype=None):
    ps = []
    for g in grads:
        p = lib.nn.Parameter(lib.zeros(len(g), dtype=dtype or lib.float64))
        p.grad = lib.tensor(g, dtype=dtype or lib.float64)
        ps.append(p)
    return ps


@case
def clip_grad_norm(lib):
    U = lib.nn.utils
    out = []
    for norm_type in (2.0, 1, float("inf"), 0.5, 3):
        ps = _with_grads(lib, [3.0, -4.0], [1.0, 2.0, -2.0])
        total = U.clip_grad_norm_(ps, 2.0, norm_type=norm_type)
        out.append((total, [p.grad for p in ps]))
    ps = _with_grads(lib, [0.1, 0.2])
    out.append((U.clip_grad_norm_(ps, 5.0), ps[0].grad))  # below max_norm: unchanged (up to the 1e-6)
    p = _with_grads(lib, [3.0, 4.0])[0]
    out.append((U.clip_grad_norm_(p, 1.0), p.grad))  # a single tensor
    q = lib.nn.Parameter(lib.ones(2))
    out.append(U.clip_grad_norm_([q], 1.0))  # no gradients: 0
    m = lib.nn.Module()
    m.a = lib.nn.Parameter(lib.ones(2, dtype=lib.float64))
    m.b = lib.nn.Parameter(lib.ones(3))
    (m.a.sum() * 10 + m.b.sum() * 5).backward()
    out.append((U.clip_grad_norm_(m.parameters(), 1.0), m.a.grad, m.b.grad))  # two dtypes
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out.append(U.clip_grad_norm_((p for p in []), 1.0))
        ps = _with_grads(lib, [3.0, 4.0])
        out.append(U.clip_grad_norm(ps, 1.0))
    out.append([(x.category.__name__, str(x.message)) for x in w])
    return out


@case
def clip_grad_norm_nonfinite(lib):
    ps = _with_grads(lib, [float("nan"), 1.0])
    out = [lib.nn.utils.clip_grad_norm_(ps, 1.0), ps[0].grad]
    ps = _with_grads(lib, [float("inf"), 1.0])
    out.append(run(lambda lib: lib.nn.utils.clip_grad_norm_(ps, 1.0, error_if_nonfinite=True), lib))
    out.append(run(lambda lib: lib.nn.utils.clip_grad_norm_(_with_grads(lib, [1.0]), 1.0, foreach=True), lib))
    out.append(lib.nn.utils.clip_grad_norm_(_with_grads(lib, [3.0, 4.0]), 1.0, foreach=False))
    return out


@case
def clip_grad_value(lib):
    U = lib.nn.utils
    ps = _with_grads(lib, [3.0, -4.0, 0.2], [1.0, -0.1])
    r = U.clip_grad_value_(ps, 0.5)
    p = _with_grads(lib, [2.0, -2.0])[0]
    U.clip_grad_value_(p, 1)
    return r, [q.grad for q in ps], p.grad, run(lambda lib: U.clip_grad_value_(ps, 1.0, foreach=True), lib)


@case
def parameters_vector(lib):
    U = lib.nn.utils
    m = mlp(lib)
    v = U.parameters_to_vector(m.parameters())
    out = [v.shape, v.grad_fn.name(), v]
    (v * lib.arange(v.numel(), dtype=v.dtype)).sum().backward()
    out.append([p.grad for p in m.parameters()])
    w = lib.nn.Parameter(lib.zeros(2, 3))
    b = lib.nn.Parameter(lib.zeros(4))
    vec = lib.arange(10.0)
    U.vector_to_parameters(vec, [w, b])
    vec.add_(1)  # the parameters' data are views of vec
    out += [w, b, type(w).__name__, w.requires_grad, run(lambda lib: U.vector_to_parameters([1.0], [w]), lib)]
    return out


def plain(value):
    """dtypes and devices as their strings (torchlite's and torch's objects never compare equal)."""
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return type(value)(plain(v) for v in value) if type(value) in (list, tuple) else tuple(plain(v) for v in value)
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if type(value).__name__ in ("dtype", "device"):
        return str(value)
    return value


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_torch(name):
    def fn(lib):
        return plain(CASES[name](lib))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = run(fn, torch)
        got = run(fn, torchlite)
    assert got == expected


def test_training_loop_exact():
    """float64: the losses agree to 1e-12 relative."""
    _, (lt, _) = run(CASES["training_loop"], torchlite), CASES["training_loop"](torchlite)
    tt, _ = CASES["training_loop"](torch)
    np.testing.assert_allclose(lt, tt, rtol=1e-12, atol=0)


def test_parameter_subclass_survives_apply():
    m = torchlite.nn.Module()
    m.w = torchlite.nn.Parameter(torchlite.ones(2))
    w = m.w
    m.double()
    assert m.w is w and isinstance(m.w, torchlite.nn.Parameter) and m.w.dtype == torchlite.float64
    assert type(m.w * 1) is torchlite.Tensor
