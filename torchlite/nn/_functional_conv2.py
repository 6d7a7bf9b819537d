"""torch.nn.functional's embedding_bag, unfold/fold (issue 15, the conv family's second part),
re-exported by torchlite.nn.functional; written after torch/nn/functional.py's checks and messages."""
import warnings
from typing import Any

from .. import _dtypes, _factories, _ops
from .._ops.TensorShape import _slice

__all__ = ["adaptive_avg_pool1d", "embedding_bag", "fold", "unfold"]


# torchlite.nn.functional's _no_grad_embedding_renorm_ (F.embedding's max_norm), set by functional.py
# when it imports this module (an import back would be a cycle)
_renorm: Any = None


def _no_grad_embedding_renorm_(weight, input, max_norm, norm_type):  # noqa: A002 - torch's names
    _renorm(weight, input, max_norm, norm_type)


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False,  # noqa: A002
                  mode="mean", sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """torch.nn.functional.embedding_bag: sums, means or maxes of bags of weight's rows (torch.embedding_bag,
    node EmbeddingBagBackward0). A 2-D input is a batch of bags of equal length (offsets None)."""
    if weight.dtype == _dtypes.long and input.is_floating_point():
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage `embedding_bag(weight, "
                      "input, ...)` is deprecated, and should now be `embedding_bag(input, weight, ...)`.",
                      stacklevel=2)
        weight, input = input, weight  # noqa: A001
    if per_sample_weights is not None and input.size() != per_sample_weights.size():
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it "
                         f"must have the same shape as the input ({input.shape})")
    if not weight.dim() == 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            type_str = "<class 'torch.Tensor'>" if type(offsets).__name__ == "Tensor" else str(type(offsets))
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type {type_str}")
        offsets = _factories.arange(0, input.numel(), input.size(1), dtype=input.dtype, device=input.device)
        include_last_offset = False
        input = input.reshape(-1)  # noqa: A001
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if mode == "sum":
        mode_enum = 0
    elif mode == "mean":
        mode_enum = 1
    elif mode == "max":
        mode_enum = 2
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    else:
        raise ValueError("mode has to be one of sum, mean or max")
    if max_norm is not None:
        _no_grad_embedding_renorm_(weight, input, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
                                  "GitHub.")
    ret, _, _, _ = _ops.embedding_bag(weight, input, offsets, scale_grad_by_freq, mode_enum, sparse,
                                      per_sample_weights, include_last_offset, padding_idx)
    return ret



def _pair(x):
    """torch.nn.modules.utils._pair: an int (or any non-iterable) repeated twice, an iterable as a tuple."""
    try:
        return tuple(iter(x))
    except TypeError:
        return (x, x)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):  # noqa: A002 - torch's names
    """torch.nn.functional.unfold: the sliding local blocks of a batched (or unbatched 3-D) image,
    torch._C._nn.im2col (node Im2ColBackward0)."""
    return _ops.im2col(input, _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride))


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):  # noqa: A002 - torch's names
    """torch.nn.functional.fold: sliding local blocks summed back into an image, torch._C._nn.col2im
    (node Col2ImBackward0)."""
    return _ops.col2im(input, _pair(output_size), _pair(kernel_size), _pair(dilation), _pair(padding),
                       _pair(stride))


def _pad_circular(input, pad):  # noqa: A002 - torch's names
    """at::_pad_circular_symint (ATen/native/PadNd.cpp), composed as upstream so the graph is torch's:
    the input copied into the middle of an empty result, then each padded dim's left and right bands
    copied from the result's own far side (SliceBackward0 views, CopySlices in-place copies)."""
    in_shape = list(input.shape)
    ndim = len(in_shape)
    ndim_padded = len(pad) // 2
    ndim_nonpadded = ndim - ndim_padded
    if ndim_nonpadded not in (1, 2):
        raise RuntimeError("Invalid padding size, expected 1 or 2 non-padded dimensions, which would be equivalent to "
                           f"padding of length {(ndim - 1) * 2} or {(ndim - 2) * 2} respectively but got {len(pad)}")
    out_shape = in_shape[:ndim_nonpadded]
    for i in range(ndim_padded):
        pad_l, pad_r = pad[2 * (ndim_padded - i - 1)], pad[2 * (ndim_padded - i - 1) + 1]
        size = in_shape[ndim_nonpadded + i]
        out_shape.append(size + pad_l + pad_r)
        if not (pad_l <= size and pad_r <= size):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if out_shape[-1] < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
    out = input.new_empty(out_shape)
    out_slice, in_slice = out, input
    for i in range(ndim_padded):
        dim = ndim_padded - i + ndim_nonpadded - 1
        pad_l, pad_r = pad[2 * i], pad[2 * i + 1]
        out_slice = _slice(out_slice, dim, slice(max(pad_l, 0), out_shape[dim] - max(pad_r, 0)))
        in_slice = _slice(in_slice, dim, slice(max(-pad_l, 0), in_shape[dim] - max(-pad_r, 0)))
    out_slice.copy_(in_slice)
    for i in range(ndim_padded):  # the corners are written more than once where several dims are padded
        dim = ndim_padded - i + ndim_nonpadded - 1
        pad_l, pad_r = pad[2 * i], pad[2 * i + 1]
        if pad_l > 0:
            _slice(out, dim, slice(0, pad_l)).copy_(
                _slice(out, dim, slice(out_shape[dim] - pad_l - max(pad_r, 0), out_shape[dim] - max(pad_r, 0))))
        if pad_r > 0:
            _slice(out, dim, slice(out_shape[dim] - pad_r, out_shape[dim])).copy_(
                _slice(out, dim, slice(max(pad_l, 0), max(pad_l, 0) + pad_r)))
    return out


def adaptive_avg_pool1d(input, output_size):  # noqa: A002 - torch's names
    """torch.adaptive_avg_pool1d (ATen/native/AdaptiveAveragePooling.cpp): adaptive_avg_pool2d of
    input.unsqueeze(-2) to (1, output_size), squeezed again (the graph torch's composite records)."""
    if not 2 <= input.dim() <= 3:
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional tensor for argument #1 "
                           "'self' (while checking arguments for adaptive_avg_pool1d)")
    if isinstance(output_size, (list, tuple)):
        if len(output_size) != 1:
            raise RuntimeError("adaptive_avg_pool1d() argument 'output_size' should contain one int (got "
                               f"{len(output_size)})")
        output_size = output_size[0]
    return _ops.adaptive_avg_pool2d(input.unsqueeze(-2), [1, int(output_size)]).squeeze(-2)
