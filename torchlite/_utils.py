"""The rebuild functions a checkpoint's pickle names (torch/_utils.py's _rebuild_tensor_v2,
_rebuild_parameter, ...): torch.load's unpickler resolves torch's names to these, so a file torch
wrote rebuilds torchlite tensors, over the storages torchlite.serialization read from the archive."""
import builtins
import importlib
import warnings

import numpy as np

from . import _C, _backend
from ._dtypes import _ALL, device as _device


def _element_size(dtype):
    """Bytes per element of a torchlite dtype (torch._utils._element_size)."""
    return dtype.itemsize


class _StorageType:
    """What the pickle's `torch.FloatStorage` (one name per dtype) stands for while loading:
    only its dtype (torch.serialization.StorageType)."""

    def __init__(self, name):
        self._dtype = _STORAGE_DTYPES[name]

    @property
    def dtype(self):
        return self._dtype

    def __str__(self):
        return f"StorageType(dtype={self.dtype})"


# torch's legacy storage class per dtype, the name torch's pickles carry (torch/storage.py,
# _dtype_to_storage_type_map)
_STORAGE_NAMES = {"float32": "FloatStorage", "float64": "DoubleStorage", "float16": "HalfStorage",
                  "int64": "LongStorage", "int32": "IntStorage", "int16": "ShortStorage", "int8": "CharStorage",
                  "uint8": "ByteStorage", "bool": "BoolStorage"}
_STORAGE_DTYPES = {name: next(d for d in _ALL if d._name == key) for key, name in _STORAGE_NAMES.items()}


class _Storage:
    """A storage read from a checkpoint (torch's TypedStorage over an UntypedStorage): a 1-d numpy
    array of `dtype` over one C++ storage on `device`. Every tensor rebuilt from it shares that
    storage (Note [Serialized storage sharing] in serialization.py)."""

    def __init__(self, array, dtype, device):
        self._array = array
        self.dtype = dtype
        self.device = device

    def nbytes(self):
        return self._array.nbytes

    def size(self):
        return self._array.shape[0]

    __len__ = size

    def data_ptr(self):
        return self._array.__array_interface__["data"][0] if isinstance(self._array, np.ndarray) else 0

    def to(self, device):
        """This storage's values in a new storage on `device` (itself when already there)."""
        dev = _device(device) if not isinstance(device, _device) else device
        if dev.type == "cpu" and dev.index is not None:
            dev = _device("cpu")
        if dev == self.device:
            return self
        return _new_storage(self._host_bytes(), self.dtype, dev)

    def cpu(self):
        return self.to("cpu")

    def cuda(self, device=None):
        return self.to("cuda" if device is None else f"cuda:{builtins.int(device)}")

    def _fill(self, data):
        """Writes `data` (bytes of this storage's size) into it, in place."""
        src = np.frombuffer(data, dtype=self.dtype._np, count=self.size())
        if isinstance(self._array, np.ndarray):
            self._array[...] = src
        else:
            self._array.set(src)

    def _host_bytes(self):
        arr = self._array
        return arr.get() if not isinstance(arr, np.ndarray) else arr

    def __repr__(self):
        return f"{_STORAGE_NAMES[self.dtype._name]}(size={self.size()}, device={self.device})"


def _rebuild_tensor(storage, storage_offset, size, stride):
    """The tensor of `size` and `stride` at `storage_offset` in `storage`, sharing its memory
    (torch._utils._rebuild_tensor, which sets a new tensor's storage: TensorImpl::set_storage...)."""
    if not isinstance(storage, _Storage):
        raise TypeError(f"_rebuild_tensor: expected a storage, got {type(storage).__name__}")
    size, stride = tuple(size), tuple(stride)
    if not builtins.all(isinstance(v, builtins.int) for v in (storage_offset, *size, *stride)) \
            or len(size) != len(stride):
        raise RuntimeError(f"setStorage: invalid sizes {list(size)}, strides {list(stride)} or storage offset "
                           f"{storage_offset}")
    itemsize = storage.dtype.itemsize
    numel_needed = 0 if 0 in size else 1 + builtins.sum((n - 1) * s for n, s in zip(size, stride, strict=True))
    if storage_offset < 0 or builtins.any(n < 0 for n in size) or builtins.any(s < 0 for s in stride):
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)} and storage offset "
                           f"{storage_offset} must be non-negative")
    if numel_needed and storage_offset + numel_needed > storage.size():
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {storage_offset}, and itemsize "
            f"{itemsize} requiring a storage size of {(storage_offset + numel_needed) * itemsize} are out of bounds "
            f"for storage of size {storage.nbytes()}")
    arr = storage._array
    if storage.device.type == "cuda":
        view = arr[storage_offset:storage_offset + builtins.max(numel_needed, 0)]
        view = _backend.as_strided(view, size, tuple(s * itemsize for s in stride))
        return _C._wrap(view, _like(storage.device))
    # an ndarray over the storage array's buffer: its base is that array, whose base holds the C++
    # storage, so the tensor made over it shares the storage (python_variable.cpp, storage_of)
    view = np.ndarray(size, dtype=arr.dtype, buffer=arr, offset=storage_offset * itemsize,
                      strides=tuple(s * itemsize for s in stride))
    return _C._wrap(view, _like(storage.device))


_likes: dict = {}


def _like(device):
    """A tensor on `device` for _C._wrap and _C._empty_array to place theirs by (None for the cpu)."""
    if device.type == "cpu":
        return None
    key = str(device)
    if key not in _likes:
        _likes[key] = _backend.place(_C._wrap(np.zeros(0, np.float32)), device)
    return _likes[key]


def _new_storage(data, dt, dev):
    """A storage of dtype `dt` on `dev` holding `data` (bytes or a numpy array of its bytes)."""
    if isinstance(data, np.ndarray):
        data = np.ascontiguousarray(data).view(np.uint8)
    numel = len(data) // dt.itemsize
    src = np.frombuffer(data, dtype=dt._np, count=numel)
    if dev.type == "cuda":
        _backend.check_device(dev)
        return _Storage(_backend.to_device_array(src.copy(), dev), dt, dev)
    arr = _C._empty_array((numel,), dt._np, _like(dev))
    arr[...] = src
    return _Storage(arr, dt, dev)


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata=None):
    """torch._utils._rebuild_tensor_v2: the tensor, with its requires_grad; backward hooks are not
    restored (torch warns where a file carries some)."""
    tensor = _rebuild_tensor(storage, storage_offset, size, stride)
    if requires_grad:
        tensor.requires_grad_(requires_grad)
    if backward_hooks:
        warnings.warn("torchlite.load does not restore the backward hooks a checkpoint carries; they are ignored",
                      UserWarning, stacklevel=2)
    return tensor


def _parameter_class():
    """torchlite.nn.Parameter where torchlite.nn.parameter defines it, else None."""
    try:
        return getattr(importlib.import_module("torchlite.nn.parameter"), "Parameter", None)
    except ImportError:
        return None


def _rebuild_parameter(data, requires_grad, backward_hooks):
    """torch._utils._rebuild_parameter: an nn.Parameter over `data` (a tensor requiring grad
    where torchlite has no nn.Parameter yet)."""
    cls = _parameter_class()
    if cls is not None:
        param = cls(data, requires_grad)
    else:
        param = data.detach()
        if requires_grad:
            param.requires_grad_(True)
    if backward_hooks:
        warnings.warn("torchlite.load does not restore the backward hooks a checkpoint carries; they are ignored",
                      UserWarning, stacklevel=2)
    return param


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    """torch._utils._rebuild_parameter_with_state: a parameter with its Python attributes."""
    param = _rebuild_parameter(data, requires_grad, backward_hooks)
    _set_obj_state(param, state)
    return param


def _set_obj_state(obj, state):
    """torch._utils._set_obj_state: a (dict, slots) pair or a dict of attributes."""
    if isinstance(state, tuple):
        if len(state) != 2:
            raise RuntimeError(f"Invalid serialized state: {state}")
        dict_state, slots_state = state
    else:
        dict_state, slots_state = state, None
    for k, v in (dict_state or {}).items():
        setattr(obj, k, v)
    for k, v in (slots_state or {}).items():
        setattr(obj, k, v)
    return obj


def _rebuild_from_type_v2(func, new_type, args, state):
    """torch._tensor._rebuild_from_type_v2: func(*args) with the Python state torch kept for a
    Tensor subclass or a tensor with attributes (its type is torchlite's Tensor here)."""
    ret = func(*args)
    if state:
        _set_obj_state(ret, state)
    return ret

