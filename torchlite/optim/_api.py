"""The torch-level names the optimizers call (torch.zeros_like, torch.maximum, torch.enable_grad,
...), imported from the modules that define them: torchlite's top level imports torchlite.optim,
so the optimizers cannot import torchlite itself (tests/python/test_imports.py: no import cycles)."""
from torchlite._C import is_grad_enabled
from torchlite._dtypes import float32, float64, get_default_dtype
from torchlite._factories import full, full_like, tensor, zeros, zeros_like
from torchlite._generated.torch_functions import amax, cat, maximum, mul, square, where
from torchlite._memory_format import contiguous_format, preserve_format
from torchlite._ops import is_floating_point
from torchlite._tensor import Tensor
from torchlite.autograd.grad_mode import enable_grad, no_grad, set_grad_enabled

__all__ = ["amax", "cat", "contiguous_format", "enable_grad", "float32", "float64", "full", "full_like",
           "get_default_dtype", "is_floating_point", "is_grad_enabled", "is_tensor", "maximum", "mul", "no_grad",
           "preserve_format", "set_grad_enabled", "square", "tensor", "where", "zeros", "zeros_like"]


def is_tensor(obj) -> bool:
    """torch.is_tensor."""
    return isinstance(obj, Tensor)
