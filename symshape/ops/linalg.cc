// Linear algebra: mm, bmm, matmul (every rank case), addmm and friends, linear, dot, mv, outer,
// and einsum.
#include <map>
#include <string>
#include <vector>

#include "symshape/ops/families.h"
#include "symshape/ops/validate/linalg.h"

namespace symshape::ops {

namespace {

std::string rank_str(const TensorMeta& t) { return std::to_string(t.rank()) + "-D"; }

void require_rank(const OpContext& ctx, const TensorMeta& t, size_t rank, const std::string& what) {
  if (t.rank() != rank) {
    ctx.bad_input(what + " must be " + std::to_string(rank) + "-D, got " + rank_str(t) + " " +
                  shape_str(t.sizes));
  }
}

// Matrix products do not promote: both operands carry one dtype.
void require_same_dtype(const OpContext& ctx, const TensorMeta& a, const TensorMeta& b,
                        const std::string& what) {
  if (a.dtype != b.dtype) {
    ctx.bad_input(what + " expected operands of the same dtype, got " +
                  std::string(to_string(a.dtype)) + " and " + std::string(to_string(b.dtype)));
  }
}

// The contraction size of a and b must agree.
void require_inner(const OpContext& ctx, const TensorMeta& a, const TensorMeta& b, const Expr& ka,
                   const Expr& kb, const std::string& op) {
  ctx.require_equal(ka, kb, op, [&] {
    return op + ": shapes " + shape_str(a.sizes) + " and " + shape_str(b.sizes) +
           " cannot be multiplied (" + ctx.simplify(ka).str() + " != " + ctx.simplify(kb).str() +
           ")";
  });
}

// A size that stretches when broadcast: decided like broadcasting does (size-oblivious for
// data-dependent sizes, which are then assumed not to be 1).
bool is_size_one(const OpContext& ctx, const Expr& d, std::string_view rule) {
  if (ctx.is_data_dependent(d)) {
    return ctx.decide_size_oblivious(d == 1, rule);
  }
  return ctx.decide(d == 1, rule);
}

// `from` must expand to exactly `to` (an addmm bias, a linear bias): it may not grow the result.
void require_expandable(const OpContext& ctx, const std::vector<Expr>& from,
                        const std::vector<Expr>& to, const std::string& what) {
  const std::string message =
      "cannot broadcast " + what + " " + shape_str(from) + " to the result " + shape_str(to);
  if (from.size() > to.size()) ctx.fail(message);
  for (size_t k = 0; k < from.size(); ++k) {
    const Expr& f = from[from.size() - 1 - k];
    const Expr& t = to[to.size() - 1 - k];
    if (f.identical(t) || is_size_one(ctx, f, "expand")) continue;
    ctx.require_equal(f, t, "expand", [&] {
      return message + " at dim " + std::to_string(to.size() - 1 - k) + " (" +
             ctx.simplify(f).str() + " != " + ctx.simplify(t).str() + ")";
    });
  }
}

std::vector<Expr> simplified(const OpContext& ctx, std::vector<Expr> sizes) {
  for (Expr& e : sizes) e = ctx.simplify(e);
  return sizes;
}

// torch.matmul on every rank pair: a 1-D left operand acts as [1, k] and a 1-D right operand as
// [k, 1], with that dim removed from the result; the batch dims (all but the last two) broadcast.
std::vector<Expr> matmul_sizes(const OpContext& ctx, const TensorMeta& a, const TensorMeta& b) {
  if (a.rank() == 0 || b.rank() == 0) {
    ctx.bad_input("both arguments to matmul need to be at least 1-D, got " + rank_str(a) + " and " +
                  rank_str(b));
  }
  require_same_dtype(ctx, a, b, "matmul");
  const Expr& ka = a.sizes.back();
  const Expr& kb = b.rank() == 1 ? b.sizes[0] : b.sizes[b.rank() - 2];
  require_inner(ctx, a, b, ka, kb, "matmul");
  auto batch_of = [](const TensorMeta& t) {
    return t.rank() > 2 ? std::vector<Expr>(t.sizes.begin(), t.sizes.end() - 2)
                        : std::vector<Expr>{};
  };
  std::vector<Expr> out = broadcast_shapes(ctx, batch_of(a), batch_of(b));
  if (a.rank() >= 2) out.push_back(a.sizes[a.rank() - 2]);
  if (b.rank() >= 2) out.push_back(b.sizes.back());
  return simplified(ctx, out);
}

// mm (self, mat2): [n, k] @ [k, p].
std::vector<Expr> mm_sizes(const OpContext& ctx, const TensorMeta& a, const TensorMeta& b) {
  require_rank(ctx, a, 2, "mm: self");
  require_rank(ctx, b, 2, "mm: mat2");
  require_same_dtype(ctx, a, b, "mm");
  require_inner(ctx, a, b, a.sizes[1], b.sizes[0], "mm");
  return simplified(ctx, {a.sizes[0], b.sizes[1]});
}

// bmm (self, mat2): [b, n, k] @ [b, k, p]; the batch sizes must be equal (no broadcasting).
std::vector<Expr> bmm_sizes(const OpContext& ctx, const TensorMeta& a, const TensorMeta& b) {
  require_rank(ctx, a, 3, "bmm: batch1");
  require_rank(ctx, b, 3, "bmm: batch2");
  require_same_dtype(ctx, a, b, "bmm");
  ctx.require_equal(a.sizes[0], b.sizes[0], "bmm", [&] {
    return "bmm: batch1 " + shape_str(a.sizes) + " and batch2 " + shape_str(b.sizes) +
           " must have the same number of batches (" + ctx.simplify(a.sizes[0]).str() +
           " != " + ctx.simplify(b.sizes[0]).str() + ")";
  });
  require_inner(ctx, a, b, a.sizes[2], b.sizes[1], "bmm");
  return simplified(ctx, {a.sizes[0], a.sizes[1], b.sizes[2]});
}

// mv (self, vec): [n, k] @ [k].
std::vector<Expr> mv_sizes(const OpContext& ctx, const TensorMeta& a, const TensorMeta& v) {
  require_rank(ctx, a, 2, "mv: self");
  require_rank(ctx, v, 1, "mv: vec");
  require_same_dtype(ctx, a, v, "mv");
  require_inner(ctx, a, v, a.sizes[1], v.sizes[0], "mv");
  return simplified(ctx, {a.sizes[0]});
}

// outer / ger / addr's vectors: [n] x [m] -> [n, m].
std::vector<Expr> outer_sizes(const OpContext& ctx, const TensorMeta& a, const TensorMeta& b) {
  require_rank(ctx, a, 1, "outer: self");
  require_rank(ctx, b, 1, "outer: vec2");
  return simplified(ctx, {a.sizes[0], b.sizes[0]});
}

Value dot(OpContext& ctx) {
  TensorMeta a = ctx.tensor("self");
  TensorMeta b = ctx.tensor(ctx.declares("tensor") ? "tensor" : "other");  // dot, vdot
  if (a.rank() != 1 || b.rank() != 1) {
    ctx.bad_input("dot: 1-D tensors expected, got " + rank_str(a) + " and " + rank_str(b));
  }
  require_same_dtype(ctx, a, b, "dot");
  ctx.require_equal(a.sizes[0], b.sizes[0], "dot", [&] {
    return "dot: inconsistent tensor sizes " + shape_str(a.sizes) + " and " + shape_str(b.sizes);
  });
  return Value::of(contiguous(a.dtype, {}));
}

// addmm-style ops: self (the added term) broadcasts to the product's shape.
using ProductSizes = std::vector<Expr> (*)(const OpContext&, const TensorMeta&, const TensorMeta&);

ShapeRule add_product(ProductSizes product, std::string first, std::string second) {
  return [product, first, second](OpContext& ctx) {
    TensorMeta self = ctx.tensor("self");
    TensorMeta a = ctx.tensor(first);
    TensorMeta b = ctx.tensor(second);
    // beta and alpha change no shape, but must be numbers; _addmm_activation's use_gelu a bool.
    for (const char* name : {"beta", "alpha"}) {
      if (!ctx.has(name)) continue;
      Value v = ctx.value(name);
      if (v.kind != Value::Kind::Int && v.kind != Value::Kind::Float && v.kind != Value::Kind::Bool)
        ctx.bad_input("argument '" + std::string(name) + "' must be a number, got " + v.str());
    }
    if (ctx.node().target.starts_with("aten._addmm_activation")) ctx.boolean("use_gelu", false);
    std::vector<Expr> out = product(ctx, a, b);
    require_expandable(ctx, self.sizes, out, "self");
    return Value::of(contiguous(a.dtype, out));
  };
}

// `promote`: the result type is the operands' promotion (outer and ger are a broadcast
// multiply); otherwise self's dtype.
ShapeRule product_rule(ProductSizes product, std::string first, std::string second,
                       bool promote = false) {
  return [product, first, second, promote](OpContext& ctx) {
    TensorMeta a = ctx.tensor(first);
    TensorMeta b = ctx.tensor(second);
    DType dtype = promote ? promote_types(a.dtype, b.dtype) : a.dtype;
    return Value::of(contiguous(dtype, product(ctx, a, b)));
  };
}

// linear (input [..., in], weight [out, in] or [in], bias): input @ weight.T + bias.
Value linear(OpContext& ctx) {
  TensorMeta input = ctx.tensor("input");
  TensorMeta weight = ctx.tensor("weight");
  if (weight.rank() == 0 || weight.rank() > 2) {
    ctx.bad_input("linear: weight must be 1-D or 2-D, got " + shape_str(weight.sizes));
  }
  TensorMeta transposed = weight;
  if (weight.rank() == 2) transposed.sizes = {weight.sizes[1], weight.sizes[0]};
  std::vector<Expr> out = matmul_sizes(ctx, input, transposed);
  if (auto bias = ctx.optional_tensor("bias")) require_expandable(ctx, bias->sizes, out, "bias");
  return Value::of(contiguous(input.dtype, out));
}

// ---- einsum ---------------------------------------------------------------------------------

using validate::kEllipsis;
using validate::Subscripts;

Value einsum(OpContext& ctx) {
  std::vector<TensorMeta> ops = ctx.tensor_list("tensors");
  std::vector<size_t> ranks;
  for (const TensorMeta& t : ops) ranks.push_back(t.rank());
  const validate::Equation eq = validate::einsum_equation(ctx, ranks);
  const std::vector<Subscripts>& terms = eq.terms;

  // Each label's size (broadcast across operands, equal within one), and the ellipsis dims
  // (broadcast like any shape, right-aligned).
  std::map<char, Expr> size_of;
  std::map<char, size_t> count;
  std::vector<Expr> ellipsis;
  DType dtype = ops[0].dtype;
  for (size_t o = 0; o < ops.size(); ++o) {
    const TensorMeta& t = ops[o];
    const Subscripts& s = terms[o];
    dtype = promote_types(dtype, t.dtype);
    const size_t letters = s.letter_count();
    const size_t covered = t.rank() - letters;
    std::map<char, Expr> here;
    size_t dim = 0;
    for (char label : s.labels) {
      if (label == kEllipsis) {
        std::vector<Expr> dims(t.sizes.begin() + dim, t.sizes.begin() + dim + covered);
        ellipsis = broadcast_shapes(ctx, ellipsis, dims);
        dim += covered;
        continue;
      }
      const Expr& size = t.sizes[dim++];
      ++count[label];
      auto seen = here.find(label);
      if (seen != here.end()) {
        // A repeated subscript takes a diagonal: its sizes must agree.
        ctx.require_equal(seen->second, size, "einsum", [&] {
          return std::string("einsum(): subscript ") + label + " is repeated for operand " +
                 std::to_string(o) + " but the sizes don't match, " +
                 ctx.simplify(seen->second).str() + " != " + ctx.simplify(size).str();
        });
        continue;
      }
      here.emplace(label, size);
      auto known = size_of.find(label);
      if (known == size_of.end()) {
        size_of.emplace(label, size);
      } else if (!known->second.identical(size)) {
        // Across operands a subscript broadcasts: size 1 stretches.
        if (is_size_one(ctx, size, "einsum")) continue;
        if (is_size_one(ctx, known->second, "einsum")) {
          known->second = size;
          continue;
        }
        ctx.require_equal(known->second, size, "einsum", [&] {
          return std::string("einsum(): operands do not broadcast: subscript ") + label +
                 " has size " + ctx.simplify(known->second).str() + " before operand " +
                 std::to_string(o) + " and " + ctx.simplify(size).str() + " in it";
        });
      }
    }
  }

  std::vector<Expr> out;
  if (!eq.output) {
    // Implicit output: the ellipsis dims, then the labels seen once, sorted (A-Z before a-z).
    out = ellipsis;
    for (const auto& [label, n] : count) {
      if (n == 1) out.push_back(size_of.at(label));
    }
  } else {
    for (char label : eq.output->labels) {
      if (label == kEllipsis) {
        out.insert(out.end(), ellipsis.begin(), ellipsis.end());
      } else {
        out.push_back(size_of.at(label));
      }
    }
  }
  return Value::of(contiguous(dtype, simplified(ctx, out)));
}

}  // namespace

void register_linalg(OpRegistry& r) {
  r.add("aten.mm", product_rule(mm_sizes, "self", "mat2"));
  r.add("aten.bmm", product_rule(bmm_sizes, "self", "mat2"));
  r.add("aten.matmul", product_rule(matmul_sizes, "self", "other"));
  r.add("aten.mv", product_rule(mv_sizes, "self", "vec"));
  r.add("aten.outer", product_rule(outer_sizes, "self", "vec2", /*promote=*/true));
  r.add("aten.ger", product_rule(outer_sizes, "self", "vec2", /*promote=*/true));
  r.add("aten.dot", dot);
  r.add("aten.vdot", dot);
  // _int_mm: int8 x int8 accumulates in int32.
  r.add("aten._int_mm", [](OpContext& ctx) {
    TensorMeta a = ctx.tensor("self");
    TensorMeta b = ctx.tensor("mat2");
    return Value::of(contiguous(DType::Int32, mm_sizes(ctx, a, b)));
  });

  r.add("aten.addmm", add_product(mm_sizes, "mat1", "mat2"));
  r.add("aten._addmm_activation", add_product(mm_sizes, "mat1", "mat2"));
  r.add("aten.baddbmm", add_product(bmm_sizes, "batch1", "batch2"));
  r.add("aten.addmv", add_product(mv_sizes, "mat", "vec"));
  r.add("aten.addr", add_product(outer_sizes, "vec1", "vec2"));
  // addbmm sums the batch of products: [n, p].
  r.add("aten.addbmm", [](OpContext& ctx) {
    TensorMeta self = ctx.tensor("self");
    TensorMeta a = ctx.tensor("batch1");
    TensorMeta b = ctx.tensor("batch2");
    std::vector<Expr> prod = bmm_sizes(ctx, a, b);
    std::vector<Expr> out = {prod[1], prod[2]};
    require_expandable(ctx, self.sizes, out, "self");
    return Value::of(contiguous(a.dtype, out));
  });
  r.add("aten.linear", linear);
  r.add("aten.einsum", einsum);
}

}  // namespace symshape::ops
