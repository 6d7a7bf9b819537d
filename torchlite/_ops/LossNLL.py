"""nll_loss and cross_entropy (ATen/native/LossNLL.cpp, LossNLL2d.cpp): nll_loss_forward /
nll_loss2d_forward (nodes NllLossBackward0 / NllLoss2DBackward0) and their backward ops, nll_loss_nd's
reshapes, and cross_entropy_loss composed as upstream composes it (log_softmax + nll_loss_nd; the
probability targets and label smoothing over torchlite's ops), so the nodes are torch's."""
import numpy as np

from .. import _C, _backend
from .._C import _record, _wrap
from .._generated import specs as _S
from .BinaryOps import _div_scalar, _mul_scalar, add, div, mul
from .IndexingOps import gather, masked_fill_, masked_select
from .ReduceOps import sum  # noqa: A004 - torch's name
from .ScalarType import _f16, _f32, _i64, _torch_type_name, _u8
from .SoftMax import log_softmax
from .TensorCompare import eq
from .TensorShape import view
from .TensorProperties import contiguous
from .UnaryOps import neg

NONE, MEAN, SUM = 0, 1, 2


def _shape(a):
    return "[" + ", ".join(str(n) for n in a.shape) + "]"


def _check_target_and_weight(x, t, weight):
    if t.dtype not in (_i64, _u8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {_torch_type_name(t.dtype)}")
    if weight is not None and weight._array.dtype != x.dtype:
        raise RuntimeError(f"expected scalar type {_torch_type_name(x.dtype)} but found "
                           f"{_torch_type_name(weight._array.dtype)}")


def _nll_arrays(self, target, weight, ignore_index, class_axis):
    """The picked log-probabilities -x[i, t_i] * w[t_i] (0 where ignored) and the weights w[t_i]."""
    x, t = self._array, _backend.to_host(target._array).astype(np.int64)
    if x.ndim == 1:
        t = t.reshape(())  # a 1-d input's target: 0-d or of size 1
    n_classes = x.shape[class_axis]
    ignored = t == ignore_index
    bad = ~ignored & ((t < 0) | (t >= n_classes))
    if bad.any():
        raise IndexError(f"Target {t[bad].flat[0]} is out of bounds.")
    safe = np.where(ignored, 0, t)
    xc = x.astype(_f32) if x.dtype == _f16 else x
    picked = np.take_along_axis(xc, np.expand_dims(safe, class_axis), axis=class_axis).squeeze(class_axis)
    w = np.ones(n_classes, dtype=xc.dtype) if weight is None else weight._array.astype(xc.dtype)
    tw = np.where(ignored, xc.dtype.type(0), w[safe])
    with np.errstate(all="ignore"):
        # an ignored row's loss is +0, whatever its logit (nll_loss_out_frame skips it: an infinite or nan
        # logit there must not make the loss nan)
        losses = np.where(ignored, xc.dtype.type(0), -picked * tw)
    return losses, tw, safe, ignored, xc.dtype


# _C._nll_loss_forward_host and _C._nll_loss_backward_host give the numpy path's values bit for bit
# (Note [Cross entropy with numpy's bits], csrc/autograd/python_fast_loss.cpp) for a C-contiguous
# 2-d float32 / float64 input, an int64 target and a weight of the input's dtype (or none); they
# return None where they do not apply (a target out of range among them) and the numpy path runs
# (and raises). Tests set _HOST_KERNELS to False to run the numpy path as the reference.
_HOST_KERNELS = True
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def _nll_host_args(self, target, weight, ignore_index):
    """(x, target, weight) arrays for the host kernels, or None where they cannot apply."""
    if not _HOST_KERNELS or type(ignore_index) is not int or not _INT64_MIN <= ignore_index <= _INT64_MAX:
        return None
    x = self._array
    if type(x) is not np.ndarray or x.ndim != 2:
        return None
    t = _backend.to_host(target._array)
    w = None if weight is None else weight._array
    if type(t) is not np.ndarray or (w is not None and type(w) is not np.ndarray):
        return None
    return x, t, w


def _reduce_nll(losses, tw, reduction, dtype):
    if reduction == NONE:
        return np.array(losses, dtype=dtype, order="C"), np.zeros((), dtype=dtype)
    with np.errstate(all="ignore"):
        total = np.sum(tw)
        loss = np.sum(losses)
        if reduction == MEAN:
            loss = loss / total
    return np.asarray(loss, dtype=dtype), np.asarray(total, dtype=dtype)


def _check_no_requires_grad(fn, **args):
    """Upstream's codegen check_no_requires_grad for the arguments its entry gives no formula
    (weight; total_weight of the backward ops): torch refuses one that requires grad, before the
    kernel's own checks, rather than leave it without a gradient."""
    if _C.is_grad_enabled():
        for name, t in args.items():
            if t is not None and t.requires_grad:
                raise RuntimeError(f"The function '{fn}' is not differentiable with respect to argument '{name}'. "
                                   "This input cannot have requires_grad True.")


def nll_loss_forward(self, target, weight, reduction, ignore_index):
    _check_no_requires_grad("nll_loss_forward", weight=weight)
    x, t = self._array, target._array
    if not 0 < x.ndim <= 2:
        raise RuntimeError("input tensor should be 1D or 2D")
    if t.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if x.ndim == 1 and t.ndim == 1:
        if t.shape[0] != 1:
            raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: {t.shape[0]}")
    elif not (x.ndim == 1 and t.ndim == 0) and x.shape[0] != (t.shape[0] if t.ndim else 1):
        raise RuntimeError(f"size mismatch (got input: {_shape(x)}, target: {_shape(t)})")
    n_classes = x.shape[-1]
    if weight is not None and (weight._array.ndim != 1 or weight._array.size != n_classes):
        raise RuntimeError(f"weight tensor should be defined either for all {n_classes} classes or no classes but "
                           f"got weight tensor of shape: {_shape(weight._array)}")
    _check_target_and_weight(x, t, weight)
    host = _nll_host_args(self, target, weight, ignore_index)
    fast = None
    if host is not None:
        limit = np.getbufsize() if reduction != NONE else x.shape[0]  # (numpy's sums over N: whole rows)
        fast = _C._nll_loss_forward_host(*host, reduction, ignore_index, limit)
    if fast is not None:
        r, total = fast
    else:
        losses, tw, _, _, _ = _nll_arrays(self, target, weight, ignore_index, x.ndim - 1)
        r, total = _reduce_nll(losses.reshape(()) if x.ndim == 1 else losses, tw, reduction, x.dtype)
    total_weight = _wrap(total, self)
    out = _record(_S.NllLossBackward0, (self,), _wrap(r, self), self=self, target=target, weight=weight,
                  reduction=reduction, ignore_index=ignore_index, total_weight=total_weight)
    return out, total_weight


def nll_loss2d_forward(self, target, weight, reduction, ignore_index):
    _check_no_requires_grad("nll_loss2d_forward", weight=weight)
    x, t = self._array, target._array
    if x.ndim != 4:
        raise RuntimeError(f"only batches of spatial inputs supported (4D tensors), but got input of size: "
                           f"{_shape(x)}")
    if t.ndim != 3:
        raise RuntimeError(f"only batches of spatial targets supported (3D tensors) but got targets of size: "
                           f"{_shape(t)}")
    if x.shape[0] != t.shape[0] or x.shape[2:] != t.shape[1:]:
        raise RuntimeError(f"size mismatch (got input: {_shape(x)} , target: {_shape(t)}")
    n_classes = x.shape[1]
    if weight is not None and weight._array.size != n_classes:
        raise RuntimeError(f"weight tensor should be defined either for all {n_classes} classes or no classes but "
                           f"got weight tensor of shape: {_shape(weight._array)}")
    _check_target_and_weight(x, t, weight)
    losses, tw, _, _, _ = _nll_arrays(self, target, weight, ignore_index, 1)
    r, total = _reduce_nll(losses, tw, reduction, x.dtype)
    total_weight = _wrap(total, self)
    out = _record(_S.NllLoss2DBackward0, (self,), _wrap(r, self), self=self, target=target, weight=weight,
                  reduction=reduction, ignore_index=ignore_index, total_weight=total_weight)
    return out, total_weight


def _nll_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight, class_axis):
    x = self._array
    if x.ndim == 1 and target._array.ndim == 1:
        # torch's nll_loss_backward refuses what its forward accepted (a 1-d input, a target of size 1)
        raise RuntimeError(f"size mismatch (got input: {_shape(x)}, target: {_shape(target._array)})")
    _, tw, safe, ignored, dtype = _nll_arrays(self, target, weight, ignore_index, class_axis)
    g = grad_output._array.astype(dtype)
    if reduction == MEAN:
        with np.errstate(all="ignore"):
            g = g / total_weight._array.astype(dtype)
    grad = np.zeros(x.shape, dtype=dtype)
    with np.errstate(all="ignore"):
        picked = np.where(ignored, dtype.type(0), -tw * g)  # (an ignored row's gradient stays 0, as upstream's)
    np.put_along_axis(grad, np.expand_dims(safe, class_axis), np.expand_dims(picked, class_axis), axis=class_axis)
    return np.array(grad, dtype=x.dtype, order="C")


def nll_loss_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight):
    _check_no_requires_grad("nll_loss_backward", weight=weight, total_weight=total_weight)
    x = self._array
    host = _nll_host_args(self, target, weight, ignore_index)
    r = None
    if host is not None:
        r = _C._nll_loss_backward_host(grad_output._array, *host, reduction, ignore_index, total_weight._array)
    if r is None:
        r = _nll_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight, x.ndim - 1)
    return _record(_S.NllLossBackwardBackward0, (grad_output, self), _wrap(r, grad_output), target=target,
                   weight=weight, reduction=reduction, ignore_index=ignore_index)


def nll_loss2d_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight):
    _check_no_requires_grad("nll_loss2d_backward", weight=weight, total_weight=total_weight)
    r = _nll_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight, 1)
    return _record(_S.NllLoss2DBackwardBackward0, (grad_output, self), _wrap(r, grad_output), target=target,
                   weight=weight, reduction=reduction, ignore_index=ignore_index)


def nll_loss(self, target, weight=None, reduction=NONE, ignore_index=-100):
    return nll_loss_forward(self, target, weight, reduction, ignore_index)[0]


def nll_loss2d(self, target, weight=None, reduction=NONE, ignore_index=-100):
    return nll_loss2d_forward(self, target, weight, reduction, ignore_index)[0]


def nll_loss_nd(self, target, weight=None, reduction=NONE, ignore_index=-100):
    """LossNLL.cpp's nll_loss_nd: nll_loss for 1-2 dims, nll_loss2d for 4, others viewed as 4-d."""
    x, t = self._array, target._array
    if x.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {x.ndim})")
    if x.ndim != 1 and x.shape[0] != (t.shape[0] if t.ndim else 1):
        raise ValueError(f"Expected input batch_size ({x.shape[0]}) to match target batch_size "
                         f"({t.shape[0] if t.ndim else 1}).")
    if x.ndim in (1, 2):
        return nll_loss(self, target, weight, reduction, ignore_index)
    if x.ndim == 4:
        return nll_loss2d(self, target, weight, reduction, ignore_index)
    n, c = x.shape[0], x.shape[1]
    out_size = (n, *x.shape[2:])
    if t.shape[1:] != x.shape[2:]:
        raise RuntimeError(f"Expected target size {list(out_size)}, got {list(t.shape)}")
    inp, tgt = contiguous(self), contiguous(target)
    inp = view(inp, (n, c, 1, -1) if x.size else (n, c, 0, 0))
    tgt = view(tgt, (n, 1, -1) if t.size else (n, 0, 0))
    out = nll_loss2d(inp, tgt, weight, reduction, ignore_index)
    return out if reduction != NONE else view(out, out_size)


# cross_entropy -----------------------------------------------------------------------------------------

def _weight_view(weight, ndim, class_dim):
    if ndim <= 1:
        return weight
    shape = [1] * ndim
    shape[class_dim] = weight._array.shape[0]
    return view(weight, tuple(shape))


def _cross_entropy_prob_target(self, target, weight, reduction, label_smoothing):
    class_dim = 0 if self._array.ndim == 1 else 1
    n_classes = self._array.shape[class_dim]
    if weight is not None and (weight._array.ndim != 1 or weight._array.size != n_classes):
        raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all {n_classes} classes or no "
                           f"classes but got weight tensor of shape: {_shape(weight._array)}")
    inp = log_softmax(self, class_dim, None)
    if label_smoothing > 0.0:
        if label_smoothing > 1.0:
            raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing:g}")
        target = add(_mul_scalar(target, 1 - label_smoothing), label_smoothing / n_classes)
    prod = mul(inp, target)
    if weight is not None:
        prod = mul(prod, _weight_view(weight, inp._array.ndim, class_dim))
    if reduction == MEAN:
        if inp._array.size == 0:
            total = neg(sum(prod))
            total._array.fill(np.nan)
            return total
        return _div_scalar(neg(sum(prod)), inp._array.size // n_classes)
    if reduction == SUM:
        return neg(sum(prod))
    return neg(sum(prod, class_dim))


def _cross_entropy_label_smoothing(self, target, weight, reduction, ignore_index, label_smoothing):
    class_dim = 0 if self._array.ndim == 1 else 1
    n_classes = self._array.shape[class_dim]
    inp = log_softmax(self, class_dim, None)
    nllloss = nll_loss_nd(inp, target, weight, reduction, ignore_index)
    ignore_mask = eq(target, ignore_index)
    if weight is not None:
        smooth_loss = neg(sum(mul(inp, _weight_view(weight, inp._array.ndim, class_dim)), class_dim))
    else:
        smooth_loss = neg(sum(inp, class_dim))
    masked_fill_(smooth_loss, ignore_mask, 0.0)
    if reduction == MEAN:
        if weight is not None:
            kept = masked_select(target, _wrap(~ignore_mask._array, ignore_mask))
            ret = div(sum(smooth_loss), sum(gather(weight, 0, kept.reshape(-1))))
        else:
            ret = div(sum(smooth_loss), sum(_wrap(~ignore_mask._array, ignore_mask)))
    elif reduction == SUM:
        ret = sum(smooth_loss)
    else:
        ret = smooth_loss
    return add(_mul_scalar(nllloss, 1 - label_smoothing), _mul_scalar(ret, label_smoothing / n_classes))


def cross_entropy_loss(self, target, weight=None, reduction=NONE, ignore_index=-100, label_smoothing=0.0):
    """LossNLL.cpp's cross_entropy_loss: probabilities where target has input's shape, else class indices
    (log_softmax + nll_loss_nd, or with label smoothing)."""
    if self._array.shape == target._array.shape:
        if target._array.dtype.kind != "f":
            raise RuntimeError("Expected floating point type for target with class probabilities, got "
                               f"{_torch_type_name(target._array.dtype)}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _cross_entropy_prob_target(self, target, weight, reduction, label_smoothing)
    if label_smoothing > 0.0:
        if label_smoothing > 1.0:
            raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing:g}")
        return _cross_entropy_label_smoothing(self, target, weight, reduction, ignore_index, label_smoothing)
    class_dim = 0 if self._array.ndim == 1 else 1
    return nll_loss_nd(log_softmax(self, class_dim, None), target, weight, reduction, ignore_index)
