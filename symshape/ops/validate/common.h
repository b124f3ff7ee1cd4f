// Internal: the argument validation every family shares (reduction dims, in-place results,
// getitem), used by the shape rules' helpers (symshape/ops/common.cc, symbolic.cc) and the
// kernels' (symshape/interp/common.cc, symbolic.cc). See checks.h.
#pragma once

#include <algorithm>

#include "symshape/ops/validate/checks.h"

namespace symshape::validate {

// The dims a reduction reduces: `dim` absent or empty (all dims), an int or a list of constant
// ints; normalized, sorted, each at most once.
template <class Ctx>
std::vector<size_t> reduction_dims(const Ctx& ctx, size_t rank) {
  auto dims = ctx.optional_int_list("dim");
  std::vector<size_t> out;
  if (!dims || dims->empty()) {
    for (size_t i = 0; i < rank; ++i) out.push_back(i);
    return out;
  }
  for (const auto& d : *dims) {
    const std::optional<int64_t> v = constant_of(d);
    if (!v) ctx.bad_input("a reduction dim must be a constant, got " + text(d));
    out.push_back(ctx.normalize_dim(*v, rank));
  }
  std::sort(out.begin(), out.end());
  if (std::adjacent_find(out.begin(), out.end()) != out.end()) {
    ctx.bad_input("a dim appears more than once in the reduction's dim list");
  }
  return out;
}

// Whether a result of type `from` may be written into a tensor of type `to` (PyTorch's canCast).
inline bool can_cast(DType from, DType to) {
  if (is_complex(from) && !is_complex(to)) return false;
  if (is_floating(from) && (is_integral(to) || to == DType::Bool)) return false;
  if (from != DType::Bool && to == DType::Bool) return false;
  return true;
}

// An in-place op writes its result into self: the result must have self's shape (self is never
// broadcast) and a dtype castable to self's.
template <class Ctx, class T>
void in_place_result(const Ctx& ctx, const T& self, const T& result) {
  const auto &s = sizes_of(self), &r = sizes_of(result);
  const std::string message = "an in-place op cannot broadcast self " + text(s) + " to " + text(r);
  if (r.size() != s.size()) ctx.fail(message);
  for (size_t d = 0; d < s.size(); ++d) {
    require_equal(ctx, s[d], r[d], "in_place", [&] { return message; });
  }
  if (!can_cast(dtype_of(result), dtype_of(self))) {
    ctx.fail("result type " + text(dtype_of(result)) +
             " can't be cast to the desired output type " + text(dtype_of(self)));
  }
}

// operator.getitem(a, b): a tuple or list, and an index into it (negative from the end).
template <class Ctx, class V>
V getitem(const Ctx& ctx, const V& seq, int64_t i) {
  if (seq.kind != V::Kind::List) ctx.bad_input("getitem needs a tuple or list, got " + seq.str());
  const int64_t n = static_cast<int64_t>(seq.items.size());
  if (i < -n || i >= n) {
    ctx.bad_input("index " + std::to_string(i) + " is out of range for " + std::to_string(n) +
                  " items");
  }
  return seq.items[static_cast<size_t>(i < 0 ? i + n : i)];
}

}  // namespace symshape::validate
