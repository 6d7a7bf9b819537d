// torchlite._C's CPU generator and random kernels (torch/csrc/Generator.cpp binds torch's
// generators; the kernels are aten/native/cpu/DistributionKernels.h). Each kernel fills a
// whole C-contiguous numpy buffer in one call, without the GIL; torchlite/_random.py lays
// that buffer into the tensor in TensorIterator's order.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "aten/CPUGeneratorImpl.h"
#include "aten/native/cpu/DistributionKernels.h"

namespace py = pybind11;

namespace torch {

namespace {

using at::CPUGeneratorImpl;
using at::ScalarType;
using at::native::CPUCapability;

ScalarType scalar_type_of(const py::array& a) {
  const auto dt = a.dtype();
  const char kind = dt.kind();
  const auto size = dt.itemsize();
  if (kind == 'f') {
    if (size == 4)
      return ScalarType::Float;
    if (size == 8)
      return ScalarType::Double;
    if (size == 2)
      return ScalarType::Half;
  } else if (kind == 'i') {
    if (size == 8)
      return ScalarType::Long;
    if (size == 4)
      return ScalarType::Int;
    if (size == 2)
      return ScalarType::Short;
    if (size == 1)
      return ScalarType::Char;
  } else if (kind == 'u' && size == 1) {
    return ScalarType::Byte;
  } else if (kind == 'b') {
    return ScalarType::Bool;
  }
  throw py::type_error("torchlite._C random kernels: unsupported dtype " + std::string(py::str(dt)));
}

// The buffer a kernel fills: C-contiguous and writable.
void* buffer_of(py::array& a) {
  if (!(a.flags() & py::array::c_style) || !a.writeable())
    throw std::invalid_argument("torchlite._C random kernels need a C-contiguous writable array");
  return a.mutable_data();
}

CPUCapability capability_of(int cap) {
  if (cap < 0 || cap > 2)
    throw std::invalid_argument("capability must be 0 (DEFAULT), 1 (AVX2) or 2 (AVX512)");
  return static_cast<CPUCapability>(cap);
}

template <typename F>
void fill(py::array& out, F&& kernel) {
  void* data = buffer_of(out);
  const ScalarType dtype = scalar_type_of(out);
  const auto n = static_cast<int64_t>(out.size());
  py::gil_scoped_release release;
  kernel(dtype, data, n);
}

} // namespace

void initGeneratorBindings(py::module_& m) {
  py::class_<CPUGeneratorImpl, std::shared_ptr<CPUGeneratorImpl>>(m, "_CPUGenerator")
      .def(py::init<uint64_t>(), py::arg("seed") = CPUGeneratorImpl::default_rng_seed_val)
      .def("set_current_seed", &CPUGeneratorImpl::set_current_seed)
      .def("current_seed", &CPUGeneratorImpl::current_seed)
      .def("seed", &CPUGeneratorImpl::seed)
      .def(
          "get_state",
          [](const CPUGeneratorImpl& g) {
            py::array_t<uint8_t> out(CPUGeneratorImpl::kStateSize);
            g.get_state(out.mutable_data());
            return out;
          })
      .def(
          "set_state",
          [](CPUGeneratorImpl& g, const py::array_t<uint8_t, py::array::c_style | py::array::forcecast>& state) {
            g.set_state(state.data(), static_cast<size_t>(state.size()));
          })
      .def(
          "clone_state_from",
          [](CPUGeneratorImpl& g, CPUGeneratorImpl& other) {
            g.set_engine(other.engine());
            g.set_next_float_normal_sample(other.next_float_normal_sample());
            g.set_next_double_normal_sample(other.next_double_normal_sample());
          })
      .def("random", &CPUGeneratorImpl::random)
      .def("random64", &CPUGeneratorImpl::random64);

  auto r = m.def_submodule("_random", "torch's CPU random kernels over numpy buffers");
  r.def("random_from_to", [](CPUGeneratorImpl* g, py::array out, uint64_t range, int64_t base) {
    fill(out, [&](ScalarType t, void* d, int64_t n) { at::native::random_from_to_kernel(g, t, d, n, range, base); });
  });
  r.def("random_full_64_bits_range", [](CPUGeneratorImpl* g, py::array out) {
    fill(out, [&](ScalarType t, void* d, int64_t n) { at::native::random_full_64_bits_range_kernel(g, t, d, n); });
  });
  r.def("random", [](CPUGeneratorImpl* g, py::array out) {
    fill(out, [&](ScalarType t, void* d, int64_t n) { at::native::random_kernel(g, t, d, n); });
  });
  r.def("uniform", [](CPUGeneratorImpl* g, py::array out, double from, double to, int cap) {
    const auto c = capability_of(cap);
    fill(out, [&](ScalarType t, void* d, int64_t n) { at::native::uniform_kernel(g, t, d, n, from, to, c); });
  });
  r.def("normal", [](CPUGeneratorImpl* g, py::array out, bool contiguous, double mean, double std, int cap) {
    const auto c = capability_of(cap);
    fill(out, [&](ScalarType t, void* d, int64_t n) {
      at::native::normal_kernel(g, t, d, n, contiguous, mean, std, c);
    });
  });
  r.def("exponential", [](CPUGeneratorImpl* g, py::array out, double lambda) {
    fill(out, [&](ScalarType t, void* d, int64_t n) { at::native::exponential_kernel(g, t, d, n, lambda); });
  });
  r.def("geometric", [](CPUGeneratorImpl* g, py::array out, double p) {
    fill(out, [&](ScalarType t, void* d, int64_t n) { at::native::geometric_kernel(g, t, d, n, p); });
  });
  r.def("bernoulli_scalar", [](CPUGeneratorImpl* g, py::array out, double p) {
    fill(out, [&](ScalarType t, void* d, int64_t n) { at::native::bernoulli_scalar_kernel(g, t, d, n, p); });
  });
  r.def("bernoulli_tensor", [](CPUGeneratorImpl* g, py::array out, py::array p) {
    if (p.size() != out.size() || !(p.flags() & py::array::c_style))
      throw std::invalid_argument("bernoulli_tensor: p must be C-contiguous with out's size");
    const ScalarType pt = scalar_type_of(p);
    const void* pd = p.data();
    fill(out, [&](ScalarType t, void* d, int64_t n) { at::native::bernoulli_tensor_kernel(g, t, d, n, pt, pd); });
  });
  r.def("randperm", [](CPUGeneratorImpl* g, py::array out) {
    fill(out, [&](ScalarType t, void* d, int64_t n) { at::native::randperm_kernel(g, t, d, n); });
  });
  r.def("multinomial_with_replacement", [](CPUGeneratorImpl* g, py::array probs, int64_t n_sample) {
    if (probs.ndim() != 2 || !(probs.flags() & py::array::c_style))
      throw std::invalid_argument("multinomial_with_replacement: probs must be a C-contiguous 2-d array");
    const ScalarType pt = scalar_type_of(probs);
    const int64_t n_dist = probs.shape(0);
    const int64_t n_cat = probs.shape(1);
    py::array_t<int64_t> out({n_dist, n_sample});
    int64_t* o = out.mutable_data();
    const void* pd = probs.data();
    {
      py::gil_scoped_release release;
      at::native::multinomial_with_replacement_kernel(g, pt, pd, n_dist, n_cat, n_sample, o);
    }
    return out;
  });
}

} // namespace torch
