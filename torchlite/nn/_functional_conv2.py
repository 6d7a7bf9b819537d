"""torch.nn.functional's embedding_bag, unfold/fold (issue 15, the conv family's second part),
re-exported by torchlite.nn.functional; written after torch/nn/functional.py's checks and messages."""
from .. import _dtypes, _factories, _ops

__all__ = ["embedding_bag", "fold", "unfold"]


def _no_grad_embedding_renorm_(weight, input, max_norm, norm_type):  # noqa: A002 - torch's names
    from .functional import _no_grad_embedding_renorm_ as renorm
    renorm(weight, input, max_norm, norm_type)


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False,  # noqa: A002
                  mode="mean", sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """torch.nn.functional.embedding_bag: sums, means or maxes of bags of weight's rows (torch.embedding_bag,
    node EmbeddingBagBackward0). A 2-D input is a batch of bags of equal length (offsets None)."""
    import warnings
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
