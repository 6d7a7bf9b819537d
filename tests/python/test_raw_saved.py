"""grad_fn._raw_saved_<field> (upstream's SavedTensor) and its register_hooks, against torch:
the names dir() lists, packing at registration and unpacking wherever the saved tensor is read
(backward, create_graph, grad_fn._saved_*), and torch's errors."""
import pytest

import torchlite

from diff_utils import import_torch, run

torch = import_torch()


def saved_names(node):
    return [n for n in dir(node) if "saved" in n]


def names_in_dir(lib):
    x = lib.ones(3, requires_grad=True)
    return (saved_names(x.exp().grad_fn), saved_names((x * x).grad_fn), saved_names(x.sum().grad_fn),
            saved_names((x * 2).grad_fn))


def hooks_pack_now_and_unpack_in_backward(lib):
    x = lib.ones(3, requires_grad=True)
    log = []

    def pack(t):
        log.append(("pack", t.tolist(), t.requires_grad))
        return t * 2

    def unpack(t):
        log.append("unpack")
        return t

    w = (x * 1).sin()
    w.grad_fn._raw_saved_self.register_hooks(pack, unpack)
    seen = w.grad_fn._saved_self
    w.sum().backward()
    return log, x.grad, seen


def after_the_graph_is_freed(lib):
    x = lib.ones(3, requires_grad=True)
    w = (x * 1).sin()
    w.sum().backward()
    w.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t)


def hooks_already_set(lib):
    x = lib.ones(3, requires_grad=True)
    w = (x * 1).sin()  # kept alive: torch crashes on a SavedTensor whose node is gone
    raw = w.grad_fn._raw_saved_self
    raw.register_hooks(lambda t: t, lambda t: t)
    raw.register_hooks(lambda t: t, lambda t: t)


def unpack_hook_must_return_a_tensor(lib):
    x = lib.ones(3, requires_grad=True)
    w = (x * 1).sin()
    w.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: 1)
    w.sum().backward()


def a_field_not_saved_is_none(lib):
    m = lib.ones(2, 2, requires_grad=True)
    q = m * lib.ones(2, 2)  # mul saves self only where other requires grad
    q.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t)


def a_saved_output_under_create_graph(lib):
    x = lib.tensor([0.5, 1.0], requires_grad=True)
    y = x.exp()
    y.grad_fn._raw_saved_result.register_hooks(lambda t: t.clone(), lambda t: t * 3)
    g, = lib.autograd.grad(y.sum(), x, create_graph=True)
    g.sum().backward()
    return g, x.grad


def a_wrapped_number(lib):
    x = lib.tensor([0.5, 1.0], requires_grad=True)
    y = x * 2
    y.grad_fn._raw_saved_other.register_hooks(lambda t: t, lambda t: t)
    y.sum().backward()
    return x.grad


def a_list_field(lib):
    x = lib.ones(3, 4, requires_grad=True)
    y = x[[0, 2]]
    raw = y.grad_fn._raw_saved_indices
    raw[0].register_hooks(lambda t: t, lambda t: t)
    y.sum().backward()
    return len(raw), x.grad


CASES = [names_in_dir, hooks_pack_now_and_unpack_in_backward, after_the_graph_is_freed, hooks_already_set,
         unpack_hook_must_return_a_tensor, a_field_not_saved_is_none, a_saved_output_under_create_graph,
         a_wrapped_number, a_list_field]


@pytest.mark.parametrize("case", CASES, ids=[c.__name__ for c in CASES])
def test_raw_saved_tensors_as_torch(case):
    assert run(case, torchlite) == run(case, torch)
