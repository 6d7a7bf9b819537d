"""autograd.Function's forms beyond forward(ctx, ...) / backward, against torch: setup_context
(forward without ctx
setup_context sees the inputs with defaults filled in and the output),
keyword arguments to forward, set_materialize_grads(False), vjp as backward's other name, and
needs_input_grad."""
import pytest

import torchlite

from diff_utils import import_torch, run

torch = import_torch()

def mk(L):
    class F(L.autograd.Function):
        @staticmethod
        def forward(x, k=2):
            return x * k
        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.k = inputs[1]
            ctx.n = len(inputs)
            ctx.save_for_backward(inputs[0], output)
        @staticmethod
        def backward(ctx, g):
            x, out = ctx.saved_tensors
            return g * ctx.k + 0 * out, None
    return F
def setup_context_with_defaults_and_keywords(L):
    F = mk(L)
    x = L.ones(2, requires_grad=True)
    y = F.apply(x)
    y.sum().backward()
    z = F.apply(x, k=3)
    z.sum().backward()
    return x.grad, y.grad_fn.name(), z
def keywords_reach_forward(L):
    class G(L.autograd.Function):
        @staticmethod
        def forward(ctx, x, k=2):
            return x * k
        @staticmethod
        def backward(ctx, g):
            return g * 2, None
    x = L.ones(2, requires_grad=True)
    return G.apply(x, k=3)
def set_materialize_grads_false_passes_none(L):
    class H(L.autograd.Function):
        generate_vmap_rule = False
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 1, x * 2
        @staticmethod
        def backward(ctx, g1, g2):
            return g2 * 2 if g1 is None else None  # g1 is None: not materialized
    x = L.ones(2, requires_grad=True)
    a, b = H.apply(x)
    b.sum().backward()
    return x.grad
def vjp_instead_of_backward(L):
    class V(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 3
        @staticmethod
        def vjp(ctx, g):
            return g * 3
    x = L.ones(2, requires_grad=True)
    V.apply(x).sum().backward()
    return x.grad
def both_backward_and_vjp_refused(L):
    class B(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 3
        @staticmethod
        def vjp(ctx, g):
            return g * 3
        @staticmethod
        def backward(ctx, g):
            return g * 3
    x = L.ones(2, requires_grad=True)
    B.apply(x).sum().backward()
def needs_input_grad(L):
    class N(L.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * y
        @staticmethod
        def backward(ctx, g):
            return ctx.needs_input_grad
    x = L.ones(2, requires_grad=True)
    y = L.ones(2)
    return N.apply(x, y).grad_fn is not None


CASES = [setup_context_with_defaults_and_keywords, keywords_reach_forward, set_materialize_grads_false_passes_none,
         vjp_instead_of_backward, both_backward_and_vjp_refused, needs_input_grad]


@pytest.mark.parametrize("case", CASES, ids=[c.__name__ for c in CASES])
def test_function_forms_as_torch(case):
    assert run(case, torchlite) == run(case, torch)
