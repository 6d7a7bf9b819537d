"""torch/autograd/graph.py: Node (what every grad_fn is an instance of),
saved_tensors_hooks, the pack/unpack hooks that every tensor saved for backward
goes through while they are active (save_on_cpu, disable_saved_tensors_hooks),
get_gradient_edge, increment_version and register_multi_grad_hook; plus
torchlite's graph pictures (to_dot)."""
import abc
import collections
import contextlib
import functools
import os
import shutil
import subprocess
import threading
import warnings
import weakref
from typing import NamedTuple

from .. import _C
from .._ops import mutation as _mutation
from .grad_mode import enable_grad, no_grad

__all__ = ["Node", "saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks", "GradientEdge",
           "get_gradient_edge", "increment_version", "register_multi_grad_hook", "allow_mutation_on_saved_tensors",
           "to_dot", "Digraph"]


class Node(abc.ABC):
    """The type of every backward node: `isinstance(t.grad_fn, Node)` holds for the ops' nodes,
    AccumulateGrad and custom Functions' nodes (torch registers its C++ node classes the same way)."""

    @abc.abstractmethod
    def name(self):
        """The node's name (MulBackward0)."""

    @property
    @abc.abstractmethod
    def next_functions(self):
        """The (node, input index) pairs the node's gradients flow to."""

    @abc.abstractmethod
    def register_hook(self, fn):
        """Calls fn(grad_inputs, grad_outputs) after the node runs."""

    @abc.abstractmethod
    def register_prehook(self, fn):
        """Calls fn(grad_outputs) before the node runs."""

    @classmethod
    def __subclasshook__(cls, subclass):
        if cls is Node and issubclass(subclass, (_C.Node, _C._FunctionBase)):
            return True
        return NotImplemented


# disable_saved_tensors_hooks' message, per thread (upstream: SavedTensorDefaultHooks' TLS)
_hooks_state = threading.local()


class saved_tensors_hooks:
    """Context manager: `pack_hook(tensor)` is called for each tensor an op or
    custom Function saves for backward and its result kept instead;
    `unpack_hook(packed)` is called when backward needs the tensor and must
    return it. The hooks are per thread; the innermost pair applies."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        message = getattr(_hooks_state, "disabled_message", None)
        if message is not None:
            raise RuntimeError(message)
        _C._push_saved_tensors_default_hooks(self.pack_hook, self.unpack_hook)
        _hooks_state.depth = getattr(_hooks_state, "depth", 0) + 1

    def __exit__(self, *args):
        _C._pop_saved_tensors_default_hooks()
        _hooks_state.depth -= 1


class save_on_cpu(saved_tensors_hooks):
    """Tensors saved for backward while it is active are kept on the CPU, and copied back to
    their device when backward needs them (`pin_memory` is accepted: torchlite copies
    synchronously)."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack_to_cpu(tensor):
            return tensor.device, tensor.cpu()

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device)

        super().__init__(pack_to_cpu, unpack_from_cpu)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message):
    """While active, entering saved_tensors_hooks (save_on_cpu, checkpoint's) raises
    RuntimeError(error_message)."""
    previous = getattr(_hooks_state, "disabled_message", None)
    try:
        _hooks_state.disabled_message = error_message
        # upstream SavedTensorDefaultHooks::disable: refused while hooks are active
        if getattr(_hooks_state, "depth", 0):
            raise RuntimeError(error_message)
        yield
    finally:
        _hooks_state.disabled_message = previous


def increment_version(tensor):
    """Bumps the version counter of a tensor (or of each of an iterable of tensors) whose data
    was changed where autograd cannot see it; an inference tensor has no counter to bump."""
    for t in (tensor,) if isinstance(tensor, _C.TensorBase) else tensor:
        if not t.is_inference():
            t._bump_version()


class _MultiHandle:
    """The handle of a multi-grad hook: removes its hook from every tensor."""

    def __init__(self, handles):
        self.handles = handles

    def remove(self):
        for handle in self.handles:
            handle.remove()

    def __enter__(self):
        return self

    def __exit__(self, *args):
        self.remove()


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """Calls fn once per backward for a group of tensors. mode "all": with the list of their
    gradients, after every one the backward computes is there (None for those it does not
    compute). mode "any": with the first of their gradients to be computed."""
    modes = ("all", "any")
    if mode not in modes:
        raise ValueError(f"Expects mode to be one of {modes} but got {mode}")
    lock = threading.Lock()
    if mode == "all":
        nodes = [_get_grad_fn_or_grad_acc(t) for t in tensors]
        seen = {}  # graph task id -> [gradients so far, how many have come, how many will]

        def hook_for(index):
            def hook(grad):
                task = _C._current_graph_task_id()
                if task == -1:
                    raise AssertionError("expected this hook to be called inside a backward call")
                with lock:
                    state = seen.get(task)
                    if state is None:
                        expected = sum(map(_C._will_engine_execute_node, nodes))
                        state = seen[task] = [[None] * len(nodes), 0, expected]
                    state[0][index] = grad
                    state[1] += 1
                    done = state[1] == state[2]
                    if done:
                        del seen[task]
                if done:
                    fn(state[0])
            return hook

        return _MultiHandle(tuple(t.register_hook(hook_for(i)) for i, t in enumerate(tensors)))

    ran = collections.defaultdict(bool)

    @functools.wraps(fn)
    def first_only(grad):
        task = _C._current_graph_task_id()
        if task == -1:
            raise AssertionError("expected this hook to be called inside a backward call")
        with lock:
            already, ran[task] = ran[task], True
        if not already:
            fn(grad)

    return _MultiHandle(tuple(t.register_hook(first_only) for t in tensors if t.requires_grad))


class GradientEdge(NamedTuple):
    """Where a tensor's gradient is computed in the graph: a node and the
    index of the node's input that receives it (torch's GradientEdge)."""

    node: object
    output_nr: int
    # Keeps the graph alive where `node` alone would not (a custom Function's ctx).
    ownership_token: object = None


def _get_grad_fn_or_grad_acc(t):
    if isinstance(t, GradientEdge):
        return t.node
    if t.requires_grad and t.grad_fn is None:
        with enable_grad():
            node = t.view_as(t).grad_fn.next_functions[0][0]
    else:
        node = t.grad_fn
    if node is None:
        raise AssertionError("Expected gradient function to be set")
    return node


def get_gradient_edge(tensor):
    """The gradient edge of `tensor`: its grad_fn (a leaf's AccumulateGrad)
    and its output_nr."""
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor "
                           "that does not require gradients")
    grad_fn = _get_grad_fn_or_grad_acc(tensor)
    token = None
    if isinstance(grad_fn, _C._FunctionBase):
        with enable_grad():
            token = tensor.view_as(tensor).grad_fn
    return GradientEdge(grad_fn, tensor.output_nr, ownership_token=token)


# allow_mutation_on_saved_tensors (torch/autograd/graph.py) ----------------------------------------
#
# While the context is active: (1) a saved_tensors_hooks pair packs each tensor saved for backward
# as a handle, remembering the tensor by (id, data_ptr, version) and its memory by (data_ptr,
# version); (2) just before an in-place kernel writes a tensor (Note [Before an in-place write],
# torchlite/_ops/mutation.py; upstream a TorchDispatchMode), every saved tensor with the same
# memory and version is cloned and the clone kept in place of the original; (3) backward unpacks
# a handle to its clone where there is one, else to the original. Backward must run inside the
# same context: outside it, or in another one, unpacking raises.

_allow_mutation_on_saved_tensors_enabled = False


def _get_tid(tensor):
    return (id(tensor), tensor.data_ptr(), tensor._version)


def _get_sid(tensor):
    return (tensor.data_ptr(), tensor._version)


class _Handle:
    pass


class _swap_with_cloned(saved_tensors_hooks):
    def __init__(self, ctx):
        def pack_hook(tensor):
            tid = _get_tid(tensor)
            ctx.sid_to_tid[_get_sid(tensor)].add(tid)
            # the same tensor at the same version may be saved several times: one handle
            handle = ctx.tid_to_weakhandle.get(tid)
            if handle is None:
                handle = _Handle()
                ctx.tid_to_weakhandle[tid] = handle
                ctx.original[handle] = tensor
            return handle

        def unpack_hook(handle):
            # torch's message, without the space its two literals lack
            error_msg = ("Trying to backward outside of the 'allow_mutation_on_saved_tensors' context"
                         "in which the graph was originally recorded.")
            if not _allow_mutation_on_saved_tensors_enabled:
                raise AssertionError(error_msg)
            if handle in ctx.cloned:
                return ctx.cloned[handle]
            if handle not in ctx.original:
                raise AssertionError(error_msg)
            return ctx.original[handle]

        super().__init__(pack_hook, unpack_hook)


@contextlib.contextmanager
def _clone_arg_before_mutate(ctx):
    """upstream _CloneArgBeforeMutateMode: before a tensor is written in place, the saved
    tensors sharing its memory at its version are cloned (an enclosing context's too)."""
    previous = _mutation.hook

    def maybe_clone(t):
        if not t.is_inference():  # an inference tensor is never saved
            for tid in ctx.sid_to_tid.get(_get_sid(t), ()):
                handle = ctx.tid_to_weakhandle.get(tid)
                # gone: saved, then freed by a backward before this write
                if handle is None or handle in ctx.cloned:
                    continue
                with no_grad():
                    ctx.cloned[handle] = ctx.original[handle].clone()
                del ctx.original[handle]
        if previous is not None:
            previous(t)

    _mutation.hook = maybe_clone
    try:
        yield
    finally:
        _mutation.hook = previous


class _AllowMutationOnSavedContext:
    """The state of one allow_mutation_on_saved_tensors context (cleared when it exits)."""

    def __init__(self):
        self.cloned = weakref.WeakKeyDictionary()
        self.original = weakref.WeakKeyDictionary()
        self.tid_to_weakhandle = weakref.WeakValueDictionary()
        self.sid_to_tid = collections.defaultdict(set)

    def clear(self):
        self.cloned.clear()
        self.original.clear()
        self.tid_to_weakhandle.clear()
        self.sid_to_tid.clear()


@contextlib.contextmanager
def allow_mutation_on_saved_tensors():
    """Context manager under which a tensor saved for backward may be modified in place: it is
    cloned before the write, and backward reads the clone. Run forward and backward inside the
    same context. Yields the context's state (an _AllowMutationOnSavedContext), cleared on exit.
    Contexts cannot be nested."""
    global _allow_mutation_on_saved_tensors_enabled
    ctx = _AllowMutationOnSavedContext()
    with _swap_with_cloned(ctx), _clone_arg_before_mutate(ctx):
        try:
            if _allow_mutation_on_saved_tensors_enabled:
                raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
            _allow_mutation_on_saved_tensors_enabled = True
            yield ctx
        finally:
            # as upstream, also when nesting was refused: the enclosing context is then off too
            ctx.clear()
            _allow_mutation_on_saved_tensors_enabled = False


# Graph pictures -------------------------------------------------------------------

# Fill colours of a node's status in a GraphTask state (_C._current_graph_task_state()).
_STATUS_COLOURS = {"running": "orange", "queued": "gold", "waiting": "white", "done": "palegreen",
                   "not needed": "lightgrey"}
_UINT64_MAX = 2 ** 64 - 1


class Digraph:
    """A graph picture: `source` is its DOT text; render() draws it with
    Graphviz (a small stand-in for graphviz.Digraph)."""

    def __init__(self, source):
        self.source = source

    def __str__(self):
        return self.source

    def render(self, path, format=None):  # noqa: A002 - graphviz's name
        """Writes the picture to `path` in `format` (default: the path's
        suffix, else svg) through Graphviz's `dot`. Without `dot`, writes the
        DOT text to the path with a .dot suffix instead and warns. Returns
        the path written."""
        root, suffix = os.path.splitext(path)
        fmt = format or (suffix[1:] if suffix else "svg")
        dot = shutil.which("dot")
        if dot is None:
            dot_path = root + ".dot"
            with open(dot_path, "w") as f:
                f.write(self.source)
            warnings.warn(f"Graphviz's dot program was not found: wrote the DOT text to {dot_path} instead of "
                          f"{fmt.upper()}. To draw pictures install `pip install torchlite[viz]` and the graphviz "
                          "system package (apt-get install graphviz).", UserWarning, stacklevel=2)
            return dot_path
        try:
            import graphviz  # optional (torchlite[viz]): the dot program alone also draws
        except ImportError:
            graphviz = None
        if graphviz is not None:
            data = graphviz.Source(self.source).pipe(format=fmt)
        else:
            data = subprocess.run([dot, "-T" + fmt], input=self.source.encode(), capture_output=True,
                                  check=True).stdout
        with open(path, "wb") as f:
            f.write(data)
        return path


def _quote(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _shape(shape):
    if shape is None:
        return "freed"
    if isinstance(shape, str):
        return shape
    return "(" + ", ".join(str(d) for d in shape) + (",)" if len(shape) == 1 else ")")


def _short(name):
    return name.rsplit("::", 1)[-1]


def to_dot(roots, *, graph_task_state=None, show_saved=True, name="backward"):
    """The backward graph reachable from `roots` (a tensor, a node, a
    GradientEdge, or a list of them) as a Digraph: one box per node with its
    name, sequence_nr, topological_nr and the shapes of its saved tensors
    (an AccumulateGrad with its leaf's shape), one arrow per next edge
    labelled with the input_nr it feeds. With `graph_task_state` (from
    torchlite._C._current_graph_task_state(), e.g. taken inside a hook, or
    replayed from an engine trace by trace.graph_task_state(step)) each
    node of that graph task also shows its dependencies_ count, its
    exec_info (needed / captured), its not_ready_ buffer slots and its status,
    filled by status: running, queued, waiting, done, not needed.

    The saved shapes are read from the nodes' SavedVariables: inside a
    backward that runs on several threads (device nodes), another thread may
    be freeing them, so draw with show_saved=False there, or run that backward
    under autograd.set_multithreading_enabled(False)."""
    if isinstance(roots, (_C.TensorBase, GradientEdge)) or not isinstance(roots, (list, tuple)):
        roots = [roots]
    state = {}
    if graph_task_state is not None:
        state = {n["id"]: n for n in graph_task_state["nodes"]}

    lines = [f"digraph {name} {{", '  node [shape=box, fontname="monospace", fontsize=10];',
             '  edge [fontname="monospace", fontsize=9];']
    ids, infos, order = {}, {}, []

    def visit(node):
        info = _C._graph_node_info(node)
        if info["id"] not in ids:
            ids[info["id"]] = f"n{len(ids)}"
            infos[info["id"]] = info
            order.append(info["id"])
        return info["id"]

    edges = []
    for i, root in enumerate(roots):
        if isinstance(root, _C.TensorBase):
            if not root.requires_grad:
                raise RuntimeError("to_dot: a root tensor does not require grad and has no grad_fn")
            node = _get_grad_fn_or_grad_acc(root)
            lines.append(f"  t{i} [label={_quote('tensor ' + _shape(tuple(root.shape)))}, shape=ellipse];")
            edges.append((f"t{i}", visit(node), root.output_nr if root.grad_fn is not None else 0))
        elif isinstance(root, GradientEdge):
            lines.append(f"  t{i} [label={_quote('gradient edge')}, shape=ellipse];")
            edges.append((f"t{i}", visit(root.node), root.output_nr))
        else:
            visit(root)

    k = 0
    while k < len(order):  # breadth first, in next_functions order
        info = infos[order[k]]
        for fn, _, input_nr in info["next"]:
            if fn is not None:
                edges.append((ids[info["id"]], visit(fn), input_nr))
        k += 1

    for nid in order:
        info = infos[nid]
        seq = "UINT64_MAX" if info["sequence_nr"] == _UINT64_MAX else str(info["sequence_nr"])
        label = [_short(info["name"]), f"seq {seq}  topo {info['topological_nr']}"]
        attrs = []
        if info["variable_shape"] is not None:
            label.append("leaf " + _shape(info["variable_shape"]))
        if show_saved and info["saved"]:
            label.append("saved " + ", ".join(_shape(s) for s in info["saved"]))
        st = state.get(nid)
        if st is not None:
            label.append(f"{st['status']}  deps {st['dependencies']}")
            if not graph_task_state["exec_info_empty"]:
                label.append(f"needed {'yes' if st['needed'] else 'no'}  "
                             f"captured {'yes' if st['captured'] else 'no'}")
            if st["not_ready_slots"] is not None:
                slots = " ".join("x" if filled else "_" for filled in st["not_ready_slots"])
                label.append(f"not_ready_ [{slots}]")
            attrs.append(f"style=filled, fillcolor={_STATUS_COLOURS[st['status']]}")
        elif info["variable_shape"] is not None:
            attrs.append("style=filled, fillcolor=lightblue")
        lines.append(f"  {ids[nid]} [label={_quote(chr(10).join(label))}{''.join(', ' + a for a in attrs)}];")
    for src, dst, input_nr in edges:
        lines.append(f"  {src} -> {ids[dst]} [label={_quote(str(input_nr))}];")
    if graph_task_state is not None:
        title = (f"graph task {graph_task_state['graph_task']}  depth {graph_task_state['reentrant_depth']}  "
                 f"outstanding tasks {graph_task_state['outstanding_tasks']}")
        lines.append(f"  label={_quote(title)}; labelloc=t;")
    lines.append("}")
    return Digraph("\n".join(lines) + "\n")
