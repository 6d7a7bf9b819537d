"""torch.random (torch/random.py): the default CPU generator's seeding and state, and fork_rng.

The default generator is torch's CPU generator (torchlite/_generator.py): a seed set here gives
the numbers torch gives for it on the CPU, and a state from get_rng_state() loads into torch's
torch.set_rng_state() and the other way round. Simulated "sim" devices draw from it; cuda
tensors draw from cupy's generators, which manual_seed seeds as well."""
import contextlib

from . import _backend
from ._generator import Generator, _seed_value

__all__ = ["fork_rng", "get_rng_state", "initial_seed", "manual_seed", "seed", "set_rng_state"]

default_generator = Generator._wrap(_backend._default_generator)


def set_rng_state(new_state):
    """Sets the default CPU generator's state (a uint8 tensor of get_rng_state()'s layout)."""
    default_generator.set_state(new_state)


def get_rng_state():
    """The default CPU generator's state, a uint8 tensor in torch's 5,056-byte layout."""
    return default_generator.get_state()


def manual_seed(seed):
    """Seeds the default generator (and cupy's on every GPU); returns the default generator."""
    seed = int(seed)
    _backend.manual_seed(_seed_value(seed))
    return default_generator


def seed():
    """Seeds the default generator from a non-deterministic source; returns the seed."""
    s = default_generator.seed()
    _backend.manual_seed(s)
    return s


def initial_seed():
    """The seed the default generator was last seeded with."""
    return default_generator.initial_seed()


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type=None):
    """Restores the default CPU generator's state on exit (sim devices draw from it too). cuda
    generators are cupy's and are not forked."""
    if device_type == "meta" or not enabled:
        yield
        return
    cpu_rng_state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(cpu_rng_state)
