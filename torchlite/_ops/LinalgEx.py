"""linalg.inv_ex and linalg.cholesky_ex (ATen/native/BatchLinearAlgebra.cpp, linalg_inv_ex /
linalg_cholesky_ex): the inverse and the Cholesky factor with LAPACK's info per matrix as a second result
(int32, of the batch's shape), raising only with check_errors=True (_linalg_check_errors' messages).
Where a matrix fails, its result is what LAPACK leaves: for inv_ex, getrs' solve of A X = I from the LU
of A with its zero pivot (inf / nan); for cholesky_ex, the unblocked potf2's partial factor (the columns
before the failing one factored, the failing diagonal element its updated value, the rest of the
triangle as in A). Nodes LinalgInvExBackward0 (saving the inverse) and LinalgCholeskyExBackward0
(saving L and upper); info is not differentiable."""
import numpy as np

from .. import _backend
from .._C import _record, _wrap
from .._generated import specs as _S
from .BatchLinearAlgebra import _LinAlgError, _batch_prefix, _float_check, _lu_factor, _lu_solve, _square_check


class _ExResult(tuple):
    """torch.return_types.linalg_inv_ex / linalg_cholesky_ex: (result, info)."""

    _fields: tuple = ()

    def __new__(cls, values):
        return super().__new__(cls, tuple(values))

    def __repr__(self):
        return (f"torchlite.return_types.{type(self).__name__}(\n{self._fields[0]}={self[0]!r},\n"
                f"{self._fields[1]}={self[1]!r})")


def _result_type(name, first):
    return type(name, (_ExResult,), {"__module__": "torchlite.return_types", "_fields": (first, "info"),
                                     first: property(lambda self: self[0]), "info": property(lambda self: self[1])})


_INV_EX = _result_type("linalg_inv_ex", "inverse")
_CHOLESKY_EX = _result_type("linalg_cholesky_ex", "L")


def _bool_kwarg(fn, name, value):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{fn}(): argument '{name}' must be bool, not {type(value).__name__}")


def _column_major(r):
    """r with each matrix column-major, as LAPACK writes torch's results (strides (.., 1, n))."""
    xp = _backend.xp(r)
    return xp.swapaxes(_backend.ascontiguousarray(xp.swapaxes(r, -1, -2)), -1, -2)


def _info(info, like):
    return _wrap(_backend.asarray(np.asarray(info, dtype=np.int32), like=like), like)


def linalg_inv_ex(A, *, check_errors=False):
    """torch.linalg.inv_ex: (inverse, info), info the 1-based index of the first zero pivot of A's LU
    (0 where A is invertible)."""
    _bool_kwarg("linalg_inv_ex", "check_errors", check_errors)
    a = A._array
    _square_check(a, "linalg.inv")
    _float_check(a, "linalg.inv")
    if a.size == 0:  # nothing to factor: an empty inverse, info 0 per (empty) matrix
        out = _wrap(_column_major(_backend.xp(a).array(a, copy=True)), A)
        inverse = _record(_S.LinalgInvExBackward0, (A,), out, inverse=out)
        return _INV_EX((inverse, _info(np.zeros(a.shape[:-2]), A)))
    lu, piv, info = _lu_factor(a)
    info_host = np.asarray(_backend.to_host(info)).reshape(-1)
    bad = np.flatnonzero(info_host)
    if check_errors and bad.size:
        i = int(bad[0])
        raise _LinAlgError(f"linalg.inv_ex: {_batch_prefix(a, i)}The diagonal element {int(info_host[i])} is zero, "
                           "the inversion could not be completed because the input matrix is singular.")
    xp = _backend.xp(a)
    n = a.shape[-1]
    with np.errstate(all="ignore"):
        if bad.size:
            # getrs from the LU, the singular matrices' inf / nan included (as LAPACK's solve gives them)
            eye = xp.broadcast_to(xp.eye(n, dtype=a.dtype), a.shape)
            r = _lu_solve(lu, piv, eye, False)
            good = info.reshape(a.shape[:-2]) == 0
            if bool(good.any()):
                r[good] = xp.linalg.inv(a[good])
        else:
            r = xp.linalg.inv(a)
    out = _wrap(_column_major(r.astype(a.dtype, copy=False)), A)
    inverse = _record(_S.LinalgInvExBackward0, (A,), out, inverse=out)
    return _INV_EX((inverse, _info(info_host.reshape(a.shape[:-2]), A)))


def _potf2(m):
    """LAPACK's unblocked potf2 (lower) on one matrix: (its factor as far as it got, info)."""
    m = np.array(m, copy=True)
    n = m.shape[-1]
    with np.errstate(all="ignore"):
        for j in range(n):
            ajj = m[j, j] - np.dot(m[j, :j], m[j, :j])
            if not ajj > 0:
                m[j, j] = ajj
                return m, j + 1
            ajj = np.sqrt(ajj)
            m[j, j] = ajj
            if j + 1 < n:
                m[j + 1:, j] = (m[j + 1:, j] - m[j + 1:, :j] @ m[j, :j]) / ajj
    return m, 0


def linalg_cholesky_ex(A, *, upper=False, check_errors=False):
    """torch.linalg.cholesky_ex: (L, info), info the order of the first leading minor that is not
    positive-definite (0 where A is positive-definite); upper=True gives U = L^H (A's upper triangle
    read)."""
    _bool_kwarg("linalg_cholesky_ex", "upper", upper)
    _bool_kwarg("linalg_cholesky_ex", "check_errors", check_errors)
    a = A._array
    _square_check(a, "linalg.cholesky")
    _float_check(a, "linalg.cholesky")
    xp = _backend.xp(a)
    n = a.shape[-1]
    src = xp.swapaxes(a, -1, -2) if upper else a
    mats = np.asarray(_backend.to_host(src)).reshape((int(np.prod(a.shape[:-2])), n, n))
    low = np.zeros(mats.shape, dtype=a.dtype)
    info = np.zeros(mats.shape[0], dtype=np.int32)
    for i, m in enumerate(mats):
        try:
            with np.errstate(all="ignore"):
                f = np.linalg.cholesky(m)
            if not np.isfinite(f).all():
                raise np.linalg.LinAlgError
        except np.linalg.LinAlgError:
            f, info[i] = _potf2(m)
        low[i] = np.tril(f)
    bad = np.flatnonzero(info)
    if check_errors and bad.size:
        i = int(bad[0])
        raise _LinAlgError(f"linalg.cholesky_ex: {_batch_prefix(a, i)}The factorization could not be completed "
                           "because the input is not positive-definite (the leading minor of order "
                           f"{int(info[i])} is not positive-definite).")
    low = low.reshape(a.shape)
    r = np.swapaxes(low, -1, -2) if upper else low
    out = _wrap(_column_major(_backend.asarray(r.astype(a.dtype, copy=False), like=A)), A)
    L = _record(_S.LinalgCholeskyExBackward0, (A,), out, L=out, upper=upper)
    return _CHOLESKY_EX((L, _info(info.reshape(a.shape[:-2]), A)))
