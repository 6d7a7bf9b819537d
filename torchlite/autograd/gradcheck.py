"""gradcheck and gradgradcheck (torch/autograd/gradcheck.py, slow mode):
Jacobians by central finite differences compared with Jacobians built row by
row from backward, in float64. Failures raise GradcheckError with torch's
messages. torch's fast mode, forward-mode AD and batched-grad checks are not
ported (torchlite has no forward AD or vmap)."""
import warnings
from itertools import product
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _C, _backend
from .._dtypes import float64
from .._factories import from_numpy, tensor, zeros, zeros_like
from ._backward import grad
from .function import Function

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    r"""Error raised by :func:`gradcheck` and :func:`gradgradcheck`."""


class UndefinedGrad(Function):
    """torch._C._functions.UndefinedGrad: the identity whose backward sends an
    undefined gradient, to check that backward formulas treat it as zero."""

    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        return None


def _as_tuple(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _is_float_tensor(x):
    return isinstance(x, _C.TensorBase) and x.dtype.is_floating_point


def _iter_tensors(x, only_requiring_grad=False):
    if isinstance(x, _C.TensorBase):
        if x.requires_grad or not only_requiring_grad:
            yield x
    elif isinstance(x, (list, tuple)):
        for elem in x:
            yield from _iter_tensors(elem, only_requiring_grad)


def _differentiable_outputs(x):
    return tuple(o for o in _as_tuple(x) if o.requires_grad)


def _jacobian_tensor(array):
    return tensor(array)


def _check_inputs(tupled_inputs):
    any_input_requiring_grad = False
    for idx, inp in enumerate(tupled_inputs):
        if isinstance(inp, _C.TensorBase) and inp.requires_grad:
            if inp.dtype is not float64:
                warnings.warn(
                    f"Input #{idx} requires gradient and "
                    "is not a double precision floating point or complex. "
                    "This check will likely fail if all the inputs are "
                    "not of double precision floating point or complex. ",
                    stacklevel=3,
                )
            arr = inp._array
            if not all(st > 0 or sz <= 1 for st, sz in zip(arr.strides, arr.shape, strict=True)):
                raise RuntimeError(
                    f"The {idx}th input has a dimension with stride 0. gradcheck only "
                    "supports inputs that are non-overlapping to be able to "
                    "compute the numerical gradients correctly. You should call "
                    ".contiguous on the input before passing it to gradcheck.")
            any_input_requiring_grad = True
    if not any_input_requiring_grad:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, "
            "but none of them have requires_grad=True.")
    return True


def _check_outputs_same_dtype_and_shape(output1, output2, eps, idx=None):
    on_index = f"on index {idx} " if idx is not None else ""
    if output1.shape != output2.shape:
        raise AssertionError(
            f"Expected `func` to return outputs with the same shape"
            f" when inputs are perturbed {on_index}by {eps}, but got:"
            f" shapes {output1.shape} and {output2.shape}.")
    if output1.dtype != output2.dtype:
        raise AssertionError(
            f"Expected `func` to return outputs with the same dtype"
            f" when inputs are perturbed {on_index}by {eps}, but got:"
            f" dtypes {output1.dtype} and {output2.dtype}.")


def _get_numerical_jacobian(fn, inputs, outputs, eps):
    """jacobians[i][k]: d outputs[k] / d (i-th input requiring grad), shaped
    (input numel, output numel), for every float output (torch's layout)."""
    jacobians = []
    for inp in _iter_tensors(inputs, True):
        # Perturb the input's memory in place, as torch perturbs `input.data`,
        # so that fn sees the same tensor object (gradgradcheck needs that).
        x = inp._array
        float_outputs = [o for o in outputs if _is_float_tensor(o)]
        cols = [np.zeros((x.size, o._array.size), dtype=x.dtype) for o in float_outputs]
        for d_idx, x_idx in enumerate(product(*[range(m) for m in x.shape])):
            orig = x[x_idx].copy()
            x[x_idx] = orig - eps
            outa = [np.array(o._array, copy=True) for o in _as_tuple(fn(*inputs)) if _is_float_tensor(o)]
            x[x_idx] = orig + eps
            outb = [np.array(o._array, copy=True) for o in _as_tuple(fn(*inputs)) if _is_float_tensor(o)]
            x[x_idx] = orig
            for k, (a, b) in enumerate(zip(outa, outb, strict=True)):
                _check_outputs_same_dtype_and_shape(a, b, eps, x_idx)
                cols[k][d_idx] = ((b - a) / (2 * eps)).reshape(-1)
        jacobians.append(cols)
    return jacobians


def _compute_analytical_jacobian_rows(vjp_fn, sample_output):
    """rows[i][j]: the j-th Jacobian row for the i-th input, v^T J with v the
    j-th standard basis vector."""
    # torch's zeros_like(output, memory_format=torch.legacy_contiguous_format)
    grad_out_base = zeros(sample_output.shape, dtype=sample_output.dtype, device=sample_output.device)
    flat = grad_out_base._array.reshape(-1)
    rows = []
    for j in range(flat.size):
        flat[...] = 0
        flat[j] = 1.0
        grad_inputs = vjp_fn(grad_out_base)
        for i, d_x in enumerate(grad_inputs):
            if j == 0:
                rows.append([])
            rows[i].append(d_x.clone() if isinstance(d_x, _C.TensorBase) else None)
    return rows


def _stack_and_check_tensors(rows, inputs, numel_output):
    diff_inputs = list(_iter_tensors(inputs, True))
    jacobians = []
    sizes_ok = types_ok = True
    for inp, tensor_list in zip(diff_inputs, rows, strict=False):  # no rows for an output with no elements
        jac = np.zeros((inp.numel(), numel_output), dtype=inp._array.dtype)
        for j, t in enumerate(tensor_list):
            if t is None:
                continue
            if t.shape != inp.shape:
                sizes_ok = False
                continue
            if t.dtype != inp.dtype:
                types_ok = False
            jac[:, j] = t._array.reshape(-1)
        jacobians.append(jac)
    return jacobians, types_ok, sizes_ok


def _check_jacobians_equal(j1, j2, atol):
    return all(a.size == 0 or np.abs(a - b).max() <= atol for a, b in zip(j1, j2, strict=True))


FAILED_NONDET_MSG = """\n
NOTE: If your op relies on non-deterministic operations i.e., it is listed here:
https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html
this failure might be expected.

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `nondet_tol=<tol>` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_nondet_tol=<tol>`.
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_nondet_tol=<tol>`
"""


def _check_analytical_jacobian_attributes(inputs, output, nondet_tol, check_grad_dtypes):
    diff_input_list = list(_iter_tensors(inputs, True))

    def vjp_fn(grad_output):
        return grad(output, diff_input_list, grad_output, retain_graph=True, allow_unused=True)

    # Computed twice to check for nondeterminism (which torch calls reentrancy).
    vjps1 = _compute_analytical_jacobian_rows(vjp_fn, output.clone())
    vjps2 = _compute_analytical_jacobian_rows(vjp_fn, output.clone())
    numel = output.numel()
    jacobians1, types_ok, sizes_ok = _stack_and_check_tensors(vjps1, inputs, numel)
    jacobians2, _, _ = _stack_and_check_tensors(vjps2, inputs, numel)
    reentrant = _check_jacobians_equal(jacobians1, jacobians2, nondet_tol)
    if not types_ok and check_grad_dtypes:
        raise GradcheckError("Gradient has dtype mismatch")
    if not sizes_ok:
        raise GradcheckError("Analytical gradient has incorrect size")
    if not reentrant:
        raise GradcheckError(
            "Backward is not reentrant, i.e., running backward with "
            "same input and grad_output multiple times gives different values, "
            "although analytical gradient matches numerical gradient."
            f"The tolerance for nondeterminism was {nondet_tol}." + FAILED_NONDET_MSG)
    return jacobians1


def _get_notallclose_msg(analytical, numerical, output_idx, input_idx):
    return (f"Jacobian mismatch for output {output_idx:d} with respect to input {input_idx:d},\n"
            f"numerical:{_jacobian_tensor(numerical)}\nanalytical:{_jacobian_tensor(analytical)}\n")


def _check_no_differentiable_outputs(func, inputs, func_out, eps):
    # With no differentiable output, the numerical gradient must be zero.
    for per_input in _get_numerical_jacobian(func, inputs, func_out, eps):
        for jacobian in per_input:
            if np.count_nonzero(jacobian) > 0:
                raise GradcheckError("Numerical gradient for function expected to be zero")
    return True


def _slow_gradcheck(func, func_out, tupled_inputs, outputs, eps, rtol, atol, check_grad_dtypes, nondet_tol):
    func_out = _as_tuple(func_out)
    if not outputs:
        return _check_no_differentiable_outputs(func, tupled_inputs, func_out, eps)
    # numerical[i][j]: output i with respect to input j (torch transposes the same way)
    numerical = list(zip(*_get_numerical_jacobian(func, tupled_inputs, func_out, eps), strict=True))
    float_outputs = [o for o in func_out if _is_float_tensor(o)]
    numerical = [nj for o, nj in zip(float_outputs, numerical, strict=True) if o.requires_grad]
    for i, o in enumerate(outputs):
        analytical = _check_analytical_jacobian_attributes(tupled_inputs, o, nondet_tol, check_grad_dtypes)
        # analytical is empty for an output with no elements
        for j, (a, n) in enumerate(zip(analytical, numerical[i], strict=False)):
            if not np.allclose(a, n, rtol, atol):
                raise GradcheckError(_get_notallclose_msg(a, n, i, j))
    return True


def _test_backward_mul_by_grad_output(outputs, inputs):
    diff_input_list = list(_iter_tensors(inputs, True))
    if not diff_input_list:
        raise GradcheckError("no Tensors requiring grad found in input")
    grads_input = grad(outputs, diff_input_list, [zeros_like(o) for o in outputs], allow_unused=True)
    for gi, di in zip(grads_input, diff_input_list, strict=True):
        if gi is None:
            continue
        if np.count_nonzero(gi._array) != 0:
            raise GradcheckError("backward not multiplied by grad_output")
        if gi.dtype != di.dtype:
            raise GradcheckError("grad is incorrect type")
        if gi.device != di.device:
            raise GradcheckError("grad is incorrect device")
        if gi.shape != di.shape:
            raise GradcheckError("grad is incorrect size")
    return True


def _test_undefined_backward_mode(func, outputs, inputs):
    diff_input_list = list(_iter_tensors(inputs, True))
    if not diff_input_list:
        raise GradcheckError("no Tensors requiring grad found in input")

    def warn_bc_breaking():
        warnings.warn(
            "Backwards compatibility: New undefined gradient support checking "
            "feature is enabled by default, but it may break existing callers "
            "of this function. If this is true for you, you can call this "
            'function with "check_undefined_grad=False" to disable the feature',
            stacklevel=2)

    def check_undefined_grad_support(output_to_check):
        grads_output = [zeros_like(o) for o in output_to_check]
        try:
            grads_input = grad(output_to_check, diff_input_list, grads_output, allow_unused=True)
        except RuntimeError as e:
            warn_bc_breaking()
            raise GradcheckError(
                "Expected backward function to handle undefined output grads. "
                'Please look at "Notes about undefined output gradients" in '
                '"tools/autograd/derivatives.yaml"') from e
        for gi in grads_input:
            if gi is not None and np.count_nonzero(gi._array) != 0:
                warn_bc_breaking()
                raise GradcheckError(
                    "Expected all input grads to be undefined or zero when all output grads are undefined "
                    'or zero. Please look at "Notes about undefined output gradients" in '
                    '"tools/autograd/derivatives.yaml"')
        return True

    # Every backward must work when all its output grads are undefined ...
    outputs_to_check = [[UndefinedGrad.apply(o) for o in _differentiable_outputs(func(*inputs))]]
    # ... and, with several outputs, when any one of them is.
    if len(outputs_to_check[0]) > 1:
        for undef_grad_idx in range(len(outputs)):
            output_to_check = _differentiable_outputs(func(*inputs))
            outputs_to_check.append([UndefinedGrad.apply(o) if idx == undef_grad_idx else o
                                     for idx, o in enumerate(output_to_check)])
    return all(check_undefined_grad_support(output) for output in outputs_to_check)


def gradcheck(func: Callable[..., Any], inputs: Any, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, nondet_tol: float = 0.0, check_undefined_grad: bool = True,
              check_grad_dtypes: bool = False) -> bool:
    r"""Check gradients computed via small finite differences against analytical
    gradients wrt tensors in :attr:`inputs` that are of floating point type
    and with ``requires_grad=True``. Returns True, or raises GradcheckError
    (returns False when ``raise_exception=False``)."""
    try:
        return _gradcheck_helper(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad,
                                 check_grad_dtypes)
    except GradcheckError:
        if raise_exception:
            raise
        return False


def _gradcheck_helper(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad, check_grad_dtypes):
    tupled_inputs = _as_tuple(inputs)
    _check_inputs(tupled_inputs)
    func_out = func(*tupled_inputs)
    outputs = _differentiable_outputs(func_out)
    _slow_gradcheck(func, func_out, tupled_inputs, outputs, eps, rtol, atol, check_grad_dtypes, nondet_tol)
    _test_backward_mul_by_grad_output(outputs, tupled_inputs)
    if check_undefined_grad:
        _test_undefined_backward_mode(func, outputs, tupled_inputs)
    return True


def _make_grad_output(x, noncontiguous):
    """torch.testing.make_tensor(..., low=-1, high=1, requires_grad=True)."""
    shape = tuple(x.shape)
    np_dtype = x._array.dtype if x.dtype.is_floating_point else np.dtype(np.float64)
    # seeded from the default generator, so manual_seed makes it repeatable
    rng = np.random.default_rng(_backend.generator().random64())
    if noncontiguous and x.numel() > 1:
        # every other element of a buffer twice as long in the last dimension
        full = rng.uniform(-1, 1, shape[:-1] + (2 * shape[-1],)).astype(np_dtype)
        arr = full[..., ::2]
    else:
        arr = rng.uniform(-1, 1, shape).astype(np_dtype)
    return _backend.place(from_numpy(arr), x.device).requires_grad_()  # on the output's device, as torch's


def gradgradcheck(func: Callable[..., Any], inputs: Any, grad_outputs: Any = None, *, eps: float = 1e-6,
                  atol: float = 1e-5, rtol: float = 1e-3, gen_non_contig_grad_outputs: bool = False,
                  raise_exception: bool = True, nondet_tol: float = 0.0, check_undefined_grad: bool = True,
                  check_grad_dtypes: bool = False) -> bool:
    r"""Check gradients of gradients computed via small finite differences
    against analytical gradients wrt tensors in :attr:`inputs` and
    :attr:`grad_outputs` that are of floating point type and with
    ``requires_grad=True``: gradcheck of the function that maps
    (inputs, grad_outputs) to the gradients of ``func`` with create_graph=True."""
    tupled_inputs = _as_tuple(inputs)
    if grad_outputs is None:
        # random grad_outputs shaped like the outputs
        outputs = _differentiable_outputs(func(*tupled_inputs))
        tupled_grad_outputs = tuple(_make_grad_output(x, gen_non_contig_grad_outputs) for x in outputs)
    else:
        tupled_grad_outputs = _as_tuple(grad_outputs)
    num_outputs = len(tupled_grad_outputs)

    # which arguments require grad, recorded before gradcheck perturbs them
    diff_input_args_indices = {i for i, x in enumerate(tupled_inputs)
                               if isinstance(x, _C.TensorBase) and x.requires_grad}
    diff_grad_output_indices = {i for i, x in enumerate(tupled_grad_outputs) if x.requires_grad}

    def new_func(*args):
        input_args = tuple(x.requires_grad_() if i in diff_input_args_indices else x
                           for i, x in enumerate(args[:-num_outputs]))
        outputs = _differentiable_outputs(func(*input_args))
        grad_outputs = tuple(x.requires_grad_() if i in diff_grad_output_indices else x
                             for i, x in enumerate(args[-num_outputs:]))
        diff_input_args = tuple(x for i, x in enumerate(input_args) if i in diff_input_args_indices)
        grad_inputs = grad(outputs, diff_input_args, grad_outputs, create_graph=True, allow_unused=True)
        return tuple(g for g in grad_inputs if g is not None)

    return gradcheck(new_func, tupled_inputs + tupled_grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad, check_grad_dtypes=check_grad_dtypes)
