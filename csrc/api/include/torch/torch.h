#pragma once
// The C++ front end: what `#include <torch/torch.h>` gives a libtorch program,
// for the ops torchlite implements in C++ (README, "C++").
#include "torch/autograd.h"
#include "torch/nn.h"
#include "torch/types.h"
