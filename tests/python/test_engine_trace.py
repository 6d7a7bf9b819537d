"""torchlite.autograd.trace: what the engine records per NodeTask and per
GraphTask, on the CPU, on sim devices (device threads and queues), in
reentrant backward and on errors; its text timeline and Chrome trace."""
import json
import threading

import pytest
import torch as real_torch

import torchlite as torch
from torchlite import _C
from torchlite.autograd import Variable

ACC = "torch::autograd::AccumulateGrad"
KEYS = {"kind", "time_ns", "thread", "native_thread_id", "thread_name", "worker_device", "graph_task",
        "reentrant_depth", "task", "producer", "node", "node_id", "sequence_nr", "topological_nr", "queue", "input_nr",
        "count", "detail"}


def diamond(lib, device="cpu"):
    """x -> u = x*2 -> (u.sin(), u.exp()) -> add -> sum: MulBackward0 has two
    dependencies, so its buffer is parked in not_ready_ and accumulated."""
    x = lib.tensor([0.5, 1.5], requires_grad=True, device=device)
    u = x * 2
    out = (u.sin() + u.exp()).sum()
    return x, out


def of(events, kind):
    return [e for e in events if e["kind"] == kind]


def torch_order(out):
    """The node names in the order torch runs them (node pre-hooks)."""
    order, seen, stack = [], set(), [out.grad_fn]
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        fn.register_prehook(lambda g, fn=fn: order.append(fn.name()))
        stack.extend(f for f, _ in fn.next_functions)
    out.backward()
    return order


def test_trace_of_a_known_graph_on_the_cpu():
    x, out = diamond(torch)
    with torch.autograd.trace() as t:
        out.backward()
    ev = t.events
    assert all(set(e) == KEYS for e in ev)
    assert [e["kind"] for e in ev][0] == "graph_task_start" and ev[-1]["kind"] == "graph_task_end"
    assert ev[-1]["detail"] == "ok"
    starts = of(ev, "task_start")
    names = [e["node"] for e in starts]
    assert names == ["SumBackward0", "AddBackward0", "ExpBackward0", "SinBackward0", "MulBackward0", ACC]
    # The order torch runs the same graph in.
    _, ref_out = diamond(real_torch)
    assert names == torch_order(ref_out)
    # Every task runs on the calling thread, popped from its own CPU queue.
    me = threading.get_native_id()
    thread = starts[0]["thread"]
    for e in ev:
        assert (e["native_thread_id"], e["thread"], e["thread_name"], e["worker_device"]) == \
            (me, thread, "user thread", -1)
        assert e["graph_task"] == ev[0]["graph_task"] and e["reentrant_depth"] == 0
    assert {e["queue"] for e in starts + of(ev, "enqueue")} == {f"cpu:{thread}"}
    # Each task is enqueued once, started once, ended ok, and its producer ran before.
    enq = of(ev, "enqueue")
    assert sorted(e["task"] for e in enq) == sorted(e["task"] for e in starts)
    assert [e["detail"] for e in of(ev, "task_end")] == ["ok"] * 6
    by_task = {e["task"]: e["node"] for e in starts}
    assert [(by_task.get(e["producer"]), e["node"]) for e in enq] == [
        (None, "SumBackward0"), ("SumBackward0", "AddBackward0"), ("AddBackward0", "SinBackward0"),
        ("AddBackward0", "ExpBackward0"), ("SinBackward0", "MulBackward0"), ("MulBackward0", ACC)]
    # Sequence numbers fall along the run (AccumulateGrad has UINT64_MAX).
    seqs = [e["sequence_nr"] for e in starts]
    assert seqs[:-1] == sorted(seqs[:-1], reverse=True) and seqs[-1] == 2 ** 64 - 1
    assert starts[-1]["topological_nr"] == 0 and starts[0]["topological_nr"] == 4
    # MulBackward0: two dependencies, the first parks its buffer, the second
    # is summed into it and releases it.
    mul = [e for e in ev if e["node"] == "MulBackward0" and e["kind"] in
           ("dependency", "not_ready_park", "accumulate", "not_ready_release")]
    assert [(e["kind"], e["count"], by_task[e["task"]]) for e in mul] == [
        ("dependency", 1, "ExpBackward0"), ("not_ready_park", None, "ExpBackward0"),
        ("dependency", 0, "SinBackward0"), ("accumulate", None, "SinBackward0"),
        ("not_ready_release", None, "SinBackward0")]
    assert all(e["input_nr"] == 0 for e in mul)
    # Times are relative to the trace's start and ordered.
    times = [e["time_ns"] for e in ev]
    assert times == sorted(times) and 0 <= times[0] < 10 ** 9


def test_trace_on_sim_devices_uses_the_device_queue_and_thread():
    x = torch.tensor([1.0, 2.0], requires_grad=True, device="sim:1")
    y = torch.tensor([3.0, 4.0], requires_grad=True)
    out = (x.cpu() * y).sum()
    with torch.autograd.trace() as t:
        out.backward()
    ev = t.events
    me = threading.get_native_id()
    starts = of(ev, "task_start")
    where = [(e["node"], e["queue"].split(":")[0], e["thread_name"], e["worker_device"]) for e in starts]
    # The gradient of x is on sim:1, so its AccumulateGrad goes to device queue 1.
    assert ("ToCopyBackward0", "cpu", "user thread", -1) in where
    assert (ACC, "device", "device thread 1", 1) in where
    dev = [e for e in starts if e["queue"] == "device:1"]
    assert len(dev) == 1 and dev[0]["native_thread_id"] != me
    cpu = [e for e in starts if e["queue"] != "device:1"]
    assert all(e["native_thread_id"] == me for e in cpu)
    # Whichever thread drops the outstanding count to zero completes the task;
    # the device thread then wakes the owner with an empty task on its queue.
    end = of(ev, "graph_task_end")
    assert len(end) == 1 and end[0]["thread_name"] in ("device thread 1", "user thread")
    wake = of(ev, "wakeup")
    if end[0]["thread_name"] == "device thread 1":
        assert len(wake) == 1 and wake[0]["queue"] == cpu[0]["queue"] and wake[0]["thread_name"] == "device thread 1"
    else:
        assert wake == []
    assert x.grad.tolist() == [3.0, 4.0]


def test_trace_of_a_graph_on_one_sim_device_runs_on_its_thread():
    x = torch.tensor([1.0, 2.0], requires_grad=True, device="sim:0")
    out = (x * x).sum()
    with torch.autograd.trace() as t:
        out.backward()
    ev = t.events
    root = of(ev, "enqueue")[0]
    assert root["producer"] is None and root["queue"] == "device:0" and root["thread_name"] == "user thread"
    starts = of(ev, "task_start")
    assert [e["node"] for e in starts] == ["SumBackward0", "MulBackward0", ACC]
    assert {(e["queue"], e["thread_name"], e["worker_device"]) for e in starts} == {("device:0", "device thread 0", 0)}
    # x * x: both outputs of MulBackward0 go to one AccumulateGrad slot.
    acc = [(e["kind"], e["count"]) for e in ev if e["node"] == ACC and e["kind"] != "task_start"
           and e["kind"] != "task_end" and e["kind"] != "enqueue"]
    assert acc == [("graph_task_node", 2), ("dependency", 1), ("not_ready_park", None), ("dependency", 0),
                   ("accumulate", None), ("not_ready_release", None)]


class Reentrant(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 1

    @staticmethod
    def backward(ctx, g):
        with torch.enable_grad():
            a = torch.ones(2, requires_grad=True)
            (a * 3).sum().backward()
        return g


def test_trace_of_a_reentrant_backward():
    x = torch.ones(2, requires_grad=True)
    out = Reentrant.apply(x).sum()
    with torch.autograd.trace() as t:
        out.backward()
    ev = t.events
    gts = of(ev, "graph_task_start")
    assert len(gts) == 2
    outer, inner = gts
    assert (outer["reentrant_depth"], inner["reentrant_depth"]) == (0, 1)
    assert outer["graph_task"] != inner["graph_task"]
    starts = of(ev, "task_start")
    reentrant = next(e for e in starts if e["node"] == "ReentrantBackward")
    # The inner graph task starts inside the outer node's task, on the same thread,
    # and its root is enqueued by that task.
    assert inner["task"] == reentrant["task"] and inner["thread"] == reentrant["thread"]
    inner_root = next(e for e in of(ev, "enqueue") if e["graph_task"] == inner["graph_task"])
    assert inner_root["producer"] == reentrant["task"] and inner_root["reentrant_depth"] == 1
    inner_tasks = [e["node"] for e in starts if e["graph_task"] == inner["graph_task"]]
    assert inner_tasks == ["SumBackward0", "MulBackward0", ACC]
    # The inner task completes before the outer node ends.
    kinds = [(e["kind"], e["graph_task"]) for e in ev]
    inner_end = kinds.index(("graph_task_end", inner["graph_task"]))
    outer_node_end = next(i for i, e in enumerate(ev) if e["kind"] == "task_end" and e["task"] == reentrant["task"])
    assert inner_end < outer_node_end


class Deep(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, depth):
        ctx.depth = depth
        return x * 1

    @staticmethod
    def backward(ctx, g):
        if ctx.depth > 0:
            with torch.enable_grad():
                a = torch.ones(1, requires_grad=True)
                Deep.apply(a, ctx.depth - 1).sum().backward()
        return g, None


def test_trace_shows_the_hand_off_to_the_reentrant_pool():
    x = torch.ones(1, requires_grad=True)
    out = Deep.apply(x, 62).sum()
    with torch.autograd.trace() as t:
        out.backward()
    handoffs = of(t.events, "reentrant_handoff")
    assert handoffs and handoffs[0]["reentrant_depth"] == 61
    assert "reached MAX_DEPTH" in handoffs[0]["detail"]
    pool = {e["thread_name"] for e in t.events if e["graph_task"] == handoffs[0]["graph_task"]
            and e["kind"] == "task_start"}
    assert pool == {"reentrant pool thread"}


class Boom(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 1

    @staticmethod
    def backward(ctx, g):
        raise ValueError("boom in backward")


def test_trace_of_an_exception_in_a_node():
    x = torch.ones(2, requires_grad=True)
    out = Boom.apply(x).sum()
    with torch.autograd.trace() as t:
        with pytest.raises(ValueError, match="boom in backward"):
            out.backward()
    ev = t.events
    exc = of(ev, "exception")
    assert len(exc) == 1 and exc[0]["node"] == "BoomBackward" and "boom in backward" in exc[0]["detail"]
    ends = {e["node"]: e["detail"] for e in of(ev, "task_end")}
    assert ends == {"SumBackward0": "ok", "BoomBackward": "error"}
    assert [e["detail"] for e in of(ev, "graph_task_end")] == ["error"]


def test_trace_of_grad_captures_and_final_callbacks():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    u = x * 2
    out = (u * u).sum()
    calls = []

    def hook(g):
        Variable._execution_engine.queue_callback(lambda: calls.append("cb"))
    out.register_hook(hook)
    with torch.autograd.trace() as t:
        (gu,) = torch.autograd.grad(out, [u])
    assert gu.tolist() == [4.0, 8.0] and calls == ["cb"]
    ev = t.events
    assert "exec_info: partial" in of(ev, "graph_task_start")[0]["detail"]
    cap = of(ev, "capture")
    assert [(e["node"], e["input_nr"], e["count"]) for e in cap] == [("MulBackward0", 0, 0)]
    # u's node is captured but not needed: it ends without running its formula.
    assert [e["node"] for e in of(ev, "task_start")] == ["SumBackward0", "MulBackward0", "MulBackward0"]
    assert [e["count"] for e in of(ev, "final_callback")] == [0]
    kinds = [e["kind"] for e in ev]
    assert kinds.index("final_callback") < kinds.index("graph_task_end")


def test_sessions_do_not_nest_and_stop_on_exit():
    x, out = diamond(torch)
    with torch.autograd.trace() as t:
        assert _C._trace_is_enabled()
        with pytest.raises(RuntimeError, match="already being recorded"):
            with torch.autograd.trace():
                pass
        out.backward(retain_graph=True)  # the failed nested session did not stop this one
    assert not _C._trace_is_enabled()
    assert len(of(t.events, "graph_task_start")) == 1 and len(of(t.events, "task_start")) == 6
    with torch.autograd.trace() as t2:
        pass
    assert t2.events == []


def test_timeline_has_one_line_per_event():
    x, out = diamond(torch)
    with torch.autograd.trace() as t:
        out.backward()
    lines = t.timeline().splitlines()
    assert len(lines) == len(t.events)
    assert "graph_task_start" in lines[0] and "roots: SumBackward0" in lines[0]
    assert any("MulBackward0 input 0: dependencies left 1" in line for line in lines)
    assert any("task #1 SumBackward0 (seq" in line and "popped from cpu:" in line for line in lines)
    assert lines[-1].split()[-1] == "ok"


def test_chrome_trace_has_a_track_per_thread_slices_and_flows(tmp_path):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device="sim:1")
    y = torch.tensor([3.0, 4.0], requires_grad=True)
    out = (x.cpu() * y).sum()
    with torch.autograd.trace() as t:
        out.backward()
    path = t.to_chrome_trace(str(tmp_path / "trace.json"))
    with open(path) as f:
        data = json.load(f)
    evs = data["traceEvents"]
    names = {e["tid"]: e["args"]["name"] for e in evs if e["ph"] == "M" and e["name"] == "thread_name"}
    assert sorted(n.split(" ", 1)[1] for n in names.values()) == ["device thread 1", "user thread"]
    slices = [e for e in evs if e["ph"] == "X"]
    assert len(slices) == len(of(t.events, "task_start"))
    dev = [e for e in slices if e["name"] == ACC and names[e["tid"]].endswith("device thread 1")]
    assert len(dev) == 1 and all(e["dur"] >= 0 for e in slices)
    # A flow from every task to each task it made ready: the start inside the
    # producer's slice on its track, the end at the consumer's start.
    starts = {e["id"]: e for e in evs if e["ph"] == "s"}
    ends = {e["id"]: e for e in evs if e["ph"] == "f"}
    assert set(starts) == set(ends) and len(starts) == len(slices) - 1
    by_task = {e["args"]["task"]: e for e in slices}
    for fid, s in starts.items():
        consumer = by_task[fid]
        assert ends[fid]["tid"] == consumer["tid"] and ends[fid]["ts"] == consumer["ts"] and ends[fid]["bp"] == "e"
        producer = next(p for p in slices if p["tid"] == s["tid"] and p["ts"] <= s["ts"] <= p["ts"] + p["dur"])
        assert producer["args"]["task"] != fid
    assert any(e["ph"] == "i" and e["name"].startswith("dependency") for e in evs)
    # The graph task spans its start to its completion.
    (gt,) = [e["graph_task"] for e in of(t.events, "graph_task_start")]
    (b,), (end,) = [e for e in evs if e["ph"] == "b"], [e for e in evs if e["ph"] == "e"]
    assert b["id"] == end["id"] == gt and b["ts"] <= min(e["ts"] for e in slices)
    assert end["ts"] >= max(e["ts"] + e["dur"] for e in slices) and end["args"]["status"] == "ok"


def test_trace_of_a_failing_final_callback():
    x = torch.ones(2, requires_grad=True)
    y = x * 2

    def fail():
        raise ValueError("callback failed")
    y.register_hook(lambda g: Variable._execution_engine.queue_callback(fail))
    with torch.autograd.trace() as t:
        with pytest.raises(ValueError, match="callback failed"):
            y.sum().backward()
    ev = t.events
    assert [e["kind"] for e in ev[-3:]] == ["final_callback", "exception", "graph_task_end"]
    assert ev[-2]["node"] is None and "callback failed" in ev[-2]["detail"]
    assert ev[-1]["detail"] == "error"
    lines = t.timeline().splitlines()
    assert len(lines) == len(ev) and lines[-2].endswith("exception         ValueError: callback failed")


def test_stream_events_name_the_graph_task_that_caused_them():
    # On sim:0 each accumulation into an occupied InputBuffer slot records the
    # slot's ready event from InputBuffer::add; the backward before the traced
    # one makes the traced graph task's id differ from the default 0.
    x = torch.tensor([1.0, 2.0], requires_grad=True, device="sim:0")
    (x * x).sum().backward()
    out = (x * x).sum()
    with torch.autograd.trace() as t:
        out.backward()
    ev = t.events
    (gt,) = {e["graph_task"] for e in of(ev, "graph_task_start")}
    assert gt != 0
    rec = of(ev, "stream_record")
    assert [e["detail"].startswith("InputBuffer::add: slot ready after accumulation") for e in rec] == [True]
    mul = next(e for e in of(ev, "task_start") if e["node"] == "MulBackward0")
    assert (rec[0]["graph_task"], rec[0]["task"], rec[0]["thread"]) == (gt, mul["task"], mul["thread"])
    assert {e["graph_task"] for e in ev} == {gt}


def test_graph_task_nodes_come_in_the_order_the_walk_from_the_root_reaches_them():
    # Not in nodes_in_graph_'s (address) order, which changes from graph to graph.
    for _ in range(20):
        _, out = diamond(torch)
        with torch.autograd.trace() as t:
            out.backward()
        assert [(e["node"], e["count"]) for e in of(t.events, "graph_task_node")] == [
            ("SumBackward0", 0), ("AddBackward0", 1), ("SinBackward0", 1), ("ExpBackward0", 1), ("MulBackward0", 2),
            (ACC, 1)]
