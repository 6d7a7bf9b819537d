"""torch/autograd/graph.py: saved_tensors_hooks, the pack/unpack hooks that
every tensor saved for backward goes through while they are active."""
from .. import _C

__all__ = ["saved_tensors_hooks"]


class saved_tensors_hooks:
    """Context manager: `pack_hook(tensor)` is called for each tensor an op or
    custom Function saves for backward and its result kept instead;
    `unpack_hook(packed)` is called when backward needs the tensor and must
    return it. The hooks are per thread; the innermost pair applies."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        _C._push_saved_tensors_default_hooks(self.pack_hook, self.unpack_hook)

    def __exit__(self, *args):
        _C._pop_saved_tensors_default_hooks()
