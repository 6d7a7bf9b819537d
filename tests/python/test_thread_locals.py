"""Thread-local state on the engine's threads (at::ThreadLocalState): every
node of a backward, and its final callbacks, run under the caller's
thread-locals, whichever thread runs them. On `sim` devices the nodes run on
device threads, so each case runs on cpu and sim and is compared with torch
running the same program on the CPU."""
import threading

import pytest
import torch

import torchlite
from torchlite.autograd import Variable as TLVariable

DEVICES = ["cpu", "sim:0"]


def _count_saved_tensor_hooks(mod, device, program):
    packed, unpacked = [0], [0]

    def pack(t):
        packed[0] += 1
        return t

    def unpack(t):
        unpacked[0] += 1
        return t

    x = mod.tensor([1.0, 2.0, 3.0], requires_grad=True, device=device)
    with mod.autograd.graph.saved_tensors_hooks(pack, unpack):
        program(mod, x)
    return packed[0], unpacked[0]


def _grad_create_graph(mod, x):
    # Only the backward runs under the hooks: the forward's saved tensors are
    # packed before them, the double-backward graph's during the backward.
    y = (x * x * x).sum()
    (g,) = mod.autograd.grad(y, x, create_graph=True)
    return g


def _forward_and_double_backward(mod, x):
    y = (x.exp() * x).sum()
    (g,) = mod.autograd.grad(y, x, create_graph=True)
    g.sum().backward()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("program", [_grad_create_graph, _forward_and_double_backward])
def test_saved_tensors_hooks_apply_to_tensors_saved_during_backward(device, program):
    # The case: a create_graph backward packed 6 tensors on the CPU
    # and none on sim:0, whose nodes ran on a device thread without the hooks.
    expected = _count_saved_tensor_hooks(torch, "cpu", program)
    assert expected[0] > 0
    assert _count_saved_tensor_hooks(torchlite, device, program) == expected


@pytest.mark.parametrize("device", DEVICES)
def test_saved_tensors_hooks_in_custom_function_backward(device):
    def run(mod, dev):
        class Square(mod.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return Square2.apply(x) * g

        class Square2(mod.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return 2 * x

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return 2 * g

        packed = []
        x = mod.tensor([1.0, 2.0], requires_grad=True, device=dev)
        y = Square.apply(x).sum()
        with mod.autograd.graph.saved_tensors_hooks(lambda t: packed.append(1) or t, lambda t: t):
            (g,) = mod.autograd.grad(y, x, create_graph=True)
        return len(packed), g.tolist()

    assert run(torchlite, device) == run(torch, "cpu")


def _observe(mod, device, create_graph, engine, set_mt=None, no_grad_call=False):
    """Grad mode and the multithreading switch seen by a tensor hook and by a
    final callback it queues, and whether the hook ran on the caller's thread."""
    seen = []
    caller = threading.get_ident()

    def hook(g):
        seen.append(("hook", mod.is_grad_enabled(), mod._C._is_multithreading_enabled()))
        engine.queue_callback(lambda: seen.append(("callback", mod.is_grad_enabled())))
        seen.append(("on caller thread", threading.get_ident() == caller))
        return g

    x = mod.tensor([1.0, 2.0], requires_grad=True, device=device)
    y = x * x
    y.register_hook(hook)
    loss = y.sum()
    if set_mt is not None:
        set_mt(False)
    try:
        if no_grad_call:
            with mod.no_grad():
                mod.autograd.grad(loss, x, create_graph=create_graph)
        else:
            mod.autograd.grad(loss, x, create_graph=create_graph)
    finally:
        if set_mt is not None:
            set_mt(True)
    return seen


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("create_graph", [False, True])
def test_grad_mode_in_hooks_and_final_callbacks(device, create_graph):
    # Grad mode is create_graph on every thread; the caller's own grad mode
    # (here off for the call itself) does not leak in.
    expected = _observe(torch, "cpu", create_graph, torch.autograd.Variable._execution_engine,
                        no_grad_call=True)
    got = _observe(torchlite, device, create_graph, TLVariable._execution_engine, no_grad_call=True)
    assert [e for e in got if e[0] != "on caller thread"] == \
        [e for e in expected if e[0] != "on caller thread"]
    assert ("on caller thread", device == "cpu") in got


@pytest.mark.parametrize("device", DEVICES)
def test_multithreading_switch_is_seen_by_nodes(device):
    # With multithreading disabled every node runs on the caller's thread and
    # sees the switch off, as the caller set it.
    expected = _observe(torch, "cpu", False, torch.autograd.Variable._execution_engine,
                        set_mt=torch._C._set_multithreading_enabled)
    got = _observe(torchlite, device, False, TLVariable._execution_engine,
                   set_mt=torchlite._C._set_multithreading_enabled)
    assert got == expected
    assert ("on caller thread", True) in got


@pytest.mark.parametrize("device", DEVICES)
def test_saved_tensors_hooks_of_the_calling_thread_only(device):
    # Hooks installed by one thread apply to its own backward, not to one
    # another thread runs at the same time.
    packed = {"main": 0}
    x = torchlite.tensor([1.0, 2.0], requires_grad=True, device=device)
    y = (x * x * x).sum()
    y2 = (x * x * x).sum()
    done = threading.Event()

    def other():
        torchlite.autograd.grad(y2, x, create_graph=True)
        done.set()

    with torchlite.autograd.graph.saved_tensors_hooks(
            lambda t: packed.__setitem__("main", packed["main"] + 1) or t, lambda t: t):
        t = threading.Thread(target=other)
        t.start()
        torchlite.autograd.grad(y, x, create_graph=True)
        t.join(timeout=60)
    assert done.is_set()
    tx = torch.tensor([1.0, 2.0], requires_grad=True)
    ty = (tx * tx * tx).sum()
    expected = []
    with torch.autograd.graph.saved_tensors_hooks(lambda t: expected.append(1) or t, lambda t: t):
        torch.autograd.grad(ty, tx, create_graph=True)
    assert packed["main"] == len(expected) > 0


def test_hooks_stack_is_restored_on_engine_threads():
    # After a backward on sim, the device thread does not keep the caller's
    # hooks: a later backward without hooks packs nothing.
    packed = []
    x = torchlite.tensor([1.0, 2.0], requires_grad=True, device="sim:0")
    with torchlite.autograd.graph.saved_tensors_hooks(lambda t: packed.append(1) or t, lambda t: t):
        torchlite.autograd.grad((x * x * x).sum(), x, create_graph=True)
    n = len(packed)
    assert n > 0
    torchlite.autograd.grad((x * x * x).sum(), x, create_graph=True)
    assert len(packed) == n


@pytest.mark.parametrize("device", DEVICES)
def test_inference_mode_is_seen_by_nodes(device):
    # A backward run inside inference_mode: every node sees it on, on any thread.
    def observe(mod, dev):
        seen = []
        x = mod.tensor([1.0, 2.0], requires_grad=True, device=dev)
        y = x * x
        y.register_hook(lambda g: seen.append(mod.is_inference_mode_enabled()))
        loss = y.sum()
        with mod.inference_mode():
            mod.autograd.grad(loss, x)
        return seen

    assert observe(torchlite, device) == observe(torch, "cpu") == [True]
