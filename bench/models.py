"""The three models of issue 15's benchmark and loss-curve check, written once for either library.

Every builder takes the library module `lib` (torchlite or torch) and returns a `Model`: the
module, its optimizer and one batch of data, so that `model.step()` runs one training step
(forward, loss, backward, optimizer step) and returns the loss tensor. The code is plain torch
code; under torchlite it runs unchanged.

- `cnn`: 2 conv layers 3->32->64 channels, 3x3 (padding 1), each followed by BatchNorm, ReLU
  and a 2x2 max pool, then a linear head to 10 classes; batch 32 of 3x32x32; cross-entropy;
  SGD with momentum.
- `lstm`: a word-level language model: embedding, 2-layer nn.LSTM, linear decoder; hidden 256,
  sequence 35, batch 20, vocabulary 1,000; cross-entropy; SGD.
- `gpt`: nanoGPT-style (pre-LayerNorm blocks of causal self-attention and a GELU MLP, learned
  positions, the token embedding tied to the output layer, dropout 0): 4 layers, 4 heads,
  width 128, context 64, batch 8, vocabulary 512; cross-entropy; AdamW with nanoGPT's
  decay / no-decay parameter groups.

`twins(name, ...)` builds torch's model with a seed and torchlite's with torch's weights copied
through state_dict, so both do the same work on the same numbers.
"""
import math

import numpy as np

# Full sizes (issue 15, "Performance"); `SMALL` are those of the loss-curve test.
SIZES = {
    "cnn": dict(batch=32, channels=(3, 32, 64), image=32, classes=10),
    "lstm": dict(vocab=1000, hidden=256, layers=2, seq=35, batch=20),
    "gpt": dict(vocab=512, width=128, layers=4, heads=4, context=64, batch=8),
}
SMALL = {
    "cnn": dict(batch=4, channels=(3, 4, 6), image=8, classes=5),
    "lstm": dict(vocab=31, hidden=8, layers=2, seq=6, batch=3),
    "gpt": dict(vocab=29, width=16, layers=2, heads=2, context=8, batch=3),
}


class Model:
    """A module, its optimizer, its loss function and one batch (inputs, targets)."""

    def __init__(self, lib, module, make_optimizer, loss_fn, inputs, targets):
        self.lib, self.module, self.loss_fn = lib, module, loss_fn
        self.make_optimizer = make_optimizer
        self.optimizer = make_optimizer(module)
        self.inputs, self.targets = inputs, targets

    def reset_optimizer(self):
        """A fresh optimizer (after the weights were replaced)."""
        self.optimizer = self.make_optimizer(self.module)

    def step(self):
        """One training step; the loss (before the update)."""
        self.optimizer.zero_grad(set_to_none=True)
        loss = self.loss_fn(self.module(self.inputs), self.targets)
        loss.backward()
        self.optimizer.step()
        return loss


# The CNN -----------------------------------------------------------------------------------------

def cnn(lib, batch, channels, image, classes, dtype=None, seed=0):
    nn, F = lib.nn, lib.nn.functional
    c0, c1, c2 = channels

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(c0, c1, 3, padding=1)
            self.bn1 = nn.BatchNorm2d(c1)
            self.conv2 = nn.Conv2d(c1, c2, 3, padding=1)
            self.bn2 = nn.BatchNorm2d(c2)
            self.pool = nn.MaxPool2d(2)
            self.fc = nn.Linear(c2 * (image // 4) ** 2, classes)

        def forward(self, x):
            x = self.pool(F.relu(self.bn1(self.conv1(x))))
            x = self.pool(F.relu(self.bn2(self.conv2(x))))
            return self.fc(lib.flatten(x, 1))

    module = _typed(lib, Net(), dtype)
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((batch, c0, image, image))
    y = rng.integers(0, classes, batch)
    return Model(lib, module, lambda m: lib.optim.SGD(m.parameters(), lr=0.01, momentum=0.9),
                 F.cross_entropy, _data(lib, x, module), lib.tensor(y))


# The LSTM language model -------------------------------------------------------------------------

def lstm(lib, vocab, hidden, layers, seq, batch, dtype=None, seed=0):
    nn = lib.nn

    class LanguageModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = nn.Embedding(vocab, hidden)
            self.rnn = nn.LSTM(hidden, hidden, layers)
            self.decoder = nn.Linear(hidden, vocab)

        def forward(self, tokens):
            output, _ = self.rnn(self.encoder(tokens))
            return self.decoder(output).view(-1, vocab)

    module = _typed(lib, LanguageModel(), dtype)
    rng = np.random.default_rng(seed)
    data = rng.integers(0, vocab, (seq + 1, batch))
    return Model(lib, module, lambda m: lib.optim.SGD(m.parameters(), lr=1.0),
                 nn.functional.cross_entropy, lib.tensor(data[:-1]), lib.tensor(data[1:].reshape(-1)))


# The GPT -----------------------------------------------------------------------------------------

def gpt(lib, vocab, width, layers, heads, context, batch, dtype=None, seed=0):
    nn, F = lib.nn, lib.nn.functional

    class CausalSelfAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_attn = nn.Linear(width, 3 * width)
            self.c_proj = nn.Linear(width, width)

        def forward(self, x):
            B, T, C = x.size()
            q, k, v = self.c_attn(x).split(width, dim=2)
            q, k, v = (t.view(B, T, heads, C // heads).transpose(1, 2) for t in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_fc = nn.Linear(width, 4 * width)
            self.gelu = nn.GELU()
            self.c_proj = nn.Linear(4 * width, width)

        def forward(self, x):
            return self.c_proj(self.gelu(self.c_fc(x)))

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1 = nn.LayerNorm(width)
            self.attn = CausalSelfAttention()
            self.ln_2 = nn.LayerNorm(width)
            self.mlp = MLP()

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp(self.ln_2(x))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.transformer = nn.ModuleDict(dict(
                wte=nn.Embedding(vocab, width),
                wpe=nn.Embedding(context, width),
                h=nn.ModuleList([Block() for _ in range(layers)]),
                ln_f=nn.LayerNorm(width),
            ))
            self.lm_head = nn.Linear(width, vocab, bias=False)
            self.transformer.wte.weight = self.lm_head.weight  # weight tying, as nanoGPT
            self.apply(self._init_weights)
            for name, p in self.named_parameters():
                if name.endswith("c_proj.weight"):
                    nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * layers))

        def _init_weights(self, module):
            if isinstance(module, (nn.Linear, nn.Embedding)):
                nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if isinstance(module, nn.Linear) and module.bias is not None:
                nn.init.zeros_(module.bias)

        def forward(self, idx):
            pos = lib.arange(0, idx.size(1), dtype=lib.long)
            x = self.transformer.wte(idx) + self.transformer.wpe(pos)
            for block in self.transformer.h:
                x = block(x)
            return self.lm_head(self.transformer.ln_f(x))

    def adamw(m):
        # nanoGPT's configure_optimizers: weight decay on the 2-D parameters only
        params = [p for p in m.parameters() if p.requires_grad]
        groups = [{"params": [p for p in params if p.dim() >= 2], "weight_decay": 0.1},
                  {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0}]
        return lib.optim.AdamW(groups, lr=1e-3, betas=(0.9, 0.95))

    def loss_fn(logits, targets):
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))

    module = _typed(lib, GPT(), dtype)
    rng = np.random.default_rng(seed)
    data = rng.integers(0, vocab, (batch, context + 1))
    return Model(lib, module, adamw, loss_fn, lib.tensor(data[:, :-1]), lib.tensor(data[:, 1:]))


BUILDERS = {"cnn": cnn, "lstm": lstm, "gpt": gpt}


# Helpers -----------------------------------------------------------------------------------------

def _typed(lib, module, dtype):
    return module.to(dtype) if dtype is not None else module


def _data(lib, array, module):
    """`array` as a tensor of the module's floating dtype."""
    return lib.tensor(array).to(next(module.parameters()).dtype)


def copy_weights(src, dst, lib):
    """Load `src`'s state_dict (any library's) into `dst` (of library `lib`)."""
    state = {k: lib.tensor(v.detach().cpu().numpy()) for k, v in src.state_dict().items()}
    result = dst.load_state_dict(state)
    assert not result.missing_keys and not result.unexpected_keys, result


def build(name, lib, sizes=None, dtype=None, seed=0):
    """`name`'s Model under `lib`, its weights from `lib.manual_seed(seed)`."""
    lib.manual_seed(seed)
    return BUILDERS[name](lib, **(sizes or SIZES[name]), dtype=dtype, seed=seed)


def twins(name, libs, sizes=None, dtype=None, seed=0):
    """{lib name: Model} for each library of `libs` ({name: module}); every model after the
    first (torch's, when present) takes the first one's weights through state_dict."""
    models = {}
    for lib_name, lib in sorted(libs.items(), key=lambda kv: kv[0] != "torch"):
        model = build(name, lib, sizes, None if dtype is None else getattr(lib, dtype), seed)
        if models:
            copy_weights(next(iter(models.values())).module, model.module, lib)
            model.reset_optimizer()
        models[lib_name] = model
    return {k: models[k] for k in libs}


def loss_curves(name, libs, steps=20, sizes=None, dtype="float64", seed=0):
    """{lib name: [loss per step]} of `steps` training steps from the same weights."""
    models = twins(name, libs, sizes, dtype, seed)
    return {k: [m.step().item() for _ in range(steps)] for k, m in models.items()}
