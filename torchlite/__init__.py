"""torchlite: PyTorch's autograd engine, in C++, over numpy arrays.

`import torchlite as torch` runs simple PyTorch autograd code unchanged.
"""
import builtins as _builtins
import collections.abc as _abc
import os as _os
import typing as _typing

import numpy as _np

from . import _C
from .version import __version__ as __version__  # re-exported, as torch.__version__
from ._dtypes import Size, bool, device, double, dtype, float, float32, float64, int64, long  # noqa: A004
from ._tensor import Tensor
from . import _backend, _ops
from ._ops import (abs, add, cat, clone, cos, div, exp, expand, log, matmul, max, mean, min, mul, neg, positive,  # noqa: A004
                   permute, pow, reciprocal, relu, reshape, sigmoid, sin, sqrt, squeeze, stack, sub, sum,  # noqa: A004
                   t, tanh, transpose, unsqueeze, where)
from ._ops import as_strided, chunk, diagonal, narrow, split, unbind
from . import autograd, cuda, utils
from .autograd import enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad, set_grad_enabled

# The public API (torch/__init__.py lists its own): what `from torchlite import *` gives.
__all__ = [
    "Size", "Tensor", "abs", "add", "arange", "as_strided", "as_tensor", "autograd", "bool", "cat",
    "chunk", "clone", "cos", "cuda", "device", "diagonal", "div", "double", "dtype", "empty", "empty_like",
    "enable_grad", "exp", "expand", "float", "float32", "float64", "from_dlpack", "from_numpy", "full",
    "full_like", "get_num_threads", "inference_mode", "int64", "is_grad_enabled", "is_inference_mode_enabled",
    "is_tensor", "log", "long", "manual_seed", "matmul", "max", "mean", "min", "mul", "narrow", "neg", "no_grad",
    "ones", "ones_like", "permute", "positive", "pow", "rand", "rand_like", "randn", "randn_like", "reciprocal",
    "relu", "reshape", "set_grad_enabled", "set_num_threads", "sigmoid", "sin", "split", "sqrt", "squeeze",
    "stack", "sub", "sum", "t", "tanh", "tensor", "transpose", "unbind", "unsqueeze", "utils", "where", "zeros",
    "zeros_like",
]


def is_tensor(obj: object) -> _builtins.bool:
    return isinstance(obj, Tensor)


def _make(array, dtype_, device_, requires_grad):
    """A new leaf over `array` (numpy, or cupy when made on the device) on
    `device_` (every factory ends here)."""
    if dtype_ is not None:
        array = array.astype(_dtypes._to_numpy_dtype(dtype_), copy=False)
    dev = _backend.check_device(device_)
    if dev.type == "cuda":
        array = _backend.to_device_array(array, dev)
    out = _backend.place(_C._tensor_from_parts(array, False), dev)
    if requires_grad:
        if array.dtype.kind != "f":
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        out.requires_grad_(True)
    return out


def _infer_array(data, dtype_=None):
    """A fresh array for `data` with torch's dtype inference (Python floats are float32,
    unless `dtype_` is given: then they are read as doubles, not rounded to float32 first)."""
    if isinstance(data, Tensor):
        return data._array.copy()
    if _backend.is_cuda_array(data):
        return data.copy()
    if isinstance(data, (_np.ndarray, _np.generic)):  # numpy arrays and scalars keep their dtype
        return _np.array(data, copy=True)
    arr = _np.array(_unwrap_nested(data))
    if arr.dtype == _np.float64 and dtype_ is None:
        arr = arr.astype(_np.float32)
    elif arr.dtype.kind in "iu":
        arr = arr.astype(_np.int64)
    elif arr.dtype.kind not in "fb":
        raise TypeError(f"Could not infer dtype of {type(data).__name__}")
    return arr


def _unwrap_nested(data):
    if isinstance(data, Tensor):
        return _backend.to_host(data._array)
    if isinstance(data, (list, tuple)):
        return [_unwrap_nested(x) for x in data]
    return data


def tensor(data: _typing.Any, *, dtype: dtype | None = None, device: str | device | None = None,  # noqa: F811
           requires_grad: _builtins.bool = False) -> Tensor:
    """A new leaf tensor holding a copy of `data` (on data's device when it is a tensor)."""
    if device is None and isinstance(data, Tensor):
        device = data.device
    elif device is None and _backend.is_cuda_array(data):
        device = f"cuda:{data.device.id}"
    return _make(_infer_array(data, dtype), dtype, device, requires_grad)


def as_tensor(data: _typing.Any, dtype: dtype | None = None, device: str | device | None = None) -> Tensor:  # noqa: F811
    """`data` itself when it already is a matching tensor; numpy arrays are shared when possible."""
    if isinstance(data, Tensor):
        if device is not None and _backend.check_device(device) != data.device:
            data = data.to(device)
        return data if dtype is None or data.dtype is dtype else data.to(dtype)
    if isinstance(data, _np.ndarray) and (device is None or _backend.check_device(device).type == "cpu"):
        t = from_numpy(data)
        return t if dtype is None else t.to(dtype)
    if _backend.is_cuda_array(data) and (device is None or _backend.check_device(device) ==
                                         _dtypes.device("cuda", data.device.id)):
        t = _C._tensor_from_parts(data, False)  # shares the cupy array's memory, as torch does
        return t if dtype is None else t.to(dtype)
    return tensor(data, dtype=dtype, device=device)


def from_numpy(ndarray: _np.ndarray) -> Tensor:
    """A tensor sharing `ndarray`'s memory."""
    if not isinstance(ndarray, _np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    if ndarray.dtype not in _dtypes._by_numpy:
        raise TypeError(f"can't convert np.ndarray of type numpy.{ndarray.dtype.name}. The only supported "
                        "types are: float64, float32, int64, and bool.")
    return _C._tensor_from_parts(ndarray, False)


def from_dlpack(ext_tensor: _typing.Any) -> Tensor:
    """A tensor sharing the memory of `ext_tensor`, any object with __dlpack__
    (a cupy or numpy array, a torch tensor) or a DLPack capsule: a cuda tensor
    for device memory (through cupy), a cpu one for host memory."""
    if hasattr(ext_tensor, "__dlpack_device__"):
        device_type, _ = ext_tensor.__dlpack_device__()
        if device_type == 1:  # kDLCPU
            return from_numpy(_np.from_dlpack(ext_tensor))
        if device_type != 2:  # kDLCUDA
            raise RuntimeError(f"from_dlpack: unsupported DLPack device type {device_type}")
    _backend.check_device("cuda")  # the errors of a machine without CUDA
    return _C._tensor_from_parts(_backend.cupy.from_dlpack(ext_tensor), False)


def _size(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list, Size)):
        return tuple(size[0])
    return tuple(size)


def _default(dtype_, fallback=float32):
    return dtype_ if dtype_ is not None else fallback


def zeros(*size: int | _abc.Sequence[int], dtype: dtype | None = None, device: str | device | None = None,  # noqa: F811
          requires_grad: _builtins.bool = False) -> Tensor:
    return _make(_backend.new(device, "zeros", _size(size), _default(dtype)._np), None, device, requires_grad)


def ones(*size: int | _abc.Sequence[int], dtype: dtype | None = None, device: str | device | None = None,  # noqa: F811
         requires_grad: _builtins.bool = False) -> Tensor:
    return _make(_backend.new(device, "ones", _size(size), _default(dtype)._np), None, device, requires_grad)


def empty(*size: int | _abc.Sequence[int], dtype: dtype | None = None, device: str | device | None = None,  # noqa: F811
          requires_grad: _builtins.bool = False) -> Tensor:
    return _make(_backend.new(device, "empty", _size(size), _default(dtype)._np), None, device, requires_grad)


def full(size: _abc.Sequence[int], fill_value: _builtins.float, *,
         dtype: dtype | None = None, device: str | device | None = None,  # noqa: F811
         requires_grad: _builtins.bool = False) -> Tensor:
    if dtype is None:
        dtype = bool if isinstance(fill_value, _builtins.bool) else \
            int64 if isinstance(fill_value, int) else float32
    return _make(_backend.new(device, "full", tuple(size), fill_value, dtype._np), None, device, requires_grad)


def _like(input, fill, dtype, device, requires_grad):  # noqa: A002, F811
    """A new tensor shaped as input and laid out in memory as it is (empty_like's
    preserve_format: at::infer_dense_strides, TensorIterator's dimension order), filled with
    `fill` unless it is None."""
    array = _ops._empty_like(input._array, (dtype if dtype is not None else input.dtype)._np, input)
    if fill is not None:
        array[...] = fill
    return _make(array, None, device if device is not None else input.device, requires_grad)


def zeros_like(input: Tensor, *, dtype: dtype | None = None, device: str | device | None = None,  # noqa: A002, F811
               requires_grad: _builtins.bool = False) -> Tensor:
    return _like(input, 0, dtype, device, requires_grad)


def ones_like(input: Tensor, *, dtype: dtype | None = None, device: str | device | None = None,  # noqa: A002, F811
              requires_grad: _builtins.bool = False) -> Tensor:
    return _like(input, 1, dtype, device, requires_grad)


def empty_like(input: Tensor, *, dtype: dtype | None = None, device: str | device | None = None,  # noqa: A002, F811
               requires_grad: _builtins.bool = False) -> Tensor:
    return _like(input, None, dtype, device, requires_grad)


def full_like(input: Tensor, fill_value: _builtins.float, *,  # noqa: A002
              dtype: dtype | None = None, device: str | device | None = None,  # noqa: F811
              requires_grad: _builtins.bool = False) -> Tensor:
    return _like(input, fill_value, dtype, device, requires_grad)


def randn(*size: int | _abc.Sequence[int], dtype: dtype | None = None, device: str | device | None = None,  # noqa: F811
          requires_grad: _builtins.bool = False) -> Tensor:
    arr = _backend.random(device, "normal", _size(size))
    return _make(arr.astype(_default(dtype)._np), None, device, requires_grad)


def rand(*size: int | _abc.Sequence[int], dtype: dtype | None = None, device: str | device | None = None,  # noqa: F811
         requires_grad: _builtins.bool = False) -> Tensor:
    arr = _backend.random(device, "uniform", _size(size))
    return _make(arr.astype(_default(dtype)._np), None, device, requires_grad)


def randn_like(input: Tensor, *, dtype: dtype | None = None, device: str | device | None = None,  # noqa: A002, F811
               requires_grad: _builtins.bool = False) -> Tensor:
    return _like(input, _backend.random(input.device, "normal", tuple(input.shape)), dtype, device, requires_grad)


def rand_like(input: Tensor, *, dtype: dtype | None = None, device: str | device | None = None,  # noqa: A002, F811
              requires_grad: _builtins.bool = False) -> Tensor:
    return _like(input, _backend.random(input.device, "uniform", tuple(input.shape)), dtype, device, requires_grad)


def arange(start: _builtins.float, end: _builtins.float | None = None, step: _builtins.float = 1, *,
           dtype: dtype | None = None, device: str | device | None = None,  # noqa: F811
           requires_grad: _builtins.bool = False) -> Tensor:
    if end is None:
        start, end = 0, start
    if dtype is None:
        is_int = _builtins.all(isinstance(v, int) for v in (start, end, step))
        dtype = int64 if is_int else float32
    return _make(_backend.new(device, "arange", start, end, step).astype(dtype._np), None, device, requires_grad)


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


from . import _dtypes  # noqa: E402
