"""The op tables (tools/autograd/derivatives.yaml): the generated files are up to date, and the
generated nodes carry torch's named fields (grad_fn._saved_*) with torch's values."""
import os
import subprocess
import sys

import numpy as np
import pytest

import torchlite
from diff_utils import import_torch

torch = import_torch()
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_generated_files_match_the_tables():
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools/autograd/gen_autograd.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def _fields(lib):
    x = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    y = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    return {
        "add": lib.add(x, y, alpha=2).grad_fn,
        "sub_number": (x - 2).grad_fn,
        "mul": (x * y).grad_fn,
        "mul_number": (x * 2).grad_fn,
        "div": (x / y).grad_fn,
        "exp": x.exp().grad_fn,
        "tanh": x.tanh().grad_fn,
        "relu": x.relu().grad_fn,
        "sum": x.sum().grad_fn,
        "mean": x.mean().grad_fn,
        # select and slice keep torch's dim, index, start, end and step (a negative SymInt shows
        # modulo 2**64, as torch shows it); python indexing's omitted start / end are 0 / INT64_MAX
        "select": x[1].grad_fn,
        "select_negative": x[-1].grad_fn,
        "slice": x[1:3].grad_fn,
        "slice_open": x[::2].grad_fn,
        "slice_negative": x[-2:-1].grad_fn,
        "narrow": x.narrow(1, 1, 2).grad_fn,
        "select_inner": x[:, -2].grad_fn,
    }


def _value(v):
    if isinstance(v, (torch.Tensor, torchlite.Tensor)):
        return ("tensor", v.detach().numpy().tolist(), v.requires_grad)
    return v


@pytest.mark.parametrize("op", sorted(_fields(torchlite)))
def test_saved_fields_as_torch(op):
    ours, theirs = _fields(torchlite)[op], _fields(torch)[op]
    assert type(ours).__name__ == type(theirs).__name__
    names = sorted(n for n in dir(theirs) if n.startswith("_saved_"))
    assert sorted(n for n in dir(ours) if n.startswith("_saved_")) == names
    for name in names:
        assert _value(getattr(ours, name)) == _value(getattr(theirs, name)), name


def test_unknown_field_is_an_attribute_error():
    grad_fn = (torchlite.ones(2, requires_grad=True) * 2).grad_fn
    with pytest.raises(AttributeError, match="'MulBackward0' object has no attribute '_saved_alpha'"):
        _ = grad_fn._saved_alpha


def test_saved_fields_after_backward_raise_torchs_error():
    x = torchlite.ones(2, requires_grad=True)
    y = x * x
    y.sum().backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        _ = y.grad_fn._saved_self


@pytest.mark.parametrize("op", ["div", "mul"])
def test_a_number_operand_refuses_a_second_backward_as_torch(op):
    # the formula reads the Python number, but the node saved torch's wrapped-number tensor, which
    # the first backward freed (fuzzer seeds 129 and 1613)
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = getattr(x, op)(-1.5)
        y.sum().backward()
        try:
            y.sum().backward(create_graph=True)
        except RuntimeError as e:
            return str(e)[:60]
        return "ok"
    assert run(torchlite) == run(torch)


def test_atan2_against_torch():
    """atan2, added as one table entry (derivatives.yaml, native_functions.yaml) plus its kernel
    and FunctionsManual helpers: values, gradients, node, saved fields and its double backward."""
    def run(lib):
        y = lib.tensor([[1.0, -2.0, 0.5], [0.0, 3.0, -1.5]], dtype=lib.float64, requires_grad=True)
        x = lib.tensor([2.0, -1.0, 0.0], dtype=lib.float64, requires_grad=True)
        out = lib.atan2(y, x)
        gy, gx = lib.autograd.grad(out.sum(), (y, x), create_graph=True)
        ggy, ggx = lib.autograd.grad((gy * gy).sum() + (gx * gx).sum(), (y, x))
        return (out.grad_fn.name(), _value(out.grad_fn._saved_self), _value(out.grad_fn._saved_other),
                out.tolist(), y.atan2(x).tolist(), gy.tolist(), gx.tolist(), gy.grad_fn.name(), ggy.tolist(),
                ggx.tolist(), lib.atan2(lib.tensor([1, -1]), lib.tensor([2, 2])).dtype == lib.float32)
    ours, theirs = run(torchlite), run(torch)
    assert ours[:3] == theirs[:3] and ours[7] == theirs[7] and ours[10] and theirs[10]
    for a, b in zip(ours[3:7] + ours[8:10], theirs[3:7] + theirs[8:10], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
    assert torchlite.autograd.gradcheck(torchlite.atan2, (torchlite.tensor([0.3, -1.2], dtype=torchlite.float64,
                                                                            requires_grad=True),
                                                          torchlite.tensor([0.7, 0.4], dtype=torchlite.float64,
                                                                           requires_grad=True)))


def test_atan2_refuses_a_number_as_torch():
    for lib in (torchlite, torch):
        with pytest.raises(TypeError, match=r"atan2\(\): argument 'other' \(position 2\) must be Tensor, not float"):
            lib.atan2(lib.ones(2), 2.0)


def test_atan2_gradient_at_the_origin_is_zero_as_torch():
    # atan2_backward masks the reciprocal where self ** 2 + other ** 2 is 0 (fuzzer table 2, seed 876)
    def run(lib):
        y = lib.tensor([0.0, 1.0, 0.0], requires_grad=True)
        x = lib.tensor([0.0, 0.0, 2.0], requires_grad=True)
        gy, gx = lib.autograd.grad(lib.atan2(y, x).sum(), (y, x), create_graph=True)
        ggy, ggx = lib.autograd.grad((gy * gx).sum(), (y, x))
        return [gy.tolist(), gx.tolist(), ggy.tolist(), ggx.tolist()], gy.grad_fn.next_functions[1][0].name()
    (ours, ours_node), (theirs, theirs_node) = run(torchlite), run(torch)
    assert ours_node == theirs_node == "MaskedFillBackward0"
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_array_equal(a, b)  # nan where torch's double backward has nan too
