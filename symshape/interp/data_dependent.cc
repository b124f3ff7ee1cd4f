// Kernels: ops whose output sizes depend on the data (nonzero, item, unique, masked_select,
// repeat_interleave). Arguments are read as symshape/ops/data_dependent.cc's rules read them.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "symshape/interp/kernels.h"

namespace symshape::interp::kernels {

namespace {

// The indices of t's nonzero elements in row-major order.
std::vector<std::vector<int64_t>> nonzero_indices(const Tensor& t) {
  std::vector<std::vector<int64_t>> out;
  for_each_index(t.sizes(), [&](std::span<const int64_t> index) {
    if (t.at(index).as_bool()) out.emplace_back(index.begin(), index.end());
  });
  return out;
}

// nonzero: int64 [count, rank], column-major as PyTorch allocates it (strides (1, count)).
RValue nonzero(KernelContext& ctx) {
  Tensor t = ctx.tensor("self");
  auto found = nonzero_indices(t);
  const int64_t n = static_cast<int64_t>(found.size());
  const int64_t rank = static_cast<int64_t>(t.rank());
  Tensor base = Tensor::zeros(DType::Int64, {n * rank});
  Tensor out = base.as_strided({n, rank}, {1, n}, 0);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t d = 0; d < rank; ++d) {
      std::vector<int64_t> at = {i, d};
      out.set(at, Scalar::of_int(found[static_cast<size_t>(i)][static_cast<size_t>(d)]));
    }
  }
  return RValue::of(out);
}

RValue item(KernelContext& ctx) {
  Tensor t = ctx.tensor("self");
  if (t.numel() != 1) {
    ctx.fail("a Tensor with " + std::to_string(t.numel()) +
             " elements cannot be converted to Scalar");
  }
  Scalar v = t.flat(0);
  switch (v.kind) {
    case Scalar::Kind::Bool: return RValue::of_bool(v.i != 0);
    case Scalar::Kind::Int: return RValue::of_int(v.i);
    case Scalar::Kind::Float: return RValue::of_float(v.f);
    case Scalar::Kind::Complex: return RValue::of_float(v.c.real());
  }
  return RValue::none();
}

// A strict weak order on elements of one kind (complex: real part, then imaginary).
bool less(const Scalar& a, const Scalar& b) {
  switch (a.kind) {
    case Scalar::Kind::Bool:
    case Scalar::Kind::Int: return a.i < b.i;
    case Scalar::Kind::Float:
      // NaNs sort last, as torch.sort puts them.
      if (std::isnan(a.f)) return false;
      if (std::isnan(b.f)) return true;
      return a.f < b.f;
    case Scalar::Kind::Complex:
      if (a.c.real() != b.c.real()) return a.c.real() < b.c.real();
      return a.c.imag() < b.c.imag();
  }
  return false;
}

bool equal(const Scalar& a, const Scalar& b) { return !less(a, b) && !less(b, a); }

using Item = std::vector<Scalar>;

bool item_less(const Item& a, const Item& b) {
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), less);
}

bool item_equal(const Item& a, const Item& b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k) {
    if (!equal(a[k], b[k])) return false;
  }
  return true;
}

// unique and friends: (values, inverse, counts). Without a dim, the items are the elements;
// with one, the slices along it. Consecutive: only runs of equal neighbours merge (in order);
// otherwise the distinct items, sorted. Outputs not asked for are empty ([0]).
RValue unique(KernelContext& ctx, bool consecutive) {
  Tensor t = ctx.tensor("self");
  std::optional<size_t> dim;
  if (ctx.has("dim")) {
    if (t.rank() == 0) ctx.bad_input("unique along a dim needs a tensor with at least one dim");
    dim = ctx.normalize_dim(ctx.integer("dim"), t.rank());
  }
  // The items, in order.
  std::vector<Item> items;
  std::vector<int64_t> slice_sizes;  // sizes of one slice (t's sizes without dim)
  if (!dim) {
    for (const Scalar& v : t.values()) items.push_back({v});
  } else {
    const int64_t n = t.sizes()[*dim];
    for (size_t d = 0; d < t.rank(); ++d) {
      if (d != *dim) slice_sizes.push_back(t.sizes()[d]);
    }
    items.resize(static_cast<size_t>(n));
    std::vector<int64_t> index(t.rank());
    for (int64_t i = 0; i < n; ++i) {
      for_each_index(slice_sizes, [&](std::span<const int64_t> s) {
        size_t m = 0;
        for (size_t d = 0; d < t.rank(); ++d) index[d] = d == *dim ? i : s[m++];
        items[static_cast<size_t>(i)].push_back(t.at(index));
      });
    }
  }
  // groups[g] = the item indices merged into output g.
  std::vector<int64_t> inverse(items.size());
  std::vector<Item> values;
  std::vector<int64_t> counts;
  if (consecutive) {
    for (size_t k = 0; k < items.size(); ++k) {
      if (values.empty() || !item_equal(values.back(), items[k])) {
        values.push_back(items[k]);
        counts.push_back(0);
      }
      counts.back() += 1;
      inverse[k] = static_cast<int64_t>(values.size()) - 1;
    }
  } else {
    std::vector<size_t> order(items.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return item_less(items[a], items[b]); });
    for (size_t k : order) {
      if (values.empty() || !item_equal(values.back(), items[k])) {
        values.push_back(items[k]);
        counts.push_back(0);
      }
      counts.back() += 1;
      inverse[k] = static_cast<int64_t>(values.size()) - 1;
    }
  }
  const int64_t n = static_cast<int64_t>(values.size());
  Tensor out_values;
  if (!dim) {
    std::vector<Scalar> flat;
    for (const Item& v : values) flat.push_back(v[0]);
    out_values = Tensor::from(t.dtype(), {n}, flat);
  } else {
    std::vector<int64_t> sizes = t.sizes();
    sizes[*dim] = n;
    out_values = Tensor::zeros(t.dtype(), sizes);
    std::vector<int64_t> index(t.rank());
    for (int64_t i = 0; i < n; ++i) {
      size_t e = 0;
      for_each_index(slice_sizes, [&](std::span<const int64_t> s) {
        size_t m = 0;
        for (size_t d = 0; d < t.rank(); ++d) index[d] = d == *dim ? i : s[m++];
        out_values.set(index, values[static_cast<size_t>(i)][e++]);
      });
    }
  }
  const bool want_inverse = ctx.boolean("return_inverse", false);
  Tensor out_inverse = Tensor::zeros(DType::Int64, {0});
  if (want_inverse) {
    std::vector<Scalar> flat;
    for (int64_t v : inverse) flat.push_back(Scalar::of_int(v));
    std::vector<int64_t> shape = dim ? std::vector<int64_t>{t.sizes()[*dim]} : t.sizes();
    out_inverse = Tensor::from(DType::Int64, shape, flat);
  }
  std::vector<RValue> out = {RValue::of(out_values), RValue::of(out_inverse)};
  if (ctx.declares("return_counts")) {  // _unique has no counts
    const bool want_counts = ctx.boolean("return_counts", false);
    Tensor out_counts = Tensor::zeros(DType::Int64, {0});
    if (want_counts) {
      std::vector<Scalar> flat;
      for (int64_t c : counts) flat.push_back(Scalar::of_int(c));
      out_counts = Tensor::from(DType::Int64, {n}, flat);
    }
    out.push_back(RValue::of(out_counts));
  }
  return RValue::list(std::move(out));
}

}  // namespace

void register_data_dependent(KernelRegistry& r) {
  r.add("aten.nonzero", nonzero);
  r.add("aten.argwhere", nonzero);
  r.add("aten.nonzero_static", [](KernelContext& ctx) {
    Tensor t = ctx.tensor("self");
    const int64_t size = ctx.integer("size");
    if (size < 0)
      ctx.bad_input("nonzero_static: size must be non-negative, got " + std::to_string(size));
    if (size > Tensor::kMaxElements)
      ctx.fail("nonzero_static: size " + std::to_string(size) + " is too large");
    const int64_t fill = ctx.integer("fill_value", -1);
    auto found = nonzero_indices(t);
    const int64_t rank = static_cast<int64_t>(t.rank());
    Tensor out = Tensor::zeros(DType::Int64, {size, rank});
    for (int64_t i = 0; i < size; ++i) {
      for (int64_t d = 0; d < rank; ++d) {
        std::vector<int64_t> at = {i, d};
        int64_t v = i < static_cast<int64_t>(found.size())
                        ? found[static_cast<size_t>(i)][static_cast<size_t>(d)]
                        : fill;
        out.set(at, Scalar::of_int(v));
      }
    }
    return RValue::of(out);
  });
  r.add("aten.item", item);
  r.add("aten._local_scalar_dense", item);
  r.add("aten.masked_select", [](KernelContext& ctx) {
    Tensor self = ctx.tensor("self");
    Tensor mask = ctx.tensor("mask");
    if (mask.dtype() != DType::Bool) {
      ctx.fail("masked_select: expected a bool mask, got " + mask.str());
    }
    auto shape = broadcast_shapes(self.sizes(), mask.sizes());
    if (!shape)
      ctx.fail("masked_select: " + self.str() + " and mask " + mask.str() + " do not broadcast");
    Tensor s = expand_to(self, *shape), m = expand_to(mask, *shape);
    std::vector<Scalar> picked;
    for_each_index(*shape, [&](std::span<const int64_t> index) {
      if (m.at(index).as_bool()) picked.push_back(s.at(index));
    });
    return RValue::of(Tensor::from(self.dtype(), {static_cast<int64_t>(picked.size())}, picked));
  });
  r.add("aten._unique2", [](KernelContext& ctx) { return unique(ctx, false); });
  r.add("aten._unique", [](KernelContext& ctx) { return unique(ctx, false); });
  r.add("aten.unique_dim", [](KernelContext& ctx) { return unique(ctx, false); });
  r.add("aten.unique_consecutive", [](KernelContext& ctx) { return unique(ctx, true); });
  r.add("aten.unique_dim_consecutive", [](KernelContext& ctx) { return unique(ctx, true); });
  r.add("aten.repeat_interleave.Tensor", [](KernelContext& ctx) {
    Tensor repeats = ctx.tensor("repeats");
    if (repeats.rank() > 1) {
      ctx.bad_input("repeat_interleave: repeats must be a 0-dim or 1-dim tensor, got " +
                    repeats.str());
    }
    if (!is_integral(repeats.dtype())) {
      ctx.bad_input("repeat_interleave: repeats must be an integer tensor, got " + repeats.str());
    }
    std::vector<Scalar> out;
    std::vector<Scalar> counts = repeats.values();
    int64_t total = 0;
    for (const Scalar& c : counts) {
      if (c.i < 0) ctx.fail("repeat_interleave: repeats can not be negative");
      if (c.i > Tensor::kMaxElements - total) ctx.fail("repeat_interleave: too many repeats");
      total += c.i;
    }
    for (size_t k = 0; k < counts.size(); ++k) {
      for (int64_t j = 0; j < counts[k].i; ++j) {
        out.push_back(Scalar::of_int(static_cast<int64_t>(k)));
      }
    }
    if (auto size = ctx.optional_integer("output_size"); size && *size != total) {
      ctx.fail("repeat_interleave: output_size " + std::to_string(*size) +
               " does not match the repeats' total " + std::to_string(total));
    }
    return RValue::of(Tensor::from(repeats.dtype(), {total}, out));
  });
}

}  // namespace symshape::interp::kernels
