"""torch.serialization: torchlite.save and torchlite.load, in torch's own file format.

A file is what torch.save writes (torch/serialization.py over caffe2's PyTorchStreamWriter and
miniz): a zip archive whose records all sit under one folder, the archive name (the file's name
without its extension, or "archive" for a file-like object):

    <name>/data.pkl                the object, pickled (protocol 2) with torch's global names
    <name>/.format_version         "1"
    <name>/.storage_alignment      "64"
    <name>/byteorder               "little" (the writer's sys.byteorder)
    <name>/data/<key>              one record per storage, its raw bytes, keys "0", "1", ...
    <name>/version                 "3\\n"
    <name>/.data/serialization_id  40 digits, different for every file

Records are stored uncompressed, each followed by a data descriptor, and the data of every
record starts at a multiple of 64 bytes: the local header carries an extra field "FB" padded with
"Z" up to the alignment (PyTorchStreamWriter::writeRecord, Note [Storage alignment] below).

Note [Serialized storage sharing]
A tensor pickles as `torch._utils._rebuild_tensor_v2(storage, storage_offset, size, stride,
requires_grad, OrderedDict())`, its storage as a persistent id `("storage", torch.FloatStorage,
key, location, numel)`: tensors over one storage (views of one base) name one key, and loading
rebuilds them over one storage again, at their offsets and strides. torchlite's storage is the
C++ StorageImpl under a tensor's numpy array; saving finds it from the tensor's data pointer,
storage offset and storage size, loading allocates one per key (_C._empty_array) and makes each
tensor an ndarray over that allocation, which _C._wrap recognises as the same storage.

Loading with weights_only=True (the default, as torch 2.6+) reads data.pkl with
torchlite._weights_only_unpickler, which resolves only torch's allowlisted globals (to torchlite's
objects) and what add_safe_globals / safe_globals allow: a crafted pickle naming os.system or
builtins.eval is refused before anything runs. weights_only=False unpickles anything (the user
trusts the file). Files in torch's legacy format (_use_new_zipfile_serialization=False) are read
and written too.
"""
import builtins
import io
import mmap as mmap_module
import os
import pickle
import random
import re
import struct
import sys
import warnings
import zipfile
import zlib
from collections import OrderedDict
from typing import Any

import numpy as np

from . import _backend, _dtypes, _tensor, _utils, cuda
from . import _weights_only_unpickler
from ._C import _wrap
from ._ops.TensorGeometry import _data_ptr
from ._dtypes import Size, device, dtype
from ._utils import _new_storage, _Storage, _StorageType, _STORAGE_NAMES

__all__ = ["save", "load", "add_safe_globals", "get_safe_globals", "clear_safe_globals", "safe_globals",
           "get_unsafe_globals_in_checkpoint", "DEFAULT_PROTOCOL", "set_default_mmap_options",
           "get_default_mmap_options"]

DEFAULT_PROTOCOL = 2

# load(mmap=True)'s flags (torch.utils.serialization.config.load.mmap_flags): MAP_PRIVATE by default
_MAP_PRIVATE, _MAP_SHARED = getattr(mmap_module, "MAP_PRIVATE", 2), getattr(mmap_module, "MAP_SHARED", 1)
_MMAP_FLAGS = [_MAP_PRIVATE]


class set_default_mmap_options:  # noqa: N801 - torch's name
    """torch.serialization.set_default_mmap_options: the flags load(mmap=True) maps a file with
    (mmap.MAP_PRIVATE, its default: writes to the loaded tensors stay in memory; or mmap.MAP_SHARED:
    they reach the file), for good as a call or until the end of its `with` block."""

    def __init__(self, flags: int) -> None:
        if flags != _MAP_PRIVATE and flags != _MAP_SHARED:
            raise ValueError("Invalid argument in function set_default_mmap_options, expected mmap.MAP_PRIVATE or "
                             f"mmap.MAP_SHARED, but got {flags}")
        self.prev = _MMAP_FLAGS[0]
        _MMAP_FLAGS[0] = flags

    def __enter__(self) -> None:
        pass

    def __exit__(self, exc_type: Any, exc_value: Any, traceback: Any) -> None:
        _MMAP_FLAGS[0] = self.prev


def get_default_mmap_options() -> int:
    """torch.serialization.get_default_mmap_options: load(mmap=True)'s flags (mmap.MAP_PRIVATE by default)."""
    return _MMAP_FLAGS[0]


def _C_wrap_array(a):  # noqa: N802
    """An array over `a`'s memory that holds a C++ storage of its own (a storage's array)."""
    return _wrap(a)._array
# the legacy format's header (torch/serialization.py)
MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
PROTOCOL_VERSION = 1001
_STORAGE_ALIGNMENT = 64
_ZIP64_LIMIT = 0xFFFFFFFF

UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` "
    "from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will likely succeed, "
    "but it can result in arbitrary code execution. Do it only if you got the file from a "
    "trusted source."
)


# The allowlist of the weights-only unpickler -------------------------------------------------------
def clear_safe_globals() -> None:
    """Clears the list of globals that are safe for weights_only load."""
    _weights_only_unpickler._clear_safe_globals()


def get_safe_globals() -> list:
    """The user-added globals that are safe for weights_only load."""
    return _weights_only_unpickler._get_safe_globals()


def add_safe_globals(safe_globals: list) -> None:
    """Marks these globals (functions or classes, or (object, "full.name") pairs) as safe for
    weights_only load."""
    _weights_only_unpickler._add_safe_globals(safe_globals)


class safe_globals(_weights_only_unpickler._safe_globals):
    """A context manager that adds these globals as safe for weights_only load inside it."""


def get_unsafe_globals_in_checkpoint(f) -> list:
    """The "module.name" of every global in the checkpoint's pickle that weights_only would refuse
    (read without running anything)."""
    wo = _weights_only_unpickler
    safe = set(wo._get_allowed_globals()) | set(wo._get_user_allowed_globals())
    safe.add("torch.nn.parameter.Parameter")
    with _open_file_like(f, "rb") as opened_file:
        if not _is_zipfile(opened_file):
            raise ValueError("Expected input to be a checkpoint returned by torch.save")
        reader = _ZipReader(opened_file)
        data = io.BytesIO(reader.get_record("data.pkl"))
        all_globals = _weights_only_unpickler.get_globals_in_pkl(data)
    return sorted(all_globals - safe)


# Files ---------------------------------------------------------------------------------------------
def _is_path(name_or_buffer) -> bool:
    return isinstance(name_or_buffer, (str, os.PathLike))


class _opener:
    def __init__(self, file_like):
        self.file_like = file_like

    def __enter__(self):
        return self.file_like

    def __exit__(self, *args):
        pass


class _open_file(_opener):
    def __init__(self, name, mode):
        super().__init__(open(name, mode))  # noqa: SIM115 - closed by __exit__

    def __exit__(self, *args):
        self.file_like.close()


class _open_buffer_reader(_opener):
    def __init__(self, buffer):
        super().__init__(buffer)
        _check_seekable(buffer)


class _open_buffer_writer(_opener):
    def __exit__(self, *args):
        self.file_like.flush()


def _open_file_like(name_or_buffer, mode):
    if _is_path(name_or_buffer):
        return _open_file(name_or_buffer, mode)
    if "w" in mode:
        return _open_buffer_writer(name_or_buffer)
    if "r" in mode:
        return _open_buffer_reader(name_or_buffer)
    raise RuntimeError(f"Expected 'r' or 'w' in mode but got {mode}")


def _check_seekable(f) -> bool:
    """torch's check: load needs seek and tell."""
    try:
        f.seek(f.tell())
        return True
    except (io.UnsupportedOperation, AttributeError) as e:
        for p in ("seek", "tell"):
            if p in str(e):
                raise type(e)(str(e) + ". You can only torch.load from a file that is seekable."
                              " Please pre-load the data into a buffer like io.BytesIO and"
                              " try to load from it instead.") from None
        raise


def _check_save_filelike(f):
    if not _is_path(f) and not hasattr(f, "write"):
        raise AttributeError("expected 'f' to be string, path, or a file-like object with a 'write' attribute")


def _is_zipfile(f) -> bool:
    """Whether f starts with a zip local header (torch's check: stricter than zipfile's)."""
    start = f.tell()
    magic = f.read(4)
    f.seek(start)
    return magic == b"PK\x03\x04"


# Note [Storage alignment]
# PyTorchStreamWriter (caffe2/serialize/inline_container.cc) writes each record through miniz
# with a local-header extra field of id "FB" whose payload is "Z" padding, so the record's data
# starts at a multiple of the alignment (64): mmap'd and directly-read storages are aligned.
# Every field miniz leaves zero stays zero here (version, time, date, attributes); a record with
# data has general-purpose flags 0x0808 (a data descriptor with its crc and sizes follows the
# data; names are UTF-8) and an empty one 0x0800 without a descriptor. The central directory is
# followed by a zip64 end record and locator, then the classic end record, as miniz writes them
# for torch's archives.
class _ZipWriter:
    """torch's PyTorchStreamWriter over a binary file object."""

    def __init__(self, file, archive_name, alignment=_STORAGE_ALIGNMENT):
        self._file = file
        self._prefix = archive_name + "/"
        self._alignment = alignment
        self._pos = 0
        self._entries: list = []  # (name bytes, header offset, crc, size)
        self._written: set = set()
        self._combined_crc = 0

    def _write(self, data):
        self._file.write(data)
        self._pos += len(data)

    def write_record(self, name, data):
        if name in self._written:
            raise RuntimeError(f"Tried to serialize file twice: {name}")
        self._written.add(name)
        data = memoryview(data).cast("B") if not isinstance(data, bytes) else data
        size = len(data)
        if self._pos + size + 1024 >= _ZIP64_LIMIT:
            raise RuntimeError("torchlite.save: archives of 4 GiB or more (zip64 records) are not supported")
        full_name = (self._prefix + name).encode("utf-8")
        header_offset = self._pos
        data_start = header_offset + 30 + len(full_name)
        padding = (self._alignment - (data_start + 4) % self._alignment) % self._alignment
        extra = b"FB" + struct.pack("<H", padding) + b"Z" * padding
        crc = zlib.crc32(data) if size else 0
        flags = 0x0808 if size else 0x0800
        self._write(struct.pack("<IHHHHHIIIHH", 0x04034B50, 0, flags, 0, 0, 0, 0, 0, 0, len(full_name), len(extra)))
        self._write(full_name)
        self._write(extra)
        if size:
            self._write(data)
            self._write(struct.pack("<IIII", 0x08074B50, crc, size, size))
        self._entries.append((full_name, header_offset, crc, size, flags))
        self._combined_crc = zlib.crc32(struct.pack("<I", crc), self._combined_crc)

    def write_end_of_file(self):
        # version and serialization id last, as PyTorchStreamWriter::writeEndOfFile
        self.write_record("version", b"3\n")
        # 40 digits: torch makes them from the records' crcs and a random number; the id only has
        # to differ between files (loaders log it, nothing checks it)
        serialization_id = f"{self._combined_crc:020d}{random.getrandbits(64):020d}"[:40]
        self.write_record(".data/serialization_id", serialization_id.encode("ascii"))
        cd_offset = self._pos
        for full_name, header_offset, crc, size, flags in self._entries:
            self._write(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 0, 0, flags, 0, 0, 0, crc, size, size,
                                    len(full_name), 0, 0, 0, 0, 0, header_offset))
            self._write(full_name)
        cd_size = self._pos - cd_offset
        n = len(self._entries)
        zip64_end = self._pos
        self._write(struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 0x031E, 45, 0, 0, n, n, cd_size, cd_offset))
        self._write(struct.pack("<IIQI", 0x07064B50, 0, zip64_end, 1))
        self._write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, n, n, cd_size, cd_offset, 0))


class _ZipReader:
    """torch's PyTorchStreamReader: the records of one archive folder, by name."""

    def __init__(self, file):
        try:
            self._zip = zipfile.ZipFile(file)
            names = self._zip.namelist()
        except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, ValueError, struct.error) as e:
            raise RuntimeError(f"PytorchStreamReader failed reading zip archive: failed finding central directory "
                               f"({e})") from None
        if not names:
            raise RuntimeError("PytorchStreamReader failed reading zip archive: not a torch.save archive (no records)")
        first = names[0]
        if "/" not in first:
            raise RuntimeError(f"file in archive is not in a subdirectory: {first}")
        self._prefix = first[:first.index("/") + 1]
        self._records = {}
        for n in names:
            if not n.startswith(self._prefix):
                raise RuntimeError(f"file in archive is not in a subdirectory {self._prefix}: {n}")
            self._records[n[len(self._prefix):]] = n

    def has_record(self, name):
        return name in self._records

    def get_all_records(self):
        return list(self._records)

    def record_offset(self, name):
        """Where a record's bytes start in the file (torch's getRecordOffset): after its local header,
        its name and its extra field (the records are stored, not compressed)."""
        info = self._zip.getinfo(self._records[name])
        if info.compress_type != zipfile.ZIP_STORED:
            raise RuntimeError(f"PytorchStreamReader: record {name} is compressed; mmap needs stored records")
        fp = self._zip.fp
        fp.seek(info.header_offset)
        header = fp.read(30)
        name_len, extra_len = struct.unpack("<HH", header[26:30])
        return info.header_offset + 30 + name_len + extra_len

    def get_record(self, name):
        if name not in self._records:
            raise RuntimeError(f"PytorchStreamReader failed locating file {name}: file not found. This is an internal "
                               "miniz error. If you are seeing this error, there is a high likelihood that your "
                               "checkpoint file is corrupted. This can happen if the checkpoint was not saved "
                               "properly, was transferred incorrectly, or the file was modified after saving.")
        try:
            return self._zip.read(self._records[name])
        except (zipfile.BadZipFile, EOFError, OSError, ValueError, struct.error, zlib.error,
                NotImplementedError) as e:
            raise RuntimeError(f"PytorchStreamReader failed reading file {name}: {e}") from None


def _archive_name(f):
    """The folder of the records: the file's name without its extension, "archive" for a buffer
    (and for a name that is not ASCII, which torch writes through a Python file object)."""
    if _is_path(f):
        name = os.fspath(f)
        if isinstance(name, bytes):
            name = name.decode()
        try:
            name.encode("ascii")
        except UnicodeEncodeError:
            return "archive"
        base = os.path.basename(name)
        dot = base.rfind(".")
        return base[:dot] if dot >= 0 else base
    return "archive"


# Saving ------------------------------------------------------------------------------------------
class _Global:
    """A global the pickle names as torch does (`torch._utils _rebuild_tensor_v2`, `torch
    FloatStorage`, ...): written as a GLOBAL opcode whether or not torch is installed."""

    __slots__ = ("module", "name")

    def __init__(self, module, name):
        self.module = module
        self.name = name

    def __call__(self, *args):
        raise RuntimeError(f"{self.module}.{self.name} is a name for the pickle only")

    @property
    def __name__(self):
        return self.name


_REBUILD_TENSOR_V2 = _Global("torch._utils", "_rebuild_tensor_v2")
_REBUILD_PARAMETER = _Global("torch._utils", "_rebuild_parameter")
_TORCH_DEVICE = _Global("torch", "device")
_TORCH_SIZE = _Global("torch", "Size")
_STORAGE_GLOBALS = {name: _Global("torch", storage) for name, storage in _STORAGE_NAMES.items()}
_DTYPE_GLOBALS: dict = {}


class _StorageRef:
    """A tensor's storage while pickling: the persistent id torch writes for it."""

    __slots__ = ("tensor",)

    def __init__(self, tensor):
        self.tensor = tensor


def _is_parameter(t):
    cls = type(t)
    return cls.__name__ == "Parameter" and cls.__module__.startswith("torchlite.nn")


def _storage_of(t):
    """(data pointer of t's storage, its size in bytes) from t's own geometry."""
    itemsize = t.dtype.itemsize
    nbytes = t._storage_nbytes()
    base = _data_ptr(t._array) - t.storage_offset() * itemsize  # (data_ptr() is 0 where t is empty)
    return base, nbytes


def _location_tag(dev):
    return "cpu" if dev.type == "cpu" else f"{dev.type}:{dev.index if dev.index is not None else 0}"


def _storage_bytes(t, nbytes):
    """A uint8 array over all of t's storage (host memory), or its copy from a cuda device."""
    itemsize = t.dtype.itemsize
    base_ptr = _data_ptr(t._array) - t.storage_offset() * itemsize
    if t.device.type == "cuda":
        cp = _backend.cupy
        mem = cp.cuda.UnownedMemory(base_ptr, nbytes, t, device_id=t.device.index or 0)
        return cp.ndarray((nbytes,), cp.uint8, cp.cuda.MemoryPointer(mem, 0)).get()

    class _Bytes:
        pass
    holder = _Bytes()
    holder.__array_interface__ = {"version": 3, "shape": (nbytes,), "typestr": "|u1",
                                  "data": (base_ptr if nbytes else 0, True)}
    holder.tensor = t  # keeps the memory alive while the array lives
    return np.asarray(holder) if nbytes else np.zeros(0, np.uint8)


class _Saver:
    """The persistent ids and records of one save (torch/serialization.py's _save)."""

    def __init__(self):
        self.id_map: dict = {}  # storage identity -> key
        self.storages: dict = {}  # key -> (tensor, nbytes)
        self.storage_dtypes: dict = {}  # data pointer -> dtype
        self._locations: dict = {}

    def persistent_id(self, obj):
        if not isinstance(obj, _StorageRef):
            return None
        t = obj.tensor
        d = t.dtype
        base, nbytes = _storage_of(t)
        if base != 0 and nbytes:
            if base in self.storage_dtypes:
                if self.storage_dtypes[base] is not d:
                    raise RuntimeError("Cannot save multiple tensors or storages that view the same data as "
                                       "different types")
            else:
                self.storage_dtypes[base] = d
        # an empty storage has no memory to tell it by: each is its own, as torch's StorageImpls
        identity = (str(t.device), base, nbytes) if nbytes else ("empty", id(t))
        if identity not in self.id_map:
            self.id_map[identity] = str(len(self.id_map))
        key = self.id_map[identity]
        self.storages.setdefault(key, (t, nbytes))
        location = self._locations.setdefault(_location_tag(t.device), _location_tag(t.device))
        return ("storage", _STORAGE_GLOBALS[d._name], key, location, nbytes // d.itemsize)

    def reduce(self, obj):
        """The reduction of a torchlite object into torch's names, or NotImplemented."""
        if isinstance(obj, _tensor.Tensor):
            if _is_parameter(obj):
                return (_REBUILD_PARAMETER, (obj.detach(), obj.requires_grad, OrderedDict()))
            return (_REBUILD_TENSOR_V2, (_StorageRef(obj), obj.storage_offset(), tuple(obj.shape),
                                         tuple(obj.stride()), obj.requires_grad, OrderedDict()))
        if isinstance(obj, device):
            # a string of its own (torch's device type is not the location tag's object, so the
            # pickle memoizes them apart)
            kind = "".join(list(obj.type))
            return (_TORCH_DEVICE, (kind,) if obj.index is None else (kind, obj.index))
        if isinstance(obj, Size):
            return (_TORCH_SIZE, (tuple(obj),))
        return NotImplemented


def _dtype_global(d):
    if d._name not in _DTYPE_GLOBALS:
        _DTYPE_GLOBALS[d._name] = _Global("torch", d._name)
    return _DTYPE_GLOBALS[d._name]


def _make_pickler(pickle_module, saver):
    """A pickler of pickle_module that writes torchlite's objects under torch's names. It is the
    pure-Python pickler (pickle._Pickler, or the module's own where it is one), whose dispatch
    table can write a GLOBAL for a name that need not import."""
    base = getattr(pickle_module, "_Pickler", None) or pickle_module.Pickler
    if not hasattr(base, "dispatch") or not hasattr(base, "save_reduce"):
        base = pickle._Pickler

    class TorchlitePickler(base):
        dispatch = dict(base.dispatch)

        def save_torch_global(self, obj):
            self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode("utf-8"))
            self.memoize(obj)

        dispatch[_Global] = save_torch_global

        def save_dtype(self, obj):
            self.save(_dtype_global(obj))

        dispatch[dtype] = save_dtype

        def persistent_id(self, obj):
            return saver.persistent_id(obj)

        def reducer_override(self, obj):
            return saver.reduce(obj)

    return TorchlitePickler


def save(obj: object, f, pickle_module: Any = pickle, pickle_protocol: int = DEFAULT_PROTOCOL,
         _use_new_zipfile_serialization: bool = True, _disable_byteorder_record: bool = False) -> None:
    """Saves an object to a file (a path, a pathlib.Path or a file-like object with write and
    flush), in torch's format: torch.load reads it, and so does torchlite.load."""
    _check_save_filelike(f)
    if isinstance(f, (str, os.PathLike)):
        f = os.fspath(f)
    if _use_new_zipfile_serialization:
        if _is_path(f):
            parent = os.path.dirname(f)
            if parent and not os.path.isdir(parent):  # PyTorchStreamWriter's check, in its words
                raise RuntimeError(f"Parent directory {parent} does not exist.")
            if not _archive_name(f):  # ".pt": no archive name (PyTorchStreamWriter refuses it)
                raise RuntimeError(f"invalid file name: {f}")
        with _open_file_like(f, "wb") as opened_file:
            writer = _ZipWriter(opened_file, _archive_name(f))
            _save(obj, writer, pickle_module, pickle_protocol, _disable_byteorder_record)
            writer.write_end_of_file()
    else:
        with _open_file_like(f, "wb") as opened_file:
            _legacy_save(obj, opened_file, pickle_module, pickle_protocol)


def _save(obj, zip_file, pickle_module, pickle_protocol, _disable_byteorder_record):
    saver = _Saver()
    data_buf = io.BytesIO()
    pickler = _make_pickler(pickle_module, saver)(data_buf, protocol=pickle_protocol)
    pickler.dump(obj)
    zip_file.write_record("data.pkl", data_buf.getvalue())
    # .format_version 1: storages are ordered by their numeric keys
    zip_file.write_record(".format_version", b"1")
    zip_file.write_record(".storage_alignment", str(_STORAGE_ALIGNMENT).encode())
    if not _disable_byteorder_record:
        zip_file.write_record("byteorder", sys.byteorder.encode())
    for key, (t, nbytes) in saver.storages.items():
        zip_file.write_record(f"data/{key}", _storage_bytes(t, nbytes))


def _legacy_save(obj, f, pickle_module, pickle_protocol):
    """torch's pre-1.6 format: magic number, protocol version, sys info, the pickle (storages as
    persistent ids with a view field), the sorted storage keys, then each storage as an int64
    element count and its bytes."""
    saver = _Saver()
    legacy_id = saver.persistent_id

    def persistent_id(obj):
        pid = legacy_id(obj)
        return None if pid is None else (*pid, None)

    sys_info = {"protocol_version": PROTOCOL_VERSION, "little_endian": sys.byteorder == "little",
                "type_sizes": {"short": 2, "int": 4, "long": 4}}
    pickle_module.dump(MAGIC_NUMBER, f, protocol=pickle_protocol)
    pickle_module.dump(PROTOCOL_VERSION, f, protocol=pickle_protocol)
    pickle_module.dump(sys_info, f, protocol=pickle_protocol)
    pickler = _make_pickler(pickle_module, saver)(f, protocol=pickle_protocol)
    pickler.persistent_id = persistent_id
    pickler.dump(obj)
    keys = sorted(saver.storages)
    pickle_module.dump(keys, f, protocol=pickle_protocol)
    f.flush()
    for key in keys:
        t, nbytes = saver.storages[key]
        f.write(struct.pack("<q", nbytes // t.dtype.itemsize))
        f.write(_storage_bytes(t, nbytes).tobytes())


# Loading -----------------------------------------------------------------------------------------
def _device_of_location(location):
    """The device a location tag names, with torch's errors for what cannot be restored."""
    if not isinstance(location, str):
        raise RuntimeError(f"don't know how to restore data location of torch.storage.UntypedStorage "
                           f"(tagged with {location})")
    try:
        dev = device(location)
    except (RuntimeError, ValueError):
        raise RuntimeError(f"don't know how to restore data location of torch.storage.UntypedStorage "
                           f"(tagged with {location})") from None
    if dev.type == "cuda":
        if not cuda.is_available():
            raise RuntimeError("Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is "
                               "False. If you are running on a CPU-only machine, please use torch.load with "
                               "map_location=torch.device('cpu') to map your storages to the CPU.")
        index = dev.index or 0
        if index >= cuda.device_count():
            raise RuntimeError(f"Attempting to deserialize object on CUDA device {index} but "
                               f"torch.cuda.device_count() is {cuda.device_count()}. Please use torch.load with "
                               "map_location to map your storages to an existing device.")
        return device("cuda", index)
    if dev.type == "sim":
        return device("sim", dev.index or 0)
    return device("cpu")


def _default_restore_location(storage, location):
    """`storage` moved to the device its location tag names."""
    return storage.to(_device_of_location(location))


def _get_restore_location(map_location):
    """(storage, location) -> storage, as torch's _get_restore_location; a second function gives
    the target device where no callable is involved, so a storage is made there directly."""
    if map_location is None:
        return None, _device_of_location
    if isinstance(map_location, dict):
        return None, lambda location: _device_of_location(map_location.get(location, location))
    if isinstance(map_location, bytes):
        map_location = map_location.decode()
    if isinstance(map_location, str):
        return None, lambda location: _device_of_location(map_location)
    if isinstance(map_location, device):
        return None, lambda location: _device_of_location(str(map_location))

    def restore_location(storage, location):
        result = map_location(storage, location)
        if result is None:
            result = _default_restore_location(storage, location)
        return result
    return restore_location, None


def _decode_ascii(value):
    return value.decode("ascii") if isinstance(value, bytes) else value


def _mmap_storage(path, zip_file, name, nbytes, dt):
    """A cpu storage over the record's bytes in the file, memory-mapped (numpy.memmap): private
    (copy-on-write, writes stay in memory) under MAP_PRIVATE, torch's default, shared (written to the
    file) under MAP_SHARED (set_default_mmap_options)."""
    mode = "r+" if _MMAP_FLAGS[0] == _MAP_SHARED else "c"
    if nbytes == 0:
        return _new_storage(b"", dt, device("cpu"))
    mapped = np.memmap(path, dtype=np.uint8, mode=mode, offset=zip_file.record_offset(name), shape=(nbytes,))
    return _Storage(_C_wrap_array(mapped.view(dt._np)), dt, device("cpu"))


def _load(zip_file, map_location, pickle_module, pickle_file="data.pkl", mmap_path=None, **pickle_load_args):
    restore_location, target_device = _get_restore_location(map_location)
    loaded_storages: dict = {}
    byteorderdata = b"little"
    if zip_file.has_record("byteorder"):
        byteorderdata = zip_file.get_record("byteorder")
        if byteorderdata not in (b"little", b"big"):
            raise ValueError("Unknown endianness type: " + byteorderdata.decode(errors="replace"))

    def load_tensor(dt, nbytes, key, location):
        name = f"data/{key}"
        if mmap_path is not None and byteorderdata.decode() == sys.byteorder:
            # mmap=True: the storage maps the file, then moves where map_location says (a copy off the cpu)
            storage = _mmap_storage(mmap_path, zip_file, name, nbytes, dt)
            if restore_location is not None:
                storage = restore_location(storage, location)
                if not isinstance(storage, _Storage):
                    raise RuntimeError(f"map_location should return a storage or None, got {type(storage).__name__}")
            elif target_device(location) != storage.device:
                storage = storage.to(target_device(location))
            loaded_storages[key] = storage
            return storage
        data = zip_file.get_record(name)
        if len(data) != nbytes:  # torch's check (get_storage_from_record), in its words
            raise RuntimeError(f"record size ({len(data)} bytes) does not match expected size ({nbytes} bytes = "
                               f"{nbytes} elements * 1 bytes/element) for dtype Byte")
        swap = byteorderdata.decode() != sys.byteorder and dt.itemsize > 1
        if swap:
            data = np.frombuffer(data, dtype=dt._np).byteswap().view(np.uint8)
        if restore_location is None:
            storage = _new_storage(data, dt, target_device(location))
        else:
            storage = restore_location(_new_storage(data, dt, device("cpu")), location)
            if not isinstance(storage, _Storage):
                raise RuntimeError(f"map_location should return a storage or None, got {type(storage).__name__}")
        loaded_storages[key] = storage
        return storage

    def persistent_load(saved_id):
        if not isinstance(saved_id, tuple) or len(saved_id) != 5:
            raise pickle.UnpicklingError(f"invalid storage id in the checkpoint: {saved_id!r}")
        typename = _decode_ascii(saved_id[0])
        if typename != "storage":
            raise RuntimeError(f"Unknown typename for persistent_load, expected 'storage' but got '{typename}'")
        storage_type, key, location, numel = saved_id[1:]
        if not isinstance(storage_type, _StorageType):
            raise pickle.UnpicklingError(f"invalid storage type in the checkpoint: {storage_type!r}")
        if not isinstance(key, str) or not isinstance(numel, int) or numel < 0:
            raise pickle.UnpicklingError(f"invalid storage id in the checkpoint: {saved_id!r}")
        if key in loaded_storages:
            return loaded_storages[key]
        return load_tensor(storage_type.dtype, numel * storage_type.dtype.itemsize, key, _decode_ascii(location))

    data_file = io.BytesIO(zip_file.get_record(pickle_file))
    if pickle_module is _weights_only_unpickler:
        unpickler = _weights_only_unpickler.Unpickler(data_file, **pickle_load_args)
    else:
        unpickler = _unpickler_class(pickle_module)(data_file, **pickle_load_args)
    unpickler.persistent_load = persistent_load
    return unpickler.load()


# what torch's names resolve to when unpickling without weights_only (the rest import as usual)
def _torch_names():
    names = {("torch._utils", fn): getattr(_utils, fn) for fn in (
        "_rebuild_tensor", "_rebuild_tensor_v2", "_rebuild_parameter", "_rebuild_parameter_with_state")}
    names[("torch._tensor", "_rebuild_from_type_v2")] = _utils._rebuild_from_type_v2
    names[("torch", "device")] = device
    names[("torch", "Size")] = Size
    names[("torch", "Tensor")] = _tensor.Tensor
    names[("torch._tensor", "Tensor")] = _tensor.Tensor
    names[("torch.tensor", "Tensor")] = _tensor.Tensor
    return names


def _unpickler_class(pickle_module):
    torch_names = _torch_names()

    class UnpicklerWrapper(pickle_module.Unpickler):
        def find_class(self, mod_name, name):
            if type(name) is str and "Storage" in name and mod_name == "torch":
                try:
                    return _StorageType(name)
                except KeyError:
                    pass
            if (mod_name, name) in torch_names:
                return torch_names[(mod_name, name)]
            if mod_name == "torch.nn.parameter" and name == "Parameter":
                cls = _utils._parameter_class()
                if cls is not None:
                    return cls
            if mod_name == "torch":
                for d in _dtypes._ALL:
                    if d._name == name:
                        return d
            if mod_name == "torch" or mod_name.startswith("torch."):
                # torch's other names, where torchlite has them under its own (torch.nn.Linear, ...)
                try:
                    return super().find_class("torchlite" + mod_name[len("torch"):], name)
                except (ImportError, AttributeError):
                    pass
            return super().find_class(mod_name, name)

    return UnpicklerWrapper


def _get_wo_message(message: str) -> str:
    """torch's message for a weights-only load that failed."""
    docs = ("\n\nCheck the documentation of torch.load to learn more about types accepted by default with "
            "weights_only https://pytorch.org/docs/stable/generated/torch.load.html.")
    has_unsafe_global = re.search(r"GLOBAL (\S+) was not an allowed global by default.", message) is not None
    has_blocklist = re.search(r"whose module (\S+) is blocked", message) is not None
    has_import = re.search(r"(\S+) must be (\S+) to load", message) is not None
    if has_unsafe_global:
        updated_message = (
            "Weights only load failed. This file can still be loaded, to do so you have two options, "
            "\033[1mdo those steps only if you trust the source of the checkpoint\033[0m. "
            f"\n\t(1) {UNSAFE_MESSAGE}\n\t(2) Alternatively, to load with `weights_only=True` please check "
            "the recommended steps in the following error message.\n\tWeightsUnpickler error: " + message)
    else:
        if has_import:
            return f"Weights only load failed. {message}\n {UNSAFE_MESSAGE}\n"
        updated_message = f"Weights only load failed. {UNSAFE_MESSAGE}\n"
        if not has_blocklist:
            updated_message += ("Please file an issue with the following so that we can make "
                                "`weights_only=True` compatible with your use case: WeightsUnpickler error: ")
        updated_message += "\n\n" + message
    return updated_message + docs


def load(f, map_location=None, pickle_module: Any = None, *, weights_only: builtins.bool | None = None,
         mmap: builtins.bool | None = None, **pickle_load_args: Any) -> Any:
    """Loads an object saved with torch.save or torchlite.save from a file (a path or a seekable
    file-like object). map_location: None (where each storage was saved), a device or its string
    ("cpu", "sim:0"), a dict from saved locations to locations, or a callable (storage, location)
    -> storage or None. weights_only (default True, as torch 2.6+): only tensors, containers and
    allowlisted globals are rebuilt."""
    weights_only_not_set = weights_only is None
    if weights_only_not_set:
        weights_only = pickle_module is None
    true_values = ["1", "y", "yes", "true"]
    force_weights_only_load = os.getenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "0").lower() in true_values
    force_no_weights_only_load = os.getenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "0").lower() in true_values
    if force_weights_only_load and force_no_weights_only_load:
        raise RuntimeError("Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD` or `TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD` "
                           "should be set, but both were set.")
    if force_weights_only_load:
        weights_only = True
    elif force_no_weights_only_load and weights_only_not_set:
        warnings.warn("Environment variable TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD detected, since the"
                      "`weights_only` argument was not explicitly passed to `torch.load`, forcing "
                      "weights_only=False.", UserWarning, stacklevel=2)
        weights_only = False
    if weights_only:
        if pickle_module is not None:
            raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    elif pickle_module is None:
        pickle_module = pickle
    if pickle_load_args != {} and weights_only:
        warnings.warn("pickle_load_args only works if `weights_only=False`.", stacklevel=2)
    if "encoding" not in pickle_load_args:
        pickle_load_args["encoding"] = "utf-8"
    if mmap and not _is_path(f):
        raise ValueError("f must be a file path in order to use the mmap argument")

    with _open_file_like(f, "rb") as opened_file:
        if _is_zipfile(opened_file):
            zip_file = _ZipReader(opened_file)
            if zip_file.has_record("constants.pkl"):
                raise RuntimeError("torchlite.load: this is a TorchScript archive (torch.jit.save), which torchlite "
                                   "cannot load")
            mmap_path = os.fspath(f) if mmap else None
            if weights_only:
                try:
                    return _load(zip_file, map_location, _weights_only_unpickler, mmap_path=mmap_path,
                                 **pickle_load_args)
                except pickle.UnpicklingError as e:
                    raise pickle.UnpicklingError(_get_wo_message(str(e))) from None
            return _load(zip_file, map_location, pickle_module, mmap_path=mmap_path, **pickle_load_args)
        if mmap:
            f_name = "" if not isinstance(f, str) else f"{f}, "
            raise RuntimeError("mmap can only be used with files saved with "
                               f"`torch.save({f_name}_use_new_zipfile_serialization=True), "
                               "please torch.save your checkpoint with this option in order to use mmap.")
        if weights_only:
            try:
                return _legacy_load(opened_file, map_location, _weights_only_unpickler, **pickle_load_args)
            except pickle.UnpicklingError as e:
                raise pickle.UnpicklingError(_get_wo_message(str(e))) from None
        return _legacy_load(opened_file, map_location, pickle_module, **pickle_load_args)


def _legacy_load(f, map_location, pickle_module, **pickle_load_args):
    """torch's legacy (non-zip) format, as _legacy_save writes it (not the older tar format)."""
    restore_location, target_device = _get_restore_location(map_location)
    if pickle_module is _weights_only_unpickler:
        def plain_load(f):
            return _weights_only_unpickler.Unpickler(f, **pickle_load_args).load()
    else:
        def plain_load(f):
            return pickle_module.load(f, **pickle_load_args)
    _check_seekable(f)
    start = f.read(6)
    f.seek(-len(start), os.SEEK_CUR)
    if start[:6] == b"ustar\x00" or (len(start) >= 1 and start[:1] != b"\x80"):
        # a tar archive (the format before torch 0.4) or no pickle at all
        raise RuntimeError("Invalid magic number; corrupt file?")
    magic_number = plain_load(f)
    if magic_number != MAGIC_NUMBER:
        raise RuntimeError("Invalid magic number; corrupt file?")
    protocol_version = plain_load(f)
    if protocol_version != PROTOCOL_VERSION:
        raise RuntimeError(f"Invalid protocol version: {protocol_version}")
    plain_load(f)  # sys info

    deserialized: dict = {}  # key -> storage, allocated now and filled once the pickle is read
    here = f.tell()
    file_size = f.seek(0, os.SEEK_END)
    f.seek(here)

    def persistent_load(saved_id):
        if not isinstance(saved_id, tuple) or len(saved_id) != 6:
            raise pickle.UnpicklingError(f"invalid storage id in the checkpoint: {saved_id!r}")
        typename = _decode_ascii(saved_id[0])
        if typename != "storage":
            raise RuntimeError(f"Unknown saved id type: {saved_id[0]}")
        storage_type, root_key, location, numel, view_metadata = saved_id[1:]
        if not isinstance(storage_type, _StorageType) or not isinstance(numel, int) or numel < 0:
            raise pickle.UnpicklingError(f"invalid storage id in the checkpoint: {saved_id!r}")
        if view_metadata is not None:
            raise RuntimeError("torchlite.load: legacy storage views (files of torch before 1.0) are not supported")
        if root_key not in deserialized:
            # the storage's bytes follow the pickle: tensors are rebuilt over it now, it is filled later
            dt = storage_type.dtype
            if numel * dt.itemsize > file_size:
                raise RuntimeError(f"torchlite.load: storage {root_key} claims {numel * dt.itemsize} bytes, more than "
                                   f"the file holds ({file_size})")
            empty = bytes(numel * dt.itemsize)
            location = _decode_ascii(location)
            if restore_location is None:
                storage = _new_storage(empty, dt, target_device(location))
            else:
                storage = restore_location(_new_storage(empty, dt, device("cpu")), location)
            deserialized[root_key] = storage
        return deserialized[root_key]

    if pickle_module is _weights_only_unpickler:
        unpickler = _weights_only_unpickler.Unpickler(f, **pickle_load_args)
    else:
        unpickler = _unpickler_class(pickle_module)(f, **pickle_load_args)
    unpickler.persistent_load = persistent_load
    result = unpickler.load()
    keys = plain_load(f)
    if not isinstance(keys, list):
        raise RuntimeError("torchlite.load: invalid storage key list in the checkpoint")
    for key in keys:
        if key not in deserialized:
            raise AssertionError(f"storage key {key!r} not found in deserialized_objects")
        storage = deserialized[key]
        header = f.read(8)
        if len(header) < 8:
            raise RuntimeError("torchlite.load: the file ends before its storages")
        (numel,) = struct.unpack("<q", header)
        if numel != storage.size():
            raise RuntimeError(f"torchlite.load: storage {key} holds {numel} elements, the pickle claims "
                               f"{storage.size()}")
        nbytes = numel * storage.dtype.itemsize
        data = f.read(nbytes)
        if len(data) < nbytes:
            raise RuntimeError(f"torchlite.load: storage {key} is truncated ({len(data)} of {nbytes} bytes)")
        storage._fill(data)
    return result
