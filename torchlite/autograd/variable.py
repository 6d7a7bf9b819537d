"""torch.autograd.Variable: kept for its `_execution_engine`, the handle on
the C++ engine that backward() and grad() call (seed 002)."""
from .. import _C
from .._tensor import Tensor


class Variable(Tensor):
    _execution_engine = _C._ImperativeEngine()
