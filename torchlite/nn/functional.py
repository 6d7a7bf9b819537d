"""torch.nn.functional: the functional form of every layer and loss."""

__all__: list = []

# ==== issue 15: functional ====
# (the functional family's entries follow this line)

# ==== issue 15: conv ====
# (the conv family's entries follow this line)
from .._generated.torch_functions import conv1d, conv2d, conv_transpose1d, conv_transpose2d  # noqa: E402, F401
from .._generated import torch_functions as _conv_torch_functions  # noqa: E402

from .. import _ops as _conv_ops  # noqa: E402
from .._ops import Normalization as _Normalization  # noqa: E402, F401 - rms_norm's checks
import numpy as _np  # noqa: E402
import math as _math  # noqa: E402
import warnings as _warnings  # noqa: E402

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


__all__ += ["batch_norm", "group_norm", "layer_norm", "rms_norm"]


def _verify_batch_size(size):
    """torch.nn.functional._verify_batch_size."""
    prod = size[0]
    for s in size[2:]:
        prod *= s
    if prod == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,  # noqa: A002
               momentum=0.1, eps=1e-5):
    """torch.nn.functional.batch_norm: at::batch_norm (NativeBatchNormBackward0); in training the
    running statistics, when given, are updated in place."""
    if training:
        _verify_batch_size(input.size())
    return _conv_torch_functions.batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
                                            False)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):  # noqa: A002
    """torch.nn.functional.layer_norm: at::layer_norm (NativeLayerNormBackward0)."""
    return _conv_torch_functions.layer_norm(input, normalized_shape, weight, bias, eps, False)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):  # noqa: A002
    """torch.nn.functional.group_norm: at::group_norm (NativeGroupNormBackward0)."""
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    _verify_batch_size([input.size(0) * input.size(1) // num_groups, num_groups] + list(input.size()[2:]))
    return _conv_torch_functions.group_norm(input, num_groups, weight, bias, eps, False)


def rms_norm(input, normalized_shape, weight=None, eps=None):  # noqa: A002
    """torch.nn.functional.rms_norm: ATen's composite rms_norm (layer_norm.cpp), whose nodes torch
    records: input * rsqrt(input.pow(2).mean(dims, keepdim=True) + eps) [* weight]."""
    if isinstance(normalized_shape, int):  # torch.rms_norm's argument parser
        raise TypeError("rms_norm(): argument 'normalized_shape' (position 2) must be tuple of ints, not int")
    normalized_shape = [int(s) for s in normalized_shape]
    try:
        _conv_ops.Normalization._check_layer_norm_inputs(input._array, normalized_shape, weight, None)
    except RuntimeError as error:  # upstream's rms_norm writes its expected shape without the comma
        raise RuntimeError(str(error).replace("[*, ", "[*")) from None
    if eps is None:
        eps = float(_np.finfo(input._array.dtype).eps)
    dims = list(range(input.dim() - len(normalized_shape), input.dim()))
    out = input * _conv_ops._add_scalar(input.pow(2).mean(dims, keepdim=True), eps).rsqrt()
    return out * weight if weight is not None else out


__all__ += ["adaptive_avg_pool2d"]


def adaptive_avg_pool2d(input, output_size):  # noqa: A002 - torch's names
    """torch.nn.functional.adaptive_avg_pool2d: a None in output_size keeps that input size."""
    if not isinstance(output_size, int):
        output_size = [input.size(-2 + i) if v is None else v for i, v in enumerate(output_size)] \
            if len(output_size) == 2 else list(output_size)
    return _conv_ops.adaptive_avg_pool2d(input, output_size)


__all__ += ["interpolate", "upsample"]


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,  # noqa: A002
                recompute_scale_factor=None, antialias=False):
    """torch.nn.functional.interpolate, its nearest, linear and bilinear modes (upsample_nearest1d/2d,
    upsample_linear1d, upsample_bilinear2d), with its argument checks."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: linear | bilinear | "
                             "bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError("Input and output must have the same number of spatial dimensions, but got input with "
                                 f"spatial dimensions of {list(input.shape[2:])} and output size of {size}. Please "
                                 "provide input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, "
                                 "...,oK) format.")
            output_size = list(size)
        else:
            output_size = [size] * dim
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError("Input and scale_factor must have the same number of spatial dimensions, but got "
                                 f"input with spatial dimensions of {list(input.shape[2:])} and scale_factor of shape "
                                 f"{scale_factor}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                                 "scale_factor in (s1, s2, ...,sK) format.")
            scale_factors = list(scale_factor)
        else:
            scale_factors = [scale_factor] * dim
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if recompute_scale_factor:
        output_size = [int(_math.floor(float(input.size(i + 2)) * float(scale_factors[i]))) for i in range(dim)]
        scale_factors = None
    if output_size is None:
        output_size = [int(_math.floor(input.size(i + 2) * float(scale_factors[i]))) for i in range(dim)]
    scales = [None] * dim if scale_factors is None else [float(s) for s in scale_factors]
    if antialias:
        raise NotImplementedError("torchlite: interpolate(antialias=True) is not implemented yet")
    if input.dim() == 3 and mode == "nearest":
        return _conv_ops.upsample_nearest1d(input, output_size, scales[0])
    if input.dim() == 4 and mode == "nearest":
        return _conv_ops.upsample_nearest2d(input, output_size, *scales)
    if input.dim() == 3 and mode == "linear":
        return _conv_ops.upsample_linear1d(input, output_size, align_corners, scales[0])
    if input.dim() == 4 and mode == "bilinear":
        return _conv_ops.upsample_bilinear2d(input, output_size, align_corners, *scales)
    if input.dim() == 3 and mode == "bilinear":
        raise NotImplementedError("Got 3D input, but bilinear mode needs 4D input")
    if input.dim() == 4 and mode == "linear":
        raise NotImplementedError("Got 4D input, but linear mode needs 3D input")
    if mode not in ("nearest", "linear", "bilinear", "bicubic", "trilinear", "area", "nearest-exact"):
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for "
                                  f"the modes: nearest | linear | bilinear | bicubic | trilinear | area | "
                                  f"nearest-exact (got {mode})")
    raise NotImplementedError(f"torchlite: interpolate(mode='{mode}') of a {input.dim()}D input is not implemented yet")


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):  # noqa: A002
    """torch.nn.functional.upsample (deprecated): interpolate, with torch's warning."""
    _warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def pad(input, pad, mode="constant", value=None):  # noqa: A002 - torch's names
    """torch.nn.functional.pad (torch._C._nn.pad, ATen/native/PadNd.cpp): constant mode is
    at::constant_pad_nd (ConstantPadNdBackward0)."""
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    pad = [int(p) for p in pad]
    dim = input.dim()
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > dim:
        raise RuntimeError("Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {dim}")
    if mode == "constant":
        return _conv_torch_functions.constant_pad_nd(input, pad, 0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
    if len(pad) == 2 and dim in (2, 3):
        kernel = {"reflect": _conv_ops.reflection_pad1d, "replicate": _conv_ops.replication_pad1d}.get(mode)
    elif len(pad) == 4 and dim in (3, 4):
        kernel = {"reflect": _conv_ops.reflection_pad2d, "replicate": _conv_ops.replication_pad2d}.get(mode)
    elif len(pad) == 6 and dim in (4, 5):
        kernel = None
    else:
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {dim}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    if kernel is None:  # circular (torch: copies into slices, CopySlices) and the 3-d modes
        raise NotImplementedError(f"torchlite: F.pad with mode='{mode}' and padding of size {len(pad)} is not "
                                  "implemented yet")
    return kernel(input, pad)

# ==== issue 15: modules ====
# (the modules family's entries follow this line)

# ==== issue 15: seq ====
# (the seq family's entries follow this line)
