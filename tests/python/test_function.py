"""Custom torchlite.autograd.Function: ctx API, checks on returned gradients,
errors from backward reaching the caller, reentrant backward."""
import numpy as np
import pytest

import torchlite as torch
from torchlite.autograd import Function


class Exp(Function):
    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * y


class ScaleBy(Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.k = k
        return x * k

    @staticmethod
    def backward(ctx, g):
        return g * ctx.k, None


def test_custom_function_gradient_and_node():
    x = torch.tensor([0.0, 1.0], requires_grad=True)
    y = Exp.apply(x)
    assert y.grad_fn.name() == "ExpBackward" and type(y.grad_fn).__name__ == "ExpBackward"
    assert repr(y).endswith("grad_fn=<ExpBackward>)")
    assert y.grad_fn.next_functions[0][0].name() == "torch::autograd::AccumulateGrad"
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp([0.0, 1.0]), rtol=1e-6)


def test_needs_input_grad_and_non_tensor_args():
    seen = {}

    class F(Function):
        @staticmethod
        def forward(ctx, a, b, k):
            seen["needs"] = ctx.needs_input_grad
            return a * b * k

        @staticmethod
        def backward(ctx, g):
            return g, None, None

    a = torch.ones(2, requires_grad=True)
    F.apply(a, torch.ones(2), 3).sum().backward()
    assert seen["needs"] == (True, False, False) and a.grad.tolist() == [1.0, 1.0]


def test_incorrect_number_of_gradients():
    class F(Function):
        @staticmethod
        def forward(ctx, a, b):
            return a + b

        @staticmethod
        def backward(ctx, g):
            return g

    a, b = torch.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"function FBackward returned an incorrect number of gradients "
                                           r"\(expected 2, got 1\)"):
        F.apply(a, b).sum().backward()


def test_wrong_gradient_shape():
    class F(Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return torch.ones(3)

    with pytest.raises(RuntimeError, match=r"Function FBackward returned an invalid gradient at index 0 - got "
                                           r"\[3\] but expected shape compatible with \[2\]"):
        F.apply(torch.ones(2, requires_grad=True)).sum().backward()


def test_python_error_in_backward_reaches_caller_and_engine_still_works():
    class Boom(Function):
        @staticmethod
        def forward(ctx, a):
            return a * 1

        @staticmethod
        def backward(ctx, g):
            raise KeyError("boom in backward")

    x = torch.ones(2, requires_grad=True)
    for _ in range(3):
        with pytest.raises(KeyError, match="boom in backward"):
            Boom.apply(x).sum().backward()
    y = torch.ones(2, requires_grad=True)
    (y * 3).sum().backward()
    assert y.grad.tolist() == [3.0, 3.0]


def test_error_from_tensor_hook_on_sim_device_thread_keeps_its_type():
    x = torch.tensor([1.0], device="sim:0", requires_grad=True)
    y = x * 2

    def hook(g):
        raise ZeroDivisionError("from a device thread")
    y.register_hook(hook)
    with pytest.raises(ZeroDivisionError, match="from a device thread"):
        y.backward()


def test_saved_tensors_freed_after_backward():
    x = torch.ones(2, requires_grad=True)
    y = Exp.apply(x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()


def test_saved_tensor_version_check():
    class F(Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * 2

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return g * a

    x = torch.ones(2, requires_grad=True)
    h = x * 1
    y = F.apply(h)
    h.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_mark_non_differentiable_and_materialize_grads():
    class Sort(Function):
        @staticmethod
        def forward(ctx, a):
            idx = torch.from_numpy(np.argsort(a.detach().numpy()))
            ctx.mark_non_differentiable(idx)
            ctx.set_materialize_grads(False)
            return a * 1, idx

        @staticmethod
        def backward(ctx, g, gidx):
            assert gidx is None
            return g

    x = torch.tensor([3.0, 1.0], requires_grad=True)
    out, idx = Sort.apply(x)
    assert out.requires_grad and not idx.requires_grad
    out.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


def test_materialized_zero_grad_for_unused_output():
    class Two(Function):
        @staticmethod
        def forward(ctx, a):
            return a * 1, a * 2

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 + 2 * g2

    x = torch.ones(2, requires_grad=True)
    a, b = Two.apply(x)
    a.sum().backward()  # b's gradient is materialized as zeros
    assert x.grad.tolist() == [1.0, 1.0]


def test_mark_dirty():
    class AddOneInplace(Function):
        @staticmethod
        def forward(ctx, a):
            a.add_(1)
            ctx.mark_dirty(a)
            return a

        @staticmethod
        def backward(ctx, g):
            return g

    x = torch.ones(2, requires_grad=True)
    h = x * 1
    out = AddOneInplace.apply(h)
    assert out is h and h.grad_fn.name() == "AddOneInplaceBackward"
    (out * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        AddOneInplace.apply(torch.ones(1, requires_grad=True))


class Reenter(Function):
    """Backward runs a nested backward of its own graph (as reentrant checkpointing does)."""

    @staticmethod
    def forward(ctx, x, depth):
        ctx.depth = depth
        ctx.save_for_backward(x)
        return x * 1

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        with torch.enable_grad():
            inner = x.detach().requires_grad_()
            out = (inner * 2).sum() if ctx.depth == 0 else Reenter.apply(inner, ctx.depth - 1).sum() * 2
            out.backward()
        return g * inner.grad, None


def test_reentrant_backward_100_deep():
    x = torch.ones(1, requires_grad=True)
    Reenter.apply(x, 99).sum().backward()
    # each level doubles: 2 ** 100 at the bottom
    assert x.grad.item() == 2.0 ** 100


def test_double_backward_through_custom_function():
    class Cube(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x * x

    x = torch.tensor([2.0], requires_grad=True)
    (g,) = torch.autograd.grad(Cube.apply(x), x, create_graph=True)
    (gg,) = torch.autograd.grad(g, x)
    assert g.item() == 12.0 and gg.item() == 12.0


def test_no_graph_under_no_grad():
    x = torch.ones(2, requires_grad=True)
    with torch.no_grad():
        y = ScaleBy.apply(x, 2.0)
    assert y.grad_fn is None and not y.requires_grad
