#pragma once
// The engine as seen from Python (torch/csrc/autograd/python_engine.h).
// PythonEngine is installed as the default engine when torchlite._C is
// imported; its scheduling is the base Engine's and never touches Python.
#include "autograd/engine.h"
#include "autograd/python_variable.h"

namespace torch {
namespace autograd {
namespace python {

struct PythonEngine : public Engine {
  static Engine& get_python_engine();
  PythonEngine(const PythonEngine&) = delete;
  PythonEngine& operator=(const PythonEngine&) = delete;

  // Device threads keep one PyThreadState for their whole life, so a Python
  // node they run does not create and destroy one per call.
  void thread_init(int device, const std::shared_ptr<ReadyQueue>& ready_queue, bool should_increment) override;
  variable_list execute(
      const edge_list& roots,
      const variable_list& inputs,
      bool keep_graph,
      bool create_graph,
      bool accumulate_grad,
      const edge_list& outputs = {}) override;
  std::unique_ptr<AnomalyMetadata> make_anomaly_metadata() override;

 private:
  PythonEngine() = default;
};

} // namespace python

void initEngineBindings(pybind11::module_& m);

} // namespace autograd
} // namespace torch
