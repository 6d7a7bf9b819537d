"""torch.utils.data._utils: collation, the dataset fetchers and the worker info (upstream's)."""
from . import collate, fetch, worker

__all__ = ["collate", "fetch", "worker"]
