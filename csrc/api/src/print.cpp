// std::cout << tensor, as libtorch prints it (aten/src/ATen/core/Formatting.cpp:
// one format, chosen from the magnitudes of all the values, then the values
// row by row and the footer "[ CPUFloatType{2,2} ]").
#include "aten/Functions.h"
#include "torch/types.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <ostream>
#include <string>
#include <vector>

namespace at {
namespace {

struct Format {
  double scale = 1;
  int64_t width = 11;
  enum { kDefault, kFixed, kScientific } style = kDefault;
};

void apply(std::ostream& out, const Format& f) {
  if (f.style == Format::kFixed)
    out << std::fixed << std::setprecision(4);
  else if (f.style == Format::kScientific)
    out << std::scientific << std::setprecision(4);
  else
    out << std::defaultfloat;
}

// Formatting.cpp's __printFormat.
Format choose_format(const std::vector<double>& v) {
  Format f;
  if (v.empty())
    return f;
  bool int_mode = true;
  for (double z : v) {
    if (std::isfinite(z) && z != std::ceil(z)) {
      int_mode = false;
      break;
    }
  }
  size_t offset = 0;
  while (offset < v.size() && !std::isfinite(v[offset]))
    ++offset;
  double exp_min = 1, exp_max = 1;
  if (offset != v.size()) {
    exp_min = exp_max = std::fabs(v[offset]);
    for (size_t i = offset; i < v.size(); ++i) {
      const double z = std::fabs(v[i]);
      if (std::isfinite(z)) {
        exp_min = std::min(exp_min, z);
        exp_max = std::max(exp_max, z);
      }
    }
    exp_min = exp_min != 0 ? std::floor(std::log10(exp_min)) + 1 : 1;
    exp_max = exp_max != 0 ? std::floor(std::log10(exp_max)) + 1 : 1;
  }
  if (int_mode) {
    if (exp_max > 9) {
      f.width = 11;
      f.style = Format::kScientific;
    } else {
      f.width = static_cast<int64_t>(exp_max) + 1;
      f.style = Format::kDefault;
    }
  } else if (exp_max - exp_min > 4) {
    f.width = 11;
    if (std::fabs(exp_max) > 99 || std::fabs(exp_min) > 99)
      f.width += 1;
    f.style = Format::kScientific;
  } else if (exp_max > 5 || exp_max < 0) {
    f.width = 7;
    f.scale = std::pow(10, exp_max - 1);
    f.style = Format::kFixed;
  } else {
    f.width = exp_max == 0 ? 7 : static_cast<int64_t>(exp_max) + 6;
    f.style = Format::kFixed;
  }
  return f;
}

void print_scale(std::ostream& out, const Format& f, const std::string& indent) {
  if (f.scale != 1) {
    std::ios saved(nullptr);
    saved.copyfmt(out);
    out << indent << std::defaultfloat << f.scale << " *\n";
    out.copyfmt(saved);
  }
}

// Formatting.cpp's __printMatrix: columns in chunks that fit 80 characters.
void print_matrix(
    std::ostream& out,
    const double* data,
    int64_t rows,
    int64_t cols,
    const Format& f,
    const std::string& indent) {
  print_scale(out, f, indent);
  const int64_t per_line = std::max<int64_t>(1, (80 - static_cast<int64_t>(indent.size())) / (f.width + 1));
  for (int64_t first = 0; first < cols; first += per_line) {
    const int64_t last = std::min(first + per_line, cols) - 1;
    if (per_line < cols) {
      if (first != 0)
        out << "\n";
      out << "Columns " << first + 1;
      if (first != last)
        out << " to " << last + 1;
      out << "\n";
    }
    for (int64_t r = 0; r < rows; ++r) {
      out << indent;
      for (int64_t c = first; c <= last; ++c) {
        out << std::setw(static_cast<int>(f.width)) << data[r * cols + c] / f.scale;
        if (c == last) {
          out << "\n";
        } else {
          out << " ";
        }
      }
    }
  }
}

std::string type_name(const Tensor& t) {
  std::string device = t.device().is_cuda() ? "CUDA" : "CPU";
  return device + toString(t.dtype()) + "Type";
}

} // namespace

std::ostream& operator<<(std::ostream& out, const Tensor& t) {
  std::ios saved(nullptr);
  saved.copyfmt(out);
  if (!t.defined()) {
    out << "[ Tensor (undefined) ]";
    return out;
  }
  const std::vector<double> v = t.to_vector();
  const auto& sizes = t.sizes();
  if (t.dim() == 0) {
    out << std::defaultfloat << v[0] << "\n";
    out << "[ " << type_name(t) << "{}";
  } else if (t.dim() == 1) {
    if (!v.empty()) {
      const Format f = choose_format(v);
      apply(out, f);
      print_scale(out, f, "");
      for (double x : v)
        out << std::setw(static_cast<int>(f.width)) << x / f.scale << "\n";
    }
    out << "[ " << type_name(t) << "{" << sizes[0] << "}";
  } else if (t.dim() == 2) {
    if (!v.empty()) {
      const Format f = choose_format(v);
      apply(out, f);
      print_matrix(out, v.data(), sizes[0], sizes[1], f, "");
    }
    out << "[ " << type_name(t) << "{" << sizes[0] << "," << sizes[1] << "}";
  } else {
    // Formatting.cpp's __printTensor: "(i,j,.,.) = " then each matrix.
    if (!v.empty()) {
      const Format f = choose_format(v);
      apply(out, f);
      const int64_t rows = sizes[sizes.size() - 2], cols = sizes.back();
      const int64_t n_mats = t.numel() / std::max<int64_t>(1, rows * cols);
      for (int64_t m = 0; m < n_mats; ++m) {
        if (m != 0)
          out << "\n";
        out << "(";
        int64_t rest = m;
        std::vector<int64_t> idx(sizes.size() - 2);
        for (int64_t d = static_cast<int64_t>(idx.size()) - 1; d >= 0; --d) {
          idx[static_cast<size_t>(d)] = rest % sizes[static_cast<size_t>(d)];
          rest /= sizes[static_cast<size_t>(d)];
        }
        for (auto i : idx)
          out << i + 1 << ",";
        out << ".,.) = \n";
        print_matrix(out, v.data() + m * rows * cols, rows, cols, f, " ");
      }
    }
    out << "[ " << type_name(t) << "{";
    for (size_t i = 0; i < sizes.size(); ++i)
      out << (i ? "," : "") << sizes[i];
    out << "}";
  }
  out << " ]";
  out.copyfmt(saved);
  return out;
}

} // namespace at
