"""torch.utils.data: datasets, samplers, the DataLoader and default_collate (upstream's file split:
dataset.py, sampler.py, dataloader.py, _utils/collate.py)."""
from .dataloader import DataLoader, _DatasetKind, default_collate, default_convert, get_worker_info
from .dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset, Subset, TensorDataset,
                      random_split)
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler,
                      WeightedRandomSampler)

__all__ = ["BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset", "IterableDataset",
           "RandomSampler", "Sampler", "SequentialSampler", "StackDataset", "Subset", "SubsetRandomSampler",
           "TensorDataset", "WeightedRandomSampler", "_DatasetKind", "default_collate", "default_convert",
           "get_worker_info", "random_split"]
