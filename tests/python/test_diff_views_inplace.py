"""Views and in-place ops, side by side with torch 2.13: values, gradients
(first and second order), node names, requires_grad, and the errors torch
raises (issue 6: in-place ops on views, Note [View + Inplace update for base
tensor], overlap checks, saved versions, retain_grad)."""
import numpy as np
import pytest
import torch

import torchlite
from diff_utils import run


def name(t):
    return t.grad_fn.name() if t.grad_fn is not None else None


def leaf(lib, *shape, rg=True):
    data = np.arange(1, 1 + int(np.prod(shape)), dtype=np.float64).reshape(shape) / 4 + 0.5
    return lib.tensor(data, requires_grad=rg)


def observe(lib, leaves, *outs):
    """What a program shows: each output's values, grad_fn name and
    requires_grad, then a backward of their sum and each leaf's .grad."""
    seen = [(o, name(o), o.requires_grad) for o in outs]
    total = sum((o * o).sum() for o in outs if o.requires_grad)
    if not isinstance(total, int):
        total.backward()
    return seen + [p.grad for p in leaves]


def double(lib, leaves, out):
    """First-order gradients with create_graph, then the gradient of their squares."""
    grads = lib.autograd.grad((out * out).sum(), leaves, create_graph=True, allow_unused=True)
    shown = [(g, name(g), g.requires_grad) if g is not None else None for g in grads]
    total = sum((g * g).sum() for g in grads if g is not None and g.requires_grad)
    second = lib.autograd.grad(total, leaves, allow_unused=True) if not isinstance(total, int) else None
    return shown, second


def select_mul(lib):
    a = leaf(lib, 3, 2)
    x = a * 1
    x[0].mul_(2)
    return observe(lib, [a], x) + [name(x), name(x[0])]


def column_iadd(lib):
    a, y = leaf(lib, 3, 2), leaf(lib, 3)
    x = a * 1
    x[:, 1] += y
    return observe(lib, [a, y], x)


def flat_view_add(lib):
    a = leaf(lib, 2, 3)
    x = a.exp() * 1
    v = x.view(-1)
    v.add_(1)
    return observe(lib, [a], x, v)


def transposed_zero(lib):
    a = leaf(lib, 2, 3)
    x = a * a
    x.t().zero_()
    return observe(lib, [a], x)


def chain_of_views(lib):
    a, b = leaf(lib, 3, 4), leaf(lib, 2)
    x = a * 1
    y = x[1:]
    v = y.t()[2]
    v.mul_(b)
    return observe(lib, [a, b], x, y, v) + [name(y), name(v)]


def base_then_view(lib):
    a, w = leaf(lib, 3, 2), leaf(lib, 3, 2)
    x = a * 1
    v = x[:, 0]
    u = x.view(6)
    x.mul_(w)
    return observe(lib, [a, w], v, u) + [name(v), name(u)]


def view_then_other_view(lib):
    a = leaf(lib, 4)
    x = a + 0
    v1, v2 = x[:2], x[1:]
    v1.mul_(3)
    return observe(lib, [a], v2, x)


def view_of_untracked_base(lib):
    b = lib.ones(2)
    w = leaf(lib, 2)
    v = b.expand(3, 2)
    b += w
    return observe(lib, [w], v) + [name(b)]


def view_in_no_grad_then_base_in_no_grad(lib):
    a = leaf(lib, 3)
    x = a * 2
    v = x[1:]
    with lib.no_grad():
        x.mul_(2)
    return observe(lib, [a], v)


def retain_grad_then_inplace(lib):
    a, b = leaf(lib, 2), leaf(lib, 2)
    y = a * 1
    y.retain_grad()
    y.mul_(b)
    (y * lib.tensor([3.0, 4.0], dtype=lib.float64)).sum().backward()
    return [y.grad, a.grad, b.grad]


def retain_grad_on_base_and_view(lib):
    a = leaf(lib, 3)
    x = a * 1
    x.retain_grad()
    v = x[:2]
    v.retain_grad()
    x[0].mul_(2)
    (x * lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)).sum().backward()
    return [x.grad, v.grad, a.grad]


def hooks_on_views(lib):
    a = leaf(lib, 3, 2)
    x = a * 1
    v = x[0]
    seen = []
    v.register_hook(lambda g: seen.append(("before", g.clone())))
    v.mul_(2)
    v.register_hook(lambda g: seen.append(("after", g.clone())))
    (v * 3).sum().backward()
    return [seen, a.grad]


def retain_grad_create_graph(lib):
    a = leaf(lib, 2)
    out = []
    for f in (lambda y: (y * 10).sum(), lambda y: (y * y).sum()):
        y = a * 1
        y.retain_grad()
        f(y).backward(create_graph=True)
        out += [y.grad, y.grad.requires_grad, name(y.grad)]
    return out


def double_backward_through_copy_slices(lib):
    a, b = leaf(lib, 3, 2), leaf(lib, 2)
    x = a * 1
    x[1].mul_(b * b)
    return double(lib, [a, b], x)


def double_backward_regenerated_view(lib):
    a, w = leaf(lib, 3, 2), leaf(lib, 3, 2)
    x = a * 1
    v = x.t()[1]
    x.mul_(w)
    return double(lib, [a, w], v)


def new_view_ops(lib):
    a = leaf(lib, 3, 4)
    parts = list(a.split(3, 1)) + list(a.split([1, 2], 0)) + list(a.chunk(2, 1)) + list(a.unbind(0))
    parts += [a.narrow(1, 1, 2), a.diagonal(), a.diagonal(-1), a.as_strided((2, 2), (4, 1), 1)]
    return observe(lib, [a], *parts) + [[p._base is a for p in parts]]


def setitem_forms(lib):
    a, w = leaf(lib, 3, 2), leaf(lib, 2)
    x = a * 1
    x[1] = w
    x[2, 0] = 5.0
    y = a * 1
    y[...] = w
    z = a * 1
    z[lib.tensor([0, 2])] = w
    return observe(lib, [a, w], x, y, z) + [name(x), name(y), name(z)]


def setitem_node_structure(lib):
    """Which node x[key] = value records, and what it connects to (copy_to: copy_, fill_, or
    view + expand + copy_; index_put_ on the sliced result)."""
    out = []
    keys = [slice(None), 0, (slice(None), 0), None, Ellipsis, slice(1, None), (0, [1]), (slice(None), [1]), [1]]
    for key in keys:
        for shape in ((1, 2), (2,), (), (1,)):
            x = lib.zeros(3, 2, dtype=lib.float64)
            key_ = tuple(lib.tensor(k) if isinstance(k, list) else k for k in key) if isinstance(key, tuple) else \
                lib.tensor(key) if isinstance(key, list) else key
            try:
                x[key_] = leaf(lib, *shape)
            except RuntimeError as e:
                out.append(str(e))
                continue
            out.append([x, name(x)] + [n.name() if n is not None else None for n, _ in x.grad_fn.next_functions])
    y = lib.zeros(3, 2, dtype=lib.float64)
    y[1:] = 3.0
    out.append([y, name(y)])
    return out


def self_assignment_through_unsqueeze(lib):
    x = leaf(lib, 4, 1) * 1
    x[None, None] = x
    return observe(lib, [], x)


def as_strided_of_index_result(lib):
    a = leaf(lib, 4, 1)
    y = (a * a)[..., :, lib.tensor([0, 0, 0])]
    return observe(lib, [a], y.as_strided((1, 3), (1, 1), 0))


def integers_beside_index_tensors(lib):
    a = leaf(lib, 2, 1, 3)
    y = a[..., 1 - 1, 0:, [-1, -2, 1]]
    z = a[-1, 0:0, lib.tensor([0, 0])]
    w = a[None, 1, :, lib.tensor([2, 0])]
    return observe(lib, [a], y, z, w) + [[t.shape for t in (y, z, w)], name(y), y.grad_fn.next_functions[0][0].name()]


def fill_expanded(lib):
    a = leaf(lib, 1)
    x = (a * 2).expand(3, 2)
    x.zero_()
    y = lib.zeros(1).expand(2, 2)
    y.fill_(3.0)
    return [x, name(x), y]


def overlap_of_unsqueezed_and_expanded(lib):
    x = lib.tensor(np.arange(4.0).reshape(4, 1))
    x[None, None].add_(x.expand(1, 1, 4, 1))
    return [x, x.expand(1, 1, 4, 1).stride(), lib.tensor(1.0).expand(1, 1).stride(),
            lib.ones(3).expand(2, 1, 3).stride()]


def as_strided_of_stacked(lib):
    a = leaf(lib, 3, 3)
    v = lib.stack([a.expand(3, 3, 3)] * 2, -2).permute(2, 1, 0, 3)
    return observe(lib, [a], v.as_strided((31,), (1,)))


def index_put_on_expanded(lib):
    x = lib.zeros(2, 1).expand(2, 3)
    x[lib.tensor([0])] = 1.5
    y = lib.zeros(1).expand(2, 2)
    y.fill_(3.0)
    return [x, y]


def elementwise_output_layout(lib):
    x = lib.tensor(np.arange(48.0).reshape(4, 4, 3), requires_grad=True)
    y = x.permute(0, 2, 1)
    outs = [y * 3, y + y, y.exp(), x[:, ::2].sin(), x.transpose(0, 2).relu(), x.transpose(0, 1) + lib.ones(3)]
    v = x[0].t()
    reshapes = [v.reshape(1, 4, 3), x.reshape(48), v.reshape(12), v.reshape(3, 4), x[:, :1].reshape(4, 3)]
    return [o.stride() for o in outs] + [(y * 3).reshape(48).grad_fn.name(), (y * 3).is_contiguous()] + \
        [name(r) for r in reshapes]


def view_of_permuted_product(lib):
    x = lib.tensor(np.arange(48.0).reshape(4, 4, 3), requires_grad=True)
    (x.permute(0, 2, 1) * 3).view(48)


def gradient_of_sum_is_expanded(lib):
    x = leaf(lib, 3)
    g, = lib.autograd.grad(x.sum(), x)
    y = leaf(lib, 3)
    (y.sum() * 1).backward()
    y.sum().backward()
    return [g, g.stride(), g._base is not None, y.grad, y.grad.stride()]


def split_of_empty_dimension(lib):
    x = leaf(lib, 1, 1).narrow(-1, 0, 0)
    parts = x.split(1, 1)
    return [len(parts), parts[0].shape, name(parts[0])]


def masked_index_put_casts_one_value(lib):
    w = lib.tensor(2.0, requires_grad=True)
    d = lib.zeros(2, 3, dtype=lib.int64)
    d[lib.tensor([True, False])] = w
    m = lib.zeros(2, 3)
    m[:, lib.tensor([True, False, True])] = lib.tensor(2.0, dtype=lib.float64)
    k = lib.zeros(2, 3)
    k[lib.tensor([[True, False, True], [False, False, True]])] = k[0, 0]
    return [d, name(d), m, k]


def copy_into_bool_is_not_differentiable(lib):
    v3 = (leaf(lib, 1, 2) / 0.5).bool()
    v3[-1] = leaf(lib, 1, 2)
    b = lib.zeros(3, dtype=lib.bool)
    b.copy_(leaf(lib, 3))
    a = lib.zeros(3, dtype=lib.int64)
    a.fill_(lib.tensor(2.0, requires_grad=True))
    return [v3, name(v3), b, name(b), a, name(a)]


def unchecked_overlap_runs_element_by_element(lib):
    d = np.arange(16.0).reshape(2, 4, 2)
    v1 = lib.tensor(d).diagonal()
    v1.mul_(v1[0])
    x = lib.tensor(np.arange(16.0).reshape(4, 4))
    v2 = x.as_strided((2, 2), (1, 2))
    v2.mul_(v2[0])
    y = lib.tensor(np.arange(16.0).reshape(4, 4))
    y[:, ::2].copy_(y[:, :2])
    z = lib.tensor(np.arange(8.0))
    z[1:7:2].add_(z[0:6:2], alpha=2)
    return [v1, x, y, z]


def chain(t, depth=5):
    """The names along the first next function of t's gradient graph."""
    out, fn = [], t.grad_fn
    while fn is not None and len(out) < depth:
        out.append(fn.name())
        fn = next((f for f, _ in fn.next_functions if f is not None), None)
    return out


def create_graph_chains_through_views(lib):
    a, w = leaf(lib, 3, 2), leaf(lib, 2)
    x = a * 1
    x[1].mul_(w * w)
    g, gw = lib.autograd.grad((x * x).sum(), [a, w], create_graph=True)
    v = x.t()[1]
    g2, = lib.autograd.grad((v * v).sum(), a, create_graph=True)
    y = a.as_strided((2, 2), (1, 2), 1)
    g3, = lib.autograd.grad((y * y).sum(), a, create_graph=True)
    return [chain(t) for t in (g, gw, g2, g3)] + [g, gw, g2, g3]


def inplace_names(lib):
    out = []
    w = leaf(lib, 3)
    for f in (lambda x: x.sub_(w), lambda x: x.sub_(1.0), lambda x: x.div_(w), lambda x: x.div_(2.0),
              lambda x: x.fill_(1.0), lambda x: x.fill_(lib.tensor(2.0, dtype=lib.float64)), lambda x: x.zero_(),
              lambda x: x.copy_(w), lambda x: x.mul_(w), lambda x: x.add_(w, alpha=2)):
        x = leaf(lib, 3) * 1
        f(x)
        out.append([name(x)] + [n.name() if n is not None else None for n, _ in x.grad_fn.next_functions])
    return out


CASES = [select_mul, column_iadd, flat_view_add, transposed_zero, chain_of_views, base_then_view,
         view_then_other_view, view_of_untracked_base, view_in_no_grad_then_base_in_no_grad,
         retain_grad_then_inplace, retain_grad_on_base_and_view, hooks_on_views, retain_grad_create_graph,
         double_backward_through_copy_slices, double_backward_regenerated_view, new_view_ops, setitem_forms,
         setitem_node_structure, self_assignment_through_unsqueeze, as_strided_of_index_result,
         integers_beside_index_tensors, index_put_on_expanded, split_of_empty_dimension,
         masked_index_put_casts_one_value, unchecked_overlap_runs_element_by_element,
         create_graph_chains_through_views, copy_into_bool_is_not_differentiable, elementwise_output_layout,
         gradient_of_sum_is_expanded, fill_expanded, overlap_of_unsqueezed_and_expanded, as_strided_of_stacked,
         inplace_names]


@pytest.mark.parametrize("case", CASES, ids=[c.__name__ for c in CASES])
def test_same_as_torch(case):
    expected = run(case, torch)
    assert expected[0] == "ok", expected
    assert run(case, torchlite) == expected


# Programs torch refuses, with the statement that raises.

def self_operand(lib):
    x = leaf(lib, 3) * 1
    x.mul_(x)
    x.sum().backward()


def overlapping_operand(lib):
    x = leaf(lib, 3) * 1
    x.mul_(x[0])


def partial_overlap(lib):
    x = leaf(lib, 6) * 1
    x[1:4].add_(x[0:3])


def transposed_full_overlap(lib):
    x = leaf(lib, 3, 3) * 1
    x.add_(x.t())


def overlap_size_one_strides(lib):
    x = lib.tensor(np.arange(3.0).reshape(3, 1))
    x.add_(x.view(1, 3).t())


def overlap_select_of_one_element(lib):
    x = leaf(lib, 1) * 1
    x.mul_(x[0])


def overlap_unsqueezed_operand(lib):
    x = leaf(lib, 1, 4) * 1
    x[None].sub_(x)


def backward_through_filled_expanded_view(lib):
    a = leaf(lib, 1)
    x = (a * 2).expand(3, 2)
    x.zero_()
    (x * x).sum().backward()


def overlap_with_alpha(lib):
    x = leaf(lib, 2) * 1
    x.as_strided((1, 2), (1, 1), 0).add_(x, alpha=2.0)


def overlap_transposed_with_alpha(lib):
    x = lib.tensor(np.arange(16.0).reshape(4, 4))
    x.T.add_(x, alpha=-1.5)


def fill_tensor_expanded(lib):
    x = lib.zeros(3, 1).expand(3, 2)
    x[:2] = -1.5


def index_put_value_overlap(lib):
    y = lib.zeros(3)
    y[lib.tensor([0, 1])] = y[1:3]


def index_put_value_full_overlap(lib):
    y = lib.zeros(3)
    y[lib.tensor([0, 1, 2])] = y


def inplace_on_expanded_gradient(lib):
    x = leaf(lib, 3)
    g, = lib.autograd.grad(x.sum(), x)
    g *= x


def inplace_on_expanded_gradient_without_grad(lib):
    x = leaf(lib, 3)
    g, = lib.autograd.grad(x.sum(), x)
    g.add_(1)


def stale_view_of_base_that_gained_history(lib):
    v0 = lib.tensor(1.5)
    v3 = v0.expand(())
    v0[...] = lib.tensor(2.0, requires_grad=True)
    v3.zero_()  # torch's check_inplace sees the view's stored (empty) grad_fn: a leaf


def exponent_of_rpow_modified(lib):
    v1 = leaf(lib, 2).clone()
    v2 = 0.5 ** v1
    v1.div_(v2)
    v1.sum().backward()


def index_put_value_shape_before_bounds(lib):
    x = leaf(lib, 3, 2, 3) * 1
    x[:3:1, None, lib.tensor([2])] = leaf(lib, 3, 2, 3)


def internal_overlap(lib):
    x = leaf(lib, 4) * 1
    x.expand(2, 4).add_(1)


def leaf_view(lib):
    x = leaf(lib, 3, 2)
    x[0].mul_(2)


def view_of_leaf_that_no_longer_requires_grad(lib):
    x = leaf(lib, 4, 4)
    v = x.diagonal()
    x.requires_grad_(False)
    v.mul_(2)


def leaf_inplace(lib):
    x = leaf(lib, 3, 2)
    x.add_(1)


def no_grad_view(lib):
    x = leaf(lib, 3, 2) * 1
    with lib.no_grad():
        v = x[0]
    v.mul_(2)


def no_grad_view_base_changed(lib):
    x = lib.ones(3, 2)
    with lib.no_grad():
        v = x[0]
    x.mul_(leaf(lib, 3, 2))
    _ = v.grad_fn


def multi_output_view(lib, op):
    x = leaf(lib, 4, 2) * 1
    parts = op(x)
    parts[1].mul_(2)


def multi_output_base_changed(lib, op):
    x = leaf(lib, 4, 2) * 1
    parts = op(x)
    x.mul_(2)
    _ = parts[0].grad_fn


def custom_function_view(lib):
    class F(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.view(-1)

        @staticmethod
        def backward(ctx, g):
            return g.view(2, 2)

    y = F.apply(leaf(lib, 2, 2) * 1)
    y.mul_(2)


def custom_function_identity(lib):
    class G(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    y = G.apply(leaf(lib, 2) * 1)
    y.mul_(2)


REFUSED = [self_operand, overlapping_operand, partial_overlap, transposed_full_overlap, overlap_size_one_strides,
           overlap_select_of_one_element, overlap_unsqueezed_operand, backward_through_filled_expanded_view,
           overlap_with_alpha,
           overlap_transposed_with_alpha, fill_tensor_expanded, index_put_value_overlap, index_put_value_full_overlap,
           view_of_permuted_product, inplace_on_expanded_gradient, inplace_on_expanded_gradient_without_grad,
           stale_view_of_base_that_gained_history, exponent_of_rpow_modified,
           index_put_value_shape_before_bounds, internal_overlap,
           leaf_view, view_of_leaf_that_no_longer_requires_grad, leaf_inplace, no_grad_view, no_grad_view_base_changed,
           custom_function_view,
           custom_function_identity]
REFUSED += [lambda lib, op=op, f=f: f(lib, op) for f in (multi_output_view, multi_output_base_changed)
            for op in (lambda x: x.split(2), lambda x: x.chunk(2), lambda x: x.unbind(0))]
REFUSED_IDS = [f.__name__ for f in REFUSED[:27]] + [f"{f}_{op}" for f in ("multi_output_view", "multi_output_base")
                                                    for op in ("split", "chunk", "unbind")]


@pytest.mark.parametrize("case", REFUSED, ids=REFUSED_IDS)
def test_refused_as_torch(case):
    expected = run(case, torch)
    assert expected[0] == "raised", expected
    assert run(case, torchlite) == expected


def test_engine_usable_after_refusals():
    for case in REFUSED:
        run(case, torchlite)
    assert run(select_mul, torchlite) == run(select_mul, torch)
