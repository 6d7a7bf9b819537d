"""torch.nn.modules: the layers, losses and containers (one file per family, as upstream)."""

__all__: list = []

# ==== issue 15: modules ====
# (the modules family's entries follow this line)
from . import activation, batchnorm, container, conv, dropout, flatten, linear, loss  # noqa: E402
from . import normalization, pooling, sparse, upsampling  # noqa: E402
from .module import Module  # noqa: E402
# each file's __all__, as torch.nn.modules imports them
from .container import *  # noqa: E402,F403
from .linear import *  # noqa: E402,F403
from .activation import *  # noqa: E402,F403
from .flatten import *  # noqa: E402,F403
from .sparse import *  # noqa: E402,F403
from .dropout import *  # noqa: E402,F403
from .normalization import *  # noqa: E402,F403
from .batchnorm import *  # noqa: E402,F403
from .conv import *  # noqa: E402,F403
from .pooling import *  # noqa: E402,F403
from .upsampling import *  # noqa: E402,F403
from .loss import *  # noqa: E402,F403
__all__ += ["Module"] + container.__all__
__all__ += linear.__all__ + activation.__all__ + flatten.__all__ + sparse.__all__ + dropout.__all__
__all__ += normalization.__all__ + batchnorm.__all__ + conv.__all__ + pooling.__all__ + upsampling.__all__
__all__ += loss.__all__
# the conv family's modules (issue 15: conv)
from . import fold  # noqa: E402, F401 - torch.nn.modules.fold (EmbeddingBag: in sparse's __all__)
from .fold import Fold, Unfold  # noqa: E402
__all__ += ["Fold", "Unfold"]
from . import padding  # noqa: E402
from .padding import *  # noqa: E402,F403
__all__ += padding.__all__

# ==== issue 15: seq ====
# (the seq family's entries follow this line)
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase  # noqa: E402
__all__ += ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]
from .activation import MultiheadAttention  # noqa: E402,F401 - exported with activation's __all__
from .transformer import (  # noqa: E402
    Transformer, TransformerDecoder, TransformerDecoderLayer, TransformerEncoder, TransformerEncoderLayer)
__all__ += [n for n in ["MultiheadAttention"] if n not in __all__]
__all__ += ["Transformer", "TransformerEncoder", "TransformerDecoder", "TransformerEncoderLayer",
            "TransformerDecoderLayer"]
