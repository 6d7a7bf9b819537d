"""torch/nn/utils/convert_parameters.py: parameters to one flat vector and back."""
from ... import _C
from ..._generated import torch_functions as _torch
from ..modules.module import _typename

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters):
    """The parameters flattened and concatenated (differentiable)."""
    param_device = None
    vec = []
    for param in parameters:
        param_device = _check_param_device(param, param_device)
        vec.append(param.view(-1))
    return _torch.cat(vec)


def vector_to_parameters(vec, parameters):
    """Each parameter's .data becomes its slice of vec (a view of vec's memory, as torch's)."""
    if not isinstance(vec, _C.TensorBase):
        raise TypeError(f"expected torch.Tensor, but got: {_typename(vec)}")
    param_device = None
    pointer = 0
    for param in parameters:
        param_device = _check_param_device(param, param_device)
        num_param = param.numel()
        param.data = vec[pointer:pointer + num_param].view_as(param).data
        pointer += num_param


def _check_param_device(param, old_param_device):
    """All the parameters on one device: cuda's index, -1 for host memory."""
    if old_param_device is None:
        old_param_device = param.device.index if param.device.type == "cuda" else -1
    else:
        if param.device.type == "cuda":
            warn = param.device.index != old_param_device
        else:
            warn = old_param_device != -1
        if warn:
            raise TypeError("Found two parameters on different devices, this is currently not supported.")
    return old_param_device
