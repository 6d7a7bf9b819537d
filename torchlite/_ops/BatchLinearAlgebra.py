"""The factorisation-based linear algebra (ATen/native/BatchLinearAlgebra.cpp,
LinearAlgebra.cpp): det, slogdet, logdet, inv, solve, cholesky, the norms, and cond.

torch computes these with LAPACK (getrf, getri, potrf); here numpy's linalg computes the
values, and an LU factorisation with partial pivoting (getrf's algorithm, _lu_factor) gives
what torch saves for the backward (LU, pivots) and its errors (the first zero pivot)."""
import math

import numpy as np

from .. import _backend
from .._C import _record, _wrap
from .._generated import specs as _S
from .BinaryOps import div, mul
from .ReduceOps import sum  # noqa: A004 - torch's name
from .Resize import out_variant
from .ScalarType import _torch_type_name
from .TensorCompare import where
from .TensorFactories import _const
from .python_arg_parser import _norm_dims
from .BatchLinearAlgebraDecomp import linalg_svdvals
from .ReduceOps import amax, amin
from .TensorConversions import to
from .TensorShape import narrow, permute, squeeze, unsqueeze
from .UnaryOps import nan_to_num

__all__ = ["LinAlgError", "det", "inverse", "linalg_cholesky", "linalg_cond", "linalg_det", "linalg_inv",
           "linalg_matrix_norm",
           "linalg_norm", "linalg_slogdet", "linalg_solve", "linalg_vector_norm", "logdet", "norm", "slogdet"]


class _LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError (torch._C._LinAlgError): a RuntimeError raised by a
    factorisation that failed on its input (a singular matrix, one not positive-definite)."""


_LinAlgError.__module__ = "torchlite.linalg"
LinAlgError = _LinAlgError


def _square_check(a, name):
    """at::native::squareCheckInputs."""
    if a.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {a.shape[-2]} by "
                           f"{a.shape[-1]} matrices")


def _float_check(a, name, low_precision=True):
    """at::native::checkFloatingOrComplex (allow_low_precision_dtypes: float16 passes it)."""
    if a.dtype.kind not in "fc":
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{_torch_type_name(a.dtype)}")
    if not low_precision and a.dtype == np.float16:
        raise RuntimeError(f"{name}: Low precision dtypes not supported. Got Half")


def _lapack_check(a, kernel):
    """The LAPACK kernels' dispatch (AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES): no float16."""
    if a.dtype == np.float16:
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Half'")


def _batch_prefix(a, i):
    """_linalg_check_errors' prefix: a batch element's index where the input is batched."""
    return "" if a.ndim == 2 else f"(Batch element {i}): "


def _lu_factor(a):
    """getrf: P A = L U with partial pivoting, per matrix of the batch. Returns LU (L's unit
    diagonal implied), the pivots (int32, 1-based, as LAPACK) and info (per matrix: the
    1-based index of the first zero diagonal element of U, 0 when none)."""
    xp = _backend.xp(a)
    n = a.shape[-1]
    lu = xp.array(a, dtype=a.dtype, copy=True).reshape((-1, n, n))
    count = lu.shape[0]
    piv = xp.zeros((count, n), dtype=np.int32)
    info = xp.zeros(count, dtype=np.int64)
    rows = xp.arange(count)
    with np.errstate(all="ignore"):
        for k in range(n):
            p = k + xp.argmax(xp.abs(lu[:, k:, k]), axis=1)
            piv[:, k] = p + 1
            row_k = lu[rows, k, :].copy()
            lu[rows, k, :] = lu[rows, p, :]
            lu[rows, p, :] = row_k
            pivot = lu[:, k, k]
            zero = pivot == 0
            info[(info == 0) & zero] = k + 1
            if k + 1 < n:
                lu[:, k + 1:, k] /= xp.where(zero, 1, pivot)[:, None]
                lu[:, k + 1:, k + 1:] -= lu[:, k + 1:, k:k + 1] * lu[:, k:k + 1, k + 1:]
    shape = a.shape[:-2]
    return lu.reshape(a.shape), piv.reshape(shape + (n,)), info.reshape(shape)


def _lu_torch(a):
    """The LU factorisation torch saves: LAPACK factors the column-major buffer, so of A^T where A
    is contiguous (row-major), else of A (use_A_T in BatchLinearAlgebra.cpp)."""
    return _lu_factor(np.swapaxes(a, -1, -2) if a.flags.c_contiguous else a)


def _lu_solve(lu, piv, b, adjoint):
    """getrs: X with (P L U) X = b, or (P L U)^T X = b (adjoint), from getrf's LU and pivots;
    no singularity check (a zero pivot gives inf / nan, as LAPACK)."""
    xp = _backend.xp(lu)
    n = lu.shape[-1]
    batch = np.broadcast_shapes(lu.shape[:-2], b.shape[:-2])
    lu = xp.broadcast_to(lu, batch + lu.shape[-2:])
    piv = xp.broadcast_to(piv, batch + piv.shape[-1:])
    x = xp.array(xp.broadcast_to(b, batch + b.shape[-2:]), copy=True)
    low = xp.tril(lu, -1)
    up = xp.triu(lu)

    def swaps(x, order):
        for k in order:
            p = piv[..., k] - 1
            row_k = x[..., k, :].copy()
            row_p = xp.take_along_axis(x, p[..., None, None].astype(np.int64), axis=-2)[..., 0, :]
            x[..., k, :] = row_p
            xp.put_along_axis(x, p[..., None, None].astype(np.int64), row_k[..., None, :], axis=-2)
        return x

    with np.errstate(all="ignore"):
        if not adjoint:
            x = swaps(x, range(n))
            for i in range(n):  # L (unit diagonal)
                x[..., i, :] -= xp.matmul(low[..., i:i + 1, :i], x[..., :i, :])[..., 0, :]
            for i in range(n - 1, -1, -1):  # U
                x[..., i, :] -= xp.matmul(up[..., i:i + 1, i + 1:], x[..., i + 1:, :])[..., 0, :]
                x[..., i, :] /= up[..., i, i][..., None]
        else:
            upt, lowt = xp.swapaxes(up, -1, -2), xp.swapaxes(low, -1, -2)
            for i in range(n):  # U^T
                x[..., i, :] -= xp.matmul(upt[..., i:i + 1, :i], x[..., :i, :])[..., 0, :]
                x[..., i, :] /= upt[..., i, i][..., None]
            for i in range(n - 1, -1, -1):  # L^T (unit diagonal)
                x[..., i, :] -= xp.matmul(lowt[..., i:i + 1, i + 1:], x[..., i + 1:, :])[..., 0, :]
            x = swaps(x, range(n - 1, -1, -1))
    return x


def _pivot_sign(piv):
    n = piv.shape[-1]
    swaps = (piv != np.arange(1, n + 1, dtype=np.int32)).sum(axis=-1)
    return 1 - 2 * (swaps % 2)


# det / slogdet / logdet ---------------------------------------------------------------------

def linalg_det(A):
    """at::_linalg_det: det from the LU factorisation (node LinalgDetBackward0, saving A, LU,
    pivots and the result)."""
    a = A._array
    _square_check(a, "linalg.det")
    _float_check(a, "linalg.det")
    _lapack_check(a, "lu_cpu")
    lu, piv, _ = _lu_torch(a)
    with np.errstate(all="ignore"):
        diag = np.diagonal(lu, axis1=-2, axis2=-1)
        r = (np.prod(diag, axis=-1) * _pivot_sign(piv)).astype(a.dtype)
    out = _wrap(_backend.asarray(r), A)
    return _record(_S.LinalgDetBackward0, (A,), out, A=A, LU=_wrap(lu, A), pivots=_wrap(piv, A), result=out)


def det(self):
    return linalg_det(self)


class _SlogdetResult(tuple):
    """torch.return_types.slogdet / linalg_slogdet: (sign, logabsdet)."""

    def __new__(cls, sign, logabsdet):
        return super().__new__(cls, (sign, logabsdet))

    sign = property(lambda self: self[0])
    logabsdet = property(lambda self: self[1])

    def __repr__(self):
        return f"torchlite.return_types.{type(self).__name__}(\nsign={self[0]!r},\nlogabsdet={self[1]!r})"


_SLOGDET_TYPES = {name: type(name, (_SlogdetResult,), {"__module__": "torchlite.return_types"})
                  for name in ("slogdet", "linalg_slogdet")}


def _slogdet(A, name, result_type):
    a = A._array
    _square_check(a, name)
    _float_check(a, name, low_precision=False)
    lu, piv, _ = _lu_torch(a)
    with np.errstate(all="ignore"):
        diag = np.diagonal(lu, axis1=-2, axis2=-1)
        sign = (np.prod(np.sign(diag), axis=-1) * _pivot_sign(piv)).astype(a.dtype)
        logabsdet = np.sum(np.log(np.abs(diag)), axis=-1).astype(a.dtype)
    # torch's one node has both outputs; the sign's gradient is zero for real inputs, so here
    # only logabsdet is the node's output (the sign does not require grad)
    sign_t = _wrap(_backend.asarray(sign), A)
    out = _wrap(_backend.asarray(logabsdet), A)
    out = _record(_S.LinalgSlogdetBackward0, (A,), out, A=A, LU=_wrap(lu, A), pivots=_wrap(piv, A), sign=sign_t)
    return _SLOGDET_TYPES[result_type](sign_t, out)


def linalg_slogdet(A):
    return _slogdet(A, "linalg.slogdet", "linalg_slogdet")


def slogdet(self):
    return _slogdet(self, "linalg.slogdet", "slogdet")


def logdet(self):
    """at::logdet: slogdet's logabsdet, nan where the determinant is negative (WhereBackward0)."""
    a = self._array
    _square_check(a, "logdet")
    _float_check(a, "logdet", low_precision=False)
    sign, logabsdet = _slogdet(self, "logdet", "slogdet")
    return where(_const(sign._array == -1, sign), math.nan, logabsdet)


# inv / solve --------------------------------------------------------------------------------

def linalg_inv(A):
    """at::linalg_inv_ex with check_errors: node LinalgInvExBackward0 (saving the inverse)."""
    a = A._array
    _square_check(a, "linalg.inv")
    _float_check(a, "linalg.inv", low_precision=False)
    _, _, info = _lu_torch(a)
    bad = np.flatnonzero(np.asarray(_backend.to_host(info)).reshape(-1))
    if bad.size:
        i = int(bad[0])
        raise _LinAlgError(f"linalg.inv: {_batch_prefix(a, i)}The diagonal element "
                           f"{int(np.asarray(_backend.to_host(info)).reshape(-1)[i])} is zero, the inversion could not "
                           "be completed because the input matrix is singular.")
    xp = _backend.xp(a)
    with np.errstate(all="ignore"):
        r = xp.linalg.inv(a) if a.size else xp.array(a, copy=True)
    out = _wrap(_backend.ascontiguousarray(r.astype(a.dtype, copy=False)), A)
    return _record(_S.LinalgInvExBackward0, (A,), out, inverse=out)


def inverse(self):
    return linalg_inv(self)


def _is_vector_rhs(a, b):
    """at::native::linalg_solve_is_vector_rhs."""
    return b.ndim == 1 or (a.ndim - 1 == b.ndim and b.shape == a.shape[:-1])


def linalg_solve(A, B, *, left=True, out=None):
    """at::_linalg_solve_ex: X with A X = B (left) or X A = B, A's batch broadcast with B's; a
    B of A's shape less its last dimension is a batch of vectors. Node LinalgSolveExBackward0
    (saving A, LU, pivots, left and the result)."""
    if out is not None:
        return out_variant("linalg_solve", lambda *_: linalg_solve(A, B, left=left), out, (A, B), {})
    a, b = A._array, B._array
    _square_check(a, "linalg.solve")
    _float_check(a, "linalg.solve")
    if a.dtype != b.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
                           f"{_torch_type_name(a.dtype)} and B of type {_torch_type_name(b.dtype)} instead")
    vector = _is_vector_rhs(a, b)
    bm = b[..., None] if vector else b
    n = a.shape[-1]
    if (left and bm.shape[-2] != n) or (not left and bm.shape[-1] != n):
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation {eq} "
                           f"({a.shape[-2]}x{a.shape[-1]} and {bm.shape[-2]}x{bm.shape[-1]})")
    _lapack_check(a, "lu_cpu")
    try:
        batch = np.broadcast_shapes(a.shape[:-2], bm.shape[:-2])
    except ValueError:
        raise RuntimeError(f"The size of tensor a ({a.shape[-3] if a.ndim > 2 else 1}) must match the size of "
                           f"tensor b ({bm.shape[-3] if bm.ndim > 2 else 1}) at non-singleton dimension 0") from None
    # torch 2.13 factors A itself (LAPACK on a column-major copy: LU keeps those strides), left or not
    lu, piv, info = _lu_factor(a)
    lu = _backend.xp(lu).swapaxes(_backend.ascontiguousarray(_backend.xp(lu).swapaxes(lu, -1, -2)), -1, -2)
    flat = np.asarray(_backend.to_host(info)).reshape(-1)
    bad = np.flatnonzero(flat)
    if bad.size:
        raise _LinAlgError(f"torch.linalg.solve: {_batch_prefix(a, int(bad[0]))}The solver failed because the "
                           "input matrix is singular.")
    xp = _backend.xp(a)
    ab = xp.broadcast_to(a, batch + a.shape[-2:])
    bb = xp.broadcast_to(bm, batch + bm.shape[-2:])
    with np.errstate(all="ignore"):
        if ab.size == 0 or bb.size == 0:
            x = xp.zeros(batch + bm.shape[-2:], dtype=a.dtype)
        elif left:
            x = xp.linalg.solve(ab, bb)
        else:
            x = xp.swapaxes(xp.linalg.solve(xp.swapaxes(ab, -1, -2), xp.swapaxes(bb, -1, -2)), -1, -2)
    if vector:
        x = x[..., 0]
    out = _wrap(_backend.ascontiguousarray(x.astype(a.dtype, copy=False)), A)
    return _record(_S.LinalgSolveExBackward0, (A, B), out, A=A, LU=_wrap(lu, A), pivots=_wrap(piv, A), left=left,
                   result=out)


# cholesky -----------------------------------------------------------------------------------

def _cholesky_failure(m):
    """The order of the leading minor that is not positive-definite (potrf's info)."""
    n = m.shape[-1]
    for k in range(1, n + 1):
        try:
            np.linalg.cholesky(m[:k, :k])
        except np.linalg.LinAlgError:
            return k
    return n


def linalg_cholesky(A, *, upper=False, out=None):
    """at::linalg_cholesky_ex with check_errors: L with A = L L^H (its lower triangle read), or
    U = L^H (its upper triangle read). Node LinalgCholeskyExBackward0 (saving L and upper)."""
    if out is not None:
        return out_variant("linalg_cholesky", lambda *_: linalg_cholesky(A, upper=upper), out, (A,), {})
    a = A._array
    _square_check(a, "linalg.cholesky")
    _float_check(a, "linalg.cholesky")
    _lapack_check(a, "cholesky_cpu")
    xp = _backend.xp(a)
    src = xp.swapaxes(a, -1, -2) if upper else a
    try:
        with np.errstate(all="ignore"):
            low = xp.linalg.cholesky(src) if a.size else xp.array(src, copy=True)
        if a.size and not bool(xp.isfinite(low).all()) and bool(xp.isfinite(src).all()):
            raise np.linalg.LinAlgError
    except np.linalg.LinAlgError:
        host = np.asarray(_backend.to_host(src)).reshape((-1,) + a.shape[-2:])
        for i, m in enumerate(host):
            try:
                np.linalg.cholesky(m)
            except np.linalg.LinAlgError:
                raise _LinAlgError(f"linalg.cholesky: {_batch_prefix(a, i)}The factorization could not be "
                                   "completed because the input is not positive-definite (the leading minor of "
                                   f"order {_cholesky_failure(m)} is not positive-definite).") from None
        raise
    r = xp.swapaxes(low, -1, -2) if upper else low
    out = _wrap(_backend.ascontiguousarray(r.astype(a.dtype, copy=False)), A)
    return _record(_S.LinalgCholeskyExBackward0, (A,), out, L=out, upper=upper)


# norms --------------------------------------------------------------------------------------

def _ord_str(p):
    if p == math.inf:
        return "inf"
    if p == -math.inf:
        return "-inf"
    return str(p)


def linalg_vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):  # noqa: A002 - torch's names
    """at::linalg_vector_norm: (sum |x|^ord)^(1/ord) over `dim` (all dims for None); ord inf /
    -inf the max / min of |x|, ord 0 the count of nonzeros. Node LinalgVectorNormBackward0."""
    if out is not None:
        return out_variant("linalg_vector_norm", lambda *_: linalg_vector_norm(x, ord, dim, keepdim, dtype=dtype),
                           out, (x,), {})
    a = x._array
    _float_check(a, "linalg.vector_norm")
    if dtype is not None:
        if dtype._np.kind != "f":
            raise RuntimeError(f"linalg.vector_norm: dtype should be floating point or complex, but got "
                               f"{dtype}".replace("torchlite.", "torch."))
        a = a.astype(dtype._np)
    dims = None
    if dim is not None:
        dims = _norm_dims(dim, a.ndim)
        if isinstance(dim, (list, tuple)) and not dims:
            dims = None
    axis = None if dims is None or a.ndim == 0 else tuple(dims)
    if a.size == 0 and (ord < 0 or math.isinf(ord)):
        if axis is None:
            raise RuntimeError(f"linalg.vector_norm cannot compute the {_ord_str(ord)} norm on an empty tensor "
                               "because the operation does not have an identity")
        for d in (dim,) if isinstance(dim, int) else dim:  # as given, in torch's message (its missing space too)
            if a.shape[d] == 0:
                raise RuntimeError(f"linalg.vector_norm cannot compute the {_ord_str(ord)} norm on the dimension "
                                   f"{d}because this dimension is empty and the operation does not have an identity")
    xp = _backend.xp(a)
    with np.errstate(all="ignore"):
        absa = xp.abs(a)
        if ord == 2:
            r = xp.sqrt(xp.sum(a * a, axis=axis, keepdims=keepdim))
        elif ord == math.inf:
            r = xp.max(absa, axis=axis, keepdims=keepdim)
        elif ord == -math.inf:
            r = xp.min(absa, axis=axis, keepdims=keepdim)
        elif ord == 0:
            r = xp.sum(a != 0, axis=axis, keepdims=keepdim).astype(a.dtype)
        elif ord == 1:
            r = xp.sum(absa, axis=axis, keepdims=keepdim)
        else:
            r = xp.power(xp.sum(xp.power(absa, a.dtype.type(ord)), axis=axis, keepdims=keepdim),
                         a.dtype.type(1.0 / ord))
    r = xp.asarray(r, dtype=a.dtype)
    out = _wrap(r if r.flags.c_contiguous else r.copy(), x)
    saved_dim = None if dim is None else (tuple(dim) if isinstance(dim, (list, tuple)) else (dim,))
    return _record(_S.LinalgVectorNormBackward0, (x,), out, self=x, ord=ord, dim=saved_dim, keepdim=keepdim,
                   result=out)


def _amax_like(x, dim, keepdim, largest):
    """amax / amin over one dim, differentiated as torch's amax is (the gradient shared evenly
    among the tied elements): x * mask summed and divided by the count, with the mask and count
    constants."""
    a = x._array
    m = (np.max if largest else np.min)(a, axis=dim, keepdims=True)
    mask = (a == m) | np.isnan(a)
    count = mask.sum(axis=dim, keepdims=keepdim)
    return div(sum(mul(x, _const(mask.astype(a.dtype), x)), dim, keepdim), _const(count.astype(a.dtype), x))


def linalg_matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):  # noqa: A002
    """at::linalg_matrix_norm: 'fro' the vector 2-norm over the two dims; 1 / -1 / inf / -inf
    the max / min of the column (row) sums of |A|; 'nuc', 2 and -2 from the singular values."""
    if out is not None:
        return out_variant("linalg_matrix_norm", lambda *_: linalg_matrix_norm(A, ord, dim, keepdim, dtype=dtype),
                           out, (A,), {})
    a = A._array
    # at::linalg_matrix_norm: ord first, then _linalg_matrix_norm_checks (matrix, dtype with low precision
    # refused for the singular-value orders, dims)
    if isinstance(ord, str):
        if ord not in ("fro", "nuc"):
            raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    elif ord not in (1, -1, 2, -2, math.inf, -math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {_ord_str(ord)} not supported.")
    if a.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    _float_check(a, "linalg.matrix_norm", low_precision=ord != "nuc" and (isinstance(ord, str) or abs(ord) != 2))
    dims = list(_norm_dims(dim, a.ndim))
    if len(dims) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dim))}")
    if dims[0] == dims[1]:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})")
    if isinstance(ord, str):
        if ord == "fro":  # (over the dims wrapped, as torch saves them)
            return linalg_vector_norm(A, 2, tuple(dims), keepdim, dtype=dtype)
        return _svd_norm(A, "nuc", dims, keepdim, dtype)
    if abs(ord) == 2:
        return _svd_norm(A, ord, dims, keepdim, dtype)
    if abs(ord) == math.inf:
        dims = [dims[1], dims[0]]
    if not keepdim and dims[0] < dims[1]:
        dims[1] -= 1
    return _amax_like(linalg_vector_norm(A, 1.0, (dims[0],), keepdim, dtype=dtype), dims[1], keepdim, ord > 0)


def _svd_norm(A, ord, dims, keepdim, dtype):  # noqa: A002 - torch's name
    """linalg_matrix_norm's 'nuc' / 2 / -2: the two dims moved last (permute), svdvals, then its
    sum / amax / amin over the last dim; keepdim puts the two dims back as ones (unsqueeze,
    permute)."""
    if A._array.dtype == np.float16:  # (_linalg_matrix_norm_checks with low_precision=False)
        raise RuntimeError("linalg.matrix_norm: Low precision dtypes not supported. Got Half")
    nd = A._array.ndim
    perm = [d for d in range(nd) if d not in dims] + list(dims)
    A_ = to(A, dtype) if dtype is not None else A
    S = linalg_svdvals(permute(A_, perm))
    if ord == "nuc" or (ord > 0 and S._array.size == 0):  # (an empty matrix's 2-norm: 0, as torch's)
        r = sum(S, -1, keepdim)
    else:
        r = (amax if ord > 0 else amin)(S, -1, keepdim)
    if keepdim:
        reverse = [perm.index(d) for d in range(nd)]
        r = permute(unsqueeze(r, -1), reverse)
    return r


def linalg_norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):  # noqa: A002
    """at::linalg_norm: a matrix norm for a string ord, a 2-tuple dim, or a 2-D input with an
    ord and no dim; else the vector norm (ord 2 where None)."""
    if out is not None:
        return out_variant("linalg_norm", lambda *_: linalg_norm(A, ord, dim, keepdim, dtype=dtype), out, (A,), {})
    a = A._array
    if dim is not None:
        dim = (dim,) if isinstance(dim, int) else tuple(dim)
        if len(dim) not in (1, 2):
            raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {list(dim)}")
    elif ord is not None and a.ndim not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got "
                           f"{a.ndim}D.")
    if isinstance(ord, str):
        return linalg_matrix_norm(A, ord, dim if dim is not None else (-2, -1), keepdim, dtype=dtype)
    if ord is not None and ((dim is not None and len(dim) == 2) or (dim is None and a.ndim == 2)):
        return linalg_matrix_norm(A, ord, dim if dim is not None else (0, 1), keepdim, dtype=dtype)
    return linalg_vector_norm(A, 2.0 if ord is None else ord, dim, keepdim, dtype=dtype)


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):  # noqa: A002 - torch's names
    """torch.norm (functional.py): the vector norm, or a matrix norm for a string p other than
    'fro' over at most two dims."""
    if out is not None:
        return out_variant("norm", lambda *_: norm(input, p, dim, keepdim, dtype=dtype), out, (input,), {})
    _dim = None if dim is None else [dim] if isinstance(dim, int) else dim
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
            return linalg_vector_norm(input, 2, _dim, keepdim, dtype=dtype)
        if _dim is None:
            _dim = list(range(input._array.ndim))
        return linalg_matrix_norm(input, p, _dim, keepdim, dtype=dtype)
    return linalg_vector_norm(input, 2.0 if p is None else p, _dim, keepdim, dtype=dtype)


# cond ---------------------------------------------------------------------------------------

def _host_array(a):
    return np.asarray(_backend.to_host(a))


def linalg_cond(A, p=None, *, out=None):
    """torch.linalg.cond: p None / 2 / -2 the ratio of the extreme singular values (svdvals, two
    narrows, a division, a squeeze); the other norms |A| |A^-1| (square A), nan where singular."""
    if out is not None:
        return out_variant("linalg_cond", lambda *_: linalg_cond(A, p), out, (A,), {})
    a = A._array
    if a.ndim < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    if p is None or (not isinstance(p, str) and abs(p) == 2):
        S = linalg_svdvals(A)
        k = S._array.shape[-1]
        if p == -2:
            return squeeze(div(narrow(S, -1, k - 1, 1), narrow(S, -1, 0, 1)), -1)
        return squeeze(div(narrow(S, -1, 0, 1), narrow(S, -1, k - 1, 1)), -1)
    if isinstance(p, str):
        if p not in ("fro", "nuc"):
            raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    elif p not in (1, -1, math.inf, -math.inf):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    _square_check(a, f"linalg.cond(ord={p})")
    info = _host_array(_lu_torch(a)[2])
    if a.size and info.any():
        # torch inverts with linalg_inv_ex and fills a singular matrix's inverse with inf (its
        # cond is then inf); that inverse is a constant here
        h = _host_array(a)
        inv = np.empty_like(h)
        flat, out_flat, bad = h.reshape((-1,) + h.shape[-2:]), inv.reshape((-1,) + h.shape[-2:]), info.reshape(-1)
        for i in range(flat.shape[0]):
            out_flat[i] = np.inf if bad[i] else np.linalg.inv(flat[i])
        inverse = _const(inv, A)
    else:
        inverse = linalg_inv(A)
    return nan_to_num(mul(linalg_matrix_norm(A, p), linalg_matrix_norm(inverse, p)), math.inf)
