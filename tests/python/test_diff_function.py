"""Differential tests of custom autograd.Function and anomaly mode against
PyTorch: the same Function definitions run under `torch` and `torchlite` and
must give the same results, node names, ctx flags, and the same exception type
and message. "torchlite" in a message is compared as "torch".
"""
import warnings

import pytest

import torchlite

from diff_utils import import_torch, norm

torch = import_torch()


def outcome(prog, lib):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = ("ok", norm(prog(lib)))
        except Exception as err:  # noqa: BLE001 - compared between libraries
            result = ("raise", type(err).__name__, norm(str(err)))
    # a warning's first line: anomaly mode's "Error detected in ..." is followed by a traceback of frames
    return result, [norm(str(w.message).split("\n")[0]) for w in caught if issubclass(w.category, UserWarning)]


def same(prog):
    ref, lite = outcome(prog, torch), outcome(prog, torchlite)
    assert lite == ref
    return ref


def functions(lib):
    """The same Function classes, defined over one library."""
    class Exp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            return g * y

    class ScaleAdd(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, w, k):
            ctx.k = k
            ctx.save_for_backward(x, w)
            ctx.flags = ctx.needs_input_grad
            return x * w * k + w

        @staticmethod
        def backward(ctx, g):
            x, w = ctx.saved_tensors
            gx = g * w * ctx.k if ctx.needs_input_grad[0] else None
            gw = (g * x * ctx.k + g) if ctx.needs_input_grad[1] else None
            return gx, gw, None

    class SortPair(lib.autograd.Function):
        """Two outputs, the second marked non-differentiable."""
        @staticmethod
        def forward(ctx, x):
            idx = (x > 0).double()
            ctx.mark_non_differentiable(idx)
            return x * 2, idx

        @staticmethod
        def backward(ctx, g, g_idx):
            ctx.seen = (g_idx is None, None if g_idx is None else g_idx.tolist())
            return g * 2

    class NoMaterialize(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 1, x * 3

        @staticmethod
        def backward(ctx, ga, gb):
            ctx.seen = (ga is None, gb is None)
            out = 0
            if ga is not None:
                out = out + ga
            if gb is not None:
                out = out + gb * 3
            return out

    class Materialize(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1, x * 3

        @staticmethod
        def backward(ctx, ga, gb):
            ctx.seen = (ga.tolist(), gb.tolist())
            return ga + gb * 3

    class TooFew(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, w):
            return x * w

        @staticmethod
        def backward(ctx, g):
            return g

    class TooMany(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g, g, g

    class GradForNonTensor(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            return x * k

        @staticmethod
        def backward(ctx, g):
            return g, g

    class WrongShape(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g[:1]

    class WrongType(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return 1.0

    class Raises(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            raise ValueError("boom in backward")

    class NanBackward(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * float("nan")

    class Cube(lib.autograd.Function):
        """backward written with differentiable ops: double backward works."""
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x ** 2

    return {c.__name__: c for c in (Exp, ScaleAdd, SortPair, NoMaterialize, Materialize, TooFew, TooMany,
                                    GradForNonTensor, WrongShape, WrongType, Raises, NanBackward, Cube)}


def leaf(lib, data=(0.5, -1.0, 2.0)):
    return lib.tensor(list(data), requires_grad=True)


def test_basic_function_values_grads_and_node():
    def prog(lib):
        f = functions(lib)
        x = leaf(lib)
        y = f["Exp"].apply(x)
        name = type(y.grad_fn).__name__
        nxt = [(fn.name().replace("torch::autograd::", "") if fn else None, i) for fn, i in y.grad_fn.next_functions]
        (y * y).sum().backward()
        return y, name, y.grad_fn.name(), nxt, x.grad, y.requires_grad, y.is_leaf
    same(prog)


@pytest.mark.parametrize("which", [(True, True), (True, False), (False, True)])
def test_needs_input_grad_and_non_tensor_args(which):
    def prog(lib):
        f = functions(lib)
        x = lib.tensor([1.0, 2.0], requires_grad=which[0])
        w = lib.tensor([3.0, -1.0], requires_grad=which[1])
        y = f["ScaleAdd"].apply(x, w, 2.5)
        flags = y.grad_fn.flags
        y.sum().backward()
        return flags, x.grad, w.grad, len(y.grad_fn.next_functions)
    same(prog)


def test_function_without_inputs_requiring_grad():
    def prog(lib):
        y = functions(lib)["Exp"].apply(lib.tensor([1.0]))
        return y.requires_grad, y.grad_fn, y.is_leaf
    same(prog)


def test_function_under_no_grad():
    def prog(lib):
        with lib.no_grad():
            y = functions(lib)["Exp"].apply(leaf(lib))
        return y.requires_grad, y.grad_fn
    same(prog)


def test_mark_non_differentiable():
    def prog(lib):
        x = leaf(lib)
        out, idx = functions(lib)["SortPair"].apply(x)
        (out.sum() + (idx * 0).sum()).backward()
        return idx.requires_grad, out.requires_grad, x.grad, out.grad_fn.seen
    same(prog)


def test_set_materialize_grads():
    def prog(lib):
        f = functions(lib)
        res = []
        for name in ("NoMaterialize", "Materialize"):
            x = leaf(lib)
            a, b = f[name].apply(x)
            a.sum().backward()
            res.append((x.grad, a.grad_fn.seen))
        return res
    same(prog)


@pytest.mark.parametrize("name", ["TooFew", "TooMany", "GradForNonTensor", "WrongShape", "WrongType", "Raises"])
def test_backward_errors(name):
    def prog(lib):
        f = functions(lib)[name]
        x = leaf(lib)
        if name == "TooFew":
            y = f.apply(x, leaf(lib))
        elif name == "GradForNonTensor":
            y = f.apply(x, 2.0)
        else:
            y = f.apply(x)
        y.sum().backward()
    assert same(prog)[0][0] == "raise"


def test_engine_works_after_an_error_in_backward():
    def prog(lib):
        f = functions(lib)
        x = leaf(lib)
        try:
            f["Raises"].apply(x).sum().backward()
        except ValueError:
            pass
        f["Exp"].apply(x).sum().backward()
        return x.grad
    same(prog)


def test_double_backward_through_function():
    def prog(lib):
        x = leaf(lib)
        y = functions(lib)["Cube"].apply(x)
        (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x)
        return g, gg, g.requires_grad
    same(prog)


def test_saved_tensors_after_backward_error():
    def prog(lib):
        x = leaf(lib)
        y = functions(lib)["Exp"].apply(x)
        y.sum().backward()
        return y.grad_fn.saved_tensors
    same(prog)


# anomaly mode -----------------------------------------------------------------------------

@pytest.mark.parametrize("case", range(5))
def test_anomaly_mode(case):
    def prog(lib):
        x = lib.tensor([-1.0, 4.0], requires_grad=True)
        if case == 0:
            with lib.autograd.detect_anomaly():
                x.sqrt().sum().backward()
        elif case == 1:
            with lib.autograd.detect_anomaly():
                functions(lib)["NanBackward"].apply(x).sum().backward()
        elif case == 2:
            with lib.autograd.detect_anomaly(check_nan=False):
                x.sqrt().sum().backward()
        elif case == 3:
            with lib.autograd.set_detect_anomaly(True):
                (x.log() * 0).sum().backward()
        else:
            x.sqrt().sum().backward()  # no anomaly mode: nan gradients flow through
        return x.grad
    same(prog)
