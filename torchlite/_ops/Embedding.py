"""embedding and its backward (ATen/native/Embedding.cpp): rows of `weight` picked by `indices`,
node EmbeddingBackward0; the dense gradient is the op embedding_dense_backward (its own node,
EmbeddingDenseBackwardBackward0, under a double backward), as upstream."""
import numpy as np

from .. import _C, _backend
from .._C import _record, _wrap
from .._C import is_grad_enabled as _C_grad_enabled
from .EmbeddingBag import _SPARSE_MESSAGE
from .._generated import specs as _S
from .ScalarType import _f16, _f32, _i32, _i64, _tensor_type_name


def _check_indices(indices, fn, pos):
    # checkScalarTypes on TensorArg(indices, "indices", pos): position 1 in embedding, 2 in
    # embedding_dense_backward_cpu (Embedding.cpp)
    if indices._array.dtype not in (_i64, _i32):
        raise RuntimeError(f"Expected tensor for argument #{pos} 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {_tensor_type_name(indices._array.dtype)} instead (while checking "
                           f"arguments for {fn})")


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    _check_indices(indices, "embedding", 1)
    w = weight._array
    if w.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    idx = _backend.to_host(indices._array)
    if idx.size and (idx.min() < 0 or idx.max() >= w.shape[0]):
        raise IndexError("index out of range in self")
    if sparse and weight.requires_grad and _C_grad_enabled():
        # torch makes a torch.sparse_coo gradient here (issue 15: conv refuses it rather than densify)
        raise NotImplementedError(_SPARSE_MESSAGE.format(name="embedding"))
    out = _wrap(np.array(w[indices._array], order="C"), weight)
    return _record(_S.EmbeddingBackward0, (weight,), out, indices=indices, padding_idx=padding_idx,
                   scale_grad_by_freq=scale_grad_by_freq, sparse=sparse, weight_sym_argsize_0=w.shape[0])


# _C._embedding_dense_backward_host gives np.add.at's bits (Note [Embedding backward with numpy's
# bits], csrc/aten/native/EmbeddingHost.cpp) for a C-contiguous float32 / float64 grad_output and
# int64 indices without scale_grad_by_freq; it returns None where it does not apply and the numpy
# path runs. Tests set _HOST_KERNELS to False to run the numpy path as the reference.
_HOST_KERNELS = True
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def embedding_dense_backward(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq):
    """The weight's gradient: grad_output's rows added into the rows indices name (none into
    padding_idx's), each divided by its index's count with scale_grad_by_freq."""
    _check_indices(indices, "embedding_backward", 2)
    g = grad_output._array
    if _HOST_KERNELS and not scale_grad_by_freq and type(g) is np.ndarray and type(num_weights) is int \
            and type(padding_idx) is int and _INT64_MIN <= padding_idx <= _INT64_MAX:
        idx = _backend.to_host(indices._array)
        if type(idx) is np.ndarray and idx.dtype == _i64:
            r = _C._embedding_dense_backward_host(g, idx, num_weights, padding_idx)
            if r is not None:
                return _record(_S.EmbeddingDenseBackwardBackward0, (grad_output,), _wrap(r, grad_output),
                               indices=indices, padding_idx=padding_idx)
    idx = indices._array.reshape(-1).astype(np.int64)
    dim = g.shape[-1] if g.ndim else 1
    rows = g.reshape(-1, dim)
    acc = _f32 if g.dtype == _f16 else g.dtype
    if scale_grad_by_freq:
        counts = np.bincount(idx, minlength=num_weights)
        rows = rows / counts[idx][:, None].astype(acc)
    keep = idx != padding_idx
    total = np.zeros((num_weights, dim), dtype=acc)
    with np.errstate(all="ignore"):  # (inf + -inf: nan without a warning, as torch)
        np.add.at(total, idx[keep], rows[keep].astype(acc, copy=False))
    out = _wrap(np.array(total, dtype=g.dtype, order="C"), grad_output)
    return _record(_S.EmbeddingDenseBackwardBackward0, (grad_output,), out, indices=indices, padding_idx=padding_idx)
