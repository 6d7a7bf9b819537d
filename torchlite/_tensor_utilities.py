"""Tensor's utility methods (torch/_tensor.py, torch/csrc/autograd/python_variable_methods.cpp,
tensor_new.cpp): type(), the new_* factories, apply_, data_ptr, nbytes, memory formats,
pickling and deepcopy. Tensor (torchlite/_tensor.py) binds them."""
import copy as _copy
import ctypes
import warnings

import numpy as np

from . import _C, _backend, _dtypes, _factories, _ops
from ._ops.TensorGeometry import _data_ptr
from ._memory_format import _CHANNELS_LAST, contiguous_format, memory_format
from ._ops import mutation as _mutation

# The legacy tensor type names (torch.FloatTensor, ...), by numpy dtype name: a table, so that
# every dtype torchlite has gets its name (c10's toString of the legacy Backend + ScalarType).
_TYPE_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
               "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
               "bool": "Bool", "complex64": "ComplexFloat", "complex128": "ComplexDouble"}


def _dtype_objects():
    """torchlite's dtypes by numpy dtype name (whatever dtypes _dtypes defines)."""
    return {d._np.name: d for d in vars(_dtypes).values() if isinstance(d, _dtypes.dtype)}


def type_name(t):
    """Tensor.type(): 'torchlite.FloatTensor', 'torchlite.cuda.FloatTensor' on a cuda device."""
    cuda = ".cuda" if t._device_str.startswith("cuda") else ""
    return f"torchlite{cuda}.{_TYPE_NAMES[t._array.dtype.name]}Tensor"


def type_(self, dtype=None, non_blocking=False, **kwargs):
    """Tensor.type(dtype=None, non_blocking=False): the type name without dtype, else self cast
    (self where it already has that type)."""
    if dtype is None:
        return type_name(self)
    device = None
    if isinstance(dtype, str):
        name = dtype
        parts = name.split(".")
        by_type = {v: k for k, v in _TYPE_NAMES.items()}
        ok = len(parts) in (2, 3) and parts[0] in ("torch", "torchlite") and parts[-1].endswith("Tensor")
        if ok and len(parts) == 3 and parts[1] != "cuda":
            ok = False
        np_name = by_type.get(parts[-1][:-len("Tensor")]) if ok else None
        dtypes = _dtype_objects()
        if np_name not in dtypes:
            raise ValueError(f"invalid type: '{name}'")
        dtype = dtypes[np_name]
        if len(parts) == 3:
            device = "cuda"
    elif not isinstance(dtype, _dtypes.dtype):
        raise TypeError(f"type(): argument 'dtype' must be torch.dtype, not {type(dtype).__name__}")
    if device is None and dtype._np == self._array.dtype:
        return self
    if device is None and self._device_str.startswith("cuda"):
        device = self._device_str
    return _ops.to(self, dtype=dtype, device=device) if device else _ops.to(self, dtype=dtype)


# The new_* factories: self's dtype and device unless given --------------------------------------

def _factory(self, make, size, dtype, device, requires_grad, *args):
    dtype = self.dtype if dtype is None else dtype
    device = self.device if device is None else device
    return getattr(_factories, make)(size, *args, dtype=dtype, device=device, requires_grad=requires_grad)


def new_tensor(self, data, dtype=None, device=None, requires_grad=False):
    if isinstance(data, _C.TensorBase):
        warnings.warn("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
                      "sourceTensor.detach().clone().requires_grad_(True), rather than "
                      "tensor.new_tensor(sourceTensor).", UserWarning, stacklevel=2)
        data = _backend.to_host(data._array).copy()  # read as numpy: the factory's own warning is not torch's here
    dtype = self.dtype if dtype is None else dtype
    device = self.device if device is None else device
    return _factories.tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)


def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
    dtype = self.dtype if dtype is None else dtype
    device = self.device if device is None else device
    return _factories.full(tuple(size), fill_value, dtype=dtype, device=device, requires_grad=requires_grad)


def new_empty(self, *size, dtype=None, device=None, requires_grad=False):
    return _factory(self, "empty", _ops._shape_arg(size), dtype, device, requires_grad)


def new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
    return _factory(self, "zeros", _ops._shape_arg(size), dtype, device, requires_grad)


def new_ones(self, *size, dtype=None, device=None, requires_grad=False):
    return _factory(self, "ones", _ops._shape_arg(size), dtype, device, requires_grad)


# Elementwise Python ------------------------------------------------------------------------------

def _apply_store(v, dtype):
    """torch::utils::store_scalar: a Python result into an element of `dtype` (floating types unchecked,
    integers through unpackIntegral's checked_convert, named as its messages name them)."""
    if dtype.kind != "i" and dtype.kind != "u":
        return v
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return v
    info = np.iinfo(dtype)
    if isinstance(v, int):
        if dtype == np.int64:
            if not info.min <= v <= info.max:
                raise ValueError("Overflow when unpacking long long")
            return v
        # c10::overflows of an integer: into an unsigned type a negative value down to -max wraps
        bad = v > info.max or (v < -info.max if dtype.kind == "u" else v < info.min)
    else:
        bad = not info.min <= v <= info.max  # nan too
    if bad:
        raise RuntimeError(f"value cannot be converted to type {dtype.name} without overflow")
    return int(v) & ((1 << (8 * dtype.itemsize)) - 1) if v < 0 and dtype.kind == "u" else int(v)


def apply_(self, callable):  # noqa: A002 - torch's name
    """Tensor.apply_(fn): fn applied to each element, in place (CPU tensors only, never one that
    requires grad; the results cast to self's dtype)."""
    if self.requires_grad:
        raise RuntimeError("Can't call apply_() on Variable that requires grad. Use var.detach().apply_() instead.")
    if self._device_str.startswith("cuda"):
        raise TypeError("apply_ is only implemented on CPU tensors")
    a = self._array
    flat = [_apply_store(callable(v), a.dtype) for v in a.reshape(-1).tolist()] if a.size else []
    if _mutation.hook is not None:
        _mutation.hook(self)
    with np.errstate(over="ignore"):
        a[...] = np.asarray(flat, dtype=object).reshape(a.shape).astype(a.dtype) if a.size else a
    self._bump_version()
    return self


# Memory ------------------------------------------------------------------------------------------

def data_ptr(self):
    """The address of the first element; 0 for a tensor of no elements (TensorImpl::data_impl returns
    nullptr where is_empty(), whatever storage and offset an empty view has)."""
    a = self._array
    return _data_ptr(a) if a.size else 0


def _check_format(fmt, fn):
    if fmt is not None and not isinstance(fmt, memory_format):
        raise TypeError(f"{fn}(): argument 'memory_format' must be torch.memory_format, not {type(fmt).__name__}")


def is_contiguous(self, memory_format=contiguous_format):
    _check_format(memory_format, "is_contiguous")
    a = self._array
    if memory_format in _CHANNELS_LAST:
        order, rank = _CHANNELS_LAST[memory_format]
        return a.ndim == rank and _is_dense_in(a, order)
    return a.flags.c_contiguous


def _is_dense_in(a, order):
    """c10's is_channels_last_strides... contiguity: dense in `order` (innermost first; a size-1
    dimension's stride is free)."""
    expected = a.itemsize
    for d in order:
        if a.shape[d] != 1:
            if a.strides[d] != expected:
                return False
            expected *= a.shape[d]
    return True


def _check_rank(fmt, a):
    if fmt in _CHANNELS_LAST:
        order, rank = _CHANNELS_LAST[fmt]
        if a.ndim != rank:
            raise RuntimeError(f"required rank {rank} tensor to use {fmt._name} format")
        return order
    return None


# Pickling and copying ----------------------------------------------------------------------------

def _rebuild(storage, offset, shape, strides, requires_grad, device):
    """The inverse of Tensor.__reduce_ex__: a tensor over `storage` (a 1-d numpy array) at this
    offset and strides (in elements), on `device`."""
    item = storage.itemsize
    arr = np.lib.stride_tricks.as_strided(storage[offset:], shape, tuple(s * item for s in strides))
    dev = _dtypes.device(device)
    if dev.type == "cuda":
        t = _backend.place(_C._wrap(arr), dev)
    elif dev.type == "cpu":
        t = _C._wrap(arr)
    else:
        # a host device (sim): the tensor made over the same array there, keeping its strides
            t = _C._wrap(arr, _factories.empty(0, device=dev))
    if requires_grad:
        t.requires_grad_(True)
    return t


def _extent_array(a):
    """A 1-d array over a's memory from its first element to its last (a's own storage part)."""
    host = _backend.to_host(a)
    if host.size == 0:
        return np.empty(0, host.dtype), (0,) * host.ndim
    extent = 1 + sum((n - 1) * st for n, st in zip(host.shape, host.strides, strict=True)) // host.itemsize
    flat = np.lib.stride_tricks.as_strided(host, (extent,), (host.itemsize,))
    return flat, tuple(st // host.itemsize for st in host.strides)


def reduce_ex(self, proto):
    """Tensor.__reduce_ex__ (torch/_tensor.py's _reduce_ex_internal): the values with their
    strides, dtype, device and requires_grad; a copy.copy shares the memory, as torch's does."""
    a = self._array
    if a.ndim and any(st < 0 for st in a.strides):
        a = a.copy()
    storage, strides = _extent_array(a)
    return (_rebuild, (storage, 0, tuple(a.shape), strides, self.requires_grad, str(self.device)))


def deepcopy(self, memo):
    """Tensor.__deepcopy__: a new leaf over a copy of self's memory, which the other tensors of the
    same deepcopy over that memory share (the memo keeps it by its address)."""
    if not self.is_leaf:
        raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol "
                           "at the moment.  If you were attempting to deepcopy a module, this may be because of a "
                           "torch.nn.utils.weight_norm usage, see https://github.com/pytorch/pytorch/pull/103001")
    if id(self) in memo:
        return memo[id(self)]
    a = self._array
    if isinstance(a, np.ndarray) and a.size:
        # one copy of each storage per deepcopy, as torch's memo keeps each storage once: keyed by the
        # storage's address and size, this tensor over the copy at its own offset and strides
        offset = self.storage_offset() * a.itemsize
        start, nbytes = _data_ptr(a) - offset, self._storage_nbytes()
        key = ("torchlite storage", start, nbytes)
        new_root = memo.get(key)
        if new_root is None:
            new_root = memo[key] = np.ctypeslib.as_array((ctypes.c_uint8 * nbytes).from_address(start)).copy()
        arr = np.ndarray(a.shape, a.dtype, new_root.data, offset, a.strides)
    else:
        arr = a.copy()
    new = _C._wrap(arr, self)
    if self.requires_grad:
        new.requires_grad_(True)
    memo[id(self)] = new
    grad = self.grad
    if grad is not None:
        new.grad = _copy.deepcopy(grad, memo)
    return new
