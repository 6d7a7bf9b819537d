"""Tensor printing as torch/_tensor_str.py prints tensors, with its print options
(set_printoptions, get_printoptions) and its rules for every dtype: floating point values in a
fixed or scientific notation chosen over all the printed values (int mode for integral floats),
integers and bools as Python prints them, summarised with `...` beyond `threshold` elements,
lines wrapped at `linewidth`, and the suffixes (device, size of an empty tensor, dtype where it is
not a default one, grad_fn or requires_grad)."""
import dataclasses
import math

import numpy as np

from . import _backend, _dtypes


@dataclasses.dataclass
class __PrinterOptions:  # noqa: N801 - torch's name
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


PRINT_OPTS = __PrinterOptions()

# the profiles of set_printoptions: precision, threshold, edgeitems, linewidth
_PROFILES = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80), "full": (4, math.inf, 3, 80)}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None):
    """torch.set_printoptions: a profile ("default", "short", "full") first, then each option
    given; sci_mode is set whatever it is (None: chosen by the values)."""
    if profile in _PROFILES:
        PRINT_OPTS.precision, PRINT_OPTS.threshold, PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = _PROFILES[profile]
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions():
    """The print options, as a dict set_printoptions takes."""
    return dataclasses.asdict(PRINT_OPTS)


class _Formatter:
    """The width and notation of a tensor's printed elements, decided over all of them."""

    def __init__(self, values):
        self.floating_dtype = values.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = values.reshape(-1)
        precision = PRINT_OPTS.precision
        if not self.floating_dtype:
            for value in flat.tolist():
                self.max_width = max(self.max_width, len(f"{value}"))
        else:
            finite = flat[np.isfinite(flat) & (flat != 0)].astype(np.float64)
            if finite.size:
                magnitudes = np.abs(finite)
                nz_min, nz_max = float(magnitudes.min()), float(magnitudes.max())
                vals = finite.tolist()
                self.int_mode = bool(np.all(finite == np.ceil(finite)))
                if PRINT_OPTS.sci_mode is None:
                    self.sci_mode = nz_max / nz_min > 1000.0 or nz_max > 1.0e8 or nz_min < 1.0e-4
                else:
                    self.sci_mode = PRINT_OPTS.sci_mode
                if self.sci_mode:
                    widths = (len(f"{v:.{precision}e}") for v in vals)
                elif self.int_mode:
                    # an integral float prints with a trailing ".": one more column
                    widths = (len(f"{v:.0f}") + 1 for v in vals)
                else:
                    widths = (len(f"{v:.{precision}f}") for v in vals)
                self.max_width = max(self.max_width, *widths)

    def width(self):
        return self.max_width

    def format(self, value):
        precision = PRINT_OPTS.precision
        if self.floating_dtype:
            if self.sci_mode:
                ret = f"{value:{self.max_width}.{precision}e}"
            elif self.int_mode:
                ret = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    ret += "."
            else:
                ret = f"{value:.{precision}f}"
        else:
            ret = f"{value}"
        return (self.max_width - len(ret)) * " " + ret


def _summarized(a):
    """The elements printed of a summarised tensor: edgeitems from each end of every dimension."""
    edge = PRINT_OPTS.edgeitems
    if a.ndim == 0:
        return a
    if a.shape[0] > 2 * edge:
        a = np.concatenate([a[:edge], a[a.shape[0] - edge:]])
    return np.stack([_summarized(x) for x in a]) if a.ndim > 1 else a


def _vector_str(a, indent, summarize, formatter):
    edge = PRINT_OPTS.edgeitems
    element_length = formatter.width() + 2
    elements_per_line = max(1, int(math.floor((PRINT_OPTS.linewidth - indent) / element_length)))
    if summarize and a.shape[0] > 2 * edge:
        data = ([formatter.format(v) for v in a[:edge].tolist()] + [" ..."] +
                [formatter.format(v) for v in a[a.shape[0] - edge:].tolist()])
    else:
        data = [formatter.format(v) for v in a.tolist()]
    lines = [", ".join(data[i:i + elements_per_line]) for i in range(0, len(data), elements_per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _tensor_str_with_formatter(a, indent, summarize, formatter):
    if a.ndim == 0:
        return formatter.format(a.item())
    if a.ndim == 1:
        return _vector_str(a, indent, summarize, formatter)
    edge = PRINT_OPTS.edgeitems
    if summarize and a.shape[0] > 2 * edge:
        slices = ([_tensor_str_with_formatter(a[i], indent + 1, summarize, formatter) for i in range(edge)]
                  + ["..."] +
                  [_tensor_str_with_formatter(a[i], indent + 1, summarize, formatter)
                   for i in range(a.shape[0] - edge, a.shape[0])])
    else:
        slices = [_tensor_str_with_formatter(a[i], indent + 1, summarize, formatter) for i in range(a.shape[0])]
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(slices) + "]"


def _tensor_str(a, indent):
    if a.size == 0:
        return "[]"
    if a.dtype.kind == "f" and a.itemsize < 4 or a.dtype.name == "bfloat16":
        a = a.astype(np.float32)  # half precision prints through float, as torch's does
    summarize = a.size > PRINT_OPTS.threshold
    formatter = _Formatter(_summarized(a) if summarize else a)
    return _tensor_str_with_formatter(a, indent, summarize, formatter)


def _add_suffixes(tensor_str, suffixes, indent):
    tensor_strs = [tensor_str]
    last_line_len = len(tensor_str) - tensor_str.rfind("\n") + 1
    for suffix in suffixes:
        suffix_len = len(suffix)
        if last_line_len + suffix_len + 2 > PRINT_OPTS.linewidth:
            tensor_strs.append(",\n" + " " * indent + suffix)
            last_line_len = indent + suffix_len
        else:
            tensor_strs.append(", " + suffix)
            last_line_len += suffix_len + 2
    tensor_strs.append(")")
    return "".join(tensor_strs)


def _str(self, tensor_contents=None):
    prefix = "tensor("
    indent = len(prefix)
    a = _backend.to_host(self._array)
    suffixes = []
    dev = self.device
    if dev.type != "cpu":
        suffixes.append(f"device='{dev}'")
    if a.size == 0:
        # an empty tensor shows its size unless it is 1-d, and any dtype but the default float one
        if a.ndim != 1:
            suffixes.append("size=" + str(tuple(a.shape)))
        if a.dtype != _dtypes._default[0]._np:
            suffixes.append("dtype=" + repr(self.dtype))
        tensor_str = "[]"
    else:
        # torch leaves out the default dtype (torch.get_default_dtype()), int64 and bool
        if a.dtype.name not in ("int64", "bool") and a.dtype != _dtypes._default[0]._np:
            suffixes.append("dtype=" + repr(self.dtype))
        tensor_str = _tensor_str(a, indent)
    if tensor_contents is not None:
        tensor_str = tensor_contents
    grad_fn = self.grad_fn
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{grad_fn.name().rsplit('::', 1)[-1]}>")
    elif self.requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + tensor_str, suffixes, indent)
