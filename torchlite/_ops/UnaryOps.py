"""Elementwise functions of one tensor (ATen/native/UnaryOps.cpp)."""
import math
import operator

import numpy as np

from .. import _C, _backend
from .._C import _record, _wrap
from .._generated import specs as _S
from .ScalarType import _b1, _f32, _f64, _torch_type_name
from .TensorIterator import _float_dtype, _loud, _out, _quiet


_NEG_BOOL = ("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, "
             "use the `~` or `logical_not()` operator instead.")


def neg(self):
    a = self._array
    if a.dtype == _b1:
        raise RuntimeError(_NEG_BOOL)
    out = _wrap(np.negative(a), self)
    return _record(_S.NegBackward0, (self,), out)


def positive(self):
    """torch.positive (unary +): self itself, refused for bool as torch does."""
    if self._array.dtype == _b1:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return self


# numpy's float32 exp, log, sin, cos and tanh round differently from torch's
# kernels in 13-40% of elements; computed in float64 and rounded, they agree
# with torch's in all but 0.1-8% (measured on normal samples), so values that a
# program magnifies later (sin of a large product) stay torch's.
_VIA_FLOAT64 = {np.exp, np.log, np.sin, np.cos, np.tanh,
                np.exp2, np.expm1, np.log2, np.log10, np.log1p, np.tan, np.arcsin, np.arccos, np.arctan, np.sinh,
                np.cosh, np.arcsinh, np.arccosh, np.arctanh}


def _float_unary(np_fn, spec, saves_result, name=None):
    """An elementwise op whose result is floating point (integers and bool compute in
    float32); its node saves the result (exp, tanh, sqrt) or the input (log, sin,
    cos), as PyTorch's does."""
    via_float64 = np_fn in _VIA_FLOAT64

    def op(self):
        a = self._array
        dtype = _float_dtype(a.dtype)
        r = _out(a.shape, dtype, self, a)
        token = _quiet()
        try:
            if via_float64 and dtype == _f32:
                if a.dtype != _f32:  # an integer input is cast to float32 first, as TensorIterator casts it
                    a = a.astype(_f32)
                np.copyto(r, np_fn(a, dtype=_f64), casting="same_kind")
            elif dtype == a.dtype:
                np_fn(a, out=r)
            else:
                np_fn(a, out=r, dtype=dtype)
        finally:
            _loud(token)
        out = _wrap(r, self)
        if saves_result:
            return _record(spec, (self,), out, result=out)
        if saves_result is None:  # a node that saves nothing (asinh_'s)
            return _record(spec, (self,), out)
        return _record(spec, (self,), out, self=self)
    op.__name__ = op.__qualname__ = name or np_fn.__name__
    return op


exp = _float_unary(np.exp, _S.ExpBackward0, saves_result=True)
log = _float_unary(np.log, _S.LogBackward0, saves_result=False)
sin = _float_unary(np.sin, _S.SinBackward0, saves_result=False)
cos = _float_unary(np.cos, _S.CosBackward0, saves_result=False)
tanh = _float_unary(np.tanh, _S.TanhBackward0, saves_result=True)
sqrt = _float_unary(np.sqrt, _S.SqrtBackward0, saves_result=True)
reciprocal = _float_unary(np.reciprocal, _S.ReciprocalBackward0, saves_result=True)


def sigmoid(self):
    a = self._array
    x = a if a.dtype.kind == "f" else a.astype(_float_dtype(a.dtype))
    r = _out(a.shape, x.dtype, self, a)
    token = _quiet()
    try:
        if x.dtype.itemsize == 2:  # float16: computed in float32, rounded once (torch's Vectorized<Half>)
            np.copyto(r, 1 / (1 + np.exp(-x.astype(_f32))), casting="unsafe")
        else:
            np.exp(np.negative(x), out=r)
            np.add(r, 1, out=r)
            np.reciprocal(r, out=r)
    finally:
        _loud(token)
    out = _wrap(r, self)
    return _record(_S.SigmoidBackward0, (self,), out, result=out)


def abs(self):  # noqa: A001 - torch's name
    a = self._array
    if a.dtype == _b1:
        raise NotImplementedError("\"abs_cpu\" not implemented for 'Bool'")
    out = _wrap(np.abs(a), self)
    return _record(_S.AbsBackward0, (self,), out, self=self)


# issue 13: the rest of torch's unary ops ------------------------------------------------------------
# The float ops compute a float32 tensor in float64 and round once (_VIA_FLOAT64 above): torch's
# kernels (Sleef's, within 1 ulp) then agree within the tolerance the tests compare float32 with.

exp2 = _float_unary(np.exp2, _S.Exp2Backward0, saves_result=True)
expm1 = _float_unary(np.expm1, _S.Expm1Backward0, saves_result=True)
log2 = _float_unary(np.log2, _S.Log2Backward0, saves_result=False)
log10 = _float_unary(np.log10, _S.Log10Backward0, saves_result=False)
log1p = _float_unary(np.log1p, _S.Log1PBackward0, saves_result=False)
tan = _float_unary(np.tan, _S.TanBackward0, saves_result=True)
asin = _float_unary(np.arcsin, _S.AsinBackward0, saves_result=False, name="asin")
acos = _float_unary(np.arccos, _S.AcosBackward0, saves_result=False, name="acos")
atan = _float_unary(np.arctan, _S.AtanBackward0, saves_result=False, name="atan")
sinh = _float_unary(np.sinh, _S.SinhBackward0, saves_result=False)
cosh = _float_unary(np.cosh, _S.CoshBackward0, saves_result=False)
asinh = _float_unary(np.arcsinh, _S.AsinhBackward0, saves_result=False, name="asinh")
acosh = _float_unary(np.arccosh, _S.AcoshBackward0, saves_result=False, name="acosh")
atanh = _float_unary(np.arctanh, _S.AtanhBackward0, saves_result=False, name="atanh")


def _on_host_float64(fn, x, *more):
    """fn (a numpy ufunc made by np.frompyfunc over Python floats) of float64 arrays, as a float64
    array on x's device (math.erf and math.erfc have no numpy ufunc)."""
    r = np.asarray(fn(_backend.to_host(x), *(_backend.to_host(m) for m in more)), dtype=_f64)
    return r if isinstance(x, np.ndarray) else _backend.xp(x).asarray(r)


def _erf_on_host(x, complement=False):
    """libm's erf (or erfc) of a float64 array, what math.erf computes, as a float64 array on x's
    device (numpy has no erf ufunc; csrc/aten/native/UnaryOpsHost.cpp loops in C++)."""
    r = _C._erf_host(_backend.to_host(x), complement)
    return r if isinstance(x, np.ndarray) else _backend.xp(x).asarray(r)


def _erf_float32(x, out=None):
    """erf of a C-contiguous float32 numpy array into out (a new array by default; x itself is
    allowed): the bits _erf_on_host's float64 erf rounds to, from polynomials
    (csrc/aten/native/cpu/ErfFloat.cpp, Note [Fast float erf with an exact fallback])."""
    return _C._erf_float32_host(x, out)


def _is_host_float32(x):
    return x.dtype == _f32 and type(x) is np.ndarray and x.flags.c_contiguous


_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _erf_minus(x, a):
    """erf(x) - a for 0 <= a, computed as (1 - a) - erfc(x) where a > 0.5 (1 - a exact there), so
    that the Newton steps of _erfinv64 keep their precision near 1."""
    if a <= 0.5:
        return math.erf(x) - a
    return (1.0 - a) - math.erfc(x)


_ERF_MINUS = np.frompyfunc(_erf_minus, 2, 1)


def _erfinv64(y):
    """erfinv in float64: a closed-form start (Winitzki's approximation, relative error below 2e-3)
    refined by three Halley steps on erf(x) = |y| (cubic convergence: full precision), as torch's
    calc_erfinv (aten/src/ATen/native/Math.h) refines its rational start by Newton steps; inf at
    +-1, nan beyond."""
    a = np.asarray(np.abs(y))  # (numpy makes a 0-d array's results scalars)
    k = 0.147
    w = np.log1p(-a * a)
    t = 2.0 / (math.pi * k) + w / 2.0
    x = np.asarray(np.sqrt(np.sqrt(t * t - w / k) - t))
    inner = a < 1
    xs, av = x[inner], a[inner]
    for _ in range(3):
        f = _on_host_float64(_ERF_MINUS, xs, av)
        xs = xs - f / (_TWO_OVER_SQRT_PI * np.exp(-xs * xs) + xs * f)
    x[inner] = xs
    x[a == 1] = np.inf
    x[a > 1] = np.nan
    return np.asarray(np.copysign(x, y))


def _float64_unary(fn64, spec, saves_result, name, fn32=None):
    """An elementwise float op computed by `fn64` over float64 arrays (integers and bool as float32,
    a float32 tensor in float64, rounded once); `fn32`, where given, computes a contiguous float32
    host array's result with the same bits."""
    def op(self):
        a = self._array
        dtype = _float_dtype(a.dtype)
        r = _out(a.shape, dtype, self, a)
        if fn32 is not None and r is not None and _is_host_float32(a) and _is_host_float32(r):
            # (_out gives a contiguous float32 input a row-major float32 result: fn32 writes it)
            out = _wrap(fn32(a, r), self)
            if saves_result:
                return _record(spec, (self,), out, result=out)
            return _record(spec, (self,), out, self=self)
        x = a.astype(_f32) if a.dtype.kind != "f" else a
        token = _quiet()
        try:
            v = fn64(x.astype(_f64))
        finally:
            _loud(token)
        if r is None:
            r = v.astype(dtype)
        else:
            np.copyto(r, v, casting="same_kind")
        out = _wrap(r, self)
        if saves_result:
            return _record(spec, (self,), out, result=out)
        return _record(spec, (self,), out, self=self)
    op.__name__ = op.__qualname__ = name
    return op


erf = _float64_unary(_erf_on_host, _S.ErfBackward0, False, "erf", _erf_float32)
erfc = _float64_unary(lambda x: _erf_on_host(x, complement=True), _S.ErfcBackward0, False, "erfc")
erfinv = _float64_unary(_erfinv64, _S.ErfinvBackward0, False, "erfinv")


def rsqrt(self):
    """1 / sqrt(x), computed in the tensor's float dtype as torch's kernel (a square root, then a
    division, each rounded)."""
    a = self._array
    dtype = _float_dtype(a.dtype)
    x = a.astype(dtype) if a.dtype != dtype else a
    r = _out(a.shape, dtype, self, a)
    token = _quiet()
    try:
        r = np.sqrt(x, out=r)
        np.divide(dtype.type(1), r, out=r)
    finally:
        _loud(token)
    out = _wrap(r, self)
    return _record(_S.RsqrtBackward0, (self,), out, result=out)


def _same_dtype_out(self):
    """The result array of an op whose result has its input's dtype (floor, sign, ...)."""
    a = self._array
    r = _out(a.shape, a.dtype, self, a)
    return np.empty_like(a) if r is None else r


def _sign_array(a, r):
    """(0 < a) - (a < 0) into r: 0 for 0 and nan, as torch's sign kernel; bool is itself."""
    if a.dtype == _b1:
        np.copyto(r, a)
        return r
    np.sign(a, out=r)
    if a.dtype.kind == "f":
        r[np.isnan(a)] = 0
    return r


def sign(self):
    a = self._array
    out = _wrap(_sign_array(a, _same_dtype_out(self)), self)
    return _record(_S.SignBackward0, (self,), out)


def sgn(self):
    """The sign of each element, 0 for 0 and nan (at::sgn, sign for real tensors): abs's gradient
    is grad * sgn(x)."""
    a = self._array
    out = _wrap(_sign_array(a, _same_dtype_out(self)), self)
    return _record(_S.SgnBackward0, (self,), out, self=self, result=out)


def _rounding(np_fn, spec, kernel):
    """floor, ceil, trunc, round: an integer tensor is copied (torch's *_out copies it), bool refused."""
    def op(self):
        a = self._array
        if a.dtype == _b1:
            raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
        r = _same_dtype_out(self)
        if a.dtype.kind == "f":
            np_fn(a, out=r)
        else:
            np.copyto(r, a)
        return _record(spec, (self,), _wrap(r, self))
    op.__name__ = op.__qualname__ = kernel.split("_")[0]
    return op


floor = _rounding(np.floor, _S.FloorBackward0, "floor_vml_cpu")
ceil = _rounding(np.ceil, _S.CeilBackward0, "ceil_vml_cpu")
trunc = _rounding(np.trunc, _S.TruncBackward0, "trunc_vml_cpu")
_round = _rounding(np.rint, _S.RoundBackward0, "round_vml_cpu")


def round(self, *, decimals=None):  # noqa: A001 - torch's name
    """torch.round: half to even (nearbyint); with `decimals` (round.decimals, RoundBackward1),
    torch's kernel: nearbyint(x * 10**d) / 10**d (for d < 0, nearbyint(x / 10**-d) * 10**-d),
    computed in the tensor's dtype."""
    if decimals is None:
        return _round(self)
    a = self._array
    decimals = operator.index(decimals)  # an int (torch's parser refuses a float with its own wording)
    if a.dtype.kind != "f":  # decimals 0 runs the round kernel itself, without round's integer copy
        kernel = "round_vml_cpu" if decimals == 0 else "round_cpu"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_torch_type_name(a.dtype)}'")
    r = _same_dtype_out(self)
    token = _quiet()
    try:
        if decimals == 0:
            np.rint(a, out=r)
            return _record(_S.RoundBackward1, (self,), _wrap(r, self))
        n = -decimals if decimals < 0 else decimals
        ten_pow = a.dtype.type(10.0 ** n if n < 309 else np.inf)  # std::pow(10, n), cast to the dtype
        if decimals < 0:
            np.divide(a, ten_pow, out=r)
            np.rint(r, out=r)
            np.multiply(r, ten_pow, out=r)
        else:
            np.multiply(a, ten_pow, out=r)
            np.rint(r, out=r)
            np.divide(r, ten_pow, out=r)
    finally:
        _loud(token)
    return _record(_S.RoundBackward1, (self,), _wrap(r, self))


def frac(self):
    """x - trunc(x), for floating point tensors only (frac_cpu)."""
    a = self._array
    if a.dtype.kind != "f":
        raise NotImplementedError(f"\"frac_cpu\" not implemented for '{_torch_type_name(a.dtype)}'")
    r = _same_dtype_out(self)
    token = _quiet()
    try:
        np.trunc(a, out=r)
        np.subtract(a, r, out=r)
    finally:
        _loud(token)
    return _record(_S.FracBackward0, (self,), _wrap(r, self))


def logit(self, eps=None):
    """log(z / (1 - z)), z the input clamped to [eps, 1 - eps] where eps is given (torch's kernel
    clamps x < lo to lo first, then x > hi to hi), in the float dtype of the input."""
    a = self._array
    dtype = _float_dtype(a.dtype)
    x = a.astype(dtype) if a.dtype != dtype else a
    r = _out(a.shape, dtype, self, a)
    token = _quiet()
    try:
        z = x
        if eps is not None:
            lo, hi = dtype.type(eps), dtype.type(1 - eps)
            z = np.where(x < lo, lo, np.where(x > hi, hi, x))
        q = np.divide(z, np.subtract(dtype.type(1), z))
        v = np.asarray(np.log(q.astype(_f64)) if dtype == _f32 else np.log(q))
        if r is None:
            r = v.astype(dtype)
        else:
            np.copyto(r, v, casting="same_kind")
    finally:
        _loud(token)
    out = _wrap(r, self)
    return _record(_S.LogitBackward0, (self,), out, self=self, eps=eps)


def nan_to_num(self, nan=None, posinf=None, neginf=None):
    """nan, +inf and -inf replaced (by 0, the dtype's largest and lowest value unless given);
    integer and bool tensors are copied."""
    a = self._array
    r = _same_dtype_out(self)
    if a.dtype.kind != "f":
        np.copyto(r, a)
    else:
        info = np.finfo(a.dtype)
        token = _quiet()  # a replacement beyond float32's range is inf there, as torch's cast
        try:
            values = [a.dtype.type(0.0 if nan is None else nan), a.dtype.type(info.max if posinf is None else posinf),
                      a.dtype.type(info.min if neginf is None else neginf)]
        finally:
            _loud(token)
        np.copyto(r, a)
        r[np.isnan(a)] = values[0]
        r[a == np.inf] = values[1]
        r[a == -np.inf] = values[2]
    return _record(_S.NanToNumBackward0, (self,), _wrap(r, self), self=self)


def sinc(self):
    """sin(pi x) / (pi x), 1 at 0: torch's kernel, pi * x and the quotient rounded in the float
    dtype, the sine in float64 (for float32) rounded once."""
    a = self._array
    dtype = _float_dtype(a.dtype)
    x = a.astype(dtype) if a.dtype != dtype else a
    r = _out(a.shape, dtype, self, a)
    token = _quiet()
    try:
        product = np.multiply(x, dtype.type(math.pi))
        s = np.sin(product.astype(_f64)).astype(dtype) if dtype == _f32 else np.sin(product)
        v = np.asarray(np.divide(s, product))
        v[x == 0] = 1
        if r is None:
            r = v
        else:
            np.copyto(r, v)
    finally:
        _loud(token)
    out = _wrap(r, self)
    return _record(_S.SincBackward0, (self,), out, self=self)


def _same_dtype_check(result, out):
    """TensorIterator's check_all_same_dtype for the unary ops whose result keeps the input's dtype
    (upstream's build_borrowing_unary_op): out= must have that dtype."""
    if out != result:
        raise RuntimeError(f"Found dtype {_torch_type_name(out)} but expected {_torch_type_name(result)}")


def _nan_to_num_check(result, out):
    if out != result:
        raise RuntimeError(f"nan_to_num: dtype of out: {_torch_type_name(out)} should be same as input: "
                           f"{_torch_type_name(result)}")


def _neg_out_check(result, out):
    """neg's meta function refuses bool before TensorIterator checks out's dtype."""
    if result == _b1:
        raise RuntimeError(_NEG_BOOL)
    _same_dtype_check(result, out)


for _op in (abs, sign, sgn, floor, ceil, trunc, round, frac):
    _op.__dict__["_out_check"] = _same_dtype_check  # read by Resize.out_variant
neg.__dict__["_out_check"] = _neg_out_check
nan_to_num.__dict__["_out_check"] = _nan_to_num_check
