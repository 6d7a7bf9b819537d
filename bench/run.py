"""Benchmarks: torchlite side by side with torch (when installed) and a
hand-written numpy baseline, in one process run. Prints medians and ratios.

    python bench/run.py            # the default set (every workload but trace and the groups')
    python bench/run.py chain mlp  # some of them
    python bench/run.py issue16    # a group: issue 16's rows (fwd_chain ... threads4)
    python bench/run.py models     # a group: issue 15's training steps (cnn lstm gpt)
    python bench/run.py chain forward --baseline ../other-tree  # torchlite here vs there
    python bench/run.py --quick issue16 models  # tiny configurations: a smoke test

These machines are noisy: compare only figures from one run. Nothing here is
a test; no figure is asserted anywhere.
"""
import argparse
import gc
import glob
import importlib.metadata
import itertools
import json
import os
import statistics
import subprocess
import sys
import threading
import time

# numpy's BLAS on one thread, as torch is set below (torch.set_num_threads(1)), unless the caller
# says otherwise: the comparison is single-threaded on both sides, and OpenBLAS's spinning worker
# threads on a loaded 2-core machine made matmul-heavy rows (the models) up to 10x slower and
# erratic. Set before numpy is imported; --baseline's children inherit it.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402 - after the BLAS thread setting

# The source tree this script belongs to: "current" for --baseline.
TREE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# A --child process measures the torchlite its PYTHONPATH names, and nothing else; a memory child
# (a fresh process measuring one framework's memory) imports only the framework it measures.
CHILD = len(sys.argv) > 1 and sys.argv[1] in ("--child", "--memory-child", "--tanh-memory-child")

try:
    import torchlite
except ImportError:
    if CHILD and sys.argv[1] == "--child":  # --baseline's: never a torchlite other than PYTHONPATH's
        raise
    # Not installed: the extension built in place in this tree (torchlite/_C*.so).
    sys.path.insert(0, TREE)
    import torchlite

torch = None
if not CHILD:
    try:
        import torch
    except ImportError:  # torch is optional: its columns are left empty
        pass

FRAMEWORKS = {"torchlite": torchlite}
if torch is not None:
    FRAMEWORKS["torch"] = torch
    torch.set_num_threads(1)


def median_time(fn, repeats):
    """Median wall time of fn() over `repeats` runs (after one warm-up)."""
    fn()
    times = []
    for _ in range(repeats):
        gc.collect()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def median_of_runs(run, repeats):
    """Median of the seconds run() reports (each run times its own part, leaving set-up and
    teardown out), over `repeats` runs after one warm-up."""
    run()
    return statistics.median(run() for _ in range(repeats))


def backward_seconds(loss):
    """Wall time of loss.backward()."""
    t0 = time.perf_counter()
    loss.backward()
    return time.perf_counter() - t0


# Workloads: each returns {column: seconds} per unit of work for `frameworks`, and the
# numpy floor unless `floor` is False (as in --baseline's child processes) ------------

def chain_loss(tl, n, device="cpu"):
    """The root of a chain of n tiny multiplications."""
    y = tl.ones(4, device=device, requires_grad=True)
    for _ in range(n):
        y = y * 1.0001
    return y.sum()


def lattice_loss(tl, width, depth, device="cpu"):
    """The root of a width x depth lattice: node (d, i) = node (d-1, i) + node (d-1, i+1)."""
    layer = [tl.ones(4, device=device, requires_grad=True) for _ in range(width + 1)]
    for _ in range(depth):
        layer = [layer[i] + layer[(i + 1) % len(layer)] for i in range(width)]
    loss = layer[0]
    for t in layer[1:]:
        loss = loss + t
    return loss.sum()


def chain(frameworks=FRAMEWORKS, floor=True, n=2000, repeats=15):
    """Backward through n tiny multiplications: engine overhead per node."""
    out = {}
    for name, tl in frameworks.items():
        def run(tl=tl):
            loss = chain_loss(tl, n)
            return backward_seconds(loss)
        out[name] = median_of_runs(run, repeats) / n
    if not floor:
        return out

    def numpy_backward():
        g = np.ones(4, dtype=np.float32)
        for _ in range(n):
            g = g * np.float32(1.0001)
        return g
    out["numpy"] = median_time(numpy_backward, repeats) / n
    return out


def lattice(frameworks=FRAMEWORKS, floor=True, width=16, depth=100, repeats=15):
    """Fan-out/fan-in: node (d, i) = node (d-1, i) + node (d-1, i+1); every
    node receives two gradients, so InputBuffer accumulates at each one."""
    out = {}
    nodes = width * depth
    for name, tl in frameworks.items():
        def run(tl=tl):
            loss = lattice_loss(tl, width, depth)
            return backward_seconds(loss)
        out[name] = median_of_runs(run, repeats) / nodes
    if not floor:
        return out

    def numpy_backward():
        grads = [np.ones(4, dtype=np.float32) for _ in range(width)]
        for _ in range(depth):
            new = [np.zeros(4, dtype=np.float32) for _ in range(width)]
            for i in range(width):
                new[i] += grads[i]
                new[(i + 1) % width] += grads[i]
            grads = new
        return grads
    out["numpy"] = median_time(numpy_backward, repeats) / nodes
    return out


def many_leaves(frameworks=FRAMEWORKS, floor=True, n=5000, repeats=9):
    """n leaves feeding one sum: AccumulateGrad per leaf."""
    out = {}
    for name, tl in frameworks.items():
        leaves = [tl.ones(8, requires_grad=True) for _ in range(n)]

        def run(tl=tl, leaves=leaves):
            for leaf in leaves:
                leaf.grad = None
            loss = tl.stack(leaves).sum()
            return backward_seconds(loss)
        out[name] = median_of_runs(run, repeats) / n
    if not floor:
        return out

    def numpy_backward():
        g = np.ones((n, 8), dtype=np.float32)
        return [g[i].copy() for i in range(n)]
    out["numpy"] = median_time(numpy_backward, repeats) / n
    return out


def mlp(frameworks=FRAMEWORKS, floor=True, batch=256, dims=(512, 1024, 1024, 10), repeats=15):
    """Backward of a 3-layer MLP (matmul, relu, mean of squares): the kernels."""
    rng = np.random.default_rng(0)
    x_np = rng.standard_normal((batch, dims[0])).astype(np.float32)
    ws_np = [(rng.standard_normal((a, b)) / np.sqrt(a)).astype(np.float32) for a, b in itertools.pairwise(dims)]
    out = {}
    for name, tl in frameworks.items():
        x = tl.tensor(x_np)
        ws = [tl.tensor(w, requires_grad=True) for w in ws_np]

        def run(tl=tl, x=x, ws=ws):
            h = x
            for i, w in enumerate(ws):
                h = h @ w
                if i < len(ws) - 1:
                    h = h.relu()
            loss = (h * h).mean()
            return backward_seconds(loss)
        out[name] = median_of_runs(run, repeats)
    if not floor:
        return out

    # The same backward written by hand with numpy (forward excluded).
    hs = [x_np]
    for i, w in enumerate(ws_np):
        z = hs[-1] @ w
        hs.append(np.maximum(z, 0) if i < len(ws_np) - 1 else z)
    pre = [hs[i] @ ws_np[i] for i in range(len(ws_np))]

    def numpy_backward():
        g = 2 * hs[-1] / hs[-1].size
        grads = []
        for i in reversed(range(len(ws_np))):
            if i < len(ws_np) - 1:
                g = g * (pre[i] > 0)
            grads.append(hs[i].T @ g)
            if i:
                g = g @ ws_np[i].T
        return grads
    out["numpy"] = median_time(numpy_backward, repeats)
    return out


def forward(frameworks=FRAMEWORKS, floor=True, n=2000, repeats=15):
    """The forward pass that records the graph: n multiplications and n tanh,
    interleaved, on a 1-element float64 tensor that requires grad; per op."""
    out = {}
    for name, tl in frameworks.items():
        def run(tl=tl):
            y = tl.ones(1, dtype=tl.float64, requires_grad=True)
            t0 = time.perf_counter()
            for _ in range(n):
                y = (y * 1.0001).tanh()
            elapsed = time.perf_counter() - t0
            del y  # the graph's teardown is not timed
            return elapsed
        out[name] = median_of_runs(run, repeats) / (2 * n)
    if not floor:
        return out

    def numpy_forward():
        y = np.ones(1, dtype=np.float64)
        for _ in range(n):
            y = np.tanh(y * 1.0001)
        return y
    out["numpy"] = median_time(numpy_forward, repeats) / (2 * n)
    return out


def _chain_backward_per_node(tl, n, repeats, traced=False):
    """Median backward time per node of a chain of n multiplications in torchlite `tl`,
    under `tl.autograd.trace()` when `traced`."""
    def run():
        loss = chain_loss(tl, n)
        t0 = time.perf_counter()
        if traced:
            with tl.autograd.trace():
                loss.backward()
        else:
            loss.backward()
        return time.perf_counter() - t0
    return median_of_runs(run, repeats) / n


def trace_round(tl, n=2000, repeats=15):
    """One round of the trace workload in torchlite `tl`: the chain's backward per node with
    the engine trace off and on (on only where `tl` has the trace)."""
    times = {"off": _chain_backward_per_node(tl, n, repeats)}
    if hasattr(tl.autograd, "trace"):
        times["on"] = _chain_backward_per_node(tl, n, repeats, traced=True)
    return times


def trace_cost(rounds=5):
    """The engine trace's cost on the chain: tracing off and on, measured in alternating
    rounds; each figure is the median of the rounds."""
    times = [trace_round(torchlite) for _ in range(rounds)]
    return {k: statistics.median(t[k] for t in times) for k in times[0]}


def _rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _framework(name):
    """torchlite, or torch (imported here, set to one thread) in a memory child."""
    if name == "torchlite":
        return torchlite
    import torch
    torch.set_num_threads(1)
    return torch


def _memory_child(name, n):
    tl = _framework(name)
    x = tl.ones(1, requires_grad=True)
    gc.collect()
    before = _rss_bytes()
    y = x
    for _ in range(n):
        y = y * 1.0
    gc.collect()
    per_node = (_rss_bytes() - before) / n
    t0 = time.perf_counter()
    y.backward()
    backward = time.perf_counter() - t0
    t0 = time.perf_counter()
    del y
    gc.collect()
    teardown = time.perf_counter() - t0
    print(json.dumps({"per_node_bytes": per_node, "backward_s": backward, "teardown_s": teardown}))


def long_chain(frameworks=FRAMEWORKS, n=100000):
    """A 100,000-node chain in a fresh process per framework: resident memory
    per node, backward, and teardown (which must not recurse)."""
    out = {}
    for name in frameworks:
        res = subprocess.run([sys.executable, __file__, "--memory-child", name, str(n)],
                             capture_output=True, text=True, check=True)
        out[name] = json.loads(res.stdout.strip().splitlines()[-1])
    return out


def _mul_tanh(y):
    return (y * 1.0001).tanh()


def threads(frameworks=FRAMEWORKS, n_threads=4, configs=((256, 300), (20000, 100), (200000, 40)), repeats=7,
            step=_mul_tanh):
    """Backward of n_threads independent, already built graphs (chains of n
    `y = step(y)`, by default mul and tanh, on tensors of `size`), one after another
    on one thread and then concurrently from n_threads already started threads:
    throughput scaling, serial time / threaded time (1.0 = none; 2 cores bound it near 2)."""
    out = {}
    for size, n in configs:
        for name, tl in frameworks.items():
            def graphs(tl=tl, size=size, n=n):
                roots = []
                for _ in range(n_threads):
                    y = tl.ones(size, requires_grad=True)
                    for _ in range(n):
                        y = step(y)
                    roots.append(y.sum())
                return roots
            serial, threaded = [], []
            for _ in range(repeats):
                roots = graphs()
                gc.collect()
                t0 = time.perf_counter()
                for r in roots:
                    r.backward()
                serial.append(time.perf_counter() - t0)
                roots = graphs()
                gc.collect()
                # Threads start first and wait at a barrier: the figure is the
                # concurrent backward, not Python's thread start-up.
                barrier = threading.Barrier(n_threads + 1)

                def run(r, barrier=barrier):
                    barrier.wait()
                    r.backward()
                ts = [threading.Thread(target=run, args=(r,)) for r in roots]
                for t in ts:
                    t.start()
                barrier.wait()
                t0 = time.perf_counter()
                for t in ts:
                    t.join()
                threaded.append(time.perf_counter() - t0)
            t1, tn = statistics.median(serial), statistics.median(threaded)
            out[(size, name)] = {"serial_s": t1, "threaded_s": tn, "scaling": t1 / tn}
    return out


# Issue 16's rows: 1-element float32 tensors that require grad, per op / node / leaf --------------

def _ones(tl, n):
    return [tl.ones(1, dtype=tl.float32, requires_grad=True) for _ in range(n)]


def _fwd_chain(tl, leaves, n):
    y = leaves[0]
    for _ in range(n):
        y = y * 1.0001
    return y


def _fwd_lattice(tl, leaves, width, depth):
    layer = leaves
    for _ in range(depth):
        layer = [layer[i] + layer[(i + 1) % width] for i in range(width)]
    return layer


def _fwd_tanh(tl, leaves, n):
    y = leaves[0]
    if tl is np:  # the floor: numpy arrays have no .tanh()
        for _ in range(n):
            y = np.tanh(y)
        return y
    for _ in range(n):
        y = y.tanh()
    return y


def _np_ones(n):
    return [np.ones(1, dtype=np.float32) for _ in range(n)]


def _per_op_forward(frameworks, floor, build, n_leaves, ops, repeats):
    """Median time per op of `build(lib, leaves)` (the forward that records the graph) under
    each framework, and under numpy (the same arithmetic on 1-element arrays: the floor).
    Making the leaves and freeing the graph are not timed."""
    out = {}
    libs = {**frameworks, **({"numpy": None} if floor else {})}
    for name, tl in libs.items():
        def run(tl=tl):
            leaves = _np_ones(n_leaves) if tl is None else _ones(tl, n_leaves)
            gc.collect()
            t0 = time.perf_counter()
            y = build(np if tl is None else tl, leaves)
            elapsed = time.perf_counter() - t0
            del y
            return elapsed
        out[name] = median_of_runs(run, repeats) / ops
    return out


def fwd_chain(frameworks=FRAMEWORKS, floor=True, n=10000, repeats=9):
    """Forward per op on a chain: `y = y * 1.0001`, n ops."""
    return _per_op_forward(frameworks, floor, lambda tl, leaves: _fwd_chain(tl, leaves, n), 1, n, repeats)


def fwd_lattice(frameworks=FRAMEWORKS, floor=True, width=32, depth=64, repeats=9):
    """Forward per op on a lattice: layer[d][i] = layer[d-1][i] + layer[d-1][(i+1) % W]."""
    return _per_op_forward(frameworks, floor, lambda tl, leaves: _fwd_lattice(tl, leaves, width, depth),
                           width, width * depth, repeats)


def fwd_tanh(frameworks=FRAMEWORKS, floor=True, n=100000, repeats=5):
    """Forward per op on a deep tanh chain: `y = y.tanh()`, n ops (TanhBackward0 saves its output)."""
    return _per_op_forward(frameworks, floor, lambda tl, leaves: _fwd_tanh(tl, leaves, n), 1, n, repeats)


def free_tanh(frameworks=FRAMEWORKS, floor=True, n=100000, repeats=5):
    """Freeing the deep tanh graph: the `del` of its output after the forward, per node."""
    out = {}
    for name, tl in frameworks.items():
        def run(tl=tl):
            y = _fwd_tanh(tl, _ones(tl, 1), n)
            gc.collect()
            t0 = time.perf_counter()
            del y
            return time.perf_counter() - t0
        out[name] = median_of_runs(run, repeats) / n
    return out


def wide(frameworks=FRAMEWORKS, floor=True, n=10000, repeats=9):
    """Backward per leaf of `stack([leaf * 2 for leaf in leaves]).sum()` over n leaves."""
    out = {}
    for name, tl in frameworks.items():
        leaves = _ones(tl, n)

        def run(tl=tl, leaves=leaves):
            for leaf in leaves:
                leaf.grad = None
            loss = tl.stack([leaf * 2 for leaf in leaves]).sum()
            gc.collect()
            return backward_seconds(loss)
        out[name] = median_of_runs(run, repeats) / n
    if not floor:
        return out

    def numpy_backward():
        # sum's gradient, split by stack's backward, times 2 by mul's: one new array per leaf
        g = np.ones((n, 1), dtype=np.float32)
        return [g[i] * 2 for i in range(n)]
    out["numpy"] = median_time(numpy_backward, repeats) / n
    return out


def _mul(y):
    return y * 1.0001


def threads4(frameworks=FRAMEWORKS, n=2000, repeats=7):
    """4 threads each running the backward of its own n-op chain (`y * 1.0001`, 1 element)
    at once, against 1 thread running the 4 backwards in turn: {framework: serial, threaded,
    scaling = serial / threaded (throughput)}."""
    return {name: r for (_, name), r in threads(frameworks, 4, ((1, n),), repeats, step=_mul).items()}


def _peak_rss_reset():
    """Reset the kernel's peak-RSS mark (VmHWM) to the current RSS; False where it cannot."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _peak_rss_bytes():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    raise OSError("no VmHWM in /proc/self/status")


def _tanh_memory_child(name, n):
    """In this fresh process: the deep tanh chain's graph memory per node (RSS after the
    forward minus before) and backward's extra memory per node (peak RSS during backward
    minus RSS after the forward)."""
    tl = _framework(name)
    x = tl.ones(1, dtype=tl.float32, requires_grad=True)
    gc.collect()
    before = _rss_bytes()
    y = _fwd_tanh(tl, [x], n)
    gc.collect()
    after_forward = _rss_bytes()
    extra = None
    if _peak_rss_reset():
        y.backward()
        extra = (_peak_rss_bytes() - after_forward) / n
    print(json.dumps({"graph_bytes": (after_forward - before) / n, "backward_extra_bytes": extra}))


def tanh_memory(frameworks=FRAMEWORKS, n=100000):
    """The deep tanh chain (n ops) in a fresh process per framework: {framework: {graph_bytes,
    backward_extra_bytes}} per node (backward_extra_bytes None where the peak cannot be reset)."""
    out = {}
    for name in frameworks:
        res = subprocess.run([sys.executable, __file__, "--tanh-memory-child", name, str(n)],
                             capture_output=True, text=True, check=True)
        out[name] = json.loads(res.stdout.strip().splitlines()[-1])
    return out


# Issue 15's model training steps (bench/models.py): forward, loss, backward, optimizer step ------

def _models():
    """bench/models.py, loaded from this file's directory (also in --baseline's children, which
    run this tree's workload code against another tree's torchlite)."""
    import importlib.util
    mod = sys.modules.get("torchlite_bench_models")
    if mod is None:
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models.py")
        spec = importlib.util.spec_from_file_location("torchlite_bench_models", path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = mod
        spec.loader.exec_module(mod)
    return mod


def _model_step(model_name):
    def workload(frameworks=FRAMEWORKS, floor=True, repeats=5, sizes=None):
        if not hasattr(torchlite, "nn"):
            raise Skipped("this torchlite has no nn")
        # torch's model (when torch is here) is built first; torchlite's takes its weights
        models = _models().twins(model_name, frameworks, sizes)
        return {name: median_time(m.step, repeats) for name, m in models.items()}
    workload.__name__ = model_name
    workload.__doc__ = f"One training step of bench/models.py's {model_name} (forward, backward, optimizer step)."
    return workload


cnn = _model_step("cnn")
lstm = _model_step("lstm")
gpt = _model_step("gpt")


def _gpu_skip_reason():
    """Why the GPU rows cannot run here (None when they can)."""
    import importlib.util
    if not torchlite.cuda._is_compiled():
        return "torchlite built without CUDA"
    if not torchlite.cuda.is_available():
        return "no usable CUDA GPU"
    if importlib.util.find_spec("cupy") is None:
        return "cupy not installed (pip install torchlite[cuda])"
    return None


def _gpu_frameworks():
    out = {"torchlite": torchlite}
    if torch is not None and torch.cuda.is_available():
        out["torch"] = torch
    return out


def _timed_backward(tl, loss):
    """Backward to completion on the GPU (the work is asynchronous until synchronised)."""
    tl.cuda.synchronize()
    t0 = time.perf_counter()
    loss.backward()
    tl.cuda.synchronize()
    return time.perf_counter() - t0


def gpu(frameworks=None, repeats=9):
    """The GPU rows: MLP backward (batch 4096, 4096-wide), chain and lattice
    on cuda:0, torchlite against torch on the same GPU."""
    out = {}
    for name, tl in (frameworks or _gpu_frameworks()).items():
        rng = np.random.default_rng(0)
        width = 4096
        x = tl.tensor(rng.standard_normal((4096, width)).astype(np.float32), device="cuda")
        ws = [tl.tensor((rng.standard_normal((width, width)) / np.sqrt(width)).astype(np.float32),
                        device="cuda", requires_grad=True) for _ in range(3)]

        def mlp_run(tl=tl, x=x, ws=ws):
            for w in ws:
                w.grad = None
            h = x
            for i, w in enumerate(ws):
                h = h @ w
                if i < len(ws) - 1:
                    h = h.relu()
            return _timed_backward(tl, (h * h).mean())

        def chain_run(tl=tl, n=2000):
            return _timed_backward(tl, chain_loss(tl, n, "cuda")) / n

        def lattice_run(tl=tl, width=16, depth=100):
            return _timed_backward(tl, lattice_loss(tl, width, depth, "cuda")) / (width * depth)

        for key, fn in (("mlp", mlp_run), ("chain", chain_run), ("lattice", lattice_run)):
            out[(key, name)] = median_of_runs(fn, repeats)
    return out


# --baseline: torchlite of this tree against another one's ------------------------------

# The workloads reported as {column: seconds}: function, title, and what one figure is.
TIMED = {
    "chain": (chain, "chain of 2,000 tiny ops: backward per node", "per node"),
    "lattice": (lattice, "fan-out/fan-in lattice 16x100: backward per node", "per node"),
    "leaves": (many_leaves, "5,000 leaves: backward per leaf", "per leaf"),
    "mlp": (mlp, "MLP 256x512-1024-1024-10: backward", "backward"),
    "forward": (forward, ("forward of 2,000 mul and 2,000 tanh (1 element, float64, requires grad): "
                          "recording per op"), "per op"),
    # issue 16's rows (1-element float32 tensors that require grad)
    "fwd_chain": (fwd_chain, "forward per op, chain (y = y * 1.0001, 10,000 ops, float32)", "per op"),
    "fwd_lattice": (fwd_lattice, "forward per op, lattice (W=32, D=64, float32)", "per op"),
    "fwd_tanh": (fwd_tanh, "forward per op, deep tanh (y = y.tanh(), 100,000 ops, float32)", "per op"),
    "free_tanh": (free_tanh, "free the deep-tanh graph (del of the output after forward)", "per node"),
    "wide": (wide, "backward per leaf, wide (10,000 float32 leaves, stack([leaf * 2 ...]).sum())", "per leaf"),
    # issue 15's model training steps (bench/models.py)
    "cnn": (cnn, ("CNN training step (conv 3->32->64 3x3, BatchNorm, ReLU, max pool, linear; "
                  "batch 32 of 3x32x32; SGD)"), "per step"),
    "lstm": (lstm, ("LSTM LM training step (2 layers, hidden 256, sequence 35, batch 20, "
                    "vocabulary 1,000; SGD)"), "per step"),
    "gpt": (gpt, ("GPT training step (4 layers, 4 heads, width 128, context 64, batch 8, "
                  "vocabulary 512; AdamW)"), "per step"),
}
TITLES = {
    **{w: title for w, (_, title, _) in TIMED.items()},
    "long_chain": "100,000-node chain (fresh process each)",
    "trace": "engine trace on the chain of 2,000 tiny ops: backward per node",
    "threads": "backward of 4 built graphs: one after another vs from 4 threads at once",
    "threads4": ("4 threads each running backward on its own 2,000-op chain at once vs 1 thread "
                 "running them in turn (throughput)"),
    "graph_mem": "graph memory per node, deep tanh (100,000 ops; fresh process each)",
    "bwd_mem": ("backward's extra memory per node, deep tanh (peak RSS during backward minus RSS "
                "after forward; fresh process each)"),
    "gpu": "GPU (cuda:0): MLP 4096x4096 (3 layers) backward, chain and lattice per node",
}

# Named groups of workloads (a group's name on the command line stands for its members).
GROUPS = {
    "issue16": ["fwd_chain", "fwd_lattice", "fwd_tanh", "free_tanh", "bwd_mem", "graph_mem", "wide", "threads4"],
    "models": ["cnn", "lstm", "gpt"],
}

# --quick: every workload in a tiny configuration (the test of this script runs them so).
QUICK_ARGS = {
    "chain": dict(n=50, repeats=1), "lattice": dict(width=4, depth=5, repeats=1),
    "leaves": dict(n=50, repeats=1), "mlp": dict(batch=8, dims=(8, 16, 16, 4), repeats=1),
    "forward": dict(n=50, repeats=1), "long_chain": dict(n=1000),
    "threads": dict(configs=((16, 20),), repeats=1),
    "fwd_chain": dict(n=50, repeats=1), "fwd_lattice": dict(width=4, depth=5, repeats=1),
    "fwd_tanh": dict(n=50, repeats=1), "free_tanh": dict(n=50, repeats=1), "wide": dict(n=50, repeats=1),
    "threads4": dict(n=20, repeats=1), "graph_mem": dict(n=1000), "bwd_mem": dict(n=1000),
    "cnn": dict(repeats=1, sizes=dict(batch=2, channels=(3, 4, 6), image=8, classes=5)),
    "lstm": dict(repeats=1, sizes=dict(vocab=31, hidden=8, layers=2, seq=4, batch=3)),
    "gpt": dict(repeats=1, sizes=dict(vocab=29, width=16, layers=2, heads=2, context=8, batch=3)),
}
QUICK = False


def args_of(workload):
    """The keyword arguments of `workload`'s function: none, or the tiny ones under --quick."""
    return QUICK_ARGS.get(workload, {}) if QUICK else {}


class Skipped(Exception):
    """A workload that cannot run here (the GPU's)."""


def torchlite_metrics(workload):
    """{metric: value} of this process's torchlite alone in `workload`: what one
    --baseline round measures of each tree."""
    only = {"torchlite": torchlite}
    kw = args_of(workload)
    if workload in TIMED:
        fn, _, metric = TIMED[workload]
        return {metric: fn(only, floor=False, **kw)["torchlite"]}
    if workload == "long_chain":
        r = long_chain(only, **kw)["torchlite"]
        return {"bytes per node": r["per_node_bytes"], "backward": r["backward_s"], "teardown": r["teardown_s"]}
    if workload == "trace":
        return {f"trace {k}": v for k, v in trace_round(torchlite).items()}
    if workload == "threads":
        return {f"size {size} {k.removesuffix('_s')}": v
                for (size, _), r in threads(only, **kw).items() for k, v in r.items()}
    if workload == "threads4":
        return {k.removesuffix("_s"): v for k, v in threads4(only, **kw)["torchlite"].items()}
    if workload in ("graph_mem", "bwd_mem"):
        key = "graph_bytes" if workload == "graph_mem" else "backward_extra_bytes"
        v = tanh_memory(only, **kw)["torchlite"][key]
        if v is None:
            raise Skipped("the peak RSS cannot be reset here (/proc/self/clear_refs)")
        return {"bytes per node": v}
    if workload == "gpu":
        reason = _gpu_skip_reason()
        if reason is not None:
            raise Skipped(reason)
        return {key: v for (key, _), v in gpu(only).items()}
    raise ValueError(f"unknown workload {workload!r}")


def _child_main(workload):
    try:
        out = {"metrics": torchlite_metrics(workload)}
    except Skipped as e:
        out = {"skipped": str(e)}
    print(json.dumps({"torchlite": torchlite.__file__, **out}))


def check_tree(tree):
    """`tree` as an absolute path, or SystemExit unless it has an extension built in place."""
    tree = os.path.realpath(tree)
    if not glob.glob(os.path.join(tree, "torchlite", "_C*.so")):
        raise SystemExit(f"{tree} has no torchlite/_C*.so: build the extension in place there first")
    return tree


def run_child(tree, workload):
    """torchlite_metrics(workload) in a fresh process that imports the torchlite of `tree`.
    The workload's code is this file's in both trees: only torchlite differs."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (tree, os.environ.get("PYTHONPATH")) if p)}
    res = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", workload]
                         + (["--quick"] if QUICK else []),
                         env=env, cwd=tree, capture_output=True, text=True, check=False)
    if res.returncode:
        raise SystemExit(f"{workload} with the torchlite of {tree} failed:\n{res.stderr}")
    out = json.loads(res.stdout.strip().splitlines()[-1])
    # An editable install's import hook can win over PYTHONPATH: never time the wrong tree.
    if not os.path.realpath(out["torchlite"]).startswith(tree + os.sep):
        raise SystemExit(f"the child for {tree} imported torchlite from {out['torchlite']}")
    return out


def compare_trees(workload, trees, rounds):
    """{metric: {side: [value per round]}} of `workload` in trees {side: path}, the sides
    measured in alternating rounds (and alternating order within a round, so that drift
    in the machine's load weighs on both); or the reason it was skipped."""
    sides = list(trees)
    figures = {}
    for r in range(rounds):
        for side in sides if r % 2 == 0 else sides[::-1]:
            out = run_child(trees[side], workload)
            if "skipped" in out:
                return f"{side} tree: {out['skipped']}"
            for metric, v in out["metrics"].items():
                figures.setdefault(metric, {s: [] for s in sides})[side].append(v)
    return figures


def fmt_value(metric, v):
    if "bytes" in metric:
        return f"{v:.0f} B"
    if "scaling" in metric:
        return f"{v:.2f}x"
    return f"{v * 1e6:.2f} us" if v < 1e-3 else f"{v * 1e3:.2f} ms"


def report_comparison(title, figures, rounds):
    """Per metric: the rounds of each tree and their ratios; the summary ratio is the median
    of the per-round ratios (each pairs two measurements made one after the other)."""
    print(f"\n{title}: torchlite current/baseline, {rounds} alternating rounds")
    if isinstance(figures, str):
        print(f"  skipped: {figures}")
        return
    for metric, sides in figures.items():
        cur, base = sides["current"], sides["baseline"]
        if not base:
            print(f"  {metric}: current only (the baseline has none): "
                  + "  ".join(fmt_value(metric, v) for v in cur))
            continue
        ratios = [c / b for c, b in zip(cur, base, strict=True)]
        print(f"  {metric}: current/baseline = {statistics.median(ratios):.3f}x "
              f"(median of per-round ratios; medians {fmt_value(metric, statistics.median(cur))} / "
              f"{fmt_value(metric, statistics.median(base))})")
        print("    current   " + "  ".join(f"{fmt_value(metric, v):>10}" for v in cur))
        print("    baseline  " + "  ".join(f"{fmt_value(metric, v):>10}" for v in base))
        print("    ratio     " + "  ".join(f"{r:9.3f}x" for r in ratios))


def fmt_us(s):
    return f"{s * 1e6:8.2f} us"


def fmt_time(s):
    return f"{s * 1e3:8.2f} ms" if s >= 1e-3 else fmt_us(s)


def report_times(title, res, unit):
    """One row: each column's figure, torchlite/torch, and torchlite/numpy where the row has a floor."""
    cols = [c for c in ("torchlite", "torch", "numpy") if c in res]
    print(f"\n{title} ({unit})")
    print("  " + "  ".join(f"{c:>12}" for c in cols) + "   torchlite/torch" +
          ("  torchlite/numpy" if "numpy" in res else ""))
    row = "  ".join(f"{fmt_time(res[c]):>12}" for c in cols)
    r_torch = f"{res['torchlite'] / res['torch']:15.2f}x" if "torch" in res else f"{'-':>16}"
    r_np = f"  {res['torchlite'] / res['numpy']:15.2f}x" if "numpy" in res else ""
    print(f"  {row}  {r_torch}{r_np}")


def report_timed(workloads, names):
    """report_times of each TIMED workload of `names` that `workloads` asks for, in that order."""
    for workload in names:
        if workload in workloads:
            report_times(TITLES[workload], TIMED[workload][0](**args_of(workload)), "median")


def report_bytes(title, res, key):
    """Bytes per node of each framework (`res[name][key]`) and torchlite/torch."""
    print(f"\n{title}")
    if any(r[key] is None for r in res.values()):
        print("  skipped: the peak RSS cannot be reset here (/proc/self/clear_refs)")
        return
    print("  " + "   ".join(f"{name}={r[key]:.1f} B/node" for name, r in res.items()) +
          (f"   torchlite/torch={res['torchlite'][key] / res['torch'][key]:.2f}x" if "torch" in res else ""))


def _torchlite_version():
    try:
        return importlib.metadata.version("torchlite")
    except importlib.metadata.PackageNotFoundError:  # run from a source tree with an in-place build
        return "(source tree)"


# The default set (`python bench/run.py` with no workload named); trace, and the groups' members,
# run when named.
WORKLOADS = ["chain", "lattice", "leaves", "mlp", "forward", "long_chain", "threads", "gpu"]
EXTRA = ["trace"] + [w for g in GROUPS.values() for w in g]


def expand(names):
    """The workloads `names` name (a group's name stands for its members), in order, once each."""
    out = []
    for n in names:
        for w in GROUPS.get(n, [n]):
            if w not in out:
                out.append(w)
    return out


def main():
    global QUICK
    if len(sys.argv) > 1 and sys.argv[1] == "--memory-child":
        _memory_child(sys.argv[2], int(sys.argv[3]))
        return
    if len(sys.argv) > 1 and sys.argv[1] == "--tanh-memory-child":
        _tanh_memory_child(sys.argv[2], int(sys.argv[3]))
        return
    if CHILD:
        QUICK = "--quick" in sys.argv[3:]
        _child_main(sys.argv[2])
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("workloads", nargs="*", default=WORKLOADS, metavar="WORKLOAD",
                        help=" ".join(WORKLOADS) + " (the default), and " + " ".join(EXTRA) + "; groups: " +
                        "; ".join(f"{g} = {' '.join(ws)}" for g, ws in GROUPS.items()))
    parser.add_argument("--baseline", metavar="TREE",
                        help="time torchlite only, this source tree's against that of TREE (another source "
                             "tree with the extension built in place), each in fresh processes, in "
                             "alternating rounds; print current/baseline per workload")
    parser.add_argument("--rounds", type=int, default=5, metavar="N",
                        help="alternating rounds of --baseline and of trace (default 5)")
    parser.add_argument("--quick", action="store_true",
                        help="every workload in a tiny configuration (a smoke test: the figures mean nothing)")
    args = parser.parse_args()
    QUICK = args.quick
    # Checked here, not with `choices`: Python 3.11's argparse rejects the list default against them.
    known = WORKLOADS + EXTRA + list(GROUPS)
    unknown = [w for w in args.workloads if w not in known]
    if unknown:
        parser.error(f"unknown workload(s) {' '.join(unknown)}; choose from {' '.join(known)}")
    workloads = expand(args.workloads)
    if args.baseline:
        trees = {"current": check_tree(TREE), "baseline": check_tree(args.baseline)}
        print(f"current {trees['current']}; baseline {trees['baseline']}; numpy {np.__version__}; "
              f"{os.cpu_count()} cores")
        for workload in workloads:
            report_comparison(TITLES[workload], compare_trees(workload, trees, args.rounds), args.rounds)
        return
    print(f"torchlite {_torchlite_version()} ({os.path.dirname(torchlite.__file__)}); "
          f"torch {torch.__version__ if torch else 'not installed'}; numpy {np.__version__}; {os.cpu_count()} cores")
    report_timed(workloads, ("chain", "lattice", "leaves"))
    if "mlp" in workloads:
        res = mlp(**args_of("mlp"))
        cols = [c for c in ("torchlite", "torch", "numpy") if c in res]
        print("\nMLP 256x512-1024-1024-10: backward (median ms)")
        print("  " + "  ".join(f"{c}={res[c] * 1e3:.2f}" for c in cols) +
              (f"   torchlite/torch={res['torchlite'] / res['torch']:.2f}x" if "torch" in res else "") +
              f"   torchlite/numpy={res['torchlite'] / res['numpy']:.2f}x")
    if "forward" in workloads:
        report_times(TITLES["forward"], forward(**args_of("forward")), "median")
    if "long_chain" in workloads:
        res = long_chain(**args_of("long_chain"))
        print(f"\n{TITLES['long_chain']}")
        for name, r in res.items():
            print(f"  {name:>10}: {r['per_node_bytes']:8.0f} B/node   backward {r['backward_s'] * 1e3:7.1f} ms"
                  f"   teardown {r['teardown_s'] * 1e3:7.1f} ms")
        if "torch" in res:
            print(f"  memory per node torchlite/torch = "
                  f"{res['torchlite']['per_node_bytes'] / res['torch']['per_node_bytes']:.2f}x")
    if "trace" in workloads:
        res = trace_cost(args.rounds)
        print(f"\n{TITLES['trace']} (median of {args.rounds} alternating rounds)")
        print("  " + "   ".join(f"{k}={fmt_us(v).strip()}" for k, v in res.items()) +
              f"   on/off={res['on'] / res['off']:.2f}x")
    if "threads" in workloads:
        res = threads(**args_of("threads"))
        print(f"\n{TITLES['threads']}")
        for (size, name), r in res.items():
            print(f"  size {size:>7} {name:>10}: serial {r['serial_s'] * 1e3:7.1f} ms   4 threads "
                  f"{r['threaded_s'] * 1e3:7.1f} ms   scaling {r['scaling']:.2f}x")
    # issue 16's rows
    report_timed(workloads, ("fwd_chain", "fwd_lattice", "fwd_tanh", "free_tanh"))
    memory = None
    for workload, key in (("bwd_mem", "backward_extra_bytes"), ("graph_mem", "graph_bytes")):
        if workload in workloads:
            # one fresh process per framework gives both figures
            memory = memory or tanh_memory(**args_of(workload))
            report_bytes(TITLES[workload], memory, key)
    if "wide" in workloads:
        report_times(TITLES["wide"], wide(**args_of("wide")), "median")
    if "threads4" in workloads:
        res = threads4(**args_of("threads4"))
        print(f"\n{TITLES['threads4']}")
        for name, r in res.items():
            print(f"  {name:>10}: serial {r['serial_s'] * 1e3:7.2f} ms   4 threads {r['threaded_s'] * 1e3:7.2f} ms"
                  f"   throughput 4 threads / 1 thread {r['scaling']:.2f}x")
    # issue 15's model training steps
    report_timed(workloads, GROUPS["models"])
    if "gpu" in workloads:
        reason = _gpu_skip_reason()
        print(f"\n{TITLES['gpu']}")
        if reason is not None:
            print(f"  skipped: {reason}")
        else:
            res = gpu()
            for key, unit, scale in (("mlp", "ms", 1e3), ("chain", "us/node", 1e6), ("lattice", "us/node", 1e6)):
                row = "  ".join(f"{n}={res[(key, n)] * scale:.2f} {unit}" for k, n in res if k == key)
                ratio = (f"   torchlite/torch={res[(key, 'torchlite')] / res[(key, 'torch')]:.2f}x"
                         if (key, "torch") in res else "   (torch has no CUDA here)")
                print(f"  {key:>8}: {row}{ratio}")


if __name__ == "__main__":
    main()
