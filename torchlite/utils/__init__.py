"""torch.utils: activation checkpointing."""
from . import checkpoint

__all__ = ["checkpoint"]
