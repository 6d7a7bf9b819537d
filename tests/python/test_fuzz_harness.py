"""Tests of the differential fuzzer itself (tests/fuzz): generation is
deterministic, the comparator finds planted differences and classifies them,
the minimizer shrinks a planted failure, the worker pool survives crashes and
hangs, and a fixed slice of seeds runs without harness errors."""
import json
import os
import subprocess
import sys
import types

import numpy as np
import torch

FUZZ = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fuzz")
sys.path.insert(0, FUZZ)

import fuzzlib  # noqa: E402
import run_fuzz  # noqa: E402
from fuzzlib import Step  # noqa: E402


def torch_with(**overrides):
    """torch with some module functions replaced: a stand-in 'torchlite' with planted differences."""
    mod = types.ModuleType("planted")
    mod.__dict__.update({k: getattr(torch, k) for k in dir(torch) if not k.startswith("__")})
    mod.__dict__.update(overrides)
    return mod


LEAF = Step("leaf", "v0", "{out} = lib.tensor(_data(7, (2, 3), 'float32'), requires_grad=True)", ())
EXP = Step("exp", "v1", "{out} = lib.exp({0})", ("v0",))
CAT_BAD = Step("cat", "v2", "{out} = lib.cat([{0}, {0}[0]])", ("v0",))  # dims differ: torch raises
BACKWARD = Step("backward", None, "{0}.sum().backward()", ("v1",))


def categories(diffs):
    return {d.category for d in diffs}


# (1) determinism ------------------------------------------------------------------

def test_generation_is_deterministic_and_depends_on_the_seed():
    a = fuzzlib.generate(11)
    assert a == fuzzlib.generate(11)
    assert a != fuzzlib.generate(12)
    assert 5 <= len(a) <= 60
    assert all(3 <= len(fuzzlib.generate(s, ops_min=3, ops_max=4)) <= 4 for s in range(5))
    assert fuzzlib.script(a) == fuzzlib.script(fuzzlib.generate(11))


def test_inputs_are_the_same_on_every_machine():
    ns = fuzzlib.new_namespace(torch)
    # numpy's PCG64 streams are fixed across platforms and versions: pin a few values
    np.testing.assert_allclose(ns["_data"](1, (3,), "float32"), [0.346, 0.822, 0.33], rtol=1e-6)
    assert ns["_data"](2, (2,), "int64").tolist() == [2, -2]
    assert ns["_data"](3, (), "float64").dtype == np.float64


def test_excluded_ops_are_not_generated():
    ops = {s.op for seed in range(30) for s in fuzzlib.generate(seed, exclude=("getitem", "view"))}
    assert "getitem" not in ops and "view" not in ops and "leaf" in ops


# (2) the comparator ---------------------------------------------------------------

def test_same_library_shows_no_semantic_difference():
    steps = fuzzlib.generate(3) + [LEAF, EXP, CAT_BAD, BACKWARD]
    assert fuzzlib.semantic(run_fuzz.run_pair(steps, lite=torch_with())) == []


def test_perturbed_value_is_a_semantic_difference():
    diffs = run_fuzz.run_pair([LEAF, EXP], lite=torch_with(exp=lambda x: torch.exp(x * 1.01)))
    assert categories(diffs) == {"value"}
    assert fuzzlib.signature(diffs) == ("value", "exp")


def test_a_magnified_rounding_difference_is_listed_not_failed():
    # exp one float32 ulp off torch's (within tolerance), then sin of a large multiple: the sin
    # step differs, but torch's sin on torchlite's inputs gives torchlite's result
    def exp(x):
        y = torch.exp(x)
        with torch.no_grad():
            y.copy_(torch.nextafter(y, torch.full_like(y, float("inf"))))
        return y

    big = Step("mul", "v2", "{out} = {0} * 1e6", ("v1",))
    sin = Step("sin", "v3", "{out} = lib.sin({0})", ("v2",))
    diffs = run_fuzz.run_pair([LEAF, EXP, big, sin], lite=torch_with(exp=exp))
    assert categories(diffs) == {"rounding"}
    assert fuzzlib.semantic(diffs) == []
    # a difference the step itself makes stays semantic
    diffs = run_fuzz.run_pair([LEAF, EXP, big, sin], lite=torch_with(sin=lambda x: torch.sin(x) * 1.01))
    assert fuzzlib.signature(diffs) == ("value", "sin")


def test_an_internal_assert_of_torch_fails_nothing():
    a = ("exc", "RuntimeError", "isDifferentiableType(grad.scalar_type()) INTERNAL ASSERT FAILED at engine.cpp")
    b = ("T", (1,), "float32", np.zeros(1, np.float32), True, False, "ViewBackward0", "ViewBackward0")
    assert [c for c, _ in fuzzlib.diff_obs(a, b)] == ["oracle-error"]
    assert "oracle-error" not in fuzzlib.SEMANTIC and "oracle-error" not in fuzzlib.NON_DIVERGING


def test_perturbed_gradient_is_found_at_the_end():
    def exp(x):
        y = torch.exp(x)
        y.register_hook(lambda g: g * 1.5)  # same values and node, gradient 1.5 times torch's
        return y
    diffs = run_fuzz.run_pair([LEAF, EXP, BACKWARD], lite=torch_with(exp=exp))
    assert [(d.category, d.op) for d in diffs] == [("grad", "end")]
    assert diffs[0].detail.startswith("v0.grad: value:")


def test_exception_type_swap_is_semantic_and_new_wording_is_not():
    def cat_value_error(*a, **k):
        raise ValueError("dims differ")

    def cat_other_words(*a, **k):
        raise RuntimeError("tensors must have the same number of dimensions")
    diffs = run_fuzz.run_pair([LEAF, CAT_BAD], lite=torch_with(cat=cat_value_error))
    assert categories(diffs) == {"exception-type"}
    diffs = run_fuzz.run_pair([LEAF, CAT_BAD], lite=torch_with(cat=cat_other_words))
    assert categories(diffs) == {"message"} and fuzzlib.semantic(diffs) == []


def test_raising_where_torch_does_not_is_semantic():
    def exp(x):
        raise RuntimeError("no")
    diffs = run_fuzz.run_pair([LEAF, EXP], lite=torch_with(exp=exp))
    assert fuzzlib.signature(diffs) == ("raise-mismatch", "exp")


def test_values_compare_nan_aware_with_dtype_tolerance():
    a = np.array([1.0, np.nan, np.inf], np.float32)
    assert fuzzlib.values_close(a, a.copy(), "float32")
    assert fuzzlib.values_close(a, a * np.float32(1 + 1e-6), "float32")
    assert not fuzzlib.values_close(a, np.array([1.0, 0.0, np.inf], np.float32), "float32")
    assert not fuzzlib.values_close(a, -a, "float32")
    assert not fuzzlib.values_close(np.array([1.0]), np.array([1.0 + 1e-4]), "float64")
    assert not fuzzlib.values_close(np.array([3]), np.array([4]), "int64")


# (3) the minimizer ----------------------------------------------------------------

def test_minimizer_shrinks_a_planted_failure():
    planted = torch_with(exp=lambda x: torch.exp(x * 1.01))
    program = fuzzlib.generate(5, ops_min=40, ops_max=40, exclude=("exp",)) + [LEAF._replace(out="v900"),
                                                                              EXP._replace(out="v901", ins=("v900",))]
    target = fuzzlib.signature(run_fuzz.run_pair(program, lite=planted))
    assert target == ("value", "exp")
    small = fuzzlib.minimize(program, lambda s: fuzzlib.signature(run_fuzz.run_pair(s, lite=planted)) == target)
    assert [s.op for s in small] == ["leaf", "exp"]
    text = fuzzlib.script(fuzzlib.renumber(small))
    assert "v0 = lib.tensor(" in text and "v1 = lib.exp(v0)" in text
    ns = {}
    exec(compile(text, "<script>", "exec"), ns)  # the printed program runs
    assert ns["v1"].shape == (2, 3)


def test_minimizer_keeps_the_steps_a_kept_step_needs():
    steps = [LEAF, EXP, Step("sum", "v2", "{out} = {0}.sum()", ("v1",))]
    assert fuzzlib.close_deps(steps, [0, 2]) == [0]
    assert fuzzlib.close_deps(steps, [0, 1, 2]) == [0, 1, 2]


# The worker pool ------------------------------------------------------------------

def test_pool_reports_a_crash_and_a_hang_and_goes_on():
    crash = Step("crash", None, "import ctypes; ctypes.string_at(0) if lib.__name__ == 'torchlite' else None", ())
    hang = Step("hang", None, "import time; time.sleep(60) if lib.__name__ == 'torchlite' else None", ())
    pool = run_fuzz.Pool(2, timeout=4)
    try:
        got = {task[1][1].op: (status, result)
               for task, status, result in pool.map([("steps", [LEAF, crash], ()), ("steps", [LEAF, hang], ())])}
        assert got["crash"][0] == "crash" and "under torchlite" in got["crash"][1]
        assert got["hang"][0] == "hang" and "under torchlite" in got["hang"][1]
        assert [d.category for d in run_fuzz.as_diffs(*got["crash"])] == ["crash"]
        status, result = pool.run(("steps", [LEAF, EXP], ()))  # the replaced workers work
        assert status == "ok"
    finally:
        pool.close()


def test_a_crash_of_torch_itself_fails_nothing():
    for status, phase in (("crash", "generating"), ("crash", "running under torch"), ("hang", "running under torch")):
        diffs = run_fuzz.as_diffs(status, f"worker died (exit code -11) while {phase}")
        assert [d.category for d in diffs] == ["oracle-" + status] and fuzzlib.semantic(diffs) == []
    assert fuzzlib.semantic(run_fuzz.as_diffs("hang", "no result after 4 s while running under torchlite"))


# (4) a fixed slice of seeds -------------------------------------------------------

# Categories where torchlite already matches torch on every seed seen so far; the
# others (values, raising, exception types, node names, ...) still differ until the
# issue's fixes land (see tests/fuzz/README.md), and are not asserted here yet.
def test_fixed_slice_shows_no_semantic_difference(tmp_path):
    report = tmp_path / "report.jsonl"
    proc = subprocess.run([sys.executable, os.path.join(FUZZ, "run_fuzz.py"), "--seeds", "0:20", "--jobs", "2",
                           "--report", str(report)], capture_output=True, text=True, timeout=600)
    lines = [json.loads(x) for x in report.read_text().splitlines()]
    assert len(lines) == 20
    assert not {d["category"] for r in lines for d in r["diffs"]} & set(fuzzlib.SEMANTIC), proc.stdout[-3000:]
    assert proc.stdout.splitlines()[-1] == "fuzz: 20 passed, 0 failed"
    assert proc.returncode == 0


def test_known_seeds_are_reported_not_counted(tmp_path):
    known = tmp_path / "known.txt"
    known.write_text("# comment\n3  # listed, but it matches torch\n")
    proc = subprocess.run([sys.executable, os.path.join(FUZZ, "run_fuzz.py"), "--seeds", "0:5", "--jobs", "2",
                           "--known", str(known)], capture_output=True, text=True, timeout=600)
    assert "0 known differences" in proc.stdout and "remove [3]" in proc.stdout, proc.stdout[-2000:]
    assert proc.stdout.splitlines()[-1] == "fuzz: 5 passed, 0 failed, 0 skipped"
    assert run_fuzz.read_known(str(known)) == {3: "listed, but it matches torch"}


def test_torch_against_itself_shows_no_difference_at_all(tmp_path):
    report = tmp_path / "report.jsonl"
    proc = subprocess.run([sys.executable, os.path.join(FUZZ, "run_fuzz.py"), "--seeds", "100:130",
                           "--against", "torch", "--report", str(report)], capture_output=True, text=True, timeout=600)
    assert proc.stdout.splitlines()[-1] == "fuzz: 30 passed, 0 failed", proc.stdout[-3000:]
    assert proc.returncode == 0
    assert all(r["diffs"] == [] for r in map(json.loads, report.read_text().splitlines()))


# sha256 (first 16 hex digits) of the scripts of table 1's programs: a seed's program must not
# change (new ops go into ops2.py's table); checked against all seeds 0:2000 when table 2 came.
PINNED_PROGRAMS = {0: "d68ea711694e9f1b", 1: "e35d5ec651cfe464", 7: "20474a94b2510efd",
                   123: "259c065795d21392", 1999: "52de4b4f03983dfc"}


def test_table_1_programs_stay_the_same_and_table_2_has_its_own():
    import hashlib
    got = {s: hashlib.sha256(fuzzlib.script(fuzzlib.generate(s)).encode()).hexdigest()[:16] for s in PINNED_PROGRAMS}
    assert got == PINNED_PROGRAMS
    two = [fuzzlib.generate(s, table=2) for s in range(40)]
    assert two[5] != fuzzlib.generate(5) and two[5] == fuzzlib.generate(5, table=2)
    from ops2 import OPS2
    assert {s.op for p in two for s in p} & {e.name for e in OPS2}
