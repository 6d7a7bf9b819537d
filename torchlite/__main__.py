"""`python -m torchlite demo`: the main job (see torchlite/_demo.py)."""
import argparse

from . import _demo


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m torchlite")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="train a small MLP on a synthetic dataset through torchlite autograd")
    demo.add_argument("--epochs", type=int, default=300)
    demo.add_argument("--lr", type=float, default=0.1)
    demo.add_argument("--hidden", type=int, default=64)
    demo.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.command == "demo":
        _demo.run(epochs=args.epochs, lr=args.lr, hidden=args.hidden, seed=args.seed)


if __name__ == "__main__":
    main()
