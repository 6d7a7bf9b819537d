"""Outside programs run unchanged under torchlite but for the import, against torch.

Each program's source is the tutorial's, executed with `torch` bound to the library under test
(the only change: the import). Both libraries draw the same numbers: torch.randn and the
initialisers' uniform_/normal_ are replaced, under both, by one seeded numpy stream, so a freshly
built model holds the same weights under both (which also checks that the layers initialise in
torch's order, with torch's bounds). torch.optim.SGD is given by a few lines of plain SGD until
torchlite.optim lands (the same lines under both libraries).

- The "Deep Learning with PyTorch: A 60 Minute Blitz" neural-network tutorial
  (beginner_source/blitz/neural_networks_tutorial.py): the LeNet `Net`, a forward, a backward,
  the loss, the manual update and one SGD step; float32, 1e-5.
- examples_nn: two_layer_net_nn.py (nn.Sequential, MSELoss, manual updates) and
  two_layer_net_module.py (a custom Module, MSELoss, SGD) in float64: the printed losses equal
  torch's to 1e-10. The one other change: 200 steps instead of the programs' 500, for the
  suite's time (the losses printed at steps 99 and 199).
"""
import re
import types

import numpy as np
import pytest

import torchlite

from diff_utils import import_torch

torch = import_torch()

BLITZ = '''
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):

    def __init__(self):
        super(Net, self).__init__()
        # 1 input image channel, 6 output channels, 5x5 square convolution
        # kernel
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        # an affine operation: y = Wx + b
        self.fc1 = nn.Linear(16 * 5 * 5, 120)  # 5*5 from image dimension
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, input):
        # Convolution layer C1: 1 input image channel, 6 output channels,
        # 5x5 square convolution, it uses RELU activation function, and
        # outputs a Tensor with size (N, 6, 28, 28), where N is the size of the batch
        c1 = F.relu(self.conv1(input))
        # Subsampling layer S2: 2x2 grid, purely functional,
        # this layer does not have any parameter, and outputs a (N, 6, 14, 14) Tensor
        s2 = F.max_pool2d(c1, (2, 2))
        # Convolution layer C3: 6 input channels, 16 output channels,
        # 5x5 square convolution, it uses RELU activation function, and
        # outputs a (N, 16, 10, 10) Tensor
        c3 = F.relu(self.conv2(s2))
        # Subsampling layer S4: 2x2 grid, purely functional,
        # this layer does not have any parameter, and outputs a (N, 16, 5, 5) Tensor
        s4 = F.max_pool2d(c3, 2)
        # Flatten operation: purely functional, outputs a (N, 400) Tensor
        s4 = torch.flatten(s4, 1)
        # Fully connected layer F5: (N, 400) Tensor input,
        # and outputs a (N, 120) Tensor, it uses RELU activation function
        f5 = F.relu(self.fc1(s4))
        # Fully connected layer F6: (N, 120) Tensor input,
        # and outputs a (N, 84) Tensor, it uses RELU activation function
        f6 = F.relu(self.fc2(f5))
        # Gaussian layer OUTPUT: (N, 84) Tensor input, and
        # outputs a (N, 10) Tensor
        output = self.fc3(f6)
        return output


net = Net()
print(net)

params = list(net.parameters())
print(len(params))
print(params[0].size())  # conv1's .weight

input = torch.randn(1, 1, 32, 32)
out = net(input)
print(out)

net.zero_grad()
out.backward(torch.randn(1, 10))

output = net(input)
target = torch.randn(10)  # a dummy target, for example
target = target.view(1, -1)  # make it the same shape as output
criterion = nn.MSELoss()

loss = criterion(output, target)
print(loss)

print(loss.grad_fn)  # MSELoss
print(loss.grad_fn.next_functions[0][0])  # Linear
print(loss.grad_fn.next_functions[0][0].next_functions[0][0])  # ReLU

net.zero_grad()     # zeroes the gradient buffers of all parameters

print('conv1.bias.grad before backward')
print(net.conv1.bias.grad)

loss.backward()

print('conv1.bias.grad after backward')
print(net.conv1.bias.grad)

learning_rate = 0.01
for f in net.parameters():
    f.data.sub_(f.grad.data * learning_rate)

import torch.optim as optim

# create your optimizer
optimizer = optim.SGD(net.parameters(), lr=0.01)

# in your training loop:
optimizer.zero_grad()   # zero the gradient buffers
output = net(input)
loss = criterion(output, target)
loss.backward()
optimizer.step()    # Does the update
'''

TWO_LAYER_NET_NN = '''
# -*- coding: utf-8 -*-
import torch

# N is batch size; D_in is input dimension;
# H is hidden dimension; D_out is output dimension.
N, D_in, H, D_out = 64, 1000, 100, 10

# Create random Tensors to hold inputs and outputs
x = torch.randn(N, D_in)
y = torch.randn(N, D_out)

# Use the nn package to define our model as a sequence of layers. nn.Sequential
# is a Module which contains other Modules, and applies them in sequence to
# produce its output. Each Linear Module computes output from input using a
# linear function, and holds internal Tensors for its weight and bias.
model = torch.nn.Sequential(
    torch.nn.Linear(D_in, H),
    torch.nn.ReLU(),
    torch.nn.Linear(H, D_out),
)

# The nn package also contains definitions of popular loss functions; in this
# case we will use Mean Squared Error (MSE) as our loss function.
loss_fn = torch.nn.MSELoss(reduction='sum')

learning_rate = 1e-4
for t in range(500):
    # Forward pass: compute predicted y by passing x to the model. Module objects
    # override the __call__ operator so you can call them like functions. When
    # doing so you pass a Tensor of input data to the Module and it produces
    # a Tensor of output data.
    y_pred = model(x)

    # Compute and print loss. We pass Tensors containing the predicted and true
    # values of y, and the loss function returns a Tensor containing the
    # loss.
    loss = loss_fn(y_pred, y)
    if t % 100 == 99:
        print(t, loss.item())

    # Zero the gradients before running the backward pass.
    model.zero_grad()

    # Backward pass: compute gradient of the loss with respect to all the learnable
    # parameters of the model. Internally, the parameters of each Module are stored
    # in Tensors with requires_grad=True, so this call will compute gradients for
    # all learnable parameters in the model.
    loss.backward()

    # Update the weights using gradient descent. Each parameter is a Tensor, so
    # we can access its gradients like we did before.
    with torch.no_grad():
        for param in model.parameters():
            param -= learning_rate * param.grad
'''

TWO_LAYER_NET_MODULE = '''
# -*- coding: utf-8 -*-
import torch


class TwoLayerNet(torch.nn.Module):
    def __init__(self, D_in, H, D_out):
        """
        In the constructor we instantiate two nn.Linear modules and assign them as
        member variables.
        """
        super(TwoLayerNet, self).__init__()
        self.linear1 = torch.nn.Linear(D_in, H)
        self.linear2 = torch.nn.Linear(H, D_out)

    def forward(self, x):
        """
        In the forward function we accept a Tensor of input data and we must return
        a Tensor of output data. We can use Modules defined in the constructor as
        well as arbitrary operators on Tensors.
        """
        h_relu = self.linear1(x).clamp(min=0)
        y_pred = self.linear2(h_relu)
        return y_pred


# N is batch size; D_in is input dimension;
# H is hidden dimension; D_out is output dimension.
N, D_in, H, D_out = 64, 1000, 100, 10

# Create random Tensors to hold inputs and outputs
x = torch.randn(N, D_in)
y = torch.randn(N, D_out)

# Construct our model by instantiating the class defined above
model = TwoLayerNet(D_in, H, D_out)

# Construct our loss function and an Optimizer. The call to model.parameters()
# in the SGD constructor will contain the learnable parameters of the two
# nn.Linear modules which are members of the model.
criterion = torch.nn.MSELoss(reduction='sum')
optimizer = torch.optim.SGD(model.parameters(), lr=1e-4)
for t in range(500):
    # Forward pass: Compute predicted y by passing x to the model
    y_pred = model(x)

    # Compute and print loss
    loss = criterion(y_pred, y)
    if t % 100 == 99:
        print(t, loss.item())

    # Zero gradients, perform a backward pass, and update the weights.
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
'''


class _SGD:
    """Plain SGD (torch.optim.SGD without momentum): the same lines under both libraries."""

    def __init__(self, lib, params, lr):
        self.lib = lib
        self.params = list(params)
        self.lr = lr

    def zero_grad(self):
        for p in self.params:
            p.grad = None

    def step(self):
        with self.lib.no_grad():
            for p in self.params:
                if p.grad is not None:
                    p.add_(p.grad, alpha=-self.lr)


def run_program(source, lib, monkeypatch, dtype="float32"):
    """Runs `source` with `torch` being `lib`; returns what it printed (the objects)."""
    stream = np.random.default_rng(0)

    def fill(t, values):
        with lib.no_grad():
            t.copy_(lib.tensor(values, dtype=t.dtype))
        return t

    def uniform_(t, a=0.0, b=1.0, *, generator=None):
        return fill(t, a + (b - a) * stream.random(tuple(t.shape)))

    def normal_(t, mean=0.0, std=1.0, *, generator=None):
        return fill(t, mean + std * stream.standard_normal(tuple(t.shape)))

    real_tensor = lib.tensor

    def randn(*size, **kwargs):
        shape = size[0] if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
        return real_tensor(stream.standard_normal(tuple(shape)), dtype=lib.get_default_dtype())

    monkeypatch.setattr(lib.Tensor, "uniform_", uniform_)
    monkeypatch.setattr(lib.Tensor, "normal_", normal_)
    monkeypatch.setattr(lib, "randn", randn)
    optim = types.SimpleNamespace(SGD=lambda params, lr: _SGD(lib, params, lr))
    monkeypatch.setattr(lib, "optim", optim, raising=False)
    printed = []
    old_dtype = lib.get_default_dtype()
    lib.set_default_dtype(getattr(lib, dtype))
    try:
        # the one change: `import torch...` binds the library under test
        src = re.sub(r"^import torch\.nn\.functional as F$", "F = torch.nn.functional", source, flags=re.M)
        src = re.sub(r"^import torch\.nn as nn$", "nn = torch.nn", src, flags=re.M)
        src = re.sub(r"^import torch\.optim as optim$", "optim = torch.optim", src, flags=re.M)
        src = re.sub(r"^import torch$", "", src, flags=re.M)
        exec(compile(src, "<program>", "exec"), {"torch": lib, "print": lambda *a: printed.append(a),
                                                 "__name__": "__main__"})
    finally:
        lib.set_default_dtype(old_dtype)
    return printed


def compare(got, expected, tol):
    assert len(got) == len(expected)
    for g_line, e_line in zip(got, expected, strict=True):
        assert len(g_line) == len(e_line)
        for g, e in zip(g_line, e_line, strict=True):
            if isinstance(e, torch.Tensor):
                assert isinstance(g, torchlite.Tensor) and tuple(g.shape) == tuple(e.shape)
                assert (g.grad_fn is None) == (e.grad_fn is None)
                if e.grad_fn is not None:
                    assert g.grad_fn.name() == e.grad_fn.name()
                np.testing.assert_allclose(g.detach().numpy(), e.detach().numpy(), rtol=tol, atol=tol)
            elif isinstance(e, float):
                np.testing.assert_allclose(g, e, rtol=tol, atol=0)
            elif hasattr(e, "next_functions"):  # a node: its name
                assert g.name() == e.name()
            else:
                assert str(g).replace("torchlite", "torch") == str(e)


def test_blitz_net(monkeypatch):
    expected = run_program(BLITZ, torch, monkeypatch)
    got = run_program(BLITZ, torchlite, monkeypatch)
    compare(got, expected, 1e-5)
    assert str(got[0][0]).startswith("Net(\n  (conv1): Conv2d(1, 6, kernel_size=(5, 5), stride=(1, 1))")


@pytest.mark.parametrize("program", ["two_layer_net_nn", "two_layer_net_module"])
def test_two_layer_net(program, monkeypatch):
    source = {"two_layer_net_nn": TWO_LAYER_NET_NN, "two_layer_net_module": TWO_LAYER_NET_MODULE}[program]
    source = source.replace("for t in range(500):", "for t in range(200):")
    expected = run_program(source, torch, monkeypatch, "float64")
    got = run_program(source, torchlite, monkeypatch, "float64")
    assert [t for t, _ in got] == [99, 199]
    compare(got, expected, 1e-10)
