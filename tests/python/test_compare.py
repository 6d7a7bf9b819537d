"""`python -m torchlite compare SCRIPT`: a script run under torch and under
torchlite (as `torch`), its backward calls compared. One script plants a
difference of each kind under torchlite; with --clean it plants none. Each
compare runs two subprocesses (torch's import is slow), so both runs are
shared by the tests."""
import argparse
import io
import os
import re
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
        import torch.fx  # torchlite has no fx: the script fails under torchlite only
''')


# An nn training script: per backward, per parameter (by its named_parameters name) the value and
# gradient differences. With --plant, fc2.bias's gradient is doubled under torchlite.
NN_SCRIPT = '''\
import sys

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

PLANT = torch.__name__ == "torchlite" and "--plant" in sys.argv


def warm_up():  # the only module alive: its own names
    first = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1))
    first(torch.ones(3, 2)).sum().backward()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 3)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


torch.manual_seed(0)
warm_up()
X, y = torch.randn(24, 4), torch.randint(0, 3, (24,))
loader = DataLoader(TensorDataset(X, y), batch_size=8, shuffle=True)
model = Net()
if PLANT:  # under torchlite only: fc2.bias's gradient doubled
    model.fc2.bias.register_hook(lambda g: g * 2)
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for xb, yb in loader:
    optimizer.zero_grad()
    loss = loss_fn(model(xb), yb)
    loss.backward()
    optimizer.step()

head = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 1))  # two outermost modules now
head(model(X).detach()).sum().backward()
'''


def run_compare(tmp_path_factory, *args, script=SCRIPT, name="planted.py"):
    path = tmp_path_factory.mktemp("compare") / name
    path.write_text(script)
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


@pytest.fixture(scope="module")
def nn_clean(tmp_path_factory):
    import_torch()
    return run_compare(tmp_path_factory, script=NN_SCRIPT, name="train_nn.py")


@pytest.fixture(scope="module")
def nn_planted(tmp_path_factory):
    import_torch()
    return run_compare(tmp_path_factory, "--plant", script=NN_SCRIPT, name="train_nn.py")


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
                         "ModuleNotFoundError: No module named 'torch.fx'")
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


TABLE_HEADER = ["parameter", "shape", "value", "diff", "grad", "max", "abs", "diff", "grad", "max", "rel", "diff"]


def table(text):
    """The per-parameter rows of one backward's section: {name: (shape, value diff, grad abs diff,
    grad rel diff, note)}, in the order printed."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.split() == TABLE_HEADER)
    assert lines[start].startswith("    parameter")
    rows = {}
    for line in lines[start + 1:]:
        cells, _, note = line.strip().partition("  <- ")
        name, rest = cells.split(" ", 1)
        shape, numbers = rest.strip().split("]", 1)
        value, grad_abs, grad_rel = (float(x) for x in numbers.split())
        rows[name] = (shape + "]", value, grad_abs, grad_rel, note)
    return rows


def test_nn_script_per_parameter_rows(nn_clean):
    assert nn_clean.returncode == 0, nn_clean.stdout + nn_clean.stderr
    lines = nn_clean.stdout.splitlines()
    assert lines[-1] == "5 backward calls, no differences"
    # The only module alive: its own names.
    first = table(section(nn_clean.stdout, 1))
    assert list(first) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert [row[0] for row in first.values()] == ["[2, 2]", "[2]", "[1, 2]", "[1]"]
    # The training steps (a custom Module, a DataLoader, SGD with momentum): each backward's rows,
    # in named_parameters order, float32-close and marked as nothing.
    for n in (2, 3, 4):
        text = section(nn_clean.stdout, n)
        assert text.startswith(f"backward #{n} (Tensor.backward at train_nn.py:37): same")
        rows = table(text)
        assert list(rows) == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
        for _shape, value, grad_abs, grad_rel, note in rows.values():
            assert value <= 1e-6 and grad_abs <= 1e-6 and grad_rel <= 1e-5 and note == ""
    # Two outermost modules with parameters: each name prefixed by the script's global.
    assert list(table(section(nn_clean.stdout, 5))) == ["head.0.weight", "head.0.bias", "head.2.weight",
                                                        "head.2.bias"]


def test_nn_script_planted_gradient_difference(nn_planted):
    assert nn_planted.returncode == 1
    assert section(nn_planted.stdout, 1).startswith("backward #1 (Tensor.backward at train_nn.py:12): same")
    text = section(nn_planted.stdout, 2)
    assert text.splitlines()[1].startswith("  gradients differ: fc2.bias (shape [3]): max abs difference ")
    rows = table(text)
    assert rows["fc2.bias"][1:] == (0.0, rows["fc2.bias"][2], 1.0, "gradients differ")  # doubled: rel 1
    assert rows["fc2.bias"][2] > 0.01
    assert all(rows[n][4] == "" and rows[n][2] <= 1e-6 for n in ("fc1.weight", "fc1.bias", "fc2.weight"))
    # The next step starts from another fc2.bias: its value differs, and every gradient after it.
    text = section(nn_planted.stdout, 3)
    assert "inputs differ (the leaves' values; gradients not compared): fc2.bias (shape [3])" in text
    rows = table(text)
    assert rows["fc2.bias"][4] == "values differ; gradients differ (from other parameter values)"
    assert rows["fc1.weight"][4] == "gradients differ (from other parameter values)"


def test_parameter_table_matches_by_name():
    def rec(params):
        return {"params": {name: (np.array(value, dtype=np.float32),
                                  None if grad is None else np.array(grad, dtype=np.float32))
                           for name, (value, grad) in params.items()}}
    torch_side = rec({"w": ([1.0, 2.0], [4.0, -2.0]), "b": ([0.0], None), "only": ([1.0], [1.0])})
    ours = rec({"b": ([0.0], None), "w": ([1.0, 2.0], [4.0, -1.0]), "extra": ([2.0, 3.0], [0.0, 0.0])})
    assert _compare.parameter_table(torch_side, ours, 1e-5, 1e-6) == [
        "parameter  shape  value diff  grad max abs diff  grad max rel diff",
        "w          [2]    0           1                  0.25  <- gradients differ",
        "b          [1]    0           None               None",
        "only       [1]  <- only under torch",
        "extra      [2]  <- only under torchlite",
    ]
    assert _compare.parameter_table({"params": {}}, {}, 1e-5, 1e-6) == []
    assert _compare.parameter_table(rec({"g": ([1.0], [0.0])}), rec({"g": ([1.0], [1.0])}), 1e-5, 1e-6)[1] == \
        "g          [1]    0           1                  inf  <- gradients differ"


def test_without_torch_nn_script_lists_parameters(monkeypatch, tmp_path):
    path = tmp_path / "train_nn.py"
    path.write_text(NN_SCRIPT)
    monkeypatch.setattr(_compare, "_torch_available", lambda: False)
    out = io.StringIO()
    args = argparse.Namespace(script=str(path), args=[], rtol=1e-5, atol=1e-6, verbose=False)
    assert _compare.main(args, out) == 0
    lines = out.getvalue().splitlines()
    assert lines[1].endswith("; parameters 0.weight, 0.bias, 2.weight, 2.bias")
    assert lines[2].startswith("backward #2 (Tensor.backward at train_nn.py:37): 4 leaves, ran ['NllLossBackward0', ")
    assert lines[2].endswith("; parameters fc1.weight, fc1.bias, fc2.weight, fc2.bias")
    assert lines[-1] == "5 backward calls"


def readme():
    with open(os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                           "README.md")) as f:
        return f.read()


def same_but_numbers(text):
    """The report with its header's versions and paths taken out, each table row's numbers replaced
    by N (float32 rounding differs between BLAS builds) and runs of spaces collapsed, and the
    difference of the planted script's unseeded random inputs taken out."""
    lines = text.splitlines()
    lines[0] = re.sub(r"^compare \S*?([\w.]+\.py): torch \S+ and torchlite \S+ ", r"compare \1: VERSIONS ", lines[0])
    lines = [re.sub(r"max abs difference \S+$", "max abs difference N", line)  # unseeded random inputs
             if line.startswith("  inputs differ") else line for line in lines]
    return [" ".join(re.sub(r"(?<=\s)-?(\d+(\.\d*)?(e[-+]\d+)?|inf|nan)(?=\s|$)", "N", line).split())
            if line.startswith("    ") else line for line in lines]


def test_readme_planted_example_is_what_compare_prints(planted):
    (block,) = re.findall(r"```text\n\$ python -m torchlite compare planted.py\n(.*?)```", readme(), re.S)
    assert same_but_numbers(block) == same_but_numbers(planted.stdout)


def test_readme_nn_example_is_what_compare_prints(tmp_path_factory):
    import_torch()
    (script, block), = re.findall(r"<!-- compare-example:[^\n]*-->\n```python\n(.*?)```\n\n```text\n"
                                  r"\$ python -m torchlite compare train.py\n(.*?)```", readme(), re.S)
    res = run_compare(tmp_path_factory, script=script, name="train.py")
    assert res.returncode == 0, res.stdout + res.stderr
    assert same_but_numbers(res.stdout) == same_but_numbers(block)
    assert "0.weight [16, 4] N N N" in same_but_numbers(block)
