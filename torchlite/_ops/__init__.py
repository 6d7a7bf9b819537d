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
  Copy, Fill, UnaryOps, Activation, Pow, TensorShape
  TensorFactories, TensorConversions, LinearAlgebra
  BinaryOps, ReduceOps, TensorAdvancedIndexing, TensorCompare
  python_variable_indexing, view_formulas
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
from .TensorAdvancedIndexing import (getitem_raw, _gather, _index_add, _index_backward, _index_put_zeros,
                                     _index_select, _masked_fill, _masked_fill_zeros, _saved_index_key, _scatter_zeros)
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
    "_unsqueeze_multiple", "getitem_raw", "_gather", "_index_add", "_index_backward", "_index_put_zeros",
    "_index_select", "_masked_fill", "_masked_fill_zeros", "_saved_index_key", "_scatter_zeros", "delitem", "getitem",
    "setitem",
    "_as_strided_backward", "_copy_slices_backward", "where", "_compare"]

# ==== issue 13: dtypes ====
# (the dtypes family's entries follow this line)

# ==== issue 13: creation ====
# (the creation family's entries follow this line)

# ==== issue 13: unary ====
# (the unary family's entries follow this line)

# ==== issue 13: binary ====
# (the binary family's entries follow this line)

# ==== issue 13: reductions ====
# (the reductions family's entries follow this line)
# (Sorting imports ReduceOps: it comes after it, with TensorAdvancedIndexing and TensorCompare)
from .ReduceOps import (all, amax, amin, any, argmax, argmin, count_nonzero, cummax, cummin, cumprod,  # noqa: A004
                        cumsum, logsumexp, nanmean, nansum, norm, prod, std, std_mean, var, var_mean, _U64,
                        _vector_norm)
from .Sorting import argsort, kthvalue, median, mode, nanmedian, sort, topk

__all__ += ["all", "amax", "amin", "any", "argmax", "argmin", "count_nonzero", "cummax", "cummin", "cumprod",
            "cumsum", "logsumexp", "nanmean", "nansum", "norm", "prod", "std", "std_mean", "var", "var_mean", "_U64",
            "_vector_norm",
            "argsort", "kthvalue", "median", "mode", "nanmedian", "sort", "topk"]

# ==== issue 13: shape ====
# (the shape family's entries follow this line)

# ==== issue 13: linalg ====
# (the linalg family's entries follow this line)

# ==== issue 13: utilities ====
# (the utilities family's entries follow this line)
