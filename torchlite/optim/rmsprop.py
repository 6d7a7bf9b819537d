"""torch.optim.RMSprop (upstream torch/optim/rmsprop.py): _single_tensor_rmsprop's operations in its
order. foreach=True is accepted and runs this loop."""
from . import _api as _torch

from ._common import check_lr, new_step, upgrade_steps
from .optimizer import Optimizer, _check_capturable, _to_scalar, _use_grad_for_differentiable

__all__ = ["RMSprop", "rmsprop"]


class RMSprop(Optimizer):
    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        check_lr(lr)
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
                    "weight_decay": weight_decay, "capturable": capturable, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        upgrade_steps(self, {"momentum": 0, "centered": False, "foreach": None, "maximize": False,
                             "differentiable": False, "capturable": False})

    def _init_group(self, group, params_with_grad, grads, square_avgs, momentum_buffer_list, grad_avgs, state_steps):
        for p in group["params"]:
            if p.grad is None:
                continue
            params_with_grad.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = new_step(p, group["capturable"])
                state["square_avg"] = _torch.zeros_like(p, memory_format=_torch.preserve_format)
                if group["momentum"] > 0:
                    state["momentum_buffer"] = _torch.zeros_like(p, memory_format=_torch.preserve_format)
                if group["centered"]:
                    state["grad_avg"] = _torch.zeros_like(p, memory_format=_torch.preserve_format)
            square_avgs.append(state["square_avg"])
            state_steps.append(state["step"])
            if group["momentum"] > 0:
                momentum_buffer_list.append(state["momentum_buffer"])
            if group["centered"]:
                grad_avgs.append(state["grad_avg"])

    @_use_grad_for_differentiable
    def step(self, closure=None):
        self._accelerator_graph_capture_health_check()
        loss = None
        if closure is not None:
            with _torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            params_with_grad: list = []
            grads: list = []
            square_avgs: list = []
            grad_avgs: list = []
            momentum_buffer_list: list = []
            state_steps: list = []
            self._init_group(group, params_with_grad, grads, square_avgs, momentum_buffer_list, grad_avgs,
                             state_steps)
            rmsprop(params_with_grad, grads, square_avgs, grad_avgs, momentum_buffer_list, state_steps,
                    lr=group["lr"], alpha=group["alpha"], eps=group["eps"], weight_decay=group["weight_decay"],
                    momentum=group["momentum"], centered=group["centered"], maximize=group["maximize"],
                    differentiable=group["differentiable"], capturable=group["capturable"])
        return loss


def rmsprop(params, grads, square_avgs, grad_avgs, momentum_buffer_list, state_steps, maximize=False,
            differentiable=False, capturable=False, *, lr, alpha, eps, weight_decay, momentum, centered):
    """Functional RMSprop: upstream's _single_tensor_rmsprop."""
    lr = _to_scalar(lr)
    for i, param in enumerate(params):
        step = state_steps[i]
        if capturable:
            _check_capturable(param, step)
        grad = grads[i]
        grad = grad if not maximize else -grad
        square_avg = square_avgs[i]
        step += 1
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
        if centered:
            grad_avg = grad_avgs[i]
            grad_avg.lerp_(grad, 1 - alpha)
            avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
        else:
            avg = square_avg.sqrt()
        avg = avg.add(eps) if differentiable else avg.add_(eps)
        if momentum > 0:
            buf = momentum_buffer_list[i]
            buf.mul_(momentum).addcdiv_(grad, avg)
            param.add_(buf, alpha=-lr)
        else:
            param.addcdiv_(grad, avg, value=-lr)
