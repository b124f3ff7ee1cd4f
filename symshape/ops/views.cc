// Views and shape ops: reshape with an inferred -1, permutations, expand, squeeze, slicing with
// clamping, split / chunk / unbind, cat / stack, repeat, padding, pixel shuffle, as_strided.
#include <algorithm>
#include <limits>
#include <optional>

#include "symshape/ops/families.h"
#include "symshape/ops/validate/views.h"

namespace symshape::ops {

namespace {

std::vector<Expr> strides_of(const TensorMeta& t) {
  return t.strides.size() == t.rank() ? t.strides : TensorMeta::contiguous_strides(t.sizes);
}

TensorMeta with_strides(DType dtype, std::vector<Expr> sizes, std::vector<Expr> strides) {
  TensorMeta t;
  t.dtype = dtype;
  t.sizes = std::move(sizes);
  t.strides = std::move(strides);
  return t;
}

Expr product(const std::vector<Expr>& sizes, size_t begin = 0, size_t end = SIZE_MAX) {
  Expr p = 1;
  for (size_t i = begin; i < std::min(end, sizes.size()); ++i) p *= sizes[i];
  return p;
}

// A dim for an op that inserts one (unsqueeze, stack): [-(rank+1), rank].
size_t insertion_dim(const OpContext& ctx, int64_t dim, size_t rank) {
  return ctx.normalize_dim(dim, rank + 1);
}

// The target sizes of a reshape with at most one -1 inferred so that numel is kept. The
// inferred size needs `numel % known == 0` (a guard, which records the divisibility) and a
// nonzero known part, as PyTorch's infer_size checks.
std::vector<Expr> infer_size(const OpContext& ctx, std::vector<Expr> shape, const Expr& numel) {
  std::optional<size_t> infer;
  Expr known = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i].is_constant() && *shape[i].constant() == -1) {
      if (infer) ctx.bad_input("only one dimension can be inferred in " + shape_str(shape));
      infer = i;
    } else if (shape[i].is_constant() && *shape[i].constant() < 0) {
      ctx.bad_input("invalid size " + shape[i].str() + " in " + shape_str(shape));
    } else {
      known *= shape[i];
    }
  }
  // The messages are built only on failure: printing shapes costs more than the checks.
  const std::function<std::string()> invalid = [&] {
    return "shape " + shape_str(shape) + " is invalid for input of size " +
           ctx.simplify(numel).str();
  };
  if (infer) {
    require(ctx, known != 0, "reshape_infer", [&] {
      return "cannot reshape tensor of " + ctx.simplify(numel).str() + " elements into shape " +
             shape_str(shape) +
             " because the unspecified dimension size -1 can be any value and is ambiguous";
    });
    require(ctx, mod(numel, known) == 0, "reshape_divisible", invalid);
    shape[*infer] = ctx.simplify(floordiv(numel, known));
  } else {
    ctx.require_equal(numel, known, "reshape_numel", invalid);
  }
  for (Expr& e : shape) e = ctx.simplify(e);
  return shape;
}

// A tensor's dim k for an op that needs at least one dim.
size_t existing_dim(const OpContext& ctx, const TensorMeta& t, int64_t dim, const char* op) {
  if (t.rank() == 0) ctx.bad_input(std::string(op) + " cannot be applied to a 0-dim tensor");
  return ctx.normalize_dim(dim, t.rank());
}

// A decision about sizes: static when possible, size-oblivious for data-dependent ones, else a
// guard on the hints.
bool decide_sizes(const OpContext& ctx, const Cond& c, std::string_view rule) {
  Truth t = ctx.known(c);
  if (t != Truth::Unknown) return t == Truth::True;
  return ctx.decide_size_oblivious(c, rule);
}

// Whether t's strides are row-major for its sizes (a size-1 dim's stride does not matter).
// Structural: it never guards.
bool is_contiguous(const OpContext& ctx, const TensorMeta& t) {
  if (t.strides.size() != t.rank()) return true;
  const std::vector<Expr> dense = TensorMeta::contiguous_strides(t.sizes);
  for (size_t d = 0; d < t.rank(); ++d) {
    if (ctx.known(t.sizes[d] == 1) == Truth::True) continue;
    if (ctx.known(t.strides[d] == dense[d]) != Truth::True) return false;
  }
  return true;
}

}  // namespace

std::optional<std::vector<Expr>> view_strides(const OpContext& ctx, const TensorMeta& t,
                                              const std::vector<Expr>& shape) {
  if (is_contiguous(ctx, t)) return TensorMeta::contiguous_strides(shape);
  const std::vector<Expr>& old = t.strides;
  if (ctx.known(t.numel() == 0) == Truth::True) {
    // Strides are arbitrary without elements: NumPy's choice, as if computed by resize.
    bool same = shape.size() == t.rank();
    for (size_t d = 0; same && d < shape.size(); ++d) same = shape[d].identical(t.sizes[d]);
    if (same) return old;
    std::vector<Expr> out(shape.size(), Expr(1));
    for (size_t d = shape.size(); d-- > 1;)
      out[d - 1] = ctx.simplify(max(shape[d], Expr(1)) * out[d]);
    return out;
  }
  std::vector<Expr> out(shape.size());
  long view_d = static_cast<long>(shape.size()) - 1;
  Expr chunk_base = old.back(), tensor_numel = 1, view_numel = 1;
  for (long d = static_cast<long>(t.rank()) - 1; d >= 0; --d) {
    const size_t k = static_cast<size_t>(d);
    tensor_numel *= t.sizes[k];
    // A chunk ends where the next dim out is not laid out right after this one.
    const bool chunk_end =
        d == 0 || (decide_sizes(ctx, t.sizes[k - 1] != 1, "view_stride") &&
                   decide_sizes(ctx, old[k - 1] != tensor_numel * chunk_base, "view_stride"));
    if (!chunk_end) continue;
    while (view_d >= 0 &&
           (decide_sizes(ctx, view_numel < tensor_numel, "view_stride") ||
            decide_sizes(ctx, shape[static_cast<size_t>(view_d)] == 1, "view_stride"))) {
      out[static_cast<size_t>(view_d)] = ctx.simplify(view_numel * chunk_base);
      view_numel *= shape[static_cast<size_t>(view_d)];
      --view_d;
    }
    if (!decide_sizes(ctx, view_numel == tensor_numel, "view_stride")) return std::nullopt;
    if (d > 0) {
      chunk_base = old[k - 1];
      tensor_numel = 1;
      view_numel = 1;
    }
  }
  if (view_d != -1) return std::nullopt;
  return out;
}

namespace {

enum class Reshape { View, Reshape, Copy };

// view / reshape / view_copy of self to `target` sizes (with -1 inferred). A view keeps the
// storage (its strides follow the input, or it fails); reshape copies when it cannot view.
// t with the given sizes (of the same numel): a view when its strides allow, else (reshape) a
// dense copy or (view) an error.
Value reshaped(OpContext& ctx, const TensorMeta& t, const std::vector<Expr>& shape, Reshape kind) {
  if (kind == Reshape::Copy) return Value::of(contiguous(t.dtype, shape));
  std::optional<std::vector<Expr>> strides;
  try {
    strides = view_strides(ctx, t, shape);
  } catch (const DataDependentError&) {
    // Whether it is a view depends on data: reshape then copies (as PyTorch's reshape does for
    // unbacked sizes); a view cannot.
    if (kind == Reshape::View) throw;
  }
  if (strides) return Value::of(with_strides(t.dtype, shape, *strides));
  if (kind == Reshape::View) {
    ctx.fail(
        "view size is not compatible with input tensor's size and stride (at least one "
        "dimension spans across two contiguous subspaces); use reshape instead");
  }
  return Value::of(contiguous(t.dtype, shape));
}

Value reshape_to(OpContext& ctx, const TensorMeta& t, const std::vector<Expr>& target,
                 Reshape kind) {
  return reshaped(ctx, t, infer_size(ctx, target, t.numel()), kind);
}

ShapeRule reshape(Reshape kind) {
  return [kind](OpContext& ctx) {
    // reshape calls the target sizes shape; view, view_copy and _unsafe_view call them size.
    const char* sizes = ctx.declares("shape") ? "shape" : "size";
    return reshape_to(ctx, ctx.tensor("self"), ctx.int_list(sizes), kind);
  };
}

Value permute(OpContext& ctx) {
  TensorMeta t = ctx.tensor("self");
  std::vector<Expr> dims = ctx.int_list("dims");
  if (dims.size() != t.rank()) {
    ctx.bad_input("permute needs " + std::to_string(t.rank()) + " dims, got " +
                  std::to_string(dims.size()));
  }
  std::vector<Expr> strides = strides_of(t), sizes, new_strides;
  std::vector<bool> seen(t.rank(), false);
  for (const Expr& d : dims) {
    if (!d.as_int64()) ctx.bad_input("permute dims must be constants");
    size_t k = ctx.normalize_dim(*d.as_int64(), t.rank());
    if (seen[k]) ctx.bad_input("permute dims repeat dim " + std::to_string(k));
    seen[k] = true;
    sizes.push_back(t.sizes[k]);
    new_strides.push_back(strides[k]);
  }
  return Value::of(with_strides(t.dtype, sizes, new_strides));
}

Value transpose_dims(OpContext& ctx, const TensorMeta& t, int64_t d0, int64_t d1) {
  size_t a = ctx.normalize_dim(d0, t.rank()), b = ctx.normalize_dim(d1, t.rank());
  if (t.rank() == 0) return Value::of(t);
  std::vector<Expr> sizes = t.sizes, strides = strides_of(t);
  std::swap(sizes[a], sizes[b]);
  std::swap(strides[a], strides[b]);
  return Value::of(with_strides(t.dtype, sizes, strides));
}

// Whether a dim of this size is 1 (squeezed, or stretched by expand): static when the range
// allows, size-oblivious for a data-dependent size, else a guard.
bool is_one(const OpContext& ctx, const Expr& size, std::string_view rule) {
  if (ctx.is_data_dependent(size)) {
    return ctx.decide_size_oblivious(size == 1, rule);
  }
  return ctx.decide(size == 1, rule);
}

Value expand(OpContext& ctx, const TensorMeta& t, const std::vector<Expr>& target) {
  if (target.size() < t.rank()) {
    ctx.bad_input("expand to " + shape_str(target) + " has fewer dims than the tensor " +
                  shape_str(t.sizes));
  }
  const size_t lead = target.size() - t.rank();
  std::vector<Expr> strides = strides_of(t), sizes(target.size()), out_strides(target.size());
  for (size_t i = 0; i < target.size(); ++i) {
    const Expr& want = target[i];
    const bool keep = want.is_constant() && *want.constant() == -1;
    if (!keep && ctx.known(want >= 0) == Truth::False) {
      ctx.bad_input("expand: invalid size " + want.str() + " in " + shape_str(target));
    }
    if (i < lead) {
      if (keep) ctx.bad_input("expand: -1 is not allowed for a new leading dim");
      sizes[i] = want;
      out_strides[i] = 0;
      continue;
    }
    const Expr& have = t.sizes[i - lead];
    if (keep || want.identical(have)) {
      sizes[i] = have;
      out_strides[i] = strides[i - lead];
    } else if (is_one(ctx, have, "expand")) {
      sizes[i] = want;
      out_strides[i] = 0;
    } else {
      ctx.require_equal(have, want, "expand", [&] {
        return "cannot expand " + shape_str(t.sizes) + " to " + shape_str(target) + " at dim " +
               std::to_string(i) + " (" + have.str() + " != " + want.str() + ")";
      });
      sizes[i] = have;
      out_strides[i] = strides[i - lead];
    }
  }
  for (Expr& s : sizes) s = ctx.simplify(s);
  return Value::of(with_strides(t.dtype, sizes, out_strides));
}

Value squeeze(OpContext& ctx) {
  TensorMeta t = ctx.tensor("self");
  std::vector<bool> drop(t.rank(), false);
  if (auto dims = ctx.optional_int_list("dim")) {
    for (const Expr& d : *dims) {
      if (!d.as_int64()) ctx.bad_input("squeeze dims must be constants");
      size_t k = ctx.normalize_dim(*d.as_int64(), t.rank());
      if (t.rank() > 0) drop[k] = is_one(ctx, t.sizes[k], "squeeze");
    }
  } else {
    for (size_t k = 0; k < t.rank(); ++k) drop[k] = is_one(ctx, t.sizes[k], "squeeze");
  }
  std::vector<Expr> sizes, strides, in_strides = strides_of(t);
  for (size_t k = 0; k < t.rank(); ++k) {
    if (drop[k]) continue;
    sizes.push_back(t.sizes[k]);
    strides.push_back(in_strides[k]);
  }
  return Value::of(with_strides(t.dtype, sizes, strides));
}

Value unsqueeze(OpContext& ctx) {
  TensorMeta t = ctx.tensor("self");
  size_t k = insertion_dim(ctx, ctx.constant("dim"), t.rank());
  std::vector<Expr> sizes = t.sizes, strides = strides_of(t);
  Expr stride = k < t.rank() ? strides[k] * sizes[k] : Expr(1);
  sizes.insert(sizes.begin() + static_cast<long>(k), Expr(1));
  strides.insert(strides.begin() + static_cast<long>(k), ctx.simplify(stride));
  return Value::of(with_strides(t.dtype, sizes, strides));
}

// flatten(start_dim, end_dim): a reshape merging those dims (self itself when they are one).
Value flatten(OpContext& ctx) {
  TensorMeta t = ctx.tensor("self");
  size_t start = ctx.normalize_dim(ctx.constant("start_dim", 0), t.rank());
  size_t end = ctx.normalize_dim(ctx.constant("end_dim", -1), t.rank());
  if (t.rank() == 0) return Value::of(contiguous(t.dtype, {Expr(1)}));
  if (start > end) ctx.bad_input("flatten: start_dim comes after end_dim");
  if (start == end) return Value::of(t);
  std::vector<Expr> sizes(t.sizes.begin(), t.sizes.begin() + static_cast<long>(start));
  sizes.push_back(ctx.simplify(product(t.sizes, start, end + 1)));
  sizes.insert(sizes.end(), t.sizes.begin() + static_cast<long>(end) + 1, t.sizes.end());
  return reshaped(ctx, t, sizes, Reshape::Reshape);
}

// unflatten(dim, sizes): dim split into sizes (one may be -1); always a view, the parts strided
// within the old dim's stride.
Value unflatten(OpContext& ctx) {
  TensorMeta t = ctx.tensor("self");
  size_t k = existing_dim(ctx, t, ctx.constant("dim"), "unflatten");
  std::vector<Expr> requested = ctx.int_list("sizes");
  if (requested.empty()) ctx.bad_input("unflatten: sizes must be non-empty");
  std::vector<Expr> parts = infer_size(ctx, requested, t.sizes[k]);
  const std::vector<Expr> in = strides_of(t);
  std::vector<Expr> part_strides(parts.size());
  Expr step = in[k];
  for (size_t j = parts.size(); j-- > 0;) {
    part_strides[j] = ctx.simplify(step);
    step *= parts[j];
  }
  std::vector<Expr> sizes(t.sizes.begin(), t.sizes.begin() + static_cast<long>(k));
  std::vector<Expr> strides(in.begin(), in.begin() + static_cast<long>(k));
  sizes.insert(sizes.end(), parts.begin(), parts.end());
  strides.insert(strides.end(), part_strides.begin(), part_strides.end());
  sizes.insert(sizes.end(), t.sizes.begin() + static_cast<long>(k) + 1, t.sizes.end());
  strides.insert(strides.end(), in.begin() + static_cast<long>(k) + 1, in.end());
  return Value::of(with_strides(t.dtype, sizes, strides));
}

// An index into a dim of `size`, wrapped when negative and clamped into [0, size] (slice
// semantics). The sign is decided statically when possible, else guarded.
Expr clamp_index(const OpContext& ctx, const Expr& index, const Expr& size, std::string_view rule) {
  Expr i = ctx.simplify(index);
  // A huge index (sys.maxsize, the default end of x[a:]) means "the end"; a hugely negative one
  // "the start": no tensor has a dim that long.
  const Int huge(std::numeric_limits<int64_t>::max() / 2);
  if (auto c = i.constant(); c && *c >= huge) return size;
  if (auto c = i.constant(); c && *c <= -huge) return Expr(0);
  bool negative = ctx.known(i < 0) == Truth::True ||
                  (ctx.known(i >= 0) != Truth::True && ctx.decide(i < 0, rule));
  Expr clamped = negative ? max(i + size, Expr(0)) : min(i, size);
  return ctx.simplify(clamped);
}

Value slice(OpContext& ctx) {
  TensorMeta t = ctx.tensor("self");
  size_t k = existing_dim(ctx, t, ctx.constant("dim", 0), "slice");
  const Expr& size = t.sizes[k];
  Expr step = ctx.integer("step", 1);
  if (ctx.known(step > 0) != Truth::True && !ctx.decide(step > 0, "slice_step")) {
    ctx.bad_input("slice step must be positive, got " + step.str());
  }
  Expr start = clamp_index(ctx, ctx.integer("start", 0), size, "slice_start");
  Expr end = ctx.has("end") ? clamp_index(ctx, ctx.integer("end"), size, "slice_end") : size;
  end = ctx.simplify(max(end, start));
  Expr len = ctx.simplify(floordiv(end - start + step - 1, step));
  std::vector<Expr> sizes = t.sizes, strides = strides_of(t);
  sizes[k] = len;
  strides[k] = ctx.simplify(strides[k] * step);
  return Value::of(with_strides(t.dtype, sizes, strides));
}

// narrow(dim, start, length): start may be negative (wrapped once); PyTorch's checks, each a
// guard (or a runtime assert for data-dependent values) when not static.
Value narrow(OpContext& ctx) {
  TensorMeta t = ctx.tensor("self");
  size_t k = existing_dim(ctx, t, ctx.constant("dim"), "narrow");
  const Expr& size = t.sizes[k];
  Expr start = ctx.simplify(ctx.integer("start"));
  Expr length = ctx.simplify(ctx.integer("length"));
  if (ctx.known(length >= 0) == Truth::False) {
    ctx.bad_input("narrow: length must be non-negative, got " + length.str());
  }
  require(ctx, -size <= start && start <= size, "narrow_start", [&] {
    return "narrow: start " + start.str() + " is out of range for dim " + std::to_string(k) +
           " of size " + size.str();
  });
  if (ctx.known(start >= 0) != Truth::True && ctx.decide(start < 0, "narrow_start")) {
    start = ctx.simplify(start + size);
  }
  require(ctx, length >= 0 && start + length <= size, "narrow_bounds", [&] {
    return "narrow: start " + start.str() + " + length " + length.str() + " exceeds dim " +
           std::to_string(k) + " of size " + size.str();
  });
  std::vector<Expr> sizes = t.sizes;
  sizes[k] = length;
  return Value::of(with_strides(t.dtype, sizes, strides_of(t)));
}

Value select(OpContext& ctx) {
  TensorMeta t = ctx.tensor("self");
  size_t k = existing_dim(ctx, t, ctx.constant("dim"), "select");
  Expr index = ctx.simplify(ctx.integer("index"));
  const Expr& size = t.sizes[k];
  require(ctx, index >= -size && index < size, "select_index", [&] {
    return "select: index " + index.str() + " is out of range for dim " + std::to_string(k) +
           " of size " + size.str();
  });
  std::vector<Expr> sizes = t.sizes, strides = strides_of(t);
  sizes.erase(sizes.begin() + static_cast<long>(k));
  strides.erase(strides.begin() + static_cast<long>(k));
  return Value::of(with_strides(t.dtype, sizes, strides));
}

// Pieces of `size` along dim k of `split_size` each (the last one shorter). The number of
// pieces must be concrete: it is guarded on the hints.
Value split_by_size(OpContext& ctx, const TensorMeta& t, size_t k, const Expr& split_size) {
  const Expr& size = t.sizes[k];
  if (ctx.known(split_size >= 0) != Truth::True && !ctx.decide(split_size >= 0, "split_size")) {
    ctx.bad_input("split expects split_size be non-negative, got " + split_size.str());
  }
  if (ctx.known(split_size > 0) != Truth::True && !ctx.decide(split_size > 0, "split_size")) {
    // A split size of 0 only splits an empty dim, into one empty piece.
    require(ctx, size == 0, "split_size", [&] {
      return "split_size can only be 0 if dimension size is 0, but got dimension size of " +
             size.str();
    });
    return Value::list({Value::of(with_strides(t.dtype, t.sizes, strides_of(t)))});
  }
  Int count = ctx.decide_int(ctx.simplify(max(ceildiv(size, split_size), Expr(1))), "split_count");
  output_count(ctx, count, "split");
  std::vector<Value> pieces;
  for (Int i = 0; i < count; i = i + 1) {
    std::vector<Expr> sizes = t.sizes;
    sizes[k] = i + 1 == count ? ctx.simplify(size - split_size * Expr(count - 1)) : split_size;
    pieces.push_back(Value::of(with_strides(t.dtype, sizes, strides_of(t))));
  }
  return Value::list(std::move(pieces));
}

// split_with_sizes(self, split_sizes, dim); split.sizes names the list `split_size`.
Value split_with_sizes(OpContext& ctx, std::string_view sizes_name) {
  TensorMeta t = ctx.tensor("self");
  std::vector<Expr> parts = ctx.int_list(sizes_name);
  size_t k = existing_dim(ctx, t, ctx.constant("dim", 0), "split_with_sizes");
  Expr total = 0;
  for (const Expr& p : parts) {
    if (ctx.known(p >= 0) == Truth::False) {
      ctx.bad_input("split_with_sizes expects split_sizes have only non-negative entries, got " +
                    shape_str(parts));
    }
    total += p;
  }
  ctx.require_equal(total, t.sizes[k], "split_with_sizes", [&] {
    return "split sizes " + shape_str(parts) + " do not add up to dim " + std::to_string(k) +
           " of size " + t.sizes[k].str();
  });
  std::vector<Value> pieces;
  for (const Expr& p : parts) {
    std::vector<Expr> sizes = t.sizes;
    sizes[k] = ctx.simplify(p);
    pieces.push_back(Value::of(with_strides(t.dtype, sizes, strides_of(t))));
  }
  return Value::list(std::move(pieces));
}

Value cat(OpContext& ctx) {
  std::vector<TensorMeta> all = ctx.tensor_list("tensors");
  if (all.empty()) ctx.bad_input("cat needs at least one tensor");
  // Every tensor takes part in type promotion, but (legacy behaviour) 1-d empty ones are
  // skipped for shapes. Positions in messages count from the full list, as PyTorch's do.
  DType dtype = all[0].dtype;
  std::vector<size_t> kept;
  for (size_t j = 0; j < all.size(); ++j) {
    dtype = promote_types(dtype, all[j].dtype);
    const TensorMeta& t = all[j];
    if (!(t.rank() == 1 && ctx.known(t.sizes[0] == 0) == Truth::True)) kept.push_back(j);
  }
  if (kept.empty()) return Value::of(contiguous(dtype, all[0].sizes));
  const TensorMeta& first = all[kept[0]];
  const size_t rank = first.rank();
  if (rank == 0) ctx.bad_input("cat cannot concatenate 0-dim tensors");
  size_t k = ctx.normalize_dim(ctx.constant("dim", 0), rank);
  Expr total = 0;
  for (size_t j : kept) {
    const TensorMeta& t = all[j];
    if (t.rank() != rank) {
      ctx.fail("cat: tensor " + std::to_string(j) + " has rank " + std::to_string(t.rank()) +
               " but tensor " + std::to_string(kept[0]) + " has rank " + std::to_string(rank));
    }
    total += t.sizes[k];
    for (size_t d = 0; d < rank; ++d) {
      if (d == k) continue;
      ctx.require_equal(first.sizes[d], t.sizes[d], "cat", [&] {
        return "Sizes of tensors must match except in dimension " + std::to_string(k) +
               ": expected size " + ctx.simplify(first.sizes[d]).str() + " but got size " +
               ctx.simplify(t.sizes[d]).str() + " for tensor number " + std::to_string(j) +
               " in the list (" + shape_str(first.sizes) + " and " + shape_str(t.sizes) + ")";
      });
    }
  }
  std::vector<Expr> sizes = first.sizes;
  sizes[k] = ctx.simplify(total);
  return Value::of(contiguous(dtype, sizes));
}

Value stack(OpContext& ctx) {
  std::vector<TensorMeta> ts = ctx.tensor_list("tensors");
  if (ts.empty()) ctx.bad_input("stack needs at least one tensor");
  size_t k = insertion_dim(ctx, ctx.constant("dim", 0), ts[0].rank());
  DType dtype = ts[0].dtype;
  for (size_t j = 1; j < ts.size(); ++j) {
    if (ts[j].rank() != ts[0].rank()) ctx.fail("stack: all tensors must have the same rank");
    dtype = promote_types(dtype, ts[j].dtype);
    for (size_t d = 0; d < ts[0].rank(); ++d) {
      ctx.require_equal(ts[0].sizes[d], ts[j].sizes[d], "stack", [&] {
        return "stack: sizes " + shape_str(ts[0].sizes) + " and " + shape_str(ts[j].sizes) +
               " differ";
      });
    }
  }
  std::vector<Expr> sizes = ts[0].sizes;
  sizes.insert(sizes.begin() + static_cast<long>(k), Expr(static_cast<long>(ts.size())));
  return Value::of(contiguous(dtype, sizes));
}

Value repeat(OpContext& ctx) {
  TensorMeta t = ctx.tensor("self");
  std::vector<Expr> reps = ctx.int_list("repeats");
  if (reps.size() < t.rank()) {
    ctx.bad_input("repeat needs at least as many repeats (" + std::to_string(reps.size()) +
                  ") as the tensor has dims (" + std::to_string(t.rank()) + ")");
  }
  std::vector<Expr> sizes(reps.size());
  const size_t lead = reps.size() - t.rank();
  for (size_t i = 0; i < reps.size(); ++i) {
    if (ctx.known(reps[i] >= 0) == Truth::False)
      ctx.bad_input("repeat counts must be non-negative");
    sizes[i] = ctx.simplify(i < lead ? reps[i] : reps[i] * t.sizes[i - lead]);
  }
  return Value::of(contiguous(t.dtype, sizes));
}

Value constant_pad(OpContext& ctx) {
  TensorMeta t = ctx.tensor("self");
  std::vector<Expr> pad = ctx.int_list("pad");
  if (pad.size() % 2 != 0 || pad.size() / 2 > t.rank()) {
    ctx.bad_input("pad must have an even length of at most twice the rank, got " +
                  std::to_string(pad.size()));
  }
  std::vector<Expr> sizes = t.sizes;
  for (size_t p = 0; p < pad.size() / 2; ++p) {
    size_t d = t.rank() - 1 - p;
    Expr s = ctx.simplify(sizes[d] + pad[2 * p] + pad[2 * p + 1]);
    if (!ctx.decide(s >= 0, "pad")) {
      ctx.fail("padding " + shape_str(pad) + " makes dim " + std::to_string(d) +
               " negative: " + s.str());
    }
    sizes[d] = s;
  }
  // PyTorch: without a positive pad, a clone of the (narrowed) input, laid out like it; else a
  // fresh tensor in the input's suggested memory format.
  bool positive = false;
  for (const Expr& p : pad) positive = positive || ctx.known(p <= 0) != Truth::True;
  TensorMeta out = contiguous(t.dtype, sizes);
  if (!positive) {
    TensorMeta narrowed = t;
    narrowed.sizes = sizes;
    out.strides = empty_like_strides(ctx, narrowed);
  } else {
    out.strides = suggested_format_strides(ctx, t, sizes);
  }
  return Value::of(out);
}

Value pixel_shuffle(OpContext& ctx, bool inverse) {
  TensorMeta t = ctx.tensor("self");
  if (t.rank() < 3) ctx.bad_input("pixel shuffle needs at least 3 dims, got " + shape_str(t.sizes));
  const char* factor = inverse ? "downscale_factor" : "upscale_factor";
  Expr r = ctx.integer(factor);
  if (ctx.known(r > 0) != Truth::True) {
    ctx.bad_input(std::string(factor) + " must be a positive constant, got " + r.str());
  }
  std::vector<Expr> sizes = t.sizes;
  const size_t c = t.rank() - 3, h = t.rank() - 2, w = t.rank() - 1;
  if (!inverse) {
    if (!ctx.decide(mod(sizes[c], r * r) == 0, "pixel_shuffle")) {
      ctx.fail("pixel_shuffle: channels " + sizes[c].str() + " are not divisible by " +
               ctx.simplify(r * r).str());
    }
    sizes[c] = ctx.simplify(floordiv(sizes[c], r * r));
    sizes[h] = ctx.simplify(sizes[h] * r);
    sizes[w] = ctx.simplify(sizes[w] * r);
  } else {
    for (size_t d : {h, w}) {
      if (!ctx.decide(mod(sizes[d], r) == 0, "pixel_unshuffle")) {
        ctx.fail("pixel_unshuffle: dim " + std::to_string(d) + " of size " + sizes[d].str() +
                 " is not divisible by " + r.str());
      }
      sizes[d] = ctx.simplify(floordiv(sizes[d], r));
    }
    sizes[c] = ctx.simplify(sizes[c] * r * r);
  }
  return Value::of(contiguous(t.dtype, sizes));
}

// roll / flip: self's shape; the dims must exist, and a roll's
// shifts go one per dim (one shift rolls the flattened tensor when dims is empty).
ShapeRule same_shape(bool roll) {
  return [roll](OpContext& ctx) {
    TensorMeta t = ctx.tensor("self");
    const std::vector<Expr> dims = ctx.int_list("dims", {});
    std::vector<size_t> seen;
    for (const Expr& d : dims) {
      if (!d.as_int64()) ctx.bad_input("dims must be constants, got " + d.str());
      const size_t k = ctx.normalize_dim(*d.as_int64(), t.rank());
      if (!roll && std::find(seen.begin(), seen.end(), k) != seen.end())
        ctx.bad_input("flip: dim " + std::to_string(k) + " appears more than once in dims");
      seen.push_back(k);
    }
    if (roll) {
      const size_t shifts = ctx.int_list("shifts").size();
      if (dims.empty() ? shifts != 1 : shifts != dims.size()) {
        ctx.bad_input("roll: " + std::to_string(shifts) + " shifts for " +
                      (dims.empty() ? std::string("the flattened tensor (needs 1)")
                                    : std::to_string(dims.size()) + " dims"));
      }
    }
    return Value::of(contiguous(t.dtype, t.sizes));
  };
}

// view.dtype: the same bytes as another dtype. Between element sizes the last dim (stride 1)
// is scaled and the other strides with it; a larger element needs them divisible.
Value view_dtype(OpContext& ctx) {
  TensorMeta t = ctx.tensor("self");
  auto d = ctx.dtype("dtype");
  if (!d) ctx.bad_input("view.dtype needs a dtype");
  const int from = item_size(t.dtype), to = item_size(*d);
  std::vector<Expr> sizes = t.sizes, strides = strides_of(t);
  if (from != to) {
    const std::string what = " to view " + std::string(to_string(t.dtype)) + " as " +
                             std::string(to_string(*d)) + " (different element sizes)";
    if (t.rank() == 0) ctx.fail("self.dim() cannot be 0" + what);
    const size_t last = t.rank() - 1;
    require(ctx, strides[last] == 1, "view_dtype",
            [&] { return "self.stride(-1) must be 1" + what; });
    if (from > to) {
      const Expr ratio(from / to);
      for (size_t i = 0; i < last; ++i) strides[i] = ctx.simplify(strides[i] * ratio);
      sizes[last] = ctx.simplify(sizes[last] * ratio);
    } else {
      const Expr ratio(to / from);
      require(ctx, mod(sizes[last], ratio) == 0, "view_dtype", [&] {
        return "self.size(-1) must be divisible by " + ratio.str() + what + ", but got " +
               ctx.simplify(sizes[last]).str();
      });
      for (size_t i = 0; i < last; ++i) {
        require(ctx, mod(strides[i], ratio) == 0, "view_dtype", [&] {
          return "self.stride(" + std::to_string(i) + ") must be divisible by " + ratio.str() +
                 what + ", but got " + ctx.simplify(strides[i]).str();
        });
        strides[i] = ctx.simplify(floordiv(strides[i], ratio));
      }
      sizes[last] = ctx.simplify(floordiv(sizes[last], ratio));
    }
  }
  return Value::of(with_strides(*d, sizes, strides));
}

}  // namespace

void register_views(OpRegistry& r) {
  r.add("aten.view", reshape(Reshape::View));
  r.add("aten.reshape", reshape(Reshape::Reshape));
  r.add("aten._unsafe_view", reshape(Reshape::Reshape));
  r.add("aten.view_copy", reshape(Reshape::Copy));
  r.add("aten._reshape_alias", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor("self");
    std::vector<Expr> shape = infer_size(ctx, ctx.int_list("size"), t.numel());
    std::vector<Expr> strides = ctx.int_list("stride");
    if (strides.size() != shape.size())
      ctx.bad_input("_reshape_alias: size and stride differ in length");
    return Value::of(with_strides(t.dtype, shape, strides));
  });
  r.add("aten.view.dtype", view_dtype);
  r.add("aten.reshape_as", [](OpContext& ctx) {
    return reshape_to(ctx, ctx.tensor("self"), ctx.tensor("other").sizes, Reshape::Reshape);
  });
  r.add("aten.view_as", [](OpContext& ctx) {
    return reshape_to(ctx, ctx.tensor("self"), ctx.tensor("other").sizes, Reshape::View);
  });
  r.add("aten.permute", permute);
  r.add("aten.transpose", [](OpContext& ctx) {
    return transpose_dims(ctx, ctx.tensor("self"), ctx.constant("dim0"), ctx.constant("dim1"));
  });
  r.add("aten.swapaxes", [](OpContext& ctx) {
    return transpose_dims(ctx, ctx.tensor("self"), ctx.constant("axis0"), ctx.constant("axis1"));
  });
  r.add("aten.t", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor("self");
    if (t.rank() > 2)
      ctx.bad_input("t() expects a tensor with at most 2 dims, got " + shape_str(t.sizes));
    return t.rank() < 2 ? Value::of(t) : transpose_dims(ctx, t, 0, 1);
  });
  r.add("aten.numpy_T", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor("self");
    std::vector<Expr> sizes(t.sizes.rbegin(), t.sizes.rend());
    std::vector<Expr> s = strides_of(t), strides(s.rbegin(), s.rend());
    return Value::of(with_strides(t.dtype, sizes, strides));
  });
  r.add("aten.movedim", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor("self");
    std::vector<Expr> src = ctx.int_list("source"), dst = ctx.int_list("destination");
    const std::vector<size_t> order = validate::movedim_order(ctx, src, dst, t.rank());
    std::vector<Expr> sizes, strides, in = strides_of(t);
    for (size_t o : order) {
      sizes.push_back(t.sizes[o]);
      strides.push_back(in[o]);
    }
    return Value::of(with_strides(t.dtype, sizes, strides));
  });
  r.add("aten.expand",
        [](OpContext& ctx) { return expand(ctx, ctx.tensor("self"), ctx.int_list("size")); });
  r.add("aten.expand_as",
        [](OpContext& ctx) { return expand(ctx, ctx.tensor("self"), ctx.tensor("other").sizes); });
  r.add("aten.squeeze", squeeze);
  r.add("aten.unsqueeze", unsqueeze);
  r.add("aten.flatten", flatten);
  r.add("aten.unflatten", unflatten);
  r.add("aten.slice", slice);
  r.add("aten.narrow", narrow);
  // slice_scatter / select_scatter(self, src, dim, ...): self with the slice (or the select)
  // that the same arguments would view replaced by src, which must have that view's sizes.
  for (auto [op, view] : {std::pair<const char*, ShapeRule>{"aten.slice_scatter", slice},
                          {"aten.select_scatter", select}}) {
    r.add(op, [name = std::string(op), view](OpContext& ctx) {
      TensorMeta self = ctx.tensor("self");
      TensorMeta src = ctx.tensor("src");
      const TensorMeta region = view(ctx).tensor;
      if (src.rank() != region.rank()) {
        ctx.bad_input(name + ": src " + shape_str(src.sizes) + " must have the shape of the view " +
                      shape_str(region.sizes) + " it replaces");
      }
      for (size_t d = 0; d < src.rank(); ++d) {
        require(ctx, src.sizes[d] == region.sizes[d], "scatter_src_size", [&] {
          return name + ": src " + shape_str(src.sizes) + " must have the shape of the view " +
                 shape_str(region.sizes) + " it replaces";
        });
      }
      return Value::of(contiguous(self.dtype, self.sizes));
    });
  }
  r.add("aten.select", select);
  r.add("aten.split", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor("self");
    if (t.rank() == 0) ctx.bad_input("split cannot be applied to a 0-dim tensor");
    size_t k = ctx.normalize_dim(ctx.constant("dim", 0), t.rank());
    const Arg* sizes = ctx.arg("split_size");
    if (sizes && sizes->kind == Arg::Kind::List) return split_with_sizes(ctx, "split_size");
    return split_by_size(ctx, t, k, ctx.integer("split_size"));
  });
  r.add("aten.split_with_sizes",
        [](OpContext& ctx) { return split_with_sizes(ctx, "split_sizes"); });
  r.add("aten.chunk", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor("self");
    if (t.rank() == 0) ctx.bad_input("chunk cannot be applied to a 0-dim tensor");
    int64_t chunks = ctx.constant("chunks");
    if (chunks <= 0)
      ctx.bad_input("chunk expects a positive number of chunks, got " + std::to_string(chunks));
    size_t k = ctx.normalize_dim(ctx.constant("dim", 0), t.rank());
    // An empty dim still gives `chunks` (empty) pieces, as PyTorch's chunk does.
    if (ctx.decide(t.sizes[k] == 0, "chunk_empty")) {
      return Value::list(
          std::vector<Value>(output_count(ctx, Int(chunks), "chunk"),
                             Value::of(with_strides(t.dtype, t.sizes, strides_of(t)))));
    }
    return split_by_size(ctx, t, k,
                         ctx.simplify(ceildiv(t.sizes[k], Expr(static_cast<long>(chunks)))));
  });
  r.add("aten.unbind", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor("self");
    if (t.rank() == 0) ctx.bad_input("unbind cannot be applied to a 0-dim tensor");
    size_t k = ctx.normalize_dim(ctx.constant("dim", 0), t.rank());
    Int n = ctx.decide_int(t.sizes[k], "unbind_count");
    output_count(ctx, n, "unbind");
    std::vector<Expr> sizes = t.sizes, strides = strides_of(t);
    sizes.erase(sizes.begin() + static_cast<long>(k));
    strides.erase(strides.begin() + static_cast<long>(k));
    std::vector<Value> items;
    for (Int i = 0; i < n; i = i + 1)
      items.push_back(Value::of(with_strides(t.dtype, sizes, strides)));
    return Value::list(std::move(items));
  });
  r.add("aten.cat", cat);
  r.add("aten.concat", cat);
  r.add("aten.concatenate", cat);
  r.add("aten.stack", stack);
  r.add("aten.repeat", repeat);
  r.add("aten.tile", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor("self");
    std::vector<Expr> dims = ctx.int_list("dims");
    for (const Expr& d : dims) {
      if (ctx.known(d >= 0) == Truth::False)
        ctx.bad_input("tile: negative repeat " + d.str() + " in " + shape_str(dims));
    }
    while (dims.size() < t.rank()) dims.insert(dims.begin(), Expr(1));
    std::vector<Expr> sizes(dims.size());
    const size_t lead = dims.size() - t.rank();
    for (size_t i = 0; i < dims.size(); ++i)
      sizes[i] = ctx.simplify(i < lead ? dims[i] : dims[i] * t.sizes[i - lead]);
    return Value::of(contiguous(t.dtype, sizes));
  });
  r.add("aten.repeat_interleave.self_int", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor("self");
    Expr reps = ctx.integer("repeats");
    if (ctx.known(reps >= 0) == Truth::False)
      ctx.bad_input("repeats can not be negative, got " + reps.str());
    if (!ctx.has("dim")) return Value::of(contiguous(t.dtype, {ctx.simplify(t.numel() * reps)}));
    size_t k = existing_dim(ctx, t, ctx.constant("dim"), "repeat_interleave");
    std::vector<Expr> sizes = t.sizes;
    sizes[k] = ctx.simplify(sizes[k] * reps);
    return Value::of(contiguous(t.dtype, sizes));
  });
  r.add("aten.roll", same_shape(true));
  r.add("aten.flip", same_shape(false));
  r.add("aten.constant_pad_nd", constant_pad);
  r.add("aten.pixel_shuffle", [](OpContext& ctx) { return pixel_shuffle(ctx, false); });
  r.add("aten.pixel_unshuffle", [](OpContext& ctx) { return pixel_shuffle(ctx, true); });
  r.add("aten.as_strided", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor("self");
    std::vector<Expr> sizes = ctx.int_list("size"), strides = ctx.int_list("stride");
    if (sizes.size() != strides.size())
      ctx.bad_input("as_strided: size and stride differ in length");
    for (const Expr& s : sizes) {
      if (ctx.known(s >= 0) == Truth::False) {
        ctx.bad_input("as_strided: negative size " + s.str() + " in " + shape_str(sizes));
      }
    }
    for (const Expr& s : strides) {
      if (ctx.known(s >= 0) == Truth::False) {
        ctx.bad_input("as_strided: negative stride " + s.str() + " in " + shape_str(strides));
      }
    }
    return Value::of(with_strides(t.dtype, sizes, strides));
  });
}

}  // namespace symshape::ops
