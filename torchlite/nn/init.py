"""torch.nn.init: initialisers that fill a tensor in place under no_grad."""

__all__: list = []
