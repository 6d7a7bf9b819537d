"""`python -m torchlite compare SCRIPT [args]`: runs a script that does
`import torch` twice, in a subprocess each, once with torch and once with
torchlite standing in for it, records every backward it runs, and reports
per backward the differences between the two runs.

Each child (`python -m torchlite._compare torch|torchlite RECORD SCRIPT
[args]`) wraps torch.Tensor.backward, torch.autograd.backward and
torch.autograd.grad. Per outermost call it records: the API and the
script's line that called it, the roots' values, the leaves reachable from
the roots (AccumulateGrad.variable, in the order a depth-first walk of
next_functions meets them) with their values, the gradients (the leaves'
.grad after backward(), the returned tuple of grad()), the names of the
nodes in the order they ran (a pre-hook on every node reached), and the
exception raised, if any. The parent compares the two lists call by call:
leaves' values first (different leaves are reported as "inputs differ",
without comparing gradients: a script drawing random numbers on the CPU gets
torch's numbers from torchlite's generator, so only a script whose inputs
really differ meets it), then roots' values, gradients within a tolerance,
execution order and exceptions.

For a script that builds `nn` modules (each one is remembered by a wrapper
around nn.Module.__init__), every leaf that is a module's parameter is also
named as `named_parameters()` names it (`0.weight`, `fc1.bias`; prefixed by
the script's global holding the module where several outermost modules have
parameters), and the report gives per backward a table: per parameter, the
difference of its values before the backward and of its gradients after
it, matched by name, so a model's backward can be held under both engines
side by side."""
import importlib
import importlib.abc
import importlib.util
import os
import pickle
import runpy
import subprocess
import sys
import tempfile
import threading
import traceback
import weakref

import numpy as np

import torchlite

BACKENDS = ("torch", "torchlite")


# ---------------------------------------------------------------------------------------------
# The child: runs the script under one backend and records its backward calls.

class _TorchliteAsTorch(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Makes `import torch.X` give torchlite.X (the same module object, so
    `torch.autograd is torchlite.autograd`)."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "torch" and not fullname.startswith("torch."):
            return None
        real = "torchlite" + fullname[len("torch"):]
        if importlib.util.find_spec(real) is None:
            return None
        return importlib.util.spec_from_loader(fullname, self, is_package=True)

    def create_module(self, spec):
        return importlib.import_module("torchlite" + spec.name[len("torch"):])

    def exec_module(self, module):
        pass


def _install_torchlite_as_torch():
    sys.meta_path.insert(0, _TorchliteAsTorch())
    for name, module in list(sys.modules.items()):
        if name == "torchlite" or name.startswith("torchlite."):
            sys.modules["torch" + name[len("torchlite"):]] = module
    return torchlite


def _array(t):
    return np.array(t.detach().cpu().numpy(), copy=True)


def _walk(roots):
    """The nodes reachable from `roots` (grad_fns or None) and the leaves
    they accumulate into, in depth-first order of next_functions."""
    nodes, leaves, seen = [], [], set()
    stack = [r for r in reversed(roots) if r is not None]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        nodes.append(node)
        if hasattr(node, "variable"):
            leaves.append(node.variable)
        stack.extend(fn for fn, _ in reversed(node.next_functions) if fn is not None)
    return nodes, leaves


def inputs_of_grad(outputs, inputs=None, *args, **kwargs):
    """autograd.grad's `inputs`, as a list (its gradients come back in that order)."""
    if inputs is None:
        return []
    return [inputs] if hasattr(inputs, "grad_fn") else list(inputs)


class _Recorder:
    def __init__(self, torch, script):
        self.torch = torch
        self.script = os.path.abspath(script)
        self.records = []
        self.local = threading.local()
        self.modules = []  # weak references to every nn.Module the script built, in creation order

    def track_modules(self):
        """Wraps nn.Module.__init__ so that every module the script builds (a
        subclass's `super().__init__()` included) is remembered, to name the
        parameters a backward reaches by their `named_parameters` names."""
        nn = getattr(self.torch, "nn", None)
        if nn is None:
            return
        init, modules = nn.Module.__init__, self.modules

        def tracking_init(module, *args, **kwargs):
            init(module, *args, **kwargs)
            if not any(ref() is module for ref in modules[-8:]):  # each level of super().__init__() calls it
                modules.append(weakref.ref(module))

        tracking_init.__wrapped__ = init
        nn.Module.__init__ = tracking_init

    def script_globals(self):
        """The globals of the script's innermost frame on the stack (its module's namespace)."""
        frame = sys._getframe()
        while frame is not None:
            if os.path.abspath(frame.f_code.co_filename) == self.script:
                return frame.f_globals
            frame = frame.f_back
        return {}

    def parameter_names(self):
        """id(parameter) -> its name: `named_parameters()` of the outermost
        modules (those no other live module holds as a submodule) that have
        parameters. With one such module the names are its own (`0.weight`,
        `fc1.bias`); with several each is prefixed by the script's global
        that holds the module, else by its class and creation number."""
        live = [m for m in (ref() for ref in self.modules) if m is not None]
        inner = {id(sub) for m in live for sub in m.modules() if sub is not m}
        tops = [m for m in live if id(m) not in inner and next(iter(m.parameters()), None) is not None]
        prefixes = [""]
        if len(tops) > 1:
            by_id = {id(v): k for k, v in self.script_globals().items() if not k.startswith("_")}
            prefixes = [by_id.get(id(m), f"{type(m).__name__}#{k}") + "." for k, m in enumerate(tops)]
        names = {}
        for prefix, module in zip(prefixes, tops, strict=False):
            for name, param in module.named_parameters():
                names.setdefault(id(param), prefix + name)
        return names

    def where(self):
        """The script's line that made the call (the innermost frame in it)."""
        for frame in reversed(traceback.extract_stack()):
            if os.path.abspath(frame.filename) == self.script:
                return f"{os.path.basename(frame.filename)}:{frame.lineno}"
        return "?"

    def wrap(self, api, fn, roots_of, run_and_grads):
        recorder = self

        def wrapper(*args, **kwargs):
            if getattr(recorder.local, "active", False):
                return fn(*args, **kwargs)  # a call made by an outer one (Tensor.backward -> autograd.backward)
            recorder.local.active = True
            try:
                return recorder.record(api, fn, args, kwargs, roots_of, run_and_grads)
            finally:
                recorder.local.active = False

        wrapper.__wrapped__ = fn
        return wrapper

    def record(self, api, fn, args, kwargs, roots_of, run_and_grads):
        torch = self.torch
        rec = {"api": api, "where": self.where(), "order": [], "error": None, "grads": []}
        roots = [t for t in roots_of(*args, **kwargs) if isinstance(t, torch.Tensor)]
        rec["roots"] = [_array(t) for t in roots]
        nodes, leaves = _walk([torch.autograd.graph.get_gradient_edge(t).node if t.requires_grad else None
                               for t in roots])
        rec["leaves"] = [_array(t) for t in leaves]
        leaf_values = {id(t): value for t, value in zip(leaves, rec["leaves"], strict=True)}
        names = self.parameter_names() if self.modules else {}
        rec["names"] = [names.get(id(t)) for t in leaves]
        targets = leaves if api != "autograd.grad" else inputs_of_grad(*args, **kwargs)
        rec["grad_names"] = [names.get(id(t)) for t in targets]
        rec["params"] = {}
        handles = []
        for node in nodes:
            name = node.name()

            def pre_hook(grad_outputs, name=name):
                rec["order"].append(name)
            handles.append(node.register_prehook(pre_hook))
        self.records.append(rec)
        try:
            result, grads = run_and_grads(fn, args, kwargs, leaves)
            rec["grads"] = [None if g is None else _array(g) for g in grads]
            reached = {id(t): (t, g) for t, g in zip(targets, rec["grads"], strict=False)}
            for param_id, name in names.items():  # per parameter, in named_parameters order: value, gradient
                if param_id in reached:
                    t, g = reached[param_id]
                    value = leaf_values.get(id(t))  # the leaf's recorded array: one copy, pickled once
                    rec["params"][name] = (_array(t) if value is None else value, g)
            return result
        except Exception as err:
            rec["error"] = (type(err).__name__, str(err))
            raise
        finally:
            for h in handles:
                h.remove()


def _install_recorder(torch, script):
    recorder = _Recorder(torch, script)

    def tensors(x):
        return [x] if isinstance(x, torch.Tensor) else list(x)

    def run_backward(fn, args, kwargs, leaves):
        result = fn(*args, **kwargs)
        return result, [t.grad for t in leaves]

    def run_grad(fn, args, kwargs, leaves):
        result = fn(*args, **kwargs)
        return result, list(result)

    recorder.track_modules()
    torch.Tensor.backward = recorder.wrap("Tensor.backward", torch.Tensor.backward,
                                          lambda self, *a, **k: [self], run_backward)
    torch.autograd.backward = recorder.wrap("autograd.backward", torch.autograd.backward,
                                            lambda tensors_, *a, **k: tensors(tensors_), run_backward)
    torch.autograd.grad = recorder.wrap("autograd.grad", torch.autograd.grad,
                                        lambda outputs, *a, **k: tensors(outputs), run_grad)
    return recorder


def child_main(argv):
    backend, record_path, script, *script_args = argv
    if backend == "torchlite":
        torch = _install_torchlite_as_torch()
    else:
        import torch  # the real one, in the child that runs under it: torchlite does not depend on torch
    recorder = _install_recorder(torch, script)
    sys.argv = [script, *script_args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    outcome = None
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as exit_:
        if exit_.code not in (None, 0):
            outcome = ("SystemExit", str(exit_.code))
    except BaseException as err:  # the script's own failure is part of what is compared
        traceback.print_exc()
        outcome = (type(err).__name__, str(err))
    finally:
        with open(record_path, "wb") as f:
            pickle.dump({"records": recorder.records, "outcome": outcome,
                         "version": getattr(torch, "__version__", None)}, f)
    return 0


# ---------------------------------------------------------------------------------------------
# The parent: runs both children and compares what they recorded.

def _run_children(script, script_args, backends):
    procs = {}
    with tempfile.TemporaryDirectory(prefix="torchlite-compare-") as tmp:
        for backend in backends:
            path = os.path.join(tmp, backend + ".pkl")
            cmd = [sys.executable, "-m", "torchlite._compare", backend, path, script, *script_args]
            procs[backend] = (path, subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                                     text=True, cwd=os.getcwd()))
        runs = {}
        for backend, (path, proc) in procs.items():
            output, _ = proc.communicate()
            if os.path.exists(path):
                with open(path, "rb") as f:
                    runs[backend] = pickle.load(f)
            else:  # the child died before writing (e.g. it could not import the backend)
                last_line = (output.strip().splitlines() or ["no output"])[-1]
                runs[backend] = {"records": [], "outcome": ("ChildFailed", last_line), "version": None}
            runs[backend]["output"] = output
    return runs


def _torch_available():
    return importlib.util.find_spec("torch") is not None


def _close(a, b, rtol, atol):
    return a.shape == b.shape and np.allclose(a.astype(np.float64), b.astype(np.float64), rtol=rtol, atol=atol,
                                              equal_nan=True)


def _max_diff(a, b):
    if a.shape != b.shape:
        return f"shapes {list(a.shape)} and {list(b.shape)}"
    return f"max abs difference {np.max(np.abs(a.astype(np.float64) - b.astype(np.float64))):.3g}"


def _compare_values(kind, xs, ys, rtol, atol, names=None):
    """The differences between two lists of arrays (None allowed), one line
    each; an item is called by its parameter name where `names` has one."""
    if len(xs) != len(ys):
        return [f"torch has {len(xs)} {kind}s, torchlite {len(ys)}"]
    lines = []
    for i, (x, y) in enumerate(zip(xs, ys, strict=True)):
        label = names[i] if names and i < len(names) and names[i] is not None else f"{kind} {i}"
        if x is None or y is None:
            if (x is None) != (y is None):
                lines.append(f"{label}: " + ("None under torch, a tensor under torchlite" if x is None
                                             else "a tensor under torch, None under torchlite"))
        elif not _close(x, y, rtol, atol):
            lines.append(f"{label} (shape {list(x.shape)}): {_max_diff(x, y)}")
    return lines


def _differences(a, b):
    """(max abs difference, max abs difference / max |a|) of two arrays of one shape."""
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    both_nan = np.isnan(a64) & np.isnan(b64)
    diff = np.where(both_nan, 0.0, np.abs(a64 - b64))
    biggest = float(np.max(diff)) if diff.size else 0.0
    scale = float(np.nanmax(np.abs(a64))) if a64.size and not np.all(np.isnan(a64)) else 0.0
    rel = 0.0 if biggest == 0 else (biggest / scale if scale > 0 else float("inf"))
    return biggest, rel


def parameter_table(x, y, rtol, atol):
    """Per parameter (by its `named_parameters` name) that one backward
    reached, under torch (x) and torchlite (y): the difference of its values
    before the backward, and of its gradients after it (max abs, and max
    abs over the largest |torch gradient|), as table lines; [] when the
    backward reached no module's parameter."""
    px, py = x.get("params", {}), y.get("params", {})
    if not px and not py:
        return []
    rows = [("parameter", "shape", "value diff", "grad max abs diff", "grad max rel diff", "")]
    inputs_differ = any(name in py and px[name][0].shape == py[name][0].shape
                        and not _close(px[name][0], py[name][0], rtol, atol) for name in px)
    for name in list(px) + [n for n in py if n not in px]:
        if name not in px or name not in py:
            (value, _), = [v[name] for v in (px, py) if name in v]
            rows.append((name, str(list(value.shape)), "", "", "",
                         "only under " + ("torch" if name in px else "torchlite")))
            continue
        (vx, gx), (vy, gy) = px[name], py[name]
        notes = []
        if vx.shape != vy.shape:
            rows.append((name, f"{list(vx.shape)} / {list(vy.shape)}", "", "", "", "shapes differ"))
            continue
        value_diff = f"{_differences(vx, vy)[0]:.3g}"
        if not _close(vx, vy, rtol, atol):
            notes.append("values differ")
        if gx is None or gy is None:
            grad_abs = grad_rel = "None" if gx is None and gy is None else "-"
            if (gx is None) != (gy is None):
                notes.append("gradient None under " + ("torch" if gx is None else "torchlite"))
        elif gx.shape != gy.shape:
            grad_abs = grad_rel = "-"
            notes.append(f"gradient shapes {list(gx.shape)} and {list(gy.shape)}")
        else:
            biggest, rel = _differences(gx, gy)
            grad_abs, grad_rel = f"{biggest:.3g}", f"{rel:.3g}"
            if not _close(gx, gy, rtol, atol):
                notes.append("gradients differ" + (" (from other parameter values)" if inputs_differ else ""))
        rows.append((name, str(list(vx.shape)), value_diff, grad_abs, grad_rel, "; ".join(notes)))
    widths = [max(len(row[c]) for row in rows) for c in range(5)]
    return ["  ".join(cell.ljust(w) for cell, w in zip(row[:5], widths, strict=True)).rstrip()
            + (f"  <- {row[5]}" if row[5] else "") for row in rows]


def compare_records(a, b, rtol, atol):
    """Per backward call: (title, [difference lines]); the lines are empty
    where the call behaved the same."""
    results = []
    for k in range(max(len(a), len(b))):
        if k >= len(a) or k >= len(b):
            present, ran = (b[k], "torchlite") if k >= len(a) else (a[k], "torch")
            results.append((f"backward #{k + 1} ({present['api']} at {present['where']})",
                            [f"only {ran} ran this backward"]))
            continue
        x, y = a[k], b[k]
        title = f"backward #{k + 1} ({x['api']} at {x['where']})"
        diffs = []
        if (x["api"], x["where"]) != (y["api"], y["where"]):
            diffs.append(f"torchlite ran {y['api']} at {y['where']} instead")
        inputs = _compare_values("leaf", x["leaves"], y["leaves"], rtol, atol, x.get("names"))
        if inputs:
            diffs.append("inputs differ (the leaves' values; gradients not compared): " + "; ".join(inputs))
        else:
            forward = _compare_values("root", x["roots"], y["roots"], rtol, atol)
            if forward:
                diffs.append("roots differ although the leaves are equal (a forward difference, or inputs "
                             "that do not require grad differ; gradients not compared): " + "; ".join(forward))
            elif x["error"] is None and y["error"] is None:
                grads = _compare_values("gradient", x["grads"], y["grads"], rtol, atol, x.get("grad_names"))
                if grads:
                    diffs.append("gradients differ: " + "; ".join(grads))
        if x["order"] != y["order"]:
            step = next((i for i, (p, q) in enumerate(zip(x["order"], y["order"], strict=False)) if p != q),
                        min(len(x["order"]), len(y["order"])))
            diffs.append(f"execution order differs from step {step}: torch ran {x['order']}, "
                         f"torchlite ran {y['order']}")
        if x["error"] != y["error"]:
            def show(e):
                return "no exception" if e is None else f"{e[0]}: {e[1]}"
            diffs.append(f"exceptions differ: torch raised {show(x['error'])}; torchlite raised {show(y['error'])}")
        results.append((title, diffs))
    return results


def report(runs, script, rtol, atol, out):
    """Writes the report; returns the number of backward calls that differ."""
    t, tl = runs["torch"], runs["torchlite"]
    def named(backend):
        version = runs[backend]["version"]
        return backend if version is None else f"{backend} {version}"
    print(f"compare {script}: {named('torch')} and {named('torchlite')} (rtol={rtol:g}, atol={atol:g})", file=out)
    results = compare_records(t["records"], tl["records"], rtol, atol)
    differing = 0
    for k, (title, diffs) in enumerate(results):
        if diffs:
            differing += 1
            print(f"{title}: differs", file=out)
            for line in diffs:
                print(f"  {line}", file=out)
        else:
            print(f"{title}: same", file=out)
        if k < len(t["records"]) and k < len(tl["records"]):
            for line in parameter_table(t["records"][k], tl["records"][k], rtol, atol):
                print(f"    {line}", file=out)
    if t["outcome"] != tl["outcome"]:
        differing += 1
        def show(o):
            return "finished" if o is None else f"raised {o[0]}: {o[1]}"
        print(f"the script differs: under torch it {show(t['outcome'])}; under torchlite it "
              f"{show(tl['outcome'])}", file=out)
    print(f"{len(results)} backward calls, {differing} with differences" if differing
          else f"{len(results)} backward calls, no differences", file=out)
    return differing


def report_torchlite_only(run, script, out):
    """Without torch: what torchlite's run recorded, per backward call."""
    print(f"compare {script}: torch is not installed (pip install torch), so nothing is compared; "
          f"the backward calls under torchlite:", file=out)
    for k, rec in enumerate(run["records"]):
        error = "" if rec["error"] is None else f"; raised {rec['error'][0]}: {rec['error'][1]}"
        params = f"; parameters {', '.join(rec['params'])}" if rec.get("params") else ""
        print(f"backward #{k + 1} ({rec['api']} at {rec['where']}): {len(rec['leaves'])} leaves, "
              f"ran {rec['order']}{params}{error}", file=out)
    if run["outcome"] is not None:
        print(f"the script raised {run['outcome'][0]}: {run['outcome'][1]}", file=out)
    print(f"{len(run['records'])} backward calls", file=out)


def main(args, out=sys.stdout):
    """`python -m torchlite compare` (args parsed by torchlite.__main__)."""
    if not os.path.isfile(args.script):
        print(f"compare: no such script: {args.script}", file=sys.stderr)
        return 2
    backends = BACKENDS if _torch_available() else ("torchlite",)
    runs = _run_children(args.script, args.args, backends)
    if args.verbose:
        for backend in backends:
            print(f"--- the script's output under {backend} ---\n{runs[backend]['output']}", file=out, end="")
        print("---", file=out)
    if "torch" not in runs:
        report_torchlite_only(runs["torchlite"], args.script, out)
        return 0
    return 1 if report(runs, args.script, args.rtol, args.atol, out) else 0


if __name__ == "__main__":
    sys.exit(child_main(sys.argv[1:]))
