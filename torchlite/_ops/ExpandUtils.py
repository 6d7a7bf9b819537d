"""Broadcasting shapes and expanding a tensor to one (ATen/ExpandUtils.cpp:
infer_size, inferExpandGeometry), with their errors."""


def _broadcast_shapes(sa, sb):
    """at::infer_size, with its message (which names the last dimension that does not match)."""
    n = len(sa) if len(sa) > len(sb) else len(sb)
    out = [0] * n
    for i in range(n - 1, -1, -1):
        x = sa[i - n + len(sa)] if i - n + len(sa) >= 0 else 1
        y = sb[i - n + len(sb)] if i - n + len(sb) >= 0 else 1
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                               f"non-singleton dimension {i}")
        out[i] = y if x == 1 else x
    return tuple(out)


def _expanded_strides(a, target):
    """at::inferExpandGeometry's strides (in bytes): a broadcast dimension's is
    0; a new leading dimension of size 1 gets the size times the stride of the
    dimension after it, as torch gives it (the overlap checks compare strides)."""
    lead = len(target) - a.ndim
    strides = [0] * len(target)
    for i in range(len(target) - 1, -1, -1):
        if i >= lead:
            size, stride = a.shape[i - lead], a.strides[i - lead]
        else:
            size, stride = 1, target[i + 1] * strides[i + 1] if i + 1 < len(target) else 0
        strides[i] = 0 if size != target[i] else stride
    return tuple(strides)


def _expand_error(src, sizes, type_name):
    """at::expand's error for a tensor of shape `src` expanded to `sizes` (-1: keep the
    size), or None (at::infer_expand_geometry checks from the last dimension)."""
    if len(sizes) < len(src):
        return RuntimeError(f"expand({type_name}{{{list(src)}}}, size={list(sizes)}): the number of sizes "
                            f"provided ({len(sizes)}) must be greater or equal to the number of dimensions in "
                            f"the tensor ({len(src)})")
    for i in range(len(sizes) - 1, -1, -1):
        d = len(src) - len(sizes) + i
        size = src[d] if d >= 0 else 1
        target = sizes[i]
        if target == -1:
            if d < 0:
                return RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a leading, "
                                    f"non-existing dimension {i}")
            target = size
        if size != target and size != 1:
            return RuntimeError(f"The expanded size of the tensor ({target}) must match the existing size "
                                f"({size}) at non-singleton dimension {i}.  Target sizes: {list(sizes)}.  "
                                f"Tensor sizes: {list(src)}")
    return None
