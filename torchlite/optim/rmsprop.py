"""torch.optim.RMSprop (upstream torch/optim/rmsprop.py): _single_tensor_rmsprop's operations in its
order. foreach=True is accepted and runs this loop."""

from ._common import check_lr, new_step, upgrade_steps
from .optimizer import Optimizer, _check_capturable, _to_scalar, _use_grad_for_differentiable, _zeros_state

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
        lists = {"square_avg": square_avgs, "step": state_steps}
        if group["momentum"] > 0:
            lists["momentum_buffer"] = momentum_buffer_list
        if group["centered"]:
            lists["grad_avg"] = grad_avgs

        def new_state(p):
            state = {"step": new_step(p, group["capturable"]), "square_avg": _zeros_state(p)}
            if group["momentum"] > 0:
                state["momentum_buffer"] = _zeros_state(p)
            if group["centered"]:
                state["grad_avg"] = _zeros_state(p)
            return state
        self._collect_group(group, params_with_grad, grads, lists, new_state)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        self._accelerator_graph_capture_health_check()
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            (params_with_grad, grads, square_avgs, momentum_buffer_list, grad_avgs,
             state_steps) = self._group_lists(group, 6)
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
