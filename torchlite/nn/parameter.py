"""torch.nn.parameter: Parameter (a Tensor that a Module registers as its parameter) and Buffer.

As torch/nn/parameter.py. torch makes a Parameter with Tensor._make_subclass (a new Python object
over a detached alias of the data); torchlite does the same in Python: the detached alias is a
plain Tensor, whose class is then set to Parameter (both classes have the same object layout).
Ops on a Parameter make plain Tensors, as torch's do (its __torch_function__ is disabled): the
extension wraps every result in the class given to _C._set_tensor_class, torchlite.Tensor.
"""
from collections import OrderedDict

from .._tensor import Tensor
from .. import _factories

__all__ = ["Parameter", "Buffer"]


class _ParameterMeta(type(Tensor)):  # type: ignore[misc]
    """isinstance(t, Parameter) also holds for a tensor marked `_is_param` (torch's _ParameterMeta)."""

    def __instancecheck__(cls, instance):
        if cls is Parameter and isinstance(instance, Tensor) and getattr(instance, "_is_param", False):
            return True
        return super().__instancecheck__(instance)


def _make_subclass(cls, data, requires_grad):
    """Tensor._make_subclass: a new `cls` object over a detached alias of `data` (same memory and
    version counter), a leaf whose requires_grad is `requires_grad`."""
    t = data.detach()
    if requires_grad and not t.is_floating_point():
        # torch's set_requires_grad (not requires_grad_'s wording)
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    t.requires_grad_(requires_grad)
    t.__class__ = cls
    return t


class Parameter(Tensor, metaclass=_ParameterMeta):
    """A Tensor that a Module registers as its parameter when assigned as an attribute."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _factories.empty(0)
        return _make_subclass(cls, data, requires_grad)

    def __init__(self, data=None, requires_grad=True):
        pass  # everything is done in __new__ (Tensor's own __init__ takes no arguments)

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __repr__(self, *, tensor_contents=None):
        return "Parameter containing:\n" + super().__repr__(tensor_contents=tensor_contents)

    __str__ = __repr__  # type: ignore[assignment]

    def __reduce_ex__(self, proto):
        # torch: torch._utils._rebuild_parameter (hooks are not serialized: Note [Don't serialize hooks])
        state = {k: v for k, v in self.__dict__.items()}
        if not state:
            return (_rebuild_parameter, (self.data, self.requires_grad, OrderedDict()))
        return (_rebuild_parameter_with_state, (self.data, self.requires_grad, OrderedDict(), state))


def _rebuild_parameter(data, requires_grad, backward_hooks):
    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    param = Parameter(data, requires_grad)
    param.__dict__.update(state)
    return param


class _BufferMeta(type(Tensor)):  # type: ignore[misc]
    """isinstance(t, Buffer) holds for a tensor marked `_is_buffer` (torch's _BufferMeta)."""

    def __instancecheck__(cls, instance):
        if cls is Buffer and isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False):
            return True
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """A Tensor that a Module registers as its buffer when assigned as an attribute. Buffer(data)
    is a detached alias of `data`, a plain Tensor marked `_is_buffer` (and `persistent`), as torch's."""

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = _factories.empty(0)
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t
