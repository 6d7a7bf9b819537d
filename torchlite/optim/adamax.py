"""torch.optim.Adamax (upstream torch/optim/adamax.py): _single_tensor_adamax's operations in its
order. foreach=True is accepted and runs this loop."""
from . import _api as _torch

from ._common import check_betas, check_lr, new_step, upgrade_steps
from .optimizer import Optimizer, _check_capturable, _get_value, _to_scalar, _use_grad_for_differentiable, _zeros_state

__all__ = ["Adamax", "adamax"]


class Adamax(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        check_lr(lr)
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        check_betas(betas)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        upgrade_steps(self, {"foreach": None, "maximize": False, "differentiable": False, "capturable": False})

    def _init_group(self, group, params_with_grad, grads, exp_avgs, exp_infs, state_steps):
        def new_state(p):
            return {"step": new_step(p, group["capturable"]), "exp_avg": _zeros_state(p), "exp_inf": _zeros_state(p)}
        self._collect_group(group, params_with_grad, grads,
                            {"exp_avg": exp_avgs, "exp_inf": exp_infs, "step": state_steps}, new_state)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        self._accelerator_graph_capture_health_check()
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            params_with_grad, grads, exp_avgs, exp_infs, state_steps = self._group_lists(group, 5)
            adamax(params_with_grad, grads, exp_avgs, exp_infs, state_steps, eps=group["eps"], beta1=beta1,
                   beta2=beta2, lr=group["lr"], weight_decay=group["weight_decay"], maximize=group["maximize"],
                   differentiable=group["differentiable"], capturable=group["capturable"])
        return loss


def adamax(params, grads, exp_avgs, exp_infs, state_steps, maximize=False, differentiable=False, capturable=False,
           *, eps, beta1, beta2, lr, weight_decay):
    """Functional Adamax: upstream's _single_tensor_adamax."""
    lr = _to_scalar(lr)
    for i, param in enumerate(params):
        grad = grads[i]
        grad = grad if not maximize else -grad
        exp_avg = exp_avgs[i]
        exp_inf = exp_infs[i]
        step_t = state_steps[i]
        if capturable:
            _check_capturable(param, step_t)
        step_t += 1
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        exp_avg.lerp_(grad, 1 - beta1)
        if not differentiable:
            _torch.maximum(exp_inf.mul_(beta2), grad.abs().add_(eps), out=exp_inf)
        else:
            norm_buf = _torch.cat([exp_inf.mul_(beta2).unsqueeze(0), grad.abs().add_(eps).unsqueeze_(0)], 0)
            exp_inf.copy_(_torch.amax(norm_buf, 0, keepdim=False))
        bias_correction = 1 - beta1 ** _get_value(step_t)
        clr = lr / bias_correction
        param.addcdiv_(exp_avg, exp_inf, value=-clr)
