"""torch.optim: optimizers (one file each, as upstream) and lr_scheduler."""

__all__: list = []
