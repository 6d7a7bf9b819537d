"""torch.nn.parameter: Parameter (a Tensor that a Module registers as its parameter) and Buffer."""

__all__: list = []
