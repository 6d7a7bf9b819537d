"""torch.optim.Adam (upstream torch/optim/adam.py): _single_tensor_adam's operations in its order,
including the capturable/differentiable branch (tensor bias corrections). foreach=True and
fused=True (which torch's CPU build runs with its fused kernel) are accepted and run this loop."""
from . import _api as _torch, _fast
from torchlite._tensor import Tensor

from .optimizer import (Optimizer, _check_capturable, _check_fused_foreach, _device_dtype_check_for_fused,
                        _get_scalar_dtype, _get_value, _to_scalar, _use_grad_for_differentiable, _zeros_state)

__all__ = ["Adam", "adam"]


class Adam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        if isinstance(lr, Tensor):
            if foreach and not capturable:
                raise ValueError("lr as a Tensor is not supported for capturable=False and foreach=True")
            if lr.numel() != 1:
                raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not ((isinstance(betas[0], float) and isinstance(betas[1], float))
                or (isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor))):
            raise ValueError("betas must be either both floats or both Tensors")
        for i in (0, 1):
            if isinstance(betas[i], Tensor):
                if not capturable and foreach:
                    raise ValueError(f"betas[{i}] as a Tensor is not supported for capturable=False and foreach=True")
                if betas[i].numel() != 1:
                    raise ValueError(f"Tensor betas[{i}] must be 1-element")
        betas = tuple(map(_to_scalar, betas))
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "amsgrad": amsgrad,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable, "fused": fused, "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            self._step_supports_amp_scaling = True
        _check_fused_foreach(defaults, fused, foreach, differentiable)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("capturable", False)
            group.setdefault("differentiable", False)
            group.setdefault("decoupled_weight_decay", False)
            fused = group.setdefault("fused", None)
            for p in group["params"]:
                p_state = self.state.get(p, [])
                if len(p_state) != 0 and not _torch.is_tensor(p_state["step"]):
                    step_val = float(p_state["step"])
                    p_state["step"] = (
                        _torch.tensor(step_val, dtype=_get_scalar_dtype(is_fused=fused), device=p.device)
                        if group["capturable"] or group["fused"]
                        else _torch.tensor(step_val, dtype=_get_scalar_dtype()))

    def _init_group(self, group, params_with_grad, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps):
        def new_state(p):
            if group["fused"]:
                _device_dtype_check_for_fused(p)
            state = {"step": (_torch.zeros((), dtype=_get_scalar_dtype(is_fused=group["fused"]), device=p.device)
                              if group["capturable"] or group["fused"]
                              else _torch.tensor(0.0, dtype=_get_scalar_dtype(), device="cpu")),
                     "exp_avg": _zeros_state(p), "exp_avg_sq": _zeros_state(p)}
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = _zeros_state(p)
            return state

        def check(p, state):
            if group["differentiable"] and state["step"].requires_grad:
                raise RuntimeError("`requires_grad` is not supported for `step` in differentiable mode")
            if group["foreach"] and _torch.is_tensor(group["lr"]) and not group["capturable"]:
                raise RuntimeError("lr as a Tensor is not supported for capturable=False and foreach=True")
        lists = {"exp_avg": exp_avgs, "exp_avg_sq": exp_avg_sqs, "step": state_steps}
        if group["amsgrad"]:
            lists["max_exp_avg_sq"] = max_exp_avg_sqs
        self._collect_group(group, params_with_grad, grads, lists, new_state, check)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        self._accelerator_graph_capture_health_check()
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            params_with_grad, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps = self._group_lists(group, 6)
            adam(params_with_grad, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps,
                 amsgrad=group["amsgrad"], beta1=beta1, beta2=beta2, lr=group["lr"],
                 weight_decay=group["weight_decay"], eps=group["eps"], maximize=group["maximize"],
                 capturable=group["capturable"], differentiable=group["differentiable"],
                 decoupled_weight_decay=group["decoupled_weight_decay"])
        return loss


def adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, capturable=False, differentiable=False,
         decoupled_weight_decay=False, *, amsgrad, beta1, beta2, lr, weight_decay, eps, maximize):
    """Functional Adam: upstream's _single_tensor_adam."""
    if not all(isinstance(t, Tensor) for t in state_steps):
        raise RuntimeError("API has changed, `state_steps` argument must contain a list of singleton tensors")
    lr = _to_scalar(lr)
    beta1 = _to_scalar(beta1)
    beta2 = _to_scalar(beta2)
    beta1_dict = {(beta1.device, beta1.dtype): beta1} if isinstance(beta1, Tensor) else None
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        exp_avg = exp_avgs[i]
        exp_avg_sq = exp_avg_sqs[i]
        step_t = state_steps[i]
        if capturable:
            _check_capturable(param, step_t)
        step_t += 1
        if not (capturable or differentiable or amsgrad) and (decoupled_weight_decay or weight_decay == 0) and \
                isinstance(beta2, float) and not isinstance(lr, Tensor) and _fast.adam_step(
                    param, grad, exp_avg, exp_avg_sq, _get_value(step_t), lr, beta1, beta2, weight_decay, eps):
            continue  # the updates below in one pass (_fast.py)
        if weight_decay != 0:
            if decoupled_weight_decay:
                param.mul_(1 - lr * weight_decay)
            elif differentiable and isinstance(weight_decay, Tensor) and weight_decay.requires_grad:
                grad = grad.addcmul_(param.clone(), weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)
        if beta1_dict is not None:
            key = (param.device, param.dtype)
            if key not in beta1_dict:
                beta1_dict[key] = beta1.to(device=param.device, dtype=param.dtype)
            device_beta1 = beta1_dict[key]
        else:
            device_beta1 = beta1
        # (the updates of plain tensors skip the dispatcher: _fast.py)
        fast = not (capturable or differentiable) and isinstance(device_beta1, float) and isinstance(
            beta2, float) and _fast.plain(exp_avg, grad) and _fast.plain(exp_avg_sq, grad) and _fast.plain(
            param, exp_avg, exp_avg_sq)
        if fast:
            _fast.lerp_(exp_avg, grad, 1 - device_beta1)
        else:
            exp_avg.lerp_(grad, 1 - device_beta1)
        if differentiable and isinstance(beta2, Tensor) and beta2.requires_grad:
            exp_avg_sq.lerp_(_torch.square(grad), weight=1 - beta2)
        elif fast:
            _fast.addcmul_(exp_avg_sq.mul_(beta2), grad, grad, 1 - beta2)
        else:
            exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        if capturable or differentiable:
            step = step_t
            if differentiable and isinstance(beta1, Tensor) and beta1.requires_grad:
                bias_correction1 = 1 - beta1 ** step.clone()
            else:
                bias_correction1 = 1 - beta1 ** step
            if differentiable and isinstance(beta2, Tensor) and beta2.requires_grad:
                bias_correction2 = 1 - beta2 ** step.clone()
            else:
                bias_correction2 = 1 - beta2 ** step
            step_size = lr / bias_correction1
            step_size_neg = step_size.neg()
            bias_correction2_sqrt = bias_correction2.sqrt()
            if amsgrad:
                max_exp_avg_sq = max_exp_avg_sqs[i].clone() if differentiable else max_exp_avg_sqs[i]
                max_exp_avg_sqs[i].copy_(_torch.maximum(max_exp_avg_sq, exp_avg_sq))
                denom = (max_exp_avg_sqs[i].sqrt() / (bias_correction2_sqrt * step_size_neg)).add_(eps / step_size_neg)
            else:
                denom = (exp_avg_sq.sqrt() / (bias_correction2_sqrt * step_size_neg)).add_(eps / step_size_neg)
            param.addcdiv_(exp_avg.clone() if differentiable else exp_avg, denom)
        else:
            step = _get_value(step_t)
            bias_correction1 = 1 - beta1 ** step
            bias_correction2 = 1 - beta2 ** step
            step_size = lr / bias_correction1
            bias_correction2_sqrt = bias_correction2 ** 0.5
            if amsgrad:
                _torch.maximum(max_exp_avg_sqs[i], exp_avg_sq, out=max_exp_avg_sqs[i])
                denom = (max_exp_avg_sqs[i].sqrt() / bias_correction2_sqrt).add_(eps)
            else:
                denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
            if fast and isinstance(step_size, float) and _fast.plain(param, denom):
                _fast.addcdiv_(param, exp_avg, denom, -step_size)
            else:
                param.addcdiv_(exp_avg, denom, value=-step_size)
