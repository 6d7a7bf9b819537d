// Note [Batch norm gradients with numpy's bits] (BatchNormKernel.h).
#include "aten/native/cpu/BatchNormKernel.h"

#include "aten/native/cpu/NumpySum.h"

#include <cmath>
#include <vector>

namespace at {
namespace native {
namespace {

// Normalization.py's _rows_total of the partials p[k * c + ch], k < n.
template <typename T>
T rows_total(const T* p, std::int64_t n, std::int64_t c, std::int64_t ch) {
  T total = p[ch];
  for (std::int64_t k = 1; k < n; ++k)
    total = total + p[k * c + ch];
  return total;
}

} // namespace

template <typename T>
bool batch_norm_train_grads(
    const T* g,
    const T* x,
    const T* mean,
    const T* invstd,
    const T* weight,
    std::int64_t n,
    std::int64_t c,
    std::int64_t s,
    T* grad_input,
    T* grad_weight,
    T* grad_bias,
    T* partials) {
  const std::int64_t nc = n * c;
  T* p_gx = partials;
  T* p_g = partials + nc;
  T* p_gw = partials + 2 * nc;
  T* p_gb = partials + 3 * nc;
  for (std::int64_t k = 0; k < n; ++k) {
    for (std::int64_t ch = 0; ch < c; ++ch) {
      const std::int64_t row = k * c + ch;
      const T* xr = x + row * s;
      const T* gr = g + row * s;
      const T m = mean[ch];
      const T r = invstd[ch];
      const auto xhat = [xr, m, r](std::int64_t i) { return (xr[i] - m) * r; };
      if (grad_input != nullptr) {
        if (weight != nullptr) {
          const T w = weight[ch];
          p_gx[row] = numpy_row_sum<T>([&](std::int64_t i) { return (gr[i] * w) * xhat(i); }, s);
          p_g[row] = numpy_row_sum<T>([gr, w](std::int64_t i) { return gr[i] * w; }, s);
        } else {
          p_gx[row] = numpy_row_sum<T>([&](std::int64_t i) { return gr[i] * xhat(i); }, s);
          p_g[row] = numpy_row_sum<T>([gr](std::int64_t i) { return gr[i]; }, s);
        }
      }
      if (grad_weight != nullptr)
        p_gw[row] = numpy_row_sum<T>([&](std::int64_t i) { return gr[i] * xhat(i); }, s);
      if (grad_bias != nullptr)
        p_gb[row] = numpy_row_sum<T>([gr](std::int64_t i) { return gr[i]; }, s);
    }
  }
  bool finite = true;
  for (std::int64_t ch = 0; ch < c; ++ch) {
    if (grad_weight != nullptr) {
      grad_weight[ch] = rows_total(p_gw, n, c, ch);
      finite = finite && std::isfinite(grad_weight[ch]);
    }
    if (grad_bias != nullptr) {
      grad_bias[ch] = rows_total(p_gb, n, c, ch);
      finite = finite && std::isfinite(grad_bias[ch]);
    }
  }
  if (grad_input == nullptr || !finite)
    return finite;
  std::vector<T> means_gx(c), means_g(c);
  for (std::int64_t ch = 0; ch < c; ++ch) {
    means_gx[ch] = numpy_mean_of_sum(rows_total(p_gx, n, c, ch), n * s);
    means_g[ch] = numpy_mean_of_sum(rows_total(p_g, n, c, ch), n * s);
  }
  for (std::int64_t k = 0; k < n; ++k) {
    for (std::int64_t ch = 0; ch < c; ++ch) {
      const std::int64_t row = k * c + ch;
      const T* xr = x + row * s;
      const T* gr = g + row * s;
      T* out = grad_input + row * s;
      const T m = mean[ch];
      const T r = invstd[ch];
      const T mean_gx = means_gx[ch];
      const T mean_g = means_g[ch];
      const bool weighted = weight != nullptr;
      const T w = weighted ? weight[ch] : T(1);
      bool row_finite = true;
      for (std::int64_t i = 0; i < s; ++i) {
        const T gw = weighted ? gr[i] * w : gr[i];
        const T xh = (xr[i] - m) * r;
        T o = gw - mean_g;
        const T wk = xh * mean_gx;
        o = o - wk;
        o = r * o;
        out[i] = o;
        row_finite = row_finite && std::isfinite(o);
      }
      if (!row_finite)
        return false;
    }
  }
  return true;
}

template <typename T>
bool batch_norm_train_stats(const T* x, std::int64_t n, std::int64_t c, std::int64_t s, T* mean, T* var) {
  std::vector<T> partials(static_cast<std::size_t>(n * c));
  for (std::int64_t row = 0; row < n * c; ++row) {
    const T* xr = x + row * s;
    partials[row] = numpy_row_sum<T>([xr](std::int64_t i) { return xr[i]; }, s);
  }
  bool finite = true;
  for (std::int64_t ch = 0; ch < c; ++ch) {
    mean[ch] = numpy_mean_of_sum(rows_total(partials.data(), n, c, ch), n * s);
    finite = finite && std::isfinite(mean[ch]);
  }
  if (!finite)
    return false;
  for (std::int64_t row = 0; row < n * c; ++row) {
    const T* xr = x + row * s;
    const T m = mean[row % c];
    partials[row] = numpy_row_sum<T>(
        [xr, m](std::int64_t i) {
          const T xc = xr[i] - m;
          return xc * xc;
        },
        s);
  }
  for (std::int64_t ch = 0; ch < c; ++ch) {
    var[ch] = numpy_mean_of_sum(rows_total(partials.data(), n, c, ch), n * s);
    finite = finite && std::isfinite(var[ch]);
  }
  return finite;
}

template <typename T>
bool batch_norm_apply(
    const T* x,
    const T* mean,
    const T* invstd,
    const T* weight,
    const T* bias,
    std::int64_t n,
    std::int64_t c,
    std::int64_t s,
    T* y) {
  for (std::int64_t row = 0; row < n * c; ++row) {
    const std::int64_t ch = row % c;
    const T* xr = x + row * s;
    T* yr = y + row * s;
    const T m = mean[ch];
    const T r = invstd[ch];
    bool finite = true;
    if (weight != nullptr && bias != nullptr) {
      const T w = weight[ch];
      const T b = bias[ch];
      for (std::int64_t i = 0; i < s; ++i) {
        T v = xr[i] - m;
        v = v * r;
        v = v * w;
        v = v + b;
        yr[i] = v;
        finite = finite && std::isfinite(v);
      }
    } else {
      for (std::int64_t i = 0; i < s; ++i) {
        T v = xr[i] - m;
        v = v * r;
        if (weight != nullptr)
          v = v * weight[ch];
        if (bias != nullptr)
          v = v + bias[ch];
        yr[i] = v;
        finite = finite && std::isfinite(v);
      }
    }
    if (!finite)
      return false;
  }
  return true;
}

template bool batch_norm_train_stats<float>(const float*, std::int64_t, std::int64_t, std::int64_t, float*, float*);
template bool batch_norm_train_stats<double>(const double*, std::int64_t, std::int64_t, std::int64_t, double*, double*);
template bool batch_norm_apply<float>(
    const float*,
    const float*,
    const float*,
    const float*,
    const float*,
    std::int64_t,
    std::int64_t,
    std::int64_t,
    float*);
template bool batch_norm_apply<double>(
    const double*,
    const double*,
    const double*,
    const double*,
    const double*,
    std::int64_t,
    std::int64_t,
    std::int64_t,
    double*);
template bool batch_norm_train_grads<float>(
    const float*,
    const float*,
    const float*,
    const float*,
    const float*,
    std::int64_t,
    std::int64_t,
    std::int64_t,
    float*,
    float*,
    float*,
    float*);
template bool batch_norm_train_grads<double>(
    const double*,
    const double*,
    const double*,
    const double*,
    const double*,
    std::int64_t,
    std::int64_t,
    std::int64_t,
    double*,
    double*,
    double*,
    double*);

} // namespace native
} // namespace at
