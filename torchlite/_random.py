"""Draws from torch's CPU generator into numpy arrays (docs/design.md, "Random numbers").

torchlite's host tensors ("cpu", and the simulated "sim" devices) take their random numbers from
torch's own generator and kernels, written in C++ (csrc/aten/CPUGeneratorImpl.h,
csrc/aten/native/cpu/DistributionKernels.h, bound as `_C._random`): for the same seed, shape and
dtype they are the numbers torch gives on the CPU, bit for bit. Each kernel fills a C-contiguous
buffer in one call; `fill` lays that buffer into a strided array in the order torch's
TensorIterator visits a single output (memory order: the largest stride outermost).

Which of torch's kernel builds to reproduce is chosen as torch chooses it (ATen's DispatchStub):
ATEN_CPU_CAPABILITY when set, else the best this CPU has. On x86-64 with AVX2 and FMA that is
torch's AVX2 float normal kernel (its AVX512 build registers none) and fused multiply-adds in the
scalar transforms; "default" (or a CPU without them) gives the DEFAULT build's numbers."""
import os
import platform

import numpy as np

from . import _C, _backend
from ._generator import Generator

DEFAULT, AVX2, AVX512 = 0, 1, 2


def _cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def _capability():
    """ATen's CPU capability (aten/src/ATen/native/DispatchStub.cpp): the environment's choice,
    capped at what the CPU supports."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return DEFAULT
    flags = _cpu_flags()
    best = DEFAULT
    if {"avx2", "fma"} <= flags:
        best = AVX2
        if {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= flags:
            best = AVX512
    wanted = os.environ.get("ATEN_CPU_CAPABILITY", "").lower()
    chosen = {"default": DEFAULT, "avx2": AVX2, "avx512": AVX512}.get(wanted, best)
    return min(chosen, best)


CAPABILITY = _capability()


def default_impl():
    """The default CPU generator's C++ object."""
    return _backend._default_generator


def impl_of(fn, generator, dev):
    """The C++ generator to draw from for device `dev`: `generator`'s, else the default one; None
    for a cuda device without a generator (cupy's)."""
    if generator is not None and not isinstance(generator, Generator):
        raise TypeError(f"{fn}(): argument 'generator' must be torch.Generator, not {type(generator).__name__}")
    if dev is not None and dev.type == "cuda":
        if generator is not None:
            raise RuntimeError(f"Expected a 'cuda' device type for generator but found '{generator.device.type}'")
        return None
    return generator._impl if generator is not None else default_impl()


def _iteration_view(a):
    """`a` with its axes in TensorIterator's order for a lone output (largest stride first)."""
    perm = sorted(range(a.ndim), key=lambda d: -abs(a.strides[d]) if a.shape[d] > 1 else 0)
    return a.transpose(perm)


def fill(kernel, impl, a, *args):
    """Runs `_C._random.<kernel>(impl, buffer, *args)` for the elements of host array `a`, in
    place; a non-contiguous `a` is drawn into a buffer then scattered in iteration order."""
    if a.size == 0:  # CHECK_EMPTY_AND_RETURN: nothing drawn
        return a
    fn = getattr(_C._random, kernel)
    if a.flags.c_contiguous and a.flags.writeable:
        fn(impl, a, *args)
        return a
    view = _iteration_view(a)
    buf = np.empty(view.shape, a.dtype)
    fn(impl, buf, *args)
    view[...] = buf
    return a


def normal_(impl, a, mean, std):
    """normal_kernel: normal_fill for a contiguous array of 16 or more elements, else per element."""
    if a.size == 0:
        return a
    contiguous = bool(a.flags.c_contiguous)
    if contiguous and a.flags.writeable:
        _C._random.normal(impl, a, True, float(mean), float(std), CAPABILITY)
        return a
    view = _iteration_view(a)
    buf = np.empty(view.shape, a.dtype)
    _C._random.normal(impl, buf, contiguous, float(mean), float(std), CAPABILITY)
    view[...] = buf
    return a


def uniform_(impl, a, low, high):
    return fill("uniform", impl, a, float(low), float(high), CAPABILITY)


def random_from_to_(impl, a, low, high):
    """random_(from, to) over [low, high) (high None: random_full_64_bits_range, from = -2**63)."""
    if high is None:
        return fill("random_full_64_bits_range", impl, a)
    return fill("random_from_to", impl, a, (int(high) - int(low)) % 2 ** 64, int(low))


def random_(impl, a):
    return fill("random", impl, a)


def randperm(impl, n, np_dtype):
    out = np.empty(n, np_dtype)
    if n:
        _C._random.randperm(impl, out)
    return out
