"""The random ops over tensors (ATen/native/Distributions.cpp): normal with a tensor mean or
std, and multinomial. They draw from torch's CPU generator with torch's kernels
(torchlite/_random.py): for a seed, the numbers torch gives on the CPU (a cuda tensor's numbers
are drawn on the host and copied to the device).

normal is differentiable as torch defines it: a sample does not move with its mean or std, so
their gradients are zeros (derivatives.yaml's NormalBackward1..3, which keep the inputs' sizes);
multinomial's indices are not differentiable.

The random in-place fills and bernoulli (ATen/native/Distributions.cpp,
DistributionTemplates.h), with torch's argument checks and nodes (UniformBackward0, ...,
whose gradient is zero: the fill does not depend on what self held).

The values are torch's: uniform_ in [from, to), random_ over the integers of [from, to) (by
default [0, 2**mantissa] for a float dtype, [0, max] for an integral one), geometric_ in
{1, 2, ...}, each drawn by torch's kernel in torch's order."""
import warnings

import numpy as np

from .. import _C, _backend, _random
from .._C import _inplace_node, _rebase_history, _record, _wrap
from .._generated import specs as _S
from .ExpandUtils import _broadcast_shapes
from .ScalarType import _b1, _torch_type_name
from .TensorIterator import _TB
from .TensorShape import expand
from . import mutation as _mutation


def _impl(fn, generator):
    """The C++ generator to draw from: `generator`'s, else the default CPU one."""
    return _random.impl_of(fn, generator, None)


def _draw(impl, a, draw):
    """draw(impl, host_array) into array `a` (a cuda array: drawn on the host, then copied)."""
    if _backend.is_cuda_array(a):
        h = np.empty(a.shape, a.dtype)
        draw(impl, h)
        a[...] = _backend.asarray(h, like=a)
        return a
    return draw(impl, a)


def _standard_normal(impl, like, shape, dtype, std=1.0):
    """empty(shape, dtype).normal_(0, std) (contiguous), on like's device."""
    h = _random.normal_(impl, np.empty(shape, dtype), 0.0, std)
    return _backend.asarray(h, like=like) if _backend.is_cuda_array(like) else h


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
        # normal_out_impl: output.normal_(0, 1), then output.mul_(std).add_(mean)
        z = _standard_normal(_impl("normal", generator), m, shape, m.dtype)
        z = (z * s).astype(m.dtype, copy=False)
        out = _wrap(_backend.asarray(z + m).astype(m.dtype, copy=False), mean)
        return _record(_S.NormalBackward3, (mean, std), out, mean_sym_sizes=m.shape, std_sym_sizes=s.shape)
    if isinstance(mean, _TB):
        std = _number_arg("std", 2, std)
        _check_float(mean)
        _check_std(std)
        m = mean._array
        # output.normal_(0, std), then output.add_(mean)
        z = _standard_normal(_impl("normal", generator), m, m.shape, m.dtype, std)
        out = _wrap(_backend.asarray(z + m).astype(m.dtype, copy=False), mean)
        return _record(_S.NormalBackward1, (mean,), out, mean_sym_sizes=m.shape)
    mean = _number_arg("mean", 1, mean)
    _check_float(std)
    _check_std(std)
    s = std._array
    # output.normal_(0, 1), then output.mul_(std).add_(mean), mean a 0-d tensor of output's dtype
    z = _standard_normal(_impl("normal", generator), s, s.shape, s.dtype)
    z = (z * s).astype(s.dtype, copy=False)
    out = _wrap(_backend.asarray(z + s.dtype.type(mean)).astype(s.dtype, copy=False), std)
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
    impl = _impl("multinomial", generator)  # drawn on the host, whatever the device
    host = _backend.to_host(a)
    if not replacement or n_sample == 1:
        # The Gumbel-max trick (Distributions.cpp): q = empty_like(self).exponential_(1), then
        # the n_sample largest of self / q (argmax for one sample)
        if host.size and not (np.isfinite(host).all() and (host >= 0).all()):
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        sums = host.astype(np.float64).reshape(-1, n_categories).sum(axis=1)
        if (sums <= 0).any():
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        q = np.empty_like(host)
        _random.fill("exponential", impl, q, 1.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            keys = (host / q).astype(host.dtype, copy=False).reshape(-1, n_categories)
        if n_sample == 1:
            idx = np.argmax(keys, axis=1)[:, None]
        else:
            # topk: the largest first; ties (zero weights) to the lowest index
            idx = np.argsort(-keys, axis=1, kind="stable")[:, :n_sample]
    else:
        probs = host.astype(np.float32 if host.dtype == np.float16 else host.dtype)
        probs = np.ascontiguousarray(probs.reshape(-1, n_categories))
        idx = _C._random.multinomial_with_replacement(impl, probs, n_sample)
    idx = idx.astype(np.int64).reshape(a.shape[:-1] + (n_sample,))
    return _wrap(_backend.asarray(idx, like=self), self)



def _not_implemented(kernel, dtype):
    return NotImplementedError(f'"{kernel}" not implemented for \'{_torch_type_name(dtype)}\'')


def _fmt_g(x):
    """A double as torch's messages print it (c10::str: `2`, `-1.5`, `0.001`)."""
    return f"{x:g}"


def _fill(self, node, fn, generator, draw):
    """Fills self by draw(impl, array) from `generator` (else the default CPU generator) and
    rebases self's history on `node`."""
    if _mutation.hook is not None:
        _mutation.hook(self)
    _draw(_impl(fn, generator), self._array, draw)
    self._bump_version()
    return _rebase_history(self, node)


def _update_from_to(low, high, np_dtype):
    """update_from / update_to (aten/src/ATen/native/DistributionTemplates.h): bounds that a
    floating dtype rounds past moved back inside, by one unit of the dtype at that size."""
    digits = np.finfo(np_dtype).nmant + 1

    def cast(v):
        return int(np.array(v, dtype=np.float64).astype(np_dtype).astype(np.float64))
    if low is not None:
        plus1 = cast(low + 1)
        if plus1 < low:
            n = abs(low + 1).bit_length() - 1
            low = plus1 + (1 << (n - digits + 1))
    if high is not None:
        minus1 = cast(high - 1)
        if minus1 >= high:
            n = abs(high - 1).bit_length() - 1
            high = minus1 - (1 << (n - digits + 1))
    return low, high


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
    return _fill(self, node, "uniform_", generator, lambda g, x: _random.uniform_(g, x, low, high))


def normal_(self, mean=0, std=1, *, generator=None):
    a = self._array
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt_g(std)}")
    if a.dtype.kind != "f":
        raise _not_implemented("normal_kernel_cpu", a.dtype)
    node = _inplace_node(_S.NormalBackward0, (self,))
    return _fill(self, node, "normal_", generator, lambda g, x: _random.normal_(g, x, mean, std))


def exponential_(self, lambd=1, *, generator=None):
    a = self._array
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_fmt_g(lambd)}")
    if a.dtype.kind != "f":
        raise RuntimeError("Exponential distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {_torch_type_name(a.dtype)}")
    node = _inplace_node(_S.ExponentialBackward0, (self,))
    return _fill(self, node, "exponential_", generator, lambda g, x: _random.fill("exponential", g, x, float(lambd)))


def geometric_(self, p, *, generator=None):
    a = self._array
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_fmt_g(p)}")
    if a.dtype == _b1:
        raise _not_implemented("geometric_cpu", a.dtype)
    node = _inplace_node(_S.GeometricBackward0, (self,))
    return _fill(self, node, "geometric_", generator, lambda g, x: _random.fill("geometric", g, x, float(p)))


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
        if high is None and low == -2 ** 63:
            if not (a.dtype.kind == "f" or a.dtype == np.int64):
                raise RuntimeError("random_full_64_bits_range_kernel_cpu handles only int64, double, float and "
                                   "bfloat16")
            node = _inplace_node(spec, (self,))
            return _fill(self, node, "random_", generator, lambda g, x: _random.random_from_to_(g, x, low, None))
        if high is None:
            high = _max_random(a.dtype) + 1
        else:
            if low >= high:
                raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
            _check_from(low, a.dtype)
            _check_to(high, a.dtype)
    node = _inplace_node(spec, (self,))
    if spec is _S.RandomBackward2:
        # random_(): uniform_int_distribution, [0, max] / [0, 2**mantissa]
        return _fill(self, node, "random_", generator, _random.random_)
    if a.dtype.kind == "f":
        low, high = _update_from_to(low, high, a.dtype)
    return _fill(self, node, "random_", generator, lambda g, x: _random.random_from_to_(g, x, low, high))


def _check_p(p):
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_fmt_g(p)}")


def bernoulli_(self, p=0.5, *, generator=None):
    a = self._array
    if isinstance(p, _TB):
        probs = _backend.to_host((p if p._array.shape == a.shape else expand(p, a.shape))._array)
        node = _inplace_node(_S.BernoulliBackward1, (self, p))
        return _fill(self, node, "bernoulli_", generator, lambda g, x: _bernoulli_tensor(g, x, probs))
    _check_p(p)
    node = _inplace_node(_S.BernoulliBackward2, (self,))
    return _fill(self, node, "bernoulli_", generator, lambda g, x: _random.fill("bernoulli_scalar", g, x, float(p)))


def _bernoulli_tensor(impl, a, probs):
    """bernoulli_(p_tensor): p broadcast to a, visited in a's iteration order (a double p draws a
    double uniform, a float or half one a float uniform)."""
    probs = np.asarray(probs)
    if probs.dtype.kind != "f":
        probs = probs.astype(np.float32)
    probs = np.broadcast_to(probs, a.shape)
    if a.size == 0:
        return a
    if a.flags.c_contiguous and a.flags.writeable:
        _C._random.bernoulli_tensor(impl, a, np.ascontiguousarray(probs))
        return a
    view = _random._iteration_view(a)
    perm = sorted(range(a.ndim), key=lambda d: -abs(a.strides[d]) if a.shape[d] > 1 else 0)
    buf = np.empty(view.shape, a.dtype)
    _C._random.bernoulli_tensor(impl, buf, np.ascontiguousarray(probs.transpose(perm)))
    view[...] = buf
    return a


def bernoulli(input, p=None, *, generator=None):  # noqa: A002 - torch's name
    a = input._array
    if p is not None:
        # bernoulli.p: a fresh tensor like input, filled by bernoulli_(p); it has no derivatives.yaml
        # entry upstream, so its node is autograd's NotImplemented (backward: "derivative for
        # aten::bernoulli is not implemented")
        _check_p(p)
        h = np.empty_like(_backend.to_host(a))
        _random.fill("bernoulli_scalar", _impl("bernoulli", generator), h, float(p))
        return _record(_S.NotImplemented1, (input,), _wrap(_backend.asarray(h, like=input), input),
                       name="aten::bernoulli")
    if a.dtype.kind != "f":
        raise _not_implemented("bernoulli_tensor_cpu_p_", a.dtype)
    probs = _backend.to_host(a)
    if probs.size and not ((probs >= 0) & (probs <= 1)).all():
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message "
                           "be improved?  If so, please report an enhancement request to PyTorch.)")
    # bernoulli(self): empty_like(self).bernoulli_(self)
    h = np.empty_like(probs)
    _bernoulli_tensor(_impl("bernoulli", generator), h, probs)
    out = _wrap(_backend.asarray(h, like=input), input)
    return _record(_S.BernoulliBackward0, (input,), out)


