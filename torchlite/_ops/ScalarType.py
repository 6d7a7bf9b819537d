"""torchlite's dtypes (c10/core/ScalarType.h): their names in torch's
messages, and a number's checked conversion to one (c10's checked_convert,
Scalar::to)."""
import builtins

import numpy as np

from .. import _dtypes

_f32 = np.dtype(np.float32)
_f64 = np.dtype(np.float64)
_f16 = np.dtype(np.float16)
_b1 = np.dtype(np.bool_)
_i64 = np.dtype(np.int64)
_i32 = np.dtype(np.int32)
_i16 = np.dtype(np.int16)
_i8 = np.dtype(np.int8)
_u8 = np.dtype(np.uint8)

# the integer dtypes narrower than int64, whose arithmetic wraps a Python number first
_SMALL_INTS = frozenset((_i32, _i16, _i8, _u8))


def _default_float():
    """The numpy dtype of torch.get_default_dtype() (float32 unless set_default_dtype changed it)."""
    return _dtypes._default[0]._np


_F32_MAX = float(np.finfo(np.float32).max)


def _checked_number(x, dtype):
    """c10::checked_convert of a number torch converts to the result dtype (alpha, where's
    numbers): a finite float beyond float32's range is an error, not inf; beyond a small
    integer dtype's range too. (float16 is not checked here: where's number becomes inf;
    add's alpha checks it, _alpha_check.)"""
    if dtype == _f32 and isinstance(x, float) and _F32_MAX < builtins.abs(x) < float("inf"):
        raise RuntimeError("value cannot be converted to type float without overflow")
    if dtype in _SMALL_INTS and not isinstance(x, (bool, complex)):
        _check_narrow(x, dtype)


_TORCH_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long", "int32": "Int",
                "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}


def _torch_type_name(np_dtype):
    return _TORCH_NAMES[np_dtype.name]


def _tensor_type_name(np_dtype):
    return f"torch.{_torch_type_name(np_dtype)}Tensor"


def _expand_type_name(np_dtype):
    """The type at::expand's errors print (Tensor::toString): the legacy tensor type
    name, which bool has not."""
    return "CPUBoolType" if np_dtype == _b1 else _tensor_type_name(np_dtype)


def _scalar_value(x, dtype):
    """A number as c10's Scalar::to<T> converts it to `dtype` (checked_convert): beyond
    int64's range or float32's (inf and nan pass to a float), or nan to int64, is an
    error; any number converts to bool."""
    if dtype == _b1:
        return np.bool_(bool(x))
    if isinstance(x, complex):
        if x.imag:
            raise RuntimeError(f"value cannot be converted to type {_C_TYPE[dtype]} without overflow")
        x = x.real
    if dtype == _i64 and isinstance(x, int) and not -2 ** 63 <= x < 2 ** 63:
        raise RuntimeError("value cannot be converted to type int64_t without overflow")
    if dtype == _i64 and isinstance(x, float):
        if not -2.0 ** 63 <= x <= 2.0 ** 63:  # nan too
            raise RuntimeError("value cannot be converted to type int64_t without overflow")
        return np.int64(int(x) if x < 2.0 ** 63 else -2 ** 63)  # 2**63 casts to int64's lowest, as in C++
    if dtype == _f32 and isinstance(x, float) and _F32_MAX < builtins.abs(x) < float("inf"):
        raise RuntimeError("value cannot be converted to type float without overflow")
    if dtype in _NARROW:
        _check_narrow(x, dtype)
        if dtype.kind in "iu":
            return _wrap_int(int(x), dtype)  # -1 to uint8 is 255, as c10's conversion wraps
    return dtype.type(x)


_C_TYPE = {_i64: "int64_t", _f32: "float", _f64: "double", _f16: "c10::Half", _i32: "int", _i16: "int16_t",
           _i8: "int8_t", _u8: "uint8_t"}

# c10::overflows' limits of the dtypes narrower than the Python number's C++ type
_NARROW = {_f16: (-65504.0, 65504.0), _i32: (-2 ** 31, 2 ** 31 - 1), _i16: (-2 ** 15, 2 ** 15 - 1),
           _i8: (-128, 127), _u8: (0, 255)}


def _check_narrow(x, dtype):
    """c10::overflows for a number converted to float16 or a small integer: an integer
    beyond the range (into uint8, a negative one down to -255 wraps, as two's complement);
    a float beyond the range, or nan into an integer (inf into float16 passes)."""
    lo, hi = _NARROW[dtype]
    if isinstance(x, float) or isinstance(x, np.floating):
        if dtype == _f16 and (x != x or builtins.abs(x) == float("inf")):
            return
        bad = not lo <= x <= hi  # nan too
    elif dtype == _u8:
        bad = x > hi or x < -hi
    else:
        bad = not lo <= x <= hi
    if bad:
        raise RuntimeError(f"value cannot be converted to type {_C_TYPE[dtype]} without overflow")


def _wrap_int(x, dtype):
    """A Python int as a value of integer `dtype`, wrapped as C++'s conversion wraps it (int8 + 1000 is -24)."""
    bits = dtype.itemsize * 8
    x &= (1 << bits) - 1
    if dtype.kind == "i" and x >= 1 << (bits - 1):
        x -= 1 << bits
    return dtype.type(x)
