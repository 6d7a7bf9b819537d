"""The fused LSTM layer (ATen/native/mkldnn/RNN.cpp): at::mkldnn_rnn_layer, one layer and direction
of an LSTM over a whole (T, B, I) sequence with one node (MkldnnRnnLayerBackward0), and its backward
at::mkldnn_rnn_layer_backward, an op of its own as upstream. torch computes both with oneDNN; here
numpy does the same arithmetic:

- forward: the input projection of every step is one matmul ((T*B, I) x (I, 4H), both biases added
  once, as oneDNN's single bias b_ih + b_hh); then per step the hidden projection is added and the gate
  nonlinearities and the cell update run in place on that step's slice. The activated gates and the
  cell states are kept in the workspace (result3, upstream's oneDNN workspace: a uint8 buffer).
- backward: through time, per step only the elementwise gate gradients and one (B, 4H) x (4H, H)
  matmul for the previous hidden state's gradient; the input gradient and the weight gradients are one
  matmul each over all steps at the end, and the bias gradient one sum.

Gate order i, f, g, o (PyTorch's; oneDNN's LSTM uses the same). mode is ideep::rnn_kind (LSTM = 2).
oneDNN takes float32 (bfloat16 / half too); other dtypes refuse as get_mkldnn_dtype does."""
# ruff: noqa: A002 - upstream's parameter names (input)
import numpy as np

from .._C import _record, _wrap, is_grad_enabled
from .._generated import specs as _S

_LSTM = 2  # ideep::rnn_kind::LSTM


def _check_dtype(*tensors):
    for t in tensors:
        if t._array.dtype != np.float32:
            raise RuntimeError("get_mkldnn_dtype: unsupported data type")


def _sigmoid_(a):
    np.negative(a, out=a)
    np.exp(a, out=a)
    a += 1
    np.reciprocal(a, out=a)


def _lstm_forward(x, w_ih, w_hh, bias, hx, cx, reverse):
    """numpy kernel: (output (T, B, H), hy, cy, work (T, B, 5H): the activated gates i f g o, then c)."""
    T, B, _ = x.shape
    H = hx.shape[-1]
    dt = x.dtype
    work = np.empty((T, B, 5 * H), dtype=dt)
    gates = work[..., :4 * H]
    np.matmul(x.reshape(T * B, -1), w_ih.T, out=gates.reshape(T * B, 4 * H)) if T * B else None
    if bias is not None:
        gates += bias
    out = np.empty((T, B, H), dtype=dt)
    whh_t = w_hh.T
    h, c = hx, cx
    tmp = np.empty((B, 4 * H), dtype=dt)
    for t in (range(T - 1, -1, -1) if reverse else range(T)):
        g = gates[t]
        np.matmul(h, whh_t, out=tmp)
        g += tmp
        _sigmoid_(g[:, :2 * H])
        _sigmoid_(g[:, 3 * H:])
        np.tanh(g[:, 2 * H:3 * H], out=g[:, 2 * H:3 * H])
        cn = work[t, :, 4 * H:]
        # c' = f * c + i * g
        np.multiply(g[:, H:2 * H], c, out=cn)
        np.multiply(g[:, :H], g[:, 2 * H:3 * H], out=tmp[:, :H])
        cn += tmp[:, :H]
        # h' = o * tanh(c')
        hn = out[t]
        np.tanh(cn, out=hn)
        hn *= g[:, 3 * H:]
        h, c = hn, cn
    return out, np.array(h, dtype=dt), np.array(c, dtype=dt), work


def _lstm_backward(x, w_ih, w_hh, hx, cx, out, work, gy, ghy, gcy, reverse):
    """numpy kernel: (dx, dw_ih, dw_hh, db, dhx, dcx) of _lstm_forward given the gradients of its
    output (T, B, H), hy and cy (each None for none)."""
    T, B, In = x.shape
    H = hx.shape[-1]
    dt = x.dtype
    gates = work[..., :4 * H]
    cs = work[..., 4 * H:]
    i, f, g, o = (gates[..., k * H:(k + 1) * H] for k in range(4))
    order = range(T - 1, -1, -1) if reverse else range(T)
    # the previous cell and hidden state of each step (in the step's own time index)
    c_prev = np.empty_like(cs)
    h_prev = np.empty_like(out)
    if T:
        if reverse:
            c_prev[:-1], h_prev[:-1] = cs[1:], out[1:]
            c_prev[-1], h_prev[-1] = cx, hx
        else:
            c_prev[1:], h_prev[1:] = cs[:-1], out[:-1]
            c_prev[0], h_prev[0] = cx, hx
    # the step-independent factors: dgates = [dc * fi, dc * ff, dc * fg, dh * fo]; dc += dh * fc
    tc = np.tanh(cs)
    fac = np.empty((T, B, 4 * H), dtype=dt)
    fi, ff, fg, fo = (fac[..., k * H:(k + 1) * H] for k in range(4))
    np.multiply(g, i * (1 - i), out=fi)               # d/di (i * g), times sigmoid'
    np.multiply(c_prev, f * (1 - f), out=ff)          # d/df (f * c_prev)
    np.multiply(i, 1 - g * g, out=fg)                 # d/dg (i * g), times tanh'
    np.multiply(tc, o * (1 - o), out=fo)              # d/do (o * tanh(c))
    fc = o * (1 - tc * tc)                            # d/dc (o * tanh(c))
    dgates = np.empty((T, B, 4 * H), dtype=dt)
    dh = np.zeros((B, H), dtype=dt) if ghy is None else np.array(ghy, dtype=dt)
    dc = np.zeros((B, H), dtype=dt) if gcy is None else np.array(gcy, dtype=dt)
    tmp = np.empty((B, H), dtype=dt)
    for t in reversed(order):
        if gy is not None:
            dh += gy[t]
        np.multiply(dh, fc[t], out=tmp)
        dc += tmp
        dg = dgates[t]
        np.multiply(dc[:, None, :], fac[t].reshape(B, 4, H)[:, :3], out=dg.reshape(B, 4, H)[:, :3])
        np.multiply(dh, fo[t], out=dg[:, 3 * H:])
        dc *= f[t]
        np.matmul(dg, w_hh, out=dh)
    flat = dgates.reshape(T * B, 4 * H)
    dx = (flat @ w_ih).reshape(T, B, In)
    dw_ih = flat.T @ x.reshape(T * B, In)
    dw_hh = flat.T @ h_prev.reshape(T * B, H)
    db = flat.sum(0)
    return dx, dw_ih, dw_hh, db, dh, dc


def _workspace(work, like):
    # upstream's workspace is a uint8 buffer (oneDNN's layout); this one holds _lstm_forward's work
    return _wrap(work.reshape(-1).view(np.uint8), like)


def _work_of(workspace, dtype, shape):
    return workspace._array.view(dtype).reshape(shape)


def mkldnn_rnn_layer(input, weight0, weight1, weight2, weight3, hx_, cx_, reverse, batch_sizes, mode,
                     hidden_size, num_layers, has_biases, bidirectional, batch_first, train):
    """at::mkldnn_rnn_layer: (output, hy, cy, workspace) of one LSTM layer (one direction) over
    input (T, B, I), from hx_ / cx_ (B, H); weight2 / weight3 are the biases (used where has_biases).
    The workspace is made only while grad mode is on (upstream: an undefined tensor otherwise)."""
    _check_dtype(input, hx_, cx_, weight0, weight1)
    if has_biases:
        _check_dtype(weight2, weight3)
    x = np.ascontiguousarray(input._array)
    w_ih, w_hh = weight0._array, weight1._array
    bias = (weight2._array + weight3._array) if has_biases else None
    out, hy, cy, work = _lstm_forward(x, w_ih, w_hh, bias, hx_._array, cx_._array, bool(reverse))
    output, hy_t, cy_t = _wrap(out, input), _wrap(hy, hx_), _wrap(cy, cx_)
    if not is_grad_enabled():
        return output, hy_t, cy_t, None
    workspace = _workspace(work, input)
    _record(_S.MkldnnRnnLayerBackward0, (input, weight0, weight1, weight2, weight3, hx_, cx_),
            (output, hy_t, cy_t), input=input, weight0=weight0, weight1=weight1, weight2=weight2,
            weight3=weight3, hx_=hx_, cx_=cx_, reverse=bool(reverse), batch_sizes=tuple(batch_sizes), mode=mode,
            hidden_size=hidden_size, num_layers=num_layers, has_biases=bool(has_biases),
            bidirectional=bool(bidirectional), batch_first=bool(batch_first), train=bool(train),
            result0=output, result1=hy_t, result2=cy_t, result3=workspace)
    return output, hy_t, cy_t, workspace


def mkldnn_rnn_layer_backward(input, weight1, weight2, weight3, weight4, hx_, cx_tmp, output, hy_, cy_,
                              grad_output, grad_hy, grad_cy, reverse, mode, hidden_size, num_layers,
                              has_biases, train, bidirectional, batch_sizes, batch_first, workspace):
    """at::mkldnn_rnn_layer_backward: (grad_input, grad_weight_ih, grad_weight_hh, grad_bias_ih,
    grad_bias_hh, grad_hx, grad_cx) from the workspace of the forward; None for all where no gradient
    is given. Its own derivative is not implemented (upstream: no formula)."""
    if grad_output is None and grad_hy is None and grad_cy is None:
        return (None,) * 7
    x = np.ascontiguousarray(input._array)
    T, B, _ = x.shape
    H = hx_._array.shape[-1]
    work = _work_of(workspace, x.dtype, (T, B, 5 * H))
    dx, dw_ih, dw_hh, db, dhx, dcx = _lstm_backward(
        x, weight1._array, weight2._array, hx_._array, cx_tmp._array, output._array, work,
        None if grad_output is None else grad_output._array, None if grad_hy is None else grad_hy._array,
        None if grad_cy is None else grad_cy._array, bool(reverse))
    outs = (_wrap(dx, input), _wrap(dw_ih, weight1), _wrap(dw_hh, weight2), _wrap(db, input),
            _wrap(db.copy(), input), _wrap(dhx, hx_), _wrap(dcx, cx_tmp))
    # one edge per tensor argument (torch::autograd::NotImplemented's collect_next_edges); an absent
    # optional gradient's place holds a tensor that needs none (no edge)
    absent = input.detach()
    inputs = tuple(absent if t is None else t for t in (input, weight1, weight2, weight3, weight4, hx_, cx_tmp,
                                                          output, hy_, cy_, grad_output, grad_hy, grad_cy, workspace))
    return _record(_S.NotImplementedMkldnnRnnLayerBackward, inputs, outs, name="mkldnn_rnn_layer_backward")
