"""torchlite.save / torchlite.load against torch's own: files either writes load in the other,
with equal values, dtypes, shapes, strides, offsets and storage sharing; torchlite's archive is
torch's byte for byte (but for .data/serialization_id); the weights-only loader refuses what
torch's refuses, with its message, and runs nothing; damaged files give a Python error."""
import collections
import io
import os
import pathlib
import pickle
import struct
import sys
import zipfile

import numpy as np
import pytest

import torchlite
from torchlite import serialization

from diff_utils import import_torch, norm, run

torch = import_torch()

DTYPES = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"]


# Helpers -----------------------------------------------------------------------------------------
def saved(lib, obj, **kw):
    buf = io.BytesIO()
    lib.save(obj, buf, **kw)
    return buf.getvalue()


def loaded(lib, data, **kw):
    return lib.load(io.BytesIO(data), **kw)


def geometry(t):
    """What a loaded tensor is: values, dtype, shape, strides, offset, requires_grad, leafness."""
    return (norm(t), str(t.dtype).split(".")[-1], tuple(t.shape), tuple(t.stride()), t.storage_offset(),
            t.requires_grad, t.is_leaf, t.grad_fn is None, t.device.type)


def describe(value):
    """A loaded object for comparison: tensors by geometry, containers by their items."""
    if isinstance(value, (torch.Tensor, torchlite.Tensor)):
        return geometry(value)
    if isinstance(value, collections.OrderedDict):
        return ("OrderedDict", [(k, describe(v)) for k, v in value.items()])
    if isinstance(value, dict):
        return ("dict", [(k, describe(v)) for k, v in value.items()])
    if isinstance(value, (list, tuple)) and type(value) in (list, tuple):
        return (type(value).__name__, [describe(v) for v in value])
    if isinstance(value, (torch.Size, torchlite.Size)):
        return ("Size", tuple(value))
    if isinstance(value, (torch.device, torchlite.device)):
        return ("device", str(value))
    if isinstance(value, (torch.dtype, torchlite.dtype)):
        return ("dtype", str(value).split(".")[-1])
    return (type(value).__name__, value)


def storage_start(t):
    """Where t's storage starts (both libraries: its data pointer less its offset)."""
    return t.data_ptr() - t.storage_offset() * t.element_size()


def rewrite(data, replace=None, drop=(), byteorder=None):
    """A torch archive with some records replaced or dropped (written by torchlite's writer)."""
    src = zipfile.ZipFile(io.BytesIO(data))
    prefix = src.namelist()[0].split("/")[0]
    out = io.BytesIO()
    writer = serialization._ZipWriter(out, prefix)
    for info in src.infolist():
        name = info.filename[len(prefix) + 1:]
        if name in ("version", ".data/serialization_id") or name in drop:
            continue
        value = src.read(info.filename)
        if replace and name in replace:
            value = replace[name](value) if callable(replace[name]) else replace[name]
        if name == "byteorder" and byteorder:
            value = byteorder
        writer.write_record(name, value)
    writer.write_end_of_file()
    return out.getvalue()


def objects(lib):
    """The objects both directions save: every dtype, 0-d, empty, views, nested containers."""
    base = lib.arange(24, dtype=lib.float64).reshape(4, 6)
    out = {f"dtype_{name}": lib.tensor([[1, 0, 3], [4, 5, 0]], dtype=getattr(lib, name)) for name in DTYPES}
    out.update({
        "scalar": lib.tensor(2.5),
        "scalar_int": lib.tensor(7),
        "empty": lib.empty(0),
        "empty_2d": lib.zeros(0, 3, dtype=lib.int64),
        "transposed": base.t(),
        "sliced": base[1:, ::2],
        "row": base[2],
        "column": base[:, 3],
        "expanded": lib.ones(3).expand(4, 3),
        "base": base,
        "requires_grad": lib.tensor([1.0, -2.0], requires_grad=True),
        "non_leaf": lib.tensor([1.0, 2.0], requires_grad=True) * 3,
        "nested": {"list": [1, 2.5, "s", None, True, (lib.ones(2), {"deep": lib.zeros(1)})],
                   "tuple": (False, -3, 2 ** 70, 1e300)},
        "ordered": collections.OrderedDict([("b", lib.ones(1)), ("a", 1)]),
        "size": lib.Size([2, 3]),
        "device": lib.device("cpu"),
        "dtype": lib.float16,
    })
    return out


# Both directions ---------------------------------------------------------------------------------
@pytest.mark.parametrize("weights_only", [True, False])
def test_torch_saves_torchlite_loads(weights_only):
    data = saved(torch, objects(torch))
    assert describe(loaded(torchlite, data, weights_only=weights_only)) == \
        describe(loaded(torch, data, weights_only=weights_only))


@pytest.mark.parametrize("weights_only", [True, False])
def test_torchlite_saves_torch_loads(weights_only):
    data = saved(torchlite, objects(torchlite))
    assert describe(loaded(torch, data, weights_only=weights_only)) == \
        describe(loaded(torchlite, data, weights_only=weights_only))
    # and torch reads the same as it reads from its own file of the same objects
    assert describe(loaded(torch, data, weights_only=weights_only)) == \
        describe(loaded(torch, saved(torch, objects(torch)), weights_only=weights_only))


@pytest.mark.parametrize("writer", ["torch", "torchlite"])
def test_views_share_storage_after_load(writer):
    lib = torch if writer == "torch" else torchlite
    base = lib.arange(12.0).reshape(3, 4)
    data = saved(lib, {"base": base, "t": base.t(), "row": base[1], "step": base[:, ::2], "other": lib.ones(2)})
    for reader in (torch, torchlite):
        out = loaded(reader, data)
        starts = {k: storage_start(v) for k, v in out.items()}
        assert starts["base"] == starts["t"] == starts["row"] == starts["step"] != starts["other"]
        assert [out[k].storage_offset() for k in ("t", "row", "step")] == [0, 4, 0]
        out["row"][2] = 100.0  # a write through one is seen through the others
        assert out["base"][1, 2].item() == 100.0 and out["t"][2, 1].item() == 100.0
        assert out["step"][1, 1].item() == 100.0


def test_same_tensor_twice_is_one_object():
    for writer in (torch, torchlite):
        t = writer.ones(3)
        for reader in (torch, torchlite):
            out = loaded(reader, saved(writer, [t, t]))
            assert out[0] is out[1]


def test_state_dict_of_torch_module():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    data = saved(torch, model.state_dict())
    sd = torchlite.load(io.BytesIO(data))
    assert type(sd) is collections.OrderedDict and list(sd) == list(model.state_dict())
    for k, v in model.state_dict().items():
        assert np.array_equal(sd[k].numpy(), v.numpy()) and sd[k].dtype == torchlite.float32
    # and back: torch loads torchlite's save of what it loaded into its module
    model.load_state_dict(torch.load(io.BytesIO(saved(torchlite, sd))))
    x = torch.ones(1, 3)
    assert torch.equal(model(x), model(x))


def test_parameter_loads_as_a_leaf_requiring_grad():
    data = saved(torch, {"w": torch.nn.Parameter(torch.ones(2, 2)), "f": torch.nn.Parameter(torch.ones(1), False)})
    out = torchlite.load(io.BytesIO(data))
    assert out["w"].requires_grad and out["w"].is_leaf and not out["f"].requires_grad
    parameter_class = torchlite._utils._parameter_class()
    if parameter_class is not None:
        assert type(out["w"]) is parameter_class
    assert describe(out) == describe(torch.load(io.BytesIO(data)))


def test_parameter_saves_as_torch_parameter():
    """A tensor of class torchlite.nn.parameter.Parameter pickles as torch's _rebuild_parameter."""
    class Parameter(torchlite.Tensor):
        pass
    Parameter.__module__ = "torchlite.nn.parameter"
    p = torchlite.ones(2, requires_grad=True)
    p.__class__ = Parameter
    data = saved(torchlite, {"p": p})
    assert b"_rebuild_parameter" in zipfile.ZipFile(io.BytesIO(data)).read("archive/data.pkl")
    out = torch.load(io.BytesIO(data))
    assert type(out["p"]) is torch.nn.Parameter and out["p"].requires_grad
    assert saved_pickle(data) == saved_pickle(saved(torch, {"p": torch.nn.Parameter(torch.ones(2))}))


def saved_pickle(data):
    return zipfile.ZipFile(io.BytesIO(data)).read("archive/data.pkl")


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_dtype_both_ways(dtype):
    def make(lib):
        return lib.tensor([[1, 0, 1], [0, 1, 1]], dtype=getattr(lib, dtype)).t()
    for writer in (torch, torchlite):
        data = saved(writer, make(writer))
        assert describe(loaded(torchlite, data)) == describe(loaded(torch, data))
    assert saved_pickle(saved(torch, make(torch))) == saved_pickle(saved(torchlite, make(torchlite)))


# The file's bytes --------------------------------------------------------------------------------
def records(data):
    """(name, header offset, data offset, size) of each record."""
    out = []
    for info in zipfile.ZipFile(io.BytesIO(data)).infolist():
        name_len, extra_len = struct.unpack("<HH", data[info.header_offset + 26:info.header_offset + 30])
        out.append((info.filename, info.header_offset, info.header_offset + 30 + name_len + extra_len,
                    info.file_size))
    return out


def test_archive_is_torchs_byte_for_byte(tmp_path):
    """Same object, same file name: the same bytes, but for the serialization id's digits and crc."""
    (tmp_path / "t").mkdir()
    (tmp_path / "l").mkdir()
    torch.save(objects(torch), tmp_path / "t" / "model.pt")
    torchlite.save(objects(torchlite), tmp_path / "l" / "model.pt")
    t, lite = (tmp_path / "t" / "model.pt").read_bytes(), (tmp_path / "l" / "model.pt").read_bytes()
    assert records(t) == records(lite)
    assert records(t)[0][0] == "model/data.pkl"
    names = [r[0] for r in records(t)]
    assert names[:4] == ["model/data.pkl", "model/.format_version", "model/.storage_alignment", "model/byteorder"]
    assert names[-2:] == ["model/version", "model/.data/serialization_id"]
    assert all(start % 64 == 0 for _, _, start, _ in records(lite))
    _, _, id_start, id_size = records(t)[-1]
    assert id_size == 40
    assert len(t) == len(lite)
    # the id's crc is in its data descriptor and in its central directory entry
    central = t.rindex(b"PK\x01\x02")  # the last central entry: the id's
    allowed = set(range(id_start, id_start + id_size)) | set(range(id_start + id_size + 4, id_start + id_size + 8)) \
        | set(range(central + 16, central + 20))
    differing = {i for i in range(len(t)) if t[i] != lite[i]}
    assert differing <= allowed
    lite_id = zipfile.ZipFile(io.BytesIO(lite)).read("model/.data/serialization_id")
    assert len(lite_id) == 40 and lite_id.isdigit()


def test_buffer_archive_name_and_records():
    data = saved(torchlite, {"a": torchlite.ones(2), "b": torchlite.zeros(3, dtype=torchlite.int64)})
    z = zipfile.ZipFile(io.BytesIO(data))
    assert z.namelist() == zipfile.ZipFile(io.BytesIO(saved(torch, {"a": torch.ones(2), "b": torch.zeros(
        3, dtype=torch.int64)}))).namelist()
    assert z.read("archive/byteorder") == sys.byteorder.encode()
    assert z.read("archive/.format_version") == b"1" and z.read("archive/.storage_alignment") == b"64"
    assert z.read("archive/version") == b"3\n"
    assert z.read("archive/data/0") == np.ones(2, np.float32).tobytes()
    # two saves differ only in their serialization ids
    assert saved(torchlite, torchlite.ones(1)) != saved(torchlite, torchlite.ones(1))


def test_whole_storage_is_written():
    """A view saves its base's whole storage, as torch (the offset locates it)."""
    def make(lib):
        return lib.arange(10.0)[3:5]
    for lib in (torch, torchlite):
        z = zipfile.ZipFile(io.BytesIO(saved(lib, make(lib))))
        assert z.read("archive/data/0") == np.arange(10, dtype=np.float32).tobytes()


def test_big_endian_file_is_byte_swapped():
    def swap(dtype):
        return lambda b: np.frombuffer(b, dtype).byteswap().tobytes()
    obj = {"f": torch.tensor([1.5, -2.0], dtype=torch.float64), "i": torch.tensor([1, 256], dtype=torch.int32),
           "h": torch.tensor([0.5], dtype=torch.float16), "b": torch.tensor([1, 2], dtype=torch.uint8)}
    data = rewrite(saved(torch, obj), replace={"data/0": swap(np.float64), "data/1": swap(np.int32),
                                               "data/2": swap(np.float16)}, byteorder=b"big")
    assert zipfile.ZipFile(io.BytesIO(data)).read("archive/byteorder") == b"big"
    assert describe(torchlite.load(io.BytesIO(data))) == describe(torch.load(io.BytesIO(data))) == \
        describe(torch.load(io.BytesIO(saved(torch, obj))))


# Files, map_location, arguments ------------------------------------------------------------------
def test_paths_and_file_objects(tmp_path):
    x = torchlite.arange(4.0)
    for target in (str(tmp_path / "a.pt"), tmp_path / "b.pt"):
        torchlite.save(x, target)
        assert torch.equal(torch.load(target), torch.arange(4.0))
        assert torchlite.load(target).tolist() == [0.0, 1.0, 2.0, 3.0]
        assert torchlite.load(pathlib.Path(target)).tolist() == [0.0, 1.0, 2.0, 3.0]
    with open(tmp_path / "c.pt", "wb") as fh:
        torchlite.save(x, fh)
    with open(tmp_path / "c.pt", "rb") as fh:
        assert torchlite.load(fh).tolist() == [0.0, 1.0, 2.0, 3.0]
    assert zipfile.ZipFile(tmp_path / "c.pt").namelist()[0] == "archive/data.pkl"
    assert zipfile.ZipFile(tmp_path / "b.pt").namelist()[0] == "b/data.pkl"


@pytest.mark.parametrize("name", ["x.y.pt", ".hidden", "noext", "\u00fc.pt"])
def test_archive_name_from_the_file_name(tmp_path, name):
    names = []
    for lib in (torch, torchlite):
        (tmp_path / lib.__name__).mkdir()
        try:
            lib.save(lib.ones(1), tmp_path / lib.__name__ / name)
        except RuntimeError as e:
            names.append(("raised", "invalid file name" in str(e)))
            continue
        names.append(zipfile.ZipFile(tmp_path / lib.__name__ / name).namelist())
    assert names[0] == names[1]
    assert (names[0] == ("raised", True)) == (name == ".hidden")


def test_bad_file_arguments():
    def case(lib):
        return lib.save(lib.ones(1), 3)
    assert run(case, torchlite) == run(case, torch)

    def no_parent(lib):
        return lib.save(lib.ones(1), "/nonexistent_torchlite_dir/x.pt")
    assert run(no_parent, torchlite) == run(no_parent, torch)
    assert run(no_parent, torchlite)[:2] == ("raised", "RuntimeError")

    class NoSeek(io.RawIOBase):
        def __init__(self, data):
            self.data = data

        def read(self, n=-1):
            return self.data

        def tell(self):
            raise io.UnsupportedOperation("seek")

    def unseekable(lib):
        return lib.load(NoSeek(saved(torch, torch.ones(1))))
    assert run(unseekable, torchlite) == run(unseekable, torch)


@pytest.mark.parametrize("map_location", [None, "cpu", "device_cpu", {"cpu": "cpu"}, "callable", "callable_none"])
def test_map_location_cpu(map_location):
    def case(lib):
        loc = map_location
        if loc == "device_cpu":
            loc = lib.device("cpu")
        elif loc == "callable":
            def loc(storage, location):
                assert location == "cpu"
                return storage
        elif loc == "callable_none":
            def loc(storage, location):
                return None
        return describe(lib.load(io.BytesIO(saved(torch, objects(torch))), map_location=loc))
    assert run(case, torchlite) == run(case, torch)


@pytest.mark.parametrize("map_location", ["sim:0", "device", {"cpu": "sim:0"}, "callable"])
def test_map_location_sim(map_location):
    loc = map_location
    if loc == "device":
        loc = torchlite.device("sim", 0)
    elif loc == "callable":
        def loc(storage, location):
            return storage.to("sim:0")
    base = torch.arange(6.0).reshape(2, 3)
    out = torchlite.load(io.BytesIO(saved(torch, {"b": base, "t": base.t()})), map_location=loc)
    assert all(str(v.device) == "sim:0" for v in out.values())
    assert storage_start(out["b"]) == storage_start(out["t"])
    assert out["t"].stride() == (1, 3) and out["t"].tolist() == base.t().tolist()


def test_sim_tensors_round_trip_on_sim():
    """A sim tensor is saved with location "sim:0": torchlite loads it there, torch with map_location."""
    x = torchlite.arange(4.0, device="sim:0")
    data = saved(torchlite, {"x": x, "v": x[1:]})
    out = torchlite.load(io.BytesIO(data))
    assert str(out["x"].device) == "sim:0" and str(out["v"].device) == "sim:0"
    assert storage_start(out["x"]) == storage_start(out["v"])
    assert torchlite.load(io.BytesIO(data), map_location="cpu")["x"].device.type == "cpu"
    assert torch.load(io.BytesIO(data), map_location="cpu")["v"].tolist() == [1.0, 2.0, 3.0]


def test_cuda_location_without_cuda():
    """A file whose storages were on cuda:0 needs map_location where there is no CUDA (torch's error)."""
    data = rewrite(saved(torch, torch.ones(2)),
                   replace={"data.pkl": lambda b: b.replace(b"X\x03\x00\x00\x00cpu", b"X\x06\x00\x00\x00cuda:0")})

    def case(lib):
        return lib.load(io.BytesIO(data))

    def mapped(lib):
        return lib.load(io.BytesIO(data), map_location="cpu")
    if not torchlite.cuda.is_available() and not torch.cuda.is_available():
        assert run(case, torchlite) == run(case, torch)
        assert run(case, torchlite)[0] == "raised"
    assert run(mapped, torchlite) == run(mapped, torch)


def test_unknown_location():
    data = rewrite(saved(torch, torch.ones(2)),
                   replace={"data.pkl": lambda b: b.replace(b"X\x03\x00\x00\x00cpu", b"X\x03\x00\x00\x00xyz")})
    with pytest.raises(RuntimeError, match="don't know how to restore data location"):
        torchlite.load(io.BytesIO(data))


def test_argument_errors_as_torch():
    data = saved(torch, torch.ones(1))

    def explicit_pickle_module(lib):
        return lib.load(io.BytesIO(data), pickle_module=pickle, weights_only=True)

    def mmap_buffer(lib):
        return lib.load(io.BytesIO(data), mmap=True)
    for case in (explicit_pickle_module, mmap_buffer):
        assert run(case, torchlite) == run(case, torch)
    # a pickle_module alone turns weights_only off, as torch
    assert torchlite.load(io.BytesIO(data), pickle_module=pickle).tolist() == [1.0]


def test_mmap_loads_torch_files(tmp_path):
    """mmap=True maps the storages (issue 14; tests/python/test_serialization_mmap.py compares it with torch)."""
    torch.save(torch.ones(1), tmp_path / "m.pt")
    assert torchlite.load(tmp_path / "m.pt", mmap=True).tolist() == [1.0]


def test_pickle_protocols():
    for protocol in (2, 3, 4, 5):
        data = saved(torchlite, {"x": torchlite.ones(2), "n": [1, "a"]}, pickle_protocol=protocol)
        for lib in (torch, torchlite):
            out = loaded(lib, data, weights_only=False)
            assert out["x"].tolist() == [1.0, 1.0] and out["n"] == [1, "a"]


# Legacy format -----------------------------------------------------------------------------------
@pytest.mark.parametrize("weights_only", [True, False])
def test_legacy_format_both_ways(weights_only):
    def make(lib):
        base = lib.arange(6.0).reshape(2, 3)
        return {"b": base, "t": base.t(), "i": lib.tensor([1, 2], dtype=lib.int16), "n": [1, None],
                "g": lib.ones(1, requires_grad=True)}
    for writer in (torch, torchlite):
        data = saved(writer, make(writer), _use_new_zipfile_serialization=False)
        assert not data.startswith(b"PK")
        out_lite = loaded(torchlite, data, weights_only=weights_only)
        assert describe(out_lite) == describe(loaded(torch, data, weights_only=weights_only))
        assert storage_start(out_lite["b"]) == storage_start(out_lite["t"])


def test_legacy_storage_larger_than_the_file():
    """A legacy pickle claiming more storage than the file holds is refused before allocating it."""
    data = saved(torch, torch.ones(4), _use_new_zipfile_serialization=False)
    crafted = data.replace(b"K\x04Nt", b"J\x00\x00\x00\x7fNt", 1)
    assert crafted != data
    with pytest.raises(RuntimeError, match="more than the file holds"):
        torchlite.load(io.BytesIO(crafted))


def test_legacy_truncated():
    data = saved(torch, torch.ones(4), _use_new_zipfile_serialization=False)
    for cut in (len(data) - 3, len(data) - 17, 40, 5):
        with pytest.raises((RuntimeError, EOFError, pickle.UnpicklingError)):
            torchlite.load(io.BytesIO(data[:cut]))


# Weights-only security ---------------------------------------------------------------------------
MARKER = "torchlite_serialization_marker"


class Evil:
    def __init__(self, fn, arg):
        self.fn, self.arg = fn, arg

    def __reduce__(self):
        return (self.fn, (self.arg,))


def evil_file(tmp_path, fn_name):
    """A torch.save file whose pickle would run fn_name(command) that creates a marker file."""
    marker = tmp_path / MARKER
    fn = {"os.system": os.system, "builtins.eval": eval, "builtins.exec": exec}[fn_name]
    arg = f"touch {marker}" if fn_name == "os.system" else f"open({str(marker)!r}, 'w').close()"
    return saved(torch, {"w": torch.ones(1), "x": Evil(fn, arg)}), marker


@pytest.mark.parametrize("fn_name", ["os.system", "builtins.eval", "builtins.exec"])
def test_weights_only_refuses_code(tmp_path, fn_name):
    data, marker = evil_file(tmp_path, fn_name)

    def case(lib):
        return lib.load(io.BytesIO(data))

    def explicit(lib):
        return lib.load(io.BytesIO(data), weights_only=True)
    for fn in (case, explicit):
        lite = run(fn, torchlite)
        assert lite == run(fn, torch)
        assert lite[:2] == ("raised", "UnpicklingError") and lite[2].startswith("Weights only load failed.")
        assert not marker.exists()
    with pytest.raises(pickle.UnpicklingError):
        torchlite.load(io.BytesIO(data))
    assert not marker.exists()


def test_weights_only_false_runs_what_the_user_trusts(tmp_path):
    data, marker = evil_file(tmp_path, "builtins.eval")
    out = torchlite.load(io.BytesIO(data), weights_only=False)
    assert marker.exists() and out["w"].tolist() == [1.0] and out["x"] is None


class Point:
    def __init__(self, x):
        self.x = x

    def __eq__(self, other):
        return isinstance(other, Point) and other.x == self.x

    def __repr__(self):
        return f"Point({self.x})"


def test_safe_globals():
    torch_safe_globals = torch.serialization.get_safe_globals()  # torch's own, restored after clear
    data = saved(torch, {"p": Point(3), "t": torch.ones(1)})

    def refused(lib):
        return lib.load(io.BytesIO(data))

    def in_context(lib):
        with lib.serialization.safe_globals([Point]):
            out = lib.load(io.BytesIO(data))
        return out["p"], out["t"], Point in lib.serialization.get_safe_globals()

    def added(lib):
        lib.serialization.add_safe_globals([Point])
        try:
            got = Point in lib.serialization.get_safe_globals()
            return lib.load(io.BytesIO(data))["p"], got
        finally:
            lib.serialization.clear_safe_globals()
            if lib is torch:
                lib.serialization.add_safe_globals(torch_safe_globals)

    for case in (refused, in_context, added):
        assert run(case, torchlite) == run(case, torch)
    assert run(refused, torchlite)[0] == "raised"
    assert torchlite.load(io.BytesIO(data), weights_only=False)["p"] == Point(3)


def test_unsafe_globals_in_checkpoint(tmp_path):
    data = saved(torch, {"p": Point(3), "o": collections.OrderedDict(), "t": torch.ones(1)})

    def case(lib):
        return lib.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(data))
    assert run(case, torchlite) == run(case, torch)


def test_unknown_reduce_and_persistent_ids_refused():
    """A hand-made pickle that calls an allowed class's constructor it may not, or a persistent
    id that is not a storage, is refused as torch refuses it."""
    good = saved(torch, torch.ones(1))
    cases = {
        # GLOBAL collections.OrderedDict then BUILD on a list
        "build_list": b"\x80\x02]q\x00}q\x01b.",
        "persistent_id": b"\x80\x02X\x06\x00\x00\x00moduleq\x00\x85q\x01Q.",
        "unsupported_op": b"\x80\x02cbuiltins\nprint\n.",
        "opcode_S": b"\x80\x02S'a'\n.",
    }
    for name, pkl in cases.items():
        data = rewrite(good, replace={"data.pkl": pkl})

        def case(lib, data=data):
            return lib.load(io.BytesIO(data))
        lite = run(case, torchlite)
        assert lite[0] == "raised", name
        assert lite == run(case, torch), name


# Damaged archives --------------------------------------------------------------------------------
def test_truncated_archives():
    data = saved(torchlite, {"a": torchlite.arange(100.0), "b": [1, 2]})
    for cut in list(range(0, len(data), max(1, len(data) // 40))) + [len(data) - 1, len(data) - 22]:
        with pytest.raises((RuntimeError, pickle.UnpicklingError, EOFError)):
            torchlite.load(io.BytesIO(data[:cut]))


def test_corrupted_archives():
    data = bytearray(saved(torchlite, {"a": torchlite.arange(100.0)}))
    start = [r for r in records(bytes(data)) if r[0] == "archive/data/0"][0][2]
    flipped = bytearray(data)
    flipped[start + 5] ^= 0xFF  # a storage byte: the record's crc no longer matches
    with pytest.raises(RuntimeError, match="PytorchStreamReader failed reading file data/0"):
        torchlite.load(io.BytesIO(bytes(flipped)))
    garbage = bytes(data[:4]) + b"\x00" * 200
    with pytest.raises(RuntimeError, match="PytorchStreamReader failed reading zip archive"):
        torchlite.load(io.BytesIO(garbage))
    with pytest.raises((RuntimeError, pickle.UnpicklingError)):
        torchlite.load(io.BytesIO(b"not a checkpoint at all"))


def test_zip_without_data_pkl():
    data = rewrite(saved(torch, torch.ones(1)), drop=("data.pkl",))

    def case(lib):
        return lib.load(io.BytesIO(data))
    assert run(case, torchlite) == run(case, torch)
    assert run(case, torchlite)[:2] == ("raised", "RuntimeError")


@pytest.mark.parametrize("size", [12, 0, 33])
def test_storage_record_of_another_size(size):
    """A storage record shorter (or longer) than the pickle claims: torch's RuntimeError."""
    data = rewrite(saved(torch, torch.arange(8.0)), replace={"data/0": lambda b: (b + b"\0")[:size]})

    def case(lib):
        return lib.load(io.BytesIO(data))
    assert run(case, torchlite) == run(case, torch)
    assert run(case, torchlite)[:2] == ("raised", "RuntimeError")


def test_tensor_beyond_its_storage():
    """A pickle whose tensor reaches past its storage is refused, not read out of bounds."""
    data = rewrite(saved(torch, torch.arange(4.0)),
                   replace={"data.pkl": lambda b: b.replace(b"K\x04\x85", b"K\x09\x85")})
    with pytest.raises(RuntimeError, match="out of bounds for storage"):
        torchlite.load(io.BytesIO(data))


def test_record_missing():
    data = rewrite(saved(torch, torch.ones(1)), drop=("data/0",))

    def case(lib):
        return lib.load(io.BytesIO(data))
    assert run(case, torchlite)[:2] == run(case, torch)[:2] == ("raised", "RuntimeError")


def test_tensor_with_python_attributes():
    """torch pickles a tensor with attributes through _rebuild_from_type_v2: they are restored."""
    t = torch.ones(2)
    t.foo = 3
    data = saved(torch, {"t": t})
    for lib in (torch, torchlite):
        out = lib.load(io.BytesIO(data))
        assert out["t"].foo == 3 and out["t"].tolist() == [1.0, 1.0]
