"""Issue 15's loss curves: the CNN (with BatchNorm), the 2-layer LSTM language model and the GPT of
bench/models.py (dropout 0), trained for 20 steps under torch and under torchlite from the same
weights (torchlite's copied from torch's through state_dict) on the same batch, in float64. Prints
the two curves side by side with each step's relative difference.

    python bench/loss_curves.py                # the test's small sizes (seconds)
    python bench/loss_curves.py --full         # the benchmark's sizes (minutes)
    python bench/loss_curves.py --steps 50 cnn

tests/python/test_loss_curves.py asserts the same curves equal to 1e-6 relative.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import models  # noqa: E402 - bench/models.py, beside this file

try:
    import torchlite
except ImportError:  # not installed: the extension built in place in this tree
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import torchlite
import torch  # noqa: E402

TITLES = {
    "cnn": "CNN (conv + BatchNorm + ReLU + max pool, x2; linear head), SGD momentum 0.9",
    "lstm": "LSTM language model (embedding, 2-layer LSTM, linear decoder), SGD",
    "gpt": "GPT (nanoGPT-style, tied embedding, dropout 0), AdamW",
}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("models", nargs="*", default=list(models.BUILDERS), metavar="MODEL",
                        help="cnn lstm gpt (the default: all three)")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--full", action="store_true", help="the benchmark's sizes instead of the small ones")
    args = parser.parse_args()
    # Checked here, not with `choices`: Python 3.11's argparse rejects the list default against them.
    unknown = [m for m in args.models if m not in models.BUILDERS]
    if unknown:
        parser.error(f"unknown model(s) {' '.join(unknown)}; choose from {' '.join(models.BUILDERS)}")
    torch.set_num_threads(1)
    print(f"torch {torch.__version__}, torchlite ({os.path.dirname(torchlite.__file__)}); float64; "
          f"{args.steps} steps; {'full' if args.full else 'small'} sizes")
    for name in args.models:
        sizes = (models.SIZES if args.full else models.SMALL)[name]
        curves = models.loss_curves(name, {"torch": torch, "torchlite": torchlite}, args.steps, sizes)
        print(f"\n{name}: {TITLES[name]}; " + ", ".join(f"{k}={v}" for k, v in sizes.items()))
        print(f"  {'step':>4}  {'torch':>22}  {'torchlite':>22}  {'relative difference':>20}")
        worst = 0.0
        for i, (a, b) in enumerate(zip(curves["torch"], curves["torchlite"], strict=True)):
            rel = abs(b - a) / abs(a)
            worst = max(worst, rel)
            print(f"  {i:>4}  {a:22.16g}  {b:22.16g}  {rel:20.3g}")
        print(f"  largest relative difference: {worst:.3g}")


if __name__ == "__main__":
    main()
