// Kernels: sizes read off tensors, Python operators on ints and floats, getitem, and the
// asserts and range constraints that export writes into graphs (which fail when false).
#include <cmath>

#include "symshape/interp/kernels.h"
#include "symshape/ops/validate/common.h"

namespace symshape::interp::kernels {

namespace {

RValue size_of(KernelContext& ctx) {
  Tensor t = ctx.tensor("self");
  if (!ctx.has("dim")) {
    std::vector<RValue> items;
    for (int64_t s : t.sizes()) items.push_back(RValue::of_int(s));
    return RValue::list(std::move(items));
  }
  if (t.rank() == 0) ctx.bad_input("a 0-dim tensor has no size to read");
  return RValue::of_int(t.sizes()[ctx.normalize_dim(ctx.integer("dim"), t.rank())]);
}

RValue stride_of(KernelContext& ctx) {
  Tensor t = ctx.tensor("self");
  if (!ctx.has("dim")) {
    std::vector<RValue> items;
    for (int64_t s : t.strides()) items.push_back(RValue::of_int(s));
    return RValue::list(std::move(items));
  }
  if (t.rank() == 0) ctx.bad_input("a 0-dim tensor has no stride to read");
  return RValue::of_int(t.strides()[ctx.normalize_dim(ctx.integer("dim"), t.rank())]);
}

double as_double(const KernelContext& ctx, const RValue& v) {
  if (v.kind == RValue::Kind::Float) return v.real;
  if (v.kind == RValue::Kind::Int) return static_cast<double>(v.integer);
  if (v.kind == RValue::Kind::Bool) return v.truth ? 1 : 0;
  ctx.bad_input("expected a number, got " + v.str());
}

// An int64 result of Python int arithmetic; Python ints never overflow, so a result outside
// int64 is an error rather than a wrapped value.
int64_t fit(const KernelContext& ctx, __int128 v) {
  if (v > INT64_MAX || v < INT64_MIN)
    ctx.fail("integer overflow: the result does not fit in int64");
  return static_cast<int64_t>(v);
}

using IntOp = int64_t (*)(const KernelContext&, int64_t, int64_t);
using FloatOp = double (*)(const KernelContext&, double, double);

// Ints when both operands are ints (as the shape rule decides), else floats.
Kernel arithmetic(IntOp int_op, FloatOp float_op) {
  return [int_op, float_op](KernelContext& ctx) {
    RValue a = ctx.value("a"), b = ctx.value("b");
    if (a.kind == RValue::Kind::Int && b.kind == RValue::Kind::Int) {
      return RValue::of_int(int_op(ctx, a.integer, b.integer));
    }
    return RValue::of_float(float_op(ctx, as_double(ctx, a), as_double(ctx, b)));
  };
}

int64_t int_floordiv(const KernelContext& ctx, int64_t a, int64_t b) {
  if (b == 0) ctx.bad_input("ZeroDivisionError: integer division or modulo by zero");
  if (a == INT64_MIN && b == -1) ctx.fail("integer overflow: the result does not fit in int64");
  return floordiv(a, b);
}

int64_t int_mod(const KernelContext& ctx, int64_t a, int64_t b) {
  if (b == 0) ctx.bad_input("ZeroDivisionError: integer division or modulo by zero");
  return mod(a, b);
}

double float_floordiv(const KernelContext& ctx, double a, double b) {
  if (b == 0) ctx.bad_input("ZeroDivisionError: float floor division by zero");
  return std::floor(a / b);
}

double float_mod(const KernelContext& ctx, double a, double b) {
  if (b == 0) ctx.bad_input("ZeroDivisionError: float modulo by zero");
  return fmod_python(a, b);
}

// A comparison between two numbers, exact between ints.
Kernel comparison(RelOp op) {
  return [op](KernelContext& ctx) {
    RValue a = ctx.value("a"), b = ctx.value("b");
    auto is_int = [](const RValue& v) {
      return v.kind == RValue::Kind::Int || v.kind == RValue::Kind::Bool;
    };
    int c = 0;
    if (is_int(a) && is_int(b)) {
      int64_t x = a.kind == RValue::Kind::Int ? a.integer : a.truth;
      int64_t y = b.kind == RValue::Kind::Int ? b.integer : b.truth;
      c = x < y ? -1 : x > y ? 1 : 0;
    } else {
      double x = as_double(ctx, a), y = as_double(ctx, b);
      if (std::isnan(x) || std::isnan(y)) return RValue::of_bool(op == RelOp::Ne);
      c = x < y ? -1 : x > y ? 1 : 0;
    }
    switch (op) {
      case RelOp::Eq: return RValue::of_bool(c == 0);
      case RelOp::Ne: return RValue::of_bool(c != 0);
      case RelOp::Lt: return RValue::of_bool(c < 0);
      case RelOp::Le: return RValue::of_bool(c <= 0);
      case RelOp::Gt: return RValue::of_bool(c > 0);
      case RelOp::Ge: return RValue::of_bool(c >= 0);
    }
    return RValue::of_bool(false);
  };
}

// The truth of an assert's argument: a bool, an int, or a one-element tensor.
std::optional<bool> truth_of(const KernelContext& ctx, const RValue& v) {
  switch (v.kind) {
    case RValue::Kind::Bool: return v.truth;
    case RValue::Kind::Int: return v.integer != 0;
    case RValue::Kind::Float: return v.real != 0;
    case RValue::Kind::Tensor:
      if (v.tensor.numel() != 1) {
        ctx.fail("an assert needs a single value, got a tensor " + v.tensor.str());
      }
      return v.tensor.flat(0).as_bool();
    default: return std::nullopt;
  }
}

RValue assert_scalar(KernelContext& ctx) {
  auto ok = truth_of(ctx, ctx.value("self"));
  std::string msg = ctx.string("assert_msg", "");
  if (ok && !*ok) ctx.fail("assertion failed" + (msg.empty() ? "" : ": " + msg));
  return RValue::none();
}

RValue constrain_range(KernelContext& ctx, bool for_size) {
  const int64_t size = ctx.integer("size");
  auto lo = ctx.optional_integer("min");
  auto hi = ctx.optional_integer("max");
  if (for_size && size < 0) {
    ctx.fail("size " + std::to_string(size) + " is negative (constrained to be a size)");
  }
  if ((lo && size < *lo) || (hi && size > *hi)) {
    ctx.fail("value " + std::to_string(size) + " is outside its range [" +
             (lo ? std::to_string(*lo) : "-inf") + ", " + (hi ? std::to_string(*hi) : "inf") + "]");
  }
  return RValue::none();
}

// sym_is_contiguous(self, memory_format=contiguous_format): PyTorch's is_contiguous in the
// format's dim order (channels_last: rank 4, channels_last_3d: rank 5; other ranks are not).
RValue sym_is_contiguous(KernelContext& ctx) {
  const Tensor t = ctx.tensor("self");
  const Arg* a = ctx.declares("memory_format") ? ctx.arg("memory_format") : nullptr;
  const std::string format = a && a->kind != Arg::Kind::None ? a->text : "contiguous_format";
  std::vector<size_t> order;
  if (format == "contiguous_format") {
    if (t.numel() == 0) return RValue::of_bool(true);
    for (size_t d = 0; d < t.rank(); ++d) order.push_back(d);
  } else if (format == "channels_last" || format == "channels_last_3d") {
    if (t.rank() != (format == "channels_last" ? 4u : 5u)) return RValue::of_bool(false);
    order.push_back(0);
    for (size_t d = 2; d < t.rank(); ++d) order.push_back(d);
    order.push_back(1);
  } else {
    ctx.bad_input("sym_is_contiguous: unsupported memory format " + format);
  }
  int64_t expected = 1;
  for (size_t i = order.size(); i-- > 0;) {
    const size_t d = order[i];
    if (t.sizes()[d] == 1) continue;
    if (t.strides()[d] != expected) return RValue::of_bool(false);
    expected *= t.sizes()[d];
  }
  return RValue::of_bool(true);
}

}  // namespace

void register_symbolic(KernelRegistry& r) {
  r.add("aten.sym_size", size_of);
  r.add("aten.sym_stride", stride_of);
  r.add("aten.sym_numel",
        [](KernelContext& ctx) { return RValue::of_int(ctx.tensor("self").numel()); });
  r.add("aten.sym_is_contiguous", sym_is_contiguous);
  r.add("aten.sym_storage_offset",
        [](KernelContext& ctx) { return RValue::of_int(ctx.tensor("self").offset()); });
  r.add("aten.size", size_of);
  r.add("aten.stride", stride_of);
  r.add("aten.numel",
        [](KernelContext& ctx) { return RValue::of_int(ctx.tensor("self").numel()); });
  r.add("aten.dim", [](KernelContext& ctx) {
    return RValue::of_int(static_cast<int64_t>(ctx.tensor("self").rank()));
  });

  for (const char* prefix : {"operator.", "_operator."}) {
    const std::string p = prefix;
    r.add(p + "getitem", [](KernelContext& ctx) {
      return validate::getitem(ctx, ctx.value("a"), ctx.integer("b"));
    });
    r.add(p + "add", arithmetic([](const KernelContext& c, int64_t a,
                                   int64_t b) { return fit(c, static_cast<__int128>(a) + b); },
                                [](const KernelContext&, double a, double b) { return a + b; }));
    r.add(p + "sub", arithmetic([](const KernelContext& c, int64_t a,
                                   int64_t b) { return fit(c, static_cast<__int128>(a) - b); },
                                [](const KernelContext&, double a, double b) { return a - b; }));
    r.add(p + "mul", arithmetic([](const KernelContext& c, int64_t a,
                                   int64_t b) { return fit(c, static_cast<__int128>(a) * b); },
                                [](const KernelContext&, double a, double b) { return a * b; }));
    r.add(p + "floordiv", arithmetic(int_floordiv, float_floordiv));
    r.add(p + "mod", arithmetic(int_mod, float_mod));
    r.add(p + "truediv", [](KernelContext& ctx) {
      double a = as_double(ctx, ctx.value("a")), b = as_double(ctx, ctx.value("b"));
      if (b == 0) ctx.bad_input("ZeroDivisionError: division by zero");
      return RValue::of_float(a / b);
    });
    r.add(p + "neg", [](KernelContext& ctx) {
      RValue a = ctx.value("a");
      if (a.kind == RValue::Kind::Int)
        return RValue::of_int(fit(ctx, -static_cast<__int128>(a.integer)));
      return RValue::of_float(-as_double(ctx, a));
    });
    r.add(p + "eq", comparison(RelOp::Eq));
    r.add(p + "ne", comparison(RelOp::Ne));
    r.add(p + "lt", comparison(RelOp::Lt));
    r.add(p + "le", comparison(RelOp::Le));
    r.add(p + "gt", comparison(RelOp::Gt));
    r.add(p + "ge", comparison(RelOp::Ge));
  }
  r.add("torch.sym_max",
        arithmetic([](const KernelContext&, int64_t a, int64_t b) { return std::max(a, b); },
                   [](const KernelContext&, double a, double b) { return std::max(a, b); }));
  r.add("torch.sym_min",
        arithmetic([](const KernelContext&, int64_t a, int64_t b) { return std::min(a, b); },
                   [](const KernelContext&, double a, double b) { return std::min(a, b); }));
  r.add("aten._assert_scalar", assert_scalar);
  r.add("aten.sym_constrain_range", [](KernelContext& ctx) { return constrain_range(ctx, false); });
  r.add("aten.sym_constrain_range_for_size",
        [](KernelContext& ctx) { return constrain_range(ctx, true); });
  r.add("aten._assert_async", [](KernelContext& ctx) {
    Tensor t = ctx.tensor("self");
    if (t.numel() != 1) ctx.fail("_assert_async needs a tensor with one element, got " + t.str());
    if (!t.flat(0).as_bool()) {
      std::string msg = ctx.string("assert_msg", "");
      ctx.fail("assertion failed" + (msg.empty() ? "" : ": " + msg));
    }
    return RValue::none();
  });
  r.add("aten._functional_assert_async", [](KernelContext& ctx) {
    Tensor t = ctx.tensor("self");
    if (t.numel() != 1) ctx.fail("_assert_async needs a tensor with one element, got " + t.str());
    if (!t.flat(0).as_bool()) {
      std::string msg = ctx.string("assert_msg", "");
      ctx.fail("assertion failed" + (msg.empty() ? "" : ": " + msg));
    }
    return RValue::of(Tensor::zeros(DType::Float32, {}));
  });
}

}  // namespace symshape::interp::kernels
