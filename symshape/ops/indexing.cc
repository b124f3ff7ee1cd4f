// Indexing: advanced indexing (index.Tensor), index_select, gather / scatter, embedding and the
// index_* updates.
#include "symshape/ops/families.h"

namespace symshape::ops {

namespace {

// An index argument: an integer tensor (bool too where a mask is allowed).
TensorMeta index_tensor(const OpContext& ctx, std::string_view name, bool allow_bool = true) {
  TensorMeta t = ctx.tensor(name);
  if (!is_integral(t.dtype) && !(allow_bool && t.dtype == DType::Bool)) {
    ctx.bad_input(std::string(name) + " must be an integer tensor, got " +
                  std::string(to_string(t.dtype)));
  }
  return t;
}

// Ranks as gather / scatter compare them: a 0-dim tensor counts as 1-dim.
size_t rank_at_least_one(const TensorMeta& t) { return t.rank() == 0 ? 1 : t.rank(); }
Expr size_or_one(const TensorMeta& t, size_t d) { return t.rank() == 0 ? Expr(1) : t.sizes[d]; }

// gather's and scatter's check that index fits in `target`: index.size(d) <= target.size(d) for
// every d but `skip` (gather's and scatter's dim; none for scatter's src).
void check_index_fits(const OpContext& ctx, const TensorMeta& target, const TensorMeta& idx,
                      std::optional<size_t> skip, const std::string& op, const char* what) {
  const size_t rank = rank_at_least_one(target);
  if (rank_at_least_one(idx) != rank) {
    ctx.fail(op + ": index " + shape_str(idx.sizes) +
             " must have the same number of dimensions as " + what + " " + shape_str(target.sizes));
  }
  for (size_t d = 0; d < rank; ++d) {
    if (skip && d == *skip) continue;
    require(ctx, size_or_one(idx, d) <= size_or_one(target, d), op, [&] {
      return op + ": size does not match at dimension " + std::to_string(d) + ": expected index " +
             shape_str(idx.sizes) + " to be no larger than " + what + " " +
             shape_str(target.sizes) +
             (skip ? " apart from dimension " + std::to_string(*skip) : std::string());
    });
  }
}

// self[indices]: index tensors broadcast together; their result shape replaces the indexed dims
// in place when those are adjacent, else goes first (NumPy / PyTorch rules). A bool mask stands
// for the nonzero() of itself: a data-dependent count.
Value index(OpContext& ctx) {
  TensorMeta self = ctx.tensor("self");
  Value list = ctx.value("indices");
  if (list.kind != Value::Kind::List) ctx.bad_input("indices must be a list of optional tensors");
  std::vector<std::optional<TensorMeta>> indices;
  size_t consumed = 0;
  for (const Value& v : list.items) {
    if (v.kind == Value::Kind::None) {
      indices.emplace_back();
      ++consumed;
      continue;
    }
    if (v.kind != Value::Kind::Tensor)
      ctx.bad_input("an index must be a tensor or None, got " + v.str());
    if (v.tensor.dtype == DType::Bool || v.tensor.dtype == DType::UInt8) {
      // A mask over k dims becomes k indices of its nonzero count, consuming k dims (a 0-dim
      // mask adds none, as ATen's expandTensors).
      const TensorMeta& mask = v.tensor;
      if (mask.rank() == 0) continue;
      for (size_t d = 0; d < mask.rank(); ++d) {
        if (consumed + d >= self.rank())
          ctx.bad_input("too many indices for a tensor of rank " + std::to_string(self.rank()));
        ctx.require_equal(mask.sizes[d], self.sizes[consumed + d], "index_mask", [&] {
          return "mask " + shape_str(mask.sizes) + " does not match " + shape_str(self.sizes) +
                 " at dim " + std::to_string(consumed + d);
        });
      }
      Expr u = ctx.new_unbacked_size();
      indices.push_back(contiguous(DType::Int64, {u}));
      for (size_t d = 1; d < mask.rank(); ++d) indices.emplace_back(contiguous(DType::Int64, {u}));
      consumed += mask.rank();
      continue;
    }
    if (!is_integral(v.tensor.dtype))
      ctx.bad_input("an index must be an integer or bool tensor, got " + v.str());
    indices.push_back(v.tensor);
    ++consumed;
  }
  if (indices.size() > self.rank()) {
    ctx.bad_input("too many indices (" + std::to_string(indices.size()) +
                  ") for a tensor of rank " + std::to_string(self.rank()));
  }
  std::vector<Expr> broadcast;
  std::vector<size_t> indexed;
  for (size_t d = 0; d < indices.size(); ++d) {
    if (!indices[d]) continue;
    broadcast = broadcast_shapes(ctx, broadcast, indices[d]->sizes);
    indexed.push_back(d);
  }
  if (indexed.empty()) return Value::of(contiguous(self.dtype, self.sizes));
  const bool adjacent = indexed.back() - indexed.front() + 1 == indexed.size();
  std::vector<Expr> sizes;
  if (!adjacent) sizes = broadcast;
  for (size_t d = 0; d < self.rank(); ++d) {
    const bool is_indexed = d < indices.size() && indices[d];
    if (is_indexed) {
      if (adjacent && d == indexed.front())
        sizes.insert(sizes.end(), broadcast.begin(), broadcast.end());
      continue;
    }
    sizes.push_back(self.sizes[d]);
  }
  return Value::of(contiguous(self.dtype, sizes));
}

Value index_select(OpContext& ctx) {
  TensorMeta self = ctx.tensor("self");
  size_t k = ctx.normalize_dim(ctx.constant("dim"), self.rank());
  TensorMeta idx = index_tensor(ctx, "index");
  if (idx.rank() > 1)
    ctx.bad_input("index_select needs a 0-d or 1-d index, got " + shape_str(idx.sizes));
  std::vector<Expr> sizes = self.sizes;
  if (self.rank() == 0) return Value::of(contiguous(self.dtype, {}));
  sizes[k] = ctx.simplify(idx.numel());
  return Value::of(contiguous(self.dtype, sizes));
}

Value gather(OpContext& ctx) {
  TensorMeta self = ctx.tensor("self");
  size_t k = ctx.normalize_dim(ctx.constant("dim"), self.rank());
  TensorMeta idx = index_tensor(ctx, "index", false);
  // An empty index gathers nothing and is not checked (PyTorch's meta skips it too).
  if (ctx.known(idx.numel() == 0) != Truth::True) {
    check_index_fits(ctx, self, idx, k, "gather", "self");
  }
  return Value::of(contiguous(self.dtype, idx.sizes));
}

// scatter / scatter_add / scatter_reduce / index_add / index_copy / index_fill / index_put:
// the result has self's metadata. scatter's index (when check_fit) must fit in self outside dim
// and in src everywhere.
ShapeRule update(const char* index_name, bool check_fit, bool has_dim) {
  return [=](OpContext& ctx) {
    TensorMeta self = ctx.tensor("self");
    std::optional<size_t> dim;
    if (has_dim) dim = ctx.normalize_dim(ctx.constant("dim"), self.rank());
    if (check_fit && dim && ctx.has(index_name)) {
      TensorMeta idx = index_tensor(ctx, index_name, false);
      const std::string op = ctx.node().target;
      if (ctx.known(idx.numel() == 0) != Truth::True) {
        check_index_fits(ctx, self, idx, dim, op, "self");
        if (ctx.is_tensor_arg("src")) {
          check_index_fits(ctx, ctx.tensor("src"), idx, std::nullopt, op, "src");
        }
      }
    }
    return Value::of(contiguous(self.dtype, self.sizes));
  };
}

Value embedding(OpContext& ctx) {
  TensorMeta weight = ctx.tensor("weight");
  TensorMeta idx = index_tensor(ctx, "indices");
  if (weight.rank() != 2)
    ctx.bad_input("embedding weight must be 2-d, got " + shape_str(weight.sizes));
  std::vector<Expr> sizes = idx.sizes;
  sizes.push_back(weight.sizes[1]);
  return Value::of(contiguous(weight.dtype, sizes));
}

// Whether PyTorch's CPU embedding_bag takes its index_select fast path, which leaves offset2bag
// empty in sum mode: float32 / float16 weights with unit stride in dim 1, no padding_idx, and
// per_sample_weights (if any) with unit stride.
bool embedding_bag_fast_path(const OpContext& ctx, const TensorMeta& weight, const Expr& padding,
                             const std::optional<TensorMeta>& per_sample_weights) {
  if (weight.dtype != DType::Float32 && weight.dtype != DType::Float16) return false;
  auto unit_stride = [&](const TensorMeta& t, size_t d) {
    return t.strides.empty() || ctx.decide(t.strides[d] == 1, "embedding_bag_fast_path");
  };
  if (!unit_stride(weight, 1)) return false;
  if (!ctx.decide(padding < 0, "embedding_bag_fast_path")) return false;
  return !per_sample_weights || unit_stride(*per_sample_weights, 0);
}

// embedding_bag / _embedding_bag / _embedding_bag_forward_only (weight, indices, offsets,
// scale_grad_by_freq, mode, sparse, per_sample_weights, include_last_offset, padding_idx):
// (output [bags, D], offset2bag, bag_size [bags], max_indices), with bags = len(offsets), less
// one with include_last_offset. The last three are shaped as PyTorch's CPU kernel shapes them:
// offset2bag [N] ([0] in sum mode on the fast path), max_indices [bags, D] in max mode, else
// [bags]; all three in the offsets' dtype.
Value embedding_bag(OpContext& ctx) {
  const std::string op = "embedding_bag";
  TensorMeta weight = ctx.tensor("weight");
  TensorMeta indices = index_tensor(ctx, "indices", false);
  TensorMeta offsets = index_tensor(ctx, "offsets", false);
  if (weight.rank() != 2) {
    ctx.bad_input(op + ": weight must be 2-d, got " + shape_str(weight.sizes));
  }
  if (indices.rank() != 1 || offsets.rank() != 1) {
    ctx.bad_input(op + ": expected 1-d indices and offsets (torch.nn.functional.embedding_bag " +
                  "flattens 2-d input before the call), got " + shape_str(indices.sizes) + " and " +
                  shape_str(offsets.sizes));
  }
  const int64_t mode = ctx.constant("mode", 0);
  if (mode < 0 || mode > 2) {
    ctx.bad_input(op + ": mode must be 0 (sum), 1 (mean) or 2 (max), got " + std::to_string(mode));
  }
  Expr bags = offsets.sizes[0];
  if (ctx.boolean("include_last_offset", false)) {
    require(ctx, bags >= 1, "embedding_bag",
            op + ": with include_last_offset, offsets must hold at least one element");
    bags = bags - 1;
  }
  bags = ctx.simplify(bags);
  std::optional<TensorMeta> weights = ctx.optional_tensor("per_sample_weights");
  if (weights) {
    if (mode != 0) {
      ctx.bad_input(op + ": per_sample_weights are only supported in mode 0 (sum), got mode " +
                    std::to_string(mode));
    }
    if (weights->dtype != weight.dtype || weights->rank() != 1) {
      ctx.bad_input(op + ": per_sample_weights must be a 1-d tensor of the weight's dtype, got " +
                    weights->str());
    }
    ctx.require_equal(weights->sizes[0], indices.sizes[0], "embedding_bag",
                      op + ": per_sample_weights " + shape_str(weights->sizes) +
                          " must have one weight per index of " + shape_str(indices.sizes));
  }
  Expr padding(-1);
  if (ctx.declares("padding_idx")) {
    if (auto p = ctx.optional_integer("padding_idx")) padding = *p;
  }
  const Expr dim = ctx.simplify(weight.sizes[1]);
  const bool fast = embedding_bag_fast_path(ctx, weight, padding, weights);
  const DType index_dtype = offsets.dtype;
  TensorMeta offset2bag =
      contiguous(index_dtype, {mode != 0 || !fast ? ctx.simplify(indices.sizes[0]) : Expr(0)});
  TensorMeta max_indices =
      mode == 2 ? contiguous(index_dtype, {bags, dim}) : contiguous(index_dtype, {bags});
  return Value::list({Value::of(contiguous(weight.dtype, {bags, dim})), Value::of(offset2bag),
                      Value::of(contiguous(index_dtype, {bags})), Value::of(max_indices)});
}

}  // namespace

void register_indexing(OpRegistry& r) {
  r.add("aten.index", index);
  r.add("aten._unsafe_index", index);
  r.add("aten.index_select", index_select);
  r.add("aten.gather", gather);
  // take_along_dim(self, indices, dim=None): without dim, on the flattened tensors; with it,
  // indices broadcast against self everywhere but along dim, where they keep their own size.
  r.add("aten.take_along_dim", [](OpContext& ctx) {
    TensorMeta self = ctx.tensor("self");
    TensorMeta idx = index_tensor(ctx, "indices", false);
    if (!ctx.has("dim")) return Value::of(contiguous(self.dtype, {ctx.simplify(idx.numel())}));
    if (self.rank() != idx.rank()) {
      ctx.bad_input(
          "take_along_dim: input and indices should have the same number of "
          "dimensions, but got " +
          std::to_string(self.rank()) + " dimensions for input, and " + std::to_string(idx.rank()) +
          " dimensions for indices");
    }
    size_t k = ctx.normalize_dim(ctx.constant("dim"), self.rank());
    std::vector<Expr> self_sizes = self.sizes;
    if (self.rank() > 0) self_sizes[k] = idx.sizes[k];
    return Value::of(contiguous(self.dtype, broadcast_shapes(ctx, self_sizes, idx.sizes)));
  });
  for (const char* op : {"aten.scatter", "aten.scatter_add", "aten.scatter_reduce"}) {
    r.add(op, update("index", true, true));
  }
  for (const char* op : {"aten.index_add", "aten.index_copy", "aten.index_fill"}) {
    r.add(op, update("index", false, true));
  }
  for (const char* op : {"aten.index_put", "aten._unsafe_index_put"}) {
    ShapeRule put = update("indices", false, false);
    r.add(op, [put](OpContext& ctx) {
      ctx.boolean("accumulate", false);
      return put(ctx);
    });
  }
  r.add("aten.masked_scatter", update("mask", false, false));
  r.add("aten.embedding", embedding);
  for (const char* op :
       {"aten.embedding_bag", "aten._embedding_bag", "aten._embedding_bag_forward_only"}) {
    r.add(op, embedding_bag);
  }
  r.add("aten.embedding_dense_backward", [](OpContext& ctx) {
    TensorMeta grad = ctx.tensor("grad_output");
    Expr rows = ctx.integer("num_weights");
    return Value::of(contiguous(grad.dtype, {rows, grad.rank() ? grad.sizes.back() : Expr(1)}));
  });
}

}  // namespace symshape::ops
