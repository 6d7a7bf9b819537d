"""Engine behaviour seen from Python: threads, callbacks, ordering, long graphs."""
import threading

import numpy as np
import pytest

import torchlite as torch
from torchlite.autograd import Variable


def test_concurrent_backward_from_python_threads():
    errors, results = [], {}

    def work(i):
        try:
            x = torch.tensor([float(i)] * 4, dtype=torch.float64, requires_grad=True)
            for _ in range(30):
                y = (x * x).tanh().sum()
                y.backward()
            results[i] = x.grad.numpy().copy()
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for i in range(4):
        expected = 30 * 2 * i * (1 - np.tanh(float(i) ** 2) ** 2)
        # tanh's backward rounds 1 - y * y once, this formula twice: at x = 3 the cancellation
        # leaves them ~1e-9 apart (a lost or repeated update would be off by 1/30)
        np.testing.assert_allclose(results[i], np.full(4, expected), rtol=1e-8)


def test_shared_graph_backward_with_retain_graph_from_threads():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x.exp() * 3).sum()
    barrier = threading.Barrier(4)

    def work():
        barrier.wait()
        for _ in range(10):
            y.backward(retain_graph=True)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    np.testing.assert_allclose(x.grad.numpy(), 40 * 3 * np.exp([1.0, 2.0]), rtol=1e-5)


def test_queue_callback_runs_at_end_of_backward():
    x = torch.tensor([1.0], requires_grad=True)
    order = []

    def cb():
        order.append(("callback", x.grad.tolist()))

    def hook(g):
        Variable._execution_engine.queue_callback(cb)
        order.append("hook")
        return g

    y = x * 2
    y.register_hook(hook)
    y.backward()
    assert order == ["hook", ("callback", [2.0])]
    with pytest.raises(RuntimeError, match="Final callbacks can only be installed during backward pass."):
        Variable._execution_engine.queue_callback(cb)


def test_callback_error_reaches_caller():
    x = torch.tensor([1.0], requires_grad=True)

    def bad():
        raise ValueError("callback failed")

    y = x * 2
    y.register_hook(lambda g: Variable._execution_engine.queue_callback(bad))
    with pytest.raises(ValueError, match="callback failed"):
        y.backward()


def test_independent_branches_run_in_reverse_creation_order():
    x = torch.tensor([1.0], requires_grad=True)
    order = []
    a = x * 2
    b = x * 3
    c = x * 4
    for name, t in (("a", a), ("b", b), ("c", c)):
        t.grad_fn.register_prehook(lambda g, name=name: order.append(name))
    (a + b + c).backward()
    assert order == ["c", "b", "a"]
    assert a.grad_fn._sequence_nr() < b.grad_fn._sequence_nr() < c.grad_fn._sequence_nr()


def test_long_chain_backward_and_teardown():
    x = torch.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y * 1.0
    y.backward()
    assert x.grad.item() == 1.0
    z = x
    for _ in range(100_000):
        z = z * 1.0
    del z  # freed iteratively (Note [Deleting a long graph]), no recursion


def test_run_backward_directly():
    x = torch.tensor([2.0], requires_grad=True)
    y = x * x
    (g,) = Variable._execution_engine.run_backward((y,), (torch.ones(1),), False, False, (x,), False, False)
    assert g.tolist() == [4.0]
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad and does not have a grad_fn"):
        Variable._execution_engine.run_backward((torch.ones(1),), (torch.ones(1),), False, False)


def test_grad_for_input_unreached_uses_identity_edge():
    x = torch.tensor([1.0], requires_grad=True)
    unused = torch.tensor([1.0], requires_grad=True)
    (gx, gu) = torch.autograd.grad(x * 2, (x, unused), allow_unused=True)
    assert gx.tolist() == [2.0] and gu is None


def test_gradients_sum_over_fan_out_and_fan_in():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    branches = [x * float(i) for i in range(1, 6)]
    total = branches[0]
    for b in branches[1:]:
        total = total + b
    total.sum().backward()
    assert x.grad.tolist() == [15.0, 15.0]


def test_arrays_freed_by_the_engine_are_released_when_backward_returns():
    """Saved tensors over numpy arrays freed by engine threads without the GIL
    are released in batches; none is left pending once backward returns."""
    import gc
    import weakref
    refs = []
    x = torch.ones(1000, requires_grad=True)
    y = x
    for _ in range(10):
        y = (y * 1.5).tanh()          # TanhBackward0 saves its result
        refs.append(weakref.ref(y._array))
    y.sum().backward()
    del y
    gc.collect()
    assert all(r() is None for r in refs)
    assert x.grad is not None


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("name,fn", [
    ("add", lambda a, b: a + b * 1), ("add_alpha", lambda a, b: torch.add(a, b, alpha=2.5)),
    ("sub", lambda a, b: torch.sub(a, b, alpha=0.5)), ("add_scalar", lambda a, b: (a + 3) - 1.5 + b),
    ("mul", lambda a, b: a * b), ("mul_scalar", lambda a, b: a * 0.3 + 2 * b),
    ("div_scalar", lambda a, b: a / 7 + b / 3), ("neg", lambda a, b: -a + b),
    ("exp", lambda a, b: a.exp() + b), ("tanh", lambda a, b: a.tanh() * b),
    ("sigmoid", lambda a, b: a.sigmoid() + b), ("relu", lambda a, b: (a - 0.2).relu() * b),
    ("sum", lambda a, b: a.sum() + b), ("mean", lambda a, b: a.mean() * b),
])
def test_cpp_formulas_match_the_python_formulas(name, fn, dtype):
    """First-order backward runs the C++ formula (Note [GIL-free formulas]);
    with create_graph=True the Python one runs. Both give the same gradients."""
    rng = np.random.default_rng(0)
    a0, b0 = rng.normal(size=(3, 4)), rng.normal(size=(4,))
    grads = []
    for create_graph in (False, True):
        a = torch.tensor(a0, dtype=dtype, requires_grad=True)
        b = torch.tensor(b0, dtype=dtype, requires_grad=True)
        out = fn(a, b)
        g = torch.tensor(np.random.default_rng(1).normal(size=out.shape), dtype=dtype)
        ga, gb = torch.autograd.grad(out, (a, b), g, create_graph=create_graph)
        grads.append((ga.detach().numpy(), gb.detach().numpy()))
    np.testing.assert_array_equal(grads[0][0], grads[1][0])
    np.testing.assert_array_equal(grads[0][1], grads[1][1])


_DEEP_ERROR_PROGRAM = """
import torchlite as tl
class Re(tl.autograd.Function):
    @staticmethod
    def forward(ctx, x, d):
        ctx.d = d
        return x * 1
    @staticmethod
    def backward(ctx, g):
        if ctx.d > 0:
            with tl.enable_grad():
                a = tl.ones(2, requires_grad=True)
                Re.apply(a, ctx.d - 1).sum().backward()
        elif FAIL:
            raise ValueError("deep failure")
        return g, None
for FAIL in (False, True):
    x = tl.ones(2, requires_grad=True)
    try:
        Re.apply(x, 130).sum().backward()
    except ValueError as e:
        assert str(e) == "deep failure"
x = tl.ones(2, requires_grad=True)
(x * 3).sum().backward()
assert x.grad.tolist() == [3.0, 3.0]
"""


def test_error_deep_in_the_reentrant_pool_then_interpreter_exit():
    """An error raised past MAX_DEPTH (on a pool thread) reaches the caller,
    and the process exits cleanly: the Python error is destroyed on the
    caller's thread, never on an engine thread after finalization."""
    import subprocess
    import sys
    for _ in range(6):
        res = subprocess.run([sys.executable, "-c", _DEEP_ERROR_PROGRAM], capture_output=True, text=True,
                             timeout=120)
        assert res.returncode == 0, res.stderr[-2000:]


def test_float_op_results_live_in_cpp_memory():
    """Float results are computed into C++ storage (so the engine frees saved
    results without the GIL); integer results keep numpy's."""
    x = torch.ones(4, requires_grad=True)
    for y in (x * 2, x + x, (x * 2).tanh(), x.relu(), x / 3, x.exp()):
        assert type(y._array.base).__name__ == "PyCapsule"
        np.testing.assert_array_equal(torch.from_numpy(y.detach().numpy()).numpy(), y.detach().numpy())
    assert type((torch.arange(4) * 2)._array.base).__name__ != "PyCapsule"
    on_sim = torch.ones(3, device="sim:1", requires_grad=True)
    z = (on_sim * 2).exp()
    assert z.device == torch.device("sim:1")
    z.sum().backward()
    np.testing.assert_allclose(on_sim.grad.numpy(), 2 * np.exp(2.0) * np.ones(3), rtol=1e-6)
