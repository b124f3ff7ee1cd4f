// Internal: the argument validation of the view ops, shared by their shape rules
// (symshape/ops/views.cc) and their kernels (symshape/interp/views.cc). See checks.h.
#pragma once

#include "symshape/ops/validate/checks.h"

namespace symshape::validate {

// movedim(source, destination) of a tensor of `rank` dims: lists of one length of constant dims,
// none repeated. Returns the result's dims as the input's (order[d] is the input dim at d).
template <class Ctx, class Size>
std::vector<size_t> movedim_order(const Ctx& ctx, const std::vector<Size>& src,
                                  const std::vector<Size>& dst, size_t rank) {
  if (src.size() != dst.size()) {
    ctx.bad_input("movedim: Invalid source or destination dims: source (" + text(src) +
                  ") and destination (" + text(dst) +
                  ") dims must have the same number of elements");
  }
  std::vector<long> order(rank, -1);
  std::vector<bool> used(rank, false);
  for (size_t i = 0; i < src.size(); ++i) {
    const std::optional<int64_t> from = constant_of(src[i]), to = constant_of(dst[i]);
    if (!from || !to) ctx.bad_input("movedim dims must be constants");
    const size_t s = ctx.normalize_dim(*from, rank), d = ctx.normalize_dim(*to, rank);
    if (rank == 0) continue;  // 0 and -1 name the one (absent) dim of a scalar
    if (order[d] != -1 || used[s]) ctx.bad_input("movedim: repeated dim in source or destination");
    order[d] = static_cast<long>(s);
    used[s] = true;
  }
  std::vector<size_t> out;
  size_t next = 0;
  for (long o : order) {
    if (o == -1) {
      while (used[next]) ++next;
      o = static_cast<long>(next);
      used[next] = true;
    }
    out.push_back(static_cast<size_t>(o));
  }
  return out;
}

}  // namespace symshape::validate
