"""load(mmap=True) (issue 14) against torch: the storages memory-mapped from a zip-format file at their
records' offsets (numpy.memmap; torch.save writes records uncompressed, 64-byte aligned), shared between
the tensors of one storage; MAP_PRIVATE by default (writes through a loaded tensor stay in memory),
MAP_SHARED under set_default_mmap_options (they reach the file); torch's errors for a file object, a
legacy-format file and a bad flag; with weights_only, map_location, both libraries' files."""
import mmap
import os

import pytest

import torchlite
from diff_utils import import_torch, run

torch = import_torch()


def _obj(lib):
    t = lib.arange(6.0)
    return {"a": t, "b": t[2:], "c": lib.ones(2, dtype=lib.int64), "e": lib.zeros(0),
            "m": lib.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=lib.float64).t()}


@pytest.fixture(params=["torch", "torchlite"])
def path(request, tmp_path):
    """A file saved by torch or by torchlite."""
    p = os.path.join(tmp_path, "ckpt.pt")
    lib = torch if request.param == "torch" else torchlite
    lib.save(_obj(lib), p)
    return p


def _values(x):
    return {k: (str(v.dtype).split(".")[-1], tuple(v.shape), v.stride(), v.tolist()) for k, v in x.items()}


def _private(p):
    def case(lib):
        x = lib.load(p, mmap=True)
        shared = x["a"].data_ptr() + 16 == x["b"].data_ptr()
        before = _values(x)
        x["a"][0] = 100.0  # private: visible through the storage's other tensor, not in the file
        return before, shared, x["b"].tolist(), lib.load(p)["a"].tolist(), x["b"]._base is None
    return case


def _shared(p):
    def case(lib):
        with lib.serialization.set_default_mmap_options(mmap.MAP_SHARED):
            inside = lib.serialization.get_default_mmap_options()
            y = lib.load(p, mmap=True)
            y["a"][1] = 7.0
            y["c"] += 1
        again = lib.load(p, mmap=True)  # (torchlite's reader checks the crc the write made stale: not
        out = inside, lib.serialization.get_default_mmap_options(), _values(again)  # read without mmap)
        with lib.serialization.set_default_mmap_options(mmap.MAP_SHARED):  # restore the file
            z = lib.load(p, mmap=True)
            z["a"][1] = 1.0
            z["c"] -= 1
        return out
    return case


def _options(p):
    def case(lib):
        s = lib.serialization
        prev = s.get_default_mmap_options()
        s.set_default_mmap_options(mmap.MAP_SHARED)
        now = s.get_default_mmap_options()
        s.set_default_mmap_options(mmap.MAP_PRIVATE)
        return prev, now, s.get_default_mmap_options(), run(lambda lib: s.set_default_mmap_options(5), lib)
    return case


def _variants(p):
    def case(lib):
        return (_values(lib.load(p, mmap=True, map_location="cpu")),
                _values(lib.load(p, mmap=True, weights_only=False)),
                _values(lib.load(p, mmap=True, map_location=lambda s, loc: s)),
                _values(lib.load(p, mmap=False)))
    return case


def _errors(p):
    def case(lib):
        legacy = p + ".legacy"
        lib.save(_obj(lib), legacy, _use_new_zipfile_serialization=False)
        with open(p, "rb") as f:
            file_object = run(lambda lib: lib.load(f, mmap=True), lib)
        legacy_error = run(lambda lib: lib.load(legacy, mmap=True), lib)
        return file_object, (legacy_error[:2], legacy_error[2].replace(legacy, "L") if len(legacy_error) > 2 else None)
    return case


@pytest.mark.parametrize("case", [_private, _shared, _options, _variants, _errors], ids=lambda c: c.__name__)
def test_load_mmap_as_torch(case, path):
    assert run(case(path), torchlite) == run(case(path), torch)


def test_mmap_storage_is_a_map_of_the_file(path):
    """The loaded tensor's memory is the file's pages (a numpy.memmap at the record's offset)."""
    import numpy as np
    x = torchlite.load(path, mmap=True)
    arr = x["a"].numpy()
    base = arr
    while base is not None and not isinstance(base, np.memmap):
        base = base.base
    assert isinstance(base, np.memmap) and base.mode == "c"
    with open(path, "rb") as f:
        raw = f.read()
    assert raw[base.offset:base.offset + 24] == np.arange(6.0, dtype=np.float32).tobytes()
