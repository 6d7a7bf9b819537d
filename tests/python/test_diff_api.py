"""Differential tests of the autograd API against PyTorch: each program runs
under `torch` and `torchlite` and must return the same values, flags and node
names, or raise the same exception type with the same message.

Deliberate differences: torchlite names its own types, so "torchlite." in a
message or repr is compared as "torch." ("torchlite.float32", "torchlite.Size",
"[torchlite.FloatTensor [3]]").
"""
import warnings

import pytest

import torchlite

from diff_utils import import_torch, norm

torch = import_torch()


def outcome(prog, lib):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = ("ok", norm(prog(lib)))
        except Exception as err:  # noqa: BLE001 - compared between libraries
            result = ("raise", type(err).__name__, norm(str(err)))
    return result, [norm(str(w.message)) for w in caught if issubclass(w.category, UserWarning)]


def same(prog, compare_warnings=True):
    ref = outcome(prog, torch)
    lite = outcome(prog, torchlite)
    if not compare_warnings:
        ref, lite = (ref[0], []), (lite[0], [])
    assert lite == ref
    return ref


def leaf(lib, data=(1.0, 2.0, 3.0), **kw):
    return lib.tensor(list(data), requires_grad=True, **kw)


# retain_graph / backward twice -----------------------------------------------------

def test_backward_twice_error_message():
    def prog(lib):
        y = leaf(lib).exp().sum()
        y.backward()
        y.backward()
    assert same(prog)[0][0] == "raise"


def test_grad_twice_error_message():
    def prog(lib):
        x = leaf(lib)
        y = (x * x).sum()
        lib.autograd.grad(y, x)
        lib.autograd.grad(y, x)
    assert same(prog)[0][0] == "raise"


def test_retain_graph_allows_second_backward_and_accumulates():
    def prog(lib):
        x = leaf(lib)
        y = (x.sin() * x).sum()
        y.backward(retain_graph=True)
        first = x.grad.clone()
        y.backward()
        return first, x.grad
    assert same(prog)[0][0] == "ok"


def test_graph_without_saved_tensors_can_be_backwarded_twice():
    def prog(lib):
        x = leaf(lib)
        y = (x + 1 - 2).sum()
        y.backward()
        y.backward()
        return x.grad
    assert same(prog)[0][0] == "ok"


def test_create_graph_retains_graph_by_default_and_second_derivatives():
    def prog(lib):
        x = leaf(lib)
        y = (x ** 3 + x.sin() * x).sum()
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        (g2,) = lib.autograd.grad(g.sum(), x, create_graph=True)
        (g3,) = lib.autograd.grad(g2.sum(), x)
        y.backward()
        return g, g2, g3, x.grad, g.requires_grad, g.grad_fn is not None, g3.requires_grad
    assert same(prog)[0][0] == "ok"


def test_backward_create_graph_makes_grad_differentiable():
    def prog(lib):
        x = leaf(lib)
        (x * x * x).sum().backward(create_graph=True)
        gx = x.grad
        flags = (gx.requires_grad, gx.is_leaf)
        x.grad = None
        gx.sum().backward()
        return flags, x.grad
    # torch also warns about the reference cycle between x and x.grad (from its C++ engine)
    same(prog, compare_warnings=False)


def test_grad_outputs_and_lists():
    def prog(lib):
        x, w = leaf(lib), leaf(lib, (0.5, -1.0, 2.0))
        a, b = x * w, (x + w).exp()
        return lib.autograd.grad([a, b], [x, w], grad_outputs=[lib.tensor([1.0, 2.0, 3.0]), None and 1 or
                                                               lib.ones(3)])
    same(prog)


@pytest.mark.parametrize("case", range(10))
def test_grad_argument_errors(case):
    def prog(lib):
        x = leaf(lib)
        y = x * 2
        if case == 0:
            return lib.autograd.grad(y, x)  # implicit gradient for a non-scalar output
        if case == 1:
            return lib.autograd.grad(y, x, grad_outputs=lib.ones(2))
        if case == 2:
            return lib.autograd.grad(y.sum(), lib.ones(3))
        if case == 3:
            return lib.autograd.grad(lib.ones(3).sum(), x)
        if case == 4:
            return lib.autograd.grad(y.sum(), [x, leaf(lib)])
        if case == 5:
            return lib.autograd.grad(y.sum(), [x, leaf(lib)], allow_unused=True)
        if case == 6:
            return lib.autograd.grad(y.sum(), [x, leaf(lib)], materialize_grads=True)
        if case == 7:
            return lib.autograd.grad(y.sum(), [x, leaf(lib)], materialize_grads=True, allow_unused=False)
        if case == 8:
            return lib.autograd.grad(y, x, grad_outputs=lib.ones(3, dtype=lib.float64))
        return lib.autograd.grad(y.sum(), x, grad_outputs=lib.tensor(2.0))
    same(prog)


@pytest.mark.parametrize("case", range(11))
def test_backward_argument_errors(case):
    def prog(lib):
        x = leaf(lib)
        y = x * 2
        if case == 0:
            y.backward()
        elif case == 1:
            y.backward(lib.ones(4))
        elif case == 2:
            y.backward(lib.ones(1, 3))
        elif case == 3:
            lib.ones(3).sum().backward()
        elif case == 4:
            lib.autograd.backward([y.sum(), lib.ones(2).sum()])
        elif case == 5:
            y.backward(lib.ones(3), inputs=[])
        elif case == 6:
            y.backward(lib.ones(3, dtype=lib.float64))
        elif case == 7:
            lib.autograd.backward([y, y.sum()], [lib.ones(3)])
        elif case == 8:
            lib.autograd.backward([y.sum(), (x * x).sum()])
        elif case == 9:
            y.backward(lib.tensor([1, 2, 3]))
        else:
            y.backward(lib.ones(3), inputs=[lib.ones(2)])
        return x.grad
    same(prog)


def test_backward_inputs_restricts_accumulation():
    def prog(lib):
        x, w = leaf(lib), leaf(lib, (2.0, 3.0, 4.0))
        mid = x * w
        out = (mid * mid).sum()
        out.backward(inputs=[x], retain_graph=True)
        r1 = (x.grad, w.grad, mid.grad)
        out.backward(inputs=[mid, w], retain_graph=True)
        r2 = (x.grad, w.grad, mid.grad, mid.is_leaf)
        out.backward(inputs=x)
        unused = leaf(lib)
        (x * 2).sum().backward(inputs=[unused])
        return r1, r2, x.grad, unused.grad
    same(prog)


# requires_grad, leaves, .grad ------------------------------------------------------

@pytest.mark.parametrize("case", range(8))
def test_requires_grad_rules(case):
    def prog(lib):
        if case == 0:
            return lib.tensor([1, 2], requires_grad=True)
        if case == 1:
            return lib.tensor([1, 2]).requires_grad_()
        if case == 2:
            return lib.ones(2, dtype=lib.int64, requires_grad=True)
        if case == 3:
            t = lib.tensor([True, False])
            t.requires_grad = True
            return t
        if case == 4:
            y = leaf(lib) * 2
            y.requires_grad_(False)
            return y
        if case == 5:
            y = leaf(lib) * 2
            y.requires_grad = True  # a no-op on a tensor that already requires grad
            return y.requires_grad, y.is_leaf
        if case == 6:
            x = lib.ones(2)
            x.requires_grad_()
            y = x.detach()
            return x.requires_grad, x.is_leaf, y.requires_grad, y.is_leaf, (y * x).requires_grad
        return lib.tensor([1.0, 2.0]).requires_grad_(True).requires_grad_(False).requires_grad
    same(prog)


def test_leaf_grad_accumulates_and_resets():
    def prog(lib):
        x = leaf(lib)
        out = []
        for k in range(3):
            (x * (k + 1)).sum().backward()
            out.append(x.grad.clone())
        x.grad = None
        (x * x).sum().backward()
        out.append(x.grad)
        x.grad.zero_()
        (x * 3).sum().backward()
        out.append(x.grad)
        x.grad = lib.ones(3)
        (x * 2).sum().backward()
        out.append(x.grad)
        return out
    same(prog)


@pytest.mark.parametrize("case", range(4))
def test_grad_assignment_errors(case):
    def prog(lib):
        x = leaf(lib)
        if case == 0:
            x.grad = lib.ones(2)
        elif case == 1:
            x.grad = lib.ones(3, dtype=lib.float64)
        elif case == 2:
            x.grad = x
        else:
            x.grad = [1.0, 2.0, 3.0]
        return x.grad
    same(prog)


def test_non_leaf_grad_warns_and_retain_grad():
    def prog(lib):
        x = leaf(lib)
        y = x * 2
        z = y.exp()
        z.retain_grad()
        y.retain_grad()
        x.retain_grad()  # no-op on a leaf
        (z * 3).sum().backward()
        w = x * 5
        w.sum().backward()
        return y.grad, z.grad, x.grad, y.retains_grad, x.retains_grad, w.grad
    same(prog)


def test_non_leaf_grad_warning_message():
    def prog(lib):
        y = leaf(lib) * 2
        y.sum().backward()
        return y.grad
    result, warned = same(prog)
    assert warned


def test_retain_grad_non_leaf_accumulates():
    def prog(lib):
        x = leaf(lib)
        y = x * 2
        y.retain_grad()
        z = (y * y).sum()
        z.backward(retain_graph=True)
        z.backward()
        return y.grad, x.grad
    same(prog)


# in-place and version counter ---------------------------------------------------------

@pytest.mark.parametrize("case", [0, 3, 5, 6, 7])
def test_inplace_errors_and_versions(case):
    def prog(lib):
        x = leaf(lib)
        if case == 0:
            x.add_(1)
        elif case == 1:
            y = x.exp()
            y.add_(1)
            y.sum().backward()
        elif case == 2:
            y = x * 1
            z = y.sin()
            y.mul_(2)
            z.sum().backward()
        elif case == 3:
            with lib.no_grad():
                x.mul_(2)
            return x, x._version, x.requires_grad, x.grad_fn
        elif case == 4:
            y = x * x
            with lib.no_grad():
                x.add_(1)
            y.sum().backward()
        elif case == 5:
            y = x * 1
            versions = [y._version]
            y.add_(1)
            versions.append(y._version)
            y.mul_(lib.tensor([1.0, 2.0, 3.0]))
            versions.append(y._version)
            y.zero_()
            versions.append(y._version)
            y[0] = 5.0
            versions.append(y._version)
            return versions, y.grad_fn.name(), y
        elif case == 6:
            y = x * 1
            y.add_(x).mul_(3)
            y.sum().backward()
            return x.grad, y.grad_fn.name()
        else:
            d = x.detach()
            y = x.exp()
            d.zero_()
            return x, x._version, d._version
        return x.grad
    same(prog)


# hooks -------------------------------------------------------------------------------

def test_register_hook_replacement_and_remove():
    def prog(lib):
        x = leaf(lib)
        calls = []
        h1 = x.register_hook(lambda g: calls.append("h1") or g * 10)
        y = x * 2
        h2 = y.register_hook(lambda g: calls.append("h2") or g + 1)
        y.register_hook(lambda g: calls.append(("h3", g.tolist())))
        y.sum().backward(retain_graph=True)
        first = x.grad.clone()
        h1.remove()
        h2.remove()
        h1.remove()  # removing twice is harmless
        x.grad = None
        y.sum().backward()
        return calls, first, x.grad
    same(prog)


@pytest.mark.parametrize("case", range(5))
def test_hook_errors(case):
    def prog(lib):
        x = leaf(lib)
        if case == 0:
            lib.ones(2).register_hook(lambda g: g)
        elif case == 1:
            (x * 2).register_post_accumulate_grad_hook(lambda t: None)
        elif case == 2:
            x.register_hook(lambda g: lib.ones(2))
            (x * 2).sum().backward()
        elif case == 3:
            x.register_post_accumulate_grad_hook(lambda t: t)
            (x * 2).sum().backward()
        else:
            x.register_hook(lambda g: g.double())
            (x * 2).sum().backward()
        return x.grad
    same(prog)


def test_post_accumulate_grad_hook_sees_accumulated_grad():
    def prog(lib):
        x = leaf(lib)
        seen = []
        h = x.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.tolist()))
        (x * 2).sum().backward()
        (x * 3).sum().backward()
        h.remove()
        (x * 4).sum().backward()
        lib.autograd.grad((x * 5).sum(), x)  # grad() does not accumulate: no call
        return seen, x.grad
    same(prog)


def test_node_hooks_change_gradients():
    def prog(lib):
        x = leaf(lib)
        y = x * x
        y.grad_fn.register_prehook(lambda gs: (gs[0] * 2,))
        y.grad_fn.register_hook(lambda gi, go: (gi[0] + 1, gi[1]))
        y.sum().backward()
        return x.grad
    same(prog)


# graph structure ------------------------------------------------------------------------

def structure(t, depth=4):
    fn = t.grad_fn if hasattr(t, "grad_fn") else t
    if fn is None or depth == 0:
        return None
    return (fn.name().replace("torch::autograd::", ""),
            tuple((structure(f, depth - 1), i) for f, i in fn.next_functions))


@pytest.mark.parametrize("expr", [
    "x * w", "x * c", "c * x", "x * 2", "(x + w).exp().sum()", "x @ m", "(x - w) / c", "x.max(0)[0]",
    "lib.stack([x, w, c])", "lib.cat([x, c, x])", "lib.where(x > 0, x, c)", "x[1:] * w[:2]", "x.T.sum(0)",
    "(x * w).sin().mean()", "x.unsqueeze(0).expand(2, 3).sum()", "2 ** x - x ** 2", "x.relu() + w.abs()",
])
def test_next_functions_structure(expr):
    def prog(lib):
        x, w = leaf(lib), leaf(lib, (0.5, -1.0, 2.0))
        c, m = lib.tensor([1.0, 2.0, 4.0]), lib.ones(3, 2, requires_grad=True)
        y = eval(expr, {"lib": lib, "x": x, "w": w, "c": c, "m": m})  # noqa: S307 - fixed expressions
        return structure(y), y.is_leaf, y.requires_grad, y.grad_fn.metadata
    same(prog, compare_warnings=False)  # torch warns once per process about x.T on 1-D


# grad modes -------------------------------------------------------------------------------

def test_grad_mode_effects():
    def prog(lib):
        x = leaf(lib)
        out = {}
        with lib.no_grad():
            y = x * 2
            out["no_grad"] = (lib.is_grad_enabled(), y.requires_grad, y.grad_fn, y.is_leaf)
            with lib.enable_grad():
                z = x * 2
                out["enable_inside"] = (lib.is_grad_enabled(), z.requires_grad, z.grad_fn.name())
            out["after_enable"] = lib.is_grad_enabled()
        with lib.set_grad_enabled(False):
            out["set_false"] = ((x * 2).requires_grad, lib.is_grad_enabled())
        with lib.set_grad_enabled(True):
            out["set_true"] = (x * 2).requires_grad
        lib.set_grad_enabled(False)
        out["call_false"] = ((x * 2).requires_grad, lib.is_grad_enabled())
        lib.set_grad_enabled(True)
        with lib.inference_mode():
            out["inference"] = ((x * 2).requires_grad, lib.is_grad_enabled())
        with lib.inference_mode(False):
            out["inference_false"] = ((x * 2).requires_grad, lib.is_grad_enabled())

        @lib.no_grad()
        def f(t):
            return t * 2

        @lib.enable_grad()
        def g(t):
            return t * 2
        out["decorated"] = (f(x).requires_grad, lib.is_grad_enabled())
        with lib.no_grad():
            out["enable_decorated"] = g(x).requires_grad
        out["autograd_names"] = (lib.autograd.no_grad is lib.no_grad, lib.autograd.grad_mode.no_grad is lib.no_grad)
        try:
            with lib.no_grad():
                raise KeyError("inside")
        except KeyError:
            out["restored_after_error"] = lib.is_grad_enabled()
        with lib.no_grad():
            w = lib.ones(2, requires_grad=True)
            out["factory_in_no_grad"] = (w.requires_grad, w.is_leaf, (w * 1).requires_grad)
        return out
    same(prog)


def test_backward_inside_no_grad_still_works():
    def prog(lib):
        x = leaf(lib)
        y = (x * x).sum()
        with lib.no_grad():
            y.backward()
        return x.grad
    same(prog)


# detach -------------------------------------------------------------------------------------

def test_detach_and_detach_():
    def prog(lib):
        x = leaf(lib)
        y = x * 2
        d = y.detach()
        flags = (d.requires_grad, d.is_leaf, d.grad_fn, d._version == y._version)
        d[0] = 10.0
        shared = y.detach().tolist()
        z = x * 3
        r = z.detach_()
        return flags, shared, r is z, z.requires_grad, z.is_leaf, z.grad_fn, x.detach().requires_grad
    same(prog)


def test_detach_inside_graph_blocks_gradient():
    def prog(lib):
        x = leaf(lib)
        y = x * x.detach() + x.detach().exp()
        y.sum().backward()
        return x.grad, y.grad_fn.name()
    same(prog)


def test_data_attribute():
    def prog(lib):
        x = leaf(lib)
        d = x.data
        return d.requires_grad, d.is_leaf, (x.data * 2).requires_grad
    same(prog)


@pytest.mark.parametrize("case", [1, 2, 4])
def test_inplace_modification_detected_at_backward(case):
    """The version-counter error: same type and same message."""
    def prog(lib):
        x = leaf(lib)
        if case == 1:
            y = x.exp()
            y.add_(1)
            y.sum().backward()
        elif case == 2:
            y = x * 1
            z = y.sin()
            y.mul_(2)
            z.sum().backward()
        else:
            y = x * x
            with lib.no_grad():
                x.add_(1)
            y.sum().backward()
    msgs = []
    for lib in (torch, torchlite):
        with pytest.raises(RuntimeError) as info:
            prog(lib)
        msgs.append(str(info.value).replace("torchlite", "torch"))
    assert msgs[0].startswith("one of the variables needed for gradient computation has been modified by an "
                              "inplace operation: [torch.FloatTensor [3]]")
    assert msgs[1] == msgs[0]
