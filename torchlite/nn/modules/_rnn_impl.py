"""The recurrences behind nn.RNN / LSTM / GRU and their cells (aten/src/ATen/native/RNN.cpp:
the cells, FullLayer / PackedLayer and their reversed forms, apply_layer_stack), composed from
torchlite ops (linear, sigmoid, tanh, unsafe_chunk, cat, stack) so autograd differentiates them. torch
runs fused kernels; the values and gradients are the same."""
# ruff: noqa: A001, A002 - torch's parameter names (input)
import warnings

from ...backends import mkldnn as _mkldnn
from .. import _seq_torch as torch, functional as F


def _linear(x, w, b):
    return F.linear(x, w, b)


def _gates(linear_hh, input, w_ih, b_ih, pre):
    # RNN.cpp's cells: linear_hh(h).add_(pre_compute_input ? input : linear_ih(input))
    return linear_hh + (input if pre else _linear(input, w_ih, b_ih))


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None, pre=False):
    # RNN.cpp: SimpleCell with tanh: tanh(linear_hh(h) + linear_ih(x))
    return torch.tanh(_gates(_linear(hx, w_hh, b_hh), input, w_ih, b_ih, pre))


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None, pre=False):
    return torch.relu(_gates(_linear(hx, w_hh, b_hh), input, w_ih, b_ih, pre))


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None, w_hr=None, pre=False):
    # RNN.cpp: LSTMCell - gates i, f, g, o; c' = f*c + i*g; h' = o*tanh(c') (projected by w_hr)
    h, c = hx
    gates = _gates(_linear(h, w_hh, b_hh), input, w_ih, b_ih, pre)
    i, f, g, o = gates.unsafe_chunk(4, 1)
    i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
    cy = f * c + i * g
    hy = o * cy.tanh()
    if w_hr is not None:
        hy = torch.matmul(hy, w_hr.t())
    return hy, cy


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None, pre=False):
    # RNN.cpp: GRUCell - r, z from the summed gates, n = tanh(i_n + r * (W_hn h + b_hn)),
    # h' = (h - n) * z + n
    i_r, i_z, i_n = (input if pre else _linear(input, w_ih, b_ih)).unsafe_chunk(3, 1)
    h_r, h_z, h_n = _linear(hx, w_hh, b_hh).unsafe_chunk(3, 1)
    r = (h_r + i_r).sigmoid()
    z = (h_z + i_z).sigmoid()
    n = (i_n + h_n * r).tanh()
    return (hx - n) * z + n


_CELLS = {"RNN_TANH": rnn_tanh_cell, "RNN_RELU": rnn_relu_cell, "LSTM": lstm_cell, "GRU": gru_cell}


def _cell_step(mode, x, hidden, params, pre=False):
    return _CELLS[mode](x, hidden, *params, pre=pre)


def _slice_hidden(hidden, start, end):
    if isinstance(hidden, tuple):
        return tuple(h[start:end] for h in hidden)
    return hidden[start:end]


def _cat_hidden(parts):
    if isinstance(parts[0], tuple):
        return tuple(torch.cat([p[i] for p in parts]) for i in range(len(parts[0])))
    return torch.cat(parts)


def _output_of(hidden):
    return hidden[0] if isinstance(hidden, tuple) else hidden


def _full_layer(mode, input, hidden, params, reverse):
    # RNN.cpp: FullLayer / ReversedFullLayer over a (T, B, *) input. On CPU the input projection of
    # every step is one linear over the whole sequence (linear_ih(inputs).unbind(0)), which each
    # step's cell adds to its linear_hh (pre_compute_input); an empty sequence then refuses.
    steps = range(input.size(0) - 1, -1, -1) if reverse else range(input.size(0))
    step_inputs = _linear(input, params[0], params[2]).unbind(0)
    outputs = []
    for t in steps:
        hidden = _cell_step(mode, step_inputs[t], hidden, params, pre=True)
        outputs.append(_output_of(hidden))
    if not outputs:
        raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
    if reverse:
        outputs.reverse()
    return torch.stack(outputs), hidden


def _packed_layer(mode, input, batch_sizes, hidden, params):
    # RNN.cpp: PackedLayer - the rows of the sequences that end leave the hidden state as they end
    outputs, finished, offset = [], [], 0
    last = batch_sizes[0]
    for bs in batch_sizes:
        if bs < last:
            finished.append(_slice_hidden(hidden, bs, last))
            hidden = _slice_hidden(hidden, 0, bs)
        last = bs
        hidden = _cell_step(mode, input[offset:offset + bs], hidden, params)
        offset += bs
        outputs.append(_output_of(hidden))
    finished.append(hidden)
    finished.reverse()
    return torch.cat(outputs), _cat_hidden(finished)


def _reversed_packed_layer(mode, input, batch_sizes, hidden0, params):
    # RNN.cpp: ReversedPackedLayer - from the last step back; a sequence joins the hidden state
    # (with its initial row) at its last step
    outputs, offset = [], input.size(0)
    last = batch_sizes[-1]
    hidden = _slice_hidden(hidden0, 0, last)
    for bs in reversed(batch_sizes):
        if bs > last:
            hidden = _cat_hidden([hidden, _slice_hidden(hidden0, last, bs)])
        last = bs
        hidden = _cell_step(mode, input[offset - bs:offset], hidden, params)
        offset -= bs
        outputs.append(_output_of(hidden))
    outputs.reverse()
    return torch.cat(outputs), hidden


def _layer_params(flat_weights, index, has_biases, has_proj, mode):
    per = 2 + (2 if has_biases else 0) + (1 if has_proj else 0)
    ws = flat_weights[index * per:(index + 1) * per]
    w_ih, w_hh = ws[0], ws[1]
    b_ih, b_hh = (ws[2], ws[3]) if has_biases else (None, None)
    if mode == "LSTM":
        return (w_ih, w_hh, b_ih, b_hh, ws[-1] if has_proj else None)
    return (w_ih, w_hh, b_ih, b_hh)


def _use_mkldnn(input, params, hx):
    # RNN.cpp's use_mkldnn: oneDNN enabled, every tensor on the CPU, a float32 input (bfloat16 and
    # half take it only where oneDNN's device checks pass: not routed here), a non-empty input
    if not _mkldnn.enabled or input.dtype != torch.float32 or input.numel() == 0:
        return False
    return all(t.device.type == "cpu" for t in (input, *params, *hx))


def _lstm_mkldnn(input, hx, cx, flat_weights, has_biases, num_layers, dropout, train, bidirectional,
                 batch_first):
    # mkldnn/RNN.cpp's mkldnn_rnn: one at::mkldnn_rnn_layer per layer and direction (node
    # MkldnnRnnLayerBackward0) over a contiguous (T, B, I) input; no bias: zeros of the weights' shapes
    if batch_first:
        input = input.transpose(0, 1)
    input, hx, cx = input.contiguous(), hx.contiguous(), cx.contiguous()
    per = 4 if has_biases else 2
    num_dirs = 2 if bidirectional else 1
    hidden_size = hx.size(2)
    layer_input = input
    hy, cy = [], []
    for layer in range(num_layers):
        outs = []
        for d in range(num_dirs):
            idx = layer * num_dirs + d
            ws = flat_weights[idx * per:(idx + 1) * per]
            w2 = ws[2] if has_biases else torch.zeros(ws[0].shape, dtype=ws[0].dtype, device=ws[0].device)
            w3 = ws[3] if has_biases else torch.zeros(ws[1].shape, dtype=ws[1].dtype, device=ws[1].device)
            out, h, c, _ = torch.mkldnn_rnn_layer(layer_input, ws[0], ws[1], w2, w3, hx[idx], cx[idx], d > 0, [],
                                                  _MKLDNN_LSTM, hidden_size, num_layers, has_biases, bidirectional,
                                                  batch_first, train)
            outs.append(out)
            hy.append(h)
            cy.append(c)
        layer_input = outs[0] if num_dirs == 1 else torch.cat(outs, -1)
        if dropout != 0 and train and layer < num_layers - 1:
            layer_input = F.dropout(layer_input, dropout, True)
    output = layer_input.transpose(0, 1) if batch_first else layer_input
    return output, torch.stack(hy, 0), torch.stack(cy, 0)


_MKLDNN_LSTM = 2  # ideep::rnn_kind::LSTM
_warned_projections: list[bool] = []


def _warn_projections_once():
    # RNN.cpp's lstm: TORCH_WARN_ONCE (once a process) where use_mkldnn holds but there are projections
    if not _warned_projections:
        _warned_projections.append(True)
        warnings.warn("LSTM with projections is not supported with oneDNN. Using default implementation.",
                      UserWarning, stacklevel=4)


def rnn_forward(mode, input, hx, flat_weights, has_biases, num_layers, dropout, train, bidirectional,
                batch_first=False, batch_sizes=None, proj_size=0):
    """_VF.rnn_tanh / rnn_relu / lstm / gru: (output, h_n) or, for LSTM, (output, h_n, c_n).
    hx is h_0, or (h_0, c_0) for LSTM; batch_sizes (a list of ints) for a packed input.
    RNN.cpp's lstm: an LSTM without projections goes to the fused layer op where use_mkldnn (a packed
    one only where its sequences all have one length)."""
    if mode == "LSTM" and proj_size != 0 and batch_sizes is None and _use_mkldnn(input, flat_weights, hx):
        _warn_projections_once()
    if mode == "LSTM" and proj_size == 0 and _use_mkldnn(input, flat_weights, hx):
        if batch_sizes is None:
            return _lstm_mkldnn(input, hx[0], hx[1], flat_weights, has_biases, num_layers, dropout, train,
                                bidirectional, batch_first)
        if all(b == batch_sizes[0] for b in batch_sizes):
            # torch 2.13's packed lstm: sequences all of one length are a (T, B, I) input, viewed so
            # (ViewBackward0 on either side of the fused layers)
            steps, batch = len(batch_sizes), batch_sizes[0]
            out, h, c = _lstm_mkldnn(input.view(steps, batch, input.size(-1)), hx[0], hx[1], flat_weights,
                                     has_biases, num_layers, dropout, train, bidirectional, False)
            return out.view(steps * batch, out.size(-1)), h, c
    num_dirs = 2 if bidirectional else 1
    is_lstm = mode == "LSTM"
    if batch_sizes is None and batch_first:
        input = input.transpose(0, 1)
    layer_input = input
    final_h, final_c = [], []
    for layer in range(num_layers):
        dir_outputs = []
        for d in range(num_dirs):
            idx = layer * num_dirs + d
            params = _layer_params(flat_weights, idx, has_biases, proj_size > 0, mode)
            h0 = (hx[0][idx], hx[1][idx]) if is_lstm else hx[idx]
            if batch_sizes is None:
                out, hn = _full_layer(mode, layer_input, h0, params, reverse=d == 1)
            elif d == 0:
                out, hn = _packed_layer(mode, layer_input, batch_sizes, h0, params)
            else:
                out, hn = _reversed_packed_layer(mode, layer_input, batch_sizes, h0, params)
            dir_outputs.append(out)
            if is_lstm:
                final_h.append(hn[0])
                final_c.append(hn[1])
            else:
                final_h.append(hn)
        layer_output = dir_outputs[0] if num_dirs == 1 else torch.cat(dir_outputs, -1)
        if dropout != 0 and train and layer < num_layers - 1:
            layer_output = F.dropout(layer_output, dropout, True)
        layer_input = layer_output
    output = layer_input
    if batch_sizes is None and batch_first:
        output = output.transpose(0, 1)
    if is_lstm:
        return output, torch.stack(final_h), torch.stack(final_c)
    return output, torch.stack(final_h)
