"""torch.utils.data: datasets, samplers, the DataLoader and default_collate."""

__all__: list = []
