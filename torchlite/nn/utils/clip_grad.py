"""torch/nn/utils/clip_grad.py: clip_grad_norm_, clip_grad_value_ (gradients scaled or clamped in place)."""
import functools
import types
import warnings

from ... import _C, _factories, autograd, linalg
from ..._generated import torch_functions as _torch

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_"]


def _no_grad(func):
    @functools.wraps(func)
    def _no_grad_wrapper(*args, **kwargs):
        with autograd.no_grad():
            return func(*args, **kwargs)
    return _no_grad_wrapper


def _group_by_device_and_dtype(tensors):
    """torch's _group_tensors_by_device_and_dtype, in first-seen order: {(device, dtype): [tensors]}."""
    groups: dict = {}
    for t in tensors:
        groups.setdefault((str(t.device), t.dtype), []).append(t)
    return groups


@_no_grad
def _get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The norm of the norms of each tensor (torch's order: per device and dtype group). torchlite has
    no foreach kernels: foreach=True computes what torch's _foreach_norm does, tensor by tensor."""
    tensors = [tensors] if isinstance(tensors, _C.TensorBase) else list(tensors)
    norm_type = float(norm_type)
    if len(tensors) == 0:
        return _factories.tensor(0.0)
    first_device = tensors[0].device
    norms = []
    for device_tensors in _group_by_device_and_dtype(tensors).values():
        norms.extend([linalg.vector_norm(g, norm_type) for g in device_tensors])
    total_norm = linalg.vector_norm(_torch.stack([norm.to(first_device) for norm in norms]), norm_type)
    if error_if_nonfinite and _torch.logical_or(total_norm.isnan(), total_norm.isinf()):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it "
                           "cannot be clipped. To disable this error and scale the gradients by the non-finite norm "
                           "anyway, set `error_if_nonfinite=False`")
    return total_norm


@_no_grad
def _clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    if isinstance(parameters, _C.TensorBase):
        parameters = [parameters]
    grads = [p.grad for p in parameters if p.grad is not None]
    max_norm = float(max_norm)
    if len(grads) == 0:
        return
    clip_coef = max_norm / (total_norm + 1e-6)
    # clamped to 1: gradients are only ever scaled down (and without a data-dependent branch)
    clip_coef_clamped = _torch.clamp(clip_coef, max=1.0)
    for (device, _), device_grads in _group_by_device_and_dtype(grads).items():
        clip_coef_clamped_device = clip_coef_clamped.to(device)
        for g in device_grads:
            g.mul_(clip_coef_clamped_device)


@_no_grad
def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scales the parameters' gradients so that their total norm is at most max_norm; returns
    the total norm before clipping."""
    if isinstance(parameters, _C.TensorBase):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and len(parameters) == 0:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.", stacklevel=3)
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = _get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    _clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Deprecated: clip_grad_norm_."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
                  FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@_no_grad
def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamps the parameters' gradients to [-clip_value, clip_value] in place."""
    if isinstance(parameters, _C.TensorBase):
        parameters = [parameters]
    clip_value = float(clip_value)
    grads = [p.grad for p in parameters if p.grad is not None]
    for device_grads in _group_by_device_and_dtype(grads).values():
        for grad in device_grads:
            grad.clamp_(min=-clip_value, max=clip_value)
