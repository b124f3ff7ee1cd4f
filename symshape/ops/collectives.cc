// Functional collectives (torch.distributed._functional_collectives at ATen level). The group
// size may be a constant or a symbol; reduce_scatter needs dim 0 divisible by it.
#include "symshape/ops/families.h"

namespace symshape::ops {

namespace {

const char* const kReduceOps[] = {"sum", "avg", "product", "min", "max", "band", "bor", "bxor",
                                  "premul_sum"};

// Sum and average are right on complex values; max, min and products are not defined there.
void check_reduce_op(const OpContext& ctx, size_t i) {
  std::string op = ctx.string(i, "reduceOp", "sum");
  bool known = false;
  for (const char* k : kReduceOps) known |= op == k;
  if (!known) ctx.bad_input("unknown reduce op '" + op + "'");
  if (is_complex(ctx.tensor(0, "input").dtype) && op != "sum" && op != "avg") {
    ctx.bad_input("reduce op '" + op + "' is not defined on complex tensors (only sum and avg)");
  }
}

Expr group_size(const OpContext& ctx, size_t i) {
  Expr w = ctx.simplify(ctx.integer(i, "group_size"));
  if (ctx.known(w >= 1) == Truth::False) ctx.bad_input("group size " + w.str() + " must be positive");
  return w;
}

Value same(OpContext& ctx) { return Value::of(ctx.tensor(0, "input")); }

TensorMeta gather_dim0(const OpContext& ctx, TensorMeta t, const Expr& w) {
  if (t.rank() == 0) ctx.bad_input("all_gather needs a tensor with at least one dim");
  t.sizes[0] = ctx.simplify(t.sizes[0] * w);
  return contiguous(t.dtype, t.sizes);
}

TensorMeta scatter_dim0(const OpContext& ctx, TensorMeta t, const Expr& w) {
  if (t.rank() == 0) ctx.bad_input("reduce_scatter needs a tensor with at least one dim");
  if (!ctx.decide(mod(t.sizes[0], w) == 0, "reduce_scatter_divisible")) {
    ctx.fail("reduce_scatter: dim 0 of size " + t.sizes[0].str() + " is not divisible by the group size " + w.str());
  }
  t.sizes[0] = ctx.simplify(floordiv(t.sizes[0], w));
  return contiguous(t.dtype, t.sizes);
}

}  // namespace

void register_collectives(OpRegistry& r) {
  for (const char* ns : {"_c10d_functional.", "c10d_functional."}) {
    const std::string p = ns;
    // all_reduce(input, reduceOp, group_name)
    r.add(p + "all_reduce", [](OpContext& ctx) {
      check_reduce_op(ctx, 1);
      return same(ctx);
    });
    r.add(p + "all_reduce_", [](OpContext& ctx) {
      check_reduce_op(ctx, 1);
      return same(ctx);
    });
    // all_gather_into_tensor(input, group_size, group_name)
    r.add(p + "all_gather_into_tensor", [](OpContext& ctx) {
      return Value::of(gather_dim0(ctx, ctx.tensor(0, "input"), group_size(ctx, 1)));
    });
    // reduce_scatter_tensor(input, reduceOp, group_size, group_name)
    r.add(p + "reduce_scatter_tensor", [](OpContext& ctx) {
      check_reduce_op(ctx, 1);
      return Value::of(scatter_dim0(ctx, ctx.tensor(0, "input"), group_size(ctx, 2)));
    });
    // all_to_all_single(input, output_split_sizes, input_split_sizes, group_name)
    r.add(p + "all_to_all_single", [](OpContext& ctx) {
      TensorMeta t = ctx.tensor(0, "input");
      if (t.rank() == 0) ctx.bad_input("all_to_all_single needs a tensor with at least one dim");
      if (auto in = ctx.optional_int_list(2, "input_split_sizes"); in && !in->empty()) {
        Expr total = 0;
        for (const Expr& s : *in) total += s;
        ctx.require_equal(total, t.sizes[0], "all_to_all_split",
                          "input split sizes " + shape_str(*in) + " do not add up to dim 0 of size " + t.sizes[0].str());
      }
      if (auto out = ctx.optional_int_list(1, "output_split_sizes"); out && !out->empty()) {
        Expr total = 0;
        for (const Expr& s : *out) total += s;
        t.sizes[0] = ctx.simplify(total);
      }
      return Value::of(contiguous(t.dtype, t.sizes));
    });
    // broadcast(input, src, group_name)
    r.add(p + "broadcast", same);
    r.add(p + "broadcast_", same);
    r.add(p + "wait_tensor", same);
  }
}

}  // namespace symshape::ops
