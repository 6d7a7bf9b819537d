"""Differential fuzzer: random programs run under torch and torchlite, compared step by step.

    python tests/fuzz/run_fuzz.py --seeds 0:200 [--jobs 2] [--ops-min 5 --ops-max 60] [--report FILE]
    python tests/fuzz/run_fuzz.py --show SEED        # the program of SEED as a runnable script
    python tests/fuzz/run_fuzz.py --table 2 --seeds 0:200   # programs that also use ops2.OPS2
    python tests/fuzz/run_fuzz.py --minimize SEED    # its smallest program with the same difference

Exit status 1 iff some seed shows a semantic difference (see fuzzlib.SEMANTIC).
"""
import argparse
import json
import multiprocessing as mp
import os
import re
import sys
import time
import traceback
from collections import Counter, defaultdict
from multiprocessing.connection import wait

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
for _p in (HERE, ROOT):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import fuzzlib  # noqa: E402

PHASES = {0: "idle", 1: "generating", 2: "running under torch", 3: "running under torchlite", 4: "comparing"}


# The worker side ---------------------------------------------------------------------

def run_pair(steps, phase=None, lite=None, ignore=()):
    """Runs `steps` under torch and torchlite (or `lite`, a stand-in module or a module's name);
    returns the differences."""
    import importlib

    import torch
    if lite is None or isinstance(lite, str):
        lite = importlib.import_module(lite or os.environ.get("FUZZ_AGAINST", "torchlite"))
    if phase is not None:
        phase.value = 2
    trace_a = fuzzlib.execute(torch, steps)
    if phase is not None:
        phase.value = 3
    trace_b = fuzzlib.execute(lite, steps)
    if phase is not None:
        phase.value = 4
    return fuzzlib.reclassify_rounding(steps, fuzzlib.compare(steps, trace_a, trace_b, ignore), torch, lite)


def raising_steps(steps):
    """The indices of the steps that raise under torch or torchlite."""
    import importlib

    import torch
    out = set()
    for lib in (torch, importlib.import_module(os.environ.get("FUZZ_AGAINST", "torchlite"))):
        trace, _ = fuzzlib.execute(lib, steps)
        out |= {i for i, t in enumerate(trace) if t[0][0] == "exc"}
    return out


def do_task(task, phase=None):
    kind = task[0]
    if kind == "gen":
        _, seed, opts = task
        return fuzzlib.generate(seed, **opts)
    if kind == "seed":
        _, seed, opts, ignore = task
        if phase is not None:
            phase.value = 1
        steps = fuzzlib.generate(seed, **opts)
        return {"seed": seed, "n_steps": len(steps), "diffs": [tuple(d) for d in run_pair(steps, phase, None, ignore)]}
    if kind == "steps":
        _, steps, ignore = task
        return {"diffs": [tuple(d) for d in run_pair(steps, phase, None, ignore)]}
    if kind == "raising":
        return raising_steps(task[1])
    raise ValueError(kind)


def worker_main(conn, phase):
    import warnings
    warnings.filterwarnings("ignore")
    import importlib

    import torch  # noqa: F401 - imported once per worker, before the first task
    importlib.import_module(os.environ.get("FUZZ_AGAINST", "torchlite"))
    conn.send("ready")  # a task's time limit starts after the imports
    while True:
        try:
            task = conn.recv()
        except EOFError:
            return
        try:
            result = ("ok", do_task(task, phase))
        except Exception:  # the harness's own failure: reported for this task, the worker goes on
            result = ("error", traceback.format_exc())
        phase.value = 0
        conn.send(result)


class Pool:
    """Worker processes with a per-task time limit: a task that kills its worker
    (a segfault) or runs past the limit is reported, and the worker replaced."""

    def __init__(self, jobs, timeout):
        self.ctx = mp.get_context("spawn")
        self.timeout = timeout
        self.workers = [self._start() for _ in range(jobs)]
        for w in self.workers:
            self._wait_ready(w)

    @staticmethod
    def _wait_ready(w):
        if not w["conn"].poll(300) or w["conn"].recv() != "ready":
            raise RuntimeError("a fuzz worker did not start")

    def _start(self):
        parent, child = self.ctx.Pipe()
        phase = self.ctx.Value("i", 0, lock=False)
        proc = self.ctx.Process(target=worker_main, args=(child, phase), daemon=True)
        proc.start()
        child.close()
        return {"proc": proc, "conn": parent, "phase": phase, "task": None, "since": None}

    def _replace(self, w):
        if w["proc"].is_alive():
            w["proc"].kill()
        w["proc"].join()
        w["conn"].close()
        i = self.workers.index(w)
        self.workers[i] = self._start()
        self._wait_ready(self.workers[i])

    def map(self, tasks):
        """Yields (task, status, result) as tasks finish: status is ok, error, crash or hang."""
        tasks = list(tasks)[::-1]
        busy = 0
        while tasks or busy:
            for w in self.workers:
                if w["task"] is None and tasks:
                    w["task"], w["since"] = tasks.pop(), time.monotonic()
                    w["conn"].send(w["task"])
                    busy += 1
            ready = wait([w["conn"] for w in self.workers if w["task"] is not None], timeout=0.5)
            for w in list(self.workers):
                if w["task"] is None:
                    continue
                task = w["task"]
                if w["conn"] in ready:
                    try:
                        status, result = w["conn"].recv()
                    except (EOFError, OSError):
                        w["proc"].join(1)
                        status, result = "crash", (f"worker died (exit code {w['proc'].exitcode}) while "
                                                   f"{PHASES.get(w['phase'].value, '?')}")
                        self._replace(w)
                        w = None
                    if w is not None:
                        w["task"] = None
                    busy -= 1
                    yield task, status, result
                elif time.monotonic() - w["since"] > self.timeout:
                    status, result = "hang", (f"no result after {self.timeout} s while "
                                              f"{PHASES.get(w['phase'].value, '?')}")
                    self._replace(w)
                    busy -= 1
                    yield task, status, result

    def run(self, task):
        for _, status, result in self.map([task]):
            return status, result

    def close(self):
        for w in self.workers:
            w["conn"].close()
            w["proc"].kill()
            w["proc"].join()


# Results -----------------------------------------------------------------------------

def as_diffs(status, result):
    """The differences of a finished task, a crash, hang or harness error being one."""
    if status == "ok":
        return [fuzzlib.Diff(*d) for d in result["diffs"]]
    category = {"error": "harness-error", "crash": "crash", "hang": "hang"}[status]
    if status in ("crash", "hang") and result.endswith((PHASES[1], PHASES[2])):
        category = "oracle-" + status  # torch itself failed: the seed tests nothing
    return [fuzzlib.Diff(category, -1, "?", result)]


def group_key(d):
    """Differences with the same key most likely share a root cause."""
    detail = re.sub(r"\bv\d+\b", "v", d.detail)
    detail = re.sub(r"\[[-\d., e+naif]*\]", "[..]", detail)
    detail = re.sub(r"-?\d+(\.\d+)?", "N", detail)
    return d.category, d.op, detail[:160]


def summarize(results, out=sys.stdout, examples=3):
    by_cat_seeds, by_cat = defaultdict(set), Counter()
    groups = defaultdict(list)
    for seed, diffs in results.items():
        for d in diffs:
            by_cat[d.category] += 1
            by_cat_seeds[d.category].add(seed)
            groups[group_key(d)].append((seed, d))
    print("differences by category (seeds, occurrences):", file=out)
    for cat in fuzzlib.SEMANTIC + fuzzlib.NON_FAILING:
        if by_cat[cat]:
            kind = "semantic" if cat in fuzzlib.SEMANTIC else "listed only"
            print(f"  {cat:16s} {len(by_cat_seeds[cat]):6d} seeds {by_cat[cat]:7d}  ({kind})", file=out)
    for title, cats in (("semantic", fuzzlib.SEMANTIC),
                        ("wording-only and warnings (do not fail)", fuzzlib.NON_FAILING)):
        sel = sorted(((k, v) for k, v in groups.items() if k[0] in cats),
                     key=lambda kv: -len({s for s, _ in kv[1]}))
        if not sel:
            continue
        print(f"\n{title} differences, grouped ({len(sel)} groups):", file=out)
        for (cat, op, _), items in sel:
            seeds = sorted({s for s, _ in items})
            print(f"- [{cat}] op={op}: {len(seeds)} seeds, e.g. {seeds[:examples]}", file=out)
            print(f"    {items[0][1].detail[:400]}", file=out)


def run_seeds(args):
    opts = _opts(args)
    start, stop = (int(x) for x in args.seeds.split(":"))
    pool = Pool(args.jobs, args.timeout)
    results = {}
    report = open(args.report, "w") if args.report else None
    t0 = time.monotonic()
    try:
        for task, status, result in pool.map(("seed", s, opts, tuple(args.ignore)) for s in range(start, stop)):
            seed = task[1]
            diffs = as_diffs(status, result)
            results[seed] = diffs
            if report:
                report.write(json.dumps({"seed": seed, "status": status,
                                         "diffs": [d._asdict() for d in diffs]}) + "\n")
            if args.verbose and fuzzlib.semantic(diffs):
                print(f"seed {seed}: {fuzzlib.semantic(diffs)[0]}", flush=True)
    finally:
        pool.close()
        if report:
            report.close()
    elapsed = time.monotonic() - t0
    summarize(results)
    known = read_known(args.known) if args.known else {}
    failing = {seed for seed, diffs in results.items() if fuzzlib.semantic(diffs)}
    still_known = failing & set(known)
    failed = len(failing - still_known)
    print(f"\n{len(results)} seeds in {elapsed:.1f} s ({len(results) / elapsed:.1f} seeds/s, {args.jobs} jobs)")
    if args.known:
        fixed = sorted(s for s in known if s in results and s not in failing)
        print(f"{len(still_known)} known differences ({args.known}) not counted; "
              f"{len(fixed)} listed seeds now match torch{': remove ' + str(fixed) if fixed else ''}")
    print(f"fuzz: {len(results) - len(failing)} passed, {failed} failed" +
          (f", {len(still_known)} skipped" if args.known else ""))
    return 1 if failed else 0


def read_known(path):
    """Seeds with a known, still open semantic difference: one per line, `SEED  # why`."""
    known = {}
    with open(path) as f:
        for line in f:
            text = line.split("#", 1)
            if text[0].strip():
                known[int(text[0])] = text[1].strip() if len(text) > 1 else ""
    return known


def show(args):
    pool = Pool(1, args.timeout)
    try:
        status, steps = pool.run(("gen", args.show, _opts(args)))
        if status != "ok":
            print(f"generation failed ({status}): {steps}")
            return 2
        status, raising = pool.run(("raising", steps))
        print(fuzzlib.script(steps, note=f"seed {args.show}", raising=raising if status == "ok" else ()), end="")
        return 0
    finally:
        pool.close()


def _opts(args):
    return dict(ops_min=args.ops_min, ops_max=args.ops_max, exclude=tuple(args.exclude_ops),
                include_pending=args.include_pending, table=args.table)


def minimize_seed(seed, args, pool=None, out=sys.stdout):
    own = pool is None
    pool = pool or Pool(1, args.timeout)
    try:
        status, steps = pool.run(("gen", seed, _opts(args)))
        if status != "ok":
            print(f"generation failed ({status}): {steps}", file=out)
            return None
        ignore = tuple(args.ignore)
        status, result = pool.run(("steps", steps, ignore))
        target = fuzzlib.signature(as_diffs(status, result), args.target, args.match)
        if target is None:
            print(f"# seed {seed}: no semantic difference", file=out)
            return None

        def still_fails(candidate):
            s, r = pool.run(("steps", candidate, ignore))
            return fuzzlib.signature(as_diffs(s, r), args.target, args.match) == target

        small = fuzzlib.renumber(fuzzlib.minimize(steps, still_fails))
        s, r = pool.run(("steps", small, ignore))
        diffs = [d for d in fuzzlib.semantic(as_diffs(s, r)) if (d.category, d.op) == target
                 and (args.match is None or re.search(args.match, d.detail))]
        note = (f"seed {seed}, minimized from {len(steps)} to {len(small)} steps\n"
                f"difference: [{diffs[0].category}] at step {diffs[0].step} ({diffs[0].op}): {diffs[0].detail[:600]}")
        status, raising = pool.run(("raising", small))
        print(fuzzlib.script(small, note=note, raising=raising if status == "ok" else ()), end="", file=out)
        return small, diffs
    finally:
        if own:
            pool.close()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", default="0:100", help="START:STOP (STOP excluded)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--ops-min", type=int, default=5)
    ap.add_argument("--ops-max", type=int, default=60)
    ap.add_argument("--exclude-ops", nargs="*", default=[], help="op names (see ops.py) the generator leaves out")
    ap.add_argument("--table", type=int, choices=(1, 2), default=1,
                    help="1: programs over ops.OPS (a seed's program never changes); "
                         "2: over ops.OPS and ops2.OPS2, the ops added since")
    ap.add_argument("--against", default="torchlite", metavar="MODULE",
                    help="the module compared with torch (--against torch checks the harness: no difference)")
    ap.add_argument("--include-pending", action="store_true",
                    help="also generate the ops torchlite does not have yet (ops.PENDING)")
    ap.add_argument("--ignore", nargs="*", default=[], metavar="CATEGORY",
                    help="difference categories to leave out (to look past a known one)")
    ap.add_argument("--target", metavar="CATEGORY", help="--minimize: keep the first difference of this category")
    ap.add_argument("--match", metavar="REGEX", help="--minimize: ... whose detail matches REGEX")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per program")
    ap.add_argument("--report", help="write one JSON line per seed here")
    ap.add_argument("--known", metavar="FILE",
                    help="seeds with a known open difference (one per line): reported, not counted as failed")
    ap.add_argument("--show", type=int, metavar="SEED")
    ap.add_argument("--minimize", type=int, metavar="SEED")
    ap.add_argument("-v", "--verbose", action="store_true", help="print each failing seed as it comes")
    args = ap.parse_args(argv)
    os.environ["FUZZ_AGAINST"] = args.against  # read by the workers
    if args.show is not None:
        return show(args)
    if args.minimize is not None:
        return 0 if minimize_seed(args.minimize, args) is not None else 1
    return run_seeds(args)


if __name__ == "__main__":
    sys.exit(main())
