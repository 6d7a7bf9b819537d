"""Grad-mode context managers (torch/autograd/grad_mode.py). Grad mode is
thread-local, held in C++ where the engine also sets it for each task."""
import functools

from .. import _C

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
           "is_inference_mode_enabled", "set_multithreading_enabled"]

is_grad_enabled = _C.is_grad_enabled


class _DecoratorContextManager:
    """Usable as `with ctx:` and as a function decorator."""

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return wrapper

    def clone(self):
        return self.__class__()


class no_grad(_DecoratorContextManager):
    def __enter__(self):
        self.prev = _C.is_grad_enabled()
        _C._set_grad_enabled(False)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev)


class enable_grad(_DecoratorContextManager):
    def __enter__(self):
        self.prev = _C.is_grad_enabled()
        _C._set_grad_enabled(True)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev)


class set_grad_enabled(_DecoratorContextManager):
    """Sets grad mode on construction (so it also works as a plain call)."""

    def __init__(self, mode):
        self.prev = _C.is_grad_enabled()
        self.mode = mode
        _C._set_grad_enabled(mode)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev)

    def clone(self):
        return self.__class__(self.mode)


class set_multithreading_enabled(_DecoratorContextManager):
    """With mode=False this thread's later backward calls run every node on
    the calling thread, device nodes included (thread-local). Set on
    construction, like set_grad_enabled."""

    def __init__(self, mode):
        self.prev = _C._is_multithreading_enabled()
        self.mode = mode
        _C._set_multithreading_enabled(mode)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _C._set_multithreading_enabled(self.prev)

    def clone(self):
        return self.__class__(self.mode)


def is_inference_mode_enabled() -> bool:
    return _C._is_inference_mode_enabled()


class inference_mode(_DecoratorContextManager):
    """torch.inference_mode: grad mode off, and tensors made inside are
    inference tensors (c10::InferenceMode; docs/design.md "Inference mode")."""

    def __init__(self, mode=True):
        self.mode = mode

    def __enter__(self):
        self.prev = _C.is_grad_enabled()
        self.prev_inference = _C._is_inference_mode_enabled()
        _C._set_inference_mode(self.mode)
        _C._set_grad_enabled(self.prev and not self.mode)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev)
        _C._set_inference_mode(self.prev_inference)

    def clone(self):
        return self.__class__(self.mode)
