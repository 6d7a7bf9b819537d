"""fork after the engine started threads (Note [Autograd and fork]): in the
child a backward that needs a device thread raises torch's error instead of
waiting forever for a thread the child does not have; a backward on the CPU
alone keeps working. Each case runs in a fresh interpreter (so the parent's
engine state is known) that forks; the child reports through its exit status
and a pipe, and a timeout turns a hang into a failure."""
import subprocess
import sys
import textwrap

FORK_ERROR = ("Unable to handle autograd's threading in combination with fork-based multiprocessing. "
              "See https://github.com/pytorch/pytorch/wiki/Autograd-and-Fork")

_PROGRAM = textwrap.dedent('''
    import os, signal, sys
    import torchlite as tl

    def device_backward():
        x = tl.ones(2, requires_grad=True, device="sim:0")
        (x * 2).sum().backward()
        return x.grad.tolist()

    class Re(tl.autograd.Function):
        # Each backward runs a backward of its own, DEPTH levels deep: past 60
        # the engine hands the inner ones to its reentrant pool threads.
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
            return g, None

    def deep_backward():
        x = tl.ones(2, requires_grad=True)
        Re.apply(x, 70).sum().backward()
        return x.grad.tolist()

    def cpu_backward():
        x = tl.ones(2, requires_grad=True)
        (x * 3).sum().backward()
        return x.grad.tolist()

    PARENT, CHILD = sys.argv[1], sys.argv[2]
    if PARENT == "device":
        assert device_backward() == [2.0, 2.0]
    elif PARENT == "cpu":
        assert cpu_backward() == [3.0, 3.0]
    elif PARENT == "deep":
        assert deep_backward() == [1.0, 1.0]
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        signal.alarm(30)  # a hung child dies instead of lingering
        os.close(r)
        try:
            if CHILD == "device":
                result = repr(device_backward())
            elif CHILD == "deep":
                result = repr(deep_backward())
            else:
                result = repr(cpu_backward())
            code = 0
        except RuntimeError as e:
            result = "RuntimeError: " + str(e)
            code = 3
        os.write(w, result.encode())
        os._exit(code)
    os.close(w)
    _, status = os.waitpid(pid, 0)
    out = os.read(r, 4096).decode()
    print(os.WEXITSTATUS(status), out)
    # The parent's engine still works after the fork.
    if PARENT == "device":
        assert device_backward() == [2.0, 2.0]
    if PARENT == "deep":
        assert deep_backward() == [1.0, 1.0]
    assert cpu_backward() == [3.0, 3.0]
''')


def _run(parent, child):
    res = subprocess.run([sys.executable, "-c", _PROGRAM, parent, child], capture_output=True, text=True,
                         timeout=60)
    assert res.returncode == 0, res.stderr[-2000:]
    status, _, out = res.stdout.strip().partition(" ")
    return int(status), out


def test_device_backward_in_child_after_device_threads_started_raises():
    assert _run("device", "device") == (3, "RuntimeError: " + FORK_ERROR)


def test_cpu_backward_in_child_after_device_threads_started_works():
    assert _run("device", "cpu") == (0, "[3.0, 3.0]")


def test_cpu_backward_in_parent_starts_no_device_threads():
    # A CPU-only backward needs no device thread, so a child forked after it
    # may still start its own and run a device backward.
    assert _run("cpu", "device") == (0, "[2.0, 2.0]")
    assert _run("cpu", "cpu") == (0, "[3.0, 3.0]")


def test_fork_before_any_backward():
    assert _run("none", "device") == (0, "[2.0, 2.0]")


def test_reentrant_pool_in_child_after_pool_threads_started_raises():
    # The parent's pool threads are gone too: a backward nested deeper than
    # the engine runs inline raises; shallower ones and plain ones work.
    status, out = _run("deep", "deep")
    assert status == 3
    assert out.startswith("RuntimeError: ") and FORK_ERROR in out
    assert _run("deep", "cpu") == (0, "[3.0, 3.0]")
    assert _run("cpu", "deep") == (0, "[1.0, 1.0]")
