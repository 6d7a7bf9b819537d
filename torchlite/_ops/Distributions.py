"""The random in-place fills and bernoulli (ATen/native/Distributions.cpp,
DistributionTemplates.h), with torch's argument checks and nodes (UniformBackward0, ...,
whose gradient is zero: the fill does not depend on what self held).

The numbers come from torchlite's generator (_backend.generator(); torch's Philox/MT streams are
not reproduced), drawn on the host and written into self. The values follow torch's
distributions: uniform_ in [from, to), random_ over the integers of [from, to) (by default
[0, 2**mantissa] for a float dtype, [0, max] for an integral one), geometric_ in {1, 2, ...}."""

import warnings

import numpy as np

from .. import _backend
from .._C import _inplace_node, _rebase_history, _record, _wrap
from .._generated import specs as _S
from .ScalarType import _b1, _torch_type_name
from .TensorIterator import _TB
from .TensorShape import expand


def _gen():
    return _backend.generator()


def _not_implemented(kernel, dtype):
    return NotImplementedError(f'"{kernel}" not implemented for \'{_torch_type_name(dtype)}\'')


def _fmt(x):
    """A double as torch's messages print it (c10::str: `2`, `-1.5`, `0.001`)."""
    return f"{x:g}"


def _fill(self, node, values):
    """Writes values into self (cast to its dtype) and rebases self's history on `node`."""
    a = self._array
    a[...] = _backend.asarray(values, like=self).astype(a.dtype, copy=False)
    self._bump_version()
    return _rebase_history(self, node)


def _from_to(args, kwargs, defaults):
    """torch's `from`/`to` arguments (`from` is a Python keyword: it arrives in kwargs)."""
    names = ("from", "to")
    values = dict(zip(names, defaults, strict=True))
    for name, value in zip(names, args, strict=False):
        values[name] = value
    for name in names:
        if name in kwargs:
            values[name] = kwargs.pop(name)
    if kwargs:
        raise TypeError(f"got an unexpected keyword argument '{next(iter(kwargs))}'")
    return values["from"], values["to"]


def uniform_(self, *args, generator=None, **kwargs):
    low, high = _from_to(args, kwargs, (0, 1))
    a = self._array
    if a.dtype.kind != "f":
        raise _not_implemented("check_uniform_bounds", a.dtype)
    if low > high:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={_fmt(low)} > "
                           f"to={_fmt(high)}")
    node = _inplace_node(_S.UniformBackward0, (self,))
    return _fill(self, node, low + (high - low) * _gen().random(a.shape))


def normal_(self, mean=0, std=1, *, generator=None):
    a = self._array
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt(std)}")
    if a.dtype.kind != "f":
        raise _not_implemented("normal_kernel_cpu", a.dtype)
    node = _inplace_node(_S.NormalBackward0, (self,))
    return _fill(self, node, mean + std * _gen().standard_normal(a.shape))


def exponential_(self, lambd=1, *, generator=None):
    a = self._array
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_fmt(lambd)}")
    if a.dtype.kind != "f":
        raise RuntimeError("Exponential distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {_torch_type_name(a.dtype)}")
    node = _inplace_node(_S.ExponentialBackward0, (self,))
    return _fill(self, node, _gen().exponential(1.0 / lambd, a.shape))


def geometric_(self, p, *, generator=None):
    a = self._array
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_fmt(p)}")
    if a.dtype == _b1:
        raise _not_implemented("geometric_cpu", a.dtype)
    node = _inplace_node(_S.GeometricBackward0, (self,))
    return _fill(self, node, _gen().geometric(p, a.shape))


def _max_random(dtype):
    """The largest value random_() draws in `dtype` (2**mantissa for a float dtype)."""
    if dtype.kind == "f":
        return 2 ** (np.finfo(dtype).nmant + 1)
    if dtype == _b1:
        return 1
    return int(np.iinfo(dtype).max)


def _check_from(low, dtype):
    """random_'s bound check on `from` (check_from_to_in_range)."""
    if dtype == _b1:
        if not 0 <= low <= 1:
            raise RuntimeError("from is out of bounds for bool")
    elif dtype.kind == "f":
        digits = np.finfo(dtype).nmant + 1
        if not -(2 ** digits) <= low <= 2 ** digits:
            name = {"float32": "float", "float64": "double"}.get(dtype.name, dtype.name)
            warnings.warn(f"from is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision limitations {name} "
                          "can support discrete uniform distribution only within this range. This warning will become "
                          "an error in version 1.7 release, please fix the code in advance", UserWarning,
                          stacklevel=3)
    elif not np.iinfo(dtype).min <= low <= np.iinfo(dtype).max:
        raise RuntimeError(f"from is out of bounds for {dtype.name}")


def _check_to(to, dtype):
    """random_'s bound check on `to - 1` (DistributionTemplates.h's check_from_to_in_range)."""
    if dtype == _b1:
        if not 0 <= to - 1 <= 1:
            raise RuntimeError("to - 1 is out of bounds for bool")
    elif dtype.kind == "f":
        digits = np.finfo(dtype).nmant + 1
        if not -(2 ** digits) <= to - 1 <= 2 ** digits:
            name = {"float32": "float", "float64": "double"}.get(dtype.name, dtype.name)
            warnings.warn(f"to - 1 is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision limitations {name} "
                          "can support discrete uniform distribution only within this range. This warning will become "
                          "an error in version 1.7 release, please fix the code in advance", UserWarning,
                          stacklevel=3)
    elif not np.iinfo(dtype).min <= to - 1 <= np.iinfo(dtype).max:
        raise RuntimeError(f"to - 1 is out of bounds for {dtype.name}")


def random_(self, *args, generator=None, **kwargs):
    a = self._array
    given = len(args) + ("from" in kwargs) + ("to" in kwargs)
    if given == 0:
        spec = _S.RandomBackward2
        low, high = 0, _max_random(a.dtype) + 1
    elif given == 1 and "from" not in kwargs:
        spec = _S.RandomBackward1
        low, high = 0, args[0] if args else kwargs.pop("to")
        if low >= high:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
        _check_to(high, a.dtype)
    else:
        spec = _S.RandomBackward0
        low, high = _from_to(args, kwargs, (0, None))
        if high is None:
            high = _max_random(a.dtype) + 1
        else:
            if low >= high:
                raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
            _check_from(low, a.dtype)
            _check_to(high, a.dtype)
    node = _inplace_node(spec, (self,))
    return _fill(self, node, _gen().integers(low, high, a.shape, dtype=np.int64, endpoint=False)
                 if high <= 2 ** 63 else _gen().integers(low, high - 1, a.shape, dtype=np.int64, endpoint=True))


def _check_p(p):
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_fmt(p)}")


def bernoulli_(self, p=0.5, *, generator=None):
    a = self._array
    if isinstance(p, _TB):
        probs = _backend.to_host((p if p._array.shape == a.shape else expand(p, a.shape))._array)
        node = _inplace_node(_S.BernoulliBackward1, (self, p))
        return _fill(self, node, _gen().random(a.shape) < probs)
    _check_p(p)
    node = _inplace_node(_S.BernoulliBackward2, (self,))
    return _fill(self, node, _gen().random(a.shape) < p)


def bernoulli(input, p=None, *, generator=None):  # noqa: A002 - torch's name
    a = input._array
    if p is not None:
        # bernoulli.p: a fresh tensor like input, filled by bernoulli_(p). torch gives it autograd's
        # NotImplemented node (no derivatives.yaml entry), which torchlite has not: no node
        _check_p(p)
        return _wrap(_backend.asarray((_gen().random(a.shape) < p).astype(a.dtype), like=input), input)
    if a.dtype.kind != "f":
        raise _not_implemented("bernoulli_tensor_cpu_p_", a.dtype)
    probs = _backend.to_host(a)
    if probs.size and not ((probs >= 0) & (probs <= 1)).all():
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message "
                           "be improved?  If so, please report an enhancement request to PyTorch.)")
    out = _wrap(_backend.asarray((_gen().random(a.shape) < probs).astype(a.dtype), like=input), input)
    return _record(_S.BernoulliBackward0, (input,), out)


