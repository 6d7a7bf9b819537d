"""The random ops over tensors (ATen/native/Distributions.cpp): normal with a tensor mean or
std, and multinomial. They draw from torchlite's generators (numpy's on the host, cupy's on a
cuda device): the same distributions as torch, not the same numbers.

normal is differentiable as torch defines it: a sample does not move with its mean or std, so
their gradients are zeros (derivatives.yaml's NormalBackward1..3, which keep the inputs' sizes);
multinomial's indices are not differentiable."""
import numpy as np

from .. import _backend
from .._C import _record, _wrap
from .._generated import specs as _S
from .._generator import Generator
from .ExpandUtils import _broadcast_shapes
from .ScalarType import _torch_type_name
from .TensorIterator import _TB


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
