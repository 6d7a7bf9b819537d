"""_trilinear (ATen/native/Linear.cpp): sum over `sumdim` of i1 * i2 * i3, each first unsqueezed at
its `expand` dims; at::bilinear's op (TrilinearBackward0). Its gradients are _trilinear again
(FunctionsManual.cpp's _trilinear_backward), so double backward works."""
import numpy as np

from .._C import _record, _wrap
from .._generated import specs as _S

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _trilinear(i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim=1):
    """unroll_dim is upstream's loop choice only (the values do not depend on it)."""
    arrays = [i1._array, i2._array, i3._array]
    if arrays[0].dtype == np.bool_:
        raise NotImplementedError("\"bmm\" not implemented for 'Bool'")  # (its products are bmm's)
    expands = [sorted(int(d) for d in e) for e in (expand1, expand2, expand3)]
    total = arrays[0].ndim + len(expands[0])
    for a, e in zip(arrays, expands, strict=True):
        if a.ndim + len(e) != total:
            raise RuntimeError("expand1, expand2 and expand3 need to give the tensors the same number of dimensions")
    sums = {int(d) for d in sumdim}
    sizes = [1] * total
    specs = []
    for a, e in zip(arrays, expands, strict=True):
        dims = [d for d in range(total) if d not in e]
        for d, n in zip(dims, a.shape, strict=True):
            if n != 1:
                if sizes[d] not in (1, n):
                    raise RuntimeError(f"The size of tensor a ({sizes[d]}) must match the size of tensor b ({n}) at "
                                       f"non-singleton dimension {d}")
                sizes[d] = n
        specs.append(dims)
    # size-1 dims that another operand broadcasts: squeezed out of that operand's labels
    ops, labels = [], []
    for a, dims in zip(arrays, specs, strict=True):
        keep = [k for k, d in enumerate(dims) if not (a.shape[k] == 1 and sizes[d] != 1)]
        ops.append(a.reshape([a.shape[k] for k in keep]))
        labels.append("".join(_LETTERS[dims[k]] for k in keep))
    present = set("".join(labels))
    out_dims = [d for d in range(total) if d not in sums]
    out_labels = "".join(_LETTERS[d] for d in out_dims if _LETTERS[d] in present)
    dtype = np.result_type(*arrays)
    r = np.einsum(f"{labels[0]},{labels[1]},{labels[2]}->{out_labels}", *ops, optimize=True)
    out_shape = [sizes[d] if _LETTERS[d] in present else 1 for d in out_dims]
    r = np.ascontiguousarray(np.broadcast_to(r.reshape([sizes[d] for d in out_dims if _LETTERS[d] in present]),
                                             out_shape) if r.ndim else np.broadcast_to(r, out_shape)).astype(dtype)
    needs = [t.requires_grad for t in (i1, i2, i3)]
    # wrap_opt_if: each input is saved only where another input's gradient needs it
    return _record(_S.TrilinearBackward0, (i1, i2, i3), _wrap(r, i1),
                   i1=i1 if needs[1] or needs[2] else None, i2=i2 if needs[0] or needs[2] else None,
                   i3=i3 if needs[0] or needs[1] else None, expand1=tuple(expand1), expand2=tuple(expand2),
                   expand3=tuple(expand3), sumdim=tuple(sumdim))
