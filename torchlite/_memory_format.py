"""torch.memory_format and its values (c10/core/MemoryFormat.h; torch/csrc/utils/tensor_memoryformats.cpp):
how clone, contiguous and is_contiguous lay a tensor out."""

__all__ = ["memory_format", "contiguous_format", "channels_last", "channels_last_3d", "preserve_format"]


class memory_format:
    """torch.memory_format: a named layout."""

    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return "torchlite." + self._name

    def __reduce__(self):
        return self._name


contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
preserve_format = memory_format("preserve_format")

# the dimension order, innermost first, of each channels-last layout, and its rank
_CHANNELS_LAST = {channels_last: ((1, 3, 2, 0), 4), channels_last_3d: ((1, 4, 3, 2, 0), 5)}
