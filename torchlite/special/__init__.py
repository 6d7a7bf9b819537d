"""torchlite.special (torch/special/__init__.py): the ops upstream's native_functions.yaml marks
`python_module: special`, generated into torchlite/_generated/special_functions.py from
tools/autograd/native_functions.yaml's special_* entries, under their names without the prefix."""
from .._generated.special_functions import *  # noqa: F403 - the special_* ops of the table
from .._generated.special_functions import __all__ as __all__
