"""torch.optim.Adadelta (upstream torch/optim/adadelta.py): _single_tensor_adadelta's operations in
its order. foreach=True is accepted and runs this loop."""

from ._common import check_lr, new_step, upgrade_steps
from .optimizer import (Optimizer, _get_capturable_supported_devices, _to_scalar, _use_grad_for_differentiable,
                        _zeros_state)

__all__ = ["Adadelta", "adadelta"]


class Adadelta(Optimizer):
    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "capturable": capturable, "foreach": foreach, "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        upgrade_steps(self, {"foreach": None, "maximize": False, "differentiable": False, "capturable": False})

    def _init_group(self, group, params_with_grad, grads, square_avgs, acc_deltas, state_steps):
        def new_state(p):
            return {"step": new_step(p, group["capturable"]), "square_avg": _zeros_state(p),
                    "acc_delta": _zeros_state(p)}
        self._collect_group(group, params_with_grad, grads,
                            {"square_avg": square_avgs, "acc_delta": acc_deltas, "step": state_steps}, new_state)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        self._accelerator_graph_capture_health_check()
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            params_with_grad, grads, square_avgs, acc_deltas, state_steps = self._group_lists(group, 5)
            adadelta(params_with_grad, grads, square_avgs, acc_deltas, state_steps, lr=group["lr"],
                     rho=group["rho"], eps=group["eps"], weight_decay=group["weight_decay"],
                     maximize=group["maximize"], differentiable=group["differentiable"],
                     capturable=group["capturable"])
        return loss


def adadelta(params, grads, square_avgs, acc_deltas, state_steps, capturable=False, differentiable=False, *,
             lr, rho, eps, weight_decay, maximize):
    """Functional Adadelta: upstream's _single_tensor_adadelta."""
    if capturable:
        supported = _get_capturable_supported_devices(supports_xla=False)
        if not all(p.device.type == s.device.type and p.device.type in supported
                   for p, s in zip(params, state_steps, strict=True)):
            raise AssertionError(
                f"If capturable=True, params and state_steps must be on supported devices: {supported}.")
    lr = _to_scalar(lr)
    for param, grad, square_avg, acc_delta, step in zip(params, grads, square_avgs, acc_deltas, state_steps,
                                                         strict=True):
        step += 1
        grad = grad if not maximize else -grad
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = acc_delta.add(eps).sqrt_()
        if differentiable:
            delta = delta.clone()
        delta.div_(std).mul_(grad)
        acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
        param.add_(delta, alpha=-lr)
