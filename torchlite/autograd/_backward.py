"""torch.autograd.backward and torch.autograd.grad (torch/autograd/__init__.py):
their argument checks, the root gradients they make, and the call into the C++
engine, Variable._execution_engine. A module of its own, below the
package's __init__, so that gradcheck and legacy_engine import them."""
import warnings
from collections.abc import Mapping

from .. import _C
from .._dtypes import Size
from .._factories import ones, ones_like, zeros, zeros_like
from .._ops import stack as _stack
from .graph import GradientEdge
from .variable import Variable


def _tensor_or_tensors_to_tuple(tensors, length):
    if tensors is None:
        return (None,) * length
    if isinstance(tensors, _C.TensorBase):
        return (tensors,)
    return tuple(tensors)


class _EdgeOutput:
    """What _make_grads reads of an output given as a GradientEdge: the shape, dtype and device
    of the node's input it names (torch reads node._input_metadata[output_nr])."""

    requires_grad = True

    def __init__(self, edge):
        metadata = edge.node._input_metadata
        if not 0 <= edge.output_nr < len(metadata):  # the engine's message (python_engine.cpp)
            raise RuntimeError(f"GradientEdge's output_nr {edge.output_nr} is out of range for {edge.node.name()}, "
                               f"which has {len(metadata)} inputs")
        meta = metadata[edge.output_nr]
        self.shape, self.dtype, self.device = Size(meta.shape), meta.dtype, meta.device

    def numel(self):
        n = 1
        for d in self.shape:
            n *= d
        return n


def _shape_of(out):
    return out.shape if isinstance(out, _EdgeOutput) else out._array.shape


def _make_grads(outputs, grads, is_grads_batched=False):
    """The root gradients: given ones checked against their outputs, implicit
    ones (1 for a scalar output) created. An output may be a GradientEdge."""
    new_grads = []
    # the counts may differ: the caller checks them afterwards (_check_counts), as torch's engine
    # does after _make_grads, so that a shape mismatch is reported first
    for i, (out, grad) in enumerate(zip(outputs, grads, strict=False)):
        if isinstance(out, GradientEdge):
            out = _EdgeOutput(out)
        elif not isinstance(out, _C.TensorBase):
            raise AssertionError("Expected output to be a torch.Tensor")
        if isinstance(grad, _C.TensorBase):
            grad_shape = grad._array.shape[1:] if is_grads_batched else grad._array.shape
            if tuple(_shape_of(out)) != grad_shape:
                if is_grads_batched:
                    # torch's message shows the shape of grad[0] without its first dimension
                    # (_calculate_shape strips the batch dimension a second time)
                    grad_shape = grad._array.shape[2:]
                    raise RuntimeError(
                        "If `is_grads_batched=True`, we interpret the first dimension of each grad_output as the "
                        "batch dimension. The sizes of the remaining dimensions are expected to match the shape of "
                        "corresponding output, but a mismatch was detected: grad_output[" + str(i)
                        + "] has a shape of " + str(Size(grad_shape)) + " and output[" + str(i)
                        + "] has a shape of " + str(Size(_shape_of(out))) + ". If you only want some tensors in "
                        "`grad_output` to be considered batched, consider using vmap.")
                raise RuntimeError(
                    "Mismatch in shape: grad_output[" + str(i) + "] has a shape of "
                    + str(Size(grad._array.shape)) + " and output[" + str(i)
                    + "] has a shape of " + str(Size(_shape_of(out))) + ".")
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
                new_grads.append(ones(out.shape, dtype=out.dtype, device=out.device)
                                 if isinstance(out, _EdgeOutput) else ones_like(out))
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
    # a GradientEdge (a tuple) counts as one tensor or input, not as a sequence of them
    if inputs is None:
        inputs_tuple = ()
    elif isinstance(inputs, (_C.TensorBase, GradientEdge)):
        inputs_tuple = (inputs,)
    elif type(inputs) is dict:  # dict(model.named_parameters()): its values
        inputs_tuple = tuple(inputs.values())
    elif isinstance(inputs, Mapping):
        raise TypeError(f"`inputs` argument to `backward()` must be a dict, not {type(inputs).__name__}. "
                        "Other Mapping types are not supported.")
    else:
        inputs_tuple = tuple(inputs)
    if inputs is not None and len(inputs_tuple) == 0:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    inputs = inputs_tuple
    tensors = (tensors,) if isinstance(tensors, (_C.TensorBase, GradientEdge)) else tuple(tensors)

    grad_tensors_ = _tensor_or_tensors_to_tuple(grad_tensors, len(tensors))
    grad_tensors_ = _make_grads(tensors, grad_tensors_)
    _check_counts(tensors, grad_tensors)
    for t in inputs:
        if isinstance(t, _C.TensorBase) and not t.requires_grad:  # torch retains the inputs' grads first
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
    t_outputs = (outputs,) if isinstance(outputs, (_C.TensorBase, GradientEdge)) else tuple(outputs)
    if isinstance(inputs, (_C.TensorBase, GradientEdge)):
        t_inputs = (inputs,)
    elif type(inputs) is dict:  # dict(model.named_parameters()): the result is a dict with its keys
        t_inputs = tuple(inputs.values())
    elif isinstance(inputs, Mapping):
        raise TypeError(f"`inputs` argument to `grad()` must be a dict, not {type(inputs).__name__}. "
                        "Other Mapping types are not supported.")
    else:
        t_inputs = tuple(inputs)
    if not t_inputs:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if not only_inputs:
        warnings.warn("only_inputs argument is deprecated and is ignored now (defaults to True). To accumulate "
                      "gradient for other parts of the graph, please use torch.autograd.backward.",
                      FutureWarning, stacklevel=2)

    grad_outputs_ = _tensor_or_tensors_to_tuple(grad_outputs, len(t_outputs))
    grad_outputs_ = _make_grads(t_outputs, grad_outputs_, is_grads_batched)
    _check_counts(t_outputs, grad_outputs)
    if retain_graph is None:
        retain_graph = create_graph

    if is_grads_batched:
        result = _batched_grad(t_outputs, grad_outputs_, retain_graph, create_graph, t_inputs)
    else:
        result = Variable._execution_engine.run_backward(
            t_outputs, grad_outputs_, retain_graph, create_graph, t_inputs,
            True, accumulate_grad=False)
    for i, g in enumerate(result):
        if g is None and not allow_unused:
            raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have been used in the graph. "
                               "Set allow_unused=True if this is the desired behavior.")
    if materialize_grads:
        if any(g is None and not isinstance(i, _C.TensorBase) for g, i in zip(result, t_inputs, strict=True)):
            raise RuntimeError("materialize_grads cannot be used when the given input is a GradientEdge")
        result = tuple(g if g is not None else zeros_like(i, requires_grad=create_graph)
                       for g, i in zip(result, t_inputs, strict=True))
    if type(inputs) is dict:
        return dict(zip(inputs.keys(), result, strict=True))
    return result


def _batched_grad(outputs, grad_outputs, retain_graph, create_graph, inputs):
    """grad with is_grads_batched: torch maps the backward over the grad_outputs' first
    dimension (vmap); torchlite runs it once per batch entry, keeping the graph for the next,
    and stacks each input's gradients along a new first dimension (differentiable under
    create_graph). An input no entry reaches stays None."""
    sizes = {g._array.shape[0] for g in grad_outputs if g is not None}
    if len(sizes) > 1:
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                         f"{sorted(sizes)} for the mapped dimension")
    batch = sizes.pop() if sizes else 1
    per_entry = []
    for b in range(batch):
        entry = tuple(None if g is None else g[b] for g in grad_outputs)
        per_entry.append(Variable._execution_engine.run_backward(
            outputs, entry, retain_graph or b < batch - 1, create_graph, inputs, True, accumulate_grad=False))
    result = []
    for i, inp in enumerate(inputs):
        grads = [r[i] for r in per_entry]
        if not grads or grads[0] is None:
            result.append(None if grads else zeros((0, *inp.shape), dtype=inp.dtype, device=inp.device))
        else:
            result.append(_stack(grads))
    return tuple(result)
