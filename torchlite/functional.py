"""torch.functional's functions over several tensors: meshgrid (torch/functional.py, whose
kernel is ATen/native/TensorShape.cpp's meshgrid: a view of each input expanded to the grid,
so the grids share their inputs' memory and their gradients flow back through
ExpandBackward0 and ViewBackward0)."""
import warnings

from ._C import TensorBase as _TensorBase
from ._ops.python_arg_parser import _tp_name

__all__ = ["meshgrid"]

_warned: list = []


def meshgrid(*tensors, indexing=None):
    """Coordinate grids of 0-d or 1-d tensors: grid i varies along dim i ("ij"); "xy" swaps the
    first two dims (Cartesian indexing). Without `indexing`, "ij" with torch's warning."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    for i, t in enumerate(tensors):
        if not isinstance(t, _TensorBase):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {_tp_name(t)}")
    if indexing is None and not _warned:
        _warned.append(True)  # TORCH_WARN_ONCE
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
                      UserWarning, stacklevel=2)
    if indexing is None:
        indexing = "ij"
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors[1:]:
        if t.dtype is not tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
        if t.device != tensors[0].device:
            raise RuntimeError("meshgrid expects all tensors to have the same device")
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t}")
    if indexing not in ("xy", "ij"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    n = len(tensors)
    swap = indexing == "xy" and n >= 2
    shape = [t.numel() for t in tensors]
    if swap:
        shape[0], shape[1] = shape[1], shape[0]
    grids = []
    for i, t in enumerate(tensors):
        pos = 1 - i if swap and i < 2 else i
        view_shape = [1] * n
        view_shape[pos] = -1
        grids.append(t.view(view_shape).expand(shape))
    return tuple(grids)
