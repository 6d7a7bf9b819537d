"""torch.nn.functional: the functional form of every layer and loss."""

__all__: list = []

# ==== issue 15: functional ====
# (the functional family's entries follow this line)
# torch/nn/functional.py's functions, each calling the op torch's calls (torch._C._nn's are
# torchlite/_generated/nn_functions.py), so values, node names and errors are torch's.
import warnings  # noqa: E402

from .._generated import nn_functions as _nn  # noqa: E402
from .._generated import torch_functions as _torch  # noqa: E402


def _get_softmax_dim(name, ndim, stacklevel):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X "
                  "as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):  # noqa: A002 - torch's names
    """softmax(input, dim=None, _stacklevel=3, dtype=None) -> Tensor (torch.nn.functional.softmax)."""
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
    return input.softmax(dim) if dtype is None else input.softmax(dim, dtype=dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):  # noqa: A002 - torch's names
    """softmin(input, dim=None, _stacklevel=3, dtype=None) -> Tensor: softmax of -input."""
    if dim is None:
        dim = _get_softmax_dim("softmin", input.dim(), _stacklevel)
    return (-input).softmax(dim) if dtype is None else (-input).softmax(dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):  # noqa: A002 - torch's names
    """log_softmax(input, dim=None, _stacklevel=3, dtype=None) -> Tensor (torch.nn.functional.log_softmax)."""
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    return input.log_softmax(dim) if dtype is None else input.log_softmax(dim, dtype=dtype)


linear = _nn.linear
bilinear = _torch.bilinear

__all__ += ["softmax", "softmin", "log_softmax", "linear", "bilinear"]


# Activations (torch/nn/functional.py): torch._C._nn's ops, torch's (selu, celu, threshold,
# hardshrink), and the compositions torch writes in Python (softsign, tanhshrink).
def threshold(input, threshold, value, inplace=False):  # noqa: A002 - torch's names
    """threshold(input, threshold, value, inplace=False) -> Tensor: value where input <= threshold."""
    return _torch.threshold_(input, threshold, value) if inplace else _torch.threshold(input, threshold, value)


threshold_ = _torch.threshold_


def relu(input, inplace=False):  # noqa: A002 - torch's names
    """relu(input, inplace=False) -> Tensor."""
    return _torch.relu_(input) if inplace else _torch.relu(input)


relu_ = _torch.relu_


def glu(input, dim=-1):  # noqa: A002 - torch's names
    """glu(input, dim=-1) -> Tensor: the first half of input times the sigmoid of its second half."""
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    return _nn.glu(input, dim)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):  # noqa: A002 - torch's names
    """hardtanh(input, min_val=-1., max_val=1., inplace=False) -> Tensor."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _nn.hardtanh_(input, min_val, max_val) if inplace else _nn.hardtanh(input, min_val, max_val)


hardtanh_ = _nn.hardtanh_


def relu6(input, inplace=False):  # noqa: A002 - torch's names
    """relu6(input, inplace=False) -> Tensor: hardtanh(input, 0, 6)."""
    return _nn.relu6_(input) if inplace else _nn.relu6(input)


def elu(input, alpha=1.0, inplace=False):  # noqa: A002 - torch's names
    """elu(input, alpha=1.0, inplace=False) -> Tensor."""
    return _nn.elu_(input, alpha) if inplace else _nn.elu(input, alpha)


elu_ = _nn.elu_


def selu(input, inplace=False):  # noqa: A002 - torch's names
    """selu(input, inplace=False) -> Tensor."""
    return _torch.selu_(input) if inplace else _torch.selu(input)


selu_ = _torch.selu_


def celu(input, alpha=1.0, inplace=False):  # noqa: A002 - torch's names
    """celu(input, alpha=1., inplace=False) -> Tensor."""
    return _torch.celu_(input, alpha) if inplace else _torch.celu(input, alpha)


celu_ = _torch.celu_


def leaky_relu(input, negative_slope=0.01, inplace=False):  # noqa: A002 - torch's names
    """leaky_relu(input, negative_slope=0.01, inplace=False) -> Tensor."""
    return _nn.leaky_relu_(input, negative_slope) if inplace else _nn.leaky_relu(input, negative_slope)


leaky_relu_ = _nn.leaky_relu_
gelu = _nn.gelu
logsigmoid = _nn.log_sigmoid
hardshrink = _torch.hardshrink
softplus = _nn.softplus
softshrink = _nn.softshrink


def tanhshrink(input):  # noqa: A002 - torch's names
    """tanhshrink(input) -> Tensor: input - input.tanh()."""
    return input - input.tanh()


def softsign(input):  # noqa: A002 - torch's names
    """softsign(input) -> Tensor: input / (input.abs() + 1)."""
    return input / (input.abs() + 1)


def tanh(input):  # noqa: A002 - torch's names
    """tanh(input) -> Tensor."""
    return input.tanh()


def sigmoid(input):  # noqa: A002 - torch's names
    """sigmoid(input) -> Tensor."""
    return input.sigmoid()


def hardsigmoid(input, inplace=False):  # noqa: A002 - torch's names
    """hardsigmoid(input, inplace=False) -> Tensor."""
    return _nn.hardsigmoid_(input) if inplace else _nn.hardsigmoid(input)


def silu(input, inplace=False):  # noqa: A002 - torch's names
    """silu(input, inplace=False) -> Tensor: input * sigmoid(input)."""
    return _nn.silu_(input) if inplace else _nn.silu(input)


def mish(input, inplace=False):  # noqa: A002 - torch's names
    """mish(input, inplace=False) -> Tensor: input * tanh(softplus(input))."""
    return _nn.mish_(input) if inplace else _nn.mish(input)


def hardswish(input, inplace=False):  # noqa: A002 - torch's names
    """hardswish(input, inplace=False) -> Tensor."""
    return _nn.hardswish_(input) if inplace else _nn.hardswish(input)


__all__ += ["threshold", "threshold_", "relu", "relu_", "glu", "hardtanh", "hardtanh_", "relu6", "elu", "elu_",
            "selu", "selu_", "celu", "celu_", "leaky_relu", "leaky_relu_", "gelu", "logsigmoid", "hardshrink",
            "softplus", "softshrink", "tanhshrink", "softsign", "tanh", "sigmoid", "hardsigmoid", "silu", "mish",
            "hardswish"]

# ==== issue 15: conv ====
# (the conv family's entries follow this line)
from .._generated.torch_functions import conv1d, conv2d, conv_transpose1d, conv_transpose2d  # noqa: E402, F401
from .._generated import torch_functions as _conv_torch_functions  # noqa: E402

__all__ += ["conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d", "pad"]


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
