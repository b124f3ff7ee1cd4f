// ONNX's elementwise operators: unary math and activations, broadcasting binary and variadic
// arithmetic, comparisons and logic, Where, Clip, PRelu, the random *Like generators and the
// softmax family (same shape). On small int tensors with known elements (shape arithmetic) the
// arithmetic, comparisons, logic and Where compute the elements too, exactly and symbolically.
#include "symshape/onnx/rules.h"
#include "symshape/ops/families.h"

namespace symshape::onnx {

namespace {

// Arithmetic on known integer elements (shape computations): nullopt when an element has no
// exact integer value here (the elements are left unknown).
using IntFn = std::function<std::optional<Expr>(OpContext&, const Expr&, const Expr&)>;

// C's truncating division and remainder of constants (ONNX's integer Div and Mod with fmod=1).
std::optional<Expr> truncating(OpContext& ctx, const Expr& a, const Expr& b, bool remainder) {
  std::optional<int64_t> x = ctx.simplify(a).as_int64(), y = ctx.simplify(b).as_int64();
  if (!x || !y || *y == 0) return std::nullopt;
  if (*y == -1) return remainder ? Expr(0) : Expr(0) - Expr(static_cast<long long>(*x));
  return Expr(static_cast<long long>(remainder ? *x % *y : *x / *y));
}

std::optional<Expr> integer_div(OpContext& ctx, const Expr& a, const Expr& b) {
  if (std::optional<Expr> c = truncating(ctx, a, b, false)) return c;
  // ONNX's integer Div truncates; on non-negative operands that is Python's floor division.
  if (ctx.known(Cond::rel(RelOp::Ge, a, Expr(0))) != Truth::True) return std::nullopt;
  if (ctx.known(Cond::rel(RelOp::Gt, b, Expr(0))) != Truth::True) return std::nullopt;
  return floordiv(a, b);
}

// Mod with fmod=0 is Python's % (the sign of the divisor); fmod=1 is C's fmod (the dividend's).
std::optional<Expr> python_mod(OpContext& ctx, const Expr& a, const Expr& b) {
  if (ctx.known(Cond::rel(RelOp::Ne, b, Expr(0))) != Truth::True) return std::nullopt;
  return mod(a, b);
}
std::optional<Expr> c_fmod(OpContext& ctx, const Expr& a, const Expr& b) {
  if (std::optional<Expr> c = truncating(ctx, a, b, true)) return c;
  if (ctx.known(Cond::rel(RelOp::Ge, a, Expr(0))) != Truth::True) return std::nullopt;
  if (ctx.known(Cond::rel(RelOp::Gt, b, Expr(0))) != Truth::True) return std::nullopt;
  return mod(a, b);
}

// A comparison on known elements: a known bool (0 or 1) when the env decides it statically.
IntFn compare(RelOp rel) {
  return [rel](OpContext& ctx, const Expr& a, const Expr& b) -> std::optional<Expr> {
    switch (ctx.known(Cond::rel(rel, a, b))) {
      case Truth::True: return Expr(1);
      case Truth::False: return Expr(0);
      case Truth::Unknown: break;
    }
    return std::nullopt;
  };
}

// Logic on known bools (0 / 1 constants).
IntFn logic(bool (*f)(bool, bool)) {
  return [f](OpContext& ctx, const Expr& a, const Expr& b) -> std::optional<Expr> {
    std::optional<int64_t> x = ctx.simplify(a).as_int64(), y = ctx.simplify(b).as_int64();
    if (!x || !y) return std::nullopt;
    return Expr(f(*x != 0, *y != 0) ? 1 : 0);
  };
}

// Known elements of a's and b's broadcast, each element from on_ints; nullopt when an input's
// elements are unknown or on_ints has no exact value for one.
std::optional<std::vector<Expr>> combine(Op& op, const Value& a, const Value& b,
                                         const IntFn& on_ints, std::vector<Expr>* sizes) {
  if (!on_ints || !a.data || !b.data || a.data->real || b.data->real) return std::nullopt;
  bool exact = true;
  std::vector<Expr> as = a.tensor.sizes, bs = b.tensor.sizes;
  for (Expr& e : as) e = op.ctx().simplify(e);
  for (Expr& e : bs) e = op.ctx().simplify(e);
  auto elements = broadcast_elements(
      a.data->ints, as, b.data->ints, bs,
      [&](const Expr& x, const Expr& y) {
        std::optional<Expr> r = exact ? on_ints(op.ctx(), x, y) : std::nullopt;
        if (!r) exact = false;
        return r ? op.ctx().simplify(*r) : Expr(0);
      },
      sizes);
  if (!elements || !exact) return std::nullopt;
  return elements;
}

Value broadcast_binary(Op& op, DType out_dtype, const IntFn& on_ints) {
  const TensorMeta a = op.tensor(0), b = op.tensor(1);
  Value out = tensor_value(out_dtype, ops::broadcast_shapes(op.ctx(), a.sizes, b.sizes));
  if (is_floating(out_dtype)) return out;
  std::vector<Expr> sizes;
  std::optional<std::vector<Expr>> elements =
      combine(op, op.input(0), op.input(1), on_ints, &sizes);
  if (!elements) return out;
  return int_tensor(out_dtype, out.tensor.sizes, std::move(*elements));
}

void same_type_binary(OpRegistry& r, const std::string& name, IntFn on_ints) {
  add(r, name, [on_ints](Op& op) {
    const DType a = op.tensor(0).dtype, b = op.tensor(1).dtype;
    if (a != b) {
      op.bad_input("inputs have different element types (" + std::string(to_string(a)) + " and " +
                   std::string(to_string(b)) + "); ONNX requires one type");
    }
    return broadcast_binary(op, a, on_ints);
  });
}

void unary(OpRegistry& r, const std::string& name) {
  add(r, name, [](Op& op) { return tensor_value(op.tensor(0).dtype, op.tensor(0).sizes); });
}

// A unary op that maps known integer elements one by one (nullopt: no exact value).
void unary_ints(OpRegistry& r, const std::string& name,
                std::function<std::optional<Expr>(OpContext&, const Expr&)> f) {
  add(r, name, [f](Op& op) {
    const Value in = op.input(0);
    if (!in.is_tensor()) op.bad_input("input is not a tensor");
    Value out = tensor_value(in.tensor.dtype, in.tensor.sizes);
    if (!in.data || in.data->real) return out;
    auto data = std::make_shared<KnownData>();
    for (const Expr& e : in.data->ints) {
      std::optional<Expr> v = f(op.ctx(), e);
      if (!v) return out;
      data->ints.push_back(op.ctx().simplify(*v));
    }
    out.data = std::move(data);
    return out;
  });
}

// Variadic with broadcasting: Sum, Mean, Max, Min.
void variadic(OpRegistry& r, const std::string& name, IntFn on_ints) {
  add(r, name, [on_ints](Op& op) {
    if (op.num_inputs() == 0) op.bad_input("needs at least one input");
    Value acc = op.input(0);
    if (!acc.is_tensor()) op.bad_input("input 0 is not a tensor");
    const DType dtype = acc.tensor.dtype;
    for (size_t i = 1; i < op.num_inputs(); ++i) {
      const TensorMeta next = op.tensor(i);
      if (next.dtype != dtype) op.bad_input("inputs have different element types");
      std::vector<Expr> sizes = ops::broadcast_shapes(op.ctx(), acc.tensor.sizes, next.sizes);
      std::vector<Expr> known_sizes;
      std::optional<std::vector<Expr>> e =
          is_floating(dtype) ? std::nullopt : combine(op, acc, op.input(i), on_ints, &known_sizes);
      acc = e ? int_tensor(dtype, sizes, std::move(*e)) : tensor_value(dtype, sizes);
    }
    Value out = tensor_value(dtype, acc.tensor.sizes);
    if (!is_floating(dtype) && acc.data && on_ints) out.data = acc.data;
    return out;
  });
}

// The index of each element of a broadcast into out (constant sizes) in an input of `in` sizes.
std::optional<std::vector<size_t>> broadcast_index(const std::vector<int64_t>& in,
                                                   const std::vector<int64_t>& out) {
  if (in.size() > out.size()) return std::nullopt;
  const size_t rank = out.size();
  std::vector<int64_t> s(rank, 1);
  for (size_t d = 0; d < in.size(); ++d) s[rank - in.size() + d] = in[d];
  int64_t n = 1;
  for (int64_t v : out) {
    if (v < 0 || v > 4096) return std::nullopt;
    n *= v;
    if (n > 4096) return std::nullopt;
  }
  std::vector<size_t> result;
  std::vector<int64_t> index(rank, 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t o = 0;
    for (size_t d = 0; d < rank; ++d) o = o * s[d] + (s[d] == 1 ? 0 : index[d]);
    result.push_back(static_cast<size_t>(o));
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < out[d]) break;
      index[d] = 0;
    }
  }
  return result;
}

Value where_rule(Op& op) {
  const TensorMeta c = op.tensor(0), x = op.tensor(1), y = op.tensor(2);
  if (c.dtype != DType::Bool) op.bad_input("condition must be bool, got " + c.str());
  if (x.dtype != y.dtype) {
    op.bad_input("X and Y have different element types (" + std::string(to_string(x.dtype)) +
                 " and " + std::string(to_string(y.dtype)) + ")");
  }
  std::vector<Expr> sizes =
      ops::broadcast_shapes(op.ctx(), ops::broadcast_shapes(op.ctx(), c.sizes, x.sizes), y.sizes);
  Value out = tensor_value(x.dtype, sizes);
  std::optional<std::vector<int64_t>> cond = op.constants(0);
  std::optional<std::vector<Expr>> xs = op.ints(1), ys = op.ints(2);
  std::optional<std::vector<int64_t>> shape = constant_sizes(op, sizes);
  std::optional<std::vector<int64_t>> cs = constant_sizes(op, c.sizes),
                                      xss = constant_sizes(op, x.sizes),
                                      yss = constant_sizes(op, y.sizes);
  if (!cond || !xs || !ys || !shape || !cs || !xss || !yss) return out;
  auto ci = broadcast_index(*cs, *shape), xi = broadcast_index(*xss, *shape),
       yi = broadcast_index(*yss, *shape);
  if (!ci || !xi || !yi) return out;
  std::vector<Expr> elements;
  for (size_t k = 0; k < ci->size(); ++k) {
    const size_t a = (*ci)[k], b = (*xi)[k], e = (*yi)[k];
    if (a >= cond->size() || b >= xs->size() || e >= ys->size()) return out;
    elements.push_back((*cond)[a] != 0 ? (*xs)[b] : (*ys)[e]);
  }
  return int_tensor(x.dtype, sizes, std::move(elements));
}

Value clip_rule(Op& op) {
  const Value in = op.input(0);
  const TensorMeta x = op.tensor(0);
  Value out = tensor_value(x.dtype, x.sizes);
  for (size_t i : {size_t{1}, size_t{2}}) {
    if (!op.has_input(i)) continue;
    const TensorMeta bound = op.tensor(i);
    if (bound.rank() != 0 &&
        !(bound.rank() == 1 && op.ctx().simplify(bound.sizes[0]).as_int64() == 1)) {
      op.bad_input(std::string(i == 1 ? "min" : "max") + " must be a scalar, got " + bound.str());
    }
    if (bound.dtype != x.dtype) op.bad_input("min and max must have the input's element type");
  }
  if (!in.data || in.data->real || is_floating(x.dtype)) return out;
  std::optional<Expr> lo, hi;
  auto scalar = [&](size_t i) -> std::optional<std::optional<Expr>> {
    if (!op.has_input(i)) return std::optional<Expr>();
    std::optional<std::vector<Expr>> e = op.ints(i);
    if (!e || e->size() != 1) return std::nullopt;
    return std::optional<Expr>((*e)[0]);
  };
  std::optional<std::optional<Expr>> a = scalar(1), b = scalar(2);
  if (!a || !b) return out;
  auto data = std::make_shared<KnownData>();
  for (Expr e : in.data->ints) {
    if (*a) e = max(e, **a);
    if (*b) e = min(e, **b);
    data->ints.push_back(op.ctx().simplify(e));
  }
  out.data = std::move(data);
  return out;
}

Value prelu_rule(Op& op) {
  const TensorMeta x = op.tensor(0), slope = op.tensor(1);
  if (slope.dtype != x.dtype) op.bad_input("slope must have the input's element type");
  // Unidirectional: slope broadcasts to X, and the result has X's shape.
  if (slope.rank() > x.rank()) {
    op.bad_input("slope " + slope.str() + " does not broadcast to X " + x.str());
  }
  std::vector<Expr> sizes = ops::broadcast_shapes(op.ctx(), x.sizes, slope.sizes);
  for (size_t d = 0; d < x.rank(); ++d) {
    op.ctx().require_equal(sizes[d], x.sizes[d], "prelu", [&] {
      return "slope " + slope.str() + " does not broadcast to X " + x.str();
    });
  }
  return tensor_value(x.dtype, x.sizes);
}

}  // namespace

void add_elementwise_rules(OpRegistry& r) {
  for (const char* name : {"Ceil",
                           "Floor",
                           "Round",
                           "Sign",
                           "Reciprocal",
                           "Sqrt",
                           "Exp",
                           "Log",
                           "Sin",
                           "Cos",
                           "Tan",
                           "Asin",
                           "Acos",
                           "Atan",
                           "Sinh",
                           "Cosh",
                           "Asinh",
                           "Acosh",
                           "Atanh",
                           "Erf",
                           "Tanh",
                           "Sigmoid",
                           "Relu",
                           "LeakyRelu",
                           "Elu",
                           "Selu",
                           "Celu",
                           "HardSigmoid",
                           "HardSwish",
                           "Softplus",
                           "Softsign",
                           "ThresholdedRelu",
                           "Shrink",
                           "BitwiseNot",
                           "Mish",
                           "Gelu",
                           "Softmax",
                           "LogSoftmax",
                           "Hardmax",
                           "LpNormalization",
                           "MeanVarianceNormalization"}) {
    unary(r, name);
  }
  unary_ints(r, "Identity", [](OpContext&, const Expr& a) { return a; });
  unary_ints(r, "Neg", [](OpContext&, const Expr& a) { return Expr(0) - a; });
  unary_ints(r, "Abs", [](OpContext& ctx, const Expr& a) -> std::optional<Expr> {
    if (ctx.known(Cond::rel(RelOp::Ge, a, Expr(0))) == Truth::True) return a;
    if (ctx.known(Cond::rel(RelOp::Le, a, Expr(0))) == Truth::True) return Expr(0) - a;
    return max(a, Expr(0) - a);
  });
  unary_ints(r, "Not", [](OpContext& ctx, const Expr& a) -> std::optional<Expr> {
    std::optional<int64_t> c = ctx.simplify(a).as_int64();
    if (!c) return std::nullopt;
    return Expr(*c == 0 ? 1 : 0);
  });
  auto exact = [](Expr (*f)(const Expr&, const Expr&)) -> IntFn {
    return [f](OpContext&, const Expr& a, const Expr& b) -> std::optional<Expr> { return f(a, b); };
  };
  same_type_binary(r, "Add", [](OpContext&, const Expr& a, const Expr& b) -> std::optional<Expr> {
    return a + b;
  });
  same_type_binary(r, "Sub", [](OpContext&, const Expr& a, const Expr& b) -> std::optional<Expr> {
    return a - b;
  });
  same_type_binary(r, "Mul", [](OpContext&, const Expr& a, const Expr& b) -> std::optional<Expr> {
    return a * b;
  });
  same_type_binary(r, "Div", integer_div);
  add(r, "Mod", [](Op& op) {
    const DType a = op.tensor(0).dtype, b = op.tensor(1).dtype;
    if (a != b) op.bad_input("inputs have different element types");
    const bool fmod = op.attr_int("fmod", 0) != 0;
    if (!fmod && is_floating(a)) op.bad_input("fmod must be 1 for floating inputs");
    return broadcast_binary(op, a, fmod ? IntFn(c_fmod) : IntFn(python_mod));
  });
  same_type_binary(r, "BitShift", nullptr);
  same_type_binary(r, "BitwiseAnd", nullptr);
  same_type_binary(r, "BitwiseOr", nullptr);
  same_type_binary(r, "BitwiseXor", nullptr);
  same_type_binary(r, "And", logic([](bool a, bool b) { return a && b; }));
  same_type_binary(r, "Or", logic([](bool a, bool b) { return a || b; }));
  same_type_binary(r, "Xor", logic([](bool a, bool b) { return a != b; }));
  // Pow's exponent may have another type; the result has the base's.
  add(r, "Pow", [](Op& op) { return broadcast_binary(op, op.tensor(0).dtype, nullptr); });
  for (auto [name, rel] : {std::pair<const char*, RelOp>{"Equal", RelOp::Eq},
                           {"Less", RelOp::Lt},
                           {"Greater", RelOp::Gt},
                           {"LessOrEqual", RelOp::Le},
                           {"GreaterOrEqual", RelOp::Ge}}) {
    add(r, name, [rel = rel](Op& op) {
      if (op.tensor(0).dtype != op.tensor(1).dtype) {
        op.bad_input("inputs have different element types");
      }
      return broadcast_binary(op, DType::Bool, compare(rel));
    });
  }
  variadic(r, "Sum",
           [](OpContext&, const Expr& a, const Expr& b) -> std::optional<Expr> { return a + b; });
  variadic(r, "Mean", nullptr);
  variadic(r, "Max", exact(max));
  variadic(r, "Min", exact(min));
  for (const char* name : {"IsNaN", "IsInf"}) {
    add(r, name, [](Op& op) { return tensor_value(DType::Bool, op.tensor(0).sizes); });
  }
  add(r, "Where", where_rule);
  add(r, "Clip", clip_rule);
  add(r, "PRelu", prelu_rule);
}

}  // namespace symshape::onnx
