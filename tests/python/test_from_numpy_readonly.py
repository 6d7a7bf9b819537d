"""from_numpy / as_tensor of a read-only numpy array: the memory is shared, and torch's warning
(tensor_numpy.cpp's TORCH_WARN_ONCE) is given once a process, at the caller; from_dlpack and
torch.tensor (a copy) give none."""
import warnings

import numpy as np
import pytest

import torchlite
from torchlite import _factories

MESSAGE = ("The given NumPy array is not writable, and PyTorch does not support non-writable tensors. This means "
           "writing to this tensor will result in undefined behavior. You may want to copy the array to protect its "
           "data or make it writable before converting it to a tensor. This type of warning will be suppressed for "
           "the rest of this program.")


def _read_only():
    a = np.arange(4, dtype=np.float32)
    a.flags.writeable = False
    return a


@pytest.mark.parametrize("factory", ["from_numpy", "as_tensor"])
def test_read_only_array_warns_once(monkeypatch, factory):
    monkeypatch.setattr(_factories, "_NOT_WRITABLE", [False])
    a = _read_only()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t = getattr(torchlite, factory)(a)
        getattr(torchlite, factory)(_read_only())
    assert [(w.category, str(w.message), w.filename) for w in caught] == [(UserWarning, MESSAGE, __file__)]
    assert np.shares_memory(t.numpy(), a)
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_writable_arrays_copies_and_dlpack_do_not_warn(monkeypatch):
    monkeypatch.setattr(_factories, "_NOT_WRITABLE", [False])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        torchlite.from_numpy(np.zeros(3))
        torchlite.tensor(_read_only())
        torchlite.from_dlpack(_read_only())
    assert _factories._NOT_WRITABLE == [False]
