"""The main job: train a small MLP on a synthetic spiral dataset, end to end
through torchlite autograd on the CPU, showing the loss fall and the accuracy
reached. Written as PyTorch code would be, with `torchlite` for `torch`."""
import sys
import time

import numpy as np

import torchlite as torch


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


def init_mlp(sizes, seed):
    """Kaiming-uniform weights and zero biases, as leaves that require grad."""
    rng = np.random.default_rng(seed)
    params = []
    for fan_in, fan_out in zip(sizes, sizes[1:]):
        bound = np.sqrt(6.0 / fan_in)
        params.append(torch.tensor(rng.uniform(-bound, bound, (fan_in, fan_out)).astype(np.float32),
                                   requires_grad=True))
        params.append(torch.zeros(fan_out, requires_grad=True))
    return params


def forward(params, x):
    h = x
    for i in range(0, len(params), 2):
        h = h @ params[i] + params[i + 1]
        if i + 2 < len(params):
            h = h.relu()
    return h


def cross_entropy(logits, onehot):
    """Mean of -log softmax at the target class (log-sum-exp kept stable)."""
    shifted = logits - logits.max(dim=1, keepdim=True)[0].detach()
    log_probs = shifted - shifted.exp().sum(dim=1, keepdim=True).log()
    return -(log_probs * onehot).sum(dim=1).mean()


def progress(epoch, epochs, loss, acc, width=30):
    filled = int(width * epoch / epochs)
    return f"[{'#' * filled}{'.' * (width - filled)}] epoch {epoch:4d}/{epochs}  loss {loss:.4f}  accuracy {acc:6.1%}"


def accuracy(params, x, labels):
    with torch.no_grad():
        return float((forward(params, x).numpy().argmax(1) == labels).mean())


def run(epochs=300, lr=0.1, momentum=0.9, hidden=64, seed=0, out=sys.stdout):
    """Trains on half the points, reports accuracy on both halves; returns
    the per-epoch (loss, training accuracy) and the held-out accuracy."""
    torch.manual_seed(seed)
    points, labels = make_spirals(n_per_class=300, seed=seed)
    order = np.random.default_rng(seed + 1).permutation(len(points))
    train, held_out = order[: len(order) // 2], order[len(order) // 2:]
    x_np, y_np = points[train], labels[train]
    x = torch.tensor(x_np)
    onehot = torch.tensor(np.eye(3, dtype=np.float32)[y_np])
    params = init_mlp([2, hidden, hidden, 3], seed)
    velocity = [torch.zeros_like(p) for p in params]
    interactive = out.isatty()
    print(f"torchlite demo: {len(x_np)} training points on 3 spiral arms ({len(held_out)} held out), MLP 2-{hidden}-{hidden}-3, "
          f"SGD lr={lr} momentum={momentum}, {epochs} epochs", file=out)
    history = []
    start = time.perf_counter()
    for epoch in range(1, epochs + 1):
        logits = forward(params, x)
        loss = cross_entropy(logits, onehot)
        for p in params:
            p.grad = None
        loss.backward()
        with torch.no_grad():
            for p, v in zip(params, velocity):
                v.mul_(momentum).add_(p.grad)
                p.sub_(v * lr)
        acc = float((logits.detach().numpy().argmax(1) == y_np).mean())
        history.append((loss.item(), acc))
        line = progress(epoch, epochs, loss.item(), acc)
        if interactive:
            print("\r" + line, end="", file=out, flush=True)
        elif epoch == 1 or epoch % max(1, epochs // 10) == 0:
            print(line, file=out, flush=True)
    if interactive:
        print(file=out)
    elapsed = time.perf_counter() - start
    first_loss, last = history[0][0], history[-1]
    test_acc = accuracy(params, torch.tensor(points[held_out]), labels[held_out])
    print(f"loss {first_loss:.4f} -> {last[0]:.4f}; accuracy {last[1]:.1%} on training points, "
          f"{test_acc:.1%} on held-out points; {elapsed:.2f} s ({elapsed / epochs * 1e3:.1f} ms per epoch)",
          file=out)
    return history, test_acc
