"""torchlite.cuda (torch/cuda/__init__.py, streams.py): device queries,
streams and events over the C++ CUDA guard impl (csrc/cuda/Module.cpp).

Queries never fail: without CUDA support compiled in, or without a GPU,
is_available() is False and device_count() 0. Everything that needs a device
goes through _lazy_init(), which raises torch's errors: "Torch not compiled
with CUDA enabled", or the CUDA runtime's reason there is no usable device.

The current stream is shared with cupy: making a stream current here (set_stream,
the stream(...) context) makes it cupy's current stream on that device too, so
cupy code and torchlite ops mix in one stream order. Blocking calls
(synchronize, Stream.synchronize, Event.synchronize, Event.elapsed_time)
release the GIL while they wait.
"""
from __future__ import annotations

import threading
from typing import Any

from .. import _C, _backend
from .._dtypes import device as _device

__all__ = ["is_available", "device_count", "current_device", "set_device", "device", "device_of",
           "current_stream", "default_stream", "set_stream", "synchronize", "stream", "Stream",
           "StreamContext", "Event"]

_initialized = False
_initialization_lock = threading.Lock()


_is_compiled = _backend._cuda_is_compiled  # torch.cuda._is_compiled


def is_available() -> bool:
    """Whether CUDA is usable: compiled in and at least one GPU present."""
    if not _is_compiled():
        return False
    return _C._cuda_getDeviceCount() > 0


def device_count() -> int:
    """The number of GPUs; 0 when none is usable."""
    if not _is_compiled():
        return 0
    return _C._cuda_getDeviceCount()


def is_initialized() -> bool:
    return _initialized


def _lazy_init():
    global _initialized
    if _initialized:
        return
    with _initialization_lock:
        if _initialized:
            return
        if not _is_compiled():
            raise AssertionError("Torch not compiled with CUDA enabled")
        _C._cuda_init()
        _initialized = True


# the factories of cuda tensors initialise CUDA through torchlite._backend
_backend._set_cuda_lazy_init(_lazy_init)


def _device_index(device, optional=True):
    """The CUDA device index of `device` (an int, "cuda:N", a torchlite.device or None)."""
    if device is None:
        if not optional:
            raise ValueError("Expected a cuda device, but got: None")
        return current_device()
    if isinstance(device, int):
        return device
    dev = _device(device) if isinstance(device, str) else device
    if dev.type != "cuda":
        raise ValueError(f"Expected a cuda device, but got: {dev}")
    return dev.index if dev.index is not None else current_device()


def current_device() -> int:
    _lazy_init()
    return _C._cuda_getDevice()


def set_device(device: Any) -> None:
    """Sets the current device (a negative index does nothing, as in torch)."""
    index = _device_index(device)
    if index >= 0:
        _lazy_init()
        _C._cuda_setDevice(index)
        _sync_cupy_device(index)


def _sync_cupy_device(index):
    if _backend.cupy is not None:
        _backend.cupy.cuda.Device(index).use()


class device:
    """Context manager that changes the current device (None or a negative index: no change)."""

    def __init__(self, device):
        self.idx = _device_index(device, optional=True) if device is not None else -1
        self.prev_idx = -1

    def __enter__(self):
        if self.idx < 0:
            return
        _lazy_init()
        self.prev_idx = _C._cuda_exchangeDevice(self.idx)
        _sync_cupy_device(self.idx)

    def __exit__(self, *args):
        if self.idx < 0:
            return
        _C._cuda_exchangeDevice(self.prev_idx)
        _sync_cupy_device(self.prev_idx)
        return False


class device_of(device):
    """The device context of a tensor's device (no change for a cpu tensor)."""

    def __init__(self, obj):
        super().__init__(obj.device.index if obj.is_cuda else -1)


def synchronize(device: Any = None) -> None:
    """Waits for all work on all streams of a CUDA device to complete."""
    _lazy_init()
    _C._cuda_synchronize(_device_index(device))


class Stream:
    """A CUDA stream: a queue of device work, taken from the stream pool.
    `stream_id`/`device_index`/`device_type` wrap an existing stream instead."""

    def __init__(self, device=None, priority=0, **kwargs):
        _lazy_init()
        if "stream_id" in kwargs and "device_index" in kwargs:
            self.stream_id = kwargs["stream_id"]
            self.device_index = kwargs["device_index"]
            self.device_type = kwargs.get("device_type", 1)
        else:
            self.stream_id, self.device_index, self.device_type = _C._cuda_getStreamFromPool(
                _device_index(device), priority)

    @classmethod
    def _from_triple(cls, triple):
        stream_id, device_index, device_type = triple
        return cls(stream_id=stream_id, device_index=device_index, device_type=device_type)

    @property
    def device(self):
        return _device(f"cuda:{self.device_index}")

    @property
    def cuda_stream(self):
        # stream ids are the cudaStream_t values themselves
        return self.stream_id

    def __cuda_stream__(self):
        """The CUDA stream protocol (cupy.cuda.Stream.from_external reads it)."""
        return (0, self.cuda_stream)

    def wait_event(self, event):
        """Makes all future work submitted to this stream wait for `event`."""
        event.wait(self)

    def wait_stream(self, stream):
        """Synchronizes with another stream: work queued here after this call
        waits for all work queued on `stream` so far."""
        self.wait_event(stream.record_event())

    def record_event(self, event=None):
        if event is None:
            event = Event()
        event.record(self)
        return event

    def query(self):
        """Whether all work submitted to this stream has completed."""
        return _C._cuda_streamQuery(self.stream_id, self.device_index)

    def synchronize(self):
        """Waits for all work on this stream to complete."""
        _C._cuda_streamSynchronize(self.stream_id, self.device_index)

    def __eq__(self, o):
        if isinstance(o, Stream):
            return self.stream_id == o.stream_id and self.device_index == o.device_index
        return False

    def __hash__(self):
        return hash((self.stream_id, self.device_index))

    def __repr__(self):
        return f"<torchlite.cuda.Stream device={self.device} cuda_stream={self.cuda_stream:#x}>"


def current_stream(device: Any = None) -> Stream:
    """The calling thread's current stream on `device`."""
    _lazy_init()
    return Stream._from_triple(_C._cuda_getCurrentStream(_device_index(device)))


def default_stream(device: Any = None) -> Stream:
    _lazy_init()
    return Stream._from_triple(_C._cuda_getDefaultStream(_device_index(device)))


def set_stream(stream: Stream | None) -> None:
    """Makes `stream` the calling thread's current stream on its device, for
    torchlite's kernels and for cupy's."""
    if stream is None:
        return
    _lazy_init()
    _C._cuda_setStream(stream.stream_id, stream.device_index, stream.device_type)
    if _backend.cupy is not None:
        _backend.use_cupy_stream(stream.stream_id, stream.device_index)


class StreamContext:
    """Runs the enclosed code with `stream` current (None: does nothing)."""

    def __init__(self, stream):
        self.stream = stream
        self.prev_stream = None

    def __enter__(self):
        if self.stream is None:
            return
        self.prev_stream = current_stream(self.stream.device_index)
        set_stream(self.stream)

    def __exit__(self, *args):
        if self.stream is None:
            return
        set_stream(self.prev_stream)


def stream(stream: Stream | None) -> StreamContext:
    """Context manager that selects a given stream."""
    return StreamContext(stream)


class Event:
    """A CUDA event: a point in a stream's work that others can wait for.
    Created on the device when first recorded. Interprocess events are not
    supported."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        _lazy_init()
        if interprocess:
            raise ValueError("torchlite.cuda.Event does not support interprocess=True")
        self._event = _C._CudaEventBase(enable_timing, blocking)

    def record(self, stream=None):
        """Records the event on `stream` (default: the current stream)."""
        if stream is None:
            stream = current_stream()
        self._event._record(stream.stream_id, stream.device_index)

    def wait(self, stream=None):
        """Makes all future work submitted to `stream` wait for this event."""
        if stream is None:
            stream = current_stream()
        self._event._wait(stream.stream_id, stream.device_index)

    def query(self):
        """Whether all work captured by the event has completed."""
        return self._event.query()

    def synchronize(self):
        """Waits for the work captured by the event to complete."""
        self._event.synchronize()

    def elapsed_time(self, end_event):
        """Milliseconds from this event's record to end_event's (both made with enable_timing=True)."""
        return self._event.elapsed_time(end_event._event)

    @property
    def cuda_event(self):
        return self._event.cuda_event

    def __repr__(self):
        if self.cuda_event:
            return f"<torchlite.cuda.Event {self.cuda_event:#x}>"
        return "<torchlite.cuda.Event uninitialized>"


# outside programs (s21): the seeding and memory calls ordinary programs make
from .memory import empty_cache, memory_allocated, memory_reserved  # noqa: E402
from .random import manual_seed, manual_seed_all, seed, seed_all  # noqa: E402


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """Whether the current GPU supports bfloat16 (False without a usable GPU, as torch's)."""
    if not is_available():
        return False
    major = int(_backend.cupy.cuda.Device().compute_capability) // 10
    return major >= 8 or including_emulation


__all__ += ["empty_cache", "is_bf16_supported", "manual_seed", "manual_seed_all", "memory_allocated",
            "memory_reserved", "seed", "seed_all"]
