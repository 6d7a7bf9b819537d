"""In-place variants made from their functional kernels (`structured_delegate` in
native_functions.yaml; Note [Structured in-place variants]), against torch: values, the node and
its saved fields, gradients and double backward, autograd's in-place rules and TensorIterator's
errors, on a view, with memory shared with an operand, on cpu and sim:0."""
import pytest

import torchlite

from diff_utils import import_torch, run

torch = import_torch()

DEVICES = ["cpu", "sim:0"]
X = [0.3, 0.7, 1.2]
Y = [1.0, -2.0, 0.5]

# (method, its argument (lib, dev) -> value, or None)
OPS = [("exp_", None), ("log_", None), ("sin_", None), ("cos_", None), ("sqrt_", None),
       ("reciprocal_", None), ("sigmoid_", None), ("relu_", None), ("neg_", None), ("abs_", None),
       ("atan2_", lambda lib, dev: lib.tensor(Y, dtype=lib.float64, device=dev, requires_grad=True)),
       ("pow_", lambda lib, dev: 2.0),
       ("pow_", lambda lib, dev: lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, device=dev, requires_grad=True))]


def on(lib, dev):
    return dev if lib is torchlite else "cpu"


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("op,arg", OPS, ids=[f"{op}-{i}" for i, (op, _) in enumerate(OPS)])
def test_node_fields_and_gradients_as_torch(op, arg, dev):
    def case(lib):
        d = on(lib, dev)
        args = [] if arg is None else [arg(lib, d)]
        a = lib.tensor(X, dtype=lib.float64, device=d, requires_grad=True)
        x = a * 1
        y = getattr(x, op)(*args)
        g = x.grad_fn
        saved = sorted(n for n in dir(g) if n.startswith("_saved"))
        values = [getattr(g, n) for n in saved]
        (x * x).sum().backward()
        b = lib.tensor(X, dtype=lib.float64, device=d, requires_grad=True)
        z = b * 1
        getattr(z, op)(*args)
        gb, = lib.autograd.grad(z.sum(), b, create_graph=True)
        second = lib.autograd.grad(gb.sum(), b, allow_unused=True)[0] if gb.requires_grad else None
        return y is x, x._version, g.name(), saved, values, x, a.grad, gb, second
    assert run(case, torchlite) == run(case, torch)


def errors(lib):
    return [lambda: lib.ones(3, requires_grad=True).exp_(),  # a leaf that requires grad
            lambda: lib.ones(3, dtype=lib.int64).exp_(),  # result type Float into Long
            lambda: lib.ones(3).atan2_(lib.ones(2, 3)),  # self is not resized
            lambda: lib.ones(1, 3).expand(2, 3).exp_(),  # internal overlap
            lambda: lib.ones(4)[1:].atan2_(lib.ones(4)[:3]),  # partial overlap
            lambda: lib.ones(2, requires_grad=True).clone().unbind()[0].exp_()]  # a multi-output view


@pytest.mark.parametrize("index", range(len(errors(torchlite))))
def test_errors_as_torch(index):
    assert run(lambda lib: errors(lib)[index](), torchlite) == run(lambda lib: errors(lib)[index](), torch)


@pytest.mark.parametrize("dev", DEVICES)
def test_on_a_view_and_its_base_as_torch(dev):
    def case(lib):
        a = lib.tensor([[0.3, 0.7], [1.2, 2.0]], dtype=lib.float64, device=on(lib, dev), requires_grad=True)
        b = a * 1
        v = b[0]
        v.exp_()  # saves its result, a view: upstream's SavedVariable(self, true, self.is_view())
        names = v.grad_fn.name(), b.grad_fn.name()
        g, = lib.autograd.grad((b * b).sum(), a, create_graph=True)
        g.sum().backward()
        return names, b, g, a.grad
    assert run(case, torchlite) == run(case, torch)


def test_a_saved_result_written_again_refuses_as_torch():
    def case(lib):
        x = lib.tensor(X, requires_grad=True) * 1
        x.exp_()
        x.add_(1)
        x.sum().backward()
    assert run(case, torchlite) == run(case, torch)


@pytest.mark.parametrize("dev", DEVICES)
def test_memory_shared_with_an_operand_as_torch(dev):
    def case(lib):
        d = on(lib, dev)
        out = []
        y = lib.arange(1.0, 11.0, device=d)
        y[2:8:2].atan2_(y[0:6:2])  # torch does not check this overlap: element by element, in order
        out.append(y)
        x = lib.arange(6.0, device=d).view(2, 3)
        x[:, :2].atan2_(x[:, 1:])
        out.append(x)
        z = lib.arange(4.0, device=d).view(2, 2)
        z.atan2_(z)  # the same memory, laid out the same way
        out.append(z)
        return out
    assert run(case, torchlite) == run(case, torch)


@pytest.mark.parametrize("dev", DEVICES)
def test_no_grad_dtype_cast_and_number_operands_as_torch(dev):
    def case(lib):
        d = on(lib, dev)
        with lib.no_grad():
            a = lib.ones(2, device=d, requires_grad=True)
            a.exp_()
        b = lib.ones(2, device=d)
        b.atan2_(lib.ones(2, device=d, requires_grad=True))  # self gets a node through other
        c = lib.tensor([1.5, 2.5], device=d)
        c.atan2_(lib.tensor([1.0, 3.0], dtype=lib.float64, device=d))  # float64 result written into float32
        e = lib.tensor([1.5, 2.5], device=d, requires_grad=True) * 1
        e.pow_(2)
        return (a, a.requires_grad, a.grad_fn, a._version, b.grad_fn.name(), b.requires_grad, c, str(c.dtype),
                e.grad_fn.name(), e.grad_fn._saved_exponent)
    assert run(case, torchlite) == run(case, torch)


def test_function_variants_as_torch():
    def case(lib):
        x = lib.tensor(X, requires_grad=True) * 1
        return lib.exp_(x) is x, lib.sigmoid_(x), lib.relu_(lib.tensor([-1.0, 2.0])), x.grad_fn.name()
    assert run(case, torchlite) == run(case, torch)
