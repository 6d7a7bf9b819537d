"""torchlite.autograd.graph: get_gradient_edge against torch, to_dot's DOT
text for a known graph, a GraphTask's state drawn from inside hooks, and
render() with and without Graphviz."""
import shutil
import sys

import pytest
import torch as real_torch

import torchlite as torch
from torchlite.autograd import graph


def diamond(lib):
    x = lib.tensor([0.5, 1.5], requires_grad=True)
    u = x * 2
    v = u.sin()
    w = u.exp()
    out = (v + w).sum()
    return x, u, v, w, out


def test_get_gradient_edge_matches_torch():
    def edges(lib):
        x, u, v, w, out = diamond(lib)
        e_out, e_u, e_x = (lib.autograd.graph.get_gradient_edge(t) for t in (out, u, x))
        return [(e.node.name(), e.output_nr, e.ownership_token) for e in (e_out, e_u, e_x)]
    assert edges(torch) == edges(real_torch)
    x, u, v, w, out = diamond(torch)
    edge = graph.get_gradient_edge(u)
    assert edge.node is u.grad_fn and edge == (u.grad_fn, 0, None)
    assert graph.get_gradient_edge(x).node is u.grad_fn.next_functions[0][0]


def test_get_gradient_edge_of_a_tensor_without_grad_raises_like_torch():
    def err(lib):
        with pytest.raises(RuntimeError) as info:
            lib.autograd.graph.get_gradient_edge(lib.ones(2))
        return str(info.value)
    assert err(torch) == err(real_torch)


def test_get_gradient_edge_of_a_custom_function_output_holds_a_token():
    class Double(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2
    x = torch.ones(2, requires_grad=True)
    y = Double.apply(x)
    edge = graph.get_gradient_edge(y)
    assert edge.node is y.grad_fn and edge.ownership_token is not None
    assert edge.ownership_token.next_functions[0][0] is y.grad_fn


def test_dot_text_of_a_known_graph():
    x, u, v, w, out = diamond(torch)
    s = out.grad_fn._sequence_nr() - 4  # sequence numbers count per thread
    expected = "\n".join([
        "digraph backward {",
        '  node [shape=box, fontname="monospace", fontsize=10];',
        '  edge [fontname="monospace", fontsize=9];',
        '  t0 [label="tensor ()", shape=ellipse];',
        f'  n0 [label="SumBackward0\\nseq {s + 4}  topo 4"];',
        f'  n1 [label="AddBackward0\\nseq {s + 3}  topo 3"];',
        f'  n2 [label="SinBackward0\\nseq {s + 1}  topo 2\\nsaved (2,)"];',
        f'  n3 [label="ExpBackward0\\nseq {s + 2}  topo 2\\nsaved (2,)"];',
        f'  n4 [label="MulBackward0\\nseq {s}  topo 1\\nsaved ()"];',
        '  n5 [label="AccumulateGrad\\nseq UINT64_MAX  topo 0\\nleaf (2,)", style=filled, fillcolor=lightblue];',
        '  t0 -> n0 [label="0"];',
        '  n0 -> n1 [label="0"];',
        '  n1 -> n2 [label="0"];',
        '  n1 -> n3 [label="0"];',
        '  n2 -> n4 [label="0"];',
        '  n3 -> n4 [label="0"];',
        '  n4 -> n5 [label="0"];',
        "}", ""])
    assert graph.to_dot(out).source == expected


def test_dot_edges_carry_input_nr_and_saved_shapes_follow_release():
    a = torch.ones(2, 3, requires_grad=True)
    b = torch.ones(3, requires_grad=True)
    y = a * b  # MulBackward0 saves both, b broadcast
    dot = graph.to_dot(y).source
    assert "saved (2, 3), (3,)" in dot
    assert "leaf (2, 3)" in dot and "leaf (3,)" in dot
    assert '-> n1 [label="0"]' in dot and '-> n2 [label="0"]' in dot
    y.sum().backward()  # frees the saved tensors
    assert "saved freed, freed" in graph.to_dot(y).source
    assert graph.to_dot(y, show_saved=False).source.count("saved") == 0
    # A node as the root: no tensor ellipse. A GradientEdge: the edge's output_nr.
    assert "ellipse" not in graph.to_dot(y.grad_fn).source
    assert '"gradient edge"' in graph.to_dot(graph.get_gradient_edge(y)).source


def test_dot_of_two_outputs_of_one_node_labels_the_input_slots():
    x = torch.ones(4, requires_grad=True)
    p, q = x.split(2)
    dot = graph.to_dot([p, q]).source
    lines = dot.splitlines()
    assert '  t0 -> n0 [label="0"];' in lines and '  t1 -> n0 [label="1"];' in lines


def state_in_hook(tensor_to_hook, out, **kw):
    seen = []
    tensor_to_hook.register_hook(lambda g: seen.append(torch._C._current_graph_task_state()))
    if kw.get("inputs"):
        torch.autograd.grad(out, kw["inputs"])
    else:
        out.backward()
    return seen[0]


def by_name(state):
    return {n["name"].rsplit("::", 1)[-1]: n for n in state["nodes"]}


def test_graph_task_state_inside_hooks():
    x, u, v, w, out = diamond(torch)
    # v's hook runs as SinBackward0 is about to run: ExpBackward0 already gave
    # MulBackward0 one of its two gradients, AddBackward0 and SumBackward0 ran.
    st = state_in_hook(v, out)
    n = by_name(st)
    assert st["exec_info_empty"] and st["graph_task"] >= 0 and st["reentrant_depth"] == 0
    assert (n["SinBackward0"]["status"], n["SinBackward0"]["dependencies"]) == ("running", 0)
    assert n["ExpBackward0"]["status"] == n["AddBackward0"]["status"] == n["SumBackward0"]["status"] == "done"
    assert (n["MulBackward0"]["status"], n["MulBackward0"]["dependencies"]) == ("waiting", 1)
    assert n["MulBackward0"]["not_ready_slots"] == [True]
    assert (n["AccumulateGrad"]["status"], n["AccumulateGrad"]["dependencies"]) == ("waiting", 1)
    assert n["AccumulateGrad"]["not_ready_slots"] is None
    assert st["roots"] == [n["SumBackward0"]["id"]]
    assert n["SumBackward0"]["node"] is out.grad_fn

    dot = graph.to_dot(out, graph_task_state=st).source
    assert "running  deps 0\", style=filled, fillcolor=orange" in dot
    assert "waiting  deps 1\\nnot_ready_ [x]\", style=filled, fillcolor=white" in dot
    assert f'label="graph task {st["graph_task"]}  depth 0  outstanding tasks 1"; labelloc=t;' in dot


def test_graph_task_state_shows_queued_nodes():
    x, u, v, w, out = diamond(torch)
    # w's hook: ExpBackward0 runs first; AddBackward0 queued SinBackward0 too.
    n = by_name(state_in_hook(w, out))
    assert n["ExpBackward0"]["status"] == "running" and n["SinBackward0"]["status"] == "queued"
    assert n["MulBackward0"]["dependencies"] == 2 and n["MulBackward0"]["not_ready_slots"] is None


def test_graph_task_state_of_grad_shows_exec_info():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0], requires_grad=True)
    h = (a + 1).sin()
    out = (h * b.exp()).sum()
    st = state_in_hook(out, out, inputs=[h])
    assert not st["exec_info_empty"]
    n = by_name(st)
    assert n["SinBackward0"]["captured"] and not n["SinBackward0"]["needed"]
    assert n["MulBackward0"]["needed"] and not n["MulBackward0"]["captured"]
    # Nodes grad() does not need never run, whatever their dependencies.
    assert n["ExpBackward0"]["status"] == "not needed" and not n["ExpBackward0"]["needed"]
    assert n["ExpBackward0"]["dependencies"] == 1
    assert n["SinBackward0"]["status"] == "waiting"
    # Nodes older than every input are not expanded (topological_nr pruning).
    assert "AccumulateGrad" not in n and "AddBackward0" in n
    dot = graph.to_dot(out, graph_task_state=st).source
    assert "needed no  captured yes" in dot and "fillcolor=lightgrey" in dot


def test_graph_task_state_outside_a_backward_raises():
    with pytest.raises(RuntimeError, match="_current_graph_task_state should only be called during the backward"):
        torch._C._current_graph_task_state()


def test_render_draws_svg_and_png_with_graphviz(tmp_path):
    assert shutil.which("dot"), "Graphviz's dot is installed on the test machines"
    x, u, v, w, out = diamond(torch)
    g = graph.to_dot(out)
    svg = g.render(str(tmp_path / "g.svg"))
    assert svg.endswith("g.svg") and "<svg" in open(svg).read() and "SumBackward0" in open(svg).read()
    png = g.render(str(tmp_path / "g.png"))
    with open(png, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"


def test_render_without_the_graphviz_package_uses_dot_directly(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "graphviz", None)  # import graphviz raises ImportError
    x, u, v, w, out = diamond(torch)
    path = graph.to_dot(out).render(str(tmp_path / "g.svg"))
    assert "<svg" in open(path).read()


def test_render_without_dot_writes_dot_text_and_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None)
    x, u, v, w, out = diamond(torch)
    g = graph.to_dot(out)
    with pytest.warns(UserWarning, match=r"pip install torchlite\[viz\]` and the graphviz system package"):
        path = g.render(str(tmp_path / "g.svg"))
    assert path == str(tmp_path / "g.dot")
    assert open(path).read() == g.source
    assert not (tmp_path / "g.svg").exists()


def test_dot_of_custom_function_and_packed_saved_tensors():
    class Sq(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return 2 * a * g
    x = torch.ones(2, 3, requires_grad=True)
    y = Sq.apply(x)
    assert 'n0 [label="SqBackward\\nseq ' in graph.to_dot(y).source
    assert "topo 1\\nsaved (2, 3)" in graph.to_dot(y).source
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        z = x.sin()
    assert "saved packed" in graph.to_dot(z).source


def test_state_replayed_from_a_trace_step_matches_the_live_state():
    x, u, v, w, out = diamond(torch)
    live = []
    v.register_hook(lambda g: live.append(torch._C._current_graph_task_state()))
    with torch.autograd.trace() as t:
        out.backward(retain_graph=True)
    # v's hook ran as SinBackward0 started: replay the trace up to that event.
    step = next(i for i, e in enumerate(t.events) if e["kind"] == "task_start" and e["node"] == "SinBackward0")
    replayed = t.graph_task_state(step)
    assert replayed["graph_task"] == live[0]["graph_task"]

    def table(state):
        return sorted((n["name"], n["status"], n["dependencies"], n["not_ready_slots"]) for n in state["nodes"])
    assert table(replayed) == table(live[0])
    assert graph.to_dot(out, graph_task_state=replayed).source == \
        graph.to_dot(out, graph_task_state=live[0]).source
    # At the end every node is done and nothing is outstanding.
    end = t.graph_task_state()
    assert {n["status"] for n in end["nodes"]} == {"done"} and end["outstanding_tasks"] == 0


def test_state_replayed_from_a_trace_of_grad_shows_exec_info():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0], requires_grad=True)
    h = (a + 1).sin()
    out = (h * b.exp()).sum()
    with torch.autograd.trace() as t:
        torch.autograd.grad(out, [h])
    st = t.graph_task_state()
    assert not st["exec_info_empty"]
    n = by_name(st)
    assert n["ExpBackward0"]["status"] == "not needed" and not n["ExpBackward0"]["needed"]
    assert n["SinBackward0"]["captured"] and not n["SinBackward0"]["needed"]
    assert n["MulBackward0"]["needed"] and n["MulBackward0"]["status"] == "done"
    with pytest.raises(RuntimeError, match="recorded no graph task"):
        with torch.autograd.trace() as empty:
            pass
        empty.graph_task_state()
