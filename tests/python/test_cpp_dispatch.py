"""The C++ dispatch of the hot ops (Note [C++ dispatch of the hot ops], csrc/autograd/python_fast_ops.h).

Every method and operator native_functions.yaml marks `cpp_dispatch:` runs its C++ entry first; the
entry must give what the Python kernel gives (which stays the reference and runs every case the
entry does not take): the same bits, dtype, node, saved fields and gradients, with every
combination of requires_grad, under no_grad, inference mode and saved-tensor hooks. Then a few
cases against torch, through the C++ path."""
import itertools
import os

import numpy as np
import pytest
import yaml

import torchlite
from torchlite import _ops
from torchlite._ops import UnaryOps
from diff_utils import import_torch, norm, run

torch = import_torch()

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _table():
    with open(os.path.join(ROOT, "tools/autograd/native_functions.yaml")) as f:
        entries = yaml.safe_load(f)
    rows = []
    for e in entries:
        spec = e.get("cpp_dispatch")
        if spec:
            base = e["func"].split("(")[0].split(".")[0]
            rows.append((base, spec))
    return rows


TABLE = _table()
VIEW_KERNELS = ("View", "Reshape", "Transpose", "T", "Permute", "Unsqueeze", "Expand")
REDUCE_KERNELS = ("Sum", "Mean", "Softmax", "LogSoftmax", "Where")  # tested in test_cpp_reduce.py
# the matrix products' entries (mm, matmul, linear) and cat's: tests/python/test_cpp_linear.py
PRODUCTS = ("Mm", "Matmul", "Linear", "Cat")
BINARY = [base for base, spec in TABLE if spec["kernel"] in ("Add", "Sub", "Mul", "Div")]
VIEWS = [base for base, spec in TABLE if spec["kernel"] in VIEW_KERNELS]
UNARY = [base for base, spec in TABLE
         if spec["kernel"] not in ("Add", "Sub", "Mul", "Div") + VIEW_KERNELS + REDUCE_KERNELS + PRODUCTS]
# the Python operator each name dispatches to, with the kernel it falls back to
OPERATORS = {op: base for base, spec in TABLE for op in spec.get("operators", []) if spec["kernel"] not in PRODUCTS}


def test_table_is_bound():
    assert len(TABLE) == 27 and len(VIEWS) == 7
    for base, spec in TABLE:
        if base in ("linear", "cat"):  # functions only (torch.nn.functional.linear, torch.cat): test_cpp_linear.py
            continue
        method = getattr(torchlite.Tensor, base)
        assert spec["kernel"] == "Where" or method._cpp_dispatch, base  # (torchlite.where's only)
        for op in spec.get("operators", []):
            assert getattr(torchlite.Tensor, op)._cpp_dispatch, op
            # (@ falls back to matmul_operator, which answers NotImplemented for a non-tensor)
            kernels = (getattr(_ops, base), getattr(_ops, base + "_operator", None))
            assert getattr(torchlite.Tensor, op).__wrapped__ in kernels
        if spec["kernel"] == "NumpyUnary":
            # the C++ entry computes float32 through float64, as the Python kernel does for these
            assert getattr(np, spec["ufunc"]) in UnaryOps._VIA_FLOAT64
    # a method the table does not mark has no entry
    assert not torchlite.Tensor.sigmoid._cpp_dispatch
    assert torchlite.Tensor.__rsub__ is not torchlite.Tensor.__sub__


def _samples(dtype):
    rng = np.random.default_rng(7)
    special = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e-40, 3e38, -7.5, 0.5, 88.7, -104.0,
                        710.0, 1e-310, 20.0], dtype=np.float64)
    vals = np.concatenate([special, rng.standard_normal(48) * 4, rng.uniform(-1e3, 1e3, 16)])
    return vals.astype(dtype)


def _bits(t):
    a = t.detach().numpy()
    return a.dtype.str, a.shape, a.tobytes()


def _saved(fn):
    out = {}
    for name in ("_saved_self", "_saved_other", "_saved_result", "_saved_alpha"):
        try:
            v = getattr(fn, name)
        except AttributeError as err:
            v = ("AttributeError", str(err))
        out[name] = _bits(v) if isinstance(v, torchlite.Tensor) else v
    return out


def _compare(call_fast, call_python, leaves):
    """Runs the op by its C++ entry and by the Python kernel on copies of `leaves`; compares."""
    results = []
    for call in (call_fast, call_python):
        copies = [x.detach().clone().requires_grad_(x.requires_grad) for x in leaves]
        out = call(*copies)
        record = [_bits(out), out.requires_grad, out.grad_fn.name() if out.grad_fn else None]
        if out.grad_fn is not None:
            record.append(_saved(out.grad_fn))
            grads = torchlite.autograd.grad(out, [c for c in copies if c.requires_grad], torchlite.ones_like(out))
            record.append([_bits(g) for g in grads])
        results.append(record)
    assert results[0] == results[1]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", BINARY)
def test_binary_matches_python_kernel(name, dtype):
    a = _samples(dtype)
    b = np.roll(a, 5)
    for ra, rb in itertools.product([False, True], repeat=2):
        x = torchlite.from_numpy(a.copy()).requires_grad_(ra)
        y = torchlite.from_numpy(b.copy()).requires_grad_(rb)
        _compare(getattr(torchlite.Tensor, name), getattr(_ops, name), [x, y])
        for number in (2, -3, 0, 1.0001, -0.0, float("inf"), float("nan"), 1e-45, 2 ** 53, 1e300):
            if not ra:
                continue
            _compare(lambda t, n=number: getattr(torchlite.Tensor, name)(t, n),
                     lambda t, n=number: getattr(_ops, name)(t, n), [x])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", BINARY)
def test_broadcast_matches_python_kernel(name, dtype):
    full = _samples(dtype)[:60].reshape(3, 4, 5)
    for small_shape in [(5,), (4, 5), (1, 5), (4, 1), (1, 1, 5), (), (1,), (3, 1, 1), (3, 4, 5)]:
        small = np.resize(_samples(dtype)[20:], small_shape) if small_shape else _samples(dtype)[9]
        for ra, rb in [(True, True), (False, True), (True, False)]:
            x = torchlite.tensor(full, requires_grad=ra)
            y = torchlite.tensor(small, requires_grad=rb)
            _compare(getattr(torchlite.Tensor, name), getattr(_ops, name), [x, y])
            _compare(getattr(torchlite.Tensor, name), getattr(_ops, name), [y, x])
    # shapes that broadcast both ways, of other dtypes, or empty: the Python kernel
    a = torchlite.ones(3, 1, requires_grad=True)
    b = torchlite.ones(1, 4, dtype=torchlite.float64)
    for x, y in ((a, a.reshape(1, 3)), (a, b), (torchlite.ones(0), torchlite.ones(1)), (torchlite.ones(2, 0, 3), a)):
        try:
            fast = getattr(x, name)(y)
        except RuntimeError as err:
            with pytest.raises(RuntimeError, match=str(err)[:20]):
                getattr(_ops, name)(x, y)
        else:
            assert _bits(fast) == _bits(getattr(_ops, name)(x, y))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", UNARY)
def test_unary_matches_python_kernel(name, dtype):
    for shape in [(80,), (), (2, 3, 700), (4, 1, 1), (1, 5)]:  # 4,200 elements: several of the float32 path's chunks
        a = np.resize(_samples(dtype), shape) if shape else _samples(dtype)[7]
        for requires_grad in (False, True):
            x = torchlite.tensor(a, requires_grad=requires_grad)
            _compare(getattr(torchlite.Tensor, name), getattr(_ops, name), [x])


@pytest.mark.parametrize("op", sorted(OPERATORS))
def test_operators_match_python_kernel(op):
    x = torchlite.tensor(_samples(np.float32)[:20], requires_grad=True)
    y = torchlite.tensor(_samples(np.float32)[20:40], requires_grad=True)
    kernel = getattr(_ops, OPERATORS[op])
    if op == "__neg__":
        _compare(lambda t: -t, kernel, [x])
        return
    _compare(getattr(torchlite.Tensor, op), kernel, [x, y])
    _compare(lambda t: getattr(t, op)(2.5), lambda t: kernel(t, 2.5), [x])


def test_modes_and_hooks_match_python_kernel():
    x = torchlite.tensor([1.5, -2.0, 3.0], requires_grad=True)
    with torchlite.no_grad():
        assert (x * 2).grad_fn is None and not (x * 2).requires_grad
        assert x.tanh().grad_fn is None
    with torchlite.inference_mode():
        y = x * 2
        assert y.is_inference() and y.grad_fn is None
    # saved-tensor hooks see what the Python kernel's node saves, in the same order
    def packed(call):
        seen = []

        def pack(t):
            seen.append(_bits(t))
            return t

        b = torchlite.tensor([2.0, 4.0, 8.0], requires_grad=True)
        with torchlite.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            out = call(x, b)
        out.sum().backward()
        return seen

    assert len(packed(lambda a, b: a * b)) == 2
    assert packed(lambda a, b: a * b) == packed(_ops.mul)
    assert len(packed(lambda a, b: a.tanh() / b)) == 3
    assert packed(lambda a, b: a.tanh() / b) == packed(lambda a, b: _ops.div(_ops.tanh(a), b))
    # a view, a non-contiguous tensor, float16, an int tensor, a broadcast and a sim tensor take the Python kernel
    base = torchlite.arange(6.0).reshape(2, 3).requires_grad_()
    for out in (base.t() * 2, base[:, ::2].tanh(), base.half() * 2, torchlite.arange(3) * 2,
                base * torchlite.ones(3), base.to("sim:0") * 2):
        assert out.shape in ((3, 2), (2, 2), (2, 3), (3,))


def test_layouts_outside_the_entry():
    # size-1 dimensions with free strides, channels-last: TensorIterator's layout, as the Python kernel
    a = torchlite.ones(4, 1, 1, requires_grad=True).as_strided((4, 1, 1), (1, 1, 4))
    cl = torchlite.ones(2, 3, 1, 1).contiguous(memory_format=torchlite.channels_last)
    for out, like in ((a * 2, _ops.mul(a, 2)), (a.tanh(), _ops.tanh(a)), (-a, _ops.neg(a)), (cl * cl, _ops.mul(cl, cl)),
                      (cl.exp(), _ops.exp(cl))):
        assert out.stride() == like.stride() and _bits(out) == _bits(like)


def test_numbers_outside_the_entry():
    x = torchlite.tensor([1.0, 2.0], requires_grad=True)
    # a bool, a numpy scalar, a huge int, a float32 overflow: the Python kernel's results
    for other in (True, np.float64(2.0), 2 ** 70, 1e300):
        try:
            fast = x * other
        except Exception as err:  # noqa: BLE001 - the error must be the Python kernel's own
            with pytest.raises(type(err)):
                _ops.mul(x, other)
        else:
            assert _bits(fast) == _bits(_ops.mul(x, other))


def _torch_cases(lib):
    x = lib.tensor([0.5, -1.25, 3.0], dtype=lib.float32, requires_grad=True)
    y = lib.tensor([2.0, 0.25, -4.0], dtype=lib.float32, requires_grad=True)
    z = ((x * y + 1.5) / (y - 0.5) - x.neg()).tanh().exp() + x.sin() * y.cos() + (x * x).log() + x.relu() * 2
    grads = lib.autograd.grad(z.sum(), [x, y], create_graph=True)
    second = lib.autograd.grad(grads[0].sum(), [x, y])
    names = []
    fn = z.grad_fn
    while fn is not None:
        names.append(fn.name())
        fn = fn.next_functions[0][0]
    return z, grads, second, names, (x * 2).grad_fn._saved_other, (x / y).grad_fn._saved_self


def test_against_torch():
    assert run(_torch_cases, torchlite) == run(_torch_cases, torch)


def test_errors_against_torch():
    def case(lib):
        x = lib.ones(2, requires_grad=True)
        return x * "a"

    assert norm(run(case, torchlite)) == norm(run(case, torch))


INPLACE = {base + "_": base for base in BINARY}
IOPS = {"__iadd__": "add_", "__isub__": "sub_", "__imul__": "mul_", "__itruediv__": "div_"}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_matches_python_kernel(name, dtype):
    assert getattr(torchlite.Tensor, name)._cpp_dispatch
    kernel = getattr(_ops, name)
    full = _samples(dtype)[:60].reshape(3, 4, 5)
    alphas = [{}] + ([{"alpha": a} for a in (1, 2, -0.5, 1e-3, 3.0000001, 1e30, True)] if name in ("add_", "sub_")
                     else [])
    others = [np.resize(_samples(dtype)[20:], s) for s in [(3, 4, 5), (5,), (4, 1), (1, 1, 5)]] + [
        np.array(_samples(dtype)[9]), 2.5, -3, 1e-45, float("nan"), 2 ** 53, 0]
    for other in others:
        for kwargs in alphas:
            results = []
            for call in (getattr(torchlite.Tensor, name), kernel):
                x = torchlite.tensor(full)
                y = torchlite.tensor(other) if isinstance(other, np.ndarray) else other
                try:
                    out = call(x, y, **kwargs)
                except Exception as err:  # noqa: BLE001 - both must raise alike
                    results.append((type(err), str(err)))
                    continue
                assert out is x
                results.append((_bits(x), x._version))
            assert results[0] == results[1], (other, kwargs)


def test_inplace_modes_match_python_kernel():
    def runs(call):
        out = []
        for fast in (True, False):
            leaf = torchlite.tensor([1.5, -2.0, 3.0], requires_grad=True)
            other = torchlite.tensor([0.25, 4.0, -1.0], requires_grad=True)
            try:
                r = call(leaf, other, fast)
                out.append(("ok", _bits(r), r._version, r.grad_fn.name() if r.grad_fn else None))
            except RuntimeError as err:
                out.append(("raised", str(err)))
        assert out[0] == out[1]
        return out[0]

    def method(name):
        return lambda x, y, fast: (getattr(torchlite.Tensor, name) if fast else getattr(_ops, name))(x, y)

    # the optimizer's update of a leaf that requires grad, under no_grad
    with torchlite.no_grad():
        assert runs(lambda x, y, fast: (torchlite.Tensor.add_ if fast else _ops.add_)(x, y, alpha=-0.1))[0] == "ok"
    # with grad mode: the Python kernel decides (the leaf's error, a node for a non-leaf)
    assert runs(method("mul_"))[0] == "raised"
    assert runs(lambda x, y, fast: method("add_")(x * 1, y, fast))[3] == "AddBackward0"
    # an operand sharing self's memory, and allow_mutation_on_saved_tensors, take the Python kernel
    assert runs(lambda x, y, fast: method("add_")(x.detach(), x.detach()[[0]].expand(3), fast))[0] == "ok"
    with torchlite.autograd.graph.allow_mutation_on_saved_tensors():
        a = torchlite.tensor([1.0, 2.0], requires_grad=True)
        b = a * 1
        c = b * b
        with torchlite.no_grad():
            b.mul_(3)
        c.sum().backward()
        assert a.grad.tolist() == [2.0, 4.0]


@pytest.mark.parametrize("op", sorted(IOPS))
def test_inplace_operators(op):
    assert getattr(torchlite.Tensor, op)._cpp_dispatch
    for other in (torchlite.tensor([2.0, 4.0, 8.0]), 3.0):
        x = torchlite.tensor([1.0, 2.0, 3.0])
        y = torchlite.tensor([1.0, 2.0, 3.0])
        ref = getattr(_ops, IOPS[op])(y, other)
        z = x
        z = getattr(z, op)(other)
        assert z is x and _bits(x) == _bits(ref)


def test_inplace_against_torch():
    def case(lib):
        p = lib.tensor([0.5, -1.25, 3.0], requires_grad=True)
        buf = lib.zeros(3)
        g = lib.tensor([0.1, 0.2, -0.3])
        with lib.no_grad():
            for _ in range(3):
                buf.mul_(0.9).add_(g, alpha=0.1)
                p.add_(buf, alpha=-0.01)
                p -= g * 0.5
                p /= 1.0001
        x = lib.ones(2, 3)
        x += lib.tensor([1.0, 2.0, 3.0])
        x *= 2
        return p, buf, x, p._version

    assert run(case, torchlite) == run(case, torch)


@pytest.mark.parametrize("name", [base for base, spec in TABLE
                                  if spec["kernel"] not in VIEW_KERNELS + REDUCE_KERNELS + PRODUCTS])
def test_functions_match_python_function(name):
    fn = getattr(torchlite, name)
    assert fn._cpp_dispatch and type(fn).__name__ == "_VariableFunction"
    python_function = fn.__wrapped__  # the generated function, which parses every other call
    leaves = [torchlite.tensor(_samples(np.float64)[:16], requires_grad=True)]
    if name in BINARY:
        leaves.append(torchlite.tensor(_samples(np.float64)[16:32], requires_grad=True))
    _compare(fn, python_function, leaves)
    # keyword and out= calls go to the generated function, which parses them
    x = torchlite.tensor([0.5, 2.0])
    if name in BINARY:
        out = torchlite.empty(2)
        assert fn(x, other=x, out=out) is out and _bits(out) == _bits(python_function(x, x))
    else:
        assert _bits(fn(input=x)) == _bits(python_function(x))


def test_functions_as_class_attributes_against_torch():
    def case(lib):
        class Block:
            act = lib.relu  # a builtin binds no self, as torch's functions
            squash = lib.tanh

        b = Block()
        x = lib.tensor([-1.0, 0.5, 2.0], requires_grad=True)
        y = b.squash(b.act(x) * 3)
        y.sum().backward()
        return y, x.grad, repr(lib.tanh).startswith("<built-in")

    assert run(case, torchlite) == run(case, torch)


# The views: the C++ entry's view against the Python kernel's ------------------------------------------

def _storage_start(t):
    return t.data_ptr() - t.storage_offset() * t.element_size()


def _view_record(base, out, grads=True):
    """What a view op's result shows: its layout, values, view relation, node and saved fields, and
    that it shares base's memory and version counter."""
    fn = out.grad_fn
    saved = {}
    if fn is not None:
        for name in ("_saved_self_sym_sizes", "_saved_dim0", "_saved_dim1", "_saved_dims", "_saved_dim"):
            if hasattr(fn, name):
                saved[name] = getattr(fn, name)
    record = [tuple(out.shape), out.stride(), out.storage_offset(), _bits(out), out.requires_grad, out.is_leaf,
              out._base is base, fn.name() if fn else None, saved, _storage_start(out) == _storage_start(base),
              out._version == base._version]
    if grads and base.requires_grad:
        (g,) = torchlite.autograd.grad(out, base, torchlite.ones_like(out), retain_graph=True)
        record.append(_bits(g))
    return record


def _view_bases():
    """Tensors of several layouts and dtypes, each a fresh leaf (or a view of one) per call."""
    def arange(*shape, dtype=torchlite.float32):
        n = int(np.prod(shape))
        return torchlite.arange(float(n)).to(dtype).reshape(*shape)
    return {
        "contiguous": lambda: arange(3, 4, 5),
        "transposed": lambda: arange(5, 4, 3).transpose(0, 2),
        "sliced": lambda: arange(3, 4, 10)[:, :, ::2],
        "offset": lambda: arange(4, 4, 5)[1:],
        "expanded": lambda: arange(4, 1).expand(4, 5).unsqueeze(0).expand(3, 4, 5),
        "size_one": lambda: arange(3, 1, 5),
        "empty": lambda: arange(3, 0, 5),
        "float64": lambda: arange(3, 4, 5, dtype=torchlite.float64),
        "int64": lambda: arange(3, 4, 5, dtype=torchlite.int64),
        "bool": lambda: arange(3, 4, 5, dtype=torchlite.bool),
        "float16": lambda: arange(3, 4, 5, dtype=torchlite.float16),
    }


VIEW_CALLS = {
    "view": [(60,), (-1,), (5, 12), (3, -1, 5), ([3, 20],), ((6, 10),), (torchlite.Size([2, 30]),), (3, 4, 5),
             (3, 4, 5, 1), (1, 60, 1), (2, 2, 15)],
    # reshape: the view of a contiguous tensor in C++; another layout's alias or copy in Python
    "reshape": [(60,), (-1,), (5, 12), (3, -1, 5), ([3, 20],), ((6, 10),), (torchlite.Size([2, 30]),), (3, 4, 5),
                (1, 60, 1), (2, 2, 15), (-1, -1), (7, 9)],
    "transpose": [(0, 2), (-1, 0), (1, 1), (2, -2)],
    "permute": [(2, 0, 1), ([1, 2, 0],), ((0, 1, 2),), (-1, 0, -2)],
    "unsqueeze": [(0,), (-1,), (3,), (-4,), (1,)],
    "expand": [(3, 4, 5), (2, 3, 4, 5), (-1, 4, 5), ([1, 3, 4, 5],), (torchlite.Size([3, 4, 5]),)],
}


@pytest.mark.parametrize("layout", sorted(_view_bases()))
@pytest.mark.parametrize("name", sorted(VIEW_CALLS))
def test_views_match_python_kernel(name, layout):
    make = _view_bases()[layout]
    differentiable = make().dtype.is_floating_point
    for args in VIEW_CALLS[name]:
        for requires_grad in ((False, True) if differentiable else (False,)):
            records = []
            for call in (lambda t, a=args: getattr(t, name)(*a), lambda t, a=args: getattr(_ops, name)(t, *a)):
                base = make()
                if requires_grad:
                    base = base.detach().requires_grad_()
                try:
                    records.append(_view_record(base, call(base)))
                except Exception as err:  # the Python kernel's error, for the entry too
                    records.append((type(err).__name__, str(err)))
            assert records[0] == records[1], (layout, args, requires_grad)


def test_t_matches_python_kernel():
    for shape in [(3, 4), (5,), (), (1, 6)]:
        for requires_grad in (False, True):
            records = []
            for call in (lambda t: t.t(), _ops.t):
                base = torchlite.ones(shape).requires_grad_(requires_grad)
                records.append(_view_record(base, call(base)))
            assert records[0] == records[1]
    with pytest.raises(RuntimeError, match="t\\(\\) expects a tensor with <= 2 dimensions, but self is 3D"):
        torchlite.ones(2, 3, 4).t()


def test_view_entries_modes():
    x = torchlite.ones(2, 3, requires_grad=True)
    with torchlite.no_grad():
        v, p = x.view(6), _ops.view(x, 6)
    # as torch's: no node, but a view of a tensor that requires grad requires grad
    assert v.grad_fn is None and v.requires_grad and v.is_leaf and v._base is x
    assert _view_record(x, v, grads=False) == _view_record(x, p, grads=False)
    # the no_grad view's creation meta refuses a later in-place op in grad mode, as the Python kernel's
    w = x.clone()
    with torchlite.no_grad():
        vw, vp = w.view(6), _ops.view(w, 6)
    messages = []
    for view in (vw, vp):
        with pytest.raises(RuntimeError) as err:
            view.mul_(2)
        messages.append(str(err.value))
    assert messages[0] == messages[1]
    with torchlite.inference_mode():
        i = torchlite.ones(2, 3)
        iv = i.view(3, 2)
    assert iv.is_inference() and iv._base is None
    # a write through the view reaches the base and bumps the shared version counter
    y = torchlite.zeros(2, 3)
    t = y.t()
    t.add_(1)
    assert y._version == t._version == 1 and y.sum().item() == 6
    # an int-like that is not an int goes to the Python kernel, which refuses or converts as it does
    z = torchlite.ones(2, 3)
    assert z.view(np.int64(6)).shape == (6,)
    with pytest.raises(TypeError):
        z.view(6.0)
    with pytest.raises(TypeError):
        z.transpose(0, 1.0)


def test_views_against_torch():
    def case(lib):
        rng = np.random.default_rng(3)
        x = lib.tensor(rng.standard_normal((2, 8, 12)).astype(np.float32), requires_grad=True)
        B, T, C = x.size()
        q = x.view(B, T, 3, C // 3).transpose(1, 2)
        k = x.permute(2, 0, 1).unsqueeze(0).expand(2, C, B, T)
        y = (q.transpose(-2, -1) @ q).sum() + (k * k).sum() + x.view(-1, 4).t().sum()
        y.backward()
        views = (q, k, x.view(-1), x.unsqueeze(-1), x.reshape(4, -1), x.transpose(0, 1).reshape(-1))
        return ([v.stride() for v in views], [v.grad_fn.name() for v in views], q.grad_fn._saved_dim0,
                k.grad_fn._saved_self_sym_sizes, x.grad)
    assert run(case, torchlite) == run(case, torch)

    def errors(lib):
        x = lib.ones(2, 3, 4)
        out = []
        for call in (lambda: x.view(5, 5), lambda: x.view(-1, -1), lambda: x.transpose(0, 3),
                     lambda: x.permute(0, 0, 1), lambda: x.permute(0, 1), lambda: x.unsqueeze(4),
                     lambda: x.expand(3, 3, 4), lambda: x.expand(3, 4), lambda: x.expand(-1, 2, 3, 4), lambda: x.t(),
                     lambda: x.transpose(1, 2).view(24), lambda: x.reshape(5, 5), lambda: x.reshape(-1, -1)):
            try:
                call()
                out.append("ok")
            except Exception as err:
                out.append((type(err).__name__, norm(str(err))))
        return out
    assert run(errors, torchlite) == run(errors, torch)
