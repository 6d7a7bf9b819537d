"""torch.nn.functional: the functional form of every layer and loss."""

__all__: list = []

# ==== issue 15: functional ====
# (the functional family's entries follow this line)

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
