#pragma once
#include <cstdint>

#include "aten/CPUGeneratorImpl.h"
#include "aten/ScalarType.h"

namespace at::native {

// Which of torch's per-ISA kernel builds to reproduce (aten/src/ATen/native/DispatchStub.h,
// ATEN_CPU_CAPABILITY). They differ in two ways that show in the numbers: the AVX2 build
// has its own float normal kernel (avx_mathfun.h), and the AVX2/AVX512 builds are compiled
// with -mfma, so GCC fuses `a * b + c` in the scalar transforms (uniform's
// `x * (to - from) + from`, normal's `val * std + mean`), which the DEFAULT build rounds
// twice.
enum class CPUCapability : int { DEFAULT = 0, AVX2 = 1, AVX512 = 2 };

// The kernels of aten/src/ATen/native/cpu/DistributionTemplates.h and
// DistributionKernels.cpp, over a buffer `out` of n elements of `dtype` that the caller
// lays out in TensorIterator's order (the caller scatters it into a strided tensor). Each
// holds the generator's mutex for the whole fill. std::invalid_argument for a dtype the
// kernel does not take.

// random_(from, to): (random() or random64() for a range >= 2**28) % range + base.
void random_from_to_kernel(CPUGeneratorImpl* gen, ScalarType dtype, void* out, int64_t n, uint64_t range, int64_t base);
// random_(-2**63, None): the 64 bits as an int64 (int64 and floating dtypes).
void random_full_64_bits_range_kernel(CPUGeneratorImpl* gen, ScalarType dtype, void* out, int64_t n);
// random_(): [0, max] for integers, [0, 2**mantissa] for floating dtypes.
void random_kernel(CPUGeneratorImpl* gen, ScalarType dtype, void* out, int64_t n);
// uniform_(from, to).
void uniform_kernel(
    CPUGeneratorImpl* gen,
    ScalarType dtype,
    void* out,
    int64_t n,
    double from,
    double to,
    CPUCapability cap);
// normal_(mean, std): normal_fill (Box-Muller on blocks of 16) for a contiguous tensor of
// at least 16 elements, else one normal_distribution<double> draw per element (which uses
// and refills the generator's cached second sample).
void normal_kernel(
    CPUGeneratorImpl* gen,
    ScalarType dtype,
    void* out,
    int64_t n,
    bool contiguous,
    double mean,
    double std,
    CPUCapability cap);
void exponential_kernel(CPUGeneratorImpl* gen, ScalarType dtype, void* out, int64_t n, double lambda);
void geometric_kernel(CPUGeneratorImpl* gen, ScalarType dtype, void* out, int64_t n, double p);
void bernoulli_scalar_kernel(CPUGeneratorImpl* gen, ScalarType dtype, void* out, int64_t n, double p);
// bernoulli_(p_tensor): `p` holds n probabilities of p_dtype, in the same order as out.
void bernoulli_tensor_kernel(
    CPUGeneratorImpl* gen,
    ScalarType dtype,
    void* out,
    int64_t n,
    ScalarType p_dtype,
    const void* p);
// randperm_cpu (aten/src/ATen/native/TensorFactories.cpp).
void randperm_kernel(CPUGeneratorImpl* gen, ScalarType dtype, void* out, int64_t n);
// multinomial_with_replacement_apply (aten/src/ATen/native/cpu/MultinomialKernel.cpp) over
// contiguous float or double probabilities [n_dist, n_categories]; out is [n_dist, n_sample].
// std::runtime_error with torch's message for an invalid distribution.
void multinomial_with_replacement_kernel(
    CPUGeneratorImpl* gen,
    ScalarType dtype,
    const void* probs,
    int64_t n_dist,
    int64_t n_categories,
    int64_t n_sample,
    int64_t* out);

// torch's AVX2 NormalFill16 on 16 floats in place (uniforms in, normals out), as the kernels run
// it on this CPU (`vectorised`: the AVX2 intrinsics where the CPU has AVX2 and FMA) or as the
// portable lane-by-lane code (avx_mathfun.h) that other CPUs run. Exposed for the C++ tests,
// which check that the two agree bit for bit.
void normal_fill_16_avx2(float* data, float mean, float std, bool vectorised);

} // namespace at::native
