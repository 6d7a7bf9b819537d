"""`python -m torchlite demo` (torchlite/_demo.py) and `python -m torchlite
compare SCRIPT [args]` (torchlite/_compare.py)."""
import argparse
import sys


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m torchlite")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="train a small MLP on a synthetic dataset through torchlite autograd")
    demo.add_argument("--epochs", type=int, default=300)
    demo.add_argument("--lr", type=float, default=0.1)
    demo.add_argument("--hidden", type=int, default=64)
    demo.add_argument("--seed", type=int, default=0)
    compare = sub.add_parser(
        "compare", help="run a script that imports torch under torch and under torchlite; compare its backwards",
        description="Runs SCRIPT twice, in a subprocess each: once with torch, once with torchlite standing in "
                    "for it (`import torch` gives torchlite). Every backward it runs (Tensor.backward, "
                    "torch.autograd.backward, torch.autograd.grad) is recorded, and the report says, per "
                    "backward, whether the leaves' values differ (then gradients are not compared), and "
                    "otherwise where the gradients differ beyond the tolerance, where the order in which the "
                    "nodes ran differs, and where the exceptions differ. Exit status 1 when anything differs.")
    compare.add_argument("script", help="the Python script to run")
    compare.add_argument("args", nargs=argparse.REMAINDER, help="arguments passed to the script")
    compare.add_argument("--rtol", type=float, default=1e-5, help="relative tolerance (default 1e-5)")
    compare.add_argument("--atol", type=float, default=1e-6, help="absolute tolerance (default 1e-6)")
    compare.add_argument("-v", "--verbose", action="store_true", help="also show the script's output under each")
    args = parser.parse_args(argv)
    if args.command == "demo":
        from . import _demo
        _demo.run(epochs=args.epochs, lr=args.lr, hidden=args.hidden, seed=args.seed)
        return 0
    from . import _compare
    return _compare.main(args)


if __name__ == "__main__":
    sys.exit(main())
