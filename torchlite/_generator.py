"""torch.Generator (torch/csrc/Generator.cpp) for the host devices: torch's own CPU generator,
a Mersenne Twister with the cached second Box-Muller sample, in C++ (`_C._CPUGenerator`,
csrc/aten/CPUGeneratorImpl.h). A seed gives the numbers torch gives, and get_state/set_state move
torch's 5,056-byte state (docs/design.md, "Random numbers"). The simulated "sim" devices, whose
memory is host memory, draw from it too; cuda tensors draw from cupy's generators
(torchlite/_backend.py)."""
import numpy as np

from . import _C, _dtypes
from ._dtypes import device as _device

_OVERFLOW = "Overflow when unpacking long long"


def _seed_value(seed, who="manual_seed"):
    """A seed as the uint64 torch keeps: negative values wrap (torch unpacks them as int64)."""
    if isinstance(seed, bool) or not hasattr(seed, "__index__"):
        raise RuntimeError(f"{who} expected a long, but got {type(seed).__name__}")
    seed = seed.__index__()
    if not -2 ** 63 <= seed < 2 ** 64:
        raise ValueError(_OVERFLOW)
    return seed % 2 ** 64


class Generator:
    """A generator for the host devices ("cpu", and the simulated "sim" devices)."""

    def __init__(self, device="cpu"):
        dev = _device(device)
        if dev.type == "cuda":
            raise RuntimeError("torchlite.Generator: cuda generators are not supported (cupy draws cuda numbers)")
        self._device = dev
        self._impl = _C._CPUGenerator()  # seeded with c10's default_rng_seed_val, as torch's

    @classmethod
    def _wrap(cls, impl, device="cpu"):
        gen = cls.__new__(cls)
        gen._device = _device(device)
        gen._impl = impl
        return gen

    @property
    def device(self):
        return self._device

    def manual_seed(self, seed):
        """Seeds the generator; returns it (torch.Generator.manual_seed)."""
        self._impl.set_current_seed(_seed_value(seed))
        return self

    def seed(self):
        """Seeds the generator from a non-deterministic source; returns the seed."""
        return self._impl.seed()

    def initial_seed(self):
        return self._impl.current_seed()

    def get_state(self):
        """The state as a uint8 tensor of torch's CPUGeneratorImplState layout (5,056 bytes)."""
        return _C._tensor_from_parts(self._impl.get_state(), False)  # from_numpy

    def set_state(self, new_state):
        """Sets the state from get_state()'s tensor (this library's or torch's); returns self."""
        if not isinstance(new_state, _C.TensorBase):
            raise TypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
        if new_state.dtype is not _dtypes.uint8 or new_state.device.type != "cpu":
            raise TypeError("RNG state must be a torch.ByteTensor")
        try:
            self._impl.set_state(new_state._array.reshape(-1))
        except ValueError as e:
            raise RuntimeError(str(e)) from None
        return self

    def get_offset(self):
        raise RuntimeError("CPU Generator does not use offset")

    def set_offset(self, offset):
        raise RuntimeError("CPU Generator does not use offset")

    def clone_state(self):
        """A new generator in this one's state."""
        gen = Generator(self._device)
        gen._impl.clone_state_from(self._impl)
        return gen

    def __reduce__(self):
        return (_restore, (str(self._device), self._impl.get_state().tobytes()))


def _restore(device, state):
    gen = Generator(device)
    gen._impl.set_state(np.frombuffer(state, dtype=np.uint8))
    return gen
