"""Where tensor memory comes from.

Every array a tensor is created over is made here, chosen by device: numpy for
host memory ("cpu" and the simulated "sim:N" devices), cupy for "cuda:N"
(docs/design.md, "CUDA"). Ops compute with numpy functions and ufuncs, which
dispatch to cupy for cupy arrays (__array_ufunc__, __array_function__); what
creates an array from nothing asks this module for the module of a tensor's
device (`xp`), or creates it here (`new`).

cupy is imported only when the first cuda tensor is made, so torchlite
imports without cupy, a driver or a GPU. A cuda device fails, in this order,
as torch does without CUDA ("Torch not compiled with CUDA enabled"), without
cupy (pip install torchlite[cuda]), and without a usable GPU (torch's words,
with the CUDA runtime's reason).

torchlite.cuda owns CUDA's lazy initialisation and imports this module; this
module imports nothing from it, and reaches its _lazy_init through the hook
it registers (torch's C++ factories likewise call up into torch.cuda:
torch/csrc/utils/device_lazy_init.cpp).
"""
import contextlib
from typing import Any

import numpy as np

from . import _C
from ._dtypes import device as _device

# torch's default CPU generator (csrc/aten/CPUGeneratorImpl.h), seeded non-deterministically as
# torch's (getDefaultCPUGenerator); cpu and sim tensors draw from it (torchlite/_random.py).
_default_generator = _C._CPUGenerator(_C._CPUGenerator().seed())
_seed = None
_cupy_seeded = False  # whether cupy's generators were seeded with _seed (done once CUDA is initialised)

# The cupy module once loaded, and the array types a tensor can be over.
cupy: Any = None
array_types = (np.ndarray,)

CUPY_MISSING = ("torchlite's CUDA tensors are cupy arrays, and cupy is not installed: "
                "pip install torchlite[cuda]")


_cuda_lazy_init = None


def _set_cuda_lazy_init(fn):
    """Registers torchlite.cuda._lazy_init, which check_device calls."""
    global _cuda_lazy_init
    _cuda_lazy_init = fn


def _cuda_is_compiled():
    """Whether torchlite was built with CUDA support."""
    return hasattr(_C, "_cuda_getDeviceCount")


def _import_cupy():
    """cupy, imported on first use (a cuda tensor). Without it, a RuntimeError as
    for torch's other "no usable CUDA" states, so code catching those catches it."""
    try:
        import cupy as cp  # optional: torchlite imports and runs on the CPU without it
    except ImportError as e:
        raise RuntimeError(CUPY_MISSING) from e
    return cp


def _load_cupy(cp):
    """Makes `cp` the module of cuda arrays, once CUDA is initialised."""
    global cupy, array_types
    cupy = cp
    array_types = (np.ndarray, cp.ndarray)
    _C._set_cuda_array_factory(_cuda_array_from_parts)
    _C._set_cuda_stream_hook(use_cupy_stream)
    # a torchlite.cuda.stream(...) entered before cupy was loaded
    index = _C._cuda_getDevice()
    use_cupy_stream(_C._cuda_getCurrentStream(index)[0], index)


def _cuda_array_from_parts(ptr, nbytes, offset, shape, strides, dtype, device_index, owner):
    """A cupy array over C++ device memory (Note [CUDA arrays] in python_variable.cpp);
    `owner` keeps the memory alive as long as the array."""
    mem = cupy.cuda.UnownedMemory(ptr, nbytes, owner, device_index)
    return cupy.ndarray(shape, dtype, cupy.cuda.MemoryPointer(mem, offset), strides)


def use_cupy_stream(stream_id, device_index):
    """Makes the CUDA stream `stream_id` cupy's current stream on device_index for
    the calling thread; returns a callable that restores the previous one (the
    current stream of torchlite and cupy is one stream: docs/design.md, "CUDA")."""
    with cupy.cuda.Device(device_index):
        prev = cupy.cuda.get_current_stream()
        if prev.ptr == stream_id:
            return _no_restore
        _external_stream(stream_id, device_index).use()

    def restore():
        with cupy.cuda.Device(device_index):
            prev.use()
    return restore


def _no_restore():
    pass


class _StreamHandle:
    """A raw cudaStream_t under the CUDA stream protocol (what cupy wraps)."""

    def __init__(self, ptr):
        self.ptr = ptr

    def __cuda_stream__(self):
        return (0, self.ptr)


# (stream_id, device_index) -> cupy stream object; torchlite's streams live forever
_cupy_streams: dict[tuple[int, int], Any] = {}


def _external_stream(stream_id, device_index):
    """A cupy stream object for torchlite's stream `stream_id` (0: the legacy default
    stream), made once per stream; called with device_index current."""
    if stream_id == 0:
        return cupy.cuda.Stream.null
    key = (stream_id, device_index)
    stream = _cupy_streams.get(key)
    if stream is None:
        if hasattr(cupy.cuda.Stream, "from_external"):
            stream = cupy.cuda.Stream.from_external(_StreamHandle(stream_id))
        else:
            stream = cupy.cuda.ExternalStream(stream_id, device_index)
        stream = _cupy_streams.setdefault(key, stream)
    return stream


def check_device(dev):
    """The device, validated (a cuda device gets its index: "cuda" is the current device)."""
    dev = _device(dev) if dev is not None else _device("cpu")
    if dev.type != "cuda":
        return dev
    if not _cuda_is_compiled():
        raise AssertionError("Torch not compiled with CUDA enabled")
    if cupy is None:
        cp = _import_cupy()
        _cuda_lazy_init()
        _load_cupy(cp)
    if _seed is not None and not _cupy_seeded:
        _seed_cupy(_seed)
    index = _C._cuda_getDevice() if dev.index is None else dev.index
    if not 0 <= index < _C._cuda_getDeviceCount():
        raise RuntimeError("CUDA error: invalid device ordinal")
    return _device("cuda", index)


def is_cuda_array(a):
    return cupy is not None and isinstance(a, cupy.ndarray)


def xp(a):
    """The array module of an array or a tensor: cupy for cuda memory, else numpy."""
    if not isinstance(a, array_types):
        a = a._array
    return cupy if is_cuda_array(a) else np


def xp_of(*values):
    """cupy when any of `values` is a cupy array, else numpy."""
    return cupy if any(is_cuda_array(v) for v in values) else np


def asarray(a, dtype=None, order=None, like=None):
    """np.asarray that keeps a cupy array (an op's result) on its device; with
    `like` (a tensor), on like's device."""
    if is_cuda_array(a):
        return cupy.asarray(a, dtype, order=order)
    a = np.asarray(a, dtype, order=order)
    if like is not None and is_cuda_array(like._array):
        with like._array.device:
            return cupy.asarray(a)
    return a


def ascontiguousarray(a):
    return xp(a).ascontiguousarray(a)


def as_strided(a, shape, strides):
    """numpy's (or cupy's) as_strided: a view of a's memory from its first element. A contiguous
    numpy array takes ndarray's constructor over its buffer, the same view at an eighth of the cost
    (as_strided makes an object with an __array_interface__ and converts that)."""
    if type(a) is np.ndarray and (a.flags.c_contiguous or a.flags.f_contiguous):
        try:
            return np.ndarray(shape, a.dtype, a, 0, strides)
        except ValueError:  # a view reaching beyond a's own elements, into its base's memory
            pass
    return xp(a).lib.stride_tricks.as_strided(a, shape, strides)


@contextlib.contextmanager
def _on(dev):
    with cupy.cuda.Device(dev.index):
        yield


def new(device, fn, *args, **kwargs):
    """`fn` ("zeros", "empty", "full", "arange", ...) of the module of `device`
    (a device, a tensor or an array: its device), made on that device."""
    if device is None:
        return getattr(np, fn)(*args, **kwargs)
    if isinstance(device, array_types) or hasattr(device, "_array"):
        arr = device if isinstance(device, array_types) else device._array
        if not is_cuda_array(arr):
            return getattr(np, fn)(*args, **kwargs)
        with arr.device:
            return getattr(cupy, fn)(*args, **kwargs)
    dev = check_device(device)
    if dev.type != "cuda":
        return getattr(np, fn)(*args, **kwargs)
    with _on(dev):
        return getattr(cupy, fn)(*args, **kwargs)


def empty_on(shape, dtype, like):
    """An uninitialised cupy array on the device of the cupy array `like` (an op's out= buffer)."""
    with like.device:
        return cupy.empty(shape, dtype)


def to_host(a):
    """A numpy array with `a`'s values (a copy from the device for a cupy array)."""
    return a if isinstance(a, np.ndarray) else a.get()


def to_device_array(a, dev):
    """The array `a` (numpy or cupy) as an array on `dev`: cupy on "cuda:N"
    (copied on the current stream), numpy elsewhere."""
    if dev.type == "cuda":
        if is_cuda_array(a) and a.device.id == dev.index:
            return a
        if is_cuda_array(a):
            _wait_for_source_stream(a.device.id, dev.index)
        with _on(dev):
            return cupy.array(a, copy=True)
    return to_host(a)


def _wait_for_source_stream(src, dst):
    """Note [Cross-device copies] (csrc/aten/Functions.cpp), for a copy cupy makes
    on the destination's current stream: an event recorded on the source's current
    stream, waited for by the destination's (torchlite.cuda.Stream.wait_stream)."""
    event = _C._CudaEventBase(False, False)
    event._record(_C._cuda_getCurrentStream(src)[0], src)
    event._wait(_C._cuda_getCurrentStream(dst)[0], dst)


def place(tensor, dev):
    """`tensor` moved to `dev` (a copy; the same tensor when already there)."""
    src = tensor.device
    if src.type == "cuda" or dev.type == "cuda":
        if src == dev:
            return tensor
        tensor = _C._wrap(to_device_array(tensor._array, dev))  # on the host unless dev is cuda
    if dev.type in ("cpu", "cuda"):
        return tensor
    return _C._to_device(tensor, str(dev) if dev.index is not None else dev.type + ":0")


def check_same_device(a, b, scalars=True):
    """torch's error for an op over two arrays on different devices (TensorIterator's
    wording). With `scalars`, a 0-dim host array next to a cuda one is a CPU
    scalar, which torch's elementwise ops allow: it comes back as a device array."""
    if is_cuda_array(a) == is_cuda_array(b) and (not is_cuda_array(a) or a.device.id == b.device.id):
        return a, b
    if scalars and not is_cuda_array(b) and b.ndim == 0:
        with a.device:
            return a, cupy.asarray(b)
    if scalars and not is_cuda_array(a) and a.ndim == 0:
        with b.device:
            return cupy.asarray(a), b

    def name(x):
        return f"cuda:{x.device.id}" if is_cuda_array(x) else "cpu"
    raise RuntimeError("Expected all tensors to be on the same device, but found at least two devices, "
                       f"{name(a)} and {name(b)}!")


def _seed_cupy(seed):
    global _cupy_seeded
    for index in range(cupy.cuda.runtime.getDeviceCount()):
        with cupy.cuda.Device(index):
            cupy.random.seed(seed)
    _cupy_seeded = True


def manual_seed(seed):
    """Seeds torch's CPU generator (cpu, sim: the numbers torch gives) and cupy's on every GPU
    (cuda: torch's Philox streams are not reproduced, so cuda random numbers differ from torch's).
    `seed` is the uint64 torch keeps (torchlite._generator._seed_value)."""
    global _seed, _cupy_seeded
    _seed = int(seed)
    _default_generator.set_current_seed(_seed)
    _cupy_seeded = False
    if cupy is not None:  # loaded once CUDA is initialised
        _seed_cupy(_seed)


def generator():
    return _default_generator


def random(device, kind, shape):
    """Floats from a cuda device's generator (cupy's): kind "normal" or "uniform" ([0, 1)). Host
    devices draw from torch's generator (torchlite/_random.py)."""
    dev = check_device(device)
    with _on(dev):
        return cupy.random.standard_normal(shape) if kind == "normal" else cupy.random.random_sample(shape)
