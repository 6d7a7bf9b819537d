"""torchlite.optim.lr_scheduler against torch's: each scheduler stepped 60 times (after an optimizer
step each time), its learning rates (and cycled momentums) equal to torch's to 1e-12 relative;
step(epoch)'s closed forms, state_dict / load_state_dict, the warnings and the errors."""
import math
import warnings

import numpy as np
import pytest

import torchlite

from diff_utils import import_torch, run

torch = import_torch()

STEPS = 60


def _opt(lib, name="SGD", groups=2, **kw):
    ps = [lib.tensor([1.0, 2.0], requires_grad=True) for _ in range(groups)]
    pg = [{"params": [p], "lr": 0.1 * (i + 1)} for i, p in enumerate(ps)]
    kw = dict(kw) or ({"momentum": 0.9} if name == "SGD" else {})
    return getattr(lib.optim, name)(pg, **kw)


def _plateau_metric(i):
    return 1.0 / (1 + i) if i < 15 else 0.2 + 0.01 * math.sin(i)


SCHEDULERS = {
    "StepLR": lambda lib, o: lib.optim.lr_scheduler.StepLR(o, step_size=7, gamma=0.5),
    "MultiStepLR": lambda lib, o: lib.optim.lr_scheduler.MultiStepLR(o, milestones=[5, 12, 12, 30], gamma=0.3),
    "ExponentialLR": lambda lib, o: lib.optim.lr_scheduler.ExponentialLR(o, gamma=0.93),
    "CosineAnnealingLR": lambda lib, o: lib.optim.lr_scheduler.CosineAnnealingLR(o, T_max=13, eta_min=0.001),
    "LambdaLR": lambda lib, o: lib.optim.lr_scheduler.LambdaLR(o, lr_lambda=lambda e: 0.97 ** e + 0.01 * (e % 3)),
    "LambdaLR-list": lambda lib, o: lib.optim.lr_scheduler.LambdaLR(
        o, lr_lambda=[lambda e: 1.0 / (1 + e), lambda e: 0.9 ** e]),
    "MultiplicativeLR": lambda lib, o: lib.optim.lr_scheduler.MultiplicativeLR(o, lr_lambda=lambda e: 0.95),
    "LinearLR": lambda lib, o: lib.optim.lr_scheduler.LinearLR(o, start_factor=0.2, end_factor=0.9, total_iters=17),
    "ConstantLR": lambda lib, o: lib.optim.lr_scheduler.ConstantLR(o, factor=0.25, total_iters=9),
    "PolynomialLR": lambda lib, o: lib.optim.lr_scheduler.PolynomialLR(o, total_iters=40, power=2.0),
    "OneCycleLR": lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(o, max_lr=[0.5, 1.0], total_steps=STEPS + 1),
    "OneCycleLR-linear-3": lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(
        o, max_lr=0.5, epochs=4, steps_per_epoch=16, anneal_strategy="linear", three_phase=True, pct_start=0.25),
    "CyclicLR": lambda lib, o: lib.optim.lr_scheduler.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=7),
    "CyclicLR-exp": lambda lib, o: lib.optim.lr_scheduler.CyclicLR(
        o, base_lr=[0.01, 0.02], max_lr=0.1, step_size_up=5, step_size_down=9, mode="exp_range", gamma=0.98),
    "CyclicLR-tri2": lambda lib, o: lib.optim.lr_scheduler.CyclicLR(
        o, base_lr=0.01, max_lr=0.1, step_size_up=4, mode="triangular2", cycle_momentum=False),
    "CosineAnnealingWarmRestarts": lambda lib, o: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(
        o, T_0=5, T_mult=2, eta_min=0.01),
    "SequentialLR": lambda lib, o: lib.optim.lr_scheduler.SequentialLR(
        o, [lib.optim.lr_scheduler.LinearLR(o, start_factor=0.1, total_iters=10),
            lib.optim.lr_scheduler.CosineAnnealingLR(o, T_max=30)], milestones=[10]),
    "SequentialLR-3": lambda lib, o: lib.optim.lr_scheduler.SequentialLR(
        o, [lib.optim.lr_scheduler.ConstantLR(o, factor=0.5, total_iters=4),
            lib.optim.lr_scheduler.ExponentialLR(o, gamma=0.9),
            lib.optim.lr_scheduler.StepLR(o, step_size=3)], milestones=[6, 20]),
    "ChainedScheduler": lambda lib, o: lib.optim.lr_scheduler.ChainedScheduler(
        [lib.optim.lr_scheduler.ConstantLR(o, factor=0.1, total_iters=2),
         lib.optim.lr_scheduler.ExponentialLR(o, gamma=0.9)]),
}


def _trace(lib, key, opt_name="SGD"):
    opt = _opt(lib, opt_name)
    sched = SCHEDULERS[key](lib, opt)
    out = [(list(sched.get_last_lr()), [g["lr"] for g in opt.param_groups])]
    for _ in range(STEPS):
        opt.step()
        sched.step()
        groups = [(g["lr"], g.get("momentum"), g.get("betas")) for g in opt.param_groups]
        out.append((list(sched.get_last_lr()), groups, getattr(sched, "last_epoch", None)))
    return out


def _assert_close(a, b):
    if isinstance(a, (list, tuple)):
        assert isinstance(b, (list, tuple)) and len(a) == len(b), (a, b)
        for x, y in zip(a, b, strict=True):
            _assert_close(x, y)
    elif isinstance(a, float) or isinstance(b, float):
        assert math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15), (a, b)
    else:
        assert a == b, (a, b)


@pytest.mark.parametrize("key", sorted(SCHEDULERS))
def test_schedule_matches_torch(key):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _assert_close(_trace(torchlite, key), _trace(torch, key))


@pytest.mark.parametrize("key", ["OneCycleLR", "CyclicLR"])
def test_cycled_betas_with_adam(key):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _assert_close(_trace(torchlite, key, "Adam"), _trace(torch, key, "Adam"))


def test_reduce_lr_on_plateau():
    def trace(lib, **kw):
        opt = _opt(lib)
        sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, **kw)
        out = []
        for i in range(STEPS):
            opt.step()
            sched.step(_plateau_metric(i) if kw.get("mode", "min") == "min" else -_plateau_metric(i))
            out.append((sched.get_last_lr(), sched.num_bad_epochs, sched.best, sched.cooldown_counter))
        return out
    for kw in [dict(), dict(patience=2, factor=0.5), dict(mode="max", patience=1, threshold=0.01, cooldown=3),
               dict(patience=0, threshold_mode="abs", threshold=0.001, min_lr=[0.01, 0.05], factor=0.3),
               dict(patience=1, eps=0.05, factor=0.5)]:
        _assert_close(trace(torchlite, **kw), trace(torch, **kw))


@pytest.mark.parametrize("key", ["StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR", "LinearLR",
                                 "ConstantLR", "PolynomialLR", "CosineAnnealingWarmRestarts", "LambdaLR"])
def test_step_with_epoch_closed_form(key):
    def trace(lib):
        opt = _opt(lib)
        sched = SCHEDULERS[key](lib, opt)
        out = []
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            for epoch in [3, 9, 1, 20, 20, 55, 0, 7]:
                opt.step()
                sched.step(epoch)
                out.append(list(sched.get_last_lr()))
        return out, sorted({str(x.message) for x in w})
    _assert_close(trace(torchlite), trace(torch))


@pytest.mark.parametrize("key", sorted(SCHEDULERS))
def test_state_dict_round_trip(key):
    """A scheduler's state_dict after 20 steps equals torch's (optimizer omitted, nested
    schedulers' dicts, lambdas as None), and loading it into a fresh scheduler continues alike."""
    def trace(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            opt = _opt(lib)
            sched = SCHEDULERS[key](lib, opt)
            for _ in range(20):
                opt.step()
                sched.step()
            sd = sched.state_dict()
            opt2 = _opt(lib)
            opt2.load_state_dict(opt.state_dict())
            sched2 = SCHEDULERS[key](lib, opt2)
            sched2.load_state_dict(sd)
            lrs = []
            for _ in range(15):
                opt2.step()
                sched2.step()
                lrs.append(sched2.get_last_lr())
        keys = sorted(k for k in sd if not k.startswith("_scale_fn"))
        return keys, _plain(sd), lrs

    a, b = trace(torchlite), trace(torch)
    assert a[0] == b[0]
    _assert_close(a[1], b[1])
    _assert_close(a[2], b[2])


def _plain(sd):
    """The comparable part of a state_dict (callables, and the scale function's bound refs, out)."""
    if isinstance(sd, dict):
        return [(k, _plain(v)) for k, v in sorted(sd.items(), key=lambda kv: str(kv[0]))
                if not callable(v) and not str(k).startswith("_scale_fn")]
    if isinstance(sd, (list, tuple)):
        return [_plain(v) for v in sd]
    if isinstance(sd, (int, float, str, bool)) or sd is None:
        return sd
    return type(sd).__name__


def test_warnings():
    def case(lib):
        seen = []
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            opt = _opt(lib)
            sched = lib.optim.lr_scheduler.StepLR(opt, 3)
            sched.step()  # before optimizer.step(): torch's ordering warning
            opt.step()
            sched.step()
            sched.get_lr()  # outside step(): use get_last_lr()
            seen.append([str(x.message) for x in w])
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            opt = _opt(lib)
            sched = lib.optim.lr_scheduler.ExponentialLR(opt, 0.5)
            opt.step = lambda *a, **k: None  # overridden after the scheduler wrapped it
            opt.step()
            sched.step()
            seen.append([str(x.message) for x in w])
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            opt = _opt(lib)
            sched = lib.optim.lr_scheduler.ExponentialLR(opt, 0.5)
            opt.step()
            sched.step()
            seen.append([str(x.message) for x in w])
        return seen
    assert run(case, torchlite) == run(case, torch)


ERRORS = [
    lambda lib, o: lib.optim.lr_scheduler.StepLR(object(), 3),
    lambda lib, o: lib.optim.lr_scheduler.StepLR(o, 3, last_epoch=4),
    lambda lib, o: lib.optim.lr_scheduler.LambdaLR(o, [lambda e: 1.0]),
    lambda lib, o: lib.optim.lr_scheduler.MultiplicativeLR(o, [1.0, 2.0]),
    lambda lib, o: lib.optim.lr_scheduler.ConstantLR(o, factor=1.5),
    lambda lib, o: lib.optim.lr_scheduler.LinearLR(o, start_factor=0),
    lambda lib, o: lib.optim.lr_scheduler.LinearLR(o, end_factor=2),
    lambda lib, o: lib.optim.lr_scheduler.SequentialLR(o, [], []),
    lambda lib, o: lib.optim.lr_scheduler.SequentialLR(o, [lib.optim.lr_scheduler.StepLR(o, 2)], [3]),
    lambda lib, o: lib.optim.lr_scheduler.SequentialLR(o, [lib.optim.lr_scheduler.ReduceLROnPlateau(o)], []),
    lambda lib, o: lib.optim.lr_scheduler.SequentialLR(o, [1], []),
    lambda lib, o: lib.optim.lr_scheduler.ChainedScheduler([]),
    lambda lib, o: lib.optim.lr_scheduler.ReduceLROnPlateau(o, factor=1.0),
    lambda lib, o: lib.optim.lr_scheduler.ReduceLROnPlateau(o, mode="mid"),
    lambda lib, o: lib.optim.lr_scheduler.ReduceLROnPlateau(o, threshold_mode="x"),
    lambda lib, o: lib.optim.lr_scheduler.ReduceLROnPlateau(o, min_lr=[0.1]),
    lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(o, 0.1),
    lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(o, 0.1, total_steps=0),
    lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(o, 0.1, epochs=0, steps_per_epoch=3),
    lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(o, 0.1, total_steps=10, pct_start=1),
    lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(o, 0.1, total_steps=10, anneal_strategy="x"),
    lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(o, [0.1], total_steps=10),
    lambda lib, o: [s.step() for s in [lib.optim.lr_scheduler.OneCycleLR(o, 0.1, total_steps=2)] * 3],
    lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(lib.optim.Adagrad(o.param_groups[0]["params"]), 0.1,
                                                     total_steps=3),
    lambda lib, o: lib.optim.lr_scheduler.CyclicLR(o, 0.1, 1.0, mode="x"),
    lambda lib, o: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=0),
    lambda lib, o: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=0),
    lambda lib, o: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=2, eta_min="a"),
    lambda lib, o: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=2).step(-1),
    lambda lib, o: lib.optim.lr_scheduler.LRScheduler(o).step(),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors(i):
    def case(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ERRORS[i](lib, _opt(lib))
    lite, ref = run(case, torchlite), run(case, torch)
    assert lite[0] == "raised", lite
    assert lite == ref


def test_tensor_lr_filled_in_place():
    """A tensor lr is updated in place by the scheduler (the same tensor object), as torch's."""
    def case(lib):
        p = lib.tensor([1.0], requires_grad=True)
        lr = lib.tensor(0.1, dtype=lib.float64)
        opt = lib.optim.SGD([p], lr=lr)
        sched = lib.optim.lr_scheduler.ExponentialLR(opt, 0.5)
        vals = []
        for _ in range(4):
            opt.step()
            sched.step()
            vals.append((opt.param_groups[0]["lr"] is lr, lr.item(), sched.get_last_lr()[0].item()))
        return vals
    assert run(case, torchlite) == run(case, torch)


def test_lrs_reach_the_optimizer_updates():
    """Training with SGD under StepLR: the parameters follow torch's (the scheduled lr is used)."""
    def fit(lib):
        p = lib.tensor([1.0, -1.0], dtype=lib.float64, requires_grad=True)
        opt = lib.optim.SGD([p], lr=0.1, momentum=0.5)
        sched = lib.optim.lr_scheduler.StepLR(opt, 4, gamma=0.5)
        for i in range(20):
            opt.zero_grad()
            ((p - i * 0.1) ** 2).sum().backward()
            opt.step()
            sched.step()
        return p.detach().numpy().copy()
    np.testing.assert_allclose(fit(torchlite), fit(torch), rtol=1e-12)
