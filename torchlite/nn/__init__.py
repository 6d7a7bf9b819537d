"""torch.nn: modules, parameters, functional forms and initialisers, on torchlite's autograd."""
from . import functional, init, modules, utils  # noqa: F401 - torch.nn's submodules
from .modules import *  # noqa: F403 - the modules (torch.nn.Linear, ...)
from . import parallel  # noqa: F401,E402 - torch.nn.parallel
from .parallel import DataParallel  # noqa: F401,E402 - torch.nn.DataParallel

__all__ = ["functional", "init", "modules", "utils"]

# ==== issue 15: modules ====
# (the modules family's entries follow this line)
from .parameter import Buffer, Parameter  # noqa: E402
__all__ += ["Buffer", "Parameter"]
