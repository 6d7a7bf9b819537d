"""torch.nn.functional: the functional form of every layer and loss."""

__all__: list = []

# ==== issue 15: functional ====
# (the functional family's entries follow this line)

# ==== issue 15: conv ====
# (the conv family's entries follow this line)

# ==== issue 15: modules ====
# (the modules family's entries follow this line)

# ==== issue 15: seq ====
# (the seq family's entries follow this line)
import math as _math  # noqa: E402 - the seq family's imports stay in its section

import torchlite as _tl  # noqa: E402
from torchlite._dtypes import _c_type_name as _seq_c_name, _to_numpy_dtype as _seq_np  # noqa: E402
from torchlite._ops.ScalarType import _torch_type_name as _seq_type_name  # noqa: E402


def _sdpa_validate(query, key, value, attn_mask):
    # aten/src/ATen/native/transformers/sdp_utils_cpp.h: validate_sdpa_input
    if not (query.dtype == key.dtype == value.dtype):
        raise RuntimeError(
            "Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{_seq_c_name(_seq_np(query.dtype))} key.dtype: {_seq_c_name(_seq_np(key.dtype))} and value.dtype: "
            f"{_seq_c_name(_seq_np(value.dtype))} instead.")
    if not (query.device == key.device == value.device):
        raise RuntimeError(
            "Expected query, key, and value to have the same device type, but got query.device: "
            f"{query.device} key.device: {key.device} and value.device: {value.device} instead.")
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise RuntimeError(
            "Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: "
            f"{query.dim()} key.dim: {key.dim()} and value.dim: {value.dim()} instead.")
    if attn_mask is not None:
        mdt = attn_mask.dtype
        if mdt not in (_tl.bool, _tl.float32, query.dtype):
            raise RuntimeError(
                "Expected attn_mask dtype to be bool or float or to match query dtype, but got attn_mask.dtype: "
                f"{_seq_c_name(_seq_np(mdt))} and  query.dtype: {_seq_c_name(_seq_np(query.dtype))} instead.")
    if not query.dtype.is_floating_point and not query.dtype.is_complex:
        # the CPU kernel choice (_fused_sdp_choice_cpp) reads the inputs as float
        raise RuntimeError(f"expected scalar type Float but found {_seq_type_name(_seq_np(query.dtype))}")


def _safe_softmax(x, dim):
    # aten/src/ATen/native/transformers/attention.cpp: _safe_softmax - a row that is all -inf
    # (fully masked) gives zeros, not nan, and its backward (_softmax_backward_data with that zero
    # result) passes zeros: the masked rows are softmaxed as zeros, so no nan reaches the gradient
    masked_rows = (x == float("-inf")).all(dim, keepdim=True)
    zero = _tl.zeros((), dtype=x.dtype, device=x.device)
    out = softmax(_tl.where(masked_rows, zero, x), dim)  # noqa: F821 - the functional family's softmax
    return _tl.where(masked_rows, zero, out)


def _gqa_expand(query, key, value, enable_gqa):
    # attention.cpp: pre_process_group_query_attention_input
    if not enable_gqa:
        return key, value
    qh, kh, vh = query.size(-3), key.size(-3), value.size(-3)
    if qh == kh == vh:
        return key, value
    if qh % kh != 0 or qh % vh != 0:
        raise RuntimeError("Number of heads in key and value must divide the number of heads in ")
    return key.repeat_interleave(qh // kh, -3), value.repeat_interleave(qh // vh, -3)


def _scaled_dot_product_attention_math(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False,
                                       scale=None, enable_gqa=False):
    """torch's math path (attention.cpp: _scaled_dot_product_attention_math): the output and the
    attention weights (after dropout)."""
    negative = scale is not None and scale < 0
    base = abs(scale) if negative else scale
    if base is None:
        base = 1.0 / _math.sqrt(query.size(-1))
    factor = _math.sqrt(base)
    q = query * (-factor if negative else factor)
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
        L, S = query.size(-2), key.size(-2)
        attn_mask = _tl.ones(L, S, dtype=_tl.bool, device=query.device).tril()
    if attn_mask is not None and attn_mask.dtype == _tl.bool:
        # convert_boolean_attn_mask: False -> -inf, True -> 0, in the query's dtype
        attn_mask = _tl.zeros(attn_mask.shape, dtype=query.dtype, device=query.device).masked_fill(
            attn_mask.logical_not(), float("-inf"))
    key, value = _gqa_expand(query, key, value, enable_gqa)
    attn = _tl.matmul(q, key.transpose(-2, -1) * factor)
    if attn_mask is not None:
        # attn.add_(attn_mask): the sum keeps attn's dtype
        attn = attn + attn_mask
    attn = _safe_softmax(attn, -1)
    if dropout_p > 0.0:
        if dropout_p > 1:
            # at::dropout's check (aten/src/ATen/native/Dropout.cpp)
            raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {dropout_p:g}")
        attn = dropout(attn, dropout_p, True)  # noqa: F821 - the functional family's dropout
    return _tl.matmul(attn, value), attn


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    """softmax(q k^T * scale + mask) v, as torch.nn.functional.scaled_dot_product_attention (torch's
    math path; the fused CPU kernels torch may pick give the same values)."""
    _sdpa_validate(query, key, value, attn_mask)
    return _scaled_dot_product_attention_math(query, key, value, attn_mask, dropout_p, is_causal, scale,
                                              enable_gqa)[0]


__all__ += ["scaled_dot_product_attention"]
