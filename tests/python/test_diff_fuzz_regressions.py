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


INDEXING = [setitem_overlap_checked_before_the_indices, setitem_value_converted_with_overflow_checks,
            index_put_writes_until_an_index_out_of_bounds, index_put_duplicates_and_a_value_aliasing_self,
            indices_out_of_bounds_where_the_result_is_empty, advanced_indices_adjacent_across_an_empty_ellipsis,
            bools_and_zero_dim_tensors_in_keys, copy_into_an_expanded_view_of_its_own_source,
            cat_skips_one_dimensional_empty_tensors, indexing_error_messages, keys_as_torch_reads_them,
            view_strides_as_compute_stride_gives_them]


CASES = [relu_gradient_at_nan, diagonal_double_backward_names, inference_tensor_divided_by_a_no_grad_view, relu_keeps_negative_zero, double_backward_of_zero_dim_expand,
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


@pytest.mark.parametrize("case", CASES + REFUSED + INDEXING,
                         ids=[c.__name__ for c in CASES + REFUSED + INDEXING])
def test_same_as_torch(case):
    assert run(case, torchlite) == run(case, torch)
