"""torch.backends.cuda (torch/backends/cuda/__init__.py): the cuBLAS switches under `matmul`
(allow_tf32 and the reduced-precision reductions) with torch's defaults, the
scaled_dot_product_attention backend switches (kept, changing nothing), and is_built()."""
from .. import cuda as _cuda

__all__ = ["cuBLASModule", "enable_flash_sdp", "enable_math_sdp", "enable_mem_efficient_sdp", "flash_sdp_enabled",
           "is_built", "math_sdp_enabled", "matmul", "mem_efficient_sdp_enabled"]


def is_built():
    """Whether torchlite was built with CUDA (not whether a GPU is usable: torch.cuda.is_available)."""
    return _cuda._is_compiled()


class cuBLASModule:
    """`torch.backends.cuda.matmul`: cuBLAS's switches, refusing a name it does not have."""

    _DEFAULTS = {"allow_tf32": False, "allow_fp16_reduced_precision_reduction": True,
                 "allow_bf16_reduced_precision_reduction": True, "allow_fp16_accumulation": False}

    def __init__(self):
        object.__setattr__(self, "_values", dict(self._DEFAULTS))

    def __getattr__(self, name):
        values = object.__getattribute__(self, "_values")
        if name in values:
            return values[name]
        raise AttributeError("Unknown attribute " + name)

    def __setattr__(self, name, value):
        if name not in self._values:
            raise AttributeError("Unknown attribute " + name)
        self._values[name] = value


matmul = cuBLASModule()

_SDP = {"flash": True, "mem_efficient": True, "math": True}


def flash_sdp_enabled():
    return _SDP["flash"]


def mem_efficient_sdp_enabled():
    return _SDP["mem_efficient"]


def math_sdp_enabled():
    return _SDP["math"]


def enable_flash_sdp(enabled: bool):
    _SDP["flash"] = enabled


def enable_mem_efficient_sdp(enabled: bool):
    _SDP["mem_efficient"] = enabled


def enable_math_sdp(enabled: bool):
    _SDP["math"] = enabled
