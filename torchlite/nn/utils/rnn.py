"""torch.nn.utils.rnn: PackedSequence and the helpers that pad, pack and unpack variable-length
sequences (torch/nn/utils/rnn.py; the kernels of aten/src/ATen/native/PackedSequence.cpp and
pad_sequence, composed from torchlite ops so their gradients flow)."""
# ruff: noqa: A001, A002 - torch's parameter names (input)
import warnings
from collections.abc import Iterable
from typing import NamedTuple

from .. import _seq_torch as torch
from .._seq_torch import Tensor

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "unpad_sequence", "pack_sequence", "unpack_sequence"]


class PackedSequence_(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


def bind(optional, fn):
    return None if optional is None else fn(optional)


class PackedSequence(PackedSequence_):
    """The data of a batch of variable-length sequences, time step by time step (batch_sizes[t]
    sequences are still running at step t); made by pack_padded_sequence / pack_sequence."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        return super().__new__(cls, *_packed_sequence_init_args(data, batch_sizes, sorted_indices, unsorted_indices))

    def pin_memory(self):
        return type(self)(self.data.pin_memory(), self.batch_sizes, bind(self.sorted_indices, lambda t: t.pin_memory()),
                          bind(self.unsorted_indices, lambda t: t.pin_memory()))

    def to(self, *args, **kwargs):
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        non_blocking = kwargs.get("non_blocking", False)

        def call_to(t):
            return t.to(data.device, non_blocking=non_blocking)
        return type(self)(data, self.batch_sizes, bind(self.sorted_indices, call_to),
                          bind(self.unsorted_indices, call_to))

    def cuda(self, *args, **kwargs):
        ex = torch.tensor((), dtype=self.data.dtype, device=self.data.device).to(*args, **kwargs)
        if ex.is_cuda:
            return self.to(*args, **kwargs)
        kwargs["device"] = "cuda"
        return self.to(*args, **kwargs)

    def cpu(self, *args, **kwargs):
        ex = torch.tensor((), dtype=self.data.dtype, device=self.data.device).to(*args, **kwargs)
        if ex.device.type == "cpu":
            return self.to(*args, **kwargs)
        kwargs["device"] = "cpu"
        return self.to(*args, **kwargs)

    def double(self):
        return self.to(dtype=torch.double)

    def float(self):
        return self.to(dtype=torch.float)

    def half(self):
        return self.to(dtype=torch.half)

    def long(self):
        return self.to(dtype=torch.long)

    def int(self):
        return self.to(dtype=torch.int)

    def short(self):
        return self.to(dtype=torch.short)

    def char(self):
        return self.to(dtype=torch.int8)

    def byte(self):
        return self.to(dtype=torch.uint8)

    @property
    def is_cuda(self):
        return self.data.is_cuda

    def is_pinned(self):
        return self.data.is_pinned()


def _packed_sequence_init_args(data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
    if unsorted_indices is None:
        unsorted_indices = invert_permutation(sorted_indices)
    if batch_sizes is not None:
        if batch_sizes.device.type != "cpu":
            raise ValueError(
                "batch_sizes should always be on CPU. Instances of PackedSequence should never be created manually. "
                "They should be instantiated by functions like pack_sequence and pack_padded_sequences in "
                "nn.utils.rnn. https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
        return data, batch_sizes, sorted_indices, unsorted_indices
    if not (isinstance(data, (list, tuple)) and len(data) == 2):
        raise AssertionError("Expected data to be a list or tuple of length 2")
    return data[0], data[1], sorted_indices, unsorted_indices


def invert_permutation(permutation):
    """The permutation that undoes `permutation` (None stays None)."""
    if permutation is None:
        return None
    output = torch.empty_like(permutation)
    output.scatter_(0, permutation, torch.arange(0, permutation.numel(), device=permutation.device))
    return output


def _pack_padded(input, lengths, batch_first):
    # aten/src/ATen/native/PackedSequence.cpp: _pack_padded_sequence - the running sequences of each
    # run of time steps, time-major, and how many run at each step
    if batch_first:
        input = input.transpose(0, 1)
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    lens = [int(v) for v in lengths.tolist()]
    batch_size = input.size(1)
    if len(lens) == 0 or len(lens) != batch_size:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(lens)} "
                           f"(batch_size={batch_size})")
    if lens[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' that is "
                           "<= 0")
    for i in range(1, batch_size):
        if lens[batch_size - i] > lens[batch_size - 1 - i]:
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can pass "
                "`enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this requirement "
                "if you do not need ONNX exportability.")
    steps, sizes, prev = [], [], 0
    rest = tuple(input.shape[2:])
    for i in range(batch_size):
        step_len = lens[batch_size - 1 - i]
        if step_len > prev:
            current = batch_size - i
            steps.append(input[prev:step_len, :current].reshape((-1,) + rest))
            sizes.extend([current] * (step_len - prev))
            prev = step_len
    return torch.cat(steps), torch.tensor(sizes, dtype=torch.int64)


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Packs a padded batch of variable-length sequences (T x B x * or B x T x *) into a
    PackedSequence."""
    if not isinstance(lengths, Tensor):
        lengths = torch.as_tensor(lengths, dtype=torch.int64, device="cpu")
    else:
        lengths = lengths.to(dtype=torch.int64)
    if enforce_sorted:
        sorted_indices = None
    else:
        lengths, sorted_indices = torch.sort(lengths, descending=True)
        sorted_indices = sorted_indices.to(input.device)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    data, batch_sizes = _pack_padded(input, lengths, batch_first)
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """The inverse of pack_padded_sequence: (padded batch, lengths)."""
    batch_sizes = [int(v) for v in sequence.batch_sizes.tolist()]
    max_seq_length = len(batch_sizes)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in input, but got "
                f"total_length={total_length} and max sequence length being {max_seq_length}")
        max_seq_length = total_length
    # PackedSequence.cpp: _pad_packed_sequence
    data = sequence.data
    max_batch = batch_sizes[0]
    rest = tuple(data.shape[1:])
    rows, offset = [], 0
    for bs in batch_sizes:
        step = data[offset:offset + bs]
        offset += bs
        if bs < max_batch:
            step = torch.cat([step, torch.full((max_batch - bs,) + rest, padding_value, dtype=data.dtype,
                                               device=data.device)])
        rows.append(step)
    if max_seq_length > len(batch_sizes):
        rows.extend([torch.full((max_batch,) + rest, padding_value, dtype=data.dtype, device=data.device)]
                    * (max_seq_length - len(batch_sizes)))
    padded = torch.stack(rows)
    lengths = [sum(1 for bs in batch_sizes if bs > b) for b in range(max_batch)]
    lengths = torch.tensor(lengths, dtype=torch.int64)
    if batch_first:
        padded = padded.transpose(0, 1)
    if sequence.unsorted_indices is not None:
        batch_dim = 0 if batch_first else 1
        return padded.index_select(batch_dim, sequence.unsorted_indices), lengths[sequence.unsorted_indices.cpu()]
    return padded, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stacks variable-length sequences (L_i x *) into one padded tensor (T x B x *, or B x T x *
    with batch_first), padding on `padding_side`."""
    if not isinstance(sequences, Iterable):
        raise RuntimeError(f"pad_sequence: Expected iterable for input sequences, but got arg of type: "
                           f"{type(sequences)}")
    sequences = tuple(sequences)
    # aten/src/ATen/native/PackedSequence.cpp: pad_sequence
    if len(sequences) == 0:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    first = sequences[0]
    if first.dim() == 0:
        raise RuntimeError("ArrayRef: invalid slice, N = 1; size = 0")
    trailing = tuple(first.shape[1:])
    max_len = max(s.size(0) for s in sequences)
    padded = []
    for s in sequences:
        n = s.size(0)
        if tuple(s.shape[1:]) != trailing:
            # torch copies s into its slot (n, *trailing): it broadcasts, or fails as infer_size
            slot = (n,) + trailing
            ndim = max(len(slot), s.dim())
            for i in range(1, ndim + 1):
                a = slot[-i] if i <= len(slot) else 1
                b = s.shape[-i] if i <= s.dim() else 1
                if a != b and b != 1 and a != 1:
                    raise RuntimeError(f"The size of tensor a ({a}) must match the size of tensor b ({b}) at "
                                       f"non-singleton dimension {ndim - i}")
            s = s.expand(slot)
        s = s.to(first.dtype)
        if n < max_len:
            pad = torch.full((max_len - n,) + trailing, padding_value, dtype=first.dtype, device=first.device)
            s = torch.cat([s, pad] if padding_side == "right" else [pad, s])
        padded.append(s)
    return torch.stack(padded, 0 if batch_first else 1)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The sequences of a padded batch, each cut to its length."""
    unpadded = []
    if not batch_first:
        # torch transposes the caller's tensor in place (transpose_); torchlite has no in-place
        # transpose, so the caller's tensor is left as it was
        padded_sequences = padded_sequences.transpose(0, 1)
    max_length = padded_sequences.shape[1]
    idx = torch.arange(max_length, device=lengths.device)
    for seq, length in zip(padded_sequences, lengths, strict=True):
        unpadded.append(seq[idx < length])
    return unpadded


def pack_sequence(sequences, enforce_sorted=True):
    """Packs a list of variable-length sequences (pad_sequence, then pack_padded_sequence)."""
    lengths = torch.as_tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of sequences a PackedSequence holds."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)


del warnings
