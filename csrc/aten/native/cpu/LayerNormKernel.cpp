// Note [Layer norm with numpy's bits] (LayerNormKernel.h).
#include "aten/native/cpu/LayerNormKernel.h"

#include "aten/native/cpu/NumpySum.h"

#include <cmath>

namespace at {
namespace native {
namespace {

// np.mean's quotient: the add reduction (+0 + the pairwise sum) over the
// count, divided in double (numpy's _mean: the sum over an np.intp count,
// the float64 loop under NEP 50), rounded to T by the unsafe cast into the
// sum's own array.
template <typename T>
T mean_of_sum(T pairwise, std::int64_t n) {
  return numpy_mean_of_sum(T(0) + pairwise, n);
}

} // namespace

template <typename T>
T numpy_row_mean(const T* row, std::int64_t n) {
  return mean_of_sum(numpy_pairwise_sum<T>([row](std::int64_t i) { return row[i]; }, 0, n), n);
}

template <typename T>
void layer_norm_rows(
    const T* x,
    const T* weight,
    const T* bias,
    T eps,
    std::int64_t m,
    std::int64_t n,
    T* y,
    T* mean,
    T* rstd) {
  for (std::int64_t i = 0; i < m; ++i) {
    const T* xr = x + i * n;
    T* yr = y + i * n;
    // mean = x.mean(axes); xc = x - mean (kept in y)
    const T mu = numpy_row_mean(xr, n);
    for (std::int64_t j = 0; j < n; ++j)
      yr[j] = xr[j] - mu;
    // var = np.mean(xc * xc, axes): each square rounded, as numpy's temporary
    const T var = mean_of_sum(
        numpy_pairwise_sum<T>(
            [yr](std::int64_t j) {
              const T d = yr[j];
              return T(d * d);
            },
            0,
            n),
        n);
    // rstd = 1 / np.sqrt(var + eps)
    const T rs = T(1) / std::sqrt(var + eps);
    mean[i] = mu;
    rstd[i] = rs;
    // y = xc * rstd; y = y * weight; y = y + bias
    if (weight != nullptr && bias != nullptr) {
      for (std::int64_t j = 0; j < n; ++j) {
        const T t = yr[j] * rs;
        const T u = t * weight[j];
        yr[j] = u + bias[j];
      }
    } else if (weight != nullptr) {
      for (std::int64_t j = 0; j < n; ++j) {
        const T t = yr[j] * rs;
        yr[j] = t * weight[j];
      }
    } else if (bias != nullptr) {
      for (std::int64_t j = 0; j < n; ++j) {
        const T t = yr[j] * rs;
        yr[j] = t + bias[j];
      }
    } else {
      for (std::int64_t j = 0; j < n; ++j)
        yr[j] = yr[j] * rs;
    }
  }
}

template <typename T>
void layer_norm_backward_rows(
    const T* g,
    const T* x,
    const T* mean,
    const T* rstd,
    const T* weight,
    std::int64_t m,
    std::int64_t n,
    T* grad_input,
    T* grad_weight,
    T* grad_bias,
    T* scratch) {
  // the reductions over the leading dims start from numpy's +0 identity
  if (grad_weight != nullptr) {
    for (std::int64_t j = 0; j < n; ++j)
      grad_weight[j] = T(0);
  }
  if (grad_bias != nullptr) {
    for (std::int64_t j = 0; j < n; ++j)
      grad_bias[j] = T(0);
  }
  T* xhat = scratch;
  for (std::int64_t i = 0; i < m; ++i) {
    const T* gr = g + i * n;
    const T* xr = x + i * n;
    const T mu = mean[i];
    const T r = rstd[i];
    // xhat = X - mean; xhat *= r
    for (std::int64_t j = 0; j < n; ++j) {
      const T xc = xr[j] - mu;
      xhat[j] = xc * r;
    }
    if (grad_input != nullptr) {
      T* gi = grad_input + i * n;
      // g = G * w (kept in grad_input's row), or G itself
      const T* gw = gr;
      if (weight != nullptr) {
        for (std::int64_t j = 0; j < n; ++j)
          gi[j] = gr[j] * weight[j];
        gw = gi;
      }
      // mean_gx = np.mean(g * xhat); mean_g = np.mean(g)
      const T mean_gx =
          mean_of_sum(numpy_pairwise_sum<T>([gw, xhat](std::int64_t j) { return gw[j] * xhat[j]; }, 0, n), n);
      const T mean_g = numpy_row_mean(gw, n);
      // gi = g - mean_g; gi -= xhat * mean_gx; gi = r * gi
      for (std::int64_t j = 0; j < n; ++j) {
        const T a = gw[j] - mean_g;
        const T b = xhat[j] * mean_gx;
        const T c = a - b;
        gi[j] = r * c;
      }
    }
    // np.sum(G * xhat, leading axes), np.sum(G, leading axes): row by row
    if (grad_weight != nullptr) {
      for (std::int64_t j = 0; j < n; ++j) {
        const T p = gr[j] * xhat[j];
        grad_weight[j] = grad_weight[j] + p;
      }
    }
    if (grad_bias != nullptr) {
      for (std::int64_t j = 0; j < n; ++j)
        grad_bias[j] = grad_bias[j] + gr[j];
    }
  }
}

template float numpy_row_mean<float>(const float*, std::int64_t);
template double numpy_row_mean<double>(const double*, std::int64_t);
template void layer_norm_rows<
    float>(const float*, const float*, const float*, float, std::int64_t, std::int64_t, float*, float*, float*);
template void layer_norm_rows<
    double>(const double*, const double*, const double*, double, std::int64_t, std::int64_t, double*, double*, double*);
template void layer_norm_backward_rows<float>(
    const float*,
    const float*,
    const float*,
    const float*,
    const float*,
    std::int64_t,
    std::int64_t,
    float*,
    float*,
    float*,
    float*);
template void layer_norm_backward_rows<double>(
    const double*,
    const double*,
    const double*,
    const double*,
    const double*,
    std::int64_t,
    std::int64_t,
    double*,
    double*,
    double*,
    double*);

} // namespace native
} // namespace at
