"""torch.autograd.Variable: kept for its `_execution_engine`, the handle on
the C++ engine that backward() and grad() call (seed 002)."""
import sys
import warnings

from .. import _C, _factories


# the extension's metaclass, whichever pybind11 gave its types (to mypy, _C's names are Any)
class VariableMeta(type(_C.TensorBase)):  # type: ignore[misc]
    """Every tensor is a Variable (torch/autograd/variable.py's VariableMeta)."""

    def __instancecheck__(cls, other):
        return isinstance(other, _C.TensorBase)


class Variable(_C.TensorBase, metaclass=VariableMeta):
    _execution_engine = _C._ImperativeEngine()

    def __new__(cls, data=None, requires_grad=False, volatile=False, _grad_fn=None, **kwargs):
        """The legacy Variable(data, requires_grad=False) (torch/csrc/autograd/python_legacy_variable.cpp):
        a tensor (not a Variable: every tensor is one) detached from data's history, leaf,
        requiring grad as asked; without data an empty float32 tensor."""
        for name in kwargs:
            # torch's constructor parses with PyArg_ParseTupleAndKeywords, whose message is CPython's
            if sys.version_info >= (3, 13):
                raise TypeError(f"this function got an unexpected keyword argument '{name}'")
            raise TypeError(f"'{name}' is an invalid keyword argument for this function")
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                          UserWarning, stacklevel=2)
        if volatile and requires_grad:
            raise ValueError("Variable can't be volatile and require_grad at the same time!")
        if _grad_fn is not None:
            raise TypeError("_grad_fn has to be a Function object or None, but got " + type(_grad_fn).__name__)
        if data is None:
            var = _factories.empty(0)
        elif isinstance(data, _C.TensorBase):
            var = data.detach()
        else:
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        if requires_grad and not var.dtype.is_floating_point:
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        var.requires_grad_(bool(requires_grad))
        return var
