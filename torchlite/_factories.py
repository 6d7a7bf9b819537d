"""The factories of torchlite's namespace: tensor, as_tensor, from_numpy and
from_dlpack (torch/csrc/utils/tensor_new.cpp), zeros, ones, full, the *_like
ones and the random ones (torch's generated python_torch_functions.cpp).

A module below autograd and _tensor, so that both import it: autograd makes its
root gradients with ones_like, gradcheck its Jacobians with tensor and zeros."""
import builtins as _builtins
import warnings as _warnings

import numpy as _np

from . import _C, _backend, _dtypes, _ops
from ._dtypes import Size, bool, int64  # noqa: A004


def _make(array, dtype_, device_, requires_grad):
    """A new leaf over `array` (numpy, or cupy when made on the device) on
    `device_` (every factory ends here)."""
    if dtype_ is not None:
        array = array.astype(_dtypes._to_numpy_dtype(dtype_), copy=False)
    dev = _backend.check_device(device_)
    if dev.type == "cuda":
        array = _backend.to_device_array(array, dev)
    t = _C._tensor_from_parts(array, False)
    t = _backend.place(t, dev)
    if requires_grad:
        if array.dtype.kind != "f":
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        t.requires_grad_(True)
    return t


def _infer_array(data, dtype_=None):
    """A fresh array for `data` with torch's dtype inference (Python floats are float32,
    unless `dtype_` is given: then they are read as doubles, not rounded to float32 first)."""
    if isinstance(data, _C.TensorBase):
        return data._array.copy()
    if _backend.is_cuda_array(data):
        return data.copy()
    if isinstance(data, (_np.ndarray, _np.generic)):  # numpy arrays and scalars keep their dtype
        return _np.array(data, copy=True)
    nested = _unwrap_nested(data)
    arr = _np.array(nested)
    if arr.dtype.kind not in "fiub":
        raise TypeError(f"Could not infer dtype of {type(data).__name__}")
    if dtype_ is None:
        # torch's inference (tensor_new.cpp's infer_scalar_type): Python floats are the default
        # dtype, Python ints int64; numpy scalars, arrays and tensors inside a list keep their own
        # dtype, promoted together with the rest (numpy's promotion would widen int32 + float16)
        arr = arr.astype(_infer_dtype(nested), copy=False)
    return arr


def _infer_dtype(data):
    """The numpy dtype torch infers for nested Python data (infer_scalar_type): a Python float
    is the default dtype, an int int64, a bool bool; a numpy scalar or array, or a tensor, its
    own dtype; a sequence promotes its items' (promote_types)."""
    if isinstance(data, (_np.ndarray, _np.generic)):  # before float: np.float64 is a float
        return data.dtype if data.dtype in _dtypes._by_numpy else _np.array(data).dtype
    if isinstance(data, _builtins.bool):
        return _np.dtype(_np.bool_)
    if isinstance(data, int):
        return _np.dtype(_np.int64)
    if isinstance(data, float):
        return _dtypes._default[0]._np
    if isinstance(data, (list, tuple)):
        if not data:
            return _dtypes._default[0]._np
        result = None
        for x in data:
            d = _infer_dtype(x)
            result = d if result is None else _ops._promote_types(result, d)
        return result
    return _np.array(data).dtype


def _unwrap_nested(data):
    if isinstance(data, _C.TensorBase):
        return _backend.to_host(data._array)
    if isinstance(data, _np.generic) and data.dtype.kind in "fiub":
        return data
    if isinstance(data, (list, tuple)):
        return [_unwrap_nested(x) for x in data]
    return data


def tensor(data, *, dtype=None, device=None, requires_grad=False):  # noqa: A002
    """A new leaf tensor holding a copy of `data` (on data's device when it is a tensor)."""
    if isinstance(data, _C.TensorBase):
        _warnings.warn("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
                       "sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor).",
                       UserWarning, stacklevel=2)
    if device is None and isinstance(data, _C.TensorBase):
        device = data.device
    elif device is None and _backend.is_cuda_array(data):
        device = f"cuda:{data.device.id}"
    array = _infer_array(data, dtype)
    if dtype is not None and dtype._np.kind in "iu" and dtype._np in _ops._NARROW and \
            not isinstance(data, (_C.TensorBase, _np.ndarray, _np.generic)) and not _backend.is_cuda_array(data):
        _check_data_range(array, dtype)
    return _make(array, dtype, device, requires_grad)


def _check_data_range(array, dtype):
    """tensor()'s checked conversion of Python numbers into a narrow integer dtype
    (tensor_new.cpp's store_scalar): beyond the range is an error (into uint8, a negative
    int down to -255 wraps, as two's complement)."""
    if array.size == 0 or array.dtype == _np.bool_:
        return
    lo, hi = _ops._NARROW[dtype._np]
    if dtype._np == _np.uint8 and array.dtype.kind in "iu":
        lo = -hi
    if (array < lo).any() or (array > hi).any() or (array.dtype.kind == "f" and _np.isnan(array).any()):
        raise RuntimeError(f"value cannot be converted to type {dtype._name} without overflow")


def as_tensor(data, dtype=None, device=None):
    """`data` itself when it already is a matching tensor; numpy arrays are shared when possible."""
    if isinstance(data, _C.TensorBase):
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


def from_numpy(ndarray):
    """A tensor sharing `ndarray`'s memory."""
    if not isinstance(ndarray, _np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    if ndarray.dtype not in _dtypes._by_numpy:
        raise TypeError(f"can't convert np.ndarray of type numpy.{ndarray.dtype.name}. The only supported "
                        "types are: float64, float32, float16, int64, int32, int16, int8, uint8, and bool.")
    return _C._tensor_from_parts(ndarray, False)


def from_dlpack(ext_tensor):
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


def _default(dtype_, fallback=None):
    return dtype_ if dtype_ is not None else fallback if fallback is not None else _dtypes._default[0]


def zeros(*size, dtype=None, device=None, requires_grad=False):  # noqa: A002
    return _make(_backend.new(device, "zeros", _size(size), _default(dtype)._np), None, device, requires_grad)


def ones(*size, dtype=None, device=None, requires_grad=False):  # noqa: A002
    return _make(_backend.new(device, "ones", _size(size), _default(dtype)._np), None, device, requires_grad)


def empty(*size, dtype=None, device=None, requires_grad=False):  # noqa: A002
    return _make(_backend.new(device, "empty", _size(size), _default(dtype)._np), None, device, requires_grad)


def full(size, fill_value, *, dtype=None, device=None, requires_grad=False):  # noqa: A002
    if dtype is None:
        dtype = bool if isinstance(fill_value, _builtins.bool) else \
            int64 if isinstance(fill_value, int) else _dtypes._default[0]
    if dtype._np in _ops._NARROW:
        fill_value = _ops._scalar_value(fill_value, dtype._np)  # checked and wrapped as c10 converts it
    return _make(_backend.new(device, "full", tuple(size), fill_value, dtype._np), None, device, requires_grad)


def _like(input, fill, dtype, device, requires_grad):  # noqa: A002
    """A new tensor shaped as input and laid out in memory as it is (empty_like's
    preserve_format: at::infer_dense_strides, TensorIterator's dimension order), filled with
    `fill` unless it is None."""
    array = _ops._empty_like(input._array, (dtype if dtype is not None else input.dtype)._np, input)
    if fill is not None:
        array[...] = fill
    return _make(array, None, device if device is not None else input.device, requires_grad)


def zeros_like(input, *, dtype=None, device=None, requires_grad=False):  # noqa: A002
    return _like(input, 0, dtype, device, requires_grad)


def ones_like(input, *, dtype=None, device=None, requires_grad=False):  # noqa: A002
    return _like(input, 1, dtype, device, requires_grad)


def empty_like(input, *, dtype=None, device=None, requires_grad=False):  # noqa: A002
    return _like(input, None, dtype, device, requires_grad)


def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False):  # noqa: A002
    return _like(input, fill_value, dtype, device, requires_grad)


def _random(kind, shape, dtype_, device_):
    """Floats of `kind` ("normal" or "uniform") as `dtype_` from the generator of `device_`,
    refused for a dtype that is not floating as torch's kernels refuse it (normal_kernel_cpu /
    normal_kernel_cuda; uniform's check_uniform_bounds runs before the device's kernel)."""
    dev = _backend.check_device(device_)
    if not dtype_.is_floating_point:
        kernel = "check_uniform_bounds" if kind == "uniform" else \
            "normal_kernel_cuda" if dev.type == "cuda" else "normal_kernel_cpu"
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_ops._torch_type_name(dtype_._np)}\'')
    return _backend.random(dev, kind, shape).astype(dtype_._np)


def randn(*size, dtype=None, device=None, requires_grad=False):  # noqa: A002
    return _make(_random("normal", _size(size), _default(dtype), device), None, device, requires_grad)


def rand(*size, dtype=None, device=None, requires_grad=False):  # noqa: A002
    return _make(_random("uniform", _size(size), _default(dtype), device), None, device, requires_grad)


def _random_like(kind, input, dtype, device, requires_grad):  # noqa: A002
    """randn_like / rand_like: empty_like's layout, filled from the generator of the input's device."""
    values = _random(kind, input._array.shape, dtype if dtype is not None else input.dtype, input.device)
    return _like(input, values, dtype, device, requires_grad)


def randn_like(input, *, dtype=None, device=None, requires_grad=False):  # noqa: A002
    return _random_like("normal", input, dtype, device, requires_grad)


def rand_like(input, *, dtype=None, device=None, requires_grad=False):  # noqa: A002
    return _random_like("uniform", input, dtype, device, requires_grad)


def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad=False):  # noqa: A002
    if end is None:
        start, end = 0, start
    if dtype is None:
        is_int = _builtins.all(isinstance(v, int) for v in (start, end, step))
        dtype = int64 if is_int else _dtypes._default[0]
    return _make(_backend.new(device, "arange", start, end, step).astype(dtype._np), None, device, requires_grad)
