"""The spectral factorisations against torch: linalg.svd / svdvals, torch.svd, linalg.eigh /
eigvalsh, linalg.qr, linalg.pinv / pinverse, linalg.lstsq, linalg.matrix_rank, linalg.cond and
the singular-value matrix norms ('nuc', 2, -2), on "cpu" and "sim:0".

Singular and eigen vectors are defined up to sign: cases compare what is invariant (the singular
values, U diag(S) Vh, the squares of the vectors' entries, projectors) and the gradients of losses
made of those; gradcheck / gradgradcheck in float64 on well-separated spectra.

The fuzzer leaves these to this file (test_fuzz_coverage's TEST_LIST): _linalg_svd (linalg.svd,
svdvals, svd), _linalg_eigh (eigh, eigvalsh), linalg_qr, linalg_pinv and pinverse, linalg_lstsq."""
import warnings

import numpy as np
import pytest

import torchlite
from torchlite.autograd import gradcheck, gradgradcheck

from diff_utils import import_torch, run

torch = import_torch()

DEVICES = ["cpu", "sim:0"]


def data(*shape, seed=0):
    return np.random.default_rng(seed * 1000 + len(shape) * 7 + int(np.prod(shape))).uniform(-1.5, 1.5, size=shape)


def sym(n, batch=(), seed=0):
    a = data(*batch, n, n, seed=seed)
    return a + np.swapaxes(a, -1, -2) + np.diag(np.arange(n) * 2.0)


def T(lib, dev, arr, dtype="float64", grad=True):
    return lib.tensor(np.asarray(arr), dtype=getattr(lib, dtype), device=dev, requires_grad=grad)


def weights(lib, t, seed):
    return lib.tensor(data(*t.shape, seed=seed), dtype=t.dtype, device=t.device)


def grads_of(lib, loss, *leaves):
    return lib.autograd.grad(loss, leaves, allow_unused=True, retain_graph=True)


def check(case, dev):
    got = run(lambda lib: case(lib, dev), torchlite)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = run(lambda lib: case(lib, "cpu"), torch)
    assert got == want


def check_close(case, dev, tol):
    """numpy arrays compared with a tolerance (float64: 1e-10 relative), shapes and dtypes exactly."""
    got = case(torchlite, dev)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = case(torch, "cpu")
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        if isinstance(g, str):
            assert g.replace("torchlite.", "torch.") == w
            continue
        if isinstance(g, (int, bool, tuple)):
            assert g == w
            continue
        g = g.detach().numpy(force=True) if hasattr(g, "detach") else np.asarray(g)
        w = w.detach().numpy(force=True) if hasattr(w, "detach") else np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol * 1e-2)


CASES, CLOSE = {}, {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def close(fn):
    CLOSE[fn.__name__] = fn
    return fn


# svd ----------------------------------------------------------------------------------------

def _svd_invariants(lib, U, S, Vh, k):
    """U diag(S) Vh's pieces that do not depend on the signs: S, U_k diag(S) Vh_k, U_k^2, Vh_k^2."""
    Uk, Vk = U[..., :, :k], Vh[..., :k, :]
    return S, lib.matmul(Uk * S.unsqueeze(-2), Vk), Uk * Uk, Vk * Vk


@pytest.mark.parametrize("shape,full", [((4, 3), True), ((4, 3), False), ((3, 5), True), ((3, 5), False),
                                        ((2, 4, 3), False), ((2, 3, 3), True), ((3, 1), True)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("dev", DEVICES)
def test_linalg_svd(shape, full, dtype, dev):
    def fn(lib, dev):
        a = T(lib, dev, data(*shape), dtype)
        U, S, Vh = lib.linalg.svd(a, full_matrices=full)
        k = min(shape[-2:])
        inv = _svd_invariants(lib, U, S, Vh, k)
        loss = sum((t * weights(lib, t, i)).sum() for i, t in enumerate(inv))
        g = grads_of(lib, loss, a)[0]
        node = S.grad_fn
        return (*inv, g, str(U.dtype), tuple(U.shape), tuple(S.shape), tuple(Vh.shape), node.name(),
                U.grad_fn is node and Vh.grad_fn is node, node._saved_full_matrices,
                node._saved_S_sym_argsize_minus_1, tuple(node._saved_U.shape), tuple(node._saved_Vh.shape),
                type(lib.linalg.svd(a)).__name__)
    check_close(fn, dev, 1e-4 if dtype == "float32" else 1e-9)


@close
def svd_fields_and_gS_only(lib, dev):
    a = T(lib, dev, data(2, 5, 3))
    r = lib.linalg.svd(a, full_matrices=False)
    g = grads_of(lib, (r.S * weights(lib, r.S, 1)).sum(), a)[0]
    # gS alone (svdvals' path), U and Vh's gradients undefined
    return r.S, g, r._fields if hasattr(r, "_fields") else "", len(r), r[1]


@close
def svdvals(lib, dev):
    a = T(lib, dev, data(2, 3, 4))
    s = lib.linalg.svdvals(a)
    g = grads_of(lib, (s * weights(lib, s, 2)).sum(), a)[0]
    nograd = lib.linalg.svdvals(a.detach())
    return s, g, s.grad_fn.name(), nograd, str(nograd.grad_fn), tuple(s.grad_fn._saved_U.shape)


@close
def torch_svd_deprecated(lib, dev):
    a = T(lib, dev, data(4, 3))
    U, S, V = lib.svd(a)
    U2, S2, V2 = a.svd(some=False)
    U3, S3, V3 = lib.svd(a, compute_uv=False)
    loss = (S * weights(lib, S, 1)).sum() + (lib.matmul(U * S, V.mT) * weights(lib, a, 2)).sum() + (V * V).sum()
    g = grads_of(lib, loss, a)[0]
    return (S, lib.matmul(U * S, V.mT), V * V, g, V.grad_fn.name(),
            tuple(U2.shape), tuple(V2.shape), S2, U3, S3, V3, str(U3.grad_fn), S3.grad_fn.name(),
            type(lib.svd(a)).__name__)


@close
def svd_empty(lib, dev):
    a = T(lib, dev, np.zeros((0, 3)), grad=False)
    U, S, Vh = lib.linalg.svd(a)
    U2, S2, Vh2 = lib.linalg.svd(T(lib, dev, np.zeros((2, 0, 3)), grad=False), full_matrices=False)
    return U, S, Vh, U2, S2, Vh2, lib.linalg.svdvals(a)


@case
def svd_errors(lib, dev):
    out = []
    for f in [lambda: lib.linalg.svd(lib.ones(3, 3, dtype=lib.long, device=dev)),
              lambda: lib.linalg.svd(lib.ones(3, device=dev)),
              lambda: lib.linalg.svd(lib.ones(3, 3, device=dev), driver="gesvd"),
              lambda: lib.linalg.svd(lib.ones(3, 3, dtype=lib.float16, device=dev)),
              lambda: lib.linalg.svdvals(lib.ones(3, device=dev)),
              lambda: lib.svd(lib.ones(3, device=dev)),
              lambda: lib.svd(lib.ones(2, 2, dtype=lib.int32, device=dev))]:
        out.append(run(lambda _, f=f: f(), lib))
    return out


@case
def svd_repeated_singular_values(lib, dev):
    """A loss on the singular vectors where singular values repeat: torch's formula divides by
    zero (inf / nan), and so does this one; the singular values alone stay differentiable."""
    a = T(lib, dev, np.eye(3))
    U, S, Vh = lib.linalg.svd(a)
    g = grads_of(lib, (S * lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, device=dev)).sum(), a)[0]
    gu = grads_of(lib, (U * U * weights(lib, U, 3)).sum(), a)[0]
    return g, lib.isfinite(gu).all()


# eigh ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("n,batch", [(3, ()), (4, (2,)), (1, ()), (3, (2, 1))])
@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("dev", DEVICES)
def test_linalg_eigh(n, batch, uplo, dtype, dev):
    def fn(lib, dev):
        a = T(lib, dev, data(*batch, n, n) + 2 * np.diag(np.arange(n)), dtype)  # not symmetric: UPLO reads a half
        L, V = lib.linalg.eigh(a, UPLO=uplo)
        inv = (L, V * V, lib.matmul(V * L.unsqueeze(-2), V.mT))
        loss = sum((t * weights(lib, t, i)).sum() for i, t in enumerate(inv))
        g = grads_of(lib, loss, a)[0]
        ev = lib.linalg.eigvalsh(a, UPLO=uplo)
        gv = grads_of(lib, (ev * weights(lib, ev, 5)).sum(), a)[0]
        return (*inv, g, ev, gv, L.grad_fn.name(), V.grad_fn is L.grad_fn, tuple(L.grad_fn._saved_eigenvalues.shape),
                tuple(L.grad_fn._saved_eigenvectors.shape), ev.grad_fn.name(), type(lib.linalg.eigh(a)).__name__)
    check_close(fn, dev, 1e-4 if dtype == "float32" else 1e-9)


@case
def eigh_errors(lib, dev):
    out = []
    for f in [lambda: lib.linalg.eigh(lib.ones(4, 3, device=dev)),
              lambda: lib.linalg.eigh(lib.ones(3, 3, dtype=lib.long, device=dev)),
              lambda: lib.linalg.eigh(lib.ones(3, device=dev)),
              lambda: lib.linalg.eigh(lib.ones(3, 3, device=dev), UPLO="X"),
              lambda: lib.linalg.eigvalsh(lib.ones(4, 3, device=dev)),
              lambda: lib.linalg.eigvalsh(lib.eye(3, device=dev), UPLO="u"),
              lambda: [t.shape for t in lib.linalg.eigh(lib.ones(0, 0, device=dev))]]:
        out.append(run(lambda _, f=f: f(), lib))
    return out


# qr -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape,mode", [((4, 3), "reduced"), ((3, 3), "complete"), ((3, 5), "reduced"),
                                        ((3, 5), "complete"), ((2, 4, 3), "reduced"), ((4, 3), "complete"),
                                        ((4, 3), "r")])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("dev", DEVICES)
def test_linalg_qr(shape, mode, dtype, dev):
    def fn(lib, dev):
        a = T(lib, dev, data(*shape), dtype)
        Q, R = lib.linalg.qr(a, mode=mode)
        node = R.grad_fn
        loss = (R * weights(lib, R, 1)).sum() + ((Q * weights(lib, Q, 2)).sum() if mode != "r" else 0)
        err = run(lambda _: grads_of(lib, loss, a)[0], lib)
        return (Q, R, err[0], err[1] if err[0] == "raised" else err[1].array, node.name(), node._saved_mode,
                tuple(node._saved_Q.shape), tuple(node._saved_R.shape), type(lib.linalg.qr(a)).__name__)
    check_close(fn, dev, 1e-4 if dtype == "float32" else 1e-9)


@case
def qr_errors(lib, dev):
    out = []
    for f in [lambda: lib.linalg.qr(lib.ones(3, 3, dtype=lib.long, device=dev)),
              lambda: lib.linalg.qr(lib.ones(3, device=dev)),
              lambda: lib.linalg.qr(lib.ones(3, 3, device=dev), mode="foo"),
              lambda: [t.shape for t in lib.linalg.qr(lib.ones(0, 3, device=dev))]]:
        out.append(run(lambda _, f=f: f(), lib))
    return out


# pinv / lstsq / matrix_rank / cond / norms ---------------------------------------------------

@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 3, 3)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("dev", DEVICES)
def test_linalg_pinv(shape, dtype, dev):
    def fn(lib, dev):
        a = T(lib, dev, data(*shape), dtype)
        p = lib.linalg.pinv(a)
        q = lib.pinverse(a)
        r = a.pinverse(rcond=1e-3)
        s = lib.linalg.pinv(a, atol=0.5)
        outs = (p, q, r, s)
        loss = sum((t * weights(lib, t, i)).sum() for i, t in enumerate(outs))
        g = grads_of(lib, loss, a)[0]
        return (*outs, g, p.grad_fn.name(), p.grad_fn._saved_self, p.grad_fn._saved_result, str(p.dtype))
    check_close(fn, dev, 1e-4 if dtype == "float32" else 1e-9)


@close
def pinv_hermitian_and_tolerances(lib, dev):
    a = T(lib, dev, sym(4))
    h = lib.linalg.pinv(a, hermitian=True)
    g = grads_of(lib, (h * weights(lib, h, 1)).sum(), a)[0]
    low = T(lib, dev, data(4, 2) @ data(2, 3), grad=False)
    return (h, g, lib.linalg.pinv(low), lib.linalg.pinv(low, rtol=0.9), lib.linalg.pinv(low, 0.2),
            lib.linalg.pinv(low, atol=lib.tensor(1.0, dtype=lib.float64, device=dev)), lib.linalg.pinv(low[:0]))


@case
def pinv_errors(lib, dev):
    out = []
    for f in [lambda: lib.linalg.pinv(lib.ones(3, 3, dtype=lib.long, device=dev)),
              lambda: lib.linalg.pinv(lib.ones(3, device=dev)),
              lambda: lib.linalg.pinv(lib.ones(4, 3, device=dev), hermitian=True),
              lambda: lib.pinverse(lib.ones(3, 3, dtype=lib.long, device=dev)),
              lambda: lib.linalg.pinv(lib.ones(3, 3, device=dev), 0.1, atol=0.2),
              lambda: lib.linalg.matrix_rank(lib.ones(3, 3, device=dev), 0.1, rtol=0.2),
              lambda: lib.linalg.qr(lib.ones(3, 3, dtype=lib.float16, device=dev))]:
        out.append(run(lambda _, f=f: f(), lib))
    return out


@pytest.mark.parametrize("driver", [None, "gels", "gelsy", "gelsd", "gelss"])
@pytest.mark.parametrize("dev", DEVICES)
def test_linalg_lstsq(driver, dev):
    def fn(lib, dev):
        a, b = T(lib, dev, data(5, 3)), T(lib, dev, data(5, 2, seed=1))
        r = lib.linalg.lstsq(a, b, driver=driver)
        loss = (r.solution * weights(lib, r.solution, 1)).sum()
        if r.residuals.numel():
            loss = loss + (r.residuals * weights(lib, r.residuals, 2)).sum()
        ga, gb = grads_of(lib, loss, a, b)
        ab, bb = T(lib, dev, data(2, 4, 3)), T(lib, dev, data(4, seed=2))  # a vector rhs, broadcast
        v = lib.linalg.lstsq(ab, bb.expand(2, 4), driver=driver)
        gv = grads_of(lib, (v.solution * weights(lib, v.solution, 3)).sum(), ab, bb)
        wide = lib.linalg.lstsq(T(lib, dev, data(3, 5)), T(lib, dev, data(3, 2, seed=4)), driver=driver)
        gw = grads_of(lib, (wide.solution * weights(lib, wide.solution, 5)).sum(), wide.solution.grad_fn._saved_self)
        node = r.solution.grad_fn
        same = r.residuals.grad_fn is node if r.residuals.numel() else ""
        return (*r, ga, gb, *v, *gv, *wide, *gw, node.name(), same,
                node._saved_self, node._saved_b, node._saved_solution, str(r.rank.dtype), r.rank.requires_grad,
                r.singular_values.requires_grad, type(r).__name__)
    check_close(fn, dev, 1e-9)


@case
def lstsq_errors(lib, dev):
    a, b = lib.ones(5, 3, dtype=lib.float64, device=dev), lib.ones(5, 2, dtype=lib.float64, device=dev)
    out = []
    for f in [lambda: lib.linalg.lstsq(a.float(), b),
              lambda: lib.linalg.lstsq(a.int(), b.int()),
              lambda: lib.linalg.lstsq(a[0], b[0]),
              lambda: lib.linalg.lstsq(a[:4], b),
              lambda: lib.linalg.lstsq(lib.ones(2, 5, 3, dtype=lib.float64, device=dev), b),
              lambda: lib.linalg.lstsq(a, b.expand(2, 5, 2)),
              lambda: lib.linalg.lstsq(a, b, driver="foo"),
              lambda: lib.linalg.lstsq(a, b, rcond=0.5, driver="gelsd").rank,
              lambda: lib.linalg.lstsq(a, b, -1.0).rank,
              lambda: lib.linalg.lstsq(lib.ones(2, 5, 3, dtype=lib.float64, device=dev), b[:, 0]),
              lambda: [t.shape for t in lib.linalg.lstsq(lib.ones(0, 3, device=dev), lib.ones(0, 2, device=dev))]]:
        out.append(run(lambda _, f=f: f(), lib))
    return out


@case
def lstsq_rank_deficient(lib, dev):
    x = data(5, 3)
    x[:, 2] = x[:, 1]
    a, b = T(lib, dev, x, grad=False), T(lib, dev, data(5, 2, seed=1), grad=False)
    return [tuple(lib.linalg.lstsq(a, b, driver=d)[1:]) for d in (None, "gelsd", "gelss")]


@case
def matrix_rank(lib, dev):
    x = data(2, 5, 3)
    x[0, :, 2] = x[0, :, 1]
    a = T(lib, dev, x, grad=False)
    h = T(lib, dev, sym(3), grad=False)
    out = [lib.linalg.matrix_rank(a), lib.linalg.matrix_rank(a, atol=1.0), lib.linalg.matrix_rank(a, rtol=0.5),
           lib.linalg.matrix_rank(a, 0.5), lib.linalg.matrix_rank(h, hermitian=True),
           lib.linalg.matrix_rank(a.float()), lib.linalg.matrix_rank(a[:, :0])]
    for f in [lambda: lib.linalg.matrix_rank(lib.ones(3, 3, dtype=lib.long, device=dev)),
              lambda: lib.linalg.matrix_rank(lib.ones(3, device=dev)),
              lambda: lib.linalg.matrix_rank(lib.ones(4, 3, device=dev), hermitian=True)]:
        out.append(run(lambda _, f=f: f(), lib))
    return out


@case
def cond(lib, dev):
    a = T(lib, dev, data(2, 4, 3))
    sq = T(lib, dev, data(3, 3) + 2 * np.eye(3))
    outs = [lib.linalg.cond(a), lib.linalg.cond(a, 2), lib.linalg.cond(a, -2)]
    g = grads_of(lib, sum(o.sum() for o in outs), a)[0]
    vals = [lib.linalg.cond(sq, p) for p in ("fro", "nuc", 1, -1, float("inf"), float("-inf"))]
    z = lib.zeros(2, 3, 3, dtype=lib.float64, device=dev)
    z[1] = lib.eye(3, dtype=lib.float64, device=dev)
    # a singular matrix: inf (nan for p=None); ('nuc' leaves torch's LAPACK an inf matrix to factor: nan there)
    vals += [lib.linalg.cond(z, p) for p in (None, "fro", 1, float("-inf"))]
    errs = [run(lambda _, f=f: f(), lib) for f in [lambda: lib.linalg.cond(lib.ones(3, device=dev)),
                                             lambda: lib.linalg.cond(lib.ones(3, 3, dtype=lib.long, device=dev)),
                                             lambda: lib.linalg.cond(a, "fro"),
                                             lambda: lib.linalg.cond(sq, 3)]]
    return outs, g, [o.grad_fn.name() for o in outs], vals, errs


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("dev", DEVICES)
def test_matrix_norms(dtype, dev):
    def fn(lib, dev):
        a = T(lib, dev, data(2, 4, 3), dtype)
        outs = (lib.linalg.matrix_norm(a, "nuc"), lib.linalg.matrix_norm(a, 2), lib.linalg.matrix_norm(a, -2),
                lib.linalg.matrix_norm(a, "nuc", dim=(0, 2), keepdim=True), lib.linalg.matrix_norm(a, 2, dim=(2, 0)),
                lib.linalg.norm(a[0], "nuc"), lib.linalg.norm(a[0], 2),
                lib.linalg.norm(a, -2, dim=(1, 2), keepdim=True),
                lib.norm(a[0], p="nuc"), lib.norm(a, p="nuc", dim=(0, 2)), a[1].norm(p="nuc"),
                lib.linalg.matrix_norm(a, "nuc", dtype=lib.float64))
        loss = sum((t * weights(lib, t, i)).sum() for i, t in enumerate(outs))
        g = grads_of(lib, loss, a)[0]
        return (*outs, g, *[o.grad_fn.name() for o in outs])
    check_close(fn, dev, 1e-4 if dtype == "float32" else 1e-9)


@case
def matrix_norm_errors(lib, dev):
    out = []
    for f in [lambda: lib.linalg.matrix_norm(lib.ones(3, 3, dtype=lib.long, device=dev), "nuc"),
              lambda: lib.linalg.matrix_norm(lib.ones(3, 3, dtype=lib.long, device=dev), 2),
              lambda: lib.linalg.matrix_norm(lib.ones(3, device=dev), "nuc"),
              lambda: lib.norm(lib.ones(2, 3, 4, device=dev), p="nuc"),
              lambda: lib.linalg.matrix_norm(lib.ones(0, 3, device=dev), "nuc"),
              lambda: lib.linalg.matrix_norm(lib.ones(0, 3, device=dev), 2),
              lambda: lib.linalg.matrix_norm(lib.ones(0, 3, device=dev), -2),
              lambda: lib.linalg.matrix_norm(lib.ones(3, 3, dtype=lib.float16, device=dev), "nuc"),
              lambda: lib.linalg.matrix_norm(lib.ones(3, 3, dtype=lib.float16, device=dev), -2)]:
        out.append(run(lambda _, f=f: f(), lib))
    return out


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("dev", DEVICES)
def test_case(name, dev):
    check(CASES[name], dev)


@pytest.mark.parametrize("name", sorted(CLOSE))
@pytest.mark.parametrize("dev", DEVICES)
def test_close(name, dev):
    check_close(CLOSE[name], dev, 1e-9)


# gradcheck / gradgradcheck (float64, well-separated spectra) ---------------------------------

def _leaf(arr):
    return torchlite.tensor(np.asarray(arr), dtype=torchlite.float64, requires_grad=True)


GRADCHECKS = {
    "svd_tall": (lambda a: _svd_invariants(torchlite, *torchlite.linalg.svd(a, full_matrices=False), 3), (4, 3)),
    "svd_wide_full": (lambda a: _svd_invariants(torchlite, *torchlite.linalg.svd(a), 2), (2, 4)),
    "svd_square": (lambda a: _svd_invariants(torchlite, *torchlite.linalg.svd(a), 3), (3, 3)),
    "svdvals": (lambda a: torchlite.linalg.svdvals(a), (2, 3, 4)),
    "eigh": (lambda a: (lambda L, V: (L, V * V))(*torchlite.linalg.eigh(a + a.mT)), (3, 3)),
    "eigvalsh_upper": (lambda a: torchlite.linalg.eigvalsh(a + a.mT, UPLO="U"), (4, 4)),
    "qr_tall": (lambda a: tuple(torchlite.linalg.qr(a)), (4, 3)),
    "qr_wide": (lambda a: tuple(torchlite.linalg.qr(a)), (3, 5)),
    "qr_complete_square": (lambda a: tuple(torchlite.linalg.qr(a, mode="complete")), (3, 3)),
    "pinv_tall": (lambda a: torchlite.linalg.pinv(a), (4, 3)),
    "pinv_wide": (lambda a: torchlite.linalg.pinv(a), (2, 4)),
    "nuc": (lambda a: torchlite.linalg.matrix_norm(a, "nuc"), (4, 3)),
    "two": (lambda a: torchlite.linalg.matrix_norm(a, 2), (3, 4)),
}


@pytest.mark.parametrize("name", sorted(GRADCHECKS))
def test_gradcheck(name):
    fn, shape = GRADCHECKS[name]
    a = _leaf(data(*shape, seed=7) + (np.diag(np.arange(shape[-1]) * 1.5) if shape[-1] == shape[-2] else 0))
    assert gradcheck(fn, (a,), eps=1e-6, atol=1e-5)
    assert gradgradcheck(fn, (a,), eps=1e-6, atol=1e-4)


def test_gradcheck_lstsq():
    a, b = _leaf(data(5, 3)), _leaf(data(5, 2, seed=1))
    fn = lambda a, b: tuple(torchlite.linalg.lstsq(a, b, driver="gelsd")[:2])  # noqa: E731
    assert gradcheck(fn, (a, b), eps=1e-6, atol=1e-5)
    assert gradgradcheck(fn, (a, b), eps=1e-6, atol=1e-4)
    vec = lambda a, b: torchlite.linalg.lstsq(a, b).solution  # noqa: E731
    assert gradcheck(vec, (a, _leaf(data(5, seed=3))), eps=1e-6, atol=1e-5)


# the gradient of one output at a time (the others' gradients undefined: upstream's formulas' branches)

@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (3, 3), (2, 4, 3)])
@pytest.mark.parametrize("full", [True, False])
@pytest.mark.parametrize("part", ["U", "V", "UV", "SV"])
def test_svd_partial_losses(shape, full, part):
    def fn(lib, dev):
        a = T(lib, dev, data(*shape))
        U, S, Vh = lib.linalg.svd(a, full_matrices=full)
        k = min(shape[-2:])
        Uk, Vk = U[..., :, :k], Vh[..., :k, :]
        loss = 0
        if "U" in part:
            loss = loss + (Uk * Uk * weights(lib, Uk, 1)).sum()
        if "V" in part:
            loss = loss + (Vk * Vk * weights(lib, Vk, 2)).sum()
        if "S" in part:
            loss = loss + (S * weights(lib, S, 3)).sum()
        return grads_of(lib, loss, a)
    check_close(fn, "cpu", 1e-9)


@pytest.mark.parametrize("part", ["V", "LV"])
@pytest.mark.parametrize("dev", DEVICES)
def test_eigh_vector_losses(part, dev):
    def fn(lib, dev):
        a = T(lib, dev, sym(4, (2,)))
        L, V = lib.linalg.eigh(a)
        loss = (V * V * weights(lib, V, 1)).sum() + ((L * weights(lib, L, 2)).sum() if "L" in part else 0)
        return grads_of(lib, loss, a)
    check_close(fn, dev, 1e-9)


@pytest.mark.parametrize("shape,mode", [((4, 3), "reduced"), ((3, 5), "reduced"), ((3, 5), "complete"),
                                        ((3, 3), "complete")])
@pytest.mark.parametrize("part", ["Q", "R"])
def test_qr_partial_losses(shape, mode, part):
    def fn(lib, dev):
        a = T(lib, dev, data(*shape))
        Q, R = lib.linalg.qr(a, mode)
        loss = (Q * weights(lib, Q, 1)).sum() if part == "Q" else (R * weights(lib, R, 2)).sum()
        return grads_of(lib, loss, a)
    check_close(fn, "cpu", 1e-9)


@close
def lstsq_residuals_vector_rhs(lib, dev):
    a, b = T(lib, dev, data(2, 5, 3)), T(lib, dev, data(2, 5, seed=1))
    r = lib.linalg.lstsq(a, b, driver="gelsd")
    return (r.residuals, *grads_of(lib, (r.residuals * weights(lib, r.residuals, 3)).sum(), a, b))


@close
def out_variants(lib, dev):
    a = T(lib, dev, data(4, 3), grad=False)

    def empty():
        return lib.empty(0, dtype=lib.float64, device=dev)
    U, S, Vh = empty(), empty(), empty()
    r = lib.linalg.svd(a, out=(U, S, Vh))
    s2, p, L, V, Q, R = empty(), empty(), empty(), empty(), empty(), empty()
    lib.linalg.svdvals(a, out=s2)
    lib.linalg.pinv(a, out=p)
    e = lib.linalg.eigh(a[:3], out=(L, V))
    q = lib.linalg.qr(a, out=(Q, R))
    return S, s2, p, L, R, Q, type(r).__name__, type(e).__name__, type(q).__name__, r.S is S


@close
def double_backward(lib, dev):
    a = T(lib, dev, data(3, 4))
    g, = lib.autograd.grad(lib.linalg.svdvals(a).pow(2).sum() + lib.linalg.pinv(a).sum(), a, create_graph=True)
    return lib.autograd.grad((g * g).sum(), a)
