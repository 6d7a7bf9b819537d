"""The torch.cuda.memory queries programs call to report or free GPU memory
(torch/cuda/memory.py), over cupy's memory pool. Before CUDA is initialised (cupy loaded) they answer as torch's:
no memory allocated, and empty_cache does nothing."""
from .. import _backend

__all__ = ["empty_cache", "memory_allocated", "memory_reserved"]


def _pool():
    if _backend.cupy is None:  # cupy is loaded when CUDA is initialised
        return None
    return _backend.cupy.get_default_memory_pool()


def empty_cache() -> None:
    """Releases the unoccupied cached memory (cupy's pool's free blocks)."""
    pool = _pool()
    if pool is not None:
        pool.free_all_blocks()


def memory_allocated(device=None) -> int:
    """The bytes tensors occupy on the GPU (0 without CUDA initialised)."""
    pool = _pool()
    return 0 if pool is None else int(pool.used_bytes())


def memory_reserved(device=None) -> int:
    """The bytes the caching allocator holds (0 without CUDA initialised)."""
    pool = _pool()
    return 0 if pool is None else int(pool.total_bytes())
