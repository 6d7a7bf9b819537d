"""`quiet`: a numpy kernel run without numpy's floating-point warnings.

torch's CPU kernels compute inf and nan silently (IEEE arithmetic, no error state); numpy warns
("invalid value encountered in matmul") where the error state says to. The elementwise kernels run
between TensorIterator._quiet() and _loud(token) for that; the multi-step kernels of convolution,
upsampling and normalization (im2col + matmul, interpolation matrices, the statistics) are wrapped
whole by this decorator, so an inf or nan in an input, a weight or a gradient gives torch's values
and no warning.
"""
import functools

from .TensorIterator import _loud, _quiet


def quiet(kernel):
    @functools.wraps(kernel)
    def run(*args, **kwargs):
        token = _quiet()
        try:
            return kernel(*args, **kwargs)
        finally:
            _loud(token)
    return run
