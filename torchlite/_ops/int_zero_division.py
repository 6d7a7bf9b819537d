"""What an integer division by zero leaves written (Note [Integer division by zero writes a prefix]).

Note [Integer division by zero writes a prefix]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
torch's integer kernels of fmod, remainder and div with rounding_mode 'trunc' / 'floor'
(aten/src/ATen/native/cpu/BinaryOpsKernel.cpp) check `b != 0` inside the element loop
(TORCH_CHECK(b != 0, "ZeroDivisionError")), one element at a time in TensorIterator's order,
writing each quotient straight into the output. So an in-place op or an out= call that meets a
zero divisor has already written every element that came before it in that order, and raises
with the rest untouched (torch.fmod(x, y) out of place leaves nothing observable). The order is
TensorIterator's (aten/src/ATen/TensorIterator.cpp, reorder_dimensions): dimensions sorted,
innermost first, by the operands' strides (the output's first, then the inputs'; a broadcast
dimension, stride 0, leaves the decision to the next operand; equal strides put the smaller
dimension inside), the elements then visited with the last dimension of that order outermost.
Where the output's dtype is not the computation's (an int32 self divided by an int64 tensor, a
float out=), the CPU TensorIterator computes into a temporary and copies it back only after the
kernel returned (compute_types / cast_outputs), so nothing is written. A number or 0-dim divisor
of zero fails on the first element: nothing written either.

Here the numpy kernels check the divisor before computing (BinaryOps._check_int_zero) and raise
torch's RuntimeError("ZeroDivisionError") made by `zero_division()`, to which BinaryOps._compute
attaches the kernel and its operands (`partial_of`); the in-place and out= wrappers
(structured_inplace.inplace_variant, Resize.out_variant) write the prefix into their output with
`write_prefix` and let the error go on. Single-threaded order: torch
splits a loop of 32768 elements or more (at::internal::GRAIN_SIZE) between threads, whose
prefixes are not deterministic.
"""
import numpy as np

from .. import _backend
from .TensorIterator import _order_by_strides


def zero_division():
    """torch's error; its `_zero_division` is filled by _compute with (kernel, operands): `kernel(*operands)`
    is what the op computes, the divisor last."""
    err = RuntimeError("ZeroDivisionError")
    err._zero_division = None
    return err


def partial_of(err):
    """(kernel, operands) of an integer division's error that _compute saw, else None."""
    return getattr(err, "_zero_division", None)


def _broadcast_strides(x, shape):
    """TensorIterator's strides of operand `x` in the iteration of `shape` (0 where broadcast)."""
    if not isinstance(x, _backend.array_types) or x.ndim == 0:
        return [0] * len(shape)
    lead = len(shape) - x.ndim
    return [0] * lead + [0 if (n == 1 and s != 1) else st
                         for n, s, st in zip(x.shape, shape[lead:], x.strides, strict=True)]


def write_prefix(partial, dest, resized=False):
    """Writes into the array `dest` (the op's output, of the computation's dtype and the broadcast shape)
    the elements the kernel computes before its first zero divisor, as torch's loop does; `resized`: dest
    was resized for the op (it takes no part in the order, as TensorIterator's will_resize output)."""
    kernel, operands = partial
    shape = dest.shape
    divisor = operands[-1]
    zero = np.broadcast_to(np.asarray(divisor) == 0, shape)
    if not zero.any() or dest.size == 0:
        return
    strided = [] if resized else [_broadcast_strides(dest, shape)]
    strided += [_broadcast_strides(x, shape) for x in operands]
    perm = _order_by_strides(shape, strided)
    outer_first = perm[::-1]
    rank = np.empty(shape, dtype=np.int64)
    rank.transpose(outer_first)[...] = np.arange(dest.size, dtype=np.int64).reshape([shape[d] for d in outer_first])
    first = rank[zero].min()
    if first == 0:
        return
    safe = np.where(np.asarray(divisor) == 0, np.ones((), dtype=np.asarray(divisor).dtype), divisor)
    values = np.broadcast_to(kernel(*operands[:-1], safe), shape)
    mask = rank < first
    dest[mask] = values[mask]
