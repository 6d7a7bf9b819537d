"""x[key] and x[key] = value as torch's Python binding runs them
(torch/csrc/autograd/python_variable_indexing.cpp): the key's basic part as
views, then index / index_put_ or copy_to."""
import builtins
import warnings

import numpy as np

from .. import _C, _backend
from .._C import _record_view, _wrap
from .._generated import specs as _S
from .Copy import copy_
from .ExpandUtils import _expand_error
from .Fill import fill_
from .ScalarType import _expand_type_name, _scalar_value, _tensor_type_name
from .TensorAdvancedIndexing import _index_key, _index_put_, _is_basic, getitem_raw
from .TensorIterator import _TB
from .TensorShape import _select, _slice, expand, unsqueeze, view


_SEQUENCE_AS_TUPLE = ("Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed "
                      "in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be interpreted "
                      "as tensor index, x[torch.tensor(seq)], which will result either in an error or a different "
                      "result")


def _key_of(key):
    """python_variable_indexing.cpp's treatSequenceAsTuple (numpy's old heuristic): a
    list of fewer than 32 items holding a tensor, a sequence, a slice, an Ellipsis or a
    None indexes as the tuple of its items (with torch's deprecation warning); then the
    key's tensors as their arrays."""
    if isinstance(key, list) and len(key) < 32 and any(
            isinstance(k, (_TB, list, tuple, range, slice, np.ndarray)) or k is Ellipsis or k is None for k in key):
        warnings.warn(_SEQUENCE_AS_TUPLE, UserWarning, stacklevel=3)
        key = tuple(key)
    return _index_key(key)


_INFERENCE_SAVED = ("Inference tensors cannot be saved for backward. Please do not use Tensors created in "
                    "inference mode in computation tracked by autograd. To work around this, you can make a clone "
                    "to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
                    "`torch.inference_mode()`.")


def _check_saved_indices(key, *operands):
    """IndexBackward0 and IndexPutBackward0 save the index tensors (upstream's `indices`), and
    SavedVariable refuses an inference tensor (saved_variable.cpp): where the op records its node
    (grad mode on, an operand requiring grad), an index tensor of the key made under
    inference_mode raises before the op runs. A 0-d integer tensor selects: nothing is saved."""
    if not _C.is_grad_enabled() or not any(t.requires_grad for t in operands):
        return
    for k in key if isinstance(key, (tuple, list)) else (key,):
        if isinstance(k, _TB) and k.is_inference() and (k.ndim or k._array.dtype.kind not in "iub"):
            raise RuntimeError(_INFERENCE_SAVED)


def getitem(self, key):
    """x[key]: basic indexing as torch applies it (python_variable_indexing.cpp), one
    select / slice / unsqueeze node per item, an alias when nothing applies; the index
    tensors of advanced indexing then as one IndexBackward0 node on that result."""
    original_key = key
    key = _key_of(key)
    if not _is_basic(key):
        # integers select and Nones unsqueeze first; the index tensors then index the result
        sliced, index = _apply_slicing(self, key if isinstance(key, tuple) else (key,))
        if index is not None:
            _check_saved_indices(original_key, sliced)
            return getitem_raw(sliced, index)
        return sliced if sliced is not self else _record_view(_S.AliasBackward0, self, self._array.view())
    single = not isinstance(key, tuple)
    if single and key is None:
        return unsqueeze(self, 0)
    if single and key is Ellipsis:
        return _record_view(_S.AliasBackward0, self, self._array.view())
    result, _ = _apply_slicing(self, (key,) if single else key, lone=single, lone_slice=single)
    if result is self:
        result = _record_view(_S.AliasBackward0, self, self._array.view())
    return result


def _list_index(k):
    """indexing_tensor_from_data: a sequence item of the key (a list, a tuple inside the key
    tuple, a range) indexes as a bool tensor, or else as an int64 one (floats truncated)."""
    a = np.asarray(k)
    return a if a.dtype == np.bool_ else a.astype(np.int64)


def _byte_mask(k, stacklevel=4):
    """A uint8 index tensor is a mask, as a bool one (IndexingUtils.h's expandTensors), with
    torch's deprecation warning; a 0-d one is a bool, as a Python bool (applySlicing reads a
    0-d byte or bool tensor with item<bool>(), without the warning)."""
    if isinstance(k, np.ndarray) and k.dtype == np.uint8:
        if not k.ndim:
            return k.astype(np.bool_)
        warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead.",
                      UserWarning, stacklevel=stacklevel)
        return k.astype(np.bool_)
    return k


def _masked_fill_dispatch(self, index, value):
    """index_put_'s canDispatchToMaskedFill (TensorAdvancedIndexing.cpp): a value of one element on
    the cpu and one index tensor, a byte or bool mask, go to masked_fill_ (its mask's shape checked
    there, as expandTensors would), which refuses a byte mask. Else the byte masks become bool ones,
    with the deprecation warning, for index_put_."""
    arrays = [k for k in index if isinstance(k, np.ndarray)]
    if value._array.size == 1 and value.device.type == "cpu" and len(arrays) == 1 and \
            arrays[0].dtype in (np.uint8, np.bool_) and arrays[0].ndim:
        mask, shape = arrays[0], self._array.shape
        lead = next(i for i, k in enumerate(index) if k is mask)
        for j, n in enumerate(mask.shape):
            if n != shape[lead + j]:
                raise IndexError(f"The shape of the mask {list(mask.shape)} at index {j} does not match the shape "
                                 f"of the indexed tensor {list(shape)} at index {lead + j}")
        if mask.dtype == np.uint8:
            raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype unsigned char")
    return tuple(_byte_mask(k, 5) for k in index)


def _apply_slicing(self, items, lone=False, lone_slice=False, keep_bytes=False):
    """python_variable_indexing.cpp's applySlicing: the key's integers, slices
    and Nones applied as select / slice / unsqueeze views (a slice keeping a
    whole dimension is skipped, except for getitem's lone slice), and the numpy
    key of the index tensors left for index / index_put_ on the result (None
    when there are none). `lone`: the key was one integer or slice, not a tuple
    (torch applies it directly, with its own errors on a 0-dim tensor). `keep_bytes`: the byte
    masks left as they are (setitem's index_put_ reads them)."""
    items = tuple(_list_index(k) if isinstance(k, (list, tuple, range)) else k if keep_bytes and
                  isinstance(k, np.ndarray) and k.ndim else _byte_mask(k) for k in items)
    ndim = self._array.ndim
    if lone and ndim == 0:
        k = items[0]
        if isinstance(k, slice):
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
        if k != 0:
            raise IndexError(f"index {k} is out of bounds for dimension 0 with size 0")
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` "
                         "in C++ to convert a 0-dim tensor to a number")
    n_real = builtins.sum(k.ndim if isinstance(k, np.ndarray) and k.dtype in (np.bool_, np.uint8) else 1
                          for k in items if k is not None and k is not Ellipsis and not isinstance(k, (bool, np.bool_)))
    if n_real > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    # real_dim: the item's position in the key, which torch's errors name as its dimension
    result, dim, index, advanced = self, 0, [], False
    for real_dim, k in enumerate(items):
        if k is None:
            result = unsqueeze(result, dim)
            index.append(slice(None))
            dim += 1
        elif k is Ellipsis:
            index += [slice(None)] * (ndim - n_real)
            dim += ndim - n_real
        elif isinstance(k, slice):
            if k.step is not None and k.step <= 0:
                raise ValueError("step must be greater than zero" if k.step else "slice step cannot be zero")
            size = result._array.shape[dim]
            if lone_slice or k.start not in (None, 0) or k.step not in (None, 1) or \
                    (k.stop is not None and k.stop < size):
                result = _slice(result, dim, k)
            index.append(slice(None))
            dim += 1
        elif isinstance(k, (bool, np.bool_)) or isinstance(k, np.ndarray) and k.ndim == 0 and k.dtype == np.bool_:
            # a bool unsqueezes, then indexes the new dimension with [0] (True) or [] (False)
            result = unsqueeze(result, dim)
            index.append(np.zeros(1 if k else 0, np.int64))
            dim += 1
            advanced = True
        elif isinstance(k, np.ndarray) and (k.ndim or k.dtype.kind == "f"):
            index.append(k)
            dim += k.ndim if k.dtype in (np.bool_, np.uint8) else 1
            advanced = True
        elif isinstance(k, (int, np.integer)) or isinstance(k, np.ndarray):  # a 0-d integer tensor too: select
            if not -2 ** 63 <= int(k) < 2 ** 63:
                raise ValueError("Overflow when unpacking long long")
            result = _select(result, dim, int(k), real_dim)
        elif isinstance(k, str):
            # a str is a sequence to torch, which makes it an index tensor (and fails)
            raise TypeError("new(): invalid data type 'str'")
        else:
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
                             f"valid indices (got {_python_type_name(k)})")
    return result, tuple(index) if advanced else None


def _python_type_name(x):
    t = type(x)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"


def _value_to_tensor(value, like):
    """python_variable_indexing.cpp's valueToTensor: a tensor as is; a Python number (or a
    numpy integer) as a 0-d tensor of like's dtype; anything else a TypeError."""
    if isinstance(value, _TB):
        return value
    dtype = like._array.dtype
    if isinstance(value, (bool, int, np.integer)) and not isinstance(value, np.bool_) or \
            isinstance(value, (float, complex)):
        if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and \
                not -2 ** 63 <= int(value) < 2 ** 63:
            raise ValueError("Overflow when unpacking long long")
        return _wrap(_backend.asarray(_scalar_value(value, dtype), like=like), like)
    raise TypeError(f"can't assign a {_python_type_name(value)} to a {_tensor_type_name(dtype)}")


def _strip_leading_ones(value, always):
    """The value of x[key] = value viewed without its leading size-1 dimensions
    (slicePrefix1sSize): copy_to always views it, index_put_ only when that
    changes its shape."""
    shape = value._array.shape
    while shape and shape[0] == 1:
        shape = shape[1:]
    return view(value, shape) if always or shape != value._array.shape else value


def _copy_to(dst, src):
    """python_variable_indexing.cpp's copy_to: copy_ for the same sizes, fill_
    for a 0-dim value, else copy_ of the value viewed and expanded to dst."""
    if dst._array.shape == src._array.shape:
        return copy_(dst, src)
    if src._array.ndim == 0:
        return fill_(dst, src)
    src = _strip_leading_ones(src, True)
    if src._array.shape != dst._array.shape:
        err = _expand_error(src._array.shape, dst._array.shape, _expand_type_name(src._array.dtype))
        if err is not None:
            raise err
        src = expand(src, dst._array.shape)
    return copy_(dst, src)


def setitem(self, key, value):
    """x[key] = value as torch does it (python_variable_indexing.cpp): the value made a
    tensor first; the key's basic part applied as views, then copy_to on the result (so
    CopySlices over CopyBackwards or FillBackward3 where the result is a view), or
    index_put_ with the index tensors."""
    original_key = key
    key = _key_of(key)
    value = _value_to_tensor(value, self)
    if key is False:
        return
    if key is True:
        _copy_to(unsqueeze(self, 0), value)
        return
    lone = isinstance(key, (int, np.integer, slice))
    sliced, index = _apply_slicing(self, key if isinstance(key, tuple) else (key,), lone=lone, keep_bytes=True)
    if index is None:
        _copy_to(sliced, value)
    else:
        index = _masked_fill_dispatch(sliced, index, value)
        _check_saved_indices(original_key, sliced, value)
        _index_put_(sliced, index, _strip_leading_ones(value, False))


def delitem(self, key):
    raise TypeError("Tensor does not support deleting items")
