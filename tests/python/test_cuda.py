"""torchlite.cuda: queries that never fail, torch's errors without a usable
GPU, and (marked `cuda`) streams and events on a real one."""
import pytest

import torchlite as torch
from torchlite import _C

NEEDS_DEVICE = [
    lambda: torch.cuda.current_stream(),
    lambda: torch.cuda.default_stream(),
    lambda: torch.cuda.Stream(),
    lambda: torch.cuda.Event(),
    lambda: torch.cuda.synchronize(),
    lambda: torch.cuda.current_device(),
    lambda: torch.cuda.stream(torch.cuda.current_stream()),
    lambda: torch.cuda.set_device(0),
    lambda: torch.cuda.device(0).__enter__(),
    lambda: torch.cuda.Event(enable_timing=True),
    lambda: torch.cuda.synchronize(0),
]


def test_queries_match_the_machine():
    assert isinstance(torch.cuda.is_available(), bool)
    assert torch.cuda.device_count() >= 0
    assert torch.cuda.is_available() == (torch.cuda.device_count() > 0)


def test_stream_none_context_is_a_no_op():
    with torch.cuda.stream(None):
        assert (torch.ones(2) * 2).tolist() == [2.0, 2.0]


@pytest.mark.parametrize("call", NEEDS_DEVICE)
def test_not_compiled_raises_torch_assertion(monkeypatch, call):
    # a build without CUDA has no _cuda_* functions in _C
    for name in [n for n in dir(_C) if n.startswith("_cuda_")]:
        monkeypatch.delattr(_C, name)
    monkeypatch.setattr(torch.cuda, "_initialized", False)
    assert torch.cuda.is_available() is False
    assert torch.cuda.device_count() == 0
    with pytest.raises(AssertionError, match="^Torch not compiled with CUDA enabled$"):
        call()


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the behaviour without a usable GPU")
@pytest.mark.parametrize("call", NEEDS_DEVICE)
def test_without_gpu_raises_the_runtime_error(call):
    assert torch.cuda.device_count() == 0
    if not torch.cuda._is_compiled():
        expected = AssertionError, "Torch not compiled with CUDA enabled"
    else:
        expected = RuntimeError, r"No CUDA GPUs are available|Found no NVIDIA driver on your system|CUDA error"
    with pytest.raises(expected[0], match=expected[1]):
        call()
    assert not torch.cuda.is_initialized()


@pytest.mark.cuda
def test_current_and_pool_streams():
    cur = torch.cuda.current_stream()
    assert cur == torch.cuda.default_stream() and cur.device_index == torch.cuda.current_device()
    s = torch.cuda.Stream()
    assert s != cur and s.cuda_stream != 0
    with torch.cuda.stream(s):
        assert torch.cuda.current_stream() == s
    assert torch.cuda.current_stream() == cur
    assert s.query() is True
    s.synchronize()
    torch.cuda.synchronize()


@pytest.mark.cuda
def test_events_order_streams():
    s1, s2 = torch.cuda.Stream(), torch.cuda.Stream()
    e = torch.cuda.Event()
    assert e.query() is True  # never recorded
    e.record(s1)
    assert e.cuda_event != 0
    s2.wait_event(e)
    s2.wait_stream(s1)
    e.synchronize()
    assert e.query() is True
    assert s1.record_event().query() in (True, False)
