"""The factories of torchlite's namespace: tensor, as_tensor, from_numpy and
from_dlpack (torch/csrc/utils/tensor_new.cpp), zeros, ones, full, the *_like
ones and the random ones (torch's generated python_torch_functions.cpp).

A module below autograd and _tensor, so that both import it: autograd makes its
root gradients with ones_like, gradcheck its Jacobians with tensor and zeros."""
import builtins as _builtins
import warnings as _warnings

import numpy as _np

from . import _C, _backend, _dtypes, _generator, _layout, _ops, accelerator
from . import _random as _random_mod
from ._ops.Resize import out_variant as _out_variant
from ._dtypes import Size, bool, int64  # noqa: A004
from ._ops.ScalarType import _scalar_value
from ._ops.python_arg_parser import _tp_name
from ._ops import mutation as _mutation


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


_warned_ndarrays: list = []


def _infer_array(data, dtype_=None):
    """A fresh array for `data` with torch's dtype inference (torch/csrc/utils/tensor_new.cpp:
    infer_scalar_type, compute_sizes, recursive_store). Python floats are the default dtype
    (float32), ints int64, bools bool; a tensor, numpy array or numpy scalar inside a sequence
    brings its own dtype, and the dtypes of a sequence's elements combine by promoteTypes (an
    integer and a floating dtype give the floating one, whatever their sizes). With `dtype_` the
    values are read as they are (a Python float as a double) and converted once."""
    if isinstance(data, _C.TensorBase):
        return data._array.copy()
    if _backend.is_cuda_array(data):
        return data.copy()
    if isinstance(data, (_np.ndarray, _np.generic)):  # numpy arrays and scalars keep their dtype
        return _np.array(data, copy=True)
    if isinstance(data, (list, tuple)) and data and isinstance(data[0], _np.ndarray) and not _warned_ndarrays:
        _warned_ndarrays.append(True)  # TORCH_WARN_ONCE
        _warnings.warn("Creating a tensor from a list of numpy.ndarrays is extremely slow. Please consider "
                       "converting the list to a single numpy.ndarray with numpy.array() before converting to a "
                       "tensor.", UserWarning, stacklevel=3)
    sizes = _compute_sizes(data)
    inferred = _infer_scalar_type(data)
    if inferred is None:  # only empty sequences: the default dtype
        inferred = _dtypes._default[0]._np
    flat = []
    _recursive_store(data, sizes, 0, flat, inferred)
    # python floats are held as doubles until the one conversion to the result's dtype
    held = _np.float64 if inferred.kind == "f" else inferred
    arr = _np.array(flat, dtype=held).reshape(sizes)
    return arr.astype(inferred, copy=False) if dtype_ is None else arr


def _is_sequence(obj):
    """What torch walks into as a sequence: lists, tuples, numpy arrays, other sequences
    (range), not strings, tensors or numpy scalars."""
    if isinstance(obj, (str, bytes, _C.TensorBase, _np.generic)):
        return False
    if isinstance(obj, _np.ndarray):
        return obj.ndim > 0
    return isinstance(obj, (list, tuple, range)) or (hasattr(obj, "__len__") and hasattr(obj, "__getitem__")
                                                      and not isinstance(obj, dict))


def _compute_sizes(data):
    """The shape: the lengths of the first elements, down to the first non-sequence."""
    sizes = []
    seq = data
    while _is_sequence(seq):
        n = len(seq)
        sizes.append(n)
        if n == 0:
            break
        seq = seq[0]
    return tuple(sizes)


def _promote(a, b):
    """c10::promoteTypes over numpy dtypes: bool gives way to anything, an integer to a floating
    dtype (whatever their sizes), two of a kind to the wider (numpy's promotion within a kind)."""
    if a is None:
        return b
    if a == b:
        return a
    if a.kind == "b":
        return b
    if b.kind == "b":
        return a
    if (a.kind == "f") != (b.kind == "f"):
        return a if a.kind == "f" else b
    return _np.promote_types(a, b)


def _infer_scalar_type(obj):
    """infer_scalar_type: the dtype of a number, tensor, numpy value, or (promoted over its
    elements) a sequence; None for an empty sequence."""
    if isinstance(obj, _builtins.bool):
        return bool._np
    if isinstance(obj, (_np.ndarray, _np.generic)):
        return obj.dtype
    if isinstance(obj, float):
        return _dtypes._default[0]._np
    if isinstance(obj, int):
        return int64._np
    if isinstance(obj, _C.TensorBase):
        return obj._array.dtype
    if isinstance(obj, complex):
        raise TypeError("Could not infer dtype of complex")  # torchlite has no complex dtype
    if isinstance(obj, str):
        raise TypeError(f"new(): invalid data type '{type(obj).__name__}'")
    if _is_sequence(obj):
        out = None
        for item in obj:
            out = _promote(out, _infer_scalar_type(item))
        return out
    raise RuntimeError(f"Could not infer dtype of {type(obj).__name__}")


def _recursive_store(obj, sizes, dim, flat, dtype_):
    """recursive_store: the values in row-major order into `flat`, each sequence checked
    against the shape compute_sizes read from the first elements."""
    if dim == len(sizes):
        if isinstance(obj, _C.TensorBase):
            if obj._array.size != 1:
                raise ValueError("only one element tensors can be converted to Python scalars")
            obj = _backend.to_host(obj._array).reshape(()).item()
        elif isinstance(obj, _np.ndarray) and obj.ndim == 0:
            obj = obj.item()
        elif _is_sequence(obj) or obj is None:
            _scalar_of(obj, dtype_)
        flat.append(obj)
        return
    if isinstance(obj, _C.TensorBase) and obj._array.ndim:
        obj = _backend.to_host(obj._array)  # a tensor below the first level is a sequence of its rows
    if not _is_sequence(obj):
        raise TypeError("not a sequence")
    n = len(obj)
    if n != sizes[dim]:
        raise ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} (got {n})")
    for item in obj:
        _recursive_store(item, sizes, dim + 1, flat, dtype_)


def _scalar_of(obj, dtype_):
    """The error torch's store raises for a value that is not a number of the dtype."""
    if dtype_.kind == "f":
        raise TypeError(f"must be real number, not {type(obj).__name__}")
    raise TypeError(f"'{type(obj).__name__}' object cannot be interpreted as an integer")


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
    device = _device(device)
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
        _warn_not_writable(data)
        t = _sharing(data)
        return t if dtype is None else t.to(dtype)
    if _backend.is_cuda_array(data) and (device is None or _backend.check_device(device) ==
                                         _dtypes.device("cuda", data.device.id)):
        t = _C._tensor_from_parts(data, False)  # shares the cupy array's memory, as torch does
        return t if dtype is None else t.to(dtype)
    return tensor(data, dtype=dtype, device=device)


_NOT_WRITABLE = [False]  # whether from_numpy has warned of a read-only array (torch warns once a process)


def from_numpy(ndarray):
    """A tensor sharing `ndarray`'s memory."""
    _warn_not_writable(ndarray)
    return _sharing(ndarray)


def _warn_not_writable(ndarray):
    """torch/csrc/utils/tensor_numpy.cpp's TORCH_WARN_ONCE for a read-only array, pointing at the
    caller of from_numpy / as_tensor."""
    if isinstance(ndarray, _np.ndarray) and not ndarray.flags.writeable and not _NOT_WRITABLE[0]:
        _NOT_WRITABLE[0] = True
        _warnings.warn("The given NumPy array is not writable, and PyTorch does not support non-writable tensors. "
                       "This means writing to this tensor will result in undefined behavior. You may want to copy "
                       "the array to protect its data or make it writable before converting it to a tensor. This "
                       "type of warning will be suppressed for the rest of this program.", UserWarning, stacklevel=3)


def _sharing(ndarray):
    """from_numpy without its warning (from_dlpack gives none)."""
    if not isinstance(ndarray, _np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    if ndarray.dtype not in _dtypes._by_numpy:
        raise TypeError(f"can't convert np.ndarray of type numpy.{ndarray.dtype.name}. The only supported "
                        "types are: float64, float32, float16, int64, int32, int16, int8, uint8, and bool.")
    if not ndarray.flags.writeable and _memory_writable(ndarray):
        ndarray = _np.asarray(_WritableAlias(ndarray))
    return _C._tensor_from_parts(ndarray, False)


# Note [Read-only numpy memory]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# torch.from_numpy of an array whose WRITEABLE flag is off warns once (tensor_numpy.cpp) and then
# ignores the flag: the tensor, its views and every in-place op write the array's memory, which the
# array then shows. Here a tensor's values are a numpy array, so the tensor is made over a writable
# alias of the same memory (_WritableAlias), and every path, the Python kernels' numpy views and the
# C++ entries' alike, writes as torch's. Only where the memory itself may not be written (a read-only
# mmap, whose write would crash the process as it crashes torch's; a bytes object, immutable for
# Python) is the array kept read-only: its tensor's storage is marked read-only
# (StorageImpl::read_only, set in python_variable.cpp's tensor_from_array), the arrays made over it
# are read-only, and a write raises numpy's ValueError on every path (the C++ in-place entries leave
# it to the Python kernels) instead of crashing.

def _memory_writable(a):
    """Whether a read-only array's memory may be written: numpy's own allocation (the array, or the
    array its views come from, owns its data), or a buffer that exports itself writable."""
    while isinstance(a, _np.ndarray):
        if a.base is None:
            return a.flags.owndata
        a = a.base
    try:
        return not memoryview(a).readonly
    except TypeError:
        return False


class _WritableAlias:
    """An array interface over a read-only array's memory that numpy views as writable (keeping the
    array alive through its .base)."""
    __slots__ = ("__array_interface__", "array")

    def __init__(self, array):
        interface = dict(array.__array_interface__)
        interface["data"] = (interface["data"][0], False)
        self.__array_interface__ = interface
        self.array = array


def from_dlpack(ext_tensor):
    """A tensor sharing the memory of `ext_tensor`, any object with __dlpack__
    (a cupy or numpy array, a torch tensor) or a DLPack capsule: a cuda tensor
    for device memory (through cupy), a cpu one for host memory."""
    if hasattr(ext_tensor, "__dlpack_device__"):
        device_type, _ = ext_tensor.__dlpack_device__()
        if device_type == 1:  # kDLCPU
            return _sharing(_np.from_dlpack(ext_tensor))
        if device_type != 2:  # kDLCUDA
            raise RuntimeError(f"from_dlpack: unsupported DLPack device type {device_type}")
    _backend.check_device("cuda")  # the errors of a machine without CUDA
    return _C._tensor_from_parts(_backend.cupy.from_dlpack(ext_tensor), False)


# Keywords every factory takes --------------------------------------------------------------------
_default_device = None  # torch.set_default_device's device (None: "cpu")


def set_default_device(device):  # noqa: A002
    """The device factories use when they are given none (torch.set_default_device); None
    restores "cpu". An int is an accelerator's index, refused without one as torch refuses it."""
    global _default_device
    if device is None:
        _default_device = None
        return
    if isinstance(device, int) and not isinstance(device, _builtins.bool):
        acc = accelerator.current_accelerator(check_available=True)
        if acc is None:
            raise RuntimeError("Cannot access accelerator device when none is available.")
        device = _dtypes.device(acc.type, device)
    _default_device = _dtypes.device(device)  # a cuda device is checked where it is used, as torch checks it


def get_default_device():
    """The device factories use when they are given none (torch.get_default_device)."""
    if _default_device is None:
        return _dtypes.device("cpu")
    if _default_device.type == "cuda" and _default_device.index is None:
        return _backend.check_device(_default_device)
    return _default_device


def _device(device):
    """The factory's device: the given one, else the default device."""
    return device if device is not None else _default_device


def _check_options(fn, layout=None, pin_memory=False, dtype=None):
    """The keywords torch's factories take and torchlite accepts as they are: layout (strided
    only), pin_memory (False: there is no accelerator to pin for), a dtype that is a dtype."""
    if dtype is not None and not isinstance(dtype, _dtypes.dtype):
        raise TypeError(f"{fn}(): argument 'dtype' must be torch.dtype, not {type(dtype).__name__}")
    if layout is not None and layout is not _layout.strided:
        if isinstance(layout, _layout.layout):
            raise RuntimeError(f"{fn}(): torchlite has the strided layout only, got {layout}")
        raise TypeError(f"{fn}(): argument 'layout' must be torch.layout, not {type(layout).__name__}")
    if pin_memory:
        if not _backend._cuda_is_compiled():
            raise RuntimeError("pin_memory=True requires a CUDA or other accelerator backend; no pinned memory "
                               "allocator is available on this system.")
        # torch's pinned allocator initialises CUDA (its errors without a GPU); the memory is host
        # memory either way, so torchlite then makes the tensor as it would unpinned
        _backend._cuda_lazy_init()


def _check_memory_format(fn, memory_format, preserve_ok):
    if memory_format is None or memory_format is _layout.contiguous_format:
        return
    if memory_format is _layout.preserve_format and preserve_ok:
        return
    if memory_format is _layout.preserve_format:
        raise RuntimeError("unsupported memory format Preserve")
    raise TypeError(f"{fn}(): argument 'memory_format' must be torch.memory_format, not "
                    f"{type(memory_format).__name__}")


def _with_out(fn, out, dtype, device, make):
    """A factory's out= overload (python_torch_functions' check_out_type_matches, then the
    `name_out` kernel): the result made in out's dtype (a dtype given must be out's), out
    resized to it (silently, as the factories' kernels resize) and filled."""
    if out is None:
        return make(dtype)
    if not isinstance(out, _C.TensorBase):
        raise TypeError(f"{fn}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if dtype is not None and dtype is not out.dtype:
        raise RuntimeError(f"dtype {_ops._torch_type_name(dtype._np)} does not match dtype of out parameter "
                           f"({_ops._torch_type_name(out._array.dtype)})")
    if device is not None and device is not _default_device and _backend.check_device(device) != out.device:
        raise RuntimeError(f"device type {_dtypes.device(device).type} does not match device type of out parameter "
                           f"({out.device.type})")
    if fn == "empty" and out.requires_grad:  # empty's out= resizes it, which autograd refuses
        raise RuntimeError("cannot resize variables that require grad")
    if _C.is_grad_enabled() and out.requires_grad:
        raise RuntimeError(f"aten::{fn}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")
    result = make(out.dtype)
    if tuple(out.shape) != tuple(result.shape):
        if _mutation.hook is not None:
            _mutation.hook(out)
        out.data = result if out.device == result.device else result.to(out.device)
        out._bump_version()
        return out
    return _ops.copy_(out, result)


def _size(fn, size):
    """The size of a factory: ints, or one sequence of ints (a Size, a list, a tuple), each
    anything with __index__; torch's argument parser's errors."""
    if not size:
        raise TypeError(f'{fn}() missing 1 required positional arguments: "size"')
    if isinstance(size[0], (tuple, list, Size)) and len(size) > 1:
        raise TypeError(f"{fn}() takes 1 positional argument but {len(size)} were given")
    if len(size) == 1 and isinstance(size[0], (tuple, list, Size)):
        size = tuple(size[0])
    elif len(size) == 1 and not hasattr(size[0], "__index__"):
        raise TypeError(f"{fn}(): argument 'size' (position 1) must be tuple of ints, not {_tp_name(size[0])}")
    out = []
    for i, x in enumerate(size):
        if isinstance(x, _builtins.bool) or not hasattr(x, "__index__") or \
                (isinstance(x, _C.TensorBase) and x._array.dtype.kind not in "iu"):
            raise TypeError(f"{fn}(): argument 'size' failed to unpack the object at pos {i + 1} with error "
                            f"\"type must be tuple of ints,but got {_tp_name(x)}\"")
        out.append(x.__index__())
    return tuple(out)


def _check_sizes(fn, shape):
    """at::empty's check (zeros has a message of its own)."""
    if any(x < 0 for x in shape):
        if fn == "zeros":
            raise RuntimeError("zeros: Dimension size must be non-negative.")
        bad = next(x for x in shape if x < 0)
        raise RuntimeError(f"Trying to create tensor with negative dimension {bad}: {list(shape)}")
    return shape


def _default(dtype_, fallback=None):
    return dtype_ if dtype_ is not None else fallback if fallback is not None else _dtypes._default[0]


# Factories -------------------------------------------------------------------------------------
def _filled(fn, kind, size, out, dtype, layout, device, pin_memory, requires_grad, memory_format=None):
    _check_options(fn, layout, pin_memory, dtype)
    _check_memory_format(fn, memory_format, False)
    shape = _check_sizes(fn, _size(fn, size))
    device = _device(device)

    def make(dt):
        return _make(_backend.new(device, kind, shape, _default(dt)._np), None, device, requires_grad)
    return _with_out(fn, out, dtype, device, make)


def zeros(*size, out=None, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False):  # noqa: A002
    return _filled("zeros", "zeros", size, out, dtype, layout, device, pin_memory, requires_grad)


def ones(*size, out=None, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False):  # noqa: A002
    return _filled("ones", "ones", size, out, dtype, layout, device, pin_memory, requires_grad)


def empty(*size, out=None, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False,  # noqa: A002
          memory_format=None):
    return _filled("empty", "empty", size, out, dtype, layout, device, pin_memory, requires_grad, memory_format)


def _number(fn, name, position, value):
    """A Scalar argument: a Python or numpy number, or a one-element tensor's value (with the
    Python type of its dtype, which drives the factories' dtype inference)."""
    if isinstance(value, _C.TensorBase):
        if value._array.size != 1:
            raise TypeError(f"{fn}(): argument '{name}' (position {position}) must be Number, not Tensor")
        return _backend.to_host(value._array).reshape(()).item()
    if isinstance(value, _np.generic):
        return value.item()
    if not isinstance(value, (int, float)):
        raise TypeError(f"{fn}(): argument '{name}' (position {position}) must be Number, not {type(value).__name__}")
    return value


def _scalar_dtype(value):
    """The dtype a Python number makes: bool, int64, or the default (float32) for a float."""
    return bool if isinstance(value, _builtins.bool) else int64 if isinstance(value, int) else _dtypes._default[0]


def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None, pin_memory=False,  # noqa: A002
         requires_grad=False):
    _check_options("full", layout, pin_memory, dtype)
    if not isinstance(size, (tuple, list, Size)):
        raise TypeError(f"full(): argument 'size' (position 1) must be tuple of ints, not {_tp_name(size)}")
    shape = _check_sizes("full", _size("full", (size,)))
    value = _number("full", "fill_value", 2, fill_value)
    device = _device(device)

    def make(dt):
        dt = dt if dt is not None else _scalar_dtype(value)
        v = _scalar_value(value, dt._np)
        return _make(_backend.new(device, "full", shape, v, dt._np), None, device, requires_grad)
    return _with_out("full", out, dtype, device, make)


def _like(input, fill, dtype, device, requires_grad, memory_format=None):  # noqa: A002
    """A new tensor shaped as input and laid out in memory as it is (empty_like's
    preserve_format: at::infer_dense_strides, TensorIterator's dimension order; contiguous with
    memory_format=contiguous_format), filled with `fill` unless it is None, on input's device
    unless `device` is given."""
    np_dtype = (dtype if dtype is not None else input.dtype)._np
    if memory_format is _layout.contiguous_format:
        array = _backend.new(input, "empty", input._array.shape, np_dtype)
    else:
        array = _ops._empty_like(input._array, np_dtype, input)
    if fill is not None:
        array[...] = fill
    if device is None or _backend.check_device(device) == input.device:
        t = _C._wrap(array, input)  # on input's device, with its layout (no copy to the device)
        if requires_grad:
            if array.dtype.kind != "f":
                raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
            t.requires_grad_(True)
        return t
    return _make(array, None, device, requires_grad)


def _like_args(fn, input, dtype, layout, pin_memory, memory_format):  # noqa: A002
    if not isinstance(input, _C.TensorBase):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    _check_options(fn, layout, pin_memory, dtype)
    _check_memory_format(fn, memory_format, True)


def zeros_like(input, *, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False,  # noqa: A002
               memory_format=None):
    _like_args("zeros_like", input, dtype, layout, pin_memory, memory_format)
    return _like(input, 0, dtype, device, requires_grad, memory_format)


def ones_like(input, *, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False,  # noqa: A002
              memory_format=None):
    _like_args("ones_like", input, dtype, layout, pin_memory, memory_format)
    return _like(input, 1, dtype, device, requires_grad, memory_format)


def empty_like(input, *, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False,  # noqa: A002
               memory_format=None):
    _like_args("empty_like", input, dtype, layout, pin_memory, memory_format)
    return _like(input, None, dtype, device, requires_grad, memory_format)


def full_like(input, fill_value, *, dtype=None, layout=None, device=None, pin_memory=False,  # noqa: A002
              requires_grad=False, memory_format=None):
    _like_args("full_like", input, dtype, layout, pin_memory, memory_format)
    value = _number("full_like", "fill_value", 2, fill_value)
    v = _scalar_value(value, (dtype if dtype is not None else input.dtype)._np)
    return _like(input, v, dtype, device, requires_grad, memory_format)


# Random factories ------------------------------------------------------------------------------
# Host devices draw from torch's CPU generator with torch's kernels (torchlite/_random.py): the
# numbers torch gives. cuda devices draw from cupy's generators.
def _random(kind, shape, dtype_, device_, generator=None, fn=None, out_array=None):
    """Floats of `kind` ("normal" or "uniform") as `dtype_` from the generator of `device_`
    (or `generator`), refused for a dtype that is not floating as torch's kernels refuse it
    (normal_kernel_cpu / normal_kernel_cuda; uniform's check_uniform_bounds runs before the
    device's kernel). On the host they are drawn into `out_array` when given."""
    dev = _backend.check_device(device_)
    if not dtype_.is_floating_point:
        kernel = "check_uniform_bounds" if kind == "uniform" else \
            "normal_kernel_cuda" if dev.type == "cuda" else "normal_kernel_cpu"
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_ops._torch_type_name(dtype_._np)}\'')
    impl = _random_mod.impl_of(fn or ("randn" if kind == "normal" else "rand"), generator, dev)
    if impl is None:
        values = _backend.random(dev, kind, shape).astype(dtype_._np)
        if out_array is not None:
            out_array[...] = values
            return out_array
        return values
    a = _np.empty(shape, dtype_._np) if out_array is None else out_array
    if kind == "normal":
        return _random_mod.normal_(impl, a, 0.0, 1.0)
    return _random_mod.uniform_(impl, a, 0.0, 1.0)


def _random_factory(fn, kind, size, generator, out, dtype, layout, device, pin_memory, requires_grad):
    if generator is not None and not isinstance(generator, _generator.Generator):
        raise TypeError(f"{fn}() received an invalid combination of arguments - got "
                        f"({', '.join(type(a).__name__ for a in size)}, generator={type(generator).__name__}), "
                        "but expected one of:\n"
                        " * (tuple of ints size, *, torch.Generator generator, Tensor out = None, torch.dtype dtype = "
                        "None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool "
                        "requires_grad = False)\n"
                        " * (tuple of ints size, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = "
                        "None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n")
    _check_options(fn, layout, pin_memory, dtype)
    shape = _check_sizes(fn, _size(fn, size))
    device = _device(device)

    def make(dt):
        return _make(_random(kind, shape, _default(dt), device, generator, fn), None, device, requires_grad)
    return _with_out(fn, out, dtype, device, make)


def randn(*size, generator=None, out=None, dtype=None, layout=None, device=None, pin_memory=False,  # noqa: A002
          requires_grad=False):
    return _random_factory("randn", "normal", size, generator, out, dtype, layout, device, pin_memory, requires_grad)


def rand(*size, generator=None, out=None, dtype=None, layout=None, device=None, pin_memory=False,  # noqa: A002
         requires_grad=False):
    return _random_factory("rand", "uniform", size, generator, out, dtype, layout, device, pin_memory, requires_grad)


def _random_like(fn, kind, input, dtype, layout, device, pin_memory, requires_grad, memory_format,  # noqa: A002
                 generator=None):
    """randn_like / rand_like: empty_like's layout, filled from the generator of the input's device."""
    _like_args(fn, input, dtype, layout, pin_memory, memory_format)
    dt = dtype if dtype is not None else input.dtype
    if input.device.type == "cuda":
        values = _random(kind, input._array.shape, dt, input.device, generator, fn)
        return _like(input, values, dtype, device, requires_grad, memory_format)
    # empty_like's layout, then normal_/uniform_ on it (a non-contiguous one draws per element)
    t = _like(input, None, dtype, device, False, memory_format)
    _random(kind, t._array.shape, dt, t.device, generator, fn, out_array=t._array)
    return t.requires_grad_(True) if requires_grad else t


def randn_like(input, *, generator=None, dtype=None, layout=None, device=None, pin_memory=False,  # noqa: A002
               requires_grad=False, memory_format=None):
    return _random_like("randn_like", "normal", input, dtype, layout, device, pin_memory, requires_grad,
                        memory_format, generator)


def rand_like(input, *, generator=None, dtype=None, layout=None, device=None, pin_memory=False,  # noqa: A002
              requires_grad=False, memory_format=None):
    return _random_like("rand_like", "uniform", input, dtype, layout, device, pin_memory, requires_grad,
                        memory_format, generator)


_RANDINT_FORMS = ("randint() received an invalid combination of arguments - got ({}), but expected one of:\n"
                  " * (int high, tuple of ints size, *, torch.Generator generator, Tensor out = None, torch.dtype "
                  "dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, "
                  "bool requires_grad = False)\n"
                  " * (int high, tuple of ints size, *, Tensor out = None, torch.dtype dtype = None, torch.layout "
                  "layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n"
                  " * (int low, int high, tuple of ints size, *, torch.Generator generator, Tensor out = None, "
                  "torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory "
                  "= False, bool requires_grad = False)\n"
                  " * (int low, int high, tuple of ints size, *, Tensor out = None, torch.dtype dtype = None, "
                  "torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool "
                  "requires_grad = False)\n")


def _check_random_bounds(low, high, np_dtype):
    """random_from_to's checks (aten/src/ATen/native/DistributionTemplates.h)."""
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    if np_dtype.kind == "b":
        if not 0 <= low <= 1:
            raise RuntimeError("from is out of bounds for bool")
        if not 0 <= high - 1 <= 1:
            raise RuntimeError("to - 1 is out of bounds for bool")
    elif np_dtype.kind == "f":
        digits = _np.finfo(np_dtype).nmant + 1
        limit = 2 ** digits
        if not -limit <= low <= limit:
            raise RuntimeError(f"from is out of bounds for {_dtypes._c_type_name(np_dtype)}")
        if not -limit <= high - 1 <= limit:
            raise RuntimeError(f"to - 1 is out of bounds for {_dtypes._c_type_name(np_dtype)}")


def _draw_integers(fn, generator, dev, low, high, shape, np_dtype):
    """randint's values: random_(low, high) on a new tensor of `np_dtype` (cupy's on cuda)."""
    impl = _random_mod.impl_of(fn, generator, dev)
    if impl is None:
        with _backend._on(dev):
            return _backend.cupy.random.randint(low, high, shape, dtype=_np.int64).astype(np_dtype)
    a = _np.empty(shape, np_dtype)
    if np_dtype.kind == "f":
        low, high = _ops.Distributions._update_from_to(low, high, np_dtype)
    return _random_mod.random_from_to_(impl, a, low, high)


def randint(*args, size=None, generator=None, out=None, dtype=None, layout=None, device=None,  # noqa: A002
            pin_memory=False, requires_grad=False, low=None, high=None):
    """randint(low=0, high, size): integers in [low, high), int64 unless `dtype` says otherwise."""
    given = list(args)
    if size is None and given and isinstance(given[-1], (tuple, list, Size)):
        size = given.pop()
    elif size is None and len(args) in (2, 3) and _builtins.all(_is_index(a) for a in args[:-1]):
        raise TypeError(f"randint(): argument 'size' (position {len(args)}) must be tuple of ints, not "
                        f"{type(args[-1]).__name__}")
    if high is None and given:
        high = given.pop()
    if low is None and given:
        low = given.pop()
    if given or high is None or size is None:
        got = ", ".join(type(a).__name__ for a in args)
        raise TypeError(_RANDINT_FORMS.format(got))
    low = 0 if low is None else low
    for v in (low, high):
        if isinstance(v, _builtins.bool) or not hasattr(v, "__index__"):
            got = ", ".join(type(a).__name__ for a in args)
            raise TypeError(_RANDINT_FORMS.format(got))
    low, high = low.__index__(), high.__index__()
    if not isinstance(size, (tuple, list, Size)):
        raise TypeError(f"randint(): argument 'size' (position {2 if len(args) < 3 else 3}) must be tuple of ints, "
                        f"not {type(size).__name__}")
    _check_options("randint", layout, pin_memory, dtype)
    shape = _check_sizes("randint", _size("randint", (size,)))
    device = _device(device)

    def make(dt):
        dt = _default(dt, int64)
        _check_random_bounds(low, high, dt._np)
        dev = _backend.check_device(device)
        values = _draw_integers("randint", generator, dev, low, high, shape, _np.dtype(dt._np))
        return _make(values, None, device, requires_grad)
    return _with_out("randint", out, dtype, device, make)


def _is_index(x):
    return not isinstance(x, (_builtins.bool, float)) and hasattr(x, "__index__") and \
        not (isinstance(x, (_C.TensorBase, _np.ndarray)) and (x.ndim or x.dtype.kind not in "iu"))


_LIKE_KW = ("torch.memory_format memory_format = None, torch.dtype dtype = None, torch.layout layout = None, "
            "torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n")
_RANDINT_LIKE_FORMS = ("randint_like() received an invalid combination of arguments - got ({}), but expected one "
                       "of:\n" + "".join(f" * (Tensor input, {head}, *, {gen}" + _LIKE_KW
                                         for head in ("int low, int high", "Tensor high", "int high")
                                         for gen in ("torch.Generator generator, ", "")))


def randint_like(input, low=0, high=None, *, generator=None, dtype=None, layout=None, device=None,  # noqa: A002
                 pin_memory=False, requires_grad=False, memory_format=None):
    """randint_like(input, low=0, high): integers in [low, high) shaped and laid out as input."""
    if high is None:
        low, high = 0, low
    _like_args("randint_like", input, dtype, layout, pin_memory, memory_format)
    if not (_is_index(low) and _is_index(high)):
        got = ", ".join(type(a).__name__ for a in ((input, high) if low == 0 else (input, low, high)))
        raise TypeError(_RANDINT_LIKE_FORMS.format(got))
    low, high = low.__index__(), high.__index__()
    np_dtype = (dtype if dtype is not None else input.dtype)._np
    _check_random_bounds(low, high, np_dtype)
    dev = input.device
    if dev.type == "cuda":
        values = _draw_integers("randint_like", generator, dev, low, high, input._array.shape, _np.dtype(np_dtype))
        return _like(input, values, dtype, device, requires_grad, memory_format)
    t = _like(input, None, dtype, device, False, memory_format)
    impl = _random_mod.impl_of("randint_like", generator, dev)
    if _np.dtype(np_dtype).kind == "f":
        low, high = _ops.Distributions._update_from_to(low, high, _np.dtype(np_dtype))
    _random_mod.random_from_to_(impl, t._array, low, high)
    return t.requires_grad_(True) if requires_grad else t


def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None, pin_memory=False,  # noqa: A002
             requires_grad=False):
    """A random permutation of 0 .. n - 1, int64 unless `dtype` says otherwise."""
    n = _ops._int_arg("randperm", "n", 1, n)
    _check_options("randperm", layout, pin_memory, dtype)
    device = _device(device)
    _check_sizes("randperm", (n,))

    def make(dt):
        dt = _default(dt, int64)
        if dt is bool:
            raise NotImplementedError("\"randperm\" not implemented for 'Bool'")
        if dt.is_floating_point and n > 2 ** (_np.finfo(dt._np).nmant + 1):
            raise RuntimeError(f"n must be less than 2^{_np.finfo(dt._np).nmant + 1} for "
                               f"{_ops._torch_type_name(dt._np)} type.")
        dev = _backend.check_device(device)
        impl = _random_mod.impl_of("randperm", generator, dev)
        if impl is None:
            values = _np.asarray(_backend.to_host(_backend.cupy.random.permutation(n))).astype(dt._np)
        else:
            values = _random_mod.randperm(impl, n, dt._np)  # randperm_cpu
        return _make(values, None, device, requires_grad)
    return _with_out("randperm", out, dtype, device, make)


# Ranges --------------------------------------------------------------------------------------
_RANGE_DTYPE_ERRORS = {"arange": "arange_cpu", "linspace": "linspace_cpu", "logspace": "logspace_cpu"}


def _range_dtype(fn, dtype_, values):
    """The result dtype of arange (int64 for integer arguments, else the default dtype), refused
    for bool as torch's kernels are."""
    if dtype_ is None:
        dtype_ = int64 if _builtins.all(isinstance(v, int) for v in values) else _dtypes._default[0]
    if dtype_ is bool:
        raise NotImplementedError(f"\"{_RANGE_DTYPE_ERRORS[fn]}\" not implemented for 'Bool'")
    return dtype_


_ARANGE_FORMS = (
    "arange() received an invalid combination of arguments - got ({}), but expected one of:\n"
    " * (Number end, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device "
    "device = None, bool pin_memory = False, bool requires_grad = False)\n"
    " * (Number start, Number end, *, torch.dtype dtype = None, torch.layout layout = None, torch.device device = "
    "None, bool pin_memory = False, bool requires_grad = False)\n"
    " * (Number start, Number end, Number step = 1, *, Tensor out = None, torch.dtype dtype = None, torch.layout "
    "layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n")


def arange(*args, out=None, dtype=None, layout=None, device=None, pin_memory=False,  # noqa: A002
           requires_grad=False, start=None, end=None, step=None):
    """arange(end), arange(start, end, step=1): start + i * step while below end (above it for
    a negative step), computed in double (int64 for an integer result, as torch's
    accumulate type) and converted."""
    given = list(args)
    if len(given) > 3 or (not given and end is None):
        raise TypeError(_ARANGE_FORMS.format(", ".join(type(a).__name__ for a in args)))
    if len(given) == 1 and end is None:
        end = given.pop()
    names = ["start", "end", "step"]
    for i, v in enumerate(given):
        if names[i] == "start":
            start = v
        elif names[i] == "end":
            end = v
        else:
            step = v
    start = 0 if start is None else start
    step = 1 if step is None else step
    position = {"start": 1, "end": 2 if len(args) > 1 else 1, "step": 3}
    start, end, step = (_number("arange", n, position[n], v) for n, v in
                        (("start", start), ("end", end), ("step", step)))
    start, end, step = (int(v) if isinstance(v, _builtins.bool) else v for v in (start, end, step))
    _check_options("arange", layout, pin_memory, dtype)
    device = _device(device)

    def make(dt):
        dt = _range_dtype("arange", dt, (start, end, step))
        if dt is int64:
            xs, xe, xst = int(start), int(end), int(step)
            if xst == 0 and float(step) != 0:  # a fractional step truncated to 0 in int64 (torch's ValueError)
                raise ValueError("step must be nonzero")
        else:
            xs, xe, xst = float(start), float(end), float(step)
        if xst == 0:
            raise RuntimeError("step must be nonzero")
        if not (_np.isfinite(float(xs)) and _np.isfinite(float(xe))):
            raise RuntimeError(f"unsupported range: {_fmt(xs)} -> {_fmt(xe)}")
        if (xst > 0 and xe < xs) or (xst < 0 and xe > xs):
            raise RuntimeError("upper bound and lower bound inconsistent with step sign")
        if dt is int64:
            n = -((xs - xe) // xst)  # ceil((end - start) / step), in integers, as torch
            values = xs + _np.arange(n, dtype=_np.int64) * xst
        else:
            n = int(_np.ceil((xe - xs) / xst))
            if n > 2 ** 63 - 1:
                raise RuntimeError("invalid size, possible overflow?")
            if dt.is_floating_point:
                values = xs + _np.arange(n, dtype=_np.float64) * xst
            else:  # the narrower integers: the size in double, the values in int64 (their accumulate type)
                values = int(start) + _np.arange(n, dtype=_np.int64) * int(step)
        return _make(values.astype(dt._np), None, device, requires_grad)
    return _with_out("arange", out, dtype, device, make)


def _fmt(x):
    """A number as torch's messages print it (C++ stream output)."""
    if isinstance(x, float) and x.is_integer():
        return str(int(x))
    return str(x)


def _space_values(start, end, steps, dt):
    """linspace's values (RangeFactoriesKernel.cpp's linspace_kernel): from start by `step` up to
    the middle, from end back by `step` after it, in the result's floating type (double for an
    integer result, then truncated)."""
    if dt.is_floating_point:
        compute = dt._np
        s, e = compute.type(start), compute.type(end)
    else:  # start and end converted to the integer type first, the step in double
        compute = _np.dtype(_np.float64)
        s, e = compute.type(int(start)), compute.type(int(end))
    if steps == 1:
        return _np.full(1, s, compute)
    step = (e - s) / compute.type(steps - 1)
    idx = _np.arange(steps, dtype=compute)
    half = steps // 2
    with _np.errstate(all="ignore"):
        return _np.where(_np.arange(steps) < half, s + step * idx, e - step * (compute.type(steps - 1) - idx))


def _space_forms(fn, args):
    base = "float base = 10.0, " if fn == "logspace" else ""
    forms = "".join(f" * ({a} start, {b} end, int steps, {base}*, Tensor out = None, torch.dtype dtype = None, "
                    "torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool "
                    "requires_grad = False)\n"
                    for a, b in (("Tensor", "Tensor"), ("Number", "Tensor"), ("Tensor", "Number"),
                                 ("Number", "Number")))
    got = ", ".join("Tensor" if isinstance(a, _C.TensorBase) else type(a).__name__ for a in args)
    return TypeError(f"{fn}() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                     + forms)


def _space(fn, start, end, steps, base, out, dtype, layout, device, pin_memory, requires_grad):
    if steps is _MISSING or not _is_index(steps):
        raise _space_forms(fn, [a for a in (start, end, steps) if a is not _MISSING])
    start = _number(fn, "start", 1, start)
    end = _number(fn, "end", 2, end)
    steps = steps.__index__()
    _check_options(fn, layout, pin_memory, dtype)
    device = _device(device)

    def make(dt):
        dt = _default(dt)
        if dt is bool:
            raise NotImplementedError(f"\"{_RANGE_DTYPE_ERRORS[fn]}\" not implemented for 'Bool'")
        if steps < 0:
            raise RuntimeError("number of steps must be non-negative")
        if steps == 0:
            values = _np.zeros(0, dt._np)
        else:
            values = _space_values(start, end, steps, dt)
            if base is not None:
                with _np.errstate(all="ignore"):
                    values = _np.power(_np.float64(base), values.astype(_np.float64))
            with _np.errstate(all="ignore"):
                values = values.astype(dt._np)
        return _make(values, None, device, requires_grad)
    return _with_out(fn, out, dtype, device, make)


_MISSING = object()


def linspace(start, end, steps=_MISSING, *, out=None, dtype=None, layout=None, device=None, pin_memory=False,  # noqa: A002
             requires_grad=False):
    """`steps` values evenly spaced from start to end (both included), in the default dtype
    unless `dtype` says otherwise."""
    return _space("linspace", start, end, steps, None, out, dtype, layout, device, pin_memory, requires_grad)


def logspace(start, end, steps=_MISSING, base=10.0, *, out=None, dtype=None, layout=None, device=None,  # noqa: A002
             pin_memory=False, requires_grad=False):
    """base ** linspace(start, end, steps)."""
    base = _number("logspace", "base", 4, base)
    return _space("logspace", start, end, steps, base, out, dtype, layout, device, pin_memory, requires_grad)


def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, pin_memory=False,  # noqa: A002
        requires_grad=False):
    """An n x m (n x n) matrix with ones on its diagonal."""
    n = _ops._int_arg("eye", "n", 1, n)
    if m is not None:
        m = _ops._int_arg("eye", "m", 2, m)
    _check_options("eye", layout, pin_memory, dtype)
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m is not None and m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    cols = n if m is None else m
    device = _device(device)

    def make(dt):
        return _make(_backend.new(device, "eye", n, cols, dtype=_default(dt)._np), None, device, requires_grad)
    return _with_out("eye", out, dtype, device, make)



_NORMAL_FORMS = ("normal() received an invalid combination of arguments - got ({}), but expected one of:\n"
                 " * (Tensor mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
                 " * (Tensor mean, float std = 1, *, torch.Generator generator = None, Tensor out = None)\n"
                 " * (float mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
                 " * (float mean, float std, tuple of ints size, *, torch.Generator generator = None, Tensor out = "
                 "None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool "
                 "pin_memory = False, bool requires_grad = False)\n")


def normal(mean, std=1.0, size=None, *, generator=None, out=None, **factory_kwargs):
    """torch.normal: of a tensor mean and/or std (the op, _ops.Distributions.normal, whose out=
    is resize_output's: a warning where out had elements), or of two numbers and a size (a
    factory, whose out= is resized silently)."""
    if isinstance(mean, _C.TensorBase) or isinstance(std, _C.TensorBase):
        if size is not None or factory_kwargs:
            got = [type(a).__name__ for a in (mean, std, size) if a is not None] + \
                [f"{k}={type(v).__name__}" for k, v in factory_kwargs.items()]
            raise TypeError(_NORMAL_FORMS.format(", ".join(got)))
        if out is None:
            return _ops.normal(mean, std, generator=generator)
        return _out_variant("normal", _ops.normal, out, (mean, std), {"generator": generator})
    if size is None:
        raise TypeError(_NORMAL_FORMS.format(f"{type(mean).__name__}, {type(std).__name__}"))
    return _normal_factory(mean, std, size, generator, out=out, **factory_kwargs)


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):  # noqa: A002
    """torch.multinomial (_ops.Distributions.multinomial), whose out= is resized silently."""
    if out is None:
        return _ops.multinomial(input, num_samples, replacement, generator=generator)
    return _with_out("multinomial", out, None, None,
                     lambda dt: _ops.multinomial(input, num_samples, replacement, generator=generator))


def _normal_factory(mean, std, size, generator=None, *, out=None, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    """normal(mean, std, size) of two numbers (normal.float_float): std * randn(size) + mean."""
    for name, position, v in (("mean", 1, mean), ("std", 2, std)):
        if isinstance(v, _builtins.bool) or not isinstance(v, (int, float, _np.integer, _np.floating)):
            raise TypeError(f"normal(): argument '{name}' (position {position}) must be float, not "
                            f"{type(v).__name__}")
    mean, std = float(mean), float(std)
    if not isinstance(size, (tuple, list, Size)):
        raise TypeError(f"normal(): argument 'size' (position 3) must be tuple of ints, not {_tp_name(size)}")
    shape = _check_sizes("normal", _size("normal", (size,)))
    _check_options("normal", layout, pin_memory, dtype)
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt(std)}")
    device = _device(device)

    def make(dt):
        dt = _default(dt)
        if not dt.is_floating_point:
            raise NotImplementedError(f"\"normal_kernel_cpu\" not implemented for '{_ops._torch_type_name(dt._np)}'")
        dev = _backend.check_device(device)
        impl = _random_mod.impl_of("normal", generator, dev)
        if impl is None:
            z = _backend.random(dev, "normal", shape)
            return _make((z * std + mean).astype(dt._np), None, device, requires_grad)
        # normal(mean, std, size): empty(size).normal_(mean, std)
        values = _random_mod.normal_(impl, _np.empty(shape, dt._np), mean, std)
        return _make(values, None, device, requires_grad)
    return _with_out("normal", out, dtype, device, make)
