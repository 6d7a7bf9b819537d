"""The main job, `python -m torchlite demo`, trains for real: the loss falls
and the held-out accuracy is far above chance (1/3)."""
import io
import subprocess
import sys

from torchlite import _demo


def test_demo_learns_the_spirals():
    out = io.StringIO()
    history, held_out = _demo.run(epochs=150, out=out)
    losses = [loss for loss, _ in history]
    assert losses[-1] < 0.25 * losses[0]
    assert history[-1][1] > 0.9
    assert held_out > 0.85
    assert "held-out" in out.getvalue()


def test_demo_command_line():
    res = subprocess.run([sys.executable, "-m", "torchlite", "demo", "--epochs", "20"],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert "epoch   20/20" in res.stdout
    assert "accuracy" in res.stdout.splitlines()[-1]
