"""matmul (ATen/native/LinearAlgebra.cpp: _matmul_impl) and the single
kernels it decomposes into: mm, dot, mv, bmm."""
import numpy as np

from .. import _backend
from .._C import _record, _wrap
from .._dtypes import _c_type_name
from .._generated import specs as _S
from .ExpandUtils import _broadcast_shapes
from .ScalarType import _b1, _torch_type_name
from .TensorIterator import _loud, _quiet
from .TensorProperties import contiguous
from .TensorShape import _unsafe_view, expand, reshape, squeeze, t, transpose, unsqueeze


def _column_major(x):
    """Whether a saved matrix is column-major (torch's mm backward then computes its
    gradient transposed); unknown (not saved) counts as no."""
    if x is None:
        return False
    a = x._array
    return a.strides[0] == a.itemsize and a.strides[1] == a.shape[0] * a.itemsize


# The name mm, dot, mv and bmm give their second operand (derivatives.yaml).
_SECOND = {_S.MmBackward0: "mat2", _S.DotBackward0: "tensor", _S.MvBackward0: "vec", _S.BmmBackward0: "mat2"}


def _shape_str(shape):
    return "x".join(map(str, shape))


def _matmul_kernel(spec, self, other):
    """One of mm / dot / mv / bmm: a single node, as at::mm etc. record it."""
    a, b = self._array, other._array
    if _backend.cupy is not None:
        _backend.check_same_device(a, b, scalars=False)
    if spec is _S.DotBackward0 and a.dtype != b.dtype:
        raise RuntimeError("dot : expected both vectors to have same dtype, but found "
                           f"{_torch_type_name(a.dtype)} and {_torch_type_name(b.dtype)}")
    if spec is _S.DotBackward0 and a.shape != b.shape:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] to "
                           f"have the same number of elements, but got {a.shape[0]} and {b.shape[0]} "
                           "elements respectively")
    if spec is _S.MvBackward0 and a.shape[1] != b.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({a.shape[0]}), mat ({_shape_str(a.shape)}), "
                           f"vec ({b.shape[0]})")
    if spec is _S.MmBackward0 and a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({_shape_str(a.shape)} and "
                           f"{_shape_str(b.shape)})")
    if spec is _S.BmmBackward0 and (b.shape[0] != a.shape[0] or b.shape[1] != a.shape[2]):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")
    # then each kernel's dtype checks, in torch's order: bmm dispatches on its
    # first operand's dtype before it compares the second's
    if spec is _S.BmmBackward0 and a.dtype == _b1:
        raise NotImplementedError("\"bmm\" not implemented for 'Bool'")
    if a.dtype != b.dtype:
        if spec is _S.MvBackward0:
            raise RuntimeError("addmv input tensors must have the same dtype, but got "
                               f"{_torch_type_name(b.dtype)}, {_torch_type_name(a.dtype)}, and "
                               f"{_torch_type_name(b.dtype)}")
        if spec is _S.BmmBackward0:
            raise RuntimeError(f"expected scalar type {_torch_type_name(a.dtype)} but found "
                               f"{_torch_type_name(b.dtype)}")
        raise RuntimeError("expected m1 and m2 to have the same dtype, but got: "
                           f"{_c_type_name(a.dtype)} != {_c_type_name(b.dtype)}")
    if a.dtype == _b1:
        name = "dot" if spec is _S.DotBackward0 else "addmv_impl_cpu" if spec is _S.MvBackward0 else "addmm_impl_cpu_"
        raise NotImplementedError(f"\"{name}\" not implemented for 'Bool'")
    token = _quiet()
    try:
        r = np.matmul(a, b)
    finally:
        _loud(token)
    out = _wrap(r, self)
    return _record(spec, (self, other), out, self=self if other.requires_grad else None,
                   **{_SECOND[spec]: other if self.requires_grad else None})


def _should_fold(self, other):
    """at::native::should_fold: whether matmul folds the larger operand's batch into mm / mv."""
    larger = self._array.ndim >= other._array.ndim
    t1 = self._array if larger else np.swapaxes(other._array, -1, -2)
    dim_t2 = other._array.ndim if larger else self._array.ndim
    if not (t1.ndim >= 3 and dim_t2 <= 2):
        return False
    if (other if larger else self).requires_grad:
        return True
    if self._array.ndim == 2:
        return False
    if t1.size == 0:
        return True
    st, sh = t1.strides, t1.shape
    return all(st[i] == st[i + 1] * sh[i + 1] for i in range(t1.ndim - 2))


def matmul(self, other):
    """at::native::_matmul_impl: the same decomposition, so the same nodes as torch."""
    a, b = self._array, other._array
    da, db = a.ndim, b.ndim
    if da == 0 or db == 0:
        raise RuntimeError("both arguments to matmul need to be at least 1D, but they are "
                           f"{da}D and {db}D")
    if da == 1 and db == 1:
        return _matmul_kernel(_S.DotBackward0, self, other)
    if da == 2 and db == 1:
        return _matmul_kernel(_S.MvBackward0, self, other)
    if da == 1 and db == 2:
        r = _matmul_kernel(_S.MmBackward0, unsqueeze(self, 0), other)
        # torch squeezes the mm result in place (squeeze_(0))
        return _record(_S.SqueezeBackward4, (r,), _wrap(r._array[0], r), self_sym_sizes=r._array.shape, dim=0)
    if da == 2 and db == 2:
        return _matmul_kernel(_S.MmBackward0, self, other)
    if _should_fold(self, other):
        trans = db > da
        t1 = transpose(other, -2, -1) if trans else self
        t2 = (t(self) if da == 2 else self) if trans else other
        sizes_1 = t1._array.shape
        output_shape = sizes_1[:-1]
        folded = int(np.prod(output_shape))
        t1_folded = reshape(t1, (folded, sizes_1[-1]))
        if t2._array.ndim == 2:
            output = _unsafe_view(_matmul_kernel(_S.MmBackward0, t1_folded, t2), output_shape + (t2._array.shape[1],))
            return contiguous(transpose(output, -2, -1)) if trans else output
        return _unsafe_view(_matmul_kernel(_S.MvBackward0, t1_folded, t2), output_shape)
    n = a.shape[-2] if da > 1 else 1
    m1 = a.shape[-1]
    batch1 = a.shape[:da - 2] if da > 2 else ()
    m2 = b.shape[-2] if db > 1 else b.shape[0]
    p = b.shape[-1] if db > 1 else 1
    batch2 = b.shape[:db - 2] if db > 2 else ()
    if da == 3 and db == 3 and batch1[0] != batch2[0]:
        if batch1[0] == 1 and self.requires_grad:
            return matmul(squeeze(self, 0), other)
        if batch2[0] == 1 and other.requires_grad:
            return matmul(self, squeeze(other, 0))
    output_shape = _broadcast_shapes(batch1, batch2)
    count = int(np.prod(output_shape))
    t1e = reshape(expand(self, output_shape + (n, m1)), (count, n, m1))
    if db == 1:
        t2e = unsqueeze(reshape(expand(other, output_shape + (m2,)), (count, m2)), 2)
    else:
        t2e = reshape(expand(other, output_shape + (m2, p)), (count, m2, p))
    output_shape += ((n,) if da > 1 else ()) + ((p,) if db > 1 else ())
    r = _matmul_kernel(_S.BmmBackward0, t1e, t2e)
    return _unsafe_view(squeeze(r, -1) if db == 1 else r, output_shape)
