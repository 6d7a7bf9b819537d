"""The linalg family's ops against torch: values (float32 and float64, batched and broadcast
inputs), gradients, node names, saved fields and errors, on "cpu" and "sim:0"; gradcheck and
gradgradcheck in float64 on well-conditioned inputs.

The fuzzer leaves the factorisations to this file (test_fuzz_coverage's TEST_LIST): det
(_linalg_det), logdet and slogdet (_linalg_slogdet), inverse (linalg_inv_ex), solve
(_linalg_solve_ex) and cholesky (linalg_cholesky_ex)."""
import math
import warnings

import numpy as np
import pytest

import torchlite
from torchlite.autograd import gradcheck, gradgradcheck

from diff_utils import import_torch, norm, run

torch = import_torch()

DEVICES = ["cpu", "sim:0"]
_rng = np.random.default_rng(13)
DATA = {n: _rng.uniform(-1.5, 1.5, size=n) for n in [(3,), (4,), (2, 3), (3, 2), (3, 3), (3, 4), (4, 3), (4,)]}


def data(*shape, seed=0):
    return np.random.default_rng(seed * 1000 + len(shape) * 7 + int(np.prod(shape))).uniform(-1.5, 1.5, size=shape)


def spd(n, batch=(), seed=0):
    """A well-conditioned symmetric positive-definite matrix (batch)."""
    a = data(*batch, n, n, seed=seed)
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def wellcond(n, batch=(), seed=0):
    """A well-conditioned (diagonally dominant) matrix (batch)."""
    return data(*batch, n, n, seed=seed) + 3 * np.eye(n)


def T(lib, dev, arr, dtype="float32", grad=True):
    return lib.tensor(np.asarray(arr), dtype=getattr(lib, dtype), device=dev, requires_grad=grad)


def nodes(t):
    """The names of the graph's nodes below t, breadth first."""
    out, seen, todo = [], [], [t.grad_fn]
    while todo:
        f = todo.pop(0)
        if f is None or any(f is g for g in seen):
            continue
        seen.append(f)
        out.append(f.name())
        todo.extend(n for n, _ in f.next_functions)
    return out


def saved(t, *names):
    """The node's saved fields (tensors as values)."""
    return {n: getattr(t.grad_fn, "_saved_" + n) for n in names}


def with_grads(lib, out, *leaves):
    """out, its graph's node names, and the leaves' gradients of a weighted sum of it."""
    outs = out if isinstance(out, (tuple, list)) else (out,)
    loss = None
    for o in outs:
        if o.requires_grad:
            w = lib.arange(o.numel(), dtype=o.dtype, device=o.device).reshape(o.shape) * 0.25 + 1
            term = (o * w).sum()
            loss = term if loss is None else loss + term
    names = [nodes(o) for o in outs if o.requires_grad]
    grads = lib.autograd.grad(loss, leaves, allow_unused=True, retain_graph=True)
    return tuple(outs), names, grads


def check(case, dev):
    got = run(lambda lib: case(lib, dev), torchlite)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = run(lambda lib: case(lib, "cpu"), torch)
    assert got == want


CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


# products ------------------------------------------------------------------------------------

@case
def mm(lib, dev):
    a, b = T(lib, dev, data(2, 3)), T(lib, dev, data(3, 4))
    r = lib.mm(a, b)
    return with_grads(lib, (r, a.mm(b), lib.mm(a.t().contiguous().t(), b)), a, b), saved(r, "self", "mat2")


@case
def mm_float64_transposed(lib, dev):
    a, b = T(lib, dev, data(3, 2), "float64"), T(lib, dev, data(4, 3), "float64")
    return with_grads(lib, lib.mm(a.t(), b.t()), a, b)


@case
def bmm(lib, dev):
    a, b = T(lib, dev, data(2, 2, 3)), T(lib, dev, data(2, 3, 4))
    r = lib.bmm(a, b)
    return with_grads(lib, (r, a.bmm(b)), a, b), saved(r, "self", "mat2")


@case
def mv(lib, dev):
    a, v = T(lib, dev, data(2, 3)), T(lib, dev, data(3))
    r = lib.mv(a, v)
    return with_grads(lib, (r, a.mv(v)), a, v), saved(r, "self", "vec")


@case
def dot_vdot(lib, dev):
    x, y = T(lib, dev, data(4)), T(lib, dev, data(4, seed=1))
    r, s = lib.dot(x, y), lib.vdot(x, y)
    return with_grads(lib, (r, x.dot(y), s, x.vdot(y)), x, y), saved(r, "self", "tensor"), saved(s, "self", "other")


@case
def outer_ger(lib, dev):
    x, y = T(lib, dev, data(3)), T(lib, dev, data(4))
    return with_grads(lib, (lib.outer(x, y), x.outer(y), lib.ger(x, y), x.ger(y)), x, y)


@case
def addmm(lib, dev):
    c, a, b = T(lib, dev, data(2, 4)), T(lib, dev, data(2, 3)), T(lib, dev, data(3, 4))
    r = lib.addmm(c, a, b, beta=0.5, alpha=2)
    return (with_grads(lib, (r, c.addmm(a, b), lib.addmm(c, a, b, alpha=-1)), c, a, b),
            saved(r, "mat1", "mat2", "beta", "alpha"))


@case
def addmm_broadcast_beta0(lib, dev):
    c, a, b = T(lib, dev, data(4)), T(lib, dev, data(2, 3)), T(lib, dev, data(3, 4))
    nan = T(lib, dev, [[math.nan] * 4] * 2, grad=False)
    return with_grads(lib, (lib.addmm(c, a, b), lib.addmm(nan, a, b, beta=0)), c, a, b)


@case
def addmv(lib, dev):
    c, a, v = T(lib, dev, data(2)), T(lib, dev, data(2, 3)), T(lib, dev, data(3))
    r = lib.addmv(c, a, v, beta=2, alpha=0.5)
    return with_grads(lib, (r, c.addmv(a, v), lib.addmv(c[:1], a, v)), c, a, v), saved(r, "mat", "vec", "beta", "alpha")


@case
def baddbmm_addbmm(lib, dev):
    c, a, b = T(lib, dev, data(2, 4)), T(lib, dev, data(3, 2, 3)), T(lib, dev, data(3, 3, 4))
    r = lib.baddbmm(c, a, b, beta=2, alpha=0.5)
    s = lib.addbmm(c, a, b, beta=0.5, alpha=3)
    return (with_grads(lib, (r, c.baddbmm(a, b), s, c.addbmm(a, b)), c, a, b),
            saved(r, "batch1", "batch2", "beta", "alpha"), saved(s, "batch1", "batch2", "beta", "alpha"))


@case
def trace(lib, dev):
    a, b = T(lib, dev, data(3, 3)), T(lib, dev, data(2, 4))
    r = lib.trace(a)
    ints = lib.tensor([[1, 2], [3, 4]], device=dev)
    return with_grads(lib, (r, b.trace()), a, b), saved(r, "self_sym_sizes"), lib.trace(ints)


@case
def cross(lib, dev):
    a, b = T(lib, dev, data(2, 3)), T(lib, dev, data(1, 3))
    c = T(lib, dev, data(3, 2))
    r = lib.linalg.cross(a, b)
    return (with_grads(lib, (r, lib.cross(a, b, dim=1), a.cross(b, 1), lib.cross(c, c * 2, dim=0)), a, b, c),
            saved(r, "self", "other"), saved(lib.cross(a, b, dim=1), "dim"))


@case
def kron(lib, dev):
    a, b = T(lib, dev, data(2, 3)), T(lib, dev, data(2))
    return with_grads(lib, (lib.kron(a, b), a.kron(a), lib.kron(b, a)), a, b)


@case
def tensordot(lib, dev):
    a, b = T(lib, dev, data(2, 3, 4)), T(lib, dev, data(3, 4, 2))
    return with_grads(lib, (lib.tensordot(a, b), lib.tensordot(a, b, dims=([1], [0])),
                            lib.tensordot(a, b, dims=([1, 2], [0, 1])), lib.tensordot(a, b, 0)), a, b)


@case
def einsum_matmul_forms(lib, dev):
    a, b = T(lib, dev, data(2, 3)), T(lib, dev, data(3, 4))
    return with_grads(lib, (lib.einsum("ij,jk->ik", a, b), lib.einsum("ij,jk", a, b), lib.einsum("ij,jk->ki", [a, b]),
                            lib.einsum("ij->ji", a), lib.einsum("ij->", a), lib.einsum("i j , j k -> i k", a, b)), a, b)


@case
def einsum_batched_ellipsis(lib, dev):
    a, b = T(lib, dev, data(2, 2, 3)), T(lib, dev, data(2, 3, 4))
    v = T(lib, dev, data(3))
    return with_grads(lib, (lib.einsum("bij,bjk->bik", a, b), lib.einsum("...ij,...jk->...ik", a, b),
                            lib.einsum("...j,j", a, v), lib.einsum("bij,j->bi", a, v), lib.einsum("i,j->ij", v, v),
                            lib.einsum("bij,bjk,k->bi", a, b, T(lib, dev, data(4), grad=False)),
                            lib.einsum("...ij->...ji", a), lib.einsum("b...->b", a)), a, b, v)


@case
def einsum_diagonals(lib, dev):
    a, c = T(lib, dev, data(3, 3)), T(lib, dev, data(2, 3, 3))
    return with_grads(lib, (lib.einsum("ii", a), lib.einsum("ii->i", a), lib.einsum("bii->b", c),
                            lib.einsum("bii->bi", c), lib.einsum("ij,ij->", a, a),
                            lib.einsum("ii,i->i", a, a[0])), a, c)


@case
def einsum_three_operands(lib, dev):
    a, b, c = T(lib, dev, data(2, 3)), T(lib, dev, data(3, 4)), T(lib, dev, data(4, 2))
    return with_grads(lib, (lib.einsum("ij,jk,kl->li", a, b, c), lib.einsum("ij,jk,kl->il", a, b, c),
                            lib.einsum("ij,jk,ki", a, b, c)), a, b, c)


@case
def tensordot_full_contraction(lib, dev):
    a = T(lib, dev, data(2, 3))
    b = T(lib, dev, data(3, 2))
    return with_grads(lib, (lib.tensordot(a, a * 2, dims=([0, 1], [0, 1])), lib.tensordot(a, b, dims=([1, 0], [0, 1]))),
                      a, b)


@case
def tensordot_broadcast_keeps_dtype(lib, dev):
    # a size-1 contracted dimension sums in the operand's dtype (int32 stays int32, as Linear.cpp's
    # t1.sum(dim, true, t1.scalar_type())), then the matrix product; float: the gradient through it
    i32 = lib.tensor([[1, -2], [3, 4]], dtype=lib.int32, device=dev)
    col = lib.tensor([[2], [5]], dtype=lib.int32, device=dev)
    a, b = T(lib, dev, data(2, 1)), T(lib, dev, data(3, 2))
    return (lib.tensordot(col, i32, dims=([1], [0])), lib.tensordot(i32, col, dims=([0], [0])),
            with_grads(lib, (lib.tensordot(a, b, dims=([1], [0])), lib.tensordot(b, a, dims=([1], [1]))), a, b))


@case
def einsum_broadcast_size1(lib, dev):
    a, b = T(lib, dev, data(1, 3)), T(lib, dev, data(2, 3))
    return with_grads(lib, (lib.einsum("ij,ij->ij", a, b), lib.einsum("ij,kj->ik", a, b)), a, b)


@case
def matrix_power(lib, dev):
    a = T(lib, dev, wellcond(3) / 3)
    b = T(lib, dev, wellcond(2, (2,)) / 3)
    return with_grads(lib, (lib.linalg.matrix_power(a, 0), lib.linalg.matrix_power(a, 1), a.matrix_power(2),
                            lib.matrix_power(a, 3), lib.linalg.matrix_power(a, 6), lib.linalg.matrix_power(a, -2),
                            lib.linalg.matrix_power(b, 5)), a, b)


@case
def vecdot(lib, dev):
    a, b = T(lib, dev, data(2, 3)), T(lib, dev, data(3))
    return with_grads(lib, (lib.linalg.vecdot(a, b), lib.linalg.vecdot(a, a, dim=0)), a, b)


# factorisations ------------------------------------------------------------------------------

@case
def det(lib, dev):
    a = T(lib, dev, wellcond(3))
    b = T(lib, dev, wellcond(2, (2,), seed=1), "float64")
    r = lib.det(a)
    return (with_grads(lib, (r, a.det(), lib.linalg.det(b)), a, b),
            saved(r, "A", "LU", "result"))  # pivots: int32 in torch


@case
def det_singular(lib, dev):
    a = T(lib, dev, [[1.0, 2.0], [2.0, 4.0]], "float64")
    z = T(lib, dev, [[0.0, 0.0], [0.0, 0.0]], "float64")
    return with_grads(lib, (lib.det(a), lib.det(z), lib.det(a.t())), a, z)


@case
def slogdet_logdet(lib, dev):
    a = T(lib, dev, wellcond(3) * np.array([1.0, -1.0, 1.0]))
    p = T(lib, dev, spd(3, (2,)))
    s, logabs = lib.linalg.slogdet(a)
    s2 = lib.slogdet(p)
    # (the sign: torch's node has both outputs, torchlite's only logabsdet; compared as values)
    return (with_grads(lib, (logabs, s2.logabsdet, a.slogdet()[1], lib.logdet(p), p.logdet(), lib.logdet(a)), a, p),
            s, s2[0].detach(), saved(logabs, "A", "LU"), type(s2).__name__, type(lib.linalg.slogdet(a)).__name__)


@case
def inv(lib, dev):
    a = T(lib, dev, wellcond(3))
    b = T(lib, dev, wellcond(2, (3,), seed=2))
    r = lib.linalg.inv(a)
    return with_grads(lib, (r, lib.inverse(a), a.inverse(), lib.linalg.inv(b)), a, b), saved(r, "inverse")


@case
def solve(lib, dev):
    a = T(lib, dev, wellcond(3))
    b = T(lib, dev, data(3, 2))
    v = T(lib, dev, data(3))
    ab = T(lib, dev, wellcond(3, (2,), seed=3))
    r = lib.linalg.solve(a, b)
    return (with_grads(lib, (r, lib.linalg.solve(a, v), lib.linalg.solve(ab, b), lib.linalg.solve(ab, v),
                             lib.linalg.solve(a, b.t(), left=False), lib.linalg.solve(ab, ab[0, :2] * 1.0, left=False)),
                       a, b, v, ab), saved(r, "A", "LU", "left", "result"))


@case
def cholesky(lib, dev):
    p = T(lib, dev, spd(3))
    q = T(lib, dev, spd(2, (2,), seed=4), "float64")
    r = lib.linalg.cholesky(p)
    fields = saved(r, "L", "upper")
    return with_grads(lib, (r, lib.linalg.cholesky(p, upper=True), lib.linalg.cholesky(q)), p, q), fields


# norms ---------------------------------------------------------------------------------------

@case
def vector_norm(lib, dev):
    a = T(lib, dev, data(2, 3))
    r = lib.linalg.vector_norm(a)
    outs = [r]
    for p in (2, 1, 3, 0.5, 1.5, math.inf, -math.inf, 0, 2.5):
        outs += [lib.linalg.vector_norm(a, p), lib.linalg.vector_norm(a, p, dim=1),
                 lib.linalg.vector_norm(a, p, dim=(0,), keepdim=True)]
    return with_grads(lib, tuple(outs), a), saved(r, "self", "ord", "dim", "keepdim", "result")


@case
def vector_norm_zero_and_dtype(lib, dev):
    a = T(lib, dev, [[0.0, 0.0, 0.0], [1.0, -2.0, 0.0]])
    return with_grads(lib, (lib.linalg.vector_norm(a, dim=1), lib.linalg.vector_norm(a, 3, dim=1),
                            lib.linalg.vector_norm(a, 1.5, dim=1), lib.linalg.vector_norm(a, dtype=lib.float64)), a)


@case
def matrix_norm_and_norm(lib, dev):
    a = T(lib, dev, data(3, 4))
    b = T(lib, dev, data(2, 3, 3))
    # ord 1 / -1 / inf / -inf: torch records AmaxBackward0 / AminBackward0 (torchlite a composite
    # with amax's gradient): values and gradients compared, not node names
    maxmin = with_grads(lib, (lib.linalg.matrix_norm(a, 1), lib.linalg.matrix_norm(a, -1),
                              lib.linalg.matrix_norm(b, math.inf), lib.linalg.matrix_norm(a, -math.inf, keepdim=True),
                              lib.linalg.norm(a, 1),
                              lib.linalg.matrix_norm(T(lib, dev, [[1.0, -1.0], [-1.0, 1.0]]), 1)),
                        a, b)
    return (with_grads(lib, (lib.linalg.matrix_norm(a), lib.linalg.matrix_norm(b, "fro"),
                             lib.linalg.norm(a), lib.linalg.norm(a, "fro"),
                             lib.linalg.norm(b, dim=(1, 2)), lib.linalg.norm(b, 3, dim=2), lib.linalg.norm(b[0, 0], 1),
                             lib.norm(a), a.norm(), lib.norm(a, 1), a.norm(3, 1), lib.norm(b, dim=(0, 2)),
                             lib.norm(a, p="fro", dim=1, keepdim=True)), a, b),
            (maxmin[0], maxmin[2]))


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_vs_torch(name, dev):
    check(CASES[name], dev)


# errors --------------------------------------------------------------------------------------

ERRORS = {
    "mm_shapes": lambda lib, d: lib.mm(T(lib, d, data(2, 3)), T(lib, d, data(2, 3))),
    "mm_vector": lambda lib, d: lib.mm(T(lib, d, data(3)), T(lib, d, data(3, 2))),
    "mm_mat2_vector": lambda lib, d: lib.mm(T(lib, d, data(2, 3)), T(lib, d, data(3))),
    "bmm_2d": lambda lib, d: lib.bmm(T(lib, d, data(2, 3)), T(lib, d, data(2, 3, 2))),
    "bmm_batch2": lambda lib, d: lib.bmm(T(lib, d, data(2, 2, 3)), T(lib, d, data(2, 3))),
    "bmm_sizes": lambda lib, d: lib.bmm(T(lib, d, data(2, 2, 3)), T(lib, d, data(2, 2, 3))),
    "mv_dims": lambda lib, d: lib.mv(T(lib, d, data(2, 3)), T(lib, d, data(2, 3))),
    "mv_sizes": lambda lib, d: lib.mv(T(lib, d, data(2, 3)), T(lib, d, data(2))),
    "dot_dims": lambda lib, d: lib.dot(T(lib, d, data(2, 3)), T(lib, d, data(3))),
    "dot_sizes": lambda lib, d: lib.dot(T(lib, d, data(3)), T(lib, d, data(2))),
    "vdot_sizes": lambda lib, d: lib.vdot(T(lib, d, data(3)), T(lib, d, data(2))),
    "dot_dtypes": lambda lib, d: lib.dot(T(lib, d, data(3)), T(lib, d, data(3), "float64")),
    "outer_dims": lambda lib, d: lib.outer(T(lib, d, data(2, 3)), T(lib, d, data(3))),
    "addmm_shapes": lambda lib, d: lib.addmm(T(lib, d, data(2, 2)), T(lib, d, data(2, 3)), T(lib, d, data(2, 3))),
    "addmm_self": lambda lib, d: lib.addmm(T(lib, d, data(3, 2)), T(lib, d, data(2, 3)), T(lib, d, data(3, 2))),
    "addmm_vector": lambda lib, d: lib.addmm(T(lib, d, data(2)), T(lib, d, data(3)), T(lib, d, data(3, 2))),
    "addmv_sizes": lambda lib, d: lib.addmv(T(lib, d, data(2)), T(lib, d, data(2, 3)), T(lib, d, data(2))),
    "addmv_self_2d": lambda lib, d: lib.addmv(T(lib, d, data(2, 1)), T(lib, d, data(2, 3)), T(lib, d, data(3))),
    "baddbmm_sizes": lambda lib, d: lib.baddbmm(T(lib, d, data(2, 2, 3)), T(lib, d, data(2, 2, 3)),
                                                T(lib, d, data(2, 2, 3))),
    "addbmm_sizes": lambda lib, d: lib.addbmm(T(lib, d, data(2, 3)), T(lib, d, data(2, 2, 3)),
                                              T(lib, d, data(2, 2, 3))),
    "trace_3d": lambda lib, d: lib.trace(T(lib, d, data(2, 2, 3))),
    "trace_bool": lambda lib, d: lib.trace(lib.ones(2, 2, dtype=lib.bool, device=d)),
    "cross_len": lambda lib, d: lib.linalg.cross(T(lib, d, data(2, 4)), T(lib, d, data(2, 4))),
    "cross_dim": lambda lib, d: lib.cross(T(lib, d, data(2, 3)), T(lib, d, data(2, 3)), dim=0),
    "cross_ndim": lambda lib, d: lib.linalg.cross(T(lib, d, data(3)), T(lib, d, data(2, 3))),
    "tensordot_sizes": lambda lib, d: lib.tensordot(T(lib, d, data(2, 3)), T(lib, d, data(2, 3)), dims=([1], [0])),
    # fuzzer table 2, seed 1841: the size-1 dim sums to Bool (not Long), so dot refuses Bool
    "tensordot_bool_dot": lambda lib, d: lib.tensordot(lib.ones(1, dtype=lib.bool, device=d),
                                                       lib.ones(2, dtype=lib.bool, device=d), dims=([-1], [0])),
    "tensordot_bool_mm": lambda lib, d: lib.tensordot(lib.ones(2, 1, dtype=lib.bool, device=d),
                                                      lib.ones(2, 3, dtype=lib.bool, device=d), dims=([1], [0])),
    # seed 2957: cross dispatches on self's dtype (no Bool) before it reads other
    "cross_bool": lambda lib, d: lib.linalg.cross(lib.ones(3, dtype=lib.bool, device=d),
                                                  lib.ones(3, dtype=lib.bool, device=d)),
    "cross_bool_long": lambda lib, d: lib.cross(lib.ones(2, 3, dtype=lib.bool, device=d),
                                                lib.ones(1, 3, dtype=lib.int64, device=d), dim=1),
    "cross_long_bool": lambda lib, d: lib.linalg.cross(lib.ones(3, dtype=lib.int64, device=d),
                                                       lib.ones(3, dtype=lib.bool, device=d)),
    "cross_bool_broadcast": lambda lib, d: lib.linalg.cross(lib.ones(2, 3, dtype=lib.bool, device=d),
                                                            lib.ones(4, 3, dtype=lib.bool, device=d)),
    # seeds 373, 2695, 2169: vecdot checks x is floating or complex first, then the dtypes agree
    "vecdot_bool": lambda lib, d: lib.linalg.vecdot(lib.ones(2, dtype=lib.bool, device=d),
                                                    lib.ones(2, dtype=lib.bool, device=d)),
    "vecdot_long_batched": lambda lib, d: lib.linalg.vecdot(lib.ones(2, 3, dtype=lib.int64, device=d),
                                                            lib.ones(2, 3, dtype=lib.int64, device=d)),
    "vecdot_long_float": lambda lib, d: lib.linalg.vecdot(lib.ones(3, dtype=lib.int64, device=d), T(lib, d, data(3))),
    "vecdot_float_long": lambda lib, d: lib.linalg.vecdot(T(lib, d, data(3)), lib.ones(3, dtype=lib.int64, device=d)),
    "einsum_sizes": lambda lib, d: lib.einsum("ij,jk", T(lib, d, data(2, 3)), T(lib, d, data(2, 3))),
    "einsum_few": lambda lib, d: lib.einsum("ij,jk->ik", T(lib, d, data(2, 3))),
    "einsum_more": lambda lib, d: lib.einsum("ij", T(lib, d, data(2, 3)), T(lib, d, data(2, 3))),
    "einsum_out_label": lambda lib, d: lib.einsum("ij->k", T(lib, d, data(2, 3))),
    "einsum_out_twice": lambda lib, d: lib.einsum("ij->ii", T(lib, d, data(2, 3))),
    "einsum_ndim": lambda lib, d: lib.einsum("ijk", T(lib, d, data(2, 3))),
    "einsum_ellipsis_ndim": lambda lib, d: lib.einsum("...ijk", T(lib, d, data(2, 3))),
    "einsum_bad_label": lambda lib, d: lib.einsum("i1", T(lib, d, data(2, 3))),
    "einsum_bad_dot": lambda lib, d: lib.einsum("i.j", T(lib, d, data(2, 3))),
    "einsum_repeat_sizes": lambda lib, d: lib.einsum("ii", T(lib, d, data(2, 3))),
    "det_square": lambda lib, d: lib.det(T(lib, d, data(2, 3))),
    "det_1d": lambda lib, d: lib.linalg.det(T(lib, d, data(3))),
    "det_long": lambda lib, d: lib.det(lib.ones(2, 2, dtype=lib.int64, device=d)),
    "inv_square": lambda lib, d: lib.linalg.inv(T(lib, d, data(2, 3))),
    "inv_singular": lambda lib, d: lib.linalg.inv(T(lib, d, [[1.0, 2.0], [2.0, 4.0]])),
    "inv_singular_batch": lambda lib, d: lib.inverse(T(lib, d, [np.eye(2), [[1.0, 2.0], [2.0, 4.0]]])),
    "inv_zero_first": lambda lib, d: lib.linalg.inv(T(lib, d, [[0.0, 0.0], [0.0, 1.0]])),
    "inv_long": lambda lib, d: lib.linalg.inv(lib.ones(2, 2, dtype=lib.int64, device=d)),
    "inv_is_linalg_error": lambda lib, d: isinstance(_raised(lambda: lib.inverse(lib.zeros(2, 2, device=d))),
                                                     (lib.linalg.LinAlgError, RuntimeError)),
    "solve_singular": lambda lib, d: lib.linalg.solve(T(lib, d, [[1.0, 2.0], [2.0, 4.0]]), T(lib, d, data(2))),
    "solve_singular_batch": lambda lib, d: lib.linalg.solve(T(lib, d, [np.eye(2), np.zeros((2, 2))]),
                                                            T(lib, d, data(2))),
    "solve_shapes": lambda lib, d: lib.linalg.solve(T(lib, d, np.eye(2)), T(lib, d, data(3))),
    "solve_shapes_right": lambda lib, d: lib.linalg.solve(T(lib, d, np.eye(2)), T(lib, d, data(2, 3)), left=False),
    "cholesky_not_pd": lambda lib, d: lib.linalg.cholesky(T(lib, d, [[1.0, 2.0], [2.0, 1.0]])),
    "cholesky_not_pd_batch": lambda lib, d: lib.linalg.cholesky(T(lib, d, [np.eye(3),
                                                                          [[1, 0, 0], [0, 1, 0], [0, 0, -1.0]]])),
    "cholesky_square": lambda lib, d: lib.linalg.cholesky(T(lib, d, data(2, 3))),
    "matrix_power_square": lambda lib, d: lib.linalg.matrix_power(T(lib, d, data(2, 3)), 2),
    "matrix_power_singular": lambda lib, d: lib.linalg.matrix_power(T(lib, d, [[1.0, 2.0], [2.0, 4.0]]), -1),
    "vector_norm_long": lambda lib, d: lib.linalg.vector_norm(lib.ones(2, dtype=lib.int64, device=d)),
    "vector_norm_empty_inf": lambda lib, d: lib.linalg.vector_norm(lib.ones(0, device=d), math.inf),
    "matrix_norm_1d": lambda lib, d: lib.linalg.matrix_norm(T(lib, d, data(3))),
    "matrix_norm_ord": lambda lib, d: lib.linalg.matrix_norm(T(lib, d, data(3, 3)), 3),
    "norm_dim_len": lambda lib, d: lib.linalg.norm(T(lib, d, data(2, 3, 3)), dim=(0, 1, 2)),
    "norm_ord_3d": lambda lib, d: lib.linalg.norm(T(lib, d, data(2, 3, 3)), 2),
    "slogdet_square": lambda lib, d: lib.linalg.slogdet(T(lib, d, data(2, 3))),
    "logdet_square": lambda lib, d: lib.logdet(T(lib, d, data(2, 3))),
}


def _raised(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the exception is the result
        return e
    return None


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(name, dev):
    got = run(lambda lib: ERRORS[name](lib, dev), torchlite)
    want = run(lambda lib: ERRORS[name](lib, "cpu"), torch)
    assert got == want
    if name != "inv_is_linalg_error":
        assert got[0] == "raised"


def test_linalg_error_type():
    assert issubclass(torchlite.linalg.LinAlgError, RuntimeError)
    with pytest.raises(torchlite.linalg.LinAlgError):
        torchlite.linalg.cholesky(torchlite.tensor([[1.0, 2.0], [2.0, 1.0]]))


# gradcheck / gradgradcheck (float64, well-conditioned) --------------------------------------

def D(arr):
    return torchlite.tensor(np.asarray(arr, dtype=np.float64), requires_grad=True)


GRADCHECKS = {
    "mm": (lambda a, b: torchlite.mm(a, b), [data(2, 3), data(3, 2)]),
    "bmm": (lambda a, b: torchlite.bmm(a, b), [data(2, 2, 3), data(2, 3, 2)]),
    "mv": (lambda a, v: torchlite.mv(a, v), [data(2, 3), data(3)]),
    "dot": (lambda x, y: torchlite.dot(x, y), [data(3), data(3, seed=1)]),
    "vdot": (lambda x, y: torchlite.vdot(x, y), [data(3), data(3, seed=1)]),
    "outer": (lambda x, y: torchlite.outer(x, y), [data(3), data(2)]),
    "addmm": (lambda c, a, b: torchlite.addmm(c, a, b, beta=0.5, alpha=2), [data(2), data(2, 3), data(3, 2)]),
    "addmv": (lambda c, a, v: torchlite.addmv(c, a, v, beta=2, alpha=-1), [data(2), data(2, 3), data(3)]),
    "baddbmm": (lambda c, a, b: torchlite.baddbmm(c, a, b, beta=0.5, alpha=2), [data(2, 2), data(2, 2, 3),
                                                                                 data(2, 3, 2)]),
    "addbmm": (lambda c, a, b: torchlite.addbmm(c, a, b, beta=0.5, alpha=2), [data(2, 2), data(2, 2, 3),
                                                                               data(2, 3, 2)]),
    "trace": (lambda a: torchlite.trace(a), [data(3, 2)]),
    "cross": (lambda a, b: torchlite.linalg.cross(a, b), [data(2, 3), data(2, 3, seed=1)]),
    "kron": (lambda a, b: torchlite.kron(a, b), [data(2, 2), data(2)]),
    "tensordot": (lambda a, b: torchlite.tensordot(a, b, dims=([1], [0])), [data(2, 3), data(3, 2)]),
    "einsum": (lambda a, b: torchlite.einsum("bij,bjk->bik", a, b), [data(2, 2, 3), data(2, 3, 2)]),
    "einsum_diag": (lambda a: torchlite.einsum("ii->i", a) * torchlite.einsum("ij,ij", a, a), [data(3, 3)]),
    "matrix_power": (lambda a: torchlite.linalg.matrix_power(a, 3), [wellcond(2) / 3]),
    "matrix_power_neg": (lambda a: torchlite.linalg.matrix_power(a, -2), [wellcond(2)]),
    "det": (lambda a: torchlite.linalg.det(a), [wellcond(3)]),
    "det_batch": (lambda a: torchlite.det(a), [wellcond(2, (2,))]),
    "slogdet": (lambda a: torchlite.linalg.slogdet(a)[1], [wellcond(3)]),
    "logdet": (lambda a: torchlite.logdet(a), [spd(3)]),
    "inv": (lambda a: torchlite.linalg.inv(a), [wellcond(3)]),
    "solve": (lambda a, b: torchlite.linalg.solve(a, b), [wellcond(3), data(3, 2)]),
    "solve_vector_batch": (lambda a, b: torchlite.linalg.solve(a, b), [wellcond(2, (2,)), data(2)]),
    "solve_right": (lambda a, b: torchlite.linalg.solve(a, b, left=False), [wellcond(3), data(2, 3)]),
    "cholesky": (lambda a: torchlite.linalg.cholesky(a + a.mT), [spd(3) / 2]),
    "cholesky_upper": (lambda a: torchlite.linalg.cholesky(a + a.mT, upper=True), [spd(3) / 2]),
    "vector_norm": (lambda a: torchlite.linalg.vector_norm(a), [data(2, 3)]),
    "vector_norm_dim": (lambda a: torchlite.linalg.vector_norm(a, 3, dim=1), [data(2, 3)]),
    "vector_norm_1_5": (lambda a: torchlite.linalg.vector_norm(a, 1.5, dim=0, keepdim=True), [data(2, 3)]),
    "vector_norm_0_5": (lambda a: torchlite.linalg.vector_norm(a, 0.5), [data(2, 3)]),
    "vector_norm_inf": (lambda a: torchlite.linalg.vector_norm(a, math.inf, dim=1), [data(2, 3)]),
    "matrix_norm_1": (lambda a: torchlite.linalg.matrix_norm(a, 1), [data(3, 3)]),
}


@pytest.mark.parametrize("name", sorted(GRADCHECKS))
def test_gradcheck(name):
    fn, arrays = GRADCHECKS[name]
    inputs = [D(a) for a in arrays]
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)


def test_det_singular_gradient_first_order():
    """A singular matrix's det gradient: torch's lu_solve over the LU with its zero pivot
    replaced by eps (here det is exactly 0, so the gradient is 0)."""
    a = [[1.0, 2.0], [2.0, 4.0]]
    x = D(a)
    (g,) = torchlite.autograd.grad(torchlite.det(x), [x])
    y = torch.tensor(a, dtype=torch.float64, requires_grad=True)
    (h,) = torch.autograd.grad(torch.det(y), [y])
    np.testing.assert_array_equal(g.numpy(), h.numpy())


def test_double_backward_names():
    """create_graph=True: the formulas record the nodes torch's do."""
    def names(lib):
        a = lib.tensor(wellcond(3), dtype=lib.float64, requires_grad=True)
        out = {}
        for name, f in [("inv", lambda a: lib.linalg.inv(a)), ("addmm", lambda a: lib.addmm(a, a, a, alpha=2)),
                        ("det", lambda a: lib.linalg.det(a)), ("solve", lambda a: lib.linalg.solve(a, a[0]))]:
            (g,) = lib.autograd.grad(f(a).sum(), [a], create_graph=True)
            out[name] = g.grad_fn.name()
        return out
    assert norm(names(torchlite)) == norm(names(torch))


def test_norm_saved_ord_forms():
    def fields(lib):
        a = lib.tensor(data(2, 3), requires_grad=True)
        return [(lib.linalg.norm(a).grad_fn._saved_ord, lib.norm(a).grad_fn._saved_ord,
                 lib.linalg.vector_norm(a, 3).grad_fn._saved_ord, lib.linalg.matrix_norm(a).grad_fn._saved_dim)]
    assert norm(fields(torchlite)) == norm(fields(torch))


# in-place variants (structured: the functional kernel writing into self) ---------------------

@case
def inplace_addmm_addmv(lib, dev):
    c, a, b = T(lib, dev, data(2, 4)), T(lib, dev, data(2, 3)), T(lib, dev, data(3, 4))
    v, w = T(lib, dev, data(2)), T(lib, dev, data(3))
    x = c * 1.0
    version = x._version
    r = x.addmm_(a, b, beta=0.5, alpha=2)
    y = v * 1.0
    s = lib.addmv_(y, a, w, alpha=-1)
    fields = saved(r, "mat1", "mat2", "beta", "alpha")
    return with_grads(lib, (r, s), c, a, b, v, w), r is x, s is y, x._version - version, fields


@case
def inplace_baddbmm_addbmm(lib, dev):
    c, a, b = T(lib, dev, data(2, 2, 4)), T(lib, dev, data(2, 2, 3)), T(lib, dev, data(2, 3, 4))
    x, y = c * 1.0, c[0] * 1.0
    r = x.baddbmm_(a, b, beta=2)
    s = y.addbmm_(a, b, alpha=0.5)
    return with_grads(lib, (r, s), c, a, b), r is x, s is y


@case
def inplace_on_view(lib, dev):
    c, a, b = T(lib, dev, data(3, 4)), T(lib, dev, data(2, 3)), T(lib, dev, data(3, 4))
    x = c * 1.0
    x[1:].addmm_(a, b)
    return with_grads(lib, x, c, a, b)


ERRORS.update({
    "inplace_leaf": lambda lib, d: T(lib, d, data(2, 4)).addmm_(T(lib, d, data(2, 3)), T(lib, d, data(3, 4))),
    "inplace_dtype": lambda lib, d: lib.ones(2, 4, dtype=lib.float64, device=d).addmm_(
        T(lib, d, data(2, 3), grad=False), T(lib, d, data(3, 4), grad=False)),
})


INPLACE = ["inplace_addmm_addmv", "inplace_baddbmm_addbmm", "inplace_on_view"]
INPLACE_ERRORS = ["inplace_leaf", "inplace_dtype"]


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("name", INPLACE + INPLACE_ERRORS)
def test_inplace_vs_torch(name, dev):
    """(registered after test_vs_torch / test_errors were parametrised)"""
    if name in INPLACE:
        check(CASES[name], dev)
    else:
        test_errors(name, dev)
