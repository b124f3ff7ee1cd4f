// Kernels of indexing: advanced indexing (index.Tensor, index_put), index_select, gather /
// scatter / scatter_reduce, take_along_dim, the index_* updates, masked_scatter, embedding and
// its backward. Out-of-range indices are run errors naming the index, the dim and its size;
// negative indices wrap where PyTorch wraps them (index, index_put, index_fill) and are out of
// range elsewhere (gather, scatter, index_select, index_add, index_copy, embedding).
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "symshape/interp/kernel_math.h"
#include "symshape/interp/kernels.h"

namespace symshape::interp::kernels {

namespace {

using Sizes = std::vector<int64_t>;
using math::load;
using math::sizes_str;
using math::store;

// ---- element arithmetic in a dtype (integers wrap to their width, bool is logical) ----

Scalar add_in(DType d, const Scalar& a, const Scalar& b) {
  switch (scalar_kind(d)) {
    case Scalar::Kind::Bool: return Scalar::of_bool(a.as_bool() || b.as_bool());
    case Scalar::Kind::Int:
      return cast(Scalar::of_int(static_cast<int64_t>(static_cast<uint64_t>(a.as_int()) +
                                                      static_cast<uint64_t>(b.as_int()))),
                  d);
    case Scalar::Kind::Float: return cast(Scalar::of_float(a.as_double() + b.as_double()), d);
    case Scalar::Kind::Complex: return cast(Scalar::of_complex(a.as_complex() + b.as_complex()), d);
  }
  return a;
}

Scalar mul_in(DType d, const Scalar& a, const Scalar& b) {
  switch (scalar_kind(d)) {
    case Scalar::Kind::Bool: return Scalar::of_bool(a.as_bool() && b.as_bool());
    case Scalar::Kind::Int:
      return cast(Scalar::of_int(static_cast<int64_t>(static_cast<uint64_t>(a.as_int()) *
                                                      static_cast<uint64_t>(b.as_int()))),
                  d);
    case Scalar::Kind::Float: return cast(Scalar::of_float(a.as_double() * b.as_double()), d);
    case Scalar::Kind::Complex: return cast(Scalar::of_complex(a.as_complex() * b.as_complex()), d);
  }
  return a;
}

// t itself, or a 1-element 1-d view of a 0-dim t: gather and scatter treat a scalar as 1-d.
Tensor at_least_1d(const Tensor& t) {
  return t.rank() == 0 ? t.as_strided({1}, {1}, t.offset()) : t;
}

// An index argument: an integer tensor (bool too when allowed).
Tensor index_tensor(const KernelContext& ctx, std::string_view name, bool allow_bool = false) {
  Tensor t = ctx.tensor(name);
  if (!is_integral(t.dtype()) && !(allow_bool && t.dtype() == DType::Bool)) {
    ctx.bad_input(std::string(name) + " must be an integer tensor, got " + t.str());
  }
  return t;
}

// An index value checked against a dim of `size`; negative values wrap when `wrap`.
int64_t checked_index(const KernelContext& ctx, int64_t v, size_t dim, int64_t size, bool wrap) {
  if (v >= size || v < (wrap ? -size : 0)) {
    ctx.fail("index " + std::to_string(v) + " is out of bounds for dimension " +
             std::to_string(dim) + " with size " + std::to_string(size));
  }
  return v < 0 ? v + size : v;
}

// A number argument that may also be a 0-dim tensor (index_fill.int_Tensor, scatter.value).
Scalar scalar_or_item(const KernelContext& ctx, std::string_view name) {
  if (ctx.is_tensor_arg(name)) {
    Tensor v = ctx.tensor(name);
    if (v.rank() != 0) {
      ctx.fail(std::string(name) + " must be a number or a 0-dim tensor, got " + v.str());
    }
    return v.flat(0);
  }
  return ctx.scalar(name);
}

// ---- advanced indexing ----

// self[indices] as ATen computes it: bool masks become the nonzero() coordinates of themselves,
// the index tensors broadcast together, and their shape replaces the indexed dims in place
// when those are adjacent, else goes first.
struct AdvancedIndex {
  Sizes result;                               // the result's sizes
  Sizes broadcast;                            // the index tensors' broadcast shape
  std::vector<std::optional<Tensor>> by_dim;  // per dim of self: its index (broadcast), if any
  size_t front = 0;                           // where the broadcast dims start in the result
  bool adjacent = true;
};

AdvancedIndex plan_index(const KernelContext& ctx, const Tensor& self,
                         const std::vector<std::optional<Tensor>>& list) {
  std::vector<std::optional<Tensor>> indices;
  for (const std::optional<Tensor>& entry : list) {
    if (!entry) {
      indices.emplace_back();
      continue;
    }
    const Tensor& t = *entry;
    if (t.dtype() == DType::Bool || t.dtype() == DType::UInt8) {
      // A mask over k dims stands for k index tensors: its true elements' coordinates.
      for (size_t j = 0; j < t.rank(); ++j) {
        const size_t d = indices.size() + j;
        if (d >= self.rank() || t.sizes()[j] != self.sizes()[d]) {
          ctx.fail("The shape of the mask " + sizes_str(t.sizes()) + " at index " +
                   std::to_string(j) + " does not match the shape of the indexed tensor " +
                   sizes_str(self.sizes()) + " at index " + std::to_string(d));
        }
      }
      std::vector<Sizes> coords(t.rank());
      for_each_index(t.sizes(), [&](std::span<const int64_t> at) {
        if (!t.at(at).as_bool()) return;
        for (size_t j = 0; j < t.rank(); ++j) coords[j].push_back(at[j]);
      });
      for (const Sizes& c : coords) {
        std::vector<Scalar> values;
        for (int64_t v : c) values.push_back(Scalar::of_int(v));
        indices.push_back(Tensor::from(DType::Int64, {static_cast<int64_t>(c.size())}, values));
      }
      continue;
    }
    if (!is_integral(t.dtype())) {
      ctx.fail("tensors used as indices must be long, int, byte or bool tensors, got " + t.str());
    }
    indices.push_back(t);
  }
  if (indices.size() > self.rank()) {
    ctx.fail("too many indices for tensor of dimension " + std::to_string(self.rank()) + " (got " +
             std::to_string(indices.size()) + ")");
  }
  AdvancedIndex plan;
  std::vector<size_t> indexed;
  std::string shapes;
  for (size_t d = 0; d < indices.size(); ++d) {
    if (!indices[d]) continue;
    shapes += (shapes.empty() ? "" : ", ") + sizes_str(indices[d]->sizes());
    auto b = broadcast_shapes(plan.broadcast, indices[d]->sizes());
    if (!b) {
      ctx.fail("shape mismatch: indexing tensors could not be broadcast together with shapes " +
               shapes);
    }
    plan.broadcast = *b;
    indexed.push_back(d);
  }
  plan.by_dim.resize(self.rank());
  if (indexed.empty()) {
    plan.result = self.sizes();
    return plan;
  }
  for (size_t d : indexed) plan.by_dim[d] = expand_to(*indices[d], plan.broadcast);
  plan.adjacent = indexed.back() - indexed.front() + 1 == indexed.size();
  plan.front = plan.adjacent ? indexed.front() : 0;
  if (!plan.adjacent) plan.result = plan.broadcast;
  for (size_t d = 0; d < self.rank(); ++d) {
    if (plan.by_dim[d]) {
      if (plan.adjacent && d == indexed.front()) {
        plan.result.insert(plan.result.end(), plan.broadcast.begin(), plan.broadcast.end());
      }
      continue;
    }
    plan.result.push_back(self.sizes()[d]);
  }
  return plan;
}

// The element of self that result position `at` reads: indexed dims from the index tensors
// (negative values wrap), the others from `at`.
void source_index(const KernelContext& ctx, const AdvancedIndex& plan, const Tensor& self,
                  std::span<const int64_t> at, Sizes& out) {
  const size_t b = plan.broadcast.size();
  std::span<const int64_t> bindex = at.subspan(plan.front, b);
  out.resize(self.rank());
  size_t p = plan.adjacent ? 0 : b;
  bool block_done = !plan.adjacent;
  for (size_t d = 0; d < self.rank(); ++d) {
    if (plan.by_dim[d]) {
      if (!block_done) {
        p += b;
        block_done = true;
      }
      out[d] = checked_index(ctx, plan.by_dim[d]->at(bindex).as_int(), d, self.sizes()[d], true);
    } else {
      out[d] = at[p++];
    }
  }
}

RValue index(KernelContext& ctx) {
  Tensor self = ctx.tensor("self");
  AdvancedIndex plan = plan_index(ctx, self, ctx.optional_tensor_list("indices"));
  Tensor out = Tensor::zeros(self.dtype(), plan.result);
  Sizes from;
  for_each_index(plan.result, [&](std::span<const int64_t> at) {
    source_index(ctx, plan, self, at, from);
    out.set(at, self.at(from));
  });
  return RValue::of(out);
}

// index_put(self, indices, values, accumulate=False): values broadcast to the indexing result;
// with accumulate, repeated indices add up.
RValue index_put(KernelContext& ctx) {
  Tensor self = ctx.tensor("self");
  AdvancedIndex plan = plan_index(ctx, self, ctx.optional_tensor_list("indices"));
  Tensor values = ctx.tensor("values");
  const bool accumulate = ctx.boolean("accumulate", false);
  auto shape = broadcast_shapes(plan.result, values.sizes());
  if (!shape || *shape != plan.result) {
    ctx.fail("shape mismatch: value tensor of shape " + sizes_str(values.sizes()) +
             " cannot be broadcast to indexing result of shape " + sizes_str(plan.result));
  }
  Tensor v = expand_to(values, plan.result);
  Tensor out = self.clone();
  const DType d = self.dtype();
  Sizes to;
  for_each_index(plan.result, [&](std::span<const int64_t> at) {
    source_index(ctx, plan, self, at, to);
    Scalar value = cast(v.at(at), d);
    out.set(to, accumulate ? add_in(d, out.at(to), value) : value);
  });
  return RValue::of(out);
}

// ---- gather / scatter ----

// gather's and scatter's check that index fits in `target` in every dim but `skip`.
void check_fits(const KernelContext& ctx, const Tensor& target, const Tensor& idx,
                std::optional<size_t> skip, const char* op, const char* what) {
  if (idx.rank() != target.rank()) {
    ctx.fail(std::string(op) + "(): Index tensor must have the same number of dimensions as " +
             what + " tensor");
  }
  for (size_t d = 0; d < idx.rank(); ++d) {
    if (skip && d == *skip) continue;
    if (idx.sizes()[d] > target.sizes()[d]) {
      ctx.fail(std::string(op) + "(): Size does not match at dimension " + std::to_string(d) +
               " expected index " + sizes_str(idx.sizes()) + " to be no larger than " + what + " " +
               sizes_str(target.sizes()) +
               (skip ? " apart from dimension " + std::to_string(*skip) : std::string()));
    }
  }
}

Tensor gathered(const KernelContext& ctx, const Tensor& self, int64_t dim, const Tensor& index) {
  if (!is_integral(index.dtype())) {
    ctx.fail("gather(): Expected dtype int64 for index, got " + index.str());
  }
  Tensor s = at_least_1d(self), idx = at_least_1d(index);
  const size_t k = ctx.normalize_dim(dim, s.rank());
  if (idx.numel() == 0) return Tensor::zeros(self.dtype(), index.sizes());
  check_fits(ctx, s, idx, k, "gather", "input");
  Tensor out = Tensor::zeros(self.dtype(), idx.sizes());
  Sizes from;
  for_each_index(idx.sizes(), [&](std::span<const int64_t> at) {
    from.assign(at.begin(), at.end());
    from[k] = checked_index(ctx, idx.at(at).as_int(), k, s.sizes()[k], false);
    out.set(at, s.at(from));
  });
  return index.rank() == 0 ? out.as_strided({}, {}, 0) : out;
}

RValue gather(KernelContext& ctx) {
  return RValue::of(gathered(ctx, ctx.tensor("self"), ctx.integer("dim"), ctx.tensor("index")));
}

// take_along_dim(self, indices, dim=None): without dim, on the flattened tensors; with it, self
// and indices broadcast everywhere but along dim.
RValue take_along_dim(KernelContext& ctx) {
  Tensor self = ctx.tensor("self");
  Tensor idx = index_tensor(ctx, "indices");
  if (!ctx.has("dim")) {
    Tensor flat_self = self.clone(), flat_idx = idx.clone();
    flat_self = flat_self.as_strided({self.numel()}, {1}, 0);
    flat_idx = flat_idx.as_strided({idx.numel()}, {1}, 0);
    return RValue::of(gathered(ctx, flat_self, 0, flat_idx));
  }
  if (self.rank() != idx.rank()) {
    ctx.fail(
        "torch.take_along_dim(): input and indices should have the same number of dimensions, "
        "but got " +
        std::to_string(self.rank()) + " dimensions for input, and " + std::to_string(idx.rank()) +
        " dimensions for indices");
  }
  const size_t k = ctx.normalize_dim(ctx.integer("dim"), self.rank());
  if (self.rank() == 0) return RValue::of(gathered(ctx, self, 0, idx));
  Sizes self_sizes = self.sizes();
  self_sizes[k] = idx.sizes()[k];
  auto shape = broadcast_shapes(self_sizes, idx.sizes());
  if (!shape) {
    ctx.fail("take_along_dim: shapes " + sizes_str(self.sizes()) + " and " +
             sizes_str(idx.sizes()) + " do not broadcast outside dim " + std::to_string(k));
  }
  Sizes self_shape = *shape;
  self_shape[k] = self.sizes()[k];
  return RValue::of(
      gathered(ctx, expand_to(self, self_shape), static_cast<int64_t>(k), expand_to(idx, *shape)));
}

enum class Reduce { None, Sum, Prod, Mean, Amax, Amin };

Reduce reduce_of(const KernelContext& ctx, const std::string& name, bool two) {
  if (!two) {
    if (name.empty()) return Reduce::None;
    if (name == "add") return Reduce::Sum;
    if (name == "multiply") return Reduce::Prod;
    ctx.fail("reduce argument must be either add or multiply, got '" + name + "'");
  }
  if (name == "sum") return Reduce::Sum;
  if (name == "prod") return Reduce::Prod;
  if (name == "mean") return Reduce::Mean;
  if (name == "amax") return Reduce::Amax;
  if (name == "amin") return Reduce::Amin;
  ctx.fail("reduce argument must be either sum, prod, mean, amax or amin, got '" + name + "'");
}

// Folds the values a position receives (self's first when included), in dtype d.
Scalar fold(const KernelContext& ctx, Reduce reduce, DType d, const std::vector<Scalar>& vals) {
  Scalar acc = vals[0];
  switch (reduce) {
    case Reduce::None: return vals.back();
    case Reduce::Sum:
    case Reduce::Mean:
      for (size_t i = 1; i < vals.size(); ++i) acc = add_in(d, acc, vals[i]);
      if (reduce == Reduce::Sum) return acc;
      if (is_floating(d) || is_complex(d)) {
        return cast(Scalar::of_complex(acc.as_complex() / static_cast<double>(vals.size())), d);
      }
      return cast(Scalar::of_int(floordiv(acc.as_int(), static_cast<int64_t>(vals.size()))), d);
    case Reduce::Prod:
      for (size_t i = 1; i < vals.size(); ++i) acc = mul_in(d, acc, vals[i]);
      return acc;
    case Reduce::Amax:
    case Reduce::Amin: {
      if (is_complex(d)) ctx.fail("scatter_reduce(): amax and amin are not supported for complex");
      const bool max = reduce == Reduce::Amax;
      for (size_t i = 1; i < vals.size(); ++i) {
        const Scalar& v = vals[i];
        if (is_floating(d)) {
          const double a = acc.as_double(), b = v.as_double();
          if (std::isnan(a)) continue;
          if (std::isnan(b) || (max ? b > a : b < a)) acc = v;
        } else if (max ? v.as_int() > acc.as_int() : v.as_int() < acc.as_int()) {
          acc = v;
        }
      }
      return acc;
    }
  }
  return acc;
}

// scatter / scatter_add / scatter_reduce: every element p of index sends src[p] (or value) to
// self at p with dim replaced by index[p]; the values a position receives fold with `reduce`
// (None: the last one wins), starting from self's value when include_self.
Tensor scattered(const KernelContext& ctx, const Tensor& self, int64_t dim, const Tensor& index,
                 const std::optional<Tensor>& src, const Scalar& value, Reduce reduce,
                 bool include_self, const char* op) {
  if (!is_integral(index.dtype())) {
    ctx.fail(std::string(op) + "(): Expected dtype int64 for index, got " + index.str());
  }
  Tensor out = self.clone();
  Tensor s = at_least_1d(out), idx = at_least_1d(index);
  const size_t k = ctx.normalize_dim(dim, s.rank());
  std::optional<Tensor> source;
  if (src) source = at_least_1d(*src);
  if (idx.numel() == 0) return out;
  check_fits(ctx, s, idx, k, op, "self");
  if (source) check_fits(ctx, *source, idx, std::nullopt, op, "src");
  const DType d = self.dtype();
  // The values each position of self receives, by row-major position.
  std::vector<std::vector<Scalar>> received(static_cast<size_t>(s.numel()));
  Sizes to;
  for_each_index(idx.sizes(), [&](std::span<const int64_t> at) {
    to.assign(at.begin(), at.end());
    to[k] = checked_index(ctx, idx.at(at).as_int(), k, s.sizes()[k], false);
    received[static_cast<size_t>(math::flat_index(s.sizes(), to))].push_back(
        cast(source ? source->at(at) : value, d));
  });
  Sizes at;
  for (size_t p = 0; p < received.size(); ++p) {
    std::vector<Scalar>& vals = received[p];
    if (vals.empty()) continue;
    math::unflatten(static_cast<int64_t>(p), s.sizes(), at);
    if (include_self && reduce != Reduce::None) vals.insert(vals.begin(), s.at(at));
    s.set(at, fold(ctx, reduce, d, vals));
  }
  return out;
}

RValue scatter(KernelContext& ctx) {
  Tensor self = ctx.tensor("self");
  // scatter.src takes a tensor at 3, scatter.value a number (or a 0-dim tensor) named value.
  const std::string name = ctx.has("src") ? "src" : "value";
  if (!ctx.has(name)) ctx.fail("scatter needs a src tensor or a value");
  std::optional<Tensor> src;
  Scalar value;
  if (ctx.is_tensor_arg(name) && !(name == "value" && ctx.tensor(name).rank() == 0)) {
    src = ctx.tensor(name);
  } else {
    value = scalar_or_item(ctx, name);
  }
  const Reduce reduce = reduce_of(ctx, ctx.string("reduce", ""), false);
  return RValue::of(scattered(ctx, self, ctx.integer("dim"), ctx.tensor("index"), src, value,
                              reduce, true, "scatter"));
}

RValue scatter_add(KernelContext& ctx) {
  return RValue::of(scattered(ctx, ctx.tensor("self"), ctx.integer("dim"), ctx.tensor("index"),
                              ctx.tensor("src"), Scalar(), Reduce::Sum, true, "scatter_add"));
}

RValue scatter_reduce(KernelContext& ctx) {
  const Reduce reduce = reduce_of(ctx, ctx.string("reduce", ""), true);
  return RValue::of(scattered(ctx, ctx.tensor("self"), ctx.integer("dim"), ctx.tensor("index"),
                              ctx.tensor("src"), Scalar(), reduce,
                              ctx.boolean("include_self", true), "scatter_reduce"));
}

// ---- index_select and the index_* updates along one dim ----

// A 0-d or 1-d index along one dim.
Tensor dim_index(const KernelContext& ctx, const char* op) {
  Tensor idx = index_tensor(ctx, "index");
  if (idx.rank() > 1) {
    ctx.fail(std::string(op) + "(): Index is supposed to be a vector, got " + idx.str());
  }
  return idx;
}

RValue index_select(KernelContext& ctx) {
  Tensor self = ctx.tensor("self");
  const size_t k = ctx.normalize_dim(ctx.integer("dim"), self.rank());
  Tensor idx = dim_index(ctx, "index_select");
  if (self.rank() == 0) {
    if (idx.numel() != 1) {
      ctx.fail("index_select(): Index to scalar can have only 1 value, got " +
               std::to_string(idx.numel()) + " value(s)");
    }
    checked_index(ctx, idx.flat(0).as_int(), 0, 1, false);
    return RValue::of(self.clone());
  }
  Sizes sizes = self.sizes();
  sizes[k] = idx.numel();
  Tensor out = Tensor::zeros(self.dtype(), sizes);
  Sizes from;
  for_each_index(sizes, [&](std::span<const int64_t> at) {
    from.assign(at.begin(), at.end());
    from[k] = checked_index(ctx, idx.flat(at[k]).as_int(), k, self.sizes()[k], false);
    out.set(at, self.at(from));
  });
  return RValue::of(out);
}

// t with dim k fixed at i: a view one rank lower.
Tensor slice_at(const Tensor& t, size_t k, int64_t i) {
  Sizes sizes = t.sizes(), strides = t.strides();
  sizes.erase(sizes.begin() + static_cast<long>(k));
  strides.erase(strides.begin() + static_cast<long>(k));
  return t.as_strided(sizes, strides, t.offset() + i * t.strides()[k]);
}

enum class Update { Add, Copy, Fill };

// index_add(self, dim, index, source, alpha=1) / index_copy(self, dim, index, source) /
// index_fill(self, dim, index, value): self's slices along dim at index[i] updated from
// source's slice i (or value).
RValue index_update(KernelContext& ctx, Update kind, const char* op) {
  Tensor self = ctx.tensor("self");
  Tensor out = self.clone();
  Tensor o = at_least_1d(out);
  const size_t k = ctx.normalize_dim(ctx.integer("dim"), self.rank());
  Tensor idx = dim_index(ctx, op);
  const DType d = self.dtype();
  const int64_t n = idx.numel();
  std::optional<Tensor> source;
  Scalar value, alpha = Scalar::of_int(1);
  if (kind == Update::Fill) {
    value = cast(scalar_or_item(ctx, "value"), d);
  } else {
    source = at_least_1d(ctx.tensor("source"));
    if (source->rank() != o.rank() || source->sizes()[k] != n) {
      ctx.fail(std::string(op) + "(): Number of indices (" + std::to_string(n) +
               ") should be equal to source.size(dim) of a source of the same rank as self (" +
               sizes_str(source->sizes()) + ", self " + sizes_str(self.sizes()) + ")");
    }
    for (size_t j = 0; j < o.rank(); ++j) {
      if (j != k && source->sizes()[j] != o.sizes()[j]) {
        ctx.fail(std::string(op) + "(): source " + sizes_str(source->sizes()) + " and self " +
                 sizes_str(self.sizes()) + " differ outside dimension " + std::to_string(k));
      }
    }
    if (kind == Update::Add) alpha = cast(ctx.optional_scalar("alpha").value_or(alpha), d);
  }
  for (int64_t i = 0; i < n; ++i) {
    // index_fill wraps negative indices; index_add and index_copy refuse them.
    const int64_t j =
        checked_index(ctx, idx.flat(i).as_int(), k, o.sizes()[k], kind == Update::Fill);
    Tensor dst = slice_at(o, k, j);
    std::optional<Tensor> from;
    if (source) from = slice_at(*source, k, i);
    for_each_index(dst.sizes(), [&](std::span<const int64_t> at) {
      switch (kind) {
        case Update::Fill: dst.set(at, value); break;
        case Update::Copy: dst.set(at, from->at(at)); break;
        case Update::Add:
          dst.set(at, add_in(d, dst.at(at), mul_in(d, cast(from->at(at), d), alpha)));
          break;
      }
    });
  }
  return RValue::of(out);
}

// masked_scatter(self, mask, source): self and mask broadcast together; the positions where the
// mask is true take source's elements in order.
RValue masked_scatter(KernelContext& ctx) {
  Tensor self = ctx.tensor("self");
  Tensor mask = ctx.tensor("mask");
  Tensor source = ctx.tensor("source");
  if (mask.dtype() != DType::Bool && mask.dtype() != DType::UInt8) {
    ctx.fail("masked_scatter_ only supports boolean masks, but got mask with dtype " +
             std::string(to_string(mask.dtype())));
  }
  auto shape = broadcast_shapes(self.sizes(), mask.sizes());
  if (!shape) {
    ctx.fail("masked_scatter: mask " + sizes_str(mask.sizes()) + " does not broadcast with self " +
             sizes_str(self.sizes()));
  }
  Tensor out = Tensor::zeros(self.dtype(), *shape);
  out.copy_from(self);
  Tensor m = expand_to(mask, *shape);
  int64_t next = 0;
  for_each_index(*shape, [&](std::span<const int64_t> at) {
    if (!m.at(at).as_bool()) return;
    if (next >= source.numel()) {
      ctx.fail(
          "masked_scatter: expected source to have at least as many elements as the mask "
          "has true values, got a source of " +
          std::to_string(source.numel()) + " elements");
    }
    out.set(at, source.flat(next++));
  });
  return RValue::of(out);
}

// ---- embedding ----

RValue embedding(KernelContext& ctx) {
  Tensor weight = ctx.tensor("weight");
  Tensor idx = index_tensor(ctx, "indices");
  if (weight.rank() != 2) ctx.fail("'weight' must be 2-D, got " + weight.str());
  Sizes sizes = idx.sizes();
  sizes.push_back(weight.sizes()[1]);
  Tensor out = Tensor::zeros(weight.dtype(), sizes);
  const size_t last = idx.rank();
  Sizes row(2);
  for_each_index(sizes, [&](std::span<const int64_t> at) {
    row[0] = checked_index(ctx, idx.at(at.first(last)).as_int(), 0, weight.sizes()[0], false);
    row[1] = at[last];
    out.set(at, weight.at(row));
  });
  return RValue::of(out);
}

// embedding_dense_backward(grad_output, indices, num_weights, padding_idx,
// scale_grad_by_freq): each index's row of grad_output added into that row of the weight's
// grad, skipping padding_idx; scaled by 1/count of the index when scale_grad_by_freq.
RValue embedding_dense_backward(KernelContext& ctx) {
  Tensor grad = ctx.tensor("grad_output");
  Tensor idx = index_tensor(ctx, "indices");
  const int64_t rows = ctx.integer("num_weights");
  const int64_t padding = ctx.integer("padding_idx", -1);
  const bool scale = ctx.boolean("scale_grad_by_freq", false);
  if (rows < 0) ctx.fail("num_weights must be non-negative, got " + std::to_string(rows));
  const int64_t width = grad.rank() ? grad.sizes().back() : 1;
  const int64_t n = idx.numel();
  math::Checked c;
  if (c.mul(n, width) != grad.numel() || c.overflow) {
    ctx.fail("embedding_dense_backward: grad_output " + grad.str() + " does not hold one row of " +
             std::to_string(width) + " per index of " + idx.str());
  }
  const DType d = grad.dtype();
  Tensor out = Tensor::zeros(d, {rows, width});
  std::vector<int64_t> count(static_cast<size_t>(rows), 0);
  std::vector<int64_t> which(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t j = idx.flat(i).as_int();
    which[static_cast<size_t>(i)] = j;
    if (j == padding) continue;
    ++count[static_cast<size_t>(checked_index(ctx, j, 0, rows, false))];
  }
  Tensor g = grad.contiguous();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t j = which[static_cast<size_t>(i)];
    if (j == padding) continue;
    const double factor = scale ? 1.0 / static_cast<double>(count[static_cast<size_t>(j)]) : 1.0;
    for (int64_t w = 0; w < width; ++w) {
      const Sizes at = {j, w};
      Scalar v = g.flat(i * width + w);
      if (scale) v = cast(Scalar::of_complex(v.as_complex() * factor), d);
      out.set(at, add_in(d, out.at(at), v));
    }
  }
  return RValue::of(out);
}

// embedding_bag / _embedding_bag / _embedding_bag_forward_only (weight, indices, offsets,
// scale_grad_by_freq, mode, sparse, per_sample_weights, include_last_offset, padding_idx): each
// bag's rows of weight summed (times per_sample_weights), averaged or maxed; padding_idx rows are
// skipped and not counted, and an empty bag gives zeros. Returns (output, offset2bag, bag_size,
// max_indices) as PyTorch's CPU kernel lays them out.
RValue embedding_bag(KernelContext& ctx) {
  const std::string op = "embedding_bag";
  Tensor weight = ctx.tensor("weight");
  Tensor indices = index_tensor(ctx, "indices");
  Tensor offsets = index_tensor(ctx, "offsets");
  if (weight.rank() != 2) ctx.bad_input(op + ": weight must be 2-d, got " + weight.str());
  if (indices.rank() != 1 || offsets.rank() != 1) {
    ctx.bad_input(op + ": expected 1-d indices and offsets, got " + indices.str() + " and " +
                  offsets.str());
  }
  const int64_t mode = ctx.integer("mode", 0);
  if (mode < 0 || mode > 2) {
    ctx.bad_input(op + ": mode must be 0 (sum), 1 (mean) or 2 (max), got " + std::to_string(mode));
  }
  const bool last = ctx.boolean("include_last_offset", false);
  const int64_t n = indices.size(0), rows = weight.size(0), width = weight.size(1);
  if (last && offsets.size(0) < 1) {
    ctx.fail(op + ": with include_last_offset, offsets must hold at least one element");
  }
  const int64_t bags = offsets.size(0) - (last ? 1 : 0);
  std::optional<Tensor> scale = ctx.optional_tensor("per_sample_weights");
  if (scale) {
    if (mode != 0) ctx.bad_input(op + ": per_sample_weights are only supported in mode 0 (sum)");
    if (scale->rank() != 1 || scale->size(0) != n || scale->dtype() != weight.dtype()) {
      ctx.fail(op + ": per_sample_weights " + scale->str() +
               " must be 1-d, of the weight's dtype, with one weight per index of " +
               indices.str());
    }
  }
  int64_t padding = -1;
  if (ctx.declares("padding_idx")) padding = ctx.optional_integer("padding_idx").value_or(-1);
  if (padding >= rows) {
    ctx.fail(op + ": padding_idx " + std::to_string(padding) + " must be below num_weights " +
             std::to_string(rows));
  }
  // Bag b holds indices [start(b), start(b + 1)); the last bag ends at n unless the offsets
  // carry its end.
  std::vector<int64_t> start(static_cast<size_t>(bags + 1), n);
  for (int64_t b = 0; b < offsets.size(0); ++b) {
    const int64_t o = offsets.flat(b).as_int();
    if (b == 0 && o != 0) ctx.fail(op + ": offsets[0] must be 0, got " + std::to_string(o));
    if (o < 0 || o > n || (b > 0 && o < start[static_cast<size_t>(b - 1)])) {
      ctx.fail(op + ": offsets must be non-decreasing and at most the number of indices (" +
               std::to_string(n) + "), got offsets[" + std::to_string(b) +
               "] = " + std::to_string(o));
    }
    if (b <= bags) start[static_cast<size_t>(b)] = o;
  }
  if (last) start[static_cast<size_t>(bags)] = offsets.flat(bags).as_int();
  const std::vector<double> w = load<double>(weight);
  std::vector<double> out(static_cast<size_t>(bags * width), 0.0);
  std::vector<int64_t> bag_of(static_cast<size_t>(n), 0), count(static_cast<size_t>(bags), 0);
  std::vector<int64_t> argmax(static_cast<size_t>(bags * width), -1);
  for (int64_t b = 0; b < bags; ++b) {
    for (int64_t i = start[static_cast<size_t>(b)]; i < start[static_cast<size_t>(b + 1)]; ++i) {
      bag_of[static_cast<size_t>(i)] = b;
      const int64_t row = checked_index(ctx, indices.flat(i).as_int(), 0, rows, false);
      if (row == padding) continue;
      const double factor = scale ? scale->flat(i).as_double() : 1.0;
      for (int64_t d = 0; d < width; ++d) {
        const size_t at = static_cast<size_t>(b * width + d);
        const double x = w[static_cast<size_t>(row * width + d)];
        if (mode == 2) {
          if (count[static_cast<size_t>(b)] == 0 || x > out[at]) {
            out[at] = x;
            argmax[at] = row;
          }
        } else {
          out[at] += factor * x;
        }
      }
      ++count[static_cast<size_t>(b)];
    }
    if (mode == 1 && count[static_cast<size_t>(b)] > 0) {
      for (int64_t d = 0; d < width; ++d) {
        out[static_cast<size_t>(b * width + d)] /=
            static_cast<double>(count[static_cast<size_t>(b)]);
      }
    }
  }
  const DType index_dtype = offsets.dtype();
  // PyTorch's CPU fast path (the rule's embedding_bag_fast_path): it compares the strides as
  // they are, whatever the sizes.
  const bool fast = (weight.dtype() == DType::Float32 || weight.dtype() == DType::Float16) &&
                    weight.strides()[1] == 1 && padding < 0 && (!scale || scale->strides()[0] == 1);
  Tensor offset2bag = Tensor::zeros(index_dtype, {mode != 0 || !fast ? n : 0});
  if (mode != 0 || !fast) {
    for (int64_t i = 0; i < n; ++i)
      offset2bag.set_flat(i, Scalar::of_int(bag_of[static_cast<size_t>(i)]));
  }
  Tensor bag_size = Tensor::zeros(index_dtype, {bags});
  for (int64_t b = 0; b < bags; ++b)
    bag_size.set_flat(b, Scalar::of_int(count[static_cast<size_t>(b)]));
  Tensor max_indices = Tensor::zeros(index_dtype, mode == 2 ? Sizes{bags, width} : Sizes{bags});
  if (mode == 2) {
    for (int64_t f = 0; f < bags * width; ++f) {
      max_indices.set_flat(f, Scalar::of_int(argmax[static_cast<size_t>(f)]));
    }
  }
  return RValue::list({RValue::of(store<double>(weight.dtype(), {bags, width}, out)),
                       RValue::of(offset2bag), RValue::of(bag_size), RValue::of(max_indices)});
}

}  // namespace

void register_indexing(KernelRegistry& r) {
  r.add("aten.index", index);
  r.add("aten._unsafe_index", index);
  r.add("aten.index_select", index_select);
  r.add("aten.gather", gather);
  r.add("aten.take_along_dim", take_along_dim);
  r.add("aten.scatter", scatter);
  r.add("aten.scatter_add", scatter_add);
  r.add("aten.scatter_reduce", scatter_reduce);
  r.add("aten.index_add",
        [](KernelContext& ctx) { return index_update(ctx, Update::Add, "index_add"); });
  r.add("aten.index_copy",
        [](KernelContext& ctx) { return index_update(ctx, Update::Copy, "index_copy"); });
  r.add("aten.index_fill",
        [](KernelContext& ctx) { return index_update(ctx, Update::Fill, "index_fill"); });
  r.add("aten.index_put", index_put);
  r.add("aten._unsafe_index_put", index_put);
  r.add("aten.masked_scatter", masked_scatter);
  r.add("aten.embedding", embedding);
  for (const char* op :
       {"aten.embedding_bag", "aten._embedding_bag", "aten._embedding_bag_forward_only"}) {
    r.add(op, embedding_bag);
  }
  r.add("aten.embedding_dense_backward", embedding_dense_backward);
}

}  // namespace symshape::interp::kernels
