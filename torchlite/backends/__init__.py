"""torch.backends: the switches of the libraries torch's kernels may call (cuDNN, cuBLAS, MPS).
torchlite's kernels are numpy's (or cupy's), so the switches are kept as torch keeps them, with
torch's defaults, and change nothing; the availability queries answer as torch's CPU build does."""
from . import cuda, cudnn, mkldnn, mps

__all__ = ["cuda", "cudnn", "mkldnn", "mps"]
