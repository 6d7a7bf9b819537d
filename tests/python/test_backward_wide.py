"""The engine on wide graphs (many nodes ready at once), against torch: the ready queue orders
its tasks by slot numbers (engine.h's ReadyQueue), the InputBuffer sizes its stream slots only
for accelerator gradients, and StackBackward0 / MulBackward0 run their native formulas. What
a caller sees must be torch's: gradients, node names, saved fields, the order nodes run in
(hooks), retain_grad, create_graph and errors."""
import numpy as np
import pytest

import torchlite
from diff_utils import import_torch, norm, run

torch = import_torch()

DEVICES = ["cpu", "sim:0"]


def _dev(lib, device):
    return "cpu" if lib is torch else device


def _leaves(lib, n, device="cpu", dtype=None):
    dtype = dtype or lib.float32
    return [lib.tensor([float(i + 1)], dtype=dtype, device=_dev(lib, device), requires_grad=True) for i in range(n)]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("n", [1, 2, 7, 64, 300])
def test_wide_stack_grads(n, device):
    """stack([leaf * 2 ...]).sum(): every leaf's gradient, and the graph's node names."""
    def case(lib):
        leaves = _leaves(lib, n, device)
        out = lib.stack([leaf * 2 for leaf in leaves]).sum()
        names = [out.grad_fn.name(), out.grad_fn.next_functions[0][0].name(),
                 out.grad_fn.next_functions[0][0].next_functions[0][0].name()]
        out.backward()
        return names, [leaf.grad for leaf in leaves]
    assert run(case, torchlite) == run(case, torch)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_wide_stack_values_exact(dtype):
    """The native formulas' gradients, compared bit for bit (they are exact products)."""
    def grads(lib):
        dt = getattr(lib, dtype)
        leaves = [lib.tensor([0.1 * (i + 1), -3.0 * i], dtype=dt, requires_grad=True) for i in range(50)]
        (lib.stack([leaf * 2.5 for leaf in leaves], dim=1) * lib.arange(100, dtype=dt).reshape(2, 50)).sum().backward()
        return np.stack([leaf.grad.detach().numpy() for leaf in leaves])
    ours, theirs = grads(torchlite), grads(torch)
    assert ours.dtype == theirs.dtype
    np.testing.assert_array_equal(ours, theirs)


def test_execution_order_matches_torch():
    """The order nodes run in (a pre-hook on every node records its name and leaf index), for a
    wide graph whose nodes are all ready at once, and a lattice that mixes depths."""
    def case(lib):
        leaves = _leaves(lib, 40)
        order = []
        muls = [leaf * (i + 2) for i, leaf in enumerate(leaves)]
        mixed = [m + muls[(i + 3) % len(muls)] if i % 3 else m.exp() for i, m in enumerate(muls)]
        out = lib.stack(mixed).sum()
        seen = set()

        def register(fn, tag):
            if fn is None or fn in seen:
                return
            seen.add(fn)
            fn.register_prehook(lambda grads, tag=tag: order.append(tag) and None)
            for i, (nxt, _) in enumerate(fn.next_functions):
                register(nxt, f"{tag}/{i}:{nxt.name() if nxt is not None else None}")
        register(out.grad_fn, out.grad_fn.name())
        out.backward()
        return order, [leaf.grad for leaf in leaves]
    ours, theirs = run(case, torchlite), run(case, torch)
    assert ours[0] == "ok"
    assert ours == theirs


def test_execution_order_tensor_hooks_matches_torch():
    """Tensor hooks on the intermediate products fire in torch's order."""
    def case(lib):
        leaves = _leaves(lib, 30)
        order = []
        muls = []
        for i, leaf in enumerate(leaves):
            m = leaf * 3
            m.register_hook(lambda g, i=i: order.append(i) and None)
            muls.append(m)
        lib.stack(muls[::-1]).sum().backward()
        return order
    assert run(case, torchlite) == run(case, torch)


def test_saved_fields_and_retain_grad():
    def case(lib):
        leaves = _leaves(lib, 5)
        muls = [leaf * 2 for leaf in leaves]
        muls[2].retain_grad()
        s = lib.stack(muls, dim=0)
        fn = s.grad_fn
        mul_fn = muls[1].grad_fn
        (s * lib.arange(5.0).reshape(5, 1)).sum().backward()
        return (fn.name(), fn._saved_dim, mul_fn.name(), mul_fn._saved_other, mul_fn._saved_self,
                muls[2].grad, [leaf.grad for leaf in leaves])
    assert run(case, torchlite) == run(case, torch)


def test_double_backward_through_stack_and_mul():
    """create_graph: the formulas run as recorded ops, so the gradient differentiates again."""
    def case(lib):
        leaves = _leaves(lib, 6, dtype=lib.float64)
        out = (lib.stack([leaf * leaf * 2 for leaf in leaves]) ** 2).sum()
        grads = lib.autograd.grad(out, leaves, create_graph=True)
        names = [g.grad_fn.name() if g.grad_fn is not None else None for g in grads]
        total = sum(g.sum() for g in grads)
        second = lib.autograd.grad(total, leaves)
        return names, grads, second
    assert run(case, torchlite) == run(case, torch)


def test_gradcheck_stack_mul():
    leaves = [torchlite.randn(3, dtype=torchlite.float64, requires_grad=True) for _ in range(4)]

    def f(*xs):
        return torchlite.stack([x * 2.0 for x in xs], dim=1)
    assert torchlite.autograd.gradcheck(f, leaves)
    assert torchlite.autograd.gradgradcheck(f, leaves)


def test_accumulates_over_two_backwards():
    """A second backward adds into the .grad the first one stole."""
    def case(lib):
        leaves = _leaves(lib, 20)
        for _ in range(2):
            lib.stack([leaf * 2 for leaf in leaves]).sum().backward()
        return [leaf.grad for leaf in leaves]
    assert run(case, torchlite) == run(case, torch)


def test_backward_twice_error():
    def case(lib):
        leaves = _leaves(lib, 10)
        out = lib.stack([leaf * leaf for leaf in leaves]).sum()
        out.backward()
        out.backward()
    result = run(case, torchlite)
    assert result[0] == "raised"
    assert result == run(case, torch)


def test_error_in_one_node_leaves_engine_usable():
    """A hook that raises in the middle of a wide backward: torch's error, then the next backward
    (whose queue still held the failed task's other nodes) runs as usual."""
    def case(lib):
        leaves = _leaves(lib, 50)
        muls = [leaf * 2 for leaf in leaves]

        def boom(grad):
            raise ValueError("boom")
        muls[25].register_hook(boom)
        try:
            lib.stack(muls).sum().backward()
        except ValueError as err:
            first = str(err)
        for leaf in leaves:
            leaf.grad = None
        lib.stack([leaf * 3 for leaf in leaves]).sum().backward()
        return first, [leaf.grad for leaf in leaves]
    assert run(case, torchlite) == run(case, torch)


def test_reentrant_backward_inside_wide_graph():
    """A custom Function whose backward runs a backward of its own, among many ready nodes."""
    def case(lib):
        class Reentrant(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * 1.0

            @staticmethod
            def backward(ctx, grad):
                (x,) = ctx.saved_tensors
                with lib.enable_grad():
                    inner = x.detach().requires_grad_()
                    (lib.stack([inner * k for k in range(1, 6)]).sum()).backward()
                return grad * inner.grad
        leaves = _leaves(lib, 12)
        outs = [Reentrant.apply(leaf) if i % 4 == 0 else leaf * 2 for i, leaf in enumerate(leaves)]
        lib.stack(outs).sum().backward()
        return [leaf.grad for leaf in leaves]
    assert run(case, torchlite) == run(case, torch)


def test_threads_wide_backwards():
    """Backwards of wide graphs in several threads at once (each thread's own ready queue)."""
    import threading
    results = {}

    def work(k):
        leaves = _leaves(torchlite, 200)
        torchlite.stack([leaf * (k + 1) for leaf in leaves]).sum().backward()
        results[k] = [float(leaf.grad[0]) for leaf in leaves]
    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {k: [float(k + 1)] * 200 for k in range(4)}


def test_anomaly_mode_nan_in_wide_graph():
    def case(lib):
        leaves = _leaves(lib, 8)
        muls = [leaf * 2 for leaf in leaves]
        muls[3] = leaves[3] * float("nan")
        with lib.autograd.detect_anomaly():
            lib.stack(muls).sum().backward()
    with pytest.warns(UserWarning):
        ours = run(case, torchlite)
    with pytest.warns(UserWarning):
        theirs = run(case, torch)
    assert ours[0] == "raised"
    assert norm(ours) == norm(theirs)


def test_stolen_grad_is_a_plain_leaf_tensor():
    """The gradient AccumulateGrad takes over: no history, version 0, and later in-place updates
    (a second backward, an optimizer step) land in it as torch's."""
    def case(lib):
        leaves = _leaves(lib, 6)
        lib.stack([leaf * 2 for leaf in leaves]).sum().backward()
        g = leaves[0].grad
        facts = (g.requires_grad, g.grad_fn, g.is_leaf, g._version)
        lib.stack([leaf * 3 for leaf in leaves]).sum().backward()
        same = leaves[0].grad is g
        with lib.no_grad():
            leaves[1].grad.mul_(10)
        return facts, same, g._version, [leaf.grad for leaf in leaves]
    assert run(case, torchlite) == run(case, torch)


def test_grad_kept_elsewhere_is_not_taken_over():
    """A hook's result that the caller also keeps: .grad must not alias it (torch copies)."""
    def case(lib):
        leaves = _leaves(lib, 4)
        kept = []

        def hook(grad):
            out = grad * 5
            kept.append(out)
            return out
        leaves[2].register_hook(hook)
        lib.stack([leaf * 2 for leaf in leaves]).sum().backward()
        with lib.no_grad():
            leaves[2].grad.add_(1)
        return kept, [leaf.grad for leaf in leaves]
    assert run(case, torchlite) == run(case, torch)


def test_post_accumulate_hook_sees_grad():
    def case(lib):
        leaves = _leaves(lib, 5)
        seen = []
        for leaf in leaves:
            leaf.register_post_accumulate_grad_hook(lambda p: seen.append(p.grad.clone()))
        lib.stack([leaf * 2 for leaf in leaves]).sum().backward()
        return seen
    assert run(case, torchlite) == run(case, torch)
