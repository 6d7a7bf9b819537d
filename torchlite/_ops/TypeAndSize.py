"""upstream's TypeAndSize (torch/csrc/autograd/function.h): what a node keeps of a tensor argument
whose gradient is `zeros_like(self)` (load_derivatives' `self_info` replacement): its sizes, dtype
and device, not the tensor, so the node neither holds the tensor's storage nor shows a _saved_self."""
from .. import _backend
from .._C import _wrap


class TypeAndSize:
    __slots__ = ("sizes", "_like")

    def __init__(self, tensor):
        a = tensor._array
        self.sizes = tuple(a.shape)
        # an empty tensor of the same dtype and device: what zeros() is made like
        self._like = _wrap(_backend.new(a, "empty", (0,), a.dtype), tensor)

    def zeros(self):
        """at::zeros of the sizes, with the tensor's dtype and device (no gradient)."""
        like = self._like
        return _wrap(_backend.new(like._array, "zeros", self.sizes, like._array.dtype), like)
