"""bincount and histc (ATen/native/SummaryOps.cpp, and histc through HistogramKernel.cpp's
linear-interpolation binning). Neither is differentiable: torch records no node."""
import builtins
import math

import numpy as np

from .. import _backend
from .._C import _wrap
from .ScalarType import _C_TYPE, _f64, _i64, _torch_type_name


def _not_implemented(kernel, dtype):
    return NotImplementedError(f'"{kernel}" not implemented for \'{_torch_type_name(dtype)}\'')


def bincount(self, weights=None, minlength=0):
    a = self._array
    if a.dtype.kind not in "iu":
        raise _not_implemented("bincount_cpu", a.dtype)
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    host = _backend.to_host(a)
    if a.ndim != 1 or (host.size and host.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None:
        w = weights._array
        if w.ndim != 1 or w.shape[0] != a.shape[0]:
            raise RuntimeError("weights should be 1-d and have the same length as input")
        # float weights keep their dtype, any other sums in double (_bincount_cpu)
        dtype = w.dtype if w.dtype.kind == "f" else _f64
        counts = np.bincount(host, weights=_backend.to_host(w).astype(np.float64), minlength=minlength)
        r = counts.astype(dtype)
    else:
        r = np.bincount(host, minlength=minlength).astype(_i64)
    return _wrap(_backend.asarray(r, like=self), self)


def _check_bound(x, dtype):
    """c10::checked_convert of a double into `dtype` (c10::overflows: inf passes into a floating type)."""
    if dtype.kind == "f":
        bad = math.isfinite(x) and builtins.abs(x) > float(np.finfo(dtype).max)
    else:
        info = np.iinfo(dtype)
        bad = not info.min <= x <= info.max  # nan too
    if bad:
        raise RuntimeError(f"value cannot be converted to type {_C_TYPE[dtype]} without overflow")


def _fmt(x):
    """A bound as c10 prints it in histc's messages."""
    if math.isnan(x):
        return "-nan" if math.copysign(1.0, x) < 0 else "nan"
    return f"{x:g}"


def histc(self, bins=100, min=0, max=0):  # noqa: A002 - torch's names
    a = self._array
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    # histogram_histc_out: the bin edges are linspace(min, max) in self's dtype (no bool kernel; the
    # bounds, read as doubles, checked into the dtype), then the histogram kernel (floating types only)
    if a.dtype == np.bool_:
        raise _not_implemented("linspace_cpu", a.dtype)
    for bound in (min, max):
        _check_bound(float(bound), a.dtype)
    if a.dtype.kind != "f":
        raise _not_implemented("histogram_cpu", a.dtype)
    host = _backend.to_host(a).reshape(-1)
    lo, hi = a.dtype.type(min), a.dtype.type(max)
    if lo == hi and host.size:
        # the range of the data as aminmax reduces it: from the identities finfo.max (min) and
        # finfo.lowest (max), so all -inf data gives a max of lowest; a nan propagates, its sign kept
        # for one element, else the vectorised combine's all-ones nan (-nan)
        if np.isnan(host).any():
            lo = hi = host[0] if host.size == 1 else a.dtype.type(-np.nan)
        else:
            # (float16 reduces in float32: its identities are float32's, inf once back in float16)
            info = np.finfo(np.float32 if a.dtype == np.float16 else a.dtype)
            with np.errstate(over="ignore"):
                lo = a.dtype.type(np.minimum(host.min(), info.max))
                hi = a.dtype.type(np.maximum(host.max(), info.min))
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{_fmt(float(lo))}, {_fmt(float(hi))}] is not finite")
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    inside = host[(host >= lo) & (host <= hi)]
    # the bin as HistogramKernel.cpp's linear interpolation computes it, in the input's dtype:
    # (x - lo) * bins / (hi - lo), the right edge in the last bin
    with np.errstate(all="ignore"):
        pos = ((inside - lo) * a.dtype.type(bins) / (hi - lo)).astype(np.int64)
    pos[pos == bins] = bins - 1
    r = np.bincount(pos, minlength=bins).astype(a.dtype)
    return _wrap(_backend.asarray(r, like=self), self)
