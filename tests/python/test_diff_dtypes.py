"""Differential tests of torch's dtype rules for elementwise ops (issue 6).

Type promotion as at::result_type does it, over tensors with dimensions, 0-d
tensors and Python numbers (`float32 + 0-d float64` is float32, `int64 + 2.5`
float32, `bool + True` bool); the errors torch raises for bool tensors (`-`,
unary `+`, pow, abs, relu) and for a float or bool alpha; float functions of
bool and integer tensors in float32; integer pow with negative exponents; the
in-place ops' result-type checks; where, cat and stack. Each expression runs
under torch and torchlite, and must give the same values and dtype, or raise
the same exception type with the same message.
"""
import pytest
import torch

import torchlite

from diff_utils import norm

# Operands of every kind: tensors with dimensions, 0-d tensors, Python numbers.
TENSORS = {
    "bool": "lib.tensor([[True, False, True], [False, False, True]])",
    "int64": "lib.tensor([[-2, 0, 3], [1, -1, 2]])",
    "float32": "lib.tensor([[-1.5, 0.0, 2.0], [0.5, -0.25, 3.0]])",
    "float64": "lib.tensor([[-1.5, 0.0, 2.0], [0.5, -0.25, 3.0]], dtype=lib.float64)",
}
ZERO_DIM = {
    "bool_0d": "lib.tensor(True)",
    "int64_0d": "lib.tensor(-2)",
    "float32_0d": "lib.tensor(1.5)",
    "float64_0d": "lib.tensor(1.5, dtype=lib.float64)",
}
NUMBERS = {"True": "True", "False": "False", "2": "2", "-2": "-2", "0": "0", "1.5": "1.5"}
OPERANDS = {**TENSORS, **ZERO_DIM, **NUMBERS}
TENSOR_OPERANDS = {**TENSORS, **ZERO_DIM}


def outcome(expr, lib):
    try:
        return ("ok", norm(eval(expr, {"lib": lib})))  # noqa: S307 - the test's own expressions
    except Exception as err:  # noqa: BLE001 - compared between libraries
        return ("raise", type(err).__name__, norm(str(err)))


def differences(template, first, seconds):
    """The expressions (template over `first` and each of `seconds`) where torchlite differs from torch."""
    out = []
    for second in seconds:
        expr = template.replace("A", f"({OPERANDS[first]})").replace("B", f"({OPERANDS[second]})")
        ref, got = outcome(expr, torch), outcome(expr, torchlite)
        if got != ref:
            out.append(f"{expr}: torch {ref}, torchlite {got}")
    return out


BINARY = [
    "A + B", "A - B", "A * B", "A / B", "A ** B",
    "lib.add(A, B, alpha=2)", "lib.add(A, B, alpha=-1)", "lib.add(A, B, alpha=2.5)", "lib.add(A, B, alpha=True)",
    "lib.sub(A, B, alpha=2)", "lib.sub(A, B, alpha=2.5)", "lib.sub(A, B, alpha=True)",
    "A == B", "A != B", "A < B", "A <= B", "A > B", "A >= B",
    "lib.where(lib.tensor([[True, False, True]]), A, B)",
]


@pytest.mark.parametrize("first", sorted(TENSOR_OPERANDS))
@pytest.mark.parametrize("template", BINARY)
def test_binary_ops_promote_as_torch(template, first):
    """Every dtype and operand kind on the right, against a tensor or 0-d tensor on the left."""
    assert differences(template, first, OPERANDS) == []


REFLECTED = ["A + B", "A - B", "A * B", "A / B", "A ** B", "lib.where(lib.tensor([True, False, True]), A, B)"]


@pytest.mark.parametrize("first", sorted(NUMBERS))
@pytest.mark.parametrize("template", REFLECTED)
def test_python_number_on_the_left(template, first):
    """Tensor.__radd__, __rsub__, __rmul__, __rtruediv__, __rpow__; where with a number first."""
    seconds = OPERANDS if template.startswith("lib.where") else TENSOR_OPERANDS
    assert differences(template, first, seconds) == []


UNARY = ["-A", "+A", "A.neg()", "A.positive()", "lib.positive(A)", "abs(A)", "A.abs()", "A.relu()", "lib.relu(A)",
         "A.sigmoid()", "A.exp()", "A.log()", "A.sin()", "A.cos()", "A.tanh()", "A.sqrt()", "A.reciprocal()",
         "A ** 2", "A ** 0", "A ** 1", "A ** 0.5", "A ** -0.5", "A ** -1", "A ** True", "A ** False"]


@pytest.mark.parametrize("template", UNARY)
def test_unary_ops_on_every_dtype(template):
    """bool and integer tensors: torch's errors for -, +, abs, relu, and float32 (not numpy's float16) results."""
    assert differences(template.replace("A", "B"), "bool", TENSOR_OPERANDS) == []


INPLACE = ["A.add_(B)", "A.sub_(B)", "A.mul_(B)", "A.div_(B)", "A.add_(B, alpha=2)", "A.add_(B, alpha=2.5)",
           "A.add_(B, alpha=True)", "A.sub_(B, alpha=2.5)"]


@pytest.mark.parametrize("first", sorted(TENSOR_OPERANDS))
@pytest.mark.parametrize("template", INPLACE)
def test_inplace_ops_promote_and_check_the_result_type_as_torch(template, first):
    template = template.replace("A", "A.clone()", 1)
    assert differences(template, first, OPERANDS) == []


@pytest.mark.parametrize("first", sorted(TENSORS))
@pytest.mark.parametrize("template", ["lib.cat([A, B])", "lib.cat([A, B, A], 1)", "lib.stack([A, B])",
                                      "lib.stack([A, B], 2)"])
def test_cat_and_stack_promote(template, first):
    assert differences(template, first, TENSORS) == []


@pytest.mark.parametrize("first", sorted(ZERO_DIM))
def test_stack_of_0d_tensors_promotes(first):
    assert differences("lib.stack([A, B])", first, ZERO_DIM) == []


def check(expr):
    assert outcome(expr, torchlite) == outcome(expr, torch)


@pytest.mark.parametrize("expr", [
    # torch's powi: 1 ** -n is 1, (-1) ** -n is +-1, anything else 0 (0 ** -n too), where numpy refuses
    "lib.arange(-3, 4).reshape(7, 1) ** lib.arange(-3, 4)",
    "lib.arange(-3, 4) ** lib.tensor(-3)", "lib.arange(-3, 4) ** lib.tensor(-2)",
    "(-1) ** lib.arange(-3, 4)", "1 ** lib.arange(-3, 4)", "0 ** lib.arange(-3, 4)", "2 ** lib.arange(-3, 4)",
    "True ** lib.arange(-3, 4)", "False ** lib.arange(-3, 4)",
    "lib.tensor([True, False]).reshape(2, 1) ** lib.arange(-2, 3)",
    "lib.arange(-3, 4) ** -1", "lib.tensor([True, False]) ** -2", "lib.arange(-3, 4) ** -2.0",
    "lib.tensor([3, 4]) ** 40", "lib.tensor([3]) ** lib.tensor([41])",
])
def test_integer_pow(expr):
    check(expr)


@pytest.mark.parametrize("expr", [
    # computed in the result dtype (operands cast first), not in numpy's float64
    "lib.tensor([16777217]) == 16777216.0", "lib.tensor([16777217]) < 16777216.5",
    "lib.tensor([16777217]) == lib.tensor(16777216.0)", "lib.tensor([16777217]) == lib.tensor([16777216.0])",
    "lib.tensor([16777217]) + 0.5", "lib.tensor([16777217]) * lib.tensor(1.0)", "lib.tensor([33554433]) / 1",
    "lib.tensor([7]) / lib.tensor([2])", "lib.tensor([16777217]).exp()", "lib.tensor([16777217]).sqrt()",
    "lib.tensor([16777217]).reciprocal()", "lib.tensor([16777217]).sigmoid()",
    "lib.tensor([1.0]) + lib.tensor(1e-9, dtype=lib.float64)", "lib.tensor(1.0) + lib.tensor(1e-9, dtype=lib.float64)",
    "lib.where(lib.tensor([True, False]), lib.tensor([16777217]), 0.5)",
    "lib.where(lib.tensor([True, False]), 1.5, 2)", "lib.where(lib.tensor([True, False]), True, 2)",
    "lib.where(lib.tensor([True, False]), True, False)",
    "lib.cat([lib.tensor([16777217]), lib.tensor([0.5])])",
    # which error comes first: sub's bool check, then shapes, then alpha and pow's bool kernel
    "lib.tensor([True, False]) - lib.tensor([1, 2, 3])",
    "lib.sub(lib.tensor([True]), lib.tensor([1, 2, 3]), alpha=2.5)",
    "lib.add(lib.tensor([1, 2]), lib.tensor([1, 2, 3]), alpha=2.5)",
    "lib.tensor([True, False]) ** lib.tensor([True, False, True])",
    "lib.tensor([1, 2]).add_(lib.tensor([1.0]), alpha=2.5)",
    "lib.tensor([1, 2]).add_(lib.tensor([1, 2, 3]), alpha=2.5)",
    "lib.tensor([True]).sub_(lib.tensor([1, 2, 3]))", "lib.tensor([True, False]).add_(True, alpha=2)",
    # comparisons of shapes that do not broadcast raise torch's RuntimeError
    "lib.tensor([1, 2]) == lib.tensor([1, 2, 3])", "lib.tensor([[1.0, 2.0]]) < lib.tensor([1.0, 2.0, 3.0])",
    "lib.tensor([1.0, 2.0]) >= lib.ones(3, 1, 4)", "lib.tensor([True, False]) != lib.tensor([True, False, True])",
    # at::infer_size names the last dimension that does not match
    "lib.ones(2, 3, 4) + lib.ones(3, 2, 3)", "lib.ones(2, 3, 4) ** lib.ones(3, 2, 3)",
    "lib.ones(4, 3) < lib.ones(2, 5)",
    "lib.ones(2, 3, 4).add_(lib.ones(3, 2, 3))", "lib.where(lib.ones(2, 3) > 0, lib.ones(4, 3), lib.ones(5, 1, 2))",
    # operators with a non-number: torch's `==` is False, `<` a TypeError
    "lib.tensor([1.0]) == None", "lib.tensor([1.0]) != None", "lib.tensor([1.0, 2.0]) == [1.0, 2.0]",
    "lib.tensor([1.0]) < None",
    # Python floats given a dtype are read as doubles, not rounded to float32 first
    "lib.tensor([0.1]) == lib.tensor([0.1], dtype=lib.float64)", "lib.tensor(0.1, dtype=lib.float64) * 3",
    "lib.tensor([[0.1, 2]], dtype=lib.float64) - 0.1", "lib.tensor([1.7, -1.7], dtype=lib.int64)",
])
def test_promotion_and_error_order(expr):
    check(expr)


def grads(lib, make_a, make_b, op):
    a = eval(make_a, {"lib": lib})  # noqa: S307 - the test's own expressions
    b = eval(make_b, {"lib": lib})  # noqa: S307
    out = op(lib, a, b)
    first = lib.autograd.grad(out.sum(), [a, b], create_graph=True)
    used = [g for g in first if g.requires_grad]
    second = lib.autograd.grad(sum((g * g).sum() for g in used), [a, b], allow_unused=True) if used else None
    return norm((out, first, [g.requires_grad for g in first], second))


MIXED = [
    ("lib.tensor([[1.5, -2.0]], requires_grad=True)", "lib.tensor(0.5, dtype=lib.float64, requires_grad=True)"),
    ("lib.tensor(0.5, dtype=lib.float64, requires_grad=True)", "lib.tensor([[1.5, -2.0]], requires_grad=True)"),
    ("lib.tensor([[1.5, -2.0]], requires_grad=True)", "lib.tensor([0.5, 3.0], dtype=lib.float64, requires_grad=True)"),
]
MIXED_OPS = {
    "add": lambda lib, a, b: lib.add(a, b, alpha=2), "sub": lambda lib, a, b: a - b, "mul": lambda lib, a, b: a * b,
    "div": lambda lib, a, b: a / b, "pow": lambda lib, a, b: a.abs() ** b,
    "where": lambda lib, a, b: lib.where((a > 0).expand(2, 2) if a.dim() else a > 0, a, b),
}


@pytest.mark.parametrize("pair", range(len(MIXED)))
@pytest.mark.parametrize("name", sorted(MIXED_OPS))
def test_gradients_of_promoted_ops_keep_each_input_dtype(name, pair):
    """Values, gradients (each in its input's dtype) and double backward of mixed float32/float64 ops."""
    make_a, make_b = MIXED[pair]
    op = MIXED_OPS[name]
    assert grads(torchlite, make_a, make_b, op) == grads(torch, make_a, make_b, op)


@pytest.mark.parametrize("op", ["cat", "stack"])
def test_cat_and_stack_gradients_keep_each_input_dtype(op):
    def prog(lib):
        a = lib.tensor([1.5, -2.0], requires_grad=True)
        b = lib.tensor([0.5, 3.0], dtype=lib.float64, requires_grad=True)
        out = getattr(lib, op)([a, b])
        w = lib.tensor([1.0, 2.0, 3.0, 4.0], dtype=lib.float64).reshape(out.shape)
        first = lib.autograd.grad((out * out * w).sum(), [a, b], create_graph=True)
        second = lib.autograd.grad(sum(g.sum() for g in first), [a, b])
        return norm((out, first, [g.requires_grad for g in first], second))
    assert prog(torchlite) == prog(torch)


MATMUL_SHAPES = ["()", "(3,)", "(4,)", "(3, 3)", "(4, 4)", "(2, 3, 3)", "(2, 4, 3)", "(2, 2, 3, 3)"]
DTYPES = ["bool", "int64", "float32", "float64"]


@pytest.mark.parametrize("dtypes", [(d1, d2) for d1 in DTYPES for d2 in DTYPES])
@pytest.mark.parametrize("first", MATMUL_SHAPES)
def test_matmul_dtype_checks_in_torchs_order(first, dtypes):
    """dot, mv, mm and bmm each check shapes and dtypes in torch's order, and have no bool kernel."""
    d1, d2 = dtypes
    bad = []
    for second in MATMUL_SHAPES:
        expr = f"lib.ones({first}, dtype=lib.{d1}) @ lib.ones({second}, dtype=lib.{d2})"
        ref, got = outcome(expr, torch), outcome(expr, torchlite)
        if got != ref:
            bad.append(f"{expr}: torch {ref}, torchlite {got}")
    assert bad == []


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("exponent", [2, 3, -2, -1, -0.5, 3.0, -2.0])
def test_pow_special_exponents_round_as_torch(exponent, dtype):
    """torch computes these exponents as x * x, x * x * x, 1 / (x * x), 1 / x and rsqrt, not
    with pow(): the same bits, where pow() rounds differently in about a third of the elements."""
    import numpy as np
    x = np.random.default_rng(0).standard_normal(4000).astype(dtype) * 3
    ref = (torch.from_numpy(x) ** exponent).numpy()
    got = (torchlite.from_numpy(x.copy()) ** exponent).numpy()
    np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("expr", ["x + 1", "x * True", "x - lib.tensor(1)", "2 - x", "x * x", "x ** 2", "x ** 0",
                                  "x ** lib.tensor(-1)", "x.relu()", "-x", "x.abs()", "x > 2", "(x > 2) * (x > 1)"])
def test_integer_results_keep_their_inputs_layout(expr):
    """Integer and bool results of a transposed input are laid out as the input, as torch's are."""
    check(f"(lambda x: ({expr}).stride())(lib.tensor([[1, 2, 3], [4, 5, 6]]).t())")


@pytest.mark.parametrize("expr", [
    "lib.where(lib.tensor([True, False]), lib.tensor([1.0, 2.0]), 1e300)",
    "lib.where(lib.tensor([True, False]), lib.tensor([1.0, 2.0]), lib.tensor(1e300, dtype=lib.float64))",
    "lib.tensor([1]) == 1e300", "lib.tensor([1.0]) < 1e300", "lib.tensor([1.0]) < lib.tensor(1e300, dtype=lib.float64)",
    "lib.tensor([1]) + 1e300", "1e300 - lib.tensor([1])", "lib.tensor([1.0]).add(lib.tensor([1.0]), alpha=1e300)",
    "lib.tensor([1.0]).add_(lib.tensor(1e300, dtype=lib.float64))",
    "lib.tensor([2.0]) * lib.tensor(1e300, dtype=lib.float64)",
    # but alpha and where's numbers are converted with torch's overflow check
    "lib.where(lib.tensor([True, False]), lib.tensor([1.0, 2.0]), -1e300)", "lib.where(lib.tensor([True]), 1e300, 2)",
    "lib.where(lib.tensor([True, False]), lib.tensor([1.0, 2.0]), float('inf'))",
    "lib.where(lib.tensor([True, False]), lib.tensor([1.0, 2.0], dtype=lib.float64), 1e300)",
    "lib.tensor([1.0]).add(1.0, alpha=1e300)", "lib.tensor([1.0]).sub(lib.tensor([1.0]), alpha=-1e300)",
    "lib.tensor([1.0]).add_(lib.tensor([1.0]), alpha=1e300)",
    "lib.tensor([1.0]).add(lib.tensor([1.0]), alpha=float('inf'))",
    "lib.tensor([1.0], dtype=lib.float64).add(lib.tensor([1.0]), alpha=1e300)",
])
def test_overflow_to_float32_is_silent(expr):
    """Values cast to float32 (the result dtype) overflow to inf without numpy's RuntimeWarning, as in
    torch, except alpha and where's numbers, which torch converts with its overflow check."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check(expr)
