"""torch.memory_format and its values (c10/core/MemoryFormat.h; torch/csrc/utils/tensor_memoryformats.cpp):
how factories, clone, contiguous and is_contiguous lay a tensor out. As torch's, the values
cannot be instantiated from Python."""

__all__ = ["memory_format", "contiguous_format", "channels_last", "channels_last_3d", "preserve_format"]


class _Constant:
    """A named value of a torch enum type (torch.layout, torch.memory_format)."""

    __slots__ = ("_name",)
    _type_name = ""

    def __new__(cls, *args, **kwargs):
        raise TypeError(f"cannot create 'torch.{cls._type_name}' instances")

    @classmethod
    def _make(cls, name):
        obj = object.__new__(cls)
        obj._name = name
        return obj

    def __repr__(self):
        return "torchlite." + self._name

    def __reduce__(self):
        return self._name


class memory_format(_Constant):
    """torch.memory_format: the order of a tensor's strides."""

    __slots__ = ()
    _type_name = "memory_format"


contiguous_format = memory_format._make("contiguous_format")
channels_last = memory_format._make("channels_last")
channels_last_3d = memory_format._make("channels_last_3d")
preserve_format = memory_format._make("preserve_format")

# the dimension order, innermost first, of each channels-last layout, and its rank
_CHANNELS_LAST = {channels_last: ((1, 3, 2, 0), 4), channels_last_3d: ((1, 4, 3, 2, 0), 5)}
