"""The engine's own introspection, against torch: _current_graph_task_id,
_current_autograd_node, _current_graph_task_execution_order (torch's
engine.cpp get_current_graph_task_execution_order), set_multithreading_enabled,
and the forward traceback anomaly mode stores in grad_fn.metadata."""
import warnings

import pytest
import torch as real_torch

import torchlite as torch

LIBS = [torch, real_torch]


def error_of(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - compared below
        return type(e), str(e)
    return None


@pytest.mark.parametrize("lib", LIBS)
def test_outside_a_backward(lib):
    assert lib._C._current_graph_task_id() == -1
    assert lib._C._current_autograd_node() is None


def test_execution_order_outside_a_backward_raises_like_torch():
    mine = error_of(torch._C._current_graph_task_execution_order)
    theirs = error_of(real_torch._C._current_graph_task_execution_order)
    assert mine == theirs and mine[0] is RuntimeError


def run_in_root_hook(lib, build, fn, multithreading=False, use_grad=False):
    """Builds the graph, registers `fn` as a pre-hook of every root's node and
    runs backward (or grad over the inputs); returns what the first call returned."""
    leaves, roots = build(lib)
    seen = []

    def hook(grad_outputs):
        if not seen:
            seen.append(error_of(fn) or fn())
    for r in roots:
        r.grad_fn.register_prehook(hook)
    with lib.autograd.set_multithreading_enabled(multithreading):
        if use_grad:
            lib.autograd.grad(roots, leaves, allow_unused=True)
        else:
            lib.autograd.backward(roots, [lib.ones_like(r) for r in roots])
    return seen[0]


def diamond(lib):
    x = lib.tensor([0.5, 1.5], requires_grad=True)
    u = x * 2
    return [x], [(u.sin() + u.exp()).sum()]


def two_leaves_shared(lib):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = lib.tensor([3.0, 4.0], requires_grad=True)
    y = a * b
    z = (y + a).exp() * b
    return [a, b], [z.sum()]


def two_roots(lib):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = lib.tensor([3.0, 4.0], requires_grad=True)
    p = (a * 3).sum()
    q = (a * b).tanh().sum()
    return [a, b], [p, q]


def partial(lib):
    """grad() w.r.t. one input of several: exec_info prunes the other branch."""
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = lib.tensor([3.0, 4.0], requires_grad=True)
    h = (a * 2).sin()
    out = (h * b.exp()).sum()
    return [h], [out]


def names(result):
    assert isinstance(result, list), result
    return [n.name() for n in result]


@pytest.mark.parametrize("build,use_grad", [(diamond, False), (two_leaves_shared, False), (two_roots, False),
                                            (partial, True), (two_leaves_shared, True)])
def test_execution_order_matches_torch(build, use_grad):
    def order(lib):
        return names(run_in_root_hook(lib, build, lib._C._current_graph_task_execution_order, use_grad=use_grad))
    mine = order(torch)
    assert mine == order(real_torch) and mine


def test_execution_order_is_the_order_the_engine_runs():
    x, (out,) = diamond(torch)
    ran = []
    stack, seen = [out.grad_fn], set()
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        fn.register_prehook(lambda g, fn=fn: ran.append(fn))
        stack.extend(f for f, _ in fn.next_functions)
    predicted = []
    out.grad_fn.register_prehook(lambda g: predicted.extend(torch._C._current_graph_task_execution_order())
                                 if not predicted else None)
    with torch.autograd.set_multithreading_enabled(False):
        out.backward()
    assert [n.name() for n in predicted] == [n.name() for n in ran]
    assert all(p is r for p, r in zip(predicted, ran, strict=True))


def test_execution_order_needs_multithreading_disabled_like_torch():
    mine = run_in_root_hook(torch, diamond, torch._C._current_graph_task_execution_order, multithreading=True)
    theirs = run_in_root_hook(real_torch, diamond, real_torch._C._current_graph_task_execution_order,
                              multithreading=True)
    assert mine == theirs and mine[0] is RuntimeError


def test_execution_order_after_the_first_node_raises_like_torch():
    def late(lib):
        x = lib.tensor([0.5, 1.5], requires_grad=True)
        u = x * 2
        y = u.sin() + u.exp()
        out = y.sum()
        seen = []
        y.register_hook(lambda g: seen.append(error_of(lib._C._current_graph_task_execution_order)))
        with lib.autograd.set_multithreading_enabled(False):
            out.backward()
        return seen[0]
    mine, theirs = late(torch), late(real_torch)
    assert mine[0] is theirs[0] is RuntimeError
    assert mine[1].startswith("it != dependencies.end() INTERNAL ASSERT FAILED")
    assert theirs[1].startswith("it != dependencies.end() INTERNAL ASSERT FAILED")


@pytest.mark.parametrize("lib", LIBS)
def test_set_multithreading_enabled_is_thread_local_state_restored(lib):
    assert lib._C._is_multithreading_enabled()
    with lib.autograd.set_multithreading_enabled(False):
        assert not lib._C._is_multithreading_enabled()
    assert lib._C._is_multithreading_enabled()
    lib.autograd.set_multithreading_enabled(False)
    assert not lib._C._is_multithreading_enabled()
    lib.autograd.set_multithreading_enabled(True)
    assert lib._C._is_multithreading_enabled()


def test_multithreading_disabled_runs_sim_nodes_on_the_calling_thread():
    x = torch.tensor([1.0, 2.0], requires_grad=True, device="sim:0")
    out = (x * x).sum()
    with torch.autograd.set_multithreading_enabled(False):
        with torch.autograd.trace() as t:
            out.backward()
    assert {e["thread_name"] for e in t.events} == {"user thread"}
    assert x.grad.tolist() == [2.0, 4.0]


@pytest.mark.parametrize("lib", LIBS)
def test_graph_task_id_and_current_node_inside_hooks(lib):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    y = (a * 2).sin()
    out = y.sum()
    seen = []

    def hook(g):
        seen.append((lib._C._current_graph_task_id(), lib._C._current_autograd_node()))
    y.register_hook(hook)
    y.grad_fn.register_hook(lambda gi, go: seen.append((lib._C._current_graph_task_id(),
                                                        lib._C._current_autograd_node())))
    out.backward(retain_graph=True)
    out.backward()
    (id1, node1), (id1b, node1b), (id2, node2), _ = seen
    # The tensor hook runs as a pre-hook of y's node; the post hook inside it too.
    assert node1 is y.grad_fn and node1b is y.grad_fn and node2 is y.grad_fn
    assert id1 == id1b >= 0 and id2 > id1
    assert lib._C._current_graph_task_id() == -1


@pytest.mark.parametrize("lib", LIBS)
def test_reentrant_backward_has_its_own_graph_task_id(lib):
    ids = []

    class Re(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            ids.append(lib._C._current_graph_task_id())
            with lib.enable_grad():
                b = lib.ones(2, requires_grad=True)
                c = b * 3
                c.register_hook(lambda gr: ids.append(lib._C._current_graph_task_id()))
                c.sum().backward()
            ids.append(lib._C._current_graph_task_id())
            return g
    x = lib.ones(2, requires_grad=True)
    Re.apply(x).sum().backward()
    outer, inner, back = ids
    assert inner != outer and back == outer


def test_anomaly_mode_stores_the_forward_traceback_like_torch():
    def tb(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with lib.autograd.detect_anomaly():
                a = lib.ones(2, requires_grad=True)
                y = a * 2  # the forward line the traceback ends at
        plain = (lib.ones(2, requires_grad=True) * 2).grad_fn.metadata
        return y.grad_fn.metadata, plain
    (mine, mine_plain), (theirs, theirs_plain) = tb(torch), tb(real_torch)
    assert list(mine) == list(theirs) == ["traceback_"]
    assert mine_plain == theirs_plain == {}
    assert isinstance(mine["traceback_"], list) and all(isinstance(s, str) for s in mine["traceback_"])
    # The same frame ends both: the line that ran the op.
    assert mine["traceback_"][-1] == theirs["traceback_"][-1]
    assert "y = a * 2" in mine["traceback_"][-1]


@pytest.mark.parametrize("lib", LIBS)
def test_current_autograd_node_inside_a_custom_backward_is_its_grad_fn(lib):
    seen = []

    class Double(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            seen.append(lib._C._current_autograd_node())
            return g * 2
    x = lib.ones(2, requires_grad=True)
    y = Double.apply(x)
    y.sum().backward()
    assert seen[0] is y.grad_fn and seen[0].name() == "DoubleBackward"
