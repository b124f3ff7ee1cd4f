// The rules for max and min: nested calls flattened, constant arguments merged, repeated ones
// removed, and an argument that another one provably dominates dropped.
#include <algorithm>

#include "symshape/expr/functions.h"
#include "symshape/simplify/simplifier.h"

namespace symshape::detail {

namespace {

void flatten(const ex& e, Fn f, std::vector<ex>& out) {
  if (call_of(e) == f) {
    flatten(e.op(0), f, out);
    flatten(e.op(1), f, out);
  } else {
    out.push_back(e);
  }
}

// Whether x dominates y (x >= y for max, x <= y for min) at every point: ranges first, then
// prove(). False means y strictly dominates x.
Truth dominates(Simplifier& s, Fn f, const ex& x, const ex& y) {
  ValueRange rx = s.range(x), ry = s.range(y);
  const ValueRange& hi_side = f == Fn::Max ? rx : ry;  // should be the larger
  const ValueRange& lo_side = f == Fn::Max ? ry : rx;
  if (hi_side.lo() && lo_side.hi() && *hi_side.lo() >= *lo_side.hi()) return Truth::True;
  if (hi_side.hi() && lo_side.lo() && *hi_side.hi() < *lo_side.lo()) return Truth::False;
  // Two distinct exactly-ranged atoms take their values independently: the ranges said it all.
  if (s.range_is_exact(x) && s.range_is_exact(y)) return Truth::Unknown;
  return s.decide(f == Fn::Max ? RelOp::Ge : RelOp::Le, x, y);
}

}  // namespace

ex minmax_rules(Simplifier& s, Fn f, const ex& e) {
  std::vector<ex> args;
  flatten(e, f, args);
  // Rule: constant arguments merge into the largest (max) or smallest (min) one.
  std::optional<Int> best;
  std::vector<ex> kept;
  for (const ex& a : args) {
    if (!is_integer(a)) {
      kept.push_back(a);
      continue;
    }
    Int v = int_of(a);
    if (!best || (f == Fn::Max ? v > *best : v < *best)) best = v;
  }
  if (best) kept.push_back(ex_of(*best));
  // Rule: repeated arguments count once. The canonical order makes the result deterministic.
  std::sort(kept.begin(), kept.end(),
            [](const ex& a, const ex& b) { return canonical_compare(a, b) < 0; });
  kept.erase(
      std::unique(kept.begin(), kept.end(), [](const ex& a, const ex& b) { return a.is_equal(b); }),
      kept.end());
  // Rule: drop an argument another one dominates, max(x + 1, x) == x + 1.
  std::vector<bool> dropped(kept.size(), false);
  for (size_t i = 0; i < kept.size(); ++i) {
    for (size_t j = i + 1; j < kept.size() && !dropped[i]; ++j) {
      if (dropped[j]) continue;
      Truth t = dominates(s, f, kept[i], kept[j]);
      if (t == Truth::True) {
        dropped[j] = true;
      } else if (t == Truth::False || dominates(s, f, kept[j], kept[i]) == Truth::True) {
        dropped[i] = true;
      }
    }
  }
  ex out;
  bool first = true;
  for (size_t i = 0; i < kept.size(); ++i) {
    if (dropped[i]) continue;
    out = first ? kept[i] : apply(f, Expr(out), Expr(kept[i])).ex();
    first = false;
  }
  return out;
}

}  // namespace symshape::detail
