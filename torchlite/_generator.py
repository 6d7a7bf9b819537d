"""torch.Generator (torch/csrc/Generator.cpp): a pseudo-random number generator object that the
random factories take as `generator=`. torchlite's is numpy's PCG64 (np.random.Generator): it
draws different numbers from torch's Mersenne Twister, with the same seeding interface."""
import numpy as np

from ._dtypes import device as _device


class Generator:
    """A generator for the host devices ("cpu", and the simulated "sim" devices, whose memory is
    host memory)."""

    def __init__(self, device="cpu"):
        dev = _device(device)
        if dev.type == "cuda":
            raise RuntimeError("torchlite.Generator: cuda generators are not supported (cupy draws cuda numbers)")
        self._device = dev
        self._seed = int(np.random.SeedSequence().entropy) % (2 ** 64)
        self._rng = np.random.default_rng(self._seed)

    @property
    def device(self):
        return self._device

    def manual_seed(self, seed):
        """Seeds the generator; returns it (torch.Generator.manual_seed)."""
        seed = int(seed)
        if not -2 ** 63 <= seed < 2 ** 64:
            raise RuntimeError("Overflow when unpacking long long")
        self._seed = seed % (2 ** 64)
        self._rng = np.random.default_rng(self._seed)
        return self

    def seed(self):
        """Seeds the generator from a non-deterministic source; returns the seed."""
        self._seed = int(np.random.SeedSequence().entropy) % (2 ** 64)
        self._rng = np.random.default_rng(self._seed)
        return self._seed

    def initial_seed(self):
        return self._seed
