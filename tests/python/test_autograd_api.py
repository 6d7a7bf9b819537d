"""torchlite.autograd.backward / grad argument handling, grad modes, anomaly mode,
tensor attributes and printing, against torch's semantics and messages."""
import re
import warnings

import numpy as np
import pytest

import torchlite as torch


def test_implicit_grad_only_for_scalars():
    x = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        (x * 2).backward()


def test_gradient_shape_mismatch_message():
    x = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=re.escape(
            "Mismatch in shape: grad_output[0] has a shape of torchlite.Size([2]) and output[0] has a shape "
            "of torchlite.Size([3]).")):
        (x * 2).backward(torch.ones(2))


def test_explicit_gradient():
    x = torch.ones(3, requires_grad=True)
    (x * 2).backward(torch.tensor([1.0, 2.0, 3.0]))
    assert x.grad.tolist() == [2.0, 4.0, 6.0]


def test_no_grad_fn_error():
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad and does not have a grad_fn"):
        torch.ones(2).sum().backward()


def test_allow_unused():
    x = torch.ones(2, requires_grad=True)
    y = torch.ones(2, requires_grad=True)
    out = (x * 2).sum()
    with pytest.raises(RuntimeError, match=re.escape(
            "The differentiated Tensor at index 1 appears to not have been used in the graph. Set allow_unused=True "
            "if this is the desired behavior.")):
        torch.autograd.grad(out, (x, y), retain_graph=True)
    gx, gy = torch.autograd.grad(out, (x, y), allow_unused=True, retain_graph=True)
    assert gx.tolist() == [2.0, 2.0] and gy is None
    gx, gy = torch.autograd.grad(out, (x, y), materialize_grads=True)
    assert gy.tolist() == [0.0, 0.0]


def test_grad_does_not_accumulate_and_backward_does():
    x = torch.tensor([3.0], requires_grad=True)
    (g,) = torch.autograd.grad(x * x, x)
    assert g.tolist() == [6.0] and x.grad is None
    (x * x).backward()
    (x * x).backward()
    assert x.grad.tolist() == [12.0]


def test_backward_inputs_restricts_accumulation():
    x = torch.tensor([1.0], requires_grad=True)
    y = torch.tensor([2.0], requires_grad=True)
    z = x * y
    mid = z * 1
    mid.backward(inputs=[x], retain_graph=True)
    assert x.grad.tolist() == [2.0] and y.grad is None
    mid.backward(inputs=[z])
    assert z.grad.tolist() == [1.0]  # a non-leaf input retains its grad
    with pytest.raises(RuntimeError, match="`inputs` argument to `backward\\(\\)` cannot be empty."):
        (x * 1).backward(inputs=[])


def test_retain_graph_and_backward_twice_error():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x.exp()).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp([1.0, 2.0]), rtol=1e-6)
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()


def test_create_graph_defaults_retain_graph():
    x = torch.tensor([2.0], requires_grad=True)
    y = x ** 3
    (g,) = torch.autograd.grad(y, x, create_graph=True)
    (g2,) = torch.autograd.grad(g, x)  # the first graph was retained
    assert g.tolist() == [12.0] and g2.tolist() == [12.0]
    assert g.grad_fn is not None


def test_grad_modes():
    x = torch.ones(2, requires_grad=True)
    with torch.no_grad():
        assert not torch.is_grad_enabled()
        assert (x * 2).grad_fn is None
        with torch.enable_grad():
            assert (x * 2).grad_fn is not None
    assert torch.is_grad_enabled()
    with torch.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    with torch.inference_mode():
        assert not (x * 2).requires_grad
        assert torch.autograd.is_inference_mode_enabled()

    @torch.no_grad()
    def f():
        return x * 2
    assert f().grad_fn is None and torch.is_grad_enabled()


def test_anomaly_mode_names_nan_node():
    x = torch.tensor([-1.0], requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with torch.autograd.detect_anomaly():
            y = x.sqrt()  # nan
            with pytest.raises(RuntimeError, match="Function 'SqrtBackward0' returned nan values in its 0th output."):
                y.backward()
    messages = [str(w.message) for w in caught]
    assert any("Error detected in SqrtBackward0. Traceback of forward call that caused the error" in m
               and "y = x.sqrt()" in m for m in messages)
    assert "y = x.sqrt()" in "".join(y.grad_fn.metadata["traceback_"])
    torch.autograd.set_detect_anomaly(False)
    assert not torch._C.is_anomaly_enabled()


def test_tensor_attributes():
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    assert x.is_leaf and x.grad is None and x.grad_fn is None
    assert x.shape == (2, 2) and x.dtype is torch.float32 and x.device == torch.device("cpu")
    y = x * 2
    assert not y.is_leaf and y.requires_grad
    assert y.grad_fn is y.grad_fn
    assert y.grad_fn.next_functions[0][0].name() == "torch::autograd::AccumulateGrad"
    d = y.detach()
    assert not d.requires_grad and d.grad_fn is None
    assert y.data.grad_fn is None
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf variables."):
        y.requires_grad = False
    with pytest.raises(RuntimeError, match="only Tensors of floating point dtype can require gradients"):
        torch.tensor([1, 2]).requires_grad_()


def test_grad_setter_checks():
    x = torch.ones(2, requires_grad=True)
    x.grad = torch.zeros(2)
    assert x.grad.tolist() == [0.0, 0.0]
    x.grad = None
    assert x.grad is None
    with pytest.raises(RuntimeError, match="attempting to assign a gradient of size '\\[3\\]' to a tensor of size"):
        x.grad = torch.zeros(3)
    with pytest.raises(RuntimeError, match="attempting to assign a gradient with dtype 'double' to a tensor with "
                                           "grad_dtype 'Float'"):
        x.grad = torch.zeros(2, dtype=torch.float64)
    with pytest.raises(TypeError, match="assigned grad expected to be a Tensor or None"):
        x.grad = 3


def test_printing_like_torch():
    assert repr(torch.tensor([1.0, 2.0], requires_grad=True)) == "tensor([1., 2.], requires_grad=True)"
    x = torch.tensor([1.5, 2.25], requires_grad=True)
    assert repr(x * 2) == "tensor([3.0000, 4.5000], grad_fn=<MulBackward0>)"
    assert repr(torch.tensor(3.0)) == "tensor(3.)"
    assert repr(torch.tensor([[1, 2], [3, 4]])) == "tensor([[1, 2],\n        [3, 4]])"
    assert repr(torch.tensor([1.0], dtype=torch.float64)) == "tensor([1.], dtype=torchlite.float64)"
    assert repr(torch.tensor([True, False])) == "tensor([ True, False])"
    assert repr(torch.tensor([1e-5, 1.0])) == "tensor([1.0000e-05, 1.0000e+00])"
    assert repr(torch.zeros(0)) == "tensor([])"
    assert "..." in repr(torch.arange(2000))


def test_numpy_zero_copy_both_ways():
    a = np.arange(6.0).reshape(2, 3)
    t = torch.from_numpy(a)
    a[0, 0] = 42.0
    assert t[0, 0].item() == 42.0
    arr = np.asarray(t)
    arr[1, 2] = -1.0
    assert a[1, 2] == -1.0
    c = torch.tensor(a)  # torch.tensor copies
    a[0, 1] = 7.0
    assert c[0, 1].item() == 1.0
    assert torch.tensor(a).dtype is torch.float64
    assert torch.tensor([1.0]).dtype is torch.float32
    with pytest.raises(RuntimeError, match="Can't call numpy\\(\\) on Tensor that requires grad"):
        torch.ones(1, requires_grad=True).numpy()


def test_factories():
    torch.manual_seed(0)
    a = torch.randn(2, 3)
    torch.manual_seed(0)
    assert torch.randn(2, 3).tolist() == a.tolist()
    assert torch.zeros(2, 3).shape == (2, 3) and torch.ones((2,)).tolist() == [1.0, 1.0]
    assert torch.full((2,), 7).dtype is torch.int64 and torch.full((1,), 1.5).tolist() == [1.5]
    assert torch.arange(3).tolist() == [0, 1, 2] and torch.arange(0, 1, 0.5).dtype is torch.float32
    assert torch.empty(4).shape == (4,)
    assert torch.zeros_like(a).shape == a.shape and torch.ones_like(a, dtype=torch.float64).dtype is torch.float64
    r = torch.rand(100)
    assert 0 <= r.min().item() and r.max().item() < 1
    r = torch.rand_like(r)
    assert r.shape == (100,) and 0 <= r.min().item() and r.max().item() < 1 and len(set(r.tolist())) == 100
    n = torch.randn_like(torch.zeros(1000, dtype=torch.float64))
    assert n.dtype is torch.float64 and abs(n.mean().item()) < 0.2 and 0.8 < (n * n).mean().item() < 1.2
    torch.set_num_threads(2)
    assert torch.get_num_threads() == 2
    assert torch.ones(2, requires_grad=True).is_leaf


def test_sim_device_tensors_run_on_device_threads():
    x = torch.tensor([1.0, 2.0], device="sim:1", requires_grad=True)
    y = (x * x).sum()
    assert y.device == torch.device("sim:1")
    y.backward()
    assert x.grad.tolist() == [2.0, 4.0] and x.grad.device == torch.device("sim:1")


def test_backward_create_graph_warns_once_about_the_cycle(monkeypatch):
    monkeypatch.setattr(torch.autograd._backward, "_create_graph_cycle_warned", False)
    x = torch.ones(3, requires_grad=True)
    with pytest.warns(UserWarning, match="Using backward\\(\\) with create_graph=True will create a reference cycle"):
        (x * 2).sum().backward(create_graph=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (x * 2).sum().backward(create_graph=True)
        torch.autograd.grad((x * 2).sum(), x, create_graph=True)


@pytest.mark.parametrize("op,saves", [(lambda x: x * 2, True), (lambda x: 2 * x, True), (lambda x: x / 2, True),
                                      (lambda x: x + 2, False), (lambda x: x - 2, False)])
def test_ops_with_a_python_number_save_it_like_torch(op, saves):
    # torch saves the wrapped number of mul/div, so the freed graph refuses a second backward.
    x = torch.ones(3, requires_grad=True)
    y = op(x).sum()
    y.backward()
    if saves:
        with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
            y.backward()
    else:
        y.backward()
        assert x.grad.tolist() == [2.0, 2.0, 2.0]


def test_saved_tensor_hooks_do_not_see_wrapped_numbers():
    packed = []
    x = torch.ones(3, requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t.shape) or t, lambda t: t):
        y = (x * 2).exp().sum()
    assert packed == [torch.Size([3])]  # exp's result only, not the wrapped 2
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp(2.0) * np.ones(3), rtol=1e-6)


def test_T_on_a_tensor_that_is_not_2d_warns_once(monkeypatch):
    import torchlite._tensor as tensor_module
    monkeypatch.setattr(tensor_module, "_warned", set())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert torch.ones(2, 3).T.shape == (3, 2)
    with pytest.warns(UserWarning, match="The use of `x.T` on tensors of dimension other than 2"):
        assert torch.ones(2, 3, 4).T.shape == (4, 3, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _ = torch.ones(3).T


def test_copies_between_sim_and_cpu_move_and_differentiate():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    on_sim = x.to("sim:0")
    back = on_sim.to("cpu")
    assert on_sim.device == torch.device("sim:0") and back.device == torch.device("cpu")
    assert x.to("sim:1").cpu().device == torch.device("cpu")
    (back * on_sim.cpu()).sum().backward()
    assert x.grad.tolist() == [2.0, 4.0, 6.0] and x.grad.device == torch.device("cpu")


def test_matrix_transposes_of_a_0d_tensor_warn_once_each(monkeypatch):
    # TensorShape.cpp's TORCH_WARN_ONCE per attribute (the public-surface cases ignore these, as
    # whichever test reads an attribute first takes its one warning)
    import torchlite._tensor as tensor_module
    monkeypatch.setattr(tensor_module, "_warned", set())
    x = torch.tensor(2.5)
    expected = [("T", "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases."),
                ("mT", "Tensor.mT is deprecated on 0-D tensors. This function is the identity in these cases."),
                ("mH", "Tensor.mH is deprecated on 0-D tensors. Consider using x.conj()."),
                ("H", "Tensor.H is deprecated on 0-D tensors. Consider using x.conj().")]
    for attr, message in expected:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert getattr(x, attr).item() == 2.5
            getattr(x, attr)
        assert [str(w.message) for w in caught] == [message]
    with pytest.warns(UserWarning, match=r"adjoint\(\) is deprecated on 0-D tensors. Consider using x.conj\(\)."):
        x.adjoint()
