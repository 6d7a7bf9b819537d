"""torchlite.linalg: torch.linalg's functions (torch/linalg/__init__.py), a thin module over the
linalg family's kernels in torchlite/_ops (LinearAlgebra, Linear, BatchLinearAlgebra)."""
from .._ops import LinAlgError
from .._ops import linalg_cholesky as cholesky
from .._ops import linalg_cross as cross
from .._ops import linalg_det as det
from .._ops import linalg_inv as inv
from .._ops import linalg_matrix_norm as matrix_norm
from .._ops import linalg_norm as norm
from .._ops import linalg_slogdet as slogdet
from .._ops import linalg_solve as solve
from .._ops import linalg_vecdot as vecdot
from .._ops import linalg_vector_norm as vector_norm
from .._ops import matrix_power
from .._ops import linalg_cond as cond
from .._ops import linalg_eigh as eigh
from .._ops import linalg_eigvalsh as eigvalsh
from .._ops import linalg_lstsq as lstsq
from .._ops import linalg_matrix_rank as matrix_rank
from .._ops import linalg_pinv as pinv
from .._ops import linalg_qr as qr
from .._ops import linalg_svd as svd
from .._ops import linalg_svdvals as svdvals
from .._generated.linalg_functions import cholesky_ex, inv_ex  # issue 14: the table's python_module: linalg ops

__all__ = ["LinAlgError", "cholesky", "cholesky_ex", "cond", "cross", "det", "eigh", "eigvalsh", "inv", "inv_ex",
           "lstsq", "matrix_norm", "matrix_power", "matrix_rank", "norm", "pinv", "qr", "slogdet", "solve", "svd",
           "svdvals", "vecdot", "vector_norm"]
