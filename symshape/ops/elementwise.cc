// Elementwise ops: broadcasting arithmetic, comparisons, unary math and activations.
#include "symshape/ops/families.h"

namespace symshape::ops {

namespace {

struct Operand {
  bool present = false;
  bool is_tensor = false;
  bool zero_dim = false;
  DType dtype = DType::Float32;
  std::vector<Expr> sizes;
  TensorMeta meta;  // a tensor's
};

Operand operand(const OpContext& ctx, std::string_view name) {
  Operand o;
  const Arg* a = ctx.arg(name);
  if (!a) return o;
  o.present = true;
  Value v = ctx.value_of(*a);
  switch (v.kind) {
    case Value::Kind::Tensor:
      o.is_tensor = true;
      o.dtype = v.tensor.dtype;
      o.sizes = v.tensor.sizes;
      o.zero_dim = v.tensor.rank() == 0;
      o.meta = std::move(v.tensor);
      break;
    case Value::Kind::Int: o.dtype = DType::Int64; break;
    case Value::Kind::Float: o.dtype = DType::Float32; break;
    case Value::Kind::Bool: o.dtype = DType::Bool; break;
    default:
      ctx.bad_input("argument '" + std::string(name) + "' must be a tensor or a number, got " +
                    a->str());
  }
  return o;
}

// PyTorch's combine_categories: the type of a higher-priority tier (`higher`) wins unless a
// lower tier (`lower`) is of a higher category, which then lifts it.
std::optional<DType> combine(std::optional<DType> higher, std::optional<DType> lower) {
  if (!higher) return lower;
  if (!lower) return higher;
  if (is_complex(*higher)) return higher;
  if (is_complex(*lower)) {
    // A floating higher keeps its precision as complex; an integral one takes lower's type.
    return is_floating(*higher) ? real_to_complex(*higher) : *lower;
  }
  if (is_floating(*higher)) return higher;
  if (*higher == DType::Bool || is_floating(*lower)) return promote_types(*higher, *lower);
  return higher;
}

// PyTorch's result type: dimensioned tensors decide; a 0-dim tensor or a Python scalar only
// raises the category (bool < integer < floating < complex). Each tier promotes within itself.
DType result_type(const std::vector<Operand>& ops) {
  std::optional<DType> tiers[3];
  for (const Operand& o : ops) {
    if (!o.present) continue;
    int tier = !o.is_tensor ? 2 : o.zero_dim ? 1 : 0;
    tiers[tier] = tiers[tier] ? promote_types(*tiers[tier], o.dtype) : o.dtype;
  }
  return combine(tiers[0], combine(tiers[1], tiers[2])).value_or(DType::Float32);
}

std::vector<Expr> broadcast_all(const OpContext& ctx, const std::vector<Operand>& ops) {
  std::vector<Expr> shape;
  for (const Operand& o : ops) {
    if (o.present && o.is_tensor) shape = broadcast_shapes(ctx, shape, o.sizes);
  }
  return shape;
}

enum class Out { Promoted, Bool, Floating, Same };

// The output of an elementwise op over ops, laid out as PyTorch's TensorIterator lays it out
// (symshape/ops/common.cc, elementwise_strides). Numbers are operands of TensorIterator when
// `numbers_count` (a binary op wraps them into 0-dim tensors); clamp's bounds are not.
TensorMeta laid_out(const OpContext& ctx, const std::vector<Operand>& ops, DType dtype,
                    std::vector<Expr> shape, bool numbers_count = true) {
  std::vector<const TensorMeta*> tensors;
  bool scalar = false;
  for (const Operand& o : ops) {
    if (!o.present) continue;
    if (o.is_tensor) tensors.push_back(&o.meta);
    if (o.is_tensor ? o.zero_dim : numbers_count) scalar = true;
  }
  TensorMeta out;
  out.dtype = dtype;
  out.strides = elementwise_strides(ctx, tensors, scalar, shape);
  out.sizes = std::move(shape);
  return out;
}

// A binary (or n-ary) op over the named operands; the first `required` of them
// must be given (all unless said otherwise: clamp's min and max are optional).
ShapeRule pointwise(std::vector<std::string> operands, Out out, size_t required = SIZE_MAX,
                    bool numbers_count = true) {
  return [operands, out, required, numbers_count](OpContext& ctx) {
    std::vector<Operand> ops;
    for (const std::string& name : operands) {
      ops.push_back(operand(ctx, name));
      if (ops.size() <= required && !ops.back().present) {
        ctx.bad_input("missing argument '" + name + "'");
      }
    }
    DType dtype = result_type(ops);
    switch (out) {
      case Out::Bool: dtype = DType::Bool; break;
      case Out::Floating: dtype = to_floating(dtype); break;
      case Out::Same: dtype = ops[0].dtype; break;
      case Out::Promoted: break;
    }
    return Value::of(laid_out(ctx, ops, dtype, broadcast_all(ctx, ops), numbers_count));
  };
}

const std::vector<std::string> kSelfOther = {"self", "other"};

}  // namespace

void register_elementwise(OpRegistry& r) {
  // Each op also gets its in-place form `<op>_`, which writes into self.
  auto add = [&r](const std::string& op, ShapeRule rule) {
    r.add("aten." + op + "_", in_place(rule));
    r.add("aten." + op, std::move(rule));
  };
  for (const char* op :
       {"add", "sub", "rsub", "mul", "maximum", "minimum", "remainder", "fmod", "bitwise_and",
        "bitwise_or", "bitwise_xor", "floor_divide", "fmax", "fmin"}) {
    add(op, pointwise(kSelfOther, Out::Promoted));
  }
  // Integer inputs compute in the default float type, as PyTorch's float-only kernels do.
  for (const char* op : {"copysign", "atan2", "xlogy"})
    add(op, pointwise(kSelfOther, Out::Floating));
  add("hypot", [](OpContext& ctx) {
    Value out = pointwise(kSelfOther, Out::Promoted)(ctx);
    if (!is_floating(out.tensor.dtype)) {
      ctx.bad_input("hypot is not implemented for " + std::string(to_string(out.tensor.dtype)) +
                    " tensors");
    }
    return out;
  });
  // True division (and pow with a float exponent) compute in floating point; div with a
  // rounding mode keeps integers.
  add("div", [](OpContext& ctx) {
    std::string mode = ctx.string("rounding_mode", "");
    return pointwise(kSelfOther, mode.empty() ? Out::Floating : Out::Promoted)(ctx);
  });
  add("true_divide", pointwise(kSelfOther, Out::Floating));
  add("pow", pointwise({"self", "exponent"}, Out::Promoted));
  for (const char* op :
       {"eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor"}) {
    add(op, pointwise(kSelfOther, Out::Bool));
  }
  r.add("aten.where", [](OpContext& ctx) {
    std::vector<Operand> ops = {operand(ctx, "condition"), operand(ctx, "self"),
                                operand(ctx, "other")};
    if (!ops[1].present || !ops[2].present) ctx.bad_input("where needs self and other");
    if (ops[0].is_tensor && ops[0].dtype != DType::Bool && ops[0].dtype != DType::UInt8) {
      ctx.bad_input(
          "where expected condition to be a boolean tensor, but got a tensor with dtype " +
          std::string(to_string(ops[0].dtype)));
    }
    std::vector<Expr> shape = broadcast_all(ctx, ops);
    return Value::of(laid_out(ctx, ops, result_type({ops[1], ops[2]}), shape));
  });
  // clamp(self, min=None, max=None): at least one bound; not defined on complex values.
  for (const char* op : {"clamp", "clip"}) {
    add(op, [](OpContext& ctx) {
      if (!ctx.has("min") && !ctx.has("max")) {
        ctx.bad_input("at least one of 'min' or 'max' must not be None");
      }
      Value out = pointwise({"self", "min", "max"}, Out::Promoted, 1, false)(ctx);
      if (is_complex(out.tensor.dtype)) ctx.bad_input("clamp is not supported for complex types");
      return out;
    });
  }
  add("lerp", pointwise({"self", "end", "weight"}, Out::Promoted, SIZE_MAX, false));
  add("addcmul", pointwise({"self", "tensor1", "tensor2"}, Out::Promoted));
  add("addcdiv", pointwise({"self", "tensor1", "tensor2"}, Out::Promoted));
  // masked_fill fills a contiguous clone of self broadcast with mask (PyTorch's masked_fill):
  // row-major whatever self's layout.
  add("masked_fill", [](OpContext& ctx) {
    Value out = pointwise({"self", "mask"}, Out::Same)(ctx);
    out.tensor.strides = TensorMeta::contiguous_strides(out.tensor.sizes);
    return out;
  });

  // Unary ops keeping the dtype, then those computing in floating point, then predicates.
  // abs of a complex tensor is its (real) magnitude.
  add("abs", [](OpContext& ctx) {
    ctx.tensor("self");
    std::vector<Operand> ops = {operand(ctx, "self")};
    const DType d = ops[0].dtype;
    return Value::of(laid_out(ctx, ops, is_complex(d) ? complex_to_real(d) : d, ops[0].sizes));
  });
  for (const char* op : {"neg", "relu", "sign", "floor", "ceil", "round", "trunc", "bitwise_not",
                         "hardtanh", "leaky_relu", "relu6"}) {
    add(op, pointwise({"self"}, Out::Same));
  }
  for (const char* op : {"fill", "zero", "elu", "celu", "selu", "hardshrink", "threshold",
                         "nan_to_num", "frac", "lift_fresh_copy"}) {
    add(op, pointwise({"self"}, Out::Same));
  }
  // Views of self (alias, detach; positive returns self): self's layout as it is.
  for (const char* op : {"alias", "detach", "positive"}) {
    add(op, [](OpContext& ctx) {
      TensorMeta t = ctx.tensor("self");
      if (t.strides.size() != t.rank()) t.strides = TensorMeta::contiguous_strides(t.sizes);
      return Value::of(t);
    });
  }
  // contiguous(self, memory_format=contiguous_format): row-major (other formats as before).
  add("contiguous", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor("self");
    return Value::of(contiguous(t.dtype, t.sizes));
  });
  // clone(self, memory_format=None): preserve (the default) lays the copy out as an elementwise
  // op over self; contiguous_format is row-major, channels_last(_3d) channels fastest.
  add("clone", [](OpContext& ctx) {
    const Arg* a = ctx.declares("memory_format") ? ctx.arg("memory_format") : nullptr;
    if (a && a->kind != Arg::Kind::None && a->text != "preserve_format") {
      TensorMeta t = ctx.tensor("self");
      TensorMeta out = contiguous(t.dtype, t.sizes);
      out.strides = memory_format_strides(ctx, t);
      return Value::of(out);
    }
    return pointwise({"self"}, Out::Same)(ctx);
  });
  // dropout(input, p, train) and dropout_(self, p, train); native_dropout_backward(grad_output,
  // mask, scale).
  add("dropout", [](OpContext& ctx) {
    return pointwise({ctx.declares("input") ? "input" : "self"}, Out::Same)(ctx);
  });
  add("native_dropout_backward", pointwise({"grad_output"}, Out::Same));
  // square is pow(self, 2): a bool tensor squares to int64.
  add("square", [](OpContext& ctx) {
    Value out = pointwise({"self"}, Out::Same)(ctx);
    if (out.tensor.dtype == DType::Bool) out.tensor.dtype = DType::Int64;
    return out;
  });
  // clamp_min(self, min) and clamp_max(self, max) promote like clamp: an int tensor clamped by
  // a float bound gives float32.
  for (const auto& [op, bound] : {std::pair{"clamp_min", "min"}, std::pair{"clamp_max", "max"}}) {
    add(op, [bound](OpContext& ctx) {
      if (!ctx.has(bound)) ctx.bad_input("missing argument '" + std::string(bound) + "'");
      Value out = pointwise({"self", bound}, Out::Promoted, SIZE_MAX, false)(ctx);
      if (is_complex(out.tensor.dtype)) ctx.bad_input("clamp is not supported for complex types");
      return out;
    });
  }
  for (const char* op :
       {"exp",     "exp2",      "expm1",       "log",      "log2",       "log10",       "log1p",
        "sqrt",    "rsqrt",     "sin",         "cos",      "tan",        "asin",        "acos",
        "atan",    "sinh",      "cosh",        "tanh",     "asinh",      "acosh",       "atanh",
        "sigmoid", "erf",       "erfc",        "erfinv",   "reciprocal", "gelu",        "silu",
        "mish",    "hardswish", "hardsigmoid", "softplus", "logit",      "log_sigmoid", "digamma",
        "lgamma",  "sinc"}) {
    add(op, pointwise({"self"}, Out::Floating));
  }
  for (const char* op :
       {"isnan", "isinf", "isfinite", "logical_not", "isneginf", "isposinf", "signbit"}) {
    add(op, pointwise({"self"}, Out::Bool));
  }
  // native_dropout returns (output, mask).
  r.add("aten.native_dropout", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor("input");
    ctx.real("p", 0.5);
    ctx.boolean("train", true);
    TensorMeta mask = contiguous(DType::Bool, t.sizes);
    return Value::list({Value::of(contiguous(t.dtype, t.sizes)), Value::of(mask)});
  });
}

}  // namespace symshape::ops
