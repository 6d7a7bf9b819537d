// torchlite._C's autograd state functions (torch/csrc/autograd/init.cpp):
// grad mode, anomaly mode and multithreading switches.
#include "autograd/anomaly_mode.h"
#include "autograd/engine.h"
#include "autograd/grad_mode.h"
#include "autograd/python_variable.h"

namespace py = pybind11;

namespace torch {
namespace autograd {

void initAutogradStateBindings(py::module_& m) {
  m.def("is_grad_enabled", &GradMode::is_enabled);
  m.def("_set_grad_enabled", &GradMode::set_enabled);
  m.def("is_anomaly_enabled", &AnomalyMode::is_enabled);
  m.def("is_anomaly_check_nan_enabled", &AnomalyMode::should_check_nan);
  m.def("_set_anomaly_enabled", &AnomalyMode::set_enabled, py::arg("enabled"), py::arg("check_nan") = true);
  m.def("_set_multithreading_enabled", &set_multithreading_enabled);
  m.def("_is_multithreading_enabled", &MultithreadingMode::is_enabled);
  m.def("_current_graph_task_depth", &get_current_depth);
}

} // namespace autograd
} // namespace torch
