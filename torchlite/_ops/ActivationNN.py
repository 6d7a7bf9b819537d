"""The activations of torch.nn.functional that are ATen ops with their own nodes
(ATen/native/Activation.cpp, SoftMax.cpp's neighbours: hardtanh, leaky_relu, elu, celu, gelu, silu,
mish, softplus, hardswish, hardsigmoid, log_sigmoid, glu, threshold, softshrink, hardshrink), and
their backward ops, which have derivative entries of their own as upstream (derivatives.yaml), so a
double backward records torch's nodes (HardtanhBackwardBackward0, EluBackwardBackward0, ...).

Each kernel computes elementwise with numpy in the input's dtype (float16 in float32, rounded
once), into a result laid out as TensorIterator lays it out (`_out`)."""
import math

import numpy as np

from .. import _C
from .._C import _record, _wrap
from .._generated import specs as _S
from .ScalarType import _f16, _f32, _f64, _torch_type_name
from .TensorIterator import _loud, _out, _quiet, _result_type
from .UnaryOps import _erf_float32, _erf_on_host, _is_host_float32
from .python_arg_parser import _wrap_dim
from .structured_inplace import inplace_variant


def _float_input(kernel, self):
    a = self._array
    if a.dtype.kind != "f":
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_torch_type_name(a.dtype)}'")
    return a


def _c(a):
    """float16 computes in float32 (torch's Vectorized<Half> / opmath)."""
    return a.astype(_f32) if a.dtype == _f16 else a


def _num(v):
    """A Scalar argument as a Python number."""
    return v.item() if hasattr(v, "item") else v


def _result(like, dtype, r, *arrays):
    """r written into a buffer laid out as TensorIterator lays out the result of `arrays`."""
    out = _out(r.shape if arrays == () else arrays[0].shape, dtype, like, *arrays)
    if out is None:
        out = np.empty(np.shape(r), dtype=dtype)
    np.copyto(out, r, casting="unsafe")
    return _wrap(out, like)


def _run(fn, *arrays):
    token = _quiet()
    try:
        return fn(*(_c(a) for a in arrays))
    finally:
        _loud(token)


def _grad_pair(grad_output, self):
    g, s = grad_output._array, self._array
    dtype = _result_type(g, s)
    return g, s, dtype


# hardtanh, relu6 -----------------------------------------------------------------------------------

def hardtanh(self, min_val=-1, max_val=1):
    a = self._array
    if a.dtype.kind == "b":
        raise RuntimeError("Bool inputs not supported for hardtanh")
    lo, hi = _num(min_val), _num(max_val)
    if a.dtype.kind in "iu":
        lo, hi = int(lo), int(hi)
    r = _run(lambda x: np.where(x < lo, x.dtype.type(lo), np.where(x > hi, x.dtype.type(hi), x)), a)
    out = _result(self, a.dtype, r, a)
    return _record(_S.HardtanhBackward0, (self,), out, self=self, min_val=min_val, max_val=max_val)


def hardtanh_backward(grad_output, self, min_val, max_val):
    g, s, dtype = _grad_pair(grad_output, self)
    lo, hi = _num(min_val), _num(max_val)
    r = _run(lambda g, s: np.where((s <= lo) | (s >= hi), g.dtype.type(0), g), g, s)
    out = _result(grad_output, dtype, r, g, s)
    return _record(_S.HardtanhBackwardBackward0, (grad_output, self), out, self=self, min_val=min_val,
                   max_val=max_val)


# leaky_relu ----------------------------------------------------------------------------------------

def leaky_relu(self, negative_slope=0.01):
    a = _float_input("leaky_relu_cpu", self)
    slope = _num(negative_slope)
    r = _run(lambda x: np.where(x > 0, x, x * slope), a)
    out = _result(self, a.dtype, r, a)
    return _record(_S.LeakyReluBackward0, (self,), out, self=self, negative_slope=negative_slope)


def _leaky_relu_result(self, negative_slope=0.01):
    """leaky_relu_'s functional kernel: its node (LeakyReluBackward1) saves the result."""
    a = _float_input("leaky_relu_cpu", self)
    slope = _num(negative_slope)
    r = _run(lambda x: np.where(x > 0, x, x * slope), a)
    out = _result(self, a.dtype, r, a)
    return _record(_S.LeakyReluBackward1, (self,), out, negative_slope=negative_slope, result=out)


def leaky_relu_backward(grad_output, self, negative_slope, self_is_result):
    slope = _num(negative_slope)
    if self_is_result and slope < 0:
        raise RuntimeError("In-place leakyReLu backward calculation is triggered with a negative slope which is not "
                           "supported. This is caused by calling in-place forward function with a negative slope, "
                           "please call out-of-place version instead. File an issue at "
                           "https://github.com/pytorch/pytorch if you do require supporting in-place leakRelu "
                           "backward calculation with negative slope")
    g, s, dtype = _grad_pair(grad_output, self)
    r = _run(lambda g, s: np.where(s > 0, g, g * slope), g, s)
    out = _result(grad_output, dtype, r, g, s)
    return _record(_S.LeakyReluBackwardBackward0, (grad_output, self), out, self=self, negative_slope=negative_slope)


# elu, celu, selu -----------------------------------------------------------------------------------

def _elu_values(a, alpha, scale, input_scale):
    negcoef, poscoef, negiptcoef = alpha * scale, scale, input_scale
    return _run(lambda x: np.where(x <= 0, np.expm1(x * negiptcoef) * negcoef, x * poscoef), a)


def elu(self, alpha=1, scale=1, input_scale=1):
    a = _float_input("elu_cpu", self)
    r = _elu_values(a, _num(alpha), _num(scale), _num(input_scale))
    out = _result(self, a.dtype, r, a)
    return _record(_S.EluBackward0, (self,), out, self=self, alpha=alpha, scale=scale, input_scale=input_scale)


def _elu_result(self, alpha=1, scale=1, input_scale=1):
    """elu_'s functional kernel: its node (EluBackward1) saves the result."""
    a = _float_input("elu_cpu", self)
    r = _elu_values(a, _num(alpha), _num(scale), _num(input_scale))
    out = _result(self, a.dtype, r, a)
    return _record(_S.EluBackward1, (self,), out, alpha=alpha, scale=scale, input_scale=input_scale, result=out)


def elu_backward(grad_output, alpha, scale, input_scale, is_result, self_or_result):
    negcoef, poscoef, negiptcoef = _num(alpha) * _num(scale), _num(scale), _num(input_scale)
    if is_result and negcoef < 0:
        raise RuntimeError("In-place elu backward calculation is triggered with a negative slope which is not "
                           "supported. This is caused by calling in-place forward function with a negative slope, "
                           "please call out-of-place version instead.")
    g, s, dtype = _grad_pair(grad_output, self_or_result)
    if is_result:
        r = _run(lambda g, x: np.where(x <= 0, g * negiptcoef * (x + negcoef), g * poscoef), g, s)
    else:
        r = _run(lambda g, x: np.where(x <= 0, g * negiptcoef * negcoef * np.exp(x * negiptcoef), g * poscoef), g, s)
    out = _result(grad_output, dtype, r, g, s)
    return _record(_S.EluBackwardBackward0, (grad_output, self_or_result), out, grad_output=grad_output, alpha=alpha,
                   scale=scale, input_scale=input_scale, is_result=is_result, self_or_result=self_or_result)


def celu(self, alpha=1.0):
    a = _float_input("elu_cpu", self)
    if _num(alpha) == 0:
        raise RuntimeError("ZeroDivisionError")
    r = _elu_values(a, _num(alpha), 1, 1.0 / _num(alpha))
    out = _result(self, a.dtype, r, a)
    return _record(_S.CeluBackward0, (self,), out, self=self, alpha=alpha)


def _celu_result(self, alpha=1.0):
    a = _float_input("elu_cpu", self)
    if _num(alpha) == 0:
        raise RuntimeError("ZeroDivisionError")
    r = _elu_values(a, _num(alpha), 1, 1.0 / _num(alpha))
    out = _result(self, a.dtype, r, a)
    return _record(_S.CeluBackward1, (self,), out, alpha=alpha, result=out)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(self):
    """at::selu: elu(self, alpha, scale) (Activation.cpp), so its node is EluBackward0."""
    return elu(self, _SELU_ALPHA, _SELU_SCALE)


# gelu ------------------------------------------------------------------------------------------------

_GELU_BETA_TANH = math.sqrt(2.0) * (2.0 / math.sqrt(math.pi)) * 0.5
_GELU_KAPPA = 0.044715


def _check_approximate(approximate):
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")


def _erf(x):
    x = np.asarray(x)  # (a 0-d operand's arithmetic gives a numpy scalar)
    if _is_host_float32(x):
        return _erf_float32(x)
    return _erf_on_host(x.astype(_f64)).astype(x.dtype)


def _erf_of_temporary(t):
    """_erf of an array the caller owns, in place where it can be."""
    return _erf_float32(t, t) if _is_host_float32(t) else _erf(t)


def _gelu_exact(x):
    if not x.ndim or type(x) is not np.ndarray:
        return x * 0.5 * (1 + _erf(x * math.sqrt(0.5)))
    if _is_host_float32(x):
        return _C._gelu_float32_host(x)  # the operations below, fused, each rounded to float32 as numpy's
    # x * 0.5 * (1 + erf(x * sqrt(0.5))), the same operations, fewer buffers
    t = _erf_of_temporary(x * math.sqrt(0.5))
    np.add(1, t, out=t)
    r = np.multiply(x, 0.5)
    return np.multiply(r, t, out=r)


def gelu(self, *, approximate="none"):
    _check_approximate(approximate)
    a = _float_input("GeluKernelImpl", self)
    if approximate == "none" and a.ndim and _is_host_float32(a):
        # _gelu_exact fused in C++ (csrc/aten/native/cpu/GeluKernel.h), straight into the result's buffer
        out = _out(a.shape, a.dtype, self, a)
        _C._gelu_float32_host(a, out)
        if a.size > 1 and not a.max() < np.inf:
            np.copyto(out, np.float32(np.nan), where=np.isposinf(a))  # (the vectorized path's nan: below)
        return _record(_S.GeluBackward0, (self,), _wrap(out, self), self=self, approximate=approximate)
    if approximate == "tanh":
        r = _run(lambda x: 0.5 * x * (1 + np.tanh(_GELU_BETA_TANH * (x + _GELU_KAPPA * x * x * x))), a)
    else:
        r = _run(_gelu_exact, a)
        if a.dtype in (_f32, _f16) and a.size > 1 and a.flags.c_contiguous and not a.max() < np.inf:
            # GeluKernel.cpp's Vectorized<float> path (float16 computes in it too): its polynomial erf
            # gives nan at +inf, so gelu(+inf) is nan where the loop is vectorized (as measured on torch
            # 2.13: a contiguous input of more than one element); the scalar path gives inf
            r = np.where(np.isposinf(a), np.asarray(np.nan, dtype=np.asarray(r).dtype), r)
    out = _result(self, a.dtype, r, a)
    return _record(_S.GeluBackward0, (self,), out, self=self, approximate=approximate)


def gelu_backward(grad_output, self, *, approximate="none"):
    _check_approximate(approximate)
    g, s, dtype = _grad_pair(grad_output, self)

    def tanh_approx(g, x):
        inner = _GELU_BETA_TANH * (x + _GELU_KAPPA * x * x * x)
        t = np.tanh(inner)
        right = 0.5 * x * (1 - t * t) * _GELU_BETA_TANH * (1 + 3 * _GELU_KAPPA * x * x)
        return g * (0.5 * (1 + t) + right)

    def exact(g, x):
        cdf = 0.5 * (1 + _erf(x * math.sqrt(0.5)))
        pdf = np.exp(-0.5 * x * x) * (1 / math.sqrt(2 * math.pi))
        return g * (cdf + x * pdf)

    def exact_in_place(g, x):
        # exact's operations, in place (each commuted operation rounds the same)
        cdf = _erf_of_temporary(x * math.sqrt(0.5))
        np.add(1, cdf, out=cdf)
        np.multiply(cdf, 0.5, out=cdf)
        q = np.multiply(-0.5, x)
        np.multiply(q, x, out=q)
        np.exp(q, out=q)
        np.multiply(q, 1 / math.sqrt(2 * math.pi), out=q)
        np.multiply(q, x, out=q)
        np.add(q, cdf, out=q)
        return np.multiply(g, q, out=q)
    if approximate == "none" and g.shape == s.shape and s.ndim and _is_host_float32(s) and _is_host_float32(g):
        # exact_in_place fused in one blocked C++ pass with numpy's own float32 exp loop
        # (csrc/aten/native/cpu/GeluKernel.cpp, Note [Gelu backward in one pass]), into the result's buffer
        out = _out(s.shape, dtype, grad_output, g, s)
        if _C._gelu_backward_float32(g, s, out) is None:  # (numpy's exp without a float32 loop)
            out = _run(exact_in_place, g, s)
        return _record(_S.GeluBackwardBackward0, (grad_output, self), _wrap(out, grad_output),
                       grad_output=grad_output, self=self, approximate=approximate)
    if approximate == "tanh":
        kernel = tanh_approx
    elif g.shape == s.shape and g.dtype == s.dtype != _f16 and s.ndim and type(g) is type(s) is np.ndarray:
        kernel = exact_in_place
    else:
        kernel = exact
    r = _run(kernel, g, s)
    out = _result(grad_output, dtype, r, g, s)
    return _record(_S.GeluBackwardBackward0, (grad_output, self), out, grad_output=grad_output, self=self,
                   approximate=approximate)


# silu, mish ------------------------------------------------------------------------------------------

def silu(self):
    a = _float_input("silu_cpu", self)
    r = _run(lambda x: x / (1 + np.exp(-x)), a)
    out = _result(self, a.dtype, r, a)
    return _record(_S.SiluBackward0, (self,), out, self=self)


def _softplus_values(x, beta, threshold):
    z = x * beta
    return np.where(z > threshold, x, np.log1p(np.exp(z)) / beta)


def mish(self):
    a = _float_input("mish_cpu", self)
    r = _run(lambda x: x * np.tanh(_softplus_values(x, 1, 20)), a)
    out = _result(self, a.dtype, r, a)
    return _record(_S.MishBackward0, (self,), out, self=self)


# softplus --------------------------------------------------------------------------------------------

def softplus(self, beta=1, threshold=20):
    a = _float_input("softplus_cpu", self)
    b, t = _num(beta), _num(threshold)
    r = _run(lambda x: _softplus_values(x, b, t), a)
    out = _result(self, a.dtype, r, a)
    return _record(_S.SoftplusBackward0, (self,), out, self=self, beta=beta, threshold=threshold)


def softplus_backward(grad_output, self, beta, threshold):
    g, s, dtype = _grad_pair(grad_output, self)
    b, t = _num(beta), _num(threshold)

    def fn(g, x):
        z = np.exp(x * b)
        return np.where(x * b > t, g, g * z / (z + 1))
    r = _run(fn, g, s)
    out = _result(grad_output, dtype, r, g, s)
    return _record(_S.SoftplusBackwardBackward0, (grad_output, self), out, grad_output=grad_output, self=self,
                   beta=beta, threshold=threshold)


# hardswish, hardsigmoid ----------------------------------------------------------------------------------

def hardswish(self):
    a = _float_input("hardswish_cpu", self)
    r = _run(lambda x: x * np.minimum(np.maximum(x + 3, 0), 6) / 6, a)
    out = _result(self, a.dtype, r, a)
    return _record(_S.HardswishBackward0, (self,), out, self=self)


def hardswish_backward(grad_output, self):
    g, s, dtype = _grad_pair(grad_output, self)
    r = _run(lambda g, x: np.where(x <= -3, g.dtype.type(0), np.where(x < 3, g * ((x / 3) + 0.5), g)), g, s)
    out = _result(grad_output, dtype, r, g, s)
    return _record(_S.HardswishBackwardBackward0, (grad_output, self), out, grad_output=grad_output, self=self)


def hardsigmoid(self):
    a = _float_input("hardsigmoid_cpu", self)
    r = _run(lambda x: np.minimum(np.maximum(x + 3, 0), 6) / 6, a)
    out = _result(self, a.dtype, r, a)
    return _record(_S.HardsigmoidBackward0, (self,), out, self=self)


def hardsigmoid_backward(grad_output, self):
    """hardsigmoid's gradient; upstream gives it no derivative (torch::autograd::NotImplemented)."""
    g, s, dtype = _grad_pair(grad_output, self)
    # torch's kernel multiplies by 1/6 rounded to float32, in every dtype (Activation.cpp's one_sixth)
    one_sixth = float(np.float32(1.0 / 6.0))
    r = _run(lambda g, x: np.where((x > -3) & (x < 3), g * one_sixth, g.dtype.type(0)), g, s)
    out = _result(grad_output, dtype, r, g, s)
    return _record(_S.NotImplementedHardsigmoidBackward, (grad_output, self), out, name="aten::hardsigmoid_backward")


# log_sigmoid -----------------------------------------------------------------------------------------

def log_sigmoid_forward(self):
    """(output, buffer): the CPU kernel's buffer is exp(-|x|), which the backward reuses."""
    a = _float_input("log_sigmoid_cpu", self)

    def fn(x):
        buffer = np.exp(-np.abs(x))
        return np.minimum(x, 0) - np.log1p(buffer), buffer
    r, b = _run(fn, a)
    out = _result(self, a.dtype, r, a)
    buffer = _result(self, a.dtype, b, a)
    return _record(_S.LogSigmoidBackward0, (self,), out, self=self, buffer=buffer), buffer


def log_sigmoid(self):
    return log_sigmoid_forward(self)[0]


def log_sigmoid_backward(grad_output, self, buffer):
    if buffer.requires_grad and _C.is_grad_enabled():
        # torch refuses a buffer that requires grad: upstream's entry has no formula for it, and its
        # codegen writes check_no_requires_grad for such an argument
        raise RuntimeError("The function 'log_sigmoid_backward' is not differentiable with respect to argument "
                           "'buffer'. This input cannot have requires_grad True.")
    g, s, dtype = _grad_pair(grad_output, self)
    bf = buffer._array

    def fn(g, x, b):
        # d/dx log(sigmoid(x)) = 1 - sigmoid(x) = b / (1 + b) for x >= 0, 1 / (1 + b) for x < 0
        return np.where(x < 0, g * (1 / (1 + b)), g * (b / (1 + b)))
    r = _run(fn, g, s, bf)
    out = _result(grad_output, dtype, r, g, s)
    return _record(_S.LogSigmoidBackwardBackward0, (grad_output, self), out, grad_output=grad_output, self=self,
                   buffer=buffer)


# glu -------------------------------------------------------------------------------------------------

def _glu_halves(a, dim):
    if a.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = _wrap_dim(dim, a.ndim)
    if a.shape[d] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {a.shape[d]}")
    n = a.shape[d] // 2
    return d, np.take(a, range(n), axis=d), np.take(a, range(n, 2 * n), axis=d)


def glu(self, dim=-1):
    a = self._array
    d, first, second = _glu_halves(a, dim)
    _float_input("glu_cpu", self)
    r = _run(lambda x, y: x / (1 + np.exp(-y)), first, second)
    out = _wrap(np.array(r, dtype=a.dtype, order="C"), self)
    return _record(_S.GluBackward0, (self,), out, self=self, dim=dim)


def glu_backward(grad_output, self, dim):
    a = self._array
    d, first, second = _glu_halves(a, dim)
    g = grad_output._array

    def fn(g, x, y):
        sig = 1 / (1 + np.exp(-y))
        return np.concatenate([g * sig, g * x * sig * (1 - sig)], axis=d)
    r = _run(fn, g, first, second)
    out = _wrap(np.array(r, dtype=_result_type(g, a), order="C"), grad_output)
    return _record(_S.GluBackwardBackward0, (grad_output, self), out, grad_output=grad_output, self=self, dim=dim)


# threshold -------------------------------------------------------------------------------------------

def _threshold_values(self, threshold, value):
    a = self._array
    if a.dtype.kind == "b":
        raise NotImplementedError("\"threshold_cpu\" not implemented for 'Bool'")
    t, v = _num(threshold), _num(value)
    r = _run(lambda x: np.where(x <= t, v, x), a)
    return a, _result(self, a.dtype, r, a)


def threshold(self, threshold, value):
    a, out = _threshold_values(self, threshold, value)
    return _record(_S.ThresholdBackward0, (self,), out, self=self, threshold=threshold)


def _threshold_result(self, threshold, value):
    a, out = _threshold_values(self, threshold, value)
    return _record(_S.ThresholdBackward1, (self,), out, self=self, threshold=threshold)


# threshold's meta builds its TensorIterator with set_check_mem_overlap(false): threshold is idempotent,
# so an internally overlapping self is written as it is (Activation.cpp, TORCH_META_FUNC(threshold))
_threshold_result.check_mem_overlap = False  # type: ignore[attr-defined]


# softshrink, hardshrink --------------------------------------------------------------------------------

def _check_lambd(self, lambd):
    lam = _num(lambd)
    a = self._array
    if not 0 <= lam <= float(np.finfo(a.dtype).max):
        limit = f"{float(np.finfo(a.dtype).max):.6g}".replace("e+", "e+")
        raise RuntimeError(f"lambda must be in range [0, {limit}] for input dtype "
                           f"{_torch_type_name(a.dtype)}, but found {lambd}")
    return lam


def softshrink(self, lambd=0.5):
    a = _float_input("softshrink_check", self)
    lam = _check_lambd(self, lambd)
    r = _run(lambda x: np.where(x > lam, x - lam, np.where(x < -lam, x + lam, x.dtype.type(0) * x)), a)
    out = _result(self, a.dtype, r, a)
    return _record(_S.SoftshrinkBackward0, (self,), out, self=self, lambd=lambd)


def softshrink_backward(grad_output, self, lambd):
    g, s, dtype = _grad_pair(grad_output, self)
    lam = _num(lambd)
    r = _run(lambda g, x: np.where((x >= -lam) & (x <= lam), g.dtype.type(0), g), g, s)
    out = _result(grad_output, dtype, r, g, s)
    return _record(_S.SoftshrinkBackwardBackward0, (grad_output, self), out, self=self, lambd=lambd)


def hardshrink(self, lambd=0.5):
    a = _float_input("hardshrink_cpu", self)
    lam = _num(lambd)
    r = _run(lambda x: np.where((x >= -lam) & (x <= lam), x.dtype.type(0), x), a)
    out = _result(self, a.dtype, r, a)
    return _record(_S.HardshrinkBackward0, (self,), out, self=self, lambd=lambd)


def hardshrink_backward(grad_out, self, lambd):
    g, s, dtype = _grad_pair(grad_out, self)
    lam = _num(lambd)
    r = _run(lambda g, x: np.where((x >= -lam) & (x <= lam), g.dtype.type(0), g), g, s)
    out = _result(grad_out, dtype, r, g, s)
    return _record(_S.HardshrinkBackwardBackward0, (grad_out, self), out, self=self, lambd=lambd)


# Composites and in-place forms -----------------------------------------------------------------------
# An in-place form runs its functional kernel through inplace_variant (Note [Structured in-place
# variants]): hardtanh_, silu_, mish_, hardswish_, hardsigmoid_ record the functional's node (saving
# the original self); leaky_relu_, elu_, celu_ have entries of their own upstream whose nodes save the
# result (LeakyReluBackward1, EluBackward1, CeluBackward1), threshold_ one whose node saves the
# original self (ThresholdBackward1).

def relu6(self):
    """at::relu6: hardtanh(self, 0, 6) (Activation.cpp), node HardtanhBackward0."""
    return hardtanh(self, 0, 6)


def hardtanh_(self, min_val=-1, max_val=1):
    return inplace_variant(hardtanh, self, (min_val, max_val), {})


def relu6_(self):
    return hardtanh_(self, 0, 6)


def leaky_relu_(self, negative_slope=0.01):
    return inplace_variant(_leaky_relu_result, self, (negative_slope,), {})


def elu_(self, alpha=1, scale=1, input_scale=1):
    return inplace_variant(_elu_result, self, (alpha, scale, input_scale), {})


def celu_(self, alpha=1.0):
    return inplace_variant(_celu_result, self, (alpha,), {})


def selu_(self):
    return elu_(self, _SELU_ALPHA, _SELU_SCALE)


def silu_(self):
    return inplace_variant(silu, self, (), {})


def mish_(self):
    return inplace_variant(mish, self, (), {})


def hardswish_(self):
    return inplace_variant(hardswish, self, (), {})


def hardsigmoid_(self):
    return inplace_variant(hardsigmoid, self, (), {})


def threshold_(self, threshold, value):
    return inplace_variant(_threshold_result, self, (threshold, value), {})
