"""The overlap checks of the ops that write (ATen/MemoryOverlap.cpp:
assert_no_internal_overlap, assert_no_partial_overlap, get_overlap_status),
with their messages."""
import numpy as np

from .TensorGeometry import _data_ptr


_OVERLAP = ("unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
            "single memory location. Please clone() the tensor before performing the operation.")
_INTERNAL_OVERLAP = ("unsupported operation: more than one element of the written-to tensor refers to a single "
                     "memory location. Please clone() the tensor before performing the operation.")


def _non_overlapping_and_dense(a):
    dims = sorted((st, n) for st, n in zip(a.strides, a.shape, strict=True) if n != 1)
    expected = a.itemsize
    for st, n in dims:
        if st != expected:
            return False
        expected *= n
    return True


def _check_overlap(a, b=None):
    """at::assert_no_internal_overlap(a) and at::assert_no_partial_overlap(a, b).
    True when b shares memory with a in a way torch does not check (its
    MemOverlapStatus::TooHard): the kernel then runs as torch's does, element by
    element (_sequential)."""
    if a.size > 1 and any(st == 0 and n > 1 for st, n in zip(a.strides, a.shape, strict=True)):
        raise RuntimeError(_INTERNAL_OVERLAP)
    if b is None or a.size == 0 or b.size == 0 or not np.may_share_memory(a, b):
        return False
    if not (_non_overlapping_and_dense(a) and _non_overlapping_and_dense(b)):
        return np.shares_memory(a, b)
    a0, b0 = _data_ptr(a), _data_ptr(b)
    a1, b1 = a0 + a.nbytes, b0 + b.nbytes
    if a0 == b0 and a1 == b1:
        if a.strides == b.strides:  # the same memory laid out the same way
            return False
        raise RuntimeError(_OVERLAP)
    if a0 < b1 and b0 < a1:
        raise RuntimeError(_OVERLAP)
    return False


_OVERLAP_NO, _OVERLAP_PARTIAL, _OVERLAP_FULL, _OVERLAP_TOO_HARD = range(4)


def _overlap_status(a, b):
    """at::get_overlap_status of two arrays (the same tensor is `a is b`)."""
    if a is b:
        return _OVERLAP_FULL
    if a.size == 0 or b.size == 0:
        return _OVERLAP_NO
    if not (_non_overlapping_and_dense(a) and _non_overlapping_and_dense(b)):
        return _OVERLAP_TOO_HARD
    a0, b0 = _data_ptr(a), _data_ptr(b)
    a1, b1 = a0 + a.nbytes, b0 + b.nbytes
    if a0 == b0 and a1 == b1:
        return _OVERLAP_FULL if a.strides == b.strides else _OVERLAP_PARTIAL
    return _OVERLAP_PARTIAL if a0 < b1 and b0 < a1 else _OVERLAP_NO


def _has_internal_overlap(a):
    """at::has_internal_overlap(a) == MemOverlap::Yes: a dimension of more than one element with
    stride 0 (numpy gives an empty array strides 0: torchlite's empty tensors are dense)."""
    return a.size > 0 and any(st == 0 and n > 1 for st, n in zip(a.strides, a.shape, strict=True))
