// The host kernels of the CPU flash attention (torchlite/_ops/attention.py's
// _scaled_dot_product_flash_attention_for_cpu and its backward): Note [Flash attention on the host with numpy's
// bits].
//
// Note [Flash attention on the host with numpy's bits]
// attention.py's _flash_forward and _flash_backward (numpy forms of upstream's cpu_flash_attention and
// cpu_flash_attention_backward, aten/src/ATen/native/cpu/FlashAttentionKernel.cpp) stay the reference. They make
// (B, H, S, L) temporaries (the transposed scores, their exponentials, the gradient of the scores) and pass over them
// once per numpy call; these kernels do the same steps one head at a time over an (S, L) block that stays in cache,
// and give the same bits, because each step is done the way numpy does it:
//  - the products (k @ q^T, p^T @ v, p @ dO, v @ dO^T, ds^T @ k, ds @ q) call numpy's own matmul inner loop (the
//    "ff->f" / "dd->d" entry of np.matmul's loop table, numpy/_core/src/umath/matmul.c.src) for one head, with the
//    arguments np.matmul's gufunc machinery gives it for that head: the operands' own pointers and strides (a
//    swapaxes view is just its swapped strides; the loop itself picks gemm with or without a transpose flag, gemv,
//    dot or its own loop from them), 0 for the stride of a size-1 core dimension, and a new row-major output (Note
//    [C++ entries of the matrix products], csrc/autograd/python_fast_linear.cpp). numpy 2.2, 2.4 and 2.5 pass the same
//    arguments, and whatever the loop does with them (numpy 2.5 copies an operand BLAS cannot read) it does for both
//    paths alike. The output block here is another allocation than numpy's, which a gemm's arithmetic never reads.
//  - exp and log are numpy's float32 / float64 loops (find_numpy_unary_loop), run over contiguous runs: their SIMD
//    bodies compute each lane alone (a tail is a masked or partial vector of the same code), so an element's bits do
//    not depend on where in the run, or in which run, it sits.
//  - the column reductions over the keys (np.maximum.reduce and np.add.reduce over axis -2 of a C-contiguous
//    (..., S, L) array) run, for L > 1, as numpy's iterator orders them: the query axis innermost and the keys one row
//    after another, so each column is a left-to-right chain, started from -inf (initial=) for the max and from the
//    first row for the sum. For L == 1 numpy sums the keys as one pairwise run (loops_utils.h.src): that case is not
//    taken (attention.py's _host_applies). The max is order-free but for which nan it returns and the sign of a zero
//    maximum; the zero's sign cannot reach a result (exp(+-0) = 1, and log(total) + m for m = +-0 is log(total) >= 0
//    plus +-0), and a nan's sign and payload are not kept (numpy itself does not keep them from one version to the
//    next, Note [Layer norm with numpy's bits]).
//  - the grouped (GQA) key and value gradients are numpy's .sum(axis=2) over the group: again a chain from the
//    first member, for S * D > 1 (S * D == 1 would be one pairwise run, not taken).
//  - everything else is one IEEE operation per element in the array's type (the scale rounded to it as
//    st.dtype.type(scale) rounds it), with no contraction into fused multiply-adds (-ffp-contract=off).
//  - the backward's dsum (np.einsum "...ld,...ld->...l", whose summation order numpy changes between versions) is
//    computed by numpy in attention.py and passed in.
// The kernels take float32 / float64 operands of one dtype, any non-negative strides that are whole elements, no
// mask, every size positive; attention.py checks that and gives everything else to the numpy path. The buffers they
// fill (the output as empty_like(query), logsumexp over a (B, L, H) buffer, the gradients over (B, n, H, D) buffers)
// are made by attention.py, as the numpy path makes them. The Python path runs under _quiet (floating-point errors
// ignored); the flags the loops raise here are cleared at the end, as numpy's ufunc machinery clears them.
#include "autograd/numpy_layouts.h"

#include <pybind11/pybind11.h>

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace torch {
namespace {

namespace py = pybind11;

struct MatmulLoop {
  PyUFuncGenericFunction fn = nullptr;
  void* data = nullptr;
};

// numpy's loops, looked up once under the GIL (numpy's ufuncs live as long as the process).
struct AttentionLoops {
  bool ok = false;
  MatmulLoop matmul[2]; // float32, float64
  autograd::NumpyUnaryLoop exp[2], log[2];
  PyTypeObject* ndarray = nullptr;
};

const AttentionLoops& attention_loops() {
  static AttentionLoops s;
  static bool tried = false;
  if (tried)
    return s;
  tried = true;
  py::module_ numpy = py::module_::import("numpy");
  py::object mm = numpy.attr("matmul");
  auto* uf = reinterpret_cast<PyUFuncObject*>(mm.ptr());
  if (std::strcmp(Py_TYPE(mm.ptr())->tp_name, "numpy.ufunc") == 0 && uf->nin == 2 && uf->nout == 1 &&
      uf->core_enabled) {
    for (int i = 0; i < uf->ntypes; ++i) {
      const char* types = reinterpret_cast<const char*>(uf->types) + 3 * i;
      for (int k = 0; k < 2; ++k) {
        const char want = k == 0 ? NPY_FLOAT : NPY_DOUBLE;
        if (types[0] == want && types[1] == want && types[2] == want) {
          s.matmul[k].fn = uf->functions[i];
          s.matmul[k].data = uf->data ? uf->data[i] : nullptr;
        }
      }
    }
  }
  const char types[2] = {NPY_FLOAT, NPY_DOUBLE};
  for (int k = 0; k < 2; ++k) {
    s.exp[k] = autograd::find_numpy_unary_loop(numpy.attr("exp").ptr(), types[k]);
    s.log[k] = autograd::find_numpy_unary_loop(numpy.attr("log").ptr(), types[k]);
  }
  s.ndarray = reinterpret_cast<PyTypeObject*>(numpy.attr("ndarray").ptr());
  s.ok = s.ndarray != nullptr;
  for (int k = 0; k < 2; ++k)
    s.ok = s.ok && s.matmul[k].fn && s.exp[k].fn && s.log[k].fn;
  return s;
}

// A 4-d array as the kernels read it: data, sizes, strides in elements.
struct View4 {
  char* data = nullptr;
  int64_t size[4] = {0, 0, 0, 0};
  int64_t stride[4] = {0, 0, 0, 0}; // bytes
};

// `obj` as a 4-d (or, with nd == 3, 3-d: size[3] = 1) numpy array of `type`, its data and strides whole
// elements and non-negative; else an error (attention.py only passes such arrays).
View4 view_of(const AttentionLoops& s, PyObject* obj, int nd, int type, const char* what) {
  if (!PyObject_TypeCheck(obj, s.ndarray))
    throw std::invalid_argument(std::string(what) + ": expected a numpy array");
  auto* a = reinterpret_cast<PyArrayObject*>(obj);
  if (PyArray_NDIM(a) != nd || PyArray_TYPE(a) != type)
    throw std::invalid_argument(std::string(what) + ": wrong dimension count or dtype");
  const auto item = static_cast<int64_t>(type == NPY_FLOAT ? sizeof(float) : sizeof(double));
  View4 v;
  v.data = static_cast<char*>(PyArray_DATA(a));
  if (reinterpret_cast<uintptr_t>(v.data) % static_cast<uintptr_t>(item) != 0)
    throw std::invalid_argument(std::string(what) + ": unaligned data");
  for (int i = 0; i < nd; ++i) {
    v.size[i] = PyArray_DIMS(a)[i];
    v.stride[i] = PyArray_STRIDES(a)[i];
    if (v.stride[i] < 0 || v.stride[i] % item != 0)
      throw std::invalid_argument(std::string(what) + ": strides must be non-negative whole elements");
  }
  if (nd == 3) {
    v.size[3] = 1;
    v.stride[3] = item;
  }
  return v;
}

template <typename scalar_t>
struct Kernel {
  static constexpr int64_t item = sizeof(scalar_t);
  const MatmulLoop& mm;
  const autograd::NumpyUnaryLoop& exp_loop;
  const autograd::NumpyUnaryLoop& log_loop;

  // out (m x p, row-major) = a (m x n, strides a_m, a_n in bytes) @ b (n x p, strides b_n, b_p): numpy's matmul loop
  // called as np.matmul calls it for one batch element.
  void matmul(
      const char* a,
      int64_t a_m,
      int64_t a_n,
      const char* b,
      int64_t b_n,
      int64_t b_p,
      scalar_t* out,
      int64_t m,
      int64_t n,
      int64_t p) const {
    const auto step = [](int64_t size, int64_t stride) { return size == 1 ? npy_intp(0) : npy_intp(stride); };
    npy_intp dims[4] = {1, npy_intp(m), npy_intp(n), npy_intp(p)};
    npy_intp steps[9] = {
        0, 0, 0, step(m, a_m), step(n, a_n), step(n, b_n), step(p, b_p), step(m, p * item), step(p, item)};
    char* args[3] = {const_cast<char*>(a), const_cast<char*>(b), reinterpret_cast<char*>(out)};
    mm.fn(args, dims, steps, mm.data);
  }

  // x = exp(x) over n contiguous elements (np.exp(x, out=x)).
  void exp_inplace(scalar_t* x, int64_t n) const {
    char* args[2] = {reinterpret_cast<char*>(x), reinterpret_cast<char*>(x)};
    npy_intp dims[1] = {npy_intp(n)};
    npy_intp steps[2] = {npy_intp(item), npy_intp(item)};
    exp_loop.fn(args, dims, steps, exp_loop.data);
  }

  void log_into(const scalar_t* x, scalar_t* out, int64_t n) const {
    char* args[2] = {reinterpret_cast<char*>(const_cast<scalar_t*>(x)), reinterpret_cast<char*>(out)};
    npy_intp dims[1] = {npy_intp(n)};
    npy_intp steps[2] = {npy_intp(item), npy_intp(item)};
    log_loop.fn(args, dims, steps, log_loop.data);
  }

  static scalar_t& at(const View4& v, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    return *reinterpret_cast<scalar_t*>(
        v.data + i0 * v.stride[0] + i1 * v.stride[1] + i2 * v.stride[2] + i3 * v.stride[3]);
  }

  static const char* head(const View4& v, int64_t b, int64_t h) {
    return v.data + b * v.stride[0] + h * v.stride[1];
  }

  // st (S x L) = k_head @ q_head^T, the causal positions (key after query) -inf (_scores_t without a mask, before
  // its scale: the callers multiply each row by the scale as they pass over it).
  void scores(const View4& q, const View4& k, int64_t b, int64_t h, int64_t kh, bool causal, scalar_t* st) const {
    const int64_t S = k.size[2], L = q.size[2], D = q.size[3];
    matmul(head(k, b, kh), k.stride[2], k.stride[3], head(q, b, h), q.stride[3], q.stride[2], st, S, D, L);
    if (causal) {
      for (int64_t s = 1; s < S; ++s) {
        scalar_t* row = st + s * L;
        for (int64_t l = 0, e = s < L ? s : L; l < e; ++l)
          row[l] = -std::numeric_limits<scalar_t>::infinity();
      }
    }
  }

  // numpy's maximum (nan-propagating: a nan first operand, else a nan second operand, else the larger).
  static scalar_t maximum(scalar_t a, scalar_t b) {
    if (a != a)
      return a;
    if (b != b)
      return b;
    return a > b ? a : b;
  }

  void forward(
      const View4& q,
      const View4& k,
      const View4& v,
      bool causal,
      double scale_d,
      const View4& out,
      const View4& lse) const {
    const int64_t B = q.size[0], H = q.size[1], L = q.size[2], D = q.size[3], S = k.size[2];
    const int64_t groups = H / k.size[1];
    const auto scale = static_cast<scalar_t>(scale_d);
    std::vector<scalar_t> st(static_cast<size_t>(S * L)), o(static_cast<size_t>(L * D)), m(static_cast<size_t>(L)),
        total(static_cast<size_t>(L)), logs(static_cast<size_t>(L));
    const scalar_t neg_inf = -std::numeric_limits<scalar_t>::infinity();
    for (int64_t b = 0; b < B; ++b) {
      for (int64_t h = 0; h < H; ++h) {
        const int64_t kh = h / groups;
        scores(q, k, b, h, kh, causal, st.data());
        // st *= scale; m = np.maximum.reduce(st, axis=-2, initial=-inf), row by row; a column with every key
        // masked: 0
        for (int64_t l = 0; l < L; ++l)
          m[l] = neg_inf;
        for (int64_t s = 0; s < S; ++s) {
          scalar_t* row = st.data() + s * L;
          for (int64_t l = 0; l < L; ++l) {
            const scalar_t x = row[l] * scale;
            row[l] = x;
            m[l] = maximum(m[l], x);
          }
        }
        for (int64_t l = 0; l < L; ++l) {
          if (m[l] == neg_inf)
            m[l] = 0;
        }
        for (int64_t s = 0; s < S; ++s) {
          scalar_t* row = st.data() + s * L;
          for (int64_t l = 0; l < L; ++l)
            row[l] = row[l] - m[l];
        }
        exp_inplace(st.data(), S * L);
        // total = np.add.reduce(st, axis=-2): the first row, then each next one added
        for (int64_t l = 0; l < L; ++l)
          total[l] = st[l];
        for (int64_t s = 1; s < S; ++s) {
          const scalar_t* row = st.data() + s * L;
          for (int64_t l = 0; l < L; ++l)
            total[l] = total[l] + row[l];
        }
        for (int64_t l = 0; l < L; ++l) {
          if (total[l] == 0)
            total[l] = 1;
        }
        // o = st^T @ v_head; out = o / total
        matmul(
            reinterpret_cast<const char*>(st.data()),
            item,
            L * item,
            head(v, b, kh),
            v.stride[2],
            v.stride[3],
            o.data(),
            L,
            S,
            D);
        for (int64_t l = 0; l < L; ++l) {
          for (int64_t d = 0; d < D; ++d)
            at(out, b, h, l, d) = o[l * D + d] / total[l];
        }
        log_into(total.data(), logs.data(), L);
        for (int64_t l = 0; l < L; ++l)
          at(lse, b, h, l, 0) = logs[l] + m[l];
      }
    }
  }

  void backward(
      const View4& g,
      const View4& q,
      const View4& k,
      const View4& v,
      const View4& lse,
      const View4& dsum,
      bool causal,
      double scale_d,
      const View4& gq,
      const View4& gk,
      const View4& gv) const {
    const int64_t B = q.size[0], H = q.size[1], L = q.size[2], D = q.size[3], S = k.size[2];
    const int64_t Hk = k.size[1], groups = H / Hk;
    const auto scale = static_cast<scalar_t>(scale_d);
    const bool zero_scale = scale_d == 0;
    std::vector<scalar_t> p(static_cast<size_t>(S * L)), ds(static_cast<size_t>(S * L)), lq(static_cast<size_t>(L * D)),
        sd(static_cast<size_t>(S * D)), acc_k(static_cast<size_t>(S * D)), acc_v(static_cast<size_t>(S * D)),
        lse_row(static_cast<size_t>(L)), dsum_row(static_cast<size_t>(L));
    for (int64_t b = 0; b < B; ++b) {
      for (int64_t kh = 0; kh < Hk; ++kh) {
        for (int64_t j = 0; j < groups; ++j) {
          const int64_t h = kh * groups + j;
          for (int64_t l = 0; l < L; ++l) {
            lse_row[l] = at(lse, b, h, l, 0);
            dsum_row[l] = at(dsum, b, h, l, 0);
          }
          // p = exp(scale * k q^T - lse), the causal ones 0 (a zero scale: exp(0 - lse)). A causal row s keeps its
          // columns from min(s, L) on: the ones before become 0 whatever exp gives them, so only the kept run of each
          // row goes through exp (an element's exp does not depend on its run: see the Note).
          if (!zero_scale)
            scores(q, k, b, h, kh, false, p.data());
          for (int64_t s = 0; s < S; ++s) {
            scalar_t* row = p.data() + s * L;
            const int64_t first = causal ? (s < L ? s : L) : 0;
            for (int64_t l = 0; l < first; ++l)
              row[l] = 0;
            if (zero_scale) {
              for (int64_t l = first; l < L; ++l)
                row[l] = scalar_t(0) - lse_row[l];
            } else {
              for (int64_t l = first; l < L; ++l)
                row[l] = row[l] * scale - lse_row[l];
            }
            if (causal && first < L)
              exp_inplace(row + first, L - first);
          }
          if (!causal)
            exp_inplace(p.data(), S * L);
          // grad_v's term: p @ dO_head
          matmul(
              reinterpret_cast<const char*>(p.data()),
              L * item,
              item,
              head(g, b, h),
              g.stride[2],
              g.stride[3],
              sd.data(),
              S,
              L,
              D);
          add_member(acc_v, sd, j);
          if (zero_scale) { // grad_query and grad_key are zeros (the numpy path writes them so)
            for (int64_t l = 0; l < L; ++l) {
              for (int64_t d = 0; d < D; ++d)
                at(gq, b, h, l, d) = 0;
            }
            continue;
          }
          // ds = (v_head @ dO_head^T - dsum) * p
          matmul(head(v, b, kh), v.stride[2], v.stride[3], head(g, b, h), g.stride[3], g.stride[2], ds.data(), S, D, L);
          for (int64_t s = 0; s < S; ++s) {
            scalar_t* row = ds.data() + s * L;
            const scalar_t* prow = p.data() + s * L;
            for (int64_t l = 0; l < L; ++l) {
              const scalar_t t = row[l] - dsum_row[l];
              row[l] = t * prow[l];
            }
          }
          // grad_q = scale * ds^T @ k_head
          matmul(
              reinterpret_cast<const char*>(ds.data()),
              item,
              L * item,
              head(k, b, kh),
              k.stride[2],
              k.stride[3],
              lq.data(),
              L,
              S,
              D);
          for (int64_t l = 0; l < L; ++l) {
            for (int64_t d = 0; d < D; ++d)
              at(gq, b, h, l, d) = lq[l * D + d] * scale;
          }
          // grad_k's term: ds @ q_head
          matmul(
              reinterpret_cast<const char*>(ds.data()),
              L * item,
              item,
              head(q, b, h),
              q.stride[2],
              q.stride[3],
              sd.data(),
              S,
              L,
              D);
          add_member(acc_k, sd, j);
        }
        for (int64_t s = 0; s < S; ++s) {
          for (int64_t d = 0; d < D; ++d) {
            at(gv, b, kh, s, d) = acc_v[s * D + d];
            at(gk, b, kh, s, d) = zero_scale ? scalar_t(0) : acc_k[s * D + d] * scale;
          }
        }
      }
    }
  }

  // The group's sum over its members (numpy's .sum(axis=2)): the first member, then each next one added.
  static void add_member(std::vector<scalar_t>& acc, const std::vector<scalar_t>& term, int64_t j) {
    if (j == 0) {
      acc = term;
      return;
    }
    for (size_t i = 0; i < acc.size(); ++i)
      acc[i] = acc[i] + term[i];
  }
};

void check_shapes(const View4& q, const View4& k, const View4& v) {
  const bool ok = q.size[0] == k.size[0] && q.size[0] == v.size[0] && k.size[1] == v.size[1] && k.size[1] > 0 &&
      q.size[1] % k.size[1] == 0 && k.size[2] == v.size[2] && q.size[3] == k.size[3] && q.size[3] == v.size[3];
  if (!ok)
    throw std::invalid_argument("flash attention host kernel: mismatched shapes");
  for (const View4* a : {&q, &k, &v}) {
    for (int64_t d : a->size) {
      if (d <= 0)
        throw std::invalid_argument("flash attention host kernel: empty operand");
    }
  }
}

void check_like(const View4& a, int64_t s0, int64_t s1, int64_t s2, int64_t s3, const char* what) {
  if (a.size[0] != s0 || a.size[1] != s1 || a.size[2] != s2 || a.size[3] != s3)
    throw std::invalid_argument(std::string("flash attention host kernel: ") + what + " has the wrong shape");
}

int type_of(PyObject* q) {
  const AttentionLoops& s = attention_loops();
  if (!PyObject_TypeCheck(q, s.ndarray))
    throw std::invalid_argument("flash attention host kernel: expected numpy arrays");
  const int type = PyArray_TYPE(reinterpret_cast<PyArrayObject*>(q));
  if (type != NPY_FLOAT && type != NPY_DOUBLE)
    throw std::invalid_argument("flash attention host kernel: float32 or float64 only");
  return type;
}

// out, lse (filled) for query, key, value: attention.py's _flash_forward without a mask.
bool flash_forward_host(
    py::handle q_obj,
    py::handle k_obj,
    py::handle v_obj,
    bool causal,
    double scale,
    py::handle out_obj,
    py::handle lse_obj) {
  const AttentionLoops& s = attention_loops();
  if (!s.ok)
    return false;
  const int type = type_of(q_obj.ptr());
  const View4 q = view_of(s, q_obj.ptr(), 4, type, "query"), k = view_of(s, k_obj.ptr(), 4, type, "key"),
              v = view_of(s, v_obj.ptr(), 4, type, "value"), out = view_of(s, out_obj.ptr(), 4, type, "out"),
              lse = view_of(s, lse_obj.ptr(), 3, type, "logsumexp");
  check_shapes(q, k, v);
  check_like(out, q.size[0], q.size[1], q.size[2], q.size[3], "out");
  check_like(lse, q.size[0], q.size[1], q.size[2], 1, "logsumexp");
  {
    py::gil_scoped_release release;
    if (type == NPY_FLOAT)
      Kernel<float>{s.matmul[0], s.exp[0], s.log[0]}.forward(q, k, v, causal, scale, out, lse);
    else
      Kernel<double>{s.matmul[1], s.exp[1], s.log[1]}.forward(q, k, v, causal, scale, out, lse);
    std::feclearexcept(FE_ALL_EXCEPT);
  }
  if (PyErr_Occurred()) // the matmul loop's MemoryError for a scratch buffer
    throw py::error_already_set();
  return true;
}

// grad_query, grad_key, grad_value (filled): attention.py's _flash_backward without a mask, dsum given.
bool flash_backward_host(
    py::handle g_obj,
    py::handle q_obj,
    py::handle k_obj,
    py::handle v_obj,
    py::handle lse_obj,
    py::handle dsum_obj,
    bool causal,
    double scale,
    py::handle gq_obj,
    py::handle gk_obj,
    py::handle gv_obj) {
  const AttentionLoops& s = attention_loops();
  if (!s.ok)
    return false;
  const int type = type_of(q_obj.ptr());
  const View4 q = view_of(s, q_obj.ptr(), 4, type, "query"), k = view_of(s, k_obj.ptr(), 4, type, "key"),
              v = view_of(s, v_obj.ptr(), 4, type, "value"), g = view_of(s, g_obj.ptr(), 4, type, "grad_out"),
              lse = view_of(s, lse_obj.ptr(), 3, type, "logsumexp"), dsum = view_of(s, dsum_obj.ptr(), 3, type, "dsum"),
              gq = view_of(s, gq_obj.ptr(), 4, type, "grad_query"), gk = view_of(s, gk_obj.ptr(), 4, type, "grad_key"),
              gv = view_of(s, gv_obj.ptr(), 4, type, "grad_value");
  check_shapes(q, k, v);
  check_like(g, q.size[0], q.size[1], q.size[2], q.size[3], "grad_out");
  check_like(lse, q.size[0], q.size[1], q.size[2], 1, "logsumexp");
  check_like(dsum, q.size[0], q.size[1], q.size[2], 1, "dsum");
  check_like(gq, q.size[0], q.size[1], q.size[2], q.size[3], "grad_query");
  check_like(gk, k.size[0], k.size[1], k.size[2], k.size[3], "grad_key");
  check_like(gv, v.size[0], v.size[1], v.size[2], v.size[3], "grad_value");
  {
    py::gil_scoped_release release;
    if (type == NPY_FLOAT)
      Kernel<float>{s.matmul[0], s.exp[0], s.log[0]}.backward(g, q, k, v, lse, dsum, causal, scale, gq, gk, gv);
    else
      Kernel<double>{s.matmul[1], s.exp[1], s.log[1]}.backward(g, q, k, v, lse, dsum, causal, scale, gq, gk, gv);
    std::feclearexcept(FE_ALL_EXCEPT);
  }
  if (PyErr_Occurred())
    throw py::error_already_set();
  return true;
}

} // namespace

void initAttentionHostBindings(py::module_& m) {
  m.def(
      "_flash_attention_forward_host",
      &flash_forward_host,
      py::arg("query"),
      py::arg("key"),
      py::arg("value"),
      py::arg("is_causal"),
      py::arg("scale"),
      py::arg("out"),
      py::arg("logsumexp"),
      "attention.py's _flash_forward without a mask for float32 / float64 numpy arrays, into out and logsumexp "
      "(Note [Flash attention on the host with numpy's bits]); False where numpy's loops were not found");
  m.def(
      "_flash_attention_backward_host",
      &flash_backward_host,
      py::arg("grad_out"),
      py::arg("query"),
      py::arg("key"),
      py::arg("value"),
      py::arg("logsumexp"),
      py::arg("dsum"),
      py::arg("is_causal"),
      py::arg("scale"),
      py::arg("grad_query"),
      py::arg("grad_key"),
      py::arg("grad_value"),
      "attention.py's _flash_backward without a mask, dsum given, into the three gradient buffers (Note [Flash "
      "attention on the host with numpy's bits]); False where numpy's loops were not found");
}

} // namespace torch
