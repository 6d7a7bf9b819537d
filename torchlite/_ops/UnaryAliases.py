"""torch's unary ops defined by other ops (CompositeImplicitAutograd in upstream's
native_functions.yaml: their node is the op they run): the aliases (arcsin for asin, fix for trunc,
the torch.special names) and square (pow(x, 2), ATen/native/UnaryOps.cpp)."""
import numpy as np

from .._generated import specs as _S
from .Pow import pow  # noqa: A004 - torch's name
from .structured_inplace import inplace_variant
from .UnaryOps import abs, round  # noqa: A004 - torch's names
from .UnaryOps import (_float_unary, acos, acosh, asin, asinh, atan, atanh, erf, erfc, erfinv, exp2, expm1, log1p,
                       logit, neg, sigmoid, sinc, trunc)


def _alias(fn, name, runs):
    """An alias of an op: a function named `name` that runs fn. Its out= overload's errors name the op
    it runs (`runs`: "asin(): functions with out=... arguments don't support automatic differentiation"
    for arcsin, as torch's) and check out's dtype as fn's do."""
    def alias(*args, **kwargs):
        return fn(*args, **kwargs)
    alias.__name__ = alias.__qualname__ = name
    alias.__doc__ = f"torch.{name}: {fn.__name__}."
    alias._runs = runs
    if hasattr(fn, "_out_check"):
        alias._out_check = fn._out_check
    return alias


arcsin = _alias(asin, "arcsin", "asin")
arccos = _alias(acos, "arccos", "acos")
arctan = _alias(atan, "arctan", "atan")
arcsinh = _alias(asinh, "arcsinh", "asinh")
arccosh = _alias(acosh, "arccosh", "acosh")
arctanh = _alias(atanh, "arctanh", "atanh")
fix = _alias(trunc, "fix", "trunc")
absolute = _alias(abs, "absolute", "abs")
negative = _alias(neg, "negative", "neg")


def square(self):
    """x * x as torch computes it: pow(x, 2) (PowBackward0, saving the exponent); a bool tensor
    squares to int64, as pow(bool, 2) promotes."""
    return pow(self, 2)


square._runs = "pow"  # type: ignore[attr-defined]


# torch.special (upstream's special_* entries, python_module: special): torchlite.special.<name>
special_erf = _alias(erf, "special_erf", "erf")
special_erfc = _alias(erfc, "special_erfc", "erfc")
special_erfinv = _alias(erfinv, "special_erfinv", "erfinv")
special_exp2 = _alias(exp2, "special_exp2", "exp2")
special_expm1 = _alias(expm1, "special_expm1", "expm1")
special_log1p = _alias(log1p, "special_log1p", "log1p")
special_expit = _alias(sigmoid, "special_expit", "sigmoid")
special_logit = _alias(logit, "special_logit", "logit")
special_sinc = _alias(sinc, "special_sinc", "sinc")


def special_round(self, *, decimals=0):
    """torch.special.round: round.decimals, whatever decimals (RoundBackward1)."""
    return round(self, decimals=decimals)


special_round._runs = "round"  # type: ignore[attr-defined]
special_round._out_check = round._out_check  # type: ignore[attr-defined]


# asinh_, acosh_, atanh_: upstream's table gives them a node of their own whose formula is
# not_implemented (AsinhBackward1: "the derivative for 'inplace version of asinh' is not
# implemented."), so in-place they run the functional kernel recording that node.
def _inplace_not_implemented(np_fn, spec, name):
    kernel = _float_unary(np_fn, spec, saves_result=None, name=name)

    def inplace(self):
        return inplace_variant(kernel, self, (), {})
    inplace.__name__ = inplace.__qualname__ = name + "_"
    return inplace


asinh_ = _inplace_not_implemented(np.arcsinh, _S.AsinhBackward1, "asinh")
acosh_ = _inplace_not_implemented(np.arccosh, _S.AcoshBackward1, "acosh")
atanh_ = _inplace_not_implemented(np.arctanh, _S.AtanhBackward1, "atanh")
arcsinh_ = _alias(asinh_, "arcsinh_", "asinh_")
arccosh_ = _alias(acosh_, "arccosh_", "acosh_")
arctanh_ = _alias(atanh_, "arctanh_", "atanh_")
