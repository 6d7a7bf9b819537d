"""torch.layout and torch.memory_format: the values factories take as `layout=` and
`memory_format=` (torch/csrc/Layout.cpp, MemoryFormat.cpp), which, as torch's, cannot be
instantiated from Python. torchlite's tensors are all strided (dense numpy arrays), so `strided`
is its one layout; of the memory formats, `contiguous_format` and `preserve_format` mean what
they mean in torch."""


class _Constant:
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


class layout(_Constant):
    """torch.layout: how a tensor's elements are stored (torchlite has `strided` only)."""

    __slots__ = ()
    _type_name = "layout"


class memory_format(_Constant):
    """torch.memory_format: the order of a new tensor's strides."""

    __slots__ = ()
    _type_name = "memory_format"


strided = layout._make("strided")
contiguous_format = memory_format._make("contiguous_format")
preserve_format = memory_format._make("preserve_format")
