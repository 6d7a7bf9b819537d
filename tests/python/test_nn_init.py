"""torchlite.nn.init against torch.

The deterministic initialisers (constant_, ones_, zeros_, eye_, dirac_, calculate_gain, the fans)
are compared value for value. For the random ones the tensors' uniform_ and normal_ are replaced,
under both libraries, by the same recorded draws (a seeded numpy stream): the calls (which
distribution, its bounds or moments, the shape, in order) must be torch's, and then the results
must be equal too (orthogonal_'s QR, trunc_normal_'s rejection loops)."""
import math
import warnings

import numpy as np
import pytest

import torchlite

from diff_utils import import_torch, run

torch = import_torch()

LIBS = {"torchlite": torchlite, "torch": torch}


class FakeDraws:
    """uniform_ / normal_ on `lib`'s tensors drawing from one seeded numpy stream, recorded."""

    def __init__(self, lib, monkeypatch, seed=0):
        self.lib = lib
        self.rng = np.random.default_rng(seed)
        self.calls = []
        fake = self

        def uniform_(t, a=0.0, b=1.0, *, generator=None):
            fake.calls.append(("uniform_", tuple(t.shape), str(t.dtype).split(".")[-1], float(a), float(b)))
            u = fake.rng.random(tuple(t.shape))
            return fake._fill(t, a + (b - a) * u)

        def normal_(t, mean=0.0, std=1.0, *, generator=None):
            fake.calls.append(("normal_", tuple(t.shape), str(t.dtype).split(".")[-1], float(mean), float(std)))
            z = fake.rng.standard_normal(tuple(t.shape))
            return fake._fill(t, mean + std * z)

        monkeypatch.setattr(lib.Tensor, "uniform_", uniform_)
        monkeypatch.setattr(lib.Tensor, "normal_", normal_)

    def _fill(self, t, values):
        with self.lib.no_grad():
            t.copy_(self.lib.tensor(values, dtype=t.dtype))
        return t


RANDOM_CASES = {
    "uniform_": lambda lib, init: init.uniform_(lib.empty(3, 4), -0.5, 2.0),
    "uniform_default": lambda lib, init: init.uniform_(lib.empty(5)),
    "normal_": lambda lib, init: init.normal_(lib.empty(2, 3, dtype=lib.float64), 1.0, 0.5),
    "xavier_uniform_": lambda lib, init: init.xavier_uniform_(lib.empty(6, 4, 3), gain=2.0),
    "xavier_normal_": lambda lib, init: init.xavier_normal_(lib.empty(7, 5)),
    "kaiming_uniform_": lambda lib, init: init.kaiming_uniform_(lib.empty(8, 3, 2, 2), a=math.sqrt(5)),
    "kaiming_uniform_fan_out_relu": lambda lib, init: init.kaiming_uniform_(lib.empty(8, 3), mode="fan_out",
                                                                            nonlinearity="relu"),
    "kaiming_normal_": lambda lib, init: init.kaiming_normal_(lib.empty(4, 6), a=0.2),
    "kaiming_normal_tanh": lambda lib, init: init.kaiming_normal_(lib.empty(4, 6, 3), nonlinearity="tanh",
                                                                  mode="FAN_OUT"),
    "trunc_normal_": lambda lib, init: init.trunc_normal_(lib.empty(50, 4)),
    "trunc_normal_narrow": lambda lib, init: init.trunc_normal_(lib.empty(40), mean=0.0, std=1.0, a=1.0, b=1.5),
    "trunc_normal_shifted": lambda lib, init: init.trunc_normal_(lib.empty(30, dtype=lib.float64), 0.5, 0.02,
                                                                 -0.04, 0.04),
    "orthogonal_": lambda lib, init: init.orthogonal_(lib.empty(4, 6, dtype=lib.float64), gain=2.0),
    "orthogonal_tall": lambda lib, init: init.orthogonal_(lib.empty(7, 3, dtype=lib.float64)),
    "orthogonal_conv": lambda lib, init: init.orthogonal_(lib.empty(3, 2, 2, dtype=lib.float64)),
    "param_requires_grad": lambda lib, init: init.kaiming_uniform_(lib.nn.Parameter(lib.empty(3, 3))),
}


@pytest.mark.parametrize("name", sorted(RANDOM_CASES))
def test_random_initialisers(name, monkeypatch):
    results = {}
    for lib_name, lib in LIBS.items():
        fake = FakeDraws(lib, monkeypatch)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t = RANDOM_CASES[name](lib, lib.nn.init)
        results[lib_name] = (fake.calls, t.detach().numpy().copy(), t.requires_grad, t.is_leaf,
                             str(t.dtype).split(".")[-1])
    lite, ref = results["torchlite"], results["torch"]
    assert len(lite[0]) == len(ref[0])
    for a, b in zip(lite[0], ref[0], strict=True):
        assert a[:3] == b[:3]
        np.testing.assert_allclose(a[3:], b[3:], rtol=1e-15, atol=0)
    assert lite[2:] == ref[2:]
    rtol = 1e-12 if lite[4] == "float64" else 1e-6
    np.testing.assert_allclose(lite[1], ref[1], rtol=rtol, atol=rtol)


def test_orthogonal_is_orthogonal():
    q = torchlite.nn.init.orthogonal_(torchlite.empty(5, 8, dtype=torchlite.float64))
    np.testing.assert_allclose(q.numpy() @ q.numpy().T, np.eye(5), atol=1e-12)


def test_trunc_normal_bounds_and_moments():
    torchlite.manual_seed(0)
    t = torchlite.nn.init.trunc_normal_(torchlite.empty(20000, dtype=torchlite.float64), mean=0.5, std=1.0,
                                        a=-1.0, b=1.0).numpy()
    assert t.min() >= -1.0 and t.max() <= 1.0
    # the truncated normal's mean on [-1, 1] with mean 0.5, std 1
    phi = lambda x: math.exp(-x * x / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    cdf = lambda x: (1 + math.erf(x / math.sqrt(2))) / 2  # noqa: E731
    expected = 0.5 + (phi(-1.5) - phi(0.5)) / (cdf(0.5) - cdf(-1.5))
    assert abs(t.mean() - expected) < 0.02
    u = torchlite.nn.init.trunc_normal_(torchlite.empty(5000), a=1.0, b=1.2).numpy()  # the uniform-proposal path
    assert u.min() >= 1.0 and u.max() <= 1.2


def test_kaiming_uniform_distribution():
    """With the real generator: the values fill [-bound, bound] (Linear's default init)."""
    torchlite.manual_seed(0)
    w = torchlite.nn.init.kaiming_uniform_(torchlite.empty(200, 50), a=math.sqrt(5)).numpy()
    bound = 1 / math.sqrt(50)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.95 * bound
    assert abs(w.mean()) < 0.01 * bound * 10


CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


@case
def gains(lib):
    init = lib.nn.init
    out = [init.calculate_gain(n) for n in ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                                            "conv_transpose2d", "conv_transpose3d", "sigmoid", "tanh", "relu",
                                            "leaky_relu", "selu"]]
    out += [init.calculate_gain("leaky_relu", 0.2), init.calculate_gain("leaky_relu", 2),
            init.calculate_gain("leaky_relu", math.sqrt(5))]
    for bad in [("leaky_relu", "x"), ("leaky_relu", True), ("softmax", None)]:
        out.append(run(lambda lib, bad=bad: lib.nn.init.calculate_gain(*bad), lib))
    return out


@case
def fans(lib):
    f = lib.nn.init._calculate_fan_in_and_fan_out
    return [f(lib.empty(3, 4)), f(lib.empty(5, 3, 2, 2)), f(lib.empty(2, 6, 3)), run(lambda lib: f(lib.empty(3)), lib)]


@case
def deterministic(lib):
    init = lib.nn.init
    t = lib.empty(2, 3)
    out = [init.constant_(t, 2.5) is t, t.clone(), init.ones_(t).clone(), init.zeros_(t).clone(),
           init.eye_(lib.empty(3, 5)), init.eye_(lib.empty(4, 2)), init.dirac_(lib.empty(4, 2, 3)),
           init.dirac_(lib.empty(4, 2, 3, 3), groups=2), init.dirac_(lib.empty(2, 3, 1, 2, 3))]
    p = lib.nn.Parameter(lib.ones(2, 2))
    init.eye_(p)
    init.constant_(p, 3.0)
    out += [p, p.requires_grad, p.is_leaf, p.grad_fn]
    return out


@case
def errors(lib):
    init = lib.nn.init
    return [run(f, lib) for f in [
        lambda lib: lib.nn.init.eye_(lib.empty(3)),
        lambda lib: lib.nn.init.dirac_(lib.empty(3, 3)),
        lambda lib: lib.nn.init.dirac_(lib.empty(3, 3, 3), groups=2),
        lambda lib: lib.nn.init.orthogonal_(lib.empty(3)),
        lambda lib: lib.nn.init.kaiming_uniform_(lib.empty(3)),
        lambda lib: lib.nn.init.kaiming_normal_(lib.empty(3, 3), mode="fan"),
        lambda lib: lib.nn.init.xavier_uniform_(lib.empty(3)),
        lambda lib: lib.nn.init.sparse_(lib.empty(3), 0.1),
    ]] + [init.orthogonal_(lib.empty(0, 3)).shape]


@case
def zero_element_warns(lib):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        a = lib.nn.init.kaiming_uniform_(lib.empty(0, 3))
        b = lib.nn.init.kaiming_normal_(lib.empty(3, 0))
    return a.shape, b.shape, [str(x.message) for x in w]


@case
def deprecated_names(lib):
    init = lib.nn.init
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        t = init.constant(lib.empty(2), 4.0)
        e = init.eye(lib.empty(2, 2))
    return t, e, [(x.category.__name__, str(x.message)) for x in w], init.uniform.__name__


@case
def sparse_zeros(lib):
    lib.manual_seed(0)
    t = lib.nn.init.sparse_(lib.empty(10, 4), 0.3)
    return [(t[:, c] == 0).sum().item() for c in range(4)]


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_torch(name):
    assert run(CASES[name], torchlite) == run(CASES[name], torch)
