"""View and shape ops (ATen/native/TensorShape.cpp): view, reshape,
transpose, permute, (un)squeeze, expand, select, slice, as_strided, narrow,
diagonal, split, chunk, unbind; and cat and stack."""
import builtins
import functools

import numpy as np

from .. import _C, _backend
from .._dtypes import dtype as _dtype
from .._C import _record, _record_multi_view, _record_view, _wrap
from .._generated import specs as _S
from .ExpandUtils import _expand_error, _expanded_strides
from .ScalarType import _expand_type_name, _torch_type_name
from .TensorGeometry import _flat_index, _geometry, _placed, _selected, _sliced
from .TensorIterator import _TB, _promote_types
from .python_arg_parser import _REQUIRED, _check_given, _int_arg, _norm_dims, _shape_arg, _tp_name, _wrap_dim


def _unsafe_view(self, shape):
    """at::_unsafe_view: a reshape recorded as UnsafeViewBackward0 whose result is not a view."""
    a = self._array
    return _record(_S.UnsafeViewBackward0, (self,), _wrap(a.reshape(shape), self), self_sym_sizes=a.shape)


def _infer_size(shape, numel):
    shape = list(shape)
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            known *= s
    if -1 in shape:
        if known == 0 and numel == 0:
            raise RuntimeError(f"cannot reshape tensor of 0 elements into shape {list(shape)} because the "
                               "unspecified dimension size -1 can be any value and is ambiguous")
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape[shape.index(-1)] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return tuple(shape)


def _compute_stride(oldshape, oldstride, newshape):
    """at::detail::computeStride: the strides (in elements) that view a tensor of sizes
    `oldshape` and strides `oldstride` as `newshape` without copying, or None. Each run
    of dimensions contiguous with each other (a chunk) must be split or merged by whole
    dimensions of the new shape; a size-1 dimension takes the stride where it falls."""
    if not oldshape:
        return (1,) * len(newshape)
    newstride = [0] * len(newshape)
    if 0 in oldshape:
        # any strides serve an empty tensor: its own for the same sizes, else contiguous ones
        if tuple(oldshape) == tuple(newshape):
            return tuple(oldstride)
        for d in range(len(newshape) - 1, -1, -1):
            newstride[d] = 1 if d == len(newshape) - 1 else builtins.max(newshape[d + 1], 1) * newstride[d + 1]
        return tuple(newstride)
    view_d = len(newshape) - 1
    chunk_base_stride = oldstride[-1]
    tensor_numel = view_numel = 1
    for tensor_d in range(len(oldshape) - 1, -1, -1):
        tensor_numel *= oldshape[tensor_d]
        if tensor_d == 0 or (oldshape[tensor_d - 1] != 1 and
                             oldstride[tensor_d - 1] != tensor_numel * chunk_base_stride):
            while view_d >= 0 and (view_numel < tensor_numel or newshape[view_d] == 1):
                newstride[view_d] = view_numel * chunk_base_stride
                view_numel *= newshape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = oldstride[tensor_d - 1]
                tensor_numel = view_numel = 1
    return tuple(newstride) if view_d == -1 else None


def _viewed(a, shape):
    """a viewed as `shape` with computeStride's strides, or None where no view can."""
    strides = _compute_stride(a.shape, tuple(st // a.itemsize for st in a.strides), shape)
    if strides is None:
        return None
    return _backend.as_strided(a, shape, tuple(st * a.itemsize for st in strides))


def view(self, *shape):
    a = self._array
    if not shape:
        raise TypeError("view() received an invalid combination of arguments - got (), but expected one of:\n"
                        " * (torch.dtype dtype)\n * (tuple of ints size)\n")
    if len(shape) == 1 and isinstance(shape[0], _dtype):
        return _view_dtype(self, shape[0])
    shape = _infer_size(_shape_arg(shape), a.size)
    v = _viewed(a, shape)
    if v is None:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one dimension "
            "spans across two contiguous subspaces). Use .reshape(...) instead.")
    return _record_view(_S.ViewBackward0, self, v, self_sym_sizes=a.shape)


def _view_dtype(self, dtype):
    """view.dtype (ATen/native/TensorConversions.cpp view_dtype): the same memory read as `dtype`, a
    view that is not differentiable (output_differentiability: [False]); with another element size
    the last dimension scales, under upstream's checks."""
    a = self._array
    to = dtype._np
    old, new = a.dtype.itemsize, to.itemsize
    what = f"to view {_torch_type_name(a.dtype)} as {_torch_type_name(to)} (different element sizes)"
    if old != new:
        strides = [st // old for st in a.strides]
        if a.ndim == 0:
            raise RuntimeError(f"self.dim() cannot be 0 {what}")
        if strides[-1] != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {strides[-1]}")
        if old < new:
            ratio = new // old
            if a.shape[-1] % ratio:
                raise RuntimeError(f"self.size(-1) must be divisible by {ratio} {what}, but got {a.shape[-1]}")
            if self.storage_offset() % ratio:
                raise RuntimeError(f"self.storage_offset() must be divisible by {ratio} {what}, but got "
                                   f"{self.storage_offset()}")
            for i, st in enumerate(strides[:-1]):
                if st % ratio:
                    raise RuntimeError(f"self.stride({i}) must be divisible by {ratio} {what}, but got {st}")
    return _wrap(a.view(to), self)  # (not a differentiable view: no _base, as torch's)


def reshape(self, *shape):
    a = self._array
    if not shape:
        raise TypeError('reshape() missing 1 required positional arguments: "shape"')
    shape = _infer_size(_shape_arg(shape), a.size)
    v = _viewed(a, shape)
    if v is None:
        # Not expressible as a view: torch's reshape copies (clone) and views the copy (_unsafe_view).
        return _unsafe_view(_record(_S.CloneBackward0, (self,), _wrap(_backend.ascontiguousarray(a), self)), shape)
    # torch's reshape is a view of a contiguous tensor, else _reshape_alias with the strides it computed
    return _record_view(_S.ViewBackward0 if a.flags.c_contiguous else _S.ReshapeAliasBackward0, self, v,
                        self_sym_sizes=a.shape)


def transpose(self, dim0=_REQUIRED, dim1=_REQUIRED):
    _check_given("transpose", dim0=dim0, dim1=dim1)
    a = self._array
    n = a.ndim
    dim0, dim1 = _int_arg("transpose", "dim0", 1, dim0), _int_arg("transpose", "dim1", 2, dim1)
    d0, d1 = _wrap_dim(dim0, n), _wrap_dim(dim1, n)
    return _record_view(_S.TransposeBackward0, self, np.swapaxes(a, d0, d1) if n else a.view(), dim0=dim0, dim1=dim1)


def t(self):
    a = self._array
    if a.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {a.ndim}D")
    return _record_view(_S.TBackward0, self, a.T)


def permute(self, *dims):
    a = self._array
    if not dims:
        raise TypeError('permute() missing 1 required positional arguments: "dims"')
    dims = _shape_arg(dims)
    if len(dims) != a.ndim:
        # torch's words for dense tensors too
        raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does not match "
                           f"the length of the desired ordering of dimensions i.e. input.dim() = {a.ndim} "
                           f"is not equal to len(dims) = {len(dims)}")
    dims = tuple(_wrap_dim(d, a.ndim) for d in dims)
    if len(set(dims)) != len(dims):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return _record_view(_S.PermuteBackward0, self, np.transpose(a, dims), dims=dims)


def unsqueeze(self, dim=_REQUIRED):
    _check_given("unsqueeze", dim=dim)
    a = self._array
    dim = _int_arg("unsqueeze", "dim", 1, dim)
    n = a.ndim + 1
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    d = dim % n
    # at::unsqueeze's stride for the new dimension: 1 at the end, else size * stride of the dimension it precedes
    st = a.itemsize if d == a.ndim else a.shape[d] * a.strides[d]
    v = _backend.as_strided(a, a.shape[:d] + (1,) + a.shape[d:], a.strides[:d] + (st,) + a.strides[d:])
    return _record_view(_S.UnsqueezeBackward0, self, v, dim=dim)


def squeeze(self, dim=None):
    a = self._array
    if dim is None:
        return _record_view(_S.SqueezeBackward0, self, np.squeeze(a), self_sym_sizes=a.shape)
    asked = _norm_dims(dim, a.ndim)
    dims = tuple(d for d in asked if a.ndim and a.shape[d] == 1)
    squeezed = np.squeeze(a, dims) if dims else a.view()
    if isinstance(dim, int):
        return _record_view(_S.SqueezeBackward1, self, squeezed, self_sym_sizes=a.shape, dim=dim)
    return _record_view(_S.SqueezeBackward2, self, squeezed, self_sym_sizes=a.shape, dim=tuple(dim))


def expand(self, *sizes):
    a = self._array
    if not sizes:
        raise TypeError('expand() missing 1 required positional arguments: "size"')
    sizes = _shape_arg(sizes)
    if a.ndim:
        err = _expand_error(a.shape, sizes, _expand_type_name(a.dtype))
        if err is not None:
            raise err
    lead = len(sizes) - a.ndim
    target = tuple(a.shape[i - lead] if s == -1 and i >= lead else s for i, s in enumerate(sizes))
    if builtins.any(s < 0 for s in target):
        # at::inferExpandGeometry takes a 0-d tensor's sizes as given; the numel of negative ones overflows
        raise RuntimeError("numel: integer multiplication overflow")
    if target == a.shape:
        return _record_view(_S.ExpandBackward0, self, a.view(), self_sym_sizes=a.shape)
    # a writeable view (np.broadcast_to's is read-only): writing into real
    # broadcast dimensions is refused by the in-place ops' overlap check
    v = _backend.as_strided(a, target, _expanded_strides(a, target))
    return _record_view(_S.ExpandBackward0, self, v, self_sym_sizes=a.shape)


def _select(self, dim, index, real_dim, saved_dim=None):
    """The view at `index` along (non-negative) `dim`; its node saves `saved_dim` where given (select
    saves its dim as called, indexing the dim it computed)."""
    a = self._array
    size = a.shape[dim]
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of bounds for dimension {real_dim} with size {size}")
    return _record_view(_S.SelectBackward0, self, _selected(a, dim, index), self_sym_sizes=a.shape,
                        dim=dim if saved_dim is None else saved_dim, index=index)


_INT64_MAX = 2 ** 63 - 1


def _slice_fields(dim, k):
    """SliceBackward0's fields for the Python slice `k` along `dim`, as python indexing passes
    them to at::slice: an omitted start is 0, an omitted end INT64_MAX, an omitted step 1."""
    return {"dim": dim, "start": 0 if k.start is None else k.start, "end": _INT64_MAX if k.stop is None else k.stop,
            "step": 1 if k.step is None else k.step}


def _slice(self, dim, k, saved_dim=None):
    a = self._array
    return _record_view(_S.SliceBackward0, self, _sliced(a, dim, k), self_sym_sizes=a.shape,
                        **_slice_fields(dim if saved_dim is None else saved_dim, k))


def as_strided(self, size, stride, storage_offset=None):
    """A view of self's storage (all of it: torch's, see View geometry) with
    these sizes, strides and offset, checked as torch's setStrided."""
    size, stride = tuple(size), tuple(stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(st < 0 for st in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: {list(stride)}")
    if any(n < 0 for n in size):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and strides={list(stride)}")
    own = self.storage_offset()
    offset = own if storage_offset is None else storage_offset
    a = self._array
    itemsize = a.itemsize
    need = 0 if 0 in size else (1 + builtins.sum((n - 1) * st for n, st in zip(size, stride, strict=True))) * itemsize
    if need and need + offset * itemsize > self._storage_nbytes():
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, and itemsize "
            f"{itemsize} requiring a storage size of {need + offset * itemsize} are out of bounds for storage of "
            f"size {self._storage_nbytes()}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    arr = _placed(a, (offset - own) * itemsize, size, tuple(st * itemsize for st in stride))
    # the node keeps storage_offset as given (None: the input's own), as torch's shows it
    return _record_view(_S.AsStridedBackward0, self, arr, self_geometry=_geometry(self), size=size,
                        stride=stride, storage_offset=storage_offset)


def narrow(self, dim, start, length):
    a = self._array
    if a.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = _norm_dims(dim, a.ndim)[0]
    size = a.shape[d]
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if start < 0:
        start += size  # start == size stays: an empty narrow at the end keeps that offset
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return _slice(self, d, slice(start, start + length), saved_dim=dim)


def diagonal_backward(g, shape, idx, offset, d1, d2):
    """at::diagonal_backward: zeros of the input's shape with g on the diagonal (node
    DiagonalBackwardBackward0, whose own backward takes the diagonal again)."""
    z = _backend.new(g, "zeros", int(np.prod(shape)), g._array.dtype)
    z[idx.reshape(-1)] = g._array.reshape(-1)
    out = _wrap(z.reshape(shape), g)
    return _record(_S.DiagonalBackwardBackward0, (g,), out, offset=offset, dim1=d1, dim2=d2)


def diagonal(self, offset=0, dim1=0, dim2=1):
    a = self._array
    d1, d2 = _norm_dims(dim1, a.ndim)[0], _norm_dims(dim2, a.ndim)[0]
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = builtins.max(0, builtins.min(a.shape[d1] + builtins.min(offset, 0), a.shape[d2] - builtins.max(offset, 0)))
    rest = [i for i in range(a.ndim) if i not in (d1, d2)]
    st = a.strides
    begin = 0 if n == 0 else (offset * st[d2] if offset >= 0 else -offset * st[d1])
    arr = _placed(a, begin, tuple(a.shape[i] for i in rest) + (n,), tuple(st[i] for i in rest) + (st[d1] + st[d2],))
    return _record_view(_S.DiagonalBackward0, self, arr, self_sym_sizes=a.shape, flat_index=_flat_index(arr, a),
                        offset=offset, dim1=dim1, dim2=dim2)


def _split_views(self, spec, dim, sizes, raw_dim, **fields):
    """The pieces of `sizes` along `dim`, one node; it saves the dim as given (torch's raw `dim`)
    and `fields` (split_size, or split_sizes)."""
    a = self._array
    outs, begin = [], 0
    for size in sizes:
        outs.append(_wrap(_sliced(a, dim, slice(begin, begin + size)), self, True))
        begin += size
    return _record_multi_view(spec, self, tuple(outs), dim=raw_dim, self_sym_sizes=a.shape, self_dtype=a.dtype,
                              **fields)


def _split_sizes(self, split_size_or_sections, dim):
    """(the wrapped dim, the pieces' sizes) of split / split_with_sizes, with their errors."""
    a = self._array
    if a.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = _norm_dims(dim, a.ndim)[0]
    size = a.shape[d]
    if isinstance(split_size_or_sections, int):
        step = split_size_or_sections
        if step < 0:
            raise RuntimeError(f"split expects split_size be non-negative, but got split_size={step}")
        if step == 0 and size != 0:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}")
        # an empty dimension splits into one empty piece (at::split: at least one split)
        return d, [builtins.min(step, size - i) for i in range(0, size, step)] if size else [0]
    sizes = [int(x) for x in split_size_or_sections]
    if builtins.sum(sizes) != size or any(x < 0 for x in sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size at "
                           f"dimension {dim}), but got split_sizes={sizes}")
    return d, sizes


def split(self, split_size_or_sections, dim=0):
    if isinstance(split_size_or_sections, np.integer) or isinstance(dim, np.integer) or (
            isinstance(split_size_or_sections, (list, tuple))
            and any(isinstance(s, np.integer) for s in split_size_or_sections)):
        split_size_or_sections, dim = _split_numpy_ints(split_size_or_sections, dim)
    d, sizes = _split_sizes(self, split_size_or_sections, dim)
    if isinstance(split_size_or_sections, int):
        return _split_views(self, _S.SplitBackward0, d, sizes, dim, split_size=split_size_or_sections)
    return _split_views(self, _S.SplitWithSizesBackward0, d, sizes, dim, split_sizes=tuple(sizes))


def _split_numpy_ints(split_size_or_sections, dim):
    """split's arguments with numpy integers: torch/_tensor.py's Tensor.split calls split for a Python int
    size and split_with_sizes for anything else, whose parser refuses a numpy integer as the sizes and
    reads numpy integers in a list and as the dim through __index__."""
    if isinstance(split_size_or_sections, np.integer):
        err = TypeError("split_with_sizes(): argument 'split_sizes' (position 2) must be tuple of ints, not "
                        f"{_tp_name(split_size_or_sections)}")
        err._parser_error = True  # (no rebinding of torch.split's arguments: torch's Python split refuses it)
        raise err
    if isinstance(split_size_or_sections, (list, tuple)):
        split_size_or_sections = [int(s) if isinstance(s, np.integer) else s for s in split_size_or_sections]
    return split_size_or_sections, int(dim) if isinstance(dim, np.integer) else dim


def _chunk_split(self, chunks, dim):
    """chunk's split: a split size, or zero sizes for an empty dimension."""
    a = self._array
    if a.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
    size = a.shape[_norm_dims(dim, a.ndim)[0]]
    return (size + chunks - 1) // chunks if size else [0] * chunks


def chunk(self, chunks, dim=0):
    if isinstance(chunks, np.integer):  # torch's parser reads an int through __index__
        chunks = int(chunks)
    return split(self, _chunk_split(self, chunks, dim), dim)


def _unsafe_pieces(self, split_size_or_sections, dim):
    """split's pieces as unsafe_split makes them: over self's memory, each with a version counter
    of its own and no view relation (TensorShape.cpp's unsafe_split), the outputs of one node."""
    if _C._is_inference_mode_enabled() and not self.is_inference():
        # inference mode skips the autograd kernel: split's views, normal tensors, each then given a
        # version counter of its own
        pieces = split(self, split_size_or_sections, dim)
        for p in pieces:
            _C._fresh_version_counter(p)
        return pieces
    a = self._array
    d, sizes = _split_sizes(self, split_size_or_sections, dim)
    outs, begin = [], 0
    for size in sizes:
        # over self's storage (so overlap checks see it), counting its own versions (an inference
        # tensor's pieces are inference tensors, with none)
        piece = _wrap(_sliced(a, d, slice(begin, begin + size)), self, True)
        if not piece.is_inference():
            _C._fresh_version_counter(piece)
        outs.append(piece)
        begin += size
    if isinstance(split_size_or_sections, int):
        return _record(_S.UnsafeSplitBackward0, (self,), tuple(outs), dim=dim, self_sym_sizes=a.shape,
                       self_dtype=a.dtype, split_size=split_size_or_sections)
    return _record(_S.UnsafeSplitWithSizesBackward0, (self,), tuple(outs), dim=dim, self_sym_sizes=a.shape,
                   self_dtype=a.dtype, split_sizes=tuple(sizes))


def unsafe_split(self, split_size, dim=0):
    return _unsafe_pieces(self, int(split_size), dim)


def unsafe_split_with_sizes(self, split_sizes, dim=0):
    return _unsafe_pieces(self, list(split_sizes), dim)


def unsafe_chunk(self, chunks, dim=0):
    return _unsafe_pieces(self, _chunk_split(self, chunks, dim), dim)


def unbind(self, dim=0):
    a = self._array
    # torch wraps the dim first: a 0-d tensor's is 0 or out of range
    d = _wrap_dim(_wrap_dim(dim, a.ndim), a.ndim, wrap_scalar=False)
    outs = tuple(_wrap(_selected(a, d, i), self, True) for i in range(a.shape[d]))
    return _record_multi_view(_S.UnbindBackward0, self, outs, dim=dim, self_sym_sizes=a.shape, self_dtype=a.dtype)


# Combining tensors --------------------------------------------------------------

def _cat_dtype(arrays):
    """The result dtype of cat and stack: promote_types over the inputs (Note [Type promotion])."""
    return functools.reduce(_promote_types, [a.dtype for a in arrays])


def _cat_error(arrays, valid, dim):
    """at::cat's shape error, each tensor not skipped checked against the first one, or None."""
    ref = arrays[valid[0]].shape
    for i in valid[1:]:
        a = arrays[i]
        if a.ndim != len(ref):
            return RuntimeError(f"Tensors must have same number of dimensions: got {len(ref)} and {a.ndim}")
        for d, (n, m) in enumerate(zip(ref, a.shape, strict=True)):
            if d != dim and n != m:
                return RuntimeError(f"Sizes of tensors must match except in dimension {dim}. Expected size {n} "
                                    f"but got size {m} for tensor number {i} in the list.")
    return None


def stack(tensors, dim=0):
    tensors = tuple(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    arrays = [t._array for t in tensors]
    n = arrays[0].ndim + 1
    d = _norm_dims(dim, n)[0]
    dtype = _cat_dtype(arrays)
    try:
        r = np.stack(arrays, axis=d, dtype=dtype)
    except ValueError:
        i = next(i for i, a in enumerate(arrays) if a.shape != arrays[0].shape)
        raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(arrays[0].shape)} "
                           f"at entry 0 and {list(arrays[i].shape)} at entry {i}") from None
    # numpy keeps its inputs' layout; torch's result is contiguous
    out = _wrap(_backend.ascontiguousarray(r), tensors[0])
    return _record(_S.StackBackward0, tensors, out, dim=dim, tensors_dtypes=[a.dtype for a in arrays])


def _cat_skipped(a):
    """at::native::cat_should_skip_tensor: a 1-D empty tensor takes no part in cat (legacy
    behaviour, from when it was the only empty shape): not in the shape checks, nor in the
    wrapping of dim; it still counts in the result dtype."""
    return a.ndim == 1 and a.size == 0


def cat(tensors, dim=0):
    if isinstance(tensors, _TB):
        raise TypeError("cat(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor")
    tensors = tuple(tensors)
    for i, t in enumerate(tensors):
        if not isinstance(t, _TB):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {_tp_name(t)}")
    if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool):
        raise TypeError(f"cat(): argument 'dim' (position 2) must be int, not {_tp_name(dim)}")
    dim = int(dim)
    arrays = [t._array for t in tensors]
    for i, a in enumerate(arrays):
        if not a.ndim:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    valid = [i for i, a in enumerate(arrays) if not _cat_skipped(a)]
    # legacy_cat_wrap_dim: against the first tensor not skipped, else dim as given
    d = _norm_dims(dim, arrays[valid[0]].ndim)[0] if valid else dim
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    dtype = _cat_dtype(arrays)
    if valid:
        err = _cat_error(arrays, valid, d)
        if err is not None:
            raise err
        r = np.concatenate([arrays[i] for i in valid], axis=d, dtype=dtype)
    else:
        r = _backend.new(tensors[0], "zeros", 0, dtype)
    out = _wrap(_backend.ascontiguousarray(r), tensors[0])
    sizes = tuple(None if _cat_skipped(a) else a.shape[d] for a in arrays)
    return _record(_S.CatBackward0, tensors, out, dim=dim, tensors_sizes=sizes,
                   tensors_dtypes=[a.dtype for a in arrays])
