"""The C++ entries of mm, matmul (and @) and torch.nn.functional.linear (Note [C++ entries of the matrix
products], csrc/autograd/python_fast_linear.cpp).

An entry must give what the Python kernel gives (torchlite._ops.mm / matmul / linear, the reference, which
runs every call the entry does not take): the same bits (numpy's matmul loop called as np.matmul calls it), the
same tensors (strides, views, version counters), the same nodes in the same order with the same saved fields,
and so the same gradients, first and second order, under every combination of requires_grad, no_grad and
saved-tensor hooks. Then against torch: values, node names, saved fields, gradients (gradcheck and gradgradcheck
in float64) and the errors of the calls the entries leave to Python."""
import itertools

import numpy as np
import pytest

import torchlite
from torchlite import _ops
from diff_utils import import_torch, run

torch = import_torch()
F = torchlite.nn.functional


def _taken(t):
    """Whether t's memory is a C++ storage (the entries allocate with at::empty; the Python kernels' products are
    numpy's arrays): its array's base chain ends in the storage capsule."""
    base = t._array.base
    while isinstance(base, np.ndarray):
        base = base.base
    return type(base).__name__ == "PyCapsule"


def _values(shape, dtype, seed, special=True):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if special and a.size >= 8:
        flat = a.reshape(-1)
        idx = rng.choice(flat.size, size=max(1, flat.size // 16), replace=False)
        flat[idx] = rng.choice([np.nan, np.inf, -np.inf, -0.0, 0.0, 1e30, -1e-30], size=idx.size)
    return a.astype(dtype)


def _bits(t):
    a = t.detach().numpy()
    return a.dtype.str, a.shape, a.tobytes()


def _field(v):
    if isinstance(v, torchlite.Tensor):
        return ("tensor", _bits(v), tuple(v.stride()), v.requires_grad)
    if isinstance(v, (list, tuple)):
        return type(v)(_field(x) for x in v)
    return v


def _graph(fn):
    """The graph under fn: each node's name and saved fields, breadth first (the same order for the same graph)."""
    out, queue, seen, held = [], [fn], set(), []
    while queue:
        node = queue.pop(0)
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        held.append(node)  # (a node's Python object may be made per access: held, so its id is not reused)
        saved = {}
        for name in sorted(n for n in dir(node) if n.startswith("_saved_")):
            try:
                saved[name] = _field(getattr(node, name))
            except Exception as e:  # noqa: BLE001 - what the field access shows is compared
                saved[name] = (type(e).__name__, str(e))
        out.append((node.name(), saved))
        queue.extend(n for n, _ in node.next_functions)
    return out


def _describe(out, leaves):
    record = [_bits(out), tuple(out.stride()), out.storage_offset(), out.requires_grad, out.is_leaf,
              out._base is not None, None if out._base is None else tuple(out._base.shape),
              None if out.grad_fn is None else _graph(out.grad_fn)]
    needs = [x for x in leaves if x.requires_grad]
    if out.grad_fn is not None and needs:
        rng = np.random.default_rng(1)
        g = torchlite.tensor(rng.standard_normal(tuple(out.shape)).astype(out.numpy(force=True).dtype))
        grads = torchlite.autograd.grad(out, needs, g, create_graph=True)
        record.append([_bits(x) for x in grads])
        # second order: through the first-order graph the saved fields rebuild
        total = sum((gr * gr).sum() for gr in grads if gr.requires_grad)
        if isinstance(total, torchlite.Tensor) and total.requires_grad:
            record.append([_bits(x) if x is not None else None
                           for x in torchlite.autograd.grad(total, needs, allow_unused=True)])
    return record


def _compare(fast, python, leaves, taken=True):
    """Runs fast(*operands) (the C++ entry) and python(*operands) (the Python kernel), each on operands made afresh
    by the factories `leaves` (None: an absent bias); `taken`: whether the entry takes the call."""
    results = []
    for i, call in enumerate((fast, python)):
        operands = [None if make is None else make() for make in leaves]
        out = call(*operands)
        if i == 0:
            assert _taken(out) == taken
        results.append(_describe(out, [x for x in operands if x is not None]))
    assert results[0] == results[1]


def _leaf(array, requires_grad):
    return lambda: torchlite.tensor(array).requires_grad_(requires_grad)


def _operand(shape, layout, dtype, seed, requires_grad):
    """A factory of 2-d operands of `shape` laid out as `layout`: contiguous, transposed, every other column, offset
    rows, or expanded from one row (stride 0)."""
    m, n = shape
    if layout == "contiguous":
        storage, view = _values((m, n), dtype, seed), lambda s: s
    elif layout == "transposed":
        storage, view = _values((n, m), dtype, seed), lambda s: s.t()
    elif layout == "strided":
        storage, view = _values((m, 2 * n), dtype, seed), lambda s: s[:, ::2]
    elif layout == "offset":
        storage, view = _values((m + 2, n), dtype, seed), lambda s: s[2:]
    else:  # expanded
        storage, view = _values((1, n), dtype, seed), lambda s: s.expand(m, n)
    return lambda: view(torchlite.tensor(storage)).requires_grad_(requires_grad)


LAYOUTS = ["contiguous", "transposed", "strided", "offset", "expanded"]
# (m, k, p): gemm, gemv (m == 1 or p == 1), dot (1 x 1), numpy's own loop (k == 1), and one above numpy's
# threshold for releasing the GIL (m * p > 500)
SHAPES = [(4, 8, 5), (1, 8, 5), (4, 8, 1), (1, 8, 1), (4, 1, 5), (3, 1, 1), (1, 1, 1), (33, 17, 21), (7, 64, 3)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", SHAPES)
def test_mm_matches_python_kernel(shape, dtype):
    m, k, p = shape
    for la, lb in itertools.product(LAYOUTS, LAYOUTS):
        for ra, rb in [(True, True), (True, False), (False, True), (False, False)]:
            a = _operand((m, k), la, dtype, 1, ra)
            b = _operand((k, p), lb, dtype, 2, rb)
            _compare(torchlite.Tensor.mm, _ops.mm, [a, b])
            _compare(torchlite.mm, _ops.mm, [a, b])
            _compare(lambda x, y: x @ y, _ops.matmul, [a, b])
            _compare(torchlite.matmul, _ops.matmul, [a, b])
            _compare(torchlite.Tensor.matmul, _ops.matmul, [a, b])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("batch", [(2, 3), (1, 3), (2, 1), (2, 2, 3), (1,)])
def test_folded_matmul_matches_python_kernel(batch, dtype):
    for k, p in [(4, 5), (1, 3), (6, 1)]:
        for lb in LAYOUTS:
            for ra, rb in itertools.product([True, False], repeat=2):
                a = _leaf(_values(batch + (k,), dtype, 3), ra)
                b = _operand((k, p), lb, dtype, 4, rb)
                _compare(lambda x, y: x @ y, _ops.matmul, [a, b])
                _compare(torchlite.matmul, _ops.matmul, [a, b])


LINEAR_SHAPES = [(4, 8), (1, 8), (4, 1), (2, 3, 8), (2, 1, 3, 8), (1, 1, 8), (40, 30)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", LINEAR_SHAPES)
def test_linear_matches_python_kernel(shape, dtype):
    k = shape[-1]
    for n in (5, 1, 20):
        for lw in LAYOUTS:
            for rx, rw, rb in itertools.product([True, False], repeat=3):
                x = _leaf(_values(shape, dtype, 5), rx)
                w = _operand((n, k), lw, dtype, 6, rw)
                b = _leaf(_values((n,), dtype, 7), rb)
                _compare(F.linear, _ops.linear, [x, w, b])
                _compare(F.linear, _ops.linear, [x, w])
                _compare(F.linear, _ops.linear, [x, w, None])


def test_linear_2d_input_layouts():
    for lx in LAYOUTS:
        for rx, rw in itertools.product([True, False], repeat=2):
            x = _operand((6, 8), lx, np.float32, 8, rx)
            w = _operand((5, 8), "contiguous", np.float32, 9, rw)
            b = _leaf(_values((5,), np.float32, 10), True)
            _compare(F.linear, _ops.linear, [x, w, b])
            _compare(F.linear, _ops.linear, [x, w])


def test_nn_linear_module():
    torchlite.manual_seed(0)
    layer = torchlite.nn.Linear(8, 5)
    x = torchlite.tensor(_values((2, 3, 8), np.float32, 11), requires_grad=True)
    out = layer(x)
    assert _taken(out) and out.grad_fn.name() == "ViewBackward0"
    ref = _ops.linear(x, layer.weight, layer.bias)
    assert _describe(out, [x, layer.weight, layer.bias]) == _describe(ref, [x, layer.weight, layer.bias])


def test_calls_left_to_python():
    """Calls outside the entries run the Python kernel: other dtypes, 1-d operands, a batch by a batch, a
    non-contiguous batch, a bias of another shape, empty tensors, keywords."""
    f = _leaf(_values((3, 4), np.float32, 12), True)
    g = _leaf(_values((4, 5), np.float32, 13), True)
    gt = _operand((5, 4), "contiguous", np.float32, 13, True)
    v4 = _leaf(_values((4,), np.float32, 1), True)
    batch = _leaf(_values((2, 3, 4), np.float32, 3), True)
    transposed_batch = _operand((6, 4), "contiguous", np.float32, 3, True)
    tb = lambda: transposed_batch().view(3, 2, 4).transpose(0, 1)  # noqa: E731
    ones = lambda *shape, dtype=None: lambda: torchlite.ones(*shape, dtype=dtype)  # noqa: E731
    cases = [
        (torchlite.Tensor.mm, _ops.mm, [ones(3, 4, dtype=torchlite.int64), ones(4, 2, dtype=torchlite.int64)]),
        (torchlite.matmul, _ops.matmul, [v4, g]),
        (torchlite.matmul, _ops.matmul, [f, v4]),
        (torchlite.matmul, _ops.matmul, [batch, _leaf(_values((2, 4, 5), np.float32, 4), True)]),
        (torchlite.matmul, _ops.matmul, [tb, g]),
        (torchlite.matmul, _ops.matmul, [ones(0, 4), g]),
        (F.linear, _ops.linear, [f, gt, ones(1, 5)]),
        (F.linear, _ops.linear, [v4, gt, ones(5)]),
        (F.linear, _ops.linear, [tb, gt, ones(5)]),
        (F.linear, _ops.linear, [tb, gt]),
        (lambda x, w: F.linear(x, w, bias=None), _ops.linear, [f, gt]),
    ]
    for fast, python, leaves in cases:
        _compare(fast, python, leaves, taken=False)
    x = torchlite.ones(2, 2)
    with torchlite.inference_mode():
        assert not _taken(x @ x) and not _taken(F.linear(x, x, torchlite.ones(2)))
    # the Python kernel's own call: out=
    out = torchlite.empty(3, 5)
    assert torchlite.mm(f().detach(), g().detach(), out=out) is out
    assert _bits(out) == _bits(_ops.mm(f().detach(), g().detach()))


def test_modes_and_hooks_match_python_kernel():
    a = torchlite.tensor(_values((2, 3, 4), np.float32, 14), requires_grad=True)
    w = torchlite.tensor(_values((5, 4), np.float32, 15), requires_grad=True)
    b = torchlite.tensor(_values((5,), np.float32, 16), requires_grad=True)
    with torchlite.no_grad():
        for fast, python in [(F.linear, _ops.linear),
                             (lambda x, y, z: x @ y.t(), lambda x, y, z: _ops.matmul(x, y.t()))]:
            o1, o2 = fast(a, w, b), python(a, w, b)
            assert _taken(o1) and _bits(o1) == _bits(o2)
            assert (o1.requires_grad, o1.grad_fn, o1._base is None) == (o2.requires_grad, o2.grad_fn, o2._base is None)
    # a view made under no_grad refuses an in-place change with grad on, as the Python kernel's
    with torchlite.no_grad():
        views = [F.linear(a, w, b), _ops.linear(a, w, b)]
    errors = []
    for v in views:
        try:
            v.mul_(2)
            errors.append(None)
        except RuntimeError as e:
            errors.append(str(e))
    assert errors[0] == errors[1]

    packed = []

    def pack(t):
        packed.append(tuple(t.shape))
        return t

    for call in (F.linear, _ops.linear):
        with torchlite.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            out = call(a, w, b)
        out.sum().backward()
    half = len(packed) // 2
    assert packed[:half] == packed[half:] and half > 0
    # the version counter: the output of the 3-d linear is a view of addmm's result, sharing its version
    for call in (F.linear, _ops.linear):
        out = call(a.detach(), w.detach(), b.detach())
        base = out._base
        out.add_(1)
        assert base._version == out._version == 1


def test_matmul_operator_non_tensor():
    def case(lib):
        x = lib.ones(2, 2)
        out = []
        for other in (2, 2.5, "s", None, [[1.0, 0.0], [0.0, 1.0]]):
            for expr in (lambda o=other: x @ o, lambda o=other: o @ x):
                try:
                    out.append(("ok", expr()))
                except TypeError as e:
                    out.append(("TypeError", str(e)))
        return out

    assert run(case, torchlite) == run(case, torch)


# Against torch ---------------------------------------------------------------------------------------------------

def _torch_case(lib, fn, shapes, requires, dtype="float64"):
    leaves = [lib.tensor(_values(s, np.float64, 20 + i, special=False)).to(getattr(lib, dtype)).requires_grad_(r)
              for i, (s, r) in enumerate(zip(shapes, requires, strict=True))]
    out = fn(lib, *leaves)
    names, node = [], out.grad_fn
    while node is not None:
        names.append(node.name())
        node = next((n for n, _ in node.next_functions if n is not None and n.name() != "AccumulateGrad"), None)
    saved = {}
    for name in ("_saved_self_sym_sizes", "_saved_self_sym_strides", "_saved_mat2_sym_sizes",
                 "_saved_mat2_sym_strides", "_saved_mat1_sym_sizes", "_saved_mat1_sym_strides", "_saved_beta",
                 "_saved_alpha"):
        if out.grad_fn is not None and hasattr(out.grad_fn, name):
            saved[name] = getattr(out.grad_fn, name)
    structure = (str(out.dtype), tuple(out.shape), names, saved, tuple(out.stride()), out._base is not None)
    if dtype == "float32":  # (float32 products round differently in torch's BLAS calls and numpy's)
        return structure
    needs = [x for x in leaves if x.requires_grad]
    grads = lib.autograd.grad((out * out).sum(), needs, create_graph=True)
    second = lib.autograd.grad(sum(g.sum() for g in grads), needs, allow_unused=True)
    return structure, out, grads, second


TORCH_CASES = [
    (lambda lib, a, b: a @ b, [(3, 4), (4, 5)], [True, True]),
    (lambda lib, a, b: a @ b, [(3, 4), (4, 5)], [False, True]),
    (lambda lib, a, b: a.mm(b), [(3, 4), (4, 5)], [True, False]),
    (lambda lib, a, b: lib.mm(a, b.t()), [(3, 4), (5, 4)], [True, True]),
    (lambda lib, a, b: lib.matmul(a, b), [(2, 3, 4), (4, 5)], [True, True]),
    (lambda lib, a, b: lib.matmul(a, b), [(2, 3, 4), (4, 5)], [True, False]),
    (lambda lib, a, b: a @ b, [(1, 4), (4, 1)], [True, True]),
    (lambda lib, x, w, b: lib.nn.functional.linear(x, w, b), [(3, 4), (5, 4), (5,)], [True, True, True]),
    (lambda lib, x, w, b: lib.nn.functional.linear(x, w, b), [(3, 4), (5, 4), (5,)], [False, True, False]),
    (lambda lib, x, w, b: lib.nn.functional.linear(x, w, b), [(2, 3, 4), (5, 4), (5,)], [True, True, True]),
    (lambda lib, x, w: lib.nn.functional.linear(x, w), [(3, 4), (5, 4)], [True, True]),
    (lambda lib, x, w: lib.nn.functional.linear(x, w), [(2, 3, 4), (5, 4)], [True, True]),
    (lambda lib, x, w: lib.nn.functional.linear(x, w), [(2, 3, 4), (5, 4)], [True, False]),
]


@pytest.mark.parametrize("index", range(len(TORCH_CASES)))
def test_against_torch(index):
    fn, shapes, requires = TORCH_CASES[index]
    for dtype in ("float32", "float64"):
        def case(lib, dtype=dtype):
            return _torch_case(lib, fn, shapes, requires, dtype)

        got = run(case, torchlite)
        assert got == run(case, torch)
        assert got[0] == "ok"


@pytest.mark.parametrize("index", range(len(TORCH_CASES)))
def test_gradcheck(index):
    fn, shapes, requires = TORCH_CASES[index]
    leaves = [torchlite.tensor(_values(s, np.float64, 30 + i, special=False), requires_grad=True)
              for i, s in enumerate(shapes)]
    out = fn(torchlite, *leaves)
    assert _taken(out)
    assert torchlite.autograd.gradcheck(lambda *xs: fn(torchlite, *xs), leaves)
    assert torchlite.autograd.gradgradcheck(lambda *xs: fn(torchlite, *xs), leaves)


def test_errors_against_torch():
    def calls(lib):
        F = lib.nn.functional
        f, d = lib.ones(3, 4), lib.ones(3, 4, dtype=lib.float64)
        return [
            lambda: f @ lib.ones(5, 2),
            lambda: f.mm(lib.ones(5, 2)),
            lambda: lib.mm(f, d.t()),
            lambda: f @ d.t(),
            lambda: lib.ones(2, 3, 4) @ lib.ones(5, 2),
            lambda: lib.matmul(f, lib.ones(2, 5, 2)),
            lambda: F.linear(f, lib.ones(2, 5)),
            lambda: F.linear(f, lib.ones(2, 5), lib.ones(2)),
            lambda: F.linear(f, lib.ones(2, 4), lib.ones(3)),
            lambda: F.linear(lib.ones(2, 3, 4), lib.ones(2, 5), lib.ones(2)),
            lambda: F.linear(lib.ones(2, 3, 4), lib.ones(2, 4), lib.ones(5)),
            lambda: F.linear(f, lib.ones(2, 4, dtype=lib.float64), lib.ones(2)),
            lambda: F.linear(f, lib.ones(2, 4), lib.ones(2, dtype=lib.float64)),
            lambda: F.linear(f, 2.0),
            lambda: lib.mm(f, lib.ones(4)),
            lambda: lib.ones(()) @ f,
        ]

    for i in range(16):
        def case(lib, i=i):
            return calls(lib)[i]()
        assert run(case, torchlite) == run(case, torch), i


# cat --------------------------------------------------------------------------------------------------------------

CAT_CASES = [([(4, 8), (2, 8)], 0), ([(4, 8), (4, 3), (4, 1)], 1), ([(4, 8), (4, 3)], -1), ([(3, 2, 5)] * 3, 1),
             ([(3, 2, 5), (1, 2, 5)], -3), ([(2, 3, 4), (2, 3, 1)], 2), ([(7,)], 0), ([(5,), (1,), (300,)], -1),
             ([(1, 1)] * 4, 0)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("index", range(len(CAT_CASES)))
def test_cat_matches_python_kernel(index, dtype):
    shapes, dim = CAT_CASES[index]
    for requires in itertools.product([True, False], repeat=len(shapes)):
        leaves = [_leaf(_values(s, dtype, 40 + i), r) for i, (s, r) in enumerate(zip(shapes, requires, strict=True))]
        _compare(lambda *ts: torchlite.cat(list(ts), dim), lambda *ts: _ops.cat(list(ts), dim), leaves)
        _compare(lambda *ts: torchlite.cat(ts, dim=dim), lambda *ts: _ops.cat(ts, dim=dim), leaves)
        if dim == 0:
            _compare(lambda *ts: torchlite.cat(ts), lambda *ts: _ops.cat(ts), leaves)
    # the same tensor twice, and int64
    x = _leaf(_values(shapes[0], dtype, 50), True)
    _compare(lambda t: torchlite.cat([t, t, t], dim), lambda t: _ops.cat([t, t, t], dim), [x])
    ints = [lambda s=s: torchlite.tensor(np.arange(int(np.prod(s))).reshape(s) - 3) for s in shapes]
    _compare(lambda *ts: torchlite.cat(ts, dim), lambda *ts: _ops.cat(ts, dim), ints)


def test_cat_left_to_python():
    """Other dtypes or mixed ones, empty and 1-d empty (skipped) tensors, 0-d ones, non-contiguous ones, a dim that
    is not an int, out=, a generator: the Python kernel's."""
    f = _leaf(_values((2, 3), np.float32, 1), True)
    d = _leaf(_values((2, 3), np.float64, 2), True)
    t = _operand((2, 3), "transposed", np.float32, 3, True)
    cases = [
        (lambda a, b: torchlite.cat([a, b]), lambda a, b: _ops.cat([a, b]), [f, d]),
        (lambda a: torchlite.cat([a, torchlite.ones(0)]), lambda a: _ops.cat([a, torchlite.ones(0)]), [f]),
        (lambda a: torchlite.cat([a, torchlite.ones(0, 3)]), lambda a: _ops.cat([a, torchlite.ones(0, 3)]), [f]),
        (lambda a, b: torchlite.cat([a, b]), lambda a, b: _ops.cat([a, b]), [f, t]),
        (lambda a: torchlite.cat([a, a], np.int64(1)), lambda a: _ops.cat([a, a], np.int64(1)), [f]),
        (lambda a: torchlite.cat(x for x in (a, a)), lambda a: _ops.cat(x for x in (a, a)), [f]),
        (lambda a: torchlite.cat([a.bool(), a.bool()]), lambda a: _ops.cat([a.bool(), a.bool()]), [f]),
    ]
    for fast, python, leaves in cases:
        _compare(fast, python, leaves, taken=False)
    out = torchlite.empty(4, 3)
    assert torchlite.cat([f().detach(), f().detach()], out=out) is out and not _taken(out)


def test_cat_against_torch():
    def case(lib):
        a = lib.tensor(_values((2, 3), np.float64, 5, special=False), requires_grad=True)
        b = lib.tensor(_values((2, 1), np.float64, 6, special=False), requires_grad=True)
        c = lib.tensor(_values((2, 3), np.float64, 7, special=False))
        outs = [lib.cat([a, b], 1), lib.cat((a, c), dim=0), lib.cat([a, b, a], -1), lib.cat([c, c])]
        loss = sum((o * o).sum() for o in outs)
        grads = lib.autograd.grad(loss, [a, b], create_graph=True)
        second = lib.autograd.grad(sum(g.sum() for g in grads), [a, b])
        return outs, [o.grad_fn.name() if o.grad_fn else None for o in outs], outs[2].grad_fn._saved_dim, grads, second

    got = run(case, torchlite)
    assert got == run(case, torch) and got[0] == "ok"
    a = torchlite.tensor(_values((2, 3), np.float64, 8, special=False), requires_grad=True)
    b = torchlite.tensor(_values((1, 3), np.float64, 9, special=False), requires_grad=True)
    assert _taken(torchlite.cat([a, b]))
    assert torchlite.autograd.gradcheck(lambda x, y: torchlite.cat([x, y, x]), [a, b])
    assert torchlite.autograd.gradgradcheck(lambda x, y: torchlite.cat([x, y, x]), [a, b])


def test_cat_errors_against_torch():
    def calls(lib):
        a, b = lib.ones(2, 3), lib.ones(3, 2)
        return [
            lambda: lib.cat([a, b]),
            lambda: lib.cat([a, b], 1),
            lambda: lib.cat([a, a], 2),
            lambda: lib.cat([a, a], -3),
            lambda: lib.cat([a, lib.ones(2, 3, 1)]),
            lambda: lib.cat([]),
            lambda: lib.cat([a, 1.0]),
            lambda: lib.cat(a),
            lambda: lib.cat([a, a], dim=1.0),
            lambda: lib.cat([lib.ones(()), a]),
        ]

    for i in range(10):
        def case(lib, i=i):
            return calls(lib)[i]()
        assert run(case, torchlite) == run(case, torch), i


def test_threads():
    """A product above numpy's threshold runs without the GIL (as np.matmul's): threads computing at once give the
    Python kernel's bits."""
    import threading

    x = torchlite.tensor(_values((64, 48), np.float64, 60, special=False), requires_grad=True)
    w = torchlite.tensor(_values((40, 48), np.float64, 61, special=False), requires_grad=True)
    b = torchlite.tensor(_values((40,), np.float64, 62, special=False))
    expected = _bits(_ops.linear(x, w, b))
    results = []

    def work():
        for _ in range(20):
            out = F.linear(x, w, b)
            results.append(_taken(out) and _bits(out) == expected)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 80 and all(results)
