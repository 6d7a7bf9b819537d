"""Fixes found by running outside programs (pytorch/examples, karpathy's repositories) under
torchlite: each a differential case against torch."""
import pytest

import torchlite

from diff_utils import import_torch, run

torch = import_torch()

DEVICES = ["cpu", "sim:0"]


def _dev(lib, device):
    return "cpu" if lib is not torchlite else device


# indexing with a range or a tuple item (python_variable_indexing.cpp: any sequence in the key is an
# index tensor; pytorch/examples mnist_forward_forward's `x_[range(x.shape[0]), y] = x.max()`)

INDEX_KEYS = [
    lambda lib: (range(3), [0, 1, 2]),
    lambda lib: range(2),
    lambda lib: range(1, 3),
    lambda lib: range(0),
    lambda lib: ((0, 2), 1),
    lambda lib: (slice(None), (1, 3)),
    lambda lib: (slice(None), (0.5, 1)),
    lambda lib: ((True, False, True),),
    lambda lib: [range(2), range(2)],
    lambda lib: (range(3), lib.tensor([0, 1, 2])),
    lambda lib: (Ellipsis, range(2, 4)),
    lambda lib: (range(5), 0),
]


@pytest.mark.filterwarnings("ignore:Using a non-tuple sequence")
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("key", range(len(INDEX_KEYS)))
def test_getitem_sequence_keys(key, device):
    def case(lib):
        x = lib.arange(12.0, device=_dev(lib, device)).reshape(3, 4).requires_grad_()
        y = x[INDEX_KEYS[key](lib)]
        y.sum().backward()
        return y, x.grad, type(y.grad_fn).__name__
    assert run(case, torchlite) == run(case, torch)


@pytest.mark.filterwarnings("ignore:Using a non-tuple sequence")
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("key", range(len(INDEX_KEYS)))
def test_setitem_sequence_keys(key, device):
    def case(lib):
        w = lib.arange(12.0, device=_dev(lib, device)).reshape(3, 4).requires_grad_()
        x = w * 1
        x[INDEX_KEYS[key](lib)] = w.max()
        x.pow(2).sum().backward()
        return x, w.grad, x.grad_fn.name()
    assert run(case, torchlite) == run(case, torch)


def test_mnist_forward_forward_overlay():
    # pytorch/examples mnist_forward_forward/main.py's overlay_y_on_x
    def case(lib):
        def overlay_y_on_x(x, y, classes=10):
            x_ = x.clone()
            x_[:, :classes] *= 0.0
            x_[range(x.shape[0]), y] = x.max()
            return x_
        g = lib.Generator().manual_seed(0)
        x = lib.randn(6, 20, generator=g)
        y = lib.randint(10, (6,), generator=g)
        return overlay_y_on_x(x, y), overlay_y_on_x(x, 3)
    assert run(case, torchlite) == run(case, torch)


# torch.nn.parallel / nn.DataParallel (pytorch/examples dcgan/main.py imports torch.nn.parallel and
# calls nn.parallel.data_parallel on CUDA inputs; imagenet and others wrap models in DataParallel)

def test_data_parallel_trains_as_the_module():
    def case(lib):
        lib.manual_seed(0)
        net = lib.nn.Sequential(lib.nn.Linear(4, 3), lib.nn.ReLU(), lib.nn.Linear(3, 1))
        model = lib.nn.DataParallel(net)
        opt = lib.optim.SGD(model.parameters(), lr=0.1)
        x = lib.randn(5, 4)
        losses = []
        for _ in range(3):
            opt.zero_grad()
            loss = model(x).pow(2).mean()
            loss.backward()
            opt.step()
            losses.append(loss)
        return (losses, list(model.state_dict()), [n for n, _ in model.named_parameters()], model.device_ids,
                repr(model), isinstance(model, lib.nn.Module), lib.nn.parallel.DataParallel is lib.nn.DataParallel)
    assert run(case, torchlite) == run(case, torch)


def test_data_parallel_functional_needs_an_accelerator():
    def case(lib):
        return lib.nn.parallel.data_parallel(lib.nn.Linear(2, 2), lib.ones(1, 2))
    assert run(case, torchlite) == run(case, torch) == ("raised", "RuntimeError", "device type could not be determined")


# torch.backends (nanoGPT's train.py: torch.backends.cuda.matmul.allow_tf32 = True,
# torch.backends.cudnn.allow_tf32 = True; dcgan: cudnn.benchmark = True)

def test_backends_switches():
    def case(lib):
        import importlib
        cudnn = importlib.import_module(f"{lib.__name__}.backends.cudnn")
        old = (lib.backends.cuda.matmul.allow_tf32, cudnn.allow_tf32, cudnn.benchmark)
        try:
            lib.backends.cuda.matmul.allow_tf32 = True
            lib.backends.cudnn.allow_tf32 = True
            cudnn.benchmark = True
            return (lib.backends.cuda.matmul.allow_tf32, cudnn.allow_tf32, lib.backends.cudnn.benchmark,
                    # (cuDNN exists exactly in a CUDA build of torch: PyPI's 3.10 / 3.13 wheels)
                    lib.backends.cudnn.is_available() == (lib.__name__ == "torch" and lib.cuda._is_compiled()),
                    lib.backends.mps.is_available(), old)
        finally:
            lib.backends.cuda.matmul.allow_tf32, cudnn.allow_tf32, cudnn.benchmark = old
    assert run(case, torchlite) == run(case, torch)


# Tensor.is_xpu & co. (dcgan's `if (input.is_cuda or input.is_xpu) and self.ngpu > 1`), layout,
# get_device, ndimension

def test_tensor_device_kind_properties_cpu():
    def case(lib):
        x = lib.zeros(2, 3)
        names = ["is_cpu", "is_cuda", "is_xpu", "is_mps", "is_meta", "is_sparse", "is_quantized", "is_mkldnn",
                 "is_nested", "is_xla", "is_ipu", "is_vulkan", "is_mtia", "is_maia", "is_sparse_csr"]
        return [getattr(x, n) for n in names], str(x.layout), x.get_device(), x.ndimension(), x[0].ndimension()
    assert run(case, torchlite) == run(case, torch)


def test_tensor_device_kind_properties_sim():
    x = torchlite.zeros(2, device="sim:0")
    assert (x.is_cpu, x.is_cuda, x.is_xpu, x.get_device()) == (False, False, False, 0)
    assert torchlite.zeros(1, device="sim:1").get_device() == 1


# torch.cuda's seeding and memory calls without CUDA (makemore: torch.cuda.manual_seed_all(args.seed))

def test_cuda_seeding_without_cuda_leaves_the_cpu_stream():
    def case(lib):
        lib.manual_seed(3407)
        lib.cuda.manual_seed_all(3407)
        lib.cuda.manual_seed(1)
        return lib.randn(4), lib.cuda.memory_allocated(), lib.cuda.is_bf16_supported(), lib.cuda.empty_cache()
    assert run(case, torchlite) == run(case, torch)


# numpy's keyword names (python_arg_parser.cpp's numpy_compatibility_arg_names: axis= for dim,
# keepdims= for keepdim, x= / a= / x1= for input, x2= for other) in torch.* calls (karpathy's
# nn-zero-to-hero notebooks: counts.sum(1, keepdims=True)). The Tensor methods (x.sum(1, keepdims=True))
# are bound to their kernels directly and do not take them yet.

NUMPY_KEYWORD_CALLS = [
    lambda lib, x: lib.sum(x, axis=1, keepdims=True),
    lambda lib, x: lib.sum(x, axis=0),
    lambda lib, x: lib.mean(x, axis=(0, 1), keepdims=True),
    lambda lib, x: lib.max(x, axis=0, keepdims=True),
    lambda lib, x: lib.argmax(x, axis=1),
    lambda lib, x: lib.cat([x, x], axis=0),
    lambda lib, x: lib.add(x=x, other=x),
    lambda lib, x: lib.add(x, x2=x),
    lambda lib, x: lib.mean(a=x),
    lambda lib, x: lib.std(x, axis=0),
    lambda lib, x: lib.sum(x, dim=0, axis=1),
    lambda lib, x: lib.softmax(x, axis=1),
    lambda lib, x: lib.nn.functional.softmax(x, axis=1),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("call", range(len(NUMPY_KEYWORD_CALLS)))
def test_numpy_keyword_names(call, device):
    def case(lib):
        x = lib.arange(6.0, device=_dev(lib, device)).reshape(2, 3).requires_grad_()
        y = NUMPY_KEYWORD_CALLS[call](lib, x)
        y = y[0] if isinstance(y, tuple) else y
        if y.requires_grad:
            y.sum().backward()
        return y, x.grad
    assert run(case, torchlite) == run(case, torch)
