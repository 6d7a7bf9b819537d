"""The unary ops of issue 13 against torch: values and dtypes on edge inputs (0, -0, +-inf, nan,
outside the domain, large) for float32, float64, int64 and bool inputs; gradients, node names and
saved fields; gradcheck and gradgradcheck in float64; torch's errors; out=; the in-place variants;
torchlite.special. Every case runs under torchlite on "cpu" and "sim:0" and under torch on "cpu"."""
import math

import pytest

import torchlite
from diff_utils import import_torch, run

torch = import_torch()

DEVICES = ["cpu", "sim:0"]

# Float ops whose result is floating point (integers and bool compute in float32)
FLOAT_OPS = ["exp2", "expm1", "log2", "log10", "log1p", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh",
             "tanh", "asinh", "acosh", "atanh", "erf", "erfc", "erfinv", "rsqrt", "sigmoid", "logit", "sinc",
             "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "exp", "log", "sqrt"]
# Ops whose result keeps the input's dtype (or refuse bool / integers as torch does)
SAME_DTYPE_OPS = ["sign", "sgn", "floor", "ceil", "round", "trunc", "fix", "frac", "square", "nan_to_num", "absolute",
                  "negative"]
ALL_OPS = FLOAT_OPS + SAME_DTYPE_OPS

EDGES = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 0.25, -0.75, 2.0, -3.5, 2.5, -2.5, 10.0, -10.0, 88.0, 100.0, -100.0,
         1e-8, -1e-8, 0.9999, -0.9999, 1.5, 3.0e4, math.inf, -math.inf, math.nan]
INTS = [0, 1, -1, 2, -3, 7, 100, -100]
BOOLS = [True, False, True]
INPUTS = {"float32": EDGES, "float64": EDGES, "int64": INTS, "bool": BOOLS}


def on(lib, dev):
    return dev if lib is torchlite else "cpu"


def same(case):
    assert run(case, torchlite) == run(case, torch)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("dtype", sorted(INPUTS))
def test_zero_dim_and_empty_as_torch(dtype, dev):
    """0-d tensors (numpy makes a 0-d array's results scalars) and empty ones."""
    def case(lib):
        d = on(lib, dev)
        x = lib.tensor(INPUTS[dtype][2], dtype=getattr(lib, dtype), device=d)
        e = lib.zeros(0, 2, dtype=getattr(lib, dtype), device=d)
        got = []
        for name in ALL_OPS:
            for t in (x, e):
                try:
                    got.append(getattr(lib, name)(t))
                except (RuntimeError, NotImplementedError) as err:
                    got.append((type(err).__name__, str(err)))
        return got
    same(case)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("dtype", sorted(INPUTS))
@pytest.mark.parametrize("name", ALL_OPS)
def test_values_and_dtypes_as_torch(name, dtype, dev):
    def case(lib):
        x = lib.tensor(INPUTS[dtype], dtype=getattr(lib, dtype), device=on(lib, dev))
        return getattr(lib, name)(x), getattr(x, name)()
    same(case)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values_on_a_grid_as_torch(dtype, dev):
    """Every float op over a grid of inputs across its domain (rounding: float32 computed in float64)."""
    grid = [i / 37.0 for i in range(-120, 121)]

    def case(lib):
        x = lib.tensor(grid, dtype=getattr(lib, dtype), device=on(lib, dev))
        return [getattr(lib, name)(x) for name in FLOAT_OPS + ["frac", "sign", "floor", "ceil", "round", "trunc"]]
    same(case)


@pytest.mark.parametrize("dev", DEVICES)
def test_erfinv_near_one_and_tiny_as_torch(dev):
    data = [1 - 1e-7, -(1 - 1e-7), 1 - 1e-12, 0.999999, 1e-300, -1e-20, 0.5, 0.8, -0.95, 1.0, -1.0, 1.0000001, 2.0]

    def case(lib):
        d = on(lib, dev)
        return (lib.erfinv(lib.tensor(data, dtype=lib.float64, device=d)),
                lib.erfinv(lib.tensor(data, dtype=lib.float32, device=d)))
    same(case)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_round_decimals_as_torch(dtype, dev):
    data = [2.5, -2.5, 1.2345678, -1.2345678, 0.125, 1e30, -0.0049, 123456.789, math.inf, math.nan, 15.0, 25.0]

    def case(lib):
        x = lib.tensor(data, dtype=getattr(lib, dtype), device=on(lib, dev))
        return [lib.round(x, decimals=d) for d in (0, 1, 2, 3, -1, -2, 40, 400, -400)] + [x.round(decimals=2)]
    same(case)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
def test_nan_to_num_and_logit_arguments_as_torch(dtype, dev):
    def case(lib):
        x = lib.tensor(INPUTS[dtype], dtype=getattr(lib, dtype), device=on(lib, dev))
        return (lib.nan_to_num(x, nan=3.5), lib.nan_to_num(x, posinf=1e300, neginf=-2.0), x.nan_to_num(1.0, 2.0, 3.0),
                lib.nan_to_num(x, neginf=-1e39), lib.logit(x, eps=0.25), lib.logit(x, 0.5), x.logit(2.0),
                lib.logit(x, eps=0.0))
    same(case)


# Gradients ----------------------------------------------------------------------------------------
# A domain where each op is differentiable (and away from floor's jumps)
DOMAIN = {"acosh": [1.5, 2.0, 3.25, 10.0], "arccosh": [1.5, 2.0, 3.25, 10.0], "logit": [0.1, 0.3, 0.7, 0.95],
          "log2": [0.3, 1.5, 2.0, 7.0], "log10": [0.3, 1.5, 2.0, 7.0], "log": [0.3, 1.5, 2.0, 7.0],
          "sqrt": [0.3, 1.5, 2.0, 7.0], "rsqrt": [0.3, 1.5, 2.0, 7.0]}
DEFAULT = [-0.7, -0.2, 0.3, 0.55]
DIFFERENTIABLE = [n for n in ALL_OPS if n not in ("exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid")]


def _saved(node):
    names = sorted(n for n in dir(node) if n.startswith("_saved"))
    return names, [getattr(node, n) for n in names]


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", DIFFERENTIABLE)
def test_gradient_node_and_saved_fields_as_torch(name, dtype, dev):
    def case(lib):
        x = lib.tensor(DOMAIN.get(name, DEFAULT), dtype=getattr(lib, dtype), device=on(lib, dev), requires_grad=True)
        y = getattr(lib, name)(x)
        w = lib.tensor([1.0, -2.0, 0.5, 3.0], dtype=getattr(lib, dtype), device=on(lib, dev))
        (g,) = lib.autograd.grad((y * w).sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x, allow_unused=True) if g.requires_grad else (None,)
        return y, y.grad_fn.name(), _saved(y.grad_fn), g, gg
    same(case)


def _graph_names(node):
    """The names of the nodes reachable from `node`, sorted (the nodes kept alive while walking, so
    that no id is reused)."""
    seen, names, stack = {}, [], [node]
    while stack:
        n = stack.pop()
        if n is None or id(n) in seen:
            continue
        seen[id(n)] = n
        names.append(n.name())
        stack.extend(m for m, _ in n.next_functions)
    return sorted(names)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("name", DIFFERENTIABLE)
def test_double_backward_graph_as_torch(name, dev):
    """The graph a formula records under create_graph: the nodes of upstream's formula (`1 - x` is
    a SubBackward0, `x * 2.0` a MulBackward1, ...)."""
    def case(lib):
        x = lib.tensor(DOMAIN.get(name, DEFAULT), dtype=lib.float64, device=on(lib, dev), requires_grad=True)
        (g,) = lib.autograd.grad(getattr(lib, name)(x).sum(), x, create_graph=True)
        return _graph_names(g.grad_fn) if g.grad_fn is not None else None
    same(case)


@pytest.mark.parametrize("dev", DEVICES)
def test_sinc_double_backward_sums_as_torch(dev):
    """sinc's second derivative near 0 cancels: torch's value depends on the order its formula's
    nodes were made in (fuzzer table 2, seed 177: off by 1e-4 when the sine came last)."""
    def case(lib):
        x = lib.tensor([0.005, -0.01, 0.3], device=on(lib, dev), requires_grad=True)
        (g,) = lib.autograd.grad(lib.sinc(x), x, lib.tensor([1.0, 0.3, -2.7123], device=on(lib, dev)),
                                 create_graph=True)
        return g, lib.autograd.grad(g.sum(), x)
    same(case)


@pytest.mark.parametrize("dev", DEVICES)
def test_gradients_at_edges_as_torch(dev):
    """Gradients where the formulas meet 0, +-1, inf and nan (rsqrt of 0, atanh at 1, nan_to_num's
    mask, logit outside [eps, 1 - eps], sinc at 0, sgn's zero gradient)."""
    data = [0.0, 1.0, -1.0, 0.5, 2.0, math.inf, -math.inf, math.nan]
    names = ["asin", "acos", "atanh", "acosh", "asinh", "atan", "rsqrt", "log1p", "log2", "erfinv", "erf", "erfc",
             "exp2", "expm1", "tan", "sinh", "cosh", "nan_to_num", "sinc", "sgn", "sign", "frac", "square", "logit"]

    def case(lib):
        out = []
        for name in names:
            x = lib.tensor(data, dtype=lib.float64, device=on(lib, dev), requires_grad=True)
            out.append(lib.autograd.grad(getattr(lib, name)(x).sum(), x)[0])
        x = lib.tensor(data, dtype=lib.float64, device=on(lib, dev), requires_grad=True)
        out.append(lib.autograd.grad(lib.logit(x, eps=0.25).sum(), x)[0])
        out.append(lib.autograd.grad(lib.logit(x, eps=0.25).sum(), x, create_graph=True)[0])
        out.append(lib.autograd.grad(lib.logit(x).sum(), x, create_graph=True)[0])
        return out
    same(case)


@pytest.mark.parametrize("dev", DEVICES)
def test_node_fields_of_the_argument_ops_as_torch(dev):
    def case(lib):
        x = lib.tensor([0.2, 0.6], dtype=lib.float64, device=on(lib, dev), requires_grad=True)
        nodes = [lib.logit(x, 0.1).grad_fn, lib.logit(x).grad_fn, lib.round(x, decimals=2).grad_fn,
                 lib.nan_to_num(x, 1.0).grad_fn, lib.square(x).grad_fn, lib.sgn(x).grad_fn, lib.fix(x).grad_fn,
                 lib.special.round(x).grad_fn, lib.special.expit(x).grad_fn, lib.special.logit(x, 0.3).grad_fn]
        return [(n.name(), _saved(n)) for n in nodes]
    same(case)


GRADCHECK = {n: DOMAIN.get(n, DEFAULT) for n in DIFFERENTIABLE}


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("name", sorted(GRADCHECK))
def test_gradcheck_and_gradgradcheck(name, dev):
    x = torchlite.tensor(GRADCHECK[name], dtype=torchlite.float64, device=dev, requires_grad=True)
    fn = getattr(torchlite, name)
    assert torchlite.autograd.gradcheck(fn, (x,))
    assert torchlite.autograd.gradgradcheck(fn, (x,))


@pytest.mark.parametrize("dev", DEVICES)
def test_gradcheck_of_the_argument_forms(dev):
    x = torchlite.tensor([0.1, 0.3, 0.7, 0.95], dtype=torchlite.float64, device=dev, requires_grad=True)
    for fn in (lambda t: torchlite.logit(t, eps=0.2), lambda t: torchlite.round(t * 3.3, decimals=1),
               lambda t: torchlite.nan_to_num(t.log() * 0.5, nan=2.0), torchlite.special.expit,
               torchlite.special.erfinv, lambda t: torchlite.special.logit(t, 0.01)):
        assert torchlite.autograd.gradcheck(fn, (x,))
        assert torchlite.autograd.gradgradcheck(fn, (x,))


# Errors and out= ----------------------------------------------------------------------------------
ERRORS = {
    "floor_bool": lambda lib, d: lib.floor(lib.tensor([True], device=d)),
    "ceil_bool": lambda lib, d: lib.ceil(lib.tensor([True], device=d)),
    "round_bool": lambda lib, d: lib.round(lib.tensor([True], device=d)),
    "trunc_bool": lambda lib, d: lib.tensor([True], device=d).trunc(),
    "fix_bool": lambda lib, d: lib.fix(lib.tensor([False], device=d)),
    "frac_int": lambda lib, d: lib.frac(lib.tensor([1, 2], device=d)),
    "frac_bool": lambda lib, d: lib.tensor([True], device=d).frac(),
    "round_decimals_int": lambda lib, d: lib.round(lib.tensor([15, 24], device=d), decimals=-1),
    "round_decimals_bool": lambda lib, d: lib.round(lib.tensor([True], device=d), decimals=1),
    "special_round_int": lambda lib, d: lib.special.round(lib.tensor([15], device=d)),
    "square_bool": lambda lib, d: lib.square(lib.tensor([True, False], device=d)),
    "sign_bool": lambda lib, d: lib.sign(lib.tensor([True, False], device=d)),
    # argument errors worded from the schemas (torchlite.* and torchlite.special.*)
    "erf_two_positional": lambda lib, d: lib.erf(lib.ones(2, device=d), 3),
    "logit_eps_str": lambda lib, d: lib.logit(lib.ones(2, device=d), "a"),
    "nan_to_num_str": lambda lib, d: lib.nan_to_num(lib.ones(2, device=d), "a"),
    "square_list": lambda lib, d: lib.square([1.0]),
    "special_erf_two_positional": lambda lib, d: lib.special.erf(lib.ones(2, device=d), 3),
    "special_round_positional": lambda lib, d: lib.special.round(lib.ones(2, device=d), 2),
    "special_logit_eps_str": lambda lib, d: lib.special.logit(lib.ones(2, device=d), "a"),
    "special_unknown_keyword": lambda lib, d: lib.special.erf(lib.ones(2, device=d), foo=1),
    "special_input_keyword": lambda lib, d: lib.special.erf(input=lib.ones(2, device=d)),
}


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_as_torch(name, dev):
    same(lambda lib: ERRORS[name](lib, on(lib, dev)))


OUT_DTYPES = ["float32", "float64", "int64", "bool"]


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("name", ALL_OPS)
def test_out_as_torch(name, dev):
    """out= of every op: each input dtype into each out dtype (torch's cast and same-dtype errors),
    a resized out, and the refusal of an input that requires grad."""
    def case(lib):
        d = on(lib, dev)
        got = []
        for dtype in ["float32", "int64", "bool"]:
            x = lib.tensor(INPUTS[dtype][:3], dtype=getattr(lib, dtype), device=d)
            for odt in OUT_DTYPES:
                out = lib.zeros(3, dtype=getattr(lib, odt), device=d)
                try:
                    r = getattr(lib, name)(x, out=out)
                    got.append((r is out, r, out._version))
                except (RuntimeError, NotImplementedError) as e:
                    got.append((type(e).__name__, str(e)))
        x = lib.tensor([0.25, 0.5], device=d, requires_grad=True)
        try:
            getattr(lib, name)(x, out=lib.empty(2, device=d))
        except RuntimeError as e:
            got.append(str(e))
        with lib.no_grad():
            got.append(getattr(lib, name)(x, out=lib.empty(0, device=d)))
        return got
    same(case)


@pytest.mark.parametrize("dev", DEVICES)
def test_out_of_the_argument_forms_as_torch(dev):
    def case(lib):
        d = on(lib, dev)
        x = lib.tensor([0.25, 1.2345, math.nan, math.inf], device=d)
        outs = [lib.empty(4, device=d) for _ in range(6)]
        lib.round(x, decimals=2, out=outs[0])
        lib.logit(x, 0.3, out=outs[1])
        lib.nan_to_num(x, nan=1.5, posinf=7.0, out=outs[2])
        lib.special.round(x, decimals=1, out=outs[3])
        lib.special.logit(x, eps=0.1, out=outs[4])
        lib.special.expit(x, out=outs[5])
        try:
            lib.nan_to_num(x, out=lib.empty(4, dtype=lib.float64, device=d))
        except RuntimeError as e:
            outs.append(str(e))
        y = lib.tensor([0.5], device=d, requires_grad=True)
        for fn in (lambda o: lib.special.round(y, out=o), lambda o: lib.special.expit(y, out=o),
                   lambda o: lib.arcsin(y, out=o), lambda o: lib.fix(y, out=o), lambda o: lib.square(y, out=o)):
            try:
                fn(lib.empty(1, device=d))
            except RuntimeError as e:
                outs.append(str(e))
        return outs
    same(case)


# In-place variants --------------------------------------------------------------------------------
INPLACE = ["exp2_", "expm1_", "log2_", "log10_", "log1p_", "tan_", "asin_", "arcsin_", "acos_", "arccos_", "atan_",
           "arctan_", "sinh_", "cosh_", "erf_", "erfc_", "erfinv_", "rsqrt_", "sign_", "sgn_", "floor_", "ceil_",
           "round_", "trunc_", "fix_", "frac_", "square_", "sinc_", "logit_", "nan_to_num_", "asinh_", "arcsinh_",
           "acosh_", "arccosh_", "atanh_", "arctanh_", "absolute_", "negative_"]
METHOD_ONLY = {"erfinv_", "sign_", "sgn_", "absolute_"}


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("name", INPLACE)
def test_inplace_as_torch(name, dev):
    """Each in-place variant on a non-leaf: the value, the node, its saved fields, the gradient
    (or torch's refusal: asinh_'s node is not implemented upstream), and on integer and bool tensors."""
    def case(lib):
        d = on(lib, dev)
        data = DOMAIN.get(name.rstrip("_"), DEFAULT)
        a = lib.tensor(data, dtype=lib.float64, device=d, requires_grad=True)
        x = a * 1
        y = getattr(x, name)()
        got = [y is x, x, x.grad_fn.name(), _saved(x.grad_fn), x._version]
        try:
            got.append(lib.autograd.grad((x * x).sum(), a))
        except (RuntimeError, NotImplementedError) as e:
            got.append((type(e).__name__, str(e)))
        if name not in METHOD_ONLY:
            z = lib.tensor(data, device=d)
            got.append((getattr(lib, name)(z) is z, z))
        for dtype in ("int64", "bool"):
            z = lib.tensor(INPUTS[dtype][:3], dtype=getattr(lib, dtype), device=d)
            try:
                got.append((getattr(z, name)() is z, z))
            except (RuntimeError, NotImplementedError) as e:
                got.append((type(e).__name__, str(e)))
        try:
            getattr(a, name)()
        except RuntimeError as e:
            got.append(str(e))
        return got
    same(case)


@pytest.mark.parametrize("name", ["erfc_", "floor_", "exp2_", "logit_", "exp_"])
def test_inplace_on_an_inference_tensor_as_torch(name):
    """Outside inference mode an inference tensor (no Autograd key) is written below autograd even
    where it requires grad, and then the version bump refuses (torch's order). On "cpu" only: a
    factory on "sim:0" under inference_mode does not make an inference tensor yet (the copy to
    the device, _C._to_device, leaves the mode's flag off)."""
    def case(lib):
        d = "cpu"
        got = []
        for rg in (True, False):
            with lib.inference_mode():
                x = lib.full((3,), 0.25, device=d, requires_grad=rg)
            try:
                getattr(x, name)()
            except RuntimeError as e:
                got.append(str(e))
            got.append(x)
            with lib.inference_mode():
                got.append(getattr(x, name)())
        return got
    same(case)


@pytest.mark.parametrize("dev", DEVICES)
def test_inplace_argument_forms_as_torch(dev):
    def case(lib):
        d = on(lib, dev)
        a = lib.tensor([0.1, 0.35, 0.7, 1.2345], dtype=lib.float64, device=d, requires_grad=True)
        got = []
        for fn in (lambda t: t.round_(decimals=2), lambda t: lib.round_(t, decimals=-1), lambda t: t.logit_(0.2),
                   lambda t: lib.logit_(t, eps=0.3), lambda t: t.nan_to_num_(nan=1.0, posinf=2.0),
                   lambda t: lib.nan_to_num_(t.log_().log_())):
            x = a * 1
            fn(x)
            got += [x, x.grad_fn.name(), _saved(x.grad_fn), lib.autograd.grad((x * x).sum(), a)]
        return got
    same(case)


# torch.special ------------------------------------------------------------------------------------
SPECIAL = {"erf": [], "erfc": [], "erfinv": [], "exp2": [], "expm1": [], "log1p": [], "expit": [], "sinc": [],
           "logit": [0.2], "round": []}


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("name", sorted(SPECIAL))
def test_special_as_torch(name, dev):
    def case(lib):
        d = on(lib, dev)
        x = lib.tensor([-0.5, 0.2, 0.75, 1.5, math.nan], dtype=lib.float64, device=d, requires_grad=True)
        y = getattr(lib.special, name)(x, *SPECIAL[name])
        (g,) = lib.autograd.grad(y.sum(), x)
        z = getattr(lib.special, name)(lib.tensor([1, 0, 2], device=d))
        return y, y.grad_fn.name(), _saved(y.grad_fn), g, z
    same(case)


def test_special_module_lists_its_names():
    assert sorted(torchlite.special.__all__) == sorted(SPECIAL)
    assert all(n in dir(torch.special) for n in torchlite.special.__all__)
