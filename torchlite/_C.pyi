# The extension module (csrc/, pybind11) for type checkers: untyped, each name is Any.
from typing import Any

def __getattr__(name: str) -> Any: ...
