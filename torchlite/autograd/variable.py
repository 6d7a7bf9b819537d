"""torch.autograd.Variable: kept for its `_execution_engine`, the handle on
the C++ engine that backward() and grad() call (seed 002)."""
from .. import _C


# the extension's metaclass, whichever pybind11 gave its types (to mypy, _C's names are Any)
class VariableMeta(type(_C.TensorBase)):  # type: ignore[misc]
    """Every tensor is a Variable (torch/autograd/variable.py's VariableMeta)."""

    def __instancecheck__(cls, other):
        return isinstance(other, _C.TensorBase)


class Variable(_C.TensorBase, metaclass=VariableMeta):
    _execution_engine = _C._ImperativeEngine()
