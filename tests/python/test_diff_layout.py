"""The layout of elementwise results, compared with torch 2.13: the strides of every
result (TensorIterator's fast setup, reorder_dimensions, the promotion of inputs;
empty_like's), and what follows from them (the node contiguous() and reshape()
record, whether view() is allowed)."""
import itertools

import pytest
import torch

import torchlite
from diff_utils import run


def _layout(t):
    return [tuple(t.shape), t.stride()]


def where_of_a_broadcast_permuted_input(lib):
    # issue 12, first case: where's output is laid out over condition, input and other,
    # not row-major, so the sub after it is not contiguous and contiguous() clones
    d = lib.float64
    x = lib.ones(1, 4, 1, dtype=d, requires_grad=True)
    w = lib.where(lib.tensor([[[[False]]], [[[True]]]]), x, x.permute(1, 2, 0))
    s = lib.sub(w, x, alpha=-0.5)
    return [_layout(w), _layout(s), s.contiguous().grad_fn.name()]


def add_of_contiguous_operands_of_other_shapes(lib):
    # issue 12, second case: the fast setup (contiguous operands, contiguous result) needs
    # every operand of the result's shape; here reorder_dimensions puts dimension 0 inside
    d = lib.float64
    a = lib.ones(1, 6, 1, dtype=d, requires_grad=True)
    m = lib.ones(6, 1, dtype=d) * a
    p = m + a.permute(1, 2, 0)
    return [_layout(m), _layout(p), p.reshape(18, 1, 1, -1).grad_fn.name()]


def pow_zero_of_an_expanded_tensor(lib):
    # issue 12, third case: x ** 0 fills pow's TensorIterator output (row-major for an
    # expanded input), not numpy's ones_like (which puts the broadcast dimension inside)
    d = lib.float64
    b = lib.ones(2, dtype=d, requires_grad=True).expand(3, -1) ** 0
    c = b + lib.ones(1, 2, dtype=d)
    return [_layout(b), _layout(c), c.sqrt().view(1, 6).grad_fn.name()]


def pow_one_of_an_expanded_tensor(lib):
    b = lib.tensor([1.0, 2.0], requires_grad=True).expand(3, -1)
    return [_layout(b ** 1), _layout(b ** 0), _layout(b.detach().long() ** 1), (b ** 1).view(6).grad_fn.name()]


def fast_setup_keeps_the_strides_of_dense_operands(lib):
    # all operands non-overlapping and dense with one set of strides: the result takes them,
    # the stride of a size-1 dimension included (reorder_dimensions would recompute it)
    x = lib.ones(14).as_strided((7, 1, 2), (1, 100, 7))
    t = lib.ones(1, 2, 3).permute(2, 0, 1)
    return [_layout(x), _layout(x.exp()), _layout(x + x), _layout(x * 2), _layout(x.clone()), _layout(x ** 0),
            _layout(x + x.clone()), _layout(x + x.contiguous()), _layout(t.exp()), _layout(t + t), _layout(t + 1),
            _layout(t.clone())]


def contiguous_with_a_free_size_one_stride(lib):
    # a contiguous tensor whose size-1 dimension has an odd stride: exp and x + x are row-major
    # (fast setup), x + 2 is not (a number is a 0-d operand: no fast setup), clone keeps it
    x = lib.ones(1, 4, 1).permute(1, 2, 0)
    return [_layout(x), _layout(x.exp()), _layout(x + x), _layout(x + 2), _layout(2 - x), _layout(x * 2),
            _layout(x.add(2, alpha=3)), _layout(x ** 2), _layout(x ** 0), _layout(x.clone()),
            _layout(lib.where(x > 0, x, 0.5))]


def channels_last_operands(lib):
    # channels-last (dense in the order C, W, H, N) operands of one shape give a channels-last result
    x = lib.ones(2, 3, 4, 5).permute(0, 3, 1, 2)
    y = lib.ones(2, 1, 4, 1).permute(0, 3, 1, 2)
    return [_layout(x), _layout(x.exp()), _layout(x + x), _layout(x + 1), _layout(x + x.contiguous()),
            _layout(y * y), _layout(y + 1)]


def inputs_of_another_dtype_are_promoted_first(lib):
    # on the CPU, TensorIterator copies an input of another dtype with `to` (empty_like's
    # layout) before its fast setup: the sliced integer tensor becomes contiguous, so the sum is
    a = lib.ones((2, 1, 2, 1), dtype=lib.int64).permute((3, 1, 0, 2))[:, :, :, ::2]
    b = lib.ones((2, 1, 1, 1), dtype=lib.float64).permute((2, 3, 0, 1))
    return [_layout(a), _layout(a + b), _layout(a + b.long()), _layout(a.exp()), _layout(lib.where(a > 0, a, b))]


def empty_results_have_torchs_strides(lib):
    z = lib.ones(3, 0, 2).permute(2, 0, 1)
    return [_layout(z), _layout(z.exp()), _layout(z + 2), _layout(z + z), _layout(z.clone()),
            _layout(z + lib.ones(1, 1, 1))]


def integer_add_with_alpha_orders_by_the_other_operand(lib):
    a = lib.ones((2, 1, 3, 1), dtype=lib.int64).permute((2, 0, 1, 3))
    return [_layout(lib.sub(a, a, alpha=2)), _layout(lib.add(a, a.permute(0, 1, 3, 2).permute(0, 1, 3, 2), alpha=3))]


CASES = [where_of_a_broadcast_permuted_input, add_of_contiguous_operands_of_other_shapes,
         pow_zero_of_an_expanded_tensor, pow_one_of_an_expanded_tensor,
         fast_setup_keeps_the_strides_of_dense_operands, contiguous_with_a_free_size_one_stride,
         channels_last_operands, inputs_of_another_dtype_are_promoted_first, empty_results_have_torchs_strides,
         integer_add_with_alpha_orders_by_the_other_operand]


@pytest.mark.parametrize("case", CASES, ids=[c.__name__ for c in CASES])
def test_same_as_torch(case):
    assert run(case, torchlite) == run(case, torch)


def _operand(lib, shape, perm, step, dtype):
    t = lib.ones(tuple(shape), dtype=getattr(lib, dtype)).permute(perm)
    if step:
        t = t[..., ::2]
    return t


_OPS = {"add": lambda lib, a, b: a + b, "mul_number": lambda lib, a, b: a * 2.5,
        "sub_alpha": lambda lib, a, b: a.sub(b, alpha=2), "exp": lambda lib, a, b: a.exp(),
        "where": lambda lib, a, b: lib.where(a > b, a, b), "pow": lambda lib, a, b: a ** 2,
        "pow_zero": lambda lib, a, b: a ** 0, "clone": lambda lib, a, b: a.clone()}


def _grid():
    # three-dimensional operands of every permutation, with size-1 and sliced dimensions, and
    # a second operand of the same or a broadcast shape, in the same or another dtype
    for perm in itertools.permutations(range(3)):
        for shape, step, other in itertools.product([(2, 1, 3), (1, 4, 1), (2, 2, 2)], [False, True],
                                                    ["same", "broadcast", "int64"]):
            yield perm, shape, step, other


@pytest.mark.parametrize("op", sorted(_OPS))
def test_strides_over_a_grid_of_layouts(op):
    def case(lib):
        out = []
        for perm, shape, step, other in _grid():
            a = _operand(lib, shape, perm, step, "float64")
            b = a.permute(2, 1, 0).contiguous().permute(2, 1, 0)
            if other == "broadcast":
                b = lib.ones(a.shape[-1], dtype=lib.float64)
            elif other == "int64":
                b = b.long()
            out.append(_layout(_OPS[op](lib, a, b)))
        return out
    assert run(case, torchlite) == run(case, torch)
