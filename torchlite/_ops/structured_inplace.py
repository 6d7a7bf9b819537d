"""In-place variants made from their functional kernels (Note [Structured in-place
variants]).

Upstream declares `exp_` in native_functions.yaml with `structured_delegate: exp.out`:
one structured kernel computes into the functional result, into `out`, or into
self, and VariableType's in-place kernel wraps it with autograd's in-place rules.
Here a schema with `structured_delegate` gets `inplace_variant(functional, self,
args, kwargs)` (tools/autograd/gen_autograd.py), which runs, in upstream's order:
check_inplace (a leaf that requires grad, a view of a no_grad / multi-output
op); TensorIterator's overlap checks on self; the functional kernel with its
node's recording captured (_C._capture_records); the shape and
cast checks of writing the result into self ("output with shape ... doesn't
match the broadcast shape", "result type Float can't be cast to the desired
output type Long"); the node with the fields the functional kernel named, where
`self` is the original self (a differentiable clone, upstream's original_self)
and `result` self after the write; the write, the version bump and
rebase_history (Note [View + Inplace update for base tensor]).
"""
import numpy as np

from .. import _C
from .._C import _inplace_node, _rebase_history, _wrap
from .MemoryOverlap import _check_overlap
from .ScalarType import _torch_type_name
from .TensorFactories import clone
from .TensorIterator import _TB, _loud, _quiet, _sequential
from . import mutation as _mutation
from .int_zero_division import partial_of, write_prefix


def _can_cast(src, dst):
    """c10::canCast: no float to integral or bool, no integral to bool."""
    if src.kind == "f":
        return dst.kind == "f"
    if src.kind in "iu":
        return dst.kind != "b"
    return True


def inplace_variant(functional, self, args, kwargs):
    """self.<op>_(*args, **kwargs) from the functional kernel `functional`."""
    others = [a for a in (*args, *kwargs.values()) if isinstance(a, _TB)]
    if self.is_inference() and all(t.is_inference() for t in others) and not _C._is_inference_mode_enabled():
        # inference tensors only: no operand has the Autograd key, so torch runs the kernel below
        # autograd (no check_inplace, no node), writes, and the version bump refuses afterwards
        # ("Inplace update to inference tensor outside InferenceMode", VariableVersion::bump)
        grad = False
    else:
        grad = _C.is_grad_enabled() and (self.requires_grad or any(t.requires_grad for t in others))
        _C._check_inplace(self, grad)
    a = self._array
    meta = getattr(functional, "inplace_meta", None)
    if meta is not None:
        # the checks of the op's meta function where its output is self (cumsum_'s dtype), and of its
        # kernel before a TensorIterator is built (cumsum_'s dispatch on a bool self)
        kwargs = meta(self, *args, **kwargs) or kwargs
    if getattr(functional, "check_mem_overlap", True):
        _check_overlap(a)
    sequential = [i for i, x in enumerate(args) if isinstance(x, _TB) and _check_overlap(a, x._array)]
    captured = []
    previous = _C._capture_records(captured)
    try:
        result = functional(self, *args, **kwargs)
    except RuntimeError as err:
        partial = partial_of(err)
        if partial is None:
            raise
        _C._capture_records(previous)
        _zero_division_prefix(self, a, partial, functional, args, kwargs, sequential)
        raise
    finally:
        _C._capture_records(previous)
    r = result._array
    if r.shape != a.shape:
        raise RuntimeError(f"output with shape {list(a.shape)} doesn't match the broadcast shape {list(r.shape)}")
    if not _can_cast(r.dtype, a.dtype):
        raise RuntimeError(f"result type {_torch_type_name(r.dtype)} can't be cast to the desired output type "
                           f"{_torch_type_name(a.dtype)}")
    if len(captured) != 1 or captured[0][4] is not result:
        raise AssertionError(f"{functional.__name__}: a structured in-place variant needs a kernel that records "
                             f"one node, its result's ({len(captured)} recorded)")
    spec, inputs, with_number, fields, _ = captured[0]
    after = {}
    for name, value in list(fields.items()):
        if value is result:
            after[name] = self
            del fields[name]
        elif value is self:
            # upstream's original_self: the value before the write, differentiable
            fields[name] = clone(self) if grad else None
    node = _inplace_node(spec, inputs, with_number, **fields) if grad else None
    if sequential:
        # memory shared with an operand in a way torch does not check: element by element, in
        # TensorIterator's order, each reading what the earlier ones wrote (one operand at a time)
        if _mutation.hook is not None:
            _mutation.hook(self)
        _run_sequential(a, functional, args, kwargs, sequential[0])
    else:
        if _mutation.hook is not None:
            _mutation.hook(self)
        token = _quiet()
        try:
            np.copyto(a, r, casting="unsafe")
        finally:
            _loud(token)
    self._bump_version()
    return _rebase_history(self, node, **after)


def _zero_division_prefix(self, a, partial, functional, args, kwargs, sequential):
    """An integer kernel met a zero divisor: what torch's loop wrote into self before it (Note [Integer
    division by zero writes a prefix]); nothing where the computation's dtype is not self's. The caller
    raises the error; self's version is not bumped, as torch's increment_version comes after the kernel."""
    kernel, operands = partial
    dtype = np.result_type(*operands)
    shape = np.broadcast_shapes(*(np.shape(x) for x in operands))
    if not _can_cast(dtype, a.dtype):
        # TensorIterator's check of the cast into self comes before the kernel
        raise RuntimeError(f"result type {_torch_type_name(dtype)} can't be cast to the desired output type "
                           f"{_torch_type_name(a.dtype)}") from None
    if dtype != a.dtype or shape != a.shape:
        return
    if _mutation.hook is not None:
        _mutation.hook(self)
    if sequential:
        # an operand sharing self's memory in a way torch does not check: element by element (each
        # reading what the earlier ones wrote), which stops at the zero with the error
        try:
            _run_sequential(a, functional, args, kwargs, sequential[0])
        except RuntimeError:
            pass
        return
    write_prefix(partial, a)


def _run_sequential(a, functional, args, kwargs, position):
    """The kernel element by element into `a`, in TensorIterator's order, each reading what the earlier
    ones wrote (the operand at `position` shares a's memory)."""
    def element(x, y):
        operands = list(args)
        operands[position] = _wrap(np.asarray(y))
        return functional(_wrap(np.asarray(x)), *operands, **kwargs)._array

    captured = []
    previous = _C._capture_records(captured)
    try:
        _sequential(element, a, args[position]._array)
    finally:
        _C._capture_records(previous)
