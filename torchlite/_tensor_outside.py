"""Tensor attributes ordinary programs reach for that torchlite lacked (found by running
pytorch/examples and karpathy's repositories under torchlite): the device-kind and storage-kind
properties (python_variable.cpp's getters: is_cpu, is_xpu, is_mps, ...), layout, get_device,
ndimension. Tensor (torchlite/_tensor.py) binds them."""
from . import _layout

# python_variable.cpp's THPVariable_is_<kind>: the device's type (a "sim" device is none of them)
_DEVICE_KINDS = ("cpu", "xpu", "mps", "meta", "xla", "ipu", "vulkan", "mtia", "maia")
# the storage kinds torchlite has none of (all its tensors are dense and strided)
_NEVER = ("is_sparse", "is_sparse_csr", "is_quantized", "is_mkldnn", "is_nested")


def _device_kind(kind):
    def getter(self):
        return self.device.type == kind
    getter.__name__ = f"is_{kind}"
    getter.__doc__ = f"Is True if the Tensor is stored on the {kind} device, False otherwise."
    return property(getter)


def _never(name):
    def getter(self):
        return False
    getter.__name__ = name
    getter.__doc__ = "False: torchlite's tensors are dense and strided."
    return property(getter)


PROPERTIES = {f"is_{k}": _device_kind(k) for k in _DEVICE_KINDS}
PROPERTIES.update({n: _never(n) for n in _NEVER})


def _layout_of(self):
    """The tensor's layout (torch.strided: torchlite's one layout)."""
    return _layout.strided


layout = property(_layout_of)


def get_device(self):
    """The device index of a tensor on an accelerator (cuda:N -> N), -1 for a CPU tensor
    (TensorBase::get_device; a "sim:N" tensor reports N, as a device tensor)."""
    d = self.device
    if d.type == "cpu":
        return -1
    return 0 if d.index is None else d.index


def ndimension(self):
    """Alias for Tensor.dim()."""
    return self.dim()
