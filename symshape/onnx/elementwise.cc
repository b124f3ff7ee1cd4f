// ONNX's elementwise operators: unary math and activations, broadcasting binary and variadic
// arithmetic, comparisons and logic, Where, casts, and the softmax family (same shape).
#include "symshape/onnx/rules.h"
#include "symshape/ops/families.h"

namespace symshape::onnx {

namespace {

// Arithmetic on known integer elements (shape computations): nullptr when an op has no exact
// integer meaning here (the elements are left unknown).
using IntFn = std::function<std::optional<Expr>(OpContext&, const Expr&, const Expr&)>;

std::optional<Expr> known_nonnegative_floordiv(OpContext& ctx, const Expr& a, const Expr& b) {
  // ONNX's integer Div truncates; on non-negative operands that is Python's floor division.
  if (ctx.known(Cond::rel(RelOp::Ge, a, Expr(0))) != Truth::True) return std::nullopt;
  if (ctx.known(Cond::rel(RelOp::Gt, b, Expr(0))) != Truth::True) return std::nullopt;
  return floordiv(a, b);
}

Value broadcast_binary(Op& op, DType out_dtype, const IntFn& on_ints) {
  const TensorMeta a = op.tensor(0), b = op.tensor(1);
  Value out = tensor_value(out_dtype, ops::broadcast_shapes(op.ctx(), a.sizes, b.sizes));
  if (!on_ints || is_floating(out_dtype)) return out;
  std::optional<std::vector<Expr>> da = op.ints(0), db = op.ints(1);
  if (!da || !db) return out;
  bool exact = true;
  std::vector<Expr> sizes;
  auto elements = broadcast_elements(
      *da, a.sizes, *db, b.sizes,
      [&](const Expr& x, const Expr& y) {
        std::optional<Expr> r = on_ints(op.ctx(), x, y);
        if (!r) exact = false;
        return r ? op.ctx().simplify(*r) : Expr(0);
      },
      &sizes);
  if (!elements || !exact) return out;
  return int_tensor(out_dtype, out.tensor.sizes, std::move(*elements));
}

void same_type_binary(OpRegistry& r, const std::string& name, IntFn on_ints) {
  add(r, name, [on_ints](Op& op) {
    const DType a = op.tensor(0).dtype, b = op.tensor(1).dtype;
    if (a != b) {
      op.bad_input("inputs have different element types (" + std::string(to_string(a)) +
                   " and " + std::string(to_string(b)) + "); ONNX requires one type");
    }
    return broadcast_binary(op, a, on_ints);
  });
}

void unary(OpRegistry& r, const std::string& name) {
  add(r, name, [](Op& op) { return Value::of(ops::contiguous(op.tensor(0).dtype, op.tensor(0).sizes)); });
}

// Variadic with broadcasting: Sum, Mean, Max, Min.
void variadic(OpRegistry& r, const std::string& name) {
  add(r, name, [](Op& op) {
    if (op.num_inputs() == 0) op.bad_input("needs at least one input");
    TensorMeta t = op.tensor(0);
    std::vector<Expr> sizes = t.sizes;
    for (size_t i = 1; i < op.num_inputs(); ++i) {
      const TensorMeta next = op.tensor(i);
      if (next.dtype != t.dtype) op.bad_input("inputs have different element types");
      sizes = ops::broadcast_shapes(op.ctx(), sizes, next.sizes);
    }
    return tensor_value(t.dtype, sizes);
  });
}

}  // namespace

void add_elementwise_rules(OpRegistry& r) {
  for (const char* name :
       {"Abs",     "Neg",       "Ceil",      "Floor",     "Round",       "Sign",     "Reciprocal",
        "Sqrt",    "Exp",       "Log",       "Sin",       "Cos",         "Tan",      "Asin",
        "Acos",    "Atan",      "Sinh",      "Cosh",      "Asinh",       "Acosh",    "Atanh",
        "Erf",     "Tanh",      "Sigmoid",   "Relu",      "LeakyRelu",   "Elu",      "Selu",
        "Celu",    "HardSigmoid", "HardSwish", "Softplus", "Softsign",   "ThresholdedRelu",
        "Shrink",  "Identity",  "Not",       "BitwiseNot", "Mish",       "Gelu",     "Softmax",
        "LogSoftmax", "Hardmax", "LpNormalization", "MeanVarianceNormalization"}) {
    unary(r, name);
  }
  same_type_binary(r, "Add", [](OpContext&, const Expr& a, const Expr& b) { return a + b; });
  same_type_binary(r, "Sub", [](OpContext&, const Expr& a, const Expr& b) { return a - b; });
  same_type_binary(r, "Mul", [](OpContext&, const Expr& a, const Expr& b) { return a * b; });
  same_type_binary(r, "Div", known_nonnegative_floordiv);
  same_type_binary(r, "Mod", nullptr);
  same_type_binary(r, "BitShift", nullptr);
  same_type_binary(r, "BitwiseAnd", nullptr);
  same_type_binary(r, "BitwiseOr", nullptr);
  same_type_binary(r, "BitwiseXor", nullptr);
  same_type_binary(r, "And", nullptr);
  same_type_binary(r, "Or", nullptr);
  same_type_binary(r, "Xor", nullptr);
  // Pow's exponent may have another type; the result has the base's.
  add(r, "Pow", [](Op& op) { return broadcast_binary(op, op.tensor(0).dtype, nullptr); });
  for (const char* name : {"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"}) {
    add(r, name, [](Op& op) { return broadcast_binary(op, DType::Bool, nullptr); });
  }
  for (const char* name : {"Sum", "Mean", "Max", "Min"}) variadic(r, name);
  for (const char* name : {"IsNaN", "IsInf"}) {
    add(r, name, [](Op& op) { return tensor_value(DType::Bool, op.tensor(0).sizes); });
  }
}

}  // namespace symshape::onnx
