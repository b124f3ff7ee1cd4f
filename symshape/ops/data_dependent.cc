// Data-dependent ops: output sizes that only the data decides become unbacked symbols.
#include "symshape/ops/families.h"

namespace symshape::ops {

namespace {

// The size-like count of elements that survive a data-dependent selection from `limit`
// candidates: 0 when there are statically none, else a fresh unbacked symbol in [0, limit] (a
// range when limit's bound is finite, plus a runtime assert when limit is symbolic).
Expr unbacked_count(OpContext& ctx, const Expr& limit) {
  Expr bound = ctx.simplify(limit);
  if (ctx.known(bound == 0) == Truth::True) return Expr(0);
  ValueRange range = ValueRange::at_least(0);
  if (auto hi = ctx.bound(bound).hi()) range = ValueRange::closed(0, *hi);
  Expr u = ctx.new_unbacked_size(range);
  if (!bound.is_constant()) ctx.assert_runtime(u <= bound, "data_dependent_count");
  return u;
}

// nonzero: the indices of the nonzero elements, int64 [count, rank], laid out column-major as
// PyTorch allocates it (strides (1, count)).
Value nonzero(OpContext& ctx) {
  TensorMeta t = ctx.tensor("self");
  Expr n = unbacked_count(ctx, t.numel());
  TensorMeta out = contiguous(DType::Int64, {n, Expr(static_cast<long>(t.rank()))});
  out.strides = {Expr(1), n};
  return Value::of(out);
}

// item / _local_scalar_dense: the one element's value: an unbacked SymInt for integers, an
// untracked float or bool otherwise. numel must be 1 (a guard when symbolic, as in PyTorch).
Value item(OpContext& ctx) {
  TensorMeta t = ctx.tensor("self");
  Expr numel = ctx.simplify(t.numel());
  require(ctx, numel == 1, "item",
          "item() needs a tensor with one element, got " + shape_str(t.sizes));
  if (t.dtype == DType::Bool) return Value::of_bool(std::nullopt);
  if (is_floating(t.dtype) || is_complex(t.dtype)) return Value::of_float(0);
  return Value::of_int(ctx.new_unbacked_int());
}

// unique and friends: (values, inverse, counts). Without a dim: values [u], inverse self's
// shape, counts [u]. With a dim (unique slices along it): values self's shape with that dim u,
// inverse [self.size(dim)]. An output not asked for is empty ([0]).
Value unique(OpContext& ctx) {
  TensorMeta t = ctx.tensor("self");
  std::optional<size_t> dim;
  if (ctx.has("dim")) {
    if (t.rank() == 0) ctx.bad_input("unique along a dim needs a tensor with at least one dim");
    dim = ctx.normalize_dim(ctx.constant("dim"), t.rank());
  }
  Expr n = unbacked_count(ctx, dim ? t.sizes[*dim] : t.numel());
  std::vector<Expr> values = {n}, inverse_shape = t.sizes;
  if (dim) {
    values = t.sizes;
    values[*dim] = n;
    inverse_shape = {t.sizes[*dim]};
  }
  const bool inverse = ctx.boolean("return_inverse", false);
  std::vector<Value> out = {
      Value::of(contiguous(t.dtype, values)),
      Value::of(contiguous(DType::Int64, inverse ? inverse_shape : std::vector<Expr>{0}))};
  if (ctx.declares("return_counts")) {  // _unique has no counts
    const bool counts = ctx.boolean("return_counts", false);
    out.push_back(
        Value::of(contiguous(DType::Int64, counts ? std::vector<Expr>{n} : std::vector<Expr>{0})));
  }
  return Value::list(std::move(out));
}

}  // namespace

void register_data_dependent(OpRegistry& r) {
  r.add("aten.nonzero", nonzero);
  r.add("aten.argwhere", nonzero);
  r.add("aten.nonzero_static", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor("self");
    Expr size = ctx.integer("size");
    if (ctx.known(size >= 0) == Truth::False) {
      ctx.bad_input("nonzero_static size must be non-negative");
    }
    return Value::of(contiguous(DType::Int64, {size, Expr(static_cast<long>(t.rank()))}));
  });
  r.add("aten.item", item);
  r.add("aten._local_scalar_dense", item);
  r.add("aten.masked_select", [](OpContext& ctx) {
    TensorMeta self = ctx.tensor("self");
    TensorMeta mask = ctx.tensor("mask");
    if (mask.dtype != DType::Bool) {
      ctx.bad_input("masked_select: mask must be a bool tensor, got " +
                    std::string(to_string(mask.dtype)));
    }
    std::vector<Expr> shape = broadcast_shapes(ctx, self.sizes, mask.sizes);
    Expr numel = 1;
    for (const Expr& s : shape) numel *= s;
    return Value::of(contiguous(self.dtype, {unbacked_count(ctx, numel)}));
  });
  // _unique2(self, sorted, return_inverse, return_counts); _unique(self, sorted, return_inverse);
  // unique_dim(self, dim, sorted, return_inverse, return_counts); unique_consecutive(self,
  // return_inverse, return_counts, dim); unique_dim_consecutive(self, dim, return_inverse,
  // return_counts).
  for (const char* op : {"aten._unique2", "aten._unique", "aten.unique_dim",
                         "aten.unique_consecutive", "aten.unique_dim_consecutive"})
    r.add(op, unique);
  r.add("aten.repeat_interleave.Tensor", [](OpContext& ctx) {
    // repeat_interleave.Tensor(repeats, *, output_size): the total is data-dependent unless
    // output_size is given.
    TensorMeta repeats = ctx.tensor("repeats");
    if (repeats.rank() > 1) {
      ctx.bad_input("repeat_interleave: repeats must be a 0-dim or 1-dim tensor, got " +
                    shape_str(repeats.sizes));
    }
    if (!is_integral(repeats.dtype)) {
      ctx.bad_input("repeat_interleave: repeats must be an integer tensor, got " +
                    std::string(to_string(repeats.dtype)));
    }
    if (auto size = ctx.optional_integer("output_size")) {
      return Value::of(contiguous(repeats.dtype, {*size}));
    }
    return Value::of(contiguous(repeats.dtype, {ctx.new_unbacked_size()}));
  });
}

}  // namespace symshape::ops
