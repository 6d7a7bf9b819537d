"""The pointwise losses with nodes of their own (ATen/native/Loss.cpp, BinaryCrossEntropy.cpp):
mse_loss, smooth_l1_loss, huber_loss, binary_cross_entropy, binary_cross_entropy_with_logits, and the
backward ops upstream gives derivative entries (mse_loss_backward, ...). `reduction` is
at::Reduction's enum: 0 none, 1 mean, 2 sum. l1_loss and kl_div are compositions (nn/functional.py
and here), as upstream's. A kernel's `reduction` defaults to none where the schema says `reduction=Mean`:
torch's Python bindings read that default as 0 (torch.kl_div(x, y) is unreduced), and the kernels are
what torchlite.kl_div calls; torch.nn.functional passes the reduction always."""
import numpy as np

from .. import _C
from .._C import _record, _wrap
from .._generated import specs as _S
from .BinaryOps import mul, sub, xlogy
from .ExpandUtils import _broadcast_shapes
from .ReduceOps import mean, sum  # noqa: A004 - torch's name
from .ScalarType import _f16, _f32, _torch_type_name
from .TensorIterator import _loud, _quiet, _result_type
from .UnaryOps import abs, exp  # noqa: A004 - torch's name

NONE, MEAN, SUM = 0, 1, 2


def _c(a):
    return a.astype(_f32) if a.dtype == _f16 else a


def _reduce(r, reduction, dtype):
    """apply_loss_reduction on an array: none, mean or sum."""
    if reduction == MEAN:
        return np.asarray(np.mean(r) if r.size else np.float64("nan"), dtype=dtype)
    if reduction == SUM:
        return np.asarray(np.sum(r), dtype=dtype)
    return np.array(r, dtype=dtype, order="C")


def _pair(self, target, name):
    s, t = self._array, target._array
    if s.shape != t.shape:
        _broadcast_shapes(s.shape, t.shape)  # torch's error where they do not broadcast
        s, t = np.broadcast_arrays(s, t)
    dtype = _result_type(self._array, target._array)
    if dtype.kind != "f":
        raise NotImplementedError(f"\"{name}\" not implemented for '{_torch_type_name(dtype)}'")
    return _c(s.astype(dtype, copy=False)), _c(t.astype(dtype, copy=False)), dtype


def _run(fn, *arrays):
    token = _quiet()
    try:
        return fn(*arrays)
    finally:
        _loud(token)


def _norm(reduction, n):
    return 1.0 / n if reduction == MEAN and n else 1.0


# mse_loss --------------------------------------------------------------------------------------------

def mse_loss(self, target, reduction=NONE):
    s, t, dtype = _pair(self, target, "mse_cpu")
    r = _reduce(_run(lambda s, t: (s - t) ** 2, s, t), reduction, dtype)
    return _record(_S.MseLossBackward0, (self, target), _wrap(r, self), self=self, target=target,
                   reduction=reduction)


def mse_loss_backward(grad_output, self, target, reduction):
    s, t, dtype = _pair(self, target, "mse_backward_cpu")
    g = _c(grad_output._array)
    norm = 2.0 / s.size if reduction == MEAN and s.size else 2.0
    r = _run(lambda s, t, g: norm * (s - t) * g, s, t, g)
    out = _wrap(np.array(np.broadcast_to(r, s.shape), dtype=dtype, order="C"), grad_output)
    return _record(_S.MseLossBackwardBackward0, (grad_output, self, target), out, grad_output=grad_output,
                   self=self, target=target, reduction=reduction)


# smooth_l1_loss, huber_loss ------------------------------------------------------------------------

def smooth_l1_loss(self, target, reduction=NONE, beta=1.0):
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    s, t, dtype = _pair(self, target, "smooth_l1_cpu")

    def fn(s, t):
        z = np.abs(s - t)
        return np.where(z < beta, 0.5 * z * z / beta if beta else z, z - 0.5 * beta)
    r = _reduce(_run(fn, s, t), reduction, dtype)
    return _record(_S.SmoothL1LossBackward0, (self, target), _wrap(r, self), self=self, target=target,
                   reduction=reduction, beta=beta)


def smooth_l1_loss_backward(grad_output, self, target, reduction, beta):
    s, t, dtype = _pair(self, target, "smooth_l1_backward_cpu")
    g = _c(grad_output._array)
    norm = _norm(reduction, s.size)

    def fn(s, t, g):
        x = s - t
        inner = norm * x * g / beta if beta else np.zeros_like(x)
        return np.where(x <= -beta, -norm * g, np.where(x >= beta, norm * g, inner))
    r = _run(fn, s, t, g)
    out = _wrap(np.array(np.broadcast_to(r, s.shape), dtype=dtype, order="C"), grad_output)
    return _record(_S.SmoothL1LossBackwardBackward0, (grad_output, self, target), out, grad_output=grad_output,
                   self=self, target=target, reduction=reduction, beta=beta)


def huber_loss(self, target, reduction=NONE, delta=1.0):
    if not delta > 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    s, t, dtype = _pair(self, target, "huber_cpu")

    def fn(s, t):
        z = np.abs(s - t)
        return np.where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta))
    r = _reduce(_run(fn, s, t), reduction, dtype)
    return _record(_S.HuberLossBackward0, (self, target), _wrap(r, self), self=self, target=target,
                   reduction=reduction, delta=delta)


def huber_loss_backward(grad_output, self, target, reduction, delta):
    s, t, dtype = _pair(self, target, "huber_backward_cpu")
    g = _c(grad_output._array)
    norm = _norm(reduction, s.size)

    def fn(s, t, g):
        x = s - t
        return np.where(x < -delta, -norm * g * delta, np.where(x > delta, norm * g * delta, norm * x * g))
    r = _run(fn, s, t, g)
    out = _wrap(np.array(np.broadcast_to(r, s.shape), dtype=dtype, order="C"), grad_output)
    return _record(_S.HuberLossBackwardBackward0, (grad_output, self, target), out, grad_output=grad_output,
                   self=self, target=target, reduction=reduction, delta=delta)


# binary_cross_entropy --------------------------------------------------------------------------------

def _bce_arrays(self, target, weight):
    s, t = self._array, target._array
    if s.shape != t.shape:
        raise RuntimeError(f"The size of tensor a ({s.shape[-1] if s.ndim else 1}) must match the size of tensor b "
                           f"({t.shape[-1] if t.ndim else 1}) at non-singleton dimension {max(s.ndim, t.ndim) - 1}")
    dtype = s.dtype
    w = None if weight is None else _c(np.broadcast_to(weight._array, s.shape).astype(dtype, copy=False))
    return _c(s), _c(t.astype(dtype, copy=False)), w, dtype


def binary_cross_entropy(self, target, weight=None, reduction=NONE):
    s, t, w, dtype = _bce_arrays(self, target, weight)
    if dtype.kind != "f":
        raise NotImplementedError(f"\"binary_cross_entropy\" not implemented for '{_torch_type_name(dtype)}'")
    if s.size and not np.all((s >= 0) & (s <= 1)):
        raise RuntimeError("all elements of input should be between 0 and 1")

    def fn(s, t):
        log_s = np.maximum(np.log(s), -100)
        log_1ms = np.maximum(np.log1p(-s), -100)
        loss = (t - 1) * log_1ms - t * log_s
        return loss * w if w is not None else loss
    r = _reduce(_run(fn, s, t), reduction, dtype)
    return _record(_S.BinaryCrossEntropyBackward0, (self, target), _wrap(r, self), self=self, target=target,
                   weight=weight, reduction=reduction)


def binary_cross_entropy_backward(grad_output, self, target, weight=None, reduction=MEAN):
    s, t, w, dtype = _bce_arrays(self, target, weight)
    g = _c(grad_output._array)
    norm = _norm(reduction, s.size)

    def fn(s, t, g):
        r = norm * g * (s - t) / np.maximum((1 - s) * s, 1e-12)
        return r * w if w is not None else r
    r = _run(fn, s, t, g)
    out = _wrap(np.array(np.broadcast_to(r, s.shape), dtype=dtype, order="C"), grad_output)
    return _record(_S.BinaryCrossEntropyBackwardBackward0, (grad_output, self, target), out,
                   grad_output=grad_output, self=self, target=target, weight=weight, reduction=reduction)


def binary_cross_entropy_with_logits(self, target, weight=None, pos_weight=None, reduction=NONE):
    """(1 - target) * x - log_sigmoid(x) * (1 + (pos_weight - 1) * target), times weight, reduced (ATen's
    formula, BinaryCrossEntropyWithLogitsBackward0)."""
    s, t = self._array, target._array
    dtype = _result_type(s, t)
    if dtype.kind != "f":
        raise NotImplementedError(f"\"log_sigmoid_cpu\" not implemented for '{_torch_type_name(dtype)}'")

    def fn(x, t):
        log_sig = np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))
        if pos_weight is not None:
            log_sig = log_sig * ((_c(pos_weight._array) - 1) * t + 1)
        loss = (1 - t) * x - log_sig
        return loss * _c(weight._array) if weight is not None else loss
    r = _run(fn, _c(s.astype(dtype, copy=False)), _c(t.astype(dtype, copy=False)))
    r = _reduce(r, reduction, dtype)
    return _record(_S.BinaryCrossEntropyWithLogitsBackward0, (self, target), _wrap(r, self), self=self,
                   target=target, weight=weight, pos_weight=pos_weight, reduction=reduction)


# soft_margin_loss --------------------------------------------------------------------------------------

def soft_margin_loss(self, target, reduction=NONE):
    """log(1 + exp(-target * self)), reduced (Loss.cpp), node SoftMarginLossBackward0."""
    if target.requires_grad and _C.is_grad_enabled():
        # (the check upstream's codegen writes for an argument without a formula)
        raise RuntimeError("The function 'soft_margin_loss' is not differentiable with respect to argument 'target'. "
                           "This input cannot have requires_grad True.")
    s, t, dtype = _pair(self, target, "soft_margin_loss")
    r = _reduce(_run(lambda s, t: np.log1p(np.exp(-t * s)), s, t), reduction, dtype)
    return _record(_S.SoftMarginLossBackward0, (self, target), _wrap(r, self), self=self, target=target,
                   reduction=reduction)


def soft_margin_loss_backward(grad_output, self, target, reduction):
    if target.requires_grad and _C.is_grad_enabled():
        # (target has no formula in soft_margin_loss_backward's entry either: the codegen's check)
        raise RuntimeError("The function 'soft_margin_loss_backward' is not differentiable with respect to argument "
                           "'target'. This input cannot have requires_grad True.")
    s, t, dtype = _pair(self, target, "soft_margin_loss_backward")
    g = _c(grad_output._array)
    norm = _norm(reduction, s.size)

    def fn(s, t, g):
        z = np.exp(-t * s)
        return -norm * t * z / (1 + z) * g
    r = _run(fn, s, t, g)
    out = _wrap(np.array(np.broadcast_to(r, s.shape), dtype=dtype, order="C"), grad_output)
    return _record(_S.SoftMarginLossBackwardBackward0, (grad_output, self, target), out, grad_output=grad_output,
                   self=self, target=target, reduction=reduction)


# kl_div ------------------------------------------------------------------------------------------------

def _apply_loss_reduction(t, reduction):
    if reduction == MEAN:
        return mean(t)
    if reduction == SUM:
        return sum(t)
    return t


def kl_div(self, target, reduction=NONE, *, log_target=False):
    """at::kl_div (Loss.cpp): exp(target) * (target - input) with log_target, else
    xlogy(target, target) - target * input, reduced."""
    if self._array.dtype.kind in "biu" or target._array.dtype.kind in "biu":
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        output = mul(exp(target), sub(target, self))
    else:
        output = sub(xlogy(target, target), mul(target, self))
    return _apply_loss_reduction(output, reduction)


def l1_loss(self, target, reduction=NONE):
    """at::l1_loss: apply_loss_reduction((input - target).abs(), reduction)."""
    return _apply_loss_reduction(abs(sub(self, target)), reduction)
