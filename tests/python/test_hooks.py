"""Tensor hooks, node pre/post hooks, post-accumulate-grad hooks and retain_grad."""
import pytest

import torchlite as torch


def test_tensor_hook_replaces_and_observes_and_removes():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    y = x * 3
    h1 = y.register_hook(lambda g: seen.append(g.tolist()))
    h2 = y.register_hook(lambda g: g * 10)
    y.sum().backward(retain_graph=True)
    assert seen == [[1.0, 1.0]] and x.grad.tolist() == [30.0, 30.0]
    h2.remove()
    h2.remove()  # idempotent
    h1.remove()
    x.grad = None
    y.sum().backward()
    assert seen == [[1.0, 1.0]] and x.grad.tolist() == [3.0, 3.0]


def test_leaf_hook_runs_before_accumulation():
    x = torch.tensor([1.0], requires_grad=True)
    x.register_hook(lambda g: g + 100)
    (x * 2).backward()
    assert x.grad.tolist() == [102.0]


def test_hook_errors():
    with pytest.raises(RuntimeError, match="cannot register a hook on a tensor that doesn't require gradient"):
        torch.ones(1).register_hook(lambda g: g)
    x = torch.ones(2, requires_grad=True)
    y = x * 1
    y.register_hook(lambda g: torch.ones(3))
    with pytest.raises(RuntimeError, match="has changed the size of value"):
        y.sum().backward()


def test_node_pre_and_post_hooks():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    calls = []

    def pre(grad_outputs):
        calls.append(("pre", grad_outputs[0].tolist()))
        return (grad_outputs[0] * 2,)

    def post(grad_inputs, grad_outputs):
        calls.append(("post", grad_inputs[0].tolist(), grad_outputs[0].tolist()))

    hp = y.grad_fn.register_prehook(pre)
    y.grad_fn.register_hook(post)
    y.sum().backward(retain_graph=True)
    assert calls == [("pre", [1.0, 1.0]), ("post", [2.0, 4.0], [2.0, 2.0])]
    assert x.grad.tolist() == [4.0, 8.0]
    hp.remove()
    x.grad = None
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 4.0]


def test_post_hook_replacing_grads_and_wrong_count():
    x = torch.tensor([1.0], requires_grad=True)
    y = x * 5
    # as in torch, x * 5 has two inputs: x and the wrapped number 5
    y.grad_fn.register_hook(lambda gi, go: (gi[0] * 0 + 7, gi[1]))
    y.backward()
    assert x.grad.tolist() == [7.0]
    z = x * 5
    z.grad_fn.register_hook(lambda gi, go: (gi[0],))
    with pytest.raises(RuntimeError, match="has returned an incorrect number of values \\(got 1, but expected 2\\)"):
        z.backward()


def test_post_accumulate_grad_hook():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    h = x.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.tolist()))
    (x * 3).sum().backward()
    (x * 3).sum().backward()
    assert seen == [[3.0, 3.0], [6.0, 6.0]]
    h.remove()
    (x * 3).sum().backward()
    assert len(seen) == 2
    with pytest.raises(RuntimeError, match="post accumulate grad hooks cannot be registered on non-leaf tensors"):
        (x * 1).register_post_accumulate_grad_hook(lambda t: None)


def test_retain_grad():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.retain_grad()
    z = (y * y).sum()
    z.backward()
    assert y.retains_grad and y.grad.tolist() == [4.0, 8.0]
    w = x * 2
    (w * w).sum().backward()
    with pytest.warns(UserWarning, match="is not a leaf Tensor is being accessed"):
        assert w.grad is None
    with pytest.raises(RuntimeError, match="can't retain_grad on Tensor that has requires_grad=False"):
        torch.ones(1).retain_grad()
