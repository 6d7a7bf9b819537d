"""torchlite: PyTorch's autograd engine, in C++, over numpy arrays.

`import torchlite as torch` runs simple PyTorch autograd code unchanged.
"""
import builtins as _builtins
import os as _os

from . import _C as _C  # the extension, as torch._C
from .version import __version__ as __version__  # re-exported, as torch.__version__
from ._dtypes import Size, bool, device, double, dtype, float, float32, float64, int64, long  # noqa: A004 - torch's names
from ._dtypes import (finfo, float16, get_default_dtype, half, iinfo, int, int8, int16, int32,  # noqa: A004
                      set_default_dtype, short, uint8)
from ._tensor import Tensor
from . import _backend as _backend
from . import _ops as _ops  # the ops' implementations (ATen's part)
from ._generated import functions as _functions  # noqa: F401 - imported to attach the table's formulas to their nodes
from ._generated import torch_functions as _torch_functions
from ._generated.torch_functions import *  # noqa: F403 - the ops' function variants (native_functions.yaml)
from . import autograd, cuda, special, utils
from . import linalg as linalg  # torch.linalg
from ._ops import einsum, norm, tensordot  # torch.functional's (Python functions, bound to no schema)
from .autograd import enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad, set_grad_enabled
from ._ops import can_cast, is_complex, is_floating_point, is_signed, promote_types, result_type
from ._memory_format import channels_last, channels_last_3d, contiguous_format, memory_format, preserve_format
from ._tensor_str import set_printoptions
from ._factories import (arange, as_tensor, empty, empty_like, from_dlpack, from_numpy, full, full_like, ones,
                         ones_like, rand, rand_like, randn, randn_like, tensor, zeros, zeros_like)
# issue 13, creation: the other factories, their keyword types, the legacy constructors, torch.accelerator
from ._factories import eye, get_default_device, linspace, logspace, randint, randint_like, randperm, set_default_device
# (over the table's exports: normal with its factory form and out=, multinomial with its out=)
from ._factories import multinomial as multinomial, normal as normal  # type: ignore[assignment]
from ._generator import Generator
from ._layout import layout, strided
from .functional import meshgrid
from . import accelerator, functional
from . import backends as backends  # torch.backends (cudnn, cuda.matmul, mps switches)
from . import nn, optim  # torch.nn, torch.optim
from . import serialization  # torch.serialization (issue 14)
from .serialization import load, save
from . import random as random  # torch.random: the default generator's seeding and state, fork_rng
from .random import default_generator, get_rng_state, initial_seed, manual_seed, seed, set_rng_state
from ._legacy import TYPES as _LEGACY_TYPES
globals().update(_LEGACY_TYPES)  # FloatTensor, DoubleTensor, LongTensor, BoolTensor, ... (one per dtype)

# The public API (torch/__init__.py lists its own): what `from torchlite import *` gives. A list
# literal, then the generated ops', so that linters see the names it re-exports.
__all__ = [
    "Size", "Tensor", "arange", "as_tensor", "autograd", "bool", "cuda", "device", "double", "dtype", "empty",
    "empty_like", "enable_grad", "float", "float32", "float64", "from_dlpack", "from_numpy", "full", "full_like",
    "get_num_threads", "inference_mode", "int64", "is_grad_enabled", "is_inference_mode_enabled", "is_tensor", "long",
    "manual_seed", "no_grad", "ones", "ones_like", "rand", "rand_like", "randn", "randn_like", "set_grad_enabled",
    "set_num_threads", "special", "tensor", "utils", "zeros", "zeros_like",
]
__all__ += ["channels_last", "channels_last_3d", "contiguous_format", "memory_format", "preserve_format",
            "set_printoptions"]
__all__ += [_n for _n in _torch_functions.__all__ if not _n.startswith("_")]  # torch._softmax stays out
__all__ += ["can_cast", "finfo", "float16", "get_default_dtype", "half", "iinfo", "int", "int8", "int16", "int32",
            "is_complex", "is_floating_point", "is_signed", "promote_types", "result_type", "set_default_dtype",
            "short", "uint8"]
__all__ += ["Generator", "accelerator", "eye", "functional", "get_default_device", "layout", "linspace", "logspace",
            "meshgrid", "randint", "randint_like", "randperm", "set_default_device", "strided", *_LEGACY_TYPES]
__all__ += ["einsum", "linalg", "norm", "tensordot"]  # torch.linalg, torch.functional's
__all__ += ["default_generator", "get_rng_state", "initial_seed", "random", "seed", "set_rng_state"]
__all__ += ["backends"]  # torch.backends (outside programs, s21)


def is_tensor(obj: object) -> _builtins.bool:
    return isinstance(obj, Tensor)




_num_threads = _os.cpu_count() or 1


def set_num_threads(n: _builtins.int) -> None:
    """The intra-op thread count (numpy's BLAS decides its own threads; this is recorded)."""
    global _num_threads
    if not isinstance(n, _builtins.int) or n <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    _num_threads = n


def get_num_threads() -> _builtins.int:
    return _num_threads


__all__ += ["nn", "optim"]
__all__ += ["load", "save", "serialization"]
