"""CUDA tensors without a GPU: the package imports without cupy, the three
error states of a cuda device (built without CUDA, cupy missing, no usable
GPU), the C++ side of cupy-backed tensors (__cuda_array_interface__ objects
become cuda tensors; no memory is read), torch's messages for numpy() and
mixed devices, and DLPack on the CPU. The GPU half is test_cuda_tensors.py."""
import os
import subprocess
import sys
import types

import numpy as np
import pytest
import torch as real_torch

import torchlite as torch
from torchlite import _C, _backend


def run_python(code):
    """`code` in a fresh interpreter importing the torchlite these tests import."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(torch.__file__)))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)


def test_import_does_not_import_cupy():
    code = ("import sys\n"
            "import torchlite as t\n"
            "x = t.ones(2, requires_grad=True); (x * 2).sum().backward()\n"
            "assert x.grad.tolist() == [2.0, 2.0]\n"
            "assert 'cupy' not in sys.modules, 'cupy imported'\n"
            "print('ok')\n")
    r = run_python(code)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"


def test_imports_and_runs_with_cupy_unimportable():
    code = ("import sys\n"
            "sys.modules['cupy'] = None  # import cupy raises ImportError\n"
            "import torchlite as t\n"
            "x = t.randn(3, requires_grad=True); (x.exp() * x).sum().backward()\n"
            "print(t.cuda.is_available(), t.cuda.device_count())\n")
    r = run_python(code)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "False 0"


# The three states ------------------------------------------------------------------

CUDA_FACTORIES = [
    lambda: torch.zeros(2, device="cuda"),
    lambda: torch.ones(2, 3, device="cuda:0"),
    lambda: torch.tensor([1.0, 2.0], device="cuda"),
    lambda: torch.randn(2, device="cuda"),
    lambda: torch.arange(3, device=torch.device("cuda")),
    lambda: torch.ones(2).cuda(),
    lambda: torch.ones(2).to("cuda"),
    lambda: torch.zeros_like(torch.ones(2), device="cuda"),
]


@pytest.fixture
def no_cuda_build(monkeypatch):
    for name in [n for n in dir(_C) if n.startswith("_cuda_")]:
        monkeypatch.delattr(_C, name)
    monkeypatch.setattr(torch.cuda, "_initialized", False)


@pytest.fixture
def cuda_build(monkeypatch):
    """A CUDA build as far as torchlite can tell (the runtime calls are the test's)."""
    monkeypatch.setattr(_C, "_cuda_getDeviceCount", lambda: 1, raising=False)
    monkeypatch.setattr(torch.cuda, "_initialized", False)
    monkeypatch.setattr(_backend, "cupy", None)
    monkeypatch.setattr(_backend, "array_types", (np.ndarray,))
    monkeypatch.setattr(_backend, "_seed", None)


@pytest.mark.parametrize("make", CUDA_FACTORIES)
def test_built_without_cuda(no_cuda_build, make):
    with pytest.raises(AssertionError, match="^Torch not compiled with CUDA enabled$"):
        make()


def test_built_without_cuda_matches_torch(no_cuda_build, monkeypatch):
    # The same error, type and words as torch built without CUDA: a CPU build (the main CI
    # interpreter's), or PyPI's CUDA build (the other Pythons') made to look like one where
    # torch.cuda._lazy_init looks, torch._C without _cuda_getDeviceCount
    monkeypatch.delattr(real_torch._C, "_cuda_getDeviceCount", raising=False)
    with pytest.raises(AssertionError) as theirs:
        real_torch.zeros(2, device="cuda")
    with pytest.raises(AssertionError) as ours:
        torch.zeros(2, device="cuda")
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("make", CUDA_FACTORIES)
def test_cupy_not_installed(cuda_build, monkeypatch, make):
    monkeypatch.setitem(sys.modules, "cupy", None)
    with pytest.raises(RuntimeError, match=r"cupy is not installed: pip install torchlite\[cuda\]$") as info:
        make()
    assert isinstance(info.value.__cause__, ImportError)
    assert _backend.cupy is None


NO_DRIVER = ("Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a "
             "driver from http://www.nvidia.com/Download/index.aspx")


@pytest.mark.parametrize("reason", [NO_DRIVER, "No CUDA GPUs are available",
                                    "CUDA error: CUDA driver version is insufficient for CUDA runtime version"])
@pytest.mark.parametrize("make", CUDA_FACTORIES)
def test_no_usable_gpu(cuda_build, monkeypatch, make, reason):
    fake_cupy = types.ModuleType("cupy")
    fake_cupy.ndarray = type("ndarray", (), {})
    monkeypatch.setitem(sys.modules, "cupy", fake_cupy)
    monkeypatch.setattr(_C, "_set_cuda_array_factory", lambda fn: None, raising=False)
    monkeypatch.setattr(_C, "_set_cuda_stream_hook", lambda fn: None, raising=False)

    def cuda_init():
        raise RuntimeError(reason)
    monkeypatch.setattr(_C, "_cuda_init", cuda_init, raising=False)
    with pytest.raises(RuntimeError) as info:
        make()
    assert str(info.value) == reason
    assert not torch.cuda.is_initialized()


@pytest.mark.skipif(not torch.cuda._is_compiled() or torch.cuda.is_available(),
                    reason="needs a CUDA build of torchlite on a machine without a usable GPU")
def test_no_usable_gpu_real_runtime_reason():
    # the CUDA runtime's own answer on this machine (no driver, or no device)
    import importlib.util
    if importlib.util.find_spec("cupy") is None:
        with pytest.raises(RuntimeError, match=r"pip install torchlite\[cuda\]"):
            torch.zeros(1, device="cuda")
    else:
        with pytest.raises(RuntimeError, match=r"^(Found no NVIDIA driver|No CUDA GPUs are available|CUDA error: )"):
            torch.zeros(1, device="cuda")


def test_cuda_to_a_non_cuda_device_is_torchs_error():
    with pytest.raises(RuntimeError, match="^Invalid device, must be cuda device$"):
        torch.ones(2).cuda("cpu")
    with pytest.raises(RuntimeError, match="^Invalid device, must be cuda device$"):
        real_torch.ones(2).cuda("cpu")


# C++ side of cupy-backed tensors, with a stand-in that only describes memory ----

class FakeCudaArray:
    """An object exposing __cuda_array_interface__ over host memory (never read
    as device memory here) and cupy's .device.id and .get()."""

    def __init__(self, host, device_id=0):
        self.host = host
        self.device = types.SimpleNamespace(id=device_id)
        self.shape, self.dtype, self.ndim, self.size = host.shape, host.dtype, host.ndim, host.size
        self.itemsize = host.itemsize
        self.strides = host.strides
        self.__cuda_array_interface__ = {
            "shape": host.shape, "typestr": host.dtype.str, "data": (host.ctypes.data, False),
            "strides": None if host.flags.c_contiguous else host.strides, "version": 3}

    def get(self):
        return self.host.copy()


def test_cuda_array_becomes_a_cuda_tensor():
    host = np.arange(6, dtype=np.float32).reshape(2, 3)
    arr = FakeCudaArray(host, device_id=1)
    t = _C._wrap(arr)
    assert str(t.device) == "cuda:1" and t.is_cuda
    assert t._array is arr
    assert t.stride() == (3, 1)
    assert t.dtype is torch.float32


def test_cuda_array_strides_come_from_the_interface():
    host = np.arange(12, dtype=np.float64).reshape(3, 4).T
    t = _C._wrap(FakeCudaArray(host))
    assert t.stride() == (1, 4) and t.dtype is torch.float64
    assert str(t.device) == "cuda:0"


def test_cuda_array_of_an_unsupported_dtype_is_a_type_error():
    with pytest.raises(TypeError, match="can't convert a CUDA array of type <u2"):
        _C._wrap(FakeCudaArray(np.zeros(2, np.uint16)))


def test_host_array_wrapped_like_a_cuda_tensor_stays_on_the_host():
    cuda_t = _C._wrap(FakeCudaArray(np.zeros(2, np.float32)))
    t = _C._wrap(np.ones(2, np.float32), cuda_t)
    assert str(t.device) == "cpu"


def test_numpy_of_a_cuda_tensor_is_torchs_type_error():
    t = _C._wrap(FakeCudaArray(np.zeros(2, np.float32)))
    with pytest.raises(TypeError) as info:
        t.numpy()
    assert str(info.value) == ("can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the "
                               "tensor to host memory first.")


def test_cuda_tensor_prints_its_device_and_lists_from_the_host():
    t = _C._wrap(FakeCudaArray(np.array([1.5, 2.0], np.float32)))
    assert repr(t) == "tensor([1.5000, 2.0000], device='cuda:0')"
    assert t.tolist() == [1.5, 2.0]


def test_cuda_tensor_exposes_its_array_interface():
    arr = FakeCudaArray(np.zeros(3, np.float32))
    t = _C._wrap(arr)
    assert t.__cuda_array_interface__ is arr.__cuda_array_interface__


def test_cpu_tensor_has_no_cuda_array_interface_as_torch():
    with pytest.raises(AttributeError) as ours:
        torch.ones(2).__cuda_array_interface__  # noqa: B018
    with pytest.raises(AttributeError) as theirs:
        real_torch.ones(2).__cuda_array_interface__  # noqa: B018
    assert str(ours.value) == str(theirs.value)


# Mixed devices ---------------------------------------------------------------------

def test_mixed_device_op_is_torchs_error(monkeypatch):
    fake_cupy = types.SimpleNamespace(ndarray=FakeCudaArray, asarray=None)
    monkeypatch.setattr(_backend, "cupy", fake_cupy)
    monkeypatch.setattr(_backend, "array_types", (np.ndarray, FakeCudaArray))
    g = _C._wrap(FakeCudaArray(np.ones(2, np.float32)))
    c = torch.ones(2)
    with pytest.raises(RuntimeError) as info:
        g + c
    assert str(info.value) == ("Expected all tensors to be on the same device, but found at least two devices, "
                               "cuda:0 and cpu!")
    with pytest.raises(RuntimeError, match="found at least two devices, cpu and cuda:0!$"):
        c * g
    g1 = _C._wrap(FakeCudaArray(np.ones(2, np.float32), device_id=1))
    with pytest.raises(RuntimeError, match="found at least two devices, cuda:0 and cuda:1!$"):
        g - g1
    m = _C._wrap(FakeCudaArray(np.ones((2, 2), np.float32)))
    with pytest.raises(RuntimeError, match="found at least two devices, cuda:0 and cpu!$"):
        m @ torch.ones(2, 2)
    with pytest.raises(RuntimeError, match="found at least two devices, cpu and cuda:0!$"):
        torch.ones(2, 2) @ m


# DLPack ------------------------------------------------------------------------------

def test_dlpack_round_trip_shares_memory_with_numpy():
    t = torch.arange(4.0)
    a = np.from_dlpack(t)
    t[0] = 7
    assert a.tolist() == [7.0, 1.0, 2.0, 3.0]
    src = np.arange(3.0)
    back = torch.from_dlpack(src)
    src[1] = 9
    assert back.tolist() == [0.0, 9.0, 2.0]
    assert t.__dlpack_device__() == (1, 0)


def test_from_dlpack_of_a_torch_tensor_shares_memory():
    src = real_torch.arange(3, dtype=real_torch.float64)
    t = torch.from_dlpack(src)
    src[2] = 5
    assert t.tolist() == [0.0, 1.0, 5.0] and t.dtype is torch.float64


def test_dlpack_of_a_tensor_requiring_grad_is_torchs_error():
    with pytest.raises(BufferError) as ours:
        torch.ones(2, requires_grad=True).__dlpack__()
    with pytest.raises(BufferError) as theirs:
        real_torch.ones(2, requires_grad=True).__dlpack__()
    assert str(ours.value) == str(theirs.value)


# cupy's current stream follows torchlite's ------------------------------------------

class FakeCupyCuda:
    """cupy.cuda's stream bookkeeping: a current stream per (thread-less) device."""

    def __init__(self):
        self.current = {}
        self.device = 0
        fake = self

        class Stream:
            def __init__(self, ptr):
                self.ptr = ptr

            def use(self):
                fake.current[fake.device] = self

            @classmethod
            def from_external(cls, obj):
                return cls(obj.__cuda_stream__()[1])
        Stream.null = Stream(0)
        self.Stream = Stream

        class Device:
            def __init__(self, index):
                self.index = index

            def __enter__(self):
                self.prev, fake.device = fake.device, self.index

            def __exit__(self, *args):
                fake.device = self.prev
        self.Device = Device

    def get_current_stream(self):
        return self.current.get(self.device, self.Stream.null)


def test_use_cupy_stream_switches_and_restores(monkeypatch):
    cuda = FakeCupyCuda()
    monkeypatch.setattr(_backend, "cupy", types.SimpleNamespace(cuda=cuda))
    monkeypatch.setattr(_backend, "_cupy_streams", {})
    restore = _backend.use_cupy_stream(0x1234, 1)
    assert cuda.current[1].ptr == 0x1234 and 0 not in cuda.current
    inner = _backend.use_cupy_stream(0x1234, 1)  # already current: nothing to restore
    inner()
    assert cuda.current[1].ptr == 0x1234
    restore()
    assert cuda.current[1].ptr == 0
    # one cupy stream object per torchlite stream
    _backend.use_cupy_stream(0x1234, 1)
    assert _backend._external_stream(0x1234, 1) is cuda.current[1]
