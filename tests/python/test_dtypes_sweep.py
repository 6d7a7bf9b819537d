"""The dtypes of issue 13 against torch: float16 (with gradients), int32, int16, int8
and uint8 next to float32, float64, int64 and bool.

1. Type promotion of every pair of dtypes across the three operand classes (a
   tensor with dimensions, a 0-d tensor, a Python number) for add, sub, mul, div
   and the comparisons: the result's dtype and values, or torch's error.
2. The existing ops (arithmetic, float functions, reductions, matmul, where, cat,
   stack, views, indexing, clone, copy_, fill_) on every new dtype, on "cpu" and
   "sim:0": values, dtypes, errors; for float16 also the gradients and node names.
3. tensor()/from_numpy keeping numpy dtypes, casts, requires_grad on integers,
   integer wraparound, masks, printing, numpy(), pickling and DLPack.

Tolerances (float16 computes in float32 and rounds once per op, as torch's CPU
kernels; torch's vectorised float32 exp/sin/... may differ from numpy's by an
ulp before that rounding, and reductions add in another order in float32):
  float16: rtol 2**-9 (two float16 ulps), atol 1e-4 for elementwise results;
           rtol 4e-3, atol 1e-3 for reductions, matmul and gradients;
  float32: rtol 2e-6, atol 1e-6 (float32 rounding, as diff_utils);
  float64, integers, bool: exact but for float64's 1e-12.

The op sweep over every (op, dtype, device) runs in full with `-m dtypes_full_sweep`
(or TORCHLITE_FULL_DTYPE_SWEEP=1); by default a fixed sample of it runs, every
op and every dtype at least once.
"""
import os
import pickle
import random
import warnings

import numpy as np
import pytest

import torchlite

from diff_utils import import_torch

torch = import_torch()

DTYPES = ("float16", "int32", "int16", "int8", "uint8", "float32", "float64", "int64", "bool")
NEW = ("float16", "int32", "int16", "int8", "uint8")
DEVICES = ("cpu", "sim:0")
FULL = os.environ.get("TORCHLITE_FULL_DTYPE_SWEEP", "") not in ("", "0")

TOL = {"float16": (2.0 ** -9, 1e-4), "float32": (2e-6, 1e-6), "float64": (1e-12, 1e-12)}
LOOSE = {"float16": (4e-3, 1e-3), "float32": (1e-5, 1e-6), "float64": (1e-12, 1e-12)}


class V:
    """A tensor's dtype, shape and values, equal to another's within its dtype's tolerance."""

    def __init__(self, t, loose=False):
        self.dtype = str(t.dtype).split(".")[-1]
        self.shape = tuple(t.shape)
        self.array = np.asarray(t.detach().cpu().numpy(), dtype=np.float64)
        self.loose = loose

    def __eq__(self, other):
        if not isinstance(other, V) or (self.dtype, self.shape) != (other.dtype, other.shape):
            return False
        rtol, atol = (LOOSE if self.loose or other.loose else TOL).get(self.dtype, (0, 0))
        return np.allclose(self.array, other.array, rtol=rtol, atol=atol, equal_nan=True)

    def __repr__(self):
        return f"V({self.array.tolist()}, {self.dtype})"


def norm(value, loose=False):
    if isinstance(value, (torch.Tensor, torchlite.Tensor)):
        return V(value, loose)
    if isinstance(value, (list, tuple)):
        return type(value)(norm(v, loose) for v in value)
    if isinstance(value, str):
        return value.replace("torchlite", "torch")
    if isinstance(value, (torch.dtype, torchlite.dtype)):
        return str(value).replace("torchlite", "torch")
    return value


def run(fn, lib, loose=False):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ("ok", norm(fn(lib), loose))
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        return ("raised", type(e).__name__, norm(str(e)))


def same(fn, loose=False):
    got, want = run(fn, torchlite, loose), run(fn, torch, loose)
    assert got == want, f"torchlite: {got}\ntorch:     {want}"
    return got


# 1. Type promotion ------------------------------------------------------------------

# values every dtype holds exactly, with wraparound for the narrow integers under mul
DATA = {"float16": [1.5, -2.25, 100.0], "float32": [1.5, -2.25, 100.0], "float64": [1.5, -2.25, 100.0],
        "int64": [3, -7, 100], "int32": [3, -7, 100], "int16": [3, -7, 100], "int8": [3, -7, 100],
        "uint8": [3, 250, 100], "bool": [True, False, True]}
ZERO = {"float16": 0.75, "float32": 0.75, "float64": 0.75, "int64": 5, "int32": 5, "int16": 5, "int8": 5,
        "uint8": 200, "bool": True}
NUMBERS = {"bool": True, "int64": 7, "float32": 0.1}  # a Python number's class (a float: the default dtype)


def operand(lib, kind, name):
    """A tensor with dimensions, a 0-d tensor, or a Python number of dtype class `name`."""
    if kind == "dim":
        return lib.tensor(DATA[name], dtype=getattr(lib, name))
    if kind == "0d":
        return lib.tensor(ZERO[name], dtype=getattr(lib, name))
    return NUMBERS[name]


BINARY = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b, "div": lambda a, b: a / b,
    "eq": lambda a, b: a == b, "lt": lambda a, b: a < b, "ge": lambda a, b: a >= b,
}


def _promotion_params():
    for ka, kb in (("dim", "dim"), ("dim", "0d"), ("0d", "dim"), ("0d", "0d"), ("dim", "number"), ("0d", "number")):
        for da in DTYPES:
            for db in (DTYPES if kb != "number" else NUMBERS):
                yield pytest.param(ka, da, kb, db, id=f"{ka}-{da}-{kb}-{db}")


@pytest.mark.parametrize("ka, da, kb, db", _promotion_params())
def test_promotion_of_every_pair(ka, da, kb, db):
    def case(lib):
        a, b = operand(lib, ka, da), operand(lib, kb, db)
        out = []
        for name, op in BINARY.items():
            r = run(lambda lib, op=op: op(a, b), lib)
            if r[0] == "ok":
                r = ("ok", r[1], r[1].dtype)
            out.append((name, r))
        out.append(("result_type", str(lib.result_type(a, b))))
        if kb != "number":
            out.append(("promote_types", str(lib.promote_types(a.dtype, b.dtype))))
            out.append(("can_cast", lib.can_cast(a.dtype, b.dtype), lib.can_cast(b.dtype, a.dtype)))
        return out
    same(case)


@pytest.mark.parametrize("da", DTYPES)
def test_promotion_number_on_the_left(da):
    def case(lib):
        a = operand(lib, "dim", da)
        return [(n, run(lambda lib, n=n: (n + a, n * a, n / a, n - a), lib)) for n in (True, 3, -1.5)]
    same(case)


# 2. The existing ops on every new dtype -----------------------------------------------

X = [[1.5, -2.0, 0.5], [3.0, 0.25, -1.0]]
XI = [[3, -2, 7], [100, 0, -1]]
XU = [[3, 2, 7], [100, 0, 255]]


def data_for(name):
    return X if name in ("float16", "float32", "float64") else XU if name == "uint8" else XI


def make(lib, name, dev, data=None, grad=False):
    t = lib.tensor(data if data is not None else data_for(name), dtype=getattr(lib, name), device=dev)
    return t.requires_grad_() if grad else t


def pos(lib, name, dev, grad=False):
    """Positive values, for log, sqrt and pow."""
    data = [[1.5, 2.0, 0.5], [3.0, 0.25, 4.0]] if name.startswith("float") else [[3, 2, 7], [10, 1, 4]]
    return make(lib, name, dev, data, grad)


OPS = {
    "add": lambda lib, x, y: (x + y, x + 2, x.add(y, alpha=2)),
    "sub": lambda lib, x, y: (x - y, x - 3, 5 - x),
    "mul": lambda lib, x, y: (x * y, x * 3, x * x),
    "div": lambda lib, x, y: (x / (y * 0 + 3), x / 4, x / 2.5),
    "pow": lambda lib, x, y: (x ** 2, x.abs() ** 0.5 if x.dtype.is_floating_point else x ** 3),
    "neg": lambda lib, x, y: (-x,),
    "abs": lambda lib, x, y: (x.abs(), lib.abs(x)),
    "exp": lambda lib, x, y: (x.exp(),),
    "log": lambda lib, x, y: ((x.abs() + 1).log() if x.dtype.is_floating_point else x.log(),),
    "sin": lambda lib, x, y: (x.sin(),),
    "cos": lambda lib, x, y: (x.cos(),),
    "tanh": lambda lib, x, y: (x.tanh(),),
    "sigmoid": lambda lib, x, y: (x.sigmoid(),),
    "relu": lambda lib, x, y: (x.relu(),),
    "sqrt": lambda lib, x, y: (x.abs().sqrt(),),
    "sum": lambda lib, x, y: (x.sum(), x.sum(0), x.sum(1, keepdim=True)),
    "mean": lambda lib, x, y: (x.mean(), x.mean(1)),
    "max": lambda lib, x, y: (x.max(), x.max(1)[0], x.max(1)[1]),
    "min": lambda lib, x, y: (x.min(), x.min(0)[0]),
    "matmul": lambda lib, x, y: (x @ y.t(), x[0] @ y[1]),
    "where": lambda lib, x, y: (lib.where(x > y, x, y), lib.where(x > 1, x, 0)),
    "cat": lambda lib, x, y: (lib.cat([x, y]), lib.cat([x, y], 1)),
    "stack": lambda lib, x, y: (lib.stack([x, y]),),
    "views": lambda lib, x, y: (x.view(3, 2), x.t(), x.reshape(-1), x.permute(1, 0), x.unsqueeze(0).expand(2, 2, 3),
                                x.transpose(0, 1).contiguous()),
    "indexing": lambda lib, x, y: (x[1], x[:, 1:], x[x > 0] if x.dtype != lib.bool else x[x], x[lib.tensor([1, 0])]),
    "clone": lambda lib, x, y: (x.clone(),),
    "copy_": lambda lib, x, y: (lib.zeros(2, 3, dtype=x.dtype, device=x.device).copy_(x),),
    "fill_": lambda lib, x, y: (x.detach().clone().fill_(2),),
}
LOOSE_OPS = {"sum", "mean", "matmul"}
NOT_DIFFERENTIABLE_AT = {"relu", "abs", "max", "min"}  # float16 ties at these data are none; listed for clarity


def _op_params():
    params = [(op, name, dev) for op in OPS for name in NEW for dev in DEVICES]
    if FULL:
        chosen = params
    else:
        rng = random.Random(13)
        # every op on float16 and int8 on the cpu, every op on one more dtype and device drawn at random
        chosen = [p for p in params if p[1] in ("float16", "int8") and p[2] == "cpu"]
        chosen += [(op, rng.choice(NEW[1:]), rng.choice(DEVICES)) for op in OPS]
    for op, name, dev in params:
        marks = [] if (op, name, dev) in chosen else [pytest.mark.dtypes_full_sweep]
        yield pytest.param(op, name, dev, marks=marks, id=f"{op}-{name}-{dev}")


@pytest.mark.parametrize("op, name, dev", _op_params())
def test_op_on_dtype(op, name, dev):
    # the cases marked dtypes_full_sweep are deselected unless asked for (conftest.py)
    fn = OPS[op]
    floating = name == "float16"

    def case(lib):
        d = dev if lib is torchlite else "cpu"
        base = pos if op in ("log", "sqrt", "pow") else make
        x = base(lib, name, d, grad=floating)
        y = make(lib, name, d, grad=floating)
        outs = fn(lib, x, y)
        result = [outs, [str(o.dtype) for o in outs]]
        if floating:
            result.append([o.grad_fn.name() if o.grad_fn is not None else None for o in outs])
            diff = [o for o in outs if o.requires_grad]
            if diff:
                weights = [lib.arange(o.numel(), device=d).reshape(o.shape).to(o.dtype) / 4 + 1 for o in diff]
                lib.autograd.backward(diff, weights)
            result.append((x.grad, y.grad))
        return result
    same(case, loose=op in LOOSE_OPS or floating)


def test_float16_computes_in_float32_rounded_once():
    # torch casts the operands to float16 (TensorIterator), computes in float32 and rounds once;
    # mul and div read a number operand in float32 (original_scalar_value<opmath_t>), add does not:
    # 3 * 1.00033 = 3.00099 rounds to 3.00195, but 2048 + 1.0001 is 2048 + 1 = 2049, a tie, 2048
    def case(lib):
        x = lib.tensor([2048.0, 0.1, 65504.0, 3.0], dtype=lib.float16)
        return (x + 1.0001, x * 1.00033, x / 3, x - 0.0001, x * 2, (x * 0.5).sum(), x.mean(), x < 0.1, x == 0.1,
                x + lib.tensor(1.0001), x * lib.tensor(1.00033, dtype=lib.float64), x.sigmoid(), x ** 3)
    got = same(case)
    assert got[1][0].array[0] == 2048.0 and got[1][1].array[3] == 3.001953125


def test_float16_sum_accumulates_in_float32():
    def case(lib):
        x = lib.ones(4096, dtype=lib.float16) * 0.1  # a float16 running sum would stall at 256
        return x.sum(), x.mean(), x.view(64, 64).sum(0)
    got = same(case, loose=True)
    assert abs(got[1][0].array - 409.5) < 1


@pytest.mark.parametrize("dev", DEVICES)
def test_float16_gradient_accumulates_and_broadcasts(dev):
    def case(lib):
        d = dev if lib is torchlite else "cpu"
        w = lib.tensor([0.1, 0.2, 0.3], dtype=lib.float16, device=d, requires_grad=True)
        x = lib.tensor([[1.0] * 3] * 700, dtype=lib.float16, device=d)
        (x * w).sum().backward()
        (w * 2).sum().backward()  # accumulates into w.grad (AccumulateGrad adds in float, rounds once)
        b = lib.tensor([0.5], dtype=lib.float16, device=d, requires_grad=True)
        (x + b).sum().backward()  # b's gradient summed over the broadcast (sum_to, in float32)
        return w.grad, b.grad, w.grad.dtype
    same(case, loose=True)


def test_float16_gradcheck_in_float64_of_the_formulas():
    # the float16 ops' formulas are the float64 ones: gradcheck them there
    x = torchlite.tensor([[0.5, -1.25], [2.0, 0.75]], dtype=torchlite.float64, requires_grad=True)
    for fn in (lambda t: (t * t).sigmoid().sum(), lambda t: (t.exp() / 3).tanh()):
        assert torchlite.autograd.gradcheck(fn, (x,))
        assert torchlite.autograd.gradgradcheck(fn, (x,))


# 3. Construction, casts, errors, integer semantics, printing, interop --------------

NP = {"float16": np.float16, "float32": np.float32, "float64": np.float64, "int64": np.int64, "int32": np.int32,
      "int16": np.int16, "int8": np.int8, "uint8": np.uint8, "bool": np.bool_}


@pytest.mark.parametrize("name", DTYPES)
def test_tensor_keeps_numpy_dtypes(name):
    def case(lib):
        arr = np.array([1, 0, 1], dtype=NP[name])
        return [(x, str(x.dtype)) for x in (lib.tensor(arr), lib.tensor(arr[0]), lib.tensor([arr[0], arr[1]]),
                                            lib.as_tensor(arr), lib.from_numpy(arr), lib.tensor(arr, dtype=lib.int8))]
    same(case)


def test_tensor_infers_dtypes_of_mixed_data():
    def case(lib):
        return [str(lib.tensor(d).dtype) for d in (
            [np.int32(1), np.float16(2)], [np.int8(1), 2], [np.uint8(1), np.int8(2)], [np.float16(1), 2.5],
            [True, np.int16(3)], [1, 2.5], [[np.int32(1)], [np.int32(2)]], np.float32(1.5))]
    same(case)


@pytest.mark.parametrize("name", DTYPES)
def test_dtype_objects(name):
    def case(lib):
        d = getattr(lib, name)
        return repr(d), str(d), d.is_floating_point, d.itemsize, d.is_signed, d.is_complex, d.to_real() is d, \
            pickle.loads(pickle.dumps(d)) is d
    same(case)
    aliases = {"half": "float16", "int": "int32", "short": "int16", "float": "float32", "double": "float64",
               "long": "int64"}
    for alias, real in aliases.items():
        assert getattr(torchlite, alias) is getattr(torchlite, real)


@pytest.mark.parametrize("dev", DEVICES)
def test_casts(dev):
    def case(lib):
        d = dev if lib is torchlite else "cpu"
        x = lib.tensor([[1.5, -2.75, 100.25], [0.0, -0.5, 65504.0]], device=d)
        small = lib.tensor([[1.5, -2.75, 100.25], [0.0, -0.5, 127.0]], device=d)  # within int8's range
        i = lib.tensor([[1, -2, 300], [0, 255, -129]], device=d)
        out = [x.half(), x.int(), x.short(), small.char(), small.abs().byte(), x.bool(), x.to(lib.float16),
               x.type(lib.int16), x.double().half().float()]
        for t in (i, i > 0, x.half()):
            out += [t.half(), t.int(), t.short(), t.char(), t.byte(), t.bool(), t.float(), t.to(dtype=lib.int8),
                    t.type(lib.int16), t.double().half().float()]
        return out
    same(case)


def test_requires_grad_of_integers_is_refused():
    for name in ("int32", "int16", "int8", "uint8", "bool"):
        same(lambda lib, name=name: lib.tensor([1], dtype=getattr(lib, name), requires_grad=True))
        same(lambda lib, name=name: lib.tensor([1], dtype=getattr(lib, name)).requires_grad_())
        same(lambda lib, name=name: lib.zeros(2, dtype=getattr(lib, name), requires_grad=True))
    same(lambda lib: lib.tensor([1], dtype=lib.float16, requires_grad=True).requires_grad)


def test_integer_wraparound_and_division():
    def case(lib):
        i8 = lib.tensor([100, -128, 127, -7], dtype=lib.int8)
        u8 = lib.tensor([250, 0, 3, 7], dtype=lib.uint8)
        i16 = lib.tensor([30000, -32768, 5, -7], dtype=lib.int16)
        i32 = lib.tensor([2 ** 31 - 1, -2 ** 31, 5, -7], dtype=lib.int32)
        out = []
        for t in (i8, u8, i16, i32):
            out += [t + t, t * 3, t - 1, t + 1000, -t, t.abs(), t / 2, t * 2.5, t == 259, t < 1000, t.sum(),
                    t.sum().dtype, t.max(), t * t, t ** 2, 3 - t, t / t]
        return out
    same(case)


def test_narrow_integer_number_conversions_are_checked():
    def case(lib):
        out = []
        for name, values in (("int8", (127, 128, -129, 1.5, 1e10)), ("uint8", (255, 256, -1, -256)),
                             ("int16", (2 ** 15,)), ("int32", (2 ** 31,)), ("float16", (65504.0, 70000.0, 1e6))):
            for v in values:
                t = lib.zeros(2, dtype=getattr(lib, name))
                out.append(run(lambda lib, t=t, v=v: t.fill_(v), lib))
                out.append(run(lambda lib, t=t, v=v: t.add(1, alpha=v), lib))
        t = lib.zeros(3, dtype=lib.int8)
        out.append(run(lambda lib: t.__setitem__(0, 1000), lib))
        c = lib.tensor([True, False])
        for name, v in (("float16", 1e10), ("float16", 70000.0), ("uint8", -1), ("int8", 1000), ("int8", 1.5),
                        ("int16", 1000), ("float32", 1e40)):
            z = lib.zeros(2, dtype=getattr(lib, name))
            out.append(run(lambda lib, z=z, v=v: (lib.where(c, z, v), lib.where(c, v, z)), lib))
        return out
    same(case)


def test_inplace_casting_rules():
    def case(lib):
        out = []
        for a, b in (("int8", "int16"), ("uint8", "int8"), ("int8", "float16"), ("float16", "float32"),
                     ("float16", "int64"), ("bool", "uint8"), ("int32", "bool")):
            x = lib.tensor([1, 2, 3], dtype=getattr(lib, a))
            y = lib.tensor([3, 1, 2], dtype=getattr(lib, b))
            out.append(run(lambda lib, x=x, y=y: (x.clone().add_(y), x.clone().mul_(y), x.clone().copy_(y)), lib))
            out.append(run(lambda lib, x=x: x.clone().add_(1.5), lib))
            out.append(run(lambda lib, x=x: x.clone().add_(1000), lib))
        return out
    same(case)


@pytest.mark.parametrize("dev", DEVICES)
def test_bool_and_uint8_masks(dev):
    def case(lib):
        d = dev if lib is torchlite else "cpu"
        x = lib.tensor([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]], dtype=lib.float16, device=d)
        m = x > 0
        out = [x[m], x[m.byte()], x[0, m[0]], x[m.byte()[1]], x[lib.tensor([1, 0], dtype=lib.int32, device=d)],
               run(lambda lib: x[m[0]], lib), run(lambda lib: x[lib.tensor([1], dtype=lib.int8, device=d)], lib)]
        y = x.clone()
        y[m] = 0
        out.append(y)
        i = lib.tensor([5, 6, 7], dtype=lib.int8, device=d)
        i[lib.tensor([True, False, True], device=d)] = 1
        out.append(i)
        return out
    same(case)


@pytest.mark.parametrize("name", NEW)
def test_printing_numpy_dlpack(name):
    def case(lib):
        x = make(lib, name, "cpu")
        out = [repr(x), str(x), repr(x[0, 0]), repr(x.sum()), x.numpy().dtype.name, x.tolist(), x[0, 0].item(),
               lib.from_dlpack(x), str(lib.from_dlpack(x).dtype), np.from_dlpack(x).dtype.name]
        if name == "float16":
            out.append(repr(make(lib, name, "cpu", grad=True) * 2))
        return out
    same(case)
    # torchlite pickles dtypes (test_dtype_objects), not tensors


def test_c_side_carries_every_dtype():
    # from_numpy -> C++ tensor -> numpy, and C++ AccumulateGrad / sum_to / to on float16
    for name, t in NP.items():
        arr = np.arange(6).reshape(2, 3).astype(t)
        x = torchlite.from_numpy(arr)
        assert x.dtype is getattr(torchlite, name)
        assert x.numpy().dtype == arr.dtype and np.shares_memory(x.numpy(), arr)
        assert x.element_size() == arr.itemsize
    w = torchlite.zeros(3, dtype=torchlite.float16, requires_grad=True)
    for _ in range(3):
        (w * 1.5).sum().backward()
    assert w.grad.dtype is torchlite.float16 and w.grad.tolist() == [4.5, 4.5, 4.5]
    # a float32 gradient reaching a float16 input is cast back by the engine (validate_outputs)
    h = torchlite.ones(2, dtype=torchlite.float16, requires_grad=True)
    (h.float() * 3).sum().backward()
    assert h.grad.dtype is torchlite.float16 and h.grad.tolist() == [3.0, 3.0]


@pytest.mark.parametrize("default", ("float64", "float16"))
def test_default_dtype_reaches_factories_promotion_and_printing(default):
    def case(lib):
        lib.set_default_dtype(getattr(lib, default))
        try:
            i = lib.tensor([1, 2, 3])
            x = lib.tensor([1.5, 2.5])
            return [str(lib.get_default_dtype()), x, repr(x), repr(x.float()), lib.zeros(2), lib.ones(1, 2),
                    lib.full((2,), 1.5), lib.arange(0.5, 2), i / 2, i * 0.5, i.exp(), i.sigmoid(),
                    lib.tensor([1, 2.5]), str(lib.result_type(2, 2.5)), str(lib.result_type(i, 2.5)),
                    repr(lib.finfo()), lib.tensor([1.5], dtype=lib.float32) + 2.5, lib.empty(0).dtype]
        finally:
            lib.set_default_dtype(lib.float32)
    same(case)
    assert torchlite.get_default_dtype() is torchlite.float32


def test_mixed_dtypes_in_cat_stack_where_matmul():
    def case(lib):
        out = []
        for a, b in (("float16", "float32"), ("int8", "uint8"), ("int32", "float16"), ("bool", "int16"),
                     ("uint8", "bool"), ("float16", "float64")):
            x = lib.tensor([[1, 0], [2, 3]], dtype=getattr(lib, a))
            y = lib.tensor([[3, 1], [0, 1]], dtype=getattr(lib, b))
            out.append(run(lambda lib, x=x, y=y: (lib.cat([x, y]), lib.stack([x, y]), lib.where(x > 1, x, y)), lib))
            out.append(run(lambda lib, x=x, y=y: x @ y, lib))
            out.append(run(lambda lib, x=x, y=y: x[0] @ y[0], lib))
        return out
    same(case)


def test_factories_check_numbers_into_narrow_dtypes():
    def case(lib):
        out = []
        for name, values in (("int8", ([300], [-1], [300.5], [1.7], [True, 2])), ("uint8", ([-1], [-300], [300],
                             [1.7, -1.2])), ("int16", ([[1, 300]], [2 ** 15])), ("int32", (2 ** 31, [-2 ** 31])),
                             ("float16", ([1e6], [65504.0]))):
            for v in values:
                out.append(run(lambda lib, v=v, name=name: lib.tensor(v, dtype=getattr(lib, name)), lib))
            for v in (300, -1, 256, 1.5, 1e6, 2 ** 31):
                out.append(run(lambda lib, v=v, name=name: lib.full((2,), v, dtype=getattr(lib, name)), lib))
        return out
    same(case)


@pytest.mark.parametrize("dev", DEVICES)
def test_inplace_variants_on_new_dtypes(dev):
    def case(lib):
        d = dev if lib is torchlite else "cpu"
        out = []
        for name in NEW:
            base = pos(lib, name, d)
            for op in ("exp_", "sqrt_", "sigmoid_", "neg_", "abs_", "relu_", "tanh_"):
                out.append(run(lambda lib, base=base, op=op: getattr(base.clone(), op)(), lib))
            out.append(run(lambda lib, base=base: base.clone().add_(base).mul_(3).sub_(1), lib))
            out.append(run(lambda lib, base=base: base.clone().div_(2), lib))
        w = lib.tensor([0.5, 1.5], dtype=lib.float16, device=d, requires_grad=True)
        y = (w * 2).exp_()
        y.sum().backward()
        out += [y, y.grad_fn.name(), w.grad]
        return out
    same(case, loose=True)


MIXED_AUTOGRAD = {
    "f16_times_f32": lambda lib, h: h * lib.tensor([2.0, 3.0, 4.0], device=h.device, requires_grad=True),
    "f16_and_0d_f64": lambda lib, h: h * lib.tensor(2.0, dtype=lib.float64, device=h.device) + h / 3 - 1,
    "matmul_relu_mean": lambda lib, h: (h.view(3, 1) @ h.view(1, 3)).relu().mean(),
    "with_int8": lambda lib, h: h * lib.tensor([1, 2, 3], dtype=lib.int8, device=h.device) +
    h ** lib.tensor([1.0, 2.0, 3.0], device=h.device),
    "where_f64": lambda lib, h: lib.where(h > 0, h, h.double()),
    "cat_f32": lambda lib, h: lib.cat([h, h.float() * 2]),
    "expand_slice_max": lambda lib, h: h.view(1, 3).expand(4, 3)[:, 1:].max(),
    "setitem": lambda lib, h: _setitem(lib, h),
}


def _setitem(lib, h):
    x = lib.zeros(2, 3, dtype=lib.float16, device=h.device)
    x[0] = h * 2
    x[1, lib.tensor([0, 2], device=h.device)] = h[:2]
    return x * x


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("name", sorted(MIXED_AUTOGRAD))
def test_float16_gradients_across_dtypes(name, dev):
    def case(lib):
        d = dev if lib is torchlite else "cpu"
        h = lib.tensor([0.5, 1.5, -2.0], dtype=lib.float16, device=d, requires_grad=True)
        y = MIXED_AUTOGRAD[name](lib, h)
        y.sum().backward()
        return y, str(y.dtype), y.grad_fn.name(), h.grad
    same(case, loose=True)
