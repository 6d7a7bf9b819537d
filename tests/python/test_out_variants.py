"""The out= overloads of the ops (native_functions.yaml's `.out` entries): the result written into
`out`, resized with torch's warning, torch's errors for a dtype it cannot take and for inputs that
require grad, and the version bump, all against torch."""
import warnings

import pytest

import torchlite
from diff_utils import import_torch

torch = import_torch()


def _run(lib, fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            r = fn(lib)
        except (RuntimeError, TypeError) as e:
            return ("raised", type(e).__name__, str(e).split(" (Triggered internally")[0])
    messages = [str(w.message).split(" (Triggered internally")[0] for w in caught]
    return ("ok", r, messages)


def _state(t):
    return (list(t.shape), str(t.dtype).split(".")[-1], [round(v, 5) for v in t.reshape(-1).tolist()], t._version)


CASES = {
    "exp": lambda lib: _state(lib.exp(lib.tensor([0.0, 1.0]), out=lib.empty(2))),
    "add_alpha": lambda lib: _state(lib.add(lib.ones(2, 3), lib.ones(3), alpha=2, out=lib.zeros(2, 3))),
    "int_into_float": lambda lib: _state(lib.add(lib.tensor([1, 2]), 1, out=lib.empty(2))),
    "resized_with_warning": lambda lib: _state(lib.mul(lib.ones(2, 3), 2.0, out=lib.empty(5))),
    "resized_from_empty": lambda lib: _state(lib.tanh(lib.ones(2, 3), out=lib.empty(0))),
    "cat": lambda lib: _state(lib.cat([lib.ones(2), lib.zeros(1)], out=lib.empty(3))),
    "sum_dim": lambda lib: _state(lib.sum(lib.ones(2, 3), 1, out=lib.empty(2))),
    "where": lambda lib: _state(lib.where(lib.tensor([True, False]), lib.ones(2), lib.zeros(2),
                                         out=lib.empty(2))),
    "float_into_long": lambda lib: _state(lib.exp(lib.ones(2), out=lib.empty(2, dtype=lib.int64))),
    "input_requires_grad": lambda lib: lib.exp(lib.ones(2, requires_grad=True), out=lib.empty(2)),
    "out_requires_grad": lambda lib: lib.sin(lib.ones(2), out=lib.empty(2, requires_grad=True)),
    "no_grad_allows_it": lambda lib: _no_grad(lib),
    "out_is_an_input": lambda lib: _aliased(lib),
}


def _no_grad(lib):
    x = lib.ones(2, requires_grad=True)
    with lib.no_grad():
        r = lib.exp(x, out=lib.empty(2))
    return _state(r), r.requires_grad


def _aliased(lib):
    x = lib.tensor([1.0, 2.0])
    r = lib.neg(x, out=x)
    return _state(x), r is x


@pytest.mark.parametrize("name", sorted(CASES))
def test_out_as_torch(name):
    assert _run(torchlite, CASES[name]) == _run(torch, CASES[name])


def test_out_returns_the_out_tensor():
    out = torchlite.empty(2)
    assert torchlite.exp(torchlite.ones(2), out=out) is out
