"""The README's "PyTorch code, unchanged" example runs under torchlite and prints what it prints
under torch, and what the README says it prints."""
import contextlib
import io
import os
import re
import sys

import torchlite

from diff_utils import import_torch

torch = import_torch()
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _example():
    with open(os.path.join(ROOT, "README.md")) as f:
        text = f.read()
    m = re.search(r"<!-- readme-example:[^\n]*-->\n```python\n(.*?)```\n\nIt prints what torch prints:\n\n```text\n"
                  r"(.*?)```", text, re.S)
    assert m, "README.md has no readme-example block"
    return m.group(1), m.group(2)


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


def test_readme_example_prints_what_torch_prints():
    code, printed = _example()
    ours = _run(code, torchlite)
    assert ours == _run(code, torch)
    assert ours == printed
