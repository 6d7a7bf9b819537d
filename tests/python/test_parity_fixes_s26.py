"""Torch-parity fixes of issue 16's `fixes` family (session 26), each against torch 2.13.

1. An integer division by zero in place or into out= leaves the elements before the zero written
   (Note [Integer division by zero writes a prefix], torchlite/_ops/int_zero_division.py).
"""
import warnings

import numpy as np
import pytest

import torchlite
from diff_utils import import_torch, run

torch = import_torch()


DEVICES = ["cpu", "sim:0"]


def _dev(lib, dev):
    """The device a case runs on: torch runs the sim:0 cases on the CPU."""
    return dev if lib is torchlite else "cpu"


def _show(t):
    return (str(t.dtype).split(".")[-1], list(t.shape), t.detach().cpu().numpy().tolist(), t._version)


# ---------------------------------------------------------------------------------------------------
# 1. integer division by zero: the prefix torch's element loop wrote


def _layouts(lib, dtype, dev):
    """(self, other) pairs: contiguous, transposed, broadcast rows/columns, a zero first/last/in the middle."""
    t = getattr(lib, dtype)
    a = lib.arange(1, 13, dtype=t, device=dev)
    ones = lib.ones(12, dtype=t, device=dev)
    pairs = []
    for z in (0, 5, 11):
        o = ones.clone()
        o[z] = 0
        pairs.append((a.clone(), o))
        pairs.append((a.clone().reshape(3, 4), o.reshape(3, 4)))
        pairs.append((a.clone().reshape(4, 3).t(), o.reshape(3, 4)))
        pairs.append((a.clone().reshape(4, 3).t(), o.reshape(4, 3).t()))
        pairs.append((a.clone().reshape(3, 4), o.reshape(4, 3).t()))
        pairs.append((a.clone().reshape(2, 3, 2).permute(2, 0, 1), o.reshape(2, 2, 3)))
    row = lib.tensor([3, 1, 2, 0], dtype=t, device=dev)
    col = lib.tensor([[2], [0], [1]], dtype=t, device=dev)
    pairs += [(a.clone().reshape(3, 4), row), (a.clone().reshape(4, 3).t(), row),
              (a.clone().reshape(3, 4), col), (a.clone().reshape(4, 3).t(), col),
              (a.clone(), lib.tensor(0, dtype=t, device=dev)), (a.clone(), lib.tensor([0], dtype=t, device=dev))]
    return pairs


_INPLACE = {
    "fmod_": lambda x, y: x.fmod_(y),
    "remainder_": lambda x, y: x.remainder_(y),
    "imod": lambda x, y: x.__imod__(y),
    "ifloordiv": lambda x, y: x.__ifloordiv__(y),
    "floor_divide_": lambda x, y: x.floor_divide_(y),
    "div_trunc": lambda x, y: x.div_(y, rounding_mode="trunc"),
    "div_floor": lambda x, y: x.div_(y, rounding_mode="floor"),
    "divide_trunc": lambda x, y: x.divide_(y, rounding_mode="trunc"),
    "fmod_number": lambda x, y: x.fmod_(0),
    "remainder_number": lambda x, y: x.remainder_(0),
}


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "int8", "uint8"])
@pytest.mark.parametrize("op", sorted(_INPLACE))
def test_int_zero_division_inplace_prefix(op, dtype, dev):
    def case(lib):
        shown = []
        for x, y in _layouts(lib, dtype, _dev(lib, dev)):
            err = run(lambda lib, x=x, y=y: _INPLACE[op](x, y), lib)
            shown.append((err, _show(x)))
        return shown
    assert run(case, torchlite) == run(case, torch)


def test_int_zero_division_self_divides_itself():
    def case(lib):
        x = lib.tensor([5, 7, 0, 3, 9])
        err = run(lambda lib: x.fmod_(x), lib)
        y = lib.arange(0, 6).reshape(2, 3).t()
        err2 = run(lambda lib: y.remainder_(y), lib)
        return err, _show(x), err2, _show(y)
    assert run(case, torchlite) == run(case, torch)


def test_int_zero_division_other_dtypes_write_nothing():
    """A computation dtype other than self's (int32 self, int64 other) writes through a temporary: nothing."""
    def case(lib):
        shown = []
        for sd, od in (("int32", "int64"), ("int64", "int32"), ("int8", "int16"), ("uint8", "int64")):
            x = lib.tensor([5, 7, 0, 3, 9], dtype=getattr(lib, sd))
            y = lib.tensor([2, 3, 0, 1, 2], dtype=getattr(lib, od))
            shown.append((run(lambda lib, x=x, y=y: x.fmod_(y), lib), _show(x)))
        return shown
    assert run(case, torchlite) == run(case, torch)


_OUT = {
    "fmod": lambda lib, x, y, o: lib.fmod(x, y, out=o),
    "remainder": lambda lib, x, y, o: lib.remainder(x, y, out=o),
    "floor_divide": lambda lib, x, y, o: lib.floor_divide(x, y, out=o),
    "div_trunc": lambda lib, x, y, o: lib.div(x, y, rounding_mode="trunc", out=o),
    "div_floor": lambda lib, x, y, o: lib.div(x, y, rounding_mode="floor", out=o),
}


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("op", sorted(_OUT))
def test_int_zero_division_out_prefix(op, dev):
    def case(lib):
        shown = []
        d = _dev(lib, dev)
        x = lib.tensor([[5, 7, 4, 3, 9], [8, 6, 2, 1, 11]], device=d)
        ys = [lib.tensor([2, 3, 0, 1, 2], device=d), lib.tensor([[2, 3, 5, 1, 2], [1, 0, 1, 1, 1]], device=d),
              lib.tensor([[1, 3, 5, 1, 2], [1, 1, 1, 1, 1]], device=d).t().contiguous().t()]
        for y in ys:
            y = y.clone()
            y[..., -1] = 0
            for o in (lib.zeros(2, 5, dtype=lib.int64, device=d), lib.zeros(5, 2, dtype=lib.int64, device=d).t(),
                      lib.zeros(2, 10, dtype=lib.int64, device=d)[:, ::2], lib.zeros(2, 5, device=d)):
                shown.append((run(lambda lib, y=y, o=o: _OUT[op](lib, x, y, o), lib), _show(o)))
        return shown
    assert run(case, torchlite) == run(case, torch)


def test_int_zero_division_out_resized():
    """out of the wrong shape is resized (with the deprecation warning) before the kernel: its shape and the
    prefix are torch's (what follows the zero is uninitialized memory in torch)."""
    def case(lib):
        x = lib.tensor([5, 7, 4, 3, 9])
        y = lib.tensor([2, 3, 0, 1, 2])
        o = lib.zeros(3, dtype=lib.int64)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            err = run(lambda lib: lib.fmod(x, y, out=o), lib)
        return err, list(o.shape), o[:2].tolist(), o._version, [str(w.message)[:60] for w in caught]
    assert run(case, torchlite) == run(case, torch)


def test_int_zero_division_no_zero_unchanged():
    """Without a zero divisor the ops compute as before (negative operands, all rounding modes)."""
    rng = np.random.default_rng(0)
    a = rng.integers(-20, 20, (4, 5))
    b = rng.integers(1, 7, (4, 5)) * rng.choice([-1, 1], (4, 5))

    def case(lib):
        x, y = lib.tensor(a), lib.tensor(b)
        return [f(x.clone(), y) for f in _INPLACE.values() if f is not _INPLACE["fmod_number"]
                and f is not _INPLACE["remainder_number"]]
    assert run(case, torchlite) == run(case, torch)
