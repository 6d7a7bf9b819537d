"""matmul (ATen/native/LinearAlgebra.cpp: _matmul_impl) and the single
kernels it decomposes into: mm, dot, mv, bmm."""
import warnings

import numpy as np

from .. import _backend
from .._C import _record, _wrap
from .._dtypes import _c_type_name
from .._generated import specs as _S
from .ExpandUtils import _broadcast_shapes
from .ScalarType import _b1, _torch_type_name
from .TensorIterator import _TB, _loud, _quiet
from .TensorProperties import contiguous
from .python_arg_parser import _wrap_dim
from .TensorShape import _unsafe_view, expand, reshape, squeeze, t, transpose, unsqueeze


def _strides(a):
    """An array's strides in elements (the sym_strides mm's node saves)."""
    return tuple(st // a.itemsize for st in a.strides)


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
    if spec is _S.MmBackward0:
        # mm's formulas read both operands' sizes, and the strides of the one they differentiate for
        # (upstream saves self.sym_strides() only where self's gradient is computed: () otherwise)
        self_grad, other_grad = self.requires_grad, other.requires_grad
        return _record(spec, (self, other), out, self=self if other_grad else None, mat2=other if self_grad else None,
                       self_sym_sizes=a.shape, self_sym_strides=_strides(a) if self_grad else (),
                       mat2_sym_sizes=b.shape, mat2_sym_strides=_strides(b) if other_grad else ())
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


def _no_out_dtype(op, like, out_dtype):
    """The `.dtype` overloads (mm.dtype, bmm.dtype, addmm.dtype, baddbmm.dtype: an out_dtype for
    float16 products accumulated in float32) have CUDA kernels only upstream; torchlite has none on
    any device, and refuses them as torch's dispatcher does on the CPU."""
    if out_dtype is None:
        return
    backend = "CUDA" if like.device.type == "cuda" else "CPU"
    raise NotImplementedError(
        f"Could not run 'aten::{op}.dtype' with arguments from the '{backend}' backend. This could be because the "
        "operator doesn't exist for this backend, or was omitted during the selective/custom build process (if "
        "using custom build). If you are a Facebook employee using PyTorch on mobile, please visit "
        "https://fburl.com/ptmfixes for possible resolutions.")


# The public single kernels (at::mm, at::bmm, at::mv, at::dot, at::vdot): each checks its
# operands' dimensions first, as its meta function / dot_check does, then runs the kernel
# matmul decomposes into.

def mm(self, mat2, out_dtype=None):
    _no_out_dtype("mm", self, out_dtype)
    if self._array.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2._array.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    return _matmul_kernel(_S.MmBackward0, self, mat2)


def bmm(self, mat2, out_dtype=None):
    _no_out_dtype("bmm", self, out_dtype)
    if self._array.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2._array.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    return _matmul_kernel(_S.BmmBackward0, self, mat2)


def _dim_size(a, d):
    """t.size(d), with its IndexErrors (torch's kernels read sizes before their checks)."""
    if a.ndim == 0:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    if d >= a.ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-a.ndim}, {a.ndim - 1}], but got {d})")
    return a.shape[d]


def mv(self, vec):
    _dim_size(self._array, 0)  # at::mv is addmv into empty({self.size(0)})
    if self._array.ndim != 2 or vec._array.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {self._array.ndim}, {vec._array.ndim}")
    return _matmul_kernel(_S.MvBackward0, self, vec)


def _dot_check(self, other):
    a, b = self._array, other._array
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")


def dot(self, tensor):
    _dot_check(self, tensor)
    return _matmul_kernel(_S.DotBackward0, self, tensor)


def vdot(self, other):
    """at::vdot: dot with the first operand conjugated (real tensors: dot), node VdotBackward0."""
    _dot_check(self, other)
    a, b = self._array, other._array
    if a.dtype != b.dtype:
        raise RuntimeError("vdot : expected both vectors to have same dtype, but found "
                           f"{_torch_type_name(a.dtype)} and {_torch_type_name(b.dtype)}")
    if a.shape != b.shape:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] to "
                           f"have the same number of elements, but got {a.shape[0]} and {b.shape[0]} "
                           "elements respectively")
    if a.dtype == _b1:
        raise NotImplementedError("\"dot\" not implemented for 'Bool'")  # at::vdot dispatches dot's kernel
    if _backend.cupy is not None:
        _backend.check_same_device(a, b, scalars=False)
    token = _quiet()
    try:
        r = _backend.asarray(np.dot(np.conj(a), b))
    finally:
        _loud(token)
    out = _wrap(r, self)
    return _record(_S.VdotBackward0, (self, other), out, self=self if other.requires_grad else None,
                   other=other if self.requires_grad else None)


# addmm / addmv / baddbmm / addbmm: beta * self + alpha * (product), self broadcast to the
# product's shape (expand_size's errors); with beta == 0 self is ignored (its nan too), as BLAS.

def _check_same_dtype(name, *arrays):
    first = arrays[0].dtype
    for x in arrays[1:]:
        if x.dtype != first:
            raise RuntimeError(f"expected scalar type {_torch_type_name(first)} but found {_torch_type_name(x.dtype)}")


def _expandable(self, shape):
    """self's array where it broadcasts to `shape` as expand(self, shape) would take it (each of its
    trailing sizes 1 or shape's), numpy broadcasting it in the sum; else expand's error, raised."""
    a = self._array
    if a.ndim <= len(shape) and all(d == 1 or d == n for d, n in zip(reversed(a.shape), reversed(shape), strict=False)):
        return a
    return expand(self, shape)._array


def _add_scaled(self, product, beta, alpha, blas=True):
    """beta * self (expanded to product's shape) + alpha * product, in product's dtype. `blas`: as
    gemm / gemv, whose alpha == 0 leaves the product out (a nan or inf in it does not reach the
    result: addmm, addmv, addbmm); baddbmm's own small-matrix loop multiplies it by 0."""
    p = product
    token = _quiet()
    try:
        if alpha == 0 and blas:
            p = np.zeros_like(p)
        elif alpha != 1:
            p = p * p.dtype.type(alpha)
        s = _expandable(self, p.shape)  # torch's expand_size errors on a shape that does not broadcast
        if beta != 0:
            if beta != 1:  # scaled over the expanded shape, as before (numpy's loop for a broadcast
                # operand may take a nan from the other side)
                s = (s if s.shape == p.shape else expand(self, p.shape)._array) * s.dtype.type(beta)
            if s.dtype == p.dtype and p is not product and p.flags.c_contiguous:
                p += s  # p is this function's own array (alpha's product, or the zeros)
            elif s.dtype == p.dtype and type(p) is np.ndarray and p.flags.c_contiguous and p.flags.owndata:
                p = np.add(p, s, out=p)  # the product: a new array of the kernel's, contiguous
            else:
                p = p + s
        return _backend.ascontiguousarray(p.astype(product.dtype, copy=False))
    finally:
        _loud(token)


def addmm(self, mat1, mat2, out_dtype=None, *, beta=1, alpha=1):
    _no_out_dtype("addmm", self, out_dtype)
    a, b = mat1._array, mat2._array
    if a.ndim != 2:
        raise RuntimeError(f"mat1 must be a matrix, got {a.ndim}-D tensor")
    if b.ndim != 2:
        raise RuntimeError(f"mat2 must be a matrix, got {b.ndim}-D tensor")
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({_shape_str(a.shape)} and "
                           f"{_shape_str(b.shape)})")
    if a.dtype != b.dtype or self._array.dtype != a.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {_torch_type_name(self._array.dtype)} "
                           f"and {_torch_type_name(b.dtype)}" if self._array.dtype != b.dtype else
                           f"mat1 and mat2 must have the same dtype, but got {_torch_type_name(a.dtype)} and "
                           f"{_torch_type_name(b.dtype)}")
    if a.dtype == _b1:
        raise NotImplementedError("\"addmm_impl_cpu_\" not implemented for 'Bool'")
    token = _quiet()
    try:
        r = np.matmul(a, b)
    finally:
        _loud(token)
    out = _wrap(_add_scaled(self, r, beta, alpha), mat1)
    g1, g2 = mat1.requires_grad, mat2.requires_grad
    return _record(_S.AddmmBackward0, (self, mat1, mat2), out, mat1=mat1 if g2 else None, mat2=mat2 if g1 else None,
                   beta=beta, alpha=alpha, mat1_sym_sizes=a.shape, mat1_sym_strides=_strides(a) if g1 else (),
                   mat2_sym_sizes=b.shape, mat2_sym_strides=_strides(b) if g2 else ())


def addmv(self, mat, vec, *, beta=1, alpha=1):
    a, v = mat._array, vec._array
    if a.ndim != 2 or v.ndim != 1 or self._array.ndim > 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {self._array.ndim}, {a.ndim}, {v.ndim}")
    if a.shape[1] != v.shape[0] or (self._array.size != a.shape[0] and self._array.size != 1):
        n = _dim_size(self._array, 0)  # (the message reads self.size(0): a 0-d self raises IndexError)
        raise RuntimeError(f"size mismatch, got input ({n}), "
                           f"mat ({_shape_str(a.shape)}), vec ({v.shape[0]})")
    if a.dtype != v.dtype or self._array.dtype != a.dtype:
        raise RuntimeError("addmv input tensors must have the same dtype, but got "
                           f"{_torch_type_name(self._array.dtype)}, {_torch_type_name(a.dtype)}, and "
                           f"{_torch_type_name(v.dtype)}")
    if a.dtype == _b1:
        raise NotImplementedError("\"addmv_impl_cpu\" not implemented for 'Bool'")
    token = _quiet()
    try:
        r = np.matmul(a, v)
    finally:
        _loud(token)
    out = _wrap(_add_scaled(self, r, beta, alpha), mat)
    return _record(_S.AddmvBackward0, (self, mat, vec), out, mat=mat if vec.requires_grad else None,
                   vec=vec if mat.requires_grad else None, beta=beta, alpha=alpha)


def _check_batches(name, b1, b2):
    if b1.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b2.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if b2.shape[0] != b1.shape[0] or b2.shape[1] != b1.shape[2]:
        if name == "addbmm" and b1.shape[0] == b2.shape[0]:
            raise RuntimeError(f"Incompatible matrix sizes for bmm ({b1.shape[1]}x{b1.shape[2]} and "
                               f"{b2.shape[1]}x{b2.shape[2]})")
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{b1.shape[0]}, {b1.shape[2]}] but got: [{b2.shape[0]}, {b2.shape[1]}].")
    if b1.dtype != b2.dtype:
        raise RuntimeError(f"expected scalar type {_torch_type_name(b1.dtype)} but found {_torch_type_name(b2.dtype)}")
    if b1.dtype == _b1:  # addbmm runs addmm's kernel per batch (addbmm_impl_)
        kernel = "addmm_impl_cpu_" if name == "addbmm" else name
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


def baddbmm(self, batch1, batch2, out_dtype=None, *, beta=1, alpha=1):
    _no_out_dtype("baddbmm", self, out_dtype)
    b1, b2 = batch1._array, batch2._array
    # self expanded to the result's sizes first, as at::baddbmm reads them
    expand(self, (_dim_size(b1, 0), _dim_size(b1, 1), _dim_size(b2, 2)))
    _check_batches("baddbmm", b1, b2)
    if self._array.dtype != b1.dtype:
        raise RuntimeError(f"expected scalar type {_torch_type_name(b1.dtype)} but found "
                           f"{_torch_type_name(self._array.dtype)}")
    token = _quiet()
    try:
        r = np.matmul(b1, b2)
    finally:
        _loud(token)
    out = _wrap(_add_scaled(self, r, beta, alpha, blas=False), batch1)
    return _record(_S.BaddbmmBackward0, (self, batch1, batch2), out, batch1=batch1 if batch2.requires_grad else None,
                   batch2=batch2 if batch1.requires_grad else None, beta=beta, alpha=alpha)


def addbmm(self, batch1, batch2, *, beta=1, alpha=1):
    b1, b2 = batch1._array, batch2._array
    expand(self, (_dim_size(b1, 1), _dim_size(b2, 2)))  # self expanded first, as at::addbmm does
    if b1.ndim != 3 or b2.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor" if b1.ndim != 3 else "batch2 must be a 3D tensor")
    if b1.shape[0] != b2.shape[0]:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {b1.shape[0]} and "
                           f"{b2.shape[0]}")
    if b1.shape[2] != b2.shape[1]:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({b1.shape[1]}x{b1.shape[2]} and "
                           f"{b2.shape[1]}x{b2.shape[2]})")
    _check_batches("addbmm", b1, b2)
    if self._array.dtype != b1.dtype:
        raise RuntimeError(f"expected scalar type {_torch_type_name(b1.dtype)} but found "
                           f"{_torch_type_name(self._array.dtype)}")
    token = _quiet()
    try:
        r = np.matmul(b1, b2).sum(axis=0, dtype=b1.dtype)
    finally:
        _loud(token)
    out = _wrap(_add_scaled(self, _backend.asarray(r), beta, alpha), batch1)
    # each batch saved where the other's gradient needs it, and the sizes of the expanded grad
    return _record(_S.AddbmmBackward0, (self, batch1, batch2), out, batch1=batch1 if batch2.requires_grad else None,
                   batch2=batch2 if batch1.requires_grad else None, beta=beta, alpha=alpha,
                   batch1_sym_argsize_0=b1.shape[0], batch1_sym_argsize_1=b1.shape[1], batch2_sym_argsize_2=b2.shape[2])


def trace(self):
    """at::trace (ReduceOps.cpp): the sum of the main diagonal, integers to int64; node TraceBackward0."""
    a = self._array
    if a.dtype == _b1:
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    if a.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {a.ndim}")
    dtype = np.int64 if a.dtype.kind in "iu" else a.dtype
    token = _quiet()
    try:
        r = _backend.asarray(np.trace(a, dtype=dtype))
    finally:
        _loud(token)
    return _record(_S.TraceBackward0, (self,), _wrap(r, self), self_sym_sizes=a.shape)


def _two_product_error(x, y):
    """The exact x*y - round(x*y) of float64 arrays (Dekker's TwoProduct, Veltkamp's split)."""
    def split(v):
        c = v * 134217729.0  # 2**27 + 1
        hi = c - (c - v)
        return hi, v - hi
    xh, xl = split(x)
    yh, yl = split(y)
    p = x * y
    return ((xh * yh - p) + xh * yl + xl * yh) + xl * yl


def _fma_cross(a, b, d):
    """cpu/CrossKernel.cpp's r0 = a1*b2 - a2*b1 (and its rotations) as the compiler contracts it:
    fma(a1, b2, -(a2*b1)), one rounding of the exact first product less the rounded second (so
    cross(v, v) is the rounding error of a product, not 0, as torch gives it)."""
    dtype = a.dtype
    a, b = np.moveaxis(a, d, 0), np.moveaxis(b, d, 0)
    out = np.empty(a.shape, dtype=dtype)
    for k, (i, j) in enumerate(((1, 2), (2, 0), (0, 1))):
        second = a[j] * b[i]  # rounded in dtype
        if dtype == np.float32:
            exact = a[i].astype(np.float64) * b[j].astype(np.float64)
            r = (exact - second.astype(np.float64)).astype(np.float32)
        else:
            x, y = a[i], b[j]
            ph = x * y
            s = ph - second
            bb = s - ph  # TwoSum(ph, -second)
            e = (ph - (s - bb)) + (-second - bb)
            r = s + (e + _two_product_error(x, y))
            r = np.where(np.isfinite(r), r, ph - second)
        out[k] = r
    return np.moveaxis(out, 0, d)


def linalg_cross(self, other, *, dim=-1):
    """at::linalg_cross (Cross.cpp): the inputs broadcast, the cross product along `dim`; node
    LinalgCrossBackward0 (saving dim as given)."""
    a, b = self._array, other._array
    if a.ndim != b.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = _wrap_dim(dim, a.ndim)
    if a.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    if a.shape[d] != 3 or b.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {a.shape[d]} and "
                           f"{b.shape[d]}")
    shape = _broadcast_shapes(a.shape, b.shape)
    # cpu/CrossKernel.cpp's cross_kernel_impl dispatches on the result's dtype (self's), which has
    # no Bool case, and only then reads other as that dtype: Bool self refuses whatever other is
    if a.dtype == _b1:
        raise NotImplementedError("\"cross\" not implemented for 'Bool'")
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected scalar type {_torch_type_name(a.dtype)} but found {_torch_type_name(b.dtype)}")
    token = _quiet()
    try:
        if a.dtype in (np.float64, np.float32):
            r = _fma_cross(np.broadcast_to(a, shape), np.broadcast_to(b, shape), d)
        else:
            r = np.cross(np.broadcast_to(a, shape), np.broadcast_to(b, shape), axis=d)
    finally:
        _loud(token)
    out = _wrap(_backend.ascontiguousarray(r.astype(a.dtype, copy=False)), self)
    return _record(_S.LinalgCrossBackward0, (self, other), out, self=self if other.requires_grad else None,
                   other=other if self.requires_grad else None, dim=dim)


_cross_warned = False


def cross(self, other, dim=None):
    """torch.cross: linalg_cross along `dim`, or (deprecated) along the first dimension of size 3."""
    global _cross_warned
    if not isinstance(other, _TB):  # (the parser refuses it before the op warns)
        raise TypeError(f"cross(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}")
    if dim is None and not _cross_warned:
        _cross_warned = True  # TORCH_WARN_ONCE: once per process
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the "
                      "dim explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to "
                      "agree with that of linalg.cross in a future release.", UserWarning, stacklevel=2)
    if dim is None:
        a, b = self._array, other._array
        shape = _broadcast_shapes(a.shape, b.shape) if a.ndim == b.ndim else a.shape
        dim = next((i for i, n in enumerate(shape) if n == 3), -1)
    return linalg_cross(self, other, dim=dim)
