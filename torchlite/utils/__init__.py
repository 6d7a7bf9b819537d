"""torch.utils: activation checkpointing and data loading."""
from . import checkpoint, data

__all__ = ["checkpoint", "data"]
