"""torch.accelerator: the device-generic view of the machine's accelerator. torchlite's
accelerator is CUDA (through cupy) in a build with CUDA, as torch's CUDA build reports it (with no
GPU usable it is not available, and the calls that need one raise torch.cuda's errors); a build
without CUDA has none, as torch's CPU build. The simulated "sim" devices are host memory and are
not reported."""
from . import cuda as _cuda
from ._dtypes import device as _device

__all__ = ["current_accelerator", "current_device_index", "device_count", "is_available", "set_device_index",
           "synchronize"]

_NONE = "Cannot access accelerator device when none is available."


def is_available() -> bool:
    """Whether an accelerator (a usable CUDA device) is present."""
    return _cuda.is_available()


def current_accelerator(check_available=False):
    """The accelerator torchlite was built for, device("cuda"), as torch reports its build's
    (None for a build without CUDA; with `check_available`, None too when no GPU is usable)."""
    if not _cuda._is_compiled() or (check_available and not _cuda.is_available()):
        return None
    return _device("cuda")


def device_count() -> int:
    """The number of accelerator devices (0 without one)."""
    return _cuda.device_count()


def _require():
    """torch.cuda, for a build with CUDA (whose calls raise torch's errors without a GPU)."""
    if not _cuda._is_compiled():
        raise RuntimeError(_NONE)
    return _cuda


def current_device_index() -> int:
    return _require().current_device()


def set_device_index(device) -> None:
    cuda = _require()
    cuda.set_device(device)


def synchronize(device=None) -> None:
    _require().synchronize(device)
