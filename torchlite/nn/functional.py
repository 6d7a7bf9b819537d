"""torch.nn.functional: the functional form of every layer and loss."""

__all__: list = []

# ==== issue 15: functional ====
# (the functional family's entries follow this line)

# ==== issue 15: conv ====
# (the conv family's entries follow this line)
from .._generated.torch_functions import conv1d, conv2d, conv_transpose1d, conv_transpose2d  # noqa: E402, F401
from .._generated import torch_functions as _conv_torch_functions  # noqa: E402

from .. import _ops as _conv_ops  # noqa: E402

__all__ += ["avg_pool1d", "avg_pool2d", "conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d", "max_pool1d",
            "max_pool1d_with_indices", "max_pool2d", "max_pool2d_with_indices", "pad"]

avg_pool1d = _conv_torch_functions.avg_pool1d


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,  # noqa: A002
               divisor_override=None):
    """torch._C._nn.avg_pool2d (AvgPool2DBackward0)."""
    return _conv_ops.avg_pool2d(input, kernel_size, [] if stride is None else stride, padding, ceil_mode,
                                count_include_pad, divisor_override)


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,  # noqa: A002
                            return_indices=False):
    """(values, indices) of torch.max_pool1d_with_indices."""
    return _conv_ops.max_pool1d_with_indices(input, kernel_size, [] if stride is None else stride, padding, dilation,
                                             ceil_mode)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,  # noqa: A002
               return_indices=False):
    """F.max_pool1d: values, or (values, indices) with return_indices (torch's boolean_dispatch)."""
    if return_indices:
        return max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return _conv_ops.max_pool1d(input, kernel_size, [] if stride is None else stride, padding, dilation, ceil_mode)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,  # noqa: A002
                            return_indices=False):
    """(values, indices) of torch._C._nn.max_pool2d_with_indices (MaxPool2DWithIndicesBackward0)."""
    return _conv_ops.max_pool2d_with_indices(input, kernel_size, [] if stride is None else stride, padding, dilation,
                                             ceil_mode)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,  # noqa: A002
               return_indices=False):
    """F.max_pool2d: values, or (values, indices) with return_indices."""
    if return_indices:
        return max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return _conv_ops.max_pool2d(input, kernel_size, [] if stride is None else stride, padding, dilation, ceil_mode)


def pad(input, pad, mode="constant", value=None):  # noqa: A002 - torch's names
    """torch.nn.functional.pad (torch._C._nn.pad, ATen/native/PadNd.cpp): constant mode is
    at::constant_pad_nd (ConstantPadNdBackward0)."""
    if mode == "constant":
        return _conv_torch_functions.constant_pad_nd(input, pad, 0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    raise NotImplementedError(f"torchlite: F.pad mode '{mode}' is not implemented yet")

# ==== issue 15: modules ====
# (the modules family's entries follow this line)

# ==== issue 15: seq ====
# (the seq family's entries follow this line)
