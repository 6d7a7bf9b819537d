"""Argument errors worded from the schemas (native_functions.yaml; python_arg_parser._rebind):
a torchlite.* function called with arguments that do not bind to its schema raises torch's
TypeError, and torch's `input=` keyword reaches the kernel's `self`."""
import pytest

import torchlite

from diff_utils import import_torch, run

torch = import_torch()

CALLS = {
    "too many positional": lambda L: L.exp(L.ones(2), 3),
    "not a tensor": lambda L: L.exp("a"),
    "unknown keyword": lambda L: L.exp(L.ones(2), foo=1),
    "missing": lambda L: L.exp(),
    "input keyword": lambda L: L.exp(input=L.ones(2)),
    "input and other keywords": lambda L: L.matmul(input=L.ones(2), other=L.ones(2)),
    "other not a tensor": lambda L: L.add(L.ones(2), "a"),
    "alpha not a number": lambda L: L.add(L.ones(2), L.ones(2), alpha="x"),
    "keyword not a tensor": lambda L: L.atan2(L.ones(2), other="a"),
    "tensor list": lambda L: L.cat(L.ones(2)),
    "tensor list element": lambda L: L.stack([L.ones(2), 1]),
    "int": lambda L: L.chunk(L.ones(2), 1.5),
    "missing second": lambda L: L.transpose(L.ones(2, 2), 0),
    "int at position 3": lambda L: L.transpose(L.ones(2, 2), 0, "a"),
    "int list": lambda L: L.reshape(L.ones(4), "ab"),
    "int list element": lambda L: L.permute(L.ones(2, 2), (0, 1.0)),
    "None for int": lambda L: L.unsqueeze(L.ones(2), dim=None),
    "None for tensor": lambda L: L.mul(L.ones(2), other=None),
    "memory format": lambda L: L.clone(L.ones(2), memory_format=1),
    "in-place function": lambda L: L.exp_(L.ones(2), 1),
    "three positional": lambda L: L.add(L.ones(2), L.ones(2), L.ones(2)),
    "multiple values": lambda L: L.diagonal(L.ones(2, 2), input=L.ones(2)),
}


@pytest.mark.parametrize("name", CALLS)
def test_argument_errors_as_torch(name):
    assert run(CALLS[name], torchlite) == run(CALLS[name], torch)


def test_a_kernel_error_with_arguments_that_bind_is_the_kernels():
    # the arguments bind to the schema: the kernel's own error, unchanged
    with pytest.raises(RuntimeError, match="shape '\\[5\\]' is invalid for input of size 4"):
        torchlite.reshape(torchlite.ones(4), (5,))
