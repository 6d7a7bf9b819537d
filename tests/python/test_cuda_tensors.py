"""cupy-backed cuda tensors on a real GPU (every test is marked `cuda`; without
a GPU and cupy they skip with the reason, see conftest.py). Issue 7's GPU
list: cuda gradients equal cpu gradients for every op of test_diff_ops.py's
tables (float64 to 1e-12 relative, float32 to 1e-5 relative and 1e-6
absolute), a mixed cpu/gpu graph, backward from a side stream, a race
between two streams that a missing event wait turns into a wrong gradient,
x.grad read right after backward on the caller's stream, reentrant backward
and checkpoint, routing across cuda and simulated devices (and two GPUs when
there are two), and 1000 training steps with flat GPU memory."""
import threading
import time

import numpy as np
import pytest

import torchlite as torch
from test_diff_ops import BINARY, BROADCAST, INDEXING, MATMUL, REDUCTIONS, SHAPE_OPS, UNARY

pytestmark = pytest.mark.cuda

TOL = {np.float64: dict(rtol=1e-12, atol=0), np.float32: dict(rtol=1e-5, atol=1e-6)}


@pytest.fixture(scope="module")
def cp():
    import cupy
    return cupy


def spin_kernel(cp):
    """out = src after ~`cycles` GPU clock cycles of busy waiting (a slow producer)."""
    return cp.RawKernel(r"""
    extern "C" __global__ void spin_copy(const double* src, double* out, long long n, long long cycles) {
        long long start = clock64();
        while (clock64() - start < cycles) { }
        long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
        if (i < n) out[i] = src[i];
    }""", "spin_copy")


class SlowIdentity(torch.autograd.Function):
    """Identity whose backward copies the gradient only after a long kernel."""
    cycles = 200_000_000

    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, g):
        import cupy
        src = cupy.ascontiguousarray(g.detach()._array)
        out = cupy.empty_like(src)
        spin_kernel(cupy)((int((src.size + 255) // 256),), (256,), (src, out, np.int64(src.size),
                                                                    np.int64(SlowIdentity.cycles)))
        return torch.as_tensor(out)


class OnDevice:
    """The torchlite module with the factories made on `device` (the tables'
    constants, e.g. m.ones(...), then live on the device as the inputs do)."""
    FACTORIES = {"tensor", "ones", "zeros", "empty", "full", "arange", "rand", "randn"}

    def __init__(self, device):
        self.device = device

    def __getattr__(self, name):
        fn = getattr(torch, name)
        if name in self.FACTORIES:
            return lambda *a, **k: fn(*a, **{"device": self.device, **k})
        return fn


def run(fn, arrays, gout, device):
    m = OnDevice(device)
    leaves = [torch.tensor(a, device=device, requires_grad=True) for a in arrays]
    out = fn(m, *leaves)
    out.backward(torch.tensor(gout.astype(arrays[0].dtype), device=device))
    return out.detach().cpu().numpy(), [x.grad.cpu().numpy() if x.grad is not None else None for x in leaves]


def compare_devices(fn, shapes, dtype, domain="normal", seed=0):
    rng = np.random.default_rng(seed)
    if domain == "pos":
        arrays = [rng.uniform(0.5, 2.0, size=s).astype(dtype) for s in shapes]
    else:
        arrays = [rng.normal(size=s).astype(dtype) for s in shapes]
    probe = fn(OnDevice("cpu"), *[torch.tensor(a) for a in arrays])
    gout = rng.normal(size=tuple(probe.shape))
    out_cpu, grads_cpu = run(fn, arrays, gout, "cpu")
    out_gpu, grads_gpu = run(fn, arrays, gout, "cuda")
    np.testing.assert_allclose(out_gpu, out_cpu, **TOL[dtype])
    for gg, gc in zip(grads_gpu, grads_cpu, strict=True):
        assert (gg is None) == (gc is None)
        if gc is not None:
            np.testing.assert_allclose(gg, gc, **TOL[dtype])


DTYPES = [np.float32, np.float64]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", BROADCAST, ids=str)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_grads_match_cpu(name, shapes, dtype):
    compare_devices(BINARY[name], shapes, dtype, domain="pos" if name.startswith("div") else "normal")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (5,), (2, 3)], ids=str)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_grads_match_cpu(name, shape, dtype):
    fn, domain = UNARY[name]
    compare_devices(fn, [shape], dtype, domain=domain, seed=3)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", MATMUL, ids=str)
def test_matmul_grads_match_cpu(shapes, dtype):
    compare_devices(lambda m, a, b: a @ b, shapes, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reduction_grads_match_cpu(name, dtype):
    compare_devices(REDUCTIONS[name], [(2, 3, 4)], dtype, seed=5)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(SHAPE_OPS))
def test_shape_op_grads_match_cpu(name, dtype):
    fn, shape = SHAPE_OPS[name]
    compare_devices(fn, [shape], dtype, seed=7)


@pytest.mark.parametrize("key", INDEXING)
def test_indexing_grads_match_cpu(key):
    compare_devices(eval(f"lambda m, a: a{key}"), [(4, 5)], np.float64, seed=9)  # noqa: S307 - test keys


# Tensors on the device -------------------------------------------------------------

def test_factories_moves_and_printing(cp):
    x = torch.tensor([1.0, 2.0], device="cuda")
    assert x.device == torch.device("cuda", 0) and x.is_cuda
    assert isinstance(x._array, cp.ndarray)
    assert repr(x) == "tensor([1., 2.], device='cuda:0')"
    for t in (torch.zeros(2, 3, device="cuda"), torch.ones(2, device="cuda:0"), torch.empty(4, device="cuda"),
              torch.full((2,), 3.0, device="cuda"), torch.arange(5, device="cuda"), torch.randn(3, device="cuda"),
              torch.rand(3, device="cuda"), torch.zeros_like(x), torch.ones_like(x), torch.randn_like(x),
              torch.ones(2).cuda(), torch.ones(2).to("cuda"), torch.ones(2).cuda(0)):
        assert t.device == torch.device("cuda:0") and isinstance(t._array, cp.ndarray)
    back = x.cpu()
    assert back.device == torch.device("cpu") and isinstance(back._array, np.ndarray)
    assert back.tolist() == [1.0, 2.0] and x.tolist() == [1.0, 2.0] and x[1].item() == 2.0
    assert torch.tensor(x).device == x.device
    assert repr(torch.ones(2, device="cuda", requires_grad=True) * 2) == \
        "tensor([2., 2.], device='cuda:0', grad_fn=<MulBackward0>)"


def test_numpy_of_a_cuda_tensor_is_torchs_error():
    with pytest.raises(TypeError) as info:
        torch.ones(2, device="cuda").numpy()
    assert str(info.value) == ("can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the "
                               "tensor to host memory first.")


def test_mixed_devices_are_torchs_error():
    with pytest.raises(RuntimeError) as info:
        torch.ones(2, device="cuda") + torch.ones(2)
    assert str(info.value) == ("Expected all tensors to be on the same device, but found at least two devices, "
                               "cuda:0 and cpu!")
    # a 0-dim cpu tensor is a scalar, as in torch
    assert (torch.ones(2, device="cuda") * torch.tensor(3.0)).tolist() == [3.0, 3.0]


def test_zero_copy_with_cupy_both_ways(cp):
    a = cp.arange(4, dtype=cp.float32)
    t = torch.from_dlpack(a)
    assert t.device == torch.device("cuda:0")
    a[0] = 7
    assert t.tolist() == [7.0, 1.0, 2.0, 3.0]
    b = cp.from_dlpack(t)
    b[1] = 9
    assert t.tolist() == [7.0, 9.0, 2.0, 3.0]
    c = cp.asarray(t)  # __cuda_array_interface__
    assert c.data.ptr == t._array.data.ptr
    d = torch.as_tensor(t, device="cuda")
    assert d is t
    e = torch.as_tensor(a)
    assert e.device == torch.device("cuda:0") and e._array.data.ptr == a.data.ptr
    f = torch.tensor(a)
    assert f.device == torch.device("cuda:0") and f._array.data.ptr != a.data.ptr


def test_matmul_across_devices_is_an_error():
    with pytest.raises(RuntimeError, match="^Expected all tensors to be on the same device, but found at least "
                                           "two devices, cuda:0 and cpu!"):
        torch.ones(2, 2, device="cuda") @ torch.ones(2, 2)


def test_memory_comes_from_cupys_pool(cp):
    pool = cp.get_default_memory_pool()
    before = pool.used_bytes()
    t = torch.zeros(1 << 20, device="cuda")
    assert pool.used_bytes() >= before + 4 * (1 << 20)
    del t
    assert pool.used_bytes() == before


def test_manual_seed_makes_cuda_random_numbers_reproducible():
    torch.manual_seed(123)
    a = torch.randn(8, device="cuda")
    torch.manual_seed(123)
    b = torch.randn(8, device="cuda")
    assert a.tolist() == b.tolist()


# Graphs, streams and the engine -------------------------------------------------------

def test_mixed_cpu_gpu_graph():
    x = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
    y = (x.cuda() * 3).exp()
    z = (y.cpu().sin() * x).sum()
    z.backward()
    x0 = np.array([0.5, -1.0, 2.0])
    e = np.exp(3 * x0)
    np.testing.assert_allclose(x.grad.numpy(), np.cos(e) * e * 3 * x0 + np.sin(e), rtol=1e-12)
    assert x.grad.device == torch.device("cpu")


def test_backward_from_a_side_stream():
    s = torch.cuda.Stream()
    x = torch.randn(64, 64, device="cuda", dtype=torch.float64, requires_grad=True)
    with torch.cuda.stream(s):
        y = (x @ x).tanh().sum()
        y.backward()
        g = x.grad.cpu()  # read on s, the stream current at backward()
    ref = torch.tensor(x.detach().cpu().numpy(), requires_grad=True)
    (ref @ ref).tanh().sum().backward()
    np.testing.assert_allclose(g.numpy(), ref.grad.numpy(), rtol=1e-12)


def test_stream_context_is_cupys_current_stream(cp):
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        assert cp.cuda.get_current_stream().ptr == s.cuda_stream
    assert cp.cuda.get_current_stream().ptr == torch.cuda.current_stream().cuda_stream


@pytest.mark.parametrize("factor", [1.0, 2.0, 3.0, 5.0])
def test_two_streams_race_needs_the_event_wait(factor):
    # x's gradient accumulator is made under stream s2 (its first use), the
    # slow node's forward runs under s1. In backward the slow node runs on s1
    # and its result is summed into x's gradient on s2: only the InputBuffer's
    # event wait (s2 waits for s1) keeps the sum from reading the slow node's
    # output before its kernel wrote it; the caller's stream then waits for s2.
    s1, s2 = torch.cuda.Stream(), torch.cuda.Stream()
    x = torch.ones(1 << 16, device="cuda", dtype=torch.float64, requires_grad=True)
    s1.wait_stream(torch.cuda.current_stream())
    s2.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s2):
        warm = x * 0.0
    with torch.cuda.stream(s1):
        h = SlowIdentity.apply(x)
    with torch.cuda.stream(s2):
        s2.wait_stream(s1)
        out = (h * factor).sum() + warm.sum()
    torch.cuda.current_stream().wait_stream(s2)
    out.backward()
    assert (x.grad.cpu().numpy() == factor).all()


def test_grad_is_ready_on_the_callers_stream_when_backward_returns(cp):
    # the graph (and x's accumulator) ran on s1; backward() is called, and
    # x.grad read at once by a kernel, on the caller's (default) stream
    s1 = torch.cuda.Stream()
    x = torch.ones(1 << 16, device="cuda", dtype=torch.float64, requires_grad=True)
    s1.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s1):
        loss = SlowIdentity.apply(x).mul(4.0).sum()
    torch.cuda.current_stream().wait_stream(s1)
    loss.backward()
    assert float(cp.asarray(x.grad._array).min()) == 4.0


def test_reentrant_backward_and_checkpoint_on_cuda():
    from torchlite.utils.checkpoint import checkpoint
    rng = np.random.default_rng(0)
    a0 = rng.normal(size=(8, 8))
    for use_reentrant in (True, False):
        grads = {}
        for device in ("cpu", "cuda"):
            a = torch.tensor(a0, device=device, requires_grad=True)
            out = checkpoint(lambda t: (t @ t).sin().exp(), a, use_reentrant=use_reentrant)
            out.sum().backward()
            grads[device] = a.grad.cpu().numpy()
        np.testing.assert_allclose(grads["cuda"], grads["cpu"], rtol=1e-12)


def test_routing_across_cuda_and_simulated_devices():
    # one real GPU plus the simulated devices: the graph crosses cuda:0, sim:0
    # and sim:1, so backward visits each device's worker thread
    x = torch.tensor([1.0, 2.0], dtype=torch.float64, device="cuda", requires_grad=True)
    y = (x * 2).to("sim:0").exp().to("sim:1") * 3
    z = (y.to("cuda") * x).sum()
    z.backward()
    x0 = np.array([1.0, 2.0])
    np.testing.assert_allclose(x.grad.cpu().numpy(), 3 * np.exp(2 * x0) * (2 * x0 + 1), rtol=1e-12)
    assert x.grad.device == torch.device("cuda:0")


@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs two GPUs")
def test_autograd_across_two_gpus():
    x = torch.tensor([1.0, 2.0], dtype=torch.float64, device="cuda:0", requires_grad=True)
    y = (x.to("cuda:1") ** 2).sum()
    y.backward()
    assert x.grad.device == torch.device("cuda:0") and x.grad.tolist() == [2.0, 4.0]


def test_anomaly_nan_check_on_the_gpu():
    x = torch.tensor([0.0, 1.0], device="cuda", requires_grad=True)
    with torch.autograd.detect_anomaly():
        y = x.sqrt() * 0  # SqrtBackward0 returns nan at 0 * inf
        with pytest.raises(RuntimeError, match="returned nan values in its 0th output"):
            y.sum().backward()


def test_training_loop_keeps_gpu_memory_flat(cp):
    torch.manual_seed(0)
    w1 = torch.randn(32, 64, device="cuda", requires_grad=True)
    w2 = torch.randn(64, 1, device="cuda", requires_grad=True)
    x = torch.randn(128, 32, device="cuda")
    target = torch.randn(128, 1, device="cuda")
    pool = cp.get_default_memory_pool()
    stream_ordered = cp.cuda.runtime.deviceGetDefaultMemPool(0)

    def in_use():
        # cupy's pool (tensors made in Python) and the stream-ordered pool (C++ allocations)
        return pool.used_bytes() + cp.cuda.runtime.memPoolGetAttribute(
            stream_ordered, cp.cuda.runtime.cudaMemPoolAttrUsedMemCurrent)
    used = []
    for step in range(1000):
        loss = (((x @ w1).relu() @ w2 - target) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w1 -= 1e-4 * w1.grad
            w2 -= 1e-4 * w2.grad
        w1.grad = None
        w2.grad = None
        if step in (99, 999):
            torch.cuda.synchronize()
            used.append(in_use())
    assert used[1] == used[0]


# torchlite.cuda on the device ----------------------------------------------------------

def test_event_timing_and_ordering(cp):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    a = cp.ones(1 << 16)
    spin_kernel(cp)((256,), (256,), (a, cp.empty_like(a), np.int64(a.size), np.int64(10_000_000)))
    end.record()
    end.synchronize()
    assert end.query() and start.elapsed_time(end) > 0
    with pytest.raises(RuntimeError, match="Both events must be created with argument 'enable_timing=True'."):
        torch.cuda.Event().elapsed_time(end)


def test_blocking_calls_release_the_gil(cp):
    ticks = []
    stop = threading.Event()

    def count():
        while not stop.is_set():
            ticks.append(1)
            time.sleep(0.001)
    thread = threading.Thread(target=count)
    a = cp.ones(1 << 16)
    spin_kernel(cp)((256,), (256,), (a, cp.empty_like(a), np.int64(a.size), np.int64(1_000_000_000)))
    thread.start()
    before = len(ticks)
    torch.cuda.synchronize()
    after = len(ticks)
    stop.set()
    thread.join()
    assert after > before


def test_set_device_and_device_context():
    torch.cuda.set_device(0)
    assert torch.cuda.current_device() == 0
    with torch.cuda.device(0):
        assert torch.cuda.current_device() == 0
    with pytest.raises(RuntimeError, match=r"^Device index value 100 is out of index range \[0, "):
        torch.cuda.current_stream(100)
