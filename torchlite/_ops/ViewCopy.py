"""The *_copy variants of the view ops (upstream: the CompositeViewCopyKernels codegen writes each as
its view op's result cloned, and gen_autograd gives it the view's formula under the node name
<ViewNode>_copy): diagonal_copy."""
from .. import _backend
from .._C import _record, _wrap
from .._generated import specs as _S
from .TensorGeometry import _flat_index
from .TensorShape import diagonal


def diagonal_copy(self, offset=0, dim1=0, dim2=1):
    """torch.diagonal_copy: diagonal(offset, dim1, dim2) (its checks and geometry) as a new contiguous
    tensor; node DiagonalBackward0_copy saving offset, dim1 and dim2 as given and self's sizes."""
    a = self._array
    view = diagonal(self.detach(), offset, dim1, dim2)._array
    out = _wrap(_backend.ascontiguousarray(view).copy(), self)
    return _record(_S.DiagonalBackward0_copy, (self,), out, offset=offset, dim1=dim1, dim2=dim2,
                   self_sym_sizes=a.shape, flat_index=_flat_index(view, a))
