"""torch.backends.mkldnn (torch/backends/mkldnn/__init__.py): the oneDNN switches. torchlite has
no oneDNN, but `enabled` routes as torch's does: a float32 CPU nn.LSTM runs one fused op per layer
and direction (at::mkldnn_rnn_layer, RNN.cpp's use_mkldnn) while it is True, the decomposed cells
while it is False. is_available() answers as torch's CPU build (built with MKL-DNN)."""
import contextlib
import warnings

__all__ = ["VERBOSE_OFF", "VERBOSE_ON", "VERBOSE_ON_CREATION", "allow_tf32", "deterministic", "enabled", "flags",
           "is_available", "set_flags", "verbose"]

enabled = True
deterministic = False
allow_tf32 = None  # (torch's CPU build reads None: oneDNN's TF32 is an Intel GPU feature)

VERBOSE_OFF = 0
VERBOSE_ON = 1
VERBOSE_ON_CREATION = 2


def is_available():
    """Whether PyTorch is built with MKL-DNN support (torch's CPU build: True)."""
    return True


class verbose:
    """On-demand oneDNN verbosing (a context manager); torchlite has no oneDNN messages to print."""

    def __init__(self, level):
        self.level = level

    def __enter__(self):
        if self.level == VERBOSE_OFF:
            return None
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        return False


def set_flags(_enabled=None, _deterministic=None, _allow_tf32=None, _fp32_precision="none"):
    """Sets the given flags; returns the previous (enabled, deterministic, allow_tf32, fp32_precision)."""
    global enabled, deterministic
    orig = (enabled, deterministic, allow_tf32, "none")
    if _enabled is not None:
        enabled = _enabled
    if _deterministic is not None:
        deterministic = _deterministic
    if _allow_tf32 is not None:
        # Context.cpp's setAllowTF32OneDNN without Intel GPU support: a warning, nothing set
        warnings.warn("TF32 acceleration on top of oneDNN is available for Intel GPUs. The current Torch version "
                      "does not have Intel GPU Support.", UserWarning, stacklevel=2)
    return orig


@contextlib.contextmanager
def flags(enabled=False, deterministic=False, allow_tf32=True, fp32_precision="none"):
    """Sets the flags for the `with` block and restores them after (torch.backends.mkldnn.flags)."""
    orig = set_flags(enabled, deterministic, allow_tf32, fp32_precision)
    try:
        yield
    finally:
        set_flags(*orig)
