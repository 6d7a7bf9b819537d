"""Custom autograd Functions (torch/autograd/function.py).

`Function.apply` is implemented in C++ (python_function.cpp): it makes the ctx
object, an instance of the generated `<Name>Backward` class, runs forward under
no-grad and connects the outputs to a PyNode that calls `backward` through
`BackwardCFunction.apply`. The ctx object is also the node's `grad_fn`.
"""
import functools
import inspect

from .. import _C
from .grad_mode import no_grad

__all__ = ["Function", "FunctionCtx", "BackwardCFunction", "once_differentiable"]


class FunctionCtx:
    # what save_for_forward kept, None once apply has returned (torch frees them there)
    saved_for_forward = None

    def save_for_backward(self, *tensors):
        self.to_save = tensors

    def save_for_forward(self, *tensors):
        """Kept for a jvp as torch keeps them; torchlite has no forward-mode AD, so no jvp reads them."""
        for tensor in tensors:
            if not (isinstance(tensor, _C.TensorBase) or tensor is None):
                raise AssertionError("save_for_forward expects all arguments to be tensors; you should "
                                     "save non-tensors as attributes on ctx.")
        self.saved_for_forward = tensors

    def mark_shared_storage(self, *pairs):
        """Deprecated in torch, where it does nothing: shared storages are tracked."""

    def mark_dirty(self, *args):
        self.dirty_tensors = args

    def mark_non_differentiable(self, *args):
        self.non_differentiable = args

    def set_materialize_grads(self, value):
        self.materialize_grads = value


class BackwardCFunction(_C._FunctionBase, FunctionCtx):
    def apply(self, *args):
        cls = self._forward_cls
        if cls.backward is not Function.backward and cls.vjp is not Function.vjp:
            raise RuntimeError("Implementing both 'backward' and 'vjp' for a custom Function is not allowed. You "
                               "should only implement one of them.")
        result = (cls.vjp if cls.vjp is not Function.vjp else cls.backward)(self, *args)
        grads = result if isinstance(result, tuple) else (result,)
        if len(grads) == len(self.needs_input_grad):  # a wrong count is reported first, by the caller
            for g in grads:
                if g is not None and not isinstance(g, _C.TensorBase):
                    raise RuntimeError(f"expected Variable or None (got {type(g).__name__})")
        return result


class FunctionMeta(type):
    """Makes the `<Name>Backward` class of each Function subclass."""

    def __init__(cls, name, bases, attrs):
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls})
        super().__init__(name, bases, attrs)


class Function(metaclass=FunctionMeta):
    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        """Where a Function defines it, forward runs without ctx and this saves what backward
        needs from `inputs` (the positional arguments, defaults filled in) and `output`."""
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    # torch's other name of backward, and the flag of its vmap support (torchlite has no vmap)
    vjp = backward
    generate_vmap_rule = False

    @staticmethod
    def jvp(ctx, *grad_inputs):
        """The forward-mode formula (torchlite has no forward-mode AD, so it is never called)."""
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function to use it "
                                  "with forward mode AD.")

    @staticmethod
    def vmap(info, in_dims, *args):
        """The rule under vmap (torchlite has no vmap, so it is never called)."""
        raise NotImplementedError("To use autograd.Function with vmap, you must either override the vmap "
                                  "staticmethod or set generate_vmap_rule=True.")

    @classmethod
    def apply(cls, *args, **kwargs):
        setup_context = cls.setup_context is not Function.setup_context
        if setup_context:
            # torch binds the defaults, so setup_context sees every argument of forward
            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, bound.kwargs
        return _C._function_apply(cls, args, kwargs, setup_context)


def once_differentiable(fn):
    """Runs backward with grad mode off: its result is not differentiable again."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            return fn(ctx, *args)
    return wrapper
