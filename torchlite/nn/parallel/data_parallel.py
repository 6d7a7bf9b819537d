"""DataParallel / data_parallel as torch has them (torch/nn/parallel/data_parallel.py), for a
machine with no accelerator or one accelerator device."""
from itertools import chain

from ... import accelerator as _accelerator
from ..._dtypes import device as _device
from ..._tensor import Tensor
from ..modules.module import Module

__all__ = ["DataParallel", "data_parallel"]


def _available_device_type():
    """torch._utils._get_available_device_type: "cuda" where a GPU is usable, else None."""
    return "cuda" if _accelerator.is_available() else None


def _device_index(d):
    """torch._utils._get_device_index(d, optional=True) for an int or a device."""
    if isinstance(d, int):
        return d
    d = _device(d)
    return 0 if d.index is None else d.index


def _to_device(obj, device):
    """scatter's one-device case: tensors moved to `device`, containers walked."""
    if isinstance(obj, Tensor):
        return obj.to(device)
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(_to_device(o, device) for o in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(_to_device(o, device) for o in obj)
    if isinstance(obj, dict):
        return type(obj)((k, _to_device(v, device)) for k, v in obj.items())
    return obj


def _check_on(module, src):
    for t in chain(module.parameters(), module.buffers()):
        if t.device != src:
            raise RuntimeError("module must have its parameters and buffers "
                               f"on device {src} (device_ids[0]) but found one of them on device: {t.device}")


def _multi_device():
    raise NotImplementedError("torchlite runs DataParallel on one device only (replicate / scatter / "
                              "gather over several devices are not ported)")


class DataParallel(Module):
    """Implements data parallelism at the module level (torch.nn.DataParallel): the module is held
    as `self.module` (so state_dict keys read "module.<name>"); without an accelerator forward
    calls it directly."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        device_type = _available_device_type()
        if device_type is None:
            self.module = module
            self.device_ids = []
            return
        if device_ids is None:
            device_ids = list(range(_accelerator.device_count()))
        if output_device is None:
            output_device = device_ids[0]
        self.dim = dim
        self.module = module
        self.device_ids = [_device_index(x) for x in device_ids]
        self.output_device = _device_index(output_device)
        self.src_device_obj = _device(device_type, self.device_ids[0])
        if len(self.device_ids) == 1:
            self.module.to(self.src_device_obj)

    def forward(self, *inputs, **kwargs):
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        _check_on(self.module, self.src_device_obj)
        if len(self.device_ids) != 1:
            _multi_device()
        return self.module(*_to_device(inputs, self.src_device_obj), **_to_device(kwargs, self.src_device_obj))


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0, module_kwargs=None):
    """Evaluate module(input) in parallel across the devices given in device_ids (the functional
    DataParallel); like torch, it needs an accelerator."""
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    device_type = _available_device_type()
    if device_type is None:
        raise RuntimeError("device type could not be determined")
    if device_ids is None:
        device_ids = list(range(_accelerator.device_count()))
    device_ids = [_device_index(x) for x in device_ids]
    src = _device(device_type, device_ids[0])
    _check_on(module, src)
    if len(device_ids) != 1:
        _multi_device()
    return module(*_to_device(inputs, src), **_to_device(module_kwargs or {}, src))
