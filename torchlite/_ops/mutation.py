"""Note [Before an in-place write]

torch.autograd.graph.allow_mutation_on_saved_tensors clones a tensor saved for backward
before an op writes it, so backward still reads the value it saved (upstream: the
_CloneArgBeforeMutateMode TorchDispatchMode sees every op whose schema writes an
argument, torch/autograd/graph.py). torchlite has no dispatcher: each kernel that
writes a tensor's memory in place (the in-place ops, copy_, the index_put_ of
setitem, out= resizes) runs

    if mutation.hook is not None:
        mutation.hook(tensor)

just before the write, after the op's node saved what it saves. `hook` is None except
while that context is active, so other code pays one attribute read per in-place op.
"""
hook = None
