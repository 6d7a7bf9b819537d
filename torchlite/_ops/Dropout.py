"""dropout and its in-place form (ATen/native/Dropout.cpp, `_dropout_impl`), on torchlite's ops in
upstream's order, so they record torch's nodes: on the CPU (no fused kernel) the noise is
`empty_like(input).bernoulli_(1 - p).div_(1 - p)` and the result `input * noise` (MulBackward0);
p == 1 multiplies by a 0-d zero; p == 0, eval mode or an empty input return the input itself."""
import numpy as np

from .._C import _wrap
from .BinaryOps import div_, mul, mul_
from .Distributions import bernoulli_
from .TensorIterator import _empty_like


def _check_p(p):
    if not 0 <= p <= 1:
        # (a double as C++'s ostream writes it: -1, 1.5)
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p:g}")


def _dropout_impl(input, p, train, inplace):  # noqa: A002 - upstream's names
    _check_p(p)
    a = input._array
    if p == 0 or not train or a.size == 0:
        return input
    multiply = mul_ if inplace else mul
    if p == 1:
        return multiply(input, _wrap(np.zeros((), dtype=a.dtype), input))
    noise = _wrap(_empty_like(a, a.dtype, input), input)
    bernoulli_(noise, 1 - p)
    div_(noise, 1 - p)
    return multiply(input, noise)


def dropout(input, p, train):  # noqa: A002 - upstream's names
    return _dropout_impl(input, p, train, False)


def dropout_(self, p, train):
    return _dropout_impl(self, p, train, True)
