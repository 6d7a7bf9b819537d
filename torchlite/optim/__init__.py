"""torch.optim: optimizers (one file each, as upstream) and lr_scheduler.

Every optimizer runs torch's single-tensor (for-loop) implementation, torch's default on CPU, with
torchlite's in-place tensor ops in the same order; foreach=True (and fused=True where torch accepts
it) is accepted and runs the same loop."""
from . import lr_scheduler
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .lbfgs import LBFGS
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Adadelta", "Adagrad", "Adam", "Adamax", "AdamW", "LBFGS", "lr_scheduler", "NAdam", "Optimizer", "RAdam",
           "RMSprop", "SGD"]
