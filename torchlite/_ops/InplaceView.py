"""The in-place view ops (upstream: native_functions.yaml's `inplace_view` entries; the kernels in
ATen/native/TensorShape.cpp): squeeze_. The tensor itself takes the view's sizes and strides, keeping
its storage, version counter (bumped, as ADInplaceOrView does) and identity.

Autograd, as upstream's VariableType for an inplace_view op (gen_variable_type: `set_history`, not
`rebase_history`): check_inplace first (a leaf that requires grad, or a view of one, is refused), then
the node (SqueezeBackward3/4/5) becomes self's grad_fn over its previous one. For a self that is itself a
view, upstream takes that previous edge before the version bump; torchlite bumps first, so the node's
next edge is the view's regenerated grad_fn (AsStridedBackward0 over the base's, of the view's geometry
before the op: the same gradient) where torch's is the view's node (SliceBackward0, ...)."""
import numpy as np

from .._C import _check_inplace, _inplace_node, _record, _wrap
from .._generated import specs as _S
from .python_arg_parser import _norm_dims


def squeeze_(self, dim=None):
    """Tensor.squeeze_(), squeeze_(dim), squeeze_(dims): self's dimensions of size 1 (among `dim`)
    removed in place."""
    a = self._array
    # check_inplace first (VariableType's, before the kernel's argument checks): a leaf that requires
    # grad, or a view of one, is refused
    _check_inplace(self, self.requires_grad)
    if dim is None:
        squeezed, spec, fields = np.squeeze(a), _S.SqueezeBackward3, {}
    else:
        asked = _norm_dims(dim, a.ndim)  # torch's dim checks (range, repeats)
        dims = tuple(d for d in asked if a.ndim and a.shape[d] == 1)
        squeezed = np.squeeze(a, dims) if dims else a.view()
        # the node saves dim as given (upstream's raw argument)
        spec, fields = ((_S.SqueezeBackward4, {"dim": dim}) if isinstance(dim, int)
                        else (_S.SqueezeBackward5, {"dim": tuple(dim)}))
    # check_inplace before anything changes (a leaf that requires grad, or a view of one, is refused)
    check = _inplace_node(spec, (self,))
    self._bump_version()
    if check is not None and self._is_view():
        # the view's grad_fn, regenerated for the new version while self keeps its old geometry
        self.grad_fn  # noqa: B018 - read for its regeneration
    self.data = _wrap(squeezed, self, True)
    if check is not None:
        # the node over self's previous gradient edge, with self's new sizes as its input's (the gradient
        # it receives has them), set as self's history (upstream's set_history, not rebase_history)
        _record(spec, (self,), self, self_sym_sizes=a.shape, **fields)
    return self
