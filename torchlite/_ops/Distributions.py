"""The random ops over tensors (ATen/native/Distributions.cpp): normal with a tensor mean or
std, and multinomial. They draw from torchlite's generators (numpy's on the host, cupy's on a
cuda device): the same distributions as torch, not the same numbers.

normal is differentiable as torch defines it: a sample does not move with its mean or std, so
their gradients are zeros (derivatives.yaml's NormalBackward1..3, which keep the inputs' sizes);
multinomial's indices are not differentiable.

The random in-place fills and bernoulli (ATen/native/Distributions.cpp,
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
from .._generator import Generator
from .ExpandUtils import _broadcast_shapes
from .ScalarType import _b1, _torch_type_name
from .TensorIterator import _TB
from .TensorShape import expand
from . import mutation as _mutation


def _rng(fn, generator, a):
    """The numpy generator for array `a`'s device (None: cupy's, for a cuda array)."""
    if generator is not None and not isinstance(generator, Generator):
        raise TypeError(f"{fn}(): argument 'generator' must be torch.Generator, not {type(generator).__name__}")
    if _backend.is_cuda_array(a):
        if generator is not None:
            raise RuntimeError(f"Expected a 'cuda' device type for generator but found '{generator.device.type}'")
        return None
    return generator._rng if generator is not None else _backend.generator()


def _standard_normal(rng, like, shape):
    if rng is None:
        with like.device:
            return _backend.cupy.random.standard_normal(shape)
    return rng.standard_normal(shape)


def _check_std(std):
    if isinstance(std, _TB):
        s = std._array
        if s.size and bool((s < 0).any()):
            raise RuntimeError("normal expects all elements of std >= 0.0")
    elif std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt(std)}")


def _fmt(x):
    x = float(x)
    return str(int(x)) if x.is_integer() else repr(x)


def _check_float(t):
    if t._array.dtype.kind != "f":
        raise NotImplementedError(f"\"normal_kernel_cpu\" not implemented for '{_torch_type_name(t._array.dtype)}'")


def _number_arg(name, position, value):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"normal(): argument '{name}' (position {position}) must be float, not {type(value).__name__}")
    return float(value)


def normal(mean, std=1.0, *, generator=None):
    """normal(mean, std): one sample per element of the broadcast mean and std, each a tensor or
    a number (normal.Tensor_Tensor, Tensor_float, float_Tensor). torchlite.normal
    (torchlite/_factories.py) adds the factory of two numbers (normal.float_float) and out=."""
    if not isinstance(mean, _TB) and not isinstance(std, _TB):
        raise TypeError("normal(): mean or std must be a tensor")
    if isinstance(mean, _TB) and isinstance(std, _TB):
        _check_float(mean)
        _check_std(std)
        m, s = mean._array, std._array
        shape = _broadcast_shapes(m.shape, s.shape)
        rng = _rng("normal", generator, m)
        z = _standard_normal(rng, m, shape).astype(m.dtype)
        out = _wrap(_backend.asarray(z * s.astype(m.dtype) + m).astype(m.dtype, copy=False), mean)
        return _record(_S.NormalBackward3, (mean, std), out, mean_sym_sizes=m.shape, std_sym_sizes=s.shape)
    if isinstance(mean, _TB):
        std = _number_arg("std", 2, std)
        _check_float(mean)
        _check_std(std)
        m = mean._array
        z = _standard_normal(_rng("normal", generator, m), m, m.shape)
        out = _wrap(_backend.asarray(z * std + m).astype(m.dtype, copy=False), mean)
        return _record(_S.NormalBackward1, (mean,), out, mean_sym_sizes=m.shape)
    mean = _number_arg("mean", 1, mean)
    _check_float(std)
    _check_std(std)
    s = std._array
    z = _standard_normal(_rng("normal", generator, s), s, s.shape)
    out = _wrap(_backend.asarray(z * s + mean).astype(s.dtype, copy=False), std)
    return _record(_S.NormalBackward2, (std,), out, std_sym_sizes=s.shape)


def multinomial(self, num_samples, replacement=False, *, generator=None):
    """Indices drawn from each row of `self` (weights, not necessarily normalised): with
    replacement independent draws, without it draws without putting back (Gumbel top-k:
    torch's algorithm for it on the CPU, exponential keys divided into the weights)."""
    if not isinstance(self, _TB):
        raise TypeError(f"multinomial(): argument 'input' (position 1) must be Tensor, not {type(self).__name__}")
    if isinstance(num_samples, bool) or not hasattr(num_samples, "__index__"):
        raise TypeError(f"multinomial(): argument 'num_samples' (position 2) must be int, not "
                        f"{type(num_samples).__name__}")
    n_sample = num_samples.__index__()
    a = self._array
    if a.dtype.kind != "f":
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{_torch_type_name(a.dtype)}")
    if a.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    n_categories = a.shape[-1]
    if not replacement and n_sample > n_categories:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if n_sample <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if n_categories > 2 ** 24:
        raise RuntimeError("number of categories cannot exceed 2^24")
    host = _backend.to_host(a).astype(np.float64).reshape(-1, n_categories)
    if host.size and not (np.isfinite(host).all() and (host >= 0).all()):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    sums = host.sum(axis=1)
    if (sums <= 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    rng = _rng("multinomial", generator, np.empty(0))  # drawn on the host, whatever the device
    if replacement:
        cdf = np.cumsum(host / sums[:, None], axis=1)
        u = rng.random((host.shape[0], n_sample))
        idx = np.stack([np.searchsorted(cdf[r], u[r], side="right") for r in range(host.shape[0])])
        idx = np.minimum(idx, n_categories - 1)
    else:
        with np.errstate(divide="ignore"):
            keys = host / rng.exponential(size=host.shape)
        # zero weights get keys of 0; ties among them fall to the lowest index, as torch's topk
        idx = np.argsort(-keys, axis=1, kind="stable")[:, :n_sample]
    idx = idx.astype(np.int64).reshape(a.shape[:-1] + (n_sample,))
    return _wrap(_backend.asarray(idx, like=self), self)



def _gen(generator=None):
    """The numpy generator to draw from: `generator`'s, else torchlite's default one."""
    return generator._rng if generator is not None else _backend.generator()


def _not_implemented(kernel, dtype):
    return NotImplementedError(f'"{kernel}" not implemented for \'{_torch_type_name(dtype)}\'')


def _fmt_g(x):
    """A double as torch's messages print it (c10::str: `2`, `-1.5`, `0.001`)."""
    return f"{x:g}"


def _fill(self, node, values):
    """Writes values into self (cast to its dtype) and rebases self's history on `node`."""
    a = self._array
    if _mutation.hook is not None:
        _mutation.hook(self)
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
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={_fmt_g(low)} > "
                           f"to={_fmt_g(high)}")
    node = _inplace_node(_S.UniformBackward0, (self,))
    return _fill(self, node, low + (high - low) * _gen(generator).random(a.shape))


def normal_(self, mean=0, std=1, *, generator=None):
    a = self._array
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt_g(std)}")
    if a.dtype.kind != "f":
        raise _not_implemented("normal_kernel_cpu", a.dtype)
    node = _inplace_node(_S.NormalBackward0, (self,))
    return _fill(self, node, mean + std * _gen(generator).standard_normal(a.shape))


def exponential_(self, lambd=1, *, generator=None):
    a = self._array
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_fmt_g(lambd)}")
    if a.dtype.kind != "f":
        raise RuntimeError("Exponential distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {_torch_type_name(a.dtype)}")
    node = _inplace_node(_S.ExponentialBackward0, (self,))
    return _fill(self, node, _gen(generator).exponential(1.0 / lambd, a.shape))


def geometric_(self, p, *, generator=None):
    a = self._array
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_fmt_g(p)}")
    if a.dtype == _b1:
        raise _not_implemented("geometric_cpu", a.dtype)
    node = _inplace_node(_S.GeometricBackward0, (self,))
    return _fill(self, node, _gen(generator).geometric(p, a.shape))


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
    rng = _gen(generator)
    return _fill(self, node, rng.integers(low, high, a.shape, dtype=np.int64, endpoint=False)
                 if high <= 2 ** 63 else rng.integers(low, high - 1, a.shape, dtype=np.int64, endpoint=True))


def _check_p(p):
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_fmt_g(p)}")


def bernoulli_(self, p=0.5, *, generator=None):
    a = self._array
    if isinstance(p, _TB):
        probs = _backend.to_host((p if p._array.shape == a.shape else expand(p, a.shape))._array)
        node = _inplace_node(_S.BernoulliBackward1, (self, p))
        return _fill(self, node, _gen(generator).random(a.shape) < probs)
    _check_p(p)
    node = _inplace_node(_S.BernoulliBackward2, (self,))
    return _fill(self, node, _gen(generator).random(a.shape) < p)


def bernoulli(input, p=None, *, generator=None):  # noqa: A002 - torch's name
    a = input._array
    if p is not None:
        # bernoulli.p: a fresh tensor like input, filled by bernoulli_(p). torch gives it autograd's
        # NotImplemented node (no derivatives.yaml entry), which torchlite has not: no node
        _check_p(p)
        return _wrap(_backend.asarray((_gen(generator).random(a.shape) < p).astype(a.dtype), like=input), input)
    if a.dtype.kind != "f":
        raise _not_implemented("bernoulli_tensor_cpu_p_", a.dtype)
    probs = _backend.to_host(a)
    if probs.size and not ((probs >= 0) & (probs <= 1)).all():
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message "
                           "be improved?  If so, please report an enhancement request to PyTorch.)")
    out = _wrap(_backend.asarray((_gen(generator).random(a.shape) < probs).astype(a.dtype), like=input), input)
    return _record(_S.BernoulliBackward0, (input,), out)


