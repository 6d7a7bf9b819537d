"""The engine trace: every step the C++ engine takes while recording, with
the thread and queue it took it on (torchlite's own; see Note [Engine trace]
in csrc/autograd/engine_trace.h and docs/design.md).

    with torchlite.autograd.trace() as t:
        loss.backward()
    print(t.timeline())
    t.to_chrome_trace("backward.json")   # open in https://ui.perfetto.dev

`t.events` is a list of plain dicts, in the order they were recorded, each
with every key below (None where it does not apply):

    kind             graph_task_start, graph_task_node, graph_task_end,
                     enqueue, wakeup,
                     task_start, task_end, dependency, not_ready_park,
                     not_ready_release, accumulate, capture,
                     reentrant_handoff, stream_record, stream_wait,
                     final_callback, exception; the graph_task_node
                     events follow their graph_task_start, the roots first,
                     then the other nodes in the order compute_dependencies'
                     walk first reaches them
    time_ns          nanoseconds since the trace started
    thread           the recording thread's index (1, 2, ... stable for the
                     process's life); thread_name: "user thread",
                     "device thread N" or "reentrant pool thread";
                     native_thread_id: as threading.get_native_id()
    worker_device    the thread's worker_device: -2 none, -1 CPU, N device N
    graph_task       the GraphTask's id (torch._C._current_graph_task_id())
    reentrant_depth  the GraphTask's reentrant depth
    task             the NodeTask's id (enqueue, task_start, task_end) or the
                     id of the task that caused the event
    producer         enqueue: the task whose outputs made this one ready
                     (None for a graph task's root)
    node, node_id, sequence_nr, topological_nr
                     the node concerned: the task's node, or for dependency,
                     not_ready_*, accumulate the node receiving the gradient;
                     node_id is its address (as graph pictures name nodes)
    queue            the ReadyQueue pushed to (enqueue, wakeup) or popped
                     from (task_start): "cpu:T" is the CPU queue of thread T,
                     "device:N" the queue of device thread N
    input_nr         the InputBuffer slot (dependency, not_ready_*,
                     accumulate, capture)
    count            graph_task_node: the node's dependencies_ at the start;
                     dependency: the node's dependencies left after this
                     decrement; capture: the index grad() returns it at;
                     final_callback: the callback's index
    detail           graph_task_node: its exec_info_ ("needed", "captured",
                     "needed captured", "not needed"; None when exec_info_ is
                     empty); task_end: "ok", "error" or "skipped"; graph_task_end:
                     "ok" or "error"; graph_task_start: roots and node
                     count; exception: the message; stream_*: where, and
                     the stream
"""
import json
import time

from .. import _C

__all__ = ["trace"]

# Events drawn as instants on their thread's track (tasks are slices).
_INSTANT_KINDS = ("graph_task_start", "graph_task_node", "graph_task_end", "enqueue", "wakeup", "dependency",
                  "not_ready_park", "not_ready_release", "accumulate", "capture", "reentrant_handoff",
                  "stream_record", "stream_wait", "final_callback", "exception")


class trace:
    """Records the engine's steps while the block runs (one recording at a
    time in the process; a nested trace raises RuntimeError)."""

    def __init__(self):
        self.events = []
        self._start_ns = None

    def __enter__(self):
        self._start_ns = time.monotonic_ns()  # the engine stamps with the same clock (steady_clock)
        _C._trace_start()
        return self

    def __exit__(self, *exc):
        events = _C._trace_stop()
        for e in events:
            e["time_ns"] -= self._start_ns
        self.events = events
        return False

    def graph_task_state(self, step=None, graph_task=None):
        """A GraphTask's state after event `step` (an index into `events`;
        default: the last), replayed from the trace, in the form of
        torchlite._C._current_graph_task_state() so that
        autograd.graph.to_dot(..., graph_task_state=...) draws it. The graph
        task is `graph_task` (an id), else the one of event `step`, else the
        first traced. Nodes keep the status of their last event: waiting (with
        the dependencies left), queued, running, done, or not needed."""
        events = self.events if step is None else self.events[:step + 1]
        if graph_task is None:
            anchor = events[-1]["graph_task"] if events else None
            starts = [e["graph_task"] for e in self.events if e["kind"] == "graph_task_start"]
            graph_task = anchor if anchor in starts else (starts[0] if starts else None)
        if graph_task is None:
            raise RuntimeError("graph_task_state: the trace recorded no graph task")
        state = {"graph_task": graph_task, "reentrant_depth": 0, "keep_graph": None, "exec_info_empty": True,
                 "has_error": False, "outstanding_tasks": 0, "roots": [], "nodes": []}
        nodes, task_node = {}, {}
        for e in events:
            if e["graph_task"] != graph_task:
                continue
            kind, nid = e["kind"], e["node_id"]
            if kind == "graph_task_start":
                state["reentrant_depth"] = e["reentrant_depth"]
                state["exec_info_empty"] = e["detail"].endswith("exec_info: all")
            elif kind == "graph_task_node":
                info = e["detail"] or ""
                nodes[nid] = {"id": nid, "node": None, "name": e["node"], "dependencies": e["count"],
                              "status": "not needed" if info == "not needed" else "waiting",
                              "needed": info in ("needed", "needed captured"), "captured": "captured" in info,
                              "not_ready_slots": None}
            elif nid is not None:
                n = nodes.setdefault(nid, {"id": nid, "node": None, "name": e["node"], "dependencies": 0,
                                           "status": "waiting", "needed": False, "captured": False,
                                           "not_ready_slots": None})
                if kind == "dependency":
                    n["dependencies"] = e["count"]
                elif kind == "enqueue":
                    n["status"] = "queued"
                    task_node[e["task"]] = n
                    state["outstanding_tasks"] += 1
                elif kind == "task_start":
                    n["status"] = "running"
                elif kind == "task_end":
                    n["status"] = "done"
                    state["outstanding_tasks"] -= 1
                elif kind == "not_ready_park":
                    n["not_ready_slots"] = [i == e["input_nr"] for i in range(e["input_nr"] + 1)]
                elif kind == "accumulate" and n["not_ready_slots"] is not None:
                    slots = n["not_ready_slots"]
                    slots.extend([False] * (e["input_nr"] + 1 - len(slots)))
                    slots[e["input_nr"]] = True
                elif kind == "not_ready_release":
                    n["not_ready_slots"] = None
                elif kind == "exception":
                    state["has_error"] = True
        state["nodes"] = list(nodes.values())
        return state

    def timeline(self):
        """The events as text, one line per event: time since the trace
        started, thread, graph task, what happened."""
        lines = []
        for e in self.events:
            where = f"T{e['thread']} {e['thread_name']}"
            lines.append(f"{e['time_ns'] / 1e3:10.1f} us  {where:<24} gt{e['graph_task']}  "
                         f"{e['kind']:<17} {_describe(e)}".rstrip())
        return "\n".join(lines) + ("\n" if lines else "")

    def to_chrome_trace(self, path):
        """Writes the events as Chrome trace JSON (open it in Perfetto or
        chrome://tracing): one track per thread, a slice per NodeTask, a flow
        arrow from each task to the tasks it made ready, an async span per
        graph task, instants for the rest. Returns the path."""
        with open(path, "w") as f:
            json.dump(self.chrome_trace(), f, indent=1)
        return path

    def chrome_trace(self):
        """The dict to_chrome_trace writes."""
        out = [{"ph": "M", "pid": 1, "tid": 0, "name": "process_name",
                "args": {"name": "torchlite autograd engine"}}]
        threads = {}
        for e in self.events:
            threads.setdefault(e["thread"], e["thread_name"])
        for tid, name in sorted(threads.items()):
            out.append({"ph": "M", "pid": 1, "tid": tid, "name": "thread_name", "args": {"name": f"T{tid} {name}"}})
            out.append({"ph": "M", "pid": 1, "tid": tid, "name": "thread_sort_index", "args": {"sort_index": tid}})

        starts = {e["task"]: e for e in self.events if e["kind"] == "task_start"}
        for e in self.events:
            if e["kind"] == "task_end" and e["task"] in starts:
                s = starts[e["task"]]
                out.append({"ph": "X", "pid": 1, "tid": s["thread"], "name": s["node"], "cat": "NodeTask",
                            "ts": s["time_ns"] / 1e3, "dur": (e["time_ns"] - s["time_ns"]) / 1e3,
                            "args": {"task": s["task"], "graph_task": s["graph_task"],
                                     "sequence_nr": s["sequence_nr"], "topological_nr": s["topological_nr"],
                                     "queue": s["queue"], "reentrant_depth": s["reentrant_depth"],
                                     "worker_device": s["worker_device"], "status": e["detail"]}})
        for e in self.events:
            if e["kind"] == "enqueue" and e["producer"] is not None and e["task"] in starts:
                s = starts[e["task"]]
                flow = {"pid": 1, "cat": "gradient", "name": "ready", "id": e["task"]}
                out.append(dict(flow, ph="s", tid=e["thread"], ts=e["time_ns"] / 1e3))
                out.append(dict(flow, ph="f", bp="e", tid=s["thread"], ts=s["time_ns"] / 1e3))
        # Each graph task as an async span from its start to its completion.
        gt_starts = {e["graph_task"]: e for e in self.events if e["kind"] == "graph_task_start"}
        for e in self.events:
            if e["kind"] == "graph_task_end" and e["graph_task"] in gt_starts:
                s = gt_starts[e["graph_task"]]
                span = {"pid": 1, "cat": "GraphTask", "name": f"graph task {e['graph_task']}",
                        "id": e["graph_task"]}
                out.append(dict(span, ph="b", tid=s["thread"], ts=s["time_ns"] / 1e3,
                                args={"reentrant_depth": s["reentrant_depth"], "detail": s["detail"]}))
                out.append(dict(span, ph="e", tid=e["thread"], ts=e["time_ns"] / 1e3, args={"status": e["detail"]}))
        for e in self.events:
            if e["kind"] in _INSTANT_KINDS:
                name = e["kind"] if e["node"] is None else f"{e['kind']} {e['node']}"
                args = {k: v for k, v in e.items() if v is not None and k not in ("kind", "time_ns", "thread")}
                out.append({"ph": "i", "s": "t", "pid": 1, "tid": e["thread"], "name": name, "cat": e["kind"],
                            "ts": e["time_ns"] / 1e3, "args": args})
        return {"traceEvents": out, "displayTimeUnit": "ms"}


def _node(e):
    return f"{e['node']} (seq {_seq(e['sequence_nr'])}, topo {e['topological_nr']})"


def _seq(nr):
    return "UINT64_MAX" if nr == 2 ** 64 - 1 else str(nr)


def _describe(e):
    kind = e["kind"]
    if kind == "graph_task_start":
        return f"depth {e['reentrant_depth']}; {e['detail']}"
    if kind == "graph_task_node":
        info = f"; {e['detail']}" if e["detail"] else ""
        return f"{_node(e)}: dependencies {e['count']}{info}"
    if kind == "graph_task_end":
        return e["detail"]
    if kind == "enqueue":
        by = "by execute" if e["producer"] is None else f"by task #{e['producer']}"
        return f"task #{e['task']} {_node(e)} -> {e['queue']} {by}"
    if kind == "wakeup":
        return f"empty task -> {e['queue']} (wakes the owner)"
    if kind == "task_start":
        return f"task #{e['task']} {_node(e)} popped from {e['queue']}"
    if kind == "task_end":
        return f"task #{e['task']} {e['node']} {e['detail']}"
    if kind == "dependency":
        ready = " -> ready" if e["count"] == 0 else ""
        return f"{e['node']} input {e['input_nr']}: dependencies left {e['count']}{ready}"
    if kind == "not_ready_park":
        return f"{e['node']} input {e['input_nr']}: new buffer parked in not_ready_"
    if kind == "not_ready_release":
        return f"{e['node']}: buffer leaves not_ready_"
    if kind == "accumulate":
        return f"{e['node']} input {e['input_nr']}: gradient summed into the buffer"
    if kind == "capture":
        return f"{e['node']} input {e['input_nr']}: captured as grad() output {e['count']}"
    if kind == "final_callback":
        return f"callback {e['count']}"
    if kind == "exception":  # the message's first line (a Python error's carries its traceback)
        message = e["detail"].splitlines()[0] if e["detail"] else ""
        return message if e["node"] is None else f"{e['node']}: {message}"
    return e["detail"] or ""
