"""torch.nn.modules: the layers, losses and containers (one file per family, as upstream)."""

__all__: list = []

# ==== issue 15: modules ====
# (the modules family's entries follow this line)
from .module import Module  # noqa: E402
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential  # noqa: E402
__all__ += ["Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]

# ==== issue 15: seq ====
# (the seq family's entries follow this line)
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase  # noqa: E402
__all__ += ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]
