"""The CNN's C++ kernels (csrc/aten/native/cpu/Unfold2d.cpp, MaxPoolKernel.cpp, bound in
csrc/aten/native/ConvolutionPoolingHost.cpp): im2col, col2im, the batch/channel swaps around the
convolution matmuls, max pooling and its backward. Each is checked

- against the numpy path it stands in for, bit for bit (values, indices, dtypes, shapes): the same
  call with the module's `_host` test answering False, on many shapes (kernel, stride, padding,
  dilation, groups, ceil_mode, odd sizes, batch 1, channels 1), with nan, inf, -0.0 and ties;
- against torch: values and gradients (float64 to 1e-10 relative, float32 to 1e-5), node names;
- with gradcheck / gradgradcheck in float64.
"""
import itertools
import warnings
import zlib

import numpy as np
import pytest

import torchlite
import torchlite.nn.functional as TF
from diff_utils import import_torch
from torchlite import _C
from torchlite._ops import Convolution, Pooling

torch = import_torch()

DTYPES = [np.float32, np.float64]
SPECIALS = ["", "nan", "inf", "zeros"]


def _rng(*key):
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def _special(a, special, rng):
    """a with nan / inf / signed zeros sprinkled in (in place; returned)."""
    flat = a.reshape(-1)
    if flat.size == 0:
        return a
    if special == "nan":
        flat[rng.integers(0, flat.size, max(1, flat.size // 13))] = np.nan
        flat[rng.integers(0, flat.size, max(1, flat.size // 17))] = -np.nan
    elif special == "inf":
        flat[rng.integers(0, flat.size, max(1, flat.size // 11))] = np.inf
        flat[rng.integers(0, flat.size, max(1, flat.size // 11))] = -np.inf
    elif special == "zeros":
        flat[rng.integers(0, flat.size, max(1, flat.size // 3))] = -0.0
        flat[rng.integers(0, flat.size, max(1, flat.size // 5))] = 0.0
    return a


def _bits(a):
    a = np.asarray(a)
    return a.dtype, a.shape, np.ascontiguousarray(a).tobytes()


def _numpy_path(monkeypatch, module, fn):
    """fn() with the module's C++ kernels turned off (its numpy path)."""
    with monkeypatch.context() as m:
        m.setattr(module, "_host", lambda *args, **kwargs: False)
        return fn()


def _warned(fn):
    """fn()'s result and the warnings it gave (category and message)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn()
    return result, [(w.category, str(w.message)) for w in caught]


def _same(monkeypatch, module, fn):
    """fn() through the C++ kernels and through numpy: the same bits (a tuple of arrays, or one)
    and the same warnings (numpy's RuntimeWarnings for an overflow or a nan made)."""
    fast, fast_warnings = _warned(fn)
    slow, slow_warnings = _warned(lambda: _numpy_path(monkeypatch, module, fn))
    assert fast_warnings == slow_warnings
    fast, slow = (fast, slow) if isinstance(fast, tuple) else ((fast,), (slow,))
    assert len(fast) == len(slow)
    for a, b in zip(fast, slow, strict=True):
        assert _bits(a) == _bits(b)
    return fast


def _close(a, b, dtype):
    rtol, atol = (1e-10, 1e-12) if dtype == np.float64 else (1e-5, 1e-5)
    assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, b.shape, a.dtype, b.dtype)
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol * max(1.0, float(np.abs(b).max(initial=0.0))))


# convolution: im2col, col2im and the swaps -------------------------------------------------------------

# (input shape, weight shape, stride, padding, dilation, groups)
CONV_CASES = [
    ((32, 3, 32, 32), (32, 3, 3, 3), (1, 1), (1, 1), (1, 1), 1),  # the benchmark's layers
    ((32, 32, 16, 16), (64, 32, 3, 3), (1, 1), (1, 1), (1, 1), 1),
    ((1, 1, 5, 5), (1, 1, 3, 3), (1, 1), (0, 0), (1, 1), 1),  # batch 1, channels 1
    ((1, 1, 1, 1), (2, 1, 1, 1), (1, 1), (0, 0), (1, 1), 1),
    ((2, 3, 7, 9), (4, 3, 3, 3), (2, 2), (1, 1), (1, 1), 1),  # odd sizes, strided
    ((3, 4, 8, 5), (6, 2, 2, 3), (2, 1), (1, 0), (1, 2), 2),  # groups, dilation
    ((2, 2, 9, 11), (3, 2, 3, 2), (3, 2), (2, 1), (2, 3), 1),
    ((1, 6, 6, 6), (6, 1, 3, 3), (1, 1), (1, 1), (1, 1), 6),  # depthwise
    ((2, 2, 5, 1), (2, 2, 1, 1), (1, 1), (0, 0), (1, 1), 1),  # 1x1
    ((2, 3, 4, 4), (2, 3, 5, 5), (1, 1), (2, 2), (1, 1), 1),  # windows mostly padding
    ((2, 2, 6, 7), (3, 2, 2, 2), (4, 3), (1, 1), (1, 1), 1),  # strides beyond the window
    ((0, 3, 5, 5), (2, 3, 3, 3), (1, 1), (1, 1), (1, 1), 1),  # an empty batch
    ((3, 2, 11), (4, 2, 3), (2,), (1,), (2,), 1),  # 1-d
    ((1, 1, 4), (1, 1, 4), (1,), (0,), (1,), 1),
    ((2, 4, 9), (4, 2, 2), (1,), (1,), (3,), 2),
]


def _conv_arrays(case, dtype, special):
    xs, ws, stride, padding, dilation, groups = case
    rng = _rng(case, np.dtype(dtype).name, special)
    x = _special(rng.standard_normal(xs).astype(dtype), special, rng)
    w = rng.standard_normal(ws).astype(dtype)
    b = rng.standard_normal(ws[0]).astype(dtype)
    out = tuple(Convolution._out_size(xs[2 + i], ws[2 + i], stride[i], padding[i], dilation[i])
                for i in range(len(stride)))
    gy = _special(rng.standard_normal((xs[0], ws[0]) + out).astype(dtype), special, rng)
    return x, w, b, gy


@pytest.mark.parametrize("case", CONV_CASES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("special", SPECIALS)
def test_conv_kernels_match_numpy_path(monkeypatch, case, dtype, special):
    """im2col, the forward (with and without the bias), the grad_output rows, col2im (the input's
    gradient) and the weight's gradient: the C++ kernels against the numpy code, bit for bit."""
    _, _, stride, padding, dilation, groups = case
    x, w, b, gy = _conv_arrays(case, dtype, special)
    kernel = w.shape[2:]
    cols, out = _same(monkeypatch, Convolution,
                      lambda: Convolution._im2col(x, kernel, stride, padding, dilation, groups))
    assert cols.flags.c_contiguous
    _same(monkeypatch, Convolution, lambda: Convolution._conv_forward(x, w, stride, padding, dilation, groups))
    (y,) = _same(monkeypatch, Convolution,
                 lambda: Convolution._conv_forward(x, w, stride, padding, dilation, groups, b))
    assert y.flags.c_contiguous and y.shape == gy.shape
    (rows,) = _same(monkeypatch, Convolution, lambda: Convolution._grad_output_rows(gy, groups))
    (gx,) = _same(monkeypatch, Convolution,
                  lambda: Convolution._conv_backward_input(gy, w, x.shape, stride, padding, dilation, groups))
    assert gx.shape == x.shape and gx.flags.c_contiguous
    _same(monkeypatch, Convolution,
          lambda: Convolution._conv_backward_input(gy, w, x.shape, stride, padding, dilation, groups, rows))
    _same(monkeypatch, Convolution,
          lambda: Convolution._conv_backward_weight(gy, x, w.shape, stride, padding, dilation, groups, rows))


@pytest.mark.parametrize("dtype", DTYPES)
def test_conv_kernels_take_numpy_path_for_other_arrays(monkeypatch, dtype):
    """Non-contiguous, float16 and integer arrays keep the numpy code; the answers are unchanged."""
    calls = []
    for name in ("_unfold2d_host", "_unfold2d_acc_host", "_swap_leading_axes_host"):
        real = getattr(_C, name)
        monkeypatch.setattr(_C, name, lambda *a, _real=real, _name=name, **k: calls.append(_name) or _real(*a, **k))
    x, w, b, gy = _conv_arrays(CONV_CASES[4], dtype, "")
    strided = np.swapaxes(np.ascontiguousarray(np.swapaxes(x, -1, -2)), -1, -2)
    assert not strided.flags.c_contiguous
    cols, _ = Convolution._im2col(strided, (3, 3), (2, 2), (1, 1), (1, 1), 1)
    assert calls == []
    assert _bits(cols) == _bits(Convolution._im2col(x, (3, 3), (2, 2), (1, 1), (1, 1), 1)[0])
    assert calls == ["_unfold2d_host"]
    calls.clear()
    Convolution._im2col(x.astype(np.float16), (3, 3), (2, 2), (1, 1), (1, 1), 1)
    Convolution._im2col(np.ones((1, 1, 4, 4), np.int64), (3, 3), (1, 1), (1, 1), (1, 1), 1)
    Convolution._im2col(np.ones((1, 1, 4, 4, 4), dtype), (3, 3, 3), (1, 1, 1), (1, 1, 1), (1, 1, 1), 1)  # 3-d
    assert calls == []


@pytest.mark.parametrize("dtype", DTYPES)
def test_col2im_adds_taps_in_order(dtype):
    """_unfold2d_acc_host against today's loop over the taps written out here: columns of very
    different magnitudes (so another order rounds differently), nan, inf and signed zeros."""
    rng = _rng("col2im", np.dtype(dtype).name)
    for (n, c, h, w), (kh, kw), (sh, sw), (ph, pw), (dh, dw) in [
            ((2, 3, 7, 6), (3, 3), (1, 1), (1, 1), (1, 1)), ((1, 2, 9, 8), (3, 2), (2, 1), (1, 1), (2, 3)),
            ((3, 1, 5, 5), (5, 5), (1, 1), (2, 2), (1, 1)), ((2, 2, 10, 7), (2, 3), (3, 2), (0, 1), (1, 1))]:
        oh, ow = ((h + 2 * ph - dh * (kh - 1) - 1) // sh + 1, (w + 2 * pw - dw * (kw - 1) - 1) // sw + 1)
        cols = (rng.standard_normal((c, kh, kw, n, oh, ow)) *
                10.0 ** rng.integers(-8, 8, (c, kh, kw, n, oh, ow))).astype(dtype)
        flat = cols.reshape(-1)
        flat[rng.integers(0, flat.size, flat.size // 4)] = -0.0
        for special in ("", "big", "inf", "nan"):
            if special == "big":  # sums that overflow
                flat[rng.integers(0, flat.size, 20)] = np.finfo(dtype).max
            elif special == "inf":
                flat[rng.integers(0, flat.size, 2)] = np.inf
                flat[rng.integers(0, flat.size, 2)] = -np.inf
            elif special == "nan":
                flat[rng.integers(0, flat.size, 5)] = np.nan
            expect = np.zeros((c, n, h + 2 * ph, w + 2 * pw), dtype)
            with np.errstate(all="ignore"):
                for i, j in itertools.product(range(kh), range(kw)):
                    expect[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh,
                           j * dw:j * dw + sw * (ow - 1) + 1:sw] += cols[:, i, j]
            expect = np.ascontiguousarray(np.moveaxis(expect[:, :, ph:ph + h, pw:pw + w], 0, 1))
            got = _C._unfold2d_acc_host(cols.reshape(c * kh * kw, n * oh * ow), [n, c, h, w],
                                        [kh, kw, sh, sw, ph, pw, dh, dw, oh, ow])
            if not np.isfinite(expect).all():
                # which of two nans a sum keeps is the compiler's choice, and numpy warns of an
                # overflow or a nan made: the caller runs numpy
                assert got is None
            else:
                assert special in ("", "big") and _bits(got) == _bits(expect)


@pytest.mark.parametrize("dtype", DTYPES)
def test_swap_leading_axes_bias(dtype):
    rng = _rng("swap", np.dtype(dtype).name)
    src = _special(rng.standard_normal((3, 4, 5)).astype(dtype), "nan", rng)
    src.flat[::7] = -0.0
    src.flat[1::11] = np.inf
    # a copy: every value as it is (nan, inf, -0.0)
    assert _bits(_C._swap_leading_axes_host(src)) == _bits(np.ascontiguousarray(np.swapaxes(src, 0, 1)))
    finite = np.nan_to_num(src, posinf=0.0)
    finite.flat[::7] = -0.0
    for bias in (np.array([0.0, -0.0, 1.5], dtype), np.array([-0.0, -0.0, -0.0], dtype),
                 rng.standard_normal(3).astype(dtype) * 1e6):
        expect = np.add(np.swapaxes(finite, 0, 1), bias[:, None], out=np.empty((4, 3, 5), dtype))
        assert _bits(_C._swap_leading_axes_host(finite, bias)) == _bits(expect)
    # a result that is not finite: None (numpy adds then)
    assert _C._swap_leading_axes_host(src, np.array([0.0, 1.0, 1.0], dtype)) is None
    assert _C._swap_leading_axes_host(finite, np.array([0.0, np.nan, 1.0], dtype)) is None
    assert _C._swap_leading_axes_host(finite, np.array([0.0, np.inf, 1.0], dtype)) is None
    big = np.full((3, 4, 5), np.finfo(dtype).max, dtype)
    assert _C._swap_leading_axes_host(big, np.array([0.0, np.finfo(dtype).max, 0.0], dtype)) is None


def test_bindings_refuse_bad_arguments():
    x = np.zeros((2, 3, 4, 4), np.float32)
    with pytest.raises(ValueError, match="dimensions"):
        _C._unfold2d_host(x[0], [3, 3, 1, 1, 1, 1, 1, 1, 4, 4])
    with pytest.raises(ValueError, match="10 window parameters"):
        _C._unfold2d_host(x, [3, 3])
    with pytest.raises(ValueError, match="non-positive"):
        _C._unfold2d_host(x, [3, 3, 0, 1, 1, 1, 1, 1, 4, 4])
    with pytest.raises(ValueError, match="wrong size"):
        _C._unfold2d_acc_host(np.zeros((27, 5), np.float32), [2, 3, 4, 4], [3, 3, 1, 1, 1, 1, 1, 1, 4, 4])
    with pytest.raises(ValueError, match="bias"):
        _C._swap_leading_axes_host(np.zeros((2, 3, 4), np.float32), np.zeros(3, np.float32))
    with pytest.raises(ValueError, match="bias"):
        _C._swap_leading_axes_host(np.zeros((2, 3, 4), np.float32), np.zeros(2, np.float64))
    with pytest.raises(TypeError):
        _C._unfold2d_host(x.astype(np.int32), [3, 3, 1, 1, 1, 1, 1, 1, 4, 4])
    with pytest.raises(TypeError):
        _C._max_pool2d_host(np.zeros((2, 4, 4), np.float32).T, [2, 2, 2, 2, 0, 0, 1, 1, 2, 2])  # not C-contiguous
    with pytest.raises(ValueError, match="differ in shape"):
        _C._max_pool2d_backward_host(np.zeros((2, 4), np.float32), np.zeros((2, 3), np.int64), 16)
    with pytest.raises(ValueError, match="negative"):
        _C._max_pool2d_host(np.zeros((2, 4, 4), np.float32), [2, 2, 2, 2, -1, 0, 1, 1, 2, 2])


# conv_transpose2d runs col2im as its forward and im2col for its weight's gradient:
# (input shape, weight shape (C_in, C_out / groups, kH, kW), stride, padding, dilation, groups)
TRANSPOSED_CASES = [((2, 4, 5, 6), (4, 3, 3, 3), (2, 2), (1, 1), (1, 1), 1),
                    ((1, 4, 4, 3), (4, 1, 2, 3), (1, 2), (0, 1), (2, 1), 2),
                    ((3, 1, 1, 1), (1, 2, 1, 1), (1, 1), (0, 0), (1, 1), 1)]


def _conv_op(lib, case, transposed, X, W, B):
    _, _, stride, padding, dilation, groups = case
    fn = lib.nn.functional
    if transposed:
        return fn.conv_transpose2d(X, W, B, stride, padding, 0, groups, dilation)
    conv = fn.conv2d if X.ndim == 4 else fn.conv1d
    return conv(X, W, B, stride, padding, dilation, groups)


@pytest.mark.parametrize("case", [(c, False) for c in CONV_CASES if c[0][0]] + [(c, True) for c in TRANSPOSED_CASES])
@pytest.mark.parametrize("dtype", DTYPES)
def test_conv_ops_against_torch(case, dtype):
    """conv1d / conv2d / conv_transpose2d through the kernels: the output, every gradient and the
    node name against torch."""
    case, transposed = case
    xs, ws, groups = case[0], case[1], case[5]
    rng = _rng("torch", case, transposed, np.dtype(dtype).name)
    x, w = rng.standard_normal(xs).astype(dtype), rng.standard_normal(ws).astype(dtype)
    b = rng.standard_normal(ws[1] * groups if transposed else ws[0]).astype(dtype)
    res = {}
    for lib in (torchlite, torch):
        X, W, B = (lib.tensor(a).requires_grad_() for a in (x, w, b))
        y = _conv_op(lib, case, transposed, X, W, B)
        gy = _rng("gy", tuple(y.shape)).standard_normal(tuple(y.shape)).astype(dtype)
        y.backward(lib.tensor(gy))
        res[lib] = (y.grad_fn.name(), y.detach().numpy(), X.grad.numpy(), W.grad.numpy(), B.grad.numpy())
    assert res[torchlite][0] == res[torch][0] == "ConvolutionBackward0"
    for a, t in zip(res[torchlite][1:], res[torch][1:], strict=True):
        _close(a, t, dtype)


def test_conv_gradcheck_and_gradgradcheck():
    rng = _rng("gradcheck conv")
    for xs, ws, stride, padding, dilation, groups in [((2, 4, 6, 5), (6, 2, 3, 2), (2, 1), (1, 1), (1, 2), 2),
                                                     ((1, 2, 7), (3, 2, 3), (2,), (1,), (2,), 1)]:
        x = torchlite.tensor(rng.standard_normal(xs), requires_grad=True)
        w = torchlite.tensor(rng.standard_normal(ws), requires_grad=True)
        b = torchlite.tensor(rng.standard_normal(ws[0]), requires_grad=True)
        conv = TF.conv2d if len(xs) == 4 else TF.conv1d

        def fn(x, w, b, conv=conv, stride=stride, padding=padding, dilation=dilation, groups=groups):
            return conv(x, w, b, stride, padding, dilation, groups)

        assert torchlite.autograd.gradcheck(fn, (x, w, b))
        assert torchlite.autograd.gradgradcheck(fn, (x, w, b))
    x = torchlite.tensor(rng.standard_normal((1, 2, 4, 3)), requires_grad=True)
    w = torchlite.tensor(rng.standard_normal((2, 3, 2, 3)), requires_grad=True)

    def transposed(x, w):
        return TF.conv_transpose2d(x, w, None, (2, 1), (1, 0), (1, 0), 1, (1, 2))

    assert torchlite.autograd.gradcheck(transposed, (x, w))
    assert torchlite.autograd.gradgradcheck(transposed, (x, w))


# max pooling ---------------------------------------------------------------------------------------------

# (input shape, kernel, stride, padding, dilation, ceil_mode)
POOL_CASES = [
    ((32, 32, 32, 32), 2, 2, 0, 1, False),  # the benchmark's pools
    ((32, 64, 16, 16), 2, 2, 0, 1, False),
    ((1, 1, 5, 5), 2, 2, 0, 1, False),  # odd sizes (the last row and column dropped)
    ((1, 1, 5, 5), 2, 2, 0, 1, True),  # ceil_mode: the last window overhangs
    ((2, 3, 9, 7), 3, 2, 1, 1, False),  # overlapping windows with padding
    ((2, 3, 9, 7), 3, 2, 1, 1, True),
    ((3, 8, 8), 2, 1, 0, 1, False),  # 3-d input, overlapping
    ((2, 2, 11, 10), (3, 2), (2, 3), (1, 1), (2, 1), True),  # dilation
    ((1, 2, 10, 13), (2, 4), (1, 3), (1, 2), (3, 2), False),
    ((2, 1, 7, 7), 5, 1, 2, 1, False),  # 25 positions (the numpy path's argmax branch)
    ((2, 1, 9, 9), (5, 4), (3, 3), (2, 2), (2, 2), True),
    ((1, 3, 1, 9), (1, 3), (1, 2), (0, 1), 1, True),  # max_pool1d's shape
    ((4, 1, 1), 1, 1, 0, 1, False),
    ((0, 2, 4, 4), 2, 2, 0, 1, False),  # an empty batch
]


def _pool_input(rng, shape, dtype, special):
    x = rng.integers(-3, 3, size=shape).astype(dtype)  # many ties
    zeros = x == 0
    x[zeros] = np.where(rng.random(int(zeros.sum())) < 0.5, 0.0, -0.0)
    if special == "nan":
        _special(x, "nan", rng)
    elif special == "inf":
        _special(x, "inf", rng)
    elif special == "allneg":  # windows of -inf only: the first position is taken, padding or not
        x[...] = -np.inf
        x.reshape(-1)[::7] = np.nan
    elif special == "random":
        x = rng.standard_normal(shape).astype(dtype)
    return x


def _pool(x, case):
    _, k, s, p, d, ceil = case
    return Pooling.max_pool2d_with_indices(torchlite.tensor(x), k, s, p, d, ceil)


@pytest.mark.parametrize("case", POOL_CASES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("special", ["", "nan", "inf", "allneg", "random"])
def test_max_pool_matches_numpy_path(monkeypatch, case, dtype, special):
    """Values and int64 indices bit for bit against the numpy scan (the first of equal maxima, -0.0
    and 0.0 equal, the last nan, padding positions only where a window holds nothing greater),
    then the backward (the gradient binned by index, overlapping windows summed in order)."""
    rng = _rng(case, np.dtype(dtype).name, special)
    x = _pool_input(rng, case[0], dtype, special)
    (v, i), (sv, si) = _pool(x, case), _numpy_path(monkeypatch, Pooling, lambda: _pool(x, case))
    assert _bits(v._array) == _bits(sv._array) and _bits(i._array) == _bits(si._array)
    assert i._array.dtype == np.int64 and v._array.flags.c_contiguous
    assert v.grad_fn is None  # no grad needed
    g = _special(rng.standard_normal(v.shape).astype(dtype) * 10.0 ** rng.integers(-6, 6, v.shape), special
                 if special != "allneg" else "nan", rng)
    _, k, s, p, d, ceil = case
    args = (torchlite.tensor(x), k, s, p, d, ceil)

    def backward():
        r = Pooling.max_pool2d_with_indices_backward(torchlite.tensor(g), *args, torchlite.tensor(i._array))
        return r._array

    if special != "allneg" or p == 0 and not ceil:
        _same(monkeypatch, Pooling, backward)
    else:  # an index may point at padding: both paths refuse it or agree on the answer
        try:
            slow = _numpy_path(monkeypatch, Pooling, backward)
        except ValueError as e:
            with pytest.raises(ValueError, match=str(e)[:20]):
                backward()
        else:
            assert _bits(backward()) == _bits(slow)


@pytest.mark.parametrize("dtype", DTYPES)
def test_max_pool_backward_sums_in_float64_in_order(monkeypatch, dtype):
    """Overlapping windows: the gradients of one input position added in float64 in flat order,
    rounded once (np.bincount's sums); gradients of very different sizes show the order."""
    rng = _rng("order", np.dtype(dtype).name)
    x = np.zeros((2, 3, 6, 6), dtype)
    x[..., 2, 2] = 1  # the maximum of every window that holds it
    case = ((2, 3, 6, 6), 3, 1, 1, 1, False)
    v, i = _pool(x, case)
    g = (rng.standard_normal(v.shape) * 10.0 ** rng.integers(-12, 12, v.shape)).astype(dtype)
    g.reshape(-1)[::5] = -0.0

    def backward():
        return Pooling.max_pool2d_with_indices_backward(torchlite.tensor(g), torchlite.tensor(x), 3, 1, 1, 1, False,
                                                        i)._array

    (fast,) = _same(monkeypatch, Pooling, backward)
    plane = np.bincount((i._array.reshape(6, -1) + np.arange(6)[:, None] * 36).reshape(-1),
                        weights=g.reshape(-1).astype(np.float64), minlength=6 * 36)
    assert _bits(fast) == _bits(plane.astype(dtype).reshape(x.shape))


def test_max_pool_backward_out_of_range_indices(monkeypatch):
    """Indices outside the plane (given to the op directly) take the numpy path: its answer (an
    index may reach into the next plane there) or its error."""
    x = torchlite.tensor(np.zeros((1, 2, 4, 4), np.float32))
    g = torchlite.tensor(np.arange(1, 9, dtype=np.float32).reshape(1, 2, 2, 2))
    calls = []
    real = _C._max_pool2d_backward_host
    def host(*args):
        r = real(*args)
        calls.append(r is None)
        return r

    monkeypatch.setattr(_C, "_max_pool2d_backward_host", host)

    def backward(idx):
        return Pooling.max_pool2d_with_indices_backward(g, x, 2, 2, 0, 1, False, torchlite.tensor(idx))._array

    for idx in ([[[[0, 1], [2, 16]], [[0, 0], [0, 0]]]], [[[[0, 1], [2, 3]], [[0, 0], [0, -1]]]],
                [[[[-1, 1], [2, 3]], [[0, 0], [0, 0]]]], [[[[0, 1], [2, 3]], [[0, 0], [0, 16]]]]):
        idx = np.array(idx, np.int64)
        calls.clear()
        try:
            slow = _numpy_path(monkeypatch, Pooling, lambda idx=idx: backward(idx))
        except ValueError as e:
            with pytest.raises(ValueError, match=str(e)[:30]):
                backward(idx)
        else:
            assert _bits(backward(idx)) == _bits(slow)
        assert calls == [True]  # tried, declined
    ok = np.array([[[[0, 0], [0, 15]], [[3, 3], [3, 3]]]], np.int64)
    calls.clear()
    expect = np.zeros(32, np.float32)
    expect[[0, 15]] = [6, 4]
    expect[16 + 3] = 26
    assert _bits(backward(ok)) == _bits(expect.reshape(1, 2, 4, 4))
    assert calls == [False]  # answered in C++


def test_max_pool_other_arrays_take_numpy_path(monkeypatch):
    calls = []
    real = _C._max_pool2d_host
    monkeypatch.setattr(_C, "_max_pool2d_host", lambda *a: calls.append(1) or real(*a))
    x = np.arange(32, dtype=np.float32).reshape(1, 2, 4, 4)
    strided = np.swapaxes(np.ascontiguousarray(np.swapaxes(x, -1, -2)), -1, -2)
    a = Pooling.max_pool2d_with_indices(torchlite.tensor(strided), 2)
    assert calls == []
    for dt in (np.float16, np.int32, np.int64):
        Pooling.max_pool2d_with_indices(torchlite.tensor(x.astype(dt)), 2)
    assert calls == []
    b = Pooling.max_pool2d_with_indices(torchlite.tensor(x), 2)
    assert calls == [1]
    assert _bits(a[0]._array) == _bits(b[0]._array) and _bits(a[1]._array) == _bits(b[1]._array)


@pytest.mark.parametrize("case", [c for c in POOL_CASES if c[0][0]])
@pytest.mark.parametrize("dtype", DTYPES)
def test_max_pool_against_torch(case, dtype):
    """Values, indices, the input's gradient (overlapping windows summed) and the node against torch."""
    rng = _rng("torch pool", case, np.dtype(dtype).name)
    x = rng.standard_normal(case[0]).astype(dtype)
    _, k, s, p, d, ceil = case
    res = {}
    for lib in (torchlite, torch):
        X = lib.tensor(x).requires_grad_()
        v, i = lib.nn.functional.max_pool2d(X, k, s, p, d, ceil, return_indices=True)
        gy = _rng("gy", tuple(v.shape)).standard_normal(tuple(v.shape)).astype(dtype)
        v.backward(lib.tensor(gy))
        res[lib] = (v.grad_fn.name(), v.detach().numpy(), i.numpy(), X.grad.numpy())
    (name, v, i, g), (tname, tv, ti, tg) = res[torchlite], res[torch]
    assert name == tname == "MaxPool2DWithIndicesBackward0"
    np.testing.assert_array_equal(v, tv)
    np.testing.assert_array_equal(i, ti)
    _close(g, tg, dtype)


def test_max_pool_gradcheck_and_gradgradcheck():
    rng = _rng("gradcheck pool")
    for shape, k, s, p, d, ceil in [((2, 2, 7, 8), 3, 2, 1, 1, True), ((1, 2, 9, 9), (2, 3), (1, 2), (1, 1), (2, 2),
                                                                   False)]:
        x = torchlite.tensor(rng.permutation(int(np.prod(shape))).reshape(shape) / 7.0, requires_grad=True)

        def fn(x, k=k, s=s, p=p, d=d, ceil=ceil):
            return TF.max_pool2d(x, k, s, p, d, ceil)

        assert torchlite.autograd.gradcheck(fn, (x,))
        assert torchlite.autograd.gradgradcheck(fn, (x,))
