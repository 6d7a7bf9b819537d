"""dropout and its in-place form (ATen/native/Dropout.cpp, `_dropout_impl`), on torchlite's ops in
upstream's order, so they record torch's nodes: on the CPU (no fused kernel) the noise is
`empty_like(input).bernoulli_(1 - p).div_(1 - p)` and the result `input * noise` (MulBackward0);
p == 1 multiplies by a 0-d zero; p == 0, eval mode or an empty input return the input itself."""
import math

import numpy as np

from .._C import _wrap
from .BinaryOps import _add_scalar, add_, div_, mul, mul_
from .Distributions import bernoulli_
from .TensorIterator import _empty_like


def _check_p(p):
    if not 0 <= p <= 1:
        # (a double as C++'s ostream writes it: -1, 1.5)
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p:g}")


_ALPHA = 1.7580993408473766  # SELU's alpha * scale (Dropout.cpp's alpha dropout)


def _dropout_impl(input, p, train, inplace, feature=False, alpha=False):  # noqa: A002 - upstream's names
    _check_p(p)
    a = input._array
    if p == 0 or not train or a.size == 0:
        return input
    multiply = mul_ if inplace else mul
    if p == 1:
        return multiply(input, _wrap(np.zeros((), dtype=a.dtype), input))
    if feature:
        # make_feature_noise: one draw per (batch, channel), broadcast over the other dims
        if a.ndim < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        noise = _wrap(np.empty((a.shape[0], a.shape[1]) + (1,) * (a.ndim - 2), dtype=a.dtype), input)
    else:
        noise = _wrap(_empty_like(a, a.dtype, input), input)
    bernoulli_(noise, 1 - p)
    if not alpha:
        div_(noise, 1 - p)
        return multiply(input, noise)
    scale = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
    b = _add_scalar(noise, -1)
    mul_(b, _ALPHA * scale)
    add_(b, _ALPHA * scale * p)
    mul_(noise, scale)
    return add_(multiply(input, noise), b)


def dropout(input, p, train):  # noqa: A002 - upstream's names
    return _dropout_impl(input, p, train, False)


def dropout_(self, p, train):
    return _dropout_impl(self, p, train, True)


def feature_dropout(input, p, train):  # noqa: A002 - upstream's names
    return _dropout_impl(input, p, train, False, feature=True)


def feature_dropout_(self, p, train):
    return _dropout_impl(self, p, train, True, feature=True)


def alpha_dropout(input, p, train):  # noqa: A002 - upstream's names
    return _dropout_impl(input, p, train, False, alpha=True)


def alpha_dropout_(self, p, train):
    return _dropout_impl(self, p, train, True, alpha=True)


def feature_alpha_dropout(input, p, train):  # noqa: A002 - upstream's names
    return _dropout_impl(input, p, train, False, feature=True, alpha=True)


def feature_alpha_dropout_(self, p, train):
    return _dropout_impl(self, p, train, True, feature=True, alpha=True)
