"""searchsorted and bucketize (ATen/native/Bucketization.cpp and BucketizationUtils.h), with their
argument checks; neither is differentiable (torch records no node)."""
import numpy as np

from .. import _backend
from .._C import _wrap
from .ScalarType import _i64, _torch_type_name
from .TensorIterator import _TB, _number_dtype, _promote_types


def _search(boundaries, values, right, sorter=None):
    """Per row of `boundaries` (its last dimension sorted), the insertion points of the
    matching row of `values`: the first index whose boundary is >= (left) or > (right) the value."""
    side = "right" if right else "left"
    if boundaries.ndim == 1:
        return np.searchsorted(boundaries, values, side=side, sorter=sorter)
    lead = boundaries.shape[:-1]
    b = boundaries.reshape(-1, boundaries.shape[-1])
    v = values.reshape(b.shape[0], -1)
    s = None if sorter is None else sorter.reshape(b.shape[0], -1)
    out = np.empty(v.shape, np.int64)
    for i in range(b.shape[0]):
        out[i] = np.searchsorted(b[i], v[i], side=side, sorter=None if s is None else s[i])
    return out.reshape(*lead, *values.shape[len(lead):])


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None):  # noqa: A002
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of left "
                               "while right was True")
        right = side == "right"
    b = sorted_sequence._array
    scalar = not isinstance(input, _TB)
    v = np.asarray(input) if scalar else _backend.to_host(input._array)
    if b.ndim == 0:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 "
                           "dimension")
    if not scalar and b.ndim != 1 and (b.ndim != v.ndim or b.shape[:-1] != v.shape[:-1]):
        raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                           "dimensions of boundaries tensor and input value tensor must match, but we got boundaries "
                           f"tensor {list(b.shape)} and input value tensor {list(v.shape)}")
    s = None
    if sorter is not None:
        s = sorter._array
        if s.dtype != _i64:
            raise RuntimeError(f"torch.searchsorted(): sorter must be a tensor of long dtype but got dtype "
                               f"{_torch_type_name(s.dtype)}")
        if s.shape != b.shape:
            raise RuntimeError(f"torch.searchsorted(): boundary and sorter must have the same size, but got boundary "
                               f"tensor {list(b.shape)}and got sorter tensor {list(s.shape)}")
        s = _backend.to_host(s)
        if s.size and (s.min() < 0 or s.max() >= b.shape[-1]):
            raise RuntimeError("torch.searchsorted(): sorter index out of range")
    bh = _backend.to_host(b)
    # the values and boundaries compared in their common dtype (searchsorted_maybe_trim_input_tensors)
    dtype = _promote_types(bh.dtype, _number_dtype(input) if scalar else v.dtype)
    if dtype == np.bool_:  # the kernel dispatches over the common dtype (AT_DISPATCH_ALL_TYPES_AND2: no bool)
        raise NotImplementedError("\"searchsorted_out_cpu\" not implemented for 'Bool'")
    r = _search(bh.astype(dtype), v.astype(dtype), right, s)
    r = np.asarray(r, np.int32 if out_int32 else np.int64)
    return _wrap(_backend.asarray(r, like=sorted_sequence), sorted_sequence)


def bucketize(input, boundaries, *, out_int32=False, right=False):  # noqa: A002
    if boundaries._array.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries._array.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)
