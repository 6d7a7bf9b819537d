"""Argument errors worded from the schemas (native_functions.yaml; python_arg_parser._rebind):
a torchlite.* function called with arguments that do not bind to its schema raises torch's
TypeError, and torch's `input=` keyword reaches the kernel's `self`."""
import warnings

import pytest

import torchlite

from diff_utils import import_torch, run

torch = import_torch()

CALLS = {
    "too many positional": lambda L: L.exp(L.ones(2), 3),
    "not a tensor": lambda L: L.exp("a"),
    "unknown keyword": lambda L: L.exp(L.ones(2), foo=1),
    "missing": lambda L: L.exp(),
    "input keyword": lambda L: L.exp(input=L.ones(2)),
    "input and other keywords": lambda L: L.matmul(input=L.ones(2), other=L.ones(2)),
    "other not a tensor": lambda L: L.add(L.ones(2), "a"),
    "alpha not a number": lambda L: L.add(L.ones(2), L.ones(2), alpha="x"),
    "keyword not a tensor": lambda L: L.atan2(L.ones(2), other="a"),
    "tensor list": lambda L: L.cat(L.ones(2)),
    "tensor list element": lambda L: L.stack([L.ones(2), 1]),
    "int": lambda L: L.chunk(L.ones(2), 1.5),
    "missing second": lambda L: L.transpose(L.ones(2, 2), 0),
    "int at position 3": lambda L: L.transpose(L.ones(2, 2), 0, "a"),
    "int list": lambda L: L.reshape(L.ones(4), "ab"),
    "int list element": lambda L: L.permute(L.ones(2, 2), (0, 1.0)),
    "None for int": lambda L: L.unsqueeze(L.ones(2), dim=None),
    "None for tensor": lambda L: L.mul(L.ones(2), other=None),
    "memory format": lambda L: L.clone(L.ones(2), memory_format=1),
    "in-place function": lambda L: L.exp_(L.ones(2), 1),
    "three positional": lambda L: L.add(L.ones(2), L.ones(2), L.ones(2)),
    "multiple values": lambda L: L.diagonal(L.ones(2, 2), input=L.ones(2)),
}


@pytest.mark.parametrize("name", CALLS)
def test_argument_errors_as_torch(name):
    assert run(CALLS[name], torchlite) == run(CALLS[name], torch)


def test_a_kernel_error_with_arguments_that_bind_is_the_kernels():
    # the arguments bind to the schema: the kernel's own error, unchanged
    with pytest.raises(RuntimeError, match="shape '\\[5\\]' is invalid for input of size 4"):
        torchlite.reshape(torchlite.ones(4), (5,))


# Several overloads (torch's PythonArgParser::print_error and format_invalid_args): one plausible
# signature by argument count gives its own error, else the listing of the signatures in the order
# torch's parser tries them, with "didn't match because ..." for those of the call's argument count.
OVERLOADED = {
    "listing": lambda L: L.sum(L.ones(2), "a"),
    "one plausible": lambda L: L.sum(L.ones(2), 1, 2, 3, 4),
    "int list element after binding": lambda L: L.sum(L.ones(2, 2), dim=(1, "a")),
    "deprecated method's own error": lambda L: L.ones(2).add("a"),
    "didn't match: types": lambda L: L.std(L.ones(2), "a"),
    "didn't match: keywords": lambda L: L.max(L.ones(2, 2), 1, foo=2),
    "keywords in the parser's order": lambda L: L.var(L.ones(2), dim="a", keepdim=1.5),
    "scalar and tensor overloads": lambda L: L.clamp(L.ones(2), min="a", max=2),
    "number self": lambda L: L.pow("a", "b"),
    "dtype where an int goes": lambda L: L.max(L.ones(2), L.float32),
    "out of the plausible one": lambda L: L.min(L.ones(2, 2), dim=1, keepdim=True, out=5),
    "where's number overloads": lambda L: L.where(L.ones(2) > 0, L.ones(2), "a"),
    "hidden deprecated signature": lambda L: L.add(L.ones(2)),
    "too many for any": lambda L: L.add(L.ones(2), L.ones(2), L.ones(2), L.ones(2), L.ones(2)),
    "positional alpha": lambda L: L.add(L.ones(2), L.ones(2), 1),
    "a scalar takes no dimensioned tensor": lambda L: L.pow(L.ones(2, 2), L.ones(2, 2), L.ones(2)),
    "varargs of torch.functional": lambda L: L.broadcast_tensors(L.ones(2), 1),
    "single tensor list": lambda L: L.atleast_1d("a"),
    "out tuple for one tensor": lambda L: L.max(L.ones(2, 2), 1, out=L.empty(2)),
}


@pytest.mark.parametrize("name", OVERLOADED)
def test_overloaded_argument_errors_as_torch(name):
    assert run(OVERLOADED[name], torchlite) == run(OVERLOADED[name], torch)


class _Other:
    """An argument no signature takes (its type name shows in torch's listings)."""


# What the sweep below finds different, each for a reason (strict: a fixed entry fails the test)
SWEEP_DIFFERENCES = {
    "multinomial": "torchlite.multinomial is hand-written (torch/_ops Distributions), not a generated op",
    "normal": "torchlite.normal is hand-written (its overloads dispatch in Python)",
    "split": "torch.split is torch/functional.py's Python function (split_with_sizes for a list)",
    "unique": "torch.unique is torch/functional.py's Python function (_unique2 inside)",
    "unique_consecutive": "torch.unique_consecutive is torch/functional.py's Python function",
}


@pytest.mark.parametrize("call", ["mm(a, a, out_dtype=L.float32)", "mm(a, a, L.float32)", "bmm(b, b, L.float16)",
                                  "addmm(a, a, a, L.float32, beta=2)", "baddbmm(b, b, b, out_dtype=L.float32)"])
def test_out_dtype_overloads_refused_on_the_cpu_as_torch(call):
    """The `.dtype` overloads bind (they are in the table) and are refused as torch's dispatcher refuses
    them on the CPU (compared up to the dispatcher's list of backends, which torchlite does not have)."""
    def case(L):
        a, b = L.ones(2, 2), L.ones(2, 2, 2)  # noqa: F841 - read by eval
        try:
            eval(f"L.{call}")
        except NotImplementedError as e:
            return str(e).split(" 'aten::")[1].split(" is only available")[0]
        return "ok"
    assert case(torchlite) == case(torch)


def _sweep_calls():
    from torchlite._generated import torch_functions
    for name in sorted(torch_functions._SCHEMAS):
        if hasattr(torch, name):
            yield name


@pytest.mark.parametrize("name", list(_sweep_calls()))
def test_every_generated_function_refuses_bad_arguments_as_torch(name):
    """Each torchlite.<op> called with arguments no signature takes (nine, one, none) raises what
    torch raises: which error of which signature, or the listing of its signatures."""
    def calls(L):
        fn = getattr(L, name)
        out = []
        for args in ((_Other(),) * 9, (_Other(),), ()):
            try:
                fn(*args)
                out.append("ok")
            except Exception as e:  # noqa: BLE001 - the error is the result compared
                out.append(f"{type(e).__name__}: {e}".replace("torchlite", "torch"))
        return out
    same = calls(torchlite) == calls(torch)
    assert same != (name in SWEEP_DIFFERENCES), SWEEP_DIFFERENCES.get(name, calls(torchlite))


# Tensor methods whose errors differ from torch's, each for a reason (strict, as above)
METHOD_SWEEP_DIFFERENCES = {
    "where": "Tensor.where passes self second (where(condition, self, other)): Python binds its arguments",
}


def _method_sweep():
    from torchlite._generated import variable_methods
    return [name for name in sorted(variable_methods._SCHEMAS) if hasattr(torch.Tensor, name)]


@pytest.mark.parametrize("name", _method_sweep())
def test_every_generated_method_refuses_bad_arguments_as_torch(name):
    """Each Tensor method called with arguments no signature takes (nine, one, none) raises what
    torch raises (the kernel's own error where a signature binds and the op refuses the tensor)."""
    def calls(L):
        out = []
        for args in ((_Other(),) * 9, (_Other(),), ()):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    getattr(L.Tensor, name)(L.ones(2, 3), *args)  # as x.name(...) calls it
                out.append("ok")
            except Exception as e:  # noqa: BLE001 - the error is the result compared
                out.append(f"{type(e).__name__}: {e}".replace("torchlite", "torch"))
        return out
    same = calls(torchlite) == calls(torch)
    assert same != (name in METHOD_SWEEP_DIFFERENCES), METHOD_SWEEP_DIFFERENCES.get(name, calls(torchlite))


METHOD_CASES = {
    "no arguments taken": lambda L: L.ones(2).abs(1),
    "no arguments taken, nine given": lambda L: L.ones(2).exp(1, 2, 3, 4, 5, 6, 7, 8, 9),
    "no keyword arguments taken": lambda L: L.ones(2).neg(alpha=1),
    "varargs start with a non-int": lambda L: L.ones(2, 3).expand(_Other(), 3),
    "varargs unpacked": lambda L: L.ones(2, 3).view(3, _Other()),
    "permute varargs": lambda L: L.ones(2, 3).permute(1, "a"),
    "in-place overloads listed": lambda L: L.ones(2).div_("a"),
    "fill_ with a string": lambda L: L.ones(2).fill_("a"),
    "random_ bounds": lambda L: L.ones(2).random_("a", 3),
    "scatter_ value with reduce": lambda L: L.ones(2).scatter_(0, L.zeros(1, dtype=L.int64), "x", reduce="add"),
    "bitwise method with an object": lambda L: L.ones(2, dtype=L.int64).bitwise_and(_Other()),
    "bitwise function with an object": lambda L: L.bitwise_or(L.ones(2, dtype=L.int64), _Other()),
    "shift with an object": lambda L: L.ones(2, dtype=L.int64).bitwise_left_shift(_Other()),
    "flip without dims": lambda L: L.ones(2).flip(),
    "flip with no dims": lambda L: L.ones(2).flip([]),
    "pow method lists no Scalar self": lambda L: L.ones(2).pow("a"),
    "kernel error kept": lambda L: L.ones(2, 3).det(),
    "bitwise_not of float": lambda L: L.ones(2).bitwise_not(),
    "unbound method": lambda L: L.Tensor.sum(L.ones(2), "a"),
}


@pytest.mark.parametrize("name", METHOD_CASES)
def test_method_argument_errors_as_torch(name):
    assert run(METHOD_CASES[name], torchlite) == run(METHOD_CASES[name], torch)


def test_methods_still_take_what_torch_takes():
    """The overloads the table gained for the listings run as torch's (kernels unchanged)."""
    def case(L):
        x = L.arange(6.).reshape(2, 3)
        idx = L.tensor([[0, 1, 0]])
        L.manual_seed(0)
        return [x.clone().div_(4, rounding_mode="floor"), x.clone().div_(L.full((3,), 4.), rounding_mode="trunc"),
                x.clone().divide_(3), x.clone().subtract_(1, 2), x.clone().fill_(L.tensor(7.)),
                x.clone().index_fill_(1, L.tensor([0, 2]), L.tensor(-1.)),
                x.clone().masked_fill_(x > 2, L.tensor(0.5)), x.clone().scatter_(0, idx, 9.),
                x.clone().scatter_(0, idx, L.ones(1, 3), reduce="add"),
                x.clone().scatter_(0, idx, 2., reduce="multiply"), x.clone().pow_(L.full((3,), 2.)),
                L.zeros(5).random_(3, 7), L.zeros(5).random_(4),
                L.zeros(5).bernoulli_(L.full((5,), 0.5)), x.view(L.int32).tolist(),
                L.ones(3, dtype=L.int64).bitwise_and_(6), L.ones(3, dtype=L.int64).bitwise_left_shift_(2),
                x.clone().fmod_(4), x.clone().remainder_(4), x.clone().floor_divide_(4),
                x.clone().true_divide_(4), x.clone().multiply_(3)]
    assert run(case, torchlite) == run(case, torch)


def test_deprecated_signatures_run_the_op_and_warn_once_a_process():
    """torch's deprecated overloads (tools/autograd/deprecated.yaml): add(x, 2, y) is add(x, y,
    alpha=2), as old optimizer code writes p.data.add_(-lr, p.grad); the first such call of a
    process warns (TORCH_WARN_ONCE), naming the call's signature and the ones to use."""
    code = r"""
import sys, warnings
L = __import__(sys.argv[1])
warnings.simplefilter("always")
x, y = L.arange(3.), L.ones(3)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    a = x.add(2, y)
    b = L.addcmul(x, 0.5, y, y)
    p = x.clone(); p.add_(-0.1, y)
    c = L.addmm(2, L.ones(2, 2), L.eye(2), L.eye(2))
    d = L.add(x, 2, y, out=L.empty(3))
    e = L.sub(x, 3, y)
print([t.tolist() for t in (a, b, p, c, d, e)])
print([str(m.message).split(" (Triggered")[0] for m in w])
"""
    import subprocess
    import sys
    outs = [subprocess.run([sys.executable, "-c", code, lib], capture_output=True, text=True, check=True).stdout
            for lib in ("torchlite", "torch")]
    assert outs[0] == outs[1]
    assert "This overload of add is deprecated" in outs[0]


def test_out_takes_a_tuple_where_the_op_returns_two():
    def case(L):
        x = L.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])
        v, i = L.empty(2), L.empty(2, dtype=L.long)
        r = L.max(x, 1, out=(v, i))
        sv, si = L.empty(0), L.empty(0, dtype=L.long)
        L.sort(x, 1, out=(sv, si))
        tv, ti = L.empty(2), L.empty(2, dtype=L.long)
        L.topk(x.flatten(), 2, out=(tv, ti))
        m = L.empty(0)
        L.min(x, out=m)
        return [r[0] is v, r[1] is i, v, i, sv, si, tv, ti, m]
    assert run(case, torchlite) == run(case, torch)


def test_numbers_bind_to_tensors_where_torch_lets_them():
    def case(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        ys = [L.mul(2, x), L.add(2, x), L.sub(2, x), L.div(2, x), L.true_divide(2, x), L.multiply(3, x),
              L.subtract(1, x)]
        ints = L.ones(2, dtype=L.int32)
        dtypes = [str(L.mul(2, ints).dtype).split(".")[-1], str(L.mul(2.5, ints).dtype).split(".")[-1]]
        return [*ys, [y.grad_fn.name() for y in ys], dtypes, L.add(2, 3), L.add(2.5, 1)]
    assert run(case, torchlite) == run(case, torch)


def test_methods_take_numpy_keywords_as_torch():
    """x.sum(1, keepdims=True), x.mean(axis=1): torch's parser takes numpy's names after the
    schema's fail, for methods as for functions (the nn-zero-to-hero notebooks write them)."""
    def case(L):
        x = L.arange(6.).reshape(2, 3)
        return [x.sum(1, keepdims=True), x.mean(axis=1), x.max(axis=0).values, x.std(axis=1, keepdims=True),
                x.amax(axis=1), run(lambda L: x.sum(axis=0, dim=1), L)]
    assert run(case, torchlite) == run(case, torch)
