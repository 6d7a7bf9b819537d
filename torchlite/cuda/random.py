"""torch.cuda.random's seeding (torch/cuda/random.py). torchlite's CUDA random numbers are cupy's
(torchlite/_backend.py), so these seed cupy's generators; as torch's, they are safe to call
without CUDA, and then do nothing (torch queues them lazily and a CPU build never runs them)."""
import random as _random

from .. import _backend

__all__ = ["manual_seed", "manual_seed_all", "seed", "seed_all"]


def _seed_gpus(seed):
    if not _backend._cuda_is_compiled():
        return
    if _backend.cupy is None:
        # not initialised yet: the GPUs are seeded with it when CUDA starts (_backend._on)
        _backend._seed = seed
        _backend._cupy_seeded = False
    else:
        _backend._seed_cupy(seed)


def manual_seed(seed) -> None:
    """Sets the seed for generating random numbers on the GPUs (cupy's generator has no
    per-device seeding torchlite keeps apart, so all of them, as manual_seed_all)."""
    _seed_gpus(int(seed))


def manual_seed_all(seed) -> None:
    """Sets the seed for generating random numbers on all GPUs; silently ignored without CUDA."""
    _seed_gpus(int(seed))


def seed() -> None:
    """Seeds the GPUs' generators with a random number; ignored without CUDA."""
    seed_all()


def seed_all() -> None:
    """Seeds every GPU's generator with a random number; ignored without CUDA."""
    if _backend._cuda_is_compiled():
        _seed_gpus(_random.getrandbits(63))
