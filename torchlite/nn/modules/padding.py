"""torch/nn/modules/padding.py: the padding layers over F.pad (constant, zero, reflect, replicate and
circular). ReflectionPad3d and ReplicationPad3d are left out: torchlite has no 3-d reflect/replicate pad."""
from .. import functional as F
from .conv import _ntuple, _pair
from .module import Module

__all__: list = ["CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d",
                 "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReplicationPad1d", "ReplicationPad2d",
                 "ZeroPad1d", "ZeroPad2d", "ZeroPad3d"]

_quadruple = _ntuple(4)
_sextuple = _ntuple(6)


class _CircularPadNd(Module):
    __constants__ = ["padding"]
    _dims = (2, 3)

    def _check_input_dim(self, input):  # noqa: A002 - torch's name
        if input.dim() not in self._dims:
            raise ValueError(f"expected {self._dims[0]}D or {self._dims[1]}D input (got {input.dim()}D input)")

    def forward(self, input):  # noqa: A002 - torch's name
        self._check_input_dim(input)
        return F.pad(input, self.padding, "circular")

    def extra_repr(self):
        return f"{self.padding}"


class CircularPad1d(_CircularPadNd):
    """Pads the last dim with the input's own far end (wrap-around)."""

    def __init__(self, padding):
        super().__init__()
        self.padding = _pair(padding)


class CircularPad2d(_CircularPadNd):
    """Pads the last two dims with wrap-around."""
    _dims = (3, 4)

    def __init__(self, padding):
        super().__init__()
        self.padding = _quadruple(padding)


class CircularPad3d(_CircularPadNd):
    """Pads the last three dims with wrap-around."""
    _dims = (4, 5)

    def __init__(self, padding):
        super().__init__()
        self.padding = _sextuple(padding)


class _ConstantPadNd(Module):
    __constants__ = ["padding", "value"]

    def __init__(self, value):
        super().__init__()
        self.value = value

    def forward(self, input):  # noqa: A002 - torch's name
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pads the last dim with a constant value."""

    def __init__(self, padding, value):
        super().__init__(value)
        self.padding = _pair(padding)


class ConstantPad2d(_ConstantPadNd):
    """Pads the last two dims with a constant value."""

    def __init__(self, padding, value):
        super().__init__(value)
        self.padding = _quadruple(padding)


class ConstantPad3d(_ConstantPadNd):
    """Pads the last three dims with a constant value."""

    def __init__(self, padding, value):
        super().__init__(value)
        self.padding = _sextuple(padding)


class _ReflectionPadNd(Module):
    __constants__ = ["padding"]

    def forward(self, input):  # noqa: A002 - torch's name
        return F.pad(input, self.padding, "reflect")

    def extra_repr(self):
        return f"{self.padding}"


class ReflectionPad1d(_ReflectionPadNd):
    """Pads the last dim with the reflection of the input at its border."""

    def __init__(self, padding):
        super().__init__()
        self.padding = _pair(padding)


class ReflectionPad2d(_ReflectionPadNd):
    """Pads the last two dims with the reflection of the input at its border."""

    def __init__(self, padding):
        super().__init__()
        self.padding = _quadruple(padding)


class _ReplicationPadNd(Module):
    __constants__ = ["padding"]

    def forward(self, input):  # noqa: A002 - torch's name
        return F.pad(input, self.padding, "replicate")

    def extra_repr(self):
        return f"{self.padding}"


class ReplicationPad1d(_ReplicationPadNd):
    """Pads the last dim with copies of the input's border value."""

    def __init__(self, padding):
        super().__init__()
        self.padding = _pair(padding)


class ReplicationPad2d(_ReplicationPadNd):
    """Pads the last two dims with copies of the input's border values."""

    def __init__(self, padding):
        super().__init__()
        self.padding = _quadruple(padding)


class ZeroPad1d(ConstantPad1d):
    """Pads the last dim with zeros."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """Pads the last two dims with zeros."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    """Pads the last three dims with zeros."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"
