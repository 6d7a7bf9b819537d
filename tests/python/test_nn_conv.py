"""torchlite.nn.functional's convolution, pooling, normalisation and padding (issue 15, the conv
family) against torch: values (float64 to 1e-10 relative, float32 to 1e-5), gradients, double
gradients, node names, saved fields and errors, on "cpu" and "sim:0"."""
import warnings

import numpy as np
import pytest

import torchlite
import torchlite.nn.functional as TF
from diff_utils import import_torch, run

torch = import_torch()
import torch.nn.functional as F  # noqa: E402

DEVICES = ["cpu", "sim:0"]


def functional(lib):
    return TF if lib is torchlite else F


def _tol(dtype):
    return (1e-10, 1e-12) if dtype == np.float64 else (1e-5, 1e-6)


def _arr(t):
    return None if t is None else t.detach().cpu().numpy() if hasattr(t, "cpu") else t.detach().numpy()


def _close(a, b, dtype):
    rtol, atol = _tol(dtype)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def _leaves(lib, dev, arrays, grad=True):
    out = []
    for a in arrays:
        if a is None:
            out.append(None)
            continue
        t = lib.tensor(a, device=dev if lib is torchlite else "cpu")
        out.append(t.requires_grad_(grad) if a.dtype.kind == "f" else t)
    return out


def compare(fn, arrays, dev, double=True, check_names=True):
    """fn(lib, *tensors) under both libs: the output values and node name, the first gradients of
    a weighted sum and (double) the gradients of the first gradients' weighted sum."""
    results = {}
    for lib in (torchlite, torch):
        leaves = _leaves(lib, dev, arrays)
        out = fn(lib, *leaves)
        record = {"out": _arr(out), "name": out.grad_fn.name() if out.grad_fn is not None else None}
        diff = [t for t in leaves if t is not None and t.requires_grad]
        if diff and out.requires_grad:
            w = lib.tensor(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape)), dtype=out.dtype,
                           device=out.device)
            grads = lib.autograd.grad((out * w).sum(), diff, create_graph=double, allow_unused=True)
            record["grads"] = [_arr(g) for g in grads]
            if double:
                live = [g for g in grads if g is not None and g.requires_grad]
                record["gnames"] = [g.grad_fn.name() for g in live]
                if live:
                    total = sum((g * g).sum() for g in live)
                    gg = lib.autograd.grad(total, diff, allow_unused=True)
                    record["gg"] = [_arr(g) for g in gg]
        results[lib] = record
    a, b = results[torchlite], results[torch]
    dtype = next(x.dtype for x in arrays if x is not None)
    if check_names:
        assert a["name"] == b["name"]
        assert a.get("gnames") == b.get("gnames")
    _close(a["out"], b["out"], dtype)
    for key in ("grads", "gg"):
        assert (key in a) == (key in b), key
        for x, y in zip(a.get(key, []), b.get(key, []), strict=True):
            assert (x is None) == (y is None), key
            if x is not None:
                _close(x, y, dtype)
    return results


def rand(*shape, dtype=np.float64, seed=0):
    return np.random.default_rng(seed + sum(shape)).standard_normal(shape).astype(dtype)


# convolution ---------------------------------------------------------------------------------------------

CONV2D = [
    dict(),
    dict(padding=1),
    dict(stride=2, padding=1),
    dict(stride=(2, 1), padding=(0, 2), dilation=(1, 2)),
    dict(dilation=2, padding=2),
    dict(padding="same"),
    dict(padding="valid"),
    dict(padding="same", dilation=(1, 2)),
]


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("kw", CONV2D)
@pytest.mark.parametrize("bias", [True, False])
def test_conv2d(dev, kw, bias):
    arrays = [rand(2, 4, 7, 6), rand(6, 4, 3, 3, seed=1), rand(6, seed=2) if bias else None]
    compare(lambda lib, x, w, b: functional(lib).conv2d(x, w, b, **kw), arrays, dev)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("groups", [2, 4])
def test_conv2d_groups(dev, groups):
    arrays = [rand(2, 4, 6, 5), rand(8, 4 // groups, 3, 2, seed=1), rand(8, seed=2)]
    compare(lambda lib, x, w, b: functional(lib).conv2d(x, w, b, padding=1, stride=(1, 2), groups=groups), arrays,
            dev)


@pytest.mark.parametrize("dev", DEVICES)
def test_conv2d_even_kernel_same(dev):
    arrays = [rand(2, 3, 6, 5), rand(4, 3, 2, 4, seed=1), None]
    res = compare(lambda lib, x, w, b: functional(lib).conv2d(x, w, padding="same"), arrays, dev)
    assert res[torchlite]["name"] == "ConvolutionBackward0"


def test_conv2d_even_kernel_same_warns_once(monkeypatch):
    """torch's TORCH_WARN_ONCE: the first asymmetric padding="same" of the process warns."""
    from torchlite._ops import Convolution
    monkeypatch.setattr(Convolution, "_WARNED_SAME", [False])
    x, w = torchlite.randn(1, 1, 4, 4), torchlite.randn(1, 1, 2, 2)
    with pytest.warns(UserWarning, match="even kernel lengths and odd dilation may require a zero-padded copy"):
        TF.conv2d(x, w, padding="same")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        TF.conv2d(x, w, padding="same")


@pytest.mark.parametrize("dev", DEVICES)
def test_conv2d_unbatched(dev):
    arrays = [rand(3, 6, 5), rand(4, 3, 3, 3, seed=1), rand(4, seed=2)]
    res = compare(lambda lib, x, w, b: functional(lib).conv2d(x, w, b, padding=1), arrays, dev)
    assert res[torchlite]["name"] == "SqueezeBackward1"


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("kw", [dict(), dict(stride=2, padding=1, dilation=2), dict(padding="same"),
                                dict(groups=2, padding=1)])
def test_conv1d(dev, kw):
    groups = kw.get("groups", 1)
    arrays = [rand(3, 4, 9), rand(6, 4 // groups, 3, seed=1), rand(6, seed=2)]
    compare(lambda lib, x, w, b: functional(lib).conv1d(x, w, b, **kw), arrays, dev)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("kw", [dict(), dict(stride=2, padding=1, output_padding=1),
                                dict(stride=(2, 3), dilation=(2, 1), output_padding=(1, 2)), dict(groups=2, padding=1)])
def test_conv_transpose2d(dev, kw):
    groups = kw.get("groups", 1)
    arrays = [rand(2, 4, 5, 4), rand(4, 6 // groups, 3, 3, seed=1), rand(6, seed=2)]
    compare(lambda lib, x, w, b: functional(lib).conv_transpose2d(x, w, b, **kw), arrays, dev)


@pytest.mark.parametrize("dev", DEVICES)
def test_conv_transpose1d(dev):
    arrays = [rand(2, 4, 5), rand(4, 3, 3, seed=1), rand(3, seed=2)]
    compare(lambda lib, x, w, b: functional(lib).conv_transpose1d(x, w, b, stride=2, output_padding=1), arrays, dev)


@pytest.mark.parametrize("dev", DEVICES)
def test_convolution_function(dev):
    arrays = [rand(2, 3, 6, 6), rand(4, 3, 3, 3, seed=1), rand(4, seed=2)]
    compare(lambda lib, x, w, b: lib.convolution(x, w, b, [1], [1], [1], False, [0], 1), arrays, dev)


def test_conv2d_float32():
    arrays = [rand(4, 3, 10, 10, dtype=np.float32), rand(8, 3, 3, 3, dtype=np.float32, seed=1),
              rand(8, dtype=np.float32, seed=2)]
    compare(lambda lib, x, w, b: functional(lib).conv2d(x, w, b, padding=1), arrays, "cpu", double=False)


def test_conv2d_integer():
    def case(lib):
        x = lib.arange(2 * 3 * 5 * 5).reshape(2, 3, 5, 5) % 7
        w = lib.arange(4 * 3 * 2 * 2).reshape(4, 3, 2, 2) % 5 - 2
        y = lib.nn.functional.conv2d(x, w, stride=2)
        return str(y.dtype), y.tolist()
    assert run(case, torchlite) == run(case, torch)


def test_conv2d_saved_fields():
    def case(lib):
        x = lib.randn(2, 3, 5, 5, requires_grad=True)
        w = lib.randn(4, 3, 3, 3, requires_grad=True)
        fn = lib.nn.functional.conv2d(x, w, stride=(2, 1), padding=1).grad_fn
        return (fn.name(), fn._saved_stride, fn._saved_padding, fn._saved_dilation, fn._saved_transposed,
                fn._saved_output_padding, fn._saved_groups, fn._saved_input is not None,
                tuple(fn._saved_weight.shape), [(type(f).__name__ if f else None, n) for f, n in fn.next_functions])
    assert run(case, torchlite) == run(case, torch)


@pytest.mark.parametrize("transposed", [False, True])
def test_conv_gradcheck(transposed):
    x = torchlite.randn(2, 2, 5, 4, dtype=torchlite.float64, requires_grad=True)
    w = torchlite.randn(2, 2, 3, 2, dtype=torchlite.float64, requires_grad=True)
    b = torchlite.randn(2, dtype=torchlite.float64, requires_grad=True)

    def fn(x, w, b):
        return torchlite.convolution(x, w, b, [2, 1], [1, 0], [1, 2], transposed, [1, 0] if transposed else [0],
                                     1)
    assert torchlite.autograd.gradcheck(fn, (x, w, b))
    assert torchlite.autograd.gradgradcheck(fn, (x, w, b))


def test_conv_triple_backward():
    """convolution_backward's own formula is convolutions: a third derivative exists, as torch's."""
    def case(lib):
        gen = np.random.default_rng(3)
        x = lib.tensor(gen.standard_normal((1, 2, 4, 4)), requires_grad=True)
        w = lib.tensor(gen.standard_normal((2, 2, 2, 2)), requires_grad=True)
        y = lib.nn.functional.conv2d(x, w)
        gx, = lib.autograd.grad((y ** 2).sum(), x, create_graph=True)
        gw, = lib.autograd.grad((gx ** 2).sum(), w, create_graph=True)
        ggx, = lib.autograd.grad((gw ** 2).sum(), x)
        return gx.grad_fn.name(), gw.grad_fn.name(), ggx
    assert run(case, torchlite) == run(case, torch)


CONV_ERRORS = [
    lambda lib, F: F.conv2d(lib.randn(2, 3, 6, 6), lib.randn(4, 2, 3, 3)),
    lambda lib, F: F.conv2d(lib.randn(6, 6), lib.randn(4, 3, 3, 3)),
    lambda lib, F: F.conv2d(lib.randn(2, 3, 6, 6), lib.randn(4, 3, 3)),
    lambda lib, F: F.conv2d(lib.randn(2, 3, 6, 6), lib.randn(4, 3, 7, 7)),
    lambda lib, F: F.conv2d(lib.randn(2, 3, 6, 6), lib.randn(4, 3, 3, 3), stride=0),
    lambda lib, F: F.conv2d(lib.randn(2, 3, 6, 6), lib.randn(4, 3, 3, 3), padding=-1),
    lambda lib, F: F.conv2d(lib.randn(2, 3, 6, 6), lib.randn(4, 3, 3, 3), dilation=0),
    lambda lib, F: F.conv2d(lib.randn(2, 3, 6, 6), lib.randn(4, 3, 3, 3), groups=2),
    lambda lib, F: F.conv2d(lib.randn(2, 3, 6, 6), lib.randn(4, 3, 3, 3), groups=0),
    lambda lib, F: F.conv2d(lib.randn(2, 3, 6, 6), lib.randn(2, 3, 3, 3), groups=3),
    lambda lib, F: F.conv2d(lib.randn(2, 3, 6, 6), lib.randn(4, 1, 3, 3), groups=3),
    lambda lib, F: F.conv2d(lib.randn(2, 3, 6, 6), lib.randn(4, 3, 3, 3), lib.randn(5)),
    lambda lib, F: F.conv2d(lib.randn(2, 3, 6, 6), lib.randn(4, 3, 3, 3), padding="same", stride=2),
    lambda lib, F: F.conv2d(lib.randn(2, 3, 6, 6), lib.randn(4, 3, 3, 3), padding="foo"),
    lambda lib, F: F.conv2d(lib.randn(2, 3, 6, 6).double(), lib.randn(4, 3, 3, 3)),
    lambda lib, F: F.conv2d(lib.randn(2, 3, 6, 6), lib.randn(4, 3, 3, 3).double()),
    lambda lib, F: F.conv2d(lib.randn(2, 3, 6, 6).long(), lib.randn(4, 3, 3, 3)),
    lambda lib, F: F.conv2d(lib.randn(2, 3, 6, 6), lib.randn(4, 3, 3, 3), lib.randn(4).double()),
    lambda lib, F: F.conv2d(lib.randn(2, 3, 6, 6), lib.randn(4, 3, 3, 3), stride=(1, 1, 1)),
    lambda lib, F: F.conv1d(lib.randn(2, 3, 6, 6), lib.randn(4, 3, 3, 3)),
    lambda lib, F: F.conv_transpose2d(lib.randn(2, 3, 6, 6), lib.randn(3, 2, 3, 3), output_padding=1),
    lambda lib, F: F.conv_transpose2d(lib.randn(2, 3, 6, 6), lib.randn(4, 2, 3, 3)),
    lambda lib, F: F.conv_transpose2d(lib.randn(2, 3, 6, 6), lib.randn(3, 2, 3, 3), lib.randn(3)),
    lambda lib, F: F.conv_transpose2d(lib.randn(2, 3, 6, 6), lib.randn(3, 2, 3, 3), output_padding=-1),
    lambda lib, F: lib.convolution(lib.randn(2, 3, 6, 6), lib.randn(4, 3, 3, 3)[0], None, [1], [0], [1], False,
                                   [0], 1),
    lambda lib, F: lib.convolution(lib.randn(2, 3, 6, 6), lib.randn(4, 3), None, [1], [0], [1], False, [0], 1),
]


@pytest.mark.parametrize("i", range(len(CONV_ERRORS)))
def test_conv_errors(i):
    assert run(lambda lib: CONV_ERRORS[i](lib, functional(lib)), torchlite) == \
        run(lambda lib: CONV_ERRORS[i](lib, functional(lib)), torch)


def test_conv_empty_batch():
    def case(lib):
        x = lib.randn(0, 3, 6, 6, requires_grad=True)
        w = lib.randn(4, 3, 3, 3, requires_grad=True)
        y = lib.nn.functional.conv2d(x, w, padding=1)
        gx, gw = lib.autograd.grad(y.sum(), (x, w))
        return y.shape, gx.shape, gw
    assert run(case, torchlite) == run(case, torch)


# padding ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("pad", [(1, 2), (1, 2, -1, 0), (0, 0, 2, 1, 1, 1), (-2, -2)])
def test_pad_constant(dev, pad):
    compare(lambda lib, x: functional(lib).pad(x, pad, value=1.5), [rand(2, 3, 4)], dev)


PAD_ERRORS = [
    lambda lib: lib.nn.functional.pad(lib.randn(2, 3, 4), (1, 2, 3)),
    lambda lib: lib.nn.functional.pad(lib.randn(2, 3, 4), (1, 2, 0, 0, 0, 0, 0, 0)),
    lambda lib: lib.nn.functional.pad(lib.randn(2, 3, 4), (-3, -2)),
    lambda lib: lib.nn.functional.pad(lib.randn(2, 3, 4), (1, 1), mode="foo"),
    lambda lib: lib.constant_pad_nd(lib.arange(6).reshape(2, 3), (1, 1), 2.5),
    lambda lib: lib.constant_pad_nd(lib.randn(2, 3, requires_grad=True), (1, 1)).grad_fn._saved_pad,
    lambda lib: lib.constant_pad_nd(lib.randn(2, 3, requires_grad=True), (-1, 1)).grad_fn._saved_pad,
    lambda lib: lib.constant_pad_nd(lib.tensor(1.0), (1, 1)),
    lambda lib: lib.constant_pad_nd(lib.randn(2, 3), (1, 1, 1)),
    lambda lib: lib.nn.functional.pad(lib.tensor(1.0), (1, -1)),
]


@pytest.mark.parametrize("i", range(len(PAD_ERRORS)))
def test_pad_cases(i):
    assert run(PAD_ERRORS[i], torchlite) == run(PAD_ERRORS[i], torch)


def test_pad_gradgradcheck():
    x = torchlite.randn(2, 3, 4, dtype=torchlite.float64, requires_grad=True)
    assert torchlite.autograd.gradcheck(lambda t: TF.pad(t, (1, -1, 2, 0)), (x,))
    assert torchlite.autograd.gradgradcheck(lambda t: TF.pad(t, (1, -1, 2, 0)), (x,))


def test_conv_one_backward_node():
    """ConvolutionBackward0 calls convolution_backward once for every input that needs a gradient
    (grad_input_mask): under create_graph the input's and weight's gradients share its node."""
    def case(lib):
        x = lib.randn(1, 2, 4, 4, dtype=lib.float64, requires_grad=True)
        w = lib.randn(3, 2, 3, 3, dtype=lib.float64, requires_grad=True)
        b = lib.randn(3, dtype=lib.float64, requires_grad=True)
        gx, gw, gb = lib.autograd.grad(lib.nn.functional.conv2d(x, w, b).sum(), (x, w, b), create_graph=True)
        return gx.grad_fn is gw.grad_fn, gx.grad_fn.name(), gb.grad_fn is gx.grad_fn
    assert run(case, torchlite) == run(case, torch)


def test_convolution_backward_kernel():
    """convolution_backward (torch.ops.aten.convolution_backward) against torch's, every mask."""
    gen = np.random.default_rng(5)
    arrays = [gen.standard_normal(s) for s in ((2, 4, 3, 4), (2, 3, 5, 4), (4, 3, 3, 3))]
    for mask in ([True, True, True], [True, False, False], [False, True, True]):
        a = torchlite._ops.convolution_backward(*[torchlite.tensor(x) for x in arrays], [4], [1], [0, 1], [1], False,
                                                [0], 1, mask)
        b = torch.ops.aten.convolution_backward(*[torch.tensor(x) for x in arrays], [4], [1], [0, 1], [1], False, [0],
                                                1, mask)
        for x, y, m in zip(a, b, mask, strict=True):
            if m:
                _close(x.numpy(), y.numpy(), np.float64)


# pooling ------------------------------------------------------------------------------------------------

MAX_POOL2D = [
    dict(kernel_size=2),
    dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=(3, 2), stride=(1, 2), padding=(1, 0), dilation=(1, 2)),
    dict(kernel_size=3, stride=2, ceil_mode=True),
    dict(kernel_size=2, stride=2, padding=1, ceil_mode=True, dilation=2),
]


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("kw", MAX_POOL2D)
def test_max_pool2d(dev, kw):
    # distinct values, so the maximum of each window is unique (torch and torchlite pick the same)
    x = np.random.default_rng(7).permutation(2 * 3 * 7 * 8).reshape(2, 3, 7, 8).astype(np.float64) / 10
    compare(lambda lib, x: functional(lib).max_pool2d(x, **kw), [x], dev)


@pytest.mark.parametrize("dev", DEVICES)
def test_max_pool2d_indices_and_unbatched(dev):
    x = np.random.default_rng(8).permutation(3 * 5 * 6).reshape(3, 5, 6).astype(np.float64)

    def case(lib):
        t = lib.tensor(x, device=dev if lib is torchlite else "cpu", requires_grad=True)
        v, i = functional(lib).max_pool2d(t, 2, 1, return_indices=True)
        fn = v.grad_fn
        return (v, i, fn.name(), fn._saved_kernel_size, fn._saved_stride, fn._saved_padding, fn._saved_dilation,
                fn._saved_ceil_mode, fn._saved_result1, i.requires_grad)
    assert run(case, torchlite) == run(case, torch)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
                                dict(kernel_size=2, dilation=2)])
def test_max_pool1d(dev, kw):
    x = np.random.default_rng(9).permutation(2 * 3 * 9).reshape(2, 3, 9).astype(np.float64)
    compare(lambda lib, x: functional(lib).max_pool1d(x, **kw), [x], dev)

    def case(lib):
        t = lib.tensor(x, requires_grad=True)
        v, i = functional(lib).max_pool1d(t, return_indices=True, **kw)
        v2, i2 = lib.max_pool1d_with_indices(t, **kw)
        return v, i, v.grad_fn.name(), v.grad_fn.next_functions[0][0].name(), v2, i2
    assert run(case, torchlite) == run(case, torch)


AVG_POOL2D = [
    dict(kernel_size=2),
    dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
    dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 1), ceil_mode=True),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
    dict(kernel_size=2, stride=1, divisor_override=3),
]


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("kw", AVG_POOL2D)
def test_avg_pool2d(dev, kw):
    compare(lambda lib, x: functional(lib).avg_pool2d(x, **kw), [rand(2, 3, 7, 8)], dev)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True,
                                                          count_include_pad=False)])
def test_avg_pool1d(dev, kw):
    res = compare(lambda lib, x: functional(lib).avg_pool1d(x, **kw), [rand(2, 3, 9)], dev)
    assert res[torchlite]["name"] == "SqueezeBackward1"


def test_avg_pool2d_saved_fields():
    def case(lib):
        x = lib.randn(1, 2, 5, 5, requires_grad=True)
        fn = lib.nn.functional.avg_pool2d(x, 3, (2,), 1, True, False, 4).grad_fn
        return (fn.name(), fn._saved_kernel_size, fn._saved_stride, fn._saved_padding, fn._saved_ceil_mode,
                fn._saved_count_include_pad, fn._saved_divisor_override)
    assert run(case, torchlite) == run(case, torch)


def test_pool_float32_and_integer():
    x = rand(2, 3, 8, 8, dtype=np.float32)
    compare(lambda lib, x: functional(lib).avg_pool2d(x, 3, 2, 1), [x], "cpu", double=False)
    compare(lambda lib, x: functional(lib).max_pool2d(x, 3, 2, 1), [x], "cpu", double=False)

    def case(lib):
        t = lib.arange(2 * 6 * 6).reshape(2, 6, 6) * 7 % 11
        return str(lib.nn.functional.max_pool2d(t, 2).dtype), lib.nn.functional.max_pool2d(t, 3, 2, 1).tolist()
    assert run(case, torchlite) == run(case, torch)


@pytest.mark.parametrize("pool", ["max", "avg"])
def test_pool_gradgradcheck(pool):
    x = torchlite.tensor(np.random.default_rng(2).permutation(2 * 6 * 5).reshape(1, 2, 6, 5) / 7.0,
                         requires_grad=True)
    if pool == "max":
        def fn(t):
            return TF.max_pool2d(t, 3, 2, 1, ceil_mode=True)
    else:
        def fn(t):
            return TF.avg_pool2d(t, 3, 2, 1, ceil_mode=True, count_include_pad=False)
    assert torchlite.autograd.gradcheck(fn, (x,))
    assert torchlite.autograd.gradgradcheck(fn, (x,))


POOL_ERRORS = [
    lambda lib, F: F.max_pool2d(lib.randn(2, 3, 6, 6), 0),
    lambda lib, F: F.max_pool2d(lib.randn(2, 3, 6, 6), 2, 0),
    lambda lib, F: F.max_pool2d(lib.randn(2, 3, 6, 6), 2, padding=2),
    lambda lib, F: F.max_pool2d(lib.randn(2, 3, 6, 6), 7),
    lambda lib, F: F.max_pool2d(lib.randn(2, 3, 6, 6), 2, dilation=0),
    lambda lib, F: F.max_pool2d(lib.randn(6), 2),
    lambda lib, F: F.max_pool2d(lib.randn(2, 3, 6, 6), (2, 2, 2)),
    lambda lib, F: F.max_pool2d(lib.randn(2, 3, 6, 6), 2, (1, 1, 1)),
    lambda lib, F: F.max_pool2d(lib.randn(2, 0, 4, 4), 2),
    lambda lib, F: F.max_pool2d(lib.randn(0, 3, 4, 4), 2),
    lambda lib, F: F.max_pool2d(lib.randn(2, 3, 6, 6), 2, padding=-1),
    lambda lib, F: F.avg_pool2d(lib.randn(2, 3, 6, 6), 0),
    lambda lib, F: F.avg_pool2d(lib.randn(2, 3, 6, 6), 2, padding=2),
    lambda lib, F: F.avg_pool2d(lib.randn(2, 3, 6, 6), 7),
    lambda lib, F: F.avg_pool2d(lib.randn(2, 3, 6, 6), 2, divisor_override=0),
    lambda lib, F: F.avg_pool2d(lib.randn(6, 6), 2),
    lambda lib, F: F.max_pool1d(lib.randn(6), 2),
    lambda lib, F: F.avg_pool1d(lib.randn(6), 2),
    lambda lib, F: F.max_pool1d(lib.randn(2, 6), 7),
]


@pytest.mark.parametrize("i", range(len(POOL_ERRORS)))
def test_pool_errors(i):
    assert run(lambda lib: POOL_ERRORS[i](lib, functional(lib)), torchlite) == \
        run(lambda lib: POOL_ERRORS[i](lib, functional(lib)), torch)


def test_pool_backward_kernels():
    """max_pool2d_with_indices_backward and avg_pool2d_backward against torch.ops.aten's."""
    x = np.random.default_rng(4).permutation(2 * 7 * 6).reshape(1, 2, 7, 6).astype(np.float64)
    args = ([3, 3], [2, 2], [1, 1])
    v, i = torch.ops.aten.max_pool2d_with_indices(torch.tensor(x), *args, [1, 1], True)
    g = rand(*v.shape)
    a = torchlite._ops.max_pool2d_with_indices_backward(torchlite.tensor(g), torchlite.tensor(x), *args, [1, 1], True,
                                                        torchlite.tensor(i.numpy()))
    b = torch.ops.aten.max_pool2d_with_indices_backward(torch.tensor(g), torch.tensor(x), *args, [1, 1], True, i)
    _close(a.numpy(), b.numpy(), np.float64)
    g = rand(1, 2, 4, 4)
    a = torchlite._ops.avg_pool2d_backward(torchlite.tensor(g), torchlite.tensor(x), *args, True, False, None)
    b = torch.ops.aten.avg_pool2d_backward(torch.tensor(g), torch.tensor(x), *args, True, False, None)
    _close(a.numpy(), b.numpy(), np.float64)


# normalization ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("shape", [(4, 3, 5, 2), (6, 3), (5, 2, 7)])
def test_batch_norm_training(dev, affine, shape):
    c = shape[1]
    arrays = [rand(*shape), rand(c, seed=1) if affine else None, rand(c, seed=2) if affine else None]
    stats = {}

    def fn(lib, x, w, b):
        rm = lib.tensor(rand(c, seed=3), device=x.device)
        rv = lib.tensor(np.abs(rand(c, seed=4)) + 0.5, device=x.device)
        y = functional(lib).batch_norm(x, rm, rv, w, b, training=True, momentum=0.3, eps=1e-3)
        stats.setdefault(lib, []).append((rm.cpu().numpy(), rv.cpu().numpy()))
        return y
    compare(fn, arrays, dev)
    for (a1, a2), (b1, b2) in zip(stats[torchlite], stats[torch], strict=True):
        _close(a1, b1, np.float64)
        _close(a2, b2, np.float64)


@pytest.mark.parametrize("dev", DEVICES)
def test_batch_norm_eval_and_no_running_stats(dev):
    arrays = [rand(4, 3, 5), rand(3, seed=1), rand(3, seed=2)]

    def eval_fn(lib, x, w, b):
        rm = lib.tensor(rand(3, seed=3), device=x.device)
        rv = lib.tensor(np.abs(rand(3, seed=4)) + 0.5, device=x.device)
        return functional(lib).batch_norm(x, rm, rv, w, b, training=False)
    compare(eval_fn, arrays, dev)
    compare(lambda lib, x, w, b: functional(lib).batch_norm(x, None, None, w, b, training=True), arrays, dev)


def test_batch_norm_saved_fields():
    def case(lib):
        x = lib.randn(4, 3, 2, requires_grad=True)
        rm, rv = lib.zeros(3), lib.ones(3)
        fn = lib.nn.functional.batch_norm(x, rm, rv, training=True).grad_fn
        fn2 = lib.nn.functional.batch_norm(x, rm, rv, lib.ones(3, requires_grad=True), training=False).grad_fn
        return (fn.name(), fn._saved_eps, fn._saved_training, fn._saved_weight, fn._saved_running_mean is rm,
                tuple(fn._saved_result1.shape), tuple(fn._saved_result2.shape), fn2._saved_training,
                tuple(fn2._saved_result1.shape), [type(f).__name__ if f else None for f, _ in fn.next_functions])
    assert run(case, torchlite) == run(case, torch)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("normalized", [(5,), (3, 5)])
def test_layer_norm(dev, affine, normalized):
    arrays = [rand(2, 3, 5), rand(*normalized, seed=1) if affine else None,
              rand(*normalized, seed=2) if affine else None]
    compare(lambda lib, x, w, b: functional(lib).layer_norm(x, normalized, w, b, eps=1e-4), arrays, dev)


def test_layer_norm_float32_and_fields():
    arrays = [rand(4, 6, 8, dtype=np.float32), rand(8, dtype=np.float32, seed=1), rand(8, dtype=np.float32, seed=2)]
    compare(lambda lib, x, w, b: functional(lib).layer_norm(x, (8,), w, b), arrays, "cpu", double=False)

    def case(lib):
        x = lib.randn(2, 3, 4, requires_grad=True)
        out, mean, rstd = lib.native_layer_norm(x, [4], None, None, 1e-5)
        fn = out.grad_fn
        return (fn.name(), fn._saved_normalized_shape, fn._saved_weight, tuple(fn._saved_result1.shape),
                tuple(mean.shape), tuple(rstd.shape), mean.requires_grad)
    assert run(case, torchlite) == run(case, torch)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("groups", [1, 2, 4])
def test_group_norm(dev, affine, groups):
    arrays = [rand(3, 4, 5, 2), rand(4, seed=1) if affine else None, rand(4, seed=2) if affine else None]
    compare(lambda lib, x, w, b: functional(lib).group_norm(x, groups, w, b, eps=1e-3), arrays, dev)


def test_group_norm_fields():
    def case(lib):
        x = lib.randn(2, 4, 3, requires_grad=True)
        fn = lib.nn.functional.group_norm(x, 2, lib.ones(4, requires_grad=True)).grad_fn
        return (fn.name(), fn._saved_N, fn._saved_C, fn._saved_HxW, fn._saved_group, fn._saved_eps,
                tuple(fn._saved_result1.shape))
    assert run(case, torchlite) == run(case, torch)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("weight", [True, False])
def test_rms_norm(dev, weight):
    arrays = [rand(2, 3, 5), rand(5, seed=1) if weight else None]
    compare(lambda lib, x, w: functional(lib).rms_norm(x, (5,), w, eps=1e-3), arrays, dev)
    compare(lambda lib, x, w: functional(lib).rms_norm(x, [3, 5], None), arrays[:1] + [None], dev)


@pytest.mark.parametrize("which", ["batch", "layer", "group"])
def test_norm_gradgradcheck(which):
    gen = np.random.default_rng(11)
    x = torchlite.tensor(gen.standard_normal((3, 4, 2)), requires_grad=True)
    w = torchlite.tensor(gen.standard_normal(4 if which != "layer" else 2), requires_grad=True)
    b = torchlite.tensor(gen.standard_normal(4 if which != "layer" else 2), requires_grad=True)
    fns = {"batch": lambda x, w, b: TF.batch_norm(x, None, None, w, b, training=True),
           "layer": lambda x, w, b: TF.layer_norm(x, (2,), w, b),
           "group": lambda x, w, b: TF.group_norm(x, 2, w, b)}
    assert torchlite.autograd.gradcheck(fns[which], (x, w, b))
    assert torchlite.autograd.gradgradcheck(fns[which], (x, w, b))


def _norm_penalty(lib, which, x_np, p_np, c_np, third):
    """A gradient penalty through a norm: the first derivative of a loss of the output, then the
    derivative of a function of it (its incoming gradient depends on the input), and with `third`
    the derivative of a function of that."""
    F_ = functional(lib)
    x = lib.tensor(x_np, requires_grad=True)
    w = lib.tensor(p_np, requires_grad=True)
    b = lib.tensor(p_np * 0.5, requires_grad=True)
    out = {"batch": lambda: F_.batch_norm(x, None, None, w, b, training=True),
           "layer": lambda: F_.layer_norm(x, (2,), w, b),
           "layer_noaffine": lambda: F_.layer_norm(x, (4, 2)),
           "group": lambda: F_.group_norm(x, 2, w, b)}[which]()
    wrt = (x,) if which == "layer_noaffine" else (x, w)
    first = lib.autograd.grad((out * out * out).sum(), wrt, create_graph=True)
    penalty = (first[0] * lib.tensor(c_np)).sum() + sum((g * g).sum() for g in first[1:])
    second = lib.autograd.grad(penalty, wrt, create_graph=third)
    if not third:
        return [t.detach().numpy().copy() for t in first + second]
    value = (second[0] * second[0]).sum()
    return float(value), lib.autograd.grad(value, x)[0].numpy().copy()


@pytest.mark.parametrize("which", ["batch", "layer", "layer_noaffine", "group"])
def test_norm_double_backward_when_grad_out_depends_on_input(which):
    """The second derivative through a norm whose incoming gradient is itself a function of the input:
    partial derivatives in the native_*_norm_backward node's formula, each path counted once (the
    graph of the incoming gradient is the outer backward's to follow), the graph left usable."""
    gen = np.random.default_rng(5)
    arrays = (gen.standard_normal((3, 4, 2)), gen.standard_normal(4 if which in ("batch", "group") else 2),
              gen.standard_normal((3, 4, 2)))
    got, want = _norm_penalty(torchlite, which, *arrays, False), _norm_penalty(torch, which, *arrays, False)
    assert len(got) == len(want)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-9 * max(1.0, np.abs(b).max()))


@pytest.mark.parametrize("which", ["batch", "layer", "group"])
def test_norm_third_derivative_through_gradient_penalty(which):
    """The third derivative is the derivative of the second: checked against central differences of
    the second-order value. (group norm's also equals torch's; torch's batch- and layer-norm double
    backward formulas hold the saved statistics constant, so its third derivative there is not the
    derivative: the differences of its own second-order value disagree with it.)"""
    gen = np.random.default_rng(5)
    x_np, p_np, c_np = (gen.standard_normal((3, 4, 2)), gen.standard_normal(4 if which != "layer" else 2),
                        gen.standard_normal((3, 4, 2)))
    _, third = _norm_penalty(torchlite, which, x_np, p_np, c_np, True)
    for index in [(0, 0, 0), (1, 2, 1), (2, 3, 0)]:
        step = 1e-6
        plus, minus = x_np.copy(), x_np.copy()
        plus[index] += step
        minus[index] -= step
        numeric = (_norm_penalty(torchlite, which, plus, p_np, c_np, True)[0] -
                   _norm_penalty(torchlite, which, minus, p_np, c_np, True)[0]) / (2 * step)
        assert abs(third[index] - numeric) <= 1e-3 * max(1.0, abs(numeric))
    if which == "group":
        np.testing.assert_allclose(third, _norm_penalty(torch, which, x_np, p_np, c_np, True)[1], rtol=1e-8,
                                   atol=1e-9 * max(1.0, np.abs(third).max()))


NORM_ERRORS = [
    lambda lib, F: F.layer_norm(lib.randn(2, 3, 4), (5,)),
    lambda lib, F: F.layer_norm(lib.randn(2, 3, 4), ()),
    lambda lib, F: F.layer_norm(lib.randn(2, 3, 4), (4,), lib.ones(5)),
    lambda lib, F: F.layer_norm(lib.randn(2, 3, 4), (4,), None, lib.ones(5)),
    lambda lib, F: F.layer_norm(lib.randn(2, 3, 4), (2, 3, 4, 4)),
    lambda lib, F: F.layer_norm(lib.randn(2, 3, 4).long(), (4,)),
    lambda lib, F: F.batch_norm(lib.randn(1, 3, 1), lib.zeros(3), lib.ones(3), training=True),
    lambda lib, F: F.batch_norm(lib.randn(2, 3, 4), lib.zeros(4), lib.ones(3), training=True),
    lambda lib, F: F.batch_norm(lib.randn(2, 3, 4), lib.zeros(3), lib.ones(3), lib.ones(4)),
    lambda lib, F: F.batch_norm(lib.randn(2, 3, 4), None, None, training=False),
    lambda lib, F: F.batch_norm(lib.randn(4), lib.zeros(3), lib.ones(3)),
    lambda lib, F: F.batch_norm(lib.randn(2, 3, 4).long(), lib.zeros(3), lib.ones(3)),
    lambda lib, F: F.group_norm(lib.randn(2, 3, 4), 2),
    lambda lib, F: F.group_norm(lib.randn(2, 3, 4), 3, lib.ones(4)),
    lambda lib, F: F.group_norm(lib.randn(4), 1),
    lambda lib, F: F.group_norm(lib.randn(1, 2, 1), 2),
    lambda lib, F: F.rms_norm(lib.randn(2, 3, 4), (5,)),
]


@pytest.mark.parametrize("i", range(len(NORM_ERRORS)))
def test_norm_errors(i):
    assert run(lambda lib: NORM_ERRORS[i](lib, functional(lib)), torchlite) == \
        run(lambda lib: NORM_ERRORS[i](lib, functional(lib)), torch)


def test_norm_backward_kernels():
    """native_batch_norm_backward, native_layer_norm_backward and native_group_norm_backward against
    torch.ops.aten's, and torch.batch_norm / torch.layer_norm / torch.group_norm / native_group_norm."""
    x, g = rand(3, 4, 5), rand(3, 4, 5, seed=1)
    w = rand(4, seed=2)
    mask = [True, True, True]
    _, m, r = torch.ops.aten.native_batch_norm(torch.tensor(x), torch.tensor(w), None, None, None, True, 0.1, 1e-5)
    a = torchlite._ops.native_batch_norm_backward(*(torchlite.tensor(v) for v in (g, x, w)), None, None,
                                                  torchlite.tensor(m.numpy()), torchlite.tensor(r.numpy()), True,
                                                  1e-5, mask)
    e = torch.ops.aten.native_batch_norm_backward(*(torch.tensor(v) for v in (g, x, w)), None, None, m, r, True, 1e-5,
                                                  mask)
    for p, q in zip(a, e, strict=True):
        _close(p.numpy(), q.numpy(), np.float64)
    _, m, r = torch.native_layer_norm(torch.tensor(x), [5], None, None, 1e-5)
    a = torchlite._ops.native_layer_norm_backward(torchlite.tensor(g), torchlite.tensor(x), [5],
                                                  torchlite.tensor(m.numpy()), torchlite.tensor(r.numpy()),
                                                  torchlite.tensor(rand(5, seed=4)), None, mask[:2] + [False])
    e = torch.ops.aten.native_layer_norm_backward(torch.tensor(g), torch.tensor(x), [5], m, r,
                                                  torch.tensor(rand(5, seed=4)), None, mask[:2] + [False])
    for p, q in zip(a[:2], e[:2], strict=True):
        _close(p.numpy(), q.numpy(), np.float64)
    _, m, r = torch.native_group_norm(torch.tensor(x), None, None, 3, 4, 5, 2, 1e-5)
    a = torchlite._ops.native_group_norm_backward(torchlite.tensor(g), torchlite.tensor(x),
                                                  torchlite.tensor(m.numpy()), torchlite.tensor(r.numpy()),
                                                  torchlite.tensor(w), 3, 4, 5, 2, mask)
    e = torch.ops.aten.native_group_norm_backward(torch.tensor(g), torch.tensor(x), m, r, torch.tensor(w), 3, 4, 5, 2,
                                                  mask)
    for p, q in zip(a, e, strict=True):
        _close(p.numpy(), q.numpy(), np.float64)

    def case(lib):
        t = lib.tensor(x)
        return (lib.batch_norm(t, None, None, None, None, True, 0.1, 1e-5, False), lib.layer_norm(t, [4, 5]),
                lib.group_norm(t, 2), lib.native_group_norm(t, None, None, 3, 4, 5, 4, 1e-5))
    assert run(case, torchlite) == run(case, torch)


# adaptive pooling ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("size", [(4, 3), 1, (1, 1), (6, 7), (5, None), 2, (7, 9)])
def test_adaptive_avg_pool2d(dev, size):
    compare(lambda lib, x: functional(lib).adaptive_avg_pool2d(x, size), [rand(2, 3, 6, 7)], dev)
    compare(lambda lib, x: functional(lib).adaptive_avg_pool2d(x, size), [rand(3, 5, 4)], dev)


def test_adaptive_avg_pool2d_float32_and_backward_kernel():
    compare(lambda lib, x: functional(lib).adaptive_avg_pool2d(x, (3, 5)), [rand(2, 3, 8, 9, dtype=np.float32)],
            "cpu", double=False)
    x, g = rand(2, 3, 7, 5), rand(2, 3, 3, 2, seed=1)
    _close(torchlite._ops._adaptive_avg_pool2d(torchlite.tensor(x), [3, 2]).numpy(),
           torch._adaptive_avg_pool2d(torch.tensor(x), [3, 2]).numpy(), np.float64)
    a = torchlite._ops._adaptive_avg_pool2d_backward(torchlite.tensor(g), torchlite.tensor(x))
    b = torch.ops.aten._adaptive_avg_pool2d_backward(torch.tensor(g), torch.tensor(x))
    _close(a.numpy(), b.numpy(), np.float64)

    def case(lib):
        t = lib.randn(1, 2, 4, 4, requires_grad=True)
        fn = lib.nn.functional.adaptive_avg_pool2d(t, 1).grad_fn
        return fn.name(), fn._saved_dim, fn._saved_keepdim, lib.nn.functional.adaptive_avg_pool2d(t, 3).grad_fn.name()
    assert run(case, torchlite) == run(case, torch)


def test_adaptive_avg_pool2d_gradgradcheck():
    x = torchlite.tensor(rand(1, 2, 7, 5), requires_grad=True)
    assert torchlite.autograd.gradgradcheck(lambda t: TF.adaptive_avg_pool2d(t, (3, 4)), (x,))


ADAPTIVE_ERRORS = [
    lambda lib, F: F.adaptive_avg_pool2d(lib.randn(2, 3, 6, 6), (1, 2, 3)),
    lambda lib, F: F.adaptive_avg_pool2d(lib.randn(6), 2),
    lambda lib, F: F.adaptive_avg_pool2d(lib.randn(2, 3, 6, 6), (-1, 2)),
    lambda lib, F: F.adaptive_avg_pool2d(lib.randn(2, 3, 6, 6).long(), 2),
    lambda lib, F: F.adaptive_avg_pool2d(lib.randn(2, 0, 4, 4), 2).shape,
    lambda lib, F: F.adaptive_avg_pool2d(lib.randn(2, 3, 6, 6), 0).shape,
]


@pytest.mark.parametrize("i", range(len(ADAPTIVE_ERRORS)))
def test_adaptive_errors(i):
    assert run(lambda lib: ADAPTIVE_ERRORS[i](lib, functional(lib)), torchlite) == \
        run(lambda lib: ADAPTIVE_ERRORS[i](lib, functional(lib)), torch)


# reflection and replication padding -------------------------------------------------------------------

@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("mode", ["reflect", "replicate"])
@pytest.mark.parametrize("pad", [(1, 2), (-1, 2), (3, 0), (1, 2, 2, 1), (0, -1, 2, 3)])
def test_pad_modes(dev, mode, pad):
    if mode == "reflect" and max(pad) >= 4:
        pad = tuple(min(p, 3) for p in pad)
    compare(lambda lib, x: functional(lib).pad(x, pad, mode=mode), [rand(2, 4, 5)], dev)
    if len(pad) == 2:
        compare(lambda lib, x: functional(lib).pad(x, pad, mode=mode), [rand(4, 5)], dev)
    else:
        compare(lambda lib, x: functional(lib).pad(x, pad, mode=mode), [rand(2, 2, 4, 5)], dev)


def test_pad_backward_kernels():
    """reflection_pad1d_backward, reflection_pad2d_backward, replication_pad1d_backward and
    replication_pad2d_backward against torch.ops.aten's."""
    x, g = rand(2, 4, 5), rand(2, 7, 8, seed=1)
    for name in ("reflection_pad2d", "replication_pad2d"):
        a = getattr(torchlite._ops, name + "_backward")(torchlite.tensor(g), torchlite.tensor(x), [1, 2, 2, 1])
        b = getattr(torch.ops.aten, name + "_backward")(torch.tensor(g), torch.tensor(x), [1, 2, 2, 1])
        _close(a.numpy(), b.numpy(), np.float64)
    g = rand(2, 4, 8, seed=2)
    for name in ("reflection_pad1d", "replication_pad1d"):
        a = getattr(torchlite._ops, name + "_backward")(torchlite.tensor(g), torchlite.tensor(x), [1, 2])
        b = getattr(torch.ops.aten, name + "_backward")(torch.tensor(g), torch.tensor(x), [1, 2])
        _close(a.numpy(), b.numpy(), np.float64)


PAD_MODE_ERRORS = [
    lambda lib, F: F.pad(lib.randn(2, 3, 4), (4, 2), mode="reflect"),
    lambda lib, F: F.pad(lib.randn(2, 3, 4), (1, 1, 3, 1), mode="reflect"),
    lambda lib, F: F.pad(lib.randn(2, 3, 4), (1, 2), mode="reflect", value=1),
    lambda lib, F: F.pad(lib.randn(4), (1, 2), mode="reflect"),
    lambda lib, F: F.pad(lib.randn(2, 3, 4), (1, 2, 3), mode="replicate"),
    lambda lib, F: F.pad(lib.randn(2, 3, 4), (1, 2, 1, 1, 1, 1), mode="reflect"),
    lambda lib, F: F.pad(lib.randn(2, 3, 4), (1, 2, 1, 1, 0, 0, 1, 1), mode="reflect"),
    lambda lib, F: F.pad(lib.randn(2, 0, 4), (1, 1), mode="replicate"),
    lambda lib, F: F.pad(lib.randn(2, 3, 0), (1, 1), mode="reflect"),
    lambda lib, F: F.pad(lib.randn(2, 3, 4), (-3, -2), mode="replicate"),
    lambda lib, F: F.pad(lib.arange(8).reshape(2, 4), (1, 2), mode="reflect"),
    lambda lib, F: F.pad(lib.randn(2, 3, 4), (1, 2), mode="bogus"),
]


@pytest.mark.parametrize("i", range(len(PAD_MODE_ERRORS)))
def test_pad_mode_errors(i):
    assert run(lambda lib: PAD_MODE_ERRORS[i](lib, functional(lib)), torchlite) == \
        run(lambda lib: PAD_MODE_ERRORS[i](lib, functional(lib)), torch)


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
def test_pad_modes_gradgradcheck(mode):
    x = torchlite.tensor(rand(1, 3, 4), requires_grad=True)
    assert torchlite.autograd.gradgradcheck(lambda t: TF.pad(t, (2, -1, 1, 2), mode=mode), (x,))


# interpolation ------------------------------------------------------------------------------------------

INTERP_2D = [
    dict(scale_factor=2), dict(size=(7, 3)), dict(scale_factor=1.5), dict(scale_factor=(0.5, 1.7)),
    dict(scale_factor=1.5, recompute_scale_factor=True), dict(size=(4, 5)), dict(size=9),
]


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("kw", INTERP_2D)
@pytest.mark.parametrize("mode", ["nearest", "bilinear", "bilinear-ac"])
def test_interpolate_2d(dev, kw, mode):
    extra = dict(mode="bilinear", align_corners=True) if mode == "bilinear-ac" else dict(mode=mode)
    compare(lambda lib, x: functional(lib).interpolate(x, **kw, **extra), [rand(2, 3, 4, 5)], dev)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("kw", [dict(scale_factor=2), dict(size=7), dict(scale_factor=0.6), dict(size=1)])
@pytest.mark.parametrize("mode", ["nearest", "linear", "linear-ac"])
def test_interpolate_1d(dev, kw, mode):
    extra = dict(mode="linear", align_corners=True) if mode == "linear-ac" else dict(mode=mode)
    compare(lambda lib, x: functional(lib).interpolate(x, **kw, **extra), [rand(3, 4, 5)], dev)


def test_interpolate_fields_float32_and_kernels():
    """interpolate's kernels (upsample_nearest1d, upsample_nearest2d, upsample_linear1d, upsample_bilinear2d):
    saved fields, float32 values, and their backward ops against torch.ops.aten's."""
    compare(lambda lib, x: functional(lib).interpolate(x, scale_factor=1.7, mode="bilinear"),
            [rand(2, 3, 6, 5, dtype=np.float32)], "cpu", double=False)

    def case(lib):
        x = lib.randn(2, 3, 4, 5, requires_grad=True)
        out = []
        for kw in (dict(scale_factor=2), dict(size=(7, 3), mode="bilinear", align_corners=True)):
            fn = lib.nn.functional.interpolate(x, **kw).grad_fn
            out.append((fn.name(), fn._saved_output_size, fn._saved_scales_h, fn._saved_scales_w,
                        fn._saved_self_sym_sizes))
        fn = lib.nn.functional.interpolate(x[0], scale_factor=2.5, mode="linear").grad_fn
        out.append((fn.name(), fn._saved_output_size, fn._saved_scales, fn._saved_align_corners))
        return out
    assert run(case, torchlite) == run(case, torch)
    g = rand(2, 3, 7, 9)
    for name, args in (("upsample_nearest2d_backward", ([7, 9], [2, 3, 4, 5], None, None)),
                       ("upsample_bilinear2d_backward", ([7, 9], [2, 3, 4, 5], False, 1.75, 1.8))):
        a = getattr(torchlite._ops, name)(torchlite.tensor(g), *args)
        b = getattr(torch.ops.aten, name)(torch.tensor(g), *args)
        _close(a.numpy(), b.numpy(), np.float64)
    g = rand(2, 3, 9)
    for name, args in (("upsample_nearest1d_backward", ([9], [2, 3, 4], 2.25)),
                       ("upsample_linear1d_backward", ([9], [2, 3, 4], True, None))):
        a = getattr(torchlite._ops, name)(torchlite.tensor(g), *args)
        b = getattr(torch.ops.aten, name)(torch.tensor(g), *args)
        _close(a.numpy(), b.numpy(), np.float64)


@pytest.mark.parametrize("mode", ["nearest", "bilinear"])
def test_interpolate_gradgradcheck(mode):
    x = torchlite.tensor(rand(1, 2, 3, 4), requires_grad=True)
    assert torchlite.autograd.gradgradcheck(lambda t: TF.interpolate(t, scale_factor=1.5, mode=mode), (x,))


INTERP_ERRORS = [
    lambda lib, F: F.interpolate(lib.randn(2, 3, 4, 5), size=(7, 3), scale_factor=2),
    lambda lib, F: F.interpolate(lib.randn(2, 3, 4, 5)),
    lambda lib, F: F.interpolate(lib.randn(2, 3, 4, 5), scale_factor=2, align_corners=True),
    lambda lib, F: F.interpolate(lib.randn(2, 3, 4, 5), scale_factor=2, mode="linear"),
    lambda lib, F: F.interpolate(lib.randn(2, 3, 4), scale_factor=2, mode="bilinear"),
    lambda lib, F: F.interpolate(lib.randn(2, 3, 4, 5), size=(7, 3, 2)),
    lambda lib, F: F.interpolate(lib.randn(2, 3, 4, 5), scale_factor=(2, 3, 4)),
    lambda lib, F: F.interpolate(lib.randn(2, 3, 4, 5), size=(7, 3), recompute_scale_factor=True),
    lambda lib, F: F.interpolate(lib.arange(40).reshape(2, 1, 4, 5), scale_factor=2),
    lambda lib, F: F.interpolate(lib.arange(40).reshape(2, 1, 4, 5), scale_factor=2, mode="bilinear"),
    lambda lib, F: F.interpolate(lib.arange(12).reshape(1, 3, 4), scale_factor=2),
]


@pytest.mark.parametrize("i", range(len(INTERP_ERRORS)))
def test_interpolate_errors(i):
    assert run(lambda lib: INTERP_ERRORS[i](lib, functional(lib)), torchlite) == \
        run(lambda lib: INTERP_ERRORS[i](lib, functional(lib)), torch)


def test_upsample_warns():
    for lib in (torchlite, torch):
        with pytest.warns(UserWarning, match="nn.functional.upsample` is deprecated"):
            y = functional(lib).upsample(lib.ones(1, 1, 2, 2), scale_factor=2)
        assert tuple(y.shape) == (1, 1, 4, 4)
