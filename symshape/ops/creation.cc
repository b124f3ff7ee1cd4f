// Tensor creation (empty, zeros, full, arange, *_like, new_*) and dtype casts.
#include <cmath>

#include "symshape/ops/families.h"

namespace symshape::ops {

namespace {

std::vector<Expr> checked_sizes(const OpContext& ctx, std::vector<Expr> sizes) {
  for (Expr& s : sizes) {
    s = ctx.simplify(s);
    if (ctx.known(s >= 0) == Truth::False) {
      ctx.bad_input("size " + s.str() + " in " + shape_str(sizes) + " is negative");
    }
  }
  return sizes;
}

// factory(size, *, dtype=None, ...): float32 unless a dtype is given.
ShapeRule factory(size_t dtype_position) {
  return [dtype_position](OpContext& ctx) {
    std::vector<Expr> sizes = checked_sizes(ctx, ctx.int_list(0, "size"));
    return Value::of(contiguous(ctx.dtype(dtype_position, "dtype").value_or(DType::Float32), sizes));
  };
}

// The dtype of a fill value: bool, int64 for ints, float32 for floats.
DType scalar_dtype(const OpContext& ctx, size_t i, std::string_view name) {
  const Arg* a = ctx.arg(i, name);
  if (!a) return DType::Float32;
  Value v = ctx.value_of(*a);
  if (v.kind == Value::Kind::Bool) return DType::Bool;
  if (v.kind == Value::Kind::Int) return DType::Int64;
  if (v.kind == Value::Kind::Tensor) return v.tensor.dtype;
  return DType::Float32;
}

// like(self, *, dtype=None, ...): self's shape, self's dtype unless given.
ShapeRule like(size_t dtype_position) {
  return [dtype_position](OpContext& ctx) {
    TensorMeta t = ctx.tensor(0, "self");
    return Value::of(contiguous(ctx.dtype(dtype_position, "dtype").value_or(t.dtype), t.sizes));
  };
}

// new_*(self, size, *, dtype=None): the given size, self's dtype unless given.
ShapeRule new_like(size_t dtype_position) {
  return [dtype_position](OpContext& ctx) {
    TensorMeta t = ctx.tensor(0, "self");
    std::vector<Expr> sizes = checked_sizes(ctx, ctx.int_list(1, "size"));
    return Value::of(contiguous(ctx.dtype(dtype_position, "dtype").value_or(t.dtype), sizes));
  };
}

bool is_float_arg(const OpContext& ctx, size_t i, std::string_view name) {
  const Arg* a = ctx.arg(i, name);
  return a && ctx.value_of(*a).kind == Value::Kind::Float;
}

// arange(end) / arange(start, end) / arange(start, end, step): ceil((end - start) / step)
// elements, never negative. Integer bounds may be symbolic.
Value arange(OpContext& ctx, bool has_start, bool has_step) {
  const size_t end_pos = has_start ? 1 : 0;
  const size_t dtype_pos = has_start ? (has_step ? 3 : 2) : 1;
  const bool floating = is_float_arg(ctx, 0, has_start ? "start" : "end") ||
                        (has_start && is_float_arg(ctx, 1, "end")) ||
                        (has_step && is_float_arg(ctx, 2, "step"));
  DType dtype = ctx.dtype(dtype_pos, "dtype").value_or(floating ? DType::Float32 : DType::Int64);
  Expr length;
  if (floating) {
    double start = has_start ? ctx.real(0, "start", 0) : 0;
    double end = ctx.real(end_pos, "end", 0);
    double step = has_step ? ctx.real(2, "step", 1) : 1;
    if (step == 0 || !std::isfinite(start) || !std::isfinite(end) || !std::isfinite(step)) {
      ctx.bad_input("arange needs finite bounds and a nonzero step");
    }
    double n = std::ceil((end - start) / step);
    if (n > 9.0e15) ctx.bad_input("arange would have more elements than can be counted exactly");
    length = Expr(static_cast<long>(std::max(n, 0.0)));
  } else {
    Expr start = has_start ? ctx.integer(0, "start") : Expr(0);
    Expr end = ctx.integer(end_pos, "end");
    Expr step = has_step ? ctx.integer(2, "step") : Expr(1);
    if (ctx.known(step == 0) == Truth::True) ctx.bad_input("arange step must be nonzero");
    if (ctx.known(step != 0) != Truth::True && ctx.decide(step == 0, "arange_step")) {
      ctx.bad_input("arange step must be nonzero");
    }
    length = ctx.simplify(max(ceildiv(end - start, step), Expr(0)));
  }
  return Value::of(contiguous(dtype, {length}));
}

Value cast(OpContext& ctx, size_t dtype_position) {
  TensorMeta t = ctx.tensor(0, "self");
  DType d = ctx.dtype(dtype_position, "dtype").value_or(t.dtype);
  // Strides follow the input (memory_format=preserve), so keep them.
  t.dtype = d;
  return Value::of(t);
}

}  // namespace

void register_creation(OpRegistry& r) {
  for (const char* op : {"aten.empty", "aten.zeros", "aten.ones", "aten.rand", "aten.randn"}) {
    r.add(op, factory(1));
  }
  r.add("aten.empty.memory_format", factory(1));
  r.add("aten.full", [](OpContext& ctx) {
    std::vector<Expr> sizes = checked_sizes(ctx, ctx.int_list(0, "size"));
    DType d = ctx.dtype(2, "dtype").value_or(scalar_dtype(ctx, 1, "fill_value"));
    return Value::of(contiguous(d, sizes));
  });
  r.add("aten.empty_strided", [](OpContext& ctx) {
    std::vector<Expr> sizes = checked_sizes(ctx, ctx.int_list(0, "size"));
    std::vector<Expr> strides = ctx.int_list(1, "stride");
    if (strides.size() != sizes.size()) ctx.bad_input("empty_strided: size and stride differ in length");
    TensorMeta t = contiguous(ctx.dtype(2, "dtype").value_or(DType::Float32), sizes);
    t.strides = strides;
    return Value::of(t);
  });
  r.add("aten.randint", [](OpContext& ctx) {
    // randint(high, size) / randint.low(low, high, size): int64 by default.
    const bool low = ctx.node().target.find(".low") != std::string::npos;
    std::vector<Expr> sizes = checked_sizes(ctx, ctx.int_list(low ? 2 : 1, "size"));
    return Value::of(contiguous(ctx.dtype(low ? 3 : 2, "dtype").value_or(DType::Int64), sizes));
  });
  for (const char* op : {"aten.empty_like", "aten.zeros_like", "aten.ones_like", "aten.rand_like",
                         "aten.randn_like", "aten.randint_like"}) {
    r.add(op, like(1));
  }
  r.add("aten.full_like", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor(0, "self");
    return Value::of(contiguous(ctx.dtype(2, "dtype").value_or(t.dtype), t.sizes));
  });
  for (const char* op : {"aten.new_empty", "aten.new_zeros", "aten.new_ones"}) r.add(op, new_like(2));
  r.add("aten.new_full", new_like(3));
  r.add("aten.new_empty_strided", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor(0, "self");
    TensorMeta out = contiguous(ctx.dtype(3, "dtype").value_or(t.dtype), checked_sizes(ctx, ctx.int_list(1, "size")));
    out.strides = ctx.int_list(2, "stride");
    return Value::of(out);
  });
  r.add("aten.scalar_tensor", [](OpContext& ctx) {
    return Value::of(contiguous(ctx.dtype(1, "dtype").value_or(DType::Float32), {}));
  });
  r.add("aten.arange", [](OpContext& ctx) { return arange(ctx, false, false); });
  r.add("aten.arange.default", [](OpContext& ctx) { return arange(ctx, false, false); });
  r.add("aten.arange.start", [](OpContext& ctx) { return arange(ctx, true, false); });
  r.add("aten.arange.start_step", [](OpContext& ctx) { return arange(ctx, true, true); });
  r.add("aten.linspace", [](OpContext& ctx) {
    Expr steps = ctx.integer(2, "steps");
    if (ctx.known(steps >= 0) == Truth::False) ctx.bad_input("linspace needs a non-negative number of steps");
    return Value::of(contiguous(ctx.dtype(3, "dtype").value_or(DType::Float32), {steps}));
  });
  r.add("aten.eye", [](OpContext& ctx) {
    Expr n = ctx.integer(0, "n");
    // eye(n, *, dtype) or eye.m(n, m, *, dtype)
    const bool has_m = ctx.node().target.find(".m") != std::string::npos;
    Expr m = has_m ? ctx.integer(1, "m") : n;
    return Value::of(contiguous(ctx.dtype(has_m ? 2 : 1, "dtype").value_or(DType::Float32),
                                checked_sizes(ctx, {n, m})));
  });
  // Casts: _to_copy(self, *, dtype), to.dtype(self, dtype), to.dtype_layout(self, *, dtype),
  // to.device(self, device, dtype), type_as(self, other), _to_dtype and friends.
  r.add("aten._to_copy", [](OpContext& ctx) { return cast(ctx, 1); });
  r.add("aten.to.dtype", [](OpContext& ctx) { return cast(ctx, 1); });
  r.add("aten.to.dtype_layout", [](OpContext& ctx) { return cast(ctx, 1); });
  r.add("aten.to.device", [](OpContext& ctx) { return cast(ctx, 2); });
  r.add("aten.to.other", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor(0, "self");
    t.dtype = ctx.tensor(1, "other").dtype;
    return Value::of(t);
  });
  r.add("aten.type_as", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor(0, "self");
    t.dtype = ctx.tensor(1, "other").dtype;
    return Value::of(t);
  });
  r.add("aten.copy", [](OpContext& ctx) {
    TensorMeta self = ctx.tensor(0, "self");
    TensorMeta src = ctx.tensor(1, "src");
    // src must broadcast to self.
    std::vector<Expr> shape = broadcast_shapes(ctx, self.sizes, src.sizes);
    if (shape.size() != self.rank()) ctx.fail("copy: source " + shape_str(src.sizes) + " has more dims than " + shape_str(self.sizes));
    return Value::of(self);
  });
}

}  // namespace symshape::ops
