"""Where tensor memory comes from.

Every array a tensor is created over is made here, chosen by device: numpy for
host memory ("cpu" and the simulated "sim:N" devices). CUDA tensors (cupy
arrays) plug in at this one place; until then "cuda" fails as torch does
without CUDA. Ops compute with numpy ufuncs, which cupy arrays also accept.
"""
import numpy as np

from . import _C
from ._dtypes import device as _device

_default_generator = np.random.default_rng()


def check_device(dev):
    """The device, validated: host-memory devices only (for now)."""
    dev = _device(dev) if dev is not None else _device("cpu")
    if dev.type == "cuda":
        raise AssertionError("Torch not compiled with CUDA enabled")
    return dev


def place(tensor, dev):
    """`tensor` (made on the CPU) moved to `dev`."""
    if dev.type == "cpu":
        return tensor
    return _C._to_device(tensor, str(dev) if dev.index is not None else dev.type + ":0")


def manual_seed(seed):
    global _default_generator
    _default_generator = np.random.default_rng(int(seed))


def generator():
    return _default_generator
