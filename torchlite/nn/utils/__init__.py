"""torch.nn.utils: gradient clipping, parameter vectors and rnn helpers."""

__all__: list = []

# ==== issue 15: modules ====
# (the modules family's entries follow this line)
from . import clip_grad as clip_grad, convert_parameters as convert_parameters  # noqa: E402
from .clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_  # noqa: E402
from .convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: E402
__all__ += ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "parameters_to_vector", "vector_to_parameters"]

# ==== issue 15: seq ====
# (the seq family's entries follow this line)
from . import rnn  # noqa: E402,F401 - torch.nn.utils.rnn (pad_sequence, PackedSequence, ...)

__all__ += ["rnn"]
