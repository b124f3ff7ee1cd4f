// Kernels: tensor creation (empty, zeros, full, arange, *_like, new_*) and dtype casts.
// Arguments are read by their names in the ops' signatures (schema.h), as the rules read them.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "symshape/interp/kernels.h"

namespace symshape::interp::kernels {

namespace {

std::vector<int64_t> checked_sizes(const KernelContext& ctx, std::vector<int64_t> sizes) {
  for (int64_t s : sizes) {
    if (s < 0) ctx.bad_input("size " + std::to_string(s) + " is negative");
  }
  return sizes;
}

Tensor new_tensor(const KernelContext& ctx, DType dtype, const std::vector<int64_t>& sizes) {
  try {
    return Tensor::zeros(dtype, checked_sizes(ctx, sizes));
  } catch (const RunError&) {
    throw;
  } catch (const Error& e) {
    ctx.fail(e.what());
  }
}

// How a factory fills its tensor.
enum class Fill { Zeros, Ones, Uniform, Normal };

void fill(KernelContext& ctx, Tensor& t, Fill how) {
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (int64_t k = 0; k < t.numel(); ++k) {
    switch (how) {
      case Fill::Zeros: break;
      case Fill::Ones: t.set_flat(k, Scalar::of_int(1)); break;
      case Fill::Uniform:
        if (is_complex(t.dtype())) {
          double re = uniform(ctx.rng());
          double im = uniform(ctx.rng());
          t.set_flat(k, Scalar::of_complex(Complex(re, im)));
        } else {
          t.set_flat(k, Scalar::of_float(uniform(ctx.rng())));
        }
        break;
      case Fill::Normal:
        if (is_complex(t.dtype())) {
          // PyTorch's complex randn: each part has variance 1/2.
          double re = normal(ctx.rng()) * std::sqrt(0.5);
          double im = normal(ctx.rng()) * std::sqrt(0.5);
          t.set_flat(k, Scalar::of_complex(Complex(re, im)));
        } else {
          t.set_flat(k, Scalar::of_float(normal(ctx.rng())));
        }
        break;
    }
  }
}

Kernel factory(Fill how) {
  return [how](KernelContext& ctx) {
    Tensor t = new_tensor(ctx, ctx.dtype("dtype").value_or(DType::Float32), ctx.int_list("size"));
    fill(ctx, t, how);
    return RValue::of(t);
  };
}

// A fill value: a number, or a 0-dim tensor's element.
Scalar fill_value(const KernelContext& ctx, std::string_view name) {
  if (ctx.is_tensor_arg(name)) {
    Tensor t = ctx.tensor(name);
    if (t.numel() != 1) ctx.fail("a fill value tensor must have one element, got " + t.str());
    return t.flat(0);
  }
  return ctx.scalar(name);
}

// The dtype of a fill value: bool, int64 for ints, float32 for floats, a tensor's own.
DType fill_dtype(const KernelContext& ctx, std::string_view name) {
  if (!ctx.has(name)) return DType::Float32;
  RValue v = ctx.value(name);
  if (v.kind == RValue::Kind::Bool) return DType::Bool;
  if (v.kind == RValue::Kind::Int) return DType::Int64;
  if (v.kind == RValue::Kind::Tensor) return v.tensor.dtype();
  return DType::Float32;
}

// Dense strides that keep t's dim order (ATen's infer_dense_strides): dims ordered by stride,
// the innermost (smallest stride) first, ties broken toward the later dim.
std::vector<int64_t> dense_strides_like(const Tensor& t) {
  const size_t rank = t.rank();
  std::vector<size_t> order(rank);
  std::iota(order.begin(), order.end(), 0);
  // order[0] is the outermost dim.
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (t.sizes()[a] == 1 || t.sizes()[b] == 1) return false;
    return t.strides()[a] > t.strides()[b];
  });
  std::vector<int64_t> strides(rank, 1);
  int64_t step = 1;
  for (size_t k = rank; k-- > 0;) {
    strides[order[k]] = step;
    step *= std::max<int64_t>(t.sizes()[order[k]], 1);
  }
  return strides;
}

bool non_overlapping_and_dense(const Tensor& t) {
  std::vector<int64_t> dense = dense_strides_like(t);
  for (size_t d = 0; d < t.rank(); ++d) {
    if (t.sizes()[d] != 1 && t.strides()[d] != dense[d]) return false;
  }
  return true;
}

// Strides of a fresh tensor shaped like t under the memory_format keyword.
std::vector<int64_t> memory_format_strides(const KernelContext& ctx, const Tensor& t) {
  const Arg* a = ctx.declares("memory_format") ? ctx.arg("memory_format") : nullptr;
  const std::string format = a ? a->text : "preserve_format";
  if (format == "channels_last" || format == "channels_last_3d") {
    const size_t rank = format == "channels_last" ? 4 : 5;
    if (t.rank() != rank) {
      ctx.bad_input(format + " needs a tensor of rank " + std::to_string(rank) + ", got " +
                    t.str());
    }
    std::vector<int64_t> strides(rank);
    strides[1] = 1;
    int64_t step = std::max<int64_t>(t.sizes()[1], 1);
    for (size_t d = rank - 1; d >= 2; --d) {
      strides[d] = step;
      step *= std::max<int64_t>(t.sizes()[d], 1);
    }
    strides[0] = step;
    return strides;
  }
  if (format != "preserve_format") return contiguous_strides(t.sizes());
  if (non_overlapping_and_dense(t)) return t.strides();
  return dense_strides_like(t);
}

// A fresh tensor of dtype shaped like t, laid out by memory_format.
Tensor empty_like(const KernelContext& ctx, const Tensor& t, DType dtype) {
  std::vector<int64_t> strides = memory_format_strides(ctx, t);
  Tensor base = new_tensor(ctx, dtype, {t.numel()});
  return base.as_strided(t.sizes(), strides, 0);
}

Kernel like(Fill how) {
  return [how](KernelContext& ctx) {
    Tensor self = ctx.tensor("self");
    Tensor out = empty_like(ctx, self, ctx.dtype("dtype").value_or(self.dtype()));
    Tensor dense = new_tensor(ctx, out.dtype(), out.sizes());
    fill(ctx, dense, how);
    out.copy_from(dense);
    return RValue::of(out);
  };
}

Kernel new_like(Fill how) {
  return [how](KernelContext& ctx) {
    Tensor self = ctx.tensor("self");
    Tensor t = new_tensor(ctx, ctx.dtype("dtype").value_or(self.dtype()), ctx.int_list("size"));
    fill(ctx, t, how);
    return RValue::of(t);
  };
}

// A zero tensor of sizes laid out with strides (which may overlap or leave gaps).
Tensor strided(const KernelContext& ctx, DType dtype, const std::vector<int64_t>& sizes,
               const std::vector<int64_t>& strides) {
  checked_sizes(ctx, sizes);
  if (strides.size() != sizes.size()) ctx.bad_input("size and stride differ in length");
  int64_t extent = 1;
  bool empty = false;
  for (int64_t s : sizes) empty |= s == 0;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (strides[d] < 0) ctx.fail("negative stride " + std::to_string(strides[d]));
    if (!empty && sizes[d] > 1) {
      if (strides[d] > (Tensor::kMaxElements - extent) / (sizes[d] - 1)) {
        ctx.fail("strides reach too far for the interpreter");
      }
      extent += (sizes[d] - 1) * strides[d];
    }
  }
  Tensor base = new_tensor(ctx, dtype, {empty ? 0 : extent});
  return base.as_strided(sizes, strides, 0);
}

// The number of elements of arange over [start, end) by step, checked as ATen checks it.
int64_t arange_length(const KernelContext& ctx, double start, double end, double step) {
  if (!std::isfinite(start) || !std::isfinite(end)) ctx.bad_input("arange needs finite bounds");
  if (step == 0) ctx.bad_input("arange step must be nonzero");
  if ((step > 0 && end < start) || (step < 0 && end > start)) {
    ctx.bad_input("arange: upper bound and lower bound inconsistent with step sign");
  }
  double n = std::ceil((end - start) / step);
  if (!(n <= static_cast<double>(Tensor::kMaxElements))) ctx.fail("arange is too long");
  return static_cast<int64_t>(n);
}

// arange(end), arange.start(start, end), arange.start_step(start, end, step).
RValue arange(KernelContext& ctx) {
  const bool has_start = ctx.declares("start"), has_step = ctx.declares("step");
  auto number = [&](std::string_view name, double fallback) -> Scalar {
    if (!ctx.has(name)) {
      if (std::isnan(fallback)) ctx.bad_input("missing argument '" + std::string(name) + "'");
      return Scalar::of_int(static_cast<int64_t>(fallback));
    }
    return ctx.scalar(name);
  };
  Scalar start = has_start ? number("start", NAN) : Scalar::of_int(0);
  Scalar end = number("end", NAN);
  Scalar step = has_step ? number("step", NAN) : Scalar::of_int(1);
  const bool floating = start.kind == Scalar::Kind::Float || end.kind == Scalar::Kind::Float ||
                        step.kind == Scalar::Kind::Float;
  DType dtype = ctx.dtype("dtype").value_or(floating ? DType::Float32 : DType::Int64);
  if (!floating) {
    const int64_t a = start.as_int(), b = end.as_int(), c = step.as_int();
    if (c == 0) ctx.bad_input("arange step must be nonzero");
    if ((c > 0 && b < a) || (c < 0 && b > a)) {
      ctx.bad_input("arange: upper bound and lower bound inconsistent with step sign");
    }
    // ceil((b - a) / c) without overflow: the difference in 128 bits.
    const __int128 diff = static_cast<__int128>(b) - a;
    __int128 n = diff / c;
    if (diff % c != 0) ++n;
    if (n > Tensor::kMaxElements) ctx.fail("arange is too long");
    Tensor t = new_tensor(ctx, dtype, {static_cast<int64_t>(n)});
    for (int64_t k = 0; k < t.numel(); ++k) {
      if (is_floating(dtype) || is_complex(dtype)) {
        t.set_flat(k, Scalar::of_float(static_cast<double>(a) + static_cast<double>(k) * c));
      } else {
        t.set_flat(k, Scalar::of_int(static_cast<int64_t>(a + static_cast<__int128>(k) * c)));
      }
    }
    return RValue::of(t);
  }
  double a = start.as_double(), b = end.as_double(), c = step.as_double();
  if (!std::isfinite(c)) ctx.fail("arange needs a finite step");
  if (dtype == DType::Int64) {
    a = std::trunc(a);
    b = std::trunc(b);
    c = std::trunc(c);
  }
  Tensor t = new_tensor(ctx, dtype, {arange_length(ctx, a, b, c)});
  for (int64_t k = 0; k < t.numel(); ++k) {
    t.set_flat(k, Scalar::of_float(a + static_cast<double>(k) * c));
  }
  return RValue::of(t);
}

// A cast: self when the dtype is unchanged and no copy is asked for (as `to` aliases), else a
// copy laid out by memory_format.
RValue cast_to(KernelContext& ctx, std::optional<DType> dtype, bool may_alias) {
  Tensor self = ctx.tensor("self");
  DType d = dtype.value_or(self.dtype());
  if (may_alias && d == self.dtype() && !(ctx.declares("copy") && ctx.boolean("copy", false)) &&
      !(ctx.declares("memory_format") && ctx.has("memory_format"))) {
    return RValue::of(self);
  }
  Tensor out = empty_like(ctx, self, d);
  out.copy_from(self);
  return RValue::of(out);
}

}  // namespace

void register_creation(KernelRegistry& r) {
  r.add("aten.empty", factory(Fill::Zeros));
  r.add("aten.empty.memory_format", factory(Fill::Zeros));
  r.add("aten.zeros", factory(Fill::Zeros));
  r.add("aten.ones", factory(Fill::Ones));
  r.add("aten.rand", factory(Fill::Uniform));
  r.add("aten.randn", factory(Fill::Normal));
  r.add("aten.full", [](KernelContext& ctx) {
    DType d = ctx.dtype("dtype").value_or(fill_dtype(ctx, "fill_value"));
    Tensor t = new_tensor(ctx, d, ctx.int_list("size"));
    Scalar v = fill_value(ctx, "fill_value");
    for (int64_t k = 0; k < t.numel(); ++k) t.set_flat(k, v);
    return RValue::of(t);
  });
  r.add("aten.empty_strided", [](KernelContext& ctx) {
    return RValue::of(strided(ctx, ctx.dtype("dtype").value_or(DType::Float32),
                              ctx.int_list("size"), ctx.int_list("stride")));
  });
  r.add("aten.randint", [](KernelContext& ctx) {
    // randint(high, size) / randint.low(low, high, size): int64 by default.
    const bool low = ctx.declares("low");
    const int64_t lo = low ? ctx.integer("low") : 0;
    const int64_t hi = ctx.integer("high");
    if (hi <= lo) {
      ctx.fail("random_ expects 'from' to be less than 'to', but got from=" + std::to_string(lo) +
               " >= to=" + std::to_string(hi));
    }
    Tensor t = new_tensor(ctx, ctx.dtype("dtype").value_or(DType::Int64), ctx.int_list("size"));
    std::uniform_int_distribution<int64_t> pick(lo, hi - 1);
    for (int64_t k = 0; k < t.numel(); ++k) t.set_flat(k, Scalar::of_int(pick(ctx.rng())));
    return RValue::of(t);
  });
  r.add("aten.randperm", [](KernelContext& ctx) {
    Tensor t = new_tensor(ctx, ctx.dtype("dtype").value_or(DType::Int64), {ctx.integer("n")});
    std::vector<int64_t> order(static_cast<size_t>(t.numel()));
    for (size_t k = 0; k < order.size(); ++k) order[k] = static_cast<int64_t>(k);
    std::shuffle(order.begin(), order.end(), ctx.rng());
    for (int64_t k = 0; k < t.numel(); ++k) {
      t.set_flat(k, Scalar::of_int(order[static_cast<size_t>(k)]));
    }
    return RValue::of(t);
  });
  // resize(self, size) and resize_: the leading elements of self (in row-major order) kept, the
  // rest zero (PyTorch leaves them uninitialized). resize_ gives its result as a new tensor.
  for (const char* op : {"aten.resize", "aten.resize_"}) {
    r.add(op, [](KernelContext& ctx) {
      Tensor self = ctx.tensor("self");
      Tensor t = new_tensor(ctx, self.dtype(), ctx.int_list("size"));
      const int64_t kept = std::min(t.numel(), self.numel());
      Tensor flat = self.contiguous();
      for (int64_t k = 0; k < kept; ++k) t.set_flat(k, flat.flat(k));
      return RValue::of(t);
    });
  }
  r.add("aten.empty_like", like(Fill::Zeros));
  r.add("aten.zeros_like", like(Fill::Zeros));
  r.add("aten.ones_like", like(Fill::Ones));
  r.add("aten.rand_like", like(Fill::Uniform));
  r.add("aten.randn_like", like(Fill::Normal));
  r.add("aten.randint_like", [](KernelContext& ctx) {
    // randint_like(self, high) / randint_like.low_dtype(self, low, high): keywords in practice.
    Tensor self = ctx.tensor("self");
    Tensor out = empty_like(ctx, self, ctx.dtype("dtype").value_or(self.dtype()));
    const int64_t lo = ctx.integer("low", 0);
    const int64_t hi = ctx.integer("high", 2);
    if (hi <= lo) ctx.fail("randint_like needs low < high");
    std::uniform_int_distribution<int64_t> pick(lo, hi - 1);
    for (int64_t k = 0; k < out.numel(); ++k) out.set_flat(k, Scalar::of_int(pick(ctx.rng())));
    return RValue::of(out);
  });
  r.add("aten.full_like", [](KernelContext& ctx) {
    Tensor self = ctx.tensor("self");
    Tensor t = new_tensor(ctx, ctx.dtype("dtype").value_or(self.dtype()), self.sizes());
    Scalar v = fill_value(ctx, "fill_value");
    for (int64_t k = 0; k < t.numel(); ++k) t.set_flat(k, v);
    return RValue::of(t);
  });
  r.add("aten.new_empty", new_like(Fill::Zeros));
  r.add("aten.new_zeros", new_like(Fill::Zeros));
  r.add("aten.new_ones", new_like(Fill::Ones));
  r.add("aten.new_full", [](KernelContext& ctx) {
    Tensor self = ctx.tensor("self");
    Tensor t = new_tensor(ctx, ctx.dtype("dtype").value_or(self.dtype()), ctx.int_list("size"));
    Scalar v = fill_value(ctx, "fill_value");
    for (int64_t k = 0; k < t.numel(); ++k) t.set_flat(k, v);
    return RValue::of(t);
  });
  r.add("aten.new_empty_strided", [](KernelContext& ctx) {
    Tensor self = ctx.tensor("self");
    return RValue::of(strided(ctx, ctx.dtype("dtype").value_or(self.dtype()), ctx.int_list("size"),
                              ctx.int_list("stride")));
  });
  r.add("aten.scalar_tensor", [](KernelContext& ctx) {
    return RValue::of(Tensor::scalar(ctx.dtype("dtype").value_or(DType::Float32), ctx.scalar("s")));
  });
  r.add("aten.arange", arange);
  r.add("aten.linspace", [](KernelContext& ctx) {
    const int64_t steps = ctx.integer("steps");
    if (steps < 0) ctx.bad_input("number of steps must be non-negative");
    const double a = ctx.scalar("start").as_double(), b = ctx.scalar("end").as_double();
    Tensor t = new_tensor(ctx, ctx.dtype("dtype").value_or(DType::Float32), {steps});
    if (steps == 1) t.set_flat(0, Scalar::of_float(a));
    if (steps > 1) {
      // ATen's symmetric formula: from the start for the first half, from the end after.
      const double step = (b - a) / static_cast<double>(steps - 1);
      const int64_t half = steps / 2;
      for (int64_t k = 0; k < steps; ++k) {
        double v = k < half ? a + step * static_cast<double>(k)
                            : b - step * static_cast<double>(steps - 1 - k);
        t.set_flat(k, Scalar::of_float(v));
      }
    }
    return RValue::of(t);
  });
  r.add("aten.eye", [](KernelContext& ctx) {
    const int64_t n = ctx.integer("n");
    const int64_t m = ctx.declares("m") ? ctx.integer("m") : n;  // eye(n) or eye.m(n, m)
    Tensor t = new_tensor(ctx, ctx.dtype("dtype").value_or(DType::Float32), {n, m});
    for (int64_t k = 0; k < std::min(n, m); ++k) {
      std::vector<int64_t> index = {k, k};
      t.set(index, Scalar::of_int(1));
    }
    return RValue::of(t);
  });
  // _to_copy always copies; `to` returns self when nothing changes.
  r.add("aten._to_copy",
        [](KernelContext& ctx) { return cast_to(ctx, ctx.dtype("dtype"), false); });
  r.add("aten.to.dtype", [](KernelContext& ctx) { return cast_to(ctx, ctx.dtype("dtype"), true); });
  r.add("aten.to.dtype_layout",
        [](KernelContext& ctx) { return cast_to(ctx, ctx.dtype("dtype"), true); });
  r.add("aten.to.device",
        [](KernelContext& ctx) { return cast_to(ctx, ctx.dtype("dtype"), true); });
  r.add("aten.to.other",
        [](KernelContext& ctx) { return cast_to(ctx, ctx.tensor("other").dtype(), true); });
  r.add("aten.type_as",
        [](KernelContext& ctx) { return cast_to(ctx, ctx.tensor("other").dtype(), true); });
  // copy(self, src): a new tensor like self holding src broadcast to self's shape.
  r.add("aten.copy", [](KernelContext& ctx) {
    Tensor self = ctx.tensor("self");
    Tensor src = ctx.tensor("src");
    auto shape = broadcast_shapes(self.sizes(), src.sizes());
    if (!shape || *shape != self.sizes()) {
      ctx.fail("copy: source " + src.str() + " cannot be broadcast to " + self.str());
    }
    Tensor out = empty_like(ctx, self, self.dtype());
    out.copy_from(src);
    return RValue::of(out);
  });
}

}  // namespace symshape::interp::kernels
