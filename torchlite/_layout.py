"""torch.layout: the values factories take as `layout=` (torch/csrc/Layout.cpp), which, as torch's,
cannot be instantiated from Python. torchlite's tensors are all strided (dense numpy arrays), so
`strided` is its one layout. The memory formats factories take as `memory_format=` live in
_memory_format."""
from ._memory_format import _Constant, contiguous_format, memory_format, preserve_format

__all__ = ["layout", "strided", "memory_format", "contiguous_format", "preserve_format"]


class layout(_Constant):
    """torch.layout: how a tensor's elements are stored (torchlite has `strided` only)."""

    __slots__ = ()
    _type_name = "layout"


strided = layout._make("strided")
