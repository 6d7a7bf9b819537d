"""Pieces the single-tensor optimizers share: the argument checks every one of them makes, the
`step` counter's creation, and __setstate__'s old-checkpoint upgrade of a number `step` to a tensor
(upstream repeats these in each file)."""
from . import _api as _torch
from torchlite._tensor import Tensor

from .optimizer import _get_scalar_dtype


def check_lr(lr):
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


def check_betas(betas):
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")


def new_step(p, on_device, value=0.0):
    """A 0-d `step` counter: on the parameter's device for capturable groups, else on the CPU."""
    if on_device:
        return _torch.full((), value, dtype=_get_scalar_dtype(), device=p.device)
    return _torch.tensor(value, dtype=_get_scalar_dtype())


def upgrade_steps(opt, defaults):
    """__setstate__: each group's missing options set to `defaults`, and a number `step` (an old
    checkpoint's) made a tensor."""
    for group in opt.param_groups:
        for k, v in defaults.items():
            group.setdefault(k, v)
        for p in group["params"]:
            p_state = opt.state.get(p, [])
            if len(p_state) != 0 and not _torch.is_tensor(p_state["step"]):
                p_state["step"] = new_step(p, group.get("capturable", False), float(p_state["step"]))
