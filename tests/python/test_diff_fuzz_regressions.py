"""Programs the differential fuzzer (tests/fuzz) found to differ from torch
2.13, minimized, each compared side by side: values, gradients, node names."""
import numpy as np
import pytest
import torch

import torchlite
from diff_utils import run


def relu_gradient_at_nan(lib):
    # the GIL-free first-order formula of relu passes the gradient where the result is nan
    v0 = lib.tensor(-1.069, requires_grad=True)
    lib.log(v0).relu()[()].sum().backward()
    return [v0.grad]


def relu_keeps_negative_zero(lib):
    x = lib.tensor([-0.0, float("nan"), -1.0, 2.0])
    b = lib.tensor([False, True])
    return [1 / x.relu(), 1 / (b * -1.5).relu()]


def double_backward_of_zero_dim_expand(lib):
    v0 = lib.tensor(0.75, dtype=lib.float64, requires_grad=True)
    v2 = v0.expand_as(v0).expand(())
    g, = lib.autograd.grad((v2 * v2).sum(), v0, create_graph=True)
    g.sum().backward()
    return [g, g.grad_fn.name(), [f.name() for f, _ in g.grad_fn.next_functions if f is not None], v0.grad]


def view_of_integer_tensor_with_history(lib):
    # a masked index_put_ gives an integer tensor a grad_fn; a differentiable op on it refuses
    d = lib.zeros(2, 3, dtype=lib.int64)
    d[lib.tensor([True, False])] = lib.tensor(2.0, requires_grad=True)
    out = [d.grad_fn.name()]
    for f in (lambda t: t[0], lambda t: t.view(6), lambda t: t.diagonal(), lambda t: t + 1):
        try:
            f(d)
            out.append("ok")
        except RuntimeError as e:
            out.append(str(e))
    return out


def diagonal_double_backward_names(lib):
    a = lib.tensor(np.arange(12.0).reshape(3, 4) / 7, requires_grad=True)
    y = a.diagonal(1) * a.diagonal(-1, 1, 0)
    g, = lib.autograd.grad((y * y).sum(), a, create_graph=True)
    g.sum().backward()
    names = []
    fn = g.grad_fn
    while fn is not None and len(names) < 5:
        names.append(fn.name())
        fn = next((f for f, _ in fn.next_functions if f is not None), None)
    return [names, g, a.grad]


def index_tensors_that_do_not_broadcast(lib):
    x = lib.zeros(3, 3, dtype=lib.float64)
    x[lib.tensor([0, 1]), lib.tensor([0, 1, 2])] = lib.ones(2)


def pow_with_a_bool_exponent_backward(lib):
    x = lib.tensor([[1.5], [2.0]], requires_grad=True)
    (x ** lib.tensor([[True], [False]])).sum().backward()


def checkpoint_of_an_inference_tensor(lib):
    with lib.inference_mode():
        x = lib.ones(3)
    lib.utils.checkpoint.checkpoint(lambda t: (t * t).sin(), x, use_reentrant=False)


def inference_tensor_divided_by_a_no_grad_view(lib):
    # the no_grad view of a base that requires grad requires grad but has no gradient edge,
    # so div does not save self (an inference tensor) for it
    v0 = lib.tensor([0.5, 1.5, 2.5], requires_grad=True)
    with lib.inference_mode():
        v4 = lib.ones(3) * 2
    with lib.no_grad():
        v5 = v0[:1]
    y = v4 / v5
    return [y, y.requires_grad, y.grad_fn.name()]


def empty_views_keep_their_storage_offset(lib):
    # numpy drops an empty slice's offset; torch's view keeps it, and as_strided reads from there
    v0 = lib.tensor([0.5, 1.5, 2.5], dtype=lib.float64, requires_grad=True)
    v4 = v0.narrow(0, 1, 0)
    v6 = v4.as_strided((1,), (1,))
    m = lib.zeros(0, 3)
    views = [v4, v0[3:], v0[5:], v0[2:1], m[:, 2], m[:, 1::2], lib.zeros(2, 3)[:, 2:2], lib.zeros(2, 0).diagonal(),
             v0.as_strided((0,), (1,), 100), lib.zeros(1, 1)[..., :0, 1:1]]
    views += list(lib.zeros(4, 0).split(1)) + list(lib.zeros(3, 0).unbind())
    return [v6, v6.grad_fn.name(), [v.storage_offset() for v in views],
            [v.stride() for v in views[:8]], v4.sum() + v6.sum()]


def detached_views_keep_their_storage(lib):
    # .data and detach() share the storage and offset of their tensor (they have no _base)
    x = lib.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    v = x[1:].unsqueeze(0)[:, 1:]
    d, e = v.data, v.detach()
    empty = x[3:3].expand(0).data
    return [d.storage_offset(), e.storage_offset(), d.as_strided((4,), (1,), 0), e.as_strided((2,), (1,)),
            empty.storage_offset(), empty.as_strided((1,), (1,))]


def as_strided_out_of_bounds_of_the_storage(lib):
    v0 = lib.tensor([[0.25]], requires_grad=True)
    v1 = v0[..., :0, 1:1]
    return v1.as_strided((1,), (1,))


def as_strided_negative_stride(lib):
    return lib.zeros(4).as_strided((2,), (-1,))


def as_strided_negative_offset(lib):
    return lib.zeros(4)[1:].as_strided((2,), (1,), -1)


def as_strided_negative_size(lib):
    return lib.zeros(4).as_strided((-1,), (1,))


def as_strided_gradient_storage_of_an_overlapping_input(lib):
    # as_strided_backward divides its storage by the input's counts: 0/0 and g/0 where the input
    # does not reach, seen by as_strided over the gradient
    x = lib.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y = x[:2].expand(2, 2)
    z = y.as_strided((2,), (1,), 2)
    gy, = lib.autograd.grad((z * z).sum(), y)
    gx, = lib.autograd.grad((y.as_strided((3,), (1,), 1) * 2).sum(), y)
    return [z, gy, gy.as_strided((4,), (1,), 0), gx, gx.as_strided((4,), (1,), 0)]


def copies_keep_the_layout_of_an_expanded_input(lib):
    # clone and to (empty_like's Preserve: infer_dense_strides) and integer ops keep an expanded
    # dimension where it is (numpy's 'K' order puts it innermost); as_strided reads the storage
    v0 = lib.tensor([[0.5, -1.0], [2.0, 3.0]], requires_grad=True)
    e = v0.unsqueeze(1).expand(2, 3, 2)
    x = lib.tensor(np.arange(24.0).reshape(2, 3, 4)).permute(2, 0, 1)
    outs = [e.clone(), e.long(), e.double(), e.to(lib.float64, copy=True), e.long() * 2, e.long().neg(), x.long(),
            x.to(lib.float32, copy=True)]
    return [[t.stride() for t in outs]] + [lib.as_strided(t, (2, 3), (1, 2)) for t in outs]


def reductions_are_row_major(lib):
    x = lib.tensor(np.arange(24.0).reshape(2, 3, 4), requires_grad=True).permute(2, 0, 1)
    outs = [x.sum(1), x.sum(1, keepdim=True), x.mean(-1), x.mean(1, keepdim=True), x.sum(1, dtype=lib.float64),
            x.sum(), x.mean()]
    return [[t.stride() for t in outs]] + [t.reshape(-1).as_strided((2,), (1,), 1) for t in outs[:5]]


def gradients_keep_torch_layout(lib):
    # the engine's sum of two gradients and the first-order formulas lay out their results as
    # TensorIterator does, in the operands' dimension order
    out = []
    for f in (lambda v: (v * v).sum(), lambda v: (v * v.detach()).sum(), lambda v: (v.exp() + v.relu()).sum(),
              lambda v: (v.tanh() - v).sum(), lambda v: (v * lib.ones(2)).sum(), lambda v: (-v / 3).sum()):
        for create_graph in (True, False):
            v0 = lib.tensor(np.arange(1.0, 9.0).reshape(2, 4) / 4, requires_grad=True)
            v2 = v0.log().permute(1, 0)
            g, = lib.autograd.grad(f(v2), v0, create_graph=create_graph)
            out += [g.stride(), lib.as_strided(g, (2, 2), (1, 2))]
    return out


CASES = [copies_keep_the_layout_of_an_expanded_input, reductions_are_row_major, gradients_keep_torch_layout,
         empty_views_keep_their_storage_offset, detached_views_keep_their_storage,
         as_strided_gradient_storage_of_an_overlapping_input, relu_gradient_at_nan, diagonal_double_backward_names, inference_tensor_divided_by_a_no_grad_view, relu_keeps_negative_zero, double_backward_of_zero_dim_expand,
         view_of_integer_tensor_with_history]


def index_put_on_a_leaf_checks_the_leaf_first(lib):
    x = lib.ones(4, 3, requires_grad=True)
    x[lib.tensor([1, 1]), [0, -1, 0]] = lib.tensor(2.0, requires_grad=True).long()


def inplace_on_stale_view_checks_before_cloning(lib):
    # check_inplace reads the view's stored (stale) grad_fn before mul_/div_ clone self
    v0 = lib.tensor([0.5])
    v1 = lib.tensor([1.5], requires_grad=True)
    v3 = v0.expand(1)
    v0.unsqueeze(0).mul_(v1)
    v3 /= v1.sigmoid()


REFUSED = [as_strided_out_of_bounds_of_the_storage, as_strided_negative_stride, as_strided_negative_offset,
           as_strided_negative_size, index_tensors_that_do_not_broadcast, inplace_on_stale_view_checks_before_cloning, index_put_on_a_leaf_checks_the_leaf_first, pow_with_a_bool_exponent_backward, checkpoint_of_an_inference_tensor]


@pytest.mark.parametrize("case", CASES + REFUSED, ids=[c.__name__ for c in CASES + REFUSED])
def test_same_as_torch(case):
    assert run(case, torchlite) == run(case, torch)
