"""Reference cycles through autograd state and Python's cycle collector.

Note [PyObject traversal] (csrc/autograd/python_variable.cpp): tensors and
custom Function ctx objects report the Python objects they hold from C++, so a
cycle through a graph (ctx.keep = output, a hook closure holding its tensor)
is freed by gc.collect(), as in torch; what the rest of a live graph still
uses is never freed early.
"""
import gc
import random
import threading
import weakref

import numpy as np
import pytest
import torch

import torchlite

N = 20


@pytest.fixture(autouse=True, scope="module")
def _frozen_heap():
    # Moves every object alive now out of the collector's reach, so that each
    # gc.collect() here looks at what the tests made only (fast with torch loaded).
    gc.collect()
    gc.freeze()
    yield
    gc.unfreeze()


def _keep_fn(T):
    class Keep(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            out = x * 2
            ctx.keep = out
            return out

        @staticmethod
        def backward(ctx, g):
            return g * 2
    return Keep


def _keep_saved_fn(T):
    class KeepSaved(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            out = x.exp()
            ctx.keep = out
            ctx.save_for_backward(out)
            return out

        @staticmethod
        def backward(ctx, g):
            (out,) = ctx.saved_tensors
            return g * out
    return KeepSaved


def _keep_two_fn(T):
    class KeepTwo(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            a, b = x * 2, x * 3
            ctx.keep = a
            return a, b

        @staticmethod
        def backward(ctx, ga, gb):
            return ga * 2 + gb * 3
    return KeepTwo


def _leaf(T):
    return T.tensor([1.0, 2.0, 3.0], requires_grad=True)


# Programs that make a cycle and return a weak reference into it. -------------

def ctx_keeps_output(T):
    return weakref.ref(_keep_fn(T).apply(_leaf(T)))


def ctx_keeps_output_grad_fn(T):
    return weakref.ref(_keep_fn(T).apply(_leaf(T)).grad_fn)


def ctx_keeps_and_saves_output(T):
    return weakref.ref(_keep_saved_fn(T).apply(_leaf(T)))


def ctx_keeps_one_of_two_outputs(T):
    a, _ = _keep_two_fn(T).apply(_leaf(T))
    return weakref.ref(a)


def ctx_keeps_output_in_container(T):
    out = _keep_fn(T).apply(_leaf(T))
    out.grad_fn.box = {"outs": [out]}
    return weakref.ref(out)


def ctx_keeps_output_of_longer_graph(T):
    x = _leaf(T)
    out = _keep_fn(T).apply((x * 3).sin())
    return weakref.ref(out)


def tensor_attribute_cycle(T):
    t = _leaf(T) * 2

    class Obj:
        pass
    obj = Obj()
    t.foo = obj
    obj.t = t
    return weakref.ref(t)


def leaf_hook_closure(T):
    t = _leaf(T)
    t.register_hook(lambda g: t and None)
    return weakref.ref(t)


def retain_grad_cycle(T):
    t = _leaf(T) * 2
    t.retain_grad()
    t.me = t
    return weakref.ref(t)


TORCH_FREES = [ctx_keeps_output, ctx_keeps_output_grad_fn, ctx_keeps_and_saves_output,
               ctx_keeps_one_of_two_outputs, ctx_keeps_output_in_container, ctx_keeps_output_of_longer_graph,
               tensor_attribute_cycle, leaf_hook_closure, retain_grad_cycle]


def _alive_after_collect(program, T, n=N):
    gc.collect()
    refs = [program(T) for _ in range(n)]
    gc.collect()
    return sum(r() is not None for r in refs)


def test_issue_case_frees_every_graph_as_torch_does():
    assert _alive_after_collect(ctx_keeps_output, torch, 100) == 0
    assert _alive_after_collect(ctx_keeps_output, torchlite, 100) == 0


@pytest.mark.parametrize("program", TORCH_FREES, ids=lambda p: p.__name__)
def test_cycle_freed_where_torch_frees_it(program):
    assert _alive_after_collect(program, torch) == 0
    assert _alive_after_collect(program, torchlite) == 0


def test_freed_graph_releases_its_memory():
    # The collected ctx, node, output and saved tensors all go: the input leaf
    # is referenced by nothing once its graph is freed.
    x = _leaf(torchlite)
    wx = weakref.ref(x)
    out = _keep_saved_fn(torchlite).apply(x)
    del x, out
    gc.collect()
    assert wx() is None


# Cycles torch leaks and torchlite frees: every reference in them is owned by
# the cycle alone, so freeing them is safe (checked by the tests below). ------

def grad_fn_hook_closure(T):
    t = _leaf(T) * 2
    t.grad_fn.register_hook(lambda grad_inputs, grad_outputs: t and None)
    return weakref.ref(t)


def grad_fn_prehook_closure(T):
    t = _leaf(T) * 2
    t.grad_fn.register_prehook(lambda grad_outputs: t and None)
    return weakref.ref(t)


def ctx_hook_closure(T):
    t = _keep_fn(T).apply(_leaf(T))
    del t.grad_fn.keep
    t.grad_fn.register_hook(lambda grad_inputs, grad_outputs: t and None)
    return weakref.ref(t)


def saved_tensor_hook_closure(T):
    box = []
    with T.autograd.graph.saved_tensors_hooks(lambda saved: box, lambda packed: packed[0]):
        y = _leaf(T).exp()
    box.append(y)
    return weakref.ref(y)


def saved_tensor_hook_closure_in_function(T):
    box = []
    with T.autograd.graph.saved_tensors_hooks(lambda saved: box, lambda packed: packed[0]):
        y = _keep_saved_fn(T).apply(_leaf(T))
    del y.grad_fn.keep
    box.append(y)
    return weakref.ref(y)


@pytest.mark.parametrize("program", [grad_fn_hook_closure, grad_fn_prehook_closure, ctx_hook_closure,
                                     saved_tensor_hook_closure, saved_tensor_hook_closure_in_function],
                         ids=lambda p: p.__name__)
def test_cycle_through_hooks_freed(program):
    assert _alive_after_collect(program, torchlite) == 0


def test_hook_handle_keeps_its_hook_reported_as_live():
    # While the handle lives it may still remove the hook: the function is
    # reachable from outside the cycle and stays.
    def make():
        t = _leaf(torchlite) * 2
        return weakref.ref(t), t.grad_fn.register_hook(lambda gi, go: t and None)
    wt, handle = make()
    gc.collect()
    assert wt() is not None
    del handle
    gc.collect()
    assert wt() is None


# Nothing still in use is freed early. ----------------------------------------

def test_graph_still_referenced_keeps_working_after_collect():
    for T in (torch, torchlite):
        x = _leaf(T)
        out = _keep_fn(T).apply(x)
        wout = weakref.ref(out)
        y = out * 3
        del out
        gc.collect()
        assert wout() is not None  # the ctx keeps it and the graph keeps the ctx
        y.sum().backward()
        assert x.grad.tolist() == [6.0, 6.0, 6.0]
        assert y.grad_fn.next_functions[0][0].keep.tolist() == [2.0, 4.0, 6.0]


def test_saved_output_still_unpacks_after_collect():
    x = _leaf(torchlite)
    out = _keep_saved_fn(torchlite).apply(x)
    y = out * 1
    del out
    gc.collect()
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp([1.0, 2.0, 3.0]), rtol=1e-6)


def test_leaf_hook_still_runs_when_graph_holds_the_leaf():
    # The leaf is reachable from the graph (AccumulateGrad), so its hook and
    # the closure's cycle stay.
    def make():
        x = _leaf(torchlite)
        x.register_hook(lambda g: (x, g * 10)[1])
        return weakref.ref(x), x * 2
    wx, y = make()
    gc.collect()
    assert wx() is not None
    y.sum().backward()
    assert wx().grad.tolist() == [20.0, 20.0, 20.0]
    del y
    gc.collect()
    assert wx() is None


def test_tensor_hook_on_shared_grad_fn_still_runs_after_collect():
    for T in (torch, torchlite):
        seen = []

        def make(x, seen=seen):
            t = x * 2
            t.register_hook(lambda g: (seen.append(t.shape), g + 1)[1])
            return weakref.ref(t), t * 3
        x = _leaf(T)
        wt, z = make(x)
        gc.collect()
        assert wt() is not None
        z.sum().backward()
        assert len(seen) == 1 and x.grad.tolist() == [8.0, 8.0, 8.0]


def test_grad_fn_hook_still_runs_when_node_is_shared():
    seen = []

    def make(x):
        t = x * 2
        t.grad_fn.register_prehook(lambda go: (seen.append(t.shape), None)[1])
        return weakref.ref(t), t * 3
    x = _leaf(torchlite)
    wt, z = make(x)
    gc.collect()
    assert wt() is not None
    z.sum().backward()
    assert len(seen) == 1 and x.grad.tolist() == [6.0, 6.0, 6.0]
    del z
    gc.collect()
    assert wt() is None  # once the graph is gone, the cycle is collected


def test_saved_tensor_hooks_still_unpack_after_collect():
    x = _leaf(torchlite)
    box = []
    with torchlite.autograd.graph.saved_tensors_hooks(lambda s: [s, box], lambda packed: packed[0]):
        y = x.exp()
    box.append(y)  # y -> its node -> packed -> box -> y
    z = y * 1
    del y
    gc.collect()
    z.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp([1.0, 2.0, 3.0]), rtol=1e-6)


def test_collect_during_backward():
    for T in (torch, torchlite):
        Keep = _keep_fn(T)

        class CollectingKeep(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                out = x * 2
                ctx.keep = out
                return out

            @staticmethod
            def backward(ctx, g):
                gc.collect()
                return g * 2
        x = _leaf(T)
        y = CollectingKeep.apply(Keep.apply(x))
        y.register_hook(lambda g: (gc.collect(), g)[1])
        y.sum().backward()  # the graph is referenced only by y and the running backward
        assert x.grad.tolist() == [4.0, 4.0, 4.0]
        del y
        gc.collect()
        assert x.grad.tolist() == [4.0, 4.0, 4.0]


def test_collect_after_backward_frees_graph():
    x = _leaf(torchlite)
    refs = []
    for _ in range(10):
        out = _keep_saved_fn(torchlite).apply(x)
        out.sum().backward()
        refs.append(weakref.ref(out))
        del out
    gc.collect()
    assert all(r() is None for r in refs)
    np.testing.assert_allclose(x.grad.numpy(), 10 * np.exp([1.0, 2.0, 3.0]), rtol=1e-5)


def test_collect_while_backward_runs_on_other_threads():
    x = _leaf(torchlite)
    errors = []

    def work():
        try:
            for _ in range(50):
                out = _keep_fn(torchlite).apply(x * 1)
                (out * out).sum().backward()
        except Exception as e:  # reported below
            errors.append(e)
    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    while any(t.is_alive() for t in threads):
        gc.collect()
    for t in threads:
        t.join()
    assert not errors
    assert x.grad.tolist() == [1200.0, 2400.0, 3600.0]


def _random_program(T, rng, values):
    """A random graph of ops, custom Functions keeping their outputs, hooks and
    retain_grad, with gc.collect() at random points; returns the leaves' grads."""
    Keep, KeepSaved = _keep_fn(T), _keep_saved_fn(T)
    leaves = [T.tensor(v, requires_grad=True) for v in values]
    pool = list(leaves)
    for _ in range(rng.randint(3, 12)):
        a = pool[rng.randrange(len(pool))]
        kind = rng.randrange(7)
        if kind == 0:
            t = Keep.apply(a)
        elif kind == 1:
            t = KeepSaved.apply(a.tanh())
        elif kind == 2:
            t = a * pool[rng.randrange(len(pool))]
        elif kind == 3:
            t = a.sin() + 1
            t.register_hook(lambda g, t=t: g * 2)
        elif kind == 4:
            t = a * 3
            t.retain_grad()
            t.cycle = t
        elif kind == 5:
            t = a.tanh().exp() * 0.5
            t.grad_fn.register_prehook(lambda go, t=t: None)
        else:
            t = a + 2
        pool.append(t)
        if rng.random() < 0.3:
            del pool[rng.randrange(len(leaves), len(pool))]
        if rng.random() < 0.4:
            gc.collect()
    loss = sum(t.sum() for t in pool[len(leaves):]) if len(pool) > len(leaves) else leaves[0].sum()
    del pool
    gc.collect()
    loss.backward()
    gc.collect()
    return [leaf.grad.tolist() if leaf.grad is not None else None for leaf in leaves]


@pytest.mark.parametrize("seed", range(100))
def test_random_graphs_under_collect_match_torch(seed):
    values = [[0.5, -1.0], [2.0, 0.25]]
    got = _random_program(torchlite, random.Random(seed), values)
    want = _random_program(torch, random.Random(seed), values)
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert (g is None) == (w is None)
        if g is not None:
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_collect_while_new_function_class_is_first_used():
    # The first apply of a new Function class makes pybind11 cache its type,
    # allocating there; a collection at that moment traverses ctx objects of
    # the half-cached class.
    threshold = gc.get_threshold()
    gc.set_threshold(1)
    try:
        for _ in range(20):
            x = _leaf(torchlite)
            out = _keep_saved_fn(torchlite).apply(x)
            out.sum().backward()
            assert x.grad.tolist() == pytest.approx(np.exp([1.0, 2.0, 3.0]).tolist(), rel=1e-6)
    finally:
        gc.set_threshold(*threshold)
