"""Inference mode side by side with torch 2.13: which tensors are inference
tensors, and what torch refuses with them (issue 6, found by the fuzzer)."""
import pytest
import torch

import torchlite
from diff_utils import run


def made_inside(lib):
    with lib.inference_mode():
        a, b = lib.ones(3), lib.ones(3) * 2
        c = lib.tensor([1.0, 2.0])
        d = a.detach()
    normal = lib.ones(3)
    return [t.is_inference() for t in (a, b, c, d, a[0:2], normal, normal.detach(), a + lib.ones(3))]


def views_of_normal_tensors(lib):
    c = lib.ones(3)
    with lib.inference_mode():
        vc = c[0:2]
        c.add_(1)
        version = c._version
    vc.mul_(2)
    return [vc.is_inference(), version, c]


def functional_ops_outside(lib):
    with lib.inference_mode():
        a = lib.ones(3)
    x = lib.ones(3, requires_grad=True)
    y = a + x
    y.sum().backward()
    return [y.is_inference(), y.grad_fn.name(), x.grad, a.requires_grad]


def inplace_outside(lib):
    with lib.inference_mode():
        a = lib.ones(3)
    try:
        a.add_(1)
    finally:
        assert a.tolist() == [2.0, 2.0, 2.0]  # torch writes, then refuses the version bump


def inplace_outside_no_grad(lib):
    with lib.inference_mode():
        a = lib.ones(3)
    with lib.no_grad():
        a[...] = 2.0


def saved_for_backward(lib):
    with lib.inference_mode():
        a = lib.ones(3)
    a * lib.ones(3, requires_grad=True)


def version_counter(lib):
    with lib.inference_mode():
        a = lib.ones(3)
    _ = a._version


def requires_grad_outside(lib):
    with lib.inference_mode():
        a = lib.ones(3)
    a.requires_grad_()


def view_made_inside_modified_outside(lib):
    x = lib.ones(3, requires_grad=True) * 1
    with lib.inference_mode():
        v = x[0:2]
    v.mul_(2)


def view_made_inside_base_modified_outside(lib):
    x = lib.ones(3, requires_grad=True) * 1
    with lib.inference_mode():
        v = x[0:2]
    x.mul_(2)
    _ = v.grad_fn


ALLOWED = [made_inside, views_of_normal_tensors, functional_ops_outside]
REFUSED = [inplace_outside, inplace_outside_no_grad, saved_for_backward, version_counter, requires_grad_outside,
           view_made_inside_modified_outside, view_made_inside_base_modified_outside]


@pytest.mark.parametrize("case", ALLOWED + REFUSED, ids=[c.__name__ for c in ALLOWED + REFUSED])
def test_same_as_torch(case):
    expected = run(case, torch)
    assert expected[0] == ("ok" if case in ALLOWED else "raised"), expected
    assert run(case, torchlite) == expected
