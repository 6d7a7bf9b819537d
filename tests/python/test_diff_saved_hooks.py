"""Tensors packed by saved_tensors_hooks keep their place in the graph: the
tensor an unpack hook returns is given the saved tensor's grad_fn (or its
leaf's grad accumulator), as upstream's SavedVariable does, so create_graph
differentiates through the original history even when the hooks detach
(non-reentrant checkpoint). Side by side with torch 2.13 (issue 6, found by
the fuzzer: a silently wrong second derivative)."""
import numpy as np
import pytest
import torch

import torchlite
from diff_utils import norm

DATA = np.random.default_rng(0).standard_normal((3, 2)).round(3)


def second_order(lib, make):
    x = lib.tensor(DATA, requires_grad=True)
    y = make(lib, x)
    g, = lib.autograd.grad((y * y).sum(), x, create_graph=True)
    g.sum().backward()
    return [g, g.requires_grad, x.grad]


def checkpoint_non_reentrant(lib, x):
    return lib.utils.checkpoint.checkpoint(lambda t: (t * t).sin() * t, x, use_reentrant=False)


def detaching_hooks(lib, x):
    with lib.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: t):
        return (x * x).sin() * x.exp()


def copying_hooks(lib, x):
    with lib.autograd.graph.saved_tensors_hooks(lambda t: t.detach().numpy().copy(), lambda a: lib.tensor(a)):
        return (x * x).tanh() * x


def custom_function_with_hooks(lib, x):
    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            ctx.save_for_backward(t)
            return t ** 3

        @staticmethod
        def backward(ctx, g):
            t, = ctx.saved_tensors
            return 3 * t * t * g

    with lib.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: t):
        return Cube.apply(x * 1.5)


CASES = [checkpoint_non_reentrant, detaching_hooks, copying_hooks, custom_function_with_hooks]


@pytest.mark.parametrize("make", CASES, ids=[c.__name__ for c in CASES])
def test_second_order_as_torch(make):
    assert norm(second_order(torchlite, make)) == norm(second_order(torch, make))
