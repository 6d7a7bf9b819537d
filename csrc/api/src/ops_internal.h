#pragma once
// The front end's ops (csrc/api/src/ops.cpp), called by the Tensor methods,
// operators and torch:: functions (methods.cpp).
#include "aten/Tensor.h"

#include <cstdint>
#include <vector>

namespace torch {
namespace frontend {

at::Tensor sum_to(const at::Tensor& g, const std::vector<int64_t>& shape);
at::Tensor add(const at::Tensor& a, const at::Tensor& b);
at::Tensor sub(const at::Tensor& a, const at::Tensor& b);
at::Tensor mul(const at::Tensor& a, const at::Tensor& b);
at::Tensor div(const at::Tensor& a, const at::Tensor& b);
at::Tensor add_scalar(const at::Tensor& a, double s);
at::Tensor sub_scalar(const at::Tensor& a, double s);
at::Tensor rsub_scalar(const at::Tensor& a, double s);
at::Tensor mul_scalar(const at::Tensor& a, double s);
at::Tensor div_scalar(const at::Tensor& a, double s);
at::Tensor neg(const at::Tensor& a);
at::Tensor reciprocal(const at::Tensor& a);
at::Tensor tanh(const at::Tensor& a);
at::Tensor exp(const at::Tensor& a);
at::Tensor pow(const at::Tensor& a, double e);
at::Tensor sum(const at::Tensor& a);
at::Tensor sum_dim(const at::Tensor& a, int64_t dim, bool keepdim);
at::Tensor mean(const at::Tensor& a);
at::Tensor mean_dim(const at::Tensor& a, int64_t dim, bool keepdim);
at::Tensor mm(const at::Tensor& a, const at::Tensor& b);
at::Tensor mv(const at::Tensor& a, const at::Tensor& v);
at::Tensor dot(const at::Tensor& a, const at::Tensor& b);
at::Tensor matmul(const at::Tensor& a, const at::Tensor& b);
at::Tensor addmm(const at::Tensor& self, const at::Tensor& m1, const at::Tensor& m2);
at::Tensor norm(const at::Tensor& a);
at::Tensor norm_dim(const at::Tensor& a, double p, int64_t dim, bool keepdim);
at::Tensor mse_loss(const at::Tensor& input, const at::Tensor& target);
at::Tensor clone(const at::Tensor& a);
at::Tensor t(const at::Tensor& a);
at::Tensor unsqueeze(const at::Tensor& a, int64_t dim);
at::Tensor squeeze(const at::Tensor& a, int64_t dim);
at::Tensor expand(const at::Tensor& a, const std::vector<int64_t>& sizes);
at::Tensor view(const at::Tensor& a, const std::vector<int64_t>& shape);
at::Tensor reshape(const at::Tensor& a, const std::vector<int64_t>& shape);
at::Tensor& inplace(at::Tensor& self, const at::Tensor& result_of_op, const char* op);
at::Tensor eq(const at::Tensor& a, const at::Tensor& b);
at::Tensor all(const at::Tensor& a);
// Fills contiguous t in place from the default CPU generator, as torch's uniform_(low, high).
void uniform_fill(at::Tensor& t, double low, double high);

} // namespace frontend
} // namespace torch
