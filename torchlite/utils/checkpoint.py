"""Activation checkpointing (torch/utils/checkpoint.py).

use_reentrant=True: CheckpointFunction runs the function under no_grad and,
in backward, recomputes it under enable_grad and calls autograd.backward on
the recomputed graph from inside the outer backward (the engine's reentrant
path, seed 004).

use_reentrant=False: the forward records its graph as usual, but every tensor
it saves for backward goes through saved_tensors_hooks (torchlite.autograd.graph)
that keep only a placeholder; the first unpack during backward reruns the
function and hands out the recomputed tensors.
"""
import collections
import contextlib
import uuid
import warnings
import weakref
from collections.abc import Callable
from typing import Any

from .. import _C, _backend
from .._tensor import Tensor
from ..autograd import Function, _is_checkpoint_valid, backward, enable_grad, is_grad_enabled, no_grad
from ..autograd.graph import saved_tensors_hooks

__all__ = ["checkpoint", "CheckpointFunction", "CheckpointError", "detach_variable", "check_backward_validity"]


def detach_variable(inputs):
    if isinstance(inputs, tuple):
        out = []
        for inp in inputs:
            if not isinstance(inp, Tensor):
                out.append(inp)
                continue
            x = inp.detach()
            x.requires_grad = inp.requires_grad
            out.append(x)
        return tuple(out)
    raise RuntimeError(
        f"Only tuple of tensors is supported. Got Unsupported input type: {type(inputs).__name__}")


def check_backward_validity(inputs):
    if not any(inp.requires_grad for inp in inputs if isinstance(inp, Tensor)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2)


def _get_rng_state():
    return _backend.generator().get_state()


@contextlib.contextmanager
def _fork_rng(enabled, state):
    """torch.random.fork_rng with the forward's state set inside: the
    recomputation draws the same random numbers, the caller's RNG is untouched."""
    if not enabled:
        yield
        return
    generator = _backend.generator()
    saved = generator.get_state()
    generator.set_state(state)
    try:
        yield
    finally:
        generator.set_state(saved)


class CheckpointFunction(Function):
    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        if preserve_rng_state:
            ctx.fwd_cpu_state = _get_rng_state()
        # Non-tensor arguments are kept as they are; tensors are saved.
        ctx.inputs = []
        ctx.tensor_indices = []
        tensor_inputs = []
        for i, arg in enumerate(args):
            if isinstance(arg, Tensor):
                tensor_inputs.append(arg)
                ctx.tensor_indices.append(i)
                ctx.inputs.append(None)
            else:
                ctx.inputs.append(arg)
        ctx.save_for_backward(*tensor_inputs)
        with no_grad():
            outputs = run_function(*args)
        return outputs

    @staticmethod
    def backward(ctx, *args):
        if not _is_checkpoint_valid():
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible"
                " with .grad() or passing an `inputs` parameter to .backward()."
                " To resolve this error, you can either set use_reentrant=False,"
                " or call .backward() without passing the `inputs` argument.")
        inputs = list(ctx.inputs)
        for i, idx in enumerate(ctx.tensor_indices):
            inputs[idx] = ctx.saved_tensors[i]
        with _fork_rng(ctx.preserve_rng_state, getattr(ctx, "fwd_cpu_state", None)):
            detached_inputs = detach_variable(tuple(inputs))
            with enable_grad():
                outputs = ctx.run_function(*detached_inputs)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        outputs_with_grad = []
        args_with_grad = []
        for i in range(len(outputs)):
            if isinstance(outputs[i], Tensor) and outputs[i].requires_grad:
                outputs_with_grad.append(outputs[i])
                args_with_grad.append(args[i])
        if len(outputs_with_grad) == 0:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        # The nested backward: runs reentrantly on this engine thread.
        backward(outputs_with_grad, args_with_grad)
        grads = tuple(inp.grad if isinstance(inp, Tensor) else None for inp in detached_inputs)
        return (None, None) + grads


def checkpoint(function: Callable[..., Any], *args: Any, use_reentrant: bool | None = None,
               determinism_check: str = "default", early_stop: bool = True, **kwargs: Any) -> Any:
    r"""Checkpoint a model or part of the model: tensors computed inside
    `function` are not kept for backward but recomputed by running `function`
    again during backward. Returns `function(*args)`."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be "
            "passed explicitly. Starting in PyTorch 2.9, calling checkpoint "
            "without use_reentrant will raise an exception. use_reentrant=False is "
            "recommended, but if you need to preserve the current default "
            "behavior, you can pass use_reentrant=True. Refer to docs for more "
            "details on the differences between the two variants.",
            stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        return CheckpointFunction.apply(function, preserve, *args)
    gen = _checkpoint_without_reentrant_generator(function, preserve, determinism_check, early_stop,
                                                  *args, **kwargs)
    next(gen)  # pre-forward: the hooks are installed
    ret = function(*args, **kwargs)
    try:
        next(gen)  # post-forward: the hooks are removed
    except StopIteration:
        return ret
    raise AssertionError("torch.utils.checkpoint: expected the generator to yield exactly once")


# Non-reentrant checkpointing ---------------------------------------------------------

class CheckpointError(RuntimeError):
    pass


class _StopRecomputationError(Exception):
    pass


class _Holder:
    """What the node keeps in place of a saved tensor: per graph task, the handle of
    the tensor that task's recomputation made for it (None once unpacked)."""

    def __init__(self):
        self.handles = {}


class _Handle:
    """The key of one recomputed tensor."""


def _default_meta_extractor(x):
    return {"shape": x.shape, "dtype": x.dtype, "device": x.device}


_allowed_determinism_checks_to_fns = {"default": _default_meta_extractor, "none": lambda _: None}


class _CheckpointFrame:
    """One checkpointed call: the placeholders its forward saved (in order)
    and, per graph task (`_C._current_graph_task_id()`), the tensors that task's
    recomputation produced for them. Each backward pass through the frame
    recomputes once, concurrent ones each their own, as torch's."""

    def __init__(self, recompute_fn, early_stop, metadata_fn):
        self.recompute_fn = recompute_fn
        self.early_stop = early_stop
        self.metadata_fn = metadata_fn
        self.saved_args = []
        self.weak_holders = []
        self.x_metadatas = []
        self.recomputed = collections.defaultdict(weakref.WeakKeyDictionary)
        self.recomp_counter = collections.defaultdict(int)
        self.is_recomputed = collections.defaultdict(bool)
        self.forward_completed = False
        self.ignore_saved_mismatch = False

    def check_recomputed_tensors_match(self, gid):
        if self.ignore_saved_mismatch:
            return
        if len(self.weak_holders) != self.recomp_counter[gid]:
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved "
                "during the original forward and recomputation.\n"
                f"Number of tensors saved during forward: {len(self.weak_holders)}\n"
                f"Number of tensors saved during recomputation: {self.recomp_counter[gid]}.\n")
        mismatched = ""
        for idx, weak_holder in enumerate(self.weak_holders):
            holder = weak_holder()
            if holder is None:
                continue
            recomputed_meta = self.metadata_fn(self.recomputed[gid][holder.handles[gid]])
            if self.x_metadatas[idx] != recomputed_meta:
                mismatched += (f"tensor at position {idx}:\n"
                               f"saved metadata: {self.x_metadatas[idx]}\n"
                               f"recomputed metadata: {recomputed_meta}\n")
        if mismatched:
            raise CheckpointError(
                "torch.utils.checkpoint: Recomputed values for the following tensors "
                f"have different metadata than during the forward pass.\n{mismatched}.\n")


class _recomputation_hook(saved_tensors_hooks):
    """Active while the function reruns: the i-th saved tensor fills the i-th placeholder."""

    def __init__(self, frame, gid):
        def pack_hook(x):
            x = x.detach() if x.requires_grad else x
            recomp_idx = frame.recomp_counter[gid]
            frame.recomp_counter[gid] += 1
            if recomp_idx >= len(frame.weak_holders):
                if not frame.forward_completed:
                    frame.ignore_saved_mismatch = True
                    return x
                raise CheckpointError("torch.utils.checkpoint: trying to save more tensors during "
                                      "recomputation than during the original forward pass.\n")
            holder = frame.weak_holders[recomp_idx]()
            if holder is not None:
                holder.handles[gid] = _Handle()
                frame.recomputed[gid][holder.handles[gid]] = x
            if frame.early_stop and frame.recomp_counter[gid] == len(frame.weak_holders):
                raise _StopRecomputationError
            return x

        super().__init__(pack_hook, lambda x: x)


class _checkpoint_hook(saved_tensors_hooks):
    """Active during the original forward: saves placeholders, recomputes on unpack."""

    def __init__(self, frame):
        def pack_hook(x):
            holder = _Holder()
            frame.weak_holders.append(weakref.ref(holder))
            with no_grad():
                frame.x_metadatas.append(frame.metadata_fn(x))
            return holder

        def unpack_hook(holder):
            gid = _C._current_graph_task_id()
            if gid == -1:  # unpacked outside a backward: a graph task of its own
                gid = int(uuid.uuid4())
            if not frame.is_recomputed[gid]:
                try:
                    with _recomputation_hook(frame, gid), enable_grad():
                        frame.recompute_fn(*frame.saved_args)
                except _StopRecomputationError:
                    pass
                frame.is_recomputed[gid] = True
                frame.check_recomputed_tensors_match(gid)
            if holder.handles[gid] is None:
                raise CheckpointError(
                    "torch.utils.checkpoint: Unpack is being triggered for a tensor that was already unpacked once. "
                    "If you are calling ctx.saved_tensors in backward, make sure to do so only once. Otherwise "
                    "please open an issue with details on your use case.")
            ret = frame.recomputed[gid][holder.handles[gid]]
            holder.handles[gid] = None
            return ret

        super().__init__(pack_hook, unpack_hook)


def _checkpoint_without_reentrant_generator(fn, preserve_rng_state=True, determinism_check="default",
                                            early_stop=True, *args, **kwargs):
    if determinism_check not in _allowed_determinism_checks_to_fns:
        raise ValueError(f"determinism_check should be one of {list(_allowed_determinism_checks_to_fns.keys())}, "
                         f"but got {determinism_check}")
    metadata_fn = _allowed_determinism_checks_to_fns[determinism_check]
    fwd_cpu_state = _get_rng_state() if preserve_rng_state else None

    def recompute_fn(*inputs):
        with _fork_rng(preserve_rng_state, fwd_cpu_state):
            fn(*inputs, **kwargs)

    new_frame = _CheckpointFrame(recompute_fn, early_stop, metadata_fn)
    if not is_grad_enabled():
        yield
        return
    # torch saves the inputs through an autograd Function (_NoopSaveInputs), so an
    # inference tensor among them is refused as any saved inference tensor is
    if any(isinstance(a, Tensor) and a.is_inference() for a in args):
        raise RuntimeError(
            "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode "
            "in computation tracked by autograd. To work around this, you can make a clone to get a normal tensor "
            "and use it in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`.")
    new_frame.saved_args = list(args)
    with _checkpoint_hook(new_frame):
        yield
    new_frame.forward_completed = True

