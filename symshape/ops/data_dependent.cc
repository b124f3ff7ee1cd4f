// Data-dependent ops: output sizes that only the data decides become unbacked symbols.
#include "symshape/ops/families.h"

namespace symshape::ops {

namespace {

// A fresh size-like unbacked symbol for a count of at most `limit` elements.
Expr unbacked_count(OpContext& ctx, const Expr& limit) {
  SymInt u = ctx.env().create_unbacked_symint();
  ctx.env().constrain_as_size(u);
  Expr bound = ctx.simplify(limit);
  if (auto c = bound.constant()) {
    ctx.env().constrain_range(u, ValueRange::closed(0, *c));
  } else {
    ctx.assert_runtime(u.expr() <= bound, "data_dependent_count");
  }
  return u.expr();
}

Value nonzero(OpContext& ctx) {
  TensorMeta t = ctx.tensor(0, "self");
  Expr n = unbacked_count(ctx, t.numel());
  return Value::of(contiguous(DType::Int64, {n, Expr(static_cast<long>(t.rank()))}));
}

Value item(OpContext& ctx) {
  TensorMeta t = ctx.tensor(0, "self");
  Truth single = ctx.known(ctx.simplify(t.numel()) == 1);
  if (single == Truth::False) ctx.fail("item() needs a tensor with one element, got " + shape_str(t.sizes));
  if (t.dtype == DType::Bool) return Value::of_bool(std::nullopt);
  if (is_floating(t.dtype) || is_complex(t.dtype)) return Value::of_float(0);
  return Value::of_int(ctx.env().create_unbacked_symint().expr());
}

// unique and friends: (values [u], inverse (input's shape or [0]), counts ([u] or [0])).
Value unique(OpContext& ctx, size_t inverse_pos, size_t counts_pos) {
  TensorMeta t = ctx.tensor(0, "self");
  Expr n = unbacked_count(ctx, t.numel());
  bool inverse = ctx.boolean(inverse_pos, "return_inverse", false);
  bool counts = ctx.boolean(counts_pos, "return_counts", false);
  return Value::list({Value::of(contiguous(t.dtype, {n})),
                      Value::of(contiguous(DType::Int64, inverse ? t.sizes : std::vector<Expr>{0})),
                      Value::of(contiguous(DType::Int64, counts ? std::vector<Expr>{n} : std::vector<Expr>{0}))});
}

}  // namespace

void register_data_dependent(OpRegistry& r) {
  r.add("aten.nonzero", nonzero);
  r.add("aten.argwhere", nonzero);
  r.add("aten.nonzero_static", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor(0, "self");
    Expr size = ctx.integer(1, "size");
    if (ctx.known(size >= 0) == Truth::False) ctx.bad_input("nonzero_static size must be non-negative");
    return Value::of(contiguous(DType::Int64, {size, Expr(static_cast<long>(t.rank()))}));
  });
  r.add("aten.item", item);
  r.add("aten._local_scalar_dense", item);
  r.add("aten.masked_select", [](OpContext& ctx) {
    TensorMeta self = ctx.tensor(0, "self");
    TensorMeta mask = ctx.tensor(1, "mask");
    std::vector<Expr> shape = broadcast_shapes(ctx, self.sizes, mask.sizes);
    Expr numel = 1;
    for (const Expr& s : shape) numel *= s;
    return Value::of(contiguous(self.dtype, {unbacked_count(ctx, numel)}));
  });
  // _unique2(self, sorted, return_inverse, return_counts); unique_consecutive(self,
  // return_inverse, return_counts, dim).
  r.add("aten._unique2", [](OpContext& ctx) { return unique(ctx, 2, 3); });
  r.add("aten.unique_consecutive", [](OpContext& ctx) { return unique(ctx, 1, 2); });
  r.add("aten._unique", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor(0, "self");
    Expr n = unbacked_count(ctx, t.numel());
    bool inverse = ctx.boolean(2, "return_inverse", false);
    return Value::list({Value::of(contiguous(t.dtype, {n})),
                        Value::of(contiguous(DType::Int64, inverse ? t.sizes : std::vector<Expr>{0}))});
  });
  r.add("aten.repeat_interleave.Tensor", [](OpContext& ctx) {
    // repeat_interleave.Tensor(repeats): the total is data-dependent unless output_size is given.
    TensorMeta repeats = ctx.tensor(0, "repeats");
    if (auto size = ctx.optional_integer(1, "output_size")) {
      return Value::of(contiguous(repeats.dtype, {*size}));
    }
    SymInt u = ctx.env().create_unbacked_symint();
    ctx.env().constrain_as_size(u);
    return Value::of(contiguous(repeats.dtype, {u.expr()}));
  });
}

}  // namespace symshape::ops
