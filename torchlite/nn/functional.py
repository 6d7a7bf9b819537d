"""torch.nn.functional: the functional form of every layer and loss."""

__all__: list = []

# ==== issue 15: functional ====
# (the functional family's entries follow this line)
# scaled_dot_product_attention's backend choice on the CPU (aten/src/ATen/native/transformers/
# sdp_utils_cpp.cpp: select_sdp_backend_cpp, use_flash_attention_cpp; the checks of sdp_utils_cpp.h),
# made by attention.cpp's scaled_dot_product_attention through _fused_sdp_choice_cpp: the fused
# _scaled_dot_product_flash_attention_for_cpu where its checks pass, the math composition otherwise.
# The switches are torch.backends.cuda's enable_flash_sdp / enable_math_sdp (globalContext's).
import numpy as _attn_np  # noqa: E402

from .._C import _wrap as _attn_wrap  # noqa: E402
from .._ops import _mul_scalar as _attn_mul_scalar  # noqa: E402
from .._ops import _scaled_dot_product_flash_attention_for_cpu as _flash_attention_cpu  # noqa: E402
from ..backends import cuda as _sdp_switches  # noqa: E402

_SDP_FLASH, _SDP_MATH = 1, 0  # at::SDPBackend's numbers


def _sdp_warn(debug, message):
    if debug:
        warnings.warn(message, stacklevel=4)


def _sdp_sizes(t):
    return "[" + ", ".join(str(n) for n in t.shape) + "]"


def _use_flash_attention_cpp(query, key, value, attn_mask, dropout_p, enable_gqa, debug):
    """use_flash_attention_cpp: its checks in upstream's order (each warns why only when debug)."""
    q, k, v = query._array, key._array, value._array
    if not _sdp_switches.flash_sdp_enabled():  # check_runtime_disabled_flash
        _sdp_warn(debug, "Flash attention has been runtime disabled.")
        return False
    if dropout_p > 0.0:  # check_for_dropout (check_nested_tensor: torchlite has no nested tensors)
        _sdp_warn(debug, "Both fused kernels do not support non-zero dropout.")
        return False
    if not (q.ndim == k.ndim == v.ndim == 4):  # check_tensor_shapes
        _sdp_warn(debug, "All fused kernels requires query, key and value to be 4 dimensional, but got Query dim: "
                         f"{q.ndim}, Key dim: {k.ndim}, Value dim: {v.ndim} instead.")
        return False
    # check_batch_size_and_num_heads_dense<supports_gqa=true>
    if not (q.shape[0] == k.shape[0] == v.shape[0]):
        _sdp_warn(debug, "For dense inputs, both fused kernels require query, key and value to have the same "
                         f"batch_size. Query.sizes(): {_sdp_sizes(q)}, Key.sizes(): {_sdp_sizes(k)}, Value.sizes(): "
                         f"{_sdp_sizes(v)} instead. To broadcast dense inputs, try using unsqueeze and expand_to "
                         "before passing them into the kernel.")
        return False
    if enable_gqa:  # check_grouped_query_attention<requires_same_num_heads=true>
        if k.shape[1] != v.shape[1]:
            _sdp_warn(debug, "Both fused kernels require key and value to have the same num_heads and batch_size but "
                             f"got: Key sizes: {_sdp_sizes(k)}, Value sizes: {_sdp_sizes(v)}, Query sizes: "
                             f"{_sdp_sizes(q)} instead.")
            return False
        if k.shape[1] == 0 or q.shape[1] % k.shape[1] != 0:
            _sdp_warn(debug, "The number of heads in key/value must divide number of heads in query.Got input Key "
                             f"sizes(): {k.shape[1]}, Value sizes(): {v.shape[1]}, Query sizes(): {q.shape[1]} "
                             "instead.")
            return False
    elif not (q.shape[1] == k.shape[1] == v.shape[1]):
        _sdp_warn(debug, "For dense input, both fused kernels require query, key and value to have the same "
                         f"num_heads. Query.sizes(): {_sdp_sizes(q)}, Key sizes(): {_sdp_sizes(k)}, Value sizes(): "
                         f"{_sdp_sizes(v)} instead. To broadcast dense inputs, try using unsqueeze and expand_to "
                         "before passing them into the kernel.")
        return False
    if attn_mask is not None and not _sdp_mask_shape_ok(attn_mask, q, k, debug):
        return False
    if not (q.shape[-1] == k.shape[-1] == v.shape[-1]):  # check_head_dim_size_cpp
        _sdp_warn(debug, "Flash attention requires q,k,v to have the same last dimension. Got Query.size(-1): "
                         f"{q.shape[-1]}, Key.size(-1): {k.shape[-1]}, Value.size(-1): {v.shape[-1]} instead.")
        return False
    if q.shape[-2] == 0 or k.shape[-2] == 0:  # check_nonzero_sequence_lengths_dense
        _sdp_warn(debug, "All fused kernels do not support zero seq_len_q or seq_len_kv.")
        return False
    # check_last_dim_stride_equals_1_dense<false> (the mask's stride is free on the CPU)
    if not (q.strides[-1] == q.itemsize and k.strides[-1] == k.itemsize and v.strides[-1] == v.itemsize):
        _sdp_warn(debug, "All fused kernels require the last dimension of the input to have stride 1. Got "
                         f"Query.stride(-1): {q.strides[-1] // q.itemsize}, Key.stride(-1): "
                         f"{k.strides[-1] // k.itemsize}, Value.stride(-1): {v.strides[-1] // v.itemsize}")
        return False
    if not (q.dtype == k.dtype == v.dtype and q.dtype in (_attn_np.float32, _attn_np.float64, _attn_np.float16)):
        _sdp_warn(debug, "Expected query, key and value to all be of dtype: {Double, Float, BFloat16, Half}. Got "
                         f"Query dtype: {query.dtype}, Key dtype: {key.dtype}, and Value dtype: {value.dtype} "
                         "instead.")
        return False
    return True


def _sdp_mask_shape_ok(attn_mask, q, k, debug):
    """check_attn_mask_shape: a mask that needs no gradient, 2-d (L or 1, S or 1) or 4-d (B or 1, H or 1,
    L or 1, S or 1) (its size(-2) read first, so a 1-d mask raises torch's IndexError)."""
    if attn_mask.requires_grad:
        return False
    m_rows, m_cols = attn_mask.size(-2), attn_mask.size(-1)
    if m_rows not in (q.shape[2], 1) or m_cols not in (k.shape[2], 1):
        return False
    shape = attn_mask.shape
    if len(shape) == 2 or (len(shape) == 4 and shape[0] in (q.shape[0], 1) and shape[1] in (q.shape[1], 1)):
        return True
    _sdp_warn(debug, "Please use the following attn mask shapes: 2d - ({Q_seq_len, 1}  x {KV_seq_len, 1}); "
                     "4d - ({Batch, 1} x {Num_heads, 1} x {Q_seq_len, 1}  x {KV_seq_len, 1})")
    return False


def _fused_sdp_choice_cpp(query, key, value, attn_mask, dropout_p, enable_gqa):
    """select_sdp_backend_cpp: flash where use_flash_attention_cpp passes, else math where enabled."""
    flash_on, math_on = _sdp_switches.flash_sdp_enabled(), _sdp_switches.math_sdp_enabled()
    if not flash_on and not math_on:
        raise RuntimeError("No viable backend for scaled_dot_product_attention was found. This is likely due to "
                           "turning off both the math kernel and the fused kernels.")
    if _use_flash_attention_cpp(query, key, value, attn_mask, dropout_p, enable_gqa, False):
        return _SDP_FLASH
    if math_on:
        return _SDP_MATH
    warnings.warn("Flash attention kernel not used because:", stacklevel=3)
    _use_flash_attention_cpp(query, key, value, attn_mask, dropout_p, enable_gqa, True)
    raise RuntimeError("No available kernel.  Aborting execution.")


def _sdpa_flash_or_math(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa):
    """attention.cpp's scaled_dot_product_attention after validate_sdpa_input: the backend
    _fused_sdp_choice picks (on the host; a cuda tensor keeps the math composition), a bool mask
    made additive (convert_boolean_attn_mask: 0 where True, -inf where False, in the query's dtype)."""
    q, k, v = query._array, key._array, value._array
    if q.__class__ is not _attn_np.ndarray:  # a cuda tensor: the math composition, as before
        return _scaled_dot_product_attention_math(query, key, value, attn_mask, dropout_p, is_causal, scale,
                                                  enable_gqa)[0]
    if not (q.size and k.size and v.size):
        # torch 2.13 answers an empty query, key or value before any backend: zeros of the output's
        # shape plus (q.sum() + k.sum() + v.sum()) * 0, so the graph still reaches the inputs
        zeros = _attn_wrap(_attn_np.zeros(q.shape[:-1] + v.shape[-1:], q.dtype), query)
        return zeros + _attn_mul_scalar(query.sum() + key.sum() + value.sum(), 0)  # (at::mul.Scalar's node)
    if _fused_sdp_choice_cpp(query, key, value, attn_mask, dropout_p, enable_gqa) != _SDP_FLASH:
        return _scaled_dot_product_attention_math(query, key, value, attn_mask, dropout_p, is_causal, scale,
                                                  enable_gqa)[0]
    if attn_mask is not None and attn_mask._array.dtype == _attn_np.bool_:
        m = attn_mask._array
        attn_mask = _attn_wrap(_attn_np.where(m, 0.0, -_attn_np.inf).astype(query._array.dtype), attn_mask)
    return _flash_attention_cpu(query, key, value, dropout_p, is_causal, attn_mask=attn_mask, scale=scale)[0]

# torch/nn/functional.py's functions, each calling the op torch's calls (torch._C._nn's are
# torchlite/_generated/nn_functions.py), so values, node names and errors are torch's.
import warnings  # noqa: E402

from .._generated import nn_functions as _nn  # noqa: E402
from .._generated import torch_functions as _torch  # noqa: E402
from .._ops import norm as _norm  # noqa: E402
from ..autograd.grad_mode import no_grad as _no_grad  # noqa: E402


def _get_softmax_dim(name, ndim, stacklevel):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X "
                  "as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):  # noqa: A002 - torch's names
    """softmax(input, dim=None, _stacklevel=3, dtype=None) -> Tensor (torch.nn.functional.softmax)."""
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
    return input.softmax(dim) if dtype is None else input.softmax(dim, dtype=dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):  # noqa: A002 - torch's names
    """softmin(input, dim=None, _stacklevel=3, dtype=None) -> Tensor: softmax of -input."""
    if dim is None:
        dim = _get_softmax_dim("softmin", input.dim(), _stacklevel)
    return (-input).softmax(dim) if dtype is None else (-input).softmax(dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):  # noqa: A002 - torch's names
    """log_softmax(input, dim=None, _stacklevel=3, dtype=None) -> Tensor (torch.nn.functional.log_softmax)."""
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    return input.log_softmax(dim) if dtype is None else input.log_softmax(dim, dtype=dtype)


linear = _nn.linear
bilinear = _torch.bilinear

__all__ += ["softmax", "softmin", "log_softmax", "linear", "bilinear"]


def _feature_dropout(name, spatial, input, p, training, inplace):  # noqa: A002 - torch's names
    """dropout1d/2d/3d: channel-wise dropout through feature_dropout, a batch dim added where missing."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    inp_dim = input.dim()
    if inp_dim not in (spatial + 1, spatial + 2):
        if spatial == 1:
            raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {inp_dim}D input. Note that "
                               "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial dimension, a "
                               "channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
        warnings.warn(f"{name}: Received a {inp_dim}-D input to {name}, which is deprecated and will result in an "
                      f"error in a future release. To retain the behavior and silence this warning, please use "
                      f"dropout instead. Note that {name} exists to provide channel-wise dropout on inputs with "
                      f"{spatial} spatial dimensions, a channel dimension, and an optional batch dimension (i.e. "
                      f"{spatial + 1}D or {spatial + 2}D inputs).", stacklevel=3)  # (dropout3d's)
    is_batched = inp_dim == spatial + 2
    if not is_batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)  # noqa: A001 - torch's name
    result = _torch.feature_dropout_(input, p, training) if inplace else _torch.feature_dropout(input, p, training)
    if not is_batched:
        result = result.squeeze_(0) if inplace else result.squeeze(0)
    return result


def dropout1d(input, p=0.5, training=True, inplace=False):  # noqa: A002 - torch's names
    """dropout1d(input, p=0.5, training=True, inplace=False) -> Tensor: zeroes whole channels."""
    return _feature_dropout("dropout1d", 1, input, p, training, inplace)


def dropout2d(input, p=0.5, training=True, inplace=False):  # noqa: A002 - torch's names
    """dropout2d(input, p=0.5, training=True, inplace=False) -> Tensor: zeroes whole channels (a 3-d input
    as (N, C, L), as torch still does)."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    inp_dim = input.dim()
    if inp_dim not in (3, 4):
        warnings.warn(f"dropout2d: Received a {inp_dim}-D input to dropout2d, which is deprecated and will result in "
                      "an error in a future release. To retain the behavior and silence this warning, please use "
                      "dropout instead. Note that dropout2d exists to provide channel-wise dropout on inputs with 2 "
                      "spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 3D or 4D "
                      "inputs).", stacklevel=2)
    if inp_dim == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior "
                      "is desired - input is interpreted as shape (N, C, L), where C is the channel dim. This behavior "
                      "will change in a future release to interpret the input as one without a batch dimension, i.e. "
                      "shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please switch to using "
                      "dropout1d instead.", stacklevel=2)
    return _torch.feature_dropout_(input, p, training) if inplace else _torch.feature_dropout(input, p, training)


def dropout3d(input, p=0.5, training=True, inplace=False):  # noqa: A002 - torch's names
    """dropout3d(input, p=0.5, training=True, inplace=False) -> Tensor: zeroes whole channels."""
    return _feature_dropout("dropout3d", 3, input, p, training, inplace)


def alpha_dropout(input, p=0.5, training=False, inplace=False):  # noqa: A002 - torch's names
    """alpha_dropout(input, p=0.5, training=False, inplace=False) -> Tensor (keeps SELU's mean and variance)."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    return _torch.alpha_dropout_(input, p, training) if inplace else _torch.alpha_dropout(input, p, training)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):  # noqa: A002 - torch's names
    """feature_alpha_dropout(input, p=0.5, training=False, inplace=False) -> Tensor."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    return (_torch.feature_alpha_dropout_(input, p, training) if inplace
            else _torch.feature_alpha_dropout(input, p, training))


# Activations (torch/nn/functional.py): torch._C._nn's ops, torch's (selu, celu, threshold,
# hardshrink), and the compositions torch writes in Python (softsign, tanhshrink).
def threshold(input, threshold, value, inplace=False):  # noqa: A002 - torch's names
    """threshold(input, threshold, value, inplace=False) -> Tensor: value where input <= threshold."""
    return _torch.threshold_(input, threshold, value) if inplace else _torch.threshold(input, threshold, value)


threshold_ = _torch.threshold_


def relu(input, inplace=False):  # noqa: A002 - torch's names
    """relu(input, inplace=False) -> Tensor."""
    return _torch.relu_(input) if inplace else _torch.relu(input)


relu_ = _torch.relu_


def glu(input, dim=-1):  # noqa: A002 - torch's names
    """glu(input, dim=-1) -> Tensor: the first half of input times the sigmoid of its second half."""
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    return _nn.glu(input, dim)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):  # noqa: A002 - torch's names
    """hardtanh(input, min_val=-1., max_val=1., inplace=False) -> Tensor."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _nn.hardtanh_(input, min_val, max_val) if inplace else _nn.hardtanh(input, min_val, max_val)


hardtanh_ = _nn.hardtanh_


def relu6(input, inplace=False):  # noqa: A002 - torch's names
    """relu6(input, inplace=False) -> Tensor: hardtanh(input, 0, 6)."""
    return _nn.relu6_(input) if inplace else _nn.relu6(input)


def elu(input, alpha=1.0, inplace=False):  # noqa: A002 - torch's names
    """elu(input, alpha=1.0, inplace=False) -> Tensor."""
    return _nn.elu_(input, alpha) if inplace else _nn.elu(input, alpha)


elu_ = _nn.elu_


def selu(input, inplace=False):  # noqa: A002 - torch's names
    """selu(input, inplace=False) -> Tensor."""
    return _torch.selu_(input) if inplace else _torch.selu(input)


selu_ = _torch.selu_


def celu(input, alpha=1.0, inplace=False):  # noqa: A002 - torch's names
    """celu(input, alpha=1., inplace=False) -> Tensor."""
    return _torch.celu_(input, alpha) if inplace else _torch.celu(input, alpha)


celu_ = _torch.celu_


def leaky_relu(input, negative_slope=0.01, inplace=False):  # noqa: A002 - torch's names
    """leaky_relu(input, negative_slope=0.01, inplace=False) -> Tensor."""
    return _nn.leaky_relu_(input, negative_slope) if inplace else _nn.leaky_relu(input, negative_slope)


leaky_relu_ = _nn.leaky_relu_
gelu = _nn.gelu
logsigmoid = _nn.log_sigmoid
hardshrink = _torch.hardshrink
softplus = _nn.softplus
softshrink = _nn.softshrink


def tanhshrink(input):  # noqa: A002 - torch's names
    """tanhshrink(input) -> Tensor: input - input.tanh()."""
    return input - input.tanh()


def softsign(input):  # noqa: A002 - torch's names
    """softsign(input) -> Tensor: input / (input.abs() + 1)."""
    return input / (input.abs() + 1)


def tanh(input):  # noqa: A002 - torch's names
    """tanh(input) -> Tensor."""
    return input.tanh()


def sigmoid(input):  # noqa: A002 - torch's names
    """sigmoid(input) -> Tensor."""
    return input.sigmoid()


def hardsigmoid(input, inplace=False):  # noqa: A002 - torch's names
    """hardsigmoid(input, inplace=False) -> Tensor."""
    return _nn.hardsigmoid_(input) if inplace else _nn.hardsigmoid(input)


def silu(input, inplace=False):  # noqa: A002 - torch's names
    """silu(input, inplace=False) -> Tensor: input * sigmoid(input)."""
    return _nn.silu_(input) if inplace else _nn.silu(input)


def mish(input, inplace=False):  # noqa: A002 - torch's names
    """mish(input, inplace=False) -> Tensor: input * tanh(softplus(input))."""
    return _nn.mish_(input) if inplace else _nn.mish(input)


def hardswish(input, inplace=False):  # noqa: A002 - torch's names
    """hardswish(input, inplace=False) -> Tensor."""
    return _nn.hardswish_(input) if inplace else _nn.hardswish(input)


def _no_grad_embedding_renorm_(weight, input, max_norm, norm_type):  # noqa: A002 - torch's names
    """at::embedding_renorm_ under no_grad: each row input names whose norm exceeds max_norm scaled
    by max_norm / (norm + 1e-7), in place (weight's version moves, as torch's does)."""
    with _no_grad():
        rows = _torch.unique(input.reshape(-1))
        picked = weight.index_select(0, rows)
        norms = _norm(picked, norm_type, 1)
        scale = _torch.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
        weight.index_copy_(0, rows, picked * scale.unsqueeze(1))


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,  # noqa: A002
              sparse=False):
    """embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
    sparse=False) -> Tensor: the rows of weight that input names (torch.nn.functional.embedding)."""
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < weight.size(0), "Padding_idx must be within num_embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -weight.size(0), "Padding_idx must be within num_embeddings"
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        input = input.contiguous()  # noqa: A001 - torch's name
        _no_grad_embedding_renorm_(weight, input, max_norm, norm_type)
    return _torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


# Losses (torch/nn/functional.py, torch/nn/_reduction.py) -------------------------------------------

def _get_enum(reduction):
    """torch.nn._reduction.get_enum: none 0, mean 1, sum 2."""
    if reduction == "none":
        return 0
    if reduction == "mean":
        return 1
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.",
                      stacklevel=2)
        return 1
    if reduction == "sum":
        return 2
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _legacy_get_string(size_average, reduce, emit_warning=True):
    """torch.nn._reduction.legacy_get_string: the reduction the deprecated size_average / reduce mean."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    ret = "mean" if size_average and reduce else "sum" if reduce else "none"
    if emit_warning:
        warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{ret}' instead.",
                      stacklevel=2)
    return ret


def _size_warning(input, target):  # noqa: A002 - torch's names
    if target.size() != input.size():
        warnings.warn(f"Using a target size ({target.size()}) that is different to the input size ({input.size()}). "
                      "This will likely lead to incorrect results due to broadcasting. "
                      "Please ensure they have the same size.", stacklevel=3)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,  # noqa: A002
             reduction="mean"):
    """nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
    reduction="mean") -> Tensor: the negative log likelihood loss."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_get_string(size_average, reduce)
    return _nn.nll_loss_nd(input, target, weight, _get_enum(reduction), ignore_index)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,  # noqa: A002
                  reduction="mean", label_smoothing=0.0):
    """cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
    reduction="mean", label_smoothing=0.0) -> Tensor: log_softmax and nll_loss (class indices) or the
    cross entropy with class probabilities."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_get_string(size_average, reduce)
    return _nn.cross_entropy_loss(input, target, weight, _get_enum(reduction), ignore_index, label_smoothing)


def _weighted_reduction(errors, weight, reduction, mean_by_weight):
    weighted = errors * weight
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return _torch.sum(weighted)
    if reduction == "mean":
        return _torch.sum(weighted) / _torch.sum(weight) if mean_by_weight else weighted.mean()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):  # noqa: A002
    """mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None) -> Tensor."""
    _size_warning(input, target)
    if size_average is not None or reduce is not None:
        reduction = _legacy_get_string(size_average, reduce)
    expanded_input, expanded_target = _torch.broadcast_tensors(input, target)
    if weight is not None:
        if weight.size() != input.size():
            raise ValueError("Weights and input must have the same size.")
        return _weighted_reduction(_torch.pow(expanded_input - expanded_target, 2), weight, reduction, True)
    return _nn.mse_loss(expanded_input, expanded_target, _get_enum(reduction))


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):  # noqa: A002
    """l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None) -> Tensor."""
    _size_warning(input, target)
    if size_average is not None or reduce is not None:
        reduction = _legacy_get_string(size_average, reduce)
    expanded_input, expanded_target = _torch.broadcast_tensors(input, target)
    if weight is not None:
        if weight.size() != input.size():
            raise ValueError("Weights and input must have the same size.")
        return _weighted_reduction(_torch.abs(expanded_input - expanded_target), weight, reduction, True)
    return _nn.l1_loss(expanded_input, expanded_target, _get_enum(reduction))


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):  # noqa: A002
    """smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0) -> Tensor."""
    _size_warning(input, target)
    if size_average is not None or reduce is not None:
        reduction = _legacy_get_string(size_average, reduce)
    expanded_input, expanded_target = _torch.broadcast_tensors(input, target)
    if beta == 0.0:
        return _nn.l1_loss(expanded_input, expanded_target, _get_enum(reduction))
    return _nn.smooth_l1_loss(expanded_input, expanded_target, _get_enum(reduction), beta)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):  # noqa: A002 - torch's names
    """huber_loss(input, target, reduction="mean", delta=1.0, weight=None) -> Tensor."""
    _size_warning(input, target)
    expanded_input, expanded_target = _torch.broadcast_tensors(input, target)
    if weight is None:
        return _nn.huber_loss(expanded_input, expanded_target, _get_enum(reduction), delta)
    if weight.size() != input.size():
        raise ValueError("Weights and input must have the same size.")
    unweighted = _nn.huber_loss(expanded_input, expanded_target, _get_enum("none"), delta)
    return _weighted_reduction(unweighted, weight, reduction, False)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,  # noqa: A002
                         reduction="mean"):
    """binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean")."""
    if size_average is not None or reduce is not None:
        reduction_enum = _get_enum(_legacy_get_string(size_average, reduce))
    else:
        reduction_enum = _get_enum(reduction)
    if target.size() != input.size():
        raise ValueError(f"Using a target size ({target.size()}) that is different to the input size "
                         f"({input.size()}) is deprecated. Please ensure they have the same size.")
    if weight is not None:
        weight = weight.expand(_torch.broadcast_tensors(target, weight)[0].size())
    return _nn.binary_cross_entropy(input, target, weight, reduction_enum)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,  # noqa: A002
                                     reduction="mean", pos_weight=None):
    """binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
    reduction="mean", pos_weight=None) -> Tensor."""
    if size_average is not None or reduce is not None:
        reduction_enum = _get_enum(_legacy_get_string(size_average, reduce))
    else:
        reduction_enum = _get_enum(reduction)
    if not (target.size() == input.size()):
        raise ValueError(f"Target size ({target.size()}) must be the same as input size ({input.size()})")
    return _torch.binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction_enum)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):  # noqa: A002
    """kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False) -> Tensor."""
    if size_average is not None or reduce is not None:
        reduction_enum = _get_enum(_legacy_get_string(size_average, reduce))
    else:
        if reduction == "mean":
            warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                          "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                          "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                          stacklevel=2)
        reduction_enum = _get_enum("sum") if reduction == "batchmean" else _get_enum(reduction)
    reduced = _torch.kl_div(input, target, reduction_enum, log_target=log_target)
    if reduction == "batchmean" and input.dim() != 0:
        reduced = reduced / input.size()[0]
    return reduced


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
    reduction="mean") -> Tensor."""
    if size_average is not None or reduce is not None:
        reduction_enum = _get_enum(_legacy_get_string(size_average, reduce))
    else:
        reduction_enum = _get_enum(reduction)
    return _torch.cosine_embedding_loss(input1, input2, target, margin, reduction_enum)


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
    reduction="mean") -> Tensor."""
    if size_average is not None or reduce is not None:
        reduction_enum = _get_enum(_legacy_get_string(size_average, reduce))
    else:
        reduction_enum = _get_enum(reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} ")
    return _torch.margin_ranking_loss(input1, input2, target, margin, reduction_enum)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    """triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
    size_average=None, reduce=None, reduction="mean") -> Tensor."""
    if size_average is not None or reduce is not None:
        reduction_enum = _get_enum(_legacy_get_string(size_average, reduce))
    else:
        reduction_enum = _get_enum(reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    return _torch.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction_enum)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,  # noqa: A002 - torch's names
                         reduction="mean"):
    """hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean")."""
    if size_average is not None or reduce is not None:
        reduction_enum = _get_enum(_legacy_get_string(size_average, reduce))
    else:
        reduction_enum = _get_enum(reduction)
    return _torch.hinge_embedding_loss(input, target, margin, reduction_enum)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):  # noqa: A002
    """soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean") -> Tensor."""
    if size_average is not None or reduce is not None:
        reduction_enum = _get_enum(_legacy_get_string(size_average, reduce))
    else:
        reduction_enum = _get_enum(reduction)
    return _nn.soft_margin_loss(input, target, reduction_enum)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,  # noqa: A002
                     reduce=None, reduction="mean"):
    """poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
    reduction="mean") -> Tensor."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_get_string(size_average, reduce)
    if reduction != "none" and reduction != "mean" and reduction != "sum":
        raise ValueError(reduction + " is not a valid value for reduction")
    return _torch.poisson_nll_loss(input, target, log_input, full, eps, _get_enum(reduction))


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):  # noqa: A002 - torch's names
    """normalize(input, p=2.0, dim=1, eps=1e-12, out=None) -> Tensor: input / max(norm(input, p, dim), eps)."""
    if out is None:
        denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
        return input / denom
    denom = input.norm(p, dim, keepdim=True).clamp_min_(eps).expand_as(input)
    return _torch.div(input, denom, out=out)


pairwise_distance = _torch.pairwise_distance
cosine_similarity = _torch.cosine_similarity
one_hot = _nn.one_hot


def dropout(input, p=0.5, training=True, inplace=False):  # noqa: A002 - torch's names
    """dropout(input, p=0.5, training=True, inplace=False) -> Tensor: zeroes elements with probability p
    and scales the others by 1 / (1 - p) while training."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    return _torch.dropout_(input, p, training) if inplace else _torch.dropout(input, p, training)


__all__ += ["threshold", "threshold_", "relu", "relu_", "glu", "hardtanh", "hardtanh_", "relu6", "elu", "elu_",
            "selu", "selu_", "celu", "celu_", "leaky_relu", "leaky_relu_", "gelu", "logsigmoid", "hardshrink",
            "softplus", "softshrink", "tanhshrink", "softsign", "tanh", "sigmoid", "hardsigmoid", "silu", "mish",
            "hardswish", "dropout", "embedding", "nll_loss", "cross_entropy", "mse_loss", "l1_loss",
            "smooth_l1_loss", "huber_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div",
            "cosine_embedding_loss", "margin_ranking_loss", "triplet_margin_loss", "normalize", "pairwise_distance",
            "cosine_similarity", "one_hot", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout",
            "feature_alpha_dropout", "hinge_embedding_loss", "soft_margin_loss", "poisson_nll_loss"]

# ==== issue 15: conv ====
# (the conv family's entries follow this line)
from ._functional_conv2 import *  # noqa: E402, F403 - embedding_bag, unfold, fold, ...
from . import _functional_conv2  # noqa: E402
__all__ += _functional_conv2.__all__
_functional_conv2._renorm = _no_grad_embedding_renorm_
from .._generated.torch_functions import conv1d, conv2d, conv_transpose1d, conv_transpose2d  # noqa: E402, F401
from .._generated import torch_functions as _conv_torch_functions  # noqa: E402

from .. import _ops as _conv_ops  # noqa: E402
from .._ops import Normalization as _Normalization  # noqa: E402, F401 - rms_norm's checks
import numpy as _np  # noqa: E402
import math as _math  # noqa: E402
import warnings as _warnings  # noqa: E402

__all__ += ["avg_pool1d", "avg_pool2d", "conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d", "max_pool1d",
            "max_pool1d_with_indices", "max_pool2d", "max_pool2d_with_indices", "pad"]

avg_pool1d = _conv_torch_functions.avg_pool1d


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,  # noqa: A002
               divisor_override=None):
    """torch._C._nn.avg_pool2d (AvgPool2DBackward0)."""
    return _conv_ops.avg_pool2d(input, kernel_size, [] if stride is None else stride, padding, ceil_mode,
                                count_include_pad, divisor_override)


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,  # noqa: A002
                            return_indices=False):
    """(values, indices) of torch.max_pool1d_with_indices."""
    return _conv_ops.max_pool1d_with_indices(input, kernel_size, [] if stride is None else stride, padding, dilation,
                                             ceil_mode)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,  # noqa: A002
               return_indices=False):
    """F.max_pool1d: values, or (values, indices) with return_indices (torch's boolean_dispatch)."""
    if return_indices:
        return max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return _conv_ops.max_pool1d(input, kernel_size, [] if stride is None else stride, padding, dilation, ceil_mode)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,  # noqa: A002
                            return_indices=False):
    """(values, indices) of torch._C._nn.max_pool2d_with_indices (MaxPool2DWithIndicesBackward0)."""
    return _conv_ops.max_pool2d_with_indices(input, kernel_size, [] if stride is None else stride, padding, dilation,
                                             ceil_mode)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,  # noqa: A002
               return_indices=False):
    """F.max_pool2d: values, or (values, indices) with return_indices."""
    if return_indices:
        return max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return _conv_ops.max_pool2d(input, kernel_size, [] if stride is None else stride, padding, dilation, ceil_mode)


__all__ += ["batch_norm", "group_norm", "layer_norm", "rms_norm"]


def _verify_batch_size(size):
    """torch.nn.functional._verify_batch_size."""
    prod = size[0]
    for s in size[2:]:
        prod *= s
    if prod == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,  # noqa: A002
               momentum=0.1, eps=1e-5):
    """torch.nn.functional.batch_norm: at::batch_norm (NativeBatchNormBackward0); in training the
    running statistics, when given, are updated in place."""
    if training:
        _verify_batch_size(input.size())
    return _conv_torch_functions.batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
                                            False)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):  # noqa: A002
    """torch.nn.functional.layer_norm: at::layer_norm (NativeLayerNormBackward0)."""
    return _conv_torch_functions.layer_norm(input, normalized_shape, weight, bias, eps, False)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):  # noqa: A002
    """torch.nn.functional.group_norm: at::group_norm (NativeGroupNormBackward0)."""
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    _verify_batch_size([input.size(0) * input.size(1) // num_groups, num_groups] + list(input.size()[2:]))
    return _conv_torch_functions.group_norm(input, num_groups, weight, bias, eps, False)


def rms_norm(input, normalized_shape, weight=None, eps=None):  # noqa: A002
    """torch.nn.functional.rms_norm: ATen's composite rms_norm (layer_norm.cpp), whose nodes torch
    records: input * rsqrt(input.pow(2).mean(dims, keepdim=True) + eps) [* weight]."""
    if isinstance(normalized_shape, int):  # torch.rms_norm's argument parser
        raise TypeError("rms_norm(): argument 'normalized_shape' (position 2) must be tuple of ints, not int")
    normalized_shape = [int(s) for s in normalized_shape]
    try:
        _conv_ops.Normalization._check_layer_norm_inputs(input._array, normalized_shape, weight, None)
    except RuntimeError as error:  # upstream's rms_norm writes its expected shape without the comma
        raise RuntimeError(str(error).replace("[*, ", "[*")) from None
    if eps is None:
        eps = float(_np.finfo(input._array.dtype).eps)
    dims = list(range(input.dim() - len(normalized_shape), input.dim()))
    out = input * _conv_ops._add_scalar(input.pow(2).mean(dims, keepdim=True), eps).rsqrt()
    return out * weight if weight is not None else out


__all__ += ["adaptive_avg_pool2d"]


def adaptive_avg_pool2d(input, output_size):  # noqa: A002 - torch's names
    """torch.nn.functional.adaptive_avg_pool2d: a None in output_size keeps that input size."""
    if not isinstance(output_size, int):
        output_size = [input.size(-2 + i) if v is None else v for i, v in enumerate(output_size)] \
            if len(output_size) == 2 else list(output_size)
    return _conv_ops.adaptive_avg_pool2d(input, output_size)


__all__ += ["interpolate", "upsample"]


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,  # noqa: A002
                recompute_scale_factor=None, antialias=False):
    """torch.nn.functional.interpolate, its nearest, linear and bilinear modes (upsample_nearest1d/2d,
    upsample_linear1d, upsample_bilinear2d), with its argument checks."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: linear | bilinear | "
                             "bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError("Input and output must have the same number of spatial dimensions, but got input with "
                                 f"spatial dimensions of {list(input.shape[2:])} and output size of {size}. Please "
                                 "provide input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, "
                                 "...,oK) format.")
            output_size = list(size)
        else:
            output_size = [size] * dim
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError("Input and scale_factor must have the same number of spatial dimensions, but got "
                                 f"input with spatial dimensions of {list(input.shape[2:])} and scale_factor of shape "
                                 f"{scale_factor}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                                 "scale_factor in (s1, s2, ...,sK) format.")
            scale_factors = list(scale_factor)
        else:
            scale_factors = [scale_factor] * dim
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if recompute_scale_factor:
        output_size = [int(_math.floor(float(input.size(i + 2)) * float(scale_factors[i]))) for i in range(dim)]
        scale_factors = None
    if output_size is None:
        output_size = [int(_math.floor(input.size(i + 2) * float(scale_factors[i]))) for i in range(dim)]
    scales = [None] * dim if scale_factors is None else [float(s) for s in scale_factors]
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D "
                         "tensor as input")
    if antialias:
        raise NotImplementedError("torchlite: interpolate(antialias=True) is not implemented yet")
    if input.dim() == 3 and mode == "nearest":
        return _conv_ops.upsample_nearest1d(input, output_size, scales[0])
    if input.dim() == 4 and mode == "nearest":
        return _conv_ops.upsample_nearest2d(input, output_size, *scales)
    if input.dim() == 3 and mode == "area":  # (area always recomputes the output size)
        return _functional_conv2.adaptive_avg_pool1d(input, output_size)
    if input.dim() == 4 and mode == "area":
        return adaptive_avg_pool2d(input, output_size)
    if input.dim() == 3 and mode == "linear":
        return _conv_ops.upsample_linear1d(input, output_size, align_corners, scales[0])
    if input.dim() == 4 and mode == "bilinear":
        return _conv_ops.upsample_bilinear2d(input, output_size, align_corners, *scales)
    if input.dim() == 4 and mode == "bicubic":
        return _conv_ops.upsample_bicubic2d(input, output_size, align_corners, *scales)
    if input.dim() == 4 and mode == "lanczos":
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        raise ValueError("Lanczos mode requires antialias=True")
    for d, m, need in ((3, "bilinear", 4), (3, "trilinear", 5), (4, "linear", 3), (4, "trilinear", 5),
                       (5, "linear", 3), (5, "bilinear", 4)):
        if input.dim() == d and mode == m:
            raise NotImplementedError(f"Got {d}D input, but {m} mode needs {need}D input")
    torch_has = {(5, "nearest"), (3, "nearest-exact"), (4, "nearest-exact"), (5, "nearest-exact"), (5, "area"),
                 (5, "trilinear")}
    if (input.dim(), mode) not in torch_has:
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for "
                                  "the modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | "
                                  f"nearest-exact (got {mode})")
    raise NotImplementedError(f"torchlite: interpolate(mode='{mode}') of a {input.dim()}D input is not implemented yet")


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):  # noqa: A002
    """torch.nn.functional.upsample (deprecated): interpolate, with torch's warning."""
    _warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def pad(input, pad, mode="constant", value=None):  # noqa: A002 - torch's names
    """torch.nn.functional.pad (torch._C._nn.pad, ATen/native/PadNd.cpp): constant mode is
    at::constant_pad_nd (ConstantPadNdBackward0)."""
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    pad = [int(p) for p in pad]
    dim = input.dim()
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > dim:
        raise RuntimeError("Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {dim}")
    if mode == "constant":
        return _conv_torch_functions.constant_pad_nd(input, pad, 0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
    if len(pad) == 2 and dim in (2, 3):
        kernel = {"reflect": _conv_ops.reflection_pad1d, "replicate": _conv_ops.replication_pad1d,
                  "circular": _functional_conv2._pad_circular}.get(mode)
    elif len(pad) == 4 and dim in (3, 4):
        kernel = {"reflect": _conv_ops.reflection_pad2d, "replicate": _conv_ops.replication_pad2d,
                  "circular": _functional_conv2._pad_circular}.get(mode)
    elif len(pad) == 6 and dim in (4, 5):
        kernel = {"circular": _functional_conv2._pad_circular}.get(mode)
    else:
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {dim}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    if kernel is None:  # the 3-d reflect / replicate modes
        raise NotImplementedError(f"torchlite: F.pad with mode='{mode}' and padding of size {len(pad)} is not "
                                  "implemented yet")
    return kernel(input, pad)

# ==== issue 15: modules ====
# (the modules family's entries follow this line)

# ==== issue 15: seq ====
# (the seq family's entries follow this line)
import math as _seq_math  # noqa: E402 - the seq family's imports stay in its section

from .._dtypes import _c_type_name as _seq_c_name, _to_numpy_dtype as _seq_np  # noqa: E402
from .._ops.ScalarType import _torch_type_name as _seq_type_name  # noqa: E402
from . import _seq_torch as _tl  # noqa: E402


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
        base = 1.0 / _seq_math.sqrt(query.size(-1))
    factor = _seq_math.sqrt(base)
    # at::mul(Tensor, Scalar) in attention.cpp: MulBackward1, as torch's graph
    q = _attn_mul_scalar(query, -factor if negative else factor)
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                               "is_causal=True")
        L, S = query.size(-2), key.size(-2)
        attn_mask = _tl.ones(L, S, dtype=_tl.bool, device=query.device).tril()
    if attn_mask is not None and attn_mask.dtype == _tl.bool:
        # convert_boolean_attn_mask: False -> -inf, True -> 0, in the query's dtype
        attn_mask = _tl.zeros(attn_mask.shape, dtype=query.dtype, device=query.device).masked_fill(
            attn_mask.logical_not(), float("-inf"))
    key, value = _gqa_expand(query, key, value, enable_gqa)
    attn = _tl.matmul(q, _attn_mul_scalar(key.transpose(-2, -1), factor))
    if attn_mask is not None:
        # attn.add_(attn_mask): the sum keeps attn's dtype
        attn = attn + attn_mask
    attn = _tl._safe_softmax(attn, -1)
    if dropout_p > 0.0:
        if dropout_p > 1:
            # at::dropout's check (aten/src/ATen/native/Dropout.cpp)
            raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {dropout_p:g}")
        attn = dropout(attn, dropout_p, True)
    return _tl.matmul(attn, value), attn


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    """softmax(q k^T * scale + mask) v, as torch.nn.functional.scaled_dot_product_attention (torch's
    math path; the fused CPU kernels torch may pick give the same values)."""
    _sdpa_validate(query, key, value, attn_mask)
    # (the backend choice: the functional family's _sdpa_flash_or_math, issue 15's fused CPU attention)
    return _sdpa_flash_or_math(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)


__all__ += ["scaled_dot_product_attention"]


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    # torch/nn/functional.py: _mha_shape_check - whether the input is batched
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError("For batched (3-D) `query`, expected `key` and `value` to be 3-D"
                                 f" but found {key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError("For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D"
                                 f" but found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError("For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D"
                                 f" but found {attn_mask.dim()}-D tensor instead")
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError("For unbatched (2-D) `query`, expected `key` and `value` to be 2-D"
                                 f" but found {key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError("For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D"
                                 f" but found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError("For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D"
                                     f" but found {attn_mask.dim()}-D tensor instead")
            if attn_mask.dim() == 3:
                expected = (num_heads, query.shape[0], key.shape[0])
                if attn_mask.shape != expected:
                    raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got {attn_mask.shape}")
        return False
    raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query tensor")


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    # torch/nn/functional.py: _canonical_mask - a bool mask becomes 0 / -inf in target_type
    if mask is None:
        return None
    is_float = mask.dtype.is_floating_point
    if mask.dtype != _tl.bool and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type for both "
                      "instead.", stacklevel=2)
    if not is_float:
        mask = _tl.zeros_like(mask, dtype=target_type).masked_fill_(mask, float("-inf"))
    return mask


def _none_or_dtype(input):  # noqa: A002 - torch's names
    if input is None:
        return None
    if isinstance(input, _tl.Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _in_projection_packed(q, k, v, w, b=None):
    # torch/nn/functional.py: _in_projection_packed (one projection for self-attention, q and kv
    # for encoder-decoder attention)
    E = q.size(-1)
    if k is v:
        if q is k:
            proj = linear(q, w, b)
            proj = proj.unflatten(-1, (3, E)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
            return proj[0], proj[1], proj[2]
        w_q, w_kv = w.split([E, E * 2])
        b_q, b_kv = (None, None) if b is None else b.split([E, E * 2])
        q_proj = linear(q, w_q, b_q)
        kv = linear(k, w_kv, b_kv)
        kv = kv.unflatten(-1, (2, E)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
        return q_proj, kv[0], kv[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _in_projection(q, k, v, w_q, w_k, w_v, b_q=None, b_k=None, b_v=None):
    # torch/nn/functional.py: _in_projection (separate weights, kdim / vdim may differ)
    Eq, Ek, Ev = q.size(-1), k.size(-1), v.size(-1)
    for name, w, shape in (("query", w_q, (Eq, Eq)), ("key", w_k, (Eq, Ek)), ("value", w_v, (Eq, Ev))):
        if w.shape != shape:
            raise AssertionError(f"expecting {name} weights shape of {shape}, but got {w.shape}")
    for name, bias in (("query", b_q), ("key", b_k), ("value", b_v)):
        if bias is not None and bias.shape != (Eq,):
            raise AssertionError(f"expecting {name} bias shape of {(Eq,)}, but got {bias.shape}")
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _pad_one(mask):
    # pad(mask, (0, 1)): one zero column at the end of the last dimension
    zeros = _tl.zeros(tuple(mask.shape[:-1]) + (1,), dtype=mask.dtype, device=mask.device)
    return _tl.cat([mask, zeros], -1)


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    """torch.nn.functional.multi_head_attention_forward: MultiheadAttention's computation on
    (L, N, E) / (L, E) inputs (torch/nn/functional.py, the same steps)."""
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask), "attn_mask",
                                       query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # the hint goes to scaled_dot_product_attention as is_causal
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match value's "
                                 f"{value.shape[:2]}")
    elif key.shape != value.shape:
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")

    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        for name, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight is None")
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = _in_projection(query, key, value, q_proj_weight, k_proj_weight, v_proj_weight, b_q, b_k, b_v)

    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if attn_mask.shape != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                                   f"{(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            if attn_mask.shape != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                                   f"{(bsz * num_heads, tgt_len, src_len)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")

    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = _tl.cat([k, bias_k.repeat(1, bsz, 1)])
        v = _tl.cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = _pad_one(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_one(key_padding_mask)
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")

    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    if static_k is None:
        k = k.view(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    else:
        if static_k.size(0) != bsz * num_heads:
            raise AssertionError(f"expecting static_k.size(0) of {bsz * num_heads}, but got {static_k.size(0)}")
        if static_k.size(2) != head_dim:
            raise AssertionError(f"expecting static_k.size(2) of {head_dim}, but got {static_k.size(2)}")
        k = static_k
    if static_v is None:
        v = v.view(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    else:
        if static_v.size(0) != bsz * num_heads:
            raise AssertionError(f"expecting static_v.size(0) of {bsz * num_heads}, but got {static_v.size(0)}")
        if static_v.size(2) != head_dim:
            raise AssertionError(f"expecting static_v.size(2) of {head_dim}, but got {static_v.size(2)}")
        v = static_v

    if add_zero_attn:
        zshape = (bsz * num_heads, 1, head_dim)
        k = _tl.cat([k, _tl.zeros(zshape, dtype=k.dtype, device=k.device)], dim=1)
        v = _tl.cat([v, _tl.zeros(zshape, dtype=v.dtype, device=v.device)], dim=1)
        if attn_mask is not None:
            attn_mask = _pad_one(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_one(key_padding_mask)
    src_len = k.size(1)

    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got {key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{key_padding_mask.shape[1]}")
        key_padding_mask = (key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1)
                            .reshape(bsz * num_heads, 1, src_len))
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask

    if not training:
        dropout_p = 0.0

    if need_weights:
        E = q.shape[2]
        q_scaled = q * _seq_math.sqrt(1.0 / float(E))
        if is_causal and attn_mask is None:
            raise AssertionError("FIXME: is_causal not implemented for need_weights")
        if attn_mask is not None:
            weights = _tl.baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
        else:
            weights = _tl.bmm(q_scaled, k.transpose(-2, -1))
        weights = softmax(weights, dim=-1)
        if dropout_p > 0.0:
            weights = dropout(weights, p=dropout_p)
        out = _tl.bmm(weights, v)
        out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias)
        out = out.view(tgt_len, bsz, out.size(1))
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not is_batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights
    if attn_mask is not None:
        if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias)
    out = out.view(tgt_len, bsz, out.size(1))
    if not is_batched:
        out = out.squeeze(1)
    return out, None


__all__ += ["multi_head_attention_forward"]
