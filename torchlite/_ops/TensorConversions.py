"""to (ATen/native/TensorConversions.cpp): a copy in another dtype or on
another device."""
from .. import _backend
from .._C import _record, _wrap
from .._dtypes import device as _device, dtype as _dtype, _from_numpy_dtype
from .._generated import specs as _S
from .Copy import _below_autograd, _copy_of_inference
from .TensorIterator import _TB, _copy_like, _empty_like, _loud, _quiet


def to(self, *args, dtype=None, device=None, non_blocking=False, copy=False, memory_format=None):
    flags = []  # the positional non_blocking and copy after the dtype, device or tensor
    for arg in args:
        if isinstance(arg, _dtype):
            dtype = arg
        elif isinstance(arg, (str, _device)):
            device = arg
        elif isinstance(arg, _TB):
            dtype, device = arg.dtype, arg.device
        elif isinstance(arg, bool):
            flags.append(arg)
    if len(flags) > 1:
        copy = flags[1]
    a = self._array
    src_dtype = _from_numpy_dtype(a.dtype)
    src_device = self.device
    new_dtype = dtype is not None and dtype is not src_dtype
    if device is not None and _device(device).type == "cuda":
        device = _backend.check_device(device)  # "cuda" is cuda:<current device>
    new_device = device is not None and _device(device) != src_device
    if not (new_dtype or new_device or copy):
        return self
    target = dtype._np if new_dtype else a.dtype
    if not new_device and self.requires_grad and target.kind == "f" and _below_autograd(self):
        return _copy_of_inference(self, _empty_like(a, target, self))
    token = _quiet()  # nan and inf cast to an integer silently, as in torch
    try:
        r = _copy_like(a, dtype._np if new_dtype else a.dtype, None if new_device else self)
    finally:
        _loud(token)
    if new_device:
        out = _backend.place(_wrap(r), _backend.check_device(device))  # made on the CPU, then placed
    else:
        out = _wrap(r, self)
    if r.dtype.kind != "f":
        return out  # an integer or bool result never requires grad (torch's isDifferentiableType)
    return _record(_S.ToCopyBackward0, (self,), out, self_dtype=src_dtype, self_device=src_device)
