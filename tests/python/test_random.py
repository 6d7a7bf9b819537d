"""torch's random numbers, bit for bit (torchlite/_random.py, csrc/aten/CPUGeneratorImpl.h,
csrc/aten/native/cpu/DistributionKernels.cpp): for a seed, every random function gives the bytes
torch 2.13 gives on the CPU, for several seeds, shapes (below and above normal_fill's 16
elements, non-contiguous outputs), dtypes, with generator=, across get/set_rng_state in both
directions, fork_rng, and interleaved calls (the cached second Box-Muller sample).

In this process both libraries run at this machine's default CPU capability; the subprocess tests
run both under ATEN_CPU_CAPABILITY=default (and avx2), the other kernel builds."""
import os
import subprocess
import sys

import numpy as np
import pytest

import torchlite

from diff_utils import import_torch

torch = import_torch()

SEEDS = [0, 1, 7, 2 ** 32 + 5, 123456789]
SIZES = [(), (1,), (3,), (15,), (16,), (17,), (5, 7), (33,), (2, 3, 40)]


def arr(t):
    if isinstance(t, (list, tuple)):
        return [arr(x) for x in t]
    if isinstance(t, (int, float, bool)):
        return t
    return t.detach().numpy().copy()


def same(fn, seed=0):
    """fn(lib) after lib.manual_seed(seed), under both; the results' dtypes and bytes equal."""
    torchlite.manual_seed(seed)
    got = arr(fn(torchlite))
    torch.manual_seed(seed)
    want = arr(fn(torch))
    _assert_equal(got, want)
    return got


def _assert_equal(got, want):
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            _assert_equal(g, w)
        return
    if not isinstance(want, np.ndarray):
        assert got == want
        return
    assert got.dtype == want.dtype and got.shape == want.shape
    if got.tobytes() != want.tobytes():
        bad = np.flatnonzero(got.reshape(-1).view(np.uint8) != want.reshape(-1).view(np.uint8))
        raise AssertionError(f"{bad.size} bytes differ; got {got.reshape(-1)[:8]} want {want.reshape(-1)[:8]}")


FLOATS = ["float32", "float64", "float16"]
INTS = ["int64", "int32", "int16", "int8", "uint8"]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("size", SIZES)
def test_randn_rand(seed, size):
    for dt in FLOATS:
        same(lambda lib, dt=dt: [lib.randn(size, dtype=getattr(lib, dt)), lib.rand(size, dtype=getattr(lib, dt))], seed)


@pytest.mark.parametrize("seed", SEEDS)
def test_randn_large_and_interleaved(seed):
    # the cached double sample: odd sizes below 16 leave it set; a fill of >= 16 neither uses nor sets it
    same(lambda lib: [lib.randn(3), lib.rand(2), lib.randn(1), lib.randn(5, dtype=lib.float64), lib.randn(20),
                      lib.randn(1), lib.randn(1000), lib.rand(1001, dtype=lib.float64), lib.randn(1)], seed)


def test_randn_million():
    same(lambda lib: lib.randn(10 ** 6), 3)
    same(lambda lib: lib.rand(10 ** 6), 3)


@pytest.mark.parametrize("seed", SEEDS[:3])
def test_non_contiguous_outputs(seed):
    def fn(lib):
        out = []
        for dt in (lib.float32, lib.float64):
            x = lib.empty(6, 8, dtype=dt).t()
            out.append(x.normal_())  # not contiguous: one normal_distribution<double> draw per element
            out.append(lib.empty(6, 8, dtype=dt).t().uniform_(-2, 3))
            y = lib.zeros(40, dtype=dt)[::2]
            out.append(y.normal_(1.5, 2.0))
            out.append(lib.randn_like(lib.empty(5, 7, dtype=dt).t()))
            out.append(lib.rand_like(lib.empty(5, 7, dtype=dt).t()))
            out.append(lib.empty(4, 5, dtype=dt).t().exponential_(0.5))
        out.append(lib.empty(6, 5, dtype=lib.int64).t().random_(0, 100))
        out.append(lib.empty(6, 5).t().bernoulli_(0.3))
        out.append(lib.empty(6, 5).t().bernoulli_(lib.rand(5, 6)))
        return out
    same(fn, seed)


@pytest.mark.parametrize("seed", SEEDS)
def test_normal_overloads(seed):
    def fn(lib):
        m = lib.arange(20, dtype=lib.float32) / 3
        s = lib.arange(1, 21, dtype=lib.float32) / 7
        out = [lib.normal(m, s), lib.normal(m, 2.5), lib.normal(-1.25, s), lib.normal(0.5, 3.0, (4, 5)),
               lib.normal(m[:5], s[:5]), lib.normal(m[:3], 0.5), lib.normal(2.0, s[:7]),
               lib.normal(0.5, 3.0, (7,), dtype=lib.float64), lib.normal(m.double(), s.double()),
               lib.normal(m.reshape(4, 5), s[:5])]
        for dt in (lib.float32, lib.float64, lib.float16):
            out.append(lib.empty(30, dtype=dt).normal_(1.5, 0.25))
            out.append(lib.empty(9, dtype=dt).normal_(-3.0, 2.0))
        return out
    same(fn, seed)


@pytest.mark.parametrize("seed", SEEDS)
def test_uniform_exponential_geometric(seed):
    def fn(lib):
        out = []
        for dt in FLOATS:
            d = getattr(lib, dt)
            out += [lib.empty(37, dtype=d).uniform_(), lib.empty(37, dtype=d).uniform_(-3.5, 7.25),
                    lib.empty(21, dtype=d).exponential_(), lib.empty(21, dtype=d).exponential_(2.5),
                    lib.empty(19, dtype=d).geometric_(0.3)]
        for dt in INTS:
            out.append(lib.empty(19, dtype=getattr(lib, dt)).geometric_(0.6))
        return out
    same(fn, seed)


@pytest.mark.filterwarnings("ignore:.*out of bounds")
@pytest.mark.parametrize("seed", SEEDS)
def test_random_(seed):
    def fn(lib):
        out = []
        for dt in FLOATS + INTS + ["bool"]:
            d = getattr(lib, dt)
            out += [lib.empty(25, dtype=d).random_(), lib.empty(25, dtype=d).random_(2),
                    lib.empty(25, dtype=d).random_(0, 2)]
            if dt != "bool":
                out += [lib.empty(25, dtype=d).random_(3, 100), lib.empty(25, dtype=d).random_(10)]
        # a range of 2**28 or more draws 64 bits
        i64, f64 = lib.int64, lib.float64
        out += [lib.empty(25, dtype=i64).random_(-2 ** 40, 2 ** 40), lib.empty(25, dtype=i64).random_(2 ** 28),
                lib.empty(25, dtype=i64).random_(-2 ** 63, None), lib.empty(25, dtype=f64).random_(-2 ** 63, None),
                lib.empty(25, dtype=i64).random_(5), lib.empty(25, dtype=i64).random_(-7, None),
                lib.empty(25, dtype=lib.float32).random_(-2 ** 30, 2 ** 30)]
        # DataLoader's base seed
        out.append(lib.empty((), dtype=lib.int64).random_())
        return out
    same(fn, seed)


@pytest.mark.parametrize("seed", SEEDS)
def test_randint_randperm(seed):
    def fn(lib):
        out = [lib.randint(10, (30,)), lib.randint(-5, 5, (3, 4)), lib.randint(0, 2 ** 30, (9,)),
               lib.randint(0, 7, (12,), dtype=lib.float32), lib.randint(0, 100, (5,), dtype=lib.int32),
               lib.randint_like(lib.empty(3, 4), 9), lib.randint_like(lib.empty(3, 4, dtype=lib.int64), -3, 3),
               lib.randint_like(lib.empty(5, 4).t(), 100)]
        for n in (0, 1, 2, 10, 100, 1000):
            out.append(lib.randperm(n))
        out += [lib.randperm(50, dtype=lib.float32), lib.randperm(20, dtype=lib.int32),
                lib.randperm(20, dtype=lib.float16)]
        return out
    same(fn, seed)


@pytest.mark.parametrize("seed", SEEDS)
def test_bernoulli(seed):
    def fn(lib):
        out = []
        for dt in ["float32", "float64", "float16", "int64", "uint8", "bool"]:
            d = getattr(lib, dt)
            out += [lib.empty(40, dtype=d).bernoulli_(0.3), lib.empty(7, dtype=d).bernoulli_()]
        p32 = lib.rand(40)
        p64 = lib.rand(40, dtype=lib.float64)
        out += [lib.empty(40).bernoulli_(p32), lib.empty(40).bernoulli_(p64),
                lib.empty(40, dtype=lib.float64).bernoulli_(p32), lib.empty(3, 40).bernoulli_(p32),
                lib.bernoulli(p32), lib.bernoulli(p64), lib.bernoulli(p32, 0.7),
                lib.bernoulli(lib.rand(5, 6, dtype=lib.float16))]
        return out
    same(fn, seed)


def test_dropout_mask_matches():
    # F.dropout on the CPU draws empty_like(input).bernoulli_(1 - p)
    same(lambda lib: lib.empty(8, 16).bernoulli_(0.9), 11)


@pytest.mark.parametrize("seed", SEEDS)
def test_multinomial(seed):
    def fn(lib):
        w = lib.tensor([0.1, 2.0, 0.0, 3.5, 1.0, 0.25])
        w2 = lib.rand(4, 30) + 0.01
        return [lib.multinomial(w, 1), lib.multinomial(w, 3), lib.multinomial(w, 4, replacement=True),
                lib.multinomial(w, 1, replacement=True), lib.multinomial(w2, 5), lib.multinomial(w2, 17, True),
                lib.multinomial(w2.double(), 6, True), lib.multinomial(w2.double(), 7), w2.multinomial(1)]
    same(fn, seed)


@pytest.mark.parametrize("seed", SEEDS[:3])
def test_generator_argument(seed):
    def fn(lib):
        g = lib.Generator()
        g.manual_seed(seed + 100)
        out = [lib.randn(20, generator=g), lib.rand(3, generator=g), lib.randn(3, generator=g),
               lib.randint(0, 10, (5,), generator=g), lib.randperm(12, generator=g),
               lib.normal(0.0, 2.0, (5,), generator=g), lib.normal(lib.zeros(4), 1.0, generator=g),
               lib.empty(9).uniform_(generator=g), lib.empty(9).normal_(generator=g),
               lib.empty(9).exponential_(generator=g), lib.empty(9).geometric_(0.5, generator=g),
               lib.empty(9, dtype=lib.int64).random_(generator=g), lib.empty(9).bernoulli_(0.5, generator=g),
               lib.bernoulli(lib.rand(6), generator=g), lib.multinomial(lib.ones(5), 3, generator=g),
               lib.randn_like(lib.empty(4), generator=g), lib.rand_like(lib.empty(4), generator=g),
               lib.randint_like(lib.empty(4), 5, generator=g),
               lib.randn(4)]  # the default generator, untouched by g's draws
        return out + [g.initial_seed()]
    same(fn, seed)


def test_fresh_generator_default_seed():
    assert torchlite.Generator().initial_seed() == torch.Generator().initial_seed() == 67280421310721
    _assert_equal(arr(torchlite.randn(20, generator=torchlite.Generator())),
                  arr(torch.randn(20, generator=torch.Generator())))


def _state(lib):
    return lib.get_rng_state().numpy().copy()


def test_rng_state_layout_and_both_directions():
    for seed in SEEDS:
        torchlite.manual_seed(seed)
        torch.manual_seed(seed)
        torchlite.randn(3)
        torch.randn(3)  # leaves the double normal sample cached
        assert _state(torchlite).tobytes() == _state(torch).tobytes()
        assert torchlite.get_rng_state().dtype == torchlite.uint8 and torchlite.get_rng_state().shape == (5056,)
    # torch's state into torchlite, then the same numbers
    torch.manual_seed(42)
    torch.randn(5)
    torch.rand(7)
    st = torch.get_rng_state()
    torchlite.set_rng_state(torchlite.from_numpy(st.numpy().copy()))
    _assert_equal(arr(torchlite.randn(3)), arr(torch.randn(3)))
    # torchlite's state into torch
    torchlite.manual_seed(9)
    torchlite.randn(1)
    st = torchlite.get_rng_state()
    torch.set_rng_state(torch.from_numpy(st.numpy().copy()))
    _assert_equal(arr(torchlite.randn(1)), arr(torch.randn(1)))
    _assert_equal(arr(torchlite.randperm(30)), arr(torch.randperm(30)))
    assert torchlite.initial_seed() == torch.initial_seed() == 9
    # a Generator's state
    g, tg = torchlite.Generator().manual_seed(3), torch.Generator().manual_seed(3)
    torchlite.randn(3, generator=g)
    torch.randn(3, generator=tg)
    assert g.get_state().numpy().tobytes() == tg.get_state().numpy().tobytes()
    g2 = torchlite.Generator().set_state(torchlite.from_numpy(tg.get_state().numpy().copy()))
    _assert_equal(arr(torchlite.randn(5, generator=g2)), arr(torch.randn(5, generator=tg)))
    c = g2.clone_state()
    _assert_equal(arr(torchlite.rand(4, generator=c)), arr(torchlite.rand(4, generator=g2)))


def test_state_errors():
    def cases(lib):
        g = lib.Generator()
        out = []
        for f in (lambda: g.set_state(5), lambda: g.set_state(lib.zeros(5, dtype=lib.uint8)),
                  lambda: g.set_state(lib.zeros(5056)), lambda: lib.set_rng_state(lib.zeros(5056, dtype=lib.uint8)),
                  lambda: g.manual_seed(2 ** 64), lambda: g.manual_seed(-2 ** 63 - 1), lambda: g.manual_seed(1.5),
                  lambda: g.get_offset(), lambda: lib.randn(2, generator=5).sum(),
                  lambda: g.manual_seed(-1).initial_seed(), lambda: lib.manual_seed(-5).initial_seed(),
                  lambda: lib.manual_seed(2 ** 64 - 1).initial_seed(), lambda: lib.manual_seed(3.0).initial_seed()):
            try:
                r = f()
                out.append(("ok", r if isinstance(r, int) else None))
            except Exception as e:  # noqa: BLE001 - comparing what each library raises
                out.append((type(e).__name__, str(e).replace("torchlite", "torch")))
        return out
    got, want = cases(torchlite), cases(torch)
    assert got == want


def test_seed_and_initial_seed():
    s = torchlite.seed()
    assert torchlite.initial_seed() == s and 0 <= s < 2 ** 64
    a = torchlite.randn(20)
    torchlite.manual_seed(s)
    _assert_equal(arr(torchlite.randn(20)), arr(a))
    torch.manual_seed(s)
    _assert_equal(arr(torch.randn(20)), arr(a))
    assert torchlite.manual_seed(5) is torchlite.default_generator
    assert torchlite.random.manual_seed(5) is torchlite.default_generator
    assert torchlite.random.initial_seed() == 5


def test_fork_rng():
    def fn(lib):
        a = lib.randn(3)
        with lib.random.fork_rng():
            lib.randn(100)
            lib.rand(3)
        b = lib.randn(3)
        with lib.random.fork_rng(enabled=False):
            lib.randn(2)
        with lib.random.fork_rng(devices=[]):
            lib.rand(5)
        return [a, b, lib.randn(3)]
    same(fn, 4)


def test_sim_device_draws_from_cpu_generator():
    torchlite.manual_seed(2)
    a = torchlite.randn(20, device="sim:0")
    assert str(a.device) == "sim:0"
    torch.manual_seed(2)
    _assert_equal(arr(a.cpu()), arr(torch.randn(20)))
    torchlite.manual_seed(2)
    x = torchlite.empty(9, device="sim:0").uniform_()
    torch.manual_seed(2)
    _assert_equal(arr(x.cpu()), arr(torch.empty(9).uniform_()))


_SUBPROCESS = r'''
import sys, numpy as np
import torch, torchlite
if len(sys.argv) > 1:
    torch.set_num_threads(int(sys.argv[1]))
def run(lib):
    lib.manual_seed(5)
    m = lib.arange(20, dtype=lib.float32) / 3
    out = [lib.randn(40), lib.randn(3), lib.randn(40, dtype=lib.float64), lib.randn(40, dtype=lib.float16),
           lib.rand(20), lib.empty(30).uniform_(-2.5, 3.25), lib.empty(30, dtype=lib.float64).uniform_(-2.5, 3.25),
           lib.empty(30).normal_(1.5, 3.0), lib.empty(5).normal_(1.5, 3.0),
           lib.empty(5, dtype=lib.float64).normal_(1.5, 3.0),
           lib.normal(m, 0.5), lib.empty(20).exponential_(2.0), lib.randint(0, 10, (10,)), lib.randperm(20),
           lib.empty(20).bernoulli_(0.4), lib.multinomial(lib.ones(10), 4, True), lib.randn(10 ** 5)]
    return [t.numpy().tobytes() for t in out]
a, b = run(torchlite), run(torch)
bad = [i for i, (x, y) in enumerate(zip(a, b)) if x != y]
print("capability", torch.backends.cpu.get_cpu_capability(), "differ", bad)
sys.exit(1 if bad else 0)
'''


@pytest.mark.parametrize("capability, threads", [("default", None), ("avx2", None), ("avx512", "1"),
                                                 ("default", "1")])
def test_other_cpu_capabilities(capability, threads):
    # torch's random kernels are serial: the numbers do not depend on its thread count either
    env = dict(os.environ, ATEN_CPU_CAPABILITY=capability)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    argv = [sys.executable, "-c", _SUBPROCESS] + ([threads] if threads else [])
    r = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"capability {capability.upper()}" in r.stdout


def test_capability_is_torchs():
    # the kernel build torchlite reproduces is the one torch picked in this process
    names = {"DEFAULT": torchlite._random.DEFAULT, "AVX2": torchlite._random.AVX2, "AVX512": torchlite._random.AVX512}
    assert torchlite._random.CAPABILITY == names[torch.backends.cpu.get_cpu_capability()]


def test_compare_randn_script(tmp_path):
    script = tmp_path / "script.py"
    script.write_text("import torch\n"
                      "torch.manual_seed(0)\n"
                      "w = torch.randn(5, 3, requires_grad=True)\n"
                      "x = torch.randn(4, 5)\n"
                      "loss = (x @ w).tanh().sum() + torch.rand(3).sum()\n"
                      "loss.backward()\n")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, "-m", "torchlite", "compare", str(script)], env=env, capture_output=True,
                       text=True, timeout=300)
    assert "inputs differ" not in r.stdout + r.stderr, r.stdout + r.stderr
    assert r.returncode == 0, r.stdout + r.stderr
