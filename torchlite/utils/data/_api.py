"""The torch-level names the data utilities call (torch.stack, torch.randperm, torch.Generator, ...),
imported from the modules that define them: torchlite's top level imports torchlite.utils, so
these modules cannot import torchlite itself (tests/python/test_imports.py: no import cycles)."""
from torchlite import accelerator
from torchlite._dtypes import double, float64, int64
from torchlite._factories import as_tensor, empty, multinomial, randint, randperm, tensor
from torchlite._generated.torch_functions import stack
from torchlite._generator import Generator

__all__ = ["Generator", "accelerator", "as_tensor", "double", "empty", "float64", "int64", "multinomial", "randint",
           "randperm", "stack", "tensor"]
