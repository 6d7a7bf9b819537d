"""Tensor printing as torch/_tensor_str.py does it (default print options)."""
import math

import numpy as np

from . import _backend, _dtypes

PRECISION = 4
THRESHOLD = 1000
EDGEITEMS = 3
LINEWIDTH = 80


class _Formatter:
    def __init__(self, values):
        self.floating_dtype = values.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = values.reshape(-1)
        if not self.floating_dtype:
            for value in flat.tolist():
                self.max_width = max(self.max_width, len(str(value)))
            return
        nonzero_finite = flat[np.isfinite(flat) & (flat != 0)].astype(np.float64)
        if nonzero_finite.size == 0:
            return
        abs_vals = np.abs(nonzero_finite)
        nz_min, nz_max = abs_vals.min(), abs_vals.max()
        vals = nonzero_finite.tolist()
        self.int_mode = bool(np.all(nonzero_finite == np.ceil(nonzero_finite)))
        if self.int_mode:
            if nz_max / nz_min > 1000.0 or nz_max > 1.0e8:
                self.sci_mode = True
                for v in vals:
                    self.max_width = max(self.max_width, len(f"{v:.{PRECISION}e}"))
            else:
                for v in vals:
                    self.max_width = max(self.max_width, len(f"{v:.0f}") + 1)
        elif nz_max / nz_min > 1000.0 or nz_max > 1.0e8 or nz_min < 1.0e-4:
            self.sci_mode = True
            for v in vals:
                self.max_width = max(self.max_width, len(f"{v:.{PRECISION}e}"))
        else:
            for v in vals:
                self.max_width = max(self.max_width, len(f"{v:.{PRECISION}f}"))

    def width(self):
        return self.max_width

    def format(self, value):
        if self.floating_dtype:
            if self.sci_mode:
                ret = f"{value:{self.max_width}.{PRECISION}e}"
            elif self.int_mode:
                ret = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    ret += "."
            else:
                ret = f"{value:.{PRECISION}f}"
        else:
            ret = f"{value}"
        return (self.max_width - len(ret)) * " " + ret


def _summarized(a):
    if a.ndim == 0:
        return a
    if a.shape[0] > 2 * EDGEITEMS:
        a = np.concatenate([a[:EDGEITEMS], a[-EDGEITEMS:]])
    return np.stack([_summarized(x) for x in a]) if a.ndim > 1 else a


def _vector_str(a, indent, summarize, formatter):
    element_length = formatter.width() + 2
    elements_per_line = max(1, int(math.floor((LINEWIDTH - indent) / element_length)))
    if summarize and a.shape[0] > 2 * EDGEITEMS:
        data = ([formatter.format(v) for v in a[:EDGEITEMS].tolist()] + [" ..."] +
                [formatter.format(v) for v in a[-EDGEITEMS:].tolist()])
    else:
        data = [formatter.format(v) for v in a.tolist()]
    lines = [", ".join(data[i:i + elements_per_line]) for i in range(0, len(data), elements_per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _tensor_str_with_formatter(a, indent, summarize, formatter):
    if a.ndim == 0:
        return formatter.format(a.item())
    if a.ndim == 1:
        return _vector_str(a, indent, summarize, formatter)
    if summarize and a.shape[0] > 2 * EDGEITEMS:
        slices = ([_tensor_str_with_formatter(a[i], indent + 1, summarize, formatter) for i in range(EDGEITEMS)]
                  + ["..."] +
                  [_tensor_str_with_formatter(a[i], indent + 1, summarize, formatter)
                   for i in range(a.shape[0] - EDGEITEMS, a.shape[0])])
    else:
        slices = [_tensor_str_with_formatter(a[i], indent + 1, summarize, formatter) for i in range(a.shape[0])]
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(slices) + "]"


def _tensor_str(a, indent):
    if a.size == 0:
        return "[]"
    summarize = a.size > THRESHOLD
    formatter = _Formatter(_summarized(a) if summarize else a)
    return _tensor_str_with_formatter(a, indent, summarize, formatter)


def _add_suffixes(tensor_str, suffixes, indent):
    tensor_strs = [tensor_str]
    last_line_len = len(tensor_str) - tensor_str.rfind("\n") + 1
    for suffix in suffixes:
        suffix_len = len(suffix)
        if last_line_len + suffix_len + 2 > LINEWIDTH:
            tensor_strs.append(",\n" + " " * indent + suffix)
            last_line_len = indent + suffix_len
        else:
            tensor_strs.append(", " + suffix)
            last_line_len += suffix_len + 2
    tensor_strs.append(")")
    return "".join(tensor_strs)


def _str(self):
    prefix = "tensor("
    indent = len(prefix)
    a = _backend.to_host(self._array)
    suffixes = []
    dev = self.device
    if dev.type != "cpu":
        suffixes.append(f"device='{dev}'")
    if a.size == 0 and a.shape != (0,):
        suffixes.append("size=" + str(tuple(a.shape)))
    if a.dtype.name not in ("int64", "bool") and a.dtype != _dtypes._default[0]._np:
        # torch leaves out the default dtype (torch.get_default_dtype()), int64 and bool
        suffixes.append("dtype=" + repr(self.dtype))
    tensor_str = _tensor_str(a, indent)
    grad_fn = self.grad_fn
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{grad_fn.name()}>")
    elif self.requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + tensor_str, suffixes, indent)
