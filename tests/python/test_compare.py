"""`python -m torchlite compare SCRIPT`: a script run under torch and under
torchlite (as `torch`), its backward calls compared. One script plants a
difference of each kind under torchlite; with --clean it plants none. Each
compare runs two subprocesses (torch's import is slow), so both runs are
shared by the tests."""
import argparse
import io
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import torchlite
from torchlite import _compare

from diff_utils import import_torch

SCRIPT = textwrap.dedent('''
    import sys

    import numpy as np
    import torch

    PLANT = torch.__name__ == "torchlite" and "--clean" not in sys.argv


    def leaf(values):
        return torch.tensor(np.array(values, dtype=np.float32), requires_grad=True)


    a, b = leaf([1.0, 2.0, 3.0]), leaf([0.5, -1.0, 2.0])
    (a * b).sin().sum().backward()

    x = leaf([1.0, 2.0])
    y = x.exp()
    if PLANT:  # a gradient difference
        y.register_hook(lambda g: g * 2)
    torch.autograd.grad(y.sum(), x)

    p, q = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    if PLANT:  # an order difference: the same graph, its nodes created in another order
        e = q.exp()
        s = p.sin()
    else:
        s = p.sin()
        e = q.exp()
    torch.autograd.backward([(s + e).sum()])


    def raising_hook(g):
        raise ValueError("planted")


    z = leaf([1.0])
    w = z * 3
    if PLANT:  # an exception difference
        w.register_hook(raising_hook)
    try:
        w.sum().backward()
    except ValueError:
        pass

    if "--clean" not in sys.argv:  # random inputs: the generators differ
        r = torch.randn(3, requires_grad=True)
        (r * r).sum().backward()
    if PLANT:
        import torch.fft  # torchlite has no fft: the script fails under torchlite only
''')


def run_compare(tmp_path_factory, *args):
    path = tmp_path_factory.mktemp("compare") / "planted.py"
    path.write_text(SCRIPT)
    res = subprocess.run([sys.executable, "-m", "torchlite", "compare", str(path), *args],
                         capture_output=True, text=True, timeout=300)
    return res


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    import_torch()
    return run_compare(tmp_path_factory)


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    import_torch()
    return run_compare(tmp_path_factory, "--clean")


def section(report, n):
    """The lines reporting backward #n."""
    lines = report.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"backward #{n} "))
    end = next((i for i in range(start + 1, len(lines)) if not lines[i].startswith("  ")), len(lines))
    return "\n".join(lines[start:end])


def test_identical_backward_reports_no_difference(planted):
    assert section(planted.stdout, 1) == "backward #1 (Tensor.backward at planted.py:15): same"


def test_planted_gradient_difference(planted):
    text = section(planted.stdout, 2)
    assert text.startswith("backward #2 (autograd.grad at planted.py:21): differs")
    # exp's gradient at [1, 2] doubled: the difference is e**2.
    assert f"gradients differ: gradient 0 (shape [2]): max abs difference {np.exp(2):.3g}" in text
    assert "order" not in text


def test_planted_order_difference(planted):
    text = section(planted.stdout, 3)
    acc = "'torch::autograd::AccumulateGrad'"
    assert text.splitlines()[1:] == [
        f"  execution order differs from step 2: torch ran ['SumBackward0', 'AddBackward0', 'ExpBackward0', {acc}, "
        f"'SinBackward0', {acc}], torchlite ran ['SumBackward0', 'AddBackward0', 'SinBackward0', {acc}, "
        f"'ExpBackward0', {acc}]"]


def test_planted_exception_difference(planted):
    text = section(planted.stdout, 4)
    assert "exceptions differ: torch raised no exception; torchlite raised ValueError: planted" in text
    assert "gradients differ" not in text


def test_random_inputs_report_inputs_differ(planted):
    text = section(planted.stdout, 5)
    assert "inputs differ (the leaves' values; gradients not compared): leaf 0 (shape [3])" in text
    assert "gradients differ" not in text


def test_script_failure_and_summary(planted):
    assert planted.returncode == 1, planted.stderr
    lines = planted.stdout.splitlines()
    assert lines[0].startswith("compare ") and "torch 2." in lines[0]
    assert lines[-2] == ("the script differs: under torch it finished; under torchlite it raised "
                         "ModuleNotFoundError: No module named 'torch.fft'")
    assert lines[-1] == "5 backward calls, 5 with differences"


def test_identical_script_reports_no_difference(clean):
    assert clean.returncode == 0, clean.stdout + clean.stderr
    lines = clean.stdout.splitlines()
    assert [line.split(": ")[-1] for line in lines[1:-1]] == ["same"] * 4
    assert lines[-1] == "4 backward calls, no differences"


def record(leaves, roots, grads, order=("SumBackward0",), error=None):
    arrays = [np.array(v, dtype=np.float32) for v in leaves]
    return {"api": "Tensor.backward", "where": "s.py:1", "leaves": arrays,
            "roots": [np.array(v, dtype=np.float32) for v in roots],
            "grads": [None if g is None else np.array(g, dtype=np.float32) for g in grads],
            "order": list(order), "error": error}


def test_compare_records_tolerance_and_forward_differences():
    same = record([[1.0]], [2.0], [[3.0]])
    assert _compare.compare_records([same], [record([[1.0]], [2.0], [[3.0 + 1e-7]])], 1e-5, 1e-6) == \
        [("backward #1 (Tensor.backward at s.py:1)", [])]
    (_, diffs), = _compare.compare_records([same], [record([[1.0]], [2.5], [[3.0]])], 1e-5, 1e-6)
    assert diffs == ["roots differ although the leaves are equal (a forward difference, or inputs that do not "
                     "require grad differ; gradients not compared): root 0 (shape []): max abs difference 0.5"]
    (_, diffs), = _compare.compare_records([same], [record([[1.0]], [2.0], [None])], 1e-5, 1e-6)
    assert diffs == ["gradients differ: gradient 0: a tensor under torch, None under torchlite"]
    (_, diffs), = _compare.compare_records([same, same], [same], 1e-5, 1e-6)[1:]
    assert diffs == ["only torch ran this backward"]


def test_torchlite_stands_in_for_torch_in_the_child():
    code = ("from torchlite._compare import _install_torchlite_as_torch as i; i(); import torch, torchlite; "
            "import torch.autograd.graph as g; import torch.utils.checkpoint as c; "
            "print(torch is torchlite, g is torchlite.autograd.graph, c is torchlite.utils.checkpoint)")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert res.stdout.split() == ["True", "True", "True"], res.stderr


def test_accumulate_grad_variable_as_torch():
    torch = import_torch()
    for lib in (torch, torchlite):
        a = lib.ones(2, requires_grad=True)
        y = a * 2
        assert y.grad_fn.next_functions[0][0].variable is a
        with pytest.raises(AttributeError, match="^'MulBackward0' object has no attribute 'variable'$"):
            _ = y.grad_fn.variable


def test_without_torch_only_torchlite_runs(monkeypatch, tmp_path):
    path = tmp_path / "planted.py"
    path.write_text(SCRIPT)
    monkeypatch.setattr(_compare, "_torch_available", lambda: False)
    out = io.StringIO()
    args = argparse.Namespace(script=str(path), args=["--clean"], rtol=1e-5, atol=1e-6, verbose=False)
    assert _compare.main(args, out) == 0
    lines = out.getvalue().splitlines()
    assert lines[0] == (f"compare {path}: torch is not installed (pip install torch), so nothing is compared; "
                        "the backward calls under torchlite:")
    assert lines[1] == ("backward #1 (Tensor.backward at planted.py:15): 2 leaves, ran ['SumBackward0', "
                        "'SinBackward0', 'MulBackward0', 'torch::autograd::AccumulateGrad', "
                        "'torch::autograd::AccumulateGrad']")
    assert lines[-1] == "4 backward calls"
