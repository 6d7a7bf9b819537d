"""The torch names that the seq family's files (nn.functional's attention, nn.modules.rnn,
_rnn_impl, transformer, nn.utils.rnn) call as `torch.<name>`, taken from where torchlite defines
them: importing the torchlite package itself from inside it would be an import cycle."""
from .. import _C, _dtypes
from .._factories import arange, as_tensor, empty, empty_like, full, ones, tensor, zeros, zeros_like  # noqa: F401
from .._generated.torch_functions import (  # noqa: F401
    _safe_softmax, baddbmm, bmm, cat, matmul, mkldnn_rnn_layer, relu, sort, stack, tanh, tril, triu, where)
from .._tensor import Tensor  # noqa: F401

is_grad_enabled = _C.is_grad_enabled
bool = _dtypes.bool  # noqa: A001 - torch's dtype names
float32 = _dtypes.float32
float = _dtypes.float32  # noqa: A001
double = _dtypes.float64
half = _dtypes.float16
int64 = _dtypes.int64
long = _dtypes.int64
int = _dtypes.int32  # noqa: A001
short = _dtypes.int16
int8 = _dtypes.int8
uint8 = _dtypes.uint8
