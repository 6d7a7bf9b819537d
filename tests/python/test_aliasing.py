"""Gradients that share memory with something the user holds are never
written in place, and create_graph=True gives every leaf its own .grad
(regressions found in review; the values are PyTorch's)."""
import warnings

import numpy as np

import torchlite as torch


def test_gradient_viewing_the_users_grad_output_is_not_accumulated_into():
    for view_first in (False, True):
        x = torch.ones(6, requires_grad=True)
        if view_first:
            a = x.view(2, 3)
            b = x * 2
        else:
            b = x * 2
            a = x.view(2, 3)
        g1, g2 = torch.ones(2, 3), torch.ones(6)
        torch.autograd.backward([a, b], [g1, g2])
        assert x.grad.tolist() == [3.0] * 6
        assert g1.tolist() == [[1.0] * 3] * 2


def test_array_kept_by_a_hook_is_not_changed_by_later_accumulation():
    for make in (lambda x: (x * 2).sum(), lambda x: (x * x).sum()):
        x = torch.ones(3, requires_grad=True)
        keep = []
        x.register_hook(lambda g, keep=keep: keep.append(g.numpy()))
        make(x).backward()
        first = keep[0].copy()
        (x * 3).sum().backward()
        np.testing.assert_array_equal(keep[0], first)
        np.testing.assert_array_equal(x.grad.numpy(), first + 3)


def test_create_graph_gives_each_leaf_its_own_grad():
    x, w = torch.ones(3, requires_grad=True), torch.ones(3, requires_grad=True)
    c = torch.full((3,), 2.0, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ((x + w) * c).sum().backward(create_graph=True)
    assert x.grad.grad_fn is not None and x.grad.grad_fn.name() == "torch::autograd::CopyBackwards"
    # .grad stays differentiable: w.grad = c, so d(sum(w.grad))/dc = 1.
    (gc,) = torch.autograd.grad(w.grad.sum(), c, retain_graph=True)
    assert gc.tolist() == [1.0, 1.0, 1.0]
    with torch.no_grad():
        x.grad.zero_()
    assert w.grad.tolist() == [2.0, 2.0, 2.0]
    (x.sum() + w.sum()).backward()
    assert x.grad.tolist() == [1.0, 1.0, 1.0] and w.grad.tolist() == [3.0, 3.0, 3.0]


def test_view_whose_base_changed_in_place_follows_the_base():
    # PyTorch's values: the view's grad_fn is regenerated over the base's new history.
    cases = ((lambda b: b.view(3), [2.0, 2.0, 2.0]), (lambda b: b[0:2], [2.0, 2.0, 0.0]),
             (lambda b: b.view(3)[1:], [0.0, 2.0, 2.0]))
    for make_view, expected in cases:
        a = torch.ones(3, requires_grad=True)
        b = a * 1
        v = make_view(b)
        b.mul_(2)
        assert v.grad_fn.name() == "AsStridedBackward0"
        v.sum().backward()
        assert a.grad.tolist() == expected
    a = torch.ones(3, requires_grad=True)
    b = a * 1
    v = b.view(3)
    with torch.no_grad():
        b.mul_(2)
    v.sum().backward()
    assert a.grad.tolist() == [1.0, 1.0, 1.0]  # as in PyTorch: the no_grad op is not differentiated
