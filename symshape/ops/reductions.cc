// Reductions: sum, mean, amax, var, argmax, max/min, any/all, norms; scans (cumsum); softmax;
// topk and sort.
#include <limits>

#include "symshape/ops/families.h"

namespace symshape::ops {

namespace {

std::string dtype_name(DType d) { return std::string(to_string(d)); }

// sum, prod, cumsum: bool and integer inputs accumulate in int64 unless a dtype is given.
DType accumulate_dtype(DType in, std::optional<DType> requested) {
  if (requested) return *requested;
  return in == DType::Bool || is_integral(in) ? DType::Int64 : in;
}

bool is_float_or_complex(DType d) { return is_floating(d) || is_complex(d); }

DType real_of(DType d) { return is_complex(d) ? complex_to_real(d) : d; }

Value reduced(const TensorMeta& t, const std::vector<size_t>& dims, bool keepdim, DType dtype) {
  return Value::of(contiguous(dtype, reduce_shape(t.sizes, dims, keepdim)));
}

std::vector<size_t> all_dims(size_t rank) {
  std::vector<size_t> out;
  for (size_t i = 0; i < rank; ++i) out.push_back(i);
  return out;
}

// max-like reductions have no identity: a reduced dim may not be empty. Without a dim, the
// whole tensor may not be.
void require_nonempty(const OpContext& ctx, const TensorMeta& t, const std::vector<size_t>& dims,
                      bool dim_given, const std::string& op) {
  for (size_t d : dims) {
    if (d >= t.rank()) continue;  // rank 0
    const std::string message =
        dim_given ? op + "(): expected reduction dim " + std::to_string(d) +
                        " to have non-zero size, got a tensor of shape " + shape_str(t.sizes)
                  : op + "(): cannot reduce a tensor with no elements without a dim (shape " +
                        shape_str(t.sizes) + ")";
    require(ctx, t.sizes[d] != 0, "reduction_nonempty", message);
  }
}

// The one dim an indexed reduction (max.dim, sort, cumsum, ...) works along.
size_t single_dim(const OpContext& ctx, const TensorMeta& t, int64_t fallback) {
  return ctx.normalize_dim(ctx.constant("dim", fallback), t.rank());
}

Value values_and_indices(const TensorMeta& t, std::vector<Expr> sizes) {
  return Value::list({Value::of(contiguous(t.dtype, sizes)),
                      Value::of(contiguous(DType::Int64, std::move(sizes)))});
}

// sum / nansum / prod: (self, dim, keepdim, *, dtype).
Value sum_like(OpContext& ctx) {
  TensorMeta t = ctx.tensor("self");
  std::vector<size_t> dims = reduction_dims(ctx, t.rank());
  bool keepdim = ctx.boolean("keepdim", false);
  return reduced(t, dims, keepdim, accumulate_dtype(t.dtype, ctx.dtype("dtype")));
}

// mean / nanmean: the result must be floating or complex; PyTorch does not pick one for ints.
Value mean(OpContext& ctx) {
  TensorMeta t = ctx.tensor("self");
  std::vector<size_t> dims = reduction_dims(ctx, t.rank());
  bool keepdim = ctx.boolean("keepdim", false);
  std::optional<DType> requested = ctx.dtype("dtype");
  DType out = requested.value_or(t.dtype);
  if (!is_float_or_complex(out)) {
    ctx.bad_input(std::string("mean(): could not infer output dtype. ") +
                  (requested ? "Optional dtype" : "Input dtype") +
                  " must be either a floating point or complex dtype, got " + dtype_name(out));
  }
  return reduced(t, dims, keepdim, out);
}

// amax / amin: (self, dim=[], keepdim).
Value amax_like(OpContext& ctx, const std::string& op) {
  TensorMeta t = ctx.tensor("self");
  std::vector<size_t> dims = reduction_dims(ctx, t.rank());
  auto given = ctx.optional_int_list("dim");
  require_nonempty(ctx, t, dims, given && !given->empty(), op);
  return reduced(t, dims, ctx.boolean("keepdim", false), t.dtype);
}

// var / std (dim and correction overloads): (self, dim, unbiased | *correction, keepdim).
// `whole` is the .default overload (self, unbiased), which reduces everything. With `with_mean`
// (var_mean, std_mean) the result is (var, mean).
Value variance(OpContext& ctx, bool whole, bool with_mean) {
  TensorMeta t = ctx.tensor("self");
  if (!is_float_or_complex(t.dtype)) {
    ctx.bad_input("std and var only support floating point and complex dtypes, got " +
                  dtype_name(t.dtype));
  }
  std::vector<size_t> dims = whole ? all_dims(t.rank()) : reduction_dims(ctx, t.rank());
  bool keepdim = !whole && ctx.boolean("keepdim", false);
  // The correction changes no shape, but a malformed one is bad input all the same.
  if (whole || !ctx.has("correction")) {
    ctx.boolean("unbiased", true);
  } else {
    ctx.real("correction", 1);
  }
  Value var = reduced(t, dims, keepdim, real_of(t.dtype));
  if (!with_mean) return var;
  return Value::list({var, reduced(t, dims, keepdim, t.dtype)});
}

// argmax / argmin: (self, dim=None, keepdim). Without a dim the whole tensor is reduced (to
// all-ones sizes under keepdim).
Value arg_reduction(OpContext& ctx, const std::string& op) {
  TensorMeta t = ctx.tensor("self");
  bool keepdim = ctx.boolean("keepdim", false);
  if (!ctx.has("dim")) {
    require_nonempty(ctx, t, all_dims(t.rank()), false, op);
    return reduced(t, all_dims(t.rank()), keepdim, DType::Int64);
  }
  std::vector<size_t> dims = {single_dim(ctx, t, 0)};
  require_nonempty(ctx, t, dims, true, op);
  return reduced(t, dims, keepdim, DType::Int64);
}

// max / min: the overload is told by the arguments: (self) reduces everything, (self, dim,
// keepdim) gives (values, indices), (self, other) is the elementwise maximum.
Value max_like(OpContext& ctx, const std::string& op) {
  TensorMeta t = ctx.tensor("self");
  if (ctx.is_tensor_arg("other")) {
    TensorMeta other = ctx.tensor("other");
    return Value::of(contiguous(promote_types(t.dtype, other.dtype),
                                broadcast_shapes(ctx, t.sizes, other.sizes)));
  }
  if (!ctx.has("dim")) {
    require_nonempty(ctx, t, all_dims(t.rank()), false, op);
    return Value::of(contiguous(t.dtype, {}));
  }
  std::vector<size_t> dims = {single_dim(ctx, t, 0)};
  require_nonempty(ctx, t, dims, true, op);
  return values_and_indices(t, reduce_shape(t.sizes, dims, ctx.boolean("keepdim", false)));
}

// any / all: bool, except that uint8 stays uint8 (as PyTorch keeps it for compatibility).
Value any_all(OpContext& ctx) {
  TensorMeta t = ctx.tensor("self");
  std::vector<size_t> dims = reduction_dims(ctx, t.rank());
  bool keepdim = ctx.boolean("keepdim", false);
  return reduced(t, dims, keepdim, t.dtype == DType::UInt8 ? DType::UInt8 : DType::Bool);
}

// norm (p, dim, keepdim, *dtype) and linalg_vector_norm (ord, dim, keepdim, *dtype): a real
// result of a floating or complex input.
Value vector_norm(OpContext& ctx, const std::string& op) {
  TensorMeta t = ctx.tensor("self");
  if (!is_float_or_complex(t.dtype)) {
    ctx.bad_input(op + ": expected a floating point or complex tensor as input, got " +
                  dtype_name(t.dtype));
  }
  ctx.real(op == "norm()" ? "p" : "ord", 2);  // the order: a number
  std::vector<size_t> dims = reduction_dims(ctx, t.rank());
  bool keepdim = ctx.boolean("keepdim", false);
  DType out = real_of(ctx.dtype("dtype").value_or(t.dtype));
  return reduced(t, dims, keepdim, out);
}

// cumsum / cumprod: (self, dim, *, dtype); the shape is kept.
Value scan(OpContext& ctx, bool accumulate) {
  TensorMeta t = ctx.tensor("self");
  if (!ctx.has("dim")) ctx.bad_input("missing argument 'dim'");
  single_dim(ctx, t, 0);
  DType out = accumulate ? accumulate_dtype(t.dtype, ctx.dtype("dtype")) : t.dtype;
  return Value::of(contiguous(out, t.sizes));
}

// softmax.int / log_softmax.int (self, dim, dtype) and _softmax / _log_softmax (self, dim,
// half_to_float): same shape, floating point.
Value softmax(OpContext& ctx, bool internal) {
  TensorMeta t = ctx.tensor("self");
  if (!ctx.has("dim")) ctx.bad_input("missing argument 'dim'");
  single_dim(ctx, t, 0);
  DType out = t.dtype;
  if (internal) {
    if (ctx.boolean("half_to_float", false)) out = DType::Float32;
  } else if (auto requested = ctx.dtype("dtype")) {
    out = *requested;
  }
  if (!is_float_or_complex(out)) {
    ctx.bad_input("softmax needs a floating point input (or dtype), got " + dtype_name(out));
  }
  return Value::of(contiguous(out, t.sizes));
}

// _softmax_backward_data / _log_softmax_backward_data (grad_output, output, dim, input_dtype).
Value softmax_backward(OpContext& ctx) {
  TensorMeta grad = ctx.tensor("grad_output");
  TensorMeta output = ctx.tensor("output");
  single_dim(ctx, grad, 0);
  const std::string mismatch = "softmax backward: grad_output " + shape_str(grad.sizes) +
                               " and output " + shape_str(output.sizes) + " differ";
  if (grad.rank() != output.rank()) ctx.fail(mismatch);
  for (size_t d = 0; d < grad.rank(); ++d) {
    ctx.require_equal(grad.sizes[d], output.sizes[d], "softmax_backward", mismatch);
  }
  return Value::of(contiguous(ctx.dtype("input_dtype").value_or(grad.dtype), grad.sizes));
}

// topk (self, k, dim=-1, largest, sorted): k along dim, 0 <= k <= size.
Value topk(OpContext& ctx) {
  TensorMeta t = ctx.tensor("self");
  Expr k = ctx.integer("k");
  size_t d = single_dim(ctx, t, -1);
  ctx.boolean("largest", true);
  Expr size = t.rank() == 0 ? Expr(1) : t.sizes[d];
  require(ctx, k >= 0 && k <= size, "topk", [&] {
    return "selected index k out of range: k = " + ctx.simplify(k).str() + " for size " +
           ctx.simplify(size).str() + " of " + shape_str(t.sizes) + " at dim " + std::to_string(d);
  });
  std::vector<Expr> sizes = t.sizes;
  if (t.rank() > 0) sizes[d] = ctx.simplify(k);
  return values_and_indices(t, sizes);
}

// sort (self, dim=-1, descending) and sort.stable (self, *, stable, dim=-1, descending).
Value sort(OpContext& ctx) {
  TensorMeta t = ctx.tensor("self");
  single_dim(ctx, t, -1);
  ctx.boolean("descending", false);
  return values_and_indices(t, t.sizes);
}

Value argsort(OpContext& ctx) {
  TensorMeta t = ctx.tensor("self");
  single_dim(ctx, t, -1);
  ctx.boolean("descending", false);
  return Value::of(contiguous(DType::Int64, t.sizes));
}

// kthvalue (self, k, dim=-1, keepdim), mode (self, dim=-1, keepdim), median.dim (self, dim,
// keepdim): (values, indices) with dim reduced.
Value select_along(OpContext& ctx, int64_t fallback, const std::string& op) {
  TensorMeta t = ctx.tensor("self");
  std::vector<size_t> dims = {single_dim(ctx, t, fallback)};
  require_nonempty(ctx, t, dims, true, op);
  bool keepdim = ctx.boolean("keepdim", false);
  return values_and_indices(t, reduce_shape(t.sizes, dims, keepdim));
}

// median / nanmedian: (self) gives a scalar, (self, dim, keepdim) values and indices.
Value median(OpContext& ctx, const std::string& op) {
  if (ctx.has("dim")) return select_along(ctx, 0, op);
  TensorMeta t = ctx.tensor("self");
  require_nonempty(ctx, t, all_dims(t.rank()), false, op);
  return Value::of(contiguous(t.dtype, {}));
}

}  // namespace

void register_reductions(OpRegistry& r) {
  r.add("aten.sum", sum_like);
  r.add("aten.nansum", sum_like);
  r.add("aten.prod", sum_like);
  r.add("aten.mean", mean);
  r.add("aten.nanmean", mean);
  r.add("aten.amax", [](OpContext& ctx) { return amax_like(ctx, "amax"); });
  r.add("aten.amin", [](OpContext& ctx) { return amax_like(ctx, "amin"); });
  for (const char* op : {"var", "std"}) {
    const std::string name = std::string("aten.") + op;
    r.add(name, [](OpContext& ctx) { return variance(ctx, false, false); });
    r.add(name + ".default", [](OpContext& ctx) { return variance(ctx, true, false); });
    r.add(name + "_mean", [](OpContext& ctx) { return variance(ctx, false, true); });
    r.add(name + "_mean.default", [](OpContext& ctx) { return variance(ctx, true, true); });
  }
  r.add("aten.argmax", [](OpContext& ctx) { return arg_reduction(ctx, "argmax"); });
  r.add("aten.argmin", [](OpContext& ctx) { return arg_reduction(ctx, "argmin"); });
  r.add("aten.max", [](OpContext& ctx) { return max_like(ctx, "max"); });
  r.add("aten.min", [](OpContext& ctx) { return max_like(ctx, "min"); });
  // aminmax (self, *, dim=None, keepdim): (min, max).
  r.add("aten.aminmax", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor("self");
    bool dim_given = ctx.has("dim");
    std::vector<size_t> dims =
        dim_given ? std::vector<size_t>{single_dim(ctx, t, 0)} : all_dims(t.rank());
    require_nonempty(ctx, t, dims, dim_given, "aminmax");
    Value v = reduced(t, dims, ctx.boolean("keepdim", false), t.dtype);
    return Value::list({v, v});
  });
  r.add("aten.any", any_all);
  r.add("aten.all", any_all);
  r.add("aten.logsumexp", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor("self");
    std::vector<size_t> dims = reduction_dims(ctx, t.rank());
    return reduced(t, dims, ctx.boolean("keepdim", false), to_floating(t.dtype));
  });
  r.add("aten.norm", [](OpContext& ctx) { return vector_norm(ctx, "norm()"); });
  r.add("aten.linalg_vector_norm",
        [](OpContext& ctx) { return vector_norm(ctx, "linalg.vector_norm"); });
  r.add("aten.count_nonzero", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor("self");
    return reduced(t, reduction_dims(ctx, t.rank()), false, DType::Int64);
  });

  r.add("aten.cumsum", [](OpContext& ctx) { return scan(ctx, true); });
  r.add("aten.cumprod", [](OpContext& ctx) { return scan(ctx, true); });
  r.add("aten.logcumsumexp", [](OpContext& ctx) { return scan(ctx, false); });
  for (const char* op : {"aten.cummax", "aten.cummin"}) {
    r.add(op, [](OpContext& ctx) {
      TensorMeta t = ctx.tensor("self");
      if (!ctx.has("dim")) ctx.bad_input("missing argument 'dim'");
      single_dim(ctx, t, 0);
      return values_and_indices(t, t.sizes);
    });
  }

  r.add("aten.softmax", [](OpContext& ctx) { return softmax(ctx, false); });
  r.add("aten.log_softmax", [](OpContext& ctx) { return softmax(ctx, false); });
  r.add("aten._softmax", [](OpContext& ctx) { return softmax(ctx, true); });
  r.add("aten._log_softmax", [](OpContext& ctx) { return softmax(ctx, true); });
  r.add("aten._softmax_backward_data", softmax_backward);
  r.add("aten._log_softmax_backward_data", softmax_backward);

  r.add("aten.topk", topk);
  r.add("aten.sort", [](OpContext& ctx) { return sort(ctx); });
  r.add("aten.sort.stable", [](OpContext& ctx) { return sort(ctx); });
  r.add("aten.argsort", [](OpContext& ctx) { return argsort(ctx); });
  r.add("aten.argsort.stable", [](OpContext& ctx) { return argsort(ctx); });
  r.add("aten.kthvalue", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor("self");
    Expr k = ctx.integer("k");
    size_t d = single_dim(ctx, t, -1);
    Expr size = t.rank() == 0 ? Expr(1) : t.sizes[d];
    require(ctx, k >= 1 && k <= size, "kthvalue", [&] {
      return "kthvalue(): selected number k = " + ctx.simplify(k).str() +
             " out of range for dimension " + std::to_string(d) + " of size " +
             ctx.simplify(size).str();
    });
    return select_along(ctx, -1, "kthvalue");
  });
  r.add("aten.mode", [](OpContext& ctx) { return select_along(ctx, -1, "mode"); });
  r.add("aten.median", [](OpContext& ctx) { return median(ctx, "median"); });
  r.add("aten.nanmedian", [](OpContext& ctx) { return median(ctx, "nanmedian"); });
}

}  // namespace symshape::ops
