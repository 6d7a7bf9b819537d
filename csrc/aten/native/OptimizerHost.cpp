// Host kernels of torchlite/optim, bound for optim/_fast.py: one Adam / AdamW step of
// a float32 parameter in one pass (Note [The single-tensor Adam step in one pass]).
#include "aten/native/cpu/AdamKernel.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <stdexcept>
#include <string>

namespace torch {
namespace {

using FloatArray = pybind11::array_t<float, pybind11::array::c_style>;

void check_size(const FloatArray& param, const FloatArray& other, const char* name) {
  if (other.size() != param.size())
    throw std::invalid_argument(std::string("_adam_step_float32_host: ") + name + " has another size than param");
}

void adam_step_float32_host(
    FloatArray param,
    const FloatArray& grad,
    FloatArray exp_avg,
    FloatArray exp_avg_sq,
    pybind11::object decay_factor,
    bool lerp_from_end,
    float lerp_coefficient,
    float beta2,
    float square_weight,
    float bias_correction2_sqrt,
    float eps,
    float step_weight) {
  check_size(param, grad, "grad");
  check_size(param, exp_avg, "exp_avg");
  check_size(param, exp_avg_sq, "exp_avg_sq");
  at::native::AdamStepScalars s{};
  s.decay = !decay_factor.is_none();
  s.decay_factor = s.decay ? decay_factor.cast<float>() : 1.0f;
  s.lerp_from_end = lerp_from_end;
  s.lerp_coefficient = lerp_coefficient;
  s.beta2 = beta2;
  s.square_weight = square_weight;
  s.bias_correction2_sqrt = bias_correction2_sqrt;
  s.eps = eps;
  s.step_weight = step_weight;
  float* p = param.mutable_data();
  const float* g = grad.data();
  float* m = exp_avg.mutable_data();
  float* v = exp_avg_sq.mutable_data();
  const auto n = param.size();
  pybind11::gil_scoped_release release;
  at::native::adam_step_float(p, g, m, v, n, s);
}

} // namespace

void initOptimizerHostBindings(pybind11::module_& m) {
  m.def(
      "_adam_step_float32_host",
      &adam_step_float32_host,
      pybind11::arg("param").noconvert(),
      pybind11::arg("grad").noconvert(),
      pybind11::arg("exp_avg").noconvert(),
      pybind11::arg("exp_avg_sq").noconvert(),
      pybind11::arg("decay_factor"),
      pybind11::arg("lerp_from_end"),
      pybind11::arg("lerp_coefficient"),
      pybind11::arg("beta2"),
      pybind11::arg("square_weight"),
      pybind11::arg("bias_correction2_sqrt"),
      pybind11::arg("eps"),
      pybind11::arg("step_weight"),
      "one single-tensor Adam step of C-contiguous float32 arrays in one pass, in place; the scalars rounded "
      "to float32 by the caller (decay_factor None: no decoupled weight decay)");
}

} // namespace torch
