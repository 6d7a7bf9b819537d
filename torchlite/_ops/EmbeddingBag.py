"""embedding_bag (ATen/native/EmbeddingBag.cpp): sums, means or maxes of bags of weight's rows.
at::embedding_bag (the composite torch.embedding_bag) checks padding_idx and calls _embedding_bag,
whose node is EmbeddingBagBackward0 with outputs (output, offset2bag, bag_size, max_indices) as
upstream's CPU kernel returns them; the weight's gradient is _embedding_bag_backward (node
EmbeddingBagBackwardBackward0, whose own derivative upstream leaves not implemented) and the
per_sample_weights' gradient _embedding_bag_per_sample_weights_backward (no formula upstream:
torch::autograd::NotImplemented). Everything is vectorised over the indices with numpy."""
import numpy as np

from .. import _backend
from .._C import _record, _wrap
from .._C import is_grad_enabled as _C_is_grad_enabled
from .._generated import specs as _S
from .ScalarType import _f16, _f32, _i32, _i64, _tensor_type_name

_WEIGHT_TYPES = ("Half", "BFloat16", "Float", "Double")


def _promote(a, b):
    """torch's promote_types for the index dtypes (a floating type wins over an integer one)."""
    if (a.kind == "f") != (b.kind == "f"):
        return a if a.kind == "f" else b
    return np.result_type(a, b)


def _check_inputs(weight, indices, offsets, mode, per_sample_weights):
    # promoteIndicesAndOffsets: the two in their common type first, which then must be Long or Int
    common = _promote(indices._array.dtype, offsets._array.dtype)
    if common not in (_i64, _i32):
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {_tensor_type_name(common)} instead (while checking arguments for "
                           "embedding_bag)")
    w = weight._array
    if w.dtype.kind != "f" and str(w.dtype) != "bfloat16":
        raise RuntimeError("Expected tensor for argument #1 'weight' to have one of the following scalar types: "
                           f"{', '.join(_WEIGHT_TYPES)}; but got {_tensor_type_name(w.dtype)} instead (while "
                           "checking arguments for embedding_bag)")
    if mode not in (0, 1, 2):
        raise RuntimeError("`mode` must be sum, mean, or max.")
    if offsets._array.ndim != 1:
        raise RuntimeError(f"offsets has to be a 1D Tensor, but got Tensor of dimension {offsets._array.ndim}")
    if per_sample_weights is not None:
        if mode != 0:
            raise RuntimeError("embedding_bag: per_sample_weights only supported with mode='sum'")
        p = per_sample_weights._array
        if p.dtype != w.dtype:
            raise RuntimeError("Expected tensor for argument #1 'weight' to have the same type as tensor for argument "
                               f"#1 'per_sample_weights'; but type {_tensor_type_name(w.dtype)} does not equal "
                               f"{_tensor_type_name(p.dtype)} (while checking arguments for embedding_bag)")
        if p.ndim != 1:
            raise RuntimeError(f"embedding_bag: Expected per_sample_weights to be 1D tensor, got {p.ndim}D")
        if p.size != indices._array.size:
            raise RuntimeError(f"embedding_bag: Expected per_sample_weights.numel() ({p.size}) to be the same as "
                               f"indices.numel() ({indices._array.size})")


def _bags(indices, offsets, include_last_offset, num_weights):
    """(idx, off, offset2bag, num_bags) on the host: the bag of each index (make_offset2bag: the last
    bag runs to the end of indices, also with include_last_offset, as the CPU kernel's)."""
    idx = _backend.to_host(indices._array).reshape(-1).astype(np.int64)
    off = _backend.to_host(offsets._array).astype(np.int64)
    num_bags = off.shape[0] - (1 if include_last_offset else 0)
    if num_bags < 1:  # (torch's CPU kernel reads past the offsets here and crashes)
        raise RuntimeError("embedding_bag: torchlite needs at least one bag (offsets has "
                           f"{off.shape[0]} elements with include_last_offset={include_last_offset})")
    if off[0] != 0:
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                           f"position 0. However, got {off[0]}\n[ "
                           f"{_tensor_type_name(_promote(indices._array.dtype, offsets._array.dtype))}{{}} ]")
    if off[-1] > idx.shape[0]:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {idx.shape[0]} but got offsets[-1] of "
                           f"{off[-1]}")
    if idx.size:
        bad = (idx < 0) | (idx >= num_weights)
        if bad.any():
            raise RuntimeError("embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be "
                               f"{idx[np.argmax(bad)]}")
    marks = np.zeros(idx.shape[0] + 1, dtype=np.int64)
    np.add.at(marks, off[1:num_bags], 1)
    offset2bag = np.cumsum(marks)[:-1]
    return idx, off, offset2bag, num_bags


def _embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                   per_sample_weights=None, include_last_offset=False, padding_idx=-1):
    """at::_embedding_bag: (output, offset2bag, bag_size, max_indices), node EmbeddingBagBackward0."""
    _check_inputs(weight, indices, offsets, mode, per_sample_weights)
    w = weight._array
    num_weights, dim = w.shape
    idx, off, offset2bag, num_bags = _bags(indices, offsets, include_last_offset, num_weights)
    keep = idx != padding_idx
    counts = np.bincount(offset2bag[keep], minlength=num_bags).astype(np.int64)
    fast = mode != 2 and w.dtype.name in ("float32", "float16", "bfloat16") and padding_idx < 0
    if fast and include_last_offset:
        # upstream's fast path (fbgemm's EmbeddingSpMDM, is_fast_path) sums each bag up to the next
        # offset, the last one too, while offset2bag and bag_size run to the end of the indices
        summed = keep & (np.arange(idx.shape[0]) < off[num_bags])
    else:
        summed = keep
    acc = _f32 if w.dtype == _f16 else w.dtype
    rows = np.asarray(_backend.to_host(w))[idx].astype(acc)
    if mode == 2:
        # the CPU kernel takes a bag's first row, then replaces only on a strictly larger value: a nan
        # first stays, a later nan never replaces
        out = np.full((num_bags, dim), -np.inf, dtype=acc)
        np.fmax.at(out, offset2bag[keep], rows[keep])
        positions = np.arange(idx.shape[0])
        opening = np.full(num_bags, idx.shape[0], dtype=np.int64)
        np.minimum.at(opening, offset2bag[keep], positions[keep])
        opened = opening < idx.shape[0]
        first_rows = rows[np.minimum(opening, max(idx.shape[0] - 1, 0))] if idx.shape[0] else out
        nan_first = opened[:, None] & np.isnan(first_rows)
        out[nan_first] = np.nan
        out[counts == 0] = 0
        # the first row reaching each maximum (a nan first row: that row)
        hit = keep[:, None] & ((rows == out[offset2bag]) | (nan_first[offset2bag] & (positions == opening[offset2bag])
                                                           [:, None]))
        pos = np.where(hit, positions[:, None], idx.shape[0])
        first = np.full((num_bags, dim), idx.shape[0], dtype=np.int64)
        np.minimum.at(first, offset2bag, pos)
        max_indices = np.where(first < idx.shape[0], np.append(idx, 0)[np.minimum(first, idx.shape[0])], 0)
        bag_size = counts
    else:
        if per_sample_weights is not None:
            psw = np.asarray(_backend.to_host(per_sample_weights._array)).astype(acc)
            rows = rows * psw[:, None]
        out = np.zeros((num_bags, dim), dtype=acc)
        np.add.at(out, offset2bag[summed], rows[summed])
        if mode == 1:
            out = out / np.maximum(counts, 1)[:, None].astype(acc)
            bag_size = counts
            max_indices = counts.copy()
        else:
            bag_size = np.zeros(num_bags, dtype=np.int64)
            max_indices = np.zeros(num_bags, dtype=np.int64)
    index_dtype = _promote(indices._array.dtype, offsets._array.dtype)
    if fast and mode == 0:
        # upstream's fast sum path (is_fast_path in EmbeddingBag.cpp) leaves offset2bag empty; the
        # backward ops make it again from the offsets
        offset2bag = offset2bag[:0]
    result0 = _wrap(_backend.asarray(np.ascontiguousarray(out.astype(w.dtype)), like=weight), weight)
    result1 = _wrap(_backend.asarray(offset2bag.astype(index_dtype), like=weight), weight)
    result2 = _wrap(_backend.asarray(bag_size.astype(index_dtype), like=weight), weight)
    result3 = _wrap(_backend.asarray(np.ascontiguousarray(max_indices.astype(index_dtype)), like=weight), weight)
    psw_needs = per_sample_weights is not None and per_sample_weights.requires_grad
    # no per_sample_weights: an input that needs no gradient in its place (no edge), as convolution's bias
    psw_input = per_sample_weights if per_sample_weights is not None else weight.detach()
    _record(_S.EmbeddingBagBackward0, (weight, psw_input), result0, indices=indices, offsets=offsets,
            result1=result1, result2=result2, result3=result3, weight_sym_argsize_0=num_weights,
            scale_grad_by_freq=scale_grad_by_freq, mode=mode, sparse=sparse, per_sample_weights=per_sample_weights,
            padding_idx=padding_idx, weight=weight if psw_needs else None)
    return result0, result1, result2, result3


def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """at::embedding_bag and its padding_idx overload: padding_idx within [-num_weights, num_weights)
    and wrapped, then _embedding_bag."""
    pad = -1
    if padding_idx is not None:
        n = weight._array.shape[0] if weight._array.ndim else 0
        pad = int(padding_idx)
        if not -n <= pad < n:
            raise RuntimeError(f"padding_idx must be within the number of embeddings, -{n} through {n - 1}, but got "
                               f"{pad}")
        if pad < 0:
            pad += n
    if sparse and weight.requires_grad and _is_grad_enabled():
        raise NotImplementedError(_SPARSE_MESSAGE.format(name="embedding_bag"))
    return _embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
                          include_last_offset, pad)


_SPARSE_MESSAGE = ("torchlite: {name}(sparse=True) makes torch's sparse gradient (a torch.sparse_coo tensor), and "
                   "torchlite has no sparse layout (its tensors are strided only); use sparse=False for the dense "
                   "gradient")


def _is_grad_enabled():
    return _C_is_grad_enabled()


def _offset2bag(indices, offsets, offset2bag, num_bags):
    """offset2bag on the host, made again from the offsets where the forward's fast path left it empty
    (make_offset2bag, the bags past the last one folded into it as the forward adds them)."""
    o2b = _backend.to_host(offset2bag._array).astype(np.int64)
    n = indices._array.size
    if n and not o2b.size:
        marks = np.zeros(n + 1, dtype=np.int64)
        np.add.at(marks, _backend.to_host(offsets._array).astype(np.int64), 1)
        marks[0] -= 1
        o2b = np.minimum(np.cumsum(marks)[:n], num_bags - 1)
    return o2b


def _embedding_bag_backward(grad, indices, offsets, offset2bag, bag_size, maximum_indices, num_weights,
                            scale_grad_by_freq, mode, sparse, per_sample_weights, padding_idx=-1):
    """at::_embedding_bag_backward (dense: _embedding_bag_dense_backward's CPU kernel): the weight's
    gradient; node EmbeddingBagBackwardBackward0, whose formula upstream leaves not implemented."""
    if sparse:
        raise NotImplementedError(_SPARSE_MESSAGE.format(name="embedding_bag"))
    g = np.asarray(_backend.to_host(grad._array))
    acc = _f32 if g.dtype == _f16 else g.dtype
    g = g.astype(acc)
    idx = _backend.to_host(indices._array).reshape(-1).astype(np.int64)
    o2b = _offset2bag(indices, offsets, offset2bag, g.shape[0])
    sizes = _backend.to_host(bag_size._array).astype(np.int64)
    dim = g.shape[1]
    total = np.zeros((num_weights, dim), dtype=acc)
    if mode == 2:
        mi = _backend.to_host(maximum_indices._array).astype(np.int64)
        used = sizes > 0
        cols = np.broadcast_to(np.arange(dim), mi.shape)
        np.add.at(total, (mi[used], cols[used]), g[used])
    else:
        keep = idx != padding_idx
        rows = g[o2b]
        if per_sample_weights is not None:
            rows = rows * np.asarray(_backend.to_host(per_sample_weights._array)).astype(acc)[:, None]
        if mode == 1:
            rows = rows / np.maximum(sizes[o2b], 1)[:, None].astype(acc)
        if scale_grad_by_freq:
            # as _embedding_bag_dense_backward_cpu_sum_mean: the k-th distinct index (in sorted order)
            # is divided by the count of the k-th *sorted* index, counts[indices_data[i]] with i the
            # group's number (so not always its own count; torch's numbers kept)
            freq = np.bincount(idx, minlength=num_weights)
            rank = np.unique(idx, return_inverse=True)[1].reshape(-1)
            rows = rows / freq[np.sort(idx)[rank]][:, None].astype(acc)
        np.add.at(total, idx[keep], rows[keep])
    out = _wrap(_backend.asarray(np.ascontiguousarray(total.astype(grad._array.dtype)), like=grad), grad)
    psw_input = per_sample_weights if per_sample_weights is not None else grad.detach()
    return _record(_S.EmbeddingBagBackwardBackward0, (grad, psw_input), out)


def _embedding_bag_per_sample_weights_backward(grad, weight, indices, offsets, offset2bag, mode, padding_idx=-1):
    """at::_embedding_bag_per_sample_weights_backward: grad's bag row dotted with the index's weight
    row (zero at padding_idx); upstream gives it no formula (torch::autograd::NotImplemented)."""
    if mode != 0:
        raise RuntimeError("embedding_bag_backward: per_sample_weights only supported for mode='sum'")
    g = np.asarray(_backend.to_host(grad._array))
    w = np.asarray(_backend.to_host(weight._array))
    idx = _backend.to_host(indices._array).reshape(-1).astype(np.int64)
    o2b = _offset2bag(indices, offsets, offset2bag, g.shape[0])
    acc = _f32 if g.dtype == _f16 else g.dtype
    r = np.einsum("ij,ij->i", g[o2b].astype(acc), w[idx].astype(acc)) if idx.size else np.zeros(0, dtype=acc)
    r = np.where(idx == padding_idx, 0, r).astype(acc)
    out = _wrap(_backend.asarray(np.ascontiguousarray(r.astype(g.dtype)), like=grad), grad)
    return _record(_S.NotImplementedEmbeddingBagPSWBackward, (grad, weight), out,
                   name="aten::_embedding_bag_per_sample_weights_backward")
