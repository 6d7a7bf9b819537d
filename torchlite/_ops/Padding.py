"""Padding (ATen/native/PadNd.cpp, ReflectionPad.cpp, ReplicationPad.cpp): constant_pad_nd, the
ConstantPadNdBackward0 of F.pad's constant mode and of conv*d's asymmetric padding="same"."""
import numpy as np

from .._C import _record, _wrap
from .._generated import specs as _S
from .ScalarType import _scalar_value


def _pad_list(pad):
    return [int(p) for p in pad]


def constant_pad_nd(self, pad, value=0):
    """at::constant_pad_nd: pad[2i], pad[2i+1] pad the i-th dimension from the last; a negative pad
    crops (as upstream narrows)."""
    a = self._array
    pad = _pad_list(pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > a.ndim:
        raise RuntimeError("Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {a.ndim}")
    shape, src, dst = list(a.shape), [slice(None)] * a.ndim, [slice(None)] * a.ndim
    for i in range(len(pad) // 2):
        d = a.ndim - 1 - i
        left, right, size = pad[2 * i], pad[2 * i + 1], a.shape[d]
        lo = 0
        if left < 0:  # upstream narrows the input first, then pads what is left
            if size + left < 0:
                raise RuntimeError("narrow(): length must be non-negative.")
            lo, size = -left, size + left
        hi = lo + size
        if right < 0:
            if size + right < 0:
                raise RuntimeError("narrow(): length must be non-negative.")
            hi, size = hi + right, size + right
        src[d] = slice(lo, hi)
        start = max(left, 0)
        dst[d] = slice(start, start + size)
        shape[d] = size + max(left, 0) + max(right, 0)
    r = np.empty(tuple(shape), dtype=a.dtype)
    r[...] = _scalar_value(value, a.dtype) if a.dtype.kind != "b" else bool(value)
    r[tuple(dst)] = a[tuple(src)]
    return _record(_S.ConstantPadNdBackward0, (self,), _wrap(r, self), pad=pad)


def constant_pad_nd_backward(grad, pad):
    """FunctionsManual's constant_pad_nd_backward: the padding cut off again (a negative pad)."""
    return constant_pad_nd(grad, [-p for p in pad])
