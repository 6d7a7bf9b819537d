"""The main job, `python -m torchlite demo`, trains for real: the loss falls
and the held-out accuracy is far above chance (1/3). It writes its output
folder, and each optional package (tqdm, rich, matplotlib) has a fallback,
tested here by hiding the package (sys.modules[name] = None makes its
import fail)."""
import csv
import importlib.util
import io
import json
import re
import shutil
import os
import subprocess
import sys
import types

import pytest

from torchlite import _demo

from diff_utils import import_torch, in_ci


def needs(*modules):
    """The optional packages a test needs (the viz extra, rich, and "dot", Graphviz's program): CI
    installs them, so there a missing one fails the test; elsewhere it skips."""
    missing = [m for m in modules
               if (shutil.which(m) is None if m == "dot" else importlib.util.find_spec(m) is None)]
    if missing and in_ci():
        pytest.fail(f"CI installs the viz extra and rich, but {', '.join(missing)} cannot be imported",
                    pytrace=False)
    if missing:
        pytest.skip(f"needs {', '.join(missing)} (pip install torchlite[viz] rich)")


class Terminal(io.StringIO):
    def isatty(self):
        return True


def read_losses(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    return [float(r["loss"]) for r in rows]


def test_demo_learns_the_spirals():
    out = io.StringIO()
    history, held_out = _demo.run(epochs=150, out=out)
    losses = [loss for loss, _ in history]
    assert losses[-1] < 0.25 * losses[0]
    assert history[-1][1] > 0.9
    assert held_out > 0.85
    assert "held-out" in out.getvalue()


def test_demo_is_torch_code_with_torchs_losses():
    """The demo's training is ordinary torch code: its module, with `import torch` for `import
    torchlite as torch` (and `from torch` for `from torchlite`), runs under torch, and with the same
    seed (torch's initial weights, data and shuffled batches) its losses are torchlite's."""
    torch = import_torch()
    with open(_demo.__file__) as f:
        source = f.read()
    assert source.count("import torchlite as torch\n") == 1 and source.count("from torchlite") == 2
    source = source.replace("import torchlite as torch\n", "import torch\n").replace("from torchlite", "from torch")
    under_torch = types.ModuleType("demo_under_torch")
    exec(compile(source, _demo.__file__, "exec"), under_torch.__dict__)
    assert under_torch.torch is torch and under_torch.nn is torch.nn
    theirs, their_acc = under_torch.run(epochs=12, bar="text", out=io.StringIO())
    ours, our_acc = _demo.run(epochs=12, bar="text", out=io.StringIO())
    assert len(ours) == len(theirs) == 12
    for (loss, acc), (their_loss, their_train_acc) in zip(ours, theirs, strict=True):
        assert abs(loss - their_loss) <= 1e-5 * their_loss  # float32 rounding, over 12 epochs of 8 steps
        assert acc == their_train_acc
    assert our_acc == their_acc
    assert ours[-1][0] < 0.5 * ours[0][0]


def test_demo_command_line_writes_its_folder(tmp_path):
    needs("matplotlib", "graphviz", "dot")
    res = subprocess.run([sys.executable, "-m", "torchlite", "demo", "--out", str(tmp_path / "out")],
                         capture_output=True, text=True, timeout=600)  # (a guard against a hang, not a timing)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert "epoch  300/300" in res.stdout  # not a terminal: the text bar's log lines
    assert any(line.startswith("loss 1.0502 -> ") and "held-out" in line for line in lines)
    assert f"files to {tmp_path / 'out'}:" in res.stdout
    losses = read_losses(tmp_path / "out" / "losses.csv")
    assert len(losses) == 300 and losses[-1] < 0.05 * losses[0]
    with open(tmp_path / "out" / "loss.png", "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    check_trace(tmp_path / "out")
    svg = (tmp_path / "out" / "graph.svg").read_text()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    assert "NllLossBackward0" in svg and svg.count("AccumulateGrad") == 6
    assert "graph.svg     the graph of the last step's backward" in res.stdout
    assert without_timing(res.stdout) == without_timing(readme_demo_output().replace("demo-out", str(tmp_path / "out")))


def without_timing(text):
    return re.sub(r"; \d+\.\d+ s \(\d+\.\d+ ms per epoch\)", "; TIME", text)


def readme_demo_output():
    """What README.md's "The demo" section shows `python -m torchlite demo --out demo-out` printing."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with open(os.path.join(root, "README.md")) as f:
        (block,) = re.findall(r"```text\n\$ python -m torchlite demo --out demo-out\n(.*?)```", f.read(), re.S)
    return block


def check_trace(out_dir):
    """The last step's backward, traced: one NodeTask slice per node of the MLP's graph, from
    nn.CrossEntropyLoss's NllLossBackward0 to the six AccumulateGrads, and its text timeline."""
    with open(out_dir / "trace.json") as f:
        events = json.load(f)["traceEvents"]
    slices = [e["name"] for e in events if e["ph"] == "X"]
    assert slices[0] == "NllLossBackward0"
    assert slices.count("torch::autograd::AccumulateGrad") == 6
    assert any(e["ph"] == "s" for e in events)  # flow arrows, producer to consumer
    timeline = (out_dir / "timeline.txt").read_text().splitlines()
    assert "graph_task_start" in timeline[0] and "roots: NllLossBackward0" in timeline[0]
    assert timeline[-1].split()[-2:] == ["graph_task_end", "ok"]
    assert sum(bool(re.search(r"\btask_start\b", line)) for line in timeline) == len(slices)


def test_demo_default_folder_is_new_and_named(tmp_path):
    res = subprocess.run([sys.executable, "-m", "torchlite", "demo", "--epochs", "3"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(_demo.__file__))})
    assert res.returncode == 0, res.stderr
    (made,) = os.listdir(tmp_path)
    assert made.startswith("torchlite-demo-")
    assert f"files to ./{made}:" in res.stdout
    assert len(read_losses(tmp_path / made / "losses.csv")) == 3
    assert _demo.new_out_dir_name(str(tmp_path)) != str(tmp_path / made)


def test_demo_on_a_sim_device(tmp_path):
    out = io.StringIO()
    history, _ = _demo.run(epochs=15, device="sim:1", out=out)
    assert history[-1][0] < 0.5 * history[0][0]
    assert "15 epochs on sim:1" in out.getvalue()


def test_device_errors_are_clear(monkeypatch):
    with pytest.raises(_demo.DemoError, match=r"--device cuda: CUDA is not available here"):
        _demo.run(epochs=1, device="cuda", out=io.StringIO())
    with pytest.raises(_demo.DemoError, match="--device foo: Expected one of cpu, cuda, sim device type"):
        _demo.run(epochs=1, device="foo", out=io.StringIO())
    # Where CUDA looks available but a cuda tensor cannot be made, it says why: the build
    # (without CUDA), cupy missing, or the runtime's reason (docs/design.md, "CUDA").
    monkeypatch.setattr(_demo.torch.cuda, "is_available", lambda: True)
    with pytest.raises(_demo.DemoError, match=r"^--device cuda: CUDA is available, but torchlite cannot make CUDA "
                                              r"tensors here \((Torch not compiled with CUDA enabled|.*pip install "
                                              r"torchlite\[cuda\]|Found no NVIDIA driver.*|No CUDA GPUs are available|"
                                              r"CUDA error: .*)\)$"):
        _demo.run(epochs=1, device="cuda", out=io.StringIO())
    monkeypatch.undo()
    res = subprocess.run([sys.executable, "-m", "torchlite", "demo", "--device", "cuda", "--out", "unused"],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 2
    assert res.stderr.startswith("python -m torchlite demo: error: --device cuda: CUDA is not available here")
    assert not os.path.exists("unused")


def test_help_describes_every_option():
    res = subprocess.run([sys.executable, "-m", "torchlite", "demo", "--help"], capture_output=True, text=True,
                         timeout=60)
    text = " ".join(res.stdout.split())
    for option in ("--epochs", "--lr", "--batch-size", "--hidden", "--seed", "--device", "--out DIR", "--progress"):
        assert option in text
    for words in ("sim:N", "cuda", "losses.csv", "loss.png", "tqdm", "rich", "text"):
        assert words in text


@pytest.mark.parametrize("bar", ["tqdm", "rich"])
def test_progress_bars(bar):
    needs(bar)
    out = io.StringIO()
    _demo.run(epochs=4, bar=bar, out=out)
    assert "4/4" in out.getvalue()
    assert "epoch    4/4" not in out.getvalue()  # not the text bar


def test_auto_progress_falls_back(monkeypatch):
    needs("tqdm", "rich")
    assert isinstance(_demo.make_bar("auto", 3, io.StringIO()), _demo.TextBar)  # not a terminal
    bar = _demo.make_bar("auto", 3, Terminal())
    assert isinstance(bar, _demo.TqdmBar)
    bar.close()
    monkeypatch.setitem(sys.modules, "tqdm", None)
    bar = _demo.make_bar("auto", 3, Terminal())
    assert isinstance(bar, _demo.RichBar)
    bar.close()
    monkeypatch.setitem(sys.modules, "rich.progress", None)
    assert isinstance(_demo.make_bar("auto", 3, Terminal()), _demo.TextBar)
    with pytest.raises(_demo.DemoError, match=r"--progress tqdm: tqdm is not installed \(pip install torchlite\[viz\]"):
        _demo.make_bar("tqdm", 3, Terminal())


def test_text_bar_on_a_terminal_redraws_one_line():
    out = Terminal()
    _demo.run(epochs=3, bar="text", out=out)
    text = out.getvalue()
    assert text.count("\r[") == 3 and "epoch    3/3" in text


def test_losses_without_matplotlib(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    out = io.StringIO()
    _demo.run(epochs=3, out_dir=str(tmp_path), out=out)
    files = os.listdir(tmp_path)
    assert "losses.csv" in files and "loss.png" not in files
    assert "wrote 4 files" in out.getvalue()  # losses.csv, graph, trace.json, timeline.txt
    assert len(read_losses(tmp_path / "losses.csv")) == 3


def test_graph_without_dot_is_dot_text(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))  # Graphviz's dot cannot be found
    out = io.StringIO()
    _demo.run(epochs=2, out_dir=str(tmp_path / "out"), out=out)
    files = os.listdir(tmp_path / "out")
    assert "graph.dot" in files and "graph.svg" not in files
    text = (tmp_path / "out" / "graph.dot").read_text()
    assert text.startswith("digraph") and "NllLossBackward0" in text
    assert "graph.dot     the graph of the last step's backward, as DOT text (Graphviz's dot is not installed" \
        in out.getvalue()


def test_graph_without_the_graphviz_package(monkeypatch, tmp_path):
    needs("dot")
    monkeypatch.setitem(sys.modules, "graphviz", None)  # dot is run directly
    _demo.run(epochs=2, out_dir=str(tmp_path), out=io.StringIO())
    assert "<svg" in (tmp_path / "graph.svg").read_text()
