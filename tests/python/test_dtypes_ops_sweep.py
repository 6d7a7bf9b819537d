"""Every op of issue 13's lists through every dtype, against torch.

The ops are read from the op table (tools/autograd/native_functions.yaml): every overload in the
pre-issue section and in issue 13's sections (creation, unary, binary, reductions, shape, linalg,
utilities) and issue 12's Scalar/out overloads of those ops, but for the `.out` overloads (out= is
test_diff_out's) and the Dimname ones (named tensors are not ported). Each overload is called with
inputs built from its schema (CASES names the ones whose arguments need shapes or values of their
own) on each of the nine dtypes (float16/32/64, int8/16/32/64, uint8, bool): values, dtypes and
errors (type and message; where torch refuses a dtype torchlite must refuse it the same way) are
compared with torch; on float16 also the node names and the gradients of the inputs. Factories
(zeros, arange, linspace, eye, full, ...) are called with dtype= in the same way.

Tolerances (float16 computes in float32 and rounds once per op, as torch's CPU kernels; torch's
vectorised float32 functions may differ from numpy's by an ulp before that rounding, reductions and
matmul add in another order):
  float16: rtol 4e-3, atol 1e-3 (values and gradients);
  float32: rtol 1e-5, atol 1e-6;   float64: rtol 1e-12, atol 1e-12;   integers, bool: exact.

The full sweep (every overload x dtype on "cpu", and on "sim:0") runs with `-m dtypes_full_sweep`
(or TORCHLITE_FULL_DTYPE_SWEEP=1); by default a fixed sample of it runs (SAMPLE cases drawn with a
fixed seed, every overload at least once across the two devices).
"""
import os
import random
import re
import warnings

import numpy as np
import pytest

import torchlite

from diff_utils import import_torch

torch = import_torch()

HERE = os.path.dirname(os.path.abspath(__file__))
TABLE = os.path.join(HERE, "..", "..", "tools", "autograd", "native_functions.yaml")
DTYPES = ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool")
FLOATS = ("float16", "float32", "float64")
FULL = os.environ.get("TORCHLITE_FULL_DTYPE_SWEEP", "") not in ("", "0")
SECTIONS = {"creation", "unary", "binary", "reductions", "shape", "linalg", "utilities", "args", None}
TOL = {"float16": (4e-3, 1e-3), "float32": (1e-5, 1e-6), "float64": (1e-12, 1e-12)}
SAMPLE = 400


def table_overloads():
    """The overloads of the op table's sections named in SECTIONS (None: the pre-issue ops)."""
    section, found = None, []
    with open(TABLE) as f:
        for line in f:
            m = re.match(r"# ==== issue (\d+): (\w+) ====", line)
            if m:
                section = m.group(2) if m.group(1) in ("12", "13") else "other"
                continue
            m = re.match(r"- func: ([\w.]+)\((.*)\) -> ", line)
            if m and section in SECTIONS:
                found.append((m.group(1), m.group(2)))
    return found


# the overloads left out of the sweep, and why
LEFT_OUT = {
    "normal.Tensor_float": "random: values differ from torch's generator (issue 14); dtypes in test_diff_rng",
    "normal.float_Tensor": "random", "normal.Tensor_Tensor": "random", "multinomial": "random",
    "bernoulli": "random", "bernoulli.p": "random", "bernoulli_.float": "random", "uniform_": "random",
    "normal_": "random", "exponential_": "random", "geometric_": "random", "random_": "random",
    "random_.from": "random", "random_.to": "random", "bernoulli_.Tensor": "random",
}


class T:
    """The inputs of one case: tensors of `dtype` on `dev` (float16 ones require grad)."""

    X = {"f": [[0.5, -0.25, 0.75], [0.125, 1.5, -1.0]], "i": [[3, -2, 7], [1, 0, -1]], "u": [[3, 2, 7], [1, 0, 255]],
         "b": [[True, False, True], [False, True, True]]}
    Y = {"f": [[0.25, 0.5, -0.5], [2.0, -1.5, 0.375]], "i": [[2, 1, 3], [-3, 5, 2]], "u": [[2, 1, 3], [3, 5, 2]],
         "b": [[True, True, False], [False, True, False]]}

    def __init__(self, lib, dtype, dev):
        self.lib, self.name, self.dev = lib, dtype, dev
        self.dtype = getattr(lib, dtype)
        self.kind = "f" if dtype in FLOATS else "b" if dtype == "bool" else "u" if dtype == "uint8" else "i"
        self.grad = dtype == "float16"
        self.leaves = []

    def t(self, data, grad=None):
        x = self.lib.tensor(data, dtype=self.dtype, device=self.dev)
        if self.grad if grad is None else grad:
            x.requires_grad_()
            self.leaves.append(x)
        return x

    def x(self):
        return self.t(self.X[self.kind])

    def y(self):
        return self.t(self.Y[self.kind])

    def m(self, shape):
        """A tensor of `shape` from the dtype's data."""
        n = int(np.prod(shape))
        flat = (self.X[self.kind][0] + self.Y[self.kind][1] + self.X[self.kind][1] + self.Y[self.kind][0]) * 2
        return self.t(np.array(flat[:n], dtype=object).reshape(shape).tolist())

    def vec(self, n=3):
        return self.m((n,))

    def i64(self, data):
        return self.lib.tensor(data, dtype=self.lib.int64, device=self.dev)

    def mask(self):
        return self.lib.tensor([[True, False, True], [False, False, True]], device=self.dev)

    def sorted(self):
        """An ascending vector of the dtype."""
        data = {"f": [-1.0, 0.25, 0.5, 2.0], "i": [-2, 0, 3, 7], "u": [0, 2, 3, 7], "b": [False, True]}[self.kind]
        return self.t(data, grad=False)


def _call(lib, name, args, kwargs):
    """torch.<name> or Tensor.<name> (the method where there is no function), torch.special's."""
    if name.startswith("special_"):
        return getattr(lib.special, name[len("special_"):])(*args, **kwargs)
    if name.endswith("_") or not hasattr(lib, name):
        return getattr(args[0], name)(*args[1:], **kwargs)
    return getattr(lib, name)(*args, **kwargs)


OTHER_TENSORS = {"other", "exponent", "end", "tensor1", "tensor2", "weight", "min", "max", "src", "source",
                 "test_elements", "tensor", "vec2"}


def schema_case(overload, args):
    """The case a plain schema gives: self and the other tensors of one shape, numbers, dims."""
    name = overload.split(".")[0]
    positional, kwargs, kw_only = [], [], False
    for arg in [a.strip() for a in args.split(",") if a.strip()]:
        if arg == "*":
            kw_only = True
            continue
        if "=" in arg:
            continue
        typ, pname = arg.rsplit(" ", 1)
        if typ.startswith("Tensor(a!)") or typ.startswith("Tensor(a)") or typ == "Tensor" and pname in (
                "self", "elements", "input", "condition"):
            kind = "mask" if pname == "condition" else "self"
        elif typ in ("Tensor", "Tensor?") and pname in OTHER_TENSORS:
            kind = "other"
        elif typ in ("Scalar", "Scalar?"):
            kind = "scalar"
        elif typ in ("float", "float?"):
            kind = "float"
        elif typ == "int" and pname in ("dim", "dim0", "dim1", "dimension", "axis0", "axis1"):
            kind = "dim"
        elif typ == "int" and pname == "decimals":
            kind = "one"
        elif (typ, pname) == ("bool", "stable") or (typ, pname) == ("bool?", "stable"):
            kind = "true"
        elif (typ, pname) == ("str?", "rounding_mode"):
            kind = "floor"
        else:
            return None
        (kwargs if kw_only else positional).append((pname, kind))
    if not positional or positional[0][1] not in ("self", "mask"):
        return None

    def case(lib, t):
        value = {"self": None, "other": None, "scalar": 2, "float": 0.5, "dim": 1, "one": 1, "true": True,
                 "floor": "floor"}
        out = []
        for _, kind in positional:
            if kind == "self":
                out.append(t.x().clone() if name.endswith("_") and t.grad else t.x())
            elif kind == "mask":
                out.append(t.mask())
            elif kind == "other":
                out.append(t.y())
            else:
                out.append(value[kind])
        if positional[0][1] == "mask":  # where(condition, self, other)
            pass
        kw = {pname: value[kind] for pname, kind in kwargs}
        return _call(lib, name, out, kw)
    return case


def _dims(lib, t):
    return t.m((2, 3))


# cases whose arguments a plain schema does not give: overload -> fn(lib, t) -> outputs
def _dispatch_refusal(call):
    """The first sentence of the dispatcher's NotImplementedError, or the call's result."""
    try:
        return call()
    except NotImplementedError as e:
        return str(e).split(". ")[0]


CASES = {
    "as_strided": lambda lib, t: t.x().as_strided((2, 2), (1, 2), 1),
    "cat": lambda lib, t: lib.cat([t.x(), t.y()], 1),
    "stack": lambda lib, t: lib.stack([t.x(), t.y()], 1),
    "chunk": lambda lib, t: t.x().chunk(2, 1),
    "copy_": lambda lib, t: lib.zeros(2, 3, dtype=t.dtype, device=t.dev).copy_(t.x()),
    "diagonal": lambda lib, t: t.x().diagonal(),
    "expand": lambda lib, t: t.x()[:1].expand(3, 3),
    "fill_.Scalar": lambda lib, t: t.x().clone().fill_(1),
    "fill_.Tensor": lambda lib, t: t.x().clone().fill_(t.x()[0, 1]),
    "view.dtype": lambda lib, t: t.x().view(lib.int16 if t.x().element_size() == 2 else lib.uint8),
    "matmul": lambda lib, t: (t.x() @ t.y().t(), t.vec() @ t.vec()),
    "max.dim": lambda lib, t: t.x().max(1),
    "min.dim": lambda lib, t: t.x().min(0),
    "mean.dim": lambda lib, t: t.x().mean(1),
    "sum.dim_IntList": lambda lib, t: (t.x().sum(1), t.x().sum((0, 1), keepdim=True)),
    "narrow": lambda lib, t: t.x().narrow(1, 1, 2),
    "narrow.Tensor": lambda lib, t: t.x().narrow(1, lib.tensor(1), 2),
    "permute": lambda lib, t: t.x().permute(1, 0),
    "pow.Tensor_Scalar": lambda lib, t: (t.x() ** 2, t.x() ** 0.5),
    "pow.Scalar": lambda lib, t: lib.pow(2, t.x()),
    "pow_.Scalar": lambda lib, t: t.x().clone().pow_(2),
    "reshape": lambda lib, t: t.x().reshape(3, -1),
    "view": lambda lib, t: t.x().view(-1),
    "split.Tensor": lambda lib, t: t.x().split(2, 1),
    "split.sizes": lambda lib, t: t.x().split([1, 2], 1),
    "squeeze.dim": lambda lib, t: t.x()[:1].squeeze(0),
    "squeeze.dims": lambda lib, t: t.x()[:1].squeeze((0, 1)),
    "squeeze": lambda lib, t: t.x()[:1].squeeze(),
    "transpose.int": lambda lib, t: t.x().transpose(0, 1),
    "unbind.int": lambda lib, t: t.x().unbind(1),
    "unsqueeze": lambda lib, t: t.x().unsqueeze(1),
    "where.self": lambda lib, t: lib.where(t.mask(), t.x(), t.y()),
    "where": lambda lib, t: lib.where(t.x()),
    "where.ScalarSelf": lambda lib, t: lib.where(t.mask(), 2, t.y()),
    "where.ScalarOther": lambda lib, t: lib.where(t.mask(), t.x(), 2),
    "where.Scalar": lambda lib, t: lib.where(t.mask(), 2, 3),
    # creation
    "tril": lambda lib, t: (t.x().tril(), t.m((3, 3)).tril(-1)), "triu": lambda lib, t: t.m((3, 3)).triu(1),
    "tril_": lambda lib, t: t.x().clone().tril_(), "triu_": lambda lib, t: t.x().clone().triu_(),
    "diag_embed": lambda lib, t: lib.diag_embed(t.x()), "diag": lambda lib, t: (lib.diag(t.vec()), lib.diag(t.x())),
    # binary
    "clamp": lambda lib, t: (t.x().clamp(0, 2), t.x().clamp(min=1)),
    "clamp_": lambda lib, t: t.x().clone().clamp_(0, 2),
    "clip": lambda lib, t: t.x().clip(0, 2), "clip_": lambda lib, t: t.x().clone().clip_(0, 2),
    "clamp.Tensor": lambda lib, t: lib.clamp(t.x(), t.y(), None),
    "clamp_.Tensor": lambda lib, t: t.x().clone().clamp_(None, t.y()),
    "clip.Tensor": lambda lib, t: lib.clip(t.x(), t.y(), t.y() + 1),
    "clip_.Tensor": lambda lib, t: t.x().clone().clip_(t.y()),
    "lerp.Scalar": lambda lib, t: lib.lerp(t.x(), t.y(), 0.25),
    "lerp_.Scalar": lambda lib, t: t.x().clone().lerp_(t.y(), 0.25),
    "addcdiv": lambda lib, t: lib.addcdiv(t.x(), t.y(), t.y() + 3, value=0.5),
    "addcdiv_": lambda lib, t: t.x().clone().addcdiv_(t.y(), t.y() + 3),
    # reductions
    "kthvalue": lambda lib, t: t.x().kthvalue(2, 1), "topk": lambda lib, t: t.x().topk(2, 1),
    "cumsum_": lambda lib, t: t.x().clone().cumsum_(1), "cumprod_": lambda lib, t: t.x().clone().cumprod_(0),
    "logsumexp": lambda lib, t: t.x().logsumexp(1),
    "count_nonzero.dim_IntList": lambda lib, t: lib.count_nonzero(t.x(), (0, 1)),
    "all.dims": lambda lib, t: t.x().all((0, 1)), "any.dims": lambda lib, t: t.x().any((0,)),
    "std.dim": lambda lib, t: t.x().std(1), "var.dim": lambda lib, t: t.x().var(0),
    "std_mean.dim": lambda lib, t: lib.std_mean(t.x(), 1), "var_mean.dim": lambda lib, t: lib.var_mean(t.x(), 1),
    "std.correction": lambda lib, t: t.x().std(1, correction=0),
    "var.correction": lambda lib, t: t.x().var(correction=2),
    "std_mean.correction": lambda lib, t: lib.std_mean(t.x(), correction=0),
    "var_mean.correction": lambda lib, t: lib.var_mean(t.x(), (0, 1), correction=1, keepdim=True),
    "amax": lambda lib, t: (t.x().amax(), t.x().amax(1)), "amin": lambda lib, t: t.x().amin((0, 1)),
    "argmax": lambda lib, t: (t.x().argmax(), t.x().argmax(1)), "argmin": lambda lib, t: t.x().argmin(0),
    "nanmean": lambda lib, t: (t.x().nanmean(), t.x().nanmean(1)), "nansum": lambda lib, t: t.x().nansum(1),
    "prod": lambda lib, t: t.x().prod(), "prod.dim_int": lambda lib, t: t.x().prod(1),
    "median": lambda lib, t: t.x().median(), "median.dim": lambda lib, t: t.x().median(1),
    "nanmedian": lambda lib, t: t.x().nanmedian(), "nanmedian.dim": lambda lib, t: t.x().nanmedian(0),
    "mode": lambda lib, t: t.m((2, 4)).mode(1),
    "sort": lambda lib, t: (t.x().sort(1), t.x().sort(0, descending=True)),
    "argsort": lambda lib, t: t.x().argsort(1),
    "count_nonzero": lambda lib, t: (lib.count_nonzero(t.x()), lib.count_nonzero(t.x(), 1)),
    # shape
    "flatten.using_ints": lambda lib, t: t.m((2, 3, 1)).flatten(1),
    "unflatten.int": lambda lib, t: t.x().unflatten(1, (3, 1)),
    "movedim.intlist": lambda lib, t: t.m((2, 3, 1)).movedim((0, 1), (2, 0)),
    "moveaxis.intlist": lambda lib, t: t.m((2, 3, 1)).moveaxis([0], [2]),
    "movedim.int": lambda lib, t: t.m((2, 3, 1)).movedim(0, 2),
    "moveaxis.int": lambda lib, t: lib.moveaxis(t.x(), 0, 1),
    "select.int": lambda lib, t: t.x().select(1, 2),
    "broadcast_to": lambda lib, t: t.x()[:1].broadcast_to((3, 2, 3)),
    "broadcast_tensors": lambda lib, t: lib.broadcast_tensors(t.x(), t.vec()),
    "atleast_1d": lambda lib, t: lib.atleast_1d(t.x()[0, 0]), "atleast_2d": lambda lib, t: lib.atleast_2d(t.vec()),
    "atleast_3d": lambda lib, t: lib.atleast_3d(t.x()),
    "atleast_1d.Sequence": lambda lib, t: lib.atleast_1d(t.x()[0, 0], t.vec()),
    "atleast_2d.Sequence": lambda lib, t: lib.atleast_2d([t.vec(), t.x()]),
    "atleast_3d.Sequence": lambda lib, t: lib.atleast_3d(t.vec(), t.x()[0, 0]),
    "hstack": lambda lib, t: lib.hstack([t.x(), t.y()]), "vstack": lambda lib, t: lib.vstack([t.x(), t.vec()]),
    "row_stack": lambda lib, t: lib.row_stack([t.x(), t.y()]), "dstack": lambda lib, t: lib.dstack([t.x(), t.y()]),
    "column_stack": lambda lib, t: lib.column_stack([t.x().t(), t.m((3,))]),
    "unfold": lambda lib, t: t.x().unfold(1, 2, 1),
    "flip": lambda lib, t: t.x().flip(1), "roll": lambda lib, t: (t.x().roll(1, 1), t.x().roll(2)),
    "rot90": lambda lib, t: t.x().rot90(1, (0, 1)),
    "repeat": lambda lib, t: t.x().repeat(2, 1, 2), "tile": lambda lib, t: t.x().tile((2,)),
    "repeat_interleave.Tensor": lambda lib, t: lib.repeat_interleave(t.sorted().abs()),
    "repeat_interleave.self_Tensor": lambda lib, t: t.x().repeat_interleave(t.i64([1, 0, 2]), 1),
    "repeat_interleave.self_int": lambda lib, t: t.x().repeat_interleave(2, 0),
    "gather": lambda lib, t: t.x().gather(1, t.i64([[0, 0], [2, 1]])),
    "scatter.src": lambda lib, t: t.x().scatter(1, t.i64([[0, 1], [2, 0]]), t.y()),
    "scatter_.src": lambda lib, t: t.x().clone().scatter_(1, t.i64([[0, 1], [2, 0]]), t.y()),
    "scatter_.value": lambda lib, t: t.x().clone().scatter_(1, t.i64([[0, 1], [2, 0]]), 1),
    "scatter_.reduce": lambda lib, t: t.x().clone().scatter_(1, t.i64([[0, 1], [2, 0]]), t.y(), reduce="add"),
    "scatter_.value_reduce": lambda lib, t: t.x().clone().scatter_(1, t.i64([[0, 1], [2, 0]]), 2,
                                                                    reduce="multiply"),
    "scatter_add": lambda lib, t: t.x().scatter_add(1, t.i64([[0, 0], [2, 0]]), t.y()),
    "scatter_add_": lambda lib, t: t.x().clone().scatter_add_(0, t.i64([[1, 0, 1]]), t.y()),
    "scatter_reduce.two": lambda lib, t: (t.x().scatter_reduce(1, t.i64([[0, 0], [2, 0]]), t.y(), "sum"),
                                          t.x().scatter_reduce(1, t.i64([[0, 0], [2, 0]]), t.y(), "amax",
                                                               include_self=False),
                                          t.x().scatter_reduce(1, t.i64([[0, 0], [2, 0]]), t.y(), "mean")),
    "scatter.value": lambda lib, t: t.x().scatter(1, t.i64([[0], [2]]), 2),
    "scatter.reduce": lambda lib, t: t.x().scatter(1, t.i64([[0, 0], [2, 0]]), t.y(), reduce="add"),
    "scatter.value_reduce": lambda lib, t: t.x().scatter(1, t.i64([[0], [2]]), 2, reduce="multiply"),
    "index_select": lambda lib, t: t.x().index_select(1, t.i64([2, 0, 2])),
    "index_add": lambda lib, t: t.x().index_add(1, t.i64([2, 0]), t.m((2, 2)), alpha=2),
    "index_add_": lambda lib, t: t.x().clone().index_add_(0, t.i64([1]), t.m((1, 3))),
    "index_copy": lambda lib, t: t.x().index_copy(1, t.i64([2, 0]), t.m((2, 2))),
    "index_copy_": lambda lib, t: t.x().clone().index_copy_(0, t.i64([1]), t.m((1, 3))),
    "index_fill.int_Scalar": lambda lib, t: t.x().index_fill(1, t.i64([2, 0]), 1),
    "index_fill_.int_Scalar": lambda lib, t: t.x().clone().index_fill_(0, t.i64([1]), 1),
    "index_fill_.int_Tensor": lambda lib, t: t.x().clone().index_fill_(0, t.i64([1]), t.x()[1, 1]),
    "index_fill.int_Tensor": lambda lib, t: t.x().index_fill(1, t.i64([2]), lib.tensor(1, dtype=t.dtype)),
    "masked_fill.Scalar": lambda lib, t: t.x().masked_fill(t.mask(), 1),
    "masked_fill_.Scalar": lambda lib, t: t.x().clone().masked_fill_(t.mask(), 1),
    "masked_fill_.Tensor": lambda lib, t: t.x().clone().masked_fill_(t.mask(), t.x()[0, 0]),
    "masked_fill.Tensor": lambda lib, t: t.x().masked_fill(t.mask(), lib.tensor(1, dtype=t.dtype)),
    "masked_select": lambda lib, t: t.x().masked_select(t.mask()),
    "masked_scatter": lambda lib, t: t.x().masked_scatter(t.mask(), t.y()),
    "masked_scatter_": lambda lib, t: t.x().clone().masked_scatter_(t.mask(), t.y()),
    "take": lambda lib, t: t.x().take(t.i64([[5, 0], [1, 1]])),
    "take_along_dim": lambda lib, t: (lib.take_along_dim(t.x(), t.i64([[2], [0]]), 1),
                                      lib.take_along_dim(t.x(), t.i64([4, 0]))),
    "nonzero": lambda lib, t: (t.x().nonzero(), t.x().nonzero(as_tuple=True)),
    # linear algebra
    # (singular vectors are defined up to sign: the values and the product U diag(S) V^T compared)
    "svd": lambda lib, t: (lambda r: (r.S, (r.U * r.S.unsqueeze(-2)) @ r.V.mT))(t.x().svd()),
    "mm": lambda lib, t: t.x().mm(t.y().t()), "bmm": lambda lib, t: t.m((2, 1, 3)).bmm(t.m((2, 3, 2))),
    "mv": lambda lib, t: t.x().mv(t.vec()), "dot": lambda lib, t: t.vec().dot(t.vec()),
    "vdot": lambda lib, t: lib.vdot(t.vec(), t.vec()), "outer": lambda lib, t: lib.outer(t.vec(2), t.vec()),
    "ger": lambda lib, t: t.vec(2).ger(t.vec()),
    "addmm": lambda lib, t: lib.addmm(t.m((2, 2)), t.x(), t.y().t(), beta=2),
    # the out_dtype overloads: refused on the CPU (compared up to the dispatcher's backend list)
    "mm.dtype": lambda lib, t: _dispatch_refusal(lambda: lib.mm(t.x(), t.y().t(), lib.float32)),
    "bmm.dtype": lambda lib, t: _dispatch_refusal(lambda: lib.bmm(t.m((2, 1, 3)), t.m((2, 3, 2)), lib.float32)),
    "addmm.dtype": lambda lib, t: _dispatch_refusal(lambda: lib.addmm(t.m((2, 2)), t.x(), t.y().t(), lib.float32)),
    "baddbmm.dtype": lambda lib, t: _dispatch_refusal(
        lambda: lib.baddbmm(t.m((2, 1, 2)), t.m((2, 1, 3)), t.m((2, 3, 2)), lib.float32)),
    "addmm_": lambda lib, t: t.m((2, 2)).clone().addmm_(t.x(), t.y().t()),
    "addmv": lambda lib, t: lib.addmv(t.vec(2), t.x(), t.vec()),
    "addmv_": lambda lib, t: t.vec(2).clone().addmv_(t.x(), t.vec(), alpha=2),
    "baddbmm": lambda lib, t: lib.baddbmm(t.m((2, 1, 2)), t.m((2, 1, 3)), t.m((2, 3, 2))),
    "baddbmm_": lambda lib, t: t.m((2, 1, 2)).clone().baddbmm_(t.m((2, 1, 3)), t.m((2, 3, 2))),
    "addbmm": lambda lib, t: lib.addbmm(t.m((1, 2)), t.m((2, 1, 3)), t.m((2, 3, 2))),
    "addbmm_": lambda lib, t: t.m((1, 2)).clone().addbmm_(t.m((2, 1, 3)), t.m((2, 3, 2))),
    "trace": lambda lib, t: t.x().trace(), "cross": lambda lib, t: lib.cross(t.x(), t.y(), dim=1),
    "kron": lambda lib, t: lib.kron(t.x(), t.vec(2)),
    "det": lambda lib, t: t.m((3, 3)).det(), "logdet": lambda lib, t: t.m((2, 2)).logdet(),
    "slogdet": lambda lib, t: lib.slogdet(t.m((2, 2))), "inverse": lambda lib, t: t.m((2, 2)).inverse(),
    "matrix_power": lambda lib, t: (t.m((2, 2)).matrix_power(2), t.m((2, 2)).matrix_power(0)),
    "norm.ScalarOpt_dim": lambda lib, t: (t.x().norm(2, 1), t.x().norm(1, (0, 1))),
    # utilities
    "isin.Tensor_Tensor": lambda lib, t: lib.isin(t.x(), t.y()),
    "isin.Tensor_Scalar": lambda lib, t: lib.isin(t.x(), 1),
    "isin.Scalar_Tensor": lambda lib, t: lib.isin(1, t.x()),
    # (one call per case: two nodes that refuse their backward on a device race in the engine's device
    # thread, as torch's do on cuda; which error comes first is not fixed)
    "unique": lambda lib, t: lib.unique(t.m((2, 4)), return_inverse=True, return_counts=True),
    "unique_consecutive": lambda lib, t: lib.unique_consecutive(t.m((5,)), return_counts=True),
    "bincount": lambda lib, t: (t.sorted().abs().bincount(), t.i64([0, 2, 2]).bincount(t.vec(), minlength=4)),
    "histc": lambda lib, t: t.x().histc(4, -1, 3),
    "searchsorted.Tensor": lambda lib, t: lib.searchsorted(t.sorted(), t.x()),
    "searchsorted.Scalar": lambda lib, t: lib.searchsorted(t.sorted(), 1, right=True),
    "bucketize.Tensor": lambda lib, t: lib.bucketize(t.x(), t.sorted(), out_int32=True),
    "bucketize.Scalar": lambda lib, t: lib.bucketize(1, t.sorted()),
    "fill_diagonal_": lambda lib, t: t.x().clone().fill_diagonal_(1),
    "equal": lambda lib, t: (t.x().equal(t.y()), lib.equal(t.x(), t.x())),
    "xlogy.Scalar_Self": lambda lib, t: lib.xlogy(2, t.x()),
    "remainder.Scalar_Tensor": lambda lib, t: lib.remainder(5, t.y()),
    "bitwise_and.Scalar_Tensor": lambda lib, t: lib.bitwise_and(3, t.x()),
    "bitwise_or.Scalar_Tensor": lambda lib, t: lib.bitwise_or(3, t.x()),
    "bitwise_xor.Scalar_Tensor": lambda lib, t: lib.bitwise_xor(3, t.x()),
    "bitwise_left_shift.Scalar_Tensor": lambda lib, t: lib.bitwise_left_shift(3, t.y()),
    "bitwise_right_shift.Scalar_Tensor": lambda lib, t: lib.bitwise_right_shift(3, t.y()),
    "subtract.Scalar": lambda lib, t: lib.subtract(t.x(), 2, alpha=2),
}

def _setitem(lib, t, key, value):
    x = t.x().clone()
    x[key] = value
    return x


def _spd(lib, t):
    return t.t([[2, 1], [1, 2]])


# the rest of the lists that are not table entries: operators, torch.linalg, Python functions,
# indexing and setitem, Tensor utilities
EXTRA = {
    "op_and": lambda lib, t: (t.x() & t.y(), t.x() & 3), "op_or": lambda lib, t: (t.x() | t.y(), 1 | t.x()),
    "op_xor": lambda lib, t: (t.x() ^ t.y(), t.x() ^ True), "op_invert": lambda lib, t: ~t.x(),
    "op_shifts": lambda lib, t: (t.x() << 1, t.x() >> 1, t.x() << t.t([[1, 0, 2], [2, 1, 0]]), 2 >> t.x()),
    "op_floordiv": lambda lib, t: (t.x() // t.y(), t.x() // 2, 3 // t.y()),
    "op_mod": lambda lib, t: (t.x() % t.y(), t.x() % 2, 5 % t.y()),
    "op_matmul": lambda lib, t: (t.x() @ t.y().t(), t.y().t().__rmatmul__(t.x())),
    "op_compare": lambda lib, t: (t.x() < t.y(), t.x() <= 1, t.x() > t.y(), 2 >= t.x(), t.x() == t.y(), t.x() != 1),
    "op_inplace": lambda lib, t: _inplace_operators(t),
    "unique_dim": lambda lib, t: lib.unique(t.m((2, 4)), dim=1, return_inverse=True),
    "einsum": lambda lib, t: (lib.einsum("ij,kj->ik", t.x(), t.y()), lib.einsum("ii", t.m((2, 2)))),
    "tensordot": lambda lib, t: lib.tensordot(t.x(), t.y(), ([1], [1])),
    "norm_function": lambda lib, t: (lib.norm(t.x()), t.x().norm(), t.x().norm(p=1, dim=1)),
    "linalg.norm": lambda lib, t: (lib.linalg.norm(t.x()), lib.linalg.norm(t.vec(), 3)),
    "linalg.vector_norm": lambda lib, t: (lib.linalg.vector_norm(t.x()), lib.linalg.vector_norm(t.x(), 1, dim=1)),
    "linalg.matrix_norm": lambda lib, t: lib.linalg.matrix_norm(t.x()),
    "linalg.inv": lambda lib, t: lib.linalg.inv(t.m((2, 2))),
    "linalg.solve": lambda lib, t: lib.linalg.solve(_spd(lib, t), t.m((2, 1))),
    "linalg.cholesky": lambda lib, t: lib.linalg.cholesky(_spd(lib, t)),
    "linalg.det": lambda lib, t: lib.linalg.det(t.m((3, 3))),
    "linalg.matrix_power": lambda lib, t: lib.linalg.matrix_power(t.m((2, 2)), 3),
    "getitem": lambda lib, t: (t.x()[t.mask()], t.x()[t.i64([1, 0])], t.x()[:, [0, 2]], t.x()[..., None, 1],
                               t.x()[:, t.mask()[0]], t.x()[[True, False]], t.x()[1, 1:]),
    "setitem": lambda lib, t: (_setitem(lib, t, t.mask(), 1), _setitem(lib, t, (0, t.i64([2, 0])), t.y()[1, :2]),
                               _setitem(lib, t, (Ellipsis, 1), t.y()[0, :2]), _setitem(lib, t, [True, False], 0)),
    "clone_formats": lambda lib, t: (t.x().clone(memory_format=lib.contiguous_format), t.x().t().contiguous(),
                                     t.x().t().is_contiguous(),
                                     t.x().clone(memory_format=lib.preserve_format).stride()),
    "utilities": lambda lib, t: (t.x().tolist(), t.x().element_size(), t.x().nbytes, t.x()[0, 0].item(),
                                 t.x().type(), str(t.x().dtype), t.x().is_floating_point(), t.x().is_signed()),
    "casts": lambda lib, t: (t.x().half(), t.x().float(), t.x().double(), t.x().int(), t.x().short(), t.x().char(),
                             t.x().byte(), t.x().bool(), t.x().long(), t.x().to(lib.float16), t.x().type(lib.int8)),
    "new_factories": lambda lib, t: (t.x().new_tensor([1, 2]), t.x().new_zeros(2), t.x().new_ones(1, 2),
                                     t.x().new_full((2,), 1), t.x().new_empty(2).dtype),
    "like_factories": lambda lib, t: (lib.zeros_like(t.x()), lib.ones_like(t.x()), lib.full_like(t.x(), 1),
                                      lib.empty_like(t.x()).dtype, lib.rand_like(t.x()).dtype if t.kind == "f" else 0),
    "allclose": lambda lib, t: (lib.allclose(t.x(), t.x()), t.x().isclose(t.y(), equal_nan=True)),
    "softmax": lambda lib, t: (t.x().softmax(1), t.x().log_softmax(0)),
    "meshgrid": lambda lib, t: lib.meshgrid(t.vec(2), t.vec(), indexing="ij"),
    "apply_": lambda lib, t: t.x().clone().apply_(lambda v: v * 2),
}


def _inplace_operators(t):
    x = t.x().clone()
    x += t.y()
    x *= 2
    x -= t.y()
    return x


# the factories (the creation list) with dtype=
FACTORIES = {
    "zeros": lambda lib, d: lib.zeros(2, 3, dtype=d), "ones": lambda lib, d: lib.ones(2, dtype=d),
    "full": lambda lib, d: lib.full((2,), 3, dtype=d), "empty": lambda lib, d: lib.empty(2, 3, dtype=d).shape,
    "arange": lambda lib, d: (lib.arange(5, dtype=d), lib.arange(1, 7, 2, dtype=d)),
    "arange_float": lambda lib, d: lib.arange(0, 2.5, 0.5, dtype=d),
    "linspace": lambda lib, d: lib.linspace(0, 10, 5, dtype=d),
    "logspace": lambda lib, d: lib.logspace(0, 2, 3, dtype=d),
    "eye": lambda lib, d: (lib.eye(3, dtype=d), lib.eye(2, 3, dtype=d)),
    "tensor": lambda lib, d: lib.tensor([[1, 0], [3, 2]], dtype=d),
    "as_tensor": lambda lib, d: lib.as_tensor([1.0, 0.0], dtype=d),
    "zeros_like": lambda lib, d: lib.zeros_like(lib.ones(2), dtype=d),
    "ones_like": lambda lib, d: lib.ones_like(lib.ones(2, dtype=lib.int8), dtype=d),
    "full_like": lambda lib, d: lib.full_like(lib.ones(2), 1, dtype=d),
    "empty_like": lambda lib, d: lib.empty_like(lib.ones(2), dtype=d).dtype,
    "randint": lambda lib, d: lib.randint(1, 2, (3,), dtype=d),
    "randint_like": lambda lib, d: lib.randint_like(lib.ones(2), 1, 2, dtype=d),
    "randperm": lambda lib, d: lib.randperm(1, dtype=d),
    "rand": lambda lib, d: lib.rand(2, dtype=d).shape, "randn": lambda lib, d: lib.randn(2, dtype=d).shape,
    "rand_like": lambda lib, d: lib.rand_like(lib.ones(2), dtype=d).dtype,
    "randn_like": lambda lib, d: lib.randn_like(lib.ones(2), dtype=d).dtype,
    "new_tensor": lambda lib, d: lib.ones(2).new_tensor([1, 2], dtype=d),
    "new_zeros": lambda lib, d: lib.ones(2).new_zeros(2, dtype=d),
    "new_ones": lambda lib, d: lib.ones(2).new_ones((1, 2), dtype=d),
    "new_full": lambda lib, d: lib.ones(2).new_full((2,), 2, dtype=d),
    "new_empty": lambda lib, d: lib.ones(2).new_empty((2,), dtype=d).dtype,
    "to": lambda lib, d: (lib.tensor([1.5, -2.0, 0.0]).to(d), lib.tensor([1, 0]).to(dtype=d)),
    "type": lambda lib, d: lib.tensor([1.5, 0.0]).type(d),
    "sum_dtype": lambda lib, d: lib.tensor([1, 2, 3], dtype=lib.int8).sum(dtype=d),
    "mean_dtype": lambda lib, d: lib.tensor([1.0, 2.0]).mean(dtype=d),
    "cumsum_dtype": lambda lib, d: lib.tensor([1, 2, 3]).cumsum(0, dtype=d),
    "prod_dtype": lambda lib, d: lib.tensor([1, 2, 3]).prod(dtype=d),
    "softmax_dtype": lambda lib, d: lib.tensor([1.0, 2.0]).softmax(0, dtype=d),
}

# (overload or factory, dtype) -> why torchlite differs from torch there (each checked to still differ)
KNOWN = {}


def _norm(value):
    if isinstance(value, (torch.Tensor, torchlite.Tensor)):
        dtype = str(value.dtype).split(".")[-1]
        return ("T", dtype, tuple(value.shape), np.asarray(value.detach().numpy(force=True), dtype=np.float64))
    if isinstance(value, (list, tuple)):
        return tuple(_norm(v) for v in value)
    if isinstance(value, str):
        return value.replace("torchlite", "torch")
    if isinstance(value, (torch.dtype, torchlite.dtype)):
        return str(value).replace("torchlite", "torch")
    if isinstance(value, (torch.Size, torchlite.Size)):
        return ("Size", tuple(value))
    return value


def _same(a, b):
    if isinstance(a, tuple) and a and a[0] == "T":
        if not (isinstance(b, tuple) and b and b[0] == "T" and a[1:3] == b[1:3]):
            return False
        rtol, atol = TOL.get(a[1], (0, 0))
        return np.allclose(a[3], b[3], rtol=rtol, atol=atol, equal_nan=True)
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def _run(fn, lib):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ("ok", _norm(fn(lib)))
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        return ("raised", type(e).__name__, re.sub(r"torchlite", "torch", str(e)))


def _flat(out):
    if isinstance(out, (torch.Tensor, torchlite.Tensor)):
        return [out]
    if isinstance(out, (list, tuple)):
        return [t for o in out for t in _flat(o)]
    return []


def op_case(overload, dtype, dev):
    """fn(lib) running `overload` on `dtype` (torch on the cpu), with its float16 gradients."""
    fn = EXTRA.get(overload[len("extra:"):]) if overload.startswith("extra:") else \
        CASES.get(overload) or schema_case(overload, dict(table_overloads())[overload])

    def case(lib):
        t = T(lib, dtype, dev if lib is torchlite else "cpu")
        out = fn(lib, t)
        result = [out]
        if t.grad:
            tensors = _flat(out)
            result.append([o.grad_fn.name() if o.grad_fn is not None else None for o in tensors])
            diff = [o for o in tensors if o.requires_grad]
            if diff:
                lib.autograd.backward(diff, [lib.ones_like(o) * 0.5 for o in diff])
                result.append([leaf.grad for leaf in t.leaves])
        return result
    return case


def _overload_names():
    names = []
    for overload, args in table_overloads():
        if overload.endswith("out") or ".out" in overload or ".Out" in overload or "Dimname" in args or \
                overload in LEFT_OUT:
            continue
        if "Tensor(a!) values" in args or "Tensor(a!) max" in args or "Tensor(a!) min" in args:
            continue  # out= forms (test_diff_out)
        names.append(overload)
    return names


OVERLOADS = _overload_names() + ["extra:" + name for name in EXTRA]


def test_every_overload_has_a_case():
    schemas = dict(table_overloads())
    missing = [o for o in OVERLOADS
               if o not in CASES and not o.startswith("extra:") and schema_case(o, schemas[o]) is None]
    assert not missing, f"overloads without a case in the dtype sweep: {missing}"
    assert len(OVERLOADS) > 450


def _params():
    cases = [(o, d, dev) for o in OVERLOADS for d in DTYPES for dev in ("cpu", "sim:0")]
    cases += [("factory:" + f, d, "cpu") for f in FACTORIES for d in DTYPES]
    rng = random.Random(1313)
    chosen = set(rng.sample(cases, SAMPLE))
    covered = {c[0] for c in chosen}
    for o in OVERLOADS + ["factory:" + f for f in FACTORIES]:
        if o not in covered:
            chosen.add((o, rng.choice(DTYPES), "cpu"))
    for case in cases:
        marks = [] if FULL or case in chosen else [pytest.mark.dtypes_full_sweep]
        yield pytest.param(*case, marks=marks, id="-".join(case))


@pytest.mark.parametrize("overload, dtype, dev", _params())
def test_op_dtype(overload, dtype, dev):
    if overload.startswith("factory:"):
        f = FACTORIES[overload[len("factory:"):]]

        def fn(lib):
            return f(lib, getattr(lib, dtype))
    else:
        fn = op_case(overload, dtype, dev)
    got, want = _run(fn, torchlite), _run(fn, torch)
    key = (overload, dtype)
    if key in KNOWN:
        assert not _same(got, want), f"{key} is listed in KNOWN ({KNOWN[key]}) and now agrees with torch: unlist it"
        return
    assert _same(got, want), f"torchlite: {got}\ntorch:     {want}"
