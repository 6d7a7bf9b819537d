"""torchlite.autograd (torch/autograd/__init__.py). backward() and grad() are
defined in _backward.py, which gradcheck and legacy_engine import without
importing this package."""
# the submodules torch.autograd has as attributes (torch.autograd.graph...), re-exported
from . import anomaly_mode as anomaly_mode, function as function, grad_mode as grad_mode, graph as graph
from . import functional as functional
from ._backward import backward, grad
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .function import Function, once_differentiable
from .gradcheck import gradcheck, gradgradcheck
from .trace import trace
from .grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad,
                        set_grad_enabled, set_multithreading_enabled)
from .variable import Variable

__all__ = ["backward", "grad", "Function", "Variable", "no_grad", "enable_grad", "set_grad_enabled",
           "inference_mode", "detect_anomaly", "set_detect_anomaly", "is_grad_enabled", "once_differentiable",
           "gradcheck", "gradgradcheck", "set_multithreading_enabled", "trace", "is_inference_mode_enabled"]


def _is_checkpoint_valid():
    """False inside a backward that computes only some gradients (grad(), or
    backward(inputs=...)), where reentrant checkpointing cannot work."""
    return Variable._execution_engine.is_checkpoint_valid()
