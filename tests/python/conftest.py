import pytest


def pytest_configure(config):
    config.addinivalue_line("markers", "cuda: needs a CUDA GPU and cupy (skipped without them)")
    config.addinivalue_line("markers", "dtypes_full_sweep: the rest of test_dtypes_sweep's op x dtype x device sweep "
                            "(deselected unless -m names it or TORCHLITE_FULL_DTYPE_SWEEP=1)")


def _cuda_unusable():
    """Why the `cuda` tests cannot run here (None when they can)."""
    import importlib.util

    import torchlite
    if not torchlite.cuda._is_compiled():
        return "torchlite built without CUDA (TORCHLITE_CUDA=OFF)"
    if not torchlite.cuda.is_available():
        return "no usable CUDA GPU"
    if importlib.util.find_spec("cupy") is None:
        return "cupy not installed (pip install torchlite[cuda])"
    return None


def pytest_collection_modifyitems(config, items):
    _deselect_full_dtype_sweep(config, items)
    cuda_items = [item for item in items if item.get_closest_marker("cuda") is not None]
    if not cuda_items:
        return
    reason = _cuda_unusable()
    if reason is not None:
        skip = pytest.mark.skip(reason=reason)
        for item in cuda_items:
            item.add_marker(skip)


def _deselect_full_dtype_sweep(config, items):
    """test_dtypes_sweep's full sweep runs only where asked for (a sample of it runs always)."""
    import os
    if "dtypes_full_sweep" in (config.getoption("-m") or "") or \
            os.environ.get("TORCHLITE_FULL_DTYPE_SWEEP", "") not in ("", "0"):
        return
    dropped = [item for item in items if item.get_closest_marker("dtypes_full_sweep") is not None]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = [item for item in items if item.get_closest_marker("dtypes_full_sweep") is None]
