"""torch.backends.mps: torchlite has no MPS backend (torch's non-macOS build answers the same)."""

__all__ = ["is_available", "is_built"]


def is_built():
    """Whether torchlite was built with MPS support (never)."""
    return False


def is_available():
    """Whether MPS is usable (never in torchlite)."""
    return False
