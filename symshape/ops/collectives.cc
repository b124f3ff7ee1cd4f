// Functional collectives (torch.distributed._functional_collectives at ATen level). The group
// size may be a constant or a symbol; reduce_scatter needs dim 0 divisible by it.
#include "symshape/ops/families.h"

namespace symshape::ops {

namespace {

// The reduce ops functional collectives accept (as they are spelled in graphs).
const char* const kReduceOps[] = {"sum",  "avg", "product", "min",       "max",
                                  "band", "bor", "bxor",    "premul_sum"};

// Sum and average are right on complex values; max, min and products are not defined there.
// The native _c10d_functional ops call it reduce_op, the legacy c10d_functional ones reduceOp.
void check_reduce_op(const OpContext& ctx, const std::vector<TensorMeta>& ts) {
  std::string op = ctx.string(ctx.declares("reduce_op") ? "reduce_op" : "reduceOp", "sum");
  bool known = false;
  for (const char* k : kReduceOps) known |= op == k;
  if (!known) ctx.bad_input("unknown reduce op '" + op + "'");
  for (const TensorMeta& t : ts) {
    if (is_complex(t.dtype) && op != "sum" && op != "avg") {
      ctx.bad_input("reduce op '" + op + "' is not defined on complex tensors (only sum and avg)");
    }
  }
}

Expr group_size(const OpContext& ctx) {
  Expr w = ctx.simplify(ctx.integer("group_size"));
  const std::string message = "group size " + w.str() + " must be positive";
  Truth t = ctx.known(w >= 1);
  if (t == Truth::False || (t == Truth::Unknown && !ctx.decide(w >= 1, "group_size"))) {
    ctx.bad_input(message);
  }
  return w;
}

// The op's tensors, its first argument (input, inputs, self or shard, as each form names it):
// one, or a list for the *_coalesced variants.
std::vector<TensorMeta> inputs(const OpContext& ctx, bool coalesced) {
  const std::string& name = ctx.schema().params.at(0).name;
  if (coalesced) return ctx.tensor_list(name);
  return {ctx.tensor(name)};
}

Value outputs(std::vector<TensorMeta> ts, bool coalesced) {
  std::vector<Value> items;
  for (TensorMeta& t : ts) items.push_back(Value::of(contiguous(t.dtype, std::move(t.sizes))));
  return coalesced ? Value::list(std::move(items)) : items[0];
}

// all_gather concatenates the group's tensors along dim 0.
TensorMeta gather_dim0(const OpContext& ctx, TensorMeta t, const Expr& w) {
  if (t.rank() == 0) ctx.bad_input("all_gather needs a tensor with at least one dim");
  t.sizes[0] = ctx.simplify(t.sizes[0] * w);
  return t;
}

// reduce_scatter gives each rank an equal slice of dim 0, which must divide evenly.
TensorMeta scatter_dim0(const OpContext& ctx, TensorMeta t, const Expr& w) {
  if (t.rank() == 0) ctx.bad_input("reduce_scatter needs a tensor with at least one dim");
  require(ctx, mod(t.sizes[0], w) == 0, "reduce_scatter_divisible", [&] {
    return "reduce_scatter: dim 0 of size " + ctx.simplify(t.sizes[0]).str() +
           " is not divisible by the group size " + w.str();
  });
  t.sizes[0] = ctx.simplify(floordiv(t.sizes[0], w));
  return t;
}

void register_family(OpRegistry& r, const std::string& p) {
  for (bool coalesced : {false, true}) {
    const std::string suffix = coalesced ? "_coalesced" : "";
    for (const char* variant : {"", "_"}) {
      r.add(p + "all_reduce" + suffix + variant, [coalesced](OpContext& ctx) {
        std::vector<TensorMeta> ts = inputs(ctx, coalesced);
        check_reduce_op(ctx, ts);
        if (ctx.has("group_size")) group_size(ctx);
        return outputs(std::move(ts), coalesced);
      });
    }
    r.add(p + "all_gather_into_tensor" + suffix, [coalesced](OpContext& ctx) {
      std::vector<TensorMeta> ts = inputs(ctx, coalesced);
      Expr w = group_size(ctx);
      for (TensorMeta& t : ts) t = gather_dim0(ctx, t, w);
      return outputs(std::move(ts), coalesced);
    });
    r.add(p + "reduce_scatter_tensor" + suffix, [coalesced](OpContext& ctx) {
      std::vector<TensorMeta> ts = inputs(ctx, coalesced);
      check_reduce_op(ctx, ts);
      Expr w = group_size(ctx);
      for (TensorMeta& t : ts) t = scatter_dim0(ctx, t, w);
      return outputs(std::move(ts), coalesced);
    });
  }
  // all_to_all_single(input, output_split_sizes, input_split_sizes, ...): the input splits must
  // add up to dim 0; the output's dim 0 is the sum of the output splits (input's when absent).
  r.add(p + "all_to_all_single", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor("input");
    if (t.rank() == 0) ctx.bad_input("all_to_all_single needs a tensor with at least one dim");
    auto total = [&](const std::vector<Expr>& splits) {
      Expr sum = 0;
      for (const Expr& e : splits) {
        if (ctx.known(e >= 0) == Truth::False) {
          ctx.bad_input("all_to_all_single: negative split size in " + shape_str(splits));
        }
        sum += e;
      }
      return sum;
    };
    // Split sizes are a list (SymInt[]?): a lone int or bool is a malformed argument.
    for (const char* name : {"output_split_sizes", "input_split_sizes"}) {
      if (!ctx.has(name)) continue;
      Value v = ctx.value(name);
      if (v.kind != Value::Kind::List) {
        ctx.bad_input(std::string(name) + " must be a list of ints, got " + v.str());
      }
    }
    if (auto in = ctx.optional_int_list("input_split_sizes"); in && !in->empty()) {
      ctx.require_equal(total(*in), t.sizes[0], "all_to_all_split", [&] {
        return "input split sizes " + shape_str(*in) + " do not add up to dim 0 of size " +
               t.sizes[0].str();
      });
    }
    if (auto out = ctx.optional_int_list("output_split_sizes"); out && !out->empty()) {
      t.sizes[0] = ctx.simplify(total(*out));
    }
    return Value::of(contiguous(t.dtype, t.sizes));
  });
  for (const char* op : {"broadcast", "broadcast_"}) {
    r.add(p + op, [](OpContext& ctx) {
      const Expr src = ctx.integer("src");  // an int (a list is malformed), the root rank
      if (ctx.known(src >= 0) == Truth::False) {
        ctx.fail("broadcast: the source rank must not be negative, got " + src.str());
      }
      TensorMeta t = inputs(ctx, false)[0];
      return Value::of(contiguous(t.dtype, t.sizes));
    });
  }
}

}  // namespace

void register_collectives(OpRegistry& r) {
  register_family(r, "_c10d_functional.");
  register_family(r, "c10d_functional.");
  // wait_tensor(tensor) (native) / wait_tensor(self) (legacy): the tensor, unchanged.
  r.add("_c10d_functional.wait_tensor",
        [](OpContext& ctx) { return Value::of(ctx.tensor("tensor")); });
  r.add("c10d_functional.wait_tensor",
        [](OpContext& ctx) { return Value::of(ctx.tensor("self")); });
}

}  // namespace symshape::ops
