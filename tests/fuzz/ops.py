"""The fuzzer's op table: one `op(...)` line per operation of the API.

An entry is: a name; a line template (or a list of them, one picked at random)
with {0}, {1}, ... for its tensor arguments, {out} for the variable it defines
and named fields filled by `extra`; the argument pickers (arity = how many);
`extra(g, metas)`, which returns the named fields or None when the op does not
apply to the picked arguments; and a weight. A new op of torchlite joins the
fuzzer with one more line here. Pickers pick a fitting variable most of the time
and any variable now and then, and extras pick a bad dim or size now and then,
so that invalid lines (and the errors both libraries should raise) come up too.
"""
import re

import numpy as np

from fuzzlib import Step, is_float

OPS = []
# Ops torchlite does not have yet (issue 6 adds them): generated only with
# --include-pending. Drop `pending=True` from an entry once torchlite has the op.
PENDING = set()

# Statement prefixes an op's line is run under now and then.
_CONTEXTS = ["with lib.no_grad(): ", "with lib.no_grad(): ", "with lib.enable_grad(): ",
             "with lib.set_grad_enabled(False): ",
             "with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t): ",
             "with lib.inference_mode(): "]


class Op:
    def __init__(self, name, fmt, args=(), extra=None, weight=1.0, context=True, pending=False):
        self.name, self.fmt, self.args, self.extra = name, fmt, args, extra
        self.weight, self.context, self.pending = weight, context, pending

    def make(self, g):
        ins = []
        for pick in self.args:
            v = pick(g, ins)
            if v is None:
                return None
            ins.append(v)
        fields = {}
        if self.extra is not None:
            fields = self.extra(g, [g.metas[v] for v in ins])
            if fields is None:
                return None
        fmt = self.fmt if isinstance(self.fmt, str) else g.choice(self.fmt)
        line = fmt.format(*["{%d}" % i for i in range(len(ins))], out="{out}", **fields)
        if self.context and g.p(0.06):
            line = g.choice(_CONTEXTS[:-1] if not g.p(0.15) else _CONTEXTS[-1:]) + line
        # keep only the inputs the chosen template uses (the minimizer follows these)
        used = sorted({int(i) for i in re.findall(r"\{(\d+)\}", line)})
        line = re.sub(r"\{(\d+)\}", lambda m: "{%d}" % used.index(int(m.group(1))), line)
        return Step(self.name, g.new_var() if "{out}" in line else None, line, tuple(ins[i] for i in used))


def op(name, fmt, args=(), extra=None, weight=1.0, **kw):
    OPS.append(Op(name, fmt, args, extra, weight, **kw))
    if kw.get("pending"):
        PENDING.add(name)


# Argument pickers -------------------------------------------------------------------

def T(pred=None, strict=False):
    return lambda g, ins: g.tensor(pred, strict)


FLOAT = T(is_float)
RG = T(lambda m: m.rg, strict=True)                       # requires grad
NONLEAF = T(lambda m: m.rg and not m.leaf)
LEAF_RG = T(lambda m: m.rg and m.leaf)


def _broadcasts(a, b):
    try:
        np.broadcast_shapes(a, b)
        return True
    except ValueError:
        return False


def BC(i, pred=None):
    """A tensor whose shape broadcasts with argument i's."""
    return lambda g, ins: g.tensor(lambda m: _broadcasts(m.shape, g.metas[ins[i]].shape) and (pred is None or pred(m)))


def SAME(i):
    return lambda g, ins: g.tensor(lambda m: m.shape == g.metas[ins[i]].shape)


# Extras ------------------------------------------------------------------------------

def _num(g):
    return g.choice(["2", "0.5", "-1.5", "3", "0", "1e-3", "2.0"])


def scalar(g, metas):
    return {"s": _num(g)}


def dim_kw(g, metas):
    m = metas[0]
    return {"d": g.dim(len(m.shape)), "k": g.choice(["False", "True"])}


def dim_only(g, metas):
    return {"d": g.dim(len(metas[0].shape))}


def two_dims(g, metas):
    n = len(metas[0].shape)
    return {"a": g.dim(n), "b": g.dim(n)}


def perm(g, metas):
    n = len(metas[0].shape)
    p = [int(x) for x in g.rng.permutation(n)]
    if g.p(0.04):
        p = p[:-1] if n else [0]
    p = [x - n if g.p(0.2) else x for x in p]
    return {"p": ", ".join(str(x) for x in p)}


def _factor(g, numel):
    """A random shape with `numel` elements."""
    shape, left = [], numel
    for _ in range(g.int(0, 3)):
        divs = [d for d in range(1, left + 1) if left % d == 0]
        d = g.choice(divs)
        shape.append(d)
        left //= d
    if left != 1 or not shape:
        shape.append(left)
    if g.p(0.3):
        shape[g.int(0, len(shape) - 1)] = -1
    if g.p(0.04):
        shape.append(g.int(2, 3))  # wrong number of elements
    return shape


def new_shape(g, metas):
    numel = int(np.prod(metas[0].shape, dtype=np.int64))
    shape = _factor(g, numel) if numel else [g.choice([0, -1]), g.int(1, 2)]
    flat = ", ".join(str(x) for x in shape)
    return {"shape": flat if g.p(0.7) else repr(tuple(shape)), "flat": flat}


def expand_shape(g, metas):
    shape = list(metas[0].shape)
    out = [x if x != 1 or g.p(0.4) else g.int(1, 3) for x in shape]
    out = [g.int(1, 3) for _ in range(g.int(0, 1))] + out
    if out and g.p(0.2):
        out[g.int(0, len(out) - 1)] = -1 if g.p(0.7) else 5
    return {"shape": ", ".join(str(x) for x in out) or "()"}


def index(g, metas):
    """A subscript: basic (ints, slices, None, Ellipsis) or advanced (lists, tensors, masks)."""
    shape = metas[0].shape
    if not shape:
        return {"key": g.choice(["...", "None", "0", "()"])}
    items, dims = [], list(shape)
    for n in dims[:g.int(1, len(dims))]:
        r = g.rng.random() if n else 0.5  # a dim of size 0 takes slices only
        if r < 0.35:
            items.append(str(g.int(-n, n - 1) if not g.p(0.04) else n))
        elif r < 0.7:
            a, b = g.int(0, n), g.int(0, n)
            step = "" if g.p(0.7) else f":{g.int(1, 2)}"
            items.append(f"{min(a, b) if g.p(0.5) else ''}:{max(a, b) if g.p(0.6) else ''}{step}")
        elif r < 0.8:
            items.append("None")
        elif r < 0.9:
            items.append(str([g.int(-n, n - 1) for _ in range(g.int(1, 3))]))
        else:
            items.append(f"lib.tensor({[g.int(0, n - 1) for _ in range(g.int(1, 3))]})")
    if g.p(0.1):
        items.insert(g.int(0, len(items)), "...")
    if g.p(0.05):
        return {"key": f"lib.tensor(_data({g.int(0, 999)}, {tuple(shape)}, 'bool'))"}
    return {"key": ", ".join(items) if len(items) > 1 or g.p(0.5) else items[0]}


def dtype(g, metas):
    return {"t": g.choice(["lib.float32", "lib.float64", "lib.int64", "lib.bool", "lib.float", "lib.double",
                           "lib.long"])}


def matmul_ok(g, metas):
    a, b = metas[0].shape, metas[1].shape
    if not a or not b:
        return {} if g.p(0.05) else None
    k_a = a[-1]
    k_b = b[0] if len(b) == 1 else b[-2]
    if k_a != k_b and not g.p(0.05):
        return None
    if len(a) > 2 or len(b) > 2:
        try:
            np.broadcast_shapes(a[:-2], b[:-2])
        except ValueError:
            if not g.p(0.05):
                return None
    return {}


def hook(g, metas):
    return {"h": g.choice(["lambda g: g * 2", "lambda g: g + 1", "lambda g: None",
                           "lambda g: _rec('h{0}', g)", "lambda g: g.clone().fill_(0.5)",
                           "lambda g: g[..., :1]"])}


def backward_args(g, metas):
    m = metas[0]
    args = []
    if m.shape != () and not g.p(0.05):
        args.append("lib.ones_like({0})" if g.p(0.7) else f"lib.tensor(_data({g.int(0, 999)}, {m.shape}, '{m.dtype}'))")
    if g.p(0.4):
        args.append("retain_graph=True")
    if g.p(0.2):
        args.append("create_graph=True")
    return {"a": ", ".join(args)}


def grad_args(g, metas):
    args = []
    if g.p(0.3):
        args.append("create_graph=True")
    if g.p(0.4):
        args.append("retain_graph=True")
    if g.p(0.8):
        args.append("allow_unused=True")
    return {"a": ", ".join([""] + args)}


def full_shape(g, metas):
    return {"shape": repr(g.shape()), "s": _num(g)}


# The table ---------------------------------------------------------------------------

def leaf_step(g):
    """A new input tensor; its shape is often made to broadcast with a live variable's."""
    live = [m.shape for m in g.metas.values()]
    if live and g.p(0.5):
        shape = list(g.choice(live))
        shape = [1 if g.p(0.3) else n for n in shape]
        shape = shape[g.int(0, len(shape)):] if shape and g.p(0.3) else shape
    else:
        shape = g.shape()
    dt = g.choice(["float32"] * 7 + ["float64"] * 2 + ["int64", "bool"])
    rg = dt.startswith("float") and g.p(0.8)
    requires_grad = ", requires_grad=True" if rg else ""
    line = f"{{out}} = lib.tensor(_data({g.int(0, 10**6)}, {tuple(shape)}, '{dt}'){requires_grad})"
    if g.p(0.1):
        line = f"{{out}} = lib.tensor(_data({g.int(0, 10**6)}, {tuple(shape)}, '{dt}'))"
    return Step("leaf", g.new_var(), line, ())


class LeafOp(Op):
    def make(self, g):
        return leaf_step(g)


OPS.append(LeafOp("leaf", None, weight=2.0))

# Elementwise unary
for _name in ["exp", "log", "sin", "cos", "tanh", "sigmoid", "relu", "abs", "sqrt", "reciprocal", "neg"]:
    op(_name, [f"{{out}} = {{0}}.{_name}()", f"{{out}} = lib.{_name}({{0}})"], [FLOAT])
op("neg-op", ["{out} = -{0}", "{out} = +{0}", "{out} = abs({0})"], [T()], weight=0.5)

# Elementwise binary with broadcasting, and with Python numbers
for _name, _sym in [("add", "+"), ("sub", "-"), ("mul", "*"), ("div", "/"), ("pow", "**")]:
    op(_name,
       [f"{{out}} = {{0}} {_sym} {{1}}", f"{{out}} = lib.{_name}({{0}}, {{1}})", f"{{out}} = {{0}}.{_name}({{1}})"],
       [T(), BC(0)], weight=1.5)
    op(_name + "-scalar", [f"{{out}} = {{0}} {_sym} {{s}}", f"{{out}} = {{s}} {_sym} {{0}}"], [T()], scalar)
op("add-alpha", ["{out} = lib.add({0}, {1}, alpha={s})", "{out} = {0}.sub({1}, alpha={s})"], [T(), BC(0)], scalar,
   weight=0.5)
op("matmul", ["{out} = {0} @ {1}", "{out} = lib.matmul({0}, {1})", "{out} = {0}.matmul({1})"],
   [T(lambda m: is_float(m) and m.shape != ()), FLOAT], matmul_ok, weight=1.5)

# Reductions
op("sum", ["{out} = {0}.sum()", "{out} = lib.sum({0})", "{out} = {0}.sum({d}, keepdim={k})",
           "{out} = {0}.sum(dim=({d},), keepdim={k})"], [T()], dim_kw, weight=1.5)
op("mean", ["{out} = {0}.mean()", "{out} = {0}.mean({d}, keepdim={k})", "{out} = lib.mean({0}, {d})"],
   [FLOAT], dim_kw)
for _name in ["max", "min"]:
    op(_name, [f"{{out}} = {{0}}.{_name}()", f"{{out}} = {{0}}.{_name}({{d}}, keepdim={{k}})[0]",
               f"{{out}} = lib.{_name}({{0}}, {{d}})[1]", f"{{out}} = {{0}}.{_name}(dim={{d}}).values"],
       [T()], dim_kw, weight=0.7)

# Views and shape ops
op("view", ["{out} = {0}.view({shape})", "{out} = {0}.reshape({shape})", "{out} = lib.reshape({0}, [{flat}])"],
   [T()], new_shape, weight=1.5)
op("view-bad", ["{out} = {0}.view()", "{out} = {0}.reshape()"], [T()], weight=0.1)
op("transpose", ["{out} = {0}.transpose({a}, {b})", "{out} = lib.transpose({0}, {a}, {b})"], [T()], two_dims)
op("t", ["{out} = {0}.t()", "{out} = lib.t({0})", "{out} = {0}.T", "{out} = {0}.mT"], [T()], weight=0.7)
op("permute", ["{out} = {0}.permute({p})", "{out} = lib.permute({0}, [{p}])"], [T()], perm)
op("unsqueeze", ["{out} = {0}.unsqueeze({d})", "{out} = lib.unsqueeze({0}, {d})"], [T()],
   lambda g, ms: {"d": g.dim(len(ms[0].shape) + 1)})
op("squeeze", ["{out} = {0}.squeeze()", "{out} = {0}.squeeze({d})", "{out} = lib.squeeze({0}, {d})"], [T()], dim_only)
op("expand", "{out} = {0}.expand({shape})", [T()], expand_shape)
op("as", ["{out} = {0}.expand_as({1})", "{out} = {0}.view_as({1})", "{out} = {0}.reshape_as({1})"], [T(), T()],
   weight=0.5)
op("clone", ["{out} = {0}.clone()", "{out} = lib.clone({0})", "{out} = {0}.contiguous()"], [T()])
op("detach", ["{out} = {0}.detach()", "{out} = {0}.data"], [T()], weight=0.5)
op("getitem", "{out} = {0}[{key}]", [T(lambda m: m.shape != ())], index, weight=2.5)


def split_args(g, metas):
    shape = metas[0].shape
    d = g.dim(len(shape))
    n = shape[d] if -len(shape) <= d < len(shape) else 2
    return {"d": d, "n": g.int(1, max(1, n)), "i": g.int(0, 1), "start": g.int(0, max(0, n - 1)),
            "len": g.int(0, max(0, n - 1)) if not g.p(0.05) else n + 1}


# views from multi-output ops, narrow, diagonal and as_strided: in-place on them is refused by torch
op("split", ["{out} = {0}.split({n}, {d})[{i}]", "{out} = {0}.chunk({n}, {d})[{i}]", "{out} = {0}.unbind({d})[{i}]",
             "{out} = lib.split({0}, {n}, {d})[0]"], [T(lambda m: m.shape != ())], split_args)
op("narrow", ["{out} = {0}.narrow({d}, {start}, {len})", "{out} = lib.narrow({0}, {d}, {start}, {len})"],
   [T(lambda m: m.shape != ())], split_args)
op("diagonal", ["{out} = {0}.diagonal()", "{out} = {0}.diagonal(1)", "{out} = lib.diagonal({0}, 0, -1, 0)"],
   [T(lambda m: len(m.shape) >= 2)])
op("as_strided", ["{out} = {0}.as_strided(({n},), (1,))", "{out} = {0}.as_strided((1, {n}), (1, 1), 0)",
                  "{out} = lib.as_strided({0}, (2, 2), (1, 2))"], [T(lambda m: int(np.prod(m.shape)) >= 4)],
   lambda g, ms: {"n": g.int(1, max(1, int(np.prod(ms[0].shape))))})

# In-place ops, on leaves, non-leaves, views and bases of views
for _name, _sym in [("add_", "+="), ("sub_", "-="), ("mul_", "*="), ("div_", "/=")]:
    op(_name, [f"{{out}} = {{0}}.{_name}({{1}})", f"{{0}} {_sym} {{1}}"], [T(), BC(0)], weight=1.2)
    op(_name + "-scalar", [f"{{out}} = {{0}}.{_name}({{s}})", f"{{0}} {_sym} {{s}}"], [T()], scalar)
op("add_-alpha", "{0}.add_({1}, alpha={s})", [T(), BC(0)], scalar, weight=0.3)
op("inplace-self", ["{0}.mul_({0})", "{0}.add_({0})", "{0}.mul_({0}[0])", "{0}.add_({0}.t())"],
   [T(lambda m: m.shape != ())], weight=0.4)
op("zero_", "{0}.zero_()", [T()], weight=0.5)
op("fill_", "{0}.fill_({s})", [T()], scalar, weight=0.5)
op("setitem", ["{0}[{key}] = {s}", "{0}[{key}] = {1}"], [T(lambda m: m.shape != ()), T()],
   lambda g, ms: dict(index(g, ms), **scalar(g, ms)), weight=1.2)
op("inplace-view", ["{0}[0].mul_({s})", "{0}.view(-1).add_({s})", "{0}.t().zero_()", "{0}[..., :1] += {1}",
                    "{0}.unsqueeze(0).mul_({1})"], [T(lambda m: m.shape != () and not m.view), T()], scalar,
   weight=0.8)

# Casts
op("cast", ["{out} = {0}.float()", "{out} = {0}.double()", "{out} = {0}.long()", "{out} = {0}.bool()",
            "{out} = {0}.to({t})", "{out} = {0}.type_as({1})"], [T(), T()], dtype)

# Comparisons, where, cat, stack, factories
op("compare", ["{out} = {0} == {1}", "{out} = {0} < {1}", "{out} = {0}.gt({1})", "{out} = {0} >= {s}",
               "{out} = {0}.ne({1})"], [T(), BC(0)], scalar, weight=0.6)
op("where", ["{out} = lib.where({0} > 0, {0}, {1})", "{out} = lib.where({1} < 0.5, {0}, {1})"], [T(), BC(0)],
   weight=0.8)
op("cat", ["{out} = lib.cat([{0}, {1}], {d})", "{out} = lib.stack([{0}, {1}], {d})", "{out} = lib.cat([{0}, {0}])"],
   [T(lambda m: m.shape != ()), SAME(0)], dim_only, weight=0.8)
op("like", ["{out} = lib.zeros_like({0})", "{out} = lib.ones_like({0}, requires_grad=True)",
            "{out} = lib.full_like({0}, {s})", "{out} = {0}.new_zeros(2, 3)", "{out} = {0}.new_ones(())"],
   [T()], scalar, weight=0.4)
op("factory", ["{out} = lib.zeros({shape})", "{out} = lib.ones({shape}, requires_grad=True)",
               "{out} = lib.full({shape}, {s})", "{out} = lib.arange(6.0).view(2, 3)"], [], full_shape, weight=0.3)
op("custom-function", "{out} = Square.apply({0})", [FLOAT], weight=0.4)
op("checkpoint", ["{out} = lib.utils.checkpoint.checkpoint(lambda x: (x * x).sin(), {0}, use_reentrant=False)",
                  "{out} = lib.utils.checkpoint.checkpoint(lambda x: x.exp() * 2, {0}, use_reentrant=True)"],
   [FLOAT], weight=0.3)
op("item", ["{out} = {0}.sum().item()", "{out} = {0}.item()", "{out} = {0}.tolist()",
            "{out} = ({0}.dim(), {0}.numel(), tuple({0}.shape), {0}.size(-1))"], [T()], weight=0.3)

# Autograd
op("requires_grad_", ["{0}.requires_grad_()", "{0}.requires_grad_(False)", "{0}.requires_grad = True",
                      "{0}.requires_grad = False"], [T()], weight=0.6)
op("retain_grad", "{0}.retain_grad()", [T()], weight=0.8)
op("hook", ["{out} = {0}.register_hook({h})", "{0}.register_hook({h})"], [T(lambda m: m.rg)], hook, weight=0.8)
op("post-hook", "{0}.register_post_accumulate_grad_hook(lambda p: _rec('p{0}', p.grad))", [T(lambda m: m.leaf)],
   weight=0.5)
op("grad-attr", "{out} = {0}.grad", [T(lambda m: m.leaf or m.retains)], weight=0.5)
op("backward", ["{0}.backward({a})", "{0}.sum().backward({a})", "lib.autograd.backward([{0}.sum()])"], [T()],
   backward_args, weight=1.5, context=False)
op("grad", ["{out}, = lib.autograd.grad({0}.sum(), [{1}]{a})",
            "{out}, = lib.autograd.grad({0}.sum(), {1}{a})",
            "{out}, = lib.autograd.grad(({0} * {0}).sum(), {1}, create_graph=True{a})",
            "{out} = lib.autograd.grad({0}.sum(), []{a})"],
   [T(lambda m: m.rg), T(lambda m: m.rg)], grad_args, weight=1.2, context=False)
op("double-backward", "{out}, = lib.autograd.grad(({0} * {0}).sum(), {1}, create_graph=True); {out}.sum().backward()",
   [T(lambda m: m.rg and is_float(m)), LEAF_RG], weight=0.4, context=False)
op("clear-grad", "{0}.grad = None", [T(lambda m: m.leaf)], weight=0.3)
