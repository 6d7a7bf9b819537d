"""Two real programs run under torch and under torchlite (`import torchlite as torch`) with the same
weights (copied through state_dict) and the same data, in float64: the word-language-model example's
RNNModel (LSTM, GRU) and TransformerModel (pytorch/examples word_language_model/model.py at 77f55b9,
with main.py's train loop), and nanoGPT's GPT (karpathy/nanoGPT model.py at 3adf61e, trained with its
configure_optimizers' AdamW; greedy generate). Their losses, outputs and final weights must agree to
1e-10."""
# ruff: noqa: E501 - the programs' own lines, as their authors wrote them

import numpy as np
import pytest

import torchlite

from diff_utils import import_torch

torch = import_torch()

# pytorch/examples word_language_model/model.py (BSD-3-Clause), as the example writes it
WORD_LM = r'''
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

class RNNModel(nn.Module):
    """Container module with an encoder, a recurrent module, and a decoder."""

    def __init__(self, rnn_type, ntoken, ninp, nhid, nlayers, dropout=0.5, tie_weights=False):
        super(RNNModel, self).__init__()
        self.ntoken = ntoken
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        if rnn_type in ['LSTM', 'GRU']:
            self.rnn = getattr(nn, rnn_type)(ninp, nhid, nlayers, dropout=dropout)
        else:
            try:
                nonlinearity = {'RNN_TANH': 'tanh', 'RNN_RELU': 'relu'}[rnn_type]
            except KeyError as e:
                raise ValueError( """An invalid option for `--model` was supplied,
                                 options are ['LSTM', 'GRU', 'RNN_TANH' or 'RNN_RELU']""") from e
            self.rnn = nn.RNN(ninp, nhid, nlayers, nonlinearity=nonlinearity, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)

        if tie_weights:
            if nhid != ninp:
                raise ValueError('When using the tied flag, nhid must be equal to emsize')
            self.decoder.weight = self.encoder.weight

        self.init_weights()

        self.rnn_type = rnn_type
        self.nhid = nhid
        self.nlayers = nlayers

    def init_weights(self):
        initrange = 0.1
        nn.init.uniform_(self.encoder.weight, -initrange, initrange)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -initrange, initrange)

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output)
        decoded = decoded.view(-1, self.ntoken)
        return F.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        if self.rnn_type == 'LSTM':
            return (weight.new_zeros(self.nlayers, bsz, self.nhid),
                    weight.new_zeros(self.nlayers, bsz, self.nhid))
        else:
            return weight.new_zeros(self.nlayers, bsz, self.nhid)

class PositionalEncoding(nn.Module):

    def __init__(self, d_model, dropout=0.1, max_len=5000):
        super(PositionalEncoding, self).__init__()
        self.dropout = nn.Dropout(p=dropout)

        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        pe = pe.unsqueeze(0).transpose(0, 1)
        self.register_buffer('pe', pe)

    def forward(self, x):
        x = x + self.pe[:x.size(0), :]
        return self.dropout(x)

class TransformerModel(nn.Transformer):
    """Container module with an encoder, a recurrent or transformer module, and a decoder."""

    def __init__(self, ntoken, ninp, nhead, nhid, nlayers, dropout=0.5):
        super(TransformerModel, self).__init__(d_model=ninp, nhead=nhead, dim_feedforward=nhid, num_encoder_layers=nlayers)
        self.model_type = 'Transformer'
        self.src_mask = None
        self.pos_encoder = PositionalEncoding(ninp, dropout)

        self.input_emb = nn.Embedding(ntoken, ninp)
        self.ninp = ninp
        self.decoder = nn.Linear(ninp, ntoken)

        self.init_weights()

    def _generate_square_subsequent_mask(self, sz):
        return torch.log(torch.tril(torch.ones(sz,sz)))

    def init_weights(self):
        initrange = 0.1
        nn.init.uniform_(self.input_emb.weight, -initrange, initrange)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -initrange, initrange)

    def forward(self, src, has_mask=True):
        if has_mask:
            device = src.device
            if self.src_mask is None or self.src_mask.size(0) != len(src):
                mask = self._generate_square_subsequent_mask(len(src)).to(device)
                self.src_mask = mask
        else:
            self.src_mask = None

        src = self.input_emb(src) * math.sqrt(self.ninp)
        src = self.pos_encoder(src)
        output = self.encoder(src, mask=self.src_mask)
        output = self.decoder(output)
        return F.log_softmax(output, dim=-1)
'''

# karpathy/nanoGPT model.py (MIT), as it writes it (from_pretrained, which needs transformers,
# and the long comments left out)
NANOGPT = r'''
import math
import inspect
from dataclasses import dataclass

import torch
import torch.nn as nn
from torch.nn import functional as F

class LayerNorm(nn.Module):
    """ LayerNorm but with an optional bias. PyTorch doesn't support simply bias=False """

    def __init__(self, ndim, bias):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(ndim))
        self.bias = nn.Parameter(torch.zeros(ndim)) if bias else None

    def forward(self, input):
        return F.layer_norm(input, self.weight.shape, self.weight, self.bias, 1e-5)

class CausalSelfAttention(nn.Module):

    def __init__(self, config):
        super().__init__()
        assert config.n_embd % config.n_head == 0
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd, bias=config.bias)
        self.c_proj = nn.Linear(config.n_embd, config.n_embd, bias=config.bias)
        self.attn_dropout = nn.Dropout(config.dropout)
        self.resid_dropout = nn.Dropout(config.dropout)
        self.n_head = config.n_head
        self.n_embd = config.n_embd
        self.dropout = config.dropout
        self.flash = hasattr(torch.nn.functional, 'scaled_dot_product_attention')
        if not self.flash:
            print("WARNING: using slow attention. Flash Attention requires PyTorch >= 2.0")
            self.register_buffer("bias", torch.tril(torch.ones(config.block_size, config.block_size))
                                        .view(1, 1, config.block_size, config.block_size))

    def forward(self, x):
        B, T, C = x.size() # batch size, sequence length, embedding dimensionality (n_embd)

        q, k, v  = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) # (B, nh, T, hs)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) # (B, nh, T, hs)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) # (B, nh, T, hs)

        if self.flash:
            y = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=None, dropout_p=self.dropout if self.training else 0, is_causal=True)
        else:
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            att = att.masked_fill(self.bias[:,:,:T,:T] == 0, float('-inf'))
            att = F.softmax(att, dim=-1)
            att = self.attn_dropout(att)
            y = att @ v # (B, nh, T, T) x (B, nh, T, hs) -> (B, nh, T, hs)
        y = y.transpose(1, 2).contiguous().view(B, T, C) # re-assemble all head outputs side by side

        y = self.resid_dropout(self.c_proj(y))
        return y

class MLP(nn.Module):

    def __init__(self, config):
        super().__init__()
        self.c_fc    = nn.Linear(config.n_embd, 4 * config.n_embd, bias=config.bias)
        self.gelu    = nn.GELU()
        self.c_proj  = nn.Linear(4 * config.n_embd, config.n_embd, bias=config.bias)
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, x):
        x = self.c_fc(x)
        x = self.gelu(x)
        x = self.c_proj(x)
        x = self.dropout(x)
        return x

class Block(nn.Module):

    def __init__(self, config):
        super().__init__()
        self.ln_1 = LayerNorm(config.n_embd, bias=config.bias)
        self.attn = CausalSelfAttention(config)
        self.ln_2 = LayerNorm(config.n_embd, bias=config.bias)
        self.mlp = MLP(config)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        x = x + self.mlp(self.ln_2(x))
        return x

@dataclass
class GPTConfig:
    block_size: int = 1024
    vocab_size: int = 50304 # GPT-2 vocab_size of 50257, padded up to nearest multiple of 64 for efficiency
    n_layer: int = 12
    n_head: int = 12
    n_embd: int = 768
    dropout: float = 0.0
    bias: bool = True # True: bias in Linears and LayerNorms, like GPT-2. False: a bit better and faster

class GPT(nn.Module):

    def __init__(self, config):
        super().__init__()
        assert config.vocab_size is not None
        assert config.block_size is not None
        self.config = config

        self.transformer = nn.ModuleDict(dict(
            wte = nn.Embedding(config.vocab_size, config.n_embd),
            wpe = nn.Embedding(config.block_size, config.n_embd),
            drop = nn.Dropout(config.dropout),
            h = nn.ModuleList([Block(config) for _ in range(config.n_layer)]),
            ln_f = LayerNorm(config.n_embd, bias=config.bias),
        ))
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.transformer.wte.weight = self.lm_head.weight # https://paperswithcode.com/method/weight-tying

        self.apply(self._init_weights)
        for pn, p in self.named_parameters():
            if pn.endswith('c_proj.weight'):
                torch.nn.init.normal_(p, mean=0.0, std=0.02/math.sqrt(2 * config.n_layer))

        print("number of parameters: %.2fM" % (self.get_num_params()/1e6,))

    def get_num_params(self, non_embedding=True):
        n_params = sum(p.numel() for p in self.parameters())
        if non_embedding:
            n_params -= self.transformer.wpe.weight.numel()
        return n_params

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx, targets=None):
        device = idx.device
        b, t = idx.size()
        assert t <= self.config.block_size, f"Cannot forward sequence of length {t}, block size is only {self.config.block_size}"
        pos = torch.arange(0, t, dtype=torch.long, device=device) # shape (t)

        tok_emb = self.transformer.wte(idx) # token embeddings of shape (b, t, n_embd)
        pos_emb = self.transformer.wpe(pos) # position embeddings of shape (t, n_embd)
        x = self.transformer.drop(tok_emb + pos_emb)
        for block in self.transformer.h:
            x = block(x)
        x = self.transformer.ln_f(x)

        if targets is not None:
            logits = self.lm_head(x)
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
        else:
            logits = self.lm_head(x[:, [-1], :]) # note: using list [-1] to preserve the time dim
            loss = None

        return logits, loss

    def crop_block_size(self, block_size):
        assert block_size <= self.config.block_size
        self.config.block_size = block_size
        self.transformer.wpe.weight = nn.Parameter(self.transformer.wpe.weight[:block_size])
        for block in self.transformer.h:
            if hasattr(block.attn, 'bias'):
                block.attn.bias = block.attn.bias[:,:,:block_size,:block_size]

    def configure_optimizers(self, weight_decay, learning_rate, betas, device_type):
        param_dict = {pn: p for pn, p in self.named_parameters()}
        param_dict = {pn: p for pn, p in param_dict.items() if p.requires_grad}
        decay_params = [p for n, p in param_dict.items() if p.dim() >= 2]
        nodecay_params = [p for n, p in param_dict.items() if p.dim() < 2]
        optim_groups = [
            {'params': decay_params, 'weight_decay': weight_decay},
            {'params': nodecay_params, 'weight_decay': 0.0}
        ]
        num_decay_params = sum(p.numel() for p in decay_params)
        num_nodecay_params = sum(p.numel() for p in nodecay_params)
        print(f"num decayed parameter tensors: {len(decay_params)}, with {num_decay_params:,} parameters")
        print(f"num non-decayed parameter tensors: {len(nodecay_params)}, with {num_nodecay_params:,} parameters")
        fused_available = 'fused' in inspect.signature(torch.optim.AdamW).parameters
        use_fused = fused_available and device_type == 'cuda'
        extra_args = dict(fused=True) if use_fused else dict()
        optimizer = torch.optim.AdamW(optim_groups, lr=learning_rate, betas=betas, **extra_args)
        print(f"using fused AdamW: {use_fused}")

        return optimizer

    def estimate_mfu(self, fwdbwd_per_iter, dt):
        N = self.get_num_params()
        cfg = self.config
        L, H, Q, T = cfg.n_layer, cfg.n_head, cfg.n_embd//cfg.n_head, cfg.block_size
        flops_per_token = 6*N + 12*L*H*Q*T
        flops_per_fwdbwd = flops_per_token * T
        flops_per_iter = flops_per_fwdbwd * fwdbwd_per_iter
        flops_achieved = flops_per_iter * (1.0/dt) # per second
        flops_promised = 312e12 # A100 GPU bfloat16 peak flops is 312 TFLOPS
        mfu = flops_achieved / flops_promised
        return mfu

    @torch.no_grad()
    def generate(self, idx, max_new_tokens, temperature=1.0, top_k=None):
        for _ in range(max_new_tokens):
            idx_cond = idx if idx.size(1) <= self.config.block_size else idx[:, -self.config.block_size:]
            logits, _ = self(idx_cond)
            logits = logits[:, -1, :] / temperature
            if top_k is not None:
                v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
                logits[logits < v[:, [-1]]] = -float('Inf')
            probs = F.softmax(logits, dim=-1)
            idx_next = torch.multinomial(probs, num_samples=1)
            idx = torch.cat((idx, idx_next), dim=1)

        return idx
'''


def load(source, lib):
    """The module's namespace, its `import torch` lines reading `import torchlite as torch` under torchlite."""
    if lib is torchlite:
        source = (source.replace("import torch.nn.functional as F", "import torchlite.nn.functional as F")
                  .replace("from torch.nn import functional as F", "from torchlite.nn import functional as F")
                  .replace("import torch.nn as nn", "import torchlite.nn as nn")
                  .replace("import torch\n", "import torchlite as torch\n"))
    ns = {"__name__": f"program_{lib.__name__}"}
    exec(compile(source, f"<{lib.__name__} program>", "exec"), ns)  # noqa: S102 - the program under test
    return ns


def twin(make_torch, make_lite):
    """The torch model (float64) and torchlite's, which takes torch's weights through state_dict."""
    torch.manual_seed(0)
    ref = make_torch().double()
    mine = make_lite().double()
    state = {k: torchlite.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()}
    result = mine.load_state_dict(state)
    assert not result.missing_keys and not result.unexpected_keys
    assert list(mine.state_dict().keys()) == list(ref.state_dict().keys())
    assert [n for n, _ in mine.named_parameters()] == [n for n, _ in ref.named_parameters()]
    return ref, mine


def close(a, b):
    a = a.detach().numpy() if hasattr(a, "detach") else np.asarray(a)
    b = b.detach().numpy() if hasattr(b, "detach") else np.asarray(b)
    np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def assert_same_weights(ref, mine):
    for (n1, p1), (n2, p2) in zip(ref.named_parameters(), mine.named_parameters(), strict=True):
        assert n1 == n2
        close(p2, p1)


# word_language_model ------------------------------------------------------------------------------

def batchify(lib, data, bsz):
    # main.py's batchify
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    return data.view(bsz, -1).t().contiguous()


def get_batch(source, i, bptt):
    seq_len = min(bptt, len(source) - 1 - i)
    return source[i:i + seq_len], source[i + 1:i + 1 + seq_len].view(-1)


def repackage_hidden(lib, h):
    if isinstance(h, lib.Tensor):
        return h.detach()
    return tuple(repackage_hidden(lib, v) for v in h)


def train_word_lm(lib, model, tokens, ntokens, transformer, lr=20.0, clip=0.25, bptt=5, batch_size=4):
    """main.py's train(): bptt batches, NLLLoss, clip_grad_norm_, plain SGD on p.data; the losses."""
    train_data = batchify(lib, lib.tensor(tokens), batch_size)
    criterion = lib.nn.NLLLoss()
    model.train()
    losses = []
    if not transformer:
        hidden = model.init_hidden(batch_size)
    for i in range(0, train_data.size(0) - 1, bptt):
        data, targets = get_batch(train_data, i, bptt)
        model.zero_grad()
        if transformer:
            output = model(data)
            output = output.view(-1, ntokens)
        else:
            hidden = repackage_hidden(lib, hidden)
            output, hidden = model(data, hidden)
        loss = criterion(output, targets)
        loss.backward()
        lib.nn.utils.clip_grad_norm_(model.parameters(), clip)
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-lr)
        losses.append(loss.item())
    return losses


def evaluate_word_lm(lib, model, tokens, ntokens, transformer, bptt=5, batch_size=3):
    """main.py's evaluate(): eval mode, no_grad."""
    data_source = batchify(lib, lib.tensor(tokens), batch_size)
    criterion = lib.nn.NLLLoss()
    model.eval()
    total = 0.0
    if not transformer:
        hidden = model.init_hidden(batch_size)
    with lib.no_grad():
        for i in range(0, data_source.size(0) - 1, bptt):
            data, targets = get_batch(data_source, i, bptt)
            if transformer:
                output = model(data).view(-1, ntokens)
            else:
                output, hidden = model(data, hidden)
                hidden = repackage_hidden(lib, hidden)
            total += len(data) * criterion(output, targets).item()
    return total / (len(data_source) - 1)


TOKENS = np.random.default_rng(7).integers(0, 23, 61).tolist()


@pytest.mark.parametrize("rnn_type,tied", [("LSTM", False), ("GRU", False), ("LSTM", True), ("RNN_TANH", False)])
def test_word_language_model_rnn(rnn_type, tied):
    nt, lt = load(WORD_LM, torch), load(WORD_LM, torchlite)
    args = (rnn_type, 23, 8, 8, 2, 0.0, tied)
    ref, mine = twin(lambda: nt["RNNModel"](*args), lambda: lt["RNNModel"](*args))
    assert repr(mine).replace("torchlite", "torch") == repr(ref)
    losses = train_word_lm(torch, ref, TOKENS, 23, False), train_word_lm(torchlite, mine, TOKENS, 23, False)
    close(losses[1], losses[0])
    assert_same_weights(ref, mine)
    close(evaluate_word_lm(torchlite, mine, TOKENS, 23, False), evaluate_word_lm(torch, ref, TOKENS, 23, False))


def test_word_language_model_transformer():
    nt, lt = load(WORD_LM, torch), load(WORD_LM, torchlite)
    args = (23, 8, 2, 16, 2, 0.0)
    with pytest.warns(UserWarning, match="enable_nested_tensor is True"):
        ref, mine = twin(lambda: nt["TransformerModel"](*args), lambda: lt["TransformerModel"](*args))
    # the example passes its dropout to PositionalEncoding only: nn.Transformer's layers keep their
    # default 0.1, whose masks the two generators draw differently; no dropout, so the runs compare
    for lib, model in ((torch, ref), (torchlite, mine)):
        for m in model.modules():
            if isinstance(m, lib.nn.Dropout):
                m.p = 0.0
            if isinstance(m, lib.nn.MultiheadAttention):
                m.dropout = 0.0
    assert repr(mine).replace("torchlite", "torch") == repr(ref)
    losses = (train_word_lm(torch, ref, TOKENS, 23, True, lr=0.5),
              train_word_lm(torchlite, mine, TOKENS, 23, True, lr=0.5))
    close(losses[1], losses[0])
    assert_same_weights(ref, mine)
    close(evaluate_word_lm(torchlite, mine, TOKENS, 23, True), evaluate_word_lm(torch, ref, TOKENS, 23, True))


# nanoGPT --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("bias", [True, False])
def test_nanogpt_training(bias, capsys):
    nt, lt = load(NANOGPT, torch), load(NANOGPT, torchlite)
    conf = dict(block_size=8, vocab_size=17, n_layer=2, n_head=2, n_embd=8, dropout=0.0, bias=bias)
    ref, mine = twin(lambda: nt["GPT"](nt["GPTConfig"](**conf)), lambda: lt["GPT"](lt["GPTConfig"](**conf)))
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == 2 and printed[0] == printed[1]  # "number of parameters: ..."
    assert mine.transformer.wte.weight is mine.lm_head.weight
    assert mine.get_num_params() == ref.get_num_params()
    opts = [m.configure_optimizers(weight_decay=0.1, learning_rate=1e-2, betas=(0.9, 0.95), device_type="cpu")
            for m in (ref, mine)]
    out = capsys.readouterr().out.splitlines()
    half = len(out) // 2
    assert out[:half] == out[half:]  # the same parameter counts and messages
    rng = np.random.default_rng(3)
    for _ in range(4):
        data = rng.integers(0, 17, (3, 9))
        losses = []
        for lib, model, opt in ((torch, ref, opts[0]), (torchlite, mine, opts[1])):
            x, y = lib.tensor(data[:, :-1]), lib.tensor(data[:, 1:])
            logits, loss = model(x, y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            lib.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            losses.append(loss.item())
        close(losses[1], losses[0])
    assert_same_weights(ref, mine)
    ref.eval()
    mine.eval()
    idx = rng.integers(0, 17, (2, 3))
    close(mine.generate(torchlite.tensor(idx), 7, top_k=1), ref.generate(torch.tensor(idx), 7, top_k=1))
    logits = [m(lib.tensor(idx))[0] for lib, m in ((torch, ref), (torchlite, mine))]
    close(logits[1], logits[0])
