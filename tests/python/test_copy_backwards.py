"""copy_'s node against torch's: Python's Tensor.copy_ records the hand-written C++
CopyBackwards (csrc/autograd/functions/tensor.h, made by _C._copy_node as upstream's copy_ in
VariableTypeManual.cpp), the only CopyBackwards there is. Its name, next edges (self's, then
src's), the gradients (zeros for self, which the copy overwrites; src's cast back to src's
dtype and summed to src's shape after broadcasting), copy_ onto a view (CopySlices wrapping it),
and double and triple backward through a dtype-changing copy: the cast is the C++ core's recorded
`to` (ToCopyBackward0, generated/Functions.h), so create_graph differentiates it without Python."""
import numpy as np
import pytest

import torchlite

from diff_utils import import_torch, norm, run

torch = import_torch()

DTYPES = [("float64", "float64"), ("float32", "float64"), ("float64", "float32"), ("float32", "float32"),
          ("float16", "float32"), ("float32", "float16")]


def _dt(lib, name):
    return getattr(lib, name)


def _src(lib, shape, dtype, requires_grad=True):
    data = np.arange(1, 1 + int(np.prod(shape)), dtype=np.float64).reshape(shape) / 4 - 0.6
    return lib.tensor(data, dtype=_dt(lib, dtype), requires_grad=requires_grad)


def _chain(fn, depth=6):
    """The names along a grad_fn's first next edges (a graph's spine)."""
    names = []
    while fn is not None and depth:
        names.append(fn.name())
        fn = fn.next_functions[0][0] if fn.next_functions else None
        depth -= 1
    return names


def _next_names(fn):
    return [(n.name() if n is not None else None, i) for n, i in fn.next_functions]


def _same(case):
    assert run(case, torchlite) == run(case, torch)


def _close(a, b, dtype):
    a = np.asarray(a.detach().numpy(), np.float64)
    b = np.asarray(b.detach().numpy(), np.float64)
    tol = {"float64": (1e-10, 1e-12), "float32": (1e-5, 1e-6), "float16": (2e-3, 2e-3)}[dtype]
    np.testing.assert_allclose(a, b, rtol=tol[0], atol=tol[1])


@pytest.mark.parametrize("self_dtype,src_dtype", DTYPES)
@pytest.mark.parametrize("src_shape", [(2, 3), (3,), (1, 3), (2, 1), ()])
def test_first_order(self_dtype, src_dtype, src_shape):
    def case(lib):
        leaf = _src(lib, (2, 3), self_dtype)
        src = _src(lib, src_shape, src_dtype)
        y = leaf * 2
        y.copy_(src)
        w = lib.arange(6, dtype=_dt(lib, self_dtype)).reshape(2, 3) - 2
        (y * w).sum().backward()
        return (y.grad_fn.name(), _next_names(y.grad_fn), str(y.dtype), src.grad, leaf.grad,
                [a for a in dir(y.grad_fn) if a.startswith("_saved")])
    _same(case)


@pytest.mark.parametrize("self_requires,src_requires", [(True, False), (False, True), (True, True), (False, False)])
def test_next_edges(self_requires, src_requires):
    def case(lib):
        a = _src(lib, (2, 3), "float64", self_requires)
        s = _src(lib, (3,), "float32", src_requires)
        y = a.clone()
        y.copy_(s)
        fn = y.grad_fn
        return (fn.name() if fn else None, _next_names(fn) if fn else None, y.requires_grad,
                fn.next_functions[0][0] is (a.grad_fn if a.grad_fn else None) if fn else None)
    _same(case)


def test_self_gradient_is_zeros():
    def case(lib):
        a = _src(lib, (2, 3), "float64")
        s = _src(lib, (2, 3), "float64", False)
        y = a.exp()
        y.copy_(s)
        g, = lib.autograd.grad(y.sum(), a)
        return g, str(g.dtype)
    _same(case)


def test_integer_self_records_nothing():
    def case(lib):
        s = _src(lib, (3,), "float32")
        y = lib.zeros(3, dtype=lib.int64)
        y.copy_(s)
        return y.grad_fn, y.requires_grad, y
    _same(case)


@pytest.mark.parametrize("make", ["leaf", "leaf_view"])
def test_leaf_refused(make):
    def case(lib):
        a = _src(lib, (2, 3), "float64")
        target = a if make == "leaf" else a[0]
        target.copy_(_src(lib, target.shape, "float64", False))
    _same(case)


def test_no_grad_and_inference():
    def case(lib):
        s = _src(lib, (3,), "float32")
        with lib.no_grad():
            y = lib.zeros(3).copy_(s)
        with lib.inference_mode():
            z = lib.zeros(3).copy_(s)
        return y.grad_fn, y.requires_grad, z.requires_grad, y, z
    _same(case)


@pytest.mark.parametrize("self_dtype,src_dtype", DTYPES[:3])
@pytest.mark.parametrize("key,src_shape", [((slice(1, 3),), (2, 3)), ((slice(1, 3),), (3,)), ((0,), (1, 3)),
                                           ((slice(None), 1), (4,)), ((slice(None, None, 2), slice(1, None)), (1,))])
def test_copy_onto_view(self_dtype, src_dtype, key, src_shape):
    def case(lib):
        base_leaf = _src(lib, (4, 3), self_dtype)
        src = _src(lib, src_shape, src_dtype)
        b = base_leaf.clone()
        b[key].copy_(src)
        w = lib.arange(12, dtype=_dt(lib, self_dtype)).reshape(4, 3) - 5
        (b * w).sum().backward()
        return b.grad_fn.name(), _next_names(b.grad_fn), src.grad, base_leaf.grad, b
    _same(case)


def test_copy_onto_view_without_base_grad():
    def case(lib):
        b = lib.zeros(4, 3, dtype=lib.float64)
        src = _src(lib, (3,), "float32")
        b[1].copy_(src)
        (b * b).sum().backward()
        return b.grad_fn.name(), _next_names(b.grad_fn), src.grad
    _same(case)


def test_grad_fn_hooks():
    def case(lib):
        src = _src(lib, (3,), "float32")
        y = lib.zeros(2, 3, dtype=lib.float64)
        y.copy_(src)
        seen = []
        y.grad_fn.register_hook(lambda gi, go: seen.append((norm(gi), norm(go))))
        y.grad_fn.register_prehook(lambda go: seen.append(("pre", norm(go))))
        y.sum().backward()
        return seen, src.grad
    _same(case)


@pytest.mark.parametrize("self_dtype,src_dtype", DTYPES[:5])
@pytest.mark.parametrize("src_shape", [(2, 3), (3,), (1, 1)])
def test_double_backward(self_dtype, src_dtype, src_shape):
    """autograd.grad with create_graph through the copy, then a second grad: the same graph (the
    cast's ToCopyBackward0, the broadcast's sum) and values as torch."""
    def case(lib):
        leaf = _src(lib, (2, 3), self_dtype)
        src = _src(lib, src_shape, src_dtype)
        y = leaf * 1.5
        y.copy_(src)
        out = (y * y * y).sum()
        g, = lib.autograd.grad(out, src, create_graph=True)
        chain = _chain(g.grad_fn)
        gg, = lib.autograd.grad((g * g).sum(), src, create_graph=True)
        ggg, = lib.autograd.grad(gg.sum(), src)
        return chain, g, str(g.dtype), gg, ggg
    _same(case)


@pytest.mark.parametrize("self_dtype,src_dtype", DTYPES[:3])
def test_double_backward_onto_view(self_dtype, src_dtype):
    def case(lib):
        src = _src(lib, (3,), src_dtype)
        b = lib.zeros(4, 3, dtype=_dt(lib, self_dtype))
        b[1:3].copy_(src)
        g, = lib.autograd.grad((b ** 3).sum(), src, create_graph=True)
        gg, = lib.autograd.grad(g.sum(), src)
        return g, gg, g.requires_grad
    _same(case)


def test_backward_create_graph_grads():
    """backward(create_graph=True) leaves a differentiable .grad on src (its dtype's), whose
    backward reaches src again."""
    def case(lib):
        src = _src(lib, (3,), "float32")
        y = lib.zeros(2, 3, dtype=lib.float64)
        y.copy_(src)
        (y ** 3).sum().backward(create_graph=True)
        gsrc = src.grad
        first = gsrc.detach().clone()
        src.grad = None
        gsrc.sum().backward()
        return first, str(gsrc.dtype), gsrc.requires_grad, src.grad
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same(case)


def _copy_fn(lib, self_dtype, shape):
    def fn(x):
        y = lib.zeros(shape, dtype=_dt(lib, self_dtype)).copy_(x)
        return (y * y * y).sum(dim=0)
    return fn


def test_gradgradcheck_float64():
    for lib in (torchlite, torch):
        x = _src(lib, (3,), "float64")
        assert lib.autograd.gradcheck(_copy_fn(lib, "float64", (2, 3)), (x,))
        assert lib.autograd.gradgradcheck(_copy_fn(lib, "float64", (2, 3)), (x,))


def test_gradgradcheck_float32_to_float64():
    """A float32 src copied into a float64 tensor (the input cast to float32 first, so the copy's
    backward casts float64 -> float32): checked in float64 with steps float32 resolves."""
    def fn_of(lib):
        copy = _copy_fn(lib, "float64", (2, 3))
        return lambda x: copy(x.to(lib.float32))
    for lib in (torchlite, torch):
        x = _src(lib, (3,), "float64")
        kw = dict(eps=1e-3, atol=1e-3, rtol=1e-3)
        assert lib.autograd.gradcheck(fn_of(lib), (x,), **kw)
        assert lib.autograd.gradgradcheck(fn_of(lib), (x,), **kw)


def test_gradgradcheck_float64_to_float32():
    def fn_of(lib):
        copy = _copy_fn(lib, "float32", (2, 3))
        return lambda x: copy(x).to(lib.float64)
    for lib in (torchlite, torch):
        x = _src(lib, (3,), "float64")
        kw = dict(eps=1e-3, atol=1e-3, rtol=1e-3)
        assert lib.autograd.gradcheck(fn_of(lib), (x,), **kw)
        assert lib.autograd.gradgradcheck(fn_of(lib), (x,), **kw)


@pytest.mark.parametrize("self_dtype,src_dtype", [("float64", "float64"), ("float32", "float64"),
                                                  ("float64", "float32")])
def test_values_tight(self_dtype, src_dtype):
    """First and second order, compared as arrays at the dtype's tolerance."""
    res = {}
    for lib in (torchlite, torch):
        src = _src(lib, (3,), src_dtype)
        y = lib.ones(4, 3, dtype=_dt(lib, self_dtype))
        y.copy_(src)
        g, = lib.autograd.grad((y.sin() * y).sum(), src, create_graph=True)
        gg, = lib.autograd.grad((g * g).sum(), src)
        res[lib] = (g, gg)
    for a, b in zip(res[torchlite], res[torch], strict=True):
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1] == src_dtype
        _close(a, b, src_dtype)


@pytest.mark.parametrize("device", ["cpu", "sim:0"])
def test_devices(device):
    """On sim:0 as on the CPU (torch runs the case on the CPU)."""
    def case(lib):
        dev = device if lib is torchlite else "cpu"
        src = _src(lib, (3,), "float32").to(dev).detach().requires_grad_()
        y = lib.zeros(2, 3, dtype=lib.float64, device=dev)
        y.copy_(src)
        g, = lib.autograd.grad((y ** 2).sum(), src, create_graph=True)
        gg, = lib.autograd.grad(g.sum(), src)
        return y.grad_fn.name(), g, gg, g.device == src.device, gg.device == src.device
    _same(case)


def test_cross_device_src():
    """A cpu src copied onto sim:0: the gradient comes back on the cpu (src's device), in src's
    dtype, summed to its shape, at first and second order."""
    src = _src(torchlite, (3,), "float32")
    y = torchlite.zeros(2, 3, dtype=torchlite.float64, device="sim:0")
    y.copy_(src)
    g, = torchlite.autograd.grad((y ** 2).sum(), src, create_graph=True)
    assert g.device == torchlite.device("cpu") and g.dtype == torchlite.float32 and g.shape == (3,)
    expected = 4 * src.detach().double().numpy()
    np.testing.assert_allclose(g.detach().numpy(), expected, rtol=1e-6)
    gg, = torchlite.autograd.grad(g.sum(), src)
    assert gg.device == torchlite.device("cpu")
    np.testing.assert_allclose(gg.numpy(), np.full(3, 4.0), rtol=1e-6)


def test_one_copy_backwards():
    """The derivatives table has no copy_ entry: no generated node of that name beside the C++ one."""
    from torchlite._generated import functions, specs
    assert not hasattr(specs, "CopyBackwards") and not hasattr(functions, "CopyBackwards")
    y = torchlite.zeros(3)
    y.copy_(_src(torchlite, (3,), "float32"))
    assert y.grad_fn.name() == "torch::autograd::CopyBackwards"
    assert not hasattr(y.grad_fn, "_raw_saved_src_dtype")


def test_to_copy_native_first_order():
    """_to_copy's formula is native (derivatives.yaml): a first-order backward of a Python `.to()`
    on host memory runs the C++ formula (its typed dtype and device fields read from the node),
    create_graph the Python one. Shown by replacing the Python formula with one that raises."""
    from torchlite import _C
    from torchlite._generated import functions, specs

    def python_formula_ran(*args):
        raise RuntimeError("the Python formula ran")
    _C._set_formula(specs.ToCopyBackward0, python_formula_ran)
    try:
        x = torchlite.arange(3.0, requires_grad=True)
        (x.double() * torchlite.tensor([1.0, 2.0, 3.0], dtype=torchlite.float64)).sum().backward()
        assert x.grad.dtype == torchlite.float32 and x.grad.tolist() == [1.0, 2.0, 3.0]
        s = torchlite.ones(2, requires_grad=True, device="sim:0")
        (s.to("cpu") * 3).sum().backward()
        assert s.grad.device == torchlite.device("sim:0") and s.grad.tolist() == [3.0, 3.0]
        with pytest.raises(RuntimeError, match="the Python formula ran"):
            torchlite.autograd.grad((x.double() ** 2).sum(), x, create_graph=True)
    finally:
        _C._set_formula(specs.ToCopyBackward0, functions.ToCopyBackward0)
    g, = torchlite.autograd.grad((x.double() ** 2).sum(), x, create_graph=True)
    assert g.grad_fn is not None and g.tolist() == [0.0, 2.0, 4.0]
