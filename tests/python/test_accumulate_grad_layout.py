"""AccumulateGrad and the gradient layout contract, against torch: a leaf's
.grad gets the leaf's strides when the leaf is dense in some dimension order;
an incoming gradient is stolen only when it already has them (tested in
C++: tests/cpp/test_engine.cpp); an existing
.grad, contiguous or not, is updated in place; a .grad whose elements share
memory cannot be updated in place (torch's internal-overlap error)."""
import pytest
import torch

import torchlite
from diff_utils import Values

DEVICES = ["cpu", "sim:0"]


def strides(t):
    if isinstance(t, torch.Tensor):
        return t.stride()
    return tuple(s // t._array.itemsize for s in t._array.strides)


def transposed_leaf(mod, device):
    base = mod.tensor([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]], device=device)
    return base.t().detach().requires_grad_()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("op", ["mul", "exp", "direct"])
def test_grad_of_a_transposed_leaf_has_the_leafs_strides(device, op):
    def run(mod, dev):
        x = transposed_leaf(mod, dev)
        if op == "mul":
            (x * 2).sum().backward()
        elif op == "exp":
            x.exp().sum().backward()
        else:
            x.backward(mod.ones(4, 3, device=dev))
        return strides(x.grad), Values(x.grad)

    assert run(torchlite, device) == run(torch, "cpu")


@pytest.mark.parametrize("device", DEVICES)
def test_noncontiguous_grad_is_updated_in_place(device):
    def run(mod, dev):
        x = mod.ones(2, 3, requires_grad=True, device=dev)
        g = mod.zeros(3, 2, device=dev).t()
        x.grad = g
        (x * 2).sum().backward()
        (x * 3).sum().backward()
        return x.grad is g, strides(x.grad), x.grad.tolist(), g.tolist()

    assert run(torchlite, device) == run(torch, "cpu")


@pytest.mark.parametrize("device", DEVICES)
def test_grad_sharing_memory_between_elements_cannot_be_accumulated_into(device):
    def run(mod, dev):
        x = mod.ones(3, requires_grad=True, device=dev)
        x.grad = mod.zeros(1, device=dev).expand(3)
        with pytest.raises(RuntimeError) as info:
            (x * 2).sum().backward()
        return str(info.value)

    assert run(torchlite, device) == run(torch, "cpu")


@pytest.mark.parametrize("device", DEVICES)
def test_a_copied_grad_under_create_graph_is_copy_s_node(device):
    """Under create_graph a gradient copied to the leaf's layout records upstream's copy_ node,
    CopyBackwards, with its two inputs (the new tensor's, which needs no gradient, and the
    gradient's), and the double backward through it is torch's."""
    def case(lib, dev):
        x = lib.ones(3, 2, dtype=lib.float64, device=dev).t().detach().requires_grad_()
        w = lib.ones(2, 3, dtype=lib.float64, device=dev, requires_grad=True)
        (x * w).sum().backward(create_graph=True)
        node = x.grad.grad_fn
        edges = [(None if n is None else n.name(), i) for n, i in node.next_functions]
        (x.grad * x.grad).sum().backward()
        return node.name(), edges, Values(w.grad)
    assert case(torchlite, device) == case(torch, "cpu")
