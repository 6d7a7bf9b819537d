"""The differentiable ops' forward kernels (PyTorch's native functions), one module
per family, named after ATen's files (aten/src/ATen/native/*.cpp) where it has one.

Each op computes its forward with numpy, wraps the result (`_wrap`, zero-copy)
and calls `_record` with its node's spec from the derivatives table
(tools/autograd/derivatives.yaml, generated into torchlite/_generated/specs.py)
and the values the node keeps, by name (`_record(_S.MulBackward0, (self, other),
out, self=..., other=...)`). When grad mode is on and an input requires grad,
that makes the C++ node, named as PyTorch names it, which keeps the tensors as
SavedVariables (version-checked) and runs the table's formula during backward
(torchlite/_generated/functions.py, over torchlite/_functions_manual.py), then
reduces each gradient to its input's shape and dtype as validate_outputs does.

An op between a tensor and a Python number calls `_record_number` instead,
which wraps the number in C++ as PyTorch does.

The modules import each other only downwards, in this order (each imports only
modules of the lines above its own):
  ScalarType, python_arg_parser, ExpandUtils, TensorGeometry
  TensorIterator, MemoryOverlap, TensorProperties
  Copy, Fill, UnaryOps, Activation, Pow, TensorShape, TypeProperties
  TensorFactories, TensorConversions, LinearAlgebra
  BinaryOps, ReduceOps, TensorAdvancedIndexing, TensorCompare
  python_variable_indexing, view_formulas
  TriangularOps, Distributions (issue 13, creation)
  BatchLinearAlgebra, Linear (the linalg family's factorisation and composite ops)
  structured_inplace, UnaryAliases
This package re-exports what the rest of torchlite calls.
"""
from .ScalarType import _torch_type_name
from .python_arg_parser import _int_arg, _shape_arg, _wrap_dim
from .TensorIterator import _empty_like, _iteration_order, _loud, _out, _quiet
from .TensorGeometry import _geometry
from .Copy import copy_
from .Fill import fill_, zero_
from .TensorFactories import clone, ones_like, zeros_like, _const
from .UnaryOps import abs, cos, exp, log, neg, positive, reciprocal, sgn, sigmoid, sin, sqrt, tanh  # noqa: A004
from .Activation import relu, threshold_backward
from .BinaryOps import (add, add_, atan2, div, div_, mul, mul_, rdiv, rsub, sigmoid_backward, sub, sub_, tanh_backward,
                        _add_scalar, _div_scalar, _mul_scalar, _sub_scalar)
from .Pow import pow, rpow  # noqa: A004
from .TensorShape import (as_strided, cat, chunk, diagonal, diagonal_backward, expand, narrow, permute, reshape,
                          split, squeeze, stack, t, transpose, unbind, unsqueeze, view, _select, _slice)
from .TensorProperties import contiguous, stride
from .LinearAlgebra import matmul, _column_major, _matmul_kernel
from .TensorConversions import to
from .ReduceOps import max, mean, min, sum, _sum_to, _unsqueeze_multiple  # noqa: A004
from .TensorAdvancedIndexing import (getitem_raw, _index_add, _index_backward, _index_put_zeros, _masked_fill,
                                     _masked_fill_zeros, _saved_index_key, _scatter_zeros)
from .python_variable_indexing import delitem, getitem, setitem
from .view_formulas import _as_strided_backward, _copy_slices_backward
from .TensorCompare import where, _compare

__all__ = [
    "_torch_type_name", "_int_arg", "_shape_arg", "_wrap_dim", "_empty_like", "_iteration_order", "_loud", "_out",
    "_quiet", "_geometry", "copy_", "fill_", "zero_", "clone", "ones_like", "zeros_like", "_const", "abs", "cos",
    "exp", "log", "neg", "positive", "reciprocal", "sgn", "sigmoid", "sin", "sqrt", "tanh", "relu",
    "threshold_backward", "add", "add_", "atan2", "div", "div_", "mul", "mul_", "rdiv", "rsub", "sigmoid_backward",
    "sub", "sub_", "tanh_backward", "_add_scalar", "_div_scalar", "_mul_scalar", "_sub_scalar", "pow", "rpow",
    "as_strided", "cat", "chunk", "diagonal", "diagonal_backward", "expand", "narrow", "permute", "reshape",
    "split", "squeeze", "stack", "t", "transpose", "unbind", "unsqueeze", "view", "_select", "_slice", "contiguous",
    "stride", "matmul", "_column_major", "_matmul_kernel", "to", "max", "mean", "min", "sum", "_sum_to",
    "_unsqueeze_multiple", "getitem_raw", "_index_add", "_index_backward", "_index_put_zeros",
    "_masked_fill", "_masked_fill_zeros", "_saved_index_key", "_scatter_zeros", "delitem", "getitem",
    "setitem",
    "_as_strided_backward", "_copy_slices_backward", "where", "_compare"]

# ==== issue 13: dtypes ====
# (the dtypes family's entries follow this line)
from .ScalarType import _NARROW, _scalar_value  # noqa: E402
from .TensorIterator import _promote_types  # noqa: E402
from .TypeProperties import (can_cast, is_complex, is_floating_point, is_signed, promote_types,  # noqa: E402
                             result_type)
__all__ += ["_NARROW", "_promote_types", "_scalar_value", "can_cast", "is_complex", "is_floating_point", "is_signed",
            "promote_types", "result_type"]

# ==== issue 13: creation ====
# (the creation family's entries follow this line)
from .TriangularOps import diag, diag_embed, tril, triu  # noqa: E402

__all__ += ["diag", "diag_embed", "tril", "triu"]

from .Distributions import multinomial, normal  # noqa: E402

__all__ += ["multinomial", "normal"]

# ==== issue 13: unary ====
# (the unary family's entries follow this line)
from .UnaryOps import (acos, acosh, asin, asinh, atan, atanh, ceil, cosh, erf, erfc, erfinv, exp2,  # noqa: E402
                       expm1, floor, frac, log1p, log2, log10, logit, nan_to_num, round, rsqrt, sign, sinc,  # noqa: A004
                       sinh, tan, trunc)
from .UnaryAliases import (absolute, acosh_, arccos, arccosh, arccosh_, arcsin, arcsinh, arcsinh_, arctan, arctanh,  # noqa: E402
                           arctanh_, asinh_, atanh_, fix, special_erf,
                           special_erfc, special_erfinv, special_exp2, special_expit, special_expm1, special_log1p,
                           special_logit, special_round, special_sinc, square, negative)

__all__ += ["acos", "acosh", "asin", "asinh", "atan", "atanh", "ceil", "cosh", "erf", "erfc", "erfinv", "exp2",
            "expm1", "floor", "frac", "log1p", "log2", "log10", "logit", "nan_to_num", "round", "rsqrt", "sign",
            "sinc", "sinh", "tan", "trunc", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "fix",
            "acosh_", "arccosh_", "arcsinh_", "arctanh_", "asinh_", "atanh_",
            "special_erf", "special_erfc", "special_erfinv", "special_exp2", "special_expit", "special_expm1",
            "special_log1p", "special_logit", "special_round", "special_sinc", "square", "absolute", "negative"]

# ==== issue 13: binary ====
# (the binary family's entries follow this line)
from .BinaryOps import (addcdiv, addcmul, bitwise_and, bitwise_left_shift, bitwise_not,  # noqa: E402
                        bitwise_or, bitwise_right_shift, bitwise_xor, clamp, clamp_max, clamp_min, clip, div_mode,
                        divide, floor_divide, fmax, fmin, fmod, hypot, invert, lerp, logaddexp, logical_and,
                        logical_not, logical_or, logical_xor, matmul_operator, maximum, minimum, multiply,
                        operator, remainder,
                        rfloordiv,
                        rlshift, rmatmul, rremainder, rrshift, subtract, true_divide, xlogy)
from .BinaryOps import (bitwise_and_, bitwise_left_shift_, bitwise_not_, bitwise_or_,  # noqa: E402
                        bitwise_right_shift_, bitwise_xor_, clamp_, clamp_max_, clamp_min_, clip_, floor_divide_,
                        inplace_operator, logical_and_, logical_not_, logical_or_, logical_xor_, addcdiv_,
                        addcmul_, divide_, fmod_, hypot_, lerp_, multiply_, remainder_, subtract_, true_divide_,
                        xlogy_)
from . import ReduceOps as _ReduceOps  # noqa: E402
from . import BinaryOps as _BinaryOps  # noqa: E402
from .structured_inplace import inplace_variant as _inplace_variant  # noqa: E402
from .TensorIterator import _TB  # noqa: E402

# torch.div and Tensor.div take rounding_mode (div.Tensor_mode); the kernel without it stays BinaryOps.div
div = div_mode  # noqa: F811


def _div_(self, other, *, rounding_mode=_BinaryOps._NO_MODE):
    """Tensor.div_: with rounding_mode, div_.Tensor_mode, the structured in-place variant of div's kernel."""
    if rounding_mode is _BinaryOps._NO_MODE:
        return _BinaryOps.div_(self, other)
    _BinaryOps._inplace_shapes(self, (other,), {})
    return _inplace_variant(div_mode, self, (other,), {"rounding_mode": rounding_mode})


div_ = _div_  # noqa: F811


def _max(input, *args, **kwargs):  # noqa: A002 - torch's name
    """torch.max: max(input, other) with a tensor `other` is at::maximum (BinaryOps.cpp's max.other),
    else the reduction."""
    if (args and isinstance(args[0], (_TB, float, bool))) or "other" in kwargs:
        return _minmax_other("max", maximum, input, args, kwargs)
    return _ReduceOps.max(input, *args, **kwargs)


def _min(input, *args, **kwargs):  # noqa: A002 - torch's name
    if (args and isinstance(args[0], (_TB, float, bool))) or "other" in kwargs:
        return _minmax_other("min", minimum, input, args, kwargs)
    return _ReduceOps.min(input, *args, **kwargs)


# torch.max / torch.min: the reductions' functions, with max(input, other) dispatched first
max = _max  # type: ignore[assignment]  # noqa: A001 F811 - torch's name
min = _min  # type: ignore[assignment]  # noqa: A001 F811


def _minmax_other(name, fn, input, args, kwargs):  # noqa: A002
    other = args[0] if args else kwargs.get("other")
    out = kwargs.get("out")
    extra = [k for k in kwargs if k not in ("other", "out")]
    if len(args) + ("other" in kwargs) != 1 or extra or not isinstance(other, _TB):
        got = ", ".join(["Tensor"] + [type(a).__name__ if not isinstance(a, _TB) else "Tensor" for a in args]
                        + [f"{k}={'Tensor' if isinstance(v, _TB) else type(v).__name__}" for k, v in kwargs.items()])
        raise TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                        " * (Tensor input, *, Tensor out = None)\n"
                        " * (Tensor input, Tensor other, *, Tensor out = None)\n"
                        " * (Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None)\n")
    if out is not None:  # max.other's out= (maximum's kernel)
        return _BinaryOps._out_of(fn.__name__, lambda: fn(input, other), out, (input, other))
    return fn(input, other)


__all__ += ["bitwise_and_", "bitwise_left_shift_", "bitwise_not_", "bitwise_or_", "bitwise_right_shift_",
            "bitwise_xor_", "clamp_", "clamp_max_", "clamp_min_", "clip_", "floor_divide_", "inplace_operator",
            "logical_and_", "logical_not_", "logical_or_", "logical_xor_", "addcdiv_", "addcmul_", "divide_", "fmod_",
            "hypot_", "lerp_", "multiply_", "remainder_", "subtract_", "true_divide_", "xlogy_"]
__all__ += ["addcdiv", "addcmul", "bitwise_and", "bitwise_left_shift", "bitwise_not", "bitwise_or",
            "bitwise_right_shift", "bitwise_xor", "clamp", "clamp_max", "clamp_min", "clip", "div_mode", "divide",
            "floor_divide", "fmax", "fmin", "fmod", "hypot", "invert", "lerp", "logaddexp", "logical_and",
            "logical_not", "logical_or", "logical_xor", "matmul_operator", "maximum", "minimum", "multiply", "operator",
            "remainder",
            "rfloordiv",
            "rlshift", "rmatmul", "rremainder", "rrshift", "subtract", "true_divide", "xlogy"]

# ==== issue 13: reductions ====
# (the reductions family's entries follow this line)
# (Sorting imports ReduceOps: it comes after it, with TensorAdvancedIndexing and TensorCompare)
from .ReduceOps import (all, amax, amin, any, argmax, argmin, count_nonzero, cummax, cummin, cumprod,  # noqa: A004
                        cumsum, logsumexp, nanmean, nansum, prod, std, std_mean, var, var_mean)
from .Sorting import argsort, kthvalue, median, mode, nanmedian, sort, topk

__all__ += ["all", "amax", "amin", "any", "argmax", "argmin", "count_nonzero", "cummax", "cummin", "cumprod",
            "cumsum", "logsumexp", "nanmean", "nansum", "prod", "std", "std_mean", "var", "var_mean",
            "argsort", "kthvalue", "median", "mode", "nanmedian", "sort", "topk"]

# ==== issue 13: shape ====
# (the shape family's entries follow this line)
# In the import order above, IndexingOps comes after TensorCompare (its `where` takes where(condition) too and
# replaces TensorCompare's here), then TensorShapeOps (which imports IndexingOps and ReduceOps).
from .TensorShapeOps import (atleast_1d, atleast_2d, atleast_3d, broadcast_tensors, broadcast_to,  # noqa: E402
                             column_stack, dstack, flatten, flip, fliplr, flipud, hstack, moveaxis, movedim,
                             repeat, repeat_backward, repeat_interleave, roll, rot90, row_stack, select, swapaxes,
                             swapdims, tile, unflatten, unfold, unfold_backward, vstack)
from .IndexingOps import (gather, index_add, index_add_, index_copy, index_copy_, index_fill, index_fill_,  # noqa: E402
                          index_select,
                          masked_fill, masked_fill_, masked_scatter, masked_scatter_, masked_scatter_backward,
                          masked_select, nonzero, scatter, scatter_, scatter_add, scatter_add_, scatter_reduce, take,
                          take_along_dim, where, _put)  # noqa: F811 - where(condition) joins where

__all__ += ["atleast_1d", "atleast_2d", "atleast_3d", "broadcast_tensors", "broadcast_to", "column_stack", "dstack",
            "flatten", "flip", "fliplr", "flipud", "hstack", "moveaxis", "movedim", "repeat", "repeat_backward",
            "repeat_interleave", "roll", "rot90", "row_stack", "select", "swapaxes", "swapdims", "tile", "unflatten",
            "unfold", "unfold_backward", "vstack", "gather", "index_add", "index_add_", "index_copy", "index_copy_",
            "index_fill", "index_fill_", "index_select", "masked_fill", "masked_fill_", "masked_scatter",
            "masked_scatter_",
            "masked_scatter_backward", "masked_select", "nonzero", "scatter", "scatter_", "scatter_add",
            "scatter_add_", "scatter_reduce", "take", "take_along_dim", "_put"]

# ==== issue 13: linalg ====
# (the linalg family's entries follow this line)
from .BatchLinearAlgebra import linalg_cond
from .BatchLinearAlgebraDecomp import (linalg_eigh, linalg_eigvalsh, linalg_lstsq, linalg_matrix_rank,
                                       linalg_pinv, linalg_qr, linalg_svd, linalg_svdvals, pinverse, svd)

__all__ += ["linalg_cond", "linalg_eigh", "linalg_eigvalsh", "linalg_lstsq", "linalg_matrix_rank", "linalg_pinv",
            "linalg_qr", "linalg_svd", "linalg_svdvals", "pinverse", "svd"]
from .LinearAlgebra import (addbmm, addmm, addmv, baddbmm, bmm, cross, dot, linalg_cross, mm, mv, trace,
                           vdot)
from .BatchLinearAlgebra import (LinAlgError, det, inverse, linalg_cholesky, linalg_det, linalg_inv,
                                 linalg_matrix_norm, linalg_norm, linalg_slogdet, linalg_solve, linalg_vector_norm,
                                 logdet, norm, slogdet)
from .Linear import einsum, ger, kron, linalg_vecdot, matrix_power, outer, tensordot

__all__ += ["addbmm", "addmm", "addmv", "baddbmm", "bmm", "cross", "dot", "linalg_cross", "mm", "mv", "trace", "vdot",
            "einsum", "ger", "kron", "linalg_vecdot", "matrix_power", "outer", "tensordot", "LinAlgError", "det",
            "inverse", "linalg_cholesky", "linalg_det", "linalg_inv", "linalg_matrix_norm", "linalg_norm",
            "linalg_slogdet", "linalg_solve", "linalg_vector_norm", "logdet", "norm", "slogdet"]

# ==== issue 13: utilities ====
# (the utilities family's entries follow this line)
# Module order (after TensorCompare): Unique, SummaryOps, Bucketization, Distributions, FillDiagonal
from .TensorCompare import (allclose, eq, eq_, equal, ge, ge_, greater, greater_, greater_equal, greater_equal_, gt,
                            gt_, isclose, isfinite, isin, isinf, isnan, isneginf, isposinf, isreal, le, le_, less,
                            less_, less_equal, less_equal_, lt, lt_, ne, ne_, not_equal, not_equal_)
from .Unique import unique, unique_consecutive
from .SummaryOps import bincount, histc
from .Bucketization import bucketize, searchsorted
from .Distributions import bernoulli, bernoulli_, exponential_, geometric_, normal_, random_, uniform_
from .FillDiagonal import fill_diagonal_

__all__ += [
    "allclose", "eq", "equal", "ge", "greater", "greater_equal", "gt", "isclose", "isfinite", "isin", "isinf", "isnan",
    "isneginf", "isposinf", "isreal", "le", "less", "less_equal", "lt", "ne", "not_equal", "unique",
    "unique_consecutive", "bincount", "histc", "bucketize", "searchsorted", "bernoulli", "bernoulli_", "exponential_",
    "geometric_", "normal_", "random_", "uniform_", "fill_diagonal_", "eq_", "ge_", "greater_", "greater_equal_",
    "gt_", "le_", "less_", "less_equal_", "lt_", "ne_", "not_equal_"]

# ==== issue 14: rng ====
# (the rng family's entries follow this line)

# ==== issue 14: serialization ====
# (the serialization family's entries follow this line)

# ==== issue 14: autograd ====
# (the autograd family's entries follow this line)
from .InplaceView import squeeze_  # noqa: E402
from .LinalgEx import linalg_cholesky_ex, linalg_inv_ex  # noqa: E402
from .ViewCopy import diagonal_copy  # noqa: E402
from .IndexPut import index_put, index_put_, put, put_  # noqa: E402

__all__ += ["squeeze_", "linalg_cholesky_ex", "linalg_inv_ex", "diagonal_copy", "index_put", "index_put_", "put",
            "put_"]

# ==== issue 12: args ====
# (the args family's entries follow this line)

# ==== issue 15: functional ====
# (the functional family's entries follow this line)
from .attention import (_scaled_dot_product_flash_attention_for_cpu,  # noqa: E402
                        _scaled_dot_product_flash_attention_for_cpu_backward)
__all__ += ["_scaled_dot_product_flash_attention_for_cpu", "_scaled_dot_product_flash_attention_for_cpu_backward"]
from .SoftMax import (log_softmax, softmax, _log_softmax, _log_softmax_backward_data, _safe_softmax,  # noqa: E402
                      _softmax, _softmax_backward_data)
__all__ += ["log_softmax", "softmax", "_log_softmax", "_log_softmax_backward_data", "_safe_softmax", "_softmax",
            "_softmax_backward_data"]
from .LinearNN import bilinear, linear  # noqa: E402
__all__ += ["bilinear", "linear"]
from .Dropout import (alpha_dropout, alpha_dropout_, dropout, dropout_, feature_alpha_dropout,  # noqa: E402
                      feature_alpha_dropout_, feature_dropout, feature_dropout_)
__all__ += ["alpha_dropout", "alpha_dropout_", "dropout", "dropout_", "feature_alpha_dropout", "feature_alpha_dropout_",
            "feature_dropout", "feature_dropout_"]
from .Embedding import embedding, embedding_dense_backward  # noqa: E402
__all__ += ["embedding", "embedding_dense_backward"]
from .Loss import (binary_cross_entropy, binary_cross_entropy_backward,  # noqa: E402
                   binary_cross_entropy_with_logits, huber_loss, huber_loss_backward, kl_div, l1_loss, mse_loss,
                   mse_loss_backward, smooth_l1_loss, smooth_l1_loss_backward, soft_margin_loss,
                   soft_margin_loss_backward)
__all__ += ["soft_margin_loss", "soft_margin_loss_backward"]
from .Distance import (cosine_embedding_loss, cosine_similarity, margin_ranking_loss, one_hot,  # noqa: E402
                       pairwise_distance, triplet_margin_loss, _norm_scalaropt_dim, hinge_embedding_loss,
                       poisson_nll_loss)
__all__ += ["hinge_embedding_loss", "poisson_nll_loss", "cosine_embedding_loss", "cosine_similarity",
            "margin_ranking_loss", "one_hot", "pairwise_distance", "triplet_margin_loss", "_norm_scalaropt_dim"]
from .LossNLL import (cross_entropy_loss, nll_loss, nll_loss2d, nll_loss2d_backward,  # noqa: E402
                      nll_loss2d_forward, nll_loss_backward, nll_loss_forward, nll_loss_nd)
__all__ += ["binary_cross_entropy", "binary_cross_entropy_backward", "binary_cross_entropy_with_logits",
            "huber_loss", "huber_loss_backward", "kl_div", "l1_loss", "mse_loss", "mse_loss_backward",
            "smooth_l1_loss", "smooth_l1_loss_backward", "cross_entropy_loss", "nll_loss", "nll_loss2d",
            "nll_loss2d_backward", "nll_loss2d_forward", "nll_loss_backward", "nll_loss_forward", "nll_loss_nd"]
from .ActivationNN import (  # noqa: E402
    celu, celu_, elu, elu_, elu_backward, gelu, gelu_backward, glu, glu_backward, hardshrink,
    hardshrink_backward, hardsigmoid, hardsigmoid_, hardsigmoid_backward, hardswish, hardswish_,
    hardswish_backward, hardtanh, hardtanh_, hardtanh_backward, leaky_relu, leaky_relu_,
    leaky_relu_backward, log_sigmoid, log_sigmoid_backward, log_sigmoid_forward, mish, mish_, relu6,
    relu6_, selu, selu_, silu, silu_, softplus, softplus_backward, softshrink, softshrink_backward,
    threshold, threshold_)
__all__ += [
    "celu", "celu_", "elu", "elu_", "elu_backward", "gelu", "gelu_backward", "glu", "glu_backward",
    "hardshrink", "hardshrink_backward", "hardsigmoid", "hardsigmoid_", "hardsigmoid_backward",
    "hardswish", "hardswish_", "hardswish_backward", "hardtanh", "hardtanh_", "hardtanh_backward",
    "leaky_relu", "leaky_relu_", "leaky_relu_backward", "log_sigmoid", "log_sigmoid_backward",
    "log_sigmoid_forward", "mish", "mish_", "relu6", "relu6_", "selu", "selu_", "silu", "silu_",
    "softplus", "softplus_backward", "softshrink", "softshrink_backward", "threshold", "threshold_"]

# ==== issue 15: conv ====
# (the conv family's entries follow this line)
from .Trilinear import _trilinear  # noqa: E402

__all__ += ["_trilinear"]
from .UpSample import upsample_bicubic2d, upsample_bicubic2d_backward  # noqa: E402

__all__ += ["upsample_bicubic2d", "upsample_bicubic2d_backward"]
from .Im2Col import col2im, im2col  # noqa: E402

__all__ += ["col2im", "im2col"]
from .EmbeddingBag import (_embedding_bag, _embedding_bag_backward,  # noqa: E402
                           _embedding_bag_per_sample_weights_backward, embedding_bag)

__all__ += ["_embedding_bag", "_embedding_bag_backward", "_embedding_bag_per_sample_weights_backward",
            "embedding_bag"]
from .Padding import constant_pad_nd, constant_pad_nd_backward  # noqa: E402
from .Padding import (reflection_pad1d, reflection_pad1d_backward, reflection_pad2d,  # noqa: E402
                      reflection_pad2d_backward, replication_pad1d, replication_pad1d_backward, replication_pad2d,
                      replication_pad2d_backward)

__all__ += ["reflection_pad1d", "reflection_pad1d_backward", "reflection_pad2d", "reflection_pad2d_backward",
            "replication_pad1d", "replication_pad1d_backward", "replication_pad2d", "replication_pad2d_backward"]
from .Convolution import (conv1d, conv2d, conv_transpose1d, conv_transpose2d, convolution,  # noqa: E402
                          convolution_backward)

__all__ += ["constant_pad_nd", "constant_pad_nd_backward", "conv1d", "conv2d", "conv_transpose1d",
            "conv_transpose2d", "convolution", "convolution_backward"]
from .Pooling import (avg_pool1d, avg_pool2d, avg_pool2d_backward, max_pool1d, max_pool1d_with_indices,  # noqa: E402
                      max_pool2d, max_pool2d_with_indices, max_pool2d_with_indices_backward)

__all__ += ["avg_pool1d", "avg_pool2d", "avg_pool2d_backward", "max_pool1d", "max_pool1d_with_indices", "max_pool2d",
            "max_pool2d_with_indices", "max_pool2d_with_indices_backward"]
from .Pooling import _adaptive_avg_pool2d, _adaptive_avg_pool2d_backward, adaptive_avg_pool2d  # noqa: E402

__all__ += ["_adaptive_avg_pool2d", "_adaptive_avg_pool2d_backward", "adaptive_avg_pool2d"]
from .UpSample import (upsample_bilinear2d, upsample_bilinear2d_backward, upsample_linear1d,  # noqa: E402
                       upsample_linear1d_backward, upsample_nearest1d, upsample_nearest1d_backward,
                       upsample_nearest2d, upsample_nearest2d_backward)

__all__ += ["upsample_bilinear2d", "upsample_bilinear2d_backward", "upsample_linear1d", "upsample_linear1d_backward",
            "upsample_nearest1d", "upsample_nearest1d_backward", "upsample_nearest2d", "upsample_nearest2d_backward"]
from .Normalization import (batch_norm, group_norm, layer_norm, native_batch_norm, native_batch_norm_backward,  # noqa: E402
                            native_group_norm, native_group_norm_backward, native_layer_norm,
                            native_layer_norm_backward)
from . import Normalization  # noqa: E402

__all__ += ["Normalization", "batch_norm", "group_norm", "layer_norm", "native_batch_norm",
            "native_batch_norm_backward", "native_group_norm", "native_group_norm_backward", "native_layer_norm",
            "native_layer_norm_backward"]

# ==== issue 15: modules ====
# (the modules family's entries follow this line)

# ==== issue 15: optim ====
# (the optim family's entries follow this line)

# ==== issue 15: seq ====
# (the seq family's entries follow this line)
from . import RNN  # noqa: E402
from .RNN import mkldnn_rnn_layer, mkldnn_rnn_layer_backward  # noqa: E402
from .TensorShape import unsafe_chunk, unsafe_split, unsafe_split_with_sizes  # noqa: E402

__all__ += ["RNN", "mkldnn_rnn_layer", "mkldnn_rnn_layer_backward", "unsafe_chunk", "unsafe_split",
            "unsafe_split_with_sizes"]
