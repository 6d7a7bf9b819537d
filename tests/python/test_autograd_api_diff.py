"""The rest of issue 14's autograd API against torch: GradientEdges as grad()'s and
backward()'s outputs and inputs, allow_mutation_on_saved_tensors, gradcheck's fast mode,
inference tensors saved for backward, and the custom Function API's corners."""
import functools

import numpy as np
import pytest

import torchlite
from diff_utils import import_torch, run

torch = import_torch()

DEVICES = ["cpu", "sim:0"]


def dev_of(lib, dev):
    return "cpu" if lib is torch else dev


def same(case, dev="cpu"):
    """case(lib, dev) under both libraries, compared."""
    got = run(lambda lib: case(lib, dev_of(lib, dev)), torchlite)
    want = run(lambda lib: case(lib, dev_of(lib, dev)), torch)
    assert got == want


# GradientEdge as grad()'s and backward()'s inputs and outputs -------------------------------------

def _graph(lib, dev):
    x = lib.tensor([0.5, -1.0, 2.0], device=dev, requires_grad=True)
    y = x.exp()
    z = (y * y).sum()
    return x, y, z


def edge(lib, t):
    return lib.autograd.graph.get_gradient_edge(t)


GE_CASES = {
    "input_edge_of_an_intermediate": lambda lib, x, y, z: lib.autograd.grad(z, edge(lib, y)),
    "input_edge_list": lambda lib, x, y, z: lib.autograd.grad(z, [edge(lib, y), x]),
    "input_edge_of_a_leaf": lambda lib, x, y, z: lib.autograd.grad(z, [edge(lib, x)]),
    "input_edge_and_tensor_of_a_leaf": lambda lib, x, y, z: lib.autograd.grad(z, [edge(lib, x), x]),
    "output_edge_with_grad": lambda lib, x, y, z: lib.autograd.grad(edge(lib, y), x, lib.ones_like(y)),
    "output_edge_scalar_implicit": lambda lib, x, y, z: lib.autograd.grad(edge(lib, z), [edge(lib, y)]),
    "output_edge_not_scalar": lambda lib, x, y, z: lib.autograd.grad(edge(lib, y), [x]),
    "output_edge_shape_mismatch": lambda lib, x, y, z: lib.autograd.grad(edge(lib, z), [x], lib.ones_like(x)),
    "output_edge_int_grad": lambda lib, x, y, z: lib.autograd.grad(
        edge(lib, y), [x], lib.ones_like(x, dtype=lib.int64)),
    "output_edges_and_tensors": lambda lib, x, y, z: lib.autograd.grad(
        [edge(lib, y), z], [x], [lib.full_like(x, 2.0), None]),
    "create_graph_through_edge": lambda lib, x, y, z: lib.autograd.grad(
        lib.autograd.grad(z, edge(lib, y), create_graph=True)[0].sum(), x),
    "unused_edge": lambda lib, x, y, z: lib.autograd.grad(
        z, [edge(lib, x.detach().requires_grad_())]),
    "unused_edge_allowed": lambda lib, x, y, z: lib.autograd.grad(
        z, [edge(lib, x.detach().requires_grad_())], allow_unused=True),
    "unused_edge_materialized": lambda lib, x, y, z: lib.autograd.grad(
        z, [edge(lib, x.detach().requires_grad_())], materialize_grads=True),
    "edge_of_a_tensor": lambda lib, x, y, z: lib.autograd.grad(
        z, [lib.autograd.graph.GradientEdge(x, 0)]),
    "edge_of_a_number": lambda lib, x, y, z: lib.autograd.grad(
        lib.autograd.graph.GradientEdge(3, 0), [x], lib.ones_like(x)),
    "plain_tuple_input": lambda lib, x, y, z: lib.autograd.grad(z, [(y.grad_fn, 0)]),
    "int_input": lambda lib, x, y, z: lib.autograd.grad(z, [3]),
    "str_output_nr": lambda lib, x, y, z: lib.autograd.grad(z, [lib.autograd.graph.GradientEdge(y.grad_fn, "a")]),
    "backward_inputs_edge_of_a_leaf": lambda lib, x, y, z: (
        lib.autograd.backward(z, inputs=edge(lib, x)), x.grad)[1],
    "backward_inputs_edge_of_an_intermediate": lambda lib, x, y, z: (
        lib.autograd.backward(z, inputs=[edge(lib, y)]), x.grad, y.requires_grad),
    "backward_output_edge": lambda lib, x, y, z: (
        lib.autograd.backward(edge(lib, y), lib.ones_like(x)), x.grad)[1],
    "backward_output_edge_implicit": lambda lib, x, y, z: (
        lib.autograd.backward([edge(lib, z)]), x.grad)[1],
    "tensor_backward_inputs_edge": lambda lib, x, y, z: (z.backward(inputs=[edge(lib, x)]), x.grad)[1],
}


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("name", sorted(GE_CASES))
def test_gradient_edge_in_grad_and_backward(name, dev):
    def case(lib, d):
        x, y, z = _graph(lib, d)
        return GE_CASES[name](lib, x, y, z)
    same(case, dev)


def test_gradient_edge_gradient_equals_the_tensors():
    """get_gradient_edge(t) in grad() gives what t gives (torch's documented equivalence)."""
    x, y, z = _graph(torchlite, "cpu")
    (g_edge,) = torchlite.autograd.grad(z, edge(torchlite, y), retain_graph=True)
    (g_tensor,) = torchlite.autograd.grad(z, y)
    np.testing.assert_allclose(g_edge.numpy(), g_tensor.numpy(), rtol=0, atol=0)
    np.testing.assert_allclose(g_edge.numpy(), 2 * np.exp([0.5, -1.0, 2.0]), rtol=1e-6)


@pytest.mark.parametrize("dev", DEVICES)
def test_gradient_edge_of_a_multi_output_node_and_a_custom_function(dev):
    def case(lib, d):
        class Square(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(a)
                return a * a

            @staticmethod
            def backward(ctx, g):
                (a,) = ctx.saved_tensors
                return 2 * a * g

        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], device=d, requires_grad=True)
        a, b = x.unbind(0)
        s = Square.apply(b)
        out = (a * 3 + s).sum()
        e_b, e_s = edge(lib, b), edge(lib, s)
        return (e_b.output_nr, e_b.node.name(), e_s.node.name(),
                lib.autograd.grad(out, [e_b, e_s, edge(lib, a)], retain_graph=True),
                lib.autograd.grad(e_s, [x], lib.ones(2, device=d)),
                [(m.shape, str(m.dtype), m.is_nested_tensor) for m in e_b.node._input_metadata])
    same(case, dev)


@pytest.mark.parametrize("dev", DEVICES)
def test_unused_piece_of_unbind_and_split_gets_zeros_on_the_device(dev):
    def case(lib, d):
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], device=d, requires_grad=True)
        return (lib.autograd.grad((x.unbind(0)[1] * 3).sum(), [x]),
                lib.autograd.grad((x.split(1)[0] * 3).sum(), [x]))
    same(case, dev)


@pytest.mark.parametrize("dev", DEVICES)
def test_input_metadata_of_nodes(dev):
    def case(lib, d):
        x = lib.ones(2, 3, device=d, dtype=lib.float64, requires_grad=True)
        y = x.sum(0)
        leaf_edge = edge(lib, x)
        return [[(m.shape, str(m.dtype), m.device == x.device, m.is_nested_tensor, m.is_cpp_nested_tensor)
                 for m in n._input_metadata] for n in (y.grad_fn, leaf_edge.node, (y * 2).grad_fn)]
    same(case, dev)


def test_gradient_edge_output_nr_out_of_range_raises():
    """torch crashes on an output_nr the node has no input for; torchlite raises."""
    x, y, z = _graph(torchlite, "cpu")
    for nr in (1, -1, 7):
        with pytest.raises(RuntimeError, match=f"GradientEdge's output_nr {nr} is out of range for ExpBackward0, "
                                               "which has 1 inputs"):
            torchlite.autograd.grad(z, [torchlite.autograd.graph.GradientEdge(y.grad_fn, nr)], retain_graph=True)
        with pytest.raises(RuntimeError, match="out of range"):
            torchlite.autograd.grad(torchlite.autograd.graph.GradientEdge(y.grad_fn, nr), [x], torchlite.ones(3),
                                    retain_graph=True)


# Inference tensors saved for backward (SavedVariable's check, saved_variable.cpp) ---------------

def _setitem(t, key, value):
    t[key] = value
    return t


INFERENCE_CASES = {
    "index": lambda lib, x, inf: x[inf["idx"]],
    "index_tuple": lambda lib, x, inf: x[inf["idx"], 0],
    "index_second_dim": lambda lib, x, inf: x[:, inf["pair"]],
    "index_mask": lambda lib, x, inf: x[inf["mask"]],
    "index_0d_selects": lambda lib, x, inf: x[inf["i0"]],
    "index_0d_in_tuple": lambda lib, x, inf: x[inf["i0"], 1],
    "index_of_a_tensor_without_grad": lambda lib, x, inf: x.detach()[inf["idx"]],
    "index_under_no_grad": lambda lib, x, inf: lib.no_grad()(lambda: x[inf["idx"]])(),
    "setitem_self_requires_grad": lambda lib, x, inf: _setitem(x.clone(), inf["idx"], 1.0),
    "setitem_value_requires_grad": lambda lib, x, inf: _setitem(lib.zeros_like(x.detach()), inf["idx"],
                                                                lib.ones(2, 2, requires_grad=True)),
    "setitem_nothing_requires_grad": lambda lib, x, inf: _setitem(lib.zeros_like(x.detach()), inf["idx"], 1.0),
    "setitem_mask": lambda lib, x, inf: _setitem(x.clone(), inf["mask"], 0.0),
    "setitem_0d": lambda lib, x, inf: _setitem(x.clone(), inf["i0"], 0.0),
    "setitem_inference_value": lambda lib, x, inf: _setitem(x.clone(), lib.tensor([0, 2]), inf["values"]),
    "mul": lambda lib, x, inf: x * inf["ones"],
    "add": lambda lib, x, inf: x + inf["ones"],
    "index_select": lambda lib, x, inf: x.index_select(0, inf["idx"]),
    "gather": lambda lib, x, inf: x.gather(0, inf["idx"].view(2, 1).expand(2, 2)),
    "index_add_of_self_only": lambda lib, x, inf: x.index_add(0, inf["idx"], lib.ones(2, 2)),
    "index_add_of_source": lambda lib, x, inf: x.detach().index_add(0, inf["idx"], lib.ones(2, 2, requires_grad=True)),
    "where": lambda lib, x, inf: lib.where(inf["mask"].view(4, 1), x, inf["ones"]),
    "cat": lambda lib, x, inf: lib.cat([x, inf["ones"]]),
}


@pytest.mark.parametrize("name", sorted(INFERENCE_CASES))
def test_inference_tensor_saved_for_backward(name):
    def case(lib, d):
        x = lib.ones(4, 2, requires_grad=True)
        with lib.inference_mode():
            inf = {"idx": lib.tensor([0, 2]), "i0": lib.tensor(1), "pair": lib.tensor([1, 0]),
                   "mask": lib.tensor([True, False, True, False]), "ones": lib.ones(4, 2),
                   "values": lib.ones(2, 2)}
        out = INFERENCE_CASES[name](lib, x, inf)
        return out, type(out.grad_fn).__name__ if out.grad_fn is not None else None
    same(case)


# gradcheck's fast mode -------------------------------------------------------------------------

def _wrong_square(lib):
    class WrongSquare(lib.autograd.Function):
        """x * x with a backward 1.5 times too large."""

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * x * g
    return WrongSquare


def _detached_backward_square(lib):
    class DetachedSquare(lib.autograd.Function):
        """x * x with a right backward whose own graph misses x (wrong double backward)."""

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x.detach() * g
    return DetachedSquare


_FLOAT = r"-?\d+\.\d+(?:e-?\d+)?"


def _mask_projections(message):
    """Fast mode's projected v^T J u from torch's random vectors and torchlite's differ (the two
    generators differ): the two numbers are compared as their ratio, the rest as text."""
    import re
    m = re.match(rf"(Jacobian mismatch for output 0 with respect to input 0,\nnumerical:)({_FLOAT})\n"
                 rf"analytical:({_FLOAT})\n", message)
    if m is None:
        return message, None
    n, a = float(m.group(2)), float(m.group(3))
    return m.group(1) + "<n>\nanalytical:<a>\n" + message[m.end():], round(n / a, 6) if a else (n != 0, a)


@pytest.mark.parametrize("fast_mode", [False, True])
def test_gradcheck_catches_a_wrong_backward_as_torch(fast_mode):
    def case(lib, d):
        x = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
        try:
            lib.autograd.gradcheck(_wrong_square(lib).apply, (x,), fast_mode=fast_mode)
        except RuntimeError as e:
            return type(e).__name__, _mask_projections(str(e).replace("torchlite", "torch"))
        return "passed"
    got, want = run(lambda lib: case(lib, "cpu"), torchlite), run(lambda lib: case(lib, "cpu"), torch)
    assert got == want
    assert got[1][0] == "GradcheckError"
    if fast_mode:  # numerical / analytical = 2x / 3x along any projection
        assert got[1][1][1] == round(2 / 3, 6)
        assert "The max per-element difference (slow mode) is: 1.99999" in got[1][1][0]


@pytest.mark.parametrize("fast_mode", [False, True])
def test_gradcheck_raise_exception_false_returns_false(fast_mode):
    def case(lib, d):
        x = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
        return (lib.autograd.gradcheck(_wrong_square(lib).apply, (x,), fast_mode=fast_mode, raise_exception=False),
                lib.autograd.gradgradcheck(_detached_backward_square(lib).apply, (x,), fast_mode=fast_mode,
                                           raise_exception=False))
    same(case)


@pytest.mark.parametrize("fast_mode", [False, True])
def test_gradgradcheck_catches_a_wrong_double_backward_as_torch(fast_mode):
    def case(lib, d):
        x = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
        g = lib.tensor([1.0, 0.5, -2.0], dtype=lib.float64, requires_grad=True)
        try:
            lib.autograd.gradgradcheck(_detached_backward_square(lib).apply, (x,), (g,), fast_mode=fast_mode)
        except RuntimeError as e:
            return type(e).__name__, _mask_projections(str(e).replace("torchlite", "torch"))
        return "passed"
    got, want = run(lambda lib: case(lib, "cpu"), torchlite), run(lambda lib: case(lib, "cpu"), torch)
    assert got == want and got[1][0] == "GradcheckError"


FAST_PASS_CASES = {
    "unary": (lambda lib, a, b: a.sin() * a.exp(), 1),
    "binary_broadcast": (lambda lib, a, b: a.view(3, 1) * b.view(1, 2) + a.view(3, 1), 2),
    "two_outputs": (lambda lib, a, b: (a.tanh(), (b * b).sum()), 2),
    "matmul": (lambda lib, a, b: a.view(3, 1) @ b.view(1, 2), 2),
    "non_float_output": (lambda lib, a, b: (a * 2, a.argmax()), 1),
    "reduction": (lambda lib, a, b: a.logsumexp(0), 1),
    "no_differentiable_output": (lambda lib, a, b: a.detach() * 2, 1),
}


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("name", sorted(FAST_PASS_CASES))
def test_fast_gradcheck_and_gradgradcheck_pass_right_gradients(name, dev):
    fn, n = FAST_PASS_CASES[name]

    def case(lib, d):
        a = lib.tensor([0.3, -0.7, 1.1], dtype=lib.float64, device=d, requires_grad=True)
        b = lib.tensor([0.9, -0.2], dtype=lib.float64, device=d, requires_grad=True)
        inputs = (a, b)[:n]
        f = lambda *args: fn(lib, *(args + (b,))[:2])  # noqa: E731
        checks = [lib.autograd.gradcheck(f, inputs, fast_mode=True)]
        if name != "no_differentiable_output":
            checks.append(lib.autograd.gradgradcheck(f, inputs, fast_mode=True))
        return checks
    same(case, dev)


def test_gradcheck_refuses_forward_ad_and_batched_checks():
    x = torchlite.tensor([0.5], dtype=torchlite.float64, requires_grad=True)
    for kw in ("check_forward_ad", "check_batched_grad"):
        with pytest.raises(NotImplementedError, match=f"gradcheck: {kw}=True needs forward-mode AD or vmap"):
            torchlite.autograd.gradcheck(lambda a: a * 2, (x,), **{kw: True})
    with pytest.raises(NotImplementedError, match="check_fwd_over_rev=True"):
        torchlite.autograd.gradgradcheck(lambda a: a * a, (x,), check_fwd_over_rev=True)
    # the argument checks torch makes first
    same(lambda lib, d: lib.autograd.gradcheck(lambda a: a * 2, (lib.tensor([0.5], dtype=lib.float64,
                                                                              requires_grad=True),),
                                               check_backward_ad=False, check_batched_grad=True))
    same(lambda lib, d: lib.autograd.gradgradcheck(lambda a: a * 2, (lib.tensor([0.5], dtype=lib.float64,
                                                                                  requires_grad=True),),
                                                   check_rev_over_rev=False))
    same(lambda lib, d: lib.autograd.gradcheck(lambda a: a * 2, (lib.tensor([0.5], dtype=lib.float64,
                                                                              requires_grad=True),),
                                               check_backward_ad=False, check_undefined_grad=False))


# allow_mutation_on_saved_tensors -----------------------------------------------------------------

def _amst(lib):
    return lib.autograd.graph.allow_mutation_on_saved_tensors


def _mutate_doc_example(lib, d):
    with _amst(lib)():
        a = lib.ones(2, 3, device=d, requires_grad=True)
        b = a.clone()
        out = (b ** 2).sum()
        b.sin_()
        out.sum().backward()
        return a.grad, b, b.grad_fn.name()


def _mutate_outside_the_context(lib, d):
    a = lib.ones(2, 3, device=d, requires_grad=True)
    b = a.clone()
    out = (b ** 2).sum()
    b.sin_()
    try:
        out.backward()
    except RuntimeError as e:  # the sim device's type name as the CPU's
        return str(e).replace("torchlite.", "torch.").replace("torch.sim.", "torch.")


def _backward_outside(lib, d):
    with _amst(lib)():
        a = lib.ones(2, 3, device=d, requires_grad=True)
        out = (a.clone() ** 2).sum()
    out.backward()


def _backward_in_another_context(lib, d):
    with _amst(lib)():
        a = lib.ones(2, 3, device=d, requires_grad=True)
        out = (a.clone() ** 2).sum()
    with _amst(lib)():
        out.backward()


def _nested(lib, d):
    with _amst(lib)():
        with _amst(lib)():
            pass


def _backward_after_refused_nesting(lib, d):
    with _amst(lib)():
        a = lib.ones(2, device=d, requires_grad=True)
        out = (a.clone() ** 2).sum()
        try:
            with _amst(lib)():
                pass
        except RuntimeError:
            pass
        out.backward()


def _mutations_through_views(lib, d):
    with _amst(lib)() as ctx:
        a = lib.tensor([1.0, 2.0, 3.0, 4.0], device=d, requires_grad=True)
        b = a * 1
        c = b.exp()          # saves its result c
        s = (b * b).sum()    # saves b (twice)
        b.view(2, 2).mul_(3)  # b written through a view
        c.add_(1)
        f = (c * b).sum()    # saves the written c and b
        b.zero_()
        b[0] = 5.0
        (s + f).backward()
        return a.grad, b, c, len(ctx.cloned), len(ctx.original)


def _mutations_under_no_grad(lib, d):
    with _amst(lib)():
        w = lib.tensor([0.5, -1.0], device=d, requires_grad=True)
        x = lib.tensor([2.0, 3.0], device=d, requires_grad=True)
        loss = ((w * x).tanh() * w).sum()
        with lib.no_grad():
            w.sub_(0.1 * lib.ones(2, device=d))
            x.copy_(lib.zeros(2, device=d))
            x.mul_(2)
        loss.backward()
        return w.grad, x.grad


def _setitem_fill_and_out(lib, d):
    with _amst(lib)():
        a = lib.tensor([1.0, 2.0, 3.0], device=d, requires_grad=True)
        b = a.clone()
        m = a.clone()
        out = (b.sin() * b).sum() + (m * m).sum()
        b[1] = 10.0
        b.fill_(2.0)
        with lib.no_grad():
            lib.add(m, 1, out=m)
            m.clamp_(0, 1)
        out.backward()
        return a.grad


def _context_state_cleared(lib, d):
    G = lib.autograd.graph
    with _amst(lib)() as ctx:
        a = lib.ones(2, device=d, requires_grad=True)
        (a.clone() ** 2).sum()
        during = (len(ctx.original), len(ctx.sid_to_tid), G._allow_mutation_on_saved_tensors_enabled)
    return during, len(ctx.original), len(ctx.sid_to_tid), G._allow_mutation_on_saved_tensors_enabled


def _unmutated_saved_tensor_is_the_original(lib, d):
    with _amst(lib)():
        a = lib.ones(2, device=d, requires_grad=True)
        b = a.clone()
        y = b * b
        return y.grad_fn._saved_self is b, y.grad_fn._saved_other.equal(b)


AMST_CASES = [_mutate_doc_example, _mutate_outside_the_context, _backward_outside, _backward_in_another_context,
              _nested, _backward_after_refused_nesting, _mutations_through_views, _mutations_under_no_grad,
              _setitem_fill_and_out, _context_state_cleared, _unmutated_saved_tensor_is_the_original]


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("fn", AMST_CASES, ids=lambda f: f.__name__)
def test_allow_mutation_on_saved_tensors(fn, dev):
    same(fn, dev)


def test_allow_mutation_gradients_equal_those_without_the_mutation():
    def grads(mutate):
        with torchlite.autograd.graph.allow_mutation_on_saved_tensors():
            a = torchlite.tensor([0.3, -1.2, 2.0], dtype=torchlite.float64, requires_grad=True)
            b = a.clone()
            out = (b.exp() * b.sin() + b ** 3).sum()
            if mutate:
                b.mul_(7)
                b.exp_()
            out.backward()
            return a.grad.numpy()
    np.testing.assert_allclose(grads(True), grads(False), rtol=1e-12, atol=1e-12)


# The custom Function API (torch/autograd/function.py) -----------------------------------------

def _fn(lib, forward, backward, setup_context=None, **attrs):
    body = {"forward": staticmethod(forward), "backward": staticmethod(backward), **attrs}
    if setup_context is not None:
        body["setup_context"] = staticmethod(setup_context)
    return type("F", (lib.autograd.Function,), body)


def _x(lib, d):
    return lib.tensor([1.0, -2.0, 3.0], device=d, requires_grad=True)


def _dirty_case(lib, d, mark, returned=True, under_no_grad=False, leaf=False):
    def forward(ctx, a, b):
        a.mul_(2)
        ctx.mark_dirty(*mark(a, b))
        return a if returned else a * 1

    F = _fn(lib, forward, lambda ctx, g: (g * 2, None))
    a = _x(lib, d) if leaf else _x(lib, d).clone()
    b = lib.ones(3, device=d)
    if under_no_grad:
        with lib.no_grad():
            out = F.apply(a, b)
    else:
        out = F.apply(a, b)
    res = (out is a, a._version, out.grad_fn.name() if out.grad_fn is not None else None)
    if out.requires_grad:
        out.sum().backward()
    return res


def _non_input_dirty(lib, d):
    def forward(ctx, a):
        o = a * 2
        ctx.mark_dirty(o)
        return o
    import warnings
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = _fn(lib, forward, lambda ctx, g: g * 2).apply(_x(lib, d))
    return out.grad_fn.name(), [str(m.message) for m in w]


def _needs_input_grad(lib, d):
    seen = []

    def forward(ctx, a, b, c):
        seen.append(ctx.needs_input_grad)
        return a * b

    def backward(ctx, g):
        seen.append(ctx.needs_input_grad)
        return g, g, None
    _fn(lib, forward, backward).apply(_x(lib, d), lib.ones(3, device=d), 3).sum().backward()
    return seen


def _materialize(lib, d, value):
    seen = []

    def forward(ctx, a):
        if value is not None:
            ctx.set_materialize_grads(value)
        return a.clone(), a.clone()

    def backward(ctx, g1, g2):
        seen.append((g1, g2))
        return g1 if g1 is not None else lib.zeros(3, device=d)
    x = _x(lib, d)
    _fn(lib, forward, backward).apply(x)[0].sum().backward()
    return seen, x.grad


def _non_differentiable(lib, d):
    seen = []

    def forward(ctx, a):
        idx, out, plain = a.argmax(), a * 2, a * 3
        ctx.mark_non_differentiable(idx, plain)
        return out, idx, plain

    def backward(ctx, g, gi, gp):
        seen.append((gi, gp))
        return g * 2
    x = _x(lib, d)
    out, idx, plain = _fn(lib, forward, backward).apply(x)
    out.sum().backward()
    return seen, idx.requires_grad, plain.requires_grad, plain.grad_fn, x.grad


def _once_differentiable(lib, d):
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a * a

    @lib.autograd.function.once_differentiable
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return 2 * a * g
    x = _x(lib, d)
    (g,) = lib.autograd.grad(_fn(lib, forward, backward).apply(x).sum(), x, create_graph=True)
    return g, g.requires_grad, g.grad_fn


def _save_for_forward(lib, d, bad):
    def forward(ctx, a):
        ctx.save_for_forward(a, 3) if bad else ctx.save_for_forward(a, None)
        return a * 2
    x = _x(lib, d)
    out = _fn(lib, forward, lambda ctx, g: g * 2).apply(x)
    return out.grad_fn.name(), len(out.grad_fn.saved_for_forward), out.grad_fn.saved_for_forward[0] is x


def _setup_context_and_vmap_flag(lib, d, flag):
    def forward(a, k=2.0):
        return a * k

    def setup_context(ctx, inputs, output):
        ctx.k = inputs[1]

    x = _x(lib, d)
    out = _fn(lib, forward, lambda ctx, g: (g * ctx.k, None), setup_context, generate_vmap_rule=flag).apply(x)
    out.sum().backward()
    return out, x.grad


def _default_jvp_and_vmap(lib, d):
    F = _fn(lib, lambda ctx, a: a * 2, lambda ctx, g: g * 2)
    return run(lambda lib: F.jvp(None, None), lib), run(lambda lib: F.vmap(None, None), lib)


FUNCTION_CASES = {
    "mark_dirty": lambda lib, d: _dirty_case(lib, d, lambda a, b: (a,)),
    "mark_dirty_twice": lambda lib, d: _dirty_case(lib, d, lambda a, b: (a, a)),
    "mark_dirty_under_no_grad": lambda lib, d: _dirty_case(lib, d, lambda a, b: (a,), under_no_grad=True),
    "mark_dirty_a_leaf": lambda lib, d: _dirty_case(lib, d, lambda a, b: (a,), leaf=True),
    "mark_dirty_not_a_tensor": lambda lib, d: _dirty_case(lib, d, lambda a, b: (a, 3)),
    "mark_dirty_not_returned": lambda lib, d: _dirty_case(lib, d, lambda a, b: (a, b)),
    "mark_dirty_not_returned_no_grad": lambda lib, d: _dirty_case(lib, d, lambda a, b: (a,), returned=False,
                                                                  under_no_grad=True),
    "mark_dirty_not_an_input": _non_input_dirty,
    "needs_input_grad": _needs_input_grad,
    "materialize_grads_default": lambda lib, d: _materialize(lib, d, None),
    "materialize_grads_false": lambda lib, d: _materialize(lib, d, False),
    "mark_non_differentiable": _non_differentiable,
    "once_differentiable": _once_differentiable,
    "save_for_forward": lambda lib, d: _save_for_forward(lib, d, False),
    "save_for_forward_not_a_tensor": lambda lib, d: _save_for_forward(lib, d, True),
    "setup_context_generate_vmap_rule_false": lambda lib, d: _setup_context_and_vmap_flag(lib, d, False),
    "setup_context_generate_vmap_rule_true": lambda lib, d: _setup_context_and_vmap_flag(lib, d, True),
    "default_jvp_and_vmap": _default_jvp_and_vmap,
}


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("name", sorted(FUNCTION_CASES))
def test_custom_function_api(name, dev):
    same(FUNCTION_CASES[name], dev)


# register_multi_grad_hook, disable_saved_tensors_hooks, save_on_cpu, is_grads_batched -------------

def _multi_grad_hook(lib, d, mode, how):
    a = lib.tensor([1.0, 2.0], device=d, requires_grad=True)
    b = lib.tensor([3.0], device=d, requires_grad=True)
    c = lib.tensor([4.0], device=d, requires_grad=True)
    seen = []
    handle = lib.autograd.graph.register_multi_grad_hook((a, b, c), seen.append, mode=mode)
    out = (a * 2).sum() + (b * 3).sum()
    if how == "grad":
        lib.autograd.grad(out, (a,))
    elif how == "backward_inputs":
        out.backward(inputs=[b])
    else:
        out.backward()
    handle.remove()
    (a * 2).sum().backward()  # removed: not called again
    return seen


def _disable_hooks_then_enter(lib, d):
    with lib.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
        with lib.autograd.graph.save_on_cpu():
            pass


def _disable_hooks_while_active(lib, d):
    with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        with lib.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
            pass


def _disable_hooks_nested_and_restored(lib, d):
    G = lib.autograd.graph
    with G.disable_saved_tensors_hooks("m1"):
        with G.disable_saved_tensors_hooks("m2"):
            pass
        first = run(lambda lib: G.saved_tensors_hooks(lambda t: t, lambda t: t).__enter__(), lib)
    with G.saved_tensors_hooks(lambda t: t, lambda t: t):  # allowed again
        x = lib.ones(2, device=d, requires_grad=True)
        (x * x).sum().backward()
    return first, x.grad


def _save_on_cpu(lib, d):
    x = lib.tensor([1.0, 2.0], device=d, requires_grad=True)
    with lib.autograd.graph.save_on_cpu(pin_memory=False):
        y = (x * x).exp().sum()
    y.backward()
    return x.grad, x.grad.device == x.device


def _grads_batched(lib, d, create_graph):
    x = lib.tensor([1.0, 2.0, 3.0], device=d, requires_grad=True)
    w = lib.tensor([1.0, 2.0], device=d, requires_grad=True)
    u = lib.tensor([1.0], device=d, requires_grad=True)
    y = x.sum() * w * x[:2]
    g = lib.autograd.grad(y, (x, w, u), lib.eye(2, device=d), is_grads_batched=True, allow_unused=True,
                          create_graph=create_graph)
    if create_graph:
        return g, lib.autograd.grad(g[0].sum() + g[1].sum(), (x, w))
    return g


MISC_CASES = {
    **{f"multi_grad_hook_{m}_{h}": functools.partial(_multi_grad_hook, mode=m, how=h)
       for m in ("all", "any") for h in ("backward", "grad", "backward_inputs")},
    "multi_grad_hook_bad_mode": lambda lib, d: lib.autograd.graph.register_multi_grad_hook(
        (lib.ones(1, requires_grad=True),), print, mode="some"),
    "disable_hooks_then_enter": _disable_hooks_then_enter,
    "disable_hooks_while_active": _disable_hooks_while_active,
    "disable_hooks_nested_and_restored": _disable_hooks_nested_and_restored,
    "save_on_cpu": _save_on_cpu,
    "is_grads_batched": lambda lib, d: _grads_batched(lib, d, False),
    "is_grads_batched_create_graph": lambda lib, d: _grads_batched(lib, d, True),
}


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("name", sorted(MISC_CASES))
def test_graph_utilities(name, dev):
    same(MISC_CASES[name], dev)
