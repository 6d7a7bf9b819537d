"""torchlite.autograd.legacy_engine, the 2018 pure-Python engine (seed 003):
same gradients as the C++ engine on varied graphs, its own execution order,
and use() routing Tensor.backward / autograd.backward to it."""
import numpy as np
import pytest

import torchlite as torch
from torchlite.autograd import legacy_engine


def leaves(*shapes, seed=0, device="cpu"):
    rng = np.random.default_rng(seed)
    return [torch.tensor(rng.standard_normal(s).astype(np.float64), device=device, requires_grad=True)
            for s in shapes]


def diamond(a, b):
    x = a * b
    return ((x.exp() + x.sin() * a) ** 2).sum()


def repeated_edges(a, b):
    return (a * a + a + a - b * a * b).sum()


def unused_branch(a, b):
    _ = (a * 3).exp()  # built, never backpropagated
    c, d = (a + b).split(2)  # d's slot of SplitBackward0 gets no gradient
    return c.tanh().sum() * 2


def second_output_only(a, b):
    _, d = (a + b).split(2)  # SplitBackward0 gets its one gradient in slot 1 (the 2018 code asserted slot 0)
    return d.exp().sum()


def views_and_inplace(a, b):
    y = a.clone()
    y[1:].mul_(b[1:])
    return (y.view(-1) * y.t().reshape(-1)).sum()


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale):
        ctx.save_for_backward(x)
        ctx.scale = scale
        return x * x * scale

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 2 * x * ctx.scale, None


class TwoOut(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y):
        return x * 2, x + y

    @staticmethod
    def backward(ctx, g1, g2):
        return g1 * 2 + g2, g2


def custom_functions(a, b):
    p, q = TwoOut.apply(a, b)
    return (Square.apply(p, 1.5) + q.sin()).sum()


def custom_one_output_used(a, b):
    p, _ = TwoOut.apply(a, b)
    return p.sum()


GRAPHS = [diamond, repeated_edges, unused_branch, second_output_only, views_and_inplace, custom_functions,
          custom_one_output_used]


def grads_with(engine_backward, graph, shapes=((4, 4), (4, 4)), device="cpu"):
    params = leaves(*shapes, device=device)
    engine_backward(graph(*params))
    return [p.grad.numpy(force=True).copy() if p.grad is not None else None for p in params]


def assert_same(got, expected):
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        assert (g is None) == (e is None)
        if e is not None:
            np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("graph", GRAPHS, ids=lambda g: g.__name__)
def test_same_gradients_as_the_cpp_engine(graph):
    expected = grads_with(lambda loss: loss.backward(), graph)
    assert_same(grads_with(legacy_engine.backward, graph), expected)


@pytest.mark.parametrize("graph", [diamond, custom_functions], ids=lambda g: g.__name__)
def test_same_gradients_on_a_sim_device(graph):
    expected = grads_with(lambda loss: loss.backward(), graph, device="sim:0")
    assert_same(grads_with(legacy_engine.backward, graph, device="sim:0"), expected)


def test_multiple_roots_and_non_scalar_roots_with_grad_tensors():
    def run(engine_backward):
        a, b = leaves((3, 2), (2,))
        y1 = a * b
        y2 = y1.exp() * 3  # y1 is a root and feeds the root y2
        y3 = b.sum()
        engine_backward([y1, y2, y3], [torch.full((3, 2), 0.5, dtype=torch.float64),
                                       torch.ones(3, 2, dtype=torch.float64), torch.tensor(2.0, dtype=torch.float64)])
        return [a.grad.numpy().copy(), b.grad.numpy().copy()]

    assert_same(run(legacy_engine.backward), run(torch.autograd.backward))


def test_a_leaf_as_root_accumulates_its_gradient():
    (a,) = leaves((3,))
    legacy_engine.backward(a, torch.full((3,), 2.0, dtype=torch.float64))
    legacy_engine.backward([a, a * 3], [torch.ones(3, dtype=torch.float64)] * 2)
    np.testing.assert_array_equal(a.grad.numpy(), [6.0, 6.0, 6.0])


def test_hooks_run_as_with_the_cpp_engine():
    def run(engine_backward):
        calls = []
        a, b = leaves((3,), (3,))
        a.register_hook(lambda g: calls.append("a") or g * 10)
        x = a * b
        x.retain_grad()
        x.register_hook(lambda g: calls.append("x") or g + 1)
        y = x.sin()
        y.grad_fn.register_prehook(lambda gi: calls.append("pre") or None)
        y.grad_fn.register_hook(lambda gi, go: calls.append("post") or (gi[0] * 2,))
        b.register_post_accumulate_grad_hook(lambda p: calls.append("acc"))
        engine_backward(y.sum())
        return calls, [a.grad.numpy().copy(), b.grad.numpy().copy(), x.grad.numpy().copy()]

    legacy_calls, legacy = run(legacy_engine.backward)
    cpp_calls, cpp = run(lambda loss: loss.backward())
    assert sorted(legacy_calls) == sorted(cpp_calls)
    assert_same(legacy, cpp)


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
def test_create_graph_gives_a_differentiable_gradient():
    def run(engine_backward):
        (a,) = leaves((3,))
        engine_backward((a ** 3).sum(), create_graph=True)
        (g2,) = torch.autograd.grad(a.grad.sum(), a)
        return [a.grad.detach().numpy().copy(), g2.numpy().copy()]

    assert_same(run(lambda loss, **kw: legacy_engine.backward(loss, **kw)), run(torch.autograd.backward))


def test_the_graph_is_freed_unless_retained():
    a, b = leaves((3,), (3,))
    loss = (a * b).exp().sum()
    legacy_engine.backward(loss, retain_graph=True)
    legacy_engine.backward(loss)
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        legacy_engine.backward(loss)


def test_argument_errors_are_backwards():
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad and does not have a grad_fn"):
        legacy_engine.backward(torch.ones(2), torch.ones(2))
    (a,) = leaves((3,))
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        legacy_engine.backward(a * 2)


def test_use_routes_tensor_backward_and_autograd_backward():
    def count_runs(fn):
        runs = []
        original = legacy_engine._engine.run_backward
        legacy_engine._engine.run_backward = lambda *args: runs.append(1) or original(*args)
        try:
            fn()
        finally:
            del legacy_engine._engine.run_backward
        return len(runs)

    a, b = leaves((3,), (3,))
    with legacy_engine.use():
        assert count_runs(lambda: diamond(a, b).backward()) == 1
        assert count_runs(lambda: torch.autograd.backward([diamond(a, b)])) == 1
        # grad() and backward(inputs=...) need exec_info: the C++ engine runs them.
        assert count_runs(lambda: torch.autograd.grad(diamond(a, b), a)) == 0
        assert count_runs(lambda: diamond(a, b).backward(inputs=[a])) == 0
    assert count_runs(lambda: diamond(a, b).backward()) == 0
    expected = grads_with(lambda loss: loss.backward(), diamond)
    with legacy_engine.use():
        assert_same(grads_with(lambda loss: loss.backward(), diamond), expected)


def test_use_restores_the_engine_after_an_error():
    engine = torch.autograd.Variable._execution_engine
    with pytest.raises(ZeroDivisionError):
        with legacy_engine.use():
            raise ZeroDivisionError
    assert torch.autograd.Variable._execution_engine is engine


def test_execution_order_is_the_ready_stacks():
    """The ready list is a stack: a node runs as soon as its last consumer
    ran and nothing pushed later is still waiting, which walks one branch to
    the bottom before the other; the C++ engine runs nodes by sequence_nr
    (latest created first). a*b -> MulBackward0 #0, then exp #1 and sin #2 of it."""
    a, b = leaves((2,), (2,))
    x = a * b
    loss = (x.exp() + x.sin()).sum()
    order = legacy_engine._engine.run_backward((loss,), (torch.tensor(1.0, dtype=torch.float64),))
    names = [n.name() for n in order]
    assert names == ["SumBackward0", "AddBackward0", "SinBackward0", "ExpBackward0", "MulBackward0",
                     "torch::autograd::AccumulateGrad", "torch::autograd::AccumulateGrad"]
    # AddBackward0 pushes ExpBackward0 then SinBackward0: the stack pops SinBackward0 first.
    assert order[4].next_functions[1][0] is order[5]  # b's accumulator popped before a's


def test_do_backward_checks_its_arguments():
    (a,) = leaves((3,))
    node = (a * 2).grad_fn
    with pytest.raises(ValueError, match="MulBackward0 expects 1 gradients, but got 2"):
        node._do_backward((None, None), False)
    with pytest.raises(TypeError, match="_do_backward expects Tensors or None, but got int"):
        node._do_backward((1,), False)
    g, other = node._do_backward((torch.ones(3, dtype=torch.float64),), True)
    np.testing.assert_array_equal(g.numpy(), [2.0, 2.0, 2.0])
    assert other is None  # the scalar 2 has no edge


def test_docs_example_orders_differ_as_documented():
    """docs/legacy_engine.md: two chains created interleaved. The 2018 stack
    runs b's whole branch first; the C++ engine (traced) interleaves them by
    sequence_nr."""
    def graph():
        a, b = leaves((2,), (2,))
        ea, eb = a.exp(), b.exp()
        sa, sb = ea.sin(), eb.sin()
        return a, b, (sa + sb).sum()

    def label(node_name, leaf=None):
        return node_name.split("::")[-1] + (f"({leaf})" if leaf else "")

    a, b, loss = graph()
    order = legacy_engine.ExecutionEngine().run_backward([loss], [torch.tensor(1.0, dtype=torch.float64)])
    legacy = [label(n.name(), {id(a): "a", id(b): "b"}.get(id(getattr(n, "variable", None)))) for n in order]
    assert legacy == ["SumBackward0", "AddBackward0", "SinBackward0", "ExpBackward0", "AccumulateGrad(b)",
                      "SinBackward0", "ExpBackward0", "AccumulateGrad(a)"]

    a, b, loss = graph()
    with torch.autograd.trace() as t:
        loss.backward()
    started = [e for e in t.events if e["kind"] == "task_start"]
    names = [label(e["node"]) for e in started]
    assert names == ["SumBackward0", "AddBackward0", "SinBackward0", "SinBackward0", "ExpBackward0",
                     "AccumulateGrad", "ExpBackward0", "AccumulateGrad"]
    # The C++ engine pops by sequence_nr: b's sin (created last) before a's, then b's exp.
    sin_seqs = [e["sequence_nr"] for e in started if e["node"] == "SinBackward0"]
    assert sin_seqs[0] > sin_seqs[1]
