"""The optimizers' in-place updates without the dispatcher, where that changes nothing.

An optimizer's step runs under no_grad on dense tensors, and each of its in-place updates
(exp_avg.lerp_(grad, w), exp_avg_sq.addcmul_(grad, grad, value=v), param.addcdiv_(exp_avg,
denom, value=v)) goes through the structured in-place variant (_ops/structured_inplace.py):
argument parsing, the overlap checks, the functional kernel with its records captured, the
write, the version bump. Where grad mode is off and every operand is a contiguous numpy array
of self's float dtype and shape that shares no memory with self, none of those checks can
refuse and no node is recorded, so `lerp_` / `addcmul_` / `addcdiv_` here compute the same
kernel expression (the same numpy operations, so the same bits), write it into self, bump
self's version and rebase its history as the variant does. Anything else takes the ordinary
method."""
import math

import numpy as np

from .. import _C
from .._C import _rebase_history
from .._ops import mutation as _mutation
from .._ops.BinaryOps import _lerp
from .._ops.ScalarType import _F32_MAX, _scalar_value
from .._ops.TensorIterator import _loud, _quiet

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def plain(self, *others):
    """Whether in-place updates of `self` from `others` may skip the dispatcher."""
    a = self._array
    if type(a) is not np.ndarray or not a.ndim or a.dtype not in _FLOATS or not a.flags.c_contiguous:
        return False
    if _mutation.hook is not None or _C.is_grad_enabled() or self.is_inference():
        return False
    for t in others:
        b = t._array
        if (type(b) is not np.ndarray or b.dtype != a.dtype or b.shape != a.shape or not b.flags.c_contiguous
                or t.is_inference() or np.may_share_memory(a, b)):
            return False
    return True


def _write(self, compute, *args):
    """compute(self's array, *args), which writes self's new value into it; then the version bump
    and rebase_history of the structured in-place variant."""
    _C._check_inplace(self, False)
    token = _quiet()
    try:
        compute(self._array, *args)
    finally:
        _loud(token)
    self._bump_version()
    return _rebase_history(self, None)


def _lerp_into(s, e, w):
    # BinaryOps._lerp of a scalar weight (its one-coefficient path: one rounding of the product
    # and sum)
    np.copyto(s, _lerp(s, e, np.asarray(w).astype(s.dtype), s.dtype))


def _addcmul_into(s, x, y, v):
    # BinaryOps._addc: s + v * x * y, in s's dtype, left to right
    t = np.multiply(v, x)
    np.multiply(t, y, out=t)
    np.add(s, t, out=s)


def _addcdiv_into(s, x, y, v):
    # BinaryOps._addc: s + v * x / y, in s's dtype, left to right
    t = np.multiply(v, x)
    np.true_divide(t, y, out=t)
    np.add(s, t, out=s)


def lerp_(self, end, weight):
    """self.lerp_(end, weight) for a Python float weight (BinaryOps.lerp's kernel)."""
    return _write(self, _lerp_into, end._array, weight)


def addcmul_(self, tensor1, tensor2, value):
    """self.addcmul_(tensor1, tensor2, value=value) (BinaryOps._addc's kernel)."""
    return _write(self, _addcmul_into, tensor1._array, tensor2._array, _scalar_value(value, self._array.dtype))


def addcdiv_(self, tensor1, tensor2, value):
    """self.addcdiv_(tensor1, tensor2, value=value) (BinaryOps._addc's kernel)."""
    return _write(self, _addcdiv_into, tensor1._array, tensor2._array, _scalar_value(value, self._array.dtype))


def _float32_operand(x):
    """x (a Python float or int) as the float32 a kernel reads it in, or None where that is not
    a plain rounding (nan, inf, beyond float32's range: those cases keep the ordinary path)."""
    if type(x) not in (float, int) or not math.isfinite(x) or abs(x) > _F32_MAX:
        return None
    return np.float32(x)


def _bump(self):
    # what _write does around its kernel, once per in-place update the step makes
    _C._check_inplace(self, False)
    self._bump_version()
    _rebase_history(self, None)


def adam_step(param, grad, exp_avg, exp_avg_sq, step, lr, beta1, beta2, weight_decay, eps):
    """The single-tensor Adam step of a float32 parameter (adam.py, with decoupled weight decay
    or none, no amsgrad) as one C++ pass (Note [The single-tensor Adam step in one pass]): the
    same values, version bumps and checks as its eight in-place updates. False, with nothing
    done, where it does not apply (other dtypes, layouts or scalars: the ordinary path runs)."""
    if type(beta1) is not float or param._array.dtype != np.float32 or not (
            plain(param, grad, exp_avg, exp_avg_sq) and plain(exp_avg, grad) and plain(exp_avg_sq, grad)):
        return False
    try:  # (the ordinary path's own errors, e.g. a zero bias correction, are raised by it)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        step_size = lr / bias_correction1
    except (ArithmeticError, TypeError):
        return False
    if not (isinstance(bias_correction2, float) and bias_correction2 >= 0):
        return False
    decay = _float32_operand(1 - lr * weight_decay) if weight_decay != 0 else None
    weight = np.asarray(1 - beta1).astype(np.float32)[()]
    scalars = (_float32_operand(beta2), _float32_operand(1 - beta2), _float32_operand(bias_correction2 ** 0.5),
               _float32_operand(eps), _float32_operand(-step_size))
    if (weight_decay != 0 and decay is None) or any(v is None for v in scalars):
        return False
    # lerp_'s coefficient and base (BinaryOps._lerp of a scalar weight)
    from_end = not abs(weight) < 0.5
    coefficient = weight - np.float32(1) if from_end else weight
    token = _quiet()
    try:
        _C._adam_step_float32_host(param._array, grad._array, exp_avg._array, exp_avg_sq._array,
                                   None if decay is None else float(decay), from_end, float(coefficient),
                                   *(float(v) for v in scalars))
    finally:
        _loud(token)
    if decay is not None:
        _bump(param)  # param.mul_
    _bump(exp_avg)  # lerp_
    _bump(exp_avg_sq)  # mul_
    _bump(exp_avg_sq)  # addcmul_
    _bump(param)  # addcdiv_
    return True
