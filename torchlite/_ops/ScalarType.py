"""torchlite's four dtypes (c10/core/ScalarType.h): their names in torch's
messages, and a number's checked conversion to one (c10's checked_convert,
Scalar::to)."""
import builtins

import numpy as np


_f32 = np.dtype(np.float32)
_f64 = np.dtype(np.float64)
_b1 = np.dtype(np.bool_)
_i64 = np.dtype(np.int64)


_F32_MAX = float(np.finfo(np.float32).max)


def _checked_number(x, dtype):
    """c10::checked_convert of a number torch converts to the result dtype (alpha, where's
    numbers): a finite float beyond float32's range is an error, not inf."""
    if dtype == _f32 and isinstance(x, float) and _F32_MAX < builtins.abs(x) < float("inf"):
        raise RuntimeError("value cannot be converted to type float without overflow")


def _torch_type_name(np_dtype):
    return {"float32": "Float", "float64": "Double", "int64": "Long", "bool": "Bool"}[np_dtype.name]


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
    return dtype.type(x)


_C_TYPE = {_i64: "int64_t", _f32: "float", _f64: "double"}
