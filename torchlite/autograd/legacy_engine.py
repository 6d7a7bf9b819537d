"""The 2018 engine: torch/autograd/engine.py's pure-Python `ExecutionEngine`
(seed 003), run on torchlite graphs.

Before the C++ engine, `Variable.backward` called
`Variable._execution_engine.run_backward(variable, grad)`, a Python class
that walked the graph with a `ready` list (a stack: last in, first run), a
`not_ready` dict holding the partial gradients of nodes still waiting for a
consumer, and per-output `Counter`s of the consumers each node waits for.
This module ports that class; each node's backward step is
`node._do_backward(grads, retain_variables)` (the 2018 name), which runs the
node's hooks and `apply` as the C++ engine's `call_function` does.

    legacy_engine.backward(loss)            # one backward with the 2018 engine
    with legacy_engine.use():               # Tensor.backward / autograd.backward use it
        loss.backward()

See docs/legacy_engine.md for where its execution order differs from the
C++ engine's and why."""
import contextlib
from collections import Counter

from .. import _C
from ._backward import _check_counts, _make_grads, _tensor_or_tensors_to_tuple, _warn_create_graph_cycle_once
from .grad_mode import set_grad_enabled
from .graph import get_gradient_edge
from .variable import Variable

__all__ = ["ExecutionEngine", "backward", "use"]


class _GraphRoot:
    """The roots' producer, as the C++ engine's GraphRoot: its
    next_functions are the roots' gradient edges and its backward step
    returns their gradients. The 2018 engine started from one root
    (`ready = [(variable.creator, (grad,))]`); starting from this node lets
    several roots, and roots that feed each other, wait for all their
    gradients like any other node."""

    def __init__(self, edges, grads):
        self.next_functions = tuple(edges)
        self._grads = tuple(grads)

    def name(self):
        return "GraphRoot"

    def _num_inputs(self):
        return 0

    def _do_backward(self, grad_output, retain_variables):
        return self._grads


class ExecutionEngine:
    """Seed 003's ExecutionEngine: run_backward and its three helpers."""

    def _compute_dependencies(self, function):
        """For every node reachable from `function`: one Counter per input
        slot (the 2018 engine's "outputs" of the forward function), counting
        the edges from each consumer into that slot."""
        dependencies = {}
        seen = {function}
        queue = [function]
        while len(queue) > 0:
            fn = queue.pop()
            for prev_fn, output_idx in fn.next_functions:
                if prev_fn is None:
                    continue
                if prev_fn not in dependencies:
                    dependencies[prev_fn] = [Counter() for _ in range(prev_fn._num_inputs())]
                dependencies[prev_fn][output_idx][fn] += 1
                if prev_fn not in seen:
                    queue.append(prev_fn)
                    seen.add(prev_fn)
        return dependencies

    def _free_backward_dependency(self, dependencies, prev_fn, fn, output_idx):
        """Marks one edge fn -> prev_fn's slot `output_idx` as delivered."""
        output_deps = dependencies[prev_fn][output_idx]
        output_deps[fn] -= 1
        if output_deps[fn] == 0:
            del output_deps[fn]
        return output_idx

    def _is_ready_for_backward(self, dependencies, function):
        """Ready once no consumer of any of its slots is outstanding."""
        for deps in dependencies[function]:
            if len(deps) > 0:
                return False
        return True

    def run_backward(self, tensors, grads, retain_graph=False, create_graph=False):
        """Runs one backward from `tensors` with gradients `grads` (checked
        already) and returns the nodes in the order they ran."""
        edges = [get_gradient_edge(t) for t in tensors]  # also a leaf's AccumulateGrad
        root = _GraphRoot([(e.node, e.output_nr) for e in edges], grads)
        ready = [(root, ())]
        not_ready = {}
        order = []

        dependencies = self._compute_dependencies(root)

        with set_grad_enabled(create_graph):
            while len(ready) > 0:
                fn, grad = ready.pop()
                grad_input = fn._do_backward(tuple(grad), retain_graph)
                if fn is not root:
                    order.append(fn)
                for (prev_fn, output_idx), d_prev_fn in zip(fn.next_functions, grad_input, strict=True):
                    # The 2018 engine asked prev_fn.requires_grad; an edge to no
                    # node is how torchlite marks an input that needs no gradient.
                    if prev_fn is None:
                        continue
                    output_nr = self._free_backward_dependency(dependencies, prev_fn, fn, output_idx)
                    is_ready = self._is_ready_for_backward(dependencies, prev_fn)
                    if is_ready:
                        if prev_fn in not_ready:
                            prev_grad = not_ready[prev_fn]
                            prev_grad[output_nr] = _accumulate(prev_grad[output_nr], d_prev_fn)
                            del not_ready[prev_fn]
                        else:
                            # The 2018 engine asserted output_nr == 0 here and made
                            # a 1-tuple, so a node with several outputs could not
                            # become ready at once through another: every slot is kept.
                            prev_grad = [None] * prev_fn._num_inputs()
                            prev_grad[output_nr] = d_prev_fn
                        ready.append((prev_fn, prev_grad))
                    else:
                        if prev_fn in not_ready:
                            prev_grad = not_ready[prev_fn]
                        else:
                            prev_grad = [None] * prev_fn._num_inputs()
                        prev_grad[output_nr] = _accumulate(prev_grad[output_nr], d_prev_fn)
                        not_ready[prev_fn] = prev_grad
        return order


def _accumulate(old, new):
    """Sums two gradients for one slot. The 2018 engine tested `not
    prev_grad[i]` (false for a tensor holding 0, too) and summed in place
    with add_ ("TODO: double-buffering"), which writes into a gradient a
    node may have returned for two inputs at once (AddBackward0 does); like
    the C++ InputBuffer this adds out of place."""
    if old is None:
        return new
    if new is None:
        return old
    return old + new


_engine = ExecutionEngine()


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False):
    """torch.autograd.backward with the 2018 engine: accumulates the
    gradients of `tensors` into the leaves' .grad, with backward()'s argument
    checks and messages."""
    tensors = (tensors,) if isinstance(tensors, _C.TensorBase) else tuple(tensors)
    grads = _make_grads(tensors, _tensor_or_tensors_to_tuple(grad_tensors, len(tensors)))
    _check_counts(tensors, grad_tensors)
    if retain_graph is None:
        retain_graph = create_graph
    if create_graph:
        _warn_create_graph_cycle_once()
    _run(tensors, grads, retain_graph, create_graph)


def _run(tensors, grads, retain_graph, create_graph):
    # The C++ engine's root checks and messages (collect_roots in python_engine.cpp).
    _C._check_backward_roots(tuple(tensors), tuple(grads))
    return _engine.run_backward(tensors, grads, retain_graph, create_graph)


class _LegacyExecutionEngine:
    """Stands in for Variable._execution_engine inside use(): backward()
    calls without `inputs` run on the 2018 engine; grad() and
    backward(inputs=...) need exec_info, which the 2018 engine did not have,
    so they, and everything else, go to the C++ engine."""

    def __init__(self, engine):
        self._engine = engine

    def run_backward(self, tensors, grad_tensors, keep_graph, create_graph, inputs, allow_unreachable,
                     accumulate_grad):
        if not accumulate_grad or len(inputs) > 0:
            return self._engine.run_backward(tensors, grad_tensors, keep_graph, create_graph, inputs,
                                             allow_unreachable, accumulate_grad)
        _run(tensors, grad_tensors, keep_graph, create_graph)
        return None

    def __getattr__(self, name):
        return getattr(self._engine, name)


@contextlib.contextmanager
def use():
    """Within the block, Tensor.backward and autograd.backward run on the
    2018 engine: it takes the place of Variable._execution_engine, where
    2018's Variable.backward found its engine too. Not thread-local."""
    previous = Variable._execution_engine
    Variable._execution_engine = _LegacyExecutionEngine(previous)
    try:
        yield
    finally:
        Variable._execution_engine = previous
