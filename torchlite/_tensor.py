"""torchlite.Tensor (torch/_tensor.py): the Python half of the tensor.

The C half, torchlite._C.TensorBase, holds the C++ tensor and provides the
autograd attributes (requires_grad, grad, grad_fn, is_leaf, _version) and
`_array`, the numpy array over the same memory. Ops live in the _ops package.
"""
import functools
import warnings

import numpy as np

from . import _C, _backend, _memory_format, _ops, _tensor_outside, _tensor_str, _tensor_utilities, autograd
from ._generated.variable_methods import _TensorMethods
from ._ops.python_arg_parser import _entry, _operator
from ._dtypes import Size, _from_numpy_dtype, device as _device


_TensorBase_grad = _C.TensorBase.__dict__["grad"]


_warned: set[str] = set()


def _warn_once(message):
    """torch's TORCH_WARN_ONCE: `message` warns once per process."""
    if message in _warned:
        return
    _warned.add(message)
    warnings.warn(message, UserWarning, stacklevel=3)


def _warn_T_once():
    """torch deprecates .T on a tensor that is not 2-D."""
    _warn_once("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated "
               "and it will throw an error in a future release. Consider `x.mT` to transpose batches of "
               "matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a "
               "tensor.")


def _warn_0d(name):
    """torch deprecates the matrix transposes of a 0-d tensor, where they are the identity
    (TensorShape.cpp): the transposes say so, the conjugating ones point to conj()."""
    tail = "This function is the identity in these cases." if name in ("Tensor.T", "Tensor.mT") else \
        "Consider using x.conj()."
    _warn_once(f"{name} is deprecated on 0-D tensors. {tail}")


class Tensor(_C.TensorBase, _TensorMethods):
    # the tensor this one is a view of (set by view ops)
    _base = property(_C._view_base)

    def __new__(cls, *args, **kwargs):
        """torchlite.Tensor(...): the legacy constructor of float32 tensors (torchlite/_legacy.py)."""
        if cls is not Tensor:
            return super().__new__(cls, *args, **kwargs)  # refused: tensors are made by factories
        return _legacy.legacy_new(_dtypes.float32, False, args, kwargs)
    def _is_view(self):
        """Whether this tensor is a view of another (torch's Tensor._is_view)."""
        return _C._view_base(self) is not None

    # Attributes ------------------------------------------------------------------
    @property
    def shape(self):
        return Size(self._array.shape)

    def size(self, dim=None):
        shape = self._array.shape
        if dim is None:
            return Size(shape)
        return shape[_ops._wrap_dim(_ops._int_arg("size", "dim", 1, dim), len(shape), wrap_scalar=False)]

    def dim(self):
        return self._array.ndim

    ndim = property(dim)

    def numel(self):
        return self._array.size

    def nelement(self):
        return self._array.size

    def element_size(self):
        return self._array.itemsize

    @property
    def itemsize(self):
        return self._array.itemsize

    @property
    def nbytes(self):
        return self._array.size * self._array.itemsize

    def is_floating_point(self):
        return self._array.dtype.kind == "f"

    def is_complex(self):
        return False  # torchlite has no complex dtypes

    def is_signed(self):
        return self._array.dtype.kind in "fi"

    @property
    def dtype(self):
        return _from_numpy_dtype(self._array.dtype)

    @property
    def device(self):
        return _device(self._device_str)

    @property
    def is_cuda(self):
        return self.device.type == "cuda"

    @property
    def data(self):
        return self._data

    @data.setter
    def data(self, value):
        # x takes value's storage and metadata, invisible to autograd (VariableHooks::set_data)
        self._data = value

    def is_contiguous(self, memory_format=_memory_format.contiguous_format):
        if memory_format is _memory_format.contiguous_format:
            return self._array.flags.c_contiguous
        return _tensor_utilities.is_contiguous(self, memory_format)

    # issue 13 (utilities): torchlite/_tensor_utilities.py
    type = _tensor_utilities.type_
    new_tensor = _tensor_utilities.new_tensor
    new_full = _tensor_utilities.new_full
    new_empty = _tensor_utilities.new_empty
    new_zeros = _tensor_utilities.new_zeros
    new_ones = _tensor_utilities.new_ones
    apply_ = _tensor_utilities.apply_
    data_ptr = _tensor_utilities.data_ptr
    __deepcopy__ = _tensor_utilities.deepcopy
    # outside programs (s21): torchlite/_tensor_outside.py
    locals().update(_tensor_outside.PROPERTIES)
    layout = _tensor_outside.layout
    get_device = _tensor_outside.get_device
    ndimension = _tensor_outside.ndimension

    def __reduce_ex__(self, proto):
        return _tensor_utilities.reduce_ex(self, proto)

    def detach_(self):
        if self._base is not None:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel (DDP) "
                "for training, and gradient_as_bucket_view is set as True, gradients are views of DDP buckets, and "
                "hence detach_() cannot be called on these gradients. To fix this error, please refer to the "
                "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.")
        return _C.TensorBase.detach_(self)

    @property
    def T(self):
        n = self._array.ndim
        if n not in (0, 2):  # (TensorShape.cpp's numpy_T: a 0-d tensor has its own warning)
            _warn_T_once()
        if n == 0:
            _warn_0d("Tensor.T")
        return _ops.permute(self, tuple(range(n - 1, -1, -1)))

    def _matrix_transpose(self, name):
        """mT, mH, adjoint() (real dtypes only: no conjugation). A 0-d tensor is its own transpose."""
        n = self._array.ndim
        if n == 0:
            _warn_0d("adjoint()" if name == "adjoint()" else "Tensor." + name)
            return self
        if n < 2:
            raise RuntimeError(f"tensor.{name} is only supported on matrices or batches of matrices. Got {n}-D tensor.")
        return _ops.transpose(self, -2, -1)

    mT = property(lambda self: self._matrix_transpose("mT"))
    mH = property(lambda self: self._matrix_transpose("mH"))

    def adjoint(self):
        return self._matrix_transpose("adjoint()")

    @property
    def H(self):
        n = self._array.ndim
        if n == 0:
            _warn_0d("Tensor.H")
            return self
        if n != 2:
            hint = " For batches of matrices, consider using tensor.mH" if n > 2 else ""
            raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {n}-D tensor.{hint}")
        return _ops.transpose(self, 0, 1)

    # Autograd --------------------------------------------------------------------
    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def requires_grad_(self, requires_grad=True):
        if not self.is_leaf:
            # torch refuses only requires_grad_(False) here (the setter refuses both):
            # a non-leaf already requires grad
            if not requires_grad:
                self.requires_grad = False  # raises torch's error
            return self
        if requires_grad and self._array.dtype.kind != "f":
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self.requires_grad = requires_grad
        return self

    @property
    def grad(self):
        g = _TensorBase_grad.__get__(self)
        if g is None and not self.is_leaf and not self.retains_grad:
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute "
                "won't be populated during autograd.backward(). If you indeed want the .grad field to be populated "
                "for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf "
                "Tensor by mistake, make sure you access the leaf Tensor instead. See "
                "github.com/pytorch/pytorch/pull/30531 for more information.", UserWarning, stacklevel=2)
        return g

    @grad.setter
    def grad(self, value):
        if isinstance(value, Tensor) and value is not self:
            # torch's checks, in its order and words, before the C++ setter's own
            if value._array.dtype != self._array.dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{_dtypes._c_type_name(value._array.dtype)}' to a "
                    f"tensor with grad_dtype '{_ops._torch_type_name(self._array.dtype)}'. The gradient must match "
                    "the tensor's grad_dtype (defaults to the tensor's dtype). You can set the tensor's grad_dtype "
                    "attribute with a specific dtype, or None to allow any dtype. Set grad_dtype with caution. "
                    "Diverging the dtypes of a tensor and its gradient may break downstream systems that assume "
                    "they match.")
            if value._array.shape != self._array.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value._array.shape)}' to a tensor of size "
                    f"'{list(self._array.shape)}'. Please ensure that the gradient and the tensor are the same size")
        _TensorBase_grad.__set__(self, value)

    def register_hook(self, hook):
        return _C._register_tensor_hook(self, hook)

    def register_post_accumulate_grad_hook(self, hook):
        @functools.wraps(hook)
        def post_accumulate_grad_hook(tensor):
            hook(tensor)  # torch ignores what the hook returns
        return _C._register_post_accumulate_grad_hook(self, post_accumulate_grad_hook)

    # Conversion ------------------------------------------------------------------
    def numpy(self, *, force=False):
        if self.requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. "
                               "Use tensor.detach().numpy() instead.")
        if self._device_str.startswith("cuda"):
            if force:
                return self._array.get()
            raise TypeError(f"can't convert {self._device_str} device type tensor to numpy. Use Tensor.cpu() to "
                            "copy the tensor to host memory first.")
        return self._array.view()

    def __array__(self, dtype=None, copy=None):
        arr = self.numpy()
        return arr if dtype is None else arr.astype(dtype, copy=False)

    def item(self):
        a = self._array
        if a.size != 1:
            raise RuntimeError(f"a Tensor with {a.size} elements cannot be converted to Scalar")
        return a.item()

    def tolist(self):
        return _backend.to_host(self._array).tolist()

    def cpu(self):
        return _ops.to(self, device="cpu")

    def cuda(self, device=None):
        if device is None:
            device = "cuda"
        elif isinstance(device, int):
            device = f"cuda:{device}"
        dev = _backend.check_device(device)
        if dev.type != "cuda":
            raise RuntimeError("Invalid device, must be cuda device")
        return _ops.to(self, device=dev)

    @property
    def __cuda_array_interface__(self):
        """The CUDA array interface of a cuda tensor's memory (what cupy and numba read)."""
        if not self._device_str.startswith("cuda"):
            raise AttributeError(f"Can't get __cuda_array_interface__ on non-CUDA tensor type: "
                                 f"torch.{_ops._torch_type_name(self._array.dtype)}Tensor If CUDA data is required "
                                 "use tensor.cuda() to copy tensor to device memory.")
        if self.requires_grad:
            raise RuntimeError("Can't get __cuda_array_interface__ on Variable that requires grad. If gradients "
                               "aren't required, use var.detach() to get Variable that doesn't require grad.")
        return self._array.__cuda_array_interface__

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule over the tensor's memory (its numpy or cupy array exports it)."""
        if self.requires_grad:
            raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
        if stream is None or not self._device_str.startswith("cuda"):
            return self._array.__dlpack__()
        return self._array.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()

    to = _ops.to

    def float(self):
        return _ops.to(self, dtype=_dtypes.float32)

    def double(self):
        return _ops.to(self, dtype=_dtypes.float64)

    def long(self):
        return _ops.to(self, dtype=_dtypes.int64)

    def bool(self):
        return _ops.to(self, dtype=_dtypes.bool)

    def half(self):
        return _ops.to(self, dtype=_dtypes.float16)

    def int(self):
        return _ops.to(self, dtype=_dtypes.int32)

    def short(self):
        return _ops.to(self, dtype=_dtypes.int16)

    def char(self):
        return _ops.to(self, dtype=_dtypes.int8)

    def byte(self):
        return _ops.to(self, dtype=_dtypes.uint8)

    def type_as(self, other):
        return _ops.to(self, dtype=other.dtype)

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        if self._array.dtype.kind not in "iu":
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __bool__(self):
        a = self._array
        if a.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(a.item())

    def __len__(self):
        shape = self._array.shape
        if not shape:
            raise TypeError("len() of a 0-d tensor")
        return shape[0]

    def __iter__(self):
        if not self._array.shape:
            raise TypeError("iteration over a 0-d tensor")
        return (_ops.getitem_raw(self, i) for i in range(self._array.shape[0]))

    def __hash__(self):
        return id(self)  # torch's Tensor.__hash__

    def __repr__(self, *, tensor_contents=None):
        return _tensor_str._str(self, tensor_contents)

    __str__ = __repr__

    def __format__(self, spec):
        if self._array.ndim == 0:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    # Ops ------------------------------------------------------------------------
    __add__ = _operator("__add__", _ops.add)
    __radd__ = _operator("__radd__", _ops.add)
    __sub__ = _operator("__sub__", _ops.sub)
    __rsub__ = _ops.rsub
    __mul__ = _operator("__mul__", _ops.mul)
    __rmul__ = _operator("__rmul__", _ops.mul)
    __truediv__ = _operator("__truediv__", _ops.div)
    __rtruediv__ = _ops.rdiv
    __neg__ = _operator("__neg__", _ops.neg)
    __pos__ = _ops.positive
    __pow__ = _ops.pow
    __rpow__ = _ops.rpow
    __matmul__ = _operator("__matmul__", _ops.matmul_operator)
    __rmatmul__ = _ops.rmatmul
    __floordiv__ = _ops.operator(_ops.floor_divide)
    __rfloordiv__ = _ops.operator(_ops.rfloordiv)
    __mod__ = _ops.operator(_ops.remainder)
    __rmod__ = _ops.operator(_ops.rremainder)
    __and__ = __rand__ = _ops.operator(_ops.bitwise_and)
    __or__ = __ror__ = _ops.operator(_ops.bitwise_or)
    __xor__ = __rxor__ = _ops.operator(_ops.bitwise_xor)
    __lshift__ = _ops.operator(_ops.bitwise_left_shift)
    __rlshift__ = _ops.operator(_ops.rlshift)
    __rshift__ = _ops.operator(_ops.bitwise_right_shift)
    __rrshift__ = _ops.operator(_ops.rrshift)
    __invert__ = _ops.invert
    __ifloordiv__ = _ops.inplace_operator("floor_divide_")
    __imod__ = _ops.inplace_operator("remainder_")
    __iand__ = _ops.inplace_operator("bitwise_and_")
    __ior__ = _ops.inplace_operator("bitwise_or_")
    __ixor__ = _ops.inplace_operator("bitwise_xor_")
    __ilshift__ = _ops.inplace_operator("bitwise_left_shift_")
    __irshift__ = _ops.inplace_operator("bitwise_right_shift_")
    __abs__ = _ops.abs
    __getitem__ = _entry("__getitem__", _ops.getitem)
    __setitem__ = _ops.setitem
    __delitem__ = _ops.delitem
    __iadd__ = _operator("__iadd__", _ops.add_)
    __isub__ = _operator("__isub__", _ops.sub_)
    __imul__ = _operator("__imul__", _ops.mul_)
    __itruediv__ = _operator("__itruediv__", _ops.div_)
    stride = _ops.stride

    def expand_as(self, other):
        return _ops.expand(self, other._array.shape)

    def view_as(self, other):
        return _ops.view(self, other._array.shape)

    def reshape_as(self, other):
        return _ops.reshape(self, other._array.shape)

    def __eq__(self, other):
        return _ops._compare(np.equal, self, other)

    def __ne__(self, other):
        return _ops._compare(np.not_equal, self, other)

    def __lt__(self, other):
        return _ops._compare(np.less, self, other)

    def __le__(self, other):
        return _ops._compare(np.less_equal, self, other)

    def __gt__(self, other):
        return _ops._compare(np.greater, self, other)

    def __ge__(self, other):
        return _ops._compare(np.greater_equal, self, other)



from . import _dtypes  # noqa: E402 - the dtype conversions above use it at call time
from . import _legacy  # noqa: E402 - Tensor(...) calls it; it imports the factories, which come after Tensor

_C._set_tensor_class(Tensor)
