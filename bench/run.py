"""Benchmarks: torchlite side by side with torch (when installed) and a
hand-written numpy baseline, in one process run. Prints medians and ratios.

    python bench/run.py            # every workload
    python bench/run.py chain mlp  # some of them

These machines are noisy: compare only figures from one run. Nothing here is
a test; no figure is asserted anywhere.
"""
import argparse
import gc
import importlib.metadata
import itertools
import json
import os
import statistics
import subprocess
import sys
import threading
import time

import numpy as np

import torchlite

try:
    import torch
except ImportError:  # torch is optional: its columns are left empty
    torch = None

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


# Workloads: each returns {column: seconds} per unit of work --------------------------

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


def chain(n=2000, repeats=15):
    """Backward through n tiny multiplications: engine overhead per node."""
    out = {}
    for name, tl in FRAMEWORKS.items():
        def run(tl=tl):
            loss = chain_loss(tl, n)
            t0 = time.perf_counter()
            loss.backward()
            return time.perf_counter() - t0
        run()
        out[name] = statistics.median(run() for _ in range(repeats)) / n

    def numpy_backward():
        g = np.ones(4, dtype=np.float32)
        for _ in range(n):
            g = g * np.float32(1.0001)
        return g
    out["numpy"] = median_time(numpy_backward, repeats) / n
    return out


def lattice(width=16, depth=100, repeats=15):
    """Fan-out/fan-in: node (d, i) = node (d-1, i) + node (d-1, i+1); every
    node receives two gradients, so InputBuffer accumulates at each one."""
    out = {}
    nodes = width * depth
    for name, tl in FRAMEWORKS.items():
        def run(tl=tl):
            loss = lattice_loss(tl, width, depth)
            t0 = time.perf_counter()
            loss.backward()
            return time.perf_counter() - t0
        run()
        out[name] = statistics.median(run() for _ in range(repeats)) / nodes

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


def many_leaves(n=5000, repeats=9):
    """n leaves feeding one sum: AccumulateGrad per leaf."""
    out = {}
    for name, tl in FRAMEWORKS.items():
        leaves = [tl.ones(8, requires_grad=True) for _ in range(n)]

        def run(tl=tl, leaves=leaves):
            for leaf in leaves:
                leaf.grad = None
            loss = tl.stack(leaves).sum()
            t0 = time.perf_counter()
            loss.backward()
            return time.perf_counter() - t0
        run()
        out[name] = statistics.median(run() for _ in range(repeats)) / n

    def numpy_backward():
        g = np.ones((n, 8), dtype=np.float32)
        return [g[i].copy() for i in range(n)]
    out["numpy"] = median_time(numpy_backward, repeats) / n
    return out


def mlp(batch=256, dims=(512, 1024, 1024, 10), repeats=15):
    """Backward of a 3-layer MLP (matmul, relu, mean of squares): the kernels."""
    rng = np.random.default_rng(0)
    x_np = rng.standard_normal((batch, dims[0])).astype(np.float32)
    ws_np = [(rng.standard_normal((a, b)) / np.sqrt(a)).astype(np.float32) for a, b in itertools.pairwise(dims)]
    out = {}
    for name, tl in FRAMEWORKS.items():
        x = tl.tensor(x_np)
        ws = [tl.tensor(w, requires_grad=True) for w in ws_np]

        def run(tl=tl, x=x, ws=ws):
            h = x
            for i, w in enumerate(ws):
                h = h @ w
                if i < len(ws) - 1:
                    h = h.relu()
            loss = (h * h).mean()
            t0 = time.perf_counter()
            loss.backward()
            return time.perf_counter() - t0
        run()
        out[name] = statistics.median(run() for _ in range(repeats))

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
    run()
    return statistics.median(run() for _ in range(repeats)) / n


def _trace_child(n, repeats):
    print(json.dumps(_chain_backward_per_node(torchlite, n, repeats)))


def trace_cost(baseline=None, n=2000, repeats=15, rounds=5):
    """The engine trace's cost on the chain: tracing off, tracing on, and (with `baseline`, a
    source tree with a built extension) the build before tracing existed, in a child process.
    The three are measured in alternating rounds; each figure is the median of the rounds."""
    times = {"off": [], "on": [], "baseline": []}
    for _ in range(rounds):
        times["off"].append(_chain_backward_per_node(torchlite, n, repeats))
        times["on"].append(_chain_backward_per_node(torchlite, n, repeats, traced=True))
        if baseline:
            env = {**os.environ, "PYTHONPATH": os.path.abspath(baseline)}
            child = subprocess.run([sys.executable, os.path.abspath(__file__), "--trace-child", str(n), str(repeats)],
                                   env=env, cwd=os.path.abspath(baseline), capture_output=True, text=True, check=True)
            times["baseline"].append(json.loads(child.stdout.strip().splitlines()[-1]))
    return {k: statistics.median(v) for k, v in times.items() if v}


def _rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _memory_child(name, n):
    tl = torchlite if name == "torchlite" else torch
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


def long_chain(n=100000):
    """A 100,000-node chain in a fresh process per framework: resident memory
    per node, backward, and teardown (which must not recurse)."""
    out = {}
    for name in FRAMEWORKS:
        res = subprocess.run([sys.executable, __file__, "--memory-child", name, str(n)],
                             capture_output=True, text=True, check=True)
        out[name] = json.loads(res.stdout.strip().splitlines()[-1])
    return out


def threads(n_threads=4, configs=((256, 300), (20000, 100), (200000, 40)), repeats=7):
    """Backward of n_threads independent, already built graphs (chains of
    mul and tanh on tensors of `size`), one after another on one thread and
    then concurrently from n_threads already started threads: throughput
    scaling, serial time / threaded time (1.0 = none; 2 cores bound it near 2)."""
    out = {}
    for size, n in configs:
        for name, tl in FRAMEWORKS.items():
            def graphs(tl=tl, size=size, n=n):
                roots = []
                for _ in range(n_threads):
                    y = tl.ones(size, requires_grad=True)
                    for _ in range(n):
                        y = (y * 1.0001).tanh()
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


def gpu(repeats=9):
    """The GPU rows: MLP backward (batch 4096, 4096-wide), chain and lattice
    on cuda:0, torchlite against torch on the same GPU."""
    out = {}
    for name, tl in _gpu_frameworks().items():
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
            fn()
            out[(key, name)] = statistics.median(fn() for _ in range(repeats))
    return out


def fmt_us(s):
    return f"{s * 1e6:8.2f} us"


def report_times(title, res, unit):
    cols = [c for c in ("torchlite", "torch", "numpy") if c in res]
    print(f"\n{title} ({unit})")
    print("  " + "  ".join(f"{c:>12}" for c in cols) + "   torchlite/torch  torchlite/numpy")
    row = "  ".join(f"{fmt_us(res[c]):>12}" for c in cols)
    r_torch = f"{res['torchlite'] / res['torch']:15.2f}x" if "torch" in res else f"{'-':>16}"
    r_np = f"{res['torchlite'] / res['numpy']:15.2f}x"
    print(f"  {row}  {r_torch}  {r_np}")


def _torchlite_version():
    try:
        return importlib.metadata.version("torchlite")
    except importlib.metadata.PackageNotFoundError:  # run from a source tree with an in-place build
        return "(source tree)"


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--memory-child":
        _memory_child(sys.argv[2], int(sys.argv[3]))
        return
    if len(sys.argv) > 1 and sys.argv[1] == "--trace-child":
        _trace_child(int(sys.argv[2]), int(sys.argv[3]))
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("workloads", nargs="*",
                        default=["chain", "lattice", "leaves", "mlp", "long_chain", "threads", "gpu"],
                        help="chain lattice leaves mlp long_chain threads gpu (the default), and trace")
    parser.add_argument("--baseline", metavar="TREE",
                        help="trace: also time the chain with the torchlite of this source tree (built in place)")
    args = parser.parse_args()
    print(f"torchlite {_torchlite_version()}; torch {torch.__version__ if torch else 'not installed'}; "
          f"numpy {np.__version__}; {os.cpu_count()} cores")
    if "chain" in args.workloads:
        report_times("chain of 2,000 tiny ops: backward per node", chain(), "median")
    if "lattice" in args.workloads:
        report_times("fan-out/fan-in lattice 16x100: backward per node", lattice(), "median")
    if "leaves" in args.workloads:
        report_times("5,000 leaves: backward per leaf", many_leaves(), "median")
    if "mlp" in args.workloads:
        res = mlp()
        cols = [c for c in ("torchlite", "torch", "numpy") if c in res]
        print("\nMLP 256x512-1024-1024-10: backward (median ms)")
        print("  " + "  ".join(f"{c}={res[c] * 1e3:.2f}" for c in cols) +
              (f"   torchlite/torch={res['torchlite'] / res['torch']:.2f}x" if "torch" in res else "") +
              f"   torchlite/numpy={res['torchlite'] / res['numpy']:.2f}x")
    if "long_chain" in args.workloads:
        res = long_chain()
        print("\n100,000-node chain (fresh process each)")
        for name, r in res.items():
            print(f"  {name:>10}: {r['per_node_bytes']:8.0f} B/node   backward {r['backward_s'] * 1e3:7.1f} ms"
                  f"   teardown {r['teardown_s'] * 1e3:7.1f} ms")
        if "torch" in res:
            print(f"  memory per node torchlite/torch = "
                  f"{res['torchlite']['per_node_bytes'] / res['torch']['per_node_bytes']:.2f}x")
    if "trace" in args.workloads:
        res = trace_cost(args.baseline)
        print("\nengine trace on the chain of 2,000 tiny ops: backward per node (median of 5 alternating rounds)")
        print("  " + "   ".join(f"{k}={fmt_us(v).strip()}" for k, v in res.items()) +
              f"   on/off={res['on'] / res['off']:.2f}x" +
              (f"   off/baseline={res['off'] / res['baseline']:.2f}x" if "baseline" in res else ""))
    if "threads" in args.workloads:
        res = threads()
        print("\nbackward of 4 built graphs: one after another vs from 4 threads at once")
        for (size, name), r in res.items():
            print(f"  size {size:>7} {name:>10}: serial {r['serial_s'] * 1e3:7.1f} ms   4 threads "
                  f"{r['threaded_s'] * 1e3:7.1f} ms   scaling {r['scaling']:.2f}x")
    if "gpu" in args.workloads:
        reason = _gpu_skip_reason()
        print("\nGPU (cuda:0): MLP 4096x4096 (3 layers) backward, chain and lattice per node")
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
