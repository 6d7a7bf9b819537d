"""Differential tests of the engine's execution order against PyTorch.

The same graph is built under `torch` and `torchlite`; every node reachable
from the roots (AccumulateGrad included) gets a grad_fn pre-hook and a post
hook, every tensor a hook, and the sequence of calls must be the same. Nodes
are labelled by their position in a breadth-first walk of next_functions plus
their name, so equal sequences mean the same nodes ran in the same order.
"""
import numpy as np
import pytest

import torchlite

from diff_utils import import_torch

torch = import_torch()


def walk(roots):
    """Nodes reachable from the roots' grad_fns, breadth first, each with a stable label."""
    seen, order, queue = {}, [], [t.grad_fn for t in roots if t.grad_fn is not None]
    while queue:
        fn = queue.pop(0)
        if fn in seen:
            continue
        seen[fn] = f"{len(order)}:{fn.name().replace('torch::autograd::', '')}"
        order.append(fn)
        queue.extend(f for f, _ in fn.next_functions if f is not None)
    return order, seen


def instrument(roots, tensors, record):
    order, labels = walk(roots)
    for fn in order:
        label = labels[fn]
        fn.register_prehook(lambda grads, label=label: record.append("pre " + label))
        fn.register_hook(lambda gi, go, label=label: record.append("post " + label))
    for name, t in tensors.items():
        if t.requires_grad:
            t.register_hook(lambda g, name=name: record.append("hook " + name))
    return labels


def graphs():
    def chain(m, x, w):
        y = x
        for _ in range(4):
            y = (y * 1.5).sin()
        return [y.sum()], {"x": x, "y": y}

    def branches_same_leaf(m, x, w):
        a = x.exp().sum()
        b = x.sin().mul(2).sum()
        c = (x * x).mean()
        return [a + b + c], {"a": a, "b": b, "c": c}

    def branches_two_leaves(m, x, w):
        a = (x * 2).tanh().sum()
        b = (w * 3).sigmoid().sum()
        return [a * b], {"a": a, "b": b}

    def diamond(m, x, w):
        h = x * w
        left, right = h.exp(), h.cos().relu()
        return [(left + right).sum()], {"h": h, "left": left, "right": right}

    def shared_subexpression(m, x, w):
        s = (x @ w.T).tanh()
        p1 = s.sum()
        p2 = (s * s).exp().mean()
        p3 = s.abs().max()
        return [p1 + p2 * p3], {"s": s, "p1": p1, "p2": p2, "p3": p3}

    def uneven_paths(m, x, w):
        h = x.sigmoid()
        long = h
        for _ in range(5):
            long = long + 1
        return [(long * h).sum() + h.sum()], {"h": h, "long": long}

    def mlp(m, x, w):
        h = (x @ w.T).relu()
        out = (h @ w).sigmoid()
        return [((out - x) ** 2).mean()], {"h": h, "out": out}

    def views_and_combines(m, x, w):
        parts = [x[0], x[1:].sum(0), x.T[:, 2]]
        st = m.stack(parts)
        ct = m.cat([st, w[:2], w[None, 2]], 0)
        return [m.where(ct > 0, ct, ct * 0.1).sum()], {"st": st, "ct": ct}

    def multiple_roots(m, x, w):
        shared = x * w
        r1 = shared.exp().sum()
        r2 = (shared * 2).sin().sum()
        r3 = w.cos().sum()
        return [r1, r2, r3], {"shared": shared}

    def multiple_roots_reversed(m, x, w):
        roots, tensors = multiple_roots(m, x, w)
        return roots[::-1], tensors

    def nonscalar_roots(m, x, w):
        a = x.exp()
        b = (x * w).sum(1)
        return [a, b], {"a": a, "b": b}

    return {f.__name__: f for f in (chain, branches_same_leaf, branches_two_leaves, diamond, shared_subexpression,
                                     uneven_paths, mlp, views_and_combines, multiple_roots,
                                     multiple_roots_reversed, nonscalar_roots)}


GRAPHS = graphs()


def run(lib, build, how):
    rng = np.random.default_rng(11)
    x = lib.tensor(rng.normal(size=(3, 4)), requires_grad=True)
    w = lib.tensor(rng.normal(size=(3, 4)), requires_grad=True)
    roots, tensors = build(lib, x, w)
    tensors = dict(tensors, x=x, w=w)
    record = []
    instrument(roots, tensors, record)
    grads = [lib.ones_like(r) * (i + 1) for i, r in enumerate(roots)]
    if how == "backward":
        lib.autograd.backward(roots, grads)
        result = [x.grad, w.grad]
    elif how == "grad":
        result = list(lib.autograd.grad(roots, [x, w], grads, allow_unused=True))
    else:  # backward(inputs=...) on the first leaf only
        lib.autograd.backward(roots, grads, inputs=[x])
        result = [x.grad, w.grad]
    return record, [None if g is None else g.numpy().copy() for g in result]


@pytest.mark.parametrize("how", ["backward", "grad", "inputs"])
@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_execution_order_matches_torch(name, how):
    rec_t, res_t = run(torch, GRAPHS[name], how)
    rec_l, res_l = run(torchlite, GRAPHS[name], how)
    assert rec_l == rec_t
    for a, b in zip(res_l, res_t, strict=True):
        if b is None:
            assert a is None
        else:
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def test_tensor_hook_retain_grad_and_node_hook_interleaving():
    def prog(lib):
        rec = []
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        y.retain_grad()
        y.register_hook(lambda g: rec.append(("tensor hook", g.tolist())) or g * 2)
        y.grad_fn.register_prehook(lambda gs: rec.append(("prehook", gs[0].tolist())))
        y.grad_fn.register_hook(lambda gi, go: rec.append(("posthook", gi[0].tolist(), go[0].tolist())))
        x.register_hook(lambda g: rec.append(("leaf hook", g.tolist())))
        x.register_post_accumulate_grad_hook(lambda t: rec.append(("post acc", t.grad.tolist())))
        y.sum().backward()
        rec.append(("y.grad", y.grad.tolist()))
        rec.append(("x.grad", x.grad.tolist()))
        return rec
    assert prog(torchlite) == prog(torch)


def test_second_order_graph_runs_in_the_same_order_of_leaves():
    def prog(lib):
        rec = []
        x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
        w = lib.tensor([1.5, 0.25, -0.5], requires_grad=True)
        y = ((x * w).tanh() + (x.exp() * w)).sum()
        gx, gw = lib.autograd.grad(y, (x, w), create_graph=True)
        x.register_hook(lambda g: rec.append(("x", g.tolist())))
        w.register_hook(lambda g: rec.append(("w", g.tolist())))
        (gx.sum() + (gw * gw).sum()).backward()
        return rec, x.grad.tolist(), w.grad.tolist()
    rt, rl = prog(torch), prog(torchlite)
    assert [r[0] for r in rl[0]] == [r[0] for r in rt[0]]
    np.testing.assert_allclose(rl[1], rt[1], rtol=1e-6)
    np.testing.assert_allclose(rl[2], rt[2], rtol=1e-6)
