"""Issue 13's shape ops (ATen/native/TensorShape.cpp, TensorTransformations.cpp,
Repeat.cpp): the composite ones written over torchlite's views as upstream
composes them (flatten, unflatten, movedim, swapaxes, broadcast_to, atleast_*d,
hstack/vstack/dstack/column_stack, tile, repeat_interleave), so their nodes are
torch's, and the ones with a node of their own (select, unfold, flip, roll,
rot90, repeat)."""
import builtins

import numpy as np

from .. import _backend
from .._C import _record, _record_view, _wrap
from .._generated import specs as _S
from .TensorGeometry import _placed
from .TensorIterator import _TB, _empty_like
from .python_arg_parser import _norm_dims, _shape_arg, _wrap_dim
from .ScalarType import _torch_type_name
from .TensorShape import _select, cat, expand, permute, reshape, transpose, unsqueeze, view
from .TensorFactories import clone
from .TensorProperties import contiguous
from .ReduceOps import sum as _sum
from .IndexingOps import index_select


def _dim(dim, ndim):
    return _wrap_dim(dim, ndim)


# Views ---------------------------------------------------------------------------------------------

def flatten(self, start_dim=0, end_dim=-1):
    """at::flatten (composite): a 0-d tensor reshaped to [1]; start == end gives self itself;
    else the dimensions start..end reshaped into one (a view where the strides allow)."""
    a = self._array
    s, e = _dim(start_dim, a.ndim), _dim(end_dim, a.ndim)
    if a.ndim == 0:
        return reshape(self, (1,))
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return self
    n = int(np.prod(a.shape[s:e + 1]))
    return reshape(self, a.shape[:s] + (n,) + a.shape[e + 1:])


def unflatten(self, dim, sizes):
    """at::unflatten: dimension `dim` viewed as `sizes` (one -1 inferred)."""
    a = self._array
    if a.ndim == 0:
        # upstream wraps the dim inside a try, and rethrows with this prefix
        raise RuntimeError(f"unflatten got an unexpected error:\nDimension specified as {dim} but tensor has no "
                           "dimensions")
    d = _dim(dim, a.ndim)
    sizes = tuple(sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    n = a.shape[d] if a.ndim else 1
    if sizes.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = int(np.prod([s for s in sizes if s != -1]))
    if -1 in sizes:
        if known == 0 or n % known:
            raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim "
                               f"{d} ({n}) in the input tensor")
        sizes = tuple(n // known if s == -1 else s for s in sizes)
    elif known != n:
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {d} "
                           f"({n}) in the input tensor")
    return view(self, a.shape[:d] + sizes + a.shape[d + 1:])


def _dims_arg(x):
    return (x,) if isinstance(x, int) else tuple(x)


def movedim(self, source, destination):
    """at::movedim: a permute taking the source dims to the destination positions, the
    others keeping their order."""
    n = self._array.ndim
    src, dst = _dims_arg(source), _dims_arg(destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({list(src)} dims) should contain "
                           f"the same number of dims as destination ({list(dst)} dims)")
    src = [_dim(d, n) for d in src]
    dst = [_dim(d, n) for d in dst]
    if len(set(src)) != len(src):
        raise RuntimeError(f"movedim: repeated dim in `source` ({list(_dims_arg(source))})")
    if len(set(dst)) != len(dst):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({list(_dims_arg(destination))})")
    if n == 0:
        # a 0-d tensor's dims wrap as a 1-d one's; upstream returns an alias of it
        return _record_view(_S.AliasBackward0, self, self._array.view())
    order = [-1] * n
    for s, d in zip(src, dst, strict=True):
        order[d] = s
    rest = iter(i for i in range(n) if i not in src)
    order = [next(rest) if o == -1 else o for o in order]
    return permute(self, tuple(order))


moveaxis = movedim


def swapaxes(self, axis0, axis1):
    return transpose(self, axis0, axis1)


def swapdims(self, dim0, dim1):
    return transpose(self, dim0, dim1)


def select(self, dim, index):
    """select.int: the view at `index` along `dim` (SelectBackward0)."""
    a = self._array
    if a.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _dim(dim, a.ndim)
    size = a.shape[d]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(a.shape)} at dimension {d}")
    return _select(self, d, index, d, saved_dim=dim)  # (the node saves the dim as given)


def broadcast_to(self, size):
    size = (size,) if isinstance(size, int) else tuple(size)
    for i, n in enumerate(size):
        if not isinstance(n, int):
            raise TypeError(f"broadcast_to(): argument 'size' (position 2) must be tuple of ints, but found element "
                            f"of type {type(n).__name__} at pos {i}")
    return expand(self, size)


def broadcast_tensors(*tensors):
    """at::broadcast_tensors: each tensor expanded to the common shape (itself where its shape
    is that shape already: expand_outplace borrows it)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    shape = ()
    for t in tensors:
        a = t._array
        try:
            shape = np.broadcast_shapes(shape, a.shape)
        except ValueError:
            dim = next(i for i in range(1, builtins.min(len(shape), a.ndim) + 1)
                       if shape[-i] != a.shape[-i] and 1 not in (shape[-i], a.shape[-i]))
            raise RuntimeError(f"The size of tensor a ({shape[-dim]}) must match the size of tensor b "
                               f"({a.shape[-dim]}) at non-singleton dimension {builtins.max(len(shape), a.ndim) - dim}"
                               ) from None
    return tuple(t if t._array.shape == shape else expand(t, shape) for t in tensors)


def _tensors_arg(fn, tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(tensors[0]), True
    return tuple(tensors), False


def _atleast(fn, single, tensors):
    ts, listed = _tensors_arg(fn, tensors)
    if len(ts) == 1 and not listed:
        return single(ts[0])
    return tuple(single(t) for t in ts)


def _atleast_1d(t):
    return reshape(t, (1,)) if t._array.ndim == 0 else t


def _atleast_2d(t):
    n = t._array.ndim
    return reshape(t, (1, 1)) if n == 0 else unsqueeze(t, 0) if n == 1 else t


def _atleast_3d(t):
    n = t._array.ndim
    if n == 0:
        return reshape(t, (1, 1, 1))
    if n == 1:
        return unsqueeze(unsqueeze(t, 0), -1)
    return unsqueeze(t, -1) if n == 2 else t


def atleast_1d(*tensors):
    return _atleast("atleast_1d", _atleast_1d, tensors)


def atleast_2d(*tensors):
    return _atleast("atleast_2d", _atleast_2d, tensors)


def atleast_3d(*tensors):
    return _atleast("atleast_3d", _atleast_3d, tensors)


def _stack_list(fn, tensors):
    if isinstance(tensors, _TB):
        raise TypeError(f"{fn}(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor")
    tensors = tuple(tensors)
    if not tensors:
        raise RuntimeError(f"{fn} expects a non-empty TensorList")
    return tensors


def hstack(tensors):
    ts = [_atleast_1d(t) for t in _stack_list("hstack", tensors)]
    return cat(ts, 0 if ts[0]._array.ndim == 1 else 1)


def vstack(tensors):
    return cat([_atleast_2d(t) for t in _stack_list("vstack", tensors)], 0)


row_stack = vstack


def dstack(tensors):
    return cat([_atleast_3d(t) for t in _stack_list("dstack", tensors)], 2)


def column_stack(tensors):
    ts = _stack_list("column_stack", tensors)
    return cat([reshape(t, (t._array.size, 1)) if t._array.ndim <= 1 else t for t in ts], 1)


def unfold(self, dimension, size, step):
    """Tensor.unfold: the windows of `size` elements, `step` apart, along `dimension`, as a view
    with a new last dimension (UnfoldBackward0)."""
    a = self._array
    d = _dim(dimension, a.ndim)
    n = a.shape[d] if a.ndim else 1
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    count = (n - size) // step + 1
    if a.ndim == 0:
        shape, strides = (size,), (a.itemsize,)
    else:
        st = a.strides
        shape = a.shape[:d] + (count,) + a.shape[d + 1:] + (size,)
        strides = st[:d] + (st[d] * step,) + st[d + 1:] + (st[d],)
    v = _placed(a, 0, shape, strides)
    return _record_view(_S.UnfoldBackward0, self, v, self_sym_sizes=a.shape, dimension=dimension, size=size,
                        step=step)


def unfold_backward(grad, input_sizes, dim, size, step):
    """at::unfold_backward: each window's gradient added back at the elements it covers
    (node UnfoldBackwardBackward0, whose backward unfolds again)."""
    g = grad._array
    z = _backend.new(g, "zeros", tuple(input_sizes), g.dtype)
    if not input_sizes:
        z[()] = g.sum()
    elif g.size:
        dim %= len(input_sizes)  # the dimension as given (torch saves it so), maybe negative
        count = g.shape[dim]
        positions = np.arange(count)[:, None] * step + np.arange(size)[None, :]
        # (count, size, the other dimensions) against the input's dim moved to the front
        np.add.at(np.moveaxis(z, dim, 0), positions, np.moveaxis(np.moveaxis(g, dim, 0), -1, 1))
    out = _wrap(z, grad)
    return _record(_S.UnfoldBackwardBackward0, (grad,), out, dim=dim, size=size, step=step)


# Copies with a node of their own --------------------------------------------------------------------

def flip(self, *dims, **kwargs):
    a = self._array
    if "dims" in kwargs:  # flip(x, dims=...)
        dims = (kwargs.pop("dims"),)
    if kwargs:
        raise TypeError(f"flip() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if not dims:
        raise TypeError('flip() missing 1 required positional arguments: "dims"')
    dims = _shape_arg(dims)
    ds = _norm_dims(dims, a.ndim) if dims else ()
    out = _wrap(_flipped(a, ds, self), self)
    return _record(_S.FlipBackward0, (self,), out, dims=tuple(dims))


def _flipped(a, ds, like):
    """a flipped along ds into an empty_like(a) (preserve format: a dense input's strides)."""
    out = _empty_like(a, a.dtype, like)
    np.copyto(out, np.flip(a, ds) if a.ndim and ds else a)
    return out


def fliplr(self):
    if self._array.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(self, (1,))


def flipud(self):
    if self._array.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(self, (0,))


def roll(self, shifts, dims=()):
    a = self._array
    shifts = _dims_arg(shifts)
    dims = _dims_arg(dims)
    if not shifts:
        raise RuntimeError("`shifts` required")
    if not dims and len(shifts) == 1:
        r = np.roll(a.reshape(-1), shifts[0]).reshape(a.shape)
    else:
        if len(shifts) != len(dims):
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
        if a.size == 0:
            # roll_cpu (TensorTransformations.cpp) clones an empty tensor before it wraps the dim,
            # and roll_common recurses one dim at a time through it: no dim is checked
            r = a.copy()
        else:
            ds = [_wrap_dim(d, a.ndim, wrap_scalar=False) for d in dims]
            r = np.roll(a, shifts, ds)
    out = _wrap(r.copy() if not r.flags.c_contiguous else r, self)
    return _record(_S.RollBackward0, (self,), out, shifts=shifts, dims=dims)


def _neg_shifts(shifts):
    return tuple(-s for s in shifts)


def rot90(self, k=1, dims=(0, 1)):
    a = self._array
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if a.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {a.ndim}")
    d0, d1 = _dim(dims[0], a.ndim), _dim(dims[1], a.ndim)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}")
    # at::rot90's layout: k = 1 flips dim1 then transposes (a transposed result), k = 2 flips both,
    # k = 3 flips dim0 then transposes, k = 0 clones
    m = k % 4
    if m == 1:
        r = np.swapaxes(_flipped(a, (d1,), self), d0, d1)
    elif m == 2:
        r = _flipped(a, (d0, d1), self)
    elif m == 3:
        r = np.swapaxes(_flipped(a, (d0,), self), d0, d1)
    else:
        r = a.copy()
    return _record(_S.Rot90Backward0, (self,), _wrap(r, self), k=k, dims=dims)


def repeat(self, *repeats):
    a = self._array
    if not repeats:
        raise TypeError('repeat() missing 1 required positional arguments: "repeats"')
    repeats = _shape_arg(repeats)
    if len(repeats) < a.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of "
                           "tensor")
    sizes = [r * s for r, s in zip(repeats, (1,) * (len(repeats) - a.ndim) + a.shape, strict=True)]
    if builtins.any(n < 0 for n in sizes):
        raise RuntimeError(f"Trying to create tensor with negative dimension {next(n for n in sizes if n < 0)}: "
                           f"{sizes}")
    padded = a.reshape((1,) * (len(repeats) - a.ndim) + a.shape)
    r = np.tile(padded, repeats) if repeats else a.copy()
    out = _wrap(r if r.flags.c_contiguous else r.copy(), self)
    return _record(_S.RepeatBackward0, (self,), out, repeats=repeats, self_sym_sizes=a.shape)


def repeat_backward(grad, repeats, input_shape):
    """at::native repeat_backward: the gradient viewed as (repeat, size) pairs per dimension,
    summed over the repeats; the leading padded dimensions summed away."""
    lead = len(repeats) - len(input_shape)
    g = grad
    for _ in range(lead):
        g = _sum(g, 0)
    shape = []
    dims = []
    for r, n in zip(repeats[lead:], input_shape, strict=True):
        if r == 0:
            return _wrap(_backend.new(grad._array, "zeros", tuple(input_shape), grad._array.dtype), grad)
        if r == 1:
            shape.append(n)
        else:
            dims.append(len(shape))
            shape += [r, n]
    if dims:
        g = reshape(g, tuple(shape))
        g = _sum(g, tuple(dims))
    return g


def tile(self, dims):
    dims = _dims_arg(dims)
    n = self._array.ndim
    if len(dims) < n:
        dims = (1,) * (n - len(dims)) + dims
    return repeat(self, dims)


def repeat_interleave(self, repeats=None, dim=None, *, output_size=None):
    """at::repeat_interleave (composite): an int repeats as unsqueeze / expand / clone /
    flatten; a tensor of repeats as index_select with the repeated positions."""
    if not isinstance(self, _TB) or repeats is None:
        # torch.repeat_interleave(repeats): the indices each repeated by its count
        counts = self if repeats is None else repeats
        c = counts._array
        if c.ndim != 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        if c.dtype not in (np.int32, np.int64):  # AT_DISPATCH_INDEX_TYPES: int32 and int64 only
            raise NotImplementedError(f'"repeat_interleave_cpu" not implemented for '
                                      f"'{_torch_type_name(c.dtype)}'")
        if (c < 0).any():
            raise RuntimeError("repeats can not be negative")
        # the result has the repeats' dtype
        return _wrap(_backend.asarray(np.repeat(np.arange(c.size, dtype=c.dtype), c), like=counts), counts)
    x = self
    if dim is None:
        x = flatten(x)
        dim = 0
    a = x._array
    if isinstance(repeats, _TB) and a.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = _dim(dim, a.ndim)
    if isinstance(repeats, _TB):
        r = repeats._array
        n = a.shape[d] if a.ndim else 1
        if r.ndim == 0 or (r.ndim == 1 and r.size == 1):
            # one count for every position along dim: expanded, as upstream does
            repeats = _wrap(np.broadcast_to(r.reshape(1), (n,)).copy(), repeats)
        elif r.ndim != 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        elif r.size != n:
            raise RuntimeError("repeats must have the same size as input along dim, but got repeats.size(0) = "
                               f"{r.size} and input.size({dim}) = {n}")
        return index_select(x, d, repeat_interleave(repeats))
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    shape = list(a.shape) if a.ndim else [1]
    u = unsqueeze(x, d + 1)
    e = expand(u, tuple(shape[:d + 1]) + (repeats,) + tuple(shape[d + 1:]))
    c = clone(e) if e._array.flags.c_contiguous else contiguous(e)  # clone(contiguous_format)
    return flatten(c, d, d + 1)

