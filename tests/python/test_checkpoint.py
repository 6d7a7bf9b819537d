"""torchlite.utils.checkpoint, both variants, against plain autograd and torch."""
import warnings

import numpy as np
import pytest

import torchlite as torch
from torchlite.autograd.graph import saved_tensors_hooks
from torchlite.utils.checkpoint import checkpoint

from diff_utils import import_torch

rng = np.random.default_rng(2)
MODES = [True, False]


def make_params():
    arrays = [rng.normal(size=s) for s in ((3, 4), (4, 5), (5,), (5, 2))]
    return arrays


def mlp(x, w1, w2, b2, w3, scale):
    h = (x @ w1).tanh()
    h = (h @ w2 + b2).relu() * scale
    return (h @ w3).sigmoid(), h.sum(1)


def leaves(arrays, requires):
    return [torch.tensor(a, dtype=torch.float64, requires_grad=r) for a, r in zip(arrays, requires, strict=True)]


@pytest.mark.parametrize("use_reentrant", MODES)
def test_gradients_equal_plain_autograd(use_reentrant):
    arrays = [rng.normal(size=(2, 3))] + make_params()
    requires = [True, True, False, True, True]  # w2 does not require grad
    ref = leaves(arrays, requires)
    out, aux = mlp(*ref, 0.5)
    (out.sum() + (aux * aux).sum()).backward()

    ck = leaves(arrays, requires)
    out_c, aux_c = checkpoint(mlp, *ck, 0.5, use_reentrant=use_reentrant)
    np.testing.assert_allclose(out_c.detach().numpy(), out.detach().numpy())
    (out_c.sum() + (aux_c * aux_c).sum()).backward()
    for r, c in zip(ref, ck, strict=True):
        if r.requires_grad:
            np.testing.assert_allclose(c.grad.numpy(), r.grad.numpy(), rtol=1e-12)
        else:
            assert c.grad is None


@pytest.mark.parametrize("use_reentrant", MODES)
def test_forward_runs_again_in_backward(use_reentrant):
    calls = []

    def fn(x):
        calls.append(torch.is_grad_enabled())
        return x.exp() * x

    x = torch.tensor([0.5, 1.0], dtype=torch.float64, requires_grad=True)
    y = checkpoint(fn, x, use_reentrant=use_reentrant)
    assert len(calls) == 1
    y.sum().backward()
    assert len(calls) == 2
    # reentrant: forward without grad, recompute with grad; non-reentrant records both times
    assert calls == ([False, True] if use_reentrant else [True, True])
    np.testing.assert_allclose(x.grad.numpy(), np.exp([0.5, 1.0]) * (1 + np.array([0.5, 1.0])))


def test_reentrant_backward_runs_nested_in_the_outer_backward():
    depths = []

    def fn(x):
        y = x * 2
        if y.requires_grad:
            y.register_hook(lambda g: depths.append(torch._C._current_graph_task_depth()))
        return y

    x = torch.tensor([1.0], requires_grad=True)
    out = checkpoint(fn, x, use_reentrant=True)
    out.register_hook(lambda g: depths.append(torch._C._current_graph_task_depth()))
    out.sum().backward()
    # the outer graph's hook, then the recomputed graph's, one reentrant level deeper
    assert len(depths) == 2 and depths[1] == depths[0] + 1


def test_reentrant_grad_with_inputs_errors_like_torch():
    msg = ("When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or passing an "
           "`inputs` parameter to .backward(). To resolve this error, you can either set use_reentrant=False, "
           "or call .backward() without passing the `inputs` argument.")
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = checkpoint(torch.sin, x, use_reentrant=True).sum()
    with pytest.raises(RuntimeError) as info:
        torch.autograd.grad(y, [x])
    assert str(info.value) == msg
    y = checkpoint(torch.sin, x, use_reentrant=True).sum()
    with pytest.raises(RuntimeError, match="use_reentrant=True, torch.utils.checkpoint is incompatible"):
        y.backward(inputs=[x])
    # the engine still works afterwards
    checkpoint(torch.sin, x, use_reentrant=True).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos([1.0, 2.0]), rtol=1e-6)


def test_non_reentrant_works_with_grad_and_inputs():
    x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    w = torch.tensor([3.0, -1.0], dtype=torch.float64, requires_grad=True)
    y = checkpoint(lambda a: (a * w).sin(), x, use_reentrant=False).sum()
    (gx,) = torch.autograd.grad(y, [x], retain_graph=True)
    np.testing.assert_allclose(gx.numpy(), np.cos([3.0, -2.0]) * [3.0, -1.0])
    # a tensor used by fn but not passed to it gets its gradient too
    y.backward(inputs=[w])
    np.testing.assert_allclose(w.grad.numpy(), np.cos([3.0, -2.0]) * [1.0, 2.0])
    assert x.grad is None


def test_non_reentrant_keeps_placeholders_not_activations():
    packed = []
    x = torch.tensor([0.3, 0.7], dtype=torch.float64, requires_grad=True)
    y = checkpoint(lambda a: a.exp().sin().tanh(), x, use_reentrant=False)
    # every saved tensor of the three nodes became a placeholder
    node, names = y.grad_fn, []
    while node is not None:
        names.append(node.name())
        node = node.next_functions[0][0] if node.next_functions else None
    assert names[:3] == ["TanhBackward0", "SinBackward0", "ExpBackward0"]
    with saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
        z = x * 2
    assert len(packed) == 0 and z.grad_fn.name() == "MulBackward0"  # scalar mul saves nothing
    y.sum().backward()
    np.testing.assert_allclose(
        x.grad.numpy(),
        (1 - np.tanh(np.sin(np.exp([0.3, 0.7]))) ** 2) * np.cos(np.exp([0.3, 0.7])) * np.exp([0.3, 0.7]))


def test_non_reentrant_retain_graph_recomputes_each_backward():
    calls = []

    def fn(a):
        calls.append(1)
        return a.sin() * a

    x = torch.tensor([0.4], dtype=torch.float64, requires_grad=True)
    y = checkpoint(fn, x, use_reentrant=False).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert len(calls) == 3
    np.testing.assert_allclose(x.grad.numpy(), 2 * (np.cos(0.4) * 0.4 + np.sin(0.4)))


def test_reentrant_no_input_requires_grad_warns_like_torch():
    x = torch.tensor([1.0, 2.0])
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True. Gradients will be None"):
        y = checkpoint(torch.exp, x, use_reentrant=True)
    assert not y.requires_grad


def test_missing_use_reentrant_warns_and_defaults_to_reentrant():
    x = torch.tensor([1.0], requires_grad=True)
    with pytest.warns(UserWarning, match="the use_reentrant parameter should be passed explicitly"):
        y = checkpoint(torch.exp, x)
    assert y.grad_fn.name() == "CheckpointFunctionBackward"


def test_unexpected_kwargs_with_reentrant():
    with pytest.raises(ValueError, match="Unexpected keyword arguments: scale"):
        checkpoint(lambda a, scale: a * scale, torch.ones(1, requires_grad=True), use_reentrant=True, scale=2)
    out = checkpoint(lambda a, scale: a * scale, torch.ones(1, requires_grad=True), use_reentrant=False, scale=2)
    assert out.item() == 2


@pytest.mark.parametrize("use_reentrant", MODES)
def test_preserve_rng_state_replays_random_numbers(use_reentrant):
    def noisy(a):
        return a * torch.rand(3, dtype=torch.float64)

    torch.manual_seed(0)
    x = torch.ones(3, dtype=torch.float64, requires_grad=True)
    y = checkpoint(noisy, x, use_reentrant=use_reentrant)
    after_forward = torch.rand(1).item()
    y.sum().backward()
    # the gradient is the mask drawn in the forward, and the caller's RNG stream is untouched
    np.testing.assert_array_equal(x.grad.numpy(), y.detach().numpy())
    torch.manual_seed(0)
    torch.rand(3, dtype=torch.float64)
    assert torch.rand(1).item() == after_forward


def test_non_reentrant_detects_a_different_recomputation():
    state = {"n": 0}

    def fn(a):
        state["n"] += 1
        return a.exp() if state["n"] == 1 else a.exp().sin()

    x = torch.tensor([1.0], requires_grad=True)
    y = checkpoint(fn, x, use_reentrant=False, early_stop=False)
    with pytest.raises(RuntimeError, match="trying to save more tensors during recomputation"):
        y.sum().backward()


@pytest.mark.parametrize("use_reentrant", MODES)
def test_same_gradients_as_torch(use_reentrant):
    t = import_torch()
    arrays = [rng.normal(size=(2, 3))] + make_params()
    requires = [True, False, True, True, True]

    def run(lib, ck):
        ts = [lib.tensor(a, dtype=lib.float64, requires_grad=r) for a, r in zip(arrays, requires, strict=True)]
        out, aux = ck(mlp, *ts, 0.25, use_reentrant=use_reentrant)
        (out.sum() * 2 + aux.mean()).backward()
        return [None if x.grad is None else x.grad.detach().numpy() for x in ts], out.grad_fn.name()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, our_node = run(torch, checkpoint)
        theirs, their_node = run(t, t.utils.checkpoint.checkpoint)
    for a, b in zip(ours, theirs, strict=True):
        if b is None:
            assert a is None
        else:
            np.testing.assert_allclose(a, b, rtol=1e-10)
    assert our_node == their_node


def _unpack_twice_in_one_backward(lib):
    class Twice(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            x, = ctx.saved_tensors
            return g * 2

    x = lib.ones(3, requires_grad=True)
    y = lib.utils.checkpoint.checkpoint(lambda t: Twice.apply(t.sin()), x, use_reentrant=False)
    try:
        y.sum().backward()
    except RuntimeError as e:
        return type(e).__name__, str(e)
    return x.grad.tolist()


def test_non_reentrant_unpack_twice_in_one_backward_is_torchs_error():
    """A placeholder unpacks once per graph task, as torch's (handles keyed by
    _current_graph_task_id)."""
    real = import_torch()
    import torch.utils.checkpoint  # noqa: F401 - the checkpoint module the test's program uses
    import torchlite.utils.checkpoint  # noqa: F401
    ours, theirs = _unpack_twice_in_one_backward(torch), _unpack_twice_in_one_backward(real)
    assert ours[0] == "CheckpointError" and theirs[0] == "CheckpointError"
    assert ours[1] == theirs[1]


def test_non_reentrant_concurrent_backwards_each_recompute():
    """Backward passes from several threads through one checkpoint each get
    their own recomputation (one per graph task) and the right gradients."""
    import threading
    calls = []

    def fn(t):
        calls.append(1)
        return (t * t).exp()

    x = torch.tensor([0.1, 0.2, 0.3], dtype=torch.float64, requires_grad=True)
    y = checkpoint(fn, x, use_reentrant=False).sum()
    expected = (2 * x.detach() * (x.detach() * x.detach()).exp()).numpy()
    results, barrier = [], threading.Barrier(4)

    def run():
        barrier.wait()
        g, = torch.autograd.grad(y, x, retain_graph=True)
        results.append(g.numpy())

    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 4 and len(calls) == 1 + 4
    for r in results:
        np.testing.assert_allclose(r, expected, rtol=1e-12)
