"""The C++ entries of basic indexing and the per-step views (Note [C++ dispatch of basic indexing],
csrc/autograd/python_fast_index.h): x[key] for an int, a slice, None, Ellipsis or a tuple of these;
select, narrow, squeeze, split, chunk, unbind and flatten.

Each entry must give what its Python kernel gives (which stays the reference, and runs every call
the entry does not take): the same sizes, strides, storage offset and memory, the same view relation
and version counter, the same chain of nodes with the same saved fields, the same gradients, in
every layout and dtype, with and without requires_grad, under no_grad and inference mode; and where
the call is refused, the Python kernel's error. Then against torch: values, nodes, saved fields,
layouts, storage sharing, version counters, gradients (through in-place writes on views too),
errors; gradcheck and gradgradcheck in float64."""
import numpy as np
import pytest

import torchlite
from torchlite import _ops
from torchlite._generated.variable_methods import _SCHEMAS
from torchlite._ops.python_arg_parser import _ARG_ERRORS, _rebind_method
from torchlite.autograd import gradcheck, gradgradcheck
from diff_utils import import_torch, norm, run

torch = import_torch()

ENTRIES = ("__getitem__", "select", "narrow", "squeeze", "split", "chunk", "unbind", "flatten")
FIELDS = ("_saved_dim", "_saved_index", "_saved_start", "_saved_end", "_saved_step", "_saved_self_sym_sizes",
          "_saved_split_size", "_saved_split_sizes")
KERNELS = {"__getitem__": _ops.getitem}


def test_entries_are_bound():
    for name in ENTRIES:
        method = getattr(torchlite.Tensor, name)
        assert method._cpp_dispatch, name
        assert method.__wrapped__ is (KERNELS[name] if name in KERNELS else getattr(_ops, name))
    # the other methods the table does not parse stay their kernels
    assert torchlite.Tensor.copy_ is _ops.copy_ and torchlite.Tensor.unflatten is _ops.unflatten
    assert repr(torchlite.Tensor.__getitem__) == "<method '__getitem__' of 'torchlite.Tensor' objects>"


def _bits(t):
    a = t.detach().numpy()
    return a.dtype.str, a.shape, a.tobytes()


def _storage_start(t):
    return t.data_ptr() - t.storage_offset() * t.element_size()


def _chain(out):
    """The nodes from out's grad_fn back to the leaf: each one's name and saved fields."""
    chain = []
    fn = out.grad_fn
    while fn is not None and fn.name() != "torch::autograd::AccumulateGrad":
        chain.append((fn.name(), {name: getattr(fn, name) for name in FIELDS if hasattr(fn, name)}))
        fn = fn.next_functions[0][0] if fn.next_functions else None
    return chain


def _weights(out):
    """A gradient for `out` with a different value at each position."""
    return (torchlite.arange(float(out.numel())) + 1).reshape(out.shape).to(out.dtype)


def _record(base, out, grads=True):
    """What a view shows: layout, values, view relation, nodes and saved fields, memory and version
    counter shared with base, and the gradient it sends to base."""
    if isinstance(out, tuple):
        pieces = [_record(base, o, grads) for o in out]
        if grads and base.requires_grad and out:
            total = sum((o * _weights(o)).sum() for o in out)
            (g,) = torchlite.autograd.grad(total, base, retain_graph=True)
            pieces.append(_bits(g))
        return ("tuple", len(out), pieces)
    root = base._base if base._base is not None else base
    record = [tuple(out.shape), out.stride(), out.storage_offset(), _bits(out), out.requires_grad, out.is_leaf,
              out._base is root, out is base, _chain(out), _storage_start(out) == _storage_start(base),
              None if base.is_inference() else out._version == base._version, out.is_contiguous(), out.is_inference()]
    if grads and base.requires_grad and out.requires_grad:
        (g,) = torchlite.autograd.grad(out, base, _weights(out), retain_graph=True)
        record.append(_bits(g))
    return record


def _arange(*shape, dtype=torchlite.float32):
    return torchlite.arange(float(int(np.prod(shape)))).to(dtype).reshape(*shape)


BASES = {
    "contiguous": lambda: _arange(3, 4, 5),
    "transposed": lambda: _arange(5, 4, 3).transpose(0, 2),
    "sliced": lambda: _ops.getitem(_arange(3, 4, 10), (slice(None), slice(None), slice(None, None, 2))),
    "offset": lambda: _ops.getitem(_arange(4, 4, 5), slice(1, None)),
    "expanded": lambda: _arange(4, 1).expand(4, 5).unsqueeze(0).expand(3, 4, 5),
    "size_one": lambda: _arange(3, 1, 5),
    "empty": lambda: _arange(3, 0, 5),
    "float64": lambda: _arange(3, 4, 5, dtype=torchlite.float64),
    "int64": lambda: _arange(3, 4, 5, dtype=torchlite.int64),
    "bool": lambda: _arange(3, 4, 5, dtype=torchlite.bool),
    "float16": lambda: _arange(3, 4, 5, dtype=torchlite.float16),
}

_ALL = slice(None)
KEYS = [
    0, 1, -1, -3, 2, 3, -4,
    slice(1, 3), _ALL, slice(None, None, 2), slice(-2, None), slice(5, 1), slice(None, -1), slice(-100, 100),
    slice(0, None), slice(None, 100), slice(1, 1), slice(2, None, 5),
    None, Ellipsis, (), (0,), (0, 1), (0, 1, 2), (0, 1, 2, 3), (_ALL, 1), (Ellipsis, 0), (Ellipsis, None),
    (None, Ellipsis, None), (1, Ellipsis, slice(1, 3)), (_ALL, None, slice(0, 2), -1), (None, None), (_ALL, _ALL, _ALL),
    (slice(0, None),), (slice(None, 100),), (-1, slice(None, None, 3), None), (None, 0, None, 1, None, 2, None),
    (_ALL, slice(2, 2)), (0, -5), (Ellipsis, 7), (None, 3), (2, _ALL, slice(-1, None)), (_ALL, _ALL, slice(0, 5)),
    (_ALL, _ALL, slice(0, 4)), (slice(1, 2), slice(1, 2), slice(1, 2)), tuple([None] * 6), (0,) * 3 + (None,),
    # the Python kernel's calls: steps that are not positive, two ellipses, bools, lists, tensors, numpy
    # integers, floats, str, int64 overflow
    slice(None, None, 0), slice(None, None, -1), (Ellipsis, Ellipsis), True, False, (0, True), [0, 1], [0, _ALL],
    (np.int64(1),), np.int64(-1), slice(np.int64(1), 3), 1.5, "a", 2 ** 70, slice(2 ** 70), (0, 2 ** 63),
    slice(1, 3, True), ((0, 1),), range(2),
]


def _tensor_keys():
    return [torchlite.tensor(1), torchlite.tensor([0, 2]), torchlite.tensor(True), (0, torchlite.tensor(1))]


def _compare(make, fast, slow, requires_grad, label):
    records = []
    for call in (fast, slow):
        base = make()
        if requires_grad:
            base = base.detach().requires_grad_()
        try:
            out = call(base)
            records.append(_record(base, out))
        except Exception as err:  # noqa: BLE001 - the Python kernel's error, for the entry too
            records.append((type(err).__name__, str(err)))
    assert records[0] == records[1], label


@pytest.mark.parametrize("layout", sorted(BASES))
def test_getitem_matches_python_kernel(layout):
    make = BASES[layout]
    differentiable = make().dtype.is_floating_point
    for key in KEYS + _tensor_keys():
        for requires_grad in (False, True) if differentiable else (False,):
            _compare(make, lambda t, k=key: t[k], lambda t, k=key: _ops.getitem(t, k), requires_grad, (key,))


@pytest.mark.parametrize("shape", [(), (5,), (1,), (0,), (2, 1)])
def test_getitem_small_ranks_match_python_kernel(shape):
    def make():
        return _arange(*shape) if shape else torchlite.tensor(2.5)

    for key in KEYS + _tensor_keys():
        for requires_grad in (False, True):
            _compare(make, lambda t, k=key: t[k], lambda t, k=key: _ops.getitem(t, k), requires_grad, (shape, key))


def test_getitem_modes_match_python_kernel():
    for key in (0, slice(1, 3), (None, 1), (Ellipsis, None), (), (_ALL, slice(0, 2), 1)):
        with torchlite.no_grad():
            for requires_grad in (False, True):
                _compare(BASES["contiguous"], lambda t, k=key: t[k], lambda t, k=key: _ops.getitem(t, k),
                         requires_grad, key)
        # no node, but a view of a tensor that requires grad requires grad (as torch's)
        x = _arange(3, 4, 5).detach().requires_grad_()
        with torchlite.no_grad():
            v = x[key]
        assert v.grad_fn is None and v.requires_grad and v._base is x
        # inference mode, and an inference tensor: the Python kernel's
        with torchlite.inference_mode():
            assert _record(x, x[key], grads=False) == _record(x, _ops.getitem(x, key), grads=False)
            i = _arange(3, 4, 5)
            assert _record(i, i[key], grads=False) == _record(i, _ops.getitem(i, key), grads=False)
        j = i[key]
        assert j.is_inference() and j._base is None and j.grad_fn is None
        assert _record(i, j) == _record(i, _ops.getitem(i, key))
    # a view of a no_grad view keeps its creation meta: an in-place write refuses alike
    messages = []
    for getitem in (torchlite.Tensor.__getitem__, _ops.getitem):
        x = _arange(3, 4).requires_grad_()
        y = x * 1
        with torchlite.no_grad():
            v = getitem(y, 0)
        w = getitem(v, slice(1, 3))
        with pytest.raises(RuntimeError) as err:
            w.mul_(2)
        messages.append(str(err.value))
    assert messages[0] == messages[1] and "no_grad" in messages[0]


def test_getitem_sim_device_matches_cpu():
    # sim tensors take the Python kernel: the same layouts and nodes as on the cpu
    for key in (0, (slice(1, 3), None, -1), Ellipsis, ()):
        x = _arange(3, 4, 5).requires_grad_()
        s = x.detach().to("sim:0").requires_grad_()
        a, b = x[key], s[key]
        assert b.device.type == "sim"
        assert (a.shape, a.stride(), a.storage_offset(), _chain(a)) == (b.shape, b.stride(), b.storage_offset(),
                                                                          _chain(b))


def test_getitem_writes_through_views():
    """A write through an entry's view reaches the base and bumps the shared version counter; the
    gradient through an in-place write on a view (CopySlices) is the Python kernel's."""
    results = []
    for getitem in (torchlite.Tensor.__getitem__, _ops.getitem):
        y = torchlite.zeros(3, 4)
        v = getitem(y, (slice(None), slice(1, 3)))
        v.add_(1)
        w = getitem(v, 0)
        w.mul_(5)
        x = torchlite.arange(12.0).reshape(3, 4).requires_grad_()
        z = x * 1
        getitem(z, 1).mul_(2)
        getitem(z, (slice(None), slice(2, None))).add_(x[0, :2])
        getitem(z, (None, Ellipsis, 0)).exp_()
        (g,) = torchlite.autograd.grad((z * z).sum(), x)
        results.append((_bits(y), y._version, v._version, w._version, _bits(z), z.grad_fn.name(), _bits(g)))
    assert results[0] == results[1]


# The views: the entry against the Python kernel ---------------------------------------------------------

VIEW_CALLS = {
    "select": [(0, 1), (1, -1), (-1, 2), (2, 0), (3, 0), (0, 5), (0, -4), ((), {"dim": 1, "index": 2}),
               ((1,), {"index": 0}), (0, True), (0, np.int64(1)), (1.0, 0), ((), {"dim": 0})],
    "narrow": [(0, 1, 2), (-1, 0, 3), (1, -2, 2), (1, 4, 0), (1, 0, 5), (1, -5, 1), (0, 1, -1), (2, 5, 0), (2, -5, 5),
               ((), {"dim": 1, "start": 1, "length": 2}), ((0,), {"start": 1, "length": 1}), (0, 3, 1), (0, 4, 0),
               (1, 1.0, 2), (1, torchlite.tensor(1), 2)],
    "squeeze": [(), (1,), (-2,), (0,), ((1, 2),), ([0, 1],), ((),), ((1, 1),), (3,), ((), {"dim": 1}),
                ((), {"dim": (1,)}), ((), {"dim": None}), (torchlite.Size([1]),), ((0, -2),), (True,), ((1, 3),)],
    "split": [(1,), (2,), (2, 1), (3, -1), ([1, 2], 0), ((2, 2), 1), ([1, 1, 1, 1, 1], 2), (0,), (-1,), ([1, 1],),
              ((2,), {"dim": 1}), ((), {"split_size_or_sections": 2, "dim": -1}), (10,), ([3, 0], 0), ([0, 3, 0],),
              (torchlite.Size([2, 1]),), (2, 3), ([2, -1, 2], 1), ([True, 2],), (2.0,)],
    "chunk": [(2,), (3, 1), (5, -1), (1,), (0,), (-1,), (2, 3), ((2,), {"dim": 2}), (7,), (2.0,)],
    "unbind": [(), (1,), (-1,), (3,), ((), {"dim": 2}), (True,)],
    "flatten": [(), (1,), (0, 1), (1, 2), (-2, -1), (2, 2), (2, 1), (0, 3), ((), {"start_dim": 1}),
                ((), {"end_dim": 1}), (0, -3), (1.0,)],
}


def _python_method(name):
    """Tensor.<name> without its C++ entry: the kernel, and where it raises one of the argument
    errors, the call bound to the method's signatures (what the method object does then, as
    python_variable_methods.cpp's rebind_and_call); split binds nothing."""
    kernel = getattr(_ops, name)
    if name == "split":
        return kernel

    def call(t, *args, **kwargs):
        try:
            return kernel(t, *args, **kwargs)
        except _ARG_ERRORS as error:
            args, kwargs = _rebind_method(name, _SCHEMAS[name], args, kwargs, error)
            return kernel(t, *args, **(kwargs or {}))

    return call


def _view_call(name, args):
    args, kwargs = args if len(args) == 2 and isinstance(args[1], dict) else (args, {})
    python = _python_method(name)
    return (lambda t: getattr(t, name)(*args, **kwargs)), (lambda t: python(t, *args, **kwargs))


@pytest.mark.parametrize("layout", sorted(BASES))
@pytest.mark.parametrize("name", sorted(VIEW_CALLS))
def test_views_match_python_kernel(name, layout):
    make = BASES[layout]
    differentiable = make().dtype.is_floating_point
    for args in VIEW_CALLS[name]:
        fast, slow = _view_call(name, args)
        for requires_grad in (False, True) if differentiable else (False,):
            _compare(make, fast, slow, requires_grad, (name, args))
            with torchlite.no_grad():
                _compare(make, fast, slow, requires_grad, (name, args, "no_grad"))


@pytest.mark.parametrize("shape", [(), (6,), (1,), (0,), (2, 1)])
@pytest.mark.parametrize("name", sorted(VIEW_CALLS))
def test_views_small_ranks_match_python_kernel(name, shape):
    def make():
        return _arange(*shape) if shape else torchlite.tensor(2.5)

    for args in VIEW_CALLS[name]:
        fast, slow = _view_call(name, args)
        for requires_grad in (False, True):
            _compare(make, fast, slow, requires_grad, (name, args, shape))


FUNCTIONS = ("chunk", "flatten", "narrow", "select", "split", "squeeze", "unbind")


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "empty", "int64", "size_one"])
@pytest.mark.parametrize("name", FUNCTIONS)
def test_functions_match_python_function(name, layout):
    """torchlite.<op> tries the entry with the tensor first, then calls the generated function,
    which parses every other call (keywords such as input=, errors)."""
    fn = getattr(torchlite, name)
    assert fn._cpp_dispatch and type(fn).__name__ == "_VariableFunction"
    python_function = fn.__wrapped__
    make = BASES[layout]
    differentiable = make().dtype.is_floating_point
    for args in VIEW_CALLS[name]:
        args, kwargs = args if len(args) == 2 and isinstance(args[1], dict) else (args, {})
        for requires_grad in (False, True) if differentiable else (False,):
            _compare(make, lambda t, a=args, k=kwargs: fn(t, *a, **k),
                     lambda t, a=args, k=kwargs: python_function(t, *a, **k), requires_grad, (name, args))
    keywords = {"chunk": {"chunks": 2}, "flatten": {"start_dim": 1}, "narrow": {"dim": 1, "start": 0, "length": 2},
                "select": {"dim": 0, "index": 1}, "split": {"split_size_or_sections": 2}, "squeeze": {},
                "unbind": {"dim": 1}}[name]
    first = "tensor" if name == "split" else "input"
    _compare(make, lambda t: fn(**{first: t}, **keywords), lambda t: python_function(**{first: t}, **keywords),
             False, (name, "keywords"))


def test_multi_output_views_refuse_inplace_alike():
    messages = []
    for split in (torchlite.Tensor.split, _ops.split):
        x = _arange(4, 3).detach().requires_grad_()
        a, b = split(x * 1, 2)
        with pytest.raises(RuntimeError) as err:
            a.mul_(2)
        messages.append(str(err.value))
        with torchlite.no_grad():
            c, _ = split(x, 2)
        with pytest.raises(RuntimeError) as err:
            c.mul_(2)
        messages.append(str(err.value))
    assert messages[0] == messages[2] and messages[1] == messages[3]
    assert "Output 0 of Split is a view" in messages[0] and "no_grad" in messages[1]


def test_split_saved_dtype_and_hooks():
    """split's node keeps self's dtype (for the zeros of a piece without gradient) and saves no
    tensor: saved_tensors_hooks see nothing, as with the Python kernel."""
    for dtype in (torchlite.float32, torchlite.float64):
        grads = []
        for split in (torchlite.Tensor.split, _ops.split):
            seen = []
            x = _arange(6, 2, dtype=dtype).requires_grad_()
            with torchlite.autograd.graph.saved_tensors_hooks(lambda t, s=seen: s.append(t) or t, lambda t: t):
                a, b, c = split(x, 2)
            (g,) = torchlite.autograd.grad(b.sum(), x)
            grads.append((_bits(g), len(seen)))
        assert grads[0] == grads[1] and grads[0][1] == 0


# Against torch --------------------------------------------------------------------------------------------

def _gpt_case(lib):
    """nanoGPT's per-step views: c_attn's output split into q, k, v; heads; the last position's logits."""
    rng = np.random.default_rng(0)
    B, T, C, nh = 2, 5, 12, 3
    x = lib.tensor(rng.standard_normal((B, T, C)).astype(np.float32), requires_grad=True)
    w = lib.tensor(rng.standard_normal((3 * C, C)).astype(np.float32) * 0.2, requires_grad=True)
    qkv = x @ w.t()
    q, k, v = qkv.split(C, dim=2)
    q = q.view(B, T, nh, C // nh).transpose(1, 2)
    k = k.view(B, T, nh, C // nh).transpose(1, 2)
    v = v.view(B, T, nh, C // nh).transpose(1, 2)
    att = (q @ k.transpose(-2, -1)).softmax(dim=-1)
    y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
    logits = y[:, -1, :]
    idx = lib.arange(20).view(2, 10)[:, -4:]
    pieces = qkv.chunk(3, dim=-1)
    loss = logits.pow(2).sum() + y[:, None, 1:3].sum() + pieces[1].squeeze(0).sum() + x[0].unbind(1)[2].sum()
    loss.backward()
    fields = [(t.grad_fn.name(), [getattr(t.grad_fn, f) for f in FIELDS if hasattr(t.grad_fn, f)])
              for t in (logits, qkv.split(C, dim=2)[0], pieces[2], x[0], x[:, 1:3], x[..., None], x.narrow(1, 1, 2),
                        x.select(-1, -2), x[None, :1].squeeze(), x[None].squeeze(0), x[None].squeeze((0,)),
                        x.unbind(-1)[0], qkv.split([C, 2 * C], -1)[1])]
    return (logits, idx, [t.stride() for t in (q, k, v, logits, idx)], [t.is_contiguous() for t in (q, logits)],
            x.grad, w.grad, fields, x.flatten(1).grad_fn.name(), x.flatten(1).stride())


def test_gpt_views_against_torch():
    assert run(_gpt_case, torchlite) == run(_gpt_case, torch)


TORCH_KEYS = [0, -1, slice(1, 3), _ALL, slice(0, None), slice(None, None, 1), slice(-10, 10), None, Ellipsis, (),
              (_ALL,), (_ALL, slice(None, None, 1)), (Ellipsis, _ALL), (_ALL, slice(1, 3)), (Ellipsis, -1), (0, 1),
              (None, 0), (_ALL, None), (slice(None, 100),), (slice(None, None, 2),), (1, Ellipsis, None),
              (Ellipsis, None), (slice(-2, None),), (0, slice(1, None), None), (slice(1, None), None, Ellipsis, -1),
              (None, None, 2, None, slice(0, 0))]


def _keys_case(lib):
    """x[key]'s chain of nodes with their saved fields, and its layout."""
    out = []
    for key in TORCH_KEYS:
        x = lib.arange(24.0).reshape(4, 2, 3).requires_grad_()
        y = x[key]
        chain = []
        fn = y.grad_fn
        while fn is not None and fn.name() != "torch::autograd::AccumulateGrad":
            chain.append((fn.name(), [getattr(fn, f) for f in FIELDS if hasattr(fn, f)]))
            fn = fn.next_functions[0][0]
        (g,) = lib.autograd.grad(y, x, lib.arange(float(y.numel())).reshape(y.shape))
        out.append((tuple(y.shape), y.stride(), y.storage_offset(), y.is_contiguous(), chain, y, g, y._base is x))
    return out


def test_keys_against_torch():
    assert run(_keys_case, torchlite) == run(_keys_case, torch)


def _functions_case(lib):
    """The function forms (a CNN's torch.flatten(x, 1) before its classifier)."""
    x = lib.tensor(np.random.default_rng(1).standard_normal((2, 3, 1, 4)).astype(np.float32), requires_grad=True)
    outs = (lib.flatten(x, 1), lib.flatten(x, start_dim=2), lib.split(x, 2, dim=1)[1], lib.split(x, [1, 3], -1)[0],
            lib.squeeze(x), lib.squeeze(x, 2), lib.squeeze(x, (0, 2)), lib.select(x, 1, -1), lib.narrow(x, 3, 1, 2),
            lib.chunk(x, 2, 3)[0], lib.unbind(x, 0)[1])
    total = sum((o * o).sum() for o in outs)
    total.backward()
    return ([(o.grad_fn.name(), [getattr(o.grad_fn, f) for f in FIELDS if hasattr(o.grad_fn, f)], o.stride(),
              o.storage_offset()) for o in outs], outs, x.grad)


def test_functions_against_torch():
    assert run(_functions_case, torchlite) == run(_functions_case, torch)


def _layouts_case(lib):
    """Layouts, memory sharing and version counters of the entries' views."""
    x = lib.arange(60.0).reshape(3, 4, 5).clone()
    out = []
    views = (x[0], x[-1, 1:3], x[:, None, ::2], x[..., 4], x[1:2, 2:, None, 1], x[()], x[...], x[None, None],
             x[:, 5:], x[:, :, 10:], x.select(1, 3), x.narrow(2, 1, 3), x.narrow(0, -1, 1), x.split(2, 1)[1],
             x.chunk(2, -1)[1], x.unbind(2)[3], x.flatten(), x.flatten(0, 1), x[:, :1].squeeze(1), x.squeeze())
    for v in views:
        out.append((tuple(v.shape), v.stride(), v.storage_offset(), v.is_contiguous(),
                    v.data_ptr() - x.data_ptr() if v.numel() else None, v._base is x))
    v = x[1]
    w = v[2:]
    w.add_(1)
    out.append((x._version, v._version, w._version, x[1, 2, 0].item()))
    x.mul_(2)
    out.append((v._version, w[0, 0].item()))
    return out


def test_layouts_against_torch():
    assert run(_layouts_case, torchlite) == run(_layouts_case, torch)


def _inplace_case(lib):
    """Gradients through in-place writes on the entries' views (CopySlices), and their nodes."""
    x = lib.arange(12.0, requires_grad=True)
    y = x.view(3, 4) * 1
    y[0].mul_(2)
    y[:, 1:3].add_(1.5)
    y[1, None].exp_()
    y.select(0, 2).mul_(y[0].detach())
    y.narrow(1, 3, 1).neg_()
    y[..., 0].sub_(0.5)
    s = y.squeeze()
    s[0, 0].mul_(3)
    names = [y.grad_fn.name(), y[0].grad_fn.name()]
    (y * y).sum().backward()
    return x.grad, y, names


def test_inplace_on_views_against_torch():
    assert run(_inplace_case, torchlite) == run(_inplace_case, torch)


def _errors_case(lib):
    x = lib.ones(2, 3, 4, requires_grad=True)
    out = []
    calls = (lambda: x[5], lambda: x[-3], lambda: x[0, 10], lambda: x[:, -4], lambda: x[0, 0, 0, 0],
             lambda: x[..., ...], lambda: x[1.5], lambda: x["a"], lambda: x[0, 1.5], lambda: x[::0], lambda: x[::-1],
             lambda: x[object()], lambda: x[None, 2], lambda: lib.tensor(1.0)[0], lambda: lib.tensor(1.0)[:],
             lambda: x.select(3, 0), lambda: x.select(0, 2), lambda: x.select(0, -3),
             lambda: lib.tensor(1.0).select(0, 0), lambda: x.narrow(0, 3, 1), lambda: x.narrow(1, 1, 3),
             lambda: x.narrow(2, 0, -1), lambda: x.narrow(5, 0, 1),
             lambda: x.squeeze(3), lambda: x.squeeze((0, 0)), lambda: x.split(0), lambda: x.split(-1),
             lambda: x.split([1, 1]), lambda: x.split(1, 3), lambda: x.chunk(0), lambda: x.chunk(-2),
             lambda: x.unbind(3), lambda: x.flatten(2, 1), lambda: x.flatten(0, 3), lambda: lib.tensor(1.0).unbind())
    for call in calls:
        try:
            call()
            out.append("ok")
        except Exception as err:  # noqa: BLE001 - compared with torch's
            out.append((type(err).__name__, norm(str(err))))
    return out


def test_errors_against_torch():
    assert run(_errors_case, torchlite) == run(_errors_case, torch)


def _modes_case(lib):
    x = lib.arange(12.0).reshape(3, 4).requires_grad_()
    with lib.no_grad():
        a, b, c = x[0], x.split(2, 1)[0], x[:, None].squeeze(1)
    with lib.inference_mode():
        d = x[1:]
        i = lib.ones(3, 4)
        e = i[0]
    return ([(t.requires_grad, t.grad_fn is None, t._base is x, t.is_inference()) for t in (a, b, c, d)],
            e.is_inference(), e._base is None, i[None].is_inference())


def test_modes_against_torch():
    assert run(_modes_case, torchlite) == run(_modes_case, torch)


# gradcheck / gradgradcheck -----------------------------------------------------------------------------

GRAD_CALLS = [
    lambda t: t[1],
    lambda t: t[:, 1:3],
    lambda t: t[None, ..., -1],
    lambda t: t[0, None, ::2],
    lambda t: t[...],
    lambda t: t.select(1, -1),
    lambda t: t.narrow(2, 1, 2),
    lambda t: t[:, :1].squeeze(),
    lambda t: t[:, :1].squeeze(1),
    lambda t: t[:, :1].squeeze((1, 2)),
    lambda t: t.split(2, dim=2)[1] * t.split(2, dim=2)[0],
    lambda t: t.split([1, 3], -1)[1],
    lambda t: t.chunk(2, 1)[0],
    lambda t: t.unbind(0)[1] * 2,
    lambda t: t.flatten(1),
]


@pytest.mark.parametrize("index", range(len(GRAD_CALLS)))
def test_gradcheck(index):
    x = torchlite.tensor(np.random.default_rng(index).standard_normal((2, 3, 4)), requires_grad=True)
    assert gradcheck(GRAD_CALLS[index], (x,))
    assert gradgradcheck(GRAD_CALLS[index], (x,))
