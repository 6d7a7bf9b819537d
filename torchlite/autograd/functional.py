"""torch.autograd.functional (torch/autograd/functional.py): vjp, jvp, jacobian, hessian, vhp
and hvp of a Python function, with torch's argument checks and messages.

Everything is reverse mode over autograd.grad. jvp uses the double-vjp trick, as torch does:
the vjp g(u) = J^T u is linear in u, so differentiating <g(u), v> with respect to u gives J v.
hvp differentiates the gradient twice the same way. jacobian(vectorize=True) runs one
autograd.grad with is_grads_batched over the standard basis of the outputs. torchlite has no
forward-mode AD, so jacobian(strategy="forward-mode") and hessian(outer_jacobian_strategy=
"forward-mode") refuse.
"""
from .. import _C
from .._factories import zeros, zeros_like
from .._ops import stack as _stack
from ._backward import grad as _grad
from .grad_mode import enable_grad, set_grad_enabled

__all__ = ["vjp", "jvp", "jacobian", "hessian", "vhp", "hvp"]

_NO_FORWARD_AD = ("torchlite has no forward-mode AD: {} is not supported; use the default "
                  '"reverse-mode" (torch.func and forward-mode AD are out of torchlite\'s scope)')


def _as_tuple(value, what, fn):
    """(whether `value` was a tuple, value as a tuple of tensors), with torch's TypeError."""
    was_tuple = isinstance(value, tuple)
    items = value if was_tuple else (value,)
    for i, item in enumerate(items):
        if not isinstance(item, _C.TensorBase):
            where = f"value at index {i}" if was_tuple else f"given {what}"
            raise TypeError(f"The {what} given to {fn} must be either a Tensor or a tuple of Tensors but the "
                            f"{where} has type {type(item)}.")
    return was_tuple, items


def _unpack(result, was_tuple):
    """The result shaped as the call was: `was_tuple` is one flag, or (outer, inner) for nested results."""
    if isinstance(was_tuple, tuple):
        outer, inner = was_tuple
        if not inner:
            result = tuple(row[0] for row in result)
        return result if outer else result[0]
    return result if was_tuple else result[0]


def _prepare(tensors, create_graph, need_graph):
    """The function's inputs (or v): under create_graph a tensor that requires grad stays in its
    graph behind a view (a new tensor object), else a detached copy that requires grad where
    the computation needs it."""
    return tuple(t.view(t.shape) if create_graph and t.requires_grad else t.detach().requires_grad_(need_graph)
                 for t in tensors)


def _finish(tensors, create_graph):
    """The results, detached unless create_graph asked for their graph (nested tuples too)."""
    if tensors and isinstance(tensors[0], _C.TensorBase):
        return tensors if create_graph else tuple(t.detach() for t in tensors)
    return tuple(_finish(t, create_graph) for t in tensors)


def _check_v(v, other, other_was_tuple):
    if len(v) != len(other):
        if other_was_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (a, b) in enumerate(zip(v, other, strict=True)):
        if a.size() != b.size():
            where = f"Entry {i} in " if other_was_tuple else ""
            raise RuntimeError(f"{where}v has invalid size: should be {b.size()} but got {a.size()}.")


_STRICT_MESSAGES = {
    "hessian": ("The hessian of the user-provided function with respect to input {i} is independent of the input. "
                "This is not allowed in strict mode. You should ensure that your function is thrice differentiable "
                "and that the hessian depends on the inputs."),
    "jacobian": ("While computing the hessian, found that the jacobian of the user-provided function with respect to "
                 "input {i} is independent of the input. This is not allowed in strict mode. You should ensure that "
                 "your function is twice differentiable and that the jacobian depends on the inputs (this would be "
                 "violated by a linear function for example)."),
    "grad_inputs": ("The gradient with respect to input {i} is independent of the inputs of the user-provided "
                    "function. This is not allowed in strict mode."),
    "outputs": ("Output {i} of the user-provided function does not require gradients. The outputs must be computed "
                "in a differentiable manner from the input when running in strict mode."),
}


def _check_requires_grad(tensors, kind, strict):
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(f"The output of the user-provided function is independent of input {i}. This is not "
                               "allowed in strict mode.")
        if not t.requires_grad:
            raise RuntimeError(_STRICT_MESSAGES[kind].format(i=i))


def _vjp_of(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None, is_grads_batched=False):
    """autograd.grad of the outputs that require grad (None for every input when none does)."""
    grad_outputs = (None,) * len(outputs) if grad_outputs is None else grad_outputs
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs, strict=True) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return _grad(tuple(o for o, _ in pairs), inputs, tuple(g for _, g in pairs), allow_unused=True,
                 create_graph=create_graph, retain_graph=retain_graph, is_grads_batched=is_grads_batched)


_INDEPENDENT = {
    "back": "The output of the user-provided function is independent of input {i}. This is not allowed in strict mode.",
    "back_trick": ("The gradient with respect to the input is independent of entry {i} in the grad_outputs when "
                   "using the double backward trick to compute forward mode gradients. This is not allowed in strict "
                   "mode."),
    "double_back": ("The jacobian of the user-provided function is independent of input {i}. This is not allowed in "
                    "strict mode."),
    "double_back_trick": ("The hessian of the user-provided function is independent of entry {i} in the "
                          "grad_jacobian. This is not allowed in strict mode as it prevents from using the double "
                          "backward trick to replace forward mode AD."),
}


def _zeros_for_none(grads, refs, strict, create_graph, stage):
    """Each None gradient as zeros of its reference's shape (strict mode refuses it instead)."""
    out = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_INDEPENDENT[stage].format(i=i))
            g = zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of input {i}. This is not "
                               "allowed in strict mode when create_graph=True.")
        out.append(g)
    return tuple(out)


def _single_element_v(tensors, what):
    if len(tensors) != 1 or tensors[0].nelement() != 1:
        raise RuntimeError(what)


_V_NONE_INPUT = ("The vector v can only be None if the input to the user-provided function is a single Tensor with a "
                 "single element.")


def _inputs_and_v(inputs, v, create_graph, fn):
    """The inputs prepared, and v (a vector over the inputs: jvp, vhp, hvp) checked against them;
    v may be None only for a single one-element input."""
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", fn)
    inputs = _prepare(inputs, create_graph, need_graph=True)
    if v is not None:
        v = _prepare(_as_tuple(v, "v", fn)[1], create_graph, need_graph=False)
        _check_v(v, inputs, inputs_tuple)
    else:
        _single_element_v(inputs, _V_NONE_INPUT)
    return inputs_tuple, inputs, v


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """func(*inputs) and the vector-Jacobian product v^T J at inputs."""
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "vjp")
        _check_requires_grad(outputs, "outputs", strict)
        if v is not None:
            v = _prepare(_as_tuple(v, "v", "vjp")[1], create_graph, need_graph=False)
            _check_v(v, outputs, outputs_tuple)
        else:
            _single_element_v(outputs, "The vector v can only be None if the user-provided function returns a "
                                       "single Tensor with a single element.")
    with set_grad_enabled(True if create_graph else _C.is_grad_enabled()):
        grads = _zeros_for_none(_vjp_of(outputs, inputs, v, create_graph=create_graph), inputs, strict, create_graph,
                                "back")
    return _unpack(_finish(outputs, create_graph), outputs_tuple), _unpack(_finish(grads, create_graph), inputs_tuple)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """func(*inputs) and the Jacobian-vector product J v at inputs (the double-vjp trick)."""
    with enable_grad():
        inputs_tuple, inputs, v = _inputs_and_v(inputs, v, create_graph, "jvp")
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jvp")
        _check_requires_grad(outputs, "outputs", strict)
        # u: a dummy cotangent per output; J^T u is linear in u, its derivative along v is J v
        u = tuple(zeros_like(out, requires_grad=True) for out in outputs)
        vjps = _vjp_of(outputs, inputs, u, create_graph=True)
        _check_requires_grad(vjps, "grad_inputs", strict)
    with set_grad_enabled(True if create_graph else _C.is_grad_enabled()):
        grads = _zeros_for_none(_vjp_of(vjps, u, v, create_graph=create_graph), outputs, strict, create_graph,
                                "back_trick")
    return _unpack(_finish(outputs, create_graph), outputs_tuple), _unpack(_finish(grads, create_graph),
                                                                            outputs_tuple)


def _standard_basis(tensors, numels):
    """For each tensor, its rows of the identity over all of them: a (sum(numels), numel) block."""
    total = sum(numels)
    blocks = []
    offset = 0
    for t, n in zip(tensors, numels, strict=True):
        block = zeros(total, n, dtype=t.dtype, device=t.device)
        block.diagonal(-offset).fill_(1)
        blocks.append(block)
        offset += n
    return tuple(blocks)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """The Jacobian of func at inputs: for each output and input, a tensor of shape
    output.shape + input.shape."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
                             'function has more outputs than inputs, "forward-mode" tends to be more performant. '
                             'Otherwise, prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        raise NotImplementedError(_NO_FORWARD_AD.format('jacobian(strategy="forward-mode")'))
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jacobian")
        _check_requires_grad(outputs, "outputs", strict)
        if vectorize:
            if strict:
                raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
                                   "supported together. Please either set `strict=False` or `vectorize=False`.")
            result = _jacobian_batched(outputs, inputs, create_graph)
        else:
            result = _jacobian_rows(outputs, inputs, create_graph, strict)
        return _unpack(_finish(result, create_graph), (outputs_tuple, inputs_tuple))


def _jacobian_batched(outputs, inputs, create_graph):
    numels = tuple(out.numel() for out in outputs)
    basis = _standard_basis(outputs, numels)
    flat = tuple(out.reshape(-1) for out in outputs)
    rows = list(_vjp_of(flat, inputs, basis, create_graph=create_graph, is_grads_batched=True))
    for i, r in enumerate(rows):
        if r is None:
            rows[i] = zeros_like(inputs[i]).expand((sum(numels),) + tuple(inputs[i].shape))
    per_input = [[part.view(tuple(out.shape) + tuple(inp.shape))
                  for part, out in zip(r.split(list(numels), 0), outputs, strict=True)]
                 for r, inp in zip(rows, inputs, strict=True)]
    return tuple(zip(*per_input, strict=True))


def _jacobian_rows(outputs, inputs, create_graph, strict):
    """One backward per output element, each giving a row of every input's block."""
    result = []
    for i, out in enumerate(outputs):
        rows = [[] for _ in inputs]
        for k in range(out.nelement()):
            grads = _vjp_of((out.reshape(-1)[k],), inputs, retain_graph=True, create_graph=create_graph)
            for j, (g, inp) in enumerate(zip(grads, inputs, strict=True)):
                if g is None:
                    if strict:
                        raise RuntimeError(f"Output {i} of the user-provided function is independent of input {j}. "
                                           "This is not allowed in strict mode.")
                    g = zeros_like(inp)
                elif strict and create_graph and not g.requires_grad:
                    raise RuntimeError(f"The jacobian of the user-provided function is independent of input {i}. "
                                       "This is not allowed in strict mode when create_graph=True.")
                rows[j].append(g)
        result.append(tuple(_stack(r, 0).view(tuple(out.size()) + tuple(inputs[j].size()))
                            for j, r in enumerate(rows)))
    return tuple(result)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a function with one single-element output: the Jacobian of its gradient."""
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')
    if outer_jacobian_strategy == "forward-mode":
        raise NotImplementedError(_NO_FORWARD_AD.format('hessian(outer_jacobian_strategy="forward-mode")'))

    def scalar_func(*inp):
        out = func(*inp)
        out_tuple, outs = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(outs, "outputs", strict)
        if out_tuple or not isinstance(out, _C.TensorBase):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.nelement() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should contain a single element")
        return out.squeeze()

    def gradient(*inp):
        jac = jacobian(scalar_func, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    result = jacobian(gradient, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize)
    return _unpack(result, (inputs_tuple, inputs_tuple))


def _scalar_output(func, inputs, name, strict):
    outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", name)
    _check_requires_grad(outputs, "outputs", strict)
    if outputs_tuple or not isinstance(outputs[0], _C.TensorBase):
        raise RuntimeError(f"The function given to {name} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {name} should contain a single element")
    return outputs_tuple, outputs


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """func(*inputs) and the vector-Hessian product v^T H at inputs."""
    with enable_grad():
        inputs_tuple, inputs, v = _inputs_and_v(inputs, v, create_graph, "vhp")
        outputs_tuple, outputs = _scalar_output(func, inputs, "vhp", strict)
        jac = _vjp_of(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
    with set_grad_enabled(True if create_graph else _C.is_grad_enabled()):
        grads = _zeros_for_none(_vjp_of(jac, inputs, v, create_graph=create_graph), inputs, strict, create_graph,
                                "double_back")
    return _unpack(_finish(outputs, create_graph), outputs_tuple), _unpack(_finish(grads, create_graph), inputs_tuple)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """func(*inputs) and the Hessian-vector product H v at inputs (the double-vjp trick on the gradient)."""
    with enable_grad():
        inputs_tuple, inputs, v = _inputs_and_v(inputs, v, create_graph, "hvp")
        outputs_tuple, outputs = _scalar_output(func, inputs, "hvp", strict)
        jac = _vjp_of(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        u = tuple(zeros_like(inp, requires_grad=True) for inp in inputs)
        double_back = _vjp_of(jac, inputs, u, create_graph=True)
        _check_requires_grad(jac, "hessian", strict)
    with set_grad_enabled(True if create_graph else _C.is_grad_enabled()):
        grads = _zeros_for_none(_vjp_of(double_back, u, v, create_graph=create_graph), inputs, strict, create_graph,
                                "double_back_trick")
    return _unpack(_finish(outputs, create_graph), outputs_tuple), _unpack(_finish(grads, create_graph), inputs_tuple)
