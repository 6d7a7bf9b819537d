import pytest


def pytest_configure(config):
    config.addinivalue_line("markers", "cuda: needs a CUDA GPU (skipped without one)")


def pytest_collection_modifyitems(config, items):
    import torchlite
    has_cuda = getattr(getattr(torchlite, "cuda", None), "is_available", lambda: False)()
    skip = pytest.mark.skip(reason="no CUDA GPU")
    for item in items:
        if "cuda" in item.keywords and not has_cuda:
            item.add_marker(skip)
