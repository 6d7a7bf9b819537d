"""im2col and col2im (ATen/native/Im2Col.cpp, Col2Im.cpp, im2col_shape_check.h): F.unfold's sliding
blocks and F.fold's sum of them back into an image. Each is the other's derivative (Im2ColBackward0 /
Col2ImBackward0, as upstream's derivatives.yaml), so any order of backward works. Vectorised: im2col
is one strided view of the padded input; col2im adds one kernel tap at a time (a strided slice over
every block), never a loop over pixels."""
import numpy as np

from .._C import _record, _wrap
from .._generated import specs as _S
from .ScalarType import _torch_type_name

_as_strided = np.lib.stride_tricks.as_strided


def _two(name, value):
    """An int[2] argument: one int for both, or a list of two."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return [int(value)] * 2
    values = [int(v) for v in value]
    if len(values) != 2:
        raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(values)}")
    return values


def _check_params(kernel_size, dilation, padding, stride, col2im):
    kh, kw = kernel_size
    dh, dw = dilation
    ph, pw = padding
    sh, sw = stride
    checks = [
        ("kernel", kw > 0 and kh > 0, f"kernel size should be greater than zero, but got kernel_height: {kh} "
                                      f"kernel_width: {kw}"),
        ("dilation", dw > 0 and dh > 0, f"dilation should be greater than zero, but got dilation_height: {dh} "
                                        f"dilation_width: {dw}"),
        ("padding", pw >= 0 and ph >= 0, f"padding should be non-negative, but got pad_height: {ph} pad_width: {pw}"),
        ("stride", sw > 0 and sh > 0, f"stride should be greater than zero, but got stride_height: {sh} "
                                      f"stride_width: {sw}"),
    ]
    if col2im:  # col2im_shape_check's order: kernel, stride, dilation, padding
        checks = [checks[0], checks[3], checks[1], checks[2]]
    for _, ok, message in checks:
        if not ok:
            raise RuntimeError(message)


def _size(shape, d):
    """input.size(d) with at::maybe_wrap_dim's errors."""
    if not shape:
        raise IndexError(f"dimension specified as {d} but tensor has no dimensions")
    if not -len(shape) <= d < len(shape):
        raise IndexError(f"Dimension out of range (expected to be in range of [{-len(shape)}, {len(shape) - 1}], but "
                         f"got {d})")
    return shape[d]


def _check_dtype(a, name, allow_bool):
    if a.dtype.kind not in "fc" and not (allow_bool and a.dtype.kind == "b"):
        raise NotImplementedError(f'"{name}" not implemented for \'{_torch_type_name(a.dtype)}\'')


def im2col(self, kernel_size, dilation, padding, stride):
    """at::im2col: (N, C, H, W) -> (N, C * kh * kw, L), the L sliding blocks of the zero-padded input
    (a 3-D input without the batch dim)."""
    kernel_size, dilation, padding, stride = (_two(n, v) for n, v in (("kernel_size", kernel_size),
                                                                      ("dilation", dilation),
                                                                      ("padding", padding), ("stride", stride)))
    a = self._array
    _check_params(kernel_size, dilation, padding, stride, col2im=False)
    shape = a.shape
    valid_dims = _size(shape, 1) != 0 and _size(shape, 2) != 0
    if not ((a.ndim == 3 and shape[0] != 0 and valid_dims) or (a.ndim == 4 and valid_dims and shape[3] != 0)):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {list(shape)}")
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = kernel_size, dilation, padding, stride
    h, w = shape[-2], shape[-1]
    oh = (h + 2 * ph - (dh * (kh - 1) + 1)) // sh + 1
    ow = (w + 2 * pw - (dw * (kw - 1) + 1)) // sw + 1
    if oh < 1 or ow < 1:
        raise RuntimeError(f"Given input with spatial size ({h}, {w}), kernel_size=({kh}, {kw}), dilation=({dh}, "
                           f"{dw}), padding=({ph}, {pw}), calculated shape of the array of sliding blocks as ({oh}, "
                           f"{ow}), but its components must be at least one.")
    _check_dtype(a, "im2col_out_cpu", allow_bool=True)
    x = a if a.ndim == 4 else a[None]
    n, c = x.shape[:2]
    xp = np.zeros((n, c, h + 2 * ph, w + 2 * pw), dtype=a.dtype)
    xp[:, :, ph:ph + h, pw:pw + w] = x
    s = xp.strides
    blocks = _as_strided(xp, (n, c, kh, kw, oh, ow), (s[0], s[1], dh * s[2], dw * s[3], sh * s[2], sw * s[3]))
    r = np.ascontiguousarray(blocks).reshape(n, c * kh * kw, oh * ow)
    out = _wrap(r if a.ndim == 4 else r[0], self)
    return _record(_S.Im2ColBackward0, (self,), out, self_sym_argsize_minus_2=h, self_sym_argsize_minus_1=w,
                   kernel_size=tuple(kernel_size), dilation=tuple(dilation), padding=tuple(padding),
                   stride=tuple(stride))


def col2im(self, output_size, kernel_size, dilation, padding, stride):
    """at::col2im: (N, C * kh * kw, L) -> (N, C, H, W), each block's values added back at its place
    (the padding cut off); a 2-D input without the batch dim."""
    output_size, kernel_size, dilation, padding, stride = (
        _two(n, v) for n, v in (("output_size", output_size), ("kernel_size", kernel_size),
                                ("dilation", dilation), ("padding", padding), ("stride", stride)))
    a = self._array
    _check_params(kernel_size, dilation, padding, stride, col2im=True)
    shape = a.shape
    if not ((a.ndim == 2 and shape[0] != 0 and shape[1] != 0) or
            (a.ndim == 3 and shape[1] != 0 and shape[2] != 0)):
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
                           f"dimensions for input, but got: {list(shape)}")
    (h, w), (kh, kw), (dh, dw), (ph, pw), (sh, sw) = output_size, kernel_size, dilation, padding, stride
    bd = 0 if a.ndim == 3 else -1
    planes = shape[bd + 1]
    if planes % (kw * kh):
        raise RuntimeError(f"Expected size of input's dimension {bd + 1} to be divisible by the product of "
                           f"kernel_size, but got input.size({bd + 1})={planes} and kernel_size=({kh}, {kw}).")
    length = shape[bd + 2]
    oh = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    ow = (w + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    given = (f"Given output_size=({h}, {w}), kernel_size=({kh}, {kw}), dilation=({dh}, {dw}), padding=({ph}, {pw}), "
             f"stride=({sh}, {sw}), ")
    if length != oh * ow:
        raise RuntimeError(f"{given}expected size of input's dimension {bd + 2} to match the calculated number of "
                           f"sliding blocks {oh} * {ow} = {oh * ow}, but got input.size({bd + 2})={length}.")
    if oh < 1 or ow < 1:
        raise RuntimeError(f"{given}calculated shape of the array of sliding blocks as ({oh}, {ow}), which is too "
                           "small (non-positive)")
    if h < 1 or w < 1:
        raise RuntimeError(f"Expected output spatial size to be positive, but got: output_size=({h}, {w}).")
    _check_dtype(a, "col2im_out_cpu", allow_bool=True)
    x = a if a.ndim == 3 else a[None]
    n = x.shape[0]
    c = planes // (kh * kw)
    cols = x.reshape(n, c, kh, kw, oh, ow)
    img = np.zeros((n, c, h + 2 * ph, w + 2 * pw), dtype=a.dtype)
    for i in range(kh):  # one kernel tap at a time: a strided slice over all the blocks
        for j in range(kw):
            img[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh, j * dw:j * dw + sw * (ow - 1) + 1:sw] += cols[:, :, i, j]
    r = np.ascontiguousarray(img[:, :, ph:ph + h, pw:pw + w])
    out = _wrap(r if a.ndim == 3 else r[0], self)
    return _record(_S.Col2ImBackward0, (self,), out, kernel_size=tuple(kernel_size), dilation=tuple(dilation),
                   padding=tuple(padding), stride=tuple(stride))
