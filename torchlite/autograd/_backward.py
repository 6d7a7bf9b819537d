"""torch.autograd.backward and torch.autograd.grad (torch/autograd/__init__.py):
their argument checks, the root gradients they make, and the call into the C++
engine, Variable._execution_engine. A module of its own, below the
package's __init__, so that gradcheck and legacy_engine import them."""
import warnings

from .. import _C
from .._dtypes import Size
from .._factories import ones_like, zeros_like
from .variable import Variable


def _tensor_or_tensors_to_tuple(tensors, length):
    if tensors is None:
        return (None,) * length
    if isinstance(tensors, _C.TensorBase):
        return (tensors,)
    return tuple(tensors)


def _make_grads(outputs, grads, is_grads_batched=False):
    """The root gradients: given ones checked against their outputs, implicit
    ones (1 for a scalar output) created."""
    new_grads = []
    # the counts may differ: the caller checks them afterwards (_check_counts), as torch's engine
    # does after _make_grads, so that a shape mismatch is reported first
    for i, (out, grad) in enumerate(zip(outputs, grads, strict=False)):
        if isinstance(grad, _C.TensorBase):
            if out._array.shape != grad._array.shape:
                raise RuntimeError(
                    "Mismatch in shape: grad_output[" + str(i) + "] has a shape of "
                    + str(Size(grad._array.shape)) + " and output[" + str(i)
                    + "] has a shape of " + str(Size(out._array.shape)) + ".")
            if out.dtype.is_floating_point and not grad.dtype.is_floating_point:
                grad = grad.to(out.dtype)  # torch's engine casts it (validate_outputs); torchlite has no complex
            new_grads.append(grad)
        elif grad is None:
            if out.requires_grad:
                if out.numel() != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if not out.dtype.is_floating_point:
                    raise RuntimeError("grad can be implicitly created only for real scalar outputs but got "
                                       + repr(out.dtype))
                new_grads.append(ones_like(out))
            else:
                new_grads.append(None)
        else:
            raise TypeError("gradients can be either Tensors or None, but got " + type(grad).__name__)
    return tuple(new_grads)


def _check_counts(tensors, grads):
    n = len(_tensor_or_tensors_to_tuple(grads, len(tensors)))
    if n != len(tensors):
        raise RuntimeError(f"got {len(tensors)} tensors and {n} gradients")


_create_graph_cycle_warned = False


def _warn_create_graph_cycle_once():
    """torch's engine warns once per process (TORCH_WARN_ONCE) that .grad
    and the graph it was built with now refer to each other."""
    global _create_graph_cycle_warned
    if _create_graph_cycle_warned:
        return
    _create_graph_cycle_warned = True
    warnings.warn("Using backward() with create_graph=True will create a reference cycle between the parameter "
                  "and its gradient which can cause a memory leak. We recommend using autograd.grad when "
                  "creating the graph to avoid this. If you have to use this function, make sure to reset the "
                  ".grad fields of your parameters to None after use to break the cycle and avoid the leak.",
                  UserWarning, stacklevel=3)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None,
             inputs=None):
    """Accumulates the gradients of `tensors` into the leaves' .grad."""
    if grad_variables is not None:
        if grad_tensors is not None:
            raise RuntimeError("'grad_tensors' and 'grad_variables' (deprecated) arguments both passed to "
                               "backward(). Please only use 'grad_tensors'.")
        grad_tensors = grad_variables
    if inputs is not None and len(inputs) == 0:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")

    tensors = (tensors,) if isinstance(tensors, _C.TensorBase) else tuple(tensors)
    inputs = (inputs,) if isinstance(inputs, _C.TensorBase) else tuple(inputs) if inputs is not None else tuple()

    grad_tensors_ = _tensor_or_tensors_to_tuple(grad_tensors, len(tensors))
    grad_tensors_ = _make_grads(tensors, grad_tensors_)
    _check_counts(tensors, grad_tensors)
    for t in inputs:
        if not t.requires_grad:  # torch retains the inputs' grads first
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if retain_graph is None:
        retain_graph = create_graph
    if create_graph:
        _warn_create_graph_cycle_once()

    Variable._execution_engine.run_backward(
        tensors, grad_tensors_, retain_graph, create_graph, inputs,
        allow_unreachable=True, accumulate_grad=True)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """The gradients of `outputs` with respect to `inputs`, returned, not accumulated."""
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, "
                         "but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    t_outputs = (outputs,) if isinstance(outputs, _C.TensorBase) else tuple(outputs)
    t_inputs = (inputs,) if isinstance(inputs, _C.TensorBase) else tuple(inputs)
    if not t_inputs:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if is_grads_batched:
        raise NotImplementedError("torchlite.autograd.grad does not support is_grads_batched")

    grad_outputs_ = _tensor_or_tensors_to_tuple(grad_outputs, len(t_outputs))
    grad_outputs_ = _make_grads(t_outputs, grad_outputs_)
    _check_counts(t_outputs, grad_outputs)
    if retain_graph is None:
        retain_graph = create_graph

    result = Variable._execution_engine.run_backward(
        t_outputs, grad_outputs_, retain_graph, create_graph, t_inputs,
        True, accumulate_grad=False)
    for i, g in enumerate(result):
        if g is None and not allow_unused:
            raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have been used in the graph. "
                               "Set allow_unused=True if this is the desired behavior.")
    if materialize_grads:
        result = tuple(g if g is not None else zeros_like(i, requires_grad=create_graph)
                       for g, i in zip(result, t_inputs, strict=True))
    return result
