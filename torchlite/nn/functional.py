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

# ==== issue 15: conv ====
# (the conv family's entries follow this line)

# ==== issue 15: modules ====
# (the modules family's entries follow this line)

# ==== issue 15: seq ====
# (the seq family's entries follow this line)
