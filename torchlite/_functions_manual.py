"""The helpers the derivative formulas call (upstream: torch/csrc/autograd/FunctionsManual.cpp),
under upstream's names, written in torchlite's differentiable ops so that create_graph=True
differentiates through them. tools/autograd/derivatives.yaml's formulas call these; the ones
marked `native` there have C++ versions of the same name in csrc/autograd/FunctionsManual.cpp."""
from ._ops import _div_scalar as div_scalar
from ._ops import _mul_scalar as mul_scalar
from ._ops import div, expand, mul, neg, sigmoid_backward, tanh_backward, threshold_backward

__all__ = ["div_scalar", "div_tensor_other_backward", "div_tensor_self_backward", "expand_symint", "maybe_multiply",
           "mean_backward", "mul_scalar", "mul_tensor_backward", "neg", "sigmoid_backward", "tanh_backward",
           "threshold_backward"]


def maybe_multiply(grad, alpha):
    """grad * alpha, or grad itself where alpha is 1 (no node recorded)."""
    return grad if alpha == 1 else mul_scalar(grad, alpha)


def mul_tensor_backward(grad, other):
    """grad * other (other a tensor, or the Python number of `x * 2`)."""
    return mul(grad, other)


def div_tensor_self_backward(grad, other):
    return div(grad, other)


def div_tensor_other_backward(grad, self, other):
    """-grad * self / other ** 2, rounded as torch computes it: -grad * ((self / other) / other)."""
    return mul(neg(grad), div(div(self, other), other))


def expand_symint(grad, sizes):
    return expand(grad, sizes)


def mean_backward(grad, sizes, numel):
    """The full mean's gradient: grad expanded to the input's sizes, divided by its element count."""
    return div_scalar(expand(grad, sizes), numel)
