"""torch.backends.cudnn (torch/backends/cudnn/__init__.py): torchlite has no cuDNN, so
is_available() is False and version() None, as in torch's CPU build; the flags keep what a
program sets (`torch.backends.cudnn.benchmark = True`)."""
import contextlib

__all__ = ["allow_tf32", "benchmark", "benchmark_limit", "deterministic", "enabled", "flags", "is_available",
           "is_acceptable", "version"]

enabled = True
benchmark = False
benchmark_limit = None  # torch reads None where cuDNN is absent
deterministic = False
allow_tf32 = True


def version():
    """The cuDNN version (None: torchlite has no cuDNN)."""
    return None


def is_available():
    """Whether cuDNN is available (False: torchlite's kernels are numpy's)."""
    return False


def is_acceptable(tensor):
    """Whether cuDNN would take `tensor` (torch: a CUDA tensor of a cuDNN dtype with cuDNN
    present): never in torchlite."""
    return False


_FLAGS = ("enabled", "benchmark", "benchmark_limit", "deterministic", "allow_tf32")


@contextlib.contextmanager
def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False, allow_tf32=True):
    """Sets the flags for the `with` block and restores them after (torch.backends.cudnn.flags)."""
    g = globals()
    old = {k: g[k] for k in _FLAGS}
    g.update(enabled=enabled, benchmark=benchmark, deterministic=deterministic, allow_tf32=allow_tf32)
    if benchmark_limit is not None and old["benchmark_limit"] is not None:
        g["benchmark_limit"] = benchmark_limit
    try:
        yield
    finally:
        g.update(old)
