// Note [The single-tensor Adam step in one pass] (AdamKernel.h). Compiled with
// -ffp-contract=off (CMakeLists.txt): every product and sum rounds on its own, as
// numpy's separate passes round them.
#include "aten/native/cpu/AdamKernel.h"

#include <cmath>

namespace at {
namespace native {

namespace {

// The compiler vectorizes this loop (-fno-math-errno: sqrt without errno, CMakeLists.txt), in
// AVX2 where the CPU has it (one clone per target, chosen at load time); each lane rounds the
// same operations as the scalar loop.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TORCHLITE_ADAM_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define TORCHLITE_ADAM_CLONES
#endif

template <bool kDecay, bool kFromEnd>
TORCHLITE_ADAM_CLONES void adam_step_loop(
    float* __restrict param,
    const float* __restrict grad,
    float* __restrict exp_avg,
    float* __restrict exp_avg_sq,
    std::ptrdiff_t n,
    const AdamStepScalars& scalars) {
  const AdamStepScalars s = scalars;
  const double coefficient = s.lerp_coefficient;
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    const float g = grad[i];
    float p = param[i];
    if (kDecay)
      p = p * s.decay_factor;
    // lerp_: coefficient * (end - start) + base, the product exact in float64 and the sum
    // rounded in float64, then to float32 (BinaryOps._lerp through _fma)
    const float m0 = exp_avg[i];
    const double product = static_cast<double>(g - m0) * coefficient;
    const float m = static_cast<float>(product + static_cast<double>(kFromEnd ? g : m0));
    exp_avg[i] = m;
    // mul_(beta2), then addcmul_: value * grad * grad added, left to right
    float v = exp_avg_sq[i] * s.beta2;
    float t = s.square_weight * g;
    t = t * g;
    v = v + t;
    exp_avg_sq[i] = v;
    // denom = (sqrt(exp_avg_sq) / bias_correction2_sqrt) + eps
    float denom = std::sqrt(v);
    denom = denom / s.bias_correction2_sqrt;
    denom = denom + s.eps;
    // addcdiv_: param + value * exp_avg / denom, left to right
    float u = s.step_weight * m;
    u = u / denom;
    param[i] = p + u;
  }
}

} // namespace

void adam_step_float(
    float* param,
    const float* grad,
    float* exp_avg,
    float* exp_avg_sq,
    std::ptrdiff_t n,
    const AdamStepScalars& s) {
  if (s.decay)
    s.lerp_from_end ? adam_step_loop<true, true>(param, grad, exp_avg, exp_avg_sq, n, s)
                    : adam_step_loop<true, false>(param, grad, exp_avg, exp_avg_sq, n, s);
  else
    s.lerp_from_end ? adam_step_loop<false, true>(param, grad, exp_avg, exp_avg_sq, n, s)
                    : adam_step_loop<false, false>(param, grad, exp_avg, exp_avg_sq, n, s);
}

} // namespace native
} // namespace at
