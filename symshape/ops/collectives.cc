// Functional collectives (torch.distributed._functional_collectives at ATen level). The group
// size may be a constant or a symbol; reduce_scatter needs dim 0 divisible by it.
#include "symshape/ops/families.h"

namespace symshape::ops {

namespace {

// The reduce ops functional collectives accept (as they are spelled in graphs).
const char* const kReduceOps[] = {"sum",  "avg", "product", "min",       "max",
                                  "band", "bor", "bxor",    "premul_sum"};

// Where an op's arguments sit: the native _c10d_functional ops and the legacy c10d_functional
// ones (tag, ranks, group_size at the end) name and place them differently.
struct Schema {
  const char* input;      // the tensor (or tensor list) argument
  const char* reduce_op;  // its reduce op, at position 1
  size_t gather_group;    // group_size of all_gather_into_tensor
  size_t scatter_group;   // group_size of reduce_scatter_tensor
  size_t reduce_group;    // group_size of all_reduce (0: it has none, a group name instead)
};
constexpr Schema kNative{"input", "reduce_op", 1, 2, 0};
constexpr Schema kLegacy{"self", "reduceOp", 3, 4, 4};

// Sum and average are right on complex values; max, min and products are not defined there.
void check_reduce_op(const OpContext& ctx, const Schema& s, const std::vector<TensorMeta>& ts) {
  std::string op = ctx.string(1, s.reduce_op, "sum");
  bool known = false;
  for (const char* k : kReduceOps) known |= op == k;
  if (!known) ctx.bad_input("unknown reduce op '" + op + "'");
  for (const TensorMeta& t : ts) {
    if (is_complex(t.dtype) && op != "sum" && op != "avg") {
      ctx.bad_input("reduce op '" + op + "' is not defined on complex tensors (only sum and avg)");
    }
  }
}

Expr group_size(const OpContext& ctx, size_t i) {
  Expr w = ctx.simplify(ctx.integer(i, "group_size"));
  const std::string message = "group size " + w.str() + " must be positive";
  Truth t = ctx.known(w >= 1);
  if (t == Truth::False || (t == Truth::Unknown && !ctx.decide(w >= 1, "group_size"))) {
    ctx.bad_input(message);
  }
  return w;
}

// The op's tensors: one, or a list for the *_coalesced variants.
std::vector<TensorMeta> inputs(const OpContext& ctx, const Schema& s, bool coalesced) {
  if (coalesced) return ctx.tensor_list(0, s.input);
  return {ctx.tensor(0, s.input)};
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
  require(ctx, mod(t.sizes[0], w) == 0, "reduce_scatter_divisible",
          "reduce_scatter: dim 0 of size " + ctx.simplify(t.sizes[0]).str() +
              " is not divisible by the group size " + w.str());
  t.sizes[0] = ctx.simplify(floordiv(t.sizes[0], w));
  return t;
}

void register_family(OpRegistry& r, const std::string& p, const Schema& s) {
  for (bool coalesced : {false, true}) {
    const std::string suffix = coalesced ? "_coalesced" : "";
    for (const char* variant : {"", "_"}) {
      r.add(p + "all_reduce" + suffix + variant, [s, coalesced](OpContext& ctx) {
        std::vector<TensorMeta> ts = inputs(ctx, s, coalesced);
        check_reduce_op(ctx, s, ts);
        if (s.reduce_group && ctx.has(s.reduce_group, "group_size"))
          group_size(ctx, s.reduce_group);
        return outputs(std::move(ts), coalesced);
      });
    }
    r.add(p + "all_gather_into_tensor" + suffix, [s, coalesced](OpContext& ctx) {
      std::vector<TensorMeta> ts = inputs(ctx, s, coalesced);
      Expr w = group_size(ctx, s.gather_group);
      for (TensorMeta& t : ts) t = gather_dim0(ctx, t, w);
      return outputs(std::move(ts), coalesced);
    });
    r.add(p + "reduce_scatter_tensor" + suffix, [s, coalesced](OpContext& ctx) {
      std::vector<TensorMeta> ts = inputs(ctx, s, coalesced);
      check_reduce_op(ctx, s, ts);
      Expr w = group_size(ctx, s.scatter_group);
      for (TensorMeta& t : ts) t = scatter_dim0(ctx, t, w);
      return outputs(std::move(ts), coalesced);
    });
  }
  // all_to_all_single(input, output_split_sizes, input_split_sizes, ...): the input splits must
  // add up to dim 0; the output's dim 0 is the sum of the output splits (input's when absent).
  r.add(p + "all_to_all_single", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor(0, "input");
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
    for (auto [i, name] : {std::pair<size_t, const char*>{1, "output_split_sizes"},
                           std::pair<size_t, const char*>{2, "input_split_sizes"}}) {
      if (!ctx.has(i, name)) continue;
      Value v = ctx.value(i, name);
      if (v.kind != Value::Kind::List) {
        ctx.bad_input(std::string(name) + " must be a list of ints, got " + v.str());
      }
    }
    if (auto in = ctx.optional_int_list(2, "input_split_sizes"); in && !in->empty()) {
      ctx.require_equal(total(*in), t.sizes[0], "all_to_all_split",
                        "input split sizes " + shape_str(*in) + " do not add up to dim 0 of size " +
                            t.sizes[0].str());
    }
    if (auto out = ctx.optional_int_list(1, "output_split_sizes"); out && !out->empty()) {
      t.sizes[0] = ctx.simplify(total(*out));
    }
    return Value::of(contiguous(t.dtype, t.sizes));
  });
  for (const char* op : {"broadcast", "broadcast_"}) {
    r.add(p + op, [s](OpContext& ctx) {
      TensorMeta t = ctx.tensor(0, s.input);
      return Value::of(contiguous(t.dtype, t.sizes));
    });
  }
}

}  // namespace

void register_collectives(OpRegistry& r) {
  register_family(r, "_c10d_functional.", kNative);
  register_family(r, "c10d_functional.", kLegacy);
  // wait_tensor(tensor) (native) / wait_tensor(self) (legacy): the tensor, unchanged.
  r.add("_c10d_functional.wait_tensor",
        [](OpContext& ctx) { return Value::of(ctx.tensor(0, "tensor")); });
  r.add("c10d_functional.wait_tensor",
        [](OpContext& ctx) { return Value::of(ctx.tensor(0, "self")); });
}

}  // namespace symshape::ops
