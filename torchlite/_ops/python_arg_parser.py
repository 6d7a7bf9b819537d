"""The argument checks torch's argument parser and its dimension wrapping
(torch/csrc/utils/python_arg_parser.cpp, c10's WrapDimUtils.h) apply, with their messages."""


_REQUIRED = object()  # the default of a required argument that torch's parser names when it is missing


def _check_given(fn, **args):
    """torch's argument parser's error for required arguments left out (its grammar: "argument"
    for two or more, "arguments" for one)."""
    missing = [name for name, value in args.items() if value is _REQUIRED]
    if missing:
        suffix = "s" if len(missing) == 1 else ""
        raise TypeError(f"{fn}() missing {len(missing)} required positional argument{suffix}: "
                        + ", ".join(f'"{name}"' for name in missing))


def _int_arg(fn, name, position, value):
    """An int argument, refused as torch's argument parser refuses another type."""
    if not isinstance(value, bool):
        try:
            return value.__index__()
        except (AttributeError, TypeError):
            pass
    raise TypeError(f"{fn}(): argument '{name}' (position {position}) must be int, not {type(value).__name__}")


def _wrap_dim(dim, ndim, wrap_scalar=True):
    """c10::maybe_wrap_dim: with wrap_scalar a 0-d tensor takes the dims of a 1-d one,
    without it (size(dim), stride(dim)) it has none."""
    if not ndim and not wrap_scalar:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    bound = ndim if ndim else 1
    if not -bound <= dim < bound:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-bound}, {bound - 1}], but got {dim})")
    return dim % bound


def _norm_dims(dim, ndim):
    """A dim or list of dims wrapped and sorted, each at most once (at::dim_list_to_bitset)."""
    if isinstance(dim, int):
        dim = (dim,)
    out = []
    for d in dim:
        d = _wrap_dim(d, ndim)
        if d in out:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        out.append(d)
    return tuple(sorted(out))


def _shape_arg(shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        return tuple(shape[0])
    return tuple(shape)
