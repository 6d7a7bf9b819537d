"""The CPU flash attention ops of aten/src/ATen/native/transformers/attention.cpp
(_scaled_dot_product_flash_attention_cpu and its backward) with the numpy forms of their kernels
(aten/src/ATen/native/cpu/FlashAttentionKernel.cpp: cpu_flash_attention and
cpu_flash_attention_backward).

The forward keeps, per query row, the softmax's normaliser as logsumexp (max + log(sum)) and saves
it with the output; the backward recomputes the attention weights from it (exp(q k^T * scale + mask -
logsumexp)) instead of keeping them, as flash attention does. Each head's scores are computed
transposed, keys down and queries across (k @ q^T), as the CPU kernel's gemm writes them: the row
reductions (max, sum) then run down the columns, which numpy vectorises, and no extra copy is made.
Upstream splits the keys into blocks of 512 and rescales its running sums between blocks; one block
here (the same values within rounding).
"""
import math

import numpy as np

from .. import _C
from .._C import _record, _wrap
from .._generated import specs as _S
from .ScalarType import _f16, _f32, _torch_type_name
from .TensorIterator import _empty_like, _loud, _quiet

_NAME = "scaled_dot_product_attention_flash_attention"
# (kv length, q length) -> bool (S, L): key s is after query l (upstream fills those -inf)
_CAUSAL: dict[tuple[int, int], np.ndarray] = {}


def _causal(s_len, l_len):
    m = _CAUSAL.get((s_len, l_len))
    if m is None:
        m = np.greater.outer(np.arange(s_len), np.arange(l_len))
        if len(_CAUSAL) > 64:
            _CAUSAL.clear()
        _CAUSAL[(s_len, l_len)] = m
    return m


def _scale_of(query, scale):
    """sdp::calculate_scale: the given scale, else 1 / sqrt(head size)."""
    if scale is not None:
        return float(scale)
    d = query.shape[-1]
    return 1.0 / math.sqrt(d) if d else math.inf


def _accum(dtype):
    """at::opmath_type: float16 computes in float32."""
    return _f32 if dtype == _f16 else dtype


def _check_forward(query, key, value, dropout_p, attn_mask):
    """_scaled_dot_product_flash_attention_cpu's checks, in upstream's order."""
    q, k, v = query._array, key._array, value._array
    if q.dtype.kind != "f":
        raise RuntimeError(f"{_NAME}: Expected data type in FP32, FP64, BF16, FP16, but got "
                           f"{_torch_type_name(q.dtype)} instead.")
    if not (q.ndim == 4 and k.ndim == 4 and v.ndim == 4):
        raise RuntimeError(f"{_NAME}: Accept only 4 dims inputs shape of {{B, H, T, K}}")
    if dropout_p != 0.0:
        raise RuntimeError(f"{_NAME}: Currently do not support dropout > 0")
    if q.shape[3] != v.shape[3] or k.shape[3] != v.shape[3]:
        raise RuntimeError(f"{_NAME}: Q/K/V should have the same head size")
    if attn_mask is not None:
        m = attn_mask._array
        if not (m.dtype == _f32 or m.dtype == q.dtype):
            raise RuntimeError(f"{_NAME}: Attention mask is the same data type as query")
        if m.ndim not in (2, 4):
            raise RuntimeError(f"{_NAME}: Attention mask dim in {{2, 4}}")
    _check_operands(q, k, v)


def _check_operands(q, k, v):
    """The kernel reads key and value as query's scalar type (data_ptr<scalar_t>); the shapes it
    indexes must agree (upstream reads past them: here an error)."""
    for a in (k, v):
        if a.dtype != q.dtype:
            raise RuntimeError(f"expected scalar type {_torch_type_name(q.dtype)} but found "
                               f"{_torch_type_name(a.dtype)}")
    if not (q.shape[0] == k.shape[0] == v.shape[0] and k.shape[1] == v.shape[1] and k.shape[1]
            and q.shape[1] % k.shape[1] == 0 and k.shape[2] == v.shape[2]):
        raise RuntimeError(f"{_NAME}: query {list(q.shape)}, key {list(k.shape)} and value {list(v.shape)} "
                           "do not share a batch size, key/value heads that divide the query's and a "
                           "key/value length")


def _mask_4d(attn_mask, batch, heads, q_len, kv_len):
    """reshape_attn_mask_to_4d: the mask viewed as (B or 1, H or 1, L, S) and expanded over L and S
    (torch's view and expand, so their errors are torch's); None for an empty mask."""
    if attn_mask is None or attn_mask.numel() == 0:
        return None
    b = h = 1
    if attn_mask.dim() == 4:
        b = batch if attn_mask.size(0) == batch else 1
        h = heads if attn_mask.size(1) == heads else 1
    return attn_mask.view(b, h, attn_mask.size(-2), attn_mask.size(-1)).expand(b, h, q_len, kv_len)._array


def _grouped(a, groups):
    """(B, H, n, D) as (B, H / groups, groups, n, D): the query heads that share a key/value head."""
    return a.reshape(a.shape[0], a.shape[1] // groups, groups, a.shape[2], a.shape[3])


def _scores_t(q, k, is_causal, mask, scale, groups):
    """scale * k @ q^T (+ mask^T), keys down and queries across, with the causal positions (key after
    query, counted from the top left) -inf before the scale as the CPU kernel fills them."""
    if groups > 1:
        st = np.matmul(k[:, :, None], np.swapaxes(_grouped(q, groups), -1, -2))
        st = st.reshape(q.shape[0], q.shape[1], k.shape[2], q.shape[2])
    else:
        st = np.matmul(k, np.swapaxes(q, -1, -2))
    if is_causal:
        np.copyto(st, -np.inf, where=_causal(k.shape[2], q.shape[2]))
    st *= st.dtype.type(scale)
    if mask is not None:
        st += np.swapaxes(mask, -1, -2)
    return st


def _attn_v(p_t, v, groups):
    """p @ v for p given transposed (B, H, S, L): (B, H, L, D)."""
    if groups > 1:
        b, h, s, l_len = p_t.shape
        r = np.matmul(np.swapaxes(p_t.reshape(b, h // groups, groups, s, l_len), -1, -2), v[:, :, None])
        return r.reshape(b, h, l_len, v.shape[3])
    return np.matmul(np.swapaxes(p_t, -1, -2), v)


def _flash_forward(q, k, v, is_causal, mask, scale):
    """(output, logsumexp) of cpu_flash_attention: output as empty_like(query) lays it out, logsumexp
    (B, H, L) in the accumulate type over a (B, L, H) buffer."""
    acc = _accum(q.dtype)
    qa, ka, va = (a.astype(acc) if a.dtype != acc else a for a in (q, k, v))
    groups = q.shape[1] // k.shape[1]
    st = _scores_t(qa, ka, is_causal, mask, scale, groups)
    m = np.maximum.reduce(st, axis=-2, keepdims=True, initial=-np.inf)  # (no keys: -inf)
    # a row with every key masked: max 0 and sum 1, so its output is 0 and its logsumexp 0, not nan
    m[m == -np.inf] = 0
    st -= m
    np.exp(st, out=st)
    total = np.add.reduce(st, axis=-2, keepdims=True)
    total[total == 0] = 1
    o = _attn_v(st, va, groups)
    out = _empty_like(q, q.dtype, None)
    np.divide(o, np.swapaxes(total, -1, -2), out=out, casting="unsafe")
    b, h, l_len = q.shape[0], q.shape[1], q.shape[2]
    lse = np.empty((b, l_len, h), acc).transpose(0, 2, 1)
    np.log(total[:, :, 0, :], out=lse)
    lse += m[:, :, 0, :]
    return out, lse


# Note [Flash attention on the host with numpy's bits] (csrc/aten/native/AttentionHost.cpp): the host
# kernels _C._flash_attention_forward_host and _C._flash_attention_backward_host give _flash_forward's
# and _flash_backward's values bit for bit (a nan's sign and payload aside) one head at a time, for the
# operands _host_applies admits; everything else runs the numpy functions above. Tests set
# _HOST_KERNELS to False to run the numpy path as the reference.
_HOST_KERNELS = True
_HOST_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _host_applies(tensor, q, k, arrays, mask):
    """Whether the host kernels take this call: a cpu tensor, no mask, float32 or float64 numpy arrays of
    one dtype, aligned, with non-negative strides and no empty dimension; more than one query (numpy sums
    one query's keys as one pairwise run), and for grouped key/value heads more than one element per head
    (numpy sums one-element groups pairwise)."""
    if not _HOST_KERNELS or mask is not None or q.dtype not in _HOST_DTYPES or tensor.device.type != "cpu":
        return False
    for a in arrays:
        if type(a) is not np.ndarray or a.dtype != q.dtype or a.size == 0 or not a.flags.aligned \
                or min(a.strides) < 0:
            return False
    if q.shape[2] < 2 or (q.shape[1] != k.shape[1] and k.shape[2] * k.shape[3] == 1):
        return False
    return True


def _forward(query, q, k, v, is_causal, mask, scale):
    """_flash_forward, by the host kernel where it applies."""
    if _host_applies(query, q, k, (q, k, v), mask):
        out = _empty_like(q, q.dtype, None)
        lse = np.empty((q.shape[0], q.shape[2], q.shape[1]), q.dtype).transpose(0, 2, 1)
        if _C._flash_attention_forward_host(q, k, v, is_causal, scale, out, lse):
            return out, lse
    return _flash_forward(q, k, v, is_causal, mask, scale)


def _scaled_dot_product_flash_attention_for_cpu(query, key, value, dropout_p=0.0, is_causal=False, *,
                                                attn_mask=None, scale=None):
    """aten::_scaled_dot_product_flash_attention_for_cpu -> (output, logsumexp); only output is
    differentiable (ScaledDotProductFlashAttentionForCpuBackward0)."""
    dropout_p = float(dropout_p)
    _check_forward(query, key, value, dropout_p, attn_mask)
    q, k, v = query._array, key._array, value._array
    mask = _mask_4d(attn_mask, q.shape[0], q.shape[1], q.shape[2], k.shape[2])
    token = _quiet()
    try:
        out_a, lse_a = _forward(query, q, k, v, bool(is_causal), mask, _scale_of(q, scale))
    finally:
        _loud(token)
    output = _wrap(out_a, query)
    logsumexp = _wrap(lse_a, query)
    _record(_S.ScaledDotProductFlashAttentionForCpuBackward0, (query, key, value), output, query=query,
            key=key, value=value, dropout_p=dropout_p, is_causal=bool(is_causal), attn_mask=attn_mask,
            scale=None if scale is None else float(scale), output=output, logsumexp=logsumexp)
    return output, logsumexp


def _blhd_like(shape, dtype):
    """zeros(x.transpose(1, 2).sizes()).transpose(1, 2): (B, H, n, D) over a (B, n, H, D) buffer."""
    return np.empty((shape[0], shape[2], shape[1], shape[3]), dtype).transpose(0, 2, 1, 3)


def _flash_backward(g, q, k, v, o, lse, is_causal, mask, scale):
    acc = _accum(q.dtype)
    ga, qa, ka, va, oa = (a.astype(acc) if a.dtype != acc else a for a in (g, q, k, v, o))
    groups = q.shape[1] // k.shape[1]
    # the attention weights again, from the logsumexp: exp(scale * q k^T + mask - lse), causal ones 0
    # (upstream's gemm takes the scale as its alpha: a zero scale reads neither operand, so the scores
    # are zeros and grad_query / grad_key zeros, whatever q k^T holds)
    if scale == 0:
        p_t = np.zeros((q.shape[0], q.shape[1], k.shape[2], q.shape[2]), acc)
        if mask is not None:
            p_t += np.swapaxes(mask, -1, -2)
    else:
        p_t = _scores_t(qa, ka, False, mask, scale, groups)
    p_t -= lse[:, :, None, :]
    np.exp(p_t, out=p_t)
    if is_causal:
        np.copyto(p_t, 0, where=_causal(k.shape[2], q.shape[2]))
    dsum = np.einsum("...ld,...ld->...l", ga, oa)
    if groups > 1:
        b, h, s, l_len = p_t.shape
        pg = p_t.reshape(b, h // groups, groups, s, l_len)
        grad_v = np.matmul(pg, _grouped(ga, groups)).sum(axis=2)
        ds_t = np.matmul(va[:, :, None], np.swapaxes(_grouped(ga, groups), -1, -2)).reshape(p_t.shape)
    else:
        grad_v = np.matmul(p_t, ga)
        ds_t = np.matmul(va, np.swapaxes(ga, -1, -2))
    # grad_attn <- attn * (grad_attn - rowsum(grad_out * out)); grad_q, grad_k <- scale * its products
    ds_t -= dsum[:, :, None, :]
    ds_t *= p_t
    grad_q = _attn_v(ds_t, ka, groups)
    if groups > 1:
        b, h, s, l_len = ds_t.shape
        grad_k = np.matmul(ds_t.reshape(b, h // groups, groups, s, l_len), _grouped(qa, groups)).sum(axis=2)
    else:
        grad_k = np.matmul(ds_t, qa)
    results = []
    for r, like, factor in ((grad_q, q, scale), (grad_k, k, scale), (grad_v, v, None)):
        out = _blhd_like(like.shape, like.dtype)
        if factor == 0:
            out[...] = 0
        elif factor is None:
            np.copyto(out, r, casting="unsafe")
        else:
            np.multiply(r, r.dtype.type(factor), out=out, casting="unsafe")
        results.append(out)
    return results


def _backward(query, g, q, k, v, o, lse, is_causal, mask, scale):
    """_flash_backward, by the host kernel where it applies (dsum by numpy's einsum, as there)."""
    if g.shape == q.shape and o.shape == q.shape and lse.shape == q.shape[:3] \
            and _host_applies(query, q, k, (g, q, k, v, o, lse), mask):
        dsum = np.einsum("...ld,...ld->...l", g, o)
        grads = [_blhd_like(a.shape, a.dtype) for a in (q, k, v)]
        if _C._flash_attention_backward_host(g, q, k, v, lse, dsum, is_causal, scale, *grads):
            return grads
    return _flash_backward(g, q, k, v, o, lse, is_causal, mask, scale)


def _scaled_dot_product_flash_attention_for_cpu_backward(grad_out, query, key, value, out, logsumexp, dropout_p,
                                                         is_causal, *, attn_mask=None, scale=None):
    """aten::_scaled_dot_product_flash_attention_for_cpu_backward -> (grad_query, grad_key, grad_value).
    Upstream has no derivative for it: under create_graph its node is torch::autograd::NotImplemented."""
    if grad_out is None:
        return None, None, None
    q, k, v = query._array, key._array, value._array
    _check_operands(q, k, v)
    mask = _mask_4d(attn_mask, q.shape[0], q.shape[1], q.shape[2], k.shape[2])
    token = _quiet()
    try:
        grads = _backward(query, grad_out._array, q, k, v, out._array, logsumexp._array, bool(is_causal), mask,
                          _scale_of(q, scale))
    finally:
        _loud(token)
    results = tuple(_wrap(a, like) for a, like in zip(grads, (query, key, value), strict=True))
    # (torch's node reaches the inputs that require grad; here each tensor input has its place, an absent
    # mask one that needs no gradient)
    inputs = (grad_out, query, key, value, out, logsumexp, query.detach() if attn_mask is None else attn_mask)
    return _record(_S.NotImplementedSdpaFlashCpuBackward, inputs, results,
                   name="aten::_scaled_dot_product_flash_attention_for_cpu_backward")


__all__ = ["_scaled_dot_product_flash_attention_for_cpu", "_scaled_dot_product_flash_attention_for_cpu_backward"]
