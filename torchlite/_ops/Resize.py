"""The out= variants of the ops (upstream: aten/src/ATen/native/Resize.cpp's resize_output, and the
autograd check gen_variable_type.py emits for an out= overload). An op's out= overload computes
the functional result, checks that it casts to out's dtype, resizes out where its shape differs
(with torch's deprecation warning unless out was empty) and copies the result in."""
import warnings

import numpy as np

from .. import _C
from .Copy import copy_
from .ScalarType import _torch_type_name
from .TensorIterator import _TB
from . import mutation as _mutation
from .int_zero_division import partial_of, write_prefix

_RESIZED = ("An output with one or more elements was resized since it had shape {}, which does not match the "
            "required output shape {}. This behavior is deprecated, and in a future PyTorch release outputs will "
            "not be resized unless they have zero elements. You can explicitly reuse an out tensor t by resizing "
            "it, inplace, to zero elements with t.resize_(0).")


def _can_cast(src, dst):
    """c10::canCast: no floating point into an integral type, nothing but bool into bool."""
    if src.kind == "f" and dst.kind in "iub":
        return False
    return not (dst.kind == "b" and src.kind != "b")


def _tensors(args, kwargs):
    for a in (*args, *kwargs.values()):
        if isinstance(a, _TB):
            yield a
        elif isinstance(a, (list, tuple)):
            yield from (t for t in a if isinstance(t, _TB))


def out_variant(name, fn, out, args, kwargs):
    """`fn(*args, **kwargs, out=out)`: the result written into `out`, which is returned; an op with
    several results ((values, indices)) writes each into its tensor of the tuple `out`."""
    name = getattr(fn, "_runs", name)  # an alias (arcsin, special.erf, square) names the op it runs, as torch's
    outs = tuple(out) if isinstance(out, (tuple, list)) else (out,)
    if not all(isinstance(o, _TB) for o in outs):
        kind = "tuple of Tensors" if isinstance(out, (tuple, list)) else "Tensor"
        raise TypeError(f"{name}(): argument 'out' must be {kind}, not {type(out).__name__}")
    as_data = getattr(fn, "_out_as_data", False)
    if not as_data and _C.is_grad_enabled() and (any(o.requires_grad for o in outs)
                                                 or any(t.requires_grad for t in _tensors(args, kwargs))):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic differentiation, "
                           "but one of the arguments requires grad.")
    check = getattr(fn, "_out_check", None)  # an op that writes only its input's dtype (floor, sign): its
    if check is not None:                     # error comes first, as TensorIterator's build checks it
        check(next(_tensors(args, kwargs))._array.dtype, outs[0]._array.dtype)
    try:
        result = fn(*args, **kwargs)
    except RuntimeError as err:
        partial = partial_of(err)
        if partial is not None and out is outs[0]:
            _zero_division_prefix(out, partial)
        raise
    if as_data:
        # an op whose outputs are not differentiable (output_differentiability: [False] upstream: the
        # comparisons, the logical ops, isin): its VariableType kernel has no out= check and writes out
        # below autograd, as data (out keeps its grad_fn or stays a leaf; its version counts the write)
        previous = _C.is_grad_enabled()
        _C._set_grad_enabled(False)
        try:
            return _write(out, result)
        finally:
            _C._set_grad_enabled(previous)
    if isinstance(result, tuple):
        if len(outs) != len(result) or out is outs[0]:
            raise TypeError(f"{name}(): argument 'out' must be tuple of Tensors, not {type(out).__name__}")
        return type(result)([_write(o, r) for o, r in zip(outs, result, strict=True)])
    if out is not outs[0]:
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    return _write(out, result)


def _write(out, result):
    r, o = result._array, out._array
    if not _can_cast(r.dtype, o.dtype):
        raise RuntimeError(f"result type {_torch_type_name(r.dtype)} can't be cast to the desired output type "
                           f"{_torch_type_name(o.dtype)}")
    if o.shape != r.shape:
        if o.size:
            warnings.warn(_RESIZED.format(list(o.shape), list(r.shape)), UserWarning, stacklevel=4)
        if _mutation.hook is not None:
            _mutation.hook(out)
        out.data = result.to(out.dtype) if r.dtype != o.dtype else result
        out._bump_version()
        return out
    return copy_(out, result)


def _zero_division_prefix(out, partial):
    """An integer kernel met a zero divisor: what torch's loop wrote into out before it (Note [Integer
    division by zero writes a prefix]): out resized first where its shape differs (with the warning), then
    the elements before the zero where out's dtype is the computation's. Its version is not bumped."""
    operands = partial[1]
    dtype = np.result_type(*operands)
    shape = np.broadcast_shapes(*(np.shape(x) for x in operands))
    o = out._array
    if not _can_cast(dtype, o.dtype):
        raise RuntimeError(f"result type {_torch_type_name(dtype)} can't be cast to the desired output type "
                           f"{_torch_type_name(o.dtype)}") from None
    resized = o.shape != shape
    if resized:
        if o.size:
            warnings.warn(_RESIZED.format(list(o.shape), list(shape)), UserWarning, stacklevel=4)
        out.data = _C._wrap(np.zeros(shape, dtype=o.dtype))
        o = out._array
    if o.dtype != dtype:
        return
    if _mutation.hook is not None:
        _mutation.hook(out)
    write_prefix(partial, o, resized=resized)
