"""The formulas C++ calls for views, registered at import: a view's
regenerated AsStridedBackward0 (as_strided_backward, FunctionsManual.cpp) and
CopySlices (torch/csrc/autograd/functions/tensor.cpp), written in torchlite's
ops so that create_graph=True differentiates through them."""
import builtins

import numpy as np

from .. import _C, _backend
from .._C import _wrap
from .._generated import specs as _S
from .BinaryOps import div
from .Copy import copy_
from .ReduceOps import sum  # noqa: A004 - torch's name
from .TensorAdvancedIndexing import _index_add
from .TensorFactories import clone
from .TensorGeometry import (_as_strided_fields, _maybe_overlapping_memory, _min_storage_size, _storage_index,
                             _view_geometry)
from .TensorShape import as_strided, reshape, squeeze


def _as_strided_backward(g, input_geometry, sizes, strides, offset):
    """as_strided_backward (Note [as_strided Backward and layout-aware/agnostic
    autograd], seeds, FunctionsManual.cpp): the gradient laid into a zero
    storage through the output's geometry, read back through the input's.
    Where output elements share storage they add up; where input elements do,
    each storage element is divided by its count (0/0 gives nan, as torch's
    div_, in storage the input does not see)."""
    inp_sizes, inp_strides, inp_offset = input_geometry.sizes, input_geometry.strides, input_geometry.storage_offset
    if offset is None:  # as_strided(storage_offset=None): the input's own offset, as upstream reads it
        offset = inp_offset
    out_sizes, out_strides = [], []
    for i in range(len(sizes) - 1, -1, -1):
        if sizes[i] == 0:
            return _wrap(_backend.new(g, "zeros", inp_sizes, g._array.dtype), g)
        if sizes[i] == 1:
            g = squeeze(g, i)
        elif strides[i] == 0:
            g = sum(g, i)
        else:
            out_sizes.insert(0, sizes[i])
            out_strides.insert(0, strides[i])
    if 0 in inp_sizes:
        return _wrap(_backend.new(g, "zeros", inp_sizes, g._array.dtype), g)
    kept = [(n_, st) for n_, st in zip(inp_sizes, inp_strides, strict=True) if n_ != 1]
    inp_sizes_, inp_strides_ = [k[0] for k in kept], [k[1] for k in kept]
    shared = builtins.min(inp_offset, offset)
    inp_geometry = (inp_sizes_, inp_strides_, inp_offset - shared)
    out_geometry = (out_sizes, out_strides, offset - shared)
    size = builtins.max(_min_storage_size(*inp_geometry), _min_storage_size(*out_geometry))
    if _maybe_overlapping_memory(out_sizes, out_strides):
        storage = _index_add(reshape(g, (-1,)), size, _storage_index(size, out_geometry).reshape(-1))
    else:
        storage = _wrap(_backend.new(g, "zeros", size, g._array.dtype), g)
        copy_(as_strided(storage, out_sizes, out_strides, offset - shared), g)
    if _maybe_overlapping_memory(inp_sizes_, inp_strides_):
        count = _backend.new(g, "zeros", size, g._array.dtype)
        np.add.at(count, _storage_index(size, inp_geometry), 1)
        storage = div(storage, _wrap(count, g))
    return as_strided(storage, inp_sizes, inp_strides, inp_offset - shared)


def _copy_slices_backward(grad, extra, fn, needs):
    # extra: the ViewGeometry CopySlices keeps (TensorGeometry.py)
    """CopySlices' math (Note [View + Inplace update for base tensor]), as
    upstream writes it: the base's gradient copied into a tensor laid out as
    the base, the view's part of it taken with as_strided (at the view's
    offset from the base's), the wrapped in-place node run on a clone of that
    part, and its result copied back."""
    base, view = extra.base, extra.view
    extent = _min_storage_size(base.sizes, base.strides, 0)
    result = _wrap(_backend.as_strided(
        _backend.new(grad, "empty", builtins.max(extent, 1), grad._array.dtype), base.sizes,
        tuple(st * grad._array.itemsize for st in base.strides)), grad)
    copy_(result, grad)
    grad_slice = as_strided(result, view.sizes, view.strides, view.storage_offset - base.storage_offset)
    res = _C._call_inplace_fn(fn, clone(grad_slice), needs)
    out = [None] * len(needs)
    for i, r in enumerate(res):
        if i < len(needs) and needs[i] and r is not None:
            if i == 0:
                copy_(grad_slice, r)
                out[0] = result
            else:
                out[i] = r
    return tuple(out)


_C._set_view_formulas(_S.AsStridedBackward0, _as_strided_fields, _view_geometry, _copy_slices_backward)
