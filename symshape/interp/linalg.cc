// Linear algebra kernels: mm, bmm, matmul (every rank case, batch broadcasting), addmm and
// friends (beta / alpha), linear, dot / vdot, mv, outer, _int_mm and einsum (ellipsis,
// diagonals, broadcasting of size-1 subscripts).
//
// Arguments are read at the positions and keyword names of the shape rules in
// symshape/ops/linalg.cc. Products accumulate in double (floats), complex<double> (complex) or
// wrapping 64-bit integers (integers), and are cast to the op's dtype at the end.
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "symshape/interp/kernel_math.h"
#include "symshape/interp/kernels.h"
#include "symshape/ops/validate/linalg.h"

namespace symshape::interp::kernels {

namespace {

using math::dispatch;
using math::load;
using math::product;
using math::sizes_str;
using math::store;

std::string rank_str(const Tensor& t) { return std::to_string(t.rank()) + "-D"; }

void require_rank(const KernelContext& ctx, const Tensor& t, size_t rank, const std::string& what) {
  if (t.rank() != rank) {
    ctx.fail(what + " must be " + std::to_string(rank) + "-D, got " + rank_str(t) + " " +
             sizes_str(t.sizes()));
  }
}

void require_same_dtype(const KernelContext& ctx, const Tensor& a, const Tensor& b,
                        const std::string& op) {
  if (a.dtype() != b.dtype()) {
    ctx.bad_input(op + " expected operands of the same dtype, got " +
                  std::string(to_string(a.dtype())) + " and " + std::string(to_string(b.dtype())));
  }
}

void require_inner(const KernelContext& ctx, const Tensor& a, const Tensor& b, int64_t ka,
                   int64_t kb, const std::string& op) {
  if (ka != kb) {
    ctx.fail(op + ": shapes " + sizes_str(a.sizes()) + " and " + sizes_str(b.sizes()) +
             " cannot be multiplied (" + std::to_string(ka) + " != " + std::to_string(kb) + ")");
  }
}

// out[b, i, j] = sum_k a[b, i, k] * b[b, k, j] over row-major [batch, n, k] and [batch, k, p].
// The loops run i, k, j (rows of b stream through the cache); each out[b, i, j] still sums its
// products in order of k.
template <class T>
std::vector<T> batched_product(const std::vector<T>& a, const std::vector<T>& b, int64_t batch,
                               int64_t n, int64_t k, int64_t p) {
  std::vector<T> out(static_cast<size_t>(batch * n * p), T{});
  for (int64_t z = 0; z < batch; ++z) {
    for (int64_t i = 0; i < n; ++i) {
      T* row = out.data() + (z * n + i) * p;
      for (int64_t q = 0; q < k; ++q) {
        const T x = a[static_cast<size_t>((z * n + i) * k + q)];
        const T* brow = b.data() + (z * k + q) * p;
        for (int64_t j = 0; j < p; ++j) row[j] += x * brow[j];
      }
    }
  }
  return out;
}

// torch.matmul of a and b on every rank pair (both at least 1-D): a 1-D left operand acts as
// [1, k], a 1-D right operand as [k, 1], and that dim is dropped from the result; the batch dims
// broadcast. The result has dtype `out_dtype`.
Tensor matmul_of(const KernelContext& ctx, const Tensor& a, const Tensor& b, DType out_dtype,
                 const std::string& op) {
  if (a.rank() == 0 || b.rank() == 0) {
    ctx.bad_input("both arguments to " + op + " need to be at least 1-D, got " + rank_str(a) +
                  " and " + rank_str(b));
  }
  const int64_t ka = a.sizes().back();
  const int64_t kb = b.rank() == 1 ? b.size(0) : b.size(-2);
  require_inner(ctx, a, b, ka, kb, op);
  Tensor a2 = a.rank() == 1 ? a.as_strided({1, ka}, {0, a.strides()[0]}, a.offset()) : a;
  Tensor b2 = b.rank() == 1 ? b.as_strided({kb, 1}, {b.strides()[0], 0}, b.offset()) : b;
  std::vector<int64_t> batch_a(a2.sizes().begin(), a2.sizes().end() - 2);
  std::vector<int64_t> batch_b(b2.sizes().begin(), b2.sizes().end() - 2);
  auto batch = broadcast_shapes(batch_a, batch_b);
  if (!batch) {
    ctx.fail(op + ": the batch dims of " + sizes_str(a.sizes()) + " and " + sizes_str(b.sizes()) +
             " do not broadcast");
  }
  const int64_t n = a2.size(-2), p = b2.size(-1);
  std::vector<int64_t> full_a = *batch, full_b = *batch;
  full_a.insert(full_a.end(), {n, ka});
  full_b.insert(full_b.end(), {kb, p});
  std::vector<int64_t> out_sizes = *batch;
  if (a.rank() >= 2) out_sizes.push_back(n);
  if (b.rank() >= 2) out_sizes.push_back(p);
  math::checked_numel(ctx, out_sizes, op);
  math::checked_numel(ctx, full_a, op);
  math::checked_numel(ctx, full_b, op);
  const int64_t count = product(*batch);
  if (product({count, n, p, ka}) > math::kMaxWork) {
    ctx.fail(op + ": " + sizes_str(a.sizes()) + " @ " + sizes_str(b.sizes()) +
             " is too much work for the interpreter");
  }
  Tensor ea = expand_to(a2, full_a), eb = expand_to(b2, full_b);
  // Integer operands of a float result (never for matmul itself) compute in the result's kind.
  const DType compute = promote_types(promote_types(a.dtype(), b.dtype()), out_dtype);
  return dispatch(compute, [&](auto zero) {
    using T = decltype(zero);
    return store<T>(out_dtype, out_sizes,
                    batched_product<T>(load<T>(ea), load<T>(eb), count, n, ka, p));
  });
}

// `beta * self + alpha * product`, self broadcast to the product's shape (never growing it).
// beta and alpha are keyword arguments (positions 3 and 4 when given positionally); with beta 0
// self is ignored (its NaNs are not propagated), with alpha 0 the product is.
Tensor add_scaled(const KernelContext& ctx, const Tensor& self, const Tensor& prod,
                  const std::string& op) {
  auto fits = broadcast_shapes(self.sizes(), prod.sizes());
  if (!fits || *fits != prod.sizes()) {
    ctx.fail(op + ": cannot broadcast self " + sizes_str(self.sizes()) + " to the result " +
             sizes_str(prod.sizes()));
  }
  const Scalar beta = ctx.optional_scalar("beta").value_or(Scalar::of_int(1));
  const Scalar alpha = ctx.optional_scalar("alpha").value_or(Scalar::of_int(1));
  const DType dtype = prod.dtype();
  if (math::category(dtype) == math::Category::Int) {
    for (const Scalar* s : {&beta, &alpha}) {
      if (s->kind == Scalar::Kind::Float || s->kind == Scalar::Kind::Complex) {
        ctx.fail(op +
                 ": for integral input tensors, beta and alpha must not be floating point "
                 "numbers");
      }
    }
  }
  const bool use_self = beta.as_complex() != Complex(0, 0);
  const bool use_prod = alpha.as_complex() != Complex(0, 0);
  return dispatch(dtype, [&](auto zero) {
    using T = decltype(zero);
    const T b = math::from_scalar<T>(beta), a = math::from_scalar<T>(alpha);
    std::vector<T> p = load<T>(prod);
    std::vector<T> s = use_self ? load<T>(expand_to(self, prod.sizes())) : std::vector<T>{};
    std::vector<T> out(p.size(), T{});
    for (size_t i = 0; i < p.size(); ++i) {
      if (use_self) out[i] += b * s[i];
      if (use_prod) out[i] += a * p[i];
    }
    return store<T>(dtype, prod.sizes(), out);
  });
}

// ---- the products ----

Tensor mm_of(const KernelContext& ctx, const Tensor& a, const Tensor& b, const std::string& op) {
  require_rank(ctx, a, 2, op + ": self");
  require_rank(ctx, b, 2, op + ": mat2");
  require_same_dtype(ctx, a, b, op);
  return matmul_of(ctx, a, b, a.dtype(), op);
}

Tensor bmm_of(const KernelContext& ctx, const Tensor& a, const Tensor& b, const std::string& op) {
  require_rank(ctx, a, 3, op + ": batch1");
  require_rank(ctx, b, 3, op + ": batch2");
  require_same_dtype(ctx, a, b, op);
  if (a.size(0) != b.size(0)) {
    ctx.fail(op + ": batch1 " + sizes_str(a.sizes()) + " and batch2 " + sizes_str(b.sizes()) +
             " must have the same number of batches");
  }
  return matmul_of(ctx, a, b, a.dtype(), op);
}

Tensor mv_of(const KernelContext& ctx, const Tensor& a, const Tensor& v, const std::string& op) {
  require_rank(ctx, a, 2, op + ": self");
  require_rank(ctx, v, 1, op + ": vec");
  require_same_dtype(ctx, a, v, op);
  return matmul_of(ctx, a, v, a.dtype(), op);
}

// outer (self [n], vec2 [m]) -> [n, m]: PyTorch computes self[:, None] * vec2, so the dtypes
// promote.
Tensor outer_of(const KernelContext& ctx, const Tensor& a, const Tensor& b, DType dtype,
                const std::string& op) {
  require_rank(ctx, a, 1, op + ": self");
  require_rank(ctx, b, 1, op + ": vec2");
  Tensor col = a.as_strided({a.size(0), 1}, {a.strides()[0], 0}, a.offset());
  Tensor row = b.as_strided({1, b.size(0)}, {0, b.strides()[0]}, b.offset());
  return matmul_of(ctx, col, row, dtype, op);
}

using Product = Tensor (*)(const KernelContext&, const Tensor&, const Tensor&, const std::string&);

Kernel product_kernel(Product f, std::string first, std::string second, std::string op) {
  return [f, first, second, op](KernelContext& ctx) {
    return RValue::of(f(ctx, ctx.tensor(first), ctx.tensor(second), op));
  };
}

Kernel add_product_kernel(Product f, std::string first, std::string second, std::string op) {
  return [f, first, second, op](KernelContext& ctx) {
    Tensor self = ctx.tensor("self");
    Tensor prod = f(ctx, ctx.tensor(first), ctx.tensor(second), op);
    return RValue::of(add_scaled(ctx, self, prod, op));
  };
}

RValue dot(KernelContext& ctx, bool conjugate_first) {
  const std::string op = conjugate_first ? "vdot" : "dot";
  Tensor a = ctx.tensor("self");
  Tensor b = ctx.tensor(ctx.declares("tensor") ? "tensor" : "other");  // dot, vdot
  if (a.rank() != 1 || b.rank() != 1) {
    ctx.fail(op + ": 1-D tensors expected, got " + rank_str(a) + " and " + rank_str(b));
  }
  require_same_dtype(ctx, a, b, op);
  if (a.size(0) != b.size(0)) {
    ctx.fail(op + ": inconsistent tensor sizes " + sizes_str(a.sizes()) + " and " +
             sizes_str(b.sizes()));
  }
  return dispatch(a.dtype(), [&](auto zero) {
    using T = decltype(zero);
    std::vector<T> x = load<T>(a), y = load<T>(b);
    T acc{};
    for (size_t i = 0; i < x.size(); ++i) {
      T left = x[i];
      if constexpr (std::is_same_v<T, Complex>) {
        if (conjugate_first) left = std::conj(left);
      }
      acc += left * y[i];
    }
    return RValue::of(store<T>(a.dtype(), {}, {acc}));
  });
}

// The tanh approximation of GELU that _addmm_activation uses.
double gelu_tanh(double x) {
  const double k = std::sqrt(2.0 / 3.14159265358979323846);
  return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
}

// _addmm_activation (self, mat1, mat2, *, beta, alpha, use_gelu): relu or tanh-GELU of addmm.
RValue addmm_activation(KernelContext& ctx) {
  const std::string op = "_addmm_activation";
  Tensor self = ctx.tensor("self");
  Tensor out = add_scaled(ctx, self, mm_of(ctx, ctx.tensor("mat1"), ctx.tensor("mat2"), op), op);
  const bool gelu = ctx.boolean("use_gelu", false);
  const math::Category c = math::category(out.dtype());
  if (c == math::Category::Complex) ctx.bad_input(op + " does not support complex inputs");
  if (gelu && c != math::Category::Float) ctx.fail(op + ": GELU needs a floating dtype");
  for (int64_t i = 0; i < out.numel(); ++i) {
    Scalar v = out.flat(i);
    if (c == math::Category::Int) {
      if (v.as_int() < 0) out.set_flat(i, Scalar::of_int(0));
    } else {
      double x = v.as_double();
      out.set_flat(i, Scalar::of_float(gelu ? gelu_tanh(x) : (x < 0 ? 0.0 : x)));
    }
  }
  return RValue::of(out);
}

// addbmm (self, batch1, batch2, *, beta, alpha): the sum over the batch of the products.
RValue addbmm(KernelContext& ctx) {
  const std::string op = "addbmm";
  Tensor self = ctx.tensor("self");
  Tensor prod = bmm_of(ctx, ctx.tensor("batch1"), ctx.tensor("batch2"), op);
  const int64_t batch = prod.size(0), n = prod.size(1), p = prod.size(2);
  Tensor summed = dispatch(prod.dtype(), [&](auto zero) {
    using T = decltype(zero);
    std::vector<T> v = load<T>(prod);
    std::vector<T> out(static_cast<size_t>(n * p), T{});
    for (int64_t z = 0; z < batch; ++z) {
      for (int64_t i = 0; i < n * p; ++i) {
        out[static_cast<size_t>(i)] += v[static_cast<size_t>(z * n * p + i)];
      }
    }
    return store<T>(prod.dtype(), {n, p}, out);
  });
  return RValue::of(add_scaled(ctx, self, summed, op));
}

// linear (input [..., in], weight [out, in] or [in], bias): input @ weight.T + bias.
RValue linear(KernelContext& ctx) {
  Tensor input = ctx.tensor("input");
  Tensor weight = ctx.tensor("weight");
  if (weight.rank() == 0 || weight.rank() > 2) {
    ctx.bad_input("linear: weight must be 1-D or 2-D, got " + sizes_str(weight.sizes()));
  }
  require_same_dtype(ctx, input, weight, "linear");
  Tensor transposed = weight;
  if (weight.rank() == 2) {
    transposed = weight.as_strided({weight.size(1), weight.size(0)},
                                   {weight.strides()[1], weight.strides()[0]}, weight.offset());
  }
  Tensor out = matmul_of(ctx, input, transposed, input.dtype(), "linear");
  auto bias = ctx.optional_tensor("bias");
  if (!bias) return RValue::of(out);
  require_same_dtype(ctx, input, *bias, "linear");
  auto fits = broadcast_shapes(bias->sizes(), out.sizes());
  if (!fits || *fits != out.sizes()) {
    ctx.fail("linear: cannot broadcast bias " + sizes_str(bias->sizes()) + " to the result " +
             sizes_str(out.sizes()));
  }
  return RValue::of(dispatch(out.dtype(), [&](auto zero) {
    using T = decltype(zero);
    std::vector<T> v = load<T>(out), b = load<T>(expand_to(*bias, out.sizes()));
    for (size_t i = 0; i < v.size(); ++i) v[i] += b[i];
    return store<T>(out.dtype(), out.sizes(), v);
  }));
}

// ---- einsum ---------------------------------------------------------------------------------

using validate::kEllipsis;
using validate::Subscripts;

// Subscript ids: a letter is its char code (< 128); the ellipsis's j-th dim (right-aligned
// over every operand's ellipsis) is 128 + j.
constexpr int kEllipsisId = 128;

RValue einsum(KernelContext& ctx) {
  std::vector<Tensor> ops = ctx.tensor_list("tensors");
  std::vector<size_t> ranks;
  for (const Tensor& t : ops) ranks.push_back(t.rank());
  const validate::Equation eq = validate::einsum_equation(ctx, ranks);
  const std::string& equation = eq.text;
  const std::vector<Subscripts>& terms = eq.terms;

  // The ellipsis covers as many dims as the widest operand's.
  size_t ellipsis_rank = 0;
  DType dtype = ops[0].dtype();
  for (size_t o = 0; o < ops.size(); ++o) {
    const size_t letters = terms[o].letter_count();
    const size_t rank = ops[o].rank();
    if (terms[o].has_ellipsis) ellipsis_rank = std::max(ellipsis_rank, rank - letters);
    dtype = promote_types(dtype, ops[o].dtype());
  }

  // Each operand's dims as subscript ids; each id's size (size 1 broadcasts across operands).
  std::vector<std::vector<int>> dim_ids(ops.size());
  std::map<int, int64_t> size_of;
  std::map<int, size_t> count;
  for (size_t o = 0; o < ops.size(); ++o) {
    const Tensor& t = ops[o];
    const size_t covered = t.rank() - terms[o].letter_count();
    for (char label : terms[o].labels) {
      if (label == kEllipsis) {
        for (size_t j = 0; j < covered; ++j) {
          dim_ids[o].push_back(kEllipsisId + static_cast<int>(ellipsis_rank - covered + j));
        }
      } else {
        dim_ids[o].push_back(label);
        ++count[label];
      }
    }
    std::map<int, int64_t> here;
    for (size_t d = 0; d < dim_ids[o].size(); ++d) {
      const int id = dim_ids[o][d];
      const int64_t size = t.size(static_cast<int64_t>(d));
      auto seen = here.find(id);
      if (seen != here.end()) {
        if (seen->second != size) {
          ctx.fail(std::string("einsum(): subscript ") + static_cast<char>(id) +
                   " is repeated for operand " + std::to_string(o) +
                   " but the sizes don't match, " + std::to_string(seen->second) +
                   " != " + std::to_string(size));
        }
        continue;
      }
      here.emplace(id, size);
      auto known = size_of.find(id);
      if (known == size_of.end() || known->second == 1) {
        size_of[id] = size;
      } else if (size != 1 && size != known->second) {
        ctx.fail(
            "einsum(): operands do not broadcast with remapped shapes: " + sizes_str(t.sizes()) +
            " (operand " + std::to_string(o) + ") at dim " + std::to_string(d) + " has size " +
            std::to_string(size) + ", expected " + std::to_string(known->second));
      }
    }
  }

  std::vector<int> out_ids;
  auto add_ellipsis = [&] {
    for (size_t j = 0; j < ellipsis_rank; ++j) {
      const int id = kEllipsisId + static_cast<int>(j);
      if (size_of.count(id)) out_ids.push_back(id);
    }
  };
  if (!eq.output) {
    add_ellipsis();
    for (const auto& [label, n] : count) {
      if (n == 1) out_ids.push_back(label);
    }
  } else {
    for (char label : eq.output->labels) {
      if (label == kEllipsis) {
        add_ellipsis();
        continue;
      }
      out_ids.push_back(label);
    }
  }

  // Every id: the output's first (row-major), then the summed ones.
  std::vector<int> ids = out_ids;
  for (const auto& [id, size] : size_of) {
    if (std::find(out_ids.begin(), out_ids.end(), id) == out_ids.end()) ids.push_back(id);
  }
  std::map<int, size_t> slot;
  for (size_t k = 0; k < ids.size(); ++k) slot[ids[k]] = k;
  std::vector<int64_t> sizes, out_sizes;
  for (int id : ids) sizes.push_back(size_of.at(id));
  for (int id : out_ids) out_sizes.push_back(size_of.at(id));
  const int64_t out_count = math::checked_numel(ctx, out_sizes, "einsum()");
  const int64_t total = product(sizes);
  if (total > math::kMaxWork) {
    ctx.bad_input("einsum(): the equation '" + equation + "' over sizes " + sizes_str(sizes) +
                  " is too much work for the interpreter");
  }
  const int64_t summed = out_count == 0 ? 0 : total / out_count;

  // Each operand dim: the slot whose value indexes it (or none, for a stretched size 1).
  struct DimRef {
    size_t slot;
    int64_t stride;
    bool stretched;
  };
  std::vector<std::vector<DimRef>> refs(ops.size());
  for (size_t o = 0; o < ops.size(); ++o) {
    std::vector<int64_t> strides = contiguous_strides(ops[o].sizes());
    for (size_t d = 0; d < dim_ids[o].size(); ++d) {
      refs[o].push_back({slot.at(dim_ids[o][d]), strides[d], ops[o].size(int64_t(d)) == 1});
    }
  }

  return dispatch(dtype, [&](auto zero) {
    using T = decltype(zero);
    std::vector<std::vector<T>> values;
    for (const Tensor& t : ops) values.push_back(load<T>(t));
    std::vector<T> out(static_cast<size_t>(out_count), T{});
    std::vector<int64_t> index;
    for (int64_t f = 0; f < total; ++f) {
      math::unflatten(f, sizes, index);
      T term = T{1};
      for (size_t o = 0; o < ops.size(); ++o) {
        int64_t pos = 0;
        for (const DimRef& r : refs[o]) {
          if (!r.stretched) pos += index[r.slot] * r.stride;
        }
        term *= values[o][static_cast<size_t>(pos)];
      }
      out[static_cast<size_t>(f / summed)] += term;
    }
    return RValue::of(store<T>(dtype, out_sizes, out));
  });
}

}  // namespace

void register_linalg(KernelRegistry& r) {
  r.add("aten.mm", product_kernel(mm_of, "self", "mat2", "mm"));
  r.add("aten.bmm", product_kernel(bmm_of, "self", "mat2", "bmm"));
  r.add("aten.matmul", [](KernelContext& ctx) {
    Tensor a = ctx.tensor("self");
    Tensor b = ctx.tensor("other");
    require_same_dtype(ctx, a, b, "matmul");
    return RValue::of(matmul_of(ctx, a, b, a.dtype(), "matmul"));
  });
  r.add("aten.mv", product_kernel(mv_of, "self", "vec", "mv"));
  for (const char* name : {"outer", "ger"}) {
    const std::string op = name;
    r.add("aten." + op, [op](KernelContext& ctx) {
      Tensor a = ctx.tensor("self");
      Tensor b = ctx.tensor("vec2");
      return RValue::of(outer_of(ctx, a, b, promote_types(a.dtype(), b.dtype()), op));
    });
  }
  r.add("aten.dot", [](KernelContext& ctx) { return dot(ctx, false); });
  r.add("aten.vdot", [](KernelContext& ctx) { return dot(ctx, true); });
  // _int_mm: int8 x int8 accumulates in int32.
  r.add("aten._int_mm", [](KernelContext& ctx) {
    Tensor a = ctx.tensor("self");
    Tensor b = ctx.tensor("mat2");
    require_rank(ctx, a, 2, "_int_mm: self");
    require_rank(ctx, b, 2, "_int_mm: mat2");
    if (math::category(a.dtype()) != math::Category::Int || a.dtype() == DType::Bool ||
        math::category(b.dtype()) != math::Category::Int || b.dtype() == DType::Bool) {
      ctx.fail("_int_mm: expected integer operands, got " + std::string(to_string(a.dtype())) +
               " and " + std::string(to_string(b.dtype())));
    }
    return RValue::of(matmul_of(ctx, a, b, DType::Int32, "_int_mm"));
  });

  r.add("aten.addmm", add_product_kernel(mm_of, "mat1", "mat2", "addmm"));
  r.add("aten._addmm_activation", addmm_activation);
  r.add("aten.baddbmm", add_product_kernel(bmm_of, "batch1", "batch2", "baddbmm"));
  r.add("aten.addmv", add_product_kernel(mv_of, "mat", "vec", "addmv"));
  r.add("aten.addr", [](KernelContext& ctx) {
    Tensor self = ctx.tensor("self");
    Tensor a = ctx.tensor("vec1");
    Tensor b = ctx.tensor("vec2");
    return RValue::of(add_scaled(ctx, self, outer_of(ctx, a, b, a.dtype(), "addr"), "addr"));
  });
  r.add("aten.addbmm", addbmm);
  r.add("aten.linear", linear);
  r.add("aten.einsum", einsum);
}

}  // namespace symshape::interp::kernels
