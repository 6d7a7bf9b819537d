"""Issue 15's performance work on the benchmark models' kernels, checked against torch: the RNN layers'
pre-computed input projection (RNN.cpp's FullLayer on CPU: one linear over the whole sequence,
unbound per step), max_pool2d's scan and scatter, and the batch-norm backward in numpy."""
import collections

import numpy as np
import pytest

import torchlite

from diff_utils import import_torch, run

torch = import_torch()


def _graph_names(root):
    """The multiset of node names reachable from `root`; torch's UnsafeSplitBackward0 (the cells'
    unsafe_chunk) read as SplitBackward0, torchlite's chunk."""
    names, seen, alive, stack = collections.Counter(), set(), [], [root]
    while stack:
        fn = stack.pop()
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        alive.append(fn)  # (ids stay unique while the nodes' Python objects live)
        name = fn.name()
        names["SplitBackward0" if name == "UnsafeSplitBackward0" else name] += 1
        stack.extend(f for f, _ in fn.next_functions)
    return names


def _rnn(lib, mode, bidirectional, seq=4, dtype="float64"):
    lib.manual_seed(0)
    cls = {"LSTM": lib.nn.LSTM, "GRU": lib.nn.GRU, "RNN_TANH": lib.nn.RNN, "RNN_RELU": lib.nn.RNN}[mode]
    kwargs = dict(nonlinearity="relu") if mode == "RNN_RELU" else {}
    m = cls(3, 5, 2, bidirectional=bidirectional, **kwargs).to(getattr(lib, dtype))
    x = lib.tensor(np.random.default_rng(1).standard_normal((seq, 2, 3)), dtype=getattr(lib, dtype),
                   requires_grad=True)
    return m, x


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN_TANH", "RNN_RELU"])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_rnn_layers_record_torchs_cpu_graph(mode, bidirectional):
    # float64 (torch's float32 LSTM runs oneDNN's fused layer instead): the input projection is one
    # AddmmBackward0 per layer and direction over the flattened sequence, viewed and unbound
    graphs = {}
    for lib in (torch, torchlite):
        m, x = _rnn(lib, mode, bidirectional)
        out = m(x)[0]
        graphs[lib.__name__] = _graph_names(out.sum().grad_fn)
    assert graphs["torchlite"] == graphs["torch"]
    assert graphs["torch"]["UnbindBackward0"] == 2 * (2 if bidirectional else 1)


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN_TANH"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rnn_values_and_gradients_match_torch(mode, dtype):
    results = {}
    for lib in (torch, torchlite):
        m, x = _rnn(lib, mode, True, seq=6, dtype=dtype)
        out = m(x)
        loss = out[0].pow(2).sum() + sum(h.sum() for h in (out[1] if mode == "LSTM" else (out[1],)))
        loss.backward()
        results[lib.__name__] = [out[0].detach().numpy(), x.grad.numpy()] + [p.grad.numpy() for p in m.parameters()]
    rtol, atol = (1e-10, 1e-12) if dtype == "float64" else (1e-5, 1e-6)
    for a, b in zip(results["torch"], results["torchlite"], strict=True):
        assert a.dtype == b.dtype
        np.testing.assert_allclose(b, a, rtol=rtol, atol=atol)


@pytest.mark.parametrize("cls", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_rnn_empty_sequence_refuses_as_torch(cls, bidirectional):
    def case(lib):
        lib.manual_seed(0)
        return getattr(lib.nn, cls)(3, 4, bidirectional=bidirectional)(lib.zeros(0, 2, 3))[0]
    assert run(case, torchlite) == run(case, torch)
    assert run(case, torch)[0] == "raised"
