"""The spectral factorisations and what is computed from them (ATen/native/BatchLinearAlgebra.cpp,
LinearAlgebra.cpp): svd (_linalg_svd, linalg.svd, linalg.svdvals, the deprecated torch.svd),
eigh (_linalg_eigh, linalg.eigh, linalg.eigvalsh), linalg.qr, linalg.pinv / pinverse,
linalg.lstsq and linalg.matrix_rank (linalg.cond and the singular-value matrix norms, built on
svdvals, are BatchLinearAlgebra.py's).

numpy.linalg computes the values (LAPACK's gesdd, syevd, geqrf as torch's CPU kernels), on the
host; the nodes and the fields they save are torch's (derivatives.yaml)."""
import numpy as np

from .. import _backend
from .._C import _record, _wrap, is_grad_enabled
from .._generated import specs as _S
from .Resize import out_variant
from .ScalarType import _torch_type_name
from .TensorFactories import _const
from .TensorShape import transpose

__all__ = ["linalg_svd", "linalg_svdvals", "svd", "linalg_eigh", "linalg_eigvalsh", "linalg_qr", "linalg_pinv",
           "pinverse", "linalg_lstsq", "linalg_matrix_rank"]


def _named(name, fields):
    """torch.return_types.<name>: a tuple with named fields."""
    def __new__(cls, sequence):
        values = tuple(sequence)
        if len(values) != len(fields):
            raise TypeError(f"torchlite.return_types.{name} takes a {len(fields)}-sequence ({len(values)}-sequence "
                            "given)")
        return tuple.__new__(cls, values)

    def __repr__(self):
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(fields, self, strict=True))
        return f"torchlite.return_types.{name}(\n{body})"

    ns = {"__new__": __new__, "__repr__": __repr__, "__module__": "torchlite.return_types", "__slots__": (),
          "n_fields": len(fields), "n_sequence_fields": len(fields), "n_unnamed_fields": 0}
    for i, f in enumerate(fields):
        ns[f] = property(lambda self, i=i: self[i])
    return type(name, (tuple,), ns)


_SVD = _named("linalg_svd", ("U", "S", "Vh"))
_SVD_OLD = _named("svd", ("U", "S", "V"))
_EIGH = _named("linalg_eigh", ("eigenvalues", "eigenvectors"))
_QR = _named("linalg_qr", ("Q", "R"))
_SVD_OUT = _named("linalg_svd_out", ("U", "S", "Vh"))
_EIGH_OUT = _named("linalg_eigh_out", ("eigenvalues", "eigenvectors"))
_QR_OUT = _named("linalg_qr_out", ("Q", "R"))
_LSTSQ = _named("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))


def _host(a):
    return np.asarray(_backend.to_host(a))


def _dev(r, like):
    """A result array (host) as a tensor on like's device."""
    return _wrap(_backend.asarray(np.require(r, requirements='C'), like=like), like)


def _float_check(a, name):
    if a.dtype.kind not in "fc":
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{_torch_type_name(a.dtype)}")


def _half_check(a, kernel):
    if a.dtype == np.float16:
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Half'")


def _dim_check(a, name):
    if a.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")


def _square_check(a, name):
    _dim_check(a, name)
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {a.shape[-2]} by "
                           f"{a.shape[-1]} matrices")


def _may_need_grad(A):
    """_may_require_fw_or_bw_grad: whether the op's node will be recorded."""
    return is_grad_enabled() and A.requires_grad


# svd ----------------------------------------------------------------------------------------

def _svd_arrays(a, full_matrices, compute_uv):
    """gesdd per matrix of the batch: U (m x m or m x k), S (k, descending), Vh (n x n or k x n);
    U and Vh empty where not computed (as torch's kernel leaves them)."""
    m, n = a.shape[-2:]
    k = min(m, n)
    batch = a.shape[:-2]
    if not compute_uv:
        s = np.linalg.svd(a, compute_uv=False) if a.size else np.zeros(batch + (k,), a.dtype)
        return np.zeros((0,), a.dtype), s.astype(a.dtype, copy=False), np.zeros((0,), a.dtype)
    if a.size:
        u, s, vh = np.linalg.svd(a, full_matrices=full_matrices)
    else:  # an empty matrix: identities where full (LAPACK's), empty otherwise
        um, vn = (m, n) if full_matrices else (k, k)
        u = np.broadcast_to(np.eye(m, um, dtype=a.dtype), batch + (m, um))
        s = np.zeros(batch + (k,), a.dtype)
        vh = np.broadcast_to(np.eye(vn, n, dtype=a.dtype), batch + (vn, n))
    return u.astype(a.dtype, copy=False), s.astype(a.dtype, copy=False), vh.astype(a.dtype, copy=False)


def _linalg_svd(A, full_matrices=False, compute_uv=True, driver=None):
    """at::_linalg_svd: (U, S, Vh), one node for all three (LinalgSvdBackward0, saving
    full_matrices, U, S, S.size(-1) and Vh)."""
    a = A._array
    _dim_check(a, "linalg.svd")
    _float_check(a, "linalg.svd")
    if driver is not None:
        raise RuntimeError("torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with "
                           "cuSOLVER backend.")
    _half_check(a, "linalg_svd_cpu")
    u, s, vh = _svd_arrays(_host(a), full_matrices, compute_uv)
    U, S, Vh = _dev(u, A), _dev(s, A), _dev(vh, A)
    return _record(_S.LinalgSvdBackward0, (A,), (U, S, Vh), full_matrices=full_matrices, U=U, S=S,
                   S_sym_argsize_minus_1=s.shape[-1], Vh=Vh)


def linalg_svd(A, full_matrices=True, *, driver=None, out=None):
    """torch.linalg.svd: A = U diag(S) Vh, S descending; U and Vh are unique up to the sign of
    each singular vector pair."""
    if out is not None:
        return _SVD_OUT(out_variant("linalg_svd", lambda *_: linalg_svd(A, full_matrices, driver=driver), out, (A,),
                                    {}))
    return _SVD(_linalg_svd(A, full_matrices, True, driver))


def linalg_svdvals(A, *, driver=None, out=None):
    """torch.linalg.svdvals: _linalg_svd's S, U and Vh computed only where a gradient may be
    needed (svd_backward reads them)."""
    if out is not None:
        return out_variant("linalg_svdvals", lambda *_: linalg_svdvals(A, driver=driver), out, (A,), {})
    return _linalg_svd(A, False, _may_need_grad(A), driver)[1]


def svd(self, some=True, compute_uv=True):
    """torch.svd (deprecated): linalg.svd's U, S and Vh's adjoint V (a TransposeBackward0 view);
    compute_uv=False: zero U (m x m) and V (n x n) beside svdvals' S."""
    if not isinstance(some, bool) or not isinstance(compute_uv, bool):
        raise TypeError("svd(): `some` and `compute_uv` must be bool")  # (the parser words it from the schema)
    a = self._array
    if a.ndim < 2:
        raise RuntimeError(f"linalg.svd: input should have at least 2 dimensions, but has {a.ndim} dimensions "
                           "instead")
    if compute_uv:
        U, S, Vh = _linalg_svd(self, not some, True)
        return _SVD_OLD((U, S, transpose(Vh, -2, -1)))
    S = linalg_svdvals(self)
    m, n = a.shape[-2:]
    zeros = np.zeros
    U = _const(zeros(a.shape[:-2] + (m, m), a.dtype), self)
    V = _const(zeros(a.shape[:-2] + (n, n), a.dtype), self)
    return _SVD_OLD((U, S, V))


# eigh ---------------------------------------------------------------------------------------

def _uplo_check(UPLO):
    if not isinstance(UPLO, str) or len(UPLO) != 1 or UPLO.upper() not in "LU":
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")


def _linalg_eigh(A, UPLO="L", compute_v=True):
    """at::_linalg_eigh: eigenvalues ascending, eigenvectors as columns (syevd reading the UPLO
    triangle); node LinalgEighBackward0 saving both outputs."""
    a = A._array
    _square_check(a, "linalg.eigh")
    _uplo_check(UPLO)
    if a.dtype.kind not in "fc" or a.dtype == np.float16:
        raise NotImplementedError(f"\"linalg_eigh_cpu\" not implemented for '{_torch_type_name(a.dtype)}'")
    h = _host(a)
    n = a.shape[-1]
    if h.size:
        w, v = np.linalg.eigh(h, UPLO=UPLO.upper())
    else:
        w, v = np.zeros(a.shape[:-1], a.dtype), np.zeros(a.shape, a.dtype)
    w = w.astype(a.dtype, copy=False)
    v = v.astype(a.dtype, copy=False) if compute_v else np.zeros((0,), a.dtype)
    del n
    L, V = _dev(w, A), _dev(v, A)
    return _record(_S.LinalgEighBackward0, (A,), (L, V), eigenvalues=L, eigenvectors=V)


def linalg_eigh(A, UPLO="L", *, out=None):
    """torch.linalg.eigh: (eigenvalues, eigenvectors) of a symmetric (Hermitian) matrix, read
    from its UPLO triangle; each eigenvector is unique up to sign (for distinct eigenvalues)."""
    if out is not None:
        return _EIGH_OUT(out_variant("linalg_eigh", lambda *_: linalg_eigh(A, UPLO), out, (A,), {}))
    return _EIGH(_linalg_eigh(A, UPLO, True))


def linalg_eigvalsh(A, UPLO="L", *, out=None):
    """torch.linalg.eigvalsh: _linalg_eigh's eigenvalues (the eigenvectors computed where a
    gradient may be needed)."""
    if out is not None:
        return out_variant("linalg_eigvalsh", lambda *_: linalg_eigvalsh(A, UPLO), out, (A,), {})
    return _linalg_eigh(A, UPLO, _may_need_grad(A))[0]


# qr -----------------------------------------------------------------------------------------

def linalg_qr(A, mode="reduced", *, out=None):
    """torch.linalg.qr: A = Q R (geqrf + orgqr); mode 'reduced' (Q m x k), 'complete' (Q m x m),
    'r' (Q empty). Node LinalgQrBackward0 saving mode, Q and R."""
    if out is not None:
        return _QR_OUT(out_variant("linalg_qr", lambda *_: linalg_qr(A, mode), out, (A,), {}))
    a = A._array
    _dim_check(a, "linalg.qr")
    _float_check(a, "linalg.qr")
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', "
                           "or 'complete'")
    _half_check(a, "geqrf_cpu")
    h = _host(a)
    m, n = a.shape[-2:]
    k = min(m, n)
    batch = a.shape[:-2]
    qcols = m if mode == "complete" else k
    rrows = m if mode == "complete" else k
    if h.size:
        q, r = np.linalg.qr(h, mode="complete" if mode == "complete" else "reduced")
    else:
        q = np.broadcast_to(np.eye(m, qcols, dtype=a.dtype), batch + (m, qcols))
        r = np.zeros(batch + (rrows, n), a.dtype)
    if mode == "r":
        q = np.zeros((0,), a.dtype)
    Q, R = _dev(q.astype(a.dtype, copy=False), A), _dev(r.astype(a.dtype, copy=False), A)
    return _QR(_record(_S.LinalgQrBackward0, (A,), (Q, R), mode=mode, Q=Q, R=R))


# pinv ---------------------------------------------------------------------------------------

def _tol_array(t, like_shape):
    if t is None:
        return None
    if hasattr(t, "_array"):
        return _host(t._array).astype(np.float64)
    return np.float64(t)


def _bad_combination(name, positional, A, value, atol, rtol):
    """The argument parser's error for a positional rcond / tol with atol= or rtol= (torch's four
    signatures of linalg_pinv / linalg_matrix_rank)."""
    def kind(v):
        return "Tensor" if hasattr(v, "_array") else type(v).__name__
    got = ", ".join([kind(A), kind(value)] + [f"{n}={kind(v)}" for n, v in (("atol", atol), ("rtol", rtol))
                                               if v is not None])
    return (f"{name}() received an invalid combination of arguments - got ({got}), but expected one of:\n"
            " * (Tensor input, *, Tensor atol = None, Tensor rtol = None, bool hermitian = False, Tensor out = None)\n"
            " * (Tensor input, *, float atol = None, float rtol = None, bool hermitian = False, Tensor out = None)\n"
            f" * (Tensor input, Tensor {positional}, bool hermitian = False, *, Tensor out = None)\n"
            f" * (Tensor input, float {positional}, bool hermitian = False, *, Tensor out = None)\n")


def linalg_pinv(A, rcond=None, hermitian=False, *, atol=None, rtol=None, out=None):
    """torch.linalg.pinv (at::linalg_pinv, one node LinalgPinvBackward0 saving self and the
    result): the singular values (eigenvalues' magnitudes where hermitian) above
    max(atol, rtol * the largest) inverted, the others zeroed. rtol defaults to eps * max(m, n)
    where atol is not given (or is zero), else to zero; rcond is rtol."""
    if out is not None:
        return out_variant("linalg_pinv", lambda *_: linalg_pinv(A, rcond, hermitian, atol=atol, rtol=rtol),
                           out, (A,), {})
    a = A._array
    if a.ndim < 2 or a.dtype.kind not in "fc" or a.dtype == np.float16 or a.dtype.itemsize < 4:
        raise RuntimeError(f"linalg.pinv({_torch_type_name(a.dtype)}{{{list(a.shape)}}}): expected a tensor with 2 or "
                           "more dimensions of float, double, cfloat or cdouble types")
    if rcond is not None:
        if atol is not None or rtol is not None:
            raise TypeError(_bad_combination("linalg_pinv", "rcond", A, rcond, atol, rtol))
        rtol = rcond
    if hermitian:
        _square_check(a, "linalg.eigh")
    h = _host(a).astype(a.dtype)
    m, n = a.shape[-2:]
    atol_a = _tol_array(atol, None)
    rtol_a = _tol_array(rtol, None)
    if rtol_a is None:
        eps = np.finfo(a.dtype).eps
        rtol_a = (np.float64(eps * max(m, n)) if atol_a is None or np.all(atol_a <= 0)
                  else np.float64(0.0))
    if atol_a is None:
        atol_a = np.float64(0.0)
    if h.size == 0:
        r = np.zeros(a.shape[:-2] + (n, m), a.dtype)
    elif hermitian:
        w, v = np.linalg.eigh(h, UPLO="L")
        absw = np.abs(w)
        mx = absw.max(axis=-1, keepdims=True)
        tol = np.maximum(np.asarray(atol_a)[..., None] if np.ndim(atol_a) else atol_a,
                         (np.asarray(rtol_a)[..., None] if np.ndim(rtol_a) else rtol_a) * mx)
        with np.errstate(all="ignore"):
            winv = np.where(absw > tol, 1 / w, 0).astype(a.dtype)
        r = np.matmul(v * winv[..., None, :], np.swapaxes(v, -1, -2))
    else:
        u, s, vh = np.linalg.svd(h, full_matrices=False)
        mx = s[..., :1]
        tol = np.maximum(np.asarray(atol_a)[..., None] if np.ndim(atol_a) else atol_a,
                         (np.asarray(rtol_a)[..., None] if np.ndim(rtol_a) else rtol_a) * mx)
        with np.errstate(all="ignore"):
            sinv = np.where(s > tol, 1 / s, 0).astype(a.dtype)
        r = np.matmul(np.swapaxes(vh, -1, -2) * sinv[..., None, :], np.swapaxes(u, -1, -2))
    out = _dev(r.astype(a.dtype, copy=False), A)
    return _record(_S.LinalgPinvBackward0, (A,), out, self=A, result=out)


def pinverse(self, rcond=1e-15):
    """torch.pinverse: linalg.pinv(self, rcond)."""
    return linalg_pinv(self, rcond)


# lstsq --------------------------------------------------------------------------------------

def linalg_lstsq(A, B, rcond=None, *, driver=None):
    """torch.linalg.lstsq: X minimising |A X - B| (batched, A's and B's batches broadcast), as
    the CPU drivers fill the named tuple: gelsy (default) the rank, gels the residuals, gelsd /
    gelss the rank, singular values and residuals (the residuals where m > n and every matrix is
    of full rank). Node LinalgLstsqBackward0 saving self, b and the solution."""
    a, b = A._array, B._array
    if a.ndim < 2:
        raise RuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    if a.dtype != b.dtype:
        if a.dtype.kind not in "fc" or b.dtype.kind not in "fc":
            raise RuntimeError("This function doesn't handle types other than float and double")
        raise RuntimeError(f"torch.linalg.lstsq: Expected input and other to have the same dtype, but got input's "
                           f"dtype {_torch_type_name(a.dtype)} and other's dtype {_torch_type_name(b.dtype)}")
    if a.dtype not in (np.float32, np.float64):
        raise RuntimeError("This function doesn't handle types other than float and double")
    if not 0 <= a.ndim - b.ndim <= 1:
        raise RuntimeError("torch.linalg.lstsq: input.dim() must be greater or equal to other.dim() and "
                           "(input.dim() - other.dim()) <= 1")
    vector = a.ndim - b.ndim == 1  # (torch's lstsq's own test, not linalg_solve_is_vector_rhs)
    bm = b[..., None] if vector else b
    try:
        batch = np.broadcast_shapes(a.shape[:-2], bm.shape[:-2])
    except ValueError:
        x, y = a.shape[:-2], bm.shape[:-2]
        k = max(len(x), len(y))
        x, y = (1,) * (k - len(x)) + x, (1,) * (k - len(y)) + y
        d = next(i for i in range(k) if x[i] != y[i] and 1 not in (x[i], y[i]))
        raise RuntimeError(f"The size of tensor a ({x[d]}) must match the size of tensor b ({y[d]}) at "
                           f"non-singleton dimension {d}") from None
    if a.shape[-2] != bm.shape[-2]:
        if vector:
            raise RuntimeError("torch.linalg.lstsq: input.size(-2) should match other.size(-1)")
        raise RuntimeError("torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    if driver is None:
        driver = "gelsy"
    if driver not in ("gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    m, n = a.shape[-2:]
    nrhs = bm.shape[-1]
    count = int(np.prod(batch))
    ha = np.broadcast_to(_host(a), batch + (m, n)).reshape((count, m, n))
    hb = np.broadcast_to(_host(bm), batch + (m, nrhs)).reshape((count, m, nrhs))
    eps = np.finfo(a.dtype).eps
    # (torch's default rcond: eps * max(m, n); a negative one is gelsd / gelss' "machine precision",
    # and no threshold for gelsy, whose rank then counts the nonzero diagonal of its pivoted R)
    rc = eps * max(m, n) if rcond is None else rcond if rcond >= 0 else 0.0 if driver == "gelsy" else eps
    k = min(m, n)
    xs = np.zeros((count, n, nrhs), a.dtype)
    ranks = np.zeros(count, np.int64)
    svals = np.zeros((count, k), a.dtype)
    for i in range(count):
        if ha[i].size == 0:
            continue
        u, s, vh = np.linalg.svd(ha[i].astype(np.float64), full_matrices=False)
        svals[i] = s
        if driver == "gels":
            keep = np.ones_like(s, dtype=bool)
        else:
            keep = s > rc * (s[0] if s.size else 0)
        ranks[i] = int(keep.sum())
        with np.errstate(all="ignore"):
            sinv = np.where(keep, 1 / s, 0)
        xs[i] = (vh.T * sinv) @ (u.T @ hb[i].astype(np.float64))
    sol = xs.reshape(batch + (n, nrhs))
    full_rank = bool(np.all(ranks == n))
    residuals = np.zeros((0,), a.dtype)
    if m > n and driver != "gelsy" and (driver == "gels" or full_rank):
        res = np.matmul(ha.astype(np.float64), xs.astype(np.float64)) - hb
        # (a vector right-hand side keeps its residual's column, as torch's)
        residuals = (res * res).sum(axis=-2).astype(a.dtype).reshape(batch + (nrhs,))
    rank = ranks.reshape(batch) if driver != "gels" else np.zeros((0,), np.int64)
    sv = svals.reshape(batch + (k,)) if driver in ("gelsd", "gelss") else np.zeros((0,), a.dtype)
    if vector:
        sol = sol[..., 0]
    X = _dev(sol.astype(a.dtype), A)
    Res = _dev(residuals, A)
    out = _record(_S.LinalgLstsqBackward0, (A, B), (X, Res), self=A, b=B, solution=X)
    return _LSTSQ((out[0], out[1], _dev(rank, A), _dev(sv, A)))


# matrix_rank -------------------------------------------------------------------------

def linalg_matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None, out=None):
    """torch.linalg.matrix_rank: the count of singular values (eigenvalue magnitudes where
    hermitian) above max(atol, rtol * the largest); int64, never differentiable."""
    if out is not None:
        return out_variant("linalg_matrix_rank",
                           lambda *_: linalg_matrix_rank(A, tol, hermitian, atol=atol, rtol=rtol), out, (A,), {})
    a = A._array
    if a.ndim < 2:
        raise RuntimeError("torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions.")
    if a.dtype.kind not in "fc" or a.dtype == np.float16:
        raise RuntimeError("This function doesn't handle types other than float and double")
    if tol is not None:
        if atol is not None or rtol is not None:
            raise TypeError(_bad_combination("linalg_matrix_rank", "tol", A, tol, atol, rtol))
        atol, rtol = tol, 0.0
    if hermitian:
        _square_check(a, "linalg.eigh")
    h = _host(a)
    m, n = a.shape[-2:]
    atol_a = _tol_array(atol, None)
    rtol_a = _tol_array(rtol, None)
    if rtol_a is None:
        rtol_a = (np.float64(np.finfo(a.dtype).eps * max(m, n)) if atol_a is None or np.all(atol_a <= 0)
                  else np.float64(0.0))
    if atol_a is None:
        atol_a = np.float64(0.0)
    if h.size == 0:
        r = np.zeros(a.shape[:-2], np.int64)
    else:
        s = np.abs(np.linalg.eigvalsh(h)) if hermitian else np.linalg.svd(h, compute_uv=False)
        mx = s.max(axis=-1, keepdims=True)
        tol_ = np.maximum(np.asarray(atol_a)[..., None] if np.ndim(atol_a) else atol_a,
                          (np.asarray(rtol_a)[..., None] if np.ndim(rtol_a) else rtol_a) * mx)
        r = (s > tol_).sum(axis=-1).astype(np.int64)
    return _dev(np.asarray(r), A)
