// The extension module torchlite._C (torch/csrc/Module.cpp).
#include "autograd/python_cpp_function.h"
#include "autograd/python_engine.h"
#include "autograd/python_function.h"
#include "autograd/python_hook.h"
#include "autograd/python_variable.h"
#include "autograd/python_variable_methods.h"
#include "autograd/python_view.h"

namespace torch {
namespace autograd {
void initAutogradStateBindings(pybind11::module_& m);
void initEngineTraceBindings(pybind11::module_& m);
} // namespace autograd
void initGeneratorBindings(pybind11::module_& m);
void initHostMallocBindings(pybind11::module_& m);
void initUnaryOpsHostBindings(pybind11::module_& m);
void initOptimizerHostBindings(pybind11::module_& m);
void initConvolutionPoolingHostBindings(pybind11::module_& m);
void initNormalizationHostBindings(pybind11::module_& m);
void initAttentionHostBindings(pybind11::module_& m);
void initLossHostBindings(pybind11::module_& m);
void initEmbeddingHostBindings(pybind11::module_& m);
#ifdef TORCHLITE_WITH_CUDA
namespace cuda {
void initModule(pybind11::module_& m);
} // namespace cuda
#endif
} // namespace torch

PYBIND11_MODULE(_C, m) {
  using namespace torch::autograd;
  m.doc() = "torchlite's C++ autograd engine";
  // Note [Keeping the step's large buffers]: before any tensor exists
  torch::initHostMallocBindings(m);
  THPVariable_initModule(m);
  initVariableMethodBindings(m);
  initCppFunctionBindings(m);
  initHookBindings(m);
  initFunctionBindings(m);
  initViewBindings(m);
  initEngineBindings(m);
  initAutogradStateBindings(m);
  initEngineTraceBindings(m);
  torch::initGeneratorBindings(m);
  torch::initUnaryOpsHostBindings(m);
  torch::initOptimizerHostBindings(m);
  torch::initConvolutionPoolingHostBindings(m);
  torch::initNormalizationHostBindings(m);
  torch::initAttentionHostBindings(m);
  torch::initLossHostBindings(m);
  torch::initEmbeddingHostBindings(m);
#ifdef TORCHLITE_WITH_CUDA
  torch::cuda::initModule(m);
#endif
  // Note [Engine threads at interpreter exit]
  pybind11::module_::import("atexit").attr("register")(pybind11::cpp_function(&close_python_release_gate));
}
