"""Fixes found by running outside programs (pytorch/examples, karpathy's repositories) under
torchlite: each a differential case against torch."""
import numpy as np
import pytest

import torchlite

from diff_utils import import_torch, run

torch = import_torch()

DEVICES = ["cpu", "sim:0"]


def _dev(lib, device):
    return "cpu" if lib is not torchlite else device


# indexing with a range or a tuple item (python_variable_indexing.cpp: any sequence in the key is an
# index tensor; pytorch/examples mnist_forward_forward's `x_[range(x.shape[0]), y] = x.max()`)

INDEX_KEYS = [
    lambda lib: (range(3), [0, 1, 2]),
    lambda lib: range(2),
    lambda lib: range(1, 3),
    lambda lib: range(0),
    lambda lib: ((0, 2), 1),
    lambda lib: (slice(None), (1, 3)),
    lambda lib: (slice(None), (0.5, 1)),
    lambda lib: ((True, False, True),),
    lambda lib: [range(2), range(2)],
    lambda lib: (range(3), lib.tensor([0, 1, 2])),
    lambda lib: (Ellipsis, range(2, 4)),
    lambda lib: (range(5), 0),
]


@pytest.mark.filterwarnings("ignore:Using a non-tuple sequence")
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("key", range(len(INDEX_KEYS)))
def test_getitem_sequence_keys(key, device):
    def case(lib):
        x = lib.arange(12.0, device=_dev(lib, device)).reshape(3, 4).requires_grad_()
        y = x[INDEX_KEYS[key](lib)]
        y.sum().backward()
        return y, x.grad, type(y.grad_fn).__name__
    assert run(case, torchlite) == run(case, torch)


@pytest.mark.filterwarnings("ignore:Using a non-tuple sequence")
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("key", range(len(INDEX_KEYS)))
def test_setitem_sequence_keys(key, device):
    def case(lib):
        w = lib.arange(12.0, device=_dev(lib, device)).reshape(3, 4).requires_grad_()
        x = w * 1
        x[INDEX_KEYS[key](lib)] = w.max()
        x.pow(2).sum().backward()
        return x, w.grad, x.grad_fn.name()
    assert run(case, torchlite) == run(case, torch)


def test_mnist_forward_forward_overlay():
    # pytorch/examples mnist_forward_forward/main.py's overlay_y_on_x
    def case(lib):
        def overlay_y_on_x(x, y, classes=10):
            x_ = x.clone()
            x_[:, :classes] *= 0.0
            x_[range(x.shape[0]), y] = x.max()
            return x_
        g = lib.Generator().manual_seed(0)
        x = lib.randn(6, 20, generator=g)
        y = lib.randint(10, (6,), generator=g)
        return overlay_y_on_x(x, y), overlay_y_on_x(x, 3)
    assert run(case, torchlite) == run(case, torch)
