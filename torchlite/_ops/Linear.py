"""The linear-algebra ops PyTorch composes from other ops (ATen/native/Linear.cpp: einsum,
tensordot; LinearAlgebra.cpp: outer, kron, matrix_power, linalg_vecdot), written here over
torchlite's differentiable ops in upstream's order, so they record the nodes torch records
(einsum's UnsqueezeBackward0 / PermuteBackward0 / BmmBackward0 / ViewBackward0, ...)."""
import builtins

import numpy as np

from .BatchLinearAlgebra import _float_check, _square_check, linalg_inv
from .BinaryOps import mul
from .Copy import copy_
from .LinearAlgebra import _matmul_kernel, dot as vdot_or_dot, matmul, mm, vdot
from .Resize import out_variant
from .ReduceOps import sum  # noqa: A004 - torch's name
from .ScalarType import _torch_type_name
from .TensorFactories import _const, clone
from .TensorShape import _unsafe_view, _viewed, diagonal, permute, reshape, squeeze, unsqueeze, view
from .python_arg_parser import _wrap_dim
from .._generated import specs as _S

__all__ = ["einsum", "ger", "kron", "linalg_vecdot", "matrix_power", "outer", "tensordot"]


def outer(self, vec2):
    """at::outer: self.reshape({n, 1}) * vec2 (ViewBackward0, MulBackward0)."""
    if self._array.ndim != 1:
        raise RuntimeError(f"outer: Expected 1-D argument self, but got {self._array.ndim}-D")
    if vec2._array.ndim != 1:
        raise RuntimeError(f"outer: Expected 1-D argument vec2, but got {vec2._array.ndim}-D")
    return mul(reshape(self, (self._array.shape[0], 1)), vec2)


def ger(self, vec2):
    """torch.ger: outer's old name."""
    return outer(self, vec2)


def kron(self, other):
    """at::kron (LinearAlgebra.cpp's KronImpl): both operands viewed with interleaved size-1
    dimensions, multiplied, and the product viewed as the result (UnsafeViewBackward0s)."""
    a, b = self._array, other._array
    maxdim = builtins.max(a.ndim, b.ndim)
    pad_a, pad_b = maxdim - a.ndim, maxdim - b.ndim
    a_shape, b_shape, result = [], [], []
    for i in range(maxdim):
        sa = a.shape[i - pad_a] if i >= pad_a else 1
        sb = b.shape[i - pad_b] if i >= pad_b else 1
        a_shape += [sa, 1]
        b_shape += [1, sb]
        result.append(sa * sb)
    product = mul(_view_unsafe(self, tuple(a_shape)), _view_unsafe(other, tuple(b_shape)))
    return _view_unsafe(product, tuple(result))


def _view_unsafe(t, shape):
    """at::_unsafe_view, which views (it raises where the strides allow no view, as view does)."""
    if _viewed(t._array, shape) is None:
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one "
                           "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
    if t.is_inference():  # (an inference tensor's alias is one: TensorShape._unsafe_view's result is not)
        return view(t, shape)
    return _unsafe_view(t, shape)


def tensordot(a, b, dims=2, out=None):
    """torch.tensordot (functional.py) over at::tensordot (Linear.cpp): the contracted dims
    permuted last / first, both reshaped to matrices, one mm, reshaped to the result."""
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > builtins.min(a._array.ndim, b._array.ndim):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        dims_a = list(range(-dims, 0))
        dims_b = list(range(dims))
    else:
        if hasattr(dims, "_array"):
            dims = dims.tolist()
        if isinstance(dims, (list, tuple)) and len(dims) == 2 and all(isinstance(d, (list, tuple)) for d in dims):
            dims_a, dims_b = list(dims[0]), list(dims[1])
        elif isinstance(dims, (list, tuple)) and len(dims) == 2:
            dims_a, dims_b = [dims[0]], [dims[1]]
        else:
            raise RuntimeError(f"tensordot expects dims to be a list of length 2 or an int, but got {dims}")
    result = _tensordot(a, b, dims_a, dims_b)
    if out is not None:
        return out_variant("tensordot", lambda *_: result, out, (a, b), {})
    return result


def _tensordot(input1, input2, dims1, dims2):
    if len(dims1) != len(dims2):
        raise RuntimeError("both dimension lists should have same length")
    x, y = input1._array, input2._array
    if x.dtype != y.dtype:
        raise RuntimeError("both inputs should have same dtype")
    given = list(zip(dims1, dims2, strict=True))
    dims1 = [_wrap_dim(d, x.ndim) for d in dims1]
    dims2 = [_wrap_dim(d, y.ndim) for d in dims2]
    csize = 1
    t1, t2 = input1, input2
    for (d1, d2), (g1, g2) in zip(zip(dims1, dims2, strict=True), given, strict=True):
        s1, s2 = x.shape[d1], y.shape[d2]
        # a broadcast dimension sums right away, in the operand's own dtype (Linear.cpp passes
        # t1.scalar_type(): bool/int32 stay so, and reach dot/mm's dtype errors as torch's do)
        if s2 == 1:
            t1 = sum(t1, d1, True, dtype=t1.dtype)
        elif s1 == 1:
            t2 = sum(t2, d2, True, dtype=t2.dtype)
        else:
            if s1 != s2:
                raise RuntimeError(f"contracted dimensions need to match, but first has size {s1} in dim {g1} and "
                                   f"second has size {s2} in dim {g2}")
            csize *= s1
    p1 = [i for i in range(x.ndim) if i not in dims1] + dims1
    p2 = dims2 + [i for i in range(y.ndim) if i not in dims2]
    rsizes = [t1._array.shape[i] for i in range(x.ndim) if i not in dims1]
    rsizes += [t2._array.shape[i] for i in range(y.ndim) if i not in dims2]
    size1 = int(np.prod([t1._array.shape[i] for i in range(x.ndim) if i not in dims1]))
    size2 = int(np.prod([t2._array.shape[i] for i in range(y.ndim) if i not in dims2]))
    if size1 != 1 or size2 != 1:
        m1 = reshape(permute(t1, p1), (size1, csize))
        m2 = reshape(permute(t2, p2), (csize, size2))
        return reshape(mm(m1, m2), tuple(rsizes))
    # a full contraction: dot of the flattened operands where both permuted are contiguous, else
    # the sum of their product (squeezed)
    t1, t2 = permute(t1, p1), permute(t2, p2)
    if t1.is_contiguous() and t2.is_contiguous():
        return reshape(vdot_or_dot(reshape(t1, (-1,)), reshape(t2, (-1,))), tuple(rsizes))
    return reshape(sum(mul(squeeze(t1), squeeze(t2))), tuple(rsizes))


def matrix_power(self, n):
    """at::linalg_matrix_power: n == 0 the identity (a contiguous clone, copied over), n < 0 of
    the inverse, else matmuls by binary decomposition."""
    a = self._array
    _square_check(a, "linalg.matrix_power")
    if n == 0:
        eye = np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape)
        return copy_(clone(self), _const(eye, self))
    if n < 0:
        self = linalg_inv(self)
        n = -n
    if n == 1:
        return clone(self)
    if n == 2:
        return matmul(self, self)
    if n == 3:
        return matmul(matmul(self, self), self)
    z = result = None
    while n > 0:
        bit = n % 2
        n //= 2
        z = self if z is None else matmul(z, z)
        if bit == 1:
            result = z if result is None else matmul(result, z)
    return result


def linalg_vecdot(x, y, *, dim=-1):
    """torch.linalg.vecdot: (x.conj() * y).sum(dim) (MulBackward0, SumBackward1)."""
    a, b = x._array, y._array
    _float_check(a, "linalg.vecdot")  # at::linalg_vecdot checks x alone, before the dtypes agree
    if a.dtype != b.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
                           f"{_torch_type_name(a.dtype)} and y of type {_torch_type_name(b.dtype)} instead")
    if a.ndim == 1 and b.ndim == 1:  # at::linalg_vecdot: two vectors are vdot's (VdotBackward0)
        _wrap_dim(dim, 1)
        return vdot(x, y)
    return sum(mul(x, y), dim)


# einsum -----------------------------------------------------------------------------------

_ELLIPSIS = 52


def _subscript(label):
    return ord(label) - ord("A") if label.isupper() else ord(label) - ord("a") + 26


def _label(s):
    return chr(s + ord("A")) if s < 26 else chr(s - 26 + ord("a"))


def _sumproduct_pair(left, right, sum_dims, keepdim):
    """at::native::sumproduct_pair: (left * right).sum(sum_dims) by a permutation and one bmm."""
    if not sum_dims:
        return mul(left, right)
    ndim = left._array.ndim
    lro, lo, ro = [], [], []
    lro_size = lo_size = ro_size = sum_size = 1
    for i in range(ndim):
        sl = left._array.shape[i] != 1
        sr = right._array.shape[i] != 1
        if i in sum_dims:
            if sl and sr:
                if left._array.shape[i] != right._array.shape[i]:
                    raise RuntimeError("non-broadcast dimensions must match")
                sum_size *= left._array.shape[i]
            elif sl:
                left = sum(left, i, True)
            elif sr:
                right = sum(right, i, True)
        elif sl and sr:
            if left._array.shape[i] != right._array.shape[i]:
                raise RuntimeError("non-broadcast dimensions must match")
            lro.append(i)
            lro_size *= left._array.shape[i]
        elif sl:
            lo.append(i)
            lo_size *= left._array.shape[i]
        else:
            ro.append(i)
            ro_size *= right._array.shape[i]
    if lo and ro and ro[-1] < lo[0]:
        # torch swaps the operands where all the right one's output dims come before the left
        # one's, so that the bmm writes the result in the output's order
        left, right, lo, ro, lo_size, ro_size = right, left, ro, lo, ro_size, lo_size
    out_size = ([left._array.shape[d] for d in lro] + [left._array.shape[d] for d in lo] + [1] * len(sum_dims)
                + [right._array.shape[d] for d in ro])
    lperm = lro + lo + list(sum_dims) + ro
    rperm = lro + list(sum_dims) + ro + lo
    operm = [0] * len(out_size)
    for i, d in enumerate(lro + lo + list(sum_dims) + ro):
        operm[d] = i
    left = reshape(permute(left, lperm), (lro_size, lo_size, sum_size))
    right = reshape(permute(right, rperm), (lro_size, sum_size, ro_size))
    result = permute(view(_matmul_kernel(_S.BmmBackward0, left, right), tuple(out_size)), operm)
    if not keepdim:
        sizes = [n for i, n in enumerate(result._array.shape) if i not in sum_dims]
        result = view(result, tuple(sizes))
    return result


def _movedim_last_to(op, dst):
    nd = op._array.ndim
    perm = list(range(nd - 1))
    perm.insert(dst, nd - 1)
    return permute(op, perm)


def einsum(*args):
    """torch.einsum(equation, *operands) (functional.py) over at::einsum (Linear.cpp): the
    labels parsed, each operand's repeated labels reduced to diagonals, missing ones unsqueezed,
    all permuted to the output's order then the contracted labels, and contracted left to right
    with sumproduct_pair (one bmm each)."""
    if len(args) < 2:
        raise ValueError("einsum(): must specify the equation string and at least one operand, "
                         "or at least one operand and its subscripts list")
    equation, operands = args[0], args[1:]
    if not isinstance(equation, str):
        raise NotImplementedError("einsum(): the sublist format is not supported by torchlite")
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    num_ops = len(operands)
    if num_ops == 0:
        raise RuntimeError("einsum(): must provide at least one operand")
    arrow = equation.find("->")
    lhs = equation if arrow < 0 else equation[:arrow]
    op_labels = [[] for _ in range(num_ops)]
    ell_in_input, cur, i = False, 0, 0
    while i < len(lhs):
        c = lhs[i]
        if c == " ":
            pass
        elif c == ".":
            if ell_in_input:
                raise RuntimeError(f"einsum(): found '.' for operand {cur} for which an ellipsis was already found")
            if not (i + 2 < len(lhs) and lhs[i + 1] == "." and lhs[i + 2] == "."):
                raise RuntimeError(f"einsum(): found '.' for operand {cur} that is not part of any ellipsis")
            i += 2
            op_labels[cur].append(_ELLIPSIS)
            ell_in_input = True
        elif c == ",":
            cur += 1
            if cur >= num_ops:
                raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
            ell_in_input = False
        else:
            if not (c.isascii() and c.isalpha()):
                raise RuntimeError(f"einsum(): invalid subscript given at index {i} in the equation string, "
                                   "subscripts must be in [a-zA-Z]")
            op_labels[cur].append(_subscript(c))
        i += 1
    if cur != num_ops - 1:
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    label_count = [0] * 52
    ell_num_dim = 0
    for k, operand in enumerate(operands):
        labels = op_labels[k]
        ndims = operand._array.ndim
        nlabels = len(labels)
        has_ellipsis = False
        for s in labels:
            if s == _ELLIPSIS:
                nlabels -= 1
                has_ellipsis = True
                ell_num_dim = builtins.max(ell_num_dim, ndims - nlabels)
            else:
                label_count[s] += 1
        if not (nlabels <= ndims if has_ellipsis else nlabels == ndims):
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({nlabels}) "
                + ("is more than the number of dimensions (" if has_ellipsis
                   else "does not match the number of dimensions (")
                + f"{ndims}) for operand {k}" + ("" if has_ellipsis else " and no ellipsis was given"))
    perm_index_of = [-1] * 52
    perm_index = ell_index = 0
    ell_in_output = False
    if arrow < 0:
        perm_index = ell_num_dim
        ell_in_output = True
        for s in range(52):
            if label_count[s] == 1:
                perm_index_of[s] = perm_index
                perm_index += 1
    else:
        rhs = equation[arrow + 2:]
        i = 0
        while i < len(rhs):
            c = rhs[i]
            if c == " ":
                pass
            elif c == ".":
                if ell_in_output:
                    raise RuntimeError("einsum(): found '.' for output but an ellipsis (...) was already found")
                if not (i + 2 < len(rhs) and rhs[i + 1] == "." and rhs[i + 2] == "."):
                    raise RuntimeError("einsum(): found '.' for output that is not part of any ellipsis (...)")
                i += 2
                ell_index = perm_index
                perm_index += ell_num_dim
                ell_in_output = True
            else:
                if not (c.isascii() and c.isalpha()):
                    raise RuntimeError(f"einsum(): invalid subscript given at index {len(lhs) + 2 + i} in the "
                                       "equation string, subscripts must be in [a-zA-Z]")
                s = _subscript(c)
                if not (label_count[s] > 0 and perm_index_of[s] == -1):
                    raise RuntimeError(f"einsum(): output subscript {c}" + (
                        " appears more than once in the output" if perm_index_of[s] > -1
                        else " does not appear in the equation for any input operand"))
                perm_index_of[s] = perm_index
                perm_index += 1
            i += 1
    out_num_dim = perm_index
    if not ell_in_output:
        ell_index = perm_index
        perm_index += ell_num_dim
    for s in range(52):
        if label_count[s] > 0 and perm_index_of[s] == -1:
            perm_index_of[s] = perm_index
            perm_index += 1
    label_size = [1] * 52
    ell_sizes = [1] * ell_num_dim
    dim_counts = [0] * perm_index
    ops = []
    for k, operand in enumerate(operands):
        op = operand
        permutation = [-1] * perm_index
        dim = 0
        for s in op_labels[k]:
            if s == _ELLIPSIS:
                ndim = operand._array.ndim - (len(op_labels[k]) - 1)
                for j in range(ell_num_dim - ndim, ell_num_dim):
                    size = op._array.shape[dim]
                    if size != 1:
                        if ell_sizes[j] != 1 and ell_sizes[j] != size:
                            raise RuntimeError(
                                f"einsum(): dimension {dim} covered by ellipsis in operand {k}has size {size} which "
                                f"does not broadcast with previously seen ellipsis with size {ell_sizes[j]} for the "
                                "respective dimension")
                        ell_sizes[j] = size
                        dim_counts[ell_index + j] += 1
                    permutation[ell_index + j] = dim
                    dim += 1
            elif permutation[perm_index_of[s]] == -1:
                size = op._array.shape[dim]
                if size != 1:
                    if label_size[s] != 1 and label_size[s] != size:
                        raise RuntimeError(f"einsum(): subscript {_label(s)} has size {size} for operand {k} which "
                                           f"does not broadcast with previously seen size {label_size[s]}")
                    label_size[s] = size
                    dim_counts[perm_index_of[s]] += 1
                permutation[perm_index_of[s]] = dim
                dim += 1
            else:  # a repeated label: its diagonal, moved where the label first was
                prev = permutation[perm_index_of[s]]
                if op._array.shape[dim] != op._array.shape[prev]:
                    raise RuntimeError(f"einsum(): subscript {_label(s)} is repeated for operand {k} but the sizes "
                                       f"don't match, {op._array.shape[dim]} != {op._array.shape[prev]}")
                op = _movedim_last_to(diagonal(op, 0, prev, dim), prev)
        for idx in range(perm_index):
            if permutation[idx] == -1:
                op = unsqueeze(op, dim)
                permutation[idx] = dim
                dim += 1
        ops.append(permute(op, permutation))
    while len(ops) > 1:
        a, b = ops[0], ops[1]
        del ops[:2]
        sum_dims, a_sum, b_sum = [], [], []
        for d in range(out_num_dim, perm_index):
            if a._array.shape[d] != 1 and b._array.shape[d] != 1:
                dim_counts[d] -= 1
                if dim_counts[d] == 1:
                    sum_dims.append(d)
                    dim_counts[d] = 0
            elif dim_counts[d] == 1:
                if a._array.shape[d] != 1:
                    a_sum.append(d)
                    dim_counts[d] = 0
                elif b._array.shape[d] != 1:
                    b_sum.append(d)
                    dim_counts[d] = 0
        if a_sum:
            a = sum(a, a_sum, True)
        if b_sum:
            b = sum(b, b_sum, True)
        ops.insert(0, _sumproduct_pair(a, b, sum_dims, True))
    if perm_index - out_num_dim > 0:
        if num_ops > 1:
            sizes = list(ops[0]._array.shape)[:out_num_dim]
            return view(ops[0], tuple(sizes))
        return sum(ops[0], list(range(out_num_dim, perm_index)))
    return ops[0]

