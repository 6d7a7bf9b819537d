"""torch.nn.utils: gradient clipping, parameter vectors and rnn helpers."""

__all__: list = []

# ==== issue 15: modules ====
# (the modules family's entries follow this line)

# ==== issue 15: seq ====
# (the seq family's entries follow this line)
from . import rnn  # noqa: E402,F401 - torch.nn.utils.rnn (pad_sequence, PackedSequence, ...)

__all__ += ["rnn"]
