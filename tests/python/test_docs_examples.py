"""The traced examples in docs/walkthrough.md and docs/legacy_engine.md are
what the code does: each is run again in a fresh process (so that
sequence_nr starts at 0, as in the docs) and its timeline, times left out,
must match the documented one line for line."""
import os
import re
import subprocess
import sys
import textwrap

DOCS = os.path.join(os.path.dirname(__file__), "..", "..", "docs")
ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


def documented_timeline(doc, after_heading):
    """The first ```text block after the line `after_heading` that holds a trace."""
    with open(os.path.join(DOCS, doc)) as f:
        text = f.read()
    text = text[text.index(after_heading):]
    for block in re.findall(r"```text\n(.*?)```", text, flags=re.S):
        if "graph_task_start" in block:
            return block
    raise AssertionError(f"no trace in {doc} after {after_heading!r}")


def untimed(timeline):
    lines = [line.split(" us ", 1)[1].strip() for line in timeline.splitlines() if " us " in line]
    assert len(lines) > 20
    return lines


def traced(program):
    code = textwrap.dedent(program) + textwrap.dedent("""
        with torch.autograd.trace() as t:
            loss.backward()
        print(t.timeline(), end="")
    """)
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": os.path.abspath(ROOT)})
    assert res.returncode == 0, res.stderr
    return res.stdout


def test_walkthrough_trace():
    now = traced("""
        import torchlite as torch
        x = torch.tensor([0.5, 0.75], requires_grad=True)
        y = x.exp()
        loss = (y * y.sin()).sum()
    """)
    assert untimed(now) == untimed(documented_timeline("walkthrough.md", "## The trace"))


def test_legacy_engine_doc_trace():
    now = traced("""
        import torchlite as torch
        a = torch.tensor([0.5, 1.0], requires_grad=True)
        b = torch.tensor([2.0, -1.0], requires_grad=True)
        ea = a.exp(); eb = b.exp(); sa = ea.sin(); sb = eb.sin()
        loss = (sa + sb).sum()
    """)
    assert untimed(now) == untimed(documented_timeline("legacy_engine.md", "## Where the order differs"))
