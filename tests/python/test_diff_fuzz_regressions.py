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


def empty_views_keep_their_storage_offset(lib):
    # numpy drops an empty slice's offset; torch's view keeps it, and as_strided reads from there
    v0 = lib.tensor([0.5, 1.5, 2.5], dtype=lib.float64, requires_grad=True)
    v4 = v0.narrow(0, 1, 0)
    v6 = v4.as_strided((1,), (1,))
    m = lib.zeros(0, 3)
    views = [v4, v0[3:], v0[5:], v0[2:1], m[:, 2], m[:, 1::2], lib.zeros(2, 3)[:, 2:2], lib.zeros(2, 0).diagonal(),
             v0.as_strided((0,), (1,), 100), lib.zeros(1, 1)[..., :0, 1:1]]
    views += list(lib.zeros(4, 0).split(1)) + list(lib.zeros(3, 0).unbind())
    views += [v0.narrow(0, 3, 0), v0.narrow(-1, -3, 0), lib.zeros(3, 4, 6)[:, :, 2:2].unsqueeze(1)[1:, :, 1:]]
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


def _outcomes(lib, steps):
    """What each step shows: its result, or its error's type and message."""
    out = []
    for step in steps:
        try:
            out.append(step(lib))
        except Exception as e:  # noqa: BLE001 - the error is what is compared
            out.append((type(e).__name__, str(e)))
    return out


def _setitem(x, key, value):
    """x[key] = value, x's values after it (also after an error: index_put_ writes until it meets a bad index)."""
    try:
        x[key] = value
        err = None
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        err = (type(e).__name__, str(e))
    return [x.clone(), err]


def setitem_overlap_checked_before_the_indices(lib):
    # index_put_ checks the value's overlap with self before make_info broadcasts the indices
    def same_tensor(lib):
        x = lib.ones(4, 4)
        x[lib.tensor([0, 1]), ..., [1, 0, -1]] = x

    def value_a_view_of_a_non_dense_self(lib):
        v = lib.narrow(lib.ones(2, 1, 2), 2, 0, 1)
        v[[0, 1]] = v  # the same tensor: a full overlap, dense or not

    def row_of_self(lib):
        x = lib.ones(4, 4)
        x[[0, 1], [0, 1, 2]] = x[0]

    def bad_first_mask(lib):
        # ... but canDispatchToMaskedFill (a one-element value) checks the masks it meets first
        x = lib.ones(1, 1, 1) * 1
        x[lib.tensor([True, True]), lib.tensor([[-1, -1]]), lib.tensor([True])] = x

    return _outcomes(lib, [same_tensor, value_a_view_of_a_non_dense_self, row_of_self, bad_first_mask])


def setitem_value_converted_with_overflow_checks(lib):
    def put(dtype, key, value):
        return lambda lib: _setitem(lib.zeros(3, dtype=getattr(lib, dtype)), key(lib), value(lib))
    num = lambda v: lambda lib: v  # noqa: E731
    mask = lambda lib: lib.tensor([True, False, True])  # noqa: E731
    with warnings.catch_warnings(record=True) as caught:  # numpy's cast warnings: torch is silent
        warnings.simplefilter("always")
        out = _outcomes(lib, [
            put("int64", lambda lib: [0, 1], num(1e30)),
            put("int64", lambda lib: 1, num(float("nan"))),
            put("int64", lambda lib: slice(1, None), num(-9.3e18)),
            put("int64", mask, lambda lib: lib.tensor(float("nan"))),  # masked_fill_(mask, value.item())
            put("int64", mask, lambda lib: lib.tensor([[1e30]])),
            put("int64", mask, lambda lib: lib.tensor([2.7])),
            put("float32", lambda lib: 0, num(1e300)),
            put("float32", mask, lambda lib: lib.tensor(1e300, dtype=lib.float64)),
            put("float32", lambda lib: 0, num(float("inf"))),
            put("bool", lambda lib: [0, 1], num(float("nan"))),
            put("int64", lambda lib: 0, num(2 ** 63)),
            put("float32", lambda lib: 0, num(np.float32(2.5))),
            put("int64", lambda lib: 0, num(np.bool_(True))),
            put("float32", lambda lib: 0, num([1.0])),
            put("float32", lambda lib: 0, num(np.int32(7))),
            # a tensor value casts as copy_ and fill_ do: silently
            put("int64", lambda lib: 0, lambda lib: lib.tensor(float("nan"))),
            put("int64", lambda lib: Ellipsis, lambda lib: lib.tensor([float("nan"), 1e30, -1e30])),
            put("float32", lambda lib: slice(1, None), lambda lib: lib.tensor(1e300, dtype=lib.float64)),
            lambda lib: lib.zeros(3, dtype=lib.int64).fill_(1e300), lambda lib: lib.zeros(3).fill_(1e300),
            lambda lib: lib.zeros(3, dtype=lib.int64).fill_(2 ** 63),
            lambda lib: lib.zeros(3, dtype=lib.int64).fill_(lib.tensor(float("nan"))),
            ])
    return [out, [str(w.message) for w in caught]]


def index_put_writes_until_an_index_out_of_bounds(lib):
    # the kernel checks each element's indices as it writes it, in TensorIterator's order
    v = lib.tensor(np.arange(6.0).reshape(2, 3))
    return [_setitem(lib.zeros(1, 1, 2, dtype=lib.bool), ([-1, 0, 0], None, [0, -2, -1]), 0.5),
            _setitem(lib.tensor(np.arange(24).reshape(4, 2, 3)), (Ellipsis, [1, 2], [-2, 1]), 0.5),
            _setitem(lib.zeros(2, 3, dtype=lib.float64), (None, [1, -3]), v.double()),
            _setitem(lib.zeros(3, 4, 1), (None, lib.tensor([0, 3, 3]), slice(0, None)), 2),
            _setitem(lib.zeros(2, 3, 4), (slice(None), [0, 5], slice(None)), lib.arange(1.0, 9.0).view(4, 2).t()),
            _setitem(lib.zeros(4, 3).t(), ([1, 0, 1, 2, 7], slice(None)), lib.arange(4.0)),
            # the index tensor's strides on the size-1 dimensions around it (reshape_indexer) and
            # unsqueeze's stride break TensorIterator's ties: each index writes a whole x[i] first
            _setitem(lib.tensor(np.arange(36.0).reshape(4, 3, 3)).transpose(0, 1), (None, [-3, -3, 3]),
                     lib.tensor([100.0, 200.0, 300.0])),
            lib.arange(6.0).view(2, 3).t().unsqueeze(-1).stride()]


def index_put_duplicates_and_a_value_aliasing_self(lib):
    def every_other(lib):
        y = lib.arange(6.0)
        y[[2, 4, 0]] = y[::2]  # not dense: no overlap check, read as the kernel goes
        return y

    def column(lib):
        z = lib.arange(6.0).view(3, 2)
        z[[1, 0, 2], [1, 1, 0]] = z[:, 0]
        return z

    def overlapping_slice(lib):
        y = lib.arange(6.0)
        y[[0, 1, 2]] = y[1:4]

    return [_setitem(lib.zeros(2, 3), ([1, -1, 0, -2], [0, 0, 2, 2]), lib.arange(1.0, 5.0)),
            _setitem(lib.zeros(2, 3), ([1, 1, 0, 1], slice(None)), lib.arange(12.0).view(4, 3)),
            _outcomes(lib, [every_other, column, overlapping_slice])]


def indices_out_of_bounds_where_the_result_is_empty(lib):
    def get_empty(lib):
        return lib.ones(1, 1, 6)[None, 1:1, [3, -6]]

    def put_empty(lib):
        return _setitem(lib.ones(2, 3, 4), (slice(0, 0), None, [1, -4, -4]), 3)

    def get_size_zero_dim(lib):
        return lib.zeros(2, 0)[:, [0]]

    def put_size_zero_dim(lib):
        return _setitem(lib.zeros(2, 0), (slice(None), [0]), 1.0)

    def get_rows_of_nothing(lib):
        return lib.zeros(0, 3)[:, [5]]

    def backward_through_empty(lib):
        # the formulas read no index either where the indexing result is empty
        x = lib.ones(3, 1, 2, dtype=lib.float64, requires_grad=True)
        y = x * 1
        y[[3, -2], -2:0:2] = 5.0
        z = x[[3, -2], -2:0:2]
        (y.sum() + z.sum()).backward()
        return [y, z, x.grad]

    return _outcomes(lib, [get_empty, put_empty, get_size_zero_dim, put_size_zero_dim, get_rows_of_nothing,
                           backward_through_empty])


def advanced_indices_adjacent_across_an_empty_ellipsis(lib):
    # torch expands the Ellipsis first: the index tensors are adjacent and keep their place
    v0 = lib.tensor(np.arange(12.0).reshape(2, 2, 3), requires_grad=True)
    v1 = v0[0::1, lib.tensor([1, 0, 1]), ..., [0, 1, 0]]
    v1.sum().backward()
    return [v1, v1.grad_fn.name(), v0.grad]


def bools_and_zero_dim_tensors_in_keys(lib):
    x = lib.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    y = lib.tensor(np.arange(6.0).reshape(2, 3))
    y[True] = 5.0
    z = lib.tensor(np.arange(6.0).reshape(2, 3))
    z[False] = 5.0
    w = lib.tensor(np.arange(6.0).reshape(2, 3))
    w[lib.tensor(1)] = 7.0
    return [x[lib.tensor(1)], x[lib.tensor(1)].grad_fn.name(), x[True].grad_fn.name(), x[[0, 1], True, [1, 2]],
            y, z, w]


def copy_into_an_expanded_view_of_its_own_source(lib):
    # copy_ returns before its overlap checks when src is the same view of the same memory
    v0 = lib.tensor([0.5, 1.5, 2.5])
    v1 = v0.expand(3, 3)
    v1[1::1] = v0
    return _outcomes(lib, [lambda lib: v1, lambda lib: v1[1:].copy_(v0 + 1)])


def cat_skips_one_dimensional_empty_tensors(lib):
    v0 = lib.tensor([0.25], dtype=lib.float64, requires_grad=True)
    e = v0[1:]
    out = lib.cat([e, e], 1)  # every tensor skipped: dim is not even wrapped
    b = lib.ones(2, 3, requires_grad=True)
    mixed = lib.cat([e, b, e], -1)
    (mixed * 2).sum().backward()
    out.sum().backward()
    return [out, out.grad_fn.name(), mixed, v0.grad, b.grad,
            _outcomes(lib, [lambda lib: lib.cat([lib.zeros(0), lib.ones(2, 3), lib.ones(2, 4)], 0),
                            lambda lib: lib.cat([lib.zeros(0), lib.ones(2, 3)], 2),
                            lambda lib: lib.cat([], 0), lambda lib: lib.cat(lib.ones(2, 3), 0),
                            lambda lib: lib.cat([lib.ones(2, 3), 1.0], 0),
                            lambda lib: lib.cat([lib.ones(2, 3), lib.ones(2, 3)], 0.5),
                            lambda lib: lib.cat([lib.ones(2, 3), lib.ones(2, 3)], np.int64(1))])]


def indexing_error_messages(lib):
    # applySlicing names an integer's dimension by its position in the key; a lone integer or
    # slice on a 0-dim tensor has its own errors; at::expand prints a bool tensor as CPUBoolType
    def get(shape, key):
        return lambda lib: lib.zeros(shape)[key]

    def put(shape, key):
        return lambda lib: lib.zeros(shape).__setitem__(key, 1.0)

    return _outcomes(lib, [
        get((2, 3), (slice(None), 2 ** 63)), get((2, 3), 1.5), get((2, 3), (0, {1})), put((2, 3), 2 ** 63),
        get((2, 3, 4), (None, -3)), get((2, 3, 4), (Ellipsis, 5)), get((2, 3, 4), ([0], None, 0, 7)),
        put((2, 3, 4), (None, -3)), put((2, 3, 4), (Ellipsis, 5)), put((2, 3, 4), (slice(None), 1, 9)),
        get((), 0), get((), 1), get((), slice(None)), get((), (0, 0)), get((), (None, 1)), get((), (Ellipsis, 0)),
        put((), 0), put((), 1), put((), slice(None)), put((), (None, 0)),
        lambda lib: lib.zeros(4, 4, 2, dtype=lib.bool).expand(1, 2),
        lambda lib: lib.zeros(4, 2).__setitem__(0, lib.zeros(3, 2, dtype=lib.bool)),
    ])


def keys_as_torch_reads_them(lib):
    # a short list holding a sequence, slice, None or tensor is a tuple (with torch's warning);
    # a list of numbers indexes as int64 (floats truncated); float index tensors are refused
    def seen(step):
        def run(lib):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                out = step(lib)
            return [out, [str(w.message) for w in caught]]
        return run

    x = lambda lib: lib.tensor(np.arange(6.0).reshape(2, 3))  # noqa: E731

    def put(lib):
        y = x(lib)
        y[[[0, 1], [1, 0]]] = 7.0
        return y

    def delete(lib):
        del x(lib)[0]

    return _outcomes(lib, [seen(lambda lib: x(lib)[[[0, 1], [1, 0]]]), seen(put),
                           seen(lambda lib: x(lib)[[None, 1]]), seen(lambda lib: x(lib)[[[]]]),
                           lambda lib: x(lib)[[0.7, -1.5]], lambda lib: x(lib)[lib.tensor([0.0, 1.0])],
                           lambda lib: x(lib)[lib.tensor(1.0)], lambda lib: x(lib).__setitem__(lib.tensor([1.0]), 1.0),
                           delete])


def view_strides_as_compute_stride_gives_them(lib):
    # a size-1 dimension takes the stride where computeStride places it; an empty tensor's
    # view gets contiguous strides
    x = lib.arange(3.0).view(3, 1).t()
    y = lib.arange(24.0).view(2, 3, 4).permute(2, 0, 1)
    return [x.view(1, 3).stride(), x.reshape(3, 1).stride(), y.view(4, 6, 1).stride(), y.view(4, 1, 6).stride(),
            y.reshape(1, 4, 6).stride(), lib.zeros(2, 0, 3).view(3, 0, 2).stride(),
            _outcomes(lib, [lambda lib: y.view(24)])]


def like_factories_keep_the_layout(lib):
    # empty_like's preserve_format: ones_like of a transpose is a transpose, which view refuses
    v2 = lib.ones_like(lib.arange(6.0).view(2, 3).T, requires_grad=True)
    e = lib.arange(3.0).view(3, 1).expand(3, 4).T  # not dense: dense strides in its dimension order
    return [v2.stride(), lib.zeros_like(v2).stride(), _outcomes(lib, [lambda lib: v2.view(1, -1)]),
            lib.full_like(e, 2.5), lib.full_like(e, 2.5).stride(), lib.empty_like(e[:, ::2]).stride(),
            lib.zeros_like(e, dtype=lib.int64).stride(), lib.randn_like(e).stride(),
            lib.rand_like(v2, dtype=lib.float64).stride(), lib.rand_like(v2, dtype=lib.float64).dtype == lib.float64,
            lib.randn_like(v2).requires_grad, lib.randn_like(e, requires_grad=True).requires_grad]


def index_put_saves_its_index_tensors(lib):
    # IndexPutBackward0 saves the index tensors (torch's `indices`): hooks see them, a freed
    # graph refuses a second backward, and its double backward reads them back
    a = lib.arange(1.0, 5.0, requires_grad=True)
    v = lib.tensor([2.0, 3.0], requires_grad=True)
    out, packed = [], []
    for key in ((lib.tensor([0, 2]),), [0, 2], lib.tensor([True, False, True, False])):
        x = a * 1
        with lib.autograd.graph.saved_tensors_hooks(lambda t: packed.append(str(t.dtype)) or t, lambda t: t):
            x[key] = v if not isinstance(key, list) else 1.5
        (x * x).sum().backward(retain_graph=True)
        x.sum().backward()
        out.append(_outcomes(lib, [lambda lib, x=x: x.sum().backward()]))
    x = a * 1
    x[lib.tensor([1, 3])] = v * v
    ga, gv = lib.autograd.grad((x * x).sum(), (a, v), create_graph=True)
    (ga.sum() + (gv * gv).sum()).backward()
    return out + [packed, a.grad, v.grad, ga.grad_fn.name(), gv.grad_fn.name()]


INDEXING = [setitem_overlap_checked_before_the_indices, setitem_value_converted_with_overflow_checks,
            index_put_writes_until_an_index_out_of_bounds, index_put_duplicates_and_a_value_aliasing_self,
            indices_out_of_bounds_where_the_result_is_empty, advanced_indices_adjacent_across_an_empty_ellipsis,
            bools_and_zero_dim_tensors_in_keys, copy_into_an_expanded_view_of_its_own_source,
            cat_skips_one_dimensional_empty_tensors, indexing_error_messages, keys_as_torch_reads_them,
            view_strides_as_compute_stride_gives_them, like_factories_keep_the_layout,
            index_put_saves_its_index_tensors]


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
    return [g, g.grad_fn.name(), x.sum(0).stride(), x.mean(0, keepdim=True).view(8), x.sum(2).view(-1),
            x.sum(0, keepdim=True).stride(), x.mean(2, keepdim=True).stride(), x.sum((0, 1), True).stride()]


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
                for step in (lambda u=u: u.div_(1.5), lambda u=u: u.sub_(lib.ones(())), lambda u=u: u._version):
                    try:
                        row.append(step())
                    except RuntimeError as e:
                        row.append(str(e))
            out.append(row)
    return out


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


def ops_on_an_inference_tensor_that_requires_grad(lib):
    # autograd runs only where some tensor argument is not an inference tensor: views and unary
    # ops of one record nothing; a wrapped number, an index or condition tensor made outside
    # inference mode records the op; clone / to copy_ into a normal tensor (CopyBackwards)
    with lib.inference_mode():
        v = lib.ones(2, 3, requires_grad=True)
        c = v > 0
    ops = [lambda: v.transpose(1, 1), lambda: v.view(6), lambda: v.split(1)[0], lambda: v[0], lambda: v.sin(),
           lambda: v ** 2, lambda: v.sum(), lambda: v.max(0)[0], lambda: v * 2, lambda: 2.5 - v,
           lambda: v + lib.ones(3),
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
    _ = v8.grad_fn
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
    # element 13 (x = 0.7878774) is left out: torch's float32 tanh (SLEEF, 1 ulp) rounds it one ulp
    # off the correctly rounded value on some CPUs (AVX-512 Xeons) and not on others
    x = np.delete(np.random.default_rng(17704).standard_normal(64).astype("float32"), 13)
    g = np.delete(np.random.default_rng(1).standard_normal(64).astype("float32"), 13)
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


def as_strided_backward_graph_of_an_overlapping_output(lib):
    # overlapping output elements add up through index_add_ (IndexAddBackward0 over the
    # gradient's ViewBackward0), whose own backward is index_select(...).expand_as(source)
    def chain(fn):
        names = []
        while fn is not None and len(names) < 7:
            names.append(fn.name())
            fn = next((f for f, _ in fn.next_functions if f is not None), None)
        return names
    x = lib.tensor(np.arange(1.0, 7.0), requires_grad=True)
    y = x.as_strided((3, 2), (1, 1))
    g, = lib.autograd.grad((y * y).sum(), x, create_graph=True)
    h, = lib.autograd.grad((g * g).sum(), x, create_graph=True)
    h2, = lib.autograd.grad(h.sum(), x)
    return [g, chain(g.grad_fn), h, chain(h.grad_fn), h2]


CASES = [empty_views_keep_their_storage_offset, detached_views_keep_their_storage,
         as_strided_gradient_storage_of_an_overlapping_input, relu_gradient_at_nan,
         diagonal_double_backward_names, inference_tensor_divided_by_a_no_grad_view,
         relu_keeps_negative_zero, double_backward_of_zero_dim_expand,
         inplace_on_detached_and_viewed_inference_tensors, index_saves_its_index_tensors,
         sum_to_views_a_row_major_sum, clone_of_an_expanded_tensor_keeps_dimension_order,
         view_of_integer_tensor_with_history, copies_keep_the_layout_of_an_expanded_input,
         reductions_are_row_major, gradients_keep_torch_layout,
         number_to_the_power_of_a_transposed_tensor_is_contiguous,
         retain_grad_on_a_stale_view_is_a_noop, double_backward_through_an_empty_regenerated_view,
         ops_on_an_inference_tensor_that_requires_grad, tanh_gradient_fuses_one_minus_square,
         add_with_alpha_rounds_once, alpha_overflow_and_bool_rsub_of_an_inference_tensor,
         integer_cast_of_an_inference_tensor_is_quiet,
         as_strided_backward_graph_of_an_overlapping_output]


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
           as_strided_negative_size, index_tensors_that_do_not_broadcast, inplace_on_stale_view_checks_before_cloning,
           index_put_on_a_leaf_checks_the_leaf_first, pow_with_a_bool_exponent_backward,
           checkpoint_of_an_inference_tensor]


def convolution_checks_of_the_cpu_backends(lib):
    # the transposed kernels' output-size check, the Empty backend's numel check and the
    # backends' dispatch without bool (seeds 78, 1041, 1107, 2669)
    B = lib.bool
    return _outcomes(lib, [
        lambda lib: lib.convolution(lib.ones(1, 1, 1), lib.ones(1, 1, 1), None, [2], [1], [1], True, [1], 1),
        lambda lib: lib.conv_transpose2d(lib.ones(1, 1, 1, 1), lib.ones(1, 1, 1, 1), padding=1),
        lambda lib: lib.convolution(lib.ones(1, 1, 1, 1, 1), lib.ones(1, 1, 1, 1, 1), None, [1, 1, 1], [1, 1, 1],
                                    [1, 1, 1], True, [0, 0, 0], 1),
        lambda lib: lib.conv1d(lib.ones(1, 1, 0), lib.ones(1, 1, 2), padding=1),
        lambda lib: lib.conv_transpose1d(lib.ones(1, 1, 0), lib.ones(1, 1, 2)),
        lambda lib: lib.conv1d(lib.ones(0, 1, 3, dtype=B), lib.ones(1, 1, 2, dtype=B)),
        lambda lib: lib.conv2d(lib.ones(1, 1, 1, 1, dtype=B), lib.ones(1, 1, 1, 1, dtype=B)),
        lambda lib: lib.conv1d(lib.ones(1, 1, 3, dtype=B), lib.ones(1, 1, 2, dtype=B), dilation=2),
        lambda lib: lib.convolution(lib.ones(1, 1, 3, dtype=B), lib.ones(1, 1, 2, dtype=B), None, [2], [1], [1], True,
                                    [1], 1),
        lambda lib: lib.convolution(lib.ones(1, 1, 3, 3, 3, dtype=B), lib.ones(1, 1, 2, 2, 2, dtype=B), None,
                                    [1, 1, 1], [0, 0, 0], [1, 1, 1], False, [0, 0, 0], 1),
        lambda lib: lib.conv1d(lib.ones(1, 1, 3, dtype=lib.int64), lib.ones(1, 1, 2, dtype=lib.int64), padding=1),
    ])


def softmax_of_an_empty_integer_tensor(lib):
    # (log_)softmax_cpu_out return before the dtype dispatch when there are no elements (seed 2462)
    return _outcomes(lib, [lambda lib: lib.softmax(lib.zeros(1, 0, dtype=lib.int64), -1),
                           lambda lib: lib.log_softmax(lib.zeros(0, 3, dtype=lib.int64), 1),
                           lambda lib: lib.softmax(lib.zeros(0, 3, dtype=lib.bool), 0),
                           lambda lib: lib.softmax(lib.zeros(2, 3, dtype=lib.int64), 0),
                           lambda lib: lib.softmax(lib.zeros(2, 3, dtype=lib.int64), 1)])


def threshold_writes_an_overlapping_self(lib):
    # threshold's TensorIterator skips the memory-overlap check (it is idempotent); relu_ keeps it (seed 2560)
    def written(lib):
        x = lib.arange(3.0).expand(2, 3)
        y = lib.nn.functional.threshold(x, 0.1, 20.0, inplace=True)
        return [x, y, x.stride()]

    def with_grad(lib):
        b = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
        x = b.clone().expand(2, 3)
        lib.threshold_(x, 0.6, -3.0)
        return x

    return _outcomes(lib, [written, with_grad, lambda lib: lib.arange(3.0).expand(2, 3).relu_()])


def gelu_of_infinity_on_the_vectorized_path(lib):
    # torch's Vectorized<float> erf gives gelu(+inf) = nan on a contiguous input; one element,
    # a strided input, float64 and the tanh form keep inf (seed 2519)
    F = lib.nn.functional.gelu
    inf = float("inf")
    x = lib.tensor([[inf, -inf, 1.0, 2.0], [float("nan"), 1e30, -1e30, inf]])
    return [F(x), F(x.t()), F(x[:, ::2]), F(x[0, :1]), F(lib.tensor(inf)), F(x.half()), F(x.double()),
            F(x, approximate="tanh"), F(lib.full((33,), inf))]


CASES += [convolution_checks_of_the_cpu_backends, softmax_of_an_empty_integer_tensor,
          threshold_writes_an_overlapping_self, gelu_of_infinity_on_the_vectorized_path]


def index_add_of_a_zero_dim_integer_tensor_casts_alpha(lib):
    # alpha is converted to self's type before it scales source, on a 0-dim self too (seed 2434)
    v1 = lib.tensor(2)
    return [lib.index_add(v1, -1, lib.tensor([0]), v1.index_select(-1, lib.tensor([0])), alpha=0.5),
            lib.index_add(v1, 0, lib.tensor([0, 0]), lib.tensor([3, 4]).sum(), alpha=1.7),
            lib.index_add(lib.tensor([2, 5]), 0, lib.tensor([0]), lib.tensor([3]), alpha=1.7),
            lib.index_add(lib.tensor(2.0), 0, lib.tensor([0]), lib.tensor(3.0), alpha=0.5)]


CASES += [index_add_of_a_zero_dim_integer_tensor_casts_alpha]


def cross_rounds_as_a_fused_multiply_add(lib):
    # CrossKernel.cpp's a1*b2 - a2*b1 contracts to an fma: cross(v, v) is not 0 (seed 2017)
    v = lib.tensor([-0.607, 1.23, 0.711], dtype=lib.float64)
    w = lib.tensor([[0.3, -1.7, 2.9], [1.1, 0.2, -0.35]])
    c = lib.linalg.cross(v, v)
    return [c.numpy().tolist(), c.nonzero(), lib.linalg.cross(w, w).numpy().tolist(),
            lib.linalg.cross(w.t(), w.flip(0).t(), dim=0).numpy().tolist()]


CASES += [cross_rounds_as_a_fused_multiply_add]


def blas_products_with_alpha_zero_leave_the_product_out(lib):
    # gemm / gemv with alpha == 0 do not read the product: a nan in the matrices stays out of
    # addmm / addmv / addbmm; baddbmm's small-matrix loop multiplies it by 0 (seed 1888)
    nan = float("nan")
    m, s = lib.tensor([[nan, 1.], [1., 1.]]), lib.ones(2, 2)
    return [lib.addmm(s, m, m, alpha=0), lib.addmv(s[0], m, m[0], alpha=0), lib.addbmm(s, m[None], m[None], alpha=0),
            lib.baddbmm(s[None], m[None], m[None], alpha=0), lib.addmm(s, m, m, alpha=0, beta=0),
            s.clone().addmm_(m, m, alpha=0)]


CASES += [blas_products_with_alpha_zero_leave_the_product_out]


def put_writes_the_indices_before_one_out_of_range(lib):
    # put_stub's loop writes each index in turn: those before an out-of-range one are written when it
    # raises (with and without accumulate); a self overlapping itself is refused first (seeds 1267,
    # 1385, 1532)
    out = []
    for accumulate in (False, True):
        x = lib.zeros(2, 3).t()
        out.append(run(lambda lib, x=x, accumulate=accumulate: x.put_(lib.tensor([1, -2, 9, 0]), lib.ones(4) * 2,
                                                                     accumulate=accumulate), lib))
        out.append(x)
    v = lib.ones(2, 1).expand(2, 3)
    out.append(run(lambda lib: v.put_(lib.tensor([9]), lib.ones(1)), lib))
    return out


CASES += [put_writes_the_indices_before_one_out_of_range]


def median_of_an_empty_tensor_is_nan_cast_for_every_dtype(lib):
    # median_impl returns full({}, NAN) before dispatching on the dtype: a bool one is True (seed 237)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [getattr(lib.zeros(4, 0, dtype=dt), f)() for dt in (lib.bool, lib.int64, lib.uint8, lib.int32,
                                                                   lib.float16, lib.float32)
                for f in ("median", "nanmedian")]


CASES += [median_of_an_empty_tensor_is_nan_cast_for_every_dtype]


def unique_with_a_dim_checks_the_empty_dims(lib):
    # _unique_dim_cpu_template: an empty dim not selected, or more than one empty dim, is refused, for
    # unique_consecutive too (seed 991)
    z, w, v = lib.zeros(0, 0, dtype=lib.int64), lib.zeros(3, 0), lib.zeros(0, 3)
    return [run(lambda lib: lib.unique_consecutive(z, return_counts=True, dim=0), lib),
            run(lambda lib: lib.unique_consecutive(w, dim=0), lib), lib.unique_consecutive(v, dim=0),
            run(lambda lib: lib.unique(z, dim=0), lib), run(lambda lib: lib.unique(w, dim=0), lib),
            lib.unique_consecutive(w, dim=1), lib.unique(v, dim=0, return_counts=True)]


CASES += [unique_with_a_dim_checks_the_empty_dims]


def bilinear_checks_dtypes_as_torch(lib):
    # at::bilinear's same-dtype check (TypeMeta names), _trilinear's bmm refusing bool (seeds 355, 1062)
    b, w = lib.ones(2, 1, dtype=lib.bool), lib.ones(3, 1, 1)
    return [run(lambda lib: lib.nn.functional.bilinear(b, b, w), lib),
            run(lambda lib: lib.nn.functional.bilinear(b, b, w.bool()), lib),
            run(lambda lib: lib.nn.functional.bilinear(b.float(), b.double(), w), lib),
            run(lambda lib: lib.nn.functional.bilinear(b.to(lib.int16), b.float(), w), lib),
            lib.nn.functional.bilinear(b.long(), b.long(), w.long())]


CASES += [bilinear_checks_dtypes_as_torch]


def embedding_bag_max_keeps_a_first_nan_and_skips_later_ones(lib):
    # the CPU max kernel takes a bag's first row and replaces only on a strictly larger value (seed 143)
    nan = float("nan")
    w = lib.tensor([[-0.3069, -0.7979], [-1.0834, nan], [nan, 2.0], [0.5, nan]], requires_grad=True)
    out = []
    for idx, off, last, pad in (([1, 0, 1], [0, 1, 3], True, None), ([2, 0, 3, 1], [0, 2], False, None),
                                ([2, 2, 3], [0, 1, 1], False, None), ([3, 2, 0], [0, 2], False, 3)):
        r = lib.nn.functional.embedding_bag(lib.tensor(idx), w, lib.tensor(off), mode="max", include_last_offset=last,
                                            padding_idx=pad)
        g, = lib.autograd.grad(r.sum(), w)
        full = lib.embedding_bag(w, lib.tensor(idx), lib.tensor(off), False, 2, False, None, last,
                                 -1 if pad is None else pad)
        out.append((r, g, full[3]))
    return out


CASES += [embedding_bag_max_keeps_a_first_nan_and_skips_later_ones]


def histc_bins_as_the_kernel_interpolates(lib):
    # HistogramKernel.cpp: (x - lo) * bins / (hi - lo); a lone value's range is [x - 1, x + 1] (seed 2545)
    out = [lib.tensor(-1.147).histc(10), lib.tensor([0.3, 0.3]).histc(7), lib.tensor(2.0, dtype=lib.float64).histc(3)]
    x = lib.tensor([[0.1, -0.7, 2.5], [1.3, 0.0, -2.0]])
    return out + [x.histc(b) for b in (1, 4, 9, 13)] + [x.histc(5, min=-1, max=1.5)]


CASES += [histc_bins_as_the_kernel_interpolates]


def scatter_with_a_0d_index_reads_src_at_its_first_position(lib):
    # (seed 2115) a 0-d index is one element: src is read at its first position, whatever src's shape
    x = lib.tensor([0.5, 0.1, 0.2], requires_grad=True)
    src = lib.tensor([[0.251, 0.9], [0.3, 0.4]], requires_grad=True)
    out = [lib.scatter(x, 0, lib.tensor(1), src), lib.scatter_add(x, 0, lib.tensor(2), src),
           lib.scatter_reduce(x, 0, lib.tensor(1), src, "amax", include_self=False)]
    out += [lib.scatter_reduce(lib.tensor(0.5), -1, lib.tensor(0), lib.tensor([0.251, 0.9]), r, include_self=inc)
            for r in ("amin", "amax", "sum", "prod", "mean") for inc in (True, False)]
    return out, lib.autograd.grad(sum(o.sum() for o in out[:3]), (x, src))


CASES += [scatter_with_a_0d_index_reads_src_at_its_first_position]


def unique_over_a_dim_lays_its_output_out_as_torch(lib):
    # (table 2, seed 4173) _unique_dim_cpu_template moves the dim first and back: not contiguous for dim > 0,
    # so contiguous() of an op on it is a clone
    v0 = lib.tensor(np.arange(12.0, dtype=np.float32).reshape(4, 3, 1) % 5, requires_grad=True)
    out = []
    for fn in (lib.unique, lib.unique_consecutive):
        for dim in (0, 1, 2, -1):
            u = fn(v0, dim=dim)
            c = lib.atan(u).contiguous()
            out += [u, u.stride(), u.is_contiguous(), c.grad_fn.name(), c.stride()]
    z = lib.zeros(2, 0, 3)
    return out + [lib.unique(z, dim=1).stride(), lib.unique_consecutive(z, dim=1).stride()]


CASES += [unique_over_a_dim_lays_its_output_out_as_torch]


@pytest.mark.parametrize("case", CASES + REFUSED + INDEXING,
                         ids=[c.__name__ for c in CASES + REFUSED + INDEXING])
def test_same_as_torch(case):
    assert run(case, torchlite) == run(case, torch)
