"""torchlite.utils.data against torch.utils.data: datasets, samplers, default_collate /
default_convert, DataLoader batching, errors and warnings -- compared with torch wherever no random
numbers are drawn. Shuffled orders (RandomSampler, DataLoader(shuffle=True), random_split,
SubsetRandomSampler) are checked as permutations, reproducible for a seed and following torch's
draw structure (base seed first, then one randperm per pass); torchlite's generator does not yet
reproduce torch's random numbers, so the orders themselves are not compared with torch's."""
import collections
import warnings

import numpy as np
import pytest

import torchlite
from torchlite.utils import data as ldata

from diff_utils import import_torch, run

torch = import_torch()
Point = collections.namedtuple("Point", ["x", "y"])


def _ds(lib, n=10):
    return lib.utils.data.TensorDataset(lib.arange(n * 2, dtype=lib.float32).reshape(n, 2), lib.arange(n))


class _Squares:
    """A map-style dataset of dict samples (numpy, floats, ints, strings, namedtuples)."""

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {"x": np.array([i, i + 0.5], dtype=np.float32), "sq": i * i, "f": i / 2, "name": f"s{i}",
                "pt": Point(i, float(i)), "pair": (i, [i, -i])}


def _iterable(lib, n):
    class Counter(lib.utils.data.IterableDataset):
        def __iter__(self):
            return iter(range(n))

        def __len__(self):
            return n
    return Counter()


def _collect(loader):
    return [b for b in loader]


CASES = {
    "tensor_dataset": lambda lib: (len(_ds(lib)), _ds(lib)[3], _ds(lib)[-1], _ds(lib)[2:4]),
    "tensor_dataset_mismatch": lambda lib: lib.utils.data.TensorDataset(lib.zeros(3), lib.zeros(4)),
    "loader_basic": lambda lib: _collect(lib.utils.data.DataLoader(_ds(lib), batch_size=3)),
    "loader_len": lambda lib: [len(lib.utils.data.DataLoader(_ds(lib), batch_size=b, drop_last=d))
                               for b in (1, 3, 4, 10, 11) for d in (False, True)],
    "loader_drop_last": lambda lib: _collect(lib.utils.data.DataLoader(_ds(lib), batch_size=4, drop_last=True)),
    "loader_no_batch": lambda lib: _collect(lib.utils.data.DataLoader(_ds(lib, 3), batch_size=None)),
    "loader_dicts": lambda lib: _collect(lib.utils.data.DataLoader(_Squares(5), batch_size=2)),
    "loader_dicts_no_batch": lambda lib: _collect(lib.utils.data.DataLoader(_Squares(2), batch_size=None)),
    "loader_collate_fn": lambda lib: _collect(lib.utils.data.DataLoader(list(range(7)), batch_size=3,
                                                                        collate_fn=lambda b: sum(b))),
    "loader_list_dataset": lambda lib: _collect(lib.utils.data.DataLoader([1.5, 2.5, 3.0], batch_size=2)),
    "loader_sampler": lambda lib: _collect(lib.utils.data.DataLoader(_ds(lib), batch_size=2, sampler=[9, 0, 4, 4])),
    "loader_batch_sampler": lambda lib: _collect(lib.utils.data.DataLoader(_ds(lib), batch_sampler=[[1, 2], [5],
                                                                                                     [0, 9, 3]])),
    "loader_iterable": lambda lib: (_collect(lib.utils.data.DataLoader(_iterable(lib, 7), batch_size=3)),
                                    len(lib.utils.data.DataLoader(_iterable(lib, 7), batch_size=3))),
    "loader_iterable_drop_last": lambda lib: _collect(lib.utils.data.DataLoader(_iterable(lib, 7), batch_size=3,
                                                                                drop_last=True)),
    "loader_iterable_no_batch": lambda lib: _collect(lib.utils.data.DataLoader(_iterable(lib, 3), batch_size=None)),
    "loader_workers_in_order": lambda lib: _collect(lib.utils.data.DataLoader(_ds(lib), batch_size=3, num_workers=2)),
    "loader_attrs": lambda lib: [(type(dl.sampler).__name__, type(dl.batch_sampler).__name__, dl.batch_size,
                                  dl.drop_last, dl.num_workers, dl.collate_fn.__name__, dl.prefetch_factor,
                                  dl.pin_memory, dl.timeout)
                                 for dl in [lib.utils.data.DataLoader(_ds(lib)),
                                            lib.utils.data.DataLoader(_ds(lib), shuffle=True, batch_size=4),
                                            lib.utils.data.DataLoader(_ds(lib), batch_size=None),
                                            lib.utils.data.DataLoader(_ds(lib), num_workers=3)]],
    "loader_setattr": lambda lib: setattr(lib.utils.data.DataLoader(_ds(lib)), "batch_size", 3),
    "err_workers": lambda lib: lib.utils.data.DataLoader(_ds(lib), num_workers=-1),
    "err_timeout": lambda lib: lib.utils.data.DataLoader(_ds(lib), timeout=-1),
    "err_prefetch": lambda lib: lib.utils.data.DataLoader(_ds(lib), prefetch_factor=2),
    "err_prefetch_neg": lambda lib: lib.utils.data.DataLoader(_ds(lib), num_workers=1, prefetch_factor=-1),
    "err_persistent": lambda lib: lib.utils.data.DataLoader(_ds(lib), persistent_workers=True),
    "err_iter_shuffle": lambda lib: lib.utils.data.DataLoader(_iterable(lib, 3), shuffle=True),
    "err_iter_sampler": lambda lib: lib.utils.data.DataLoader(_iterable(lib, 3), sampler=[0]),
    "err_iter_batch_sampler": lambda lib: lib.utils.data.DataLoader(_iterable(lib, 3), batch_sampler=[[0]]),
    "err_sampler_shuffle": lambda lib: lib.utils.data.DataLoader(_ds(lib), sampler=[0], shuffle=True),
    "err_batch_sampler": lambda lib: lib.utils.data.DataLoader(_ds(lib), batch_sampler=[[0]], batch_size=2),
    "err_none_drop_last": lambda lib: lib.utils.data.DataLoader(_ds(lib), batch_size=None, drop_last=True),
    "err_batch_size": lambda lib: lib.utils.data.BatchSampler(range(3), 0, False),
    "err_batch_size_bool": lambda lib: lib.utils.data.BatchSampler(range(3), True, False),
    "err_drop_last": lambda lib: lib.utils.data.BatchSampler(range(3), 2, 1),
    "err_mp_context": lambda lib: lib.utils.data.DataLoader(_ds(lib), multiprocessing_context="spawn"),
    "err_random_sampler_repl": lambda lib: lib.utils.data.RandomSampler(range(3), replacement=1),
    "err_random_sampler_num": lambda lib: lib.utils.data.RandomSampler(range(3), num_samples=0),
    "err_weighted_num": lambda lib: lib.utils.data.WeightedRandomSampler([1.0, 2.0], 0),
    "err_weighted_repl": lambda lib: lib.utils.data.WeightedRandomSampler([1.0, 2.0], 2, replacement=0),
    "err_weighted_shape": lambda lib: lib.utils.data.WeightedRandomSampler([[1.0, 2.0]], 2),
    "batch_sampler": lambda lib: [list(lib.utils.data.BatchSampler(range(10), b, d)) for b in (3, 5)
                                  for d in (False, True)],
    "batch_sampler_len": lambda lib: [len(lib.utils.data.BatchSampler(range(10), b, d)) for b in (3, 5, 11)
                                      for d in (False, True)],
    "sequential_sampler": lambda lib: (list(lib.utils.data.SequentialSampler(range(4))),
                                       len(lib.utils.data.SequentialSampler([1, 2]))),
    "random_sampler_len": lambda lib: (len(lib.utils.data.RandomSampler(range(5))),
                                       len(lib.utils.data.RandomSampler(range(5), num_samples=12)),
                                       lib.utils.data.RandomSampler(range(5), True, 3).num_samples),
    "sampler_base": lambda lib: iter(lib.utils.data.Sampler()),
    "subset": lambda lib: (lambda s: (len(s), s[0], s[1], s.__getitems__([1, 0]), s.indices))(
        lib.utils.data.Subset(_ds(lib), [4, 2])),
    "concat": lambda lib: (lambda c: (len(c), c[0], c[3], c[-1], c[-4], c.cumulative_sizes))(
        lib.utils.data.ConcatDataset([_ds(lib, 3), _ds(lib, 2)])),
    "concat_add": lambda lib: len(_ds(lib, 3) + _ds(lib, 4)),
    "concat_neg": lambda lib: lib.utils.data.ConcatDataset([_ds(lib, 3)])[-4],
    "concat_empty": lambda lib: lib.utils.data.ConcatDataset([]),
    "concat_iterable": lambda lib: lib.utils.data.ConcatDataset([_iterable(lib, 3)]),
    "chain": lambda lib: (list(lib.utils.data.ChainDataset([_iterable(lib, 2), _iterable(lib, 3)])),
                          list(_iterable(lib, 2) + _iterable(lib, 1)),
                          len(lib.utils.data.ChainDataset([_iterable(lib, 2), _iterable(lib, 3)]))),
    "chain_map": lambda lib: list(lib.utils.data.ChainDataset([_ds(lib, 2)])),
    "stack": lambda lib: (lambda s, d: (len(s), s[1], d[0], s.__getitems__([0, 2]), d.__getitems__([1])))(
        lib.utils.data.StackDataset(_ds(lib, 3), [5, 6, 7]),
        lib.utils.data.StackDataset(a=_ds(lib, 3), b=[5, 6, 7])),
    "stack_errors": lambda lib: [run(f, lib) for f in (
        lambda l_: l_.utils.data.StackDataset(),
        lambda l_: l_.utils.data.StackDataset([1], b=[2]),
        lambda l_: l_.utils.data.StackDataset([1], [2, 3]),
        lambda l_: l_.utils.data.StackDataset(a=[1], b=[2, 3]))],
    "dataset_base": lambda lib: lib.utils.data.Dataset()[0],
    "iterable_base": lambda lib: lib.utils.data.IterableDataset(),
    "random_split_lengths": lambda lib: [len(s) for s in lib.utils.data.random_split(range(10), [3, 7])],
    "random_split_fractions": lambda lib: [[len(s) for s in lib.utils.data.random_split(range(n), fr)]
                                           for n, fr in [(10, [0.3, 0.7]), (11, [0.5, 0.5]), (7, [0.2, 0.2, 0.6]),
                                                         (5, [1.0, 0.0])]],
    "random_split_bad_sum": lambda lib: lib.utils.data.random_split(range(10), [3, 3]),
    "random_split_bad_frac": lambda lib: lib.utils.data.random_split(range(10), [1.5, -0.5]),
    "worker_info": lambda lib: lib.utils.data.get_worker_info(),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert run(CASES[name], torchlite) == run(CASES[name], torch)


COLLATE = [
    [1, 2, 3],
    [1.5, 2.0],
    [True, False],
    ["a", "b"],
    [b"a", b"b"],
    [np.float32(1.5), np.float32(2.0)],
    [np.int16(1), np.int16(3)],
    [np.array([1, 2], dtype=np.int32), np.array([3, 4], dtype=np.int32)],
    [np.array(1.5), np.array(2.5)],
    [(1, 2.0), (3, 4.0)],
    [[1, 2], [3, 4]],
    [{"a": 1, "b": [1.0, 2.0]}, {"a": 2, "b": [3.0, 4.0]}],
    [Point(1, 2.0), Point(3, 4.0)],
    [collections.OrderedDict(a=1), collections.OrderedDict(a=2)],
    [[1, 2], [3]],
    [object(), object()],
    [np.array(["a"]), np.array(["b"])],
    [None, None],
]


@pytest.mark.parametrize("i", range(len(COLLATE)))
def test_default_collate(i):
    def case(lib):
        out = lib.utils.data.default_collate(COLLATE[i])
        return out, type(out).__name__
    assert run(case, torchlite) == run(case, torch)


def test_default_collate_tensors():
    def case(lib):
        a = lib.tensor([[1.0, 2.0]], dtype=lib.float64)
        b = lib.tensor([[3.0, 4.0]], dtype=lib.float64)
        out = lib.utils.data.default_collate([a, b])
        ints = lib.utils.data.default_collate([lib.tensor(1), lib.tensor(2)])
        nested = lib.utils.data.default_collate([(a, {"k": lib.tensor(5)}), (b, {"k": lib.tensor(6)})])
        bad = run(lambda l_: l_.utils.data.default_collate([l_.zeros(2), l_.zeros(3)]), lib)
        return out, out.shape, ints, nested, bad[0]
    assert run(case, torchlite) == run(case, torch)


CONVERT = [
    np.array([1, 2]), np.float64(2.5), np.array(["x"]), 3, "s", (1, np.int8(2)), [np.array([1.0])],
    {"a": np.array([1.5])}, Point(np.int32(1), 2), np.str_("a"),
]


@pytest.mark.parametrize("i", range(len(CONVERT)))
def test_default_convert(i):
    def case(lib):
        out = lib.utils.data.default_convert(CONVERT[i])
        return out, type(out).__name__
    lite, ref = run(case, torchlite), run(case, torch)
    if i == 2:  # a string array comes back as the array itself: compare its contents
        assert lite[0] == ref[0] == "ok" and list(lite[1][0]) == list(ref[1][0])
    else:
        assert lite == ref


def test_pin_memory_warning():
    def case(lib):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            out = _collect(lib.utils.data.DataLoader(_ds(lib, 2), pin_memory=True))
        return out, [str(x.message) for x in w]
    assert run(case, torchlite) == run(case, torch)


def test_iterable_len_warning():
    def case(lib):
        class Liar(lib.utils.data.IterableDataset):
            def __iter__(self):
                return iter(range(5))

            def __len__(self):
                return 2
        dl = lib.utils.data.DataLoader(Liar(), batch_size=None)
        len(dl)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            out = _collect(dl)
        return out, [str(x.message).split(" was reported")[1] for x in w]
    assert run(case, torchlite) == run(case, torch)


# Shuffling ------------------------------------------------------------------------------------------
def _order(loader):
    return [int(i) for batch in loader for i in batch[1]]


def test_shuffle_is_a_reproducible_permutation():
    ds = _ds(torchlite, 23)
    g = torchlite.Generator().manual_seed(7)
    first = _order(ldata.DataLoader(ds, batch_size=4, shuffle=True, generator=g))
    second = _order(ldata.DataLoader(ds, batch_size=4, shuffle=True, generator=g))
    assert sorted(first) == sorted(second) == list(range(23))
    assert first != second  # the generator advances between epochs
    g2 = torchlite.Generator().manual_seed(7)
    assert _order(ldata.DataLoader(ds, batch_size=4, shuffle=True, generator=g2)) == first
    torchlite.manual_seed(3)
    a = _order(ldata.DataLoader(ds, batch_size=5, shuffle=True))
    torchlite.manual_seed(3)
    b = _order(ldata.DataLoader(ds, batch_size=5, shuffle=True))
    assert a == b and sorted(a) == list(range(23))


def test_shuffle_follows_torchs_draws():
    """DataLoader(shuffle=True, generator=g): the iterator draws its base seed from g first, then
    the sampler's randperm(n, generator=g) -- the same draws, in the same order, made by hand."""
    ds = _ds(torchlite, 17)
    g = torchlite.Generator().manual_seed(11)
    order = _order(ldata.DataLoader(ds, batch_size=3, shuffle=True, generator=g))
    h = torchlite.Generator().manual_seed(11)
    torchlite.empty((), dtype=torchlite.int64).random_(generator=h)
    assert order == torchlite.randperm(17, generator=h).tolist()
    # without a generator: base seed from the default generator, then a Generator seeded by one
    # more int64 draw of it yields the randperm
    torchlite.manual_seed(5)
    order = _order(ldata.DataLoader(ds, batch_size=3, shuffle=True))
    torchlite.manual_seed(5)
    torchlite.empty((), dtype=torchlite.int64).random_()
    seed = int(torchlite.empty((), dtype=torchlite.int64).random_().item())
    assert order == torchlite.randperm(17, generator=torchlite.Generator().manual_seed(seed)).tolist()


def test_random_sampler_structure():
    g = torchlite.Generator().manual_seed(1)
    s = list(ldata.RandomSampler(range(5), num_samples=12, generator=g))
    h = torchlite.Generator().manual_seed(1)
    expect = torchlite.randperm(5, generator=h).tolist() + torchlite.randperm(5, generator=h).tolist() + \
        torchlite.randperm(5, generator=h).tolist()[:2]
    assert s == expect
    g = torchlite.Generator().manual_seed(2)
    r = list(ldata.RandomSampler(range(4), replacement=True, num_samples=70, generator=g))
    h = torchlite.Generator().manual_seed(2)
    expect = sum((torchlite.randint(high=4, size=(32,), dtype=torchlite.int64, generator=h).tolist()
                  for _ in range(2)), []) + torchlite.randint(high=4, size=(6,), dtype=torchlite.int64,
                                                              generator=h).tolist()
    assert r == expect and len(r) == 70 and set(r) <= set(range(4))


def test_subset_random_and_weighted_samplers():
    g = torchlite.Generator().manual_seed(4)
    s = list(ldata.SubsetRandomSampler([10, 20, 30, 40], generator=g))
    assert sorted(s) == [10, 20, 30, 40]
    w = list(ldata.WeightedRandomSampler([0.0, 1.0, 0.0, 3.0], 50, generator=g))
    assert len(w) == 50 and set(w) <= {1, 3}
    w = list(ldata.WeightedRandomSampler([1.0, 1.0, 1.0], 3, replacement=False, generator=g))
    assert sorted(w) == [0, 1, 2]


def test_random_split_partitions():
    g = torchlite.Generator().manual_seed(9)
    parts = ldata.random_split(range(30), [0.5, 0.3, 0.2], generator=g)
    idx = [i for p in parts for i in p.indices]
    assert [len(p) for p in parts] == [15, 9, 6] and sorted(idx) == list(range(30))
    h = torchlite.Generator().manual_seed(9)
    assert idx == torchlite.randperm(30, generator=h).tolist()
    assert [list(p) for p in parts] == [[p.dataset[i] for i in p.indices] for p in parts]
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        ldata.random_split(range(2), [0.9, 0.1])
    assert [str(x.message) for x in w] == [
        "Length of split at index 1 is 0. This might result in an empty dataset."]


def test_iterable_with_workers_refused():
    dl = ldata.DataLoader(_iterable(torchlite, 3), num_workers=2)
    with pytest.raises(NotImplementedError, match="IterableDataset with num_workers > 0"):
        iter(dl)


def test_mnist_style_training_loop():
    """A DataLoader feeding an SGD fit, as the MNIST example does (no shuffle: same batches as torch)."""
    def fit(lib):
        rs = np.random.RandomState(0)
        x = lib.tensor(rs.randn(40, 3))
        y = lib.tensor(rs.randn(40))
        dl = lib.utils.data.DataLoader(lib.utils.data.TensorDataset(x, y), batch_size=8)
        w = lib.zeros(3, dtype=lib.float64, requires_grad=True)
        opt = lib.optim.SGD([w], lr=0.1, momentum=0.9)
        for _ in range(3):
            for xb, yb in dl:
                opt.zero_grad()
                ((xb @ w - yb) ** 2).mean().backward()
                opt.step()
        return w.detach().numpy().copy()
    np.testing.assert_allclose(fit(torchlite), fit(torch), rtol=1e-12)


# Orders equal to torch's for the same seed ------------------------------------------------------------
def _seeded(lib, fn, seed=1234):
    lib.manual_seed(seed)
    return fn(lib)


ORDER_CASES = {
    "shuffle_generator_epochs": lambda lib: (lambda g: [_order(lib.utils.data.DataLoader(
        _ds(lib, 37), batch_size=5, shuffle=True, generator=g)) for _ in range(3)])(lib.Generator().manual_seed(7)),
    "shuffle_default_epochs": lambda lib: [_order(lib.utils.data.DataLoader(_ds(lib, 29), batch_size=4, shuffle=True,
                                                                             drop_last=True)) for _ in range(3)],
    "shuffle_then_default_draw": lambda lib: (_order(lib.utils.data.DataLoader(_ds(lib, 8), shuffle=True)),
                                              lib.randint(0, 1000, (3,)).tolist()),
    "random_sampler": lambda lib: [list(lib.utils.data.RandomSampler(range(n), **kw)) for n, kw in [
        (10, {}), (7, dict(num_samples=20)), (5, dict(num_samples=3)), (6, dict(replacement=True)),
        (4, dict(replacement=True, num_samples=70)),
        (9, dict(generator=lib.Generator().manual_seed(3), num_samples=13))]],
    "subset_random_sampler": lambda lib: [list(lib.utils.data.SubsetRandomSampler([3, 1, 4, 1, 5, 9, 2, 6])),
                                          list(lib.utils.data.SubsetRandomSampler(
                                              range(10, 20), generator=lib.Generator().manual_seed(5)))],
    "weighted_random_sampler": lambda lib: [list(lib.utils.data.WeightedRandomSampler([0.1, 0.9, 0.4, 2.0], 25)),
                                            list(lib.utils.data.WeightedRandomSampler([1, 2, 3, 4, 5], 4,
                                                                                      replacement=False))],
    "random_split": lambda lib: [[p.indices for p in lib.utils.data.random_split(range(n), lengths, **kw)]
                                 for n, lengths, kw in [(10, [3, 7], {}), (23, [0.5, 0.3, 0.2], {}),
                                                        (11, [0.4, 0.6],
                                                         dict(generator=lib.Generator().manual_seed(42)))]],
    "sampler_in_loader": lambda lib: _order(lib.utils.data.DataLoader(
        _ds(lib, 12), batch_size=5, sampler=lib.utils.data.RandomSampler(_ds(lib, 12), replacement=True))),
}


@pytest.mark.parametrize("name", sorted(ORDER_CASES))
def test_orders_equal_torchs(name):
    assert run(lambda lib: _seeded(lib, ORDER_CASES[name]), torchlite) == \
        run(lambda lib: _seeded(lib, ORDER_CASES[name]), torch)
