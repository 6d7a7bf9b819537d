"""at::linear and at::bilinear (ATen/native/Linear.cpp), composed over torchlite's differentiable ops
in upstream's order, so they record the nodes torch records: AddmmBackward0 for a 2-d input with a
bias, ViewBackward0 over AddmmBackward0 for a contiguous input flattened to 2-d
(`_flatten_nd_linear`), matmul's chain (and AddBackward0 from the in-place bias add) otherwise."""
from .._C import TensorBase as _TB
from .BinaryOps import add, add_
from .LinearAlgebra import addmm, matmul
from .TensorShape import reshape, t, view
from .Trilinear import _trilinear


def _flatten_nd_linear(input, weight, bias):  # noqa: A002 - upstream's names
    """Linear.cpp's _flatten_nd_linear: input reshaped to (prod(leading), K), addmm, viewed back."""
    sizes = input._array.shape
    flattened = 1
    for s in sizes[:-1]:
        flattened *= s
    inp_reshape = reshape(input, (flattened, sizes[-1]))
    result = addmm(bias, inp_reshape, t(weight))
    return view(result, (*sizes[:-1], result._array.shape[1]))


def _tensor_args(name, **kwargs):
    """torch's parser refuses a number for these ops' Tensor arguments (torch._C._nn's binding)."""
    for position, (arg, value) in enumerate(kwargs.items(), 1):
        if not isinstance(value, _TB) and not (value is None and position > 2):
            raise TypeError(f"{name}(): argument '{arg}' (position {position}) must be Tensor, not "
                            f"{type(value).__name__}")


def linear(input, weight, bias=None):  # noqa: A002 - upstream's names
    _tensor_args("linear", input=input, weight=weight, bias=bias)
    input_dim, weight_dim = input._array.ndim, weight._array.ndim
    if input_dim == 0 or weight_dim == 0:
        raise RuntimeError("both arguments to linear need to be at least 1D, but they are "
                           f"{input_dim}D and {weight_dim}D")
    if input_dim == 2 and bias is not None:
        # the fused op (Linear.cpp: "Fused op is marginally faster")
        return addmm(bias, input, t(weight))
    if bias is not None and bias._array.ndim == 1 and input.is_contiguous():
        return _flatten_nd_linear(input, weight, bias)
    output = matmul(input, t(weight))
    if bias is not None:
        output = add_(output, bias)
    return output


# caffe2::TypeMeta's names of the dtypes (dtype().name() in TORCH_CHECK messages)
_TYPE_META_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
                    "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
                    "bool": "bool"}


def bilinear(input1, input2, weight, bias=None):
    """at::bilinear: y = x1^T A x2 + b, through _trilinear (TrilinearBackward0) as upstream."""
    a1, a2, w = input1._array, input2._array, weight._array
    if a1.ndim != a2.ndim:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {a1.ndim} and {a2.ndim}")
    if not a1.dtype == a2.dtype == w.dtype:
        names = [_TYPE_META_NAMES[a.dtype.name] for a in (a1, a2, w)]
        raise RuntimeError(f"All tensors must have the same dtype, got input1: {names[0]}, input2: {names[1]}, "
                           f"weight: {names[2]}")
    for i in range(a1.ndim - 1):
        if a1.shape[i] != a2.shape[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: got {a1.shape[i]} "
                               f"and {a2.shape[i]}")
    if a1.shape[-1] != w.shape[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {a1.shape[-1]} but expected "
                           f"{w.shape[1]}")
    if a2.shape[-1] != w.shape[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {a2.shape[-1]} but expected "
                           f"{w.shape[2]}")
    if bias is not None and bias._array.shape[-1] != w.shape[0]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {bias._array.shape[-1]} but "
                           f"expected {w.shape[0]}")
    # as upstream: both inputs flattened to 2-d (reshape: ViewBackward0), _trilinear (TrilinearBackward0),
    # the result viewed back, then the bias added
    output_size = (*a1.shape[:-1], w.shape[0])
    flat1 = reshape(input1, (-1, a1.shape[-1]))
    flat2 = reshape(input2, (-1, a2.shape[-1]))
    out = reshape(_trilinear(flat1, weight, flat2, [1, 3], [0], [1, 2], [2, 3]), output_size)
    if bias is not None:
        out = add(out, bias)
    return out
