"""The differential fuzzer's core: the program IR, the generator, the
interpreter, observations and their comparison, script printing and the
minimizer. The op table lives in ops.py.

A program is a list of Steps. A Step renders to one line of Python over
variables v0, v1, ... and a module bound to `lib`; the interpreter runs the
same lines once with `lib = torch` and once with `lib = torchlite` and
records an observation after each line, so a printed program is exactly what
ran. The generator runs each line under torch as it goes to learn the shapes,
dtypes and flags of the variables it picks arguments from; a program depends
only on its seed, the options and torch's behaviour (torch is the oracle).
"""
import re
import warnings
from collections import namedtuple

import numpy as np

# One line of a program. `fmt` uses {0}, {1}, ... for the variables in `ins`
# and {out} for the variable it defines (out is None when it defines none).
Step = namedtuple("Step", "op out fmt ins")

_VAR = re.compile(r"\bv\d+\b")


def render(step):
    return step.fmt.format(*step.ins, out=step.out)


# The prelude: helpers every program may use, run before the first line in both
# libraries (and printed at the top of every script).
PRELUDE = '''\
import numpy as np
LOG = []


def _data(seed, shape, dtype):
    """The input array of a leaf: the same values on every machine."""
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return np.asarray(rng.random(shape) < 0.5)
    if dtype == "int64":
        return np.asarray(rng.integers(-3, 4, size=shape), dtype=np.int64)
    a = rng.standard_normal(shape)
    if rng.random() < 0.3:  # exact zeros and ones, where formulas have edge cases
        a = np.where(rng.random(shape) < 0.3, rng.integers(0, 2, size=shape), a)
    return np.asarray(np.round(a, 3), dtype=dtype)
'''

# Helpers a line may use (printed in a script only when its lines use them).
PRELUDE_HELPERS = {
    "_rec": '''

def _rec(name, t):
    """A hook's observation: appended to LOG, compared between the libraries."""
    LOG.append((name, t))
''',
    "Square": '''

class Square(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return 2 * x * g
'''}


def new_namespace(lib):
    ns = {"lib": lib, "__name__": "fuzzprog"}
    exec(compile(PRELUDE + "".join(PRELUDE_HELPERS.values()), "<prelude>", "exec"), ns)
    return ns


_code_cache = {}


def _compile(line):
    code = _code_cache.get(line)
    if code is None:
        if len(_code_cache) > 20000:
            _code_cache.clear()
        code = _code_cache[line] = compile(line, "<fuzz>", "exec")
    return code


# Observations -----------------------------------------------------------------------
# An observation is plain data (numpy arrays, strings, tuples), so the two runs
# can be compared after the fact and sent between processes.

def _is_tensor(x):
    return type(x).__name__ in ("Tensor", "Parameter") and hasattr(type(x), "grad_fn")


def _node_name(fn):
    if fn is None:
        return None, None
    return fn.name(), type(fn).__name__


def observe_tensor(t):
    name, cls = _node_name(t.grad_fn)
    values = np.array(t.detach().numpy(), copy=True)
    return ("T", tuple(t.shape), str(t.dtype).rsplit(".", 1)[-1], values, bool(t.requires_grad),
            bool(t.is_leaf), name, cls)


def observe(x, depth=0):
    if _is_tensor(x):
        return observe_tensor(x)
    if x is None or isinstance(x, (bool, int, float, str)):
        return ("py", type(x).__name__, x)
    if isinstance(x, (tuple, list)) and depth < 3:
        return ("seq", tuple(observe(e, depth + 1) for e in x))
    if type(x).__name__ == "RemovableHandle":
        return ("handle",)
    return ("obj", type(x).__name__)


def _words(msg):
    """A message as the project compares them (tests/python/diff_utils.py): torchlite's
    qualified names (torchlite.Size) as torch's, torch's "(Triggered internally at ...)" suffix dropped."""
    return re.sub(r" \(Triggered internally at .*\)$", "", re.sub(r"\btorchlite\.", "torch.", msg))


def observe_exc(e):
    return ("exc", type(e).__name__, _words(str(e)))


# The interpreter ---------------------------------------------------------------------

def run_line(ns, step):
    """Runs one step; returns (observation of the result or the exception, warnings)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            exec(_compile(render(step)), ns)
            result = observe(ns.get(step.out)) if step.out else ("py", "NoneType", None)
        except Exception as e:  # the program's own error is an observation
            if step.out:
                ns.pop(step.out, None)
            result = observe_exc(e)
    warns = tuple(sorted({(w.category.__name__, _words(str(w.message))) for w in caught}))
    return result, warns


def _touched(ns, step):
    """Observations of the tensors a step read (in-place ops change them)."""
    out = []
    for v in dict.fromkeys(step.ins):
        x = ns.get(v)
        if _is_tensor(x):
            try:
                out.append((v, observe_tensor(x)))
            except Exception as e:
                out.append((v, observe_exc(e)))
    return tuple(out)


def _observe_grad(t):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return observe(t.grad)


def final_state(ns):
    """At the end: every tensor variable, its .grad where torch keeps one, and the hooks' log."""
    state = []
    for k in sorted((k for k in ns if _VAR.fullmatch(k)), key=lambda k: int(k[1:])):
        x = ns[k]
        if not _is_tensor(x):
            continue
        try:
            obs = observe_tensor(x)
            grad = _observe_grad(x) if (x.is_leaf or x.retains_grad) else None
        except Exception as e:
            obs, grad = observe_exc(e), None
        state.append((k, obs, grad))
    log = tuple((name, observe(t)) for name, t in ns["LOG"])
    return tuple(state), log


def execute(lib, steps):
    """Runs a program; returns its trace: one (result, warnings, touched, log) per step, then the final state."""
    ns = new_namespace(lib)
    trace = []
    for step in steps:
        n_log = len(ns["LOG"])
        result, warns = run_line(ns, step)
        log = tuple((name, observe(t)) for name, t in ns["LOG"][n_log:])
        trace.append((result, warns, _touched(ns, step), log))
    return trace, final_state(ns)


# Comparison --------------------------------------------------------------------------

# Categories that fail a run; the others are listed only.
SEMANTIC = ("raise-mismatch", "exception-type", "value", "shape", "dtype", "requires_grad", "is_leaf",
            "node-name", "node-class", "grad", "hook-log", "kind", "crash", "hang", "harness-error")
# oracle-crash / oracle-hang: torch itself crashed or hung (while generating or running
# the program), so the seed tests nothing; they are listed, and fail nothing.
NON_FAILING = ("message", "warning", "rounding", "oracle-crash", "oracle-hang", "oracle-error")
# Differences after which the two runs may go on comparably: the state is the same.
# After any other semantic difference comparison stops: later steps would only repeat it.
NON_DIVERGING = ("node-name", "node-class", "exception-type") + tuple(c for c in NON_FAILING if c != "oracle-error")

# (rtol, atol relative to the largest magnitude). float64 results are often float32
# values promoted (float32 + float64), so their tolerance is not much tighter.
_TOL = {"float32": (1e-4, 1e-5), "float64": (1e-5, 1e-7)}


def values_close(a, b, dtype):
    if a.shape != b.shape:
        return False
    if dtype not in _TOL:
        return np.array_equal(a, b)
    rtol, atol = _TOL[dtype]
    a = a.astype(np.float64)
    b = b.astype(np.float64)
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    if not np.array_equal(nan_a, nan_b):
        return False
    inf_a, inf_b = np.isinf(a), np.isinf(b)
    if not np.array_equal(a[inf_a], b[inf_b]) or not np.array_equal(inf_a, inf_b):
        return False
    fin = ~(nan_a | nan_b | inf_a | inf_b)
    if not fin.any():
        return True
    scale = max(1.0, float(np.abs(a[fin]).max()))
    return bool(np.all(np.abs(a[fin] - b[fin]) <= atol * scale + rtol * np.abs(a[fin])))


def _short(obs):
    if obs[0] == "T":
        _, shape, dtype, values, rg, leaf, name, _cls = obs
        v = np.array2string(values.ravel()[:6], precision=4, separator=",")
        return f"tensor{list(shape)} {dtype} rg={rg} leaf={leaf} fn={name} {v}"
    if obs[0] == "exc":
        return f"{obs[1]}: {obs[2][:300]}"
    if obs[0] == "seq":
        return "(" + ", ".join(_short(o) for o in obs[1]) + ")"
    return repr(obs[1:])[:200]


def diff_obs(a, b, grad=False):
    """(category, detail) for each difference between torch's observation `a` and torchlite's `b`."""
    if a[0] == "exc" and "INTERNAL ASSERT FAILED" in a[2]:
        # torch's own bug ("please report a bug to PyTorch"): the step tests nothing
        return [("oracle-error", f"torch={_short(a)} | torchlite={_short(b)}")]
    if a[0] == "exc" or b[0] == "exc":
        if a[0] != b[0]:
            who = "torchlite raises, torch does not" if b[0] == "exc" else "torch raises, torchlite does not"
            return [("raise-mismatch", f"{who}: torch={_short(a)} | torchlite={_short(b)}")]
        if a[1] != b[1]:
            return [("exception-type", f"torch={_short(a)} | torchlite={_short(b)}")]
        if a[2] != b[2]:
            return [("message", f"{a[1]}: torch={a[2]!r} | torchlite={b[2]!r}")]
        return []
    if a[0] != b[0]:
        return [("grad" if grad else "kind", f"torch={_short(a)} | torchlite={_short(b)}")]
    if a[0] == "seq":
        if len(a[1]) != len(b[1]):
            return [("kind", f"torch={_short(a)} | torchlite={_short(b)}")]
        return [d for x, y in zip(a[1], b[1], strict=True) for d in diff_obs(x, y, grad)]
    if a[0] != "T":
        if a[0] == "py" and a[1] == b[1] == "float":
            same = values_close(np.array([a[2]]), np.array([b[2]]), "float32")
        else:
            same = a == b
        return [] if same else [("grad" if grad else "value", f"torch={_short(a)} | torchlite={_short(b)}")]
    detail = f"torch={_short(a)} | torchlite={_short(b)}"
    out = []
    if a[1] != b[1]:
        out.append(("shape", detail))
    elif a[2] != b[2]:
        out.append(("dtype", detail))
    elif not values_close(a[3], b[3], a[2]):
        bad = next(i for i in np.ndindex(a[3].shape) if not values_close(a[3][i][None], b[3][i][None], a[2]))
        out.append(("value", f"{detail} (first at {list(bad)}: torch={a[3][bad]!r} torchlite={b[3][bad]!r})"))
    if a[4] != b[4]:
        out.append(("requires_grad", detail))
    if a[5] != b[5]:
        out.append(("is_leaf", detail))
    if a[6] != b[6]:
        out.append(("node-name", f"grad_fn.name(): torch={a[6]} | torchlite={b[6]}"))
    elif a[7] != b[7]:
        out.append(("node-class", f"type(grad_fn).__name__: torch={a[7]} | torchlite={b[7]}"))
    if grad:
        out = [("grad", f"{c}: {d}") if c in ("shape", "dtype", "value") else (c, d) for c, d in out]
    return out


Diff = namedtuple("Diff", "category step op detail")


def compare(steps, trace_a, trace_b, ignore=()):
    """The differences between torch's trace `trace_a` and torchlite's `trace_b`
    (less those of the categories in `ignore`)."""
    diffs = []
    (steps_a, final_a), (steps_b, final_b) = trace_a, trace_b
    for i, (step, sa, sb) in enumerate(zip(steps, steps_a, steps_b, strict=True)):
        found = [Diff(c, i, step.op, d) for c, d in diff_obs(sa[0], sb[0])]
        ta, tb = dict(sa[2]), dict(sb[2])
        for v in ta:
            if v in tb:
                found += [Diff(c, i, step.op, f"{v} after the step: {d}") for c, d in diff_obs(ta[v], tb[v])]
        if len(sa[3]) != len(sb[3]) or any(x[0] != y[0] for x, y in zip(sa[3], sb[3], strict=True)):
            found.append(Diff("hook-log", i, step.op,
                              f"hooks ran torch={[x[0] for x in sa[3]]} | torchlite={[x[0] for x in sb[3]]}"))
        else:
            for x, y in zip(sa[3], sb[3], strict=True):
                found += [Diff("grad", i, step.op, f"hook {x[0]}: {d}") for _, d in diff_obs(x[1], y[1], True)]
        if sa[1] != sb[1]:
            found.append(Diff("warning", i, step.op, f"torch={list(sa[1])} | torchlite={list(sb[1])}"))
        found = [d for d in found if d.category not in ignore]
        diffs += found
        if any(d.category not in NON_DIVERGING for d in found):
            return diffs
    state_a, state_b = dict((k, (o, g)) for k, o, g in final_a[0]), dict((k, (o, g)) for k, o, g in final_b[0])
    for k in state_a:
        if k not in state_b:
            continue
        (oa, ga), (ob, gb) = state_a[k], state_b[k]
        diffs += [Diff(c, len(steps), "end", f"{k}: {d}") for c, d in diff_obs(oa, ob)]
        if ga is not None or gb is not None:
            if ga is None or gb is None:
                diffs.append(Diff("grad", len(steps), "end", f"{k}.grad: torch={ga} | torchlite={gb}"))
            else:
                diffs += [Diff(c, len(steps), "end", f"{k}.grad: {d}") for c, d in diff_obs(ga, gb, True)]
    return [d for d in diffs if d.category not in ignore]


def inherited_rounding(steps, i, torch_mod, lite_mod):
    """Whether the value difference of step i's result only carries on a
    rounding difference of its inputs (last-bit differences of float kernels,
    magnified by the step, e.g. sin of a large product): step i rerun under
    torch on torchlite's input values gives torchlite's result. Such a
    difference is listed as `rounding`, not failed."""
    ns_t, ns_l = new_namespace(torch_mod), new_namespace(lite_mod)
    for step in steps[:i]:
        run_line(ns_t, step)
        run_line(ns_l, step)
    for v in dict.fromkeys(steps[i].ins):
        xt, xl = ns_t.get(v), ns_l.get(v)
        if not (_is_tensor(xt) and _is_tensor(xl)) or tuple(xt.shape) != tuple(xl.shape):
            return False
        values = np.array(xl.detach().numpy(), copy=True)
        if str(xt.dtype).split(".")[-1] != str(values.dtype):
            return False
        try:
            xt.data.copy_(torch_mod.from_numpy(values))  # .data: no version bump for autograd
        except RuntimeError:
            # an input whose elements share memory (an expand, an overlapping unfold) cannot be
            # written element by element: the difference is not shown to be inherited
            return False
    rt, _ = run_line(ns_t, steps[i])
    rl, _ = run_line(ns_l, steps[i])
    return not diff_obs(rt, rl)


def reclassify_rounding(steps, diffs, torch_mod, lite_mod):
    """compare()'s differences with a first semantic one of category `value`
    at a step's own result re-checked by inherited_rounding."""
    first = next((d for d in diffs if d.category in SEMANTIC), None)
    if first is None or first.category != "value" or first.op == "end" or " after the step: " in first.detail:
        return diffs
    if not inherited_rounding(steps, first.step, torch_mod, lite_mod):
        return diffs
    return [d._replace(category="rounding") if d is first else d for d in diffs]


def semantic(diffs):
    return [d for d in diffs if d.category in SEMANTIC]


def signature(diffs, target=None, match=None):
    """What a minimized program must keep showing: the category and op of its first
    semantic difference, or of its first one of category `target` whose detail
    matches the regular expression `match`."""
    sem = [d for d in semantic(diffs) if (target is None or d.category == target)
           and (match is None or re.search(match, d.detail))]
    return (sem[0].category, sem[0].op) if sem else None


# The generator -----------------------------------------------------------------------

Meta = namedtuple("Meta", "shape dtype rg leaf view retains")


class Gen:
    """What an op's argument generator sees: the random stream and the live variables."""

    def __init__(self, rng, ns):
        self.rng = rng
        self.ns = ns
        self.next_var = 0
        self.metas = {}

    def refresh(self):
        self.metas = {}
        for k, x in self.ns.items():
            if _VAR.fullmatch(k) and _is_tensor(x):
                try:
                    self.metas[k] = Meta(tuple(x.shape), str(x.dtype).rsplit(".", 1)[-1], x.requires_grad,
                                         x.is_leaf, x._base is not None, x.retains_grad)
                except RuntimeError:  # torch refuses to say (a view whose base changed in a forbidden way)
                    pass

    # random helpers
    def p(self, prob):
        return self.rng.random() < prob

    def int(self, lo, hi):
        """An integer in [lo, hi]."""
        return int(self.rng.integers(lo, hi + 1))

    def choice(self, seq):
        seq = list(seq)
        return seq[int(self.rng.integers(len(seq)))] if seq else None

    def tensor(self, pred=None, strict=False):
        """A live tensor variable satisfying pred (any one, now and then, unless strict)."""
        names = sorted(self.metas, key=lambda k: int(k[1:]))
        good = [k for k in names if pred is None or pred(self.metas[k])]
        if good and (strict or not self.p(0.05)):
            return self.choice(good)
        return None if strict else self.choice(names)

    def dim(self, ndim, invalid=0.03):
        """A dim of a tensor with `ndim` dims (out of range now and then)."""
        if self.p(invalid) or ndim == 0:
            return self.int(-ndim - 2, ndim + 1) if ndim else self.choice([0, -1, 1])
        return self.int(-ndim, ndim - 1)

    def shape(self, max_ndim=3):
        return tuple(self.int(1, 4) for _ in range(self.int(0, max_ndim)))

    def new_var(self):
        v = f"v{self.next_var}"
        self.next_var += 1
        return v


def is_float(m):
    return m.dtype in ("float32", "float64")


# The share of table 2's programs' op draws that go to ops2.OPS2's entries.
TABLE2_SHARE = 0.4


def generate(seed, ops_min=5, ops_max=60, torch_mod=None, exclude=(), include_pending=False, table=1):
    """The program of `seed`: a list of Steps (ops.PENDING left out unless include_pending).
    Table 1 draws from ops.OPS only, with the random stream it always had, so that a seed
    keeps its program; table 2 draws from ops.OPS and ops2.OPS2 (TABLE2_SHARE of the draws
    for OPS2) with a stream of its own."""
    import torch
    from ops import OPS, PENDING, leaf_step
    from ops2 import OPS2
    if not include_pending:
        exclude = tuple(exclude) + tuple(PENDING)
    torch_mod = torch_mod or torch
    rng = np.random.default_rng([seed, 20261123] if table == 1 else [seed, 20261123, table])
    ns = new_namespace(torch_mod)
    g = Gen(rng, ns)
    ops = [op for op in OPS if op.name not in exclude]
    weights = np.array([op.weight for op in ops], dtype=np.float64)
    weights /= weights.sum()
    if table == 2:
        ops2 = [op for op in OPS2 if op.name not in exclude]
        weights2 = np.array([op.weight for op in ops2], dtype=np.float64)
        weights = np.concatenate([weights * (1 - TABLE2_SHARE), weights2 * (TABLE2_SHARE / weights2.sum())])
        ops += ops2
    elif table != 1:
        raise ValueError(f"no op table {table}")
    table = ops
    n_ops = g.int(ops_min, ops_max)
    steps = []
    n_leaves = g.int(1, 3)
    while len(steps) < n_ops:
        g.refresh()
        if len(steps) < n_leaves or not g.metas:
            step = leaf_step(g)
        else:
            step = None
            for _ in range(30):
                op = table[int(rng.choice(len(table), p=weights))]
                step = op.make(g)
                if step is not None:
                    break
            if step is None:
                step = leaf_step(g)
        run_line(ns, step)
        steps.append(step)
    return steps


# Scripts ------------------------------------------------------------------------------

def script(steps, lib_name="torch", note=None, raising=()):
    """The program as a runnable script; change `lib` to run it under the other library.
    The steps of `raising` (indices) are wrapped in try/except, so that the script runs on."""
    lines = [f"import {lib_name} as lib  # or: import {'torchlite' if lib_name == 'torch' else 'torch'} as lib",
             PRELUDE.rstrip()]
    body = "\n".join(render(s) for s in steps)
    lines += [h.rstrip() for name, h in PRELUDE_HELPERS.items() if name in body] + [""]
    if note:
        lines += ["# " + ln for ln in note.splitlines()]
    for i, s in enumerate(steps):
        if i in raising:
            lines += ["try:", "    " + render(s), "except Exception as e:",
                      f"    print('step {i}:', type(e).__name__, e)"]
        else:
            lines.append(render(s))
    lines += ["",
              "for _k, _v in sorted(((k, v) for k, v in dict(globals()).items() if k[:1] == 'v' and k[1:].isdigit()),",
              "                      key=lambda kv: int(kv[0][1:])):",
              "    if isinstance(_v, lib.Tensor):",
              "        print(_k, _v, _v.grad if (_v.is_leaf or _v.retains_grad) else '')",
              "print('LOG', LOG)" if "_rec" in body else ""]
    return "\n".join(lines) + "\n"


# The minimizer ------------------------------------------------------------------------

def close_deps(steps, keep):
    """The steps of `keep` (indices) whose inputs are all defined by kept steps."""
    defined = set()
    out = []
    for i in sorted(keep):
        s = steps[i]
        if all(v in defined for v in s.ins):
            out.append(i)
            if s.out:
                defined.add(s.out)
    return out


def minimize(steps, still_fails, max_checks=2000):
    """Delta debugging over the steps: a smallest list (1-minimal) for which
    still_fails(list of steps) holds. Removing a step also removes the steps that use what it defined."""
    keep = list(range(len(steps)))
    checks = [0]

    def test(idx):
        idx = close_deps(steps, idx)
        checks[0] += 1
        return idx if still_fails([steps[i] for i in idx]) else None

    n = 2
    while len(keep) >= 2 and checks[0] < max_checks:
        chunk = max(1, len(keep) // n)
        parts = [keep[i:i + chunk] for i in range(0, len(keep), chunk)]
        reduced = False
        for part in parts:
            rest = [i for i in keep if i not in set(part)]
            got = test(rest)
            if got is not None and len(got) < len(keep):
                keep, n, reduced = got, max(n - 1, 2), True
                break
        if not reduced:
            if n >= len(keep):
                break
            n = min(len(keep), n * 2)
    changed = True
    while changed and checks[0] < max_checks:  # one at a time, until nothing more goes
        changed = False
        for i in reversed(keep):
            got = test([j for j in keep if j != i])
            if got is not None and len(got) < len(keep):
                keep, changed = got, True
                break
    return [steps[i] for i in keep]


def renumber(steps):
    """The same program with its variables renamed v0, v1, ... in order of definition."""
    names = {}
    for s in steps:
        if s.out:
            names[s.out] = f"v{len(names)}"
    return [Step(s.op, names.get(s.out), s.fmt, tuple(names.get(v, v) for v in s.ins)) for s in steps]
