"""The README's "PyTorch code, unchanged" examples run under torchlite and print what they print
under torch, and what the README says they print."""
import contextlib
import io
import os
import re
import sys

import pytest

import torchlite

from diff_utils import import_torch

torch = import_torch()
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _examples():
    with open(os.path.join(ROOT, "README.md")) as f:
        text = f.read()
    found = re.findall(r"<!-- readme-example:[^\n]*-->\n```python\n(.*?)```\n\nIt prints what torch prints:\n\n"
                       r"```text\n(.*?)```", text, re.S)
    assert len(found) == 2, "README.md's two readme-example blocks (autograd, a training script)"
    return found


def _run(code, lib):
    """The example's output with `lib` as the torch the example's `import torch` gets."""
    saved = sys.modules.get("torch")
    out = io.StringIO()
    try:
        if lib is torch:  # the real torch: the example's sys.modules line is taken out
            code = code.replace('sys.modules["torch"] = torchlite', "pass")
        with contextlib.redirect_stdout(out):
            exec(compile(code, "README.md", "exec"), {})
    finally:
        if saved is not None:
            sys.modules["torch"] = saved
    return out.getvalue()


@pytest.mark.parametrize("index", [0, 1])
def test_readme_example_prints_what_torch_prints(index):
    code, printed = _examples()[index]
    ours = _run(code, torchlite)
    assert ours == _run(code, torch)
    assert ours == printed
