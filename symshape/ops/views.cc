// Views and shape ops: reshape with an inferred -1, permutations, expand, squeeze, slicing with
// clamping, split / chunk / unbind, cat / stack, repeat, padding, pixel shuffle, as_strided.
#include <algorithm>
#include <limits>

#include "symshape/ops/families.h"

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
// inferred size needs `known % numel == 0`: a guard, recorded as a divisibility fact.
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
  const std::string invalid =
      "shape " + shape_str(shape) + " is invalid for input of size " + ctx.simplify(numel).str();
  if (infer) {
    if (ctx.known(known == 0) == Truth::True) {
      ctx.fail(invalid + " (cannot infer -1 next to a zero size)");
    }
    if (!ctx.decide(mod(numel, known) == 0, "reshape_divisible")) ctx.fail(invalid);
    shape[*infer] = ctx.simplify(floordiv(numel, known));
  } else {
    ctx.require_equal(numel, known, "reshape_numel", invalid);
  }
  for (Expr& e : shape) e = ctx.simplify(e);
  return shape;
}

Value reshape(OpContext& ctx) {
  TensorMeta t = ctx.tensor(0, "self");
  std::vector<Expr> shape = infer_size(ctx, ctx.int_list(1, "size"), t.numel());
  return Value::of(contiguous(t.dtype, shape));
}

Value permute(OpContext& ctx) {
  TensorMeta t = ctx.tensor(0, "self");
  std::vector<Expr> dims = ctx.int_list(1, "dims");
  if (dims.size() != t.rank()) {
    ctx.bad_input("permute needs " + std::to_string(t.rank()) + " dims, got " + std::to_string(dims.size()));
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
  if (t.rank() == 0) return Value::of(t);
  size_t a = ctx.normalize_dim(d0, t.rank()), b = ctx.normalize_dim(d1, t.rank());
  std::vector<Expr> sizes = t.sizes, strides = strides_of(t);
  std::swap(sizes[a], sizes[b]);
  std::swap(strides[a], strides[b]);
  return Value::of(with_strides(t.dtype, sizes, strides));
}

Value expand(OpContext& ctx, const TensorMeta& t, const std::vector<Expr>& target) {
  if (target.size() < t.rank()) {
    ctx.bad_input("expand to " + shape_str(target) + " has fewer dims than the tensor " + shape_str(t.sizes));
  }
  const size_t lead = target.size() - t.rank();
  std::vector<Expr> strides = strides_of(t), sizes(target.size()), out_strides(target.size());
  for (size_t i = 0; i < target.size(); ++i) {
    const Expr& want = target[i];
    const bool keep = want.is_constant() && *want.constant() == -1;
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
    } else if (ctx.decide(have == 1, "expand")) {
      sizes[i] = want;
      out_strides[i] = 0;
    } else {
      ctx.require_equal(have, want, "expand",
                        "cannot expand " + shape_str(t.sizes) + " to " + shape_str(target) +
                            " at dim " + std::to_string(i) + " (" + have.str() + " != " + want.str() + ")");
      sizes[i] = have;
      out_strides[i] = strides[i - lead];
    }
  }
  for (Expr& s : sizes) s = ctx.simplify(s);
  return Value::of(with_strides(t.dtype, sizes, out_strides));
}

// Whether a dim of this size is squeezed: decided statically when the range allows.
bool is_one(const OpContext& ctx, const Expr& size) {
  if (ctx.env().is_data_dependent(size)) {
    return ctx.env().guard_size_oblivious(ctx.env().wrap(size == 1), ctx.where("squeeze"));
  }
  return ctx.decide(size == 1, "squeeze");
}

Value squeeze(OpContext& ctx) {
  TensorMeta t = ctx.tensor(0, "self");
  std::vector<bool> drop(t.rank(), false);
  if (auto dims = ctx.optional_int_list(1, "dim")) {
    for (const Expr& d : *dims) {
      if (!d.as_int64()) ctx.bad_input("squeeze dims must be constants");
      size_t k = ctx.normalize_dim(*d.as_int64(), t.rank());
      if (t.rank() > 0) drop[k] = is_one(ctx, t.sizes[k]);
    }
  } else {
    for (size_t k = 0; k < t.rank(); ++k) drop[k] = is_one(ctx, t.sizes[k]);
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
  TensorMeta t = ctx.tensor(0, "self");
  size_t k = insertion_dim(ctx, ctx.constant(1, "dim"), t.rank());
  std::vector<Expr> sizes = t.sizes, strides = strides_of(t);
  Expr stride = k < t.rank() ? strides[k] * sizes[k] : Expr(1);
  sizes.insert(sizes.begin() + static_cast<long>(k), Expr(1));
  strides.insert(strides.begin() + static_cast<long>(k), ctx.simplify(stride));
  return Value::of(with_strides(t.dtype, sizes, strides));
}

Value flatten(OpContext& ctx) {
  TensorMeta t = ctx.tensor(0, "self");
  if (t.rank() == 0) return Value::of(contiguous(t.dtype, {Expr(1)}));
  size_t start = ctx.normalize_dim(ctx.constant(1, "start_dim", 0), t.rank());
  size_t end = ctx.normalize_dim(ctx.constant(2, "end_dim", -1), t.rank());
  if (start > end) ctx.bad_input("flatten: start_dim comes after end_dim");
  std::vector<Expr> sizes(t.sizes.begin(), t.sizes.begin() + static_cast<long>(start));
  sizes.push_back(ctx.simplify(product(t.sizes, start, end + 1)));
  sizes.insert(sizes.end(), t.sizes.begin() + static_cast<long>(end) + 1, t.sizes.end());
  return Value::of(contiguous(t.dtype, sizes));
}

Value unflatten(OpContext& ctx) {
  TensorMeta t = ctx.tensor(0, "self");
  size_t k = ctx.normalize_dim(ctx.constant(1, "dim"), t.rank());
  std::vector<Expr> parts = infer_size(ctx, ctx.int_list(2, "sizes"), t.sizes[k]);
  std::vector<Expr> sizes(t.sizes.begin(), t.sizes.begin() + static_cast<long>(k));
  sizes.insert(sizes.end(), parts.begin(), parts.end());
  sizes.insert(sizes.end(), t.sizes.begin() + static_cast<long>(k) + 1, t.sizes.end());
  return Value::of(contiguous(t.dtype, sizes));
}

// An index into a dim of `size`, wrapped when negative and clamped into [0, size] (slice
// semantics). The sign is decided statically when possible, else guarded.
Expr clamp_index(const OpContext& ctx, const Expr& index, const Expr& size, std::string_view rule) {
  Expr i = ctx.simplify(index);
  // A huge end (sys.maxsize, the default of x[a:]) means "to the end".
  if (auto c = i.constant(); c && *c >= Int(std::numeric_limits<int64_t>::max() / 2)) return size;
  bool negative = ctx.known(i < 0) == Truth::True ||
                  (ctx.known(i >= 0) != Truth::True && ctx.decide(i < 0, rule));
  Expr clamped = negative ? max(i + size, Expr(0)) : min(i, size);
  return ctx.simplify(clamped);
}

Value slice(OpContext& ctx) {
  TensorMeta t = ctx.tensor(0, "self");
  if (t.rank() == 0) ctx.bad_input("slice cannot be applied to a 0-dim tensor");
  size_t k = ctx.normalize_dim(ctx.constant(1, "dim", 0), t.rank());
  const Expr& size = t.sizes[k];
  Expr step = ctx.integer(4, "step", 1);
  if (ctx.known(step > 0) != Truth::True && !ctx.decide(step > 0, "slice_step")) {
    ctx.bad_input("slice step must be positive, got " + step.str());
  }
  Expr start = clamp_index(ctx, ctx.integer(2, "start", 0), size, "slice_start");
  Expr end = ctx.has(3, "end") ? clamp_index(ctx, ctx.integer(3, "end"), size, "slice_end") : size;
  end = ctx.simplify(max(end, start));
  Expr len = ctx.simplify(floordiv(end - start + step - 1, step));
  std::vector<Expr> sizes = t.sizes, strides = strides_of(t);
  sizes[k] = len;
  strides[k] = ctx.simplify(strides[k] * step);
  return Value::of(with_strides(t.dtype, sizes, strides));
}

Value narrow(OpContext& ctx) {
  TensorMeta t = ctx.tensor(0, "self");
  size_t k = ctx.normalize_dim(ctx.constant(1, "dim"), t.rank());
  const Expr& size = t.sizes[k];
  Expr start = ctx.simplify(ctx.integer(2, "start"));
  Expr length = ctx.simplify(ctx.integer(3, "length"));
  if (ctx.known(start >= 0) != Truth::True && ctx.decide(start < 0, "narrow_start")) start = start + size;
  if (!ctx.decide(start >= 0 && length >= 0 && start + length <= size, "narrow_bounds")) {
    ctx.fail("narrow: start " + start.str() + " + length " + length.str() + " exceeds dim " +
             std::to_string(k) + " of size " + size.str());
  }
  std::vector<Expr> sizes = t.sizes;
  sizes[k] = length;
  return Value::of(with_strides(t.dtype, sizes, strides_of(t)));
}

Value select(OpContext& ctx) {
  TensorMeta t = ctx.tensor(0, "self");
  if (t.rank() == 0) ctx.bad_input("select cannot be applied to a 0-dim tensor");
  size_t k = ctx.normalize_dim(ctx.constant(1, "dim"), t.rank());
  Expr index = ctx.simplify(ctx.integer(2, "index"));
  const Expr& size = t.sizes[k];
  if (!ctx.decide(index >= -size && index < size, "select_index")) {
    ctx.fail("select: index " + index.str() + " is out of range for dim " + std::to_string(k) +
             " of size " + size.str());
  }
  std::vector<Expr> sizes = t.sizes, strides = strides_of(t);
  sizes.erase(sizes.begin() + static_cast<long>(k));
  strides.erase(strides.begin() + static_cast<long>(k));
  return Value::of(with_strides(t.dtype, sizes, strides));
}

// Pieces of `size` along dim k of `split_size` each (the last one shorter). The number of
// pieces must be concrete: it is guarded on the hints.
Value split_by_size(OpContext& ctx, const TensorMeta& t, size_t k, const Expr& split_size) {
  const Expr& size = t.sizes[k];
  if (ctx.known(split_size > 0) != Truth::True && !ctx.decide(split_size > 0, "split_size")) {
    ctx.bad_input("split_size must be positive, got " + split_size.str());
  }
  Int count = ctx.env().guard_int(ctx.env().wrap(ctx.simplify(max(ceildiv(size, split_size), Expr(1)))),
                                  ctx.where("split_count"));
  std::vector<Value> pieces;
  for (Int i = 0; i < count; i = i + 1) {
    std::vector<Expr> sizes = t.sizes;
    sizes[k] = i + 1 == count ? ctx.simplify(size - split_size * Expr(count - 1)) : split_size;
    pieces.push_back(Value::of(with_strides(t.dtype, sizes, strides_of(t))));
  }
  return Value::list(std::move(pieces));
}

Value split_with_sizes(OpContext& ctx) {
  TensorMeta t = ctx.tensor(0, "self");
  std::vector<Expr> parts = ctx.int_list(1, "split_sizes");
  size_t k = ctx.normalize_dim(ctx.constant(2, "dim", 0), t.rank());
  Expr total = 0;
  for (const Expr& p : parts) total += p;
  ctx.require_equal(total, t.sizes[k], "split_with_sizes",
                    "split sizes " + shape_str(parts) + " do not add up to dim " +
                        std::to_string(k) + " of size " + t.sizes[k].str());
  std::vector<Value> pieces;
  for (const Expr& p : parts) {
    std::vector<Expr> sizes = t.sizes;
    sizes[k] = ctx.simplify(p);
    pieces.push_back(Value::of(with_strides(t.dtype, sizes, strides_of(t))));
  }
  return Value::list(std::move(pieces));
}

Value cat(OpContext& ctx) {
  std::vector<TensorMeta> all = ctx.tensor_list(0, "tensors");
  // Legacy behaviour: 1-d empty tensors are skipped.
  std::vector<TensorMeta> ts;
  for (const TensorMeta& t : all) {
    if (!(t.rank() == 1 && ctx.known(t.sizes[0] == 0) == Truth::True)) ts.push_back(t);
  }
  if (all.empty()) ctx.bad_input("cat needs at least one tensor");
  if (ts.empty()) return Value::of(all[0]);
  const size_t rank = ts[0].rank();
  if (rank == 0) ctx.bad_input("cat cannot concatenate 0-dim tensors");
  size_t k = ctx.normalize_dim(ctx.constant(1, "dim", 0), rank);
  DType dtype = ts[0].dtype;
  Expr total = 0;
  for (size_t j = 0; j < ts.size(); ++j) {
    const TensorMeta& t = ts[j];
    if (t.rank() != rank) {
      ctx.fail("cat: tensor " + std::to_string(j) + " has rank " + std::to_string(t.rank()) +
               " but tensor 0 has rank " + std::to_string(rank));
    }
    dtype = promote_types(dtype, t.dtype);
    total += t.sizes[k];
    for (size_t d = 0; d < rank; ++d) {
      if (d == k) continue;
      ctx.require_equal(t.sizes[d], ts[0].sizes[d], "cat",
                        "cat: sizes " + shape_str(ts[0].sizes) + " and " + shape_str(t.sizes) +
                            " differ at dim " + std::to_string(d));
    }
  }
  std::vector<Expr> sizes = ts[0].sizes;
  sizes[k] = ctx.simplify(total);
  return Value::of(contiguous(dtype, sizes));
}

Value stack(OpContext& ctx) {
  std::vector<TensorMeta> ts = ctx.tensor_list(0, "tensors");
  if (ts.empty()) ctx.bad_input("stack needs at least one tensor");
  size_t k = insertion_dim(ctx, ctx.constant(1, "dim", 0), ts[0].rank());
  DType dtype = ts[0].dtype;
  for (size_t j = 1; j < ts.size(); ++j) {
    if (ts[j].rank() != ts[0].rank()) ctx.fail("stack: all tensors must have the same rank");
    dtype = promote_types(dtype, ts[j].dtype);
    for (size_t d = 0; d < ts[0].rank(); ++d) {
      ctx.require_equal(ts[j].sizes[d], ts[0].sizes[d], "stack",
                        "stack: sizes " + shape_str(ts[0].sizes) + " and " +
                            shape_str(ts[j].sizes) + " differ");
    }
  }
  std::vector<Expr> sizes = ts[0].sizes;
  sizes.insert(sizes.begin() + static_cast<long>(k), Expr(static_cast<long>(ts.size())));
  return Value::of(contiguous(dtype, sizes));
}

Value repeat(OpContext& ctx) {
  TensorMeta t = ctx.tensor(0, "self");
  std::vector<Expr> reps = ctx.int_list(1, "repeats");
  if (reps.size() < t.rank()) {
    ctx.bad_input("repeat needs at least as many repeats (" + std::to_string(reps.size()) +
                  ") as the tensor has dims (" + std::to_string(t.rank()) + ")");
  }
  std::vector<Expr> sizes(reps.size());
  const size_t lead = reps.size() - t.rank();
  for (size_t i = 0; i < reps.size(); ++i) {
    if (ctx.known(reps[i] >= 0) == Truth::False) ctx.bad_input("repeat counts must be non-negative");
    sizes[i] = ctx.simplify(i < lead ? reps[i] : reps[i] * t.sizes[i - lead]);
  }
  return Value::of(contiguous(t.dtype, sizes));
}

Value constant_pad(OpContext& ctx) {
  TensorMeta t = ctx.tensor(0, "self");
  std::vector<Expr> pad = ctx.int_list(1, "pad");
  if (pad.size() % 2 != 0 || pad.size() / 2 > t.rank()) {
    ctx.bad_input("pad must have an even length of at most twice the rank, got " + std::to_string(pad.size()));
  }
  std::vector<Expr> sizes = t.sizes;
  for (size_t p = 0; p < pad.size() / 2; ++p) {
    size_t d = t.rank() - 1 - p;
    Expr s = ctx.simplify(sizes[d] + pad[2 * p] + pad[2 * p + 1]);
    if (!ctx.decide(s >= 0, "pad")) {
      ctx.fail("padding " + shape_str(pad) + " makes dim " + std::to_string(d) + " negative: " + s.str());
    }
    sizes[d] = s;
  }
  return Value::of(contiguous(t.dtype, sizes));
}

Value pixel_shuffle(OpContext& ctx, bool inverse) {
  TensorMeta t = ctx.tensor(0, "self");
  if (t.rank() < 3) ctx.bad_input("pixel shuffle needs at least 3 dims, got " + shape_str(t.sizes));
  Expr r = ctx.integer(1, inverse ? "downscale_factor" : "upscale_factor");
  std::vector<Expr> sizes = t.sizes;
  const size_t c = t.rank() - 3, h = t.rank() - 2, w = t.rank() - 1;
  if (!inverse) {
    if (!ctx.decide(mod(sizes[c], r * r) == 0, "pixel_shuffle")) {
      ctx.fail("pixel_shuffle: channels " + sizes[c].str() + " are not divisible by " + ctx.simplify(r * r).str());
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

Value same_shape(OpContext& ctx) {
  TensorMeta t = ctx.tensor(0, "self");
  return Value::of(contiguous(t.dtype, t.sizes));
}

}  // namespace

void register_views(OpRegistry& r) {
  for (const char* op : {"aten.view", "aten.reshape", "aten._unsafe_view", "aten.view_copy"}) {
    r.add(op, reshape);
  }
  r.add("aten._reshape_alias", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor(0, "self");
    std::vector<Expr> shape = infer_size(ctx, ctx.int_list(1, "size"), t.numel());
    return Value::of(with_strides(t.dtype, shape, ctx.int_list(2, "stride")));
  });
  r.add("aten.view.dtype", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor(0, "self");
    auto d = ctx.dtype(1, "dtype");
    if (!d) ctx.bad_input("view.dtype needs a dtype");
    if (item_size(*d) != item_size(t.dtype)) {
      if (t.rank() == 0) ctx.fail("view.dtype between sizes needs at least one dim");
      Expr& last = t.sizes.back();
      if (item_size(*d) > item_size(t.dtype)) {
        int ratio = item_size(*d) / item_size(t.dtype);
        if (!ctx.decide(mod(last, ratio) == 0, "view_dtype")) ctx.fail("view.dtype: last dim is not divisible");
        last = ctx.simplify(floordiv(last, ratio));
      } else {
        last = ctx.simplify(last * (item_size(t.dtype) / item_size(*d)));
      }
    }
    return Value::of(contiguous(*d, t.sizes));
  });
  r.add("aten.reshape_as", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor(0, "self"), other = ctx.tensor(1, "other");
    return Value::of(contiguous(t.dtype, infer_size(ctx, other.sizes, t.numel())));
  });
  r.add("aten.view_as", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor(0, "self"), other = ctx.tensor(1, "other");
    return Value::of(contiguous(t.dtype, infer_size(ctx, other.sizes, t.numel())));
  });
  r.add("aten.permute", permute);
  r.add("aten.transpose", [](OpContext& ctx) {
    return transpose_dims(ctx, ctx.tensor(0, "self"), ctx.constant(1, "dim0"), ctx.constant(2, "dim1"));
  });
  r.add("aten.swapaxes", [](OpContext& ctx) {
    return transpose_dims(ctx, ctx.tensor(0, "self"), ctx.constant(1, "axis0"), ctx.constant(2, "axis1"));
  });
  r.add("aten.t", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor(0, "self");
    if (t.rank() > 2) ctx.bad_input("t() expects a tensor with at most 2 dims, got " + shape_str(t.sizes));
    return t.rank() < 2 ? Value::of(t) : transpose_dims(ctx, t, 0, 1);
  });
  r.add("aten.numpy_T", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor(0, "self");
    std::vector<Expr> sizes(t.sizes.rbegin(), t.sizes.rend());
    std::vector<Expr> s = strides_of(t), strides(s.rbegin(), s.rend());
    return Value::of(with_strides(t.dtype, sizes, strides));
  });
  r.add("aten.movedim", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor(0, "self");
    std::vector<Expr> src = ctx.int_list(1, "source"), dst = ctx.int_list(2, "destination");
    if (src.size() != dst.size()) ctx.bad_input("movedim: source and destination differ in length");
    std::vector<long> order(t.rank(), -1);
    std::vector<bool> used(t.rank(), false);
    for (size_t i = 0; i < src.size(); ++i) {
      if (!src[i].as_int64() || !dst[i].as_int64()) ctx.bad_input("movedim dims must be constants");
      size_t s = ctx.normalize_dim(*src[i].as_int64(), t.rank()), d = ctx.normalize_dim(*dst[i].as_int64(), t.rank());
      if (order[d] != -1 || used[s]) ctx.bad_input("movedim: repeated dim");
      order[d] = static_cast<long>(s);
      used[s] = true;
    }
    size_t next = 0;
    for (long& o : order) {
      if (o != -1) continue;
      while (used[next]) ++next;
      o = static_cast<long>(next);
      used[next] = true;
    }
    std::vector<Expr> sizes, strides, in = strides_of(t);
    for (long o : order) {
      sizes.push_back(t.sizes[static_cast<size_t>(o)]);
      strides.push_back(in[static_cast<size_t>(o)]);
    }
    return Value::of(with_strides(t.dtype, sizes, strides));
  });
  r.add("aten.expand", [](OpContext& ctx) { return expand(ctx, ctx.tensor(0, "self"), ctx.int_list(1, "size")); });
  r.add("aten.expand_as", [](OpContext& ctx) {
    return expand(ctx, ctx.tensor(0, "self"), ctx.tensor(1, "other").sizes);
  });
  r.add("aten.squeeze", squeeze);
  r.add("aten.unsqueeze", unsqueeze);
  r.add("aten.flatten", flatten);
  r.add("aten.unflatten", unflatten);
  r.add("aten.slice", slice);
  r.add("aten.narrow", narrow);
  r.add("aten.select", select);
  r.add("aten.split", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor(0, "self");
    if (t.rank() == 0) ctx.bad_input("split cannot be applied to a 0-dim tensor");
    size_t k = ctx.normalize_dim(ctx.constant(2, "dim", 0), t.rank());
    const Arg* sizes = ctx.arg(1, "split_size");
    if (sizes && sizes->kind == Arg::Kind::List) return split_with_sizes(ctx);
    return split_by_size(ctx, t, k, ctx.integer(1, "split_size"));
  });
  r.add("aten.split_with_sizes", split_with_sizes);
  r.add("aten.chunk", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor(0, "self");
    if (t.rank() == 0) ctx.bad_input("chunk cannot be applied to a 0-dim tensor");
    int64_t chunks = ctx.constant(1, "chunks");
    if (chunks <= 0) ctx.bad_input("chunk expects a positive number of chunks, got " + std::to_string(chunks));
    size_t k = ctx.normalize_dim(ctx.constant(2, "dim", 0), t.rank());
    return split_by_size(ctx, t, k, ctx.simplify(ceildiv(t.sizes[k], Expr(static_cast<long>(chunks)))));
  });
  r.add("aten.unbind", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor(0, "self");
    if (t.rank() == 0) ctx.bad_input("unbind cannot be applied to a 0-dim tensor");
    size_t k = ctx.normalize_dim(ctx.constant(1, "dim", 0), t.rank());
    Int n = ctx.env().guard_int(ctx.env().wrap(t.sizes[k]), ctx.where("unbind_count"));
    std::vector<Expr> sizes = t.sizes, strides = strides_of(t);
    sizes.erase(sizes.begin() + static_cast<long>(k));
    strides.erase(strides.begin() + static_cast<long>(k));
    std::vector<Value> items;
    for (Int i = 0; i < n; i = i + 1) items.push_back(Value::of(with_strides(t.dtype, sizes, strides)));
    return Value::list(std::move(items));
  });
  r.add("aten.cat", cat);
  r.add("aten.concat", cat);
  r.add("aten.concatenate", cat);
  r.add("aten.stack", stack);
  r.add("aten.repeat", repeat);
  r.add("aten.tile", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor(0, "self");
    std::vector<Expr> dims = ctx.int_list(1, "dims");
    while (dims.size() < t.rank()) dims.insert(dims.begin(), Expr(1));
    std::vector<Expr> sizes(dims.size());
    const size_t lead = dims.size() - t.rank();
    for (size_t i = 0; i < dims.size(); ++i) sizes[i] = ctx.simplify(i < lead ? dims[i] : dims[i] * t.sizes[i - lead]);
    return Value::of(contiguous(t.dtype, sizes));
  });
  r.add("aten.repeat_interleave.self_int", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor(0, "self");
    Expr reps = ctx.integer(1, "repeats");
    if (!ctx.has(2, "dim")) return Value::of(contiguous(t.dtype, {ctx.simplify(t.numel() * reps)}));
    size_t k = ctx.normalize_dim(ctx.constant(2, "dim"), t.rank());
    std::vector<Expr> sizes = t.sizes;
    sizes[k] = ctx.simplify(sizes[k] * reps);
    return Value::of(contiguous(t.dtype, sizes));
  });
  r.add("aten.roll", same_shape);
  r.add("aten.flip", same_shape);
  r.add("aten.constant_pad_nd", constant_pad);
  r.add("aten.pixel_shuffle", [](OpContext& ctx) { return pixel_shuffle(ctx, false); });
  r.add("aten.pixel_unshuffle", [](OpContext& ctx) { return pixel_shuffle(ctx, true); });
  r.add("aten.as_strided", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor(0, "self");
    std::vector<Expr> sizes = ctx.int_list(1, "size"), strides = ctx.int_list(2, "stride");
    if (sizes.size() != strides.size()) ctx.bad_input("as_strided: size and stride differ in length");
    return Value::of(with_strides(t.dtype, sizes, strides));
  });
}

}  // namespace symshape::ops
