"""torch.nn.parallel: DataParallel and data_parallel (torch/nn/parallel/data_parallel.py).

torchlite has at most one accelerator device, so the multi-device paths (replicate, scatter over
several devices, parallel_apply, gather) are not ported: without an accelerator the wrapped module
runs as is (torch's path for a machine without one); with one, the inputs go to it and the module
runs there, as torch's single-device path."""
from .data_parallel import DataParallel, data_parallel

__all__ = ["DataParallel", "data_parallel"]
