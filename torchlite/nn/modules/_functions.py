"""torch/nn/modules/_functions.py: the autograd Functions the modules use."""
from ...utils.hooks import BackwardHookFunction

__all__ = ["BackwardHookFunction"]
