#pragma once

// One Adam / AdamW step of a float32 parameter in one pass (the role of upstream's
// aten/src/ATen/native/cpu/FusedAdamKernel.cpp, with the arithmetic of
// torch/optim/adam.py's _single_tensor_adam, the path torch takes on the CPU).
//
// Note [The single-tensor Adam step in one pass]
// torchlite/optim/adam.py's step is a chain of in-place updates, each one pass over
// the parameter's size in numpy (or in the C++ dispatch): param.mul_(decay), exp_avg.lerp_,
// exp_avg_sq.mul_().addcmul_(), sqrt, a division and add_ for the denominator,
// param.addcdiv_. Each is a sequence of IEEE operations on each element alone, so
// running the same operations in the same order for one element after another gives
// the same bits with the arrays read once. The scalars arrive already rounded as the
// Python kernels round them (to float32, or lerp's weight kept in float64 for its
// fused multiply-add, which BinaryOps._fma computes exactly in float64 for float32).

#include <cstddef>

namespace at {
namespace native {

struct AdamStepScalars {
  bool decay; // param.mul_(decay_factor) first (AdamW's decoupled weight decay)
  float decay_factor; // float32(1 - lr * weight_decay)
  bool lerp_from_end; // lerp's coefficient is weight - 1 and its base `end` (|weight| >= 0.5)
  float lerp_coefficient; // float32 weight, or float32(weight - 1)
  float beta2; // exp_avg_sq.mul_(beta2)
  float square_weight; // addcmul_'s value, float32(1 - beta2)
  float bias_correction2_sqrt; // the denominator's divisor, float32
  float eps; // float32
  float step_weight; // addcdiv_'s value, float32(-step_size)
};

// Updates param, exp_avg and exp_avg_sq (n contiguous float32 each, none overlapping
// another or grad) as the single-tensor step's in-place operations would.
void adam_step_float(
    float* param,
    const float* grad,
    float* exp_avg,
    float* exp_avg_sq,
    std::ptrdiff_t n,
    const AdamStepScalars& s);

} // namespace native
} // namespace at
