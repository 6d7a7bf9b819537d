"""torchlite.autograd.graph's Node, register_multi_grad_hook ("all" and "any"), increment_version,
disable_saved_tensors_hooks and save_on_cpu, against torch."""
import pytest

import torchlite

from diff_utils import import_torch, run

torch = import_torch()


def G(lib):
    return lib.autograd.graph

def all_mode_over_backward_calls(L):
    a = L.tensor([1.0, 2.0], requires_grad=True)
    b = L.tensor([3.0], requires_grad=True)
    log = []
    h = G(L).register_multi_grad_hook((a, b), lambda gs: log.append([None if g is None else g.tolist() for g in gs]))
    (a * 2).sum().backward()
    (a.sum() * b).sum().backward()
    h.remove()
    (a * b).sum().backward()
    return log
def any_mode(L):
    a = L.tensor([1.0, 2.0], requires_grad=True)
    b = L.tensor([3.0], requires_grad=True)
    log = []
    G(L).register_multi_grad_hook((a, b), lambda g: log.append(g.tolist()), mode="any")
    (a.sum() * b).sum().backward()
    (a * 3).sum().backward()
    return log
def mode_refused(L):
    G(L).register_multi_grad_hook((L.ones(1, requires_grad=True),), print, mode="some")
def node_isinstance(L):
    x = L.ones(2, requires_grad=True)
    node = (x * 2).grad_fn
    return (isinstance(node, G(L).Node), isinstance(node.next_functions[0][0], G(L).Node), isinstance(x, G(L).Node),
            issubclass(type(node), G(L).Node))
def custom_function_node_isinstance(L):
    class F(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2
        @staticmethod
        def backward(ctx, g):
            return g * 2
    x = L.ones(2, requires_grad=True)
    return isinstance(F.apply(x).grad_fn, G(L).Node)
def increment_version(L):
    x = L.ones(2, requires_grad=True)
    y = x * 1
    z = y.sin()
    v = y._version
    G(L).increment_version(y)
    G(L).increment_version([y, x])
    try:
        z.sum().backward()
    except RuntimeError as e:
        return v, y._version, str(e)[:60]
def disable_saved_tensors_hooks(L):
    with G(L).disable_saved_tensors_hooks("no hooks here"):
        with G(L).save_on_cpu():
            pass
def save_on_cpu_and_nested_disable(L):
    x = L.tensor([0.5, 1.5], requires_grad=True)
    with G(L).save_on_cpu():
        y = (x * x).sin()
    y.sum().backward()
    with G(L).disable_saved_tensors_hooks("a"):
        with G(L).disable_saved_tensors_hooks("b"):
            pass
        try:
            with G(L).saved_tensors_hooks(lambda t: t, lambda t: t):
                pass
        except RuntimeError as e:
            m = str(e)
    with G(L).saved_tensors_hooks(lambda t: t, lambda t: t):
        pass
    return x.grad, m
def all_mode_leaf_under_grad_refused(L):
    a = L.tensor([1.0, 2.0], requires_grad=True)
    b = L.tensor([3.0], requires_grad=True)
    G(L).register_multi_grad_hook((a, b), print)
    L.autograd.grad((a * b).sum(), b)
def all_mode_on_non_leaves_with_grad(L):
    a = L.tensor([1.0, 2.0], requires_grad=True)
    b = L.tensor([3.0], requires_grad=True)
    y, z = a * 2, b * 3
    log = []
    G(L).register_multi_grad_hook((y, z), lambda gs: log.append([None if g is None else g.tolist() for g in gs]))
    L.autograd.grad((y * z).sum(), a, retain_graph=True)
    (y.sum() + z.sum()).backward()
    return log


CASES = [all_mode_over_backward_calls,
         all_mode_on_non_leaves_with_grad,
         all_mode_leaf_under_grad_refused,
         any_mode,
         mode_refused,
         node_isinstance,
         custom_function_node_isinstance,
         increment_version,
         disable_saved_tensors_hooks,
         save_on_cpu_and_nested_disable]


@pytest.mark.parametrize("case", CASES, ids=[c.__name__ for c in CASES])
def test_graph_api_as_torch(case):
    assert run(case, torchlite) == run(case, torch)
