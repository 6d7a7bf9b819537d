"""The binary family of issue 13 against torch: div's rounding modes, max/min(input, other),
maximum/minimum, fmax/fmin, clamp/clip with number and tensor bounds, clamp_min/clamp_max, fmod,
remainder, floor_divide, hypot, logaddexp, xlogy, lerp, addcmul, addcdiv, the bitwise and logical
ops, the aliases (true_divide, multiply, subtract, divide) and the Python operators (// % & | ^ ~
<< >> and their reflected forms, @ with __rmatmul__): values and dtypes (type promotion across
tensors, 0-d tensors and numbers on either side; broadcasting; negative operands, zeros, inf, nan),
errors, out=, gradients, node names and saved fields, gradcheck and gradgradcheck in float64.
Each case runs on "cpu" and "sim:0" under torchlite, on "cpu" under torch."""
import functools
import itertools
import math
import operator

import pytest

import torchlite

from diff_utils import import_torch, run

torch = import_torch()

DEVICES = ["cpu", "sim:0"]
INF, NAN = math.inf, math.nan

F = [[-3.5, -2.0, -0.0, 0.0], [1.5, 2.0, INF, NAN]]
G = [[2.0, -1.5, 3.0, -2.0], [0.0, -INF, 2.5, 1.0]]
I = [[-7, -4, 0, 3], [5, 8, -1, 6]]  # noqa: E741
J = [[2, -3, 5, -2], [3, -5, 4, 7]]  # no zero: integer division by zero raises
J0 = [[2, 0, 5, -2], [3, -5, 4, 7]]
B = [[True, False, True, False], [False, True, True, False]]
C = [[True, True, False, False], [True, False, True, False]]

DATA = {"float32": (F, G), "float64": (F, G), "int64": (I, J), "bool": (B, C)}


def dev_of(lib, dev):
    return dev if lib is torchlite else "cpu"


def T(lib, dev, data, dtype):
    return lib.tensor(data, dtype=getattr(lib, dtype), device=dev_of(lib, dev))


def attempt(f, *args):
    """What f(*args) shows (diff_utils.run): one call of a case, its error compared too."""
    return run(lambda _: f(*args), None)


def same(case, dev):
    """case(lib, dev) shows the same under both libraries."""
    mine = run(lambda lib: case(lib, dev), torchlite)
    theirs = run(lambda lib: case(lib, dev), torch)
    assert mine == theirs, _first_difference(mine, theirs)


def _first_difference(mine, theirs):
    """The first element where two outcomes differ, for the failure message."""
    while isinstance(mine, (list, tuple)) and isinstance(theirs, (list, tuple)) and len(mine) == len(theirs):
        i = next(i for i, (a, b) in enumerate(zip(mine, theirs, strict=True)) if a != b)
        mine, theirs = mine[i], theirs[i]
    return f"torchlite: {mine!r}\ntorch:     {theirs!r}"


# Values, dtypes and errors ----------------------------------------------------------------------

BINARY = {
    "div": lambda lib, a, b: lib.div(a, b),
    "div_none": lambda lib, a, b: lib.div(a, b, rounding_mode=None),
    "div_trunc": lambda lib, a, b: lib.div(a, b, rounding_mode="trunc"),
    "div_floor": lambda lib, a, b: lib.div(a, b, rounding_mode="floor"),
    "true_divide": lambda lib, a, b: lib.true_divide(a, b),
    "divide": lambda lib, a, b: lib.divide(a, b, rounding_mode="floor"),
    "floor_divide": lambda lib, a, b: lib.floor_divide(a, b),
    "fmod": lambda lib, a, b: lib.fmod(a, b),
    "remainder": lambda lib, a, b: lib.remainder(a, b),
    "maximum": lambda lib, a, b: lib.maximum(a, b),
    "minimum": lambda lib, a, b: lib.minimum(a, b),
    "max": lambda lib, a, b: lib.max(a, b),
    "min": lambda lib, a, b: a.min(b),
    "fmax": lambda lib, a, b: lib.fmax(a, b),
    "fmin": lambda lib, a, b: lib.fmin(a, b),
    "hypot": lambda lib, a, b: lib.hypot(a, b),
    "logaddexp": lambda lib, a, b: lib.logaddexp(a, b),
    "xlogy": lambda lib, a, b: lib.xlogy(a, b),
    "atan2": lambda lib, a, b: lib.atan2(a, b),
    "clamp_min": lambda lib, a, b: lib.clamp_min(a, b),
    "clamp_max": lambda lib, a, b: a.clamp_max(b),
    "clamp": lambda lib, a, b: lib.clamp(a, b),
    "clip": lambda lib, a, b: a.clip(max=b),
    "multiply": lambda lib, a, b: lib.multiply(a, b),
    "subtract": lambda lib, a, b: lib.subtract(a, b, alpha=2),
    "bitwise_and": lambda lib, a, b: lib.bitwise_and(a, b),
    "bitwise_or": lambda lib, a, b: a.bitwise_or(b),
    "bitwise_xor": lambda lib, a, b: lib.bitwise_xor(a, b),
    "bitwise_left_shift": lambda lib, a, b: lib.bitwise_left_shift(a, b),
    "bitwise_right_shift": lambda lib, a, b: a.bitwise_right_shift(b),
    "logical_and": lambda lib, a, b: lib.logical_and(a, b),
    "logical_or": lambda lib, a, b: lib.logical_or(a, b),
    "logical_xor": lambda lib, a, b: lib.logical_xor(a, b),
    "//": lambda lib, a, b: a // b,
    "%": lambda lib, a, b: a % b,
    "&": lambda lib, a, b: a & b,
    "|": lambda lib, a, b: a | b,
    "^": lambda lib, a, b: a ^ b,
    "<<": lambda lib, a, b: a << b,
    ">>": lambda lib, a, b: a >> b,
}

DTYPE_PAIRS = [("float32", "float32"), ("float64", "float64"), ("float32", "float64"), ("int64", "int64"),
               ("int64", "float32"), ("bool", "bool"), ("bool", "int64"), ("float32", "int64")]


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("pair", DTYPE_PAIRS, ids="-".join)
@pytest.mark.parametrize("op", BINARY)
def test_tensor_tensor(op, pair, dev):
    da, db = pair

    def case(lib, dev):
        a = T(lib, dev, DATA[da][0], da)
        b = T(lib, dev, DATA[db][1], db)
        return BINARY[op](lib, a, b)
    same(case, dev)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
@pytest.mark.parametrize("op", BINARY)
def test_broadcast_and_zero_dim(op, dtype, dev):
    """A (2, 1, 4) operand against a (3, 1) one, and against 0-d tensors of other dtypes (which promote only
    across categories)."""
    def case(lib, dev):
        a = T(lib, dev, [DATA[dtype][0]], dtype).reshape(2, 1, 4)
        b = T(lib, dev, [[3], [-2], [1]], "int64" if dtype != "bool" else "bool").to(getattr(lib, dtype))
        r = [BINARY[op](lib, a, b)]
        for other in ("float64", "int64", "bool"):
            r.append(attempt(BINARY[op], lib, a, T(lib, dev, DATA[other][1][0][0], other)))
        return r
    same(case, dev)


NUMBERS = [2, -3, 0, 2.5, -0.5, True, INF]


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
@pytest.mark.parametrize("op", [op for op in BINARY if op not in ("max", "min")])  # max(x, 2): a dim
def test_number_operand(op, dtype, dev):
    def case(lib, dev):
        a = T(lib, dev, DATA[dtype][0], dtype)
        return [attempt(BINARY[op], lib, a, n) for n in NUMBERS]
    same(case, dev)


REFLECTED = {
    "//": lambda n, a: n // a, "%": lambda n, a: n % a, "&": lambda n, a: n & a, "|": lambda n, a: n | a,
    "^": lambda n, a: n ^ a, "<<": lambda n, a: n << a, ">>": lambda n, a: n >> a, "**": lambda n, a: n ** a,
    "-": lambda n, a: n - a, "/": lambda n, a: n / a,
    "remainder": lambda n, a: torch_or_lite(a).remainder(n, a),
    "xlogy": lambda n, a: torch_or_lite(a).xlogy(n, a),
    "bitwise_and": lambda n, a: torch_or_lite(a).bitwise_and(n, a),
    "bitwise_or": lambda n, a: torch_or_lite(a).bitwise_or(n, a),
    "bitwise_xor": lambda n, a: torch_or_lite(a).bitwise_xor(n, a),
    "bitwise_left_shift": lambda n, a: torch_or_lite(a).bitwise_left_shift(n, a),
}


def torch_or_lite(t):
    return torchlite if isinstance(t, torchlite.Tensor) else torch


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
@pytest.mark.parametrize("op", REFLECTED)
def test_number_first(op, dtype, dev):
    def case(lib, dev):
        a = T(lib, dev, DATA[dtype][1], dtype)
        return [attempt(REFLECTED[op], n, a) for n in (7, -7, 2.5, True, 0)]
    same(case, dev)


@pytest.mark.parametrize("dev", DEVICES)
def test_integer_division_by_zero(dev):
    def case(lib, dev):
        a, z = T(lib, dev, I, "int64"), T(lib, dev, J0, "int64")
        ops = [lambda: a // z, lambda: a % z, lambda: lib.fmod(a, z), lambda: lib.div(a, z, rounding_mode="trunc"),
               lambda: lib.div(a, 0, rounding_mode="floor"), lambda: lib.remainder(a, 0), lambda: lib.fmod(a, 0),
               lambda: 5 // z, lambda: 5 % z, lambda: lib.div(a, z), lambda: a / 0]
        return [attempt(f) for f in ops]
    same(case, dev)


@pytest.mark.parametrize("dev", DEVICES)
def test_unary_bitwise_and_logical(dev):
    def case(lib, dev):
        out = []
        for dtype in ("float32", "int64", "bool"):
            a = T(lib, dev, DATA[dtype][0], dtype)
            for f in (operator.invert, lib.bitwise_not, lambda t: t.bitwise_not(), lib.logical_not,
                      lambda t: t.logical_not()):
                out.append(attempt(f, a))
        out.append(attempt(lib.bitwise_not, 1))
        return out
    same(case, dev)


@pytest.mark.parametrize("dev", DEVICES)
def test_shifts(dev):
    def case(lib, dev):
        a = T(lib, dev, [[-5, 1, 7, -1], [2 ** 40, -(2 ** 40), 3, 1]], "int64")
        s = T(lib, dev, [[1, 0, 63, 64], [-1, 70, 2, 62]], "int64")
        return [a << s, a >> s, a << 1, a >> 3, 1 << s, -256 >> s, a << -1, a >> 70,
                lib.bitwise_left_shift(a, s), a.bitwise_right_shift(2)]
    same(case, dev)


@pytest.mark.parametrize("dev", DEVICES)
def test_clamp_values(dev):
    def case(lib, dev):
        x = T(lib, dev, F, "float32")
        i = T(lib, dev, I, "int64")
        lo, hi = T(lib, dev, [[-1.0], [0.5]], "float32"), T(lib, dev, [1.0, 2.0, -3.0, 0.0], "float64")
        cases = [lambda: lib.clamp(x, -1, 1), lambda: x.clamp(min=0), lambda: x.clamp(max=-1.5),
                 lambda: lib.clamp(x, 2, 1), lambda: lib.clamp(x, NAN), lambda: lib.clamp(i, 0.5),
                 lambda: lib.clamp(i, -2, 4), lambda: lib.clamp(T(lib, dev, B, "bool"), 0, 1),
                 lambda: lib.clamp(x, lo, hi), lambda: lib.clamp(x, min=lo), lambda: x.clamp(max=hi),
                 lambda: lib.clamp(i, lo), lambda: lib.clamp(x, T(lib, dev, NAN, "float32")),
                 lambda: lib.clip(x, lo, hi), lambda: x.clip(-0.5, 0.5),
                 lambda: lib.clamp(x), lambda: lib.clamp(x, None, None), lambda: lib.clamp(x, lo, 1.0),
                 lambda: lib.clamp(x, min=lo, max=1.0), lambda: lib.clamp(x, 0.0, hi), lambda: lib.clamp(x, "a"),
                 lambda: lib.clamp_min(x, None), lambda: lib.clamp_max(x, None), lambda: lib.clamp_min(i, 0.5),
                 lambda: lib.clamp_max(i, lo)]
        return [attempt(f) for f in cases]
    same(case, dev)


@pytest.mark.parametrize("dev", DEVICES)
def test_three_operand_values(dev):
    def case(lib, dev):
        x, y = T(lib, dev, F, "float32"), T(lib, dev, G, "float32")
        w = T(lib, dev, [[0.0, 0.25, 0.5, 1.0], [-1.0, 2.0, 0.75, 0.4999]], "float32")
        i, j = T(lib, dev, I, "int64"), T(lib, dev, J, "int64")
        d = T(lib, dev, G, "float64")
        cases = [lambda: lib.lerp(x, y, 0.3), lambda: lib.lerp(x, y, 0.7), lambda: x.lerp(y, w),
                 lambda: lib.lerp(x, y, 2), lambda: lib.lerp(x[0], y, w[1:]), lambda: lib.lerp(x, d, 0.5),
                 lambda: lib.lerp(x, y, d), lambda: lib.lerp(i, j, 0.5), lambda: lib.lerp(i, j, i),
                 lambda: lib.lerp(x, 2.0, 0.5), lambda: lib.lerp(x, y, i),
                 lambda: lib.addcmul(x, y, w), lambda: lib.addcmul(x, y, w, value=-2.5), lambda: x.addcmul(i, j),
                 lambda: lib.addcmul(i, i, j, value=2), lambda: lib.addcmul(i, i, j, value=0.5),
                 lambda: lib.addcmul(T(lib, dev, B, "bool"), T(lib, dev, B, "bool"), T(lib, dev, C, "bool")),
                 lambda: lib.addcmul(x, 2.0, x), lambda: lib.addcmul(x[0], d, w[:, :1]),
                 lambda: lib.addcdiv(x, y, w), lambda: x.addcdiv(y, w, value=3), lambda: lib.addcdiv(i, i, j),
                 lambda: lib.addcdiv(x, i, j), lambda: lib.addcdiv(x, y, j), lambda: lib.addcdiv(i, x, j, value=2)]
        return [attempt(f) for f in cases]
    same(case, dev)


@pytest.mark.parametrize("dev", DEVICES)
def test_argument_errors(dev):
    def case(lib, dev):
        x = T(lib, dev, F, "float32")
        i = T(lib, dev, I, "int64")
        cases = [lambda: lib.div(x, x, rounding_mode="round"), lambda: lib.div(x, x, rounding_mode=3),
                 lambda: lib.maximum(x, 2), lambda: lib.fmax(x, 2.0), lambda: lib.hypot(x, 2.0),
                 lambda: lib.logaddexp(x, 1.0), lambda: lib.logical_and(x, 1), lambda: lib.logical_xor(x, 0.0),
                 lambda: lib.fmod(2.0, x), lambda: lib.max(x, 2.0), lambda: lib.min(x, True),
                 lambda: lib.max(x, other=i), lambda: lib.min(x, i), lambda: x.max(i), lambda: tuple(lib.max(x, 1)),
                 lambda: tuple(lib.min(x, dim=1, keepdim=True)), lambda: lib.addcmul(x, 2.0, x),
                 lambda: x[0] % x, lambda: x % x[:, :2], lambda: x @ [1.0], lambda: [1.0, 2.0] @ x,
                 lambda: x // "a", lambda: x & None, lambda: x << 1.5, lambda: i << 1.5, lambda: lib.clamp(x, "a")]
        return [attempt(f) for f in cases]
    same(case, dev)


@pytest.mark.parametrize("dev", DEVICES)
def test_rmatmul(dev):
    def case(lib, dev):
        x = T(lib, dev, F, "float32")
        y = T(lib, dev, [[1.0, 2.0], [-1.0, 0.5]], "float32")
        v = T(lib, dev, [1.0, -2.0], "float32")
        return [x.__rmatmul__(y), y.__rmatmul__(v), x.__rmatmul__([1.0]), y @ x]
    same(case, dev)


# out= -----------------------------------------------------------------------------------------

OUT_CASES = {
    "div_floor": lambda lib, a, b, out: lib.div(a, b, rounding_mode="floor", out=out),
    "floor_divide": lambda lib, a, b, out: lib.floor_divide(a, b, out=out),
    "remainder": lambda lib, a, b, out: lib.remainder(a, b, out=out),
    "fmod": lambda lib, a, b, out: lib.fmod(a, b, out=out),
    "maximum": lambda lib, a, b, out: lib.maximum(a, b, out=out),
    "minimum": lambda lib, a, b, out: lib.minimum(a, b, out=out),
    "fmax": lambda lib, a, b, out: lib.fmax(a, b, out=out),
    "fmin": lambda lib, a, b, out: lib.fmin(a, b, out=out),
    "hypot": lambda lib, a, b, out: lib.hypot(a, b, out=out),
    "logaddexp": lambda lib, a, b, out: lib.logaddexp(a, b, out=out),
    "xlogy": lambda lib, a, b, out: lib.xlogy(a, b, out=out),
    "clamp": lambda lib, a, b, out: lib.clamp(a, -1, b[0, 0].item(), out=out),
    "clip": lambda lib, a, b, out: lib.clip(a, b, out=out),
    "clamp_min": lambda lib, a, b, out: lib.clamp_min(a, b, out=out),
    "clamp_max": lambda lib, a, b, out: lib.clamp_max(a, 1, out=out),
    "lerp": lambda lib, a, b, out: lib.lerp(a, b, 0.25, out=out),
    "addcmul": lambda lib, a, b, out: lib.addcmul(a, a, b, value=2, out=out),
    "addcdiv": lambda lib, a, b, out: lib.addcdiv(a, a, b, out=out),
    "true_divide": lambda lib, a, b, out: lib.true_divide(a, b, out=out),
    "max": lambda lib, a, b, out: lib.max(a, b, out=out),
    "min": lambda lib, a, b, out: lib.min(a, other=b, out=out),
    "multiply": lambda lib, a, b, out: lib.multiply(a, b, out=out),
    "subtract": lambda lib, a, b, out: lib.subtract(a, b, alpha=3, out=out),
    "divide": lambda lib, a, b, out: lib.divide(a, b, out=out),
    "bitwise_and": lambda lib, a, b, out: lib.bitwise_and(a, b, out=out),
    "bitwise_or": lambda lib, a, b, out: lib.bitwise_or(a, b, out=out),
    "bitwise_xor": lambda lib, a, b, out: lib.bitwise_xor(a, b, out=out),
    "bitwise_left_shift": lambda lib, a, b, out: lib.bitwise_left_shift(a, b, out=out),
    "bitwise_right_shift": lambda lib, a, b, out: lib.bitwise_right_shift(a, b, out=out),
    "bitwise_not": lambda lib, a, b, out: lib.bitwise_not(a, out=out),
    "logical_and": lambda lib, a, b, out: lib.logical_and(a, b, out=out),
    "logical_or": lambda lib, a, b, out: lib.logical_or(a, b, out=out),
    "logical_xor": lambda lib, a, b, out: lib.logical_xor(a, b, out=out),
    "logical_not": lambda lib, a, b, out: lib.logical_not(a, out=out),
}


# out's dtypes: the inputs' own, and ones the result casts to or not (torch checks the cast before a kernel's
# dtype error; torchlite computes first, so a bool out of an op refusing integers is left out)
OUT_DTYPES = {"float32": ("float32", "float64", "int64", "bool"), "int64": ("int64", "float32", "float64"),
              "bool": ("bool", "int64", "float32")}


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("op", OUT_CASES)
def test_out(op, dev):
    """out= of each dtype (a result that cannot be cast to it is refused), resized from empty, and refused
    where an argument requires grad."""
    def case(lib, dev):
        res = []
        for da in ("float32", "int64", "bool"):
            a = T(lib, dev, DATA[da][0], da)
            b = T(lib, dev, DATA[da][1], da)
            for do in OUT_DTYPES[da]:
                out = lib.zeros(2, 4, dtype=getattr(lib, do), device=dev_of(lib, dev))
                res.append((attempt(OUT_CASES[op], lib, a, b, out), attempt(lambda t: t, out)))
            empty = lib.empty(0, dtype=a.dtype, device=dev_of(lib, dev))
            res.append(attempt(lambda *xs: OUT_CASES[op](*xs).shape, lib, a, b, empty))
        g = lib.tensor(G, requires_grad=True, device=dev_of(lib, dev))
        res.append(run(lambda lib: OUT_CASES[op](lib, g, g, lib.zeros(2, 4, device=dev_of(lib, dev))), lib))
        return res
    same(case, dev)


# Gradients ------------------------------------------------------------------------------------

X = [[1.5, -2.0, 0.5], [3.0, -0.25, 2.0]]
Y = [[-1.25, 0.75, 2.0]]
Z = [[0.5], [-1.5]]
POS = [[1.5, 2.0, 0.5], [3.0, 0.25, 2.0]]
TIES = [[1.0, 2.0, 0.0], [-1.0, 2.0, NAN]]
TIES2 = [[1.0, 3.0, 0.0], [-1.0, 1.0, 2.0]]

GRAD_CASES = {
    "div_none": (lambda lib, x, y: lib.div(x, y, rounding_mode=None), (X, Y)),
    "div_trunc": (lambda lib, x, y: x.div(y, rounding_mode="trunc"), (X, Y)),
    "div_floor": (lambda lib, x, y: lib.div(x, y, rounding_mode="floor"), (X, Y)),
    "div_floor_number": (lambda lib, x: lib.div(x, 0.75, rounding_mode="floor"), (X,)),
    "div_none_number": (lambda lib, x: lib.div(x, 0.75, rounding_mode=None), (X,)),
    "divide": (lambda lib, x, y: lib.divide(x, y), (X, Y)),
    "true_divide": (lambda lib, x: lib.true_divide(x, 3), (X,)),
    "multiply": (lambda lib, x, y: x.multiply(y), (X, Y)),
    "subtract": (lambda lib, x, y: lib.subtract(x, y, alpha=2), (X, Y)),
    "fmod": (lambda lib, x, y: lib.fmod(x, y), (X, Y)),
    "fmod_number": (lambda lib, x: lib.fmod(x, 0.75), (X,)),
    "fmod_0d": (lambda lib, x, y: lib.fmod(x, y), (X, 0.75)),
    "remainder": (lambda lib, x, y: lib.remainder(x, y), (X, Y)),
    "remainder_number": (lambda lib, x: x % -0.75, (X,)),
    "%": (lambda lib, x, y: x % y, (X, Z)),
    "maximum": (lambda lib, x, y: lib.maximum(x, y), (TIES, TIES2)),
    "minimum": (lambda lib, x, y: lib.minimum(x, y), (TIES, TIES2)),
    "max_other": (lambda lib, x, y: lib.max(x, y), (X, Y)),
    "min_other": (lambda lib, x, y: x.min(other=y), (X, Z)),
    "maximum_broadcast": (lambda lib, x, y: lib.maximum(x, y), (X, Z)),
    "fmax": (lambda lib, x, y: lib.fmax(x, y), (TIES, TIES2)),
    "fmin": (lambda lib, x, y: lib.fmin(x, y), (TIES, TIES2)),
    "fmax_nan_other": (lambda lib, x, y: lib.fmax(x, y), (TIES2, TIES)),
    "fmin_nan_other": (lambda lib, x, y: lib.fmin(x, y), (TIES2, TIES)),
    "hypot": (lambda lib, x, y: lib.hypot(x, y), (X, Y)),
    "logaddexp": (lambda lib, x, y: lib.logaddexp(x, y), (X, Z)),
    "xlogy": (lambda lib, x, y: lib.xlogy(x, y),
              ([[0.0, 2.0, -1.0], [0.0, 1.5, 3.0]], [[0.0, 2.5, 0.5], [-1.0, 1.0, 4.0]])),
    "xlogy_scalar_self": (lambda lib, y: lib.xlogy(2.5, y), (POS,)),
    "xlogy_scalar_other": (lambda lib, x: lib.xlogy(x, 2.5), (X,)),
    "xlogy_scalar_other_neg": (lambda lib, x: lib.xlogy(x, -2.0), ([[0.0, 1.0, 2.0]],)),
    "clamp": (lambda lib, x: lib.clamp(x, -1.0, 2.0), ([[1.5, -2.0, -1.0], [3.0, 2.0, 0.0]],)),
    "clamp_min_only": (lambda lib, x: x.clamp(min=0.5), (X,)),
    "clamp_max_only": (lambda lib, x: x.clamp(max=0.5), (X,)),
    "clip": (lambda lib, x: lib.clip(x, -1, 1), (X,)),
    "clamp_tensors": (lambda lib, x, lo, hi: lib.clamp(x, lo, hi), (X, Y, [[2.0], [-0.5]])),
    "clamp_tensor_min": (lambda lib, x, lo: lib.clamp(x, min=lo), (X, Y)),
    "clamp_tensor_max": (lambda lib, x, hi: x.clamp(max=hi), (X, Z)),
    "clip_tensors": (lambda lib, x, lo, hi: x.clip(lo, hi), (X, Z, Y)),
    "clamp_min": (lambda lib, x: lib.clamp_min(x, 0.5), (X,)),
    "clamp_min_tensor": (lambda lib, x, y: lib.clamp_min(x, y), (X, Y)),
    "clamp_max": (lambda lib, x: x.clamp_max(0.5), (X,)),
    "clamp_max_tensor": (lambda lib, x, y: lib.clamp_max(x, y), (X, Z)),
    "lerp": (lambda lib, x, y: lib.lerp(x, y, 0.3), (X, Y)),
    "lerp_big_weight": (lambda lib, x, y: x.lerp(y, 0.8), (X, Z)),
    "lerp_tensor": (lambda lib, x, y, w: lib.lerp(x, y, w), (X, Y, [[0.2], [0.9]])),
    "addcmul": (lambda lib, x, a, b: lib.addcmul(x, a, b, value=-1.5), (X, Y, Z)),
    "addcmul_default": (lambda lib, x, a, b: x.addcmul(a, b), (X, Y, Z)),
    "addcdiv": (lambda lib, x, a, b: lib.addcdiv(x, a, b, value=2), (X, Y, [[0.5], [-1.5]])),
    "addcdiv_default": (lambda lib, x, a, b: x.addcdiv(a, b), (Y, X, Z)),
}


def _leaves(lib, dev, datas):
    return [lib.tensor(d, dtype=lib.float64, device=dev_of(lib, dev), requires_grad=True) for d in datas]


def _saved(fn):
    """The node's _saved_* fields torch exposes (tensors as values)."""
    return {name: getattr(fn, name) for name in sorted(dir(fn)) if name.startswith("_saved_")}


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("op", GRAD_CASES)
def test_gradients(op, dev):
    """The node's name and saved fields, the first derivatives (weighted) and second derivatives
    (create_graph=True, then the gradient of the gradients' sum)."""
    fn, datas = GRAD_CASES[op]

    def case(lib, dev):
        xs = _leaves(lib, dev, datas)
        out = fn(lib, *xs)
        w = lib.arange(out.numel(), dtype=out.dtype, device=dev_of(lib, dev)).reshape(out.shape) + 1
        grads = lib.autograd.grad(out, xs, w, create_graph=True, allow_unused=True)
        second = None
        used = [g for g in grads if g is not None and g.requires_grad]
        if used:
            total = sum(g.sum() for g in used)
            second = lib.autograd.grad(total, xs, allow_unused=True)
        return out, out.grad_fn.name(), _saved(out.grad_fn), len(out.grad_fn.next_functions), grads, second
    same(case, dev)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("op", [k for k, (_, datas) in GRAD_CASES.items() if len(datas) > 1])
def test_saved_fields_when_one_input_needs_grad(op, dev):
    """torch saves a tensor only where an input whose formula reads it requires grad."""
    fn, datas = GRAD_CASES[op]

    def case(lib, dev):
        res = []
        for k in range(len(datas)):
            xs = [lib.tensor(d, dtype=lib.float64, device=dev_of(lib, dev), requires_grad=(i == k))
                  for i, d in enumerate(datas)]
            out = fn(lib, *xs)
            res.append((out.grad_fn.name(), _saved(out.grad_fn), lib.autograd.grad(out.sum(), xs[k])))
        return res
    same(case, dev)


# gradcheck's data: X, Y, Z moved off the kinks (no ties, no bound hit, no integer quotient)
XS, YS, ZS = [[1.3, -2.1, 0.7], [2.9, -0.35, 1.6]], [[-1.15, 0.85, 2.45]], [[0.45], [-1.55]]
_SUB = {id(X): XS, id(Y): YS, id(Z): ZS, id(TIES): XS, id(TIES2): YS, id(POS): [[1.5, 2.0, 0.5], [3.0, 0.25, 2.0]]}
SMOOTH = {k: (fn, tuple(_SUB.get(id(d), d) for d in datas))
          for k, (fn, datas) in GRAD_CASES.items()
          if not k.startswith(("div_trunc", "div_floor", "xlogy_scalar_other_neg"))}
SMOOTH["xlogy"] = (GRAD_CASES["xlogy"][0], (XS, [[1.5, 2.0, 0.5], [3.0, 0.25, 2.0]]))
SMOOTH["clamp"] = (GRAD_CASES["clamp"][0], (XS,))


@pytest.mark.parametrize("op", SMOOTH)
def test_gradcheck(op):
    """gradcheck and gradgradcheck in float64, away from the kinks (clamp's bounds, fmod's jumps)."""
    fn, datas = SMOOTH[op]
    xs = _leaves(torchlite, "cpu", datas)
    f = lambda *a: fn(torchlite, *a)  # noqa: E731
    assert torchlite.autograd.gradcheck(f, xs)
    assert torchlite.autograd.gradgradcheck(f, xs)


@pytest.mark.parametrize("dev", DEVICES)
def test_not_implemented_nodes(dev):
    """floor_divide and remainder(number, tensor) have no derivative: torch's NotImplemented node."""
    def case(lib, dev):
        x, y = _leaves(lib, dev, (X, Y))
        res = []
        for out in (lib.floor_divide(x, y), x // 2.0, 2.0 // x, 3 % x, lib.remainder(2.5, y)):
            res.append((out, out.grad_fn.name(), len(out.grad_fn.next_functions),
                        attempt(functools.partial(lib.autograd.grad, allow_unused=True), out.sum(), (x, y))))
        return res
    same(case, dev)


@pytest.mark.parametrize("dev", DEVICES)
def test_integer_and_mixed_gradients(dev):
    """A float leaf against integer and 0-d operands: the gradient reaches the float one only, in its dtype."""
    def case(lib, dev):
        x = lib.tensor(X, requires_grad=True, device=dev_of(lib, dev))
        i = T(lib, dev, [[2, -3, 1]], "int64")
        d = lib.tensor(1.5, dtype=lib.float64, device=dev_of(lib, dev), requires_grad=True)
        outs = [lib.maximum(x, i), lib.fmod(x, i), x % d, lib.clamp(x, i, None), lib.lerp(x, x * 2, 0.5),
                lib.addcmul(x, i, d), lib.xlogy(x, d), lib.hypot(x, d), lib.div(x, d, rounding_mode="floor")]
        return [(o, o.grad_fn.name(), lib.autograd.grad(o.sum(), [x, d], allow_unused=True)) for o in outs]
    same(case, dev)


def _promoted(lib, a, b, c, number):
    return str(lib.clamp(a, b, c).dtype), str(lib.clamp(a, number).dtype), str(lib.addcmul(a, b, c).dtype)


def test_every_pair_of_dtypes_promotes_as_torch():
    """_result_type_n over tensors, 0-d tensors and numbers, through clamp (three operands)."""
    kinds = {"float32": 1.5, "float64": 1.5, "int64": 2, "bool": True}

    def case(lib):
        res = []
        for da, db, dc in itertools.product(kinds, repeat=3):
            a = lib.tensor([kinds[da]] * 2, dtype=getattr(lib, da))
            b = lib.tensor(kinds[db], dtype=getattr(lib, db))
            c = lib.tensor([kinds[dc]], dtype=getattr(lib, dc))
            res.append((da, db, dc) + attempt(_promoted, lib, a, b, c, kinds[db]))
        return res
    mine, theirs = run(case, torchlite), run(case, torch)
    assert mine == theirs, _first_difference(mine, theirs)


@pytest.mark.parametrize("dev", DEVICES)
def test_zero_dim_and_writable_results(dev):
    """0-d operands give a 0-d result, which an in-place op can then write (the fuzzer found both)."""
    def case(lib, dev):
        res = []
        for dtype in ("int64", "float32", "bool"):
            a, b = T(lib, dev, DATA[dtype][0][1][1], dtype), T(lib, dev, DATA[dtype][1][1][3], dtype)
            for f in (lib.maximum, lib.fmin, lib.fmod, lib.remainder, lib.clamp_min, lib.bitwise_and,
                      lib.logical_and, lib.floor_divide, lib.bitwise_left_shift, lambda x, y: lib.clamp(x, y, y),
                      lambda x, y: lib.logical_not(x), lambda x, y: ~x,
                      lambda x, y: lib.div(x, y, rounding_mode="trunc")):
                r = attempt(f, a, b)
                if r[0] == "ok":
                    t = f(a, b)
                    r += (tuple(t.shape), attempt(lambda t: t.zero_(), t), attempt(lambda t: t.fill_(1), t))
                res.append(r)
        return res
    same(case, dev)


@pytest.mark.parametrize("dev", DEVICES)
def test_shape_errors_come_before_dtype_errors(dev):
    def case(lib, dev):
        f2, f4 = T(lib, dev, [1.5, 2.0], "float32"), T(lib, dev, [1.0, 2.0, 3.0, 4.0], "float32")
        b2, b4 = f2 > 1, f4 > 1
        return [attempt(f, x, y) for f in (lib.bitwise_and, operator.rshift, lib.hypot, lib.fmod, lib.remainder,
                                           lib.floor_divide, lib.clamp_min, lib.logaddexp,
                                           lambda x, y: lib.div(x, y, rounding_mode="floor"),
                                           lambda x, y: lib.addcmul(x, y, y), lambda x, y: lib.clamp(x, y, y))
                for x, y in ((f2, f4), (b2, b4))]
    same(case, dev)


@pytest.mark.parametrize("dev", DEVICES)
def test_lerp_zero_dim_weight_of_another_dtype(dev):
    def case(lib, dev):
        x, y = _leaves(lib, dev, (X, Y))
        x, y = x.float(), y.float()
        w = lib.tensor(0.25, dtype=lib.float64, device=dev_of(lib, dev), requires_grad=True)
        out = lib.lerp(x, y, w)
        return out, out.grad_fn.name(), lib.autograd.grad(out.sum(), (x, y, w)), \
            attempt(lib.lerp, x, y, lib.tensor([0.5, 0.5, 0.5], dtype=lib.float64, device=dev_of(lib, dev)))
    same(case, dev)


# In-place variants ----------------------------------------------------------------------------

INPLACE = {
    "div_floor_": lambda t, o: t.div_(o, rounding_mode="floor"),
    "div_trunc_": lambda t, o: t.div_(o, rounding_mode="trunc"),
    "div_none_": lambda t, o: t.div_(o, rounding_mode=None),
    "divide_": lambda t, o: t.divide_(o),
    "true_divide_": lambda t, o: t.true_divide_(o),
    "multiply_": lambda t, o: t.multiply_(o),
    "subtract_": lambda t, o: t.subtract_(o, alpha=2),
    "floor_divide_": lambda t, o: t.floor_divide_(o),
    "//=": lambda t, o: operator.ifloordiv(t, o),
    "fmod_": lambda t, o: t.fmod_(o),
    "remainder_": lambda t, o: t.remainder_(o),
    "%=": lambda t, o: operator.imod(t, o),
    "hypot_": lambda t, o: t.hypot_(o),
    "xlogy_": lambda t, o: t.xlogy_(o),
    "clamp_": lambda t, o: t.clamp_(-1, 1),
    "clamp_tensor_": lambda t, o: t.clamp_(o - 1, o + 1),
    "clip_": lambda t, o: t.clip_(max=o),
    "clamp_min_": lambda t, o: t.clamp_min_(o),
    "clamp_max_": lambda t, o: t.clamp_max_(0.5),
    "lerp_": lambda t, o: t.lerp_(o, 0.25),
    "lerp_tensor_": lambda t, o: t.lerp_(o, o.sigmoid()),
    "addcmul_": lambda t, o: t.addcmul_(o, o, value=2),
    "addcdiv_": lambda t, o: t.addcdiv_(o, o.abs() + 1),
    "bitwise_and_": lambda t, o: t.bitwise_and_(o),
    "&=": lambda t, o: operator.iand(t, o),
    "|=": lambda t, o: operator.ior(t, o),
    "^=": lambda t, o: operator.ixor(t, o),
    "<<=": lambda t, o: operator.ilshift(t, o),
    ">>=": lambda t, o: operator.irshift(t, o),
    "bitwise_or_": lambda t, o: t.bitwise_or_(o),
    "bitwise_xor_": lambda t, o: t.bitwise_xor_(o),
    "bitwise_left_shift_": lambda t, o: t.bitwise_left_shift_(o),
    "bitwise_right_shift_": lambda t, o: t.bitwise_right_shift_(o),
    "bitwise_not_": lambda t, o: t.bitwise_not_(),
    "logical_and_": lambda t, o: t.logical_and_(o),
    "logical_or_": lambda t, o: t.logical_or_(o),
    "logical_xor_": lambda t, o: t.logical_xor_(o),
    "logical_not_": lambda t, o: t.logical_not_(),
}


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("op", INPLACE)
def test_inplace(op, dev):
    """self written in place (the same tensor, its version bumped) in each dtype, with a broadcast
    operand and a number; on a non-leaf that requires grad: the node and the gradient; torch's
    errors (a leaf that requires grad, a result that cannot be cast to self, a shape self cannot take)."""
    f = INPLACE[op]

    def case(lib, dev):
        res = []
        for da, db in (("float32", "float32"), ("float64", "float32"), ("int64", "int64"), ("bool", "bool"),
                       ("int64", "float32"), ("float32", "int64")):
            t, o = T(lib, dev, DATA[da][0], da), T(lib, dev, DATA[db][1], db)
            r = attempt(lambda t, o: (f(t, o) is t, t, t._version), t, o)
            res.append(r)
            # a number where the method wants a tensor: a TypeError (a method's message counts its
            # arguments without self, torch's parser lists the overloads; not compared)
            r = attempt(lambda t: (f(t, 2) is t, t), T(lib, dev, DATA[da][1], da))
            res.append(r[:2] if r[:2] == ("raised", "TypeError") else r)
        res.append(attempt(f, T(lib, dev, [1.0, 2.0], "float32"), T(lib, dev, G, "float32")))
        x, y = _leaves(lib, dev, (XS, YS))
        res.append(attempt(f, x, y))
        z = x * 1
        r = attempt(f, z, y)
        res.append(r)
        if r[0] == "ok":
            res.append((z.grad_fn.name(), _saved(z.grad_fn),
                        attempt(functools.partial(lib.autograd.grad, allow_unused=True), z.sum(), (x, y))))
        return res
    same(case, dev)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("op", INPLACE)
def test_inplace_shape_errors_first(op, dev):
    """An operand that broadcasts self to a larger shape: torch's output-shape error comes before the
    kernel's dtype error and an integer division by zero (the fuzzer found both)."""
    f = INPLACE[op]

    def case(lib, dev):
        res = []
        for dtype in ("float32", "int64", "bool"):
            t = T(lib, dev, DATA[dtype][0][0][:3], dtype)
            o = T(lib, dev, [[0, 0, 0], [1, 1, 1]], "int64").to(getattr(lib, dtype))
            res.append(attempt(f, t, o))
        return res
    same(case, dev)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("op", INPLACE)
def test_inplace_autograd_check_first(op, dev):
    """check_inplace (a leaf that requires grad, a view of one, a multi-output view) comes before the
    shape, dtype and value errors."""
    f = INPLACE[op]

    def case(lib, dev):
        x = lib.tensor([1.5, -2.0], requires_grad=True, device=dev_of(lib, dev))
        o = T(lib, dev, [[1, 0], [2, 3]], "int64")
        return [attempt(f, x, o), attempt(f, x[0], o), attempt(f, x.unbind()[0], o)]
    same(case, dev)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("op", INPLACE)
def test_inplace_overlap_errors_first(op, dev):
    """An operand sharing self's memory in part (a row of self, self broadcast from a row): torch's
    overlap error (TensorIterator's compute_mem_overlaps) comes before its output-shape error and the
    kernel's dtype error (the fuzzer found both orders)."""
    f = INPLACE[op]

    def case(lib, dev):
        res = []
        for dtype in ("float32", "int64", "bool"):
            t = T(lib, dev, DATA[dtype][0], dtype)
            res.append(attempt(f, t, t[1]))
            res.append(attempt(f, t[0], t))
        return res
    same(case, dev)


@pytest.mark.parametrize("dev", DEVICES)
def test_lerp_bool_or_integer_operands_with_zero_dim_float_weight(dev):
    """lerp.Tensor computes in its operands' common dtype: bool (or int64) self and end with a 0-d
    float weight give a float result (the kernel has no bool version of its own), whose gradient
    torch refuses (a bool subtraction); a 0-d int weight leaves them integral (the kernel's error)."""
    def case(lib, dev):
        d = dev_of(lib, dev)
        b, c = T(lib, dev, B[0], "bool"), T(lib, dev, C[0], "bool")
        i, j = T(lib, dev, I[0], "int64"), T(lib, dev, J[0], "int64")
        w = lib.tensor(0.25, device=d, requires_grad=True)
        out = b.lerp(c, w)
        fn = out.grad_fn
        res = [out, fn.name(), fn._saved_weight, fn._saved_self, fn._saved_end, attempt(lambda: out.sum().backward())]
        res += [attempt(lib.lerp, b[0], c[0], w), attempt(lib.lerp, i, j, lib.tensor(0.5, dtype=lib.float64, device=d)),
                attempt(lib.lerp, b, c, lib.tensor(1, device=d)), attempt(lib.lerp, b, c, 0.5),
                attempt(lib.lerp, b, c, lib.tensor([0.5] * 4, device=d)),
                attempt(lambda: b.clone().lerp_(c, lib.tensor(0.5, device=d)))]
        return res
    same(case, dev)


@pytest.mark.parametrize("dev", DEVICES)
def test_integer_division_of_empty_by_zero(dev):
    """An empty dividend divides by nothing: no ZeroDivisionError from a zero divisor that broadcasts
    to an empty result."""
    def case(lib, dev):
        e = T(lib, dev, [[]], "int64")
        z = T(lib, dev, [0], "int64")
        ops = [lambda: e % z, lambda: lib.fmod(e, z), lambda: e // z, lambda: lib.div(e, z, rounding_mode="trunc"),
               lambda: lib.remainder(e, 0), lambda: lib.fmod(e, 0), lambda: e.clone().fmod_(z), lambda: 5 % e,
               lambda: z % z]
        return [attempt(f) for f in ops]
    same(case, dev)
