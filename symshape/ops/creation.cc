// Tensor creation (empty, zeros, full, arange, *_like, new_*) and dtype casts.
#include <cmath>
#include <cstdint>

#include "symshape/ops/families.h"

namespace symshape::ops {

namespace {

// Sizes for a new tensor: each must be non-negative (a guard, or a runtime assert for a
// data-dependent size, when not static).
std::vector<Expr> checked_sizes(const OpContext& ctx, std::vector<Expr> sizes) {
  for (Expr& s : sizes) {
    s = ctx.simplify(s);
    const std::string message = "size " + s.str() + " in " + shape_str(sizes) + " is negative";
    if (ctx.known(s >= 0) == Truth::False) ctx.bad_input(message);
    require(ctx, s >= 0, "size_nonnegative", message);
  }
  return sizes;
}

// Strides for empty_strided: none negative (a guard when symbolic).
std::vector<Expr> checked_strides(const OpContext& ctx, std::vector<Expr> strides) {
  for (Expr& s : strides) {
    s = ctx.simplify(s);
    const std::string message = "negative stride " + s.str();
    if (ctx.known(s >= 0) == Truth::False) ctx.fail(message);
    require(ctx, s >= 0, "stride_nonnegative", message);
  }
  return strides;
}

// factory(size, *, dtype=None, ...): float32 unless a dtype is given.
Value factory(OpContext& ctx) {
  std::vector<Expr> sizes = checked_sizes(ctx, ctx.int_list("size"));
  return Value::of(contiguous(ctx.dtype("dtype").value_or(DType::Float32), sizes));
}

// The dtype of a fill value: bool, int64 for ints, float32 for floats.
DType scalar_dtype(const OpContext& ctx, std::string_view name) {
  const Arg* a = ctx.arg(name);
  if (!a) return DType::Float32;
  Value v = ctx.value_of(*a);
  if (v.kind == Value::Kind::Bool) return DType::Bool;
  if (v.kind == Value::Kind::Int) return DType::Int64;
  if (v.kind == Value::Kind::Tensor) return v.tensor.dtype;
  return DType::Float32;
}

}  // namespace

// Strides of a fresh tensor shaped like t under a memory_format argument: contiguous,
// channels_last (rank 4) / channels_last_3d (rank 5), or preserve (the default): t's strides
// when they are stored and none is a broadcast 0, else contiguous.
std::vector<Expr> memory_format_strides(const OpContext& ctx, const TensorMeta& t) {
  const Arg* a = ctx.declares("memory_format") ? ctx.arg("memory_format") : nullptr;
  const std::string format = a ? a->text : "preserve_format";
  if (format == "channels_last" || format == "channels_last_3d") {
    const size_t rank = format == "channels_last" ? 4 : 5;
    if (t.rank() != rank) {
      ctx.bad_input(format + " needs a tensor of rank " + std::to_string(rank) + ", got " +
                    shape_str(t.sizes));
    }
    return channels_last_strides(ctx, t.sizes);
  }
  bool keep = format == "preserve_format" && t.strides.size() == t.rank();
  for (size_t d = 0; keep && d < t.rank(); ++d) {
    keep = !(t.strides[d].is_constant() && t.strides[d].identical(Expr(0)) &&
             ctx.known(t.sizes[d] == 1) != Truth::True);
  }
  return keep ? t.strides : TensorMeta::contiguous_strides(t.sizes);
}

namespace {

// like(self, *, dtype=None, ..., memory_format=None): self's shape, self's dtype unless given.
Value like(OpContext& ctx) {
  TensorMeta t = ctx.tensor("self");
  TensorMeta out = contiguous(ctx.dtype("dtype").value_or(t.dtype), t.sizes);
  out.strides = memory_format_strides(ctx, t);
  return Value::of(out);
}

// new_*(self, size, *, dtype=None): the given size, self's dtype unless given.
Value new_like(OpContext& ctx) {
  TensorMeta t = ctx.tensor("self");
  std::vector<Expr> sizes = checked_sizes(ctx, ctx.int_list("size"));
  return Value::of(contiguous(ctx.dtype("dtype").value_or(t.dtype), sizes));
}

bool is_float_arg(const OpContext& ctx, std::string_view name) {
  const Arg* a = ctx.arg(name);
  return a && ctx.value_of(*a).kind == Value::Kind::Float;
}

// A number argument's exact value: a float literal or a constant int. nullopt for a symbolic
// int or a float computed by a node (whose value is not tracked).
std::optional<double> literal_number(const OpContext& ctx, std::string_view name) {
  const Arg* a = ctx.arg(name);
  if (!a) ctx.bad_input("missing argument '" + std::string(name) + "'");
  if (a->kind == Arg::Kind::Float) return a->real;
  Value v = ctx.value_of(*a);
  if (v.kind == Value::Kind::Int) {
    if (auto c = ctx.simplify(v.integer).as_int64()) return static_cast<double>(*c);
    return std::nullopt;
  }
  if (v.kind == Value::Kind::Float) return std::nullopt;
  ctx.bad_input("argument '" + std::string(name) + "' must be a number, got " + a->str());
}

// arange(end) / arange(start, end) / arange(start, end, step): ceil((end - start) / step)
// elements. As in PyTorch, the step must be nonzero and the bounds agree with its sign (a guard
// when symbolic). Integer bounds may be symbolic; floating ones are computed in double, except
// that an int64 result truncates them to integers first (as ATen and torch._refs do).
Value arange(OpContext& ctx) {
  const bool has_start = ctx.declares("start"), has_step = ctx.declares("step");
  const bool floating = is_float_arg(ctx, has_start ? "start" : "end") ||
                        (has_start && is_float_arg(ctx, "end")) ||
                        (has_step && is_float_arg(ctx, "step"));
  DType dtype = ctx.dtype("dtype").value_or(floating ? DType::Float32 : DType::Int64);
  const std::string inconsistent =
      "arange: upper bound and lower bound inconsistent with step sign";
  Expr length;
  if (floating) {
    std::optional<double> a = has_start ? literal_number(ctx, "start") : 0.0;
    std::optional<double> b = literal_number(ctx, "end");
    std::optional<double> c = has_step ? literal_number(ctx, "step") : 1.0;
    if (!a || !b || !c) {
      // A floating bound whose value is not known here: the length is data-dependent.
      return Value::of(contiguous(dtype, {ctx.new_unbacked_size()}));
    }
    double start = *a, end = *b, step = *c;
    if (!std::isfinite(start) || !std::isfinite(end) || !std::isfinite(step)) {
      ctx.bad_input("arange needs finite bounds and step");
    }
    if (dtype == DType::Int64) {
      start = std::trunc(start);
      end = std::trunc(end);
      step = std::trunc(step);
    }
    if (step == 0) ctx.bad_input("arange step must be nonzero");
    if ((step > 0 && end < start) || (step < 0 && end > start)) ctx.bad_input(inconsistent);
    double n = std::ceil((end - start) / step);
    if (n > 9.0e15) ctx.bad_input("arange would have more elements than can be counted exactly");
    length = Expr(static_cast<long>(n));
  } else {
    Expr start = has_start ? ctx.integer("start") : Expr(0);
    Expr end = ctx.integer("end");
    Expr step = has_step ? ctx.integer("step") : Expr(1);
    if (ctx.known(step != 0) != Truth::True && ctx.decide(step == 0, "arange_step")) {
      ctx.bad_input("arange step must be nonzero");
    }
    const bool ascending =
        ctx.known(step > 0) == Truth::True ||
        (ctx.known(step < 0) != Truth::True && ctx.decide(step > 0, "arange_step"));
    Cond consistent = ascending ? end >= start : end <= start;
    Truth t = ctx.known(consistent);
    if (t == Truth::False) ctx.bad_input(inconsistent);
    if (t == Truth::Unknown) {
      if (ctx.is_data_dependent(end - start)) {
        ctx.assert_runtime(consistent, "arange_bounds");
      } else if (!ctx.decide(consistent, "arange_bounds")) {
        ctx.bad_input(inconsistent);
      }
    }
    length = ctx.simplify(ceildiv(end - start, step));
  }
  return Value::of(contiguous(dtype, {length}));
}

// A copy in another dtype; strides follow memory_format (preserve by default).
Value cast(OpContext& ctx) {
  TensorMeta t = ctx.tensor("self");
  TensorMeta out = contiguous(ctx.dtype("dtype").value_or(t.dtype), t.sizes);
  out.strides = memory_format_strides(ctx, t);
  return Value::of(out);
}

}  // namespace

void register_creation(OpRegistry& r) {
  for (const char* op : {"aten.empty", "aten.zeros", "aten.ones", "aten.rand", "aten.randn"}) {
    r.add(op, factory);
  }
  r.add("aten.empty.memory_format", factory);
  r.add("aten.full", [](OpContext& ctx) {
    std::vector<Expr> sizes = checked_sizes(ctx, ctx.int_list("size"));
    DType d = ctx.dtype("dtype").value_or(scalar_dtype(ctx, "fill_value"));
    return Value::of(contiguous(d, sizes));
  });
  r.add("aten.empty_strided", [](OpContext& ctx) {
    std::vector<Expr> sizes = checked_sizes(ctx, ctx.int_list("size"));
    std::vector<Expr> strides = checked_strides(ctx, ctx.int_list("stride"));
    if (strides.size() != sizes.size())
      ctx.bad_input("empty_strided: size and stride differ in length");
    TensorMeta t = contiguous(ctx.dtype("dtype").value_or(DType::Float32), sizes);
    t.strides = strides;
    return Value::of(t);
  });
  r.add("aten.randint", [](OpContext& ctx) {
    // randint(high, size) / randint.low(low, high, size): int64 by default.
    const bool low = ctx.declares("low");
    const Expr from = low ? ctx.integer("low") : Expr(0), to = ctx.integer("high");
    if (ctx.known(from < to) == Truth::False) {
      ctx.fail("random_ expects 'from' to be less than 'to', but got from=" + from.str() +
               " >= to=" + to.str());
    }
    std::vector<Expr> sizes = checked_sizes(ctx, ctx.int_list("size"));
    return Value::of(contiguous(ctx.dtype("dtype").value_or(DType::Int64), sizes));
  });
  for (const char* op : {"aten.empty_like", "aten.zeros_like", "aten.ones_like", "aten.rand_like",
                         "aten.randn_like", "aten.randint_like"}) {
    r.add(op, like);
  }
  // randperm(n): a permutation of 0 .. n-1, int64 by default.
  r.add("aten.randperm", [](OpContext& ctx) {
    std::vector<Expr> sizes = checked_sizes(ctx, {ctx.integer("n")});
    return Value::of(contiguous(ctx.dtype("dtype").value_or(DType::Int64), sizes));
  });
  // resize(self, size) and resize_: self with new sizes, contiguous. The IR does not re-type
  // later uses of self after resize_; functional graphs use its result.
  for (const char* op : {"aten.resize", "aten.resize_"}) {
    r.add(op, [](OpContext& ctx) {
      TensorMeta self = ctx.tensor("self");
      return Value::of(contiguous(self.dtype, checked_sizes(ctx, ctx.int_list("size"))));
    });
  }
  r.add("aten.full_like", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor("self");
    return Value::of(contiguous(ctx.dtype("dtype").value_or(t.dtype), t.sizes));
  });
  for (const char* op : {"aten.new_empty", "aten.new_zeros", "aten.new_ones"}) r.add(op, new_like);
  r.add("aten.new_full", new_like);
  r.add("aten.new_empty_strided", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor("self");
    TensorMeta out =
        contiguous(ctx.dtype("dtype").value_or(t.dtype), checked_sizes(ctx, ctx.int_list("size")));
    out.strides = checked_strides(ctx, ctx.int_list("stride"));
    if (out.strides.size() != out.rank()) {
      ctx.bad_input("new_empty_strided: size and stride differ in length");
    }
    return Value::of(out);
  });
  r.add("aten.scalar_tensor", [](OpContext& ctx) {
    return Value::of(contiguous(ctx.dtype("dtype").value_or(DType::Float32), {}));
  });
  // arange(end), arange.start(start, end), arange.start_step(start, end, step).
  r.add("aten.arange", arange);
  r.add("aten.linspace", [](OpContext& ctx) {
    Expr steps = ctx.integer("steps");
    if (ctx.known(steps >= 0) == Truth::False)
      ctx.bad_input("linspace needs a non-negative number of steps");
    for (const char* name : {"start", "end"})
      if (!ctx.has(name)) ctx.bad_input("missing argument '" + std::string(name) + "'");
    return Value::of(contiguous(ctx.dtype("dtype").value_or(DType::Float32), {steps}));
  });
  r.add("aten.eye", [](OpContext& ctx) {
    Expr n = ctx.integer("n");
    // eye(n, *, dtype) or eye.m(n, m, *, dtype)
    Expr m = ctx.declares("m") ? ctx.integer("m") : n;
    return Value::of(
        contiguous(ctx.dtype("dtype").value_or(DType::Float32), checked_sizes(ctx, {n, m})));
  });
  // Casts: _to_copy(self, *, dtype), to.dtype(self, dtype), to.dtype_layout(self, *, dtype),
  // to.device(self, device, dtype), type_as(self, other), _to_dtype and friends.
  r.add("aten._to_copy", [](OpContext& ctx) { return cast(ctx); });
  r.add("aten.to.dtype", [](OpContext& ctx) { return cast(ctx); });
  r.add("aten.to.dtype_layout", [](OpContext& ctx) { return cast(ctx); });
  r.add("aten.to.device", [](OpContext& ctx) { return cast(ctx); });
  r.add("aten.to.other", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor("self");
    t.dtype = ctx.tensor("other").dtype;
    return Value::of(t);
  });
  r.add("aten.type_as", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor("self");
    t.dtype = ctx.tensor("other").dtype;
    return Value::of(t);
  });
  r.add("aten.copy", [](OpContext& ctx) {
    TensorMeta self = ctx.tensor("self");
    TensorMeta src = ctx.tensor("src");
    // src must broadcast to self's shape; self itself never changes.
    const std::string message =
        "copy: source " + shape_str(src.sizes) + " cannot be broadcast to " + shape_str(self.sizes);
    if (src.rank() > self.rank()) ctx.fail(message);
    std::vector<Expr> shape = broadcast_shapes(ctx, self.sizes, src.sizes);
    for (size_t d = 0; d < self.rank(); ++d) {
      ctx.require_equal(self.sizes[d], shape[d], "copy", message);
    }
    return Value::of(self);
  });
}

}  // namespace symshape::ops
