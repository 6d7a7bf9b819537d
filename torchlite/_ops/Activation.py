"""relu and its gradient, threshold_backward (ATen/native/Activation.cpp)."""
import numpy as np

from .._C import _record, _wrap
from .._generated import specs as _S
from .ScalarType import _b1
from .TensorIterator import _out


def threshold_backward(grad_output, self, threshold):
    """The gradient of relu (at::threshold_backward): grad_output where self > threshold
    (and where self is nan), else 0; differentiable, so relu's double backward works."""
    g = grad_output._array
    r = np.where(self._array <= threshold, g.dtype.type(0), g)
    out = _wrap(r, grad_output)
    return _record(_S.ThresholdBackwardBackward0, (grad_output, self), out, self=self, threshold=threshold)


def relu(self):
    a = self._array
    if a.dtype == _b1:
        raise RuntimeError("Boolean inputs not supported for relu")
    # clamp_min(x, 0) as torch's kernel computes it: x unless x < 0, so -0.0 and nan pass
    r = _out(a.shape, a.dtype, self, a)
    if r is None:
        r = np.empty_like(a)
    np.maximum(a, 0, out=r)  # nan passes (numpy's maximum propagates it); -0.0 does not:
    zero = a == 0
    if zero.any():
        r[zero & np.signbit(a)] = -0.0
    out = _wrap(r, self)
    return _record(_S.ReluBackward0, (self,), out, result=out)
