// Reduction kernels: sum, mean, amax, var, argmax, max/min, any/all, norms; scans (cumsum);
// softmax; topk and sort. Argument positions and names, and result dtypes, follow the shape rules
// in symshape/ops/reductions.cc.
//
// Orderings (max, sort, ...) follow PyTorch: NaN propagates through max/min/argmax and sorts as
// the largest value. Ties in sort, topk, kthvalue and median's indices resolve stably (the lower
// index first), one of the answers PyTorch may give.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "symshape/interp/kernels.h"

namespace symshape::interp::kernels {

namespace {

using Kind = Scalar::Kind;
using Group = std::vector<Scalar>;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

std::string dtype_name(DType d) { return std::string(to_string(d)); }

DType accumulate_dtype(DType in, std::optional<DType> requested) {
  if (requested) return *requested;
  return in == DType::Bool || is_integral(in) ? DType::Int64 : in;
}
bool is_float_or_complex(DType d) { return is_floating(d) || is_complex(d); }
DType real_of(DType d) { return is_complex(d) ? complex_to_real(d) : d; }
DType to_floating(DType d) { return is_float_or_complex(d) ? d : DType::Float32; }

bool is_nan(const Scalar& s) {
  if (s.kind == Kind::Float) return std::isnan(s.f);
  if (s.kind == Kind::Complex) return std::isnan(s.c.real()) || std::isnan(s.c.imag());
  return false;
}

// a < b for two real scalars of one dtype (ints exactly, floats as doubles; NaN unordered).
bool less(const Scalar& a, const Scalar& b) {
  if (a.kind != Kind::Float && b.kind != Kind::Float) return a.as_int() < b.as_int();
  return a.as_double() < b.as_double();
}

// The sort order: ascending with NaN last, or descending with NaN first.
bool before(const Scalar& a, const Scalar& b, bool descending) {
  if (descending) return !is_nan(b) && (is_nan(a) || less(b, a));
  return !is_nan(a) && (is_nan(b) || less(a, b));
}

void require_real(const KernelContext& ctx, const Tensor& t, const std::string& op) {
  if (is_complex(t.dtype())) ctx.fail(op + " is not supported for complex tensors");
}

// A 0-dim tensor viewed as [1] (its dim 0 / -1), so that dim-wise code has a dim to work along.
Tensor at_least_1d(const Tensor& t) {
  return t.rank() == 0 ? t.as_strided({1}, {1}, t.offset()) : t;
}
// A result computed on at_least_1d(t) back at t's rank.
Tensor like_rank(const Tensor& original, const Tensor& result) {
  if (original.rank() != 0) return result;
  return result.as_strided({}, {}, result.offset());
}

// Calls f for every line of t (rank >= 1) along dim, with the line's elements and its index
// (index[dim] == 0; callers set index[dim] to write a line's outputs).
void for_each_line(const Tensor& t, size_t dim,
                   const std::function<void(std::vector<int64_t>& index, const Group& line)>& f) {
  std::vector<int64_t> outer = t.sizes();
  const int64_t n = outer[dim];
  outer[dim] = 1;
  Group line;
  for_each_index(outer, [&](std::span<const int64_t> o) {
    std::vector<int64_t> index(o.begin(), o.end());
    line.clear();
    for (int64_t k = 0; k < n; ++k) {
      index[dim] = k;
      line.push_back(t.at(index));
    }
    index[dim] = 0;
    f(index, line);
  });
}

// The dims of a reduction over `dims` of t (a 0-dim tensor reduces nothing: its one element).
std::vector<size_t> dims_of(const Tensor& t, std::vector<size_t> dims) {
  return t.rank() == 0 ? std::vector<size_t>{} : dims;
}

std::vector<size_t> all_dims(size_t rank) {
  std::vector<size_t> out(rank);
  std::iota(out.begin(), out.end(), size_t{0});
  return out;
}

// A reduction giving (value, index) per group: the values of dtype `values`, the indices int64.
RValue values_and_indices(const Tensor& t, const std::vector<size_t>& dims, bool keepdim,
                          DType values,
                          const std::function<std::pair<Scalar, int64_t>(const Group&)>& f) {
  std::vector<Scalar> indices;
  Tensor v = reduce(t, dims_of(t, dims), keepdim, values, [&](const Group& g) {
    auto [value, index] = f(g);
    indices.push_back(Scalar::of_int(index));
    return value;
  });
  return RValue::list({RValue::of(v), RValue::of(Tensor::from(DType::Int64, v.sizes(), indices))});
}

// ---- sums ----

// The sum of g's elements, each cast to `out` first (wrapping for integers). skip_nan: nansum.
Scalar sum_of(const Group& g, DType out, bool skip_nan) {
  switch (scalar_kind(out)) {
    case Kind::Bool:
    case Kind::Int: {
      uint64_t acc = 0;
      for (const Scalar& x : g) acc += static_cast<uint64_t>(cast(x, out).as_int());
      return Scalar::of_int(static_cast<int64_t>(acc));
    }
    case Kind::Float: {
      double acc = 0;
      for (const Scalar& x : g) {
        double v = cast(x, out).f;
        if (!(skip_nan && std::isnan(v))) acc += v;
      }
      return Scalar::of_float(acc);
    }
    case Kind::Complex: {
      Complex acc = 0;
      for (const Scalar& x : g) {
        Scalar v = cast(x, out);
        if (!(skip_nan && is_nan(v))) acc += v.c;
      }
      return Scalar::of_complex(acc);
    }
  }
  return Scalar::of_int(0);
}

Scalar prod_of(const Group& g, DType out) {
  switch (scalar_kind(out)) {
    case Kind::Bool:
    case Kind::Int: {
      uint64_t acc = 1;
      for (const Scalar& x : g) acc *= static_cast<uint64_t>(cast(x, out).as_int());
      return Scalar::of_int(static_cast<int64_t>(acc));
    }
    case Kind::Float: {
      double acc = 1;
      for (const Scalar& x : g) acc *= cast(x, out).f;
      return Scalar::of_float(acc);
    }
    case Kind::Complex: {
      Complex acc = 1;
      for (const Scalar& x : g) acc *= cast(x, out).c;
      return Scalar::of_complex(acc);
    }
  }
  return Scalar::of_int(1);
}

// sum / nansum / prod: (self, dim, keepdim, *, dtype).
Kernel sum_like(bool product, bool skip_nan) {
  return [product, skip_nan](KernelContext& ctx) {
    Tensor t = ctx.tensor("self");
    std::vector<size_t> dims = reduction_dims(ctx, t.rank());
    bool keepdim = ctx.boolean("keepdim", false);
    DType out = accumulate_dtype(t.dtype(), ctx.dtype("dtype"));
    return RValue::of(reduce(t, dims_of(t, dims), keepdim, out, [&](const Group& g) {
      return product ? prod_of(g, out) : sum_of(g, out, skip_nan);
    }));
  };
}

// mean / nanmean: (self, dim, keepdim, *, dtype); floating or complex results only.
Kernel mean(bool skip_nan) {
  return [skip_nan](KernelContext& ctx) {
    Tensor t = ctx.tensor("self");
    std::vector<size_t> dims = reduction_dims(ctx, t.rank());
    bool keepdim = ctx.boolean("keepdim", false);
    std::optional<DType> requested = ctx.dtype("dtype");
    DType out = requested.value_or(t.dtype());
    if (!is_float_or_complex(out)) {
      ctx.fail(std::string("mean(): could not infer output dtype. ") +
               (requested ? "Optional dtype" : "Input dtype") +
               " must be either a floating point or complex dtype, got " + dtype_name(out));
    }
    return RValue::of(reduce(t, dims_of(t, dims), keepdim, out, [&](const Group& g) {
      double count = 0;
      for (const Scalar& x : g) count += skip_nan && is_nan(cast(x, out)) ? 0 : 1;
      Scalar s = sum_of(g, out, skip_nan);
      if (s.kind == Kind::Complex) return Scalar::of_complex(s.c / count);
      return Scalar::of_float(s.f / count);
    }));
  };
}

// ---- max-like reductions ----

void require_nonempty(const KernelContext& ctx, const Group& g, const std::string& op) {
  if (g.empty()) {
    ctx.fail(op +
             "(): expected a non-empty reduction (the reduced dims have no elements), but "
             "the operation has no identity");
  }
}

// The position of g's largest (or smallest) element: the first NaN, else the first extreme.
size_t extreme(const Group& g, bool largest) {
  size_t best = 0;
  for (size_t k = 0; k < g.size(); ++k) {
    if (is_nan(g[k])) return k;
    if (largest ? less(g[best], g[k]) : less(g[k], g[best])) best = k;
  }
  return best;
}

// amax / amin: (self, dim=[], keepdim).
Kernel amax_like(bool largest, const std::string& op) {
  return [largest, op](KernelContext& ctx) {
    Tensor t = ctx.tensor("self");
    require_real(ctx, t, op);
    std::vector<size_t> dims = reduction_dims(ctx, t.rank());
    bool keepdim = ctx.boolean("keepdim", false);
    return RValue::of(reduce(t, dims_of(t, dims), keepdim, t.dtype(), [&](const Group& g) {
      require_nonempty(ctx, g, op);
      return g[extreme(g, largest)];
    }));
  };
}

// argmax / argmin: (self, dim=None, keepdim); without a dim the index is into the flattened
// tensor (keepdim: all-ones sizes).
Kernel arg_reduction(bool largest, const std::string& op) {
  return [largest, op](KernelContext& ctx) {
    Tensor t = ctx.tensor("self");
    require_real(ctx, t, op);
    bool keepdim = ctx.boolean("keepdim", false);
    std::vector<size_t> dims =
        ctx.has("dim") ? std::vector<size_t>{ctx.normalize_dim(ctx.integer("dim"), t.rank())}
                       : all_dims(t.rank());
    return RValue::of(reduce(t, dims_of(t, dims), keepdim, DType::Int64, [&](const Group& g) {
      require_nonempty(ctx, g, op);
      return Scalar::of_int(static_cast<int64_t>(extreme(g, largest)));
    }));
  };
}

// max / min: (self) a 0-dim extreme, (self, dim, keepdim) (values, indices), (self, other) the
// elementwise maximum (NaN propagating).
Kernel max_like(bool largest, const std::string& op) {
  return [largest, op](KernelContext& ctx) {
    Tensor t = ctx.tensor("self");
    require_real(ctx, t, op);
    if (ctx.is_tensor_arg("other")) {
      Tensor other = ctx.tensor("other");
      require_real(ctx, other, op);
      DType d = result_type({t, other}, {});
      return RValue::of(map2(t, other, d, d, [largest](const Scalar& a, const Scalar& b) {
        if (is_nan(a)) return a;
        if (is_nan(b)) return b;
        return (largest ? less(a, b) : less(b, a)) ? b : a;
      }));
    }
    if (!ctx.has("dim")) {
      return RValue::of(reduce(t, all_dims(t.rank()), false, t.dtype(), [&](const Group& g) {
        require_nonempty(ctx, g, op);
        return g[extreme(g, largest)];
      }));
    }
    size_t d = ctx.normalize_dim(ctx.integer("dim"), t.rank());
    return values_and_indices(t, {d}, ctx.boolean("keepdim", false), t.dtype(),
                              [&](const Group& g) {
                                require_nonempty(ctx, g, op);
                                size_t k = extreme(g, largest);
                                return std::make_pair(g[k], static_cast<int64_t>(k));
                              });
  };
}

// ---- var / std ----

// The correction: the `correction` keyword, else `unbiased`, else 1.
double correction_of(const KernelContext& ctx) {
  if (ctx.has("correction")) return ctx.real("correction", 1);
  return ctx.has("unbiased") && !ctx.boolean("unbiased", true) ? 0 : 1;
}

// var / std over (self, dim, unbiased | *correction, keepdim); `whole`: the .default overload
// (self, unbiased) over every dim. With `with_mean`: (var or std, mean).
Kernel variance(bool is_std, bool whole, bool with_mean) {
  return [is_std, whole, with_mean](KernelContext& ctx) {
    Tensor t = ctx.tensor("self");
    const DType d = t.dtype();
    if (!is_float_or_complex(d)) {
      ctx.bad_input("std and var only support floating point and complex dtypes, got " +
                    dtype_name(d));
    }
    std::vector<size_t> dims = whole ? all_dims(t.rank()) : reduction_dims(ctx, t.rank());
    bool keepdim = !whole && ctx.boolean("keepdim", false);
    double correction = whole ? (ctx.boolean("unbiased", true) ? 1 : 0) : correction_of(ctx);
    auto mean_of = [d](const Group& g) {
      Complex s = 0;
      for (const Scalar& x : g) s += x.as_complex();
      return s / static_cast<double>(g.size());
    };
    Tensor var = reduce(t, dims_of(t, dims), keepdim, real_of(d), [&](const Group& g) {
      Complex m = mean_of(g);
      double ss = 0;
      for (const Scalar& x : g) ss += std::norm(x.as_complex() - m);
      double v = ss / std::max(0.0, static_cast<double>(g.size()) - correction);
      return Scalar::of_float(is_std ? std::sqrt(v) : v);
    });
    if (!with_mean) return RValue::of(var);
    Tensor m = reduce(t, dims_of(t, dims), keepdim, d, [&](const Group& g) {
      Complex c = mean_of(g);
      return is_complex(d) ? Scalar::of_complex(c) : Scalar::of_float(c.real());
    });
    return RValue::list({RValue::of(var), RValue::of(m)});
  };
}

// ---- norms ----

// norm (self, p=2, dim, keepdim, *, dtype) and linalg_vector_norm (self, ord=2, dim, keepdim,
// *, dtype): a real result.
Kernel vector_norm(const std::string& p_name, const std::string& op) {
  return [p_name, op](KernelContext& ctx) {
    Tensor t = ctx.tensor("self");
    if (!is_float_or_complex(t.dtype())) {
      ctx.bad_input(op + ": expected a floating point or complex tensor as input, got " +
                    dtype_name(t.dtype()));
    }
    const double p = ctx.real(p_name, 2);
    std::vector<size_t> dims = reduction_dims(ctx, t.rank());
    bool keepdim = ctx.boolean("keepdim", false);
    const DType in = ctx.dtype("dtype").value_or(t.dtype());
    const DType out = real_of(in);
    return RValue::of(reduce(t, dims_of(t, dims), keepdim, out, [&](const Group& g) {
      std::vector<double> a;
      for (const Scalar& x : g) a.push_back(std::abs(cast(x, in).as_complex()));
      if (std::isinf(p)) {
        if (a.empty()) {
          ctx.fail(op + " cannot compute the " + (p > 0 ? "inf" : "-inf") +
                   " norm on an empty tensor because the operation does not have an identity");
        }
        double best = a[0];
        for (double v : a) {
          if (std::isnan(v) || std::isnan(best)) {
            best = kNaN;
          } else {
            best = p > 0 ? std::max(best, v) : std::min(best, v);
          }
        }
        return Scalar::of_float(best);
      }
      double acc = 0;
      if (p == 0) {
        for (double v : a) acc += v != 0 ? 1 : 0;
        return Scalar::of_float(acc);
      }
      for (double v : a) acc += p == 1 ? v : p == 2 ? v * v : std::pow(v, p);
      return Scalar::of_float(p == 1 ? acc : p == 2 ? std::sqrt(acc) : std::pow(acc, 1 / p));
    }));
  };
}

// ---- scans ----

// A line-wise op along `dim`: f maps a line to the output line (same length); out is the
// result's dtype.
Tensor along(const Tensor& t, size_t dim, DType out, const std::function<Group(const Group&)>& f) {
  Tensor v = at_least_1d(t);
  Tensor result = Tensor::zeros(out, v.sizes());
  for_each_line(v, dim, [&](std::vector<int64_t>& index, const Group& line) {
    Group y = f(line);
    for (size_t k = 0; k < y.size(); ++k) {
      index[dim] = static_cast<int64_t>(k);
      result.set(index, y[k]);
    }
  });
  return like_rank(t, result);
}

// Two line-wise outputs (values of `out`, int64 indices) of one shape `sizes` along dim.
RValue along_pair(const Tensor& t, size_t dim, DType out, int64_t length,
                  const std::function<std::pair<Group, std::vector<int64_t>>(const Group&)>& f) {
  Tensor v = at_least_1d(t);
  std::vector<int64_t> sizes = v.sizes();
  sizes[dim] = length;
  Tensor values = Tensor::zeros(out, sizes), indices = Tensor::zeros(DType::Int64, sizes);
  for_each_line(v, dim, [&](std::vector<int64_t>& index, const Group& line) {
    auto [y, i] = f(line);
    for (size_t k = 0; k < y.size(); ++k) {
      index[dim] = static_cast<int64_t>(k);
      values.set(index, y[k]);
      indices.set(index, Scalar::of_int(i[k]));
    }
  });
  return RValue::list({RValue::of(like_rank(t, values)), RValue::of(like_rank(t, indices))});
}

size_t scan_dim(const KernelContext& ctx, const Tensor& t, int64_t fallback) {
  return ctx.normalize_dim(ctx.integer("dim", fallback), t.rank());
}

// cumsum / cumprod: (self, dim, *, dtype).
Kernel cumulative(bool product) {
  return [product](KernelContext& ctx) {
    Tensor t = ctx.tensor("self");
    if (!ctx.has("dim")) ctx.bad_input("missing argument 'dim'");
    size_t d = scan_dim(ctx, t, 0);
    DType out = accumulate_dtype(t.dtype(), ctx.dtype("dtype"));
    return RValue::of(along(t, d, out, [&](const Group& line) {
      // A running accumulator of out's category: wrapping for integers.
      Group y;
      uint64_t i = product ? 1 : 0;
      double f = product ? 1 : 0;
      Complex c = product ? 1 : 0;
      for (const Scalar& x : line) {
        Scalar v = cast(x, out);
        switch (scalar_kind(out)) {
          case Kind::Bool:
          case Kind::Int:
            i = product ? i * static_cast<uint64_t>(v.i) : i + static_cast<uint64_t>(v.i);
            y.push_back(Scalar::of_int(static_cast<int64_t>(i)));
            break;
          case Kind::Float:
            f = product ? f * v.f : f + v.f;
            y.push_back(Scalar::of_float(f));
            break;
          case Kind::Complex:
            c = product ? c * v.c : c + v.c;
            y.push_back(Scalar::of_complex(c));
            break;
        }
      }
      return y;
    }));
  };
}

// log(exp(a) + exp(b)) without overflow; -inf + -inf stays -inf.
double log_add_exp(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return kNaN;
  double m = std::max(a, b);
  if (m == -kInf) return -kInf;
  if (m == kInf) return kInf;
  return m + std::log(std::exp(a - m) + std::exp(b - m));
}

// ---- softmax ----

// softmax / log_softmax of one line (computed in double, then cast by the caller).
Group softmax_line(const Group& line, bool log) {
  double m = -kInf;
  for (const Scalar& x : line) {
    double v = x.as_double();
    m = std::isnan(v) || std::isnan(m) ? kNaN : std::max(m, v);
  }
  double s = 0;
  for (const Scalar& x : line) s += std::exp(x.as_double() - m);
  Group y;
  for (const Scalar& x : line) {
    double v = x.as_double() - m;
    y.push_back(Scalar::of_float(log ? v - std::log(s) : std::exp(v) / s));
  }
  return y;
}

// softmax.int / log_softmax.int (self, dim, dtype) and _softmax / _log_softmax (self, dim,
// half_to_float).
Kernel softmax(bool log, bool internal) {
  return [log, internal](KernelContext& ctx) {
    Tensor t = ctx.tensor("self");
    if (!ctx.has("dim")) ctx.bad_input("missing argument 'dim'");
    size_t d = scan_dim(ctx, t, 0);
    DType out = t.dtype();
    if (internal) {
      if (ctx.boolean("half_to_float", false)) out = DType::Float32;
    } else if (auto requested = ctx.dtype("dtype")) {
      out = *requested;
    }
    if (!is_floating(out)) {
      ctx.bad_input("softmax needs a floating point input (or dtype), got " + dtype_name(out));
    }
    Tensor in = t.to(out);
    return RValue::of(
        along(in, d, out, [log](const Group& line) { return softmax_line(line, log); }));
  };
}

// _softmax_backward_data / _log_softmax_backward_data (grad_output, output, dim, input_dtype).
Kernel softmax_backward(bool log) {
  return [log](KernelContext& ctx) {
    Tensor grad = ctx.tensor("grad_output"), output = ctx.tensor("output");
    size_t d = scan_dim(ctx, grad, 0);
    if (grad.sizes() != output.sizes()) {
      ctx.fail("softmax backward: grad_output " + grad.str() + " and output " + output.str() +
               " differ");
    }
    DType out = ctx.dtype("input_dtype").value_or(grad.dtype());
    if (!is_floating(out)) ctx.fail("softmax backward needs a floating point dtype");
    // Pair each grad with its output as one line of [g0, .., g(n-1), y0, .., y(n-1)].
    Tensor g = at_least_1d(grad), y = at_least_1d(output);
    Tensor result = Tensor::zeros(out, g.sizes());
    for_each_line(g, d, [&](std::vector<int64_t>& index, const Group& gl) {
      Group yl;
      for (size_t k = 0; k < gl.size(); ++k) {
        index[d] = static_cast<int64_t>(k);
        yl.push_back(y.at(index));
      }
      double s = 0;
      for (size_t k = 0; k < gl.size(); ++k) {
        s += log ? gl[k].as_double() : gl[k].as_double() * yl[k].as_double();
      }
      for (size_t k = 0; k < gl.size(); ++k) {
        index[d] = static_cast<int64_t>(k);
        double gk = gl[k].as_double(), yk = yl[k].as_double();
        result.set(index, Scalar::of_float(log ? gk - std::exp(yk) * s : yk * (gk - s)));
      }
    });
    return RValue::of(like_rank(grad, result));
  };
}

// ---- sorting ----

// The positions of line in sort order (stable).
std::vector<int64_t> sorted_order(const Group& line, bool descending) {
  std::vector<int64_t> order(line.size());
  std::iota(order.begin(), order.end(), int64_t{0});
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return before(line[static_cast<size_t>(a)], line[static_cast<size_t>(b)], descending);
  });
  return order;
}

std::pair<Group, std::vector<int64_t>> pick(const Group& line, const std::vector<int64_t>& order) {
  Group values;
  for (int64_t k : order) values.push_back(line[static_cast<size_t>(k)]);
  return {values, order};
}

// sort (self, dim=-1, descending) / sort.stable (self, *, stable, dim=-1, descending).
RValue sort(KernelContext& ctx) {
  Tensor t = ctx.tensor("self");
  require_real(ctx, t, "sort");
  size_t d = scan_dim(ctx, t, -1);
  bool descending = ctx.boolean("descending", false);
  int64_t n = t.rank() == 0 ? 1 : t.size(static_cast<int64_t>(d));
  return along_pair(t, d, t.dtype(), n,
                    [&](const Group& line) { return pick(line, sorted_order(line, descending)); });
}

RValue argsort(KernelContext& ctx) {
  Tensor t = ctx.tensor("self");
  require_real(ctx, t, "argsort");
  size_t d = scan_dim(ctx, t, -1);
  bool descending = ctx.boolean("descending", false);
  return RValue::of(along(t, d, DType::Int64, [&](const Group& line) {
    Group y;
    for (int64_t k : sorted_order(line, descending)) y.push_back(Scalar::of_int(k));
    return y;
  }));
}

// The element of line at rank k (0-based) in ascending order with NaN last, and its position.
std::pair<Scalar, int64_t> kth(const Group& line, size_t k) {
  std::vector<int64_t> order = sorted_order(line, false);
  int64_t i = order[k];
  return {line[static_cast<size_t>(i)], i};
}

// median (lower median; NaN if any) / nanmedian (ignoring NaN) of one group.
std::pair<Scalar, int64_t> median_of(const Group& g, bool ignore_nan) {
  size_t nans = 0;
  int64_t first_nan = -1;
  for (size_t k = 0; k < g.size(); ++k) {
    if (is_nan(g[k])) {
      if (first_nan < 0) first_nan = static_cast<int64_t>(k);
      ++nans;
    }
  }
  if (nans > 0 && (!ignore_nan || nans == g.size()))
    return {g[static_cast<size_t>(first_nan)], first_nan};
  size_t n = g.size() - (ignore_nan ? nans : 0);
  return kth(g, (n - 1) / 2);
}

// The most frequent value (the smallest among equally frequent ones) and the last position of
// that value in the sorted line.
std::pair<Scalar, int64_t> mode_of(const Group& g) {
  std::vector<int64_t> order = sorted_order(g, false);
  auto value = [&](size_t k) { return g[static_cast<size_t>(order[k])]; };
  auto same = [&](const Scalar& a, const Scalar& b) {
    if (is_nan(a) || is_nan(b)) return false;
    return !less(a, b) && !less(b, a);
  };
  size_t best = 0, best_count = 0, run = 0;
  for (size_t k = 0; k < order.size(); ++k) {
    ++run;
    if (k + 1 == order.size() || !same(value(k), value(k + 1))) {
      if (run > best_count) {
        best = k;
        best_count = run;
      }
      run = 0;
    }
  }
  return {value(best), order[best]};
}

// kthvalue (self, k, dim=-1, keepdim), mode (self, dim=-1, keepdim), median.dim (self, dim,
// keepdim): (values, indices) with dim reduced.
RValue select_along(KernelContext& ctx, const Tensor& t, int64_t fallback, const std::string& op,
                    const std::function<std::pair<Scalar, int64_t>(const Group&)>& f) {
  require_real(ctx, t, op);
  size_t d = scan_dim(ctx, t, fallback);
  bool keepdim = ctx.boolean("keepdim", false);
  return values_and_indices(t, {d}, keepdim, t.dtype(), [&](const Group& g) {
    require_nonempty(ctx, g, op);
    return f(g);
  });
}

Kernel median(bool ignore_nan, const std::string& op) {
  return [ignore_nan, op](KernelContext& ctx) {
    Tensor t = ctx.tensor("self");
    auto f = [ignore_nan](const Group& g) { return median_of(g, ignore_nan); };
    if (ctx.has("dim")) return select_along(ctx, t, 0, op, f);
    require_real(ctx, t, op);
    return RValue::of(reduce(t, all_dims(t.rank()), false, t.dtype(), [&](const Group& g) {
      require_nonempty(ctx, g, op);
      return f(g).first;
    }));
  };
}

}  // namespace

void register_reductions(KernelRegistry& r) {
  r.add("aten.sum", sum_like(false, false));
  r.add("aten.nansum", sum_like(false, true));
  r.add("aten.prod", sum_like(true, false));
  r.add("aten.mean", mean(false));
  r.add("aten.nanmean", mean(true));
  r.add("aten.amax", amax_like(true, "amax"));
  r.add("aten.amin", amax_like(false, "amin"));
  for (bool is_std : {false, true}) {
    const std::string name = is_std ? "aten.std" : "aten.var";
    r.add(name, variance(is_std, false, false));
    r.add(name + ".default", variance(is_std, true, false));
    r.add(name + "_mean", variance(is_std, false, true));
    r.add(name + "_mean.default", variance(is_std, true, true));
  }
  r.add("aten.argmax", arg_reduction(true, "argmax"));
  r.add("aten.argmin", arg_reduction(false, "argmin"));
  r.add("aten.max", max_like(true, "max"));
  r.add("aten.min", max_like(false, "min"));
  // aminmax (self, *, dim=None, keepdim): (min, max).
  r.add("aten.aminmax", [](KernelContext& ctx) {
    Tensor t = ctx.tensor("self");
    require_real(ctx, t, "aminmax");
    bool dim_given = ctx.has("dim");
    std::vector<size_t> dims =
        dim_given ? std::vector<size_t>{ctx.normalize_dim(ctx.integer("dim"), t.rank())}
                  : all_dims(t.rank());
    bool keepdim = ctx.boolean("keepdim", false);
    Tensor lo = reduce(t, dims_of(t, dims), keepdim, t.dtype(), [&](const Group& g) {
      require_nonempty(ctx, g, "aminmax");
      return g[extreme(g, false)];
    });
    Tensor hi = reduce(t, dims_of(t, dims), keepdim, t.dtype(),
                       [&](const Group& g) { return g[extreme(g, true)]; });
    return RValue::list({RValue::of(lo), RValue::of(hi)});
  });
  for (bool all : {false, true}) {
    r.add(all ? "aten.all" : "aten.any", [all](KernelContext& ctx) {
      Tensor t = ctx.tensor("self");
      std::vector<size_t> dims = reduction_dims(ctx, t.rank());
      bool keepdim = ctx.boolean("keepdim", false);
      DType out = t.dtype() == DType::UInt8 ? DType::UInt8 : DType::Bool;
      return RValue::of(reduce(t, dims_of(t, dims), keepdim, out, [all](const Group& g) {
        bool acc = all;
        for (const Scalar& x : g) acc = all ? acc && x.as_bool() : acc || x.as_bool();
        return Scalar::of_bool(acc);
      }));
    });
  }
  // logsumexp (self, dim, keepdim): max-shifted; an infinite max is not subtracted.
  r.add("aten.logsumexp", [](KernelContext& ctx) {
    Tensor t = ctx.tensor("self");
    require_real(ctx, t, "logsumexp");
    std::vector<size_t> dims = reduction_dims(ctx, t.rank());
    bool keepdim = ctx.boolean("keepdim", false);
    DType out = to_floating(t.dtype());
    return RValue::of(reduce(t, dims_of(t, dims), keepdim, out, [out](const Group& g) {
      double m = -kInf;
      for (const Scalar& x : g) m = std::max(m, cast(x, out).f);
      if (std::isinf(m)) m = 0;
      double s = 0;
      for (const Scalar& x : g) s += std::exp(cast(x, out).f - m);
      return Scalar::of_float(std::log(s) + m);
    }));
  });
  r.add("aten.norm", vector_norm("p", "norm()"));
  r.add("aten.linalg_vector_norm", vector_norm("ord", "linalg.vector_norm"));
  r.add("aten.count_nonzero", [](KernelContext& ctx) {
    Tensor t = ctx.tensor("self");
    std::vector<size_t> dims = reduction_dims(ctx, t.rank());
    return RValue::of(reduce(t, dims_of(t, dims), false, DType::Int64, [](const Group& g) {
      int64_t n = 0;
      for (const Scalar& x : g) n += x.as_bool() ? 1 : 0;
      return Scalar::of_int(n);
    }));
  });

  r.add("aten.cumsum", cumulative(false));
  r.add("aten.cumprod", cumulative(true));
  r.add("aten.logcumsumexp", [](KernelContext& ctx) {
    Tensor t = ctx.tensor("self");
    if (!ctx.has("dim")) ctx.bad_input("missing argument 'dim'");
    if (!is_floating(t.dtype())) {
      ctx.fail("logcumsumexp is only supported for floating point tensors, got " +
               dtype_name(t.dtype()));
    }
    size_t d = scan_dim(ctx, t, 0);
    return RValue::of(along(t, d, t.dtype(), [](const Group& line) {
      Group y;
      double acc = -kInf;
      for (const Scalar& x : line) {
        acc = log_add_exp(acc, x.as_double());
        y.push_back(Scalar::of_float(acc));
      }
      return y;
    }));
  });
  // cummax / cummin (self, dim): a NaN sticks (with the latest NaN's index); ties take the
  // later index (PyTorch's >= / <=).
  for (bool largest : {true, false}) {
    r.add(largest ? "aten.cummax" : "aten.cummin", [largest](KernelContext& ctx) {
      Tensor t = ctx.tensor("self");
      require_real(ctx, t, largest ? "cummax" : "cummin");
      if (!ctx.has("dim")) ctx.bad_input("missing argument 'dim'");
      size_t d = scan_dim(ctx, t, 0);
      int64_t n = t.rank() == 0 ? 1 : t.size(static_cast<int64_t>(d));
      return along_pair(t, d, t.dtype(), n, [largest](const Group& line) {
        Group values;
        std::vector<int64_t> indices;
        Scalar best;
        int64_t index = 0;
        for (size_t k = 0; k < line.size(); ++k) {
          const Scalar& x = line[k];
          bool take =
              k == 0 || is_nan(x) || (!is_nan(best) && (largest ? !less(x, best) : !less(best, x)));
          if (take) {
            best = x;
            index = static_cast<int64_t>(k);
          }
          values.push_back(best);
          indices.push_back(index);
        }
        return std::make_pair(values, indices);
      });
    });
  }

  r.add("aten.softmax", softmax(false, false));
  r.add("aten.log_softmax", softmax(true, false));
  r.add("aten._softmax", softmax(false, true));
  r.add("aten._log_softmax", softmax(true, true));
  r.add("aten._softmax_backward_data", softmax_backward(false));
  r.add("aten._log_softmax_backward_data", softmax_backward(true));

  // topk (self, k, dim=-1, largest=True, sorted=True): the k largest (smallest), in order.
  r.add("aten.topk", [](KernelContext& ctx) {
    Tensor t = ctx.tensor("self");
    require_real(ctx, t, "topk");
    int64_t k = ctx.integer("k");
    size_t d = scan_dim(ctx, t, -1);
    bool largest = ctx.boolean("largest", true);
    int64_t size = t.rank() == 0 ? 1 : t.size(static_cast<int64_t>(d));
    if (k < 0 || k > size) {
      ctx.fail("selected index k out of range: k = " + std::to_string(k) + " for size " +
               std::to_string(size) + " of " + t.str() + " at dim " + std::to_string(d));
    }
    if (t.rank() == 0 && k != 1) ctx.fail("topk of a 0-dim tensor needs k = 1");
    return along_pair(t, d, t.dtype(), k, [&](const Group& line) {
      auto [values, order] = pick(line, sorted_order(line, largest));
      values.resize(static_cast<size_t>(k));
      order.resize(static_cast<size_t>(k));
      return std::make_pair(values, order);
    });
  });
  r.add("aten.sort", sort);
  r.add("aten.sort.stable", sort);
  r.add("aten.argsort", argsort);
  r.add("aten.argsort.stable", argsort);
  r.add("aten.kthvalue", [](KernelContext& ctx) {
    Tensor t = ctx.tensor("self");
    int64_t k = ctx.integer("k");
    size_t d = scan_dim(ctx, t, -1);
    int64_t size = t.rank() == 0 ? 1 : t.size(static_cast<int64_t>(d));
    if (k < 1 || k > size) {
      ctx.fail("kthvalue(): selected number k = " + std::to_string(k) +
               " out of range for dimension " + std::to_string(d) + " of size " +
               std::to_string(size));
    }
    return select_along(ctx, t, -1, "kthvalue",
                        [k](const Group& g) { return kth(g, static_cast<size_t>(k - 1)); });
  });
  r.add("aten.mode", [](KernelContext& ctx) {
    Tensor t = ctx.tensor("self");
    return select_along(ctx, t, -1, "mode", mode_of);
  });
  r.add("aten.median", median(false, "median"));
  r.add("aten.nanmedian", median(true, "nanmedian"));
}

}  // namespace symshape::interp::kernels
