"""The triangular and diagonal-building ops: tril and triu (ATen/native/TriangularOps.cpp),
diag_embed and diag (their upstream homes are TensorShape.cpp and LinearAlgebra.cpp's
neighbourhood; they are kept here, apart from TensorShape.py, as a family of their own).

All four make a new, contiguous tensor (torch's results are contiguous whatever the input's
layout) and are linear: tril/triu's gradient is the gradient's tril/triu, diag_embed's the
gradient's diagonal, diag of a matrix (at::diagonal_copy) puts the gradient back on the
diagonal (DiagonalBackward0_copy, upstream's generated node of the *_copy variant)."""
import builtins

import numpy as np

from .. import _backend
from .._C import _record, _record_view, _wrap
from .._generated import specs as _S
from .TensorGeometry import _flat_index, _placed
from .TensorIterator import _TB
from .python_arg_parser import _int_arg, _wrap_dim


def _check_tensor(fn, name, value):
    if not isinstance(value, _TB):
        raise TypeError(f"{fn}(): argument '{name}' (position 1) must be Tensor, not {type(value).__name__}")


def _triangle(fn, np_fn, spec, self, diagonal):
    _check_tensor(fn, "input", self)
    diagonal = _int_arg(fn, "diagonal", 2, diagonal)
    a = self._array
    if a.ndim < 2:
        raise RuntimeError(f"{fn}: input tensor must have at least 2 dimensions")
    # np.tril / np.triu keep the lower / upper triangle of the last two dims of every matrix of
    # the batch, as a new C-contiguous array (torch's result is contiguous too)
    out = _wrap(_backend.ascontiguousarray(np_fn(a, diagonal)), self)
    return _record(spec, (self,), out, diagonal=diagonal)


def tril(self, diagonal=0):
    """The lower triangle (on and below the `diagonal`-th diagonal) of each matrix, zeros elsewhere."""
    return _triangle("tril", np.tril, _S.TrilBackward0, self, diagonal)


def triu(self, diagonal=0):
    """The upper triangle (on and above the `diagonal`-th diagonal) of each matrix, zeros elsewhere."""
    return _triangle("triu", np.triu, _S.TriuBackward0, self, diagonal)


def _diag_embed_array(a, offset, d1, d2):
    """Zeros of diag_embed's shape with a's last dim along the `offset`-th diagonal of (d1, d2)."""
    n = a.shape[-1] if a.ndim else 1
    size = n + builtins.abs(offset)
    batch = list(a.shape[:-1])
    shape = [0] * (len(batch) + 2)
    shape[d1], shape[d2] = size, size
    rest = iter(batch)
    for i in range(len(shape)):
        if i not in (d1, d2):
            shape[i] = next(rest)
    z = _backend.new(a, "zeros", tuple(shape), a.dtype)
    zv = np.moveaxis(z, (d1, d2), (-2, -1))
    i = _backend.new(a, "arange", n)
    if offset >= 0:
        zv[..., i, i + offset] = a
    else:
        zv[..., i - offset, i] = a
    return z


def diag_embed(self, offset=0, dim1=-2, dim2=-1):
    """A tensor whose (dim1, dim2) matrices have input's last dim on their `offset`-th diagonal."""
    _check_tensor("diag_embed", "input", self)
    offset = _int_arg("diag_embed", "offset", 2, offset)
    dim1 = _int_arg("diag_embed", "dim1", 3, dim1)
    dim2 = _int_arg("diag_embed", "dim2", 4, dim2)
    a = self._array
    d1, d2 = _wrap_dim(dim1, a.ndim + 1), _wrap_dim(dim2, a.ndim + 1)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    out = _wrap(_diag_embed_array(a, offset, d1, d2), self)
    # the node keeps the dims as given (torch's _saved_dim1 shows a negative one as its uint64 bits)
    return _record(_S.DiagEmbedBackward0, (self,), out, offset=offset, dim1=dim1, dim2=dim2)


def diag(self, diagonal=0):
    """A vector's square matrix (diag_embed), or a matrix's `diagonal`-th diagonal as a new
    vector (at::diagonal_copy); other dims are refused (LinearAlgebra.cpp's diag)."""
    _check_tensor("diag", "input", self)
    diagonal = _int_arg("diag", "diagonal", 2, diagonal)
    a = self._array
    if a.ndim not in (1, 2):
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {a.ndim}D")
    if a.ndim == 1:
        return diag_embed(self, diagonal)
    n = builtins.max(0, builtins.min(a.shape[0] + builtins.min(diagonal, 0), a.shape[1] - builtins.max(diagonal, 0)))
    st = a.strides
    begin = 0 if n == 0 else (diagonal * st[1] if diagonal >= 0 else -diagonal * st[0])
    view = _placed(a, begin, (n,), (st[0] + st[1],))
    out = _wrap(_backend.ascontiguousarray(view).copy(), self)
    return _record(_S.DiagonalBackward0_copy, (self,), out, offset=diagonal, dim1=0, dim2=1, self_sym_sizes=a.shape,
                   flat_index=_flat_index(view, a))


def _alias(self):
    """at::alias: a view of all of self (what torch.Tensor(other), the legacy constructor,
    returns: AliasBackward0, whose gradient is the gradient itself)."""
    a = self._array
    return _record_view(_S.AliasBackward0, self, a.view())
