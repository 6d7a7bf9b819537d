"""Programs the differential fuzzer (tests/fuzz) found to differ from torch
2.13, minimized, each compared side by side: values, gradients, node names."""
import warnings

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


def clone_of_an_expanded_tensor_keeps_dimension_order(lib):
    # clone lays out a non-dense input by at::infer_dense_strides (0-stride dimensions stay put),
    # so reshaping the copy is a view (ViewBackward0), not a copy
    x = lib.tensor(np.arange(8.0).reshape(2, 2, 2), requires_grad=True)
    c = lib.clone(x.expand(2, 2, 2, 2))
    t = lib.clone(x.permute(2, 0, 1)[:, :1].expand(2, 3, 2))
    ints = lib.clone(lib.zeros(3, 1, 4, dtype=lib.int64).expand(3, 5, 4))
    return [c.stride(), c.reshape(8, 2).grad_fn.name(), t.stride(), ints.stride(), ints.view(60).shape]


def sum_to_views_a_row_major_sum(lib):
    # a reduction's result is row-major whatever its input's layout, and at::sum_to views the
    # kept-dimension sum as the operand's shape: the broadcast gradient's node is ViewBackward0
    x = lib.tensor(np.arange(32.0).reshape(4, 2, 4) / 10, requires_grad=True).transpose(2, 1)
    w = lib.tensor(np.arange(8.0).reshape(4, 2) / 5, requires_grad=True)
    g, = lib.autograd.grad((x * w).sum(), w, create_graph=True)
    return [g, g.grad_fn.name(), x.sum(0).stride(), x.mean(0, keepdim=True).view(8), x.sum(2).view(-1)]


def index_saves_its_index_tensors(lib):
    # IndexBackward0 (and the IndexPutImplBackward0 of its double backward) save the index
    # tensors: saved-tensor hooks see them, and a freed graph refuses a second backward
    v0 = lib.tensor([0.5, 1.5, 2.5], requires_grad=True)
    packed = []
    with lib.autograd.graph.saved_tensors_hooks(lambda t: packed.append(str(t.dtype)) or t, lambda t: t):
        v1 = v0[lib.tensor([0, 2])]
        v3 = v0[[1, 1], ]
        v4 = v0[lib.tensor([True, False, True])]
    out = [list(packed)]
    (v1 / v0[:2]).sum().backward()
    for step in (lambda: v1.sum().backward(), lambda: v3.sum().backward(retain_graph=True),
                 lambda: v3.sum().backward(), lambda: v3.sum().backward()):
        try:
            step()
            out.append("ok")
        except RuntimeError as e:
            out.append(str(e))
    y = (v4 * v4).sum()
    packed.clear()
    with lib.autograd.graph.saved_tensors_hooks(lambda t: packed.append(str(t.dtype)) or t, lambda t: t):
        g, = lib.autograd.grad(y, v0, create_graph=True)
    (g * g).sum().backward()
    return out + [g.grad_fn.name(), packed, v0.grad]


def inplace_on_detached_and_viewed_inference_tensors(lib):
    # an inference tensor has no version counter, nor have its views (which are not autograd
    # views: no _base); its detach or .data made outside inference mode gets a fresh one, so
    # only those may be modified in place outside inference mode
    out = []
    makers = [lambda t: t, lambda t: t.detach(), lambda t: t.data, lambda t: t.view(6), lambda t: t.detach().view(6),
              lambda t: t.view(6).detach(), lambda t: t[0], lambda t: t.split(1)[0], lambda t: t.data.unsqueeze(0)]
    for in_mode in (False, True):
        for make in makers:
            with lib.inference_mode():
                t = lib.ones(2, 3) * 2
            with lib.inference_mode(in_mode):
                u = make(t)
                row = [u.is_inference(), u._base is t]
                for step in (lambda: u.div_(1.5), lambda: u.sub_(lib.ones(())), lambda: u._version):
                    try:
                        row.append(step())
                    except RuntimeError as e:
                        row.append(str(e))
            out.append(row)
    return out


def ops_on_an_inference_tensor_that_requires_grad(lib):
    # autograd runs only where some tensor argument is not an inference tensor: views and unary
    # ops of one record nothing; a wrapped number, an index or condition tensor made outside
    # inference mode records the op; clone / to copy_ into a normal tensor (CopyBackwards)
    with lib.inference_mode():
        v = lib.ones(2, 3, requires_grad=True)
        c = v > 0
    ops = [lambda: v.transpose(1, 1), lambda: v.view(6), lambda: v.split(1)[0], lambda: v[0], lambda: v.sin(),
           lambda: v ** 2, lambda: v.sum(), lambda: v.max(0)[0], lambda: v * 2, lambda: 2.5 - v, lambda: v + lib.ones(3),
           lambda: lib.where(v > 0, v, 0.0), lambda: lib.where(c, v, v), lambda: lib.where(c, v, 0.0),
           lambda: v[lib.tensor([1, 0])], lambda: v[[0]], lambda: v.clone(), lambda: v.to(lib.float64),
           lambda: v.t().contiguous(), lambda: v @ v.t()]
    out = []
    for op in ops:
        try:
            r = op()
            fn = r.grad_fn
            out.append([r.requires_grad, r.is_inference(), fn and fn.name(),
                        fn and [f and f.name() for f, _ in fn.next_functions]])
        except RuntimeError as e:
            out.append(str(e))
    (2.5 - v).sum().backward()
    return out + [v.grad]


def double_backward_through_an_empty_regenerated_view(lib):
    # a view modified in place under no_grad regenerates its grad_fn as AsStridedBackward0, whose
    # formula returns fresh zeros for an empty view: the gradient has no graph to go back through
    v0 = lib.tensor(np.arange(8.0).reshape(1, 4, 2), requires_grad=True)
    v2 = v0.narrow(-3, 0, 0)
    with lib.no_grad():
        v2 /= lib.full((1, 1, 1), 6.0)
    g, = lib.autograd.grad((v2.sin() * v2).sum(), v0, create_graph=True)
    out = [v2.grad_fn.name(), g, g.requires_grad]
    try:
        g.sum().backward()
    except RuntimeError as e:
        out.append(str(e))
    return out


def retain_grad_on_a_stale_view_is_a_noop(lib):
    # retain_grad reads the view's stored grad_fn (C++ is_leaf): on a view whose base an in-place
    # op made require grad it does nothing until something reads the view's grad_fn
    v1 = lib.tensor(0.5, dtype=lib.float64, requires_grad=True)
    with lib.no_grad():
        v5 = lib.ones(3, dtype=lib.float64)
    v6, v7, v8 = v5.as_strided((3,), (1,)), v5.view(3), v5.view(3)
    v6.div_(v1)
    v7.retain_grad()
    v8.grad_fn
    v8.retain_grad()
    flags = [v7.retains_grad, v8.retains_grad, v7.is_leaf, v7.retains_grad]
    (v7 * v8).sum().backward()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        grads = [v7.grad, v8.grad, v1.grad]
    return flags + grads + [[str(w.message)[:60] for w in caught]]


def number_to_the_power_of_a_transposed_tensor_is_contiguous(lib):
    # pow(Scalar, Tensor) lays its result out contiguous (not as its exponent): views and
    # as_strided of the result see its elements in row-major order
    x = lib.tensor(np.arange(6.0).reshape(2, 3) / 4).transpose(0, 1)
    r = 3 ** x
    s = 2 ** lib.tensor(np.arange(6).reshape(2, 3)).t()
    return [r.view(6), r.as_strided((1, 4), (1, 1), 0), s.view(6), s.stride()]


def add_with_alpha_rounds_once(lib):
    # add / sub with alpha compute fma(other, ±alpha, self), one rounding (exact lists: the
    # one-ulp differences of a separate product show only magnified, as in a double backward)
    rng = np.random.default_rng(5444)
    out = []
    for dtype in ("float32", "float64"):
        a = lib.tensor(rng.standard_normal(40).astype(dtype))
        b = lib.tensor((rng.standard_normal(40) * 10.0 ** rng.integers(-4, 4, 40)).astype(dtype))
        c = a.clone()
        c.sub_(b, alpha=0.7)
        out += [lib.add(a, b, alpha=3).tolist(), a.sub(b, alpha=-2.5).tolist(), c.tolist()]
    v0 = lib.tensor([[0.813, 0.46, -0.535]], requires_grad=True)
    v2 = v0 / v0
    v9 = (-v2) / v2.sub(lib.tensor([[0.3, -0.9, 0.45]]), alpha=3)
    g, = lib.autograd.grad((v9 * v9).sum(), v0, create_graph=True)
    return out + [g.tolist()]


def tanh_gradient_fuses_one_minus_square(lib):
    # tanh_backward computes grad * fma(-y, y, 1), both in the engine's first-order formula and
    # in the recorded op of create_graph (exact lists: a double backward magnifies an ulp)
    x = np.random.default_rng(17704).standard_normal(64).astype("float32")
    g = np.random.default_rng(1).standard_normal(64).astype("float32")
    out = []
    for create_graph in (False, True):
        t = lib.tensor(x, requires_grad=True)
        d, = lib.autograd.grad(t.tanh(), t, lib.tensor(g, requires_grad=create_graph), create_graph=create_graph)
        out.append(d.tolist())
    v0 = lib.tensor([[-2.013, -0.772, -0.781], [0.555, 0.84, 0.594]], requires_grad=True)
    v3 = (v0 / v0).tanh() * 3
    v4, = lib.autograd.grad((v3 * v3).sum(), v0, create_graph=True)
    v4.sum().backward()
    return out + [v4.tolist(), v0.grad.tolist()]


def integer_cast_of_an_inference_tensor_is_quiet(lib):
    # only a float copy that requires grad goes through copy_ (CopyBackwards); a cast of nan to
    # an integer stays as quiet as torch's
    with lib.inference_mode():
        v = lib.tensor([-1.0, 4.0], requires_grad=True).sqrt()
        w = lib.tensor([float("nan"), 2.5], requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = [v.long(), w.long(), w.to(lib.int64).requires_grad, w.to(lib.float64).grad_fn.name()]
    return out + [[str(c.message) for c in caught]]


def alpha_overflow_and_bool_rsub_of_an_inference_tensor(lib):
    # an in-place add computed in float64 overflows to inf silently; subtracting an inference
    # tensor from a bool is refused before the sub its kernel records
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        x = lib.tensor([3e38, 1.0])
        x.add_(lib.tensor([3e38, 1.0], dtype=lib.float64), alpha=2)
    with lib.inference_mode():
        v = lib.ones(2, requires_grad=True)
    try:
        True - v
        refused = None
    except RuntimeError as e:
        refused = str(e)
    return [x, [str(c.message) for c in caught], refused]


CASES = [relu_gradient_at_nan, alpha_overflow_and_bool_rsub_of_an_inference_tensor, integer_cast_of_an_inference_tensor_is_quiet, tanh_gradient_fuses_one_minus_square, add_with_alpha_rounds_once, number_to_the_power_of_a_transposed_tensor_is_contiguous, retain_grad_on_a_stale_view_is_a_noop, double_backward_through_an_empty_regenerated_view, ops_on_an_inference_tensor_that_requires_grad, inplace_on_detached_and_viewed_inference_tensors, index_saves_its_index_tensors, sum_to_views_a_row_major_sum, clone_of_an_expanded_tensor_keeps_dimension_order, diagonal_double_backward_names, inference_tensor_divided_by_a_no_grad_view, relu_keeps_negative_zero, double_backward_of_zero_dim_expand,
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


REFUSED = [index_tensors_that_do_not_broadcast, inplace_on_stale_view_checks_before_cloning, index_put_on_a_leaf_checks_the_leaf_first, pow_with_a_bool_exponent_backward, checkpoint_of_an_inference_tensor]


@pytest.mark.parametrize("case", CASES + REFUSED, ids=[c.__name__ for c in CASES + REFUSED])
def test_same_as_torch(case):
    assert run(case, torchlite) == run(case, torch)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", ["tanh_backward", "sigmoid_backward"])
def test_activation_backward_kernels_round_as_torch(op, dtype):
    # the ops the formulas record, on the same inputs: tanh's fuses 1 - y * y, sigmoid's
    # multiplies (grad * (1 - y)) * y
    from torchlite import _ops
    rng = np.random.default_rng(5)
    g = rng.standard_normal(200).astype(dtype)
    y = np.tanh(rng.standard_normal(200)).astype(dtype)
    expected = getattr(torch.ops.aten, op)(torch.tensor(g), torch.tensor(y)).numpy()
    assert getattr(_ops, op)(torchlite.tensor(g), torchlite.tensor(y)).numpy().tolist() == expected.tolist()
