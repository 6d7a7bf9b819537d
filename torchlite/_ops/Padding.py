"""Padding (ATen/native/PadNd.cpp, ReflectionPad.cpp, ReplicationPad.cpp): constant_pad_nd, the
ConstantPadNdBackward0 of F.pad's constant mode and of conv*d's asymmetric padding="same"."""
import numpy as np

from .._C import _record, _wrap
from .._generated import specs as _S
from .ScalarType import _scalar_value
from .TypeAndSize import TypeAndSize


def _pad_list(pad):
    return [int(p) for p in pad]


def constant_pad_nd(self, pad, value=0):
    """at::constant_pad_nd: pad[2i], pad[2i+1] pad the i-th dimension from the last; a negative pad
    crops (as upstream narrows)."""
    a = self._array
    pad = _pad_list(pad)
    if len(pad) % 2:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    if len(pad) // 2 > a.ndim:  # (upstream's message, its missing spaces included)
        raise RuntimeError("Length of pad should be no more than twice the number of dimensions of the input. Pad "
                           f"length is {len(pad)}while the input has {a.ndim}dimensions.")
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


# reflection and replication padding (ReflectionPad.cpp, ReplicationPadding.cpp) -------------------------

def _pad_index(size, left, right, mode):
    """The input position each output position reads along one dim (a negative pad crops)."""
    p = np.arange(size + left + right) - left
    if mode == "reflect":
        p = np.abs(p)
        p = np.where(p >= size, 2 * (size - 1) - p, p)
    else:
        p = np.clip(p, 0, size - 1)
    return p


def _check_valid_input(a, dims):
    """padding::check_valid_input: a (dims+1)-D or (dims+2)-D input, every non-batch dim non-zero."""
    ok = a.ndim in (dims + 1, dims + 2) and all(s != 0 for s in a.shape[a.ndim - dims - 1:])
    if not ok:
        raise RuntimeError(f"Expected {dims + 1}D or {dims + 2}D (batch mode) tensor with possibly 0 batch size and "
                           f"other non-zero dimensions for input, but got: [{', '.join(map(str, a.shape))}]")


def _pad_nd(self, padding, mode, dims, spec):
    a = self._array
    padding = _pad_list(padding)
    if len(padding) != 2 * dims:
        raise RuntimeError(f"padding size is expected to be {2 * dims}, but got: {len(padding)}")
    _check_valid_input(a, dims)
    sizes = a.shape[-dims:]
    pairs = [(padding[2 * (dims - 1 - i)], padding[2 * (dims - 1 - i) + 1]) for i in range(dims)]  # per dim, H first
    if mode == "reflect":
        for i, (left, right) in reversed(list(enumerate(pairs))):
            if left >= sizes[i] or right >= sizes[i]:
                arg = 4 + 2 * (dims - 1 - i)
                raise RuntimeError(f"Argument #{arg}: Padding size should be less than the corresponding input "
                                   f"dimension, but got: padding ({left}, {right}) at dimension {a.ndim - dims + i} "
                                   f"of input [{', '.join(map(str, a.shape))}]")
    out = [s + left + right for s, (left, right) in zip(sizes, pairs, strict=True)]
    if any(o < 1 for o in out):
        names = ["H", "W"][-dims:]
        given = ", ".join(f"{n}: {s}" for n, s in zip(names, sizes, strict=True))
        calc = " ".join(f"{n}: {o}" for n, o in zip(names, out, strict=True))
        raise RuntimeError(f"input ({given}) is too small. Calculated output {calc}")
    r = a
    for i, (left, right) in enumerate(pairs):
        r = np.take(r, _pad_index(sizes[i], left, right, mode), axis=a.ndim - dims + i)
    return _record(spec, (self,), _wrap(np.ascontiguousarray(r), self), self=self, padding=padding)


def _pad_nd_backward(grad_output, self, padding, mode, dims, spec):
    """The gradient of each input position: the sum of the output gradients that read it."""
    g, a = grad_output._array, self._array
    padding = _pad_list(padding)
    sizes = a.shape[-dims:]
    r = g
    for i in range(dims):
        left, right = padding[2 * (dims - 1 - i)], padding[2 * (dims - 1 - i) + 1]
        idx = _pad_index(sizes[i], left, right, mode)
        onehot = (idx[:, None] == np.arange(sizes[i])[None, :]).astype(g.dtype)  # (out, in)
        r = np.moveaxis(np.matmul(np.moveaxis(r, a.ndim - dims + i, -1), onehot), -1, a.ndim - dims + i)
    out = _wrap(np.ascontiguousarray(r), grad_output)
    return _record(spec, (grad_output, self), out, self_info=TypeAndSize(self), padding=padding)


def reflection_pad1d(self, padding):
    return _pad_nd(self, padding, "reflect", 1, _S.ReflectionPad1DBackward0)


def reflection_pad2d(self, padding):
    return _pad_nd(self, padding, "reflect", 2, _S.ReflectionPad2DBackward0)


def replication_pad1d(self, padding):
    return _pad_nd(self, padding, "replicate", 1, _S.ReplicationPad1DBackward0)


def replication_pad2d(self, padding):
    return _pad_nd(self, padding, "replicate", 2, _S.ReplicationPad2DBackward0)


def reflection_pad1d_backward(grad_output, self, padding):
    return _pad_nd_backward(grad_output, self, padding, "reflect", 1, _S.ReflectionPad1DBackwardBackward0)


def reflection_pad2d_backward(grad_output, self, padding):
    return _pad_nd_backward(grad_output, self, padding, "reflect", 2, _S.ReflectionPad2DBackwardBackward0)


def replication_pad1d_backward(grad_output, self, padding):
    return _pad_nd_backward(grad_output, self, padding, "replicate", 1, _S.ReplicationPad1DBackwardBackward0)


def replication_pad2d_backward(grad_output, self, padding):
    return _pad_nd_backward(grad_output, self, padding, "replicate", 2, _S.ReplicationPad2DBackwardBackward0)
