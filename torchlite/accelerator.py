"""torch.accelerator: the device-generic view of the machine's accelerator. torchlite's
accelerator is CUDA (through cupy) when a GPU is usable, and there is none otherwise, as for
torch on a CPU-only machine; the simulated "sim" devices are host memory and are not reported."""
from . import cuda as _cuda
from ._dtypes import device as _device

__all__ = ["current_accelerator", "current_device_index", "device_count", "is_available", "set_device_index",
           "synchronize"]

_NONE = "Cannot access accelerator device when none is available."


def _cuda_usable():
    return _cuda.is_available()


def is_available() -> bool:
    """Whether an accelerator (a usable CUDA device) is present."""
    return _cuda_usable()


def current_accelerator(check_available=False):
    """device("cuda") when CUDA is usable, else None (`check_available` changes nothing more:
    a present accelerator is also an available one here)."""
    return _device("cuda") if _cuda_usable() else None


def device_count() -> int:
    """The number of accelerator devices (0 without one)."""
    return _cuda.device_count() if _cuda_usable() else 0


def _require():
    if not _cuda_usable():
        raise RuntimeError(_NONE)
    return _cuda


def current_device_index() -> int:
    return _require().current_device()


def set_device_index(device) -> None:
    cuda = _require()
    cuda.set_device(device)


def synchronize(device=None) -> None:
    _require().synchronize(device)

