"""torchlite: PyTorch's autograd engine, in C++, over numpy arrays.

`import torchlite as torch` runs simple PyTorch autograd code unchanged.
"""
import builtins as _builtins
import os as _os

from . import _C as _C  # the extension, as torch._C
from .version import __version__ as __version__  # re-exported, as torch.__version__
from ._dtypes import Size, bool, device, double, dtype, float, float32, float64, int64, long  # noqa: A004 - torch's names
from ._tensor import Tensor
from . import _backend
from . import _ops as _ops  # the ops' implementations (ATen's part)
from ._generated import functions as _functions  # noqa: F401 - imported to attach the table's formulas to their nodes
from ._generated import torch_functions as _torch_functions
from ._generated.torch_functions import *  # noqa: F403 - the ops' function variants (native_functions.yaml)
from . import autograd, cuda, special, utils
from .autograd import enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad, set_grad_enabled
from ._factories import (arange, as_tensor, empty, empty_like, from_dlpack, from_numpy, full, full_like, ones,
                         ones_like, rand, rand_like, randn, randn_like, tensor, zeros, zeros_like)

# The public API (torch/__init__.py lists its own): what `from torchlite import *` gives. A list
# literal, then the generated ops', so that linters see the names it re-exports.
__all__ = [
    "Size", "Tensor", "arange", "as_tensor", "autograd", "bool", "cuda", "device", "double", "dtype", "empty",
    "empty_like", "enable_grad", "float", "float32", "float64", "from_dlpack", "from_numpy", "full", "full_like",
    "get_num_threads", "inference_mode", "int64", "is_grad_enabled", "is_inference_mode_enabled", "is_tensor", "long",
    "manual_seed", "no_grad", "ones", "ones_like", "rand", "rand_like", "randn", "randn_like", "set_grad_enabled",
    "set_num_threads", "special", "tensor", "utils", "zeros", "zeros_like",
]
__all__ += _torch_functions.__all__


def is_tensor(obj: object) -> _builtins.bool:
    return isinstance(obj, Tensor)


def manual_seed(seed: int) -> None:
    _backend.manual_seed(seed)


_num_threads = _os.cpu_count() or 1


def set_num_threads(n: int) -> None:
    """The intra-op thread count (numpy's BLAS decides its own threads; this is recorded)."""
    global _num_threads
    if not isinstance(n, int) or n <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    _num_threads = n


def get_num_threads() -> int:
    return _num_threads

