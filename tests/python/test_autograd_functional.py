"""torchlite.autograd.functional (vjp, jvp, jacobian, hessian, vhp, hvp) and autograd.grad's
is_grads_batched and dict inputs, against torch: values, shapes, nesting of the results, create_graph,
strict mode and the errors, on cpu and sim:0."""
import pytest

import torchlite

from diff_utils import import_torch, run

torch = import_torch()
DEVICES = ["cpu", "sim:0"]
_device = {"dev": "cpu"}


def F(lib):
    return lib.autograd.functional


def f1(x):
    return (x ** 2).sum()


def f2(x, y):
    return (x * y.sin(), x.exp().sum())


def f3(x):
    return x.tanh() * 2


def X(lib):
    return lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, device=_dev(lib))


def Y(lib):
    return lib.tensor([1.5, 0.25, -0.5], dtype=lib.float64, device=_dev(lib))


def ones(lib, *shape):
    return lib.ones(*shape, dtype=lib.float64, device=_dev(lib))


def _dev(lib):
    return _device["dev"] if lib is torchlite else "cpu"


CASES = {
    "vjp": lambda L: F(L).vjp(f3, X(L), ones(L, 3)),
    "vjp_tuple": lambda L: F(L).vjp(f2, (X(L), Y(L)), (ones(L, 3), L.tensor(2.0, dtype=L.float64, device=_dev(L)))),
    "vjp_v_none": lambda L: F(L).vjp(f1, X(L)),
    "vjp_v_of_another_size": lambda L: F(L).vjp(f3, X(L), ones(L, 2)),
    "vjp_v_none_refused": lambda L: F(L).vjp(f3, X(L)),
    "vjp_strict": lambda L: F(L).vjp(lambda x: ones(L, 3), X(L), Y(L), strict=True),
    "jvp": lambda L: F(L).jvp(f3, X(L), Y(L)),
    "jvp_tuple": lambda L: F(L).jvp(f2, (X(L), Y(L)), (ones(L, 3), ones(L, 3))),
    "jvp_strict": lambda L: F(L).jvp(lambda x, y: x * 2, (X(L), Y(L)), (Y(L), Y(L)), strict=True),
    "jacobian": lambda L: F(L).jacobian(f3, X(L)),
    "jacobian_tuple": lambda L: F(L).jacobian(f2, (X(L), Y(L))),
    "jacobian_vectorize": lambda L: F(L).jacobian(f2, (X(L), Y(L)), vectorize=True),
    "jacobian_vectorize_one": lambda L: F(L).jacobian(f3, X(L), vectorize=True),
    "jacobian_create_graph": lambda L: [j.requires_grad for j in
                                        F(L).jacobian(f2, (X(L).requires_grad_(), Y(L)), create_graph=True)[0]],
    "jacobian_strict": lambda L: F(L).jacobian(lambda x, y: x * 2, (X(L), Y(L)), strict=True),
    "jacobian_not_tensors": lambda L: F(L).jacobian(f3, [1, 2]),
    "jacobian_not_tensor_in_tuple": lambda L: F(L).jacobian(f2, (X(L), 3)),
    "jacobian_strategy": lambda L: F(L).jacobian(f3, X(L), strategy="sideways"),
    "hessian": lambda L: F(L).hessian(f1, X(L)),
    "hessian_tuple": lambda L: F(L).hessian(lambda x, y: (x * y).sin().sum(), (X(L), Y(L))),
    "hessian_vectorize": lambda L: F(L).hessian(lambda x, y: (x * y).sin().sum(), (X(L), Y(L)), vectorize=True),
    "hessian_not_scalar": lambda L: F(L).hessian(f3, X(L)),
    "vhp": lambda L: F(L).vhp(lambda x: (x ** 3).sum(), X(L), Y(L)),
    "hvp": lambda L: F(L).hvp(lambda x: (x ** 3).sum(), X(L), Y(L)),
    "hvp_tuple": lambda L: F(L).hvp(lambda x, y: (x * y).exp().sum(), (X(L), Y(L)), (Y(L), X(L))),
    "hvp_strict_linear": lambda L: F(L).hvp(lambda x: (x * 2).sum(), X(L), Y(L), strict=True),
    "grad_batched": lambda L: _batched(L),
    "grad_batched_create_graph": lambda L: _batched_create_graph(L),
    "grad_batched_shape": lambda L: _batched_shape(L),
    "grad_dict_inputs": lambda L: _dict_inputs(L),
}


def _batched(lib):
    x = X(lib).requires_grad_()
    return lib.autograd.grad(x ** 2, x, ones(lib, 2, 3), is_grads_batched=True)


def _batched_create_graph(lib):
    x, w = X(lib).requires_grad_(), Y(lib).requires_grad_()
    gx, gw = lib.autograd.grad((x * w).sin(), (x, w), ones(lib, 4, 3) * 0.5, is_grads_batched=True,
                               create_graph=True)
    gx.sum().backward()
    return gx, gw, x.grad, w.grad


def _batched_shape(lib):
    x = X(lib).requires_grad_()
    lib.autograd.grad(x * 2, x, ones(lib, 3, 4), is_grads_batched=True)


def _dict_inputs(lib):
    x, z = X(lib).requires_grad_(), Y(lib).requires_grad_()
    return lib.autograd.grad((x * z).sum(), {"a": x, "b": z})


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("name", CASES)
def test_functional_as_torch(name, dev):
    _device["dev"] = dev
    try:
        assert run(CASES[name], torchlite) == run(CASES[name], torch)
    finally:
        _device["dev"] = "cpu"


@pytest.mark.parametrize("call", [
    lambda F: F.jacobian(f3, torchlite.ones(2), strategy="forward-mode"),
    lambda F: F.hessian(f1, torchlite.ones(2), outer_jacobian_strategy="forward-mode"),
])
def test_forward_mode_is_refused_clearly(call):
    with pytest.raises(NotImplementedError, match="torchlite has no forward-mode AD"):
        call(torchlite.autograd.functional)
