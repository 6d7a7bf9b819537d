"""Helpers shared by the differential tests (test_diff_*.py)."""
import os
import re

import numpy as np
import pytest

import torchlite


def in_ci():
    """Whether this run is CI's (CI set to anything but empty, 0 or false)."""
    return os.environ.get("CI", "").lower() not in ("", "0", "false")


def import_torch():
    """torch, the differential tests' oracle. Without it they skip on a developer's machine, and fail
    in CI: a differential suite must never pass there by skipping."""
    try:
        import torch
    except ImportError as err:
        missing = str(err)
    else:
        return torch
    if in_ci():
        pytest.fail(f"CI needs torch for the differential tests, and `import torch` failed: {missing}", pytrace=False)
    pytest.skip(f"torch is not installed ({missing}); the differential tests need it", allow_module_level=True)


def _is_tensor(value):
    import torch
    return isinstance(value, (torch.Tensor, torchlite.Tensor))


class Values:
    """A tensor's values, equal to another's within float32 rounding."""

    def __init__(self, t):
        self.dtype = str(t.dtype).split(".")[-1]
        self.array = t.detach().numpy(force=True).copy()

    def __eq__(self, other):
        return (isinstance(other, Values) and self.dtype == other.dtype and self.array.shape == other.array.shape
                and np.allclose(self.array, other.array, rtol=2e-6, atol=1e-7, equal_nan=True))

    def __repr__(self):
        return f"tensor({self.array.tolist()}, {self.dtype})"


def norm(value):
    """Tensors to their Values; everything else as is, torchlite names as torch's."""
    if _is_tensor(value):
        return Values(value)
    if isinstance(value, (list, tuple)):
        return type(value)(norm(v) for v in value)
    if isinstance(value, dict):
        return {k: norm(v) for k, v in value.items()}
    if isinstance(value, str):
        return re.sub(r" \(Triggered internally at .*\)$", "", value.replace("torchlite", "torch"))
    return value


def run(case, lib):
    """What case(lib) shows: ("ok", its normalised result), or ("raised", type, message)."""
    try:
        return ("ok", norm(case(lib)))
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        return ("raised", type(e).__name__, norm(str(e)))


def same_cuda_build(monkeypatch, torch):
    """Puts torchlite in torch's CUDA build state for a comparison: where torchlite was built with
    CUDA and torch is a CPU build, torchlite is made to look built without CUDA (as
    test_cuda_backend's no_cuda_build); where torch is a CUDA build and torchlite is not, the two
    answer by their builds (pin_memory, torch.accelerator) and the comparison skips (CI builds
    torchlite with CUDA wherever the toolkit is)."""
    torch_cuda = torch.backends.cuda.is_built()
    lite_cuda = torchlite._backend._cuda_is_compiled()
    if lite_cuda and not torch_cuda:
        for attr in [a for a in dir(torchlite._C) if a.startswith("_cuda_")]:
            monkeypatch.delattr(torchlite._C, attr)
        monkeypatch.setattr(torchlite.cuda, "_initialized", False)
    elif torch_cuda and not lite_cuda:
        pytest.skip("torch is a CUDA build and torchlite was built without CUDA: their answers differ by build")


def same_bits(a, b, what=""):
    """a and b the same array bit for bit, a nan's sign and payload aside (nan at the same places):
    the check of the C++ kernels against the numpy paths they replace."""
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape, (what, a.dtype, b.dtype, a.shape, b.shape)
    a, b = a.reshape(-1), b.reshape(-1)
    ua, ub = a.view(f"u{a.itemsize}"), b.view(f"u{b.itemsize}")
    na = np.isnan(a)
    assert np.array_equal(na, np.isnan(b)), (what, "nan at other places")
    diff = np.flatnonzero((ua != ub) & ~na)
    assert diff.size == 0, (what, a[diff[:4]], b[diff[:4]])
