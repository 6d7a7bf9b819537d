"""`python -m torchlite demo` (torchlite/_demo.py) and `python -m torchlite
compare SCRIPT [args]` (torchlite/_compare.py)."""
import argparse
import sys

from . import _compare, _demo


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m torchlite")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser(
        "demo", help="train a small MLP on a synthetic dataset through torchlite autograd",
        description="Trains a 2-H-H-3 MLP on three interleaved spiral arms, written as ordinary torch code "
                    "(nn.Sequential, nn.CrossEntropyLoss, optim.SGD with momentum, a DataLoader over a "
                    "TensorDataset), every gradient computed by torchlite's engine, and writes to an output "
                    "folder: losses.csv and loss.png (the loss per epoch; the plot needs matplotlib), the "
                    "graph of one training step's backward (graph.svg through Graphviz's dot, else graph.dot) "
                    "and the engine trace of that backward (trace.json for Perfetto or chrome://tracing, "
                    "timeline.txt). `pip install torchlite[viz]` brings tqdm, matplotlib and graphviz.")
    demo.add_argument("--epochs", type=int, default=300, help="training epochs (default 300)")
    demo.add_argument("--lr", type=float, default=0.1, help="SGD learning rate (default 0.1)")
    demo.add_argument("--batch-size", type=int, default=64, help="minibatch size (default 64)")
    demo.add_argument("--hidden", type=int, default=64, help="width of the two hidden layers (default 64)")
    demo.add_argument("--seed", type=int, default=0, help="seed of the data set and initial weights (default 0)")
    demo.add_argument("--device", default="cpu",
                      help="where the tensors live: cpu (default), sim:N (simulated accelerator N: its nodes run "
                           "on the engine's device thread N) or cuda (when a CUDA GPU is available)")
    demo.add_argument("--out", metavar="DIR", default=None,
                      help="the output folder (made if missing; default: a new torchlite-demo-DATE-TIME folder "
                           "here, named at the end)")
    demo.add_argument("--progress", choices=_demo.PROGRESS_CHOICES, default="auto",
                      help="the progress bar: tqdm, rich, or text (a plain text bar); auto (default) takes tqdm, "
                           "else rich, on a terminal, and text lines otherwise")
    compare = sub.add_parser(
        "compare", help="run a script that imports torch under torch and under torchlite; compare its backwards",
        description="Runs SCRIPT twice, in a subprocess each: once with torch, once with torchlite standing in "
                    "for it (`import torch` gives torchlite). Every backward it runs (Tensor.backward, "
                    "torch.autograd.backward, torch.autograd.grad) is recorded, and the report says, per "
                    "backward, whether the leaves' values differ (then gradients are not compared), and "
                    "otherwise where the gradients differ beyond the tolerance, where the order in which the "
                    "nodes ran differs, and where the exceptions differ; for a script that builds nn modules, "
                    "per backward a table of each parameter (by its named_parameters name) with the difference "
                    "of its values and of its gradients. Exit status 1 when anything differs. "
                    "Without torch installed it runs the script under torchlite only and lists its backward calls.")
    compare.add_argument("script", help="the Python script to run")
    compare.add_argument("args", nargs=argparse.REMAINDER, help="arguments passed to the script")
    compare.add_argument("--rtol", type=float, default=1e-5, help="relative tolerance (default 1e-5)")
    compare.add_argument("--atol", type=float, default=1e-6, help="absolute tolerance (default 1e-6)")
    compare.add_argument("-v", "--verbose", action="store_true", help="also show the script's output under each")
    args = parser.parse_args(argv)
    if args.command == "demo":
        return _demo.main(args)
    return _compare.main(args)


if __name__ == "__main__":
    sys.exit(main())
