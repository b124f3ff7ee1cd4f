// Symbolic scalars: sizes read off tensors, Python operators on SymInts, getitem, and the
// asserts and range constraints that export writes into graphs.
#include <cmath>

#include "symshape/ops/families.h"
#include "symshape/ops/validate/common.h"

namespace symshape::ops {

namespace {

Value size_of(OpContext& ctx) {
  TensorMeta t = ctx.tensor("self");
  if (!ctx.has("dim")) {
    std::vector<Value> items;
    for (const Expr& s : t.sizes) items.push_back(Value::of_int(s));
    return Value::list(std::move(items));
  }
  if (t.rank() == 0) ctx.bad_input("a 0-dim tensor has no size to read");
  return Value::of_int(t.sizes[ctx.normalize_dim(ctx.constant("dim"), t.rank())]);
}

Value stride_of(OpContext& ctx) {
  TensorMeta t = ctx.tensor("self");
  std::vector<Expr> strides =
      t.strides.empty() ? TensorMeta::contiguous_strides(t.sizes) : t.strides;
  if (!ctx.has("dim")) {
    std::vector<Value> items;
    for (const Expr& s : strides) items.push_back(Value::of_int(s));
    return Value::list(std::move(items));
  }
  if (t.rank() == 0) ctx.bad_input("a 0-dim tensor has no stride to read");
  return Value::of_int(strides[ctx.normalize_dim(ctx.constant("dim"), t.rank())]);
}

// Both operands of a Python operator, when both are ints (symbolic or not).
std::optional<std::pair<Expr, Expr>> int_operands(const OpContext& ctx) {
  Value a = ctx.value("a"), b = ctx.value("b");
  if (a.kind == Value::Kind::Int && b.kind == Value::Kind::Int) {
    return std::make_pair(a.integer, b.integer);
  }
  return std::nullopt;
}

double as_double(const OpContext& ctx, const Value& v) {
  if (v.kind == Value::Kind::Float) return v.real;
  if (v.kind == Value::Kind::Int) {
    if (auto c = ctx.simplify(v.integer).as_int64()) return static_cast<double>(*c);
    return 0;  // a symbolic int used as a float: its value is not tracked
  }
  if (v.kind == Value::Kind::Bool && v.truth) return *v.truth ? 1 : 0;
  ctx.bad_input("expected a number, got " + v.str());
}

using IntOp = Expr (*)(const Expr&, const Expr&);

ShapeRule arithmetic(IntOp int_op, double (*float_op)(double, double)) {
  return [int_op, float_op](OpContext& ctx) {
    if (auto ab = int_operands(ctx)) {
      try {
        return Value::of_int(ctx.simplify(int_op(ab->first, ab->second)));
      } catch (const Error& e) {
        ctx.bad_input(e.what());
      }
    }
    return Value::of_float(
        float_op(as_double(ctx, ctx.value("a")), as_double(ctx, ctx.value("b"))));
  };
}

// A number whose value is known exactly: an int (symbolic or not), a bool, or a float written
// as a literal. Floats computed by nodes are not tracked (their Value holds no real value).
struct Number {
  std::optional<Expr> integer;
  std::optional<double> real;
};

std::optional<Number> known_number(const OpContext& ctx, std::string_view name) {
  const Arg* a = ctx.arg(name);
  if (!a) ctx.bad_input("missing argument '" + std::string(name) + "'");
  Value v = ctx.value_of(*a);
  if (v.kind == Value::Kind::Int) return Number{v.integer, std::nullopt};
  if (v.kind == Value::Kind::Bool && v.truth) return Number{Expr(*v.truth ? 1 : 0), std::nullopt};
  if (v.kind == Value::Kind::Float && a->kind == Arg::Kind::Float) {
    return Number{std::nullopt, v.real};
  }
  if (v.kind == Value::Kind::Float || v.kind == Value::Kind::Bool) return std::nullopt;
  ctx.bad_input("expected a number, got " + v.str());
}

// `x op f` for an integer x and a finite float f, as a relation between integers: x < 2.5 is
// x <= 2, x == 2.5 is false. nullopt when f is not finite or too large to be an exact integer.
std::optional<Cond> int_float_relation(RelOp op, const Expr& x, double f) {
  if (!std::isfinite(f) || std::fabs(f) > 9.0e15) return std::nullopt;
  const Expr lo(static_cast<long>(std::floor(f))), hi(static_cast<long>(std::ceil(f)));
  const bool whole = std::floor(f) == f;
  switch (op) {
    case RelOp::Eq: return whole ? Cond::rel(op, x, lo) : Cond::truth(false);
    case RelOp::Ne: return whole ? Cond::rel(op, x, lo) : Cond::truth(true);
    case RelOp::Lt: return x < hi;
    case RelOp::Le: return x <= lo;
    case RelOp::Gt: return x > lo;
    case RelOp::Ge: return x >= hi;
  }
  return std::nullopt;
}

// Python comparisons: a symbolic condition between ints (folded when static), a known bool
// between literals, and an unknown bool when a side is an untracked float.
ShapeRule comparison(RelOp op) {
  return [op](OpContext& ctx) {
    auto a = known_number(ctx, "a"), b = known_number(ctx, "b");
    if (!a || !b) return Value::of_bool(std::nullopt);
    std::optional<Cond> c;
    if (a->integer && b->integer) {
      c = Cond::rel(op, *a->integer, *b->integer);
    } else if (a->integer) {
      c = int_float_relation(op, *a->integer, *b->real);
    } else if (b->integer) {
      c = int_float_relation(reverse(op), *b->integer, *a->real);
    } else {
      const double x = *a->real, y = *b->real;
      bool v = op == RelOp::Eq   ? x == y
               : op == RelOp::Ne ? x != y
               : op == RelOp::Lt ? x < y
               : op == RelOp::Le ? x <= y
               : op == RelOp::Gt ? x > y
                                 : x >= y;
      return Value::of_bool(v);
    }
    if (!c) return Value::of_bool(std::nullopt);
    Truth t = ctx.known(*c);
    return Value::of_cond(t == Truth::Unknown ? *c : Cond::truth(t == Truth::True));
  };
}

// The condition an assert checks: a symbolic bool or a constant; nullopt for what cannot be
// seen (a bool the graph computes from data, a 0-dim bool tensor).
std::optional<Cond> condition_of(const Value& v) {
  if (v.kind == Value::Kind::Bool) {
    if (v.truth) return Cond::truth(*v.truth);
    // An unknown bool that is no symbolic condition (Value::of_bool(nullopt)) is untracked.
    if (v.condition.is_true()) return std::nullopt;
    return v.condition;
  }
  if (v.kind == Value::Kind::Int && v.integer.is_constant())
    return Cond::truth(!v.integer.identical(0));
  return std::nullopt;
}

Value assert_scalar(OpContext& ctx) {
  auto c = condition_of(ctx.value("self"));
  std::string msg = ctx.string("assert_msg", "");
  if (!c) return Value::none();
  const std::string suffix = msg.empty() ? "" : ": " + msg;
  if (ctx.known(*c) == Truth::False) ctx.fail("assertion " + c->str() + " can never hold" + suffix);
  try {
    ctx.assert_runtime(*c, "assert");
  } catch (const DataDependentError&) {
    throw;
  } catch (const Error& e) {
    // Recording it failed: it does not hold for the graph's own example inputs.
    ctx.fail(e.what() + suffix);
  }
  return Value::none();
}

Value constrain_range(OpContext& ctx, bool for_size) {
  Expr size = ctx.integer("size");
  auto lo = ctx.optional_integer("min");
  auto hi = ctx.optional_integer("max");
  auto bound = [&](const std::optional<Expr>& e) -> std::optional<Int> {
    if (!e) return std::nullopt;
    if (!e->is_constant()) ctx.bad_input("a range bound must be a constant, got " + e->str());
    return *e->constant();
  };
  ValueRange r(bound(lo), bound(hi));
  if (for_size) r = r.intersect(ValueRange::at_least(0));
  ctx.constrain_range(size, r, for_size);
  return Value::none();
}

// The dims of a rank-`rank` tensor from the slowest-varying to the fastest under a memory
// format: row-major for contiguous_format, channels (dim 1) fastest for channels_last (rank 4)
// and channels_last_3d (rank 5). nullopt when the format does not apply to the rank.
std::optional<std::vector<size_t>> format_order(const std::string& format, size_t rank) {
  std::vector<size_t> order;
  if (format == "contiguous_format") {
    for (size_t d = 0; d < rank; ++d) order.push_back(d);
    return order;
  }
  if ((format == "channels_last" && rank == 4) || (format == "channels_last_3d" && rank == 5)) {
    order.push_back(0);
    for (size_t d = 2; d < rank; ++d) order.push_back(d);
    order.push_back(1);
    return order;
  }
  return std::nullopt;
}

// sym_is_contiguous(self, memory_format=contiguous_format): PyTorch's is_contiguous: every dim
// of size other than 1 has the stride of the product of the sizes after it in the format's
// order (a size-1 dim's stride does not matter); a tensor without elements is contiguous in
// contiguous_format. A condition on the sizes when they are symbolic.
Value sym_is_contiguous(OpContext& ctx) {
  TensorMeta t = ctx.tensor("self");
  const Arg* a = ctx.declares("memory_format") ? ctx.arg("memory_format") : nullptr;
  const std::string format = a && a->kind != Arg::Kind::None ? a->text : "contiguous_format";
  if (format != "contiguous_format" && format != "channels_last" && format != "channels_last_3d") {
    ctx.bad_input("sym_is_contiguous: unsupported memory format " + format);
  }
  auto order = format_order(format, t.rank());
  if (!order) return Value::of_bool(false);
  const std::vector<Expr> strides =
      t.strides.size() == t.rank() ? t.strides : TensorMeta::contiguous_strides(t.sizes);
  std::vector<Cond> dims;
  Expr expected = 1;
  for (size_t i = order->size(); i-- > 0;) {
    const size_t d = (*order)[i];
    dims.push_back(t.sizes[d] == 1 || strides[d] == expected);
    expected = expected * t.sizes[d];
  }
  Cond c = Cond::all(std::move(dims));
  if (format == "contiguous_format") c = c || t.numel() == 0;
  const Truth known = ctx.known(c);
  if (known != Truth::Unknown) return Value::of_bool(known == Truth::True);
  return Value::of_cond(c);
}

}  // namespace

void register_symbolic(OpRegistry& r) {
  r.add("aten.sym_size", size_of);
  r.add("aten.sym_stride", stride_of);
  r.add("aten.sym_numel",
        [](OpContext& ctx) { return Value::of_int(ctx.simplify(ctx.tensor("self").numel())); });
  r.add("aten.sym_is_contiguous", sym_is_contiguous);
  r.add("aten.sym_storage_offset", [](OpContext& ctx) {
    ctx.tensor("self");
    return Value::of_int(0);
  });
  r.add("aten.size", size_of);
  r.add("aten.stride", stride_of);
  r.add("aten.numel",
        [](OpContext& ctx) { return Value::of_int(ctx.simplify(ctx.tensor("self").numel())); });
  r.add("aten.dim",
        [](OpContext& ctx) { return Value::of_int(static_cast<long>(ctx.tensor("self").rank())); });

  for (const char* prefix : {"operator.", "_operator."}) {
    const std::string p = prefix;
    r.add(p + "getitem",
          [](OpContext& ctx) { return validate::getitem(ctx, ctx.value("a"), ctx.constant("b")); });
    r.add(p + "add", arithmetic([](const Expr& a, const Expr& b) { return a + b; },
                                [](double a, double b) { return a + b; }));
    r.add(p + "sub", arithmetic([](const Expr& a, const Expr& b) { return a - b; },
                                [](double a, double b) { return a - b; }));
    r.add(p + "mul", arithmetic([](const Expr& a, const Expr& b) { return a * b; },
                                [](double a, double b) { return a * b; }));
    r.add(p + "floordiv", arithmetic([](const Expr& a, const Expr& b) { return floordiv(a, b); },
                                     [](double a, double b) { return std::floor(a / b); }));
    r.add(p + "mod", arithmetic([](const Expr& a, const Expr& b) { return mod(a, b); },
                                [](double a, double b) { return a - std::floor(a / b) * b; }));
    r.add(p + "truediv", [](OpContext& ctx) {
      return Value::of_float(as_double(ctx, ctx.value("a")) / as_double(ctx, ctx.value("b")));
    });
    r.add(p + "neg", [](OpContext& ctx) {
      Value a = ctx.value("a");
      if (a.kind == Value::Kind::Int) return Value::of_int(-a.integer);
      return Value::of_float(-as_double(ctx, a));
    });
    r.add(p + "eq", comparison(RelOp::Eq));
    r.add(p + "ne", comparison(RelOp::Ne));
    r.add(p + "lt", comparison(RelOp::Lt));
    r.add(p + "le", comparison(RelOp::Le));
    r.add(p + "gt", comparison(RelOp::Gt));
    r.add(p + "ge", comparison(RelOp::Ge));
  }
  r.add("torch.sym_max", arithmetic([](const Expr& a, const Expr& b) { return max(a, b); },
                                    [](double a, double b) { return std::max(a, b); }));
  r.add("torch.sym_min", arithmetic([](const Expr& a, const Expr& b) { return min(a, b); },
                                    [](double a, double b) { return std::min(a, b); }));
  r.add("aten._assert_scalar", assert_scalar);
  r.add("aten.sym_constrain_range", [](OpContext& ctx) { return constrain_range(ctx, false); });
  r.add("aten.sym_constrain_range_for_size",
        [](OpContext& ctx) { return constrain_range(ctx, true); });
  // Tensor-valued asserts carry no shape information.
  r.add("aten._assert_async", [](OpContext&) { return Value::none(); });
  r.add("aten._functional_assert_async",
        [](OpContext&) { return Value::of(contiguous(DType::Float32, {})); });
}

}  // namespace symshape::ops
