"""What a backward leaves behind, against torch, on cpu and sim: after
autograd.grad(..., retain_graph=False) over part of a graph, a later
backward through the rest succeeds or raises "Trying to backward through the
graph a second time" according to which nodes the first pass ran and freed;
after a backward that fails midway (an error from a hook or a custom
Function), exactly the leaves whose AccumulateGrad ran before the error have
.grad. On sim the leaves live on the device, so the graph (and the order the
engine runs it in) is the CPU graph."""
import pytest
import torch

import torchlite
from diff_utils import norm

DEVICES = ["cpu", "sim:0"]


def _functions(mod):
    class Saves(mod.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 2

    class NoSave(mod.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.k = 2
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * ctx.k

    class Boom(mod.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            raise ValueError("boom")

    return Saves, NoSave, Boom


def _attempts(*calls):
    out = []
    for call in calls:
        try:
            result = call()
            out.append(("ok", result))
        except Exception as e:  # the type and message are compared with torch's
            out.append((type(e).__name__, str(e)))
    return out


# Each program returns (attempts, leaves); the leaves' .grad are compared.
def shared_subgraph(mod, a, b):
    h = a.exp()
    y, z = (h * 2).sum(), (h * b).sum()
    return _attempts(lambda: mod.autograd.grad(y, h), lambda: z.backward()), [a, b]


def grad_wrt_intermediate_then_whole_graph(mod, a, b):
    h = a.exp()
    y = h.sin().sum()
    return _attempts(lambda: mod.autograd.grad(y, h), lambda: y.backward()), [a, b]


def grad_wrt_leaf_then_intermediate(mod, a, b):
    h = a.exp()
    g = h.sin()
    y = g.cos().sum()
    return _attempts(lambda: mod.autograd.grad(y, a), lambda: mod.autograd.grad(y, g)), [a, b]


def nodes_without_saved_tensors_run_again(mod, a, b):
    # add, sub, neg and sum save no tensor: torch runs them again.
    y = (a + b).sum() + (a - b).neg().sum()
    return _attempts(lambda: mod.autograd.grad(y, a), lambda: y.backward()), [a, b]


def scalar_multiplication_is_freed(mod, a, b):
    # A multiplication by a Python number saves the number: freed by the first pass.
    y = ((a + b) * 2).sum()
    return _attempts(lambda: mod.autograd.grad(y, a), lambda: y.backward()), [a, b]


def unrun_branch_is_not_freed(mod, a, b):
    # grad() w.r.t. b skips a's exp branch, which a later backward may use.
    y = (a.exp() * b).sum() + (b * b).sum()
    h = a.exp()
    z = (h * b).sum()
    return _attempts(lambda: mod.autograd.grad(z, b), lambda: mod.autograd.grad(y, a),
                     lambda: z.backward()), [a, b]


def custom_function(kind):
    def program(mod, a, b):
        Saves, NoSave, _ = _functions(mod)
        fn = Saves if kind == "Saves" else NoSave
        h = fn.apply(a)
        y = (h * b).sum()
        return _attempts(lambda: mod.autograd.grad(y, h), lambda: y.backward(), lambda: y.backward()), [a, b]
    program.__name__ = f"custom_function_{kind}"
    return program


def hook_error_midway(mod, a, b):
    h = a * b

    def bad(g):
        raise ValueError("hook boom")

    h.register_hook(bad)
    y = (h + b * 2).sum()
    return _attempts(lambda: y.backward()), [a, b]


def function_error_midway(mod, a, b):
    _, _, Boom = _functions(mod)
    y = (Boom.apply(a.exp()) + b * b).sum() + a.sum()
    return _attempts(lambda: y.backward()), [a, b]


def function_error_after_some_leaves(mod, a, b):
    _, _, Boom = _functions(mod)
    y = (Boom.apply(a) * b).sum() + (b * 3).sum()
    return _attempts(lambda: y.backward()), [a, b]


PROGRAMS = [shared_subgraph, grad_wrt_intermediate_then_whole_graph, grad_wrt_leaf_then_intermediate,
            nodes_without_saved_tensors_run_again, scalar_multiplication_is_freed, unrun_branch_is_not_freed,
            custom_function("Saves"),
            custom_function("NoSave"), hook_error_midway, function_error_midway,
            function_error_after_some_leaves]


def _run(mod, program, device):
    a = mod.tensor([0.5, 1.0, 2.0], requires_grad=True, device=device)
    b = mod.tensor([3.0, -1.0, 0.25], requires_grad=True, device=device)
    attempts, leaves = program(mod, a, b)
    return norm(attempts), [None if t.grad is None else norm(t.grad) for t in leaves]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_partial_and_failed_backward_match_torch(program, device):
    assert _run(torchlite, program, device) == _run(torch, program, "cpu")
