"""The main job: train a small MLP on a synthetic spiral dataset, end to end
through torchlite autograd, showing the loss fall and the accuracy reached.
Written as PyTorch code is (`nn.Sequential` of `nn.Linear`/`nn.ReLU`,
`nn.CrossEntropyLoss`, `optim.SGD` with momentum, a shuffling `DataLoader`
over a `TensorDataset`), with `torchlite` for `torch`.

`python -m torchlite demo` also writes an output folder: the losses (CSV,
and a plot when matplotlib is installed), the graph of one training step's
backward, and a trace of that backward (Chrome-trace JSON and a text
timeline). The visualisation extra (`pip install torchlite[viz]`) brings
tqdm, matplotlib and graphviz; each has a plain fallback."""
import csv
import datetime
import importlib
import os
import sys
import time
import warnings

import numpy as np

import torchlite as torch
from torchlite import nn
from torchlite.utils.data import DataLoader, TensorDataset

PROGRESS_CHOICES = ("auto", "tqdm", "rich", "text")


def make_spirals(n_per_class=200, classes=3, noise=0.2, seed=0):
    """Interleaved spiral arms, one per class: not linearly separable."""
    rng = np.random.default_rng(seed)
    xs, ys = [], []
    for c in range(classes):
        r = np.linspace(0.05, 1.0, n_per_class)
        theta = np.linspace(c * 4.0, (c + 1) * 4.0, n_per_class) + rng.standard_normal(n_per_class) * noise
        xs.append(np.stack([r * np.sin(theta), r * np.cos(theta)], axis=1))
        ys.append(np.full(n_per_class, c))
    return np.concatenate(xs).astype(np.float32), np.concatenate(ys)


def make_model(hidden):
    """The MLP 2-H-H-3 as torch builds it: `nn.Linear`'s default
    initialisation, from the seeded generator (so torch's numbers)."""
    return nn.Sequential(nn.Linear(2, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                         nn.Linear(hidden, 3))


def progress(epoch, epochs, loss, acc, width=30):
    filled = int(width * epoch / epochs)
    return f"[{'#' * filled}{'.' * (width - filled)}] epoch {epoch:4d}/{epochs}  loss {loss:.4f}  accuracy {acc:6.1%}"


def accuracy(model, x, labels):
    with torch.no_grad():
        return (model(x).argmax(dim=1) == labels).float().mean().item()


class DemoError(Exception):
    """A bad option (device not available, progress bar not installed)."""


def _optional(module):
    """The module, or None when it is not installed."""
    try:
        return importlib.import_module(module)
    except ImportError:
        return None


class TextBar:
    """The plain fallback: on a terminal one line redrawn in place, else a
    log line every tenth of the run."""

    name = "text"

    def __init__(self, epochs, out):
        self.epochs, self.out = epochs, out
        self.interactive = out.isatty()

    def update(self, epoch, loss, acc):
        line = progress(epoch, self.epochs, loss, acc)
        if self.interactive:
            print("\r" + line, end="", file=self.out, flush=True)
        elif epoch == 1 or epoch % max(1, self.epochs // 10) == 0:
            print(line, file=self.out, flush=True)

    def close(self):
        if self.interactive:
            print(file=self.out)


class TqdmBar:
    name = "tqdm"

    def __init__(self, epochs, out):
        tqdm = _optional("tqdm")
        self.bar = tqdm.tqdm(total=epochs, file=out, desc="training", unit="epoch")

    def update(self, epoch, loss, acc):
        self.bar.set_postfix(loss=f"{loss:.4f}", accuracy=f"{acc:.1%}", refresh=False)
        self.bar.update(1)

    def close(self):
        self.bar.close()


class RichBar:
    name = "rich"

    def __init__(self, epochs, out):
        console = _optional("rich.console").Console(file=out)
        rp = _optional("rich.progress")
        self.progress = rp.Progress(rp.TextColumn("training"), rp.BarColumn(), rp.MofNCompleteColumn(),
                                    rp.TextColumn("{task.fields[status]}"), rp.TimeRemainingColumn(),
                                    console=console)
        self.task = self.progress.add_task("training", total=epochs, status="")
        self.progress.start()

    def update(self, epoch, loss, acc):
        self.progress.update(self.task, completed=epoch, status=f"loss {loss:.4f}  accuracy {acc:6.1%}")

    def close(self):
        self.progress.stop()


_BARS = {"tqdm": (TqdmBar, "tqdm"), "rich": (RichBar, "rich.progress"), "text": (TextBar, None)}


def make_bar(kind, epochs, out):
    """`auto`: tqdm, else rich, on a terminal; the text bar otherwise (or
    when neither is installed)."""
    if kind == "auto":
        kind = "text"
        if out.isatty():
            kind = next((k for k in ("tqdm", "rich") if _optional(_BARS[k][1]) is not None), "text")
    cls, module = _BARS[kind]
    if module is not None and _optional(module) is None:
        raise DemoError(f"--progress {kind}: {kind} is not installed (pip install torchlite[viz], or "
                        f"--progress text)")
    return cls(epochs, out)


def check_device(device):
    """The device to train on: cpu, sim:N, or cuda when available."""
    try:
        dev = torch.device(device)
    except (RuntimeError, ValueError) as err:
        raise DemoError(f"--device {device}: {err}") from None
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise DemoError(f"--device {device}: CUDA is not available here (torchlite.cuda.is_available() is "
                        "False: no CUDA GPU, or torchlite was built without CUDA); use --device cpu or sim:N")
    try:
        torch.zeros(1, device=dev)
    except (RuntimeError, AssertionError, ValueError) as err:
        what = "CUDA is available, but torchlite cannot make CUDA tensors here" if dev.type == "cuda" else \
            "torchlite cannot make tensors there"
        raise DemoError(f"--device {device}: {what} ({err})") from None
    return dev


def new_out_dir_name(parent="."):
    """A folder name not taken yet, after the time the demo starts."""
    base = os.path.join(parent, "torchlite-demo-" + datetime.datetime.now().strftime("%Y%m%d-%H%M%S"))
    name, n = base, 1
    while os.path.exists(name):
        n += 1
        name = f"{base}-{n}"
    return name


def write_losses(out_dir, history):
    """losses.csv always; loss.png too when matplotlib is installed.
    Returns the files written."""
    csv_path = os.path.join(out_dir, "losses.csv")
    with open(csv_path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["epoch", "loss", "accuracy"])
        for epoch, (loss, acc) in enumerate(history, 1):
            writer.writerow([epoch, f"{loss:.6f}", f"{acc:.4f}"])
    written = [csv_path]
    if _optional("matplotlib") is not None:
        from matplotlib.figure import Figure  # no pyplot: leaves the process's backend alone
        fig = Figure(figsize=(6, 3.5), dpi=100)
        ax = fig.add_subplot()
        ax.plot(range(1, len(history) + 1), [loss for loss, _ in history], color="tab:blue")
        ax.set_yscale("log")
        ax.set_xlabel("epoch")
        ax.set_ylabel("training loss (cross-entropy)")
        ax.set_title("torchlite demo: MLP on three spirals")
        ax.grid(True, which="both", alpha=0.3)
        fig.tight_layout()
        png_path = os.path.join(out_dir, "loss.png")
        fig.savefig(png_path)
        written.append(png_path)
    return written


FILE_NOTES = {
    "losses.csv": "the loss and training accuracy per epoch",
    "loss.png": "the loss plot",
    "graph.svg": "the graph of the last step's backward",
    "graph.dot": "the graph of the last step's backward, as DOT text (Graphviz's dot is not installed: "
                 "apt-get install graphviz, or paste it into a Graphviz viewer)",
    "trace.json": "the engine's trace of that backward: open it in https://ui.perfetto.dev",
    "timeline.txt": "the same trace as text",
}


def write_graph(out_dir, step_graph):
    """graph.svg through Graphviz's dot, or graph.dot (DOT text) without
    it. Returns the file written."""
    with warnings.catch_warnings():
        # Without dot, render() warns; the demo says so in its file list instead.
        warnings.simplefilter("ignore", UserWarning)
        return [step_graph.render(os.path.join(out_dir, "graph.svg"))]


def write_trace(out_dir, step_trace):
    """trace.json (Chrome trace: open it in https://ui.perfetto.dev or
    chrome://tracing) and timeline.txt, of one backward. Returns the files."""
    json_path = step_trace.to_chrome_trace(os.path.join(out_dir, "trace.json"))
    text_path = os.path.join(out_dir, "timeline.txt")
    with open(text_path, "w") as f:
        f.write(step_trace.timeline())
    return [json_path, text_path]


def run(epochs=300, lr=0.1, momentum=0.9, hidden=64, batch_size=64, seed=0, device="cpu", out_dir=None,
        bar="auto", out=sys.stdout):
    """Trains on half the points, reports accuracy on both halves; returns
    the per-epoch (loss, training accuracy) and the held-out accuracy.
    With `out_dir`, writes the demo's files there.

    The training is ordinary torch code (an `nn.Module`, a loss from `nn`,
    `optim.SGD`, a `DataLoader` over a `TensorDataset`): with `import torch`
    in place of `import torchlite as torch` it runs under torch, and with
    the same seed prints torch's losses (tests/python/test_demo.py runs it
    so). Only the last step's graph and trace are torchlite's own."""
    dev = check_device(device)
    progress_bar = make_bar(bar, epochs, out)
    torch.manual_seed(seed)
    points, labels = make_spirals(n_per_class=300, seed=seed)
    order = np.random.default_rng(seed + 1).permutation(len(points))
    train, held_out = order[: len(order) // 2], order[len(order) // 2:]
    x = torch.tensor(points[train], device=dev)
    y = torch.tensor(labels[train], device=dev)
    loader = DataLoader(TensorDataset(x, y), batch_size=batch_size, shuffle=True)
    model = make_model(hidden).to(dev)
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
    print(f"torchlite demo: {len(x)} training points on 3 spiral arms ({len(held_out)} held out), "
          f"MLP 2-{hidden}-{hidden}-3, SGD lr={lr} momentum={momentum}, batches of {batch_size}, {epochs} epochs "
          f"on {dev}", file=out)
    history = []
    steps = len(loader)
    start = time.perf_counter()
    try:
        for epoch in range(1, epochs + 1):
            model.train()
            total_loss, correct = 0.0, 0
            for step, (xb, yb) in enumerate(loader, 1):
                logits = model(xb)
                loss = loss_fn(logits, yb)
                optimizer.zero_grad()
                if out_dir is not None and epoch == epochs and step == steps:
                    # The last step's backward: its graph, then the engine's steps through it.
                    step_graph = torch.autograd.graph.to_dot(loss)
                    with torch.autograd.trace() as step_trace:
                        loss.backward()
                else:
                    loss.backward()
                optimizer.step()
                total_loss += loss.item() * len(xb)
                correct += (logits.argmax(dim=1) == yb).sum().item()
            history.append((total_loss / len(x), correct / len(x)))
            progress_bar.update(epoch, *history[-1])
    finally:
        progress_bar.close()
    elapsed = time.perf_counter() - start
    first_loss, last = history[0][0], history[-1]
    model.eval()
    test_acc = accuracy(model, torch.tensor(points[held_out], device=dev),
                        torch.tensor(labels[held_out], device=dev))
    print(f"loss {first_loss:.4f} -> {last[0]:.4f}; accuracy {last[1]:.1%} on training points, "
          f"{test_acc:.1%} on held-out points; {elapsed:.2f} s ({elapsed / epochs * 1e3:.1f} ms per epoch)",
          file=out)
    if out_dir is not None:
        os.makedirs(out_dir, exist_ok=True)
        written = write_losses(out_dir, history) + write_graph(out_dir, step_graph) + write_trace(out_dir, step_trace)
        print(f"wrote {len(written)} files to {out_dir}:", file=out)
        for path in written:
            name = os.path.basename(path)
            print(f"  {name:<14}{FILE_NOTES[name]}", file=out)
    return history, test_acc


def main(args, out=sys.stdout):
    """`python -m torchlite demo` (options parsed by torchlite.__main__)."""
    try:
        run(epochs=args.epochs, lr=args.lr, hidden=args.hidden, batch_size=args.batch_size, seed=args.seed,
            device=args.device,
            out_dir=args.out if args.out is not None else new_out_dir_name(), bar=args.progress, out=out)
    except DemoError as err:
        print(f"python -m torchlite demo: error: {err}", file=sys.stderr)
        return 2
    return 0
