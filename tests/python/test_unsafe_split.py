"""unsafe_split / unsafe_split_with_sizes / unsafe_chunk (ATen/native/TensorShape.cpp): split's pieces
with version counters of their own and no view relation, one UnsafeSplit(WithSizes)Backward0 node;
the RNN cells chunk their gates with them, as ATen's RNN.cpp does."""
import numpy as np
import pytest

import torchlite
from diff_utils import import_torch, run

torch = import_torch()

X = np.arange(24.0).reshape(2, 3, 4) / 7 - 1


@pytest.mark.parametrize("call", [
    lambda lib, x: x.unsafe_split(2, -1), lambda lib, x: lib.unsafe_split(x, 1, 1),
    lambda lib, x: x.unsafe_split(5, 0), lambda lib, x: x.unsafe_chunk(3, 2), lambda lib, x: lib.unsafe_chunk(x, 4, 0),
    lambda lib, x: x.unsafe_split_with_sizes([1, 0, 2], 1), lambda lib, x: lib.unsafe_split_with_sizes(x, [4], -1),
])
def test_pieces_nodes_and_gradients(call):
    def case(lib):
        x = lib.tensor(X, requires_grad=True)
        y = x * 2
        pieces = call(lib, y)
        names = [p.grad_fn.name() for p in pieces]
        fields = [(p.grad_fn._saved_dim, p.grad_fn._saved_self_sym_sizes, p.output_nr) for p in pieces]
        pieces[-1].add_(1)  # no view relation: in-place is allowed and bumps the piece alone
        versions = [p._version for p in pieces] + [y._version]
        loss = sum((p * (i + 1)).sum() for i, p in enumerate(pieces))
        loss.backward()
        shared = [np.shares_memory(p.detach().numpy(), y.detach().numpy()) for p in pieces if p.numel()]
        return pieces, names, fields, versions, x.grad, shared, [p._base is None for p in pieces]
    assert run(case, torchlite) == run(case, torch)


@pytest.mark.parametrize("call", [
    lambda lib: lib.tensor(1.0).unsafe_split(1), lambda lib: lib.tensor(1.0).unsafe_chunk(1),
    lambda lib: lib.ones(3).unsafe_chunk(0), lambda lib: lib.ones(3).unsafe_split(-1),
    lambda lib: lib.ones(3).unsafe_split(0), lambda lib: lib.ones(3).unsafe_split_with_sizes([1, 1]),
    lambda lib: lib.ones(3).unsafe_split(1, 2),
])
def test_errors(call):
    assert run(call, torchlite) == run(call, torch)


def _graph_names(fn):
    names, seen, stack = [], set(), [fn]
    while stack:
        f = stack.pop()
        if f is None or f in seen:
            continue
        seen.add(f)
        names.append(f.name())
        stack.extend(g for g, _ in f.next_functions)
    return sorted(names)


@pytest.mark.parametrize("kind", ["LSTMCell", "GRUCell", "GRU"])
def test_rnn_graphs_chunk_unsafely(kind):
    def case(lib):
        lib.manual_seed(0)
        mod = getattr(lib.nn, kind)(3, 4)
        x = lib.randn(5, 2, 3) if kind == "GRU" else lib.randn(2, 3)
        out = mod(x)
        h = out[0]
        h.sum().backward()
        return _graph_names(h.grad_fn), [p.grad for p in mod.parameters()]
    assert run(case, torchlite) == run(case, torch)


def test_in_inference_mode():
    # the autograd kernel is skipped: split's views, normal tensors, each with a version counter of its own
    def case(lib):
        x = lib.ones(2, 3)
        y = lib.ones(2, 3, requires_grad=True) * 1
        with lib.inference_mode():
            p = x.unsafe_split(1)[0]
            q = y.unsafe_chunk(2, 1)[1]
            r = lib.ones(2, 3).unsafe_split_with_sizes([1, 1])[0]
        facts = [(t.is_inference(), t._version, t.requires_grad, t.grad_fn is None) for t in (p, q, r)]
        p.add_(1)
        return facts, p._base is x, q._base is y, p._version, x._version, x
    assert run(case, torchlite) == run(case, torch)


def test_pieces_share_the_storage_for_overlap_checks():
    # an in-place op reading a piece of the tensor it writes is refused, as for split's views (seed 1983)
    def case(lib):
        x = lib.tensor([1.0, 2.0, 3.0, 4.0])
        p = x.unsafe_split_with_sizes([2, 1, 1])[2]
        with lib.no_grad():
            x /= p
        return x
    assert run(case, torchlite) == run(case, torch)


def test_pieces_of_an_inference_tensor_are_inference_tensors():
    # (seed 2800)
    def case(lib):
        with lib.inference_mode():
            x = lib.tensor([1.0, 2.0])
        p = lib.unsafe_split_with_sizes(x, [1, 1], dim=-1)[0]
        facts = (p.is_inference(), p.requires_grad)
        p -= 1e-3
        return facts
    assert run(case, torchlite) == run(case, torch)
