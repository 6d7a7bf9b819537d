"""bench/run.py's workloads run, in a tiny configuration (--quick): issue 15's model training steps
(cnn, lstm, gpt) and issue 16's rows (fwd_chain, fwd_lattice, fwd_tanh, free_tanh, bwd_mem, graph_mem,
wide, threads4), as `python bench/run.py` prints them (torchlite beside torch, with the numpy floor
where a row has one, and the ratios) and as a --baseline child measures them (torchlite alone). No
figure is asserted: only that every row runs and reports what it should."""
import importlib.util
import math
import os
import re
import runpy
import sys

import pytest

import torchlite

from diff_utils import import_torch

torch = import_torch()

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUN = os.path.join(ROOT, "bench", "run.py")

NEW = ["fwd_chain", "fwd_lattice", "fwd_tanh", "free_tanh", "bwd_mem", "graph_mem", "wide", "threads4",
       "cnn", "lstm", "gpt"]
WITH_FLOOR = ["fwd_chain", "fwd_lattice", "fwd_tanh", "wide"]


@pytest.fixture(scope="module")
def bench():
    """bench/run.py as a module, in --quick mode; torch's thread count and the environment as they were."""
    threads, env = torch.get_num_threads(), dict(os.environ)
    spec = importlib.util.spec_from_file_location("torchlite_bench_run", RUN)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.QUICK = True
    yield mod
    torch.set_num_threads(threads)
    os.environ.clear()
    os.environ.update(env)


def test_groups_name_the_new_workloads(bench):
    assert bench.expand(["issue16", "models"]) == NEW
    assert bench.expand(["cnn", "models", "chain"]) == ["cnn", "lstm", "gpt", "chain"]
    assert set(NEW) <= set(bench.QUICK_ARGS) and set(NEW) <= set(bench.TITLES)
    assert not set(NEW) & set(bench.WORKLOADS)  # named groups, not the default set


@pytest.mark.parametrize("workload", NEW)
def test_baseline_metrics(bench, workload):
    """What one --baseline round measures of a tree: torchlite alone, each metric a number."""
    metrics = bench.torchlite_metrics(workload)
    expected = {"threads4": {"serial", "threaded", "scaling"}, "bwd_mem": {"bytes per node"},
                "graph_mem": {"bytes per node"}}.get(workload, {bench.TIMED.get(workload, (0, 0, None))[2]})
    assert set(metrics) == expected
    for metric, v in metrics.items():
        assert isinstance(v, float) and math.isfinite(v), (metric, v)
        if "bytes" not in metric:
            assert v > 0, (metric, v)


def test_compare_trees_new_rows(bench, capsys):
    """--baseline's alternation on a new row (this tree against itself, one round): the child loads
    bench/models.py beside run.py and measures the torchlite PYTHONPATH names."""
    # the tree of the torchlite this test imports (an installed one's site-packages included), as
    # the other subprocess tests do
    tree = os.path.dirname(os.path.dirname(os.path.realpath(torchlite.__file__)))
    figures = bench.compare_trees("gpt", {"current": tree, "baseline": tree}, 1)
    assert list(figures) == ["per step"], figures
    assert len(figures["per step"]["current"]) == len(figures["per step"]["baseline"]) == 1
    bench.report_comparison(bench.TITLES["gpt"], figures, 1)
    assert "per step: current/baseline = " in capsys.readouterr().out


def test_quick_run_prints_every_new_row(bench, monkeypatch, capsys):
    """`python bench/run.py --quick issue16 models` (main() in this process; the memory rows' fresh
    processes are real)."""
    monkeypatch.setattr(sys, "argv", [RUN, "--quick", "issue16", "models"])
    bench.main()
    out = capsys.readouterr().out
    blocks = {}
    for block in out.split("\n\n")[1:]:
        title, _, body = block.partition("\n")
        blocks[title] = body.rstrip("\n")
    assert len(blocks) == len(NEW)  # one block per workload
    assert set(blocks) == {bench.TITLES[w] + (" (median)" if w in bench.TIMED else "") for w in NEW}
    ratio = r"\d+\.\d\dx"
    for title, body in blocks.items():
        if title.startswith(("forward per op", "backward per leaf")):
            # torchlite, torch, numpy; torchlite/torch and torchlite/numpy
            assert re.search(rf"torchlite\s+torch\s+numpy\s+torchlite/torch\s+torchlite/numpy\n.*us.*us.*us\s+"
                             rf"{ratio}\s+{ratio}$", body), (title, body)
        elif title.startswith(("free the", "CNN", "LSTM", "GPT")):
            assert re.search(rf"torchlite\s+torch\s+torchlite/torch\n.*s\s+.*s\s+{ratio}$", body), (title, body)
        elif title.startswith(("backward's extra memory", "graph memory")):
            assert re.search(rf"torchlite=-?\d+\.\d B/node\s+torch=-?\d+\.\d B/node\s+torchlite/torch=-?{ratio}$",
                             body), (title, body)
        else:
            assert title.startswith("4 threads"), title
            for name in ("torchlite", "torch"):
                assert re.search(rf"{name}: serial .* ms\s+4 threads .* ms\s+throughput 4 threads / 1 thread "
                                 rf"{ratio}", body), body
    assert sum(t.startswith(("forward per op", "backward per leaf")) for t in blocks) == len(WITH_FLOOR)


def test_unknown_workload_is_refused(bench, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", [RUN, "nosuch"])
    with pytest.raises(SystemExit) as exc:
        bench.main()
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "unknown workload(s) nosuch" in err and "issue16" in err and "models" in err


def test_loss_curves_script(monkeypatch, capsys):
    """`python bench/loss_curves.py --steps 2` (in this process)."""
    threads = torch.get_num_threads()
    monkeypatch.setattr(sys, "argv", ["loss_curves.py", "--steps", "2"])
    monkeypatch.setattr(sys, "path", list(sys.path))
    try:
        runpy.run_path(os.path.join(ROOT, "bench", "loss_curves.py"), run_name="__main__")
    finally:
        torch.set_num_threads(threads)
    out = capsys.readouterr().out
    for name in ("cnn", "lstm", "gpt"):
        assert f"\n{name}: " in out
    assert len(re.findall(r"^ +1 +\d", out, re.MULTILINE)) == 3  # step 1 of each curve
    worst = [float(w) for w in re.findall(r"largest relative difference: (\S+)", out)]
    assert len(worst) == 3 and all(w < 1e-6 for w in worst), out
