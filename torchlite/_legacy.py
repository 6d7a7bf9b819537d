"""The legacy tensor constructors (torch/csrc/utils/tensor_new.cpp, legacy_tensor_ctor):
torchlite.Tensor(...) and the typed FloatTensor, LongTensor, ... classes
(torch/csrc/tensor/python_tensor.cpp's tensor types).

Their forms: () an empty 1-d tensor; (*sizes) or (Size) an uninitialised tensor of that size;
(sequence) a tensor of the data in the type's dtype; (tensor) the tensor itself, aliased
(AliasBackward0), which a typed constructor wants in its dtype. The only keyword is `device`.

The typed classes are made from a table of (name, dtype name) pairs for every dtype torchlite
has (a dtype added to torchlite._dtypes gets its class here with no more code);
isinstance(t, torchlite.FloatTensor) holds for a float32 tensor on the CPU."""
import builtins

import numpy as np

from . import _C, _backend, _dtypes, _factories, _ops

# torch's legacy tensor types (torch/csrc/tensor/python_tensor.cpp) and their dtypes
LEGACY_TYPES = (("DoubleTensor", "float64"), ("FloatTensor", "float32"), ("HalfTensor", "float16"),
                ("BFloat16Tensor", "bfloat16"), ("ByteTensor", "uint8"), ("CharTensor", "int8"),
                ("ShortTensor", "int16"), ("IntTensor", "int32"), ("LongTensor", "int64"), ("BoolTensor", "bool"))

_FORMS = ("new() received an invalid combination of arguments - got ({}), but expected one of:\n"
          " * (*, torch.device device = None)\n"
          " * (torch.Storage storage)\n"
          " * (Tensor other)\n"
          " * (tuple of ints size, *, torch.device device = None)\n"
          " * (object data, *, torch.device device = None)\n")


def _options(dtype, device):
    return (f"TensorOptions(dtype={_dtypes._c_type_name(dtype._np)}, device={device}, layout=Strided, "
            "requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))")


def _invalid(args, kwargs):
    got = [type(a).__name__ for a in args] + [f"{k}={type(v).__name__}" for k, v in kwargs.items()]
    return TypeError(_FORMS.format(", ".join(got)))


def _is_int(x):
    if isinstance(x, (builtins.bool, float)) or not hasattr(x, "__index__"):
        return False
    if isinstance(x, np.ndarray):
        return x.ndim == 0 and x.dtype.kind in "iu"
    return not (isinstance(x, _C.TensorBase) and (x._array.dtype.kind not in "iu" or x._array.ndim))


def legacy_new(dtype, typed, args, kwargs):
    """What the constructor of `dtype`'s tensor type makes of (args, kwargs); `typed`: a typed
    class (FloatTensor, ...), which checks a tensor argument's dtype, not torchlite.Tensor."""
    device = kwargs.pop("device", None) if set(kwargs) <= {"device"} else None
    if kwargs:
        raise _invalid(args, kwargs)
    if device is not None and not isinstance(device, (str, _dtypes.device)):
        raise _invalid(args, {"device": device})
    device = device if device is not None else _factories._default_device
    if not args:
        return _factories._make(np.empty(0, dtype._np), None, device, False)
    if len(args) == 1 and isinstance(args[0], _C.TensorBase) and not isinstance(args[0], _dtypes.Size):
        other = args[0]
        if typed and other.dtype is not dtype:
            raise TypeError(f"expected {_options(dtype, 'cpu')} (got {_options(other.dtype, other.device)})")
        if device is not None and _backend.check_device(device) != other.device:
            raise RuntimeError(f"Attempted to make a tensor into a differing device type: {other.device.type} "
                               f"vs {_dtypes.device(device).type}")
        return _ops.TriangularOps._alias(other)
    if len(args) == 1 and not isinstance(args[0], _dtypes.Size) and not _is_int(args[0]):
        data = args[0]
        if not isinstance(data, (list, tuple, range, np.ndarray)) and not _factories._is_sequence(data):
            raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
        return _factories._make(_factories._infer_array(data, dtype), dtype, device, False)
    sizes = tuple(args[0]) if isinstance(args[0], _dtypes.Size) and len(args) == 1 else args
    shape = []
    for i, x in enumerate(sizes):
        if not _is_int(x):
            if i == 0 and isinstance(x, (list, tuple)):
                raise _invalid(args, {})
            raise TypeError(f"new(): argument 'size' failed to unpack the object at pos {i + 1} with error "
                            f"\"type must be tuple of ints,but got {type(x).__name__}\"")
        shape.append(x.__index__())
    _factories._check_sizes("empty", shape)
    dev = _factories._device(device)
    return _factories._make(_backend.new(dev, "empty", tuple(shape), dtype._np), None, dev, False)


class _LegacyTensorType(type):
    """The metaclass of the typed constructors (torch.tensortype): calling one constructs a
    tensor, isinstance checks a tensor's dtype and that it is on the CPU."""

    def __call__(cls, *args, **kwargs):
        return legacy_new(cls.dtype, True, args, kwargs)

    def __instancecheck__(cls, obj):
        return isinstance(obj, _C.TensorBase) and obj.dtype is cls.dtype and obj.device.type == "cpu"

    def __repr__(cls):
        return f"<class 'torchlite.{cls.__name__}'>"


def _make_types():
    types = {}
    for name, dtype_name in LEGACY_TYPES:
        dtype = getattr(_dtypes, dtype_name, None)
        if not isinstance(dtype, _dtypes.dtype):
            continue  # a dtype torchlite does not have (yet)
        types[name] = _LegacyTensorType(name, (), {"dtype": dtype, "is_cuda": False, "is_sparse": False,
                                                   "__module__": "torchlite", "__doc__": f"A {dtype} tensor on the "
                                                   "CPU: the legacy constructor of its tensor type."})
    return types


TYPES = _make_types()
